"""What a loaded level is: plain frozen values in engine pixels (y up), and its one error type.

Nothing here reads files or draws: :mod:`engine.levels.tiled` builds these from a Tiled map,
the game turns them into sprites and bodies. Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

DEFAULT_PLATFORM_SPEED_PX_S = 120.0
"""Speed of a moving platform without a ``speed_px_s`` property."""

PropertyValue = bool | int | float | str | dict[str, Any]
"""What a Tiled custom property can hold (``dict`` for class-typed properties)."""


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    """Collapse any line breaks so a message always prints as exactly one line."""
    return " ".join(text.split())


class LevelError(Exception):
    """A problem with a level file, reported as exactly one line.

    ``str(error)`` is ``level error: <source>: <where>: <detail>`` where ``source`` is the file
    as given, ``where`` names the object (``object 17 "lift"``), layer (``layer "solid"``) or
    tileset, and is left out for problems with the whole map.

    Attributes:
        source: The level file, as given to :func:`load_level`.
        detail: What is wrong, without the prefix.
        where: The object, layer or tileset concerned, or None for the whole map.
    """

    def __init__(self, source: str, detail: str, where: str | None = None) -> None:
        self.source = _one_line(source)
        self.detail = _one_line(detail)
        self.where = _one_line(where) if where else None
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.where:
            return f"level error: {self.source}: {self.where}: {self.detail}"
        return f"level error: {self.source}: {self.detail}"


# ---------------------------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rect:
    """An axis-aligned rectangle in engine pixels (y up).

    Attributes:
        left_px: Smallest x.
        bottom_px: Smallest y (the bottom edge, since y points up).
        width_px: Width, ``>= 0`` (0 for a point object).
        height_px: Height, ``>= 0`` (0 for a point object).
    """

    left_px: float
    bottom_px: float
    width_px: float
    height_px: float

    @property
    def right_px(self) -> float:
        """Largest x."""
        return self.left_px + self.width_px

    @property
    def top_px(self) -> float:
        """Largest y (the top edge)."""
        return self.bottom_px + self.height_px

    @property
    def center_px(self) -> tuple[float, float]:
        """The centre ``(x, y)``; for a point object, the point itself."""
        return (self.left_px + self.width_px / 2, self.bottom_px + self.height_px / 2)


@dataclass(frozen=True, slots=True)
class TileRect:
    """A rectangle of whole tiles in Tiled's grid (row 0 is the *top* row).

    Attributes:
        column: Leftmost tile column.
        row: Topmost tile row.
        width_tiles: Number of columns, ``>= 1``.
        height_tiles: Number of rows, ``>= 1``.
    """

    column: int
    row: int
    width_tiles: int
    height_tiles: int


@dataclass(frozen=True, slots=True)
class LevelObject:
    """A marker object (start, checkpoint, exit, coin, hazard) in engine coordinates.

    Attributes:
        id: Tiled's object id (unique within the map).
        name: The object's name in Tiled (may be empty).
        kind: Its type/class, e.g. ``"coin"``.
        rect: Its area; a point object has ``width_px == height_px == 0``.
        properties: Its custom properties by name (read-only; excluded from hashing).
    """

    id: int
    name: str
    kind: str
    rect: Rect
    properties: Mapping[str, PropertyValue] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )

    @property
    def position_px(self) -> tuple[float, float]:
        """The centre of the object (the point itself for a point object)."""
        return self.rect.center_px


@dataclass(frozen=True, slots=True)
class MovingPlatform:
    """A moving platform: its box, the points its centre visits, and its speed.

    Attributes:
        id: Tiled's object id.
        name: The object's name in Tiled.
        rect: Size and starting place of the platform (engine px).
        path_px: The route's points in engine px, in order, at least two.
        speed_px_s: Travel speed along the path, ``> 0``.
    """

    id: int
    name: str
    rect: Rect
    path_px: tuple[tuple[float, float], ...]
    speed_px_s: float


@dataclass(frozen=True, slots=True)
class Level:
    """Everything the engine needs from one Tiled map, in engine pixels (y up).

    Attributes:
        name: The map's ``name`` property if it has one, else the file's stem.
        source: The file the level was loaded from.
        width_tiles: Map width in tiles.
        height_tiles: Map height in tiles.
        tile_size_px: Edge of one (square) tile in px.
        solid_rects: Merged solid ground, few large rectangles.
        one_way_rects: Merged one-way platforms (merged along rows only).
        solid_tile_count: Number of solid tiles before merging.
        one_way_tile_count: Number of one-way tiles before merging.
        player_start: Where the player appears.
        checkpoints: Checkpoint objects, in file order.
        exits: Level exits, at least one.
        coins: Coins, in file order.
        hazards: Rectangles that hurt.
        moving_platforms: Moving platforms with their paths and speeds.
    """

    name: str
    source: Path
    width_tiles: int
    height_tiles: int
    tile_size_px: int
    solid_rects: tuple[Rect, ...]
    one_way_rects: tuple[Rect, ...]
    solid_tile_count: int
    one_way_tile_count: int
    player_start: LevelObject
    checkpoints: tuple[LevelObject, ...]
    exits: tuple[LevelObject, ...]
    coins: tuple[LevelObject, ...]
    hazards: tuple[LevelObject, ...]
    moving_platforms: tuple[MovingPlatform, ...]

    @property
    def width_px(self) -> int:
        """Map width in px."""
        return self.width_tiles * self.tile_size_px

    @property
    def height_px(self) -> int:
        """Map height in px."""
        return self.height_tiles * self.tile_size_px
