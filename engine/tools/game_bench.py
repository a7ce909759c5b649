"""Benchmark section ``game``: the sample game played headless, every frame finished, timed.

The section plays a bundled replay (level 1 by default) in the real game: the engine's loop, the
level scene with its tile map, entity sprites, HUD and the picture scaled into a window of the
default size, all at the default settings (``[video]`` 640 x 360 picture, x2 window). The game
runs headless on a virtual 60 Hz display, as fast as the machine allows, so one frame runs one
tick. After every frame the GL queue is drained (``ctx.finish()``) before the next one starts: a
frame counts only once it has been rasterised, which is what a player's screen waits for.
Without that, frames merely queue up in the driver.

Reported:

* ``fps``: finished frames per second of wall time, and the frame time (median, 99th percentile);
* ``cpu_tick_ms`` / ``cpu_render_ms``: main-thread CPU per frame (``time.thread_time``) in the
  fixed ticks and in drawing (the engine's own counters, the F3 overlay's ``cpu/frame`` line);
* ``process_cpu_ms``: CPU per frame of every thread (software GL rasterises on its own threads);
* ``peak_rss_mib``: the peak resident memory of the process.

It runs in a fresh process (``python -m engine.tools.game_bench``), so its window, its memory
peak and its GL state are its own. Goals on the reference machine (2 cores, software GL): at
least :data:`GOAL_FPS` finished frames per second, and at most :data:`GOAL_CPU_MS` of main-thread
CPU per frame.

This is a developer tool of this template (it imports the sample game); ``python -m engine new``
does not copy it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_REPLAY = REPO_ROOT / "levels" / "replays" / "level1.replay"
GOAL_FPS = 60.0
GOAL_CPU_MS = 3.0
TIMEOUT_S = 900


def bench_game(options: argparse.Namespace) -> dict[str, Any]:
    """Run :func:`measure` in a fresh process and return its numbers.

    Raises:
        RuntimeError: The measuring process failed (its last line of stderr is in the message).
    """
    replay = getattr(options, "replay", None) or DEFAULT_REPLAY
    env = dict(os.environ, ARCADE_HEADLESS="1")
    result = subprocess.run(
        [sys.executable, "-m", "engine.tools.game_bench", str(replay)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"game bench failed (exit {result.returncode}): {last}")
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def measure(replay_path: Path) -> dict[str, Any]:
    """Play ``replay_path`` headless at the default settings, finishing every frame."""
    from engine.config import Config
    from engine.input.replay import load_replay
    from engine.runtime.engine import Engine
    from engine.runtime.launch import open_window, set_gl_error_checks
    from game.movement import PlayerTuning
    from game.replay_run import Player, TapedLevelScene

    set_gl_error_checks(False)
    replay = load_replay(replay_path)
    level_path = REPO_ROOT / "levels" / replay.level_id
    config = Config()
    window = open_window(config, headless=True, prog="game bench")
    engine = Engine(window, config, headless=True, display_hz=60.0, probe_frames=0)
    scene = TapedLevelScene.for_engine(engine, level_path, PlayerTuning())
    player = Player(replay, engine.actions, str(replay_path))
    scene.tape = player
    engine.show(scene)
    ctx = window.ctx
    frame_ns: list[int] = []
    frames = 0
    tick0, render0 = engine.cpu_tick_ns, engine.cpu_render_ns
    process0 = time.process_time_ns()
    start_ns = time.perf_counter_ns()
    while not scene.completed and not player.finished:
        before = time.perf_counter_ns()
        engine.run_frame()
        ctx.finish()
        frame_ns.append(time.perf_counter_ns() - before)
        frames += 1
    wall_ns = time.perf_counter_ns() - start_ns
    process_ns = time.process_time_ns() - process0
    frame_ns.sort()
    result = {
        "level": scene.level.name,
        "replay": replay_path.name,
        "picture": list(engine.video.size_px),
        "window": list(window.get_framebuffer_size()),
        "frames": frames,
        "ticks": scene.sim.ticks,
        "completed": scene.completed,
        "fps": round(frames / (wall_ns / 1e9), 1),
        "frame_median_ms": round(statistics.median(frame_ns) / 1e6, 3),
        "frame_p99_ms": round(frame_ns[int(0.99 * (len(frame_ns) - 1))] / 1e6, 3),
        "cpu_tick_ms": round((engine.cpu_tick_ns - tick0) / frames / 1e6, 3),
        "cpu_render_ms": round((engine.cpu_render_ns - render0) / frames / 1e6, 3),
        "process_cpu_ms": round(process_ns / frames / 1e6, 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    window.close()
    return result


def format_game(row: dict[str, Any]) -> str:
    """The ``game`` section as text, with the goal verdicts."""
    cpu_ms = row["cpu_tick_ms"] + row["cpu_render_ms"]
    fps_ok = "met" if row["fps"] >= GOAL_FPS else "NOT met"
    cpu_ok = "met" if cpu_ms <= GOAL_CPU_MS else "NOT met"
    width, height = row["picture"]
    return "\n".join(
        [
            f"game: {row['level']} ({row['replay']}) headless, {width}x{height} picture in a "
            f"{row['window'][0]}x{row['window'][1]} window, every frame finished",
            f"  {row['frames']} frames, {row['fps']:.1f} FPS (frame median "
            f"{row['frame_median_ms']:.2f} ms, p99 {row['frame_p99_ms']:.2f} ms)",
            f"  main-thread CPU per frame {cpu_ms:.2f} ms (ticks {row['cpu_tick_ms']:.2f}, "
            f"render {row['cpu_render_ms']:.2f}); all threads {row['process_cpu_ms']:.2f} ms",
            f"  peak memory {row['peak_rss_mib']:.0f} MiB",
            f"goal (>= {GOAL_FPS:.0f} FPS): {fps_ok}; goal (<= {GOAL_CPU_MS:.0f} ms CPU): {cpu_ok}",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.tools.game_bench [REPLAY]``: print :func:`measure`'s JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    replay = Path(args[0]) if args else DEFAULT_REPLAY
    print(json.dumps(measure(replay)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
