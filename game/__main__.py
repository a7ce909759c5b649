"""``python -m game``: play the sample platformer (the engine's command line, :mod:`engine.app.cli`)."""

import sys

from engine.app.cli import run_command_for
from game.definition import GAME

if __name__ == "__main__":
    sys.exit(run_command_for(GAME))
