"""Where the game's picture goes in the window: whole-number scaling with letterboxing, or fill.

The game draws a fixed-size picture (the *internal resolution*, e.g. 640 x 360) and the window
shows it scaled. How, is a scale mode:

* ``integer`` (the default): the largest whole-number scale that fits (x2, x3...), centred, with
  black bars around. Every game pixel becomes an exact square of window pixels: pixel art stays
  crisp and evenly sized. A window smaller than the picture shows it at x1, cropped at the
  centre rather than squashed.
* ``fit``: the largest scale that fits, fractional if need be, keeping the shape (bars on two
  sides at most). Fills more of the window; pixels are uneven when the scale is not whole.
* ``stretch``: the whole window, shape ignored.

Pure math, no GL: :func:`fit_rect` is what :class:`engine.runtime.video.Video` uses every frame,
and what the tests check.
"""

from __future__ import annotations

import math
from typing import Literal

__all__ = ["SCALE_MODES", "ScaleMode", "fit_rect", "window_to_picture"]

ScaleMode = Literal["integer", "fit", "stretch"]
SCALE_MODES: tuple[ScaleMode, ...] = ("integer", "fit", "stretch")


def fit_rect(
    picture_px: tuple[int, int], window_px: tuple[int, int], mode: ScaleMode = "integer"
) -> tuple[int, int, int, int]:
    """The window rectangle the picture is drawn into: ``(left, bottom, width, height)``.

    Args:
        picture_px: The internal resolution ``(width, height)``.
        window_px: The window's framebuffer size ``(width, height)``.
        mode: ``integer``, ``fit`` or ``stretch`` (see the module docstring).

    Returns:
        Whole window pixels; the rectangle is centred (it may start below 0 when a window
        smaller than the picture crops it in ``integer`` mode).
    """
    pw, ph = picture_px
    ww, wh = max(1, window_px[0]), max(1, window_px[1])
    if mode == "stretch":
        return (0, 0, ww, wh)
    ratio = min(ww / pw, wh / ph)
    if mode == "integer":
        scale = max(1, math.floor(ratio + 1e-9))
        width, height = pw * scale, ph * scale
    else:
        width, height = max(1, round(pw * ratio)), max(1, round(ph * ratio))
    return ((ww - width) // 2, (wh - height) // 2, width, height)


def window_to_picture(
    point_px: tuple[float, float], rect: tuple[int, int, int, int], picture_px: tuple[int, int]
) -> tuple[float, float]:
    """A window point (y up) in picture pixels, for a picture drawn into ``rect``."""
    left, bottom, width, height = rect
    return (
        (point_px[0] - left) * picture_px[0] / width,
        (point_px[1] - bottom) * picture_px[1] / height,
    )
