"""``python -m engine new NAME``: the sample game renamed, clean, careful with the user's work.

The fast tests generate into a temporary directory and check the tree, run the new game from
its folder (the project's own ``engine/`` comes first on ``sys.path`` there) and follow the
README's recipes on it, taking the code from the generated README itself. The slow tests do
what a new user does: a fresh virtual environment, an install, the recipes, the project's own
tests, a wheel install run from another folder, and an engine update. The new game's
PyInstaller bundle is built and played in ``tests/engine/test_bundle.py``.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import textwrap
import time
import tomllib
import wave
import zlib
from pathlib import Path

import pytest

from engine.app.level_order import bundled_levels
from engine.tools import new_project
from engine.tools.new_project import (
    ENGINE_EXCLUDED,
    MANIFEST_NAME,
    Manifest,
    Project,
    file_hash,
    name_problem,
    plan_project,
    project_from_name,
)
from tests.engine.test_bundle import map_name
from tests.game.test_replays import assert_one_line_error
from tests.markdown_links import broken_links, markdown_files
from tests.small_picture import SMALL_PICTURE_FLAGS

ROOT = Path(__file__).resolve().parents[3]
ENGINE_FILES = ("engine/", "engine-manifest.json", ".engine/")
NAME = "moon_jump"
PROJECT = Project(NAME)
STARTERS = ("level1", "level2")
CLEAN_ENV = {
    key: value
    for key, value in os.environ.items()
    if key not in ("PYTHONPATH", "VIRTUAL_ENV", "DISPLAY", "PYTHONHOME")
}


def run_new(
    *args: str, cwd: Path | None = None, source: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``python -m engine new ARGS`` as a user runs it, from the checkout ``source``."""
    env = dict(os.environ, PYTHONPATH=str(source))
    return subprocess.run(
        [sys.executable, "-m", "engine", "new", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd or source,
        env=env,
    )


def in_project(project: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in the project's folder, without installing it (its engine/ first)."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=CLEAN_ENV,
    )


def make(dest: Path, *flags: str) -> Path:
    assert new_project.main([NAME, "--path", str(dest), "--no-git", *flags]) == 0
    return dest


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One generated project, shared by the read-only tests."""
    return make(tmp_path_factory.mktemp("new") / NAME)


def files_under(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


# -- NAME ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "package", "title"),
    [
        ("moon_jump", "moon_jump", "Moon Jump"),
        ("Moon Jump", "moon_jump", "Moon Jump"),
        ("MyGame", "mygame", "MyGame"),
        ("moon-jump", "moon_jump", "Moon Jump"),
        ("Zed", "zed", "Zed"),
        ("game2", "game2", "Game2"),
    ],
)
def test_names_give_a_lower_case_package_and_the_title_as_written(
    written: str, package: str, title: str
) -> None:
    project = project_from_name(written)
    assert (project.name, project.title) == (package, title)
    assert name_problem(project.name) is None


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("9lives", "not a Python package name"),
        ("mün", "not a Python package name"),
        ("", "not a Python package name"),
        ("class", "keyword"),
        ("match", "keyword"),
        ("_hidden", "underscore"),
        ("a_seventeen_chars", "longer than 16"),
        ("engine", "taken"),
        ("game", "taken"),
        ("tests", "taken"),
        ("test", "taken"),
        ("levels", "taken"),
        ("json", "standard library"),
        ("random", "standard library"),
        ("arcade", "the engine or its tools need"),
        ("numpy", "the engine or its tools need"),
        ("pymunk", "the engine or its tools need"),
        ("pyglet", "the engine or its tools need"),
        ("pil", "the engine or its tools need"),
        ("attrs", "the engine or its tools need"),  # arcade's dependency
        ("pycparser", "the engine or its tools need"),  # pymunk's, through cffi
        ("pytest", "the engine or its tools need"),
        ("hypothesis", "conflicts with the name of an existing Python module"),
        ("requests", "widely used Python package"),
        ("yaml", "widely used Python package"),
    ],
)
def test_bad_names_are_refused_with_one_line_and_exit_2(
    name: str, fragment: str, tmp_path: Path
) -> None:
    problem = name_problem(name)
    assert problem is not None and fragment in problem
    if name in ("9lives", "test", "json", "numpy", "hypothesis"):  # a few through the CLI too
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


# -- what it makes: the sample game, renamed ---------------------------------------------------


def test_every_module_of_the_sample_game_is_in_the_new_game(project: Path) -> None:
    ours = {
        path.relative_to(ROOT / "game").as_posix()
        for path in (ROOT / "game").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    theirs = {
        path.relative_to(project / NAME).as_posix() for path in (project / NAME).rglob("*.py")
    }
    assert theirs == ours
    assert not (ROOT / "engine/tools/project_template/package_main.py.tmpl").exists()


def test_the_starter_levels_and_their_replays_are_copied_byte_for_byte(project: Path) -> None:
    assert sorted(p.name for p in (project / "levels").glob("*.json")) == [
        f"{stem}.json" for stem in STARTERS
    ]
    for stem in STARTERS:
        for relative in (f"levels/{stem}.json", f"levels/replays/{stem}.replay"):
            assert (project / relative).read_bytes() == (ROOT / relative).read_bytes()
    assert (project / "levels/tiles/tiles.tsj").is_file()
    assert "levels/README.md" in files_under(project)


def test_the_engine_is_copied_without_its_tools_and_recorded(project: Path) -> None:
    ours = {
        relative: data
        for relative, data in files_under(ROOT / "engine").items()
        if "__pycache__" not in relative
        and relative.split("/")[0] not in ENGINE_EXCLUDED
        and not relative.endswith("README.md")  # the template's docs link into its own tree
    }
    assert any(relative.endswith("README.md") for relative in files_under(ROOT / "engine"))
    assert files_under(project / "engine") == ours
    for excluded in ENGINE_EXCLUDED:
        assert not (project / "engine" / excluded).exists()
    manifest = Manifest.read(project / MANIFEST_NAME)
    assert manifest.files == {f"engine/{path}": file_hash(data) for path, data in ours.items()}
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert manifest.engine_version.startswith(pyproject["version"])
    assert list(manifest.dependencies) == pyproject["dependencies"]
    # Nothing the game ships imports a tool, so the copy is complete without them.
    for source in [*(project / "engine").rglob("*.py"), *(project / NAME).rglob("*.py")]:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("engine.tools"), source


def test_pyproject_lists_every_package_and_ships_the_project_files(project: Path) -> None:
    ours = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    theirs = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert theirs["project"]["name"] == "moon-jump"
    assert theirs["project"]["dependencies"] == ours["dependencies"]
    assert theirs["project"]["scripts"] == {NAME: f"{NAME}.__main__:main"}
    extras = theirs["project"]["optional-dependencies"]
    assert "pytest" in " ".join(extras["test"]) and "ruff" in " ".join(extras["test"])
    assert extras["bundle"] == ours["optional-dependencies"]["bundle"]
    setuptools = theirs["tool"]["setuptools"]
    packages = {
        ".".join(init.parent.relative_to(project).parts)
        for init in project.rglob("__init__.py")
        if "tests" not in init.parts
    }
    assert set(setuptools["packages"]) == packages | {f"{NAME}.project_data"}
    assert setuptools["package-dir"] == {f"{NAME}.project_data": "."}
    assert "levels/replays/*" in setuptools["package-data"][f"{NAME}.project_data"]


def test_config_loads_with_the_games_sections_and_names_the_game(project: Path) -> None:
    from engine.config import load_config
    from game.definition import CONFIG_SECTIONS

    text = (project / "config.toml").read_text(encoding="utf-8")
    assert re.search(r"^\[speedrun\]\n(#.*\n)*enabled = false$", text, re.MULTILINE)
    config = load_config(project / "config.toml", extra_sections=CONFIG_SECTIONS)
    assert config.speedrun.enabled is False
    assert config.video.title == "Moon Jump"
    config_module = (project / NAME / "definition.py").read_text(encoding="utf-8")
    assert 'APP_NAME = "moon-jump"' in config_module  # its own settings and records folders


def test_config_toml_shows_known_keys_at_their_defaults(project: Path, tmp_path: Path) -> None:
    """Every key config.toml sets or shows commented out exists and is the default (no drift)."""
    from engine.config import load_config
    from game.definition import CONFIG_SECTIONS

    text = (project / "config.toml").read_text(encoding="utf-8")
    shown = re.sub(r"^# ([a-z_]+ = )", r"\1", text, flags=re.MULTILINE)
    keys = re.findall(r"^\[(\w+)\]|^([a-z_]+) = ", shown, flags=re.MULTILINE)
    assert len(keys) >= 8
    (tmp_path / "all.toml").write_text(shown, encoding="utf-8")
    every = load_config(tmp_path / "all.toml", extra_sections=CONFIG_SECTIONS)
    default = load_config(None, extra_sections=CONFIG_SECTIONS)
    section = ""
    for table, key in keys:
        section = table or section
        if key and (section, key) != ("video", "title"):
            tables = (c.extra.get(section) or getattr(c, section) for c in (every, default))
            values = {getattr(table, key) for table in tables}
            assert len(values) == 1, f"config.toml: [{section}] {key} is not the default"


def test_ruff_passes_on_the_generated_project(project: Path) -> None:
    for command in (["check"], ["format", "--check"]):
        out = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--no-cache", "."],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr


def test_ruff_passes_with_the_longest_name(tmp_path: Path) -> None:
    name = "x" * new_project.MAX_NAME_LENGTH
    assert new_project.main([name, "--path", str(tmp_path), "--no-git"]) == 0
    for command in (["check"], ["format", "--check"]):
        out = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--no-cache", name, "tests"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr


LEFTOVERS = re.compile(
    r"(?<![\w.])game\.(?=[a-z_]+\b)|from game import|import game\b|python -m game\b"
    r"|sample game|sample platformer|platformer-engine|\{\{\w+\}\}"
)


def test_every_relative_link_in_the_new_games_docs_resolves(project: Path) -> None:
    assert (project / "README.md") in markdown_files(project)
    assert broken_links(project) == []


def test_no_leftovers_of_the_sample_game(project: Path) -> None:
    checked = 0
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project)
        if relative.parts[0] == ".git" or not path.is_file():
            continue
        if path.suffix not in (".py", ".md", ".toml", ".json", ".txt", ""):
            continue
        if relative.parts[0] == "levels" and path.suffix == ".json":
            continue  # Tiled maps
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not LEFTOVERS.search(line), f"{relative}:{number}: {line}"
        checked += 1
    assert checked >= 100  # the game, its tests and the vendored engine


def test_rewrite_renames_the_package_its_command_and_its_distribution() -> None:
    text = (
        "from game.movement import PlayerTuning\n"
        "from game import movement\n"
        "import game.level_scene\n"
        'PROG = "python -m game"\n'
        "See :class:`~game.world_builder.LevelWorld`; --kinds game.kinds.\n"
        "This is the sample game. Then the game.\n"
        "self.game.movement = 1\n"
        'APP_NAME = "platformer-engine"  # ~/.local/share/platformer-engine\n'
    )
    assert new_project.rewrite_game_text(text, PROJECT) == (
        "from moon_jump.movement import PlayerTuning\n"
        "from moon_jump import movement\n"
        "import moon_jump.level_scene\n"
        'PROG = "python -m moon_jump"\n'
        "See :class:`~moon_jump.world_builder.LevelWorld`; --kinds moon_jump.kinds.\n"
        "This is the game. Then the game.\n"
        "self.game.movement = 1\n"
        'APP_NAME = "moon-jump"  # ~/.local/share/moon-jump\n'
    )


def test_project_fill_refuses_unknown_fields() -> None:
    assert (PROJECT.dist_name, PROJECT.title) == ("moon-jump", "Moon Jump")
    with pytest.raises(ValueError, match="unknown template field"):
        PROJECT.fill("{{nope}}")


# -- the new game runs -------------------------------------------------------------------------


@pytest.mark.slow  # (moved out of the default suite's 90 s)
@pytest.mark.parametrize("speedrun", ["false", "true"])
def test_the_new_game_runs_headless(project: Path, speedrun: str) -> None:
    flags = ["--headless", "--frames", "30", "--json", "--set", f"speedrun.enabled={speedrun}"]
    out = in_project(project, "-m", NAME, *flags)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["level"] == "First Steps"


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_the_new_game_reads_its_own_config_from_any_folder(tmp_path: Path) -> None:
    dest = make(tmp_path / "proj")
    config = dest / "config.toml"
    config.write_text(config.read_text() + "\n[timing]\ntick_rate_hz = 120\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "config.toml").write_text("[timing]\ntick_rate_hz = 30\n")  # not the game's
    out = subprocess.run(
        [sys.executable, "-m", NAME, "--headless", "--frames", "60", "--json"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=300,
        env={**CLEAN_ENV, "PYTHONPATH": str(dest)},
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ticks"] > 100  # 120 Hz ticks over 60 frames of 60 Hz


def test_it_prints_what_it_made_and_the_next_commands(tmp_path: Path) -> None:
    out = run_new("Space Cat", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "space_cat" / "space_cat" / "__main__.py").is_file()  # default --path
    assert "created Space Cat in space_cat/" in out.stdout
    assert "pip install -e . && python -m space_cat" in out.stdout
    assert "pip install -e '.[test]' && python -m pytest" in out.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_project_is_a_git_repository_with_a_first_commit(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    out = run_new(NAME, "--path", str(dest))
    assert out.returncode == 0, out.stderr
    assert "first commit" in out.stdout
    log = subprocess.run(
        ["git", "-C", str(dest), "log", "--format=%s"], capture_output=True, text=True, timeout=60
    )
    assert log.stdout.startswith("New game Moon Jump from the platformer engine ")
    status = subprocess.run(
        ["git", "-C", str(dest), "status", "--porcelain"], capture_output=True, text=True
    )
    assert status.stdout == ""  # everything is in the commit


# -- refusing to overwrite -----------------------------------------------------------------------


def test_an_existing_file_means_nothing_is_written_and_exit_2(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    (dest / "levels").mkdir(parents=True)
    (dest / "levels" / "README.md").write_text("mine\n")
    out = run_new(NAME, "--path", str(dest))
    assert_one_line_error(out, str(dest / "levels" / "README.md"), "nothing was written", "--force")
    assert files_under(dest) == {"levels/README.md": b"mine\n"}


def test_force_lists_what_it_overwrites_and_keeps_other_files(tmp_path: Path) -> None:
    dest = make(tmp_path / "proj")
    (dest / "levels" / "README.md").write_text("mine\n")
    (dest / NAME / "movement.py").write_text("# my tuning\n")
    (dest / "notes.txt").write_text("keep me\n")
    out = run_new(NAME, "--path", str(dest), "--force", "--no-git")
    assert out.returncode == 0, out.stderr
    assert "overwrote files in" in out.stdout and "(2):" in out.stdout
    assert str(dest / "levels" / "README.md") in out.stdout
    assert str(dest / NAME / "movement.py") in out.stdout
    assert str(dest / "config.toml") not in out.stdout  # unchanged files are not listed
    assert (dest / "notes.txt").read_text() == "keep me\n"
    assert files_under(dest).keys() - {"notes.txt"} == {str(p) for p in plan_project(PROJECT)}


def test_a_second_run_refuses_and_names_a_file(project: Path) -> None:
    before = files_under(project)
    out = run_new(NAME, "--path", str(project))
    assert_one_line_error(out, str(project), "exists", "nothing was written")
    assert files_under(project) == before


# -- taking a newer engine -----------------------------------------------------------------------


def newer_checkout(tmp_path: Path) -> Path:
    """A copy of this checkout whose engine changed: one file edited, one added, one removed,
    and a dependency pin moved."""
    source = tmp_path / "newer"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for part in ("engine", "game", "levels"):
        shutil.copytree(ROOT / part, source / part, ignore=ignore)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (source / "pyproject.toml").write_text(pyproject.replace("numpy>=1.26", "numpy>=2.0"))
    scene = source / "engine" / "runtime" / "scene.py"
    scene.write_text(scene.read_text() + "\n# a newer engine\n")
    (source / "engine" / "storage" / "newfile.py").write_text('"""New in the engine."""\n')
    (source / "engine" / "physics" / "motion.py").unlink()
    return source


def test_an_update_from_this_checkout_changes_nothing(tmp_path: Path) -> None:
    dest = make(tmp_path / "proj")
    before = files_under(dest)
    out = run_new(NAME, "--path", str(dest), "--update-engine")
    assert out.returncode == 0, out.stderr
    assert "0 added, 0 changed, 0 merged, 0 conflicting, 0 removed" in out.stdout
    assert files_under(dest) == before


def test_an_update_lists_what_it_changes_and_keeps_the_game(tmp_path: Path) -> None:
    dest = make(tmp_path / "proj")
    (dest / NAME / "level_scene.py").write_text("# my game\n")
    (dest / "engine" / "mine.py").write_text("# my own engine helper\n")
    outside = {k: v for k, v in files_under(dest).items() if not k.startswith(ENGINE_FILES)}
    source = newer_checkout(tmp_path)

    update = new_project.update_engine(dest, NAME, source)
    assert update.added == ["engine/storage/newfile.py"]
    assert update.changed == ["engine/runtime/scene.py"]
    assert update.removed == ["engine/physics/motion.py"]
    assert update.kept == ["engine/mine.py"] and update.merged == update.conflicting == []
    assert update.pin_changes == ["numpy>=1.26 -> numpy>=2.0"]
    assert update.pyproject_lacks == ["numpy>=2.0"]
    after = files_under(dest)
    assert {k: v for k, v in after.items() if not k.startswith(ENGINE_FILES)} == outside
    assert after["engine/runtime/scene.py"].endswith(b"# a newer engine\n")
    assert "engine/physics/motion.py" not in after and "engine/mine.py" in after
    manifest = Manifest.read(dest / MANIFEST_NAME)
    assert "engine/storage/newfile.py" in manifest.files
    assert "numpy>=2.0" in manifest.dependencies


def test_an_edit_of_the_lines_the_engine_changed_conflicts_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    dest = make(tmp_path / "proj")
    edited = dest / "engine" / "runtime" / "scene.py"
    mine = edited.read_text()
    edited.write_text(mine + "\n# my fix\n")  # where the newer engine adds its line
    before = files_under(dest)
    source = newer_checkout(tmp_path)
    out = run_new(NAME, "--path", str(dest), "--update-engine", source=source)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "engine/runtime/scene.py" in out.stderr.strip().splitlines()[-1]
    assert "numpy>=1.26 -> numpy>=2.0" in out.stdout
    text = edited.read_text()
    assert text.startswith(mine) and "Traceback" not in out.stderr
    conflict = text[len(mine) :]
    assert re.fullmatch(
        r"<<<<<<< project: engine/runtime/scene\.py\n\n# my fix\n"
        r"\|\|\|\|\|\|\| engine \S+ \(as vendored\)\n"
        r"=======\n\n# a newer engine\n>>>>>>> engine \S+ \(this update\)\n",
        conflict,
    ), conflict
    after = files_under(dest)
    changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    assert changed == {"engine/runtime/scene.py", ".engine/vendored.tar.bz2"}


def test_an_update_needs_the_manifest_or_force(tmp_path: Path) -> None:
    dest = make(tmp_path / "proj")
    (dest / MANIFEST_NAME).unlink()
    out = run_new(NAME, "--path", str(dest), "--update-engine")
    assert_one_line_error(out, MANIFEST_NAME, "not found", "--force")
    forced = run_new(NAME, "--path", str(dest), "--update-engine", "--force")
    assert forced.returncode == 0, forced.stderr
    assert Manifest.read(dest / MANIFEST_NAME).files


def test_update_engine_refuses_a_directory_that_is_not_a_project(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    out = run_new(NAME, "--path", str(tmp_path), "--update-engine")
    assert_one_line_error(out, "is not a project made with")
    assert files_under(tmp_path) == {}


# -- the recipes in the generated README, followed -----------------------------------------------


def readme_section(project: Path, heading: str) -> str:
    text = (project / "README.md").read_text(encoding="utf-8")
    start = text.index(f"### {heading}")
    end = text.find("\n### ", start + 1)
    following = text.find("\n## ", start + 1)
    ends = [i for i in (end, following) if i != -1]
    return text[start : min(ends)] if ends else text[start:]


def code_blocks(section: str, language: str) -> list[str]:
    return [
        textwrap.dedent(block)
        for block in re.findall(rf"```{language}\n(.*?)\n *```", section, re.DOTALL)
    ]


def follow_level_recipe(project: Path, python: tuple[str, ...] = (sys.executable,)) -> None:
    """Add levels/level1b.json after level 1, as the README says (a copy of level 2)."""
    section = readme_section(project, "Add a level and play it after level 1")
    assert (
        "levels/level1b.json" in section and "--rerecord levels/replays/level1b.replay" in section
    )
    shutil.copyfile(project / "levels/level2.json", project / "levels/level1b.json")
    shutil.copyfile(
        project / "levels/replays/level2.replay", project / "levels/replays/level1b.replay"
    )
    rerecord = [
        *python,
        "-m",
        NAME,
        "--rerecord",
        "levels/replays/level1b.replay",
        "--level",
        "levels/level1b.json",
    ]
    out = subprocess.run(rerecord, cwd=project, capture_output=True, text=True, env=CLEAN_ENV)
    assert out.returncode == 0, out.stderr
    assert "re-recorded: completes level1b.json" in out.stdout


def follow_enemy_recipe(project: Path) -> None:
    """Add the frog kind and entity from the README's code, and a frog left of level 1's start."""
    section = readme_section(project, "Add an object kind: an enemy")
    kind_code, entity_code = code_blocks(section, "python")
    kinds = project / NAME / "kinds.py"
    text = kinds.read_text(encoding="utf-8")
    text = text.replace("\ndef game_kinds(", f"\n{kind_code}\n\n\ndef game_kinds(", 1)
    body = text.index("def game_kinds(")
    loop = text.index("for kind in (", body) + len("for kind in (")
    text = text[:loop] + "FROG, " + text[loop:]
    kinds.write_text(text, encoding="utf-8")
    (project / NAME / "entities" / "frog.py").write_text(entity_code + "\n", encoding="utf-8")
    registry = project / NAME / "entities" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    assert f"from {NAME}.entities.frog import" in section and '"frog": Frog,' in section
    text = text.replace(
        f"from {NAME}.entities.gadgets import",
        f"from {NAME}.entities.frog import Frog\nfrom {NAME}.entities.gadgets import",
        1,
    )
    text = text.replace('    "flyer": Flyer,\n', '    "flyer": Flyer,\n    "frog": Frog,\n', 1)
    registry.write_text(text, encoding="utf-8")
    level = project / "levels" / "level1.json"
    data = json.loads(level.read_text(encoding="utf-8"))
    layer = next(layer for layer in data["layers"] if layer["name"] == "objects")
    start = next(obj for obj in layer["objects"] if obj.get("type") == "player_start")
    frog_id = data["nextobjectid"]
    data["nextobjectid"] += 1
    layer["objects"].append(
        {
            "id": frog_id,
            "name": "frog",
            "type": "frog",
            "point": True,
            "x": start["x"] - 256,
            "y": start["y"],
            "width": 0,
            "height": 0,
            "rotation": 0,
            "visible": True,
        }
    )
    level.write_text(json.dumps(data, indent=1), encoding="utf-8")


def frog_heights(project: Path, python: str = sys.executable) -> list[float]:
    script = (
        f"from {NAME}.world_builder import LevelWorld\n"
        f"from {NAME}.movement import PlayerTuning\n"
        f"from {NAME}.entities.frog import Frog\n"
        "from engine.app.run_file import GAME_ACTIONS\n"
        "from engine.input.snapshot import InputSnapshot\n"
        "world = LevelWorld.load('levels/level1.json', PlayerTuning(), 1 / 60)\n"
        "(frog,) = world.entities_of(Frog)\n"
        "ys = []\n"
        "for _ in range(40):\n"
        "    world.tick(InputSnapshot(GAME_ACTIONS, 0))\n"
        "    ys.append(float(frog.body.position.y))\n"
        "print(ys)\n"
    )
    out = subprocess.run(
        [python, "-c", script], cwd=project, capture_output=True, text=True, env=CLEAN_ENV
    )
    assert out.returncode == 0, out.stderr
    return [float(y) for y in out.stdout.strip().strip("[]").split(",")]


@pytest.mark.slow  # (a few headless runs: followed by --full and CI)
def test_recipe_change_the_jump_and_rerecord(tmp_path: Path) -> None:
    project = make(tmp_path / "proj")
    section = readme_section(project, "Change the jump and re-record the replays")
    (setting,) = re.findall(r"`(jump_height_tiles = [0-9.]+)`", section)
    config = project / "config.toml"
    config.write_text(config.read_text().replace("[player]\n", f"[player]\n{setting}\n", 1))
    replay = "levels/replays/level1.replay"
    small = SMALL_PICTURE_FLAGS  # the replays' ticks and hashes are the subject, not pixels
    diverged = in_project(project, "-m", NAME, "--headless", "--replay", replay, *small)
    assert_one_line_error(diverged, "other [player] settings", f"--rerecord {replay}")
    replays = sorted(str(p.relative_to(project)) for p in (project / "levels/replays").iterdir())
    redone = in_project(project, "-m", NAME, "--rerecord", *replays)
    assert redone.returncode == 0, redone.stderr
    assert redone.stdout.count("re-recorded: completes") == len(STARTERS)
    for stem in STARTERS:
        out = in_project(
            project, "-m", NAME, "--headless", "--replay", f"levels/replays/{stem}.replay", *small
        )
        assert out.returncode == 0, out.stderr


def write_wav(path: Path, frequency_hz: float = 440.0, seconds: float = 0.1) -> None:
    rate = 22050
    frames = b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * frequency_hz * i / rate)))
        for i in range(int(rate * seconds))
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_recipe_add_a_sound(tmp_path: Path) -> None:
    project = make(tmp_path / "proj")
    section = readme_section(project, "Add a sound")
    assert '`"land": "sounds/land.wav",`' in section and f"{NAME}/definition.py" in section
    (project / "sounds").mkdir()
    write_wav(project / "sounds" / "land.wav")
    definition = project / NAME / "definition.py"
    text = definition.read_text(encoding="utf-8")
    assert "SOUND_FILES: Mapping[str, str] = {\n" in text
    text = text.replace(
        "SOUND_FILES: Mapping[str, str] = {\n",
        'SOUND_FILES: Mapping[str, str] = {\n    "land": "sounds/land.wav",\n',
        1,
    )
    definition.write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "-q", NAME], cwd=project)
    tests = in_project(
        project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_game.py", "-k", "sound"
    )
    assert tests.returncode == 0, tests.stdout[-2000:]
    assert "1 passed" in tests.stdout
    code = f"from {NAME}.definition import GAME; print(GAME.files.asset_path('sounds/land.wav'))"
    where = in_project(project, "-c", code)
    assert Path(where.stdout.strip()) == project / "sounds" / "land.wav"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_recipe_change_the_window_size_and_title(tmp_path: Path) -> None:
    project = make(tmp_path / "proj")
    section = readme_section(project, "Change the window size and title")
    (block,) = code_blocks(section, "toml")
    config = project / "config.toml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"\[video\]\n(?:(?!\[).*\n)*", block + "\n\n", text, count=1)
    config.write_text(text, encoding="utf-8")
    shot = tmp_path / "shot.png"
    out = in_project(project, "-m", NAME, "--headless", "--frames", "2", "--screenshot", str(shot))
    assert out.returncode == 0, out.stderr
    assert png_size(shot) == (1440, 810)
    effective = in_project(
        project,
        "-m",
        "engine.config",
        "--sections",
        f"{NAME}.definition",
        "--config",
        "config.toml",
    )
    assert effective.returncode == 0, effective.stderr
    assert 'title = "Moon Jump: Director\'s Cut"' in effective.stdout
    assert zlib.crc32(shot.read_bytes()) != 0


# -- end to end: a new user's machine ----------------------------------------------------------


def make_venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin" / "python"


def pip(python: Path, *args: str) -> None:
    out = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        timeout=1200,
        env=CLEAN_ENV,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


@pytest.mark.slow
def test_a_new_user_makes_a_game_follows_recipes_ships_it_and_updates_the_engine(
    tmp_path: Path,
) -> None:
    """A new user's whole path, on one install: make the game, install it into a fresh virtual
    environment, follow the level and enemy recipes (the level plays after level 1 and checks,
    the frog hops, the code lints, level 1's replay is re-recorded around it), run the
    project's own tests (they play every replay, level1b's too, at 60 and 144 Hz, and draw
    headless frames with the frog), install the wheel and play from another folder, then take
    a newer engine. The recipes and the replays had tests of their own, each making the game
    again and running the same commands outside the install.
    """
    started = time.monotonic()
    dest = tmp_path / "empty" / NAME
    dest.parent.mkdir()
    out = run_new("Moon Jump", cwd=dest.parent)
    assert out.returncode == 0, out.stderr
    python = make_venv(tmp_path / "venv")
    pip(python, "-e", f"{dest}[test]")
    installed = time.monotonic()

    # The recipes "Add a level and play it after level 1" and "Add an object kind: an enemy".
    follow_level_recipe(dest, (str(python),))
    follow_enemy_recipe(dest)

    def installed_python(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), *args], cwd=dest, capture_output=True, text=True, env=CLEAN_ENV
        )

    order = installed_python(
        "-c",
        f"from {NAME}.definition import GAME\nfrom engine.app.level_order import bundled_levels\n"
        "print(' '.join(p.name for p in bundled_levels(GAME.files.levels_dir())))",
    )
    assert order.stdout.split() == ["level1.json", "level1b.json", "level2.json"], order.stderr
    check = installed_python(
        "-m",
        "engine.levels",
        "--kinds",
        f"{NAME}.kinds",
        "levels/level1.json",
        "levels/level1b.json",
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "frog 1" in check.stdout
    heights = frog_heights(dest, str(python))  # the frog hops in the installed game too
    assert max(heights) - min(heights) > 20  # a tile is 32 px
    lint = installed_python("-m", "ruff", "check", "--no-cache", NAME)
    assert lint.returncode == 0, lint.stdout
    redone = installed_python("-m", NAME, "--rerecord", "levels/replays/level1.replay")
    assert redone.returncode == 0, redone.stderr  # the frog is not in the way
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2"],
        cwd=dest,
        capture_output=True,
        text=True,
        timeout=1200,
        env=CLEAN_ENV,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert " passed" in tests.stdout
    tested = time.monotonic()

    # A wheel install (not editable) runs from any folder, with its levels and config inside,
    # and plays its own levels named by file name alone.
    pip(python, "--no-deps", "--force-reinstall", str(dest))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    last = bundled_levels(dest / "levels")[-1]
    for command, level in (
        ([str(python), "-m", NAME], "First Steps"),
        ([str(python.parent / NAME), "--level", last.name], map_name(last)),
    ):
        ran = subprocess.run(
            [*command, "--headless", "--frames", "60", "--json"],
            cwd=elsewhere,
            capture_output=True,
            text=True,
            timeout=300,
            env=CLEAN_ENV,
        )
        assert ran.returncode == 0, ran.stderr
        assert json.loads(ran.stdout)["level"] == level
    where = subprocess.run(
        [str(python), "-c", f"from {NAME}.definition import GAME; print(GAME.files.levels_dir())"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=CLEAN_ENV,
    )
    assert "site-packages" in where.stdout and f"{NAME}/project_data/levels" in where.stdout

    # A newer engine: uncommitted work is refused by name; committed, the engine file edited
    # on other lines takes the engine's change too, and the game's code is kept.
    scene = dest / "engine" / "runtime" / "scene.py"
    scene.write_text("# my engine note\n" + scene.read_text())
    game_code = {k: v for k, v in files_under(dest).items() if k.startswith(f"{NAME}/")}
    source = newer_checkout(tmp_path)
    refused = run_new(NAME, "--path", str(dest), "--update-engine", source=source)
    assert_one_line_error(refused, "uncommitted changes", "--force")
    for git in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "w"]):
        subprocess.run(["git", "-C", str(dest), *git], check=True, capture_output=True)
    merged = run_new(NAME, "--path", str(dest), "--update-engine", source=source)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "merged" in merged.stdout and "engine/runtime/scene.py" in merged.stdout
    text = scene.read_text()
    assert text.startswith("# my engine note\n") and text.endswith("# a newer engine\n")
    assert {k: v for k, v in files_under(dest).items() if k.startswith(f"{NAME}/")} == game_code
    print(
        f"\ne2e: install {installed - started:.0f} s, recipes and the project's tests "
        f"{tested - installed:.0f} s, wheel and update {time.monotonic() - tested:.0f} s"
    )


# -- hostile names, damaged manifests, a full disk ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("a" * 5000, "is longer than 16 characters"),
        ("é" + "b" * 5000, "is not a Python package name"),
        ("moon\x1b[31mjump", "holds a control character"),
        ("moon\njump", "holds a control character"),
        ("moon\tjump", "holds a control character"),
        ("moon\udcffjump", "holds a control character"),  # an undecodable byte in argv
    ],
    ids=["5000-chars", "non-ascii-long", "escape", "newline", "tab", "surrogate"],
)
def test_hostile_names_are_shown_escaped_and_short(
    name: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        new_project.main([name, "--path", str(tmp_path / "out")])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and fragment in err
    assert err.rstrip("\n").isprintable() and len(err) < 300
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000],
    ids=["arrays", "objects"],
)
def test_a_deeply_nested_manifest_is_one_line(tmp_path: Path, text: str) -> None:
    """Finding 16: RecursionError from --update-engine."""
    path = tmp_path / MANIFEST_NAME
    path.write_text(text)
    with pytest.raises(ValueError, match="not a readable engine manifest \\(nested too deeply\\)"):
        Manifest.read(path)


def _full_disk() -> None:
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_full_disk_half_way_leaves_no_half_written_project(tmp_path: Path) -> None:
    dest = tmp_path / "proj"
    out = subprocess.run(
        [sys.executable, "-m", "engine", "new", NAME, "--path", str(dest), "--no-git"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        preexec_fn=_full_disk,
    )
    assert_one_line_error(out, f"cannot write the project to {dest}", "nothing was written")
    assert list(tmp_path.iterdir()) == []  # no project, no staging folder
