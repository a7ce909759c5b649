"""Benchmark section ``game``: a game played headless, every frame finished, timed.

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

It works on any game (``--game PACKAGE``, :func:`~engine.app.definition.load_definition`;
default: the one game in the working directory).
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

GOAL_FPS = 60.0
GOAL_CPU_MS = 3.0
TIMEOUT_S = 900


def bench_game(options: argparse.Namespace) -> dict[str, Any]:
    """Run :func:`measure` in a fresh process and return its numbers.

    Raises:
        RuntimeError: The measuring process failed (its last line of stderr is in the message).
    """
    from engine.app.definition import load_definition
    from engine.app.level_order import bundled_levels, replay_of

    definition = load_definition(getattr(options, "game", None))
    replay = getattr(options, "replay", None) or replay_of(
        bundled_levels(definition.files.levels_dir())[0]
    )
    env = dict(os.environ, ARCADE_HEADLESS="1")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.tools.game_bench",
            str(replay),
            "--game",
            definition.package,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"game bench failed (exit {result.returncode}): {last}")
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def measure(replay_path: Path, game_spec: str | None = None) -> dict[str, Any]:
    """Play ``replay_path`` headless at the default settings, finishing every frame."""
    from engine.app.definition import load_definition
    from engine.app.replay_run import Player
    from engine.config import Config
    from engine.input.replay import load_replay
    from engine.runtime.engine import Engine
    from engine.runtime.launch import open_window, set_gl_error_checks

    definition = load_definition(game_spec)
    set_gl_error_checks(False)
    replay = load_replay(replay_path)
    level_path = definition.files.levels_dir() / replay.level_id
    config = Config()
    window = open_window(config, headless=True, prog="game bench")
    engine = Engine(window, config, headless=True, display_hz=60.0, probe_frames=0)
    scene = definition.make_scene(engine, level_path)
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
    """``python -m engine.tools.game_bench REPLAY [--game PACKAGE]``: print :func:`measure`'s JSON.

    It is the measuring process :func:`bench_game` starts (``python -m engine.tools.bench
    --section game`` is the command people run).
    """
    parser = argparse.ArgumentParser(prog="python -m engine.tools.game_bench")
    parser.add_argument("replay", type=Path)
    parser.add_argument("--game", default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("ARCADE_HEADLESS", "1")
    print(json.dumps(measure(args.replay, args.game)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
