"""Games finishing runs at the same time: no personal best or gold is lost, no claim is false.

Real processes save into one ``personal_bests.json`` (``record_run``, under the records lock).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.speedrun.personal_best import (
    Records,
    load_records,
    merge_records,
    record_run,
    save_records,
    update_with_run,
)

ROOT = Path(__file__).resolve().parents[3]
NAMES = ("level1", "level2", "level3")
CATEGORY = "level1+level2+level3@60Hz"

GAME = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from engine.speedrun.personal_best import load_records, record_run
    path, start = Path(sys.argv[1]), Path(sys.argv[2])
    runs = json.loads(sys.argv[3])
    known = load_records(path)           # what this game read when it started
    while not start.exists():
        time.sleep(0.001)
    claims = []
    for segments in runs:
        saved = record_run(path, sys.argv[4], ["level1", "level2", "level3"], segments,
                           known=known, date="2026-11-27T00:00:00Z")
        known = saved.records
        claims.append([segments, saved.is_new_pb, list(saved.gold_names)])
    print(json.dumps(claims))
    """
)


def _games(path: Path, runs_per_game: list[list[list[int]]]) -> list[list[list[object]]]:
    """Run one process per game, all released at once; each prints its claims."""
    start = path.parent / "go"
    games = [
        subprocess.Popen(
            [sys.executable, "-c", GAME, str(path), str(start), json.dumps(runs), CATEGORY],
            cwd=ROOT,
            stdout=subprocess.PIPE,
        )
        for runs in runs_per_game
    ]
    start.write_text("")
    outputs = [game.communicate(timeout=120)[0] for game in games]
    assert [game.returncode for game in games] == [0] * len(games)
    return [json.loads(out) for out in outputs]


def test_the_slower_game_that_read_first_neither_overwrites_nor_claims(tmp_path: Path) -> None:
    """Finding 5: the slower game read the records before the faster one saved."""
    path = tmp_path / "personal_bests.json"
    old, _, _ = update_with_run(Records(), CATEGORY, NAMES, (2000, 2000, 2000))
    save_records(old, path)
    stale = load_records(path)  # the slower game loaded this at start-up
    fast = _games(path, [[[1500, 502, 2338]]])  # another game: 4340 ticks, gold 502 on level2
    slow = record_run(path, CATEGORY, NAMES, (1400, 802, 2900), known=stale)
    assert fast[0][0][1:] == [True, ["level1", "level2"]]
    assert not slow.is_new_pb  # 5102 > 4340: it must not say "New personal best!"
    assert slow.gold_names == ("level1",)  # 1400 beats 1500; 802 is no gold against 502
    saved = load_records(path).category(CATEGORY)
    assert saved.personal_best is not None and saved.personal_best.total_ticks == 4340
    assert dict(saved.best_segment_ticks) == {"level1": 1400, "level2": 502, "level3": 2000}


segment = st.integers(min_value=1, max_value=5000)
run = st.lists(segment, min_size=3, max_size=3)


@settings(max_examples=3, deadline=None)
@given(games=st.lists(st.lists(run, min_size=1, max_size=4), min_size=2, max_size=4))
def test_concurrent_games_keep_the_best_of_everything(
    tmp_path_factory: pytest.TempPathFactory, games: list[list[list[int]]]
) -> None:
    folder = tmp_path_factory.mktemp("records")
    path = folder / "personal_bests.json"
    claims = _games(path, games)
    every_run = [segments for runs in games for segments in runs]
    saved = load_records(path).category(CATEGORY)
    best_total = min(sum(segments) for segments in every_run)
    assert saved.personal_best is not None and saved.personal_best.total_ticks == best_total
    assert dict(saved.best_segment_ticks) == {
        name: min(segments[i] for segments in every_run) for i, name in enumerate(NAMES)
    }
    # Exactly one game claimed the final PB; within each game, a claim beats its earlier runs.
    final_claims = [c for game in claims for c in game if c[1] and sum(c[0]) == best_total]
    assert len(final_claims) == 1
    for game in claims:
        for index, (segments, is_pb, _) in enumerate(game):
            if is_pb:
                assert all(sum(segments) < sum(earlier) for earlier, _, _ in game[:index])
    # Each gold in the file was claimed by exactly one run with that time (ties: the first).
    for i, name in enumerate(NAMES):
        gold = saved.best_segment_ticks[name]
        setters = [c for game in claims for c in game if name in c[2] and c[0][i] == gold]
        assert len(setters) == 1, (name, gold, claims)


def test_merging_keeps_the_faster_of_each_and_every_category() -> None:
    a, _, _ = update_with_run(Records(), "x", NAMES, (10, 20, 30))
    b, _, _ = update_with_run(Records(), "x", NAMES, (5, 40, 40))
    b, _, _ = update_with_run(b, "y", ("only",), (7,))
    merged = merge_records(a, b)
    assert merged.category("x").personal_best == a.category("x").personal_best  # 60 < 85
    assert dict(merged.category("x").best_segment_ticks) == {
        "level1": 5,
        "level2": 20,
        "level3": 30,
    }
    assert merged.category("y") == b.category("y")
    assert merge_records(b, a).category("x").personal_best == a.category("x").personal_best
