"""The ``pacing`` section of ``python -m engine.tools.bench``: our loop against arcade's, vsync off, 60 Hz.

Both loops draw the same small scene on the same window for ``--seconds`` (10 by default) with vsync
off and a 60 Hz target, and we record when each frame was presented:

* ``engine``: :class:`~engine.runtime.engine.Engine` with ``video.vsync = false``: the frame limiter sleeps to
  absolute deadlines (OS sleep, then a spin for the last millisecond) and the fixed ticks come from
  the exact pacer.
* ``arcade``: ``arcade.run()``. With a display that is pyglet's scheduler dispatching ``on_draw``
  and arcade's ``on_fixed_update`` (update and draw rate 1/60 s). Headless, arcade runs its own
  unpaced loop that never calls ``on_fixed_update``; the row then says so in ``note``.

Per loop: mean interval between presents, the 99th percentile and maximum of its absolute
deviation from 1/60 s, *double steps* (frames with two or more fixed updates: visible judder), and
CPU seconds used per wall second (``time.process_time``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

TARGET_HZ = 60.0
WARMUP_FRAMES = 30
SPRITES = 100


def _summary(
    loop: str,
    present_ns: list[int],
    updates: list[int],
    cpu_s: float,
    wall_s: float,
    note: str = "",
) -> dict[str, Any]:
    times = np.asarray(present_ns[WARMUP_FRAMES:], dtype=np.int64)
    steps = updates[WARMUP_FRAMES:]
    intervals_ms = np.diff(times) / 1e6
    deviation_ms = np.abs(intervals_ms - 1000.0 / TARGET_HZ)
    row: dict[str, Any] = {
        "loop": loop,
        "frames": int(intervals_ms.size),
        "mean_interval_ms": round(float(intervals_ms.mean()), 4),
        "p99_abs_dev_ms": round(float(np.percentile(deviation_ms, 99)), 4),
        "max_abs_dev_ms": round(float(deviation_ms.max()), 4),
        "double_steps": int(sum(1 for n in steps if n >= 2)),
        "cpu_s_per_s": round(cpu_s / wall_s, 4),
    }
    if note:
        row["note"] = note
    return row


def _sprites() -> Any:
    import arcade

    sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
    for i in range(SPRITES):
        sprite = arcade.SpriteSolidColor(8, 8, color=arcade.color.WHITE)
        sprite.position = (8 + (i % 10) * 12, 8 + (i // 10) * 12)
        sprites.append(sprite)
    return sprites


def measure_engine(window: Any, seconds: float) -> dict[str, Any]:
    """Run the engine's loop with vsync off for ``seconds`` and summarise its presents."""
    from engine.config import load_config
    from engine.runtime.engine import Engine
    from engine.runtime.scene import Scene

    config = load_config(None, ["video.vsync=false"])
    headless = bool(getattr(window, "headless", False))
    engine = Engine(window, config, headless=headless, realtime=True)
    sprites = _sprites()

    class PacingScene(Scene):
        def on_render(self, alpha: float, frame_dt_s: float) -> None:
            sprites.draw()

    engine.show(PacingScene())
    presents: list[int] = []
    updates: list[int] = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall0 < seconds:
        report = engine.run_frame()
        if not report.probe:
            presents.append(report.present_ns)
            updates.append(report.updates)
    cpu_s, wall_s = time.process_time() - cpu0, time.perf_counter() - wall0
    engine.close()
    return _summary("engine", presents, updates, cpu_s, wall_s)


def measure_arcade(window: Any, seconds: float) -> dict[str, Any]:
    """Run ``arcade.run()`` for ``seconds`` and summarise when it drew and how it stepped."""
    import arcade
    import pyglet

    sprites = _sprites()
    presents: list[int] = []
    updates: list[int] = []
    fixed = [0]
    start = [0.0]

    class ArcadeView(arcade.View):
        def on_fixed_update(self, delta_time: float) -> None:
            fixed[0] += 1

        def on_draw(self) -> None:
            self.clear()
            sprites.draw()
            presents.append(time.perf_counter_ns())
            updates.append(fixed[0])
            fixed[0] = 0
            if window.headless and time.perf_counter() - start[0] >= seconds:
                window.close()  # the headless loop only stops when the window goes

    window.set_update_rate(1 / TARGET_HZ)
    window.set_draw_rate(1 / TARGET_HZ)
    window.set_vsync(False)
    if not window.headless:
        pyglet.clock.schedule_once(lambda dt: pyglet.app.exit(), seconds)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    start[0] = wall0
    arcade.run(ArcadeView())
    cpu_s, wall_s = time.process_time() - cpu0, time.perf_counter() - wall0
    note = ""
    if window.headless:
        note = (
            "headless: arcade.run() is an unpaced loop that never calls on_fixed_update; "
            "run under a display (e.g. Xvfb) to measure pyglet's scheduler"
        )
    return _summary("arcade", presents, updates, cpu_s, wall_s, note)


def bench_pacing(options: Any) -> list[dict[str, Any]]:
    """Measure both loops on the current window; the arcade loop last (headless, it closes it)."""
    import arcade

    window = arcade.get_window()
    return [measure_engine(window, options.seconds), measure_arcade(window, options.seconds)]


def format_pacing(rows: list[dict[str, Any]]) -> str:
    """The ``pacing`` section as a table, with the engine's goals."""
    lines = [
        f"pacing: vsync off, {TARGET_HZ:g} Hz target (intervals between presents)",
        f"{'loop':>7} {'frames':>7} {'mean ms':>9} {'p99 |dev| ms':>13} {'max |dev| ms':>13} "
        f"{'double':>7} {'cpu s/s':>8}",
    ]
    for row in rows:
        lines.append(
            f"{row['loop']:>7} {row['frames']:>7} {row['mean_interval_ms']:>9.4f} "
            f"{row['p99_abs_dev_ms']:>13.4f} {row['max_abs_dev_ms']:>13.4f} "
            f"{row['double_steps']:>7} {row['cpu_s_per_s']:>8.4f}"
        )
        if row.get("note"):
            lines.append(f"        note: {row['note']}")
    engine = next(row for row in rows if row["loop"] == "engine")
    met = (
        abs(engine["mean_interval_ms"] - 1000 / TARGET_HZ) <= 0.01
        and engine["p99_abs_dev_ms"] <= 0.2
        and engine["double_steps"] == 0
        and engine["cpu_s_per_s"] < 0.15
    )
    lines.append(
        "goal (engine: mean within 0.01 ms of 16.667, p99 |dev| <= 0.2 ms, no double steps, "
        "< 0.15 CPU s/s): " + ("met" if met else "NOT met")
    )
    return "\n".join(lines)
