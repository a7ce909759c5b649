"""Atomic file writes: readers see the old file or the complete new one, never half of one.

Saves that matter (personal bests, replays, run files) go through :func:`write_atomic`:

1. the bytes go to a temporary file in the *same directory* (``.<name>.<random>.tmp``), so the
   final rename never crosses file systems;
2. the file is flushed and ``fsync``-ed, so its contents are on disk before its name is;
3. it gets the mode any new file would get (``0o666 & ~umask``; ``mkstemp`` creates ``0600``);
4. :func:`os.replace` renames it over the target, which is atomic on one file system;
5. the directory is ``fsync``-ed, so the rename itself survives a power cut.

A process killed at any point leaves the old file intact (and at worst a stray temporary
file, which :func:`remove_stale_temps` cleans up later). A failed save removes its temporary
file and raises, leaving the old file untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

__all__ = ["current_umask", "remove_stale_temps", "temp_prefix", "write_atomic"]


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: the classic read-by-setting (briefly process-wide)
    os.umask(mask)
    return mask


def temp_prefix(path: Path) -> str:
    """The name prefix of ``path``'s temporary files (``.<name>.``)."""
    return f".{path.name}."


def fsync_directory(directory: Path) -> None:
    """Flush a rename in ``directory`` to disk (POSIX); a no-op where directories cannot be opened."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (see the module docstring).

    Raises:
        OSError: The directory does not exist or refused, or the disk is full; the old file
            is untouched and the temporary file is gone.
    """
    target = Path(path)
    descriptor, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=temp_prefix(target), suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp_name, 0o666 & ~current_umask())
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    fsync_directory(target.parent)


def remove_stale_temps(path: Path, older_than_s: float) -> None:
    """Delete ``path``'s temporary files older than ``older_than_s`` (left by killed savers).

    Younger ones are kept: they may belong to another process saving right now.
    """
    cutoff = time.time() - older_than_s
    for leftover in path.parent.glob(f"{temp_prefix(path)}*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()
