"""``--rerecord``: a tuned game keeps its replays when their inputs still complete the level."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.app.rerecord import StopsWorking, rerecord
from engine.config import Config, load_config
from engine.input.replay import format_replay, load_replay, parse_replay
from game.definition import CONFIG_SECTIONS
from tests.engine.app.sample_game import GAME
from tests.game.test_replays import assert_one_line_error, game
from tests.small_picture import SMALL_PICTURE_FLAGS

ROOT = Path(__file__).resolve().parents[3]
LEVEL1 = ROOT / "levels" / "level1.json"
LEVEL1_REPLAY = ROOT / "levels" / "replays" / "level1.replay"
HIGHER = "player.jump_height_tiles=3.4"  # still clears every gap of levels 1 and 2
TOO_HIGH = "player.jump_height_tiles=5.0"  # the run bumps into things and never gets there


def config_with(*overrides: str) -> Config:
    return load_config(None, overrides, CONFIG_SECTIONS)


def test_the_defaults_reproduce_the_bundled_replay_exactly() -> None:
    old = load_replay(LEVEL1_REPLAY)
    assert rerecord(GAME, old, LEVEL1, config_with(), game_version=old.game_version) == old


def test_a_higher_jump_rewrites_the_hashes_and_records_the_new_settings() -> None:
    old = load_replay(LEVEL1_REPLAY)
    new = rerecord(GAME, old, LEVEL1, config_with(HIGHER), game_version="0.1.0")
    assert new.inputs == old.inputs[: new.tick_count]
    assert new.hashes != old.hashes
    assert dict(new.settings_hashes)["player"] != dict(old.settings_hashes)["player"]
    assert dict(new.settings_hashes)["physics"] == dict(old.settings_hashes)["physics"]
    assert parse_replay(format_replay(new).encode()) == new


def test_inputs_that_no_longer_complete_say_where_the_run_stops_working() -> None:
    old = load_replay(LEVEL1_REPLAY)
    with pytest.raises(StopsWorking) as caught:
        rerecord(GAME, old, LEVEL1, config_with(TOO_HIGH), game_version="0.1.0")
    stop = caught.value
    assert stop.first_difference_tick is not None and 0 < stop.first_difference_tick < 100
    assert stop.first_hurt_tick is not None and stop.first_hurt_tick > stop.first_difference_tick
    assert stop.end_tick == old.tick_count - 1
    assert f"first differs from the recording at tick {stop.first_difference_tick}" in str(stop)
    assert "without reaching the exit of 'First Steps'" in str(stop)


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_a_divergence_names_the_section_and_a_failed_rerecord_writes_nothing(
    tmp_path: Path,
) -> None:
    tape = tmp_path / "level1.replay"
    shutil.copyfile(LEVEL1_REPLAY, tape)
    before = tape.read_bytes()
    diverged = game("--replay", str(tape), "--set", HIGHER, *SMALL_PICTURE_FLAGS)
    assert_one_line_error(
        diverged, "playback diverged", "other [player] settings", f"--rerecord {tape}"
    )
    # the solver gets no time to find another way (it would: see test_solver.py)
    failed = game("--rerecord", str(tape), "--set", TOO_HIGH, "--budget-s", "0.001")
    assert failed.returncode == 1
    assert "NOT re-recorded" in failed.stderr and "the player is hurt at tick" in failed.stderr
    assert "the solver found no other way" in failed.stderr
    assert f"--record {tape}" in failed.stderr
    assert tape.read_bytes() == before  # nothing written


@pytest.mark.slow
def test_a_rerecorded_replay_plays_back_under_the_new_settings(tmp_path: Path) -> None:
    tape = tmp_path / "level1.replay"
    shutil.copyfile(LEVEL1_REPLAY, tape)
    done = game("--rerecord", str(tape), "--set", HIGHER)
    assert done.returncode == 0, done.stderr
    assert "re-recorded: completes level1.json" in done.stdout
    assert "state hashes rewritten from tick" in done.stdout
    replayed = game(
        "--replay",
        str(tape),
        "--set",
        HIGHER,
        "--json",
        "--display-hz",
        "144",
        *SMALL_PICTURE_FLAGS,
    )
    assert replayed.returncode == 0, replayed.stderr
    again = game("--rerecord", str(tape), "--set", HIGHER)
    assert "unchanged" in again.stdout


def test_a_damaged_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.replay"
    bad.write_bytes(LEVEL1_REPLAY.read_bytes()[:300])
    assert_one_line_error(game("--rerecord", str(bad)), "bad.replay", "truncated")
