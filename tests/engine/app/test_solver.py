"""The solver (``engine.app.solver``, ``--solve``): a way to the exit found by search, or where not.

The maps are small real Tiled files (``tests.game.tiny_maps``) played by the sample game's
real world; the bundled levels' figures are measured by ``engine/app/README.md``'s command
("The solver"), not here (a level takes seconds to minutes).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.app.cli import rerecord_files
from engine.app.solver import LayoutMap, record_solution, solve
from engine.config import InputConfig, game_action_names, load_config
from engine.input.replay import ReplayVerifier, load_replay, save_replay
from engine.input.snapshot import ActionMap
from tests.engine.app.sample_game import GAME, SECTIONS, main
from tests.game.tiny_maps import obj, write_map
from tests.small_picture import SMALL_PICTURE_FLAGS

ACTIONS = ActionMap(game_action_names(InputConfig()))

# A step two tiles high, spikes in a two-tile pit, and the exit behind them.
COURSE = (
    ["#" + " " * 28 + "#"] * 6
    + ["#" + " " * 13 + "##" + " " * 13 + "#"]
    + ["#" + " " * 12 + "###" + " " * 13 + "#"]
    + ["#" * 19 + "  " + "#" * 9] * 2
)
# The same, with a wall from the floor to the top of the map in front of the exit.
WALLED = [row[:23] + "#" + row[24:] for row in COURSE]
# A wall four tiles high (higher than the default jump of 3.2 tiles) before the exit, and a
# crate on the floor: the way over is to push the crate to the wall and jump from it.
CRATE_WALL = (
    ["#" + " " * 22 + "#"] * 3 + ["#" + " " * 13 + "###" + " " * 6 + "#"] * 4 + ["#" * 24] * 2
)


def course(tmp_path: Path, rows: list[str], name: str = "course.json") -> Path:
    things = [
        obj("player_start", 3, 2),
        obj("exit", 27, 2, 1, 1),
        obj("hazard", 19, 0, 2, 1),
    ]
    return write_map(tmp_path / name, rows, things)


def solved_world(
    level: Path, budget_s: float, max_ticks: int | None = None, **overrides: str
) -> tuple[object, object]:
    config = load_config(None, [f"{k}={v}" for k, v in overrides.items()], SECTIONS)
    from engine.app.run_file import RunSettings

    settings = RunSettings.from_config(config, SECTIONS)
    world = GAME.load_world(level, settings)
    step_s = settings.tick_rate.step_s
    return solve(world, world.level, ACTIONS, step_s, budget_s=budget_s, max_ticks=max_ticks), (
        settings
    )


def test_the_layout_distance_runs_round_walls_to_the_exit(tmp_path: Path) -> None:
    level = GAME.load_world(course(tmp_path, COURSE), GAME.default_settings()).level
    layout = LayoutMap(level, jump_tiles=3.2, reach_tiles=2.0)
    row, column = layout.cell(27.5 * layout.tile_px, 2.5 * layout.tile_px)
    assert layout.distance[row, column] == 0.0
    start = layout.distance_at((3.5 * layout.tile_px, 2 * layout.tile_px))
    assert 24 <= start < 40  # along the floor, over the step: more than the straight line
    assert not layout.solid[row, column] and layout.solid[0, 0]


def test_a_course_is_solved_and_its_replay_plays_from_a_fresh_start(tmp_path: Path) -> None:
    level = course(tmp_path, COURSE)
    result, settings = solved_world(level, 60.0)
    assert result.solved, result.stopped_by
    assert result.ticks == len(result.inputs) > 0
    assert result.simulated_ticks > result.ticks
    replay = record_solution(GAME, level, settings, ACTIONS, result.inputs, game_version="t")
    assert replay.tick_count == result.ticks
    world = GAME.load_world(level, settings)
    verifier = ReplayVerifier(replay)
    for tick, snapshot in enumerate(verifier.player(ACTIONS)):
        world.tick(snapshot)
        verifier.check(tick, world.state_hash())  # raises on the first differing tick
    assert world.completed


def test_a_wall_higher_than_any_jump_is_not_beatable_and_named(tmp_path: Path) -> None:
    # a tick budget, not seconds: the same search however loaded the machine is
    result, _ = solved_world(course(tmp_path, WALLED), 600.0, max_ticks=4_000)
    assert not result.solved
    column, _row = result.furthest
    assert column == 22  # just before the wall
    assert result.stopped_by is not None and "column 23" in result.stopped_by


def test_a_tick_budget_gives_the_same_search_every_time(tmp_path: Path) -> None:
    level = course(tmp_path, WALLED)  # unbeatable: the search runs to its budget
    step_s = GAME.default_settings().tick_rate.step_s
    found = []
    for _ in range(2):
        world = GAME.load_world(level, GAME.default_settings())
        result = solve(world, world.level, ACTIONS, step_s, budget_s=600.0, max_ticks=1_000)
        found.append((result.simulated_ticks, result.furthest, sorted(result.reached)))
    assert found[0] == found[1]
    assert 1_000 <= found[0][0] < 1_100  # stops at the first expansion past the budget


def test_a_ladder_up_a_wall_too_high_to_jump_is_climbed(tmp_path: Path) -> None:
    # climbing is a macro cut short wherever holding up changes nothing: not at a ladder
    rows = ["#" + " " * 16 + "#"] * 2 + ["#" + " " * 9 + "#" * 8] * 6 + ["#" * 18] * 2
    things = [
        obj("player_start", 2, 2),
        obj("ladder", 9, 2, 1, 7),
        obj("exit", 15, 8, 1, 1),
    ]
    level = write_map(tmp_path / "ladder.json", rows, things)
    world = GAME.load_world(level, GAME.default_settings())
    step_s = GAME.default_settings().tick_rate.step_s
    result = solve(world, world.level, ACTIONS, step_s, budget_s=600.0, max_ticks=20_000)
    assert result.solved, (result.furthest, result.simulated_ticks)
    held_up = [snapshot for snapshot in result.inputs if snapshot.is_held("up")]
    assert held_up  # the way is up the ladder


@pytest.mark.slow  # about 12,000 simulated ticks: 2 to 4 s here
def test_a_crate_pushed_to_a_wall_too_high_to_jump_is_found(tmp_path: Path) -> None:
    things = [obj("player_start", 2, 2), obj("crate", 7, 2, 1, 1), obj("exit", 21, 2, 1, 1)]
    level = write_map(tmp_path / "crate.json", CRATE_WALL, things)
    world = GAME.load_world(level, GAME.default_settings())
    step_s = GAME.default_settings().tick_rate.step_s
    # a tick budget, not seconds: the same search on any machine, however loaded
    result = solve(world, world.level, ACTIONS, step_s, budget_s=600.0, max_ticks=60_000)
    assert result.solved, (result.furthest, result.simulated_ticks)
    replay = record_solution(
        GAME, level, GAME.default_settings(), ACTIONS, result.inputs, game_version="t"
    )
    assert replay.tick_count == result.ticks


def test_solve_on_the_command_line_writes_a_replay_and_one_json_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    level = course(tmp_path, COURSE)
    out = tmp_path / "course.replay"
    assert main(["--solve", str(level), "--out", str(out), "--json", "--budget-s", "60"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["solved"] is True and data["ticks"] == load_replay(out).tick_count
    assert data["simulated_ticks"] >= data["ticks"] and data["seconds"] > 0


@pytest.mark.slow
def test_an_unbeatable_level_exits_1_naming_the_furthest_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    level = course(tmp_path, WALLED)
    picture = tmp_path / "reach.png"
    status = main(["--solve", str(level), "--budget-s", "4", "--picture", str(picture)])
    assert status == 1
    line = capsys.readouterr().out.strip()
    assert "NOT solved" in line and "column 22" in line and "a wall" in line
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--solve", "missing.json"], "missing.json"),
        (["--solve", "{level}", "--budget-s", "-1"], "--budget-s"),
        (["--solve", "{level}", "--budget-s", "nan"], "--budget-s"),
        (["--out", "x.replay"], "--out goes with --solve"),
        (["--solve", "{level}", "--out", "/no/such/dir/x.replay"], "does not exist"),
    ],
)
def test_bad_flags_and_levels_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    level = course(tmp_path, COURSE)
    argv = [arg.replace("{level}", str(level)) for arg in args]
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    assert status == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], captured.err
    assert "Traceback" not in captured.err


def test_rerecord_solves_anew_when_the_inputs_no_longer_finish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    level = course(tmp_path, COURSE)
    result, settings = solved_world(level, 60.0)
    assert result.solved
    tape = tmp_path / "course.replay"
    save_replay(
        record_solution(GAME, level, settings, ACTIONS, result.inputs, game_version="t"), tape
    )
    slower = load_config(None, ["player.run_speed_px_s=200"], SECTIONS)
    assert rerecord_files(GAME, [tape], level, slower, budget_s=60.0) == 0
    line = capsys.readouterr().out.strip()
    assert "solved anew" in line
    new = load_replay(tape)
    from engine.app.run_file import RunSettings

    new_settings = RunSettings.from_config(slower, SECTIONS)
    assert dict(new.settings_hashes) == new_settings.section_hashes()
    world = GAME.load_world(level, new_settings)
    verifier = ReplayVerifier(new)
    for tick, snapshot in enumerate(verifier.player(ACTIONS)):
        world.tick(snapshot)
        verifier.check(tick, world.state_hash())
    assert world.completed


@pytest.mark.slow
@pytest.mark.parametrize("display_hz", ["60", "144"])
def test_a_solved_replay_plays_back_in_the_game_with_every_hash(
    tmp_path: Path, display_hz: str
) -> None:
    from tests.game.test_replays import game

    level = course(tmp_path, COURSE)
    out = tmp_path / "course.replay"
    assert main(["--solve", str(level), "--out", str(out), "--budget-s", "60"]) == 0
    shutil.copyfile(level, tmp_path / "copy.json")
    played = game(
        "--replay",
        str(out),
        "--level",
        str(level),
        "--display-hz",
        display_hz,
        "--json",
        *SMALL_PICTURE_FLAGS,
    )
    assert played.returncode == 0, played.stderr
    summary = json.loads(played.stdout.strip().splitlines()[-1])
    assert summary["completed"] is True and summary["hash_ok"] is True
