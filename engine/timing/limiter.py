"""Frame limiter for when vsync is off: present on an even grid of absolute deadlines.

Without vsync nothing stops a loop from spinning at hundreds of frames per second, burning a core
and presenting at irregular times. The limiter gives every frame a deadline to present at:

* **Absolute deadlines.** Deadline *k* is ``origin + k * interval``, computed exactly from integers,
  not ``previous_wake + interval``. Sleeping to "now + interval" would add every frame's wake-up
  lateness to the next frame (phase creep); absolute deadlines forget it.
* **Sleep, then spin.** :meth:`engine.timing.clock.RealClock.sleep_until` sleeps all but the last
  millisecond and spins the rest, so presents land within microseconds of their deadline.
* **Planned at the frame's start** (:meth:`FrameLimiter.plan`, what the game loop uses): the
  deadline is fixed before the frame's work, from an estimate of how long the work takes, so the
  frame can be rendered for the moment it will be shown. A frame whose work cannot make the next
  deadline is presented as soon as it is ready, and the grid restarts there: a hitch never causes
  a burst of catch-up frames, and a machine slower than the target presents as fast as it can (a
  variable-refresh panel then refreshes at the rate the game renders).
* **Adaptive interval** (seed 000, :meth:`FrameLimiter.deadline`, decided after the work; kept for
  the ``adaptive_interval`` baseline of the monitor simulator): when a frame's work overruns the
  interval, the interval grows to 1.2 x the work, a rate the machine can hold, instead of
  presenting late, early, late; while there is slack it shrinks back slowly (by
  ``shrink_fraction`` of the excess per frame) towards the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.timing.clock import NS_PER_S


@dataclass(frozen=True, slots=True)
class LimiterSettings:
    """Tuning of the frame limiter.

    Attributes:
        grow_factor: New interval as a multiple of an overrunning frame's work time (seed 000: 1.2).
        shrink_fraction: Fraction of the excess over the target removed per frame with slack.
        slack_fraction: A frame has slack when its work took less than this part of the interval.
        adaptive: Whether the interval adapts at all.
    """

    grow_factor: float = 1.2
    shrink_fraction: float = 0.02
    slack_fraction: float = 0.8
    adaptive: bool = True


class FrameLimiter:
    """Hands out present deadlines on an even grid at ``target_hz``.

    Args:
        target_hz: Presents per second to aim for (exact fraction; e.g. the tick rate).
        settings: Adaptation tuning.
    """

    __slots__ = ("_index", "_origin_ns", "interval_ns", "settings", "target_hz")

    def __init__(self, target_hz: Fraction, settings: LimiterSettings | None = None) -> None:
        self.settings = settings or LimiterSettings()
        self.target_hz = Fraction(0)
        #: Current interval between presents, exact (grows and shrinks when adaptive).
        self.interval_ns = Fraction(0)
        self._origin_ns: int | None = None
        self._index = 0
        self.retarget(target_hz)

    @property
    def target_interval_ns(self) -> Fraction:
        """The interval at the target rate."""
        return NS_PER_S / self.target_hz

    def retarget(self, target_hz: Fraction) -> None:
        """Aim for ``target_hz`` from the next frame on (the display's mode changed)."""
        if target_hz <= 0:
            raise ValueError(f"limiter target must be > 0 Hz, got {target_hz}")
        self.target_hz = Fraction(target_hz)
        self.interval_ns = NS_PER_S / self.target_hz
        self.reset()

    def reset(self) -> None:
        """Forget the grid; the next frame starts a new one (after a resync or a mode change)."""
        self._origin_ns = None
        self._index = 0

    def plan(self, frame_start_ns: int, ready_ns: int) -> tuple[int, bool]:
        """Fix the current frame's deadline at its start, for work expected to end at ``ready_ns``.

        Args:
            frame_start_ns: When this frame's work begins (the previous present).
            ready_ns: When the work is expected to be done.

        Returns:
            ``(deadline_ns, on_grid)``: the next deadline of the grid at :attr:`interval_ns`, or
            ``(ready_ns, False)`` when the work cannot make it (the grid then restarts there).
        """
        if self._origin_ns is None:
            self._origin_ns = frame_start_ns
            self._index = 0
        self._index += 1
        interval = self.interval_ns  # exact: integer arithmetic, no Fraction per frame
        deadline_ns = self._origin_ns + self._index * interval.numerator // interval.denominator
        if deadline_ns < ready_ns:
            self._origin_ns = ready_ns
            self._index = 0
            return ready_ns, False
        return deadline_ns, True

    def deadline(self, frame_start_ns: int, now_ns: int) -> int:
        """Return the deadline to present the current frame at, decided after its work (seed 000).

        Args:
            frame_start_ns: When this frame's work began (the previous present).
            now_ns: The time now, with the frame's updates and render done.
        """
        if self._origin_ns is None:
            self._origin_ns = frame_start_ns
            self._index = 0
        work_ns = max(0, now_ns - frame_start_ns)
        self._adapt(work_ns)
        self._index += 1
        deadline_ns = self._origin_ns + int(self._index * self.interval_ns)
        if deadline_ns < now_ns:
            # Overrun: present now and restart the grid here; never catch up with a burst.
            self._origin_ns = now_ns
            self._index = 0
            deadline_ns = now_ns
        return deadline_ns

    def _adapt(self, work_ns: int) -> None:
        settings = self.settings
        if not settings.adaptive:
            return
        target = self.target_interval_ns
        if work_ns > self.interval_ns:
            self._regrid(Fraction(round(work_ns * settings.grow_factor)))
        elif self.interval_ns > target and work_ns < self.interval_ns * Fraction(
            settings.slack_fraction
        ):
            excess_ns = float(self.interval_ns - target)
            shrunk = Fraction(round(float(self.interval_ns) - excess_ns * settings.shrink_fraction))
            if shrunk - target < 10_000:  # within 10 µs: snap back to the exact target grid
                shrunk = target
            self._regrid(shrunk)

    def _regrid(self, interval_ns: Fraction) -> None:
        """Change the interval, keeping the current deadline as the new grid's origin."""
        if self._origin_ns is not None:
            self._origin_ns += int(self._index * self.interval_ns)
        self._index = 0
        self.interval_ns = interval_ns
