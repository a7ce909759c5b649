"""Bulk-write interpolated physics poses into an ``arcade.SpriteList`` (the arcade edge).

Why bulk: setting ``sprite.position = (x, y)`` costs about a microsecond per
sprite (property call, hit-box update, spatial-hash hook, a Python loop over
the sprite's lists). For 10,000 sprites that is ~9 ms of every frame. A
SpriteList, however, keeps *one* CPU-side float32 array with a 4-float record
per sprite, which it uploads to the GPU when drawing. Writing that array with
numpy in one vectorised assignment costs a few dozen microseconds.

How arcade 3.3 stores sprite data (``arcade/sprite_list/sprite_list.py``):

* ``SpriteList._sprite_pos_angle_data`` -- ``array.array("f")``, 4 floats per
  *buffer slot*: ``x_px, y_px, depth, angle_deg`` (the angle is degrees,
  clockwise, consumed as-is by the sprite geometry shader).
* ``SpriteList.sprite_slot`` -- ``dict[sprite, int]``: each sprite's buffer
  slot. Slots are *not* list indices: a removed sprite's slot is recycled by
  the next append; drawing order lives in a separate index buffer.
* ``SpriteList._sprite_pos_angle_changed`` -- dirty flag; ``draw()`` re-uploads
  the whole array when it is set, then clears it.

:class:`SpriteSync` maps physics-world rows to those slots (an index array
rebuilt only when membership changes), takes a temporary numpy view of the
array, writes ``x, y`` and ``angle_deg = -degrees(angle_rad)`` (pymunk is
radians counter-clockwise, arcade is degrees clockwise) and sets the dirty
flag. Depth, size, colour and texture are left alone. The numpy view is
dropped before returning, because ``array.array`` refuses to grow (append
more sprites) while a buffer view on it is alive.

Membership changes must be visible, since slots get recycled: use
:class:`TrackedSpriteList`, a SpriteList that counts appends/inserts/
removes/pops/clears. The slot map is rebuilt when that counter or the world's
:attr:`~engine.physics.world.PhysicsWorld.membership_version` changes.

The logical-state rule (what game code may read from a sprite):

* **Rendering never changes a sprite's logical state.** :meth:`SpriteSync.write`
  only changes what is *drawn*; ``sprite.position``, ``sprite.angle``, the hit
  box and any spatial hash keep their values.
* A sprite opted in with :meth:`SpriteSync.track_logical` has
  ``sprite.position`` / ``sprite.angle`` equal to its body's pose **at the
  latest tick**: the engine calls :meth:`SpriteSync.sync_logical` once per tick,
  right after ``world.step()``, which uses arcade's normal setters (so hit
  boxes and arcade collision helpers see the tick pose). Opt in only the few
  sprites whose game code needs it (e.g. the player checked against coins);
  setters cost ~1 us each, too much for every sprite every tick.
* For every other physics sprite, game code must read the *body*
  (``body.position``), never the sprite.

Call :meth:`SpriteSync.write` in ``on_draw`` right before ``sprite_list.draw()``:
any logical setter call in between (e.g. ``sync_logical``) writes the logical
pose into the same slot, and the next ``write`` replaces it again.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from typing import Any

import arcade
import numpy as np
from arcade import SpriteType

from engine.physics.world import PhysicsWorld, PoseMode

#: The arcade version whose SpriteList internals this module was written against.
TESTED_ARCADE_VERSION = "3.3.3"

_RAD_TO_ARCADE_DEG = -180.0 / math.pi
_FLOATS_PER_SLOT = 4  # x_px, y_px, depth, angle_deg
_X, _Y, _ANGLE = 0, 1, 3


class ArcadeInternalsError(RuntimeError):
    """The installed arcade no longer stores sprite data the way this module expects."""


def _internals_error(detail: str) -> ArcadeInternalsError:
    return ArcadeInternalsError(
        f"engine.rendering.sprite_sync relies on arcade {TESTED_ARCADE_VERSION} SpriteList internals, "
        f"but the installed arcade {arcade.version.VERSION} differs: {detail}. "
        "Re-read arcade/sprite_list/sprite_list.py and update engine/rendering/sprite_sync.py."
    )


def _check_arcade_class() -> None:
    """Import-time check: the SpriteList hooks we mirror must still exist."""
    for name in ("_update_position", "_update_angle", "_write_sprite_buffers_to_gpu"):
        if not callable(getattr(arcade.SpriteList, name, None)):
            raise _internals_error(f"arcade.SpriteList.{name} is missing")


_check_arcade_class()


def check_sprite_list_internals(sprite_list: arcade.SpriteList[Any]) -> None:
    """Verify ``sprite_list`` exposes the CPU-side data this module writes.

    Checks attribute presence and types, then runs a behavioural probe on a
    throw-away lazy SpriteList: a sprite moved with arcade's own setters must
    land as ``x, y, depth, angle_deg`` at ``4 * slot`` of the array.

    Args:
        sprite_list: The list that will receive bulk writes.

    Raises:
        ArcadeInternalsError: With the arcade version, if anything differs.
    """
    data = getattr(sprite_list, "_sprite_pos_angle_data", None)
    if not isinstance(data, array) or data.typecode != "f":
        raise _internals_error("SpriteList._sprite_pos_angle_data is not an array('f')")
    if len(data) % _FLOATS_PER_SLOT:
        raise _internals_error("SpriteList._sprite_pos_angle_data is not 4 floats per slot")
    if not isinstance(getattr(sprite_list, "sprite_slot", None), dict):
        raise _internals_error("SpriteList.sprite_slot is not a dict")
    if not isinstance(getattr(sprite_list, "_sprite_pos_angle_changed", None), bool):
        raise _internals_error("SpriteList._sprite_pos_angle_changed is missing")

    probe_list: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList(lazy=True)
    probe_list.append(arcade.Sprite())
    probe_list.append(arcade.Sprite())
    probe = probe_list[1]
    probe.position = (12.5, -3.25)
    probe.depth = 0.5
    probe.angle = 33.0
    slot = probe_list.sprite_slot[probe]
    record = list(
        probe_list._sprite_pos_angle_data[_FLOATS_PER_SLOT * slot : _FLOATS_PER_SLOT * (slot + 1)]
    )
    if record != [12.5, -3.25, 0.5, 33.0]:
        raise _internals_error(f"slot record layout changed (probe read {record})")


def arcade_angle_deg(angle_rad: float) -> float:
    """Convert a pymunk angle (radians, counter-clockwise) to arcade's (degrees, clockwise)."""
    return angle_rad * _RAD_TO_ARCADE_DEG


class TrackedSpriteList(arcade.SpriteList[SpriteType]):
    """An ``arcade.SpriteList`` that counts membership changes.

    Arcade recycles buffer slots of removed sprites, so a cached
    "row -> slot" map silently goes stale when sprites come and go.
    :attr:`membership_version` increases on every ``append``/``extend``,
    ``insert``, ``remove``, ``pop`` and ``clear``; :class:`SpriteSync` rebuilds
    its map when it changes. Reordering (``sort``, ``swap``, ``reverse``,
    ``shuffle``) keeps slots and needs no rebuild.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Create the list; arguments are those of ``arcade.SpriteList``."""
        self.membership_version = 0
        super().__init__(*args, **kwargs)

    def append(self, sprite: SpriteType) -> None:
        """Add a sprite (see ``arcade.SpriteList.append``)."""
        super().append(sprite)
        self.membership_version += 1

    def insert(self, index: int, sprite: SpriteType) -> None:
        """Insert a sprite (see ``arcade.SpriteList.insert``)."""
        super().insert(index, sprite)
        self.membership_version += 1

    def remove(self, sprite: SpriteType) -> None:
        """Remove a sprite (see ``arcade.SpriteList.remove``)."""
        super().remove(sprite)
        self.membership_version += 1

    def pop(self, index: int = -1) -> SpriteType:
        """Remove and return a sprite (see ``arcade.SpriteList.pop``)."""
        sprite = super().pop(index)
        self.membership_version += 1
        return sprite

    def clear(self, *, capacity: int | None = None, deep: bool = True) -> None:
        """Remove all sprites (see ``arcade.SpriteList.clear``)."""
        super().clear(capacity=capacity, deep=deep)
        self.membership_version += 1


class SpriteSync:
    """Writes a :class:`PhysicsWorld`'s poses into one :class:`TrackedSpriteList`.

    Every world row whose registered sprite is in this list gets written;
    rows without a sprite, or whose sprite lives in another list, are skipped
    (use one ``SpriteSync`` per list). Sprites of the list that are not in the
    world are never touched.

    Per frame::

        sync.write(alpha)          # interpolate + bulk write, no Python loop per sprite
        sprite_list.draw()

    Per tick (only if some sprites were opted in with ``track_logical``)::

        world.step(dt_s)
        sync.sync_logical()
    """

    def __init__(
        self,
        world: PhysicsWorld,
        sprite_list: TrackedSpriteList[Any],
        sprite_of: Callable[[object], object | None] | None = None,
    ) -> None:
        """Bind a world to a sprite list and verify arcade's internals.

        Args:
            world: The physics world whose rows are drawn.
            sprite_list: The list holding (some of) the world's sprites.
            sprite_of: When the world's rows were registered with something other than the
                sprite itself (an entity, say), maps that to its sprite (None: not drawn here).
                The mapping may only change together with ``sprite_list``'s membership.

        Raises:
            TypeError: If ``sprite_list`` is not a :class:`TrackedSpriteList`.
            ArcadeInternalsError: If arcade's SpriteList layout changed.
        """
        if not isinstance(sprite_list, TrackedSpriteList):
            raise TypeError(
                "SpriteSync needs an engine.rendering.sprite_sync.TrackedSpriteList so it can see "
                "membership changes (arcade recycles buffer slots of removed sprites)"
            )
        check_sprite_list_internals(sprite_list)
        self._world = world
        self._sprite_list = sprite_list
        self._sprite_of = sprite_of
        self._tracked: dict[Any, None] = {}  # insertion-ordered set of opted-in sprites
        self._cache_key: tuple[int, int] | None = None
        self._count = 0
        self._rows: np.ndarray | slice = slice(0, 0)
        self._slots: np.ndarray | slice = slice(0, 0)
        self._logical_pairs: list[tuple[Any, int]] = []

    @property
    def sprite_list(self) -> TrackedSpriteList[Any]:
        """The list this object writes into."""
        return self._sprite_list

    @property
    def count(self) -> int:
        """How many sprites a :meth:`write` updates (after refreshing the slot map)."""
        self._refresh()
        return self._count

    # ----------------------------------------------------------- slot mapping

    def _refresh(self) -> None:
        """Rebuild the row -> slot map if world or list membership changed."""
        key = (self._world.membership_version, self._sprite_list.membership_version)
        if key == self._cache_key:
            return
        slot_of = self._sprite_list.sprite_slot
        pairs: list[tuple[int, int]] = []  # (slot, row)
        row_of_sprite: dict[Any, int] = {}
        for row, drawn in enumerate(self._world.sprites):
            sprite = drawn if self._sprite_of is None or drawn is None else self._sprite_of(drawn)
            if sprite is None:
                continue
            slot = slot_of.get(sprite)
            if slot is not None:
                pairs.append((slot, row))
                row_of_sprite[sprite] = row
        # Ordered by slot: then the usual case (every slot of a block belongs to
        # a world sprite) is a contiguous slice of arcade's array, even when
        # recycled slots scrambled the row -> slot order.
        pairs.sort()
        self._count = len(pairs)
        self._slots = _as_slice_if_contiguous([slot for slot, _ in pairs])
        self._rows = _as_slice_if_contiguous([row for _, row in pairs])
        self._logical_pairs = [
            (sprite, row_of_sprite[sprite]) for sprite in self._tracked if sprite in row_of_sprite
        ]
        self._cache_key = key

    # ------------------------------------------------------------ render path

    def write(self, alpha: float, mode: PoseMode = "interpolate") -> int:
        """Interpolate (or extrapolate) all poses and bulk-write them for drawing.

        Does not touch any sprite's logical state, nor the world.

        Args:
            alpha: Fraction of the fixed step since the latest tick, in ``[0, 1]``.
            mode: ``"interpolate"`` or ``"extrapolate"`` (see
                :meth:`PhysicsWorld.interpolated_poses`).

        Returns:
            The number of sprites written.
        """
        return self.write_poses(self._world.interpolated_poses(alpha, mode))

    def write_poses(self, poses: np.ndarray) -> int:
        """Bulk-write explicit per-row poses (``x_px, y_px, angle_rad``) for drawing.

        Args:
            poses: ``(len(world), 3)`` array in world row order, e.g. from
                :meth:`PhysicsWorld.interpolated_poses`.

        Returns:
            The number of sprites written.

        Raises:
            ValueError: If ``poses`` does not have one row per world body.
        """
        if poses.shape != (len(self._world), 3):
            raise ValueError(f"poses must have shape ({len(self._world)}, 3), got {poses.shape}")
        self._refresh()
        if self._count == 0:
            return 0
        if isinstance(self._rows, slice):
            selected = poses[self._rows]  # a view, no copy
        else:
            selected = np.take(poses, self._rows, axis=0)  # gather rows into slot order
        # A numpy view of arcade's array.array: no copy. It must be released
        # before returning, or arcade cannot grow the array on later appends.
        records = np.frombuffer(self._sprite_list._sprite_pos_angle_data, dtype=np.float32)
        records = records.reshape(-1, _FLOATS_PER_SLOT)
        try:
            _write_columns(records, self._slots, selected)
        finally:
            del records
        self._sprite_list._sprite_pos_angle_changed = True
        return self._count

    # ------------------------------------------------------------- tick path

    def track_logical(self, sprite: Any) -> None:
        """Opt ``sprite`` in: its logical ``position``/``angle`` follow the latest tick.

        The sprite must be registered with the world and be in this list for
        :meth:`sync_logical` to update it; otherwise it is skipped.
        """
        self._tracked[sprite] = None
        self._cache_key = None

    def untrack_logical(self, sprite: Any) -> None:
        """Opt ``sprite`` out again (its logical state stays as last synced)."""
        self._tracked.pop(sprite, None)
        self._cache_key = None

    def sync_logical(self) -> int:
        """Set tracked sprites' ``position``/``angle`` to the latest tick pose.

        Call once per tick, right after ``world.step()``; never from render.
        Uses arcade's setters, so hit boxes and spatial hashes follow.

        Returns:
            The number of sprites updated.
        """
        self._refresh()
        current = self._world.current
        for sprite, row in self._logical_pairs:
            x_px, y_px, angle_rad = current[row].tolist()
            sprite.position = (x_px, y_px)
            sprite.angle = arcade_angle_deg(angle_rad)
        return len(self._logical_pairs)


def _write_columns(records: np.ndarray, slots: np.ndarray | slice, selected: np.ndarray) -> None:
    """Write ``x, y`` and the arcade angle of ``selected`` rows into ``records[slots]``.

    Args:
        records: ``(capacity, 4)`` float32 view of arcade's position/angle array.
        slots: The target slots, ascending; a slice when they are contiguous.
        selected: ``(len(slots), 3)`` float64 poses ``x_px, y_px, angle_rad`` in slot order.
    """
    if isinstance(slots, slice):
        # One column at a time: numpy copies a long strided column much faster
        # than many 2-float rows.
        block = records[slots]  # a view: writes land in arcade's array
        block[:, _X] = selected[:, 0]
        block[:, _Y] = selected[:, 1]
        np.multiply(selected[:, 2], _RAD_TO_ARCADE_DEG, out=block[:, _ANGLE], casting="unsafe")
    else:
        # Slots with holes (free slots, or sprites not in the world): scatter.
        records[slots, _X] = selected[:, 0]
        records[slots, _Y] = selected[:, 1]
        records[slots, _ANGLE] = selected[:, 2] * _RAD_TO_ARCADE_DEG


def _as_slice_if_contiguous(indices: list[int]) -> np.ndarray | slice:
    """Return a slice for ascending runs like ``[5, 6, 7]`` (faster, no gather), else an array."""
    if not indices:
        return slice(0, 0)
    first = indices[0]
    if indices == list(range(first, first + len(indices))):
        return slice(first, first + len(indices))
    return np.array(indices, dtype=np.intp)
