"""The level's simulation: physics world, player motor and gameplay rules, without drawing.

:class:`LevelWorld` is everything a level *does*, tick by tick, and nothing it *draws*: it
imports pymunk and the engine's pure modules but not arcade, so tests can drive it directly
(``world.tick(snapshot)``) without a window. :class:`~game.level_scene.LevelScene` wraps it
with sprites, a camera and a HUD.

One tick (:meth:`LevelWorld.tick`) does, in this order:

1. Move the moving platforms: each platform's position is a pure function of the tick
   (:func:`platform_position`, back and forth along its path), so its velocity for this step
   is ``(target - position) / dt``: pymunk then moves it exactly onto the target and the
   contact carries whatever stands on it.
2. Read the player's :class:`~game.movement.Contacts` with thin box queries just outside the
   player's box (below the feet, above the head, at each side). The motor outputs exactly the
   ground's vertical velocity while standing, so it never presses into the floor: contacts
   must come from *touching*, not from collision impulses.
3. Step the motor (:func:`game.movement.step`), shorten its velocity with a sweep
   (:meth:`LevelWorld.sweep`) so the player stops *exactly* at a floor, wall or ceiling instead
   of sinking into it, and set it on the player body. The space has no gravity: the motor owns
   it.
4. Step the physics world once (``PhysicsWorld.step``). A ``pre_solve`` handler decides, per
   one-way platform, whether the player collides with it this step (only when landing on it
   from above and not dropping through).
5. Gameplay: coins, checkpoints, hazards (respawn) and exits, by rectangle overlap in a fixed
   order, so a replay of the same inputs is bit-identical.

Everything here is deterministic: no wall clock, no randomness, stable iteration orders.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
from collections.abc import Callable
from typing import Any

import pymunk

from engine.input.snapshot import InputSnapshot
from engine.levels import (
    ONE_WAY_COLLISION_TYPE,
    Level,
    LevelObject,
    Rect,
    add_static_geometry,
)
from engine.physics.world import PhysicsWorld
from game import movement
from game.movement import Contacts, PlayerState, PlayerTuning

__all__ = [
    "MOVING_PLATFORM_COLLISION_TYPE",
    "PLAYER_COLLISION_TYPE",
    "LevelWorld",
    "platform_position",
    "scale_level",
]

#: Collision type of the player's box.
PLAYER_COLLISION_TYPE = 10
#: Collision type of moving platforms (solid from every side, like solid ground).
MOVING_PLATFORM_COLLISION_TYPE = 3

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
#: Standing on the ground, the player walks up steps this high (in tiles) without jumping,
#: e.g. onto a ledge from a lift that is not quite level with it yet.
STEP_UP_TILES = 0.25
#: Falling this far below the map's bottom respawns the player, in tiles.
FALL_OUT_TILES = 4.0


# ---------------------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------------------


def _scale_rect(rect: Rect, scale: float) -> Rect:
    return Rect(
        rect.left_px * scale, rect.bottom_px * scale, rect.width_px * scale, rect.height_px * scale
    )


def _scale_object(obj: LevelObject, scale: float) -> LevelObject:
    return dataclasses.replace(obj, rect=_scale_rect(obj.rect, scale))


def scale_level(level: Level, tile_px: int) -> Level:
    """Return ``level`` with every length converted from map px to game px.

    Maps are authored in 128 px tiles; the game simulates and draws at ``tile_px`` per tile
    (see ``levels/README.md``), so every rectangle, point, path and speed is multiplied by
    ``tile_px / level.tile_size_px``.

    Args:
        level: A level as loaded by :func:`engine.levels.load_level`.
        tile_px: The game's tile size (``PlayerTuning.tile_px``).

    Returns:
        The same level in game pixels, with ``tile_size_px == tile_px``.
    """
    scale = tile_px / level.tile_size_px
    platforms = tuple(
        dataclasses.replace(
            p,
            rect=_scale_rect(p.rect, scale),
            path_px=tuple((x * scale, y * scale) for x, y in p.path_px),
            speed_px_s=p.speed_px_s * scale,
        )
        for p in level.moving_platforms
    )
    return dataclasses.replace(
        level,
        tile_size_px=tile_px,
        solid_rects=tuple(_scale_rect(r, scale) for r in level.solid_rects),
        one_way_rects=tuple(_scale_rect(r, scale) for r in level.one_way_rects),
        player_start=_scale_object(level.player_start, scale),
        checkpoints=tuple(_scale_object(o, scale) for o in level.checkpoints),
        exits=tuple(_scale_object(o, scale) for o in level.exits),
        coins=tuple(_scale_object(o, scale) for o in level.coins),
        hazards=tuple(_scale_object(o, scale) for o in level.hazards),
        moving_platforms=platforms,
    )


def platform_position(
    path_px: tuple[tuple[float, float], ...], speed_px_s: float, time_s: float
) -> tuple[float, float]:
    """Where a ping-pong platform's centre is after ``time_s``: out along the path and back.

    The platform starts at the first point, travels the polyline at ``speed_px_s`` to the last
    point, then comes back the same way, forever. It is a pure function of time, so a
    platform's position never drifts from accumulated floating-point steps.

    Args:
        path_px: The route's points, at least two.
        speed_px_s: Travel speed along the route.
        time_s: Time since the level started.

    Returns:
        The centre ``(x, y)`` in px.
    """
    lengths = [math.dist(a, b) for a, b in itertools.pairwise(path_px)]
    total = sum(lengths)
    if total <= 0.0:
        return path_px[0]
    distance = (speed_px_s * time_s) % (2.0 * total)
    if distance > total:
        distance = 2.0 * total - distance
    for (a, b), length in zip(itertools.pairwise(path_px), lengths, strict=True):
        if distance <= length and length > 0.0:
            f = distance / length
            return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)
        distance -= length
    return path_px[-1]


def _overlaps(box: tuple[float, float, float, float], rect: Rect) -> bool:
    """Whether ``box`` (left, bottom, right, top) and ``rect`` overlap (touching is not).

    A point object (zero size) overlaps when it lies strictly inside the box.
    """
    left, bottom, right, top = box
    return (
        left < rect.right_px
        and rect.left_px < right
        and bottom < rect.top_px
        and rect.bottom_px < top
    )


# ---------------------------------------------------------------------------------------------
# The world
# ---------------------------------------------------------------------------------------------


class LevelWorld:
    """One level's simulation: physics, the player motor and the gameplay rules.

    Args:
        level: The level, already in game px (see :func:`scale_level`).
        tuning: Player movement tuning (its ``tile_px`` sizes the player).
        dt_s: Length of one tick in seconds (``Engine.step_s``).
        substeps: Physics substeps per tick.
        iterations: pymunk solver iterations.
        player_sprite: What draws the player (registered with the physics world for
            :class:`~engine.rendering.sprite_sync.SpriteSync`), or None.
        platform_sprites: One drawing object per moving platform, in level order, or None.
        on_complete: Called once, inside the tick, when the player first reaches an exit.

    Attributes:
        level: The level in game px.
        world: The physics world (player and moving platforms are its bodies).
        player: The player's body.
        platforms: The moving platforms' kinematic bodies, in level order.
        state: The motor state after the latest tick.
        contacts: The contacts read at the start of the latest tick.
        collected: Ids of the coins collected so far.
        checkpoint_id: Id of the checkpoint touched last, or None (respawn at the start).
        completed: The player has reached an exit.
        deaths: How many times the player respawned.
        ticks: How many ticks have run.
    """

    def __init__(
        self,
        level: Level,
        tuning: PlayerTuning,
        dt_s: float,
        *,
        substeps: int = 1,
        iterations: int = 10,
        player_sprite: object | None = None,
        platform_sprites: list[object] | None = None,
        on_complete: Callable[[], None] | None = None,
    ) -> None:
        self.level = level
        self.tuning = tuning
        self.dt_s = dt_s
        self.on_complete = on_complete
        self.world = PhysicsWorld((0.0, 0.0), substeps=substeps, iterations=iterations)
        space = self.world.space
        add_static_geometry(level, space, friction=0.0)

        self.platforms: list[pymunk.Body] = []
        for index, platform in enumerate(level.moving_platforms):
            body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
            body.position = platform.path_px[0]
            shape = pymunk.Poly.create_box(body, (platform.rect.width_px, platform.rect.height_px))
            shape.friction = 0.0
            shape.collision_type = MOVING_PLATFORM_COLLISION_TYPE
            sprite = platform_sprites[index] if platform_sprites is not None else None
            self.world.add(body, shape, sprite=sprite)
            self.platforms.append(body)

        self.player_width_px = PLAYER_WIDTH_TILES * tuning.tile_px
        self.player_height_px = PLAYER_HEIGHT_TILES * tuning.tile_px
        self.player = pymunk.Body(1.0, math.inf)  # infinite moment: never rotates
        self.player_shape = pymunk.Poly.create_box(
            self.player, (self.player_width_px, self.player_height_px)
        )
        self.player_shape.friction = 0.0
        self.player_shape.collision_type = PLAYER_COLLISION_TYPE
        start_x, start_feet_y = self.start_point
        self.player.position = (start_x, start_feet_y + self.player_height_px / 2)
        self.world.add(self.player, self.player_shape, sprite=player_sprite)

        handler = space.add_collision_handler(PLAYER_COLLISION_TYPE, ONE_WAY_COLLISION_TYPE)
        handler.pre_solve = self._one_way_pre_solve

        self.state = PlayerState()
        self.contacts = Contacts()
        self.collected: set[int] = set()
        self.checkpoint_id: int | None = None
        self.completed = False
        self.deaths = 0
        self.ticks = 0
        #: Jumps started so far (for sounds; derived from the state, so not hashed).
        self.jumps = 0
        self._feet_before_step_px = self.feet_y_px
        self._drop_through_active = False

    # -- queries ---------------------------------------------------------------------------------
    @property
    def start_point(self) -> tuple[float, float]:
        """Where the player's feet appear: the bottom centre of ``player_start``."""
        rect = self.level.player_start.rect
        return (rect.left_px + rect.width_px / 2, rect.bottom_px)

    @property
    def respawn_point(self) -> tuple[float, float]:
        """Where the feet go on respawn: the last checkpoint's bottom centre, or the start."""
        for checkpoint in self.level.checkpoints:
            if checkpoint.id == self.checkpoint_id:
                rect = checkpoint.rect
                return (rect.left_px + rect.width_px / 2, rect.bottom_px)
        return self.start_point

    @property
    def feet_y_px(self) -> float:
        """The y of the player's feet (bottom of its box)."""
        return float(self.player.position.y) - self.player_height_px / 2

    def player_box(self) -> tuple[float, float, float, float]:
        """The player's box as ``(left, bottom, right, top)`` px at the latest tick."""
        x, y = self.player.position
        hw, hh = self.player_width_px / 2, self.player_height_px / 2
        return (x - hw, y - hh, x + hw, y + hh)

    @property
    def coins_collected(self) -> int:
        """Number of coins collected."""
        return len(self.collected)

    # -- the tick --------------------------------------------------------------------------------
    def tick(self, snapshot: InputSnapshot) -> None:
        """Advance the level by one fixed tick with this tick's input."""
        self._move_platforms()
        self.contacts = self.read_contacts()
        self.state, output = movement.step(
            self.state, snapshot, self.contacts, self.tuning, self.dt_s
        )
        self._drop_through_active = output.drop_through_active
        self.jumps += output.jumped
        self._feet_before_step_px = self.feet_y_px
        self.player.velocity = self.sweep(*output.velocity_px_s)
        self.world.step(self.dt_s)
        self.ticks += 1
        self._gameplay()

    def _move_platforms(self) -> None:
        """Set each platform's velocity so this step ends exactly on its path position."""
        time_s = (self.ticks + 1) * self.dt_s
        for body, platform in zip(self.platforms, self.level.moving_platforms, strict=True):
            tx, ty = platform_position(platform.path_px, platform.speed_px_s, time_s)
            x, y = body.position
            body.velocity = ((tx - x) / self.dt_s, (ty - y) / self.dt_s)

    def _query(self, left: float, bottom: float, right: float, top: float) -> list[pymunk.Shape]:
        """Shapes whose boxes overlap the given box (exact: every shape is an axis-aligned box).

        Sorted by collision type and box, so the result never depends on pymunk's tree order.
        """
        found = self.world.space.bb_query(pymunk.BB(left, bottom, right, top), pymunk.ShapeFilter())
        shapes = [s for s in found if s is not self.player_shape]
        shapes.sort(key=lambda s: (s.collision_type, s.bb.left, s.bb.bottom, s.bb.right, s.bb.top))
        return shapes

    def sweep(self, vx_px_s: float, vy_px_s: float) -> tuple[float, float]:
        """Shorten the player's velocity so this step stops exactly at the first obstacle.

        pymunk finds collisions only *after* moving a body, and the motor overwrites the
        velocity pymunk corrected every tick, so a landing would sink several pixels into the
        ground and be pushed out only slowly. Instead the game sweeps the player's box along its
        velocity against the obstacles' boxes at the end of the step (moving platforms moved by
        their velocity): first horizontally against walls, then vertically against floors (or
        one-way tops the feet are on or above) and ceilings. The player ends the step touching
        what it hit, so the next tick's probes see it. A standing player walking into a step no
        higher than ``STEP_UP_TILES`` is lifted onto it instead of stopped.

        Args:
            vx_px_s: The motor's horizontal velocity.
            vy_px_s: The motor's vertical velocity.

        Returns:
            The velocity to give the body for this step.
        """
        dt = self.dt_s
        left, bottom, right, top = self.player_box()
        dx, dy = vx_px_s * dt, vy_px_s * dt
        reach = abs(dx) + abs(dy) + self.level.tile_size_px
        boxes: list[tuple[int, float, float, float, float]] = []
        for shape in self._query(left - reach, bottom - reach, right + reach, top + reach):
            kind = shape.collision_type
            if kind == ONE_WAY_COLLISION_TYPE and self._drop_through_active:
                continue
            bb = shape.bb
            ox, oy = (0.0, 0.0)
            if kind == MOVING_PLATFORM_COLLISION_TYPE:
                ox, oy = shape.body.velocity.x * dt, shape.body.velocity.y * dt
            boxes.append((kind, bb.left + ox, bb.bottom + oy, bb.right + ox, bb.top + oy))
        inset = PROBE_INSET_PX
        step_up_px = STEP_UP_TILES * self.level.tile_size_px
        climb = 0.0
        for kind, b_left, b_bottom, b_right, b_top in boxes:
            if kind == ONE_WAY_COLLISION_TYPE:
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
            elif dx > 0:
                dx = b_left - right
            else:
                dx = b_right - left
        if climb > 0.0:
            dy = max(dy, climb)
        new_left, new_right = left + dx, right + dx
        for kind, b_left, b_bottom, b_right, b_top in boxes:
            if not (b_left < new_right - inset and b_right > new_left + inset):
                continue
            if dy < 0:
                tolerance = (
                    ONE_WAY_TOLERANCE_PX if kind == ONE_WAY_COLLISION_TYPE else SWEEP_TOLERANCE_PX
                )
                if bottom + dy < b_top <= bottom + tolerance:
                    dy = b_top - bottom
            elif (
                dy > 0
                and kind != ONE_WAY_COLLISION_TYPE
                and top - SWEEP_TOLERANCE_PX <= b_bottom < top + dy
            ):
                dy = b_bottom - top
        return (dx / dt, dy / dt)

    def read_contacts(self) -> Contacts:
        """What touches the player now: ground below, ceiling above, walls at the sides."""
        left, bottom, right, top = self.player_box()
        grounded = on_solid = on_one_way = False
        ground_velocity = (0.0, 0.0)
        for shape in self._query(
            left + PROBE_INSET_PX, bottom - PROBE_PX, right - PROBE_INSET_PX, bottom
        ):
            kind = shape.collision_type
            if kind == ONE_WAY_COLLISION_TYPE:
                if self.state.drop_through_active or bottom < shape.bb.top - ONE_WAY_TOLERANCE_PX:
                    continue
                on_one_way = True
            else:
                on_solid = True
                if kind == MOVING_PLATFORM_COLLISION_TYPE and ground_velocity == (0.0, 0.0):
                    velocity = shape.body.velocity
                    ground_velocity = (velocity.x, velocity.y)
            grounded = True

        def blocked(shapes: list[pymunk.Shape]) -> bool:
            return any(s.collision_type != ONE_WAY_COLLISION_TYPE for s in shapes)

        inset = PROBE_INSET_PX
        # Standing, a step low enough to walk up is not a wall (see :meth:`sweep`).
        wall_bottom = bottom + inset
        if self.state.grounded:
            wall_bottom = bottom + STEP_UP_TILES * self.level.tile_size_px + SWEEP_TOLERANCE_PX
        return Contacts(
            grounded=grounded,
            ground_velocity_px_s=ground_velocity,
            on_one_way=on_one_way and not on_solid,
            hit_ceiling=blocked(self._query(left + inset, top, right - inset, top + PROBE_PX)),
            wall_left=blocked(self._query(left - PROBE_PX, wall_bottom, left, top - inset)),
            wall_right=blocked(self._query(right, wall_bottom, right + PROBE_PX, top - inset)),
        )

    def _one_way_pre_solve(
        self, arbiter: pymunk.Arbiter, space: pymunk.Space, data: dict[str, Any]
    ) -> bool:
        """Let the player collide with a one-way platform only when landing on it from above.

        The collision counts when the feet were on or above the platform's top before this
        step, the player is not dropping through, and it is not moving up. Otherwise pymunk
        ignores the contact for this step, so the player passes through from below.
        """
        platform_top = arbiter.shapes[1].bb.top
        return (
            not self._drop_through_active
            and self._feet_before_step_px >= platform_top - ONE_WAY_TOLERANCE_PX
            and self.player.velocity.y <= 1e-9
        )

    def _gameplay(self) -> None:
        """Coins, checkpoints, hazards and exits, by overlap with the player's box."""
        box = self.player_box()
        level = self.level
        for coin in level.coins:
            if coin.id not in self.collected and _overlaps(box, coin.rect):
                self.collected.add(coin.id)
        for checkpoint in level.checkpoints:
            if _overlaps(box, checkpoint.rect):
                self.checkpoint_id = checkpoint.id
        fell_out = box[3] < -FALL_OUT_TILES * level.tile_size_px
        if fell_out or any(_overlaps(box, hazard.rect) for hazard in level.hazards):
            self.respawn()
            return
        if not self.completed and any(_overlaps(box, exit_.rect) for exit_ in level.exits):
            self.completed = True
            if self.on_complete is not None:
                self.on_complete()

    def respawn(self) -> None:
        """Put the player back at the respawn point, standing still (a cut, not a slide)."""
        x, feet_y = self.respawn_point
        self.player.velocity = (0.0, 0.0)
        self.world.teleport(self.player, x, feet_y + self.player_height_px / 2)
        self.state = PlayerState(tick=self.state.tick, facing=self.state.facing)
        self.deaths += 1

    def teleport_player(self, x_px: float, feet_y_px: float) -> None:
        """Move the player's feet to ``(x_px, feet_y_px)`` at rest (for tests and tools)."""
        self.player.velocity = (0.0, 0.0)
        self.world.teleport(self.player, x_px, feet_y_px + self.player_height_px / 2)
        self.state = PlayerState(tick=self.state.tick, facing=self.state.facing)

    def state_hash(self) -> str:
        """A fingerprint of the whole level state, for replays and determinism checks.

        Combines the physics world's hash, the motor state (its ``repr`` prints every float
        exactly), the collected coins, the checkpoint, completion, deaths and the tick count.

        Returns:
            A 32-character hex digest.
        """
        digest = hashlib.blake2b(digest_size=16)
        parts = (
            self.world.state_hash(),
            repr(self.state),
            repr(sorted(self.collected)),
            repr(self.checkpoint_id),
            repr(self.completed),
            repr(self.deaths),
            repr(self.ticks),
        )
        digest.update("\n".join(parts).encode())
        return digest.hexdigest()
