"""The standard matrix: every policy against every display situation that matters.

Cells on the reference model (:class:`~engine.tools.monitor_sim.simulation.SimConfig`), every policy,
both phases: vsync on at 50, 59.94, 60, 75, 120, 144, 165 and 240 Hz; vsync off; a 20 ms render at
60 Hz; a 20 ms spike every 300 frames; one 1 s stall; vsync switched off mid-run, and switched on
mid-run; a VRR panel with a 240 Hz maximum (a 5 ms render presents below the maximum, so the
refresh follows the game) and one with a 144 Hz maximum and an 8 ms render (the issue's example).

**Jitter rows**, random phase, 3,000 updates each (as the issue's noise sweep), for ``auto``,
``interpolated`` and ``strict`` (the policies the jitter goals are about; ``locked`` is ``auto``
where the refresh allows it): the same refresh rates with ±2 ms of uniform wake-up noise
(``NNHz~2ms``) and with the heavy-tailed model (``NNHz~heavy``: ±0.25 ms, 1 % of wake-ups 2-8 ms
late), vsync off on a 144 Hz display with each noise, and the mid-run switches with ±2 ms (at frame
1500).

**In the world rows** (issue 24), the same way: a reported rate a little off (``60.5Hz/60``,
``61.8Hz/60``), a present that copies for 4 ms (``144Hz+present4``, ``off+present4``), queued
frames (``144Hz-queue2``, ``60Hz-queue3``), a compositor (``mailbox``) and frames just in time
with a 2 ms render (``60Hz-2ms-delay``, ``144Hz-2ms-delay``).

**Default and full.** By default the seeds' loops run in the aligned phase only (the phase of their
published numbers, ``DESIGN.md`` §4), which keeps the matrix at about a minute on two cores; ours
run in both. ``full=True`` (``--matrix --full``) runs every policy in both phases, as
``MATRIX.md`` and the slow matrix tests do.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from engine.tools.monitor_sim.policies import ALL_POLICIES, OURS
from engine.tools.monitor_sim.simulation import SimConfig, SimResult, simulate

#: Frame at which the stall cell stalls and the mid-run cells switch vsync.
STALL_AT = 1000
VSYNC_OFF_AT = 5000
VSYNC_ON_AT = 5000
#: Updates of each jitter row, and the frame at which their mid-run cells switch vsync.
JITTER_UPDATES = 3000
JITTER_SWITCH_AT = 1500

#: The refresh rates of the vsync-on cells.
REFRESH_RATES_HZ = (50.0, 59.94, 60.0, 75.0, 120.0, 144.0, 165.0, 240.0)

#: (cell name, changes to the reference model)
CELLS: tuple[tuple[str, dict[str, object]], ...] = (
    *((f"{hz:g}Hz", dict[str, object](refresh_hz=hz)) for hz in REFRESH_RATES_HZ),
    ("vsync-off", {"vsync": False}),
    ("render-20ms", {"render_ms": 20.0}),
    ("spike", {"spike_ms": 20.0, "spike_every": 300}),
    ("stall-1s", {"stall_s": 1.0, "stall_at": STALL_AT}),
    ("vsync-off-mid", {"vsync_off_at": VSYNC_OFF_AT}),
    ("vsync-on-mid", {"vsync_on_at": VSYNC_ON_AT}),
    ("vrr", {"vrr": True, "refresh_hz": 240.0}),
    ("vrr-144-8ms", {"vrr": True, "refresh_hz": 144.0, "render_ms": 8.0}),
)

#: The two noise models of the jitter rows: ±2 ms uniform, and the heavy-tailed one.
UNIFORM_2MS: dict[str, object] = {"noise_ms": 2.0}
HEAVY: dict[str, object] = {"noise_model": "heavy", "noise_ms": 0.25}

#: (cell name, changes to the reference model) of the jitter rows.
JITTER_CELLS: tuple[tuple[str, dict[str, object]], ...] = (
    *((f"{hz:g}Hz~2ms", {"refresh_hz": hz, **UNIFORM_2MS}) for hz in REFRESH_RATES_HZ),
    *((f"{hz:g}Hz~heavy", {"refresh_hz": hz, **HEAVY}) for hz in REFRESH_RATES_HZ),
    ("vsync-off~2ms", {"vsync": False, "refresh_hz": 144.0, **UNIFORM_2MS}),
    ("vsync-off~heavy", {"vsync": False, "refresh_hz": 144.0, **HEAVY}),
    ("vsync-off-mid~2ms", {"vsync_off_at": JITTER_SWITCH_AT, **UNIFORM_2MS}),
    ("vsync-on-mid~2ms", {"vsync_on_at": JITTER_SWITCH_AT, **UNIFORM_2MS}),
)

#: (cell name, changes to the reference model) of the "in the world" rows (issue 24), random phase,
#: :data:`JITTER_UPDATES` updates, for :data:`JITTER_POLICIES`: a reported rate a little off, a
#: present that takes time (vsync on and off), queued frames, a compositor's mailbox, and frames
#: just in time with a 2 ms render.
WORLD_CELLS: tuple[tuple[str, dict[str, object]], ...] = (
    ("60.5Hz/60", {"refresh_hz": 60.5, "reported_hz": 60.0}),
    ("61.8Hz/60", {"refresh_hz": 61.8, "reported_hz": 60.0}),
    ("144Hz+present4", {"refresh_hz": 144.0, "present_ms": 4.0}),
    ("off+present4", {"vsync": False, "present_ms": 4.0}),
    ("144Hz-queue2", {"refresh_hz": 144.0, "queue_depth": 2}),
    ("60Hz-queue3", {"queue_depth": 3}),
    ("mailbox", {"mailbox": True}),
    ("60Hz-2ms-delay", {"render_ms": 2.0, "frame_delay": "auto"}),
    ("144Hz-2ms-delay", {"refresh_hz": 144.0, "render_ms": 2.0, "frame_delay": "auto"}),
)

PHASES = ("aligned", "random")
#: The phases the seeds' loops run in by default (``full`` runs them in :data:`PHASES`).
SEED_PHASES = ("aligned",)
#: Policies of the jitter rows.
JITTER_POLICIES: tuple[str, ...] = ("auto", "interpolated", "strict")


def matrix_configs(
    base: SimConfig, policies: tuple[str, ...] = ALL_POLICIES, *, full: bool = False
) -> list[tuple[str, SimConfig]]:
    """All (cell name, config) pairs of the matrix for ``policies``, on top of ``base``.

    Without ``full``, the seeds' loops run in :data:`SEED_PHASES` only (see the module docstring).
    """
    configs = []
    for policy in policies:
        for phase in PHASES if full or policy in OURS else SEED_PHASES:
            for cell, changes in CELLS:
                config = replace(base, policy=policy, phase=phase, **changes)  # type: ignore[arg-type]
                configs.append((cell, config))
        if policy in JITTER_POLICIES:
            configs.extend((cell, jitter_config(base, policy, cell)) for cell, _ in JITTER_CELLS)
            configs.extend((cell, world_config(base, policy, cell)) for cell, _ in WORLD_CELLS)
    return configs


def world_config(base: SimConfig, policy: str, cell: str) -> SimConfig:
    """The config of "in the world" row ``cell`` for ``policy`` (as :func:`jitter_config`)."""
    changes = dict(WORLD_CELLS)[cell]
    updates = min(base.updates, JITTER_UPDATES)
    return replace(base, policy=policy, phase="random", updates=updates, **changes)  # type: ignore[arg-type]


def jitter_config(base: SimConfig, policy: str, cell: str) -> SimConfig:
    """The config of jitter row ``cell`` for ``policy`` on top of ``base`` (random phase, at most
    :data:`JITTER_UPDATES` updates; ``base``'s seed)."""
    changes = dict(JITTER_CELLS)[cell]
    updates = min(base.updates, JITTER_UPDATES)
    return replace(base, policy=policy, phase="random", updates=updates, **changes)  # type: ignore[arg-type]


def _run(item: tuple[str, SimConfig]) -> tuple[str, SimResult]:
    cell, config = item
    return cell, simulate(config)


def _expected_frames(config: SimConfig) -> float:
    """A rough run length, to start the longest runs first and keep every core busy to the end."""
    if not config.vsync or config.vrr or config.vsync_off_at is not None:
        return 3.0 * config.refresh_hz  # free-running loops present every ~5 ms
    return config.refresh_hz


def run_matrix(
    base: SimConfig,
    policies: tuple[str, ...] = ALL_POLICIES,
    workers: int | None = None,
    *,
    full: bool = False,
) -> list[tuple[str, SimResult]]:
    """Run the matrix (see :func:`matrix_configs`) on all cores; results come back in matrix order."""
    return run_cells(matrix_configs(base, policies, full=full), workers)


def run_cells(
    items: list[tuple[str, SimConfig]], workers: int | None = None
) -> list[tuple[str, SimResult]]:
    """Simulate every (cell, config) on ``workers`` processes (default: all cores), the longest
    runs first so every core stays busy to the end; results come back in the order given."""
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        return [_run(item) for item in items]
    order = sorted(range(len(items)), key=lambda i: -_expected_frames(items[i][1]))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(_run, [items[i] for i in order], chunksize=4))
    by_index = dict(zip(order, results, strict=True))
    return [by_index[i] for i in range(len(items))]
