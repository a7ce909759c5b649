"""Hints name the keys and buttons bound now, on the device the player last used."""

from __future__ import annotations

import dataclasses
import re

import arcade
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import GamepadConfig, InputConfig
from engine.config.sections import GAMEPAD_CONTROLS
from engine.input.gamepad import GamepadInput
from engine.input.hints import control_hint, key_label, pad_label
from engine.input.snapshot import ActionMap, InputSampler

KEY_NAMES = sorted(
    name
    for name, code in vars(arcade.key).items()
    if name.isupper() and not name.startswith(("_", "MOD_", "MOTION_")) and isinstance(code, int)
)


def test_the_default_hints_read_as_before() -> None:
    assert control_hint(InputConfig(), GamepadConfig()) == (
        "Arrows / WASD move, Space jumps, Esc pauses, R restarts"
    )
    assert control_hint(InputConfig(), GamepadConfig(), "gamepad") == (
        "D-pad moves, A jumps, Start pauses, Y restarts"
    )


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(KEY_NAMES), st.sampled_from(["jump", "pause", "restart"]))
def test_a_rebound_key_shows_and_the_old_one_does_not(key: str, action: str) -> None:
    old = InputConfig()
    config = dataclasses.replace(old, **{action: (key, *getattr(old, action)[1:])})
    hint = control_hint(config, GamepadConfig())
    verb = {"jump": "jumps", "pause": "pauses", "restart": "restarts"}[action]
    assert f"{key_label(key)} {verb}" in hint
    old_label = key_label(getattr(old, action)[0])
    if old_label != key_label(key):  # never the stale key (a whole label: "Num PRIOR" is not "R")
        assert not re.search(rf"(^|, ){re.escape(old_label)} {verb}", hint), hint


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(GAMEPAD_CONTROLS), st.sampled_from(GAMEPAD_CONTROLS))
def test_pad_hints_follow_the_pad_bindings(jump: str, pause: str) -> None:
    pad = dataclasses.replace(GamepadConfig(), jump=(jump,), pause=(pause,))
    hint = control_hint(InputConfig(), pad, "gamepad")
    assert f"{pad_label(jump)} jumps" in hint and f"{pad_label(pause)} pauses" in hint
    assert "Space" not in hint and "Esc" not in hint  # no keyboard names for a pad player


def test_unusual_movement_keys_are_named_and_unbound_actions_left_out() -> None:
    config = dataclasses.replace(InputConfig(), left=("J",), right=("L",), restart=())
    hint = control_hint(config, GamepadConfig())
    assert hint.startswith("J/L move") and "restarts" not in hint


def test_pushing_a_pad_control_reports_the_device() -> None:
    used: list[bool] = []
    pad = GamepadInput(GamepadConfig(), InputSampler(ActionMap(("jump",))))
    pad.on_use = lambda: used.append(True)
    pad.on_button_press(object(), "a")
    assert used == [True]
