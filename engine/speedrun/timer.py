"""The speedrun clock: exact in-game time (IGT), real time (RTA), splits, golds and run validity.

Two clocks, two questions:
    **IGT** (in-game time) is *how much game was played*: the number of level ticks that ran,
    times the tick period. The game reports the ticks it ran with :meth:`SpeedrunTimer.add_ticks`,
    so pauses, menus, level loads and time the hitch guard dropped are not in it, because no level
    tick ran then. It is kept as an integer tick count and converted with
    :class:`~engine.timing.tick_rate.TickRate`, so the display is exact on every tick, forever. (A
    float sum ``t += 1/60`` shows a wrong millisecond on 38,545 of the 216,000 ticks of the first
    hour at 60 Hz; ``tests/engine/speedrun/test_timer.py`` measures it.)

    **RTA** (real time attack) is *how long the run took on the wall clock*: monotonic ``now_ns``
    minus the start, including everything. The game passes ``now_ns`` from its clock; nothing
    here reads a global clock.

Splits and comparisons:
    A run is a fixed list of segments (one per level, say). At each level exit the game calls
    :meth:`SpeedrunTimer.split`, which returns a :class:`SplitResult`: the segment's ticks, the
    cumulative IGT, the RTA, the delta against the personal best's cumulative time at that split
    and whether the segment is a *gold* (faster than the best time ever for that segment). Deltas
    are computed in ticks and shown in milliseconds. The personal best and golds come in a
    :class:`Comparison` (see :mod:`engine.speedrun.personal_best`, which stores them).

Display conventions (LiveSplit-like):
    * Times (:func:`format_time_ms`): ``m:ss.mmm`` under an hour, ``h:mm:ss.mmm`` from an hour on,
      always floored to the millisecond (a timer never shows a time not reached yet).
    * Deltas (:func:`format_delta_ms`): ``+`` when behind (slower than the comparison), ``-`` when
      ahead, no sign when exactly even; ``s.mmm`` under a minute (``+0.250``, ``-3.017``),
      ``m:ss.mmm`` under an hour (``-1:02.003``), then ``h:mm:ss.mmm``. A delta of ``d`` ticks is
      shown as ``sign(d) * floor(|d| ticks in ms)``: truncated toward zero, so a one-tick lead and
      a one-tick loss at 60 Hz read ``-0.016`` and ``+0.016``.

Validity (:class:`StrictStatus`):
    A run counts as *strict-valid* when the strict timing mode was active for the whole run (game
    time within one tick of real time) and the hitch guard dropped no time
    (:meth:`SpeedrunTimer.record_dropped_ns`). Level-load time that the game skips on purpose is
    not "dropped" in this sense and should not be recorded. The vsync verdict is shown for
    information (strict timing does not need vsync).

Typical use::

    timer = SpeedrunTimer(TickRate.from_hz(60), ["level1", "level2", "level3"], comparison)
    timer.start(clock.now_ns())
    ...                                   # every frame (report: a GameLoop FrameReport):
    timer.add_ticks(level_ticks)          # level ticks that ran (report.updates; 0 in menus)
    timer.record_dropped_ns(report.dropped_ns)   # hitch-guard drops only, not level loads
    hud.text = timer.igt_text             # "1:02.345"
    ...                                   # at a level exit:
    result = timer.split(clock.now_ns())  # SplitResult; timer.finished after the last one

This module is pure: it imports only the standard library and :mod:`engine.timing`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.timing.clock import NS_PER_MS
from engine.timing.tick_rate import TickRate

_MS_PER_S = 1_000
_MS_PER_MIN = 60_000
_MS_PER_H = 3_600_000


def format_time_ms(ms: int) -> str:
    """Format whole milliseconds as ``m:ss.mmm``, or ``h:mm:ss.mmm`` from one hour on.

    Args:
        ms: A time in whole milliseconds (already floored by the caller); negative values get a
            leading ``-``.

    Returns:
        E.g. ``0 -> "0:00.000"``, ``62_345 -> "1:02.345"``, ``3_600_000 -> "1:00:00.000"``.
    """
    if ms < 0:
        return "-" + format_time_ms(-ms)
    hours, rest = divmod(ms, _MS_PER_H)
    minutes, rest = divmod(rest, _MS_PER_MIN)
    seconds, millis = divmod(rest, _MS_PER_S)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{millis:03d}"
    return f"{minutes}:{seconds:02d}.{millis:03d}"


def format_igt(tick_rate: TickRate, ticks: int) -> str:
    """In-game time of ``ticks`` ticks for display: exact, floored to the ms (``m:ss.mmm``)."""
    return format_time_ms(tick_rate.tick_time_ms(ticks))


def format_delta_ms(ms: int) -> str:
    """Format a signed split delta: ``+`` behind, ``-`` ahead, no sign when even.

    Under a minute the minutes are left out (``+0.250``, ``-3.017``); from a minute on it reads
    like a time (``-1:02.003``, ``+1:00:00.000``).
    """
    if ms == 0:
        return "0.000"
    sign = "+" if ms > 0 else "-"
    size_ms = abs(ms)
    if size_ms < _MS_PER_MIN:
        seconds, millis = divmod(size_ms, _MS_PER_S)
        return f"{sign}{seconds}.{millis:03d}"
    return sign + format_time_ms(size_ms)


def ticks_delta_ms(tick_rate: TickRate, delta_ticks: int) -> int:
    """A tick delta in whole ms, truncated toward zero (so ``+d`` and ``-d`` read alike)."""
    size_ms = tick_rate.tick_time_ms(abs(delta_ticks))
    return size_ms if delta_ticks >= 0 else -size_ms


def _frozen_mapping(values: Mapping[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(values))


@dataclass(frozen=True, slots=True)
class Comparison:
    """What a run is compared against: the personal best and the best segments (golds).

    Attributes:
        pb_cumulative_ticks: Split name -> IGT ticks from the run start to the end of that split
            in the personal-best run. Empty when there is no personal best yet.
        best_segment_ticks: Split name -> fewest ticks that segment was ever played in.
    """

    pb_cumulative_ticks: Mapping[str, int] = field(default_factory=dict, hash=False)
    best_segment_ticks: Mapping[str, int] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for what, values in (
            ("pb_cumulative_ticks", self.pb_cumulative_ticks),
            ("best_segment_ticks", self.best_segment_ticks),
        ):
            for name, ticks in values.items():
                if isinstance(ticks, bool) or not isinstance(ticks, int) or ticks < 0:
                    raise ValueError(f"{what}[{name!r}] must be an int >= 0, got {ticks!r}")
        object.__setattr__(self, "pb_cumulative_ticks", _frozen_mapping(self.pb_cumulative_ticks))
        object.__setattr__(self, "best_segment_ticks", _frozen_mapping(self.best_segment_ticks))


@dataclass(frozen=True, slots=True)
class SplitResult:
    """One finished segment, as the timer saw it at the split.

    Attributes:
        index: Position of the split in the run (0 for the first).
        name: The split's name.
        segment_ticks: Level ticks played in this segment.
        cumulative_ticks: IGT ticks from the run start to this split.
        cumulative_ms: ``cumulative_ticks`` as whole milliseconds (floored): the time shown.
        rta_ns: Real time from the run start to this split.
        delta_ticks: ``cumulative_ticks`` minus the personal best's at this split (negative is
            ahead), or ``None`` without a personal best for this split.
        delta_ms: ``delta_ticks`` in whole ms, truncated toward zero, or ``None``.
        is_gold: The segment beat the best segment (or there was none yet).
    """

    index: int
    name: str
    segment_ticks: int
    cumulative_ticks: int
    cumulative_ms: int
    rta_ns: int
    delta_ticks: int | None
    delta_ms: int | None
    is_gold: bool

    @property
    def time_text(self) -> str:
        """The cumulative IGT, e.g. ``"1:02.345"``."""
        return format_time_ms(self.cumulative_ms)

    @property
    def delta_text(self) -> str:
        """The delta against the personal best, e.g. ``"-0.250"``; ``"-"`` without one."""
        return "-" if self.delta_ms is None else format_delta_ms(self.delta_ms)


@dataclass(frozen=True, slots=True)
class StrictStatus:
    """Whether a run is strict-valid, and one short line that says so.

    Attributes:
        strict: The strict timing mode was active.
        vsync: The vsync verdict: ``"on"``, ``"off"`` or ``"unknown"``.
        dropped_ns: Time the hitch guard dropped so far in the run.
    """

    strict: bool
    vsync: str
    dropped_ns: int

    def __post_init__(self) -> None:
        if self.vsync not in ("on", "off", "unknown"):
            raise ValueError(f'vsync must be "on", "off" or "unknown", got {self.vsync!r}')
        if self.dropped_ns < 0:
            raise ValueError(f"dropped_ns must be >= 0, got {self.dropped_ns}")

    @classmethod
    def from_verdict(
        cls, strict: bool, vsync_verdict: bool | None, dropped_ns: int
    ) -> StrictStatus:
        """Build from a :class:`~engine.timing.vsync.VsyncDetector` verdict (``None``: unknown)."""
        vsync = "unknown" if vsync_verdict is None else ("on" if vsync_verdict else "off")
        return cls(strict, vsync, dropped_ns)

    @property
    def valid(self) -> bool:
        """Strict mode was on and no time was dropped."""
        return self.strict and self.dropped_ns == 0

    @property
    def text(self) -> str:
        """E.g. ``"strict ✓ vsync on  dropped 0.000 s"``.

        Dropped time is rounded *up* to the millisecond, so any dropped time shows as at least
        ``0.001 s``.
        """
        dropped_ms = -(-self.dropped_ns // NS_PER_MS)
        seconds, millis = divmod(dropped_ms, _MS_PER_S)
        mode = "strict" if self.strict else "not strict"
        mark = "✓" if self.valid else "✗"
        return f"{mode} {mark} vsync {self.vsync}  dropped {seconds}.{millis:03d} s"


class SpeedrunTimer:
    """The run's clocks and splits, driven by the game.

    The timer is *ready* until :meth:`start`, *running* until the last :meth:`split`, then
    *finished*; :meth:`reset` makes it ready again. Ticks added while not running are ignored
    (the game may keep running level ticks after the final split, e.g. in an exit animation).

    Args:
        tick_rate: The simulation's tick rate.
        split_names: One unique name per segment, in run order (at least one).
        comparison: The personal best and golds to compare against (default: none).
    """

    __slots__ = (
        "_dropped_ns",
        "_finish_ns",
        "_segment_start_ticks",
        "_splits",
        "_start_ns",
        "_ticks",
        "comparison",
        "split_names",
        "tick_rate",
    )

    def __init__(
        self,
        tick_rate: TickRate,
        split_names: Sequence[str],
        comparison: Comparison | None = None,
    ) -> None:
        names = tuple(split_names)
        if not names:
            raise ValueError("a run needs at least one split name")
        if len(set(names)) != len(names):
            raise ValueError(f"split names must be unique, got {list(names)}")
        self.tick_rate = tick_rate
        self.split_names = names
        self.comparison = comparison if comparison is not None else Comparison()
        self._start_ns: int | None = None
        self._finish_ns: int | None = None
        self._ticks = 0
        self._segment_start_ticks = 0
        self._dropped_ns = 0
        self._splits: list[SplitResult] = []

    # -- state -------------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """:meth:`start` was called since the last reset."""
        return self._start_ns is not None

    @property
    def running(self) -> bool:
        """Started and not finished: ticks count."""
        return self._start_ns is not None and self._finish_ns is None

    @property
    def finished(self) -> bool:
        """The last split is done."""
        return self._finish_ns is not None

    @property
    def splits(self) -> tuple[SplitResult, ...]:
        """The splits done so far, in order."""
        return tuple(self._splits)

    @property
    def current_split_index(self) -> int | None:
        """Index of the segment being played, or ``None`` when not running."""
        return len(self._splits) if self.running else None

    @property
    def current_split_name(self) -> str | None:
        """Name of the segment being played, or ``None`` when not running."""
        index = self.current_split_index
        return None if index is None else self.split_names[index]

    # -- clocks ------------------------------------------------------------------------------

    @property
    def igt_ticks(self) -> int:
        """In-game time in ticks."""
        return self._ticks

    @property
    def igt_ns(self) -> int:
        """In-game time in whole nanoseconds (floored)."""
        return self.tick_rate.tick_time_ns(self._ticks)

    @property
    def igt_ms(self) -> int:
        """In-game time in whole milliseconds (floored): what the timer shows."""
        return self.tick_rate.tick_time_ms(self._ticks)

    @property
    def igt_text(self) -> str:
        """In-game time for display, e.g. ``"1:02.345"``."""
        return format_igt(self.tick_rate, self._ticks)

    @property
    def segment_ticks(self) -> int:
        """Ticks played in the current segment so far."""
        return self._ticks - self._segment_start_ticks

    def rta_ns(self, now_ns: int) -> int:
        """Real time since :meth:`start` (frozen at the last split; 0 before the start)."""
        if self._start_ns is None:
            return 0
        end_ns = self._finish_ns if self._finish_ns is not None else now_ns
        return end_ns - self._start_ns

    def rta_ms(self, now_ns: int) -> int:
        """Real time in whole milliseconds (floored)."""
        return self.rta_ns(now_ns) // NS_PER_MS

    def rta_text(self, now_ns: int) -> str:
        """Real time for display."""
        return format_time_ms(self.rta_ms(now_ns))

    @property
    def dropped_ns(self) -> int:
        """Time the hitch guard dropped during this run."""
        return self._dropped_ns

    def strict_status(self, strict: bool, vsync_verdict: bool | None) -> StrictStatus:
        """This run's validity given the timing mode and the vsync detector's verdict."""
        return StrictStatus.from_verdict(strict, vsync_verdict, self._dropped_ns)

    # -- driving -----------------------------------------------------------------------------

    def start(self, now_ns: int) -> None:
        """Start the run at monotonic time ``now_ns``; IGT and RTA begin at zero."""
        if self._start_ns is not None:
            raise RuntimeError("the timer is already started; reset() it first")
        self._start_ns = now_ns

    def add_ticks(self, ticks: int) -> None:
        """Count ``ticks`` level ticks that ran (ignored unless running)."""
        if ticks < 0:
            raise ValueError(f"ticks must be >= 0, got {ticks}")
        if self.running:
            self._ticks += ticks

    def record_dropped_ns(self, dropped_ns: int) -> None:
        """Add time the hitch guard dropped (ignored unless running)."""
        if dropped_ns < 0:
            raise ValueError(f"dropped_ns must be >= 0, got {dropped_ns}")
        if self.running:
            self._dropped_ns += dropped_ns

    def split(self, now_ns: int) -> SplitResult:
        """End the current segment at ``now_ns``; the last split finishes the run."""
        if not self.running:
            raise RuntimeError("split() needs a running timer (start() it; not finished)")
        assert self._start_ns is not None
        index = len(self._splits)
        name = self.split_names[index]
        segment_ticks = self._ticks - self._segment_start_ticks
        pb_ticks = self.comparison.pb_cumulative_ticks.get(name)
        best_ticks = self.comparison.best_segment_ticks.get(name)
        delta_ticks = None if pb_ticks is None else self._ticks - pb_ticks
        result = SplitResult(
            index=index,
            name=name,
            segment_ticks=segment_ticks,
            cumulative_ticks=self._ticks,
            cumulative_ms=self.igt_ms,
            rta_ns=now_ns - self._start_ns,
            delta_ticks=delta_ticks,
            delta_ms=None if delta_ticks is None else ticks_delta_ms(self.tick_rate, delta_ticks),
            is_gold=best_ticks is None or segment_ticks < best_ticks,
        )
        self._splits.append(result)
        self._segment_start_ticks = self._ticks
        if len(self._splits) == len(self.split_names):
            self._finish_ns = now_ns
        return result

    def reset(self) -> None:
        """Forget the run: ready to :meth:`start` again (the comparison is kept)."""
        self._start_ns = None
        self._finish_ns = None
        self._ticks = 0
        self._segment_start_ticks = 0
        self._dropped_ns = 0
        self._splits.clear()

    @property
    def split_segment_ticks(self) -> tuple[int, ...]:
        """Ticks of each finished segment, in order (what :mod:`engine.speedrun.personal_best` stores)."""
        return tuple(result.segment_ticks for result in self._splits)
