"""Honest run files made on the pure simulation, for the run file and fuzz tests.

A run is played the way :class:`~engine.app.speedrun.Speedrun` records one, without a window, by
:mod:`engine.app.make_run` (which also makes the bundled run file): each attempt feeds a bundled
replay's inputs to a :class:`~game.world_builder.LevelWorld` with the run's settings and
records every tick; the attempts are chained as the game chains them. Here each run gets a
random run id, as a played run does.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from engine.app.make_run import bundled_run, play_levels
from engine.app.run_file import RunRecord, RunSettings
from engine.app.session import bundled_levels, replay_of
from engine.input.replay import Replay, load_replay
from engine.levels import load_level
from game.kinds import KINDS
from tests.engine.app.sample_game import GAME, LEVELS_DIR

__all__ = ["BUNDLED_TICKS", "LEVELS", "LEVELS_DIR", "NAMES", "ORDER", "honest_run", "play_run"]

LEVELS = bundled_levels(LEVELS_DIR)
ORDER = [path.name for path in LEVELS]
BUNDLED_INPUTS = [load_replay(replay_of(path)) for path in LEVELS]
NAMES = [load_level(path, KINDS).name for path in LEVELS]
BUNDLED_TICKS = sum(replay.tick_count for replay in BUNDLED_INPUTS)
"""The in-game ticks of a run through every level with the bundled inputs, no restarts."""

_Attempts = tuple[tuple[str, str, Replay], ...]
_PLAYED: dict[tuple[RunSettings, tuple[tuple[int, int], ...]], _Attempts] = {}
"""The runs :func:`play_run` played, by settings and restarts: the simulation is exact, so the
same run is the same attempts (frozen replays), played once per test process (about 1.2 s a run)
instead of once per test."""


def play_run(
    settings: RunSettings | None = None, restarts: Sequence[tuple[int, int]] = ()
) -> list[tuple[str, str, Replay]]:
    """Play every bundled level with its recorded inputs: ``(level file, outcome, replay)``.

    Args:
        settings: The settings it is played with (default: the defaults).
        restarts: ``(level index, ticks)``: before completing that level, an attempt
            restarted after that many ticks (in order).
    """
    settings = settings if settings is not None else GAME.default_settings()
    key = (settings, tuple(restarts))
    if key not in _PLAYED:
        _PLAYED[key] = tuple(
            play_levels(GAME, LEVELS, BUNDLED_INPUTS, settings, restarts, game_version="test")
        )
    return list(_PLAYED[key])


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
    return bundled_run(
        GAME,
        LEVELS_DIR,
        settings,
        restarts,
        game_version="test",
        run_id=secrets.token_hex(16),
        strict_valid=strict_valid,
    )
