"""The level cache (``engine.levels.level_cache``): a level loaded again is the same object
while every file it was made from has the same bytes, and a fresh load as soon as one differs.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.levels import Kind, KindRegistry, LevelError, load_level

DATA = Path(__file__).parent / "data"


@pytest.fixture
def level_dir(tmp_path: Path) -> Path:
    for name in ("realistic.json", "tiles.tsj", "tiles.png"):
        shutil.copy(DATA / name, tmp_path / name)
    return tmp_path


def _edit_keeping_size_and_time(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (same length) and put the modification time back: only the
    bytes tell that the file changed."""
    assert len(old) == len(new)
    info = path.stat()
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_loading_the_same_files_again_gives_the_same_level(level_dir: Path) -> None:
    kinds = KindRegistry()
    first = load_level(level_dir / "realistic.json", kinds)
    assert load_level(level_dir / "realistic.json", kinds) is first


def test_an_edited_map_is_loaded_again_even_with_the_same_size_and_time(level_dir: Path) -> None:
    path = level_dir / "realistic.json"
    data = json.loads(path.read_text())
    original = json.dumps(data).encode()
    path.write_bytes(original)
    first = load_level(path)
    cells = next(layer for layer in data["layers"] if layer["name"] == "solid")["data"]
    cells[cells.index(0)] = 1  # an empty cell becomes ground: the same length
    _edit_keeping_size_and_time(path, original, json.dumps(data).encode())
    assert load_level(path).solid_tile_count == first.solid_tile_count + 1


def test_an_edited_tileset_is_seen_too(level_dir: Path) -> None:
    path = level_dir / "realistic.json"
    first = load_level(path)
    tileset = level_dir / "tiles.tsj"
    _edit_keeping_size_and_time(tileset, b'"name": "tiles"', b'"name": "tilez"')
    second = load_level(path)
    assert second is not first and second == first  # parsed again; the name does not show


def test_a_map_broken_after_a_good_load_reports_its_error_every_time(level_dir: Path) -> None:
    path = level_dir / "realistic.json"
    good = path.read_bytes()
    load_level(path)
    path.write_bytes(good[: len(good) // 2])
    for _ in range(2):
        with pytest.raises(LevelError):
            load_level(path)
    path.write_bytes(good)
    assert load_level(path).width_tiles == 100


def test_a_kind_registered_after_a_load_is_known_to_the_next_load(level_dir: Path) -> None:
    kinds = KindRegistry()
    first = load_level(level_dir / "realistic.json", kinds)
    kinds.register(Kind("lantern", ("point",)))
    second = load_level(level_dir / "realistic.json", kinds)
    assert second is not first
