"""The frame-pacing step: policies, hitch guard, resync, and exact accounting under any input."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.timing import (
    Cadence,
    FramePacer,
    FrameTime,
    PacerSettings,
    TickRate,
    TimingMode,
)
from engine.timing.clock import NS_PER_MS, NS_PER_S

RATE = TickRate.from_hz(60)
STEP = 16_666_667  # ~1/60 s in ns


def pacer(mode: TimingMode = TimingMode.STRICT, **kwargs: int) -> FramePacer:
    return FramePacer(RATE, PacerSettings(mode=mode, **kwargs))  # type: ignore[arg-type]


def run(p: FramePacer, times_ns: list[int], **frame: object) -> list[int]:
    return [p.advance(FrameTime(t, **frame)).updates for t in times_ns]  # type: ignore[arg-type]


def test_first_frame_runs_nothing_then_one_tick_per_step() -> None:
    p = pacer()
    updates = run(p, [i * STEP for i in range(10)])
    assert updates == [0] + [1] * 9


def test_rounds_to_nearest_tick_so_noise_never_double_updates() -> None:
    """Frames of exactly one step +- 0.3 ms: floor would alternate 0/2, round gives 1 each time."""
    p = pacer()
    jitter = [300_000, -300_000]
    times = [i * STEP + jitter[i % 2] for i in range(200)]
    updates = run(p, times)
    assert set(updates[1:]) == {1}


def test_alpha_is_half_a_tick_behind_and_follows_pending_time() -> None:
    p = pacer()
    p.advance(FrameTime(0))
    d = p.advance(FrameTime(STEP // 4))
    assert d.updates == 0
    assert abs(d.alpha - 0.75) < 1e-6
    d = p.advance(FrameTime(STEP // 2 + 1))
    assert d.updates == 1
    assert 0.0 <= d.alpha < 0.01


def test_hitch_guard_drops_long_frames_and_reports_it() -> None:
    p = pacer()
    p.advance(FrameTime(0))
    d = p.advance(FrameTime(2 * NS_PER_S))  # a 2 s stall
    assert d.updates == 5  # capped at max_updates_per_frame
    # 2 s - 0.25 s dropped by the delta clamp, then 15 ticks wanted, 10 dropped by the cap
    assert abs(d.dropped_ns - (1_750_000_000 + RATE.tick_time_ns(10))) <= 1
    assert abs(p.dropped_ns - d.dropped_ns) < 2
    # no backlog: the next normal frame runs one tick
    assert p.advance(FrameTime(2 * NS_PER_S + STEP)).updates == 1


def test_hitch_guard_limits_are_configurable() -> None:
    p = pacer(max_updates_per_frame=2, max_frame_delta_ns=NS_PER_S)
    p.advance(FrameTime(0))
    d = p.advance(FrameTime(10 * STEP))
    assert d.updates == 2
    assert abs(d.dropped_ns - RATE.tick_time_ns(8)) <= 1


def test_resync_drops_the_time_until_the_next_frame() -> None:
    p = pacer()
    run(p, [0, STEP, 2 * STEP])
    ticks = p.ticks
    p.resync()  # e.g. a level load took 3 s
    d = p.advance(FrameTime(2 * STEP + 3 * NS_PER_S))
    assert d.updates == 0
    assert p.ticks == ticks
    assert abs(p.dropped_ns - 3 * NS_PER_S) < 2
    assert p.advance(FrameTime(3 * STEP + 3 * NS_PER_S)).updates == 1


def test_backwards_and_equal_timestamps_pass_no_time() -> None:
    p = pacer()
    assert run(p, [10 * STEP, 10 * STEP, 5 * STEP, 11 * STEP]) == [0, 0, 0, 1]


def test_strict_ignores_smooth_time_far_from_the_raw_time() -> None:
    p = pacer()
    p.advance(FrameTime(0, smooth_ns=0))
    # smooth time 6 ms away from raw: more than a quarter tick, so strict uses the raw time
    d = p.advance(FrameTime(STEP, smooth_ns=STEP + 6 * NS_PER_MS))
    assert d.updates == 1
    assert p.elapsed_ns == STEP


def test_locked_runs_one_tick_per_vblank_at_59_94_hz_and_reports_the_bend() -> None:
    p = pacer(TimingMode.LOCKED)
    period = round(NS_PER_S / 59.94)
    frames = 1000
    updates = run_locked(p, period, frames, 59.94)
    assert updates[1:] == [1] * (frames - 1)
    # the game ran at 59.94 ticks per second of 60 Hz game time: 0.1 % slow, as bend
    real_ns = (frames - 1) * period
    assert p.game_time_ns - real_ns == p.bend_ns or abs(p.game_time_ns - real_ns - p.bend_ns) < 2
    assert p.bend_ns < 0
    assert abs(p.bend_ns / real_ns + 0.001) < 0.0001


def run_locked(p: FramePacer, period: int, frames: int, refresh_hz: float) -> list[int]:
    out = []
    for i in range(frames):
        vblanks = 1 if i else None
        frame = FrameTime(i * period, i * period, vblanks, True, refresh_hz)
        out.append(p.advance(frame).updates)
    return out


def test_locked_runs_one_tick_every_other_vblank_at_120_hz_with_even_alpha() -> None:
    p = pacer(TimingMode.LOCKED)
    period = NS_PER_S // 120
    alphas = []
    updates = []
    for i in range(200):
        d = p.advance(FrameTime(i * period, i * period, 1 if i else None, True, 120.0))
        updates.append(d.updates)
        alphas.append(d.alpha)
    assert updates[2:] in ([0, 1] * 99, [1, 0] * 99)
    steps = {round((b - a) % 1.0, 6) for a, b in itertools.pairwise(alphas[2:])}
    assert steps == {0.5}


@settings(max_examples=60, deadline=None)
@given(
    multiple=st.integers(1, 8),
    rounding=st.sampled_from(["floor", "ceil", "nearest"]),
    start_ns=st.integers(0, 10**12),
)
def test_a_frame_on_a_ticks_rounding_boundary_ticks_alike_in_every_policy(
    multiple: int, rounding: str, start_ns: int
) -> None:
    """A display at N times the tick rate puts a frame exactly on half a tick for even N (two
    vblanks of 120 Hz); an integer clock reads that instant up to 1 ns early or late. Every
    policy (measured time in strict and interpolated, whole vblanks in locked) runs its ticks
    at the same frames, whichever way the clock rounds: the ticks by frame n are those of the
    exact instant, ties rounded up (this failed at 120 and 240 Hz before the 1 ns allowance).
    """
    num, den = 60 * multiple, NS_PER_S  # vblank n at start + n * den / num ns, exactly
    round_ns = {
        "floor": lambda n: n * den // num,
        "ceil": lambda n: -(-n * den // num),
        "nearest": lambda n: (2 * n * den + num) // (2 * num),
    }[rounding]
    frames = 8 * multiple
    exact = [(2 * n + multiple) // (2 * multiple) for n in range(frames)]  # round(n / N), ties up
    for mode in (TimingMode.STRICT, TimingMode.INTERPOLATED, TimingMode.LOCKED):
        p = pacer(mode)
        ticks = []
        for n in range(frames):
            t = start_ns + round_ns(n)
            p.advance(FrameTime(t, t, 1 if n else None, True, float(num)))
            ticks.append(p.ticks)
        assert ticks == exact, (mode, rounding)


def test_locked_falls_back_to_strict_when_the_refresh_does_not_fit() -> None:
    p = pacer(TimingMode.LOCKED)
    d = p.advance(FrameTime(0, None, None, True, 75.0))
    assert d.mode is TimingMode.STRICT


def test_locked_does_not_trust_vblank_counts_that_disagree_with_the_clock() -> None:
    """vsync just switched off: frames every 5 ms still claim a vblank; locked must not run 3x fast."""
    p = pacer(TimingMode.LOCKED)
    for i in range(600):
        t = i * 5 * NS_PER_MS
        p.advance(FrameTime(t, t, 1 if i else None, True, 60.0))
    assert abs(p.game_time_ns - 599 * 5 * NS_PER_MS) <= STEP


def test_auto_chooses_from_the_vsync_verdict() -> None:
    p = pacer(TimingMode.AUTO)
    assert p.advance(FrameTime(0)).mode is TimingMode.STRICT  # undecided
    assert p.advance(FrameTime(STEP, vsync=False)).mode is TimingMode.STRICT
    assert p.advance(FrameTime(2 * STEP, vsync=True, refresh_hz=60.0)).mode is TimingMode.LOCKED
    assert p.advance(FrameTime(3 * STEP, vsync=True, refresh_hz=30.0)).mode is TimingMode.LOCKED
    assert (
        p.advance(FrameTime(4 * STEP, vsync=True, refresh_hz=144.0)).mode is TimingMode.INTERPOLATED
    )
    assert (
        p.advance(FrameTime(5 * STEP, vsync=True, refresh_hz=50.0)).mode is TimingMode.INTERPOLATED
    )


def test_cadence_matches_multiples_and_divisors_within_tolerance() -> None:
    assert Cadence.find(60, 60, 0.01) == Cadence(1, 1)
    assert Cadence.find(60, 59.94, 0.01) == Cadence(1, 1)
    assert Cadence.find(60, 30, 0.01) == Cadence(2, 1)
    assert Cadence.find(60, 120, 0.01) == Cadence(1, 2)
    assert Cadence.find(60, 240, 0.01) == Cadence(1, 4)
    assert Cadence.find(60, 144, 0.01) is None
    assert Cadence.find(60, 75, 0.01) is None
    assert Cadence.find(60, 61, 0.01) is None  # 1.7 % off


# -- property tests ----------------------------------------------------------------------------

deltas = st.one_of(
    st.integers(min_value=-50 * NS_PER_MS, max_value=50 * NS_PER_MS),  # jitter, backwards
    st.integers(min_value=STEP - 200_000, max_value=STEP + 200_000),  # near one step
    st.just(0),  # equal timestamps
    st.integers(min_value=NS_PER_S, max_value=100 * NS_PER_S),  # huge jumps
)
frame_extras = st.tuples(
    st.one_of(st.none(), st.integers(min_value=-3 * NS_PER_MS, max_value=3 * NS_PER_MS)),
    st.one_of(st.none(), st.integers(min_value=-2, max_value=70)),
    st.sampled_from([None, True, False]),
    st.sampled_from([None, 60.0, 59.94, 120.0, 144.0, 30.0, 0.0]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(list(TimingMode)),
    st.sampled_from([60, 50, 144, 59.94]),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.lists(st.tuples(deltas, frame_extras), min_size=1, max_size=120),
    st.integers(min_value=1, max_value=8),
    st.booleans(),
)
def test_any_timestamps_keep_the_core_sane_and_the_books_exact(
    mode: TimingMode,
    tick_hz: float,
    start_ns: int,
    frames: list[tuple[int, tuple[int | None, int | None, bool | None, float | None]]],
    cap: int,
    resync_midway: bool,
) -> None:
    rate = TickRate.from_hz(tick_hz)
    p = FramePacer(rate, PacerSettings(mode=mode, max_updates_per_frame=cap))
    step_ns = rate.step_ns
    now = start_ns
    first_raw: int | None = None
    max_raw = start_ns
    ticks_before = 0
    for i, (delta, (smooth_off, vblanks, vsync, refresh)) in enumerate(frames):
        now += delta
        if resync_midway and i == len(frames) // 2:
            p.resync()
        smooth = None if smooth_off is None else now + smooth_off
        d = p.advance(FrameTime(now, smooth, vblanks, vsync, refresh))
        assert 0.0 <= d.alpha <= 1.0
        assert 0 <= d.updates <= cap
        assert d.dropped_ns >= 0
        assert p.ticks == ticks_before + d.updates >= ticks_before
        assert d.first_tick == ticks_before
        ticks_before = p.ticks
        game, dropped, pending, elapsed, bend = p.accounts_units()
        assert game + dropped + pending == elapsed + bend
        if d.mode is not TimingMode.LOCKED:
            # outside locked, pending time stays within half a tick: round to nearest (the
            # half taken 1 ns short, so a frame 1 ns before the boundary rounds up too)
            assert abs(pending) <= rate.step_units // 2 + rate.units_per_ns
        if mode in (TimingMode.STRICT, TimingMode.INTERPOLATED):
            assert bend == 0
        if first_raw is None:
            first_raw = max_raw = now
        max_raw = max(max_raw, now)
        if mode is TimingMode.STRICT:
            # strict: game time within one tick of real time, apart from dropped time
            real_ns = max_raw - first_raw
            assert abs(p.game_time_ns + p.dropped_ns - real_ns) <= step_ns + 1


def test_hitch_drops_are_told_apart_from_resync_drops() -> None:
    """A speedrun is strict-valid only without hitch drops; level loads resync on purpose."""
    p = pacer()
    run(p, [0, STEP, 2 * STEP])
    p.resync()
    run(p, [2 * STEP + 2 * NS_PER_S])  # a 2 s level load, dropped by the resync
    assert p.dropped_ns >= 2 * NS_PER_S - 1
    assert p.hitch_dropped_ns == 0
    start = 2 * STEP + 2 * NS_PER_S
    run(p, [start + NS_PER_S])  # a 1 s stall: the hitch guard keeps 0.25 s of it
    assert p.hitch_dropped_ns > 0
    assert p.dropped_ns - p.hitch_dropped_ns >= 2 * NS_PER_S - 1
