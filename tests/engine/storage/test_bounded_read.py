"""Reading files someone named: regular files only, capped, and never a hang."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from engine.storage.bounded_read import format_size, read_regular_file


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    assert read_regular_file(path, 5) == b"hello"


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 1025)
    with pytest.raises(OSError) as caught:
        read_regular_file(path, 1024)
    assert caught.value.strerror == "larger than the 1 KiB allowed"


def test_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular_file(tmp_path / "none", 10)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OSError) as caught:
        read_regular_file(tmp_path, 10)
    assert caught.value.strerror == "a directory, not a regular file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_without_a_writer_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result: list[BaseException | bytes] = []

    def read() -> None:
        try:
            result.append(read_regular_file(fifo, 10))
        except OSError as exc:
            result.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # unblock the hung open so the test process can end
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a named pipe hung")
    assert isinstance(result[0], OSError)
    assert result[0].strerror == "a named pipe, not a regular file"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_device_is_refused_without_reading() -> None:
    with pytest.raises(OSError) as caught:
        read_regular_file("/dev/zero", 1 << 20)
    assert caught.value.strerror == "a character device, not a regular file"


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(OSError) as caught:
            read_regular_file(path, 10)
        assert caught.value.strerror == "a socket, not a regular file"
    finally:
        server.close()


def test_a_symlink_to_a_regular_file_is_followed(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"data")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_regular_file(tmp_path / "link", 10) == b"data"


def test_sizes_read_naturally() -> None:
    assert format_size(64 << 20) == "64 MiB"
    assert format_size(1 << 30) == "1 GiB"
    assert format_size(1000) == "1000 bytes"
