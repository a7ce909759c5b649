"""Seed sweep: the matrix's jitter rows over many seeds, each measure reduced to its worst seed.

The matrix runs each jitter row with one seed. Noise is random, so one seed can pass while
another starts its vblank grid half a millisecond off and shows frames a refresh late: every grid
fix of issue 11 was found by running the same cells with seeds 1 to 130. This module makes that a
command::

    python -m engine.tools.monitor_sim --sweep-seeds 1-130         # about 15 min on two cores
    python -m engine.tools.monitor_sim --sweep-seeds 1-20 --json

Each jitter row (see :mod:`~engine.tools.monitor_sim.matrix`) runs with ``auto``,
``interpolated`` and ``strict`` for every seed. A row of the report is one cell, and each column
is the worst value over the seeds with the seed that gave it, so ``--seed N`` and the cell's
flags reproduce it. The report gives numbers, not verdicts on goals (the goals are asserted by
``tests/engine/tools/monitor_sim/test_matrix.py``), except for the detector's verdict, which is
either right or wrong: the seeds where it was wrong are listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from engine.tools.monitor_sim.matrix import JITTER_CELLS, jitter_config, run_cells
from engine.tools.monitor_sim.simulation import VERDICT_FRAMES, SimConfig, SimResult

__all__ = ["CellSweep", "Worst", "format_sweep", "sweep_seeds", "verdict_is_right"]

#: Policies run for every cell and seed.
SWEEP_POLICIES = ("auto", "interpolated", "strict")
#: Frames within which a switch of vsync must be noticed (the first verdict: ``VERDICT_FRAMES``).
SWITCH_FRAMES = 60


@dataclass(frozen=True, slots=True)
class Worst:
    """The worst value of one measure over the seeds, and the (first) seed that gave it."""

    value: float
    seed: int


@dataclass(frozen=True, slots=True)
class CellSweep:
    """One jitter cell over the seeds.

    Attributes:
        cell: The jitter row's name (``144Hz~2ms``, ...).
        seeds: How many seeds ran.
        wrong_verdict_seeds: Seeds where ``auto``'s or ``interpolated``'s verdict was wrong (see
            :func:`verdict_is_right`).
        refresh_error_hz: Largest error of the refresh estimate (after 120 frames and at the end,
            both policies), or ``None`` where the display has no fixed refresh at the end.
        auto_rms_ms: Largest motion error RMS of ``auto``.
        auto_over_interpolated_ms: Largest excess of ``auto``'s motion error RMS over
            ``interpolated``'s in the same seed (negative: ``auto`` was always smoother).
        held_share: Largest share of the vblanks that ``auto`` held a finished frame through.
        strict_drift_ms: Largest drift of ``strict`` from real time.
        lowest_fps: Fewest frames a second ``auto`` presented.
    """

    cell: str
    seeds: int
    wrong_verdict_seeds: tuple[int, ...]
    refresh_error_hz: Worst | None
    auto_rms_ms: Worst
    auto_over_interpolated_ms: Worst
    held_share: Worst
    strict_drift_ms: Worst
    lowest_fps: Worst

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the cell."""
        return asdict(self)


def _vsync_over_the_run(config: SimConfig, frames: int) -> tuple[bool, int | None]:
    """Whether the display had vsync at the start, and the frame it switched at, if the run of
    ``frames`` frames reached it."""
    if not config.vsync or config.vrr:
        return False, None  # no switch of vsync has any effect
    switch_at = config.vsync_on_at if config.vsync_on_at is not None else config.vsync_off_at
    if switch_at is not None and frames <= switch_at:
        switch_at = None  # the run ended before the switch
    return config.vsync_on_at is None, switch_at


def verdict_is_right(
    config: SimConfig, verdict_changes: Sequence[tuple[int, bool | None]], frames: int
) -> bool:
    """Whether the detector's verdicts were right for the display ``config`` simulates.

    Right means: the first decided verdict is the display's state at the start and comes within
    :data:`VERDICT_FRAMES` frames; if vsync is switched mid-run (before the run's ``frames``
    ended), exactly one more change follows, to the new state, within :data:`SWITCH_FRAMES`
    frames of the switch; nothing else changes.
    """
    at_start, switch_at = _vsync_over_the_run(config, frames)
    decided = [(frame, verdict) for frame, verdict in verdict_changes if verdict is not None]
    undecided = len(verdict_changes) - len(decided)  # at most the first entry, at the start
    if not decided or undecided > 1 or (undecided and verdict_changes[0][1] is not None):
        return False  # never decided, or undecided after the start
    first_at, first = decided[0]
    if first is not at_start or first_at > VERDICT_FRAMES:
        return False
    if switch_at is None:
        return len(decided) == 1
    if len(decided) != 2:
        return False
    switched_at, switched = decided[1]
    return switched is (not at_start) and switch_at <= switched_at <= switch_at + SWITCH_FRAMES


def _worst(values: Iterable[tuple[float, int]], *, lowest: bool = False) -> Worst:
    """The largest (or smallest) value and its first seed."""
    ordered = sorted(values, key=lambda item: (item[0] if lowest else -item[0], item[1]))
    value, seed = ordered[0]
    return Worst(value, seed)


def _refresh_errors(config: SimConfig, results: Sequence[SimResult]) -> list[float] | None:
    """The refresh estimates' errors, or ``None`` if the display had no vsync at the end."""
    at_start, switch_at = _vsync_over_the_run(config, results[0].frames)
    if at_start == (switch_at is not None):  # off at the end: no refresh to estimate
        return None
    errors = []
    for result in results:
        estimates = [result.refresh_estimate_hz]
        if at_start:  # on from the start: the estimate after 120 frames counts too
            estimates.append(result.refresh_at_120_hz)
        errors += [
            float("inf") if estimate is None else abs(estimate - config.refresh_hz)
            for estimate in estimates
        ]
    return errors


def _reduce(cell: str, runs: dict[int, dict[str, SimResult]], base: SimConfig) -> CellSweep:
    seeds = sorted(runs)
    config = jitter_config(base, "auto", cell)
    wrong = tuple(
        seed
        for seed in seeds
        if not all(
            verdict_is_right(config, runs[seed][policy].verdict_changes, runs[seed][policy].frames)
            for policy in ("auto", "interpolated")
        )
    )
    errors = {
        seed: _refresh_errors(config, [runs[seed]["auto"], runs[seed]["interpolated"]])
        for seed in seeds
    }
    refresh = None
    if all(errors.values()):
        refresh = _worst((error, seed) for seed in seeds for error in errors[seed] or ())
    auto = {seed: runs[seed]["auto"] for seed in seeds}
    return CellSweep(
        cell=cell,
        seeds=len(seeds),
        wrong_verdict_seeds=wrong,
        refresh_error_hz=refresh,
        auto_rms_ms=_worst((r.motion_error_rms_ms, seed) for seed, r in auto.items()),
        auto_over_interpolated_ms=_worst(
            (r.motion_error_rms_ms - runs[seed]["interpolated"].motion_error_rms_ms, seed)
            for seed, r in auto.items()
        ),
        held_share=_worst((r.held_vblanks / max(r.vsyncs, 1), seed) for seed, r in auto.items()),
        strict_drift_ms=_worst(
            (runs[seed]["strict"].max_abs_drift_s * 1000.0, seed) for seed in seeds
        ),
        lowest_fps=_worst(((r.fps, seed) for seed, r in auto.items()), lowest=True),
    )


def sweep_seeds(
    base: SimConfig,
    seeds: Sequence[int],
    cells: Sequence[str] | None = None,
    workers: int | None = None,
) -> list[CellSweep]:
    """Run the jitter ``cells`` (default: all, in matrix order) for every seed; one row per cell.

    ``base`` gives the model (its ``updates`` are capped at the matrix's 3,000, as in the matrix).
    """
    names = [cell for cell, _ in JITTER_CELLS] if cells is None else list(cells)
    items = [
        (cell, jitter_config(replace(base, seed=seed), policy, cell))
        for cell in names
        for seed in seeds
        for policy in SWEEP_POLICIES
    ]
    by_cell: dict[str, dict[int, dict[str, SimResult]]] = {cell: {} for cell in names}
    for (cell, config), (_, result) in zip(items, run_cells(items, workers), strict=True):
        by_cell[cell].setdefault(config.seed, {})[config.policy] = result
    return [_reduce(cell, by_cell[cell], base) for cell in names]


def format_sweep(rows: Sequence[CellSweep]) -> str:
    """The sweep as a text table (each worst value with its seed), then the wrong verdicts."""
    header = (
        f"{'cell':>18} {'seeds':>5} {'verdict':>8} {'refresh_err_hz':>17} {'auto_rms_ms':>16} "
        f"{'auto-interp_ms':>17} {'held':>13} {'strict_drift_ms':>17} {'lowest_fps':>15}"
    )
    lines = [header, "-" * len(header)]

    def cell_of(worst: Worst | None, text: str) -> str:
        return "-" if worst is None else f"{text} s{worst.seed}"

    for row in rows:
        verdict = "ok" if not row.wrong_verdict_seeds else f"{len(row.wrong_verdict_seeds)} wrong"
        refresh = row.refresh_error_hz
        lines.append(
            f"{row.cell:>18} {row.seeds:>5} {verdict:>8} "
            f"{cell_of(refresh, f'{refresh.value:.4f}' if refresh else ''):>17} "
            f"{cell_of(row.auto_rms_ms, f'{row.auto_rms_ms.value:.4f}'):>16} "
            f"{cell_of(row.auto_over_interpolated_ms, f'{row.auto_over_interpolated_ms.value:+.4f}'):>17} "
            f"{cell_of(row.held_share, f'{100 * row.held_share.value:.1f}%'):>13} "
            f"{cell_of(row.strict_drift_ms, f'{row.strict_drift_ms.value:.2f}'):>17} "
            f"{cell_of(row.lowest_fps, f'{row.lowest_fps.value:.1f}'):>15}"
        )
    wrong = [row for row in rows if row.wrong_verdict_seeds]
    for row in wrong:
        seeds = ", ".join(str(seed) for seed in row.wrong_verdict_seeds)
        lines.append(f"wrong verdicts in {row.cell}: seeds {seeds}")
    return "\n".join(lines)
