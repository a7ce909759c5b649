"""Watching a run file through the real session: screens, timer, splits, deltas, LiveSplit.

The default suite watches a short run (two levels, one restart) on the shared hidden window,
with LiveSplit enabled in the config and a LiveSplit server on a real loopback socket; the slow
set watches the bundled run file with the command, headless. Bad and forged files are refused
before any window opens.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.app.make_run import bundled_run
from engine.app.run_file import RunRecord
from engine.app.session import bundled_levels
from engine.config import load_config
from engine.speedrun.livesplit import livesplit_time_text
from engine.speedrun.personal_best import Records, save_records, update_with_run
from engine.timing import TickRate
from tests.engine.app.sample_game import BUNDLED_RUN, GAME, LEVELS_DIR, main
from tests.engine.speedrun.test_livesplit import LineServer, _wait_until
from tests.small_picture import SMALL_PICTURE_FLAGS, SMALL_PICTURE_OVERRIDES

ROOT = Path(__file__).resolve().parents[3]
RESTART_AFTER_TICKS = 40


@pytest.fixture(scope="module")
def short_levels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A levels folder with the first two bundled levels, their replays and their art."""
    folder = tmp_path_factory.mktemp("levels")
    for entry in LEVELS_DIR.iterdir():
        if entry.is_dir() and entry.name not in ("replays", "runs"):
            (folder / entry.name).symlink_to(entry)
    (folder / "replays").mkdir()
    for name in ("level1", "level2"):
        shutil.copy(LEVELS_DIR / f"{name}.json", folder)
        shutil.copy(LEVELS_DIR / "replays" / f"{name}.replay", folder / "replays")
    return folder


@pytest.fixture(scope="module")
def short_run(short_levels: Path) -> RunRecord:
    """Level 1 restarted once, then levels 1 and 2 completed."""
    return bundled_run(GAME, short_levels, restarts=[(0, RESTART_AFTER_TICKS)], game_version="test")


@pytest.fixture
def livesplit() -> Iterator[LineServer]:
    server = LineServer()
    yield server
    server.stop()


def seed_personal_best(data_dir: Path, order: list[str], segments: list[int]) -> Path:
    """The viewer's personal best (the deltas compare against it)."""
    category = f"{'+'.join(order)}@{TickRate.from_hz(60)}"
    records, _, _ = update_with_run(Records(), category, order, tuple(segments))
    path = data_dir / "personal_bests.json"
    data_dir.mkdir(parents=True, exist_ok=True)
    save_records(records, path)
    return path


@pytest.mark.gl
def test_a_watched_run_shows_its_screens_splits_deltas_and_the_files_igt(
    gl_window: Any, short_levels: Path, short_run: RunRecord, livesplit: LineServer, tmp_path: Path
) -> None:
    from engine.app.watch import watch_on_engine
    from engine.runtime.engine import Engine
    from engine.runtime.menu import MenuScene

    levels = bundled_levels(short_levels)
    order = [p.name for p in levels]
    segments = [s.segment_ticks for s in short_run.splits]
    best = seed_personal_best(tmp_path / "data", order, [t + 30 for t in segments])
    best_before = best.read_bytes()
    overrides = (
        "speedrun.enabled=true",
        "speedrun.livesplit.enabled=true",
        "speedrun.livesplit.host=127.0.0.1",
        f"speedrun.livesplit.port={livesplit.port}",
        *SMALL_PICTURE_OVERRIDES,
    )
    engine = Engine(
        gl_window, load_config(None, overrides), headless=True, display_hz=10, probe_frames=0
    )
    screens: list[tuple[str, tuple[str, ...]]] = []
    show = engine.show

    def remember(scene: Any) -> None:  # what the viewer sees, screen by screen
        if isinstance(scene, MenuScene):
            screens.append((scene.panel.title, tuple(scene.panel.lines)))
        else:
            screens.append((type(scene).__name__, ()))
        show(scene)

    engine.show = remember  # type: ignore[method-assign]
    try:
        result, problem = watch_on_engine(
            engine, GAME, short_run, levels, hold_ticks=6, data_dir=tmp_path / "data"
        )
    finally:
        engine.close()
    assert problem == ""
    assert result.completed and (result.levels, result.attempts) == (2, 3)
    assert result.ticks == short_run.igt_ticks and result.igt == short_run.igt
    assert result.hashes_checked == short_run.igt_ticks  # every tick's hash, again
    # The screens: level 1, restarted, level 1 again, its split with the delta, level 2, final.
    names = [name for name, _ in screens]
    assert names == [
        "LevelScene",
        "LevelScene",
        "Level complete!",
        "LevelScene",
        "You made it!",
    ]
    complete_lines = screens[2][1]
    assert any("(-0.500 vs PB)" in line and "invalid" not in line for line in complete_lines), (
        complete_lines
    )
    final_lines = screens[4][1]
    assert f"in-game time {short_run.igt}" in final_lines
    assert "watched run: no records or run file saved" in final_lines
    # Nothing of the viewer's was touched.
    assert best.read_bytes() == best_before
    assert not (tmp_path / "data" / "runs").exists()
    # LiveSplit heard the run: start, two splits, the final game time.
    final_ms = short_run.settings.tick_rate.tick_time_ms(short_run.igt_ticks)
    assert _wait_until(lambda: livesplit.received().count("split") == 2)
    lines = livesplit.received()
    assert lines[:2] == ["reset", "starttimer"]
    assert lines.index("starttimer") < lines.index("split")
    assert f"setgametime {livesplit_time_text(final_ms)}" in lines


def test_unreadable_and_forged_run_files_get_one_line_before_any_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "platformer-run", "version": true}')
    assert main(["--watch", str(bad), "--headless"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "version true is not supported" in err
    assert main(["--watch", str(tmp_path / "missing.json"), "--headless"]) == 2
    assert "cannot read" in capsys.readouterr().err
    data = json.loads(BUNDLED_RUN.read_text())
    data["splits"][0]["igt_ticks"] += 1  # a forged split
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    assert main(["--watch", str(forged), "--headless"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "NOT verified, not watched" in err


@pytest.mark.slow
def test_watching_the_bundled_run_headless_shows_its_igt_and_drives_livesplit(
    livesplit: LineServer, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[speedrun.livesplit]\nenabled = true\nhost = "127.0.0.1"\nport = {livesplit.port}\n'
    )
    env = {**os.environ, "ARCADE_HEADLESS": "1", "XDG_DATA_HOME": str(tmp_path / "data")}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "game", "--watch", str(BUNDLED_RUN), "--headless"),
            *("--display-hz", "15", "--json", "--config", str(config), *SMALL_PICTURE_FLAGS),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    run = json.loads(BUNDLED_RUN.read_text())
    assert summary["igt"] == summary["file_igt"] == run["igt"] and summary["igt_ok"]
    assert summary["levels"] == len(run["splits"]) and summary["completed"]
    lines = livesplit.received()
    assert lines.count("split") == len(run["splits"])
    final_ms = TickRate.from_hz(60).tick_time_ms(run["igt_ticks"])
    assert f"setgametime {livesplit_time_text(final_ms)}" in lines
