"""A virtual display for headless runs: presents advance a virtual clock by one refresh.

With ``--headless`` the engine renders for real (arcade on an offscreen EGL context) but time is
virtual: every present moves a :class:`~engine.timing.ManualClock` to the next vblank of a
simulated ``display_hz`` display, however long the machine actually took. A run is then as fast as
the machine allows and gives the same ticks on a slow CI box as on a fast laptop, and a test can
reproduce a 144 Hz display or a one-second stall (advance the clock) exactly.

``--realtime`` keeps the 60/144 Hz vblank grid but waits for it in wall time on a real clock.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from engine.timing import Clock, ManualClock, TickRate
from engine.timing.clock import NS_PER_S


class VirtualDisplay:
    """Wraps a real ``flip()`` with a simulated vblank wait.

    Args:
        clock: The loop's clock (manual for virtual time, real for ``--realtime``).
        flip: The real present (``window.flip``).
        refresh_hz: The simulated refresh rate.
        vsync: Whether presents wait for the next vblank; without vsync, virtual time only moves
            when the loop's frame limiter sleeps.
    """

    def __init__(
        self, clock: Clock, flip: Callable[[], None], refresh_hz: float, *, vsync: bool = True
    ) -> None:
        self.clock = clock
        self._flip = flip
        self.refresh_hz: Fraction = TickRate.from_hz(refresh_hz).rate_hz  # exact; refuses <= 0
        self.vsync = vsync
        self._origin_ns = clock.now_ns()
        self._last_vblank = 0

    def present(self) -> None:
        """Flip, then wait for the next simulated vblank (if vsync)."""
        self._flip()
        if not self.vsync:
            return
        elapsed_ns = self.clock.now_ns() - self._origin_ns
        num, den = self.refresh_hz.numerator, self.refresh_hz.denominator
        vblank = max(self._last_vblank + 1, (elapsed_ns * num) // (NS_PER_S * den) + 1)
        self._last_vblank = vblank
        deadline_ns = self._origin_ns + (vblank * NS_PER_S * den) // num
        if isinstance(self.clock, ManualClock):
            self.clock.set(max(self.clock.now_ns(), deadline_ns))
        else:
            self.clock.sleep_until(deadline_ns)
