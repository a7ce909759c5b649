"""Where the picture goes in the window: whole-number scales with bars, fit, stretch."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.rendering.screen_fit import fit_rect, window_to_picture

PICTURE = (640, 360)


@pytest.mark.parametrize(
    ("window", "rect"),
    [
        ((1280, 720), (0, 0, 1280, 720)),  # exactly x2
        ((1920, 1080), (0, 0, 1920, 1080)),  # exactly x3
        ((1366, 768), (43, 24, 1280, 720)),  # x2 with bars all round
        ((2560, 1600), (0, 80, 2560, 1440)),  # 16:10: x4, bars above and below
        ((800, 600), (80, 120, 640, 360)),  # x1
        ((500, 300), (-70, -30, 640, 360)),  # smaller than the picture: x1, cropped, centred
    ],
)
def test_integer_mode_picks_the_largest_whole_scale_and_centres(
    window: tuple[int, int], rect: tuple[int, int, int, int]
) -> None:
    assert fit_rect(PICTURE, window, "integer") == rect


def test_fit_keeps_the_shape_and_fills_one_direction() -> None:
    assert fit_rect(PICTURE, (1366, 768), "fit") == (0, 0, 1365, 768)
    assert fit_rect(PICTURE, (2560, 1600), "fit") == (0, 80, 2560, 1440)
    assert fit_rect(PICTURE, (1000, 1000), "fit") == (0, 219, 1000, 562)


def test_stretch_fills_the_window() -> None:
    assert fit_rect(PICTURE, (1366, 768), "stretch") == (0, 0, 1366, 768)


def test_a_zero_sized_window_does_not_divide_by_zero() -> None:
    assert fit_rect(PICTURE, (0, 0), "fit") == (0, 0, 1, 1)
    assert fit_rect(PICTURE, (0, 0), "integer")[2:] == PICTURE


@given(
    st.integers(64, 4000),
    st.integers(64, 3000),
    st.sampled_from(["integer", "fit"]),
)
def test_the_picture_never_leaves_a_window_it_fits_in(width: int, height: int, mode: str) -> None:
    left, bottom, w, h = fit_rect(PICTURE, (width, height), mode)  # type: ignore[arg-type]
    if width >= PICTURE[0] and height >= PICTURE[1]:
        assert left >= 0 and bottom >= 0
        assert left + w <= width and bottom + h <= height
        assert abs((left + w / 2) - width / 2) <= 1 and abs((bottom + h / 2) - height / 2) <= 1
    if mode == "integer":
        assert w % PICTURE[0] == 0 and w // PICTURE[0] == h // PICTURE[1]


def test_window_points_map_back_to_picture_pixels() -> None:
    rect = fit_rect(PICTURE, (1366, 768), "integer")
    assert window_to_picture((43, 24), rect, PICTURE) == (0, 0)
    assert window_to_picture((43 + 1280, 24 + 720), rect, PICTURE) == PICTURE
    assert window_to_picture((683, 384), rect, PICTURE) == (320, 180)
