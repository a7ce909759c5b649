"""``python -m game.make_run``: the bundled run file, a whole run made from the bundled replays.

A run file (:mod:`game.run_file`) is what a finished speedrun exports; ``--verify-run`` checks
one and ``--watch`` plays one through the game. So that both work out of the box, the game
ships one: ``levels/runs/any-percent.run.json``, every bundled level in order
(:func:`~game.session.bundled_levels`) played with its bundled replay's inputs
(``levels/replays/<level>.replay``), no restarts, default settings.

It is made the way the game makes one, without a window: each attempt feeds the replay's
inputs to the pure simulation (:class:`~game.world_builder.LevelWorld`) with the run's
settings, records every tick's input and state hash, and stops at the exit; the attempts are
chained with :func:`~game.run_file.chain_attempts`, as the game chains them. The file is the
same bytes every time for the same levels and replays: its run id is a hash of the attempts
(a played run draws one at random) and its RTA is the in-game time plus
:data:`MENU_MS_PER_LEVEL` per level (the loads and level complete screens a player sits
through).

Rerun it whenever a level or a bundled replay changes::

    python -m game.make_run            # rewrite levels/runs/any-percent.run.json
    python -m game.make_run --check    # exit 1 if the bundled file is out of date

(``tests/game/test_make_run.py`` fails until it is rerun.)
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.input.replay import (
    Replay,
    ReplayRecorder,
    ReplayVerifier,
    format_replay,
    hash_level_file,
    load_replay,
)
from engine.levels import load_level
from engine.speedrun.timer import format_igt
from engine.storage.atomic_file import write_atomic
from game.conventions import CONVENTIONS
from game.kinds import KINDS
from game.run_file import (
    GAME_ACTIONS,
    RunRecord,
    RunSettings,
    SplitRecord,
    chain_attempts,
    run_json,
)
from game.session import bundled_levels, replay_of
from game.world_builder import LevelWorld

__all__ = [
    "BUNDLED_RUN",
    "LEVELS_DIR",
    "MENU_MS_PER_LEVEL",
    "bundled_run",
    "main",
    "play_attempt",
    "play_levels",
]

LEVELS_DIR = Path(__file__).resolve().parent.parent / "levels"
BUNDLED_RUN = LEVELS_DIR / "runs" / "any-percent.run.json"
"""The bundled run file (the README's ``--verify-run`` and ``--watch`` examples use it)."""

MENU_MS_PER_LEVEL = 1000
"""RTA beyond IGT per level: its load and its level complete screen."""

ATTEMPT_VERSION = "bundled"
"""The ``game-version`` of the bundled attempts' replays (read by people, never checked)."""


def play_attempt(
    level_path: Path,
    inputs: Replay,
    settings: RunSettings,
    restart_after: int | None = None,
    *,
    game_version: str = ATTEMPT_VERSION,
) -> tuple[Replay, LevelWorld]:
    """Play one attempt with the inputs of ``inputs``; return its recording and the world.

    Args:
        level_path: The level.
        inputs: A replay whose inputs are played (its hashes are not checked: other settings
            play other states, and those are what is recorded).
        settings: The run's settings.
        restart_after: Stop after this many ticks (a restarted attempt); None: at the exit or
            when the inputs run out.
        game_version: Written into the recording.
    """
    rate = settings.tick_rate
    world = LevelWorld.load(level_path, settings.player, rate.step_s, physics=settings.physics)
    recorder = ReplayRecorder(
        GAME_ACTIONS,
        level_id=level_path.name,
        level_hash=hash_level_file(level_path),
        tick_rate_hz=rate.rate_hz,
        game_version=game_version,
    )
    player = ReplayVerifier(inputs).player(GAME_ACTIONS)
    for tick in range(inputs.tick_count):
        if world.completed or (restart_after is not None and tick >= restart_after):
            break
        snapshot = player.sample()
        world.tick(snapshot)
        recorder.record(tick, snapshot, world.state_hash())
    return recorder.to_replay(), world


def play_levels(
    levels: Sequence[Path],
    inputs: Sequence[Replay],
    settings: RunSettings,
    restarts: Sequence[tuple[int, int]] = (),
    *,
    game_version: str = ATTEMPT_VERSION,
) -> list[tuple[str, str, Replay]]:
    """Play ``levels`` in order with ``inputs``: ``(level file, outcome, replay)`` per attempt.

    Args:
        levels: The run's levels.
        inputs: One replay per level, whose inputs complete it.
        settings: The run's settings.
        restarts: ``(level index, ticks)``: before completing that level, an attempt
            restarted after that many ticks (in order).
        game_version: Written into the recordings.

    Raises:
        ValueError: The inputs of a level do not reach its exit.
    """
    attempts: list[tuple[str, str, Replay]] = []
    for index, (level_path, replay) in enumerate(zip(levels, inputs, strict=True)):
        for level_index, restart_ticks in restarts:
            if level_index == index:
                played, _ = play_attempt(
                    level_path, replay, settings, restart_ticks, game_version=game_version
                )
                attempts.append((level_path.name, "restart", played))
        played, world = play_attempt(level_path, replay, settings, game_version=game_version)
        if not world.completed:
            raise ValueError(f"the inputs of {replay.level_id} do not complete {level_path.name}")
        attempts.append((level_path.name, "complete", played))
    return attempts


def bundled_run(
    levels_dir: Path = LEVELS_DIR,
    settings: RunSettings | None = None,
    restarts: Sequence[tuple[int, int]] = (),
    *,
    game_version: str | None = None,
    run_id: str | None = None,
    strict_valid: bool = True,
) -> RunRecord:
    """A complete run through ``levels_dir``'s levels with their bundled replays' inputs.

    Args:
        levels_dir: Where the levels and ``replays/`` are.
        settings: The settings it is played with (default: the defaults).
        restarts: As for :func:`play_levels`.
        game_version: The run file's game version (default: this game's).
        run_id: The run id (default: a hash of the attempts, so the file is reproducible).
        strict_valid: False for a run whose hitch guard dropped 17 ms (for tests).

    Raises:
        ReplayError: A bundled replay cannot be read.
        LevelError: A level cannot be loaded.
        ValueError: A replay does not complete its level.
    """
    from game.replay_run import game_version as installed_version

    settings = settings if settings is not None else RunSettings.defaults()
    rate = settings.tick_rate
    levels = bundled_levels(levels_dir)
    if not levels:
        raise ValueError(f"no level<N>.json in {levels_dir}")
    inputs = [load_replay(replay_of(path)) for path in levels]
    names = {path.name: load_level(path, KINDS, CONVENTIONS).name for path in levels}
    attempts = play_levels(levels, inputs, settings, restarts)
    if run_id is None:
        digest = hashlib.blake2b(digest_size=16)
        for level, outcome, replay in attempts:
            digest.update(f"{level}\n{outcome}\n{format_replay(replay)}".encode())
        run_id = digest.hexdigest()
    splits: list[SplitRecord] = []
    ticks = 0
    for level, outcome, replay in attempts:
        ticks += replay.tick_count
        if outcome == "complete":
            segment = ticks - (splits[-1].igt_ticks if splits else 0)
            rta_ms = rate.tick_time_ms(ticks) + MENU_MS_PER_LEVEL * len(splits)
            igt = format_igt(rate, ticks)
            splits.append(SplitRecord(level, names[level], segment, ticks, igt, rta_ms))
    final_hash = attempts[-1][2].hashes[-1]
    assert final_hash is not None  # every attempt ran a tick and hashed it
    return RunRecord(
        game_version=game_version if game_version is not None else installed_version(),
        run_id=run_id,
        settings=settings,
        timing_mode="strict",
        vsync="on",
        strict_valid=strict_valid,
        hitch_dropped_ns=0 if strict_valid else 17_000_000,
        igt_ticks=ticks,
        igt=format_igt(rate, ticks),
        rta_ms=splits[-1].rta_ms + MENU_MS_PER_LEVEL,
        final_hash=final_hash,
        splits=tuple(splits),
        attempts=chain_attempts(attempts, run_id),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or ``--check``) the bundled run file; return the exit status."""
    from engine.input.replay import ReplayError
    from engine.levels import LevelError
    from engine.runtime.launch import OneLineParser

    parser = OneLineParser(
        prog="python -m game.make_run",
        description="Make the bundled run file from the bundled levels and replays.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only check the bundled file is up to date (exit 1 if not)",
    )
    parser.add_argument(
        "--output", type=Path, default=BUNDLED_RUN, help=f"where to write (default: {BUNDLED_RUN})"
    )
    args: argparse.Namespace = parser.parse_args(argv)
    try:
        run = bundled_run()
    except (ReplayError, LevelError, ValueError) as exc:
        print(f"python -m game.make_run: {exc}", file=sys.stderr)
        return 2
    data = run_json(run)
    output: Path = args.output
    if args.check:
        try:
            same = output.read_bytes() == data
        except OSError:
            same = False
        verdict = "up to date" if same else "OUT OF DATE (run python -m game.make_run)"
        print(f"{output}: {verdict}")
        return 0 if same else 1
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(output, data)
    except OSError as exc:
        print(
            f"python -m game.make_run: cannot write {output}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    print(f"{output}: {len(run.attempts)} attempts, IGT {run.igt} ({run.igt_ticks} ticks)")
    return 0


if __name__ == "__main__":
    from engine.runtime.launch import run_command

    sys.exit(run_command(main, "python -m game.make_run"))
