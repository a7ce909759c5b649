"""Present planning: the work estimate, vblank targets and holds, limiter deadlines and checks."""

from __future__ import annotations

import itertools
from fractions import Fraction

from engine.timing import (
    FrameLimiter,
    FramePacer,
    FrameTime,
    PlanKind,
    PlanSettings,
    PresentPlan,
    PresentPlanner,
    TickRate,
    VsyncDetector,
    WorkEstimate,
    WorkWindow,
)
from engine.timing.clock import NS_PER_MS, NS_PER_S

PERIOD_NS = NS_PER_S / 144


def test_work_estimate_rises_at_once_ignores_short_spikes_and_falls_slowly() -> None:
    work = WorkEstimate(decay=0.01)
    work.add(186 * NS_PER_MS)  # the first frame: shaders compiled, the atlas filled
    for _ in range(10):
        work.add(5 * NS_PER_MS)
    assert work.value_ns == 5 * NS_PER_MS  # the first frame left no trace
    work.add(5_400_000)  # a little longer: adopted at once
    assert work.value_ns == 5_400_000
    work.add(25 * NS_PER_MS)  # a level load, then the first draw of the level: two spikes
    work.add(30 * NS_PER_MS)
    assert work.value_ns == 5_400_000
    for _ in range(100):
        work.add(4 * NS_PER_MS)
    assert 4 * NS_PER_MS < work.value_ns < 5 * NS_PER_MS  # falling back, slowly
    for _ in range(3):
        work.add(20 * NS_PER_MS)  # three long frames in a row: the work really got longer
    assert work.value_ns == 20 * NS_PER_MS


def vsync_detector(frames: int = 60) -> tuple[VsyncDetector, int]:
    """A detector that has seen ``frames`` blocking presents on a 144 Hz grid (vblank 0 at 0)."""
    detector = VsyncDetector(nominal_hz=144.0)
    t = 0
    for n in range(1, frames + 1):
        t = round(n * PERIOD_NS) + 30_000
        detector.observe(t, 2 * NS_PER_MS)
    assert detector.verdict is True
    return detector, t


def test_vsync_plan_targets_the_first_vblank_the_work_can_make() -> None:
    detector, last = vsync_detector()
    planner = PresentPlanner(detector, None)
    for _ in range(5):
        planner.finished(3 * NS_PER_MS)
    planner.shown(detector.observe(last + round(PERIOD_NS), 2 * NS_PER_MS))
    start = last + round(PERIOD_NS)
    plan = planner.plan(start, limiting=False)
    assert plan.kind is PlanKind.VBLANK
    assert plan.display_ns is not None
    # the grid is fitted to when presents return, so its "vblanks" include their 30 µs latency
    assert abs(plan.display_ns - (start + PERIOD_NS)) < 1_000  # the next vblank
    assert plan.issue_ns is None  # no hold needed: it cannot flip earlier anyway
    assert abs(plan.lead_ns - PERIOD_NS) < 1  # one vblank per frame in this cadence
    # the frame's time given to the pacer is the previous vblank: as before planning existed
    assert abs(plan.display_ns - plan.lead_ns - start) < 1_000


def test_a_frame_that_would_flip_early_is_held_for_its_planned_vblank() -> None:
    detector, last = vsync_detector()
    planner = PresentPlanner(detector, None)
    for _ in range(5):
        planner.finished(7_500_000)  # longer than one 6.94 ms refresh
    previous = detector.observe(last + round(PERIOD_NS), 2 * NS_PER_MS)
    planner.shown(previous)
    assert previous.smooth_ns is not None
    plan = planner.plan(last + round(PERIOD_NS), limiting=False)
    assert plan.display_ns is not None and plan.issue_ns is not None
    assert abs(plan.display_ns - previous.smooth_ns - 2 * PERIOD_NS) < 1_000  # two vblanks on
    # held until just after the vblank in between: if the work ends early, it still flips at
    # the planned vblank, never a refresh early
    hold = plan.issue_ns - (previous.smooth_ns + PERIOD_NS)
    assert PlanSettings().hold_guard_ns <= hold < NS_PER_MS
    assert abs(plan.lead_ns - 2 * PERIOD_NS) < 1  # this cadence is two vblanks per frame


def test_work_window_gives_the_predictive_chance_that_the_next_work_fits() -> None:
    window = WorkWindow(frames=4)
    for work in (5, 1, 3, 2, 4):  # the oldest (5) leaves: 1, 2, 3, 4 are kept
        window.add(work)
    assert len(window) == 4 and window.longest_ns == 4
    # the next of five exchangeable times is at most the k-th smallest of four with k / 5
    assert [window.fits(t) for t in (0.5, 1, 2.5, 4, 100)] == [0.0, 0.2, 0.4, 0.8, 0.8]


def steady_planner(work_ns: list[int], **settings: object) -> tuple[PresentPlanner, int, int]:
    """A planner on a 144 Hz grid whose previous image flipped at ``shown``; ``start`` is when
    the next frame starts, ``work_ns`` the recent work times (repeated to fill the window)."""
    detector, last = vsync_detector()
    planner = PresentPlanner(detector, None, PlanSettings(**settings))  # type: ignore[arg-type]
    for _ in range(64 // len(work_ns)):
        for work in work_ns:
            planner.finished(work)
    previous = detector.observe(last + round(PERIOD_NS), 2 * NS_PER_MS)
    planner.shown(previous)
    assert previous.smooth_ns is not None
    return planner, previous.smooth_ns, last + round(PERIOD_NS)


def test_a_frame_aims_for_a_vblank_its_work_fits_more_likely_than_not() -> None:
    """Work of 4.5-5.5 ms, started 1.6 ms after the previous vblank: the next vblank (6.94 ms on)
    leaves 5.1 ms after the margins, which fits the work 3 times in 5. Holding for the vblank
    after would repeat the previous image for sure; aiming repeats it only on a miss (then
    discarded) and wastes a frame: 0.4 * 2 < 1."""
    works = [4_500_000, 4_750_000, 5_000_000, 5_250_000, 5_500_000]
    planner, shown, _ = steady_planner(works)
    start = shown + 1_600_000
    plan = planner.plan(start, limiting=False)
    assert plan.display_ns is not None
    assert abs(plan.display_ns - (shown + PERIOD_NS)) < 1_000 and plan.issue_ns is None
    held, shown, _ = steady_planner(works, aim=False)
    plan = held.plan(shown + 1_600_000, limiting=False)
    assert plan.display_ns is not None
    assert abs(plan.display_ns - (shown + 2 * PERIOD_NS)) < 1_000  # held for the one after
    # started 0.3 ms later, the work fits only 2 times in 5: held
    planner, shown, _ = steady_planner(works)
    plan = planner.plan(shown + 1_900_000, limiting=False)
    assert plan.display_ns is not None and abs(plan.display_ns - (shown + 2 * PERIOD_NS)) < 1_000


def test_a_frame_never_aims_where_a_miss_could_not_be_discarded() -> None:
    """Work of up to 6.5 ms on a 6.94 ms period: a frame that missed the earlier vblank would
    end so late that the next frame could not make the one after; the miss would be shown a
    period late, so the frame holds, however likely the work fits."""
    works = [4_000_000] * 7 + [6_500_000]
    planner, shown, _ = steady_planner(works)
    plan = planner.plan(shown + 2_200_000, limiting=False)  # fits 7 times in 9
    assert plan.display_ns is not None and abs(plan.display_ns - (shown + 2 * PERIOD_NS)) < 1_000


def test_a_frame_too_late_for_its_vblank_is_discarded_if_the_next_can_make_the_one_after() -> None:
    planner, shown, _ = steady_planner([5_000_000])
    plan = planner.plan(shown + 1_000_000, limiting=False)
    assert plan.display_ns is not None
    target = plan.display_ns
    assert not planner.discard(plan, target - NS_PER_MS)  # in time: presented
    assert planner.discard(plan, target - 50_000)  # within the margins: counted as missed
    assert planner.discard(plan, target + NS_PER_MS)  # the next frame (5.2 ms) makes target + P
    assert not planner.discard(plan, target + 2 * NS_PER_MS)  # it would not: shown late
    assert not planner.discard(plan, target + 20 * NS_PER_MS)  # a hitch: shown as it is
    planner, shown, _ = steady_planner([5_000_000], aim=False)
    plan = planner.plan(shown + 1_000_000, limiting=False)
    assert plan.display_ns is not None and not planner.discard(plan, plan.display_ns + NS_PER_MS)


def test_a_held_frame_released_when_planned_is_never_discarded() -> None:
    """A present that costs 5.5 ms of its own is held until 5.5 ms and a guard before its
    vblank; released then, it is on time by its plan, whatever the margins say."""
    planner, shown, _ = steady_planner([3 * NS_PER_MS])
    planner.detector.planning_cost_ns = 5_500_000
    display = round(shown + 2 * PERIOD_NS)
    # released 5.6 ms before its vblank: with the cost, within the margins of it
    plan = PresentPlan(PlanKind.VBLANK, display, display - 5_600_000, round(PERIOD_NS), 2)
    assert not planner.discard(plan, display - 5_600_000 + 20_000)
    # the same frame unheld, ready then, would count as late (and be discarded)
    assert planner.discard(plan._replace(issue_ns=None), display - 5_600_000 + 20_000)


def test_no_hold_for_a_vblank_the_previous_present_did_not_wait_for() -> None:
    """Vsync just switched off: a present returned 10 ms before the vblank it was placed at."""
    detector, last = vsync_detector()
    planner = PresentPlanner(detector, None)
    for _ in range(5):
        planner.finished(9 * NS_PER_MS)
    previous = detector.observe(last + round(PERIOD_NS), 2 * NS_PER_MS)
    planner.shown(previous)
    assert previous.smooth_ns is not None
    plan = planner.plan(previous.smooth_ns - 10 * NS_PER_MS, limiting=False)
    assert plan.kind is PlanKind.VBLANK and plan.issue_ns is None


def test_paced_plans_follow_the_limiter_grid_and_overruns_present_when_ready() -> None:
    limiter = FrameLimiter(Fraction(144))
    planner = PresentPlanner(VsyncDetector(), limiter, PlanSettings(check_interval_ns=0))
    interval = NS_PER_S / 144
    start = 0
    for _ in range(3):
        planner.finished(2 * NS_PER_MS)
    deadlines = []
    for _ in range(5):
        plan = planner.plan(start, limiting=True)
        assert plan.kind is PlanKind.PACED and plan.display_ns == plan.issue_ns
        assert plan.display_ns is not None
        deadlines.append(plan.display_ns)
        start = plan.display_ns + 1_000
    assert [round(d / interval) for d in deadlines] == [1, 2, 3, 4, 5]
    assert all(abs(d - round(d / interval) * interval) <= 1 for d in deadlines)
    for _ in range(3):
        planner.finished(10 * NS_PER_MS)  # slower than the display: present as soon as ready
    plan = planner.plan(start, limiting=True)
    assert plan.kind is PlanKind.OVERRUN
    assert plan.display_ns == start + 10 * NS_PER_MS + PlanSettings().work_margin_ns


def test_checks_come_every_50_ms_a_little_before_the_deadline_within_the_slack() -> None:
    limiter = FrameLimiter(Fraction(60))
    planner = PresentPlanner(VsyncDetector(), limiter)
    for _ in range(3):
        planner.finished(5 * NS_PER_MS)
    start = 0
    kinds = []
    for _ in range(60):
        plan = planner.plan(start, limiting=True)
        kinds.append(plan.kind)
        assert plan.display_ns is not None
        if plan.kind is PlanKind.CHECK:
            on_grid = round(plan.display_ns * 60 / NS_PER_S) * NS_PER_S / 60
            shift = on_grid - plan.display_ns
            settings = PlanSettings()
            assert settings.min_check_shift_ns <= shift <= settings.max_check_shift_ns + 1
        start = plan.display_ns + 1_000
    assert kinds.count(PlanKind.CHECK) == 19  # one second of frames: at 0.05, 0.1 ... 0.95 s
    assert kinds.count(PlanKind.PACED) == 41


def test_while_the_latest_vote_doubts_the_verdict_every_paced_frame_is_a_check() -> None:
    """A check that blocked on a vblank grid although the verdict is "off" is followed by
    another at once, and the 50 ms rhythm comes back when a vote agrees again. Meanwhile each
    check is shifted as far as the bound allows (waits show through wake-up noise), and
    otherwise by the least that shows one (in a compositor, a check is shown that far off)."""
    detector = VsyncDetector()
    planner = PresentPlanner(detector, FrameLimiter(Fraction(60)))
    for _ in range(3):
        planner.finished(5 * NS_PER_MS)
    detector.verdict = False
    settings = PlanSettings()
    start, kinds = 0, []
    for frame in range(30):
        detector.doubted = 6 <= frame < 12  # the votes of frames 6..11 disagreed
        plan = planner.plan(start, limiting=True)
        assert plan.display_ns is not None
        kinds.append(plan.kind)
        if plan.kind is PlanKind.CHECK:
            shift = round(plan.display_ns * 60 / NS_PER_S) * NS_PER_S / 60 - plan.display_ns
            wanted = (
                settings.max_check_shift_ns if detector.doubted else settings.min_check_shift_ns
            )
            assert abs(shift - wanted) <= 1
        start = plan.display_ns + 1_000
    assert kinds[6:12] == [PlanKind.CHECK] * 6
    rhythm = [*kinds[:6], PlanKind.PACED, *kinds[12:]]  # every third 60 Hz frame, 50 ms apart
    assert all(PlanKind.PACED in pair for pair in itertools.pairwise(rhythm))


def test_a_vote_against_the_verdict_doubts_it_until_one_agrees_or_it_flips() -> None:
    detector, t = vsync_detector(60)
    assert detector.verdict is True and not detector.doubted
    period = round(PERIOD_NS)
    detector.observe(t + period // 3, 0)  # returned at once, off the grid: a vote for "off"
    assert detector.doubted and detector.verdict is True
    t += 2 * period
    detector.observe(t, 2 * NS_PER_MS)  # blocked, on the grid: agrees
    assert not detector.doubted
    flipped = False
    for k in range(1, 40):  # vsync switched off: every present returns at once, anywhere
        detector.observe(t + k * period + period // 3, 0)
        if detector.verdict is False:
            flipped = True
            assert not detector.doubted  # the new verdict has no doubt yet
            break
        assert detector.doubted
    assert flipped


def test_with_no_slack_before_the_deadline_a_check_comes_a_little_late() -> None:
    limiter = FrameLimiter(Fraction(60))
    planner = PresentPlanner(VsyncDetector(), limiter)
    for _ in range(3):
        planner.finished(16_300_000)  # the work leaves 0.27 ms before each 16.67 ms deadline
    start, plans = 0, []
    for _ in range(20):
        plan = planner.plan(start, limiting=True)
        assert plan.display_ns is not None
        plans.append(plan)
        if plan.kind is PlanKind.CHECK:
            break
        start = plan.display_ns + 1_000
    previous, check = plans[-2], plans[-1]
    assert previous.kind is PlanKind.PACED and check.kind is PlanKind.CHECK
    assert previous.display_ns is not None and check.display_ns is not None
    deadline = previous.display_ns + NS_PER_S / 60
    # by the least shift a wait shows past the paced presents' jitter (none here)
    assert abs(check.display_ns - deadline - PlanSettings().min_check_shift_ns) <= 1


def ticks_per_frame(checks_see_ticks: bool) -> tuple[list[int], int]:
    """60 Hz ticks paced by a 60 Hz limiter whose deadlines fall half the least check shift
    after each tick boundary (the accumulator rounds at half a tick; a limiter reset mid-run
    leaves any phase): the ticks of 60 frames, and how many checks came after their deadline."""
    pacer = FramePacer(TickRate.from_hz(60))
    planner = PresentPlanner(VsyncDetector(), FrameLimiter(Fraction(60)))
    for _ in range(3):
        planner.finished(5 * NS_PER_MS)
    step = NS_PER_S // 60
    first = planner.plan(0, limiting=True)
    assert first.display_ns is not None
    after = PlanSettings().min_check_shift_ns // 2
    origin = first.display_ns - after - step // 2  # the pacer's time 0
    pacer.advance(FrameTime(origin, origin))
    ticks, late = [], 0
    start = first.display_ns + 1_000
    for _ in range(60):
        plan = planner.plan(
            start, limiting=True, ticks_at=pacer.ticks_due if checks_see_ticks else None
        )
        assert plan.display_ns is not None
        frame_ns = plan.display_ns - plan.lead_ns
        due = pacer.ticks_due(frame_ns)
        ticks.append(pacer.advance(FrameTime(start, frame_ns)).updates)
        assert ticks[-1] == due  # what the planner was told is what the frame ran
        deadline = first.display_ns + round(
            (plan.display_ns - first.display_ns) * 60 / NS_PER_S
        ) * (NS_PER_S / 60)
        late += plan.kind is PlanKind.CHECK and plan.display_ns > deadline
        start = plan.display_ns + 1_000
    return ticks, late


def test_a_check_never_moves_a_frame_across_a_tick_boundary() -> None:
    """A check shifted early across a tick boundary would run no tick, and the frame after it
    two (each input read in it shown a frame later); it goes as far after its deadline
    instead, and every frame runs one tick. (Without the ticks, the same frames run 0 and 2.)"""
    ticks, late = ticks_per_frame(checks_see_ticks=True)
    assert ticks == [1] * 60
    assert late >= 15  # one second of frames: a check every 50 ms
    blind, _ = ticks_per_frame(checks_see_ticks=False)
    assert blind.count(0) >= 15 and blind.count(2) >= 15
