"""A lock between processes, so two games never read-modify-write the same file at once.

Two games that finish a run at the same moment both read ``personal_bests.json``, fold their
run in and save. Atomic saves (:mod:`~engine.storage.atomic_file`) keep each file whole, but
without a lock the slower game saves what it read *before* the faster one saved, and the
faster game's personal best is gone. :func:`file_lock` serialises such updates::

    with file_lock(lock_path_for(path)):
        current = read(path)        # what is on disk now, whoever wrote it
        write_atomic(path, fold(current))

How: an **advisory lock held by the operating system** on a small lock file beside the data
file (``.personal_bests.json.lock``):

* POSIX (Linux, macOS): ``fcntl.flock(fd, LOCK_EX | LOCK_NB)``;
* Windows: ``msvcrt.locking(fd, LK_NBLCK, 1)`` on the file's first byte.

Why not an ``O_EXCL`` lock file (create it to lock, delete it to unlock)? A game killed while
it holds the lock (SIGKILL, a power cut, a crash) leaves the file behind, and the next game has
to *guess* that it is stale (by its age, or by a process id that may have been reused). An OS
lock cannot go stale: the kernel releases it when the process's file descriptor closes, which
it does for a process that dies in any way. So there is no stale-lock handling to get wrong.
The lock file itself stays (empty, a few bytes); deleting it while another process waits on it
would let two processes hold "the" lock on two different files.

Waiting: the lock is tried without blocking and retried every few milliseconds until
``timeout_s`` (default 10 s: a records save takes milliseconds); then :class:`LockTimeoutError`
(an ``OSError``) says the file is busy, so a hung process elsewhere can delay a save but never
hang this one. Locks are per process *and* per open file: two threads of one process must not
share one ``with`` block's lock across threads (the game saves from its main thread only).

Network file systems: ``flock`` over NFS is emulated with byte-range locks on Linux and works;
some old SMB mounts ignore it. A lock that cannot be taken at all (a read-only folder) raises
``OSError``, like the save that would follow.

Pure: standard library only.
"""

from __future__ import annotations

import errno
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["DEFAULT_LOCK_TIMEOUT_S", "LockTimeoutError", "file_lock", "lock_path_for"]

DEFAULT_LOCK_TIMEOUT_S = 10.0
"""How long :func:`file_lock` waits for another process before giving up."""

_RETRY_S = 0.005


class LockTimeoutError(OSError):
    """The lock stayed held by another process for the whole timeout."""


def lock_path_for(path: str | os.PathLike[str]) -> Path:
    """The lock file that guards ``path``: ``.<name>.lock`` in the same folder."""
    target = Path(path)
    return target.with_name(f".{target.name}.lock")


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(descriptor: int) -> bool:
        try:
            os.lseek(descriptor, 0, os.SEEK_SET)
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EDEADLK):
                return False
            raise
        return True

    def _unlock(descriptor: int) -> None:
        os.lseek(descriptor, 0, os.SEEK_SET)
        msvcrt.locking(descriptor, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(descriptor: int) -> bool:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        return True

    def _unlock(descriptor: int) -> None:
        fcntl.flock(descriptor, fcntl.LOCK_UN)


@contextmanager
def file_lock(
    lock_path: str | os.PathLike[str], timeout_s: float = DEFAULT_LOCK_TIMEOUT_S
) -> Iterator[None]:
    """Hold the exclusive lock on ``lock_path`` for the ``with`` block (see the module docstring).

    The lock file is created if missing (with its folder). The lock is released when the block
    ends, however it ends, and by the OS if the process dies inside it.

    Raises:
        LockTimeoutError: Another process held the lock for ``timeout_s`` seconds.
        OSError: The lock file cannot be created or opened (a read-only folder, say).
    """
    path = Path(lock_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    extra = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | extra, 0o666)
    except PermissionError:  # a lock file another user made: flock needs only read access
        descriptor = os.open(path, os.O_RDONLY | extra)
    try:
        if sys.platform == "win32" and os.fstat(descriptor).st_size == 0:  # pragma: no cover
            os.write(descriptor, b"\0")  # msvcrt locks bytes; give it one to lock
        deadline = time.monotonic() + timeout_s
        while not _try_lock(descriptor):
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    errno.EBUSY,
                    f"still locked by another process after {timeout_s:g} s",
                    str(path),
                )
            time.sleep(_RETRY_S)
        try:
            yield
        finally:
            _unlock(descriptor)
    finally:
        os.close(descriptor)
