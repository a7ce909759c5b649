"""``python -m engine.bundle``: a one-folder PyInstaller build of a game that runs headless.

The fast tests check the command line it gives PyInstaller, on the sample game and on a
project with a ``config.toml``, and the size it reports. The slow ones build one bundle (a few
tens of seconds of CPU) and share it: the bundle of a game freshly made by ``python -m engine
new``, the harder case (the sample game is the same code under another name, without a root
``config.toml``), built with the engine it vendors, then run from another folder as a player
runs it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.app.level_order import bundled_levels
from engine.bundle import (
    BundleError,
    arcade_hook_text,
    disk_usage_bytes,
    game_package,
    main,
    pyinstaller_args,
)
from engine.tools import new_project
from tests.game.test_replays import assert_one_line_error
from tests.small_picture import SMALL_PICTURE_FLAGS

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


def test_a_project_file_goes_into_project_data_and_a_folder_keeps_its_name(tmp_path: Path) -> None:
    # --add-data SOURCE:DEST reads DEST as a folder: config.toml:<game>/project_data/config.toml
    # made a folder named config.toml, and a new game's bundle stopped at its first start.
    (tmp_path / "config.toml").write_text("")
    (tmp_path / "levels").mkdir()
    args = pyinstaller_args(tmp_path, "pond", tmp_path / "dist", tmp_path / "build")
    data = {args[i + 1] for i, arg in enumerate(args) if arg == "--add-data"}
    assert data == {
        f"{tmp_path / 'config.toml'}{os.pathsep}pond/project_data",
        f"{tmp_path / 'levels'}{os.pathsep}pond/project_data/levels",
    }


def test_a_folder_without_a_game_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--project", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "pyproject.toml" in err


def test_the_size_is_the_space_on_disk_counting_each_file_once(tmp_path: Path) -> None:
    folder = tmp_path / "bundle"
    (folder / "libs").mkdir(parents=True)
    library = folder / "libs" / "libthing.so.1.2"
    library.write_bytes(os.urandom(300_000))
    (folder / "libthing.so.1").symlink_to("libs/libthing.so.1.2")  # as PyInstaller links them
    (folder / "libs_too").symlink_to("libs", target_is_directory=True)
    os.link(library, folder / "hard_link.so")
    (folder / "small.txt").write_text("x")
    one_copy = disk_usage_bytes(folder)
    assert one_copy < 2 * library.stat().st_size  # neither link counts the library again
    assert one_copy >= library.stat().st_size
    if sys.platform == "linux":  # GNU du, which the size is meant to match
        du = subprocess.run(["du", "-s", "-B1", str(folder)], capture_output=True, text=True)
        assert int(du.stdout.split()[0]) == one_copy


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


# -- the bundle of a new game (slow: one build, shared) ------------------------------------------

NEW_GAME = "Pond Hopper"
TICK_RATE_HZ = 120
"""The new game's ``config.toml`` sets this tick rate, so a run shows the bundle read it."""

NEW_GAME_GROUP = pytest.mark.xdist_group("new-game-bundle")
"""The tests sharing the one build run on one pytest-xdist worker (built once)."""
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "PYTHONPATH")}


@dataclass(frozen=True)
class Bundle:
    """A built bundle: its project, its program, what the build printed, a folder to run it in."""

    project: Path
    program: Path
    printed: str
    elsewhere: Path

    @property
    def levels(self) -> list[Path]:
        """The game's levels in the project, in play order."""
        return bundled_levels(self.project / "levels")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    """A game made by ``python -m engine new``, its config edited, bundled with its own engine."""
    ensure_pyinstaller()
    root = tmp_path_factory.mktemp("bundle")
    package = new_project.project_from_name(NEW_GAME).name
    project = root / package
    assert new_project.main([NEW_GAME, "--path", str(project), "--no-git"]) == 0
    config = project / "config.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + f"\n[timing]\ntick_rate_hz = {TICK_RATE_HZ}\n",
        encoding="utf-8",
    )
    started = time.monotonic()
    built = subprocess.run(
        [sys.executable, "-m", "engine.bundle"],  # in the project: its vendored engine/ first
        cwd=project,
        capture_output=True,
        text=True,
        timeout=1200,
        env=CLEAN_ENV,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    print(f"\nnew game's bundle built in {time.monotonic() - started:.0f} s")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return Bundle(project, project / "dist" / package / package, built.stdout, elsewhere)


def play(bundle: Bundle, *flags: str) -> subprocess.CompletedProcess[str]:
    """The bundled program, headless, started from a folder that is not the project."""
    return subprocess.run(
        [str(bundle.program), "--headless", *flags],
        cwd=bundle.elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
        env=CLEAN_ENV,
    )


def map_name(level: Path) -> str:
    """The level's name as a game shows it: the map's ``name`` property, else its file's stem."""
    properties = json.loads(level.read_text(encoding="utf-8")).get("properties", [])
    return next((p["value"] for p in properties if p["name"] == "name"), level.stem)


@pytest.mark.slow
@NEW_GAME_GROUP
def test_a_new_games_bundle_starts_with_its_own_config_from_any_folder(bundle: Bundle) -> None:
    inside = next(bundle.program.parent.rglob("project_data/config.toml"))
    assert inside.is_file()
    assert inside.read_bytes() == (bundle.project / "config.toml").read_bytes()
    frames = 120
    out = play(bundle, "--frames", str(frames), "--json")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no warnings, no ERROR lines from a misplaced file
    summary = json.loads(out.stdout)
    assert summary["level"] == map_name(bundle.levels[0]) and summary["completed"] is False
    # config.toml's tick rate, not the default 60 Hz: TICK_RATE_HZ / 60 ticks a 60 Hz frame
    assert summary["ticks"] == (frames - 1) * TICK_RATE_HZ // 60


@pytest.mark.slow
@NEW_GAME_GROUP
def test_a_new_games_bundle_plays_a_level_named_by_file_name_to_the_exit(bundle: Bundle) -> None:
    # Its last level, by name alone (found among its own levels, not in the current folder),
    # with its bundled replay: recorded at 60 ticks per second, so --set overrides the config.
    level = bundle.levels[-1]
    replay = next(bundle.program.parent.rglob(f"project_data/levels/replays/{level.stem}.replay"))
    flags = ["--level", level.name, "--replay", str(replay), "--set", "timing.tick_rate_hz=60"]
    flags += SMALL_PICTURE_FLAGS  # the 120 frames above draw the whole picture
    out = play(bundle, *flags, "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["level"] == map_name(level)
    assert summary["completed"] is True and summary["hash_ok"] is True
    missing = play(bundle, "--level", "nowhere.json")
    assert_one_line_error(missing, "--level nowhere.json", *(p.name for p in bundle.levels))


@pytest.mark.slow
@NEW_GAME_GROUP
def test_the_reported_size_is_the_bundles_size_on_disk(bundle: Bundle) -> None:
    folder = bundle.program.parent
    match = re.fullmatch(
        rf"built {re.escape(str(folder))}/ \((\d+) MiB on disk\): run .*\n", bundle.printed
    )
    assert match, bundle.printed
    assert int(match[1]) == round(disk_usage_bytes(folder) / 2**20)
    linked = [path for path in folder.rglob("*") if path.is_symlink()]
    followed = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    if linked:  # the old count, following links, counted the linked libraries twice
        assert disk_usage_bytes(folder) < followed
