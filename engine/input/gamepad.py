"""Gamepads: controller buttons, d-pad, stick and triggers pressing the game's actions.

The keyboard and a gamepad feed the same :class:`~engine.input.snapshot.InputSampler`, so the game sees
one stream of per-tick actions whichever device the player uses, and a replay records both.
Each *control* (``"a"``, ``"start"``, ``"dpleft"``, ``"leftstick_left"``, ``"righttrigger"``,
see :data:`~engine.config.GAMEPAD_CONTROLS`) is a button that is either down or up:

* buttons are down between pyglet's press and release events;
* a d-pad direction is down while the d-pad points that way (diagonals hold two);
* a left-stick direction is down while the stick is pushed further than ``deadzone`` that way;
* a trigger is down while it is pulled further than ``deadzone``.

When a control goes down, every action bound to it (``[gamepad]`` in the config) gets one
:meth:`~engine.input.snapshot.InputSampler.press`; when it goes up, one
:meth:`~engine.input.snapshot.InputSampler.release`. The sampler counts presses per action, so holding
``LEFT`` on the keyboard and the d-pad at once and letting go of one keeps ``left`` held.

Controllers are found through pyglet's ``ControllerManager`` (``arcade.ControllerManager``),
hot-plugging included; a controller that disconnects releases everything it held. Where pyglet
cannot enumerate devices (headless runs, containers without ``/dev/input``), :meth:`attach`
returns False and the game runs with the keyboard alone; nothing is printed, because having no
gamepad is normal.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from engine.config import GamepadConfig
from engine.input.snapshot import InputSampler

__all__ = ["GamepadInput"]

_DPAD_DIRECTIONS = (("dpleft", 0, -1), ("dpright", 0, 1), ("dpdown", 1, -1), ("dpup", 1, 1))
_STICK_DIRECTIONS = (
    ("leftstick_left", 0, -1),
    ("leftstick_right", 0, 1),
    ("leftstick_down", 1, -1),
    ("leftstick_up", 1, 1),
)


def _bindings(config: GamepadConfig, actions: Any) -> dict[str, tuple[str, ...]]:
    """Control name -> the actions it presses, for the actions the sampler knows."""
    by_control: dict[str, list[str]] = {}
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if not isinstance(value, tuple) or f.name not in actions:
            continue
        for control in value:
            bound = by_control.setdefault(control, [])
            if f.name not in bound:
                bound.append(f.name)
    return {control: tuple(names) for control, names in by_control.items()}


class GamepadInput:
    """Forwards gamepad controls to an input sampler as action presses and releases.

    Args:
        config: The ``[gamepad]`` section (bindings and deadzone).
        sampler: The sampler the keyboard feeds too.

    Attributes:
        by_control: Control name -> actions it presses (read-only).
        controllers: The controllers opened so far.
    """

    def __init__(self, config: GamepadConfig, sampler: InputSampler) -> None:
        self.config = config
        self.sampler = sampler
        self.by_control: Mapping[str, tuple[str, ...]] = _bindings(config, sampler.action_map)
        self.controllers: list[Any] = []
        #: When set, the next control pushed goes here instead of pressing actions (the options
        #: screen rebinding a button); it returns True once it has what it waited for.
        self.capture: Callable[[str], bool] | None = None
        #: Called whenever a control is pushed (the engine notes the player's device).
        self.on_use: Callable[[], None] | None = None
        self._held: dict[int, set[str]] = {}
        self._manager: Any = None

    def rebind(self, config: GamepadConfig) -> None:
        """Use new bindings and deadzone from now on (the options screen changed them).

        Actions held through the old bindings are released first, so nothing stays pressed.
        """
        for held in self._held.values():
            for control in sorted(held):
                self._release_control(control)
        self._held.clear()
        self.config = config
        self.by_control = _bindings(config, self.sampler.action_map)

    # -- devices --------------------------------------------------------------------------------
    def attach(self) -> bool:
        """Open the connected controllers and watch for new ones; False if pyglet cannot.

        pyglet's device enumeration raises different errors on different systems (a missing
        ``/dev/input``, no X display for its XInput module), so any exception means "no
        gamepads here".
        """
        if not self.config.enabled:
            return False
        try:
            import pyglet.input

            manager = pyglet.input.ControllerManager()
            connected = manager.get_controllers()
        except Exception:  # see the docstring
            return False
        self._manager = manager
        manager.push_handlers(on_connect=self.connect, on_disconnect=self.disconnect)
        for controller in connected:
            self.connect(controller)
        return True

    def connect(self, controller: Any) -> None:
        """Start reading ``controller`` (called for each pad, and by pyglet on hot-plug)."""
        if controller in self.controllers:
            return
        try:
            controller.open()
        except Exception:  # a pad that cannot be opened is skipped
            return
        controller.push_handlers(self)
        self.controllers.append(controller)

    def disconnect(self, controller: Any) -> None:
        """Forget ``controller`` and release everything it held."""
        for control in sorted(self._held.pop(id(controller), set())):
            self._release_control(control)
        if controller in self.controllers:
            self.controllers.remove(controller)
            controller.remove_handlers(self)

    def close(self) -> None:
        """Release every held control and close the controllers."""
        for controller in list(self.controllers):
            self.disconnect(controller)
            with contextlib.suppress(Exception):  # already unplugged
                controller.close()
        if self._manager is not None:
            self._manager.remove_handlers(on_connect=self.connect, on_disconnect=self.disconnect)
            self._manager = None

    def forget_held(self) -> None:
        """Forget what is held without releasing it (the sampler was just reset on focus loss)."""
        self._held.clear()

    # -- pyglet controller events (names and arguments as pyglet dispatches them) ---------------
    def on_button_press(self, controller: Any, button: str) -> None:
        """A button went down."""
        self.set_control(controller, button, True)

    def on_button_release(self, controller: Any, button: str) -> None:
        """A button went up."""
        self.set_control(controller, button, False)

    def on_dpad_motion(self, controller: Any, vector: Any) -> None:
        """The d-pad moved; each axis is -1, 0 or 1."""
        for control, axis, sign in _DPAD_DIRECTIONS:
            self.set_control(controller, control, vector[axis] * sign > 0)

    def on_stick_motion(self, controller: Any, stick: str, vector: Any) -> None:
        """A stick moved; only the left stick is bound (axes from -1 to 1, y up)."""
        if stick != "leftstick":
            return
        for control, axis, sign in _STICK_DIRECTIONS:
            self.set_control(controller, control, vector[axis] * sign > self.config.deadzone)

    def on_trigger_motion(self, controller: Any, trigger: str, value: float) -> None:
        """A trigger moved (0 released .. 1 fully pulled)."""
        self.set_control(controller, trigger, value > self.config.deadzone)

    # -- the state machine -----------------------------------------------------------------------
    def set_control(self, controller: Any, control: str, down: bool) -> None:
        """Record that ``control`` of ``controller`` is down or up; press or release on change."""
        held = self._held.setdefault(id(controller), set())
        if down == (control in held):
            return
        if down:
            if self.on_use is not None:
                self.on_use()
            if self.capture is not None:  # a captured push presses nothing; its release is ignored
                if self.capture(control):
                    self.capture = None
                return
            held.add(control)
            for action in self.by_control.get(control, ()):
                self.sampler.press(action)
        else:
            held.discard(control)
            self._release_control(control)

    def _release_control(self, control: str) -> None:
        for action in self.by_control.get(control, ()):
            self.sampler.release(action)
