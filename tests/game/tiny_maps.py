"""Small Tiled maps written by tests: a few rows of ground and the objects a test needs.

Each map is a real Tiled JSON file using the bundled tileset, so it goes through the same loader
and kinds as the bundled levels. Rows are drawn top to bottom (``#`` solid ground, ``=`` a
one-way platform, anything else empty); objects are placed in *tiles, y up* (the engine's
frame), which is how a test thinks about them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TILE_MAP_PX = 128
TILESET = Path(__file__).resolve().parents[2] / "levels" / "tiles" / "tiles.tsj"
GRASS_GID = 3  # grassMid
HALF_GID = 8  # grassHalf_mid


def _property(name: str, value: Any) -> dict[str, Any]:
    kind = (
        "bool"
        if isinstance(value, bool)
        else "int"
        if isinstance(value, int)
        else "float"
        if isinstance(value, float)
        else "string"
    )
    return {"name": name, "type": kind, "value": value}


def obj(
    kind: str,
    x: float,
    y: float,
    w: float = 0.0,
    h: float = 0.0,
    name: str = "",
    polyline: list[tuple[float, float]] | None = None,
    **props: Any,
) -> dict[str, Any]:
    """An object at ``(x, y)`` tiles (its bottom-left corner, y up; a point when w = h = 0)."""
    return {
        "kind": kind,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "name": name,
        "polyline": polyline,
        "props": props,
    }


def write_map(
    path: Path, rows: list[str], objects: list[dict[str, Any]], name: str = "Tiny"
) -> Path:
    """Write a Tiled JSON map with these rows and objects; returns ``path``."""
    width, height = max(len(row) for row in rows), len(rows)
    solid = [0] * (width * height)
    one_way = [0] * (width * height)
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == "#":
                solid[r * width + c] = GRASS_GID
            elif ch == "=":
                one_way[r * width + c] = HALF_GID
    tiled_objects = []
    for index, spec in enumerate(objects, start=1):
        x_px = spec["x"] * TILE_MAP_PX
        top_down_px = (height - spec["y"] - spec["h"]) * TILE_MAP_PX
        item: dict[str, Any] = {
            "id": index,
            "name": spec["name"],
            "type": spec["kind"],
            "rotation": 0,
            "visible": True,
            "x": x_px,
            "y": top_down_px,
            "width": spec["w"] * TILE_MAP_PX,
            "height": spec["h"] * TILE_MAP_PX,
        }
        if spec["w"] == 0 and spec["h"] == 0 and spec["polyline"] is None:
            item["point"] = True
        if spec["polyline"] is not None:
            item["x"], item["y"] = 0, 0
            item["polyline"] = [
                {"x": px * TILE_MAP_PX, "y": (height - py) * TILE_MAP_PX}
                for px, py in spec["polyline"]
            ]
        if spec["props"]:
            item["properties"] = [_property(k, v) for k, v in spec["props"].items()]
        tiled_objects.append(item)

    def tile_layer(layer_id: int, layer_name: str, data: list[int]) -> dict[str, Any]:
        return {
            "data": data,
            "height": height,
            "id": layer_id,
            "name": layer_name,
            "opacity": 1,
            "type": "tilelayer",
            "visible": True,
            "width": width,
            "x": 0,
            "y": 0,
        }

    document = {
        "compressionlevel": -1,
        "height": height,
        "infinite": False,
        "layers": [
            tile_layer(1, "solid", solid),
            tile_layer(2, "one_way", one_way),
            {
                "draworder": "topdown",
                "id": 3,
                "name": "objects",
                "objects": tiled_objects,
                "opacity": 1,
                "type": "objectgroup",
                "visible": True,
                "x": 0,
                "y": 0,
            },
        ],
        "nextlayerid": 4,
        "nextobjectid": len(tiled_objects) + 1,
        "orientation": "orthogonal",
        "properties": [{"name": "name", "type": "string", "value": name}],
        "renderorder": "right-down",
        "tiledversion": "1.10.2",
        "tileheight": TILE_MAP_PX,
        "tilesets": [{"firstgid": 1, "source": str(TILESET)}],
        "tilewidth": TILE_MAP_PX,
        "type": "map",
        "version": "1.10",
        "width": width,
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path
