"""Enemies: walkers that patrol the ground and flyers that follow a path.

Both are kinematic pymunk bodies without collision shapes: nothing bumps into them, the player
*touches* them. After the physics step an enemy checks the player's box against its own: a player
coming down from above with its feet over the enemy's middle **stomps** it (the enemy is squashed
and the player bounces: :data:`~game.movement.PlayerTuning.stomp_bounce_tiles`, or a full jump
with jump held); any other touch **hurts** the player. A squashed enemy shows its squashed look
for :data:`SQUASHED_TICKS` and is gone.

A walker walks at ``speed_px_s`` and turns around at walls, at the edge of its ground (it never
walks off a ledge) and at its patrol bounds, if it has any; a flyer goes back and forth along its
path, facing the way it flies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pymunk

from engine.entities import Animator, Clip, Entity, Look
from engine.levels import LevelObject
from game.collision import CRATE, MOVING, ONE_WAY, SOLID, Box
from game.movement import launch_velocity
from game.paths import platform_position

if TYPE_CHECKING:
    from game.world_builder import LevelWorld

__all__ = ["SQUASHED_TICKS", "Flyer", "Walker"]

SQUASHED_TICKS = 30
"""How long a squashed enemy stays on screen (0.5 s at 60 Hz)."""

_ENEMIES = ":resources:images/enemies/"
_CHARACTERS = ":resources:images/animated_characters/"

WALKER_ART: dict[str, tuple[str, ...]] = {
    "slimeBlue": (f"{_ENEMIES}slimeBlue.png", f"{_ENEMIES}slimeBlue_move.png"),
    "slimeGreen": (f"{_ENEMIES}slimeGreen.png",),
    "slimePurple": (f"{_ENEMIES}slimePurple.png",),
    "wormGreen": (f"{_ENEMIES}wormGreen.png", f"{_ENEMIES}wormGreen_move.png"),
    "wormPink": (f"{_ENEMIES}wormPink.png",),
    "robot": tuple(f"{_CHARACTERS}robot/robot_walk{i}.png" for i in range(8)),
    "zombie": tuple(f"{_CHARACTERS}zombie/zombie_walk{i}.png" for i in range(8)),
}
"""Each walker look's walking frames (arcade's bundled Kenney art)."""

FLYER_ART: dict[str, tuple[str, ...]] = {
    "bee": (f"{_ENEMIES}bee.png",),
    "fly": (f"{_ENEMIES}fly.png",),
}

#: Characters are drawn facing right, Kenney's enemies facing left.
_FACES_RIGHT = frozenset({"robot", "zombie"})


class Enemy(Entity):
    """What walkers and flyers share: a body, a size, being stomped."""

    order = 20

    def __init__(
        self, width_px: float, height_px: float, frames: tuple[str, ...], art: str
    ) -> None:
        super().__init__()
        self.width_px = width_px
        self.height_px = height_px
        self.squashed_until_tick: int | None = None
        faces_left = art not in _FACES_RIGHT
        self.look = Look({"walk": frames}, height_px=height_px, art_faces_left=faces_left)
        self._squashed_look = Look(
            {"walk": frames[:1]},
            height_px=height_px * 0.4,
            width_px=width_px * 1.2,
            art_faces_left=faces_left,
        )
        self.animator = Animator({"walk": Clip(len(frames), ticks_per_frame=8)}, "walk")

    def box(self) -> Box:
        x, y = self.body.position
        hw, hh = self.width_px / 2, self.height_px / 2
        return (x - hw, y - hh, x + hw, y + hh)

    def on_despawn(self, world: LevelWorld) -> None:
        world.physics.remove(self.body)

    def squashed_tick(self, world: LevelWorld) -> bool:
        """While squashed: stand still, then go. Returns whether the enemy is squashed."""
        if self.squashed_until_tick is None:
            return False
        self.body.velocity = (0.0, 0.0)
        if world.ticks >= self.squashed_until_tick:
            world.entities.despawn(self)
        return True

    def after_step(self, world: LevelWorld) -> None:
        if self.squashed_until_tick is not None or not world.overlaps_player(self.box()):
            return
        player = world.player
        _, bottom, _, _ = player.box()
        middle_y = float(self.body.position.y)
        if player.falling_onto and bottom >= middle_y:
            self.squashed_until_tick = world.ticks + SQUASHED_TICKS
            self.look = self._squashed_look
            x, y = self.body.position
            world.physics.teleport(self.body, float(x), float(y) - self.height_px * 0.3)
            tuning = world.tuning
            if world.input.is_held("jump"):
                velocity = tuning.jump_velocity_px_s
            else:
                velocity = launch_velocity(tuning.stomp_bounce_tiles * tuning.tile_px, tuning)
            player.launch(world, velocity, "stomp")
        else:
            player.hurt_by(world, "enemy")

    def hash_state(self) -> tuple[object, ...]:
        animation = self.animator.state_key() if self.animator is not None else None
        return (self.facing, self.squashed_until_tick, animation)


class Walker(Enemy):
    """Walks its ground; turns at walls, ledges and patrol bounds."""

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        tile = world.level.tile_size_px
        art = str(obj.properties["art"])
        frames = WALKER_ART.get(art, WALKER_ART["slimeBlue"])
        tall = art in _FACES_RIGHT
        super().__init__(0.8 * tile, (1.2 if tall else 0.55) * tile, frames, art)
        self.speed_px_s = float(obj.properties["speed_px_s"])
        self.patrol_left_px = float(obj.properties["patrol_left_px"])
        self.patrol_right_px = float(obj.properties["patrol_right_px"])
        self.facing = -1 if obj.properties["facing"] == "left" else 1
        self.feet_px = obj.feet_px

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        x_px, feet_px = self.feet_px
        self.body.position = (x_px, feet_px + self.height_px / 2)
        world.physics.add(self.body, sprite=self)

    def tick(self, world: LevelWorld) -> None:
        if self.squashed_tick(world):
            return
        if self._must_turn(world):
            self.facing = -self.facing
        self.body.velocity = (self.facing * self.speed_px_s, 0.0)

    def _must_turn(self, world: LevelWorld) -> bool:
        left, bottom, right, top = self.box()
        step = self.speed_px_s * world.dt_s
        front = right if self.facing > 0 else left
        ahead = front + self.facing * step
        if self.facing > 0 and 0 <= self.patrol_right_px < right + step:
            return True
        if self.facing < 0 and 0 <= self.patrol_left_px > left - step:
            return True
        wall = (min(front, ahead), bottom + 2.0, max(front, ahead), top - 2.0)
        if any(s.collision_type in (SOLID, MOVING, CRATE) for s in world.boxes(*wall)):
            return True
        foot = (ahead - 1.0, bottom - 2.0, ahead + 1.0, bottom - 0.5)
        ground = (SOLID, MOVING, CRATE, ONE_WAY)
        return not any(s.collision_type in ground for s in world.boxes(*foot))


class Flyer(Enemy):
    """Flies back and forth along its path."""

    order = 21

    def __init__(self, obj: LevelObject, world: LevelWorld) -> None:
        tile = world.level.tile_size_px
        art = str(obj.properties["art"])
        super().__init__(0.7 * tile, 0.6 * tile, FLYER_ART[art], art)
        self.path_px = world.level.ref(obj, "path").points_px
        self.speed_px_s = float(obj.properties["speed_px_s"])

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        self.body.position = self.path_px[0]
        world.physics.add(self.body, sprite=self)

    def tick(self, world: LevelWorld) -> None:
        if self.squashed_tick(world):
            return
        tx, ty = platform_position(self.path_px, self.speed_px_s, (world.ticks + 1) * world.dt_s)
        x, y = self.body.position
        vx, vy = (tx - x) / world.dt_s, (ty - y) / world.dt_s
        self.body.velocity = (vx, vy)
        if abs(vx) > 1e-6:
            self.facing = 1 if vx > 0 else -1
