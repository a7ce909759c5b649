"""``python -m game``: play the sample platformer.

Plays ``levels/level1.json`` (or ``--level FILE``, any Tiled map following the conventions in
``levels/README.md``) until the exit is reached or the window closes, then prints one summary line
(``--json``: an object with ``level``, ``completed``, ``ticks``, ``igt``, ``coins``). The engine's
runtime flags work as on ``python -m engine.demo``: ``--headless``, ``--display-hz``, ``--frames``,
``--screenshot``, ``--config``, ``--set`` (including the ``[player]`` tuning section).

Menus, the pause screen, sounds, gamepads and input replays come with the rest of the sample game.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.launch import OneLineParser, add_runtime_arguments, fail, is_headless
from game.movement import PlayerTuning

PROG = "python -m game"
LEVELS_DIR = Path(__file__).resolve().parent.parent / "levels"
DEFAULT_LEVEL = LEVELS_DIR / "level1.json"
EXTRA_SECTIONS = {"player": PlayerTuning}


def build_parser() -> OneLineParser:
    """The game's flags: the engine's runtime flags plus ``--level``."""
    parser = OneLineParser(prog=PROG, description="Play the sample platformer.")
    add_runtime_arguments(parser)
    parser.add_argument(
        "--level", type=Path, default=DEFAULT_LEVEL, help="Tiled map to play (default: level 1)"
    )
    return parser


def format_igt(ticks: int, rate: object) -> str:
    """In-game time of ``ticks`` as ``m:ss.mmm`` (``h:mm:ss.mmm`` past an hour), exact."""
    total_ms = rate.tick_time_ms(ticks)  # type: ignore[attr-defined]
    hours, rest_ms = divmod(total_ms, 3_600_000)
    minutes, rest_ms = divmod(rest_ms, 60_000)
    seconds, ms = divmod(rest_ms, 1000)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{ms:03d}"
    return f"{minutes}:{seconds:02d}.{ms:03d}"


def main(argv: Sequence[str] | None = None) -> int:
    """Play; return the exit status."""
    args = build_parser().parse_args(argv)
    headless = is_headless(args)
    from engine.config import config_from_args
    from engine.tiled_level import LevelError, load_level

    config = config_from_args(args, extra_sections=EXTRA_SECTIONS)
    tuning = config.section("player", PlayerTuning)
    try:
        load_level(args.level)  # a broken level stops here with one line, before any window opens
    except LevelError as exc:
        print(exc, file=sys.stderr)
        return 2
    from engine.app import Engine
    from engine.launch import open_window
    from game.level_scene import LevelScene

    window = open_window(config, headless=headless, prog=PROG)
    engine = Engine(
        window, config, headless=headless, display_hz=args.display_hz, realtime=args.realtime
    )
    scene = LevelScene.for_engine(engine, args.level, tuning)
    engine.show(scene)
    report = None
    while not engine.closed and not scene.completed:
        if args.frames is not None and engine.loop.frames >= args.frames:
            break
        report = engine.run_frame()
    if args.screenshot and report is not None:
        import arcade

        engine.render_frame(report.alpha)
        try:
            arcade.get_image(0, 0, window.width, window.height).save(args.screenshot)
        except OSError as exc:
            fail(PROG, f"cannot write screenshot {args.screenshot}: {exc}")
    ticks = engine.pacer.ticks
    summary = {
        "level": scene.level.name,
        "completed": scene.completed,
        "ticks": ticks,
        "igt": format_igt(ticks, engine.tick_rate),
        "coins": f"{scene.coins_collected}/{len(scene.level.coins)}",
    }
    if args.json:
        print(json.dumps(summary))
    else:
        result = "complete" if summary["completed"] else "not complete"
        print(
            f"{summary['level']}: {result}, {ticks} ticks, IGT {summary['igt']}, coins {summary['coins']}"
        )
    if not engine.closed:
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
