"""Run files on the pure simulation: chained attempts, recorded settings, every field checked.

The runs are played without a window (:mod:`tests.engine.app.honest_runs`): each attempt feeds the
bundled replays' inputs to the level simulation and records every tick, as the game does.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from engine.app.run_file import (
    RunFileError,
    RunSettings,
    Verification,
    load_run,
    read_run,
    run_json,
    save_run,
    verify_run,
)
from engine.speedrun.timer import format_igt
from engine.timing import TickRate
from game.movement import PlayerTuning
from tests.engine.app.honest_runs import BUNDLED_TICKS, LEVELS, ORDER, honest_run
from tests.engine.app.sample_game import GAME, LEVELS_DIR, SECTIONS

RATE = TickRate.from_hz(60)

OTHER = GAME.default_settings().with_section(
    "player",
    dataclasses.replace(
        GAME.default_settings().section("player", PlayerTuning), coyote_time_s=0.12
    ),
)
"""Settings the bundled inputs still complete every level with (the routes never lean on the
coyote time's last ticks), so only the recorded settings tell the runs apart."""


@pytest.fixture(scope="module")
def with_restarts() -> dict[str, Any]:
    """A run with a restart on level 1 and two on level 2, as its file's JSON."""
    return honest_run(restarts=[(0, 40), (1, 30), (1, 90)]).to_json()


@pytest.fixture(scope="module")
def plain() -> dict[str, Any]:
    """Another run, without restarts."""
    return honest_run().to_json()


def verify_json(data: dict[str, Any], tmp_path: Path, settings: RunSettings | None = None) -> Any:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    return verify_run(GAME, read_run(path, SECTIONS), LEVELS_DIR, ORDER, settings=settings)


def problem_of(data: dict[str, Any], tmp_path: Path, settings: RunSettings | None = None) -> str:
    result = verify_json(data, tmp_path, settings)
    assert not result.verified
    return str(result.problem)


def test_an_honest_run_verifies_after_a_round_trip_through_its_file(tmp_path: Path) -> None:
    run = honest_run(restarts=[(1, 50)])
    path = tmp_path / "runs" / "run.json"
    save_run(run, path)
    assert load_run(path, SECTIONS) == run
    result = verify_run(GAME, read_run(path, SECTIONS), LEVELS_DIR, ORDER)
    ticks = BUNDLED_TICKS + 50
    claimed = (
        ("rta", run.to_json()["rta"]),
        ("vsync", "on"),
        ("game_version", run.game_version),
        ("timing_mode", "strict"),
        ("hitch_dropped_ms", 0),
    )
    expected = Verification(True, "", ticks, format_igt(RATE, ticks), len(LEVELS), "", claimed)
    assert result == expected
    report = result.to_json()
    assert report["valid"] is True and report["recomputed"]["ticks"] == ticks
    assert report["claimed"]["vsync"] == "on"


def test_the_file_records_the_settings_and_chains_the_attempts(
    with_restarts: dict[str, Any],
) -> None:
    settings = with_restarts["settings"]
    assert settings["tick_rate_hz"] == "60"
    assert settings["player"]["air_control"] == 0.65 and settings["physics"]["iterations"] == 10
    assert settings["hash"] == GAME.default_settings().hash
    attempts = with_restarts["attempts"]
    assert [a["outcome"] for a in attempts] == ["restart", "complete"] + ["restart"] * 2 + [
        "complete"
    ] * (len(LEVELS) - 1)
    assert {a["run_id"] for a in attempts} == {with_restarts["run_id"]}
    assert attempts[0]["previous_hash"] == ""
    for before, after in itertools.pairwise(attempts):
        assert after["previous_hash"] == before["replay"].splitlines()[-2].split()[1]


def test_a_deleted_restart_breaks_the_chain(with_restarts: dict[str, Any], tmp_path: Path) -> None:
    edited = copy.deepcopy(with_restarts)
    del edited["attempts"][2]  # level 2's first restart
    problem = problem_of(edited, tmp_path)
    assert problem.startswith("attempt 3 does not follow attempt 2")
    assert "deleted, reordered or spliced" in problem


def test_a_deleted_first_attempt_is_noticed(with_restarts: dict[str, Any], tmp_path: Path) -> None:
    edited = copy.deepcopy(with_restarts)
    del edited["attempts"][0]  # level 1's restart: the complete attempt becomes the first
    assert "it is the run's first: attempts before it were deleted" in problem_of(edited, tmp_path)


def test_reordered_attempts_break_the_chain(with_restarts: dict[str, Any], tmp_path: Path) -> None:
    edited = copy.deepcopy(with_restarts)
    attempts = edited["attempts"]
    attempts[2], attempts[3] = attempts[3], attempts[2]  # level 2's two restarts
    assert problem_of(edited, tmp_path).startswith("attempt 3 does not follow attempt 2")


def test_an_attempt_spliced_in_from_another_run_is_noticed(
    with_restarts: dict[str, Any], plain: dict[str, Any], tmp_path: Path
) -> None:
    edited = copy.deepcopy(with_restarts)
    edited["attempts"][-1] = plain["attempts"][-1]  # the same level, from another session
    problem = problem_of(edited, tmp_path)
    assert problem.startswith(f"attempt {len(edited['attempts'])} belongs to another run")
    assert "attempts were spliced in from another run" in problem


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_an_honest_run_with_other_settings_verifies_under_those_settings(tmp_path: Path) -> None:
    data = honest_run(OTHER).to_json()
    assert data["settings"]["player"]["coyote_time_s"] == 0.12
    result = verify_json(data, tmp_path, settings=OTHER)
    assert result.verified and result.valid, result.problem
    problem = problem_of(data, tmp_path)  # the verifier's defaults
    assert problem.startswith("the run was played with other [player] settings: ")
    assert "coyote_time_s = 0.12 (here 0.1)" in problem


def test_other_physics_and_tick_rates_are_named(plain: dict[str, Any], tmp_path: Path) -> None:
    verifier = dataclasses.replace(
        GAME.default_settings(),
        physics=dataclasses.replace(GAME.default_settings().physics, substeps=2),
    )
    assert "[physics] settings: substeps = 1 (here 2)" in problem_of(plain, tmp_path, verifier)
    faster = dataclasses.replace(GAME.default_settings(), tick_rate_hz="120")
    assert problem_of(plain, tmp_path, faster).startswith(
        "the run ticked at 60 Hz, this game ticks at 120 Hz"
    )


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("player", "air_control"), 0.7),
        (("physics", "iterations"), 11),
        (("tick_rate_hz",), "120"),
        (("hash",), "0" * 32),
    ],
)
def test_settings_edited_without_their_hash_are_noticed(
    plain: dict[str, Any], tmp_path: Path, path: tuple[str, ...], value: object
) -> None:
    edited = copy.deepcopy(plain)
    node = edited["settings"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert "the settings were edited" in problem_of(edited, tmp_path)


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_a_run_with_dropped_time_verifies_but_is_invalid(tmp_path: Path) -> None:
    result = verify_json(honest_run(strict_valid=False).to_json(), tmp_path)
    assert result.verified and not result.valid
    assert result.invalid.startswith("the hitch guard dropped 0:00.017 of game time")
    assert result.to_json()["valid"] is False and "invalid" in result.to_json()


def test_an_edited_rta_text_is_noticed(plain: dict[str, Any], tmp_path: Path) -> None:
    edited = copy.deepcopy(plain)
    edited["rta"] = "0:01.000"
    assert "the file shows RTA '0:01.000'" in problem_of(edited, tmp_path)


def test_a_replay_inside_whose_hashes_are_dashes_is_refused(
    plain: dict[str, Any], tmp_path: Path
) -> None:
    from tests.engine.input.test_hostile_replay import with_checksum

    edited = copy.deepcopy(plain)
    lines = edited["attempts"][0]["replay"].splitlines()[:-1]
    lines[9:] = [line.split(" ")[0] + " -" for line in lines[9:]]
    edited["attempts"][0]["replay"] = with_checksum(lines)
    assert "tick 0 has no state hash" in problem_of(edited, tmp_path)


def test_a_5000_digit_version_inside_an_attempt_is_refused(
    plain: dict[str, Any], tmp_path: Path
) -> None:
    from tests.engine.input.test_hostile_replay import with_checksum

    edited = copy.deepcopy(plain)
    lines = edited["attempts"][0]["replay"].splitlines()[:-1]
    lines[0] = "platformer-replay " + "7" * 5000
    edited["attempts"][0]["replay"] = with_checksum(lines)
    problem = problem_of(edited, tmp_path)
    assert "unsupported format version 777" in problem and len(problem) < 300


# ---------------------------------------------------------------------------------------------
# Reading: every field's type and range
# ---------------------------------------------------------------------------------------------


def read_error(data: object, tmp_path: Path, raw: str | None = None) -> str:
    path = tmp_path / "bad.json"
    path.write_text(raw if raw is not None else json.dumps(data))
    with pytest.raises(RunFileError) as caught:
        read_run(path, SECTIONS)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and len(message.splitlines()) == 1
    assert message.isprintable() and len(message) < 400, message
    return message


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        ({"version": True}, "run file version true is not supported"),
        ({"version": 2.0}, "run file version 2.0 is not supported"),
        ({"version": "2"}, 'run file version "2" is not supported'),
        ({"version": 1}, "version 1 files predate chained attempts"),
        ({"rta_ms": 10**30}, "rta_ms must be in 0..604800000, got 1000000000000000000000000000000"),
        ({"rta_ms": -1}, "rta_ms must be in 0..604800000"),
        ({"rta_ms": 1.5}, "rta_ms must be an integer, got 1.5"),
        ({"igt_ticks": True}, "igt_ticks must be an integer, got true"),
        ({"igt_ticks": 10**12}, "igt_ticks must be in 0..36288000"),
        ({"hitch_dropped_ns": 10**20}, "hitch_dropped_ns must be in 0..604800000000000"),
        ({"strict_valid": 1}, "strict_valid must be true or false, got 1"),
        ({"final_hash": "abc"}, "final_hash must be 32 lowercase hex digits"),
        ({"run_id": None}, "run_id must be a string, got null"),
        ({"timing_mode": "turbo"}, "timing_mode must be one of auto, strict, locked"),
        ({"vsync": "maybe"}, "vsync must be one of on, off, unknown"),
        ({"game_version": "1\n2"}, "game_version must be printable text"),
        ({"igt": "x" * 10_000}, "igt must be printable text of 1 to 256 characters"),
        ({"splits": {}}, "splits must be a list"),
        ({"attempts": []}, "attempts is empty"),
        ({"settings": []}, "settings must be an object"),
    ],
)
def test_top_level_fields_are_type_and_range_checked(
    plain: dict[str, Any], tmp_path: Path, edit: dict[str, Any], fragment: str
) -> None:
    assert fragment in read_error({**plain, **edit}, tmp_path)


@pytest.mark.parametrize(
    ("where", "key", "value", "fragment"),
    [
        ("splits", "rta_ms", 10**30, "splits[0].rta_ms must be in 0..604800000"),
        ("splits", "level", "../etc/passwd", "is not a level file name"),
        ("splits", "name", 5, "splits[0].name must be a string, got 5"),
        ("attempts", "outcome", "quit", "attempts[0].outcome must be one of complete, restart"),
        ("attempts", "previous_hash", "z" * 32, "previous_hash must be 32 lowercase hex digits"),
        ("attempts", "run_id", "", "attempts[0].run_id must be 32 lowercase hex digits"),
        ("attempts", "replay", ["x"], "attempts[0].replay must be a string"),
        ("attempts", "level", "\x1b[2J.json", "must be printable text"),
    ],
)
def test_split_and_attempt_fields_are_checked(
    plain: dict[str, Any], tmp_path: Path, where: str, key: str, value: object, fragment: str
) -> None:
    edited = copy.deepcopy(plain)
    edited[where][0][key] = value
    message = read_error(edited, tmp_path)
    assert fragment in message and "\x1b" not in message


@pytest.mark.parametrize(
    ("path", "value", "fragment"),
    [
        (("tick_rate_hz",), "1e-9", "settings.tick_rate_hz must be an exact rate in 1..1000 Hz"),
        (("tick_rate_hz",), "7" * 5000, "settings.tick_rate_hz must be an exact rate"),
        (("tick_rate_hz",), "1/999999999", "settings.tick_rate_hz must be an exact rate"),
        (("tick_rate_hz",), 60, "settings.tick_rate_hz must be a string"),
        (("player", "run_speed_px_s"), 10**400, "settings: player.run_speed_px_s = 1000000"),
        (("player", "run_speed_px_s"), True, "player.run_speed_px_s = true: must be a number"),
        (("physics", "substeps"), 0, "physics.substeps = 0: must be an integer in 1 <= x <= 16"),
        (("physics", "warp"), 1, "unknown key physics.warp"),
        (("player",), None, "settings.player must be an object, got null"),
    ],
)
def test_recorded_settings_are_checked_like_the_config_file(
    plain: dict[str, Any], tmp_path: Path, path: tuple[str, ...], value: object, fragment: str
) -> None:
    edited = copy.deepcopy(plain)
    node = edited["settings"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert fragment in read_error(edited, tmp_path)


def test_json_that_breaks_the_parser_is_one_line(tmp_path: Path) -> None:
    assert "bad JSON" in read_error(None, tmp_path, raw="[" * 100_000)
    message = read_error(None, tmp_path, raw='{"version": ' + "9" * 5000 + "}")
    assert "bad JSON" in message and "set_int_max_str_digits" not in message


def test_the_file_itself_must_be_a_regular_file(tmp_path: Path) -> None:
    with pytest.raises(RunFileError, match="a directory, not a regular file"):
        read_run(tmp_path, SECTIONS)


def test_the_bytes_written_are_the_json_read(tmp_path: Path) -> None:
    run = honest_run()
    path = tmp_path / "r.json"
    path.write_bytes(run_json(run))
    assert read_run(path, SECTIONS).run == run
