"""The options screen every game gets: sound, video, timer and controls, saved for the player.

:class:`OptionsScene` is a :class:`~engine.runtime.menu.MenuScene` a game opens from its title
screen and its pause menu::

    engine.show(OptionsScene(engine, on_back=show_title))

Every item changes the running game at once (:meth:`Engine.apply_config
<engine.runtime.engine.Engine.apply_config>`) and is saved at once in the player's settings file
(:class:`~engine.config.settings.UserSettings`, ``engine.settings``), which overlays
``config.toml`` the next time the game starts:

======================  ==========================================================
Music / Effects volume  ``[audio] music_volume`` / ``effects_volume``, 0-100 % in tens
Fullscreen              ``[video] fullscreen`` (F11 and Alt+Enter toggle it anywhere)
Window scale            ``[video] scale``: the window is the picture times this
Scaling                 ``[video] scale_mode``: integer, fit or stretch
Vsync                   ``[video] vsync``
Screen shake            ``[video] screen_shake`` (off for players it bothers)
Timer                   ``[speedrun] show_timer`` and ``show_rta``: the speedrun timer, or in
                        normal play the level timer (:mod:`engine.app.level_timer`)
Controls                :class:`ControlsScene`: rebind keys and gamepad buttons
Reset to defaults       back to ``config.toml``'s values (the settings file forgets them)
======================  ==========================================================

:class:`ControlsScene` lists the actions a player moves and plays with. Choosing one waits for
the next key (or gamepad control, with the device switched to gamepad); that becomes the action's
main key, and its second key stays. A key another action uses is refused with a line saying whose
it is, and Esc (or Start on a pad) cancels. Esc, Enter and F3 keep their jobs (pause and back,
confirm, the overlay), and F11 always toggles fullscreen, so a player can never lock
themselves out of the menus.

Everything works with the keyboard or a gamepad alone: up and down move, left and right change a
value, jump or confirm chooses, pause goes back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from engine.config import Config
from engine.config.settings import UserSettings, config_value, config_with
from engine.input.keys import key_name_for
from engine.input.snapshot import InputSnapshot
from engine.runtime.menu import Menu, MenuItem, MenuScene
from engine.runtime.scene import SceneHost

__all__ = [
    "BINDABLE_ACTIONS",
    "OPTION_KEYS",
    "ControlsScene",
    "OptionsScene",
    "rebound",
]

VOLUME_STEPS: tuple[float, ...] = tuple(step / 10 for step in range(11))
WINDOW_SCALES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
SCALE_MODE_LABELS: dict[str, str] = {"integer": "crisp", "fit": "fit", "stretch": "stretch"}
TIMER_CHOICES: tuple[tuple[str, bool, bool], ...] = (
    ("off", False, False),
    ("game time", True, False),
    ("game + real", True, True),
)
OFF_ON = ("off", "on")

OPTION_KEYS: tuple[str, ...] = (
    "audio.music_volume",
    "audio.effects_volume",
    "video.fullscreen",
    "video.scale",
    "video.scale_mode",
    "video.vsync",
    "video.screen_shake",
    "speedrun.show_timer",
    "speedrun.show_rta",
)
"""The config keys the options screen (without the controls) sets."""

BINDABLE_ACTIONS: tuple[tuple[str, str], ...] = (
    ("left", "Left"),
    ("right", "Right"),
    ("up", "Up"),
    ("down", "Down"),
    ("jump", "Jump"),
    ("restart", "Restart"),
    ("reset_run", "Reset run"),
    ("save_state", "Practice: save state"),
    ("load_state", "Practice: load state"),
    ("freeze", "Practice: freeze"),
    ("step_tick", "Practice: step a tick"),
    ("slow_motion", "Practice: slow motion"),
)
"""``(action, label)`` of the actions the controls screen rebinds, in order (the practice
mode's last: ``engine.app.practice``)."""

RESERVED_KEYS: frozenset[str] = frozenset({"F11"})
"""Keys that are never bound: F11 toggles fullscreen on every screen."""
CANCEL_KEY = "ESCAPE"
CANCEL_CONTROL = "start"

DEVICES = ("keyboard", "gamepad")
DEVICE_SECTIONS = {"keyboard": "input", "gamepad": "gamepad"}


def _nearest(choices: tuple[Any, ...], value: float) -> int:
    return min(range(len(choices)), key=lambda i: abs(choices[i] - value))


def _binding_keys(config: Config, section: str) -> Mapping[str, tuple[str, ...]]:
    """Action -> bound names, for every binding field of ``[input]`` or ``[gamepad]``."""
    node = getattr(config, section)
    return {
        f.name: getattr(node, f.name)
        for f in dataclasses.fields(node)
        if isinstance(getattr(node, f.name), tuple)
    }


def rebound(
    bindings: Mapping[str, tuple[str, ...]], action: str, name: str
) -> tuple[str, ...] | str:
    """The action's new binding when ``name`` is pressed for it, or why that is refused.

    ``name`` becomes the main (first) binding and the action's second one stays; a name another
    action uses is refused (``"SPACE is Jump's"``).
    """
    for other, names in bindings.items():
        if other != action and name in names:
            return f"{name} is already {other.replace('_', ' ')}'s"
    current = bindings.get(action, ())
    return (name, *(k for k in current[1:2] if k != name))


class _Changer:
    """Sets config keys on the running engine and saves them in the player's settings."""

    def __init__(self, engine: SceneHost) -> None:
        self.engine = engine
        if engine.settings is None:
            engine.settings = UserSettings(None)  # this run only
        self.settings: UserSettings = engine.settings

    def change(self, values: Mapping[str, Any]) -> None:
        config = self.engine.config
        for key, value in values.items():
            config = config_with(config, key, value)
            self.settings.set(key, value)
        self.engine.apply_config(config)
        self.settings.save()

    def reset(self, keys: tuple[str, ...]) -> None:
        """Back to the values without the player's options (``config.toml`` and ``--set``)."""
        defaults = self.settings.defaults or Config()
        self.settings.forget(keys)
        config = self.engine.config
        for key in keys:
            config = config_with(config, key, config_value(defaults, key))
        self.engine.apply_config(config)
        self.settings.save()


class OptionsScene(MenuScene):
    """Sound, video, timer and controls (see the module docstring).

    Args:
        engine: The running engine (its config is what the items show).
        on_back: Called by "Back" and by ``pause``.
    """

    def __init__(self, engine: SceneHost, on_back: Callable[[], None]) -> None:
        self.changer = _Changer(engine)
        self.host = engine
        self.back = on_back
        super().__init__("Options", (), Menu(self._items()), self._on_choose, on_back=on_back)

    def _items(self) -> list[MenuItem]:
        config = self.host.config
        audio, video, speedrun = config.audio, config.video, config.speedrun
        percent = tuple(f"{round(v * 100)}%" for v in VOLUME_STEPS)
        timer = next(
            (
                i
                for i, c in enumerate(TIMER_CHOICES)
                if c[1:] == (speedrun.show_timer, speedrun.show_rta)
            ),
            1 if speedrun.show_timer else 0,
        )
        modes = tuple(SCALE_MODE_LABELS)
        return [
            MenuItem("music", "Music", percent, _nearest(VOLUME_STEPS, audio.music_volume)),
            MenuItem("effects", "Effects", percent, _nearest(VOLUME_STEPS, audio.effects_volume)),
            MenuItem("fullscreen", "Fullscreen", OFF_ON, int(video.fullscreen)),
            MenuItem(
                "scale",
                "Window scale",
                tuple(f"x{s}" for s in WINDOW_SCALES),
                _nearest(WINDOW_SCALES, video.scale),
            ),
            MenuItem(
                "scale_mode",
                "Scaling",
                tuple(SCALE_MODE_LABELS[m] for m in modes),
                modes.index(video.scale_mode) if video.scale_mode in modes else 0,
            ),
            MenuItem("vsync", "Vsync", OFF_ON, int(video.vsync)),
            MenuItem("screen_shake", "Screen shake", OFF_ON, int(video.screen_shake)),
            MenuItem("timer", "Timer", tuple(c[0] for c in TIMER_CHOICES), timer),
            MenuItem("controls", "Controls..."),
            MenuItem("reset", "Reset to defaults"),
            MenuItem("back", "Back"),
        ]

    def _on_choose(self, key: str) -> None:
        item = self.menu.item(key)
        choice = item.choice
        if key == "music":
            self.changer.change({"audio.music_volume": VOLUME_STEPS[choice]})
        elif key == "effects":
            self.changer.change({"audio.effects_volume": VOLUME_STEPS[choice]})
        elif key == "fullscreen":
            self.changer.change({"video.fullscreen": bool(choice)})
        elif key == "scale":
            self.changer.change({"video.scale": WINDOW_SCALES[choice]})
        elif key == "scale_mode":
            self.changer.change({"video.scale_mode": tuple(SCALE_MODE_LABELS)[choice]})
        elif key == "vsync":
            self.changer.change({"video.vsync": bool(choice)})
        elif key == "screen_shake":
            self.changer.change({"video.screen_shake": bool(choice)})
        elif key == "timer":
            _, show_timer, show_rta = TIMER_CHOICES[choice]
            self.changer.change({"speedrun.show_timer": show_timer, "speedrun.show_rta": show_rta})
        elif key == "controls":
            self.host.show(ControlsScene(self.host, on_back=self._reopen))
        elif key == "reset":
            self.changer.reset(OPTION_KEYS)
            self._refresh()
        elif key == "back":
            self.back()

    def _refresh(self) -> None:
        for new in self._items():
            self.menu.item(new.key).choice = new.choice

    def _reopen(self) -> None:
        self.host.show(OptionsScene(self.host, self.back))

    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Follow changes made elsewhere (F11), then handle the menu."""
        self.menu.item("fullscreen").choice = int(self.host.config.video.fullscreen)
        super().on_tick(tick, snapshot)


class ControlsScene(MenuScene):
    """Rebind keys and gamepad controls by pressing them (see the module docstring).

    Args:
        engine: The running engine.
        on_back: Called by "Back" and by ``pause`` (when not waiting for a key).
    """

    def __init__(self, engine: SceneHost, on_back: Callable[[], None]) -> None:
        self.changer = _Changer(engine)
        self.host = engine
        self.back = on_back
        self.device = "keyboard"
        #: The action waiting for a key or control, or None.
        self.waiting: str | None = None
        items = [MenuItem("device", "Device", tuple(d.capitalize() for d in DEVICES))]
        items += [MenuItem(f"bind:{action}", label) for action, label in BINDABLE_ACTIONS]
        items += [MenuItem("reset", "Reset controls"), MenuItem("back", "Back")]
        super().__init__("Controls", ("",), Menu(items), self._on_choose, on_back=self._on_back)
        self._relabel()

    @property
    def section(self) -> str:
        """``input`` or ``gamepad``: where the shown device's bindings live."""
        return DEVICE_SECTIONS[self.device]

    def _relabel(self, message: str = "") -> None:
        bindings = _binding_keys(self.host.config, self.section)
        for action, label in BINDABLE_ACTIONS:
            names = bindings.get(action, ())
            shown = "  ".join(names) if names else "-"
            self.menu.item(f"bind:{action}").label = f"{label}:  {shown}"
        if message:
            self.panel.lines = (message,)
        elif self.waiting is not None:
            what = "a key" if self.device == "keyboard" else "a gamepad button"
            cancel = "Esc" if self.device == "keyboard" else "Start"
            label = dict(BINDABLE_ACTIONS)[self.waiting]
            self.panel.lines = (f"Press {what} for {label}  ({cancel} cancels)",)
        else:
            self.panel.lines = ("Choose an action, then press its new key",)

    def _on_back(self) -> None:
        if self.waiting is None:
            self.back()

    def _on_choose(self, key: str) -> None:
        if key == "device":
            self.device = DEVICES[self.menu.item("device").choice]
            self._relabel()
        elif key.startswith("bind:"):
            self.start_waiting(key.removeprefix("bind:"))
        elif key == "reset":
            keys = tuple(f"{DEVICE_SECTIONS[d]}.{a}" for d in DEVICES for a, _ in BINDABLE_ACTIONS)
            self.changer.reset(keys)
            self._relabel("Controls reset")
        elif key == "back":
            self.back()

    def start_waiting(self, action: str) -> None:
        """Wait for the next key or control for ``action`` (the menu is frozen meanwhile)."""
        self.waiting = action
        if self.device == "keyboard":
            self.host.capture_input(on_key=self.key_pressed)
        else:
            self.host.capture_input(on_control=self.control_pressed)
        self._relabel()

    def key_pressed(self, symbol: int) -> bool:
        """A key arrived while waiting: bind it, or say why not. True when waiting is over."""
        name = key_name_for(symbol)
        if name == CANCEL_KEY:
            return self._stop("")
        if name is None or name in RESERVED_KEYS:
            self._relabel(f"{name or 'That key'} cannot be bound: press another")
            return False
        return self._bind(name)

    def control_pressed(self, control: str) -> bool:
        """A gamepad control arrived while waiting (see :meth:`key_pressed`)."""
        if control == CANCEL_CONTROL:
            return self._stop("")
        return self._bind(control)

    def _bind(self, name: str) -> bool:
        assert self.waiting is not None
        bindings = _binding_keys(self.host.config, self.section)
        result = rebound(bindings, self.waiting, name)
        if isinstance(result, str):
            self._relabel(f"{result}: press another")
            return False
        self.changer.change({f"{self.section}.{self.waiting}": result})
        return self._stop(f"{dict(BINDABLE_ACTIONS)[self.waiting]}: {'  '.join(result)}")

    def _stop(self, message: str) -> bool:
        self.waiting = None
        self.host.capture_input()
        self._relabel(message)
        return True

    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """The menu moves only when no key is awaited."""
        if self.waiting is None:
            super().on_tick(tick, snapshot)

    def on_hide_view(self) -> None:
        """Leaving the screen stops waiting."""
        if self.waiting is not None:
            self.waiting = None
            self.host.capture_input()
