"""The ghost: the personal best's attempt re-simulated in lockstep, drawn and nothing more."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.app.ghost import Ghost, ghost_replays
from engine.app.run_file import GAME_ACTIONS
from engine.config import load_config
from engine.input.replay import ReplayError, ReplayVerifier, load_replay
from engine.input.snapshot import InputSnapshot
from game.level_scene import LevelScene
from game.movement import PlayerTuning
from tests.engine.app.sample_game import BUNDLED_RUN, GAME, LEVELS_DIR, SECTIONS
from tests.engine.app.test_speedrun import finish_run, timed  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[3]
LEVEL1 = LEVELS_DIR / "level1.json"
REPLAY1 = load_replay(LEVELS_DIR / "replays" / "level1.replay")
SETTINGS = GAME.default_settings()
SCREENSHOT = Path("/tmp/ghost-test.png")


def test_the_ghost_replays_the_recorded_attempt_tick_for_tick() -> None:
    ghost = Ghost(GAME, LEVEL1, REPLAY1, SETTINGS, GAME_ACTIONS)
    for tick in range(REPLAY1.tick_count):
        ghost.tick()
        assert ghost.world.state_hash() == REPLAY1.hashes[tick], tick
    assert ghost.finished and ghost.world.completed
    ghost.tick()  # it stays at the exit
    assert ghost.world.ticks == REPLAY1.tick_count


@pytest.mark.gl
def test_the_state_hash_is_the_same_with_the_ghost_on_or_off(gl_window: Any) -> None:
    """The player plays the bundled inputs for level 1; the ghost follows other inputs."""
    plain = LevelScene(LEVEL1, SETTINGS.section("player", PlayerTuning))
    haunted = LevelScene(LEVEL1, SETTINGS.section("player", PlayerTuning))
    late = dataclasses.replace(  # the same inputs, 30 ticks behind
        REPLAY1, inputs=(0,) * 30 + REPLAY1.inputs, hashes=("0" * 32,) * 30 + REPLAY1.hashes
    )
    haunted.ghost = Ghost(GAME, LEVEL1, late, SETTINGS, GAME_ACTIONS)
    inputs = ReplayVerifier(REPLAY1).player(GAME_ACTIONS)
    for tick in range(REPLAY1.tick_count):
        snapshot = inputs.sample()
        plain.advance(snapshot)
        haunted.advance(snapshot)
        assert plain.state_hash() == haunted.state_hash() == REPLAY1.hashes[tick], tick
    assert haunted.ghost.world.ticks == REPLAY1.tick_count  # it ran in lockstep
    assert not haunted.ghost.world.completed  # 30 ticks behind: still on its way


def test_ghost_replays_come_from_a_run_file_of_the_same_settings() -> None:
    replays = ghost_replays(BUNDLED_RUN, LEVELS_DIR, SETTINGS, SECTIONS)
    assert sorted(replays) == [f"level{n}.json" for n in range(1, 7)]
    tuned = SETTINGS.with_section(
        "player", dataclasses.replace(SETTINGS.section("player", PlayerTuning), air_control=0.5)
    )
    assert ghost_replays(BUNDLED_RUN, LEVELS_DIR, tuned, SECTIONS) == {}  # another game: no ghost
    assert ghost_replays(ROOT / "README.md", LEVELS_DIR, SETTINGS, SECTIONS) == {}


@pytest.fixture
def ghost_engine(gl_window: Any) -> Iterator[Any]:
    from engine.runtime.engine import Engine

    config = load_config(None, ("video.screen_shake=false",))
    engine = Engine(gl_window, config, headless=True, probe_frames=0)
    yield engine
    engine.close()


def picture(engine: Any) -> np.ndarray:
    import arcade

    return np.asarray(arcade.get_image(0, 0, *engine.window.get_size()).convert("RGB"))


@pytest.mark.gl
def test_the_ghost_is_drawn_translucent_beside_the_player(ghost_engine: Any) -> None:
    """The player stands at the start; the ghost has run ahead with the bundled inputs."""
    engine = ghost_engine
    still = InputSnapshot.empty(engine.actions)
    scene = LevelScene.for_engine(
        engine, LEVEL1, SETTINGS.section("player", PlayerTuning), script=lambda _tick: still
    )
    scene.ghost = Ghost(GAME, LEVEL1, REPLAY1, SETTINGS, engine.actions)
    engine.show(scene)
    while scene.sim.ticks < 45:
        engine.run_frame()
    engine.render_frame(1.0)
    with_ghost = picture(engine)
    import arcade

    arcade.get_image(0, 0, *engine.window.get_size()).save(SCREENSHOT)
    ghost, scene.ghost = scene.ghost, None
    engine.render_frame(1.0)
    without = picture(engine)
    changed = np.any(with_ghost != without, axis=2)
    assert changed.sum() > 40, changed.sum()  # a player-sized patch of pixels
    # It is to the right of the player, where the ghost's player is (the camera follows ours).
    _, xs = np.nonzero(changed)
    ghost_x = float(ghost.world.player.body.position.x)
    player_x = float(scene.sim.player.body.position.x)
    assert ghost_x > player_x + 20
    assert xs.mean() > engine.window.get_size()[0] / 2 * 0.9
    # Translucent: the ghost's pixels mix with what is behind them (none is the art's own colour
    # at full strength, which the plain frame would show for the real player).
    assert len(np.unique(with_ghost[changed], axis=0)) > 1
    # Drawing changed nothing: the level is where a level ticked alone with the same input is.
    alone = LevelScene(LEVEL1, SETTINGS.section("player", PlayerTuning))
    for _ in range(scene.sim.ticks):
        alone.advance(still)
    assert scene.state_hash() == alone.state_hash()


@pytest.mark.slow
@pytest.mark.gl
def test_a_personal_best_keeps_its_run_as_the_ghost_of_the_next_run(
    timed: Any,  # noqa: F811
) -> None:
    from tests.engine.app.honest_runs import play_run

    speedrun = timed()
    assert speedrun.ghost_replay(LEVEL1) is None  # no personal best yet
    lines = finish_run(speedrun, play_run())
    assert lines[0] == "New personal best!"
    assert speedrun.ghost_file.is_file()
    replay = speedrun.ghost_replay(LEVEL1)
    assert replay is not None and replay.tick_count == REPLAY1.tick_count


def test_a_ghost_whose_actions_another_build_reordered_is_no_ghost(tmp_path: Path) -> None:
    """A newer build's ghost file (its replays list the actions in another order) is left out."""
    import json

    from engine.input.replay import format_replay, parse_replay
    from engine.input.snapshot import ActionMap

    data = json.loads(BUNDLED_RUN.read_text(encoding="utf-8"))
    first = data["attempts"][0]
    replay = parse_replay(first["replay"].encode())
    reordered = ActionMap(tuple(reversed(replay.action_map.actions)))
    first["replay"] = format_replay(dataclasses.replace(replay, action_map=reordered))
    ghost_file = tmp_path / "ghost.run.json"
    ghost_file.write_text(json.dumps(data), encoding="utf-8")
    found = ghost_replays(ghost_file, LEVELS_DIR, SETTINGS, SECTIONS, GAME_ACTIONS)
    assert first["level"] not in found and len(found) == len(data["splits"]) - 1
    with pytest.raises(ReplayError):  # what starting the level used to raise
        ReplayVerifier(dataclasses.replace(replay, action_map=reordered)).player(GAME_ACTIONS)
