"""The timer of normal play: what the Options "Timer" row shows outside speedrun mode.

In speedrun mode the timer is the speedrun's (:mod:`engine.app.speedrun_hud`). In normal play
the same option (``[speedrun] show_timer`` and ``show_rta``) shows a plain timer at the top
right of a level:

* ``TIME 0:12.345``: the in-game time of the run from "Play" (every level and restart so far)
  or of the practice level, exact (level ticks x the tick period); white while under the
  level's par time, red once over it;
* ``REAL 0:13.020`` with "game + real": the wall-clock time since the run or level started,
  menus and pauses included.

Both are read from the session's tick count and the engine's clock as a frame is drawn; they
change nothing in the game.
"""

from __future__ import annotations

from engine.app.speedrun_hud import BEHIND_COLOR, PLAIN_COLOR
from engine.rendering.hud_text import HudLine
from engine.speedrun.timer import format_igt, format_time_ms
from engine.timing.tick_rate import TickRate

__all__ = ["level_timer_lines"]


def level_timer_lines(
    tick_rate: TickRate,
    run_ticks: int,
    level_ticks: int,
    par_ticks: int | None,
    real_ns: int | None,
) -> list[HudLine]:
    """The normal-play timer's lines.

    Args:
        tick_rate: The game's tick rate.
        run_ticks: Level ticks of the run (or practice level) so far.
        level_ticks: Ticks of the current attempt at the current level (compared with par).
        par_ticks: The level's par time in ticks, or None.
        real_ns: Wall time since the run started, or None to leave out the ``REAL`` line.
    """
    over_par = par_ticks is not None and level_ticks > par_ticks
    lines: list[HudLine] = [
        (f"TIME {format_igt(tick_rate, run_ticks)}", BEHIND_COLOR if over_par else PLAIN_COLOR)
    ]
    if real_ns is not None:
        lines.append(f"REAL {format_time_ms(max(real_ns, 0) // 1_000_000)}")
    return lines
