"""Exact "accelerate, then apply friction" motion for any time step.

Many platformers tune movement with a per-tick loop written for a fixed tick rate
(classically 60 Hz)::

    velocity += acceleration * tick_s      # velocity in px/s, acceleration in px/s²
    velocity *= friction_per_tick          # e.g. 0.85: keep 85% of the speed per tick
    position += velocity * tick_s

With ``tick_s = 1 / tick_rate_hz``. Running that loop with a different ``dt`` is not
the same game: the obvious port (:func:`naive_advance`)::

    velocity += acceleration * dt_s
    velocity *= friction_per_tick ** (dt_s * tick_rate_hz)
    position += velocity * dt_s

gives a different jump height, top speed ramp and stopping distance at 30 Hz than at
144 Hz, and two half steps do not equal one whole step. Instead we solve the loop
exactly and evaluate the solution for a real-valued number of ticks
``n = dt_s * tick_rate_hz`` (Tyler Glaiel, "How to make your game run at 60fps").

Units (used consistently throughout this module):
    * position: px (any length unit),
    * velocity: px/s,
    * acceleration: px/s² (per **second**, not per tick),
    * friction_per_tick: dimensionless multiplier applied once per tick
      (1 = no friction, 0 = stop dead),
    * tick_rate_hz: ticks per second the friction value was tuned for.

Derivation. Let ``T = 1 / tick_rate_hz`` (s per tick), ``f = friction_per_tick`` and
``dv = acceleration * T`` (px/s gained per tick). One tick maps
``v -> (v + dv) * f``, so after ``n`` ticks (geometric series)::

    v_n = f**n * v_0 + dv * (f + f**2 + ... + f**n)
        = v_term + (v_0 - v_term) * f**n,    with  v_term = dv * f / (1 - f)

``v_term`` is the terminal velocity: the fixed point ``v = (v + dv) * f``. The
velocity decays geometrically from ``v_0`` toward it. The position adds
``T * v_k`` after each tick ``k = 1..n``::

    x_n = x_0 + T * sum(v_k)
        = x_0 + T * (v_term * n + (v_0 - v_term) * S_n),
    S_n = f + f**2 + ... + f**n = f * (1 - f**n) / (1 - f)

Expanding ``v_term`` reproduces the article's formula
``x_0 + T * f * (dv * (f*f**n - f*(n+1) + n) + (f-1) * v_0 * (f**n - 1)) / (f-1)**2``.
For integer ``n`` this equals the loop exactly; for real ``n`` it is the unique
smooth extension that keeps the step property: advancing ``a`` ticks and then ``b``
ticks equals advancing ``a + b`` ticks (``f**a * f**b = f**(a+b)`` makes both the
velocity and the position sums compose). Hence the simulation is frame-rate
independent.

Special cases:
    * ``f == 1`` (no friction) divides by zero above; the limit ``f -> 1`` gives
      ``S_n -> n`` and ``v_n = v_0 + dv * n``,
      ``x_n = x_0 + T * (v_0 * n + dv * n * (n + 1) / 2)`` (the ``+1`` is because
      the loop adds velocity *after* accelerating), which is used directly.
    * ``f == 0`` zeroes the velocity on every tick, so the body never moves: for
      any ``n > 0`` velocity becomes 0 and position is unchanged (the ``f -> 0``
      limit of the formula). ``n == 0`` leaves the state untouched.
    * ``f`` outside ``[0, 1]`` is rejected (negative ``f**n`` is complex for
      fractional ``n``; ``f > 1`` is not friction).

Numerics: ``f**n`` and ``1 - f**n`` are computed with ``exp``/``expm1`` of
``n * log(f)``. For friction extremely close to (but not equal to) 1, the position
term loses about ``-log10(1 - f)`` digits to cancellation; with realistic values
(``f <= 0.999``) the result agrees with the loop to ~1e-12 relative.
"""

import math
from dataclasses import dataclass

__all__ = ["MotionState", "advance", "naive_advance", "terminal_velocity"]


@dataclass(frozen=True, slots=True)
class MotionState:
    """One-dimensional kinematic state.

    Attributes:
        position: Position in px.
        velocity: Velocity in px/s.
    """

    position: float
    velocity: float


def _validate(friction_per_tick: float, dt_s: float, tick_rate_hz: float) -> None:
    if not 0.0 <= friction_per_tick <= 1.0:
        raise ValueError(f"friction_per_tick must be in [0, 1], got {friction_per_tick}")
    if dt_s < 0.0:
        raise ValueError(f"dt_s must be >= 0, got {dt_s}")
    if not tick_rate_hz > 0.0:
        raise ValueError(f"tick_rate_hz must be > 0, got {tick_rate_hz}")


def terminal_velocity(
    acceleration: float, friction_per_tick: float, tick_rate_hz: float = 60.0
) -> float:
    """Speed (px/s) the loop converges to under constant acceleration (px/s²).

    ``dv * f / (1 - f)`` with ``dv = acceleration / tick_rate_hz``: the velocity at
    which the per-tick gain and the friction loss cancel.

    Raises:
        ValueError: If ``friction_per_tick`` is not in ``[0, 1)`` (no finite limit
            without friction).
    """
    if not 0.0 <= friction_per_tick < 1.0:
        raise ValueError(f"friction_per_tick must be in [0, 1), got {friction_per_tick}")
    gain_per_tick_px_s = acceleration / tick_rate_hz
    return gain_per_tick_px_s * friction_per_tick / (1.0 - friction_per_tick)


def advance(
    state: MotionState,
    acceleration: float,
    friction_per_tick: float,
    dt_s: float,
    tick_rate_hz: float = 60.0,
) -> MotionState:
    """Exact result of running the per-tick loop for ``dt_s * tick_rate_hz`` ticks.

    Args:
        state: Position (px) and velocity (px/s) now.
        acceleration: Constant acceleration in px/s² during the step.
        friction_per_tick: Velocity multiplier per tick, in ``[0, 1]``.
        dt_s: Step duration in seconds (any non-negative value, not just whole ticks).
        tick_rate_hz: Tick rate the loop (and ``friction_per_tick``) is defined at.

    Returns:
        The state after ``dt_s``. Advancing by ``a`` then ``b`` equals advancing by
        ``a + b`` (up to float rounding).

    Raises:
        ValueError: If ``friction_per_tick`` is outside ``[0, 1]``, ``dt_s`` is
            negative or ``tick_rate_hz`` is not positive.
    """
    _validate(friction_per_tick, dt_s, tick_rate_hz)
    tick_s = 1.0 / tick_rate_hz
    ticks = dt_s * tick_rate_hz
    gain_per_tick_px_s = acceleration * tick_s
    f = friction_per_tick
    v0 = state.velocity

    if ticks == 0.0:
        return state
    if f == 0.0:
        return MotionState(state.position, 0.0)
    if f == 1.0:
        velocity = v0 + gain_per_tick_px_s * ticks
        travelled_px = tick_s * (v0 * ticks + gain_per_tick_px_s * ticks * (ticks + 1.0) / 2.0)
        return MotionState(state.position + travelled_px, velocity)

    log_f = math.log(f)
    decay = math.exp(ticks * log_f)  # f**n: share of the initial excess speed left
    one_minus_decay = -math.expm1(ticks * log_f)  # 1 - f**n, precise for small n
    v_term = gain_per_tick_px_s * f / (1.0 - f)
    sum_f_powers = f * one_minus_decay / (1.0 - f)  # f + f**2 + ... + f**n
    velocity = v_term + (v0 - v_term) * decay
    # T * (v_term * n + (v0 - v_term) * S_n), regrouped so the large v_term terms
    # cancel inside one parenthesis: v_term * (n - S_n) + v0 * S_n.
    travelled_px = tick_s * (v_term * (ticks - sum_f_powers) + v0 * sum_f_powers)
    return MotionState(state.position + travelled_px, velocity)


def naive_advance(
    state: MotionState,
    acceleration: float,
    friction_per_tick: float,
    dt_s: float,
    tick_rate_hz: float = 60.0,
) -> MotionState:
    """The common but wrong variable-dt port of the loop (for comparison only).

    ``v += a*dt; v *= f**(dt*rate); x += v*dt``. It matches :func:`advance` when
    ``dt_s`` is exactly one tick, and drifts for any other step: two steps of
    ``dt`` do not equal one step of ``2*dt``. Same units and arguments as
    :func:`advance`.
    """
    _validate(friction_per_tick, dt_s, tick_rate_hz)
    velocity = state.velocity + acceleration * dt_s
    velocity *= friction_per_tick ** (dt_s * tick_rate_hz)
    return MotionState(state.position + velocity * dt_s, velocity)
