"""Replay files an attacker or a broken disk could produce: each is one ReplayError line."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest

from engine.input.replay import MAX_REPLAY_BYTES, ReplayError, format_replay, load_replay
from tests.engine.input.test_replay import make_replay


def with_checksum(lines: list[str]) -> str:
    """Replay text with a correct end line, as a forger with the documented format makes it."""
    digest = hashlib.blake2b(digest_size=16)
    for line in lines:
        digest.update(line.encode() + b"\n")
    return "\n".join([*lines, f"end {digest.hexdigest()}"]) + "\n"


def body_lines(hash_every: int = 1) -> list[str]:
    """A valid replay's lines without its end line."""
    return format_replay(make_replay(6, hash_every=hash_every)).splitlines()[:-1]


def error_of(tmp_path: Path, text: str | bytes, name: str = "x.replay") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    with pytest.raises(ReplayError) as caught:
        load_replay(path)
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and message.isprintable(), message
    assert len(message) < 400, message
    return message


def test_a_version_number_of_5000_digits_is_unsupported(tmp_path: Path) -> None:
    lines = body_lines()
    lines[0] = "platformer-replay " + "9" * 5000
    message = error_of(tmp_path, with_checksum(lines))
    assert "unsupported format version 999" in message and "..." in message


def test_a_replay_whose_every_hash_is_a_dash_is_refused(tmp_path: Path) -> None:
    lines = body_lines()
    for index in range(8, len(lines)):
        lines[index] = lines[index].split(" ")[0] + " -"
    message = error_of(tmp_path, with_checksum(lines))
    assert "line 9: tick 0 has no state hash" in message


def test_the_last_tick_needs_its_hash_whatever_the_interval(tmp_path: Path) -> None:
    lines = body_lines(hash_every=4)  # ticks 0, 4 and the last (5) are hashed
    lines[-1] = lines[-1].split(" ")[0] + " -"
    assert "line 14: tick 5 has no state hash" in error_of(tmp_path, with_checksum(lines))


@pytest.mark.parametrize(
    ("line_no", "value", "fragment"),
    [
        (8, "ticks " + "9" * 13, "at most 12 digits"),
        (7, "hash-every " + "9" * 8, "hash-every must be an int in 1..1000000"),
        (5, "tick-rate-hz " + "7" * 5000, "at most 12 digits"),
        (5, "tick-rate-hz 60/" + "7" * 13, "at most 12 digits"),
        (4, "level-hash abc123", "must be 32 lowercase hex digits"),
        (3, "level-id " + "x" * 300, "at most 256 characters"),
        (6, "actions " + " ".join(f"a{i}" for i in range(65)), "at most 64 actions"),
    ],
)
def test_header_values_out_of_range_are_refused(
    tmp_path: Path, line_no: int, value: str, fragment: str
) -> None:
    lines = body_lines()
    lines[line_no - 1] = value
    message = error_of(tmp_path, with_checksum(lines))
    assert f"line {line_no}: malformed header line" in message and fragment in message


def test_an_input_with_a_million_hex_digits_is_refused(tmp_path: Path) -> None:
    lines = body_lines()
    lines[8] = "1" * 1_000_000 + " " + lines[8].split(" ")[1]
    message = error_of(tmp_path, with_checksum(lines))
    assert "more hex digits than the 4 recorded actions" in message


def test_a_file_over_the_cap_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.replay"
    with path.open("wb") as file:
        file.truncate(MAX_REPLAY_BYTES + 1)  # sparse: nothing is written or read
    with pytest.raises(ReplayError, match="larger than the 256 MiB allowed"):
        load_replay(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.replay"
    os.mkfifo(fifo)
    errors: list[ReplayError] = []

    def load() -> None:
        try:
            load_replay(fifo)
        except ReplayError as exc:
            errors.append(exc)

    reader = threading.Thread(target=load, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("loading a replay from a named pipe hung")
    assert "a named pipe, not a regular file" in str(errors[0])


def test_a_file_name_with_control_characters_is_escaped(tmp_path: Path) -> None:
    message = error_of(tmp_path, "garbage", name="evil\x1b[31m\nname.replay")
    assert "\\x1b[31m\\nname.replay" in message
