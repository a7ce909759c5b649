"""Saving and putting back a pymunk space's contact cache, for savestates.

Chipmunk (pymunk's engine) keeps an *arbiter* per pair of shapes that touched recently: the
contact points with their accumulated impulses (the warm start of the next step, which is why
a stack of crates rests still), whether the pair is being ignored (a one-way platform's
``pre_solve`` said no), and the step it was last used in. Putting bodies back where they were
is not enough to continue a simulation exactly: the arbiters cached *now* (after running on)
would warm-start the next step with the wrong impulses, or keep ignoring a pair that was not
ignored then. pymunk has no call to empty the cache, and its space is opaque to Python, but
each cached arbiter is a C struct whose fields pymunk's cffi declares. So:

* :func:`capture_contacts` copies every cached arbiter (the shape pair, its state, timestamp,
  normal, friction, elasticity, surface velocity and its contacts) and the space's timestamp;
* :func:`restore_contacts` makes every arbiter cached now behave as if it were not there (no
  contacts, *cached*, old: chipmunk treats its next touch as a first collision without a warm
  start, and drops it after ``collision_persistence`` steps otherwise, exactly what a missing
  arbiter does), writes the saved arbiters back (into the live arbiter of the same pair, or a
  new one added to the cache with pymunk's ``cpSpaceAddCachedArbiter``), and sets the
  timestamp back.

Arbiters that were active in the captured step are set to the state chipmunk gives them at the
start of the next step (*normal*), since the space's list of active arbiters cannot be
written. What stays as it is now is the space's bounding-box tree of moving shapes: it decides in
which order (and which shape first) chipmunk finds a pair of moving shapes that starts to
touch, and the solver's results depend on that order by float rounding. So a continuation is
exact as long as no *new* pair of moving shapes meets (or a shape is re-added), which held on
every bundled level at every point measured; in a freshly falling stack of boxes, restored
before the boxes met, it drifts by about 0.01-0.1 px within a second (tests in
``tests/engine/physics/test_contact_cache.py``; figures in ``engine/app/README.md``,
"Savestates").

The same goes for each body's *bias velocity*: the position correction chipmunk's solver
computes in one step and adds to the body's motion in the next (``v_bias``, ``w_bias``).
pymunk does not expose it and ``cpBody`` is opaque to its cffi, so :func:`capture_biases` reads
it from the struct's memory at the offsets of Chipmunk 7's ``cpBody`` layout, after checking
that layout once against a probe body (:func:`body_layout_ok`; if it does not match, biases are
neither read nor written and a continuation is only as close as the rest allows).

And for each joint's solver state (a pin joint's accumulated impulse, its cached normal and
effective mass): :func:`capture_joints` reads the doubles after ``cpConstraint``'s header of
the joints whose Chipmunk 7 layout it knows (pin, pivot and slide joints, checked once against
a probe joint's anchors); other constraints are left as they are.

This uses pymunk's private cffi handles (``space._space``, ``shape._shape``); the project pins
pymunk ``~=6.9.0``, and the savestate tests fail loudly if a pymunk release changes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pymunk
from pymunk._chipmunk import ffi, lib  # type: ignore[import-not-found]

__all__ = [
    "ContactCache",
    "body_layout_ok",
    "capture_biases",
    "capture_contacts",
    "capture_joints",
    "restore_biases",
    "restore_contacts",
    "restore_joints",
]

_CACHED = 3  # CP_ARBITER_STATE_CACHED
_NORMAL = 1  # CP_ARBITER_STATE_NORMAL
_CONTACT_BYTES = ffi.sizeof("struct cpContact")
#: Chipmunk 7's cpBody as doubles: p at 8-9, v at 10-11, angle 14, w 15, v_bias 24-25, w_bias 26.
_P, _V, _ANGLE, _W, _BIAS = 8, 10, 14, 15, 24
_layout_checked: bool | None = None


def body_layout_ok() -> bool:
    """Whether ``cpBody`` has the layout :func:`capture_biases` reads (checked once)."""
    global _layout_checked
    if _layout_checked is None:
        probe = pymunk.Body(2.0, 3.0)
        probe.position = (1.5, 2.5)
        probe.velocity = (7.0, 8.0)
        probe.angle = 0.25
        probe.angular_velocity = 0.5
        raw = ffi.cast("double *", probe._body)
        _layout_checked = (raw[_P], raw[_P + 1], raw[_V], raw[_V + 1], raw[_ANGLE], raw[_W]) == (
            1.5,
            2.5,
            7.0,
            8.0,
            0.25,
            0.5,
        ) and (raw[_BIAS], raw[_BIAS + 1], raw[_BIAS + 2]) == (0.0, 0.0, 0.0)
    return _layout_checked


#: Chipmunk 7 joints as doubles: the header is 13 doubles, then each class's own fields
#: (anchors, then the solver's cached values): how many doubles follow the header.
_JOINT_DOUBLES: dict[type, int] = {
    pymunk.PinJoint: 14,
    pymunk.PivotJoint: 16,
    pymunk.SlideJoint: 15,
}
_HEADER = 13
_joints_checked: bool | None = None


def _joint_layout_ok() -> bool:
    global _joints_checked
    if _joints_checked is None:
        a, b = pymunk.Body(1.0, 1.0), pymunk.Body(1.0, 1.0)
        b.position = (3.0, 4.0)
        probes = [
            (pymunk.PinJoint(a, b, (1.0, 2.0), (5.0, 6.0)), ()),
            (pymunk.PivotJoint(a, b, (1.0, 2.0), (5.0, 6.0)), ()),
            (pymunk.SlideJoint(a, b, (1.0, 2.0), (5.0, 6.0), 7.0, 9.0), (7.0, 9.0)),
        ]
        ok = True
        for joint, extra in probes:
            raw = ffi.cast("double *", joint._constraint)
            found = tuple(raw[_HEADER + i] for i in range(4 + len(extra)))
            ok = ok and found == (1.0, 2.0, 5.0, 6.0, *extra)
        _joints_checked = ok
    return _joints_checked


def capture_joints(constraints: tuple[pymunk.Constraint, ...]) -> tuple[tuple[float, ...], ...]:
    """The solver state of each known joint (empty tuples for others)."""
    if not _joint_layout_ok():
        return ()
    found = []
    for constraint in constraints:
        count = _JOINT_DOUBLES.get(type(constraint), 0)
        raw = ffi.cast("double *", constraint._constraint)
        found.append(tuple(raw[_HEADER + i] for i in range(count)))
    return tuple(found)


def restore_joints(
    constraints: tuple[pymunk.Constraint, ...], saved: tuple[tuple[float, ...], ...]
) -> None:
    """Write back what :func:`capture_joints` read."""
    for constraint, values in zip(constraints, saved, strict=False):
        raw = ffi.cast("double *", constraint._constraint)
        for i, value in enumerate(values):
            raw[_HEADER + i] = value


def capture_biases(bodies: tuple[pymunk.Body, ...]) -> tuple[tuple[float, float, float], ...]:
    """Each body's bias velocity ``(vx, vy, w)`` (zeros when the layout does not match)."""
    if not body_layout_ok():
        return ()
    found = []
    for body in bodies:
        raw = ffi.cast("double *", body._body)
        found.append((raw[_BIAS], raw[_BIAS + 1], raw[_BIAS + 2]))
    return tuple(found)


def restore_biases(
    bodies: tuple[pymunk.Body, ...], biases: tuple[tuple[float, float, float], ...]
) -> None:
    """Write back what :func:`capture_biases` read."""
    for body, (vx, vy, w) in zip(bodies, biases, strict=False):
        raw = ffi.cast("double *", body._body)
        raw[_BIAS], raw[_BIAS + 1], raw[_BIAS + 2] = vx, vy, w


@dataclass(frozen=True, slots=True, eq=False)
class SavedArbiter:
    """One cached arbiter's fields (``contacts`` is memory this object owns)."""

    a: pymunk.Shape
    b: pymunk.Shape
    state: int
    stamp: int
    count: int
    contacts: Any
    normal: tuple[float, float]
    swapped: int
    e: float
    u: float
    surface_vr: tuple[float, float]


@dataclass(frozen=True, slots=True, eq=False)
class ContactCache:
    """A space's contact cache and timestamp, as :func:`capture_contacts` saw them."""

    stamp: int
    arbiters: tuple[SavedArbiter, ...]


def _cached_arbiters(space: pymunk.Space) -> list[Any]:
    found: list[Any] = []
    handle = ffi.new_handle(found)
    lib.cpSpaceEachCachedArbiter(space._space, lib.ext_cpArbiterIteratorFunc, handle)
    return found


def capture_contacts(space: pymunk.Space) -> ContactCache:
    """Copy ``space``'s cached arbiters and timestamp."""
    shape_of = {shape._shape: shape for shape in space.shapes}
    saved = []
    for arbiter in _cached_arbiters(space):
        count = int(arbiter.count)
        contacts = ffi.new("struct cpContact[]", max(count, 1))
        if count:
            ffi.memmove(contacts, arbiter.contacts, count * _CONTACT_BYTES)
        saved.append(
            SavedArbiter(
                a=shape_of[arbiter.a],
                b=shape_of[arbiter.b],
                state=int(arbiter.state),
                stamp=int(arbiter.stamp),
                count=count,
                contacts=contacts,
                normal=(arbiter.n.x, arbiter.n.y),
                swapped=int(arbiter.swapped),
                e=float(arbiter.e),
                u=float(arbiter.u),
                surface_vr=(arbiter.surface_vr.x, arbiter.surface_vr.y),
            )
        )
    return ContactCache(int(lib.cpSpaceGetTimestamp(space._space)), tuple(saved))


def _write(arbiter: Any, saved: SavedArbiter, active: bool) -> None:
    arbiter.state = _NORMAL if active else saved.state
    arbiter.stamp = saved.stamp
    arbiter.count = saved.count
    arbiter.contacts = saved.contacts if saved.count else ffi.NULL
    arbiter.n = saved.normal
    arbiter.swapped = saved.swapped
    arbiter.e = saved.e
    arbiter.u = saved.u
    arbiter.surface_vr = saved.surface_vr


def restore_contacts(space: pymunk.Space, cache: ContactCache) -> None:
    """Make ``space``'s contact cache behave as the captured one (see the module docstring).

    The shapes of ``cache`` must be in the space. Saved contacts are pointed to, not copied:
    keep ``cache`` alive until the space has stepped ``collision_persistence`` times or is
    restored again.
    """
    pointer = space._space
    stamp = cache.stamp
    persistence = int(lib.cpSpaceGetCollisionPersistence(pointer))
    old_stamp = max(0, stamp + 1 - persistence)
    live: dict[tuple[Any, Any], Any] = {}
    for arbiter in _cached_arbiters(space):
        arbiter.state = _CACHED
        arbiter.count = 0
        arbiter.contacts = ffi.NULL
        arbiter.stamp = old_stamp
        live[(arbiter.a, arbiter.b)] = arbiter
        live[(arbiter.b, arbiter.a)] = arbiter
    lib.cpSpaceSetTimestamp(pointer, stamp)
    for saved in cache.arbiters:
        active = saved.stamp == stamp and saved.count > 0
        arbiter = live.get((saved.a._shape, saved.b._shape))
        if arbiter is None:
            arbiter = lib.cpArbiterNew(saved.a._shape, saved.b._shape)
            _write(arbiter, saved, active)
            # pymunk copies the contacts into the space's buffer and frees what it was given
            contacts = lib.cpContactArrAlloc(max(saved.count, 1))
            ffi.memmove(contacts, saved.contacts, saved.count * _CONTACT_BYTES)
            arbiter.contacts = contacts
            lib.cpSpaceAddCachedArbiter(pointer, arbiter)
        else:
            if arbiter.a != saved.a._shape:  # the pair in the other order: swap the sides
                arbiter.a, arbiter.b = arbiter.b, arbiter.a
                arbiter.body_a, arbiter.body_b = arbiter.body_b, arbiter.body_a
                thread_a = ffi.new("struct cpArbiterThread *", arbiter.thread_a)
                arbiter.thread_a = arbiter.thread_b
                arbiter.thread_b = thread_a[0]
            _write(arbiter, saved, active)
