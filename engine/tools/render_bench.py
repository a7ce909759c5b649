"""The ``render`` section of ``python -m engine.tools.bench``: render CPU per frame, GL checks on/off.

pyglet can check for a GL error after every GL call (``pyglet.options["debug_gl"]``); normal runs
turn the checks off and ``--debug-gl`` keeps them on (see :mod:`engine.runtime.launch`). pyglet
reads the option once, when ``pyglet.gl`` is first imported, so one process cannot measure both:
the section runs this module as a child process, alternately with ``ENGINE_DEBUG_GL=1`` and
``=0``, three times each, and each child prints one JSON row::

    python -m engine.tools.render_bench [--frames N] [--debug-gl]

The frame is the demo's (:mod:`engine.tools.demo`: 300 bodies, the moving platform, the follow
camera) with the F3 overlay shown (text and the frame-time graph), in the window of the default
config (1280x720), after 60 frames of the real loop so the bodies are moving. Each timed frame is
``Engine.render_frame(alpha)`` followed by ``ctx.finish()`` (wait until Mesa's llvmpipe has
rasterised it). Per frame it records three times; the row holds their medians:

* ``main_cpu_ms_per_frame``: CPU time of the main thread (``time.thread_time``): Python, arcade,
  pyglet and the driver's command submission. This is where the GL error checks cost: each
  check is a ``glGetError`` call through ctypes plus a Python function.
* ``cpu_ms_per_frame``: CPU time of the whole process (``time.process_time``), which adds
  llvmpipe's rasterizer threads; in software GL they dominate a 1280x720 frame.
* ``wall_ms_per_frame``: wall time.

``gl_error_checks`` in the row is read back from pyglet's GL functions, so it shows whether the
switch really took effect.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from engine.runtime.launch import (
    DEBUG_GL_ENV,
    OneLineParser,
    add_debug_gl_argument,
    count_arg,
    gl_error_checks_active,
    gl_error_checks_requested,
    set_gl_error_checks,
)

PROG = "python -m engine.tools.render_bench"
DEFAULT_FRAMES = 200
MAX_BENCH_FRAMES = 100_000
"""Most timed frames a bench flag asks for (500 times the default; minutes of rendering)."""
ROUNDS = 3
WARMUP_LOOP_FRAMES = 60
_GOLDEN_FRACTION = 0.6180339887498949


def measure_render(frames: int) -> dict[str, Any]:
    """Time ``frames`` demo frames in this process (GL checks as this process loaded them).

    Opens the headless window itself: call it in a process that has no window yet.

    Returns:
        ``gl_error_checks``, ``frames``, ``main_cpu_ms_per_frame``, ``cpu_ms_per_frame`` and
        ``wall_ms_per_frame``.
    """
    os.environ["ARCADE_HEADLESS"] = "1"
    from engine.config import load_config
    from engine.runtime.engine import Engine
    from engine.runtime.launch import open_window
    from engine.tools.demo import make_demo_scene

    config = load_config(None, ["debug.overlay=true"])
    window = open_window(config, headless=True, prog=PROG)
    engine = Engine(window, config, headless=True)
    engine.show(make_demo_scene(engine))
    engine.run(WARMUP_LOOP_FRAMES)
    main_ns: list[int] = []
    cpu_ns: list[int] = []
    wall_ns: list[int] = []
    for frame in range(frames):
        alpha = (frame * _GOLDEN_FRACTION) % 1.0
        main_start, cpu_start = time.thread_time_ns(), time.process_time_ns()
        wall_start = time.perf_counter_ns()
        engine.render_frame(alpha)
        window.ctx.finish()
        main_ns.append(time.thread_time_ns() - main_start)
        cpu_ns.append(time.process_time_ns() - cpu_start)
        wall_ns.append(time.perf_counter_ns() - wall_start)
    checks = gl_error_checks_active()
    engine.close()
    window.close()
    return {
        "gl_error_checks": checks,
        "frames": frames,
        "main_cpu_ms_per_frame": round(statistics.median(main_ns) / 1e6, 4),
        "cpu_ms_per_frame": round(statistics.median(cpu_ns) / 1e6, 4),
        "wall_ms_per_frame": round(statistics.median(wall_ns) / 1e6, 4),
    }


def _run_child(frames: int, checks: str) -> dict[str, Any]:
    """Run :func:`main` in a fresh process with ``ENGINE_DEBUG_GL=checks``; return its row."""
    env = {**os.environ, DEBUG_GL_ENV: checks}
    command = [sys.executable, "-m", "engine.tools.render_bench", "--frames", str(frames)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    row: dict[str, Any] = json.loads(done.stdout)
    return row


def bench_render(options: Any) -> list[dict[str, Any]]:
    """Time the frame with GL error checks on and off, in alternating child processes.

    The children run in :data:`ROUNDS` pairs (on, off, on, off, ...), so a change in the load
    of a shared machine hits both settings alike; each setting's row holds the medians of its
    children's medians (see :func:`measure_render`).

    Args:
        options: Parsed CLI options (uses ``frames``: timed frames per child).

    Returns:
        Two rows, checks on then off, each with ``rounds`` added.

    Raises:
        RuntimeError: If a child fails (its stderr is in the message).
    """
    runs: dict[str, list[dict[str, Any]]] = {"1": [], "0": []}
    for _ in range(ROUNDS):
        for checks, rows in runs.items():
            rows.append(_run_child(options.frames, checks))
    summary = []
    for rows in runs.values():
        row = dict(rows[0])
        for key in ("main_cpu_ms_per_frame", "cpu_ms_per_frame", "wall_ms_per_frame"):
            row[key] = round(statistics.median(r[key] for r in rows), 4)
        row["rounds"] = ROUNDS
        if any(r["gl_error_checks"] != row["gl_error_checks"] for r in rows):
            row["gl_error_checks"] = None  # the switch did not hold in every child
        summary.append(row)
    return summary


def format_render(rows: Sequence[dict[str, Any]]) -> str:
    """The ``render`` section as a table, with the CPU saved by turning the checks off."""
    lines = [
        "render: one demo frame with the F3 overlay, 1280x720, draw + finish (medians of "
        f"{rows[0]['frames']} frames in each of {rows[0].get('rounds', 1)} processes per setting)",
        f"{'GL error checks':>16} {'main thread CPU ms':>19} {'process CPU ms':>15} {'wall ms':>8}",
    ]
    for row in rows:
        checks = {True: "on", False: "off", None: "?"}[row["gl_error_checks"]]
        lines.append(
            f"{checks:>16} {row['main_cpu_ms_per_frame']:>19.3f} {row['cpu_ms_per_frame']:>15.3f} "
            f"{row['wall_ms_per_frame']:>8.3f}"
        )
    on = next((row for row in rows if row["gl_error_checks"] is True), None)
    off = next((row for row in rows if row["gl_error_checks"] is False), None)
    if on is not None and off is not None:
        main_change = off["main_cpu_ms_per_frame"] / on["main_cpu_ms_per_frame"] - 1.0
        change = off["cpu_ms_per_frame"] / on["cpu_ms_per_frame"] - 1.0
        lines.append(
            f"checks off against on: main thread CPU per frame {main_change:+.1%}, "
            f"process CPU per frame {change:+.1%}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The child: time frames with the GL checks ``ENGINE_DEBUG_GL``/``--debug-gl`` ask for."""
    parser = OneLineParser(prog=PROG, description="Render CPU per frame of the demo scene.")
    parser.add_argument(
        "--frames",
        type=count_arg("frames", maximum=MAX_BENCH_FRAMES),
        default=DEFAULT_FRAMES,
        help=f"timed frames (1..{MAX_BENCH_FRAMES:,})",
    )
    add_debug_gl_argument(parser)
    args = parser.parse_args(argv)
    set_gl_error_checks(gl_error_checks_requested(args))
    print(json.dumps(measure_render(args.frames)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
