"""Fixed-step physics world with previous/current snapshots for smooth rendering.

The engine advances game state only inside *fixed ticks* (for example 60 per
second). Rendering happens at whatever rate the display runs, so a rendered
frame usually falls *between* two ticks. If we drew bodies exactly where the
last tick left them, motion would judder (some frames repeat a pose, others
skip one). Instead each frame receives ``alpha`` in ``[0, 1]``: how far real
time has advanced from the previous tick towards the current one.

To draw "in between", the world keeps two snapshots per body::

    previous = pose after tick k-1        current = pose after tick k
    drawn    = previous * (1 - alpha) + current * alpha

Snapshots are numpy arrays with one row per registered body, so a whole frame
of poses is a handful of vectorised numpy operations, never a Python loop
over bodies. Each row holds ``(x_px, y_px, angle_rad)``; a third array keeps
``(vx_px_s, vy_px_s, angular_rad_s)`` for the *extrapolation* mode.

Snapshot rules (what :meth:`PhysicsWorld.step` guarantees after every tick):

* ``previous <- current`` and ``current <- the body's pose`` for every row.
  The previous *angle* is then shifted by whole turns so that
  ``current - previous`` lies in ``[-pi, pi)``: same orientation, and a plain
  lerp now turns along the shortest arc.
* A body added at any time is seeded with ``previous == current == spawn pose``,
  so it never streaks in from the origin. If it is added after the space was
  stepped in a tick (a post-step callback, or a collision callback, where
  pymunk defers the add until the step ends), it is drawn exactly at its spawn
  pose for every alpha until the next tick.
* A removed body loses its row immediately: it disappears from the very tick
  (and the very next frame) in which it was removed.
* :meth:`PhysicsWorld.teleport` sets ``previous = current = new pose``, so a
  teleport is a cut, not a fast slide across the level.

Row order: rows follow the *registration order* of bodies (and therefore of
their sprites). Removing a body compacts the arrays *stably*: every later row
moves up by one, keeping the relative order of the survivors. That costs
O(n) per removal (a block copy plus re-indexing), which is fine for the
occasional despawn and keeps row ``i`` meaning "the i-th registered live
body" for renderers, replays and hashing alike.

How a tick reads the bodies (the snapshot): one ``pymunk.batch.get_space_bodies`` call copies
id, position, angle, velocity and angular velocity of *every* body in the space into a reused
buffer, in C, without a Python call per body. That buffer follows the space's own order, not
ours: it also holds bodies nobody registered (the space's static body, walls, kinematic bodies
added with ``space.add``), and the space reorders bodies when one is removed (the last one takes
its place), when bodies fall asleep or wake up. So the world matches buffer rows to its rows by
``body.id``: it keeps the registered ids in a numpy array in row order, and whenever the
buffer's id column differs from the previous tick's (or a body was added or removed) it
rebuilds the "row -> buffer row" index with ``argsort`` and ``searchsorted``. Most ticks the
column is unchanged and the index is reused; when the registered bodies sit in one unbroken
run of the buffer (the usual case) the index is a slice, and the rows are copied without a
gather. A registered body that is no longer in the space (removed with ``space.remove``
instead of :meth:`PhysicsWorld.remove`) is read with pymunk's per-body getters instead, as
before.

What game code may read:

* **Bodies** (``body.position``, ``body.velocity`` ...) are the truth for game
  logic: they are only changed inside ticks.
* **Sprites** (or whatever object was registered with a body) are for drawing
  only. The render path writes interpolated poses into them; logic must not
  depend on those values (see ``engine.rendering.sprite_sync`` for the precise rule).
* The snapshot arrays (:attr:`PhysicsWorld.previous`, :attr:`PhysicsWorld.current`,
  :attr:`PhysicsWorld.velocity`) are exposed as read-only views.

This module imports pymunk and numpy only; it knows nothing about arcade.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pymunk
import pymunk.batch

from engine.physics.contact_cache import (
    ContactCache,
    capture_biases,
    capture_contacts,
    capture_joints,
    restore_biases,
    restore_contacts,
    restore_joints,
)

PoseMode = Literal["interpolate", "extrapolate"]

_TAU_RAD = 2.0 * math.pi
_INITIAL_CAPACITY_ROWS = 64
#: What the snapshot reads per body. The float columns come out in this order:
#: ``x_px, y_px, angle_rad, vx_px_s, vy_px_s, angular_rad_s`` (the int column holds the id).
_BATCH_FIELDS = (
    pymunk.batch.BodyFields.BODY_ID
    | pymunk.batch.BodyFields.POSITION
    | pymunk.batch.BodyFields.ANGLE
    | pymunk.batch.BodyFields.VELOCITY
    | pymunk.batch.BodyFields.ANGULAR_VELOCITY
)
_STATE_COLUMNS = 6
_ID_DTYPE = np.uintp  # pymunk's body ids are uintptr_t


def _read_body_states(bodies: Sequence[pymunk.Body]) -> np.ndarray:
    """Read pose and velocity of ``bodies`` one by one into an ``(n, 6)`` float64 array.

    Columns: ``x_px, y_px, angle_rad, vx_px_s, vy_px_s, angular_rad_s``, the same
    values (bit for bit) as the bulk snapshot reads. Four cffi getters per body
    (about 2 us): used for single bodies (:meth:`PhysicsWorld.add`,
    :meth:`PhysicsWorld.teleport`) and for registered bodies missing from the
    space, never for every body every tick.

    Args:
        bodies: Bodies in row order.

    Returns:
        A new ``(len(bodies), 6)`` array.
    """
    states = np.empty((len(bodies), 6), dtype=np.float64)
    for row, body in enumerate(bodies):
        position = body.position
        velocity = body.velocity
        states[row] = (
            position.x,
            position.y,
            body.angle,
            velocity.x,
            velocity.y,
            body.angular_velocity,
        )
    return states


@dataclass(frozen=True, slots=True)
class _RowMap:
    """Where the world's rows are in a batch buffer with a given id column.

    Attributes:
        batch_id_bytes: The raw bytes of the buffer's id column this map was built for
            (comparing bytes is the cheapest test for "same bodies in the same order").
        batch_rows: For world rows ``0..n-1`` found in the buffer, in order, their buffer
            rows: a slice when they form one unbroken ascending run, else an index array.
        world_rows: Which world rows ``batch_rows`` fills: ``slice(0, n)`` when every
            registered body is in the space, else an index array.
        missing_rows: World rows whose body is not in the space (read one by one).
    """

    batch_id_bytes: bytes
    batch_rows: slice | np.ndarray
    world_rows: slice | np.ndarray
    missing_rows: tuple[int, ...]


def _map_rows(world_ids: np.ndarray, batch_id_bytes: bytes) -> _RowMap:
    """Match registered ids (row order) to a batch buffer's id column.

    Args:
        world_ids: ``body.id`` of each registered body, in row order.
        batch_id_bytes: The id column of the batch buffer (the space's order), as bytes.

    Returns:
        The map; numpy only (``argsort`` + ``searchsorted``), no loop over bodies.
    """
    n = len(world_ids)
    batch_ids = np.frombuffer(batch_id_bytes, dtype=_ID_DTYPE)
    order = np.argsort(batch_ids, kind="stable")
    sorted_ids = batch_ids[order]
    found_at = np.searchsorted(sorted_ids, world_ids)
    found = found_at < len(sorted_ids)
    found[found] = sorted_ids[found_at[found]] == world_ids[found]
    batch_rows = order[found_at[found]]
    if found.all():
        world_rows: slice | np.ndarray = slice(0, n)
        missing: tuple[int, ...] = ()
    else:
        world_rows = np.flatnonzero(found)
        missing = tuple(np.flatnonzero(~found).tolist())
    run: slice | np.ndarray = batch_rows
    if len(batch_rows) and np.array_equal(
        batch_rows, np.arange(batch_rows[0], batch_rows[0] + len(batch_rows))
    ):
        run = slice(int(batch_rows[0]), int(batch_rows[0]) + len(batch_rows))
    return _RowMap(batch_id_bytes, run, world_rows, missing)


def _read_only(array: np.ndarray) -> np.ndarray:
    """Return a read-only view of ``array`` (the original stays writable)."""
    view = array.view()
    view.flags.writeable = False
    return view


@dataclass(frozen=True, slots=True, eq=False)
class PhysicsState:
    """A :meth:`PhysicsWorld.capture`: the space's members and motion, the rows, the counters.

    ``shape_properties`` holds what game code changes on a shape during play: ``sensor``,
    ``collision_type``, ``filter``, ``friction``, ``elasticity``, ``surface_velocity``.

    ``motion`` has one row per body of the space (``bodies`` order): ``x_px, y_px, angle_rad,
    vx_px_s, vy_px_s, angular_rad_s, fx, fy, torque``.
    """

    bodies: tuple[pymunk.Body, ...]
    shapes: tuple[pymunk.Shape, ...]
    shape_properties: tuple[tuple[object, ...], ...]
    constraints: tuple[pymunk.Constraint, ...]
    motion: np.ndarray
    rows: tuple[tuple[pymunk.Body, ...], tuple[tuple[pymunk.Shape, ...], ...], tuple[object, ...]]
    handles: tuple[int, ...]
    snapshots: np.ndarray
    counters: tuple[int, float, int]
    contacts: ContactCache
    biases: tuple[tuple[float, float, float], ...]
    joints: tuple[tuple[float, ...], ...]


class PhysicsWorld:
    """One pymunk space stepped at a fixed rate, plus render snapshots.

    Typical engine loop::

        world = PhysicsWorld(gravity_px_s2=(0.0, -900.0))
        handle = world.add(body, shape, sprite=player_sprite)
        # inside each fixed tick (never from render):
        world.step(1 / 60)
        # each rendered frame:
        poses = world.interpolated_poses(alpha)   # (n, 3) x_px, y_px, angle_rad

    Attributes:
        space: The wrapped ``pymunk.Space``. Game code may configure it
            (collision handlers, static geometry), but bodies that should be
            drawn must be registered through :meth:`add` / :meth:`remove`.
        substeps: How many equal ``space.step`` calls make up one tick.
    """

    def __init__(
        self,
        gravity_px_s2: tuple[float, float],
        *,
        substeps: int = 1,
        iterations: int = 10,
    ) -> None:
        """Create the world.

        Args:
            gravity_px_s2: Gravity in pixels per second squared, e.g.
                ``(0.0, -900.0)`` for "down" in arcade's y-up coordinates.
            substeps: Number of equal sub-steps per tick. More sub-steps make
                fast collisions and stacks more stable at proportional cost.
            iterations: pymunk solver iterations per (sub)step.

        Raises:
            ValueError: If ``substeps`` or ``iterations`` is smaller than 1.
        """
        if substeps < 1:
            raise ValueError(f"substeps must be >= 1, got {substeps}")
        if iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        self.space = pymunk.Space()
        self.space.gravity = gravity_px_s2
        self.space.iterations = iterations
        self.substeps = substeps

        self._tick_count = 0
        self._last_dt_s = 0.0
        self._membership_version = 0
        self._next_handle = 0
        self._count = 0

        # Row-ordered Python-side bookkeeping (same order as the numpy rows).
        self._bodies: list[pymunk.Body] = []
        self._shapes: list[tuple[pymunk.Shape, ...]] = []
        self._sprites: list[object | None] = []
        self._handles: list[int] = []
        self._row_of: dict[pymunk.Body, int] = {}

        # Numpy storage with spare capacity; only the first ``_count`` rows are live.
        self._previous = np.zeros((_INITIAL_CAPACITY_ROWS, 3), dtype=np.float64)
        self._current = np.zeros((_INITIAL_CAPACITY_ROWS, 3), dtype=np.float64)
        self._velocity = np.zeros((_INITIAL_CAPACITY_ROWS, 3), dtype=np.float64)
        self._ids = np.zeros(_INITIAL_CAPACITY_ROWS, dtype=_ID_DTYPE)  # body.id per row

        # The bulk snapshot: one reused pymunk buffer, and the row map built for it.
        self._batch = pymunk.batch.Buffer()
        self._row_map: _RowMap | None = None
        self._row_map_version = -1  # the membership_version the row map was built for

    # -------------------------------------------------------------- savestates

    def capture(self) -> PhysicsState:
        """Everything that changes in the space and the rows, for a savestate (in memory).

        Which bodies, shapes and constraints are in the space (by identity), every body's
        position, angle, velocity, angular velocity, force and torque, and the rows with their
        snapshots and counters. The bodies stay the same objects: :meth:`restore` puts them
        back into this state in place, so whatever refers to them (entities, sprites) stays
        valid. What it cannot put back is the space's contact cache and spatial index as they
        were (see :mod:`engine.app.savestate`).
        """
        space = self.space
        bodies = tuple(space.bodies)
        shapes = tuple(space.shapes)
        constraints = tuple(space.constraints)
        motion = np.array(
            [
                (
                    *body.position,
                    body.angle,
                    *body.velocity,
                    body.angular_velocity,
                    *body.force,
                    body.torque,
                )
                for body in bodies
            ],
            dtype=np.float64,
        ).reshape(len(bodies), 9)
        n = self._count
        return PhysicsState(
            bodies=bodies,
            shapes=shapes,
            shape_properties=tuple(
                (
                    shape.sensor,
                    shape.collision_type,
                    shape.filter,
                    shape.friction,
                    shape.elasticity,
                    tuple(shape.surface_velocity),
                )
                for shape in shapes
            ),
            constraints=constraints,
            motion=motion,
            rows=(tuple(self._bodies), tuple(self._shapes), tuple(self._sprites)),
            handles=tuple(self._handles),
            snapshots=np.stack((self._previous[:n], self._current[:n], self._velocity[:n])),
            counters=(self._tick_count, self._last_dt_s, self._next_handle),
            contacts=capture_contacts(space),
            biases=capture_biases(bodies),
            joints=capture_joints(constraints),
        )

    def restore(self, state: PhysicsState) -> None:
        """Put the space and the rows back to a :meth:`capture` (the state stays reusable)."""
        space = self.space
        gone_shapes = set(space.shapes) - set(state.shapes)
        gone_constraints = set(space.constraints) - set(state.constraints)
        gone_bodies = set(space.bodies) - set(state.bodies)
        if gone_constraints:
            space.remove(*gone_constraints)
        if gone_shapes:
            space.remove(*gone_shapes)
        if gone_bodies:
            space.remove(*gone_bodies)
        now_bodies = set(space.bodies)
        back = [body for body in state.bodies if body not in now_bodies]
        if back:
            space.add(*back)
        now_shapes = set(space.shapes)
        back_shapes = [shape for shape in state.shapes if shape not in now_shapes]
        if back_shapes:
            space.add(*back_shapes)
        now_constraints = set(space.constraints)
        back_constraints = [c for c in state.constraints if c not in now_constraints]
        if back_constraints:
            space.add(*back_constraints)
        for shape, properties in zip(state.shapes, state.shape_properties, strict=True):
            sensor, kind, shape_filter, friction, elasticity, surface_velocity = properties
            if shape.sensor != sensor:
                shape.sensor = sensor
            if shape.collision_type != kind:
                shape.collision_type = kind
            if shape.filter != shape_filter:
                shape.filter = shape_filter
            shape.friction = friction
            shape.elasticity = elasticity
            shape.surface_velocity = surface_velocity
        for body, row in zip(state.bodies, state.motion.tolist(), strict=True):
            body.position = (row[0], row[1])
            body.angle = row[2]
            body.velocity = (row[3], row[4])
            body.angular_velocity = row[5]
            body.force = (row[6], row[7])
            body.torque = row[8]
        restore_contacts(space, state.contacts)
        restore_biases(state.bodies, state.biases)
        restore_joints(state.constraints, state.joints)
        self._contacts_in_use = state.contacts  # restored arbiters point to its contacts
        # The shapes' bounding boxes and the spatial index follow the bodies now (queries made
        # before the next step, such as the player's contact probes, read them).
        reindexed: set[pymunk.Body] = set()
        for shape in state.shapes:
            body = shape.body
            if body is not None and body not in reindexed:
                reindexed.add(body)
                space.reindex_shapes_for_body(body)
        bodies, shapes, sprites = state.rows
        n = len(bodies)
        while len(self._current) < n:
            self._grow()
        self._bodies = list(bodies)
        self._shapes = list(shapes)
        self._sprites = list(sprites)
        self._handles = list(state.handles)
        self._row_of = {body: row for row, body in enumerate(bodies)}
        self._count = n
        self._previous[:n], self._current[:n], self._velocity[:n] = state.snapshots
        self._ids[:n] = [body.id for body in bodies]
        self._tick_count, self._last_dt_s, self._next_handle = state.counters
        self._membership_version += 1  # the row map is built again on the next read

    # ------------------------------------------------------------------ queries

    def __len__(self) -> int:
        """Number of registered bodies (= live rows)."""
        return self._count

    def __contains__(self, body: object) -> bool:
        """Whether ``body`` is registered with this world."""
        return body in self._row_of

    @property
    def tick_count(self) -> int:
        """How many times :meth:`step` has run."""
        return self._tick_count

    @property
    def last_dt_s(self) -> float:
        """The ``dt_s`` of the latest :meth:`step` (0.0 before the first tick)."""
        return self._last_dt_s

    @property
    def membership_version(self) -> int:
        """Counter bumped on every add/remove, so caches keyed on rows can refresh."""
        return self._membership_version

    @property
    def bodies(self) -> tuple[pymunk.Body, ...]:
        """Registered bodies in row order."""
        return tuple(self._bodies)

    @property
    def sprites(self) -> tuple[object | None, ...]:
        """The object drawn for each row (``None`` if none was given), in row order."""
        return tuple(self._sprites)

    @property
    def handles(self) -> np.ndarray:
        """Handles returned by :meth:`add`, in row order (int64, a new array)."""
        return np.array(self._handles, dtype=np.int64)

    @property
    def previous(self) -> np.ndarray:
        """Read-only ``(n, 3)`` view: pose after the previous tick.

        The angle column is stored shifted by whole turns (``2 * pi * k``) so
        that ``current - previous`` is in ``[-pi, pi)``: the same orientation,
        chosen so a plain lerp follows the shortest arc.
        """
        return _read_only(self._previous[: self._count])

    @property
    def current(self) -> np.ndarray:
        """Read-only ``(n, 3)`` view: pose after the latest tick."""
        return _read_only(self._current[: self._count])

    @property
    def velocity(self) -> np.ndarray:
        """Read-only ``(n, 3)`` view: ``(vx_px_s, vy_px_s, angular_rad_s)`` at the latest tick."""
        return _read_only(self._velocity[: self._count])

    def row_of(self, body: pymunk.Body) -> int:
        """Return the current row index of ``body`` (rows shift on removals).

        Raises:
            KeyError: If ``body`` is not registered.
        """
        return self._row_of[body]

    # ------------------------------------------------------------- membership

    def add(self, body: pymunk.Body, *shapes: pymunk.Shape, sprite: object | None = None) -> int:
        """Add ``body`` and its ``shapes`` to the space and give it a snapshot row.

        The row is appended (registration order) and seeded with
        ``previous == current == the body's pose now``, so it never streaks in
        from the origin. Safe to call inside pymunk callbacks: pymunk defers the
        space insertion until the running step finishes.

        Args:
            body: The body to simulate. Set its position/angle before adding.
            *shapes: Shapes attached to ``body`` that should collide.
            sprite: The object that draws this body (an ``arcade.Sprite`` for
                the arcade renderer), or ``None`` for invisible bodies.

        Returns:
            A handle: an int unique within this world, never reused.

        Raises:
            ValueError: If ``body`` is already registered.
        """
        if body in self._row_of:
            raise ValueError("body is already registered with this PhysicsWorld")
        if self._count == len(self._current):
            self._grow()
        self.space.add(body, *shapes)

        row = self._count
        state = _read_body_states([body])[0]
        self._previous[row] = state[:3]
        self._current[row] = state[:3]
        self._velocity[row] = state[3:]

        self._ids[row] = body.id

        handle = self._next_handle
        self._next_handle += 1
        self._bodies.append(body)
        self._shapes.append(shapes)
        self._sprites.append(sprite)
        self._handles.append(handle)
        self._row_of[body] = row
        self._count += 1
        self._membership_version += 1
        return handle

    def remove(self, body: pymunk.Body) -> None:
        """Remove ``body`` (and the shapes it was added with) and drop its row.

        Rows below it move up by one (stable compaction), so the remaining
        rows keep their registration order. The body vanishes from
        :meth:`interpolated_poses` immediately.

        Args:
            body: A registered body.

        Raises:
            KeyError: If ``body`` is not registered.
        """
        row = self._row_of.pop(body)
        self.space.remove(body, *self._shapes[row])
        last = self._count
        for array in (self._previous, self._current, self._velocity, self._ids):
            array[row : last - 1] = array[row + 1 : last]
        del self._bodies[row]
        del self._shapes[row]
        del self._sprites[row]
        del self._handles[row]
        self._count -= 1
        for shifted_row in range(row, self._count):
            self._row_of[self._bodies[shifted_row]] = shifted_row
        self._membership_version += 1

    def teleport(
        self, body: pymunk.Body, x_px: float, y_px: float, angle_rad: float | None = None
    ) -> None:
        """Move ``body`` instantly and reset its interpolation (no streak).

        Velocity is left unchanged; zero it yourself if the teleport should
        also stop the body.

        Args:
            body: A registered body.
            x_px: New x position in pixels.
            y_px: New y position in pixels.
            angle_rad: New angle in radians (counter-clockwise), or ``None`` to
                keep the current angle.

        Raises:
            KeyError: If ``body`` is not registered.
        """
        row = self._row_of[body]
        body.position = (x_px, y_px)
        if angle_rad is not None:
            body.angle = angle_rad
        if body.body_type == pymunk.Body.STATIC:
            self.space.reindex_shapes_for_body(body)
        state = _read_body_states([body])[0]
        self._previous[row] = state[:3]
        self._current[row] = state[:3]
        self._velocity[row] = state[3:]

    def _grow(self) -> None:
        """Double the row capacity of the snapshot arrays (and of the id column)."""
        new_capacity = 2 * len(self._current)
        for name in ("_previous", "_current", "_velocity", "_ids"):
            old = getattr(self, name)
            grown = np.zeros((new_capacity, *old.shape[1:]), dtype=old.dtype)
            grown[: len(old)] = old
            setattr(self, name, grown)

    # ------------------------------------------------------------------- tick

    def step(self, dt_s: float) -> None:
        """Advance the simulation by one fixed tick, then snapshot all rows.

        Call this exactly once per fixed tick, with the fixed step, from the
        engine's tick loop. **Never call it from render code**: rendering reads
        snapshots via :meth:`interpolated_poses` and must not advance time.

        Args:
            dt_s: The fixed step in seconds (e.g. ``1 / 60``). It is split into
                :attr:`substeps` equal ``space.step`` calls.

        Raises:
            ValueError: If ``dt_s`` is not positive and finite.
        """
        if not (dt_s > 0.0 and math.isfinite(dt_s)):
            raise ValueError(f"dt_s must be positive and finite, got {dt_s}")
        substep_s = dt_s / self.substeps
        for _ in range(self.substeps):
            self.space.step(substep_s)
        self._tick_count += 1
        self._last_dt_s = dt_s

        n = self._count
        states = self._read_states()
        previous = self._previous[:n]
        previous[:] = self._current[:n]
        self._current[:n] = states[:, :3]
        self._velocity[:n] = states[:, 3:]
        # Shortest arc, decided once per tick instead of once per frame: shift
        # each previous angle by whole turns so that current - previous lies
        # in [-pi, pi). The shift is exactly 0.0 for almost every row (pymunk
        # angles are continuous); it matters after an angle is set by hand.
        # In place, to allocate nothing: shift = floor((delta + pi) / tau) * tau.
        shift_rad = self._current[:n, 2] - previous[:, 2]
        shift_rad += math.pi
        shift_rad /= _TAU_RAD
        np.floor(shift_rad, out=shift_rad)
        shift_rad *= _TAU_RAD
        previous[:, 2] += shift_rad

    def _read_states(self) -> np.ndarray:
        """Read every registered body's pose and velocity in bulk, in row order.

        One ``pymunk.batch.get_space_bodies`` call fills the reused buffer with
        every body of the space (see the module docstring for how buffer rows
        are matched to world rows by ``body.id``).

        Returns:
            ``(n, 6)`` float64 ``x_px, y_px, angle_rad, vx_px_s, vy_px_s,
            angular_rad_s``. Usually a *view* of pymunk's buffer: copy it before
            the next read, which may reallocate that memory.
        """
        buffer = self._batch
        buffer.clear()
        pymunk.batch.get_space_bodies(self.space, _BATCH_FIELDS, buffer)
        batch_id_bytes = buffer.int_buf()[:]
        floats = np.frombuffer(buffer.float_buf(), dtype=np.float64)
        floats = floats.reshape(-1, _STATE_COLUMNS)
        row_map = self._row_map
        if (
            row_map is None
            or self._row_map_version != self._membership_version
            or batch_id_bytes != row_map.batch_id_bytes
        ):
            row_map = _map_rows(self._ids[: self._count], batch_id_bytes)
            self._row_map = row_map
            self._row_map_version = self._membership_version
        batch_rows = row_map.batch_rows
        if not row_map.missing_rows:
            if isinstance(batch_rows, slice):
                return floats[batch_rows]  # a view: no gather
            return np.take(floats, batch_rows, axis=0)
        # Some registered bodies are not in the space: read those one by one.
        states = np.empty((self._count, _STATE_COLUMNS), dtype=np.float64)
        states[row_map.world_rows] = floats[batch_rows]
        missing = list(row_map.missing_rows)
        states[missing] = _read_body_states([self._bodies[row] for row in missing])
        return states

    # ----------------------------------------------------------------- render

    def interpolated_poses(self, alpha: float, mode: PoseMode = "interpolate") -> np.ndarray:
        """Poses to draw this frame, one row per body: ``(x_px, y_px, angle_rad)``.

        Pure numpy over all rows (no per-body Python loop) and read-only: it
        returns a new array and changes nothing in the world.

        Modes:

        * ``"interpolate"`` (default): ``previous * (1 - alpha) + current * alpha``
          for positions and angles. Angles follow the *shortest arc*: at every
          tick :meth:`step` stores the previous angle shifted by whole turns so
          that ``current - previous`` lies in ``[-pi, pi)`` (so a body turning
          from +179 deg to -179 deg rotates 2 deg, not 358); the per-frame work
          stays a plain weighted sum. ``alpha == 0`` returns :attr:`previous`
          and ``alpha == 1`` returns :attr:`current`, bit for bit.
          Always correct, but shows the world one tick late (up to one fixed
          step of added latency).
        * ``"extrapolate"``: ``current + velocity * alpha * last_dt_s``
          (deWiTTERS' prediction). No added latency, but it guesses: when a
          body stops, lands or bounces, the prediction overshoots for a frame
          and then snaps back (visible jitter against walls and floors).

        Args:
            alpha: Fraction of the fixed step elapsed since the latest tick, in
                ``[0, 1]``.
            mode: ``"interpolate"`` or ``"extrapolate"``.

        Returns:
            A new ``(n, 3)`` float64 array in row (registration) order.

        Raises:
            ValueError: If ``alpha`` is outside ``[0, 1]`` or ``mode`` is unknown.
        """
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha}")
        n = self._count
        previous = self._previous[:n]
        current = self._current[:n]
        if mode == "interpolate":
            # Written as a weighted sum (not previous + (current - previous) * alpha)
            # so alpha == 0 and alpha == 1 reproduce the snapshots bit for bit.
            poses = previous * (1.0 - alpha)
            poses += current * alpha
            return poses
        if mode == "extrapolate":
            poses = self._velocity[:n] * (alpha * self._last_dt_s)
            poses += current
            return poses
        raise ValueError(f"mode must be 'interpolate' or 'extrapolate', got {mode!r}")

    # ------------------------------------------------------------ verification

    def state_hash(self) -> str:
        """A deterministic fingerprint of the simulation state, as the snapshot holds it.

        It reads no body: it hashes what the latest snapshot read. Precisely,
        blake2b (128 bit) over these bytes, in this order (native byte order,
        C order, rows in row order):

        1. the tick count and the number of rows (two int64);
        2. the handles (int64 per row);
        3. the body state per row, ``x_px, y_px, angle_rad, vx_px_s, vy_px_s,
           angular_rad_s`` (six float64): :attr:`current` and :attr:`velocity`
           side by side;
        4. :attr:`previous`, :attr:`current`, :attr:`velocity` (three float64
           per row each).

        The snapshot is taken by every :meth:`step` (after the space has
        stepped), by :meth:`add` for the new row and by :meth:`teleport` for
        its row. A change made to a body directly (``body.velocity = ...``)
        after that shows in the hash from the next :meth:`step` on, when it has
        changed the simulation; a change made through :meth:`teleport` shows at
        once. Part 3 is the same bytes earlier versions read from the live
        bodies, so the digest is unchanged wherever the live bodies equal the
        snapshot (the replays in ``levels/replays`` still verify).

        Two runs fed the same inputs produce the same string; comparing the
        hash before and after rendering proves rendering did not touch the
        snapshot. It is also the checksum for replay verification.

        Returns:
            A 32-character hex digest.
        """
        n = self._count
        digest = hashlib.blake2b(digest_size=16)
        digest.update(np.array([self._tick_count, n], dtype=np.int64).tobytes())
        digest.update(np.array(self._handles, dtype=np.int64).tobytes())
        digest.update(np.concatenate((self._current[:n], self._velocity[:n]), axis=1).tobytes())
        for array in (self._previous, self._current, self._velocity):
            digest.update(np.ascontiguousarray(array[:n]).tobytes())
        return digest.hexdigest()
