"""Tests for engine.physics.motion: exact accelerate + friction motion for any dt."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.physics.motion import MotionState, advance, naive_advance, terminal_velocity


def per_tick_loop(
    state: MotionState,
    acceleration: float,
    friction_per_tick: float,
    ticks: int,
    tick_rate_hz: float = 60.0,
) -> MotionState:
    """The reference model, written out independently of the module."""
    tick_s = 1.0 / tick_rate_hz
    position, velocity = state.position, state.velocity
    for _ in range(ticks):
        velocity += acceleration * tick_s
        velocity *= friction_per_tick
        position += velocity * tick_s
    return MotionState(position, velocity)


def assert_states_close(a: MotionState, b: MotionState, rel: float, abs_: float) -> None:
    assert a.position == pytest.approx(b.position, rel=rel, abs=abs_)
    assert a.velocity == pytest.approx(b.velocity, rel=rel, abs=abs_)


@pytest.mark.parametrize("ticks", [0, 1, 2, 3, 7, 60, 240, 1000])
@pytest.mark.parametrize("friction", [0.0, 0.5, 0.8, 0.95, 0.999, 1.0])
@pytest.mark.parametrize("tick_rate_hz", [60.0, 120.0, 50.0])
def test_integer_ticks_match_per_tick_loop(
    ticks: int, friction: float, tick_rate_hz: float
) -> None:
    start = MotionState(position=12.5, velocity=-340.0)
    acceleration = 2400.0
    exact = advance(start, acceleration, friction, ticks / tick_rate_hz, tick_rate_hz)
    looped = per_tick_loop(start, acceleration, friction, ticks, tick_rate_hz)
    assert_states_close(exact, looped, rel=1e-9, abs_=1e-9)


def test_formula_matches_article_closed_form() -> None:
    # Glaiel's formula, velocity in px/s, a = acceleration * (1/60), n = dt * 60.
    p0, v0, acceleration, f, dt_s = 3.0, 120.0, 900.0, 0.87, 0.0237
    a, n = acceleration / 60, dt_s * 60
    f_n = f**n
    article_pos = p0 + (
        (f * (a * (f * f_n - f * (n + 1) + n) + (f - 1) * v0 * (f_n - 1))) / ((f - 1) * (f - 1))
    ) * (1 / 60)
    article_vel = v0 * f_n + a * (f * (f_n - 1) / (f - 1))
    result = advance(MotionState(p0, v0), acceleration, f, dt_s)
    assert result.position == pytest.approx(article_pos, rel=1e-12)
    assert result.velocity == pytest.approx(article_vel, rel=1e-12)


def test_one_tick_of_naive_advance_matches_the_loop() -> None:
    start = MotionState(0.0, 50.0)
    naive = naive_advance(start, 1200.0, 0.8, 1 / 60)
    looped = per_tick_loop(start, 1200.0, 0.8, 1)
    assert_states_close(naive, looped, rel=1e-12, abs_=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    dt_s=st.floats(min_value=1e-4, max_value=0.5),
    friction=st.floats(min_value=0.05, max_value=0.999),
    acceleration=st.floats(min_value=-5000.0, max_value=5000.0),
    position=st.floats(min_value=-1e4, max_value=1e4),
    velocity=st.floats(min_value=-2000.0, max_value=2000.0),
    tick_rate_hz=st.sampled_from([30.0, 60.0, 120.0]),
)
def test_two_steps_of_dt_equal_one_step_of_2dt(
    dt_s: float,
    friction: float,
    acceleration: float,
    position: float,
    velocity: float,
    tick_rate_hz: float,
) -> None:
    start = MotionState(position, velocity)
    half = advance(start, acceleration, friction, dt_s, tick_rate_hz)
    two = advance(half, acceleration, friction, dt_s, tick_rate_hz)
    one = advance(start, acceleration, friction, 2 * dt_s, tick_rate_hz)
    scale = 1.0 + abs(position) + abs(velocity) + abs(acceleration)
    assert two.position == pytest.approx(one.position, abs=1e-9 * scale)
    assert two.velocity == pytest.approx(one.velocity, abs=1e-9 * scale)


def test_naive_advance_is_not_step_size_independent() -> None:
    start = MotionState(0.0, 0.0)
    acceleration, friction = 3000.0, 0.85
    exact_60 = start
    exact_30 = start
    naive_60 = start
    naive_30 = start
    for _ in range(30):  # half a second at 60 Hz ...
        exact_60 = advance(exact_60, acceleration, friction, 1 / 60)
        naive_60 = naive_advance(naive_60, acceleration, friction, 1 / 60)
    for _ in range(15):  # ... and at 30 Hz
        exact_30 = advance(exact_30, acceleration, friction, 1 / 30)
        naive_30 = naive_advance(naive_30, acceleration, friction, 1 / 30)
    assert_states_close(exact_60, exact_30, rel=1e-9, abs_=1e-9)
    # naive: at 30 Hz the velocity is multiplied by f**2 after adding a whole 1/30 s of
    # acceleration, so the body is clearly slower and falls behind.
    assert naive_60.velocity - naive_30.velocity > 10.0  # px/s
    assert naive_60.position - naive_30.position > 5.0  # px
    # and two naive half steps are not one whole step
    two = naive_advance(
        naive_advance(start, acceleration, friction, 1 / 60), acceleration, friction, 1 / 60
    )
    one = naive_advance(start, acceleration, friction, 1 / 30)
    assert two.velocity - one.velocity > 5.0


def test_frictionless_limit() -> None:
    start = MotionState(-4.0, 30.0)
    acceleration, dt_s, rate_hz = 980.0, 0.73, 60.0
    frictionless = advance(start, acceleration, 1.0, dt_s, rate_hz)
    n, tick_s = dt_s * rate_hz, 1 / rate_hz
    dv = acceleration * tick_s
    expected_velocity = start.velocity + dv * n
    expected_position = start.position + tick_s * (start.velocity * n + dv * n * (n + 1) / 2)
    assert frictionless.velocity == pytest.approx(expected_velocity, rel=1e-12)
    assert frictionless.position == pytest.approx(expected_position, rel=1e-12)
    # the f -> 1 limit of the friction formula approaches the frictionless branch
    # (the physical difference shrinks in proportion to 1 - f)
    for gap in (1e-6, 1e-8):
        near = advance(start, acceleration, 1.0 - gap, dt_s, rate_hz)
        assert near.velocity == pytest.approx(frictionless.velocity, rel=100 * gap)
        assert near.position == pytest.approx(frictionless.position, rel=100 * gap)


def test_velocity_converges_to_terminal_velocity() -> None:
    acceleration, friction, rate_hz = 1800.0, 0.9, 60.0
    v_term = terminal_velocity(acceleration, friction, rate_hz)
    assert v_term == pytest.approx((acceleration / rate_hz) * friction / (1 - friction))
    for v0 in (0.0, 1000.0, -500.0):
        state = advance(MotionState(0.0, v0), acceleration, friction, 10.0, rate_hz)
        assert state.velocity == pytest.approx(v_term, rel=1e-12)
    # the terminal velocity is a fixed point
    still = advance(MotionState(0.0, v_term), acceleration, friction, 0.123, rate_hz)
    assert still.velocity == pytest.approx(v_term, rel=1e-12)
    assert still.position == pytest.approx(v_term * 0.123, rel=1e-12)
    with pytest.raises(ValueError):
        terminal_velocity(acceleration, 1.0)


def test_zero_friction_stops_dead_and_zero_dt_is_identity() -> None:
    start = MotionState(5.0, 100.0)
    assert advance(start, 500.0, 0.0, 0.01) == MotionState(5.0, 0.0)
    assert advance(start, 500.0, 0.3, 0.0) == start


def test_invalid_arguments_rejected() -> None:
    start = MotionState(0.0, 0.0)
    with pytest.raises(ValueError):
        advance(start, 1.0, 1.01, 0.1)
    with pytest.raises(ValueError):
        advance(start, 1.0, -0.1, 0.1)
    with pytest.raises(ValueError):
        advance(start, 1.0, 0.5, -0.1)
    with pytest.raises(ValueError):
        advance(start, 1.0, 0.5, 0.1, tick_rate_hz=0.0)
    assert math.isfinite(advance(start, 1.0, 0.5, 1e6).position)
