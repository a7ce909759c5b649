"""``python -m engine new NAME``: a new game from the template, standalone, clean, and careful.

The fast tests generate into a temporary directory in this process and check the tree. The slow
test does what a new user does: install the generated project into a fresh virtual environment
(pip may use its cache), run its tests, and run the game headless by module and by console script.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path, PurePosixPath

import pytest

from engine.tools import new_project
from engine.tools.new_project import ENGINE_EXCLUDED, Project, name_problem, plan_project
from tests.game.test_replays import assert_one_line_error

ROOT = Path(__file__).resolve().parents[3]
NAME = "moon_jump"


def run_new(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m engine new ARGS`` as a user runs it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "engine", "new", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd or ROOT,
        env=env,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generated project, shared by the read-only tests."""
    dest = tmp_path_factory.mktemp("new") / NAME
    assert new_project.main([NAME, "--path", str(dest)]) == 0
    return dest


def files_under(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


# -- NAME ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["moonjump", "moon_jump", "game2", "Zed"])
def test_good_names_pass(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("9lives", "not a Python package name"),
        ("moon-jump", "not a Python package name"),
        ("mün", "not a Python package name"),
        ("", "not a Python package name"),
        ("class", "keyword"),
        ("match", "keyword"),
        ("_hidden", "underscore"),
        ("a_seventeen_chars", "longer than 16"),
        ("engine", "taken"),
        ("game", "taken"),
        ("tests", "taken"),
        ("levels", "taken"),
        ("json", "standard library"),
        ("random", "standard library"),
        ("arcade", "the game needs"),
        ("numpy", "the game needs"),
        ("pymunk", "the game needs"),
        ("pyglet", "the game needs"),
    ],
)
def test_bad_names_are_refused_with_one_line_and_exit_2(
    name: str, fragment: str, tmp_path: Path
) -> None:
    problem = name_problem(name)
    assert problem is not None and fragment in problem
    if name in ("9lives", "engine", "json", "numpy"):  # a few through the command line too
        out = run_new(name, "--path", str(tmp_path / "out"))
        assert_one_line_error(out, fragment)
        assert not (tmp_path / "out").exists()


def test_help_lists_the_new_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engine", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 0
    assert "new" in out.stdout


# -- what it makes -----------------------------------------------------------------------------


def test_the_project_has_the_promised_layout(project: Path) -> None:
    for relative in (
        "pyproject.toml",
        "README.md",
        ".gitignore",
        "config.toml",
        f"{NAME}/__init__.py",
        f"{NAME}/__main__.py",
        f"{NAME}/level_scene.py",
        f"{NAME}/movement.py",
        f"{NAME}/world_builder.py",
        f"{NAME}/replay_run.py",
        "engine/__init__.py",
        "engine/runtime/engine.py",
        "engine/timing/game_loop.py",
        "levels/README.md",
        "levels/tiles/tiles.tsj",
        "levels/tiles/LICENSE.txt",
        "tests/test_smoke.py",
        "tests/test_replay.py",
    ):
        assert (project / relative).is_file(), relative
    assert (project / "levels/level1.json").read_bytes() == (
        ROOT / "levels/level1.json"
    ).read_bytes()
    replay = "levels/replays/level1.replay"
    assert (project / replay).read_bytes() == (ROOT / replay).read_bytes()


def test_the_engine_is_copied_without_the_generator(project: Path) -> None:
    ours = {
        relative: data
        for relative, data in files_under(ROOT / "engine").items()
        if "__pycache__" not in relative and relative.split("/")[0] not in ENGINE_EXCLUDED
    }
    assert files_under(project / "engine") == ours
    for excluded in ENGINE_EXCLUDED:
        assert not (project / "engine" / excluded).exists()


def test_a_new_game_gets_the_runtime_and_none_of_the_tools(project: Path) -> None:
    vendored = set(files_under(project / "engine"))
    for package in ("timing", "runtime", "config", "input", "physics", "rendering", "levels"):
        assert f"{package}/__init__.py" in vendored, package
    for package in ("speedrun", "storage"):
        assert f"{package}/__init__.py" in vendored, package
    tools = ("monitor_sim", "bench", "pacing_bench", "demo", "new_project", "project_template")
    assert not [path for path in vendored if any(tool in path for tool in tools)]
    # Nothing the game ships imports a tool, so the copy is complete without them.
    for source in [*(project / "engine").rglob("*.py"), *(project / NAME).rglob("*.py")]:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("engine.tools"), source


def test_pyproject_installs_the_game_and_the_engine(project: Path) -> None:
    ours = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    theirs = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert theirs["project"]["name"] == "moon-jump"
    assert theirs["project"]["dependencies"] == ours["dependencies"]
    assert theirs["project"]["scripts"] == {NAME: f"{NAME}.__main__:main"}
    test_extra = " ".join(theirs["project"]["optional-dependencies"]["test"])
    assert "pytest" in test_extra and "ruff" in test_extra
    assert theirs["tool"]["setuptools"]["packages"]["find"]["include"] == [f"{NAME}*", "engine*"]
    assert theirs["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]


def test_config_shows_the_speedrun_toggle_and_loads(project: Path) -> None:
    from engine.config import load_config

    text = (project / "config.toml").read_text(encoding="utf-8")
    assert re.search(r"^\[speedrun\]\n(#.*\n)*enabled = false$", text, re.MULTILINE)
    config = load_config(project / "config.toml")
    assert config.speedrun.enabled is False
    assert config.video.title == "Moon Jump"


def test_ruff_passes_on_the_generated_project(project: Path) -> None:
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    # The game and its tests are formatted too (engine/ is the engine's own business).
    fmt = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", NAME, "tests"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_ruff_passes_with_the_longest_name(tmp_path: Path) -> None:
    name = "x" * new_project.MAX_NAME_LENGTH
    assert new_project.main([name, "--path", str(tmp_path)]) == 0
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", name, "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_no_leftovers_of_the_template_game(project: Path) -> None:
    leftovers = re.compile(
        r"(?<![\w.])game\.(?=[a-z_]+\b)|from game import|import game\b|python -m game\b"
        r"|sample game|sample platformer|platformer-engine|\{\{\w+\}\}"
    )
    checked = 0
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if relative.parts[0] == "engine" or path.suffix not in (".py", ".md", ".toml", ""):
            continue
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not leftovers.search(line), f"{relative}:{number}: {line}"
        checked += 1
    assert checked >= 12


@pytest.mark.parametrize("speedrun", ["false", "true"])
def test_the_new_game_runs_headless(project: Path, speedrun: str) -> None:
    # The project's own engine/ comes first on sys.path when run from its root.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DISPLAY")}
    flags = ["--headless", "--frames", "30", "--json", "--set", f"speedrun.enabled={speedrun}"]
    out = subprocess.run(
        [sys.executable, "-m", NAME, *flags],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["level"] == "First Steps"


def test_it_prints_what_it_made_and_the_next_commands(tmp_path: Path) -> None:
    out = run_new("space_cat", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "space_cat" / "space_cat" / "__main__.py").is_file()  # default --path
    assert "pip install -e . && python -m space_cat" in out.stdout
    assert "pip install -e '.[test]' && python -m pytest" in out.stdout


# -- refusing to overwrite -----------------------------------------------------------------------


def test_an_existing_file_means_nothing_is_written_and_exit_2(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    (dest / "levels").mkdir(parents=True)
    (dest / "levels" / "README.md").write_text("mine\n")
    out = run_new(NAME, "--path", str(dest))
    assert_one_line_error(out, str(dest / "levels" / "README.md"), "nothing was written", "--force")
    assert files_under(dest) == {"levels/README.md": b"mine\n"}


def test_force_overwrites_and_keeps_other_files(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    (dest / "levels").mkdir(parents=True)
    (dest / "levels" / "README.md").write_text("mine\n")
    (dest / "notes.txt").write_text("keep me\n")
    out = run_new(NAME, "--path", str(dest), "--force")
    assert out.returncode == 0, out.stderr
    assert (dest / "levels" / "README.md").read_text() != "mine\n"
    assert (dest / "notes.txt").read_text() == "keep me\n"
    assert files_under(dest).keys() - {"notes.txt"} == {str(path) for path in plan_project(NAME)}


def test_a_second_run_refuses_and_names_a_file(project: Path) -> None:
    before = files_under(project)
    out = run_new(NAME, "--path", str(project))
    assert_one_line_error(out, str(project), "exists", "nothing was written")
    assert files_under(project) == before


# -- taking a newer engine -----------------------------------------------------------------------


def test_update_engine_replaces_only_engine(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    assert new_project.main([NAME, "--path", str(dest)]) == 0
    (dest / "engine" / "app.py").write_text("# a local edit\n")
    (dest / "engine" / "stale.py").write_text("# removed from the engine since\n")
    (dest / NAME / "level_scene.py").write_text("# my game\n")
    (dest / "README.md").write_text("my readme\n")
    game_files = {k: v for k, v in files_under(dest).items() if not k.startswith("engine/")}

    out = run_new(NAME, "--path", str(dest), "--update-engine")
    assert out.returncode == 0, out.stderr
    assert "engine" in out.stdout and "replaced" in out.stdout
    assert {k: v for k, v in files_under(dest).items() if not k.startswith("engine/")} == game_files
    expected = {
        str(PurePosixPath(*path.parts[1:])): data
        for path, data in new_project.plan_engine().items()
    }
    assert files_under(dest / "engine") == expected
    assert not any(p.name.startswith(".engine") for p in dest.iterdir())


def test_update_engine_names_dependencies_the_project_lacks(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    assert new_project.main([NAME, "--path", str(dest)]) == 0
    pyproject = dest / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('    "numpy>=1.26",\n', ""))
    out = run_new(NAME, "--path", str(dest), "--update-engine")
    assert out.returncode == 0, out.stderr
    assert "numpy>=1.26" in out.stdout


def test_update_engine_refuses_a_directory_that_is_not_a_project(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    out = run_new(NAME, "--path", str(tmp_path), "--update-engine")
    assert_one_line_error(out, "is not a project made with")
    assert files_under(tmp_path) == {}


# -- the units -------------------------------------------------------------------------------


def test_rewrite_renames_references_to_copied_modules_only() -> None:
    text = (
        "from game.movement import PlayerTuning\n"
        "from game import movement\n"
        "import game.level_scene\n"
        'PROG = "python -m game"\n'
        "See :class:`~game.world_builder.LevelWorld` and :mod:`game.movement`.\n"
        "This is the sample game. Then the game.\n"
        "self.game.movement = 1\n"
        'PACKAGE_NAME = "platformer-engine"\n'
    )
    out = new_project.rewrite_game_module(
        text, Project("moon_jump"), ["movement", "world_builder", "level_scene"]
    )
    assert out == (
        "from moon_jump.movement import PlayerTuning\n"
        "from moon_jump import movement\n"
        "import moon_jump.level_scene\n"
        'PROG = "python -m moon_jump"\n'
        "See :class:`~moon_jump.world_builder.LevelWorld` and :mod:`moon_jump.movement`.\n"
        "This is the game. Then the game.\n"
        "self.game.movement = 1\n"
        'PACKAGE_NAME = "moon-jump"\n'
    )


def test_project_names() -> None:
    project = Project("moon_jump")
    assert (project.dist_name, project.title) == ("moon-jump", "Moon Jump")
    with pytest.raises(ValueError, match="unknown template field"):
        project.fill("{{nope}}")


# -- end to end --------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_fresh_virtualenv_installs_tests_and_runs_the_new_game(tmp_path: Path) -> None:
    started = time.monotonic()
    dest = tmp_path / "proj"
    assert new_project.main([NAME, "--path", str(dest)]) == 0
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "DISPLAY", "ARCADE_HEADLESS", "PYTHONHOME")
    }
    install = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            "-e",
            f"{dest}[test]",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    installed = time.monotonic()

    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=dest,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert " passed" in tests.stdout

    for command in (
        [str(python), "-m", NAME, "--headless", "--frames", "120", "--json"],
        [str(venv / "bin" / NAME), "--headless", "--frames", "120", "--json"],
    ):
        out = subprocess.run(
            command, cwd=dest, capture_output=True, text=True, timeout=300, env=env
        )
        assert out.returncode == 0, out.stderr
        summary = json.loads(out.stdout)
        assert summary["level"] == "First Steps" and summary["completed"] is False
    print(
        f"\ne2e: install {installed - started:.0f} s, "
        f"tests and runs {time.monotonic() - installed:.0f} s"
    )
