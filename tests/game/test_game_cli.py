"""``python -m game`` as a player runs it: headless summary, and one-line errors with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def game(*args: str, headless: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS")}
    env["PYTHONPATH"] = str(ROOT)
    flags = ["--headless"] if headless else []
    return subprocess.run(
        [sys.executable, "-m", "game", *flags, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_headless_run_prints_the_summary_object(tmp_path: Path) -> None:
    shot = tmp_path / "level1.png"
    out = game("--frames", "120", "--display-hz", "144", "--json", "--screenshot", str(shot))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["level"] == "First Steps"
    assert data["completed"] is False
    assert abs(data["ticks"] - round(119 * 60 / 144)) <= 1
    assert (
        data["igt"]
        == f"0:{data['ticks'] * 1000 // 60 // 1000:02d}.{data['ticks'] * 1000 // 60 % 1000:03d}"
    )
    assert data["coins"].endswith("/15")  # level 1 has 15 coins
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_text_summary_is_one_line() -> None:
    out = game("--frames", "30")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == [out.stdout.strip()]
    assert out.stdout.startswith("First Steps: not complete, ")


def test_any_bundled_level_can_be_started() -> None:
    out = game("--level", str(ROOT / "levels" / "level6.json"), "--frames", "10", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["level"] == "The Climb"


def test_a_missing_or_broken_level_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"type": "map", "orientation": "orthogonal",')
    for level in (tmp_path / "missing.json", broken):
        out = game("--level", str(level))
        assert out.returncode == 2
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and level.name in lines[0] and "level error" in lines[0]
        assert "Traceback" not in out.stderr


def test_bad_player_tuning_gives_one_line_and_exit_2() -> None:
    out = game("--set", "player.run_speed_px_s=-1")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "player.run_speed_px_s" in out.stderr
