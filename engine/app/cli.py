"""A game's command line: ``python -m <game>`` for every game made on the engine.

A game's ``__main__.py`` is ``sys.exit(run_command_for(GAME))`` with its
:class:`~engine.app.definition.GameDefinition`; everything below is the engine's, so a fix here
reaches every game through ``--update-engine``.

In a window, the game starts at the title screen (play a run through every level in
``levels/``, or select one), with the pause menu, the fast restart key, level complete and
final screens (:mod:`engine.app.session`). ``--level FILE`` starts straight into any Tiled map that
follows the conventions in ``levels/README.md``.

Headless (``--headless``, for machines without a display), with ``--record`` or with
``--replay``, one level is played (``--level FILE`` or level 1) until the exit is reached, the
window closes or ``--frames`` run out. A headless run without ``--replay`` has no input, so
without ``--frames`` it stops after :data:`HEADLESS_DEFAULT_FRAMES` frames. Every run ends with
one summary line, its level name escaped and shortened (:data:`SHOWN_NAME_CHARS`; ``--json``:
an object with ``level``, ``completed``, ``ticks``, ``igt``, ``coins``, ``respawns``: how often
the player was sent back). Ctrl+C or SIGTERM ends a run the same way, with its summary line
(``--json``: ``"stopped_by": "SIGINT"``) and its recording saved, and exit status 130 or 143.
The engine's runtime flags work as on ``python -m engine.tools.demo``: ``--headless``, ``--display-hz``,
``--frames``, ``--screenshot``, ``--config``, ``--set`` (including the game's own sections,
such as the sample's ``[player]`` tuning).

Replays (see :mod:`engine.app.replay_run` and :mod:`engine.input.replay`):

``--record FILE``
    Record every tick's input and state hash while playing, and save the replay atomically
    when the run ends: the level is completed, ``--frames`` ran out, or the window was closed.
``--replay FILE``
    Play a replay back instead of live input. The level is the replay's level id looked up in
    ``levels/`` (or ``--level``). Every recorded state hash is checked; the run ends when the
    level is completed or the inputs run out, and the summary gains ``hash_ok`` (true: every
    hash played so far matched; the key is absent when not replaying). A damaged or truncated
    replay, one of another level (``--level`` naming another level says so) or an edited
    level, another format version, or a playback whose state differs from the recording stops
    with one line and exit status 2.

``--rerecord FILE...``
    Play each replay's inputs under the current settings, on the level as it is now (no
    window), and if they still complete the level, write the replay again with the new state
    hashes, level hash and settings hashes (:mod:`engine.app.rerecord`). Otherwise nothing is
    written and one line names where the run stops working. Exit status 0 when every replay
    was re-recorded, 1 when one no longer completes its level, 2 for an unreadable file.

With ``--record`` or ``--replay``, ``ticks`` counts the level's own ticks up to and including
the completing tick, so the in-game time is the same at every display rate.

Files: the levels and ``config.toml`` are the game's own, found beside the game wherever it
is started from (:mod:`engine.app.assets`); ``--level`` and ``--config`` name others. Levels
play in the order of their file names (:mod:`engine.app.level_order`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.app.assets import ProjectFilesError
from engine.app.definition import GameDefinition
from engine.app.level_order import bundled_levels
from engine.app.solve_command import budget_arg
from engine.app.solver import DEFAULT_BUDGET_S
from engine.config.schema import shown_text
from engine.input.replay import (
    Replay,
    ReplayError,
    ReplayMismatch,
    hash_level_file,
    load_replay,
    save_replay,
)
from engine.runtime.launch import (
    OneLineParser,
    StopSignals,
    add_runtime_arguments,
    add_settings_argument,
    fail,
    finish_gl_queue,
    is_headless,
    run_command,
)
from engine.speedrun.timer import format_igt
from engine.storage.atomic_file import check_can_save
from engine.timing import TickRate

if TYPE_CHECKING:  # importing these imports arcade, which must wait for the --headless flag
    from engine.app.replay_run import Recorder
    from engine.config import Config
    from engine.runtime.audio import SoundBank
    from engine.runtime.engine import Engine

SHOWN_NAME_CHARS = 80
"""A level name in the summary line is escaped (no terminal escape or line break reaches the
terminal raw) and shortened to this many characters (``--json`` has it whole, JSON-escaped)."""

HEADLESS_DEFAULT_FRAMES = 600
"""Frames a headless run without ``--replay`` or ``--frames`` plays (10 s of a 60 Hz display)."""


def build_parser(prog: str) -> OneLineParser:
    """The game's flags: the engine's runtime flags plus ``--level``, ``--record``, ``--replay``."""
    parser = OneLineParser(prog=prog, description="Play the game.")
    add_runtime_arguments(parser)
    add_settings_argument(parser)
    parser.add_argument(
        "--level",
        type=Path,
        default=None,
        help="Tiled map to play: a path, or a level of the game by file name (level2.json); "
        "default: level 1, or the replay's level with --replay",
    )
    tape = parser.add_mutually_exclusive_group()
    tape.add_argument(
        "--record", type=Path, metavar="FILE", default=None, help="record the run to a replay file"
    )
    tape.add_argument(
        "--replay", type=Path, metavar="FILE", default=None, help="play a replay file back"
    )
    tape.add_argument(
        "--verify-run",
        type=Path,
        metavar="FILE",
        default=None,
        help="replay a speedrun's run file headless and check its times and state hashes",
    )
    tape.add_argument(
        "--watch",
        type=Path,
        metavar="FILE",
        default=None,
        help="watch a speedrun's run file played through the game (timer, splits, LiveSplit)",
    )
    tape.add_argument(
        "--rerecord",
        type=Path,
        nargs="+",
        metavar="FILE",
        default=None,
        help="play replays' inputs under the current settings and, if they still complete "
        "their level, rewrite their hashes",
    )
    tape.add_argument(
        "--solve",
        type=Path,
        metavar="LEVEL",
        default=None,
        help="search the level headless for a way to its exit (engine.app.solver); "
        "exit 0 solved, 1 not within the budget",
    )
    parser.add_argument(
        "--out", type=Path, metavar="FILE", default=None, help="--solve: write the way found"
    )
    parser.add_argument(
        "--budget-s",
        type=budget_arg,
        metavar="S",
        default=None,
        help=f"--solve, --rerecord: seconds the solver may search a level (default "
        f"{DEFAULT_BUDGET_S:g})",
    )
    parser.add_argument(
        "--picture",
        type=Path,
        metavar="FILE",
        default=None,
        help="--solve: draw the level, the tiles reached and the best path (PNG)",
    )
    parser.add_argument(
        "--speedrun",
        action="store_true",
        help="speedrun mode (same as [speedrun] enabled = true): strict timing and the timer",
    )
    return parser


def replay_level_path(replay: Replay, source: Path, levels_dir: Path) -> Path:
    """The bundled level a replay was recorded on: its level id as a file name in ``levels/``.

    Raises:
        ReplayError: The level id is not a plain file name (it could point outside ``levels/``).
    """
    level_id = replay.level_id
    if Path(level_id).name != level_id or level_id in (".", ".."):
        raise ReplayError(source, f"level id {level_id!r} is not a file name in levels/")
    return levels_dir / level_id


def load_checked_replay(
    definition: GameDefinition, source: Path, level_arg: Path | None
) -> tuple[Replay, Path]:
    """Load a replay and find its level; check the level file is the one it was recorded on.

    Args:
        definition: The game (its levels, its kinds).
        source: The replay file.
        level_arg: ``--level`` if given; otherwise the replay's level id names the level.

    Returns:
        The replay and the level file to play it on.

    Raises:
        ReplayError: The replay is damaged, truncated, of an unsupported format version, or
            recorded on another (or an edited) level.
        LevelError: The level cannot be loaded.
    """
    from engine.levels import load_level

    replay = load_replay(source)
    levels = definition.files.levels_dir()
    level_path = level_arg if level_arg is not None else replay_level_path(replay, source, levels)
    load_level(level_path, definition.kinds, definition.conventions)
    level_hash = hash_level_file(level_path)
    if replay.level_hash != level_hash and level_path.name != replay.level_id:
        raise ReplayError(
            source,
            f"recorded on level {replay.level_id!r}, not on {level_path.name!r} (--level); "
            "leave --level out to play it on its own level",
        )
    load_replay(source, expect_level_hash=level_hash)  # the level file changed since recording
    return replay, level_path


def run_command_for(definition: GameDefinition, argv: Sequence[str] | None = None) -> int:
    """A game's ``__main__``: :func:`run_game`, with Ctrl+C and a closed stdout ending quietly."""
    return run_command(lambda: run_game(definition, argv), definition.prog)


def run_game(definition: GameDefinition, argv: Sequence[str] | None = None) -> int:
    """Play ``game`` (record, or play a replay back); return the exit status.

    Ctrl+C and SIGTERM are caught from here on (:class:`~engine.runtime.launch.StopSignals`):
    while the game loads they only ask it to stop, so no library's ``except`` can swallow
    them, and the run ends at its next frame.
    """
    args = build_parser(definition.prog).parse_args(argv)
    try:
        definition.files.levels_dir()  # a broken install says so in one line, before anything else
        args.level = args.level and definition.files.find_level(args.level)  # level3.json
    except ProjectFilesError as exc:
        fail(definition.prog, str(exc))
    with StopSignals() as stop:
        return play(definition, args, stop)


def play(definition: GameDefinition, args: argparse.Namespace, stop: StopSignals) -> int:
    """:func:`run_game` after the flags are parsed."""
    prog = definition.prog
    levels_dir = definition.files.levels_dir()
    headless = is_headless(args)
    from engine.levels import LevelError, load_level
    from engine.runtime.launch import config_and_settings

    config, settings = config_and_settings(
        args,
        definition.app_name,
        definition.config_sections,
        config_path=definition.files.config_path(),
    )
    if args.speedrun:
        config = dataclasses.replace(
            config, speedrun=dataclasses.replace(config.speedrun, enabled=True)
        )
    if args.verify_run is not None:
        status = verify_run_file(definition, args.verify_run, config, as_json=args.json)
        return stop.exit_status(status)
    if args.watch is not None:
        from engine.app.watch import watch_run

        status = watch_run(
            args.watch,
            definition,
            dataclasses.replace(
                config, speedrun=dataclasses.replace(config.speedrun, enabled=True)
            ),
            levels_dir=levels_dir,
            headless=headless,
            display_hz=args.display_hz,
            realtime=args.realtime,
            frames=args.frames,
            as_json=args.json,
            stop=stop,
            prog=prog,
            sounds=game_sounds(definition, config, headless=headless),
            music=None if headless else watch_music(config),
        )
        return stop.exit_status(status)
    for flag, value in (("--out", args.out), ("--picture", args.picture)):
        if value is not None and args.solve is None:
            fail(prog, f"{flag} goes with --solve LEVEL")
    if args.budget_s is not None and args.solve is None and args.rerecord is None:
        fail(prog, "--budget-s goes with --solve LEVEL or --rerecord FILE...")
    if args.solve is not None:
        from engine.app.solve_command import solve_level

        status = solve_level(
            definition,
            args.solve,
            config,
            out=args.out,
            budget_s=args.budget_s,
            picture=args.picture,
            as_json_output=args.json,
        )
        return stop.exit_status(status)
    if args.rerecord is not None:
        return stop.exit_status(
            rerecord_files(definition, args.rerecord, args.level, config, budget_s=args.budget_s)
        )
    if args.record is not None:
        try:  # a missing, read-only or full folder, or a device there: now, not after the run
            check_can_save(args.record)
        except OSError as exc:
            fail(
                prog, f"cannot record to {shown_text(str(args.record), 200)}: {exc.strerror or exc}"
            )
    replay: Replay | None = None
    level_path: Path = args.level if args.level is not None else bundled_levels(levels_dir)[0]
    try:
        # A broken level or replay stops here with one line, before any window opens.
        if args.replay is not None:
            replay, level_path = load_checked_replay(definition, args.replay, args.level)
        else:
            load_level(level_path, definition.kinds, definition.conventions)
    except (LevelError, ReplayError) as exc:
        print(exc, file=sys.stderr)
        return 2
    frames: int | None = args.frames
    if headless and frames is None and replay is None:
        frames = HEADLESS_DEFAULT_FRAMES  # no input: the level would never end
    from engine.app.replay_run import Player, Recorder, game_version, settings_hashes
    from engine.runtime.engine import Engine
    from engine.runtime.launch import open_window

    window = open_window(config, headless=headless, prog=prog)
    engine = Engine(
        window, config, headless=headless, display_hz=args.display_hz, realtime=args.realtime
    )
    engine.settings = settings
    if not (headless or args.record or args.replay):
        return play_session(definition, engine, config, args, stop)
    speedrun = config.speedrun
    scene = definition.make_scene(
        engine, level_path, sounds=game_sounds(definition, config, headless=headless)
    )
    if speedrun.enabled and speedrun.show_timer:
        scene.hud_extra = lambda: [f"IGT {format_igt(engine.tick_rate, scene.sim.ticks)}"]
    player: Player | None = None
    recorder: Recorder | None = None
    try:
        if replay is not None:
            if replay.tick_rate_hz != engine.tick_rate.rate_hz:
                raise ReplayError(
                    args.replay,
                    f"recorded at {replay.tick_rate_hz} ticks per second, the game runs "
                    f"{engine.tick_rate.rate_hz} (set timing.tick_rate_hz to match)",
                )
            hashes = settings_hashes(config, definition.config_sections)
            player = Player(replay, engine.actions, str(args.replay), hashes)
            scene.tape = player
        elif args.record is not None:
            recorder = Recorder(
                engine.actions,
                level_path,
                engine.tick_rate.rate_hz,
                settings_hashes(config, definition.config_sections),
                game_version(definition.app_name),
            )
            scene.tape = recorder
    except ReplayError as exc:
        print(exc, file=sys.stderr)
        window.close()
        return 2
    engine.show(scene)
    report = None
    try:
        while not engine.closed and not scene.completed and not stop.requested:
            if frames is not None and engine.loop.frames >= frames:
                break
            if player is not None and player.finished:
                break  # the replay's inputs ran out
            report = engine.run_frame()
            if headless:
                finish_gl_queue(window, engine.loop.frames)
    except ReplayMismatch as exc:
        print(f"{exc}{rerecord_hint(prog, args.replay)}", file=sys.stderr)
        if not engine.closed:
            window.close()
        return 2
    finally:
        if recorder is not None:
            save_error = save_recording(recorder, args.record)
    if recorder is not None and save_error is not None:
        print(save_error, file=sys.stderr)
        if not engine.closed:
            window.close()
        return 2
    if args.screenshot and report is not None:
        save_screenshot(engine, args.screenshot, report.alpha, prog)
    # Taped runs count the level's own ticks (they stop at the completing tick); plain runs
    # count every tick the engine ran, as before.
    ticks = engine.pacer.ticks if scene.tape is None else scene.sim.ticks
    summary: dict[str, object] = {
        "level": scene.level.name,
        "completed": scene.completed,
        "ticks": ticks,
        "igt": format_igt(engine.tick_rate, ticks),
        "coins": f"{scene.coins_collected}/{len(scene.level.coins)}",
        "respawns": scene.sim.respawns,
    }
    if player is not None:
        summary["hash_ok"] = True  # a mismatch would have stopped the run above
    if stop.requested:
        summary["stopped_by"] = stop.name
    if args.json:
        print(json.dumps(summary))
    else:
        result = "complete" if summary["completed"] else "not complete"
        name = shown_text(scene.level.name, SHOWN_NAME_CHARS)
        line = f"{name}: {result}, {ticks} ticks, IGT {summary['igt']}, coins {summary['coins']}"
        if player is not None:
            line += f", replay hashes ok ({player.hashes_checked} checked)"
        if stop.requested:
            line += f", stopped by {stop.name}"
        print(line)
    if not engine.closed:
        window.close()
    return stop.exit_status(0)


def save_screenshot(engine: Engine, path: Path, alpha: float, prog: str) -> None:
    """``--screenshot``: the last frame drawn again at its ``alpha`` and saved as a PNG (one
    line and exit status 2 when it cannot be written)."""
    engine.render_frame(alpha)
    try:
        engine.video.screenshot(str(path))
    except OSError as exc:
        fail(prog, f"cannot write screenshot {path}: {exc.strerror or exc}")


def game_sounds(definition: GameDefinition, config: Config, *, headless: bool) -> SoundBank:
    """The game's sound effects; silent when headless, one warning without an audio device."""
    from engine.runtime.audio import SoundBank

    files = {
        name: path if path.startswith(":") else definition.files.asset_path(path)
        for name, path in definition.sound_files.items()
    }
    return SoundBank.from_config(config.audio, files, headless=headless)


def watch_music(config: Config) -> object:
    """The music of a watched run (in a window)."""
    from engine.runtime.audio import Music

    return Music(config.audio)


def play_session(
    definition: GameDefinition,
    engine: Engine,
    config: Config,
    args: argparse.Namespace,
    stop: StopSignals,
) -> int:
    """Play with menus in the window until it closes; print the summary line."""
    from engine.app.level_records import FILE_NAME as LEVEL_RECORDS_FILE
    from engine.app.level_records import LevelRecords
    from engine.app.session import GameSession
    from engine.app.speedrun import Speedrun
    from engine.runtime.audio import Music
    from engine.speedrun.personal_best import default_records_path

    levels = (
        [args.level] if args.level is not None else bundled_levels(definition.files.levels_dir())
    )
    session = GameSession(
        engine,
        definition,
        levels,
        sounds=game_sounds(definition, config, headless=False),
        music=Music(config.audio),
        level_records=LevelRecords(
            default_records_path(definition.app_name).parent / LEVEL_RECORDS_FILE
        ),
    )
    speedrun = None
    if config.speedrun.enabled:
        speedrun = Speedrun(engine, definition, [p.name for p in levels], session.level_names)
        session.speedrun = speedrun
    if args.level is not None:
        session.start_level(0)
    else:
        session.show_title()
    report = None
    try:
        while not engine.closed and not stop.requested:
            if args.frames is not None and engine.loop.frames >= args.frames:
                break
            report = engine.run_frame()
        if args.screenshot and report is not None and not engine.closed:
            save_screenshot(engine, args.screenshot, report.alpha, definition.prog)
    finally:
        if speedrun is not None:
            speedrun.close()
    if speedrun is not None and speedrun.last_run_file is not None:
        print(f"run file: {speedrun.last_run_file}", file=sys.stderr)
    ticks = session.run_ticks
    in_play = session.current is not None or session.in_run  # else quit from the menus
    summary = {
        "level": session.level_names[session.level_index] if in_play else None,
        "completed": session.run_completed,
        "ticks": ticks,
        "igt": format_igt(engine.tick_rate, ticks),
    }
    if stop.requested:
        summary["stopped_by"] = stop.name
    if args.json:
        print(json.dumps(summary))
    elif not in_play:
        pass  # quit from the title or a menu: no level to sum up (nothing stale)
    else:
        result = "run complete" if session.run_completed else "not complete"
        stopped = f", stopped by {stop.name}" if stop.requested else ""
        name = shown_text(session.level_names[session.level_index], SHOWN_NAME_CHARS)
        print(f"{name}: {result}, {ticks} ticks, IGT {summary['igt']}{stopped}")
    if not engine.closed or session.quit_requested:
        engine.window.close()
    return stop.exit_status(0)


VERIFY_INVALID_STATUS = 3
"""``--verify-run``'s exit status for a run that verifies but does not count."""


def verify_run_file(
    definition: GameDefinition, path: Path, config: Config, *, as_json: bool
) -> int:
    """``--verify-run``: print one line and return the exit status.

    0: verified and valid; 1: not verified (the file differs from its replays); 2: not a
    readable run file; 3 (:data:`VERIFY_INVALID_STATUS`): verified, but an invalid run (time
    was dropped), which does not count.
    """
    from engine.app.run_file import RunFileError, RunSettings, read_run, verify_run
    from engine.levels import LevelError

    try:
        run = read_run(path, definition.config_sections)
        folder = definition.files.levels_dir()
        order = [level.name for level in bundled_levels(folder)]
        settings = RunSettings.from_config(config, definition.config_sections)
        result = verify_run(definition, run, folder, order, settings=settings)
    except (RunFileError, LevelError) as exc:
        print(exc, file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(result.to_json()))
    elif not result.verified:
        print(f"{path}: NOT verified: {result.problem}")
    else:
        done = f"IGT {result.igt} ({result.ticks} ticks), {result.levels} levels, from the inputs"
        claims = dict(result.claimed)
        claimed = (
            f"claimed, sealed in the chain: RTA {claims['rta']}, vsync {claims['vsync']}, "
            f"version {claims['game_version']}, dropped {claims['hitch_dropped_ms']} ms"
        )
        if result.valid:
            print(f"{path}: verified: {done}; {claimed}")
        else:
            print(f"{path}: verified but INVALID: {done}; {claimed}; {result.invalid}")
    if not result.verified:
        return 1
    return 0 if result.valid else VERIFY_INVALID_STATUS


def rerecord_hint(prog: str, path: Path) -> str:
    """What to add to a divergence: how to keep the replay when the change was intended."""
    return f"; if the change is intended, re-record it: {prog} --rerecord {path}"


def rerecord_files(
    definition: GameDefinition,
    paths: Sequence[Path],
    level_arg: Path | None,
    config: Config,
    *,
    budget_s: float | None = None,
) -> int:
    """``--rerecord``: re-record each replay, one line each; return the exit status.

    A replay whose inputs no longer complete its level is *solved anew* by the solver
    (:func:`~engine.app.rerecord.solve_anew`) and that way written instead; its line says so.

    0: every replay re-recorded or solved anew; 1: one no longer completes its level and the
    solver found no way within its budget (nothing written for it); 2: a file that is not a
    usable replay, or a level that cannot be loaded.
    """
    from engine.app.replay_run import game_version
    from engine.app.rerecord import StopsWorking, rerecord, solve_anew
    from engine.app.solver import Unsolvable, describe
    from engine.levels import LevelError

    status = 0
    version = game_version(definition.app_name)
    levels_dir = definition.files.levels_dir()
    for path in paths:
        try:
            old = load_replay(path)
            level_path = (
                level_arg if level_arg is not None else replay_level_path(old, path, levels_dir)
            )
            new = rerecord(definition, old, level_path, config, game_version=version)
            save_replay(new, path)
        except StopsWorking as exc:
            try:
                solved, found = solve_anew(
                    definition,
                    level_path,
                    config,
                    game_version=version,
                    budget_s=budget_s,
                    replay=old,
                )
                if solved is not None:
                    save_replay(solved, path)
            except (Unsolvable, ReplayError, LevelError) as error:
                print(error, file=sys.stderr)
                status = 2
                continue
            if solved is None:
                print(
                    f"{path}: NOT re-recorded: with the current settings {exc}, and the solver "
                    f"found no other way: {describe(found, level_path.name)}; record it again "
                    f"by playing: {definition.prog} --record {path} --level {level_path}",
                    file=sys.stderr,
                )
                status = max(status, 1)
                continue
            igt = format_igt(TickRate.from_hz(solved.tick_rate_hz), solved.tick_count)
            print(
                f"{path}: solved anew: its inputs no longer finish {level_path.name} ({exc}); "
                f"the solver found a way in {solved.tick_count} ticks (IGT {igt}, "
                f"{found.seconds:.1f} s of search) and wrote it"
            )
            continue
        except (ReplayError, LevelError) as exc:
            print(exc, file=sys.stderr)
            status = 2
            continue
        print(f"{path}: {rerecord_summary(old, new, level_path)}")
    return status


def rerecord_summary(old: Replay, new: Replay, level_path: Path) -> str:
    """What re-recording changed, in words (the line ``--rerecord`` prints)."""
    if new == old:
        return f"unchanged: it plays exactly as recorded ({new.tick_count} ticks)"
    igt = format_igt(TickRate.from_hz(new.tick_rate_hz), new.tick_count)
    done = f"re-recorded: completes {level_path.name} in {new.tick_count} ticks (IGT {igt})"
    if (new.inputs, new.hashes) == (old.inputs, old.hashes):
        return f"{done}, every tick as before; its header is up to date (format, settings)"
    changed = next(
        (
            tick
            for tick, pair in enumerate(zip(old.hashes, new.hashes, strict=False))
            if pair[0] != pair[1]
        ),
        min(old.tick_count, new.tick_count),
    )
    return f"{done}, was {old.tick_count} ticks; state hashes rewritten from tick {changed} on"


def save_recording(recorder: Recorder, path: Path) -> ReplayError | None:
    """Save a recording atomically; return the error instead of raising it.

    It runs in a ``finally`` block (the run may have ended with the window closed or an
    exception), where raising would hide the original exception.
    """
    try:
        save_replay(recorder.to_replay(), path)
    except ReplayError as exc:
        return exc
    return None
