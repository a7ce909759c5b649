"""The game loop object with a manual clock and a scripted display."""

from __future__ import annotations

import itertools
from fractions import Fraction

from engine.timing import (
    FrameLimiter,
    FramePacer,
    GameLoop,
    LimitWhen,
    ManualClock,
    PacerSettings,
    TickRate,
    TimingMode,
)
from engine.timing.clock import NS_PER_MS, NS_PER_S


class VsyncDisplay:
    """Presents wait for the next 60 Hz vblank, or return at once when vsync is off."""

    def __init__(self, clock: ManualClock, vsync: bool = True) -> None:
        self.clock = clock
        self.vsync = vsync
        self.presents: list[int] = []

    def present(self) -> None:
        now = self.clock.now_ns()
        if self.vsync:
            period = Fraction(NS_PER_S, 60)
            k = int(now / period) + 1
            self.clock.set(int(k * period) + 50_000)
        else:
            self.clock.advance(1_000)
        self.presents.append(self.clock.now_ns())


def make_loop(vsync: bool = True, render_ms: float = 3.0, probes: int = 10):
    clock = ManualClock(0)
    display = VsyncDisplay(clock, vsync)
    calls: list[tuple[str, object]] = []

    def fixed_update(tick: int) -> None:
        calls.append(("update", tick))
        clock.advance(100_000)

    def render(alpha: float) -> None:
        calls.append(("render", alpha))
        clock.advance(round(render_ms * NS_PER_MS))

    loop = GameLoop(
        clock=clock,
        pacer=FramePacer(TickRate.from_hz(60), PacerSettings(mode=TimingMode.AUTO)),
        fixed_update=fixed_update,
        render=render,
        present=display.present,
        poll_events=lambda: calls.append(("poll", None)),
        limiter=FrameLimiter(Fraction(60)),
        probe_frames=probes,
    )
    return loop, clock, display, calls


def test_probe_frames_only_present_then_frames_poll_update_render_present_in_order() -> None:
    loop, _, display, calls = make_loop(probes=10)
    reports = [loop.run_frame() for _ in range(13)]
    assert [r.probe for r in reports] == [True] * 10 + [False] * 3
    assert len(display.presents) == 13
    kinds = [kind for kind, _ in calls]
    assert kinds[0] == "poll"  # nothing happened during the probes
    # each game frame: poll, its updates, one render
    assert kinds == ["poll", "render", "poll", "update", "render", "poll", "update", "render"]
    ticks = [value for kind, value in calls if kind == "update"]
    assert ticks == [0, 1]


def test_vsync_on_gives_one_tick_per_vblank_and_locks() -> None:
    loop, _, _, _ = make_loop()
    reports = [loop.run_frame() for _ in range(200)]
    game = [r for r in reports if not r.probe]
    assert {r.updates for r in game[1:]} == {1}
    assert game[-1].vsync is True
    assert game[-1].mode is TimingMode.LOCKED
    assert game[-1].refresh_hz is not None and abs(game[-1].refresh_hz - 60) < 0.01


def test_vsync_off_engages_the_limiter_and_keeps_real_time() -> None:
    loop, _, _, _ = make_loop(vsync=False)
    reports = [loop.run_frame() for _ in range(300)]
    game = [r for r in reports if not r.probe]
    assert game[-1].vsync is False
    assert loop.limiting
    paced = [r for r in game if r.deadline_ns is not None]
    assert len(paced) > 250
    intervals = {b.present_ns - a.present_ns for a, b in itertools.pairwise(paced[5:])}
    assert all(abs(i - NS_PER_S / 60) < 10_000 for i in intervals)
    assert {r.updates for r in paced[5:]} == {1}
    pacer = loop.pacer
    assert isinstance(pacer, FramePacer)
    real = game[-1].frame_ns - game[0].frame_ns
    assert abs(pacer.game_time_ns + pacer.dropped_ns - real) <= NS_PER_S / 60


def test_resync_drops_a_level_load() -> None:
    loop, clock, _, _ = make_loop()
    for _ in range(50):
        loop.run_frame()
    pacer = loop.pacer
    assert isinstance(pacer, FramePacer)
    before = pacer.ticks
    clock.advance(2 * NS_PER_S)  # loading
    loop.resync()
    report = loop.run_frame()
    assert report.updates == 0
    assert pacer.ticks == before
    assert pacer.dropped_ns >= 2 * NS_PER_S


def test_limiter_never_paces_when_told_never() -> None:
    clock = ManualClock(0)
    display = VsyncDisplay(clock, vsync=False)
    loop = GameLoop(
        clock=clock,
        pacer=FramePacer(TickRate.from_hz(60)),
        fixed_update=lambda tick: None,
        render=lambda alpha: clock.advance(NS_PER_MS),
        present=display.present,
        limiter=FrameLimiter(Fraction(60)),
        limit_when=LimitWhen.NEVER,
        probe_frames=0,
    )
    reports = [loop.run_frame() for _ in range(100)]
    assert all(r.deadline_ns is None for r in reports)
