"""New names never replace a file, even with several processes taking names at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.storage.atomic_file import write_atomic_first, write_atomic_new
from engine.storage.unique_name import move_aside, numbered_name, reserve_new_name

ROOT = Path(__file__).resolve().parents[3]


def test_numbered_names_go_before_the_suffix_or_at_the_end() -> None:
    assert numbered_name(Path("d/run-1.json"), 1) == Path("d/run-1.json")
    assert numbered_name(Path("d/run-1.json"), 3) == Path("d/run-1-3.json")
    assert numbered_name(Path("s.toml.damaged"), 2, "") == Path("s.toml.damaged-2")
    assert numbered_name(Path("noext"), 2) == Path("noext-2")


def test_a_taken_name_gets_the_next_number(tmp_path: Path) -> None:
    first = write_atomic_new(tmp_path / "run.json", b"one")
    second = write_atomic_new(tmp_path / "run.json", b"two")
    assert (first.name, second.name) == ("run.json", "run-2.json")
    assert (first.read_bytes(), second.read_bytes()) == (b"one", b"two")


def test_a_dangling_symlink_is_a_taken_name(tmp_path: Path) -> None:
    (tmp_path / "run.json").symlink_to(tmp_path / "nowhere")
    assert reserve_new_name(tmp_path / "run.json").name == "run-2.json"
    assert not (tmp_path / "nowhere").exists()


def test_the_fallback_list_saves_under_a_new_name_too(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r.json").write_bytes(b"old")
    saved, failures = write_atomic_first([tmp_path / "runs" / "r.json"], b"new", new_name=True)
    assert saved == tmp_path / "runs" / "r-2.json" and not failures
    assert (tmp_path / "runs" / "r.json").read_bytes() == b"old"


@settings(max_examples=15, deadline=None)
@given(moves=st.integers(1, 6), contents=st.binary(max_size=20))
def test_files_moved_aside_keep_every_earlier_one(
    tmp_path_factory: pytest.TempPathFactory, moves: int, contents: bytes
) -> None:
    folder = tmp_path_factory.mktemp("aside")
    kept = []
    for index in range(moves):
        damaged = folder / "settings.toml"
        damaged.write_bytes(contents + bytes([index]))
        kept.append(move_aside(damaged, folder / "settings.toml.damaged", ""))
    assert len(set(kept)) == moves
    assert sorted(p.read_bytes()[-1] for p in kept) == list(range(moves))
    assert not (folder / "settings.toml").exists()


WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from engine.storage.atomic_file import write_atomic_new
    start, me, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    while not start.exists():
        time.sleep(0.001)
    for n in range(count):
        write_atomic_new(start.parent / "run-20261127-031500-5400.json", f"{me}:{n}".encode())
    """
)


def test_processes_saving_under_one_name_at_once_lose_no_file(tmp_path: Path) -> None:
    start = tmp_path / "go"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(start), str(me), "25"], cwd=ROOT)
        for me in range(4)
    ]
    start.write_text("")
    assert [w.wait(timeout=60) for w in writers] == [0, 0, 0, 0]
    saved = sorted(p.read_text() for p in tmp_path.glob("run-*.json"))
    assert saved == sorted(f"{me}:{n}" for me in range(4) for n in range(25))
    assert not list(tmp_path.glob(".*.tmp"))
