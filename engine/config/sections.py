"""The engine's own config sections (``[timing]``, ``[video]``, ... ``[debug]``) and :class:`Config`.

Each section is a frozen dataclass declared with :func:`~engine.config.schema.setting`, so its
defaults, docs and allowed values are written once, next to the field, and both the loader and
``python -m engine.config`` read them from there. Pure: standard library only.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

from engine.config.schema import key_binding, setting, shown_text
from engine.rendering.screen_fit import SCALE_MODES

SectionT = TypeVar("SectionT")

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
        min=1,
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
    frame_delay: str | float = setting(
        "auto",
        'Frames just in time: "auto" reads input and simulates as late as the measured work '
        'allows before the frame is shown (less input latency); "off" starts each frame as soon '
        "as the previous one is presented; a number waits that many milliseconds first (at most "
        'as long as "auto" would). Not used by strict timing.',
        min=0,
        max=50,
        choices=("auto", "off"),
    )


@dataclass(frozen=True, slots=True)
class VideoConfig:
    """Window and presentation."""

    vsync: bool = setting(True, "Wait for the display's vertical blank before showing a frame.")
    fps_limit: float = setting(
        0.0,
        "Frame rate cap in frames per second; 0 paces at the display's refresh rate (the tick "
        "rate if the OS reports none) when vsync is off, not honoured, or the display is "
        "variable-refresh.",
        min=1,
        max=1000,
        also_allowed=(0,),
    )
    internal_width: int = setting(
        640, "Width of the game's picture in pixels (the internal resolution).", min=64, max=3840
    )
    internal_height: int = setting(
        360, "Height of the game's picture in pixels (the internal resolution).", min=64, max=2160
    )
    scale: int = setting(
        2, "Window size as a multiple of the picture, when not fullscreen.", min=1, max=8
    )
    scale_mode: str = setting(
        "integer",
        '"integer" scales by whole numbers with black bars (crisp pixels); "fit" fills as much '
        'as the shape allows; "stretch" fills the window.',
        choices=SCALE_MODES,
    )
    fullscreen: bool = setting(False, "Fullscreen (F11 or Alt+Enter toggles it).")
    msaa_samples: int = setting(
        0,
        "Multisample anti-aliasing samples of the window (0: none; pixel art needs none).",
        min=2,
        max=16,
        also_allowed=(0,),
    )
    screen_shake: bool = setting(
        True, "Shake the view on hits and falls (off for players it bothers)."
    )
    title: str = setting("Platformer", "Window title.")

    @property
    def internal_size(self) -> tuple[int, int]:
        """``(internal_width, internal_height)``."""
        return (self.internal_width, self.internal_height)

    @property
    def window_size(self) -> tuple[int, int]:
        """The windowed size: the picture times ``scale``."""
        return (self.internal_width * self.scale, self.internal_height * self.scale)


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
    save_state: tuple[str, ...] = key_binding(("F5",), "Practice: save the level's state here.")
    load_state: tuple[str, ...] = key_binding(("F9",), "Practice: go back to the saved state.")
    freeze: tuple[str, ...] = key_binding(("F6",), "Practice: freeze the level / run again.")
    step_tick: tuple[str, ...] = key_binding(("F7",), "Practice: run one tick while frozen.")
    slow_motion: tuple[str, ...] = key_binding(
        ("F8",), "Practice: slow motion (full, 1/2, 1/4 speed)."
    )
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
    save_state: tuple[str, ...] = gamepad_binding(
        ("leftstick",), "Practice: save the level's state here."
    )
    load_state: tuple[str, ...] = gamepad_binding(
        ("rightstick",), "Practice: go back to the saved state."
    )
    freeze: tuple[str, ...] = gamepad_binding((), "Practice: freeze the level / run again.")
    step_tick: tuple[str, ...] = gamepad_binding((), "Practice: run one tick while frozen.")
    slow_motion: tuple[str, ...] = gamepad_binding(
        (), "Practice: slow motion (full, 1/2, 1/4 speed)."
    )


DEBUG_OVERLAY_ACTION = "debug_overlay"
"""The ``[input]`` action the engine handles itself (the F3 overlay); games never see it."""

PRACTICE_ACTIONS = ("save_state", "load_state", "freeze", "step_tick", "slow_motion")
"""The practice mode's actions (``engine.app.practice``): bound in ``[input]`` and
``[gamepad]`` like the game's, but never part of the game's input snapshots (so replays and
run files record exactly what they did before practice existed)."""


def game_action_names(input_config: InputConfig) -> tuple[str, ...]:
    """The actions a game's input snapshots carry: ``[input]``'s, in order, but the overlay key
    and the practice keys (the engine's own)."""
    names = (f.name for f in dataclasses.fields(input_config))
    return tuple(
        name for name in names if name != DEBUG_OVERLAY_ACTION and name not in PRACTICE_ACTIONS
    )


MAX_HOST_NAME_CHARS = 253
"""Longest DNS name (RFC 1035: 255 bytes on the wire, 253 characters written out)."""
MAX_LABEL_CHARS = 63
"""Longest part of a host name between dots (RFC 1035)."""
_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?")


def host_problem(host: str) -> str | None:
    """Why ``host`` cannot be connected to (one phrase), or None for an IP address or host name.

    An IPv4 or IPv6 address is fine. A name is split at dots (one trailing dot, the DNS root,
    is allowed); every part must be 1 to 63 characters of letters, digits, ``-`` (not first
    or last) and ``_`` once written in ASCII (a non-ASCII part is converted as IDNA, the way the
    socket library will), and the whole at most 253. These are the names the socket library
    can look up: others (``.``, ``a..b``, a 64-character part) fail inside it with a
    ``UnicodeError``, not a connection error, so they are refused when the config is loaded.
    """
    try:
        ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        return None
    name = host[:-1] if host.endswith(".") else host
    if not name:
        return "it has no name in it"
    for number, label in enumerate(name.split("."), start=1):
        if not label:
            return f"part {number} (between dots) is empty"
        try:
            ascii_label = label if label.isascii() else label.encode("idna").decode("ascii")
        except UnicodeError:
            return f"part {number} ({shown_text(label, 20)}) is not a valid international name"
        if len(ascii_label) > MAX_LABEL_CHARS:
            return f"part {number} is {len(ascii_label)} characters, at most {MAX_LABEL_CHARS}"
        if not _LABEL.fullmatch(ascii_label):
            return (
                f"part {number} ({shown_text(label, 20)}) must be letters, digits, - and _ "
                "(- not first or last)"
            )
    length = len(name.encode("idna")) if not name.isascii() else len(name)
    if length > MAX_HOST_NAME_CHARS:
        return f"it is {length} characters long, at most {MAX_HOST_NAME_CHARS}"
    return None


@dataclass(frozen=True, slots=True)
class LiveSplitConfig:
    """LiveSplit Server connection."""

    enabled: bool = setting(False, "Drive LiveSplit's timer (start, split, reset) over TCP.")
    host: str = setting("localhost", "Host where LiveSplit Server listens.", non_empty=True)
    port: int = setting(16834, "TCP port of LiveSplit Server.", min=1, max=65535)

    def __post_init__(self) -> None:
        problem = host_problem(self.host) if self.host.strip() else None
        if problem is not None:
            raise ValueError(f"host = {shown_text(self.host)}: not a host name: {problem}")


@dataclass(frozen=True, slots=True)
class SpeedrunConfig:
    """Speedrun mode and timer."""

    enabled: bool = setting(False, "Speedrun mode: forces strict timing and shows the timer.")
    show_timer: bool = setting(
        True, "Show the in-game timer (speedrun mode: the run's; normal play: a level timer)."
    )
    show_rta: bool = setting(True, "Also show real time (RTA, wall clock).")
    ghost: bool = setting(
        False, "Draw a translucent ghost of the personal best's attempt on each level."
    )
    livesplit: LiveSplitConfig = field(
        default_factory=LiveSplitConfig,
        metadata={"doc": "Send timer events to a LiveSplit Server component."},
    )


@dataclass(frozen=True, slots=True)
class AudioConfig:
    """Sound."""

    enabled: bool = setting(True, "Play sound effects and music.")
    volume: float = setting(0.8, "Master volume from 0 (silent) to 1 (full).", min=0, max=1)
    music_volume: float = setting(0.7, "Music volume from 0 to 1 (times the master).", min=0, max=1)
    effects_volume: float = setting(
        1.0, "Sound effects volume from 0 to 1 (times the master).", min=0, max=1
    )


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
