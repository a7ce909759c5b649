"""Reading a map is bounded and never hangs: pipes, devices, giants and deep nesting are one line."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.levels import LevelError, load_level
from engine.levels.map_file import MAX_CELLS

DATA_DIR = Path(__file__).parent / "data"


def error(path: Path) -> str:
    with pytest.raises(LevelError) as info:
        load_level(path)
    line = str(info.value)
    assert "\n" not in line and line.startswith(f"level error: {path}: ")
    return line


def small(tmp_path: Path, **changes: object) -> Path:
    data = json.loads((DATA_DIR / "small.json").read_text(encoding="utf-8"))
    data.update(changes)
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "tiles.png")
    path = tmp_path / "map.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_a_named_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    assert "not a regular file" in error(fifo)


def test_a_device_is_refused() -> None:
    assert "not a regular file" in error(Path("/dev/zero"))


def test_a_giant_map_is_refused_at_once(tmp_path: Path) -> None:
    line = error(small(tmp_path, width=1_000_000, height=1_000_000))
    assert f"more than the {MAX_CELLS:,}" in line


def test_json_nested_far_too_deep_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert "nested too deeply" in error(path)


def test_a_bom_is_accepted(tmp_path: Path) -> None:
    path = small(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_level(path).name == "Small Test"


def test_a_tileset_image_that_is_not_an_image_is_refused(tmp_path: Path) -> None:
    path = small(tmp_path)
    (tmp_path / "tiles.png").write_text("not a png", encoding="utf-8")
    assert "is not an image Pillow can read" in error(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_an_external_tileset_that_is_a_pipe_is_refused(tmp_path: Path) -> None:
    path = small(tmp_path, tilesets=[{"firstgid": 1, "source": "set.tsj"}])
    os.mkfifo(tmp_path / "set.tsj")
    assert 'tileset "set.tsj": tileset file is not a regular file' in error(path)


def test_a_nul_in_a_tileset_path_is_one_line(tmp_path: Path) -> None:
    path = small(tmp_path, tilesets=[{"firstgid": 1, "source": "a\x00b.tsj"}])
    assert "cannot read tileset file" in error(path)


@pytest.mark.parametrize(("kind", "value"), [("type", 7), ("type", ["coin"]), ("class", {"a": 1})])
def test_an_object_class_that_is_not_a_string_is_one_line(
    tmp_path: Path, kind: str, value: object
) -> None:
    data = json.loads((DATA_DIR / "small.json").read_text(encoding="utf-8"))
    data["layers"][3]["objects"][2].pop("class", None)
    data["layers"][3]["objects"][2][kind] = value
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "tiles.png")
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    error(path)
