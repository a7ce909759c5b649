"""Tests for engine.rendering.frame_stats: rolling frame statistics fed with synthetic FrameReports (pure)."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.config import DebugConfig
from engine.rendering.frame_stats import FrameStats
from engine.timing.game_loop import FrameReport
from engine.timing.pacer import FramePacer, FrameTime, PacerSettings, TimingMode
from engine.timing.tick_rate import TickRate

NS_PER_S = 1_000_000_000


def make_report(
    index: int,
    frame_ns: int,
    present_ns: int,
    *,
    updates: int = 1,
    alpha: float = 0.5,
    dropped_ns: int = 0,
    mode: TimingMode | str = TimingMode.STRICT,
    vsync: bool | None = True,
    refresh_hz: float | None = 60.0,
    probe: bool = False,
) -> FrameReport:
    """A report as the game loop builds it (ready == present: presents take no time here)."""
    return FrameReport(
        index,
        frame_ns,
        updates,
        alpha,
        dropped_ns,
        mode,
        present_ns,
        present_ns,
        None,
        vsync,
        refresh_hz,
        probe,
    )


def present_ns_at(frame: int, rate_hz: float) -> int:
    """Integer present timestamp of ``frame`` on an exact ``rate_hz`` grid."""
    return round(frame * NS_PER_S / rate_hz)


def feed_grid(
    stats: FrameStats, frames: int, rate_hz: float = 60.0, start: int = 0, **fields: object
) -> int:
    """Record ``frames`` frames presented exactly at ``rate_hz``; return the next frame number."""
    for frame in range(start, start + frames):
        stats.record(
            make_report(
                frame,
                present_ns_at(frame, rate_hz),
                present_ns_at(frame + 1, rate_hz),
                **fields,  # type: ignore[arg-type]
            )
        )
    return start + frames


def test_exact_60_hz_reads_60_fps_and_16_667_ms() -> None:
    stats = FrameStats(240)
    feed_grid(stats, 300)
    assert stats.fps() == pytest.approx(60.0, abs=0.01)
    assert stats.mean_ms() == pytest.approx(1000 / 60, abs=1e-3)
    assert stats.p99_ms() == pytest.approx(16.667, abs=1e-3)
    assert stats.max_ms() == pytest.approx(16.667, abs=1e-3)
    assert stats.frame_count == 240
    assert stats.frames_recorded == 300


@pytest.mark.parametrize("rate_hz", [30.0, 59.94, 144.0])
def test_fps_follows_the_present_rate(rate_hz: float) -> None:
    stats = FrameStats(240)
    feed_grid(stats, 400, rate_hz)
    assert stats.fps() == pytest.approx(rate_hz, abs=0.01)


def test_fps_with_less_than_a_second_of_frames() -> None:
    stats = FrameStats(240)
    feed_grid(stats, 10)
    assert stats.fps() == pytest.approx(60.0, abs=0.01)


def test_fps_counts_only_the_last_second() -> None:
    """Two seconds at 30 Hz then one second at 60 Hz: the counter has forgotten the 30 Hz part."""
    stats = FrameStats(1000)
    now_ns = 0
    for frame in range(60):
        stats.record(make_report(frame, now_ns, now_ns + NS_PER_S // 30))
        now_ns += NS_PER_S // 30
    for frame in range(60, 120):
        previous_ns = now_ns
        now_ns = previous_ns + present_ns_at(frame - 59, 60) - present_ns_at(frame - 60, 60)
        stats.record(make_report(frame, previous_ns, now_ns))
    assert stats.fps() == pytest.approx(60.0, abs=0.01)


def test_a_stall_shows_in_max_and_dropped_total_but_not_in_the_mean_much() -> None:
    stats = FrameStats(240)
    frame = feed_grid(stats, 120)
    stall_start_ns = present_ns_at(frame, 60)
    stall_end_ns = stall_start_ns + 400_000_000  # a 400 ms hitch
    stats.record(
        make_report(frame, stall_start_ns, stall_end_ns, updates=5, dropped_ns=233_333_333)
    )
    for k in range(119):
        stats.record(
            make_report(
                frame + 1 + k,
                stall_end_ns + present_ns_at(k, 60),
                stall_end_ns + present_ns_at(k + 1, 60),
            )
        )
    assert stats.frame_count == 240
    assert stats.max_ms() == pytest.approx(400.0)
    assert stats.mean_ms() < 20.0  # one hitch barely moves the mean...
    assert stats.p99_ms() == pytest.approx(16.667, abs=1e-3)  # ...nor a 1 % percentile of 240
    assert stats.dropped_total_ns == 233_333_333
    assert isinstance(stats.dropped_total_ns, int)
    assert stats.multi_update_frames() == 1
    lines = "\n".join(stats.lines())
    assert "max 400.00" in lines
    assert "dropped 0.234 s" in lines  # rounded up: any dropped time shows
    assert "2+: 1 in last 240" in lines


def test_repeated_hitches_raise_the_p99() -> None:
    """Four 50 ms frames in 240 (more than 1 %) set the 99th percentile; the mean hides them."""
    stats = FrameStats(240)
    now_ns = 0
    for frame in range(240):
        interval_ns = 50_000_000 if frame % 60 == 30 else 16_666_667
        stats.record(make_report(frame, now_ns, now_ns + interval_ns))
        now_ns += interval_ns
    assert stats.p99_ms() == pytest.approx(50.0)
    assert stats.mean_ms() < 18.0


def test_dropped_total_is_an_exact_integer_sum_over_all_frames() -> None:
    stats = FrameStats(10)
    drops_ns = [1, 999_999_999, 0, 7, 123_456_789] * 10  # more frames than the window holds
    now_ns = 0
    for frame, dropped_ns in enumerate(drops_ns):
        stats.record(make_report(frame, now_ns, now_ns + 16_666_667, dropped_ns=dropped_ns))
        now_ns += 16_666_667
    assert stats.dropped_total_ns == sum(drops_ns)


def test_probe_frames_are_ignored() -> None:
    stats = FrameStats(240)
    # 30 probe frames at 60 Hz, as the game loop reports them (index -1, mode "probe").
    for probe in range(30):
        stats.record(
            make_report(
                -1,
                present_ns_at(probe, 60),
                present_ns_at(probe + 1, 60),
                updates=0,
                alpha=1.0,
                mode="probe",
                vsync=None,
                refresh_hz=None,
                probe=True,
            )
        )
    assert stats.frame_count == 0
    assert stats.frames_recorded == 0
    assert stats.mode is None
    feed_grid(stats, 60, start=30)
    assert stats.frame_count == 60
    assert stats.zero_update_frames() == 0  # the probes' zero updates were not counted
    assert stats.fps() == pytest.approx(60.0, abs=0.01)
    # A stray probe later changes nothing either.
    before = stats.lines()
    stats.record(make_report(-1, 0, 10 * NS_PER_S, updates=0, mode="probe", probe=True))
    assert stats.lines() == before
    assert stats.frame_count == 60


def test_first_frame_interval_is_measured_from_frame_ns() -> None:
    stats = FrameStats(10)
    stats.record(make_report(0, 5_000_000, 25_000_000))
    np.testing.assert_allclose(stats.intervals_ms(), [20.0])


def test_ring_buffer_wraps_and_keeps_the_newest_frames_in_order() -> None:
    stats = FrameStats(10)
    now_ns = 0
    for frame in range(25):
        interval_ns = (frame + 1) * 1_000_000  # frame k lasts k+1 ms
        stats.record(make_report(frame, now_ns, now_ns + interval_ns, updates=frame % 3))
        now_ns += interval_ns
        expected_ms = np.arange(max(0, frame - 9), frame + 1) + 1.0
        np.testing.assert_allclose(stats.intervals_ms(), expected_ms)
    assert stats.frame_count == 10
    assert stats.frames_recorded == 25
    assert stats.mean_ms() == pytest.approx(np.mean(np.arange(16, 26)))
    assert stats.max_ms() == pytest.approx(25.0)
    # Frames 15..24 ran updates = frame % 3.
    expected_hist = np.bincount([frame % 3 for frame in range(15, 25)], minlength=3)
    np.testing.assert_array_equal(stats.updates_histogram(), expected_hist)


def test_updates_histogram_and_judder_counts() -> None:
    stats = FrameStats(240)
    updates = [1, 1, 0, 2, 3, 1, 1, 0]
    for frame, count in enumerate(updates):
        stats.record(
            make_report(
                frame, present_ns_at(frame, 60), present_ns_at(frame + 1, 60), updates=count
            )
        )
    np.testing.assert_array_equal(stats.updates_histogram(), [2, 4, 1, 1])
    assert stats.zero_update_frames() == 2
    assert stats.multi_update_frames() == 2
    assert stats.last_updates == 0
    assert "updates/frame 0  (0: 2, 2+: 2 in last 8)" in stats.lines()


def test_lines_show_the_expected_values() -> None:
    stats = FrameStats(240)
    feed_grid(stats, 300, rate_hz=59.94, alpha=0.25, mode=TimingMode.LOCKED, refresh_hz=59.94)
    lines = stats.lines()
    assert lines[0] == "FPS 59.9  frame 16.68 ms (p99 16.68, max 16.68)"
    assert lines[1] == "updates/frame 1  (0: 0, 2+: 0 in last 240)"
    assert lines[2] == "alpha 0.25"
    assert lines[3] == "timing locked"
    assert lines[4] == "vsync on, 59.940 Hz"
    assert lines[5] == "dropped 0.000 s"


def test_vsync_text() -> None:
    stats = FrameStats(240)
    feed_grid(stats, 1, vsync=None, refresh_hz=None)
    assert stats.vsync_text() == "detecting"
    assert "vsync detecting" in stats.lines()
    feed_grid(stats, 1, start=1, vsync=False, refresh_hz=None)
    assert stats.vsync_text() == "off"
    assert "vsync off" in stats.lines()
    feed_grid(stats, 1, start=2, vsync=True, refresh_hz=143.856)
    assert "vsync on, 143.856 Hz" in stats.lines()


def test_with_a_pacer_the_timing_line_shows_requested_mode_and_cadence() -> None:
    tick_rate = TickRate.from_hz(60)
    pacer = FramePacer(tick_rate, PacerSettings(mode=TimingMode.AUTO))
    stats = FrameStats(240, pacer=pacer)
    now_ns = 0
    for frame in range(5):  # vsync on at 120 Hz: auto locks to one tick every two vblanks
        previous_ns, now_ns = now_ns, now_ns + 8_333_333
        decision = pacer.advance(FrameTime(now_ns, now_ns, 1, True, 120.0))
        stats.record(
            make_report(
                frame,
                previous_ns,
                now_ns,
                updates=decision.updates,
                mode=decision.mode,
                refresh_hz=120.0,
            )
        )
    lines = stats.lines()
    assert lines[3] == "timing auto -> locked (1 tick/2 vblanks)"
    assert lines[5].startswith("dropped 0.000 s  bend ")


def test_requested_mode_equal_to_resolved_is_shown_once() -> None:
    pacer = FramePacer(TickRate.from_hz(60), PacerSettings(mode=TimingMode.STRICT))
    stats = FrameStats(240, pacer=pacer)
    feed_grid(stats, 3, mode=TimingMode.STRICT)
    assert stats.timing_text() == "timing strict"


def test_target_frame_time_uses_the_refresh_with_vsync_on() -> None:
    stats = FrameStats(240, target_hz=50.0)
    assert stats.target_frame_ms == pytest.approx(20.0)
    feed_grid(stats, 2, vsync=True, refresh_hz=144.0)
    assert stats.target_frame_ms == pytest.approx(1000 / 144)
    feed_grid(stats, 1, start=2, vsync=False, refresh_hz=None)
    assert stats.target_frame_ms == pytest.approx(20.0)


def test_empty_stats_have_placeholder_lines() -> None:
    stats = FrameStats(240)
    lines = stats.lines()
    assert len(lines) == 7
    assert lines[0].startswith("FPS --")
    assert "cpu/frame --" in lines
    assert stats.fps() == 0.0
    assert stats.mean_ms() == 0.0
    assert len(stats.intervals_ms()) == 0


def test_cpu_line_averages_tick_and_draw_time() -> None:
    stats = FrameStats(4)
    stats.record_cpu(1_000_000, 3_000_000)
    stats.record_cpu(3_000_000, 5_000_000)
    assert stats.cpu_ms() == pytest.approx((2.0, 4.0))
    assert "cpu/frame 6.00 ms (ticks 2.00, draw 4.00)" in stats.lines()
    for _ in range(4):  # the window forgets the first two frames
        stats.record_cpu(0, 1_000_000)
    assert stats.cpu_ms() == pytest.approx((0.0, 1.0))


def test_clear_forgets_everything() -> None:
    stats = FrameStats(240)
    empty = stats.lines()
    feed_grid(stats, 50, dropped_ns=1000)
    stats.clear()
    assert stats.frame_count == 0
    assert stats.dropped_total_ns == 0
    assert stats.lines() == empty


def test_from_config_takes_the_window_length() -> None:
    stats = FrameStats.from_config(DebugConfig(frame_graph_frames=30))
    assert stats.window_frames == 30
    feed_grid(stats, 100)
    assert stats.frame_count == 30


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="window_frames"):
        FrameStats(1)
    with pytest.raises(ValueError, match="target_hz"):
        FrameStats(240, target_hz=0)


def test_record_does_not_grow_memory() -> None:
    """Recording writes into preallocated arrays: thousands of frames allocate nothing that stays."""
    stats = FrameStats(240)
    frame = feed_grid(stats, 300)
    reports = [
        make_report(k, present_ns_at(k, 60), present_ns_at(k + 1, 60))
        for k in range(frame, frame + 5000)
    ]
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for report in reports:
            stats.record(report)
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert after - before < 4096


def test_module_is_pure() -> None:
    """The stats import neither arcade nor pyglet, so they run in tools and tests without GL."""
    code = (
        "import sys, engine.rendering.frame_stats; "
        "assert not {'arcade', 'pyglet'} & set(sys.modules), sorted(sys.modules)"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_a_discarded_frame_is_no_interval_and_its_ticks_go_to_the_next_image() -> None:
    stats = FrameStats(8)
    period = NS_PER_S // 60
    stats.record(make_report(0, 0, period))
    late = replace(make_report(1, period, 2 * period - 100), presented=False)
    stats.record(late)  # rendered, too late for its vblank, never shown
    stats.record(make_report(2, 2 * period - 100, 3 * period, updates=0))
    assert stats.frames_recorded == 2 and stats.frames_discarded == 1
    assert stats.intervals_ms().tolist() == pytest.approx([1000 / 60, 2000 / 60])
    assert stats.zero_update_frames() == 0  # the next image shows the discarded frame's tick
