"""The player's records per level: best time and most coins, shown on the level select screen.

Every completed level (in a run or practised) is recorded in ``level_records.json`` in the
user data directory (beside the speedrun's ``personal_bests.json``): its fewest ticks and its
most coins. The speedrun's records are per category and only for valid runs; these are the
everyday player's, whatever the timing mode.

Records are keyed by the level file, the tick rate and, for non-default ``[player]`` or
``[physics]`` settings, the settings hash (another tuning plays another game), like the
speedrun's categories. A **medal** compares the best time with the level's par time (its
``par_time_s`` map property, the world's :attr:`~engine.app.definition.World.par_time_s`):
gold at or under par, silver within 25 % over it, bronze for any completion.

The file is read once and saved atomically after each record; a file that is not JSON of this
shape is moved aside (``.corrupt``) with one warning line and the game goes on without records;
an unreadable or unwritable place gives one warning and nothing else.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.storage.atomic_file import write_atomic
from engine.storage.bounded_read import read_regular_file

__all__ = ["LevelRecord", "LevelRecords", "medal_for"]

FILE_NAME = "level_records.json"
FORMAT_NAME = "level-records"
FORMAT_VERSION = 1
MAX_BYTES = 1024 * 1024
SILVER_FACTOR = 1.25
"""A best time within this many par times earns silver."""
MEDALS = ("gold", "silver", "bronze")


def medal_for(best_ticks: int | None, par_ticks: int | None) -> str | None:
    """``"gold"`` (at or under par), ``"silver"`` (within 25 % over), ``"bronze"`` (completed),
    or None (never completed). Without a par time a completion is bronze."""
    if best_ticks is None:
        return None
    if par_ticks is None:
        return "bronze"
    if best_ticks <= par_ticks:
        return "gold"
    return "silver" if best_ticks <= math.floor(par_ticks * SILVER_FACTOR) else "bronze"


@dataclass(frozen=True, slots=True)
class LevelRecord:
    """The best a player did on one level.

    Attributes:
        best_ticks: Fewest ticks to complete it.
        coins: Most coins collected in one completion.
    """

    best_ticks: int
    coins: int


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


class LevelRecords:
    """The records file (see the module docstring).

    Args:
        path: The JSON file, or None to keep records for this session only.
        warn: Gets one line when the file cannot be read, is corrupt or cannot be saved.
    """

    def __init__(self, path: Path | None, warn: Callable[[str], None] = _warn) -> None:
        self.path = path
        self.warn = warn
        self.records: dict[str, LevelRecord] = {}
        self._writable = path is not None
        if path is not None:
            self._load(path)

    @staticmethod
    def key(level_file: str, tick_rate: object, settings_tag: str = "") -> str:
        """The record's key: ``level1.json@60`` (``#settings-...`` for other settings), with
        the tick rate written as the speedrun's categories write it."""
        return f"{level_file}@{tick_rate}{settings_tag}"

    def get(self, key: str) -> LevelRecord | None:
        """The record under ``key``, or None."""
        return self.records.get(key)

    def record(self, key: str, ticks: int, coins: int) -> bool:
        """Note a completion; save if it beat the time or the coins. Returns True if it did."""
        old = self.records.get(key)
        new = LevelRecord(
            min(ticks, old.best_ticks) if old else ticks, max(coins, old.coins) if old else coins
        )
        if new == old:
            return False
        self.records[key] = new
        self._save()
        return True

    # -- the file ---------------------------------------------------------------------------------
    def _load(self, path: Path) -> None:
        try:
            raw = read_regular_file(path, MAX_BYTES)
        except FileNotFoundError:
            return
        except OSError as error:
            self.warn(
                f"warning: level records {path} cannot be read ({error.strerror or error}); "
                "playing without them"
            )
            self._writable = False
            return
        try:
            self.records = _parse(json.loads(raw.decode("utf-8")))
            return
        except (ValueError, RecursionError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
        except OSError:
            self._writable = False
            self.warn(f"warning: level records {path} are corrupt ({reason:.120}); ignored")
            return
        self.warn(f"warning: level records {path} are corrupt ({reason:.120}); moved to {aside}")

    def _save(self) -> None:
        if self.path is None or not self._writable:
            return
        data = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "levels": {
                key: {"best_ticks": r.best_ticks, "coins": r.coins}
                for key, r in sorted(self.records.items())
            },
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, (json.dumps(data, indent=1) + "\n").encode("utf-8"))
        except OSError as error:
            self._writable = False
            self.warn(f"warning: level records not saved to {self.path}: {error.strerror or error}")


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be an int >= 0, got {value!r:.40}")
    return value


def _parse(data: Any) -> dict[str, LevelRecord]:
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise ValueError(f'"format" must be {FORMAT_NAME!r}')
    if data.get("version") != FORMAT_VERSION or isinstance(data.get("version"), bool):
        raise ValueError(f'"version" must be {FORMAT_VERSION}')
    levels = data.get("levels")
    if not isinstance(levels, dict):
        raise ValueError('"levels" must be an object')
    records = {}
    for key, entry in levels.items():
        if not isinstance(entry, dict):
            raise ValueError(f"levels[{key!r:.40}] must be an object")
        records[key] = LevelRecord(
            _count(entry.get("best_ticks"), f"levels[{key!r:.40}].best_ticks"),
            _count(entry.get("coins"), f"levels[{key!r:.40}].coins"),
        )
    return records
