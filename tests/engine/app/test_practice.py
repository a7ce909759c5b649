"""Practice mode (``engine.app.practice``): save/load, freeze and step, slow motion; a practice
run is marked and never verified.

The level is the sample game's first level in its real world; the scene is a real
``PlayScene`` with a real recording tape, driven tick by tick without a window.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.app.ghost import Ghost
from engine.app.play_scene import PlayScene
from engine.app.practice import Practice
from engine.app.replay_run import Recorder
from engine.app.run_file import read_run, verify_run
from engine.config import PRACTICE_ACTIONS, InputConfig, game_action_names
from engine.input.replay import ReplayVerifier, load_replay
from engine.input.snapshot import ActionMap, InputSnapshot
from engine.runtime.engine import split_practice
from tests.engine.app.honest_runs import ORDER
from tests.engine.app.sample_game import BUNDLED_RUN, GAME, LEVELS_DIR, SECTIONS

GAME_ACTIONS = ActionMap(game_action_names(InputConfig()))
KEYS = ActionMap(PRACTICE_ACTIONS)
LEVEL1 = LEVELS_DIR / "level1.json"
REPLAY1 = load_replay(LEVELS_DIR / "replays" / "level1.replay")


def keys(*pressed: str) -> InputSnapshot:
    mask = KEYS.mask(pressed)
    return InputSnapshot(KEYS, mask, mask)


def run_right(held: bool = True) -> InputSnapshot:
    mask = GAME_ACTIONS.mask(("right",)) if held else 0
    return InputSnapshot(GAME_ACTIONS, mask)


class _Engine:
    """What the scene reads of the engine: the tick length and this tick's practice keys."""

    def __init__(self, step_s: float) -> None:
        self.step_s = step_s
        self.practice_input = keys()


class _Scene(PlayScene):
    def __init__(self) -> None:
        settings = GAME.default_settings()
        super().__init__(step_s=settings.tick_rate.step_s)
        self.sim = GAME.load_world(LEVEL1, settings)
        self.level = self.sim.level
        self.level_path = LEVEL1
        self.engine: Any = _Engine(self.step_s)


def test_the_engine_splits_practice_keys_off_the_game_input() -> None:
    sampled_map = ActionMap((*GAME_ACTIONS, *PRACTICE_ACTIONS))
    held = sampled_map.mask(("right", "load_state"))
    game, practice = split_practice(InputSnapshot(sampled_map, held, held), GAME_ACTIONS, KEYS)
    assert game.action_map == GAME_ACTIONS and game.held == GAME_ACTIONS.mask(("right",))
    assert practice.was_pressed("load_state") and not practice.is_held("save_state")
    assert not set(PRACTICE_ACTIONS) & set(GAME_ACTIONS)  # replays never carry them


@pytest.mark.gl
def test_save_load_rewinds_the_recording_which_still_verifies_from_a_fresh_start(
    gl_window: Any,
) -> None:
    scene = _Scene()
    recorder = Recorder(GAME_ACTIONS, LEVEL1, 60, {}, "t")
    scene.tape = recorder
    marked = []
    scene.practice.on_used = lambda: marked.append(True)
    for tick in range(60):
        scene.on_tick(tick, run_right())
    saved_hash = scene.state_hash()  # the state the save captures (at 60 ticks)
    scene.engine.practice_input = keys("save_state")
    scene.on_tick(60, run_right())
    scene.engine.practice_input = keys()
    for tick in range(61, 120):
        scene.on_tick(tick, run_right(held=False))
    scene.engine.practice_input = keys("load_state")
    scene.on_tick(120, run_right())  # loads, then runs this tick from the loaded state
    assert marked == [True] and scene.practice.used
    assert scene.sim.ticks == 61 and len(recorder.to_replay().inputs) == 61
    scene.engine.practice_input = keys()
    for tick in range(40):
        scene.on_tick(tick, run_right())
    replay = recorder.to_replay()
    world = GAME.load_world(LEVEL1, GAME.default_settings())
    verifier = ReplayVerifier(replay)
    for tick, snapshot in enumerate(verifier.player(GAME_ACTIONS)):
        world.tick(snapshot)
        verifier.check(tick, world.state_hash())
        if tick == 59:
            assert world.state_hash() == saved_hash
    assert world.ticks == replay.tick_count == 101
    assert "PRACTICE" in (scene.extra_hud_lines() or [""])[0]


@pytest.mark.gl
def test_freeze_steps_one_tick_at_a_time_and_slow_motion_halves_and_quarters(
    gl_window: Any,
) -> None:
    scene = _Scene()
    scene.engine.practice_input = keys("freeze")
    scene.on_tick(0, run_right())
    scene.engine.practice_input = keys()
    for tick in range(10):
        scene.on_tick(tick, run_right())
    assert scene.sim.ticks == 0  # frozen
    scene.engine.practice_input = keys("step_tick")
    scene.on_tick(10, run_right())
    assert scene.sim.ticks == 1
    scene.engine.practice_input = keys("freeze")
    scene.on_tick(11, run_right())
    scene.engine.practice_input = keys("slow_motion")
    scene.on_tick(12, run_right())
    scene.engine.practice_input = keys()
    start = scene.sim.ticks
    for tick in range(40):
        scene.on_tick(tick, run_right())
    assert scene.sim.ticks - start == 20  # half speed
    scene.engine.practice_input = keys("slow_motion")
    scene.on_tick(0, run_right())
    scene.engine.practice_input = keys()
    start = scene.sim.ticks
    for tick in range(40):
        scene.on_tick(tick, run_right())
    assert scene.sim.ticks - start == 10  # quarter speed
    assert "speed 1/4" in (scene.practice.hud_line() or "")


def _play(scene: PlayScene, ticks: int, snapshot: InputSnapshot | None = None) -> None:
    for tick in range(ticks):
        scene.on_tick(tick, snapshot or run_right())


def _press(scene: PlayScene, key: str) -> None:
    """One engine tick with a practice key pressed (the level ticks too, after it)."""
    scene.engine.practice_input = keys(key)
    scene.on_tick(0, run_right())
    scene.engine.practice_input = keys()


@pytest.mark.gl
def test_a_load_puts_the_ghost_back_where_it_was_at_that_tick(gl_window: Any) -> None:
    scene = _Scene()
    scene.ghost = Ghost(GAME, LEVEL1, REPLAY1, GAME.default_settings(), GAME_ACTIONS)
    _play(scene, 50)
    _press(scene, "save_state")  # saved at 50, then tick 51 runs
    _play(scene, 70)
    _press(scene, "load_state")
    assert scene.sim.ticks == scene.ghost.world.ticks == 51  # lockstep kept
    assert scene.ghost.world.state_hash() == REPLAY1.hashes[50]
    _play(scene, 30)
    assert scene.ghost.world.state_hash() == REPLAY1.hashes[80]


@pytest.mark.gl
def test_a_save_outlives_a_restart_and_loads_exactly_in_the_new_attempt(gl_window: Any) -> None:
    """The restarted level's world is a new one: the save's inputs lead it to the same state,
    the new attempt's recording holds them and verifies, and the next load is in place."""
    first = _Scene()
    first.tape = Recorder(GAME_ACTIONS, LEVEL1, 60, {}, "t")
    _play(first, 45)
    _play(first, 20, run_right(held=False))
    saved_hash = first.state_hash()
    _press(first, "save_state")
    assert first.practice.saved is not None and first.practice.saved.ticks == 65
    second = _Scene()  # what the session's restart builds, given the same practice
    second.practice = first.practice
    recorder = Recorder(GAME_ACTIONS, LEVEL1, 60, {}, "t")
    second.tape = recorder
    second.ghost = Ghost(GAME, LEVEL1, REPLAY1, GAME.default_settings(), GAME_ACTIONS)
    _play(second, 30, run_right(held=False))
    scene_world = second.sim
    second.engine.practice_input = keys("load_state", "freeze")  # load and hold still there
    second.on_tick(0, run_right())
    assert second.sim is scene_world and second.sim.ticks == 65
    assert second.state_hash() == saved_hash
    assert second.ghost.world.state_hash() == REPLAY1.hashes[64]
    assert second.practice.saved is not None and second.practice.saved.belongs_to(scene_world)
    assert len(recorder.to_replay().inputs) == 65
    world = GAME.load_world(LEVEL1, GAME.default_settings())
    verifier = ReplayVerifier(recorder.to_replay())
    for tick, snapshot in enumerate(verifier.player(GAME_ACTIONS)):
        world.tick(snapshot)
        verifier.check(tick, world.state_hash())
    assert world.state_hash() == saved_hash


def test_no_practice_key_no_practice() -> None:
    practice = Practice()
    world = GAME.load_world(LEVEL1, GAME.default_settings())
    assert practice.before_tick(keys(), world)
    assert not practice.used and practice.hud_line() is None
    assert not practice.before_tick(keys("load_state", "freeze"), world)  # frozen; no state
    assert practice.used and practice.saved is None


@pytest.fixture(scope="module")
def run_data() -> dict[str, Any]:
    """The bundled run file (an honest run), as JSON."""
    data: dict[str, Any] = json.loads(BUNDLED_RUN.read_text(encoding="utf-8"))
    return data


def test_a_practice_run_file_says_so_and_is_never_verified(
    tmp_path: Path, run_data: dict[str, Any]
) -> None:
    data = dict(run_data)
    assert "practice" not in data  # files without practice read and write as before
    data["practice"] = True
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    loaded = read_run(path, SECTIONS)
    assert loaded.run.practice is True
    result = verify_run(GAME, loaded, LEVELS_DIR, ORDER)
    assert not result.verified and "practice" in result.problem
    assert result.to_json()["verified"] is False


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_practice_field_that_is_not_a_boolean_is_refused(
    tmp_path: Path, run_data: dict[str, Any], value: object
) -> None:
    from engine.app.run_file import RunFileError

    data = dict(run_data)
    data["practice"] = value
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RunFileError, match="practice"):
        read_run(path, SECTIONS)
