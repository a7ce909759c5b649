"""Honest run files made on the pure simulation, for the run file and fuzz tests.

A run is played the way :class:`~game.speedrun.Speedrun` records one, without a window: each
attempt feeds a bundled replay's inputs (the inputs a player recorded) to a
:class:`~game.world_builder.LevelWorld` with the run's settings, records every tick's input and
state hash, and stops at the exit (or after ``restart_after`` ticks, a restarted attempt). The
attempts are chained with :func:`~game.run_file.chain_attempts`, as the game chains them.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

from engine.input.replay import (
    Replay,
    ReplayRecorder,
    ReplayVerifier,
    hash_level_file,
    load_replay,
)
from engine.levels import load_level
from engine.speedrun.timer import format_igt
from game.kinds import KINDS
from game.run_file import (
    GAME_ACTIONS,
    RunRecord,
    RunSettings,
    SplitRecord,
    chain_attempts,
)
from game.session import bundled_levels
from game.world_builder import LevelWorld

ROOT = Path(__file__).resolve().parents[2]
LEVELS_DIR = ROOT / "levels"
LEVELS = bundled_levels(LEVELS_DIR)
ORDER = [path.name for path in LEVELS]
BUNDLED_INPUTS = [load_replay(LEVELS_DIR / "replays" / f"{p.stem}.replay") for p in LEVELS]
NAMES = [load_level(path, KINDS).name for path in LEVELS]
BUNDLED_TICKS = sum(replay.tick_count for replay in BUNDLED_INPUTS)
"""The in-game ticks of a run through every level with the bundled inputs, no restarts."""


def play_attempt(
    level_path: Path, inputs: Replay, settings: RunSettings, restart_after: int | None = None
) -> tuple[Replay, LevelWorld]:
    """Play one attempt with the inputs of ``inputs``; return its recording and the world."""
    tuning, physics = settings.player, settings.physics
    rate = settings.tick_rate
    world = LevelWorld.load(level_path, tuning, rate.step_s, physics=physics)
    recorder = ReplayRecorder(
        GAME_ACTIONS,
        level_id=level_path.name,
        level_hash=hash_level_file(level_path),
        tick_rate_hz=rate.rate_hz,
        game_version="test",
    )
    player = ReplayVerifier(inputs).player(GAME_ACTIONS)  # the game's actions (as in play)
    for tick in range(inputs.tick_count):
        if world.completed or (restart_after is not None and tick >= restart_after):
            break
        snapshot = player.sample()
        world.tick(snapshot)
        recorder.record(tick, snapshot, world.state_hash())
    return recorder.to_replay(), world


def play_run(
    settings: RunSettings | None = None, restarts: Sequence[tuple[int, int]] = ()
) -> list[tuple[str, str, Replay]]:
    """Play every bundled level with its recorded inputs: ``(level file, outcome, replay)``.

    Args:
        settings: The settings it is played with (default: the defaults).
        restarts: ``(level index, ticks)``: before completing that level, an attempt
            restarted after that many ticks (in order).
    """
    settings = settings if settings is not None else RunSettings.defaults()
    attempts: list[tuple[str, str, Replay]] = []
    for index, level_path in enumerate(LEVELS):
        for level_index, restart_ticks in restarts:
            if level_index == index:
                replay, _ = play_attempt(level_path, BUNDLED_INPUTS[index], settings, restart_ticks)
                attempts.append((level_path.name, "restart", replay))
        replay, world = play_attempt(level_path, BUNDLED_INPUTS[index], settings)
        if not world.completed:
            raise AssertionError(f"the bundled inputs do not complete {level_path.name} here")
        attempts.append((level_path.name, "complete", replay))
    return attempts


def honest_run(
    settings: RunSettings | None = None,
    restarts: Sequence[tuple[int, int]] = (),
    *,
    strict_valid: bool = True,
) -> RunRecord:
    """A complete run through the bundled levels, as the game would export it.

    Args:
        settings: The settings it is played with (default: the defaults).
        restarts: As for :func:`play_run`.
        strict_valid: False for a run whose hitch guard dropped 17 ms.
    """
    settings = settings if settings is not None else RunSettings.defaults()
    rate = settings.tick_rate
    attempts = play_run(settings, restarts)
    names = dict(zip(ORDER, NAMES, strict=True))
    splits: list[SplitRecord] = []
    ticks = 0
    for level, outcome, replay in attempts:
        ticks += replay.tick_count
        if outcome == "complete":
            segment = ticks - (splits[-1].igt_ticks if splits else 0)
            rta_ms = rate.tick_time_ms(ticks) + 1000 * (len(splits) + 1)  # loads and menus
            igt = format_igt(rate, ticks)
            splits.append(SplitRecord(level, names[level], segment, ticks, igt, rta_ms))
    final_hash = attempts[-1][2].hashes[-1]
    assert final_hash is not None
    run_id = secrets.token_hex(16)
    return RunRecord(
        game_version="test",
        run_id=run_id,
        settings=settings,
        timing_mode="strict",
        vsync="on",
        strict_valid=strict_valid,
        hitch_dropped_ns=0 if strict_valid else 17_000_000,
        igt_ticks=ticks,
        igt=format_igt(rate, ticks),
        rta_ms=splits[-1].rta_ms + 500,
        final_hash=final_hash,
        splits=tuple(splits),
        attempts=chain_attempts(attempts, run_id),
    )
