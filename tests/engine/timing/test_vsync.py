"""The vsync detector on synthetic present timestamps."""

from __future__ import annotations

import random

import pytest

from engine.timing import VsyncDetector
from engine.timing.clock import NS_PER_MS, NS_PER_S

NOISE_NS = 83_333


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
        if frame >= 16:
            verdicts.add(detector.verdict)
    assert verdicts == {True}
