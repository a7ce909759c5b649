"""Crates: real pymunk dynamics the player plays with.

A crate is a dynamic box under ``[physics]`` gravity, with friction: it falls, lands, stacks on
other crates, slides when pushed and stops. It cannot turn (infinite moment), so it stays a level
box the player can stand on. The player pushes a crate it walks into at half its run speed,
unless something solid is right behind it (:meth:`game.entities.player.Player.sweep`), and
presses on it with its weight while standing on it. A crate that falls out of the level comes
back where it started, so a level can never be left without the crate it needs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pymunk

from engine.entities import Entity
from engine.levels import LevelObject
from game.collision import CRATE
from game.entities.platforms import box_look

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["Crate"]

CRATE_TEXTURE = ":resources:images/tiles/boxCrate_double.png"
CRATE_FRICTION = 0.7
#: A crate this far below the map's bottom (in tiles) comes back to its start.
LOST_TILES = 4.0


class Crate(Entity):
    """A pushable, stackable box (see the module docstring).

    Attributes:
        returns: How many times it fell out of the level and came back.
    """

    order = 3

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.obj = obj
        self.home_px = obj.position_px
        self.mass = float(obj.properties["mass"])
        self.returns = 0
        self.look = box_look(obj, world, CRATE_TEXTURE)

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(self.mass, math.inf)
        self.body.position = self.home_px
        size = (self.obj.rect.width_px, self.obj.rect.height_px)
        self.shape = pymunk.Poly.create_box(self.body, size)
        self.shape.friction = CRATE_FRICTION
        self.shape.collision_type = CRATE
        world.physics.add(self.body, self.shape, sprite=self)

    def tick(self, world: LevelWorld) -> None:
        lost_below = -LOST_TILES * world.level.tile_size_px
        if float(self.body.position.y) < lost_below:
            self.body.velocity = (0.0, 0.0)
            world.physics.teleport(self.body, *self.home_px)
            self.returns += 1

    def hash_state(self) -> tuple[object, ...]:
        return (self.returns,)
