"""Frames just in time: read input and simulate as late as the frame's work allows.

Without a delay every frame starts right after the previous present returns, then renders and
waits for its vblank: an input read at the frame's start reaches the screen a whole refresh
later (16.7 ms at 60 Hz with a 2 ms render), however little the frame costs. RetroArch's *frame
delay* and just-in-time rendering (NVIDIA Reflex) start the frame as late as its work allows.

:class:`FrameDelay` decides, once the present planner has chosen when the frame will be shown
(``display_ns``: the target vblank with vsync on, the limiter's deadline with it off), how long
to sleep before the frame reads input::

    wake = display_ns - (work + present cost + grid uncertainty) - margin

* ``work`` is the planner's :class:`~engine.timing.present_plan.WorkEstimate` (a robust recent
  maximum of input, ticks and render), the present cost is the longest the vsync detector has
  seen or bounded the present call itself to take
  (:attr:`~engine.timing.vsync.VsyncDetector.longest_cost_ns`: a woken frame has no slack for a
  longer copy), and the grid uncertainty how far its vblank times may be off.
* ``margin`` covers what those do not: how late the loop's own sleeps wake up (measured on every
  delayed frame, kept as a robust recent maximum) plus an adaptive part. A frame that misses the
  vblank or deadline it was planned for doubles the adaptive part (and adds ``miss_step_ns``);
  each frame on time lets it fall back by ``decay`` of itself. So the delay adapts when the work
  grows or the machine gets noisier, and creeps back when it calms down.
* A fixed delay in milliseconds (``[timing] frame_delay = 4``) wakes that long after the frame
  could start, but never later than the automatic delay would: a delay too long for the
  frame's work would only miss vblanks.

The game state still changes only inside fixed ticks, and which ticks run is decided from the
planned display time exactly as without a delay, so replays and the speedrun timer are
unchanged; ``strict`` timing runs without a delay (its builders pass none).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.timing.clock import NS_PER_MS
from engine.timing.present_plan import WorkEstimate

#: The config words of ``[timing] frame_delay`` besides a number of milliseconds.
AUTO = "auto"
OFF = "off"
#: The longest fixed delay the config accepts (a frame at 20 Hz).
MAX_FIXED_MS = 50.0


@dataclass(frozen=True, slots=True)
class FrameDelaySettings:
    """Tuning of the frame delay.

    Attributes:
        min_margin_ns: The smallest margin kept on top of the measured sleep lateness.
        max_margin_ns: The largest adaptive margin (a frame never starts earlier than this much
            before the automatic wake time, however often frames missed).
        miss_step_ns: Added to the adaptive margin (after doubling it) when a frame misses.
        decay: Fraction of the adaptive margin dropped per frame shown on time.
        lateness_decay: How fast the sleep lateness estimate falls back (per delayed frame).
    """

    min_margin_ns: int = 150_000
    max_margin_ns: int = 8 * NS_PER_MS
    miss_step_ns: int = 250_000
    decay: float = 0.01
    lateness_decay: float = 0.002


class FrameDelay:
    """Decides when a frame wakes up to read input (see the module docstring).

    Args:
        fixed_ns: A fixed delay after the frame's start, or ``None`` for the automatic delay.
        settings: Tuning.
    """

    __slots__ = ("_adaptive_ns", "fixed_ns", "lateness", "settings")

    def __init__(self, fixed_ns: int | None = None, settings: FrameDelaySettings | None = None):
        self.fixed_ns = fixed_ns
        self.settings = settings or FrameDelaySettings()
        #: How late the loop's sleeps wake up (a robust recent maximum), ns.
        self.lateness = WorkEstimate(self.settings.lateness_decay)
        self._adaptive_ns = 0.0

    @classmethod
    def from_setting(cls, value: str | float) -> FrameDelay | None:
        """The delay the ``[timing] frame_delay`` value asks for (``None`` for ``"off"``).

        Raises:
            ValueError: Neither ``"auto"``, ``"off"`` nor milliseconds in 0..``MAX_FIXED_MS``.
        """
        if value == OFF:
            return None
        if value == AUTO:
            return cls()
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f'frame delay must be "auto", "off" or milliseconds, got {value!r}')
        if not 0 <= value <= MAX_FIXED_MS:
            raise ValueError(f"frame delay must be 0..{MAX_FIXED_MS:g} ms, got {value!r}")
        return cls(round(value * NS_PER_MS))

    @property
    def margin_ns(self) -> int:
        """What the wake time keeps in hand besides the frame's expected work."""
        return self.settings.min_margin_ns + self.lateness.value_ns + round(self._adaptive_ns)

    def wake_ns(self, start_ns: int, display_ns: int, need_ns: int) -> int | None:
        """When the frame that could start at ``start_ns`` should wake, or ``None`` (at once).

        Args:
            start_ns: When the frame could start (the previous present's return).
            display_ns: When the frame is planned to be shown.
            need_ns: The frame's expected work up to its image flipping (work estimate, present
                cost and the vblank grid's uncertainty).
        """
        wake = display_ns - need_ns - self.margin_ns
        if self.fixed_ns is not None:
            wake = min(wake, start_ns + self.fixed_ns)
        return wake if wake > start_ns else None

    def slept(self, asked_ns: int, woke_ns: int) -> None:
        """Record how late a sleep until ``asked_ns`` woke up."""
        self.lateness.add(max(0, woke_ns - asked_ns))

    def shown(self, on_time: bool) -> None:
        """Record whether a delayed frame made the vblank or deadline it was planned for."""
        settings = self.settings
        if on_time:
            self._adaptive_ns -= self._adaptive_ns * settings.decay
        else:
            self._adaptive_ns = min(
                float(settings.max_margin_ns), 2.0 * self._adaptive_ns + settings.miss_step_ns
            )
