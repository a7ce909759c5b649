"""Key bindings: key names from the config turned into arcade key codes.

This is the arcade edge of :mod:`engine.input.snapshot` and the only input module that imports
arcade. It maps key codes to action names; the window forwards every key event to an
:class:`~engine.input.snapshot.InputSampler`, once per bound action::

    bindings = bindings_from_input_config(config.input)
    sampler = InputSampler(bindings.action_map)

    def on_key_press(self, key: int, modifiers: int) -> None:
        for action in bindings.actions_for(key):
            sampler.press(action)

    def on_key_release(self, key: int, modifiers: int) -> None:
        for action in bindings.actions_for(key):
            sampler.release(action)

Press and release must both be forwarded for every key, so that the sampler's
per-action count of keys that are down stays balanced (see
:class:`~engine.input.snapshot.InputSampler`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import arcade

from engine.config import InputConfig
from engine.input.snapshot import ActionMap

__all__ = ["KeyBindings", "bindings_from_input_config", "key_code_for", "key_name_for"]


def key_code_for(name: str) -> int:
    """The arcade key code for a key name such as ``"LEFT"``, ``"A"`` or ``"KEY_1"``.

    Raises:
        ValueError: ``arcade.key`` has no key constant of that name (modifier masks
            such as ``MOD_SHIFT`` are not keys and are rejected too).
    """
    code = getattr(arcade.key, name, None) if isinstance(name, str) else None
    if isinstance(code, bool) or not isinstance(code, int) or name.startswith(("_", "MOD_")):
        raise ValueError(f"unknown key name {name!r} (python -m engine.config --keys lists them)")
    return code


_PREFERRED_NAMES = frozenset({"ENTER"})
"""Names chosen over their aliases (``ENTER`` rather than ``RETURN``, as in the config)."""


def _names_by_code() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, code in vars(arcade.key).items():
        if not name.isupper() or name.startswith(("_", "MOD_")):
            continue
        if isinstance(code, bool) or not isinstance(code, int):
            continue
        current = names.get(code)
        better = (
            not name.startswith("MOTION_")
            and (current.startswith("MOTION_") or name in _PREFERRED_NAMES)
            if current is not None
            else True
        )
        if better:
            names[code] = name
    return names


_NAME_BY_CODE = _names_by_code()


def key_name_for(code: int) -> str | None:
    """The config name of an arcade key code (``"SPACE"``), or None for a code without one.

    The inverse of :func:`key_code_for` (rebinding a key by pressing it stores this name).
    """
    return _NAME_BY_CODE.get(code)


@dataclass(frozen=True, slots=True)
class KeyBindings:
    """Which actions each key code serves.

    Attributes:
        action_map: Every bound action, in binding order (actions without keys too).
        by_key: Key code -> the actions it serves, in map order. A key may serve
            several actions, e.g. ``UP`` for both ``up`` and ``jump``.
    """

    action_map: ActionMap
    by_key: Mapping[int, tuple[str, ...]]

    @classmethod
    def from_config(cls, mapping: Mapping[str, Sequence[str]]) -> KeyBindings:
        """Build bindings from action name -> key names, e.g. ``{"jump": ("SPACE", "Z")}``.

        Key names listed twice for one action, or two names for the same key code
        (arcade's ``ENTER`` and ``RETURN``), count once, so one key event never
        presses an action twice.

        Raises:
            ValueError: A key name is unknown (the message names action and key), or
                an action name is invalid (see :class:`~engine.input.snapshot.ActionMap`).
        """
        action_map = ActionMap(tuple(mapping))
        by_key: dict[int, list[str]] = {}
        for action, names in mapping.items():
            if isinstance(names, str):
                raise ValueError(f"action {action!r}: key names must be a list, got {names!r}")
            for name in names:
                try:
                    code = key_code_for(name)
                except ValueError as exc:
                    raise ValueError(f"action {action!r}: {exc}") from None
                actions = by_key.setdefault(code, [])
                if action not in actions:
                    actions.append(action)
        return cls(action_map, MappingProxyType({k: tuple(v) for k, v in by_key.items()}))

    def actions_for(self, key_code: int) -> tuple[str, ...]:
        """The actions ``key_code`` serves; empty for an unbound key."""
        return self.by_key.get(key_code, ())


def bindings_from_input_config(input_config: InputConfig, *extra_sections: Any) -> KeyBindings:
    """Build bindings from the ``[input]`` section and, optionally, game sections.

    Every field of ``input_config`` (an :class:`~engine.config.InputConfig`) is an
    action. From ``extra_sections`` (a game's own config dataclasses) only the fields
    declared with :func:`~engine.config.key_binding` are actions, so a section can mix
    tuning values and key bindings. Actions are ordered as the fields are.

    Raises:
        ValueError: An action name appears in two sections, or a key name is unknown.
    """
    mapping: dict[str, tuple[str, ...]] = {}
    sections = [(input_config, False), *((section, True) for section in extra_sections)]
    for section, only_key_bindings in sections:
        for f in dataclasses.fields(section):
            if only_key_bindings and not f.metadata.get("key_names"):
                continue
            if f.name in mapping:
                raise ValueError(f"action {f.name!r} is bound in two config sections")
            mapping[f.name] = tuple(getattr(section, f.name))
    return KeyBindings.from_config(mapping)
