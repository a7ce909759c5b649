"""Three-way merge of text files (diff3): what ``git merge-file --diff3`` does, in pure Python.

The problem:
    A file was copied from an upstream version BASE into a project. Since then the project
    edited its copy (OURS) and upstream moved on (THEIRS). A two-way comparison of OURS and
    THEIRS cannot tell who changed what; with BASE it can: every line is either unchanged by
    both, changed by one side only (take that side), changed by both in the same way (take it
    once), or changed by both differently -- a *conflict*, written with both sides between
    markers so that nothing is lost::

        <<<<<<< ours label
        the project's lines
        ||||||| base label
        the lines as they were
        =======
        upstream's lines
        >>>>>>> theirs label

The algorithm (the classic diff3 of Khanna, Kunal and Pierce, "A Formal Investigation of
Diff3", 2007):
    1. Match BASE's lines with OURS's and with THEIRS's (:class:`difflib.SequenceMatcher`,
       without its "junk" heuristic, which drops frequent lines such as blank ones).
    2. A BASE line matched in *both* at the expected places is *stable*. Walking the three
       files together, runs of stable lines alternate with unstable *chunks*: the lines up to
       the next BASE line that both sides still have.
    3. A chunk where OURS equals BASE takes THEIRS; where THEIRS equals BASE, takes OURS; where
       both made the same change, takes it; otherwise it is a conflict.

    Changes that touch (one side's change ends where the other's begins, or both insert at
    the same place) are one chunk, so they conflict: the same rule as ``git merge-file`` and
    GNU ``diff3``. The tests check the output against ``git merge-file --diff3`` byte for byte
    on generated edits.

Lines are bytes split after each ``\\n`` only (``\\r\\n`` files merge as lines ending in
``\\r\\n``); a side whose last line has no newline gets one before the next marker, so
markers always start a line. The merge does not decode text; binary data (a NUL byte) is
refused, as by git: :func:`is_text` tells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = [
    "MARKER_SIZE",
    "MergeResult",
    "conflict_marker_lines",
    "is_text",
    "merge3",
    "split_lines",
]

MARKER_SIZE = 7
"""Characters in a conflict marker (``<<<<<<<``), as git and diff3 write them."""

_OURS, _BASE, _SEP, _THEIRS = (bytes([c]) * MARKER_SIZE for c in b"<|=>")


@dataclass(frozen=True, slots=True)
class MergeResult:
    """A merged file.

    Attributes:
        data: The merged bytes; conflicts are written between markers.
        conflicts: How many conflicting chunks ``data`` holds (0: the merge is clean).
    """

    data: bytes
    conflicts: int

    @property
    def clean(self) -> bool:
        """True when both sides' changes went in without a conflict."""
        return self.conflicts == 0


def is_text(data: bytes) -> bool:
    """Whether ``data`` can be merged line by line: it has no NUL byte (git's test)."""
    return b"\0" not in data


def split_lines(data: bytes) -> list[bytes]:
    """``data`` cut after every ``\\n``; the last line may lack one. ``b""`` has no lines."""
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def conflict_marker_lines(data: bytes) -> int:
    """How many lines of ``data`` open (``<<<<<<< ``) or close (``>>>>>>> ``) a conflict."""
    return sum(
        1
        for line in split_lines(data)
        if line[:MARKER_SIZE] in (_OURS, _THEIRS) and line[MARKER_SIZE : MARKER_SIZE + 1] in b" \n"
    )


def _matches(base: Sequence[bytes], other: Sequence[bytes]) -> list[int | None]:
    """For each line of ``base``, the index of the line of ``other`` it is matched with."""
    where: list[int | None] = [None] * len(base)
    matcher = SequenceMatcher(None, base, other, autojunk=False)
    for start_base, start_other, size in matcher.get_matching_blocks():
        for k in range(size):
            where[start_base + k] = start_other + k
    return where


def _section(marker: bytes, label: str, lines: Sequence[bytes]) -> list[bytes]:
    head = marker + (b" " + label.encode() if label else b"") + b"\n"
    body = list(lines)
    if body and not body[-1].endswith(b"\n"):
        body[-1] += b"\n"  # the next marker starts a line
    return [head, *body]


def merge3(
    base: bytes,
    ours: bytes,
    theirs: bytes,
    labels: tuple[str, str, str] = ("ours", "base", "theirs"),
) -> MergeResult:
    """Merge the changes BASE -> OURS and BASE -> THEIRS (see the module docstring).

    Args:
        base: The common ancestor.
        ours: One descendant (the project's copy); its text comes first in a conflict.
        theirs: The other (upstream's new version).
        labels: Written after the ``<<<<<<<``, ``|||||||`` and ``>>>>>>>`` markers.

    Raises:
        ValueError: One of the three is binary (see :func:`is_text`).
    """
    if not (is_text(base) and is_text(ours) and is_text(theirs)):
        raise ValueError("binary data (a NUL byte) cannot be merged line by line")
    o, a, b = split_lines(base), split_lines(ours), split_lines(theirs)
    in_a, in_b = _matches(o, a), _matches(o, b)
    out: list[bytes] = []
    conflicts = 0
    i_o = i_a = i_b = 0
    while True:
        # A run of stable lines: matched in both sides, right where the walk is.
        start = i_o
        while i_o < len(o) and in_a[i_o] == i_a and in_b[i_o] == i_b:
            i_o, i_a, i_b = i_o + 1, i_a + 1, i_b + 1
        out += o[start:i_o]
        if i_o == len(o) and i_a == len(a) and i_b == len(b):
            break
        # An unstable chunk: up to the next base line both sides still have (or the end).
        end_o = i_o
        while end_o < len(o) and (in_a[end_o] is None or in_b[end_o] is None):
            end_o += 1
        end_a = in_a[end_o] if end_o < len(o) else len(a)
        end_b = in_b[end_o] if end_o < len(o) else len(b)
        assert end_a is not None and end_b is not None
        chunk_o, chunk_a, chunk_b = o[i_o:end_o], a[i_a:end_a], b[i_b:end_b]
        if chunk_a in (chunk_o, chunk_b):
            out += chunk_b
        elif chunk_b == chunk_o:
            out += chunk_a
        else:
            conflicts += 1
            out += _section(_OURS, labels[0], chunk_a)
            out += _section(_BASE, labels[1], chunk_o)
            out += _section(_SEP, "", chunk_b)
            out.append(_THEIRS + (b" " + labels[2].encode() if labels[2] else b"") + b"\n")
        i_o, i_a, i_b = end_o, end_a, end_b
    return MergeResult(b"".join(out), conflicts)
