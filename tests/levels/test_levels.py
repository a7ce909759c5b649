"""The sample game's bundled levels (``levels/level*.json``) load and follow the conventions.

Every level must load with the game's kinds (:data:`game.kinds.KINDS`), hold exactly one player
start, an exit and coins, and merge its solid tiles into few shapes. Each level teaches what the
difficulty curve says it does, and every kind of object appears in some level. The maps must also
parse with ``pytiled_parser`` (the parser the loader uses), and the command line must print one
summary line per level.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engine.levels import Level, load_level
from game.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]
LEVELS_DIR = ROOT / "levels"
TITLES = {
    "level1.json": "First Steps",
    "level2.json": "Slimes and Springs",
    "level3.json": "Platforms",
    "level4.json": "Crumbling Heights",
    "level5.json": "Crates and Swings",
    "level6.json": "The Climb",
}
LEVEL_FILES = tuple(TITLES)
TEACHES: dict[str, set[str]] = {
    "level1.json": {"coin", "ladder", "hazard"},
    "level2.json": {"walker", "spring"},
    "level3.json": {"moving_platform", "flyer", "checkpoint"},
    "level4.json": {"crumbling_platform", "ladder", "checkpoint"},
    "level5.json": {"crate", "swing"},
    "level6.json": {
        "walker",
        "spring",
        "ladder",
        "crumbling_platform",
        "moving_platform",
        "flyer",
        "crate",
        "checkpoint",
    },
}
"""What each level must contain: the kinds it teaches (level 6 combines them)."""
MAX_SHAPES_PER_TILE = 0.10


@pytest.fixture(scope="module", params=LEVEL_FILES)
def level(request: pytest.FixtureRequest) -> Level:
    return load_level(LEVELS_DIR / request.param, KINDS)


def test_the_levels_are_the_six_bundled_ones() -> None:
    assert sorted(p.name for p in LEVELS_DIR.glob("level*.json")) == sorted(LEVEL_FILES)


def test_level_loads_with_its_title(level: Level) -> None:
    assert level.name == TITLES[level.source.name]
    assert level.tile_size_px == 128
    assert level.conventions == "project" and level.warnings == ()


def test_level_has_start_exit_and_coins(level: Level) -> None:
    assert level.player_start.kind == "player_start"
    assert len(level.exits) >= 1
    assert len(level.coins) > 0


def test_each_level_teaches_its_kinds(level: Level) -> None:
    kinds = {obj.kind for obj in level.objects}
    assert TEACHES[level.source.name] <= kinds


def test_every_kind_of_the_game_appears_in_some_level() -> None:
    used: Counter[str] = Counter()
    for name in LEVEL_FILES:
        used.update(obj.kind for obj in load_level(LEVELS_DIR / name, KINDS).objects)
    assert set(KINDS.names) <= set(used), set(KINDS.names) - set(used)


def test_solid_tiles_merge_into_few_shapes(level: Level) -> None:
    shapes, tiles = len(level.solid_rects), level.solid_tile_count
    assert tiles > 0
    assert shapes <= MAX_SHAPES_PER_TILE * tiles, f"{tiles} tiles -> {shapes} shapes"


def test_markers_are_inside_the_map_and_not_in_the_ground(level: Level) -> None:
    markers = [level.player_start, *level.checkpoints, *level.coins]
    for obj in markers:
        x, y = obj.position_px
        assert 0 <= x < level.width_px and 0 <= y < level.height_px, obj
        probe_y = y + 1 if obj.rect.height_px == 0 else y  # a point sits on the ground's top
        for rect in level.solid_rects:
            inside = rect.left_px < x < rect.right_px and rect.bottom_px < probe_y < rect.top_px
            assert not inside, f"{obj.kind} {obj.id} is inside solid ground"
    # The player starts standing on solid ground.
    x, y = level.player_start.feet_px
    assert any(r.left_px <= x <= r.right_px and r.top_px == y for r in level.solid_rects)


def test_exits_cannot_be_overshot(level: Level) -> None:
    """An exit zone reaches the top of the map, and behind it stands a wall no jump clears."""
    tile = level.tile_size_px
    for goal in level.exits:
        assert goal.rect.top_px == level.height_px
        assert goal.rect.width_px >= 3 * tile
        walls = [
            r
            for r in level.solid_rects
            if goal.rect.right_px <= r.left_px <= goal.rect.right_px + 3 * tile
            and r.top_px >= goal.rect.bottom_px + 4 * tile
        ]
        assert walls, "no wall behind the exit"


def test_movers_start_on_their_path(level: Level) -> None:
    for obj in [*level.moving_platforms, *level.of_kind("flyer")]:
        path = level.ref(obj, "path").points_px
        assert path[0] == pytest.approx(obj.rect.center_px)
        assert obj.properties["speed_px_s"] > 0


@pytest.mark.parametrize("name", LEVEL_FILES)
def test_maps_are_tiled_json_that_pytiled_parser_reads(name: str) -> None:
    import pytiled_parser

    raw = json.loads((LEVELS_DIR / name).read_text(encoding="utf-8"))
    assert raw["type"] == "map" and raw["orientation"] == "orthogonal"
    assert raw["infinite"] is False
    assert {"version", "tiledversion", "renderorder", "nextlayerid", "nextobjectid"} <= set(raw)
    assert raw["tilesets"] == [{"firstgid": 1, "source": "tiles/tiles.tsj"}]
    parsed = pytiled_parser.parse_map(LEVELS_DIR / name)
    assert parsed.properties["name"] == TITLES[name]
    assert {layer.name for layer in parsed.layers} >= {"solid", "one_way", "objects"}


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


def test_tileset_animates_tiles_and_paints_coins() -> None:
    tileset = json.loads((LEVELS_DIR / "tiles" / "tiles.tsj").read_text(encoding="utf-8"))
    by_image = {tile["image"]: tile for tile in tileset["tiles"]}
    assert len(by_image["torch1.png"]["animation"]) == 2
    assert by_image["coinGold.png"]["type"] == "coin"  # a painted coin tile is a coin


def test_command_line_prints_one_summary_line_per_level() -> None:
    files = [f"levels/{name}" for name in LEVEL_FILES]
    out = subprocess.run(
        [sys.executable, "-m", "engine.levels", "--kinds", "game.kinds", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(files)
    for file, line in zip(files, lines, strict=True):
        assert line.startswith(f"{file}: ")
