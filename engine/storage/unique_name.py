"""New names that never replace another file, even when two processes pick one at once.

Checking that a name is free and then writing to it is a race: two games finishing a run in the
same second both see ``run-20261127-031500-5400.json`` free, and the second save replaces the
first. A name is only *taken* when a file of that name is **created with** ``O_CREAT | O_EXCL``,
which the OS does atomically (on Linux, macOS and Windows, local disks and NFSv3+): exactly one
creator succeeds, every other gets ``FileExistsError`` and tries the next name.

* :func:`reserve_new_name` creates an empty file under the first free name of a sequence
  (``name``, ``name-2``, ``name-3``... before the suffix) and returns it; the caller then
  replaces that empty file (:func:`~engine.storage.atomic_file.write_atomic_new`) or moves
  something onto it (:func:`move_aside`). For the moment between the two, the name holds an
  empty file.
* :func:`move_aside` moves a damaged file to a new name beside it (``settings.toml.damaged``,
  ``settings.toml.damaged-2``...), never over an earlier one, so every damaged file is kept.

Pure: standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

__all__ = ["MAX_NAME_TRIES", "move_aside", "numbered_name", "reserve_new_name"]

MAX_NAME_TRIES = 10_000
"""How many numbered names :func:`reserve_new_name` tries before giving up."""


def numbered_name(path: Path, number: int, suffix: str | None = None) -> Path:
    """``path`` for ``number`` 1, else ``-<number>`` inserted before ``suffix``.

    ``suffix`` defaults to the path's last suffix (``run.json`` -> ``run-2.json``); give
    ``""`` to append at the end (``settings.toml.damaged`` -> ``settings.toml.damaged-2``).
    """
    if number == 1:
        return path
    tail = path.suffix if suffix is None else suffix
    stem = path.name[: len(path.name) - len(tail)] if tail else path.name
    return path.with_name(f"{stem}-{number}{tail}")


def reserve_new_name(path: Path, suffix: str | None = None) -> Path:
    """Create an empty file at the first free name of ``path``'s sequence; return it.

    Args:
        path: The preferred name; its folder must exist.
        suffix: Where the number goes (see :func:`numbered_name`).

    Raises:
        OSError: The folder cannot take a new file, or :data:`MAX_NAME_TRIES` names are taken.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for number in range(1, MAX_NAME_TRIES + 1):
        candidate = numbered_name(path, number, suffix)
        try:
            descriptor = os.open(candidate, flags, 0o666)
        except FileExistsError:
            continue
        os.close(descriptor)
        return candidate
    raise OSError(errno.EEXIST, f"{MAX_NAME_TRIES} names like it are taken", str(path))


def move_aside(path: Path, aside: Path, suffix: str | None = None) -> Path:
    """Move ``path`` to ``aside``, or the first free numbered name after it; return where.

    The new name is reserved first (:func:`reserve_new_name`), then ``path`` is renamed over
    that empty reservation, so no earlier file is ever replaced, whoever moves what at the
    same time.

    Raises:
        OSError: The file cannot be moved (the reservation is removed again).
    """
    destination = reserve_new_name(aside, suffix)
    try:
        os.replace(path, destination)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(destination)
        raise
    return destination
