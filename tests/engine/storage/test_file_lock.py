"""The records lock holds between real processes, times out, and cannot go stale."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.storage.file_lock import LockTimeoutError, file_lock, lock_path_for

ROOT = Path(__file__).resolve().parents[3]

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from engine.storage.file_lock import file_lock
    with file_lock(sys.argv[1]):
        Path(sys.argv[2]).write_text("held")
        time.sleep(float(sys.argv[3]))
    """
)


def _hold(lock: Path, marker: Path, seconds: float) -> subprocess.Popen[bytes]:
    """Start a process that takes the lock, says so in ``marker`` and keeps it ``seconds``."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock), str(marker), str(seconds)], cwd=ROOT
    )
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert process.poll() is None, "the holder died before taking the lock"
        assert time.monotonic() < deadline, "the holder never took the lock"
        time.sleep(0.01)
    return process


def test_the_lock_file_sits_beside_the_file_it_guards(tmp_path: Path) -> None:
    assert lock_path_for(tmp_path / "personal_bests.json") == tmp_path / ".personal_bests.json.lock"


def test_another_process_holding_the_lock_makes_this_one_wait_then_time_out(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "sub" / ".f.lock"
    holder = _hold(lock, tmp_path / "held", 0.5)
    try:
        started = time.monotonic()
        with (
            pytest.raises(LockTimeoutError, match="locked by another process"),
            file_lock(lock, timeout_s=0.2),
        ):
            pass
        assert time.monotonic() - started >= 0.2
        with file_lock(lock, timeout_s=20):  # waits until the holder lets go
            assert holder.poll() is not None or time.monotonic() - started >= 0.3
    finally:
        holder.wait(timeout=30)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    lock = tmp_path / ".f.lock"
    holder = _hold(lock, tmp_path / "held", 60)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    started = time.monotonic()
    with file_lock(lock, timeout_s=5):
        assert time.monotonic() - started < 1.0  # released by the OS, not by a timeout
    assert lock.exists()  # the lock file stays; only the OS lock matters


def test_the_lock_is_released_when_the_block_raises(tmp_path: Path) -> None:
    lock = tmp_path / ".f.lock"
    with pytest.raises(RuntimeError), file_lock(lock):
        raise RuntimeError("inside")
    with file_lock(lock, timeout_s=0.1):
        pass


def test_a_folder_that_cannot_hold_the_lock_file_is_an_oserror(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError), file_lock(blocker / ".x.lock", timeout_s=0.1):
        pass
    assert os.listdir(tmp_path) == ["file"]
