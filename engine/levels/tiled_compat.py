"""Every version of Tiled's formats people still have, made into one pytiled_parser reads.

pytiled_parser (the parser arcade uses) reads maps as the current Tiled writes them. Maps in the
wild are older, or mix formats, and a few of its paths fail on them in ways that blame the file
or hang. Rather than patch the library, the map is rewritten *before* it is parsed, into a
temporary folder, as the current Tiled would save it; pytiled_parser then parses that copy. What
this fixes at our edge (each has a test in tests/engine/levels/test_tiled_compat.py):

=====================================  ============================================================
pytiled_parser's behaviour              what the rewrite does
=====================================  ============================================================
``KeyError`` on a missing ``infinite``, fills in Tiled's defaults (Tiled 1.0-1.2 files leave them
``nextlayerid``, ``nextobjectid``,      out): finite, the next free ids, ``right-down``, a
``renderorder``, ``tiledversion``,      tileset's ``tilecount`` and ``columns`` from its image
``tilecount``, ``columns``,
``compression``
tile data decoded without a bound       base64 + zlib/gzip/zstd is decoded here, never past the
(a 546 kB zlib bomb: 2.2 GB)            layer's ``width x height x 4`` bytes; written back as CSV
zstd: "pip install ..." (TMX) or        zstd is read when the ``zstandard`` module is installed; else
"not supported" (JSON)                  one line saying so, the same for both formats
Tiled 1.0's ``<tile gid=..>`` XML data  read
infinite (chunked) maps refused         the chunks are laid out on one finite grid (objects and
                                        image layers shifted to match)
a TMX map with a JSON tileset           the tileset is embedded in the map as TSX
(``'dict' object has no attribute``)
external tilesets and object templates  read only if they are bounded regular files (a FIFO blocks
read without a bound                    forever, ``/dev/zero`` never ends): refused in one line
prints ``here`` to stdout               stdout is silenced while parsing
(a template bringing a new tileset)
=====================================  ============================================================

Pure: the standard library (and ``zstandard`` if installed).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import io
import json
import os
import tempfile
import xml.etree.ElementTree as ElementTree
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.levels.map_file import RESOURCES_PREFIX, read_bytes

__all__ = ["TileDataError", "decode_tile_data", "prepared_map", "quiet_stdout"]

Fail = Callable[[str], Exception]

_MAX_TEMPLATES = 10_000
"""Most distinct template files a map may use."""


class TileDataError(ValueError):
    """Tile data that cannot be decoded (the message says why)."""


def _zstd_decompress(data: bytes, limit: int) -> bytes:
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        raise TileDataError(
            "zstd-compressed tile data needs the zstandard module (pip install zstandard); "
            "or save the map in Tiled with zlib, gzip or CSV tile data"
        ) from None
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data))
        out = reader.read(limit + 1)
    except zstandard.ZstdError as exc:
        raise TileDataError(f"the zstd tile data is damaged ({exc})") from None
    return bytes(out)


def _inflate(data: bytes, compression: str, limit: int) -> bytes:
    """Decompress at most ``limit + 1`` bytes (one more tells that there was too much)."""
    if compression in ("", None):
        return data
    if compression in ("zlib", "gzip"):
        # wbits: zlib header, or gzip header (16 + 15)
        inflater = zlib.decompressobj(15 if compression == "zlib" else 31)
        try:
            out = inflater.decompress(data, limit + 1)
        except zlib.error as exc:
            raise TileDataError(f"the {compression} tile data is damaged ({exc})") from None
        return out
    if compression == "zstd":
        return _zstd_decompress(data, limit)
    raise TileDataError(
        f"{str(compression)[:20]!r} compression is not one Tiled writes "
        "(use CSV, or base64 with zlib, gzip or zstd)"
    )


def decode_tile_data(text: str, compression: str, cells: int) -> list[int]:
    """Base64 tile data (optionally compressed) as ``cells`` gids, never decoding more bytes
    than ``cells * 4`` (a decompression bomb is refused after that many bytes).

    Raises:
        TileDataError: One line saying what is wrong.
    """
    try:
        raw = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise TileDataError("the tile data is not valid base64") from None
    expected = cells * 4
    data = _inflate(raw, compression, expected)
    if len(data) > expected:
        raise TileDataError(
            f"the tile data holds more than the {cells:,} tiles the layer declares "
            f"({expected:,} bytes)"
        )
    if len(data) != expected:
        raise TileDataError(
            f"the tile data holds {len(data) // 4:,} tiles, the layer declares {cells:,}"
        )
    return [int.from_bytes(data[i : i + 4], "little") for i in range(0, expected, 4)]


def _csv(text: str | None, cells: int) -> list[int]:
    values = [v.strip() for v in (text or "").split(",") if v.strip()]
    if len(values) != cells:
        raise TileDataError(f"the tile data holds {len(values):,} tiles, expected {cells:,}")
    try:
        gids = [int(v) for v in values]
    except ValueError:
        raise TileDataError("the CSV tile data holds something that is not a tile id") from None
    if any(g < 0 or g >= 2**32 for g in gids):
        raise TileDataError("a tile id in the CSV data is not a 32-bit unsigned number")
    return gids


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Silence stdout (pytiled_parser prints a stray ``here`` for some templates)."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def _int_attr(element: ElementTree.Element, key: str, fail: Fail, default: int = 0) -> int:
    value = element.get(key)
    if value is None:
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise fail(f'<{element.tag}> "{key}" must be a whole number, got {value[:30]!r}') from None
    if not -(10**12) <= number <= 10**12:
        raise fail(f'<{element.tag}> "{key}" is out of range, got {value[:30]!r}')
    return number


def _absolute(source: str, base: Path) -> str:
    if RESOURCES_PREFIX in source or os.path.isabs(source):
        return source
    return str(base / source)


# ---------------------------------------------------------------------------------------------
# Tilesets
# ---------------------------------------------------------------------------------------------


def _fill_tileset_counts(attrs: dict[str, Any], image: dict[str, Any] | None) -> None:
    """``tilecount`` and ``columns`` from the image (Tiled 1.0 left them out)."""
    tile_w = int(attrs.get("tilewidth") or 0)
    tile_h = int(attrs.get("tileheight") or 0)
    margin = int(attrs.get("margin") or 0)
    spacing = int(attrs.get("spacing") or 0)
    if image is not None and tile_w > 0 and tile_h > 0:
        width = int(image.get("width") or 0)
        height = int(image.get("height") or 0)
        columns = max(0, (width - 2 * margin + spacing) // (tile_w + spacing))
        rows = max(0, (height - 2 * margin + spacing) // (tile_h + spacing))
        attrs.setdefault("columns", columns)
        attrs.setdefault("tilecount", columns * rows)
    attrs.setdefault("columns", 0)
    attrs.setdefault("tilecount", 0)


def _tsx_fixed(root: ElementTree.Element, base: Path, fail: Fail) -> ElementTree.Element:
    """A TSX tileset with its defaults filled in and its image paths absolute."""
    image = root.find("image")
    if image is not None and image.get("source"):
        image.set("source", _absolute(image.get("source", ""), base))
    for tile in root.findall("tile"):
        tile_image = tile.find("image")
        if tile_image is not None and tile_image.get("source"):
            tile_image.set("source", _absolute(tile_image.get("source", ""), base))
            tile_image.attrib.setdefault("width", "0")
            tile_image.attrib.setdefault("height", "0")
    attrs: dict[str, Any] = dict(root.attrib)
    for key in ("tilewidth", "tileheight", "margin", "spacing"):
        _int_attr(root, key, fail)
    _fill_tileset_counts(attrs, dict(image.attrib) if image is not None else None)
    root.attrib.update({key: str(value) for key, value in attrs.items()})
    root.attrib.setdefault("name", "tileset")
    return root


def _json_property_elements(props: Any, parent: ElementTree.Element) -> None:
    if not isinstance(props, list) or not props:
        return
    holder = ElementTree.SubElement(parent, "properties")
    for prop in props:
        if not isinstance(prop, dict) or not isinstance(prop.get("name"), str):
            continue
        kind = str(prop.get("type", "string"))
        value = prop.get("value")
        text = ("true" if value else "false") if kind == "bool" else str(value)
        ElementTree.SubElement(
            holder, "property", {"name": prop["name"], "type": kind, "value": text}
        )


def _json_tileset_as_tsx(raw: dict[str, Any], base: Path, fail: Fail) -> ElementTree.Element:
    """A JSON tileset (``.tsj``/``.json``) as a TSX element (for a TMX map)."""
    root = ElementTree.Element("tileset")
    for key in ("name", "tilewidth", "tileheight", "tilecount", "columns", "margin", "spacing"):
        if key in raw:
            root.set(key, str(raw[key]))
    if isinstance(raw.get("image"), str):
        ElementTree.SubElement(
            root,
            "image",
            {
                "source": raw["image"],
                "width": str(raw.get("imagewidth", 0)),
                "height": str(raw.get("imageheight", 0)),
            },
        )
    _json_property_elements(raw.get("properties"), root)
    for tile in raw.get("tiles") or []:
        if not isinstance(tile, dict):
            continue
        element = ElementTree.SubElement(root, "tile", {"id": str(tile.get("id", 0))})
        for key in ("type", "class"):
            if isinstance(tile.get(key), str):
                element.set(key, tile[key])
        _json_property_elements(tile.get("properties"), element)
        if isinstance(tile.get("image"), str):
            ElementTree.SubElement(
                element,
                "image",
                {
                    "source": tile["image"],
                    "width": str(tile.get("imagewidth", 0)),
                    "height": str(tile.get("imageheight", 0)),
                },
            )
        frames = tile.get("animation")
        if isinstance(frames, list) and frames:
            animation = ElementTree.SubElement(element, "animation")
            for frame in frames:
                if isinstance(frame, dict):
                    ElementTree.SubElement(
                        animation,
                        "frame",
                        {
                            "tileid": str(frame.get("tileid", 0)),
                            "duration": str(frame.get("duration", 0)),
                        },
                    )
    return _tsx_fixed(root, base, fail)


def _json_tileset_fixed(raw: dict[str, Any], base: Path) -> dict[str, Any]:
    """A JSON tileset with its defaults filled in and its image paths absolute."""
    if isinstance(raw.get("image"), str):
        raw["image"] = _absolute(raw["image"], base)
    for tile in raw.get("tiles") or []:
        if isinstance(tile, dict) and isinstance(tile.get("image"), str):
            tile["image"] = _absolute(tile["image"], base)
    image = (
        {"width": raw.get("imagewidth"), "height": raw.get("imageheight")}
        if "image" in raw
        else None
    )
    _fill_tileset_counts(raw, image)
    for key, default in (("name", "tileset"), ("margin", 0), ("spacing", 0)):
        raw.setdefault(key, default)
    return raw


def _load_tileset(path: Path, fail: Fail) -> tuple[str, Any]:
    """An external tileset file, bounded: ``("tsx", element)`` or ``("json", dict)``."""
    shown = str(path)[-120:]

    def tileset_fail(detail: str) -> Exception:
        return fail(f'tileset "{shown}": {detail}')

    data = read_bytes(path, "tileset file", tileset_fail)
    if data.lstrip()[:1] == b"<":
        return "tsx", _xml(data, tileset_fail, "tileset")
    try:
        raw = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise tileset_fail("not a Tiled tileset (neither TSX nor JSON)") from None
    if not isinstance(raw, dict):
        raise tileset_fail("a Tiled tileset must be a JSON object")
    return "json", raw


def _xml(data: bytes, fail: Fail, tag: str) -> ElementTree.Element:
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise fail(f"malformed XML: {exc}") from None
    except (LookupError, ValueError) as exc:  # an encoding="x-bogus" declaration
        raise fail(f"the XML declares an encoding Python cannot read ({exc})") from None
    except RecursionError:
        raise fail("the XML is nested too deeply") from None
    if root.tag != tag:
        raise fail(f"not a Tiled {tag} (the XML root is <{root.tag[:40]}>, not <{tag}>)")
    return root


# ---------------------------------------------------------------------------------------------
# TMX maps
# ---------------------------------------------------------------------------------------------


def _tmx_layer_grid(
    layer: ElementTree.Element, width: int, height: int, fail: Fail
) -> dict[tuple[int, int], int] | list[int] | None:
    """A tile layer's cells: a list (finite) or ``{(x, y): gid}`` (chunks), or None (no data)."""
    data = layer.find("data")
    if data is None:
        return None
    encoding = data.get("encoding") or ""
    compression = data.get("compression") or ""
    where = f'layer "{str(layer.get("name", "?"))[:60]}"'

    def decode(text: str | None, element: ElementTree.Element, cells: int) -> list[int]:
        try:
            if encoding == "base64":
                return decode_tile_data(text or "", compression, cells)
            if encoding == "csv":
                return _csv(text, cells)
            if encoding == "":
                tiles = element.findall("tile")
                if len(tiles) != cells:
                    raise TileDataError(f"the layer has {len(tiles):,} <tile>s, expected {cells:,}")
                return [_int_attr(tile, "gid", fail) for tile in tiles]
        except TileDataError as exc:
            raise fail(f"{where}: {exc}") from None
        raise fail(f"{where}: {encoding[:20]!r} tile data encoding is not one Tiled writes")

    chunks = data.findall("chunk")
    if not chunks:
        return decode(data.text, data, width * height)
    cells: dict[tuple[int, int], int] = {}
    total = 0
    for chunk in chunks:
        cx, cy = _int_attr(chunk, "x", fail), _int_attr(chunk, "y", fail)
        cw, ch = _int_attr(chunk, "width", fail), _int_attr(chunk, "height", fail)
        if cw <= 0 or ch <= 0:
            raise fail(f"{where}: a chunk must have a positive size")
        total += cw * ch
        if total > _MAX_INFINITE_CELLS:
            raise fail(f"{where}: the chunks hold more than {_MAX_INFINITE_CELLS:,} tiles")
        for index, gid in enumerate(decode(chunk.text, chunk, cw * ch)):
            if gid:
                cells[(cx + index % cw, cy + index // cw)] = gid
    return cells


_MAX_INFINITE_CELLS = 4_000_000
"""Most cells an infinite map's chunks may hold, over all its layers."""


def _walk_layers(parent: ElementTree.Element, depth: int = 0) -> Iterator[ElementTree.Element]:
    for child in parent:
        if child.tag in ("layer", "objectgroup", "imagelayer"):
            yield child
        elif child.tag == "group" and depth < 32:
            yield child
            yield from _walk_layers(child, depth + 1)


def _fix_tmx(path: Path, data: bytes, out_dir: Path, fail: Fail, max_cells: int) -> Path:
    root = _xml(data, fail, "map")
    base = path.parent
    width = _int_attr(root, "width", fail)
    height = _int_attr(root, "height", fail)
    tile_w = _int_attr(root, "tilewidth", fail)
    tile_h = _int_attr(root, "tileheight", fail)
    layers = list(_walk_layers(root))
    max_layer_id = max((_int_attr(layer, "id", fail) for layer in layers), default=0)
    max_object_id = 0
    templates: dict[str, str] = {}
    for group in root.iter("objectgroup"):
        for item in group.findall("object"):
            object_id = _int_attr(item, "id", fail)
            if object_id < 0:  # _int_attr bounds it by 10^12, as the JSON checks do
                raise fail(f"object id {object_id} must not be negative")
            max_object_id = max(max_object_id, object_id)
            template = item.get("template")
            if template is not None:
                item.set(
                    "template", _check_template(template, base, fail, templates, out_dir, "tmx")
                )
    next_layer_id = max_layer_id + 1
    for layer in layers:  # Tiled before 1.2 gave layers no ids
        if layer.get("id") is None:
            layer.set("id", str(next_layer_id))
            next_layer_id += 1
    next_object_id = max_object_id + 1
    for group in root.iter("objectgroup"):
        for item in group.findall("object"):
            if item.get("id") is None:
                item.set("id", str(next_object_id))
                next_object_id += 1
    root.attrib.setdefault("version", "1.0")
    root.attrib.setdefault("tiledversion", "")
    root.attrib.setdefault("renderorder", "right-down")
    root.attrib.setdefault("nextlayerid", str(next_layer_id))
    root.attrib.setdefault("nextobjectid", str(next_object_id))
    root.attrib.setdefault("infinite", "0")
    infinite = root.get("infinite", "0").strip() in ("1", "true")
    # tilesets: embedded, with defaults, image paths absolute
    for index, tileset in enumerate(list(root.findall("tileset"))):
        source = tileset.get("source")
        if source is None:
            _tsx_fixed(tileset, base, fail)
            continue
        if RESOURCES_PREFIX in source:
            continue
        tileset_path = base / source
        fmt, loaded = _load_tileset(tileset_path, fail)
        if fmt == "tsx":
            embedded = _tsx_fixed(loaded, tileset_path.parent, fail)
        else:
            embedded = _json_tileset_as_tsx(loaded, tileset_path.parent, fail)
        embedded.set("firstgid", tileset.get("firstgid", "1"))
        position = list(root).index(tileset)
        root.remove(tileset)
        root.insert(position, embedded)
        del index
    # tile data: decoded here (bounded), written back as CSV
    grids = {}
    for layer in layers:
        if layer.tag == "layer":
            grids[id(layer)] = _tmx_layer_grid(layer, width, height, fail)
        image = layer.find("image") if layer.tag == "imagelayer" else None
        if image is not None and image.get("source"):
            image.set("source", _absolute(image.get("source", ""), base))
    shift = (0, 0)
    if infinite:
        grids = {key: _as_cells(grid, width) for key, grid in grids.items()}
        width, height, shift = _infinite_bounds(grids.values(), fail, max_cells)
        root.set("width", str(width))
        root.set("height", str(height))
        root.set("infinite", "0")
    for layer in layers:
        if layer.tag == "layer":
            cells = _as_list(grids[id(layer)], width, height, shift)
            data_element = layer.find("data")
            if data_element is None:
                data_element = ElementTree.SubElement(layer, "data")
            for child in list(data_element):
                data_element.remove(child)
            data_element.attrib.clear()
            data_element.set("encoding", "csv")
            data_element.text = ",".join(map(str, cells))
            layer.set("width", str(width))
            layer.set("height", str(height))
        elif infinite and layer.tag in ("objectgroup", "imagelayer"):
            offset_x = float(layer.get("offsetx", "0") or 0) - shift[0] * tile_w
            offset_y = float(layer.get("offsety", "0") or 0) - shift[1] * tile_h
            layer.set("offsetx", repr(offset_x))
            layer.set("offsety", repr(offset_y))
    target = out_dir / "map.tmx"
    ElementTree.ElementTree(root).write(target, encoding="utf-8", xml_declaration=True)
    return target


_PROPERTY_TYPES = {"int": int, "float": float}


def _xml_object_as_json(element: ElementTree.Element) -> dict[str, Any]:
    """A TMX ``<object>`` (of a template) as Tiled JSON."""
    obj: dict[str, Any] = {}
    for key, value in element.attrib.items():
        if key in ("x", "y", "width", "height", "rotation"):
            obj[key] = float(value)
        elif key in ("gid", "id"):
            obj[key] = int(value)
        elif key == "visible":
            obj[key] = value.strip() not in ("0", "false")
        else:
            obj[key] = value
    for flag in ("point", "ellipse"):
        if element.find(flag) is not None:
            obj[flag] = True
    for shape in ("polygon", "polyline"):
        found = element.find(shape)
        if found is not None:
            pairs = [p.split(",") for p in found.get("points", "").split()]
            obj[shape] = [{"x": float(x), "y": float(y)} for x, y in pairs]
    props = []
    for prop in element.findall("properties/property"):
        kind = prop.get("type", "string")
        text = prop.get("value", prop.text or "")
        prop_value: Any = text
        if kind == "bool":
            prop_value = text == "true"
        elif kind in _PROPERTY_TYPES:
            prop_value = _PROPERTY_TYPES[kind](text)
        props.append({"name": prop.get("name", ""), "type": kind, "value": prop_value})
    if props:
        obj["properties"] = props
    return obj


def _json_object_as_xml(obj: dict[str, Any]) -> ElementTree.Element:
    """A Tiled JSON object (of a template) as a TMX ``<object>``."""
    element = ElementTree.Element("object")
    for key in ("name", "type", "class", "x", "y", "width", "height", "rotation", "gid"):
        if isinstance(obj.get(key), str | int | float) and not isinstance(obj.get(key), bool):
            element.set(key, str(obj[key]))
    if obj.get("visible") is False:
        element.set("visible", "0")
    for flag in ("point", "ellipse"):
        if obj.get(flag) is True:
            ElementTree.SubElement(element, flag)
    for shape in ("polygon", "polyline"):
        if isinstance(obj.get(shape), list):
            points = " ".join(
                f"{p.get('x', 0)},{p.get('y', 0)}" for p in obj[shape] if isinstance(p, dict)
            )
            ElementTree.SubElement(element, shape, {"points": points})
    _json_property_elements(obj.get("properties"), element)
    return element


def _check_template(
    template: str, base: Path, fail: Fail, seen: dict[str, str], out_dir: Path, map_format: str
) -> str:
    """An object template: a bounded regular file, as is its tileset; the path the parser
    reads it from (a copy in the map's format when it is in the other one: pytiled_parser
    reads only templates in the map's own format)."""
    if template in seen:
        return seen[template]
    if len(seen) >= _MAX_TEMPLATES:
        raise fail(f"the map uses more than {_MAX_TEMPLATES:,} object templates")
    path = base / template
    shown = template[-120:]

    def template_fail(detail: str) -> Exception:
        return fail(f'template "{shown}": {detail}')

    data = read_bytes(path, "template file", template_fail)
    source: str | None = None
    firstgid = "1"
    xml_object: ElementTree.Element | None = None
    json_object: dict[str, Any] | None = None
    if data.lstrip()[:1] == b"<":
        root = _xml(data, template_fail, "template")
        tileset = root.find("tileset")
        source = tileset.get("source") if tileset is not None else None
        firstgid = tileset.get("firstgid", "1") if tileset is not None else "1"
        xml_object = root.find("object")
        fmt = "tmx"
    else:
        try:
            raw = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise template_fail("not a Tiled template (neither TX nor JSON)") from None
        if not isinstance(raw, dict):
            raise template_fail("a Tiled template must be a JSON object")
        tileset_raw = raw.get("tileset")
        if isinstance(tileset_raw, dict) and isinstance(tileset_raw.get("source"), str):
            source = tileset_raw["source"]
            firstgid = str(tileset_raw.get("firstgid", 1))
        json_object = raw.get("object") if isinstance(raw.get("object"), dict) else None
        fmt = "json"
    if source is not None and RESOURCES_PREFIX not in source:
        _load_tileset(path.parent / source, template_fail)
    seen[template] = str(path)
    if fmt != map_format:
        seen[template] = str(
            _converted_template(
                path, source, firstgid, xml_object, json_object, out_dir, len(seen), template_fail
            )
        )
    return seen[template]


def _converted_template(
    path: Path,
    source: str | None,
    firstgid: str,
    xml_object: ElementTree.Element | None,
    json_object: dict[str, Any] | None,
    out_dir: Path,
    index: int,
    fail: Fail,
) -> Path:
    """A template rewritten in the other format (its tileset path made absolute)."""
    tileset_path = _absolute(source, path.parent) if source is not None else None
    try:
        if xml_object is not None:  # a TX template for a JSON map
            raw: dict[str, Any] = {"type": "template", "object": _xml_object_as_json(xml_object)}
            if tileset_path is not None:
                raw["tileset"] = {"firstgid": int(firstgid), "source": tileset_path}
            target = out_dir / f"template{index}.tj"
            target.write_text(json.dumps(raw), encoding="utf-8")
            return target
        root = ElementTree.Element("template")
        if tileset_path is not None:
            ElementTree.SubElement(root, "tileset", {"firstgid": firstgid, "source": tileset_path})
        root.append(_json_object_as_xml(json_object or {}))
        target = out_dir / f"template{index}.tx"
        ElementTree.ElementTree(root).write(target, encoding="utf-8", xml_declaration=True)
        return target
    except (ValueError, TypeError) as exc:
        raise fail(f"a value of the template's object cannot be read ({exc})") from None


def _infinite_bounds(grids: Any, fail: Fail, max_cells: int) -> tuple[int, int, tuple[int, int]]:
    """The finite grid that holds every chunk's painted cells: width, height, and the
    top-left cell (the shift applied to everything)."""
    xs: list[int] = []
    ys: list[int] = []
    for grid in grids:
        if isinstance(grid, dict) and grid:
            xs.extend((min(x for x, _ in grid), max(x for x, _ in grid)))
            ys.extend((min(y for _, y in grid), max(y for _, y in grid)))
    if not xs:
        raise fail("the infinite map has no painted tiles")
    left, top = min(xs), min(ys)
    width, height = max(xs) - left + 1, max(ys) - top + 1
    if width * height > max_cells:
        raise fail(
            f"the infinite map's painted area is {width:,} x {height:,} tiles, more than the "
            f"{max_cells:,} allowed"
        )
    return width, height, (left, top)


def _as_cells(
    grid: dict[tuple[int, int], int] | list[int] | None, width: int
) -> dict[tuple[int, int], int] | None:
    """Finite data in an infinite map: one chunk at the origin."""
    if not isinstance(grid, list):
        return grid
    return {(i % width, i // width): gid for i, gid in enumerate(grid) if gid} if width else {}


def _as_list(
    grid: dict[tuple[int, int], int] | list[int] | None,
    width: int,
    height: int,
    shift: tuple[int, int],
) -> list[int]:
    if grid is None:
        return [0] * (width * height)
    if isinstance(grid, list):
        return grid
    cells = [0] * (width * height)
    for (x, y), gid in grid.items():
        cells[(y - shift[1]) * width + (x - shift[0])] = gid
    return cells


# ---------------------------------------------------------------------------------------------
# JSON maps
# ---------------------------------------------------------------------------------------------


def _json_layers(layers: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict):
            yield layer
            if layer.get("type") == "group" and depth < 32:
                yield from _json_layers(layer.get("layers"), depth + 1)


def _json_cells(
    layer: dict[str, Any], width: int, height: int, fail: Fail
) -> dict[tuple[int, int], int] | list[int] | None:
    where = f'layer "{str(layer.get("name", "?"))[:60]}"'
    encoding = layer.get("encoding", "csv")
    compression = layer.get("compression", "") or ""

    def decode(data: Any, cells: int) -> list[int]:
        if encoding == "base64":
            if not isinstance(data, str):
                raise fail(f"{where}: base64 tile data must be a string")
            try:
                return decode_tile_data(data, compression, cells)
            except TileDataError as exc:
                raise fail(f"{where}: {exc}") from None
        if not isinstance(data, list) or len(data) != cells:
            raise fail(f"{where}: the tile data must be a list of {cells:,} tile ids")
        if not all(isinstance(g, int) and not isinstance(g, bool) and 0 <= g < 2**32 for g in data):
            raise fail(f"{where}: the tile data must hold 32-bit unsigned tile ids")
        return data

    chunks = layer.get("chunks")
    if not isinstance(chunks, list):
        if "data" not in layer:
            return None
        layer_w = layer.get("width", width)
        layer_h = layer.get("height", height)
        if not isinstance(layer_w, int) or not isinstance(layer_h, int):
            raise fail(f'{where}: "width" and "height" must be whole numbers')
        if layer_w * layer_h > 10**8:
            raise fail(f"{where}: the layer is too large")
        return decode(layer["data"], layer_w * layer_h)
    cells: dict[tuple[int, int], int] = {}
    total = 0
    for chunk in chunks:
        if not isinstance(chunk, dict):
            raise fail(f"{where}: a chunk must be a JSON object")
        values = [chunk.get(key) for key in ("x", "y", "width", "height")]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise fail(f"{where}: a chunk needs whole-number x, y, width and height")
        cx, cy, cw, ch = (int(v) for v in values)  # type: ignore[arg-type]
        if cw <= 0 or ch <= 0 or abs(cx) > 10**9 or abs(cy) > 10**9:
            raise fail(f"{where}: a chunk's size or position is out of range")
        total += cw * ch
        if total > _MAX_INFINITE_CELLS:
            raise fail(f"{where}: the chunks hold more than {_MAX_INFINITE_CELLS:,} tiles")
        for index, gid in enumerate(decode(chunk.get("data"), cw * ch)):
            if gid:
                cells[(cx + index % cw, cy + index // cw)] = gid
    return cells


_JSON_LAYER_TYPES = ("tilelayer", "objectgroup", "imagelayer", "group")


def _drop_unknown_layers(layers: Any, depth: int = 0) -> None:
    """Layers of a type Tiled does not write are left out (the TMX parser ignores them too)."""
    if not isinstance(layers, list):
        return
    layers[:] = [
        layer
        for layer in layers
        if not isinstance(layer, dict) or layer.get("type") in _JSON_LAYER_TYPES
    ]
    for layer in layers:
        if isinstance(layer, dict) and layer.get("type") == "group" and depth < 32:
            _drop_unknown_layers(layer.get("layers"), depth + 1)


def _fix_json(path: Path, raw: dict[str, Any], out_dir: Path, fail: Fail, max_cells: int) -> Path:
    base = path.parent
    _drop_unknown_layers(raw.get("layers"))
    layers = list(_json_layers(raw.get("layers")))
    ids = [layer.get("id") for layer in layers if isinstance(layer.get("id"), int)]
    object_ids = [
        obj.get("id")
        for layer in layers
        for obj in layer.get("objects") or []
        if isinstance(obj, dict) and isinstance(obj.get("id"), int)
    ]
    raw.setdefault("version", "1.0")
    raw.setdefault("tiledversion", "")
    raw.setdefault("renderorder", "right-down")
    raw.setdefault("nextlayerid", max((int(i) for i in ids if i is not None), default=0) + 1)
    raw.setdefault(
        "nextobjectid", max((int(i) for i in object_ids if i is not None), default=0) + 1
    )
    raw.setdefault("infinite", False)
    raw.setdefault("type", "map")
    next_id = raw["nextlayerid"] if isinstance(raw["nextlayerid"], int) else 1
    for layer in layers:  # Tiled before 1.2 gave layers no ids
        if "id" not in layer:
            layer["id"] = next_id
            next_id += 1
    templates: dict[str, str] = {}
    for layer in layers:
        for obj in layer.get("objects") or []:
            if isinstance(obj, dict) and isinstance(obj.get("template"), str):
                obj["template"] = _check_template(
                    obj["template"], base, fail, templates, out_dir, "json"
                )
        if isinstance(layer.get("image"), str):
            layer["image"] = _absolute(layer["image"], base)
        layer.setdefault("opacity", 1)
        layer.setdefault("visible", True)
        layer.setdefault("x", 0)
        layer.setdefault("y", 0)
        if layer.get("type") == "objectgroup":
            layer.setdefault("draworder", "topdown")
        for obj in layer.get("objects") or []:
            if isinstance(obj, dict):  # Tiled 1.0 left out empty fields
                for key, default in (("name", ""), ("width", 0), ("height", 0)):
                    obj.setdefault(key, default)
                obj.setdefault("rotation", 0)
                obj.setdefault("visible", True)
    tilesets: list[Any] = raw["tilesets"] if isinstance(raw.get("tilesets"), list) else []
    for index, entry in enumerate(tilesets):
        if not isinstance(entry, dict):
            continue
        source = entry.get("source")
        if isinstance(source, str) and RESOURCES_PREFIX not in source:
            fmt, loaded = _load_tileset(base / source, fail)
            if fmt == "json":
                fixed = _json_tileset_fixed(loaded, (base / source).parent)
                fixed["firstgid"] = entry.get("firstgid", 1)
                tilesets[index] = fixed
            else:
                tsx = _tsx_fixed(loaded, (base / source).parent, fail)
                copy = out_dir / f"tileset{index}.tsx"
                ElementTree.ElementTree(tsx).write(copy, encoding="utf-8", xml_declaration=True)
                entry["source"] = str(copy)
        elif source is None:
            _json_tileset_fixed(entry, base)
    width, height, tile_w, tile_h = (
        int(raw[key]) if isinstance(raw.get(key), int) else 0
        for key in ("width", "height", "tilewidth", "tileheight")
    )
    grids = {
        id(layer): _json_cells(layer, width, height, fail)
        for layer in layers
        if layer.get("type") == "tilelayer"
    }
    shift = (0, 0)
    infinite = raw.get("infinite") is True
    if infinite:
        grids = {key: _as_cells(grid, width) for key, grid in grids.items()}
        width, height, shift = _infinite_bounds(grids.values(), fail, max_cells)
        raw["width"], raw["height"], raw["infinite"] = width, height, False
    for layer in layers:
        if layer.get("type") == "tilelayer":
            grid = grids[id(layer)]
            if infinite or not isinstance(grid, list):
                grid = _as_list(grid, width, height, shift)
                layer["width"], layer["height"] = width, height
            layer["data"] = grid
            for key in ("encoding", "compression", "chunks", "startx", "starty"):
                layer.pop(key, None)
        elif infinite and layer.get("type") in ("objectgroup", "imagelayer"):
            offset_x = layer.get("offsetx", 0)
            offset_y = layer.get("offsety", 0)
            if isinstance(offset_x, int | float) and isinstance(offset_y, int | float):
                layer["offsetx"] = offset_x - shift[0] * tile_w
                layer["offsety"] = offset_y - shift[1] * tile_h
    target = out_dir / "map.json"
    target.write_text(json.dumps(raw), encoding="utf-8")
    return target


# ---------------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------------


_NO_ROOM = frozenset(
    code
    for code in (errno.ENOSPC, errno.EFBIG, errno.EROFS, getattr(errno, "EDQUOT", None))
    if code is not None
)
"""Why a file cannot be written in the temporary folder: no space, a size limit, read-only."""


@contextlib.contextmanager
def _temporary_folder(fail: Fail) -> Iterator[str]:
    """A temporary folder for the rewritten map, removed after; a full or read-only temporary
    folder (or a file size limit) while the copy is written is ``fail``'s one line."""
    try:
        with tempfile.TemporaryDirectory(prefix="level-") as folder:
            yield folder
    except OSError as exc:
        if exc.errno not in _NO_ROOM:
            raise  # not about room to write (a missing tileset...): the caller's to report
        raise fail(
            f"cannot write the map's prepared copy in {tempfile.gettempdir()} "
            f"({exc.strerror or exc}): free some space there or set TMPDIR"
        ) from None


@contextlib.contextmanager
def prepared_map(path: Path, fail: Fail, max_cells: int) -> Iterator[Path]:
    """The map rewritten as the current Tiled saves it, in a temporary folder (removed after).

    Args:
        path: The map file (already checked by :func:`~engine.levels.map_file.read_header`).
        fail: Builds the exception for a problem (one line).
        max_cells: Most cells the (finite, or laid-out infinite) map may have.

    Yields:
        The rewritten map, for pytiled_parser.
    """
    data = read_bytes(path, "file", fail)
    path = Path(os.path.abspath(path))  # the copy lives elsewhere: every path made absolute
    with _temporary_folder(fail) as folder:
        out_dir = Path(folder)
        if data.lstrip()[:1] == b"<":
            yield _fix_tmx(path, data, out_dir, fail, max_cells)
        else:
            try:
                raw = json.loads(data.decode("utf-8-sig"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                raise fail("not a Tiled map (neither TMX nor JSON)") from None
            if not isinstance(raw, dict):
                raise fail("a Tiled map must be a JSON object")
            yield _fix_json(path, raw, out_dir, fail, max_cells)
