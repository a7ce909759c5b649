"""Ctrl+C at any moment of ``python -m game``, imports included: one line, status 130."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.runtime.interrupt import exit_quietly_on_interrupt, module_run_as_main

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["python", "-m", "game", "--headless"], "game"),
        (["python", "-X", "importtime", "-m", "engine.tools.bench"], "engine.tools.bench"),
        (["python", "-mgame"], "game"),
        (["python", "-W", "error", "-X", "dev", "-m", "game"], "game"),
        (["python", "script.py", "-m", "game"], None),
        (["python", "-c", "import game", "-m", "x"], None),
        (["python"], None),
    ],
)
def test_the_module_run_as_main_is_read_from_the_command_line(
    argv: list[str], module: str | None
) -> None:
    assert module_run_as_main(argv) == module


def test_importing_the_package_elsewhere_changes_nothing() -> None:
    before = signal.getsignal(signal.SIGINT)
    assert exit_quietly_on_interrupt("game") is False  # pytest is the program here
    assert signal.getsignal(signal.SIGINT) is before


def _like_a_terminal() -> None:
    """In the child before it runs: Ctrl+C does what it does in a terminal.

    A command started in the background by a shell without job control (``cmd &`` in a
    script, as CI runners may start the suite) inherits SIGINT *ignored*, and Python then
    leaves it ignored, rightly: nobody can press Ctrl+C at it. A player's terminal never does
    that, so the child gets the default action back before Python starts.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_game(
    delay_s: float, frames: int = 400, signum: int = signal.SIGINT
) -> subprocess.CompletedProcess[str]:
    """Start ``python -m game``, wait until its package began importing, then SIGINT after
    ``delay_s``. ``-X importtime`` tells when: the ``engine`` package's line is printed once
    its ``__init__`` (which installs the handler) has run."""
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "game", "--headless", "--frames", str(frames)],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_like_a_terminal if os.name != "nt" else None,
    )
    assert process.stderr is not None
    seen: list[str] = []
    for line in process.stderr:
        seen.append(line)
        if line.startswith("import time:") and line.split("|")[-1].strip() == "engine":
            break
    assert process.poll() is None, "the game ended before the signal"
    time.sleep(delay_s)
    process.send_signal(signum)
    out, err = process.communicate(timeout=120)
    lines = [x for x in err.splitlines() if not x.startswith("import time:")]
    return subprocess.CompletedProcess(process.args, process.returncode, out, "\n".join(lines))


def test_ctrl_c_while_the_game_is_still_importing_is_one_line() -> None:
    """Finding 15: SIGINT during the imports (tens of ms after the package starts)."""
    done = _interrupt_game(0.01)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 130, done.stderr[-2000:]
    assert done.stderr.splitlines()[-1] == "python -m game: interrupted"


def test_ctrl_c_while_a_console_script_is_importing_is_one_line() -> None:
    """The script pip generates (``monitor-sim``) imports the package before ``main`` too."""
    script = Path(sys.executable).parent / ("monitor-sim.exe" if os.name == "nt" else "monitor-sim")
    if not script.exists():
        pytest.skip("the package's console scripts are not installed here")
    process = subprocess.Popen(
        [str(script), "--updates", "200000"],
        env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_like_a_terminal if os.name != "nt" else None,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("import time:") and line.split("|")[-1].strip() == "engine":
            break
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    lines = [x for x in err.splitlines() if not x.startswith("import time:")]
    assert process.returncode == 130 and lines == ["monitor-sim: interrupted"], err[-2000:]


@pytest.mark.slow
def test_signals_at_random_moments_never_print_a_traceback() -> None:
    """SIGINT and SIGTERM at random moments: imports, the window opening, the loop, the end.

    SIGTERM before the game's loop takes it over ends the process by the signal, silently."""
    rng = random.Random(25)
    for delay_s in sorted(rng.uniform(0.0, 2.0) for _ in range(4)):
        signum = rng.choice([signal.SIGINT, signal.SIGTERM])
        done = _interrupt_game(delay_s, frames=120, signum=signum)
        assert "Traceback" not in done.stderr, (delay_s, done.stderr[-2000:])
        assert done.returncode in (0, 128 + signum, -signum), (delay_s, done.returncode)
        if done.returncode != 0:
            assert len(done.stderr.splitlines()) <= 1, done.stderr


def test_an_exit_swallowed_where_python_ignores_exceptions_still_ends_the_command() -> None:
    """Ctrl+C can land inside a weakref callback or ``__del__`` (importlib's module locks use
    weakref callbacks), where Python prints "Exception ignored" and runs on: the hook ends it."""
    code = (
        "import sys\n"
        "from engine.runtime import interrupt\n"
        "sys.unraisablehook = interrupt._exit_if_swallowed\n"
        "class Dying:\n"
        "    def __del__(self):\n"
        "        raise interrupt._Interrupted(130)\n"
        "Dying()\n"
        "print('ran on')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130
    assert "ran on" not in done.stdout and "Traceback" not in done.stderr
