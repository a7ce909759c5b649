"""The simulated display: when a present returns and when its image is actually shown.

This is the reference monitor model of ``DESIGN.md`` §4 (seed 001's Monitor Simulator) plus the
cases the seed did not have:

* **vsync on**: a present waits for the next vblank (``offset + k / refresh``), then returns one
  wake-up noise sample later. The image is shown at that vblank.
* **vsync off**: a present costs ~1 µs plus a little noise and the image is shown at once (tearing).
* **VRR** (variable refresh): the panel refreshes as soon as a frame is presented, but no sooner than
  ``1 / refresh_hz`` after the previous refresh, so ``refresh_hz`` is the panel's maximum. A loop
  faster than the maximum sees a fixed refresh at the maximum; a slower one sees no refresh at all.
* **queue depth** ``N`` (vsync on): up to ``N - 1`` presented images may wait for their vblank
  (a swap chain with that many back buffers, "max pre-rendered frames"). A present returns at
  once (after ~1 µs) while fewer wait, and otherwise blocks until the vblank that shows the
  oldest waiting image and so frees a place, then wakes up one noise sample later. Every image
  flips at the first vblank after its present and after the previous image's, in order.
  ``N = 1`` is the model above: a present returns when its own image flips.
* **mailbox** (a compositor: DWM in a window, macOS, Wayland): a present never blocks; each
  vblank shows the newest image presented before it, and older images presented since the
  previous vblank are never shown. The simulation resolves which images were dropped
  afterwards (:func:`shown_images`).
* ``vsync_off_at``: from that game frame on, vsync behaves as off (a driver setting toggled);
  ``vsync_on_at``: vsync is off until that frame, then on.

Two wake-up noise models (:class:`NoiseModel`):

* ``uniform`` (the reference model): uniform in ±``noise_ns`` around the vblank.
* ``heavy`` (a busy desktop): the same uniform core, and in addition ``TAIL_FRACTION`` (1 %) of all
  wake-ups come ``TAIL_MIN_NS``–``TAIL_MAX_NS`` (2–8 ms) late: after a vblank, after a vsync-off
  present, and after the game loop's own sleeps (see :meth:`SimDisplay.sleep_lateness_ns`).
  The busy desktop's late wake-ups are *common random numbers*: whether the wake-up after vblank
  ``k`` (or the ``n``-th vsync-off present, or the ``n``-th sleep) comes late, and by how much,
  depends on the seed and ``k`` (or ``n``) only (:func:`keyed_uniform`), not on what the loop
  did before. Two policies run with one seed then meet the same late wake-ups, so what differs
  between them is what they do, not which of them the desktop happened to disturb more (with
  one random stream for everything, the first tick that one policy runs and the other does not
  shifts every later draw: ``auto`` and ``interpolated`` at 120 Hz repeated 52 and 46 images
  after late wake-ups, or 46 and 51, from seed to seed).

The display also says what refresh rate the OS would report for its screen mode
(:attr:`SimDisplay.reported_hz`): by default the refresh rounded to whole Hz, as a "60 Hz" mode that
runs at 59.94 Hz is reported; 0 for none (like a headless window).

All times are integer nanoseconds on the simulation's :class:`~engine.timing.ManualClock`.
"""

from __future__ import annotations

import random
from collections import deque
from enum import StrEnum
from fractions import Fraction

import numpy as np

from engine.timing import ManualClock
from engine.timing.clock import NS_PER_MS, NS_PER_S

#: The heavy-tailed model: this fraction of wake-ups is late by TAIL_MIN_NS to TAIL_MAX_NS.
TAIL_FRACTION = 0.01
TAIL_MIN_NS = 2 * NS_PER_MS
TAIL_MAX_NS = 8 * NS_PER_MS
#: A sleep wakes up to this much late in both models (the OS scheduler).
SLEEP_LATE_NS = 20_000
#: How much one copy varies by default, a fraction of it either way (a quiet machine's: see
#: ``SimDisplay``).
DEFAULT_PRESENT_JITTER = 0.25


_MASK64 = (1 << 64) - 1
#: The streams of :func:`keyed_uniform`.
VBLANK_STREAM, PRESENT_STREAM, SLEEP_STREAM, CORE_STREAM = 0, 1, 2, 3


def _mix64(value: int) -> int:
    """SplitMix64's finaliser: a well-mixed 64-bit integer from any 64-bit integer."""
    value = (value + 0x9E3779B97F4A7C15) & _MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK64
    return value ^ (value >> 31)


def keyed_uniform(seed: int, stream: int, index: int) -> float:
    """A uniform number in [0, 1) that depends only on ``(seed, stream, index)``."""
    return _mix64(_mix64((seed << 2 | stream) & _MASK64) ^ (index & _MASK64)) / 2.0**64


class NoiseModel(StrEnum):
    """How wake-ups are late (see the module docstring)."""

    UNIFORM = "uniform"
    HEAVY = "heavy"


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
        vsync_on_at: Game frame until which vsync is off, if any.
        noise_model: How wake-ups are late.
        reported_hz: The refresh rate the OS reports (``None``: the refresh rounded to whole Hz;
            0: nothing reported).
        present_ns: Work inside the present call itself, vsync or not (software GL copying the
            picture to an X server: about 4 ms at 1280x720 here).
        present_jitter: How much one copy varies: each is drawn uniformly within
            ``present_ns * (1 +- present_jitter)`` (0-1; the default, +-25 %, is a quiet
            machine's copy; with the other core busy, copies here range over a factor of 3-5).
        queue_depth: Images that may wait for their vblank, the present's included (1-3).
        mailbox: A compositor (see the module docstring); takes precedence over ``vsync``.
        seed: Key of the heavy model's late wake-ups (see the module docstring).
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
        vsync_on_at: int | None = None,
        noise_model: NoiseModel = NoiseModel.UNIFORM,
        reported_hz: float | None = None,
        present_ns: int = 0,
        present_jitter: float = DEFAULT_PRESENT_JITTER,
        queue_depth: int = 1,
        mailbox: bool = False,
        seed: int = 0,
    ) -> None:
        if not 1 <= queue_depth <= 3:
            raise ValueError(f"queue depth must be 1..3, got {queue_depth}")
        if not 0 <= present_jitter <= 1:
            raise ValueError(f"present jitter must be 0..1, got {present_jitter}")
        self.clock = clock
        self.queue_depth = queue_depth
        self.mailbox = mailbox
        # vblank times of presented images that have not flipped yet (queue depth > 1)
        self._waiting: deque[int] = deque()
        self.present_ns = present_ns
        self._copy_spread = 2 * present_jitter  # a draw in [-0.5, 0.5) times this
        self.rng = rng
        self.refresh_hz = Fraction(refresh_hz)
        self._num = self.refresh_hz.numerator
        self._den = self.refresh_hz.denominator
        self.vsync = vsync
        self.vrr = vrr
        self.noise_ns = noise_ns
        self.offset_ns = offset_ns
        self.vsync_off_at = vsync_off_at
        self.vsync_on_at = vsync_on_at
        self.heavy = NoiseModel(noise_model) is NoiseModel.HEAVY
        self.seed = seed
        self._presents = 0  # vsync-off presents so far (the key of their late wake-ups)
        self._sleeps = 0  # the loop's sleeps so far
        #: What the OS reports for the screen mode, or ``None`` when it reports nothing.
        self.reported_hz: float | None = (
            float(round(self.refresh_hz)) if reported_hz is None else reported_hz or None
        )
        #: Game frames in which a sleep of the loop woke up late by a tail event (hitches).
        self.late_sleeps: set[int] = set()
        self.min_interval_ns = int(NS_PER_S / self.refresh_hz)
        self._last_shown_ns: int | None = None
        self._last_index: int | None = None
        #: Game frame index of the current frame, set by the simulation.
        self.frame = 0
        #: The latest present's own work (the copy) in ns.
        self.copy_ns = 0

    @property
    def period_ns(self) -> float:
        """The vblank period in ns."""
        return NS_PER_S / float(self.refresh_hz)

    def vsync_now(self) -> bool:
        """Whether vsync is in effect for the current frame."""
        if not self.vsync or self.vrr:
            return False
        if self.vsync_on_at is not None and self.frame < self.vsync_on_at:
            return False
        return self.vsync_off_at is None or self.frame < self.vsync_off_at

    def vblank_after(self, t_ns: int) -> int:
        """Index of the first vblank strictly after ``t_ns``."""
        return ((t_ns - self.offset_ns) * self._num) // (NS_PER_S * self._den) + 1

    def vblanks_after(self, times_ns: np.ndarray) -> np.ndarray:
        """:meth:`vblank_after` of each of ``times_ns``, exact. The products overflow 64 bits
        for a rate drawn as any float (147.21004482764968 Hz is 120026974/815345: a minute of
        nanoseconds times that numerator is 7e18), so they are taken in Python integers."""
        exact = (times_ns.astype(object) - self.offset_ns) * self._num // (NS_PER_S * self._den)
        return (exact + 1).astype(np.int64)

    def vblank_spans_ns(self, counts: np.ndarray) -> np.ndarray:
        """The time ``counts`` whole refresh periods take, in ns, exact (as :meth:`present`
        places vblanks, in Python integers for the same reason as :meth:`vblanks_after`)."""
        return (counts.astype(object) * (NS_PER_S * self._den) // self._num).astype(np.int64)

    def _tail_ns(self, stream: int, index: int) -> int:
        """The heavy-tail lateness of wake-up ``index`` of ``stream`` (usually 0; always 0 in
        the uniform model)."""
        if not self.heavy:
            return 0
        draw = keyed_uniform(self.seed, stream, index)
        if draw < TAIL_FRACTION:  # late: by how much, from where the draw lies in the 1 %
            return TAIL_MIN_NS + round(draw / TAIL_FRACTION * (TAIL_MAX_NS - TAIL_MIN_NS))
        return 0

    def _present_tail_ns(self) -> int:
        self._presents += 1
        return self._tail_ns(PRESENT_STREAM, self._presents)

    def sleep_lateness_ns(self) -> int:
        """How late one of the loop's sleeps wakes up (the clock's ``wake_late_ns``)."""
        late = round(self.rng.random() * SLEEP_LATE_NS)
        if self.heavy:
            self._sleeps += 1
            tail = self._tail_ns(SLEEP_STREAM, self._sleeps)
            if tail:
                self.late_sleeps.add(self.frame)
                late += tail
        return late

    def present(self) -> tuple[int, int | None]:
        """Present a frame: advance the clock; return (time shown, vblank index or None)."""
        clock = self.clock
        if self.present_ns:  # the copy comes first; a vsync'd swap then waits for the vblank
            spread = (self.rng.random() - 0.5) * self.present_ns * self._copy_spread
            self.copy_ns = self.present_ns + round(spread)
            clock.advance(self.copy_ns)
        now = clock.now_ns()
        if self.mailbox and not self.vrr:
            # shown at the next vblank unless a newer image comes before it (see shown_images)
            k = self.vblank_after(now)
            self._last_shown_ns = self.offset_ns + (k * NS_PER_S * self._den) // self._num
            late = self._present_tail_ns()
            clock.advance(1_000 + round(self.rng.random() * self.noise_ns / 10) + late)
            return self._last_shown_ns, k
        if self.vsync_now():
            k = self.vblank_after(now)
            if self._last_index is not None and k <= self._last_index:
                k = self._last_index + 1  # one image per vblank, even after an early wake-up
            self._last_index = k
            vblank_ns = self.offset_ns + (k * NS_PER_S * self._den) // self._num
            self._last_shown_ns = vblank_ns
            waiting = self._waiting
            if self.queue_depth > 1:
                while waiting and waiting[0] <= now:
                    waiting.popleft()  # flipped already: its place is free
                waiting.append(vblank_ns)
                if len(waiting) < self.queue_depth:
                    clock.advance(1_000 + round(self.rng.random() * self.noise_ns / 10))
                    return vblank_ns, k
                vblank_ns = waiting[len(waiting) - self.queue_depth]  # frees a place
            if self.heavy:  # the wake-up after this vblank, whichever present waited for it
                key = vblank_ns - self.offset_ns
                draw = keyed_uniform(self.seed, CORE_STREAM, key)
                noise = round((2.0 * draw - 1.0) * self.noise_ns)
                noise += self._tail_ns(VBLANK_STREAM, key)
            else:
                noise = round((2.0 * self.rng.random() - 1.0) * self.noise_ns)
            clock.set(max(now, vblank_ns + noise))
            return self._last_shown_ns, k
        if self.vrr:
            shown_ns = now
            if self._last_shown_ns is not None:
                shown_ns = max(now, self._last_shown_ns + self.min_interval_ns)
            self._last_shown_ns = shown_ns
            late = 1_000 + round(self.rng.random() * self.noise_ns / 10)
            clock.set(shown_ns + late + self._present_tail_ns())
            return shown_ns, None
        self._last_shown_ns = now
        late = self._present_tail_ns()
        clock.advance(1_000 + round(self.rng.random() * self.noise_ns / 10) + late)
        return now, None


def shown_images(indices: list[int | None], mailbox: bool) -> list[bool]:
    """Which presents' images were ever on screen: all of them, except with ``mailbox`` those
    followed by a newer image before their vblank (the same vblank index)."""
    if not mailbox:
        return [True] * len(indices)
    return [
        i is None or j is None or i != j for i, j in zip(indices, [*indices[1:], None], strict=True)
    ]
