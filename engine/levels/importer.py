"""``python -m engine.levels import SRC --out levels/NAME.json``: a foreign map in this
template's conventions.

A map written for another engine or tutorial loads leniently (names give meaning, see
:mod:`engine.levels.conventions`); importing it writes a map the game's strict conventions
read with the same result, and that a designer can keep editing in Tiled:

* the ground tile layers get the bool property ``solid`` (or ``one_way``); ground drawn as
  objects, and the collision shapes the tileset stored on tiles, become polygons and polylines
  on object layers named ``solid`` and ``one_way``;
* every object the conventions recognised gets its kind as its class (with its checked
  properties); objects without a known class are left out (the command says how many), and a
  missing exit is written as the right-edge exit the loader supplied;
* the art the map uses becomes one collection tileset; its images (and the image layers') are
  copied into ``NAME-art/`` beside the new map.

Each decision is printed, one line each (which layer became ground, which object the start).
A map whose start cannot be found is refused in one line listing its objects' names, so the
right one can be named in the game's conventions. The written map is loaded again with the
strict conventions before the command says it is done.

Pure: the standard library and Pillow (for image sizes).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.levels.conventions import GENERIC_CONVENTIONS, MapConventions
from engine.levels.kinds import KindRegistry, ObjectRef
from engine.levels.map_file import check_image
from engine.levels.model import (
    GroundShape,
    ImageLayer,
    Level,
    LevelError,
    LevelObject,
    TileLayer,
    escaped,
)
from engine.levels.tiled import load_level, object_names

__all__ = ["LevelImportError", "import_map", "main"]

TILED_VERSION = "1.10"


class LevelImportError(LevelError):
    """A map that cannot be imported (one line, like every level error)."""


def _property(name: str, value: Any, is_ref: bool) -> dict[str, Any] | None:
    if is_ref:
        return {"name": name, "type": "object", "value": int(value)}
    if isinstance(value, bool):
        return {"name": name, "type": "bool", "value": value}
    if isinstance(value, int):
        return {"name": name, "type": "int", "value": value}
    if isinstance(value, float):
        return {"name": name, "type": "float", "value": value}
    if isinstance(value, str):
        return {"name": name, "type": "string", "value": value}
    return None  # another engine's value of a type Tiled has no property for


class _Writer:
    """One level written as a Tiled JSON map in this template's conventions."""

    def __init__(self, level: Level, out: Path) -> None:
        self.level = level
        self.out = out
        self.art_dir = out.parent / f"{out.stem}-art"
        self.copied: dict[Path, str] = {}
        self.sizes: dict[Path, tuple[int, int]] = {}
        self.height_px = level.height_px

    def image(self, path: Path) -> str:
        """``path`` copied into the art folder; its path relative to the new map."""
        if path not in self.copied:
            name = path.name
            taken = set(self.copied.values())
            stem, suffix, index = path.stem, path.suffix, 1
            while f"{self.art_dir.name}/{name}" in taken:
                index += 1
                name = f"{stem}-{index}{suffix}"
            self.art_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, self.art_dir / name)
            self.copied[path] = f"{self.art_dir.name}/{name}"
        return self.copied[path]

    def size(self, path: Path) -> tuple[int, int]:
        def fail(detail: str) -> LevelError:
            return LevelError(str(path), detail)

        return check_image(path, fail, self.sizes)

    def tileset(self) -> dict[str, Any]:
        tiles = []
        for gid, art in sorted(self.level.tiles.items()):
            width, height = self.size(art.image)
            tile: dict[str, Any] = {
                "id": gid - 1,
                "image": self.image(art.image),
                "imagewidth": width,
                "imageheight": height,
                "x": art.x_px,
                "y": art.y_px,
                "width": art.width_px,
                "height": art.height_px,
            }
            if art.animation:
                tile["animation"] = [
                    {"tileid": frame - 1, "duration": ms} for frame, ms in art.animation
                ]
            tiles.append(tile)
        tile_px = self.level.map_tile_px
        return {
            "firstgid": 1,
            "name": "imported",
            "tilewidth": max([tile_px, *(t["width"] for t in tiles)]),
            "tileheight": max([tile_px, *(t["height"] for t in tiles)]),
            "tilecount": len(tiles),
            "columns": 0,
            "margin": 0,
            "spacing": 0,
            "grid": {"orientation": "orthogonal", "width": 1, "height": 1},
            "tiles": tiles,
        }

    def tile_layer(self, layer: TileLayer, layer_id: int) -> dict[str, Any]:
        props = []
        if layer.role != "decor":
            props.append({"name": layer.role, "type": "bool", "value": True})
        if layer.foreground:
            props.append({"name": "foreground", "type": "bool", "value": True})
        return {
            "type": "tilelayer",
            "id": layer_id,
            "name": layer.name,
            "width": layer.width_tiles,
            "height": layer.height_tiles,
            "data": list(layer.cells),
            "opacity": layer.opacity,
            "visible": layer.visible,
            "offsetx": layer.offset_px[0],
            "offsety": -layer.offset_px[1],
            "parallaxx": layer.parallax[0],
            "parallaxy": layer.parallax[1],
            "x": 0,
            "y": 0,
            **({"properties": props} if props else {}),
        }

    def image_layer(self, layer: ImageLayer, layer_id: int) -> dict[str, Any]:
        _, height = self.size(layer.image)
        props = [{"name": "foreground", "type": "bool", "value": True}] if layer.foreground else []
        return {
            "type": "imagelayer",
            "id": layer_id,
            "name": layer.name,
            "image": self.image(layer.image),
            "offsetx": layer.offset_px[0],
            "offsety": self.height_px - layer.offset_px[1] - height,
            "opacity": layer.opacity,
            "visible": layer.visible,
            "parallaxx": layer.parallax[0],
            "parallaxy": layer.parallax[1],
            "repeatx": layer.repeat_x,
            "x": 0,
            "y": 0,
            **({"properties": props} if props else {}),
        }

    def points(
        self, points: Sequence[tuple[float, float]]
    ) -> tuple[float, float, list[dict[str, float]]]:
        x0, y0 = points[0][0], self.height_px - points[0][1]
        return (
            x0,
            y0,
            [{"x": x - x0, "y": (self.height_px - y) - y0} for x, y in points],
        )

    def ground_object(self, shape: GroundShape, object_id: int) -> dict[str, Any]:
        x0, y0, relative = self.points(shape.points_px)
        return {
            "id": object_id,
            "name": "",
            "type": "",
            "x": x0,
            "y": y0,
            "width": 0,
            "height": 0,
            "rotation": 0,
            "visible": True,
            "polygon" if shape.closed else "polyline": relative,
        }

    def thing(self, obj: LevelObject) -> dict[str, Any]:
        kind = self.level.kinds.get(obj.kind)
        refs = {p.name for p in kind.props if p.type is ObjectRef} if kind is not None else set()
        props = [
            prop
            for name, value in obj.properties.items()
            if (prop := _property(name, value, name in refs)) is not None
        ]
        rect = obj.rect
        item: dict[str, Any] = {
            "id": obj.id,
            "name": obj.name,
            "type": obj.kind,
            "rotation": 0,
            "visible": True,
            **({"properties": props} if props else {}),
        }
        if obj.shape in ("polyline", "polygon"):
            x0, y0, relative = self.points(obj.points_px)
            item.update(x=x0, y=y0, width=0, height=0)
            item[obj.shape] = relative
        elif obj.shape == "point":
            item.update(x=rect.left_px, y=self.height_px - rect.bottom_px, point=True)
            item.update(width=0, height=0)
        elif obj.shape == "tile" and obj.gid:
            item.update(x=rect.left_px, y=self.height_px - rect.bottom_px, gid=obj.gid)
            item.update(width=rect.width_px, height=rect.height_px)
        else:  # a rectangle, an ellipse, or a zone made from tiles
            item.update(x=rect.left_px, y=self.height_px - rect.top_px)
            item.update(width=rect.width_px, height=rect.height_px)
            if obj.shape == "ellipse":
                item["ellipse"] = True
        return item

    def document(self) -> dict[str, Any]:
        level = self.level
        layers: list[dict[str, Any]] = []
        layer_id = 1
        for layer in level.layers:
            if isinstance(layer, TileLayer):
                layers.append(self.tile_layer(layer, layer_id))
            else:
                layers.append(self.image_layer(layer, layer_id))
            layer_id += 1
        next_object_id = max([0, *(obj.id for obj in level.objects)]) + 1
        for one_way in (False, True):
            shapes = [s for s in level.ground_shapes if s.one_way == one_way]
            if not shapes:
                continue
            objects = []
            for shape in shapes:
                objects.append(self.ground_object(shape, next_object_id))
                next_object_id += 1
            role = "one_way" if one_way else "solid"
            layers.append(
                {
                    "type": "objectgroup",
                    "id": layer_id,
                    "name": role,
                    "objects": objects,
                    "draworder": "topdown",
                    "opacity": 1,
                    "visible": True,
                    "x": 0,
                    "y": 0,
                }
            )
            layer_id += 1
        layers.append(
            {
                "type": "objectgroup",
                "id": layer_id,
                "name": "objects",
                "objects": [self.thing(obj) for obj in level.objects],
                "draworder": "topdown",
                "opacity": 1,
                "visible": True,
                "x": 0,
                "y": 0,
            }
        )
        color = level.background_color
        return {
            "type": "map",
            "version": TILED_VERSION,
            "tiledversion": TILED_VERSION,
            "orientation": "orthogonal",
            "renderorder": "right-down",
            "width": level.width_tiles,
            "height": level.height_tiles,
            "tilewidth": level.map_tile_px,
            "tileheight": level.map_tile_px,
            "infinite": False,
            "nextlayerid": layer_id + 1,
            "nextobjectid": next_object_id,
            **({"backgroundcolor": "#{:02x}{:02x}{:02x}".format(*color)} if color else {}),
            "properties": [{"name": "name", "type": "string", "value": level.name}],
            "tilesets": [self.tileset()] if level.tiles else [],
            "layers": layers,
        }


def decisions(level: Level) -> list[str]:
    """What the loader decided about a foreign map, one line each."""
    lines = []
    for layer in level.layers:
        if isinstance(layer, TileLayer) and layer.role != "decor":
            ground = "solid ground" if layer.role == "solid" else "one-way platforms"
            lines.append(f'layer "{escaped(layer.name)}": tiles -> {ground}')
    by_layer: Counter[tuple[str, bool]] = Counter(
        (shape.layer, shape.one_way) for shape in level.ground_shapes
    )
    for (layer_name, one_way), count in sorted(by_layer.items()):
        ground = "one-way platforms" if one_way else "solid ground"
        lines.append(f'layer "{escaped(layer_name)}": {count} shapes -> {ground}')
    start = level.player_start
    lines.append(
        f'{start.label} on layer "{escaped(start.layer)}" -> player_start'
        if start.layer
        else f"{start.label} -> player_start"
    )
    counted: Counter[tuple[str, str]] = Counter(
        (obj.layer, obj.kind) for obj in level.objects if obj.kind != "player_start"
    )
    for (layer_name, kind), count in sorted(counted.items()):
        where = f'layer "{escaped(layer_name)}"' if layer_name else "supplied"
        lines.append(f"{where}: {count} object(s) -> {kind}")
    if level.skipped_objects:
        lines.append(f"{level.skipped_objects} object(s) without a known class left out")
    return lines


def import_map(
    source: Path,
    out: Path,
    kinds: KindRegistry | None = None,
    conventions: MapConventions = GENERIC_CONVENTIONS,
) -> tuple[Level, list[str]]:
    """Import ``source`` into ``out``; return the level as written and the decisions made.

    Raises:
        LevelError: The source cannot be read, its start cannot be found, or the result
            does not load with the strict conventions (one line each).
    """
    level = load_level(source, kinds, conventions)
    if not level.player_start.layer:  # the loader's default start: no object was the start
        names = object_names(source)
        listed = ", ".join(f'"{escaped(n, 40)}"' for n in names[:12]) or "none"
        raise LevelImportError(
            str(source),
            f"no start found among the objects ({listed}): give the start the class "
            '"player_start", or add its name to the game\'s map conventions',
        )
    lines = decisions(level)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = _Writer(level, out)
    out.write_text(json.dumps(writer.document(), indent=1), encoding="utf-8")
    written = load_level(out, kinds, conventions)
    if written.conventions != "project":
        raise LevelImportError(str(out), "the written map is not in this template's conventions")
    return written, lines


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.levels import SRC --out FILE [--kinds M] [--conventions M]``."""
    from engine.levels.__main__ import specs_from_flags, summary_line
    from engine.runtime.launch import OneLineParser

    parser: argparse.ArgumentParser = OneLineParser(
        prog="python -m engine.levels import",
        description="Turn a foreign Tiled map into one in this template's conventions.",
    )
    parser.add_argument("source", metavar="SRC", help="the map to import (TMX or JSON)")
    parser.add_argument("--out", required=True, metavar="FILE", help="the new map (.json)")
    parser.add_argument("--kinds", metavar="MODULE[:NAME]", default=None)
    parser.add_argument("--conventions", metavar="MODULE[:NAME]", default=None)
    args = parser.parse_args(argv)
    kinds, conventions = specs_from_flags(parser, args)
    out = Path(args.out)
    if out.suffix != ".json":
        parser.error(f"--out {escaped(args.out)}: the new map must be a .json file")
    try:
        level, lines = import_map(Path(args.source), out, kinds, conventions)
    except LevelError as exc:
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"level error: {escaped(args.out)}: cannot write ({exc.strerror})", file=sys.stderr)
        return 2
    for line in lines:
        print(f"{escaped(args.source, 200)}: {line}")
    print(summary_line(level, str(out)))
    return 0
