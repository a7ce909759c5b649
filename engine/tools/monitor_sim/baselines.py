"""The loops from the source articles, reproduced as pacing policies so the simulator can compare them.

These are *baselines*: they deliberately keep the seeds' float accumulators and thresholds, bugs
included, because reproducing their published behaviour is how the simulator proves it models the
problem. Nothing in the engine uses them. Every threshold scales with the tick rate (the seeds assume
60 Hz: ``1/62`` becomes ``1 / (tick_hz * 62/60)``).

=================  =========================================================================  ========
name               loop                                                                        seed
=================  =========================================================================  ========
naive              ``acc += dt; while acc > step: update; acc -= step``                         001
fuzzy62            ``while acc > 1/62: update; acc -= 1/60; clamp acc at 0``                    001
fuzzy61_59         ``while acc >= 1/61: update; acc -= 1/59; clamp at 0`` (the 59.94 Hz fix)    001
fuzzy61_fix        ``while acc >= 1/61: update; acc -= 1/60; acc = 0 if below 1/59 - 1/60``     001
variable           one update per frame with the measured dt                                   001, 002
semi_fixed         split the frame time into pieces of at most one step                        002
hard_fixed         accumulator with the frame time clamped to 0.25 s                           002
dewitters          constant game speed, ``MAX_FRAMESKIP`` = 5, interpolation                    004
adaptive_interval  render on a grid whose interval grows x1.2 on overrun; simulate just past    000
                   the next render time and interpolate with ``subFrameProportion``
=================  =========================================================================  ========
"""

from __future__ import annotations

from engine.timing import FrameDecision, FrameLimiter, FrameTime, TickRate
from engine.timing.clock import NS_PER_S


class BaselinePolicy:
    """Common frame bookkeeping for the seed loops; subclasses implement :meth:`step`.

    Time here is float seconds, as in the seeds.
    """

    name = "baseline"
    #: Whether the loop renders with interpolation (else it shows the newest state).
    interpolates = False

    def __init__(self, tick_rate: TickRate) -> None:
        self.tick_hz = float(tick_rate.rate_hz)
        self.step_s = 1.0 / self.tick_hz
        self.ticks = 0
        self.game_time_s = 0.0
        self.dropped_s = 0.0
        self.acc_s = 0.0
        self._last_s: float | None = None

    @property
    def game_time_ns(self) -> int:
        """Game time so far in ns."""
        return round(self.game_time_s * NS_PER_S)

    @property
    def dropped_ns(self) -> int:
        """Time dropped by the loop's clamp, in ns."""
        return round(self.dropped_s * NS_PER_S)

    def advance(self, frame: FrameTime) -> FrameDecision:
        """Run the seed's loop for one frame."""
        now_s = frame.real_ns / NS_PER_S
        first = self.ticks
        if self._last_s is None:
            self._last_s = now_s
            self.start(now_s)
            return FrameDecision(0, 1.0, 0, self.name, first)  # type: ignore[arg-type]
        dt_s = now_s - self._last_s
        self._last_s = now_s
        dropped_before = self.dropped_s
        updates = self.step(dt_s, now_s)
        self.ticks += updates
        alpha = min(1.0, max(0.0, self.alpha(now_s)))
        dropped_ns = round((self.dropped_s - dropped_before) * NS_PER_S)
        return FrameDecision(updates, alpha, dropped_ns, self.name, first)  # type: ignore[arg-type]

    def start(self, now_s: float) -> None:
        """Called at the first frame."""

    def step(self, dt_s: float, now_s: float) -> int:
        """Account ``dt_s`` and return the number of updates to run."""
        raise NotImplementedError

    def alpha(self, now_s: float) -> float:
        """Interpolation factor after this frame's updates."""
        return self.acc_s / self.step_s if self.interpolates else 1.0

    def shown_time_ns(self, alpha: float) -> float:
        """Game time a render with ``alpha`` shows."""
        if self.interpolates:
            return (self.ticks - 1 + alpha) * self.step_s * NS_PER_S
        return self.game_time_s * NS_PER_S


class Naive(BaselinePolicy):
    """``while acc > step: update; acc -= step`` (seed 001's first loop)."""

    name = "naive"
    interpolates = True

    def step(self, dt_s: float, now_s: float) -> int:
        self.acc_s += dt_s
        updates = 0
        while self.acc_s > self.step_s:
            self.acc_s -= self.step_s
            updates += 1
        self.game_time_s += updates * self.step_s
        return updates


class _Fuzzy(BaselinePolicy):
    """Slick Entertainment's fuzzy timing: update early within a window of frame rates."""

    update_above_fps = 62.0  # update while acc exceeds 1/this (scaled from 60 Hz)
    inclusive = False  # ``>=`` instead of ``>``
    subtract_fps = 60.0  # each update removes 1/this (scaled)
    zero_below: float | None = None  # acc below this many seconds is zeroed

    def __init__(self, tick_rate: TickRate) -> None:
        super().__init__(tick_rate)
        scale = self.tick_hz / 60.0
        self.threshold_s = 1.0 / (self.update_above_fps * scale)
        self.subtract_s = 1.0 / (self.subtract_fps * scale)
        self.zero_below_s = 0.0
        if self.zero_below is not None:
            self.zero_below_s = self.zero_below / scale

    def step(self, dt_s: float, now_s: float) -> int:
        self.acc_s += dt_s
        updates = 0
        while self.acc_s >= self.threshold_s if self.inclusive else self.acc_s > self.threshold_s:
            updates += 1
            self.acc_s -= self.subtract_s
            if self.acc_s < self.zero_below_s:
                self.acc_s = 0.0
        self.game_time_s += updates * self.step_s
        return updates


class Fuzzy62(_Fuzzy):
    """Update while acc > 1/62, subtract 1/60, clamp at 0."""

    name = "fuzzy62"


class Fuzzy61To59(_Fuzzy):
    """Update while acc >= 1/61, subtract 1/59, clamp at 0 (the 59.94 Hz fix)."""

    name = "fuzzy61_59"
    update_above_fps = 61.0
    inclusive = True
    subtract_fps = 59.0


class Fuzzy61Fix(_Fuzzy):
    """Update while acc >= 1/61, subtract 1/60, zero the rest when below 1/59 - 1/60."""

    name = "fuzzy61_fix"
    update_above_fps = 61.0
    inclusive = True
    zero_below = 1.0 / 59.0 - 1.0 / 60.0


class Variable(BaselinePolicy):
    """One update per frame with the measured dt."""

    name = "variable"

    def step(self, dt_s: float, now_s: float) -> int:
        self.game_time_s += dt_s
        return 1


class SemiFixed(BaselinePolicy):
    """Split the frame time into updates of at most one step (seed 002, no clamp)."""

    name = "semi_fixed"

    def step(self, dt_s: float, now_s: float) -> int:
        updates = 0
        while dt_s > 0.0:
            piece_s = min(dt_s, self.step_s)
            dt_s -= piece_s
            self.game_time_s += piece_s
            updates += 1
        return updates


class HardFixed(BaselinePolicy):
    """Accumulator with the frame time clamped to 0.25 s (seed 002)."""

    name = "hard_fixed"
    interpolates = True
    max_frame_s = 0.25

    def step(self, dt_s: float, now_s: float) -> int:
        if dt_s > self.max_frame_s:
            self.dropped_s += dt_s - self.max_frame_s
            dt_s = self.max_frame_s
        self.acc_s += dt_s
        updates = 0
        while self.acc_s > self.step_s:
            self.acc_s -= self.step_s
            updates += 1
        self.game_time_s += updates * self.step_s
        return updates


class DeWitters(BaselinePolicy):
    """Constant game speed independent of FPS, ``MAX_FRAMESKIP`` = 5, interpolation (seed 004).

    The backlog is kept: after a stall it runs 5 updates per frame until it has caught up.
    """

    name = "dewitters"
    interpolates = True
    max_frameskip = 5

    def start(self, now_s: float) -> None:
        self.next_tick_s = now_s

    def step(self, dt_s: float, now_s: float) -> int:
        updates = 0
        while now_s > self.next_tick_s and updates < self.max_frameskip:
            self.next_tick_s += self.step_s
            updates += 1
        self.game_time_s += updates * self.step_s
        return updates

    def alpha(self, now_s: float) -> float:
        return (now_s + self.step_s - self.next_tick_s) / self.step_s


class AdaptiveInterval(BaselinePolicy):
    """Seed 000: render on an adaptive interval, simulate just past the next render time.

    The loop uses a :class:`~engine.timing.FrameLimiter` (always on) for its render grid and the
    x1.2 interval growth; this policy runs updates until the simulation time passes the expected
    end of the frame and renders at ``subFrameProportion`` between the last two states.
    """

    name = "adaptive_interval"
    interpolates = True

    def __init__(self, tick_rate: TickRate) -> None:
        super().__init__(tick_rate)
        self.limiter = FrameLimiter(tick_rate.rate_hz)

    def start(self, now_s: float) -> None:
        self.start_s = now_s
        self.expected_end_s = now_s

    def step(self, dt_s: float, now_s: float) -> int:
        self.expected_end_s = now_s + float(self.limiter.interval_ns) / NS_PER_S
        current_s = self.start_s + self.ticks * self.step_s
        updates = 0
        while current_s < self.expected_end_s:
            current_s += self.step_s
            updates += 1
        self.game_time_s += updates * self.step_s
        return updates

    def alpha(self, now_s: float) -> float:
        previous_s = self.start_s + (self.ticks - 1) * self.step_s
        return (self.expected_end_s - previous_s) / self.step_s


BASELINES: dict[str, type[BaselinePolicy]] = {
    cls.name: cls
    for cls in (
        Naive,
        Fuzzy62,
        Fuzzy61To59,
        Fuzzy61Fix,
        Variable,
        SemiFixed,
        HardFixed,
        DeWitters,
        AdaptiveInterval,
    )
}
