"""Surveys: displays drawn from a family, one run each, judged draw by draw."""

from __future__ import annotations

import json
import random

import pytest

from engine.tools.monitor_sim.cli import main
from engine.tools.monitor_sim.display import DEFAULT_PRESENT_JITTER
from engine.tools.monitor_sim.survey import FAMILIES, draw_display, run_survey


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_draws_the_displays_it_names(family: str) -> None:
    rng = random.Random(7)
    configs = [draw_display(rng, family) for _ in range(300)]
    low, high = (240.0, 360.0) if family == "high" else (60.0, 240.0)
    assert all(low <= c.refresh_hz <= high and 1.0 <= c.render_ms <= 4.0 for c in configs)
    chains = {c.queue_depth for c in configs if c.vsync}
    if family == "high":  # vsync on (chains of 1-3) or off
        assert {c.vsync for c in configs} == {True, False} and chains == {1, 2, 3}
        assert {c.queue_depth for c in configs if not c.vsync} == {1}
    elif family == "jittery":  # vsync on or off, one image in flight
        assert {c.vsync for c in configs} == {True, False} and chains == {1}
    else:
        assert all(c.vsync is (family != "off") for c in configs)
        assert chains == ({2, 3} if family in ("queue", "qheavy") else {1} if chains else set())
    copies = [c.present_ms for c in configs]
    jitters = {c.present_jitter for c in configs}
    if family == "jittery":  # a copy in every draw, varying by 25-90 %
        assert min(copies) >= 0.5 and max(copies) <= 6.0
        assert 0.25 <= min(jitters) < 0.3 and 0.85 < max(jitters) <= 0.9
    else:
        assert jitters == {DEFAULT_PRESENT_JITTER}
    if family in ("nocopy", "qheavy", "high"):
        assert set(copies) == {0.0}
    elif family != "jittery":  # no copy in some draws, up to 6 ms in the rest
        assert 0.0 in copies and 0.0 < max(copies) <= 6.0
    periods_ms = [1000.0 / c.refresh_hz for c in configs]
    shares = [c.noise_ms / p for c, p in zip(configs, periods_ms, strict=True)]
    if family == "noisy":
        assert all(
            0.1 - 1e-4 <= s <= 0.5 + 1e-4 or c.noise_ms == 2.0
            for s, c in zip(shares, configs, strict=True)
        )
    else:
        assert max(c.noise_ms for c in configs) <= (1.0 if family == "queue" else 0.25)
    reported = {
        "none" if c.reported_hz == 0 else "true" if c.reported_hz is None else "near"
        for c in configs
    }
    assert reported == {"none", "true", "near"}
    assert all(
        abs(c.reported_hz - c.refresh_hz) <= 0.031 * c.refresh_hz for c in configs if c.reported_hz
    )


def test_the_same_seed_draws_the_same_displays_and_an_unknown_family_is_refused() -> None:
    first = [draw_display(random.Random(3), "queue") for _ in range(5)]
    again = [draw_display(random.Random(3), "queue") for _ in range(5)]
    assert first == again
    with pytest.raises(ValueError, match="unknown survey family 'pink'"):
        draw_display(random.Random(3), "pink")


def test_a_survey_runs_every_draw_and_judges_it(capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_survey("on", 2, seed=11, workers=1)
    assert len(rows) == 2 and all(row.right for row in rows)
    assert [row.config for row in rows] == [
        draw_display(rng, "on") for rng in [random.Random(11)] for _ in range(2)
    ]
    assert main(["--survey", "on", "--draws", "2", "--seed", "11", "--workers", "1", "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == [row.to_json() for row in rows]
    assert main(["--survey", "on", "--draws", "2", "--seed", "11", "--workers", "1"]) == 0
    summary = capsys.readouterr().out
    assert summary.startswith("draws 2; verdict wrong 0; ") and "on, seed 11: 2 draws" in summary
