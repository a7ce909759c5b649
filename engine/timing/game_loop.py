"""The game loop: one object that the arcade window and the monitor simulator both drive.

Each call to :meth:`GameLoop.run_frame` is one frame::

    frame start = the timestamp taken right after the previous present
    plan = planner.plan(frame start)                # when this frame will be shown
    sleep until frame_delay.wake_ns(...)            # frames just in time (if a delay is set)
    poll_events()                                   # once per frame: input is read here
    decision = pacer.advance(frame time)            # how many ticks, alpha, dropped time
    fixed_update(tick) x decision.updates           # the only place game state changes
    render(alpha)                                   # draws, never changes state
    sleep until plan.issue_ns                       # limiter deadline, or a vsync hold
    if planner.discard(plan, now): end the frame    # too late for its vblank (see below)
    present()                                       # flip(); blocks for the vblank with vsync
    detector.observe(timestamp, time spent in present)

The frame's time given to the pacer is the moment its image will be shown, minus the usual frame
interval (see :mod:`engine.timing.present_plan`): in a steady cadence that is exactly the previous
present's vblank (vsync on) or deadline (vsync off), and a frame that will be shown a vblank later
than usual is rendered a vblank further on, so what is on screen always matches when it is on
screen. While the verdict is undecided, frames present at once and use the previous present's
place on the vblank grid. A frame that can no longer flip at its planned vblank is *discarded*
(rendered, not presented) when the next frame, started at once, can still make the vblank the
late image would have flipped at: the screen then shows an image rendered for that vblank
instead of one a period old (:meth:`~engine.timing.present_plan.PresentPlanner.discard`).

The window supplies a :class:`~engine.timing.clock.RealClock` and a real ``flip()``; the monitor
simulator supplies a :class:`~engine.timing.clock.ManualClock` and a simulated display. Both run
this code, so what the simulator proves holds for the game.

Before the first game frame the loop *probes* the display: ``probe_frames`` present-only frames
(nothing rendered, no ticks) let the vsync detector see the raw refresh even when rendering later
takes longer than one refresh period. The first ``BACK_TO_BACK_PROBES`` are called as the
previous one returns; the rest each a different part of the interval later, which tells a wait
from a copy inside the present (see ``PROBE_FRAMES``). Probe frames are reported with
``probe=True`` and are not part of game time.

``planned=False`` runs the loop without a planner, as the seeds' loops ran: presents are issued at
once, or at the limiter's deadline decided after the frame's work (seed 000); the monitor simulator
runs its baselines that way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from engine.timing.clock import NS_PER_S, Clock
from engine.timing.frame_delay import FrameDelay
from engine.timing.limiter import FrameLimiter
from engine.timing.pacer import FrameDecision, FramePacer, FrameTime, TimingMode
from engine.timing.present_plan import (
    FREE_PLAN,
    MIN_WINDOW_FRAMES,
    PlanKind,
    PlanSettings,
    PresentPlan,
    PresentPlanner,
)
from engine.timing.vsync import VsyncDetector

#: Without a planner, a limiter-paced present that returns at most this long after its deadline
#: counts as presented on the deadline (its noise-free time). A software swap (Mesa llvmpipe under
#: X11) takes 1.5-6 ms.
DEADLINE_LATE_NS = 4_000_000
#: ... or at most this long before it (clock granularity).
DEADLINE_EARLY_NS = 500_000
#: Start-up probes sent back to back, each called as the previous one returns: a swap chain
#: fills, waits show the period, and the grid starts on them.
BACK_TO_BACK_PROBES = 30
#: Start-up probes in all (with a planner): after the back-to-back ones, each is called a
#: different part of the interval after the previous return (the golden ratio's steps,
#: ``OFFSET_STEP``), so their calls cover the period. A present that waits returns at its
#: vblank wherever it was called, one that copies the picture without vsync its copy later
#: (``VsyncDetector.probes_done``). Back to back only, a copy of about a period returned
#: about a period apart, like waits (231 Hz reported, a 4.5 ms copy without vsync: judged
#: on). With vsync each still takes one period: 16 more (0.27 s at 60 Hz).
PROBE_FRAMES = BACK_TO_BACK_PROBES + 16
OFFSET_STEP = 0.6180339887498949


class PacingPolicy(Protocol):
    """What the loop needs from a pacer; :class:`~engine.timing.pacer.FramePacer` is ours."""

    ticks: int

    def advance(self, frame: FrameTime) -> FrameDecision:
        """Decide the frame's ticks and alpha."""
        ...


class LimitWhen(StrEnum):
    """When the frame limiter paces presents."""

    AUTO = "auto"  # when the detector says vsync is off (or a variable-refresh panel)
    ALWAYS = "always"  # vsync was not requested
    NEVER = "never"


# module constants: an enum member looked up on its class costs more than a global, per frame
AUTO, ALWAYS, PACED = LimitWhen.AUTO, LimitWhen.ALWAYS, PlanKind.PACED
VBLANK, CHECK = PlanKind.VBLANK, PlanKind.CHECK


@dataclass(frozen=True, slots=True)
class FrameReport:
    """What happened in one frame, for overlays, logs, tests and the simulator.

    Attributes:
        index: Frame number, counting game frames from 0 (probe frames count separately).
        frame_ns: Timestamp the frame started from (the previous present).
        updates: Ticks run.
        alpha: Interpolation factor rendered with.
        dropped_ns: Time dropped by the hitch guard at this frame.
        mode: Policy that decided the frame.
        ready_ns: Timestamp just before present (after render and any limiter sleep or hold).
        present_ns: Timestamp just after present.
        deadline_ns: When the present was issued on purpose (limiter deadline, check or hold), if
            it waited.
        vsync: Detector verdict after this present.
        refresh_hz: Detector refresh estimate after this present.
        probe: True for a start-up probe frame (no ticks, no render).
        plan: How the present was planned (a :class:`~engine.timing.present_plan.PlanKind` value).
        display_ns: When the frame was planned to be shown, if planned.
        input_ns: When the frame read input (``poll_events``): its start, or later with a
            frame delay.
        presented: False when the frame was rendered but *discarded*: it could no longer flip
            at its planned vblank, and the next frame could still make the one it would have
            shown at (see :meth:`~engine.timing.present_plan.PresentPlanner.discard`); then
            ``present_ns`` is ``ready_ns``.
    """

    index: int
    frame_ns: int
    updates: int
    alpha: float
    dropped_ns: int
    mode: TimingMode | str
    ready_ns: int
    present_ns: int
    deadline_ns: int | None
    vsync: bool | None
    refresh_hz: float | None
    probe: bool = False
    plan: str = ""
    display_ns: int | None = None
    input_ns: int | None = None
    presented: bool = True


class GameLoop:
    """Runs frames: present plan, pacing decision, fixed updates, render, present, vsync detection.

    Args:
        clock: Time source (real or manual).
        pacer: The pacing policy.
        fixed_update: Called once per tick with the tick's index.
        render: Called once per frame with alpha.
        present: Shows the frame (``flip()``).
        poll_events: Called once at the start of every frame (pump OS events).
        detector: Vsync detector fed with every present.
        limiter: Frame limiter used when vsync is off (see ``limit_when``); its target should be the
            display's refresh rate (capped by the game's frame rate limit).
        limit_when: When the limiter paces presents.
        probe_frames: Present-only frames run before the first game frame.
        probe: What a probe frame shows (defaults to ``present``).
        planned: Plan every present (see the module docstring); ``False`` runs as the seeds did.
        plan_settings: Tuning of the planner.
        frame_delay: Frames just in time (:mod:`engine.timing.frame_delay`), or ``None``: each
            frame reads input as soon as the previous present returned. Needs ``planned``.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        pacer: PacingPolicy,
        fixed_update: Callable[[int], None],
        render: Callable[[float], None],
        present: Callable[[], None],
        poll_events: Callable[[], None] | None = None,
        detector: VsyncDetector | None = None,
        limiter: FrameLimiter | None = None,
        limit_when: LimitWhen = LimitWhen.AUTO,
        probe_frames: int = PROBE_FRAMES,
        probe: Callable[[], None] | None = None,
        planned: bool = True,
        plan_settings: PlanSettings | None = None,
        frame_delay: FrameDelay | None = None,
    ) -> None:
        self.clock = clock
        self.pacer = pacer
        # what a frame would tick, for the planner's checks (see PresentPlanner.plan)
        self._ticks_at = pacer.ticks_due if isinstance(pacer, FramePacer) else None
        self.detector = detector or VsyncDetector()
        self.limiter = limiter
        self.limit_when = LimitWhen(limit_when)
        #: The present planner, or ``None`` when the loop runs unplanned.
        if isinstance(pacer, FramePacer) and pacer.settings.mode is TimingMode.STRICT:
            # strict presents every frame it renders (see PlanSettings.aim)
            plan_settings = replace(plan_settings or PlanSettings(), aim=False)
        self.planner = PresentPlanner(self.detector, limiter, plan_settings) if planned else None
        #: The frame delay, or ``None``.
        self.frame_delay = frame_delay if planned else None
        self._fixed_update = fixed_update
        self._render = render
        self._present = present
        self._poll_events = poll_events
        self._probe = probe or present
        # the seeds' loops (unplanned) probed back to back only
        self._probes_left = max(
            0, probe_frames if planned else min(probe_frames, BACK_TO_BACK_PROBES)
        )
        self._probe_returns: list[int] = []
        self._limiting = False
        self._frame = FrameTime(real_ns=clock.now_ns())
        self._checks_until_ns = 0
        #: Game frames run so far.
        self.frames = 0

    @property
    def frame_time(self) -> FrameTime:
        """What is known about the current frame (valid from ``poll_events`` to ``present``)."""
        return self._frame

    @property
    def limiting(self) -> bool:
        """Whether the limiter paces presents now."""
        if self.limiter is None or self.limit_when is LimitWhen.NEVER:
            return False
        return self.limit_when is LimitWhen.ALWAYS or self.detector.verdict is False

    def run_frame(self) -> FrameReport:
        """Run one frame (or one start-up probe) and report it."""
        if self._probes_left:
            return self._run_probe()
        clock = self.clock
        detector = self.detector
        planner = self.planner
        frame = self._frame
        limiter = self.limiter
        limit_when = self.limit_when
        limiting = limiter is not None and (
            limit_when is ALWAYS or (limit_when is AUTO and detector.verdict is False)
        )
        if limiting and not self._limiting and limiter is not None:
            limiter.reset()  # a new grid from this frame on
        self._limiting = limiting
        if planner is None:
            plan = FREE_PLAN
        else:
            # checks keep a wrong "vsync off" from sealing itself; with vsync not requested
            # (ALWAYS) the presents stay on their even grid, but for a while after the display
            # changed (the paced presents abstain, so only checks can undo an old verdict)
            checks = limit_when is AUTO or frame.real_ns < self._checks_until_ns
            plan = planner.plan(
                frame.real_ns, limiting=limiting, checks=checks, ticks_at=self._ticks_at
            )
        delay = self.frame_delay
        kind = plan.kind
        delayed = False
        if (
            delay is not None
            and planner is not None
            and plan.display_ns is not None
            and (kind is VBLANK or kind is PACED or kind is CHECK)
            # not before the work is known: the first frames' work counts as 0 (shaders,
            # textures), and a frame woken for no work misses its vblank; in a swap chain that
            # queues frames its present then finds a free place and returns at once, and the
            # first votes say vsync off (61 Hz, a queue of 2: off for good)
            and len(planner.window) >= MIN_WINDOW_FRAMES
        ):
            # the work up to the flip: ticks and render, the present's own cost (the longest
            # it may take: a frame woken just in time has no slack for a longer copy), and on
            # the vblank grid the detector's clean lead (called that long before its vblank, a
            # present waits whatever its wake-up noise, so the grid keeps seeing the early
            # returns it is fitted to, and the grid's uncertainty is covered twice)
            need = planner.work.value_ns + planner.settings.work_margin_ns
            if kind is VBLANK:
                need += detector.longest_cost_ns + round(detector.clean_lead_ns)
                # in a swap chain that holds images, the present is called early enough to
                # wait for the vblank that frees a place (those before its image's): one that
                # found room would return at once, and teach the grid nothing
                need += round(detector.queue_lead_ns)
            else:  # shown when the present returns: after its own work
                need += detector.paced_cost_ns
            wake = delay.wake_ns(frame.real_ns, plan.display_ns, need)
            if wake is not None:
                clock.sleep_until(wake)
                delay.slept(wake, clock.now_ns())
                delayed = True
        input_ns = clock.now_ns()
        if self._poll_events is not None:
            self._poll_events()
        if plan.display_ns is not None:
            frame = FrameTime(
                frame.real_ns,
                plan.display_ns - plan.lead_ns,
                plan.vblanks,
                frame.vsync,
                frame.refresh_hz,
            )
            self._frame = frame
        decision = self.pacer.advance(frame)
        fixed_update = self._fixed_update
        for tick in range(decision.first_tick, decision.first_tick + decision.updates):
            fixed_update(tick)
        self._render(decision.alpha)
        issue_ns = plan.issue_ns
        if planner is not None:
            planner.finished(clock.now_ns() - input_ns)
        elif limiting and limiter is not None:
            issue_ns = limiter.deadline(frame.real_ns, clock.now_ns())
        if issue_ns is not None:
            clock.sleep_until(issue_ns)
        ready_ns = clock.now_ns()
        if kind is VBLANK and planner is not None and planner.discard(plan, ready_ns):
            return self._discarded(frame, decision, plan, ready_ns, input_ns, delayed)
        self._present()
        present_ns = clock.now_ns()
        if planner is not None:
            paced = plan.kind is PACED
            estimate = detector.observe(present_ns, present_ns - ready_ns, paced=paced)
            smooth_ns = estimate.smooth_ns
            planner.shown(estimate)
            if delayed and delay is not None and plan.display_ns is not None:
                # late: flipped a vblank after the planned one, or ready after the deadline
                period = detector.period_ns
                if kind is VBLANK and smooth_ns is not None and period is not None:
                    delay.shown(smooth_ns - plan.display_ns < period / 2)
                else:  # ready for the limiter's deadline
                    issue = plan.display_ns if plan.issue_ns is None else plan.issue_ns
                    delay.shown(ready_ns - issue < planner.settings.hold_guard_ns)
        else:
            estimate = detector.observe(
                present_ns, present_ns - ready_ns, paced=issue_ns is not None
            )
            smooth_ns = estimate.smooth_ns
            if issue_ns is not None and (
                -DEADLINE_EARLY_NS <= present_ns - issue_ns <= DEADLINE_LATE_NS
            ):
                smooth_ns = issue_ns
        verdict = detector.verdict
        refresh_hz = detector.refresh_hz
        self._frame = FrameTime(present_ns, smooth_ns, estimate.vblanks, verdict, refresh_hz)
        report = FrameReport(
            self.frames,
            frame.real_ns,
            decision.updates,
            decision.alpha,
            decision.dropped_ns,
            decision.mode,
            ready_ns,
            present_ns,
            issue_ns,
            verdict,
            refresh_hz,
            False,
            kind,  # a StrEnum: its value, without the enum lookup per frame
            plan.display_ns,
            input_ns,
        )
        self.frames += 1
        return report

    def _discarded(
        self,
        frame: FrameTime,
        decision: FrameDecision,
        plan: PresentPlan,
        ready_ns: int,
        input_ns: int,
        delayed: bool,
    ) -> FrameReport:
        """End a frame without presenting it: the next one starts now (see ``presented``)."""
        detector = self.detector
        if delayed and self.frame_delay is not None:
            self.frame_delay.shown(False)  # it missed the vblank it was delayed for
        verdict = detector.verdict
        refresh_hz = detector.refresh_hz
        self._frame = FrameTime(ready_ns, None, None, verdict, refresh_hz)
        report = FrameReport(
            self.frames,
            frame.real_ns,
            decision.updates,
            decision.alpha,
            decision.dropped_ns,
            decision.mode,
            ready_ns,
            ready_ns,
            plan.issue_ns,
            verdict,
            refresh_hz,
            False,
            plan.kind,
            plan.display_ns,
            input_ns,
            False,
        )
        self.frames += 1
        return report

    def _run_probe(self) -> FrameReport:
        self._probes_left -= 1
        returns = self._probe_returns
        if len(returns) >= BACK_TO_BACK_PROBES:
            # called a different part of the interval after the previous return each time
            interval = returns[-1] - returns[-2]
            offset = (len(returns) * OFFSET_STEP) % 1.0
            self.clock.sleep_until(returns[-1] + round(offset * interval))
        ready_ns = self.clock.now_ns()
        self._probe()
        present_ns = self.clock.now_ns()
        returns.append(present_ns)
        estimate = self.detector.observe(present_ns, present_ns - ready_ns, probe=True)
        if not self._probes_left:
            self.detector.probes_done()
        if self.planner is not None:
            self.planner.shown(estimate)
        self._frame = FrameTime(real_ns=present_ns, smooth_ns=estimate.smooth_ns)
        return FrameReport(
            index=-1,
            frame_ns=ready_ns,
            updates=0,
            alpha=1.0,
            dropped_ns=0,
            mode="probe",
            ready_ns=ready_ns,
            present_ns=present_ns,
            deadline_ns=None,
            vsync=self.detector.verdict,
            refresh_hz=self.detector.refresh_hz,
            probe=True,
        )

    def display_changed(self, check_for_ns: int = 2 * NS_PER_S) -> None:
        """The display may present differently now (vsync switched, a new screen mode): judge
        it again. Paced presents abstain from voting, so with vsync not requested the loop
        sends checks for ``check_for_ns`` (the verdict follows within about a second)."""
        self._checks_until_ns = self.clock.now_ns() + check_for_ns

    def resync(self) -> None:
        """Forget the time until the next frame (after a level load): it is dropped, not simulated."""
        resync = getattr(self.pacer, "resync", None)
        if resync is not None:
            resync()
        if self.limiter is not None:
            self.limiter.reset()
        if self.planner is not None:
            self.planner.reset()
        # The next frame starts now, so the load's duration lands in its delta and is dropped.
        self._frame = FrameTime(self.clock.now_ns())
