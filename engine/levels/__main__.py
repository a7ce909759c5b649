"""``python -m engine.levels [--kinds MODULE] [--conventions MODULE] FILE...``: check maps.

One summary line (or one error line) each; ``python -m engine.levels import SRC --out FILE``
turns a foreign map into one in this template's conventions (:mod:`engine.levels.importer`).


A game's maps use the game's kinds too (enemies, springs...): ``--kinds mygame.kinds`` imports
that module and uses its ``KINDS`` registry (``--kinds module:NAME`` for another name), exactly
as the game does when it plays the map, so what this command accepts the game loads; likewise
``--conventions mygame.conventions`` for the names that give foreign maps meaning. Warnings (what
a foreign map uses that the engine leaves out, a level without ground) follow the summary line,
one per line, prefixed ``warning:``. Names and paths are printed escaped and shortened.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from engine.levels.conventions import GENERIC_CONVENTIONS, MapConventions
from engine.levels.kinds import KindRegistry
from engine.levels.model import Level, LevelError, escaped
from engine.levels.tiled import load_level

_T = TypeVar("_T")


def summary_line(level: Level, shown_path: str) -> str:
    """One human line describing a loaded level (used by the command line)."""
    counts = Counter(obj.kind for obj in level.objects)
    objects = ", ".join(f"{kind} {count}" for kind, count in sorted(counts.items()))
    conventions = "" if level.conventions == "project" else f" ({level.conventions} conventions)"
    ground = ""
    if level.ground_shapes:
        one_way = sum(shape.one_way for shape in level.ground_shapes)
        ground = f", ground objects {len(level.ground_shapes) - one_way} solid + {one_way} one-way"
    skipped = f"; skipped {level.skipped_objects} objects" if level.skipped_objects else ""
    return (
        f'{escaped(shown_path, 200)}: "{escaped(level.name)}"{conventions} '
        f"{level.width_tiles}x{level.height_tiles} "
        f"tiles of {level.tile_size_px} px, solid {level.solid_tile_count} tiles -> "
        f"{len(level.solid_rects)} shapes, one-way {level.one_way_tile_count} tiles -> "
        f"{len(level.one_way_rects)} shapes{ground}; objects: {objects}{skipped}"
    )


def _named(flag: str, spec: str, default: str, kind: type[_T]) -> _T:
    """The object ``module[:NAME]`` names (``NAME`` defaults to ``default``), a ``kind``.

    Raises:
        ValueError: One line naming ``flag`` and what is wrong with ``spec``.
    """
    module_name, _, attribute = spec.partition(":")
    attribute = attribute or default
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an ImportError, or whatever the module raised on import
        raise ValueError(f"{flag} {spec}: cannot import {module_name!r} ({exc})") from None
    found = getattr(module, attribute, None)
    if not isinstance(found, kind):
        article = "a " if kind is KindRegistry else ""
        raise ValueError(
            f"{flag} {spec}: {module_name}.{attribute} is not {article}{kind.__name__}"
        )
    return found


def load_kinds(spec: str) -> KindRegistry:
    """The registry ``module[:NAME]`` names (``NAME`` defaults to ``KINDS``).

    Raises:
        ValueError: One line saying what is wrong with ``spec``.
    """
    return _named("--kinds", spec, "KINDS", KindRegistry)


def load_conventions(spec: str) -> MapConventions:
    """The map conventions ``module[:NAME]`` names (``NAME`` defaults to ``CONVENTIONS``).

    Raises:
        ValueError: One line saying what is wrong with ``spec``.
    """
    return _named("--conventions", spec, "CONVENTIONS", MapConventions)


def specs_from_flags(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[KindRegistry, MapConventions]:
    """The registry and conventions ``--kinds`` and ``--conventions`` name (defaults: the
    engine's kinds, the generic names); a bad spec is the parser's one-line error (exit 2)."""
    try:
        kinds = load_kinds(args.kinds) if args.kinds else KindRegistry()
        conventions = (
            load_conventions(args.conventions) if args.conventions else GENERIC_CONVENTIONS
        )
    except ValueError as exc:
        parser.error(str(exc))
    return kinds, conventions


def main(argv: Sequence[str] | None = None) -> int:
    """Check levels, one line each.

    Returns:
        0 when every file loads, 2 when any fails (its error line goes to stderr).
    """
    from engine.runtime.launch import OneLineParser

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "import":
        from engine.levels.importer import main as import_main

        return import_main(argv[1:])
    parser = OneLineParser(
        prog="python -m engine.levels",
        description="Load Tiled maps and print one summary line each.",
    )
    parser.add_argument(
        "--kinds",
        metavar="MODULE[:NAME]",
        default=None,
        help="the game's kinds: a module with a KindRegistry named KINDS (e.g. mygame.kinds)",
    )
    parser.add_argument(
        "--conventions",
        metavar="MODULE[:NAME]",
        default=None,
        help="the game's map conventions: a module with MapConventions named CONVENTIONS "
        "(e.g. mygame.conventions; default: the generic names)",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="Tiled map files")
    args = parser.parse_args(argv)
    kinds, conventions = specs_from_flags(parser, args)
    status = 0
    for file in args.files:
        try:
            level = load_level(Path(file), kinds, conventions)
        except LevelError as exc:
            hint = ""
            if args.kinds is None and "unknown object class" in exc.detail:
                hint = " (only the engine's kinds are known: pass the game's with --kinds MODULE)"
            print(f"{exc}{hint}", file=sys.stderr)
            status = 2
        else:
            print(summary_line(level, file))
            for warning in level.warnings:
                print(f"warning: {escaped(file, 200)}: {escaped(warning, 300)}")
            if not level.has_ground:
                print(
                    f"warning: {escaped(file, 200)}: the level has no ground at all "
                    "(no solid or one-way layer, no ground objects): the player falls"
                )
    return status


if __name__ == "__main__":
    raise SystemExit(main())
