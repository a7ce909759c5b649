"""Practice mode: save and load a position, freeze and step one tick, slow motion.

What runners practise with (Celeste's community tools, practice ROMs), for every game on the
engine whose world has savestates (:mod:`engine.app.savestate`). The keys are ``[input]`` and
``[gamepad]`` actions, rebindable in the options screen like any other, but the engine splits
them off the game's input (``Engine.practice_input``): the game never sees them and replays
never record them.

============== ============ ============== =========================================
action          keyboard     gamepad        what it does
============== ============ ============== =========================================
``save_state``  F5           left stick in  capture the level here (in memory)
``load_state``  F9           right stick in go back to the saved state
``freeze``      F6                          freeze the level / let it run again
``step_tick``   F7                          while frozen: run exactly one tick
``slow_motion`` F8                          full speed -> 1/2 -> 1/4 -> full speed
============== ============ ============== =========================================

Slow motion runs a level tick on every second (or fourth) engine tick, and freezing runs none:
the simulation itself is untouched, a tick is a tick (replays of the same inputs give the same
hashes at any speed). Loading restores the world in place, puts the ghost back where it was at
that tick and rewinds the attempt's recording to that tick
(:meth:`~engine.app.replay_run.Recorder.rewind`), so the recording always holds the inputs of
the timeline as it now stands.

A save outlives a restart of its level: the session hands the same :class:`Practice` to the
restarted scene. A savestate restores only into the world that captured it, so a save also
keeps the inputs that led to it from the level's start (:attr:`SavedPosition.inputs`); the
first load in the new attempt plays them again from the start at full simulation speed (a
deterministic world reaches exactly the same state, ghost and recording included) and saves
there, so every later load is instant. That first load costs one level tick per saved tick
(a tenth of a second for a save 1,000 ticks in, at 10,000 simulated ticks a second).

Using any of these marks the scene's attempt, and in speedrun mode the run, as a **practice
run** (:attr:`Practice.used`): no personal best or gold is saved from it, its run file says
``"practice": true`` and ``--verify-run`` reports it as practice, never as verified. A
savestate lives in memory only; nothing of it is written anywhere, so it cannot forge a run.

The HUD shows a line while practice is on (:meth:`Practice.hud_line`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engine.app.savestate import Savestate
from engine.config import PRACTICE_ACTIONS
from engine.input.snapshot import InputSnapshot

__all__ = ["PRACTICE_ACTIONS", "SLOW_MOTION_STEPS", "Practice", "PracticeTarget", "SavedPosition"]


SLOW_MOTION_STEPS = (1, 2, 4)
"""Slow motion cycles through these: one level tick every N engine ticks."""


@dataclass(frozen=True, slots=True, eq=False)
class SavedPosition:
    """A practice save (made by :meth:`PracticeTarget.save_position`).

    Attributes:
        state: The world's savestate (restores only into ``owner``).
        owner: A weak reference to the world that captured ``state``.
        inputs: The inputs of every level tick from the level's start to the save, so the
            position can be reached again in another world of the same level (a restart).
        ghost: The ghost's capture at that tick (:meth:`engine.app.ghost.Ghost.capture`), or
            None when there is no ghost.
    """

    state: Savestate
    owner: weakref.ref[Any]
    inputs: tuple[InputSnapshot, ...]
    ghost: Any = None

    @property
    def ticks(self) -> int:
        """The level tick the position was saved at."""
        return self.state.ticks

    def belongs_to(self, world: object) -> bool:
        """Whether ``world`` captured this position (and so can restore it in place)."""
        return self.owner() is world


class PracticeTarget(Protocol):
    """What practice asks of a level scene (:class:`~engine.app.play_scene.PlayScene` is one)."""

    def save_position(self) -> SavedPosition | None:
        """Capture the level (and its ghost) here, or None when its world has no savestates."""
        ...

    def load_position(self, saved: SavedPosition) -> SavedPosition:
        """Go back to ``saved``; the position to keep (re-captured when it was another world's)."""
        ...


class Practice:
    """A level scene's practice controls (see the module docstring).

    Args:
        on_used: Called once, when practice is first used (the session marks the run).

    Attributes:
        saved: The saved position, or None.
        frozen: The level does not tick (``step_tick`` runs one).
        slow: One level tick every ``slow`` engine ticks (1: full speed).
        used: Any practice action changed the run: it is a practice run.
        message: The latest thing practice did, for the HUD.
    """

    def __init__(self, on_used: Callable[[], None] | None = None) -> None:
        self.on_used = on_used
        self.saved: SavedPosition | None = None
        self.frozen = False
        self.slow = 1
        self.used = False
        self.message = ""
        self._engine_ticks = 0

    def _mark_used(self) -> None:
        if not self.used:
            self.used = True
            if self.on_used is not None:
                self.on_used()

    def before_tick(self, live: InputSnapshot, target: PracticeTarget) -> bool:
        """Apply this engine tick's practice keys; whether the level ticks now.

        Args:
            live: The live input (practice keys are always the player's own).
            target: The level scene, which saves and loads its positions.
        """
        actions = live.action_map

        def pressed(name: str) -> bool:
            return name in actions and live.was_pressed(name)

        if pressed("save_state"):
            saved = target.save_position()
            if saved is not None:
                self.saved = saved
                self.message = f"saved at tick {saved.ticks}"
                self._mark_used()
            else:
                self.message = "this game has no savestates"
        if pressed("load_state") and self.saved is not None:
            self.saved = target.load_position(self.saved)
            self.message = f"loaded tick {self.saved.ticks}"
            self._mark_used()
        if pressed("slow_motion"):
            index = SLOW_MOTION_STEPS.index(self.slow) if self.slow in SLOW_MOTION_STEPS else 0
            self.slow = SLOW_MOTION_STEPS[(index + 1) % len(SLOW_MOTION_STEPS)]
            if self.slow != 1:
                self._mark_used()
        if pressed("freeze"):
            self.frozen = not self.frozen
            self._mark_used()
        if self.frozen:
            return pressed("step_tick")
        self._engine_ticks += 1
        return self._engine_ticks % self.slow == 0

    def hud_line(self) -> str | None:
        """The HUD's practice line, or None while practice has not been used."""
        if not self.used:
            return None
        parts = ["PRACTICE"]
        if self.frozen:
            parts.append("frozen (step: step_tick)")
        elif self.slow != 1:
            parts.append(f"speed 1/{self.slow}")
        if self.message:
            parts.append(self.message)
        return "  ".join(parts)
