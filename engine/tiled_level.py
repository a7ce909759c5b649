"""Load Tiled JSON maps into a pure :class:`Level` description, and into pymunk.

`Tiled <https://www.mapeditor.org>`_ is the level editor this engine expects. Save levels as
JSON (``.json``/``.tmj``) *orthogonal*, *finite* maps; tilesets may be embedded or external
JSON files (``.tsj``/``.json``). This module reads such a map and returns a frozen
:class:`Level`: plain numbers in engine coordinates, nothing drawn, no arcade import. The game
turns it into sprites; :func:`add_static_geometry` turns its ground into pymunk shapes.

Coordinates
-----------
Tiled's y axis points **down** from the map's top-left corner. The engine (arcade and pymunk)
uses y **up** from the bottom-left corner. Every coordinate in a :class:`Level` is already in
engine pixels::

    x_px    = x_tiled
    y_up_px = map_height_px - y_down_px          # map_height_px = height_tiles * tile_size_px

A Tiled rectangle object has its ``(x, y)`` at its *top-left* corner, so its engine bottom is
``map_height_px - (y + height)``. Tile objects (objects with a ``gid``) are the exception: Tiled
anchors them at their *bottom-left* corner, so their engine bottom is ``map_height_px - y``.
Tile row 0 is the top row of the map; a tile at ``(column, row)`` covers engine x from
``column * tile`` to ``(column + 1) * tile`` and engine y from ``map_height_px - (row + 1) * tile``
to ``map_height_px - row * tile``. Object-layer offsets (``offsetx``/``offsety``) are applied.

Conventions
-----------
Tile layers (group layers are searched too, hidden layers count as well):

* a layer named ``solid``, or with a custom bool property ``solid = true``: every non-empty
  tile is solid ground. Solid tiles are merged into few rectangles (see below).
* a layer named ``one_way``, or with a custom bool property ``one_way = true``: platforms you
  can jump through from below and stand on. Runs of one-way tiles are merged along rows only
  (each row is its own landing surface). A cell may not be both solid and one-way.
* any other tile layer is decoration: the loader only checks its tile ids.

Object layers hold objects whose type (Tiled's ``type``, or ``class`` as written by Tiled 1.9)
is one of:

* ``player_start``: a point or rectangle; **exactly one** is required.
* ``exit``: a point or rectangle; **at least one** is required.
* ``checkpoint``, ``coin``: points or rectangles.
* ``hazard``: a rectangle (width and height > 0).
* ``moving_platform``: a rectangle, plus its route: a custom property ``path`` that is either a
  *string* naming a ``path`` object, or an *object* property pointing at one (Tiled's
  "attach" picker). Optional float property ``speed_px_s`` (> 0, default 120). The rectangle
  gives the platform's size and starting place; the path's points (engine px) are where the
  platform's *centre* goes, in order. Looping or ping-pong is the game's choice.
* ``path``: a polyline with at least 2 points, referenced by moving platforms.

Anything else (including an object without a type) is an error, so a typo never silently
drops a coin. Ellipses and tile objects count as their bounding rectangles; polygons, text and
rotated objects are rejected. Custom properties must match their declared Tiled type.

Merging solid tiles
-------------------
One pymunk shape per tile would be thousands of shapes and seams that snag a sliding player.
:func:`merge_tiles` merges greedily: first each row into horizontal runs, then a run joins the
rectangle from the row above when both have exactly the same x-span. A long floor becomes one
shape, a wall one shape, a platform one shape. The union of the rectangles is exactly the set of
solid tiles and no two rectangles overlap (the tests check this with hypothesis).
:attr:`Level.solid_tile_count` and ``len(Level.solid_rects)`` report how well it worked.

Errors
------
Every problem raises :class:`LevelError`, whose ``str()`` is one line naming the file, the
object (id and name), layer or tileset, and what is wrong::

    level error: levels/level2.json: object 17 "lift": moving_platform without a path ...

Command line
------------
``python -m engine.tiled_level FILE...`` loads each file and prints one summary line per level,
or the one-line error (on stderr) and exits with status 2.
"""

from __future__ import annotations

import base64
import bisect
import gzip
import json
import math
import sys
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pymunk

__all__ = [
    "DEFAULT_PLATFORM_SPEED_PX_S",
    "ONE_WAY_COLLISION_TYPE",
    "SOLID_COLLISION_TYPE",
    "Level",
    "LevelError",
    "LevelObject",
    "MovingPlatform",
    "Rect",
    "TileRect",
    "add_static_geometry",
    "load_level",
    "main",
    "mask_gid",
    "merge_tiles",
    "summary_line",
]

SOLID_COLLISION_TYPE = 1
"""pymunk ``collision_type`` of the merged solid ground shapes."""

ONE_WAY_COLLISION_TYPE = 2
"""pymunk ``collision_type`` of one-way platform shapes; the game filters contacts with it."""

DEFAULT_PLATFORM_SPEED_PX_S = 120.0
"""Speed of a moving platform without a ``speed_px_s`` property."""

GID_FLAG_MASK = 0xF0000000
"""The top four bits of a tile gid: flip horizontally/vertically/diagonally, hex rotation."""

_OBJECT_KINDS = (
    "player_start",
    "checkpoint",
    "exit",
    "coin",
    "hazard",
    "moving_platform",
    "path",
)

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


# ---------------------------------------------------------------------------------------------
# Pure helpers: gids and merging
# ---------------------------------------------------------------------------------------------


def mask_gid(raw_gid: int) -> int:
    """Return the tile id part of a gid, without Tiled's flip/rotation flags.

    Tiled stores flips in the top bits of each 32-bit gid (bit 32 horizontal, 31 vertical,
    30 diagonal, 29 hexagonal rotation, kept even on orthogonal maps). A flipped tile is still
    the same tile, so collision only needs the masked id; ``0`` means "no tile".

    Args:
        raw_gid: The value from the layer's ``data``.

    Returns:
        The global tile id, ``0`` for an empty cell.
    """
    return raw_gid & ~GID_FLAG_MASK


def merge_tiles(mask: Sequence[Sequence[bool]], *, vertical: bool = True) -> list[TileRect]:
    """Merge filled cells of a grid into few non-overlapping rectangles.

    Greedy and simple: each row is split into horizontal runs of filled cells; a run extends
    the rectangle from the row directly above when that rectangle has exactly the same x-span,
    otherwise it starts a new one. Floors, walls and platforms become one rectangle each.

    Args:
        mask: ``mask[row][column]`` is True for a filled cell; row 0 is the top row.
        vertical: False merges along rows only (every rectangle is one row tall).

    Returns:
        Rectangles sorted by ``(row, column)``; their union is exactly the filled cells.
    """
    done: list[TileRect] = []
    open_rects: dict[tuple[int, int], tuple[int, int]] = {}  # (x0, x1) -> (row0, height)
    for row, cells in enumerate(mask):
        next_open: dict[tuple[int, int], tuple[int, int]] = {}
        column = 0
        while column < len(cells):
            if not cells[column]:
                column += 1
                continue
            start = column
            while column < len(cells) and cells[column]:
                column += 1
            span = (start, column)
            if vertical and span in open_rects:
                row0, height = open_rects.pop(span)
                next_open[span] = (row0, height + 1)
            else:
                next_open[span] = (row, 1)
        for (x0, x1), (row0, height) in open_rects.items():
            done.append(TileRect(x0, row0, x1 - x0, height))
        open_rects = next_open
    for (x0, x1), (row0, height) in open_rects.items():
        done.append(TileRect(x0, row0, x1 - x0, height))
    done.sort(key=lambda r: (r.row, r.column))
    return done


def _tile_rect_to_px(tile_rect: TileRect, tile_size_px: int, map_height_px: int) -> Rect:
    """Convert a tile rectangle (row 0 at the top) to engine px (y up)."""
    return Rect(
        left_px=float(tile_rect.column * tile_size_px),
        bottom_px=float(map_height_px - (tile_rect.row + tile_rect.height_tiles) * tile_size_px),
        width_px=float(tile_rect.width_tiles * tile_size_px),
        height_px=float(tile_rect.height_tiles * tile_size_px),
    )


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def _quoted(text: str) -> str:
    """Wrap ``text`` in double quotes for a message (inner double quotes become single)."""
    return '"' + text.replace('"', "'") + '"'


def _type_name(value: object) -> str:
    """Name a JSON value's type the way Tiled does (``string``, not ``str``)."""
    return {bool: "bool", int: "int", float: "float", str: "string"}.get(
        type(value), type(value).__name__
    )


def _is_number(value: object) -> bool:
    """True for int and float, but not bool (``True`` is an int in Python)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _object_where(raw: Mapping[str, Any]) -> str:
    """``object 17 "lift"``, or ``object 17`` for an unnamed object."""
    name = raw.get("name")
    where = f"object {raw.get('id', '?')}"
    return f"{where} {_quoted(name)}" if isinstance(name, str) and name else where


def _read_json(path: Path, fail: Any, what: str) -> Any:
    """Read and parse one JSON file, turning every failure into a one-line error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise fail(f"{what} not found") from None
    except IsADirectoryError:
        raise fail(f"{what} is a directory, not a file") from None
    except UnicodeDecodeError as exc:
        raise fail(f"{what} is not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise fail(f"cannot read {what}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise fail(f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


class _Loader:
    """One map being loaded: the file, its raw JSON, and error helpers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.source = str(path)
        self.base_dir = path.parent

    def error(self, detail: str, where: str | None = None) -> LevelError:
        """Build (not raise) a :class:`LevelError` for this file."""
        return LevelError(self.source, detail, where)

    # -- small typed getters -------------------------------------------------------------------

    def positive_int(self, raw: Mapping[str, Any], key: str, where: str | None) -> int:
        """Read ``raw[key]`` as a whole number ``> 0``."""
        value = raw.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            shown = "missing" if value is None else repr(value)
            raise self.error(f'"{key}" must be a positive whole number, got {shown}', where)
        return value

    def number(self, raw: Mapping[str, Any], key: str, where: str, default: float = 0.0) -> float:
        """Read ``raw[key]`` as a finite number (``default`` when absent)."""
        value = raw.get(key, default)
        if not _is_number(value) or not math.isfinite(value):
            raise self.error(f'"{key}" must be a number, got {value!r}', where)
        return float(value)

    def properties(self, raw: Mapping[str, Any], where: str | None) -> dict[str, PropertyValue]:
        """Parse Tiled's custom property list, checking each value against its declared type."""
        items = raw.get("properties", [])
        if not isinstance(items, list):
            raise self.error('"properties" must be a list of {name, type, value}', where)
        checks: dict[str, Any] = {
            "bool": lambda v: isinstance(v, bool),
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "float": _is_number,
            "string": lambda v: isinstance(v, str),
            "file": lambda v: isinstance(v, str),
            "color": lambda v: isinstance(v, str),
            "object": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "class": lambda v: isinstance(v, dict),
        }
        result: dict[str, PropertyValue] = {}
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise self.error(f"malformed custom property {item!r}", where)
            name = item["name"]
            declared = item.get("type", "string")
            value = item.get("value")
            check = checks.get(declared)
            if check is None:
                raise self.error(f"property {_quoted(name)} has unknown type {declared!r}", where)
            if not check(value):
                raise self.error(
                    f"property {_quoted(name)} is declared {declared} "
                    f"but holds {_type_name(value)} {value!r}",
                    where,
                )
            result[name] = float(value) if declared == "float" else value
        return result

    def flag(self, props: Mapping[str, PropertyValue], name: str, where: str) -> bool:
        """Read an optional bool custom property (absent means False)."""
        value = props.get(name, False)
        if not isinstance(value, bool):
            raise self.error(
                f"property {_quoted(name)} must be a bool, got {_type_name(value)} {value!r}",
                where,
            )
        return value

    # -- tilesets ------------------------------------------------------------------------------

    def check_image(self, image: object, base_dir: Path, where: str) -> None:
        """Fail unless ``image`` names an existing file relative to ``base_dir``."""
        if not isinstance(image, str) or not image:
            raise self.error(f'"image" must be a file name, got {image!r}', where)
        image_path = base_dir / image
        if not image_path.is_file():
            raise self.error(f"image {_quoted(image)} not found (looked for {image_path})", where)

    def tileset_ranges(self, raw_map: Mapping[str, Any]) -> list[tuple[int, int | None, str]]:
        """Load every tileset; return ``(firstgid, end_gid or None, where)`` sorted by firstgid."""
        tilesets = raw_map.get("tilesets", [])
        if not isinstance(tilesets, list):
            raise self.error('"tilesets" must be a list')
        ranges: list[tuple[int, int | None, str]] = []
        for index, entry in enumerate(tilesets):
            where = f"tileset #{index + 1}"
            if not isinstance(entry, dict):
                raise self.error("must be an object", where)
            firstgid = self.positive_int(entry, "firstgid", where)
            data: Any = entry
            base_dir = self.base_dir
            source = entry.get("source")
            if source is not None:
                if not isinstance(source, str) or not source:
                    raise self.error(f'"source" must be a file name, got {source!r}', where)
                where = f"tileset {_quoted(source)}"
                if source.lower().endswith(".tsx"):
                    raise self.error(
                        "XML tilesets (.tsx) are not supported: export the tileset as JSON (.tsj)",
                        where,
                    )
                tileset_path = self.base_dir / source
                data = _read_json(
                    tileset_path,
                    lambda detail, where=where: self.error(detail, where),
                    f"tileset file {tileset_path}",
                )
                if not isinstance(data, dict):
                    raise self.error("tileset file must hold a JSON object", where)
                base_dir = tileset_path.parent
            elif isinstance(entry.get("name"), str) and entry["name"]:
                where = f"tileset {_quoted(entry['name'])}"
            tile_ids: list[int] = []
            if "image" in data:
                self.check_image(data["image"], base_dir, where)
            tiles = data.get("tiles", [])
            if not isinstance(tiles, list):
                raise self.error('"tiles" must be a list', where)
            for tile in tiles:
                if not isinstance(tile, dict):
                    raise self.error(f"malformed tile entry {tile!r}", where)
                if isinstance(tile.get("id"), int):
                    tile_ids.append(tile["id"])
                if "image" in tile:
                    self.check_image(tile["image"], base_dir, where)
            count = data.get("tilecount")
            end: int | None = None
            if isinstance(count, int) and not isinstance(count, bool):
                end = firstgid + max([count, *(tile_id + 1 for tile_id in tile_ids)])
            ranges.append((firstgid, end, where))
        ranges.sort(key=lambda item: item[0])
        return ranges

    # -- layers --------------------------------------------------------------------------------

    def flatten_layers(self, layers: object, where: str | None = None) -> list[dict[str, Any]]:
        """Return tile and object layers in file order, descending into group layers."""
        if not isinstance(layers, list):
            raise self.error('"layers" must be a list', where)
        flat: list[dict[str, Any]] = []
        for layer in layers:
            if not isinstance(layer, dict):
                raise self.error(f"malformed layer {layer!r}", where)
            if layer.get("type") == "group":
                flat.extend(self.flatten_layers(layer.get("layers", []), self.layer_where(layer)))
            else:
                flat.append(layer)
        return flat

    @staticmethod
    def layer_where(layer: Mapping[str, Any]) -> str:
        """``layer "solid"`` for messages."""
        name = layer.get("name")
        return f"layer {_quoted(name)}" if isinstance(name, str) else f"layer {layer.get('id')}"

    def tile_data(self, layer: Mapping[str, Any], width: int, height: int) -> list[int]:
        """Decode a tile layer's gids (CSV array or base64, optionally zlib/gzip compressed)."""
        where = self.layer_where(layer)
        if "chunks" in layer:
            raise self.error(
                "infinite maps (chunked layers) are not supported: turn off the map's "
                '"Infinite" property in Tiled and save again',
                where,
            )
        if layer.get("width", width) != width or layer.get("height", height) != height:
            raise self.error(
                f"layer is {layer.get('width')}x{layer.get('height')} tiles "
                f"but the map is {width}x{height}",
                where,
            )
        data = layer.get("data")
        encoding = layer.get("encoding", "csv")
        if encoding == "base64" and isinstance(data, str):
            compression = layer.get("compression", "")
            try:
                blob = base64.b64decode(data, validate=False)
                if compression == "zlib":
                    blob = zlib.decompress(blob)
                elif compression == "gzip":
                    blob = gzip.decompress(blob)
                elif compression:
                    raise self.error(
                        f"{compression} compression is not supported: "
                        "use CSV, or base64 uncompressed, zlib or gzip",
                        where,
                    )
            except (ValueError, zlib.error, OSError, EOFError) as exc:
                raise self.error(f"cannot decode tile data: {exc}", where) from None
            if len(blob) != 4 * width * height:
                raise self.error(
                    f"tile data has {len(blob) // 4} tiles, expected {width * height}", where
                )
            return [int.from_bytes(blob[i : i + 4], "little") for i in range(0, len(blob), 4)]
        if encoding != "csv" or not isinstance(data, list):
            raise self.error(f'"data" must be a list of tile ids (encoding {encoding!r})', where)
        if len(data) != width * height:
            raise self.error(f"tile data has {len(data)} tiles, expected {width * height}", where)
        for value in data:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**32:
                raise self.error(f"tile data holds {value!r}, not a 32-bit tile id", where)
        return data

    def check_gids(
        self,
        gids: Sequence[int],
        width: int,
        ranges: Sequence[tuple[int, int | None, str]],
        where: str,
    ) -> None:
        """Make sure every non-empty tile belongs to one of the map's tilesets."""
        firsts = [first for first, _end, _where in ranges]
        for index, raw_gid in enumerate(gids):
            gid = mask_gid(raw_gid)
            if gid == 0:
                continue
            slot = bisect.bisect_right(firsts, gid) - 1
            end = ranges[slot][1] if slot >= 0 else 0
            if slot < 0 or (end is not None and gid >= end):
                row, column = divmod(index, width)
                raise self.error(
                    f"tile at column {column}, row {row} has gid {gid}, which no tileset defines",
                    where,
                )

    # -- objects -------------------------------------------------------------------------------

    def object_rect(
        self, raw: Mapping[str, Any], where: str, offset: tuple[float, float], height_px: int
    ) -> Rect:
        """An object's area in engine px (see "Coordinates" in the module docstring)."""
        x = self.number(raw, "x", where) + offset[0]
        y = self.number(raw, "y", where) + offset[1]
        width = self.number(raw, "width", where)
        height = self.number(raw, "height", where)
        if width < 0 or height < 0:
            raise self.error(f"negative size {width}x{height}", where)
        if raw.get("point"):
            return Rect(x, height_px - y, 0.0, 0.0)
        if "gid" in raw:  # tile objects are anchored at their bottom-left corner
            return Rect(x, height_px - y, width, height)
        return Rect(x, height_px - (y + height), width, height)

    @staticmethod
    def object_shape(raw: Mapping[str, Any]) -> str:
        """What Tiled tool drew the object: point, ellipse, polygon, polyline, text, tile or rectangle."""
        for key in ("point", "ellipse", "polygon", "polyline", "text"):
            if raw.get(key):
                return key
        return "tile" if "gid" in raw else "rectangle"

    def polyline_points(
        self, raw: Mapping[str, Any], where: str, offset: tuple[float, float], height_px: int
    ) -> tuple[tuple[float, float], ...]:
        """A polyline's absolute points in engine px (Tiled stores them relative to x, y)."""
        x = self.number(raw, "x", where) + offset[0]
        y = self.number(raw, "y", where) + offset[1]
        points = raw.get("polyline")
        if not isinstance(points, list):
            raise self.error('"polyline" must be a list of points', where)
        result = []
        for point in points:
            if not isinstance(point, dict):
                raise self.error(f"malformed polyline point {point!r}", where)
            result.append(
                (
                    x + self.number(point, "x", where),
                    height_px - (y + self.number(point, "y", where)),
                )
            )
        return tuple(result)


def load_level(path: Path | str) -> Level:
    """Load one Tiled JSON map (see the module docstring for the conventions).

    Args:
        path: The ``.json``/``.tmj`` map file. External tilesets and images are looked up
            relative to it.

    Returns:
        The level in engine pixels (y up).

    Raises:
        LevelError: For anything wrong with the file, always as one line.
    """
    path = Path(path)
    loader = _Loader(path)
    raw = _read_json(path, loader.error, "file")
    if not isinstance(raw, dict):
        raise loader.error("a Tiled map must be a JSON object")
    if raw.get("type", "map") != "map":
        raise loader.error(f'not a Tiled map (its "type" is {raw.get("type")!r})')
    if raw.get("orientation") != "orthogonal":
        raise loader.error(
            f"only orthogonal maps are supported, this one is {raw.get('orientation')!r}"
        )
    if raw.get("infinite"):
        raise loader.error(
            "infinite maps (chunked layers) are not supported: turn off the map's "
            '"Infinite" property in Tiled and save again'
        )
    width = loader.positive_int(raw, "width", None)
    height = loader.positive_int(raw, "height", None)
    tile_w = loader.positive_int(raw, "tilewidth", None)
    tile_h = loader.positive_int(raw, "tileheight", None)
    if tile_w != tile_h:
        raise loader.error(f"tiles must be square, these are {tile_w}x{tile_h} px")
    tile_px = tile_w
    map_props = loader.properties(raw, "map properties")
    name = map_props.get("name", path.stem)
    if not isinstance(name, str):
        raise loader.error('property "name" must be a string', "map properties")

    ranges = loader.tileset_ranges(raw)

    solid = [[False] * width for _ in range(height)]
    one_way = [[False] * width for _ in range(height)]
    objects: list[tuple[dict[str, Any], tuple[float, float]]] = []
    for layer in loader.flatten_layers(raw.get("layers")):
        where = loader.layer_where(layer)
        kind = layer.get("type")
        if kind == "tilelayer":
            props = loader.properties(layer, where)
            is_solid = layer.get("name") == "solid" or loader.flag(props, "solid", where)
            is_one_way = layer.get("name") == "one_way" or loader.flag(props, "one_way", where)
            if is_solid and is_one_way:
                raise loader.error("a tile layer cannot be both solid and one_way", where)
            if (layer.get("offsetx") or layer.get("offsety")) and (is_solid or is_one_way):
                raise loader.error("collision tile layers must not have an offset", where)
            gids = loader.tile_data(layer, width, height)
            loader.check_gids(gids, width, ranges, where)
            if is_solid or is_one_way:
                grid, other = (solid, one_way) if is_solid else (one_way, solid)
                for index, raw_gid in enumerate(gids):
                    if mask_gid(raw_gid):
                        row, column = divmod(index, width)
                        if other[row][column]:
                            raise loader.error(
                                f"tile at column {column}, row {row} is both solid and one_way",
                                where,
                            )
                        grid[row][column] = True
        elif kind == "objectgroup":
            items = layer.get("objects", [])
            if not isinstance(items, list):
                raise loader.error('"objects" must be a list', where)
            offset = (
                loader.number(layer, "offsetx", where),
                loader.number(layer, "offsety", where),
            )
            for item in items:
                if not isinstance(item, dict):
                    raise loader.error(f"malformed object {item!r}", where)
                objects.append((item, offset))
        elif kind != "imagelayer":
            raise loader.error(f"unknown layer type {kind!r}", where)

    return _build_level(loader, name, width, height, tile_px, solid, one_way, objects)


def _build_level(
    loader: _Loader,
    name: str,
    width: int,
    height: int,
    tile_px: int,
    solid: list[list[bool]],
    one_way: list[list[bool]],
    objects: list[tuple[dict[str, Any], tuple[float, float]]],
) -> Level:
    """Second half of :func:`load_level`: classify objects and merge the collision grids."""
    height_px = height * tile_px
    markers: dict[str, list[LevelObject]] = {kind: [] for kind in _OBJECT_KINDS}
    platforms: list[tuple[dict[str, Any], str, LevelObject]] = []
    paths: list[tuple[dict[str, Any], tuple[tuple[float, float], ...]]] = []
    for item, offset in objects:
        where = _object_where(item)
        if not isinstance(item.get("id"), int):
            raise loader.error('object has no integer "id"', where)
        if "template" in item:
            raise loader.error("object templates are not supported: detach the template", where)
        kind = item.get("type") or item.get("class") or ""
        if kind not in _OBJECT_KINDS:
            shown = f"unknown object type {_quoted(kind)}" if kind else "object has no type/class"
            raise loader.error(f"{shown} (expected one of: {', '.join(_OBJECT_KINDS)})", where)
        if loader.number(item, "rotation", where) != 0:
            raise loader.error(f"{kind} must not be rotated", where)
        props = loader.properties(item, where)
        shape = loader.object_shape(item)
        if kind == "path":
            if shape != "polyline":
                raise loader.error(f"path must be a polyline, not a {shape}", where)
            paths.append((item, loader.polyline_points(item, where, offset, height_px)))
            continue
        if shape in ("polygon", "polyline", "text"):
            raise loader.error(f"{kind} must be a point or a rectangle, not a {shape}", where)
        rect = loader.object_rect(item, where, offset, height_px)
        if kind in ("hazard", "moving_platform") and (rect.width_px <= 0 or rect.height_px <= 0):
            raise loader.error(f"{kind} must be a rectangle with width and height > 0", where)
        obj = LevelObject(
            id=item["id"],
            name=str(item.get("name", "")),
            kind=kind,
            rect=rect,
            properties=MappingProxyType(props),
        )
        if kind == "moving_platform":
            platforms.append((item, where, obj))
        else:
            markers[kind].append(obj)

    starts = markers["player_start"]
    if not starts:
        raise loader.error(
            'no player_start object: add exactly one point or rectangle of type "player_start"'
        )
    if len(starts) > 1:
        second = starts[1]
        raise loader.error(
            f"second player_start (object {starts[0].id} is the first; exactly one is allowed)",
            _object_where({"id": second.id, "name": second.name}),
        )
    if not markers["exit"]:
        raise loader.error('no exit object: add at least one point or rectangle of type "exit"')

    moving = tuple(
        _moving_platform(loader, item, where, obj, paths) for item, where, obj in platforms
    )

    solid_tiles = merge_tiles(solid)
    one_way_tiles = merge_tiles(one_way, vertical=False)
    return Level(
        name=name,
        source=loader.path,
        width_tiles=width,
        height_tiles=height,
        tile_size_px=tile_px,
        solid_rects=tuple(_tile_rect_to_px(r, tile_px, height_px) for r in solid_tiles),
        one_way_rects=tuple(_tile_rect_to_px(r, tile_px, height_px) for r in one_way_tiles),
        solid_tile_count=sum(map(sum, solid)),
        one_way_tile_count=sum(map(sum, one_way)),
        player_start=starts[0],
        checkpoints=tuple(markers["checkpoint"]),
        exits=tuple(markers["exit"]),
        coins=tuple(markers["coin"]),
        hazards=tuple(markers["hazard"]),
        moving_platforms=moving,
    )


def _moving_platform(
    loader: _Loader,
    item: Mapping[str, Any],
    where: str,
    obj: LevelObject,
    paths: Sequence[tuple[dict[str, Any], tuple[tuple[float, float], ...]]],
) -> MovingPlatform:
    """Resolve a moving platform's path reference and speed."""
    speed = obj.properties.get("speed_px_s", DEFAULT_PLATFORM_SPEED_PX_S)
    if not _is_number(speed):
        raise loader.error(
            f'property "speed_px_s" must be a float, got {_type_name(speed)} {speed!r}', where
        )
    if not (math.isfinite(speed) and speed > 0):
        raise loader.error(f'property "speed_px_s" must be > 0, got {speed}', where)

    declared = {
        p.get("name"): p.get("type", "string")
        for p in item.get("properties", [])
        if isinstance(p, dict)
    }
    ref = obj.properties.get("path")
    if ref is None:
        raise loader.error(
            'moving_platform without a path: add a string property "path" naming a path '
            'polyline, or an object property "path" pointing at one',
            where,
        )
    if declared.get("path") == "object":
        found = [(raw, pts) for raw, pts in paths if raw.get("id") == ref]
        label = f"path object {ref}"
        if not found:
            raise loader.error(f'{label} not found (it must be a polyline of type "path")', where)
    elif isinstance(ref, str):
        found = [(raw, pts) for raw, pts in paths if raw.get("name") == ref]
        label = f"path {_quoted(ref)}"
        if not found:
            raise loader.error(f"{label} not found (no path object has that name)", where)
        if len(found) > 1:
            ids = ", ".join(str(raw.get("id")) for raw, _ in found)
            raise loader.error(f"{label} is ambiguous: objects {ids} share that name", where)
    else:
        raise loader.error(
            'property "path" must be a string (a path name) or an object reference, '
            f"got {_type_name(ref)} {ref!r}",
            where,
        )
    points = found[0][1]
    if len(points) < 2:
        raise loader.error(f"{label} has {len(points)} point(s), needs at least 2", where)
    return MovingPlatform(
        id=obj.id, name=obj.name, rect=obj.rect, path_px=points, speed_px_s=float(speed)
    )


# ---------------------------------------------------------------------------------------------
# pymunk
# ---------------------------------------------------------------------------------------------


def add_static_geometry(
    level: Level,
    space: pymunk.Space,
    *,
    friction: float = 1.0,
    elasticity: float = 0.0,
) -> list[pymunk.Shape]:
    """Add the level's solid ground and one-way platforms to ``space`` as static boxes.

    Each merged rectangle becomes one :class:`pymunk.Poly` box on ``space.static_body``
    (vertices in world px, so no body offset is involved). Solid boxes get
    :data:`SOLID_COLLISION_TYPE`, one-way boxes :data:`ONE_WAY_COLLISION_TYPE` so the game
    can let the player pass through them from below with a collision handler.
    Moving platforms, coins and hazards are left to the game.

    Args:
        level: A loaded level.
        space: The pymunk space to add to.
        friction: Friction of every box (pymunk multiplies it with the other shape's).
        elasticity: Bounciness of every box, 0 for none.

    Returns:
        The shapes added: solid boxes first, then one-way boxes, in ``level`` order.
    """
    shapes: list[pymunk.Shape] = []
    groups = (
        (level.solid_rects, SOLID_COLLISION_TYPE),
        (level.one_way_rects, ONE_WAY_COLLISION_TYPE),
    )
    for rects, collision_type in groups:
        for rect in rects:
            box = pymunk.Poly(
                space.static_body,
                [
                    (rect.left_px, rect.bottom_px),
                    (rect.right_px, rect.bottom_px),
                    (rect.right_px, rect.top_px),
                    (rect.left_px, rect.top_px),
                ],
            )
            box.friction = friction
            box.elasticity = elasticity
            box.collision_type = collision_type
            shapes.append(box)
    space.add(*shapes)
    return shapes


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def summary_line(level: Level, shown_path: str) -> str:
    """One human line describing a loaded level (used by the command line)."""
    return (
        f"{shown_path}: {_quoted(level.name)} {level.width_tiles}x{level.height_tiles} tiles "
        f"of {level.tile_size_px} px, solid {level.solid_tile_count} tiles -> "
        f"{len(level.solid_rects)} shapes, one-way {level.one_way_tile_count} tiles -> "
        f"{len(level.one_way_rects)} shapes, coins {len(level.coins)}, "
        f"checkpoints {len(level.checkpoints)}, exits {len(level.exits)}, "
        f"hazards {len(level.hazards)}, moving platforms {len(level.moving_platforms)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.tiled_level FILE...``: check levels, one line each.

    Returns:
        0 when every file loads, 2 when any fails (its error line goes to stderr).
    """
    from engine.launch import OneLineParser

    parser = OneLineParser(
        prog="python -m engine.tiled_level",
        description="Load Tiled JSON levels and print one summary line each.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="Tiled JSON map files")
    args = parser.parse_args(argv)
    status = 0
    for file in args.files:
        try:
            level = load_level(Path(file))
        except LevelError as exc:
            print(exc, file=sys.stderr)
            status = 2
        else:
            print(summary_line(level, file))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
