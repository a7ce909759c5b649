"""Writing a whole tree of files all or nothing: a failure half-way leaves no half of it.

``python -m engine new`` writes a few hundred files. Written one by one into the project
folder, a full disk (or an interrupt, or a file the OS refuses) half-way leaves a project
that has ``pyproject.toml`` but no ``engine/``, which the next run then refuses to overwrite.
:func:`write_tree` writes everything into a **staging folder** first (a hidden folder on the
same file system: ``.<name>.<random>.staging``); only when every file is written and
``fsync``-ed does the tree move into place:

* ``dest`` does not exist yet (or is an empty folder): one :func:`os.rename` of the staging
  folder to ``dest``, so the project appears complete at once or not at all;
* ``dest`` exists with other files in it (``--path`` to a folder in use, or ``--force``):
  each file is renamed into place (a rename needs no free space, so a full disk cannot stop
  it half-way); a file it replaces is first renamed aside (a *folder* where a file goes is
  never replaced: ``IsADirectoryError``), and if any step fails every step is undone in
  reverse: the folder is as it was.

Either way the staging folder is removed at the end, also after a failure. A process killed
with SIGKILL mid-way leaves at worst the hidden staging folder.

Pure: standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from engine.storage.atomic_file import fsync_directory, write_atomic

__all__ = ["write_tree"]


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path.cwd()


def _make_parents(folder: Path, created: list[Path]) -> None:
    """Create ``folder`` and its missing parents, noting each one made (outermost first)."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    for parent in reversed(missing):
        parent.mkdir()
        created.append(parent)


def write_tree(dest: Path, files: Mapping[PurePosixPath, bytes]) -> None:
    """Write ``files`` (paths relative to ``dest``) all or nothing (see the module docstring).

    Raises:
        OSError: A file could not be written or moved; nothing under ``dest`` changed and
            no folder it created is left.
    """
    dest = Path(dest)
    anchor = _nearest_existing(dest)
    if not anchor.is_dir():
        raise NotADirectoryError(f"{anchor} is a file, not a directory; nothing was written")
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".staging", dir=anchor))
    created: list[Path] = []
    try:
        for relative, data in files.items():
            staged = staging.joinpath(*relative.parts)
            staged.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(staged, data)
        if not dest.exists():
            _make_parents(dest.parent, created)
            os.rename(staging, dest)
            fsync_directory(dest.parent)
            return
        if dest.is_dir() and not any(dest.iterdir()):
            os.rmdir(dest)
            os.rename(staging, dest)  # (a racing writer into dest makes this fail: nothing moved)
            fsync_directory(dest.parent)
            return
        _move_into(staging, dest, files, created)
    except BaseException:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _move_into(
    staging: Path, dest: Path, files: Mapping[PurePosixPath, bytes], created: list[Path]
) -> None:
    """Rename each staged file into ``dest``, undoing every step if one fails."""
    backups = staging / ".replaced"
    done: list[tuple[Path, Path, Path | None]] = []  # (target, staged, backup)
    try:
        for relative in files:
            staged = staging.joinpath(*relative.parts)
            target = dest.joinpath(*relative.parts)
            _make_parents(target.parent, created)
            backup = None
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(
                    errno.EISDIR, "a folder is where a file goes; nothing was written", str(target)
                )
            if target.exists() or target.is_symlink():
                backup = backups.joinpath(*relative.parts)
                backup.parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, backup)
            try:
                os.replace(staged, target)
            except BaseException:
                if backup is not None:
                    os.replace(backup, target)
                raise
            done.append((target, staged, backup))
    except BaseException:
        for target, staged, backup in reversed(done):
            with contextlib.suppress(OSError):
                os.replace(target, staged)
                if backup is not None:
                    os.replace(backup, target)
        raise
    for folder in {target.parent for target, _, _ in done}:
        fsync_directory(folder)
