"""Tests for engine.tools.bench: its flags, the physics section's scenes and rows, the render section.

The sections run at tiny sizes here: these tests check what the rows mean and that the
comparisons are fair, not how fast anything is (engine/tools/README.md has the measured figures).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from engine.tools import physics_bench, render_bench
from engine.tools.bench import MAX_SIZE, main
from engine.tools.physics_bench import BODY_SIZE_PX, bench_physics, make_scene
from engine.tools.render_bench import bench_render, format_render


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.tools.bench", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


# ------------------------------------------------------------------------------ flags


def test_a_huge_size_is_one_line_and_exit_2_not_a_memory_error() -> None:
    out = run_bench("--sizes", "100000000000")
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr == (
        "python -m engine.tools.bench: error: argument --sizes: size must be in "
        f"1..{MAX_SIZE:,}, got '100000000000' (see --help)\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--sizes", "0"), "size must be in 1..100,000, got '0'"),
        (("--sizes", "ten"), "got 'ten': not a whole number"),
        (("--ticks", "0"), "ticks must be in 1..100,000, got '0'"),
        (("--section", "physic"), "invalid choice: 'physic'"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(
    args: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("python -m engine.tools.bench: error: ")
    assert message in lines[0]


# ----------------------------------------------------------------------------- scenes


def test_spread_scene_bodies_do_not_touch_and_fly_apart() -> None:
    scene = make_scene("spread", 50, seed=1)
    assert len(scene.bodies) == 50
    assert scene.walls_px == ()
    positions = np.array([(b.x_px, b.y_px) for b in scene.bodies])
    velocities = np.array([(b.vx_px_s, b.vy_px_s) for b in scene.bodies])
    gaps = np.linalg.norm(positions[:, None] - positions[None, :], axis=2)
    np.fill_diagonal(gaps, math.inf)
    assert gaps.min() > BODY_SIZE_PX * math.sqrt(2)  # even rotated boxes cannot overlap
    # Every pair moves apart: relative velocity points along relative position.
    separating = np.einsum(
        "ijk,ijk->ij",
        positions[:, None] - positions[None, :],
        velocities[:, None] - velocities[None, :],
    )
    np.fill_diagonal(separating, 1.0)
    assert (separating > 0).all()


def test_piled_scene_bodies_touch_inside_the_walls() -> None:
    scene = make_scene("piled", 30, seed=1)
    size = BODY_SIZE_PX
    positions = np.array([(b.x_px, b.y_px) for b in scene.bodies])
    assert len(scene.walls_px) == 3
    assert positions[:, 1].min() == size / 2  # the bottom row rests on the floor (y = 0)
    neighbours = np.linalg.norm(positions[:, None] - positions[None, :], axis=2)
    np.fill_diagonal(neighbours, math.inf)
    assert (neighbours.min(axis=1) == size).all()  # every box touches another
    assert all(b.vx_px_s == b.vy_px_s == b.spin_rad_s == 0.0 for b in scene.bodies)


def test_unknown_scene_is_rejected() -> None:
    with pytest.raises(ValueError, match="scene must be one of spread, piled"):
        make_scene("stacked", 10, seed=0)


def test_the_same_arguments_give_the_same_scene() -> None:
    assert make_scene("spread", 20, seed=3) == make_scene("spread", 20, seed=3)
    assert make_scene("spread", 20, seed=3) != make_scene("spread", 20, seed=4)


# ---------------------------------------------------------------------- physics rows


@pytest.mark.gl
def test_physics_rows_compare_the_same_motion_in_both_engines(gl_window: Any) -> None:
    rows = bench_physics(argparse.Namespace(sizes=[40], ticks=4))
    assert [(row["scene"], row["n"]) for row in rows] == [("spread", 40), ("piled", 40)]
    for row in rows:
        assert row["max_diff_px"] == 0.0  # the same bodies: bit-identical final positions
        for key in ("arcade_space_step_ms", "arcade_tick_frame_ms", "ours_tick_frame_ms"):
            assert row[key] > 0.0
        assert row["ours_tick_frame_ms"] >= row["ours_space_step_ms"]
        # Both fields are rounded to 4 decimals: the snapshot to 0.1 us, i.e. 0.0025 us a body.
        assert row["ours_beyond_step_us_per_body"] == pytest.approx(
            row["ours_snapshot_ms"] * 1000 / 40, abs=0.1 / 40 + 1e-4
        )
        assert row["speedup"] == pytest.approx(
            row["arcade_tick_frame_ms"] / row["ours_tick_frame_ms"], rel=0.01
        )


@pytest.mark.gl
def test_json_output_holds_the_physics_rows(
    gl_window: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--section", "physics", "--sizes", "12", "--ticks", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["physics"]
    assert [row["n"] for row in data["physics"]] == [12, 12]
    assert gl_window.context is not None  # the bench used the test's window and left it open


@pytest.mark.gl
def test_text_output_has_a_table_and_the_goal_verdicts(
    gl_window: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--section", "physics", "--sizes", "12", "--ticks", "2"]) == 0
    text = capsys.readouterr().out
    assert " spread      12 |" in text
    assert "  piled      12 |" in text
    assert "goal (every row: ours >= 1.3x faster per tick + frame" in text


def row(n: int, snapshot_ms: float, speedup: float) -> dict[str, Any]:
    return {
        "n": n,
        "ours_snapshot_ms": snapshot_ms,
        "ours_beyond_step_us_per_body": snapshot_ms * 1000 / n,
        "speedup": speedup,
    }


def test_goal_verdicts_judge_10k_rows_and_every_speedup() -> None:
    met = physics_bench.goal_verdicts([row(100, 0.02, 2.0), row(10_000, 0.9, 1.5)])
    assert len(met) == 3
    assert all(line.endswith(": met") for line in met)
    slow_snapshot = physics_bench.goal_verdicts([row(10_000, 1.6, 2.0)])
    assert [line.endswith("NOT met") for line in slow_snapshot] == [True, True, False]
    slow_small = physics_bench.goal_verdicts([row(100, 0.02, 1.2)])
    assert slow_small == [
        "goal (every row: ours >= 1.3x faster per tick + frame, worst 1.20x): NOT met"
    ]


# ------------------------------------------------------------------------ render rows


@pytest.mark.slow
def test_render_section_measures_with_the_checks_on_then_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two rounds, not the section's three: the rows combine several children all the same,
    # and each child is a process start (about 1.5 s here).
    monkeypatch.setattr(render_bench, "ROUNDS", 2)
    rows = bench_render(argparse.Namespace(frames=3))
    assert [r["gl_error_checks"] for r in rows] == [True, False]  # the switch took effect
    for r in rows:
        assert r["frames"] == 3
        assert r["rounds"] == 2
        assert 0.0 < r["main_cpu_ms_per_frame"] <= r["cpu_ms_per_frame"]
    assert "checks off against on: main thread CPU per frame" in format_render(rows)
