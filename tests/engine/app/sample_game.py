"""The sample game as the engine's machinery sees it: the material of the ``engine.app`` tests."""

from __future__ import annotations

from collections.abc import Sequence

from engine.app import make_run
from engine.app.cli import run_game
from game.definition import GAME

__all__ = ["BUNDLED_RUN", "GAME", "LEVELS_DIR", "SECTIONS", "main"]

SECTIONS = GAME.config_sections
"""The sample game's own config sections (``[player]``)."""

LEVELS_DIR = GAME.files.levels_dir()
"""The sample game's ``levels/``."""

BUNDLED_RUN = LEVELS_DIR / make_run.BUNDLED_RUN
"""The sample game's bundled run file."""


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m game`` in this process."""
    return run_game(GAME, argv)
