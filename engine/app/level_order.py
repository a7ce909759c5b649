"""Which levels a run plays, and in what order: the map files in ``levels/``, by file name.

Every Tiled map directly in ``levels/`` (``.json``, ``.tmj`` or ``.tmx``; not the tilesets in
``levels/tiles/``) is a level of the game, so a new level is picked up by saving it there, with
no code to change. A run plays them in the **natural order of their file names**: digits are
compared as numbers, so ``level2.json`` comes before ``level10.json``, and a letter after the
number sorts after it, so ``level1b.json`` plays between ``level1.json`` and ``level2.json``.
Number the files the way you want them played (``level1``, ``level2``... or ``01-meadow``,
``02-caves``...).

A level's **name** (on the level select, the HUD and the complete screen) is the map's custom
property ``name`` (*Map > Map Properties* in Tiled), or the file name without its extension.

Renaming a level file changes its id: replays name their level by file name, so a renamed
level's replay needs its new name (``--level`` plays it on any file) or recording again.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["LEVEL_SUFFIXES", "bundled_levels", "natural_key", "replay_of"]

LEVEL_SUFFIXES = (".json", ".tmj", ".tmx")
"""The map formats a level file may have (Tiled JSON, and Tiled XML)."""


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key comparing the digit runs of ``name`` as numbers: ``level2`` < ``level10``."""
    parts = re.split(r"(\d+)", name.lower())
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts if part)


def bundled_levels(levels_dir: Path) -> list[Path]:
    """The levels of a run: every map file in ``levels_dir``, in natural file-name order."""
    maps = [
        path
        for path in levels_dir.iterdir()
        if path.suffix.lower() in LEVEL_SUFFIXES and path.is_file()
    ]
    return sorted(maps, key=lambda path: (natural_key(path.name), path.name))


def replay_of(level_path: Path) -> Path:
    """A level's bundled replay: ``replays/<stem>.replay`` next to it."""
    return level_path.parent / "replays" / f"{level_path.stem}.replay"
