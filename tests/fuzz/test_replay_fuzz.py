"""Generated replay files: a Replay whose every required hash is there, or one error line.

Three kinds of damage to a valid replay: a line replaced by generated text and the checksum
recomputed (so the parser's checks past the checksum run, as a forger's file would reach them),
random bytes changed without recomputing it, and the file cut anywhere.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.input.replay import Replay, ReplayError, format_replay, load_replay
from tests.engine.input.test_hostile_replay import with_checksum
from tests.engine.input.test_replay import make_replay
from tests.fuzz.conftest import assert_one_line, case

FUZZ_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
GOOD = format_replay(make_replay(8, hash_every=3, tick_rate_hz="2997/50"))
LINES = GOOD.splitlines()[:-1]  # without the end line

tick_lines = st.builds(
    lambda value, digest: f"{value:x} {digest}",
    st.integers(0, 0x7777),
    st.text("0123456789abcdef", min_size=32, max_size=32) | st.just("-"),
)
line_text = st.one_of(
    tick_lines,
    st.text("0123456789abcdef -/", max_size=40),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
    st.sampled_from(
        [
            "platformer-replay " + "9" * 5000,
            "ticks " + "9" * 40,
            "tick-rate-hz " + "7" * 5000,
            "hash-every 0",
            "0 -",
            "1" * 100_000 + " -",
            "0 " + "a" * 200,
            "actions " + " ".join(f"a{i}" for i in range(100)),
            "level-id \x1b[31mred",
            "",
        ]
    ),
)


def replay_error_line(message: str) -> None:
    assert_one_line(message, "replay error: ")


def check(data: bytes, path_factory: pytest.TempPathFactory) -> None:
    path = path_factory.mktemp("replay") / "fuzz.replay"
    path.write_bytes(data)
    with case("replays", ReplayError, replay_error_line):
        replay = load_replay(path)
        assert isinstance(replay, Replay)
        last = replay.tick_count - 1
        for tick, state_hash in enumerate(replay.hashes):
            if tick % replay.hash_every == 0 or tick == last:
                assert state_hash is not None  # no tick that needs a hash plays unchecked


@FUZZ_SETTINGS
@given(edits=st.lists(st.tuples(st.integers(0, len(LINES) - 1), line_text), min_size=1, max_size=3))
def test_lines_replaced_and_the_checksum_recomputed(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, str]]
) -> None:
    lines = list(LINES)
    for index, text in edits:
        lines[index] = text.replace("\n", " ").replace("\r", " ")
    check(with_checksum(lines).encode("utf-8"), tmp_path_factory)


DATA = GOOD.encode("utf-8")


@FUZZ_SETTINGS
@given(
    edits=st.lists(
        st.tuples(st.integers(0, len(DATA) - 1), st.binary(min_size=0, max_size=3)),
        min_size=1,
        max_size=3,
    ),
    cut=st.none() | st.integers(0, len(DATA)),
)
def test_bytes_changed_or_the_file_cut(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, bytes]], cut: int | None
) -> None:
    data = bytearray(DATA)
    for index, replacement in edits:
        data[index : index + 1] = replacement
    check(bytes(data if cut is None else data[:cut]), tmp_path_factory)
