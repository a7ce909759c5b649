"""Gadgets the player uses: springs that throw it up, ladders it climbs.

* :class:`Spring` — a red mushroom. Landing on it (or walking into it) while not going up throws
  the player ``launch_height_tiles`` high, whether jump is held or not; it squashes for a moment.
* :class:`Ladder` — an area the player can climb (:mod:`game.movement` reads
  :attr:`~game.movement.Contacts.ladder`). Its top is a ledge of collision type ``LADDER_TOP``:
  stood on like a one-way platform, passed through when climbing, and down climbs down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pymunk

from engine.entities import Animator, Clip, Entity, Look
from engine.levels import LevelObject, mask_gid
from game.collision import LADDER_TOP
from game.movement import launch_velocity

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["LADDER_TOP_PX", "Ladder", "Spring"]

SPRING_TEXTURE = ":resources:images/tiles/mushroomRed.png"
SQUASH_TICKS = 10
LADDER_TOP_PX = 4.0
"""Thickness of a ladder's top ledge, px."""


class Spring(Entity):
    """Throws the player up (see the module docstring)."""

    order = 25

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.rect = obj.rect
        tile = world.level.tile_size_px
        self.height_px = float(obj.properties["launch_height_tiles"]) * tile
        art = world.level.tiles.get(mask_gid(obj.gid)) if obj.gid else None
        texture = art if art is not None else SPRING_TEXTURE
        size = float(tile)
        self.look = Look(
            {"idle": (texture,), "boing": (texture,)}, height_px=size, flip_with_facing=False
        )
        self._squashed = Look(
            {"idle": (texture,), "boing": (texture,)},
            height_px=size * 0.7,
            width_px=size * 1.15,
            flip_with_facing=False,
            anchor_bottom=True,
        )
        self._standing = Look(
            self.look.clips, height_px=size, flip_with_facing=False, anchor_bottom=True
        )
        self.look = self._standing
        self.animator = Animator({"idle": Clip(1), "boing": Clip(1)}, "idle")
        self.position_px = obj.feet_px
        left = obj.rect.left_px if obj.shape != "point" else obj.feet_px[0] - size / 2
        width = obj.rect.width_px if obj.shape != "point" else size
        self.zone = (left, obj.feet_px[1], left + width, obj.feet_px[1] + size * 0.7)

    def after_step(self, world: LevelWorld) -> None:
        assert self.animator is not None
        if (
            self.animator.state == "boing"
            and world.ticks - self.animator.started_tick >= SQUASH_TICKS
        ):
            self.animator.play("idle", world.ticks)
            self.look = self._standing
        player = world.player
        if player.state.vy_px_s > 0 or not world.overlaps_player(self.zone):
            return
        player.launch(world, launch_velocity(self.height_px, world.tuning), "spring")
        self.animator.play("boing", world.ticks, restart=True)
        self.look = self._squashed

    def hash_state(self) -> tuple[object, ...]:
        return self.animator.state_key() if self.animator is not None else ()


class Ladder(Entity):
    """A climbable area with a ledge on top (see the module docstring)."""

    order = 26

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.rect = obj.rect
        art = world.level.tiles.get(mask_gid(obj.gid)) if obj.gid else None
        if art is not None:  # a single ladder tile placed as an object draws itself
            self.look = Look.still(art, flip_with_facing=False)
            self.position_px = obj.position_px

    def on_spawn(self, world: LevelWorld) -> None:
        rect = self.rect
        space = world.physics.space
        top = rect.top_px
        self.top_shape = pymunk.Poly(
            space.static_body,
            [
                (rect.left_px, top - LADDER_TOP_PX),
                (rect.right_px, top - LADDER_TOP_PX),
                (rect.right_px, top),
                (rect.left_px, top),
            ],
        )
        self.top_shape.collision_type = LADDER_TOP
        self.top_shape.friction = 0.9
        space.add(self.top_shape)
