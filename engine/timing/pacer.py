"""The frame-pacing step: given a frame's timestamp, how many fixed updates to run and what to render.

Each frame the game loop hands the pacer a :class:`FrameTime` (the raw timestamp of the last present
plus what the vsync detector or frame limiter knows about it) and receives a :class:`FrameDecision`:
how many fixed ticks to run, the interpolation ``alpha`` in [0, 1] to render with, and how much time
the hitch guard dropped.

**Exact accounting.** Time is kept in integer units of ``1/num`` ns for a tick rate of ``num/den`` Hz
(see :mod:`engine.timing.tick_rate`), and at every frame::

    game time + dropped + pending == elapsed + bend

where *game time* is ticks x step, *dropped* is what the hitch guard threw away on purpose,
*pending* is time measured but not yet simulated (the classic accumulator), *elapsed* is the
measured frame time, and *bend* is how far the ``locked`` cadence ran the game faster (+) or slower
(-) than real time. Nothing is a float; nothing leaks.

**Round to the nearest tick.** The accumulator runs ``round(pending / step)`` ticks, not
``floor``: pending stays within half a tick of zero, so timestamp noise of a fraction of a tick
(measured presents are never exactly 1/60 s apart) never crosses a tick boundary. With ``floor``,
a loop at 60 Hz on a 60 Hz display sits right at the boundary and double-updates on about a quarter
of all frames (the naive loop in the monitor simulator). Rendering draws the state half a tick
behind real time, ``alpha = pending / step + 1/2``, which is the usual one-tick-late interpolation.
The half is taken 1 ns short (the clock's resolution): a frame exactly on the boundary, read up to
1 ns early by an integer clock or a fitted grid, ticks in every policy alike.

**Policies** (the names are part of the interface, see :class:`TimingMode`):

* ``strict`` — never bends game speed. Game time stays within one tick of real time at every frame,
  apart from time the hitch guard dropped (counted in :attr:`FramePacer.dropped_ns`). Noise-free
  present times from the vsync grid or the limiter are used only while they are within a quarter
  tick of the raw timestamp, which is what guarantees the bound. The speedrun mode.
* ``interpolated`` — the classic fixed step with render interpolation ("fix your timestep"), fed the
  noise-free present times whenever the detector has them, without strict's bound.
* ``locked`` — with vsync on at a refresh within ``lock_tolerance`` of the tick rate or of an
  integer multiple or divisor of it, runs a fixed cadence per vblank: N ticks every vblank or one tick
  every M vblanks. No double or zero-update frames from noise; the game runs at the display's speed
  (59.94 Hz runs the game 0.1 % slow) and the difference is reported as :attr:`FramePacer.bend_ns`.
  Each vblank is accounted as exactly ``N`` steps (or ``1/M`` step), so pending time and alpha stay
  put frame after frame, switching to and from ``strict`` is seamless, and noise never moves a tick.
  A present whose measured interval disagrees with its vblank count (vsync just switched off) is
  accounted as measured time. Falls back to ``strict`` when the display does not allow a cadence.
* ``auto`` — ``locked`` when it can, ``interpolated`` on other vsync'd refresh rates (75, 144 Hz…),
  ``strict`` when vsync is off, unknown, or ignored by the driver.

**Hitch guard.** A frame delta above ``max_frame_delta_ns`` (0.25 s by default) keeps only that much;
more than ``max_updates_per_frame`` ticks runs only that many. The excess is dropped, never kept as a
backlog (a backlog makes every following frame run the cap), and reported. :meth:`FramePacer.resync`
drops whatever time passes until the next frame, for use after a level load.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from engine.timing.tick_rate import TickRate


class TimingMode(StrEnum):
    """The timing policies a game can choose (``[timing] mode`` in the config file)."""

    AUTO = "auto"
    STRICT = "strict"
    LOCKED = "locked"
    INTERPOLATED = "interpolated"


@dataclass(frozen=True, slots=True)
class PacerSettings:
    """How the pacer behaves.

    Attributes:
        mode: The requested policy.
        max_frame_delta_ns: Frame time beyond this is dropped (the spiral-of-death clamp).
        max_updates_per_frame: Ticks beyond this in one frame are dropped.
        lock_tolerance: Relative distance between refresh and tick rate (or a multiple or divisor)
            within which ``locked`` may run its cadence.
    """

    mode: TimingMode = TimingMode.AUTO
    max_frame_delta_ns: int = 250_000_000
    max_updates_per_frame: int = 5
    lock_tolerance: float = 0.01

    def __post_init__(self) -> None:
        if self.max_frame_delta_ns <= 0:
            raise ValueError(f"max_frame_delta_ns must be > 0, got {self.max_frame_delta_ns}")
        if self.max_updates_per_frame < 1:
            raise ValueError(
                f"max_updates_per_frame must be >= 1, got {self.max_updates_per_frame}"
            )
        if not 0 <= self.lock_tolerance <= 0.05:
            raise ValueError(f"lock_tolerance must be in [0, 0.05], got {self.lock_tolerance}")


class FrameTime(NamedTuple):
    """What is known about the moment a frame starts (the previous present).

    Attributes:
        real_ns: Raw timestamp taken after the previous present returned.
        smooth_ns: The frame's time without measurement noise, if known: when its image will be
            shown (a vblank on the vsync grid, or the limiter's deadline) minus the usual frame
            interval, as :mod:`engine.timing.present_plan` plans it; in a steady cadence, the
            previous present's vblank or deadline.
        vblanks: Vblank periods between this frame's planned vblank and the previous frame's, or
            between the two previous presents, if known.
        vsync: The detector's verdict (``None`` while undecided).
        refresh_hz: The detector's refresh estimate while vsync is judged on.
    """

    real_ns: int
    smooth_ns: int | None = None
    vblanks: int | None = None
    vsync: bool | None = None
    refresh_hz: float | None = None


class FrameDecision(NamedTuple):
    """What to do this frame.

    Attributes:
        updates: Fixed ticks to run now.
        alpha: Where to render between the previous tick's state (0) and the newest one (1).
        dropped_ns: Time the hitch guard dropped at this frame.
        mode: The policy that decided this frame (``auto`` resolves to one of the others).
        first_tick: Index of the first tick to run (ticks are numbered from 0).
    """

    updates: int
    alpha: float
    dropped_ns: int
    mode: TimingMode
    first_tick: int


@dataclass(frozen=True, slots=True)
class Cadence:
    """A locked cadence: ``ticks_per_vblank`` ticks each vblank, or one tick every ``vblanks_per_tick``."""

    ticks_per_vblank: int
    vblanks_per_tick: int

    @staticmethod
    def find(tick_hz: float, refresh_hz: float, tolerance: float) -> Cadence | None:
        """Return the cadence that fits ``refresh_hz`` within ``tolerance``, or ``None``."""
        if refresh_hz <= 0:
            return None
        ratio = tick_hz / refresh_hz
        per_vblank = round(ratio)
        if per_vblank >= 1 and abs(ratio - per_vblank) <= tolerance * per_vblank:
            return Cadence(per_vblank, 1)
        per_tick = round(1 / ratio)
        if per_tick >= 2 and abs(1 / ratio - per_tick) <= tolerance * per_tick:
            return Cadence(1, per_tick)
        return None


class FramePacer:
    """Decides, frame by frame, how many fixed ticks to run. See the module docstring.

    Args:
        tick_rate: The fixed update rate.
        settings: Policy and hitch guard.
    """

    __slots__ = (
        "_bend_u",
        "_cadence",
        "_cadence_key",
        "_drop_next",
        "_dropped_u",
        "_elapsed_u",
        "_half_u",
        "_hitch_dropped_u",
        "_last_ns",
        "_max_offset_ns",
        "_pending_u",
        "_step_ns_float",
        "_step_u",
        "_units_per_ns",
        "_vblank_carry_u",
        "mode",
        "settings",
        "tick_rate",
        "ticks",
    )

    def __init__(self, tick_rate: TickRate, settings: PacerSettings | None = None) -> None:
        self.tick_rate = tick_rate
        self.settings = settings or PacerSettings()
        self._step_u = tick_rate.step_units
        self._units_per_ns = tick_rate.units_per_ns
        # Half a tick, less the clock's resolution (1 ns): a frame time that reaches a rounding
        # boundary exactly (two vblanks of 120 Hz are half a 60 Hz tick) lies on it or up to
        # 1 ns short, as the integer clock or a fitted grid happens to round it; both round up.
        self._half_u = self._step_u // 2 + self._units_per_ns
        self._step_ns_float = float(tick_rate.step_ns)
        # strict trusts a noise-free time only this close to the raw one: a quarter tick, <= 2 ms.
        self._max_offset_ns = min(2_000_000, int(tick_rate.step_ns / 4))
        #: Ticks run so far.
        self.ticks = 0
        #: The policy that decided the latest frame.
        self.mode: TimingMode = (
            TimingMode.STRICT if self.settings.mode is TimingMode.AUTO else self.settings.mode
        )
        self._pending_u = 0
        self._dropped_u = 0
        self._hitch_dropped_u = 0
        self._elapsed_u = 0
        self._bend_u = 0
        self._last_ns: int | None = None
        self._drop_next = False
        self._vblank_carry_u = 0
        self._cadence: Cadence | None = None
        self._cadence_key: float | None = None

    # -- accounting, read-only ------------------------------------------------------------------
    @property
    def game_time_ns(self) -> int:
        """Game time of the ticks run so far, whole ns (exact up to the floor)."""
        return self.tick_rate.tick_time_ns(self.ticks)

    @property
    def dropped_ns(self) -> int:
        """Total time dropped by the hitch guard and by :meth:`resync`."""
        return self.tick_rate.units_to_ns(self._dropped_u)

    @property
    def hitch_dropped_ns(self) -> int:
        """The part of :attr:`dropped_ns` the hitch guard dropped (not :meth:`resync`).

        A speedrun is strict-valid only while this stays at zero: a resync after a level
        load drops time on purpose, a hitch drops time the player lived through.
        """
        return self.tick_rate.units_to_ns(self._hitch_dropped_u)

    @property
    def pending_ns(self) -> int:
        """Measured time not yet simulated (within half a tick of zero outside ``locked``)."""
        return self.tick_rate.units_to_ns(self._pending_u)

    @property
    def elapsed_ns(self) -> int:
        """Total frame time measured since the first frame."""
        return self.tick_rate.units_to_ns(self._elapsed_u)

    @property
    def bend_ns(self) -> int:
        """How much more game time than real time the ``locked`` cadence has produced."""
        return self.tick_rate.units_to_ns(self._bend_u)

    @property
    def cadence(self) -> Cadence | None:
        """The locked cadence in use, if the latest frame was locked."""
        return self._cadence if self.mode is TimingMode.LOCKED else None

    def accounts_units(self) -> tuple[int, int, int, int, int]:
        """Exact (game, dropped, pending, elapsed, bend) in units; game+dropped+pending == elapsed+bend."""
        game_u = self.ticks * self._step_u
        return game_u, self._dropped_u, self._pending_u, self._elapsed_u, self._bend_u

    def shown_time_ns(self, alpha: float) -> float:
        """Game time that a render with ``alpha`` shows (between the previous and newest tick)."""
        return (self.ticks - 1 + alpha) * self._step_ns_float

    def ticks_due(self, now_ns: int) -> int:
        """How many ticks a frame at ``now_ns`` would run (before the hitch guard, as measured
        time: the planner compares two moments for a frame with it, and changes nothing)."""
        if self._last_ns is None or now_ns <= self._last_ns:
            return 0
        pending_u = self._pending_u + (now_ns - self._last_ns) * self._units_per_ns
        return int((pending_u + self._half_u) // self._step_u)

    # -- control --------------------------------------------------------------------------------
    def resync(self) -> None:
        """Drop whatever time passes until the next frame (call after a level load or a pause)."""
        self._drop_next = True

    def advance(self, frame: FrameTime) -> FrameDecision:
        """Account one frame and decide its ticks. Never raises, whatever the timestamps."""
        mode = self._resolve(frame)
        self.mode = mode
        first_tick = self.ticks
        now_ns = frame.real_ns
        if frame.smooth_ns is not None and (
            mode is not TimingMode.STRICT or abs(frame.smooth_ns - now_ns) <= self._max_offset_ns
        ):
            now_ns = frame.smooth_ns
        if self._last_ns is None:
            self._last_ns = now_ns
            return FrameDecision(0, self._alpha(), 0, mode, first_tick)
        delta_u = (now_ns - self._last_ns) * self._units_per_ns
        if delta_u <= 0:
            delta_u = 0  # equal or backwards timestamps: no time passed
        else:
            self._last_ns = now_ns
        self._elapsed_u += delta_u
        dropped_before_u = self._dropped_u
        if self._drop_next:
            self._drop_next = False
            self._dropped_u += delta_u
            updates = 0
        else:
            if mode is TimingMode.LOCKED and self._cadence is not None:
                locked_u = self._locked_delta_u(delta_u, frame, self._cadence)
                if locked_u is not None:
                    # The cadence, not the clock, sets game time: the difference is the bend.
                    self._bend_u += locked_u - delta_u
                    delta_u = locked_u
            updates = self._advance_accumulator(delta_u)
        self.ticks += updates
        dropped_ns = (self._dropped_u - dropped_before_u) // self._units_per_ns
        return FrameDecision(updates, self._alpha(), dropped_ns, mode, first_tick)

    # -- policies -------------------------------------------------------------------------------
    def _resolve(self, frame: FrameTime) -> TimingMode:
        requested = self.settings.mode
        if requested is TimingMode.STRICT or requested is TimingMode.INTERPOLATED:
            return requested
        lockable = frame.vsync is True and self._find_cadence(frame.refresh_hz) is not None
        if requested is TimingMode.LOCKED:
            return TimingMode.LOCKED if lockable else TimingMode.STRICT
        if lockable:
            return TimingMode.LOCKED
        return TimingMode.INTERPOLATED if frame.vsync is True else TimingMode.STRICT

    def _find_cadence(self, refresh_hz: float | None) -> Cadence | None:
        if refresh_hz is None:
            self._cadence = None
            self._cadence_key = None
        elif self._cadence_key is None or abs(refresh_hz - self._cadence_key) > 1e-4 * refresh_hz:
            # The estimate moves a little every frame; look again only when it moved by 0.01 %.
            tick_hz = float(self.tick_rate.rate_hz)
            self._cadence = Cadence.find(tick_hz, refresh_hz, self.settings.lock_tolerance)
            self._cadence_key = refresh_hz
        return self._cadence

    def _guard(self, wanted: int) -> int:
        """Cap ticks at ``max_updates_per_frame``; the excess is dropped."""
        cap = self.settings.max_updates_per_frame
        if wanted > cap:
            self._dropped_u += (wanted - cap) * self._step_u
            self._hitch_dropped_u += (wanted - cap) * self._step_u
            return cap
        return wanted

    def _advance_accumulator(self, delta_u: int) -> int:
        max_delta_u = self.settings.max_frame_delta_ns * self._units_per_ns
        if delta_u > max_delta_u:
            self._dropped_u += delta_u - max_delta_u
            self._hitch_dropped_u += delta_u - max_delta_u
            delta_u = max_delta_u
        pending_u = self._pending_u + delta_u
        wanted = (pending_u + self._half_u) // self._step_u
        self._pending_u = pending_u - wanted * self._step_u
        return self._guard(wanted)

    def _locked_delta_u(self, delta_u: int, frame: FrameTime, cadence: Cadence) -> int | None:
        """The frame's time as whole vblanks of exactly ``step * N`` (or ``step / M``), if trusted.

        Only a present that lies on the vsync grid and whose measured delta agrees with its vblank
        count within a quarter tick is quantized; anything else (vsync just switched off, a wrong
        estimate) is measured time, as in ``strict``.
        """
        vblanks = frame.vblanks
        if vblanks is None or vblanks < 1 or not frame.refresh_hz:
            return None
        expected_u = round(vblanks * self._units_per_ns * 1e9 / frame.refresh_hz)
        if abs(delta_u - expected_u) > self._max_offset_ns * self._units_per_ns:
            return None
        if cadence.vblanks_per_tick == 1:
            return vblanks * cadence.ticks_per_vblank * self._step_u
        # step / M per vblank, exactly: carry the remainder of the division to the next frame.
        quantized_u, self._vblank_carry_u = divmod(
            vblanks * self._step_u + self._vblank_carry_u, cadence.vblanks_per_tick
        )
        return quantized_u

    def _alpha(self) -> float:
        alpha = (self._pending_u + self._half_u) / self._step_u
        return 0.0 if alpha < 0.0 else 1.0 if alpha > 1.0 else alpha
