"""Goals over drawn displays, not fixed seeds (hypothesis).

Each example is one simulator run (random phase, 1,500 updates) on a display drawn from a
family: refresh rate, the rate the OS reports (none, the true one, or within ±3 % of it),
wake-up noise, the present's own work, the queue depth and vsync. Draws are derandomized so
that CI sees the same examples every run; the budgets are small (each run costs 0.2-1 s).

The families are those where the goals hold on every draw tried here (hundreds with
``/tmp``-style sweeps; see ``engine/tools/monitor_sim/README.md``, "Where the goals do not
hold yet", for the regions that still miss and by how much).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.tools.monitor_sim.simulation import SimConfig, SimResult, simulate
from engine.tools.monitor_sim.sweep import verdict_is_right

UPDATES = 1500


@st.composite
def displays(
    draw: st.DrawFn,
    *,
    max_hz: float,
    min_hz: float = 30.0,
    max_noise_ms: float,
    present: bool,
    reports: tuple[str, ...] = ("none", "true", "near"),
    max_queue: int = 3,
) -> SimConfig:
    refresh_hz = draw(st.floats(min_hz, max_hz, allow_nan=False))
    report = draw(st.sampled_from(reports))
    reported_hz: float | None = {"none": 0.0, "true": None}.get(report)
    if report == "near":
        reported_hz = float(round(refresh_hz * (1.0 + draw(st.floats(-0.03, 0.03)))))
    vsync = draw(st.booleans())
    return SimConfig(
        refresh_hz=refresh_hz,
        reported_hz=reported_hz,
        vsync=vsync,
        noise_ms=draw(st.floats(0.0, max_noise_ms)),
        present_ms=draw(st.floats(0.0, 6.0)) if present else 0.0,
        queue_depth=draw(st.integers(1, max_queue)) if vsync else 1,
        phase="random",
        updates=UPDATES,
        seed=draw(st.integers(0, 10_000)),
    )


def may_end_on_either_side_of_a_vblank(work_ms: tuple[float, float], config: SimConfig) -> bool:
    """Whether work started at a vblank (a present's return: within the wake-up noise of it)
    and lasting ``work_ms`` (shortest, longest) may end before or after a later vblank, by the
    draw of the noise and the work: its image then flips at one vblank or the next by chance,
    whatever the loop plans. The planner's work margin (0.1 ms) counts on both sides."""
    period_ms = 1000.0 / config.refresh_hz
    reach = config.noise_ms + 0.1
    return (work_ms[0] - reach) // period_ms != (work_ms[1] + reach) // period_ms


def copying_display(rng: random.Random) -> tuple[SimConfig, tuple[float, float]]:
    """A display with vsync at 60-240 Hz whose present copies the picture first (0.5-6 ms,
    +-25 % from one present to the next, as software GL), after 1-4 ms of render; and the
    frame's work from its start to its copy's end, shortest and longest, in ms."""
    render_ms, present_ms = rng.uniform(1.0, 4.0), rng.uniform(0.5, 6.0)
    config = SimConfig(
        refresh_hz=rng.uniform(60.0, 240.0),
        reported_hz=rng.choice([0.0, None]),
        noise_ms=rng.uniform(0.0, 0.25),
        present_ms=present_ms,
        render_ms=render_ms,
        phase="random",
        updates=UPDATES,
        seed=rng.randrange(10_000),
    )
    return config, (render_ms + 0.75 * present_ms, render_ms + 1.25 * present_ms)


def images_a_period_off(config: SimConfig, r: SimResult) -> int:
    """Images shown a period early or late (``r`` run with ``traces``): such an image steps
    a period too far, and the next one a period too short."""
    half_period_ms = 500.0 / config.refresh_hz
    return sum(abs(error) > half_period_ms for _, error in r.motion_trace)


def check_verdict(config: SimConfig, r: SimResult) -> None:
    """Right within 120 frames and never changed after; with vsync, the refresh measured."""
    assert verdict_is_right(config, r.verdict_changes, r.frames), r.verdict_changes
    if config.vsync:
        assert r.refresh_estimate_hz is not None
        assert abs(r.refresh_estimate_hz - config.refresh_hz) <= 0.05, r.refresh_estimate_hz


@settings(max_examples=6, deadline=None, derandomize=True)
@given(config=displays(max_hz=240.0, max_noise_ms=0.25, present=False))
def test_any_display_up_to_240_hz_is_judged_measured_and_smooth(config: SimConfig) -> None:
    """Known limit (README), left out: a queue of 2-3 frames whose 5 ms render does not fit a
    refresh period (above ~180 Hz) stops blocking; the start-up probes decide and the frames
    are held to a cadence, but a slip of the drifting grid costs more than 0.05 ms of motion
    (``test_jitter``: judged on and held to two vblanks)."""
    assume(config.queue_depth == 1 or 5.0 * config.refresh_hz / 1000.0 < 0.9)
    r = simulate(config)
    check_verdict(config, r)
    if config.vsync:
        assert r.motion_error_rms_ms <= 0.05


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    config=displays(min_hz=240.0, max_hz=360.0, max_noise_ms=0.25, present=False),
    render_periods=st.floats(0.2, 0.7),
    delay=st.booleans(),
)
def test_any_display_of_240_to_360_hz_whose_loop_keeps_up_is_judged_measured_and_smooth(
    config: SimConfig, render_periods: float, delay: bool
) -> None:
    """Above 240 Hz, with a render that fits the refresh period (a fifth to seven tenths of
    it), frames just in time or not: the goals hold as below 240 Hz (60 fresh draws of this
    family: none outside them). Known limit (README, "Where the goals do not hold yet"), left
    out: a loop as slow as the display or slower in a swap chain finds room with every frame,
    no present shows a vblank after the start-up probes, and the refresh estimate stays where
    they left it (``--survey high --draws 80 --seed 5``: 5 such draws of 80, 0.09-0.13 Hz off,
    motion 0.12-0.16 ms)."""
    config = replace(
        config,
        render_ms=render_periods * 1000.0 / config.refresh_hz,
        frame_delay="auto" if delay else "off",
    )
    r = simulate(config)
    check_verdict(config, r)
    if config.vsync:
        assert r.motion_error_rms_ms <= 0.05


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True)
@given(config=displays(max_hz=180.0, max_noise_ms=0.1, present=True, max_queue=1))
def test_a_present_that_takes_time_does_not_fool_the_detector(config: SimConfig) -> None:
    """Known limits (README), left out of the draws: with vsync, a frame whose render plus
    present (the copy jitters by a quarter) straddles a whole number of refresh periods is
    planned for the vblank after once a few presents skipped one, but the first of them flip
    late (19 of 24 such draws met these goals, the others 0.17-0.44 ms of motion error); so does
    a copy that, issued just after the vblank before its own (a frame of two periods is held
    till then), may end on either side of the next (129 Hz, a 6 +- 1.5 ms copy in a 7.75 ms
    period: a frame in about 500 flips a period late, 0.34-0.75 ms of motion error); a queue
    of 2-3 frames with a slow present (the returns no longer bracket the flips the cost is learnt
    from). Above 180 Hz, where a 5 ms render is a period or more, 3 of 108 such draws (up to
    240 Hz) had 0.16-1.08 ms of motion error: a frame whose work ends within a few tenths of a
    period of a vblank now and then flips at its neighbour.

    Without vsync, a frame too slow to keep the reported rate presents as soon as it is
    ready, like a free-running loop, whose presents look like vsync at the loop's own rate:
    judged right since a grid is tried on fresh returns while judged off
    (``VsyncDetector._try_grid``); the frame rate is checked where the frames fit."""
    period_ms = 1000.0 / config.refresh_hz
    shortest, longest = 5.0 + 0.75 * config.present_ms, 5.0 + 1.25 * config.present_ms
    # the limiter's rate: what the OS reports (the refresh rounded to whole Hz by default), or
    # the tick rate when it reports nothing
    reported = config.reported_hz
    target_hz = float(round(config.refresh_hz)) if reported is None else reported or 60.0
    if config.vsync:
        # and leaves a tenth of a period for the noise and the work margin
        assume(
            shortest // period_ms == longest // period_ms and longest % period_ms < 0.9 * period_ms
        )
        # a frame that takes more than a period is held until just after the vblank before
        # its own (the hold guard, 0.25 ms), so its copy alone must not straddle the next
        copy = (0.25 + 0.75 * config.present_ms, 0.25 + 1.25 * config.present_ms)
        assume(not may_end_on_either_side_of_a_vblank(copy, config))
    r = simulate(config)
    check_verdict(config, r)
    if config.vsync:
        assert r.motion_error_rms_ms <= 0.05
    elif longest * target_hz / 1000.0 < 0.9:  # the limiter paces at the reported rate
        assert abs(r.fps - target_hz) <= 0.02 * target_hz


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True)
@given(config=displays(max_hz=240.0, max_noise_ms=0.25, present=True, max_queue=1))
def test_a_present_of_any_length_up_to_240_hz_is_judged_right(config: SimConfig) -> None:
    """The issue's verdict goal over its whole range of present work (0-6 ms) at 60-240 Hz,
    vsync on and off, with no swap chain: right within 120 frames, never changed, and with
    vsync the refresh rate within 0.05 Hz. (The motion error is the test above's, on the
    draws whose copy cannot land on either side of a vblank.)

    A copy of about a period or more before the wait (4 +- 1 ms at 240 Hz) makes the
    back-to-back probes return one or two periods apart: they started no grid, the frames all
    voted "off", and 27 of 300 such draws were judged wrong. The probes called late now start
    the grid (``VsyncDetector._probes_pinned``): none of the 300."""
    assume(config.refresh_hz >= 60.0)
    check_verdict(config, simulate(config))


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    config=displays(max_hz=240.0, max_noise_ms=0.25, present=False),
    delay=st.booleans(),
)
def test_frame_delay_never_costs_smoothness(config: SimConfig, delay: bool) -> None:
    """Frames just in time: the same verdict and smoothness, never more vblanks repeated, with
    queued frames too (no delay before the work is known: a frame woken for no work missed its
    vblank, its present found a free place in the queue and returned at once, and the first
    votes said vsync off).

    Known limit (README), left out as in the test above: a queue of 2-3 frames whose 5 ms
    render does not fit a refresh period, delayed or not. Left out too: a render that may end
    on either side of a vblank (199 Hz: 5.01 ms of work in a 5.03 ms period, +-0.25 ms of
    noise). Each of its frames flips at one vblank or the next by the draw of the noise, in
    both runs, and once the delayed run's draws part from the other's their repeated vblanks
    differ by tens either way (199 Hz, seeds 0-2: 2,158 / 2,152 / 2,171 undelayed, 2,185 /
    2,141 / 2,169 with a 2 ms delay)."""
    from dataclasses import replace

    assume(config.queue_depth == 1 or 5.0 * config.refresh_hz / 1000.0 < 0.9)
    work_ms = config.render_ms + config.update_ms
    assume(not may_end_on_either_side_of_a_vblank((work_ms, work_ms), config))

    off = simulate(config)
    auto = simulate(replace(config, frame_delay="auto" if delay else 2.0))
    check_verdict(config, auto)
    assert auto.latency_mean_ms <= off.latency_mean_ms + 0.05
    if config.vsync:
        assert auto.motion_error_rms_ms <= max(0.05, off.motion_error_rms_ms)
        assert auto.repeated_vblanks <= off.repeated_vblanks + 2


@pytest.mark.slow
def test_frames_just_in_time_leave_room_for_the_longest_copy() -> None:
    """A present that copies the picture first (software GL: +-25 % from one to the next),
    with vsync, and frames woken just in time (or held for a later vblank): a frame woken
    for a copy shorter than its own has no slack left and shows its image a period late.
    Woken for the band's low end once the rare skips' reach was forgotten, they did so again
    and again (64 Hz, a 4.2 ms copy: 21 images late in 1,581 frames, 2.6 ms of motion
    error); now only a copy never seen yet can make one late (the first delayed frame, where
    the start-up probes saw no skip: 60 Hz, a 0.5 ms copy), and the delayed run still reads
    input sooner than the undelayed one. 16 displays drawn at 60-240 Hz with copies of
    0.5-6 ms and 1-4 ms of render (hypothesis's own draws found none of the failures: its
    first examples are the simplest); before, 9 of them showed images late that the
    undelayed run did not. Left out as in the tests above: work that may end on either side
    of a vblank by the draw of the copy."""
    rng = random.Random(24)
    checked = 0
    while checked < 16:
        config, work = copying_display(rng)
        if may_end_on_either_side_of_a_vblank(work, config):
            continue
        checked += 1
        off = simulate(config, traces=True)
        auto = simulate(replace(config, frame_delay="auto"), traces=True)
        check_verdict(config, auto)
        late, late_off = images_a_period_off(config, auto), images_a_period_off(config, off)
        assert late <= late_off + 2, (config, late, late_off)
        assert auto.latency_mean_ms <= off.latency_mean_ms + 0.05


@pytest.mark.slow
def test_a_present_held_past_a_copy_of_about_a_period_flips_where_planned() -> None:
    """Work that may end on either side of a vblank by the draw of its copy (software GL:
    +-25 % from one present to the next), up to two periods of it: each frame is planned for
    the vblank its longest work makes and its present held past the one before. Where the
    copy is about a period, the longest it may take (twice the quickest start-up probe)
    left no moment past that vblank, and the present was issued as early as that bound
    asked, so the image flipped a period early whenever the copy ran short (108.3 Hz, a 5.9
    ms copy after a 4 ms render: a quarter of the images). Now it is placed by the copy's
    range as the presents showed it (``VsyncDetector.copy_range_ns``). 16 displays drawn at
    60-240 Hz, renders of 1-4 ms, copies of 0.5-6 ms whose longest is half a period or
    more, frames just in time or not; before, 4 of them showed 142-616 images a period off
    in 1,500 updates; now none more than 8 (140 Hz: 8 before too)."""
    rng = random.Random(3)
    checked = 0
    while checked < 16:
        config, work = copying_display(rng)
        if not may_end_on_either_side_of_a_vblank(work, config):
            continue
        period_ms = 1000.0 / config.refresh_hz
        if work[1] > 2.0 * period_ms or 1.25 * config.present_ms < 0.5 * period_ms:
            continue
        checked += 1
        r = simulate(replace(config, frame_delay=rng.choice(["auto", "off"])), traces=True)
        check_verdict(config, r)
        assert images_a_period_off(config, r) <= 10, config


@pytest.mark.slow
@settings(max_examples=10, deadline=None, derandomize=True)
@given(
    refresh_hz=st.floats(90.0, 240.0),
    noise_ms=st.floats(0.3, 2.0),
    heavy=st.booleans(),
    render_ms=st.floats(2.0, 8.0),
    seed=st.integers(0, 10_000),
)
def test_aiming_for_a_vblank_the_work_may_miss_never_costs_more_than_holding(
    refresh_hz: float, noise_ms: float, heavy: bool, render_ms: float, seed: int
) -> None:
    """The planner's choice (aim, and discard a frame that misses; or hold): what is on screen
    at every vblank is never worse than holding, by more than the run-to-run noise of the
    simulation (the two runs draw different costs once they differ), and no image is shown a
    period late for it (the motion error). With the OS reporting the true rate: a near-miss
    prior at high noise is a detector limit of its own (README)."""
    from dataclasses import replace

    config = SimConfig(
        refresh_hz=refresh_hz,
        reported_hz=refresh_hz,
        noise_ms=0.25 if heavy else noise_ms,
        noise_model="heavy" if heavy else "uniform",
        render_ms=render_ms,
        phase="random",
        updates=UPDATES,
        seed=seed,
    )
    aim, hold = simulate(config), simulate(replace(config, aim=False))
    assert aim.vblank_error_rms_ms <= hold.vblank_error_rms_ms + 0.01
    assert aim.repeated_vblanks <= hold.repeated_vblanks + 0.005 * hold.vsyncs
    assert aim.motion_error_rms_ms <= max(0.05, hold.motion_error_rms_ms) + 0.001


@pytest.mark.slow
@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    refresh_hz=st.floats(50.0, 160.0),
    noise_periods=st.floats(0.1, 0.15),
    seed=st.integers(0, 10_000),
)
def test_a_display_noisier_than_a_tenth_of_a_period_is_found_without_a_reported_rate(
    refresh_hz: float, noise_periods: float, seed: int
) -> None:
    """Without a reported rate a grid used to be believed only within a tenth of a period:
    at 144 Hz with +-0.66 ms of wake-up noise no grid was ever found, and every present that
    waited for its vblank voted "off". Returns that stay near a grid (they do not wander like
    a free-running loop's) now start one; at 50-53 Hz, where +-0.15 of a period is more than
    the 2.5 ms wake-up allowance, only since such a grid tolerates a quarter period (judged off
    in 7 of 12 runs before). Known limit (README), left out: above 160 Hz the 5 ms render ends
    within that noise of the next vblank; of 160 draws at 50-180 Hz, 2 there were judged
    wrong (167.7 Hz with +-0.80 ms: off; 177.2 Hz with +-0.58 ms: on, then off at frame 34),
    and the motion error exceeded 0.05 ms in 5 more (0.15-0.36 ms, all above 150 Hz; it is
    not asserted here)."""
    config = SimConfig(
        refresh_hz=refresh_hz,
        reported_hz=0.0,
        noise_ms=noise_periods * 1000.0 / refresh_hz,
        phase="random",
        updates=UPDATES,
        seed=seed,
    )
    check_verdict(config, simulate(config))


@pytest.mark.slow
@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    refresh_hz=st.floats(30.0, 150.0),
    reported=st.sampled_from(["true", "none", "far"]),
    heavy=st.booleans(),
    noise_ms=st.floats(0.0, 0.25),
    queue_depth=st.integers(2, 3),
    seed=st.integers(0, 10_000),
)
def test_queued_frames_are_judged_and_placed_where_their_images_show(
    refresh_hz: float, reported: str, heavy: bool, noise_ms: float, queue_depth: int, seed: int
) -> None:
    """A swap chain that holds images: a present that waits returns at the vblank that frees a
    place, a vblank or two before its image's, and one that finds room returns at once. With a
    busy desktop's late wake-ups the queue drains now and then: those frames were placed a
    vblank off their neighbours (0.9 ms of motion error at 144 Hz), and the first of them voted
    "off" (judged off for good at 144 Hz). A reported rate far off (240 Hz for a 160 Hz panel)
    was confirmed by back-to-back probes 1.5 of its periods apart, and never refuted."""
    reported_hz = {"true": None, "none": 0.0}.get(reported)
    if reported == "far":
        reported_hz = 240.0 if refresh_hz < 120.0 else 60.0
    config = SimConfig(
        refresh_hz=refresh_hz,
        reported_hz=reported_hz,
        noise_ms=noise_ms,
        noise_model="heavy" if heavy else "uniform",
        queue_depth=queue_depth,
        phase="random",
        updates=UPDATES,
        seed=seed,
    )
    r = simulate(config)
    check_verdict(config, r)
    assert r.motion_error_rms_ms <= 0.05


@pytest.mark.slow
def test_waits_hidden_by_noise_of_a_third_of_a_period_do_not_vote_off() -> None:
    """No reported rate, and wake-up noise of a quarter to two fifths of a period (2 ms at
    most): the grid takes dozens of presents to find, and every present that waited (longer
    than any copy the start-up probes allow) voted "off" where none was found yet: judged off
    at frame 15 and paced at 60 Hz for good. Such presents abstained until a grid was found,
    and now vote "on" (``test_vsync_hidden_by_noise_is_not_judged_back_and_forth``). Of 40
    drawn displays (60-240 Hz, a 1-3 ms render, frames just in time or not, uniform or a busy
    desktop's noise), 25 were judged right when they voted "off", 38 when they abstained, 40
    since (with other seeds of the draw, abstaining: 33-35).
    Counted over a draw, not asserted on each: the rest are the detector's known limit at that
    noise (monitor_sim README, "Where the goals do not hold yet")."""
    rng = random.Random(24)
    right = 0
    for _ in range(40):
        refresh_hz = rng.uniform(60.0, 240.0)
        config = SimConfig(
            refresh_hz=refresh_hz,
            reported_hz=0.0,
            noise_ms=min(2.0, rng.uniform(0.25, 0.4) * 1000.0 / refresh_hz),
            noise_model=rng.choice(["uniform", "heavy"]),
            render_ms=rng.uniform(1.0, 3.0),
            frame_delay=rng.choice(["auto", "off"]),
            phase="random",
            updates=400,
            seed=rng.randrange(10_000),
        )
        r = simulate(config)
        right += verdict_is_right(config, r.verdict_changes, r.frames)
    assert right >= 30


def _noisy_vsync(rng: random.Random) -> SimConfig:
    """Vsync on, no copy, no rate reported (or a rounded one), wake-up noise of 0.3-0.45 of a
    period (2 ms at most), 100-240 Hz, a render of a fifth to four fifths of a period."""
    refresh_hz = rng.uniform(100.0, 240.0)
    period_ms = 1000.0 / refresh_hz
    return SimConfig(
        refresh_hz=refresh_hz,
        reported_hz=rng.choice([0.0, None]),
        noise_ms=min(2.0, rng.uniform(0.3, 0.45) * period_ms),
        noise_model=rng.choice(["uniform", "heavy"]),
        render_ms=rng.uniform(0.2, 0.8) * period_ms,
        frame_delay=rng.choice(["auto", "off"]),
        phase="random",
        updates=600,
        seed=rng.randrange(10_000),
    )


@pytest.mark.slow
def test_vsync_hidden_by_noise_is_not_judged_back_and_forth() -> None:
    """Noise of a third of a period or more hides the grid for good: a present that waited
    (longer than a copy may take) abstained, and only presents that returned at once voted,
    all "off", so vsync was judged off, paced, judged on again, and round, every hundred frames
    (194.8 Hz, +-2 ms: 25 changes of verdict in 1,500 frames, 8.5 ms of vblank error; on for
    good, 2.4 ms). Such a wait now votes "on", and judged on with no grid, a present that may
    have been a copy abstains. Of these 40 drawn displays, 6 were judged back and forth before
    and 33 judged right; since, none and 40."""
    rng = random.Random(41)
    right = 0
    for _ in range(40):
        config = _noisy_vsync(rng)
        r = simulate(config)
        assert len(r.verdict_changes) <= 3, (config, r.verdict_changes)  # undecided, and twice
        right += verdict_is_right(config, r.verdict_changes, r.frames)
    assert right >= 36


@pytest.mark.slow
def test_a_copy_as_short_as_a_wait_can_be_is_not_taken_for_one() -> None:
    """Without vsync, a present that copies for 0.12-0.3 ms blocks about as long as
    ``block_on_ns``: where the first probe returned at once, a present that blocked was taken
    for a wait, and, since such waits vote "on", judged on at frame 15 (1 of these 40 draws,
    2 of the 600 in ``--survey off``), until "at once" bounded the copy as the quickest probe
    does."""
    rng = random.Random(42)
    for _ in range(40):
        refresh_hz = rng.uniform(60.0, 240.0)
        config = SimConfig(
            refresh_hz=refresh_hz,
            reported_hz=rng.choice([0.0, None, round(refresh_hz, 2)]),
            vsync=False,
            present_ms=rng.uniform(0.12, 0.3),
            noise_ms=rng.uniform(0.0, 0.25),
            render_ms=rng.uniform(1.0, 4.0),
            frame_delay=rng.choice(["auto", "off"]),
            phase="random",
            updates=600,
            seed=rng.randrange(10_000),
        )
        r = simulate(config)
        check_verdict(config, r)


@pytest.mark.slow
def test_a_reported_rate_a_little_off_is_left_once_the_presents_leave_it() -> None:
    """A display 1-3 % off its reported rate, wake-up noise of a tenth to three tenths of a
    period: the sixteen presents a grid starts on cannot refute the reported rate at that
    noise, so the grid started on it, drifted off the vblanks in 20-30 frames, and started on
    it again, for the whole run. A grid on the nominal period that its presents left now
    refutes it. Each display is run twice, with that rate reported and with none: the reported
    rate cost over 0.5 ms of vblank error in 11 of these 40 draws before (up to 14.7 ms), 4
    since."""
    rng = random.Random(3)
    worse = 0
    for _ in range(40):
        refresh_hz = rng.uniform(60.0, 240.0)
        period_ms = 1000.0 / refresh_hz
        off_by = rng.choice([-1, 1]) * rng.uniform(0.01, 0.03)
        config = SimConfig(
            refresh_hz=refresh_hz,
            noise_ms=min(2.0, rng.uniform(0.1, 0.3) * period_ms),
            noise_model=rng.choice(["uniform", "heavy"]),
            render_ms=rng.uniform(0.2, 0.6) * period_ms,
            frame_delay=rng.choice(["auto", "off"]),
            phase="random",
            updates=UPDATES,
            seed=rng.randrange(10_000),
        )
        near = simulate(replace(config, reported_hz=round(refresh_hz * (1 + off_by), 2)))
        unreported = simulate(replace(config, reported_hz=0.0))
        worse += near.vblank_error_rms_ms > unreported.vblank_error_rms_ms + 0.5
    assert worse <= 6
