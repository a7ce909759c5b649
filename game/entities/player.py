"""The player: the motor (:mod:`game.movement`) on a pymunk body, swept against the level's boxes.

Each tick (:meth:`Player.tick`):

1. read the :class:`~game.movement.Contacts` with thin box queries just outside the player's box
   (below the feet, above the head, at each side) and the ladders it is on. The motor outputs
   exactly the ground's vertical velocity while standing, so it never presses into the floor:
   contacts come from *touching*, not from collision impulses;
2. step the motor with this tick's input;
3. shorten its velocity with a sweep (:meth:`Player.sweep`) so the player stops *exactly* at a
   floor, wall or ceiling instead of sinking into it, pushing a crate it walks into (if nothing
   blocks the crate) and landing on things that move where they will be after the step;
4. set that velocity on the body. While standing on something dynamic (a crate, the swing) the
   player also presses on it with its weight, so the swing dips and sways when ridden.

A pymunk ``pre_solve`` handler lets the player through one-way platforms and ladder tops from
below (and through them when dropping or climbing down). Being hurt (a hazard, an enemy, falling
out of the level) freezes the player for :data:`HURT_TICKS`, flashing, then respawns it at the
last checkpoint: a short death and respawn that is part of the simulation, so replays include it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pymunk

from engine.entities import Animator, Clip, Entity, Look
from game import movement
from game.collision import (
    CRATE,
    LADDER_TOP,
    MOVING,
    ONE_WAY,
    PASS_FROM_BELOW,
    PLAYER,
    SOLID,
    Box,
    shape_box,
)
from game.movement import Contacts, PlayerState, PlayerTuning

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["HURT_TICKS", "PLAYER_HEIGHT_TILES", "PLAYER_WIDTH_TILES", "Player"]

#: Player box size in tiles (a little narrower than a tile so gaps one tile wide fit).
PLAYER_WIDTH_TILES = 0.75
PLAYER_HEIGHT_TILES = 0.9
#: How far outside the player's box the contact probes reach, px.
PROBE_PX = 1.0
#: How far the probes stay in from the box's corners, px, so a wall is not a floor.
PROBE_INSET_PX = 1.5
#: The feet may be this far below a one-way platform's top and still stand on it, px.
ONE_WAY_TOLERANCE_PX = 2.0
#: An obstacle up to this far *inside* the player's box still stops the sweep, px.
SWEEP_TOLERANCE_PX = 0.5
#: Standing on the ground, the player walks up steps this high (in tiles) without jumping.
STEP_UP_TILES = 0.25
#: The player's centre may be this far (tiles) beside a ladder and still grab it.
LADDER_REACH_TILES = 0.25
#: Falling this far below the map's bottom hurts, in tiles.
FALL_OUT_TILES = 4.0
#: Ticks a hurt player stays frozen (flashing) before it respawns: 0.6 s at 60 Hz.
HURT_TICKS = 36
#: Running faster than this fraction of the top speed kicks up dust every few ticks.
STEP_DUST_SPEED_FRACTION = 0.7
STEP_DUST_EVERY_TICKS = 9
#: Pushing a crate moves at this fraction of the run speed.
PUSH_SPEED_FRACTION = 0.5
#: The player's mass (a crate weighs 2 by default).
PLAYER_MASS = 1.0

_ART = ":resources:images/animated_characters/female_adventurer/femaleAdventurer_"
PLAYER_CLIPS = {
    "idle": Clip(1),
    "walk": Clip(8, ticks_per_frame=4),
    "jump": Clip(1),
    "fall": Clip(1),
    "climb": Clip(2, ticks_per_frame=8),
    "climb_still": Clip(1),
    "hurt": Clip(1),
}
"""The player's animation states (Kenney's female adventurer, bundled with arcade)."""

PLAYER_TEXTURES = {
    "idle": (f"{_ART}idle.png",),
    "walk": tuple(f"{_ART}walk{i}.png" for i in range(8)),
    "jump": (f"{_ART}jump.png",),
    "fall": (f"{_ART}fall.png",),
    "climb": (f"{_ART}climb0.png", f"{_ART}climb1.png"),
    "climb_still": (f"{_ART}climb0.png",),
    "hurt": (f"{_ART}fall.png",),
}


def _no_gravity(body: pymunk.Body, gravity: Any, damping: float, dt: float) -> None:
    """The player's velocity function: keep the velocity the motor set (no gravity, no damping)."""


class Player(Entity):
    """The player (see the module docstring).

    Args:
        feet_px: Where the feet start (the start object's bottom centre).
        tuning: Movement tuning (``tile_px`` sizes the box).

    Attributes:
        state: The motor state after the latest tick.
        contacts: The contacts read at the start of the latest tick.
        hurt_until_tick: While hurt, the tick at which the player respawns; None otherwise.
    """

    order = 10

    def __init__(self, feet_px: tuple[float, float], tuning: PlayerTuning) -> None:
        super().__init__()
        self.tuning = tuning
        self.width_px = PLAYER_WIDTH_TILES * tuning.tile_px
        self.height_px = PLAYER_HEIGHT_TILES * tuning.tile_px
        self.start_feet_px = feet_px
        self.state = PlayerState()
        self.contacts = Contacts()
        self.hurt_until_tick: int | None = None
        self.pushing = False
        self._feet_before_step_px = feet_px[1]
        self._drop_through_active = False
        self._climbing = False
        self._ground: pymunk.Shape | None = None
        self.look = Look(PLAYER_TEXTURES, height_px=self.height_px * 1.25)
        self.animator = Animator(PLAYER_CLIPS, "idle")

    # -- life -----------------------------------------------------------------------------------
    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(PLAYER_MASS, math.inf)  # infinite moment: never rotates
        self.body.velocity_func = _no_gravity
        self.shape = pymunk.Poly.create_box(self.body, (self.width_px, self.height_px))
        self.shape.friction = 0.0
        self.shape.collision_type = PLAYER
        x_px, feet_y_px = self.start_feet_px
        self.body.position = (x_px, feet_y_px + self.height_px / 2)
        world.physics.add(self.body, self.shape, sprite=self)
        space = world.physics.space
        for kind in PASS_FROM_BELOW:
            space.add_collision_handler(PLAYER, kind).pre_solve = self._pass_from_below
        self._feet_before_step_px = self.feet_y_px
        self.position_px = self.start_feet_px

    # -- queries --------------------------------------------------------------------------------
    @property
    def feet_y_px(self) -> float:
        """The y of the player's feet (bottom of its box)."""
        return float(self.body.position.y) - self.height_px / 2

    def box(self) -> Box:
        """The player's box as ``(left, bottom, right, top)`` px at the latest tick."""
        x, y = self.body.position
        hw, hh = self.width_px / 2, self.height_px / 2
        return (x - hw, y - hh, x + hw, y + hh)

    @property
    def hurt(self) -> bool:
        """Hurt and waiting to respawn."""
        return self.hurt_until_tick is not None

    @property
    def ground_body(self) -> pymunk.Body | None:
        """The body of what the feet stood on at the start of the latest tick, or None."""
        return self._ground.body if self._ground is not None else None

    @property
    def falling_onto(self) -> bool:
        """Moving down (a stomp counts only then)."""
        return float(self.body.velocity.y) < 0.0

    # -- the tick -------------------------------------------------------------------------------
    def tick(self, world: LevelWorld) -> None:
        if self.hurt_until_tick is not None:
            self.body.velocity = (0.0, 0.0)
            self.alpha = 255 if (world.ticks // 4) % 2 else 96
            if world.ticks + 1 >= self.hurt_until_tick:  # this tick ends at hurt_until_tick
                self.respawn(world)
            return
        self.contacts = self.read_contacts(world)
        self.state, output = movement.step(
            self.state, world.input, self.contacts, self.tuning, world.dt_s
        )
        self._drop_through_active = output.drop_through_active
        self._climbing = output.climbing
        x_px, feet_px = self.body.position.x, self.feet_y_px
        if output.jumped:
            world.emit("jump", x_px, feet_px)
        if output.landed:
            world.emit("land", x_px, feet_px)
        elif self._running_fast(world):
            world.emit("step", x_px - math.copysign(6.0, self.state.vx_px_s), feet_px)
        self._feet_before_step_px = feet_px
        self.body.velocity = self.sweep(world, *output.velocity_px_s)
        self._press_on_ground(world)
        self.facing = self.state.facing
        self._animate(world.ticks)

    def after_step(self, world: LevelWorld) -> None:
        left, bottom, right, top = self.box()
        self.position_px = ((left + right) / 2, bottom)
        if not self.hurt and top < -FALL_OUT_TILES * world.level.tile_size_px:
            self.hurt_by(world, "fall")

    def _running_fast(self, world: LevelWorld) -> bool:
        """Every few ticks while running near top speed on the ground (for the dust)."""
        state = self.state
        return (
            state.grounded
            and not state.climbing
            and abs(state.vx_px_s) > STEP_DUST_SPEED_FRACTION * self.tuning.run_speed_px_s
            and world.ticks % STEP_DUST_EVERY_TICKS == 0
        )

    def _animate(self, tick: int) -> None:
        assert self.animator is not None
        state = self.state
        if state.climbing:
            name = "climb" if state.vy_px_s != 0 or state.vx_px_s != 0 else "climb_still"
        elif not state.grounded:
            name = "jump" if state.vy_px_s > 0 else "fall"
        elif abs(state.vx_px_s) > 1.0:
            name = "walk"
        else:
            name = "idle"
        self.animator.play(name, tick)

    # -- hurting and respawning -----------------------------------------------------------------
    def hurt_by(self, world: LevelWorld, cause: str) -> None:
        """Get hurt (``cause``: ``hazard``, ``enemy``, ``fall``): freeze, flash, then respawn."""
        if self.hurt:
            return
        self.hurt_until_tick = world.ticks + HURT_TICKS
        self.body.velocity = (0.0, 0.0)
        self.shape.sensor = True  # nothing pushes a hurt player around
        world.deaths += 1
        assert self.animator is not None
        self.animator.play("hurt", world.ticks)
        x_px, feet_px = self.body.position.x, self.feet_y_px
        world.emit("hurt", x_px, feet_px)

    def respawn(self, world: LevelWorld) -> None:
        """Put the player back at the respawn point, standing still (a cut, not a slide)."""
        x_px, feet_y_px = world.respawn_point
        self.hurt_until_tick = None
        self.alpha = 255
        self.shape.sensor = False
        self.body.velocity = (0.0, 0.0)
        world.physics.teleport(self.body, x_px, feet_y_px + self.height_px / 2)
        self.state = PlayerState(tick=self.state.tick, facing=self.state.facing)
        self._feet_before_step_px = self.feet_y_px
        self.position_px = (x_px, feet_y_px)
        assert self.animator is not None
        self.animator.play("idle", world.ticks)
        world.emit("respawn", x_px, feet_y_px)

    def launch(self, world: LevelWorld, vy_px_s: float, cause: str) -> None:
        """Throw the player up at ``vy_px_s`` (a spring, a stomp)."""
        self.state = movement.launched(self.state, vy_px_s)
        self.body.velocity = (self.body.velocity.x, vy_px_s)
        x_px, feet_px = self.body.position.x, self.feet_y_px
        world.emit(cause, x_px, feet_px)

    def teleport(self, world: LevelWorld, x_px: float, feet_y_px: float) -> None:
        """Move the player's feet to ``(x_px, feet_y_px)`` at rest (for tests and tools)."""
        self.body.velocity = (0.0, 0.0)
        world.physics.teleport(self.body, x_px, feet_y_px + self.height_px / 2)
        self.state = PlayerState(tick=self.state.tick, facing=self.state.facing)
        self._feet_before_step_px = self.feet_y_px

    # -- contacts -------------------------------------------------------------------------------
    def read_contacts(self, world: LevelWorld) -> Contacts:
        """What touches the player now: ground below, ceiling above, walls at the sides."""
        left, bottom, right, top = self.box()
        grounded = on_solid = on_one_way = False
        ground_velocity = (0.0, 0.0)
        self._ground = None
        probe = (left + PROBE_INSET_PX, bottom - PROBE_PX, right - PROBE_INSET_PX, bottom)
        for shape in world.boxes(*probe, exclude=self.shape):
            kind = shape.collision_type
            if kind in PASS_FROM_BELOW:
                skipped = (kind == ONE_WAY and self.state.drop_through_active) or (
                    kind == LADDER_TOP and self.state.climbing
                )
                if skipped or bottom < shape.bb.top - ONE_WAY_TOLERANCE_PX:
                    continue
                on_one_way = True
            else:
                on_solid = True
            if kind in (MOVING, CRATE) and self._ground is None:
                velocity = shape.body.velocity
                ground_velocity = (float(velocity.x), float(velocity.y))
                self._ground = shape
            grounded = True
            if self._ground is None:
                self._ground = shape

        def blocked(box: Box) -> bool:
            return any(
                s.collision_type in (SOLID, MOVING, CRATE)
                for s in world.boxes(*box, exclude=self.shape)
            )

        def walled(box: Box) -> bool:  # crates are pushed, not walls (see sweep)
            return any(
                s.collision_type in (SOLID, MOVING) for s in world.boxes(*box, exclude=self.shape)
            )

        ladder = self._ladder(world, left, bottom, right)
        inset = PROBE_INSET_PX
        wall_bottom = bottom + inset
        if self.state.grounded:  # standing, a step low enough to walk up is not a wall
            wall_bottom = bottom + STEP_UP_TILES * world.level.tile_size_px + SWEEP_TOLERANCE_PX
        return Contacts(
            grounded=grounded,
            ground_velocity_px_s=ground_velocity,
            on_one_way=on_one_way and not on_solid,
            hit_ceiling=blocked((left + inset, top, right - inset, top + PROBE_PX)),
            wall_left=walled((left - PROBE_PX, wall_bottom, left, top - inset)),
            wall_right=walled((right, wall_bottom, right + PROBE_PX, top - inset)),
            ladder=ladder is not None,
            ladder_offset_px=ladder[0] if ladder is not None else 0.0,
            ladder_to_top_px=ladder[1] if ladder is not None else 0.0,
            on_solid=on_solid,
        )

    def _ladder(
        self, world: LevelWorld, left: float, bottom: float, right: float
    ) -> tuple[float, float] | None:
        """The ladder the player is on: (to its centre, x; from the feet to its top), or None."""
        from game.entities.gadgets import Ladder

        centre = (left + right) / 2
        reach = LADDER_REACH_TILES * world.level.tile_size_px
        for ladder in world.entities.of_type(Ladder):
            rect = ladder.rect
            if rect.left_px - reach <= centre <= rect.right_px + reach and (
                rect.bottom_px - PROBE_PX <= bottom <= rect.top_px + PROBE_PX
            ):
                return (rect.center_px[0] - centre, rect.top_px - bottom)
        return None

    # -- the sweep ------------------------------------------------------------------------------
    def sweep(self, world: LevelWorld, vx_px_s: float, vy_px_s: float) -> tuple[float, float]:
        """Shorten the player's velocity so this step stops exactly at the first obstacle.

        pymunk finds collisions only *after* moving a body, and the motor overwrites the
        velocity pymunk corrected every tick, so a landing would sink several pixels into the
        ground and be pushed out only slowly. Instead the player's box is swept along its
        velocity against the obstacles' boxes at the end of the step (things that move, by
        their velocity): first horizontally against walls, then vertically against floors (or
        one-way tops the feet are on or above) and ceilings. A standing player walking into a
        step no higher than ``STEP_UP_TILES`` is lifted onto it; walking into a crate pushes
        it (at half the run speed) unless something solid is right behind it.

        Returns:
            The velocity to give the body for this step.
        """
        dt = world.dt_s
        tile = world.level.tile_size_px
        left, bottom, right, top = self.box()
        dx, dy = vx_px_s * dt, vy_px_s * dt
        reach = abs(dx) + abs(dy) + tile
        boxes: list[tuple[int, float, float, float, float, pymunk.Shape]] = []
        near = (left - reach, bottom - reach, right + reach, top + reach)
        for shape in world.boxes(*near, exclude=self.shape):
            kind = shape.collision_type
            if (kind == ONE_WAY and self._drop_through_active) or (
                kind == LADDER_TOP and self._climbing
            ):
                continue
            b_left, b_bottom, b_right, b_top = shape_box(shape)
            if kind in (MOVING, CRATE):
                ox, oy = float(shape.body.velocity.x) * dt, float(shape.body.velocity.y) * dt
                b_left, b_bottom, b_right, b_top = (
                    b_left + ox,
                    b_bottom + oy,
                    b_right + ox,
                    b_top + oy,
                )
            boxes.append((kind, b_left, b_bottom, b_right, b_top, shape))
        inset = PROBE_INSET_PX
        step_up_px = STEP_UP_TILES * tile
        climb = 0.0
        pushing = False
        for index, (kind, b_left, b_bottom, b_right, b_top, shape) in enumerate(boxes):
            if kind in PASS_FROM_BELOW:
                continue
            if not (b_bottom < top - inset and b_top > bottom + SWEEP_TOLERANCE_PX):
                continue
            ahead = (dx > 0 and right - SWEEP_TOLERANCE_PX <= b_left < right + dx) or (
                dx < 0 and left + SWEEP_TOLERANCE_PX >= b_right > left + dx
            )
            if not ahead:
                continue
            if self.state.grounded and b_top - bottom <= step_up_px:
                climb = max(climb, b_top - bottom)  # a low step: walk up onto it
                continue
            if kind == CRATE and self.state.grounded:
                # The crate moves by the push, not by the velocity it had: where it will be.
                push_dx = self._push(world, shape, dx)
                pushing = pushing or push_dx != 0.0
                raw_left, _, raw_right, _ = shape_box(shape)
                b_left, b_right = raw_left + push_dx, raw_right + push_dx
                boxes[index] = (kind, b_left, b_bottom, b_right, b_top, shape)
            dx = b_left - right if dx > 0 else b_right - left
        if pushing and not self.pushing:
            world.emit("crate", (left + right) / 2, bottom)
        self.pushing = pushing
        if climb > 0.0:
            dy = max(dy, climb)
        new_left, new_right = left + dx, right + dx
        for kind, b_left, _b_bottom, b_right, b_top, _shape in boxes:
            if not (b_left < new_right - inset and b_right > new_left + inset):
                continue
            b_bottom = _b_bottom
            if dy < 0:
                tolerance = ONE_WAY_TOLERANCE_PX if kind in PASS_FROM_BELOW else SWEEP_TOLERANCE_PX
                if bottom + dy < b_top <= bottom + tolerance:
                    dy = b_top - bottom
            elif (
                dy > 0
                and kind not in PASS_FROM_BELOW
                and top - SWEEP_TOLERANCE_PX <= b_bottom < top + dy
            ):
                dy = b_bottom - top
        return (dx / dt, dy / dt)

    def _push(self, world: LevelWorld, crate: pymunk.Shape, dx: float) -> float:
        """Push ``crate`` along x this step, as far as the way behind it is free.

        Returns:
            How far the crate moves this step (0 when something solid is right behind it).
        """
        dt = world.dt_s
        speed = PUSH_SPEED_FRACTION * self.tuning.run_speed_px_s
        step = min(abs(dx), speed * dt)
        b_left, b_bottom, b_right, b_top = shape_box(crate)
        if dx > 0:
            strip = (b_right, b_bottom + PROBE_INSET_PX, b_right + step, b_top - PROBE_INSET_PX)
        else:
            strip = (b_left - step, b_bottom + PROBE_INSET_PX, b_left, b_top - PROBE_INSET_PX)
        for other in world.boxes(*strip, exclude=crate):
            if other is self.shape or other.collision_type not in (SOLID, MOVING, CRATE):
                continue
            o_left, _, o_right, _ = shape_box(other)
            free = o_left - b_right if dx > 0 else b_left - o_right
            step = max(0.0, min(step, free))
        step = math.copysign(step, dx)
        crate.body.velocity = (step / dt, crate.body.velocity.y)
        return step

    def _press_on_ground(self, world: LevelWorld) -> None:
        """Standing on something dynamic, press on it with the player's weight."""
        ground = self._ground
        if ground is None or not self.state.grounded:
            return
        body = ground.body
        if body.body_type != pymunk.Body.DYNAMIC:
            return
        x_px = float(self.body.position.x)
        impulse = PLAYER_MASS * world.gravity_px_s2 * world.dt_s  # gravity is negative: down
        body.apply_impulse_at_world_point((0.0, impulse), (x_px, self.feet_y_px))

    def _pass_from_below(self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: Any) -> bool:
        """Collide with a one-way top only when landing on it from above.

        The collision counts when the feet were on or above its top before this step, the
        player is not dropping through (one-way platforms) or climbing (ladder tops), and it is
        not moving up. Otherwise pymunk ignores the contact for this step.
        """
        other = arbiter.shapes[1]
        if other.collision_type == ONE_WAY and self._drop_through_active:
            return False
        if other.collision_type == LADDER_TOP and self._climbing:
            return False
        return (
            self._feet_before_step_px >= other.bb.top - ONE_WAY_TOLERANCE_PX
            and float(self.body.velocity.y) <= 1e-9
        )

    def hash_state(self) -> tuple[object, ...]:
        """The motor state, contacts and timers, for the state hash."""
        return (
            repr(self.state),
            repr(self.contacts),
            self.hurt_until_tick,
            self.pushing,
            self.animator.state_key() if self.animator is not None else None,
        )
