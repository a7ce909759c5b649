"""``python -m engine``: the engine's project commands.

``python -m engine new NAME [--path DIR] [--force] [--update-engine [--dry-run]] [--no-git]``
    Start a new game, the sample game under a new name, or take this checkout's engine into
    one (see :mod:`engine.tools.new_project`); also installed as the ``platformer-new``
    console script.

The engine's other tools are modules of their own: ``python -m engine.tools.demo``,
``engine.tools.monitor_sim``, ``engine.tools.bench``, ``engine.levels``, ``engine.config`` and
``engine.bundle`` (a game's one-folder bundle).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from engine.runtime.launch import OneLineParser

PROG = "python -m engine"


def build_parser() -> OneLineParser:
    """The top-level parser: one subcommand per project command."""
    parser = OneLineParser(
        prog=PROG,
        description="Project commands of the platformer engine. The engine's tools run as "
        "modules: python -m engine.tools.demo, engine.tools.monitor_sim, engine.tools.bench, engine.levels, "
        "engine.config.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    commands.add_parser(
        "new",
        help="start a new game from this template: python -m engine new NAME [--path DIR]",
        add_help=False,
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a subcommand; return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "new":
        from engine.tools.new_project import main as new_main

        return new_main(args[1:], prog=f"{PROG} new")
    build_parser().parse_args(args)  # --help, or one error line and exit 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
