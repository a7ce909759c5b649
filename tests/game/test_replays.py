"""Replays of the sample game: ``python -m game --record`` / ``--replay`` and the bundled replays.

The subprocess tests run the command as a player would. The ``gl`` test records live key input
through the engine in this process and plays it back at another display rate.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.config import load_config
from engine.input.replay import ReplayVerifier, load_replay, save_replay
from engine.input.snapshot import InputSnapshot
from tests.small_picture import SMALL_PICTURE_FLAGS, SMALL_PICTURE_OVERRIDES
from tests.test_readme import documented_json_keys

ROOT = Path(__file__).resolve().parents[2]
REPLAYS_DIR = ROOT / "levels" / "replays"
BUNDLED = {
    "level1.replay": "First Steps",
    "level2.replay": "Slimes and Springs",
    "level3.replay": "Platforms",
    "level4.replay": "Crumbling Heights",
    "level5.replay": "Crates and Swings",
    "level6.replay": "The Climb",
}
DISPLAY_RATES = ("30", "60", "144", "240")
LEVEL1_REPLAY = REPLAYS_DIR / "level1.replay"


def game(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m game --headless ARGS`` from the repository root."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "game", "--headless", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )


def exact_igt(ticks: int) -> str:
    """``ticks`` x 1/60 s as ``m:ss.mmm``, rounded down to the millisecond."""
    total_ms = ticks * 1000 // 60
    minutes, rest_ms = divmod(total_ms, 60_000)
    return f"{minutes}:{rest_ms // 1000:02d}.{rest_ms % 1000:03d}"


def assert_one_line_error(out: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit status 2, nothing on stdout, one stderr line containing every fragment."""
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert out.stdout == ""


# ---------------------------------------------------------------------------------------------
# The bundled replays
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_replay_completes_its_level_on_the_simulation_with_every_hash(name: str) -> None:
    """The fast check: the pure simulation (no window) reproduces every recorded hash."""
    from engine.app.cli import replay_level_path
    from engine.config import InputConfig, game_action_names
    from engine.input.snapshot import ActionMap
    from game.movement import PlayerTuning
    from game.world_builder import LevelWorld

    path = REPLAYS_DIR / name
    replay = load_replay(path)
    world = LevelWorld.load(
        replay_level_path(replay, path, ROOT / "levels"), PlayerTuning(), 1 / 60
    )
    assert world.level.name == BUNDLED[name]
    inputs = ReplayVerifier(replay).player(ActionMap(game_action_names(InputConfig())))
    for tick in range(replay.tick_count):
        world.tick(inputs.sample())
        assert world.state_hash() == replay.hashes[tick], f"{name}: tick {tick}"
    assert world.completed and world.deaths == 0
    assert world.ticks == replay.tick_count


CONFIGS: dict[str, tuple[str, ...]] = {
    "default": (),
    "default, vsync off": ("video.vsync=false",),
    "speedrun": ("speedrun.enabled=true",),  # strict timing, the speedrun's
    "speedrun, vsync off": ("speedrun.enabled=true", "video.vsync=false"),
}
"""The configurations a bundled replay must play alike in, by name: ``load_config`` overrides
(on top of the small picture: these tests are about ticks and hashes, not pixels)."""

SceneCall = tuple[str, int | float, int | float]
"""One call of the engine on its scene: ``("tick", tick, live input)`` or ``("render", alpha,
frame_dt_s)``."""


def record_scene_calls(scene: Any) -> list[SceneCall]:
    """Record, in order, every ``on_tick`` and ``on_render`` the engine makes on ``scene``
    (which still runs them): everything a scene is told by the loop."""
    calls: list[SceneCall] = []
    tick, render = scene.on_tick, scene.on_render

    def on_tick(index: int, snapshot: InputSnapshot) -> None:
        calls.append(("tick", index, snapshot.encode()))
        tick(index, snapshot)

    def on_render(alpha: float, frame_dt_s: float) -> None:
        calls.append(("render", alpha, frame_dt_s))
        render(alpha, frame_dt_s)

    scene.on_tick, scene.on_render = on_tick, on_render
    return calls


def scene_calls_of_the_loop(
    window: Any, config: Any, display_hz: int, ticks: int
) -> list[SceneCall]:
    """The calls the headless engine makes on a scene that does nothing, until it has run
    ``ticks`` ticks (to the end of that frame). Headless, a frame costs no virtual time, so these
    are the calls any scene gets with this config and display rate. Nothing is drawn: the
    picture's clear and its showing in the window are left out (they were nearly all of the
    time here, 0.7 ms a frame against 0.03), as what the loop calls does not depend on them;
    each played run's calls, drawn for real, are compared with these."""
    from engine.runtime.engine import Engine
    from engine.runtime.scene import Scene

    engine = Engine(window, config, headless=True, display_hz=display_hz)
    try:
        engine.video.begin = lambda background: None  # type: ignore[method-assign]
        engine.video.present = lambda: None  # type: ignore[method-assign]
        scene = Scene()
        calls = record_scene_calls(scene)
        engine.show(scene)
        ran = 0
        while ran < ticks:
            before = len(calls)
            engine.run_frame()
            ran += sum(call[0] == "tick" for call in calls[before:])
        return calls
    finally:
        engine.close()


def alike(first: list[SceneCall], second: list[SceneCall]) -> bool:
    """The same ticks with the same live input, the same number of renders between them, and
    each render's alpha and frame time equal to within float rounding (1e-6)."""
    return len(first) == len(second) and all(
        a == b
        if a[0] == "tick" or b[0] == "tick"
        else all(
            math.isclose(x, y, rel_tol=0, abs_tol=1e-6) for x, y in zip(a[1:], b[1:], strict=True)
        )
        for a, b in zip(first, second, strict=True)
    )


@pytest.mark.slow
@pytest.mark.gl
@pytest.mark.parametrize("display_hz", [int(hz) for hz in DISPLAY_RATES])
def test_every_bundled_replay_plays_alike_at_any_display_rate_vsync_and_timing(
    gl_window: Any, display_hz: int
) -> None:
    """Every bundled replay completes its level, every hash matching, in every :data:`CONFIGS`
    (the default timing and the speedrun's strict timing, vsync on and off) at ``display_hz``,
    through the engine's real loop drawing every frame.

    A playback depends on its configuration only through the calls the loop makes on the
    scene: which ticks run (with which live input) and which renders come between them (the
    configurations differ only in ``[timing]`` and ``[video] vsync``, which no scene reads).
    Headless, a frame costs no virtual time, so those calls are a function of the config and
    the display rate alone, found without drawing anything (:func:`scene_calls_of_the_loop`).
    Configurations whose calls are :func:`alike` (the same ticks, the same renders between
    them, the renders' alpha and frame time equal to within float rounding) play a replay as
    one computation: each replay is played once per distinct sequence, and each played run's
    own calls are checked against its prediction. Here the four configurations make alike
    calls at every rate (a frame on a tick's rounding boundary ticks alike in every policy:
    ``engine/timing/README.md``, "Round to the nearest tick"), so every configuration is proven
    at every rate without drawing the same frames four times; a timing change that parts them
    costs time here, not correctness (this and the command-line test below replaced 48
    in-process and 24 command-line playbacks of the six replays, 72 in all, by 24 and 6).
    """
    from engine.app.cli import replay_level_path
    from engine.app.replay_run import Player
    from engine.runtime.engine import Engine
    from game.definition import GAME

    replays = {name: load_replay(REPLAYS_DIR / name) for name in sorted(BUNDLED)}
    longest = max(replay.tick_count for replay in replays.values())
    configs = {
        name: load_config(None, [*SMALL_PICTURE_OVERRIDES, *overrides])
        for name, overrides in CONFIGS.items()
    }
    groups: list[tuple[list[SceneCall], list[str]]] = []  # (the calls, the configs making them)
    for name, config in configs.items():
        calls = scene_calls_of_the_loop(gl_window, config, display_hz, longest)
        group = next((names for first, names in groups if alike(first, calls)), None)
        if group is None:
            groups.append((calls, [name]))
        else:
            group.append(name)
    for predicted, names in groups:
        for name, replay in replays.items():
            engine = Engine(gl_window, configs[names[0]], headless=True, display_hz=display_hz)
            try:
                level = replay_level_path(replay, REPLAYS_DIR / name, ROOT / "levels")
                scene = GAME.make_scene(engine, level)
                player = Player(replay, engine.actions, name)
                scene.tape = player
                calls = record_scene_calls(scene)
                engine.show(scene)
                while not scene.completed and not player.finished:
                    engine.run_frame()
            finally:
                engine.close()
            where = f"{name} at {display_hz} Hz, {' = '.join(names)}"
            assert scene.completed, where
            assert scene.sim.ticks == replay.tick_count, where  # the IGT, exactly
            assert player.hashes_checked == replay.tick_count, where
            assert scene.sim.level.name == BUNDLED[name], where
            assert calls == predicted[: len(calls)], f"{where}: not the predicted calls"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "display_hz"),
    [(name, DISPLAY_RATES[i % len(DISPLAY_RATES)]) for i, name in enumerate(sorted(BUNDLED))],
)
def test_bundled_replay_completes_its_level_on_the_command_line(name: str, display_hz: str) -> None:
    """``python -m game --replay --json --display-hz``: every bundled replay once, the display
    rates taken in turn (every one at least once); every replay at every rate in every timing
    configuration is played in this process by the test above, so this one's subject is the
    command: its flags and its summary."""
    path = REPLAYS_DIR / name
    replay = load_replay(path)
    assert replay.hash_every == 1 and all(h is not None for h in replay.hashes)
    out = game("--replay", str(path), "--json", "--display-hz", display_hz, *SMALL_PICTURE_FLAGS)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == documented_json_keys("game")  # the flags table's keys, hash_ok too
    assert data["level"] == BUNDLED[name]
    assert data["completed"] is True
    assert data["hash_ok"] is True
    assert data["ticks"] == replay.tick_count  # the recording ends at the completing tick
    assert data["igt"] == exact_igt(data["ticks"])


@pytest.mark.slow
def test_replay_text_summary_is_one_line_and_says_the_hashes_matched() -> None:
    out = game("--replay", str(LEVEL1_REPLAY), *SMALL_PICTURE_FLAGS)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\n") == 1
    assert out.stdout.startswith("First Steps: complete, ")
    assert "replay hashes ok" in out.stdout


# ---------------------------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_record_then_replay_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "short.replay"
    recorded = game("--record", str(path), "--frames", "90", "--json", *SMALL_PICTURE_FLAGS)
    assert recorded.returncode == 0, recorded.stderr
    summary = json.loads(recorded.stdout)
    assert "hash_ok" not in summary  # only a playback checks hashes
    replay = load_replay(path)
    assert replay.level_id == "level1.json"
    assert replay.tick_rate_hz == 60
    assert replay.tick_count == summary["ticks"] > 0
    assert all(h is not None for h in replay.hashes)
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic save left no temporary file

    played = game("--replay", str(path), "--json", "--display-hz", "144", *SMALL_PICTURE_FLAGS)
    assert played.returncode == 0, played.stderr
    data = json.loads(played.stdout)
    assert data["hash_ok"] is True
    assert data["ticks"] == summary["ticks"]
    assert data["completed"] is False  # idle input: the inputs ran out first


def test_record_into_a_missing_directory_fails_before_playing(tmp_path: Path) -> None:
    out = game("--record", str(tmp_path / "missing" / "run.replay"), "--frames", "5")
    assert_one_line_error(out, "cannot record", "does not exist")


def test_record_and_replay_together_are_refused(tmp_path: Path) -> None:
    out = game("--record", str(tmp_path / "a.replay"), "--replay", str(LEVEL1_REPLAY))
    assert out.returncode == 2
    assert "not allowed with" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow  # (moved out of the default suite's 90 s)
@pytest.mark.gl
def test_live_keys_recorded_at_60_hz_replay_at_144_hz(gl_window: Any, tmp_path: Path) -> None:
    from engine.app.replay_run import Player, Recorder
    from engine.input.replay import ReplayMismatch
    from engine.runtime.engine import Engine
    from game.level_scene import LevelScene
    from game.movement import PlayerTuning

    level = ROOT / "levels" / "level1.json"
    config = load_config(None)
    tuning = PlayerTuning()

    engine = Engine(gl_window, config, headless=True, display_hz=60.0, probe_frames=0)
    scene = LevelScene.for_engine(engine, level, tuning)
    recorder = Recorder(engine.actions, level, engine.tick_rate.rate_hz)
    scene.tape = recorder
    engine.show(scene)
    engine.sampler.press("right")
    for frame in range(150):
        if frame % 40 == 0:
            engine.sampler.press("jump")
        if frame % 40 == 25:
            engine.sampler.release("jump")
        engine.run_frame()
    engine.close()
    path = tmp_path / "live.replay"
    save_replay(recorder.to_replay(), path)
    final_hash = scene.state_hash()
    assert scene.sim.player.body.position.x > 10 * tuning.tile_px  # the keys moved the player

    replay = load_replay(path)
    engine = Engine(gl_window, config, headless=True, display_hz=144.0, probe_frames=0)
    scene = LevelScene.for_engine(engine, level, tuning)
    player = Player(replay, engine.actions, str(path))
    scene.tape = player
    engine.show(scene)
    engine.sampler.press("left")  # live input is ignored during playback
    try:
        while not player.finished:
            engine.run_frame()
    except ReplayMismatch as exc:  # pragma: no cover - the message is the useful part
        pytest.fail(str(exc))
    finally:
        engine.close()
    assert player.hashes_checked == replay.tick_count
    assert scene.state_hash() == final_hash


# ---------------------------------------------------------------------------------------------
# Replays that must be refused
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_an_edited_input_stops_at_the_first_differing_tick(tmp_path: Path) -> None:
    replay = load_replay(LEVEL1_REPLAY)
    edited_tick = 100
    inputs = list(replay.inputs)
    left = replay.action_map.mask(["left"])
    inputs[edited_tick] = InputSnapshot(replay.action_map, left, 0, 0).encode()
    assert inputs[edited_tick] != replay.inputs[edited_tick]
    path = tmp_path / "edited.replay"
    save_replay(dataclasses.replace(replay, inputs=tuple(inputs)), path)  # a valid checksum
    out = game("--replay", str(path), "--json", *SMALL_PICTURE_FLAGS)
    assert_one_line_error(
        out,
        "edited.replay",
        f"state at tick {edited_tick} ",
        f"tick {edited_tick - 1} still matched",
    )


def test_a_truncated_replay_is_refused(tmp_path: Path) -> None:
    data = LEVEL1_REPLAY.read_bytes()
    path = tmp_path / "cut.replay"
    path.write_bytes(data[: len(data) // 2])
    assert_one_line_error(game("--replay", str(path)), "cut.replay", "truncated")


def test_a_replay_of_another_level_is_refused(tmp_path: Path) -> None:
    replay = load_replay(LEVEL1_REPLAY)
    path = tmp_path / "other.replay"
    save_replay(dataclasses.replace(replay, level_hash="0" * 32), path)
    assert_one_line_error(game("--replay", str(path)), "other.replay", "changed since recording")
    # the right replay played on another level file (--level) is refused, saying so
    out = game("--replay", str(LEVEL1_REPLAY), "--level", str(ROOT / "levels" / "level2.json"))
    assert_one_line_error(out, "level1.replay", "recorded on level 'level1.json', not on")


def test_an_unsupported_format_version_is_refused(tmp_path: Path) -> None:
    text = LEVEL1_REPLAY.read_text(encoding="utf-8")
    assert text.startswith("platformer-replay 2\n")
    path = tmp_path / "future.replay"
    path.write_text(text.replace("platformer-replay 2", "platformer-replay 3", 1), encoding="utf-8")
    assert_one_line_error(
        game("--replay", str(path)), "future.replay", "unsupported format version 3"
    )


def test_a_missing_replay_or_unknown_level_id_is_refused(tmp_path: Path) -> None:
    assert_one_line_error(game("--replay", str(tmp_path / "nope.replay")), "no such file")
    replay = load_replay(LEVEL1_REPLAY)
    path = tmp_path / "escape.replay"
    save_replay(dataclasses.replace(replay, level_id="../level1.json"), path)
    assert_one_line_error(game("--replay", str(path)), "escape.replay", "not a file name")
