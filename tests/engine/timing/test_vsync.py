"""The vsync detector on synthetic present timestamps."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.timing import VsyncDetector
from engine.timing.clock import NS_PER_MS, NS_PER_S
from engine.timing.game_loop import BACK_TO_BACK_PROBES, OFFSET_STEP, PROBE_FRAMES

NOISE_NS = 83_333
#: The probes the loop calls late, after the back-to-back ones (see ``swap_chain_probes``).
CALLED_LATE = PROBE_FRAMES - BACK_TO_BACK_PROBES


def vsync_presents(refresh_hz: float, frames: int, seed: int = 1, every: int = 1) -> list[int]:
    """Presents on every ``every``-th vblank with uniform wake-up noise."""
    rng = random.Random(seed)
    period = NS_PER_S / refresh_hz
    start = rng.uniform(0, 1000) * NS_PER_S
    return [
        round(start + i * every * period + rng.uniform(-NOISE_NS, NOISE_NS)) for i in range(frames)
    ]


def feed(detector: VsyncDetector, presents: list[int], block_ns: int | None = None) -> None:
    for t in presents:
        detector.observe(t, block_ns)


@pytest.mark.parametrize(
    ("refresh_hz", "frames"),
    # The least-squares period error shrinks as frames**-1.5 and the frequency error grows as
    # refresh**2: at 240 Hz, 120 frames of +-83 us noise give ~0.007 Hz (1 sigma), so it takes
    # ~240 frames from timestamps alone. (The game loop's start-up probe frames supply the rest.)
    [(50.0, 120), (59.94, 120), (60.0, 120), (144.0, 120), (165.0, 120), (240.0, 240)],
)
def test_refresh_estimate_within_0_01_hz_from_timestamps_alone(
    refresh_hz: float, frames: int
) -> None:
    for seed in range(20):
        detector = VsyncDetector()
        feed(detector, vsync_presents(refresh_hz, frames, seed))  # no blocking information
        assert detector.verdict is True
        assert detector.refresh_hz is not None
        assert abs(detector.refresh_hz - refresh_hz) < 0.01


def test_tells_59_94_from_60() -> None:
    a, b = VsyncDetector(), VsyncDetector()
    feed(a, vsync_presents(59.94, 300))
    feed(b, vsync_presents(60.0, 300))
    assert a.refresh_hz is not None and b.refresh_hz is not None
    assert abs(a.refresh_hz - 59.94) < 0.002
    assert abs(b.refresh_hz - 60.0) < 0.002


def test_frames_that_skip_vblanks_stay_on_the_grid() -> None:
    """Every present 2 vblanks apart after a start on every vblank: the period stays 1/60 s."""
    detector = VsyncDetector()
    feed(detector, vsync_presents(60.0, 30))
    start = vsync_presents(60.0, 30)[-1]
    rng = random.Random(3)
    period = NS_PER_S / 60
    later = [
        start + round(2 * (i + 1) * period + rng.uniform(-NOISE_NS, NOISE_NS)) for i in range(200)
    ]
    vblanks = {detector.observe(t).vblanks for t in later}
    assert vblanks == {2}
    assert detector.refresh_hz is not None and abs(detector.refresh_hz - 60.0) < 0.01


def test_blocking_presents_decide_the_verdict_quickly() -> None:
    on, off = VsyncDetector(), VsyncDetector()
    presents = vsync_presents(60.0, 60)
    for i, t in enumerate(presents):
        on.observe(t, 10 * NS_PER_MS)
        off.observe(t, 2_000)  # returned at once: vsync off, even though the timing is regular
        if i == 59:
            break
    assert on.verdict is True
    assert off.verdict is False
    assert off.refresh_hz is None


def test_verdict_switches_within_60_frames_both_ways() -> None:
    detector = VsyncDetector()
    feed(detector, vsync_presents(60.0, 200), block_ns=10 * NS_PER_MS)
    assert detector.verdict is True
    for i in range(60):
        detector.observe(NS_PER_S * 10 + i * 5 * NS_PER_MS, 1_000)
    assert detector.verdict is False
    for i in range(60):
        detector.observe(NS_PER_S * 20 + i * NS_PER_S // 60, 8 * NS_PER_MS)
    assert detector.verdict is True


def test_no_false_flip_in_100000_frames_with_noise_and_spikes() -> None:
    """Vsync on with a slow frame every 300 frames (a 20 ms spike makes it miss a vblank)."""
    rng = random.Random(7)
    detector = VsyncDetector()
    period = NS_PER_S / 60
    vblank = 0
    verdicts = set()
    for frame in range(100_000):
        vblank += 2 if frame % 300 == 299 else 1
        block = rng.randrange(100_000, 12 * NS_PER_MS) if frame % 300 != 299 else 3 * NS_PER_MS
        detector.observe(round(vblank * period + rng.uniform(-NOISE_NS, NOISE_NS)), block)
        if frame >= 24:  # blocked presents abstain until nine can show a grid
            verdicts.add(detector.verdict)
    assert verdicts == {True}


# -- jitter: wake-up noise, heavy tails, the OS's nominal rate (issue 11) ---------------------------


def late_call_ns(i: int, interval: float) -> int:
    """How long after the previous return the loop calls probe ``i`` when it calls it late: a
    different part of ``interval`` each (the golden ratio's steps, as
    ``engine.timing.game_loop`` does)."""
    return round((i * OFFSET_STEP) % 1.0 * interval)


def loop_presents(
    refresh_hz: float,
    frames: int,
    *,
    noise_ns: float,
    seed: int = 1,
    work_ns: int = 5 * NS_PER_MS,
    tail: float = 0.0,
    probes: int = 0,
    called_late: int = 0,
) -> list[tuple[int, int, int]]:
    """A loop that works ``work_ns`` after each return, then presents with vsync on.

    Each present flips at the first vblank after its call (one image per vblank) and returns a
    wake-up later: uniform in +-``noise_ns``, and with probability ``tail`` 2-8 ms late. The first
    ``probes`` presents do no work (the game loop's start-up probes); the ``called_late`` after
    them are called a part of the latest interval after the previous return, as the loop calls
    its later probes. Returns ``(present_ns, block_ns, true vblank_ns)`` per present.
    """
    rng = random.Random(seed)
    period = NS_PER_S / refresh_hz
    offset = rng.uniform(0, period)
    now = round(rng.uniform(1, 100) * NS_PER_S)
    last = -1
    out: list[tuple[int, int, int]] = []
    for i in range(frames):
        ready = now + (work_ns if i >= probes + called_late else 0)
        if probes <= i < probes + called_late:
            ready += late_call_ns(i, out[-1][0] - out[-2][0])
        k = max(int((ready - offset) // period) + 1, last + 1)
        last = k
        vblank = round(offset + k * period)
        wake = rng.uniform(-noise_ns, noise_ns)
        if rng.random() < tail:
            wake += rng.uniform(2, 8) * NS_PER_MS
        now = max(ready, round(vblank + wake))
        out.append((now, now - ready, vblank))
    return out


@pytest.mark.parametrize("refresh_hz", [50.0, 59.94, 60.0, 75.0, 120.0, 144.0, 165.0, 240.0])
@pytest.mark.parametrize("noise_ns", [500_000, 1_000_000, 2_000_000])
def test_verdict_and_refresh_survive_uniform_noise_up_to_2ms(
    refresh_hz: float, noise_ns: int
) -> None:
    """Blocking decides the verdict; the nominal rate (rounded, as OSes report) is confirmed."""
    for seed in range(3):
        detector = VsyncDetector(nominal_hz=round(refresh_hz))
        verdicts = set()
        for i, (present, block, _) in enumerate(
            loop_presents(refresh_hz, 1200, noise_ns=noise_ns, seed=seed)
        ):
            detector.observe(present, block)
            # a verdict within 60 presents, never changed afterwards (where the tolerated
            # noise reaches a quarter period, a grid starts only from PINNED_PRESENTS; the game
            # loop's start-up probes supply them)
            if i >= 60:
                verdicts.add(detector.verdict)
            if i == 150:
                assert detector.refresh_hz is not None
                assert abs(detector.refresh_hz - refresh_hz) <= 0.05, (seed, detector.refresh_hz)
        assert verdicts == {True}
        assert detector.refresh_hz is not None and abs(detector.refresh_hz - refresh_hz) <= 0.05


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_a_late_wake_up_keeps_its_vblank(refresh_hz: float) -> None:
    """Heavy tail: 1 % of returns 2-8 ms late. The present still flipped at the first vblank after
    its call, and the detector places it there (not at the vblank nearest its late return)."""
    presents = loop_presents(refresh_hz, 5000, noise_ns=250_000, seed=4, tail=0.01)
    detector = VsyncDetector(nominal_hz=refresh_hz)
    placed = [detector.observe(p, b).smooth_ns for p, b, _ in presents]
    late = [i for i, (p, _, v) in enumerate(presents) if p - v > 2 * NS_PER_MS and i > 100]
    assert len(late) > 20  # the tail is there
    errors = [abs(s - v) for s, (_, _, v) in zip(placed[100:], presents[100:], strict=True) if s]
    assert max(errors) < 100_000  # every present on its own vblank, within 0.1 ms
    assert detector.verdict is True
    assert detector.refresh_hz is not None and abs(detector.refresh_hz - refresh_hz) < 0.01


def test_a_60_hz_mode_that_presents_at_59_94_is_measured_not_assumed() -> None:
    for seed in range(5):
        detector = VsyncDetector(nominal_hz=60.0)  # what the OS says
        for present, block, _ in loop_presents(59.94, 400, noise_ns=2_000_000, seed=seed):
            detector.observe(present, block)
        assert not detector.uses_nominal
        assert detector.refresh_hz is not None and abs(detector.refresh_hz - 59.94) < 0.02


def test_the_nominal_rate_pins_what_noisy_timestamps_cannot() -> None:
    """At 240 Hz, +-2 ms of noise leaves the period uncertain by ~0.1 Hz after 150 presents, but
    confirms the OS's 240 Hz; without the prior the estimate wanders more than 0.05 Hz."""
    with_prior, without = [], []
    for seed in range(6):
        presents = loop_presents(240.0, 150, noise_ns=2_000_000, seed=seed, work_ns=2 * NS_PER_MS)
        a, b = VsyncDetector(nominal_hz=240.0), VsyncDetector()
        for present, block, _ in presents:
            a.observe(present, block)
            b.observe(present, block)
        with_prior.append(a.refresh_hz)
        without.append(b.refresh_hz)
    assert all(hz == 240.0 for hz in with_prior)
    assert any(hz is None or abs(hz - 240.0) > 0.05 for hz in without)


@pytest.mark.parametrize(("true_hz", "reported_hz"), [(144.0, 60.0), (60.0, 120.0), (60.0, 144.0)])
def test_a_wrong_nominal_rate_is_never_used(true_hz: float, reported_hz: float) -> None:
    detector = VsyncDetector(nominal_hz=reported_hz)
    # back-to-back presents first (the loop's start-up probes), then a loop with some work
    for i, (present, block, _) in enumerate(
        loop_presents(true_hz, 330, noise_ns=83_333, probes=30)
    ):
        detector.observe(present, block, probe=i < 30)
    assert not detector.uses_nominal
    assert detector.refresh_hz is not None and abs(detector.refresh_hz - true_hz) < 0.01


def test_a_software_swap_that_blocks_off_any_grid_is_not_vsync() -> None:
    """Vsync off, but every present copies pixels for 1.5-6 ms (Mesa llvmpipe under X11)."""
    rng = random.Random(5)
    detector = VsyncDetector(nominal_hz=60.0)
    now = 10 * NS_PER_S
    for _ in range(600):
        now += 5 * NS_PER_MS  # the frame's work
        block = round(rng.uniform(1.5, 6.0) * NS_PER_MS)
        now += block
        detector.observe(now, block)
    assert detector.verdict is False


def test_paced_presents_that_do_not_block_abstain() -> None:
    """Vsync off and the limiter pacing: only the unpaced checks vote, and they vote off."""
    detector = VsyncDetector(nominal_hz=60.0)
    step = NS_PER_S // 60
    for i in range(200):
        detector.observe(NS_PER_S + i * step, 2_000, paced=True)
    assert detector.verdict is None  # paced presents alone cannot tell
    for i in range(16):
        detector.observe(5 * NS_PER_S + i * step - NS_PER_MS, 2_000)
    assert detector.verdict is False


def test_a_check_that_takes_neither_a_copy_nor_a_wait_abstains() -> None:
    """Vsync off, the limiter pacing at 60 Hz, and a copy of 2-2.4 ms inside every present.
    A check (unpaced) that took as long as the paced presents did not wait (votes off); one
    a little longer than any of them, but not a wait's worth longer, cannot tell and abstains.
    Its return lies on the limiter's own grid, whatever the display: taken for a vote "on",
    eight such checks among sparse votes judged vsync on (a loop copying 2.3 ms at 128 Hz,
    thousands of frames into a run)."""
    rng = random.Random(3)
    detector = VsyncDetector(nominal_hz=60.0)
    step = NS_PER_S // 60
    t = NS_PER_S
    for i in range(400):
        t += step
        copy = round(rng.uniform(2.0, 2.4) * NS_PER_MS)
        if i % 2:  # a check: as long as a copy while judged off; then a little longer
            block = copy if i < 200 else round(2.7 * NS_PER_MS)
            detector.observe(t + block, block)
        else:
            detector.observe(t + copy, copy, paced=True)
        if i == 199:
            assert detector.verdict is False
    assert detector.verdict is False


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
@pytest.mark.parametrize("early", [0.15, 0.3, 0.45])
def test_waits_off_the_grid_do_not_flip_a_verdict_of_on(refresh_hz: float, early: float) -> None:
    """Judged on, and the votes for it expired (a second without a present). Then presents
    wait, for most of a period each, but return ``early`` of a period before the grid's
    vblanks (a grid that drifted, or started a little off). Without vsync a present waits for
    nothing: they say the grid is off, not vsync. They abstain, the grid starts again on them
    (on their period: the interval across the second without presents is no whole multiple
    it can be tested against), and the verdict stays on (eight of them voted "off" and
    flipped it)."""
    period = NS_PER_S / refresh_hz
    detector = VsyncDetector()
    presents = vsync_presents(refresh_hz, 120)
    feed(detector, presents, round(0.9 * period))
    assert detector.verdict is True
    rng = random.Random(7)
    start = presents[-1] + round((round(NS_PER_S / period) - early) * period)
    for i in range(240):
        # called just after the grid's vblank: the first one after the call is the one it
        # returned before
        block_ns = round((0.95 - early + rng.uniform(-0.05, 0.05)) * period)
        detector.observe(start + round(i * period + rng.uniform(-NOISE_NS, NOISE_NS)), block_ns)
        assert detector.verdict is True, i
    vblank = detector.vblank_after(start + round(240 * period))
    assert vblank is not None
    off = (vblank - start) % period
    assert min(off, period - off) <= 3 * NOISE_NS


def test_votes_expire_so_a_few_checks_can_flip_the_verdict_within_a_second() -> None:
    detector = VsyncDetector(nominal_hz=60.0)
    step = NS_PER_S // 60
    t = NS_PER_S
    for _ in range(60):  # vsync off for a second: unpaced, unblocked
        t += 5 * NS_PER_MS
        detector.observe(t, 2_000)
    assert detector.verdict is False
    switched = t
    # vsync on now, but the limiter paces every present just before a vblank (no blocking, no
    # vote); one check in three (one every 50 ms) blocks until its vblank
    flipped_at = None
    for i in range(120):
        vblank = switched + (i + 1) * step
        if i % 3 == 2:
            detector.observe(vblank + 50_000, 1_500_000)
        else:
            detector.observe(vblank + 50_000, 100_000, paced=True)
        if flipped_at is None and detector.verdict is True:
            flipped_at = vblank - switched
    assert flipped_at is not None and flipped_at <= NS_PER_S


def test_waits_off_the_limiters_grid_are_waits() -> None:
    """Vsync off, the limiter pacing at 60 Hz: every present returns at once, and the grid is
    the limiter's own. Vsync comes on with its vblanks half a period from that grid: checks
    now wait half a period and return at the vblanks, off the limiter's grid. A present that
    returned at once cannot have waited, so one that blocked for milliseconds did: it votes
    "on" wherever it returned, and the detector doubts its "off" from the first such check
    (each voted "off" for being off the grid until the grid moved: with +-2 ms of noise,
    vsync switched on was noticed up to 69 frames later)."""
    rng = random.Random(7)
    detector = VsyncDetector(nominal_hz=60.0)
    step = NS_PER_S // 60
    t = NS_PER_S
    for i in range(120):  # vsync off: paced presents, and checks 1 ms early, return at once
        t += step
        if i % 2:
            detector.observe(t - NS_PER_MS + 50_000, 50_000)
        else:
            detector.observe(t + 50_000, 50_000, paced=True)
    assert detector.verdict is False
    switched = t
    flipped_at = None
    for i in range(120):  # vsync on, vblanks half a period after the limiter's deadlines
        t += step
        if i % 3 == 2:  # a check, called 1 ms early, waits for the vblank
            wake = round(rng.uniform(-0.5, 0.5) * NS_PER_MS)
            detector.observe(t + step // 2 + wake, step // 2 + NS_PER_MS + wake)
            assert detector.doubted or detector.verdict is True, i
        else:
            detector.observe(t + step // 2, step // 2, paced=True)
        if flipped_at is None and detector.verdict is True:
            flipped_at = t - switched
    assert flipped_at is not None and flipped_at <= NS_PER_S


def test_a_late_wake_up_among_the_first_presents_does_not_start_the_grid_late() -> None:
    """Start-up probes at 240 Hz (called back to back, ±0.25 ms noise), the eighth woke 2.8 ms
    late. It used to stay the grid's late edge (nothing is trimmed below 80 presents): the grid
    ran 1.28 ms late with a stated uncertainty of 0.21 ms."""
    rng = random.Random(5)
    period = NS_PER_S / 240.0
    offset = 1_000 * NS_PER_S + 1_234_567
    detector = VsyncDetector(nominal_hz=240.0)
    now, k = offset - 1_000_000, -1
    for i in range(30):
        k = max(math.floor((now - offset) / period) + 1, k + 1)  # one image per vblank
        late = 2_800_000 if i == 7 else round(rng.uniform(-250_000, 250_000))
        returned = max(now, round(offset + k * period) + late)
        detector.observe(returned, returned - now, probe=True)
        now = returned
    vblank = detector.vblank_after(now)
    assert vblank is not None
    true = offset + round(round((vblank - offset) / period) * period)  # the nearest true one
    assert abs(vblank - true) <= detector.phase_uncertainty_ns
    assert detector.noise_ns <= 250_000


# -- a reported rate slightly off (issue 24) -------------------------------------------------------


@pytest.mark.parametrize(
    ("true_hz", "reported_hz"), [(60.5, 60.0), (61.8, 60.0), (58.4, 60.0), (140.0, 144.0)]
)
def test_a_reported_rate_a_little_off_is_refuted_by_the_timestamps(
    true_hz: float, reported_hz: float
) -> None:
    """Within 3 % of the reported rate, at the reference noise: measured as without a report."""
    for seed in range(2):
        presents = loop_presents(true_hz, 400, noise_ns=83_333, probes=30, seed=seed)
        with_report, without = VsyncDetector(nominal_hz=reported_hz), VsyncDetector()
        for i, (present, block, _) in enumerate(presents):
            with_report.observe(present, block, probe=i < 30)
            without.observe(present, block, probe=i < 30)
        assert not with_report.uses_nominal
        for detector in (with_report, without):
            assert detector.refresh_hz is not None
            assert abs(detector.refresh_hz - true_hz) <= 0.05, (seed, detector.refresh_hz)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    steps=st.lists(st.integers(1, 3), min_size=20, max_size=60),
    rough=st.floats(0.98, 1.02),
    noise=st.floats(0.0, 0.1),
    late=st.lists(st.integers(0, 59), max_size=3),
    lateness=st.floats(0.3, 0.6),
    seed=st.integers(0, 1000),
)
def test_whole_periods_are_counted_past_late_returns_with_a_rough_period(
    steps: list[int], rough: float, noise: float, late: list[int], lateness: float, seed: int
) -> None:
    """Returns 1-3 periods apart with noise up to a tenth of a period, a few of them woken
    0.3-0.6 of a period late, counted with a period 2 % off: every return that did not wake
    late gets its own count (from the first, which is on time)."""
    from engine.timing.vsync import _whole_periods

    rng = random.Random(seed)
    period = 4_166_667
    late_at = {i for i in late if 0 < i < len(steps)}
    counts = [0]
    for step in steps:
        counts.append(counts[-1] + step)
    times = [
        round(
            n * period
            + rng.uniform(-noise, noise) * period
            + (lateness * period if i in late_at else 0)
        )
        for i, n in enumerate(counts)
    ]
    found = _whole_periods(times, rough * period)
    assert [f for i, f in enumerate(found) if i not in late_at] == [
        n for i, n in enumerate(counts) if i not in late_at
    ]


# -- a present that takes time (issue 24) ----------------------------------------------------------
# -- a present that takes time (issue 24) ----------------------------------------------------------


def test_a_present_that_copies_for_4_ms_then_waits_is_placed_at_the_vblank_it_flipped_at() -> None:
    """Vsync on at 144 Hz; every present first copies the picture for 3-5 ms, so the images flip
    at the first vblank after call + copy, not after the call."""
    rng = random.Random(3)
    period = NS_PER_S / 144
    offset = 1_234_567
    detector = VsyncDetector(nominal_hz=144.0)
    now, last = 10 * NS_PER_S, -1
    placed_right = []
    for i in range(600):
        call = now + (0 if i < 30 else 5 * NS_PER_MS)  # probes, then a 5 ms frame
        copy = round(rng.uniform(3, 5) * NS_PER_MS)
        k = max(math.floor((call + copy - offset) / period) + 1, last + 1)
        last = k
        vblank = offset + round(k * period)
        now = max(call + copy, vblank + round(rng.uniform(-83_333, 83_333)))
        estimate = detector.observe(now, now - call, probe=i < 30)
        if i >= 200:
            placed_right.append(
                estimate.smooth_ns is not None and abs(estimate.smooth_ns - vblank) < 50_000
            )
    assert detector.verdict is True
    assert detector.present_cost_ns > 1_000_000
    assert all(placed_right)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    refresh_hz=st.floats(60.0, 240.0),
    lead=st.floats(0.3, 0.8),
    noise_ns=st.integers(0, 250_000),
    every=st.integers(4, 16),
    seed=st.integers(0, 10_000),
)
def test_late_wake_ups_just_before_the_next_vblank_teach_no_cost(
    refresh_hz: float, lead: float, noise_ns: int, every: int, seed: int
) -> None:
    """A present that only waits, called ``lead`` of a period before its vblank; every
    ``every``-th wakes so late (a busy desktop) that it returns shortly *before* the next vblank:
    between the noise and an eighth of a period before it. Its image flipped at the vblank it
    was called for, so it proves no cost, and frames must not be planned earlier for it."""
    rng = random.Random(seed)
    period = NS_PER_S / refresh_hz
    offset = rng.randrange(round(period))
    detector = VsyncDetector()
    start = rng.randrange(1, 100)
    for i in range(400):
        vblank = offset + round((start * 1000 + i) * period)
        call = vblank - round(lead * period)
        if i > 60 and i % every == 0:
            early = rng.uniform(noise_ns + 150_000, max(noise_ns + 150_000, period / 8))
            now = vblank + round(period - early)
        else:
            now = vblank + rng.randint(-noise_ns, noise_ns)
        detector.observe(now, now - call)
    assert detector.verdict is True
    assert detector.present_cost_ns == 0
    assert detector.planning_cost_ns == 0


def copy_loop_presents(
    frames: int, *, copy_ns: int, work_ns: int, seed: int
) -> list[tuple[int, int]]:
    """A loop without vsync whose present does ``copy_ns`` (+-25 %) of its own work (software
    GL copying the picture), ``work_ns`` (+-10 %) of frame work before each: ``(present_ns,
    block_ns)`` per present."""
    rng = random.Random(seed)
    now = round(rng.uniform(1, 100) * NS_PER_S)
    out = []
    for _ in range(frames):
        now += round(work_ns * rng.uniform(0.9, 1.1))
        block = round(copy_ns * rng.uniform(0.75, 1.25))
        now += block
        out.append((now, block))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("nominal_hz", "copy_ms"), [(231.0, 2.0), (165.0, 4.5), (200.0, 2.0)])
def test_a_copy_without_vsync_is_not_taken_for_a_wait(nominal_hz: float, copy_ms: float) -> None:
    """Every present takes time and the reported rate's noise allowance reaches half a period:
    any return lies "on" its grid. The durations tell: a wait grows as the call comes earlier,
    a copy does not. Judged off, never on, whatever the start.

    Known limit (README): a loop whose own period lies within a few percent of a whole number
    of refresh periods (5 + 3 ms at 240 Hz) drifts so slowly round the period that its calls
    fall at nearly one place on the grid, and the durations cannot tell; and with the true
    rate reported above about 230 Hz and a 4.5 ms copy the test is not yet decisive in every
    run (see engine/tools/monitor_sim/README.md, "Where the goals do not hold yet")."""
    for seed in range(8):
        detector = VsyncDetector(nominal_hz=nominal_hz)
        verdicts = set()
        for i, (present, block) in enumerate(
            copy_loop_presents(
                1500, copy_ns=round(copy_ms * NS_PER_MS), work_ns=5 * NS_PER_MS, seed=seed
            )
        ):
            detector.observe(present, block)
            if i >= 60:
                verdicts.add(detector.verdict)
        assert verdicts == {False}, (seed, verdicts)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    refresh_hz=st.floats(60.0, 240.0),
    noise_fraction=st.floats(0.0, 0.2),
    work_ms=st.floats(0.5, 8.0),
    reported=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_a_loop_that_waits_is_never_taken_for_one_that_copies(
    refresh_hz: float, noise_fraction: float, work_ms: float, reported: bool, seed: int
) -> None:
    """The durations' test and the wander tests refuse grids; a display that waits must keep
    its grid: a loop working 0.5-8 ms between presents, the start-up probes first, wake-up
    noise up to a fifth of a period and 2 ms, the rate reported (rounded) or not: judged on
    from the 120th present and never off. Left out, as known limits (README): work that ends
    within a tenth of a period of a vblank (its present flips at one vblank or the next), and
    noise near a quarter period (60 Hz with +-4.2 ms and no reported rate is judged off)."""
    period_ms = 1000.0 / refresh_hz
    assume(0.1 < (work_ms / period_ms) % 1.0 < 0.9)
    detector = VsyncDetector(nominal_hz=round(refresh_hz) if reported else None)
    presents = loop_presents(
        refresh_hz,
        600,
        noise_ns=min(noise_fraction * period_ms, 2.0) * NS_PER_MS,
        seed=seed,
        work_ns=round(work_ms * NS_PER_MS),
        probes=30,
    )
    verdicts = set()
    for i, (present, block, _) in enumerate(presents):
        detector.observe(present, block, probe=i < 30)
        if i >= 120:
            verdicts.add(detector.verdict)
    assert verdicts == {True}


def test_waits_scattered_over_half_a_period_start_a_grid_without_a_reported_rate() -> None:
    """Wake-up noise of a fifth to 0.3 of a period, no reported rate, the start-up probes (back
    to back, then called late) and a loop working a tenth to 0.4 of a period between presents,
    at 50-240 Hz. A grid whose returns stay near it tolerated a quarter period: returns that
    scatter over half a period or more (uniform noise of +-0.28 periods) started none, and every
    present that waited with no grid to be on voted "off" (158 Hz with +-1.75 ms: off at frame
    15, 5.2 ms of vblank error). It now tolerates the noise its returns show, up to 3/8 of a
    period. Over 60 starts: judged on at once and never changed, the period within 0.1 %, in
    at least 50 (56 now, 39 before)."""
    right = 0
    for seed in range(60):
        draw = random.Random(seed)
        refresh_hz = draw.uniform(50.0, 240.0)
        period = NS_PER_S / refresh_hz
        presents = loop_presents(
            refresh_hz,
            PROBE_FRAMES + 120,
            noise_ns=draw.uniform(0.2, 0.3) * period,
            seed=seed,
            work_ns=round(draw.uniform(0.1, 0.4) * period),
            probes=BACK_TO_BACK_PROBES,
            called_late=CALLED_LATE,
        )
        detector = VsyncDetector()
        verdicts = []
        for i, (present, block, _) in enumerate(presents):
            detector.observe(present, block, probe=i < PROBE_FRAMES)
            if i + 1 == PROBE_FRAMES:
                detector.probes_done()
            elif i >= PROBE_FRAMES and detector.verdict is not None:
                verdicts.append(detector.verdict)
        found = detector.period_ns is not None and abs(detector.period_ns - period) < 1e-3 * period
        right += found and bool(verdicts) and set(verdicts) == {True}
    assert right >= 50, right


def test_a_copy_whose_length_varies_places_each_image_at_the_vblank_it_flipped_at() -> None:
    """A present that copies 0.3-0.6 of a period (+-25 %) before it waits, with 1-10 % of a
    period of wake-up noise, at 50-240 Hz: after the start-up probes, frames called 0.8-1.4
    copies before a vblank, so that the copy's length decides whether the image flips there
    or at the next. A present is placed with the cost the skips taught; one whose copy ended
    sooner than that cost says, just before a vblank, returned there, and was placed at the
    next: 7 ms "early", and every later present a vblank after its own (one image per vblank),
    until the grid was dropped. Placed at the vblank nearest its return wherever its image
    may have been ready (by the band of costs and the exceptions to it, or, where the copy's
    jitter left no band, up to the farthest a present skipped): over 60 starts of 300 frames,
    at most 2 % of the images placed at another vblank than the one they flipped at (1.5 %
    now, 17.8 % before)."""
    misplaced = frames = 0
    for seed in range(60):
        rng = random.Random(seed)
        refresh_hz = rng.uniform(50.0, 240.0)
        period = NS_PER_S / refresh_hz
        copy_ns = rng.uniform(0.3, 0.6) * period
        noise_ns = rng.uniform(0.01, 0.1) * period
        offset = rng.uniform(0, period)
        now = round(rng.uniform(1, 100) * NS_PER_S)
        last = -1
        detector = VsyncDetector()
        for i in range(PROBE_FRAMES + 300):
            call = now
            if BACK_TO_BACK_PROBES <= i < PROBE_FRAMES:
                call += late_call_ns(i, period)
            elif i >= PROBE_FRAMES:  # 0.8-1.4 copies before a vblank at least 0.2 periods on
                target = math.floor((now + 0.2 * period - offset) / period) + 1
                vblank = offset + max(target, last + 1) * period
                call = max(now, round(vblank - rng.uniform(0.8, 1.4) * copy_ns))
            ready = call + round(copy_ns * rng.uniform(0.75, 1.25))
            last = max(math.floor((ready - offset) / period) + 1, last + 1)
            flip = round(offset + last * period)
            now = max(ready, flip + round(rng.uniform(-noise_ns, noise_ns)))
            estimate = detector.observe(now, now - call, probe=i < PROBE_FRAMES)
            if i + 1 == PROBE_FRAMES:
                detector.probes_done()
            elif i >= PROBE_FRAMES:
                frames += 1
                smooth = estimate.smooth_ns
                misplaced += smooth is None or abs(smooth - flip) > period / 2
    assert misplaced <= 0.02 * frames, (misplaced, frames)


class SwapChain:
    """A swap chain of ``depth`` images with vsync, as the simulator models it
    (``engine.tools.monitor_sim.display``): vblanks at ``offset_ns`` plus whole periods, each
    image flipping at the first after it was ready and after the image before it."""

    def __init__(
        self, refresh_hz: float, depth: int, offset_ns: float, rng: random.Random, noise_ns: int
    ) -> None:
        self.period_ns = NS_PER_S / refresh_hz
        self.depth = depth
        self.offset_ns = offset_ns
        self.rng = rng
        self.noise_ns = noise_ns
        self.waiting: list[int] = []  # the vblanks of the images not yet flipped
        self.last = -1  # the latest image's vblank

    def wait(self, ready_ns: int) -> int | None:
        """Queue an image ready at ``ready_ns``: ``None`` while a place is free (the present
        returns at once), else when the vblank that frees one woke the present (+-
        ``noise_ns``)."""
        period, offset = self.period_ns, self.offset_ns
        self.last = max(int((ready_ns - offset) // period) + 1, self.last + 1)
        waiting = [v for v in self.waiting if v > ready_ns] + [round(offset + self.last * period)]
        self.waiting = waiting
        if len(waiting) < self.depth:
            return None
        frees = waiting[len(waiting) - self.depth]
        return max(ready_ns, frees + round(self.rng.uniform(-self.noise_ns, self.noise_ns)))


def swap_chain_probes(
    refresh_hz: float,
    depth: int,
    copy_ns: int,
    *,
    count: int = BACK_TO_BACK_PROBES,
    seed: int = 1,
    late: tuple[tuple[int, int], ...] = (),
    called_late: int = 0,
    noise_ns: int = 50_000,
) -> list[tuple[int, int]]:
    """Probes sent back to back into a swap chain of ``depth`` images with vsync: each copies
    ``copy_ns`` (+-25 %) first, then returns at once while a place is free, else when a vblank
    frees one (+-``noise_ns`` of wake-up noise, 50 us unless told; for each ``(i, ns)`` in
    ``late``, probe ``i`` wakes ``ns`` late). Then ``called_late`` more, each called a part
    of the latest interval after the previous return, as the loop calls them
    (``engine.timing.game_loop``).
    ``(present_ns, block_ns)`` per probe."""
    rng = random.Random(seed)
    chain = SwapChain(refresh_hz, depth, rng.uniform(0, NS_PER_S / refresh_hz), rng, noise_ns)
    now = round(rng.uniform(1, 100) * NS_PER_S)
    out: list[tuple[int, int]] = []
    for i in range(count + called_late):
        if i >= count:
            interval = out[-1][0] - out[-2][0]
            now += late_call_ns(i, interval)
        call = now
        now += round(copy_ns * rng.uniform(0.75, 1.25))
        waited = chain.wait(now)
        if waited is None:
            now += 1_000
        else:
            now = waited + sum(ns for probe, ns in late if probe == i)
        out.append((now, now - call))
    return out


def probed(detector: VsyncDetector, probes: list[tuple[int, int]]) -> VsyncDetector:
    """``detector`` after the start-up ``probes`` (``(present_ns, block_ns)`` each), as the
    loop sends them: observed, then ``probes_done``."""
    for present, block in probes:
        detector.observe(present, block, probe=True)
    detector.probes_done()
    return detector


@pytest.mark.parametrize("refresh_hz", [30.0, 60.0, 144.0, 240.0, 360.0])
def test_the_probes_count_every_place_free_in_the_swap_chain(refresh_hz: float) -> None:
    """Probes sent back to back into an empty swap chain of ``depth`` images (no copy): the
    first ``depth - 1`` return at once, then each waits. All of them count (a chain of three
    was taken for one of two); one whose wait for the first image's vblank was too brief to
    tell from "at once" does not, unless the wake-up noise hides it (it waited for a vblank
    within 0.2 ms of its call, and its next wait ended a period after it, give or take the
    noise: at 240-360 Hz, a start in about a hundred). Over 60 starts a depth: right in at least
    54, deeper than the chain in at most 2."""
    for depth in (1, 2, 3):
        right = deeper = 0
        for seed in range(60):
            detector = VsyncDetector()
            for present, block in swap_chain_probes(refresh_hz, depth, 0, seed=seed):
                detector.observe(present, block, probe=True)
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        assert right >= 54 and deeper <= 2, (depth, right, deeper)


def test_wake_up_noise_hides_no_place_in_the_swap_chain() -> None:
    """100 displays a depth drawn at 30-360 Hz, wake-up noise of 5-25 % of a period, no copy.
    A probe at once in a swap chain returns wherever its call came; the one at once by
    chance without a chain (called just before its vblank, or woken early for it) returns on
    the grid the waits after it fix, within their noise. Telling the two by that (in place of
    asking the waits to be steady to an eighth of a period), chains of 2 and 3 are read
    right in at least 70 starts (79 and 86; 27 and 22 before), a display without a chain is
    taken for one in at most 3 (2; 1 before), and none deeper than it is in more than 5."""
    for depth in (1, 2, 3):
        right = deeper = 0
        for seed in range(100):
            rng = random.Random(seed)
            refresh_hz = rng.uniform(30.0, 360.0)
            noise_ns = round(rng.uniform(0.05, 0.25) * NS_PER_S / refresh_hz)
            detector = VsyncDetector()
            for present, block in swap_chain_probes(
                refresh_hz, depth, 0, seed=seed, noise_ns=noise_ns
            ):
                detector.observe(present, block, probe=True)
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        assert deeper <= (3 if depth == 1 else 5) and right >= (97 if depth == 1 else 70), (
            depth,
            right,
            deeper,
        )


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_a_late_wake_up_that_drains_the_swap_chain_among_the_probes_hides_no_queue(
    refresh_hz: float,
) -> None:
    """One probe among the first waits wakes 1.05-2.5 periods late (a busy desktop): vblanks
    flip the images waiting meanwhile, and the next probes find room and return at once.
    That proves a queue; counted as waits, they spread the intervals and none was seen (at
    240 Hz, 86 and 73 starts in 200 right for chains of 2 and 3). Over 40 starts a depth: right
    in at least 36, deeper than the chain in at most 2 (see the test above)."""
    period = NS_PER_S / refresh_hz
    for depth in (2, 3):
        right = deeper = 0
        for seed in range(40):
            rng = random.Random(seed)
            late = (rng.randint(depth, depth + 7), round(rng.uniform(1.05, 2.5) * period))
            detector = VsyncDetector()
            for present, block in swap_chain_probes(refresh_hz, depth, 0, seed=seed, late=(late,)):
                detector.observe(present, block, probe=True)
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        assert right >= 36 and deeper <= 2, (depth, right, deeper)


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_two_late_wake_ups_among_the_probes_hide_no_place_in_the_swap_chain(
    refresh_hz: float,
) -> None:
    """Two probes wake 1.05-2.5 periods late, one among the first waits and one about eight
    probes later. Each drain restarts the count, and a drain may be partial: the count
    before the first (from the empty chain) is the most telling, and only the count before
    the latest was kept (chains of 3 right in 76-77 starts of 100). Every count stands as
    the least the chain holds. Over 100 starts a depth: right in at least 95."""
    period = NS_PER_S / refresh_hz
    for depth in (2, 3):
        right = 0
        for seed in range(100):
            rng = random.Random(seed)
            first = (rng.randint(depth, depth + 4), round(rng.uniform(1.05, 2.5) * period))
            second = (rng.randint(depth + 8, depth + 12), round(rng.uniform(1.05, 2.5) * period))
            detector = VsyncDetector()
            for present, block in swap_chain_probes(
                refresh_hz, depth, 0, seed=seed, late=(first, second)
            ):
                detector.observe(present, block, probe=True)
            right += detector.queue_offset == depth - 1
        assert right >= 95, (depth, right)


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
@pytest.mark.parametrize("waits", [0, 3, 12])
def test_presents_that_find_room_in_the_swap_chain_do_not_keep_the_verdict_waiting(
    refresh_hz: float, waits: int
) -> None:
    """After the probes saw a chain of 2, ``waits`` presents wait a vblank each (voting "on"),
    then every frame takes 2.5 periods: each present finds room and returns at once, and
    abstains. When as many have abstained as votes would decide on, the votes there are
    decide, or the probes with none; with a few votes the verdict used to wait for good (a
    copying chain with frames just in time at 88 Hz: 14 votes, then none, never decided)."""
    period = NS_PER_S / refresh_hz
    detector = VsyncDetector()
    probes = swap_chain_probes(refresh_hz, 2, 0, seed=3)
    for present, block in probes:
        detector.observe(present, block, probe=True)
    detector.probes_done()
    assert detector.queue_offset == 1
    offset = random.Random(3).uniform(0, period)  # swap_chain_probes' vblank phase
    rng = random.Random(4)
    now = probes[-1][0]
    k = round((now - offset) / period)
    for _ in range(waits):  # back to back: the chain stays full, each waits for a vblank
        k += 1
        returned = round(offset + k * period + rng.uniform(-50e3, 50e3))
        detector.observe(returned, returned - now - 100_000)
        now = returned
    decided_at = None
    for frame in range(40):
        now += round(2.5 * period) + 20_000
        detector.observe(now, 20_000)
        if detector.verdict is not None and decided_at is None:
            decided_at = frame
    assert detector.verdict is True
    assert decided_at is not None and decided_at < 20


@pytest.mark.parametrize("copy_ms", [1.0, 2.5, 4.0])
def test_probes_that_copy_first_still_show_the_swap_chain(copy_ms: float) -> None:
    """A present that copies before it waits takes time even when the swap chain has room, so
    "returned at once" cannot tell the first probes. Their returns can: one that found room
    returned after its copy, wherever that ended, and its image flipped at the first vblank
    after it; one that waited returned on the grid the later probes' waits fix. The chain's
    depth is read right in at least 30 of the 40 starts with one (22-27 at 2.5 and 4 ms when
    only the returns off the grid counted), never deeper than it is, and a present without a
    queue is never taken for one."""
    seen = 0
    for seed in range(20):
        for depth in (1, 2, 3):
            detector = probed(
                VsyncDetector(nominal_hz=60.0),
                swap_chain_probes(60.0, depth, round(copy_ms * NS_PER_MS), seed=seed),
            )
            assert detector.queue_offset <= depth - 1, (seed, depth)
            seen += detector.queue_offset == depth - 1 > 0
    assert seen >= 30  # of 40 starts with a queue


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_copying_probes_count_the_whole_swap_chain(refresh_hz: float) -> None:
    """Copies of 5-50 % of a period, 40 starts a depth. The chain's depth is the one that
    explains the probes' returns with the fewest coincidences (``_chain_images``): a copy that
    ended on the grid by chance, or ran past the vblank that flipped the image before it,
    is not taken for a wait. Right in at least 28 starts of 40 for chains of 2 and 3 (29-40;
    29-36 when read from the eleventh probe; 16-29 when only the returns off the grid
    counted), and no chain seen where there is none."""
    for depth in (1, 2, 3):
        right = deeper = 0
        for seed in range(40):
            copy_ms = random.Random(seed).uniform(0.05, 0.5) * 1000.0 / refresh_hz
            detector = probed(
                VsyncDetector(),
                swap_chain_probes(refresh_hz, depth, round(copy_ms * NS_PER_MS), seed=seed),
            )
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        assert deeper == 0 and right >= (40 if depth == 1 else 28), (depth, right, deeper)


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_a_copy_near_a_period_long_still_shows_the_swap_chain(refresh_hz: float) -> None:
    """Copies of 50-90 % of a period (+-25 %), 40 starts a depth. Each probe adds an image
    faster than the vblanks take one, but only by ``P - c``: a chain of three fills after up
    to a dozen probes, and until it is full every return is where a copy ended. The chain is
    read from all 30 back-to-back probes, its grid from the latest: chains of 3 right in at
    least 30 starts (34-36; 3-7 when read from the eleventh probe, the grid fitted to the
    fourth return on), chains of 2 in at least 24 (27-34), and no chain seen where there is
    none."""
    for depth in (1, 2, 3):
        right = deeper = 0
        for seed in range(40):
            copy_ns = round(random.Random(seed).uniform(0.5, 0.9) * NS_PER_S / refresh_hz)
            detector = probed(
                VsyncDetector(), swap_chain_probes(refresh_hz, depth, copy_ns, seed=seed)
            )
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        assert deeper <= 1 and right >= (40, 24, 30)[depth - 1], (depth, right, deeper)


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_the_probes_called_late_tell_a_swap_chain_the_first_ones_cannot(
    refresh_hz: float,
) -> None:
    """Copies of 5-90 % of a period, 60 starts a depth, the 16 probes called late after the
    back-to-back ones as the loop calls them. A first copy that ended within an eighth of a
    period of a vblank returns as a wait would: the back-to-back probes alone read a chain of
    two as none in 9-14 starts of 60. Called late, probes find room when a vblank has
    flipped the image waiting, and return after their copy, off the grid (a late wake-up
    each, without a chain). Chains of 2 right in at least 50 starts (51-55; 46-51 from the
    back-to-back probes alone), chains of 3 in at least 50 (53-54), never a chain where there
    is none."""
    for depth in (1, 2, 3):
        right = deeper = 0
        for seed in range(60):
            copy_ns = round(random.Random(seed).uniform(0.05, 0.9) * NS_PER_S / refresh_hz)
            probes = swap_chain_probes(
                refresh_hz,
                depth,
                copy_ns,
                seed=seed,
                called_late=CALLED_LATE,
            )
            detector = probed(VsyncDetector(), probes)
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        assert deeper == 0 and right >= (60, 50, 50)[depth - 1], (depth, right, deeper)


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_a_copying_probe_that_woke_late_is_no_swap_chain(refresh_hz: float) -> None:
    """One of the first five probes wakes 0.2-2.5 periods late (copies of 5-50 % of a period,
    100 starts a depth). A first probe that woke late returns off the grid, as a copy that
    found room would, and the next one's wait then looks like a chain's; but it took longer
    than the other probes' copies could (more than twice the quickest probe in all, or a
    period). No chain is seen where there is none in at least 97 starts (99-100; 88 when
    only the returns off the grid counted), and chains of 2 and 3 are right in at least 80
    (85-100, read from all 30 probes, the grid from the latest; 43-56 read from the
    eleventh, the grid fitted to the fourth return on; 15-23 before that)."""
    period = NS_PER_S / refresh_hz
    for depth in (1, 2, 3):
        right = deeper = 0
        for seed in range(100):
            rng = random.Random(seed)
            copy_ns = round(rng.uniform(0.05, 0.5) * period)
            late = (rng.randint(0, 4), round(rng.uniform(0.2, 2.5) * period))
            detector = probed(
                VsyncDetector(),
                swap_chain_probes(refresh_hz, depth, copy_ns, seed=seed, late=(late,)),
            )
            right += detector.queue_offset == depth - 1
            deeper += detector.queue_offset > depth - 1
        if depth == 1:
            assert right >= 97, right
        else:
            assert deeper <= 2 and right >= 80, (depth, right, deeper)


def test_a_late_wake_up_in_a_copying_swap_chain_still_starts_the_grid() -> None:
    """Probes into a swap chain of 2-3 images whose presents copy 30-80 % of a period first,
    at 60-240 Hz; one of them wakes 0.3-0.95 periods late. The chain drains, the next probe
    finds room and returns where its copy ends: two returns off the grid in a row, which
    ``_without_late`` took for none (it left out a lone late one), so no window of 16 probes
    holding them showed a period, and no grid started (102.8 Hz, a 5.3 ms copy, a chain of
    3: judged off at frame 15, 4.9 ms of vblank error), or a window of them started one on
    a third of the period. The latest probes, waits once the chain is full, start it. Over
    40 starts: a grid within 0.1 % of the period in 38 (32 before)."""
    right = 0
    for seed in range(40):
        draw = random.Random(seed)
        refresh_hz = draw.uniform(60.0, 240.0)
        period = NS_PER_S / refresh_hz
        copy_ns = round(draw.uniform(0.3, 0.8) * period)
        late = ((draw.randint(8, 22), round(draw.uniform(0.3, 0.95) * period)),)
        depth = draw.choice((2, 3))
        probes = swap_chain_probes(
            refresh_hz, depth, copy_ns, seed=seed, late=late, called_late=CALLED_LATE
        )
        detector = probed(VsyncDetector(), probes)
        found = detector.period_ns
        right += found is not None and abs(found - period) <= period / 1_000
    assert right >= 36, right


def test_a_late_wake_up_among_the_latest_copying_probes_still_shows_the_swap_chain() -> None:
    """Probes into a swap chain of 2-3 images whose presents copy 30-80 % of a period first,
    at 60-240 Hz; one of the latest eight back-to-back probes (those the chain's steadiness
    is judged on) wakes 0.3-0.95 periods late. The chain drains, the next probe finds room
    and returns where its copy ends, and the one after may return early too: one interval
    long and the next two short. Leaving out one short one, the chain was refused as too
    noisy, and every frame after the probes was placed as if none held images (155.37 Hz,
    a 3.5 ms copy, a chain of 3: judged off at frame 15). Over 100 starts: the chain read
    right in at least 70 (76; 59 before), deeper than it is in none."""
    right = deeper = 0
    for seed in range(100):
        draw = random.Random(seed)
        refresh_hz = draw.uniform(60.0, 240.0)
        period = NS_PER_S / refresh_hz
        copy_ns = round(draw.uniform(0.3, 0.8) * period)
        at = draw.randint(BACK_TO_BACK_PROBES - 8, BACK_TO_BACK_PROBES - 2)
        late = ((at, round(draw.uniform(0.3, 0.95) * period)),)
        depth = draw.choice((2, 3))
        probes = swap_chain_probes(
            refresh_hz, depth, copy_ns, seed=seed, late=late, called_late=CALLED_LATE
        )
        detector = probed(VsyncDetector(), probes)
        right += detector.queue_offset == depth - 1
        deeper += detector.queue_offset > depth - 1
    assert right >= 70 and deeper == 0, (right, deeper)


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_a_lone_late_wake_up_far_from_the_clean_presents_leaves_the_period(
    refresh_hz: float,
) -> None:
    """After the probes, frames called just before their vblanks (a copy or a delay left
    them no lead: none is clean, so none trains the least squares), then one called early
    that wakes 0.35 periods late (a busy desktop). Fitted, its leverage 800 vblanks from the
    probes moved the period by 4e-4 of itself (121.33 Hz: 0.05 Hz, and 0.3-0.5 ms of vblank
    error for the rest of the run); held back until the next clean present shows it woke
    late, it leaves the period within 1.5e-4 of itself (the probes' own error reaches 1e-4
    at 240 Hz), over 10 starts."""
    period = NS_PER_S / refresh_hz
    for seed in range(10):
        rng = random.Random(seed)
        probes = swap_chain_probes(refresh_hz, 1, 0, seed=seed, called_late=CALLED_LATE)
        detector = probed(VsyncDetector(), probes)
        assert detector.period_ns is not None
        first = detector.vblank_after(probes[-1][0])
        assert first is not None
        for i in range(1, 900):
            vblank = first + round(i * period)
            lead = 220_000 if i != 850 else round(period / 2)
            now = vblank + rng.randint(-15_000, 15_000)
            if i == 850:
                now = vblank + round(0.35 * period)
            detector.observe(now, now - (vblank - lead))
        assert detector.verdict is not False, seed
        assert detector.period_ns is not None
        assert abs(detector.period_ns - period) <= 1.5e-4 * period, (seed, detector.period_ns)


def test_the_probes_called_late_teach_a_copy_under_a_quarter_period() -> None:
    """A present that copies 4-25 % of a period (+-25 %) before it waits for its vblank,
    without a swap chain, at 50-240 Hz. Of the 16 probes called late, only those called closer
    to a vblank than their copy skip it: one to four for such a copy, far apart. That is a
    cost all the same (the probes spread their calls over the period on purpose); taken for
    none, frames just in time were planned as if the present cost nothing, and shown a
    period late one after another until they taught it (86 Hz with a 1.45 ms copy: 13 of
    the first 200). Over 60 starts: a cost learnt in most (56; 1 before), never more than
    the longest copy, and none where the same probes show no copy."""
    learnt = 0
    for seed in range(60):
        draw = random.Random(seed)
        refresh_hz = draw.uniform(50.0, 240.0)
        copy_ns = round(draw.uniform(0.04, 0.25) * NS_PER_S / refresh_hz)
        probes = swap_chain_probes(refresh_hz, 1, copy_ns, seed=seed, called_late=CALLED_LATE)
        cost = probed(VsyncDetector(), probes).planning_cost_ns
        assert cost <= 1.25 * copy_ns, (seed, cost, copy_ns)
        learnt += cost > 0
        plain = swap_chain_probes(refresh_hz, 1, 0, seed=seed, called_late=CALLED_LATE)
        assert probed(VsyncDetector(), plain).planning_cost_ns == 0, seed
    assert learnt >= 50, learnt


@pytest.mark.parametrize("refresh_hz", [60.0, 144.0, 240.0])
def test_a_late_wake_up_among_the_probes_still_starts_the_grid(refresh_hz: float) -> None:
    """One probe after the eighth wakes 0.3-0.95 periods late (a busy desktop), in a swap
    chain of 1-3 images, the reported rate missing or 0.5-3 % off. Every window of 16 probes
    holding it spread too wide for a grid: none started during the probes (at 165 Hz, the
    frames that then waited with no grid voted "off"), or one half the period (the late
    interval and the short one after it are whole numbers of half periods), or one on the
    reported rate its test could not refute. Over 40 starts: a grid within 0.1 % of the
    period, its vblanks within 0.1 ms (twice the wake-up noise) of the true ones, in every
    start (30 and 31 at 144 and 240 Hz before)."""
    period = NS_PER_S / refresh_hz
    right = 0
    for seed in range(40):
        rng = random.Random(seed)
        offset = rng.uniform(0, period)  # swap_chain_probes' vblank phase (its first draw)
        draw = random.Random(1_000 + seed)
        depth = draw.choice((1, 2, 3))
        late = (draw.randint(8, 29), round(draw.uniform(0.3, 0.95) * period))
        off = draw.choice((0.0, draw.uniform(0.005, 0.03) * draw.choice((-1, 1))))
        detector = VsyncDetector(nominal_hz=refresh_hz * (1 + off) if off else None)
        probes = swap_chain_probes(refresh_hz, depth, 0, seed=seed, late=(late,))
        for present, block in probes:
            detector.observe(present, block, probe=True)
        detector.probes_done()
        found = detector.period_ns
        vblank = detector.vblank_after(probes[-1][0])
        if found is None or vblank is None or abs(found - period) > period / 1_000:
            continue
        true = offset + round((vblank - offset) / period) * period
        right += abs(vblank - true) <= 100_000
    assert right == 40, right


@pytest.mark.slow
@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    reported=st.sampled_from(["none", "rounded", "near"]),
    nominal_hz=st.floats(60.0, 240.0),
    copy_ms=st.floats(0.15, 6.0),
    seed=st.integers(0, 10_000),
)
def test_a_loop_running_at_its_own_rate_once_judged_off_is_never_judged_on(
    reported: str, nominal_hz: float, copy_ms: float, seed: int
) -> None:
    """Without vsync, a loop that presents as soon as its work is done, with a copy inside
    the present, tries a grid with every present: over thousands of presents a window of
    its returns stays near a line by chance, and such a grid used to vote "on" (16 of 200
    such loops, judged off, were judged on later within 6,000 presents). A grid started, or
    kept, while judged off must first hold on the returns that follow it
    (``VsyncDetector._try_grid``): 0 of 400. (About 2 s an example.)"""
    nominal = {"none": None, "rounded": float(round(nominal_hz))}.get(
        reported, float(round(nominal_hz * 1.02))
    )
    detector = VsyncDetector(nominal_hz=nominal)
    judged_off = False
    for present, block in copy_loop_presents(
        8_000, copy_ns=round(copy_ms * NS_PER_MS), work_ns=5 * NS_PER_MS, seed=seed
    ):
        detector.observe(present, block)
        judged_off = judged_off or detector.verdict is False
        assert not (judged_off and detector.verdict), detector.frames


def just_in_time_in_a_hidden_chain(
    seed: int, refresh_hz: float, noise_ns: int, *, called_late: bool = False
) -> VsyncDetector:
    """A display with a swap chain of 2 (no copy) whose probes read none: 60 frames that keep
    it full wait a vblank each (the loop runs ahead, as an undelayed one does), then 120
    frames just in time, each called a third of a period before the vblank the detector
    plans it for (and, once it knows a chain, that many periods earlier: see ``FrameDelay``
    and ``queue_lead_ns``), which wait for the vblank that frees a place, until one of them
    wakes 1.2-2.5 periods late and drains the chain (with ``called_late``, one is called that
    late instead: the loop itself woke late)."""
    period = NS_PER_S / refresh_hz
    # the probes return as without a chain (its first call came just after a vblank)
    probes = swap_chain_probes(refresh_hz, 1, 0, seed=seed, noise_ns=noise_ns)
    detector = probed(VsyncDetector(), probes)
    rng = random.Random(seed)
    chain = SwapChain(refresh_hz, 2, rng.uniform(0, period), rng, noise_ns)  # the probes' phase
    now = probes[-1][0]
    chain.last = int((now - chain.offset_ns) // period)
    late_at = rng.randint(80, 120)
    for frame in range(180):
        if frame >= 60:  # just in time: called a third of a period before its vblank
            vblank = detector.vblank_after(now + NS_PER_MS)
            if vblank is not None:
                now = max(now, round(vblank - period / 3 - detector.queue_lead_ns))
        if called_late and frame == late_at:
            now += round(rng.uniform(1.2, 2.5) * period)
        call = now
        waited = chain.wait(now)
        if waited is None:
            now += 20_000
        else:
            now = waited
            if frame == late_at and not called_late:
                now += round(rng.uniform(1.2, 2.5) * period)
        detector.observe(now, now - call)
        now += NS_PER_MS  # the next frame's work, undelayed
    return detector


@pytest.mark.parametrize("called_late", [False, True])
def test_frames_just_in_time_that_find_room_after_a_drain_show_a_chain_the_probes_missed(
    called_late: bool,
) -> None:
    """40 displays at 60-240 Hz with up to +-10 % of a period of wake-up noise. Where the
    probes read no chain (their first call came just after a vblank), a wake-up that drains
    it leaves room for every frame just in time: each returned at once well before the
    vblank it was planned for, which a present with one image at most on its way never
    does, and voted "off" (142.65 Hz, a busy desktop: judged off and on again eleven
    times). The first such present ready after the vblank that followed a wait shows the
    chain, whether the wait woke late or the frame was called late. A wake-up late: the
    verdict stays "on" in every start (in 26 of 40 before) and the chain is known at the end
    in at least 36 (38; in the others the drain did not leave room). A frame called late: on
    in at least 37 (38; 35 before, 36 when only a wait that woke late showed the chain), the
    chain known in at least 20 (26; 1)."""
    on = known = 0
    for seed in range(40):
        rng = random.Random(seed)
        refresh_hz = rng.uniform(60.0, 240.0)
        noise_ns = round(rng.uniform(0.0, 0.1) * NS_PER_S / refresh_hz)
        detector = just_in_time_in_a_hidden_chain(
            seed, refresh_hz, noise_ns, called_late=called_late
        )
        on += detector.verdict is True
        known += detector.queue_offset == 1
    least_on, least_known = (37, 20) if called_late else (40, 36)
    assert on >= least_on and known >= least_known, (on, known)
