"""Menus read one tick's input: up/down move with wrap-around, jump or confirm choose."""

from __future__ import annotations

import pytest

from engine.input.snapshot import ActionMap, InputSnapshot
from engine.runtime.menu import Menu, MenuItem

ACTIONS = ActionMap(("up", "down", "jump", "confirm", "pause"))


def pressed(*actions: str, action_map: ActionMap = ACTIONS) -> InputSnapshot:
    mask = action_map.mask(actions)
    return InputSnapshot(action_map, mask, mask)


def make_menu() -> Menu:
    return Menu.of(("play", "Play"), ("select", "Select level"), ("quit", "Quit"))


def test_down_and_up_move_the_selection_and_wrap_around() -> None:
    menu = make_menu()
    assert menu.handle(pressed("down")) is None
    assert menu.selected_key == "select"
    menu.handle(pressed("down"))
    menu.handle(pressed("down"))
    assert menu.selected_key == "play"  # wrapped past the bottom
    menu.handle(pressed("up"))
    assert menu.selected_key == "quit"  # and past the top


def test_jump_or_confirm_chooses_the_selected_item() -> None:
    menu = make_menu()
    assert menu.handle(pressed("jump")) == "play"
    menu.handle(pressed("down"))
    assert menu.handle(pressed("confirm")) == "select"


def test_held_keys_do_not_repeat_and_idle_input_chooses_nothing() -> None:
    menu = make_menu()
    held = InputSnapshot(ACTIONS, ACTIONS.mask(("down", "jump")), 0)
    for _ in range(10):
        assert menu.handle(held) is None
    assert menu.selected_key == "play"


def test_a_game_without_confirm_or_up_still_works() -> None:
    actions = ActionMap(("down", "jump"))
    menu = make_menu()
    menu.handle(pressed("down", action_map=actions))
    assert menu.handle(pressed("jump", action_map=actions)) == "select"


def test_a_menu_needs_items() -> None:
    with pytest.raises(ValueError, match="at least one item"):
        Menu([])


def test_a_setting_changes_with_left_and_right_and_reports_its_key() -> None:
    actions = ActionMap(("up", "down", "left", "right", "jump", "confirm"))
    menu = Menu([MenuItem("music", "Music", ("0%", "50%", "100%"), 1), MenuItem("back", "Back")])
    assert menu.items[0].text == "Music:  < 50% >"
    assert menu.handle(pressed("right", action_map=actions)) == "music"
    assert menu.item("music").value == "100%"
    assert menu.handle(pressed("right", action_map=actions)) == "music"  # wraps around
    assert menu.item("music").value == "0%"
    assert menu.handle(pressed("left", action_map=actions)) == "music"
    assert menu.item("music").value == "100%"
    assert menu.handle(pressed("confirm", action_map=actions)) == "music"  # steps forward
    assert menu.item("music").value == "0%"
    menu.handle(pressed("down", action_map=actions))
    assert menu.handle(pressed("right", action_map=actions)) is None  # a plain item ignores it
    assert menu.handle(pressed("jump", action_map=actions)) == "back"
    with pytest.raises(KeyError):
        menu.item("nope")
