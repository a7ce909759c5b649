"""The engine on the shared headless window: window key events become per-tick input; F3 toggles."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from engine.config import load_config

pytestmark = pytest.mark.gl


def test_keys_become_per_tick_input_and_f3_toggles_the_overlay(gl_window: Any) -> None:
    import arcade

    from engine.runtime.engine import Engine
    from engine.runtime.scene import Scene

    seen: list[tuple[int, bool, bool]] = []

    class Recorder(Scene):
        def on_tick(self, tick: int, snapshot: Any) -> None:
            seen.append((tick, snapshot.is_held("left"), snapshot.was_pressed("jump")))

    engine = Engine(gl_window, load_config(None), headless=True, probe_frames=0)
    try:
        engine.show(Recorder())
        engine.run(5)
        gl_window.dispatch_event("on_key_press", arcade.key.A, 0)  # A is bound to left
        engine.run(8)
        # a tap that starts and ends between two ticks still reaches exactly one tick
        gl_window.dispatch_event("on_key_press", arcade.key.SPACE, 0)
        gl_window.dispatch_event("on_key_release", arcade.key.SPACE, 0)
        engine.run(11)
        gl_window.dispatch_event("on_key_release", arcade.key.A, 0)
        engine.run(14)
        held = [tick for tick, left, _ in seen if left]
        jumps = [tick for tick, _, jump in seen if jump]
        assert held == list(range(held[0], held[0] + 6))  # held from the press to the release
        assert len(jumps) == 1
        assert engine.overlay.visible is False
        # pyglet queues events until the loop polls them at the start of the next frame
        gl_window.dispatch_event("on_key_press", arcade.key.F3, 0)
        engine.run(15)
        assert engine.overlay.visible is True
        frames_before = engine.stats.frames_recorded
        engine.run(20)  # frames keep running with the overlay drawn
        assert engine.stats.frames_recorded == frames_before + 5
    finally:
        engine.close()


def test_the_limiter_paces_at_the_displays_rate_capped_by_fps_limit() -> None:
    from fractions import Fraction

    from engine.runtime.engine import limiter_rate_hz
    from engine.timing import TickRate

    ticks = TickRate.from_hz(60)
    assert limiter_rate_hz(144.0, ticks, 0.0) == 144  # a 144 Hz panel gets 144 frames a second
    assert limiter_rate_hz(59.94, ticks, 0.0) == Fraction(2997, 50)
    assert limiter_rate_hz(None, ticks, 0.0) == 60  # the OS reports nothing: the tick rate
    assert limiter_rate_hz(144.0, ticks, 100.0) == 100  # fps_limit still caps it
    assert limiter_rate_hz(None, ticks, 30.0) == 30


def test_a_headless_window_reports_no_refresh_rate(gl_window: Any) -> None:
    from engine.runtime.engine import reported_refresh_hz

    assert reported_refresh_hz(gl_window) is None


def test_headless_with_vsync_off_paces_at_the_virtual_displays_rate(gl_window: Any) -> None:
    from engine.runtime.engine import Engine
    from engine.timing.clock import NS_PER_S

    config = load_config(None, ["video.vsync=false"])
    engine = Engine(gl_window, config, headless=True, display_hz=144.0)
    try:
        assert engine.reported_hz == 144.0
        assert engine.loop.detector.nominal_hz == 144.0
        reports = [engine.run_frame() for _ in range(200)]
        game = [r for r in reports if not r.probe][20:]
        seconds = (game[-1].present_ns - game[0].present_ns) / NS_PER_S
        assert abs((len(game) - 1) / seconds - 144.0) < 1.0  # not the 60 Hz tick rate
    finally:
        engine.close()


@pytest.mark.parametrize("display_hz", [60.0, 144.0])
def test_vsync_switched_in_the_options_is_judged_again_within_a_second(
    gl_window: Any, display_hz: float
) -> None:
    """Turning vsync off leaves the limiter pacing at the refresh, where paced presents look like
    vsync; its checks still undo the old "on" verdict (which the speedrun timer shows)."""
    from engine.config.settings import config_with
    from engine.runtime.engine import Engine

    engine = Engine(gl_window, load_config(None), headless=True, display_hz=display_hz)
    second = round(display_hz)
    try:
        reports = [engine.run_frame() for _ in range(2 * second)]
        assert reports[-1].vsync is True
        for vsync in (False, True, False):
            engine.apply_config(config_with(engine.config, "video.vsync", vsync))
            verdicts = [engine.run_frame().vsync for _ in range(2 * second)]
            changed = verdicts.index(vsync)
            assert changed <= second, (vsync, changed)  # within a second of frames
            assert set(verdicts[changed:]) == {vsync}  # and it stays
        later = [engine.run_frame() for _ in range(2 * second)]
        assert {r.plan for r in later[-second:]} == {"paced"}  # the checks stopped: an even grid
    finally:
        engine.close()


def test_a_new_reported_refresh_rate_retargets_the_detector_and_the_limiter(
    gl_window: Any,
) -> None:
    """After a mode switch the OS may report another rate (a fullscreen window on a 144 Hz
    screen): the detector confirms it and, with vsync off, the limiter paces at it."""
    from engine.runtime.engine import Engine
    from engine.timing.clock import NS_PER_S

    config = load_config(None, ["video.vsync=false"])
    engine = Engine(gl_window, config, headless=True, display_hz=60.0)
    try:
        for _ in range(60):
            engine.run_frame()
        assert engine.display is not None
        engine.display.refresh_hz = Fraction(144)  # the screen's new mode
        engine.display_rate_changed(144.0)
        engine.resync()
        assert engine.loop.detector.nominal_hz == 144.0
        assert engine.loop.limiter is not None and engine.loop.limiter.target_hz == 144
        game = [engine.run_frame() for _ in range(300)][60:]
        seconds = (game[-1].present_ns - game[0].present_ns) / NS_PER_S
        assert abs((len(game) - 1) / seconds - 144.0) < 1.0
        engine.display_rate_changed(None)  # a mode the OS reports nothing for: the tick rate
        assert engine.loop.limiter.target_hz == 60 and engine.loop.detector.nominal_hz is None
    finally:
        engine.close()
