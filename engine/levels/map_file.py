"""Reading a map file safely: what is checked before any parser sees it, and where images are.

A level file comes from anyone: a designer's Tiled, a download, a fuzzer. Before the map is
parsed (:mod:`engine.levels.tiled` hands it to pytiled_parser) this module makes sure that
parsing it is bounded and cannot hang:

* it is a **regular file** (a named pipe would block forever, ``/dev/zero`` never ends) of at
  most :data:`MAX_FILE_BYTES`;
* its **header** says an orthogonal, finite map of square tiles whose size is at most
  :data:`MAX_CELLS` cells (a 10⁶ x 10⁶ map is refused at once instead of exhausting memory);
* JSON that is not a map (or nested deeper than Python can parse) is one line, not a traceback.

It also finds images: a path may be relative to the map or tileset, or use arcade's
``:resources:`` prefix (arcade's own maps and many tutorials do), and every image must exist and
decode as an image (Pillow reads it), so a broken tileset is reported by the level checker
instead of crashing the game's first frame.

Pure: the standard library and Pillow (no GL).
"""

from __future__ import annotations

import json
import os
import stat
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Final

from engine.levels.level_cache import note_read

__all__ = [
    "MAX_CELLS",
    "MAX_FILE_BYTES",
    "MapHeader",
    "arcade_resources_dir",
    "check_image",
    "read_header",
]

MAX_FILE_BYTES: Final = 32 * 1024 * 1024
"""Largest map or tileset file read (32 MiB; the bundled maps are under 100 KiB)."""

MAX_CELLS: Final = 1_000_000
"""Most tiles a map may have (width x height), e.g. 2,000 x 500."""

MAX_TILE_PX: Final = 4096
"""Largest tile edge, px."""

RESOURCES_PREFIX: Final = ":resources:"


class MapHeader:
    """The first facts about a map: its format and size (already checked).

    Attributes:
        format: ``"json"`` or ``"tmx"``.
        width_tiles: Columns.
        height_tiles: Rows.
        tile_px: Edge of a (square) tile.
    """

    __slots__ = ("format", "height_tiles", "infinite", "tile_px", "width_tiles")

    def __init__(
        self, fmt: str, width_tiles: int, height_tiles: int, tile_px: int, infinite: bool = False
    ) -> None:
        self.format = fmt
        self.width_tiles = width_tiles
        self.height_tiles = height_tiles
        self.tile_px = tile_px
        self.infinite = infinite


Fail = Callable[[str], Exception]


def read_bytes(path: Path, what: str, fail: Fail) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_FILE_BYTES`, or ``fail(reason)``."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise fail(f"{what} not found") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise fail(f"cannot read {what}: {_reason(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise fail(f"{what} is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise fail(f"{what} is not a regular file (a pipe or a device is never read)")
    if info.st_size > MAX_FILE_BYTES:
        raise fail(f"{what} is {info.st_size:,} bytes, more than the {MAX_FILE_BYTES:,} allowed")
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise fail(f"cannot read {what}: {_reason(exc)}") from None
    if len(data) > MAX_FILE_BYTES:
        raise fail(f"{what} is more than the {MAX_FILE_BYTES:,} bytes allowed")
    note_read(path, data)  # a level loaded from it is kept only while its bytes stay the same
    return data


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return f"{type(exc).__name__}: {exc}"


def _whole(value: object, key: str, fail: Fail, *, maximum: int | None = None) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)  # TMX attributes are text
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        shown = "missing" if value is None else repr(value)[:40]
        raise fail(f'"{key}" must be a positive whole number, got {shown}')
    if maximum is not None and value > maximum:
        raise fail(f'"{key}" is {value:,}, more than the {maximum:,} allowed')
    return value


def read_header(path: Path, fail: Fail) -> MapHeader:
    """Check a map file before parsing it; return its header.

    Raises:
        Exception: Whatever ``fail(reason)`` builds, for the first problem found.
    """
    data = read_bytes(path, "file", fail)
    text_start = data.lstrip()[:1]
    if text_start == b"<":
        attributes, sources = _tmx_attributes(data, fail)
        fmt = "tmx"
    else:
        attributes = _json_attributes(data, fail)
        sources = _json_tileset_sources(attributes, fail)
        fmt = "json"
    for source in sources:
        _check_tileset_file(path.parent, source, fail)
    orientation = attributes.get("orientation")
    if orientation != "orthogonal":
        raise fail(f"only orthogonal maps are supported, this one is {orientation!r}")
    infinite = str(attributes.get("infinite", "0")).lower() in ("1", "true")
    width = _whole(attributes.get("width"), "width", fail, maximum=MAX_CELLS)
    height = _whole(attributes.get("height"), "height", fail, maximum=MAX_CELLS)
    if width * height > MAX_CELLS:
        raise fail(
            f"the map is {width:,} x {height:,} tiles, more than the {MAX_CELLS:,} tiles allowed"
        )
    tile_w = _whole(attributes.get("tilewidth"), "tilewidth", fail, maximum=MAX_TILE_PX)
    tile_h = _whole(attributes.get("tileheight"), "tileheight", fail, maximum=MAX_TILE_PX)
    if tile_w != tile_h:
        raise fail(f"tiles must be square, these are {tile_w}x{tile_h} px")
    return MapHeader(fmt, width, height, tile_w, infinite)


def _json_attributes(data: bytes, fail: Fail) -> dict[str, Any]:
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise fail(f"the file is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise fail(f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise fail("the JSON is nested too deeply to be a Tiled map") from None
    if not isinstance(raw, dict):
        raise fail("a Tiled map must be a JSON object")
    if raw.get("type", "map") != "map":
        raise fail(f'not a Tiled map (its "type" is {str(raw.get("type"))[:40]!r})')
    _check_fields(raw, "the map", fail, numbers=_MAP_NUMBERS)
    _check_json_layers(raw.get("layers"), fail)
    tilesets = raw.get("tilesets", [])
    if isinstance(tilesets, list):
        for tileset in tilesets:
            if isinstance(tileset, dict):
                _check_fields(tileset, "a tileset", fail, numbers=("firstgid",))
    return raw


_COMPRESSIONS = ("", "zlib", "gzip", "zstd")

# The fields the parser and the loader compute with, by what they must hold. pytiled_parser takes
# a JSON value as it is, so a list where a number belongs would fail deep inside it; these are
# checked first, so the message names the field (and the game never sees such a map).
_MAP_NUMBERS = ("nextobjectid", "nextlayerid", "compressionlevel")
_LAYER_NUMBERS = (
    "id", "x", "y", "width", "height", "offsetx", "offsety", "opacity", "parallaxx", "parallaxy",
    "startx", "starty", "imagewidth", "imageheight",
)  # fmt: skip
_OBJECT_NUMBERS = ("id", "x", "y", "width", "height", "rotation", "gid")
_TEXTS = ("name", "type", "class", "image", "tintcolor", "draworder", "encoding", "template")
_FLAGS = ("visible", "repeatx", "repeaty", "ellipse", "point", "locked")
_INTEGERS = ("id", "gid", "firstgid", "nextobjectid", "nextlayerid", "compressionlevel")
_LARGEST_NUMBER = 1e12
"""Larger coordinates and sizes than any map Tiled could save; refused before any arithmetic."""


def _check_fields(
    item: dict[str, Any], where: str, fail: Fail, *, numbers: tuple[str, ...]
) -> None:
    """``item``'s numbers are finite numbers (integers where Tiled writes them), texts are
    strings and flags are true or false, when present."""
    for key in numbers:
        if key not in item:
            continue
        value = item[key]
        whole = key in _INTEGERS
        kind = int if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kind):
            wanted = "a whole number" if whole else "a number"
            raise fail(f'{where}: "{key}" must be {wanted}, got {str(value)[:40]!r}')
        if not -_LARGEST_NUMBER <= value <= _LARGEST_NUMBER:  # also NaN
            raise fail(f'{where}: "{key}" is out of range, got {str(value)[:40]!r}')
    for key in _TEXTS:
        if key in item and not isinstance(item[key], str):
            raise fail(f'{where}: "{key}" must be text, got {str(item[key])[:40]!r}')
    for key in _FLAGS:
        if key in item and not isinstance(item[key], bool):
            raise fail(f'{where}: "{key}" must be true or false, got {str(item[key])[:40]!r}')


def _check_json_layers(layers: object, fail: Fail, depth: int = 0) -> None:
    """What the parser would choke on without saying where: compression, the layer list."""
    if not isinstance(layers, list):
        raise fail('"layers" must be a list of layers')
    for layer in layers:
        if not isinstance(layer, dict):
            raise fail(f"a layer must be a JSON object, got {str(layer)[:40]!r}")
        where = f'layer "{str(layer.get("name", "?"))[:60]}"'
        _check_fields(layer, where, fail, numbers=_LAYER_NUMBERS)
        objects = layer.get("objects", [])
        if not isinstance(objects, list):
            raise fail(f'{where}: "objects" must be a list')
        for index, obj in enumerate(objects):
            if not isinstance(obj, dict):
                raise fail(f"{where}: object {index} must be a JSON object, got {str(obj)[:40]!r}")
            _check_fields(
                obj, f"{where}, object {obj.get('id', index)!s:.20}", fail, numbers=_OBJECT_NUMBERS
            )
        compression = layer.get("compression", "")
        if compression not in _COMPRESSIONS:
            raise fail(
                f"{where}: {str(compression)[:20]!r} compression is not supported "
                "(use CSV, or base64 with zlib, gzip or zstd)"
            )
        if layer.get("type") == "group" and depth < 32:
            _check_json_layers(layer.get("layers", []), fail, depth + 1)


def _tmx_attributes(data: bytes, fail: Fail) -> tuple[dict[str, Any], list[str]]:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise fail(f"malformed XML: {exc}") from None
    except (LookupError, ValueError) as exc:  # encoding="x-bogus" in the XML declaration
        raise fail(f"the XML declares an encoding Python cannot read ({exc})") from None
    except RecursionError:
        raise fail("the XML is nested too deeply to be a Tiled map") from None
    if root.tag != "map":
        raise fail(f"not a Tiled map (the XML root is <{root.tag[:40]}>, not <map>)")
    sources = [ts.attrib["source"] for ts in root.findall("tileset") if "source" in ts.attrib]
    return dict(root.attrib), sources


def _json_tileset_sources(raw: dict[str, Any], fail: Fail) -> list[str]:
    tilesets = raw.get("tilesets", [])
    if not isinstance(tilesets, list):
        raise fail('"tilesets" must be a list')
    sources = []
    for entry in tilesets:
        if not isinstance(entry, dict):
            raise fail(f"a tileset must be a JSON object, got {str(entry)[:40]!r}")
        source = entry.get("source")
        if source is not None:
            if not isinstance(source, str) or not source:
                raise fail(f'a tileset\'s "source" must be a file name, got {str(source)[:40]!r}')
            sources.append(source)
    return sources


def _check_tileset_file(base_dir: Path, source: str, fail: Fail) -> None:
    """An external tileset: a bounded regular file that parses (JSON or XML)."""
    where = f'tileset "{source[:80]}"'

    def tileset_fail(detail: str) -> Exception:
        return fail(f"{where}: {detail}")

    if ":resources:" in source:  # arcade's own tilesets are bundled, and fine
        return
    data = read_bytes(base_dir / source, "tileset file", tileset_fail)
    if data.lstrip()[:1] == b"<":
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError as exc:
            raise tileset_fail(f"malformed XML: {exc}") from None
        except (LookupError, ValueError, RecursionError) as exc:
            raise tileset_fail(f"unreadable XML ({type(exc).__name__})") from None
        if root.tag != "tileset":
            raise tileset_fail(f"not a Tiled tileset (the XML root is <{root.tag[:40]}>)")
        return
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise tileset_fail(f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise tileset_fail(
            f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise tileset_fail("the JSON is nested too deeply to be a tileset") from None
    if not isinstance(raw, dict):
        raise tileset_fail("a Tiled tileset must be a JSON object")


def arcade_resources_dir() -> Path | None:
    """arcade's bundled assets folder (what ``:resources:`` names), without importing arcade."""
    spec = find_spec("arcade")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "resources" / "assets"


def resolve_image(path: Path, base_dir: Path) -> Path:
    """An image path as written in a tileset, made absolute.

    ``:resources:images/tiles/grass.png`` (anywhere in the path, as pytiled_parser joins it to
    the tileset's folder) becomes arcade's bundled file; a relative path is taken from
    ``base_dir`` (the map's or the external tileset's folder).
    """
    text = str(path)
    if RESOURCES_PREFIX in text:
        resources = arcade_resources_dir()
        rest = text.split(RESOURCES_PREFIX, 1)[1].lstrip("/\\")
        return (resources / rest) if resources is not None else Path(rest)
    return path if path.is_absolute() else base_dir / path


def check_image(path: Path, fail: Fail, cache: dict[Path, tuple[int, int]]) -> tuple[int, int]:
    """Check that ``path`` is a readable image; return its ``(width, height)`` in px.

    Results are kept in ``cache`` (a tileset's tiles often share one sheet).
    """
    if path in cache:
        return cache[path]
    shown = os.path.normpath(path)  # tilesets/../images/a.png is named images/a.png
    read_bytes(path, f"image {shown}", fail)
    try:
        from PIL import Image

        with Image.open(path) as image:
            size = image.size
            image.verify()
    except Exception as exc:  # Pillow raises many kinds of errors for a broken image
        raise fail(f"image {shown} is not an image Pillow can read ({_reason(exc)})") from None
    cache[path] = (int(size[0]), int(size[1]))
    return cache[path]
