"""The options screen: every item changes the running engine at once and is saved for the player.

The tests drive a real :class:`~engine.runtime.engine.Engine` on the shared hidden window: menu
actions go through the engine's input sampler, and rebinding keys arrive as real window key
events (``dispatch_event``), the path a player's key press takes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.config import load_config
from engine.config.settings import UserSettings
from engine.runtime.audio import Music, SoundBank
from engine.runtime.options import ControlsScene, OptionsScene, rebound

pytestmark = pytest.mark.gl


def test_rebinding_makes_the_key_the_main_one_and_keeps_the_second() -> None:
    bindings = {"left": ("LEFT", "A"), "jump": ("SPACE", "Z"), "pause": ("ESCAPE", "P")}
    assert rebound(bindings, "left", "J") == ("J", "A")
    assert rebound(bindings, "left", "A") == ("A",)
    assert rebound(bindings, "left", "LEFT") == ("LEFT", "A")
    assert rebound({"restart": ("R",)}, "restart", "T") == ("T",)
    assert rebound(bindings, "left", "SPACE") == "SPACE is already jump's"
    assert rebound(bindings, "jump", "ESCAPE") == "ESCAPE is already pause's"


@pytest.fixture
def engine(gl_window: Any, tmp_path: Path) -> Iterator[Any]:
    from engine.runtime.engine import Engine

    config = load_config(None)
    engine = Engine(gl_window, config, headless=True, probe_frames=0)
    engine.settings = UserSettings(tmp_path / "settings.toml")
    engine.settings.defaults = config
    yield engine
    engine.close()


def tap(engine: Any, action: str, times: int = 1) -> None:
    """Press and release ``action``; run frames until a tick has seen it."""
    for _ in range(times):
        engine.sampler.press(action)
        engine.sampler.release(action)
        ticks = engine.pacer.ticks
        while engine.pacer.ticks == ticks:
            engine.run_frame()


def select(engine: Any, key: str) -> None:
    scene = engine.scene
    while scene.menu.selected_key != key:
        tap(engine, "down")


def key(engine: Any, name: str) -> None:
    """A real key press and release (the window queues them; the next frame dispatches them)."""
    import arcade

    code = getattr(arcade.key, name)
    engine.window.dispatch_event("on_key_press", code, 0)
    engine.window.dispatch_event("on_key_release", code, 0)
    engine.run_frame()


def saved(engine: Any) -> str:
    path: Path = engine.settings.path
    return path.read_text(encoding="utf-8")


def open_options(engine: Any) -> list[str]:
    backs: list[str] = []
    engine.show(OptionsScene(engine, on_back=lambda: backs.append("back")))
    engine.run_frame()
    return backs


def test_volumes_apply_at_once_to_sounds_and_music_and_are_saved(engine: Any) -> None:
    sounds = SoundBank(["jump"], {}, 1.0)
    music = Music(engine.config.audio, headless=True)
    engine.config_listeners.append(lambda config: sounds.apply(config.audio))
    engine.config_listeners.append(lambda config: music.apply(config.audio))
    open_options(engine)
    select(engine, "music")
    tap(engine, "left", 2)  # 70% -> 50%
    assert engine.config.audio.music_volume == 0.5
    assert music.volume == pytest.approx(0.8 * 0.5)
    select(engine, "effects")
    tap(engine, "left")  # 100% -> 90%
    assert engine.config.audio.effects_volume == 0.9
    assert sounds.volume == pytest.approx(0.8 * 0.9)
    text = saved(engine)
    assert "music_volume = 0.5" in text
    assert "effects_volume = 0.9" in text
    assert engine.scene.menu.item("music").text == "Music:  < 50% >"


def test_video_items_change_the_video_and_vsync(engine: Any) -> None:
    open_options(engine)
    select(engine, "scale_mode")
    tap(engine, "right")
    assert engine.config.video.scale_mode == "fit"
    assert engine.video.scale_mode == "fit"
    select(engine, "vsync")
    tap(engine, "jump")  # choosing a setting steps it too
    assert engine.config.video.vsync is False
    assert engine.display.vsync is False
    from engine.timing import LimitWhen

    assert engine.loop.limit_when is LimitWhen.ALWAYS
    select(engine, "scale")
    tap(engine, "right")
    assert engine.config.video.scale == 3
    assert 'scale_mode = "fit"' in saved(engine)


def test_timer_display_sets_both_timer_keys(engine: Any) -> None:
    open_options(engine)
    select(engine, "timer")
    assert engine.scene.menu.item("timer").value == "game + real"
    tap(engine, "right")
    assert (engine.config.speedrun.show_timer, engine.config.speedrun.show_rta) == (False, False)
    tap(engine, "right")
    assert (engine.config.speedrun.show_timer, engine.config.speedrun.show_rta) == (True, False)


def test_reset_goes_back_to_the_config_and_forgets_the_saved_options(engine: Any) -> None:
    open_options(engine)
    select(engine, "music")
    tap(engine, "left")
    select(engine, "vsync")
    tap(engine, "left")
    assert engine.settings.values
    select(engine, "reset")
    tap(engine, "jump")
    assert engine.config.audio.music_volume == 0.7
    assert engine.config.video.vsync is True
    assert engine.settings.values == {}
    assert "music_volume" not in saved(engine)
    assert engine.scene.menu.item("music").value == "70%"


def test_back_and_pause_leave(engine: Any) -> None:
    backs = open_options(engine)
    tap(engine, "pause")
    assert backs == ["back"]
    select(engine, "back")
    tap(engine, "jump")
    assert backs == ["back", "back"]


def open_controls(engine: Any) -> ControlsScene:
    open_options(engine)
    select(engine, "controls")
    tap(engine, "jump")
    scene = engine.scene
    assert isinstance(scene, ControlsScene)
    return scene


def test_a_key_pressed_for_an_action_rebinds_it_and_works_at_once(engine: Any) -> None:
    import arcade

    scene = open_controls(engine)
    select(engine, "bind:jump")
    tap(engine, "jump")  # SPACE chose the item: now waiting
    assert scene.waiting == "jump"
    assert scene.panel.lines == ("Press a key for Jump  (Esc cancels)",)
    key(engine, "X")
    assert scene.waiting is None
    assert engine.config.input.jump == ("X", "Z")
    assert 'jump = ["X", "Z"]' in saved(engine)
    assert scene.menu.item("bind:jump").label == "Jump:  X  Z"
    assert engine.bindings.actions_for(arcade.key.X) == ("jump",)
    assert engine.bindings.actions_for(arcade.key.SPACE) == ()
    key(engine, "X")  # X now jumps, so it chooses: waiting again
    assert scene.waiting == "jump"


def test_a_key_another_action_uses_is_refused_and_esc_cancels(engine: Any) -> None:
    scene = open_controls(engine)
    select(engine, "bind:left")
    tap(engine, "jump")
    key(engine, "SPACE")
    assert scene.waiting == "left"
    assert scene.panel.lines == ("SPACE is already jump's: press another",)
    key(engine, "F11")
    assert scene.panel.lines == ("F11 cannot be bound: press another",)
    key(engine, "ESCAPE")  # cancels, and does not also go back
    assert scene.waiting is None
    assert engine.scene is scene
    assert engine.config.input.left == ("LEFT", "A")
    assert not engine.settings.path.exists()  # nothing changed, nothing saved
    tap(engine, "down")  # the menu moves again
    assert scene.menu.selected_key == "bind:right"


def test_gamepad_controls_rebind_too(engine: Any) -> None:
    scene = open_controls(engine)
    tap(engine, "right")  # device: gamepad
    assert scene.device == "gamepad"
    assert scene.menu.item("bind:jump").label == "Jump:  a"
    select(engine, "bind:jump")
    tap(engine, "jump")
    pad = object()  # stands in for a pyglet controller: the events carry only its identity
    engine.gamepads.set_control(pad, "y", True)
    assert scene.panel.lines == ("y is already restart's: press another",)
    engine.gamepads.set_control(pad, "y", False)
    engine.gamepads.set_control(pad, "x", True)
    assert engine.config.gamepad.jump == ("x",)
    engine.gamepads.set_control(pad, "x", False)
    assert engine.gamepads.by_control["x"] == ("jump",)
    engine.gamepads.set_control(pad, "x", True)  # now it jumps
    assert engine.sampler.sample().was_pressed("jump")
    engine.gamepads.set_control(pad, "x", False)
    assert 'jump = ["x"]' in saved(engine)


def test_reset_controls_restores_both_devices(engine: Any) -> None:
    scene = open_controls(engine)
    select(engine, "bind:restart")
    tap(engine, "jump")
    key(engine, "T")
    assert engine.config.input.restart == ("T",)
    select(engine, "reset")
    tap(engine, "jump")
    assert engine.config.input.restart == ("R",)
    assert scene.panel.lines == ("Controls reset",)
    assert engine.settings.values == {}


def test_leaving_the_controls_screen_while_waiting_stops_capturing(engine: Any) -> None:
    scene = open_controls(engine)
    select(engine, "bind:up")
    tap(engine, "jump")
    assert scene.waiting == "up"
    engine.show(OptionsScene(engine, on_back=lambda: None))
    assert scene.waiting is None
    engine.sampler.sample()
    key(engine, "DOWN")  # an ordinary key press again
    assert engine.scene.menu.selected_key == "effects"
