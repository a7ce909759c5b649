"""``python -m engine.levels FILE...``: check Tiled maps, one summary line (or one error line) each."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from engine.levels.model import Level, LevelError
from engine.levels.tiled import _quoted, load_level

# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def summary_line(level: Level, shown_path: str) -> str:
    """One human line describing a loaded level (used by the command line)."""
    return (
        f"{shown_path}: {_quoted(level.name)} {level.width_tiles}x{level.height_tiles} tiles "
        f"of {level.tile_size_px} px, solid {level.solid_tile_count} tiles -> "
        f"{len(level.solid_rects)} shapes, one-way {level.one_way_tile_count} tiles -> "
        f"{len(level.one_way_rects)} shapes, coins {len(level.coins)}, "
        f"checkpoints {len(level.checkpoints)}, exits {len(level.exits)}, "
        f"hazards {len(level.hazards)}, moving platforms {len(level.moving_platforms)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.levels FILE...``: check levels, one line each.

    Returns:
        0 when every file loads, 2 when any fails (its error line goes to stderr).
    """
    from engine.runtime.launch import OneLineParser

    parser = OneLineParser(
        prog="python -m engine.levels",
        description="Load Tiled JSON levels and print one summary line each.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="Tiled JSON map files")
    args = parser.parse_args(argv)
    status = 0
    for file in args.files:
        try:
            level = load_level(Path(file))
        except LevelError as exc:
            print(exc, file=sys.stderr)
            status = 2
        else:
            print(summary_line(level, file))
    return status


if __name__ == "__main__":
    raise SystemExit(main())
