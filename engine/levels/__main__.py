"""``python -m engine.levels [--kinds MODULE] FILE...``: check maps, one line (or error) each.

A game's maps use the game's kinds too (enemies, springs...): ``--kinds game.kinds`` imports
that module and uses its ``KINDS`` registry (``--kinds module:NAME`` for another name), exactly
as the game does when it plays the map, so what this command accepts the game loads. Warnings (what
an arcade-convention map uses that the engine leaves out) follow the summary line, one per line,
prefixed ``warning:``.
"""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from engine.levels.kinds import KindRegistry
from engine.levels.model import Level, LevelError
from engine.levels.tiled import load_level


def summary_line(level: Level, shown_path: str) -> str:
    """One human line describing a loaded level (used by the command line)."""
    counts = Counter(obj.kind for obj in level.objects)
    objects = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items()))
    conventions = "" if level.conventions == "project" else f" ({level.conventions} conventions)"
    return (
        f'{shown_path}: "{level.name}"{conventions} {level.width_tiles}x{level.height_tiles} '
        f"tiles of {level.tile_size_px} px, solid {level.solid_tile_count} tiles -> "
        f"{len(level.solid_rects)} shapes, one-way {level.one_way_tile_count} tiles -> "
        f"{len(level.one_way_rects)} shapes; objects: {objects}"
    )


def load_kinds(spec: str) -> KindRegistry:
    """The registry ``module[:NAME]`` names (``NAME`` defaults to ``KINDS``).

    Raises:
        ValueError: One line saying what is wrong with ``spec``.
    """
    module_name, _, attribute = spec.partition(":")
    attribute = attribute or "KINDS"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"--kinds {spec}: cannot import {module_name!r} ({exc})") from None
    registry = getattr(module, attribute, None)
    if not isinstance(registry, KindRegistry):
        raise ValueError(f"--kinds {spec}: {module_name}.{attribute} is not a KindRegistry")
    return registry


def main(argv: Sequence[str] | None = None) -> int:
    """Check levels, one line each.

    Returns:
        0 when every file loads, 2 when any fails (its error line goes to stderr).
    """
    from engine.runtime.launch import OneLineParser

    parser = OneLineParser(
        prog="python -m engine.levels",
        description="Load Tiled maps and print one summary line each.",
    )
    parser.add_argument(
        "--kinds",
        metavar="MODULE[:NAME]",
        default=None,
        help="the game's kinds: a module with a KindRegistry named KINDS (e.g. game.kinds)",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="Tiled map files")
    args = parser.parse_args(argv)
    try:
        kinds = load_kinds(args.kinds) if args.kinds else KindRegistry()
    except ValueError as exc:
        parser.error(str(exc))
    status = 0
    for file in args.files:
        try:
            level = load_level(Path(file), kinds)
        except LevelError as exc:
            print(exc, file=sys.stderr)
            status = 2
        else:
            print(summary_line(level, file))
            for warning in level.warnings:
                print(f"warning: {file}: {warning}")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
