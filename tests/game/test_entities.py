"""The sample game's objects, each alone on a small map: what they do, tick by tick.

Every map here is a real Tiled file (:mod:`tests.game.tiny_maps`) loaded with the game's kinds,
so each test goes through the loader, the kind's property checks and the entity it builds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pymunk
import pytest

from engine.config import PhysicsConfig
from engine.entities import Entity
from engine.input.snapshot import ActionMap, InputSnapshot
from engine.levels import Kind, KindRegistry, LevelObject, Prop
from game.entities import ENTITY_CLASSES
from game.entities.crates import Crate
from game.entities.enemies import SQUASHED_TICKS, Flyer, Walker
from game.entities.platforms import CrumblingPlatform, Swing
from game.entities.zones import Coin
from game.kinds import KINDS, game_kinds
from game.movement import PlayerTuning
from game.world_builder import LevelWorld
from tests.game.tiny_maps import obj, write_map

ACTIONS = ActionMap(("left", "right", "up", "down", "jump"))
TUNING = PlayerTuning()
TILE = TUNING.tile_px
DT_S = 1.0 / 60.0

#: A room 30 tiles wide, 10 high: walls at both ends, the floor's top at y = 2 tiles.
ROOM = ["#" + " " * 28 + "#"] * 8 + ["#" * 30] * 2


def snap(held: Iterable[str] = (), pressed: Iterable[str] = ()) -> InputSnapshot:
    held, pressed = tuple(held), tuple(pressed)
    return InputSnapshot(ACTIONS, ACTIONS.mask(held + pressed), ACTIONS.mask(pressed))


def world_with(
    tmp_path: Path, *objects: dict[str, Any], rows: list[str] = ROOM, **options: Any
) -> LevelWorld:
    things = [obj("player_start", 3, 2), obj("exit", 27, 2, 1, 1), *objects]
    path = write_map(tmp_path / "room.json", rows, things)
    return LevelWorld.load(path, TUNING, DT_S, **options)


def run(world: LevelWorld, ticks: int, held: Iterable[str] = ()) -> None:
    for _ in range(ticks):
        world.tick(snap(held))


def tiles(px: float) -> float:
    return px / TILE


# ---------------------------------------------------------------------------------------------
# Coins
# ---------------------------------------------------------------------------------------------


def test_a_coin_is_collected_once_and_leaves_the_level(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("coin", 6, 2, 1, 1))
    (coin,) = world.entities.of_type(Coin)
    run(world, 40, ["right"])
    assert world.collected == {coin.object_id} and world.coins_collected == 1
    assert not coin.alive and coin not in list(world.entities)
    assert [e.name for e in world.events].count("coin") == 1


# ---------------------------------------------------------------------------------------------
# Enemies
# ---------------------------------------------------------------------------------------------


def test_a_walker_turns_at_a_wall(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("walker", 25, 2, facing="right", speed_px_s=256.0))
    (walker,) = world.entities.of_type(Walker)
    xs = []
    for _ in range(150):
        world.tick(snap())
        xs.append(tiles(float(walker.body.position.x)))
    assert max(xs) < 29.0  # never into the wall at tile 29
    assert walker.facing == -1 and xs[-1] < max(xs)
    assert float(walker.body.position.y) == pytest.approx((2 + 0.55 / 2) * TILE)


def test_a_walker_never_walks_off_a_ledge(tmp_path: Path) -> None:
    rows = [*ROOM[:8], "#" + " " * 12 + "#" * 6 + " " * 10 + "#", "#" * 30]
    # a raised block from tile 13 to 18, top at y = 2; the floor elsewhere is at y = 1
    world = world_with(tmp_path, obj("walker", 15, 2, speed_px_s=256.0), rows=rows)
    (walker,) = world.entities.of_type(Walker)
    for _ in range(240):
        world.tick(snap())
        x = tiles(float(walker.body.position.x))
        assert x - 0.4 >= 13.0 - 1e-6 and x + 0.4 <= 19.0 + 1e-6, x


def test_stomping_a_walker_squashes_it_and_bounces_the_player(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("walker", 10, 2, speed_px_s=0.0))
    (walker,) = world.entities.of_type(Walker)
    world.player.teleport(world, 10.5 * TILE, 5 * TILE)  # above it, falling
    for _ in range(60):
        world.tick(snap())
        if walker.squashed_until_tick is not None:
            break
    assert walker.squashed_until_tick is not None and world.deaths == 0
    assert world.player.state.vy_px_s > 0  # bounced up
    assert [e.name for e in world.events][-1] == "stomp"
    run(world, SQUASHED_TICKS + 1)
    assert not walker.alive and world.deaths == 0


def test_walking_into_a_walker_hurts(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("walker", 8, 2, speed_px_s=0.0))
    run(world, 60, ["right"])
    assert world.deaths == 1 and world.player.hurt


def test_a_flyer_goes_back_and_forth_along_its_path(tmp_path: Path) -> None:
    route = [(5.0, 6.0), (15.0, 6.0)]
    world = world_with(
        tmp_path,
        obj("path", 0, 0, name="air", polyline=route),
        obj("flyer", 5, 6, path="air", speed_px_s=640.0),  # 5 tiles/s: 2 s one way
    )
    (flyer,) = world.entities.of_type(Flyer)
    run(world, 60)
    assert tiles(float(flyer.body.position.x)) == pytest.approx(10.0) and flyer.facing == 1
    run(world, 120)
    assert tiles(float(flyer.body.position.x)) == pytest.approx(10.0) and flyer.facing == -1
    assert tiles(float(flyer.body.position.y)) == pytest.approx(6.0)


# ---------------------------------------------------------------------------------------------
# Springs and ladders
# ---------------------------------------------------------------------------------------------


def test_a_spring_throws_the_player_its_launch_height(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("spring", 6, 2, 1, 1, launch_height_tiles=5.0))
    ground = 2 * TILE
    peak = 0.0
    world.player.teleport(world, 6.5 * TILE, ground)
    for _ in range(45):  # the first bounce: up and starting down again
        world.tick(snap())
        peak = max(peak, world.player.feet_y_px)
    assert tiles(peak - ground) == pytest.approx(5.0, abs=0.01)
    assert "spring" in [e.name for e in world.events]


def test_climbing_a_ladder_up_off_its_top_and_back_down(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("ladder", 8, 2, 1, 5))  # from y = 2 up to y = 7
    player = world.player
    player.teleport(world, 8.3 * TILE, 2 * TILE)  # a little off the ladder's middle
    run(world, 5)
    run(world, 10, ["up"])
    assert player.state.climbing
    assert float(player.body.position.x) == pytest.approx(8.5 * TILE)  # moved onto its middle
    run(world, 90, ["up"])
    # off the top: standing on the ladder's top ledge, no longer climbing
    assert not player.state.climbing and player.state.grounded
    assert tiles(player.feet_y_px) == pytest.approx(7.0, abs=0.02)
    run(world, 30)
    assert tiles(player.feet_y_px) == pytest.approx(7.0, abs=0.02)  # stands there
    run(world, 20, ["down"])  # down climbs back down through the ledge
    assert player.state.climbing and tiles(player.feet_y_px) < 6.5
    run(world, 5, ["down"])
    climbing_y = player.feet_y_px
    run(world, 20)  # let go: climbing, no gravity, it stays put
    assert player.feet_y_px == pytest.approx(climbing_y)
    world.tick(snap(["jump", "right"], ["jump"]))  # jump off
    run(world, 5, ["jump", "right"])
    assert not player.state.climbing and player.feet_y_px > climbing_y


# ---------------------------------------------------------------------------------------------
# Crumbling platforms, crates and the swing
# ---------------------------------------------------------------------------------------------


def test_a_crumbling_platform_falls_after_its_delay_and_comes_back(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("crumbling_platform", 10, 5, 1, 1, delay_s=0.5, respawn_s=2.0))
    (brick,) = world.entities.of_type(CrumblingPlatform)
    world.player.teleport(world, 10.5 * TILE, 6 * TILE)
    run(world, 5)
    assert brick.phase == "shaking" and world.player.state.grounded
    run(world, 30)
    assert brick.phase == "falling" and brick.shape.sensor
    fell_at = brick.fell_at_tick
    run(world, 60)
    assert world.player.state.grounded and tiles(world.player.feet_y_px) == pytest.approx(2.0)
    assert brick.phase == "gone" and not brick.visible
    run(world, fell_at + 121 - world.ticks)  # the tick that began at fell_at + 120 has run
    assert brick.phase == "solid" and world.ticks == fell_at + 121
    assert not brick.shape.sensor and brick.visible
    assert tiles(float(brick.body.position.y)) == pytest.approx(5.5)
    assert "crumble" in [e.name for e in world.events]


def test_a_crumbling_platform_waits_until_its_place_is_clear(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("crumbling_platform", 10, 2, 1, 1, delay_s=0.1, respawn_s=1.0))
    (brick,) = world.entities.of_type(CrumblingPlatform)
    world.player.teleport(world, 10.5 * TILE, 3 * TILE)
    run(world, 120)  # it crumbled; the player fell into its place, on the floor
    assert brick.phase == "gone" and tiles(world.player.feet_y_px) == pytest.approx(2.0)
    run(world, 40, ["right"])
    run(world, 2)
    assert brick.phase == "solid"


def test_the_player_pushes_a_crate_until_a_wall_stops_it(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("crate", 10, 2, 1, 1))
    (crate,) = world.entities.of_type(Crate)
    run(world, 30)  # it settles on the floor
    assert tiles(float(crate.body.position.y)) == pytest.approx(2.5, abs=0.01)
    world.player.teleport(world, 8.5 * TILE, 2 * TILE)
    start = float(crate.body.position.x)
    run(world, 60, ["right"])
    pushed_px = float(crate.body.position.x) - start
    assert pushed_px > 2 * TILE  # pushed, at about half the run speed
    assert pushed_px < TUNING.run_speed_px_s * 1.0  # slower than running
    run(world, 200, ["right"])  # all the way to the wall at tile 29
    assert tiles(float(crate.body.position.x)) == pytest.approx(28.5, abs=0.05)
    _, _, right, _ = world.player.box()
    assert tiles(right) == pytest.approx(28.0, abs=0.05)  # stopped flush, not inside it
    assert world.deaths == 0 and "crate" in [e.name for e in world.events]


def test_crates_fall_and_stack(tmp_path: Path) -> None:
    world = world_with(tmp_path, obj("crate", 12, 2, 1, 1), obj("crate", 12, 6, 1, 1))
    _, high = sorted(world.entities.of_type(Crate), key=lambda c: float(c.body.position.y))
    run(world, 90)
    assert tiles(float(high.body.position.y)) == pytest.approx(3.5, abs=0.02)  # on the other
    assert abs(float(high.body.velocity.y)) < 1.0


def test_physics_gravity_acts_on_crates(tmp_path: Path) -> None:
    def drop(gravity: float) -> float:
        world = world_with(
            tmp_path,
            obj("crate", 12, 8, 1, 1),
            physics=PhysicsConfig(gravity_px_s2=gravity),
        )
        (crate,) = world.entities.of_type(Crate)
        run(world, 10)
        return 8.5 * TILE - float(crate.body.position.y)

    assert drop(-3600.0) > 1.8 * drop(-1800.0)


def test_the_swing_is_a_pendulum_the_player_rides_and_weighs_down(tmp_path: Path) -> None:
    def swing_world(rider: bool) -> tuple[LevelWorld, Swing]:
        world = world_with(
            tmp_path, obj("swing", 14, 3, 3, 0.5, rope_px=384.0, start_angle_deg=30.0)
        )
        (swing,) = world.entities.of_type(Swing)
        if rider:
            x, y = swing.body.position
            world.player.teleport(world, float(x), float(y) + 0.25 * TILE)
        return world, swing

    world, swing = swing_world(rider=False)
    pivot = swing.pivot_px
    xs = []
    for _ in range(240):
        world.tick(snap())
        x, y = swing.body.position
        assert math.dist(pivot, (float(x), float(y))) == pytest.approx(3 * TILE, abs=1.0)
        xs.append(float(x))
    assert min(xs) < pivot[0] - TILE and max(xs) > pivot[0] + TILE  # it swings both ways
    ridden, ridden_swing = swing_world(rider=True)
    run(ridden, 120)
    assert ridden.player.state.grounded and ridden.deaths == 0  # the player rides it
    assert ridden.player.ground_body is ridden_swing.body
    lone, lone_swing = swing_world(rider=False)
    run(lone, 120)
    assert ridden_swing.body.position != lone_swing.body.position  # the weight changed it


# ---------------------------------------------------------------------------------------------
# A kind added from outside the engine
# ---------------------------------------------------------------------------------------------

BOUNCER = Kind(
    "bouncer",
    ("point",),
    props=(Prop("speed_px_s", float, 64.0, unit="px/s", min=0, max=1000, doc="Bob speed."),),
    doc="A blob that bobs up and down.",
)


class Bouncer(Entity):
    """The engine docstring's example kind, defined here, outside ``engine/`` and ``game/``."""

    order = 20

    def __init__(self, level_object: LevelObject, world: LevelWorld) -> None:
        super().__init__()
        self.speed_px_s = float(level_object.properties["speed_px_s"])
        self.start = level_object.position_px

    def on_spawn(self, world: LevelWorld) -> None:
        self.body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        self.body.position = self.start
        world.physics.add(self.body, sprite=self)

    def tick(self, world: LevelWorld) -> None:
        going_up = (world.ticks // 30) % 2 == 0
        self.body.velocity = (0.0, self.speed_px_s if going_up else -self.speed_px_s)

    def hash_state(self) -> tuple[object, ...]:
        return (self.speed_px_s,)


def test_a_game_adds_a_kind_without_touching_the_engine(tmp_path: Path) -> None:
    kinds = game_kinds()
    kinds.register(BOUNCER)
    classes = {**ENTITY_CLASSES, "bouncer": Bouncer}
    path = write_map(
        tmp_path / "bouncy.json",
        ROOM,
        [
            obj("player_start", 3, 2),
            obj("exit", 27, 2, 1, 1),
            obj("bouncer", 10, 5, speed_px_s=256.0),
        ],
    )
    world = LevelWorld.load(path, TUNING, DT_S, kinds=kinds, entity_classes=classes)
    (bouncer,) = world.entities.of_type(Bouncer)
    assert bouncer.speed_px_s == 256.0 * TILE / 128  # a px/s property, scaled with the map
    y0 = float(bouncer.body.position.y)
    run(world, 30)
    assert float(bouncer.body.position.y) == pytest.approx(y0 + 64.0 * 0.5)
    run(world, 30)
    assert float(bouncer.body.position.y) == pytest.approx(y0)
    # the game's own registry does not know it: the loader says so in one line
    from engine.levels import LevelError, load_level

    with pytest.raises(LevelError, match='unknown object class "bouncer"'):
        load_level(path, KINDS)


def test_a_kinds_registry_refuses_a_second_kind_of_the_same_name() -> None:
    kinds = KindRegistry()
    with pytest.raises(ValueError, match="registered already"):
        kinds.register(Kind("coin", ("point",)))
