"""What the speedrun timer shows: the HUD's lines and each split's delta, as a runner expects them.

A split's **delta** compares the run with the best the runner has done:

* against the **personal best** (the cumulative time of the best full run at the same split),
  when there is one;
* otherwise against the **sum of best segments** (the golds, "SoB"): the cumulative time of the
  best segment of each level so far. A second run therefore shows deltas even though no run
  has been finished yet, as LiveSplit does with its "Best Segments" comparison;
* nothing (``-``) when some segment so far has never been finished.

The **status line** says whether the run counts: ``strict`` or ``not strict``, the vsync
verdict and the time the hitch guard dropped during the run, with the same words and the same
figure as the F3 overlay (:func:`engine.rendering.frame_stats.vsync_name`,
:func:`~engine.rendering.frame_stats.dropped_text`; a run start marks the overlay's dropped
time, so both count from the same moment). It is green while the run is valid, red when not.

Each line is a :data:`~engine.rendering.hud_text.HudLine`: text and colour (ahead green,
behind red, a gold split gold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.rendering.frame_stats import dropped_text
from engine.rendering.hud_text import HudLine
from engine.speedrun.timer import (
    Comparison,
    SplitResult,
    StrictStatus,
    format_delta_ms,
    ticks_delta_ms,
)
from engine.timing.tick_rate import TickRate

__all__ = ["AHEAD_COLOR", "BEHIND_COLOR", "GOLD_COLOR", "SplitDelta", "split_delta", "status_line"]

RGBA = tuple[int, int, int, int]
AHEAD_COLOR: RGBA = (110, 235, 110, 255)
BEHIND_COLOR: RGBA = (255, 110, 100, 255)
GOLD_COLOR: RGBA = (255, 214, 64, 255)
PLAIN_COLOR: RGBA = (255, 255, 255, 255)


@dataclass(frozen=True, slots=True)
class SplitDelta:
    """A split's delta and what it is measured against.

    Attributes:
        delta_ms: Cumulative time minus the comparison's, in whole ms (negative: ahead), or
            None without a comparison.
        against: ``"PB"``, ``"SoB"`` (sum of best segments) or ``""`` (none).
    """

    delta_ms: int | None
    against: str

    @property
    def text(self) -> str:
        """``"-0.250 vs PB"``, ``"+1.034 vs SoB"``, or ``"-"``."""
        if self.delta_ms is None:
            return "-"
        return f"{format_delta_ms(self.delta_ms)} vs {self.against}"

    @property
    def color(self) -> RGBA:
        """Green ahead (or even), red behind, white without a comparison."""
        if self.delta_ms is None:
            return PLAIN_COLOR
        return AHEAD_COLOR if self.delta_ms <= 0 else BEHIND_COLOR


def split_delta(
    split: SplitResult, split_names: Sequence[str], comparison: Comparison, tick_rate: TickRate
) -> SplitDelta:
    """The split's delta against the personal best, else against the sum of best segments."""
    if split.delta_ms is not None:
        return SplitDelta(split.delta_ms, "PB")
    golds = comparison.best_segment_ticks
    names = split_names[: split.index + 1]
    if not names or any(name not in golds for name in names):
        return SplitDelta(None, "")
    sum_of_best_ticks = sum(golds[name] for name in names)
    return SplitDelta(ticks_delta_ms(tick_rate, split.cumulative_ticks - sum_of_best_ticks), "SoB")


def status_line(status: StrictStatus, vsync: str) -> HudLine:
    """``strict  vsync on  dropped 0.000 s``: green when the run counts, red when not.

    Args:
        status: The run's validity.
        vsync: The vsync verdict's name (:func:`~engine.rendering.frame_stats.vsync_name`).
    """
    mode = "strict" if status.strict else "not strict"
    text = f"{mode}  vsync {vsync}  dropped {dropped_text(status.dropped_ns)}"
    return (text, AHEAD_COLOR if status.valid else BEHIND_COLOR)
