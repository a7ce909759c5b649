"""Drawing entities: one sprite per entity with a look, textures chosen by tick, poses in bulk.

Entities (:mod:`engine.entities`) are simulation: they say how they look as data
(:class:`~engine.entities.entity.Look`), which animation state they are in and since which tick
(:class:`~engine.entities.animation.Animator`), which way they face, whether they are visible.
:class:`EntitySprites` keeps one arcade sprite per such entity and shows that state:

* per **tick** (:meth:`EntitySprites.update`): sprites for new entities, none for despawned ones,
  the texture of each entity's current animation frame (changed only when the frame changes),
  visibility, opacity, and the position of entities without a body;
* per **frame** (:meth:`EntitySprites.draw`): the interpolated poses of every entity that
  registered a body with the physics world (``world.physics.add(body, sprite=entity)``), in one
  bulk write (:class:`~engine.rendering.sprite_sync.SpriteSync`), then one ``draw()``.

Nothing here changes an entity: drawing with or without it leaves the state hash as it was.
"""

from __future__ import annotations

from typing import Any

import arcade

from engine.entities.entity import Entities, Entity, Look
from engine.physics.world import PhysicsWorld, PoseMode
from engine.rendering.sprite_sync import SpriteSync, TrackedSpriteList
from engine.rendering.tilemap import texture_for

__all__ = ["EntitySprites"]


class _Shown:
    """An entity's sprite and what it shows now."""

    __slots__ = ("key", "sprite")

    def __init__(self, sprite: arcade.Sprite) -> None:
        self.sprite = sprite
        self.key: tuple[object, ...] | None = None


class EntitySprites:
    """The sprites of a level's entities.

    Args:
        entities: The level's entities.
        physics: The physics world their bodies are registered with.
        art_scale: Scale of art drawn at the level's size (``Level.art_scale``), for looks
            without a height.
    """

    def __init__(self, entities: Entities[Any], physics: PhysicsWorld, art_scale: float) -> None:
        self.entities = entities
        self.physics = physics
        self.art_scale = art_scale
        self.sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList(lazy=True)
        self._shown: dict[Entity, _Shown] = {}
        self._sprite_of: dict[Entity, arcade.Sprite] = {}
        self.sync = SpriteSync(physics, self.sprite_list, sprite_of=self._lookup)

    def _lookup(self, drawn: object) -> object | None:
        return self._sprite_of.get(drawn) if isinstance(drawn, Entity) else None

    def update(self, tick: int) -> None:
        """Bring the sprites in line with the entities after ``tick`` (call once per tick)."""
        live: set[Entity] = set()
        for entity in self.entities:
            look = entity.look
            if look is None:
                continue
            live.add(entity)
            shown = self._shown.get(entity)
            if shown is None:
                shown = _Shown(arcade.Sprite())
                self._shown[entity] = shown
                self._sprite_of[entity] = shown.sprite
                self.sprite_list.append(shown.sprite)
            self._show(entity, look, shown, tick)
        for entity in [entity for entity in self._shown if entity not in live]:
            shown = self._shown.pop(entity)
            del self._sprite_of[entity]
            self.sprite_list.remove(shown.sprite)

    def _show(self, entity: Entity, look: Look, shown: _Shown, tick: int) -> None:
        animator = entity.animator
        if animator is not None and animator.state in look.clips:
            frames = look.clips[animator.state]
            frame = frames[animator.frame(tick) % len(frames)]
        else:
            frame = next(iter(look.clips.values()))[0]
        mirrored = look.flip_with_facing and (entity.facing < 0) != look.art_faces_left
        key = (id(look), frame, mirrored, entity.visible, entity.alpha)
        sprite = shown.sprite
        if key != shown.key:
            shown.key = key
            texture = texture_for(frame)
            if mirrored:
                texture = texture.flip_left_right()
            sprite.texture = texture
            if look.height_px is not None:
                sx = (
                    look.width_px or texture.width * look.height_px / texture.height
                ) / texture.width
                sprite.scale = (sx, look.height_px / texture.height)
            else:
                sprite.scale = self.art_scale
            sprite.visible = entity.visible
            sprite.alpha = entity.alpha
        if entity.body is None or entity.body not in self.physics:
            x, y = entity.position_px
            if look.anchor_bottom:
                y += sprite.height / 2
            if sprite.position != (x, y):
                sprite.position = (x, y)

    def draw(self, alpha: float, mode: PoseMode = "interpolate") -> None:
        """Write the bodies' interpolated poses and draw every entity sprite."""
        self.sync.write(alpha, mode)
        self.sprite_list.draw(pixelated=True)

    def sprite(self, entity: Entity) -> arcade.Sprite | None:
        """The sprite drawing ``entity`` (for effects and tests), or None."""
        return self._sprite_of.get(entity)
