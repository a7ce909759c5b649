"""Loaded levels kept for the next load of the same files: a restart costs no parsing.

A level is loaded each time a world is built for it: every restart of a level, every ghost,
every replay check and every solver run. Parsing a Tiled map (pytiled_parser, the checks, the
ground merge) is most of that: about 15-40 ms for the bundled maps here, a few frames of a
freeze every time a speedrunner presses restart. A :class:`~engine.levels.model.Level` is
immutable (frozen dataclasses, tuples, read-only mappings), so the same object can serve every
later load, provided nothing it was made from has changed.

What it was made from is known exactly: every file a load reads goes through
:func:`engine.levels.map_file.read_bytes` (the map, its tilesets, templates and images), which
reports each to the load being recorded here (:func:`note_read`) with a digest of its bytes. A
cached level is used again only when the same map is asked for with the same kinds and
conventions and **every one of those files still has the same bytes** (read and hashed again:
about a millisecond for the bundled maps, against tens for a parse). So editing a map or a
tileset in Tiled and restarting the level shows the edit, however quickly the file was saved
(a check by modification time could miss two saves within the file system's clock tick).
Loads that fail are never kept: a bad map reports its error every time.

Pure: the standard library only.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

__all__ = ["MAX_CACHED_LEVELS", "cached_load", "clear_level_cache", "note_read"]

MAX_CACHED_LEVELS: Final = 16
"""How many loaded levels are kept (the least recently used goes first)."""

_T = TypeVar("_T")

#: The files read by the load being recorded (path -> digest), or None outside a load.
_reads: ContextVar[dict[str, bytes] | None] = ContextVar("level_reads", default=None)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def note_read(path: Path, data: bytes) -> None:
    """Tell the load being recorded (if any) that it read ``data`` from ``path``."""
    reads = _reads.get()
    if reads is not None:
        reads[str(path)] = _digest(data)


@dataclass(frozen=True, slots=True)
class _Entry:
    value: Any
    inputs: tuple[object, ...]
    files: tuple[tuple[str, bytes], ...]

    def still_valid(self, inputs: tuple[object, ...]) -> bool:
        if self.inputs != inputs:
            return False
        for path, digest in self.files:
            try:
                with open(path, "rb") as file:
                    if _digest(file.read()) != digest:
                        return False
            except OSError:
                return False
        return True


_cache: OrderedDict[str, _Entry] = OrderedDict()


@contextmanager
def _recording() -> Iterator[dict[str, bytes]]:
    reads: dict[str, bytes] = {}
    token = _reads.set(reads)
    try:
        yield reads
    finally:
        _reads.reset(token)


def cached_load(path: Path, inputs: tuple[object, ...], load: Callable[[], _T]) -> _T:
    """``load()``'s level for ``path``, or the one it gave before if no file it read changed.

    Args:
        path: The map file (its absolute path is the key).
        inputs: Everything else the load depends on, compared with ``==`` (the loader passes
            its kind registry, which compares by identity, the registry's size, since kinds
            can be registered later, and the conventions, which compare by value).
        load: Loads the level; it raises for a bad map (nothing is kept then).
    """
    key = str(path.absolute())
    entry = _cache.get(key)
    if entry is not None and entry.still_valid(inputs):
        _cache.move_to_end(key)
        return entry.value  # type: ignore[no-any-return]
    with _recording() as reads:
        value = load()
    _cache[key] = _Entry(value, inputs, tuple(reads.items()))
    _cache.move_to_end(key)
    while len(_cache) > MAX_CACHED_LEVELS:
        _cache.popitem(last=False)
    return value


def clear_level_cache() -> None:
    """Forget every kept level (the next load of each parses its map again)."""
    _cache.clear()
