"""Watching a run: ``python -m <game> --watch RUN.json`` plays a run file through the real game.

A run file (:mod:`engine.app.run_file`) holds every attempt of a speedrun: the level, how it ended
(completed, or restarted) and its inputs with a state hash per tick. Watching plays it back
through the same :class:`~engine.app.session.GameSession` a player uses: the run starts as "Play"
starts it, each attempt is a level scene fed the attempt's recorded inputs, a restarted attempt
restarts the level when its inputs end, a completed one shows the level complete screen with
its split and delta, and the last one the final screen. The speedrun timer (:mod:`engine.app.speedrun`)
runs as in a run, against the viewer's own personal best, and talks to LiveSplit when
``[speedrun.livesplit]`` is enabled; nothing is saved (``Speedrun(watched=...)``: no records,
no golds, no run file; the validity shown is the file's). The timer counts the level ticks
played, so at the end it shows exactly the file's in-game time, at any ``--display-hz``,
windowed or ``--headless``.

Before a window opens the file is read and verified on the pure simulation
(:func:`~engine.app.run_file.verify_run`, about a second): a file that cannot be read is one line and
exit status 2, one that does not verify one line and exit status 1. While it plays, every tick's
state hash is checked again against the recording (:class:`WatchTape`).

The watcher's keys: pause works (the timer stops with the level, as in a run); restart and reset
do nothing; the level complete screens go on by themselves after :data:`HOLD_S` seconds; "Quit
to title" from the pause menu ends the watch.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.app.definition import GameDefinition
from engine.app.replay_run import Player, Recorder
from engine.app.run_file import RunRecord, attempt_seeds, seal_hash
from engine.app.session import GameSession
from engine.input.replay import Replay, ReplayError, parse_replay
from engine.input.snapshot import InputSnapshot
from engine.speedrun.timer import StrictStatus

__all__ = [
    "HOLD_S",
    "RunWatch",
    "WatchError",
    "WatchResult",
    "WatchTape",
    "watch_on_engine",
    "watch_run",
]

HOLD_S = 2.0
"""How long each level complete screen (and the final screen) stays up while watching."""

SWALLOWED_ACTIONS = ("restart", "reset_run")
"""Live keys that would leave the recorded run: ignored while watching."""


class WatchError(Exception):
    """The watched run left its recording (one line)."""


class WatchTape(Recorder):
    """An attempt's tape while watching: the recorded inputs, checked, and recorded again.

    It is a :class:`~engine.app.replay_run.Recorder` (so the session keeps its attempts as always)
    whose input is the recording's instead of the live one, and whose every tick's state hash
    is checked against the recording (:class:`~engine.app.replay_run.Player`).

    Args:
        replay: The attempt's replay.
        action_map: The game's actions.
        level_path: The level played.
        tick_rate_hz: The engine's tick rate.
        source: Names the attempt in messages.
        seed: The attempt's seed in the run's sealed chain: the recording's hashes are the
            game's state hashes sealed under it (:func:`~engine.app.run_file.seal_hash`).
    """

    def __init__(
        self,
        replay: Replay,
        action_map: Any,
        level_path: Path,
        tick_rate_hz: Any,
        source: str,
        seed: bytes,
    ) -> None:
        super().__init__(action_map, level_path, tick_rate_hz)
        self.player = Player(replay, action_map, source)
        self.seed = seed

    @property
    def finished(self) -> bool:
        """Every recorded tick has been played."""
        return self.player.finished

    def input_for(self, tick: int, live: InputSnapshot) -> InputSnapshot:
        """The recorded input of ``tick``."""
        return self.player.input_for(tick, live)

    def after_tick(self, tick: int, snapshot: InputSnapshot, state_hash: str) -> None:
        """Check the state hash against the recording (raises on a mismatch), then record."""
        self.player.after_tick(tick, snapshot, seal_hash(self.seed, state_hash))
        super().after_tick(tick, snapshot, state_hash)


@dataclass(frozen=True, slots=True)
class WatchResult:
    """What a watch showed.

    Attributes:
        completed: The final screen was reached.
        attempts: Attempts played.
        levels: Levels completed.
        ticks: Level ticks played (the IGT in ticks).
        igt: The in-game time the game showed at the end (the session's and the timer's).
        hashes_checked: State hashes checked against the recording.
    """

    completed: bool
    attempts: int
    levels: int
    ticks: int
    igt: str
    hashes_checked: int


class RunWatch:
    """Plays a run's attempts through a :class:`~engine.app.session.GameSession`.

    It takes the engine's ``global_input`` (the session's still runs first): it starts each
    attempt's tape, restarts a restarted attempt's level when its inputs end, and moves on
    from the level complete screens after ``hold_ticks``.

    Args:
        session: The session (with its ``speedrun`` set for the timer).
        run: The run file's record.
        hold_ticks: Ticks each level complete screen and the final screen stay up.

    Attributes:
        done: The final screen has been shown for ``hold_ticks`` (or the viewer quit).
    """

    def __init__(self, session: GameSession, run: RunRecord, *, hold_ticks: int) -> None:
        self.session = session
        self.run = run
        self.hold_ticks = hold_ticks
        self.replays = [
            parse_replay(a.replay_text.encode("utf-8", "surrogatepass"), source=f"attempt {i + 1}")
            for i, a in enumerate(run.attempts)
        ]
        self.seeds = attempt_seeds(run)
        self.next_attempt = 0
        self.done = False
        self.hashes_checked = 0
        self._held = 0
        self._tapes: list[WatchTape] = []
        engine = session.engine
        self._session_input: Callable[[int, InputSnapshot], bool] | None = engine.global_input
        engine.global_input = self._global_input
        session.tape_for = self._tape_for

    def start(self) -> None:
        """Start the run (as "Play" on the title screen does)."""
        self.session.start_run()

    def _tape_for(self, index: int) -> Recorder:
        session = self.session
        number = self.next_attempt + 1
        if self.next_attempt >= len(self.replays):
            raise WatchError(f"the run file has no attempt {number} (level {index + 1})")
        attempt = self.run.attempts[self.next_attempt]
        level_path = session.level_paths[index]
        if attempt.level != level_path.name:
            raise WatchError(
                f"attempt {number} plays {attempt.level}, the run is at {level_path.name}"
            )
        tape = WatchTape(
            self.replays[self.next_attempt],
            session.engine.actions,
            level_path,
            session.engine.tick_rate.rate_hz,
            f"attempt {number} ({attempt.level})",
            self.seeds[self.next_attempt],
        )
        self.next_attempt += 1
        self._tapes.append(tape)
        return tape

    @property
    def attempt_outcome(self) -> str:
        """How the attempt being played ended in the file."""
        return self.run.attempts[self.next_attempt - 1].outcome

    def _global_input(self, tick: int, snapshot: InputSnapshot) -> bool:
        session = self.session
        actions = snapshot.action_map
        if any(name in actions and snapshot.was_pressed(name) for name in SWALLOWED_ACTIONS):
            return True
        if self._session_input is not None and self._session_input(tick, snapshot):
            self._held = 0
            return True
        scene = session.current
        if scene is not None:
            tape = scene.tape
            if tape is not None and tape.finished and not scene.completed:
                if self.attempt_outcome != "restart":
                    raise WatchError(f"attempt {self.next_attempt} ends without reaching the exit")
                session.restart_level()
                return True
            return False
        if not session.in_run:  # the viewer quit to the title
            self.done = True
            return True
        self._held += 1
        if self._held >= self.hold_ticks:
            self._held = 0
            if session.run_completed:
                self.done = True
            else:
                session.next_level()
        return True  # the level complete and final screens go on by themselves

    def result(self) -> WatchResult:
        """What has been shown so far."""
        session = self.session
        timer = session.speedrun.timer if session.speedrun is not None else None
        igt = timer.igt_text if timer is not None else session.igt_text()
        levels = len(timer.splits) if timer is not None else 0
        checked = sum(tape.player.hashes_checked for tape in self._tapes)
        return WatchResult(
            session.run_completed, self.next_attempt, levels, session.run_ticks, igt, checked
        )


def watch_on_engine(
    engine: Any,
    definition: GameDefinition,
    run: RunRecord,
    levels: list[Path],
    *,
    hold_ticks: int,
    frames: int | None = None,
    stop: Any = None,
    data_dir: Path | None = None,
    sounds: Any = None,
    music: Any = None,
) -> tuple[WatchResult, str]:
    """Play ``run`` through a new session on ``engine``; return what was shown and any problem.

    Args:
        engine: The engine (speedrun mode on, so timing is strict).
        definition: The game the run was played in.
        run: A run file's record (verified: see :func:`watch_run`).
        levels: The run's levels in order.
        hold_ticks: Ticks each level complete screen and the final screen stay up.
        frames: Stop after this many frames (None: at the end of the run).
        stop: Ends the watch when ``stop.requested`` (Ctrl+C, SIGTERM).
        data_dir: Where the viewer's personal bests are (default: the user data directory).
        sounds: Sound effects (None: silent).
        music: Music (None: none).

    Returns:
        The :class:`WatchResult`, and the one line saying how the run left its recording
        (empty when it did not).
    """
    from engine.app.speedrun import Speedrun
    from engine.runtime.launch import finish_gl_queue

    # The scenes play the config's settings, verified equal to the run's (watch_run).
    session = GameSession(engine, definition, levels, sounds=sounds, music=music)
    speedrun = Speedrun(
        engine,
        definition,
        [p.name for p in levels],
        session.level_names,
        data_dir=data_dir,
        watched=StrictStatus(run.timing_mode == "strict", run.vsync, run.hitch_dropped_ns),
    )
    session.speedrun = speedrun
    watch = RunWatch(session, run, hold_ticks=hold_ticks)
    problem = ""
    try:
        watch.start()
        while not engine.closed and not watch.done:
            if stop is not None and stop.requested:
                break
            if frames is not None and engine.loop.frames >= frames:
                break
            engine.run_frame()
            if engine.display is not None:  # headless: keep software GL's queue short
                finish_gl_queue(engine.window, engine.loop.frames)
    except (WatchError, ReplayError) as exc:
        problem = str(exc)
    finally:
        speedrun.close()
    return watch.result(), problem


def watch_run(
    path: Path,
    definition: GameDefinition,
    config: Any,
    *,
    levels_dir: Path,
    headless: bool,
    display_hz: float,
    realtime: bool,
    frames: int | None,
    as_json: bool,
    stop: Any,
    prog: str,
    hold_s: float = HOLD_S,
    sounds: Any = None,
    music: Any = None,
) -> int:
    """``--watch``: verify the run file, play it through the game, print one summary line.

    Returns:
        0 when the run played (to its end: showing the file's IGT); 1 when it does not verify
        or left its recording while playing; 2 when the file cannot be read.
    """
    from engine.app.level_order import bundled_levels
    from engine.app.run_file import RunFileError, RunSettings, read_run, verify_run
    from engine.levels import LevelError

    levels = bundled_levels(levels_dir)
    try:
        loaded = read_run(path, definition.config_sections)
        verification = verify_run(
            definition,
            loaded,
            levels_dir,
            [p.name for p in levels],
            settings=RunSettings.from_config(config, definition.config_sections),
        )
    except (RunFileError, LevelError) as exc:
        print(exc, file=sys.stderr)
        return 2
    if not verification.verified:
        print(f"{path}: NOT verified, not watched: {verification.problem}", file=sys.stderr)
        return 1
    run = loaded.run
    from engine.runtime.engine import Engine
    from engine.runtime.launch import open_window

    window = open_window(config, headless=headless, prog=prog)
    engine = Engine(window, config, headless=headless, display_hz=display_hz, realtime=realtime)
    hold_ticks = max(1, round(hold_s * float(engine.tick_rate.rate_hz)))
    result, problem = watch_on_engine(
        engine,
        definition,
        run,
        levels,
        hold_ticks=hold_ticks,
        frames=frames,
        stop=stop,
        sounds=sounds,
        music=music,
    )
    same = result.completed and result.igt == run.igt
    if problem:
        print(f"{path}: the watched run left its recording: {problem}", file=sys.stderr)
    summary: dict[str, object] = {
        "watched": str(path),
        "completed": result.completed,
        "attempts": result.attempts,
        "levels": result.levels,
        "ticks": result.ticks,
        "igt": result.igt,
        "file_igt": run.igt,
        "igt_ok": same,
        "hashes_checked": result.hashes_checked,
        "valid": verification.valid,
    }
    if stop.requested:
        summary["stopped_by"] = stop.name
    if as_json:
        print(json.dumps(summary))
    else:
        end = "watched to the end" if result.completed else "NOT watched to the end"
        match = "same as the file" if same else f"the file says {run.igt}"
        line = (
            f"{path}: {end}: {result.levels} levels, {result.attempts} attempts, "
            f"IGT {result.igt} ({match}), {result.hashes_checked} hashes checked"
        )
        if not verification.valid:
            line += f"; an invalid run: {verification.invalid}"
        if stop.requested:
            line += f", stopped by {stop.name}"
        print(line)
    if not engine.closed:  # (closed: the viewer closed the window)
        window.close()
    return 1 if problem else 0
