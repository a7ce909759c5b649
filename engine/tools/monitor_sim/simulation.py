"""One simulated run: a pacing policy, driven by the real game loop, against a simulated display.

:func:`simulate` builds a :class:`~engine.timing.GameLoop` with a manual clock whose callbacks
model the costs of updates and rendering (with noise, spikes and a stall) and a
:class:`~engine.tools.monitor_sim.display.SimDisplay` as ``present()``, runs it until the requested number
of updates, and measures what a player would see:

* the seed's digit per vsync (updates since the previous shown vsync, ``0`` for a vsync with no new
  image) and its totals;
* zero-update frames (an image shown with no new state), double updates (two or more);
* drift: game time minus real time with dropped time added back, measured at every frame's start
  once its updates have run (``drift_s`` at the last frame, ``max_abs_drift_s`` the worst);
* motion error: for each shown image, the increase of the game time on screen minus the increase of
  the real time it is shown at, less the run's mean of that difference (a constant rate
  difference is not judder: it is the ``locked`` policy's bend, reported as such, or drift). With
  interpolation, the game time on screen is ``tick time + alpha * step``; without it (``judder``),
  the newest tick's time. Motion error measures pacing in steady state, so hitches are left out:
  the frames the simulation made slow on purpose (a spike, the stall, or a sleep of the loop that
  the heavy-tailed noise woke late) and the frame after each, whose image could not be on time
  whatever the policy, frames where the hitch guard dropped time (reported as dropped time), and
  the start-up frames up to the vsync detector's first verdict and the one after it (where
  ``auto`` leaves ``strict``), or up to frame ``VERDICT_FRAMES`` (120) if no verdict came by then
  (a loop that never decides is judged on what it shows, not left out as error-free);
* presents per second (``fps``) and, with vsync, ``held_vblanks``: vblanks a finished frame waited
  through although it could have been shown at them (a planned hold or the limiter);
  ``discarded_frames``: frames rendered but never presented (too late for their vblank, see
  :meth:`~engine.timing.present_plan.PresentPlanner.discard`); they are no image, and their
  updates count with the next image's (the digits, double and zero-update frames are per image);
* input latency: for an input read at the start of each frame, the time until the first image whose
  state includes it is on screen (the first frame from then on that runs a tick), mean and 99th
  percentile, in steady state as the motion error;
* the vsync detector's verdict and refresh estimate, and when they became right.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine.timing import (
    FrameDelay,
    GameLoop,
    ManualClock,
    PlanSettings,
    TickRate,
    TimingMode,
    VsyncDetector,
)
from engine.timing.clock import NS_PER_MS, NS_PER_S
from engine.timing.game_loop import PROBE_FRAMES
from engine.tools.monitor_sim.display import (
    DEFAULT_PRESENT_JITTER,
    NoiseModel,
    SimDisplay,
    shown_images,
)
from engine.tools.monitor_sim.policies import build_policy

#: Reference noise: uniform in ±(1/60 * 0.005) s (DESIGN.md §4).
REFERENCE_NOISE_MS = 1000.0 / 60.0 * 0.005
#: Frames within which the first verdict must be right (the verdict goal). Steady state, where
#: motion, vblank error and latency are measured, starts after the first verdict or after these
#: frames, whichever comes first: a loop that never decides is judged on what it shows.
VERDICT_FRAMES = 120


@dataclass(frozen=True, slots=True)
class SimConfig:
    """One run's settings (the command-line flags).

    Attributes:
        policy: Policy name (see :data:`engine.tools.monitor_sim.policies.ALL_POLICIES`).
        refresh_hz: Display refresh rate (the maximum rate with ``vrr``).
        vsync: Whether presents wait for vblank.
        tick_hz: Fixed update rate.
        updates: Run until this many updates.
        noise_ms: Half-range of the uniform wake-up noise after a vblank (the core of ``heavy``).
        noise_model: ``uniform`` or ``heavy`` (see :mod:`engine.tools.monitor_sim.display`).
        update_ms: Cost of one update.
        render_ms: Cost of rendering a frame.
        present_ms: Work inside the present call itself, with vsync or without (0: none; see
            :class:`~engine.tools.monitor_sim.display.SimDisplay`).
        present_jitter: How much one present's work varies, a fraction of ``present_ms`` either
            way (0-1; each copy drawn uniformly within it).
        spike_ms: Extra render cost of every ``spike_every``-th frame.
        spike_every: Period of the spikes in frames (0: none).
        stall_s: Extra render cost of frame ``stall_at`` (0: none).
        stall_at: Frame of the stall.
        vsync_off_at: Frame from which vsync is off (``None``: never).
        vsync_on_at: Frame until which vsync is off (``None``: never).
        vrr: Variable refresh display.
        queue_depth: Frames that may wait for their vblank with vsync on (1: a present returns
            when its own image flips; see :class:`~engine.tools.monitor_sim.display.SimDisplay`).
        mailbox: A compositor: presents never block, each vblank shows the newest image.
        frame_delay: Frames just in time for our policies but ``strict``: ``"auto"``, ``"off"``
            or milliseconds (see :mod:`engine.timing.frame_delay`).
        aim: Our policies (but ``strict``, which never does) may aim a frame at a vblank its
            work might miss and discard it when it does (``PlanSettings.aim``); ``False`` holds
            for the vblank the work surely makes (``--hold``).
        reported_hz: Refresh rate the OS reports (``None``: the refresh rounded to whole Hz; 0:
            none). Our policies' limiter paces at it (the tick rate without one).
        phase: ``aligned`` (clock and vblank grid start together at 0) or ``random``.
        seed: Random seed.
        probe_frames: Start-up present-only frames of the game loop.
    """

    policy: str = "auto"
    refresh_hz: float = 60.0
    vsync: bool = True
    tick_hz: float = 60.0
    updates: int = 10_000
    noise_ms: float = REFERENCE_NOISE_MS
    noise_model: str = "uniform"
    update_ms: float = 0.01
    render_ms: float = 5.0
    present_ms: float = 0.0
    present_jitter: float = DEFAULT_PRESENT_JITTER
    spike_ms: float = 0.0
    spike_every: int = 0
    stall_s: float = 0.0
    stall_at: int = 0
    vsync_off_at: int | None = None
    vsync_on_at: int | None = None
    vrr: bool = False
    queue_depth: int = 1
    mailbox: bool = False
    frame_delay: str | float = "off"
    aim: bool = True
    reported_hz: float | None = None
    phase: str = "aligned"
    seed: int = 1
    probe_frames: int = PROBE_FRAMES


@dataclass(slots=True)
class SimResult:
    """Everything measured in one run (the ``--json`` object)."""

    policy: str
    config: dict[str, Any]
    updates: int
    vsyncs: int
    double_updates: int
    zero_update_frames: int
    skipped_renders: int
    game_time_s: float
    system_time_s: float
    drift_s: float
    max_abs_drift_s: float
    max_updates_per_frame: int
    dropped_s: float
    motion_error_rms_ms: float
    motion_error_max_ms: float
    judder_rms_ms: float
    judder_max_ms: float
    vsync_detected: bool | None
    refresh_estimate_hz: float | None
    update_histogram: dict[str, int]
    frames: int
    bend_s: float
    refresh_at_120_hz: float | None
    fps: float
    held_vblanks: int
    latency_mean_ms: float
    latency_p99_ms: float
    vblank_error_rms_ms: float
    vblank_error_max_ms: float
    repeated_vblanks: int
    discarded_frames: int
    verdict_changes: list[tuple[int, bool | None]]
    mode_frames: dict[str, int]
    digits: str = field(repr=False)
    drift_trace: list[tuple[float, float]] = field(repr=False, default_factory=list)
    motion_trace: list[tuple[float, float]] = field(repr=False, default_factory=list)
    update_trace: list[int] = field(repr=False, default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON object (traces and the digit string left out)."""
        data = asdict(self)
        for key in ("digits", "drift_trace", "motion_trace", "update_trace"):
            data.pop(key)
        data["verdict_changes"] = [list(change) for change in self.verdict_changes]
        return data


def _cost(random_01: Callable[[], float], cost_ns: int, noise_ns: float) -> int:
    """A cost with a small noise term (a tenth of the wake-up noise), never negative."""
    cost = cost_ns + round((2.0 * random_01() - 1.0) * noise_ns)
    return cost if cost > 0 else 0


def simulate(config: SimConfig, *, traces: bool = False) -> SimResult:
    """Run one simulation and measure it. Deterministic for a given config."""
    rng = random.Random(config.seed)
    tick_rate = TickRate.from_hz(config.tick_hz)
    refresh = TickRate.from_hz(config.refresh_hz).rate_hz
    period_ns = NS_PER_S / float(refresh)
    if config.phase == "random":
        start_ns = rng.randrange(NS_PER_S, 1000 * NS_PER_S)
        offset_ns = rng.randrange(0, int(period_ns))
    else:
        start_ns = 0
        offset_ns = 0
    noise_ns = round(config.noise_ms * NS_PER_MS)
    cost_noise_ns = noise_ns / 10
    random_01 = rng.random
    clock = ManualClock(start_ns)
    display = SimDisplay(
        clock,
        rng,
        refresh,
        vsync=config.vsync,
        vrr=config.vrr,
        noise_ns=noise_ns,
        offset_ns=offset_ns,
        vsync_off_at=config.vsync_off_at,
        vsync_on_at=config.vsync_on_at,
        noise_model=NoiseModel(config.noise_model),
        reported_hz=config.reported_hz,
        present_ns=round(config.present_ms * NS_PER_MS),
        present_jitter=config.present_jitter,
        queue_depth=config.queue_depth,
        mailbox=config.mailbox,
        seed=config.seed,
    )
    clock.wake_late_ns = display.sleep_lateness_ns
    reported = display.reported_hz
    limiter_hz = TickRate.from_hz(reported).rate_hz if reported else None
    setup = build_policy(config.policy, tick_rate, limiter_hz=limiter_hz)
    pacer = setup.pacer
    frame_delay = None
    if setup.planned and config.policy != TimingMode.STRICT:
        frame_delay = FrameDelay.from_setting(config.frame_delay)

    update_ns = round(config.update_ms * NS_PER_MS)
    render_ns = round(config.render_ms * NS_PER_MS)
    spike_ns = round(config.spike_ms * NS_PER_MS)
    stall_ns = round(config.stall_s * NS_PER_S)
    counters = {"updates": 0}
    shown: list[tuple[int, int | None]] = []
    hitches: set[int] = set()
    work_done: dict[int, int] = {}

    def fixed_update(tick: int) -> None:
        counters["updates"] += 1
        clock.advance(_cost(random_01, update_ns, cost_noise_ns))

    def render(alpha: float) -> None:
        cost = render_ns
        frame = display.frame
        if config.spike_every and frame % config.spike_every == config.spike_every - 1:
            cost += spike_ns
            hitches.add(frame)
        if stall_ns and frame == config.stall_at:
            cost += stall_ns
            hitches.add(frame)
        clock.advance(_cost(random_01, cost, cost_noise_ns))
        work_done[frame] = clock.now_ns()

    def present() -> None:
        shown.append(display.present())  # one entry per present, probes included
        if display.frame in work_done:  # finished once its present's own work is done too
            work_done[display.frame] += display.copy_ns

    loop = GameLoop(
        clock=clock,
        pacer=pacer,
        fixed_update=fixed_update,
        render=render,
        present=present,
        detector=VsyncDetector(nominal_hz=reported),
        limiter=setup.limiter,
        limit_when=setup.limit_when,
        probe_frames=config.probe_frames,
        planned=setup.planned,
        plan_settings=PlanSettings(aim=config.aim),
        frame_delay=frame_delay,
    )
    return _measure(config, loop, display, shown, counters, hitches, work_done, traces)


def _measure(
    config: SimConfig,
    loop: GameLoop,
    display: SimDisplay,
    shown: list[tuple[int, int | None]],
    counters: dict[str, int],
    hitches: set[int],
    work_done: dict[int, int],
    traces: bool,
) -> SimResult:
    """Run the loop to the target and compute every metric from the per-frame record."""
    pacer: Any = loop.pacer
    target = config.updates
    max_frames = max(1000, target * 100)
    reports: list[Any] = []
    game_times: list[int] = []
    game_time = type(pacer).game_time_ns.fget  # a property on every policy
    run_frame = loop.run_frame
    # The loop itself: as little per-frame work as possible, the statistics come afterwards.
    while counters["updates"] < target and loop.frames < max_frames:
        display.frame = loop.frames
        report = run_frame()
        if not report.presented:  # discarded: rendered, never presented (no vblank)
            shown.append((report.present_ns, None))
        reports.append(report)
        game_times.append(game_time(pacer))
    keep = [i for i, r in enumerate(reports) if not r.probe]
    frames = [reports[i] for i in keep]
    presents = [shown[i] for i in keep]
    game_ns = np.array([game_times[i] for i in keep], dtype=np.int64)
    updates = np.array([r.updates for r in frames], dtype=np.int64)
    alpha = np.array([r.alpha for r in frames])
    frame_dropped = np.array([r.dropped_ns for r in frames], dtype=np.int64)
    frame_ns = np.array([r.frame_ns for r in frames], dtype=np.int64)
    shown_at = np.array([p[0] for p in presents], dtype=np.int64)
    presented = np.array([r.presented for r in frames], dtype=bool)
    indices = [p[1] if r.presented else None for p, r in zip(presents, frames, strict=True)]
    start_ns = int(frame_ns[0])

    # drift at each frame's start, after its ticks: game time - real time + dropped so far
    real_ns = frame_ns - start_ns
    drift_ns = game_ns - real_ns + np.cumsum(frame_dropped)
    # game time on screen, with and without interpolation
    ticks = np.cumsum(updates)
    if getattr(pacer, "interpolates", True):
        step_ns = pacer.shown_time_ns(1.0) - pacer.shown_time_ns(0.0)
        shown_game = (ticks - 1 + alpha) * step_ns
        newest_game = ticks * step_ns
    else:
        shown_game = newest_game = game_ns.astype(np.float64)
    # motion error per shown image, left out around the hitches (see the module docstring)
    frame_ids = np.array([r.index for r in frames], dtype=np.int64)
    slow = list(hitches | display.late_sleeps)
    hitch = np.isin(frame_ids, slow) | np.isin(frame_ids - 1, slow)
    decided = next((r.index for r in frames if r.vsync is not None), len(frames))
    decided = min(decided, VERDICT_FRAMES)
    image_ok = ~(hitch | (frame_dropped > 0) | (frame_ids <= decided + 1))
    # the images that were ever on screen (a mailbox drops those superseded before their vblank)
    visible = np.array(shown_images(indices, display.mailbox), dtype=bool) & presented
    valid = image_ok[visible][1:]
    real_step = np.diff(shown_at[visible]).astype(np.float64)
    err = (np.diff(shown_game[visible]) - real_step)[valid]
    jud = (np.diff(newest_game[visible]) - real_step)[valid]
    if err.size:
        err = err - err.mean()
        jud = jud - jud.mean()
    input_ns = np.array(
        [r.frame_ns if r.input_ns is None else r.input_ns for r in frames], dtype=np.int64
    )
    # in steady state, as the motion error
    steady = decided + 2
    latency = _latency_ns(input_ns, shown_at, updates, visible)[steady:]
    held = _held_vblanks(
        display,
        frame_ids[presented],
        [i for i, p in zip(indices, presented.tolist(), strict=True) if p],
        work_done,
    )
    # the updates each presented image shows (a discarded frame's go to the next image)
    image_updates = _image_updates(updates, presented)
    vblank_err, repeated = _vblank_error_ns(
        display,
        shown_at[visible] - start_ns,
        [i for i, v in zip(indices, visible.tolist(), strict=True) if v],
        (shown_game + np.cumsum(frame_dropped))[visible],
        image_ok[visible],
    )

    # the seed's digits: one per vsync, 0 for a vsync with no new image
    digits: list[str] = []
    skipped = 0
    last_index: int | None = None
    image_indices = [i for i, p in zip(indices, presented.tolist(), strict=True) if p]
    for n, index in zip(image_updates.tolist(), image_indices, strict=True):
        if index is not None:
            if last_index is not None and index - last_index > 1:
                gap = index - last_index - 1
                skipped += gap
                digits.append("0" * min(gap, 1000))
            last_index = index
        digits.append(str(n) if n < 10 else "+")
    vsync_indices = [i for i in indices if i is not None]
    vsyncs = vsync_indices[-1] - vsync_indices[0] + 1 if vsync_indices else len(image_indices)

    verdict_changes: list[tuple[int, bool | None]] = []
    mode_frames: dict[str, int] = {}
    verdict: object = "unset"
    for r in frames:
        mode_frames[r.mode] = mode_frames.get(r.mode, 0) + 1
        if r.vsync is not verdict:
            verdict = r.vsync
            verdict_changes.append((r.index, r.vsync))
    refresh_at_120 = frames[119].refresh_hz if len(frames) >= 120 else None
    values, counts = np.unique(image_updates, return_counts=True)

    end_ns = loop.clock.now_ns()
    system_ns = end_ns - start_ns
    detector = loop.detector
    motion_trace: list[tuple[float, float]] = []
    if traces:
        times_s = (shown_at[visible][1:][valid] - start_ns) / NS_PER_S
        motion_trace = list(zip(times_s.tolist(), (err / NS_PER_MS).tolist(), strict=True))
    return SimResult(
        policy=config.policy,
        config=asdict(config),
        updates=counters["updates"],
        vsyncs=vsyncs,
        double_updates=int(np.count_nonzero(image_updates >= 2)),
        zero_update_frames=int(np.count_nonzero(image_updates == 0)),
        skipped_renders=skipped,
        game_time_s=pacer.game_time_ns / NS_PER_S,
        system_time_s=system_ns / NS_PER_S,
        drift_s=int(drift_ns[-1]) / NS_PER_S,
        max_abs_drift_s=int(np.abs(drift_ns).max()) / NS_PER_S,
        max_updates_per_frame=int(updates.max()),
        dropped_s=pacer.dropped_ns / NS_PER_S,
        motion_error_rms_ms=_rms(err) / NS_PER_MS,
        motion_error_max_ms=_max_abs(err) / NS_PER_MS,
        judder_rms_ms=_rms(jud) / NS_PER_MS,
        judder_max_ms=_max_abs(jud) / NS_PER_MS,
        vsync_detected=detector.verdict,
        refresh_estimate_hz=detector.refresh_hz,
        update_histogram={str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
        frames=loop.frames,
        bend_s=getattr(pacer, "bend_ns", 0) / NS_PER_S,
        refresh_at_120_hz=refresh_at_120,
        fps=len(image_indices) / (system_ns / NS_PER_S) if system_ns > 0 else 0.0,
        held_vblanks=held,
        latency_mean_ms=float(latency.mean()) / NS_PER_MS if latency.size else 0.0,
        latency_p99_ms=float(np.percentile(latency, 99)) / NS_PER_MS if latency.size else 0.0,
        vblank_error_rms_ms=_rms(vblank_err) / NS_PER_MS,
        vblank_error_max_ms=_max_abs(vblank_err) / NS_PER_MS,
        repeated_vblanks=repeated,
        discarded_frames=int(np.count_nonzero(~presented)),
        verdict_changes=verdict_changes,
        mode_frames=mode_frames,
        digits="".join(digits),
        drift_trace=list(
            zip((real_ns / NS_PER_S).tolist(), (drift_ns / NS_PER_MS).tolist(), strict=True)
        )
        if traces
        else [],
        motion_trace=motion_trace,
        update_trace=image_updates.tolist() if traces else [],
    )


def _latency_ns(
    input_ns: np.ndarray, shown_at: np.ndarray, updates: np.ndarray, visible: np.ndarray
) -> np.ndarray:
    """Per frame: from the input read in it to the first image on screen showing a tick run
    since (the first visible image from the first ticking frame on), in frame order (the last
    frames, whose input no image shows yet, have none)."""
    ticking = np.flatnonzero(updates > 0)
    first = np.searchsorted(ticking, np.arange(updates.size))
    has = first < ticking.size
    seen = np.flatnonzero(visible)
    shown = np.searchsorted(seen, ticking[first[has]])
    ok = shown < seen.size
    latency: np.ndarray = (shown_at[seen[shown[ok]]] - input_ns[has][ok]).astype(np.float64)
    return latency


def _image_updates(updates: np.ndarray, presented: np.ndarray) -> np.ndarray:
    """Per presented frame, the updates since the previous presented one (a discarded frame's
    updates are shown by the next image)."""
    if presented.all():
        return updates
    total = np.cumsum(updates)[presented]
    result: np.ndarray = np.diff(total, prepend=0)
    return result


def _vblank_error_ns(
    display: SimDisplay,
    shown_rel: np.ndarray,
    indices: list[int | None],
    game_on_screen: np.ndarray,
    image_ok: np.ndarray,
) -> tuple[np.ndarray, int]:
    """The error of what is on screen at every refresh, and how many refreshes repeated an image.

    With vsync, each image stays on screen from its vblank until the next image's vblank, so it is
    sampled at *every* vblank in between: a repeated image counts with the lag it has there (one
    more period at each repeat). Without vsync (or on a variable-refresh panel) an image is on
    screen from its present, sampled once. The error of a sample is the game time on screen (with
    the dropped time added back) minus the sample's real time, less the straight line fitted
    through all of them: a constant lag (interpolation shows one tick late) or a constant rate
    difference (``locked``'s bend) is not what the eye sees as judder; a repeated image or a jump
    is. One line for the samples on the vblank grid and one for those off it: vsync switched
    on or off mid-run changes the lag once (``locked`` keeps whatever phase it locked at), a
    jump the motion error counts once; across both halves a single line counted half of it at
    every vblank of the run (``vsync-on-mid``: 0.03 or 0.31 ms for ``auto`` by the start-up's
    phase alone). Samples of images left out of the motion error (``image_ok`` false: hitches,
    dropped time, start-up), and repeats while the next image was such a hitch, are left out
    here too.

    Returns:
        The residuals in ns, and the number of vblanks (counted ones) that repeated an image.
    """
    count = len(indices)
    if count < 2:
        return np.zeros(0), 0
    k = np.array([-1 if i is None else i for i in indices], dtype=np.int64)
    # how many refreshes each image stays on screen: vblanks to the next image's, else one
    repeats = np.ones(count, dtype=np.int64)
    both = (k[:-1] >= 0) & (k[1:] >= 0)
    repeats[:-1][both] = np.maximum(1, k[1:][both] - k[:-1][both])
    image = np.repeat(np.arange(count), repeats)
    j = np.arange(image.size) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    times = shown_rel[image].astype(np.float64)
    on_grid = k[image] >= 0
    if on_grid.any():  # exact vblank times, as SimDisplay places them
        first = int(k[image][on_grid][0])
        vblank = display.vblank_spans_ns(k[image][on_grid] + j[on_grid] - first)
        times[on_grid] = shown_rel[image][on_grid][0] + vblank.astype(np.float64)
    ok = image_ok[image]
    next_ok = np.append(image_ok[1:], True)
    ok &= (j == 0) | next_ok[image]
    repeated = int(np.count_nonzero(ok & (j > 0)))
    times = times[ok]
    lag = game_on_screen[image][ok] - times
    if lag.size < 3:
        return np.zeros(0), repeated
    # a line through each presentation's samples: on the vblank grid, and off it
    residual: np.ndarray = np.zeros(lag.size)
    regimes = on_grid[ok]
    for regime in (True, False):
        part = regimes == regime
        if np.count_nonzero(part) < 3:
            continue
        t, part_lag = times[part] - times[part].mean(), lag[part] - lag[part].mean()
        slope = float(t @ part_lag) / float(t @ t or 1.0)
        residual[part] = part_lag - slope * t
    return residual, repeated


def _held_vblanks(
    display: SimDisplay, frame_ids: np.ndarray, indices: list[int | None], work_done: dict[int, int]
) -> int:
    """Vblanks that passed while a finished frame waited, though it could have been shown."""
    shown = np.array([-1 if i is None else i for i in indices], dtype=np.int64)
    done = np.array([work_done.get(f, -1) for f in frame_ids.tolist()], dtype=np.int64)
    usable = (shown >= 0) & (done >= 0)
    if not usable.any():
        return 0
    # the first vblank after the work was done
    earliest = display.vblanks_after(done)
    # ... and after the previous image's vblank (one image per vblank)
    previous = np.concatenate(([-1], shown[:-1]))
    earliest = np.where(previous >= 0, np.maximum(earliest, previous + 1), earliest)
    return int(np.maximum(0, shown - earliest)[usable].sum())


def _rms(values: np.ndarray) -> float:
    return float(np.sqrt(np.mean(values * values))) if values.size else 0.0


def _max_abs(values: np.ndarray) -> float:
    return float(np.abs(values).max()) if values.size else 0.0
