"""Every pacing policy the simulator can run, ours and the seeds' baselines, by name."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from engine.timing import (
    FrameLimiter,
    FramePacer,
    LimitWhen,
    PacerSettings,
    PacingPolicy,
    TickRate,
    TimingMode,
)
from engine.tools.monitor_sim.baselines import BASELINES, AdaptiveInterval

#: Our policies, in the order reports list them.
OURS: tuple[str, ...] = tuple(mode.value for mode in TimingMode)
#: Every policy name the simulator accepts.
ALL_POLICIES: tuple[str, ...] = (*OURS, *BASELINES)


@dataclass(frozen=True, slots=True)
class PolicySetup:
    """A pacer plus the limiter arrangement it runs with.

    Attributes:
        pacer: The pacing policy.
        limiter: The frame limiter, if any.
        limit_when: When the limiter paces.
        planned: Whether the game loop plans presents (ours) or runs as the seeds did.
    """

    pacer: PacingPolicy
    limiter: FrameLimiter | None
    limit_when: LimitWhen
    planned: bool = True


def build_policy(
    name: str,
    tick_rate: TickRate,
    settings: PacerSettings | None = None,
    limiter_hz: Fraction | None = None,
) -> PolicySetup:
    """Build the named policy for ``tick_rate``.

    Our policies get the engine's planned loop and frame limiter (used when vsync is off), at
    ``limiter_hz`` (the display's reported refresh; the tick rate when ``None``), as the engine
    does. The baselines run as the seeds wrote them, as fast as the machine allows, except seed
    000's loop, whose limiter *is* its adaptive render interval.

    Raises:
        KeyError: For an unknown name.
    """
    if name in OURS:
        base = settings or PacerSettings()
        pacer_settings = PacerSettings(
            mode=TimingMode(name),
            max_frame_delta_ns=base.max_frame_delta_ns,
            max_updates_per_frame=base.max_updates_per_frame,
            lock_tolerance=base.lock_tolerance,
        )
        pacer = FramePacer(tick_rate, pacer_settings)
        limiter = FrameLimiter(limiter_hz or tick_rate.rate_hz)
        return PolicySetup(pacer, limiter, LimitWhen.AUTO)
    baseline = BASELINES[name](tick_rate)
    if isinstance(baseline, AdaptiveInterval):
        return PolicySetup(baseline, baseline.limiter, LimitWhen.ALWAYS, planned=False)
    return PolicySetup(baseline, None, LimitWhen.NEVER, planned=False)
