"""A table of hostile flags for every command, run as a user runs them: one line and exit 2.

Every row runs in process through the command's own ``main`` (the parsers, loaders and checks
exactly as in a run, in milliseconds); a subset also runs as real commands, where the command
line itself is the subject (nothing else may reach the terminal). They all fail before a window
opens, so the subprocesses run in parallel and take a couple of seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.fuzz.conftest import TALLY, assert_one_line

ROOT = Path(__file__).resolve().parents[2]
GAME, DEMO, SIM, CONFIG = "game", "engine.tools.demo", "engine.tools.monitor_sim", "engine.config"
HUGE = "1" + "0" * 400


def rows(tmp: Path) -> list[tuple[str, list[str], str]]:
    """``(module, flags, fragment of the error line)``: every one must exit 2."""
    fifo = tmp / "pipe"
    deep = tmp / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    replay = tmp / "long-version.replay"
    replay.write_text("platformer-replay " + "9" * 5000 + "\n")
    return [
        (GAME, ["--screenshot", "shot.txt"], "must be a .png file name"),
        (GAME, ["--screenshot", str(tmp)], "must be a .png file name"),
        (GAME, ["--screenshot", str(tmp / "no" / "shot.png")], "its folder does not exist"),
        (GAME, ["--frames", "0"], "frames must be in 1..10,000,000, got '0'"),
        (GAME, ["--display-hz", "1e308"], "display rate must be in 1..1000 Hz"),
        (GAME, ["--set", "timing.tick_rate_hz=1e-9"], "timing.tick_rate_hz = 1e-09"),
        (GAME, ["--set", f"player.run_speed_px_s={HUGE}"], "player.run_speed_px_s = 1000"),
        (GAME, ["--config", "/dev/zero"], "a character device, not a regular file"),
        (GAME, ["--config", str(fifo)], "a named pipe, not a regular file"),
        (GAME, ["--config", str(deep)], "nested deeper than 16 levels"),
        (GAME, ["--verify-run", str(fifo)], "a named pipe, not a regular file"),
        (GAME, ["--verify-run", "x.json", "--set", "timing.tick_rate_hz=1e-9"], "1 <= x <= 1000"),
        (GAME, ["--replay", str(replay)], "unsupported format version 999"),
        (GAME, ["--record", "/dev/full", "--frames", "1"], "a character device"),
        (DEMO, ["--bodies", "0"], "bodies must be in 1..5,000"),
        (DEMO, ["--screenshot", "demo.txt"], "must be a .png file name"),
        (SIM, ["--updates", "100000000000"], "updates must be in 1..1,000,000"),
        (SIM, ["--refresh-hz", "1e-300"], "refresh rate must be in 1..1000 Hz"),
        (SIM, ["--render-ms", "1e308"], "render cost must be in 0..1000 ms"),
        (SIM, ["--plot", "pacing.txt"], "must be a .png file name"),
        (SIM, ["--matrix", "--plot", str(tmp / "p.png")], "does not work with --matrix"),
        (CONFIG, ["--config", "/dev/zero"], "a character device, not a regular file"),
        (CONFIG, ["--set", "timing.mode=\x1b[31mred"], "\\u001b[31mred"),
    ]


MAINS = {
    GAME: "tests.engine.app.sample_game",
    DEMO: "engine.tools.demo",
    SIM: "engine.tools.monitor_sim.cli",
    CONFIG: "engine.config.loader",
}


def main_of(module: str) -> Callable[[list[str]], int]:
    """The ``main(argv)`` behind ``python -m module``."""
    import importlib

    main: Callable[[list[str]], int] = importlib.import_module(MAINS[module]).main
    return main


needs_posix = pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not Path("/dev/full").exists(),
    reason="uses a named pipe and /dev devices",
)


@needs_posix
def test_every_hostile_flag_gives_one_line_and_exit_2_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each command's ``main`` on the whole table (the loaders and checks run as in a run)."""
    os.mkfifo(tmp_path / "pipe")
    monkeypatch.chdir(tmp_path)
    failures = []
    for module, flags, fragment in rows(tmp_path):
        TALLY["flags (in process)"]["cases"] += 1
        extra = ["--headless"] if module in (GAME, DEMO) else []
        try:
            status = main_of(module)([*extra, *flags])
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
        out = capsys.readouterr()
        line = out.err.strip()
        try:
            assert status == 2, f"exit {status}"
            assert out.out == ""
            assert_one_line(line)
            assert fragment in line, f"{fragment!r} not in the line"
        except AssertionError as exc:
            TALLY["flags (in process)"]["bad output"] += 1
            failures.append(f"{module} {' '.join(flags)[:60]}: {exc}: {line[:300]}")
        else:
            TALLY["flags (in process)"]["clean errors"] += 1
    assert not failures, "\n".join(failures)


SUBPROCESS_ROWS = (0, 8, 10, 13, 16, 22)
"""The rows also run as real commands: a screenshot name, pipes and a device, the simulator, a
message with a terminal escape sequence."""


@pytest.mark.slow
@needs_posix
def test_hostile_flags_as_a_user_runs_them(tmp_path: Path) -> None:
    """A subset as subprocesses: nothing but the one line reaches the terminal, exit 2."""
    os.mkfifo(tmp_path / "pipe")
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env.update(PYTHONPATH=str(ROOT), ARCADE_HEADLESS="1")
    table = [rows(tmp_path)[index] for index in SUBPROCESS_ROWS]

    def run(row: tuple[str, list[str], str]) -> subprocess.CompletedProcess[str]:
        module, flags, _ = row
        extra = ["--headless"] if module in (GAME, DEMO) else []
        return subprocess.run(
            [sys.executable, "-m", module, *extra, *flags],
            capture_output=True,
            text=True,
            timeout=120,  # a hang (a named pipe read) fails here instead of stalling the suite
            env=env,
            cwd=tmp_path,
        )

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, table))
    failures = []
    for (module, flags, fragment), out in zip(table, results, strict=True):
        TALLY["flags (subprocess)"]["cases"] += 1
        line = out.stderr.strip()
        try:
            assert out.returncode == 2, f"exit {out.returncode}"
            assert "Traceback" not in out.stderr and out.stdout == ""
            assert_one_line(line)
            assert fragment in line, f"{fragment!r} not in the line"
        except AssertionError as exc:
            kind = "tracebacks" if "Traceback" in out.stderr else "bad output"
            TALLY["flags (subprocess)"][kind] += 1
            failures.append(f"{module} {' '.join(flags)[:60]}: {exc}: {line[:300]}")
        else:
            TALLY["flags (subprocess)"]["clean errors"] += 1
    assert not failures, "\n".join(failures)
