"""Frames just in time: when a frame wakes to read input, and how the margin adapts."""

from __future__ import annotations

import pytest

from engine.timing import FrameDelay
from engine.timing.clock import NS_PER_MS
from engine.timing.frame_delay import MAX_FIXED_MS


def test_the_setting_words_and_milliseconds() -> None:
    assert FrameDelay.from_setting("off") is None
    auto = FrameDelay.from_setting("auto")
    assert auto is not None and auto.fixed_ns is None
    fixed = FrameDelay.from_setting(3.5)
    assert fixed is not None and fixed.fixed_ns == 3_500_000


@pytest.mark.parametrize("bad", ["soon", -1.0, MAX_FIXED_MS + 1, True, float("nan")])
def test_anything_else_is_refused_with_one_clear_line(bad: object) -> None:
    with pytest.raises(ValueError, match="frame delay must be"):
        FrameDelay.from_setting(bad)  # type: ignore[arg-type]


def test_auto_wakes_as_late_as_the_work_and_margin_allow() -> None:
    delay = FrameDelay()
    start, display = 0, 16 * NS_PER_MS
    wake = delay.wake_ns(start, display, need_ns=2 * NS_PER_MS)
    assert wake == display - 2 * NS_PER_MS - delay.margin_ns
    # work that fills the frame: no delay at all
    assert delay.wake_ns(start, display, need_ns=16 * NS_PER_MS) is None


def test_a_fixed_delay_never_wakes_later_than_auto_would() -> None:
    delay = FrameDelay(fixed_ns=4 * NS_PER_MS)
    assert delay.wake_ns(0, 16 * NS_PER_MS, need_ns=2 * NS_PER_MS) == 4 * NS_PER_MS
    auto_wake = FrameDelay().wake_ns(0, 16 * NS_PER_MS, need_ns=14 * NS_PER_MS)
    assert delay.wake_ns(0, 16 * NS_PER_MS, need_ns=14 * NS_PER_MS) == auto_wake


def test_a_miss_widens_the_margin_and_frames_on_time_narrow_it_again() -> None:
    delay = FrameDelay()
    base = delay.margin_ns
    delay.shown(on_time=False)
    after_one = delay.margin_ns
    delay.shown(on_time=False)
    assert base < after_one < delay.margin_ns
    for _ in range(2000):
        delay.shown(on_time=True)
    assert delay.margin_ns - base < 10_000


def test_late_sleeps_raise_the_margin_at_once() -> None:
    delay = FrameDelay()
    base = delay.margin_ns
    delay.slept(1_000_000, 1_400_000)  # woke 0.4 ms late
    assert delay.margin_ns >= base + 400_000
