"""Run files: a finished speedrun, exported with everything needed to check it.

A run file is JSON (``"format": "platformer-run"``, ``"version": 1``) holding what the runner
saw (splits, IGT, RTA, timing mode, vsync verdict, dropped time, game version) and the proof:
every *attempt* of the run in order (a level played from its start to completion, or to a
restart), each with its input replay and per-tick state hashes (:mod:`engine.input.replay` text).

:func:`verify_run` is the moderator's tool behind ``python -m game --verify-run FILE``. It
replays every attempt on the pure simulation (:class:`~game.world_builder.LevelWorld`, no
window, no display: a whole run checks in about a second), and confirms that

* each replay is intact (its checksum) and was recorded on the level file shipped here;
* every tick's state hash matches, so the inputs and the game produce exactly the recorded run;
* completed attempts complete on their last tick and restarted ones do not;
* the splits, the tick count, the IGT text and the final state hash in the file are what the
  replays produce: IGT is recomputed as ticks × tick period, exactly.

Edit a time and the recomputed one differs; edit an input and a hash differs at that tick;
edit the hashes too and the checksum (or the next tick) fails. The first mismatch is reported.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config import InputConfig, PhysicsConfig, game_action_names
from engine.input.replay import (
    Replay,
    ReplayError,
    ReplayVerifier,
    format_replay,
    hash_level_file,
    parse_replay,
)
from engine.input.snapshot import ActionMap
from engine.speedrun.timer import format_igt, format_time_ms
from engine.storage.atomic_file import write_atomic
from engine.timing import TickRate
from game.movement import PlayerTuning
from game.world_builder import LevelWorld

__all__ = [
    "RUN_FORMAT",
    "RUN_VERSION",
    "AttemptRecord",
    "RunFileError",
    "RunRecord",
    "SplitRecord",
    "Verification",
    "load_run",
    "save_run",
    "verify_run",
]

GAME_ACTIONS = ActionMap(game_action_names(InputConfig()))
"""The game's actions, as the engine builds them from ``[input]``."""

RUN_FORMAT = "platformer-run"
RUN_VERSION = 1
OUTCOMES = ("complete", "restart")


class RunFileError(Exception):
    """A run file that cannot be read: one line naming the file and the problem."""

    def __init__(self, source: Path | str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")


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
    """One attempt: the level file name, how it ended, and its replay's text.

    The replay stays text until verification parses it, so a damaged replay inside a run file
    is a failed verification (naming the attempt), not an unreadable file.
    """

    level: str
    outcome: str
    replay_text: str

    @classmethod
    def of(cls, level: str, outcome: str, replay: Replay) -> AttemptRecord:
        """An attempt from a recorded replay."""
        return cls(level, outcome, format_replay(replay))


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A finished run (see the module docstring for what each part proves)."""

    game_version: str
    tick_rate_hz: str
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

    def to_json(self) -> dict[str, Any]:
        """The JSON object written to the file."""
        return {
            "format": RUN_FORMAT,
            "version": RUN_VERSION,
            "game_version": self.game_version,
            "tick_rate_hz": self.tick_rate_hz,
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
                {"level": a.level, "outcome": a.outcome, "replay": a.replay_text}
                for a in self.attempts
            ],
        }


def save_run(run: RunRecord, path: Path) -> None:
    """Write ``run`` atomically, creating the directory.

    Raises:
        OSError: The file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(run.to_json(), indent=1) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def _field(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = data.get(key)
    if isinstance(value, bool) and kind is int:
        value = None
    if not isinstance(value, kind):
        raise ValueError(f"{where}{key} is missing or not a {getattr(kind, '__name__', kind)}")
    return value


def _level_name(raw: dict[str, Any], where: str) -> str:
    """A level file name: a plain, printable file name (it is looked up in ``levels/``)."""
    name: str = _field(raw, "level", str, where)
    if not name.isprintable() or Path(name).name != name or name in (".", ".."):
        raise ValueError(f"{where}level {name!r} is not a level file name")
    return name


def load_run(path: Path) -> RunRecord:
    """Read a run file.

    Raises:
        RunFileError: Unreadable, not JSON, not a run file, another version, or a field
            missing or of the wrong type.
    """
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise RunFileError(path, f"cannot read: {exc.strerror or exc}") from exc
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, absurd nesting
        raise RunFileError(path, f"not a run file (bad JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get("format") != RUN_FORMAT:
        raise RunFileError(path, f'not a run file (no "format": "{RUN_FORMAT}")')
    if data.get("version") != RUN_VERSION:
        raise RunFileError(
            path, f"run file version {data.get('version')!r} is not supported (this game reads 1)"
        )
    try:
        splits = []
        for i, raw in enumerate(_field(data, "splits", list, "")):
            where = f"splits[{i}]."
            if not isinstance(raw, dict):
                raise ValueError(f"splits[{i}] is not an object")
            splits.append(
                SplitRecord(
                    _level_name(raw, where),
                    _field(raw, "name", str, where),
                    _field(raw, "segment_ticks", int, where),
                    _field(raw, "igt_ticks", int, where),
                    _field(raw, "igt", str, where),
                    _field(raw, "rta_ms", int, where),
                )
            )
        attempts = []
        for i, raw in enumerate(_field(data, "attempts", list, "")):
            where = f"attempts[{i}]."
            if not isinstance(raw, dict):
                raise ValueError(f"attempts[{i}] is not an object")
            outcome = _field(raw, "outcome", str, where)
            if outcome not in OUTCOMES:
                raise ValueError(f"{where}outcome {outcome!r} is not one of {list(OUTCOMES)}")
            text = _field(raw, "replay", str, where)
            attempts.append(AttemptRecord(_level_name(raw, where), outcome, text))
        if not attempts:
            raise ValueError("attempts is empty")
        rate_text = _field(data, "tick_rate_hz", str, "")
        try:
            TickRate.from_hz(rate_text)
        except (ValueError, ArithmeticError, TypeError):
            raise ValueError(f"tick_rate_hz {rate_text!r} is not a tick rate") from None
        for key in ("hitch_dropped_ns", "rta_ms", "igt_ticks"):
            if _field(data, key, int, "") < 0:
                raise ValueError(f"{key} is negative")
        return RunRecord(
            _field(data, "game_version", str, ""),
            _field(data, "tick_rate_hz", str, ""),
            _field(data, "timing_mode", str, ""),
            _field(data, "vsync", str, ""),
            _field(data, "strict_valid", bool, ""),
            _field(data, "hitch_dropped_ns", int, ""),
            _field(data, "igt_ticks", int, ""),
            _field(data, "igt", str, ""),
            _field(data, "rta_ms", int, ""),
            _field(data, "final_hash", str, ""),
            tuple(splits),
            tuple(attempts),
        )
    except ValueError as exc:
        raise RunFileError(path, str(exc)) from exc


# ---------------------------------------------------------------------------------------------
# Verifying
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verification:
    """The result of :func:`verify_run`.

    Attributes:
        verified: Everything matched.
        problem: The first mismatch (empty when verified).
        ticks: Level ticks the replays ran (the recomputed IGT in ticks).
        igt: The recomputed in-game time, ``m:ss.mmm``.
        levels: Levels completed.
    """

    verified: bool
    problem: str
    ticks: int
    igt: str
    levels: int

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` output of ``--verify-run``."""
        result: dict[str, Any] = {
            "verified": self.verified,
            "igt": self.igt,
            "ticks": self.ticks,
            "levels": self.levels,
        }
        if self.problem:
            result["problem"] = self.problem
        return result


class _MismatchError(Exception):
    """The first way a run differs from its replays (becomes ``Verification.problem``)."""


def _play_attempt(
    attempt: AttemptRecord,
    index: int,
    levels_dir: Path,
    rate: TickRate,
    tuning: PlayerTuning,
    physics: PhysicsConfig,
) -> LevelWorld:
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
    if TickRate.from_hz(replay.tick_rate_hz) != rate:
        raise _MismatchError(f"{where}: recorded at another tick rate ({replay.tick_rate_hz})")
    world = LevelWorld.load(level_path, tuning, rate.step_s, physics=physics)
    verifier = ReplayVerifier(replay, source=where)
    try:
        player = verifier.player(GAME_ACTIONS)  # the recorded actions must be the game's
        while not player.finished:
            if world.completed:
                raise _MismatchError(
                    f"{where}: the level was completed before tick {player.position}"
                )
            tick = player.position
            world.tick(player.sample())
            verifier.check(tick, world.state_hash())
    except ReplayError as exc:
        raise _MismatchError(str(exc)) from exc
    if attempt.outcome == "complete" and not world.completed:
        raise _MismatchError(f"{where}: the inputs end without reaching the exit")
    if attempt.outcome == "restart" and world.completed:
        raise _MismatchError(f"{where}: marked as restarted but the level was completed")
    return world


def verify_run(
    run: RunRecord,
    levels_dir: Path,
    level_order: Sequence[str],
    *,
    tuning: PlayerTuning | None = None,
    physics: PhysicsConfig | None = None,
    tick_rate: TickRate | None = None,
) -> Verification:
    """Replay a run and compare everything it claims (see the module docstring).

    Args:
        run: The loaded run file.
        levels_dir: Where the levels named in the attempts are.
        level_order: The level file names of a full run, in order.
        tuning: ``[player]`` tuning (default: the defaults). It must be what the run was
            played with, or the hashes differ: a leaderboard verifies with the defaults.
        physics: ``[physics]`` settings (default: the defaults), likewise.
        tick_rate: The game's tick rate (default: 60 Hz); a run at another rate is another
            category and does not verify.

    Raises:
        LevelError: A bundled level cannot be loaded.
    """
    rate = TickRate.from_hz(run.tick_rate_hz)
    ticks = 0
    split_ticks: list[int] = []  # cumulative ticks at each level exit
    problem = ""
    final_hash = ""
    try:
        _check_claims(run, rate, tick_rate if tick_rate is not None else TickRate.from_hz(60))
        for index, attempt in enumerate(run.attempts):
            done = len(split_ticks)
            expected = level_order[done] if done < len(level_order) else "its end"
            if attempt.level != expected:
                raise _MismatchError(
                    f"attempt {index + 1} plays {attempt.level!r}, the run is at {expected!r}"
                )
            world = _play_attempt(
                attempt,
                index,
                levels_dir,
                rate,
                tuning if tuning is not None else PlayerTuning(),
                physics if physics is not None else PhysicsConfig(),
            )
            ticks += world.ticks
            final_hash = world.state_hash()
            if attempt.outcome == "complete":
                _check_split(
                    run,
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
        if len(run.splits) != len(split_ticks):
            raise _MismatchError(
                f"the file has {len(run.splits)} splits for {len(split_ticks)} levels"
            )
        igt = format_igt(rate, ticks)
        if run.igt_ticks != ticks or run.igt != igt:
            raise _MismatchError(
                f"the file claims IGT {run.igt} ({run.igt_ticks} ticks), the replays give "
                f"{igt} ({ticks} ticks)"
            )
        if run.final_hash != final_hash:
            raise _MismatchError("the final state hash differs from the replays'")
    except _MismatchError as exc:
        problem = str(exc)
    return Verification(not problem, problem, ticks, format_igt(rate, ticks), len(split_ticks))


def _check_claims(run: RunRecord, rate: TickRate, game_rate: TickRate) -> None:
    """What the file says about how the run was timed, checked before replaying anything."""
    if rate != game_rate:
        raise _MismatchError(f"the run ticked at {rate}, this game ticks at {game_rate}")
    if run.timing_mode != "strict":
        raise _MismatchError(f"timing mode {run.timing_mode!r}: speedruns are timed in strict mode")
    if run.strict_valid != (run.hitch_dropped_ns == 0):
        raise _MismatchError(
            f"strict_valid is {str(run.strict_valid).lower()} but the hitch guard dropped "
            f"{run.hitch_dropped_ns} ns"
        )
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
