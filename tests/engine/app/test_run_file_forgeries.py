"""Run files forged by editing JSON, re-linked as an attacker would: none of them verifies.

Each forgery keeps the file consistent wherever arithmetic can: ``previous_hash`` copied from
the attempt that now comes before, IGT, split and RTA figures redone, ``strict_valid`` matching
the dropped time. What stops them is the sealed chain (``engine/app/run_file.py``): every state
hash is keyed by a digest of the file's claims and of the attempts before it, so an edit means
re-simulating every later attempt, not editing a field.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.app.run_file import read_run, verify_run
from engine.input.replay import parse_replay
from engine.speedrun.timer import format_igt, format_time_ms
from engine.timing import TickRate
from tests.engine.app.honest_runs import ORDER, honest_run
from tests.engine.app.sample_game import GAME, LEVELS_DIR, SECTIONS

RATE = TickRate.from_hz(60)


@pytest.fixture(scope="module")
def with_restarts() -> dict[str, Any]:
    """A run with a restart on level 1 and one on level 2, as its file's JSON."""
    return honest_run(restarts=[(0, 300), (1, 30)]).to_json()


@pytest.fixture(scope="module")
def other_run() -> dict[str, Any]:
    """Another session's run with a restart on level 1, as its file's JSON."""
    return honest_run(restarts=[(0, 60)]).to_json()


def verify(data: dict[str, Any], tmp_path: Path) -> Any:
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    return verify_run(GAME, read_run(path, SECTIONS), LEVELS_DIR, ORDER)


def last_hash(attempt: dict[str, Any]) -> str:
    hashes = parse_replay(attempt["replay"].encode()).hashes
    assert hashes[-1] is not None
    return hashes[-1]


def redo_times(data: dict[str, Any]) -> None:
    """Recompute IGT and the splits from the attempts left, as the attacker did by hand."""
    ticks = 0
    splits = []
    by_level = {split["level"]: split for split in data["splits"]}
    for attempt in data["attempts"]:
        ticks += parse_replay(attempt["replay"].encode()).tick_count
        if attempt["outcome"] == "complete":
            split = dict(by_level[attempt["level"]])
            previous = splits[-1]["igt_ticks"] if splits else 0
            split.update(
                igt_ticks=ticks, segment_ticks=ticks - previous, igt=format_igt(RATE, ticks)
            )
            splits.append(split)
    data["splits"] = splits
    data["igt_ticks"], data["igt"] = ticks, format_igt(RATE, ticks)


def test_deleting_a_restart_and_relinking_does_not_verify(
    with_restarts: dict[str, Any], tmp_path: Path
) -> None:
    forged = copy.deepcopy(with_restarts)
    attempts = forged["attempts"]
    assert [a["outcome"] for a in attempts[:2]] == ["restart", "complete"]
    del attempts[0]  # the 5-second restart on level 1
    attempts[0]["previous_hash"] = ""
    attempts[2]["previous_hash"] = last_hash(attempts[1])  # re-linked
    redo_times(forged)
    assert forged["igt_ticks"] == with_restarts["igt_ticks"] - 300
    result = verify(forged, tmp_path)
    assert not result.verified
    assert "not sealed under this run's chain" in result.problem


def test_deleting_a_middle_restart_and_relinking_does_not_verify(
    with_restarts: dict[str, Any], tmp_path: Path
) -> None:
    forged = copy.deepcopy(with_restarts)
    attempts = forged["attempts"]
    assert attempts[2]["outcome"] == "restart"
    del attempts[2]  # level 2's restart
    attempts[2]["previous_hash"] = last_hash(attempts[1])  # re-linked
    redo_times(forged)
    result = verify(forged, tmp_path)
    assert not result.verified  # the redone IGT is a claim too: attempt 1 already fails
    assert "not sealed under this run's chain" in result.problem


def test_an_attempt_spliced_in_with_its_run_id_and_link_copied_does_not_verify(
    with_restarts: dict[str, Any], other_run: dict[str, Any], tmp_path: Path
) -> None:
    forged = copy.deepcopy(with_restarts)
    spliced = copy.deepcopy(other_run["attempts"][1])  # level 1 completed in another session
    spliced["run_id"] = forged["run_id"]
    spliced["previous_hash"] = forged["attempts"][1]["previous_hash"]
    forged["attempts"][1] = spliced
    forged["attempts"][2]["previous_hash"] = last_hash(spliced)
    redo_times(forged)
    result = verify(forged, tmp_path)
    assert not result.verified
    assert "not sealed under this run's chain" in result.problem


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_an_invalid_run_edited_valid_does_not_verify(tmp_path: Path) -> None:
    invalid = honest_run(strict_valid=False).to_json()
    assert invalid["hitch_dropped_ns"] > 0
    forged = copy.deepcopy(invalid)
    forged["strict_valid"], forged["hitch_dropped_ns"] = True, 0
    result = verify(forged, tmp_path)
    assert not result.verified and not result.valid
    assert "the file's claims" in result.problem


@pytest.mark.parametrize(
    "edit",
    [
        {"vsync": "off"},
        {"game_version": "9.9.9"},
        {"timing_mode": "strict", "vsync": "unknown"},
    ],
)
def test_edited_claims_do_not_verify(
    with_restarts: dict[str, Any], tmp_path: Path, edit: dict[str, Any]
) -> None:
    forged = {**copy.deepcopy(with_restarts), **edit}
    result = verify(forged, tmp_path)
    assert not result.verified and "the file's claims" in result.problem


def test_rta_edited_down_to_the_igt_does_not_verify(
    with_restarts: dict[str, Any], tmp_path: Path
) -> None:
    forged = copy.deepcopy(with_restarts)
    rta_ms = RATE.tick_time_ms(forged["igt_ticks"]) + 1
    forged["rta_ms"], forged["rta"] = rta_ms, format_time_ms(rta_ms)
    for split in forged["splits"]:
        split["rta_ms"] = min(split["rta_ms"], rta_ms)
    result = verify(forged, tmp_path)
    assert not result.verified and "the file's claims" in result.problem


CLAIMS = ("game_version", "vsync", "rta_ms", "hitch_dropped_ns", "split_rta_ms", "run_id")


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(field=st.sampled_from(CLAIMS), value=st.integers(min_value=1, max_value=10**6))
def test_any_claim_edited_and_kept_consistent_does_not_verify(
    with_restarts: dict[str, Any], tmp_path: Path, field: str, value: int
) -> None:
    forged = copy.deepcopy(with_restarts)
    if field == "game_version":
        forged["game_version"] = f"{value}.0"
    elif field == "vsync":
        forged["vsync"] = ["off", "unknown"][value % 2]
    elif field == "rta_ms":
        forged["rta_ms"] += value
        forged["rta"] = format_time_ms(forged["rta_ms"])
    elif field == "hitch_dropped_ns":
        forged["hitch_dropped_ns"] = value
        forged["strict_valid"] = False
    elif field == "split_rta_ms":
        forged["splits"][0]["rta_ms"] = max(0, forged["splits"][0]["rta_ms"] - value)
    else:  # a new run id, copied into every attempt
        forged["run_id"] = f"{value:032x}"
        for attempt in forged["attempts"]:
            attempt["run_id"] = forged["run_id"]
    result = verify(forged, tmp_path)
    assert not result.verified, (field, value)


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_a_practice_run_with_its_flag_deleted_does_not_verify(tmp_path: Path) -> None:
    """Practice (savestates, slow motion) is a claim sealed like the others."""
    import dataclasses

    from engine.app.run_file import sealed_run
    from tests.engine.app.honest_runs import play_run

    practice = sealed_run(dataclasses.replace(honest_run(), practice=True), play_run())
    data = practice.to_json()
    assert data["practice"] is True
    result = verify(data, tmp_path)
    assert not result.verified and "practice" in result.problem  # never verified
    del data["practice"]
    result = verify(data, tmp_path)
    assert not result.verified and "the file's claims" in result.problem
