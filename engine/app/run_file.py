"""Run files: a finished speedrun, exported with everything needed to check it.

A run file is JSON (``"format": "platformer-run"``, ``"version": 3``) holding what the runner
saw (splits, IGT, RTA, timing mode, vsync verdict, dropped time, game version) and the proof:

* **the settings that change the simulation**: the exact tick rate and every value of the game's
  own sections (the sample's ``[player]``) and ``[physics]``, with a hash of them
  (:class:`RunSettings`). A run is verified under the settings it was played with, and only
  under those: one made with a faster ``run_speed_px_s`` is another game, so verifying it
  with other settings names the section that differs;
* **every attempt of the run, in a sealed chain**: each attempt (a level played from its start
  to completion, or to a restart) carries its input replay (:mod:`engine.input.replay` text)
  whose per-tick state hashes are **sealed**: each is the game's state hash keyed by a seed
  (:func:`seal_hash`). The first attempt's seed is a digest of every claim of the file
  (:func:`claims_seed`: the run id, the settings, the game version, timing mode, vsync verdict,
  dropped time, IGT, RTA and every split); each later attempt's seed follows from the seed and
  the sealed final hash of the attempt before it (its ``previous_hash``, :func:`next_seed`).

What verification re-computes and what it can only take from the file
(:func:`verify_run`, behind ``python -m <game> --verify-run FILE``). It replays every attempt
on the game's pure simulation (its definition's ``load_world``, no window: a whole run checks
in about a second) and

* **re-computes** from the inputs: every tick's state, so the IGT (ticks × tick period,
  exactly), each split's ticks and the level it completes, which attempts completed their
  level, and the effect of the settings (the run must play under the verifier's own);
* **checks against the chain** what it cannot re-compute, the **claims**: RTA, vsync, the game
  version, the timing mode and the time the hitch guard dropped. They are not proven true (the
  file was made on the runner's machine), but they are bound to the run: editing one changes
  the seed of every sealed hash, so the file no longer matches its own replays. Deleting,
  reordering or splicing an attempt breaks every sealed hash after it in the same way.

So an edit is never enough: a forgery means re-simulating every later attempt with a tool of
one's own (the game and its format are public; the file carries no secret) and the inputs
must still play the claimed times on the real levels. What an offline file cannot prove: that
the run was played in one sitting, at the claimed real time, by a person. Validity (a run that
counts) is re-derived from the checked values, never read from a flag: strict timing and no
dropped time (:attr:`Verification.valid`).

Every field is checked when the file is read (:func:`load_run`): types (``"version": true``
or ``3.0`` is not the version 3), ranges (times within :data:`MAX_RUN_S`), hash formats, text
lengths, and the file itself (a regular file of at most :data:`MAX_RUN_FILE_BYTES`). Version
2 files (before the claims were sealed) are refused with a line saying so.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from engine.config import (
    Config,
    ConfigError,
    InputConfig,
    PhysicsConfig,
    game_action_names,
    section_from_mapping,
    section_hash,
    section_to_mapping,
)
from engine.config.schema import shown_text
from engine.config.sections import TIMING_MODES
from engine.input.replay import (
    MAX_REPLAY_BYTES,
    Replay,
    ReplayError,
    ReplayVerifier,
    format_replay,
    hash_level_file,
    parse_replay,
)
from engine.input.snapshot import ActionMap
from engine.levels import LevelError, load_level
from engine.speedrun.timer import format_igt, format_time_ms
from engine.storage.atomic_file import write_atomic
from engine.storage.bounded_read import read_regular_file
from engine.timing import TickRate
from engine.timing.clock import NS_PER_S

if TYPE_CHECKING:
    from engine.app.definition import GameDefinition, World, WorldFactory

__all__ = [
    "MAX_RUN_FILE_BYTES",
    "MAX_RUN_S",
    "RUN_FORMAT",
    "RUN_VERSION",
    "AttemptRecord",
    "LoadedRun",
    "RunFileError",
    "RunRecord",
    "RunSettings",
    "SplitRecord",
    "Verification",
    "attempt_seeds",
    "claims_seed",
    "load_run",
    "next_seed",
    "read_run",
    "run_json",
    "save_run",
    "seal_hash",
    "sealed_run",
    "verify_run",
]

GAME_ACTIONS = ActionMap(game_action_names(InputConfig()))
"""The game's actions, as the engine builds them from ``[input]``."""

RUN_FORMAT = "platformer-run"
RUN_VERSION = 3
OUTCOMES = ("complete", "restart")
VSYNC_VERDICTS = ("on", "off", "unknown")

MAX_RUN_S = 7 * 24 * 3600
"""The longest run a file may claim: a week (IGT, RTA and dropped time)."""

MAX_RUN_FILE_BYTES = MAX_REPLAY_BYTES
"""The largest run file read (256 MiB: about 30 hours of play at 60 Hz)."""

MAX_TEXT_CHARS = 256
"""Longest text field (game version, level and split names, time texts)."""

MAX_SPLITS = 1_000
MAX_ATTEMPTS = 100_000

HASH_DIGITS = 32
"""Run ids, settings hashes and state hashes are blake2b-128 digests: 32 hex digits."""

_HASH = re.compile("[0-9a-f]{" + str(HASH_DIGITS) + "}")
_RATE = re.compile(r"[1-9][0-9]{0,11}(/[1-9][0-9]{0,11})?")

_Section = TypeVar("_Section")


class RunFileError(Exception):
    """A run file that cannot be read: one line naming the file and the problem."""

    def __init__(self, source: Path | str, problem: str) -> None:
        super().__init__(f"{shown_text(str(source), 4096)}: {' '.join(problem.splitlines())}")


# ---------------------------------------------------------------------------------------------
# The records
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunSettings:
    """The settings that change the simulation: the tick rate, the game's sections, ``[physics]``.

    The game's sections are the ones its definition names (``config_sections``: the sample's
    ``[player]``); a run file and a replay record each of them, and a world is built from them
    (``settings.section("player", PlayerTuning)``).

    Attributes:
        tick_rate_hz: The exact tick rate as text (``"60"``, ``"2997/50"``).
        sections: The game's own sections, ``(name, values)`` in the definition's order.
        physics: The physics world's settings.
    """

    tick_rate_hz: str
    sections: tuple[tuple[str, Any], ...]
    physics: PhysicsConfig

    @classmethod
    def from_config(cls, config: Config, game_sections: Mapping[str, type]) -> RunSettings:
        """The settings a configuration plays with (a section it lacks at its defaults)."""
        sections = []
        for name, kind in game_sections.items():
            value = config.extra.get(name)
            sections.append((name, value if isinstance(value, kind) else kind()))
        return cls(
            str(TickRate.from_hz(config.timing.tick_rate_hz).rate_hz),
            tuple(sections),
            config.physics,
        )

    @classmethod
    def defaults(cls, game_sections: Mapping[str, type]) -> RunSettings:
        """The default settings (what a leaderboard verifies with)."""
        return cls(
            "60", tuple((name, kind()) for name, kind in game_sections.items()), PhysicsConfig()
        )

    @property
    def tick_rate(self) -> TickRate:
        """The tick rate."""
        return TickRate.from_hz(self.tick_rate_hz)

    def section(self, name: str, kind: type[_Section]) -> _Section:
        """The game's section ``name``, which must be a ``kind``.

        Raises:
            KeyError: The game has no such section (its definition does not name it).
        """
        for key, value in self.sections:
            if key == name and isinstance(value, kind):
                return value
        raise KeyError(f"the settings have no [{name}] section of type {kind.__name__}")

    def with_section(self, name: str, value: object) -> RunSettings:
        """These settings with the game's section ``name`` replaced by ``value``.

        Raises:
            KeyError: The game has no such section.
        """
        if name not in dict(self.sections):
            raise KeyError(f"the settings have no [{name}] section")
        sections = tuple((key, value if key == name else old) for key, old in self.sections)
        return RunSettings(self.tick_rate_hz, sections, self.physics)

    def _all_sections(self) -> tuple[tuple[str, Any], ...]:
        return (*self.sections, ("physics", self.physics))

    def values(self) -> dict[str, Any]:
        """Every value, as the run file stores them (without the hash)."""
        return {
            "tick_rate_hz": self.tick_rate_hz,
            **{name: section_to_mapping(value) for name, value in self._all_sections()},
        }

    @property
    def hash(self) -> str:
        """blake2b-128 of the values as canonical JSON (sorted keys, no spaces)."""
        text = json.dumps(self.values(), sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def section_hashes(self) -> dict[str, str]:
        """Each section's :func:`~engine.config.section_hash`: what replays record.

        The tick rate is not among them: a replay records it in its own header line.
        """
        return {name: section_hash(value) for name, value in sorted(self._all_sections())}

    def same_simulation_as_defaults(self) -> bool:
        """Whether every section is at its defaults (the tick rate aside)."""
        return all(value == type(value)() for _, value in self._all_sections())

    def difference(self, other: RunSettings) -> str:
        """How ``self`` (the run's) differs from ``other`` (the verifier's); empty if equal."""
        if self.tick_rate != other.tick_rate:
            return (
                f"the run ticked at {self.tick_rate}, this game ticks at {other.tick_rate} "
                f"(set timing.tick_rate_hz = {self.tick_rate_hz} to verify it)"
            )
        theirs_by_name = dict(other._all_sections())
        for name, value in self._all_sections():
            mine = section_to_mapping(value)
            theirs = section_to_mapping(theirs_by_name[name]) if name in theirs_by_name else {}
            keys = [key for key in mine if mine[key] != theirs.get(key)]
            if keys:
                shown = ", ".join(
                    f"{key} = {mine[key]!r} (here {theirs.get(key)!r})" for key in keys[:3]
                )
                more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
                return (
                    f"the run was played with other [{name}] settings: {shown}{more}; verify it "
                    f"with the same [{name}] values (--config or --set {name}.KEY=VALUE)"
                )
        return ""


@dataclass(frozen=True, slots=True)
class SplitRecord:
    """One split: the level, its segment and the cumulative IGT at its exit."""

    level: str
    name: str
    segment_ticks: int
    igt_ticks: int
    igt: str
    rta_ms: int


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One attempt: the level file name, how it ended, its place in the chain, its replay.

    The replay stays text until verification parses it, so a damaged replay inside a run file
    is a failed verification (naming the attempt), not an unreadable file.

    Attributes:
        level: The level file's name.
        outcome: ``"complete"`` or ``"restart"``.
        run_id: The id of the run it belongs to.
        previous_hash: The state hash the previous attempt ended in (empty for the first).
        replay_text: The attempt's replay file text.
    """

    level: str
    outcome: str
    run_id: str
    previous_hash: str
    replay_text: str

    @classmethod
    def of(
        cls, level: str, outcome: str, replay: Replay, run_id: str, previous_hash: str
    ) -> AttemptRecord:
        """An attempt from a recorded replay."""
        return cls(level, outcome, run_id, previous_hash, format_replay(replay))


def claims_seed(run: RunRecord) -> bytes:
    """The chain's first link: a digest of everything the file claims but cannot re-compute.

    The run id, the settings' hash, the game version, the timing mode, the vsync verdict, the
    dropped time, whether practice was used, the RTA of the run and of every split, and the
    splits and IGT as claimed. Every
    state hash of every attempt is sealed under it (:func:`seal_hash`), so editing one claim
    changes every hash of the run: the file no longer matches its own replays, and making it
    match again means re-simulating every attempt, not editing a field.
    """
    claims = {
        "format": RUN_FORMAT,
        "version": RUN_VERSION,
        "run_id": run.run_id,
        "settings": run.settings.hash,
        "game_version": run.game_version,
        "timing_mode": run.timing_mode,
        "vsync": run.vsync,
        "strict_valid": run.strict_valid,
        "hitch_dropped_ns": run.hitch_dropped_ns,
        "igt_ticks": run.igt_ticks,
        "igt": run.igt,
        "rta_ms": run.rta_ms,
        "practice": run.practice,
        "splits": [
            [s.level, s.name, s.segment_ticks, s.igt_ticks, s.igt, s.rta_ms] for s in run.splits
        ],
    }
    text = json.dumps(claims, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=16).digest()


def next_seed(seed: bytes, sealed_final: str) -> bytes:
    """The seed of the next attempt: this attempt's seed and its last sealed state hash."""
    return hashlib.blake2b(sealed_final.encode("ascii"), key=seed, digest_size=16).digest()


def seal_hash(seed: bytes, state_hash: str) -> str:
    """A state hash as a run file records it: keyed by its attempt's place in the chain."""
    return hashlib.blake2b(state_hash.encode("ascii"), key=seed, digest_size=16).hexdigest()


def attempt_seeds(run: RunRecord) -> list[bytes]:
    """The seed of each of the run's attempts, as the file's chain gives them.

    Each seed follows from the claims (:func:`claims_seed`) and the sealed final hash of every
    attempt before it (its ``previous_hash``); verification checks each attempt's hashes under
    it, so a deleted, reordered or spliced attempt breaks every hash after it.
    """
    seeds = []
    seed = claims_seed(run)
    for attempt in run.attempts:
        if attempt.previous_hash:
            seed = next_seed(seed, attempt.previous_hash)
        seeds.append(seed)
    return seeds


def sealed_run(run: RunRecord, attempts: Sequence[tuple[str, str, Replay]]) -> RunRecord:
    """``run`` with its attempts ``(level file, outcome, replay)`` chained and sealed.

    ``run`` holds the claims (its own ``attempts`` and ``final_hash`` are replaced): each
    attempt's replay is recorded with sealed state hashes (:func:`seal_hash` under its seed),
    its ``previous_hash`` is the sealed final hash of the attempt before it, and the run's
    ``final_hash`` is the last sealed hash. Attempts that ran no tick (a restart pressed before
    the level's first tick) are left out: they add no time and end in no state.
    """
    chained = []
    seed = claims_seed(run)
    previous = ""
    for level, outcome, replay in attempts:
        if not replay.tick_count or replay.hashes[-1] is None:
            continue
        if previous:
            seed = next_seed(seed, previous)
        hashes = tuple(None if h is None else seal_hash(seed, h) for h in replay.hashes)
        sealed = dataclasses.replace(replay, hashes=hashes)
        chained.append(AttemptRecord.of(level, outcome, sealed, run.run_id, previous))
        previous = hashes[-1] or ""
    return dataclasses.replace(run, attempts=tuple(chained), final_hash=previous)


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A finished run (see the module docstring for what each part proves)."""

    game_version: str
    run_id: str
    settings: RunSettings
    timing_mode: str
    vsync: str
    strict_valid: bool
    hitch_dropped_ns: int
    igt_ticks: int
    igt: str
    rta_ms: int
    final_hash: str
    splits: tuple[SplitRecord, ...]
    attempts: tuple[AttemptRecord, ...]
    practice: bool = False
    """Practice was used (savestates, freezing, slow motion: :mod:`engine.app.practice`).
    Written as ``"practice": true`` only then, so files without it (every file before it)
    read as they did; such a run is never verified."""

    def to_json(self) -> dict[str, Any]:
        """The JSON object written to the file."""
        data = self._json()
        if self.practice:
            data["practice"] = True
        return data

    def _json(self) -> dict[str, Any]:
        return {
            "format": RUN_FORMAT,
            "version": RUN_VERSION,
            "game_version": self.game_version,
            "run_id": self.run_id,
            "settings": {"hash": self.settings.hash, **self.settings.values()},
            "timing_mode": self.timing_mode,
            "vsync": self.vsync,
            "strict_valid": self.strict_valid,
            "hitch_dropped_ns": self.hitch_dropped_ns,
            "igt_ticks": self.igt_ticks,
            "igt": self.igt,
            "rta_ms": self.rta_ms,
            "rta": format_time_ms(self.rta_ms),
            "final_hash": self.final_hash,
            "splits": [
                {
                    "level": s.level,
                    "name": s.name,
                    "segment_ticks": s.segment_ticks,
                    "igt_ticks": s.igt_ticks,
                    "igt": s.igt,
                    "rta_ms": s.rta_ms,
                }
                for s in self.splits
            ],
            "attempts": [
                {
                    "level": a.level,
                    "outcome": a.outcome,
                    "run_id": a.run_id,
                    "previous_hash": a.previous_hash,
                    "replay": a.replay_text,
                }
                for a in self.attempts
            ],
        }


def run_json(run: RunRecord) -> bytes:
    """The run file's bytes."""
    return (json.dumps(run.to_json(), indent=1) + "\n").encode("utf-8")


def save_run(run: RunRecord, path: Path) -> None:
    """Write ``run`` atomically, creating the directory.

    Raises:
        OSError: The file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, run_json(run))


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def _shown(value: object) -> str:
    """A value from the file for a message: its JSON text, escaped and shortened."""
    try:
        text = json.dumps(value) if not isinstance(value, str) else json.dumps(value[:200])
    except (ValueError, RecursionError):
        text = type(value).__name__
    return shown_text(text)


def _type_name(kind: type) -> str:
    return {bool: "true or false", int: "an integer", str: "a string", list: "a list"}.get(
        kind, "an object"
    )


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    """``data[key]``, which must be a ``kind`` (``True`` is never an integer here)."""
    if key not in data:
        raise ValueError(f"{where}{key} is missing")
    value = data[key]
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise ValueError(f"{where}{key} must be {_type_name(kind)}, got {_shown(value)}")
    return value


def _count(data: dict[str, Any], key: str, where: str, maximum: int) -> int:
    """An integer field in ``0..maximum``."""
    value: int = _field(data, key, int, where)
    if not 0 <= value <= maximum:
        raise ValueError(f"{where}{key} must be in 0..{maximum}, got {_shown(value)}")
    return value


def _text(data: dict[str, Any], key: str, where: str) -> str:
    """A printable, non-empty text field of at most :data:`MAX_TEXT_CHARS` characters."""
    value: str = _field(data, key, str, where)
    if not value or len(value) > MAX_TEXT_CHARS or not value.isprintable():
        raise ValueError(
            f"{where}{key} must be printable text of 1 to {MAX_TEXT_CHARS} characters, "
            f"got {_shown(value)}"
        )
    return value


def _choice(data: dict[str, Any], key: str, where: str, choices: Sequence[str]) -> str:
    value: str = _field(data, key, str, where)
    if value not in choices:
        raise ValueError(f"{where}{key} must be one of {', '.join(choices)}, got {_shown(value)}")
    return value


def _hash(data: dict[str, Any], key: str, where: str, *, empty_ok: bool = False) -> str:
    value: str = _field(data, key, str, where)
    if not (_HASH.fullmatch(value) or (empty_ok and value == "")):
        raise ValueError(
            f"{where}{key} must be {HASH_DIGITS} lowercase hex digits, got {_shown(value)}"
        )
    return value


def _level_name(raw: dict[str, Any], where: str) -> str:
    """A level file name: a plain, printable file name (it is looked up in ``levels/``)."""
    name = _text(raw, "level", where)
    if Path(name).name != name or name in (".", ".."):
        raise ValueError(f"{where}level {_shown(name)} is not a level file name")
    return name


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be an object, got {_shown(value)}")
    return value


def _list(data: dict[str, Any], key: str, maximum: int) -> list[Any]:
    value: list[Any] = _field(data, key, list, "")
    if len(value) > maximum:
        raise ValueError(f"{key} has {len(value)} entries, at most {maximum} are allowed")
    return value


def _settings(
    data: dict[str, Any], source: str, game_sections: Mapping[str, type]
) -> tuple[RunSettings, str]:
    """The recorded settings and the hash the file gives them."""
    raw = _field(data, "settings", dict, "")
    claimed_hash = _hash(raw, "hash", "settings.")
    rate_text: str = _field(raw, "tick_rate_hz", str, "settings.")
    exact = Fraction(rate_text) if _RATE.fullmatch(rate_text) else Fraction(0)
    if not 1 <= exact <= 1000 or exact.denominator > 1_000_000:
        raise ValueError(
            'settings.tick_rate_hz must be an exact rate in 1..1000 Hz like "60" or '
            f'"2997/50", got {_shown(rate_text)}'
        )
    sections: list[tuple[str, Any]] = []
    try:
        for name, kind in game_sections.items():
            values = _field(raw, name, dict, "settings.")
            sections.append((name, section_from_mapping(name, kind, values, source)))
        physics_values = _field(raw, "physics", dict, "settings.")
        physics = section_from_mapping("physics", PhysicsConfig, physics_values, source)
    except ConfigError as exc:
        raise ValueError(f"settings: {exc.detail}") from None
    known = {"hash", "tick_rate_hz", "physics", *game_sections}
    unknown = sorted(key for key in raw if key not in known)
    if unknown:
        raise ValueError(
            f"settings.{shown_text(unknown[0], 64)} is not a section of this game (it has "
            f"{', '.join(f'[{name}]' for name in (*game_sections, 'physics'))})"
        )
    return RunSettings(rate_text, tuple(sections), physics), claimed_hash


@dataclass(frozen=True, slots=True)
class LoadedRun:
    """A run file as read: the record, and what the file claims that verification checks."""

    run: RunRecord
    settings_hash: str
    rta_text: str


def load_run(path: Path, game_sections: Mapping[str, type]) -> RunRecord:
    """Read a run file (see :func:`read_run` for what is checked)."""
    return read_run(path, game_sections).run


def read_run(path: Path, game_sections: Mapping[str, type]) -> LoadedRun:
    """Read a run file, checking the type and range of every field.

    Args:
        path: The file.
        game_sections: The game's own config sections (its definition's ``config_sections``):
            the settings must hold exactly these and ``[physics]``.

    Raises:
        RunFileError: Unreadable or not a regular file, too large, not JSON, not a run file,
            another version, or a field missing, of the wrong type or out of range.
    """
    try:
        data = json.loads(read_regular_file(path, MAX_RUN_FILE_BYTES))
    except OSError as exc:
        raise RunFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, absurd nesting or digits
        message = str(exc).split("; use sys.set_int_max_str_digits")[0]
        raise RunFileError(path, f"not a run file (bad JSON: {shown_text(message, 120)})") from exc
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        raise RunFileError(path, f'not a run file (no "format": "{RUN_FORMAT}")')
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version != RUN_VERSION:
        older = {
            1: " (version 1 files predate chained attempts and recorded settings)",
            2: " (version 2 files predate sealed claims: their times could be edited unseen)",
        }
        raise RunFileError(
            path,
            f"run file version {_shown(version)} is not supported (this game reads "
            f"{RUN_VERSION}){older.get(version, '') if type(version) is int else ''}",
        )
    try:
        return _read_fields(data, str(path), game_sections)
    except ValueError as exc:
        raise RunFileError(path, str(exc)) from exc


def _read_fields(data: dict[str, Any], source: str, game_sections: Mapping[str, type]) -> LoadedRun:
    settings, settings_hash = _settings(data, source, game_sections)
    rate = settings.tick_rate
    max_ticks = MAX_RUN_S * rate.rate_hz.numerator // rate.rate_hz.denominator
    max_ms = MAX_RUN_S * 1000
    splits = []
    for i, raw in enumerate(_list(data, "splits", MAX_SPLITS)):
        where = f"splits[{i}]."
        item = _object(raw, f"splits[{i}]")
        splits.append(
            SplitRecord(
                _level_name(item, where),
                _text(item, "name", where),
                _count(item, "segment_ticks", where, max_ticks),
                _count(item, "igt_ticks", where, max_ticks),
                _text(item, "igt", where),
                _count(item, "rta_ms", where, max_ms),
            )
        )
    attempts = []
    for i, raw in enumerate(_list(data, "attempts", MAX_ATTEMPTS)):
        where = f"attempts[{i}]."
        item = _object(raw, f"attempts[{i}]")
        attempts.append(
            AttemptRecord(
                _level_name(item, where),
                _choice(item, "outcome", where, OUTCOMES),
                _hash(item, "run_id", where),
                _hash(item, "previous_hash", where, empty_ok=True),
                _field(item, "replay", str, where),
            )
        )
    if not attempts:
        raise ValueError("attempts is empty")
    run = RunRecord(
        game_version=_text(data, "game_version", ""),
        run_id=_hash(data, "run_id", ""),
        settings=settings,
        timing_mode=_choice(data, "timing_mode", "", TIMING_MODES),
        vsync=_choice(data, "vsync", "", VSYNC_VERDICTS),
        strict_valid=_field(data, "strict_valid", bool, ""),
        hitch_dropped_ns=_count(data, "hitch_dropped_ns", "", MAX_RUN_S * NS_PER_S),
        igt_ticks=_count(data, "igt_ticks", "", max_ticks),
        igt=_text(data, "igt", ""),
        rta_ms=_count(data, "rta_ms", "", max_ms),
        final_hash=_hash(data, "final_hash", ""),
        splits=tuple(splits),
        attempts=tuple(attempts),
        practice=_field(data, "practice", bool, "") if "practice" in data else False,
    )
    return LoadedRun(run, settings_hash, _text(data, "rta", ""))


# ---------------------------------------------------------------------------------------------
# Verifying
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verification:
    """The result of :func:`verify_run`.

    Attributes:
        verified: Everything matched: the replays produce exactly what the file claims.
        problem: The first mismatch (empty when verified).
        ticks: Level ticks the replays ran (the recomputed IGT in ticks).
        igt: The recomputed in-game time, ``m:ss.mmm``.
        levels: Levels completed.
        invalid: Why a verified run does not count (empty when it does): the hitch guard
            dropped time during it.
        claimed: What the file claims and verification cannot re-compute (RTA, vsync, the
            game version, the timing mode, the dropped time): bound to the run by the sealed
            chain, not proven (see the module docstring).
    """

    verified: bool
    problem: str
    ticks: int
    igt: str
    levels: int
    invalid: str = ""
    claimed: tuple[tuple[str, Any], ...] = ()

    @property
    def valid(self) -> bool:
        """Verified, and a run that counts."""
        return self.verified and not self.invalid

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` output of ``--verify-run``."""
        result: dict[str, Any] = {
            "verified": self.verified,
            "valid": self.valid,
            "igt": self.igt,
            "ticks": self.ticks,
            "levels": self.levels,
            "recomputed": {"igt": self.igt, "ticks": self.ticks, "levels": self.levels},
            "claimed": dict(self.claimed),
        }
        if self.problem:
            result["problem"] = self.problem
        if self.invalid:
            result["invalid"] = self.invalid
        return result


class _MismatchError(Exception):
    """The first way a run differs from its replays (becomes ``Verification.problem``)."""


def _play_attempt(
    attempt: AttemptRecord,
    index: int,
    levels_dir: Path,
    settings: RunSettings,
    load_world: WorldFactory,
    seed: bytes,
) -> World:
    """Replay one attempt on the pure simulation, checking every hash; return the world."""
    where = f"attempt {index + 1} ({attempt.level!r})"
    level_path = levels_dir / attempt.level
    if Path(attempt.level).name != attempt.level or not level_path.is_file():
        raise _MismatchError(f"{where}: no such level in {levels_dir}")
    try:
        data = attempt.replay_text.encode("utf-8", "surrogatepass")  # bad text fails the parse
        replay = parse_replay(data, source=where)
    except ReplayError as exc:
        raise _MismatchError(str(exc)) from exc
    if replay.level_id != attempt.level:
        raise _MismatchError(f"{where}: its replay was recorded on {replay.level_id}")
    if replay.level_hash != hash_level_file(level_path):
        raise _MismatchError(f"{where}: recorded on another version of the level file")
    rate = settings.tick_rate
    if TickRate.from_hz(replay.tick_rate_hz) != rate:
        raise _MismatchError(f"{where}: recorded at another tick rate ({replay.tick_rate_hz})")
    if replay.tick_count == 0:
        raise _MismatchError(f"{where}: the attempt has no ticks")
    world = load_world(level_path, settings)
    verifier = ReplayVerifier(replay, source=where, settings_hashes=settings.section_hashes())
    try:
        player = verifier.player(GAME_ACTIONS)  # the recorded actions must be the game's
        while not player.finished:
            if world.completed:
                raise _MismatchError(
                    f"{where}: the level was completed before tick {player.position}"
                )
            tick = player.position
            world.tick(player.sample())
            sealed = seal_hash(seed, world.state_hash())
            if tick == 0 and replay.hashes[0] != sealed:
                raise _MismatchError(
                    f"{where}: its hashes are not sealed under this run's chain: the file's "
                    "claims (times, settings, vsync, version, dropped time) were edited, or "
                    "attempts were deleted, reordered or spliced before it"
                )
            verifier.check(tick, sealed)
    except ReplayError as exc:
        raise _MismatchError(str(exc)) from exc
    if attempt.outcome == "complete" and not world.completed:
        raise _MismatchError(f"{where}: the inputs end without reaching the exit")
    if attempt.outcome == "restart" and world.completed:
        raise _MismatchError(f"{where}: marked as restarted but the level was completed")
    return world


def _check_chain(run: RunRecord, index: int, previous_final: str) -> None:
    """Attempt ``index`` must belong to this run and follow the attempt before it."""
    attempt = run.attempts[index]
    number = index + 1
    if attempt.run_id != run.run_id:
        raise _MismatchError(
            f"attempt {number} belongs to another run (run id {attempt.run_id[:8]}..., this run "
            f"is {run.run_id[:8]}...): attempts were spliced in from another run"
        )
    if attempt.previous_hash != previous_final:
        if index == 0:
            raise _MismatchError(
                f"attempt 1 follows an attempt that ended in {attempt.previous_hash[:8]}..., "
                "but it is the run's first: attempts before it were deleted"
            )
        raise _MismatchError(
            f"attempt {number} does not follow attempt {index}: it names the state "
            f"{attempt.previous_hash[:8]}... as its predecessor's end, attempt {index} ended "
            f"in {previous_final[:8]}... (attempts were deleted, reordered or spliced)"
        )


def verify_run(
    definition: GameDefinition,
    run: RunRecord | LoadedRun,
    levels_dir: Path,
    level_order: Sequence[str],
    *,
    settings: RunSettings | None = None,
) -> Verification:
    """Replay a run and compare everything it claims (see the module docstring).

    Args:
        definition: The game the run was played in (its world replays the attempts).
        run: The run file, as :func:`read_run` (or :func:`load_run`) read it. Only a
            :class:`LoadedRun` has the file's settings hash and RTA text to check.
        levels_dir: Where the levels named in the attempts are.
        level_order: The level file names of a full run, in order.
        settings: The verifier's tick rate, the game's sections and ``[physics]`` (default:
            the defaults, what a leaderboard verifies with). The run must have been played with
            the same, or it is another game and does not verify.

    Raises:
        LevelError: A bundled level cannot be loaded.
    """
    loaded = run if isinstance(run, LoadedRun) else None
    record = run.run if isinstance(run, LoadedRun) else run
    verifier_settings = settings if settings is not None else definition.default_settings()
    rate = record.settings.tick_rate
    if record.practice:  # never verified, whatever its replays would show
        return Verification(
            False,
            "a practice run (savestates, freezing or slow motion were used): never verified",
            record.igt_ticks,
            format_igt(rate, record.igt_ticks),
            len(record.splits),
        )
    ticks = 0
    split_ticks: list[int] = []  # cumulative ticks at each level exit
    problem = ""
    final_hash = ""
    try:
        _check_claims(record, loaded, verifier_settings)
        _check_counts(definition, record, levels_dir, level_order)
        seeds = attempt_seeds(record)
        for index, attempt in enumerate(record.attempts):
            done = len(split_ticks)
            expected = level_order[done] if done < len(level_order) else "its end"
            if attempt.level != expected:
                raise _MismatchError(
                    f"attempt {index + 1} plays {attempt.level!r}, the run is at {expected!r}"
                )
            _check_chain(record, index, final_hash)
            seed = seeds[index]
            world = _play_attempt(
                attempt, index, levels_dir, record.settings, definition.load_world, seed
            )
            ticks += world.ticks
            final_hash = seal_hash(seed, world.state_hash())
            if attempt.outcome == "complete":
                _check_split(
                    record,
                    done,
                    attempt.level,
                    world.level.name,
                    ticks,
                    ticks - (split_ticks[-1] if split_ticks else 0),
                    rate,
                )
                split_ticks.append(ticks)
        if len(split_ticks) != len(level_order):
            raise _MismatchError(
                f"the run completes {len(split_ticks)} of {len(level_order)} levels"
            )
        if len(record.splits) != len(split_ticks):
            raise _MismatchError(
                f"the file has {len(record.splits)} splits for {len(split_ticks)} levels"
            )
        igt = format_igt(rate, ticks)
        if record.igt_ticks != ticks or record.igt != igt:
            raise _MismatchError(
                f"the file claims IGT {record.igt} ({record.igt_ticks} ticks), the replays give "
                f"{igt} ({ticks} ticks)"
            )
        if record.final_hash != final_hash:
            raise _MismatchError("the final state hash differs from the replays'")
    except _MismatchError as exc:
        problem = str(exc)
    invalid = ""
    if not problem and record.hitch_dropped_ns > 0:  # re-derived, never read from strict_valid
        dropped_ms = -(-record.hitch_dropped_ns // 1_000_000)
        invalid = (
            f"the hitch guard dropped {format_time_ms(dropped_ms)} of game time during the run: "
            "its times are shown but it does not count"
        )
    claimed = (
        ("rta", format_time_ms(record.rta_ms)),
        ("vsync", record.vsync),
        ("game_version", record.game_version),
        ("timing_mode", record.timing_mode),
        ("hitch_dropped_ms", -(-record.hitch_dropped_ns // 1_000_000)),
    )
    return Verification(
        not problem,
        problem,
        ticks,
        format_igt(rate, ticks),
        len(split_ticks),
        invalid,
        claimed if not problem else (),
    )


def _check_counts(
    definition: GameDefinition, run: RunRecord, levels_dir: Path, level_order: Sequence[str]
) -> None:
    """The times and splits the file claims against its replays' tick counts, before any replay.

    A replay holds one input per tick, so the IGT and each split's ticks follow from the counts
    alone, and the links (``previous_hash``) from the recorded hashes: a deleted attempt or an
    edited time is named here ("does not follow", "the file claims IGT ..."), not only as a
    broken seal.
    Replays or levels that cannot be read are left to the full check, which names them.
    """
    rate = run.settings.tick_rate
    ticks = 0
    done = 0
    previous_final = ""
    for index, attempt in enumerate(run.attempts):
        expected = level_order[done] if done < len(level_order) else "its end"
        if attempt.level != expected:
            return  # the full check names it, in order with the chain
        _check_chain(run, index, previous_final)  # the links as the file records them
        try:
            data = attempt.replay_text.encode("utf-8", "surrogatepass")
            replay = parse_replay(data)
            count = replay.tick_count
            previous_final = replay.hashes[-1] or "" if count else ""
            if attempt.outcome != "complete":
                ticks += count
                continue
            name = load_level(
                levels_dir / Path(attempt.level).name, definition.kinds, definition.conventions
            ).name
        except (ReplayError, LevelError, OSError):
            return
        ticks += count
        previous = run.splits[done - 1].igt_ticks if 0 < done <= len(run.splits) else 0
        _check_split(run, done, attempt.level, name, ticks, ticks - previous, rate)
        done += 1
    igt = format_igt(rate, ticks)
    if run.igt_ticks != ticks or run.igt != igt:
        raise _MismatchError(
            f"the file claims IGT {run.igt} ({run.igt_ticks} ticks), the replays give "
            f"{igt} ({ticks} ticks)"
        )


def _check_claims(run: RunRecord, loaded: LoadedRun | None, verifier: RunSettings) -> None:
    """What the file says about how the run was timed, checked before replaying anything."""
    if loaded is not None and loaded.settings_hash != run.settings.hash:
        raise _MismatchError(
            "the recorded settings do not match their hash: the settings were edited"
        )
    difference = run.settings.difference(verifier)
    if difference:
        raise _MismatchError(difference)
    if run.timing_mode != "strict":
        raise _MismatchError(f"timing mode {run.timing_mode!r}: speedruns are timed in strict mode")
    if run.strict_valid != (run.hitch_dropped_ns == 0):
        raise _MismatchError(
            f"strict_valid is {str(run.strict_valid).lower()} but the hitch guard dropped "
            f"{run.hitch_dropped_ns} ns"
        )
    if loaded is not None and loaded.rta_text != format_time_ms(run.rta_ms):
        raise _MismatchError(
            f"the file shows RTA {loaded.rta_text!r}, its rta_ms {run.rta_ms} is "
            f"{format_time_ms(run.rta_ms)}"
        )
    rate = run.settings.tick_rate
    one_tick_ms = rate.tick_time_ms(1) + 1
    if run.rta_ms + one_tick_ms < rate.tick_time_ms(run.igt_ticks):
        raise _MismatchError(f"RTA {run.rta_ms} ms is shorter than the IGT it claims")
    previous_ms = 0
    for index, split in enumerate(run.splits):
        if not previous_ms <= split.rta_ms <= run.rta_ms:
            raise _MismatchError(f"split {index + 1}'s RTA is out of order")
        previous_ms = split.rta_ms


def _check_split(
    run: RunRecord, index: int, level: str, name: str, ticks: int, segment: int, rate: TickRate
) -> None:
    """Compare split ``index`` of the file with what the replays produced."""
    if index >= len(run.splits):
        raise _MismatchError(f"split {index + 1} ({level!r}) is missing")
    claimed = run.splits[index]
    if claimed.name != name:
        raise _MismatchError(f"split {index + 1} is named {claimed.name!r}, the level is {name!r}")
    igt = format_igt(rate, ticks)
    if (claimed.level, claimed.igt_ticks, claimed.segment_ticks, claimed.igt) != (
        level,
        ticks,
        segment,
        igt,
    ):
        raise _MismatchError(
            f"split {index + 1} ({claimed.level!r}) claims IGT {claimed.igt} ({claimed.igt_ticks} "
            f"ticks, segment {claimed.segment_ticks}); the replays give {igt} ({ticks} ticks, "
            f"segment {segment})"
        )
