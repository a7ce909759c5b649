"""``python -m <game> --solve LEVEL``: the solver (:mod:`engine.app.solver`) on the command line.

``--solve LEVEL [--out FILE.replay] [--budget-s S] [--json] [--picture FILE.png]`` loads the
level under the game's current settings (``config.toml``, ``--config``, ``--set``), searches it
headless and prints one line: solved, in how many ticks, how many ticks the search simulated
and how fast; or where it got furthest and what stopped it. ``--json`` prints an object
instead (``solved``, ``ticks``, ``simulated_ticks``, ``seconds``, ``ticks_per_s``, and
``furthest`` / ``stopped_by`` when not solved). ``--out`` writes the way found as a replay
recorded from a fresh start; ``--picture`` draws the level with the tiles the search reached
and the best path. On a terminal (and without ``--json``) a progress line updates in place.

Exit status: 0 solved, 1 not solved within the budget, 2 a bad flag, level or output path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engine.app.solver import (
    DEFAULT_BUDGET_S,
    LayoutMap,
    SolveResult,
    Unsolvable,
    as_json,
    describe,
    record_solution,
    solve,
    terminal_progress,
)
from engine.input.snapshot import ActionMap
from engine.runtime.launch import number_arg

if TYPE_CHECKING:
    from engine.app.definition import GameDefinition
    from engine.config import Config

__all__ = ["MAX_BUDGET_S", "budget_arg", "draw_picture", "solve_level"]

MAX_BUDGET_S = 86_400.0
"""The longest ``--budget-s`` allowed (a day)."""


budget_arg = number_arg("budget", minimum=0.0, exclusive=True, maximum=MAX_BUDGET_S, unit=" s")
"""``--budget-s``: seconds, a positive finite number up to :data:`MAX_BUDGET_S` (one line else)."""


def solve_level(
    definition: GameDefinition,
    level_path: Path,
    config: Config,
    *,
    out: Path | None,
    budget_s: float | None,
    picture: Path | None,
    as_json_output: bool,
) -> int:
    """Run ``--solve``: print one line (or JSON) and return the exit status."""
    from engine.app.replay_run import game_version
    from engine.app.run_file import RunSettings
    from engine.config import game_action_names
    from engine.input.replay import ReplayError, save_replay
    from engine.levels import LevelError

    prog = definition.prog
    for path, what in ((out, "--out"), (picture, "--picture")):
        if path is not None and not path.resolve().parent.is_dir():
            print(f"{prog}: {what} {path}: the directory does not exist", file=sys.stderr)
            return 2
    settings = RunSettings.from_config(config, definition.config_sections)
    actions = ActionMap(game_action_names(config.input))
    try:
        world = definition.load_world(level_path, settings)
    except LevelError as exc:
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{level_path}: cannot read the level: {exc.strerror or exc}", file=sys.stderr)
        return 2
    progress = None
    if not as_json_output and sys.stderr.isatty():
        progress = terminal_progress(level_path.name)
    try:
        result = solve(
            world,
            world.level,
            actions,
            settings.tick_rate.step_s,
            budget_s=budget_s if budget_s is not None else DEFAULT_BUDGET_S,
            progress=progress,
        )
        if progress is not None:
            sys.stderr.write("\r\x1b[K")
        if result.solved and out is not None:
            replay = record_solution(
                definition,
                level_path,
                settings,
                actions,
                result.inputs,
                game_version=game_version(definition.app_name),
            )
            save_replay(replay, out)
    except Unsolvable as exc:
        print(f"{prog}: {level_path}: {exc}", file=sys.stderr)
        return 2
    except ReplayError as exc:
        print(exc, file=sys.stderr)
        return 2
    if picture is not None:
        try:
            draw_picture(world.level, result, picture)
        except OSError as exc:
            print(f"{prog}: --picture {picture}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    if as_json_output:
        print(json.dumps(as_json(result)))
    else:
        line = describe(result, level_path.name)
        if result.solved and out is not None:
            line += f"; wrote {out}"
        print(line)
    return 0 if result.solved else 1


def draw_picture(level: object, result: SolveResult, path: Path) -> None:
    """Draw the level's tiles, what the search reached and the best path into a PNG.

    Solid tiles dark grey, tiles the player reached light blue, the exits green, the best path
    (the way found, or the way to the furthest point) red, the furthest point a yellow square.
    """
    from PIL import Image, ImageDraw

    layout = LayoutMap(level)  # type: ignore[arg-type]
    scale = max(2, min(12, 1600 // max(layout.columns, 1)))
    width, height = layout.columns * scale, layout.rows * scale
    image = Image.new("RGB", (width, height), (24, 26, 34))
    draw = ImageDraw.Draw(image)

    def box(row: int, column: int) -> tuple[int, int, int, int]:
        top = (layout.rows - 1 - row) * scale
        return (column * scale, top, column * scale + scale - 1, top + scale - 1)

    for row, column in result.reached:
        draw.rectangle(box(row, column), fill=(70, 110, 160))
    solid_rows, solid_columns = layout.solid.nonzero()
    for row, column in zip(solid_rows.tolist(), solid_columns.tolist(), strict=True):
        draw.rectangle(box(row, column), fill=(110, 110, 110))
    for row, column in layout.exit_cells:
        draw.rectangle(box(row, column), fill=(60, 200, 90))

    def point(feet: tuple[float, float]) -> tuple[float, float]:
        x_px, y_px = feet
        return (x_px / layout.tile_px * scale, height - y_px / layout.tile_px * scale)

    if len(result.path_px) > 1:
        draw.line([point(feet) for feet in result.path_px], fill=(230, 60, 60), width=2)
    column, tiled_row = result.furthest
    draw.rectangle(box(layout.rows - 1 - tiled_row, column), outline=(250, 220, 60), width=2)
    image.save(path, format="PNG")
