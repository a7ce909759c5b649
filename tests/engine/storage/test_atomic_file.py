"""Atomic saves replace only regular files, keep symlinks, and fall back when a place fails."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.storage.atomic_file import save_target, write_atomic, write_atomic_first

ROOT = Path(__file__).resolve().parents[3]


def test_a_new_file_is_written_and_an_old_one_replaced(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    write_atomic(path, b"one")
    write_atomic(path, b"two")
    assert path.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_a_symlink_keeps_pointing_where_it_points(tmp_path: Path) -> None:
    synced = tmp_path / "synced"
    synced.mkdir()
    real = synced / "personal_bests.json"
    real.write_bytes(b"old")
    link = tmp_path / "personal_bests.json"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"new"
    assert sorted(p.name for p in synced.iterdir()) == ["personal_bests.json"]


def test_a_chain_of_links_and_a_dangling_link_write_through(tmp_path: Path) -> None:
    real = tmp_path / "target.bin"
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(real)  # dangling until the first save
    write_atomic(tmp_path / "a", b"x")
    assert real.read_bytes() == b"x"
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()
    assert save_target(tmp_path / "a") == real


def test_a_directory_in_the_way_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.mkdir()
    (path / "inside").write_text("keep")
    with pytest.raises(OSError) as caught:
        write_atomic(path, b"x")
    assert caught.value.strerror == (
        "a directory, not a regular file: saves only replace regular files"
    )
    assert (path / "inside").read_text() == "keep"
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temp file left


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_in_the_way_is_refused_and_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "out.replay"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="named pipe"):
        write_atomic(fifo, b"x")  # opening the pipe for writing would hang: it returns at once
    assert fifo.is_fifo()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_device_is_never_replaced_even_as_root() -> None:
    before = os.stat("/dev/full")
    with pytest.raises(OSError, match="character device"):
        write_atomic("/dev/full", b"replay")
    after = os.stat("/dev/full")
    assert (after.st_ino, after.st_rdev, after.st_mode) == (
        before.st_ino,
        before.st_rdev,
        before.st_mode,
    )


def test_the_first_place_that_works_takes_the_file(tmp_path: Path) -> None:
    blocked = tmp_path / "runs"
    blocked.write_text("a file where the folder should be")
    fallback = tmp_path / "data" / "run.json"
    saved, failures = write_atomic_first([blocked / "run.json", fallback], b"run")
    assert saved == fallback and fallback.read_bytes() == b"run"
    assert [path for path, _ in failures] == [blocked / "run.json"]
    assert blocked.read_text() == "a file where the folder should be"


def test_when_every_place_fails_the_error_lists_them(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("file")
    with pytest.raises(OSError) as caught:
        write_atomic_first([blocked / "a.json", blocked / "b" / "c.json"], b"x")
    message = caught.value.strerror
    assert message.startswith("could not be saved anywhere (")
    assert str(blocked / "a.json") in message and str(blocked / "b" / "c.json") in message


@pytest.mark.skipif(os.name != "posix", reason="RLIMIT_FSIZE is POSIX")
def test_a_write_that_fails_like_a_full_disk_keeps_the_old_file(tmp_path: Path) -> None:
    """A real write failure: the file size limit makes ``write`` fail as a full disk does."""
    code = textwrap.dedent(
        f"""
        import resource, signal
        from pathlib import Path
        from engine.storage.atomic_file import write_atomic_first
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        path = Path({str(tmp_path / "run.json")!r})
        write_atomic_first([path], b"y" * 900)
        try:
            write_atomic_first([path], b"x" * 5000)
        except OSError as exc:
            print("refused:", exc.strerror)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused: could not be saved anywhere (")
    assert "File too large" in out.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no partial temporary file
    assert (tmp_path / "run.json").read_bytes() == b"y" * 900
