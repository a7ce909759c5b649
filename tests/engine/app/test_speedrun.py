"""Speedrun mode in the game: a whole timed run, its splits, records, run file and LiveSplit.

The ``gl`` tests run a real :class:`~engine.app.session.GameSession` on the engine with the shared
hidden window. A :class:`RunDriver` stands in for the player's hands: during a level it feeds
the bundled replay's inputs (the inputs a player recorded), on menus it presses jump. So the
run is played through the same input path as live keys, and the run file it exports holds
real inputs that :func:`~engine.app.run_file.verify_run` replays.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.app.run_file import load_run, verify_run
from engine.app.session import GameSession, bundled_levels
from engine.config import Config, load_config
from engine.input.replay import ReplayVerifier, format_replay, load_replay, parse_replay
from engine.input.snapshot import InputPlayer, InputSnapshot
from engine.levels import load_level
from engine.speedrun.livesplit import LiveSplitClient, livesplit_time_text
from engine.speedrun.personal_best import load_records
from engine.speedrun.timer import format_igt
from engine.timing import TickRate
from game.kinds import KINDS
from game.movement import PlayerTuning
from tests.engine.app.sample_game import GAME, LEVELS_DIR, SECTIONS
from tests.engine.app.test_game_cli import game
from tests.engine.speedrun.test_livesplit import LineServer, _wait_until
from tests.game.test_replays import assert_one_line_error
from tests.small_picture import small_picture

ROOT = Path(__file__).resolve().parents[3]
LEVELS = bundled_levels(LEVELS_DIR)
ORDER = [p.name for p in LEVELS]
NAMES = [load_level(p, KINDS).name for p in LEVELS]
REPLAYS = [LEVELS_DIR / "replays" / f"{p.stem}.replay" for p in LEVELS]
REPLAY_TICKS = [load_replay(path).tick_count for path in REPLAYS]
RATE = TickRate.from_hz(60)
RUN_TICKS = sum(REPLAY_TICKS)
RUN_IGT = format_igt(RATE, RUN_TICKS)
"""A run of the bundled replays: every level's ticks, exactly."""


def speedrun_config(**video: Any) -> Config:
    """Speedrun mode on, in the small picture (these tests are about time, not pixels)."""
    config = small_picture(load_config(None))
    config = dataclasses.replace(
        config, speedrun=dataclasses.replace(config.speedrun, enabled=True)
    )
    if video:
        config = dataclasses.replace(config, video=dataclasses.replace(config.video, **video))
    return config


class RunDriver:
    """The engine's input source for a scripted run: replay inputs in levels, jump on menus."""

    def __init__(self, session: GameSession) -> None:
        self.session = session
        self.engine = session.engine
        self._players: dict[int, InputPlayer] = {}
        self._menu_tick = 0
        self.reset_at: int | None = None  # press reset_run at this level tick of level 1

    def sample(self) -> InputSnapshot:
        actions = self.engine.actions
        scene = self.session.current
        if scene is not None and not scene.completed and self.engine.scene is scene:
            if self.reset_at is not None and scene.sim.ticks == self.reset_at:
                self.reset_at = None
                bit = actions.bit("reset_run")
                return InputSnapshot(actions, bit, bit)
            key = id(scene)
            if key not in self._players:
                replay = load_replay(REPLAYS[self.session.level_index])
                self._players[key] = ReplayVerifier(replay).player(actions)
            player = self._players[key]
            return player.sample() if not player.finished else InputSnapshot.empty(actions)
        self._menu_tick += 1
        bit = actions.bit("jump") if self._menu_tick % 2 else 0
        return InputSnapshot(actions, bit, bit)


@pytest.fixture
def livesplit() -> Iterator[LineServer]:
    server = LineServer()
    yield server
    server.stop()


def new_session(
    window: Any, data_dir: Path, livesplit_port: int | None = None, **engine_kwargs: Any
) -> GameSession:
    """A speedrun session of the bundled levels on ``window``, driven by a :class:`RunDriver`."""
    from engine.app.speedrun import Speedrun
    from engine.runtime.engine import Engine

    engine = Engine(window, speedrun_config(), headless=True, probe_frames=0, **engine_kwargs)
    session = GameSession(engine, GAME, LEVELS)
    client = None
    if livesplit_port is not None:
        client = LiveSplitClient("127.0.0.1", livesplit_port, warn=print, info=print)
    session.speedrun = Speedrun(
        engine,
        GAME,
        ORDER,
        session.level_names,
        game_version="test",
        data_dir=data_dir,
        livesplit=client,
    )
    engine.sampler = RunDriver(session)  # type: ignore[assignment]
    return session


def close_session(session: GameSession) -> None:
    session.speedrun.close()
    session.engine.close()


@pytest.fixture
def make_session(gl_window: Any, tmp_path: Path) -> Iterator[Any]:
    made: list[GameSession] = []

    def make(livesplit_port: int | None = None, **engine_kwargs: Any) -> GameSession:
        made.append(new_session(gl_window, tmp_path / "data", livesplit_port, **engine_kwargs))
        return made[-1]

    yield make
    for session in made:
        close_session(session)


@dataclasses.dataclass(frozen=True)
class FinishedRun:
    """What one whole run of the bundled replays left behind (read-only: copy before editing).

    Attributes:
        timer: The run's finished speedrun timer.
        strict_valid: Whether the speedrun status said strict and valid at the end.
        category: The records category of the run.
        run_ticks: The session's count of the run's level ticks.
        data_dir: The data directory (personal bests, exported runs).
        run_file: The exported run file.
        livesplit_lines: What the LiveSplit server heard, every split included.
    """

    timer: Any
    strict_valid: bool
    category: str
    run_ticks: int
    data_dir: Path
    run_file: Path
    livesplit_lines: list[str]


FINISHED_RUN_GROUP = pytest.mark.xdist_group("finished-run")
"""The tests of :func:`finished_run` share one pytest-xdist worker, so the run is played once."""


@pytest.fixture(scope="module")
def finished_run(gl_window: Any, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    """One whole run, played once for the tests that only read what it left behind."""
    data_dir = tmp_path_factory.mktemp("finished-run") / "data"
    server = LineServer()
    session = new_session(gl_window, data_dir, livesplit_port=server.port)
    try:
        play_run(session)
        assert _wait_until(lambda: server.received().count("split") == len(LEVELS))
        speedrun = session.speedrun
        status = speedrun.status()
        assert speedrun.last_run_file is not None
        return FinishedRun(
            timer=speedrun.timer,
            strict_valid=status.strict and status.valid,
            category=speedrun.category,
            run_ticks=session.run_ticks,
            data_dir=data_dir,
            run_file=speedrun.last_run_file,
            livesplit_lines=server.received(),
        )
    finally:
        close_session(session)
        server.stop()


def play_until(session: GameSession, done: Any, max_frames: int = 10_000) -> None:
    for _ in range(max_frames):
        if done():
            return
        session.engine.run_frame()
    raise AssertionError("the run did not get there")


def play_run(session: GameSession) -> None:
    session.show_title()
    play_until(session, lambda: session.run_completed)


@pytest.mark.slow
@pytest.mark.gl
@FINISHED_RUN_GROUP
def test_a_timed_run_splits_saves_its_best_and_exports_a_verified_run_file(
    finished_run: FinishedRun,
) -> None:
    timer = finished_run.timer
    assert timer is not None and timer.finished
    # IGT is the level ticks of the run, exactly.
    assert timer.split_segment_ticks == tuple(REPLAY_TICKS)
    assert timer.igt_ticks == sum(REPLAY_TICKS) == finished_run.run_ticks
    assert timer.igt_text == RUN_IGT  # ticks x 1/60 s
    assert [s.is_gold for s in timer.splits] == [True] * len(LEVELS)  # first run: all golds
    assert finished_run.strict_valid
    # The personal best went to the data directory.
    records = load_records(finished_run.data_dir / "personal_bests.json")
    best = records.category(finished_run.category).personal_best
    assert best is not None and best.total_ticks == sum(REPLAY_TICKS)
    # The run file verifies.
    run = load_run(finished_run.run_file, SECTIONS)
    assert run.timing_mode == "strict" and run.strict_valid
    result = verify_run(GAME, run, LEVELS_DIR, ORDER)
    assert result.verified, result.problem
    assert (result.igt, result.ticks, result.levels) == (RUN_IGT, RUN_TICKS, len(LEVELS))
    # LiveSplit heard the run: start, game time, a split per level.
    lines = finished_run.livesplit_lines
    assert lines[:3] == ["reset", "starttimer", "pausegametime"]
    assert f"setgametime {livesplit_time_text(RUN_TICKS * 1000 // 60)}" in lines
    assert lines.index("starttimer") < lines.index("split")


@pytest.mark.slow
@pytest.mark.gl
@FINISHED_RUN_GROUP
def test_a_second_run_with_a_reset_and_a_restart_compares_counts_and_verifies(
    finished_run: FinishedRun, make_session: Any, livesplit: LineServer, tmp_path: Path
) -> None:
    """A second run, after the first run's records, played to the end, shows three things: the
    reset at tick 100 of level 1 throws those ticks away (the timer and LiveSplit start again);
    the restart of level 1 at tick 50 of the new run counts in it and in its verified run file;
    and every split compares against the first run's (behind by the restarted ticks, no gold).
    (Three tests played three whole runs for these.)"""
    shutil.copytree(finished_run.data_dir, tmp_path / "data")  # the first run's records
    session = make_session(livesplit_port=livesplit.port)
    driver = session.engine.sampler
    driver.reset_at = 100
    session.show_title()
    play_until(
        session,
        lambda: (
            driver.reset_at is None  # the reset happened: a new run, a new level 1
            and session.current is not None
            and session.current.sim.ticks >= 50
        ),
    )
    assert _wait_until(lambda: "reset" in livesplit.received())
    session.restart_level()
    driver._players.clear()  # the replay starts over in the new attempt
    play_until(session, lambda: session.run_completed)
    assert [a.outcome for a in session.attempts][:2] == ["restart", "complete"]
    restarted = session.attempts[0].ticks
    assert 50 <= restarted < 100
    # The reset threw the first 100 ticks away; the restarted attempt's ticks count.
    timer = session.speedrun.timer
    assert timer.igt_ticks == sum(REPLAY_TICKS) + restarted
    assert livesplit.received().count("starttimer") == 2
    result = verify_run(GAME, load_run(session.speedrun.last_run_file, SECTIONS), LEVELS_DIR, ORDER)
    assert result.verified, result.problem
    assert result.ticks == sum(REPLAY_TICKS) + restarted
    # Against the first run: each split is behind by the restart, and no segment is a gold.
    seconds, millis = divmod(RATE.tick_time_ms(restarted), 1000)
    assert [s.delta_ticks for s in timer.splits] == [restarted] * len(LEVELS)
    assert [s.delta_text for s in timer.splits] == [f"+{seconds}.{millis:03d}"] * len(LEVELS)
    assert not any(s.is_gold for s in timer.splits)


@pytest.mark.gl
def test_play_again_abandons_the_run_and_resets_livesplit(
    make_session: Any, livesplit: LineServer
) -> None:
    session = make_session(livesplit_port=livesplit.port)
    session.show_title()
    play_until(session, lambda: bool(session.attempts))  # level 1 complete
    assert session.speedrun.timer is not None
    session.start_level(0)  # "Play again" on the level complete screen
    assert session.speedrun.timer is None and not session.in_run
    assert _wait_until(lambda: "reset" in livesplit.received())


@pytest.mark.slow
@pytest.mark.gl
@FINISHED_RUN_GROUP
def test_edited_run_files_fail_verification_at_the_first_mismatch(
    finished_run: FinishedRun, tmp_path: Path
) -> None:
    data = json.loads(finished_run.run_file.read_text())

    def verify(edited: dict[str, Any]) -> str:
        target = tmp_path / "edited.json"
        target.write_text(json.dumps(edited))
        result = verify_run(GAME, load_run(target, SECTIONS), LEVELS_DIR, ORDER)
        assert not result.verified
        return result.problem

    faster = json.loads(json.dumps(data))
    faster["igt"], faster["igt_ticks"] = "0:30.000", 1800
    assert "claims IGT 0:30.000" in verify(faster)

    split = json.loads(json.dumps(data))
    split["splits"][1]["igt_ticks"] -= 60
    assert "split 2" in verify(split)

    renamed = json.loads(json.dumps(data))
    renamed["splits"][0]["name"] = "WORLD RECORD"
    assert "named 'WORLD RECORD'" in verify(renamed)

    not_strict = json.loads(json.dumps(data))
    not_strict["timing_mode"] = "interpolated"
    assert "strict mode" in verify(not_strict)

    hitched = json.loads(json.dumps(data))
    hitched["hitch_dropped_ns"] = 5  # while still claiming strict_valid
    assert "dropped 5 ns" in verify(hitched)

    reordered = json.loads(json.dumps(data))
    reordered["attempts"].reverse()
    assert f"attempt 1 plays '{ORDER[-1]}'" in verify(reordered)

    # An input edited by hand breaks the replay's checksum ...
    raw = json.loads(json.dumps(data))
    text = raw["attempts"][0]["replay"]
    lines = text.splitlines()
    first_tick_line = next(i for i, line in enumerate(lines) if line.startswith("ticks ")) + 1
    encoded_input, state_hash = lines[first_tick_line + 100].split()
    lines[first_tick_line + 100] = f"{int(encoded_input) ^ 1} {state_hash}"
    raw["attempts"][0]["replay"] = "\n".join(lines) + "\n"
    assert "attempt 1" in verify(raw)

    # ... and one re-checksummed by a tool differs at the first changed tick.
    replay = parse_replay(text.encode())
    left = replay.action_map.bit("left")
    inputs = list(replay.inputs)
    inputs[100] = InputSnapshot(replay.action_map, left, left).encode()  # a step to the left
    forged = dataclasses.replace(replay, inputs=tuple(inputs))
    tool = json.loads(json.dumps(data))
    tool["attempts"][0]["replay"] = format_replay(forged)
    assert "tick 100" in verify(tool)


# The IGT of every bundled replay is the same at any display rate, vsync on or off, in the
# speedrun's strict timing as in the default: tests/game/test_replays.py
# (test_every_bundled_replay_plays_alike_at_any_display_rate_vsync_and_timing).


@pytest.mark.gl
def test_strict_game_time_stays_within_a_tick_of_real_time_through_a_stall(
    gl_window: Any,
) -> None:
    """A headless run in speedrun mode with a 1 s stall: only the reported drop is missing."""
    from engine.app.replay_run import Player
    from engine.runtime.engine import Engine

    engine = Engine(gl_window, speedrun_config(), headless=True, display_hz=144)
    try:
        scene = GAME.make_scene(engine, LEVELS[2])
        scene.tape = Player(load_replay(REPLAYS[2]), engine.actions, "level3")
        engine.show(scene)
        pacer = engine.pacer
        step_ns = RATE.tick_time_ns(1)
        worst_ns = 0
        for frame in range(600):
            if frame == 300:
                engine.clock.advance(1_000_000_000)  # the process stalls for a second
            engine.run_frame()
            # game + dropped + pending == elapsed (no bend in strict mode)
            behind_ns = pacer.elapsed_ns - pacer.dropped_ns - pacer.game_time_ns
            worst_ns = max(worst_ns, abs(behind_ns))
        assert worst_ns <= step_ns
        assert pacer.hitch_dropped_ns > 0  # and the drop is reported
        assert 0.7e9 < pacer.hitch_dropped_ns < 1.0e9
    finally:
        engine.close()


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.gl
@FINISHED_RUN_GROUP
def test_verify_run_prints_one_line_and_json(finished_run: FinishedRun, tmp_path: Path) -> None:
    path = str(shutil.copy(finished_run.run_file, tmp_path))  # edited below
    out = game("--verify-run", path)
    assert out.returncode == 0, out.stderr
    expected = (
        f"{path}: verified: IGT {RUN_IGT} ({RUN_TICKS} ticks), {len(LEVELS)} levels, from the "
        "inputs; claimed, sealed in the chain: RTA "
    )
    assert out.stdout.startswith(expected) and out.stdout.count("\n") == 1, out.stdout
    out = game("--verify-run", path, "--json")
    report = json.loads(out.stdout)
    recomputed = {"igt": RUN_IGT, "ticks": RUN_TICKS, "levels": len(LEVELS)}
    assert {key: report[key] for key in ("verified", "valid", *recomputed)} == {
        "verified": True,
        "valid": True,
        **recomputed,
    }
    assert report["recomputed"] == recomputed
    assert set(report["claimed"]) == {
        "rta",
        "vsync",
        "game_version",
        "timing_mode",
        "hitch_dropped_ms",
    }
    edited = json.loads(Path(path).read_text())
    edited["igt_ticks"] = 1
    Path(path).write_text(json.dumps(edited))
    out = game("--verify-run", path, "--json")
    assert out.returncode == 1
    result = json.loads(out.stdout)
    assert result["verified"] is False and "claims IGT" in result["problem"]


@pytest.mark.slow
def test_unreadable_run_files_get_one_line_and_exit_2(tmp_path: Path) -> None:
    assert_one_line_error(
        game("--verify-run", str(tmp_path / "missing.json")), "missing.json", "cannot read"
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert_one_line_error(game("--verify-run", str(bad)), "bad.json", "bad JSON")
    bad.write_text(json.dumps({"format": "platformer-run", "version": 7}))
    assert_one_line_error(game("--verify-run", str(bad)), "version 7")
    bad.write_text(json.dumps({"format": "platformer-run", "version": 1, "splits": []}))
    assert_one_line_error(game("--verify-run", str(bad)), "attempts")
    bad.write_bytes(b"[" * 100_000)
    assert_one_line_error(game("--verify-run", str(bad)), "bad JSON")


def test_bad_speedrun_config_values_get_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[speedrun]\nenabled = "yes"\n')
    assert_one_line_error(game("--config", str(config), "--frames", "5"), "speedrun.enabled")
    config.write_text("[speedrun.livesplit]\nport = 70000\n")
    assert_one_line_error(game("--config", str(config), "--frames", "5"), "port")


@pytest.mark.gl
def test_unreachable_livesplit_warns_once_and_the_game_goes_on(
    gl_window: Any, tmp_path: Path
) -> None:
    from engine.app.speedrun import Speedrun
    from engine.runtime.engine import Engine

    warnings: list[str] = []
    engine = Engine(gl_window, speedrun_config(), headless=True, probe_frames=0)
    session = GameSession(engine, GAME, LEVELS)
    client = LiveSplitClient("127.0.0.1", 9, warn=warnings.append, info=warnings.append)
    speedrun = Speedrun(
        engine,
        GAME,
        ORDER,
        session.level_names,
        game_version="t",
        data_dir=tmp_path,
        livesplit=client,
    )
    session.speedrun = speedrun
    try:
        session.start_run()
        for _ in range(120):
            engine.run_frame()
        assert _wait_until(lambda: len(warnings) >= 1)
        assert session.current is not None and session.current.sim.ticks > 60
        assert len([w for w in warnings if "127.0.0.1:9" in w]) == 1
    finally:
        speedrun.close()
        engine.close()


# ---------------------------------------------------------------------------------------------
# Records from valid runs only; the run file never lost; chained attempts that verify
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def timed(gl_window: Any, tmp_path: Path) -> Iterator[Any]:
    """``timed(config=..., **speedrun_kwargs)``: a Speedrun on a real engine, driven by hand.

    ``finish_run(speedrun, attempts)`` then splits at each completed attempt, as the session
    does, with the engine's virtual clock advanced by each attempt's game time (so RTA covers
    IGT), and finishes the run.
    """
    from engine.app.speedrun import Speedrun
    from engine.runtime.engine import Engine

    made: list[tuple[Any, Any]] = []

    def make(config: Config | None = None, **kwargs: Any) -> Any:
        engine = Engine(gl_window, config or speedrun_config(), headless=True, probe_frames=0)
        kwargs.setdefault("data_dir", tmp_path / "data")
        kwargs.setdefault("fallback_dirs", [tmp_path / "fallback"])
        speedrun = Speedrun(engine, GAME, ORDER, NAMES, game_version="t", **kwargs)
        made.append((engine, speedrun))
        return speedrun

    yield make
    for engine, speedrun in made:
        speedrun.close()
        engine.close()


def finish_run(speedrun: Any, attempts: list[tuple[str, str, Any]]) -> list[str]:
    speedrun.start()
    ticks = 0
    for _level, outcome, replay in attempts:
        ticks += replay.tick_count
        speedrun.engine.clock.advance(RATE.tick_time_ns(replay.tick_count) + 1_000_000)
        if outcome == "complete":
            speedrun.split(ticks)
    return list(speedrun.finish(attempts, attempts[-1][2].hashes[-1]))


@pytest.mark.gl
def test_a_finished_run_chains_its_attempts_and_verifies(timed: Any) -> None:
    from tests.engine.app.honest_runs import play_run

    speedrun = timed()
    lines = finish_run(speedrun, play_run(restarts=[(1, 40)]))
    assert lines[:2] == ["New personal best!", f"gold splits: {len(LEVELS)}"]
    run = load_run(speedrun.last_run_file, SECTIONS)
    assert [a.previous_hash == "" for a in run.attempts] == [True] + [False] * len(LEVELS)
    assert {a.run_id for a in run.attempts} == {run.run_id} == {speedrun.run_id}
    assert verify_run(GAME, run, LEVELS_DIR, ORDER).valid


@pytest.mark.gl
@pytest.mark.slow  # plays the whole run twice; the records and names have fast tests of their own
def test_two_games_finishing_the_same_run_keep_both_files_and_one_claim(timed: Any) -> None:
    """Findings 5 and 6: both games loaded the records before either finished; same IGT."""
    from tests.engine.app.honest_runs import play_run

    first, second = timed(), timed()  # one data folder, two games
    attempts = play_run()
    first_lines = finish_run(first, attempts)
    second_lines = finish_run(second, attempts)
    assert first_lines[0] == "New personal best!"
    assert "New personal best!" not in second_lines  # a tie is not a new best
    assert not any(line.startswith("gold splits") for line in second_lines)
    assert first.last_run_file != second.last_run_file  # never one file over the other
    runs = [load_run(speedrun.last_run_file, SECTIONS) for speedrun in (first, second)]
    assert [run.run_id for run in runs] == [first.run_id, second.run_id]


@pytest.mark.gl
def test_an_invalid_run_shows_its_times_marked_and_saves_no_records(
    timed: Any, tmp_path: Path
) -> None:
    from tests.engine.app.honest_runs import play_run

    config = load_config(None, ["timing.mode=interpolated"])  # not timed in strict mode
    speedrun = timed(config=config)
    lines = finish_run(speedrun, play_run())
    assert lines[0] == "invalid run (not timed in strict mode): no records saved"
    assert not (tmp_path / "data" / "personal_bests.json").exists()
    assert speedrun.last_split is not None and speedrun.last_split.is_gold  # the timer's view
    shown = speedrun.split_lines(speedrun.last_split)[0]
    assert "gold" not in shown and shown.endswith("(invalid run: not timed in strict mode)")
    run = load_run(speedrun.last_run_file, SECTIONS)
    assert run.strict_valid is False  # exported all the same, marked


@pytest.mark.gl
def test_a_practice_level_is_marked(timed: Any) -> None:
    assert timed().split_lines(None) == ["practice: not a run, no splits or records"]


@pytest.mark.gl
def test_a_reset_invalid_run_keeps_no_golds(timed: Any, tmp_path: Path) -> None:
    speedrun = timed(config=load_config(None, ["timing.mode=interpolated"]))
    speedrun.start()
    speedrun.engine.clock.advance(10**9)
    speedrun.split(30)
    speedrun.reset()
    assert not (tmp_path / "data" / "personal_bests.json").exists()


@pytest.mark.gl
def test_the_run_file_falls_back_when_runs_cannot_be_written(timed: Any, tmp_path: Path) -> None:
    from tests.engine.app.honest_runs import play_run

    warnings: list[str] = []
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "runs").write_text("a file where the folder should be")
    speedrun = timed(warn=warnings.append)
    lines = finish_run(speedrun, play_run())
    saved = speedrun.last_run_file
    assert saved is not None and saved.parent == tmp_path / "fallback"
    assert lines[-1] == f"run file: {saved}"
    assert len(warnings) == 1 and warnings[0].startswith("warning: cannot write the run file to ")
    assert "(a file is where its folder should be)" in warnings[0]
    assert f"saved it to {saved} instead" in warnings[0]
    assert verify_run(GAME, load_run(saved, SECTIONS), LEVELS_DIR, ORDER).valid


@pytest.mark.gl
def test_when_no_place_takes_the_run_file_it_says_so(timed: Any, tmp_path: Path) -> None:
    from tests.engine.app.honest_runs import play_run

    warnings: list[str] = []
    blocked = tmp_path / "blocked"
    blocked.write_text("file")
    speedrun = timed(warn=warnings.append, data_dir=blocked, fallback_dirs=[blocked / "x"])
    lines = finish_run(speedrun, play_run())
    assert lines[-1] == "run file NOT saved (see the warning)"
    assert [w for w in warnings if "could not be saved anywhere" in w]
    assert speedrun.last_run_file is None


@pytest.mark.gl
def test_symlinked_personal_bests_stay_linked(timed: Any, tmp_path: Path) -> None:
    from tests.engine.app.honest_runs import play_run

    synced = tmp_path / "synced" / "personal_bests.json"
    synced.parent.mkdir()
    (tmp_path / "data").mkdir()
    link = tmp_path / "data" / "personal_bests.json"
    link.symlink_to(synced)
    speedrun = timed()
    finish_run(speedrun, play_run())
    assert link.is_symlink() and synced.is_file()
    assert load_records(synced).category(speedrun.category).personal_best is not None


@pytest.mark.gl
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_for_personal_bests_warns_once_and_never_hangs(
    timed: Any, tmp_path: Path
) -> None:
    (tmp_path / "data").mkdir()
    os.mkfifo(tmp_path / "data" / "personal_bests.json")
    warnings: list[str] = []
    timed(warn=warnings.append)  # loads the records: must not wait for a writer
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: personal bests ") and "named pipe" in warnings[0]
    assert "warning: warning:" not in warnings[0]


@pytest.mark.gl
def test_other_settings_get_their_own_category(timed: Any) -> None:

    default = timed()
    other = timed(
        settings=GAME.default_settings().with_section(
            "player",
            dataclasses.replace(
                GAME.default_settings().section("player", PlayerTuning), coyote_time_s=0.12
            ),
        )
    )
    assert default.category == "+".join(ORDER) + "@60 Hz"
    assert other.category.startswith(default.category + "#settings-")
