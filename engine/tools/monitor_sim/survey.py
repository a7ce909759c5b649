"""Surveys: fresh displays drawn from a family, one run each, judged draw by draw.

The matrix runs fixed cells and the seed sweep runs the matrix's jitter rows over many seeds;
a survey draws the displays themselves, as issue 24 asks of the goals ("tests over
distributions, not seeds"): the refresh rate, the rate the OS reports, the wake-up noise, the
present's own work, the render, frames just in time or not, the swap chain's depth. Each draw
is one ``auto`` run (random phase, 1,500 updates), judged by the verdict rule the tests use
(:func:`~engine.tools.monitor_sim.sweep.verdict_is_right`). Run one family before and after a
change, with the same ``--seed``, and compare the two draw by draw::

    python -m engine.tools.monitor_sim --survey queue --draws 400 --seed 16 --json > after.jsonl

The families (``FAMILIES``), each 60-240 Hz but ``high``, renders of 1-4 ms, frames just in time or not,
the rate reported as it is, rounded or 0-3 % off, or not at all:

* ``on``: vsync on, the reference noise or up to 0.25 ms; copies 0 (three draws in ten) or 0-6 ms.
* ``heavy``: as ``on`` with a busy desktop (0.25 ms, and 1 % of wake-ups 2-8 ms late).
* ``noisy``: as ``on``, noise a tenth to half a period (2 ms at most), uniform or busy.
* ``queue``: as ``on`` in a swap chain of 2 or 3, noise the reference or up to 1 ms.
* ``qheavy``: a swap chain of 2 or 3, no copy, a busy desktop.
* ``off``: vsync off, copies as ``on``.
* ``nocopy``: as ``on`` without a copy.
* ``high``: 240-360 Hz, vsync on (a chain of 1-3) or off, no copy, the noise as ``on``.
* ``jittery``: vsync on or off, a copy of 0.5-6 ms in every draw that varies by 25-90 % either
  way from one present to the next (a software copy on a busy machine: 3-5 fold here).

The draw is fixed by the seed and the family alone, so the numbers in the monitor simulator's
README ("Where the goals do not hold yet") come back with the seeds given there.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.tools.monitor_sim.display import DEFAULT_PRESENT_JITTER
from engine.tools.monitor_sim.matrix import run_cells
from engine.tools.monitor_sim.simulation import REFERENCE_NOISE_MS, SimConfig
from engine.tools.monitor_sim.sweep import verdict_is_right

__all__ = ["FAMILIES", "SurveyRow", "draw_display", "format_survey", "run_survey"]

#: The families a survey draws from (see the module docstring).
FAMILIES = ("on", "heavy", "noisy", "queue", "qheavy", "off", "nocopy", "high", "jittery")
#: A draw's run: updates (random phase, the ``auto`` policy).
SURVEY_UPDATES = 1500
#: A run's motion error RMS above this misses the goal (ms).
MOTION_GOAL_MS = 0.05
#: A refresh estimate further off than this misses the goal (Hz).
REFRESH_GOAL_HZ = 0.05


def draw_display(rng: random.Random, family: str) -> SimConfig:
    """One display of ``family``, drawn from ``rng`` (the order of the draws is part of the
    survey's definition: the same seed gives the same displays)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown survey family {family!r}; one of {', '.join(FAMILIES)}")
    refresh_hz = rng.uniform(60, 240)
    off_by = rng.uniform(-0.03, 0.03)
    if family == "high":  # the same draw, mapped onto 240-360 Hz
        refresh_hz = 240 + (refresh_hz - 60) * 120 / 180
    reported_hz = rng.choice([None, 0.0, round(refresh_hz * (1 + off_by), 2)])
    noise_ms = REFERENCE_NOISE_MS if rng.random() < 0.5 else rng.uniform(0, 0.25)
    model = "uniform"
    vsync = True
    copy_ms = 0.0 if rng.random() < 0.3 else rng.uniform(0, 6)
    if family == "heavy":
        model, noise_ms = "heavy", 0.25
        copy_ms = 0.0 if rng.random() < 0.5 else rng.uniform(0, 6)
    elif family == "noisy":
        noise_ms = min(2.0, rng.uniform(0.1, 0.5) * 1000 / refresh_hz)
        model = rng.choice(["uniform", "heavy"])
    elif family == "queue":
        some_ms = rng.uniform(0, 1.0)
        noise_ms = rng.choice([REFERENCE_NOISE_MS, some_ms])
        model = rng.choice(["uniform", "heavy"])
    elif family == "qheavy":
        noise_ms = rng.choice([REFERENCE_NOISE_MS, 0.25])
        model, copy_ms = "heavy", 0.0
    elif family == "off":
        vsync = False
    elif family == "nocopy":
        copy_ms = 0.0
    present_jitter = DEFAULT_PRESENT_JITTER
    if family == "jittery":
        vsync = rng.random() < 0.5
        copy_ms = rng.uniform(0.5, 6)
        present_jitter = round(rng.uniform(0.25, 0.9), 3)
    queue_depth = rng.choice([2, 3]) if family in ("queue", "qheavy") else 1
    if family == "high":
        copy_ms = 0.0
        vsync = rng.random() < 0.5
        queue_depth = rng.choice([1, 2, 3]) if vsync else 1
    render_ms = round(rng.uniform(1, 4), 3)
    frame_delay = rng.choice(["auto", "off"])
    return SimConfig(
        queue_depth=queue_depth,
        refresh_hz=round(refresh_hz, 4),
        reported_hz=reported_hz,
        noise_ms=round(noise_ms, 4),
        noise_model=model,
        vsync=vsync,
        present_ms=round(copy_ms, 3),
        present_jitter=present_jitter,
        render_ms=render_ms,
        frame_delay=frame_delay,
        updates=SURVEY_UPDATES,
        phase="random",
        seed=rng.randrange(1, 10000),
    )


@dataclass(frozen=True, slots=True)
class SurveyRow:
    """One draw and how its run went.

    Attributes:
        config: The display drawn.
        right: Whether the verdict was right (``verdict_is_right``).
        motion_ms: Motion error RMS.
        vblank_ms: Vblank error RMS (what is on screen at every vblank).
        held: Vblanks a finished frame was held through.
        fps: Frames presented per second.
        refresh_estimate_hz: The detector's refresh estimate at the end, or ``None``.
        verdicts: Each change of the verdict, ``(frame, verdict)`` (``None``: undecided, at
            the start).
    """

    config: SimConfig
    right: bool
    motion_ms: float
    vblank_ms: float
    held: int
    fps: float
    refresh_estimate_hz: float | None
    verdicts: tuple[tuple[int, bool | None], ...]

    @property
    def first(self) -> tuple[int, bool] | None:
        """The first decided verdict and its frame, or ``None`` (never decided)."""
        return next(((f, v) for f, v in self.verdicts if v is not None), None)

    @property
    def refresh_missed(self) -> bool:
        """Whether vsync was on and the refresh estimate ended further than ``REFRESH_GOAL_HZ``
        from the display's rate, or missing."""
        estimate = self.refresh_estimate_hz
        return self.config.vsync and (
            estimate is None or abs(estimate - self.config.refresh_hz) > REFRESH_GOAL_HZ
        )

    def to_json(self) -> dict[str, Any]:
        """The draw's settings and results as one flat JSON object."""
        c = self.config
        return {
            "queue_depth": c.queue_depth,
            "refresh_hz": c.refresh_hz,
            "reported_hz": c.reported_hz,
            "noise_ms": c.noise_ms,
            "noise_model": str(c.noise_model),
            "vsync": c.vsync,
            "present_ms": c.present_ms,
            "present_jitter": c.present_jitter,
            "render_ms": c.render_ms,
            "frame_delay": c.frame_delay,
            "seed": c.seed,
            "ok": self.right,
            "rms": round(self.motion_ms, 4),
            "vbl": round(self.vblank_ms, 4),
            "held": self.held,
            "fps": round(self.fps, 1),
            "est": self.refresh_estimate_hz,
            "first": None if self.first is None else list(self.first),
            "nch": len(self.verdicts),
        }


def run_survey(family: str, draws: int, seed: int, workers: int | None = None) -> list[SurveyRow]:
    """Draw ``draws`` displays of ``family`` from ``seed`` and run each (on ``workers``
    processes; default: all cores)."""
    rng = random.Random(seed)
    configs = [draw_display(rng, family) for _ in range(draws)]
    items = [(f"draw {i}", config) for i, config in enumerate(configs)]
    rows = []
    for config, (_, result) in zip(configs, run_cells(items, workers), strict=True):
        rows.append(
            SurveyRow(
                config=config,
                right=verdict_is_right(config, result.verdict_changes, result.frames),
                motion_ms=result.motion_error_rms_ms,
                vblank_ms=result.vblank_error_rms_ms,
                held=result.held_vblanks,
                fps=result.fps,
                refresh_estimate_hz=result.refresh_estimate_hz,
                verdicts=tuple(result.verdict_changes),
            )
        )
    return rows


def format_survey(rows: Sequence[SurveyRow]) -> str:
    """The survey's totals: draws, verdicts wrong, motion over the goal, refresh estimates off
    the goal (vsync on), held vblanks and the vblank error's sum of squares (what the README's
    before/after tables compare), and the wrong draws, one line each."""
    wrong = [row for row in rows if not row.right]
    lines = [
        f"draws {len(rows)}; verdict wrong {len(wrong)}; "
        f"motion over {MOTION_GOAL_MS} ms {sum(row.motion_ms > MOTION_GOAL_MS for row in rows)}; "
        f"refresh off by over {REFRESH_GOAL_HZ} Hz {sum(row.refresh_missed for row in rows)}; "
        f"held vblanks {sum(row.held for row in rows):,}; "
        f"vblank error sum of squares {sum(row.vblank_ms**2 for row in rows):,.1f} ms²"
    ]
    for row in wrong:
        c = row.config
        varies = "" if c.present_jitter == DEFAULT_PRESENT_JITTER else f" +-{c.present_jitter:.0%}"
        lines.append(
            f"  wrong: {c.refresh_hz:.2f} Hz, reported {c.reported_hz}, noise {c.noise_ms} ms "
            f"{c.noise_model}, depth {c.queue_depth}, copy {c.present_ms} ms{varies}, "
            f"render {c.render_ms} ms, delay {c.frame_delay}, "
            f"seed {c.seed}: verdicts {list(row.verdicts)}, vblank error {row.vblank_ms:.3f} ms"
        )
    return "\n".join(lines)
