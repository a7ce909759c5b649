"""Tests for engine.rendering.smoothing: frame-rate independent exponential approach."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rendering.smoothing import (
    approach_fraction,
    exp_approach,
    lerp,
    remaining_fraction_per_s,
)


def run_frames(start: float, target: float, c: float, frame_dts_s: list[float]) -> float:
    value = start
    for dt_s in frame_dts_s:
        value = exp_approach(value, target, c, dt_s)
    return value


def test_lerp_endpoints_and_midpoint() -> None:
    assert lerp(2.0, 10.0, 0.0) == 2.0
    assert lerp(2.0, 10.0, 1.0) == 10.0
    assert lerp(2.0, 10.0, 0.25) == 4.0


@pytest.mark.parametrize("time_s", [0.1, 0.25, 1.0, 3.0])
def test_remaining_fraction_solves_definition(time_s: float) -> None:
    c = remaining_fraction_per_s(time_s)
    assert c**time_s == pytest.approx(0.01, rel=1e-12)
    c90 = remaining_fraction_per_s(time_s, reached=0.9)
    assert c90**time_s == pytest.approx(0.1, rel=1e-12)


def test_remaining_fraction_zero_time_is_instant_and_invalid_inputs_raise() -> None:
    assert remaining_fraction_per_s(0.0) == 0.0
    assert approach_fraction(0.0, 1 / 60) == 1.0
    with pytest.raises(ValueError):
        remaining_fraction_per_s(-1.0)
    with pytest.raises(ValueError):
        remaining_fraction_per_s(1.0, reached=1.0)
    with pytest.raises(ValueError):
        approach_fraction(1.5, 0.1)


def test_approach_fraction_edge_cases() -> None:
    assert approach_fraction(0.3, 0.0) == 0.0
    assert approach_fraction(0.3, -0.5) == 0.0  # negative dt clamped to 0
    assert approach_fraction(1.0, 10.0) == 0.0
    assert approach_fraction(0.3, 1.0) == pytest.approx(0.7, rel=1e-15)
    # tiny steps keep precision (expm1): 1 - c**dt ≈ -dt*ln(c)
    assert approach_fraction(0.5, 1e-12) == pytest.approx(1e-12 * math.log(2.0), rel=1e-9)


def test_after_time_to_99_the_distance_is_99_percent_covered() -> None:
    time_s = 0.4
    c = remaining_fraction_per_s(time_s)
    one_step = exp_approach(0.0, 100.0, c, time_s)
    many_steps = run_frames(0.0, 100.0, c, [time_s / 24] * 24)
    assert one_step == pytest.approx(99.0, abs=1e-9)
    assert many_steps == pytest.approx(99.0, abs=1e-9)


def test_fraction_composition_identity() -> None:
    c = remaining_fraction_per_s(0.3)
    a, b = 0.013, 0.029
    fa, fb, fab = (approach_fraction(c, t) for t in (a, b, a + b))
    assert fab == pytest.approx(fa + fb - fa * fb, abs=1e-15)


@pytest.mark.parametrize("dt_s", [1 / 240, 1 / 144, 1 / 60, 1 / 30, 0.1, 0.37])
def test_two_steps_of_dt_equal_one_step_of_2dt(dt_s: float) -> None:
    c = remaining_fraction_per_s(0.5)
    two = run_frames(-37.0, 512.0, c, [dt_s, dt_s])
    one = exp_approach(-37.0, 512.0, c, 2 * dt_s)
    assert two == pytest.approx(one, abs=1e-9)


def test_same_result_at_every_frame_rate_but_naive_lerp_differs() -> None:
    c = remaining_fraction_per_s(2.0)  # slow, so 1 s is far from converged
    results = [run_frames(0.0, 1000.0, c, [1.0 / hz] * hz) for hz in (30, 60, 144, 240)]
    expected = 1000.0 * (1.0 - c**1.0)
    for result in results:
        assert result == pytest.approx(expected, abs=1e-6)

    def naive(hz: int) -> float:
        value = 0.0
        for _ in range(hz):
            value = lerp(value, 1000.0, 0.1)
        return value

    assert naive(240) - naive(30) > 40.0  # 0.9**30 ≈ 4.2% of 1000 px still missing at 30 Hz


@settings(max_examples=200, deadline=None)
@given(
    weights=st.lists(st.floats(min_value=0.01, max_value=1.0), min_size=1, max_size=40),
    total_s=st.floats(min_value=0.001, max_value=5.0),
    time_to_99_s=st.floats(min_value=0.05, max_value=3.0),
    start=st.floats(min_value=-1e4, max_value=1e4),
    target=st.floats(min_value=-1e4, max_value=1e4),
)
def test_any_split_of_a_duration_equals_one_step(
    weights: list[float], total_s: float, time_to_99_s: float, start: float, target: float
) -> None:
    weight_sum = math.fsum(weights)
    steps_s = [total_s * w / weight_sum for w in weights]
    c = remaining_fraction_per_s(time_to_99_s)
    split = run_frames(start, target, c, steps_s)
    whole = exp_approach(start, target, c, math.fsum(steps_s))
    assert split == pytest.approx(whole, abs=1e-9 * max(1.0, abs(start), abs(target)))
