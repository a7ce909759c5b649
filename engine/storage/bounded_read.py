"""Reading a file someone named: regular files only, size-capped, never hanging.

A path from the command line or a data directory can be anything. Reading it naively
(``Path.read_bytes()``) goes wrong in ways that are not errors at all:

* a **named pipe** (FIFO) with no writer: ``open()`` waits for a writer forever;
* a **device** such as ``/dev/zero``: the read never ends, and the process grows until it
  dies of ``MemoryError``;
* a **huge file**: the same, more slowly.

:func:`read_regular_file` refuses all three with an :class:`OSError` whose ``strerror`` is a
short reason, so callers that already turn ``OSError`` into one line (``cannot read:
<reason>``) need no new code:

1. the path is ``stat``-ed first: anything but a regular file (directory, pipe, device,
   socket) is refused **without opening it** (opening some devices has side effects);
2. it is opened with ``O_NONBLOCK``, so if a pipe was swapped in after the check the open
   still returns at once, and the open file is checked again with ``fstat``;
3. a file larger than ``max_bytes`` is refused before reading, and at most ``max_bytes + 1``
   bytes are ever read (a file that grows while it is read is still bounded).

Pure: standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["describe_kind", "format_size", "read_regular_file"]


def describe_kind(mode: int) -> str:
    """What kind of file a ``st_mode`` describes, for a message: ``"a named pipe"``."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISREG, "a regular file"),
    )
    for test, text in kinds:
        if test(mode):
            return text
    return "not a regular file"


def format_size(size_bytes: int) -> str:
    """A byte count for a message: ``"64 MiB"``, ``"1 KiB"``, ``"12 bytes"``."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size_bytes >= size and size_bytes % size == 0:
            return f"{size_bytes // size} {unit}"
    return f"{size_bytes} bytes"


def _not_regular(mode: int, path: Path) -> OSError:
    return OSError(errno.EINVAL, f"{describe_kind(mode)}, not a regular file", str(path))


def _too_large(max_bytes: int, path: Path) -> OSError:
    return OSError(errno.EFBIG, f"larger than the {format_size(max_bytes)} allowed", str(path))


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """Read a whole regular file of at most ``max_bytes`` (see the module docstring).

    Symbolic links are followed (to a regular file they are fine).

    Args:
        path: The file.
        max_bytes: The largest file accepted.

    Returns:
        The file's bytes.

    Raises:
        FileNotFoundError: No such file.
        OSError: Unreadable, not a regular file (``strerror`` names its kind, e.g.
            ``"a named pipe, not a regular file"``) or larger than ``max_bytes``.
    """
    target = Path(path)
    mode = os.stat(target).st_mode
    if not stat.S_ISREG(mode):
        raise _not_regular(mode, target)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(target, flags)
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(info.st_mode, target)
        if info.st_size > max_bytes:
            raise _too_large(max_bytes, target)
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_large(max_bytes, target)
    return data
