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

What a save replaces (:func:`save_target`):

* a **symbolic link** keeps pointing where it points: the save writes *through* it, replacing
  the file at the end of the link (its temporary file goes in that file's directory), so a
  ``personal_bests.json`` linked into a synced folder stays linked;
* only a **regular file** (or nothing) is replaced. A directory, a named pipe, a device or a
  socket in the target's place is refused with an :class:`OSError` and never opened: renaming
  a replay over ``/dev/full`` as root would otherwise replace the device node with the replay;

When the usual place cannot be written at all (a read-only folder, a full disk, a file where a
folder should be), :func:`write_atomic_first` tries a list of places in turn and says which one
took the file, so a file that matters (a speedrun's run file) is never dropped.

A save made at the *end* of something long (a recording after the whole run) should fail at
the start instead: :func:`check_can_save` makes the same kind of temporary file in the same
folder, writes :data:`PROBE_BYTES` to it, ``fsync``-s and deletes it, so a missing, read-only
or full folder, or a device in the file's place, is refused before the run, in one line.

A file that must never replace another one (a run file named after the moment it was saved:
two games finishing in the same second would pick the same name) is saved with
:func:`write_atomic_new` (or ``write_atomic_first(..., new_name=True)``): its name is first
taken with an exclusive create (:func:`~engine.storage.unique_name.reserve_new_name`), so the
second game gets ``run-...-2.json``; then the bytes replace that empty reservation atomically.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from engine.storage.bounded_read import describe_kind
from engine.storage.unique_name import reserve_new_name

__all__ = [
    "PROBE_BYTES",
    "check_can_save",
    "current_umask",
    "remove_stale_temps",
    "save_target",
    "temp_prefix",
    "write_atomic",
    "write_atomic_first",
    "write_atomic_new",
]


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


def save_target(path: str | os.PathLike[str]) -> Path:
    """The file a save of ``path`` replaces: ``path`` itself, or where its symlinks lead.

    Raises:
        OSError: Something other than a regular file is there (``strerror`` names it, e.g.
            ``"a character device, not a regular file: saves only replace regular files"``),
            or the links loop.
    """
    real = Path(os.path.realpath(path))  # a dangling link resolves to the file it names
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return real
    if not stat.S_ISREG(mode):
        raise OSError(
            errno.EINVAL,
            f"{describe_kind(mode)}, not a regular file: saves only replace regular files",
            os.fspath(path),
        )
    return real


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (see the module docstring).

    Raises:
        OSError: The directory does not exist or refused, the disk is full, or something
            other than a regular file is in the way; the old file is untouched and the
            temporary file is gone.
    """
    target = save_target(path)
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


PROBE_BYTES = 64 * 1024
"""What :func:`check_can_save` writes to test a folder (a recorded level's replay: 20-50 KB)."""


def check_can_save(path: str | os.PathLike[str], probe_bytes: int = PROBE_BYTES) -> None:
    """Make sure a save of ``path`` can work now: write a probe file beside it and delete it.

    Nothing at ``path`` is touched.

    Raises:
        OSError: The folder is missing (``"its folder does not exist"``) or refuses files
            (read-only, no permission), the disk cannot take ``probe_bytes`` more, or
            something other than a regular file is at ``path`` (see :func:`save_target`).
    """
    target = save_target(path)
    if not target.parent.is_dir():
        raise OSError(errno.ENOENT, "its folder does not exist", str(target.parent))
    descriptor, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=temp_prefix(target), suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(bytes(probe_bytes))
            file.flush()
            os.fsync(file.fileno())
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)


def write_atomic_new(path: str | os.PathLike[str], data: bytes) -> Path:
    """Save ``data`` under ``path``, or ``path`` numbered (``name-2.json``...) if it is taken.

    Never replaces an existing file, even one another process is creating at the same moment
    (see :mod:`~engine.storage.unique_name`).

    Returns:
        The name the file got.

    Raises:
        OSError: As :func:`write_atomic`; the reserved name is removed again.
    """
    target = reserve_new_name(Path(path))
    try:
        write_atomic(target, data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(target)
        raise
    return target


def remove_stale_temps(path: Path, older_than_s: float) -> None:
    """Delete ``path``'s temporary files older than ``older_than_s`` (left by killed savers).

    Younger ones are kept: they may belong to another process saving right now.
    """
    cutoff = time.time() - older_than_s
    for leftover in path.parent.glob(f"{temp_prefix(path)}*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()


def write_atomic_first(
    candidates: Sequence[Path], data: bytes, *, new_name: bool = False
) -> tuple[Path, tuple[tuple[Path, OSError], ...]]:
    """Save ``data`` atomically to the first of ``candidates`` that can take it.

    Each candidate's directory is created if missing. A candidate that fails (a read-only
    folder, a full disk, a file where a folder should be, a device in the file's place) is
    skipped and the next one is tried.

    Args:
        candidates: Full file paths, best first.
        data: The file's bytes.
        new_name: Never replace a file: save under a new name (:func:`write_atomic_new`),
            so ``saved_path`` may be a candidate numbered ``-2``, ``-3``...

    Returns:
        ``(saved_path, failures)``: where the file went and, for each earlier candidate, why
        it could not be used.

    Raises:
        OSError: Every candidate failed; the message lists each path and its reason.
    """
    failures: list[tuple[Path, OSError]] = []
    for path in candidates:
        try:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except FileExistsError:  # mkdir's own words ("File exists") would not say which
                raise OSError(
                    errno.ENOTDIR, "a file is where its folder should be", str(path.parent)
                ) from None
            saved = write_atomic_new(path, data) if new_name else path
            if not new_name:
                write_atomic(path, data)
        except OSError as error:
            failures.append((path, error))
        else:
            return saved, tuple(failures)
    reasons = "; ".join(f"{path}: {error.strerror or error}" for path, error in failures)
    raise OSError(errno.EIO, f"could not be saved anywhere ({reasons or 'no place to try'})")
