"""The simulated display: what a present costs and when it returns."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.timing.clock import NS_PER_MS, NS_PER_S, ManualClock
from engine.timing.tick_rate import TickRate
from engine.tools.monitor_sim.display import SimDisplay
from engine.tools.monitor_sim.simulation import SimConfig, simulate

PERIOD_NS = 16_666_666  # 60 Hz, vblank k at k * 1e9 / 60 ns


def display(vsync: bool, present_ns: int) -> tuple[SimDisplay, ManualClock]:
    clock = ManualClock(0)
    return SimDisplay(
        clock, random.Random(5), Fraction(60), vsync=vsync, noise_ns=0, present_ns=present_ns
    ), clock


def test_without_vsync_a_present_returns_after_its_own_work() -> None:
    """Software GL under X copies the picture inside the present call: 3-5 ms for a 4 ms cost."""
    sim, clock = display(vsync=False, present_ns=4 * NS_PER_MS)
    for _ in range(50):
        called = clock.now_ns()
        sim.present()
        assert 3 * NS_PER_MS <= clock.now_ns() - called <= 5 * NS_PER_MS + 10_000
    free, clock = display(vsync=False, present_ns=0)
    free.present()
    assert clock.now_ns() <= 10_000  # no work: back at once


def test_with_vsync_the_work_comes_first_then_the_wait_for_the_vblank() -> None:
    sim, clock = display(vsync=True, present_ns=4 * NS_PER_MS)
    clock.set(PERIOD_NS - 2 * NS_PER_MS)  # called 2 ms before vblank 1: the copy outlasts it
    shown, index = sim.present()
    assert index == 2 and shown == clock.now_ns() == 2 * 100_000_000 // 6
    clock.set(2 * 100_000_000 // 6 + 5 * NS_PER_MS)  # called early in a period: vblank 3 waits
    shown, index = sim.present()
    assert index == 3 and clock.now_ns() == 100_000_000 // 2


def test_a_queue_of_two_returns_at_once_while_a_place_is_free() -> None:
    clock = ManualClock(0)
    screen = SimDisplay(clock, random.Random(5), Fraction(60), noise_ns=0, queue_depth=2)
    clock.set(1_000_000)
    shown, k = screen.present()  # nothing waits: returns at once, flips at vblank 1
    assert k == 1 and clock.now_ns() < 2_000_000
    shown2, k2 = screen.present()  # image 1 still waits: blocks until vblank 1 frees a place
    assert k2 == 2 and clock.now_ns() == shown
    assert shown2 - shown == 16_666_667 or shown2 - shown == 16_666_666


def test_a_queue_of_one_is_the_reference_model() -> None:
    for depth in (1, 2, 3):
        clock = ManualClock(0)
        screen = SimDisplay(clock, random.Random(5), Fraction(60), noise_ns=0, queue_depth=depth)
        returns = []
        for _ in range(6):
            screen.present()
            returns.append(clock.now_ns())
        # from the depth-th present on, every present waits for a vblank
        on_vblank = [abs(r * 60 - round(r * 60 / 1e9) * 10**9) <= 60 for r in returns]
        assert on_vblank == [False] * (depth - 1) + [True] * (7 - depth), (depth, returns)


def test_a_mailbox_never_blocks_and_shows_only_the_newest_image() -> None:
    from engine.tools.monitor_sim.display import shown_images

    clock = ManualClock(0)
    screen = SimDisplay(clock, random.Random(5), Fraction(60), noise_ns=0, mailbox=True)
    indices = []
    for _ in range(4):
        clock.advance(6 * NS_PER_MS)  # three presents per vblank
        before = clock.now_ns()
        indices.append(screen.present()[1])
        assert clock.now_ns() - before < 100_000
    assert indices == [1, 1, 2, 2]
    assert shown_images(indices, True) == [False, True, False, True]


@settings(max_examples=200, deadline=None)
@given(
    refresh_hz=st.floats(30.0, 360.0),
    offset_ns=st.integers(0, 10**9),
    times_ns=st.lists(st.integers(0, 3600 * 10**9), min_size=1, max_size=20),
)
def test_vblank_arithmetic_on_arrays_is_exact_for_any_drawn_rate(
    refresh_hz: float, offset_ns: int, times_ns: list[int]
) -> None:
    """The simulator's figures place vblanks for whole arrays at once. A rate drawn as any
    float has a large numerator (147.21004482764968 Hz is 120026974/815345), and an hour of
    nanoseconds times it overflows 64 bits: 147.21 Hz reported 22,625 vblanks held in a run of
    7,361. The array forms agree with the scalar one, which Python computes exactly."""
    display = SimDisplay(
        ManualClock(0),
        random.Random(1),
        TickRate.from_hz(refresh_hz).rate_hz,
        offset_ns=offset_ns,
    )
    at = np.array(times_ns, dtype=np.int64)
    assert display.vblanks_after(at).tolist() == [display.vblank_after(t) for t in times_ns]
    counts = display.vblanks_after(at) - 1
    rate = display.refresh_hz
    exact = [(k * NS_PER_S * rate.denominator) // rate.numerator for k in counts.tolist()]
    assert display.vblank_spans_ns(counts).tolist() == exact


def test_a_display_drawn_off_whole_hz_holds_no_vblank_it_need_not() -> None:
    """A 2 ms render fits every period: no vblank waits for a finished frame, at a rate with a
    large numerator as at a whole one."""
    for refresh_hz in (147.0, 147.21004482764968):
        r = simulate(
            SimConfig(refresh_hz=refresh_hz, render_ms=2.0, phase="random", updates=600, seed=5108)
        )
        assert r.held_vblanks == 0
        assert r.vblank_error_rms_ms < 0.05
