"""The simulated display: when a present returns and when its image is actually shown.

This is the reference monitor model of ``DESIGN.md`` §4 (seed 001's Monitor Simulator) plus the
cases the seed did not have:

* **vsync on**: a present waits for the next vblank (``offset + k / refresh``), then returns one
  wake-up noise sample later (uniform in ±``noise_ns``). The image is shown at that vblank.
* **vsync off**: a present costs ~1 µs plus a little noise and the image is shown at once (tearing).
* **VRR** (variable refresh): the panel refreshes as soon as a frame is presented, but no sooner than
  ``1 / refresh_hz`` after the previous refresh, so ``refresh_hz`` is the panel's maximum. A loop
  faster than the maximum sees a fixed refresh at the maximum; a slower one sees no refresh at all.
* ``vsync_off_at``: from that game frame on, vsync behaves as off (a driver setting toggled).

All times are integer nanoseconds on the simulation's :class:`~engine.timing.ManualClock`.
"""

from __future__ import annotations

import random
from fractions import Fraction

from engine.timing import ManualClock
from engine.timing.clock import NS_PER_S


class SimDisplay:
    """A display the simulated loop presents to.

    Args:
        clock: The simulation clock; presents advance it.
        rng: Random source for noise.
        refresh_hz: Refresh rate (maximum rate with VRR).
        vsync: Whether presents wait for the vblank.
        vrr: Variable refresh instead of a fixed one.
        noise_ns: Half-range of the uniform wake-up noise after a vblank.
        offset_ns: Time of vblank 0 (the phase of the vblank grid).
        vsync_off_at: Game frame from which vsync is off, if any.
    """

    def __init__(
        self,
        clock: ManualClock,
        rng: random.Random,
        refresh_hz: Fraction,
        *,
        vsync: bool = True,
        vrr: bool = False,
        noise_ns: int = 83_333,
        offset_ns: int = 0,
        vsync_off_at: int | None = None,
    ) -> None:
        self.clock = clock
        self.rng = rng
        self.refresh_hz = Fraction(refresh_hz)
        self._num = self.refresh_hz.numerator
        self._den = self.refresh_hz.denominator
        self.vsync = vsync
        self.vrr = vrr
        self.noise_ns = noise_ns
        self.offset_ns = offset_ns
        self.vsync_off_at = vsync_off_at
        self.min_interval_ns = int(NS_PER_S / self.refresh_hz)
        self._last_shown_ns: int | None = None
        self._last_index: int | None = None
        #: Game frame index of the current frame, set by the simulation.
        self.frame = 0

    @property
    def period_ns(self) -> float:
        """The vblank period in ns."""
        return NS_PER_S / float(self.refresh_hz)

    def vsync_now(self) -> bool:
        """Whether vsync is in effect for the current frame."""
        if not self.vsync or self.vrr:
            return False
        return self.vsync_off_at is None or self.frame < self.vsync_off_at

    def present(self) -> tuple[int, int | None]:
        """Present a frame: advance the clock; return (time shown, vblank index or None)."""
        clock = self.clock
        now = clock.now_ns()
        if self.vsync_now():
            # next vblank strictly after now: k = floor((now - offset) * hz / 1e9) + 1
            k = ((now - self.offset_ns) * self._num) // (NS_PER_S * self._den) + 1
            if self._last_index is not None and k <= self._last_index:
                k = self._last_index + 1  # one image per vblank, even after an early wake-up
            self._last_index = k
            vblank_ns = self.offset_ns + (k * NS_PER_S * self._den) // self._num
            noise = round((2.0 * self.rng.random() - 1.0) * self.noise_ns)
            clock.set(max(now, vblank_ns + noise))
            self._last_shown_ns = vblank_ns
            return vblank_ns, k
        if self.vrr:
            shown_ns = now
            if self._last_shown_ns is not None:
                shown_ns = max(now, self._last_shown_ns + self.min_interval_ns)
            self._last_shown_ns = shown_ns
            clock.set(shown_ns + 1_000 + round(self.rng.random() * self.noise_ns / 10))
            return shown_ns, None
        self._last_shown_ns = now
        clock.advance(1_000 + round(self.rng.random() * self.noise_ns / 10))
        return now, None
