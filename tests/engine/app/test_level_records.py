"""Level records: best time and coins per level, medals against par, bad files survived."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.app.level_records import LevelRecords, medal_for
from engine.levels import load_level
from engine.rendering.level_preview import COIN, GROUND, HAZARD, preview_rgba
from tests.engine.app.sample_game import GAME

ROOT = Path(__file__).resolve().parents[3]


def test_records_keep_the_best_time_and_the_most_coins(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    records = LevelRecords(path)
    assert records.record("a.json@60", 500, 3)
    assert not records.record("a.json@60", 600, 2)  # worse on both: nothing saved
    assert records.record("a.json@60", 700, 9)  # more coins, slower: the best time stays
    again = LevelRecords(path)
    record = again.get("a.json@60")
    assert record is not None and (record.best_ticks, record.coins) == (500, 9)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        '{"format": "level-records", "version": 1, "levels": {"a": {"best_ticks": -1}}}',
        '{"format": "x"}',
        "\udcff".encode("utf-8", "surrogatepass").decode("latin-1"),
    ],
)
def test_a_corrupt_file_is_moved_aside_with_one_warning(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text, encoding="latin-1")
    warnings: list[str] = []
    records = LevelRecords(path, warn=warnings.append)
    assert records.records == {}
    assert len(warnings) == 1 and str(path) in warnings[0] and "corrupt" in warnings[0]
    assert (tmp_path / "r.json.corrupt").exists()
    records.record("a.json@60", 10, 1)  # and the game goes on saving
    assert json.loads(path.read_text())["levels"]["a.json@60"]["best_ticks"] == 10


def test_a_directory_in_the_files_place_is_one_warning_and_no_save(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.mkdir()
    warnings: list[str] = []
    records = LevelRecords(path, warn=warnings.append)
    records.record("a.json@60", 10, 1)
    assert len(warnings) == 1 and path.is_dir()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.one_of(st.none(), st.integers(1, 10**6)))
def test_medals_order_with_the_time(best: int, par: int | None) -> None:
    medal = medal_for(best, par)
    order = ["gold", "silver", "bronze"]
    assert medal in order
    slower = medal_for(best + 1, par)
    assert slower is not None and order.index(slower) >= order.index(medal)
    if par is not None:
        assert (medal == "gold") == (best <= par)
    assert medal_for(None, par) is None


@pytest.mark.parametrize("name", ["level1.json", "level3.json", "level6.json"])
def test_the_preview_shows_ground_coins_and_hazards_where_the_level_has_them(name: str) -> None:
    level = load_level(ROOT / "levels" / name, GAME.kinds)
    image = preview_rgba(level)
    assert image.shape == (level.height_tiles, level.width_tiles, 4)
    coin = level.coins[0].rect.center_px
    row = level.height_tiles - 1 - int(coin[1] // level.tile_size_px)
    assert tuple(image[row, int(coin[0] // level.tile_size_px), :3]) == COIN
    assert (image[..., :3] == GROUND).all(axis=2).any()
    if level.hazards:
        assert (image[..., :3] == HAZARD).all(axis=2).any()
