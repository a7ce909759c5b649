"""The contract between game code and the engine: a :class:`Scene` is an arcade ``View`` with ticks.

The engine owns the loop. Each frame it decides how many fixed ticks to run and calls, on the scene
being shown:

* :meth:`Scene.on_tick` once per fixed tick, with the tick's index and the tick's
  :class:`~engine.input.snapshot.InputSnapshot`. This is the **only** place game state may change: move
  things, apply forces, step the physics world (``self.world.step(self.engine.step_s)``), switch
  scenes. Ticks have a fixed length (:attr:`Engine.step_s`), so the game is deterministic and its
  input is data that can be recorded.
* :meth:`Scene.on_render` once per rendered frame, with ``alpha`` in [0, 1]: how far real time has
  moved from the previous tick towards the newest one. Draw interpolated state (see
  :class:`~engine.physics.world.PhysicsWorld` and :class:`~engine.rendering.sprite_sync.SpriteSync`); never
  change game state here. ``frame_dt_s`` is the time since the previous rendered frame, for
  purely visual effects such as the camera (:class:`~engine.rendering.camera.FollowCamera`).

Switch scenes with ``engine.show(other_scene)`` (arcade's ``show_view`` underneath, so
``on_show_view`` / ``on_hide_view`` work as usual). Arcade's own ``on_update``, ``on_fixed_update``
and ``on_draw`` are not called by the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import arcade

from engine.config import Config
from engine.config.settings import UserSettings
from engine.input.snapshot import ActionMap, InputSnapshot
from engine.runtime.video import Video
from engine.timing import TickRate


class SceneHost(Protocol):
    """What a scene may use of the engine that shows it (:class:`~engine.runtime.engine.Engine`).

    Declared here, on the scene's side, so this module does not import the engine's: the engine
    depends on scenes, never the other way round.
    """

    config: Config
    tick_rate: TickRate
    step_s: float
    actions: ActionMap
    video: Video
    settings: UserSettings | None

    def show(self, scene: Scene) -> None:
        """Make ``scene`` the one that ticks and renders."""

    def apply_config(self, config: Config) -> None:
        """Change options of the running game (video, bindings, volumes) at once."""

    def capture_input(
        self,
        on_key: Callable[[int], bool] | None = None,
        on_control: Callable[[str], bool] | None = None,
    ) -> None:
        """Send the next keys or gamepad controls here instead of to actions (rebinding)."""

    def resync(self) -> None:
        """Drop the time until the next frame (after loading)."""

    def close(self) -> None:
        """Stop the loop."""


class Scene(arcade.View):
    """Base class for everything the engine shows: a level, a menu, a demo.

    Attributes:
        engine: The engine running this scene (set by ``Engine.show``).
        focus_x_fraction: Where the player is across the picture (0 left, 1 right), set by a
            scene that follows one as it draws; the F3 overlay stands in the bottom corner
            away from it, so it never covers the player. None: no player (a menu).
    """

    engine: SceneHost
    focus_x_fraction: float | None = None

    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Advance the game by one fixed tick. The only place game state changes."""

    def on_render(self, alpha: float, frame_dt_s: float) -> None:
        """Draw the frame, ``alpha`` of the way from the previous tick's state to the newest."""
