"""The simulator's command line: output formats and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

JSON_KEYS = {
    "policy",
    "config",
    "updates",
    "vsyncs",
    "double_updates",
    "zero_update_frames",
    "skipped_renders",
    "game_time_s",
    "system_time_s",
    "drift_s",
    "max_abs_drift_s",
    "max_updates_per_frame",
    "dropped_s",
    "motion_error_rms_ms",
    "motion_error_max_ms",
    "judder_rms_ms",
    "vsync_detected",
    "refresh_estimate_hz",
    "update_histogram",
    "fps",
    "held_vblanks",
    "latency_mean_ms",
    "latency_p99_ms",
    "vblank_error_rms_ms",
    "vblank_error_max_ms",
    "repeated_vblanks",
}


def sim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.tools.monitor_sim", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_text_output_has_the_seed_digits_and_totals() -> None:
    out = sim("--policy", "naive", "--updates", "2000")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert set(lines[0]) <= set("0123456789[.]")
    assert "[...]" in lines[0]  # long runs are cut
    for label in (
        "TOTAL UPDATES: 200",  # 2000, or 2001 when the last frame double-updates
        "TOTAL VSYNCS:",
        "TOTAL DOUBLE UPDATES:",
        "TOTAL SKIPPED RENDERS:",
        "GAME TIME:",
        "SYSTEM TIME:",
        "ZERO-UPDATE FRAMES:",
        "DRIFT:",
        "MAX UPDATES IN ONE FRAME:",
        "DROPPED TIME:",
        "MOTION ERROR:",
        "VSYNC VERDICT: vsync on",
        "REFRESH ESTIMATE:",
        "FRAMES PER SECOND:",
        "INPUT LATENCY:",
    ):
        assert label in out.stdout


def test_json_has_the_documented_keys_and_a_consistent_histogram() -> None:
    out = sim("--policy", "auto", "--refresh-hz", "144", "--updates", "1000", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= JSON_KEYS
    assert data["policy"] == "auto" and data["config"]["refresh_hz"] == 144
    shown = sum(data["update_histogram"].values())
    assert sum(int(k) * v for k, v in data["update_histogram"].items()) == data["updates"]
    assert shown == data["vsyncs"] - data["skipped_renders"]


def test_jitter_flags_reach_the_run() -> None:
    out = sim(
        "--refresh-hz", "144", "--noise-model", "heavy", "--noise-ms", "0.25",
        "--reported-hz", "0", "--vsync-on-at", "100", "--updates", "600", "--json",
        "--present-ms", "0.1",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    config = data["config"]
    assert config["noise_model"] == "heavy" and config["reported_hz"] == 0
    assert config["vsync_on_at"] == 100 and config["present_ms"] == 0.1
    assert [change[1] for change in data["verdict_changes"]] == [None, False, True]
    assert data["fps"] > 100 and data["latency_p99_ms"] >= data["latency_mean_ms"] > 0


def test_plot_writes_a_png(tmp_path: Path) -> None:
    png = tmp_path / "pacing.png"
    out = sim(
        "--policy", "naive,auto", "--refresh-hz", "59.94", "--updates", "1500", "--plot", str(png)
    )
    assert out.returncode == 0, out.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 20_000


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--policy", "fast"], "unknown policy 'fast'"),
        (["--refresh-hz", "0"], "refresh rate must be in 1..1000 Hz"),
        (["--refresh-hz", "1e-300"], "refresh rate must be in 1..1000 Hz"),
        (["--tick-hz", "-60"], "tick rate must be in 1..1000 Hz"),
        (["--tick-hz", "1e308"], "tick rate must be in 1..1000 Hz"),
        (["--render-ms", "-1"], "render cost must be in 0..1000 ms"),
        (["--render-ms", "1e308"], "render cost must be in 0..1000 ms"),
        (["--present-ms", "-4"], "present cost must be in 0..1000 ms"),
        (["--update-ms", "x"], "got 'x': not a number"),
        (["--updates", "0"], "updates must be in 1..1,000,000"),
        (["--updates", "100000000000"], "updates must be in 1..1,000,000"),
        (["--plot", "pacing.txt"], "must be a .png file name"),
        (["--plot", "missing/pacing.png"], "its folder does not exist"),
        (["--matrix", "--plot", "pacing.png"], "does not work with --matrix"),
        (["--sweep-seeds", "1-2", "--plot", "p.png"], "does not work with --sweep-seeds"),
        (["--sweep-seeds", "1-2", "--matrix"], "choose one"),
        (["--survey", "on", "--sweep-seeds", "1-2"], "--sweep-seeds and --survey are two"),
        (["--survey", "on", "--plot", "p.png"], "does not work with --survey"),
        (["--survey", "sideways"], "invalid choice: 'sideways'"),
        (["--survey", "on", "--draws", "0"], "draws must be in 1..100,000"),
        (["--sweep-seeds", "12"], "expected FIRST-LAST (as 1-130), got '12'"),
        (["--sweep-seeds", "5-2"], "the last seed is before the first in '5-2'"),
        (["--sweep-seeds", "a-2"], "got 'a': not a whole number"),
        (["--sweep-seeds", "1-9999999"], "seed must be in 0..1,000,000"),
        (["--phase", "sideways"], "invalid choice"),
        (["--noise-model", "pink"], "invalid choice: 'pink'"),
        (["--reported-hz", "2000"], "reported refresh rate must be in 0..1000 Hz"),
        (["--vsync-on-at", "-1"], "frame must be in 0..100,000,000, got '-1'"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_flags_give_one_line_and_exit_2(args: list[str], needle: str) -> None:
    out = sim(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1
    assert needle in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_presentation_flags_are_one_clear_line() -> None:
    for args, expected in (
        (["--queue-depth", "4"], "queue depth must be in 1..3"),
        (["--frame-delay", "soon"], 'frame delay must be "auto", "off" or 0..50 ms'),
        (["--frame-delay", "99"], 'frame delay must be "auto", "off" or 0..50 ms'),
    ):
        done = sim(*args, "--updates", "10")
        assert done.returncode == 2 and expected in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
