"""The pure timing core: exact fixed-step accounting, frame pacing, vsync detection, limiting.

Nothing here imports arcade, pyglet or pymunk: the same code runs inside the arcade window and
inside the monitor simulator (:mod:`engine.tools.monitor_sim`), and is tested without a display.

Modules, one concept each:

* :mod:`~engine.timing.clock` — time sources in integer nanoseconds (real and manual).
* :mod:`~engine.timing.tick_rate` — a tick rate as an exact fraction; time in integer units.
* :mod:`~engine.timing.pacer` — the per-frame decision: ticks to run, alpha, dropped time; the
  ``strict``, ``locked``, ``interpolated`` and ``auto`` policies and the hitch guard.
* :mod:`~engine.timing.vsync` — vsync on/off and the refresh rate, from present timestamps, how long
  presents blocked and the OS's nominal refresh rate.
* :mod:`~engine.timing.limiter` — absolute-deadline frame limiter.
* :mod:`~engine.timing.present_plan` — when each frame will be shown (a vblank or a deadline), so
  it is rendered for that moment; vsync holds and the checks that keep the verdict honest.
* :mod:`~engine.timing.game_loop` — the loop object tying them together.
"""

from engine.timing.clock import NS_PER_MS, NS_PER_S, Clock, ManualClock, RealClock
from engine.timing.frame_delay import FrameDelay, FrameDelaySettings
from engine.timing.game_loop import FrameReport, GameLoop, LimitWhen, PacingPolicy
from engine.timing.limiter import FrameLimiter, LimiterSettings
from engine.timing.pacer import (
    Cadence,
    FrameDecision,
    FramePacer,
    FrameTime,
    PacerSettings,
    TimingMode,
)
from engine.timing.present_plan import (
    PlanKind,
    PlanSettings,
    PresentPlan,
    PresentPlanner,
    WorkEstimate,
    WorkWindow,
)
from engine.timing.tick_rate import TickRate
from engine.timing.vsync import PresentEstimate, VsyncDetector, VsyncSettings

__all__ = [
    "NS_PER_MS",
    "NS_PER_S",
    "Cadence",
    "Clock",
    "FrameDecision",
    "FrameDelay",
    "FrameDelaySettings",
    "FrameLimiter",
    "FramePacer",
    "FrameReport",
    "FrameTime",
    "GameLoop",
    "LimitWhen",
    "LimiterSettings",
    "ManualClock",
    "PacerSettings",
    "PacingPolicy",
    "PlanKind",
    "PlanSettings",
    "PresentEstimate",
    "PresentPlan",
    "PresentPlanner",
    "RealClock",
    "TickRate",
    "TimingMode",
    "VsyncDetector",
    "VsyncSettings",
    "WorkEstimate",
    "WorkWindow",
]
