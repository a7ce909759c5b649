"""Re-recording a replay: its inputs played under the current settings, its hashes rewritten.

A replay proves a run tick by tick with state hashes, so any change to what the simulation
does (a higher jump in ``[player]``, another gravity in ``[physics]``, an edited level, a new
rule in the code) makes every replay recorded before it diverge. When the change is intended,
the inputs may still complete the level: the player presses the same keys at the same ticks
and, with a higher jump, still clears every gap. ``python -m <game> --rerecord FILE`` tries
exactly that, on the game's pure simulation (its definition's ``load_world``, no window):

* the inputs are fed tick by tick under the current settings, on the level file as it is now;
* if the level is completed, the replay is written again (format 2): the inputs up to the
  completing tick, the new state hash of every tick, the level file's hash, the tick rate and
  the settings hashes of this game (:func:`rerecord` returns it);
* if the inputs run out first, :class:`StopsWorking` says where the run stops working: the
  first tick whose state differs from the recording, the first time the player is hurt from
  there on, and the tick the inputs end. ``--rerecord`` then asks the solver
  (:func:`solve_anew`, :mod:`engine.app.solver`) for a new way through the level under the
  current settings, and writes that replay instead, saying it was *solved anew*; only if the
  solver finds no way within its budget is nothing written (play the level again with
  ``--record`` then).

Pure: no arcade, no window; a replay of a whole level re-records in well under a second.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.app.definition import GameDefinition
from engine.app.run_file import RunSettings
from engine.config import Config, game_action_names
from engine.input.replay import Replay, ReplayRecorder, ReplayVerifier, hash_level_file
from engine.input.snapshot import ActionMap
from engine.speedrun.timer import format_igt
from engine.timing import TickRate

if TYPE_CHECKING:
    from engine.app.solver import SolveResult

__all__ = ["RETRY_SHARE", "StopsWorking", "rerecord", "solve_anew"]

RETRY_SHARE = 0.25
"""The share of the solver's budget for searching on from the old inputs' route (the rest
searches from the start)."""


class StopsWorking(Exception):  # noqa: N818 - names the outcome, like ReplayMismatch
    """The inputs no longer complete the level under the current settings.

    ``str(error)`` is one line saying where the run stops working.

    Attributes:
        first_difference_tick: The first tick whose state differs from the recording (None if
            every recorded hash still matched).
        first_hurt_tick: The first tick from there on in which the player was hurt, or None.
        end_tick: The last tick the inputs cover.
    """

    def __init__(
        self,
        level_name: str,
        rate: TickRate,
        *,
        first_difference_tick: int | None,
        first_hurt_tick: int | None,
        end_tick: int,
    ) -> None:
        self.first_difference_tick = first_difference_tick
        self.first_hurt_tick = first_hurt_tick
        self.end_tick = end_tick
        parts = []
        if first_difference_tick is not None:
            parts.append(
                f"the run first differs from the recording at tick {first_difference_tick} "
                f"({format_igt(rate, first_difference_tick)})"
            )
        if first_hurt_tick is not None:
            parts.append(
                f"the player is hurt at tick {first_hurt_tick} "
                f"({format_igt(rate, first_hurt_tick)})"
            )
        parts.append(
            f"the inputs end at tick {end_tick} without reaching the exit of {level_name!r}"
        )
        super().__init__("; ".join(parts))


def rerecord(
    definition: GameDefinition,
    replay: Replay,
    level_path: Path,
    config: Config,
    *,
    game_version: str,
) -> Replay:
    """Play ``replay``'s inputs on ``level_path`` under ``config``; return the new replay.

    Args:
        replay: The replay whose inputs are played (its hashes are only compared, to say
            where a failing run first differs).
        level_path: The level file, as it is now.
        config: The game's configuration: its tick rate, ``[physics]``, ``[player]`` and
            ``[input]`` actions are what the new replay is recorded with.
        game_version: Written into the new replay.

    Raises:
        StopsWorking: The inputs run out before the level is completed.
        LevelError: The level cannot be loaded.
        ReplayError: The replay's actions do not fit the game's.
    """
    settings = RunSettings.from_config(config, definition.config_sections)
    actions = ActionMap(game_action_names(config.input))
    rate = settings.tick_rate
    world = definition.load_world(level_path, settings)
    events = getattr(world, "events", None)  # a world's event log, if it keeps one
    recorder = ReplayRecorder(
        actions,
        level_id=level_path.name,
        level_hash=hash_level_file(level_path),
        tick_rate_hz=rate.rate_hz,
        game_version=game_version,
        hash_every=replay.hash_every,
        settings_hashes=settings.section_hashes(),
    )
    inputs = ReplayVerifier(replay).player(actions)
    first_difference: int | None = None
    first_hurt: int | None = None
    hurt_seen = 0
    while not inputs.finished and not world.completed:
        tick = inputs.position
        snapshot = inputs.sample()
        world.tick(snapshot)
        state_hash = world.state_hash()
        recorder.record(tick, snapshot, state_hash)
        recorded = replay.hashes[tick]
        if first_difference is None and recorded is not None and recorded != state_hash:
            first_difference = tick
        if events is not None and first_difference is not None and first_hurt is None:
            hurts = [event for event in events.since(hurt_seen) if event.name == "hurt"]
            if hurts:
                first_hurt = tick
        hurt_seen = events.count if events is not None else 0
    if not world.completed:
        raise StopsWorking(
            world.level.name,
            rate,
            first_difference_tick=first_difference,
            first_hurt_tick=first_hurt,
            end_tick=max(replay.tick_count - 1, 0),
        )
    return recorder.to_replay()


def solve_anew(
    definition: GameDefinition,
    level_path: Path,
    config: Config,
    *,
    game_version: str,
    budget_s: float | None = None,
    replay: Replay | None = None,
) -> tuple[Replay | None, SolveResult]:
    """Search the level for a new way to its exit under ``config``; its replay, if found.

    With the old ``replay``, its inputs show the way first: they are played under the new
    settings until the player is first hurt or they run out, and the solver searches on from
    the state one second before that, keeping the old inputs up to there; failing that, from
    the start. The player's
    own route (where to wait for a platform, which way round) is kept wherever it still works.
    That first search gets :data:`RETRY_SHARE` of the budget; the rest goes to a search from
    the start.

    Returns:
        The replay (recorded from a fresh start, as :func:`rerecord` writes them) or None,
        and the last search's result (where it got furthest when it found none).

    Raises:
        LevelError: The level cannot be loaded.
        Unsolvable: The game's world cannot be searched (no savestates) or has no exit.
    """
    import time

    from engine.app.solver import DEFAULT_BUDGET_S, record_solution, solve

    settings = RunSettings.from_config(config, definition.config_sections)
    actions = ActionMap(game_action_names(config.input))
    rate = settings.tick_rate
    step_s = rate.step_s
    budget = budget_s if budget_s is not None else DEFAULT_BUDGET_S
    deadline = time.perf_counter() + budget
    world: Any = definition.load_world(level_path, settings)
    starts: list[tuple[int, object]] = [(0, world.capture())]  # (tick, state) every second
    prefix = []
    if replay is not None:
        every = max(1, round(1.0 / step_s))
        inputs = ReplayVerifier(replay).player(actions)
        while not inputs.finished and not world.completed:
            snapshot = inputs.sample()
            world.tick(snapshot)
            prefix.append(snapshot)
            if getattr(world, "player_hurt", False):
                break
            if len(prefix) % every == 0:
                starts.append((len(prefix), world.capture()))
    result = None
    tried: set[int] = set()
    end = len(prefix)
    for back_s, share in ((1.0, RETRY_SHARE), (float("inf"), 1.0)):
        wanted = max(0, end - round(back_s / step_s)) if back_s != float("inf") else 0
        tick, state = max((s for s in starts if s[0] <= wanted), key=lambda s: s[0])
        if tick in tried:
            continue
        tried.add(tick)
        left = deadline - time.perf_counter()
        if left <= 0 and result is not None:
            break
        left = max(left, 1e-3)
        world.restore(state)
        held = prefix[tick - 1].held if tick > 0 else 0
        share = share if tick > 0 else 1.0  # from the start anyway: the whole budget
        result = solve(world, world.level, actions, step_s, budget_s=left * share, held=held)
        if result.solved:
            inputs_found = prefix[:tick] + result.inputs
            replay_found = record_solution(
                definition,
                level_path,
                settings,
                actions,
                inputs_found,
                game_version=game_version,
            )
            result.ticks = replay_found.tick_count
            return replay_found, result
    assert result is not None
    return None, result
