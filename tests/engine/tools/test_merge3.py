"""The three-way merge: ``git merge-file --diff3``'s output, byte for byte, on generated edits.

git is the oracle: for edits of files whose lines are all different, every correct diff finds
the same changes, so the merge must equal git's exactly, conflicts and markers included. On
real source (standard library modules nobody here wrote, with their blank lines and repeated
lines) the diff may choose between equally short alignments, so there the checks are the
laws every three-way merge keeps, and git's answer when the two sides edit lines apart.
"""

from __future__ import annotations

import argparse
import difflib
import json.decoder
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.tools.merge3 import (
    MergeResult,
    conflict_marker_lines,
    is_text,
    merge3,
    split_lines,
)

LABELS = ("project: f.py", "engine 1 (as vendored)", "engine 2 (this update)")
REAL_SOURCES = [
    Path(module.__file__ or "") for module in (argparse, difflib, json.decoder, textwrap)
]

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is the oracle")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("merge3")


def git_merge(scratch: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[bytes, int]:
    """``git merge-file -p --diff3``'s output and its exit status (the number of conflicts)."""
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        (scratch / name).write_bytes(data)
    labels = [arg for label in LABELS for arg in ("-L", label)]
    out = subprocess.run(
        ["git", "merge-file", "-p", "--diff3", *labels, "ours", "base", "theirs"],
        cwd=scratch,
        capture_output=True,
        timeout=30,
    )
    assert out.returncode >= 0, out.stderr
    return out.stdout, out.returncode


@st.composite
def edits(
    draw: st.DrawFn, base: list[bytes], tag: str, lo: int = 0, hi: int | None = None
) -> list[bytes]:
    """``base`` with up to four inserts, replacements and deletions in lines ``lo..hi``; every
    new line is new (``tag`` and a counter)."""
    lines = list(base)
    hi = len(lines) if hi is None else hi
    made = 0
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(lo, hi))
        kind = draw(st.sampled_from(("insert", "replace", "delete")))
        if kind == "insert" or at >= hi:
            count = draw(st.integers(1, 3))
            lines[at:at] = [f"{tag} {made + k}\n".encode() for k in range(count)]
            hi += count
        elif kind == "replace":
            lines[at] = f"{tag} {made}\n".encode()
            count = 1
        else:
            count = min(draw(st.integers(1, 3)), hi - at)
            del lines[at : at + count]
            hi -= count
            count = 0
        made += count
    return lines


def text(lines: list[bytes], final_newline: bool = True) -> bytes:
    data = b"".join(lines)
    return data if final_newline or not data else data[:-1]


@st.composite
def three_unique(draw: st.DrawFn) -> tuple[bytes, bytes, bytes]:
    base = [f"line {i}\n".encode() for i in range(draw(st.integers(0, 14)))]
    ours, theirs = draw(edits(base, "ours")), draw(edits(base, "theirs"))
    if draw(st.booleans()):
        theirs = list(ours)  # both sides made the same change
    newline = st.booleans()
    return text(base, draw(newline)), text(ours, draw(newline)), text(theirs, draw(newline))


def assert_merges_as_git(scratch: Path, three: tuple[bytes, bytes, bytes]) -> None:
    base, ours, theirs = three
    merged = merge3(base, ours, theirs, LABELS)
    assert (merged.data, merged.conflicts) == git_merge(scratch, base, ours, theirs)


@needs_git
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(three=three_unique())
def test_the_merge_is_git_merge_file_diff3_on_lines_that_are_all_different(
    scratch: Path, three: tuple[bytes, bytes, bytes]
) -> None:
    assert_merges_as_git(scratch, three)


@pytest.mark.slow
@needs_git
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(three=three_unique())
def test_the_merge_is_git_merge_file_diff3_on_many_more_edits(
    scratch: Path, three: tuple[bytes, bytes, bytes]
) -> None:
    assert_merges_as_git(scratch, three)


@st.composite
def real_window(draw: st.DrawFn) -> list[bytes]:
    source = split_lines(draw(st.sampled_from(REAL_SOURCES)).read_bytes())
    size = draw(st.integers(12, 80))
    start = draw(st.integers(0, len(source) - size))
    return source[start : start + size]


@needs_git
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_on_real_source_edits_lines_apart_merge_cleanly_as_git_does(
    scratch: Path, data: st.DataObject
) -> None:
    """Ours edits the top of a window of a real module, theirs the bottom, four lines apart."""
    base = data.draw(real_window())
    split = data.draw(st.integers(0, len(base) - 4))
    ours = data.draw(edits(base, "# ours", 0, split))
    theirs = data.draw(edits(base, "# theirs", split + 4, len(base)))
    merged = merge3(b"".join(base), b"".join(ours), b"".join(theirs), LABELS)
    assert merged.clean
    assert (merged.data, 0) == git_merge(scratch, *map(b"".join, (base, ours, theirs)))
    assert merged.data == b"".join(ours[: len(ours) - (len(base) - split)] + theirs[split:])


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_on_real_source_the_laws_of_a_three_way_merge_hold(data: st.DataObject) -> None:
    base = data.draw(real_window())
    ours, theirs = data.draw(edits(base, "# ours")), data.draw(edits(base, "# theirs"))
    o, a, b = (b"".join(lines) for lines in (base, ours, theirs))
    # One side unchanged, or both the same: the other side, cleanly.
    for side in (a, b):
        assert merge3(o, o, side) == merge3(o, side, o) == merge3(o, side, side)
        assert merge3(o, side, side) == MergeResult(side, 0)
    # Symmetric: swapping the sides swaps the two halves of every conflict, nothing else.
    forward, backward = merge3(o, a, b, LABELS), merge3(o, b, a, LABELS)
    assert forward.conflicts == backward.conflicts
    assert sides(forward.data, 0) == sides(backward.data, 1)
    assert sides(forward.data, 1) == sides(backward.data, 0)
    # Every conflict is one <<<<<<< and one >>>>>>> line; without one, no marker at all.
    assert conflict_marker_lines(forward.data) == 2 * forward.conflicts


def sides(merged: bytes, which: int) -> bytes:
    """The merge with every conflict resolved to its first (0) or last (1) side."""
    out: list[bytes] = []
    part = None
    for line in split_lines(merged):
        marker = line[:7]
        if marker == b"<<<<<<<":
            part = 0
        elif marker == b"|||||||":
            part = -1
        elif marker == b"=======" and part is not None:
            part = 1
        elif marker == b">>>>>>>":
            part = None
        elif part is None or part == which:
            out.append(line)
    return b"".join(out)


def test_a_conflict_shows_both_sides_and_the_base_between_markers() -> None:
    base = b"def jump():\n    return 10\n"
    ours = b"def jump():\n    return 12  # our tuning\n"
    theirs = b"def jump():\n    return 11\n"
    merged = merge3(base, ours, theirs, LABELS)
    assert merged.conflicts == 1
    assert merged.data == (
        b"def jump():\n"
        b"<<<<<<< project: f.py\n    return 12  # our tuning\n"
        b"||||||| engine 1 (as vendored)\n    return 10\n"
        b"=======\n    return 11\n"
        b">>>>>>> engine 2 (this update)\n"
    )


def test_a_last_line_without_newline_still_leaves_every_marker_at_a_line_start() -> None:
    merged = merge3(b"a\nb", b"a\nours", b"a\ntheirs")
    assert merged.conflicts == 1
    assert [line[:7] for line in split_lines(merged.data)][1::2] == [
        b"<<<<<<<",
        b"|||||||",
        b"=======",
        b">>>>>>>",
    ]


def test_binary_data_is_refused() -> None:
    assert not is_text(b"PNG\0\1") and is_text(b"text\n")
    with pytest.raises(ValueError, match="binary"):
        merge3(b"a\n", b"a\0\n", b"b\n")


def test_split_lines_cuts_after_each_newline_only() -> None:
    assert split_lines(b"") == []
    assert split_lines(b"a\r\nb\x0cc\nd") == [b"a\r\n", b"b\x0cc\n", b"d"]
