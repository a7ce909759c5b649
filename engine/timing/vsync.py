"""Vsync detection from present timestamps: is presentation locked to a display refresh, and at what rate?

No OS call says whether vsync is really on: the application may ask for it and the driver may ignore
the request. What the game *can* see is when each ``flip()`` returns. The detector looks at two facts
about those timestamps:

1. **Blocking.** With vsync on, a present waits for the next vblank, so the time spent inside the
   present call (``block_ns``) is noticeably above zero on most frames; with vsync off (or a
   variable-refresh panel below its maximum rate) it returns at once.
2. **A vblank grid.** With vsync on, presents land on a grid ``t = phase + period * n`` plus a little
   wake-up noise, where ``n`` counts vblanks. The detector assigns each present its vblank index
   (``n`` grows by ``round(interval / period)``, so frames that miss a vblank are fine) and fits the
   line by least squares over a sliding window. The sums are exact integers, so the fit never drifts.
   The slope is the refresh period, known to a few nanoseconds after a couple of seconds, which tells
   59.94 Hz from 60 Hz. The fitted line also gives each present's *noise-free* time
   (:attr:`PresentEstimate.smooth_ns`) and the exact number of vblanks between presents
   (:attr:`PresentEstimate.vblanks`): the pacing policies use these instead of the noisy raw times.

Each frame votes "vsync on" when its present blocked *and* landed on the grid (a present can block
for other reasons: a software renderer's swap copies pixels for milliseconds); without a blocking
measurement, the grid alone decides. The verdict flips only when a large majority of the last
``vote_window_frames`` votes disagree with it (hysteresis), so one slow frame never flips it and a
real switch is noticed within a window.

A loop whose every frame takes two vblanks cannot, from timestamps, be told from a display at half
the rate. The game loop therefore *probes* at start-up: a few present-only frames (no render) run at
the display's own rate, and are fed here with ``probe=True``: they train the grid but cast no vote.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from engine.timing.clock import NS_PER_S


@dataclass(frozen=True, slots=True)
class VsyncSettings:
    """Tuning of the detector; the defaults suit 20–1000 Hz displays.

    Attributes:
        vote_window_frames: How many recent frames vote.
        decide_after_frames: Votes needed for the first verdict.
        flip_fraction: Fraction of the window that must disagree with the verdict to flip it.
        block_on_ns: A present that blocked at least this long votes "vsync on".
        min_refresh_hz: Slowest refresh considered a display refresh.
        max_refresh_hz: Fastest refresh considered a display refresh.
        grid_window_frames: Presents kept for the least-squares grid fit.
        grid_tolerance: Largest distance from the grid, as a fraction of the period, for a present
            to count as on the grid.
        grid_reset_misses: Off-grid presents among the last ``2 * grid_reset_misses`` after which the
            grid is rebuilt (so a grid locked onto a wrong multiple of the period, which still
            catches every few presents, does not survive).
    """

    vote_window_frames: int = 30
    decide_after_frames: int = 16
    flip_fraction: float = 0.8
    block_on_ns: int = 200_000
    min_refresh_hz: float = 20.0
    max_refresh_hz: float = 1000.0
    grid_window_frames: int = 240
    grid_tolerance: float = 0.1
    grid_reset_misses: int = 8


class PresentEstimate(NamedTuple):
    """What the detector knows about one present.

    Attributes:
        present_ns: The raw timestamp taken after the present returned.
        smooth_ns: The present's time on the fitted vblank grid (noise removed), or ``None`` when
            the present is not on an established grid.
        vblanks: Vblank periods since the previous present when both lie on the grid, else ``None``.
    """

    present_ns: int
    smooth_ns: int | None
    vblanks: int | None


class _VblankGrid:
    """Least-squares fit of ``t = phase + period * n`` over a sliding window, in exact integers."""

    __slots__ = (
        "_miss_count",
        "_misses",
        "_n",
        "_origin_ns",
        "_phase_ns",
        "_points",
        "_recent",
        "_s",
        "period_ns",
        "settings",
    )

    def __init__(self, settings: VsyncSettings) -> None:
        self.settings = settings
        self._recent: deque[int] = deque(maxlen=9)
        self._points: deque[tuple[int, int]] = deque()
        self._s = [0, 0, 0, 0, 0]  # count, sum n, sum t, sum n*n, sum n*t
        self.period_ns: float | None = None
        self._phase_ns = 0.0
        self._origin_ns = 0
        self._n = 0
        self._misses: deque[bool] = deque(maxlen=2 * settings.grid_reset_misses)  # True = on grid
        self._miss_count = 0

    def reset(self) -> None:
        self._points.clear()
        self._s = [0, 0, 0, 0, 0]
        self.period_ns = None
        self._misses.clear()
        self._miss_count = 0

    def restart(self) -> None:
        """Forget the grid and the recent presents: build a new grid from what comes next."""
        self._recent.clear()
        self.reset()

    def _add_point(self, n: int, t_rel: int) -> None:
        s = self._s
        s[0] += 1
        s[1] += n
        s[2] += t_rel
        s[3] += n * n
        s[4] += n * t_rel
        self._points.append((n, t_rel))
        if len(self._points) > self.settings.grid_window_frames:
            old_n, old_t = self._points.popleft()
            s[0] -= 1
            s[1] -= old_n
            s[2] -= old_t
            s[3] -= old_n * old_n
            s[4] -= old_n * old_t
        count, sn, st, snn, snt = s
        det = count * snn - sn * sn
        if det > 0:
            self.period_ns = (count * snt - sn * st) / det
            self._phase_ns = (st - self.period_ns * sn) / count

    def _try_establish(self) -> bool:
        """Start a grid from the recent presents if their intervals agree on one period."""
        recent = self._recent
        if len(recent) < (recent.maxlen or 0):
            return False
        intervals = sorted(b - a for a, b in zip(recent, list(recent)[1:], strict=False))
        period = intervals[len(intervals) // 2]
        lo = NS_PER_S / self.settings.max_refresh_hz
        hi = NS_PER_S / self.settings.min_refresh_hz
        if not lo <= period <= hi:
            return False
        tolerance = period * self.settings.grid_tolerance
        for interval in intervals:
            k = round(interval / period)
            if k < 1 or abs(interval - k * period) > tolerance:
                return False
        self.reset()
        self._origin_ns = recent[0]
        n = 0
        previous = recent[0]
        self._add_point(0, 0)
        for t in list(recent)[1:]:
            n += round((t - previous) / period)
            previous = t
            self._add_point(n, t - self._origin_ns)
        self._n = n
        return True

    def remember(self, present_ns: int) -> None:
        """Keep ``present_ns`` among the recent presents without fitting (the grid is dropped)."""
        self._recent.append(present_ns)
        if self.period_ns is not None:
            self.reset()

    def add(self, present_ns: int) -> tuple[int | None, int | None]:
        """Place a present on the grid; return (smooth_ns, vblanks) or (None, None) if off-grid."""
        self._recent.append(present_ns)
        if self.period_ns is None:
            if not self._try_establish():
                return None, None
            return self._smooth(self._n), None
        period = self.period_ns
        vblanks = round((present_ns - self._origin_ns - self._predict(self._n)) / period)
        n = self._n + vblanks
        residual = present_ns - self._origin_ns - self._predict(n)
        # Two presents on one vblank cannot happen with vsync: such a present is off the grid.
        hit = vblanks >= 1 and abs(residual) <= period * self.settings.grid_tolerance
        misses = self._misses
        if len(misses) == misses.maxlen and not misses[0]:
            self._miss_count -= 1
        misses.append(hit)
        if not hit:
            self._miss_count += 1
            if self._miss_count >= self.settings.grid_reset_misses:
                self.reset()
            return None, None
        self._n = n
        self._add_point(n, present_ns - self._origin_ns)
        return self._smooth(n), vblanks

    def _predict(self, n: int) -> float:
        assert self.period_ns is not None
        return self._phase_ns + self.period_ns * n

    def _smooth(self, n: int) -> int:
        return self._origin_ns + round(self._predict(n))


class VsyncDetector:
    """Decides vsync on/off and estimates the refresh rate from present timestamps alone.

    Feed every present with :meth:`observe`. Read :attr:`verdict` (``None`` until enough frames have
    been seen, then ``True``/``False``) and :attr:`refresh_hz`.
    """

    __slots__ = ("_grid", "_last_blocked", "_on_votes", "_votes", "frames", "settings", "verdict")

    def __init__(self, settings: VsyncSettings | None = None) -> None:
        self.settings = settings or VsyncSettings()
        self._grid = _VblankGrid(self.settings)
        self._votes: deque[bool] = deque(maxlen=self.settings.vote_window_frames)
        self._on_votes = 0
        self.verdict: bool | None = None
        self.frames = 0
        self._last_blocked = True

    @property
    def refresh_hz(self) -> float | None:
        """Estimated refresh rate while vsync is judged on, else ``None``."""
        period = self._grid.period_ns
        if self.verdict is not True or period is None or period <= 0:
            return None
        return NS_PER_S / period

    @property
    def period_ns(self) -> float | None:
        """Fitted vblank period in ns, or ``None`` without an established grid."""
        return self._grid.period_ns

    def observe(
        self, present_ns: int, block_ns: int | None = None, *, probe: bool = False
    ) -> PresentEstimate:
        """Record one present.

        Args:
            present_ns: Timestamp taken right after the present call returned.
            block_ns: Time spent inside the present call, if measured.
            probe: True for the loop's start-up present-only frames: they train the period
                estimate but do not vote.

        Returns:
            The present's place on the vblank grid, if any.
        """
        blocked = block_ns is None or block_ns >= self.settings.block_on_ns
        if self.verdict is False and blocked and not self._last_blocked:
            self._grid.restart()  # presents wait again: fit them alone, not the free-running ones
        self._last_blocked = blocked
        if self.verdict is False and not probe and not blocked:
            # Vsync off and this present did not wait: nothing to fit. Only remember it, so the
            # grid can be rebuilt at once when presents start waiting for vblanks again.
            self._grid.remember(present_ns)
            smooth_ns = vblanks = None
        else:
            smooth_ns, vblanks = self._grid.add(present_ns)
        if not probe:
            self.frames += 1
            # On the vblank grid, and (when measured) held up by the present: a present that blocks
            # off the grid is waiting on something else, e.g. a software swap copying pixels.
            vote = smooth_ns is not None and blocked
            self._vote(vote)
        return PresentEstimate(present_ns, smooth_ns, vblanks)

    def _vote(self, vote: bool) -> None:
        votes = self._votes
        if len(votes) == votes.maxlen and votes[0]:
            self._on_votes -= 1
        votes.append(vote)
        if vote:
            self._on_votes += 1
        on, total = self._on_votes, len(votes)
        if self.verdict is None:
            if total >= self.settings.decide_after_frames:
                self.verdict = on * 2 >= total
            return
        needed = self.settings.flip_fraction * (votes.maxlen or 0)
        if self.verdict and total - on >= needed:
            self.verdict = False
        elif not self.verdict and on >= needed:
            self.verdict = True
