"""Levels play in the natural order of their file names; any map file in levels/ is a level."""

from __future__ import annotations

from pathlib import Path

from engine.app.level_order import bundled_levels, natural_key

ROOT = Path(__file__).resolve().parents[3]


def touch(folder: Path, *names: str) -> None:
    for name in names:
        (folder / name).write_text("{}", encoding="utf-8")


def test_numbers_in_names_compare_as_numbers(tmp_path: Path) -> None:
    touch(tmp_path, "level10.json", "level2.json", "level1.json", "level1b.json")
    assert [p.name for p in bundled_levels(tmp_path)] == [
        "level1.json",
        "level1b.json",
        "level2.json",
        "level10.json",
    ]


def test_any_map_format_counts_and_nothing_else_does(tmp_path: Path) -> None:
    touch(tmp_path, "02-caves.tmx", "01-meadow.json", "03-sky.tmj", "notes.txt", "tiles.tsj")
    (tmp_path / "replays").mkdir()
    touch(tmp_path / "replays", "level1.json")
    assert [p.name for p in bundled_levels(tmp_path)] == [
        "01-meadow.json",
        "02-caves.tmx",
        "03-sky.tmj",
    ]


def test_the_bundled_levels_play_one_to_six() -> None:
    assert [p.name for p in bundled_levels(ROOT / "levels")] == [
        f"level{n}.json" for n in range(1, 7)
    ]


def test_natural_key_is_case_blind_and_total() -> None:
    names = ["B2.json", "a10.json", "a9.json", "10.json", "a9b.json"]
    assert sorted(names, key=natural_key) == [
        "10.json",
        "a9.json",
        "a9b.json",
        "a10.json",
        "B2.json",
    ]
