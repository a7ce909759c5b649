"""The ghost: the personal best's attempt at a level, played again beside the player.

With ``[speedrun] ghost = true`` each level of a run shows a translucent copy of the player
where the personal best's player was at the same level tick. Nothing of the ghost is stored as
positions: the personal best's run file (:mod:`engine.app.run_file`) holds the inputs of the attempt
that completed each level, and :class:`Ghost` re-simulates that attempt in **lockstep**, a
second world of the same level (the game's definition's ``load_world``) ticked with the recorded input
each time the player's level ticks. A deterministic simulation needs nothing more: the same
inputs on the same level and settings give the same path, tick for tick.

The ghost is drawing only. Its world is its own (its own pymunk space, entities, coins and
enemies), so it never touches the player's: the state hash, the replay and the run file are the
same with the ghost on or off (``tests/engine/app/test_ghost.py`` checks it). Only its player
is drawn (by the game's scene), translucent.

Where the ghost comes from: when a valid run sets a personal best,
:class:`~engine.app.speedrun.Speedrun` keeps a copy of its run file as the category's *ghost file*
(:func:`ghost_path`); :func:`ghost_replays` reads it back (bounded and checked like any run
file) and picks, for each level, the attempt that completed it. A ghost file made with other
settings, or on a level file that has changed since, gives no ghost for that level rather than
a wrong one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from engine.app.definition import GameDefinition, World
from engine.app.run_file import RunFileError, RunSettings, load_run
from engine.app.savestate import Savestate, Savestates, supports_savestates
from engine.input.replay import Replay, ReplayError, ReplayVerifier, hash_level_file, parse_replay
from engine.input.snapshot import ActionMap, InputPlayer

__all__ = ["GHOST_DIR", "Ghost", "GhostState", "ghost_path", "ghost_replays"]

GHOST_DIR = "ghosts"
"""The folder in the data directory holding one ghost file per records category."""


def ghost_path(data_dir: Path, category: str) -> Path:
    """The ghost file of a records category (its name is a hash: categories contain ``/``)."""
    digest = hashlib.blake2b(category.encode("utf-8"), digest_size=8).hexdigest()
    return data_dir / GHOST_DIR / f"pb-{digest}.run.json"


def ghost_replays(
    path: Path,
    levels_dir: Path,
    settings: RunSettings,
    game_sections: Mapping[str, type],
    action_map: ActionMap | None = None,
) -> dict[str, Replay]:
    """The completing attempt of each level in a ghost file, by level file name.

    Levels whose file changed since (another level hash) are left out, and so is everything
    when the file was played with other settings or cannot be read: no ghost is better than a
    ghost that walks through walls. With ``action_map`` (the game's actions), a replay whose
    actions the game cannot play (another build that reordered them) is left out too.
    """
    try:
        run = load_run(path, game_sections)
    except RunFileError:
        return {}
    if run.settings != settings:
        return {}
    replays: dict[str, Replay] = {}
    for attempt in run.attempts:
        if attempt.outcome != "complete" or Path(attempt.level).name != attempt.level:
            continue
        try:
            replay = parse_replay(attempt.replay_text.encode("utf-8", "surrogatepass"))
            level_hash = hash_level_file(levels_dir / attempt.level)
        except (ReplayError, OSError):
            continue
        if replay.level_hash != level_hash or replay.level_id != attempt.level:
            continue
        if action_map is not None:
            try:
                ReplayVerifier(replay).player(action_map)  # the game's actions must fit
            except ReplayError:
                continue
        replays[attempt.level] = replay
    return replays


@dataclass(frozen=True, slots=True, eq=False)
class GhostState:
    """A ghost captured by :meth:`Ghost.capture`: its world's savestate, and how many of its
    recorded inputs it had played."""

    world: Savestate
    inputs_played: int


class Ghost:
    """A level's simulation replaying recorded inputs, one tick per tick of the player's level.

    Args:
        definition: The game (its ``load_world`` builds the ghost's world).
        level_path: The level's map file.
        replay: The inputs to play (the personal best's attempt at this level).
        settings: The settings it plays with (the run's: tick rate, the game's sections, ``[physics]``).
        action_map: The game's actions (the replay's must be a prefix).

    Attributes:
        world: The ghost's own world.
    """

    def __init__(
        self,
        definition: GameDefinition,
        level_path: Path,
        replay: Replay,
        settings: RunSettings,
        action_map: ActionMap,
    ) -> None:
        self.world: World = definition.load_world(level_path, settings)
        self._inputs: InputPlayer = ReplayVerifier(replay).player(action_map)

    @property
    def finished(self) -> bool:
        """The ghost reached the exit (it stays there) or its inputs ran out."""
        return self.world.completed or self._inputs.finished

    def tick(self) -> None:
        """Advance one tick with the next recorded input (nothing once finished)."""
        if not self.finished:
            self.world.tick(self._inputs.sample())

    def capture(self) -> GhostState | None:
        """Where the ghost is now (None when its world has no savestates).

        Practice mode saves it with the level, so loading a state puts the ghost back beside
        the player, where it was at that tick.
        """
        if not supports_savestates(self.world):
            return None
        return GhostState(cast(Savestates, self.world).capture(), self._inputs.position)

    def restore(self, state: GhostState) -> None:
        """Put the ghost back where :meth:`capture` found it."""
        cast(Savestates, self.world).restore(state.world)
        self._inputs.seek(state.inputs_played)
