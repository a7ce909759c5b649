"""A tree of files written all or nothing: a failure half-way leaves nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path, PurePosixPath

import pytest

from engine.storage.staged_tree import write_tree

ROOT = Path(__file__).resolve().parents[3]
FILES = {
    PurePosixPath("pyproject.toml"): b"[project]\n",
    PurePosixPath("pkg/__init__.py"): b"",
    PurePosixPath("pkg/sub/big.bin"): b"x" * 50_000,
    PurePosixPath("z_last.txt"): b"last\n",
}


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_a_new_folder_appears_whole(tmp_path: Path) -> None:
    write_tree(tmp_path / "a" / "b" / "proj", FILES)
    assert _tree(tmp_path / "a" / "b" / "proj") == {str(k): v for k, v in FILES.items()}
    assert [p.name for p in tmp_path.iterdir()] == ["a"]  # no staging folder left


def test_an_existing_folder_gains_the_files_and_keeps_its_own(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    (dest / "pkg").mkdir(parents=True)
    (dest / "notes.txt").write_text("mine")
    (dest / "pyproject.toml").write_text("old")
    write_tree(dest, FILES)
    assert _tree(dest) == {"notes.txt": b"mine", **{str(k): v for k, v in FILES.items()}}


def _limited(code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` where writing past 20 kB fails as on a full disk."""
    prelude = textwrap.dedent(
        """
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.parametrize("existing", [False, True])
def test_a_full_disk_half_way_leaves_nothing_written(tmp_path: Path, existing: bool) -> None:
    dest = tmp_path / "proj"
    if existing:
        dest.mkdir()
        (dest / "notes.txt").write_text("mine")
        (dest / "pyproject.toml").write_text("old")
    out = _limited(
        f"""
        from pathlib import Path, PurePosixPath
        from engine.storage.staged_tree import write_tree
        files = {{PurePosixPath(k): v for k, v in { ({str(k): v for k, v in FILES.items()})!r}.items()}}
        try:
            write_tree(Path({str(dest)!r}), files)
        except OSError as exc:
            print("refused:", exc.strerror)
        """
    )
    assert out.stdout.strip() == "refused: File too large", out.stderr
    if existing:
        assert _tree(dest) == {"notes.txt": b"mine", "pyproject.toml": b"old"}
        assert {p.name for p in dest.iterdir()} == {"notes.txt", "pyproject.toml"}
    else:
        assert list(tmp_path.iterdir()) == []  # no project, no staging folder


def test_a_rename_failing_half_way_is_undone(tmp_path: Path) -> None:
    """A file in the way of a planned folder makes a move fail after others were made."""
    dest = tmp_path / "proj"
    dest.mkdir()
    (dest / "pyproject.toml").write_text("old")
    (dest / "z_last.txt").mkdir()  # a non-empty folder where a file goes: its rename fails
    (dest / "z_last.txt" / "keep").write_text("k")
    with pytest.raises(IsADirectoryError, match="a folder is where a file goes"):
        write_tree(dest, FILES)
    assert _tree(dest) == {"pyproject.toml": b"old", "z_last.txt/keep": b"k"}
    assert sorted(p.name for p in dest.iterdir()) == ["pyproject.toml", "z_last.txt"]
