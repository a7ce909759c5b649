"""Time sources in integer nanoseconds.

Every timestamp in the timing core is an ``int`` of nanoseconds from an arbitrary origin. Two
clocks implement the same small protocol:

* :class:`RealClock` reads ``time.perf_counter_ns`` and sleeps for real. Its
  :meth:`~RealClock.sleep_until` sleeps most of the wait with the OS and spins only the last
  ``spin_ns`` (1 ms by default), because OS sleeps overshoot by up to a millisecond or more while a
  spin on a monotonic clock lands within microseconds.
* :class:`ManualClock` only moves when told to. Tests and the monitor simulator use it to play out
  any timeline exactly and deterministically, with optional wake-up lateness for sleeps.

Code that needs the time receives a clock; nothing reads a global clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000


class Clock(Protocol):
    """What the game loop needs from a time source."""

    def now_ns(self) -> int:
        """Return the current monotonic time in nanoseconds."""
        ...

    def sleep_until(self, deadline_ns: int) -> None:
        """Return no earlier than ``deadline_ns`` (immediately if it has passed)."""
        ...


class RealClock:
    """The machine's monotonic clock (``time.perf_counter_ns``).

    Args:
        spin_ns: The last part of every wait that is spun instead of slept, to absorb the OS
            sleep's overshoot. 1 ms is enough on desktop Linux, macOS and Windows with a 1 ms
            timer resolution.
    """

    __slots__ = ("spin_ns",)

    def __init__(self, spin_ns: int = NS_PER_MS) -> None:
        if spin_ns < 0:
            raise ValueError(f"spin_ns must be >= 0, got {spin_ns}")
        self.spin_ns = spin_ns

    def now_ns(self) -> int:
        """Return ``time.perf_counter_ns()``."""
        return time.perf_counter_ns()

    def sleep_until(self, deadline_ns: int) -> None:
        """Sleep to ``deadline_ns``: OS sleep for all but the last ``spin_ns``, then spin."""
        remaining_ns = deadline_ns - time.perf_counter_ns()
        if remaining_ns > self.spin_ns:
            time.sleep((remaining_ns - self.spin_ns) / NS_PER_S)
        while time.perf_counter_ns() < deadline_ns:
            pass


class ManualClock:
    """A clock that advances only when told to: deterministic time for tests and simulation.

    Args:
        start_ns: The initial reading.
        wake_late_ns: Optional function returning how late (ns, >= 0) each sleep wakes up, to model
            an OS scheduler. ``None`` wakes exactly on the deadline.
    """

    __slots__ = ("_now_ns", "wake_late_ns")

    def __init__(self, start_ns: int = 0, wake_late_ns: Callable[[], int] | None = None) -> None:
        self._now_ns = int(start_ns)
        self.wake_late_ns = wake_late_ns

    def now_ns(self) -> int:
        """Return the current reading."""
        return self._now_ns

    def advance(self, delta_ns: int) -> None:
        """Move time forward by ``delta_ns`` (negative deltas are ignored: time is monotonic)."""
        if delta_ns > 0:
            self._now_ns += int(delta_ns)

    def set(self, now_ns: int) -> None:
        """Jump to ``now_ns``; used by tests that replay arbitrary (even backwards) timelines."""
        self._now_ns = int(now_ns)

    def sleep_until(self, deadline_ns: int) -> None:
        """Jump to the deadline if it is in the future, plus the modelled wake-up lateness."""
        if deadline_ns > self._now_ns:
            self._now_ns = int(deadline_ns)
            if self.wake_late_ns is not None:
                self._now_ns += max(0, int(self.wake_late_ns()))
