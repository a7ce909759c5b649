"""Personal bests: JSON round trip, PB and gold rules, atomic saves that survive SIGKILL."""

from __future__ import annotations

import json
import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.speedrun.personal_best import (
    STALE_TEMP_AGE_S,
    PersonalBest,
    Records,
    RecordsError,
    default_records_path,
    load_records,
    save_records,
    update_with_run,
)
from engine.speedrun.timer import SpeedrunTimer
from engine.timing.tick_rate import TickRate

ROOT = Path(__file__).resolve().parents[3]
CATEGORY = "all-levels@60Hz"
NAMES = ("level1", "level2", "level3")


def _sample_records() -> Records:
    records, _, _ = update_with_run(
        Records(), CATEGORY, NAMES, (1500, 1800, 2100), date="2026-01-02T03:04:05Z"
    )
    records, _, _ = update_with_run(records, "any%@120Hz", ("a",), (77,), completed=False)
    return records


# -- values and rules --------------------------------------------------------------------------


def test_default_path_is_in_the_user_data_directory() -> None:
    path = default_records_path("some-game")
    assert path.name == "personal_bests.json"
    assert "some-game" in path.parts


def test_first_complete_run_is_a_pb_and_all_gold() -> None:
    records, is_pb, golds = update_with_run(
        Records(), CATEGORY, NAMES, (1500, 1800, 2100), date="d"
    )
    assert is_pb and golds == NAMES
    pb = records.category(CATEGORY).personal_best
    assert pb is not None
    assert pb.total_ticks == 5400
    assert pb.cumulative_ticks == (1500, 3300, 5400)
    assert pb.date == "d"


def test_pb_replaced_only_by_a_faster_complete_run_while_golds_update_per_segment() -> None:
    records, _, _ = update_with_run(Records(), CATEGORY, NAMES, (1500, 1800, 2100))
    # slower overall (5500) but a gold on level2
    records, is_pb, golds = update_with_run(records, CATEGORY, NAMES, (1600, 1700, 2200))
    assert not is_pb and golds == ("level2",)
    assert records.category(CATEGORY).personal_best.total_ticks == 5400  # type: ignore[union-attr]
    assert dict(records.category(CATEGORY).best_segment_ticks) == {
        "level1": 1500,
        "level2": 1700,
        "level3": 2100,
    }
    assert records.category(CATEGORY).sum_of_best_ticks == 5300
    # equal total is not a new PB
    _, is_pb, golds = update_with_run(records, CATEGORY, NAMES, (1500, 1800, 2100))
    assert not is_pb and golds == ()
    # faster: new PB
    records, is_pb, golds = update_with_run(records, CATEGORY, NAMES, (1499, 1800, 2100))
    assert is_pb and golds == ("level1",)
    assert records.category(CATEGORY).personal_best.total_ticks == 5399  # type: ignore[union-attr]


def test_a_reset_run_sets_golds_but_never_a_pb() -> None:
    records, is_pb, golds = update_with_run(Records(), CATEGORY, NAMES[:1], (900,), completed=False)
    assert not is_pb and golds == ("level1",)
    assert records.category(CATEGORY).personal_best is None


def test_update_rejects_mismatched_input() -> None:
    with pytest.raises(ValueError):
        update_with_run(Records(), CATEGORY, NAMES, (1, 2))
    with pytest.raises(ValueError):
        update_with_run(Records(), CATEGORY, ("a", "a"), (1, 2))
    with pytest.raises(ValueError):
        update_with_run(Records(), CATEGORY, ("a",), (-1,))


def test_comparison_feeds_the_speedrun_timer() -> None:
    records = _sample_records()
    timer = SpeedrunTimer(TickRate.from_hz(60), NAMES, records.comparison(CATEGORY))
    timer.start(0)
    timer.add_ticks(1485)
    result = timer.split(1)
    assert result.delta_ticks == -15 and result.delta_text == "-0.250" and result.is_gold
    assert Records().comparison("nothing").pb_cumulative_ticks == {}


def test_json_round_trip() -> None:
    records = _sample_records()
    text = json.dumps(records.to_json())
    assert Records.from_json(json.loads(text)) == records


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=6),
        max_size=5,
    )
)
def test_json_round_trip_property(runs: dict[str, list[int]]) -> None:
    records = Records()
    for category, segments in runs.items():
        names = [f"s{i}" for i in range(len(segments))]
        records, _, _ = update_with_run(records, category, names, segments, date="x")
    assert Records.from_json(json.loads(json.dumps(records.to_json()))) == records


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(format="something-else"),
        lambda d: d.update(version=2),
        lambda d: d.update(version=True),
        lambda d: d.update(version=1.0),
        lambda d: d.update(categories=[]),
        lambda d: d["categories"][CATEGORY]["personal_best"].update(total_ticks="5400"),
        lambda d: d["categories"][CATEGORY]["personal_best"].update(total_ticks=True),
        lambda d: d["categories"][CATEGORY]["personal_best"].update(total_ticks=1),
        lambda d: d["categories"][CATEGORY]["personal_best"]["splits"].update(level2=10),
        lambda d: d["categories"][CATEGORY]["personal_best"].update(splits={}),
        lambda d: d["categories"][CATEGORY]["personal_best"].update(date=5),
        lambda d: d["categories"][CATEGORY]["best_segments"].update(level1=-3),
        lambda d: d["categories"][CATEGORY]["best_segments"].update(level1=1.5),
        lambda d: d["categories"].update({CATEGORY: "no"}),
    ],
)
def test_wrong_shapes_are_rejected(mutate) -> None:  # type: ignore[no-untyped-def]
    data = _sample_records().to_json()
    mutate(data)
    with pytest.raises(RecordsError):
        Records.from_json(data)


def test_personal_best_rejects_inconsistent_values() -> None:
    with pytest.raises(RecordsError):
        PersonalBest(total_ticks=5, split_names=("a", "b"), cumulative_ticks=(5,), date="d")


# -- the file ----------------------------------------------------------------------------------


def test_save_and_load_round_trip_creating_directories(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "personal_bests.json"
    records = _sample_records()
    save_records(records, path)
    warnings: list[str] = []
    assert load_records(path, warn=warnings.append) == records
    assert warnings == []
    assert json.loads(path.read_text("utf-8"))["format"] == "platformer-personal-bests"
    assert list(path.parent.iterdir()) == [path]  # no temp file left by a clean save


def test_missing_file_is_empty_records_without_a_warning(tmp_path: Path) -> None:
    warnings: list[str] = []
    assert load_records(tmp_path / "none.json", warn=warnings.append) == Records()
    assert warnings == []


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_saved_file_mode_follows_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "personal_bests.json"
    old = os.umask(0o027)
    try:
        save_records(Records(), path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    os.umask(0o022)
    try:
        save_records(Records(), path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"\xff\xfe\x00garbage", b"[]", b'{"format": "platformer-personal-bests"}'],
)
def test_corrupt_file_is_moved_aside_with_one_warning(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "personal_bests.json"
    path.write_bytes(content)
    warnings: list[str] = []
    assert load_records(path, warn=warnings.append) == Records()
    assert len(warnings) == 1
    moved = list(tmp_path.glob("personal_bests.corrupt-*.json"))
    assert len(moved) == 1
    assert moved[0].read_bytes() == content  # kept, byte for byte
    assert str(path) in warnings[0] and str(moved[0]) in warnings[0]
    assert not path.exists()
    # the game goes on: a new best saves normally next to the kept corrupt file
    save_records(_sample_records(), path)
    assert load_records(path, warn=warnings.append) == _sample_records()
    assert len(warnings) == 1


def test_two_corrupt_files_in_the_same_second_both_survive(tmp_path: Path) -> None:
    path = tmp_path / "personal_bests.json"
    for content in (b"one", b"two"):
        path.write_bytes(content)
        load_records(path, warn=lambda _m: None)
    kept = sorted(p.read_bytes() for p in tmp_path.glob("personal_bests.corrupt-*.json"))
    assert kept == [b"one", b"two"]


lone_surrogate = st.integers(0xD800, 0xDFFF).map(chr)


@settings(max_examples=20, deadline=None)
@given(
    where=st.sampled_from(["category", "split", "gold", "date"]),
    surrogate=lone_surrogate,
    around=st.text(max_size=5),
)
def test_records_that_could_never_be_saved_again_are_moved_aside_on_load(
    tmp_path_factory: pytest.TempPathFactory, where: str, surrogate: str, around: str
) -> None:
    """Finding 7: a lone surrogate (valid as a JSON escape) would make every later save fail."""
    folder = tmp_path_factory.mktemp("surrogate")
    path = folder / "personal_bests.json"
    data = _sample_records().to_json()
    bad = around + surrogate + around
    category = data["categories"][CATEGORY]
    if where == "category":
        data["categories"][bad] = data["categories"].pop(CATEGORY)
    elif where == "split":
        category["personal_best"]["splits"][bad] = category["personal_best"]["splits"].pop("level3")
    elif where == "gold":
        category["best_segments"][bad] = 5
    else:
        category["personal_best"]["date"] = bad
    path.write_text(json.dumps(data))  # ensure_ascii: the surrogate is a \\udXXX escape
    warnings: list[str] = []
    assert load_records(path, warn=warnings.append) == Records()
    assert len(warnings) == 1 and "lone surrogate" in warnings[0]
    assert warnings[0].isprintable() and len(warnings[0].splitlines()) == 1
    assert len(list(folder.glob("personal_bests.corrupt-*.json"))) == 1
    # ... and saving works again at once
    save_records(_sample_records(), path)
    assert load_records(path, warn=warnings.append) == _sample_records()


def test_a_run_whose_names_cannot_be_saved_is_refused_in_one_line() -> None:
    with pytest.raises(RecordsError, match="lone surrogate"):
        update_with_run(Records(), "level\udcff.tmx@60Hz", ("level\udcff.tmx",), (10,))


def test_unreadable_file_warns_once_and_is_never_clobbered(tmp_path: Path) -> None:
    """A directory in the file's place is unreadable for every user, root included."""
    path = tmp_path / "personal_bests.json"
    path.mkdir()
    (path / "precious").write_text("keep me")
    warnings: list[str] = []
    assert load_records(path, warn=warnings.append) == Records()
    assert len(warnings) == 1 and str(path) in warnings[0]
    with pytest.raises(RecordsError, match="not replacing"):
        save_records(_sample_records(), path)
    assert (path / "precious").read_text() == "keep me"


def test_stale_temp_files_are_ignored_by_load_and_cleaned_by_the_next_save(tmp_path: Path) -> None:
    path = tmp_path / "personal_bests.json"
    save_records(_sample_records(), path)
    stale = tmp_path / ".personal_bests.json.abc123.tmp"
    fresh = tmp_path / ".personal_bests.json.def456.tmp"
    stale.write_text("{half a fi")
    fresh.write_text("{another saver")
    old = time.time() - STALE_TEMP_AGE_S - 5
    os.utime(stale, (old, old))
    assert load_records(path) == _sample_records()
    save_records(Records(), path)
    assert not stale.exists()
    assert fresh.exists()  # may belong to another game instance saving right now


_SAVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from engine.speedrun.personal_best import CategoryRecord, PersonalBest, Records, save_records

    path, generation = Path(sys.argv[1]), int(sys.argv[2])
    names = tuple(f"level{i}" for i in range(40))
    categories = {}
    for i in range(800):  # about 1.8 MB of JSON, so a save takes a while (~0.1 s)
        cumulative = tuple(range(1000 + i, 41_000 + i, 1000))
        pb = PersonalBest(cumulative[-1], names, cumulative, "2026-01-01T00:00:00Z")
        categories[f"filler-{i}"] = CategoryRecord(pb, dict.fromkeys(names, 900))
    while True:
        generation += 1
        categories["generation"] = CategoryRecord(best_segment_ticks={"generation": generation})
        save_records(Records(categories), path)
        print(generation, flush=True)
    """
)


def _generation(path: Path) -> int:
    warnings: list[str] = []
    records = load_records(path, warn=warnings.append)
    assert warnings == [], warnings
    assert len(records.categories) == 801
    return records.category("generation").best_segment_ticks["generation"]


def _kill_when_a_temp_file_appears(saver: subprocess.Popen[str], directory: Path) -> bool:
    """SIGKILL ``saver`` as soon as a save's temporary file exists (mid-write); False on timeout."""
    known = {p.name for p in directory.glob(".*.tmp")}
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        if any(n.endswith(".tmp") and n not in known for n in os.listdir(directory)):
            saver.send_signal(signal.SIGKILL)
            return True
    saver.send_signal(signal.SIGKILL)
    return False


@pytest.mark.slow
def test_a_process_killed_while_saving_never_loses_the_previous_best(tmp_path: Path) -> None:
    """SIGKILL a real process saving ~1.8 MB of records in a loop; the file is always whole.

    Odd rounds kill at a random moment (mostly inside ``json.dumps``, as a save spends most of its
    time there); even rounds kill the moment the save's temporary file appears, i.e. in the
    middle of writing it (measured: the temp file then holds 1 MB of the 1.8 MB). After every
    kill the file loads without a warning, holds all categories, and holds at least the last
    generation the process reported as saved: a save that returned is never lost, and one
    interrupted before its rename leaves the previous generation.
    """
    path = tmp_path / "personal_bests.json"
    rng = random.Random(1234)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    generation = 0
    temps_before = 0
    cut_mid_write = 0
    for round_index in range(6):
        saver = subprocess.Popen(
            [sys.executable, "-c", _SAVER, str(path), str(generation)],
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert saver.stdout is not None
        first = saver.stdout.readline()  # the loop is running: one save has completed
        assert first.strip(), "the saver process died before its first save"
        mid_write = round_index % 2 == 1
        if mid_write:
            assert _kill_when_a_temp_file_appears(saver, tmp_path)
        else:
            time.sleep(rng.uniform(0.0, 0.25))  # a save takes ~0.1 s: anywhere in 2-3 saves
            saver.send_signal(signal.SIGKILL)
        rest, _ = saver.communicate(timeout=10)
        assert saver.returncode == -signal.SIGKILL
        reported = [int(line) for line in (first + rest).split()]
        on_disk = _generation(path)
        assert reported[-1] <= on_disk <= reported[-1] + 1  # at most the save cut short
        temps_now = len(list(tmp_path.glob(".*.tmp")))
        if temps_now > temps_before:  # killed between mkstemp and rename: the old file stays
            assert on_disk == reported[-1]
            cut_mid_write += 1
        temps_before = temps_now
        generation = on_disk
    assert cut_mid_write >= 2  # the mid-write rounds really did interrupt writes
    # the interrupted saves left temp files; load ignored them (checked above)
    leftovers = list(tmp_path.glob(".*.tmp"))
    assert all(p.name.startswith(".personal_bests.json.") for p in leftovers)
