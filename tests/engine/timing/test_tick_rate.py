"""Exact tick arithmetic: no float accumulator, exact game time for any tick."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.timing import FramePacer, FrameTime, PacerSettings, TickRate, TimingMode
from engine.timing.clock import NS_PER_S


def test_one_hour_at_60_hz_is_exactly_216000_ticks() -> None:
    rate = TickRate.from_hz(60)
    assert rate.ticks_in_ns(3600 * NS_PER_S) == 216_000
    assert rate.tick_time_ns(216_000) == 3600 * NS_PER_S
    assert rate.tick_time_ms(216_000) == 3_600_000


def test_pacer_fed_one_hour_of_frames_runs_exactly_216000_ticks() -> None:
    """3600 s of frame time in uneven frames (never a multiple of the step) gives 216,000 ticks."""
    pacer = FramePacer(TickRate.from_hz(60), PacerSettings(mode=TimingMode.STRICT))
    now = 0
    pacer.advance(FrameTime(now))
    frame_ns = 16_666_667 + 1_234  # slightly off the step, so rounding errors would accumulate
    end = 3600 * NS_PER_S
    while now < end:
        now = min(end, now + frame_ns)
        pacer.advance(FrameTime(now))
    game, dropped, pending, elapsed, bend = pacer.accounts_units()
    assert elapsed == pacer.tick_rate.ns_to_units(end)
    assert dropped == 0 and bend == 0
    assert game + pending == elapsed
    assert pacer.ticks == 216_000
    assert pending == 0


def test_millisecond_display_is_exact_on_every_tick_of_an_hour_where_floats_are_not() -> None:
    rate = TickRate.from_hz(60)
    float_sum = 0.0
    float_wrong = 0
    for tick in range(1, 216_001):
        float_sum += 1 / 60
        exact_ms = (tick * 1000) // 60  # tick / 60 s, floored to ms
        assert rate.tick_time_ms(tick) == exact_ms
        if math.floor(float_sum * 1000) != exact_ms:
            float_wrong += 1
    assert float_wrong == 38_545  # the figure DESIGN.md quotes for a float accumulator


@pytest.mark.parametrize(
    ("given_hz", "exact"),
    [(60, Fraction(60)), (59.94, Fraction(2997, 50)), ("144", Fraction(144)), (50.0, Fraction(50))],
)
def test_rates_are_read_exactly(given_hz: object, exact: Fraction) -> None:
    assert TickRate.from_hz(given_hz).rate_hz == exact  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -60, 0.0])
def test_non_positive_rates_are_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="must be > 0"):
        TickRate.from_hz(bad)


@given(
    st.sampled_from([60, 50, 144, 59.94, 30, 1000, 23.976]),
    st.integers(min_value=0, max_value=10**9),
)
def test_tick_time_is_exact_for_any_tick(rate_hz: float, ticks: int) -> None:
    rate = TickRate.from_hz(rate_hz)
    exact_ns = Fraction(ticks) * NS_PER_S / rate.rate_hz
    assert rate.tick_time_ns(ticks) == math.floor(exact_ns)
    assert rate.tick_time_s(ticks) == exact_ns / NS_PER_S
    assert rate.ticks_in_ns(rate.tick_time_ns(ticks) + 1) == ticks
