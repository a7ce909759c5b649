"""The sample game's bundled levels (``levels/level*.json``) load and follow the conventions.

Every level must load with :func:`engine.levels.load_level`, hold exactly one player start,
an exit and some coins, and merge its solid tiles into few shapes (at most 10 % of the tile
count). Levels 2 and 3 must contain the features they teach. The maps must also parse with
``pytiled_parser`` (arcade's own Tiled reader), and the command line must print one summary line
per level.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.levels import Level, load_level

ROOT = Path(__file__).resolve().parents[2]
LEVELS_DIR = ROOT / "levels"
LEVEL_FILES = ("level1.json", "level2.json", "level3.json")
TITLES = {"level1.json": "First Steps", "level2.json": "Platforms", "level3.json": "The Climb"}
MAX_SHAPES_PER_TILE = 0.10


@pytest.fixture(scope="module", params=LEVEL_FILES)
def level(request: pytest.FixtureRequest) -> Level:
    return load_level(LEVELS_DIR / request.param)


def test_level_loads_with_its_title(level: Level) -> None:
    assert level.name == TITLES[level.source.name]
    assert level.tile_size_px == 128


def test_level_has_start_exit_and_coins(level: Level) -> None:
    assert level.player_start.kind == "player_start"
    assert len(level.exits) >= 1
    assert len(level.coins) > 0


def test_solid_tiles_merge_into_few_shapes(level: Level) -> None:
    shapes, tiles = len(level.solid_rects), level.solid_tile_count
    print(f"{level.source.name}: solid {tiles} tiles -> {shapes} shapes")
    assert tiles > 0
    assert shapes <= MAX_SHAPES_PER_TILE * tiles, f"{tiles} tiles -> {shapes} shapes"


def test_markers_are_inside_the_map_and_not_in_the_ground(level: Level) -> None:
    tile = level.tile_size_px
    markers = [level.player_start, *level.exits, *level.checkpoints, *level.coins]
    for obj in markers:
        x, y = obj.position_px
        assert 0 <= x < level.width_px and 0 <= y < level.height_px, obj
        # The marker's centre must be in open air (not inside a solid rectangle).
        probe_y = y + 1 if obj.rect.height_px == 0 else y  # a point sits on the ground's top
        for rect in level.solid_rects:
            inside = rect.left_px < x < rect.right_px and rect.bottom_px < probe_y < rect.top_px
            assert not inside, f"{obj.kind} {obj.id} is inside solid ground"
    # The player starts standing on solid ground.
    x, y = level.player_start.position_px
    assert any(r.left_px <= x <= r.right_px and r.top_px == y for r in level.solid_rects)
    assert y % tile == 0


def test_moving_platforms_start_on_their_path(level: Level) -> None:
    for platform in level.moving_platforms:
        assert platform.path_px[0] == pytest.approx(platform.rect.center_px)
        assert platform.speed_px_s > 0


def test_level2_teaches_platforms() -> None:
    level = load_level(LEVELS_DIR / "level2.json")
    assert level.one_way_tile_count > 0 and level.one_way_rects
    assert len(level.moving_platforms) >= 1
    assert len(level.checkpoints) >= 1
    assert len(level.hazards) >= 1
    (x0, _), (x1, _) = level.moving_platforms[0].path_px[:2]
    assert x0 != x1, "level 2's moving platform travels horizontally"


def test_level3_combines_everything() -> None:
    level = load_level(LEVELS_DIR / "level3.json")
    assert level.one_way_tile_count > 0
    assert len(level.moving_platforms) >= 2
    assert len(level.checkpoints) >= 2
    assert len(level.hazards) >= len(load_level(LEVELS_DIR / "level2.json").hazards)


@pytest.mark.parametrize("name", LEVEL_FILES)
def test_maps_are_tiled_json_that_arcade_can_parse(name: str) -> None:
    import pytiled_parser

    raw = json.loads((LEVELS_DIR / name).read_text(encoding="utf-8"))
    assert raw["type"] == "map" and raw["orientation"] == "orthogonal"
    assert raw["infinite"] is False
    assert {"version", "tiledversion", "renderorder", "nextlayerid", "nextobjectid"} <= set(raw)
    assert raw["tilesets"] == [{"firstgid": 1, "source": "tiles/tiles.tsj"}]
    parsed = pytiled_parser.parse_map(LEVELS_DIR / name)
    assert parsed.properties["name"] == TITLES[name]
    assert {layer.name for layer in parsed.layers} >= {"solid", "one_way"}


def test_tileset_images_exist_and_are_licensed() -> None:
    tiles_dir = LEVELS_DIR / "tiles"
    tileset = json.loads((tiles_dir / "tiles.tsj").read_text(encoding="utf-8"))
    assert tileset["type"] == "tileset"
    assert tileset["tilecount"] == len(tileset["tiles"])
    for tile in tileset["tiles"]:
        assert (tiles_dir / tile["image"]).is_file(), tile["image"]
        assert tile["imagewidth"] == tile["imageheight"] == 128
    licence = (tiles_dir / "LICENSE.txt").read_text(encoding="utf-8")
    assert "Kenney" in licence and "CC0" in licence


def test_command_line_prints_one_summary_line_per_level() -> None:
    files = [f"levels/{name}" for name in LEVEL_FILES]
    out = subprocess.run(
        [sys.executable, "-m", "engine.levels", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    print(out.stdout)
    assert len(lines) == 3
    for file, line in zip(files, lines, strict=True):
        assert line.startswith(f"{file}: ")
