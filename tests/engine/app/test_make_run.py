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
