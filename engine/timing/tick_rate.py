"""Exact fixed-step arithmetic: a tick rate as a rational number and time in integer units.

A 60 Hz tick lasts 16,666,666.6… ns, which no integer nanosecond count or binary float holds
exactly. Summing ``1/60`` in floats makes a millisecond display wrong on 38,545 of the 216,000
ticks of the first hour. So the timing core never sums floats. Instead:

* The rate is a :class:`fractions.Fraction` ``num/den`` Hz (``60`` is ``60/1``; ``59.94`` is
  ``2997/50``).
* Time is counted in *units* of ``1/num`` ns, so that one tick is exactly
  ``1e9 * den`` units and one nanosecond is exactly ``num`` units. Converting a frame delta from
  nanoseconds to units is an integer multiplication; counting ticks is an integer division.

Feeding exactly 3600 s of frame time at 60 Hz therefore gives exactly 216,000 ticks, and the game
time of tick N is exactly ``N * den / num`` seconds, printable to any number of digits with integer
division (:meth:`TickRate.tick_time_ns`, :meth:`TickRate.tick_time_ms`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from engine.timing.clock import NS_PER_S

#: Refuse absurd denominators (e.g. from a float like 59.940000000000005).
_MAX_DENOMINATOR = 1_000_000


@dataclass(frozen=True, slots=True)
class TickRate:
    """A tick rate in Hz held as an exact fraction.

    Attributes:
        rate_hz: Ticks per second, exact.
    """

    rate_hz: Fraction

    def __post_init__(self) -> None:
        if self.rate_hz <= 0:
            raise ValueError(f"tick rate must be > 0 Hz, got {self.rate_hz}")

    @classmethod
    def from_hz(cls, rate_hz: int | float | str | Fraction | Decimal) -> TickRate:
        """Build from a number of Hz; a float is read by its shortest decimal (59.94 -> 2997/50)."""
        if isinstance(rate_hz, bool):
            raise TypeError("tick rate must be a number, not a bool")
        exact = Fraction(repr(rate_hz)) if isinstance(rate_hz, float) else Fraction(rate_hz)
        return cls(exact.limit_denominator(_MAX_DENOMINATOR))

    @property
    def units_per_ns(self) -> int:
        """Units in one nanosecond (the rate's numerator)."""
        return self.rate_hz.numerator

    @property
    def step_units(self) -> int:
        """Units in one tick (``1e9 * denominator``)."""
        return NS_PER_S * self.rate_hz.denominator

    @property
    def step_ns(self) -> Fraction:
        """One tick in nanoseconds, exact."""
        return Fraction(NS_PER_S) / self.rate_hz

    @property
    def step_s(self) -> float:
        """One tick in seconds, rounded to a float (for physics step sizes, not for accounting)."""
        return float(1 / self.rate_hz)

    def ns_to_units(self, ns: int) -> int:
        """Convert a duration in whole nanoseconds to units, exactly."""
        return ns * self.rate_hz.numerator

    def units_to_ns(self, units: int) -> int:
        """Convert units to whole nanoseconds, rounding toward negative infinity."""
        return units // self.rate_hz.numerator

    def ticks_in_ns(self, ns: int) -> int:
        """How many whole ticks fit in ``ns`` nanoseconds."""
        return self.ns_to_units(ns) // self.step_units

    def tick_time_ns(self, ticks: int) -> int:
        """Game time at the end of ``ticks`` ticks, in whole ns (floored, exact otherwise)."""
        return (ticks * self.step_units) // self.rate_hz.numerator

    def tick_time_ms(self, ticks: int) -> int:
        """Game time of ``ticks`` ticks in whole milliseconds, floored: what a timer displays."""
        return (ticks * 1000 * self.rate_hz.denominator) // self.rate_hz.numerator

    def tick_time_s(self, ticks: int) -> Fraction:
        """Game time of ``ticks`` ticks in seconds, exact."""
        return ticks / self.rate_hz

    def __str__(self) -> str:
        if self.rate_hz.denominator == 1:
            return f"{self.rate_hz.numerator} Hz"
        return f"{float(self.rate_hz):g} Hz ({self.rate_hz})"
