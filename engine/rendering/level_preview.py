"""A level's thumbnail: one pixel per tile, computed from the level's data (no screenshot).

The level select screen shows a small picture of each level. Drawing the level itself would need
its art loaded; a map of what the player meets reads better at thumbnail size anyway: the sky
in the level's background colour, solid ground in earth brown with a grass line on top,
one-way platforms, hazards in red, coins in gold, the start in blue and the exit in white.
:func:`preview_rgba` computes it as one numpy array (row 0 at the top, as images are), so any
map, even one made by someone else, gets a preview with no work.

Pure: numpy only; the screen turns the array into a texture.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.levels.model import Level, LevelObject, TileLayer

__all__ = ["preview_rgba"]

SKY = (120, 190, 235)
GROUND = (120, 84, 56)
GRASS = (120, 200, 70)
ONE_WAY = (200, 170, 120)
HAZARD = (230, 60, 50)
COIN = (255, 214, 64)
START = (70, 130, 255)
EXIT = (255, 255, 255)


def _cells(layer: TileLayer) -> npt.NDArray[np.bool_]:
    cells = np.asarray(layer.cells, dtype=np.int64).reshape(layer.height_tiles, layer.width_tiles)
    solid: npt.NDArray[np.bool_] = cells != 0
    return solid


def _tile_box(level: Level, obj: LevelObject) -> tuple[int, int, int, int]:
    """The object's cells as (first row, last row + 1, first column, last column + 1)."""
    tile = level.tile_size_px
    rect = obj.rect
    left = int(rect.left_px // tile)
    right = max(left + 1, int(-(-(rect.left_px + rect.width_px) // tile)))
    top = level.height_tiles - int(-(-(rect.bottom_px + rect.height_px) // tile))
    bottom = max(top + 1, level.height_tiles - int(rect.bottom_px // tile))
    return max(top, 0), max(bottom, 0), max(left, 0), max(right, 0)


def preview_rgba(level: Level) -> npt.NDArray[np.uint8]:
    """The level as ``(height_tiles, width_tiles, 4)`` RGBA, one pixel per tile."""
    height, width = level.height_tiles, level.width_tiles
    image = np.empty((height, width, 4), dtype=np.uint8)
    image[..., :3] = level.background_color or SKY
    image[..., 3] = 255
    solid = np.zeros((height, width), dtype=bool)
    for layer in level.layers:
        if not isinstance(layer, TileLayer) or not layer.visible or layer.role == "decor":
            continue
        cells = _cells(layer)[:height, :width]
        rows, cols = cells.shape
        if layer.role == "solid":
            solid[:rows, :cols] |= cells
        else:
            image[:rows, :cols][cells, :3] = ONE_WAY
    image[solid, :3] = GROUND
    surface = solid.copy()
    surface[1:] &= ~solid[:-1]  # solid with open sky above: the grass line
    image[surface, :3] = GRASS
    for objects, color in (
        (level.hazards, HAZARD),
        (level.coins, COIN),
        (level.exits, EXIT),
        ((level.player_start,), START),
    ):
        for obj in objects:
            top, bottom, left, right = _tile_box(level, obj)
            image[top:bottom, left:right, :3] = color
    return image
