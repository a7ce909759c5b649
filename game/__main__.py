"""``python -m game``: play the sample platformer (the engine's command line, :mod:`engine.app.cli`)."""

import sys

from engine.app.cli import run_command_for
from game.definition import GAME


def main() -> int:
    """The console script's entry point (``pyproject.toml``'s ``[project.scripts]``)."""
    return run_command_for(GAME)


if __name__ == "__main__":
    sys.exit(main())
