"""Things the player touches: coins, checkpoints, hazards and exits.

Each is an area (the object's rectangle, or its point) checked against the player's box after
the physics step, in a fixed order (:attr:`~engine.entities.Entity.order` 30..33: coins before
checkpoints before hazards before exits), so a replay of the same inputs collects the same coins
on the same ticks. A hurt player touches nothing (:meth:`LevelWorld.overlaps_player`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.entities import Animator, Clip, Entity, Look
from engine.levels import LevelObject, Rect, mask_gid

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["Checkpoint", "Coin", "Exit", "Hazard", "tile_look"]

COIN_TEXTURE = ":resources:images/items/coinGold.png"
FLAG_TEXTURES = (":resources:images/items/flagGreen1.png", ":resources:images/items/flagGreen2.png")
EXIT_TEXTURE = ":resources:images/tiles/signExit.png"


def tile_look(obj: LevelObject, world: LevelWorld, default: str) -> Look | None:
    """How an object is drawn: a tile object with its tile's art, a point with ``default`` at
    tile size, a rectangle not at all (a zone: its art is painted in a decoration layer)."""
    art = world.level.tiles.get(mask_gid(obj.gid)) if obj.gid else None
    if art is not None:
        return Look.still(art, flip_with_facing=False)
    if obj.shape == "point":
        size = float(world.level.tile_size_px)
        return Look.still(default, height_px=size, flip_with_facing=False)
    return None


def _box(rect: Rect) -> tuple[float, float, float, float]:
    return (rect.left_px, rect.bottom_px, rect.right_px, rect.top_px)


class _Zone(Entity):
    """An area the player touches; drawn at the object's centre with the object's art."""

    def __init__(self, obj: LevelObject, world: LevelWorld, default_art: str | None) -> None:
        super().__init__()
        self.object_id = obj.id
        self.rect = obj.rect
        self.position_px = obj.position_px
        if default_art is not None:
            self.look = tile_look(obj, world, default_art)

    def touched(self, world: LevelWorld) -> bool:
        return world.overlaps_player(_box(self.rect))


class Coin(_Zone):
    """A collectable: touching it collects it (it disappears; the HUD counts it)."""

    order = 30

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__(obj, world, COIN_TEXTURE)

    def after_step(self, world: LevelWorld) -> None:
        if self.touched(world):
            world.collected.add(self.object_id)
            world.emit("coin", *self.position_px)
            world.entities.despawn(self)


class Checkpoint(_Zone):
    """Touching it moves the respawn point here; its flag waves once reached."""

    order = 31

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__(obj, world, FLAG_TEXTURES[0])
        if self.look is not None:  # the flag waves once reached
            self.look = Look(
                {"idle": (FLAG_TEXTURES[0],), "reached": FLAG_TEXTURES},
                height_px=float(world.level.tile_size_px),
                flip_with_facing=False,
            )
        self.animator = Animator({"idle": Clip(1), "reached": Clip(2, ticks_per_frame=12)}, "idle")

    def after_step(self, world: LevelWorld) -> None:
        if self.touched(world) and world.checkpoint_id != self.object_id:
            world.checkpoint_id = self.object_id
            assert self.animator is not None
            self.animator.play("reached", world.ticks)
            world.emit("checkpoint", *self.position_px)

    def hash_state(self) -> tuple[object, ...]:
        return self.animator.state_key() if self.animator is not None else ()


class Hazard(_Zone):
    """Touching it hurts (the art, spikes or lava, is painted in a decoration layer)."""

    order = 32

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__(obj, world, None)

    def after_step(self, world: LevelWorld) -> None:
        if self.touched(world):
            world.player.hurt_by(world, "hazard")


class Exit(_Zone):
    """Reaching it finishes the level."""

    order = 33

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__(obj, world, EXIT_TEXTURE)

    def after_step(self, world: LevelWorld) -> None:
        if not world.completed and self.touched(world):
            world.complete()
