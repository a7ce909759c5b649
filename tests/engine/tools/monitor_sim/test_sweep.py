"""The seed sweep: the jitter rows over many seeds, each measure reduced to its worst seed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.tools.monitor_sim.matrix import JITTER_CELLS, jitter_config
from engine.tools.monitor_sim.simulation import SimConfig, simulate
from engine.tools.monitor_sim.sweep import format_sweep, sweep_seeds, verdict_is_right

SHORT = SimConfig(updates=600)
SHORT_FLAGS = ("--updates", "300", "--workers", "2", "--json")


def test_each_column_is_the_worst_seed_of_the_direct_runs() -> None:
    """The sweep's numbers are those of ``simulate`` with the cell's config and that seed."""
    cells = ["144Hz~2ms", "vsync-off~heavy"]
    rows = sweep_seeds(SHORT, [4, 5, 6], cells, workers=2)
    assert [row.cell for row in rows] == cells
    for row in rows:
        runs = {
            seed: {
                policy: simulate(jitter_config(SimConfig(updates=600, seed=seed), policy, row.cell))
                for policy in ("auto", "interpolated", "strict")
            }
            for seed in (4, 5, 6)
        }
        rms = {seed: runs[seed]["auto"].motion_error_rms_ms for seed in runs}
        worst = max(rms, key=lambda seed: (rms[seed], -seed))
        assert (row.auto_rms_ms.value, row.auto_rms_ms.seed) == (rms[worst], worst)
        drift = max(runs[seed]["strict"].max_abs_drift_s * 1000 for seed in runs)
        assert row.strict_drift_ms.value == drift
        assert row.lowest_fps.value == min(runs[seed]["auto"].fps for seed in runs)
        excess = max(
            runs[seed]["auto"].motion_error_rms_ms - runs[seed]["interpolated"].motion_error_rms_ms
            for seed in runs
        )
        assert row.auto_over_interpolated_ms.value == excess
        assert row.seeds == 3 and row.wrong_verdict_seeds == ()
    on, off = rows
    assert on.refresh_error_hz is not None and on.refresh_error_hz.value <= 0.05
    assert off.refresh_error_hz is None  # vsync off: no refresh to estimate
    table = format_sweep(rows)
    assert "144Hz~2ms" in table and "vsync-off~heavy" in table and "wrong" not in table


@pytest.mark.parametrize(
    ("cell", "changes", "right"),
    [
        ("144Hz~2ms", [(0, None), (18, True)], True),
        ("144Hz~2ms", [(0, None), (121, True)], False),  # too late
        ("144Hz~2ms", [(0, None), (18, False)], False),  # wrong
        ("144Hz~2ms", [(0, None), (18, True), (900, False)], False),  # flipped later
        ("144Hz~2ms", [(0, None)], False),  # never decided
        ("144Hz~2ms", [(0, True)], True),  # known from the start-up probes (a swap chain)
        ("144Hz~2ms", [(0, True), (30, None), (40, True)], False),  # undecided again
        ("144Hz~2ms", [(0, None), (18, None)], False),
        ("vsync-off~2ms", [(0, None), (15, False)], True),
        ("vsync-on-mid~2ms", [(0, None), (15, False), (1544, True)], True),
        ("vsync-on-mid~2ms", [(0, None), (15, False), (1564, True)], False),  # over a second
        ("vsync-on-mid~2ms", [(0, None), (15, False)], False),  # switch never noticed
        ("vsync-off-mid~2ms", [(0, None), (16, True), (1523, False)], True),
        ("vsync-off-mid~2ms", [(0, None), (16, True), (1400, False), (1523, True)], False),
    ],
)
def test_a_verdict_is_right_only_if_timely_and_steady(
    cell: str, changes: list[tuple[int, bool | None]], right: bool
) -> None:
    assert dict(JITTER_CELLS)[cell] is not None
    assert verdict_is_right(jitter_config(SimConfig(), "auto", cell), changes, 3000) is right


def test_a_run_that_ends_before_its_switch_is_judged_without_it() -> None:
    config = jitter_config(SimConfig(), "auto", "vsync-on-mid~2ms")  # vsync on at frame 1500
    assert verdict_is_right(config, [(0, None), (15, False)], 600)
    assert not verdict_is_right(config, [(0, None), (15, False)], 3000)


def test_the_command_reports_every_jitter_cell_as_json() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine.tools.monitor_sim", "--sweep-seeds", "7-7", *SHORT_FLAGS],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [row["cell"] for row in rows] == [cell for cell, _ in JITTER_CELLS]
    assert all(row["seeds"] == 1 and row["auto_rms_ms"]["seed"] == 7 for row in rows)
    assert all(row["wrong_verdict_seeds"] == [] for row in rows)  # 300 updates: no switch yet
