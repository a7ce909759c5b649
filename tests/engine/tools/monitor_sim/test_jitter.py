"""Issue 11 in the simulator, quickly: representative cells of the matrix's jitter rows.

The full matrix (every refresh rate, both noise models, every policy) runs in the slow
``test_matrix.py``; these few short runs keep the default suite honest about the same goals.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.tools.monitor_sim.simulation import REFERENCE_NOISE_MS, SimConfig, SimResult, simulate
from engine.tools.monitor_sim.sweep import verdict_is_right

TICK_S = 1 / 60
REFERENCE = SimConfig(phase="random", updates=3000)
UNIFORM_2MS = SimConfig(noise_ms=2.0, phase="random", updates=3000)
HEAVY = SimConfig(noise_model="heavy", noise_ms=0.25, phase="random", updates=3000)


def late_changes(r: SimResult, after: int) -> list[tuple[int, bool | None]]:
    return [(at, v) for at, v in r.verdict_changes if at > after]


@pytest.mark.parametrize("base", [UNIFORM_2MS, HEAVY], ids=["uniform-2ms", "heavy"])
@pytest.mark.parametrize("refresh_hz", [59.94, 144.0, 240.0])
def test_vsync_on_under_jitter_is_found_measured_and_smooth(
    base: SimConfig, refresh_hz: float
) -> None:
    auto = simulate(replace(base, policy="auto", refresh_hz=refresh_hz))
    interpolated = simulate(replace(base, policy="interpolated", refresh_hz=refresh_hz))
    for r in (auto, interpolated):
        assert r.verdict_changes[1][1] is True and r.verdict_changes[1][0] < 120
        assert late_changes(r, 120) == []
        assert r.refresh_at_120_hz is not None and abs(r.refresh_at_120_hz - refresh_hz) <= 0.05
        assert r.refresh_estimate_hz is not None
        assert abs(r.refresh_estimate_hz - refresh_hz) <= 0.05
    assert auto.motion_error_rms_ms <= 0.05
    assert auto.motion_error_rms_ms <= interpolated.motion_error_rms_ms + 0.001


def test_the_issue_example_144_hz_with_1ms_noise_gets_144_frames_a_second() -> None:
    """Before issue 11: verdict off, 60 frames a second, 6.7 ms of judder (seed 11)."""
    r = simulate(SimConfig(refresh_hz=144.0, noise_ms=1.0, updates=3000, seed=11, phase="random"))
    assert r.vsync_detected is True
    assert abs(r.fps - 144.0) < 0.1 and r.held_vblanks == 0
    assert r.motion_error_rms_ms < 0.01


@pytest.mark.parametrize("noise_ms", [1.0, 2.0])
@pytest.mark.parametrize("refresh_hz", [60.0, 75.0, 120.0, 144.0, 165.0])
def test_the_issues_noise_sweep_is_on_measured_and_smooth_where_it_was_off(
    refresh_hz: float, noise_ms: float
) -> None:
    """The issue's table (``--updates 3000 --seed 11``, random phase): before issue 11 these
    cells were judged "vsync off" (all but 60-120 Hz at +-1 ms) and shown 60 frames a second with
    up to 9.8 ms of judder."""
    r = simulate(
        SimConfig(refresh_hz=refresh_hz, noise_ms=noise_ms, updates=3000, seed=11, phase="random")
    )
    assert r.verdict_changes[1][1] is True and r.verdict_changes[1][0] < 120
    assert late_changes(r, 120) == []
    assert r.refresh_estimate_hz is not None
    assert abs(r.refresh_estimate_hz - refresh_hz) <= 0.05
    assert r.motion_error_rms_ms <= 0.05
    # frames planned for the worst-case render end give up at most an eighth of the vblanks
    assert r.held_vblanks <= 0.125 * r.vsyncs
    if refresh_hz <= 120.0 or (noise_ms <= 1.0 and refresh_hz <= 144.0):
        assert r.held_vblanks == 0 and abs(r.fps - refresh_hz) < 0.1  # the render always fits


def test_240_hz_with_the_seed_that_skipped_three_vblanks_in_four() -> None:
    """``--refresh-hz 240 --noise-ms 0.5 --seed 3``: before issue 11, 17,994 of about 24,000
    vblanks skipped. A 5 ms render fits two 240 Hz periods: 120 frames a second, evenly."""
    r = simulate(SimConfig(refresh_hz=240.0, noise_ms=0.5, updates=3000, seed=3, phase="random"))
    assert r.vsync_detected is True and late_changes(r, 120) == []
    assert r.refresh_estimate_hz is not None and abs(r.refresh_estimate_hz - 240.0) <= 0.05
    assert abs(r.fps - 120.0) < 0.1 and r.held_vblanks == 0
    assert r.motion_error_rms_ms <= 0.05


def test_144_hz_with_the_seed_whose_grid_ran_late_shows_frames_on_time() -> None:
    """``--refresh-hz 144 --noise-ms 2 --phase random --seed 29``: the detector took the early edge
    of its grid from only 23-50 presents, their lowest lay far above the noise's true bound, and
    the grid ran 0.3 ms late (twice its stated uncertainty) for 440 frames, each then shown a
    refresh late: 0.124 ms of motion error RMS, 735 of 7,200 vblanks held."""
    r = simulate(replace(UNIFORM_2MS, refresh_hz=144.0, seed=29))
    assert r.vsync_detected is True
    assert r.motion_error_rms_ms <= 0.05
    assert r.held_vblanks <= 0.1 * r.vsyncs


@pytest.mark.parametrize("seed", [51, 72, 75])
def test_240_hz_heavy_with_a_late_start_up_probe_shows_frames_on_time(seed: int) -> None:
    """``--refresh-hz 240 --noise-model heavy --noise-ms 0.25 --phase random --seed 51``: one of
    the nine presents the grid started from woke late (the heavy tail; with the busy desktop's
    late wake-ups keyed by vblank, seeds 51, 72 and 75 put one 7.8, 2.1 and 2.6 ms late there).
    Nothing is trimmed from fewer than 80 presents, so it stayed the grid's late edge: before
    the fix (seeds 51 and 104 then, 2.7-2.8 ms late) the grid ran 1.27 and 1.23 ms late with a
    noise bound of 1.5 ms for 390 and 240 frames (340 and 195 of them shown a refresh late)
    while its stated uncertainty fell to 80 µs: 0.42 and 0.40 ms of motion error RMS."""
    r = simulate(replace(HEAVY, refresh_hz=240.0, seed=seed))
    assert r.vsync_detected is True and late_changes(r, 120) == []
    assert r.motion_error_rms_ms <= 0.05


def test_strict_keeps_real_time_within_a_tick_under_jitter() -> None:
    for base in (UNIFORM_2MS, HEAVY):
        r = simulate(replace(base, policy="strict", refresh_hz=165.0))
        assert r.max_abs_drift_s <= TICK_S


@pytest.mark.parametrize(
    "base", [REFERENCE, UNIFORM_2MS, HEAVY], ids=["reference", "uniform-2ms", "heavy"]
)
def test_vsync_off_under_jitter_is_off_and_paced_at_the_display_rate(base: SimConfig) -> None:
    """A 144 Hz display with vsync forced off: 144 interpolated frames a second (before: 60)."""
    r = simulate(replace(base, vsync=False, refresh_hz=144.0))
    assert [v for _, v in r.verdict_changes] == [None, False]
    # the display's rate, not the 60 Hz tick rate (late wake-ups cost a frame now and then)
    assert 0.99 * 144.0 <= r.fps <= 144.1
    assert r.max_abs_drift_s <= TICK_S


def test_a_vrr_panel_gets_every_frame_rendering_allows_up_to_its_maximum() -> None:
    """The issue's example: --vrr --refresh-hz 144 --render-ms 8 (before: 60 a second)."""
    r = simulate(SimConfig(vrr=True, refresh_hz=144.0, render_ms=8.0, updates=3000))
    assert 120.0 <= r.fps <= 125.0  # 1 / 8.0 ms at most
    assert r.max_abs_drift_s <= TICK_S
    assert r.motion_error_rms_ms < 0.05
    fast = simulate(SimConfig(vrr=True, refresh_hz=144.0, render_ms=2.0, updates=3000))
    assert abs(fast.fps - 144.0) < 0.5  # capped at the panel's maximum


@pytest.mark.parametrize("noise_ms", [0.083, 2.0])
def test_switching_vsync_on_mid_run_is_noticed_within_a_second(noise_ms: float) -> None:
    r = simulate(SimConfig(vsync_on_at=600, noise_ms=noise_ms, updates=1500, phase="random"))
    late = late_changes(r, 60)
    assert len(late) == 1 and late[0][1] is True
    assert 600 <= late[0][0] <= 660  # 60 frames: one second at 60 Hz


def test_input_latency_is_reported_and_what_a_frame_costs() -> None:
    at_60 = simulate(SimConfig(updates=2000))
    at_144 = simulate(SimConfig(refresh_hz=144.0, updates=2000))
    # read at the frame's start, shown at the next vblank: about one refresh period
    assert 15.0 <= at_60.latency_mean_ms <= 17.0 and at_60.latency_p99_ms <= 17.5
    assert at_144.latency_mean_ms < at_60.latency_mean_ms
    assert at_144.latency_p99_ms >= at_144.latency_mean_ms


@pytest.mark.parametrize("seed", [33, 113])
def test_240_hz_with_2ms_noise_fits_the_returns_just_outside_the_half_period_window(
    seed: int,
) -> None:
    """±2 ms is nearly half a 240 Hz period, the cap of the fit's window. Before, the returns just
    outside it were left out, so a start-up grid error cut off one side of the noise and the
    midrange kept the error: seed 33 started 425 µs late (frames shown a refresh late), seed 113
    263 µs early (frames shown a refresh early), both beyond the stated uncertainty; RMS 0.104 and
    0.127 ms."""
    r = simulate(replace(UNIFORM_2MS, policy="auto", refresh_hz=240.0, seed=seed))
    assert r.vsync_detected is True and late_changes(r, 120) == []
    assert r.motion_error_rms_ms <= 0.05
    assert r.held_vblanks <= 0.125 * r.vsyncs


@pytest.mark.parametrize("seed", [70, 103])
def test_240_hz_with_2ms_noise_is_not_taken_for_a_copy_by_the_start_up_probes(seed: int) -> None:
    """The matrix's ``240Hz~2ms`` row with seeds 70 and 103 (``--sweep-seeds`` found them): the
    late start-up probes' returns scattered more than a quarter period and more than their
    durations spread, and took about as long as the back-to-back ones, so the probes were
    taken for a copy without vsync: off from frame 0, then on and off by turns. A few of them
    returned at once (their vblank's wake-up came before the call), which a copy never does."""
    r = simulate(replace(UNIFORM_2MS, policy="auto", refresh_hz=240.0, seed=seed))
    assert r.verdict_changes[0] == (0, None)
    assert r.vsync_detected is True and late_changes(r, 120) == []


def test_a_check_that_disagrees_with_the_verdict_is_followed_by_another_at_once() -> None:
    """The matrix's ``vsync-on-mid~2ms`` row with seed 2 (``--sweep-seeds`` found it): with a check
    only every 50 ms, the old "off" votes of the last 750 ms outnumbered the new ones and vsync
    switched on was noticed after 64 frames (1.07 s). A check that disagrees with the verdict is
    now followed by one every frame until the votes agree again."""
    from engine.tools.monitor_sim.matrix import JITTER_SWITCH_AT, jitter_config

    for policy in ("auto", "interpolated"):
        r = simulate(jitter_config(SimConfig(seed=2), policy, "vsync-on-mid~2ms"))
        late = late_changes(r, 120)
        assert len(late) == 1 and late[0][1] is True
        assert JITTER_SWITCH_AT <= late[0][0] <= JITTER_SWITCH_AT + 45  # 0.75 s at 60 Hz


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("refresh_hz", [60.0, 144.0])
def test_a_queue_of_frames_is_found_smooth_and_its_latency_reported(
    refresh_hz: float, depth: int
) -> None:
    """Queue depth 2-3: the verdict is right and motion smooth; each waiting frame adds a
    refresh period of input latency, reported."""
    base = SimConfig(refresh_hz=refresh_hz, phase="random", updates=1200, seed=2)
    one = simulate(base)
    queued = simulate(replace(base, queue_depth=depth))
    assert queued.vsync_detected is True and queued.verdict_changes[1][1] is True
    assert len(queued.verdict_changes) == 2
    assert queued.refresh_estimate_hz is not None
    assert abs(queued.refresh_estimate_hz - refresh_hz) <= 0.05
    assert queued.motion_error_rms_ms <= 0.05 and queued.vblank_error_rms_ms <= 0.05
    extra_ms = queued.latency_mean_ms - one.latency_mean_ms
    assert abs(extra_ms - (depth - 1) * 1000 / refresh_hz) < 0.5


# -- frames just in time (issue 24) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("refresh_hz", "noise_ms", "most_ms", "most_held"),
    [
        (60.0, REFERENCE_NOISE_MS, 6.0, 0.005),
        (144.0, REFERENCE_NOISE_MS, 8.0, 0.005),
        (60.0, 1.0, 8.0, 0.02),
    ],
)
def test_frame_delay_auto_cuts_input_latency_without_holding_vblanks(
    refresh_hz: float, noise_ms: float, most_ms: float, most_held: float
) -> None:
    base = SimConfig(
        refresh_hz=refresh_hz, noise_ms=noise_ms, render_ms=2.0, phase="random", updates=3000
    )
    off = simulate(base)
    auto = simulate(replace(base, frame_delay="auto"))
    assert auto.latency_mean_ms <= most_ms < off.latency_mean_ms
    assert auto.latency_p99_ms >= auto.latency_mean_ms
    assert auto.held_vblanks <= most_held * auto.vsyncs
    # same pacing: the delay moves when input is read, not what is shown when
    assert auto.motion_error_rms_ms <= 0.05 and auto.vblank_error_rms_ms <= 0.05
    assert auto.vsync_detected is True and len(auto.verdict_changes) == 2


def test_frame_delay_adapts_when_the_work_grows() -> None:
    """A 20 ms spike every 300 frames: the delayed frames around it miss at most their own
    vblank, and the delay recovers (latency stays low on average)."""
    config = SimConfig(
        render_ms=2.0,
        spike_ms=20.0,
        spike_every=300,
        phase="random",
        updates=3000,
        frame_delay="auto",
    )
    r = simulate(config)
    assert r.latency_mean_ms <= 6.0
    assert r.motion_error_rms_ms <= 0.05


@pytest.mark.slow
def test_frames_just_in_time_learn_a_small_copy_before_they_miss_for_it() -> None:
    """Frames just in time on displays whose present copies 3-30 % of a period (+-25 %)
    before it waits, at 60-240 Hz, the reference noise, 20 draws of 600 updates. The probes
    called late teach such a copy (``VsyncDetector._learn_probes_cost``); taught by the
    frames instead, each frame planned closer than its copy was shown a period late, eight
    and more in a row (141 vblanks without a new image in these 20 draws, 59 now)."""
    rng = random.Random(5)
    late = 0
    for _ in range(20):
        refresh_hz = rng.uniform(60.0, 240.0)
        period_ms = 1000.0 / refresh_hz
        config = SimConfig(
            refresh_hz=refresh_hz,
            present_ms=rng.uniform(0.03, 0.3) * period_ms,
            render_ms=rng.uniform(0.5, 0.4 * period_ms),
            frame_delay="auto",
            phase="random",
            updates=600,
            seed=rng.randrange(1, 9999),
        )
        r = simulate(config)
        assert r.vsync_detected is True
        late += r.vsyncs - r.frames
    assert late <= 80, late


def test_strict_timing_is_never_delayed() -> None:
    base = SimConfig(policy="strict", render_ms=2.0, phase="random", updates=600)
    delayed, plain = simulate(replace(base, frame_delay="auto")).to_json(), simulate(base).to_json()
    delayed.pop("config")
    plain.pop("config")
    assert delayed == plain


# -- a present that takes time (issue 24) ----------------------------------------------------------


@pytest.mark.parametrize("reported_hz", [0.0, 60.0])
def test_vsync_off_with_a_slow_present_is_off_at_once_and_paced_at_the_reported_rate(
    reported_hz: float,
) -> None:
    r = simulate(
        SimConfig(
            vsync=False, present_ms=4.0, reported_hz=reported_hz, phase="random", updates=3000
        )
    )
    # off from the start-up probes: those called late took their copy all the same
    assert [tuple(change) for change in r.verdict_changes] == [(0, False)]
    assert abs(r.fps - 60.0) < 0.5


@pytest.mark.parametrize("present_ms", [2.0, 4.0])
def test_vsync_on_with_a_slow_present_is_found_and_smooth(present_ms: float) -> None:
    r = simulate(SimConfig(refresh_hz=144.0, present_ms=present_ms, phase="random", updates=3000))
    assert r.verdict_changes[1][1] is True and r.verdict_changes[1][0] <= 120
    assert len(r.verdict_changes) == 2
    assert r.refresh_estimate_hz is not None and abs(r.refresh_estimate_hz - 144.0) <= 0.05
    assert r.motion_error_rms_ms <= 0.05


@pytest.mark.parametrize(("refresh_hz", "present_ms"), [(240.0, 4.0), (144.0, 6.0), (240.0, 6.0)])
def test_vsync_on_with_a_copy_of_about_a_period_or_more_is_found(
    refresh_hz: float, present_ms: float
) -> None:
    """``--refresh-hz 240 --present-ms 4``: a copy of 4+-1 ms before the wait runs past one
    vblank or two, so the back-to-back start-up probes returned one or two periods apart and
    started no grid (and refuted the reported rate): judged off at frame 27, on at 340; 144 Hz
    with 6 ms: off at 23, on at 49. The probes called late return at one place in the period
    whatever their calls, and start the grid. (The motion error is not asserted: render plus
    copy, 9-10 ms at 240 Hz, straddles two periods, and a frame now and then flips a vblank
    late: 0.13, 0.57 and 0.78 ms here, 2.6 and 3.5 ms before in the first two.)"""
    r = simulate(
        SimConfig(refresh_hz=refresh_hz, present_ms=present_ms, phase="random", updates=3000)
    )
    assert len(r.verdict_changes) == 2
    assert r.verdict_changes[1][1] is True and r.verdict_changes[1][0] <= 120
    assert r.refresh_estimate_hz is not None and abs(r.refresh_estimate_hz - refresh_hz) <= 0.05


@pytest.mark.slow
@pytest.mark.parametrize(
    ("refresh_hz", "reported_hz", "noise_ms", "present_ms", "seed"),
    [
        (226.6317, 228.0, 0.168, 4.985, 6267),
        (216.2515, None, 0.083, 5.519, 8504),
        (189.2567, None, 0.083, 5.957, 8126),
        (209.2702, None, 0.128, 5.772, 553),
    ],
)
def test_a_copy_that_jitters_by_half_a_period_without_vsync_is_off_from_the_start(
    refresh_hz: float, reported_hz: float | None, noise_ms: float, present_ms: float, seed: int
) -> None:
    """Drawn displays without vsync (a copy of about a period, +-25 %, inside the present) that
    were judged on at frame 17-23, from the start-up: the copy varied the back-to-back
    intervals, taken modulo the period, as widely as the late probes' returns scattered, which
    passed for wake-up noise near half a period, and the reported rate's half-period tolerance
    had every return "on" (``VsyncDetector._probes_copied``). In drawn detector runs of copies
    of 0.5-1.5 periods the probes leave 2.2 % undecided, against 4.8 % (engine/timing/README.md)."""
    config = SimConfig(
        refresh_hz=refresh_hz,
        reported_hz=reported_hz,
        vsync=False,
        noise_ms=noise_ms,
        present_ms=present_ms,
        phase="random",
        updates=1500,
        seed=seed,
    )
    assert simulate(config).verdict_changes == [(0, False)]


def test_a_copy_whose_length_straddles_a_vblank_is_planned_for_the_vblank_after() -> None:
    """``--refresh-hz 96 --present-ms 5``: a 5 ms render, then a copy of 5+-1.25 ms inside the
    present, called about 5.3 ms before the next vblank: a third of the copies run past it.
    No threshold separates the presents that skipped it from those that did not (the proven
    cost is 0), so every frame was planned for that vblank and a third were shown a period late
    (motion error 6.9 ms). Planned with how far before its vblank a present has skipped it, each
    frame takes two vblanks, evenly: 48 frames a second. Over six seeds, every image after the
    first second is shown where planned; before it, while the frames show four skips (the
    known limit, ``engine/timing/README.md``: "A copy whose length varies"), at most three
    are shown a period off (one, or none, in five of six; the motion error from the first
    verdict was 0.48 ms at seed 1 once a present that skipped was placed at the vblank it
    flipped at, and voted "on" sooner: seed 1 alone was tested, and 4 and 6 were there too)."""
    for seed in range(1, 7):
        config = SimConfig(refresh_hz=96.0, present_ms=5.0, phase="random", updates=1200, seed=seed)
        r = simulate(config, traces=True)
        assert r.verdict_changes[1][1] is True and len(r.verdict_changes) == 2, seed
        assert r.refresh_estimate_hz is not None and abs(r.refresh_estimate_hz - 96.0) <= 0.05
        late = [t for t, error in r.motion_trace if abs(error) > 0.05]
        assert len(late) <= 6 and all(t < 1.0 for t in late), (seed, late)
        assert abs(r.fps - 48.0) < 0.5


@pytest.mark.parametrize("depth", [2, 3])
def test_frames_just_in_time_in_a_queue_of_frames_keep_vsync_and_lower_the_latency(
    depth: int,
) -> None:
    """``--refresh-hz 61 --reported-hz 0 --noise-ms 0 --queue-depth 2 --frame-delay auto``: the
    first frames, whose work counts as 0, were woken so late that they missed their vblank; in
    the queue their presents returned at once and the first votes said vsync off, for good
    (2.3 ms of motion error). No delay before the work is known."""
    base = SimConfig(
        refresh_hz=61.0,
        reported_hz=0.0,
        noise_ms=0.0,
        queue_depth=depth,
        render_ms=2.0,
        phase="random",
        updates=1200,
    )
    off, delayed = simulate(base), simulate(replace(base, frame_delay="auto"))
    for r in (off, delayed):
        assert [v for _, v in r.verdict_changes] == [None, True]
        assert r.refresh_estimate_hz is not None and abs(r.refresh_estimate_hz - 61.0) <= 0.05
        assert r.motion_error_rms_ms <= 0.05
    assert delayed.latency_mean_ms < off.latency_mean_ms - 5.0


@pytest.mark.slow
def test_a_swap_chain_whose_presents_copy_first_keeps_vsync_through_a_busy_desktop() -> None:
    """24 displays drawn: 60-240 Hz, reported or not, a chain of 2-3, a copy of 5-40 % of a
    period inside the present, renders of 1-4 ms, frames just in time or not, the busy
    desktop's late wake-ups. The probes read the chain (the one that explains their returns
    with the fewest coincidences), and a present that took no longer than a copy, called with
    room in the chain, found room: after a late wake-up drained the chain, the presents that
    found room were placed as waits, a vblank after their images, and every later one after
    its own, all off the grid (right in 1 of the 24 before; 19 since, 11 of them within 0.05
    ms of motion error). At least 14 right and 9 smooth."""
    rng = random.Random(24)
    right = smooth = 0
    for _ in range(24):
        refresh_hz = rng.uniform(60.0, 240.0)
        config = SimConfig(
            refresh_hz=refresh_hz,
            reported_hz=rng.choice([None, 0.0]),
            noise_ms=rng.choice([REFERENCE_NOISE_MS, 0.25]),
            noise_model="heavy",
            queue_depth=rng.randint(2, 3),
            present_ms=rng.uniform(0.05, 0.4) * 1000.0 / refresh_hz,
            render_ms=rng.uniform(1.0, 4.0),
            frame_delay=rng.choice(["off", "auto"]),
            phase="random",
            updates=1500,
            seed=rng.randint(0, 10_000),
        )
        r = simulate(config)
        if verdict_is_right(config, r.verdict_changes, r.frames):
            right += 1
            smooth += r.motion_error_rms_ms <= 0.05
    assert right >= 14 and smooth >= 9, (right, smooth)


@pytest.mark.slow
def test_frames_longer_than_a_period_in_a_queue_are_judged_on_and_held_to_a_cadence() -> None:
    """A 5 ms render at 210-300 Hz in a swap chain of 2-3 (16 displays drawn: rate, reported
    or not, noise up to 0.1 ms, queue, seed). Every present finds room and returns at once, so
    the presents abstained for good (verdict none, 198 frames a second, each image on whichever
    vblank its work made, where a grid the first nine probes gave drifted: motion error
    0.9-2.2 ms). Now the probes decide, the grid takes their period, and the frames are held
    to two vblanks each, issued mid-period: an even half of the refresh rate, motion error
    within 0.5 ms (a slip where the grid's drift carries a vblank past the issue time).

    The probes cannot show a queue whose first probe was called just after a vblank (its
    first wait then ends a whole period on, as on a variable-refresh panel): 1 of 30 in a
    wider draw; at most 2 of the 16 may miss it."""
    rng = random.Random(24)
    right = 0
    for _ in range(16):
        config = SimConfig(
            refresh_hz=rng.uniform(210.0, 300.0),
            reported_hz=rng.choice([None, 0.0]),
            noise_ms=rng.uniform(0.0, 0.1),
            queue_depth=rng.randint(2, 3),
            phase="random",
            updates=1500,
            seed=rng.randint(0, 10_000),
        )
        r = simulate(config)
        if not verdict_is_right(config, r.verdict_changes, r.frames):
            continue
        right += 1
        assert abs(2 * r.fps - config.refresh_hz) <= 0.01 * config.refresh_hz, r.fps
        assert r.motion_error_rms_ms <= 0.5, (config, r.motion_error_rms_ms)
    assert right >= 14
