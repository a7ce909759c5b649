"""Tests for engine.input.snapshot (pure) and engine.input.keys (arcade key codes)."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.config import InputConfig, key_binding, key_names, setting
from engine.input.snapshot import (
    ActionMap,
    InputPlayer,
    InputRecorder,
    InputSampler,
    InputSnapshot,
    PlaybackEndedError,
)

# arcade (imported inside the key-binding tests below) must see this before it is imported;
# tests/conftest.py sets it too.
os.environ.setdefault("ARCADE_HEADLESS", "1")

ACTIONS = ActionMap(("left", "right", "jump", "pause"))


def snapshot(
    held: tuple[str, ...] = (), pressed: tuple[str, ...] = (), released: tuple[str, ...] = ()
) -> InputSnapshot:
    """Build a snapshot of ACTIONS from action names."""
    return InputSnapshot(ACTIONS, ACTIONS.mask(held), ACTIONS.mask(pressed), ACTIONS.mask(released))


# ---------------------------------------------------------------------------------------------
# ActionMap
# ---------------------------------------------------------------------------------------------


def test_action_map_bits_and_names() -> None:
    assert ACTIONS.bit("left") == 1
    assert ACTIONS.bit("jump") == 4
    assert ACTIONS.mask(["jump", "left"]) == 5
    assert ACTIONS.names(0b1010) == ("right", "pause")
    assert ACTIONS.names(0) == ()
    assert ACTIONS.full_mask == 0b1111
    assert len(ACTIONS) == 4
    assert "jump" in ACTIONS
    assert "dash" not in ACTIONS


def test_action_map_rejects_unknown_action_and_bad_masks() -> None:
    with pytest.raises(ValueError, match=r"unknown action 'dash'.*left, right, jump, pause"):
        ACTIONS.bit("dash")
    with pytest.raises(ValueError, match="outside"):
        ACTIONS.names(0b10000)
    with pytest.raises(ValueError, match="outside"):
        ACTIONS.names(-1)
    with pytest.raises(ValueError, match="outside"):
        InputSnapshot(ACTIONS, held=1 << 4)


def test_action_map_rejects_duplicates_and_empty_names() -> None:
    with pytest.raises(ValueError, match="duplicate action names: jump"):
        ActionMap(("jump", "left", "jump"))
    with pytest.raises(ValueError, match="non-empty"):
        ActionMap(("jump", ""))


def test_action_maps_compare_by_actions() -> None:
    assert ActionMap(("a", "b")) == ActionMap(("a", "b"))
    assert ActionMap(("a", "b")) != ActionMap(("b", "a"))
    assert hash(ActionMap(("a", "b"))) == hash(ActionMap(("a", "b")))


# ---------------------------------------------------------------------------------------------
# InputSampler
# ---------------------------------------------------------------------------------------------


def test_tap_between_two_ticks_is_pressed_for_exactly_one_tick() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("jump")
    sampler.release("jump")
    tick = sampler.sample()
    assert tick.was_pressed("jump")
    assert tick.was_released("jump")
    assert not tick.is_held("jump")
    assert sampler.sample() == InputSnapshot.empty(ACTIONS)


def test_tap_survives_frames_that_run_no_ticks() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("jump")  # frame 1: no tick ran
    sampler.release("jump")  # frame 2: no tick ran either
    assert sampler.sample() == snapshot(pressed=("jump",), released=("jump",))


def test_hold_across_ticks_then_release() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("right")
    assert sampler.sample() == snapshot(held=("right",), pressed=("right",))
    assert sampler.sample() == snapshot(held=("right",))
    assert sampler.sample() == snapshot(held=("right",))
    sampler.release("right")
    assert sampler.sample() == snapshot(released=("right",))
    assert sampler.sample() == snapshot()


def test_release_and_press_again_between_ticks() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("jump")
    sampler.sample()
    sampler.release("jump")
    sampler.press("jump")
    assert sampler.sample() == snapshot(held=("jump",), pressed=("jump",), released=("jump",))
    assert sampler.sample() == snapshot(held=("jump",))


def test_several_keys_for_one_action() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("left")  # A
    sampler.press("left")  # LEFT
    assert sampler.sample() == snapshot(held=("left",), pressed=("left",))
    sampler.release("left")  # A up, LEFT still down
    assert sampler.sample() == snapshot(held=("left",))
    sampler.press("left")  # A down again: no new press edge
    assert sampler.sample() == snapshot(held=("left",))
    sampler.release("left")
    sampler.release("left")
    assert sampler.sample() == snapshot(released=("left",))


def test_release_without_press_is_ignored() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.release("jump")  # key was down before the window had focus
    assert sampler.sample() == snapshot()
    sampler.press("jump")
    assert sampler.sample() == snapshot(held=("jump",), pressed=("jump",))


def test_release_all_releases_held_actions_and_keeps_latched_presses() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("left")
    sampler.press("left")
    sampler.press("jump")
    sampler.sample()
    sampler.press("pause")
    sampler.release_all()  # focus lost
    assert sampler.sample() == snapshot(pressed=("pause",), released=("left", "jump", "pause"))
    # The keys' release events never arrive; later releases are ignored.
    sampler.release("left")
    assert sampler.sample() == snapshot()
    sampler.press("left")
    assert sampler.sample() == snapshot(held=("left",), pressed=("left",))


def test_reset_forgets_everything_without_edges() -> None:
    sampler = InputSampler(ACTIONS)
    sampler.press("left")
    sampler.press("jump")
    sampler.release("jump")
    sampler.reset()
    assert sampler.sample() == snapshot()


def test_sampler_rejects_unknown_action() -> None:
    sampler = InputSampler(ACTIONS)
    with pytest.raises(ValueError, match="unknown action 'dash'"):
        sampler.press("dash")


KEYS = ("A", "LEFT", "D", "SPACE")
KEY_TO_ACTION = {"A": "left", "LEFT": "left", "D": "right", "SPACE": "jump"}
events = st.lists(
    st.one_of(
        st.just(("sample", "")), st.tuples(st.sampled_from(["down", "up"]), st.sampled_from(KEYS))
    ),
    max_size=60,
)


@given(events)
def test_sampler_matches_a_per_key_model(script: list[tuple[str, str]]) -> None:
    """Compare with a model that tracks keys: held = any key down; edges latch until sampled."""
    sampler = InputSampler(ACTIONS)
    down: set[str] = set()
    pressed: set[str] = set()
    released: set[str] = set()

    def action_held(action: str) -> bool:
        return any(KEY_TO_ACTION[key] == action for key in down)

    for kind, key in script:
        if kind == "sample":
            held = tuple(a for a in ACTIONS if action_held(a))
            assert sampler.sample() == snapshot(held, tuple(pressed), tuple(released))
            pressed.clear()
            released.clear()
            continue
        action = KEY_TO_ACTION[key]
        was_held = action_held(action)
        if kind == "down" and key not in down:  # the OS sends no repeat press events
            down.add(key)
            sampler.press(action)
            if not was_held:
                pressed.add(action)
        elif kind == "up" and key in down:
            down.discard(key)
            sampler.release(action)
            if not action_held(action):
                released.add(action)


# ---------------------------------------------------------------------------------------------
# InputSnapshot: queries and encoding
# ---------------------------------------------------------------------------------------------


def test_snapshot_queries_and_describe() -> None:
    tick = snapshot(held=("left", "jump"), pressed=("jump",))
    assert tick.is_held("left")
    assert tick.is_held("jump")
    assert not tick.is_held("right")
    assert tick.was_pressed("jump")
    assert not tick.was_pressed("left")
    assert not tick.was_released("jump")
    assert tick.describe() == "held=left,jump pressed=jump released=-"


def test_snapshot_is_frozen() -> None:
    tick = snapshot()
    with pytest.raises(AttributeError):
        tick.held = 1  # type: ignore[misc]


def test_encoding_layout_is_one_hex_digit_per_action() -> None:
    # left held (1), jump went down (held + pressed = 3), pause tapped (pressed + released = 6).
    tick = snapshot(held=("left", "jump"), pressed=("jump", "pause"), released=("pause",))
    assert tick.encode() == 0x6301
    assert InputSnapshot.decode(0x6301, ACTIONS) == tick
    assert snapshot().encode() == 0


def test_old_encodings_stay_valid_when_actions_are_appended() -> None:
    value = snapshot(held=("jump",), pressed=("jump",)).encode()
    longer = ActionMap((*ACTIONS.actions, "dash"))
    decoded = InputSnapshot.decode(value, longer)
    assert decoded.is_held("jump")
    assert decoded.was_pressed("jump")
    assert not decoded.is_held("dash")


def test_decode_rejects_invalid_values() -> None:
    with pytest.raises(ValueError, match="more than the 4 actions"):
        InputSnapshot.decode(1 << 16, ACTIONS)
    with pytest.raises(ValueError, match="reserved bit of action 'right'"):
        InputSnapshot.decode(0x80, ACTIONS)
    with pytest.raises(ValueError, match="non-negative int"):
        InputSnapshot.decode(-1, ACTIONS)
    with pytest.raises(ValueError, match="non-negative int"):
        InputSnapshot.decode("12", ACTIONS)  # type: ignore[arg-type]


@st.composite
def snapshots(draw: st.DrawFn) -> InputSnapshot:
    actions = draw(st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=40))
    action_map = ActionMap(tuple(actions))
    mask = st.integers(0, action_map.full_mask)
    return InputSnapshot(action_map, draw(mask), draw(mask), draw(mask))


@given(snapshots())
def test_encode_decode_round_trip(tick: InputSnapshot) -> None:
    value = tick.encode()
    assert value >= 0
    assert InputSnapshot.decode(value, tick.action_map) == tick


@given(st.lists(st.integers(0, 7), min_size=len(ACTIONS), max_size=len(ACTIONS)))
def test_decode_encode_round_trip(groups: list[int]) -> None:
    """Any value whose per-action groups use only bits 1, 2 and 4 is a valid encoding."""
    value = sum(group << (4 * i) for i, group in enumerate(groups))
    assert InputSnapshot.decode(value, ACTIONS).encode() == value


# ---------------------------------------------------------------------------------------------
# Recording and playback
# ---------------------------------------------------------------------------------------------


def test_recorder_and_player_round_trip() -> None:
    sampler = InputSampler(ACTIONS)
    recorder = InputRecorder(ACTIONS)
    script = [
        ("press", "right"),
        (),
        ("press", "jump"),
        ("release", "jump"),
        (),
        ("release", "right"),
        (),
    ]
    live = []
    for step in script:
        if step:
            getattr(sampler, step[0])(step[1])
        else:
            tick = sampler.sample()
            live.append(tick)
            recorder.record(tick)
    assert len(recorder) == 3
    assert all(isinstance(value, int) for value in recorder.values)

    player = InputPlayer(ACTIONS, recorder.values)
    assert len(player) == 3
    assert player.sample() == live[0]
    assert player.position == 1
    assert player.remaining == 2
    assert list(player) == live[1:]
    assert player.finished


def test_player_past_the_end_raises_a_clear_error() -> None:
    player = InputPlayer(ACTIONS, [0x1])
    player.sample()
    with pytest.raises(PlaybackEndedError, match="1 ticks and all were played"):
        player.sample()
    with pytest.raises(PlaybackEndedError):
        InputPlayer(ACTIONS, []).sample()


def test_player_rejects_corrupt_recording_naming_the_tick() -> None:
    with pytest.raises(ValueError, match=r"tick 2: .*reserved bit"):
        InputPlayer(ACTIONS, [0, 1, 0x8])


def test_recorder_rejects_snapshot_from_another_map() -> None:
    recorder = InputRecorder(ACTIONS)
    with pytest.raises(ValueError, match="different action map"):
        recorder.record(InputSnapshot.empty(ActionMap(("jump",))))
    recorder.record(snapshot(held=("jump",)))
    recorder.clear()
    assert recorder.values == ()


def test_input_module_is_pure() -> None:
    source = Path(__file__).resolve().parents[3] / "engine" / "input" / "snapshot.py"
    imported = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & {"arcade", "pyglet", "pymunk", "numpy"}


# ---------------------------------------------------------------------------------------------
# Key bindings (imports arcade; headless)
# ---------------------------------------------------------------------------------------------


def test_default_input_config_maps_to_arcade_key_codes() -> None:
    import arcade

    from engine.input.keys import bindings_from_input_config

    bindings = bindings_from_input_config(InputConfig())
    assert bindings.action_map.actions == (
        "left", "right", "up", "down", "jump", "pause", "restart", "reset_run", "confirm",
        "save_state", "load_state", "freeze", "step_tick", "slow_motion", "debug_overlay",
    )  # fmt: skip
    assert bindings.actions_for(arcade.key.F5) == ("save_state",)
    assert bindings.actions_for(arcade.key.F9) == ("load_state",)
    assert bindings.actions_for(arcade.key.LEFT) == ("left",)
    assert bindings.actions_for(arcade.key.A) == ("left",)
    assert bindings.actions_for(arcade.key.SPACE) == ("jump",)
    assert bindings.actions_for(arcade.key.F3) == ("debug_overlay",)
    assert bindings.actions_for(arcade.key.BACKSPACE) == ("reset_run",)
    assert bindings.actions_for(arcade.key.ENTER) == ("confirm",)
    assert bindings.actions_for(arcade.key.Q) == ()


def test_every_config_key_name_is_an_arcade_key() -> None:
    from engine.input.keys import key_code_for

    codes = {name: key_code_for(name) for name in key_names()}
    assert all(isinstance(code, int) for code in codes.values())


def test_bad_key_name_names_action_and_key() -> None:
    from engine.input.keys import KeyBindings

    with pytest.raises(ValueError, match=r"action 'jump': unknown key name 'SPAEC'"):
        KeyBindings.from_config({"left": ["A"], "jump": ["SPAEC"]})
    with pytest.raises(ValueError, match="unknown key name 'MOD_SHIFT'"):
        KeyBindings.from_config({"jump": ["MOD_SHIFT"]})
    with pytest.raises(ValueError, match="must be a list"):
        KeyBindings.from_config({"jump": "SPACE"})


def test_key_bound_to_two_actions() -> None:
    import arcade

    from engine.input.keys import KeyBindings

    bindings = KeyBindings.from_config({"up": ("UP", "W"), "jump": ("SPACE", "UP"), "menu": ()})
    assert bindings.actions_for(arcade.key.UP) == ("up", "jump")
    assert bindings.action_map.actions == ("up", "jump", "menu")

    # Forwarding one key event per bound action keeps the sampler balanced.
    sampler = InputSampler(bindings.action_map)
    for action in bindings.actions_for(arcade.key.UP):
        sampler.press(action)
    for action in bindings.actions_for(arcade.key.SPACE):
        sampler.press(action)
    for action in bindings.actions_for(arcade.key.UP):
        sampler.release(action)
    tick = sampler.sample()
    assert tick.was_released("up")
    assert tick.is_held("jump")  # SPACE still down


def test_duplicate_key_codes_count_once() -> None:
    import arcade

    from engine.input.keys import KeyBindings

    # arcade.key.ENTER and RETURN are the same code.
    bindings = KeyBindings.from_config({"confirm": ("ENTER", "RETURN", "ENTER")})
    assert bindings.actions_for(arcade.key.ENTER) == ("confirm",)


@dataclass(frozen=True, slots=True)
class GameKeys:
    """A game's own section mixing tuning and bindings."""

    dash: tuple[str, ...] = key_binding(("X",), "Dash.")
    dash_speed: float = setting(600.0, "Dash speed.", min=0)


def test_game_sections_add_actions() -> None:
    import arcade

    from engine.input.keys import bindings_from_input_config

    bindings = bindings_from_input_config(InputConfig(jump=("C",)), GameKeys())
    assert bindings.action_map.actions[-1] == "dash"
    assert "dash_speed" not in bindings.action_map
    assert bindings.actions_for(arcade.key.X) == ("dash",)
    assert bindings.actions_for(arcade.key.C) == ("jump",)
    assert bindings.actions_for(arcade.key.SPACE) == ()


@dataclass(frozen=True, slots=True)
class ClashingKeys:
    """A game section that reuses a built-in action name."""

    jump: tuple[str, ...] = key_binding(("X",), "Jump again.")


def test_action_bound_in_two_sections_is_an_error() -> None:
    from engine.input.keys import bindings_from_input_config

    with pytest.raises(ValueError, match="'jump' is bound in two config sections"):
        bindings_from_input_config(InputConfig(), ClashingKeys())
