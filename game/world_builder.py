"""The level's simulation: physics, entities and the rules that join them, without drawing.

:class:`LevelWorld` is everything a level *does*, tick by tick, and nothing it *draws*: it
imports pymunk and the engine's pure packages but not arcade, so tests and ``--verify-run`` drive
it directly (``world.tick(snapshot)``) without a window. :class:`~game.level_scene.LevelScene`
wraps it with sprites, a camera and a HUD.

What is in a level:
    The static ground (the map's merged solid and one-way tiles as pymunk boxes), and one
    entity per object (:mod:`game.entities`): the player, coins, checkpoints, hazards, exits,
    moving and crumbling platforms, swings, crates, springs, ladders, walkers and flyers. Paths
    are data the platforms and flyers follow.

One tick (:meth:`LevelWorld.tick`):
    1. every entity's ``tick``, in order: platforms move (order 0..9), the player reads the
       input and its contacts and sets its velocity (10), enemies and gadgets decide (20..29);
    2. one physics step (``PhysicsWorld.step``): crates fall and stack, the swing swings, the
       player and the platforms move;
    3. every entity's ``after_step``, in the same order: the player checks falling out of the
       level, enemies check stomps and bites, springs throw, coins are collected,
       checkpoints set, hazards hurt and exits finish the level (30..39).

Gravity: crates, swings and everything else dynamic fall with ``[physics] gravity_px_s2``; the
player is out of the space's gravity (its motor owns its own, from the jump tuning: see
:mod:`game.movement`).

Everything here is deterministic: no wall clock, no randomness, stable iteration orders.
:meth:`LevelWorld.state_hash` covers the physics snapshot of every body, every entity's state and
the level's counters, so a replay proves the whole level ticked the same.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pymunk

from engine.app.savestate import Savestate
from engine.config import PhysicsConfig
from engine.entities import Entities, Entity
from engine.input.snapshot import ActionMap, InputSnapshot
from engine.levels import KindRegistry, Level, LevelError, add_static_geometry, load_level
from engine.levels.kinds import PropError
from engine.physics.world import PhysicsWorld
from game.collision import query_boxes
from game.conventions import CONVENTIONS
from game.entities import ENTITY_CLASSES, EntityFactory
from game.entities.player import Player
from game.kinds import KINDS, PAR_TIME
from game.movement import PlayerTuning

__all__ = ["Event", "Events", "LevelWorld"]

GROUND_FRICTION = 0.9
"""Friction of the static ground (the player's own shape has none: its motor decides)."""


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in a tick, for sounds and effects (not part of the state).

    Attributes:
        seq: Its number, from 1, in the order things happened.
        tick: The tick it happened in (``LevelWorld.ticks`` after that tick).
        name: ``jump``, ``land``, ``coin``, ``checkpoint``, ``hurt``, ``respawn``, ``stomp``,
            ``spring``, ``crumble``, ``crate``, ``complete``...
        x_px: Where, x.
        y_px: Where, y.
    """

    seq: int
    tick: int
    name: str
    x_px: float
    y_px: float


class Events:
    """A bounded log of recent events; the render plays what it has not seen yet.

    Events are a record *for presentation*: sounds, particles, screen shake. They are derived
    from the simulation and never read by it, so they are not in the state hash.
    """

    def __init__(self, keep: int = 256) -> None:
        self._log: deque[Event] = deque(maxlen=keep)
        self.count = 0

    def emit(self, tick: int, name: str, x_px: float, y_px: float) -> None:
        """Record one event."""
        self.count += 1
        self._log.append(Event(self.count, tick, name, x_px, y_px))

    def since(self, seq: int) -> list[Event]:
        """The events after ``seq`` that are still kept, oldest first."""
        return [event for event in self._log if event.seq > seq]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._log)

    def restore(self, events: tuple[Event, ...], count: int) -> None:
        """Put back a saved log (a savestate's): these events, numbered up to ``count``."""
        self._log.clear()
        self._log.extend(events)
        self.count = count


def par_time_s(level: Level) -> float | None:
    """The level's par time in seconds (its ``par_time_s`` map property), or None.

    Shown on the level complete screen next to the time taken. Checked by
    :data:`game.kinds.PAR_TIME`: the loader already did so for a level loaded with the game's
    kinds; a level loaded with a registry of its own (a game adding kinds) is checked here.

    Raises:
        LevelError: The property is there but not a number in ``0.1..86400`` s (the loader's
            own words).
    """
    value = level.properties.get("par_time_s")
    if value is None:
        return None
    try:
        return float(PAR_TIME.check(value))
    except PropError as exc:
        raise LevelError(
            str(level.source), f'property "{PAR_TIME.name}" {exc}', "map properties"
        ) from None


class LevelWorld:
    """One level's simulation: physics, the entities and the rules.

    Args:
        level: The level, already scaled to the game's tile size (``Level.scaled``).
        tuning: Player movement tuning.
        dt_s: Length of one tick in seconds (``Engine.step_s``).
        physics: ``[physics]``: gravity for everything dynamic, substeps, solver iterations.
        on_complete: Called once, inside the tick, when the player first reaches an exit.
        entity_classes: Kind name -> the entity class built for each object of that kind
            (default: the sample game's, :data:`game.entities.ENTITY_CLASSES`); objects of
            other kinds (the start, paths) build none.

    Attributes:
        level: The level in game px.
        tuning: The movement tuning.
        physics: The physics world (every drawn body is registered with it).
        entities: Every entity, in tick order.
        player: The player entity.
        events: What happened recently (sounds, effects).
        input: The input of the tick being run (entities read it).
        collected: Ids of the coins collected so far.
        checkpoint_id: Id of the checkpoint touched last, or None (respawn at the start).
        completed: The player has reached an exit.
        deaths: How many times the player was hurt and respawned.
        ticks: How many ticks have run.
    """

    def __init__(
        self,
        level: Level,
        tuning: PlayerTuning,
        dt_s: float,
        *,
        physics: PhysicsConfig | None = None,
        on_complete: Callable[[], None] | None = None,
        entity_classes: Mapping[str, EntityFactory] = ENTITY_CLASSES,
    ) -> None:
        physics = physics or PhysicsConfig()
        self.level = level
        self.tuning = tuning
        self.dt_s = dt_s
        self.on_complete = on_complete
        self.physics = PhysicsWorld(
            (0.0, physics.gravity_px_s2),
            substeps=physics.substeps,
            iterations=physics.iterations,
        )
        self.gravity_px_s2 = physics.gravity_px_s2
        add_static_geometry(
            level,
            self.physics.space,
            friction=GROUND_FRICTION,
            max_piece_px=level.tile_size_px / 4,  # the player's motor sweeps boxes
        )
        self.entities: Entities[LevelWorld] = Entities(self)
        self.events = Events()
        self.input = InputSnapshot(ActionMap(()), 0)
        self.collected: set[int] = set()
        self.checkpoint_id: int | None = None
        self.completed = False
        self.deaths = 0
        self.ticks = 0
        #: The level's par time (its ``par_time_s`` map property), or None.
        self.par_time_s = par_time_s(level)
        self.player = Player(level.player_start.feet_px, tuning)
        self.entities.spawn(self.player)
        for obj in level.objects:
            build = entity_classes.get(obj.kind)
            if build is not None:
                self.entities.spawn(build(obj, self))

    @classmethod
    def load(
        cls,
        path: Path | str,
        tuning: PlayerTuning,
        dt_s: float,
        *,
        physics: PhysicsConfig | None = None,
        kinds: KindRegistry = KINDS,
        on_complete: Callable[[], None] | None = None,
        entity_classes: Mapping[str, EntityFactory] = ENTITY_CLASSES,
    ) -> LevelWorld:
        """Load a map with the game's kinds, scale it to ``tuning.tile_px`` and build its world.

        Raises:
            LevelError: The map cannot be loaded (one line).
        """
        level = load_level(path, kinds, CONVENTIONS).scaled(tuning.tile_px)
        return cls(
            level,
            tuning,
            dt_s,
            physics=physics,
            on_complete=on_complete,
            entity_classes=entity_classes,
        )

    # -- the tick --------------------------------------------------------------------------------
    def tick(self, snapshot: InputSnapshot) -> None:
        """Advance the level by one fixed tick with this tick's input."""
        self.input = snapshot
        self.entities.tick()
        self.physics.step(self.dt_s)
        self.ticks += 1
        self.entities.after_step()

    def complete(self) -> None:
        """The player reached an exit (once)."""
        if self.completed:
            return
        self.completed = True
        x_px, y_px = self.player.position_px
        self.emit("complete", x_px, y_px)
        if self.on_complete is not None:
            self.on_complete()

    def teleport_player(self, x_px: float, feet_y_px: float) -> None:
        """Move the player's feet to ``(x_px, feet_y_px)`` at rest (for tests and tools)."""
        self.player.teleport(self, x_px, feet_y_px)

    def emit(self, name: str, x_px: float, y_px: float) -> None:
        """Record an event of this tick (for sounds and effects)."""
        self.events.emit(self.ticks, name, x_px, y_px)

    # -- savestates ----------------------------------------------------------------------------
    def capture(self) -> Savestate:
        """The whole state in memory, restored in place (see :mod:`engine.app.savestate`):
        the physics world, every entity, the coins, checkpoint, deaths, ticks, the last
        tick's input and the event log (the player's motor state is the player's)."""
        payload = (
            self.physics.capture(),
            self.entities.capture(),
            (
                frozenset(self.collected),
                self.checkpoint_id,
                self.completed,
                self.deaths,
                self.ticks,
                self.input,
            ),
            (tuple(self.events), self.events.count),
        )
        return Savestate(self.ticks, payload)

    def restore(self, state: Savestate) -> None:
        """Put the level back to ``state`` (it stays usable for more restores)."""
        physics, entities, counters, (events, count) = state.payload
        self.physics.restore(physics)
        self.entities.restore(entities)
        collected, self.checkpoint_id, self.completed, self.deaths, self.ticks, self.input = (
            counters
        )
        self.collected = set(collected)
        self.events.restore(events, count)

    # -- queries -------------------------------------------------------------------------------
    @property
    def respawn_point(self) -> tuple[float, float]:
        """Where the feet go on respawn: the last checkpoint's bottom centre, or the start."""
        for checkpoint in self.level.checkpoints:
            if checkpoint.id == self.checkpoint_id:
                return checkpoint.feet_px
        return self.level.player_start.feet_px

    @property
    def respawns(self) -> int:
        """How often the player was sent back to a checkpoint or the start (the deaths)."""
        return self.deaths

    @property
    def player_feet_px(self) -> tuple[float, float]:
        """Where the player's feet are (the bottom centre of its box): the solver's position."""
        return self.player.position_px

    @property
    def player_velocity_px_s(self) -> tuple[float, float]:
        """The player's velocity (the solver tells states apart by it)."""
        velocity = self.player.body.velocity
        return (float(velocity.x), float(velocity.y))

    @property
    def player_body(self) -> pymunk.Body:
        """The player's body (the solver watches the other bodies near it)."""
        body: pymunk.Body = self.player.body
        return body

    def solver_lifts(self) -> list[tuple[float, float, float, float]]:
        """Boxes ``(left, bottom, right, top)`` px where something lifts the player higher than
        a jump from the ground (for the solver's heuristic, :mod:`engine.app.solver`): ladders,
        the air a spring throws to, where moving platforms travel and swings swing."""
        from game.entities.gadgets import Ladder, Spring
        from game.entities.platforms import MovingPlatform, Swing

        tile = float(self.level.tile_size_px)
        lifts = []
        for entity in self.entities:
            if isinstance(entity, Ladder):
                rect = entity.rect
                lifts.append((rect.left_px, rect.bottom_px, rect.right_px, rect.top_px + tile))
            elif isinstance(entity, Spring):
                rect = entity.rect
                top = rect.bottom_px + entity.height_px + tile
                lifts.append((rect.left_px - tile, rect.bottom_px, rect.right_px + tile, top))
            elif isinstance(entity, MovingPlatform):
                xs = [x for x, _ in entity.path_px]
                ys = [y for _, y in entity.path_px]
                half = entity.obj.rect.width_px / 2 + tile
                lifts.append((min(xs) - half, min(ys) - tile, max(xs) + half, max(ys) + 2 * tile))
            elif isinstance(entity, Swing):
                x, y = entity.pivot_px
                reach = entity.rope_px + tile
                lifts.append((x - reach, y - reach, x + reach, y))
        return lifts

    @property
    def player_grounded(self) -> bool:
        """The player stands on something (the solver tells standing from the top of a jump)."""
        return self.player.state.grounded

    @property
    def player_hurt(self) -> bool:
        """The player is hurt (frozen before it respawns): a search gives that path up."""
        return self.player.hurt

    @property
    def coins_collected(self) -> int:
        """Number of coins collected."""
        return len(self.collected)

    def boxes(
        self, left: float, bottom: float, right: float, top: float, *, exclude: object = None
    ) -> list[pymunk.Shape]:
        """Solid shapes (not sensors, not the player) whose boxes overlap the given box, in a
        stable order (see :func:`game.collision.query_boxes`)."""
        return query_boxes(self.physics.space, (left, bottom, right, top), exclude=exclude)

    def overlaps_player(self, box: tuple[float, float, float, float]) -> bool:
        """Whether ``box`` (left, bottom, right, top) overlaps the player's box (touching is not).

        A hurt player touches nothing.
        """
        if self.player.hurt:
            return False
        left, bottom, right, top = self.player.box()
        b_left, b_bottom, b_right, b_top = box
        return left < b_right and b_left < right and bottom < b_top and b_bottom < top

    def entities_of(self, cls: type[Entity]) -> list[Entity]:
        """Live entities of one class, in tick order."""
        return list(self.entities.of_type(cls))

    # -- verification ----------------------------------------------------------------------------
    def state_hash(self) -> str:
        """A fingerprint of the whole level state, for replays and determinism checks.

        Combines the physics world's hash (every registered body's snapshot), every entity's
        state (:meth:`Entities.state_digest`), the collected coins, the checkpoint, completion,
        deaths and the tick count.

        Returns:
            A 32-character hex digest.
        """
        digest = hashlib.blake2b(digest_size=16)
        parts = (
            self.physics.state_hash(),
            self.entities.state_digest(),
            repr(sorted(self.collected)),
            repr(self.checkpoint_id),
            repr(self.completed),
            repr(self.deaths),
            repr(self.ticks),
        )
        digest.update("\n".join(parts).encode())
        return digest.hexdigest()
