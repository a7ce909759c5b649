"""The level world: the player on the bundled levels, scripted tick by tick, without a window.

:class:`~game.world_builder.LevelWorld` is the sample game's whole simulation, so these tests
drive it directly, one ``tick(snapshot)`` at a time. Places are taken from the levels' own
objects (the start, a ladder, a checkpoint), not from numbers copied out of the maps.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from engine.input.snapshot import ActionMap, InputSnapshot
from game.movement import PlayerTuning
from game.paths import platform_position
from game.world_builder import LevelWorld

ROOT = Path(__file__).resolve().parents[2]
LEVELS = ROOT / "levels"
ACTIONS = ActionMap(("left", "right", "up", "down", "jump"))
TUNING = PlayerTuning()
TILE = TUNING.tile_px
DT_S = 1.0 / 60.0


def snap(held: Iterable[str] = (), pressed: Iterable[str] = ()) -> InputSnapshot:
    """A snapshot with ``held`` actions down and ``pressed`` ones going down this tick."""
    held, pressed = tuple(held), tuple(pressed)
    return InputSnapshot(ACTIONS, ACTIONS.mask(held + pressed), ACTIONS.mask(pressed))


def make_world(number: int, **kwargs: Any) -> LevelWorld:
    return LevelWorld.load(LEVELS / f"level{number}.json", TUNING, DT_S, **kwargs)


def run(world: LevelWorld, ticks: int, held: Iterable[str] = ()) -> None:
    for _ in range(ticks):
        world.tick(snap(held))


def settle(world: LevelWorld, x_px: float, feet_px: float) -> None:
    """Put the player's feet at a place and let it come to rest."""
    world.player.teleport(world, x_px, feet_px)
    run(world, 10)
    assert world.player.state.grounded


def x_of(world: LevelWorld) -> float:
    return float(world.player.body.position.x)


# ---------------------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------------------


def test_a_level_is_scaled_to_the_game_tile_size_with_its_lengths() -> None:
    world = make_world(3)
    level = world.level
    assert level.tile_size_px == TILE and level.map_tile_px == 128
    (ferry,) = level.moving_platforms
    assert ferry.properties["speed_px_s"] == 3.0 * TILE  # 3 tiles/s in the map: 384 px/s
    assert level.ref(ferry, "path").points_px[0] == pytest.approx(ferry.rect.center_px)


def test_platform_position_goes_out_along_the_path_and_back() -> None:
    path = ((0.0, 0.0), (100.0, 0.0), (100.0, 50.0))  # 150 px long
    assert platform_position(path, 50.0, 0.0) == (0.0, 0.0)
    assert platform_position(path, 50.0, 1.0) == pytest.approx((50.0, 0.0))
    assert platform_position(path, 50.0, 2.5) == pytest.approx((100.0, 25.0))
    assert platform_position(path, 50.0, 3.0) == pytest.approx((100.0, 50.0))
    assert platform_position(path, 50.0, 4.0) == pytest.approx((100.0, 0.0))  # coming back
    assert platform_position(path, 50.0, 6.0) == pytest.approx((0.0, 0.0))
    assert platform_position(path, 50.0, 7.0) == pytest.approx((50.0, 0.0))  # and out again
    assert platform_position(path, 50.0, 0.0, start_px=25.0) == pytest.approx((25.0, 0.0))


# ---------------------------------------------------------------------------------------------
# The player on the levels
# ---------------------------------------------------------------------------------------------


def test_player_spawns_at_the_start_and_rests_on_the_ground() -> None:
    world = make_world(1)
    start_x, start_feet = world.level.player_start.feet_px
    run(world, 30)
    player = world.player
    assert player.state.grounded and player.contacts.grounded
    assert x_of(world) == start_x
    assert player.feet_y_px == pytest.approx(start_feet, abs=0.5)
    y_after_30 = player.body.position.y
    run(world, 30)
    assert player.body.position.y == y_after_30  # resting, not sinking or bouncing
    assert world.deaths == 0 and not world.completed


def test_holding_right_runs_at_the_tuned_speed() -> None:
    world = make_world(1)
    run(world, 10)
    xs = []
    for _ in range(40):
        world.tick(snap(["right"]))
        xs.append(x_of(world))
    speed_px_s = (xs[-1] - xs[-21]) / (20 * DT_S)
    assert speed_px_s == pytest.approx(TUNING.run_speed_px_s, rel=0.01)
    assert world.player.state.facing == 1


def test_a_jump_rises_the_tuned_height_and_lands_again() -> None:
    world = make_world(1)
    run(world, 10)
    ground_feet = peak = world.player.feet_y_px
    landed_at = None
    for i in range(90):
        world.tick(snap(["jump"], ["jump"] if i == 0 else []))
        peak = max(peak, world.player.feet_y_px)
        if i > 5 and world.player.state.grounded and landed_at is None:
            landed_at = i
    assert peak - ground_feet == pytest.approx(TUNING.jump_height_px, rel=0.1)
    assert landed_at is not None
    assert world.player.feet_y_px == pytest.approx(ground_feet, abs=0.5)  # landed, not sunk
    names = [event.name for event in world.events]
    assert names[names.index("jump") + 1] == "land"  # after the landing at the start


def test_walls_stop_the_player_flush_and_are_reported() -> None:
    world = make_world(1)
    run(world, 120, ["right"])  # into the first raised block, two tiles high
    _, _, right, _ = world.player.box()
    block = min(r.left_px for r in world.level.solid_rects if r.left_px > x_of(world) - TILE)
    assert right == pytest.approx(block, abs=0.01)
    assert world.player.contacts.wall_right and not world.player.contacts.wall_left
    assert world.player.state.vx_px_s == 0.0 and world.player.state.grounded


def test_falling_on_spikes_hurts_freezes_then_respawns_at_the_start() -> None:
    world = make_world(1)
    (hazard, *_) = world.level.hazards
    start_x, start_feet = world.level.player_start.feet_px
    world.player.teleport(world, hazard.rect.center_px[0], hazard.rect.top_px + TILE)
    hurt_tick = None
    for _ in range(120):
        world.tick(snap())
        if world.player.hurt and hurt_tick is None:
            hurt_tick = world.ticks
        if hurt_tick is not None and not world.player.hurt:
            break
    assert hurt_tick is not None and world.deaths == 1
    from game.entities.player import HURT_TICKS

    assert world.ticks - hurt_tick == HURT_TICKS  # frozen for a moment, then back
    assert x_of(world) == start_x
    assert world.player.feet_y_px == pytest.approx(start_feet)
    # the respawn is a cut: no interpolation from the spikes back to the start
    row = world.physics.row_of(world.player.body)
    assert tuple(world.physics.previous[row]) == tuple(world.physics.current[row])
    assert [e.name for e in world.events][-2:] == ["hurt", "respawn"]


def test_a_checkpoint_becomes_the_respawn_point() -> None:
    world = make_world(3)
    (checkpoint,) = world.level.checkpoints
    x, feet = checkpoint.feet_px
    settle(world, x - 2 * TILE, feet)
    assert world.checkpoint_id is None
    run(world, 30, ["right"])  # walks through the flag
    assert world.checkpoint_id == checkpoint.id
    assert world.respawn_point == checkpoint.feet_px
    world.player.hurt_by(world, "test")
    run(world, 60)
    assert world.deaths == 1
    assert x_of(world) == checkpoint.feet_px[0]
    assert world.player.feet_y_px == pytest.approx(feet, abs=0.5)


def test_one_way_platform_jump_through_from_below_then_drop_through() -> None:
    world = make_world(3)
    step = min(world.level.one_way_rects, key=lambda r: r.top_px)  # two tiles above the ground
    ground = world.level.player_start.feet_px[1]
    settle(world, step.center_px[0], ground)
    for i in range(90):
        world.tick(snap(["jump"], ["jump"] if i == 0 else []))
    player = world.player
    assert player.state.grounded and player.contacts.on_one_way
    assert player.feet_y_px == pytest.approx(step.top_px, abs=0.5)
    run(world, 30)  # standing still on it: no sinking
    assert player.feet_y_px == pytest.approx(step.top_px, abs=0.5)
    run(world, 30, ["down"])  # down alone does nothing
    assert player.feet_y_px == pytest.approx(step.top_px, abs=0.5)
    world.tick(snap(["down", "jump"], ["jump"]))  # down + jump drops through
    run(world, 60, ["down"])
    assert player.state.grounded and not player.contacts.on_one_way
    assert player.feet_y_px == pytest.approx(ground, abs=0.5)
    assert world.deaths == 0


def test_a_moving_platform_carries_the_player() -> None:
    world = make_world(3)
    from game.entities.platforms import MovingPlatform

    (ferry,) = world.entities.of_type(MovingPlatform)
    x0 = float(ferry.body.position.x)
    top = float(ferry.body.position.y) + ferry.obj.rect.height_px / 2
    world.player.teleport(world, x0, top)
    run(world, 120)
    moved_px = float(ferry.body.position.x) - x0
    assert moved_px > 4 * TILE  # the ferry went right
    one_tick_px = ferry.speed_px_s * DT_S  # the first tick: standing still as the ferry sets off
    assert x_of(world) - x0 == pytest.approx(moved_px, abs=one_tick_px)
    player = world.player
    assert player.state.grounded and world.deaths == 0
    assert player.contacts.ground_velocity_px_s[0] == pytest.approx(ferry.body.velocity.x)


def test_same_input_gives_the_same_state_hash_and_rendering_is_not_state() -> None:
    def play() -> str:
        world = make_world(2)
        for tick in range(400):
            held = ["right"] + (["jump"] if tick % 45 < 20 else [])
            world.tick(snap(held, ["jump"] if tick % 45 == 0 else []))
        return world.state_hash()

    assert play() == play()


def test_the_hash_covers_the_entities() -> None:
    world, twin = make_world(2), make_world(2)
    run(world, 5), run(twin, 5)
    assert world.state_hash() == twin.state_hash()
    from game.entities.enemies import Walker

    twin.entities.of_type(Walker)[0].facing *= -1  # a change only an entity knows
    assert world.state_hash() != twin.state_hash()


def test_on_complete_is_called_once_inside_the_tick() -> None:
    calls: list[int] = []
    world = make_world(1, on_complete=lambda: calls.append(world.ticks))
    (goal,) = world.level.exits
    world.player.teleport(world, goal.rect.left_px + TILE, goal.rect.bottom_px)
    run(world, 30, ["right"])
    assert world.completed and calls == [calls[0]] and len(calls) == 1
