"""Gamepad controls press and release actions in the same sampler as the keyboard.

No gamepad is connected to this machine, so the tests call the event handlers pyglet would
call, with the arguments it passes (a controller object, a button name, a ``Vec2``).
"""

from __future__ import annotations

from pathlib import Path

from pyglet.math import Vec2

from engine.config import GamepadConfig, load_config
from engine.input.gamepad import GamepadInput
from engine.input.snapshot import ActionMap, InputSampler

ACTIONS = ActionMap(("left", "right", "up", "down", "jump", "pause", "restart", "confirm"))


def make(config: GamepadConfig | None = None) -> tuple[GamepadInput, InputSampler]:
    sampler = InputSampler(ACTIONS)
    return GamepadInput(config or GamepadConfig(), sampler), sampler


def test_buttons_press_and_release_their_actions() -> None:
    pad, sampler = make()
    controller = object()
    pad.on_button_press(controller, "a")
    snapshot = sampler.sample()
    assert snapshot.was_pressed("jump") and snapshot.is_held("jump")
    pad.on_button_release(controller, "a")
    snapshot = sampler.sample()
    assert snapshot.was_released("jump") and not snapshot.is_held("jump")


def test_the_dpad_holds_directions_including_diagonals() -> None:
    pad, sampler = make()
    controller = object()
    pad.on_dpad_motion(controller, Vec2(-1, 1))
    snapshot = sampler.sample()
    assert snapshot.is_held("left") and snapshot.is_held("up")
    pad.on_dpad_motion(controller, Vec2(-1, 0))
    snapshot = sampler.sample()
    assert snapshot.is_held("left") and snapshot.was_released("up")


def test_the_stick_counts_only_past_the_deadzone() -> None:
    pad, sampler = make(GamepadConfig(deadzone=0.5))
    controller = object()
    pad.on_stick_motion(controller, "leftstick", Vec2(0.4, 0.0))
    assert not sampler.sample().is_held("right")
    pad.on_stick_motion(controller, "leftstick", Vec2(0.6, -0.7))
    snapshot = sampler.sample()
    assert snapshot.is_held("right") and snapshot.is_held("down")
    pad.on_stick_motion(controller, "rightstick", Vec2(-1.0, 0.0))  # not bound
    assert not sampler.sample().is_held("left")


def test_keyboard_and_gamepad_share_an_action_without_cancelling_each_other() -> None:
    pad, sampler = make()
    controller = object()
    sampler.press("left")  # the LEFT key
    pad.on_dpad_motion(controller, Vec2(-1, 0))
    pad.on_dpad_motion(controller, Vec2(0, 0))
    assert sampler.sample().is_held("left")  # the key still holds it


def test_a_disconnected_pad_releases_what_it_held() -> None:
    pad, sampler = make()
    controller = object()
    pad.on_button_press(controller, "start")
    assert sampler.sample().is_held("pause")
    pad.disconnect(controller)
    assert sampler.sample().was_released("pause")


def test_bindings_come_from_the_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[gamepad]\njump = ["b", "righttrigger"]\nrestart = []\n')
    config = load_config(path)
    pad, sampler = make(config.gamepad)
    controller = object()
    pad.on_button_press(controller, "a")
    pad.on_button_press(controller, "y")
    assert sampler.sample().pressed == 0
    pad.on_trigger_motion(controller, "righttrigger", 0.9)
    assert sampler.sample().was_pressed("jump")


def test_without_devices_attach_reports_false_and_nothing_breaks() -> None:
    pad, _ = make(GamepadConfig(enabled=False))
    assert pad.attach() is False
    pad.close()
