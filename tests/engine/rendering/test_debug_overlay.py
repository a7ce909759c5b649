"""Tests for engine.rendering.debug_overlay: drawing in the shared headless window (needs GL)."""

from __future__ import annotations

from typing import Any

import arcade
import numpy as np
import pytest

from engine.rendering.debug_overlay import LATE_COLOR, DebugOverlay
from engine.rendering.frame_stats import FrameStats
from engine.timing.game_loop import FrameReport
from engine.timing.pacer import TimingMode

pytestmark = pytest.mark.gl

CLEAR_COLOR = (40, 70, 110, 255)
FRAME_NS = 16_666_667
TOP_LEFT_PX = (0, 120, 160, 120)  # x, y (from the bottom), width, height: the window's top-left


def feed(stats: FrameStats, frames: int, interval_ns: int = FRAME_NS, updates: int = 1) -> None:
    """Record ``frames`` frames of ``interval_ns`` each after the latest recorded one."""
    now_ns = stats.last_present_ns or 0
    for _ in range(frames):
        previous_ns, now_ns = now_ns, now_ns + interval_ns
        stats.record(
            FrameReport(
                stats.frames_recorded,
                previous_ns,
                updates,
                0.5,
                0,
                TimingMode.LOCKED,
                now_ns,
                now_ns,
                None,
                True,
                60.0,
            )
        )


def render(
    window: Any,
    overlay: DebugOverlay,
    region: tuple[int, int, int, int],
    *,
    from_bottom: bool = False,
) -> np.ndarray:
    """Clear, draw the overlay in screen space and read back ``region`` as an RGB array."""
    window.clear(color=CLEAR_COLOR)
    window.default_camera.use()
    overlay.draw(window.width, window.height, from_bottom=from_bottom)
    x_px, y_px, width_px, height_px = region
    image = arcade.get_image(x_px, y_px, width_px, height_px)
    return np.asarray(image.convert("RGB"), dtype=np.int16)


def test_toggle_flips_visibility() -> None:
    overlay = DebugOverlay(FrameStats(60))
    assert overlay.visible is False
    assert overlay.toggle() is True
    assert overlay.visible is True
    assert overlay.toggle() is False
    overlay.visible = True
    assert overlay.visible is True
    assert DebugOverlay(FrameStats(60), visible=True).visible is True


def test_drawing_changes_the_top_left_only_when_visible(gl_window: Any) -> None:
    stats = FrameStats(240)
    feed(stats, 240)
    overlay = DebugOverlay(stats)
    hidden = render(gl_window, overlay, TOP_LEFT_PX)
    assert np.all(hidden == CLEAR_COLOR[:3])
    assert overlay.texts == ()  # nothing was created while hidden

    overlay.toggle()
    shown = render(gl_window, overlay, TOP_LEFT_PX)
    changed = np.any(shown != CLEAR_COLOR[:3], axis=2)
    assert changed.mean() > 0.5  # the translucent panel darkens most of the corner
    bright = shown.sum(axis=2) > 600  # light text on the dark panel
    assert bright.sum() > 50

    bottom_right = render(gl_window, overlay, (200, 0, 120, 40))
    assert np.all(bottom_right == CLEAR_COLOR[:3])

    overlay.toggle()
    assert np.all(render(gl_window, overlay, TOP_LEFT_PX) == CLEAR_COLOR[:3])


def test_the_engine_stands_the_panel_on_the_bottom_edge_clear_of_the_hud(gl_window: Any) -> None:
    """The engine draws it from the bottom: the top rows, where a game's HUD sits, stay clear."""
    stats = FrameStats(240)
    feed(stats, 240)
    overlay = DebugOverlay(stats, visible=True)
    whole = render(gl_window, overlay, (0, 0, gl_window.width, gl_window.height), from_bottom=True)
    drawn_rows = np.flatnonzero(np.any(np.any(whole != CLEAR_COLOR[:3], axis=2), axis=1))
    assert drawn_rows.size
    top_rows_clear = drawn_rows.min()  # image rows count from the top
    assert top_rows_clear >= 40  # a HUD of two 9 pt lines at x2 would fit above it
    assert drawn_rows.max() >= gl_window.height - 1 - overlay.margin_px  # down to the margin


def test_a_hitch_is_drawn_in_the_late_colour(gl_window: Any) -> None:
    stats = FrameStats(240)
    overlay = DebugOverlay(stats, visible=True)
    feed(stats, 200)
    whole = (0, 0, gl_window.width, gl_window.height)
    late = np.array(LATE_COLOR[:3])
    assert not np.any(np.all(render(gl_window, overlay, whole) == late, axis=2))
    feed(stats, 1, interval_ns=4 * FRAME_NS, updates=4)
    feed(stats, 20)
    assert np.any(np.all(render(gl_window, overlay, whole) == late, axis=2))


def test_draws_before_any_frame_and_with_a_partial_window(gl_window: Any) -> None:
    stats = FrameStats(240)
    overlay = DebugOverlay(stats, visible=True)
    render(gl_window, overlay, TOP_LEFT_PX)
    assert overlay.texts[0].text.startswith("FPS --")
    feed(stats, 1)
    render(gl_window, overlay, TOP_LEFT_PX)
    feed(stats, 5)
    render(gl_window, overlay, TOP_LEFT_PX)
    assert overlay.texts[0].text.startswith("FPS 60.0")


def test_text_objects_are_created_once_and_assigned_only_on_change(gl_window: Any) -> None:
    stats = FrameStats(240)
    feed(stats, 240)
    overlay = DebugOverlay(stats, visible=True, text_refresh_ms=0)
    render(gl_window, overlay, TOP_LEFT_PX)
    texts = overlay.texts
    assert len(texts) == len(stats.lines())
    assert [text.text for text in texts] == stats.lines()
    assigned = overlay.text_updates

    for _ in range(5):  # same stats, and new frames that leave every line unchanged
        render(gl_window, overlay, TOP_LEFT_PX)
        feed(stats, 1)
    render(gl_window, overlay, TOP_LEFT_PX)
    assert overlay.text_updates == assigned
    assert all(new is old for new, old in zip(overlay.texts, texts, strict=True))

    feed(stats, 1, interval_ns=3 * FRAME_NS, updates=3)  # changes the FPS and updates lines
    for _ in range(len(texts)):
        render(gl_window, overlay, TOP_LEFT_PX)
    assert overlay.text_updates > assigned
    assert [text.text for text in overlay.texts] == stats.lines()
    assert all(new is old for new, old in zip(overlay.texts, texts, strict=True))


def test_at_most_one_label_is_laid_out_per_draw(gl_window: Any) -> None:
    stats = FrameStats(240)
    feed(stats, 240)
    overlay = DebugOverlay(stats, visible=True, text_refresh_ms=0)
    render(gl_window, overlay, TOP_LEFT_PX)
    feed(stats, 1, interval_ns=3 * FRAME_NS, updates=3)
    before = overlay.text_updates
    render(gl_window, overlay, TOP_LEFT_PX)
    assert overlay.text_updates == before + 1


def test_text_refreshes_at_most_every_text_refresh_ms(gl_window: Any) -> None:
    stats = FrameStats(240)
    feed(stats, 240)
    overlay = DebugOverlay(stats, visible=True, text_refresh_ms=250.0)
    render(gl_window, overlay, TOP_LEFT_PX)
    shown = [text.text for text in overlay.texts]
    feed(stats, 1, interval_ns=3 * FRAME_NS, updates=3)  # 50 ms later: not due yet
    render(gl_window, overlay, TOP_LEFT_PX)
    assert [text.text for text in overlay.texts] == shown
    feed(stats, 12)  # 250 ms after the last refresh
    for _ in range(len(shown)):
        render(gl_window, overlay, TOP_LEFT_PX)
    assert [text.text for text in overlay.texts] == stats.lines()


def test_f3_cycles_hidden_compact_full_and_the_compact_view_is_short(gl_window: Any) -> None:
    stats = FrameStats(60)
    feed(stats, 30)
    overlay = DebugOverlay(stats, text_refresh_ms=0)
    assert overlay.cycle() == "compact"
    render(gl_window, overlay, TOP_LEFT_PX)
    shown = [text.text for text in overlay.texts if text.text]
    assert shown == stats.compact_lines() and len(shown) == 3
    assert (
        shown[0].startswith("FPS")
        and shown[1].startswith("vsync")
        and shown[2].startswith("dropped")
    )
    assert overlay.cycle() == "full"
    for _ in stats.lines():  # one label laid out per draw
        render(gl_window, overlay, TOP_LEFT_PX)
    assert [text.text for text in overlay.texts] == stats.lines()
    assert overlay.cycle() == "hidden" and not overlay.visible


def test_the_panel_stands_in_the_corner_it_is_given_and_stays_small(gl_window: Any) -> None:
    stats = FrameStats(60)
    feed(stats, 30)
    overlay = DebugOverlay(stats, visible=True, text_refresh_ms=0)
    whole = (0, 0, gl_window.width, gl_window.height)
    for right in (False, True):
        render(gl_window, overlay, whole)  # fill the labels first
        gl_window.clear(color=CLEAR_COLOR)
        gl_window.default_camera.use()
        overlay.draw(gl_window.width, gl_window.height, from_bottom=True, right=right)
        image = np.asarray(arcade.get_image(*whole).convert("RGB"), dtype=np.int16)
        drawn = np.any(image != CLEAR_COLOR[:3], axis=2)
        columns = np.nonzero(drawn.any(axis=0))[0]
        if right:
            assert columns.max() >= gl_window.width - 1 - overlay.margin_px - 1
        else:
            assert columns.min() <= overlay.margin_px + 1
