"""Drawing a level's tile and image layers, with parallax and tile animations that follow ticks.

The layers come from the same :class:`~engine.levels.model.Level` the simulation uses (not from
a second parse by ``arcade.load_tilemap``), so whatever the level checker accepts is drawn, and
the art is scaled by the level's ``art_scale`` to the game's tile size.

Per frame the work is one ``SpriteList.draw()`` per layer: each layer's sprites are built once.
Parallax layers (Tiled's parallax factor) are drawn with the camera position multiplied by their
factor, so a distant background scrolls slower. Animated tiles (Tiled's tile animations) change
texture when their frame changes, which depends only on the tick (milliseconds in Tiled are
converted to whole ticks), never on the frame rate: a replay and its screenshots are exact.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import arcade
import numpy as np

from engine.levels.merge import GID_FLAG_MASK, mask_gid
from engine.levels.model import ImageLayer, Level, TileArt, TileLayer

__all__ = ["LayerView", "TileMapView", "texture_for"]

FLIP_HORIZONTAL = 0x80000000
FLIP_VERTICAL = 0x40000000
FLIP_DIAGONAL = 0x20000000

_TEXTURES: dict[tuple[Any, ...], arcade.Texture] = {}
_IMAGE_TEXTURES: dict[tuple[Any, ...], tuple[arcade.Texture, float]] = {}


def texture_for(art: TileArt | str | Path, flags: int = 0) -> arcade.Texture:
    """The texture of a tile's art (or an image file), with Tiled's flip flags applied; cached."""
    key = (art, flags & (FLIP_HORIZONTAL | FLIP_VERTICAL | FLIP_DIAGONAL))
    texture = _TEXTURES.get(key)
    if texture is not None:
        return texture
    if isinstance(art, TileArt):
        base = _TEXTURES.get((art, 0))
        if base is None:
            from PIL import Image

            with Image.open(art.image) as image:
                full = image.convert("RGBA")
            box = (art.x_px, art.y_px, art.x_px + art.width_px, art.y_px + art.height_px)
            cropped = full if box == (0, 0, *full.size) else full.crop(box)
            base = arcade.Texture(
                cropped,
                hash=f"tile:{art.image}:{box}",
                hit_box_algorithm=arcade.hitbox.algo_bounding_box,
            )
            _TEXTURES[(art, 0)] = base
    else:
        # The bounding box, not arcade's default hit box traced around the opaque pixels: a
        # sprite's left and bottom follow its hit box, so a picture with a transparent bottom
        # (clouds) would otherwise be placed too low.
        base = _TEXTURES.get((str(art), 0)) or arcade.load_texture(
            str(art), hit_box_algorithm=arcade.hitbox.algo_bounding_box
        )
        _TEXTURES[(str(art), 0)] = base
    texture = base
    if flags & FLIP_DIAGONAL:
        texture = texture.flip_diagonally()
    if flags & FLIP_HORIZONTAL:
        texture = texture.flip_left_right()
    if flags & FLIP_VERTICAL:
        texture = texture.flip_top_bottom()
    _TEXTURES[key] = texture
    return texture


def image_texture(path: Path, scale: float) -> tuple[arcade.Texture, float, float]:
    """An image layer's texture, the scale to draw it at and how far above the image's bottom
    the texture starts (in drawn pixels); cached.

    Scaled down (``scale < 1``, e.g. art drawn at 128 px tiles in a game of 32 px tiles), the
    picture is shrunk once here, with nearest-neighbour sampling, and drawn at scale 1; and its
    fully transparent rows at the top and bottom are cut off (a band of clouds is a small part of
    its picture). In software GL a full-screen backdrop layer costs a blend for every pixel it
    covers, transparent or not, and its size in the texture atlas.
    """
    if scale >= 1.0:
        return texture_for(path), scale, 0.0
    key = ("image", str(path), scale)
    cached = _IMAGE_TEXTURES.get(key)
    if cached is None:
        from PIL import Image

        with Image.open(path) as image:
            full = image.convert("RGBA")
        size = (max(1, round(full.width * scale)), max(1, round(full.height * scale)))
        small = full.resize(size, Image.Resampling.NEAREST)
        box = small.getchannel("A").getbbox()
        upper, lower = (box[1], box[3]) if box is not None else (0, 1)
        texture = arcade.Texture(
            small.crop((0, upper, small.width, lower)),  # whole width: it may repeat
            hash=f"image:{path}:{scale}",
            hit_box_algorithm=arcade.hitbox.algo_bounding_box,
        )
        cached = _IMAGE_TEXTURES[key] = (texture, float(small.height - lower))
    texture, lift_px = cached
    return texture, 1.0, lift_px


def frames_in_ticks(animation: Iterable[tuple[int, int]], step_ms: float) -> list[tuple[int, int]]:
    """Tiled's ``(gid, duration_ms)`` frames as ``(gid, ticks)``, each at least one tick."""
    return [(gid, max(1, round(duration_ms / step_ms))) for gid, duration_ms in animation]


def frame_at(frames: list[tuple[int, int]], position_ticks: int) -> int:
    """Which frame of ``(gid, ticks)`` frames shows ``position_ticks`` into the cycle."""
    for index, (_, ticks) in enumerate(frames):
        if position_ticks < ticks:
            return index
        position_ticks -= ticks
    return len(frames) - 1


@dataclass
class _Animated:
    sprite: arcade.Sprite
    frames: list[tuple[int, int]]  # (gid, ticks)
    flags: int
    cycle_ticks: int
    shown: int = -1


@dataclass
class LayerView:
    """One drawable layer: its sprites, parallax factor, and whether it is drawn above the player."""

    name: str
    sprites: arcade.SpriteList[arcade.Sprite]
    parallax: tuple[float, float]
    foreground: bool


class TileMapView:
    """The layers of a level as sprite lists.

    Args:
        level: The level, already scaled to the game's tile size.
        step_s: The tick length (tile animation frames are whole ticks).
    """

    def __init__(self, level: Level, step_s: float) -> None:
        self.level = level
        self.scale = level.art_scale
        self.layers: list[LayerView] = []
        self._animated: list[_Animated] = []
        self._step_ms = step_s * 1000.0
        for layer in level.layers:
            if not layer.visible or layer.opacity <= 0:
                continue
            if isinstance(layer, TileLayer):
                self.layers.append(self._tile_layer(layer))
            else:
                self.layers.append(self._image_layer(layer))

    def _tile_layer(self, layer: TileLayer) -> LayerView:
        sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList(lazy=True, capacity=64)
        tile = self.level.tile_size_px
        height_px = self.level.height_px
        offset_x, offset_y = layer.offset_px
        opacity = round(255 * max(0.0, min(1.0, layer.opacity)))
        cells = np.asarray(layer.cells, dtype=np.uint32)
        for index in np.flatnonzero(
            cells & ~np.uint32(GID_FLAG_MASK)
        ).tolist():  # the painted cells only
            raw_gid = layer.cells[index]
            art = self.level.tiles[mask_gid(raw_gid)]
            row, column = divmod(index, layer.width_tiles)
            texture = texture_for(art, raw_gid)
            # Tiled draws a tile image from the cell's bottom-left corner (taller art reaches up).
            # The centre is given at once: setting left and bottom would work the hit box out
            # twice per tile (a bounding box, so the same place), most of a level's build time.
            sprite = arcade.Sprite(
                texture,
                scale=self.scale,
                center_x=column * tile + offset_x + texture.width * self.scale / 2,
                center_y=height_px - (row + 1) * tile + offset_y + texture.height * self.scale / 2,
            )
            if opacity < 255:
                sprite.alpha = opacity
            sprites.append(sprite)
            if art.animation:
                frames = frames_in_ticks(art.animation, self._step_ms)
                cycle = sum(ticks for _, ticks in frames)
                self._animated.append(_Animated(sprite, frames, raw_gid, cycle))
        return LayerView(layer.name, sprites, layer.parallax, layer.foreground)

    def _image_layer(self, layer: ImageLayer) -> LayerView:
        sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList(lazy=True)
        texture, sprite_scale, lift_px = image_texture(layer.image, self.scale)
        width = texture.width * sprite_scale
        x = layer.offset_px[0]
        copies = 1
        if layer.repeat_x:
            copies = max(1, math.ceil(self.level.width_px * 2 / width) + 2)
            x -= width
        for copy in range(copies):
            sprite = arcade.Sprite(texture, scale=sprite_scale)
            sprite.left = x + copy * width
            sprite.bottom = layer.offset_px[1] + lift_px
            sprite.alpha = round(255 * max(0.0, min(1.0, layer.opacity)))
            sprites.append(sprite)
        return LayerView(layer.name, sprites, layer.parallax, layer.foreground)

    def advance(self, tick: int) -> None:
        """Show each animated tile's frame for ``tick`` (cheap when nothing changes)."""
        for animated in self._animated:
            index = frame_at(animated.frames, tick % animated.cycle_ticks)
            if index != animated.shown:
                animated.shown = index
                art = self.level.tiles[animated.frames[index][0]]
                animated.sprite.texture = texture_for(art, animated.flags)

    def draw(
        self,
        camera: arcade.Camera2D,
        view_position_px: tuple[float, float],
        *,
        foreground: bool,
    ) -> None:
        """Draw the background (or foreground) layers with ``camera`` at ``view_position_px``.

        A layer with parallax ``(px, py)`` is drawn as if the camera were at
        ``(x * px, y * py)`` plus the difference that keeps the level's left and bottom edges
        in place at the start (so parallax 1 is the level itself).

        Afterwards ``camera`` is in use at ``view_position_px``, for the world drawn next; a
        foreground pass without foreground layers (most levels) touches nothing.
        """
        layers = [
            layer for layer in self.layers if layer.foreground == foreground and layer.sprites
        ]
        if foreground and not layers:
            return  # a camera's use() costs matrices and uniform writes: none for nothing
        x, y = view_position_px
        used: tuple[float, float] | None = None  # where the camera was last used
        for layer in layers:
            px, py = layer.parallax
            if (px, py) == (1.0, 1.0):
                position = (x, y)
            else:
                half_w, half_h = camera.viewport_width / 2, camera.viewport_height / 2
                position = (half_w + (x - half_w) * px, half_h + (y - half_h) * py)
            if position != used:  # a camera's use() costs matrices and uniform writes
                camera.position = position
                camera.use()
                used = position
            layer.sprites.draw(pixelated=True)
        if used != (x, y):
            camera.position = (x, y)
            camera.use()
