"""The sample game's entities: one class per kind of object, built from the level's objects.

The level world turns each checked :class:`~engine.levels.model.LevelObject` into the entity of
its kind (:data:`ENTITY_CLASSES`); kinds that are only data (``player_start``, ``path``) build
none. The player is made by the level world itself. Modules, one idea each:

* :mod:`~game.entities.player` — the player: the motor on a body, swept against the level;
* :mod:`~game.entities.zones` — coins, checkpoints, hazards, exits;
* :mod:`~game.entities.platforms` — moving, crumbling and swinging platforms;
* :mod:`~game.entities.enemies` — walkers and flyers, stomped from above;
* :mod:`~game.entities.gadgets` — springs and ladders;
* :mod:`~game.entities.crates` — pushable, stackable crates.

To add a kind: declare it in :mod:`game.kinds` (its Tiled class and typed properties), write its
entity class (an :class:`engine.entities.Entity` subclass taking ``(obj, world)``) and add it to
:data:`ENTITY_CLASSES`. game/README.md's "Recipe: add an enemy" walks through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.entities import Entity
from engine.levels import LevelObject
from game.entities.crates import Crate
from game.entities.enemies import Flyer, Walker
from game.entities.gadgets import Ladder, Spring
from game.entities.platforms import CrumblingPlatform, MovingPlatform, Swing
from game.entities.zones import Checkpoint, Coin, Exit, Hazard

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["ENTITY_CLASSES", "EntityFactory"]

EntityFactory = Callable[[LevelObject, "LevelWorld"], Entity]
"""What builds an entity: ``factory(obj, world)`` (an entity class is one)."""

ENTITY_CLASSES: dict[str, EntityFactory] = {
    "coin": Coin,
    "checkpoint": Checkpoint,
    "hazard": Hazard,
    "exit": Exit,
    "moving_platform": MovingPlatform,
    "crumbling_platform": CrumblingPlatform,
    "swing": Swing,
    "crate": Crate,
    "spring": Spring,
    "ladder": Ladder,
    "walker": Walker,
    "flyer": Flyer,
}
"""Kind name -> the entity class built for each object of that kind (kinds that are only data,
the start and paths, build none)."""
