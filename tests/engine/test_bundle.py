"""``python -m engine.bundle``: a one-folder PyInstaller build of the game that runs headless."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from engine.bundle import BundleError, arcade_hook_text, game_package, main, pyinstaller_args

ROOT = Path(__file__).resolve().parents[2]


def test_the_game_is_the_package_the_project_files_are_mapped_into(tmp_path: Path) -> None:
    assert game_package(ROOT) == "game"
    with pytest.raises(BundleError, match="cannot read"):
        game_package(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(BundleError, match="maps no game package"):
        game_package(tmp_path)


def test_the_bundle_carries_the_project_files_and_arcades_assets(tmp_path: Path) -> None:
    args = pyinstaller_args(ROOT, "game", tmp_path / "dist", tmp_path / "build")
    data = [args[i + 1] for i, arg in enumerate(args) if arg == "--add-data"]
    assert f"{ROOT / 'levels'}{os.pathsep}game/project_data/levels" in data
    assert args[args.index("--name") + 1] == "game"
    assert "engine.tools" in args and args[-1].endswith("launch_game.py")
    hook = arcade_hook_text()
    assert "arcade/resources/assets/images" in hook and "'arcade')" in hook


def test_a_folder_without_a_game_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--project", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "pyproject.toml" in err


def ensure_pyinstaller() -> None:
    """Install the ``bundle`` extra's PyInstaller here if it is missing (CI has it only now)."""
    if importlib.util.find_spec("PyInstaller") is not None:
        return
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", *extras["optional-dependencies"]["bundle"]],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-2000:]


@pytest.mark.slow
def test_the_sample_game_bundles_and_runs_headless_from_anywhere(tmp_path: Path) -> None:
    ensure_pyinstaller()
    started = time.monotonic()
    folders = ["--dist", str(tmp_path / "dist"), "--build", str(tmp_path / "build")]
    built = subprocess.run(
        [sys.executable, "-m", "engine.bundle", *folders],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    program = tmp_path / "dist" / "game" / "game"
    assert re.match(rf"built {tmp_path / 'dist' / 'game'}/ \(\d+ MiB\)", built.stdout)
    build_s = time.monotonic() - started
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "PYTHONPATH")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replay = next((tmp_path / "dist" / "game").rglob("project_data/levels/replays/level1.replay"))
    for flags in (["--frames", "30"], ["--replay", str(replay)]):
        out = subprocess.run(
            [str(program), "--headless", *flags, "--json"],
            cwd=elsewhere,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert out.returncode == 0, out.stderr
        assert out.stderr == ""  # no warnings, no ERROR lines from a misplaced file
        summary = json.loads(out.stdout)
        assert summary["level"] == "First Steps"
    assert summary["completed"] is True and summary["hash_ok"] is True
    size_mb = sum(p.stat().st_size for p in program.parent.rglob("*") if p.is_file()) / 2**20
    print(f"\nbundle: built in {build_s:.0f} s, {size_mb:.0f} MiB")
