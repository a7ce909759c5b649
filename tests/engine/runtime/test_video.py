"""The picture: drawn at the internal resolution, shown scaled with crisp pixels and black bars.

Small on purpose: a 64 x 36 picture in the shared 320 x 240 test window (x5, bars above and
below), so every pixel can be checked without rendering a full-size frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.config import VideoConfig

pytestmark = pytest.mark.gl

SETTINGS = VideoConfig(internal_width=64, internal_height=36)


def window_pixels(window: Any) -> np.ndarray:
    import arcade

    window.ctx.screen.use()
    image = arcade.get_image(0, 0, *window.get_framebuffer_size()).convert("RGB")
    return np.asarray(image)[::-1]  # rows from the bottom, as GL counts them


def draw_test_picture(video: Any) -> None:
    """Blue picture, one red pixel at (0, 0) and a green 2 x 1 block at (10, 20)."""
    import arcade

    video.begin((0, 0, 255, 255))
    video.camera().use()
    arcade.draw_lrbt_rectangle_filled(0, 1, 0, 1, (255, 0, 0))
    arcade.draw_lrbt_rectangle_filled(10, 12, 20, 21, (0, 255, 0))


def test_the_picture_is_drawn_at_the_internal_resolution(gl_window: Any) -> None:
    from engine.runtime.video import Video

    video = Video(gl_window, SETTINGS)
    draw_test_picture(video)
    picture = np.asarray(video.picture_image().convert("RGB"))[::-1]
    assert picture.shape == (36, 64, 3)
    assert tuple(picture[0, 0]) == (255, 0, 0)
    assert tuple(picture[20, 10]) == tuple(picture[20, 11]) == (0, 255, 0)
    assert tuple(picture[20, 12]) == (0, 0, 255)
    assert np.count_nonzero(np.all(picture == (0, 0, 255), axis=2)) == 64 * 36 - 3


def test_integer_scaling_makes_each_pixel_a_crisp_block_with_black_bars(gl_window: Any) -> None:
    from engine.runtime.video import Video

    video = Video(gl_window, SETTINGS)
    assert video.present_rect() == (0, 30, 320, 180)  # x5: 320 x 180, bars of 30 px
    draw_test_picture(video)
    video.present()
    screen = window_pixels(gl_window)
    assert screen.shape == (240, 320, 3)
    assert not screen[:30].any() and not screen[210:].any()  # the bars
    assert np.all(screen[30:35, 0:5] == (255, 0, 0))  # picture pixel (0, 0): a 5 x 5 block
    assert np.all(screen[30 + 100 : 30 + 105, 50:60] == (0, 255, 0))  # (10..11, 20): 10 x 5
    colours = {tuple(c) for c in screen[30:210].reshape(-1, 3)}
    assert colours == {(255, 0, 0), (0, 255, 0), (0, 0, 255)}  # nearest filtering: no blends


def test_stretch_fills_the_window(gl_window: Any) -> None:
    from engine.runtime.video import Video

    video = Video(gl_window, SETTINGS)
    video.apply(VideoConfig(internal_width=64, internal_height=36, scale_mode="stretch"))
    draw_test_picture(video)
    video.present()
    screen = window_pixels(gl_window)
    assert screen[:30].any() and tuple(screen[0, 0]) == (255, 0, 0)  # no bars
    assert tuple(screen[239, 319]) == (0, 0, 255)


def test_a_screenshot_saves_what_the_window_shows(gl_window: Any, tmp_path: Any) -> None:
    from PIL import Image

    from engine.runtime.video import Video

    video = Video(gl_window, SETTINGS)
    draw_test_picture(video)
    video.present()
    path = tmp_path / "shot.png"
    video.screenshot(path)
    saved = np.asarray(Image.open(path).convert("RGB"))[::-1]
    assert np.array_equal(saved, window_pixels(gl_window))
