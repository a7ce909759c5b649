"""Present planning: decide at a frame's start when it will be shown, and render it for that moment.

A frame's image is shown some time after the frame starts: at a vblank with vsync on, at the
limiter's deadline with vsync off. If the frame rendered the game state of its *start* (the
previous present), every frame that took one vblank more or less than the one before would show
the world jumping by a whole refresh period: at 165 Hz with ±1 ms of wake-up noise that is a
quarter of all frames, 0.5 ms of motion error RMS even with perfect timestamps. So the planner
decides, before the frame's updates run, *when the frame will be shown*:

* **vsync on** (``VBLANK``): the first vblank on the detector's grid after the frame can be ready
  (its start plus :class:`WorkEstimate`, a robust recent maximum of the work time, plus a small
  margin). If the frame is ready earlier than planned, the present is *held* until just after the
  vblank before its target, so it flips exactly at the planned vblank and never a refresh early.
* **holding or aiming** (the choice by cost): planning for the vblank after the one the frame
  *might* make repeats the previous image at that one (a vblank a period behind). The planner
  weighs it against aiming for the earlier vblank: the chance the work fits
  (:class:`WorkWindow`, the recent work times) and, when it does not, what the miss costs. A
  frame that misses its vblank is *dropped* (not presented: :meth:`PresentPlanner.drop`) when the
  next frame, started at once, can still make the vblank the late image would flip at; then the
  miss costs the same repeated vblank as holding, plus a frame rendered for nothing
  (``waste_cost``). Shown late instead, it would cost a second vblank a period behind and the
  judder of an image off its vblank, so the planner aims only where a miss can be dropped.
* **vsync off or variable refresh** (``PACED``): the frame limiter's next deadline at the
  display's rate (:meth:`~engine.timing.limiter.FrameLimiter.plan`). If the frame cannot make it
  (``OVERRUN``), it is presented as soon as it is ready: as many frames as rendering allows.
* **checks** (``CHECK``): while the limiter paces, every ``check_interval_ns`` one paced frame is
  presented a little before its deadline (``min_check_shift_ns`` past the paced presents' own
  jitter, within ``max_check_shift_ns`` and the slack), or as much after it when the work leaves
  no slack: no further while nothing doubts the verdict, since in a compositor the image appears
  at the next vblank whatever the present did, and a check is shown that shift away from the
  moment it was rendered for. If vsync is really on, that present still waits for a vblank (it
  blocks, and returns on the vblank grid); if it is off, it shows a little early or late, as
  planned. An early check that would split its ticks and the next frame's less evenly than their
  deadlines do (0 and 2 where every frame runs one: ``ticks_at``, the pacer's view) goes late
  instead. Without checks a wrong "vsync off" verdict would seal itself: the limiter may issue
  every present just before a vblank, where even vsync waits only microseconds. While the latest
  vote disagrees with the verdict (:attr:`VsyncDetector.doubted`), every paced frame is a check,
  shifted as far as ``max_check_shift_ns`` allows: fresh evidence then outweighs the last 0.75 s
  of old votes sooner, and vsync switched on is noticed within 0.82 s instead of up to 1.17 s at
  ±2 ms of wake-up noise (60 Hz, seeds 1-130: ``--sweep-seeds``).
* otherwise (no vblank grid yet, or no planner) ``FREE``: present at once. While the verdict is
  still undecided but the start-up probes found a vblank grid, frames are already planned on it.

The game loop gives the pacer ``display_ns - lead_ns`` as the frame's time, where ``lead_ns`` is
the usual frame interval (the limiter interval, or whole refresh periods of the render cost): in a
steady cadence that is exactly the previous present's vblank or deadline, and when a frame is
planned one vblank later than usual its game time moves on one vblank more, so the image matches
the moment it is shown.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right, insort
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import NamedTuple

from engine.timing.limiter import FrameLimiter
from engine.timing.vsync import PresentEstimate, VsyncDetector


class PlanKind(StrEnum):
    """How a frame's present is planned (see the module docstring)."""

    FREE = "free"
    VBLANK = "vblank"
    PACED = "paced"
    OVERRUN = "overrun"
    CHECK = "check"


class PresentPlan(NamedTuple):
    """When a frame will be shown and when its present may be issued.

    Attributes:
        kind: How the plan was made.
        display_ns: When the image is expected on screen, or ``None`` (``FREE``).
        issue_ns: Do not issue the present before this time (hold or limiter), or ``None``.
        lead_ns: The usual frame interval; the frame's game time is ``display_ns - lead_ns``.
        vblanks: Vblanks since the previous frame's planned vblank (``VBLANK`` plans), if known.
    """

    kind: PlanKind
    display_ns: int | None
    issue_ns: int | None
    lead_ns: int
    vblanks: int | None


FREE_PLAN = PresentPlan(PlanKind.FREE, None, None, 0, None)
#: Recent work times needed before a frame may aim for a vblank its work might miss.
MIN_WINDOW_FRAMES = 16


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """Tuning of the planner.

    Attributes:
        work_margin_ns: Added to the work estimate when choosing the target vblank or deadline.
        hold_guard_ns: A held present is issued at least this long after the vblank before its
            target (more when the grid is less certain).
        work_decay: Fraction of the gap by which the work estimate falls per frame when the work
            got shorter (it rises at once when the work gets longer; see :class:`WorkEstimate`).
        check_interval_ns: Time between checks while the limiter paces (0: no checks), unless the
            latest vote doubted the verdict (then every paced frame is a check).
        max_check_shift_ns: How much earlier (or later) than its deadline a check is presented, at
            most, less the jitter of the paced presents' own work
            (:attr:`~engine.timing.vsync.VsyncDetector.paced_jitter_ns`). Keep it within the
            pacer's trust bound for noise-free times (2 ms), so that ``strict`` renders checks
            on time too.
        min_check_shift_ns: How far a check is shifted past the jitter of the paced presents'
            own work (within ``max_check_shift_ns``) while no vote doubts the verdict: the least
            that shows a wait (see ``VsyncSettings.block_on_ns``) beyond their own spread. An
            early check needs at least this much slack before the deadline; with less, the
            check comes late.
        cadence_hysteresis: How far (in refresh periods) the work estimate must pass a whole number
            of periods before the usual vblanks per frame (and so ``lead_ns``) change.
        aim: Whether a frame may aim for a vblank its work might miss, and be discarded when it
            misses one (see the module docstring); ``False`` always holds for the vblank the
            work surely makes and presents every frame (``strict`` timing runs so: the frame
            after a discard starts far from the vblank it is rendered for, which ``strict``
            would not trust).
        waste_cost: What a frame rendered and then dropped costs, in vblanks repeated (the unit
            of the choice: holding repeats one). 1 aims when the work fits more likely than not.
            A frame is discarded (see :meth:`PresentPlanner.discard`) whatever this says.
        work_window_frames: Recent work times kept to estimate the chance a frame's work fits.
    """

    work_margin_ns: int = 100_000
    hold_guard_ns: int = 250_000
    work_decay: float = 0.002
    check_interval_ns: int = 50_000_000
    max_check_shift_ns: int = 1_500_000
    min_check_shift_ns: int = 500_000
    cadence_hysteresis: float = 0.05
    aim: bool = True
    waste_cost: float = 1.0
    work_window_frames: int = 64


class WorkEstimate:
    """How long a frame's work (updates and render) takes: a recent maximum, robust to spikes.

    The estimate rises at once to any longer work, and falls back slowly (``decay`` of the gap per
    frame) when the work gets shorter. A frame far above the estimate (more than ``SPIKE_FACTOR``
    times it and a millisecond) counts only as much as the shorter of the two frames before it:
    a spike, a stall, a level load and the first draw after it (which uploads the level's
    textures) do not make every later frame wait for a later vblank; three long frames in a row
    do, because then the work really got longer. The first frames have no frames before them
    (they count as 0): the very first frame compiles shaders and fills the texture atlas, and in
    software GL under X took 186 ms, which must not become the estimate.
    """

    SPIKE_FACTOR = 1.5

    __slots__ = ("_decay", "_previous_ns", "value_ns")

    def __init__(self, decay: float = 0.002) -> None:
        self._decay = decay
        self._previous_ns = (0, 0)  # the work of the two frames before, oldest first
        #: The estimate in ns (0 until the first frames).
        self.value_ns = 0

    def add(self, work_ns: int) -> None:
        """Record one frame's work."""
        sample = work_ns
        older, last = self._previous_ns
        if work_ns > self.SPIKE_FACTOR * self.value_ns + 1_000_000:
            sample = min(work_ns, last, older)
        self._previous_ns = (last, work_ns)
        if sample >= self.value_ns:
            self.value_ns = sample
        else:
            self.value_ns -= round((self.value_ns - sample) * self._decay)


class WorkWindow:
    """The recent work times, kept sorted: how likely the next frame's work fits a given time.

    :meth:`fits` is the predictive probability of the next of exchangeable samples: with ``n``
    recent times of which ``k`` are at most ``t``, the next one is at most ``t`` with probability
    ``k / (n + 1)`` (its rank among the ``n + 1`` is uniform). No distribution is assumed; one
    longer than every sample kept is always possible (``fits`` is below 1).
    """

    __slots__ = ("_recent", "_sorted")

    def __init__(self, frames: int = 64) -> None:
        self._recent: deque[int] = deque(maxlen=max(1, frames))
        self._sorted: list[int] = []

    def __len__(self) -> int:
        return len(self._sorted)

    def add(self, work_ns: int) -> None:
        """Record one frame's work."""
        recent, ordered = self._recent, self._sorted
        if len(recent) == recent.maxlen:
            del ordered[bisect_left(ordered, recent[0])]
        recent.append(work_ns)
        insort(ordered, work_ns)

    @property
    def longest_ns(self) -> int:
        """The longest recent work (0 before any)."""
        ordered = self._sorted
        return ordered[-1] if ordered else 0

    def fits(self, available_ns: float) -> float:
        """The chance that the next frame's work takes at most ``available_ns``."""
        ordered = self._sorted
        return bisect_right(ordered, available_ns) / (len(ordered) + 1)


class PresentPlanner:
    """Plans every frame's present (see the module docstring).

    Args:
        detector: The vsync detector: its verdict and vblank grid.
        limiter: The frame limiter used while pacing (vsync off or variable refresh).
        settings: Tuning.
    """

    __slots__ = (
        "_cadence",
        "_interval",
        "_last_plan_ns",
        "_last_vblank_ns",
        "_lead_ns",
        "_next_check_ns",
        "detector",
        "limiter",
        "settings",
        "window",
        "work",
    )

    def __init__(
        self,
        detector: VsyncDetector,
        limiter: FrameLimiter | None,
        settings: PlanSettings | None = None,
    ) -> None:
        self.detector = detector
        self.limiter = limiter
        self.settings = settings or PlanSettings()
        self.work = WorkEstimate(self.settings.work_decay)
        #: The recent work times (the chance a frame's work fits: the choice to aim or hold).
        self.window = WorkWindow(self.settings.work_window_frames)
        self._last_vblank_ns: int | None = None
        self._last_plan_ns: int | None = None
        self._next_check_ns: int | None = None
        self._cadence = 1
        self._interval: Fraction | None = None
        self._lead_ns = 0

    def reset(self) -> None:
        """Forget the previous frames' plans (after a resync or a pause)."""
        self._last_vblank_ns = None
        self._last_plan_ns = None
        self._next_check_ns = None
        if self.limiter is not None:
            self.limiter.reset()

    def plan(
        self,
        start_ns: int,
        *,
        limiting: bool,
        checks: bool = True,
        ticks_at: Callable[[int], int] | None = None,
    ) -> PresentPlan:
        """Plan the frame that starts at ``start_ns`` (the previous present's return).

        Args:
            start_ns: The frame's start.
            limiting: Whether the limiter paces presents now.
            checks: Whether paced frames may be checked (see the module docstring).
            ticks_at: The ticks a frame whose game time is the given moment would run (the
                pacer's :meth:`~engine.timing.pacer.FramePacer.ticks_due`): a check is shifted
                to the side of its deadline where it runs the ticks the frame would have run.
        """
        # the image can flip no sooner than the work, then the present call's own work, are done
        # (on the vblank grid, as far as presents have been seen to skip vblanks for it)
        detector = self.detector
        ready_ns = start_ns + self.work.value_ns + self.settings.work_margin_ns
        if limiting and self.limiter is not None:
            plan = self._plan_paced(start_ns, ready_ns + detector.present_cost_ns, checks, ticks_at)
        elif detector.verdict is not False and detector.period_ns is not None:
            plan = self._plan_vblank(start_ns, ready_ns + detector.planning_cost_ns)
        else:
            plan = FREE_PLAN
        if plan.kind is not PlanKind.VBLANK:
            self._last_plan_ns = None
        return plan

    def finished(self, work_ns: int) -> None:
        """Record how long the frame's work took (before any hold or limiter sleep)."""
        self.work.add(work_ns)
        self.window.add(work_ns)

    def shown(self, estimate: PresentEstimate) -> None:
        """Record where the detector placed the frame's present."""
        self._last_vblank_ns = estimate.smooth_ns

    # -- the plans --------------------------------------------------------------------------------
    def _plan_vblank(self, start_ns: int, ready_ns: int) -> PresentPlan:
        detector = self.detector
        period = detector.period_ns
        assert period is not None
        uncertainty = round(detector.phase_uncertainty_ns)
        previous = self._last_vblank_ns
        if previous is None:
            previous = self._last_plan_ns
        guard = max(self.settings.hold_guard_ns, uncertainty)
        # a present that waits in a swap chain returns the queue's images before its own flips
        returned = previous if previous is None else previous - detector.queue_lead_ns
        if returned is not None and returned > start_ns + 1.5 * detector.noise_ns + guard:
            # The previous present returned (this frame started) well before the vblank it was
            # placed at: it did not wait for it. Vsync has just been switched off, or the grid is
            # wrong: do not hold this frame for a vblank that means nothing.
            previous = None
        # Vblanks from the previous image to this one's: one, or in a swap chain the usual
        # cadence. A present that finds room there returns at once, so no wait paces the
        # frames: each would flip at the first vblank its work makes, one or two periods
        # apart, at places a grid that only the start-up probes trained drifts away from.
        # Held to the cadence, they flip at one place in the period, as a loop whose presents
        # wait does, until the drift carries a vblank past it.
        cadence = self._usual_vblanks(period) if detector.found_room else 1
        earliest = ready_ns + uncertainty
        if previous is not None:
            earliest = max(earliest, previous + round((cadence - 0.5) * period))
        target = detector.vblank_after(earliest)
        if target is None:
            return FREE_PLAN
        if (
            previous is not None
            and target - previous > (cadence + 0.5) * period
            and self.settings.aim
        ):
            # the vblank before the target: the previous image's next one or later, which the
            # work may make (holding for the target repeats the previous image there)
            earlier = detector.vblank_after(target - round(1.5 * period))
            if earlier is not None and self._worth_aiming(start_ns, earlier, target, uncertainty):
                target = earlier
        issue_ns = None
        if previous is not None and target - previous > 1.5 * period:
            issue_ns = self._hold_until(target, period, guard)
        vblanks = None
        if self._last_plan_ns is not None and target - self._last_plan_ns > period / 2:
            vblanks = round((target - self._last_plan_ns) / period)
        self._last_plan_ns = target
        lead_ns = round(self._usual_vblanks(period) * period)
        return PresentPlan(PlanKind.VBLANK, target, issue_ns, lead_ns, vblanks)

    def _hold_until(self, target: int, period: float, guard: int) -> int:
        """When to issue a present held for ``target``, a vblank after the first its call
        could make: its image must flip neither at the vblank before (a period early) nor
        after ``target`` (a period late).

        Just after the vblank before, so the image cannot flip there; but soon enough that
        the present's own work, counted at the longest it may take
        (:attr:`~engine.timing.vsync.VsyncDetector.longest_cost_ns`), is done before
        ``target``: a held present has no slack left, as a frame woken just in time has none
        (201.5 Hz, a 3.9 +- 1 ms copy, frames of two periods: 23 images a period late). In a
        swap chain the present finds room and its image flips at the first vblank after it,
        where nothing but the probes placed the grid: half a period from both, the farthest
        the grid can drift before an image flips a vblank off its plan.

        Where that longest work leaves no such moment (a copy as long as a period), it is
        issued before the vblank before, by as much as the copy's shortest
        (:attr:`~engine.timing.vsync.VsyncDetector.copy_range_ns`): the copy still ends after
        that vblank. Issued as the longest work alone asked, it flipped a period early whenever
        its copy ran short (108.3 Hz, a 5.9 +- 1.5 ms copy after a 4 ms render: called when
        its render ended, 5.2 ms before the vblank before its target, a quarter of the images
        flipped a period early, 5.8 ms of motion error; none now). If the copy's longest, as
        the presents showed it, still misses ``target`` from there, halfway between the two:
        each end is a bound, and neither is sure. Not while the verdict is undecided on a
        reported rate the presents have not refuted: such a grid's vblanks may lie
        milliseconds off (136.85 Hz reported as 135.43, +-2 ms of noise), a present called
        before one flips there and votes "off" (10 of 40 seeds judged wrong, 5 before).
        """
        detector = self.detector
        after = round(period / 2) if detector.found_room else guard
        earliest = target - round(period) + after
        latest = target - detector.longest_cost_ns - guard
        if earliest > latest and (detector.verdict or not detector.uses_nominal):
            shortest, longest = detector.copy_range_ns
            earliest -= shortest
            latest = target - longest - guard
        return earliest if earliest <= latest else (earliest + latest) // 2

    def _worth_aiming(self, start_ns: int, earlier: int, target: int, uncertainty: int) -> bool:
        """Whether to aim for ``earlier``, the vblank before ``target`` (which the work surely
        makes), by what each choice is expected to cost in vblanks a period behind.

        Holding for ``target`` repeats the previous image at ``earlier``: one. Aiming costs
        nothing when the work fits (with the present's own cost, done the grid's uncertainty
        and the work margin before ``earlier``, as every plan counts it; the chance is
        :meth:`WorkWindow.fits`), and otherwise the same repeat plus a frame rendered for
        nothing (``waste_cost``): it is discarded, if the next frame, started when this one's
        longest work ends, still makes ``target``. Where it could not be, the miss would be
        shown late (a second vblank behind, and judder): never aimed. So a frame aims when
        ``(1 - fits) * (1 + waste_cost) < 1``.
        """
        window = self.window
        if len(window) < MIN_WINDOW_FRAMES:
            return False
        cost = self.detector.planning_cost_ns
        guard = uncertainty + self.settings.work_margin_ns
        fits = window.fits(earlier - start_ns - cost - guard)
        if fits <= 0.0 or (1.0 - fits) * (1.0 + self.settings.waste_cost) >= 1.0:
            return False
        # the longest this frame may take, as the plans count work (the estimate, or a longer
        # recent one, and the margin); the next frame, started then, would count it in its
        # estimate too (the estimate rises at once to a longer work)
        worst = max(self.work.value_ns, window.longest_ns) + self.settings.work_margin_ns
        return start_ns + worst + worst + self.settings.work_margin_ns + cost + uncertainty < target

    def discard(self, plan: PresentPlan, ready_ns: int) -> bool:
        """Whether a frame ready at ``ready_ns`` should not be presented at all.

        A ``VBLANK`` frame whose present can no longer flip at its planned vblank (the grid's
        uncertainty and the work margin before it, as the plans count) would flip at the vblank
        after, showing its image a period behind. If the next frame, started now, can make that
        vblank (as its own plan would see it), rendering it afresh costs less: the screen
        repeats the previous image at the missed vblank either way, and the later one then
        shows an image rendered for it. Otherwise the frame is presented late (a second repeat
        would cost more). A frame later than that (a stall, a level load) is a hitch, not a
        near miss: it is presented as it is.
        """
        display = plan.display_ns
        if plan.kind is not PlanKind.VBLANK or display is None:
            return False
        if not self.settings.aim or len(self.window) < MIN_WINDOW_FRAMES:
            return False  # the first frames: their work is not known yet
        detector = self.detector
        cost = detector.planning_cost_ns
        # as sure as the plans are: the grid's uncertainty and the work margin before the vblank
        guard = detector.phase_uncertainty_ns + self.settings.work_margin_ns
        if ready_ns + cost + guard < display:
            return False  # flips at its vblank
        if plan.issue_ns is not None and ready_ns <= plan.issue_ns + self.settings.hold_guard_ns:
            return False  # held, and released when planned: on time by its plan
        period = detector.period_ns
        if period is None:
            return False
        # within the grid's uncertainty of its vblank it may flip there or not: a frame planned
        # to be done that long before (see _worth_aiming) counts it as missed, flipping at the
        # vblank after (half a period on: the first grid vblank after the planned one)
        flips = detector.vblank_after(max(ready_ns + cost, display + round(period / 2)))
        if flips is None or flips - display > 1.5 * period:
            return False  # a hitch, not a near miss: shown as it is (the hitch guard has its time)
        need = self.work.value_ns + cost + guard  # as the next frame's plan counts it
        return ready_ns + need < flips

    def _usual_vblanks(self, period: float) -> int:
        """Vblanks per frame in a steady cadence: how many periods the work needs, with hysteresis."""
        work = (
            self.work.value_ns + self.settings.work_margin_ns + self.detector.planning_cost_ns
        ) / period
        cadence = math.floor(work) + 1
        if cadence != self._cadence:
            boundary = max(cadence, self._cadence) - 1
            if abs(work - boundary) > self.settings.cadence_hysteresis:
                self._cadence = cadence
        return self._cadence

    def _plan_paced(
        self,
        start_ns: int,
        ready_ns: int,
        checks: bool,
        ticks_at: Callable[[int], int] | None,
    ) -> PresentPlan:
        limiter = self.limiter
        assert limiter is not None
        interval = limiter.interval_ns
        if interval != self._interval:  # rounding a Fraction every frame is slow: once per change
            self._interval, self._lead_ns = interval, round(interval)
        lead_ns = self._lead_ns
        deadline, on_grid = limiter.plan(start_ns, ready_ns)
        # without vsync the image appears when the present returns: after its own work
        shown = self.detector.paced_cost_ns
        if not on_grid:
            return PresentPlan(PlanKind.OVERRUN, deadline + shown, deadline, lead_ns, None)
        settings = self.settings
        if checks and settings.check_interval_ns:
            due = self._next_check_ns
            if due is None:
                self._next_check_ns = start_ns + settings.check_interval_ns
            elif start_ns >= due or self.detector.doubted:
                self._next_check_ns = start_ns + settings.check_interval_ns
                # A paced present whose own work jitters (a slow copy) moves its image by as
                # much: the shift and that jitter together stay within max_check_shift_ns, so
                # that strict, which trusts a planned time only near the measured one, still
                # renders the check and the frame after it for when they are shown.
                jitter = self.detector.paced_jitter_ns
                most = max(0, min(settings.max_check_shift_ns, lead_ns // 2) - jitter)
                # And, while no vote doubts the verdict, no further than a wait needs to show
                # past that jitter: where the image appears at the next vblank whatever the
                # present did (a compositor), a check is shown a shift off the moment it was
                # rendered for (shifted 1.5 ms, 1.12 ms of motion error at 60 Hz in a mailbox;
                # 0.37 ms since). Once one doubts it (vsync switched on, say), every paced frame
                # is a check, shifted as far as the bound allows, so that waits show through
                # wake-up noise: shifted the least, vsync switched on under +-2 ms of noise was
                # noticed over a second late in 2 seeds of 130, not 1, and 1.4 frames later on
                # average.
                least = settings.min_check_shift_ns + jitter
                shift = most if self.detector.doubted else min(most, least)
                early = min(deadline - ready_ns, shift)
                # early if the work leaves time before the deadline, else late
                can_early = early >= settings.min_check_shift_ns
                issue_ns = deadline - early if can_early else deadline + shift
                if ticks_at is not None and can_early:
                    # A check rendered for a moment before a tick boundary its deadline is
                    # after runs one tick fewer, and the frame after it one more. Where every
                    # frame runs a tick that is 0 and 2 every few frames, and each input read
                    # in the first shown a frame later: then the check goes as far after its
                    # deadline (where ticks longer than two shifts have no boundary). Where
                    # frames outnumber ticks, the tick only moves to the next frame: the
                    # check stays early (a late one is more exposed to a late wake-up).
                    both = ticks_at(deadline + shown)  # this frame's and the next one's
                    regular = ticks_at(deadline + shown - lead_ns)
                    checked = ticks_at(issue_ns + shown - lead_ns)
                    if max(checked, both - checked) > max(regular, both - regular):
                        issue_ns = deadline + most
                return PresentPlan(PlanKind.CHECK, issue_ns + shown, issue_ns, lead_ns, None)
        return PresentPlan(PlanKind.PACED, deadline + shown, deadline, lead_ns, None)
