"""The bundled run file: up to date with the levels and replays, and it verifies."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.app.make_run import bundled_run, main
from engine.app.run_file import read_run, run_json, verify_run
from engine.app.session import bundled_levels, replay_of
from engine.input.replay import load_replay
from tests.engine.app.sample_game import BUNDLED_RUN, GAME, LEVELS_DIR, SECTIONS


def test_the_bundled_run_file_is_what_make_run_makes_now() -> None:
    """Fails after a level or a bundled replay changed: rerun ``python -m engine.app.make_run``."""
    assert BUNDLED_RUN.read_bytes() == run_json(bundled_run(GAME)), (
        "levels/runs/any-percent.run.json is out of date: run python -m engine.app.make_run"
    )


def test_the_bundled_run_file_verifies_through_every_level() -> None:
    levels = bundled_levels(LEVELS_DIR)
    result = verify_run(GAME, read_run(BUNDLED_RUN, SECTIONS), LEVELS_DIR, [p.name for p in levels])
    assert result.verified and result.valid, result.problem
    ticks = sum(load_replay(replay_of(path)).tick_count for path in levels)
    assert (result.levels, result.ticks) == (len(levels), ticks)


@pytest.mark.slow
def test_check_says_whether_the_file_is_up_to_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "run.json"
    assert main(["--check", "--output", str(stale)]) == 1
    assert "OUT OF DATE" in capsys.readouterr().out
    assert main(["--output", str(stale)]) == 0
    assert main(["--check", "--output", str(stale)]) == 0
    assert stale.read_bytes() == BUNDLED_RUN.read_bytes()


@pytest.mark.slow
def test_the_run_maker_plays_with_the_games_config(tmp_path: Path) -> None:
    """A tuned game's bundled run is made (and verifies) with its config.toml's settings."""
    import json

    from engine.app.run_file import RunSettings
    from engine.config import load_config

    config_file = tmp_path / "config.toml"
    config_file.write_text("[player]\ncoyote_time_s = 0.12\n", encoding="utf-8")
    output = tmp_path / "run.json"
    assert main(["--game", "game", "--config", str(config_file), "--output", str(output)]) == 0
    data = json.loads(output.read_text(encoding="utf-8"))
    assert data["settings"]["player"]["coyote_time_s"] == 0.12
    tuned = RunSettings.from_config(load_config(config_file, extra_sections=SECTIONS), SECTIONS)
    levels = [p.name for p in bundled_levels(LEVELS_DIR)]
    run = read_run(output, SECTIONS)
    assert verify_run(GAME, run, LEVELS_DIR, levels, settings=tuned).verified
    assert not verify_run(GAME, run, LEVELS_DIR, levels).verified  # not the defaults' run


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--game", "no_such_game"], "cannot import the game"),
        (["--game", "game", "--config", "/dev/null/x.toml"], "x.toml"),
    ],
)
def test_a_bad_game_or_config_is_one_line_and_exit_2(
    argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1
