"""The engine's part of a level scene: the input tape, pause, restart and the ghost's lockstep.

A game's level scene (the template's ``level_scene.LevelScene``) subclasses
:class:`PlayScene`. The game supplies its world (``sim``, a
:class:`~engine.app.definition.World`), the level (``level``) and everything drawn; the engine
supplies what happens *around* play, the same for every game:

* **the tape**: each tick, a tape may choose the input (a :class:`~engine.app.replay_run.Recorder`
  passes the live input through and records it with the state hash; a
  :class:`~engine.app.replay_run.Player` feeds a replay's inputs and checks every hash). Once the
  level is completed or the tape has run out, the scene stops ticking the level, so a recording
  ends exactly at the completing tick and the in-game time does not depend on how many ticks the
  last drawn frame happened to run. Replay tick numbers count the level's own ticks.
* **pause and restart**: ``pause`` (Esc, P, Start) freezes the level and opens a menu (resume,
  restart level, options, quit to title); ``restart`` (R) restarts at once. Restarting, options
  and quitting are the session's business: the scene calls ``on_restart`` / ``on_options`` /
  ``on_quit``, and menu items whose callback is not given are left out. Paused ticks are neither
  simulated, recorded nor played back, so the in-game time stops.
* **the ghost** (the personal best, :mod:`engine.app.ghost`) ticks in lockstep with the level.
* **practice** (:mod:`engine.app.practice`): save and load a state, freeze and step one tick,
  slow motion, from the live input, when the tape is a recording or there is none (never
  while a replay plays back). A load puts the world and the ghost back and rewinds the
  recording to the loaded tick (:meth:`PlayScene.load_position`); any use marks the attempt
  (and the session's speedrun) as practice. The HUD's extra lines
  (:meth:`PlayScene.extra_hud_lines`) start with the practice line.
* **scripted input** (tests, demos): ``script(tick)`` replaces the live input.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from engine.app.practice import Practice, SavedPosition
from engine.app.savestate import Savestates, supports_savestates
from engine.input.snapshot import InputSnapshot
from engine.rendering.hud_text import HudLine
from engine.runtime.audio import SoundBank
from engine.runtime.menu import Menu, MenuPanel
from engine.runtime.scene import Scene

if TYPE_CHECKING:
    from engine.app.definition import World
    from engine.levels import Level

__all__ = ["Ghost", "InputScript", "PlayScene", "Tape"]

#: A scripted input source: the tick number in, that tick's input out.
InputScript = Callable[[int], InputSnapshot]


class Tape(Protocol):
    """What a scene asks of its tape: a recorder, a player, or any source of inputs (the title
    screen's attract mode plays inputs without checking them)."""

    @property
    def finished(self) -> bool:
        """No more input: the scene stops ticking."""
        ...

    def input_for(self, tick: int, live: InputSnapshot) -> InputSnapshot:
        """The input of level tick ``tick`` (``live`` is the player's own)."""
        ...

    def after_tick(self, tick: int, snapshot: InputSnapshot, state_hash: str) -> None:
        """Called after the tick with its input and the state hash it ended in."""
        ...


class Ghost(Protocol):
    """What the scene asks of a ghost: its own world, ticked with the level's ticks."""

    @property
    def world(self) -> World:
        """The ghost's own simulation of the level (the game draws its player)."""
        ...

    def tick(self) -> None:
        """Advance one tick, in lockstep with the level."""
        ...

    def capture(self) -> Any:
        """Where the ghost is now (practice saves it with the level), or None."""
        ...

    def restore(self, state: Any) -> None:
        """Put the ghost back where :meth:`capture` found it."""
        ...


class PlayScene(Scene):
    """The machinery of a playable level (see the module docstring).

    Args:
        step_s: Length of one tick; must equal the engine's ``step_s``.
        on_complete: Called once when the player reaches an exit (the game's world calls it,
            inside that tick).
        script: Replaces live input with ``script(tick)`` when given.
        on_restart: Restart the level (the ``restart`` key and the pause menu call it).
        on_quit: Leave the level for the title screen (from the pause menu).
        on_options: Open the options screen (from the pause menu); the level stays paused.
        sounds: Where the events' sounds play.
        hud_extra: Lines drawn at the top right of the HUD each frame (the speedrun timer).
        show_hud: Draw the HUD (off behind a title screen).
        background_color: The colour behind the level.

    Attributes:
        sim: The level's simulation (set by the game's subclass).
        level: The level (set by the game's subclass).
        level_path: The level's map file (set by the game's subclass).
        tape: The recorder or player, or None to play live input.
        ghost: The personal best's ghost, ticked with the level; drawing only.
        paused: The pause menu is open and the level does not tick.
        timeline: The input of every level tick so far, as the timeline now stands (a load
            cuts it back); practice saves keep it to reach their position in a restarted level.
    """

    sim: World
    level: Level
    level_path: Path

    def __init__(
        self,
        *,
        step_s: float,
        on_complete: Callable[[], None] | None = None,
        script: InputScript | None = None,
        on_restart: Callable[[], None] | None = None,
        on_quit: Callable[[], None] | None = None,
        on_options: Callable[[], None] | None = None,
        sounds: SoundBank | None = None,
        hud_extra: Callable[[], Sequence[HudLine]] | None = None,
        show_hud: bool = True,
        background_color: Any = None,
    ) -> None:
        super().__init__(background_color=background_color)
        self.step_s = step_s
        self.on_complete = on_complete
        self.script = script
        self.on_restart = on_restart
        self.on_quit = on_quit
        self.on_options = on_options
        self.sounds = sounds
        self.hud_extra = hud_extra
        self.show_hud = show_hud
        self.paused = False
        self.tape: Tape | None = None
        self.ghost: Ghost | None = None
        #: Practice controls (:mod:`engine.app.practice`); ``practice.on_used`` is the
        #: session's to set (it marks a speedrun as practice).
        self.practice = Practice()
        self.timeline: list[InputSnapshot] = []
        self._start: SavedPosition | None = None
        items = [("resume", "Resume")]
        if on_restart is not None:
            items.append(("restart", "Restart level"))
        if on_options is not None:
            items.append(("options", "Options"))
        if on_quit is not None:
            items.append(("title", "Quit to title"))
        self.pause_menu = Menu.of(*items)
        self.pause_panel = MenuPanel("Paused", (), self.pause_menu, dim_background=True)

    # -- state ---------------------------------------------------------------------------------
    @property
    def completed(self) -> bool:
        """The player has reached an exit."""
        return self.sim.completed

    @property
    def coins_collected(self) -> int:
        """Coins collected so far."""
        return self.sim.coins_collected

    def state_hash(self) -> str:
        """Fingerprint of the level's state (the world's)."""
        return self.sim.state_hash()

    # -- engine callbacks ----------------------------------------------------------------------
    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Handle pause and restart, then advance the level one tick.

        The input is the tape's when there is a tape (the tape then sees the state hash after
        the tick), the script's when there is a script, else the live input. Pause and restart
        come from the live input, before the tape is asked.

        Raises:
            ValueError: A tape and a script at once, or the engine's tick length differs from
                the one the scene was built with.
        """
        if self.handle_pause_and_restart(snapshot):
            return
        tape = self.tape
        practising = tape is None or callable(getattr(tape, "rewind", None))
        keys = getattr(getattr(self, "engine", None), "practice_input", snapshot)
        if practising and self.practice.saved is not None and self.sim.ticks == 0:
            self._start = self._start or self.save_position()  # a carried save replays from here
        if practising and not self.completed and not self.practice.before_tick(keys, self):
            return
        if tape is None:
            if self.script is not None:
                snapshot = self.script(tick)
            self.advance(snapshot)
            return
        if self.completed or tape.finished:
            return
        if self.script is not None:
            raise ValueError("a taped scene takes its input from the tape, not from a script")
        level_tick = self.sim.ticks
        consumed = tape.input_for(level_tick, snapshot)
        self.advance(consumed)
        tape.after_tick(level_tick, consumed, self.state_hash())

    # -- practice ------------------------------------------------------------------------------
    def save_position(self) -> SavedPosition | None:
        """Capture the level, its ghost and the timeline here (None: no savestates)."""
        sim = self.sim
        if not supports_savestates(sim):
            return None
        ghost = self.ghost
        return SavedPosition(
            state=cast(Savestates, sim).capture(),
            owner=weakref.ref(sim),
            inputs=tuple(self.timeline),
            ghost=ghost.capture() if ghost is not None else None,
        )

    def load_position(self, saved: SavedPosition) -> SavedPosition:
        """Go back to ``saved``: the world, the ghost, the timeline and the recording.

        A position this scene's world captured is restored in place. One another world of the
        same level captured (the attempt before a restart) is reached by playing its inputs
        again from this level's start, recorded and hashed like played ticks, and saved again
        here, so the next load is instant.

        Returns:
            The position to keep.
        """
        if saved.belongs_to(self.sim):
            cast(Savestates, self.sim).restore(saved.state)
            if self.ghost is not None and saved.ghost is not None:
                self.ghost.restore(saved.ghost)
            del self.timeline[saved.ticks :]
            rewind = getattr(self.tape, "rewind", None)
            if rewind is not None:
                rewind(saved.ticks)
            return saved
        start = self._start if self._start is not None else self.save_position()
        if start is None or start.ticks != 0:
            return saved  # no way back to this level's start: the save stays as it is
        self.load_position(start)
        tape = self.tape
        for tick, snapshot in enumerate(saved.inputs):
            self.advance(snapshot)
            if tape is not None:
                tape.after_tick(tick, snapshot, self.state_hash())
        return self.save_position() or saved

    def extra_hud_lines(self) -> list[HudLine]:
        """The HUD's extra lines: the practice line (while practice is on), then ``hud_extra``."""
        lines: list[HudLine] = []
        practice = self.practice.hud_line()
        if practice is not None:
            lines.append(practice)
        if self.hud_extra is not None:
            lines.extend(self.hud_extra())
        return lines

    def handle_pause_and_restart(self, live: InputSnapshot) -> bool:
        """Apply the live input's pause and restart keys and the pause menu.

        Returns:
            True when the level must not tick this tick (paused, or left).
        """
        actions = live.action_map
        if self.completed:
            return False
        if self.on_restart is not None and "restart" in actions and live.was_pressed("restart"):
            self.on_restart()
            return True
        if "pause" in actions and live.was_pressed("pause"):
            self.paused = not self.paused
            self.pause_menu.selected = 0
            return True
        if not self.paused:
            return False
        chosen = self.pause_menu.handle(live)
        if chosen == "resume":
            self.paused = False
        elif chosen == "restart" and self.on_restart is not None:
            self.on_restart()
        elif chosen == "title" and self.on_quit is not None:
            self.on_quit()
        elif chosen == "options" and self.on_options is not None:
            self.on_options()  # the level stays paused; coming back shows it as it was
        return True

    def advance(self, snapshot: InputSnapshot) -> None:
        """Run one level tick with ``snapshot`` (no pause handling, no tape, no script).

        Raises:
            ValueError: The engine's tick length differs from the one the scene was built with.
        """
        engine = getattr(self, "engine", None)
        if engine is not None and engine.step_s != self.step_s:
            raise ValueError(
                f"the scene was built for {self.step_s} s ticks but the engine runs "
                f"{engine.step_s} s ticks: build it with the engine's step (for_engine)"
            )
        self.sim.tick(snapshot)
        self.timeline.append(snapshot)
        if self.ghost is not None:
            self.ghost.tick()  # lockstep: one ghost tick per level tick

    def play_sounds(self) -> None:
        """Play the sounds of what happened since the last call (the game's scene knows how).

        A session that leaves the scene right after a tick calls it once more, so the last
        events (the level's completion) are heard even if no frame was drawn in between.
        """

    def draw_pause_menu(self, width_px: int, height_px: int) -> None:
        """Draw the pause menu over the level when paused (the game's render calls it last)."""
        if self.paused:
            self.pause_panel.draw(width_px, height_px)
