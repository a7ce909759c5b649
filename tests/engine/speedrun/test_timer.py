"""The speedrun clock: exact IGT on every tick, RTA, splits, deltas, golds, validity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.speedrun.timer import (
    Comparison,
    SpeedrunTimer,
    StrictStatus,
    format_delta_ms,
    format_time_ms,
    ticks_delta_ms,
)
from engine.timing.clock import NS_PER_MS, NS_PER_S
from engine.timing.tick_rate import TickRate

RATE_60 = TickRate.from_hz(60)
ONE_HOUR_TICKS = 216_000


def _parse_time_ms(text: str) -> int:
    """Inverse of format_time_ms, written independently for the round-trip property."""
    sign = -1 if text.startswith("-") else 1
    whole, millis = text.lstrip("-").split(".")
    parts = [int(p) for p in whole.split(":")]
    seconds = 0
    for part in parts:
        seconds = seconds * 60 + part
    return sign * (seconds * 1000 + int(millis))


# -- formatting ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0:00.000"),
        (1, "0:00.001"),
        (999, "0:00.999"),
        (62_345, "1:02.345"),
        (3_599_999, "59:59.999"),
        (3_600_000, "1:00:00.000"),
        (36_061_001, "10:01:01.001"),
        (-1_500, "-0:01.500"),
    ],
)
def test_format_time_ms(ms: int, text: str) -> None:
    assert format_time_ms(ms) == text


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0.000"),
        (250, "+0.250"),
        (-250, "-0.250"),
        (59_999, "+59.999"),
        (-62_003, "-1:02.003"),
        (3_600_000, "+1:00:00.000"),
    ],
)
def test_format_delta_ms(ms: int, text: str) -> None:
    assert format_delta_ms(ms) == text


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_time_format_round_trips(ms: int) -> None:
    assert _parse_time_ms(format_time_ms(ms)) == ms


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_delta_format_round_trips_and_signs(ms: int) -> None:
    text = format_delta_ms(ms)
    assert _parse_time_ms(text.lstrip("+")) == ms
    assert text.startswith("+") == (ms > 0)
    assert text.startswith("-") == (ms < 0)


def test_tick_deltas_truncate_toward_zero_symmetrically() -> None:
    assert ticks_delta_ms(RATE_60, 1) == 16
    assert ticks_delta_ms(RATE_60, -1) == -16
    assert ticks_delta_ms(RATE_60, -15) == -250
    assert ticks_delta_ms(RATE_60, 0) == 0


# -- exact IGT over an hour vs a float accumulator -------------------------------------------


def test_one_hour_run_shows_the_exact_time_on_every_tick() -> None:
    """216,000 ticks at 60 Hz: the display equals the exact time N/60 s on every single tick."""
    timer = SpeedrunTimer(RATE_60, ["hour"])
    timer.start(0)
    mismatches = 0
    for n in range(1, ONE_HOUR_TICKS + 1):
        timer.add_ticks(1)
        exact_ms = n * 1000 // 60  # N/60 s floored to the ms, in exact integer arithmetic
        if timer.igt_ms != exact_ms or _parse_time_ms(timer.igt_text) != exact_ms:
            mismatches += 1
    assert mismatches == 0
    assert timer.igt_ticks == ONE_HOUR_TICKS
    assert timer.igt_ns == 3600 * NS_PER_S
    assert timer.igt_text == "1:00:00.000"
    assert format_time_ms(RATE_60.tick_time_ms(6)) == "0:00.100"
    assert format_time_ms(RATE_60.tick_time_ms(215_999)) == "59:59.983"


def test_a_float_accumulator_shows_the_wrong_millisecond_on_38545_ticks_of_the_first_hour() -> None:
    """How the 38,545 in the issue was measured (and what it means).

    ``t += 1/60`` in float64 once per tick (``np.cumsum`` adds sequentially, in the same order as
    a Python loop, so it gives the same sums), displayed by flooring ``t * 1000`` to the ms
    (``math.floor(t * 1000)``; ``int(t * 1000)`` is identical for t >= 0), compared with the
    exact ``N * 1000 // 60``. The float sum drifts a hair *below* the true value, so every wrong
    tick shows one millisecond too little: the first at tick 6, which shows 0:00.099 for 0.1 s.
    (Other displays measured for comparison: ``round(t * 1000)`` differs from the floored exact
    time on 72,000 ticks because it rounds instead of flooring, and flooring the float's exact
    binary value, ``Decimal(t) * 1000``, on 38,552.)
    """
    ticks = np.arange(1, ONE_HOUR_TICKS + 1, dtype=np.int64)
    float_sum_s = np.cumsum(np.full(ONE_HOUR_TICKS, 1 / 60))
    shown_ms = np.floor(float_sum_s * 1000).astype(np.int64)
    exact_ms = ticks * 1000 // 60
    wrong = np.nonzero(shown_ms != exact_ms)[0]
    assert len(wrong) == 38_545
    assert set((shown_ms - exact_ms)[wrong].tolist()) == {-1}
    assert ticks[wrong[0]] == 6 and shown_ms[wrong[0]] == 99
    # the loop the issue describes, for the first 10,000 ticks, agrees with numpy
    t = 0.0
    for n in range(10_000):
        t += 1 / 60
        assert math.floor(t * 1000) == shown_ms[n]
    # and the integer timer is right on every one of them
    assert all(RATE_60.tick_time_ms(int(n)) == int(e) for n, e in zip(ticks, exact_ms, strict=True))


def test_ntsc_rate_igt_is_exact() -> None:
    rate = TickRate.from_hz("59.94")
    timer = SpeedrunTimer(rate, ["a"])
    timer.start(0)
    timer.add_ticks(2997)  # exactly 50 s at 2997/50 Hz
    assert timer.igt_ms == 50_000
    assert timer.igt_text == "0:50.000"


# -- the run ---------------------------------------------------------------------------------


def test_igt_counts_only_ticks_the_game_reports_while_rta_counts_everything() -> None:
    timer = SpeedrunTimer(RATE_60, ["a", "b"])
    timer.add_ticks(100)  # before start: ignored
    assert timer.igt_ticks == 0 and timer.rta_ns(5 * NS_PER_S) == 0
    timer.start(1_000 * NS_PER_MS)
    timer.add_ticks(60)  # 1 s played
    # 9 s of pause menu: no level ticks run, so add_ticks(0)
    timer.add_ticks(0)
    now = 11_000 * NS_PER_MS
    assert timer.igt_ms == 1000
    assert timer.rta_ms(now) == 10_000
    assert timer.rta_text(now) == "0:10.000"


def test_splits_deltas_and_golds() -> None:
    comparison = Comparison(
        pb_cumulative_ticks={"a": 600, "b": 1200, "c": 1800},
        best_segment_ticks={"a": 590, "b": 610},  # no gold for "c" yet
    )
    timer = SpeedrunTimer(RATE_60, ["a", "b", "c"], comparison)
    timer.start(0)
    assert timer.current_split_name == "a"
    timer.add_ticks(585)
    first = timer.split(10 * NS_PER_S)
    assert first.segment_ticks == 585 and first.cumulative_ticks == 585
    assert first.delta_ticks == -15 and first.delta_ms == -250 and first.delta_text == "-0.250"
    assert first.is_gold
    assert first.time_text == "0:09.750"
    assert first.rta_ns == 10 * NS_PER_S

    timer.add_ticks(640)
    second = timer.split(21 * NS_PER_S)
    assert second.segment_ticks == 640 and second.cumulative_ticks == 1225
    assert second.delta_ticks == 25 and second.delta_text == "+0.416"
    assert not second.is_gold
    assert not timer.finished and timer.current_split_index == 2

    timer.add_ticks(600)
    third = timer.split(31 * NS_PER_S)
    assert third.is_gold  # no best segment yet: the first time is a gold
    assert third.delta_ticks == 25
    assert timer.finished and not timer.running
    assert timer.current_split_name is None
    # after the finish, ticks no longer count and RTA is frozen
    timer.add_ticks(1000)
    assert timer.igt_ticks == 1825
    assert timer.rta_ns(99 * NS_PER_S) == 31 * NS_PER_S
    assert timer.split_segment_ticks == (585, 640, 600)
    with pytest.raises(RuntimeError):
        timer.split(40 * NS_PER_S)


def test_without_a_personal_best_deltas_are_empty_and_every_segment_is_gold() -> None:
    timer = SpeedrunTimer(RATE_60, ["only"])
    timer.start(0)
    timer.add_ticks(10)
    result = timer.split(1)
    assert result.delta_ticks is None and result.delta_ms is None and result.delta_text == "-"
    assert result.is_gold


def test_reset_forgets_the_run_and_allows_a_new_start() -> None:
    timer = SpeedrunTimer(RATE_60, ["a", "b"])
    timer.start(0)
    timer.add_ticks(50)
    timer.record_dropped_ns(5)
    timer.split(1)
    with pytest.raises(RuntimeError):
        timer.start(2)
    timer.reset()
    assert not timer.started and timer.igt_ticks == 0 and timer.splits == ()
    assert timer.dropped_ns == 0
    timer.start(10)
    timer.add_ticks(3)
    assert timer.igt_ticks == 3 and timer.segment_ticks == 3


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError):
        SpeedrunTimer(RATE_60, [])
    with pytest.raises(ValueError):
        SpeedrunTimer(RATE_60, ["a", "a"])
    timer = SpeedrunTimer(RATE_60, ["a"])
    with pytest.raises(ValueError):
        timer.add_ticks(-1)
    with pytest.raises(ValueError):
        timer.record_dropped_ns(-1)
    with pytest.raises(RuntimeError):
        timer.split(0)
    with pytest.raises(ValueError):
        Comparison(pb_cumulative_ticks={"a": -1})


def test_comparison_is_immutable() -> None:
    source = {"a": 5}
    comparison = Comparison(pb_cumulative_ticks=source)
    source["a"] = 1
    assert comparison.pb_cumulative_ticks["a"] == 5
    with pytest.raises(TypeError):
        comparison.pb_cumulative_ticks["a"] = 3  # type: ignore[index]


@given(st.lists(st.integers(min_value=0, max_value=100_000), min_size=1, max_size=12))
def test_segments_sum_to_igt_and_cumulative_times_match(segments: list[int]) -> None:
    names = [f"s{i}" for i in range(len(segments))]
    timer = SpeedrunTimer(RATE_60, names)
    timer.start(0)
    for i, ticks in enumerate(segments):
        # feed each segment in uneven chunks, as frames would
        timer.add_ticks(ticks // 3)
        timer.add_ticks(ticks - ticks // 3)
        timer.split(i + 1)
    assert timer.finished
    assert sum(r.segment_ticks for r in timer.splits) == timer.igt_ticks == sum(segments)
    for result in timer.splits:
        assert result.cumulative_ms == RATE_60.tick_time_ms(result.cumulative_ticks)


# -- validity --------------------------------------------------------------------------------


def test_strict_status_valid_run() -> None:
    status = StrictStatus(strict=True, vsync="on", dropped_ns=0)
    assert status.valid
    assert status.text == "strict ✓ vsync on  dropped 0.000 s"


def test_strict_status_any_dropped_time_invalidates_and_shows() -> None:
    timer = SpeedrunTimer(RATE_60, ["a"])
    timer.start(0)
    timer.record_dropped_ns(1)  # one nanosecond is still dropped time
    status = timer.strict_status(strict=True, vsync_verdict=None)
    assert not status.valid
    assert status.text == "strict ✗ vsync unknown  dropped 0.001 s"
    timer.record_dropped_ns(1_250 * NS_PER_MS - 1)
    assert timer.strict_status(True, False).text == "strict ✗ vsync off  dropped 1.250 s"


def test_strict_status_without_strict_mode_is_invalid() -> None:
    status = StrictStatus.from_verdict(strict=False, vsync_verdict=True, dropped_ns=0)
    assert not status.valid
    assert status.text == "not strict ✗ vsync on  dropped 0.000 s"
    with pytest.raises(ValueError):
        StrictStatus(True, "maybe", 0)
