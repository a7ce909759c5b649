"""The demo and game commands as a user runs them: output, and one-line errors with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_readme import documented_json_keys


def run(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], capture_output=True, text=True, timeout=300, env=env, cwd=cwd
    )


def no_display_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "ARCADE_HEADLESS", "WAYLAND_DISPLAY")
    }
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[3])
    return env


def test_headless_demo_prints_a_json_summary_and_writes_a_screenshot(tmp_path: Path) -> None:
    shot = tmp_path / "demo.png"
    out = run(
        "engine.tools.demo",
        "--headless",
        "--frames",
        "90",
        "--display-hz",
        "144",
        "--bodies",
        "60",
        "--screenshot",
        str(shot),
        "--json",
        env=no_display_env(),
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == documented_json_keys("engine.tools.demo")
    assert data["frames"] == 90
    assert abs(data["ticks"] - round(89 * 60 / 144)) <= 1
    assert data["vsync_detected"] is True
    assert abs(data["refresh_estimate_hz"] - 144) < 0.01
    assert data["dropped_s"] == 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("module", ["engine.tools.demo", "game"])
def test_without_a_display_it_says_so_in_one_line_and_exits_2(module: str) -> None:
    out = run(module, "--frames", "1", env=no_display_env())
    assert out.returncode == 2
    errors = [line for line in out.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "--headless" in errors[0]
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--frames", "0"], "frames must be in 1..10,000,000, got '0'"),
        (["--display-hz", "-5"], "display rate must be in 1..1000 Hz"),
        (["--set", "timing.mode=fast"], "timing.mode"),
        (["--set", "timing.tick_rate"], "expected section.key=value"),
        (["--config", "missing.toml"], "missing.toml"),
        (["--wat"], "unrecognized arguments"),
    ],
)
def test_bad_flags_and_config_give_one_line_and_exit_2(args: list[str], needle: str) -> None:
    out = run("engine.tools.demo", "--headless", *args, env=no_display_env())
    assert out.returncode == 2, out.stdout
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert needle in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_config_file_names_the_file_key_value_and_allowed(tmp_path: Path) -> None:
    bad = tmp_path / "game.toml"
    bad.write_text("[timing]\nmax_updates_per_frame = 0\n")
    out = run("engine.tools.demo", "--headless", "--config", str(bad), env=no_display_env())
    assert out.returncode == 2
    line = out.stderr.strip()
    assert "game.toml" in line and "timing.max_updates_per_frame" in line and "= 0" in line
    assert "1 <= x <= 100" in line


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="watches /proc")
def test_sigterm_ends_the_demo_with_its_summary() -> None:
    import signal

    from tests.engine.app.test_game_cli import started

    env = no_display_env()
    env["ARCADE_HEADLESS"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "engine.tools.demo", "--headless", "--frames", "999999", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    started(process)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 143 and stderr == ""
    summary = json.loads(stdout)
    assert summary["stopped_by"] == "SIGTERM" and summary["frames"] < 999999
