"""Engine micro-benchmarks: ``python -m engine.tools.bench [--json]``.

Each benchmark is a *section*: a function that takes the parsed options and
returns JSON-ready data. :data:`SECTIONS` lists them by name; ``--section``
picks some (default: all) and ``--json`` prints one object keyed by section
name instead of tables.

Section ``interpolation`` answers: what does it cost per rendered frame to put
N physics bodies on screen at their interpolated poses? It times two routes
over the same world and SpriteList, median over ``--frames`` frames:

* **bulk**: ``SpriteSync.write(alpha)`` -- numpy interpolation of all rows plus
  one vectorised write into the SpriteList's position/angle array.
* **setter**: the same numpy interpolation, then a Python loop doing
  ``sprite.position = (x, y)`` per sprite (the usual arcade idiom). The
  ``setter_pos_angle_ms`` column also sets ``sprite.angle``, which is what the
  bulk route writes too; ``speedup`` uses the cheaper position-only column.

Both routes only fill the CPU-side array; the GPU upload in ``draw()`` is the
same for both and is not timed. The goal for 10,000 sprites is a bulk write
of <= 0.15 ms per frame and >= 50x faster than the setter loop.

Section ``physics`` (:mod:`engine.tools.physics_bench`) runs the same bodies
through ``arcade.PymunkPhysicsEngine`` and through ``PhysicsWorld`` +
``SpriteSync`` and times each tick + frame. Section ``levels``
(:mod:`engine.tools.level_bench`) times one simulation tick of each bundled level of the sample
game, its entities included, replaying its bundled replay. Section ``render``
(:mod:`engine.tools.render_bench`) times the CPU of one rendered frame with
pyglet's GL error checks on and off, in two child processes. Section ``pacing``
(:mod:`engine.tools.pacing_bench`) compares our loop's presents with arcade's;
it runs after the other in-process GL sections, because headless ``arcade.run()`` closes the
window. Section ``game`` (:mod:`engine.tools.game_bench`) plays a bundled replay in the real game
headless at the default settings, finishing every frame, in a process of its own: frames per
second, main-thread CPU per frame (tick and render apart) and peak memory (``--replay`` picks
another replay).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.app.definition import DefinitionError
from engine.runtime.launch import (
    OneLineParser,
    add_debug_gl_argument,
    count_arg,
    gl_error_checks_requested,
    set_gl_error_checks,
)
from engine.tools.game_bench import bench_game, format_game
from engine.tools.level_bench import bench_levels, format_levels
from engine.tools.pacing_bench import bench_pacing, format_pacing
from engine.tools.physics_bench import DEFAULT_TICKS, MAX_TICKS, bench_physics, format_physics
from engine.tools.render_bench import MAX_BENCH_FRAMES, bench_render, format_render

DEFAULT_SIZES = (1_000, 10_000)
#: The largest ``--sizes`` value: 100,000 bodies and sprites take a few hundred MB.
MAX_SIZE = 100_000
#: The most different ``--sizes`` one run measures.
MAX_SIZE_COUNT = 16
DEFAULT_FRAMES = 200
#: The longest ``--seconds`` of the pacing section (an hour).
MAX_SECONDS = 3600
WARMUP_FRAMES = 10
FIXED_STEP_S = 1.0 / 60.0
GOAL_BULK_MS_AT_10K = 0.15
GOAL_SPEEDUP = 50.0
_GOLDEN_FRACTION = 0.6180339887498949  # alpha sequence that never repeats a value


def _ensure_headless() -> None:
    """Use arcade's offscreen EGL backend when there is no display (before importing arcade)."""
    if not os.environ.get("DISPLAY"):
        os.environ.setdefault("ARCADE_HEADLESS", "1")


def _alpha(frame: int) -> float:
    """A different alpha in [0, 1) each frame, so setters never hit their no-change shortcut."""
    return (frame * _GOLDEN_FRACTION) % 1.0


def _median_ms(samples_ns: Sequence[int]) -> float:
    return statistics.median(samples_ns) / 1e6


def _build_scene(n_sprites: int, seed: int) -> tuple[Any, Any]:
    """A world of ``n_sprites`` moving bodies, each drawn by a sprite, stepped once.

    Returns:
        ``(world, sync)``; ``sync.sprite_list`` holds the sprites in row order.
    """
    import arcade
    import pymunk

    from engine.physics.world import PhysicsWorld
    from engine.rendering.sprite_sync import SpriteSync, TrackedSpriteList

    rng = np.random.default_rng(seed)
    world = PhysicsWorld(gravity_px_s2=(0.0, -900.0))
    sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList(capacity=n_sprites)
    positions_px = rng.uniform(0.0, 1000.0, size=(n_sprites, 2))
    velocities_px_s = rng.uniform(-200.0, 200.0, size=(n_sprites, 2))
    spins_rad_s = rng.uniform(-5.0, 5.0, size=n_sprites)
    for (x_px, y_px), (vx, vy), spin in zip(
        positions_px.tolist(), velocities_px_s.tolist(), spins_rad_s.tolist(), strict=True
    ):
        body = pymunk.Body(mass=1.0, moment=1.0)
        body.position = (x_px, y_px)
        body.velocity = (vx, vy)
        body.angular_velocity = spin
        sprite = arcade.SpriteSolidColor(4, 4, color=arcade.color.WHITE)
        sprite.position = (x_px, y_px)
        world.add(body, sprite=sprite)
        sprite_list.append(sprite)
    world.step(FIXED_STEP_S)  # previous != current for every body from here on
    return world, SpriteSync(world, sprite_list)


def _time_frames(write_frame: Callable[[float], None], frames: int) -> list[int]:
    for frame in range(WARMUP_FRAMES):
        write_frame(_alpha(frame))
    samples_ns: list[int] = []
    for frame in range(WARMUP_FRAMES, WARMUP_FRAMES + frames):
        alpha = _alpha(frame)
        start_ns = time.perf_counter_ns()
        write_frame(alpha)
        samples_ns.append(time.perf_counter_ns() - start_ns)
    return samples_ns


def bench_interpolation(options: argparse.Namespace) -> list[dict[str, float | int]]:
    """Time the bulk write against per-sprite setters for each size in ``options.sizes``.

    Args:
        options: Parsed CLI options (uses ``sizes`` and ``frames``).

    Returns:
        One row per size: ``n``, ``bulk_ms``, ``setter_ms``,
        ``setter_pos_angle_ms`` and ``speedup`` (``setter_ms / bulk_ms``).
    """
    from engine.rendering.sprite_sync import arcade_angle_deg

    rows: list[dict[str, float | int]] = []
    for n_sprites in options.sizes or DEFAULT_SIZES:
        world, sync = _build_scene(n_sprites, seed=n_sprites)
        sprites = list(sync.sprite_list)

        def bulk(alpha: float, sync: Any = sync) -> None:
            sync.write(alpha)

        def setter(alpha: float, world: Any = world, sprites: list[Any] = sprites) -> None:
            poses = world.interpolated_poses(alpha).tolist()
            for sprite, (x_px, y_px, _angle_rad) in zip(sprites, poses, strict=True):
                sprite.position = (x_px, y_px)

        def setter_pos_angle(
            alpha: float, world: Any = world, sprites: list[Any] = sprites
        ) -> None:
            poses = world.interpolated_poses(alpha).tolist()
            for sprite, (x_px, y_px, angle_rad) in zip(sprites, poses, strict=True):
                sprite.position = (x_px, y_px)
                sprite.angle = arcade_angle_deg(angle_rad)

        bulk_ms = _median_ms(_time_frames(bulk, options.frames))
        setter_ms = _median_ms(_time_frames(setter, options.frames))
        setter_pos_angle_ms = _median_ms(_time_frames(setter_pos_angle, options.frames))
        sync.write(0.5)
        sync.sprite_list.draw()  # untimed: the bulk-written list uploads and draws
        rows.append(
            {
                "n": n_sprites,
                "bulk_ms": round(bulk_ms, 4),
                "setter_ms": round(setter_ms, 4),
                "setter_pos_angle_ms": round(setter_pos_angle_ms, 4),
                "speedup": round(setter_ms / bulk_ms, 1),
            }
        )
    return rows


#: Benchmark sections by name, run in this order. Each takes the parsed options
#: and returns JSON-ready data stored under its name.
SECTIONS: dict[str, Callable[[argparse.Namespace], Any]] = {
    "interpolation": bench_interpolation,
    "physics": bench_physics,
    "levels": bench_levels,
    "render": bench_render,
    "pacing": bench_pacing,
    "game": bench_game,
}

#: Sections that need the arcade window (GL context) to exist.
_GL_SECTIONS = frozenset({"interpolation", "physics", "pacing"})


def run_sections(options: argparse.Namespace) -> dict[str, Any]:
    """Run the selected sections and collect their results by name.

    If any selected section needs GL, uses the process's arcade window, or creates (and
    afterwards closes) one hidden window when there is none.
    """
    needs_gl = any(name in _GL_SECTIONS for name in options.sections)
    window = None
    if needs_gl:
        _ensure_headless()
        import arcade

        try:
            arcade.get_window()
        except RuntimeError:  # no window yet: this run owns one
            window = arcade.Window(width=320, height=180, title="engine.tools.bench", visible=False)
    try:
        return {name: SECTIONS[name](options) for name in options.sections}
    finally:
        if window is not None and window.context is not None:
            window.close()


def format_interpolation(rows: list[dict[str, float | int]], frames: int) -> str:
    """Render the ``interpolation`` section as a text table with the goal verdict."""
    lines = [
        f"interpolation: per-frame cost of writing interpolated poses (median of {frames} frames)",
        f"{'n':>8} {'bulk ms':>9} {'setter ms':>10} {'pos+angle ms':>13} {'speedup':>8}",
    ]
    for row in rows:
        lines.append(
            f"{row['n']:>8,} {row['bulk_ms']:>9.4f} {row['setter_ms']:>10.3f} "
            f"{row['setter_pos_angle_ms']:>13.3f} {row['speedup']:>7.1f}x"
        )
    at_10k = [row for row in rows if row["n"] == 10_000]
    if at_10k:
        row = at_10k[0]
        met = row["bulk_ms"] <= GOAL_BULK_MS_AT_10K and row["speedup"] >= GOAL_SPEEDUP
        lines.append(
            f"goal (10k: bulk <= {GOAL_BULK_MS_AT_10K} ms and >= {GOAL_SPEEDUP:.0f}x): "
            + ("met" if met else "NOT met")
        )
    return "\n".join(lines)


def size_arg(text: str) -> int:
    """An argparse type for a body/sprite count: a whole number in ``1..MAX_SIZE``."""
    return count_arg("size", maximum=MAX_SIZE)(text)


def build_parser() -> argparse.ArgumentParser:
    """The CLI parser: bad flags print one line and exit with status 2."""
    parser = OneLineParser(
        prog="python -m engine.tools.bench", description="Engine micro-benchmarks."
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--section",
        dest="sections",
        action="append",
        choices=list(SECTIONS),
        help="run only this section (repeatable; default: all)",
    )
    parser.add_argument(
        "--frames",
        type=count_arg("frames", maximum=MAX_BENCH_FRAMES),
        default=DEFAULT_FRAMES,
        help="timed frames per route (interpolation) and per GL-check setting (render)",
    )
    parser.add_argument(
        "--seconds",
        type=count_arg("seconds", maximum=MAX_SECONDS),
        default=10,
        help="seconds each loop runs in the pacing section (default 10)",
    )
    parser.add_argument(
        "--sizes",
        type=size_arg,
        nargs="+",
        default=None,
        help=f"body/sprite counts, each 1..{MAX_SIZE} (default: 1000 10000 for interpolation, "
        "100 1000 10000 for physics)",
    )
    parser.add_argument(
        "--ticks",
        type=count_arg("ticks", maximum=MAX_TICKS),
        default=DEFAULT_TICKS,
        help=f"timed ticks per engine, scene and size in the physics section "
        f"(default {DEFAULT_TICKS})",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        default=None,
        metavar="FILE",
        help="replay the game section plays (default: the first level's bundled replay)",
    )
    parser.add_argument(
        "--game",
        default=None,
        metavar="PACKAGE",
        help="the game the levels and game sections play (default: the one game package in "
        "the working directory)",
    )
    add_debug_gl_argument(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, run the sections, print tables or JSON. Returns the exit status."""
    parser = build_parser()
    options = parser.parse_args(argv)
    if options.sections is None:
        options.sections = list(SECTIONS)
    options.sections = list(dict.fromkeys(options.sections))  # a section named twice runs once
    if options.sizes is not None:
        options.sizes = list(dict.fromkeys(options.sizes))
        if len(options.sizes) > MAX_SIZE_COUNT:
            parser.error(
                f"--sizes: at most {MAX_SIZE_COUNT} different sizes, got {len(options.sizes):,}"
            )
    set_gl_error_checks(gl_error_checks_requested(options))  # as in normal runs: off by default
    try:
        results = run_sections(options)
    except DefinitionError as exc:
        print(f"python -m engine.tools.bench: error: {exc}", file=sys.stderr)
        return 2
    if options.json:
        print(json.dumps(results))
        return 0
    formatters: dict[str, Callable[[Any], str]] = {
        "interpolation": lambda rows: format_interpolation(rows, options.frames),
        "physics": lambda rows: format_physics(rows, options.ticks),
        "levels": format_levels,
        "render": format_render,
        "pacing": format_pacing,
        "game": format_game,
    }
    print("\n\n".join(formatters[name](results[name]) for name in results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
