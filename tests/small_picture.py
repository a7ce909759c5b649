"""A small internal picture for tests whose subject is determinism or timing, not pixels.

The game draws a 640 x 360 picture scaled x2 into its window; in software GL (llvmpipe, as
here and on CI) that drawing is most of a headless frame. Game state never depends on it (effects
are drawn from state and never change it), so a replay gives the same ticks and hashes at any
picture size: a 128 x 72 picture in a 128 x 72 window runs the level 3 replay at 240 Hz in 5.2 s
instead of 15.2 s. Tests whose subject is the picture keep the real size.

The picture is stretched over the whole window (``scale_mode = "stretch"``): the same as the
whole-number scale in the 128 x 72 window a command opens for it, and in the tests' shared
320 x 240 window (``tests/conftest.py``) it leaves no black bars, whose clear of the whole window
every frame cost a sixth of a frame (about 2.9 ms against 2.4 ms a frame of level 3 at 240 Hz).
"""

from __future__ import annotations

import dataclasses

from engine.config import Config

__all__ = [
    "SMALL_PICTURE_FLAGS",
    "SMALL_PICTURE_OVERRIDES",
    "SMALL_PICTURE_SETTINGS",
    "small_picture",
]

SMALL_PICTURE_SETTINGS = {
    "internal_width": 128,
    "internal_height": 72,
    "scale": 1,
    "scale_mode": "stretch",
}
"""``[video]`` values of the small picture (the smallest width the config allows is 64)."""

SMALL_PICTURE_OVERRIDES: tuple[str, ...] = tuple(
    f"video.{key}={value}" for key, value in SMALL_PICTURE_SETTINGS.items()
)
"""The same as ``load_config`` overrides: ``video.internal_width=128``, ..."""

SMALL_PICTURE_FLAGS: tuple[str, ...] = tuple(
    part for override in SMALL_PICTURE_OVERRIDES for part in ("--set", override)
)
"""The same as command-line flags: ``--set video.internal_width=128 ...``."""


def small_picture(config: Config) -> Config:
    """``config`` drawing the small picture."""
    return dataclasses.replace(
        config, video=dataclasses.replace(config.video, **SMALL_PICTURE_SETTINGS)
    )
