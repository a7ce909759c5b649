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
hashes at any speed). Loading restores the world in place and rewinds the attempt's recording
to that tick (:meth:`~engine.app.replay_run.Recorder.rewind`), so the recording always holds
the inputs of the timeline as it now stands.

Using any of these marks the scene's attempt, and in speedrun mode the run, as a **practice
run** (:attr:`Practice.used`): no personal best or gold is saved from it, its run file says
``"practice": true`` and ``--verify-run`` reports it as practice, never as verified. A
savestate lives in memory only; nothing of it is written anywhere, so it cannot forge a run.

The HUD shows a line while practice is on (:meth:`Practice.hud_line`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.app.savestate import Savestate, supports_savestates
from engine.config import PRACTICE_ACTIONS
from engine.input.snapshot import InputSnapshot

__all__ = ["PRACTICE_ACTIONS", "SLOW_MOTION_STEPS", "Practice"]


SLOW_MOTION_STEPS = (1, 2, 4)
"""Slow motion cycles through these: one level tick every N engine ticks."""


class Practice:
    """A level scene's practice controls (see the module docstring).

    Args:
        on_used: Called once, when practice is first used (the session marks the run).

    Attributes:
        saved: The saved state, or None.
        frozen: The level does not tick (``step_tick`` runs one).
        slow: One level tick every ``slow`` engine ticks (1: full speed).
        used: Any practice action changed the run: it is a practice run.
        message: The latest thing practice did, for the HUD.
    """

    def __init__(self, on_used: Callable[[], None] | None = None) -> None:
        self.on_used = on_used
        self.saved: Savestate | None = None
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

    def before_tick(
        self, live: InputSnapshot, world: Any, on_load: Callable[[int], None] | None = None
    ) -> bool:
        """Apply this engine tick's practice keys; whether the level ticks now.

        Args:
            live: The live input (practice keys are always the player's own).
            world: The level's world (saved and loaded with its savestates).
            on_load: Called with the tick a load went back to (the scene rewinds its tape).
        """
        actions = live.action_map

        def pressed(name: str) -> bool:
            return name in actions and live.was_pressed(name)

        if pressed("save_state"):
            if supports_savestates(world):
                self.saved = world.capture()
                self.message = f"saved at tick {world.ticks}"
                self._mark_used()
            else:
                self.message = "this game has no savestates"
        if pressed("load_state") and self.saved is not None:
            world.restore(self.saved)
            self.message = f"loaded tick {self.saved.ticks}"
            self._mark_used()
            if on_load is not None:
                on_load(self.saved.ticks)
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
