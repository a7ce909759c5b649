"""The tile map view: layers placed where Tiled puts them, parallax, tick-driven animation."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import arcade
import pytest
from PIL import Image

from engine.levels import load_level
from engine.rendering.tilemap import TileMapView, frame_at, frames_in_ticks

pytestmark = pytest.mark.gl

DATA = Path(__file__).resolve().parents[1] / "levels" / "data"


def map_with_image_layer(tmp_path: Path, parallax: tuple[float, float] = (1.0, 1.0)) -> Path:
    """small.json (6 x 4 tiles of 16 px) plus a 96 x 64 image layer whose bottom half is clear."""
    for name in ("small.json", "tiles.png"):
        shutil.copy(DATA / name, tmp_path / name)
    picture = Image.new("RGBA", (96, 64), (0, 0, 0, 0))
    picture.paste((255, 255, 255, 255), (0, 0, 96, 32))  # only the top half is opaque
    picture.save(tmp_path / "clouds.png")
    data = json.loads((tmp_path / "small.json").read_text())
    layer = {
        "id": 99, "name": "clouds", "type": "imagelayer", "image": "clouds.png",
        "opacity": 1, "visible": True, "x": 0, "y": 0, "offsetx": 0, "offsety": 0,
        "parallaxx": parallax[0], "parallaxy": parallax[1],
    }  # fmt: skip
    data["layers"].insert(0, copy.deepcopy(layer))
    path = tmp_path / "with_image.json"
    path.write_text(json.dumps(data))
    return path


def test_an_image_layer_sits_at_its_offset_even_with_a_clear_bottom(
    gl_window: Any, tmp_path: Path
) -> None:
    level = load_level(map_with_image_layer(tmp_path))
    view = TileMapView(level, 1 / 60)
    clouds = view.layers[0]
    assert clouds.name == "clouds"
    (sprite,) = list(clouds.sprites)
    # The map is 64 px tall and the image 64 px: its bottom-left is the level's bottom-left,
    # although its lower half is transparent (arcade's default hit box would lift it 32 px).
    assert (sprite.center_x, sprite.center_y, sprite.width, sprite.height) == (48, 32, 96, 64)


def test_tile_sprites_fill_their_cells(gl_window: Any) -> None:
    level = load_level(DATA / "small.json")
    view = TileMapView(level, 1 / 60)
    solid = next(layer for layer in view.layers if layer.name == "solid")
    for sprite in solid.sprites:
        assert (sprite.center_x - 8) % 16 == 0 and (sprite.center_y - 8) % 16 == 0
        assert (sprite.width, sprite.height) == (16, 16)


def test_animation_frames_are_whole_ticks() -> None:
    frames = frames_in_ticks(((1, 100), (2, 50), (3, 16)), 1000 / 60)
    assert frames == [(1, 6), (2, 3), (3, 1)]
    assert [frame_at(frames, tick) for tick in (0, 5, 6, 8, 9)] == [0, 0, 1, 1, 2]


class CountingCamera(arcade.Camera2D):
    """A real camera that remembers where each ``use()`` put it."""

    def __init__(self) -> None:
        super().__init__()
        self.uses: list[tuple[float, float]] = []

    def use(self) -> None:
        self.uses.append((float(self.position[0]), float(self.position[1])))
        super().use()


def test_the_camera_is_used_once_per_distinct_position_and_left_on_the_view(
    gl_window: Any, tmp_path: Path
) -> None:
    path = map_with_image_layer(tmp_path, parallax=(0.5, 0.5))
    camera, view_px = CountingCamera(), (100.0, 40.0)
    view = TileMapView(load_level(path), 1 / 60)
    view.draw(camera, view_px, foreground=False)
    half_w, half_h = camera.viewport_width / 2, camera.viewport_height / 2
    parallax = (half_w + (100.0 - half_w) * 0.5, half_h + (40.0 - half_h) * 0.5)
    assert camera.uses == [parallax, view_px]  # the clouds, then every parallax-1 layer
    assert tuple(camera.position) == view_px
    view.draw(camera, view_px, foreground=True)
    assert len(camera.uses) == 2  # no foreground layer: nothing drawn, the camera untouched

    data = json.loads(path.read_text())
    decoration = next(layer for layer in data["layers"] if layer["name"] == "decoration")
    decoration["properties"] = [{"name": "foreground", "type": "bool", "value": True}]
    path.write_text(json.dumps(data))
    with_foreground = TileMapView(load_level(path), 1 / 60)
    assert any(layer.foreground and layer.sprites for layer in with_foreground.layers)
    camera.uses.clear()
    with_foreground.draw(camera, view_px, foreground=True)
    assert camera.uses == [view_px]


def test_every_bundled_tile_sits_on_its_cell_corner_taller_art_reaching_up(
    gl_window: Any,
) -> None:
    """Tiled draws a tile's image from its cell's bottom-left corner, moved by the layer's
    offset: every sprite of every bundled level, at the game's tile size, sits exactly there."""
    from engine.levels.merge import mask_gid
    from engine.levels.model import TileLayer
    from tests.engine.app.sample_game import GAME, LEVELS_DIR

    settings = GAME.default_settings()
    checked = 0
    for path in sorted(LEVELS_DIR.glob("level*.json")):
        level = GAME.load_world(path, settings).level
        view = TileMapView(level, 1 / 60)
        tile = level.tile_size_px
        layers = [
            layer
            for layer in level.layers
            if isinstance(layer, TileLayer) and layer.visible and layer.opacity > 0
        ]
        views = [v for v in view.layers if v.name in {layer.name for layer in layers}]
        for layer, drawn in zip(layers, views, strict=True):
            cells = [i for i, gid in enumerate(layer.cells) if mask_gid(gid)]
            assert len(drawn.sprites) == len(cells)
            for index, sprite in zip(cells, drawn.sprites, strict=True):
                row, column = divmod(index, layer.width_tiles)
                assert sprite.left == pytest.approx(column * tile + layer.offset_px[0])
                assert sprite.bottom == pytest.approx(
                    level.height_px - (row + 1) * tile + layer.offset_px[1]
                )
                checked += 1
    assert checked > 1000


def test_art_taller_than_its_cell_reaches_up_from_the_cell(gl_window: Any, tmp_path: Path) -> None:
    """A 16 x 32 tile on a map of 16 px cells stands on its cell and covers the one above."""
    shutil.copy(DATA / "tiles.png", tmp_path / "tiles.png")
    data = json.loads((DATA / "small.json").read_text())
    data["tilesets"].append(
        {
            "columns": 2,
            "firstgid": 5,
            "image": "tiles.png",
            "imageheight": 32,
            "imagewidth": 32,
            "margin": 0,
            "name": "tall",
            "spacing": 0,
            "tilecount": 2,
            "tileheight": 32,
            "tilewidth": 16,
        }
    )
    decoration = next(layer for layer in data["layers"] if layer["name"] == "decoration")
    decoration["data"] = [0] * 24
    decoration["data"][2 * 6 + 4] = 5  # row 2 (from the top), column 4
    (tmp_path / "tall.json").write_text(json.dumps(data))
    level = load_level(tmp_path / "tall.json")
    drawn = next(layer for layer in TileMapView(level, 1 / 60).layers if layer.name == "decoration")
    (sprite,) = list(drawn.sprites)
    assert (sprite.width, sprite.height) == (16, 32)
    assert (sprite.left, sprite.bottom) == (4 * 16, 64 - 3 * 16)  # the cell's bottom-left
