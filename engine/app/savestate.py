"""Savestates: a level's whole simulation captured in memory and restored, any number of times.

A :class:`~engine.app.definition.World` that supports savestates has two more methods,
``capture() -> Savestate`` and ``restore(state)`` (the :class:`Savestates` protocol). The
solver (:mod:`engine.app.solver`) searches a level with them and the practice mode
(:mod:`engine.app.practice`) saves and loads a position with them.

How a world captures itself: *in place*, so that everything referring to its objects (the
scene's sprites, the entities' references to each other and to their bodies) stays valid.

* the physics world (:meth:`engine.physics.world.PhysicsWorld.capture`): which bodies, shapes
  and constraints are in the space, each body's position, angle, velocity, angular velocity,
  force and torque, the render rows and snapshots;
* the entities (:meth:`engine.entities.Entities.capture`): who is alive in which order, and
  each entity's attributes (:meth:`engine.entities.Entity.capture_state`, copied one level
  deep: immutable values and pymunk objects kept, containers and plain objects copied);
* the world's own counters and logs (the game's world adds them: the sample's
  ``LevelWorld.capture`` saves the collected coins, the checkpoint, deaths, ticks, the input
  of the last tick and the event log).

Restoring copies the saved values again, so one savestate can be restored any number of times;
restoring it twice and running the same inputs gives identical state hashes (tested).

pymunk's hidden state: putting the bodies back is not enough, since chipmunk carries state from
one step to the next that pymunk does not expose: the cached arbiters (each contact's
accumulated impulses, the warm start of the next step, and whether a pair is being ignored),
each body's bias velocity (the position correction of the last step, applied in the next) and
each joint's accumulated impulse. :mod:`engine.physics.contact_cache` saves and writes them
back. With them, a continuation from a restored state equals the uninterrupted run bit for
bit in every case measured but one: all six bundled levels from states at every sixth of the
level to the exit after running 120 ticks on, and 40 random restores on levels 3 to 6 followed
for 90 ticks; hypothesis found one (level 5, restored 3 ticks back at tick 493) where a body's
velocity was 1.4e-14 px/s off 48 ticks later (``tests/game/test_savestates.py``).
The one thing not put back is the order of pymunk's tree of moving shapes, which matters only
when a pair of moving shapes first meets after the restore (see that module). (A deep copy of
the world, ``copy.deepcopy`` of the ``pymunk.Space``, was measured first: 10 to 40 ms a
capture, and it diverges at once where a joint or a pushed crate is, since pymunk's pickling
rebuilds joints without their impulses.)

A savestate lives in memory only, is never written to a file and never becomes part of a
replay or a run file: it cannot be used to forge a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["Savestate", "Savestates", "supports_savestates"]


@dataclass(frozen=True, slots=True, eq=False)
class Savestate:
    """One captured moment of a level (opaque: only the world that made it can restore it).

    Attributes:
        ticks: The level's tick count when it was captured.
        payload: The world's own copy of its state.
    """

    ticks: int
    payload: Any


@runtime_checkable
class Savestates(Protocol):
    """A world that can capture and restore itself."""

    def capture(self) -> Savestate:
        """The current state (the world goes on unchanged)."""
        ...

    def restore(self, state: Savestate) -> None:
        """Put the world back to ``state`` (which stays usable for more restores)."""
        ...


def supports_savestates(world: object) -> bool:
    """Whether ``world`` has ``capture`` and ``restore`` (the :class:`Savestates` protocol)."""
    return isinstance(world, Savestates)
