"""Loading a Tiled map (JSON ``.json``/``.tmj`` or XML ``.tmx``) into a :class:`Level`.

The file is checked first (:mod:`engine.levels.map_file`: a bounded regular file, a finite
orthogonal map of square tiles), then parsed by pytiled_parser, the parser arcade itself uses and
its team maintains, which reads both of Tiled's formats, external tilesets (``.tsj``/``.tsx``),
templates and tile animations. What the parser returns is then checked and converted here, into
engine pixels and checked objects, with every problem as one :class:`LevelError` line. The game
draws from the same :class:`Level`, so whatever this loader accepts, the game can draw.

How a map's layers and objects are read depends on its *conventions* (see
:mod:`engine.levels.conventions`): this template's own (strict: every object needs a class of a
registered kind) or those of arcade's platformer tutorial maps (layer names give meaning; what is
not supported is a warning).

Coordinates: Tiled's y axis points down from the top-left corner; the engine's points up from the
bottom-left. ``y_up = map_height_px - y_down``; a rectangle's engine bottom is
``map_height_px - (y + height)``, a tile object's (Tiled anchors it at its bottom-left)
``map_height_px - y``. Layer and group offsets are applied.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytiled_parser
from pytiled_parser import layer as tiled_layer
from pytiled_parser import tiled_object

from engine.levels.conventions import (
    GENERIC_CONVENTIONS,
    Conventions,
    MapConventions,
    conventions_for,
)
from engine.levels.kinds import Kind, KindRegistry, ObjectRef, PropError, Shape
from engine.levels.level_cache import cached_load
from engine.levels.map_file import (
    MAX_CELLS,
    MapHeader,
    check_image,
    read_header,
    resolve_image,
)
from engine.levels.merge import mask_gid, merge_tiles, tile_rect_to_px
from engine.levels.model import (
    GroundShape,
    ImageLayer,
    Level,
    LevelError,
    LevelObject,
    Rect,
    TileArt,
    TileLayer,
    name_problem,
    one_line,
)
from engine.levels.tiled_compat import prepared_map, quiet_stdout

__all__ = ["MAX_COORDINATE_PX", "load_level"]

MAX_COORDINATE_PX = 10_000_000.0
"""Largest object coordinate or size accepted (map px)."""

_MAX_GROUP_DEPTH = 32

_SHAPES: Mapping[type, Shape] = {
    tiled_object.Point: "point",
    tiled_object.Rectangle: "rectangle",
    tiled_object.Ellipse: "ellipse",
    tiled_object.Tile: "tile",
    tiled_object.Polyline: "polyline",
    tiled_object.Polygon: "polygon",
}


def load_level(
    path: Path | str,
    kinds: KindRegistry | None = None,
    conventions: MapConventions | None = None,
) -> Level:
    """Load one Tiled map (the conventions are in :mod:`engine.levels` and levels/README.md).

    Args:
        path: The map file. External tilesets and images are looked up relative to it (or in
            arcade's resources, for ``:resources:`` paths).
        kinds: The kinds objects may have (default: only the engine's).
        conventions: The names that give a foreign map's layers and objects meaning (default:
            :data:`~engine.levels.conventions.GENERIC_CONVENTIONS`; a game passes its own).

    Returns:
        The level in map pixels, y up (see :meth:`Level.scaled` for the game's tile size).
        Loading the same files again gives the same (immutable) object without parsing
        them again (:mod:`engine.levels.level_cache`).

    Raises:
        LevelError: For anything wrong with the file, always as one line.
    """
    path = Path(path)
    source = str(path)

    def fail(detail: str) -> LevelError:
        return LevelError(source, detail)

    def load() -> Level:
        header, parsed = _parse(path, fail)
        return _Builder(
            path, header, parsed, kinds or KindRegistry(), conventions or GENERIC_CONVENTIONS
        ).build()

    return cached_load(path, (kinds, len(kinds or ()), conventions), load)


def _parse(
    path: Path, fail: Callable[[str], LevelError]
) -> tuple[MapHeader, pytiled_parser.TiledMap]:
    """Check a map file, rewrite it as the current Tiled saves it and parse it (one line on
    any problem)."""
    file_name = path.name
    if file_name != file_name.strip() or not file_name.isprintable():
        raise fail(
            "the file name starts or ends with whitespace or holds control characters, which "
            "replays and run files cannot record: rename the file"
        )
    header = read_header(path, fail)
    try:
        # The map as the current Tiled saves it (older headers, mixed formats, compressed and
        # chunked data fixed at our edge: engine.levels.tiled_compat), parsed without a word
        # on stdout.
        with prepared_map(path, fail, MAX_CELLS) as prepared, quiet_stdout():
            parsed = pytiled_parser.parse_map(prepared, encoding="utf-8")
    except LevelError:
        raise
    except RecursionError:
        raise fail("the map is nested too deeply to read") from None
    except Exception as exc:  # pytiled_parser raises whatever a malformed file makes it raise
        raise fail(_parser_problem(exc)) from None
    if header.infinite:  # laid out on a finite grid: its size is the painted area's
        header = MapHeader(
            header.format, int(parsed.map_size.width), int(parsed.map_size.height), header.tile_px
        )
    return header, parsed


def _parser_problem(exc: BaseException) -> str:
    """One line for an exception pytiled_parser raised on a malformed file."""
    if isinstance(exc, NotImplementedError):  # templates of the other format (parser limit)
        return (
            "an object template is in the other format than the map (a .tj template in a TMX "
            "map, or a .tx in a JSON map), which pytiled_parser cannot read: save the template "
            "in the map's format"
        )
    if isinstance(exc, KeyError):
        return f"not a map Tiled wrote: missing {one_line(str(exc), 60)}"
    if isinstance(exc, FileNotFoundError):
        return f"a file the map refers to was not found: {one_line(str(exc.filename), 200)}"
    if isinstance(exc, OSError):
        return f"cannot read {one_line(str(exc.filename), 200)}: {exc.strerror or exc}"
    return f"not a map Tiled wrote: {type(exc).__name__}: {one_line(str(exc), 120)}"


@dataclass
class _Flat:
    """A layer with its group's offset, opacity, visibility and parallax folded in."""

    layer: tiled_layer.Layer
    offset: tuple[float, float]
    opacity: float
    visible: bool
    parallax: tuple[float, float]

    @property
    def where(self) -> str:
        return f'layer "{self.layer.name}"'


class _Builder:
    """One map being turned into a :class:`Level`."""

    def __init__(
        self,
        path: Path,
        header: MapHeader,
        parsed: pytiled_parser.TiledMap,
        kinds: KindRegistry,
        names: MapConventions,
    ) -> None:
        self.path = path
        self.source = str(path)
        self.parsed = parsed
        self.kinds = kinds
        self.tile_px = header.tile_px
        self.width = header.width_tiles
        self.height = header.height_tiles
        self.height_px = self.height * self.tile_px
        self.image_sizes: dict[Path, tuple[int, int]] = {}
        self.art: dict[int, TileArt] = {}
        self.art_where: dict[int, str] = {}
        self.used_gids: set[int] = set()
        self.open_columns: dict[tuple[str, int, str], tuple[int, int]] = {}
        self.tile_classes: dict[int, str] = {}
        self.tile_properties: dict[int, Mapping[str, Any]] = {}
        self.tile_shapes: dict[int, list[tuple[list[tuple[float, float]], bool]]] = {}
        self.ground: list[GroundShape] = []
        self.skipped = 0
        self.known_gids: set[int] = set()
        self.objects: list[LevelObject] = []
        self.raw_refs: list[tuple[LevelObject, Kind]] = []
        self.next_id = max(int(parsed.next_object_id or 1), 1)
        self.conventions: Conventions = conventions_for(
            [flat.layer for flat in self.flatten(parsed.layers)], kinds, self.error, names
        )

    # -- errors -------------------------------------------------------------------------------
    def error(self, detail: str, where: str | None = None) -> LevelError:
        return LevelError(self.source, detail, where)

    def failer(self, where: str | None) -> Callable[[str], LevelError]:
        """``fail(detail)`` for helpers that report problems about ``where``."""

        def fail(detail: str) -> LevelError:
            return self.error(detail, where)

        return fail

    def warn_or_fail(self, detail: str, where: str | None, layer_where: str) -> None:
        """A problem: an error naming ``where`` in strict conventions; in lenient ones a warning
        naming the layer (so a hundred objects with one problem are one line)."""
        if self.conventions.strict:
            raise self.error(detail, where)
        self.skipped += 1
        self.conventions.warn(f"{layer_where}: {detail}: left out")

    # -- the whole map ------------------------------------------------------------------------
    def build(self) -> Level:
        try:
            props = self.kinds.check_map_properties(dict(self.parsed.properties or {}))
        except PropError as exc:
            raise self.error(str(exc), "map properties") from None
        name = props.get("name", self.path.stem)
        if not isinstance(name, str) or not name.strip():
            raise self.error('property "name" must be a non-empty string', "map properties")
        problem = name_problem(name.strip())
        if problem is not None:
            raise self.error(f'property "name" {problem}', "map properties")
        self.read_tilesets()
        solid = [[False] * self.width for _ in range(self.height)]
        one_way = [[False] * self.width for _ in range(self.height)]
        layers: list[TileLayer | ImageLayer] = []
        for flat in self.flatten(self.parsed.layers):
            layer = flat.layer
            if isinstance(layer, tiled_layer.TileLayer):
                layers.append(self.tile_layer(flat, solid, one_way))
            elif isinstance(layer, tiled_layer.ObjectLayer):
                for item in layer.tiled_objects:
                    role = self.conventions.ground_object(item, layer)
                    if role != "decor":
                        self.add_ground_object(item, flat, one_way=role == "one_way")
                    else:
                        self.add_object(item, flat)
            elif isinstance(layer, tiled_layer.ImageLayer):
                layers.append(self.image_layer(flat))
        self._any_ground_tiles = any(map(any, solid)) or any(map(any, one_way))
        present = {obj.kind for obj in self.objects}
        footing = solid
        if not self.conventions.strict:
            footing = self.footing(solid, one_way)
        for obj in self.conventions.default_objects(
            self.width, self.height, self.tile_px, footing, present
        ):
            self.objects.append(self.with_fresh_id(obj))
        self.resolve_references()
        self.check_counts()
        used = {kind for kind in (obj.kind for obj in self.objects)}
        solid_tiles = merge_tiles(solid)
        one_way_tiles = merge_tiles(one_way, vertical=False)
        color = self.parsed.background_color
        return Level(
            name=name.strip(),
            source=self.path,
            width_tiles=self.width,
            height_tiles=self.height,
            tile_size_px=self.tile_px,
            map_tile_px=self.tile_px,
            solid_rects=tuple(
                tile_rect_to_px(r, self.tile_px, self.height_px) for r in solid_tiles
            ),
            one_way_rects=tuple(
                tile_rect_to_px(r, self.tile_px, self.height_px) for r in one_way_tiles
            ),
            solid_tile_count=sum(map(sum, solid)),
            one_way_tile_count=sum(map(sum, one_way)),
            objects=tuple(self.objects),
            layers=tuple(layers),
            tiles=MappingProxyType(self.used_art(self.used_gids)),
            kinds=MappingProxyType(
                {name: kind for name in used if (kind := self.kinds.get(name)) is not None}
            ),
            conventions=self.conventions.name,
            warnings=self.conventions.summary(),
            ground_shapes=tuple(self.ground),
            skipped_objects=self.skipped,
            background_color=(color.red, color.green, color.blue) if color is not None else None,
            properties=MappingProxyType(props),
        )

    def flatten(
        self,
        layers: list[tiled_layer.Layer],
        offset: tuple[float, float] = (0.0, 0.0),
        opacity: float = 1.0,
        visible: bool = True,
        parallax: tuple[float, float] = (1.0, 1.0),
        depth: int = 0,
    ) -> Iterator[_Flat]:
        """Tile, object and image layers in drawing order, with their groups folded in."""
        if depth > _MAX_GROUP_DEPTH:
            raise self.error(f"group layers are nested more than {_MAX_GROUP_DEPTH} deep")
        for layer in layers:
            here = (offset[0] + layer.offset.x, offset[1] + layer.offset.y)
            alpha = opacity * float(layer.opacity)
            shown = visible and bool(layer.visible)
            factor = (parallax[0] * layer.parallax_factor.x, parallax[1] * layer.parallax_factor.y)
            for value in (*here, alpha, *factor):
                if not math.isfinite(value) or abs(value) > MAX_COORDINATE_PX:
                    raise self.error(
                        f"offset, opacity or parallax {value!r} is not a sane number",
                        f'layer "{layer.name}"',
                    )
            if isinstance(layer, tiled_layer.LayerGroup):
                yield from self.flatten(layer.layers or [], here, alpha, shown, factor, depth + 1)
            else:
                yield _Flat(layer, here, alpha, shown, factor)

    # -- tilesets -----------------------------------------------------------------------------
    def read_tilesets(self) -> None:
        """Every tile's art region, animation and class, by gid (images checked once used)."""
        map_dir = self.path.parent
        for firstgid, tileset in sorted(self.parsed.tilesets.items()):
            where = f'tileset "{tileset.name}"'
            if firstgid <= 0:
                raise self.error(f"firstgid must be positive, got {firstgid}", where)
            tiles = tileset.tiles or {}
            if tileset.image is not None:
                sheet = resolve_image(Path(tileset.image), map_dir)
                columns = int(tileset.columns or 0)
                tile_w, tile_h = int(tileset.tile_width), int(tileset.tile_height)
                margin, spacing = int(tileset.margin or 0), int(tileset.spacing or 0)
                if columns <= 0 or tile_w <= 0 or tile_h <= 0:
                    raise self.error("a tileset image needs columns and a tile size", where)
                for local in range(int(tileset.tile_count)):
                    column, row = local % columns, local // columns
                    x = margin + column * (tile_w + spacing)
                    y = margin + row * (tile_h + spacing)
                    self.art[firstgid + local] = TileArt(sheet, x, y, tile_w, tile_h)
                    self.art_where[firstgid + local] = where
            for local, tile in tiles.items():
                gid = firstgid + int(local)
                if tile.image is not None:
                    image = resolve_image(Path(tile.image), map_dir)
                    self.art[gid] = TileArt(
                        image, int(tile.x), int(tile.y), int(tile.width or 0), int(tile.height or 0)
                    )
                    self.art_where[gid] = where
                if tile.class_:
                    self.tile_classes[gid] = tile.class_
                if tile.properties:
                    self.tile_properties[gid] = dict(tile.properties)
                if tile.objects is not None and not self.conventions.strict:
                    shapes = self.tile_collision(tile, where)
                    if shapes:
                        self.tile_shapes[gid] = shapes
            for local, tile in tiles.items():
                gid = firstgid + int(local)
                if tile.animation and gid in self.art:
                    frames = tuple(
                        (firstgid + int(frame.tile_id), int(frame.duration))
                        for frame in tile.animation
                    )
                    self.art[gid] = replace(self.art[gid], animation=frames)
        self.known_gids.update(self.art)

    def used_art(self, used: set[int]) -> dict[int, TileArt]:
        """The art of the tiles the map uses (and their animation frames), images checked.

        Only used tiles are checked: a tileset may carry art the map never shows (arcade's own
        tilesets name a few images that do not exist).
        """
        pending = sorted(used, reverse=True)  # the lowest gid is checked first
        result: dict[int, TileArt] = {}
        while pending:
            gid = pending.pop()
            if gid in result:
                continue
            art = self.art[gid]
            where = f"{self.art_where[gid]}, tile {gid}"
            width_px, height_px = check_image(art.image, self.failer(where), self.image_sizes)
            if not art.width_px or not art.height_px:  # a collection tile: the whole image
                art = replace(art, width_px=width_px, height_px=height_px)
            if art.x_px + art.width_px > width_px or art.y_px + art.height_px > height_px:
                raise self.error(
                    f"the tile's region lies outside the {width_px}x{height_px} px image", where
                )
            for frame_gid, duration_ms in art.animation:
                if frame_gid not in self.art or duration_ms <= 0:
                    raise self.error(
                        f"animation frame {frame_gid - gid:+d} ({duration_ms} ms) is not a tile "
                        "of this set with a duration > 0",
                        where,
                    )
                pending.append(frame_gid)
            result[gid] = art
        return result

    def check_gid(self, raw_gid: object, where: str, what: str) -> int:
        """A cell's or tile object's gid: an int whose tile exists (0: empty)."""
        if not isinstance(raw_gid, int) or isinstance(raw_gid, bool) or raw_gid < 0:
            raise self.error(f"{what} has tile id {str(raw_gid)[:20]!r}, not a tile", where)
        gid = mask_gid(raw_gid)
        if gid and gid not in self.known_gids:
            raise self.error(f"{what} uses tile {gid}, which no tileset has", where)
        if gid:
            self.used_gids.add(gid)
        return raw_gid if gid else 0

    # -- layers -------------------------------------------------------------------------------
    def tile_layer(
        self, flat: _Flat, solid: list[list[bool]], one_way: list[list[bool]]
    ) -> TileLayer:
        layer = flat.layer
        assert isinstance(layer, tiled_layer.TileLayer)
        where = flat.where
        rows = layer.data or []
        if len(rows) != self.height or any(len(row) != self.width for row in rows):
            raise self.error(f"the layer's data is not {self.width} x {self.height} tiles", where)
        role = self.conventions.role(layer)
        if role != "decor" and (flat.offset != (0.0, 0.0)):
            raise self.error("collision tile layers must not have an offset", where)
        layer_kind = self.conventions.layer_objects(layer, where)
        cells: list[int] = []
        for row_index, row in enumerate(rows):
            for column, raw_gid in enumerate(row):
                gid = self.check_gid(
                    raw_gid, where, f"the cell at column {column}, row {row_index}"
                )
                cells.append(gid)
                if not gid:
                    continue
                tile_class = self.tile_classes.get(mask_gid(gid))
                kind_name = layer_kind or (
                    self.conventions.tile_kind(tile_class) if tile_class else None
                )
                kind = self.kinds.get(kind_name) if kind_name is not None else None
                if role == "decor" and kind is not None:
                    self.add_cell_object(kind.name, gid, column, row_index, flat)
                    if not kind.merge_tiles:
                        cells[-1] = 0  # the object's entity draws it
                    continue
                if role == "decor" and mask_gid(gid) in self.tile_shapes:
                    self.add_tile_ground(mask_gid(gid), column, row_index, flat)
                    continue
                if role != "decor":
                    grid, other = (solid, one_way) if role == "solid" else (one_way, solid)
                    if other[row_index][column]:
                        raise self.error(
                            f"the tile at column {column}, row {row_index} is both solid and "
                            "one_way",
                            where,
                        )
                    grid[row_index][column] = True
        return TileLayer(
            name=layer.name,
            role=role,
            width_tiles=self.width,
            height_tiles=self.height,
            cells=tuple(cells),
            offset_px=(flat.offset[0], -flat.offset[1]),
            opacity=flat.opacity,
            visible=flat.visible,
            parallax=flat.parallax,
            foreground=self.conventions.foreground(layer),
            properties=MappingProxyType(dict(layer.properties or {})),
        )

    def image_layer(self, flat: _Flat) -> ImageLayer:
        layer = flat.layer
        assert isinstance(layer, tiled_layer.ImageLayer)
        image = resolve_image(Path(layer.image), self.path.parent)
        _, image_h = check_image(image, self.failer(flat.where), self.image_sizes)
        return ImageLayer(
            name=layer.name,
            image=image,
            offset_px=(flat.offset[0], self.height_px - flat.offset[1] - image_h),
            opacity=flat.opacity,
            visible=flat.visible,
            parallax=flat.parallax,
            repeat_x=bool(layer.repeat_x),
            foreground=self.conventions.foreground(layer),
        )

    # -- objects ------------------------------------------------------------------------------
    def with_fresh_id(self, obj: LevelObject) -> LevelObject:
        """``obj`` with the next unused object id."""
        fresh = replace(obj, id=self.next_id)
        self.next_id += 1
        return fresh

    def add_cell_object(self, kind_name: str, gid: int, column: int, row: int, flat: _Flat) -> None:
        """A painted tile that is an object (a coin painted as a tile)."""
        kind = self.kinds.get(kind_name)
        assert kind is not None
        rect = Rect(
            column * self.tile_px + flat.offset[0],
            self.height_px - (row + 1) * self.tile_px - flat.offset[1],
            float(self.tile_px),
            float(self.tile_px),
        )
        where = f"{flat.where}, the tile at column {column}, row {row}"
        raw_props = dict(self.tile_properties.get(mask_gid(gid), {}))
        checked = self.object_properties(kind, raw_props, where, flat.where)
        if checked is None:
            return
        props = checked
        if kind.merge_tiles:
            key = (flat.layer.name, column, kind.name)
            above = self.open_columns.get(key)
            if above is not None and above[1] == row - 1:
                index = above[0]
                grown = self.objects[index].rect
                self.objects[index] = replace(
                    self.objects[index],
                    rect=Rect(
                        grown.left_px,
                        rect.bottom_px,
                        grown.width_px,
                        grown.height_px + rect.height_px,
                    ),
                )
                self.open_columns[key] = (index, row)
                return
            self.open_columns[key] = (len(self.objects), row)
            gid = 0  # a zone: its tiles stay in the layer and draw it
        obj = LevelObject(
            0, "", kind.name, rect, "tile", (), MappingProxyType(props), gid, flat.layer.name
        )
        obj = self.with_fresh_id(obj)
        self.objects.append(obj)
        if any(prop.type is ObjectRef for prop in kind.props):
            self.raw_refs.append((obj, kind))

    # -- ground from objects ------------------------------------------------------------------
    def tile_collision(self, tile: Any, where: str) -> list[tuple[list[tuple[float, float]], bool]]:
        """The shapes Tiled's tile collision editor stored on a tile: outlines in the tile's
        own px (y down from its top-left), each with whether it is closed."""
        shapes = []
        for item in getattr(tile.objects, "tiled_objects", None) or []:
            outline = self.outline(item, f"{where}, tile {tile.id} collision")
            if outline is not None:
                shapes.append(outline)
        return shapes

    def outline(
        self, item: tiled_object.TiledObject, where: str
    ) -> tuple[list[tuple[float, float]], bool] | None:
        """An object's outline in map px, y down (a polyline open), or None for a point."""
        x = _number(item.coordinates.x, "x", where, self)
        y = _number(item.coordinates.y, "y", where, self)
        w = _number(item.size.width, "width", where, self)
        h = _number(item.size.height, "height", where, self)
        if isinstance(item, tiled_object.Polygon | tiled_object.Polyline):
            points = [
                (x + _number(p.x, "x", where, self), y + _number(p.y, "y", where, self))
                for p in item.points or []
            ]
            closed = isinstance(item, tiled_object.Polygon)
            if len(points) < (3 if closed else 2):
                return None
            return points, closed
        if isinstance(item, tiled_object.Tile):
            y -= h  # a tile object is anchored at its bottom-left
        if w <= 0 or h <= 0 or isinstance(item, tiled_object.Point | tiled_object.Text):
            return None
        return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)], True

    def add_ground(
        self,
        points_down: list[tuple[float, float]],
        closed: bool,
        one_way: bool,
        offset: tuple[float, float],
        layer: str,
    ) -> None:
        """One ground shape: map px (y down) plus ``offset`` to engine px (y up)."""
        dx, dy = offset
        points = tuple((x + dx, self.height_px - (y + dy)) for x, y in points_down)
        self.ground.append(GroundShape(points, closed, one_way, layer))

    def add_tile_ground(self, gid: int, column: int, row: int, flat: _Flat) -> None:
        """The collision shapes of the tile painted at ``(column, row)``."""
        art = self.art.get(gid)
        tile_h = art.height_px if art is not None and art.height_px else self.tile_px
        left = column * self.tile_px + flat.offset[0]
        top = (row + 1) * self.tile_px - tile_h + flat.offset[1]  # tall tiles grow upwards
        for points, closed in self.tile_shapes[gid]:
            self.add_ground(points, closed, False, (left, top), flat.layer.name)

    def add_ground_object(self, item: tiled_object.TiledObject, flat: _Flat, one_way: bool) -> None:
        """An object on a collision layer (or of a ground class): ground, not a thing."""
        where = _object_where(item)
        rotation = float(item.rotation or 0) if isinstance(item.rotation, int | float) else 0.0
        if rotation:
            self.warn_or_fail("a rotated ground object is not supported", where, flat.where)
            return
        gid = mask_gid(item.gid) if isinstance(item, tiled_object.Tile) else 0
        if gid and gid in self.tile_shapes:
            x = _number(item.coordinates.x, "x", where, self)
            y = _number(item.coordinates.y, "y", where, self)
            w = _number(item.size.width, "width", where, self)
            h = _number(item.size.height, "height", where, self)
            art = self.art.get(gid)
            scale_x = w / art.width_px if art is not None and art.width_px else 1.0
            scale_y = h / art.height_px if art is not None and art.height_px else 1.0
            for points, closed in self.tile_shapes[gid]:
                scaled = [(px * scale_x, py * scale_y) for px, py in points]
                self.add_ground(
                    scaled,
                    closed,
                    one_way,
                    (x + flat.offset[0], y - h + flat.offset[1]),
                    flat.layer.name,
                )
            return
        outline = self.outline(item, where)
        if outline is None:
            return
        points, closed = outline
        self.add_ground(points, closed, one_way, flat.offset, flat.layer.name)

    def add_object(self, item: tiled_object.TiledObject, flat: _Flat) -> None:
        where = _object_where(item)
        if isinstance(item, tiled_object.Text):
            self.warn_or_fail("text objects are not supported", where, flat.where)
            return
        shape = _SHAPES.get(type(item))
        if shape is None:
            self.warn_or_fail(f"unsupported object type {type(item).__name__}", where, flat.where)
            return
        rect, points = self.geometry(item, shape, flat, where)
        class_name, raw_props, extras = self.conventions.object_class(item, flat.layer, rect)
        for extra in extras:
            self.objects.append(self.with_fresh_id(extra))
        if not class_name:
            detail = "object has no class"
            if self.conventions.strict:
                detail += f" (set its Class in Tiled to one of: {', '.join(self.kinds.names)})"
            self.warn_or_fail(detail, where, flat.where)
            return
        kind = self.kinds.get(class_name)
        if kind is None:
            self.warn_or_fail(self.kinds.unknown_message(class_name), where, flat.where)
            return
        rotation = float(item.rotation or 0)
        if not math.isfinite(rotation) or rotation != 0:
            self.warn_or_fail(f"a {kind.name} must not be rotated", where, flat.where)
            return
        if shape not in kind.shapes:
            self.warn_or_fail(
                f"a {kind.name} must be a {' or '.join(kind.shapes)}, not a {shape}",
                where,
                flat.where,
            )
            return
        if kind.needs_area and shape != "point" and (rect.width_px <= 0 or rect.height_px <= 0):
            raise self.error(f"a {kind.name} needs a width and height > 0", where)
        if kind.needs_area and shape == "point":
            raise self.error(f"a {kind.name} must be a rectangle, not a point", where)
        checked = self.object_properties(kind, raw_props, where, flat.where)
        if checked is None:
            return
        props = checked
        gid = 0
        if isinstance(item, tiled_object.Tile):
            gid = self.check_gid(item.gid, where, "the tile object")
        obj = LevelObject(
            id=int(item.id),
            name=str(item.name or ""),
            kind=kind.name,
            rect=rect,
            shape=shape,
            points_px=points,
            properties=MappingProxyType(props),
            gid=gid,
            layer=flat.layer.name,
        )
        self.objects.append(obj)
        self.raw_refs.append((obj, kind))

    def object_properties(
        self, kind: Kind, raw: Mapping[str, Any], where: str, layer_where: str
    ) -> dict[str, Any] | None:
        """An object's checked properties; None when a foreign map's object is left out for
        them (a warning), an error in strict conventions."""
        try:
            return kind.check_properties(raw)
        except PropError as exc:
            self.warn_or_fail(f"{kind.name} {exc}", where, layer_where)
            return None

    def geometry(
        self, item: tiled_object.TiledObject, shape: Shape, flat: _Flat, where: str
    ) -> tuple[Rect, tuple[tuple[float, float], ...]]:
        """The object's rectangle (engine px, y up) and, for polylines and polygons, points."""
        x = _number(item.coordinates.x, "x", where, self) + flat.offset[0]
        y_down = _number(item.coordinates.y, "y", where, self) + flat.offset[1]
        width = _number(item.size.width, "width", where, self)
        height = _number(item.size.height, "height", where, self)
        if width < 0 or height < 0:
            raise self.error(f"width and height must be >= 0, got {width:g} x {height:g}", where)
        if shape == "point":
            return Rect(x, self.height_px - y_down, 0.0, 0.0), ()
        if shape == "tile":
            return Rect(x, self.height_px - y_down, width, height), ()
        if shape in ("polyline", "polygon"):
            raw_points = getattr(item, "points", None) or []
            if len(raw_points) < 2:
                raise self.error(f"a {shape} needs at least 2 points", where)
            points = tuple(
                (
                    x + _number(point.x, "x", where, self),
                    self.height_px - (y_down + _number(point.y, "y", where, self)),
                )
                for point in raw_points
            )
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)), points
        return Rect(x, self.height_px - (y_down + height), width, height), ()

    def footing(self, solid: list[list[bool]], one_way: list[list[bool]]) -> list[list[bool]]:
        """The cells something can stand on: solid and one-way tiles, and the cells whose
        centre lies in a ground shape's bounding box (a thin line marks the row it crosses)."""
        grid = [
            [a or b for a, b in zip(r1, r2, strict=True)]
            for r1, r2 in zip(solid, one_way, strict=True)
        ]
        tile = self.tile_px
        for shape in self.ground:
            box = shape.bounds
            first_col = max(0, int((box.left_px) // tile))
            last_col = min(self.width - 1, int((box.right_px - 1e-6) // tile))
            top_row = max(0, int((self.height_px - box.top_px) // tile))
            bottom_row = min(self.height - 1, int((self.height_px - box.bottom_px - 1e-6) // tile))
            if top_row >= self.height or bottom_row < 0:
                continue  # outside the map
            for row in range(top_row, max(bottom_row, top_row) + 1):
                for column in range(first_col, last_col + 1):
                    grid[row][column] = True
        return grid

    def missing_foreign(self, kind: str) -> str:
        """What to do when a foreign map has no object of a required kind (one line)."""
        candidates = _candidate_names(self.parsed)
        listed = ", ".join(f'"{name}"' for name in candidates[:12]) or "none"
        if len(candidates) > 12:
            listed += f" and {len(candidates) - 12} more"
        if kind == "player_start" and not any((self.solid_rects_present(), self.ground)):
            return (
                "no start found and no ground to start on: no tile or shape on a layer named "
                "like ground (Collision, Ground, Platforms...) and no object like a start; "
                f"objects: {listed}. "
                'Give the start object the class "player_start" and the ground layer the name '
                '"solid", or add the names to the game\'s map conventions'
            )
        return (
            f"no {kind} found: no object is classed or named like one (objects: {listed}); "
            f'give one the class "{kind}", or add its name to the game\'s map conventions'
        )

    def solid_rects_present(self) -> bool:
        return self._any_ground_tiles

    def resolve_references(self) -> None:
        """Turn object-reference properties (ids or names) into checked object ids."""
        by_id = {obj.id: obj for obj in self.objects}
        resolved: dict[int, LevelObject] = {}
        for obj, kind in self.raw_refs:
            props = dict(obj.properties)
            changed = False
            for prop in kind.props:
                if prop.type is not ObjectRef:
                    continue
                ref = props.get(prop.name)
                where = obj.label
                if isinstance(ref, str):
                    found = [o for o in self.objects if o.name == ref and o.kind == prop.ref_kind]
                    if not found:
                        raise self.error(
                            f'property "{prop.name}": no {prop.ref_kind} object is named "{ref}"',
                            where,
                        )
                    if len(found) > 1:
                        ids = ", ".join(str(o.id) for o in found)
                        raise self.error(
                            f'property "{prop.name}": "{ref}" is ambiguous: objects {ids} '
                            "share that name",
                            where,
                        )
                    target = found[0]
                else:
                    target_or_none = by_id.get(int(ref)) if isinstance(ref, int) else None
                    if target_or_none is None:
                        raise self.error(f'property "{prop.name}": object {ref} not found', where)
                    target = target_or_none
                    if target.kind != prop.ref_kind:
                        raise self.error(
                            f'property "{prop.name}": object {ref} is a {target.kind}, '
                            f"not a {prop.ref_kind}",
                            where,
                        )
                props[prop.name] = target.id
                changed = True
            if changed:
                resolved[obj.id] = replace(obj, properties=MappingProxyType(props))
        if resolved:
            self.objects = [resolved.get(obj.id, obj) for obj in self.objects]

    def check_counts(self) -> None:
        """Each kind's ``min_count``/``max_count`` per level (a foreign map keeps the first
        objects and drops the extra ones, with a warning)."""
        for kind in self.kinds:
            found = [obj for obj in self.objects if obj.kind == kind.name]
            shapes = " or ".join(kind.shapes)
            if not self.conventions.strict and kind.max_count is not None:
                surplus = found[kind.max_count :]
                if surplus:
                    dropped = {id(obj) for obj in surplus}
                    self.objects = [obj for obj in self.objects if id(obj) not in dropped]
                    self.skipped += len(surplus)
                    self.conventions.warn(
                        f"{len(surplus)} more {kind.name} object(s) left out "
                        f"({found[0].label} is the one used)"
                    )
                    found = found[: kind.max_count]
            if len(found) < kind.min_count and not self.conventions.strict:
                raise self.error(self.missing_foreign(kind.name))
            if len(found) < kind.min_count:
                need = "exactly one" if kind.max_count == 1 else f"at least {kind.min_count}"
                raise self.error(
                    f'no {kind.name} object: add {need} {shapes} of class "{kind.name}"'
                )
            if kind.max_count is not None and len(found) > kind.max_count:
                extra = found[kind.max_count]
                raise self.error(
                    f"a second {kind.name} ({found[0].label} is the first; at most "
                    f"{kind.max_count} allowed)",
                    extra.label,
                )


def object_names(path: Path | str) -> list[str]:
    """Every object's class or name in a map (for a message listing what a map has).

    Raises:
        LevelError: The map cannot be read (one line).
    """
    path = Path(path)

    def fail(detail: str) -> LevelError:
        return LevelError(str(path), detail)

    return _candidate_names(_parse(path, fail)[1])


def _candidate_names(parsed: pytiled_parser.TiledMap) -> list[str]:
    """Every object's class or name, for a message listing what a map has."""
    names: dict[str, None] = {}

    def visit(layers: list[tiled_layer.Layer], depth: int = 0) -> None:
        for layer in layers:
            if isinstance(layer, tiled_layer.LayerGroup) and depth < _MAX_GROUP_DEPTH:
                visit(layer.layers or [], depth + 1)
            for item in getattr(layer, "tiled_objects", None) or []:
                text = str(item.class_ or item.name or "")
                if text:
                    names[one_line(text, 40)] = None

    visit(parsed.layers)
    return list(names)


def _object_where(item: tiled_object.TiledObject) -> str:
    name = str(item.name or "")
    return f'object {item.id} "{name}"' if name else f"object {item.id}"


def _number(value: object, key: str, where: str, builder: _Builder) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise builder.error(f'"{key}" must be a number, got {str(value)[:40]!r}', where)
    number = float(value)
    if not math.isfinite(number) or abs(number) > MAX_COORDINATE_PX:
        raise builder.error(
            f'"{key}" is {number!r}, not a number within +-{MAX_COORDINATE_PX:g} px', where
        )
    return number
