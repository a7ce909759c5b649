"""What a loaded level is: plain frozen values in engine pixels (y up), and its one error type.

Nothing here reads files or draws: :mod:`engine.levels.tiled` builds these from a Tiled map; the
game turns objects into entities and bodies, and :mod:`engine.rendering.tilemap` turns the
layers into sprites. One level value carries both, so what the level checker accepts is exactly
what the game plays and draws.

Scaling: maps are authored at the art's tile size (``map_tile_px``, 128 px for Kenney's art);
:meth:`Level.scaled` converts every length to the game's tile size: rectangles, points, layer
offsets, the merged ground, and each object property whose kind declares a length unit (see
:mod:`engine.levels.kinds`). Pure: standard library only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from engine.levels.kinds import Kind, Shape

__all__ = [
    "GroundShape",
    "ImageLayer",
    "Level",
    "LevelError",
    "LevelObject",
    "Rect",
    "TileArt",
    "TileLayer",
    "TileRect",
]


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


def one_line(text: str, limit: int = 300) -> str:
    """Collapse line breaks and control characters and shorten, so a message is one clean line."""
    cleaned = "".join(ch if ch.isprintable() else " " for ch in text)
    cleaned = " ".join(cleaned.split())
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 3] + "..."


def escaped(text: str, limit: int = 120) -> str:
    """A name as printed on a terminal: control characters, line breaks, escape sequences and
    lone surrogates as backslash escapes, shortened to ``limit`` characters with ``...``."""
    shown = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        for ch in text
    )
    shown = shown.encode("utf-8", "backslashreplace").decode("utf-8")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


MAX_NAME_CHARS = 256
"""Longest level name (the ``name`` map property): run files and split names record it."""


def name_problem(name: str) -> str | None:
    """Why a level name cannot be recorded, or None: one line, printable, at most
    :data:`MAX_NAME_CHARS` characters, no lone surrogate."""
    if len(name) > MAX_NAME_CHARS:
        return f"is {len(name):,} characters long, more than the {MAX_NAME_CHARS} allowed"
    if any(not ch.isprintable() for ch in name):
        return "must be one line of printable characters (no line breaks or control characters)"
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):
        return "holds a lone surrogate, which no file can store"
    return None


class LevelError(Exception):
    """A problem with a level file, reported as exactly one line.

    ``str(error)`` is ``level error: <source>: <where>: <detail>`` where ``source`` is the file
    as given, ``where`` names the object (``object 17 "lift"``), layer (``layer "solid"``) or
    tileset, and is left out for problems with the whole map.

    Attributes:
        source: The level file, as given to :func:`~engine.levels.tiled.load_level`.
        detail: What is wrong, without the prefix.
        where: The object, layer or tileset concerned, or None for the whole map.
    """

    def __init__(self, source: str, detail: str, where: str | None = None) -> None:
        self.source = one_line(source)
        self.detail = one_line(detail)
        self.where = one_line(where) if where else None
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.where:
            return f"level error: {self.source}: {self.where}: {self.detail}"
        return f"level error: {self.source}: {self.detail}"


# ---------------------------------------------------------------------------------------------
# Geometry
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

    def scaled(self, factor: float) -> Rect:
        """Every coordinate multiplied by ``factor``."""
        return Rect(
            self.left_px * factor,
            self.bottom_px * factor,
            self.width_px * factor,
            self.height_px * factor,
        )


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
class GroundShape:
    """Ground drawn as an object (a rectangle, polygon or polyline on a collision layer) or
    stored on a tile by Tiled's tile collision editor, in engine px (y up).

    Attributes:
        points_px: The outline, in order (a rectangle's four corners).
        closed: A polygon (True) or a polyline (False: ground along the line, no inside).
        one_way: Landed on from above, passed from below (else solid from every side).
        layer: The layer it came from (a tile layer, for a tile's collision shapes).
    """

    points_px: tuple[tuple[float, float], ...]
    closed: bool = True
    one_way: bool = False
    layer: str = ""

    @property
    def bounds(self) -> Rect:
        """The bounding box."""
        xs = [x for x, _ in self.points_px]
        ys = [y for _, y in self.points_px]
        return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))

    def scaled(self, factor: float) -> GroundShape:
        """Every coordinate multiplied by ``factor``."""
        return dataclasses.replace(
            self, points_px=tuple((x * factor, y * factor) for x, y in self.points_px)
        )


# ---------------------------------------------------------------------------------------------
# Objects
# ---------------------------------------------------------------------------------------------


def _frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class LevelObject:
    """One placed object, checked against its kind, in engine coordinates.

    Attributes:
        id: Tiled's object id (unique within the map; objects made from tiles or from
            arcade's conventions get fresh ids above the map's own).
        name: The object's name in Tiled (may be empty).
        kind: Its kind's name (an alias in the map is resolved to the kind's name).
        shape: ``point``, ``rectangle``, ``ellipse``, ``tile``, ``polyline`` or ``polygon``.
        rect: Its area (a polyline's or polygon's bounding box); a point has zero size.
        points_px: A polyline's or polygon's points, absolute, in order; empty otherwise.
        properties: Its custom properties, checked against the kind with defaults filled in
            (object references hold the referred object's id). Read-only; not hashed.
        gid: For a tile object or an object made from a painted tile: the tile (with Tiled's
            flip flags), whose art draws it; 0 otherwise.
        layer: The name of the layer it was placed on.
    """

    id: int
    name: str
    kind: str
    rect: Rect
    shape: Shape = "rectangle"
    points_px: tuple[tuple[float, float], ...] = ()
    properties: Mapping[str, Any] = field(default_factory=lambda: _frozen({}), hash=False)
    gid: int = 0
    layer: str = ""

    @property
    def position_px(self) -> tuple[float, float]:
        """The centre of the object (the point itself for a point object)."""
        return self.rect.center_px

    @property
    def feet_px(self) -> tuple[float, float]:
        """The bottom centre: where something standing on the spot has its feet."""
        return (self.rect.left_px + self.rect.width_px / 2, self.rect.bottom_px)

    @property
    def label(self) -> str:
        """``object 17 "lift"`` (or ``object 17``), as messages name it."""
        return f'object {self.id} "{self.name}"' if self.name else f"object {self.id}"


# ---------------------------------------------------------------------------------------------
# Layers and art
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TileArt:
    """Where one tile's picture is: an image file and the region of it.

    Attributes:
        image: The image file (absolute path).
        x_px: Left of the region in the image, px from the left.
        y_px: Top of the region in the image, px from the top.
        width_px: Width of the region.
        height_px: Height of the region.
        animation: Tiled's tile animation as ``(gid, duration_ms)`` frames (global ids), or
            empty for a still tile. Drawn advancing with ticks, never with wall time.
    """

    image: Path
    x_px: int
    y_px: int
    width_px: int
    height_px: int
    animation: tuple[tuple[int, int], ...] = ()


LayerRole = Literal["solid", "one_way", "decor"]
"""What a tile layer's tiles are for collision; objects come from tiles separately."""


@dataclass(frozen=True, slots=True)
class TileLayer:
    """One tile layer, for drawing (collision is already merged into :attr:`Level.solid_rects`).

    Attributes:
        name: The layer's name.
        role: ``solid``, ``one_way`` or ``decor``.
        width_tiles: Columns.
        height_tiles: Rows.
        cells: Tiled's gids (flip flags kept), row-major, row 0 at the *top*; 0 is empty.
            Cells that became objects are emptied here: their entity draws them.
        offset_px: The layer's drawing offset, engine px (y up).
        opacity: 0 (invisible) .. 1.
        visible: Tiled's visibility.
        parallax: Tiled's parallax factor ``(x, y)``: 1 scrolls with the level, 0.5 at half
            speed (a distant background), 0 stays on screen.
        foreground: Drawn above the player and the objects.
        properties: The layer's custom properties.
    """

    name: str
    role: LayerRole
    width_tiles: int
    height_tiles: int
    cells: tuple[int, ...]
    offset_px: tuple[float, float] = (0.0, 0.0)
    opacity: float = 1.0
    visible: bool = True
    parallax: tuple[float, float] = (1.0, 1.0)
    foreground: bool = False
    properties: Mapping[str, Any] = field(default_factory=lambda: _frozen({}), hash=False)


@dataclass(frozen=True, slots=True)
class ImageLayer:
    """A Tiled image layer: one picture (a sky, distant hills), often with parallax.

    Attributes:
        name: The layer's name.
        image: The image file (absolute path).
        offset_px: Where the image's bottom-left corner is drawn, engine px (y up).
        opacity: 0 .. 1.
        visible: Tiled's visibility.
        parallax: Tiled's parallax factor ``(x, y)``.
        repeat_x: Tile the image horizontally across the view.
        foreground: Drawn above the player and the objects.
    """

    name: str
    image: Path
    offset_px: tuple[float, float] = (0.0, 0.0)
    opacity: float = 1.0
    visible: bool = True
    parallax: tuple[float, float] = (1.0, 1.0)
    repeat_x: bool = False
    foreground: bool = False


# ---------------------------------------------------------------------------------------------
# The level
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Level:
    """Everything the engine needs from one Tiled map, in engine pixels (y up).

    Attributes:
        name: The map's ``name`` property if it has one, else the file's stem.
        source: The file the level was loaded from.
        width_tiles: Map width in tiles.
        height_tiles: Map height in tiles.
        tile_size_px: Edge of one (square) tile in px (the game's, after :meth:`scaled`).
        map_tile_px: Edge of one tile in the map file (the art's size): drawing scales the art
            by ``tile_size_px / map_tile_px``.
        solid_rects: Merged solid ground, few large rectangles.
        one_way_rects: Merged one-way platforms (merged along rows only).
        solid_tile_count: Number of solid tiles before merging.
        one_way_tile_count: Number of one-way tiles before merging.
        objects: Every object, checked against its kind, in file order (objects made from
            tiles after the map's own).
        layers: Tile and image layers in drawing order, bottom first.
        tiles: The art of every tile the map uses, by gid (flip flags cleared).
        kinds: The kinds the objects use, by name (scaling reads their units).
        conventions: ``"project"`` (this template's, strict), ``"arcade"`` (arcade's
            tutorial maps) or ``"foreign"`` (another engine's or tutorial's): for the last two,
            names give meaning and what is unsupported is a warning.
        warnings: One line each for what a foreign map uses that the engine leaves out.
        ground_shapes: Ground from objects and tile collision shapes (foreign maps).
        skipped_objects: How many of a foreign map's objects were left out (no known class).
        background_color: Tiled's map background colour ``(r, g, b)``, or None.
        properties: The map's custom properties.
    """

    name: str
    source: Path
    width_tiles: int
    height_tiles: int
    tile_size_px: int
    map_tile_px: int
    solid_rects: tuple[Rect, ...]
    one_way_rects: tuple[Rect, ...]
    solid_tile_count: int
    one_way_tile_count: int
    objects: tuple[LevelObject, ...]
    layers: tuple[TileLayer | ImageLayer, ...] = ()
    tiles: Mapping[int, TileArt] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    kinds: Mapping[str, Kind] = field(default_factory=lambda: MappingProxyType({}), hash=False)
    conventions: Literal["project", "arcade", "foreign"] = "project"
    warnings: tuple[str, ...] = ()
    ground_shapes: tuple[GroundShape, ...] = ()
    skipped_objects: int = 0
    background_color: tuple[int, int, int] | None = None
    properties: Mapping[str, Any] = field(default_factory=lambda: _frozen({}), hash=False)

    # -- sizes --------------------------------------------------------------------------------
    @property
    def width_px(self) -> int:
        """Map width in px."""
        return self.width_tiles * self.tile_size_px

    @property
    def height_px(self) -> int:
        """Map height in px."""
        return self.height_tiles * self.tile_size_px

    @property
    def art_scale(self) -> float:
        """How much the art is scaled when drawn: ``tile_size_px / map_tile_px``."""
        return self.tile_size_px / self.map_tile_px

    @property
    def has_ground(self) -> bool:
        """Whether anything can be stood on (tiles, one-way tiles or ground objects)."""
        return bool(self.solid_rects or self.one_way_rects or self.ground_shapes)

    # -- objects ------------------------------------------------------------------------------
    def of_kind(self, kind: str) -> tuple[LevelObject, ...]:
        """The objects of one kind, in file order."""
        return tuple(obj for obj in self.objects if obj.kind == kind)

    def object_by_id(self, object_id: int) -> LevelObject:
        """The object with this id.

        Raises:
            KeyError: No such object.
        """
        for obj in self.objects:
            if obj.id == object_id:
                return obj
        raise KeyError(f"{self.source}: no object {object_id}")

    def ref(self, obj: LevelObject, prop: str) -> LevelObject:
        """The object that ``obj``'s reference property ``prop`` points at (checked on load)."""
        return self.object_by_id(int(obj.properties[prop]))

    @property
    def player_start(self) -> LevelObject:
        """Where the player appears (exactly one per level)."""
        return self.of_kind("player_start")[0]

    @property
    def exits(self) -> tuple[LevelObject, ...]:
        """Level exits, at least one."""
        return self.of_kind("exit")

    @property
    def checkpoints(self) -> tuple[LevelObject, ...]:
        """Checkpoints, in file order."""
        return self.of_kind("checkpoint")

    @property
    def coins(self) -> tuple[LevelObject, ...]:
        """Coins, in file order."""
        return self.of_kind("coin")

    @property
    def hazards(self) -> tuple[LevelObject, ...]:
        """Areas that hurt."""
        return self.of_kind("hazard")

    @property
    def moving_platforms(self) -> tuple[LevelObject, ...]:
        """Moving platforms (their route: ``level.ref(platform, "path").points_px``)."""
        return self.of_kind("moving_platform")

    # -- scaling ------------------------------------------------------------------------------
    def scaled(self, tile_px: int) -> Level:
        """This level with every length converted to ``tile_px`` per tile.

        Positions, sizes, points, offsets, the merged ground and every object property whose
        kind gives it a length unit are multiplied by ``tile_px / tile_size_px``; nothing
        else changes. Scaling an already scaled level again is exact (factor 1 is a no-op).
        """
        factor = tile_px / self.tile_size_px
        if factor == 1.0:
            return self

        def scale_object(obj: LevelObject) -> LevelObject:
            kind = self.kinds.get(obj.kind)
            properties = dict(obj.properties)
            for name in kind.length_props() if kind is not None else ():
                value = properties.get(name)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    properties[name] = value * factor
            return dataclasses.replace(
                obj,
                rect=obj.rect.scaled(factor),
                points_px=tuple((x * factor, y * factor) for x, y in obj.points_px),
                properties=_frozen(properties),
            )

        def scale_layer(layer: TileLayer | ImageLayer) -> TileLayer | ImageLayer:
            x_px, y_px = layer.offset_px
            return dataclasses.replace(layer, offset_px=(x_px * factor, y_px * factor))

        return dataclasses.replace(
            self,
            tile_size_px=tile_px,
            solid_rects=tuple(rect.scaled(factor) for rect in self.solid_rects),
            one_way_rects=tuple(rect.scaled(factor) for rect in self.one_way_rects),
            objects=tuple(scale_object(obj) for obj in self.objects),
            layers=tuple(scale_layer(layer) for layer in self.layers),
            ground_shapes=tuple(shape.scaled(factor) for shape in self.ground_shapes),
        )
