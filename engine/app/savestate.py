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

pymunk's contact cache and spatial index: what a capture cannot hold is the inside of the
pymunk space. Its cached arbiters (each contact's accumulated impulses, the warm start of the
next step), a joint's accumulated impulse and the bounding-box trees stay as they are *now*,
not as they were when the state was captured. (``copy.deepcopy`` of a ``pymunk.Space`` is no
way out: pymunk 6.9 does copy the cached arbiters through its pickle state, but not a joint's
accumulated impulse nor the trees, whose order decides the order the solver applies contacts
in; measured, a deep-copied world diverged as much, and a capture took 10 to 40 ms.) So a
continuation from a restored state equals the uninterrupted run bit for bit as long as no
dynamic body is in contact or jointed, and drifts by float rounding where one is (a crate on
the ground, the swing's rope). The figures per bundled level are in ``engine/app/README.md``
("Savestates"). Nothing that must be exact depends on it: the solver plays every replay it
writes from a fresh start and checks it (:mod:`engine.app.solver`), and a practice run is never
a verified run (:mod:`engine.app.practice`).

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
        state_hash: The world's state hash then (a restored world has the same hash).
        payload: The world's own copy of its state.
    """

    ticks: int
    state_hash: str
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
