"""Replay files: every tick's input plus state hashes that prove a playback matches.

Why replays record input, not positions:
    The simulation runs in fixed ticks and is deterministic: the same level, the same
    game build and the same input on every tick produce the same state on every tick.
    So a run is fully described by one encoded :class:`~engine.input.snapshot.InputSnapshot` per
    tick (an ``int``, see :meth:`~engine.input.snapshot.InputSnapshot.encode`). Playing a replay
    means feeding those inputs back through an :class:`~engine.input.snapshot.InputPlayer`.

Why replays also record state hashes:
    "Deterministic" is a promise that breaks silently: a float summed in a different
    order, a dict iterated differently, a level tweaked after recording. Then the replay
    still plays, but the player walks into a wall that was not there before and the run
    quietly becomes a different run. So the recorder also stores the game's state hash
    (e.g. :meth:`engine.physics.world.PhysicsWorld.state_hash`) after some ticks, and
    :class:`ReplayVerifier` compares it during playback and stops at the *first* tick
    whose state differs, which is where to start debugging.

The file format (version 1)
---------------------------

UTF-8 text, one record per line, ``\\n`` line ends (``\\r\\n`` is accepted when read, so
a file that went through a Windows editor or a copy-paste still loads). Line by line
(the hashes here are made up)::

    platformer-replay 1                 magic word and format version
    game-version 0.1.0                  the game build that recorded it
    level-id level1.tmx                 which level (free text: any printable characters)
    level-hash 5d41402abc4b2a76b9719d911017c592
                                        blake2b-128 of the level file's bytes (hex)
    tick-rate-hz 60                     exact ticks per second: an integer or a fraction,
                                        e.g. ``2997/50`` for 59.94 Hz (never a decimal)
    actions left right jump pause       the ActionMap, in bit order, space separated
    hash-every 1                        the recorder's hash interval N (see below)
    ticks 3                             number of tick lines that follow
    0 9c1e0b0b6a3e4f5d8e7f6a5b4c3d2e1f  tick 0: input in hex, state hash after the tick
    31 -                                tick 1: ``-`` means no hash recorded this tick
    1 0f1e2d3c4b5a69788796a5b4c3d2e1f0  tick 2
    end 3b0d7e5c1a2f4e6d8c9b0a1f2e3d4c5b
                                        blake2b-128 of every line above (see below)

The seven header lines come in exactly this order, so tick ``t`` is always on line
``t + 9`` of the file. Header values run from after the first space to the end of the
line (so a level id may contain spaces) and never have leading or trailing spaces.

Tick lines:
    ``<input> <hash>``. ``<input>`` is the encoded snapshot in lowercase hex without a
    ``0x`` prefix; hex digit ``i`` from the right is action ``i`` of the ``actions``
    line, with bit 1 held, 2 pressed, 4 released (``31``: action 1 went down, action 0
    is held). ``<hash>`` is the game's state hash *after* that tick ran, in lowercase
    hex, or ``-`` when none was recorded.

Hash interval:
    Hashing the state every tick costs time, so a recorder may keep a hash only on ticks
    where ``tick % hash_every == 0``, plus on the last tick (so a playback always checks
    where the run ended). Those ticks *must* carry a hash: a replay whose hashes were
    replaced by ``-`` would otherwise play unchecked. Other ticks may have ``-`` or a hash.

Limits (a file that breaks one is refused with one line, never half-read):
    The file is a regular file of at most 256 MiB (:data:`MAX_REPLAY_BYTES`); the format
    version, ``ticks`` and each part of ``tick-rate-hz`` have at most 12 digits;
    ``hash-every`` is 1 to 1,000,000; ``game-version`` and ``level-id`` at most 256
    characters; at most 64 actions; ``level-hash`` is exactly 32 hex digits and a state
    hash 8 to 128; an input has at most one hex digit per action.

End line:
    ``end <checksum>``: the blake2b-128 (16-byte digest) hex of every line above it,
    each followed by one ``\\n``, as UTF-8. A truncated file has no end line; an edited
    file has the wrong checksum. To check a file by hand (GNU coreutils)::

        head -n -1 level1.replay | b2sum -l 128

    and compare with the end line. ``b2sum -l 128 level1.tmx`` likewise prints the
    ``level-hash`` of a level file (:func:`hash_level_file` computes the same).

Errors:
    Loading never returns a half-valid replay: every problem raises :class:`ReplayError`,
    whose message is one line naming the file, what is wrong and what was expected::

        replay error: level1.replay: truncated after 1200 complete ticks (header says 1800 ticks; no end line)

Writing is atomic (:func:`save_replay`): the new file is written beside the old one
under a temporary name, flushed to disk and renamed over it, so a crash mid-save leaves
the previous replay intact.

This module is pure: it imports only the standard library and :mod:`engine.input.snapshot`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import cast

from engine.input.snapshot import BITS_PER_ACTION, ActionMap, InputPlayer, InputSnapshot
from engine.storage.atomic_file import write_atomic
from engine.storage.bounded_read import read_regular_file

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "SUPPORTED_VERSIONS",
    "Replay",
    "ReplayError",
    "ReplayMismatch",
    "ReplayRecorder",
    "ReplayVerifier",
    "check_action_map",
    "format_replay",
    "hash_level_file",
    "load_replay",
    "parse_replay",
    "save_replay",
]

MAGIC = "platformer-replay"
"""First word of every replay file."""

FORMAT_VERSION = 1
"""The format version :func:`save_replay` writes."""

SUPPORTED_VERSIONS: tuple[int, ...] = (1,)
"""Format versions :func:`load_replay` reads."""

HASH_DIGEST_BYTES = 16
"""Digest size of the blake2b checksums (the end line and :func:`hash_level_file`)."""

_HEADER_KEYS = (
    "game-version",
    "level-id",
    "level-hash",
    "tick-rate-hz",
    "actions",
    "hash-every",
    "ticks",
)
"""Header keys, in the order they must appear on lines 2 to 8."""

_FIRST_TICK_LINE = len(_HEADER_KEYS) + 2
"""1-based line number of tick 0 (after the magic line and the header)."""

_HEX = re.compile(r"[0-9a-f]+")
_COUNT = re.compile(r"0|[1-9][0-9]{0,11}")
_RATE = re.compile(r"[1-9][0-9]{0,11}(/[1-9][0-9]{0,11})?")

MAX_REPLAY_BYTES = 256 << 20
"""The largest replay file read: 256 MiB, about 30 hours of ticks at 60 Hz with every hash."""

MAX_LABEL_CHARS = 256
"""Longest ``game-version`` and ``level-id``."""

MAX_ACTIONS = 64
"""Most actions a replay may record (each takes one hex digit of every tick line)."""

MAX_HASH_EVERY = 1_000_000
"""Largest ``hash-every`` interval."""

STATE_HASH_DIGITS = (8, 128)
"""A state hash has 8 to 128 hex digits (32 for the engine's blake2b-128 hashes)."""

LEVEL_HASH_DIGITS = (2 * HASH_DIGEST_BYTES, 2 * HASH_DIGEST_BYTES)
"""A ``level-hash`` is exactly a blake2b-128 digest: 32 hex digits."""
_MAX_SHOWN_CHARS = 40
"""Longest excerpt of a bad line quoted in an error message."""


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class ReplayError(Exception):
    """A replay file cannot be used: missing, damaged, or made for another level or build.

    ``str(error)`` is always one line, ``replay error: <file>: <problem>``, so it fits a
    log line or a status bar unchanged.

    Args:
        source: The file (or another label, e.g. ``"<memory>"``) the problem is in.
        problem: What is wrong and what was expected.

    Attributes:
        source: The file name as given.
        problem: The problem without the prefix.
    """

    def __init__(self, source: str | os.PathLike[str], problem: str) -> None:
        self.source = _printable(os.fspath(source))
        self.problem = _one_line(problem)
        super().__init__(f"replay error: {self.source}: {self.problem}")


class ReplayMismatch(ReplayError):  # noqa: N818 - reads better in `except ReplayMismatch`
    """During playback, the game's state differs from the recording.

    Attributes:
        tick: The first checked tick whose state hash differs.
        recorded_hash: The hash stored in the replay for that tick.
        actual_hash: The hash the playback produced.
        last_match_tick: The latest earlier tick whose hash matched, or ``None``. The
            divergence happened after it (and at or before :attr:`tick`).
    """

    def __init__(
        self,
        source: str | os.PathLike[str],
        *,
        tick: int,
        recorded_hash: str,
        actual_hash: str,
        last_match_tick: int | None,
    ) -> None:
        self.tick = tick
        self.recorded_hash = recorded_hash
        self.actual_hash = actual_hash
        self.last_match_tick = last_match_tick
        if last_match_tick is None:
            since = "no earlier tick was checked"
        else:
            since = f"tick {last_match_tick} still matched"
        super().__init__(
            source,
            f"playback diverged: state at tick {tick} hashes to {actual_hash}, "
            f"the recording says {recorded_hash} ({since})",
        )


def _one_line(text: str) -> str:
    """``text`` with line breaks replaced by spaces, so a message stays one line."""
    return " ".join(text.splitlines()) if text else text


def _printable(text: str) -> str:
    """A file name for a message: unprintable characters escaped (``\\n``, ``\\x1b``)."""
    return text if text.isprintable() else repr(text)[1:-1]


def _shown(line: str) -> str:
    """A quoted, shortened, escaped excerpt of a line for an error message."""
    if len(line) > _MAX_SHOWN_CHARS:
        line = line[:_MAX_SHOWN_CHARS] + "..."
    return repr(line)


# ---------------------------------------------------------------------------------------------
# Field checks (shared by Replay, the recorder and the parser)
# ---------------------------------------------------------------------------------------------


def _check_label(value: object, what: str) -> str:
    """A header text value: non-empty, printable, no leading or trailing whitespace, bounded."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} must be a non-empty string, got {_shown_value(value)}")
    if not value.isprintable() or value != value.strip():
        raise ValueError(
            f"{what} must be printable text without leading or trailing spaces, got {_shown(value)}"
        )
    if len(value) > MAX_LABEL_CHARS:
        raise ValueError(f"{what} must be at most {MAX_LABEL_CHARS} characters, got {len(value)}")
    return value


def _check_hex(value: object, what: str, digits: tuple[int, int] = STATE_HASH_DIGITS) -> str:
    """A hash: lowercase hex with ``digits[0]`` to ``digits[1]`` digits."""
    low, high = digits
    length = f"{low}" if low == high else f"{low} to {high}"
    if not isinstance(value, str) or not low <= len(value) <= high or not _HEX.fullmatch(value):
        raise ValueError(f"{what} must be {length} lowercase hex digits, got {_shown_value(value)}")
    return value


def _shown_value(value: object) -> str:
    """Any value, shortened, for a message."""
    return _shown(value) if isinstance(value, str) else _shown(repr(value))[1:-1]


def _check_rate(value: object) -> Fraction:
    """Normalise a tick rate to a positive exact :class:`~fractions.Fraction`."""
    if isinstance(value, bool | float):
        raise ValueError(
            f"tick rate must be exact (an int, a Fraction or a string like '2997/50'), "
            f"got {value!r}"
        )
    if not isinstance(value, int | str | Fraction):
        raise ValueError(f"tick rate must be an int, Fraction or str, got {value!r}")
    if isinstance(value, str) and not _RATE.fullmatch(value):
        raise ValueError(f"tick rate {_shown(value)} is not a positive integer or fraction")
    try:
        rate = Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"tick rate {_shown_value(value)} is not a number") from None
    if rate <= 0:
        raise ValueError(f"tick rate must be > 0 Hz, got {_shown(str(rate))}")
    if max(rate.numerator, rate.denominator) >= 10**12:
        raise ValueError(f"tick rate {_shown(str(rate))} has more than 12 digits")
    return rate


def _check_action_map(action_map: object) -> ActionMap:
    """An ActionMap whose names can be written space-separated on one line."""
    if not isinstance(action_map, ActionMap):
        raise ValueError(f"action_map must be an ActionMap, got {action_map!r}")
    if len(action_map) > MAX_ACTIONS:
        raise ValueError(f"a replay records at most {MAX_ACTIONS} actions, got {len(action_map)}")
    for name in action_map.actions:
        if not name.isprintable() or any(char.isspace() for char in name):
            raise ValueError(
                f"action names in a replay cannot contain spaces, got {_shown_value(name)}"
            )
        if len(name) > MAX_LABEL_CHARS:
            raise ValueError(f"action names are at most {MAX_LABEL_CHARS} characters")
    return action_map


def _check_count(value: object, what: str, minimum: int, maximum: int | None = None) -> int:
    """An int in ``minimum..maximum`` (bools rejected)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        allowed = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
        raise ValueError(f"{what} must be an int {allowed}, got {_shown_value(value)}")
    return value


def _missing_hash(tick: int, hash_every: int) -> str:
    return (
        f"tick {tick} has no state hash; every tick that is a multiple of hash-every "
        f"({hash_every}) and the last tick need one"
    )


def _needs_hash(tick: int, tick_count: int, hash_every: int) -> bool:
    """Whether ``tick`` must carry a state hash: every ``hash_every``-th tick and the last."""
    return tick % hash_every == 0 or tick == tick_count - 1


def _reserved_bits(action_count: int) -> int:
    """Bits an encoded snapshot of ``action_count`` actions must leave 0."""
    reserved = 0
    for i in range(action_count):
        reserved |= 1 << (BITS_PER_ACTION * i + BITS_PER_ACTION - 1)
    return reserved


def _input_problem(value: object, action_map: ActionMap, reserved: int) -> str | None:
    """Why ``value`` is not a valid encoded snapshot for ``action_map``, or ``None``.

    Equivalent to :meth:`InputSnapshot.decode` succeeding, but without building a
    snapshot per tick (a one-hour replay has 216,000 ticks).
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return f"input must be a non-negative int, got {value!r}"
    if value >> (BITS_PER_ACTION * len(action_map)):
        return f"input {value:x} has bits for more than the {len(action_map)} recorded actions"
    if value & reserved:
        return f"input {value:x} sets a reserved bit"
    return None


# ---------------------------------------------------------------------------------------------
# The replay
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Replay:
    """One recorded run: what it was recorded on and every tick's input and state hash.

    Attributes:
        game_version: The game build that recorded it (e.g. ``"0.1.0"``).
        level_id: Which level, e.g. the level file's name.
        level_hash: :func:`hash_level_file` of that level file, so a replay of an edited
            level is rejected instead of playing out differently.
        tick_rate_hz: Ticks per second, exact (``Fraction(2997, 50)`` for 59.94 Hz). An
            int or a string like ``"2997/50"`` is converted.
        action_map: The actions the inputs are encoded with.
        hash_every: The recorder's hash interval (informative; see the module docs).
        inputs: One encoded :class:`~engine.input.snapshot.InputSnapshot` per tick.
        hashes: One state hash (lowercase hex) or ``None`` per tick; every
            ``hash_every``-th tick (0, N, 2N, ...) and the last tick must have one, so no
            replay plays without being checked.

    Raises:
        ValueError: A field cannot be written to a replay file (a label with a line
            break, a float tick rate, an input that does not decode, lengths differ, a
            hash missing where one is needed, a value out of range).
    """

    game_version: str
    level_id: str
    level_hash: str
    tick_rate_hz: Fraction
    action_map: ActionMap
    hash_every: int
    inputs: tuple[int, ...]
    hashes: tuple[str | None, ...]

    def __post_init__(self) -> None:
        _check_label(self.game_version, "game_version")
        _check_label(self.level_id, "level_id")
        _check_hex(self.level_hash, "level_hash", LEVEL_HASH_DIGITS)
        object.__setattr__(self, "tick_rate_hz", _check_rate(self.tick_rate_hz))
        _check_action_map(self.action_map)
        _check_count(self.hash_every, "hash_every", 1, MAX_HASH_EVERY)
        inputs = tuple(self.inputs)
        hashes = tuple(self.hashes)
        if len(inputs) != len(hashes):
            raise ValueError(
                f"inputs and hashes must have one entry per tick, got {len(inputs)} inputs "
                f"and {len(hashes)} hashes"
            )
        reserved = _reserved_bits(len(self.action_map))
        for tick, value in enumerate(inputs):
            problem = _input_problem(value, self.action_map, reserved)
            if problem:
                raise ValueError(f"tick {tick}: {problem}")
        for tick, state_hash in enumerate(hashes):
            if state_hash is not None:
                _check_hex(state_hash, f"hash of tick {tick}")
            elif _needs_hash(tick, len(hashes), self.hash_every):
                raise ValueError(_missing_hash(tick, self.hash_every))
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "hashes", hashes)

    @property
    def tick_count(self) -> int:
        """Number of recorded ticks."""
        return len(self.inputs)

    def snapshot(self, tick: int) -> InputSnapshot:
        """The decoded input of ``tick`` (for tools; playback uses :class:`ReplayVerifier`)."""
        return InputSnapshot.decode(self.inputs[tick], self.action_map)


# ---------------------------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------------------------


class ReplayRecorder:
    """Collects a run tick by tick and turns it into a :class:`Replay`.

    Call :meth:`record` once per tick, after the tick ran, with the snapshot the tick
    received and the state hash after it. Ticks must arrive in order from 0; a gap means
    a tick's input was lost, and such a replay could never play back, so it raises.

    Args:
        action_map: The game's actions; every snapshot must use this map.
        level_id: Which level is played, e.g. ``"level1.tmx"``.
        level_hash: :func:`hash_level_file` of the level file.
        tick_rate_hz: Ticks per second, exact (an int, a Fraction or ``"2997/50"``).
        game_version: The game build, e.g. the project version.
        hash_every: Keep a state hash on ticks where ``tick % hash_every == 0`` (and on
            the last tick). 1 checks every tick; larger values make files smaller and
            let the game skip hashing on the other ticks (see :meth:`wants_hash`).

    Raises:
        ValueError: A header value cannot be written to a replay file.
    """

    def __init__(
        self,
        action_map: ActionMap,
        *,
        level_id: str,
        level_hash: str,
        tick_rate_hz: int | str | Fraction,
        game_version: str,
        hash_every: int = 1,
    ) -> None:
        # Building an empty replay validates every header value now, not at save time.
        self._empty = Replay(
            game_version=game_version,
            level_id=level_id,
            level_hash=level_hash,
            tick_rate_hz=_check_rate(tick_rate_hz),
            action_map=action_map,
            hash_every=hash_every,
            inputs=(),
            hashes=(),
        )
        self._inputs: list[int] = []
        self._hashes: list[str | None] = []
        self._last_hash: str | None = None

    @property
    def action_map(self) -> ActionMap:
        """The map every recorded snapshot must use."""
        return self._empty.action_map

    def __len__(self) -> int:
        return len(self._inputs)

    def wants_hash(self, tick: int) -> bool:
        """Whether :meth:`record` keeps the hash of ``tick`` (hashing can be skipped otherwise).

        The last tick's hash is kept too, but the recorder cannot know which tick is the
        last; a game that skips hashing should pass a hash on its final tick.
        """
        return tick % self._empty.hash_every == 0

    def record(self, tick: int, snapshot: InputSnapshot, state_hash: str | None) -> None:
        """Append one tick.

        Args:
            tick: The tick's number; must be exactly the number of ticks recorded so far.
            snapshot: The input the tick ran with.
            state_hash: The game's state hash after the tick, or ``None`` if it was not
                computed this tick (allowed only where :meth:`wants_hash` is false).

        Raises:
            ValueError: ``tick`` is out of order, the snapshot uses another action map,
                the hash is not lowercase hex, or it is missing where one is wanted.
        """
        expected = len(self._inputs)
        if tick != expected:
            raise ValueError(
                f"ticks must be recorded in order from 0 without gaps: expected tick "
                f"{expected}, got {tick}"
            )
        if snapshot.action_map != self.action_map:
            raise ValueError(
                f"snapshot uses actions {snapshot.action_map.actions}, the recording "
                f"{self.action_map.actions}"
            )
        if state_hash is not None:
            _check_hex(state_hash, f"state hash of tick {tick}")
        elif self.wants_hash(tick):
            raise ValueError(_missing_hash(tick, self._empty.hash_every))
        self._inputs.append(snapshot.encode())
        self._hashes.append(state_hash if self.wants_hash(tick) else None)
        self._last_hash = state_hash

    def to_replay(self) -> Replay:
        """The recording so far as a :class:`Replay` (the last tick keeps its hash).

        Raises:
            ValueError: The last tick was recorded without a hash.
        """
        hashes = list(self._hashes)
        if hashes and self._last_hash is not None:
            hashes[-1] = self._last_hash
        return Replay(
            game_version=self._empty.game_version,
            level_id=self._empty.level_id,
            level_hash=self._empty.level_hash,
            tick_rate_hz=self._empty.tick_rate_hz,
            action_map=self._empty.action_map,
            hash_every=self._empty.hash_every,
            inputs=tuple(self._inputs),
            hashes=tuple(hashes),
        )


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _checksum(lines: Sequence[str]) -> str:
    """blake2b-128 hex of ``lines``, each followed by ``\\n``, as UTF-8."""
    digest = hashlib.blake2b(digest_size=HASH_DIGEST_BYTES)
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def hash_level_file(path: str | os.PathLike[str]) -> str:
    """The ``level-hash`` of a level file: blake2b-128 hex of its bytes.

    Same as ``b2sum -l 128 <file>``. Any edit to the level changes it, so a replay
    recorded before the edit is rejected by :func:`load_replay`.

    Raises:
        OSError: The file cannot be read.
    """
    return hashlib.blake2b(Path(path).read_bytes(), digest_size=HASH_DIGEST_BYTES).hexdigest()


def format_replay(replay: Replay) -> str:
    """The replay as file text (see the module docs), ending with the end line and ``\\n``."""
    lines = [
        f"{MAGIC} {FORMAT_VERSION}",
        f"game-version {replay.game_version}",
        f"level-id {replay.level_id}",
        f"level-hash {replay.level_hash}",
        f"tick-rate-hz {replay.tick_rate_hz}",
        f"actions {' '.join(replay.action_map.actions)}",
        f"hash-every {replay.hash_every}",
        f"ticks {replay.tick_count}",
    ]
    lines.extend(
        f"{value:x} {'-' if state_hash is None else state_hash}"
        for value, state_hash in zip(replay.inputs, replay.hashes, strict=True)
    )
    lines.append(f"end {_checksum(lines)}")
    return "\n".join(lines) + "\n"


def save_replay(replay: Replay, path: str | os.PathLike[str]) -> None:
    """Write ``replay`` to ``path`` atomically.

    See :func:`engine.storage.atomic_file.write_atomic`: readers see either the old file or the
    complete new one, never a half-written replay, even if the process is killed or the
    machine loses power mid-save, and a failed save leaves the old file untouched.

    Raises:
        ReplayError: The file cannot be written (e.g. the directory does not exist).
    """
    try:
        write_atomic(path, format_replay(replay).encode("utf-8"))
    except OSError as exc:
        raise ReplayError(path, f"cannot save: {exc.strerror or exc}") from exc


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def load_replay(
    path: str | os.PathLike[str],
    *,
    expect_level_id: str | None = None,
    expect_level_hash: str | None = None,
    expect_version: str | None = None,
    expect_action_map: ActionMap | None = None,
) -> Replay:
    """Read and check a replay file.

    Checks run in this order: the file is readable, is a replay, has a supported format
    version, is well formed and complete, has a matching checksum, and then matches
    each ``expect_*`` given. Pass the game's values so a replay of another level, of an
    edited level or of another build is rejected before it plays out differently.

    Args:
        path: The replay file.
        expect_level_id: The level the game is about to play.
        expect_level_hash: :func:`hash_level_file` of that level's file.
        expect_version: The running game's version.
        expect_action_map: The game's actions. The recorded actions must be the game's
            first actions in the same order (actions appended later decode as idle).

    Returns:
        The replay.

    Raises:
        ReplayError: The file is missing, damaged or does not match; the message names
            the file, the problem and, for a bad line, its line number.
    """
    source = os.fspath(path)
    try:
        data = read_regular_file(path, MAX_REPLAY_BYTES)
    except FileNotFoundError:
        raise ReplayError(source, "cannot read: no such file") from None
    except OSError as exc:
        raise ReplayError(source, f"cannot read: {exc.strerror or exc}") from None
    replay = parse_replay(data, source=source)
    if expect_level_id is not None and replay.level_id != expect_level_id:
        raise ReplayError(
            source, f"replay of level {replay.level_id!r}, expected level {expect_level_id!r}"
        )
    if expect_level_hash is not None and replay.level_hash != expect_level_hash:
        raise ReplayError(
            source,
            f"level {replay.level_id!r} changed since recording: recorded level hash "
            f"{replay.level_hash}, the level file now hashes to {expect_level_hash}",
        )
    if expect_version is not None and replay.game_version != expect_version:
        raise ReplayError(
            source,
            f"recorded with game version {replay.game_version!r}, this is version "
            f"{expect_version!r}",
        )
    if expect_action_map is not None:
        check_action_map(replay, expect_action_map, source=source)
    return replay


def check_action_map(replay: Replay, game_map: ActionMap, *, source: str = "<replay>") -> None:
    """Raise unless ``replay`` can be played with the game's ``game_map``.

    The recorded actions must be the first actions of ``game_map``, in order: a game that
    appended actions can still play old replays (the new actions stay idle); a game that
    renamed, removed or reordered actions cannot.

    Raises:
        ReplayError: The maps do not fit.
    """
    recorded = replay.action_map.actions
    if game_map.actions[: len(recorded)] != recorded:
        raise ReplayError(
            source,
            f"action map mismatch: recorded actions {' '.join(recorded)!r}, the game's "
            f"actions {' '.join(game_map.actions)!r} must start with them in order",
        )


def parse_replay(data: bytes, *, source: str = "<replay>") -> Replay:
    """Parse replay file bytes (what :func:`load_replay` does after reading the file).

    Args:
        data: The file's bytes.
        source: The file name used in error messages.

    Returns:
        The replay.

    Raises:
        ReplayError: ``data`` is not a complete, unedited replay of a supported version.
    """
    return _Parser(data, source).parse()


class _Parser:
    """Reads one replay, line by line, raising a one-line :class:`ReplayError` on a problem."""

    def __init__(self, data: bytes, source: str) -> None:
        self._data = data
        self._source = source
        self._lines: list[str] = []
        self._ends_with_newline = data.endswith(b"\n")

    def _fail(self, problem: str) -> ReplayError:
        return ReplayError(self._source, problem)

    def _bad_line(self, line_no: int, problem: str) -> ReplayError:
        """An error for line ``line_no``; says "truncated" if it is a cut-off last line."""
        if line_no == len(self._lines) and not self._ends_with_newline:
            return self._fail(
                f"truncated: the file ends in the middle of line {line_no} ({problem})"
            )
        return self._fail(f"line {line_no}: {problem}")

    def _truncated_in_ticks(self, ticks_read: int, tick_count: int) -> ReplayError:
        """The error for a file that ends after ``ticks_read`` tick lines, before the end line.

        A last tick line without its newline may be cut short (a hash missing digits still
        parses), so it does not count as complete.
        """
        complete = ticks_read if self._ends_with_newline or ticks_read == 0 else ticks_read - 1
        return self._fail(
            f"truncated after {complete} complete ticks (header says {tick_count} ticks; "
            "no end line)"
        )

    def parse(self) -> Replay:
        self._read_lines()
        self._read_magic()
        header = self._read_header()
        action_map = cast(ActionMap, header["actions"])
        tick_count = cast(int, header["ticks"])
        inputs, hashes = self._read_ticks(action_map, tick_count)
        self._read_end(tick_count)
        hash_every = cast(int, header["hash-every"])
        for tick, state_hash in enumerate(hashes):
            if state_hash is None and _needs_hash(tick, tick_count, hash_every):
                raise self._fail(
                    f"line {_FIRST_TICK_LINE + tick}: {_missing_hash(tick, hash_every)}"
                )
        try:
            return Replay(
                game_version=cast(str, header["game-version"]),
                level_id=cast(str, header["level-id"]),
                level_hash=cast(str, header["level-hash"]),
                tick_rate_hz=cast(Fraction, header["tick-rate-hz"]),
                action_map=action_map,
                hash_every=cast(int, header["hash-every"]),
                inputs=tuple(inputs),
                hashes=tuple(hashes),
            )
        except ValueError as exc:  # every field was checked above; kept as a safety net
            raise self._fail(str(exc)) from None

    def _read_lines(self) -> None:
        data = self._data
        expected_start = f"{MAGIC} {FORMAT_VERSION}"
        if not data:
            raise self._fail(f"empty file, expected a replay starting with {expected_start!r}")
        magic = MAGIC.encode("ascii")
        if not data.startswith(magic):
            if magic.startswith(data):
                raise self._fail("truncated: the file ends in the middle of line 1")
            first = data.split(b"\n", 1)[0][:_MAX_SHOWN_CHARS]
            raise self._fail(
                f"not a replay file: it starts with {first!r}, expected {expected_start!r}"
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line_no = data.count(b"\n", 0, exc.start) + 1
            if exc.end == len(data) and exc.reason == "unexpected end of data":
                raise self._fail(
                    f"truncated: the file ends in the middle of a character in line {line_no}"
                ) from None
            raise self._fail(f"line {line_no}: not UTF-8 text (byte {exc.start})") from None
        raw = text.split("\n")
        if self._ends_with_newline:
            raw.pop()
        self._lines = [line.removesuffix("\r") for line in raw]

    def _read_magic(self) -> None:
        line = self._lines[0]
        supported = ", ".join(str(version) for version in SUPPORTED_VERSIONS)
        word, _, version = line.partition(" ")
        if word != MAGIC:
            raise self._fail(
                f"not a replay file: line 1 is {_shown(line)}, expected '{MAGIC} {FORMAT_VERSION}'"
            )
        if not _COUNT.fullmatch(version):
            if version.isdecimal() and version.isascii():  # a version number of many digits
                raise self._fail(
                    f"unsupported format version {_shown(version)[1:-1]}; this build reads "
                    f"version {supported}"
                )
            raise self._bad_line(
                1, f"expected '{MAGIC} <version>' with version {supported}, got {_shown(line)}"
            )
        if int(version) not in SUPPORTED_VERSIONS:
            raise self._fail(
                f"unsupported format version {version}; this build reads version {supported}"
            )

    def _read_header(self) -> dict[str, object]:
        header: dict[str, object] = {}
        for index, key in enumerate(_HEADER_KEYS):
            line_no = index + 2
            if line_no > len(self._lines):
                raise self._fail(
                    f"truncated in the header: the file ends before line {line_no} ('{key} ...')"
                )
            line = self._lines[line_no - 1]
            found_key, space, value = line.partition(" ")
            if found_key != key or not space:
                raise self._bad_line(
                    line_no,
                    f"malformed header line: expected '{key} <value>', got {_shown(line)}",
                )
            try:
                header[key] = _parse_header_value(key, value)
            except ValueError as exc:
                raise self._bad_line(line_no, f"malformed header line: {key}: {exc}") from None
        return header

    def _read_ticks(
        self, action_map: ActionMap, tick_count: int
    ) -> tuple[list[int], list[str | None]]:
        inputs: list[int] = []
        hashes: list[str | None] = []
        reserved = _reserved_bits(len(action_map))
        lines = self._lines
        for tick in range(tick_count):
            line_no = _FIRST_TICK_LINE + tick
            if line_no > len(lines):
                raise self._truncated_in_ticks(tick, tick_count)
            line = lines[line_no - 1]
            if line == "end" or line.startswith("end "):
                raise self._fail(
                    f"tick count mismatch: end line at line {line_no} after {tick} ticks, "
                    f"header says {tick_count} ticks"
                )
            try:
                value, state_hash = _parse_tick_line(line, action_map, reserved)
            except ValueError as exc:
                raise self._bad_line(line_no, f"malformed tick line (tick {tick}): {exc}") from None
            inputs.append(value)
            hashes.append(state_hash)
        return inputs, hashes

    def _read_end(self, tick_count: int) -> None:
        lines = self._lines
        line_no = _FIRST_TICK_LINE + tick_count
        if line_no > len(lines):
            raise self._truncated_in_ticks(tick_count, tick_count)
        line = lines[line_no - 1]
        word, _, checksum = line.partition(" ")
        if word != "end":
            if re.fullmatch(r"[0-9a-f]+ ([0-9a-f]+|-)", line):
                raise self._fail(
                    f"tick count mismatch: more tick lines than the header's {tick_count} "
                    f"ticks (line {line_no} should be the end line)"
                )
            raise self._bad_line(line_no, f"expected 'end <checksum>', got {_shown(line)}")
        if not _HEX.fullmatch(checksum) or len(checksum) != 2 * HASH_DIGEST_BYTES:
            raise self._bad_line(
                line_no,
                f"malformed end line: expected 'end' and {2 * HASH_DIGEST_BYTES} hex digits, "
                f"got {_shown(line)}",
            )
        for extra_no in range(line_no + 1, len(lines) + 1):
            if lines[extra_no - 1].strip():
                raise self._fail(
                    f"line {extra_no}: unexpected text after the end line (line {line_no})"
                )
        actual = _checksum(lines[: line_no - 1])
        if actual != checksum:
            raise self._fail(
                f"checksum mismatch: the file was edited or damaged (end line says "
                f"{checksum}, the lines above hash to {actual})"
            )


def _parse_tick_line(line: str, action_map: ActionMap, reserved: int) -> tuple[int, str | None]:
    """Parse ``<input hex> <state hash or ->``; raise ``ValueError`` saying what was expected."""
    parts = line.split(" ")
    if len(parts) != 2 or not _HEX.fullmatch(parts[0]):
        raise ValueError(f"expected '<input hex> <state hash or ->', got {_shown(line)}")
    input_hex, state_hash = parts
    if len(input_hex) > max(1, len(action_map)):
        raise ValueError(
            f"input {_shown(input_hex)} has more hex digits than the {len(action_map)} "
            "recorded actions"
        )
    if state_hash != "-":
        _check_hex(state_hash, "state hash ('-' for none)")
    value = int(input_hex, 16)
    problem = _input_problem(value, action_map, reserved)
    if problem:
        raise ValueError(problem)
    return value, None if state_hash == "-" else state_hash


def _parse_header_value(key: str, value: str) -> object:
    """Parse one header value; raise ``ValueError`` saying what was expected."""
    if key in ("game-version", "level-id"):
        return _check_label(value, "value")
    if key == "level-hash":
        return _check_hex(value, "value", LEVEL_HASH_DIGITS)
    if key == "tick-rate-hz":
        if not _RATE.fullmatch(value):
            raise ValueError(
                "expected a positive integer or fraction like 2997/50 (at most 12 digits "
                f"each), got {_shown(value)}"
            )
        return Fraction(value)
    if key == "actions":
        names = value.split(" ")
        if "" in names:
            raise ValueError(f"expected names separated by single spaces, got {_shown(value)}")
        return _check_action_map(ActionMap(tuple(names)))
    if key in ("hash-every", "ticks"):
        if not _COUNT.fullmatch(value):
            raise ValueError(f"expected a whole number of at most 12 digits, got {_shown(value)}")
        count = int(value)
        if key == "hash-every":
            _check_count(count, "hash-every", 1, MAX_HASH_EVERY)
        return count
    raise AssertionError(f"unknown header key {key}")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Playback
# ---------------------------------------------------------------------------------------------


class ReplayVerifier:
    """Plays a replay back and checks the game's state against the recorded hashes.

    Usage in the game loop::

        verifier = ReplayVerifier(load_replay(path, ...), source=path)
        player = verifier.player()
        while not player.finished:
            tick = player.position
            game.step(player.sample())
            verifier.check(tick, game.world.state_hash())

    Args:
        replay: The replay to verify against.
        source: The file name used in a mismatch message.
    """

    def __init__(self, replay: Replay, *, source: str | os.PathLike[str] = "<replay>") -> None:
        self._replay = replay
        self._source = os.fspath(source)
        self._last_match_tick: int | None = None

    @property
    def replay(self) -> Replay:
        """The replay being verified."""
        return self._replay

    @property
    def last_match_tick(self) -> int | None:
        """The latest tick whose hash was checked and matched, or ``None``."""
        return self._last_match_tick

    def player(self, action_map: ActionMap | None = None) -> InputPlayer:
        """An :class:`~engine.input.snapshot.InputPlayer` over the recorded inputs.

        Args:
            action_map: The game's map, if it has appended actions since recording
                (snapshots then use the game's map; the new actions stay idle).
                Defaults to the recorded map.

        Raises:
            ReplayError: ``action_map`` does not start with the recorded actions.
        """
        if action_map is None:
            action_map = self._replay.action_map
        else:
            check_action_map(self._replay, action_map, source=self._source)
        return InputPlayer(action_map, self._replay.inputs)

    def check(self, tick: int, state_hash: str) -> None:
        """Compare the state hash after ``tick`` with the recording.

        Call it every tick, in order, so the first mismatch found is the first one that
        exists. Ticks without a recorded hash pass unchecked.

        Args:
            tick: The tick that just ran (0-based).
            state_hash: The game's state hash after it.

        Raises:
            ReplayMismatch: The hashes differ; names the tick and both hashes.
            ValueError: ``tick`` is not a recorded tick.
        """
        if not 0 <= tick < self._replay.tick_count:
            raise ValueError(
                f"tick {tick} is outside the replay's 0..{self._replay.tick_count - 1}"
            )
        recorded = self._replay.hashes[tick]
        if recorded is None:
            return
        if recorded != state_hash:
            raise ReplayMismatch(
                self._source,
                tick=tick,
                recorded_hash=recorded,
                actual_hash=state_hash,
                last_match_tick=self._last_match_tick,
            )
        self._last_match_tick = tick
