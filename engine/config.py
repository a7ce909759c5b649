"""Engine configuration: one TOML file, loaded into frozen, validated dataclasses.

Where the file lives:
    By default the engine reads ``config.toml`` from the current working directory
    (:data:`DEFAULT_CONFIG_PATH`). If that file does not exist, every key keeps its
    default, so a fresh checkout runs without any file. ``--config PATH`` picks another
    file; a file passed explicitly must exist. Print a complete, commented file with
    every key and its default with::

        python -m engine.config > config.toml

    and delete the keys you do not change. ``python -m engine.config --keys`` lists
    the key names allowed in ``[input]``, and ``python -m engine.config --config
    my.toml --set timing.mode=strict`` validates a file and prints the effective
    configuration.

The file:
    One table per section (``[timing]``, ``[video]``, ``[render]``, ``[camera]``,
    ``[physics]``, ``[input]``, ``[speedrun]`` with its subsection
    ``[speedrun.livesplit]``, ``[audio]``, ``[debug]``). Every key has a default;
    unknown sections and keys are errors (with a "did you mean" hint), because a
    typo that is silently ignored is the worst kind of bug. Integers are accepted
    where a float is expected; ``true`` is never accepted as a number.

Overrides:
    ``--set section.key=value`` (repeatable, applied in order after the file) sets
    one key, e.g. ``--set timing.tick_rate_hz=120`` or, in a subsection,
    ``--set speedrun.livesplit.port=16900``. The value is parsed as a TOML value, so
    ``true``, ``60``, ``0.5``, ``"text"`` and ``["A", "B"]`` work; a bare word that is
    not valid TOML is taken as a string, so ``--set timing.mode=strict`` works too.
    A single key name is accepted where a list of key names is expected
    (``--set input.jump=X``).

Errors:
    Every problem raises :class:`ConfigError`, whose text is exactly one line naming
    the file (or ``--set``), the key, the offending value and what is allowed::

        config error: game.toml: timing.tick_rate_hz = -5: must be a number in 0 < x <= 1000

    :func:`config_from_args` prints that line to stderr and exits with status 2.

Adding a section for your game:
    Write a frozen dataclass whose fields all have defaults and declare their
    constraints with :func:`setting` (or :func:`key_binding` for key lists), then
    pass it to the loader under the TOML table name you want::

        @dataclass(frozen=True, slots=True)
        class PlayerTuning:
            \"\"\"Player movement tuning.\"\"\"

            run_speed_px_s: float = setting(320.0, "Top running speed.", min=0, max=5000)
            coyote_time_s: float = setting(0.1, "Jump grace after leaving a ledge.", min=0, max=1)
            dash: tuple[str, ...] = key_binding(("X",), "Keys that dash.")

        config = load_config(path, extra_sections={"player": PlayerTuning})
        tuning = config.section("player", PlayerTuning)  # typed as PlayerTuning

    The section is read from ``[player]``, overridable with ``--set player.dash=C``,
    included in :func:`defaults_toml` (pass the same ``extra_sections``) and
    available as ``config.extra["player"]``. Supported field types are ``bool``,
    ``int``, ``float``, ``str``, ``tuple[T, ...]`` of those, and nested frozen
    dataclasses (a subsection). Field metadata keys: ``doc`` (required, one line),
    ``min``/``max`` (inclusive), ``min_exclusive``, ``also_allowed`` (values allowed
    outside the range, like ``0`` for "off"), ``choices``, ``non_empty`` and
    ``key_names``. Cross-field rules go in ``__post_init__``: a ``ValueError`` raised
    there becomes a :class:`ConfigError`.

This module is pure: it imports neither arcade, pyglet, pymunk nor numpy. Key names
are spelled like the constants in ``arcade.key``, so ``getattr(arcade.key, name)``
turns one into a key code.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import functools
import math
import re
import sys
import tomllib
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

__all__ = [
    "DEBUG_OVERLAY_ACTION",
    "DEFAULT_CONFIG_PATH",
    "GAMEPAD_CONTROLS",
    "AudioConfig",
    "CameraConfig",
    "Config",
    "ConfigError",
    "DebugConfig",
    "GamepadConfig",
    "InputConfig",
    "LiveSplitConfig",
    "PhysicsConfig",
    "RenderConfig",
    "SpeedrunConfig",
    "TimingConfig",
    "VideoConfig",
    "add_config_arguments",
    "config_from_args",
    "defaults_toml",
    "game_action_names",
    "gamepad_binding",
    "key_binding",
    "key_names",
    "load_config",
    "main",
    "setting",
    "to_toml",
]

T = TypeVar("T")
SectionT = TypeVar("SectionT")

DEFAULT_CONFIG_PATH = Path("config.toml")
"""Read when no ``--config`` is given; relative to the current working directory."""

OVERRIDE_SOURCE = "--set"
"""How errors name the source of a value that came from a command-line override."""

# ---------------------------------------------------------------------------------------------
# Key names
# ---------------------------------------------------------------------------------------------

_KEY_NAME_ORDER: tuple[str, ...] = (
    # Letters: A .. Z.
    *(chr(code) for code in range(ord("A"), ord("Z") + 1)),
    # Digits of the main row: KEY_0 .. KEY_9 (arcade.key has no constant named "0").
    *(f"KEY_{digit}" for digit in range(10)),
    # Function keys: F1 .. F24.
    *(f"F{number}" for number in range(1, 25)),
    "LEFT", "RIGHT", "UP", "DOWN",
    "SPACE", "ENTER", "RETURN", "ESCAPE", "TAB", "BACKSPACE",
    "LSHIFT", "RSHIFT", "LCTRL", "RCTRL", "LALT", "RALT",
    "LMETA", "RMETA", "LWINDOWS", "RWINDOWS", "LCOMMAND", "RCOMMAND",
    "HOME", "END", "PAGEUP", "PAGEDOWN", "INSERT", "DELETE",
    "CAPSLOCK", "NUMLOCK", "SCROLLLOCK", "PAUSE", "MENU",
    "MINUS", "EQUAL", "COMMA", "PERIOD", "SLASH", "BACKSLASH", "SEMICOLON", "APOSTROPHE",
    "GRAVE", "BRACKETLEFT", "BRACKETRIGHT",
    # Numeric keypad.
    *(f"NUM_{digit}" for digit in range(10)),
    "NUM_ENTER", "NUM_ADD", "NUM_SUBTRACT", "NUM_MULTIPLY", "NUM_DIVIDE", "NUM_DECIMAL",
    "NUM_EQUAL", "NUM_LEFT", "NUM_RIGHT", "NUM_UP", "NUM_DOWN", "NUM_HOME", "NUM_END",
    "NUM_PAGE_UP", "NUM_PAGE_DOWN", "NUM_INSERT", "NUM_DELETE",
)  # fmt: skip

_KEY_NAMES: frozenset[str] = frozenset(_KEY_NAME_ORDER)


def key_names() -> frozenset[str]:
    """Return every key name allowed in key bindings.

    Names are spelled exactly like the constants of ``arcade.key`` (checked against
    arcade 3.3), so ``getattr(arcade.key, name)`` gives the key code. Convention:
    letters are ``A``..``Z``, digits of the main row are ``KEY_0``..``KEY_9``, keypad
    keys are ``NUM_0``..``NUM_9``, ``NUM_ENTER`` and so on, function keys ``F1``..``F24``.
    """
    return _KEY_NAMES


# ---------------------------------------------------------------------------------------------
# Field helpers: how a section declares a key
# ---------------------------------------------------------------------------------------------

_METADATA_KEYS = frozenset(
    {"doc", "min", "max", "min_exclusive", "also_allowed", "choices", "non_empty", "key_names"}
)


def setting(
    default: T,
    doc: str,
    *,
    min: float | None = None,
    max: float | None = None,
    min_exclusive: bool = False,
    also_allowed: tuple[float, ...] = (),
    choices: tuple[str, ...] = (),
    non_empty: bool = False,
) -> T:
    """Declare one config key: its default, a one-line doc and its constraints.

    This is ``dataclasses.field(default=default, metadata={...})``; writing the
    ``field`` call by hand with the same metadata keys works just as well.

    Args:
        default: Value used when the file does not set the key. (For a subsection,
            write ``field(default_factory=Sub, metadata={"doc": "..."})``.)
        doc: One line shown in :func:`defaults_toml` above the key.
        min: Smallest allowed number (inclusive unless ``min_exclusive``).
        max: Largest allowed number (inclusive).
        min_exclusive: Make ``min`` exclusive (``0 < x`` instead of ``0 <= x``).
        also_allowed: Numbers allowed outside ``min``..``max``, e.g. ``(0,)`` for "off".
        choices: The only strings allowed.
        non_empty: Reject the empty (or all-blank) string.

    Returns:
        A dataclass field (typed as ``T`` so the class body type-checks).
    """
    metadata: dict[str, Any] = {"doc": doc}
    if min is not None:
        metadata["min"] = min
    if max is not None:
        metadata["max"] = max
    if min_exclusive:
        metadata["min_exclusive"] = True
    if also_allowed:
        metadata["also_allowed"] = also_allowed
    if choices:
        metadata["choices"] = choices
    if non_empty:
        metadata["non_empty"] = True
    return field(default=default, metadata=metadata)


def key_binding(default: tuple[str, ...], doc: str) -> tuple[str, ...]:
    """Declare a key-binding key: a list of key names from :func:`key_names`.

    Args:
        default: Key names bound by default, e.g. ``("SPACE", "Z")``.
        doc: One line shown in :func:`defaults_toml` above the key.

    Returns:
        A dataclass field for a ``tuple[str, ...]`` attribute.
    """
    return field(default=default, metadata={"doc": doc, "key_names": True})


# ---------------------------------------------------------------------------------------------
# The schema
# ---------------------------------------------------------------------------------------------

TIMING_MODES: tuple[str, ...] = ("auto", "strict", "locked", "interpolated")
RENDER_MODES: tuple[str, ...] = ("interpolate", "extrapolate")


@dataclass(frozen=True, slots=True)
class TimingConfig:
    """Fixed-step simulation timing and frame pacing."""

    mode: str = setting(
        "auto",
        'Frame pacing policy: "strict" keeps game time within one tick of real time (speedruns); '
        '"locked" runs a fixed number of ticks per vblank when the refresh matches the tick rate '
        '(smoothest; may run the game up to lock_tolerance slow or fast); "interpolated" is the '
        'classic fixed step with render interpolation; "auto" picks locked, interpolated or strict '
        "from the detected vsync and refresh rate.",
        choices=TIMING_MODES,
    )
    tick_rate_hz: float = setting(
        60.0,
        "Simulation ticks per second; each tick advances the game by exactly 1/tick_rate_hz s.",
        min=0,
        min_exclusive=True,
        max=1000,
    )
    max_frame_delta_s: float = setting(
        0.25,
        "Longest frame time fed to the simulation; longer stalls are dropped, not replayed.",
        min=0.001,
        max=10,
    )
    max_updates_per_frame: int = setting(
        5,
        "Most ticks run for one drawn frame; the rest of a backlog is dropped.",
        min=1,
        max=100,
    )
    lock_tolerance: float = setting(
        0.01,
        "How far (relative, 0.01 = 1%) the refresh rate may be from the tick rate, "
        "or a multiple/divisor of it, for the locked cadence.",
        min=0,
        max=0.05,
    )


@dataclass(frozen=True, slots=True)
class VideoConfig:
    """Window and presentation."""

    vsync: bool = setting(True, "Wait for the display's vertical blank before showing a frame.")
    fps_limit: float = setting(
        0.0,
        "Frame rate cap in frames per second; 0 matches the tick rate when vsync is off "
        "or not honoured.",
        min=1,
        max=1000,
        also_allowed=(0,),
    )
    width: int = setting(1280, "Window width in screen pixels.", min=320, max=7680)
    height: int = setting(720, "Window height in screen pixels.", min=240, max=4320)
    fullscreen: bool = setting(False, "Start fullscreen.")
    title: str = setting("Platformer", "Window title.")


@dataclass(frozen=True, slots=True)
class RenderConfig:
    """How frames between simulation ticks are drawn."""

    mode: str = setting(
        "interpolate",
        '"interpolate" blends the last two ticks (smooth, one tick behind); '
        '"extrapolate" predicts from the latest tick.',
        choices=RENDER_MODES,
    )
    pixel_snap: bool = setting(True, "Draw the view at whole screen pixels (crisp pixel art).")


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """Follow camera."""

    follow_time_s: float = setting(
        0.3, "Time to cover 99% of the distance to the target.", min=0.001, max=10
    )
    dead_zone_width_px: float = setting(
        64.0, "Width of the box the target moves in without moving the camera.", min=0, max=4000
    )
    dead_zone_height_px: float = setting(
        48.0, "Height of the box the target moves in without moving the camera.", min=0, max=4000
    )
    look_ahead_px: float = setting(
        48.0, "How far the view leads the target in its direction of motion.", min=0, max=2000
    )
    clamp_to_level: bool = setting(True, "Keep the view inside the level bounds.")


@dataclass(frozen=True, slots=True)
class PhysicsConfig:
    """pymunk world settings."""

    gravity_px_s2: float = setting(
        -1800.0,
        "Vertical gravity in pixels per second squared; negative is down.",
        min=-100000,
        max=100000,
    )
    substeps: int = setting(1, "Physics steps per simulation tick.", min=1, max=16)
    iterations: int = setting(
        10,
        "Constraint solver iterations per physics step (pymunk Space.iterations).",
        min=1,
        max=100,
    )


@dataclass(frozen=True, slots=True)
class InputConfig:
    """Key bindings: each action lists key names (python -m engine.config --keys)."""

    left: tuple[str, ...] = key_binding(("LEFT", "A"), "Move left.")
    right: tuple[str, ...] = key_binding(("RIGHT", "D"), "Move right.")
    up: tuple[str, ...] = key_binding(("UP", "W"), "Look or climb up; menu up.")
    down: tuple[str, ...] = key_binding(("DOWN", "S"), "Crouch or drop down; menu down.")
    jump: tuple[str, ...] = key_binding(("SPACE", "Z"), "Jump (hold for a higher jump).")
    pause: tuple[str, ...] = key_binding(("ESCAPE", "P"), "Pause and resume.")
    restart: tuple[str, ...] = key_binding(("R",), "Restart the current level.")
    reset_run: tuple[str, ...] = key_binding(("BACKSPACE",), "Reset the whole run and timer.")
    confirm: tuple[str, ...] = key_binding(("ENTER",), "Choose a menu item (jump chooses too).")
    debug_overlay: tuple[str, ...] = key_binding(("F3",), "Toggle the debug overlay.")


GAMEPAD_CONTROLS: tuple[str, ...] = (
    "a", "b", "x", "y", "back", "start", "guide", "leftshoulder", "rightshoulder",
    "leftstick", "rightstick", "dpleft", "dpright", "dpup", "dpdown",
    "leftstick_left", "leftstick_right", "leftstick_up", "leftstick_down",
    "lefttrigger", "righttrigger",
)  # fmt: skip
"""Gamepad control names: pyglet's buttons, the d-pad directions, the left stick pushed in
one direction past ``[gamepad] deadzone``, and the analogue triggers pulled past it."""


def gamepad_binding(default: tuple[str, ...], doc: str) -> tuple[str, ...]:
    """Declare a gamepad-binding key: a list of names from :data:`GAMEPAD_CONTROLS`."""
    return field(default=default, metadata={"doc": doc, "choices": GAMEPAD_CONTROLS})


@dataclass(frozen=True, slots=True)
class GamepadConfig:
    """Gamepad bindings (any controller pyglet knows, named like an Xbox pad).

    Each action lists gamepad controls; the actions are those of ``[input]``.
    """

    enabled: bool = setting(True, "Read connected gamepads (hot-plugging works too).")
    deadzone: float = setting(
        0.5, "How far a stick or trigger must move to count as pressed (0..1).", min=0.05, max=0.95
    )
    left: tuple[str, ...] = gamepad_binding(("dpleft", "leftstick_left"), "Move left.")
    right: tuple[str, ...] = gamepad_binding(("dpright", "leftstick_right"), "Move right.")
    up: tuple[str, ...] = gamepad_binding(("dpup", "leftstick_up"), "Look or climb up; menu up.")
    down: tuple[str, ...] = gamepad_binding(
        ("dpdown", "leftstick_down"), "Crouch or drop down; menu down."
    )
    jump: tuple[str, ...] = gamepad_binding(("a",), "Jump (hold for a higher jump).")
    pause: tuple[str, ...] = gamepad_binding(("start",), "Pause and resume.")
    restart: tuple[str, ...] = gamepad_binding(("y",), "Restart the current level.")
    reset_run: tuple[str, ...] = gamepad_binding(("back",), "Reset the whole run and timer.")
    confirm: tuple[str, ...] = gamepad_binding((), "Choose a menu item (jump chooses too).")


DEBUG_OVERLAY_ACTION = "debug_overlay"
"""The ``[input]`` action the engine handles itself (the F3 overlay); games never see it."""


def game_action_names(input_config: InputConfig) -> tuple[str, ...]:
    """The actions a game's input snapshots carry: ``[input]``'s, in order, but the overlay key."""
    names = (f.name for f in dataclasses.fields(input_config))
    return tuple(name for name in names if name != DEBUG_OVERLAY_ACTION)


@dataclass(frozen=True, slots=True)
class LiveSplitConfig:
    """LiveSplit Server connection."""

    enabled: bool = setting(False, "Drive LiveSplit's timer (start, split, reset) over TCP.")
    host: str = setting("localhost", "Host where LiveSplit Server listens.", non_empty=True)
    port: int = setting(16834, "TCP port of LiveSplit Server.", min=1, max=65535)


@dataclass(frozen=True, slots=True)
class SpeedrunConfig:
    """Speedrun mode and timer."""

    enabled: bool = setting(False, "Speedrun mode: forces strict timing and shows the timer.")
    show_timer: bool = setting(True, "Show the in-game timer (counted in simulation ticks).")
    show_rta: bool = setting(True, "Also show real time (RTA, wall clock).")
    livesplit: LiveSplitConfig = field(
        default_factory=LiveSplitConfig,
        metadata={"doc": "Send timer events to a LiveSplit Server component."},
    )


@dataclass(frozen=True, slots=True)
class AudioConfig:
    """Sound."""

    enabled: bool = setting(True, "Play sound effects and music.")
    volume: float = setting(0.8, "Master volume from 0 (silent) to 1 (full).", min=0, max=1)


@dataclass(frozen=True, slots=True)
class DebugConfig:
    """Developer aids."""

    overlay: bool = setting(False, "Show the debug overlay (toggled with F3) at start.")
    frame_graph_frames: int = setting(
        240, "Recent frames plotted in the overlay's frame-time graph.", min=10, max=1000
    )


def _empty_sections() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Config:
    """The whole configuration: one attribute per built-in section, plus game sections.

    Attributes:
        extra: Game-defined sections by TOML table name (see ``extra_sections`` of
            :func:`load_config`), read-only. Prefer :meth:`section` for a typed value.
    """

    timing: TimingConfig = field(default_factory=TimingConfig)
    video: VideoConfig = field(default_factory=VideoConfig)
    render: RenderConfig = field(default_factory=RenderConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    physics: PhysicsConfig = field(default_factory=PhysicsConfig)
    input: InputConfig = field(default_factory=InputConfig)
    gamepad: GamepadConfig = field(default_factory=GamepadConfig)
    speedrun: SpeedrunConfig = field(default_factory=SpeedrunConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    debug: DebugConfig = field(default_factory=DebugConfig)
    extra: Mapping[str, Any] = field(default_factory=_empty_sections, hash=False)

    def section(self, name: str, cls: type[SectionT]) -> SectionT:
        """Return section ``name`` (a game section or a built-in one) as a ``cls``.

        Args:
            name: TOML table name, e.g. ``"player"``.
            cls: The section's dataclass; the result is checked to be an instance.

        Raises:
            KeyError: No such section (was it passed in ``extra_sections``?).
            TypeError: The section is not a ``cls``.
        """
        if name in self.extra:
            value = self.extra[name]
        elif name in _BUILTIN_SECTIONS:
            value = getattr(self, name)
        else:
            raise KeyError(f"no config section {name!r}; pass it in extra_sections")
        if not isinstance(value, cls):
            raise TypeError(f"config section {name!r} is a {type(value).__name__}, not {cls}")
        return value


_BUILTIN_SECTIONS: dict[str, type] = {
    f.name: typing.get_type_hints(Config)[f.name]
    for f in dataclasses.fields(Config)
    if f.name != "extra"
}


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class ConfigError(Exception):
    """A configuration problem, reported as exactly one line.

    ``str(error)`` is ``config error: <source>: <detail>``, where ``source`` is the
    file as given (or ``--set`` for an override) and ``detail`` names the key as
    ``section.key``, the offending value and what is allowed.

    Attributes:
        source: The file name, or ``"--set"``.
        detail: What is wrong, without the prefix.
        key: The dotted key (``"timing.mode"``) if the problem is about one, else None.
    """

    def __init__(self, source: str, detail: str, key: str | None = None) -> None:
        self.source = source
        self.detail = " ".join(detail.split("\n"))
        self.key = key
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"config error: {self.source}: {self.detail}"


# ---------------------------------------------------------------------------------------------
# TOML text
# ---------------------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _toml_string(text: str) -> str:
    """Quote ``text`` as a one-line TOML basic string."""
    parts = []
    for char in text:
        if char in _TOML_ESCAPES:
            parts.append(_TOML_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            parts.append(f"\\u{ord(char):04x}")
        else:
            parts.append(char)
    return '"' + "".join(parts) + '"'


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_value(value: Any) -> str:
    """Write ``value`` (as produced by tomllib or held by a section) as TOML text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _toml_value({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    return str(value)  # TOML dates and times print as valid TOML


def _show(value: Any, limit: int = 60) -> str:
    """Show an offending value in an error line: TOML syntax, shortened if long."""
    text = _toml_value(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dotted(path: Sequence[str]) -> str:
    return ".".join(path)


# ---------------------------------------------------------------------------------------------
# Validation, driven by field types and metadata
# ---------------------------------------------------------------------------------------------

_SCALAR_TYPES: tuple[type, ...] = (bool, int, float, str)
_PLURALS: dict[type, str] = {bool: "booleans", int: "integers", float: "numbers", str: "strings"}


def _number(value: float) -> str:
    """Show a bound: ``10.0`` as ``10``, ``0.001`` as ``0.001``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _describe(tp: Any, meta: Mapping[str, Any]) -> str:
    """Describe what a key allows, e.g. ``an integer in 1 <= x <= 100``."""
    if dataclasses.is_dataclass(tp):
        return "a table"
    if typing.get_origin(tp) is tuple:
        if meta.get("key_names"):
            return "a list of key names (python -m engine.config --keys lists them)"
        if "choices" in meta:
            return "a list of names from: " + ", ".join(meta["choices"])
        return f"a list of {_PLURALS[typing.get_args(tp)[0]]}"
    if tp is bool:
        return "true or false"
    if tp is str:
        if "choices" in meta:
            return "one of " + ", ".join(_toml_string(c) for c in meta["choices"])
        return "a non-empty string" if meta.get("non_empty") else "a string"
    kind = "an integer" if tp is int else "a number"
    low, high = meta.get("min"), meta.get("max")
    low_op = "<" if meta.get("min_exclusive") else "<="
    if low is not None and high is not None:
        text = f"{kind} in {_number(low)} {low_op} x <= {_number(high)}"
    elif low is not None:
        text = f"{kind} {'>' if low_op == '<' else '>='} {_number(low)}"
    elif high is not None:
        text = f"{kind} <= {_number(high)}"
    else:
        text = kind
    also = meta.get("also_allowed", ())
    if also:
        text = " or ".join(_number(v) for v in also) + " or " + text
    return text


def _in_range(value: float, meta: Mapping[str, Any]) -> bool:
    if value in meta.get("also_allowed", ()):
        return True
    if not math.isfinite(value):
        return False
    low, high = meta.get("min"), meta.get("max")
    if low is not None and (value <= low if meta.get("min_exclusive") else value < low):
        return False
    return high is None or value <= high


def _scalar(value: Any, tp: type, meta: Mapping[str, Any]) -> tuple[bool, Any]:
    """Check and convert one scalar. Returns ``(ok, converted_value)``."""
    if tp is bool:
        return isinstance(value, bool), value
    if tp is str:
        if not isinstance(value, str):
            return False, value
        if "choices" in meta and value not in meta["choices"]:
            return False, value
        return not (meta.get("non_empty") and not value.strip()), value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False, value  # bool is an int subclass in Python, but never a number here
    if tp is int and not isinstance(value, int):
        return False, value
    converted = float(value) if tp is float else value
    return _in_range(converted, meta), converted


class _Context:
    """Where values came from, so each error names the right source."""

    def __init__(self, file_label: str, override_paths: set[tuple[str, ...]]) -> None:
        self.file_label = file_label
        self.override_paths = override_paths

    def source(self, path: tuple[str, ...]) -> str:
        for end in range(len(path), 0, -1):
            if path[:end] in self.override_paths:
                return OVERRIDE_SOURCE
        return self.file_label

    def error(self, path: tuple[str, ...], detail: str) -> ConfigError:
        return ConfigError(self.source(path), detail, key=_dotted(path))


def _suggest(word: str, candidates: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return close[0] if close else None


def _unknown_key(source: str, cls: type, path: tuple[str, ...]) -> ConfigError:
    names = [f.name for f in dataclasses.fields(cls)]
    prefix = _dotted(path[:-1])
    close = _suggest(path[-1], names)
    if close is not None:
        hint = f"did you mean {prefix}.{close}?"
    else:
        hint = "valid keys: " + ", ".join(names)
    return ConfigError(source, f"unknown key {_dotted(path)} ({hint})", key=_dotted(path))


def _unknown_section(source: str, name: str, schema: Mapping[str, type]) -> ConfigError:
    close = _suggest(name, list(schema))
    if close is not None:
        hint = f"did you mean [{close}]?"
    else:
        hint = "valid sections: " + ", ".join(f"[{s}]" for s in schema)
    return ConfigError(source, f"unknown section [{name}] ({hint})", key=name)


def _convert(
    value: Any, tp: Any, meta: Mapping[str, Any], path: tuple[str, ...], ctx: _Context
) -> Any:
    """Validate one value against its field type and metadata; return the typed value."""
    key = _dotted(path)
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ctx.error(path, f"{key} = {_show(value)}: must be a table [{key}]")
        return _build(tp, value, path, ctx)

    problem = f"{key} = {_show(value)}: must be {_describe(tp, meta)}"
    if typing.get_origin(tp) is tuple:
        item_tp = typing.get_args(tp)[0]
        if isinstance(value, str) and item_tp is str:
            value = [value]  # one key name where a list is expected
        if not isinstance(value, list | tuple):
            raise ctx.error(path, problem)
        items = []
        for item in value:
            ok, converted = _scalar(item, item_tp, {})
            if not ok:
                raise ctx.error(path, problem)
            if meta.get("key_names") and converted not in _KEY_NAMES:
                close = _suggest(converted.upper(), _KEY_NAME_ORDER)
                hint = f" (did you mean {_toml_string(close)}?)" if close else ""
                raise ctx.error(
                    path,
                    f"{key} = {_show(value)}: {_toml_string(converted)} is not a key name{hint}; "
                    "must be key names like A, KEY_1, F1, LEFT, SPACE "
                    "(python -m engine.config --keys lists them)",
                )
            if "choices" in meta and converted not in meta["choices"]:
                close = _suggest(converted, meta["choices"])
                hint = f" (did you mean {_toml_string(close)}?)" if close else ""
                raise ctx.error(
                    path,
                    f"{key} = {_show(value)}: {_toml_string(converted)} is unknown{hint}; "
                    f"allowed: {', '.join(meta['choices'])}",
                )
            items.append(converted)
        return tuple(items)

    ok, converted = _scalar(value, tp, meta)
    if not ok:
        if isinstance(value, str) and "choices" in meta:
            close = _suggest(value, meta["choices"])
            if close is not None:
                problem += f" (did you mean {_toml_string(close)}?)"
        raise ctx.error(path, problem)
    return converted


def _build(cls: type[T], raw: Mapping[str, Any], path: tuple[str, ...], ctx: _Context) -> T:
    """Build section ``cls`` from a TOML table; missing keys keep their defaults."""
    hints = typing.get_type_hints(cls)
    by_name = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        key_path = (*path, key)
        if key not in by_name:
            raise _unknown_key(ctx.source(key_path), cls, key_path)
        values[key] = _convert(value, hints[key], by_name[key].metadata, key_path, ctx)
    try:
        return cls(**values)
    except ValueError as exc:  # cross-field rules from __post_init__
        raise ctx.error(path, f"[{_dotted(path)}]: {exc}") from exc


@functools.cache
def _check_section_class(cls: type) -> None:
    """Check that a section class follows the conventions (a programming error if not).

    Raises:
        TypeError: Not a frozen dataclass, a field without default or doc, an
            unsupported field type, an unknown metadata key, or an invalid default.
    """
    name = getattr(cls, "__qualname__", repr(cls))
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"config section {name} must be a dataclass")
    if not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"config section {name} must be a frozen dataclass")
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        where = f"{name}.{f.name}"
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypeError(f"{where} needs a default")
        if not isinstance(f.metadata.get("doc"), str):
            raise TypeError(f"{where} needs metadata doc='...' (use setting())")
        unknown = set(f.metadata) - _METADATA_KEYS
        if unknown:
            raise TypeError(f"{where} has unknown metadata {sorted(unknown)}")
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp):
            _check_section_class(tp)
            continue
        args = typing.get_args(tp)
        tuple_ok = (
            typing.get_origin(tp) is tuple
            and len(args) == 2
            and args[1] is Ellipsis
            and args[0] in _SCALAR_TYPES
        )
        if tp not in _SCALAR_TYPES and not tuple_ok:
            raise TypeError(f"{where} has unsupported type {tp!r}")
    defaults = dataclasses.asdict(cls())
    try:
        _build(cls, defaults, (name,), _Context("<defaults>", set()))
    except ConfigError as exc:
        raise TypeError(f"invalid default in {exc.detail}") from exc


def _schema(extra_sections: Mapping[str, type] | None) -> dict[str, type]:
    """All sections by TOML name: built-in first, then the game's, all checked."""
    schema = dict(_BUILTIN_SECTIONS)
    for name, cls in (extra_sections or {}).items():
        if name in schema or name == "extra":
            raise ValueError(f"extra section name {name!r} is taken by the engine")
        if not _BARE_KEY.fullmatch(name):
            raise ValueError(f"extra section name {name!r} must match [A-Za-z0-9_-]+")
        schema[name] = cls
    for cls in schema.values():
        _check_section_class(cls)
    return schema


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

_OVERRIDE_HELP = "expected section.key=value, e.g. --set timing.mode=strict"


def _parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """Split ``section.key=value`` into a key path and a TOML-parsed value."""
    key_text, equals, value_text = text.partition("=")
    path = tuple(part.strip() for part in key_text.split("."))
    if not equals or len(path) < 2 or not all(_BARE_KEY.fullmatch(part) for part in path):
        raise ConfigError(OVERRIDE_SOURCE, f"{_toml_string(text)}: {_OVERRIDE_HELP}")
    value_text = value_text.strip()
    try:
        parsed = tomllib.loads(f"value = {value_text}")
    except tomllib.TOMLDecodeError as exc:
        if value_text[:1] in ('"', "'", "[", "{"):  # meant as TOML, but broken
            message = str(exc).split(" (at line")[0]
            raise ConfigError(
                OVERRIDE_SOURCE,
                f"{_dotted(path)} = {value_text}: not a valid TOML value ({message})",
                key=_dotted(path),
            ) from exc
        return path, value_text  # a bare word: take it as a string
    if set(parsed) != {"value"}:
        return path, value_text  # the text smuggled in more TOML; keep it literal
    return path, parsed["value"]


def _check_override_path(path: tuple[str, ...], schema: Mapping[str, type]) -> None:
    """Reject an override of a key that does not exist, with a "did you mean"."""
    cls: Any = schema.get(path[0])
    if cls is None:
        raise _unknown_section(OVERRIDE_SOURCE, path[0], schema)
    for depth in range(1, len(path)):
        if not dataclasses.is_dataclass(cls):
            raise ConfigError(
                OVERRIDE_SOURCE,
                f"unknown key {_dotted(path)} ({_dotted(path[:depth])} is not a table)",
                key=_dotted(path),
            )
        hints = typing.get_type_hints(cls)
        if path[depth] not in hints:
            raise _unknown_key(OVERRIDE_SOURCE, cls, path[: depth + 1])
        cls = hints[path[depth]]


def _merge(raw: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set ``raw[path[0]][path[1]]... = value``, creating tables on the way."""
    node = raw
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[path[-1]] = value


def _read_toml(path: Path, *, missing_ok: bool) -> dict[str, Any]:
    label = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        if missing_ok:
            return {}
        raise ConfigError(label, "cannot read file: no such file") from exc
    except OSError as exc:
        raise ConfigError(label, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(label, f"cannot read file: not UTF-8 text (byte {exc.start})") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(label, f"malformed TOML: {exc}") from exc


def load_config(
    path: Path | str | None = None,
    overrides: Sequence[str] = (),
    extra_sections: Mapping[str, type] | None = None,
    *,
    missing_ok: bool = False,
) -> Config:
    """Load, override and validate the configuration.

    Args:
        path: The TOML file, or None for defaults only.
        overrides: ``section.key=value`` strings, applied in order after the file.
        extra_sections: Game sections, TOML table name -> frozen dataclass (see the
            module docstring). Available afterwards as ``config.extra[name]`` and
            ``config.section(name, cls)``; defaults if the file lacks them.
        missing_ok: Treat a missing ``path`` as empty. True for the default path
            (:data:`DEFAULT_CONFIG_PATH`), False for a path the user named.

    Returns:
        The validated configuration.

    Raises:
        ConfigError: Unreadable file, malformed TOML, bad override syntax, unknown
            section or key, wrong type, value out of range or not a choice, or an
            unknown key name.
        ValueError: An extra section name clashes with a built-in one.
        TypeError: An extra section class does not follow the conventions.
    """
    schema = _schema(extra_sections)
    raw: dict[str, Any] = {}
    file_label = "<defaults>"
    if path is not None:
        path = Path(path)
        file_label = str(path)
        raw = _read_toml(path, missing_ok=missing_ok)

    override_paths: set[tuple[str, ...]] = set()
    for text in overrides:
        key_path, value = _parse_override(text)
        _check_override_path(key_path, schema)
        _merge(raw, key_path, value)
        override_paths.add(key_path)

    ctx = _Context(file_label, override_paths)
    sections: dict[str, Any] = {}
    for name, value in raw.items():
        cls = schema.get(name)
        if cls is not None:
            sections[name] = _convert(value, cls, {}, (name,), ctx)
        elif isinstance(value, dict):
            raise _unknown_section(ctx.source((name,)), name, schema)
        else:
            owners = [s for s, c in schema.items() if name in typing.get_type_hints(c)]
            hint = f"did you mean {owners[0]}.{name}?" if owners else "keys belong in a section"
            raise ConfigError(
                ctx.source((name,)), f"unknown top-level key {name} ({hint})", key=name
            )

    extra = {
        name: sections.get(name, cls())
        for name, cls in schema.items()
        if name not in _BUILTIN_SECTIONS
    }
    builtin = {name: sections[name] for name in _BUILTIN_SECTIONS if name in sections}
    return Config(**builtin, extra=MappingProxyType(extra))


# ---------------------------------------------------------------------------------------------
# Writing TOML
# ---------------------------------------------------------------------------------------------


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n")[0]


def _render_table(lines: list[str], path: tuple[str, ...], section: Any, doc: str) -> None:
    lines.append("")
    if doc:
        lines.append(f"# {doc}")
    lines.append(f"[{_dotted(path)}]")
    hints = typing.get_type_hints(type(section))
    subsections = []
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        if dataclasses.is_dataclass(hints[f.name]):
            subsections.append((f, value))
            continue
        lines.append("")
        lines.append(f"# {f.metadata['doc']}")
        lines.append(f"# Allowed: {_describe(hints[f.name], f.metadata)}.")
        lines.append(f"{f.name} = {_toml_value(value)}")
    for f, value in subsections:
        _render_table(lines, (*path, f.name), value, f.metadata["doc"])


def to_toml(config: Config, header: str = "") -> str:
    """Write ``config`` as a commented TOML document that loads back to an equal Config.

    Args:
        config: Any configuration, e.g. the result of :func:`load_config`.
        header: Text put at the top as ``#`` comment lines.

    Returns:
        The TOML text: every section and key, each key with its doc and allowed values.
    """
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    sections = {name: getattr(config, name) for name in _BUILTIN_SECTIONS}
    sections.update(config.extra)
    for name, section in sections.items():
        _render_table(lines, (name,), section, _first_line(type(section).__doc__))
    return "\n".join(lines).lstrip("\n") + "\n"


_DEFAULTS_HEADER = """\
Engine configuration: every key with its default value.

Save as config.toml in the working directory (or pass --config PATH) and keep only
the keys you change; a missing key keeps its default. Override one key on the
command line with --set section.key=value, e.g. --set timing.mode=strict."""


def defaults_toml(extra_sections: Mapping[str, type] | None = None) -> str:
    """Return a complete, commented TOML document of every key and its default.

    Args:
        extra_sections: Game sections to include, as for :func:`load_config`.

    Returns:
        TOML text that parses back to the default configuration.
    """
    return to_toml(load_config(None, extra_sections=extra_sections), header=_DEFAULTS_HEADER)


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--config PATH`` (``args.config``) and ``--set`` (``args.config_overrides``).

    Args:
        parser: The program's parser; read the result with :func:`config_from_args`.
    """
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"TOML config file (default: {DEFAULT_CONFIG_PATH} if it exists)",
    )
    parser.add_argument(
        "--set",
        dest="config_overrides",
        action="append",
        default=None,
        metavar="SECTION.KEY=VALUE",
        help="override one config key, e.g. --set timing.mode=strict (repeatable)",
    )


def config_from_args(
    args: argparse.Namespace, extra_sections: Mapping[str, type] | None = None
) -> Config:
    """Load the configuration named by :func:`add_config_arguments`'s options.

    Without ``--config``, :data:`DEFAULT_CONFIG_PATH` is read if it exists. On a
    :class:`ConfigError` the one-line message goes to stderr and the program exits
    with status 2 (the usual status for bad command-line input), without a traceback.

    Args:
        args: Parsed arguments.
        extra_sections: Game sections, as for :func:`load_config`.

    Raises:
        SystemExit: With code 2 if the configuration is invalid.
    """
    explicit_path: Path | None = args.config
    try:
        return load_config(
            explicit_path if explicit_path is not None else DEFAULT_CONFIG_PATH,
            args.config_overrides or (),
            extra_sections,
            missing_ok=explicit_path is None,
        )
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.config``: print defaults, list key names, or check a file.

    Without options, print every key with its default (a ready ``config.toml``).
    With ``--config`` and/or ``--set``, validate and print the effective
    configuration. With ``--keys``, print every allowed key name, one per line.
    """
    parser = argparse.ArgumentParser(
        prog="python -m engine.config",
        description="Print every config key with its default, or check a config file.",
    )
    add_config_arguments(parser)
    parser.add_argument("--keys", action="store_true", help="list the key names for [input]")
    args = parser.parse_args(argv)
    if args.keys:
        print("\n".join(_KEY_NAME_ORDER))
    elif args.config is None and not args.config_overrides:
        print(defaults_toml(), end="")
    else:
        config = config_from_args(args)
        print(
            to_toml(config, header="Effective configuration (file, then --set overrides)."), end=""
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
