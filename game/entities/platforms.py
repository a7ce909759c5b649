"""Platforms that move: along a path, by crumbling away, or swinging on a rope.

All three are solid boxes of collision type ``MOVING``: the player rides them (its contacts read
the platform's velocity) and sweeps against where they will be after the step.

* :class:`MovingPlatform` — kinematic, back and forth along its path. Its position is a pure
  function of time (:func:`game.paths.platform_position`), so its velocity for each step is
  ``(target - position) / dt`` and pymunk lands it exactly on the target: it never drifts.
* :class:`CrumblingPlatform` — still until the player stands on it; then it shakes for
  ``delay_s``, falls (no longer solid) and, ``respawn_s`` later, is back where it was (once
  nobody stands in its place).
* :class:`Swing` — a dynamic body hanging from a pivot on a pymunk ``PinJoint``: a real
  pendulum under ``[physics]`` gravity. It cannot turn (infinite moment), so it stays level; the
  player riding it presses on it with its weight, so it dips and its swing changes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pymunk

from engine.entities import Entity, Look
from engine.levels import LevelObject, mask_gid
from game.collision import MOVING
from game.movement import seconds_to_ticks
from game.paths import platform_position

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["CrumblingPlatform", "MovingPlatform", "Swing", "box_look"]

PLATFORM_TEXTURE = ":resources:images/tiles/bridgeB.png"
CRUMBLING_TEXTURE = ":resources:images/tiles/brickBrown.png"
SWING_TEXTURE = ":resources:images/tiles/bridgeA.png"
PLATFORM_FRICTION = 0.9
#: Falling crumbled platforms accelerate at this fraction of gravity (they drop, not plummet).
FALL_GRAVITY_FRACTION = 0.6
#: A crumbled platform is seen falling this many ticks, then it is gone until its respawn time.
FALL_TICKS = 45


def box_look(obj: LevelObject, world: LevelWorld, default: str) -> Look:
    """The look of a box-shaped object: its tile's art, or ``default`` stretched to its size."""
    art = world.level.tiles.get(mask_gid(obj.gid)) if obj.gid else None
    return Look.still(
        art if art is not None else default,
        height_px=obj.rect.height_px,
        width_px=obj.rect.width_px,
        flip_with_facing=False,
    )


def _box_body(
    world: LevelWorld, obj: LevelObject, body: pymunk.Body, owner: Entity
) -> pymunk.Shape:
    """Give ``body`` a box shape of the object's size and register both with the world."""
    shape = pymunk.Poly.create_box(body, (obj.rect.width_px, obj.rect.height_px))
    shape.friction = PLATFORM_FRICTION
    shape.collision_type = MOVING
    world.physics.add(body, shape, sprite=owner)
    return shape


class MovingPlatform(Entity):
    """Back and forth along its path at its speed (see the module docstring)."""

    order = 0

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.obj = obj
        self.path_px = world.level.ref(obj, "path").points_px
        self.speed_px_s = float(obj.properties["speed_px_s"])
        self.start_px = float(obj.properties["start_px"])
        self.look = box_look(obj, world, PLATFORM_TEXTURE)

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        self.body.position = platform_position(self.path_px, self.speed_px_s, 0.0, self.start_px)
        self.shape = _box_body(world, self.obj, self.body, self)

    def tick(self, world: LevelWorld) -> None:
        time_s = (world.ticks + 1) * world.dt_s
        tx, ty = platform_position(self.path_px, self.speed_px_s, time_s, self.start_px)
        x, y = self.body.position
        self.body.velocity = ((tx - x) / world.dt_s, (ty - y) / world.dt_s)


class CrumblingPlatform(Entity):
    """Holds a moment once stood on, falls, and comes back (see the module docstring).

    Attributes:
        phase: ``solid``, ``shaking``, ``falling`` or ``gone``.
        phase_until_tick: When shaking ends, or (falling and gone) when it is back: ``respawn_s``
            after it crumbled. None while solid.
    """

    order = 1

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.obj = obj
        self.home_px = obj.position_px
        self.delay_ticks = max(1, seconds_to_ticks(float(obj.properties["delay_s"]), world.dt_s))
        self.respawn_ticks = max(
            1, seconds_to_ticks(float(obj.properties["respawn_s"]), world.dt_s)
        )
        self.phase = "solid"
        self.phase_until_tick: int | None = None
        self.fell_at_tick = 0
        self.look = box_look(obj, world, CRUMBLING_TEXTURE)

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        self.body.position = self.home_px
        self.shape = _box_body(world, self.obj, self.body, self)

    def tick(self, world: LevelWorld) -> None:
        now = world.ticks
        if self.phase == "solid":
            player = world.player
            if player.state.grounded and player.ground_body is self.body:
                self.phase, self.phase_until_tick = "shaking", now + self.delay_ticks
        elif self.phase == "shaking" and self.phase_until_tick is not None:
            if now >= self.phase_until_tick:
                self.phase, self.phase_until_tick = "falling", now + self.respawn_ticks
                self.fell_at_tick = now
                self.shape.sensor = True  # no longer solid
                world.emit("crumble", *self.home_px)
        elif self.phase == "falling" and self.phase_until_tick is not None:
            if now - self.fell_at_tick >= min(FALL_TICKS, self.respawn_ticks - 1):
                self.phase = "gone"  # until phase_until_tick, the respawn time
                self.body.velocity = (0.0, 0.0)
            else:
                fall = world.gravity_px_s2 * FALL_GRAVITY_FRACTION * world.dt_s
                self.body.velocity = (0.0, float(self.body.velocity.y) + fall)
        if (
            self.phase == "gone"
            and self.phase_until_tick is not None
            and now >= self.phase_until_tick
            and self._home_is_clear(world)
        ):
            world.physics.teleport(self.body, *self.home_px)
            self.shape.sensor = False
            self.phase, self.phase_until_tick = "solid", None
        self.visible = self.phase != "gone"
        # Shaking is drawn from the state: the platform flickers while it holds.
        self.alpha = 150 if self.phase == "shaking" and (now // 3) % 2 else 255

    def _home_is_clear(self, world: LevelWorld) -> bool:
        rect = self.obj.rect
        return not world.overlaps_player((rect.left_px, rect.bottom_px, rect.right_px, rect.top_px))

    def hash_state(self) -> tuple[object, ...]:
        return (self.phase, self.phase_until_tick, self.fell_at_tick)


class Swing(Entity):
    """A level platform on a rope: a pymunk pendulum (see the module docstring)."""

    order = 2

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.obj = obj
        cx, cy = obj.position_px
        self.rope_px = float(obj.properties["rope_px"])
        self.pivot_px = (cx, cy + self.rope_px)
        self.start_angle_rad = math.radians(float(obj.properties["start_angle_deg"]))
        self.mass = float(obj.properties["mass"])
        self.look = box_look(obj, world, SWING_TEXTURE)

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(self.mass, math.inf)  # a pendulum bob that stays level
        px, py = self.pivot_px
        angle = self.start_angle_rad
        self.body.position = (
            px - self.rope_px * math.sin(angle),
            py - self.rope_px * math.cos(angle),
        )
        self.shape = _box_body(world, self.obj, self.body, self)
        space = world.physics.space
        self.joint = pymunk.PinJoint(space.static_body, self.body, self.pivot_px, (0.0, 0.0))
        space.add(self.joint)
