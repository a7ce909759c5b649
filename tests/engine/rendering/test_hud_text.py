"""Outlined HUD text: white text ringed by the dark outline over any background (needs GL)."""

from __future__ import annotations

from typing import Any

import arcade
import numpy as np
import pytest

from engine.rendering.hud_text import OUTLINE_COLOR, HudLines, OutlinedText

pytestmark = pytest.mark.gl

SKY = (135, 206, 235, 255)  # a pale sky: white text alone barely reads on it


def draw(window: Any, text: OutlinedText) -> np.ndarray:
    window.clear(color=SKY)
    window.default_camera.use()
    text.draw()
    image = arcade.get_image(0, 0, window.width, window.height)
    return np.asarray(image.convert("RGB"), dtype=np.uint8)


def test_text_is_white_inside_a_dark_ring(gl_window: Any) -> None:
    text = OutlinedText()
    text.add("HUD 0:12.345", 10, 100, font_size=18)
    pixels = draw(gl_window, text)
    white = np.all(pixels == 255, axis=2)
    dark = np.all(pixels == OUTLINE_COLOR[:3], axis=2)
    assert white.sum() > 50 and dark.sum() > white.sum() // 2
    # every white pixel's four neighbours are white or outline: never the sky
    ys, xs = np.nonzero(white)
    for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        neighbours = pixels[ys + dy, xs + dx]
        assert not np.any(np.all(neighbours == SKY[:3], axis=1))


def test_a_changing_line_reuses_its_sprites_and_draws_in_one_list(gl_window: Any) -> None:
    lines = HudLines("right")
    lines.set(["IGT 0:00.000", ("strict", (110, 235, 110, 255))], 300, 200)
    sprites = list(lines.text.sprite_list)
    lines.set(["IGT 0:00.016", ("strict", (255, 110, 100, 255))], 300, 200)
    assert list(lines.text.sprite_list) == sprites  # same count: retextured, not rebuilt
    assert lines.text.texts == ["IGT 0:00.016", "strict"]
    lines.set(["IGT 0:00.016"], 300, 200)  # a line fewer: hidden
    assert lines.text.texts == ["IGT 0:00.016"]
    pixels = draw(gl_window, lines.text)
    assert np.any(np.all(pixels == 255, axis=2))  # drawn
