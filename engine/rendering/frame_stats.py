"""Frame statistics for the F3 debug overlay: what each number means and why it is there.

:class:`FrameStats` is fed one :class:`~engine.timing.game_loop.FrameReport` per frame and keeps
the last ``window_frames`` frames (``[debug] frame_graph_frames``, 240 by default: four seconds
at 60 Hz) in numpy ring buffers. Nothing grows per frame: :meth:`FrameStats.record` writes a few
scalars into preallocated arrays; the statistics are computed only when asked for (a few times a
second by the overlay). Start-up probe frames (``report.probe``) are not game frames and are
ignored.

The overlay's lines, top to bottom::

    FPS 60.0  frame 16.67 ms (p99 16.90, max 17.10)
    updates/frame 1  (0: 0, 2+: 0 in last 240)
    alpha 0.50
    timing auto -> locked (1 tick/vblank)
    vsync on, 59.940 Hz
    dropped 0.933 s  bend +0.000 s

**FPS** counts the frames presented during the last second, divided by the exact time they took
(from the integer present timestamps, so 60 frames 1/60 s apart read exactly 60.0; a float
accumulator of ``dt`` would drift).

**frame / p99 / max** are the *frame interval*, the time between two presents: what the player
sees. The mean tells you the throughput and hides the problem: 239 frames of 16.67 ms and one of
100 ms still average 17 ms, yet that one frame is a visible hitch. The **p99** (99th percentile:
only 1 % of frames in the window were slower) shows the stutter you *feel*, and **max** shows the
single worst hitch in the window. A healthy vsync'd game has p99 and max close to the mean.

**updates/frame** is how many fixed ticks the last frame ran (the histogram counts the window).
At a 60 Hz tick on a 60 Hz display it should be 1 on every frame. A frame with **0** updates
shows the same game state twice; a frame with **2+** updates skips a state. Either one moves
objects unevenly across the screen: *judder*, even at a perfect 60 FPS. The counts in brackets
are how many such frames the window holds. With a locked cadence of one tick every two vblanks
(a 120 Hz display) half the frames run 0 updates by design; ``timing`` shows the cadence.

**alpha** is the interpolation factor the last frame was rendered with: where between the
previous tick's state (0) and the newest one (1) the picture was drawn.

**timing** is the requested policy and, after the arrow, the one that decided the last frame
(``auto`` resolves to ``locked``, ``interpolated`` or ``strict``; see
:mod:`engine.timing.pacer`), with the locked cadence if there is one.

**vsync** is the detector's verdict (``detecting`` until it has seen enough presents, the same
word the speedrun HUD uses: :func:`vsync_name`) and its refresh estimate (a "60 Hz" monitor
often runs at 59.940 Hz).

**dropped** is the game time the hitch guard threw away (long stalls) instead of simulating it
as a burst of catch-up ticks, since :meth:`FrameStats.mark_dropped` (a speedrun marks it when a
run starts, so F3 and the speedrun HUD show the same figure, written by :func:`dropped_text`,
rounded *up* to the millisecond); a level load's resync is not dropped play and does not count.
**bend** is how far the locked cadence ran the game ahead of (+) or behind (-) real time.

This module is pure: numpy only, no arcade, so it is tested without a display.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.timing.clock import NS_PER_MS, NS_PER_S


def vsync_name(verdict: bool | None) -> str:
    """The vsync verdict as the player reads it everywhere: ``on``, ``off`` or ``detecting``."""
    if verdict is None:
        return "detecting"
    return "on" if verdict else "off"


def dropped_text(dropped_ns: int) -> str:
    """Dropped time as ``"0.017 s"``, rounded *up* to the millisecond (any drop shows)."""
    dropped_ms = -(-dropped_ns // NS_PER_MS)
    seconds, millis = divmod(dropped_ms, 1000)
    return f"{seconds}.{millis:03d} s"


if TYPE_CHECKING:
    from engine.config import DebugConfig
    from engine.timing.game_loop import FrameReport
    from engine.timing.pacer import FramePacer

__all__ = ["DEFAULT_WINDOW_FRAMES", "FrameStats", "dropped_text", "vsync_name"]

DEFAULT_WINDOW_FRAMES = 240
"""Frames kept when no config is given (``[debug] frame_graph_frames``)."""

FPS_WINDOW_NS = NS_PER_S
"""FPS counts the frames presented within this long before the latest present."""

_PLACEHOLDER = "--"


class FrameStats:
    """Rolling statistics over the last ``window_frames`` game frames. See the module docstring.

    Args:
        window_frames: Frames kept in the ring buffers (the graph's width in frames).
        pacer: The pacer, if the overlay should show the requested mode, the locked cadence
            and the bend. Read when :meth:`lines` is called, never written.
        target_hz: Frame rate aimed at when the display's refresh is unknown (vsync off or
            undecided), used for :attr:`target_frame_ms`; usually the limiter's rate.

    Attributes:
        frames_recorded: Game frames recorded since creation or :meth:`clear`.
        last_updates: Ticks run by the latest frame.
        last_alpha: Alpha the latest frame was rendered with.
        mode: Policy that decided the latest frame (``None`` before the first frame).
        vsync: Latest vsync verdict (``None`` while undecided).
        refresh_hz: Latest refresh estimate, if any.
        dropped_total_ns: Sum of ``dropped_ns`` over every recorded frame (exact integer).
        last_present_ns: Present timestamp of the latest frame (``None`` before the first).
        frames_discarded: Frames rendered but not presented (too late for their vblank; see
            :meth:`~engine.timing.present_plan.PresentPlanner.discard`): not in the window, their
            ticks counted with the next presented frame's.
    """

    def __init__(
        self,
        window_frames: int = DEFAULT_WINDOW_FRAMES,
        *,
        pacer: FramePacer | None = None,
        target_hz: float = 60.0,
    ) -> None:
        if window_frames < 2:
            raise ValueError(f"window_frames must be >= 2, got {window_frames}")
        if target_hz <= 0:
            raise ValueError(f"target_hz must be > 0, got {target_hz}")
        self.window_frames = window_frames
        self.pacer = pacer
        self._dropped_mark = 0
        self.target_hz = target_hz
        # Ring buffers: slot ``_head`` is written next; the first ``_count`` slots are valid.
        self._interval_ns = np.zeros(window_frames, dtype=np.int64)
        self._present_ns = np.zeros(window_frames, dtype=np.int64)
        self._updates = np.zeros(window_frames, dtype=np.int64)
        self._cpu_tick_ns = np.zeros(window_frames, dtype=np.int64)
        self._cpu_render_ns = np.zeros(window_frames, dtype=np.int64)
        self._cpu_head = 0
        self._cpu_count = 0
        self._head = 0
        self._count = 0
        self.frames_recorded = 0
        self.last_updates = 0
        self.last_alpha = 0.0
        self.mode: str | None = None
        self.vsync: bool | None = None
        self.refresh_hz: float | None = None
        self.dropped_total_ns = 0
        self.last_present_ns: int | None = None
        self.frames_discarded = 0
        self._carry_updates = 0

    @classmethod
    def from_config(
        cls, debug: DebugConfig, *, pacer: FramePacer | None = None, target_hz: float = 60.0
    ) -> FrameStats:
        """Build with the window length from the ``[debug]`` config section."""
        return cls(debug.frame_graph_frames, pacer=pacer, target_hz=target_hz)

    # -- feeding --------------------------------------------------------------------------------
    def record(self, report: FrameReport) -> None:
        """Add one frame. O(1): a few scalar writes into the preallocated ring buffers.

        The frame interval is this present minus the previous recorded present; for the first
        frame it is measured from ``report.frame_ns`` (the previous present, e.g. the last
        probe's).
        """
        if report.probe:
            return
        if not report.presented:
            # discarded (too late for its vblank): no image, so no interval; its ticks are
            # shown by the next image
            self._carry_updates += report.updates
            self.frames_discarded += 1
            self.dropped_total_ns += report.dropped_ns
            return
        previous_ns = self.last_present_ns if self.last_present_ns is not None else report.frame_ns
        head = self._head
        self._interval_ns[head] = report.present_ns - previous_ns
        self._present_ns[head] = report.present_ns
        self._updates[head] = report.updates + self._carry_updates
        self._carry_updates = 0
        self._head = (head + 1) % self.window_frames
        if self._count < self.window_frames:
            self._count += 1
        self.frames_recorded += 1
        self.last_present_ns = report.present_ns
        self.last_updates = report.updates
        self.last_alpha = report.alpha
        self.mode = str(report.mode)
        self.vsync = report.vsync
        self.refresh_hz = report.refresh_hz
        self.dropped_total_ns += report.dropped_ns

    def record_cpu(self, tick_ns: int, render_ns: int) -> None:
        """Add one frame's main-thread CPU time: in its ticks and in drawing it."""
        head = self._cpu_head
        self._cpu_tick_ns[head] = tick_ns
        self._cpu_render_ns[head] = render_ns
        self._cpu_head = (head + 1) % self.window_frames
        self._cpu_count = min(self._cpu_count + 1, self.window_frames)

    def cpu_ms(self) -> tuple[float, float] | None:
        """Mean main-thread CPU per frame over the window: ``(ticks_ms, render_ms)``."""
        count = self._cpu_count
        if count == 0:
            return None
        return (
            float(self._cpu_tick_ns[:count].mean()) / NS_PER_MS,
            float(self._cpu_render_ns[:count].mean()) / NS_PER_MS,
        )

    def clear(self) -> None:
        """Forget every frame (the totals too), as if just created."""
        self._head = 0
        self._count = 0
        self._cpu_head = 0
        self._cpu_count = 0
        self.frames_recorded = 0
        self.last_updates = 0
        self.last_alpha = 0.0
        self.mode = None
        self.vsync = None
        self.refresh_hz = None
        self.dropped_total_ns = 0
        self.frames_discarded = 0
        self._carry_updates = 0
        if self.pacer is None:
            self._dropped_mark = 0
        self.last_present_ns = None

    # -- statistics over the window ---------------------------------------------------------------
    @property
    def frame_count(self) -> int:
        """Frames in the window now (at most ``window_frames``)."""
        return self._count

    @property
    def target_frame_ms(self) -> float:
        """The frame time to aim for: the refresh period with vsync on, else ``1/target_hz``."""
        if self.vsync and self.refresh_hz:
            return 1000.0 / self.refresh_hz
        return 1000.0 / self.target_hz

    def intervals_ms(self) -> np.ndarray:
        """Frame intervals in ms, oldest first (a new float64 array of :attr:`frame_count`)."""
        count = self._count
        if count < self.window_frames:
            ordered_ns = self._interval_ns[:count]
        else:
            head = self._head
            ordered_ns = np.concatenate((self._interval_ns[head:], self._interval_ns[:head]))
        return ordered_ns / NS_PER_MS

    def fps(self) -> float:
        """Frames presented in the last second divided by the exact time they took (0 if none)."""
        count = self._count
        if count == 0 or self.last_present_ns is None:
            return 0.0
        in_window = self._present_ns[:count] > self.last_present_ns - FPS_WINDOW_NS
        span_ns = int(self._interval_ns[:count][in_window].sum())
        if span_ns <= 0:
            return 0.0
        return int(in_window.sum()) * NS_PER_S / span_ns

    def mean_ms(self) -> float:
        """Mean frame interval over the window, ms (0 if empty)."""
        if self._count == 0:
            return 0.0
        return float(self._interval_ns[: self._count].mean()) / NS_PER_MS

    def p99_ms(self) -> float:
        """99th-percentile frame interval over the window, ms: only 1 % of frames were slower."""
        if self._count == 0:
            return 0.0
        return float(np.percentile(self._interval_ns[: self._count], 99)) / NS_PER_MS

    def max_ms(self) -> float:
        """Longest frame interval in the window, ms (the worst hitch)."""
        if self._count == 0:
            return 0.0
        return float(self._interval_ns[: self._count].max()) / NS_PER_MS

    def updates_histogram(self) -> np.ndarray:
        """Frames in the window by updates run: ``hist[k]`` frames ran ``k`` ticks (length >= 3)."""
        return np.bincount(self._updates[: self._count], minlength=3)

    def zero_update_frames(self) -> int:
        """Frames in the window that ran no tick (showed the same state again)."""
        return int(np.count_nonzero(self._updates[: self._count] == 0))

    def multi_update_frames(self) -> int:
        """Frames in the window that ran two or more ticks (skipped a state)."""
        return int(np.count_nonzero(self._updates[: self._count] >= 2))

    # -- text -----------------------------------------------------------------------------------
    def vsync_text(self) -> str:
        """``"on"``, ``"off"`` or ``"detecting"`` for the latest verdict (:func:`vsync_name`)."""
        return vsync_name(self.vsync)

    def mark_dropped(self) -> None:
        """Count dropped time from now on (:attr:`dropped_ns` starts again at 0)."""
        self._dropped_mark = self._dropped_counter()

    @property
    def dropped_ns(self) -> int:
        """Time the hitch guard dropped since :meth:`mark_dropped` (or since the start)."""
        return self._dropped_counter() - self._dropped_mark

    def _dropped_counter(self) -> int:
        pacer = self.pacer
        return pacer.hitch_dropped_ns if pacer is not None else self.dropped_total_ns

    def timing_text(self) -> str:
        """The policy line: requested mode ``->`` resolved mode, and the locked cadence if any."""
        mode = self.mode or _PLACEHOLDER
        pacer = self.pacer
        if pacer is None:
            return f"timing {mode}"
        requested = str(pacer.settings.mode)
        text = f"timing {mode}" if requested == mode else f"timing {requested} -> {mode}"
        cadence = pacer.cadence
        if cadence is not None:
            if cadence.vblanks_per_tick > 1:
                text += f" (1 tick/{cadence.vblanks_per_tick} vblanks)"
            else:
                ticks = cadence.ticks_per_vblank
                text += f" ({ticks} tick{'s' if ticks > 1 else ''}/vblank)"
        return text

    def compact_lines(self) -> list[str]:
        """The overlay's compact view: frame rate, vsync and dropped time (three short lines)."""
        lines = self.lines()
        fps = f"FPS {self.fps():.0f}  {self.mean_ms():.1f} ms" if self._count else "FPS --"
        return [fps, lines[4], lines[5].split("  bend")[0]]

    def lines(self) -> list[str]:
        """The overlay's text, one string per line (see the module docstring for the meaning)."""
        count = self._count
        if count == 0:
            frame_line = "FPS --  frame -- ms (p99 --, max --)"
            alpha_line = "alpha --"
        else:
            frame_line = (
                f"FPS {self.fps():.1f}  frame {self.mean_ms():.2f} ms "
                f"(p99 {self.p99_ms():.2f}, max {self.max_ms():.2f})"
            )
            alpha_line = f"alpha {self.last_alpha:.2f}"
        updates_line = (
            f"updates/frame {self.last_updates if count else _PLACEHOLDER}  "
            f"(0: {self.zero_update_frames()}, 2+: {self.multi_update_frames()} in last {count})"
        )
        vsync_line = f"vsync {self.vsync_text()}"
        if self.refresh_hz is not None:
            vsync_line += f", {self.refresh_hz:.3f} Hz"
        dropped_line = f"dropped {dropped_text(self.dropped_ns)}"
        if self.pacer is not None:
            dropped_line += f"  bend {self.pacer.bend_ns / NS_PER_S:+.3f} s"
        cpu = self.cpu_ms()
        cpu_line = (
            "cpu/frame --"
            if cpu is None
            else f"cpu/frame {cpu[0] + cpu[1]:.2f} ms (ticks {cpu[0]:.2f}, draw {cpu[1]:.2f})"
        )
        return [
            frame_line,
            updates_line,
            alpha_line,
            self.timing_text(),
            vsync_line,
            dropped_line,
            cpu_line,
        ]
