"""The ``physics`` section of ``python -m engine.tools.bench``: our physics path against arcade's.

The same bodies run through two engines in one process, one after the other:

* **arcade**: ``arcade.PymunkPhysicsEngine``, each body added with ``add_sprite`` (as arcade's
  examples do). A tick is its ``step()``: pymunk's ``space.step`` (arcade gives every dynamic
  body a Python velocity callback, so pymunk calls back into Python once per body per step)
  and then ``resync_sprites`` (``sprite.position`` and ``sprite.angle`` setters per body). A
  frame adds nothing: arcade draws the poses its last tick set, without interpolation.
* **ours**: :class:`~engine.physics.world.PhysicsWorld` plus
  :class:`~engine.rendering.sprite_sync.SpriteSync`. A tick is ``world.step()``: pymunk's
  ``space.step`` and then the snapshot (poses and velocities of every body read in bulk into the
  previous/current arrays). A frame is ``sync.write(alpha)``: the interpolated poses of all
  bodies written into the SpriteList's buffer in one numpy assignment.

"The same bodies": equal mass, moment, shape (the sprite's hit box), friction, position and
velocity, added to equal spaces in the same order, so both engines compute the same motion
(``max_diff_px`` reports the largest difference of a final position between them; 0.0 means bit
for bit the same). Each size runs in two scenes that say what they are:

* ``spread``: bodies on a loose grid flying apart from its centre, under gravity: no contacts,
  so pymunk's own step is cheap and the per-body cost around it shows.
* ``piled``: bodies stacked row on row in a box (floor and walls), touching from the start: a
  contact-heavy pile where pymunk's step dominates.

Every tick (after :data:`WARMUP_TICKS` untimed ones) is timed with ``time.perf_counter_ns``, and
``space.step`` inside it is timed by wrapping the space's ``step`` method, so "beyond pymunk's
step" is measured in the same tick, not estimated. Rows hold medians over ``--ticks`` ticks. The
draw itself (upload and rasterising) is the same for both engines and is not timed.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

SCENES = ("spread", "piled")
DEFAULT_SIZES = (100, 1_000, 10_000)
DEFAULT_TICKS = 60
MAX_TICKS = 100_000
"""Most timed ticks ``--ticks`` asks for (1,600 times the default)."""
WARMUP_TICKS = 5
FIXED_STEP_S = 1.0 / 60.0
GRAVITY_PX_S2 = (0.0, -900.0)
BODY_SIZE_PX = 8
BODY_MASS = 1.0
FRICTION = 0.5

#: Goals from issue 10: snapshot of 10,000 bodies, our per-tick cost beyond pymunk's step per
#: body (at 10,000 bodies, where fixed costs no longer hide it), speed-up at every size.
GOAL_SNAPSHOT_MS_AT_10K = 1.5
GOAL_BEYOND_STEP_US_PER_BODY = 0.1
GOAL_SPEEDUP = 1.3

_GOLDEN_FRACTION = 0.6180339887498949  # an alpha sequence that never repeats a value
_SPREAD_GAP_PX = 3 * BODY_SIZE_PX
_SPREAD_EXPANSION_PER_S = 0.5  # velocity = this * (position - grid centre): never converging


@dataclass(frozen=True, slots=True)
class BodyStart:
    """Where one body starts: position, velocity and spin."""

    x_px: float
    y_px: float
    vx_px_s: float
    vy_px_s: float
    spin_rad_s: float


@dataclass(frozen=True, slots=True)
class Scene:
    """A scene: the bodies' starts and the static walls (segments) around them."""

    name: str
    bodies: tuple[BodyStart, ...]
    walls_px: tuple[tuple[tuple[float, float], tuple[float, float]], ...]


def make_scene(name: str, n_bodies: int, seed: int) -> Scene:
    """Build scene ``name`` (``"spread"`` or ``"piled"``) with ``n_bodies`` bodies.

    Args:
        name: One of :data:`SCENES`.
        n_bodies: How many dynamic bodies.
        seed: Seed of the random spins (and, spread out, the velocity jitter).

    Returns:
        The scene; the same arguments give the same scene.

    Raises:
        ValueError: If ``name`` is not a known scene.
    """
    rng = np.random.default_rng(seed)
    columns = max(1, math.ceil(math.sqrt(n_bodies)))
    spins = rng.uniform(-2.0, 2.0, size=n_bodies).tolist()
    size = float(BODY_SIZE_PX)
    if name == "spread":
        pitch = size + _SPREAD_GAP_PX
        centre = (columns - 1) * pitch / 2
        starts = []
        for i, spin in enumerate(spins):
            x_px = (i % columns) * pitch
            y_px = (i // columns) * pitch
            starts.append(
                BodyStart(
                    x_px,
                    y_px,
                    _SPREAD_EXPANSION_PER_S * (x_px - centre),
                    _SPREAD_EXPANSION_PER_S * (y_px - centre),
                    spin,
                )
            )
        return Scene(name, tuple(starts), ())
    if name == "piled":
        # Rows of touching boxes resting on each other from the first tick.
        width = columns * size
        starts = [
            BodyStart(
                (i % columns) * size + size / 2, (i // columns) * size + size / 2, 0.0, 0.0, 0.0
            )
            for i in range(n_bodies)
        ]
        height = (n_bodies // columns + 2) * size
        floor = ((-size, 0.0), (width + size, 0.0))
        left_wall = ((0.0, 0.0), (0.0, height))
        right_wall = ((width, 0.0), (width, height))
        return Scene(name, tuple(starts), (floor, left_wall, right_wall))
    raise ValueError(f"scene must be one of {', '.join(SCENES)}, got {name!r}")


def _add_walls(space: Any, scene: Scene) -> None:
    import pymunk

    for a, b in scene.walls_px:
        wall = pymunk.Segment(space.static_body, a, b, 0.0)
        wall.friction = FRICTION
        space.add(wall)


def _sprite(start: BodyStart) -> Any:
    import arcade

    sprite = arcade.SpriteSolidColor(BODY_SIZE_PX, BODY_SIZE_PX, color=arcade.color.WHITE)
    sprite.position = (start.x_px, start.y_px)
    return sprite


class _StepTimer:
    """Wraps a space's ``step`` to time pymunk's own step inside a tick."""

    def __init__(self, space: Any) -> None:
        self._step = space.step
        self.ns = 0
        space.step = self

    def __call__(self, dt_s: float) -> None:
        start_ns = time.perf_counter_ns()
        self._step(dt_s)
        self.ns += time.perf_counter_ns() - start_ns


@dataclass(frozen=True, slots=True)
class _Timings:
    """Per-tick samples of one engine, in nanoseconds."""

    space_step_ns: list[int]
    tick_ns: list[int]
    frame_ns: list[int]
    final_positions_px: np.ndarray


def _run_ticks(
    tick: Callable[[], None], frame: Callable[[float], None], timer: _StepTimer, ticks: int
) -> tuple[list[int], list[int], list[int]]:
    space_step_ns: list[int] = []
    tick_ns: list[int] = []
    frame_ns: list[int] = []
    for index in range(WARMUP_TICKS + ticks):
        timer.ns = 0
        start_ns = time.perf_counter_ns()
        tick()
        ticked_ns = time.perf_counter_ns()
        frame((index * _GOLDEN_FRACTION) % 1.0)
        framed_ns = time.perf_counter_ns()
        if index >= WARMUP_TICKS:
            space_step_ns.append(timer.ns)
            tick_ns.append(ticked_ns - start_ns)
            frame_ns.append(framed_ns - ticked_ns)
    return space_step_ns, tick_ns, frame_ns


def run_arcade(scene: Scene, ticks: int) -> _Timings:
    """Run ``scene`` through ``arcade.PymunkPhysicsEngine`` for ``ticks`` timed ticks."""
    import arcade
    import pymunk

    engine = arcade.PymunkPhysicsEngine(gravity=GRAVITY_PX_S2)
    sprite_list: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList(capacity=len(scene.bodies))
    moment = pymunk.moment_for_box(BODY_MASS, (BODY_SIZE_PX, BODY_SIZE_PX))
    bodies = []
    for start in scene.bodies:
        sprite = _sprite(start)
        engine.add_sprite(sprite, mass=BODY_MASS, friction=FRICTION, moment_of_inertia=moment)
        body = engine.get_physics_object(sprite).body
        assert body is not None
        body.velocity = (start.vx_px_s, start.vy_px_s)
        body.angular_velocity = start.spin_rad_s
        sprite_list.append(sprite)
        bodies.append(body)
    _add_walls(engine.space, scene)
    timer = _StepTimer(engine.space)

    def tick() -> None:
        engine.step(FIXED_STEP_S)

    def frame(alpha: float) -> None:
        pass  # arcade draws the poses its step set

    samples = _run_ticks(tick, frame, timer, ticks)
    final = np.array([tuple(body.position) for body in bodies], dtype=np.float64)
    return _Timings(*samples, final_positions_px=final)


def run_ours(scene: Scene, ticks: int) -> _Timings:
    """Run ``scene`` through ``PhysicsWorld`` + ``SpriteSync`` for ``ticks`` timed ticks."""
    import arcade
    import pymunk

    from engine.physics.world import PhysicsWorld
    from engine.rendering.sprite_sync import SpriteSync, TrackedSpriteList

    world = PhysicsWorld(GRAVITY_PX_S2)
    sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList(capacity=len(scene.bodies))
    moment = pymunk.moment_for_box(BODY_MASS, (BODY_SIZE_PX, BODY_SIZE_PX))
    for start in scene.bodies:
        sprite = _sprite(start)
        # The hit box arcade's add_sprite turns into a pymunk.Poly: the very same shape.
        points = [(x * sprite.scale_x, y * sprite.scale_y) for x, y in sprite.hit_box.points]
        body = pymunk.Body(BODY_MASS, moment)
        body.position = (start.x_px, start.y_px)
        body.velocity = (start.vx_px_s, start.vy_px_s)
        body.angular_velocity = start.spin_rad_s
        shape = pymunk.Poly(body, points)
        shape.friction = FRICTION
        sprite_list.append(sprite)
        world.add(body, shape, sprite=sprite)
    _add_walls(world.space, scene)
    sync = SpriteSync(world, sprite_list)
    timer = _StepTimer(world.space)

    def tick() -> None:
        world.step(FIXED_STEP_S)

    def frame(alpha: float) -> None:
        sync.write(alpha)

    samples = _run_ticks(tick, frame, timer, ticks)
    final = np.array(world.current[:, :2])
    return _Timings(*samples, final_positions_px=final)


def _median_ms(samples_ns: Sequence[int]) -> float:
    return statistics.median(samples_ns) / 1e6


def bench_scene(scene: Scene, ticks: int) -> dict[str, Any]:
    """Time ``scene`` through both engines and return one row (see :func:`bench_physics`)."""
    n = len(scene.bodies)
    arcade_run = run_arcade(scene, ticks)
    ours_run = run_ours(scene, ticks)
    arcade_step_ms = _median_ms(arcade_run.space_step_ns)
    arcade_total_ms = _median_ms(
        [t + f for t, f in zip(arcade_run.tick_ns, arcade_run.frame_ns, strict=True)]
    )
    ours_step_ms = _median_ms(ours_run.space_step_ns)
    beyond_ms = _median_ms(
        [t - s for t, s in zip(ours_run.tick_ns, ours_run.space_step_ns, strict=True)]
    )
    ours_total_ms = _median_ms(
        [t + f for t, f in zip(ours_run.tick_ns, ours_run.frame_ns, strict=True)]
    )
    diff_px = np.abs(arcade_run.final_positions_px - ours_run.final_positions_px)
    return {
        "scene": scene.name,
        "n": n,
        "arcade_space_step_ms": round(arcade_step_ms, 4),
        "arcade_resync_ms": round(
            _median_ms(
                [t - s for t, s in zip(arcade_run.tick_ns, arcade_run.space_step_ns, strict=True)]
            ),
            4,
        ),
        "arcade_tick_frame_ms": round(arcade_total_ms, 4),
        "ours_space_step_ms": round(ours_step_ms, 4),
        "ours_snapshot_ms": round(beyond_ms, 4),
        "ours_write_ms": round(_median_ms(ours_run.frame_ns), 4),
        "ours_tick_frame_ms": round(ours_total_ms, 4),
        "ours_beyond_step_us_per_body": round(beyond_ms * 1000.0 / n, 4),
        "speedup": round(arcade_total_ms / ours_total_ms, 2),
        "max_diff_px": float(diff_px.max()) if n else 0.0,
    }


def bench_physics(options: Any) -> list[dict[str, Any]]:
    """Run every scene at every size in ``options.sizes`` (default :data:`DEFAULT_SIZES`).

    Needs an arcade window (GL context) for the SpriteLists.

    Args:
        options: Parsed CLI options (uses ``sizes`` and ``ticks``).

    Returns:
        One row per scene and size: ``scene``, ``n``; arcade's ``space.step``, its
        ``resync_sprites`` and its tick + frame (``arcade_*_ms``); our ``space.step``, snapshot
        (everything ``world.step`` does beyond ``space.step``), interpolated bulk write and tick +
        frame (``ours_*_ms``); ``ours_beyond_step_us_per_body``; ``speedup`` (arcade's tick +
        frame over ours); ``max_diff_px`` (final positions, arcade against ours). Times are
        medians in milliseconds.
    """
    sizes = options.sizes or DEFAULT_SIZES
    return [
        bench_scene(make_scene(name, n_bodies, seed=n_bodies), options.ticks)
        for name in SCENES
        for n_bodies in sizes
    ]


def goal_verdicts(rows: Sequence[dict[str, Any]]) -> list[str]:
    """One line per goal of issue 10 that these rows can judge, each ending in met / NOT met."""
    lines = []
    at_10k = [row for row in rows if row["n"] == 10_000]
    if at_10k:
        worst_ms = max(row["ours_snapshot_ms"] for row in at_10k)
        lines.append(
            f"goal (10k: snapshot <= {GOAL_SNAPSHOT_MS_AT_10K} ms, worst {worst_ms:.3f} ms): "
            + ("met" if worst_ms <= GOAL_SNAPSHOT_MS_AT_10K else "NOT met")
        )
        worst_us = max(row["ours_beyond_step_us_per_body"] for row in at_10k)
        lines.append(
            f"goal (10k: beyond space.step <= {GOAL_BEYOND_STEP_US_PER_BODY} us/body, "
            f"worst {worst_us:.3f}): "
            + ("met" if worst_us <= GOAL_BEYOND_STEP_US_PER_BODY else "NOT met")
        )
    if rows:
        worst = min(row["speedup"] for row in rows)
        lines.append(
            f"goal (every row: ours >= {GOAL_SPEEDUP}x faster per tick + frame, worst "
            f"{worst:.2f}x): " + ("met" if worst >= GOAL_SPEEDUP else "NOT met")
        )
    return lines


def format_physics(rows: Sequence[dict[str, Any]], ticks: int) -> str:
    """Render the ``physics`` section as a text table with the goal verdicts."""
    lines = [
        f"physics: per tick + frame, arcade.PymunkPhysicsEngine against PhysicsWorld + SpriteSync "
        f"(median of {ticks} ticks, ms)",
        f"{'scene':>7} {'n':>7} | {'arcade: step':>12} {'resync':>8} {'total':>8} | "
        f"{'ours: step':>10} {'snapshot':>8} {'write':>7} {'total':>8} | "
        f"{'us/body':>7} {'speedup':>7}",
    ]
    for row in rows:
        lines.append(
            f"{row['scene']:>7} {row['n']:>7,} | {row['arcade_space_step_ms']:>12.3f} "
            f"{row['arcade_resync_ms']:>8.3f} {row['arcade_tick_frame_ms']:>8.3f} | "
            f"{row['ours_space_step_ms']:>10.3f} {row['ours_snapshot_ms']:>8.3f} "
            f"{row['ours_write_ms']:>7.3f} {row['ours_tick_frame_ms']:>8.3f} | "
            f"{row['ours_beyond_step_us_per_body']:>7.3f} {row['speedup']:>6.2f}x"
        )
    lines.append(
        "step = pymunk's space.step; us/body = (world.step - space.step) / n; speedup = arcade "
        "total / ours total"
    )
    differing = [row for row in rows if row["max_diff_px"] != 0.0]
    if differing:
        worst = max(row["max_diff_px"] for row in differing)
        lines.append(f"note: final positions differ between the engines by up to {worst:g} px")
    lines.extend(goal_verdicts(rows))
    return "\n".join(lines)
