"""Tests for engine.input.replay: the replay file format, its errors, atomic saves and verification."""

from __future__ import annotations

import ast
import hashlib
import os
import random
import signal
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.input.replay import (
    FORMAT_VERSION,
    MAGIC,
    Replay,
    ReplayError,
    ReplayMismatch,
    ReplayRecorder,
    ReplayVerifier,
    format_replay,
    hash_level_file,
    load_replay,
    parse_replay,
    save_replay,
)
from engine.input.snapshot import ActionMap, InputSnapshot

ACTIONS = ActionMap(("left", "right", "jump", "pause"))
LEVEL_HASH = "5d41402abc4b2a76b9719d911017c592"
ROOT = Path(__file__).resolve().parents[3]


def fake_state_hash(previous: str, value: int) -> str:
    """A stand-in for PhysicsWorld.state_hash(): depends on every input so far."""
    return hashlib.blake2b(f"{previous}:{value}".encode(), digest_size=16).hexdigest()


def make_replay(
    tick_count: int = 12,
    *,
    hash_every: int = 1,
    tick_rate_hz: int | str | Fraction = 60,
    level_id: str = "level1.tmx",
    seed: int = 1,
) -> Replay:
    """Record ``tick_count`` ticks of pseudo-random input with a fake game's state hashes."""
    rng = random.Random(seed)
    recorder = ReplayRecorder(
        ACTIONS,
        level_id=level_id,
        level_hash=LEVEL_HASH,
        tick_rate_hz=tick_rate_hz,
        game_version="0.1.0",
        hash_every=hash_every,
    )
    state = ""
    for tick in range(tick_count):
        full = ACTIONS.full_mask
        snapshot = InputSnapshot(
            ACTIONS, rng.randint(0, full), rng.randint(0, full), rng.randint(0, full)
        )
        state = fake_state_hash(state, snapshot.encode())
        recorder.record(tick, snapshot, state)
    return recorder.to_replay()


def write_text(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def load_error(path: Path, **expect: object) -> str:
    """Load ``path`` expecting a ReplayError; check the message is one line naming the file."""
    with pytest.raises(ReplayError) as caught:
        load_replay(path, **expect)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message, message
    assert message.startswith(f"replay error: {path}: "), message
    return message


# ---------------------------------------------------------------------------------------------
# Round trips and the documented layout
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [60, "2997/50", Fraction(2997, 50), Fraction(144)])
def test_record_save_load_round_trip(tmp_path: Path, rate: int | str | Fraction) -> None:
    replay = make_replay(40, hash_every=3, tick_rate_hz=rate)
    path = tmp_path / "level1.replay"
    save_replay(replay, path)
    loaded = load_replay(
        path,
        expect_level_id="level1.tmx",
        expect_level_hash=LEVEL_HASH,
        expect_version="0.1.0",
        expect_action_map=ACTIONS,
    )
    assert loaded == replay
    assert loaded.tick_rate_hz == Fraction(rate)
    assert isinstance(loaded.tick_rate_hz, Fraction)


def test_fractional_rate_is_written_exactly() -> None:
    text = format_replay(make_replay(2, tick_rate_hz="2997/50"))
    assert "\ntick-rate-hz 2997/50\n" in text
    assert "\ntick-rate-hz 60\n" in format_replay(make_replay(2))


def test_float_tick_rate_is_refused() -> None:
    with pytest.raises(ValueError, match="exact"):
        make_replay(1, tick_rate_hz=59.94)  # type: ignore[arg-type]


def test_file_layout_matches_the_module_docs() -> None:
    replay = make_replay(5, hash_every=2)
    text = format_replay(replay)
    lines = text.split("\n")
    assert text.endswith("\n") and lines[-1] == ""
    lines.pop()
    assert lines[0] == f"{MAGIC} {FORMAT_VERSION}"
    assert lines[1:8] == [
        "game-version 0.1.0",
        "level-id level1.tmx",
        f"level-hash {LEVEL_HASH}",
        "tick-rate-hz 60",
        "actions left right jump pause",
        "hash-every 2",
        "ticks 5",
    ]
    for tick in range(5):  # tick t is on line t + 9 (1-based)
        value, state_hash = lines[tick + 8].split(" ")
        assert int(value, 16) == replay.inputs[tick]
        assert state_hash == (replay.hashes[tick] or "-")
    # hash-every 2 keeps ticks 0, 2, 4 (4 is also the last tick); 1 and 3 are "-".
    assert [h is not None for h in replay.hashes] == [True, False, True, False, True]
    # The end line is blake2b-128 of every line above, each with "\n" (= head -n -1 | b2sum -l 128).
    body = "".join(line + "\n" for line in lines[:-1]).encode()
    assert lines[-1] == f"end {hashlib.blake2b(body, digest_size=16).hexdigest()}"


def test_last_tick_keeps_its_hash_whatever_the_interval() -> None:
    replay = make_replay(7, hash_every=4)
    assert [h is not None for h in replay.hashes] == [
        True,
        False,
        False,
        False,
        True,
        False,
        True,
    ]


def test_empty_replay_round_trips(tmp_path: Path) -> None:
    replay = make_replay(0)
    save_replay(replay, tmp_path / "empty.replay")
    assert load_replay(tmp_path / "empty.replay") == replay


def test_windows_line_ends_and_trailing_blank_lines_are_accepted(tmp_path: Path) -> None:
    replay = make_replay(6)
    text = format_replay(replay).replace("\n", "\r\n") + "\r\n\n"
    assert load_replay(write_text(tmp_path / "crlf.replay", text)) == replay


def test_missing_final_newline_is_accepted(tmp_path: Path) -> None:
    replay = make_replay(6)
    text = format_replay(replay).removesuffix("\n")
    assert load_replay(write_text(tmp_path / "nonl.replay", text)) == replay


def test_level_id_may_contain_spaces_and_unicode(tmp_path: Path) -> None:
    replay = make_replay(3, level_id="World 1 – Höhle.tmx")
    save_replay(replay, tmp_path / "w.replay")
    assert load_replay(tmp_path / "w.replay").level_id == "World 1 – Höhle.tmx"


def test_hash_level_file_is_blake2b_128_of_the_bytes(tmp_path: Path) -> None:
    level = tmp_path / "level1.tmx"
    level.write_bytes(b"<map/>")
    assert hash_level_file(level) == hashlib.blake2b(b"<map/>", digest_size=16).hexdigest()
    assert len(hash_level_file(level)) == 32


masks = st.integers(min_value=0, max_value=ACTIONS.full_mask)
snapshots = st.builds(lambda h, p, r: InputSnapshot(ACTIONS, h, p, r), masks, masks, masks)
hex_hashes = st.text("0123456789abcdef", min_size=8, max_size=64)


@settings(max_examples=75, deadline=None)
@given(
    inputs=st.lists(snapshots, max_size=60),
    state_hashes=st.lists(hex_hashes, min_size=60, max_size=60),
    hashed=st.lists(st.booleans(), min_size=60, max_size=60),
    hash_every=st.integers(min_value=1, max_value=12),
    rate=st.fractions(min_value=Fraction(1, 1000), max_value=1000, max_denominator=10**6),
)
def test_any_recording_round_trips_through_the_file_text(
    inputs: list[InputSnapshot],
    state_hashes: list[str],
    hashed: list[bool],
    hash_every: int,
    rate: Fraction,
) -> None:
    """The game hashes where the recorder wants a hash and on the last tick, maybe elsewhere."""
    recorder = ReplayRecorder(
        ACTIONS,
        level_id="level1.tmx",
        level_hash=LEVEL_HASH,
        tick_rate_hz=rate,
        game_version="0.1.0",
        hash_every=hash_every,
    )
    for tick, snapshot in enumerate(inputs):
        needed = recorder.wants_hash(tick) or tick == len(inputs) - 1
        recorder.record(tick, snapshot, state_hashes[tick] if needed or hashed[tick] else None)
    replay = recorder.to_replay()
    assert replay.inputs == tuple(snapshot.encode() for snapshot in inputs)
    for tick, kept in enumerate(replay.hashes):
        is_last = tick == len(inputs) - 1
        expected = state_hashes[tick] if tick % hash_every == 0 or is_last else None
        assert kept == expected
    parsed = parse_replay(format_replay(replay).encode(), source="prop.replay")
    assert parsed == replay
    assert [parsed.snapshot(t) for t in range(parsed.tick_count)] == inputs


# ---------------------------------------------------------------------------------------------
# Recorder misuse
# ---------------------------------------------------------------------------------------------


def recorder(**overrides: object) -> ReplayRecorder:
    arguments: dict[str, object] = {
        "level_id": "level1.tmx",
        "level_hash": LEVEL_HASH,
        "tick_rate_hz": 60,
        "game_version": "0.1.0",
    }
    arguments.update(overrides)
    return ReplayRecorder(ACTIONS, **arguments)  # type: ignore[arg-type]


def test_recorder_rejects_a_gap_and_a_repeat() -> None:
    rec = recorder()
    rec.record(0, InputSnapshot.empty(ACTIONS), LEVEL_HASH)
    with pytest.raises(ValueError, match="expected tick 1, got 2"):
        rec.record(2, InputSnapshot.empty(ACTIONS), LEVEL_HASH)
    with pytest.raises(ValueError, match="expected tick 1, got 0"):
        rec.record(0, InputSnapshot.empty(ACTIONS), LEVEL_HASH)
    assert len(rec) == 1


def test_recorder_wants_a_hash_on_its_interval_and_the_last_tick() -> None:
    rec = recorder(hash_every=2)
    with pytest.raises(ValueError, match="tick 0 has no state hash"):
        rec.record(0, InputSnapshot.empty(ACTIONS), None)
    rec.record(0, InputSnapshot.empty(ACTIONS), LEVEL_HASH)
    rec.record(1, InputSnapshot.empty(ACTIONS), None)  # skipped: not on the interval
    with pytest.raises(ValueError, match="tick 1 has no state hash"):
        rec.to_replay()  # ... but it is the last tick


def test_recorder_rejects_another_action_map_and_bad_hashes() -> None:
    rec = recorder()
    with pytest.raises(ValueError, match="action"):
        rec.record(0, InputSnapshot.empty(ActionMap(("jump",))), None)
    with pytest.raises(ValueError, match="lowercase hex"):
        rec.record(0, InputSnapshot.empty(ACTIONS), "ABC")


@pytest.mark.parametrize(
    "overrides",
    [
        {"level_id": "two\nlines"},
        {"level_id": " padded"},
        {"level_id": ""},
        {"game_version": "1.0\r"},
        {"level_hash": "not hex"},
        {"tick_rate_hz": 0},
        {"tick_rate_hz": "-60"},
        {"hash_every": 0},
        {"hash_every": 1_000_001},
        {"level_hash": "abc123"},  # not a blake2b-128 digest
        {"level_id": "x" * 257},
        {"tick_rate_hz": "1" * 13},
        {"tick_rate_hz": 10**12},
    ],
)
def test_recorder_rejects_header_values_that_cannot_be_written(
    overrides: dict[str, object],
) -> None:
    with pytest.raises(ValueError):
        recorder(**overrides)


def test_action_names_with_spaces_cannot_be_recorded() -> None:
    with pytest.raises(ValueError, match="spaces"):
        ReplayRecorder(
            ActionMap(("move left",)),
            level_id="l",
            level_hash=LEVEL_HASH,
            tick_rate_hz=60,
            game_version="1",
        )


# ---------------------------------------------------------------------------------------------
# Load errors: each is one line naming the file
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def good_text() -> str:
    return format_replay(make_replay(10, hash_every=2, tick_rate_hz="2997/50"))


def replace_line(text: str, line_no: int, new_line: str) -> str:
    lines = text.split("\n")
    lines[line_no - 1] = new_line
    return "\n".join(lines)


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in load_error(tmp_path / "nope.replay")


def test_unreadable_path(tmp_path: Path) -> None:
    folder = tmp_path / "folder.replay"
    folder.mkdir()
    assert "cannot read" in load_error(folder)


def test_empty_file(tmp_path: Path) -> None:
    message = load_error(write_text(tmp_path / "empty.replay", ""))
    assert "empty file" in message and "platformer-replay 1" in message


@pytest.mark.parametrize(
    "content",
    [b"\x89PNG\r\n\x1a\n\x00\x00", b"level-id foo\n", b"platformer-replays 1\n"],
)
def test_not_a_replay(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "other.replay"
    path.write_bytes(content)
    message = load_error(path)
    assert "not a replay file" in message and "expected 'platformer-replay 1'" in message


def test_unsupported_version(tmp_path: Path, good_text: str) -> None:
    text = replace_line(good_text, 1, "platformer-replay 2")
    message = load_error(write_text(tmp_path / "v2.replay", text))
    assert "unsupported format version 2" in message and "reads version 1" in message


def test_malformed_version(tmp_path: Path, good_text: str) -> None:
    text = replace_line(good_text, 1, "platformer-replay one")
    assert "line 1:" in load_error(write_text(tmp_path / "v.replay", text))


def test_not_utf8(tmp_path: Path, good_text: str) -> None:
    data = good_text.encode().replace(b"level1.tmx", b"level\xff.tmx")
    path = tmp_path / "latin.replay"
    path.write_bytes(data)
    assert "line 3: not UTF-8" in load_error(path)


def test_replay_of_another_level(tmp_path: Path) -> None:
    path = tmp_path / "level2.replay"
    save_replay(make_replay(5, level_id="level2.tmx"), path)
    message = load_error(path, expect_level_id="level1.tmx")
    assert "'level2.tmx'" in message and "expected level 'level1.tmx'" in message


def test_replay_of_an_edited_level(tmp_path: Path) -> None:
    path = tmp_path / "level1.replay"
    save_replay(make_replay(5), path)
    message = load_error(path, expect_level_id="level1.tmx", expect_level_hash="00" * 16)
    assert "changed since recording" in message and LEVEL_HASH in message


def test_replay_of_another_game_version(tmp_path: Path) -> None:
    path = tmp_path / "level1.replay"
    save_replay(make_replay(5), path)
    message = load_error(path, expect_version="0.2.0")
    assert "'0.1.0'" in message and "'0.2.0'" in message


def test_action_map_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "level1.replay"
    save_replay(make_replay(5), path)
    reordered = ActionMap(("right", "left", "jump", "pause"))
    message = load_error(path, expect_action_map=reordered)
    assert "action map mismatch" in message and "left right jump pause" in message
    # Actions appended after recording are fine: old inputs decode with them idle.
    appended = ActionMap((*ACTIONS.actions, "dash"))
    assert load_replay(path, expect_action_map=appended).action_map == ACTIONS


def test_hand_edited_level_id_fails_the_checksum(tmp_path: Path, good_text: str) -> None:
    text = good_text.replace("level-id level1.tmx", "level-id level2.tmx")
    message = load_error(write_text(tmp_path / "edited.replay", text))
    assert "checksum mismatch" in message


@pytest.mark.parametrize(
    ("line_no", "new_line", "fragment"),
    [
        (2, "game-versio 0.1.0", "line 2: malformed header line: expected 'game-version"),
        (3, "level-id", "line 3: malformed header line"),
        (4, "level-hash XYZ", "line 4: malformed header line: level-hash"),
        (5, "tick-rate-hz 59.94", "line 5: malformed header line: tick-rate-hz"),
        (5, "tick-rate-hz 0", "line 5: malformed header line"),
        (6, "actions left  jump", "line 6: malformed header line: actions"),
        (6, "actions jump jump", "line 6: malformed header line: actions: duplicate"),
        (7, "hash-every 0", "line 7: malformed header line: hash-every"),
        (8, "ticks ten", "line 8: malformed header line: ticks"),
    ],
)
def test_malformed_header_line(
    tmp_path: Path, good_text: str, line_no: int, new_line: str, fragment: str
) -> None:
    text = replace_line(good_text, line_no, new_line)
    assert fragment in load_error(write_text(tmp_path / "header.replay", text))


@pytest.mark.parametrize(
    ("new_line", "fragment"),
    [
        ("zz -", "expected '<input hex> <state hash or ->'"),
        ("1", "expected '<input hex> <state hash or ->'"),
        ("1 - extra", "expected '<input hex> <state hash or ->'"),
        ("1 XYZ", "state hash ('-' for none) must be 8 to 128 lowercase hex digits"),
        ("1 abc", "state hash ('-' for none) must be 8 to 128 lowercase hex digits"),
        ("8 -", "reserved bit"),  # bit 8 of action 0's group is reserved
        ("10000 -", "more hex digits than the 4 recorded actions"),
    ],
)
def test_malformed_tick_line(tmp_path: Path, good_text: str, new_line: str, fragment: str) -> None:
    text = replace_line(good_text, 12, new_line)  # tick 3 is on line 12
    message = load_error(write_text(tmp_path / "ticks.replay", text))
    assert "line 12: malformed tick line (tick 3)" in message and fragment in message


def test_tick_count_mismatch_fewer_lines(tmp_path: Path, good_text: str) -> None:
    lines = good_text.split("\n")
    del lines[12]  # drop tick 4, keep the end line
    message = load_error(write_text(tmp_path / "short.replay", "\n".join(lines)))
    assert "tick count mismatch" in message and "after 9 ticks, header says 10" in message


def test_tick_count_mismatch_more_lines(tmp_path: Path, good_text: str) -> None:
    lines = good_text.split("\n")
    lines.insert(12, "0 -")
    message = load_error(write_text(tmp_path / "long.replay", "\n".join(lines)))
    assert "tick count mismatch: more tick lines than the header's 10 ticks" in message


def test_truncated_after_a_whole_tick_line(tmp_path: Path, good_text: str) -> None:
    lines = good_text.split("\n")
    text = "\n".join(lines[:12]) + "\n"  # header + ticks 0..3
    message = load_error(write_text(tmp_path / "cut.replay", text))
    assert "truncated after 4 complete ticks (header says 10 ticks; no end line)" in message


def test_truncated_inside_a_tick_line(tmp_path: Path, good_text: str) -> None:
    cut = good_text.index("\nend ") - 5  # the last tick line loses its last hash digits
    message = load_error(write_text(tmp_path / "cut.replay", good_text[:cut]))
    assert "truncated after 9 complete ticks (header says 10 ticks; no end line)" in message


def test_text_after_the_end_line(tmp_path: Path, good_text: str) -> None:
    message = load_error(write_text(tmp_path / "extra.replay", good_text + "0 -\n"))
    assert "unexpected text after the end line" in message


def test_truncation_anywhere_is_detected(tmp_path: Path, good_text: str) -> None:
    data = good_text.encode()
    path = tmp_path / "cut.replay"
    # Every cut except "just the final newline" (which copy-paste drops anyway) must fail.
    for size in range(len(data) - 1):
        path.write_bytes(data[:size])
        message = load_error(path)
        assert "truncated" in message or "empty file" in message, (size, message)
    path.write_bytes(data[:-1])
    assert load_replay(path) == parse_replay(data)


def test_truncation_in_a_multibyte_character(tmp_path: Path) -> None:
    data = format_replay(make_replay(3, level_id="Höhle")).encode()
    cut = data.index("ö".encode()) + 1
    path = tmp_path / "cut.replay"
    path.write_bytes(data[:cut])
    assert "truncated" in load_error(path)


def test_every_single_character_edit_is_detected(tmp_path: Path, good_text: str) -> None:
    path = tmp_path / "flip.replay"
    for index, char in enumerate(good_text):
        replacement = "1" if char != "1" else "2"
        path.write_text(good_text[:index] + replacement + good_text[index + 1 :], "utf-8")
        load_error(path)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_flip_in_a_tick_line_or_the_header(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    text = format_replay(make_replay(20, hash_every=3))
    lines = text.split("\n")
    line_index = data.draw(st.integers(min_value=1, max_value=28), label="line index")
    line = lines[line_index]
    column = data.draw(st.integers(min_value=0, max_value=len(line) - 1), label="column")
    new_char = data.draw(st.sampled_from("0123456789abcdefxyz -/."), label="new char")
    if new_char == line[column]:
        return
    lines[line_index] = line[:column] + new_char + line[column + 1 :]
    path = tmp_path_factory.mktemp("flip") / "level1.replay"
    write_text(path, "\n".join(lines))
    load_error(path)


# ---------------------------------------------------------------------------------------------
# Atomic save
# ---------------------------------------------------------------------------------------------


def leftover_temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_failed_rename_keeps_the_old_file_and_removes_the_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "level1.replay"
    old = make_replay(10, seed=1)
    save_replay(old, path)

    def broken_replace(source: str, target: str) -> None:
        assert Path(source).stat().st_size > 0  # the temp file was written completely
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ReplayError) as caught:
        save_replay(make_replay(500, seed=2), path)
    assert str(caught.value) == (f"replay error: {path}: cannot save: No space left on device")
    monkeypatch.undo()
    assert load_replay(path) == old
    assert leftover_temp_files(tmp_path) == []


def test_failure_midway_through_the_write_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "level1.replay"
    old = make_replay(10, seed=1)
    save_replay(old, path)

    def broken_fsync(descriptor: int) -> None:
        raise KeyboardInterrupt  # e.g. Ctrl+C while the data is being flushed

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(KeyboardInterrupt):
        save_replay(make_replay(500, seed=2), path)
    monkeypatch.undo()
    assert load_replay(path) == old
    assert leftover_temp_files(tmp_path) == []


def test_save_into_a_missing_folder_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "level1.replay"
    with pytest.raises(ReplayError) as caught:
        save_replay(make_replay(2), path)
    assert str(caught.value).startswith(f"replay error: {path}: cannot save: ")
    assert "\n" not in str(caught.value)


def test_save_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "level1.replay"
    save_replay(make_replay(10, seed=1), path)
    new = make_replay(20, seed=2)
    save_replay(new, path)
    assert load_replay(path) == new
    assert leftover_temp_files(tmp_path) == []


_KILLED_WRITER = textwrap.dedent(
    """
    import os, sys, time
    sys.path.insert(0, sys.argv[1])
    from engine.input.snapshot import ActionMap, InputSnapshot
    from engine.input.replay import ReplayRecorder, save_replay

    actions = ActionMap(("left", "right", "jump", "pause"))
    recorder = ReplayRecorder(
        actions, level_id="level1.tmx", level_hash="ab" * 16, tick_rate_hz=60,
        game_version="0.1.0",
    )
    for tick in range(50_000):
        recorder.record(tick, InputSnapshot(actions, tick % 16), f"{tick:032x}")

    def stall(descriptor):  # the data is in the temp file; wait here to be killed
        print("writing", flush=True)
        time.sleep(60)

    os.fsync = stall
    save_replay(recorder.to_replay(), sys.argv[2])
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")
def test_writer_killed_mid_save_leaves_the_old_file_intact(tmp_path: Path) -> None:
    path = tmp_path / "level1.replay"
    old = make_replay(10, seed=1)
    save_replay(old, path)
    writer = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(ROOT), str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "writing"
        writer.send_signal(signal.SIGKILL)
    finally:
        writer.wait(timeout=30)
        if writer.stdout is not None:
            writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    assert load_replay(path) == old
    # A killed process cannot clean up: its temp file stays, hidden and clearly named.
    leftovers = leftover_temp_files(tmp_path)
    assert len(leftovers) == 1 and leftovers[0].startswith(".level1.replay.")


# ---------------------------------------------------------------------------------------------
# Verification during playback
# ---------------------------------------------------------------------------------------------


def play(verifier: ReplayVerifier, *, corrupt_at: int | None = None) -> int:
    """Run the fake game from the verifier's player; returns the ticks played."""
    player = verifier.player()
    state = ""
    while not player.finished:
        tick = player.position
        value = player.sample().encode()
        if tick == corrupt_at:
            value ^= 1  # the game behaves differently from here on
        state = fake_state_hash(state, value)
        verifier.check(tick, state)
    return player.position


def test_faithful_playback_passes_every_check() -> None:
    replay = make_replay(30)
    verifier = ReplayVerifier(replay, source="runs/level1.replay")
    assert play(verifier) == 30
    assert verifier.last_match_tick == 29


def test_player_returns_the_recorded_snapshots() -> None:
    replay = make_replay(15)
    player = ReplayVerifier(replay).player()
    assert [s.encode() for s in player] == list(replay.inputs)


def test_mismatch_names_the_first_differing_tick_and_both_hashes() -> None:
    replay = make_replay(30)
    verifier = ReplayVerifier(replay, source="runs/level1.replay")
    with pytest.raises(ReplayMismatch) as caught:
        play(verifier, corrupt_at=17)
    error = caught.value
    assert isinstance(error, ReplayError)
    assert error.tick == 17 and error.last_match_tick == 16
    assert error.recorded_hash == replay.hashes[17]
    message = str(error)
    assert "\n" not in message
    assert message.startswith("replay error: runs/level1.replay: playback diverged")
    assert "tick 17" in message and error.recorded_hash in message
    assert error.actual_hash in message and "tick 16 still matched" in message


def test_mismatch_with_sparse_hashes_reports_the_first_checked_tick() -> None:
    replay = make_replay(30, hash_every=5)
    verifier = ReplayVerifier(replay, source="level1.replay")
    with pytest.raises(ReplayMismatch) as caught:
        play(verifier, corrupt_at=7)
    assert caught.value.tick == 10  # first hashed tick at or after the divergence
    assert caught.value.last_match_tick == 5


def test_mismatch_on_the_first_tick() -> None:
    verifier = ReplayVerifier(make_replay(3))
    with pytest.raises(ReplayMismatch, match="no earlier tick was checked"):
        verifier.check(0, "00")


def test_check_outside_the_replay_is_a_programming_error() -> None:
    verifier = ReplayVerifier(make_replay(3))
    with pytest.raises(ValueError, match="outside"):
        verifier.check(3, "00")


def test_player_with_the_games_extended_action_map() -> None:
    replay = make_replay(5)
    extended = ActionMap((*ACTIONS.actions, "dash"))
    player = ReplayVerifier(replay).player(extended)
    snapshots = list(player)
    assert all(s.action_map == extended and not s.is_held("dash") for s in snapshots)
    assert [s.held for s in snapshots] == [replay.snapshot(t).held for t in range(5)]
    with pytest.raises(ReplayError, match="action map mismatch"):
        ReplayVerifier(replay).player(ActionMap(("jump",)))


# ---------------------------------------------------------------------------------------------
# Purity
# ---------------------------------------------------------------------------------------------


def test_replay_module_is_pure() -> None:
    source = ROOT / "engine" / "input" / "replay.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    third_party = {name for name in imported if name.split(".")[0] not in sys.stdlib_module_names}
    allowed = {"engine.input.snapshot", "engine.storage.atomic_file", "engine.storage.bounded_read"}
    assert third_party <= allowed, third_party


def test_saved_replays_get_the_mode_of_any_new_file(tmp_path: Path) -> None:
    """mkstemp creates 0600 files; a saved replay must be readable like any other file."""
    path = tmp_path / "run.replay"
    old = os.umask(0o022)
    try:
        save_replay(make_replay(), path)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
