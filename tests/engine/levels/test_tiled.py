"""Tests for the pure Tiled level loader (``engine.levels``).

Fixtures live in ``tests/engine/data/tiled``:

* ``small.json``: a 6x4 map (16 px tiles, 64 px tall) whose every coordinate is checked by
  hand; it uses Tiled 1.9's ``class`` key, flip flags, an embedded tileset, a one-way layer
  chosen by property, a tile object, a group layer and a layer offset.
* ``realistic.json``: a 100x30 level (ceiling, walls, floor with a pit, pillar, stairs,
  platforms) with an external tileset ``tiles.tsj``, used for merge counts and physics.

Error tests copy ``small.json`` into ``tmp_path`` as ``broken.json``, break one thing and check
that the error is exactly one line naming the file and the object, layer or tileset.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymunk
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.levels import (
    ONE_WAY_COLLISION_TYPE,
    SOLID_COLLISION_TYPE,
    Level,
    LevelError,
    Rect,
    TileRect,
    add_static_geometry,
    load_level,
    mask_gid,
    merge_tiles,
)
from engine.levels.__main__ import main

DATA_DIR = Path(__file__).parent / "data"
SMALL = DATA_DIR / "small.json"
SMALL_TMX = DATA_DIR / "small.tmx"
REALISTIC = DATA_DIR / "realistic.json"
ROOT = Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------------------------------------
# Coordinates and flags on the small hand-checked map
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small() -> Level:
    return load_level(SMALL)


def test_small_map_header(small: Level) -> None:
    assert small.name == "Small Test"  # the map's "name" property wins over the file stem
    assert (small.width_tiles, small.height_tiles, small.tile_size_px) == (6, 4, 16)
    assert (small.width_px, small.height_px) == (96, 64)
    assert small.source == SMALL


def test_solid_tiles_are_merged_in_engine_coordinates(small: Level) -> None:
    # Rows 1-2 of column 5 (one tile flipped horizontally) merge into one 1x2 column;
    # row 3 (the bottom row, one tile flipped diagonally) is one full-width floor.
    assert small.solid_tile_count == 8
    assert small.solid_rects == (
        Rect(left_px=80.0, bottom_px=16.0, width_px=16.0, height_px=32.0),
        Rect(left_px=0.0, bottom_px=0.0, width_px=96.0, height_px=16.0),
    )


def test_one_way_layer_by_property(small: Level) -> None:
    # Layer "ledges" has one_way = true; row 1 columns 1-2 (one tile flipped vertically).
    assert small.one_way_tile_count == 2
    assert small.one_way_rects == (Rect(16.0, 32.0, 32.0, 16.0),)


def test_objects_convert_y_down_to_y_up(small: Level) -> None:
    # player_start: rectangle x=16 y=16 (its top-left in Tiled) 16x32 -> bottom = 64 - (16 + 32).
    start = small.player_start
    assert (start.id, start.name, start.kind) == (1, "start", "player_start")
    assert start.rect == Rect(16.0, 16.0, 16.0, 32.0)
    assert start.position_px == (24.0, 32.0)
    # exit: point at (88, 8) -> (88, 56).
    (goal,) = small.exits
    assert goal.rect == Rect(88.0, 56.0, 0.0, 0.0)
    assert goal.position_px == (88.0, 56.0)
    # coins: a point at (40, 40) -> (40, 24); a tile object anchored bottom-left at (64, 48).
    point_coin, tile_coin = small.coins
    assert point_coin.position_px == (40.0, 24.0)
    assert tile_coin.rect == Rect(64.0, 16.0, 16.0, 16.0)
    # hazard: rectangle x=48 y=44 16x4 -> bottom = 64 - 48 = 16.
    (spikes,) = small.hazards
    assert spikes.rect == Rect(48.0, 16.0, 16.0, 4.0)
    # checkpoint in a group layer with offset (8, 4): point (0, 0) -> (8, 60).
    (checkpoint,) = small.checkpoints
    assert checkpoint.position_px == (8.0, 60.0)


def test_moving_platform_path_and_speed(small: Level) -> None:
    (lift,) = small.moving_platforms
    assert (lift.id, lift.name) == (6, "lift")
    assert lift.rect == Rect(0.0, 56.0, 32.0, 8.0)
    # path polyline at (16, 4) with relative points (0,0) (32,0) (32,16), then y flipped.
    route = small.ref(lift, "path")
    assert (route.id, route.kind) == (7, "path")  # the string property named it; now its id
    assert lift.properties["path"] == 7
    assert route.points_px == ((16.0, 60.0), (48.0, 60.0), (48.0, 44.0))
    assert lift.properties["speed_px_s"] == 60.0
    assert lift.properties["start_px"] == 0.0  # a default filled in from the kind


def test_the_same_map_as_tmx_with_an_xml_tileset_loads_to_the_same_level(small: Level) -> None:
    tmx = load_level(SMALL_TMX)
    assert tmx.objects == small.objects
    assert (tmx.solid_rects, tmx.one_way_rects) == (small.solid_rects, small.one_way_rects)
    assert tmx.name == small.name
    # The .tsx tileset animates tile 2 (gid 3): its frames are gids, their durations in ms.
    assert tmx.tiles[3].animation == ((3, 250), (4, 250))
    assert tmx.tiles[4].animation == ()


def test_mask_gid_clears_all_four_flag_bits() -> None:
    assert mask_gid(0) == 0
    assert mask_gid(5) == 5
    assert mask_gid(0x80000005) == 5  # horizontal flip
    assert mask_gid(0x40000005) == 5  # vertical flip
    assert mask_gid(0x20000005) == 5  # diagonal flip
    assert mask_gid(0x10000005) == 5  # hexagonal 120 degree rotation
    assert mask_gid(0xF0000000 | 0x0FFFFFFF) == 0x0FFFFFFF


# ---------------------------------------------------------------------------------------------
# Merging
# ---------------------------------------------------------------------------------------------


def _cells(rects: list[TileRect]) -> list[tuple[int, int]]:
    return [
        (rect.row + dy, rect.column + dx)
        for rect in rects
        for dy in range(rect.height_tiles)
        for dx in range(rect.width_tiles)
    ]


grids = st.integers(1, 12).flatmap(
    lambda width: st.lists(st.lists(st.booleans(), min_size=width, max_size=width), max_size=12)
)


@settings(max_examples=300, deadline=None)
@given(grid=grids, vertical=st.booleans())
def test_merge_covers_exactly_the_filled_cells_without_overlap(
    grid: list[list[bool]], vertical: bool
) -> None:
    rects = merge_tiles(grid, vertical=vertical)
    cells = _cells(rects)
    filled = {(r, c) for r, row in enumerate(grid) for c, on in enumerate(row) if on}
    assert len(cells) == len(set(cells)), "rectangles overlap"
    assert set(cells) == filled
    assert all(rect.width_tiles >= 1 and rect.height_tiles >= 1 for rect in rects)
    if not vertical:
        assert all(rect.height_tiles == 1 for rect in rects)
    # Never worse than one rectangle per horizontal run.
    runs = sum(1 for row in grid for c, on in enumerate(row) if on and (c == 0 or not row[c - 1]))
    assert len(rects) <= runs


def test_merge_examples() -> None:
    wall_and_floor = [
        [True, False, False],
        [True, False, False],
        [True, True, True],
    ]
    assert merge_tiles(wall_and_floor) == [TileRect(0, 0, 1, 2), TileRect(0, 2, 3, 1)]
    assert merge_tiles([[True, True], [True, True]]) == [TileRect(0, 0, 2, 2)]
    assert merge_tiles([]) == []


def test_realistic_level_merges_to_under_ten_percent() -> None:
    level = load_level(REALISTIC)
    assert level.solid_tile_count == 696
    assert len(level.solid_rects) == 18
    assert len(level.solid_rects) <= 0.10 * level.solid_tile_count
    assert (level.one_way_tile_count, len(level.one_way_rects)) == (25, 4)
    area_px2 = sum(r.width_px * r.height_px for r in level.solid_rects)
    assert area_px2 == level.solid_tile_count * level.tile_size_px**2


def test_realistic_level_contents() -> None:
    level = load_level(REALISTIC)
    assert level.name == "realistic"  # no "name" property: the file stem
    assert (level.width_px, level.height_px) == (1600, 480)
    assert level.player_start.position_px == (64.0, 48.0)  # on the floor top (y = 480 - 432)
    assert (len(level.coins), len(level.checkpoints), len(level.exits)) == (12, 2, 1)
    assert len(level.hazards) == 2
    lift, ferry = level.moving_platforms
    assert level.ref(lift, "path").points_px == ((680.0, 360.0), (680.0, 160.0))  # by name
    assert lift.properties["speed_px_s"] == 120.0  # the kind's default
    ferry_path = level.ref(ferry, "path").points_px  # by object reference
    assert ferry_path == ((1200.0, 240.0), (1360.0, 240.0), (1360.0, 304.0))
    assert ferry.properties["speed_px_s"] == 80.5


# ---------------------------------------------------------------------------------------------
# pymunk
# ---------------------------------------------------------------------------------------------


def test_static_geometry_shapes_and_collision_types() -> None:
    level = load_level(REALISTIC)
    space = pymunk.Space()
    shapes = add_static_geometry(level, space, friction=0.7)
    assert len(shapes) == len(level.solid_rects) + len(level.one_way_rects) == 22
    assert len(space.shapes) == 22
    types = [shape.collision_type for shape in shapes]
    assert types.count(SOLID_COLLISION_TYPE) == 18
    assert types.count(ONE_WAY_COLLISION_TYPE) == 4
    assert all(shape.body is space.static_body and shape.friction == 0.7 for shape in shapes)
    first = shapes[0].bb
    ceiling = level.solid_rects[0]
    assert (first.left, first.bottom, first.right, first.top) == pytest.approx(
        (ceiling.left_px, ceiling.bottom_px, ceiling.right_px, ceiling.top_px)
    )


def test_dropped_box_comes_to_rest_on_the_floor() -> None:
    level = load_level(REALISTIC)
    space = pymunk.Space()
    space.gravity = (0.0, -900.0)
    add_static_geometry(level, space)
    floor_top_px = 480.0 - 27 * 16  # the floor is tile rows 27-29
    body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (16, 16)))
    body.position = (100.0, 70.0)  # column 6: nothing between it and the floor
    box = pymunk.Poly.create_box(body, (16, 16))
    box.friction = 1.0
    space.add(body, box)
    for _ in range(240):
        space.step(1 / 120)
    assert body.position.y == pytest.approx(floor_top_px + 8.0, abs=0.5)
    assert body.position.x == pytest.approx(100.0, abs=0.5)
    assert abs(body.velocity.y) < 1.0


# ---------------------------------------------------------------------------------------------
# Errors: one line, naming the file and the object / layer / tileset
# ---------------------------------------------------------------------------------------------


def _base() -> dict[str, Any]:
    return json.loads(SMALL.read_text(encoding="utf-8"))


def _objects(data: dict[str, Any]) -> list[dict[str, Any]]:
    return data["layers"][3]["objects"]


def _obj(data: dict[str, Any], object_id: int) -> dict[str, Any]:
    return next(o for o in _objects(data) if o["id"] == object_id)


def _lift_props(data: dict[str, Any]) -> list[dict[str, Any]]:
    return _obj(data, 6)["properties"]


def _set_speed(value: Any, declared: str = "float") -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        _lift_props(data)[1] = {"name": "speed_px_s", "type": declared, "value": value}

    return mutate


def _external_tileset(source: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["tilesets"] = [{"firstgid": 1, "source": source}]

    return mutate


def _second_start(data: dict[str, Any]) -> None:
    extra = copy.deepcopy(_obj(data, 1))
    extra.update(id=17, name="start2")
    _objects(data).append(extra)


def _short_path(data: dict[str, Any]) -> None:
    _obj(data, 7)["polyline"] = [{"x": 0, "y": 0}]


def _no_path(data: dict[str, Any]) -> None:
    del _lift_props(data)[0]


def _path_name(data: dict[str, Any]) -> None:
    _lift_props(data)[0]["value"] = "nowhere"


def _path_int(data: dict[str, Any]) -> None:
    _lift_props(data)[0] = {"name": "path", "type": "int", "value": 3}


def _path_object_missing(data: dict[str, Any]) -> None:
    _lift_props(data)[0] = {"name": "path", "type": "object", "value": 99}


def _bad_declared_type(data: dict[str, Any]) -> None:
    _lift_props(data)[1] = {"name": "speed_px_s", "type": "float", "value": "fast"}


def _bad_layer_flag(data: dict[str, Any]) -> None:
    data["layers"][1]["properties"][0] = {"name": "one_way", "type": "string", "value": "yes"}


def _unknown_type(data: dict[str, Any]) -> None:
    _obj(data, 3)["class"] = "coinn"


def _no_type(data: dict[str, Any]) -> None:
    _obj(data, 3)["class"] = ""


def _drop(kind: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["layers"][3]["objects"] = [o for o in _objects(data) if o.get("class") != kind]

    return mutate


def _infinite(data: dict[str, Any]) -> None:
    data["infinite"] = True


def _chunked(data: dict[str, Any]) -> None:
    layer = data["layers"][0]
    layer["chunks"] = [{"data": layer.pop("data"), "x": 0, "y": 0, "width": 6, "height": 4}]


def _isometric(data: dict[str, Any]) -> None:
    data["orientation"] = "isometric"


def _image_missing(data: dict[str, Any]) -> None:
    data["tilesets"][0]["image"] = "missing.png"


def _unknown_gid(data: dict[str, Any]) -> None:
    data["layers"][2]["data"][7] = 0x80000009  # gid 9 after masking; the tileset has 4 tiles


def _short_data(data: dict[str, Any]) -> None:
    data["layers"][0]["data"].pop()


def _hazard_point(data: dict[str, Any]) -> None:
    _obj(data, 5).update(point=True, width=0, height=0)


def _rotated(data: dict[str, Any]) -> None:
    _obj(data, 5)["rotation"] = 45


def _path_not_polyline(data: dict[str, Any]) -> None:
    del _obj(data, 7)["polyline"]


def _both_flags(data: dict[str, Any]) -> None:
    data["layers"][1]["properties"].append({"name": "solid", "type": "bool", "value": True})


def _zstd(data: dict[str, Any]) -> None:
    data["layers"][0].update(encoding="base64", compression="zstd", data="AAAA")


def _overlap(data: dict[str, Any]) -> None:
    data["layers"][1]["data"][23] = 2  # bottom-right cell is already solid


ERROR_CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("no player_start", _drop("player_start"), "no player_start object: add exactly one"),
    ("two player_starts", _second_start, 'object 17 "start2": a second player_start'),
    ("no exit", _drop("exit"), "no exit object: add at least 1"),
    (
        "unknown type",
        _unknown_type,
        'object 3: unknown object class "coinn" (did you mean "coin"?)',
    ),
    ("no type", _no_type, "object 3: object has no class (set its Class in Tiled"),
    ("no path", _no_path, 'object 6 "lift": moving_platform needs a property "path"'),
    ("path name", _path_name, 'object 6 "lift": property "path": no path object is named'),
    ("path object", _path_object_missing, 'object 6 "lift": property "path": object 99 not found'),
    ("path kind", _path_int, 'object 6 "lift": property "path": object 3 is a coin, not a path'),
    ("short path", _short_path, 'object 7 "route": a polyline needs at least 2 points'),
    ("zero speed", _set_speed(0.0), 'property "speed_px_s" must be a number in 1..100000 px/s'),
    ("negative", _set_speed(-5, "int"), 'object 6 "lift": moving_platform property "speed_px_s"'),
    ("speed str", _set_speed("9", "string"), 'property "speed_px_s" must be a number in 1..'),
    ("declared", _bad_declared_type, "got string 'fast'"),
    ("layer flag", _bad_layer_flag, 'layer "ledges": property "one_way" must be a bool'),
    ("isometric", _isometric, "only orthogonal maps are supported, this one is 'isometric'"),
    ("image", _image_missing, "missing.png not found"),
    ("tileset", _external_tileset("gone.tsj"), 'tileset "gone.tsj": tileset file not found'),
    ("gid", _unknown_gid, 'layer "decoration": the cell at column 1, row 1 uses tile 9'),
    ("data size", _short_data, 'layer "solid": the tile data must be a list of 24 tile ids'),
    ("hazard point", _hazard_point, 'object 5 "spikes": a hazard must be a rectangle'),
    ("rotated", _rotated, 'object 5 "spikes": a hazard must not be rotated'),
    ("path shape", _path_not_polyline, 'object 7 "route": a path must be a polyline'),
    ("both flags", _both_flags, 'layer "ledges": a tile layer cannot be both solid and one_way'),
    ("zstd", _zstd, 'layer "solid": '),  # no zstandard: says so; with it: damaged data
    ("overlap", _overlap, 'layer "ledges": the tile at column 5, row 3 is both solid and one_way'),
]


def _write(tmp_path: Path, data: dict[str, Any] | str) -> Path:
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "tiles.png")
    path = tmp_path / "broken.json"
    text = data if isinstance(data, str) else json.dumps(data, indent=1)
    path.write_text(text, encoding="utf-8")
    return path


def _error_line(path: Path) -> str:
    with pytest.raises(LevelError) as info:
        load_level(path)
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith(f"level error: {path}: ")
    return line


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [pytest.param(mutate, expected, id=case) for case, mutate, expected in ERROR_CASES],
)
def test_error_is_one_line_naming_file_and_culprit(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], None], expected: str
) -> None:
    data = _base()
    mutate(data)
    line = _error_line(_write(tmp_path, data))
    assert expected in line


def test_unbroken_copy_loads(tmp_path: Path) -> None:
    """The error tests' base really is valid, so each failure comes from its one change."""
    assert load_level(_write(tmp_path, _base())).solid_tile_count == 8


def test_error_format_example(tmp_path: Path) -> None:
    data = _base()
    _no_path(data)
    path = _write(tmp_path, data)
    assert str(_error_line(path)).startswith(
        f'level error: {path}: object 6 "lift": moving_platform needs a property "path"'
    )


def test_malformed_json_names_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, '{\n "width": 6,\n "height" 4\n}\n')
    line = _error_line(path)
    assert "malformed JSON at line 3, column 11" in line


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    assert _error_line(tmp_path / "nope.json").endswith("file not found")
    (tmp_path / "dir.json").mkdir()
    assert "is a directory" in _error_line(tmp_path / "dir.json")
    (tmp_path / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    assert "not UTF-8" in _error_line(tmp_path / "latin1.json")


def test_malformed_external_tileset(tmp_path: Path) -> None:
    data = _base()
    _external_tileset("bad.tsj")(data)
    (tmp_path / "bad.tsj").write_text("{\n  oops\n}", encoding="utf-8")
    line = _error_line(_write(tmp_path, data))
    assert 'tileset "bad.tsj": malformed JSON at line 2, column 3' in line


def test_external_tileset_image_checked_relative_to_tileset(tmp_path: Path) -> None:
    data = _base()
    _external_tileset("sets/t.tsj")(data)
    (tmp_path / "sets").mkdir()
    tileset = json.loads((DATA_DIR / "tiles.tsj").read_text(encoding="utf-8"))
    (tmp_path / "sets" / "t.tsj").write_text(json.dumps(tileset), encoding="utf-8")
    path = _write(tmp_path, data)  # tiles.png sits next to the map, not next to the tileset
    assert f'tileset "tiles", tile 1: image {tmp_path / "sets" / "tiles.png"} not found' in (
        _error_line(path)
    )  # the lowest gid the map uses is checked first
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "sets" / "tiles.png")
    assert load_level(path).solid_tile_count == 8


def test_a_missing_image_is_named_without_dot_dot_parts(tmp_path: Path) -> None:
    data = _base()
    _external_tileset("sets/t.tsj")(data)
    (tmp_path / "sets").mkdir()
    tileset = json.loads((DATA_DIR / "tiles.tsj").read_text(encoding="utf-8"))
    tileset["image"] = "../art/tiles.png"
    (tmp_path / "sets" / "t.tsj").write_text(json.dumps(tileset), encoding="utf-8")
    line = _error_line(_write(tmp_path, data))
    assert f"image {tmp_path / 'art' / 'tiles.png'} not found" in line and ".." not in line


def test_base64_zlib_tile_data_loads(tmp_path: Path) -> None:
    import base64
    import zlib

    data = _base()
    layer = data["layers"][0]
    blob = b"".join(gid.to_bytes(4, "little") for gid in layer["data"])
    layer.update(
        encoding="base64", compression="zlib", data=base64.b64encode(zlib.compress(blob)).decode()
    )
    level = load_level(_write(tmp_path, data))
    assert level.solid_rects == load_level(SMALL).solid_rects


def test_newlines_in_names_never_break_the_line(tmp_path: Path) -> None:
    data = _base()
    _obj(data, 3).update({"name": "two\nlines", "class": "bogus"})
    line = _error_line(_write(tmp_path, data))
    assert 'object 3 "two lines": unknown object class "bogus"' in line


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def _run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.levels", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_summarises_good_levels() -> None:
    out = _run_cli(str(SMALL), str(REALISTIC))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    assert "solid 696 tiles -> 18 shapes" in lines[1]
    assert "checkpoint 2, coin 12, exit 1, hazard 2, moving_platform 2, path 2" in lines[1]


def test_cli_error_is_one_line_and_exit_2(tmp_path: Path) -> None:
    data = _base()
    _path_name(data)
    path = _write(tmp_path, data)
    out = _run_cli(str(path))
    assert out.returncode == 2
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    assert out.stderr.splitlines() == [
        f'level error: {path}: object 6 "lift": property "path": no path object is named "nowhere"'
    ]


def test_cli_without_files_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_main_mixes_good_and_bad(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SMALL), str(tmp_path / "missing.json")]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 1
    assert captured.err.splitlines() == [
        f"level error: {tmp_path / 'missing.json'}: file not found"
    ]
