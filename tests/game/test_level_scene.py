"""The level scene: the player on the bundled levels, scripted tick by tick.

Most tests drive :class:`~game.world_builder.LevelWorld` (the scene's simulation) directly,
one ``tick(snapshot)`` at a time, without a window. The ``gl`` tests run the whole
:class:`~game.level_scene.LevelScene` on the engine with the shared hidden window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.config import load_config
from engine.input.snapshot import ActionMap, InputSnapshot
from engine.levels import load_level
from game.movement import PlayerTuning
from game.world_builder import LevelWorld, platform_position, scale_level

ROOT = Path(__file__).resolve().parents[2]
LEVEL1 = ROOT / "levels" / "level1.json"
LEVEL2 = ROOT / "levels" / "level2.json"
ACTIONS = ActionMap(("left", "right", "up", "down", "jump"))
TUNING = PlayerTuning()
TILE = TUNING.tile_px
DT_S = 1.0 / 60.0


def snap(
    held: Iterable[str] = (), pressed: Iterable[str] = (), actions: ActionMap = ACTIONS
) -> InputSnapshot:
    """A snapshot with ``held`` actions down and ``pressed`` ones going down this tick."""
    held, pressed = tuple(held), tuple(pressed)
    return InputSnapshot(actions, actions.mask(held + pressed), actions.mask(pressed))


def make_world(path: Path, **kwargs: Any) -> LevelWorld:
    return LevelWorld(scale_level(load_level(path), TILE), TUNING, DT_S, **kwargs)


def run(world: LevelWorld, ticks: int, held: Iterable[str] = ()) -> None:
    for _ in range(ticks):
        world.tick(snap(held))


def settle(world: LevelWorld, x_tiles: float, feet_tiles: float) -> None:
    """Put the player's feet at a place (in tiles) and let it come to rest."""
    world.teleport_player(x_tiles * TILE, feet_tiles * TILE)
    run(world, 10)
    assert world.state.grounded


# ---------------------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------------------


def test_scale_level_converts_map_px_to_game_px() -> None:
    raw = load_level(LEVEL2)
    level = scale_level(raw, TILE)
    assert level.tile_size_px == TILE
    assert level.player_start.rect.center_px == (3.5 * TILE, 4 * TILE)
    platform, raw_platform = level.moving_platforms[0], raw.moving_platforms[0]
    assert platform.speed_px_s == raw_platform.speed_px_s * TILE / raw.tile_size_px
    assert platform.path_px[0] == (25.5 * TILE, 3.75 * TILE)
    assert [c.id for c in level.coins] == [c.id for c in raw.coins]


def test_platform_position_goes_out_along_the_path_and_back() -> None:
    path = ((0.0, 0.0), (100.0, 0.0), (100.0, 50.0))  # 150 px long
    assert platform_position(path, 50.0, 0.0) == (0.0, 0.0)
    assert platform_position(path, 50.0, 1.0) == pytest.approx((50.0, 0.0))
    assert platform_position(path, 50.0, 2.5) == pytest.approx((100.0, 25.0))
    assert platform_position(path, 50.0, 3.0) == pytest.approx((100.0, 50.0))
    assert platform_position(path, 50.0, 4.0) == pytest.approx((100.0, 0.0))  # coming back
    assert platform_position(path, 50.0, 6.0) == pytest.approx((0.0, 0.0))
    assert platform_position(path, 50.0, 7.0) == pytest.approx((50.0, 0.0))  # and out again


# ---------------------------------------------------------------------------------------------
# The player on the levels
# ---------------------------------------------------------------------------------------------


def test_player_spawns_at_the_start_and_rests_on_the_ground() -> None:
    world = make_world(LEVEL1)
    start_x, start_feet = world.start_point
    assert (start_x, start_feet) == (3.5 * TILE, 4 * TILE)
    run(world, 30)
    assert world.state.grounded and world.contacts.grounded
    assert world.player.position.x == start_x
    assert world.feet_y_px == pytest.approx(start_feet, abs=0.5)
    y_after_30 = world.player.position.y
    run(world, 30)
    assert world.player.position.y == y_after_30  # resting, not sinking or bouncing
    assert world.deaths == 0 and not world.completed


def test_holding_right_runs_at_the_tuned_speed_and_collects_coins() -> None:
    world = make_world(LEVEL1)
    run(world, 10)
    xs = []
    for _ in range(60):
        world.tick(snap(["right"]))
        xs.append(world.player.position.x)
    speed_px_s = (xs[-1] - xs[-21]) / (20 * DT_S)
    assert speed_px_s == pytest.approx(TUNING.run_speed_px_s, rel=0.01)
    assert world.state.facing == 1
    # the first coins sit on the ground at tiles 9-11, on the way
    assert world.coins_collected >= 1
    first_coins = {c.id for c in world.level.coins if c.rect.left_px < 12 * TILE}
    assert first_coins <= world.collected


def test_a_jump_rises_the_tuned_height_and_lands_again() -> None:
    world = make_world(LEVEL1)
    run(world, 10)
    ground_feet = world.feet_y_px
    peak = ground_feet
    landed_at = None
    for i in range(90):
        world.tick(snap(["jump"], ["jump"] if i == 0 else []))
        peak = max(peak, world.feet_y_px)
        if i > 5 and world.state.grounded and landed_at is None:
            landed_at = i
    assert peak - ground_feet == pytest.approx(TUNING.jump_height_px, rel=0.1)
    assert landed_at is not None
    assert world.feet_y_px == pytest.approx(ground_feet, abs=0.5)  # landed exactly, not sunk


def test_walking_into_a_hazard_respawns_at_the_start() -> None:
    world = make_world(LEVEL2)
    run(world, 10)
    start = world.player.position
    died_at = None
    for i in range(200):
        world.tick(snap(["right"]))
        if world.deaths:
            died_at = i
            break
    assert died_at is not None, "the spikes at tiles 19-21 should have been hit"
    assert died_at > 20  # it walked there first (about 15 tiles at 10 tiles/s)
    assert world.player.position == start
    assert tuple(world.player.velocity) == (0.0, 0.0)
    # the respawn is a cut: no interpolation from the spikes back to the start
    row = world.world.row_of(world.player)
    assert tuple(world.world.previous[row]) == tuple(world.world.current[row])


def test_a_checkpoint_becomes_the_respawn_point() -> None:
    world = make_world(LEVEL2)
    (checkpoint,) = world.level.checkpoints
    settle(world, 35.5, 4)
    assert world.checkpoint_id is None
    run(world, 30, ["right"])  # walks through the flag at tile 37
    assert world.checkpoint_id == checkpoint.id
    assert world.respawn_point == (checkpoint.rect.center_px[0], checkpoint.rect.bottom_px)
    # fall onto the spikes in the pit at tiles 56-59
    world.teleport_player(57.5 * TILE, 3 * TILE)
    run(world, 60)
    assert world.deaths == 1
    assert world.player.position.x == checkpoint.rect.center_px[0]
    assert world.feet_y_px == pytest.approx(checkpoint.rect.bottom_px, abs=0.5)


def free_jump_rise_px() -> float:
    """How high a held jump from the flat start of level 1 rises, px."""
    world = make_world(LEVEL1)
    run(world, 10)
    ground_feet = peak = world.feet_y_px
    for i in range(60):
        world.tick(snap(["jump"], ["jump"] if i == 0 else []))
        peak = max(peak, world.feet_y_px)
    return peak - ground_feet


def test_one_way_platform_jump_through_from_below_then_drop_through() -> None:
    world = make_world(LEVEL2)
    platform_top = 6 * TILE  # the one-way row at tiles 7-11, 2 tiles above the ground
    settle(world, 9, 4)
    peak = world.feet_y_px
    for i in range(90):
        world.tick(snap(["jump"], ["jump"] if i == 0 else []))
        peak = max(peak, world.feet_y_px)
    # passing up through the platform does not disturb the jump: same peak as in open air
    assert peak - 4 * TILE == pytest.approx(free_jump_rise_px(), abs=0.01)
    assert world.state.grounded and world.contacts.on_one_way
    assert world.feet_y_px == pytest.approx(platform_top, abs=0.5)
    # standing still on it: no sinking
    run(world, 30)
    assert world.feet_y_px == pytest.approx(platform_top, abs=0.5)
    # down + jump drops through, back to the ground
    world.tick(snap(["down", "jump"], ["jump"]))
    run(world, 60, ["down"])
    assert world.state.grounded and not world.contacts.on_one_way
    assert world.feet_y_px == pytest.approx(4 * TILE, abs=0.5)
    assert world.deaths == 0


def test_down_alone_does_not_drop_through_and_jump_alone_jumps() -> None:
    world = make_world(LEVEL2)
    settle(world, 9, 6.2)  # dropped onto the one-way platform from above
    assert world.feet_y_px == pytest.approx(6 * TILE, abs=0.5)
    run(world, 30, ["down"])
    assert world.feet_y_px == pytest.approx(6 * TILE, abs=0.5)
    peak = world.feet_y_px
    for i in range(60):
        world.tick(snap(["jump"], ["jump"] if i == 0 else []))
        peak = max(peak, world.feet_y_px)
    assert peak > 8 * TILE
    assert world.feet_y_px == pytest.approx(6 * TILE, abs=0.5)  # landed on it again


def test_a_moving_platform_carries_the_player() -> None:
    world = make_world(LEVEL2)
    (body,) = world.platforms
    x0 = body.position.x
    world.teleport_player(x0, 4 * TILE)
    run(world, 120)
    moved_px = body.position.x - x0
    assert moved_px > 2 * TILE  # the platform went right (48 px/s for 2 s)
    assert world.player.position.x - x0 == pytest.approx(moved_px, abs=1.0)
    assert world.state.grounded and world.deaths == 0
    assert world.contacts.ground_velocity_px_s[0] == pytest.approx(body.velocity.x)
    assert world.feet_y_px == pytest.approx(4 * TILE, abs=0.5)


def test_a_lift_carries_the_player_up_to_the_ledge() -> None:
    world = make_world(ROOT / "levels" / "level3.json")
    lift = world.platforms[1]  # level 3's second platform goes straight up 6 tiles and back
    path = world.level.moving_platforms[1].path_px
    assert path[0][0] == path[1][0] and path[1][1] > path[0][1]
    platform_half_height = world.level.moving_platforms[1].rect.height_px / 2
    world.teleport_player(lift.position.x, lift.position.y + platform_half_height)
    for _ in range(280):  # 6 tiles at 1.25 tiles/s: 4.8 s (288 ticks) up
        world.tick(snap())
        lift_top = lift.position.y + platform_half_height
        assert world.feet_y_px == pytest.approx(lift_top, abs=0.5)
    assert world.state.grounded and world.deaths == 0
    ledge_top = 36 * TILE
    assert 0 < ledge_top - world.feet_y_px < TILE / 4  # nearly level with the top ledge
    run(world, 60, ["right"])  # a small step: walks off onto the ledge without jumping
    assert world.state.grounded and world.feet_y_px == pytest.approx(ledge_top, abs=0.5)
    assert world.player.position.x > 56.5 * TILE and world.deaths == 0


def test_walls_stop_the_player_flush_and_are_reported() -> None:
    world = make_world(LEVEL1)
    run(world, 60, ["left"])  # into the full-height wall at tile 0
    left, _, _, _ = world.player_box()
    assert left == pytest.approx(1 * TILE, abs=0.01)
    assert world.contacts.wall_left and not world.contacts.wall_right
    assert world.state.vx_px_s == 0.0 and world.state.grounded


def hop_right_until(x_tiles: float) -> Callable[[LevelWorld], InputSnapshot]:
    """Input that holds right and bunny-hops while the player is left of ``x_tiles``."""

    def script(world: LevelWorld) -> InputSnapshot:
        if world.player.position.x < x_tiles * TILE:
            return snap(["right", "jump"], ["jump"])
        return snap(["right"])

    return script


def test_running_and_jumping_through_level_1_reaches_the_exit() -> None:
    calls = []
    world = make_world(LEVEL1, on_complete=lambda: calls.append(world.ticks))
    script = hop_right_until(70)
    for _ in range(900):
        world.tick(script(world))
        if world.completed:
            break
    assert world.completed
    (exit_,) = world.level.exits
    assert world.player.position.x > exit_.rect.left_px - TILE
    assert world.coins_collected >= 5
    run(world, 30, ["right"])  # still touching the exit: called once only
    assert calls == [calls[0]] and len(calls) == 1


def test_same_input_gives_the_same_state_hash() -> None:
    def play() -> str:
        world = make_world(LEVEL2)
        for tick in range(300):
            world.tick(scripted_input(tick, ACTIONS))
        return world.state_hash()

    assert play() == play()


# ---------------------------------------------------------------------------------------------
# The scene on the engine (GL)
# ---------------------------------------------------------------------------------------------


def scripted_input(tick: int, actions: ActionMap) -> InputSnapshot:
    """A fixed input pattern: run right, hop every 45 ticks, back left a little now and then."""
    held = ["left"] if tick % 240 >= 200 else ["right"]
    pressed = ["jump"] if tick % 45 == 0 else []
    if tick % 45 < 20:
        held.append("jump")
    return snap(held, pressed, actions)


@pytest.fixture
def make_engine(gl_window: Any) -> Iterator[Callable[..., tuple[Any, Any]]]:
    from engine.runtime.engine import Engine
    from game.level_scene import LevelScene

    engines = []

    def make(path: Path, display_hz: float = 60.0, **scene_kwargs: Any) -> tuple[Any, Any]:
        config = load_config(None)
        engine = Engine(gl_window, config, headless=True, display_hz=display_hz, probe_frames=0)
        scene = LevelScene.for_engine(engine, path, TUNING, **scene_kwargs)
        engine.show(scene)
        engines.append(engine)
        return engine, scene

    yield make
    for engine in engines:
        engine.close()


def run_ticks(engine: Any, ticks: int) -> None:
    while engine.pacer.ticks < ticks:
        engine.run_frame()


@pytest.mark.gl
def test_same_script_gives_the_same_state_at_60_and_144_hz(make_engine: Any) -> None:
    hashes = {}
    for display_hz in (60.0, 144.0):
        engine, scene = make_engine(LEVEL2, display_hz)
        scene.script = lambda tick, actions=engine.actions: scripted_input(tick, actions)
        run_ticks(engine, 600)
        assert engine.pacer.ticks == 600 and scene.sim.ticks == 600
        if display_hz == 144.0:
            assert engine.loop.frames > 1.5 * 600  # really drew more frames than ticks
        hashes[display_hz] = scene.state_hash()
        assert scene.coins_collected > 0  # the script did something
    assert hashes[60.0] == hashes[144.0]


@pytest.mark.gl
def test_the_scene_plays_level_1_to_the_exit_and_draws_without_changing_state(
    make_engine: Any,
) -> None:
    completed = []
    engine, scene = make_engine(LEVEL1, 60.0, on_complete=lambda: completed.append(True))

    def script(tick: int) -> InputSnapshot:
        if scene.sim.player.position.x < 70 * TILE:
            return snap(["right", "jump"], ["jump"], engine.actions)
        return snap(["right"], (), engine.actions)

    scene.script = script
    while not scene.completed and engine.pacer.ticks < 900:
        engine.run_frame()
    assert scene.completed and completed == [True]
    assert scene.coins_collected >= 5
    # collected coins are no longer drawn; the HUD counts them
    assert len(scene._coin_list) == len(scene.level.coins) - scene.coins_collected
    assert scene._hud_text is not None
    assert f"coins {scene.coins_collected} / {len(scene.level.coins)}" in scene._hud_text.text
    assert scene.level.name in scene._hud_text.text
    # rendering never changes the simulation
    before = scene.state_hash()
    for alpha in (0.0, 0.5, 1.0):
        engine.render_frame(alpha)
    assert scene.state_hash() == before
    # the player sprite is drawn (SpriteSync's bulk write) at the interpolated pose
    import numpy as np

    engine.render_frame(0.25)
    row = scene.sim.world.row_of(scene.sim.player)
    pose = scene.sim.world.interpolated_poses(0.25)[row]
    data = np.frombuffer(scene.body_sprites._sprite_pos_angle_data, dtype=np.float32)
    slot = scene.body_sprites.sprite_slot[scene.player_sprite]
    assert np.allclose(data.reshape(-1, 4)[slot, :2], pose[:2], atol=1e-2)


@pytest.mark.gl
def test_the_first_frame_shows_tiles_and_the_player(make_engine: Any) -> None:
    import arcade
    import numpy as np

    engine, scene = make_engine(LEVEL1, 60.0)
    engine.run(5)
    engine.render_frame(1.0)
    image = np.asarray(arcade.get_image(0, 0, *engine.window.get_size()).convert("RGB"))
    background = np.all(image.reshape(-1, 3) == np.array(scene.background_color[:3]), axis=1)
    assert 0.2 < background.mean() < 0.95  # sky and something drawn on it
    assert scene._tile_lists and sum(len(s) for s in scene._tile_lists) > 50
    # the map's coin objects are not drawn from the tile map (the scene draws the live coins),
    # the exit sign is
    classes = [sp.properties.get("class") for sl in scene._tile_lists for sp in sl]
    assert "coin" not in classes and "exit" in classes
    assert len(scene._coin_list) == len(scene.level.coins)


@pytest.mark.gl
def test_a_scene_built_for_another_tick_length_refuses_to_tick(gl_window: Any) -> None:
    from engine.runtime.engine import Engine
    from game.level_scene import LevelScene

    engine = Engine(gl_window, load_config(None), headless=True, probe_frames=0)
    try:
        engine.show(LevelScene(LEVEL1, TUNING, step_s=1.0 / 120.0))
        with pytest.raises(ValueError, match="for_engine"):
            engine.run(3)
    finally:
        engine.close()
