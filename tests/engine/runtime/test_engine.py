"""The engine on the shared headless window: window key events become per-tick input; F3 toggles."""

from __future__ import annotations

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
