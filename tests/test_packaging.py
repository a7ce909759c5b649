"""What ``pip install .`` ships: every package, and the game's project files inside the game.

``pyproject.toml`` lists the packages (rather than finding them) so the project root can be
mapped into the game as ``game.project_data``; a package left off the list would be missing
from every wheel while an editable install hides it, so this test names it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.small_picture import SMALL_PICTURE_FLAGS

ROOT = Path(__file__).resolve().parents[1]


def listed_packages() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["tool"]["setuptools"]["packages"])


def test_every_package_is_listed_in_pyproject() -> None:
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("engine", "game")
        for init in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    missing = sorted(found - listed_packages())
    assert not missing, f"add {missing} to [tool.setuptools] packages in pyproject.toml"
    assert "game.project_data" in listed_packages()


def shipped_project_files() -> set[Path]:
    """The project files the wheel ships: ``game.project_data``'s package-data globs, expanded."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["game.project_data"]
    return {path for pattern in globs for path in ROOT.glob(pattern) if path.is_file()}


def test_every_level_file_ships_in_the_wheel() -> None:
    # levels/screenshots/ are the README's pictures, not the game's.
    files = {
        path
        for path in (ROOT / "levels").rglob("*")
        if path.is_file() and "screenshots" not in path.relative_to(ROOT).parts
    }
    missing = sorted(str(path.relative_to(ROOT)) for path in files - shipped_project_files())
    assert not missing, f"add globs for {missing} to game.project_data's package data"


@pytest.mark.slow
def test_the_wheel_holds_the_game_and_runs_from_any_folder(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for level in sorted((ROOT / "levels").glob("level*.json")):
        assert f"game/project_data/levels/{level.name}" in names
        assert f"game/project_data/levels/replays/{level.stem}.replay" in names
    assert "game/project_data/levels/tiles/tiles.tsj" in names
    for folder in ("backgrounds", "music"):
        for path in sorted((ROOT / "levels" / folder).iterdir()):
            assert f"game/project_data/levels/{folder}/{path.name}" in names
    assert "game/project_data/levels/CREDITS.md" in names
    assert "engine/timing/game_loop.py" in names and "game/entities/player.py" in names
    assert not [name for name in names if name.startswith(("levels/", "tests/"))]
    # Installed from the wheel (not editable), the game plays its levels from anywhere.
    target = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), wheel],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replay = target / "game" / "project_data" / "levels" / "replays" / "level2.replay"
    small = SMALL_PICTURE_FLAGS
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"} | {"PYTHONPATH": str(target)}
    out = subprocess.run(
        # the small picture: the subject is the levels found and played, not the pixels
        [sys.executable, "-m", "game", "--headless", "--replay", str(replay), "--json", *small],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["completed"] is True
    where = subprocess.run(
        [sys.executable, "-c", "from game.definition import GAME; print(GAME.files.levels_dir())"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert Path(where.stdout.strip()) == target / "game" / "project_data" / "levels"
