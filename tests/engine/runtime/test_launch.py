"""The shared command-line helpers: stopping on signals, checked output paths, bounded counts."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

import pytest

from engine.runtime.launch import StopSignals, count_arg, png_path, run_command, save_png


def test_the_first_signal_asks_the_loop_to_stop() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with StopSignals() as stop:
        assert not stop.requested and stop.exit_status(0) == 0
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.requested and stop.name == "SIGTERM"
        assert stop.exit_status(0) == 143
    assert signal.getsignal(signal.SIGTERM) is before  # the previous handler is back


def test_a_second_signal_ends_at_once() -> None:
    # Not always default_int_handler: a shell's background job starts with SIGINT ignored.
    before = signal.getsignal(signal.SIGINT)
    with StopSignals() as stop, pytest.raises(SystemExit) as caught:
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.name == "SIGINT"
        os.kill(os.getpid(), signal.SIGINT)
    assert caught.value.code == 130
    assert signal.getsignal(signal.SIGINT) is before


def test_run_command_turns_ctrl_c_and_a_closed_pipe_into_exit_statuses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    assert run_command(interrupted, "prog") == 130
    assert capsys.readouterr().err == "prog: interrupted\n"
    assert run_command(lambda: 7, "prog") == 7


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("shot.txt", "must be a .png file name"),
        ("missing/shot.png", "its folder does not exist"),
        ("dir.png", "a directory, not a regular file"),
    ],
)
def test_png_paths_are_checked_before_anything_runs(
    tmp_path: Path, name: str, fragment: str
) -> None:
    (tmp_path / "dir.png").mkdir()
    with pytest.raises(argparse.ArgumentTypeError, match=fragment):
        png_path(str(tmp_path / name))
    assert png_path(str(tmp_path / "SHOT.PNG")) == tmp_path / "SHOT.PNG"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_in_place_of_the_png_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "shot.png")
    with pytest.raises(argparse.ArgumentTypeError, match="a named pipe"):
        png_path(str(tmp_path / "shot.png"))


def test_a_png_is_saved_atomically(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "shot.png"
    save_png(Image.new("RGB", (4, 4)), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["shot.png"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("0", "n must be in 1..1,000, got '0'"),
        ("100000000000", "n must be in 1..1,000, got '100000000000'"),
        ("9" * 5000, "n must be in 1..1,000, got '999"),
        ("x", "n must be in 1..1,000, got 'x': not a whole number"),
        ("\x1b[2J", r"got '\\u001b\[2J': not a whole number"),
    ],
)
def test_counts_are_bounded(text: str, fragment: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=fragment) as caught:
        count_arg("n", 1, maximum=1000)(text)
    assert str(caught.value).isprintable() and len(str(caught.value)) < 120
    assert count_arg("n", 1, maximum=1000)("1000") == 1000
