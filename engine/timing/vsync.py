"""Vsync detection from present timestamps: is presentation locked to a display refresh, and at what rate?

No OS call says whether vsync is really on: the application may ask for it and the driver may ignore
the request. What the game *can* see is when each ``flip()`` is called and when it returns. The
detector uses three signals:

1. **Blocking.** With vsync on, a present waits for a vblank, so the time spent inside the present
   call (``block_ns``) is noticeably above zero; with vsync off (or a variable-refresh panel below
   its maximum rate) it returns at once. This is the signal that survives noise: a present that
   returns 2 ms late still blocked.
2. **A vblank grid.** With vsync on, the images flip on a grid ``t = phase + period * n``. The call
   and the return of a present bracket its vblank: the image cannot flip before the present was
   called, so a present shows at the *first grid vblank after the call*. The detector places every
   present that way (not at the grid line nearest its noisy return time, which a 2 ms late wake-up
   would move to the wrong vblank). Over a sliding window it takes the phase from the *midrange*
   of the returns (for noise bounded on both sides that error shrinks as ``1/N``, and it stays right
   when the early returns of presents called just before their vblank are missing, as they are:
   such a present returns at once) and a measured period from least squares in exact integers.
   Returns far from their vblank (a busy desktop woke the loop late) are not fitted, but the
   present keeps its vblank. The grid gives each present's *noise-free* time
   (:attr:`PresentEstimate.smooth_ns`), the vblanks between presents, and the next vblanks to come
   (:meth:`VsyncDetector.vblank_after`), which the game loop plans its frames on.
3. **The nominal refresh rate** the OS reports for the screen mode (:attr:`VsyncDetector.nominal_hz`),
   as a prior that the timestamps must *confirm*: a grid starts on the nominal period when the
   presents' intervals are whole numbers of it (exactly one for presents called back to back, like
   the start-up probes), and keeps it until the least-squares period of the presents refutes it
   by ``prior_sigmas`` standard errors (a grid starts on it only when the presents' own period
   agrees within ``establish_sigmas``, so a display a little off its nominal rate is measured).
   Once the timestamps pin the rate to ``refresh_precision_hz`` on their own,
   :attr:`VsyncDetector.refresh_hz` reports the measured rate. A "60 Hz" mode that
   really presents at 59.94 Hz is measured within 150 presents even with ±2 ms of noise; a wrong
   prior (the OS says 60, the panel runs 144) is never used: the presents do not land on its grid.
   The prior matters at high refresh rates with noisy timestamps: at 240 Hz with ±2 ms of wake-up
   noise, 150 presents pin the period only to ±0.1 Hz, but confirm 240 Hz. The wake-up noise the
   detector tolerates (``noise_allowance_ns``) applies only on a grid the prior vouches for;
   without one, presents must land within a tenth of a period of the grid, as before.

4. **The present's own cost.** A present may do work before it waits (software GL copies the
   picture inside ``flip()``): its duration is then no proof of a wait. The detector learns that
   cost from which vblank each image flips at (:meth:`VsyncDetector._learn_cost`), places each
   present at the first vblank after its call *plus* the cost, and counts as blocking only the
   time beyond it; while the limiter paces, a check is judged against the paced presents'
   durations (same duration: it did not wait).

**Votes.** Each present votes "vsync on" when it blocked *and* returned close enough to its vblank
(within the wake-up noise the detector tolerates, ``noise_allowance_ns``; a present can block for
other reasons: a software renderer's swap copies pixels for milliseconds, off any grid). It votes
"off" when it did not block, or returned implausibly far before its vblank. Presents that cannot
tell abstain: one that returned late (a late wake-up); one called so close to its vblank on the
grid that even vsync would have held it only a moment; and one that the frame limiter *paced*
(the limiter's grid may sit just before each vblank, and a paced present is on the limiter's grid
whatever the display does). Without a blocking measurement, the grid alone decides. The verdict
flips only when a large majority of the recent votes (the last ``vote_window_frames``, none older
than ``vote_max_age_ns``) disagree with it, so one slow frame never flips it, and a vsync switch is
noticed within a window. While the limiter paces, the game loop sends an unpaced *check* present
every so often (see :mod:`engine.timing.present_plan`): it votes, so a wrong "off" is undone.

A loop whose every frame takes two vblanks cannot, from timestamps, be told from a display at half
the rate. The game loop therefore *probes* at start-up: a few present-only frames (no render) run at
the display's own rate, and are fed here with ``probe=True``: they train the grid but cast no vote.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

from engine.timing.clock import NS_PER_S

#: A present called less than this after the previous one returned was called "back to back".
IMMEDIATE_NS = 500_000
#: Presents needed before a grid is looked for (blocked presents abstain until then).
ESTABLISH_PRESENTS = 9
#: Recent presents a grid is looked for in (the strict test uses the last 16 of them).
RECENT_PRESENTS = 30
#: Presents a grid must be seen to hold over before it is believed without a reported rate
#: to vouch for it (see ``_wanders``).
STEADY_PRESENTS = RECENT_PRESENTS
#: Fresh returns a grid started while judged off must be seen not to wander off before its
#: votes count (see ``VsyncDetector._try_grid``): a loop copying 5.3 +- 1.3 ms without vsync
#: after 5 ms of work stayed near a line over 1.25 % of windows of 30 (4,000 tried), over
#: 0.1 % of 45 and none of 60.
TRIAL_PRESENTS = 2 * STEADY_PRESENTS
#: Start-up probes that waited, after those that returned at once, needed to tell a swap
#: chain that holds images (see :attr:`VsyncDetector.queue_offset`).
QUEUE_PROBES = 8
#: No present copies for more than this many times what the quickest start-up probe took in
#: all (copies vary: +-25 % in the simulator): the bound on a copy (see ``_may_be_copy``).
LONGEST_COPY_PROBES = 2
#: Presents a grid is tested on to tell a wait for a vblank from the present's own work, and
#: needed before a grid is started with a tolerance of more than a quarter period.
PINNED_PRESENTS = 24
#: Intervals longer than this many median ones are gaps, not tested for a common period (see
#: ``_VblankGrid._common_period``).
GAP_INTERVALS = 8
#: A grid starts with at most one in this many of its presents left out as late wake-ups
#: (at least one; see ``_late_strays``).
STRAY_FRACTION = 8
#: Returns scattered around their vblanks more than this many times their durations' spread
#: were not pinned to the vblanks (see ``_VblankGrid._unpinned``).
UNPINNED_RATIO = 1.25
#: Returns whose spread around their fitted line is more than this many times the largest step
#: between consecutive ones drift like a free-running loop's, not around a vblank grid ...
WANDER_RATIO = 1.5
#: ... as do returns whose von Neumann ratio (the mean squared step between consecutive
#: residuals over their mean square) is below this (independent noise: about 2).
WANDER_VON_NEUMANN = 1.3
#: The most a grid seen not to wander tolerates, in periods: its returns may spread over twice
#: that when it starts (beyond, a return is as near the neighbouring vblank as its own) ...
STEADY_MOST = 0.375
#: ... and since, this many times its noise bound (a quarter period at least).
STEADY_MARGIN = 1.25
#: Unpaced presents needed to test whether durations follow the calls (see
#: ``_VblankGrid._follows_calls``) ...
FOLLOW_PRESENTS = 20
#: ... which they do when the duration grows, by two standard errors, by less than this per
#: ns of wait the trial grid predicts: the least a present that waits shows (1, or 0.5 where
#: early wake-ups of presents called just before their vblank return at once and are not
#: seen; one doing its own work: 0).
FOLLOW_SLOPE = 0.5
#: ... and that lies within two standard errors and this of flat.
FOLLOW_FLAT = 0.1


@dataclass(frozen=True, slots=True)
class VsyncSettings:
    """Tuning of the detector; the defaults suit 20–1000 Hz displays.

    Attributes:
        vote_window_frames: How many recent votes count.
        vote_max_age_ns: Votes older than this (in present time) no longer count.
        decide_after_frames: Votes needed for the first verdict.
        flip_fraction: Fraction of the counted votes that must disagree with the verdict to flip it.
        min_flip_votes: Disagreeing votes needed to flip, however few votes there are.
        block_on_ns: A present that blocked at least this long counts as blocked.
        min_refresh_hz: Slowest refresh considered a display refresh.
        max_refresh_hz: Fastest refresh considered a display refresh.
        grid_window_frames: Presents kept for the least-squares grid fit.
        grid_tolerance: Distance from the grid, as a fraction of the period, within which a present
            counts as on the grid when its blocking was not measured.
        noise_allowance_ns: Wake-up noise tolerated around the grid for a present that blocked
            (capped at half a period: beyond that every return is near *some* vblank).
        grid_reset_misses: Presents off the grid among the last ``2 * grid_reset_misses`` after
            which the grid is rebuilt (the display changed, or the grid locked onto a wrong
            multiple of the period).
        prior_sigmas: The nominal period is refuted when the measured one is more than this many
            standard errors from it (see ``_VblankGrid._check_prior``).
        refresh_precision_hz: The measured period replaces the nominal one once it pins the
            refresh rate this closely (three standard errors).
        establish_sigmas: A grid starts on the nominal period only when the presents' own
            least-squares period is within this many standard errors of it. Stricter than
            ``prior_sigmas``: a grid on a wrong period re-places the presents that drift off it
            on the wrong vblanks, which hides the evidence against it; starting on the measured
            period costs nothing (the nominal rate still vouches for the noise allowance).
        cost_window_frames: Presents kept to learn the present call's own cost (see
            :attr:`VsyncDetector.present_cost_ns`) and the paced presents' durations.
        prior_vouch_fraction: A grid whose period is within this fraction of the nominal one is
            a real display near its reported rate (OSes round, panels run a little off): its
            presents that blocked get the wake-up noise allowance, as on the nominal period.
    """

    vote_window_frames: int = 30
    vote_max_age_ns: int = 750_000_000
    decide_after_frames: int = 16
    flip_fraction: float = 0.8
    min_flip_votes: int = 8
    block_on_ns: int = 200_000
    min_refresh_hz: float = 20.0
    max_refresh_hz: float = 1000.0
    grid_window_frames: int = 240
    grid_tolerance: float = 0.1
    noise_allowance_ns: int = 2_500_000
    grid_reset_misses: int = 8
    prior_sigmas: float = 5.0
    refresh_precision_hz: float = 0.05
    prior_vouch_fraction: float = 0.035
    establish_sigmas: float = 3.0
    cost_window_frames: int = 64


class PresentEstimate(NamedTuple):
    """What the detector knows about one present.

    Attributes:
        present_ns: The raw timestamp taken after the present returned.
        smooth_ns: The vblank the present was shown at, on the fitted grid (noise removed), or
            ``None`` without an established grid.
        vblanks: Vblank periods since the previous present when both lie on the grid, else ``None``.
    """

    present_ns: int
    smooth_ns: int | None
    vblanks: int | None


#: Where a present landed on the grid: (its vblank on the grid, the first after its call, or
#: ``None`` without a grid; vblanks since the previous placed present; whether it returned within
#: the tolerated noise of its vblank; whether it cannot tell vsync on from off: it returned later
#: than the noise (a late wake-up), or was called so close to its vblank that even vsync would
#: barely have held it, or came before there were presents enough to look for a grid).
_Place = tuple[int | None, int | None, bool, bool]
_NOWHERE: _Place = (None, None, False, False)
_TOO_EARLY: _Place = (None, None, False, True)


class _VblankGrid:
    """The vblank line ``t = origin + phase + period * n``, fitted over a sliding window.

    * The **period** is the confirmed nominal one, or the free least-squares slope (exact integer
      sums, ``t`` relative to ``origin``).
    * The **phase** is the midrange of the residuals (their lowest and highest, trimmed by
      ``len // TRIM``), not their mean. For noise bounded on both sides this is far more precise
      than least squares (the error shrinks as ``1/N``, not ``1/sqrt(N)``), and it stays right when
      the early returns of presents called just before their vblank are missing (such a present
      returns at once; the detector cannot fit it). Half the trimmed range is the noise bound
      :attr:`noise_ns`.
    * Residuals are kept sorted (as keys ``t - period * n``), so the phase is found without a pass
      over the window. A free period follows the fitted slope only when the slope has moved by a
      sliver of the noise across the window; the keys are then rebuilt.
    """

    #: The phase ignores the lowest and highest ``count // TRIM`` residuals (strays of the noise).
    TRIM = 80
    #: Phases tried when a grid is started from the recent presents.
    PHASE_STEPS = 48

    __slots__ = (
        "_base_ns",
        "_c",
        "_clean_lead_ns",
        "_clean_points",
        "_fixed",
        "_held_n",
        "_history",
        "_last_n",
        "_late_clean",
        "_miss_count",
        "_misses",
        "_noise_abs_ns",
        "_origin_ns",
        "_phase_ns",
        "_points",
        "_recent",
        "_shadow",
        "_since_check",
        "_sorted",
        "_sorted_clean",
        "_steady",
        "_tolerances",
        "_uncertainty_ns",
        "measured_ns",
        "noise_ns",
        "period_ns",
        "prior_ns",
        "prior_refuted",
        "queue_offset",
        "ready_slack_ns",
        "settings",
        "starts",
    )

    def __init__(self, settings: VsyncSettings) -> None:
        self.settings = settings
        #: The OS's nominal period, if known.
        self.prior_ns: float | None = None
        # (present, ready, paced)
        self._recent: deque[tuple[int, int | None, bool]] = deque(maxlen=RECENT_PRESENTS)
        # (present, ready) of the latest unpaced presents in a row that took time, over a
        # longer span (see _try_establish)
        self._history: deque[tuple[int, int | None]] = deque(maxlen=2 * RECENT_PRESENTS)
        #: The grid was started without a prior to vouch for it, its presents seen to stay
        #: near it (``_steady_period``): it tolerates a quarter period (see tolerance_ns).
        self._steady = False
        self._points: deque[tuple[int, int, int, bool]] = deque()  # (n, t - origin, key, clean)
        self._sorted: list[int] = []  # residual keys, sorted
        self._sorted_clean: list[int] = []  # the clean presents' keys, sorted
        # least squares over the clean presents (their own window; see _check_prior)
        self._clean_points: deque[tuple[int, int]] = deque()  # (n, t - base * n)
        self._c = [0, 0, 0, 0, 0, 0]  # count, sum n, sum u, sum n*n, sum n*u, sum u*u
        self._since_check = 0
        # (time, count, grid index) of the latest blocked present on the grid, its count of
        # vblanks taken from interval to interval (not from its place on the grid): the clean
        # fit's index while the nominal period holds (see add)
        self._shadow: tuple[int, int, int] | None = None
        self._late_clean: tuple[int, int] | None = None
        self._base_ns = 0.0  # the period at the grid's start: the clean sums are relative to it
        self._uncertainty_ns = float(settings.noise_allowance_ns)
        self._tolerances = (0.0, 0.0)  # (strict, noisy) for the current period
        self._clean_lead_ns = 0.0
        #: The timestamps refuted the nominal period: do not start grids on it again.
        self.prior_refuted = False
        #: The clean presents' least-squares period, once precise enough, while the grid runs on
        #: the nominal period.
        self.measured_ns: float | None = None
        self.period_ns: float | None = None
        self._fixed = False
        self._phase_ns = 0.0
        self._origin_ns = 0
        self._last_n = 0
        # the latest present that waited (see _index_for)
        self._held_n = 0
        #: Images a swap chain holds before a present waits (set by the detector: see
        #: VsyncDetector.queue_offset).
        self.queue_offset = 0
        #: How far a present's image may have been ready on either side of the ``ready_ns``
        #: it is placed with: to the ends of the band of present costs that explain the flips
        #: seen, or of its exceptions, or the reach of the skips where there is no band (set
        #: by the detector: see ``VsyncDetector._settle_cost``).
        self.ready_slack_ns = 0
        #: Half the spread of the fitted residuals: the bound of the wake-up noise.
        self.noise_ns = 0.0
        self._noise_abs_ns = 0.0  # running mean |residual| of presents on the grid
        self._misses: deque[bool] = deque(maxlen=2 * settings.grid_reset_misses)  # True = hit
        self._miss_count = 0
        #: Grids started so far (one started while judged off is on trial: see
        #: ``VsyncDetector._try_grid``).
        self.starts = 0

    # -- state ----------------------------------------------------------------------------------
    @property
    def uses_prior(self) -> bool:
        """Whether the period is the confirmed nominal one."""
        return self.period_ns is not None and self._fixed

    def reset(self) -> None:
        """Drop the fit (keep the recent presents, from which a new grid may start at once)."""
        self._points.clear()
        self._sorted.clear()
        self._sorted_clean.clear()
        self._clean_points.clear()
        self._c = [0, 0, 0, 0, 0, 0]
        self.measured_ns = None
        self._uncertainty_ns = float(self.settings.noise_allowance_ns)
        self.period_ns = None
        self._fixed = False
        self._shadow = None
        self._late_clean = None
        self._misses.clear()
        self._miss_count = 0
        self._steady = False

    def tolerance_ns(self, period: float, noisy: bool, steady: bool | None = None) -> float:
        """How far from its vblank a present may return and still count as on the grid.

        ``noisy`` presents (those that blocked, or that the limiter paced) get the noise allowance
        on a grid whose period the OS's nominal rate vouches for (within
        ``prior_vouch_fraction``), and the noise its returns show on a grid its presents were
        seen to stay near without one (``_steady_period``: staying near it is the evidence,
        whatever the allowance; capped at the allowance, a 50 Hz display with +-2.9 ms of noise
        was never found, and judged off): a quarter period at least, ``STEADY_MOST`` at most
        (held to a quarter, returns scattered over half a period started no grid, and every
        present that waited voted "off": 158 Hz with +-1.75 ms). Otherwise a grid is believed
        only when the presents land within a tenth of a period of it. ``steady`` says whether
        the grid is one of those, being started (its returns may spread over twice the most);
        by default, the current grid.
        """
        strict = period * self.settings.grid_tolerance
        if noisy and (self._steady if steady is None else steady):
            if steady is not None:
                return period * STEADY_MOST  # a grid being started: what its spread may be
            return min(period * STEADY_MOST, max(period / 4, STEADY_MARGIN * self.noise_ns))
        prior = self.prior_ns
        if (
            not noisy
            or prior is None
            or abs(period - prior) > self.settings.prior_vouch_fraction * prior
        ):
            return strict
        return min(period / 2, max(strict, self.settings.noise_allowance_ns))

    def phase_uncertainty_ns(self) -> float:
        """How far the grid's vblank times may be from the true ones (at least 20 µs)."""
        return self._uncertainty_ns

    def _refresh_caches(self) -> None:
        """Recompute what the per-present work needs from the current period and noise."""
        assert self.period_ns is not None
        self._tolerances = (
            self.tolerance_ns(self.period_ns, False),
            self.tolerance_ns(self.period_ns, True),
        )
        # A present is clean when it was called at least ``block_on_ns`` before even the earliest
        # wake-up of its vblank: it blocked whatever its noise, so none of its early returns can
        # be missing. The earliest wake-up lies ``noise_ns`` before the grid's vblank, and further
        # by the gap between the trimmed low key and the true bound (the low key can only lie
        # above it). That gap moves the midrange by half its size, so twice the uncertainty
        # covers it. A lead of ``2 * noise_ns`` is safe too, but wastes the presents in between:
        # at 144 Hz with ±2 ms it left only 23–50 of 240 presents clean, the lowest of so few
        # lay far above the true bound in about one run in 30, and the grid ran late by twice
        # its stated uncertainty for hundreds of frames (each then shown a refresh late).
        self._clean_lead_ns = self.noise_ns + self.settings.block_on_ns + 2.0 * self._uncertainty_ns

    @property
    def clean_lead_ns(self) -> float:
        """See :attr:`VsyncDetector.clean_lead_ns`."""
        return self._clean_lead_ns

    def time_of(self, n: int) -> int:
        """Grid time of vblank ``n``."""
        assert self.period_ns is not None
        return self._origin_ns + round(self._phase_ns + self.period_ns * n)

    @property
    def last_index(self) -> int:
        """Grid index of the latest placed present."""
        return self._last_n

    def index_after(self, t_ns: int) -> int:
        """Index of the first grid vblank strictly after ``t_ns``."""
        assert self.period_ns is not None
        return math.floor((t_ns - self._origin_ns - self._phase_ns) / self.period_ns) + 1

    # -- fitting ----------------------------------------------------------------------------------
    def _add_point(self, n: int, t_rel: int, clean: bool) -> None:
        assert self.period_ns is not None
        key = round(t_rel - self.period_ns * n)
        points = self._points
        points.append((n, t_rel, key, clean))
        keys, clean_keys = self._sorted, self._sorted_clean
        trim = len(keys) // self.TRIM
        # Whether the trimmed extremes (all the phase depends on) can have moved: a full window
        # on the nominal period changes nothing else, so most presents need no refit.
        moved = len(points) <= self.settings.grid_window_frames or not self._fixed
        at = bisect_right(keys, key)
        keys.insert(at, key)
        moved = moved or at <= trim + 1 or at >= len(keys) - trim - 2
        if clean:
            at = bisect_right(clean_keys, key)
            clean_keys.insert(at, key)
            moved = moved or at <= len(clean_keys) // self.TRIM + 1
        if len(points) > self.settings.grid_window_frames:
            _, _, old_key, old_clean = points.popleft()
            at = bisect_left(keys, old_key)
            del keys[at]
            moved = moved or at <= trim + 1 or at >= len(keys) - trim - 2
            moved = moved or old_clean != clean  # the clean count (and its trim) changed
            if old_clean:
                at = bisect_left(clean_keys, old_key)
                del clean_keys[at]
                moved = moved or at <= len(clean_keys) // self.TRIM + 1
        if moved or len(clean_keys) < 18:
            self._refit()

    def _add_clean(self, n: int, t_rel: int) -> None:
        """Add a clean present to the least-squares window; test the nominal period now and then.

        The sums are of ``u = t - base * n`` (``base`` fixed when the grid started), small numbers
        whatever the run's length; the slope of ``t`` is ``base`` plus the slope of ``u``.
        """
        u = t_rel - round(self._base_ns * n)
        c = self._c
        c[0] += 1
        c[1] += n
        c[2] += u
        c[3] += n * n
        c[4] += n * u
        c[5] += u * u
        points = self._clean_points
        points.append((n, u))
        if len(points) > self.settings.grid_window_frames:
            old_n, old_u = points.popleft()
            c[0] -= 1
            c[1] -= old_n
            c[2] -= old_u
            c[3] -= old_n * old_n
            c[4] -= old_n * old_u
            c[5] -= old_u * old_u
        self._since_check += 1
        if self._fixed and self._c[0] >= 64 and self._since_check >= 8:
            self._since_check = 0
            self._check_prior()

    def _use_period(self, period: float) -> None:
        """Place the fitted presents on a new period (the phase is refitted from them next)."""
        self.period_ns = period
        self._points = deque((n, t, round(t - period * n), k) for n, t, _, k in self._points)
        self._sorted = sorted(key for _, _, key, _ in self._points)
        self._sorted_clean = sorted(key for _, _, key, k in self._points if k)

    def settle(self) -> None:
        """Take the period from the start-up probes, when they end.

        Sent back to back, every probe that waited returned at a vblank: the cleanest presents
        the loop will see. A loop whose frames take longer than a period in a swap chain that
        holds images never waits again (each present finds room), so the grid keeps the period
        it started on for the whole run (the median interval of the first probes: a
        least-squares refit needs more clean presents than the probes give); at 230 Hz one
        4 µs off carried the grid a whole period off in four seconds. Their Theil-Sen
        slope, which a late wake-up cannot pull, is the period from here on; a nominal period
        it refutes by ``prior_sigmas`` standard errors is refuted, as by
        :meth:`_check_prior`. With fewer than ``PINNED_PRESENTS`` of them, nothing changes.
        """
        points = self._clean_points
        if self.period_ns is None or len(points) < PINNED_PRESENTS:
            return
        fit = _robust_slope([float(n) for n, _ in points], [float(u) for _, u in points])
        if fit is None:
            return
        slope, sigma = self._base_ns + fit[0], fit[1]
        if self._fixed and self.prior_ns is not None:
            if abs(slope - self.prior_ns) <= self.settings.prior_sigmas * sigma:
                return
            self.prior_refuted = True
            self._fixed = False
            self.measured_ns = None
        self._use_period(slope)
        self._refit()
        self._refresh_caches()  # the tolerances follow the period

    def _refit(self) -> None:
        """Update the phase (and a free period) after the fitted presents changed."""
        period = self.period_ns
        assert period is not None
        points = self._points
        changed = False
        if self._fixed and self.prior_ns is not None:
            changed = period != self.prior_ns
            period = self.prior_ns
        elif self._c[0] >= 32:
            slope = _slope(self._c, self._base_ns)
            span = points[-1][0] - points[0][0]
            if slope is not None and abs(slope - period) * span > max(1_000.0, self.noise_ns / 4):
                # The fitted slope moved by more than a sliver of the noise across the window:
                # use it. (A slope refitted with every present wanders a little; following each
                # step would cost a sort per present and jiggle the grid.)
                period, changed = slope, True
        if changed:
            self._use_period(period)
        keys = self._sorted
        count = len(keys)
        trim = count // self.TRIM
        high = keys[-1 - trim]
        # The early side: returns of presents called just before their vblank may be missing
        # there (see add), so it comes from the clean presents when there are enough.
        clean = self._sorted_clean
        low_count = len(clean) if len(clean) >= 16 else 0
        low = clean[low_count // self.TRIM] if low_count else keys[trim]
        low_count = low_count or count
        noise = (high - low) / 2
        # the trimmed extremes' gaps to the true bounds, a few times over
        spread = (trim + 2) / count + (low_count // self.TRIM + 2) / low_count
        uncertainty = max(20_000.0, noise * spread)
        if noise != self.noise_ns or uncertainty != self._uncertainty_ns or changed:
            self.noise_ns = noise
            self._uncertainty_ns = uncertainty
            self._refresh_caches()
        # the keys are t - period * n: their midrange is the phase
        self._phase_ns = (low + high) / 2

    def _check_prior(self) -> None:
        """Keep the nominal period, or hand over to the measured one.

        Uses the least-squares period of the *clean* presents: called so long before their vblank
        that even the earliest wake-up came after the call, so none of their returns can be
        missing. (A fit of every present would be biased: one called just before its vblank
        returns at once when its wake-up came early, and is not fitted.) They are kept in their
        own window up to half a period from the grid, wider than the fit's tolerance: a wrong
        nominal period makes the grid lag, and cutting the lagging returns would pull the slope
        towards the nominal one.

        * The nominal period is *refuted* (and not used again) when the slope is more than
          ``prior_sigmas`` standard errors from it: a "60 Hz" mode at 59.94 Hz, or a wrong report.
        * Once the timestamps pin the refresh rate to ``refresh_precision_hz`` on their own (three
          standard errors), the *reported* rate is the measured one (:attr:`measured_ns`): the
          nominal one never stands in for a measurement the timestamps can make. The grid keeps
          the confirmed nominal period, which is steadier than a slope refitted every frame.
        """
        assert self.prior_ns is not None
        fit = _slope_and_sigma(self._c, self._base_ns, self.prior_ns)
        if fit is None:
            return
        slope, sigma = fit
        if abs(slope - self.prior_ns) > self.settings.prior_sigmas * sigma:
            self.prior_refuted = True
            self._fixed = False
            self.measured_ns = None
            shadow = self._shadow
            if shadow is not None and shadow[1] != shadow[2]:
                # the grid placed presents on the wrong vblanks (its indices followed the wrong
                # period): start again on the measured period
                self.reset()
        elif 3 * NS_PER_S * sigma / (slope * slope) <= self.settings.refresh_precision_hz:
            self.measured_ns = slope

    def _try_establish(self, noisy: bool, waiting: bool) -> bool:
        """Start a grid from the recent presents if they lie on one.

        The period is the nominal one when the presents' median interval is a whole number of
        nominal periods (exactly one when they were called back to back); else the longest
        period, the median interval divided by 1 to 4, of which every interval is a whole
        multiple (a limiter at 60 Hz on a 144 Hz display presents 2 and 3 vblanks apart). The
        phase is the one (of ``PHASE_STEPS`` tried) that places the presents with the smallest
        spread of residuals, each at the first vblank after its call; the grid starts if that
        spread fits the tolerance.
        """
        recent = self._recent
        if len(recent) < ESTABLISH_PRESENTS:
            return False
        # The tests of a grid against a free-running loop look at the longer history while
        # vsync is judged off: such a loop tries a grid with every present, and in a window
        # of 30 one in a few hundred stays near a line by chance; over 60 hardly any does.
        history = self._history
        if not waiting and len(history) > len(recent):
            span = [t for t, _ in history]
            calls = [(t, r) for t, r in history if r is not None]
        else:
            span = [t for t, _, _ in recent]
            calls = [(t, r) for t, r, paced in recent if r is not None and not paced]
        last = list(recent)[-16:]
        times = [t for t, _, _ in last]
        readies = [r for _, r, _ in last]
        median = _median_interval(times)
        period: float = median
        fixed = back_to_back = False
        prior = None if self.prior_refuted else self.prior_ns
        if prior is not None:
            k = round(median / prior)
            # Presents called right after the previous one returned (the start-up probes) flip
            # at the very next vblank: their interval is one period, not a multiple.
            back_to_back = all(
                ready is not None and ready - t < IMMEDIATE_NS
                for t, ready in zip(times, readies[1:], strict=False)
            )
            matches = abs(median - k * prior) <= self.tolerance_ns(prior, noisy)
            if matches and k >= 1:
                # Each interval is within the noise of a whole number of nominal periods, but a
                # display a few percent off its nominal rate passes that too: the presents' own
                # least-squares period (against those whole numbers) must agree with the nominal
                # one within its standard error, or the grid would lock on the wrong rate and
                # drift through the vblanks (61 Hz reported as 60: 250 double frames in 3,000).
                matches = self._agrees_with_prior(times, prior)
            if back_to_back and not (k == 1 and matches):
                # back-to-back presents measure the period itself: it is not the nominal one
                self.prior_refuted = True
            elif k >= 1 and matches:
                period, fixed = prior, True
        steady = False
        if not fixed:
            # (a late wake-up makes one interval long and the next short, neither a whole
            # number of periods: at 143 Hz a probe 4.6 ms late made a third of the period
            # the only one every interval fitted, and the probes started no grid)
            on_time = _without_late(times, median, median * self.settings.grid_tolerance)
            found = self._common_period(sorted(b - a for a, b in pairwise(on_time)), noisy)
            if found is not None and len(recent) >= STEADY_PRESENTS and _wanders(span, found):
                # no reported rate vouches for it, and the presents drift off it like a loop
                # running at its own rate (a slow present without vsync: see _wanders)
                return False
            if found is None:
                if not noisy or len(recent) < STEADY_PRESENTS or any(p for _, _, p in recent):
                    return False
                # not within a tenth of a period: a grid with more wake-up noise, if the
                # presents are seen to stay near it (no prior vouches for it; presents the
                # limiter paced lie on its own grid, whatever the display does)
                times = [t for t, _, _ in recent]
                readies = [r for _, r, _ in recent]
                steady_period = self._steady_period(times, span)
                if steady_period is None:
                    return False
                found, steady, on_time = steady_period, True, times
            # refine it: least squares of the times against their whole vblank counts
            ns = [0]
            for a, b in pairwise(on_time):
                ns.append(ns[-1] + round((b - a) / found))
            refined = _slope(_sums(ns, [t - on_time[0] for t in on_time]), 0.0)
            period = found if refined is None else refined
        tolerance = self.tolerance_ns(period, noisy, steady)
        if 4 * tolerance > period and len(recent) < PINNED_PRESENTS:
            # a grid that lets returns a quarter period off count as on it (a reported
            # 240 Hz: 2.08 ms) is believed only once enough presents show it is one
            return False
        origin = times[0]
        most = max(1, len(times) // STRAY_FRACTION)
        best = self._best_phase(times, readies, origin, period)
        if best is not None and best[0] > 2 * tolerance:
            # a late wake-up among them widened every phase's spread: the phase that fits the
            # others (see _late_strays; a probe woken 5 ms late at 165 Hz in a chain of 2 kept the
            # probes from starting any grid, and the frames that then waited with no grid to
            # be on voted "off")
            best = self._best_phase(times, readies, origin, period, most)
        if best is None:
            return False
        phase, ns, residuals = best[1:]
        spread, strays = _late_strays(residuals, most)
        if spread > 2 * tolerance or self._unpinned(origin, phase, period, calls):
            return False
        if strays and not self._period_without(times, strays, period, fixed, steady, noisy):
            if fixed and back_to_back:
                self.prior_refuted = True  # they measure the period itself (as above)
            return False
        self._begin(times, readies, ns, origin, period, phase, spread, fixed, steady, strays)
        return True

    def start_pinned(
        self, times: list[int], readies: list[int], period: float, sigma: float
    ) -> None:
        """Start a grid from presents known to have returned at vblanks ``period`` apart (the
        start-up probes whose returns stayed at one place in the period however late they
        were called: see ``VsyncDetector._probes_pinned``, which fits ``period`` to them,
        with standard error ``sigma``).

        Each is placed at the vblank nearest its return, not the first after its call: a
        present whose own work (a copy before the wait) ran past a vblank waited for a
        later one. The period is the nominal one when it lies within ``establish_sigmas``
        standard errors of theirs (the test of :meth:`_try_establish`, on a fit that spans
        more vblanks; that method's own test cannot tell when a busy desktop's wake-ups
        scatter the intervals by a quarter period, and 177.66 Hz reported as 173 was taken
        for 173); the phase is the midrange of the residuals, a busy desktop's late
        wake-ups left out (the narrowest band holding three quarters of them, widened by
        half its width on each side).

        Any grid the back-to-back probes started is replaced: these presents include theirs
        and span several times as many vblanks. (Kept, a grid they started on the nominal
        period of 103 Hz drifted a period off a 103.22 Hz display in 500 vblanks, and one
        started 0.1 % off a 196 Hz display with no reported rate was judged off at frame 771.)
        """
        origin = times[0]
        ns = _whole_periods(times, period)
        prior = self.prior_ns
        if prior is not None and abs(period - prior) <= self.settings.establish_sigmas * sigma:
            period, fixed = prior, True
            self.prior_refuted = False
        else:
            fixed = False
        residuals = [t - origin - period * n for t, n in zip(times, ns, strict=True)]
        # The narrowest band holding three quarters of them, widened by half its width on
        # each side: all of a uniform noise, and none of a busy desktop's wake-ups half a
        # period late (with a sixteenth left out at each end, five such among 46 probes at
        # 75 Hz started the grid 2.5 ms early, its noise bound 2.7 ms)
        ordered = sorted(residuals)
        size = -(-3 * len(ordered) // 4)
        width, low = min(
            (ordered[i + size - 1] - ordered[i], ordered[i]) for i in range(len(ordered) - size + 1)
        )
        kept = [r for r in ordered if low - width / 2 <= r <= low + 1.5 * width]
        strays = {i for i, r in enumerate(residuals) if not kept[0] <= r <= kept[-1]}
        phase = (kept[0] + kept[-1]) / 2
        spread = kept[-1] - kept[0]
        # returns that scatter wider than a grid without a prior tolerates, seen to stay at
        # one place all the same: a steady grid (see tolerance_ns), as _try_establish starts
        # from returns seen not to wander (held to a tenth of a period, a display with 0.10-0.15
        # of a period of noise fitted few returns: motion error up to 1.1 ms)
        steady = not fixed and spread > self.tolerance_ns(period, True, False)
        self._begin(times, list(readies), ns, origin, period, phase, spread, fixed, steady, strays)

    def _begin(
        self,
        times: list[int],
        readies: list[int | None],
        ns: list[int],
        origin: int,
        period: float,
        phase: float,
        spread: float,
        fixed: bool,
        steady: bool,
        strays: set[int],
    ) -> None:
        """Start the grid ``origin + phase + period * n`` and fit the presents placed on it at
        ``ns`` (all but the ``strays``), with half their residuals' ``spread`` as the noise
        bound."""
        self.reset()
        self.starts += 1
        self._steady = steady
        self._origin_ns = origin
        self._fixed = fixed
        self.period_ns = period
        self._base_ns = period
        self._phase_ns = phase
        self.noise_ns = spread / 2
        self._noise_abs_ns = spread / 4
        self._refresh_caches()
        for i, (t, n, ready) in enumerate(zip(times, ns, readies, strict=True)):
            if i in strays:
                continue
            clean = ready is None or self.time_of(n) - ready >= self._clean_lead_ns
            if clean:
                self._add_clean(n, t - origin)
            self._add_point(n, t - origin, clean)
        self._held_n = ns[-1]
        self._last_n = ns[-1] + self.queue_offset
        self._shadow = (times[-1], ns[-1], ns[-1])

    def _period_without(
        self,
        times: list[int],
        strays: set[int],
        period: float,
        fixed: bool,
        steady: bool,
        noisy: bool,
    ) -> bool:
        """Whether the presents but the late ``strays`` show the grid's ``period`` too.

        The period was found from every interval, the strays' too; a late wake-up makes one
        interval long and the next short, and can make a period that only fits with it left
        out: a nominal period whose test could not tell (at 207 Hz reported as 204.7, two late
        probes let a grid start on the reported rate, and it drifted through the vblanks), or
        half the real one (at 159 Hz a probe 2.5 ms late, then one 0.54 periods after it: a
        grid at 318 Hz, a refresh shown late half the time). The others must show it too (a
        grid found only by the noise's spread, ``steady``, has no period of its own to show).
        """
        kept = [t for i, t in enumerate(times) if i not in strays]
        if fixed:
            return self._agrees_with_prior(kept, period)
        if steady:
            return True
        found = self._common_period(sorted(b - a for a, b in pairwise(kept)), noisy)
        return found is not None and 4 * abs(found - period) < period

    def _best_phase(
        self,
        times: list[int],
        readies: list[int | None],
        origin: int,
        period: float,
        most_strays: int = 0,
    ) -> tuple[float, float, list[int], list[float]] | None:
        """The phase (of ``PHASE_STEPS`` tried) that places the presents on a grid of
        ``period`` with the smallest spread of residuals, up to ``most_strays`` lone late
        ones left out (see ``_late_strays``): (that spread, the phase, the presents' vblank
        indices, their residuals), or ``None`` when no phase places them."""
        best: tuple[float, float, list[int], list[float]] | None = None
        for step in range(self.PHASE_STEPS):
            phase = period * step / self.PHASE_STEPS
            placed = _place_all(times, readies, origin, phase, period)
            if placed is None:
                continue
            ns, residuals = placed
            spread = _late_strays(residuals, most_strays)[0]
            if best is None or spread < best[0]:
                best = (spread, phase, ns, residuals)
        return best

    def _presents_needed(self) -> int:
        """Presents needed before a grid may start (presents that blocked abstain until
        then): ``PINNED_PRESENTS`` when the reported rate would let returns a quarter period
        off count as on the grid (see ``_try_establish``), else ``ESTABLISH_PRESENTS``."""
        prior = None if self.prior_refuted else self.prior_ns
        if prior is not None and 4 * self.tolerance_ns(prior, True) > prior:
            return PINNED_PRESENTS
        return ESTABLISH_PRESENTS

    def _unpinned(
        self, origin: int, phase: float, period: float, calls: list[tuple[int, int]]
    ) -> bool:
        """Whether the recent presents returned scattered across the trial grid far more than
        their durations vary: their time was the present's own work, not a wait for a vblank.

        A present that waits for its vblank returns at the vblank (plus the wake-up noise)
        wherever it was called: the wait absorbs every variation of the call time, so the
        returns scatter around the grid by the noise only, and the durations by at least as
        much (the call times vary too). A present that does work of its own (software GL
        copying the picture) without vsync returns that work after its call: the durations
        vary only as the work does, and the returns inherit every variation of the call
        times, so on any grid they scatter across the period. Where the wake-up noise
        allowance reaches half a period (231 Hz reported: 2.17 ms), every return lies "on
        the grid", and a loop copying for 4.5 ms without vsync was judged vsync on at 231 Hz
        (returns spread over the whole 4.3 ms period, durations over 2.2 ms).

        True when, over at least ``PINNED_PRESENTS`` recent presents whose calls are known, the returns'
        scatter around the grid's vblanks (modulo the period: a present whose own work made
        it skip a vblank is pinned to the next) is more than half a period and more than
        ``UNPINNED_RATIO`` times the spread of their durations plus ``block_on_ns`` (an eighth
        of the presents left out at each end of both). Only a grid being started is tested:
        the presents a loop sends while a swap chain has room return after their own work
        too (their images wait in the queue), but the start-up probes, sent back to back,
        fill it and wait.
        """
        if not self.queue_offset and self._follows_calls(period, calls):
            # (in a swap chain with room a present returns after its own work too, its image
            # waiting in the queue: the durations say nothing there)
            return True
        pairs = [(t, t - ready) for t, ready, _ in self._recent if ready is not None]
        if len(pairs) < PINNED_PRESENTS:
            return False
        scatter, spread = _scatter_and_spread(pairs, origin + phase, period)
        return scatter > max(period / 2, UNPINNED_RATIO * spread + self.settings.block_on_ns)

    def _follows_calls(self, period: float, recent: list[tuple[int, int]]) -> bool:
        """Whether the recent unpaced presents took as long wherever their calls fell on a
        grid of ``period``: each return followed its call, not a vblank. (False also when the
        presents cannot tell: too few, or their calls too alike.)

        A present that waits for its vblank takes the wait from its call to that vblank plus
        the wake-up noise: called a millisecond later, it returns a millisecond sooner. Its
        duration grows one for one with the wait a trial grid predicts. A present that does
        its own work without vsync takes that work wherever it was called: its duration does
        not depend on the wait at all. This holds whatever the noise, where the spread of
        the returns (``_unpinned``) cannot tell once the noise allowance reaches half a
        period (a loop copying 4.5 ms without vsync, with 231 Hz reported).

        The slope is Theil-Sen's (the median of the slopes between pairs of presents): a
        present placed a vblank off by the trial grid moves it no more than any other. The
        trial grid's phase is the one that fits the other half of the presents best: fitted
        on the same presents, the phase that best fits them is the one that makes the
        durations follow the waits, whatever the display (in 300 simulated windows of a
        loop copying without vsync, 10 % then looked like waits).
        """
        if len(recent) < FOLLOW_PRESENTS:
            return False
        times = [t for t, _ in recent]
        readies: list[int | None] = [r for _, r in recent]
        origin = times[0]
        points: list[tuple[float, float]] = []
        for test, train in (
            (slice(0, None, 2), slice(1, None, 2)),
            (slice(1, None, 2), slice(0, None, 2)),
        ):
            fitted = self._best_phase(times[train], readies[train], origin, period)
            if fitted is None:
                return False
            spread, phase, _, residuals = fitted
            # the grid through the middle of the returns (phases that place the presents
            # alike fit them equally well)
            phase += (min(residuals) + max(residuals)) / 2
            placed = _place_all(times, readies, origin, phase, period)
            if placed is None:
                return False
            # Only presents called so long before their vblank that no wake-up noise (the
            # bound the other half shows) could have made them return at once, unseen (an
            # early wake-up): nearer, a wait's duration grows by less than the wait.
            lead = min(spread / 2, period / 2) + self.settings.block_on_ns
            pairs = [
                (t - e - r, t - r)
                for (t, r), e in zip(recent[test], placed[1][test], strict=True)
                if t - e - r >= lead
            ]
            if len(pairs) < 3:
                continue
            mw = sum(w for w, _ in pairs) / len(pairs)
            md = sum(d for _, d in pairs) / len(pairs)
            points.extend((w - mw, d - md) for w, d in pairs)
        if len(points) < FOLLOW_PRESENTS // 2:
            return False
        fit = _robust_slope([w for w, _ in points], [d for _, d in points])
        if fit is None:
            return False
        slope, sigma = fit
        # Below what any wait shows, and flat, by two standard errors. (Falling is no copy's
        # either: a copy of its own before the wait whose length jitters across the vblank
        # makes a wait's duration fall as the wait grows, since the nearer the vblank the
        # call, the likelier the image skips it.)
        # Measured finely enough to tell flat from a wait's least at all (four standard
        # errors apart): a slope of -1.5 +- 0.7 passed both bounds, from a true grid at 221 Hz
        # with +-2 ms of noise.
        return (
            4.0 * sigma <= FOLLOW_SLOPE
            and slope + 2.0 * sigma < FOLLOW_SLOPE
            and abs(slope) <= 2.0 * sigma + FOLLOW_FLAT
        )

    def _agrees_with_prior(self, times: list[int], prior: float) -> bool:
        """Whether the least-squares period of ``times`` (counted in whole nominal periods) lies
        within ``establish_sigmas`` standard errors of the nominal period.

        Returns that woke late are left out first (``_without_late``): one late wake-up
        otherwise leaves the test unable to tell (below), and a grid started on a rate 1 %
        off (240 Hz reported as 237.6, a probe 1.6 ms late among them)."""
        times = _without_late(times, prior, prior * self.settings.grid_tolerance)
        ns = [0]
        deviations = []
        for a, b in pairwise(times):
            count = max(1, round((b - a) / prior))
            deviations.append(b - a - count * prior)
            ns.append(ns[-1] + count)
        if max(abs(d) for d in deviations) > prior / 4:
            # Noise near half a period (or a late wake-up): the counts are not certain, and a
            # wrong count would refute a right period (this test then cannot tell; the later
            # one can). Unless the intervals agree among themselves, away from a whole count:
            # all of them off a whole number of nominal periods by nearly the same amount (the
            # whole count outside the span of their deviations) is no noise but another period
            # (back-to-back presents 6.2 ms apart, +-0.1 ms, with 240 Hz reported: within the
            # 2.08 ms a 240 Hz grid tolerates, and a grid started on it never refuted it; or
            # 6.5 +-0.3 ms with 120 Hz reported). Taken modulo the period,
            # where 1.49 and 1.51 periods are neighbours; one stray at each end is left out (a
            # late wake-up; the first presents of a swap chain, which return at once).
            trim = 1 if len(deviations) >= 6 else 0
            spread, middle = _circular_span(deviations, prior, trim)
            off = abs((middle + prior / 2) % prior - prior / 2)  # from a whole count
            return spread > prior / 4 or off <= spread / 2
        base = round(prior)
        fit = _slope_and_sigma(
            _sums(ns, [t - times[0] - base * n for t, n in zip(times, ns, strict=True)]),
            base,
            prior,
        )
        return fit is None or abs(fit[0] - prior) <= self.settings.establish_sigmas * fit[1]

    def _steady_period(self, times: list[int], span: list[int]) -> float | None:
        """A vblank period the presents stay near, when they are too noisy for the strict test.

        Without a reported rate to vouch for it, a grid was believed from the returns alone
        only when they landed within a tenth of a period of it: at 144 Hz with +-0.66 ms of
        wake-up noise (a fifth of a period) no grid was ever found, and every present that
        blocked for its vblank voted "off". Returns that scatter further are a grid when
        they *stay* near it (:func:`_wanders`): the period is the median interval divided by
        1 to 4 (the first of which every interval is at least one) whose returns do not
        wander, over ``STEADY_PRESENTS`` presents.
        """
        intervals = [b - a for a, b in pairwise(times)]
        for candidate in self._candidate_periods(sorted(intervals)[len(intervals) // 2]):
            if min(round(interval / candidate) for interval in intervals) < 1:
                continue
            if _wanders(span, candidate):
                return None
            return candidate
        return None

    def _candidate_periods(self, median: int) -> Iterator[float]:
        """The periods a run of presents with ``median`` interval may show, longest first: the
        median divided by 1 to 4, within the refresh rates considered a display's."""
        settings = self.settings
        lo = NS_PER_S / settings.max_refresh_hz
        hi = NS_PER_S / settings.min_refresh_hz
        for divisor in range(1, 5):
            candidate = median / divisor
            if lo <= candidate <= hi:
                yield candidate

    def _common_period(self, intervals: list[int], noisy: bool) -> float | None:
        """The longest period (median / 1..4) that every interval is a whole multiple of.

        Intervals of more than ``GAP_INTERVALS`` median ones (a stall, or a second without a
        present) are not tested: a candidate a little off the period is off by that little
        times the count there, and one is a whole multiple of nearly anything by chance (at
        240 Hz, a second and 0.3 periods was 479.02 half periods: a grid at 480 Hz)."""
        median = intervals[len(intervals) // 2]
        tested = [interval for interval in intervals if interval <= GAP_INTERVALS * median]
        for candidate in self._candidate_periods(median):
            tolerance = self.tolerance_ns(candidate, noisy)
            if all(
                (k := round(interval / candidate)) >= 1
                and abs(interval - k * candidate) <= tolerance
                for interval in tested
            ):
                return candidate
        return None

    # -- placing presents -------------------------------------------------------------------------
    def found_room(self, present_ns: int, ready_ns: int) -> bool:
        """Whether the swap chain had room when a present was called, as the images placed so
        far show: fewer than ``queue_offset`` of them after the vblank before its call (see
        ``VsyncDetector.observe``)."""
        period = self.period_ns
        if period is None or not self.queue_offset:
            return False
        return self._last_n - self._index_for(present_ns, ready_ns, period) + 1 < self.queue_offset

    def add(
        self,
        present_ns: int,
        ready_ns: int | None,
        blocked: bool | None,
        paced: bool,
        waiting: bool = True,
        copied: bool = False,
    ) -> _Place:
        """Place a present on the grid (establishing one if needed) and fit it when it is clean.

        Only presents that blocked (or whose blocking is unknown) and presents the limiter paced
        start or train a grid: a present that returned at once at an arbitrary moment says
        nothing about vblanks. It is still placed.

        ``waiting`` says whether presents are believed to wait for vblanks (the verdict is not
        "off"): then a return far after its vblank is a late wake-up. Otherwise the grid is the
        limiter's, and a present that returns a period late waited for a vblank the grid does not
        know: it counts against the grid, which is then rebuilt from such presents.

        ``copied`` says the present may have done nothing but its copy, in a swap chain (see
        ``VsyncDetector.observe``): its return may be where the copy ended, past the vblank
        that freed a place, so it is placed, fitted only within the noise bound of its vblank,
        and unsure. (Fitted as waits, such returns pulled the grid's phase later frame by
        frame with frames just in time: 85 Hz, a 2.3 ms copy: 2 ms off within 20 frames, 4.2
        ms of vblank error. Not fitted at all, a grid whose probes all waited, read as a chain
        when the first woke late, was never fitted again: 87 Hz, 3 ms of motion error.)
        """
        noisy = blocked is not False or paced
        if noisy:
            self._recent.append((present_ns, ready_ns, paced))
        if noisy and not paced:
            self._history.append((present_ns, ready_ns))
        else:
            # a present that returned at once, or that the limiter paced, is no free-running
            # loop's: the history starts again
            self._history.clear()
        period = self.period_ns
        if period is None:
            if noisy and len(self._recent) < self._presents_needed():
                return _TOO_EARLY  # too few presents to look for a grid yet
            if not noisy or not self._try_establish(noisy, waiting):
                return _NOWHERE
            return (self.time_of(self._last_n), None, True, False)
        n = self._index_for(present_ns, ready_ns, period)
        # Where its image is shown. In a swap chain that holds ``queue_offset`` images before
        # a present waits, a present that waits returns at the vblank that frees a place,
        # that many before its image's; one that found room returns at once, and its image
        # flips at the first vblank after its call and after the previous image. (Placing
        # both at their returns put the frames after a late wake-up had drained the queue a
        # vblank off their neighbours: 0.9 ms of motion error at 144 Hz with a busy desktop.)
        # A present that returns at once says nothing about vsync while the queue had room;
        # one that returned at once when ``queue_offset`` images were waiting is evidence of
        # no vsync. Only while presents are believed to wait for vblanks.
        image, room = n, False
        offset = self.queue_offset if waiting else 0
        if offset:
            if blocked is False:
                image = max(n, self._last_n + 1)
                room = self._last_n - n + 1 < offset
            else:
                image = n + offset
        vblank = self._origin_ns + self._phase_ns + period * n
        residual = present_ns - vblank
        tolerance = self._tolerances[noisy]
        on_grid = -tolerance <= residual <= tolerance
        late = not on_grid and residual > 0 and ready_ns is not None and bool(blocked)
        # called so close to its vblank that even vsync would have held it only a moment
        brief = (
            blocked is False and ready_ns is not None and vblank - ready_ns < self._clean_lead_ns
        )
        if noisy:
            self._count_miss(on_grid or (late and waiting), waiting and not paced)
            if self.period_ns is None:  # the misses reset the grid
                return _NOWHERE
        vblanks = image - self._last_n
        self._last_n = image
        if blocked is not False:
            self._held_n = n
        # clean: called so long before its vblank that even the earliest wake-up came after it
        clean = blocked is not False and (
            ready_ns is None or vblank - ready_ns >= self._clean_lead_ns
        )
        t_rel = present_ns - self._origin_ns
        count = n
        if self._fixed and noisy:
            # On the nominal period the grid cannot see its own error: a display slightly off
            # the nominal rate drifts along the grid, and the presents that drift off it are
            # placed on the neighbouring vblanks, so their grid indices follow the nominal period
            # whatever the display does (a sawtooth the slope cannot refute). The clean fit that
            # tests the nominal period therefore counts vblanks from each present's interval to
            # the previous one, which a small rate error cannot shift.
            # This needs intervals whose noise cannot reach half a period (returns within the
            # noise of their vblanks, and noise under a quarter of the period); a present that
            # returned late, or any present on a grid noisier than that, advances the count by
            # the grid's own increment and is no anchor for the next interval. "Late" is judged
            # on the interval itself: one further from a whole number of periods than the
            # noise of its two ends allows (an eighth of a period more for a rate a little off
            # the nominal one) holds a late wake-up. Within the tolerance is not enough: at
            # 240 Hz a busy desktop's wake-up 2 ms late is within half a period, and its
            # interval, rounded to the wrong count, once made the clean fit refute the right
            # nominal rate after 5,300 frames (the grid then restarted at 239.09 Hz).
            shadow = self._shadow
            if shadow is None:
                self._shadow = (present_ns, n, n)
            else:
                anchor_ns, anchor_count, anchor_n = shadow
                count = anchor_count + n - anchor_n
                if on_grid and 4 * self.noise_ns < period:
                    interval = present_ns - anchor_ns
                    whole = max(1, round(interval / period))
                    bound = min(2 * self.noise_ns + period / 8, 3 * period / 8)
                    if abs(interval - whole * period) <= bound:
                        count = anchor_count + whole
                        self._shadow = (present_ns, count, n)
        if copied:
            # Its return may be where its copy ended, past its vblank: fitted only within the
            # noise bound of it (neither as clean nor to the noise's running mean), and unsure.
            if on_grid and abs(residual) <= 2.0 * self.noise_ns:
                self._add_point(n, t_rel, False)
            return (self.time_of(image), vblanks, on_grid, True)
        if clean and abs(residual) < period / 2:
            # A late return is held back from the least squares until the next clean one
            # shows whether it woke late (that one back on the grid: dropped) or the grid is
            # drifting off the display (late too: both kept). On a period of its own the fit
            # moves the grid, and a lone late wake-up far from the window's other clean
            # presents pulled it: in a chain whose presents copy first only a few are clean,
            # and one 3.1 ms late, 880 vblanks after the probes, moved a 121.33 Hz grid by
            # 0.05 Hz (0.3-0.5 ms of vblank error for the rest of the run).
            held, self._late_clean = self._late_clean, None
            if late and not self._fixed and held is None:
                self._late_clean = (count, t_rel)
            else:
                if held is not None and late:
                    self._add_clean(*held)
                self._add_clean(count, t_rel)
            if self.period_ns is None:  # the nominal period was refuted: the grid starts again
                return (round(vblank + (image - n) * period), vblanks, on_grid, late or brief)
        if noisy and on_grid:
            size = abs(residual)
            self._noise_abs_ns += (size - self._noise_abs_ns) / 64
            fit_tolerance = min(tolerance, self._fit_noise_ns())
            if size <= fit_tolerance or size <= 30_000:
                self._add_point(n, t_rel, clean)
        elif (
            blocked
            and ready_ns is not None
            and 2 * tolerance >= period  # the window is capped at half a period
            and abs(residual) <= min(self.settings.noise_allowance_ns, self._fit_noise_ns())
            and (
                ready_ns - (vblank - period) >= self._uncertainty_ns
                if residual < 0
                else vblank - ready_ns >= self._uncertainty_ns
            )
        ):
            # A return just outside a window capped at half a period (noise close to half of it,
            # as ±2 ms at 240 Hz). The cap is there because beyond it a return is nearer another
            # vblank; but this present was called after the previous vblank (an early return) or
            # before this one (a late return), by more than the grid's uncertainty, so it showed
            # at this vblank: the return is an honest wake-up within the noise bound. Leaving
            # such returns out truncates the noise on the side away from the grid's error, so
            # the midrange keeps the error: at 240 Hz with ±2 ms a grid started 425 µs late
            # stayed late for 80 frames (eight returns 1.6-2.0 ms early unfitted), one started
            # 263 µs early stayed early (returns 1.8 ms late unfitted), both beyond their stated
            # uncertainty, and frames were shown a refresh late or early.
            self._add_point(n, t_rel, clean)
        return (self.time_of(image), vblanks, on_grid, late or brief or room)

    def _fit_noise_ns(self) -> float:
        """How far from its vblank a return may be and still be fitted: twice the noise bound, or
        four times the recent mean distance when that is larger."""
        return max(2.0 * self.noise_ns, 4.0 * self._noise_abs_ns)

    def _index_for(self, present_ns: int, ready_ns: int | None, period: float) -> int:
        """The vblank a present showed at: the first after its call, or the nearest to its return.

        When the call was so close to a vblank that the grid cannot tell which side it was on, the
        candidate nearest the return time wins: closer than the grid's uncertainty plus how far
        the image may have been ready from ``ready_ns`` (``ready_slack_ns``, a copy whose length
        varies; half a period at most).

        It comes after the latest present that *waited*: one image per vblank. A present that
        returned at once does not count there, because its vblank is not known: in a swap
        chain with room its image waits in the queue, and the next present, which waits for a
        vblank to free a place, returns at the vblank *before* its image's. (After a late
        wake-up at 144 Hz with a queue of 2, the present that found the queue drained was
        placed at its image's vblank, and every later one a vblank after the one it returned
        at: off the grid, eight votes "off" and a verdict of vsync off.)
        """
        last = self._held_n
        base = self._origin_ns + self._phase_ns
        if ready_ns is None or ready_ns > present_ns:
            return max(round((present_ns - base) / period), last + 1)
        n = max(math.floor((ready_ns - base) / period) + 1, last + 1)
        margin = self._uncertainty_ns + min(self.ready_slack_ns, period / 2)
        vblank = base + period * n
        best, distance = n, abs(present_ns - vblank)
        if vblank - ready_ns < margin and abs(present_ns - vblank - period) < distance:
            best, distance = n + 1, abs(present_ns - vblank - period)
        if (
            n - 1 > last
            and ready_ns - (vblank - period) < margin
            and abs(present_ns - vblank + period) < distance
        ):
            best = n - 1
        return best

    def _count_miss(self, hit: bool, waited: bool) -> None:
        """Count a present on the grid (``hit``) or off it; ``grid_reset_misses`` off it among
        the latest ``2 * grid_reset_misses`` drop the grid.

        A grid on the nominal period that presents waiting for vblanks left (``waited``: the
        verdict not "off", the present not the limiter's) refutes that period for good: on a
        display at its nominal rate they stay on it. A new nominal rate is believed again
        (:attr:`VsyncDetector.nominal_hz`). A display 1-3 % off its reported rate, with wake-up
        noise of a fifth of a period or more, agrees with the reported rate over the sixteen
        presents a grid starts on (their least-squares period is that uncertain), drifts off
        it in 20-30 frames, and the grid started on the reported rate again, forty times in
        1,500 frames (120.93 Hz reported as 119.46, +-2 ms: 15.7 ms of vblank error, 1.6 ms on
        average over 16 seeds since, 7.5 before). Presents the limiter paced do not refute it:
        they leave its own grid when vsync is switched on, whatever the rate (refuted there,
        the grid after the switch started on measured periods only: 19 double or empty frames
        in the matrix's ``vsync-on-mid~2ms`` for 15)."""
        misses = self._misses
        if len(misses) == misses.maxlen and not misses[0]:
            self._miss_count -= 1
        misses.append(hit)
        if not hit:
            self._miss_count += 1
            if self._miss_count >= self.settings.grid_reset_misses:
                if self._fixed and waited:
                    self.prior_refuted = True
                self.reset()


def _sums(ns: list[int], ts: list[int]) -> list[int]:
    """Least-squares sums (count, n, t, n*n, n*t, t*t) of the points."""
    return [
        len(ns),
        sum(ns),
        sum(ts),
        sum(n * n for n in ns),
        sum(n * t for n, t in zip(ns, ts, strict=True)),
        sum(t * t for t in ts),
    ]


def _slope(sums: list[int], base: float) -> float | None:
    """Least-squares period from the sums of ``u = t - base * n``, or ``None`` if undetermined."""
    count, sn, su, snn, snu, _ = sums
    sxx = count * snn - sn * sn
    return None if sxx <= 0 else base + (count * snu - sn * su) / sxx


def _slope_and_sigma(sums: list[int], base: float, prior: float) -> tuple[float, float] | None:
    """Least-squares period from the sums of ``u = t - base * n`` and its standard error.

    The standard error never falls below a part in a million of ``prior`` (timestamps are whole
    ns), so a prior is never refuted by rounding. ``None`` with fewer than three points.
    """
    count, sn, st, snn, snt, stt = sums
    sxx = count * snn - sn * sn
    if sxx <= 0 or count < 3:
        return None
    sxy = count * snt - sn * st
    syy = count * stt - st * st
    slope = base + sxy / sxx
    # residual sum of squares, exactly: (syy * sxx - sxy**2) / (sxx * count)
    sse = (syy * sxx - sxy * sxy) / (sxx * count)
    sigma = math.sqrt(max(sse, 0.0) / (count - 2) * count / sxx)
    return slope, max(sigma, prior * 1e-6)


def _wanders(times: list[int], period: float) -> bool:
    """Whether present returns drift like a loop running at its own rate rather than stay
    near a vblank grid of ``period``.

    A present without vsync that does work of its own (software GL copying the picture)
    returns that work after its call, and a loop that calls the next present as soon as it
    can runs at its own rate: over a few presents its returns look like a grid (within a
    tenth of a period when the work jitters little). What tells the two apart is not how
    near the returns lie to a grid but whether they *stay* near it. Wake-up noise is drawn
    afresh at each vblank: the returns scatter around the grid by the noise and no
    further, however many there are. A free-running loop's intervals jitter and nothing
    pulls it back: its returns wander away from any line like a random walk, and their
    spread around the fitted line grows with the number of presents while each step stays
    the same. So each interval is counted in whole periods, the returns fitted by least
    squares against the counts, and they wander when consecutive residuals are much closer
    to each other than to the line: von Neumann's ratio (the mean squared step over the
    mean square; independent noise: about 2, a random walk of 30 steps: about 0.5) below
    ``WANDER_VON_NEUMANN``, or a spread around the line more than ``WANDER_RATIO`` times
    the largest step (independent noise: about 1.2; the walk: about 3). In 20,000 simulated
    draws of 30 presents, the two together rejected 3 % of grids with uniform noise or a busy
    desktop's late wake-ups (a grid is tried again with the next present) and accepted 0.3 %
    of random walks (1.5 and 1.5: 7 % and 0.2 %, and noisy displays judged off for good more
    often). Looser (1.0 and 1.6: 0.9 % and 0.8 %), a 1 ms copy without vsync passed
    for a 1000 Hz grid from the start-up probes (von Neumann 1.44, spread 1.57 steps); the
    spread test alone at 1.3 rejected 12 % of grids and kept rejecting a true one for dozens
    of presents (the windows share all but one present).
    """
    ns = [0]
    for a, b in pairwise(times):
        ns.append(ns[-1] + max(1, round((b - a) / period)))
    rel = [t - times[0] for t in times]
    sums = _sums(ns, rel)
    slope = _slope(sums, 0.0)
    if slope is None:
        return False
    mean_n, mean_t = sums[1] / sums[0], sums[2] / sums[0]
    residuals = [t - mean_t - slope * (n - mean_n) for n, t in zip(ns, rel, strict=True)]
    steps = [b - a for a, b in pairwise(residuals)]
    squares = sum(r * r for r in residuals)
    if squares <= 0:
        return False  # exactly on a line
    if sum(d * d for d in steps) < WANDER_VON_NEUMANN * squares:
        return True
    return max(residuals) - min(residuals) > WANDER_RATIO * max(abs(d) for d in steps)


def _whole_periods(times: list[int], period: float) -> list[int]:
    """Each time's count of whole periods after the first, ``period`` being a few percent
    off at most: its place on the line fitted so far, rounded.

    The line is least squares over the times already placed within a quarter period of it
    (on ``period`` until they span 8 periods), so neither a rough period nor a return that
    woke late carries the count off: counted from the latest return alone, the next return
    after one that woke half a period late was a vblank off, and every later one with it
    (240 Hz, a busy desktop). The line starts at each of the first 8 times in turn (the
    times before it counted back from it), and the start that places the most times near
    it wins: the first times may have woken late too."""
    best: tuple[int, list[int]] | None = None
    for start in range(min(8, len(times))):
        placed, ns = _count_from(times, start, period)
        if best is None or placed > best[0]:
            best = (placed, ns)
    assert best is not None
    return best[1]


def _count_from(times: list[int], start: int, period: float) -> tuple[int, list[int]]:
    """:func:`_whole_periods` with the line started at ``times[start]``: (how many times
    lay near it, the counts)."""
    origin = times[start]
    ns = [round((t - origin) / period) for t in times[:start]] + [0]
    # least squares of (n, t - origin) over the times placed near the line
    count, sum_n, sum_u, sum_nn, sum_nu = 1, 0, 0, 0, 0
    slope, intercept = period, 0.0
    for t in times[start + 1 :]:
        u = t - origin
        place = (u - intercept) / slope
        n = round(place)
        ns.append(n)
        if abs(place - n) > 0.25:
            continue
        count, sum_n, sum_u = count + 1, sum_n + n, sum_u + u
        sum_nn, sum_nu = sum_nn + n * n, sum_nu + n * u
        mean_n, mean_u = sum_n / count, sum_u / count
        spread = sum_nn - count * mean_n * mean_n
        if n >= 8 and spread > 0:
            slope = (sum_nu - count * mean_n * mean_u) / spread
        intercept = mean_u - slope * mean_n
    return count, [n - ns[0] for n in ns]


def _period_fit(times: list[int], rough: float) -> tuple[float, float] | None:
    """The period of ``times`` and its standard error: Theil-Sen (``_robust_slope``) against
    their whole counts of the ``rough`` period (``_whole_periods``), which a late wake-up
    cannot pull (``None``: no spread in the counts)."""
    ns = _whole_periods(times, rough)
    return _robust_slope([float(n) for n in ns], [float(t - times[0]) for t in times])


def _robust_slope(xs: list[float], ys: list[float]) -> tuple[float, float] | None:
    """Theil-Sen slope of ``ys`` on ``xs`` (the median of the slopes between pairs of points:
    a few points far off the line, however far, do not move it) and its standard error from
    the residuals' median absolute deviation (``None``: no spread in ``xs``)."""
    count = len(xs)
    slopes = sorted(
        (ys[j] - ys[i]) / (xs[j] - xs[i])
        for i in range(count)
        for j in range(i + 1, count)
        if xs[j] != xs[i]
    )
    if not slopes:
        return None
    slope = slopes[len(slopes) // 2]
    residuals = sorted(y - slope * x for x, y in zip(xs, ys, strict=True))
    middle = residuals[count // 2]
    mad = sorted(abs(r - middle) for r in residuals)[count // 2]
    mean_x = sum(xs) / count
    sxx = sum((x - mean_x) ** 2 for x in xs)
    # timestamps are no finer than a few microseconds: a spread of waits below that tells nothing
    return slope, max(1.4826 * mad, 20_000.0) / math.sqrt(sxx)


def _scatter_and_spread(
    pairs: list[tuple[int, int]], base: float, period: float
) -> tuple[float, float]:
    """How widely returns (``(return, duration)`` pairs) scatter around the grid
    ``base + period * n``, taken modulo the period, and how widely their durations spread, an
    eighth of them left out at each end of both. A present that waits returns at its vblank
    wherever it was called (the scatter is the wake-up noise; the durations take up the
    calls' variation); one that does its own work without vsync returns it after the call
    (the durations vary only as the work does; the returns inherit every variation of the
    calls)."""
    scatter, _ = _circular_span([t - base for t, _ in pairs], period, len(pairs) // 8)
    return scatter, _durations_spread(pairs)


def _durations_spread(pairs: list[tuple[int, int]]) -> float:
    """How widely the durations of ``(return, duration)`` pairs spread, an eighth of them left
    out at each end."""
    trim = len(pairs) // 8
    durations = sorted(duration for _, duration in pairs)
    return durations[-1 - trim] - durations[trim]


def _narrowest_arc(values: Sequence[float], period: float, leave: int) -> float:
    """The width of the narrowest arc, taken modulo ``period``, that holds all of ``values``
    but ``leave`` of them (left out wherever they lie: a busy desktop's late wake-ups are
    all late)."""
    ordered = sorted(value % period for value in values)
    count = len(ordered)
    keep = count - leave
    if keep <= 1:
        return 0.0
    wrapped = ordered + [value + period for value in ordered]
    return min(wrapped[i + keep - 1] - wrapped[i] for i in range(count))


def _circular_span(values: Sequence[float], period: float, trim: int) -> tuple[float, float]:
    """How widely ``values`` spread taken modulo ``period``, and the middle of that spread.

    The circle is cut at 0 and at half a period, the values on each cut line sorted with
    ``trim`` left out at each end, and the narrower of the two spans kept (values just below
    and just above a whole period are neighbours on one of the cuts): (its width, its middle,
    on the cut's own scale)."""
    best: tuple[float, float] | None = None
    for shift in (0.0, period / 2):
        ordered = sorted((value + shift) % period for value in values)
        low, high = ordered[trim], ordered[-1 - trim]
        span = (high - low, (low + high) / 2 - shift)
        if best is None or span < best:
            best = span
    assert best is not None
    return best


#: What a late wake-up costs a reading of the probes (see ``_chain_images``), against 1 for a
#: copy that ended near a vblank by chance: a return within the grid's tolerance of a vblank
#: (a quarter of the period or more) comes by chance in one start in four or more, a wake-up
#: late enough to leave it in one in tens to hundreds.
LATE_WAKE_UP_COST = 3


def _chain_images(
    returns: list[int], blocks: list[int], quickest: int, delays: list[int] | None = None
) -> int:
    """How many images a swap chain held before a probe waited, as the probe returns show it
    when the first probe took time (0: no chain; at most 2, a chain of three images).

    Probes sent back to back into a full swap chain each wait for a vblank: the latest
    returns (``_latest_probes``) fix a grid. A probe that waited returned on it (within the noise
    the later returns show, or an eighth of a period), or after it when it woke late; one
    that did its own work (a copy) and found room returned when its work was done, anywhere
    in the period. Each image flips at the first vblank after its probe was done, and after
    the image before it; a probe finds room while fewer images than the chain holds wait.
    So each chain (of one, two or three images) explains the returns in its own way: a copy
    that found room where it returned, or a wait for the vblank that freed a place (or a
    wake-up late from it), or neither (a return before the vblank it would have waited for,
    when the chain had no room). The chain whose explanation needs the fewest coincidences
    wins, the smaller on a tie: a copy that ended on the grid by chance costs 1, a late
    wake-up ``LATE_WAKE_UP_COST``. (Counting the returns off the grid, a copying chain of
    three was seen as one image or none in half the starts: a copy that ended near a vblank
    was taken for a wait, and a copy that ran past the vblank that flipped the image before
    it found room once more. Every frame after a late wake-up drained it was then placed a
    vblank off: 114 Hz, a 2.4 ms copy, a busy desktop: the verdict "off" for good.) A
    variable-refresh panel shows its first image when the copy is done and times the next
    a period after: its first return is on the grid, and no chain explains it better.
    """
    # (``delays``: how long after the previous return each probe was called, 0 back to back;
    # the late ones, after those, are read too, their grid fixed by the back-to-back ones)
    delays = delays or [0] * len(returns)
    back_to_back = next((i for i, d in enumerate(delays) if d > IMMEDIATE_NS), len(delays))
    later = _latest_probes(returns[:back_to_back])
    period = _median_interval(later)
    # (A first probe that woke late from its wait looks like a copy that found room, and the
    # next probe's wait like a chain's: a chain of two was seen in 28 starts in 100 without
    # one, when one of the first five probes woke 0.2-2.5 periods late.)
    copied = [_may_be_copy(block, quickest, period) for block in blocks[: len(returns)]]
    # The vblanks may be twice as dense as the later returns: a copy over half of their
    # period (as long as one of the first probes that may have found room took) may be
    # longer than the refresh period, each probe then waiting for the second vblank after
    # its call, and a return halfway between them a wait for the vblank between. (Without a
    # chain, a 5 ms copy at 236 Hz made a first return halfway look like a copy that found
    # room: a chain of two seen, and the verdict "off".)
    longest = max(
        (block for block, copy in zip(blocks[:3], copied, strict=False) if copy), default=0
    )
    grids = (period, period / 2) if 2 * longest > period else (period,)
    readings = []
    for grid in grids:
        xs, tolerance, spread, refined = _grid_positions(returns, later, grid)
        readings.append((xs, tolerance, spread, [d / refined for d in delays]))
    costs = [
        min(_explain(xs, tol, spread, copied, images, calls) for xs, tol, spread, calls in readings)
        for images in (1, 2, 3)
    ]
    return costs.index(min(costs))


def _may_be_copy(block_ns: int, quickest_ns: int, period_ns: float) -> bool:
    """Whether a present that took ``block_ns`` may have done nothing but its copy (and found
    room in a swap chain). Every present copies first, so none copies for more than twice
    what the quickest start-up probe took in all, late ones included (copies vary: +-25 %
    in the simulator), nor for a period: the probes that waited, which copy too, waited a
    period each."""
    return block_ns <= LONGEST_COPY_PROBES * quickest_ns and block_ns < period_ns


def _median_interval(times: list[int]) -> int:
    """The median interval between consecutive ``times`` (the upper middle one of an even
    count)."""
    intervals = sorted(b - a for a, b in pairwise(times))
    return intervals[len(intervals) // 2]


def _latest_probes(returns: list[int]) -> list[int]:
    """The latest half of the back-to-back probe returns (``QUEUE_PROBES`` at least): waits,
    once the chain is full (see ``VsyncDetector._read_copying_chain``)."""
    return returns[-max(QUEUE_PROBES, len(returns) // 2) :]


def _grid_positions(
    returns: list[int], later: list[int], period: float
) -> tuple[list[float], float, float, float]:
    """The probe returns in periods from the vblanks of a grid fitted to the latest returns
    (``_latest_probes``; its period refined from ``period`` over them, whose wake-up noise
    the earliest returns, a dozen periods before, would otherwise see multiplied; vblanks at
    whole numbers, those returns' midrange at 0); how far from a vblank a return lies on the
    grid (an eighth of the period, or twice the spread of those returns); and that spread,
    which bounds the grid's own error: all in periods; and the refined period (ns).
    ``later`` are those latest returns."""
    fit = _period_fit(later, period)
    if fit is not None:
        period = fit[0]

    # wrapped round the median place (a late return, first, would wrap the rest), an eighth
    # left out at each end: a late wake-up among them, or a copy that found room after one
    # had drained the chain, is one return off the grid, not its noise
    def wrapped(origin: float) -> list[float]:
        return sorted(t - origin - period * round((t - origin) / period) for t in later)

    origin = later[0] + wrapped(later[0])[len(later) // 2]
    offsets = wrapped(origin)
    trim = len(offsets) // 8
    kept = offsets[trim : len(offsets) - trim]
    middle = origin - later[0] + (kept[0] + kept[-1]) / 2
    spread = kept[-1] - kept[0]
    tolerance = max(period / 8, 2 * spread)
    xs = [(t - later[0] - middle) / period for t in returns]
    return xs, tolerance / period, spread / period, period


def _explain(
    xs: list[float],
    tolerance: float,
    spread: float,
    copied: list[bool],
    images: int,
    delays: list[float],
) -> float:
    """The fewest coincidences that explain the probe returns ``xs`` (in periods from a grid
    vblank) with a swap chain of ``images`` (see ``_chain_images``; ``inf``: none does).
    ``copied`` says which probes took short enough to have found room after their copy;
    a return within ``spread`` (the grid's own error) of its vblank may lie on either side
    of it. Each probe was called ``delays`` (in periods) after the previous return."""
    tiny = 1e-6
    # (the vblanks the latest images flip at, the latest return): the least cost of each
    states: dict[tuple[tuple[int, ...], float], float] = {((), -math.inf): 0.0}
    for x, could_copy, delay in zip(xs, copied, delays, strict=True):
        j = round(x)
        on_grid = abs(x - j) <= tolerance
        # found room: done when it returned (on the grid by chance, at a cost: just before or
        # after the vblank, on the side it lies on unless within the grid's own error)
        sides = (at for at in (j - tiny, j + tiny) if abs(x - at) <= spread or (x < j) == (at < j))
        dones = [(at, 1) for at in sides] if on_grid else [(x, 0)]
        found: dict[tuple[tuple[int, ...], float], float] = {}
        for (flips, latest), cost in states.items():
            call = latest + delay
            for at, extra in dones:
                waiting = [f for f in flips if f > at]
                if could_copy and at >= call and len(waiting) + 1 < images:
                    _keep(found, (*flips, _flip(at, flips)), images, at, cost + extra)
            # waited: for the vblank that freed a place, counted from the call
            if math.isinf(call):  # the first probe: the chain is empty
                if images == 1:
                    own = j if on_grid else math.floor(x)
                    _keep(found, (own,), images, x, cost + (0 if on_grid else LATE_WAKE_UP_COST))
                continue
            # Its copy done just after the call, or just after a vblank before its return.
            # Past the images waiting at the call (at most ``images`` vblanks on) only the
            # vblank before the one it returned at tells more: the rest are late wake-ups.
            after = math.ceil(call)
            readies = {call, *range(after, min(math.floor(x), after + images + 1) + 1)}
            if after <= j - 1 <= x:
                readies.add(j - 1)
            for ready in sorted(readies):
                waiting = [f for f in flips if f > ready]
                waiting.append(_flip(ready, flips))
                if len(waiting) < images:
                    break  # the chain had room: it would not have waited
                freed = waiting[len(waiting) - images]
                if on_grid and j == freed:
                    _keep(found, (*flips, waiting[-1]), images, j + tiny, cost)
                elif x > freed + tolerance:
                    _keep(found, (*flips, waiting[-1]), images, x, cost + LATE_WAKE_UP_COST)
        states = found
    return min(states.values(), default=math.inf)


def _flip(ready: float, flips: tuple[int, ...]) -> int:
    """The grid vblank an image flips at: the first after its probe's copy was done
    (``ready``, in periods), and after the latest image's (``flips``, see ``_explain``)."""
    first = math.floor(ready) + 1
    return max(first, flips[-1] + 1) if flips else first


def _keep(
    found: dict[tuple[tuple[int, ...], float], float],
    flips: tuple[int, ...],
    images: int,
    at: float,
    cost: float,
) -> None:
    """Keep a reading of the probes (see ``_explain``) unless one as good leads to the same
    state: the vblanks the latest images flip at (older ones have flipped) and the return."""
    key = (flips[-images - 1 :], at)
    if cost < found.get(key, math.inf):
        found[key] = cost


def _waits_grid(waits: list[int], period: float) -> tuple[float, float]:
    """Where the probes that ``waits`` (back to back, a vblank each) put the grid: its phase
    (the median offset of each return from ``waits[0]`` and whole periods) and the reach of
    their noise about it: three median deviations (uniform noise's whole reach is two, the
    rest is room for the phase's own error), which a late wake-up among them cannot widen."""
    offsets = sorted(t - waits[0] - i * period for i, t in enumerate(waits))
    phase = offsets[(len(offsets) - 1) // 2]  # (the lower middle: lateness pulls upwards)
    deviations = sorted(abs(offset - phase) for offset in offsets)
    return phase, 3 * deviations[(len(deviations) - 1) // 2]


def _waited_briefly(returns: list[int], at_once: int, period: float, noise: float) -> int:
    """How many of the first ``at_once`` probe returns (all of them under ``block_on_ns``) were
    at once: the latest of them waited too when it returned on the grid the waits after it
    fix, a period before the first, within ``noise``: for a vblank that came within
    ``block_on_ns`` of its call, or one a wake-up came early for. A probe at once in a swap
    chain returns wherever its call came, a part of a period before the first wait. (A
    variable-refresh panel, too, shows its first image at once and makes the next wait a
    whole period from it.) Counted, every image was placed a vblank late (360 Hz: one start
    in 12). Measured against the grid the waits fix rather than the first wait alone, the
    window holds one return's noise, not two."""
    waits = returns[at_once : at_once + QUEUE_PROBES]
    if not at_once or not waits:
        return at_once
    phase, _ = _waits_grid(waits, period)
    if abs(returns[at_once - 1] + period - waits[0] - phase) <= noise:
        return at_once - 1
    return at_once


def _separating_band(samples: list[tuple[int, bool]]) -> tuple[int, int | None]:
    """The thresholds ``c`` with the fewest samples on their wrong side (``(s, True)`` with
    ``s >= c``, or ``(s, False)`` with ``s < c``): the lowest one, and the end of that run of
    equally good thresholds (``None`` when it runs past every sample). ``(0, ...)`` without
    skips."""
    ordered = sorted(samples)
    errors = sum(1 for _, skipped in ordered if skipped)  # threshold 0: every skip is wrong
    low, best_errors = 0, errors
    high: int | None = ordered[0][0] if ordered else None
    for i, (s, skipped) in enumerate(ordered):
        errors += -1 if skipped else 1  # moving the threshold past this sample
        end = ordered[i + 1][0] if i + 1 < len(ordered) else None
        if errors < best_errors:
            low, high, best_errors = s + 1, end, errors
        elif errors == best_errors and high is not None and high <= s + 1:
            high = end  # the run of equally good thresholds goes on
    return low, high


def _without_late(times: list[int], period: float, tolerance: float) -> list[int]:
    """``times`` without the returns that woke late on a grid of about ``period``: one whose
    interval from the previous kept return is more than ``tolerance`` off a whole number of
    periods while the interval across it (to the next return) is within ``tolerance`` of one.
    (Returns can be late by any amount but early only by the noise, and the one after a late
    wake-up is back on the grid; one more than half a period late is nearer the next
    vblank, so "off" is either side.) The last return is left out when it is off: the next
    one would tell whether it woke late (a least-squares period through a last return 2 ms
    late at 240 Hz was 1 % off). Where that would leave out more than an eighth of them
    (``STRAY_FRACTION``), the returns spread by their noise, not by late wake-ups: all are
    kept."""

    def off(interval: int) -> bool:
        return abs(interval - max(1, round(interval / period)) * period) > tolerance

    kept = times[:1]
    for t, after in pairwise(times[1:]):
        if not (off(t - kept[-1]) and not off(after - kept[-1])):
            kept.append(t)
    if len(times) > 1 and not off(times[-1] - kept[-1]):
        kept.append(times[-1])
    return kept if STRAY_FRACTION * (len(times) - len(kept)) <= len(times) else times


def _late_strays(residuals: list[float], most: int) -> tuple[float, set[int]]:
    """The spread of a grid's residuals with up to ``most`` lone late returns left out, and
    the indices of those left out.

    A late wake-up among the few presents a grid starts from (a busy desktop) is not noise to
    fit: until the window holds ``_VblankGrid.TRIM`` presents nothing is trimmed, so it would
    stay the late edge, the grid would run late by half its lateness, and the noise bound it
    sets would let every later return within the tolerance into the fit. At 240 Hz one probe
    2.8 ms late over ±0.25 ms of noise made the grid 1.27 ms late (noise bound 1.5 ms) for
    390 frames, 340 of them shown a refresh late, while its stated uncertainty fell to 80 µs.
    Returns can be late by any amount but early only by the noise, so only the latest are
    suspect: the ``k`` latest (the fewest that will do, at most ``most``) are left out (they
    keep their vblanks) when the gap below them is more than three times the spread of all
    the others. Uniform noise does that for one in 4 ** (2 - count) of starts (a gap merely
    wider than that spread, in 2 ** (2 - count): at 165 Hz with ±2 ms a fair return was
    dropped, the noise taken as 0.9 ms, the grid started 1 ms early); a wake-up 2 ms late
    over ±0.25 ms of noise leaves a gap of at least 1.5 ms above a spread of at most 0.5 ms.
    """
    ordered = sorted(residuals)
    for k in range(1, min(most, len(ordered) - 2) + 1):
        rest = ordered[-k - 1] - ordered[0]
        if ordered[-k] - ordered[-k - 1] > 3 * rest:
            cut = ordered[-k]
            return rest, {i for i, r in enumerate(residuals) if r >= cut}
    return ordered[-1] - ordered[0], set()


def _place_all(
    times: list[int], readies: list[int | None], origin: int, phase: float, period: float
) -> tuple[list[int], list[float]] | None:
    """Vblank indices and residuals of presents on a trial grid (``None``: two on one vblank)."""
    ns: list[int] = []
    residuals: list[float] = []
    previous: int | None = None
    for t, ready in zip(times, readies, strict=True):
        if ready is None or ready > t:
            n = round((t - origin - phase) / period)
        else:
            n = math.floor((ready - origin - phase) / period) + 1
        if previous is not None and n <= previous:
            if ready is not None:
                n = previous + 1  # one image per vblank: the next one
            else:
                return None
        previous = n
        ns.append(n)
        residuals.append(t - origin - phase - period * n)
    return ns, residuals


class VsyncDetector:
    """Decides vsync on/off and estimates the refresh rate from present timestamps.

    Feed every present with :meth:`observe`. Read :attr:`verdict` (``None`` until enough frames have
    been seen, then ``True``/``False``) and :attr:`refresh_hz`.

    Args:
        settings: Tuning.
        nominal_hz: The refresh rate the OS reports for the screen mode, if known (a prior to
            confirm; see the module docstring). Can be changed later.
    """

    __slots__ = (
        "_at_once_while_off",
        "_back_to_back",
        "_copy_leads",
        "_cost_samples",
        "_flip_offset_ns",
        "_grid",
        "_held_votes",
        "_last_probe_ns",
        "_on_votes",
        "_paced_blocks",
        "_placement_cost_ns",
        "_presents",
        "_probe_blocks",
        "_probe_calls",
        "_probe_returns",
        "_probe_samples_to",
        "_probed_cost",
        "_probes_at_once",
        "_probes_drained",
        "_quickest_probe_ns",
        "_room_since_wait",
        "_since_cost",
        "_trial",
        "_trusted",
        "_votes",
        "_waited_at",
        "doubted",
        "found_room",
        "frames",
        "planning_cost_ns",
        "present_cost_ns",
        "settings",
        "verdict",
    )

    def __init__(
        self, settings: VsyncSettings | None = None, nominal_hz: float | None = None
    ) -> None:
        self.settings = settings or VsyncSettings()
        self._grid = _VblankGrid(self.settings)
        self._votes: deque[tuple[int, bool]] = deque(maxlen=self.settings.vote_window_frames)
        self._on_votes = 0
        self.verdict: bool | None = None
        window = self.settings.cost_window_frames
        # (time from the call to the first grid vblank after it, whether the image skipped it),
        # the skips and the others apart: a loop that now holds its presents early enough
        # never skips, which proves nothing against the skips it saw before
        self._cost_samples = (
            deque[tuple[int, bool, int]](maxlen=window // 2),
            deque[tuple[int, bool, int]](maxlen=window // 2),
        )
        self._since_cost = 0
        # the median skip's distance and the nearest flip's, as the cost last settled (see
        # copy_range_ns)
        self._copy_leads: tuple[int, int | None] = (0, None)
        # the cost the start-up probes showed and the end of its band (see _learn_probes_cost)
        self._probed_cost: tuple[int, int | None] = (0, None)
        self._probe_samples_to = 0  # the index of the probes' last cost sample
        # where images' returns lie around the grid's vblanks, on average (see _learn_cost)
        self._flip_offset_ns = 0.0
        self._presents = 0  # presents that taught the cost, probes included
        # the start-up probes: how many returned at once before the first that waited, and
        # the returns of those and of the waiting ones (see queue_offset)
        self._probes_at_once: int | None = 0
        self._back_to_back = True  # no probe called late yet
        self._probe_returns: list[int] = []
        self._probe_blocks: list[int] = []  # how long each probe took, in order
        # what the quickest probe took, where presents that find room copy first (the first
        # probe, sent into the empty chain, took time; see observe)
        self._quickest_probe_ns: int | None = None
        # the same two of the probes before each late wake-up that drained the chain (see
        # _learn_queue)
        self._probes_drained: list[tuple[list[int], int]] = []
        # (return, call, the previous probe's return) of the probes but the first (see
        # _probe_waits and _learn_probes_cost)
        self._probe_calls: list[tuple[int, int, int]] = []
        self._last_probe_ns: int | None = None
        self._paced_blocks: deque[int] = deque(maxlen=window // 2)
        # whether a present returned at once since vsync was judged off (see _try_grid)
        self._at_once_while_off = False
        # the returns a grid started while judged off has placed since (None: no such grid
        # on trial), and the votes for "on" it gave meanwhile (see _try_grid)
        self._trial: list[int] | None = None
        self._held_votes: list[int] = []
        self._trusted = -1  # the grid (its number among those started) that passed its trial
        #: The present call's own cost in ns, as far as the flips prove it (0 while no present
        #: has been seen to miss a vblank it was called before; see :meth:`_learn_cost`).
        self.present_cost_ns = 0
        #: The cost to plan a present with: :attr:`present_cost_ns`, or the longest distance
        #: before its vblank at which presents skipped it often (see :meth:`_cost_reach_ns`).
        self.planning_cost_ns = 0
        self._placement_cost_ns = 0
        #: Whether the latest vote disagreed with the verdict: evidence worth checking again soon.
        self.doubted = False
        #: Whether the latest present returned at once in a swap chain the probes showed: it
        #: found room, and waited for nothing (see :attr:`queue_offset`).
        self.found_room = False
        # the grid vblank the latest present (not a probe) waited for, if it waited
        self._waited_at: int | None = None
        # presents that found room since the latest wait in a chain the probes did not show,
        # or None where none was seen so (see _chain_unseen)
        self._room_since_wait: int | None = None
        self.frames = 0
        self.nominal_hz = nominal_hz

    @property
    def nominal_hz(self) -> float | None:
        """The OS's nominal refresh rate (the prior), or ``None``."""
        prior = self._grid.prior_ns
        return None if prior is None else NS_PER_S / prior

    @nominal_hz.setter
    def nominal_hz(self, value: float | None) -> None:
        settings = self.settings
        usable = (
            value is not None
            and math.isfinite(value)
            and settings.min_refresh_hz <= value <= settings.max_refresh_hz
        )
        prior = NS_PER_S / value if usable and value is not None else None
        if prior != self._grid.prior_ns:
            self._grid.prior_ns = prior
            self._grid.prior_refuted = False
            self._grid.reset()

    @property
    def refresh_hz(self) -> float | None:
        """Estimated refresh rate while vsync is judged on, else ``None``.

        The measured rate when the timestamps pin it (see the module docstring), else the grid's
        period: the confirmed nominal rate, or the fitted one.
        """
        grid = self._grid
        period = grid.period_ns
        if self.verdict is not True or period is None or period <= 0:
            return None
        if grid.uses_prior and grid.measured_ns is not None:
            period = grid.measured_ns
        return NS_PER_S / period

    @property
    def period_ns(self) -> float | None:
        """Fitted vblank period in ns, or ``None`` without an established grid."""
        return self._grid.period_ns

    @property
    def uses_nominal(self) -> bool:
        """Whether the grid runs on the confirmed nominal period (else on the measured one)."""
        return self._grid.uses_prior

    @property
    def phase_uncertainty_ns(self) -> float:
        """How far a vblank time on the grid may be from the true one (a few standard errors)."""
        return self._grid.phase_uncertainty_ns()

    @property
    def noise_ns(self) -> float:
        """The wake-up noise bound seen on the grid (half the spread of the fitted presents)."""
        return self._grid.noise_ns

    @property
    def clean_lead_ns(self) -> float:
        """How long before its vblank a present must be called to wait for it whatever its
        wake-up noise (the noise bound, the blocking threshold and twice the grid's
        uncertainty): only such presents show the grid their early returns."""
        return self._grid.clean_lead_ns

    def vblank_after(self, t_ns: int) -> int | None:
        """Time of the first grid vblank strictly after ``t_ns``, or ``None`` without a grid."""
        grid = self._grid
        if grid.period_ns is None:
            return None
        return grid.time_of(grid.index_after(t_ns))

    def observe(
        self,
        present_ns: int,
        block_ns: int | None = None,
        *,
        probe: bool = False,
        paced: bool = False,
    ) -> PresentEstimate:
        """Record one present.

        Args:
            present_ns: Timestamp taken right after the present call returned.
            block_ns: Time spent inside the present call, if measured.
            probe: True for the loop's start-up present-only frames: they train the grid but do
                not vote.
            paced: True when the frame limiter chose when to issue the present: if it did not
                block, it abstains (the limiter may have issued it just before a vblank).

        Returns:
            The present's place on the vblank grid, if any.
        """
        settings = self.settings
        copy_only = False
        call_ns = None if block_ns is None else present_ns - block_ns
        # the image could flip no sooner than the call plus the present's own work
        ready_ns = None if call_ns is None else call_ns + self._placement_cost_ns
        blocked = (
            None if block_ns is None else block_ns - self.present_cost_ns >= settings.block_on_ns
        )
        if block_ns is not None and not probe and not paced:
            blocked = self._judge_against_paced(block_ns, blocked)
            # A present in a swap chain whose presents copy first (the first probe, sent into
            # it empty, took time) that took no longer than a copy can: it may have done
            # nothing else, and its return may be where its copy ended. With room at its call
            # it found room (below); with the chain full, it waited, or its copy ended past
            # the vblank that freed a place: placed as a wait, fitted only near its vblank,
            # and abstaining (see _VblankGrid.add).
            period = self._grid.period_ns
            copy_only = bool(
                blocked
                and period is not None
                and self.verdict is not False
                and self._grid.queue_offset
                and self._quickest_probe_ns is not None
                and _may_be_copy(block_ns, self._quickest_probe_ns, period)
                # (however long: a first probe that woke late, with no copy at all, is not
                # read as a chain, since the late probes returned soon after their calls (see
                # _read_copying_chain); kept under half a period for that, a copy of more
                # was never taken for one, and a present that found room after it voted
                # "off" from where its copy ended: 97 Hz, a 5.8 ms copy, a chain of 3)
            )
            if copy_only and ready_ns is not None and self._grid.found_room(present_ns, ready_ns):
                # There its duration cannot tell a wait from the copy a present does when it
                # finds room (no cost is learnt there: see _learn_cost). The images placed so
                # far can: with room at its call, such a present found it. (114 Hz, a 2.4 ms
                # copy, a chain of 3, a busy desktop: a wake-up 7.8 ms late left the chain a
                # place, the next present returned after its copy, was placed as a wait, and
                # every later one a vblank after its own: all off the grid, the verdict "off"
                # 25 frames later, 1.6-2.8 ms of motion error.) One that took longer waited,
                # whatever the images placed say: they may be wrong (after the start-up probes
                # called late, which are not placed, every frame was taken for one that found
                # room, and placed where it returned). Where presents that find room return at
                # once, one that took time waited.
                blocked = False
        grid = self._grid
        self.found_room = blocked is False and grid.queue_offset > 0
        if probe and call_ns is not None and block_ns is not None:
            previous, self._last_probe_ns = self._last_probe_ns, present_ns
            delay = 0 if previous is None else call_ns - previous
            if previous is not None:
                self._probe_calls.append((present_ns, call_ns, previous))
            # The first probe took time: every present may copy first, and none then takes
            # less than its copy, however late it was called (a wait called just before its
            # vblank does). The quickest probe bounds the copy (see _may_be_copy).
            quickest = self._quickest_probe_ns
            if quickest is not None:
                self._quickest_probe_ns = min(quickest, block_ns)
            elif previous is None and block_ns >= settings.block_on_ns:
                self._quickest_probe_ns = block_ns
            if delay > IMMEDIATE_NS:
                # a probe called late on purpose: a measurement (see _probes_copied), kept out
                # of the grid, which the back-to-back probes train as before; they are over
                # (a later one called at once is a late one all the same)
                self._back_to_back = False
                return PresentEstimate(present_ns, None, None)
            if self._back_to_back and self._probes_at_once is not None and blocked is not None:
                self._learn_queue(present_ns, block_ns, blocked)

        if call_ns is not None and grid.period_ns is not None and not paced and not probe:
            self._learn_cost(present_ns, call_ns)
        starts = grid.starts
        smooth_ns, vblanks, on_grid, unsure = grid.add(
            present_ns, ready_ns, blocked, paced, self.verdict is not False, copy_only
        )
        if not probe:
            self._try_grid(
                present_ns, block_ns, grid.starts != starts, blocked is not False or paced
            )
        if paced and block_ns is not None:
            self._paced_blocks.append(block_ns)
        if not probe:
            self.frames += 1
            vote: bool | None
            if paced and blocked is not None:
                vote = None  # the limiter chose the moment: on its own grid, whatever the display
            elif blocked and self.verdict is False and self._at_once_while_off:
                # Judged off, where presents returned at once (no copy: blocking tells), one
                # that blocked waited, wherever it returned: the grid is the limiter's own, and
                # a wait off it (or "late" on it) is no evidence against vsync. (Vsync switched
                # on with +-2 ms of noise was noticed up to 69 frames later, such waits voting
                # "off" until the grid moved to the vblanks.)
                vote = True
            elif unsure:
                vote = None  # woke late, or called just before its vblank: cannot tell
            elif blocked is None:
                # blocking unmeasured: where it returned is all there is; measured but not
                # telling (a check whose duration lies between a copy's and a wait's), it
                # abstains: a loop running at its own rate returns on a grid of its own
                vote = on_grid if block_ns is None else None
            elif (
                blocked
                and not on_grid
                and (self.verdict or (self.verdict is None and self._last_probe_ns is not None))
                and self._surely_waited(block_ns)
            ):
                # A present that waited, whatever its return: it is the grid that is off, or
                # not found yet, not vsync (see _surely_waited), and the wait is evidence of
                # vsync. Judged on, whatever the probes; undecided, where they bound the copy
                # (a detector fed no probes knows nothing of it). Wake-up noise of a third of
                # a period hides the grid for dozens of presents, and each that waited off the
                # grid there voted "off": 142.2 Hz, no reported rate, +-1.96 ms, judged off at
                # frame 15 and paced at 60 Hz for good. Abstaining, only the presents that
                # returned at once (an early wake-up: the noise reaches past the call) voted,
                # and all "off": judged off, paced, on again, and round, every hundred
                # frames (194.8 Hz, +-2 ms, no grid ever found: 8.5 ms of vblank error).
                vote = True
            elif blocked and self.verdict and grid.period_ns is None:
                # Judged on with no grid, a present that may have copied or waited (its
                # duration under what a copy may take): there is no grid for it to be off.
                # (Voting "off" there flipped vsync judged on at that noise, where the
                # start-up probes, each a wait, had bounded the copy at 2.4 ms.)
                vote = None
            else:
                vote = bool(blocked) and on_grid
            if vote and self._trial is not None:
                self._held_votes.append(present_ns)  # counted if the grid passes its trial
            elif vote is not None:
                self._vote(present_ns, vote)
            elif (
                self.verdict is None
                and self._grid.queue_offset
                and self.frames >= settings.decide_after_frames + len(self._votes)
            ):
                # The probes saw a swap chain: presents that waited, one a vblank, once it was
                # full. That is vsync; but a loop whose frames take longer than a period finds
                # room in the chain every time, and such presents abstain: when as many have
                # abstained as votes would decide on, the votes there are decide as they would
                # (on a tie, or with none, the probes do). (With frames just in time in a chain
                # whose presents copy first, 14 presents voted "on", and every later one,
                # copy-only, abstained: never decided, at 88 Hz with +-1 ms of noise.)
                on = self._on_votes
                self.verdict = 2 * on >= len(self._votes)
        if not probe and not paced and block_ns is not None and blocked is not None:
            # (after its vote: it votes as a present with no chain known would)
            self._learn_unseen_chain(blocked, block_ns, ready_ns)
        if smooth_ns is None:
            vblanks = None
        return PresentEstimate(present_ns, smooth_ns, vblanks)

    def _learn_unseen_chain(self, blocked: bool, block_ns: int, ready_ns: int | None) -> None:
        """Learn a swap chain the start-up probes did not show from a present that found
        room after one that waited, called after the vblank that followed that wait (see
        :meth:`_chain_unseen`): it returned at once (within ``block_on_ns`` of its call: no
        copy either, which takes time even with room, and whose length a cost learnt from
        the flips only bounds). As with the probes (see :attr:`queue_offset`), a vblank that
        flipped an image with none to replace it is what drains the chain: the waiting
        present woke late, or the next was called late. (After any wait, vsync switched off
        mid-run was taken for a chain at its first present at once, and the switch's hitch
        grew from 16.4 to 23.1 ms.)

        Forgotten when presents stop waiting: in a chain, a loop that runs ahead of the
        display waits again, and frames just in time are called early enough to wait for the
        vblank that frees a place (:attr:`queue_lead_ns`), but with vsync switched off just
        after a late wake-up and the loop paced at the display's rate, every present would
        find room, and abstain, for good. So after ``QUEUE_PROBES`` presents that found room
        and none that waited, the chain is forgotten, and such presents vote "off" again;
        meanwhile each leaves the verdict in doubt (see :attr:`doubted`)."""
        grid = self._grid
        since = self._room_since_wait
        if blocked:
            if since is not None:
                self._room_since_wait = 0
        elif block_ns < self.settings.block_on_ns and self._chain_unseen(ready_ns):
            grid.queue_offset = 1
            self._room_since_wait = 0
        elif since is not None:
            # found room: as vsync switched off would have it, the verdict is in doubt
            self.doubted = True
            self._room_since_wait = since + 1
            if since + 1 > QUEUE_PROBES:
                grid.queue_offset = 0
                self._room_since_wait = None
        self._waited_at = grid.last_index if blocked and grid.period_ns is not None else None

    def _chain_unseen(self, ready_ns: int | None) -> bool:
        """Whether a present that returned at once, its image ready at ``ready_ns``, found
        room in a swap chain the probes did not show: one that the previous present's wait
        left full, drained since (its image ready after the vblank that followed that wait).

        Believed to wait for vblanks with no chain known, it did when its image was ready so
        long before the next vblank that even the earliest wake-up for it came later (the
        grid's clean lead), by the noise bound once more, on a grid whose noise is under an
        eighth of its period: with one image at most on its way, a present waits for the
        vblank after its call, unless called so soon after the vblank before it (by as much
        again) that it may have caught that one. (The grid's phase may be off by as much as a
        noise the returns understate: at 172 Hz with +-1.4 ms, a present ready 8 us beyond
        the clean lead was one woken early, and the chain taken for seen placed every image a
        vblank late; at 153 Hz with +-2 ms, one ready far beyond both was woken early all the
        same.)

        A late wake-up drains a chain whose waits the probes' noise hid (their first wait
        ended near a whole period after the first call), and frames just in time, called
        just before their vblank, then find room there every time: each voted "off" (142.65
        Hz, a chain of 2, a busy desktop: judged off and on again eleven times, 1.7 ms of
        vblank error). Vsync switched off just then shows the same: see
        :meth:`_learn_unseen_chain`."""
        grid = self._grid
        period = grid.period_ns
        waited_at = self._waited_at
        if (
            self.verdict is False
            or grid.queue_offset
            or period is None
            or 8 * grid.noise_ns >= period
            or ready_ns is None
            or waited_at is None
        ):
            return False
        after = grid.index_after(ready_ns)
        bound = grid.clean_lead_ns + grid.noise_ns
        return (
            after > waited_at + 1
            and grid.time_of(after) - ready_ns >= bound
            # nor so soon after the vblank before that it may have caught it (a virtual display
            # flips a present called on the very nanosecond of its vblank there, at once)
            and ready_ns - grid.time_of(after - 1) >= bound
        )

    def _surely_waited(self, block_ns: int | None) -> bool:
        """Whether a present that blocked (see ``observe``) can only have waited for a vblank:
        where the first probe returned at once, a present does no work of its own, so taking
        time is waiting; where it copied first, one that took more than twice the quickest
        probe took longer than a copy can (as ``_may_be_copy``).

        Without vsync a present waits for nothing, so one that waited returned off the grid
        because the grid is off: a late wake-up, a grid started on a period a little off and
        drifted, or one that followed presents whose returns were where their copies ended.
        It votes "on" (the misses still reset the grid). Voting "off", eight such presents in
        a row flipped a right verdict once the votes for "on" had expired: in a swap chain with
        a busy desktop, 66 of 400 drawn displays judged on were flipped (22 fewer since), 42 of
        500 with noise up to half a period (6 fewer).

        Where the first probe returned at once, "at once" itself (under ``block_on_ns``) bounds
        the present's own work as the quickest probe does: a copy of 0.2 ms without vsync,
        blocking 0.15-0.25 ms, was otherwise taken for waits, and judged on at frame 15."""
        quickest = self._quickest_probe_ns
        if quickest is None:
            quickest = self.settings.block_on_ns
        return block_ns is not None and block_ns > LONGEST_COPY_PROBES * quickest

    def _try_grid(self, present_ns: int, block_ns: int | None, started: bool, placed: bool) -> None:
        """Put the grid on trial while vsync is judged off, and judge it on fresh returns.

        While vsync is judged off, a loop whose presents do work of their own (a copy) and
        that runs at its own rate tries a grid with every present, and the tests of a window
        (``_wanders``, ``_unpinned``) pass one window in a few hundred by chance: a chosen
        window proves nothing about the presents that follow. Where no present has returned
        at once since the verdict turned "off" (each does work of its own: blocking cannot
        tell a wait), a grid gives no vote for "on" while judged off until ``TRIAL_PRESENTS``
        returns it placed since are seen not to wander off it (out of sample: they were not
        chosen). Passed, the votes it gave meanwhile count, and so do its later ones; failed,
        the grid and those votes are dropped. A grid started before the verdict turned "off"
        is tried the same way: it was chosen too. (Free-running loops without vsync with a
        0.2-4 ms copy at 108-230 Hz were judged on thousands of frames into a run, for 30-60
        frames, by grids at their own rate or on the reported one.)
        """
        grid = self._grid
        # (within half the blocking threshold: a copy of 0.14-0.23 ms straddles the threshold)
        at_once = block_ns is not None and 2 * block_ns < self.settings.block_on_ns
        self._at_once_while_off = self.verdict is False and (self._at_once_while_off or at_once)
        if started or grid.period_ns is None or self.verdict is not False:
            self._trial = None  # a new grid, none, or the verdict not "off": nothing on trial
            self._held_votes.clear()
            if grid.period_ns is None or self.verdict is not False:
                return
        trial = self._trial
        if trial is None:
            if self._trusted == grid.starts:
                return
            if self._at_once_while_off:  # blocking tells a wait from a copy: no trial needed
                self._trusted = grid.starts
                return
            trial = self._trial = []
            if started:
                return  # its own returns were chosen
        if placed:
            trial.append(present_ns)
        if len(trial) < TRIAL_PRESENTS:
            return
        self._trial = None
        held, self._held_votes = self._held_votes, []
        if _wanders(trial, grid.period_ns):
            grid.reset()
            return
        self._trusted = grid.starts
        for at_ns in held:
            self._vote(at_ns, True)

    def probes_done(self) -> None:
        """The start-up probes are over: the grid takes their period (see
        ``_VblankGrid.settle``), and probes that took as long however late they were called
        decide "off" (see :meth:`_probes_copied`)."""
        copying = self._read_copying_chain()
        self._grid.settle()
        # (in a swap chain, where no grid has started: the late probes returned at vblanks
        # when it was full, and drained it at most now and then)
        if self.verdict is None and (not self.queue_offset or self._grid.period_ns is None):
            pinned = self._probes_pinned()
            if pinned is not None:
                # (a grid the back-to-back probes started on a multiple of the period, when a
                # copy of one to two periods returned two apart, is replaced: the late probes
                # returned at both of its halves)
                waits = self._probe_waits()
                self._grid.start_pinned(
                    [t for _, t, _ in waits], [t - block for _, t, block in waits], *pinned
                )
                self._grid.settle()
                self._learn_probes_cost()
                return
        if copying:
            self._start_on_chain_waits()
        if self.verdict is None and self._probes_copied():
            # and the grid they started is none: the reported rate's tolerance (half a period
            # above 200 Hz) would have every copy's return "on" it
            self.verdict = False
            self._grid.reset()
            self._grid.prior_refuted = True
            # what it learned from which of its vblanks images flipped at means nothing
            self._forget_cost()
        elif self.verdict is not False:
            self._learn_probes_cost()

    def _start_on_chain_waits(self) -> None:
        """Start the grid from the latest back-to-back probes, where they showed a swap chain
        whose presents copy first (see ``_read_copying_chain``) and started none, or one
        whose period theirs refutes (by ``establish_sigmas`` standard errors): once the
        chain was full each waited for the vblank that freed a place, and they fixed the
        grid the chain was read on (``_latest_probes``). A late wake-up drains such a chain,
        and the probes after it find room and return where their copies end, off the grid,
        several in a row while it refills (one image more every ``P / (P - c)`` copies):
        every window of 16 probes holding them spread too wide to start a grid (102.8 Hz, a
        5.3 ms copy, a chain of 3: no grid, every frame voted "off", judged off at frame 15
        and 4.9 ms of vblank error), or a window of returns that found room started one on a
        third of the period, or 0.4 % off it."""
        returns = self._probe_returns
        later = _latest_probes(returns)
        fit = _period_fit(later, _median_interval(later))
        period = self._grid.period_ns
        if fit is None or (
            period is not None and abs(period - fit[0]) <= self.settings.establish_sigmas * fit[1]
        ):
            return
        blocks = self._probe_blocks[len(returns) - len(later) : len(returns)]
        if len(blocks) != len(later):  # (one block per return, as _chain_images reads them)
            return
        self._grid.start_pinned(later, [t - b for t, b in zip(later, blocks, strict=True)], *fit)
        self._grid.settle()

    def _learn_probes_cost(self) -> None:
        """Learn the present's own cost from the start-up probes, once the grid is settled.

        The probes called late cover the period (see :meth:`_probes_copied`), so the vblanks
        they skipped tell the cost as the game's frames would (:meth:`_learn_cost`), but before
        the first frame: called ``s`` before a vblank, a present whose copy takes longer skips
        it. Frames called at one place in the period show it only when their copies, jittering,
        now and then run past the vblank; until a few dozen had, every frame was planned as if
        the present cost nothing, and each that did not fit was shown a period late (84 Hz with
        a 5 ms render and a 5.8 +- 1.45 ms copy, seeds 1-4: 6, 8, 0 and 6 images a period late
        in the first second; 2, 0, 0 and 4 learnt from the probes). Every probe is placed on
        the settled grid: learnt while the grid was forming, a back-to-back probe was placed a
        period off now and then, and seemed to skip a vblank farther away than its copy took.
        Not in a swap chain, whose presents return before their images flip. When they prove
        no threshold (a copy that jitters skips at some distances and not at others), they are
        dropped: the frames, called at one distance, tell how often it runs past.
        """
        grid = self._grid
        period = grid.period_ns
        if period is None or grid.queue_offset:
            return
        self._probe_samples_to = self._presents + len(self._probe_calls)
        for present_ns, call_ns, previous in self._probe_calls:
            # the previous image flipped at the vblank nearest the previous probe's return
            flipped = grid.index_after(round(previous - period / 2))
            # (all of them first: a cost taken from some would explain the skips of the rest,
            # which are then not kept, and a copy that jitters past the threshold once more)
            self._learn_cost(present_ns, call_ns, flipped, settle=False)
        # Where every probe called closer than the threshold that explains them best skipped
        # (a copy that jitters may skip farther too), that is the cost, however few skipped:
        # the probes are called at distances spread over the period on purpose, so a copy
        # under a quarter of it skips only one to four of the 16 called late, far apart,
        # which the frames' test takes for late wake-ups (see _settle_cost). It stays the
        # least cost the frames may show. (Taken for none, frames just in time were planned
        # as if the present cost nothing and shown a period late one after another, until
        # their skips taught it, a margin more each eight frames: 86 Hz with a 1.45 ms copy,
        # 13 of the first 200 images.) The threshold must lie beyond the noise of the
        # vblanks' place: a probe called closer to the grid's vblank than that may have been
        # called after the true one (with +-2 ms of noise and no copy at all, such probes
        # taught a cost, frames were placed a vblank off, and 22 of 500 displays with noise up
        # to half a period were judged off).
        samples = self._kept_cost_samples()
        low, high = _separating_band(samples)
        unsure = grid.noise_ns + grid.phase_uncertainty_ns()
        if low > unsure and all(skipped for s, skipped in samples if s < low):
            self._probed_cost = (low, high)
        self._settle_cost()
        if not self.present_cost_ns:
            self._forget_cost()

    def _forget_cost(self) -> None:
        """Drop what the presents taught of their cost: it is 0 until new presents teach it."""
        for samples in self._cost_samples:
            samples.clear()
        self._copy_leads = (0, None)
        self._probed_cost = (0, None)
        self._no_cost()

    def _no_cost(self) -> None:
        """No present cost: for the plans, the placement and the grid's ready slack."""
        self.present_cost_ns = self._placement_cost_ns = self.planning_cost_ns = 0
        self._grid.ready_slack_ns = 0

    def _probes_pinned(self) -> tuple[float, float] | None:
        """The period of the vblanks the probes called late returned at, whatever their
        calls, and its standard error: they waited (``None``: they did not stay at one
        place in any period tried).

        The loop calls the later probes a different part of the interval after the previous
        return each (see :meth:`_probes_copied`). A probe that waits returns at a vblank
        however late it was called, so modulo the period its returns stay at one place,
        within the wake-up noise, while its durations take up the delays. That holds when
        the present copies the picture before it waits, too: a copy near a period long
        (4 +- 1 ms at 240 Hz) runs past one vblank or two, and the back-to-back probes
        return one or two periods apart. Such probes start no grid, since each is placed at
        the first vblank after its call (the copy's length is not known yet), and the
        back-to-back intervals of two periods refute the reported rate: every frame then
        voted "off" and vsync was judged off (240 Hz with a 4 ms present: off at frame 27).

        The periods tried are the back-to-back probes' median interval divided by 1 to 4
        (the longest first: a display at half the reported rate stays at one place modulo
        both), each refined over every probe, and taken when all but two in eight of the
        probes' returns lie within a quarter of it, and of the late ones' too, and the late
        ones' durations spread at least twice as widely. A copy without vsync returns after
        its call: it goes round the period with the calls. The arc is the narrowest such,
        wherever the returns left out lie: a busy desktop woke 2 of 15 probes at 60 Hz 6.5
        and 7.6 ms late, and with an eighth left out at each end they scattered over 6.6 ms,
        and half the period, where they lay nearer, was taken (120 Hz).
        """
        probes = self._late_and_back_to_back()
        if probes is None:
            return None
        pairs, intervals = probes
        times = [t for _, t, _ in self._probe_waits()]
        rel = [t - times[0] for t in times]
        late_rel = [t - times[0] for t, _ in pairs]
        spread = _durations_spread(pairs)
        for rough in self._grid._candidate_periods(intervals[len(intervals) // 2]):
            # refined over every probe, counted in whole periods (a median interval of one and
            # two periods mixed is a few percent off either): Theil-Sen, which a late wake-up
            # cannot pull
            fit = _period_fit(times, rough)
            if fit is None:
                continue
            period = fit[0]
            scatter = _narrowest_arc(late_rel, period, len(pairs) // 4)
            # the back-to-back probes waited too: all the probes stay at that place (a period
            # shorter than the wake-up noise fits a few late returns by chance: 240 Hz with
            # +-2 ms of noise, its grid replaced by one at 680 Hz)
            everywhere = _narrowest_arc(rel, period, len(rel) // 4)
            if (
                4 * max(scatter, everywhere) <= period
                and 2 * scatter + self.settings.block_on_ns <= spread
            ):
                return fit
        return None

    def _probes_copied(self) -> bool:
        """Whether the probes called late took time for work of their own, not a wait.

        The loop calls the later probes a different part of the interval after the previous
        return each (``engine.timing.game_loop.BACK_TO_BACK_PROBES``), so their calls cover
        the period. A probe that waits for its vblank returns there wherever it was called
        (a swap chain, or a copy before the wait, alike): the returns stay at one place in
        the period while the durations take up the delays. A present that copies the
        picture without vsync returns its copy after its call: the durations vary only as
        the copy does, and the returns go round the period with the calls
        (``_scatter_and_spread``, on presents whose calls were spread on purpose). Back to
        back only, a copy of about a period (4.5 ms at 231 Hz reported) returned about a
        period apart, like waits, and started a grid: such loops were judged vsync on.
        """
        probes = self._late_and_back_to_back()
        if probes is None or self.queue_offset:
            # (in a swap chain a probe called late finds room, and returns after its own
            # work too: its image waits in the queue)
            return False
        # A copy takes its time wherever it is called: a probe called late that returned at
        # once waited for a vblank whose wake-up came before the call (+-2 ms at 240 Hz: a
        # few probes in 16, and the waits' returns and durations then passed both tests
        # below now and then, judged off from frame 0 and on and off by turns after it).
        block_on = self.settings.block_on_ns
        if any(
            call - previous > IMMEDIATE_NS and present - call < block_on
            for present, call, previous in self._probe_calls
        ):
            return False
        # the back-to-back probes' intervals: a period, within twice the wake-up noise, if
        # they waited (their returns scatter by half that)
        pairs, intervals = probes
        period = self._grid.period_ns or float(intervals[len(intervals) // 2])
        # Wake-up noise near half a period (+-2 ms at 240 Hz) scatters waits' returns across
        # the period too, but their durations take up the delays as well (the calls cover the
        # period): the probes copied only if their returns scatter more than a quarter period
        # and more than their durations spread (a copy's jitter). Not "more than half a
        # period, and more than the back-to-back intervals vary", as before: a copy's returns
        # walk round the period at random (each call is a step after the previous return),
        # and 15 of them left half a period unvisited now and then; the intervals are a copy's
        # own lengths, and a copy that jitters by half a period or more (5 +- 1.25 ms at 227
        # Hz) varies them, taken modulo the period, as widely as its returns scatter. Such
        # loops were judged on at frame 17-23.
        scatter, spread = _scatter_and_spread(pairs, 0.0, period)
        spread += self.settings.block_on_ns
        if scatter <= max(period / 4, spread):
            return False
        # And a copy takes as long called late as back to back. A wait is shorter called
        # late (by half a period on the whole), and so is a present in a swap chain the
        # probes did not see (a copy before its wait hides the queue): called late it
        # finds room and returns after its copy alone, as without vsync.
        late = sorted(block for _, block in pairs)
        early = sorted(block for delay, _, block in self._probe_waits() if delay <= IMMEDIATE_NS)
        return late[len(late) // 2] >= early[len(early) // 2] - spread / 2

    def _probe_waits(self) -> list[tuple[int, int, int]]:
        """The start-up probes that took time (``block_on_ns`` or more): for each, the time
        from the previous probe's return to its call, its return and its duration."""
        block_on = self.settings.block_on_ns
        return [
            (call - previous, present, present - call)
            for present, call, previous in self._probe_calls
            if present - call >= block_on
        ]

    def _late_and_back_to_back(self) -> tuple[list[tuple[int, int]], list[int]] | None:
        """The start-up probes that took time, split: the late ones' ``(return, duration)``
        and the back-to-back ones' intervals from the previous return, sorted (``None``
        with fewer than ``QUEUE_PROBES`` of either)."""
        waits = self._probe_waits()
        pairs = [(t, block) for delay, t, block in waits if delay > IMMEDIATE_NS]
        intervals = sorted(delay + block for delay, _, block in waits if delay <= IMMEDIATE_NS)
        if len(pairs) < QUEUE_PROBES or len(intervals) < QUEUE_PROBES:
            return None
        return pairs, intervals

    def _learn_queue(self, present_ns: int, block_ns: int, blocked: bool) -> None:
        """Count the start-up probes that return at once (see :attr:`queue_offset`)."""
        at_once = self._probes_at_once
        assert at_once is not None
        self._probe_blocks.append(block_ns)
        returns = self._probe_returns
        if not blocked and len(returns) == at_once:  # at once, as every probe before it
            self._probes_at_once = at_once + 1
            returns.append(present_ns)
            return
        if not blocked and at_once:
            # At once after probes that waited: a wake-up came so late that vblanks flipped
            # the images waiting meanwhile, and the chain has room again. It holds images (a
            # present without one always waits); the count starts again from this probe.
            # (Counted as a wait, it spread the intervals, and no queue was seen: with a busy
            # desktop, a swap chain of 2 at 180-210 Hz was placed a vblank off after each
            # late wake-up.) The count before it stands, as the least the chain holds: the
            # wake-up may have drained only part of it (and so may a second one: every count
            # stands, the largest wins).
            self._probes_drained.append((returns, at_once))
            self._probes_at_once = 1
            self._probe_returns = [present_ns]
            return
        returns.append(present_ns)
        if at_once and len(returns) >= at_once + QUEUE_PROBES:
            self._settle_queue(at_once, copied=False)
        # (the first probe took time: it waited, or did work of its own (a copy) and then
        # found room; the chain is read once the probes are over, see _read_copying_chain)

    def _read_copying_chain(self) -> bool:
        """The start-up probes are over. Where the first took time (a wait, or a copy that
        found room), the chain is read from all the back-to-back ones (``_chain_images``): a
        copy a little shorter than a period fills a chain slowly (one image in ``P / (P -
        c)`` copies), and only the latest returns are sure to be waits. (Read from the
        eleventh probe on, a 5.8 +- 1.45 ms copy at 97 Hz in a chain of three had found room
        four times: the grid was fitted to a copy's end, no chain was seen, every frame after
        the late probes had drained it was placed a vblank off, and vsync judged off.) A copy
        is no longer than twice the quickest probe, late ones included (see ``observe``):
        without a copy, one of those returned soon after its call, and a first probe that
        woke late is not taken for a copy that found room (163 Hz, no copy, a busy desktop:
        a chain of two seen, and 0.83 ms of vblank error where there was 0.003). Whether it
        read one."""
        at_once, self._probes_at_once = self._probes_at_once, None
        quickest = self._quickest_probe_ns
        returns = self._probe_returns
        if at_once != 0 or quickest is None or len(returns) < QUEUE_PROBES + 3:
            return False
        images = _chain_images(returns, self._probe_blocks, quickest)
        if not images and not self._probes_copied():
            # The late probes too, unless they took as long as the back-to-back ones (a copy
            # without vsync, which returns after its call wherever that is). In a chain they
            # find room when a vblank has flipped the image waiting, and return after their
            # copy, off the grid: a late wake-up each, if no chain. (A copy that ended within
            # an eighth of a period of a vblank makes the first probe look like a wait: a
            # chain of two was read as none in 9-14 starts of 60, copies of 5-90 %.)
            calls = self._probe_calls
            images = _chain_images(
                [returns[0], *(present for present, _, _ in calls)],
                [self._probe_blocks[0], *(present - call for present, call, _ in calls)],
                quickest,
                [0, *(call - previous for _, call, previous in calls)],
            )
        if images:
            self._settle_queue(images, copied=True)
        return bool(self.queue_offset)

    def _settle_queue(self, at_once: int, copied: bool) -> None:
        """Set :attr:`queue_offset` from the probes (``at_once`` of them before the first
        wait; ``copied``: read from where they returned, see ``_chain_images``), unless the
        waits do not show one (see :attr:`queue_offset`)."""
        self._probes_at_once = None
        returns = self._probe_returns
        # the latest probe at once, and the waits after it (after copies, the latest
        # returns: a copy that ran past a vblank found room once more, see _chain_images)
        waits = returns[at_once - 1 : at_once + QUEUE_PROBES]
        steady = returns[-QUEUE_PROBES:] if copied else waits[1:]
        # a late wake-up makes one interval long and the next short: both left out (after
        # copies, the next two short: the probe after the wake-up found room, and returned
        # when its copy ended)
        intervals = sorted(b - a for a, b in pairwise(steady))[(2 if copied else 1) : -1]
        period = intervals[len(intervals) // 2]
        # without a copy, a probe at once found room unless it returned on the waits' grid
        # (see queue_offset), however widely the wake-up noise scatters them
        noise = max(period / 50, _waits_grid(steady, period)[1])
        seen = max(
            (_waited_briefly(*drained, period, noise) for drained in self._probes_drained),
            default=0,
        )
        if not copied:
            self._grid.queue_offset = max(_waited_briefly(returns, at_once, period, noise), seen)
            return
        # (a copy's leaders are told by where they returned, and only steady waits tell them)
        first_wait = waits[1] - waits[0]
        if intervals[-1] - intervals[0] <= period / 8 and (
            at_once > 1 or seen or abs(first_wait - period) > period / 50
        ):
            self._grid.queue_offset = max(at_once, seen)

    def _learn_cost(
        self, present_ns: int, call_ns: int, previous: int | None = None, settle: bool = True
    ) -> None:
        """Learn the present call's own cost from which vblanks its images flip at.

        Its duration alone cannot tell: a present that copies the picture for 4 ms (software GL
        under X) and one that waits 4 ms for a vblank return alike. What tells them apart is
        *which* vblank the image flipped at. A present called ``s`` before the first vblank after
        its call flips there when its own work ``c`` is shorter than ``s``, and at a later one
        otherwise: the presents whose images skipped that vblank are those called less than
        ``c`` before it. The cost is the threshold on ``s`` that separates the skipped from the
        others with the fewest exceptions (a rare late wake-up is one exception, not a cost);
        with no skips it is 0, as for a present that only waits.

        ``previous`` is the index of the vblank the previous image flipped at (the grid's
        latest placed present by default): an image flips after it.
        """
        grid = self._grid
        period = grid.period_ns
        assert period is not None
        # the first vblank the image could flip at: after the call, and after the previous image
        if previous is None:
            previous = grid.last_index
        first = grid.time_of(max(grid.index_after(call_ns), previous + 1))
        # skipped: returned nearer the vblank after that one than that one (beyond the noise)
        noise = grid.noise_ns + grid.phase_uncertainty_ns()
        skipped = present_ns - first > max(period / 2, noise)
        self._presents += 1
        index = self._presents
        lead = first - call_ns
        skips = max(1, round((present_ns - first) / period)) if skipped else 0
        offset = present_ns - first - skips * period
        if skipped and (offset > max(noise, period / 8) or offset < self._flip_offset_ns - noise):
            # Returned between vblanks, beyond the noise of both: a late wake-up (a busy
            # desktop), whose image flipped at one of them, which is unknown. Neither a skip
            # nor not. An image flips at its vblank and the present returns within the noise
            # after it: a return *before* the vblank after the one planned, by more than the
            # noise, woke late from the one planned (a wake-up 7.6 ms late at 120 Hz, 0.7 ms
            # before the next vblank, counted as a skip: five in 60 frames made every frame
            # planned 3.3 ms earlier, and held a vblank in 23). It is judged against where
            # returns usually lie, not against the grid's vblank itself: a copy that ends
            # within the noise before its vblank returns when it ends, and such returns move
            # the grid's fitted phase later than the true vblanks by up to the noise
            # (192 Hz with a 4.2 ms copy: skips returned 0.35 ms before the grid's vblank,
            # the noise bound 0.22 ms).
            self._since_cost += 1
            return
        if abs(offset) <= period / 8:
            self._flip_offset_ns += (offset - self._flip_offset_ns) / 32
        if not skipped:
            self._cost_samples[0].append((lead, False, index))
        else:
            # A copy longer than a period skips every vblank it runs past, and the image flips
            # at the first after it: each skipped vblank is a skip at its own distance from the
            # call, and the one it flipped at is not (5 +- 1.25 ms at 240 Hz flips two or three
            # vblanks on; counted as one skip at under a period, no cost could explain it).
            # A skip the learnt cost already explains teaches nothing, and it would push out
            # of the window the skips that taught it: a loop that plans its presents past
            # such a vblank (a copy longer than a period) skips it every frame on purpose.
            for k in range(skips):
                if lead + k * period >= self.present_cost_ns:
                    self._cost_samples[1].append((lead + round(k * period), True, index))
            self._cost_samples[0].append((lead + round(skips * period), False, index))
        self._since_cost += 1
        if self._since_cost >= 8 and settle:
            self._settle_cost()

    def _kept_cost_samples(self) -> list[tuple[int, bool]]:
        """The kept cost samples (see ``_learn_cost``), skips and not: ``(lead, skipped)``."""
        return [(s, k) for s, k, _ in (*self._cost_samples[0], *self._cost_samples[1])]

    def _settle_cost(self) -> None:
        """Take the cost the samples ``_learn_cost`` kept show (see there), or none."""
        self._since_cost = 0
        kept, skipped = self._cost_samples
        leads = sorted(lead for lead, _, _ in skipped)
        self._copy_leads = (
            leads[len(leads) // 2] if leads else 0,
            min((lead for lead, _, _ in kept), default=None),
        )
        if not self._cost_samples[1]:
            # nothing ever skipped: no cost (the usual case, at no cost)
            self._no_cost()
            return
        period = self._grid.period_ns
        assert period is not None
        samples = self._kept_cost_samples()
        low, high = _separating_band(samples)
        # A cost makes (nearly) every present called closer to its vblank than the cost
        # skip it, one after another. Late wake-ups (a busy desktop) make a few presents
        # look skipped at any distance: over a long run the skips kept may be as many as
        # the others kept, but they are far apart. So the skips below the threshold must
        # be dense (at least a quarter of the presents over the span they were seen in,
        # and three times as dense as the presents there that did not skip).
        dense = []
        for group in self._cost_samples:
            below = [i for s, _, i in group if s < low]
            dense.append(len(below) / (below[-1] - below[0] + 1) if below else 0.0)
        skipped_below = sum(1 for s, _, _ in self._cost_samples[1] if s < low)
        if skipped_below < 4 or dense[1] < max(0.25, 3.0 * dense[0]):
            low, high = 0, None
        if low < self._probed_cost[0]:
            low, high = self._probed_cost  # what the start-up probes showed (see there)
        self.present_cost_ns = low
        # A steady loop calls each present at the same distance before its vblank, so the
        # skips prove only that the cost is at least that distance (``low``); the band of
        # costs that explain every flip reaches to the calls that did not skip, or to a
        # period. Presents are placed with its middle, as far from both ends as possible.
        # (within the period the cost lies in: costs of a period or more skip every
        # vblank they run past, see above)
        cap = period * (1 + low // period)
        top = cap if high is None else min(high, cap)
        placement = self._placement_cost_ns = round((low + top) / 2) if low else 0
        # How far the image may have been ready from the call plus that cost: to either end of
        # the band, or of the costs the exceptions to it show (a present called nearer its
        # vblank than the band that flipped there, one called further that skipped it: a copy
        # whose length varies, as software GL's does), within a factor of two of the band (a
        # busy desktop's late wake-ups look like skips at any distance: unbounded, the slack
        # reached 7 ms at 172 Hz, more than a period, and every present was placed by its
        # return alone)
        reach = self._cost_reach_ns()
        if low:
            shorter = (s for s, _, _ in self._cost_samples[0] if low // 2 <= s < low)
            longer = (s for s, _, _ in self._cost_samples[1] if top <= s <= 2 * top)
            shortest, longest = min(shorter, default=low), max(longer, default=top)
            self._grid.ready_slack_ns = round(max(placement - shortest, longest - placement))
        else:
            # no threshold, but presents called up to the reach before a vblank skipped it
            # now and then: their images may have flipped at either
            self._grid.ready_slack_ns = reach
        self.planning_cost_ns = max(low, reach)

    def _cost_reach_ns(self) -> int:
        """How far before its vblank a present has been seen to skip it, when skips came often
        (at least one present in 32 over the span the kept skips were seen in; late wake-ups
        of a busy desktop are rarer), else 0.

        A copy whose own duration varies (software GL: 5±1.25 ms) leaves no threshold between
        the presents that skipped and those that did not: called at the same distance before
        the vblank, some flip there and some at the next. The separating band then says
        nothing (``present_cost_ns`` is 0), but a frame planned that close to its vblank flips
        erratically a vblank early or late (96 Hz with a 5 ms render: a third of the frames
        shown a period late, 6.9 ms of motion error). Planned with the longest distance at which
        a present skipped, such a frame is planned for the vblank after and held until just
        after the one before: it flips where planned. Only plans on the vblank grid count it
        (the limiter's plans keep :attr:`present_cost_ns`): on a wrong grid (140 Hz reported as
        144 with +-2 ms of noise) presents seem to skip at any distance, and the limiter held
        every frame 6 ms for nothing.
        """
        # The frames' own once they skip: the probes' skips come close together by design,
        # and with them one frame whose copy ran long made a reach, the planner took every
        # frame for one that did not fit, and held every other vblank (155.8 Hz, a 2.3 +-
        # 0.6 ms copy and a 3.5 ms frame: 1,109 vblanks held, none before).
        skips = [skip for skip in self._cost_samples[1] if skip[2] > self._probe_samples_to]
        skips = skips or list(self._cost_samples[1])
        if len(skips) < 4:
            return 0
        span = skips[-1][2] - skips[0][2] + 1
        if 32 * len(skips) < span:
            return 0
        bound = self._copy_bound_ns
        if bound is None:
            return max(s for s, _, _ in skips)
        # No copy is longer than the bound: a skip beyond it is a late wake-up, or an image
        # placed a vblank off (155.1 Hz, a busy desktop, a 4.6 +- 1.2 ms copy, presents held
        # as PresentPlanner._hold_until places them: one image shown a period late made a
        # reach of 11.2 ms, and the frames were planned for three vblanks where two fit, for
        # a thousand frames).
        return max((s for s, _, _ in skips if s <= bound), default=0)

    @property
    def _copy_bound_ns(self) -> int | None:
        """The longest a copy may be, the bound ``_may_be_copy`` puts on it: twice the
        quickest start-up probe (``None`` before a probe blocked)."""
        quickest = self._quickest_probe_ns
        return None if quickest is None else LONGEST_COPY_PROBES * quickest

    @property
    def longest_cost_ns(self) -> int:
        """The longest the present call's own work may take, for a present that has no slack
        left: a frame woken just in time (:mod:`engine.timing.frame_delay`), or held until just
        before its vblank (:class:`~engine.timing.present_plan.PresentPlanner`).

        Where presents take time (a planning cost), that is the bound ``_may_be_copy`` puts on
        a copy, twice the quickest start-up probe (a copy jitters; the quickest probe took no
        longer than its shortest), or the planning cost if more. Where they have shown no cost,
        the furthest before its vblank a kept present skipped it, however rarely, within that
        bound (beyond it, a busy desktop's late wake-up, which looks like a skip at any
        distance: kept, it released held presents a period early in a swap chain, 231.9 Hz,
        judged off at frame 2,125).

        Plans count the skips' reach only while skips come often (see ``_cost_reach_ns``), and
        a loop woken for that reach skips rarely: the reach was forgotten, the frames were woken
        for the band's low end again and missed (64 Hz, a 4.2 +- 1 ms copy: 21 images a period
        late in 1,581 frames, 2.6 ms of motion error; none now, for 1.2 ms more input latency on
        average where presents copy: 9.8 -> 11.0 ms, against 13.4 undelayed).
        """
        cost = self.planning_cost_ns
        bound = self._copy_bound_ns
        if bound is None:
            return cost
        if cost:
            return max(cost, bound)
        # (a skip further than the bound is no copy: a busy desktop's late wake-up, which
        # looks like a skip at any distance)
        longest = max((lead for lead, _, _ in self._cost_samples[1]), default=0)
        return min(longest, bound)

    @property
    def copy_range_ns(self) -> tuple[int, int]:
        """The shortest and the longest the present call's own work may take, ``(lo, hi)``,
        as the kept presents show it (``lo`` is 0 before any skip; ``hi`` is at most
        :attr:`longest_cost_ns`).

        A present called ``s`` before its vblank that skipped it copied for longer than ``s``;
        one that flipped there, for no longer. A copy varies within a factor of
        ``LONGEST_COPY_PROBES`` from one present to the next (as ``_may_be_copy`` assumes), so
        every copy is at least half as long as one that skipped, and at most twice as long as
        one that flipped. The skip counted is the median kept, not the furthest: a busy
        desktop's late wake-up looks like a skip at any distance. Both are taken when the
        cost settles (every eight presents), not per call: a held frame asks every frame.
        (Used to place a present held for a later vblank where its longest work leaves no
        room to hold it past the vblank before:
        :class:`~engine.timing.present_plan.PresentPlanner`.)
        """
        hi = self.longest_cost_ns
        skip, flip = self._copy_leads
        typical = min(skip, hi)
        if flip is not None:
            hi = max(typical, min(hi, LONGEST_COPY_PROBES * flip))
        return typical // LONGEST_COPY_PROBES, hi

    @property
    def queue_offset(self) -> int:
        """Images a swap chain holds before a present waits for a vblank to free a place, as
        the start-up probes showed it (0: none seen).

        Probes are sent back to back into an empty queue: the first ``queue_offset`` return at
        once, the next ones wait, each until a vblank flips an older image. A variable-refresh
        panel shows its first image at once too, and makes the next wait a whole period from
        it; in a swap chain the first wait ends at the vblank after the first call, a part of a
        period after it. A probe called just before a vblank, or one whose wake-up came early
        for it, returns at once without a queue too. So a present at once that returned on
        the grid the ``QUEUE_PROBES`` waits after it fix, within the noise they show (a
        fiftieth of a period at least), is not counted (see ``_waited_briefly``; nor, in the
        few starts whose first call came that near a vblank, is a queue told apart from one).
        However widely the noise scatters the waits, one off that grid found room. (Where
        the waits had to be steady to an eighth of a period, no chain was read at +-10 % of
        a period of noise in more than half the starts, at +-20 % in 93 in 100: every image
        was placed a vblank early, and frames just in time, which find room, voted "off".)

        A present that copies the picture before it waits takes time even when it finds
        room: then the chain is the one that explains where the probes returned with the
        fewest coincidences (see ``_chain_images``).
        """
        return self._grid.queue_offset

    @property
    def queue_lead_ns(self) -> float:
        """How long before its image's vblank a present that waits in the swap chain returns
        (:attr:`queue_offset` periods; 0 without a queue or a grid)."""
        period = self._grid.period_ns
        return 0.0 if period is None else self._grid.queue_offset * period

    @property
    def paced_cost_ns(self) -> int:
        """What a paced present typically takes (the median of the recent ones) when that is a
        real cost (at least ``block_on_ns``: a slow present without vsync, whose image appears
        when the copy is done), else 0."""
        blocks = self._paced_blocks
        if len(blocks) < 3:
            return 0
        median = sorted(blocks)[len(blocks) // 2]
        return median if median >= self.settings.block_on_ns else 0

    @property
    def paced_jitter_ns(self) -> int:
        """How far a paced present's duration strays from the typical one, when the paced
        presents take time (see :attr:`paced_cost_ns`; else 0): the larger distance from their
        median to the shortest and the longest of the recent ones, an eighth of them left out
        at each end (the same spread :meth:`_judge_against_paced` allows)."""
        blocks = self._paced_blocks
        if len(blocks) < 3:
            return 0
        ordered = sorted(blocks)
        median = ordered[len(ordered) // 2]
        if median < self.settings.block_on_ns:
            return 0
        trim = len(ordered) // 8
        return max(median - ordered[trim], ordered[-1 - trim] - median)

    def _judge_against_paced(self, block_ns: int, blocked: bool | None) -> bool | None:
        """Whether an unpaced present (a check) waited, judged against the paced presents.

        While the limiter paces, every paced present takes what the present costs plus any wait
        for its vblank; a check is called a little earlier (or later) than its deadline. If the
        display waits for vblanks, the check waits until the same vblank: it takes longer (or a
        period shorter or longer) than the paced presents. If it does not, the check costs what
        they cost. So with paced presents that take time (a slow present, vsync or not), a check
        that took as long as they did, within their own spread, did not wait: ``False``; one far
        outside that spread waited: ``True``; in between it cannot tell: ``None``. (With
        presents that cost nothing this is blocking as before: the paced ones take microseconds.)
        """
        blocks = self._paced_blocks
        if len(blocks) < 3:  # while doubted every paced frame is a check: few come
            return blocked
        ordered = sorted(blocks)
        low, high = ordered[len(ordered) // 8], ordered[-1 - len(ordered) // 8]
        block_on = self.settings.block_on_ns
        if low < block_on:
            # Paced presents that (often) return at once: blocking tells, measured from what
            # the quickest of them cost (a present of 0.25 ms is not a wait).
            return block_ns - low >= block_on + block_on // 2
        spread = high - low + block_on
        if low - spread <= block_ns <= high + spread:
            return False if low - block_on <= block_ns <= high + block_on else None
        return True

    def _vote(self, now_ns: int, vote: bool) -> None:
        votes = self._votes
        if len(votes) == votes.maxlen and votes[0][1]:
            self._on_votes -= 1
        votes.append((now_ns, vote))
        if vote:
            self._on_votes += 1
        oldest_ns = now_ns - self.settings.vote_max_age_ns
        while votes and votes[0][0] < oldest_ns:
            if votes.popleft()[1]:
                self._on_votes -= 1
        on, total = self._on_votes, len(votes)
        settings = self.settings
        if self.verdict is None:
            if total >= settings.decide_after_frames:
                self.verdict = on * 2 >= total
            return
        self.doubted = vote is not self.verdict
        against = total - on if self.verdict else on
        if against >= settings.min_flip_votes and against >= settings.flip_fraction * total:
            self.verdict = not self.verdict
            self.doubted = False
