"""``python -m engine.app.make_run --game PACKAGE``: a game's bundled run file, from its replays.

A run file (:mod:`engine.app.run_file`) is what a finished speedrun exports; ``--verify-run``
checks one and ``--watch`` plays one through the game. So that both work out of the box, a game
ships one: ``levels/runs/any-percent.run.json``, every bundled level in order
(:func:`~engine.app.level_order.bundled_levels`) played with its bundled replay's inputs
(``levels/replays/<level>.replay``), no restarts, with the settings of the game's own
``config.toml`` (``--config`` names another).

It is made the way the game makes one, without a window: each attempt feeds the replay's
inputs to the game's pure simulation (its definition's ``load_world``) with the run's
settings, records every tick's input and state hash, and stops at the exit; the attempts are
chained and sealed with :func:`~engine.app.run_file.sealed_run`, as the game does. The file is the
same bytes every time for the same levels and replays: its run id is a hash of the attempts
(a played run draws one at random) and its RTA is the in-game time plus
:data:`MENU_MS_PER_LEVEL` per level (the loads and level complete screens a player sits
through).

Rerun it whenever a level or a bundled replay changes::

    python -m engine.app.make_run --game game            # rewrite levels/runs/any-percent.run.json
    python -m engine.app.make_run --game game --check    # exit 1 if it is out of date

(``tests/engine/app/test_make_run.py`` fails until it is rerun.)
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.app.definition import GameDefinition, World
from engine.app.level_order import bundled_levels, replay_of
from engine.app.run_file import (
    GAME_ACTIONS,
    RunRecord,
    RunSettings,
    SplitRecord,
    run_json,
    sealed_run,
)
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

__all__ = [
    "BUNDLED_RUN",
    "MENU_MS_PER_LEVEL",
    "bundled_run",
    "main",
    "play_attempt",
    "play_levels",
]

BUNDLED_RUN = "runs/any-percent.run.json"
"""The bundled run file, in ``levels/`` (``--verify-run`` and ``--watch`` examples use it)."""

MENU_MS_PER_LEVEL = 1000
"""RTA beyond IGT per level: its load and its level complete screen."""

ATTEMPT_VERSION = "bundled"
"""The ``game-version`` of the bundled attempts' replays (read by people, never checked)."""


def play_attempt(
    definition: GameDefinition,
    level_path: Path,
    inputs: Replay,
    settings: RunSettings,
    restart_after: int | None = None,
    *,
    game_version: str = ATTEMPT_VERSION,
) -> tuple[Replay, World]:
    """Play one attempt with the inputs of ``inputs``; return its recording and the world.

    Args:
        definition: The game (its world plays the attempt).
        level_path: The level.
        inputs: A replay whose inputs are played (its hashes are not checked: other settings
            play other states, and those are what is recorded).
        settings: The run's settings.
        restart_after: Stop after this many ticks (a restarted attempt); None: at the exit or
            when the inputs run out.
        game_version: Written into the recording.
    """
    rate = settings.tick_rate
    world = definition.load_world(level_path, settings)
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
    definition: GameDefinition,
    levels: Sequence[Path],
    inputs: Sequence[Replay],
    settings: RunSettings,
    restarts: Sequence[tuple[int, int]] = (),
    *,
    game_version: str = ATTEMPT_VERSION,
) -> list[tuple[str, str, Replay]]:
    """Play ``levels`` in order with ``inputs``: ``(level file, outcome, replay)`` per attempt.

    Args:
        definition: The game (its world plays the attempts).
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
                    definition,
                    level_path,
                    replay,
                    settings,
                    restart_ticks,
                    game_version=game_version,
                )
                attempts.append((level_path.name, "restart", played))
        played, world = play_attempt(
            definition, level_path, replay, settings, game_version=game_version
        )
        if not world.completed:
            raise ValueError(f"the inputs of {replay.level_id} do not complete {level_path.name}")
        attempts.append((level_path.name, "complete", played))
    return attempts


def bundled_run(
    definition: GameDefinition,
    levels_dir: Path | None = None,
    settings: RunSettings | None = None,
    restarts: Sequence[tuple[int, int]] = (),
    *,
    game_version: str | None = None,
    run_id: str | None = None,
    strict_valid: bool = True,
) -> RunRecord:
    """A complete run through ``levels_dir``'s levels with their bundled replays' inputs.

    Args:
        definition: The game.
        levels_dir: Where the levels and ``replays/`` are (default: the game's).
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
    from engine.app.replay_run import game_version as installed_version

    levels_dir = levels_dir if levels_dir is not None else definition.files.levels_dir()
    settings = settings if settings is not None else definition.default_settings()
    rate = settings.tick_rate
    levels = bundled_levels(levels_dir)
    if not levels:
        raise ValueError(f"no level maps in {levels_dir}")
    inputs = [load_replay(replay_of(path)) for path in levels]
    names = {path.name: load_level(path, definition.kinds).name for path in levels}
    attempts = play_levels(definition, levels, inputs, settings, restarts)
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
    run = RunRecord(
        game_version=game_version
        if game_version is not None
        else installed_version(definition.app_name),
        run_id=run_id,
        settings=settings,
        timing_mode="strict",
        vsync="on",
        strict_valid=strict_valid,
        hitch_dropped_ns=0 if strict_valid else 17_000_000,
        igt_ticks=ticks,
        igt=format_igt(rate, ticks),
        rta_ms=splits[-1].rta_ms + MENU_MS_PER_LEVEL,
        final_hash="",
        splits=tuple(splits),
        attempts=(),
    )
    return sealed_run(run, attempts)


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or ``--check``) a game's bundled run file; return the exit status."""
    from engine.app.definition import DefinitionError, load_definition
    from engine.config import ConfigError, load_config
    from engine.input.replay import ReplayError
    from engine.levels import LevelError
    from engine.runtime.launch import OneLineParser

    parser = OneLineParser(
        prog=PROG, description="Make a game's bundled run file from its levels and replays."
    )
    parser.add_argument(
        "--game",
        default=None,
        help="the game's package (default: the one game in the working directory)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only check the bundled file is up to date (exit 1 if not)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="the settings to play with (default: the game's config.toml)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help=f"where to write (default: the game's levels/{BUNDLED_RUN})",
    )
    args: argparse.Namespace = parser.parse_args(argv)
    try:
        definition = load_definition(args.game)
        config_path = args.config if args.config is not None else definition.files.config_path()
        config = load_config(
            config_path, extra_sections=definition.config_sections, missing_ok=args.config is None
        )
        run = bundled_run(
            definition, settings=RunSettings.from_config(config, definition.config_sections)
        )
        output: Path = args.output or definition.files.levels_dir() / BUNDLED_RUN
    except (DefinitionError, ConfigError, ReplayError, LevelError, ValueError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    data = run_json(run)
    if args.check:
        try:
            same = output.read_bytes() == data
        except OSError:
            same = False
        verdict = "up to date" if same else f"OUT OF DATE (run {PROG} --game {definition.package})"
        print(f"{output}: {verdict}")
        return 0 if same else 1
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(output, data)
    except OSError as exc:
        print(f"{PROG}: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{output}: {len(run.attempts)} attempts, IGT {run.igt} ({run.igt_ticks} ticks)")
    return 0


PROG = "python -m engine.app.make_run"

if __name__ == "__main__":
    from engine.runtime.launch import run_command

    sys.exit(run_command(main, PROG))
