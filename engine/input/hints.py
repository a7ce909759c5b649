"""Control hints built from the player's current bindings and device.

A hint that says ``SPACE JUMPS`` after the player bound Jump to X lies, and a gamepad player
reads keyboard names they cannot press. :func:`control_hint` writes the hint line from the
bindings in force (``[input]`` for the keyboard, ``[gamepad]`` for a pad) each time a screen is
shown, so a rebinding in the options shows at once, and from the device the player last
touched (``Engine.input_device``: ``"keyboard"`` or ``"gamepad"``)::

    control_hint(config.input, config.gamepad, "keyboard")
    # 'Arrows / WASD move, Space jumps, Esc pauses, R restarts'
    control_hint(config.input, config.gamepad, "gamepad")
    # 'D-pad moves, A jumps, Start pauses, Y restarts'

Each action shows its *first* binding (the one the controls screen rebinds); an action without
one is left out. Left and right read as one "move" when their first keys are the arrow keys,
WASD or the d-pad (with the other such sets they are also bound to), else as their two names
(``J/L move``).

This module is pure (no arcade import): key names are the config's names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["KEY_LABELS", "PAD_LABELS", "control_hint", "key_label", "pad_label"]

KEY_LABELS: dict[str, str] = {
    "SPACE": "Space",
    "ESCAPE": "Esc",
    "ENTER": "Enter",
    "RETURN": "Enter",
    "BACKSPACE": "Backspace",
    "LEFT": "Left",
    "RIGHT": "Right",
    "UP": "Up",
    "DOWN": "Down",
    "LSHIFT": "Shift",
    "RSHIFT": "Right Shift",
    "LCTRL": "Ctrl",
    "RCTRL": "Right Ctrl",
    "LALT": "Alt",
    "RALT": "Right Alt",
    "TAB": "Tab",
}
"""How a key's config name reads in a hint (others: ``KEY_1`` -> ``1``, ``X`` -> ``X``)."""

PAD_LABELS: dict[str, str] = {
    "dpleft": "D-pad left",
    "dpright": "D-pad right",
    "dpup": "D-pad up",
    "dpdown": "D-pad down",
    "leftstick_left": "Stick left",
    "leftstick_right": "Stick right",
    "start": "Start",
    "back": "Back",
    "guide": "Guide",
    "leftshoulder": "LB",
    "rightshoulder": "RB",
    "lefttrigger": "LT",
    "righttrigger": "RT",
    "leftstick": "L3",
    "rightstick": "R3",
}
"""How a gamepad control's config name reads (``a``, ``b``, ``x``, ``y`` read as capitals)."""

_MOVE_PAIRS = {("LEFT", "RIGHT"): "Arrows", ("A", "D"): "WASD", ("dpleft", "dpright"): "D-pad"}
_VERBS = (("jump", "jumps"), ("pause", "pauses"), ("restart", "restarts"))


def key_label(name: str) -> str:
    """A key's config name as a player reads it: ``ESCAPE`` -> ``Esc``, ``KEY_1`` -> ``1``."""
    if name in KEY_LABELS:
        return KEY_LABELS[name]
    if name.startswith("KEY_"):
        return name[4:]
    if name.startswith("NUM_"):
        return "Num " + name[4:]
    return name if len(name) == 1 else name.replace("_", " ").title()


def pad_label(name: str) -> str:
    """A gamepad control's config name as a player reads it: ``a`` -> ``A``."""
    return PAD_LABELS.get(name, name.upper() if len(name) == 1 else name.replace("_", " "))


def _first(section: Any, action: str) -> str | None:
    names: Sequence[str] = getattr(section, action, ()) or ()
    return names[0] if names else None


def control_hint(input_config: Any, gamepad_config: Any, device: str = "keyboard") -> str:
    """The one-line hint: how to move, jump, pause and restart with the current bindings.

    Args:
        input_config: The ``[input]`` section (action -> key names).
        gamepad_config: The ``[gamepad]`` section (action -> control names).
        device: ``"gamepad"`` for pad names, anything else for keys.
    """
    pad = device == "gamepad"
    section = gamepad_config if pad else input_config
    label = pad_label if pad else key_label
    parts: list[str] = []
    lefts: Sequence[str] = getattr(section, "left", ()) or ()
    rights: Sequence[str] = getattr(section, "right", ()) or ()
    if lefts and rights:
        pairs = [_MOVE_PAIRS.get(pair) for pair in zip(lefts, rights, strict=False)]
        named = [pair for pair in pairs if pair is not None]
        if pairs[0] is not None:  # the first binding is a known set: name the known sets
            parts.append(f"{' / '.join(dict.fromkeys(named))} {'moves' if pad else 'move'}")
        else:
            parts.append(f"{label(lefts[0])}/{label(rights[0])} move")
    for action, verb in _VERBS:
        name = _first(section, action)
        if name is not None:
            parts.append(f"{label(name)} {verb}")
    return ", ".join(parts)
