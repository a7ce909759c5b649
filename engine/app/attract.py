"""Attract mode: the bundled replays playing one after another behind the title screen.

:class:`AttractScene` is a scene that plays the levels' bundled replays in turn, each on its own
level, with the HUD hidden and no sound, and starts the next one when a replay ends. The title
screen shows it as the :class:`~engine.runtime.menu.MenuScene`'s ``backdrop``, dimmed under the
menu, like the demo loop of an arcade cabinet.

A replay is only *played* here, never checked: with tuning changed in ``config.toml`` the player
goes elsewhere than when it was recorded, which is harmless behind a menu (and a tuned game should
re-record its replays: engine/input/README.md, "Replays survive tuning"). A replay that cannot be
read is skipped; with none left, the backdrop is the first level, standing still.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.app.definition import SceneFactory
from engine.app.level_order import bundled_levels
from engine.app.play_scene import PlayScene
from engine.input.replay import ReplayError, ReplayVerifier, load_replay
from engine.input.snapshot import InputPlayer, InputSnapshot
from engine.runtime.scene import Scene

__all__ = ["AttractScene", "InputsOnly"]


class InputsOnly:
    """A tape that plays a replay's inputs and checks nothing (attract mode)."""

    def __init__(self, inputs: InputPlayer) -> None:
        self._inputs = inputs

    @property
    def finished(self) -> bool:
        """Every recorded tick has been played."""
        return self._inputs.finished

    def input_for(self, tick: int, live: InputSnapshot) -> InputSnapshot:
        """The next recorded input (the live input is ignored)."""
        return self._inputs.sample()

    def after_tick(self, tick: int, snapshot: InputSnapshot, state_hash: str) -> None:
        """Nothing to check."""


class AttractScene(Scene):
    """Plays ``replays`` in turn, each on its level from ``levels_dir``, forever.

    Args:
        replays: Replay files, in the order they play.
        levels_dir: Where the replays' levels are (by their level id).
        make_scene: The game's scene factory (its definition's ``make_scene``).
        hold_ticks: Ticks the end of each replay stays on screen before the next starts.

    Attributes:
        current: The level playing, or None before the first tick.
        played: How many replays have started.
    """

    def __init__(
        self,
        replays: Sequence[Path],
        levels_dir: Path,
        make_scene: SceneFactory,
        *,
        hold_ticks: int = 60,
    ) -> None:
        super().__init__()
        self.replays = list(replays)
        self.levels_dir = levels_dir
        self.make_scene = make_scene
        self.hold_ticks = hold_ticks
        self.current: PlayScene | None = None
        self.played = 0
        self._held = 0

    def _next(self) -> None:
        """Start the next readable replay (or show the first level standing still)."""
        for _ in range(len(self.replays)):
            path = self.replays[self.played % len(self.replays)]
            self.played += 1
            try:
                replay = load_replay(path)
                scene = self._scene(self.levels_dir / replay.level_id)
            except (ReplayError, OSError, ValueError):
                continue  # a broken replay or level: skip it
            inputs = ReplayVerifier(replay, source=str(path)).player(self.engine.actions)
            scene.tape = InputsOnly(inputs)
            self._start(scene)
            return
        if self.current is None and self.replays:
            self.replays = []
        if self.current is None:
            levels = bundled_levels(self.levels_dir)
            if levels:
                self._start(self._scene(levels[0]))

    def _scene(self, level_path: Path) -> PlayScene:
        return self.make_scene(self.engine, level_path, show_hud=False)

    def _start(self, scene: PlayScene) -> None:
        scene.engine = self.engine
        self.current = scene
        self.background_color = scene.background_color or (0, 0, 0, 255)  # the level's sky
        self._held = 0
        self.engine.resync()  # loading took a moment: do not simulate it

    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Tick the level playing; after its end (and a short hold) start the next."""
        scene = self.current
        if scene is None:
            self._next()
            return
        tape = scene.tape
        ended = scene.completed or (tape is not None and tape.finished)
        if ended and self.replays:
            self._held += 1
            if self._held >= self.hold_ticks:
                self._next()
            return
        scene.on_tick(tick, snapshot)

    def on_render(self, alpha: float, frame_dt_s: float) -> None:
        """Draw the level playing."""
        if self.current is None:
            self._next()
        assert self.current is not None
        self.current.engine = self.engine
        self.current.on_render(alpha, frame_dt_s)
