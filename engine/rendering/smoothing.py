"""Frame-rate independent exponential smoothing.

The classic "move 10% of the way to the target every frame" code::

    position = lerp(position, target, 0.1)

is frame-rate dependent. Each call leaves 90% of the remaining distance, so after
one second a 30 Hz game has left ``0.9**30 ≈ 4.2%`` of the distance while a 240 Hz
game has left ``0.9**240 ≈ 1e-11``: the faster the monitor, the snappier the camera.

The fix is to ask how much of the distance should *remain* after one second, call
that fraction ``c`` (for example ``c = 0.01``: after one second 1% remains), and for
a frame of ``dt`` seconds leave ``c**dt`` of the distance::

    position = lerp(position, target, 1 - c**dt)

Why this is exact for any split of time: write ``f(t) = 1 - c**t`` for the fraction
covered in ``t`` seconds. Covering ``f(a)`` and then ``f(b)`` of what is left leaves
``(1 - f(a)) * (1 - f(b)) = c**a * c**b = c**(a + b)``, so the two steps together
cover ``1 - c**(a + b) = f(a + b)``. Equivalently
``f(a + b) = f(a) + f(b) - f(a) * f(b)``. Two frames of ``dt`` therefore land on
exactly the same value as one frame of ``2 * dt``, and one second of 30 Hz, 60 Hz,
144 Hz or irregular frames all end in the same place (up to float rounding). The
constant fraction ``0.1`` has no such property: ``1 - 0.9 * 0.9 = 0.19 ≠ 0.1``.

Designers rarely think in "fraction remaining after one second", so
:func:`remaining_fraction_per_s` converts "reach 99% of the way in 0.25 s" into the
base ``c``: from ``c**time = 1 - reached`` follows ``c = (1 - reached)**(1 / time)``.

The target is assumed to stand still during the frame; for a moving target the
result still does not depend on the frame rate as long as the target is sampled
at the same instants.

Numerics: ``1 - c**dt`` is evaluated as ``-expm1(dt * log(c))`` so that very short
frames (tiny fractions) keep full precision.
"""

import math

__all__ = [
    "approach_fraction",
    "exp_approach",
    "lerp",
    "remaining_fraction_per_s",
]


def lerp(start: float, end: float, t: float) -> float:
    """Linear interpolation: ``start`` at ``t = 0``, ``end`` at ``t = 1``."""
    return start + (end - start) * t


def remaining_fraction_per_s(time_to_99_s: float, reached: float = 0.99) -> float:
    """Base ``c`` such that ``reached`` of the distance is covered in ``time_to_99_s``.

    Solves ``c**time_to_99_s = 1 - reached``, i.e. the fraction of the distance that is
    still left after one second.

    Args:
        time_to_99_s: Seconds to cover the ``reached`` fraction of the distance.
            ``0`` means "arrive instantly" and returns ``0.0``.
        reached: Fraction of the distance covered after ``time_to_99_s``; strictly
            between 0 and 1. The default 0.99 gives the parameter its name.

    Returns:
        The per-second remaining fraction ``c`` in ``[0, 1)``.

    Raises:
        ValueError: If ``time_to_99_s`` is negative or ``reached`` is not in (0, 1).
    """
    if not 0.0 < reached < 1.0:
        raise ValueError(f"reached must be strictly between 0 and 1, got {reached}")
    if time_to_99_s < 0.0:
        raise ValueError(f"time_to_99_s must be >= 0, got {time_to_99_s}")
    if time_to_99_s == 0.0:
        return 0.0
    return float((1.0 - reached) ** (1.0 / time_to_99_s))


def approach_fraction(c: float, dt_s: float) -> float:
    """Fraction of the remaining distance to cover in a frame of ``dt_s`` seconds.

    Returns ``1 - c**dt_s``. Negative ``dt_s`` (a clock glitch) is treated as 0, so
    the value never moves away from its target.

    Args:
        c: Fraction of the distance left after one second, in ``[0, 1]``.
            ``0`` snaps instantly, ``1`` never moves.
        dt_s: Frame duration in seconds.

    Raises:
        ValueError: If ``c`` is outside ``[0, 1]``.
    """
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"c must be in [0, 1], got {c}")
    dt_s = max(dt_s, 0.0)
    if dt_s == 0.0 or c == 1.0:
        return 0.0
    if c == 0.0:
        return 1.0
    return -math.expm1(dt_s * math.log(c))


def exp_approach(current: float, target: float, c: float, dt_s: float) -> float:
    """Move ``current`` toward ``target`` for ``dt_s`` seconds, frame-rate independently.

    ``lerp(current, target, 1 - c**dt_s)``; see the module docstring for why two
    calls with ``dt`` equal one call with ``2 * dt``.

    Args:
        current: Value now.
        target: Value being approached (assumed constant during the frame).
        c: Fraction of the distance left after one second, in ``[0, 1]``
            (see :func:`remaining_fraction_per_s`).
        dt_s: Frame duration in seconds; negative is treated as 0.
    """
    return lerp(current, target, approach_fraction(c, dt_s))
