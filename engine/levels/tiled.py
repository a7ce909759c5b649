"""Loading a Tiled JSON map into a :class:`~engine.levels.model.Level` (see :mod:`engine.levels`)."""

from __future__ import annotations

import base64
import bisect
import gzip
import json
import math
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeGuard

from engine.levels.merge import _tile_rect_to_px, mask_gid, merge_tiles
from engine.levels.model import (
    DEFAULT_PLATFORM_SPEED_PX_S,
    Level,
    LevelError,
    LevelObject,
    MovingPlatform,
    PropertyValue,
    Rect,
)

_OBJECT_KINDS = (
    "player_start",
    "checkpoint",
    "exit",
    "coin",
    "hazard",
    "moving_platform",
    "path",
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


def _is_number(value: object) -> TypeGuard[int | float]:
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
            value: Any = item.get("value")
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
