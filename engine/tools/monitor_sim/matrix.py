"""The standard matrix: every policy against every display situation that matters, in both phases.

Cells (each a :class:`~engine.tools.monitor_sim.simulation.SimConfig` on top of the reference model):
vsync on at 50, 59.94, 60, 75, 120, 144, 165 and 240 Hz; vsync off; a 20 ms render at 60 Hz; a
20 ms spike every 300 frames; one 1 s stall; vsync switched off mid-run; and a VRR panel (240 Hz
maximum, so a 5 ms render presents below the maximum and the refresh follows the game).
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from engine.tools.monitor_sim.policies import ALL_POLICIES
from engine.tools.monitor_sim.simulation import SimConfig, SimResult, simulate

#: Frame at which the stall cell stalls and the mid-run cell switches vsync off.
STALL_AT = 1000
VSYNC_OFF_AT = 5000

#: (cell name, changes to the reference model)
CELLS: tuple[tuple[str, dict[str, object]], ...] = (
    *(
        (f"{hz:g}Hz", dict[str, object](refresh_hz=hz))
        for hz in (50.0, 59.94, 60.0, 75.0, 120.0, 144.0, 165.0, 240.0)
    ),
    ("vsync-off", {"vsync": False}),
    ("render-20ms", {"render_ms": 20.0}),
    ("spike", {"spike_ms": 20.0, "spike_every": 300}),
    ("stall-1s", {"stall_s": 1.0, "stall_at": STALL_AT}),
    ("vsync-off-mid", {"vsync_off_at": VSYNC_OFF_AT}),
    ("vrr", {"vrr": True, "refresh_hz": 240.0}),
)

PHASES = ("aligned", "random")


def matrix_configs(
    base: SimConfig, policies: tuple[str, ...] = ALL_POLICIES
) -> list[tuple[str, SimConfig]]:
    """All (cell name, config) pairs of the matrix for ``policies``, on top of ``base``."""
    configs = []
    for policy in policies:
        for phase in PHASES:
            for cell, changes in CELLS:
                config = replace(base, policy=policy, phase=phase, **changes)  # type: ignore[arg-type]
                configs.append((cell, config))
    return configs


def _run(item: tuple[str, SimConfig]) -> tuple[str, SimResult]:
    cell, config = item
    return cell, simulate(config)


def _expected_frames(config: SimConfig) -> float:
    """A rough run length, to start the longest runs first and keep every core busy to the end."""
    if not config.vsync or config.vrr or config.vsync_off_at is not None:
        return 3.0 * config.refresh_hz  # free-running loops present every ~5 ms
    return config.refresh_hz


def run_matrix(
    base: SimConfig, policies: tuple[str, ...] = ALL_POLICIES, workers: int | None = None
) -> list[tuple[str, SimResult]]:
    """Run the matrix on all cores; results come back in matrix order."""
    items = matrix_configs(base, policies)
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        return [_run(item) for item in items]
    order = sorted(range(len(items)), key=lambda i: -_expected_frames(items[i][1]))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_run, [items[i] for i in order]))
    by_index = dict(zip(order, results, strict=True))
    return [by_index[i] for i in range(len(items))]
