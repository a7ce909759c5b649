"""The level scene on the engine: drawing the level never changes it, at any display rate.

The simulation itself is tested without a window (``test_world.py``, ``test_entities.py``);
these ``gl`` tests run the whole :class:`~game.level_scene.LevelScene` on the engine with the
shared hidden window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.config import load_config
from engine.input.snapshot import ActionMap, InputSnapshot
from game.movement import PlayerTuning
from tests.small_picture import SMALL_PICTURE_OVERRIDES

ROOT = Path(__file__).resolve().parents[2]
LEVEL1 = ROOT / "levels" / "level1.json"
LEVEL2 = ROOT / "levels" / "level2.json"
LEVEL5 = ROOT / "levels" / "level5.json"
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

    def make(
        path: Path, display_hz: float = 60.0, overrides: tuple[str, ...] = (), **scene_kwargs: Any
    ) -> tuple[Any, Any]:
        config = load_config(None, overrides)
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


@pytest.mark.slow
@pytest.mark.gl
def test_same_script_gives_the_same_state_at_60_and_144_hz(make_engine: Any) -> None:
    hashes = {}
    for display_hz in (60.0, 144.0):
        engine, scene = make_engine(LEVEL2, display_hz, SMALL_PICTURE_OVERRIDES)
        scene.script = lambda tick, actions=engine.actions: scripted_input(tick, actions)
        run_ticks(engine, 600)
        assert engine.pacer.ticks == 600 and scene.sim.ticks == 600
        if display_hz == 144.0:
            assert engine.loop.frames > 1.5 * 600  # really drew more frames than ticks
        hashes[display_hz] = scene.state_hash()
        assert scene.coins_collected > 0  # the script did something
    assert hashes[60.0] == hashes[144.0]


@pytest.mark.gl
@pytest.mark.parametrize("shake", ["true", pytest.param("false", marks=pytest.mark.slow)])
def test_effects_on_or_off_the_replay_keeps_every_hash(make_engine: Any, shake: str) -> None:
    """Dust, sparks, the shake and the overlays are drawn from state: every hash still matches.

    Level 4's replay stomps nothing but crumbles stones (shake, debris) and collects coins
    (sparks); the small picture keeps it quick.
    """
    from engine.input.replay import ReplayVerifier, load_replay

    replay = load_replay(ROOT / "levels" / "replays" / "level4.replay")
    overrides = (f"video.screen_shake={shake}", *SMALL_PICTURE_OVERRIDES)
    engine, scene = make_engine(ROOT / "levels" / "level4.json", 60.0, overrides)
    verifier = ReplayVerifier(replay, source="level4")
    inputs = verifier.player(engine.actions)
    drawn = []
    scene.script = lambda tick: inputs.sample()
    while not inputs.finished:
        tick = scene.sim.ticks
        engine.run_frame()
        if scene.sim.ticks > tick:
            verifier.check(tick, scene.state_hash())
            xy, _ = scene.effects.particles(scene.sim.events, scene.sim.ticks - 0.5)
            drawn.append(len(xy))
    assert scene.completed
    assert max(drawn) > 0  # effects were really drawn along the way


@pytest.mark.gl
def test_the_scene_plays_a_level_and_draws_without_changing_state(make_engine: Any) -> None:
    from engine.input.replay import ReplayVerifier, load_replay

    replay = load_replay(ROOT / "levels" / "replays" / "level5.replay")
    completed = []
    engine, scene = make_engine(  # the subject is state, not pixels: a small picture
        LEVEL5, 60.0, SMALL_PICTURE_OVERRIDES, on_complete=lambda: completed.append(True)
    )
    inputs = ReplayVerifier(replay).player(engine.actions)
    scene.script = lambda tick: inputs.sample()
    while not scene.completed and engine.pacer.ticks < replay.tick_count + 5:
        engine.run_frame()
    assert scene.completed and completed == [True]
    assert scene.state_hash() == replay.hashes[-1]  # drawing every frame changed nothing
    assert scene._hud_text is not None
    assert f"coins {scene.coins_collected} / {len(scene.level.coins)}" in scene._hud_text.texts
    # rendering never changes the simulation
    before = scene.state_hash()
    for alpha in (0.0, 0.5, 1.0):
        engine.render_frame(alpha)
    assert scene.state_hash() == before
    # every entity with a look has a sprite; the crates are drawn at their interpolated pose
    import numpy as np

    from game.entities.crates import Crate

    sprites = scene._entity_sprites
    assert sprites is not None
    engine.render_frame(0.25)
    poses = scene.sim.physics.interpolated_poses(0.25)
    data = np.frombuffer(sprites.sprite_list._sprite_pos_angle_data, dtype=np.float32)
    for crate in scene.sim.entities.of_type(Crate):
        sprite = sprites.sprite(crate)
        assert sprite is not None
        slot = sprites.sprite_list.sprite_slot[sprite]
        row = scene.sim.physics.row_of(crate.body)
        assert np.allclose(data.reshape(-1, 4)[slot, :2], poses[row, :2], atol=1e-2)


@pytest.mark.gl
def test_the_first_frame_shows_tiles_entities_and_the_player(make_engine: Any) -> None:
    import arcade
    import numpy as np

    engine, scene = make_engine(LEVEL2, 60.0)
    engine.run(5)
    engine.render_frame(1.0)
    image = np.asarray(arcade.get_image(0, 0, *engine.window.get_size()).convert("RGB"))
    background = np.all(image.reshape(-1, 3) == np.array(scene.background_color[:3]), axis=1)
    assert 0.2 < background.mean() < 0.95  # sky and something drawn on it
    tilemap = scene._tilemap
    assert tilemap is not None and sum(len(layer.sprites) for layer in tilemap.layers) > 50
    sprites = scene._entity_sprites
    assert sprites is not None
    drawn = {type(entity).__name__ for entity in scene.sim.entities if sprites.sprite(entity)}
    assert {"Player", "Walker", "Spring", "Coin"} <= drawn
    # coins painted as tiles are not drawn by the map (their entities draw them)
    assert all(
        scene.level.tiles[gid & 0x0FFFFFFF].image.name != "coinGold.png"
        for layer in scene.level.layers
        for gid in getattr(layer, "cells", ())
        if gid
    )


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
