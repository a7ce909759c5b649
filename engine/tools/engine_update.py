"""Taking a newer engine into a game: every vendored file merged three ways, as copier does.

A game made with ``python -m engine new`` carries a copy of the engine in ``engine/``. Its
author may edit that copy; the engine moves on. ``--update-engine``
(:func:`engine.tools.new_project.update_engine`) brings the new engine in without losing
either: for every engine file it knows three versions,

* BASE, the file as it was vendored (kept in the project, see below),
* LOCAL, the project's copy now,
* NEW, the file in the engine being taken,

and decides by :func:`plan_files`:

===================  ====================================  ==================================
outcome              when                                  what happens
===================  ====================================  ==================================
``added``            new in the engine                     written
``changed``          LOCAL == BASE (not edited here)       replaced by NEW
``merged``           both changed, on different lines      :func:`~engine.tools.merge3.merge3`
``conflicting``      both changed the same lines           both sides between markers
``local``            NEW == BASE (upstream did not change) LOCAL kept, silently
``removed``          gone from the engine, not edited      deleted
``orphaned``         gone from the engine, edited here     kept, as the project's own file
``left_deleted``     deleted here, changed in the engine   left deleted (listed)
``yours``            never the engine's (added by you)     kept
``unresolved``       LOCAL still has an earlier            blocks the update: nothing is
                     conflict's markers                    written
===================  ====================================  ==================================

Where BASE comes from:
    copier re-generates the old template version to get BASE; here only the new engine is on
    disk, so the project keeps BASE itself: :data:`BASE_NAME` (``.engine/vendored.tar.bz2``)
    is a tar of every vendored engine file, compressed with bzip2 (0.15 MB for the 0.67 MB of
    engine source of 2026-11, packed in about 0.1 s; git stores it once per engine version).
    ``new`` writes it, every update rewrites it, deterministically (sorted names, no times):
    the same engine gives the same bytes. A project made before it existed still updates:
    a file whose copy still has the hash the manifest recorded is its own BASE; only a file
    edited there *and* changed upstream has no BASE, and is a conflict holding both whole
    files.

A conflict loses nothing:
    The update then writes only the conflicting files (with markers) and this record, in
    which the conflicting files' BASE becomes the engine text they were merged with, and
    their names are listed: once the markers are resolved, the same update run again sees
    the resolution as the project's edit of the new text, and finishes. A file still holding
    the markers (more ``<<<<<<<``/``>>>>>>>`` lines than its BASE) blocks the update.

Pure: no file is written here (``new_project`` writes); reading :data:`BASE_NAME` is bounded
(the compressed and the unpacked size, regular members only, names under ``engine/``).
"""

from __future__ import annotations

import bz2
import io
import json
import re
import tarfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from engine.storage.bounded_read import format_size, read_regular_file
from engine.tools.merge3 import conflict_marker_lines, is_text, merge3

__all__ = [
    "BASE_NAME",
    "OUTCOMES",
    "FileStep",
    "VendoredBase",
    "compare_versions",
    "pack_base",
    "plan_files",
    "read_base",
]

BASE_NAME = PurePosixPath(".engine/vendored.tar.bz2")
"""The project file holding BASE, the vendored engine's text (see the module docstring)."""

BASE_FORMAT = "vendored-engine-base"
INDEX_MEMBER = "index.json"
MAX_BASE_BYTES = 32 << 20
"""Largest :data:`BASE_NAME` read (compressed)."""
MAX_BASE_UNPACKED_BYTES = 256 << 20
"""Largest unpacked tar read from it: a damaged or hostile file cannot exhaust memory."""

OUTCOMES = (
    "added",
    "changed",
    "merged",
    "conflicting",
    "local",
    "removed",
    "orphaned",
    "left_deleted",
    "yours",
    "unchanged",
    "unresolved",
)
"""Every :attr:`FileStep.outcome`, in the order a report lists them."""


# ---------------------------------------------------------------------------------------------
# BASE: the vendored engine, kept in the project
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VendoredBase:
    """The engine files as vendored: what an update merges the project's edits against.

    Attributes:
        engine_version: The engine version they came from.
        files: ``engine/...`` -> the file's bytes as vendored (or, for ``conflicts``, as
            merged with).
        conflicts: Files an update left conflicting: their BASE is the engine text their
            markers merged with, and they must be free of markers before the next update.
    """

    engine_version: str
    files: Mapping[str, bytes] = field(default_factory=dict)
    conflicts: tuple[str, ...] = ()


def pack_base(base: VendoredBase) -> bytes:
    """The bytes of :data:`BASE_NAME`: a bzip2-compressed tar, the same for the same input."""
    index = {
        "format": BASE_FORMAT,
        "version": 1,
        "engine_version": base.engine_version,
        "conflicts": sorted(base.conflicts),
    }
    members = {INDEX_MEMBER: (json.dumps(index, indent=2) + "\n").encode()}
    members.update(sorted(base.files.items()))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return bz2.compress(raw.getvalue(), 9)


def read_base(path: Path) -> VendoredBase | None:
    """Read :data:`BASE_NAME`; None when the project has none (made before it existed).

    Raises:
        ValueError: It is damaged, too large, or not an engine base (one line naming it).
    """
    try:
        packed = read_regular_file(path, MAX_BASE_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the vendored engine ({exc.strerror})") from None
    try:
        unpacker = bz2.BZ2Decompressor()
        raw = unpacker.decompress(packed, max_length=MAX_BASE_UNPACKED_BYTES + 1)
        if len(raw) > MAX_BASE_UNPACKED_BYTES:
            raise ValueError(f"unpacks to more than {format_size(MAX_BASE_UNPACKED_BYTES)}")
        if not unpacker.eof or unpacker.unused_data:
            raise ValueError("cut short, or with data after its end")
        members = _tar_members(raw)
        index = json.loads(members.pop(INDEX_MEMBER))
        if not isinstance(index, dict) or index.get("format") != BASE_FORMAT:
            raise ValueError(f"its {INDEX_MEMBER} is not a {BASE_FORMAT!r} index")
        conflicts = index.get("conflicts", [])
        if not isinstance(conflicts, list) or not all(isinstance(c, str) for c in conflicts):
            raise ValueError(f"its {INDEX_MEMBER} 'conflicts' is not a list of paths")
    except (OSError, EOFError, tarfile.TarError, KeyError, ValueError, RecursionError) as exc:
        reason = exc.args[0] if isinstance(exc, KeyError | ValueError) and exc.args else exc
        raise ValueError(
            f"{path}: not a readable vendored engine ({reason}); restore it with git, or "
            "delete it to update without it"
        ) from None
    return VendoredBase(str(index.get("engine_version", "?")), members, tuple(conflicts))


_MEMBER_NAME = re.compile(r"engine(/[A-Za-z0-9_.-]+)+")


def _tar_members(raw: bytes) -> dict[str, bytes]:
    """The regular members of an unpacked tar; anything else, or an odd name, is refused."""
    members: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
        for info in tar:
            name = info.name
            if not info.isfile():
                raise ValueError(f"member {name!r} is not a regular file")
            if name != INDEX_MEMBER and (
                not _MEMBER_NAME.fullmatch(name) or ".." in PurePosixPath(name).parts
            ):
                raise ValueError(f"member {name!r} is not an engine/ file")
            if name in members:
                raise ValueError(f"member {name!r} appears twice")
            extracted = tar.extractfile(info)
            assert extracted is not None  # a regular member
            members[name] = extracted.read()
    if INDEX_MEMBER not in members:
        raise ValueError(f"no {INDEX_MEMBER}")
    return members


# ---------------------------------------------------------------------------------------------
# One decision per engine file
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileStep:
    """What an update does to one file of ``engine/``.

    Attributes:
        path: ``engine/...``.
        outcome: One of :data:`OUTCOMES`.
        data: The bytes to write (``added``, ``changed``, ``merged``, ``conflicting``), or None
            (nothing to write, or ``removed``: delete it; a binary conflict writes nothing).
    """

    path: str
    outcome: str
    data: bytes | None = None


def plan_files(
    base: Mapping[str, bytes | None],
    local: Mapping[str, bytes],
    new: Mapping[str, bytes],
    versions: tuple[str, str] = ("vendored", "new"),
) -> dict[str, FileStep]:
    """Decide every file (see the table in the module docstring); nothing is written.

    Args:
        base: Every vendored path -> its BASE bytes, or None when BASE is not known (a
            project whose record predates :data:`BASE_NAME`, for a file changed on both
            sides): such a file merges against nothing, one conflict holding both files.
        local: Every file under the project's ``engine/`` -> its bytes.
        new: Every file of the engine being taken -> its bytes.
        versions: The old and the new engine version, for the conflict markers' labels.

    Returns:
        Path -> its step, for every path of the three, sorted.
    """
    old_version, new_version = versions
    steps: dict[str, FileStep] = {}
    for path in sorted({*base, *local, *new}):
        was, mine, theirs = base.get(path), local.get(path), new.get(path)
        if path not in base:  # never vendored: the project's own file, or new in the engine
            was = b""
            if theirs is None:
                steps[path] = FileStep(path, "yours")
                continue
        if mine is not None and conflict_marker_lines(mine) > conflict_marker_lines(was or b""):
            steps[path] = FileStep(path, "unresolved")
        elif mine is None:
            if theirs is None:
                steps[path] = FileStep(path, "unchanged")  # deleted here and in the engine
            elif path not in base:
                steps[path] = FileStep(path, "added", theirs)
            else:
                steps[path] = FileStep(path, "local" if theirs == was else "left_deleted")
        elif theirs is None:
            steps[path] = FileStep(path, "removed" if mine == was else "orphaned")
        elif mine == theirs:
            steps[path] = FileStep(path, "unchanged")
        elif mine == was:
            steps[path] = FileStep(path, "changed", theirs)
        elif theirs == was:
            steps[path] = FileStep(path, "local")
        elif not (is_text(mine) and is_text(theirs) and is_text(was or b"")):
            steps[path] = FileStep(path, "conflicting")  # binary: nothing to put markers in
        else:
            if path not in base:
                base_label = "(not in the vendored engine)"
            elif was is None:
                base_label = f"engine {old_version} (its text was not recorded)"
            else:
                base_label = f"engine {old_version} (as vendored)"
            labels = (f"project: {path}", base_label, f"engine {new_version} (this update)")
            merged = merge3(was or b"", mine, theirs, labels)
            steps[path] = FileStep(path, "merged" if merged.clean else "conflicting", merged.data)
    return steps


# ---------------------------------------------------------------------------------------------
# Which engine is newer
# ---------------------------------------------------------------------------------------------


def _split_version(version: str) -> tuple[str, str | None]:
    """``0.1.0+g1234abcd`` -> (``0.1.0``, ``1234abcd``); no commit -> None."""
    public, _, local = version.partition("+")
    commit = local[1:] if re.fullmatch(r"g[0-9a-f]{4,40}", local) else None
    return public, commit


def _public_order(old: str, new: str) -> int | None:
    """-1, 0, 1 as ``new`` is older, equal, newer than ``old`` (PEP 440); None if unknown."""
    if old == new:
        return 0
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:  # no packaging: plain dotted numbers only
        if not (re.fullmatch(r"\d+(\.\d+)*", old) and re.fullmatch(r"\d+(\.\d+)*", new)):
            return None
        key_old = [*map(int, old.split("."))]
        key_new = [*map(int, new.split("."))]
        width = max(len(key_old), len(key_new))
        key_old += [0] * (width - len(key_old))
        key_new += [0] * (width - len(key_new))
        return (key_new > key_old) - (key_new < key_old)
    try:
        parsed_old, parsed_new = Version(old), Version(new)
    except InvalidVersion:
        return None
    return (parsed_new > parsed_old) - (parsed_new < parsed_old)


def compare_versions(
    old: str,
    new: str,
    is_ancestor: Callable[[str, str], bool | None] | None = None,
) -> int | None:
    """Whether engine version ``new`` is older (-1), the same (0) or newer (1) than ``old``.

    Versions are :func:`~engine.tools.new_project.engine_version`'s: the template's PEP 440
    version, ``+g`` and the git commit when there is one. The versions decide first; equal
    versions with different commits are ordered by git history: ``is_ancestor(a, b)`` says
    whether commit ``a`` is an ancestor of ``b`` (None: it cannot tell, e.g. a commit the
    checkout does not have).

    Returns:
        -1, 0 or 1; None when it cannot tell (an unparsable version, or commits git cannot
        order).
    """
    (old_public, old_commit), (new_public, new_commit) = _split_version(old), _split_version(new)
    order = _public_order(old_public, new_public)
    if order != 0:
        return order
    if old_commit == new_commit:
        return 0
    if old_commit is None or new_commit is None or is_ancestor is None:
        return None
    if is_ancestor(new_commit, old_commit):
        return -1
    if is_ancestor(old_commit, new_commit):
        return 1
    return None
