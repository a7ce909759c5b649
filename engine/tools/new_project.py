"""``python -m engine new NAME``: start a new game, which is the sample game under a new name.

What it makes:
    A standalone project in ``--path DIR`` (default ``./<package>``) that installs and runs on
    its own, and is a git repository with a first commit when git is available::

        DIR/pyproject.toml        the distribution, the console script, the test and bundle
                                  extras, the packages (project files shipped in the wheel)
        DIR/README.md             set-up, commands and recipes (a level, the jump, an enemy,
                                  a sound, the window)
        DIR/config.toml           the game's settings: its title, the speedrun toggle, [player]
        DIR/<package>/            the sample game (``game/``), every module, renamed
        DIR/engine/               this engine, vendored (not its tools)
        DIR/engine-manifest.json  the engine's version, its dependency pins and every vendored
                                  file's hash (what ``--update-engine`` compares with)
        DIR/.engine/vendored.tar.bz2  the vendored engine's text, compressed (0.15 MB): what
                                  ``--update-engine`` merges the project's edits against
        DIR/levels/               the starter levels (the first two), their replays, and every
                                  other file of the sample game's levels/ its wheel ships (the
                                  tileset, backdrops, music, CREDITS.md); the designer's guide
        DIR/tests/                tests that play every replay, run the game, check packaging

One source:
    The game is not a template of its own: it is ``game/`` copied module for module, with
    every reference to the ``game`` package, its command and its distribution name rewritten
    (:func:`rewrite_game_text`). Whatever the sample game gains, the next new game has. Only
    the project's own files (``pyproject.toml``, README, ``config.toml``, ``.gitignore``, tests)
    are text templates in ``engine/tools/project_template/``, with ``{{field}}`` placeholders.

Names (:func:`project_from_name`):
    NAME is the game's name as written: ``"Moon Jump"``, ``MyGame`` or ``moon_jump``. The
    package is NAME in lower case with every run of other characters as ``_`` (``moon_jump``,
    ``mygame``); the title shown in the window is NAME as written, or, for a plain lower case
    name, its words capitalised (``moon_jump`` -> ``Moon Jump``). A package name that is not
    plain ASCII, is a keyword, is longer than :data:`MAX_NAME_LENGTH`, would shadow the
    standard library, the engine, ``test``/``tests``, a dependency of the engine (its whole
    dependency tree, with the test and bundle tools), a widely used package a game may install
    later (:data:`COMMON_IMPORTS`: ``requests``, ``yaml``...) or any module already importable here
    (as Django's ``startproject`` refuses one) is refused in one line, exit status 2.

Keeping the user's work:
    ``new`` writes nothing if any file it would write exists, naming it; ``--force``
    overwrites, and lists every file it overwrites whose contents differ. The files are
    written all or nothing (:func:`~engine.storage.staged_tree.write_tree`: a staging folder,
    then renamed into place), so a full disk or a failure half-way leaves no half-written
    project. A NAME holding a control character or line break is refused, and every message
    shows NAME escaped and shortened. ``--update-engine``
    (:func:`update_engine`) takes this checkout's engine into an existing project, merging
    every engine file three ways (the vendored text, the project's copy, the new engine's; see
    :mod:`engine.tools.engine_update` and ``engine/tools/README.md``): the project's edits are
    kept, the engine's changes land beside them, and a conflict is written between markers into
    its file, with nothing else changed (exit status 1). ``--dry-run`` prints the plan. It
    refuses an older engine and uncommitted git changes unless ``--force``. Files the user
    added to ``engine/`` are kept. Nothing outside ``engine/``, ``.engine/`` and
    ``engine-manifest.json`` is touched.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import keyword
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from engine.config.schema import shown_text
from engine.runtime.launch import OneLineParser, fail
from engine.storage.atomic_file import write_atomic
from engine.storage.bounded_read import read_regular_file
from engine.storage.staged_tree import write_tree
from engine.tools.engine_update import (
    BASE_NAME,
    OUTCOMES,
    FileStep,
    VendoredBase,
    compare_versions,
    pack_base,
    plan_files,
    read_base,
)

__all__ = [
    "ENGINE_EXCLUDED",
    "MANIFEST_NAME",
    "MAX_NAME_LENGTH",
    "RESERVED_NAMES",
    "EngineUpdate",
    "Manifest",
    "Project",
    "UpdateRefusedError",
    "build_parser",
    "main",
    "name_problem",
    "plan_engine",
    "plan_project",
    "project_from_name",
    "rewrite_game_text",
    "update_engine",
    "write_files",
]

SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""The template checkout: ``engine/``, ``game/``, ``levels/`` and ``pyproject.toml``."""

TEMPLATE_DIR = Path(__file__).resolve().parent / "project_template"
"""The new project's own files, as text with ``{{placeholder}}`` fields."""

TEMPLATE_FILES: Mapping[str, str] = {
    "pyproject.toml": "pyproject.toml.tmpl",
    "README.md": "README.md.tmpl",
    ".gitignore": "gitignore.tmpl",
    "config.toml": "config.toml.tmpl",
    "tests/__init__.py": "tests_init.py.tmpl",
    "tests/conftest.py": "tests_conftest.py.tmpl",
    "tests/test_game.py": "test_game.py.tmpl",
    "tests/test_replays.py": "test_replays.py.tmpl",
    "tests/test_packaging.py": "test_packaging.py.tmpl",
}
"""Path in the new project -> template file in :data:`TEMPLATE_DIR`."""

STARTER_LEVELS = 2
"""How many of the sample game's levels (the first, in play order) a new game starts with."""

ENGINE_EXCLUDED = ("__main__.py", "tools")
"""Entries of ``engine/`` a shipped game does not need: the developers' tools (the monitor
simulator, the benchmarks, the demo, this generator) and ``python -m engine``, which runs it."""

MANIFEST_NAME = "engine-manifest.json"
"""The project file that records the vendored engine (see :class:`Manifest`)."""


MANIFEST_FORMAT = "vendored-engine-manifest"

RESERVED_NAMES = frozenset({"engine", "game", "levels", "tests", "test", "sounds", "music"})
"""Names the template or the new project's layout use (``test`` is Python's own test suite)."""

TOOL_DISTRIBUTIONS = ("pytest", "ruff", "pyinstaller", "setuptools", "pip", "wheel")
"""Tools a project runs besides the engine's dependencies: their names are refused too."""

KNOWN_IMPORTS = frozenset(
    {"arcade", "pymunk", "numpy", "pyglet", "PIL", "pillow", "pytiled_parser", "platformdirs"}
    | {"cffi", "attrs", "attr", "pytest", "ruff", "pyinstaller", "PyInstaller", "setuptools"}
    | {"pip", "wheel", "typing_extensions", "pycparser", "pluggy", "iniconfig", "packaging"}
)
"""Import names refused even when the metadata of the environment cannot be read."""

COMMON_IMPORTS = frozenset(
    {"requests", "urllib3", "certifi", "idna", "charset_normalizer", "six", "yaml", "toml"}
    | {"click", "rich", "typer", "pydantic", "django", "flask", "pygame", "pyglet", "scipy"}
    | {"pandas", "matplotlib", "moderngl", "pyopengl", "OpenGL", "psutil", "tqdm", "boto3"}
)
"""Import names of widely used packages a game may install later (to fetch a leaderboard, read
YAML, plot its timings): not needed now, but a game package of that name would hide them."""

MAX_NAME_LENGTH = 16
"""Longest package name: it is typed in every ``python -m NAME`` and fits the copied lines."""

PROG = "platformer-new"

# Wording of the sample game that a new game should not inherit (old, new); applied in order.
_WORDING = (
    ("The sample platformer", "The game"),
    ("the sample platformer", "the game"),
    ("The sample game's", "The game's"),
    ("the sample game's", "the game's"),
    ("The sample game", "The game"),
    ("the sample game", "the game"),
    ("sample game", "game"),
)

# The conventions sections of levels/README.md, and rewrites for sentences about the template's
# own levels (which a new project has only the first of).
_LEVEL_SECTIONS = ("Making a level in Tiled", "Reachability", "Licence")
_LEVELS_WORDING = (
    ("the bundled maps are", "the template's maps are"),
    ("the bundled shaft", "the template's climbing level"),
    ("(levels 2 and 3)", "(the template's levels 2 and 3)"),
    ("The bundled levels", "The template's levels"),
    ("the bundled levels", "the template's levels"),
)


# ---------------------------------------------------------------------------------------------
# NAME
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Project:
    """The names a new project is made with.

    Attributes:
        name: The Python package, console script and command (``python -m NAME``).
        title: The game's title as the player sees it (the window title).
    """

    name: str
    title: str = ""

    def __post_init__(self) -> None:
        if not self.title:
            object.__setattr__(self, "title", _title_of(self.name))

    @property
    def dist_name(self) -> str:
        """The distribution name in ``pyproject.toml``: NAME with ``-`` for ``_``."""
        return self.name.replace("_", "-")

    def fill(self, text: str, **fields: str) -> str:
        """Fill ``{{name}}``, ``{{dist_name}}``, ``{{title}}`` and ``fields`` into ``text``.

        Raises:
            ValueError: A ``{{field}}`` is left over (a template names an unknown field).
        """
        values = {"name": self.name, "dist_name": self.dist_name, "title": self.title, **fields}
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        left = re.search(r"\{\{\w+\}\}", text)
        if left:
            raise ValueError(f"unknown template field {left.group(0)}")
        return text


def _title_of(text: str) -> str:
    """``moon_jump`` -> ``Moon Jump``; a name with capitals or spaces stays as written."""
    if text != text.lower():
        return text.strip()
    words = [word for word in re.split(r"[\s_-]+", text) if word]
    return " ".join(word.capitalize() for word in words) or text


def project_from_name(text: str) -> Project:
    """The project for NAME as the user wrote it: package in lower case, title as written."""
    package = re.sub(r"[\s_-]+", "_", text.strip()).strip("_").lower()
    return Project(package, _title_of(text))


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement.strip(), maxsplit=1)[0]


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_names(roots: Iterable[str] = ("platformer-engine", *TOOL_DISTRIBUTIONS)) -> set[str]:
    """Every distribution in the dependency trees of ``roots`` and their import names.

    Read from the installed metadata (what ``pip`` installed here); both spellings are
    returned, lower case with ``_`` for ``-``.
    """
    seen: set[str] = set()
    pending = [_normalise(root) for root in roots]
    try:  # the template's own pins, also when it is run from a checkout it was not installed from
        pins, _ = _dependencies(SOURCE_ROOT / "pyproject.toml")
        pending += [_normalise(_requirement_name(pin)) for pin in pins]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        pass
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        pending.extend(
            _normalise(_requirement_name(req)) for req in requirements if "extra ==" not in req
        )
    names = {name.replace("-", "_") for name in seen}
    for module, distributions in importlib.metadata.packages_distributions().items():
        if any(_normalise(dist) in seen for dist in distributions):
            names.add(module.lower())
    return names | {name.lower() for name in KNOWN_IMPORTS}


def name_problem(name: str, dest: Path | None = None) -> str | None:
    """Why ``name`` cannot be a new game's package, or None if it can.

    Args:
        name: The package name (see :func:`project_from_name`).
        dest: The project folder: a module found there (a project being made again) does not
            count as a clash.
    """
    shown = f"'{shown_text(name)}'"  # escaped and shortened: NAME may be anything
    if not (name.isascii() and name.isidentifier()):
        return (
            f"{shown} is not a Python package name: use letters, digits, spaces, - or _, "
            "starting with a letter (e.g. moon_jump or 'Moon Jump')"
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"{shown} is a Python keyword"
    if len(name) > MAX_NAME_LENGTH:
        return (
            f"the package name {shown} is longer than {MAX_NAME_LENGTH} characters: pick a "
            "shorter NAME (the title in config.toml can be longer)"
        )
    if name.startswith("_"):
        return f"{shown} starts with an underscore: start the package name with a letter"
    if name in RESERVED_NAMES:
        return f"{shown} is taken: the template and the new project use {sorted(RESERVED_NAMES)}"
    if name in sys.stdlib_module_names:
        return f"{shown} is a standard library module: the game's package would shadow it"
    if name in dependency_names():
        return f"{shown} is a package the engine or its tools need: the game would shadow it"
    if name in {common.lower() for common in COMMON_IMPORTS}:
        return (
            f"{shown} is the name of a widely used Python package the game may need one day: "
            "the game would hide it; pick another name"
        )
    spec = importlib.util.find_spec(name)
    if spec is not None:
        where = spec.origin or next(iter(spec.submodule_search_locations or []), "")
        if not (
            dest is not None and where and Path(where).resolve().is_relative_to(dest.resolve())
        ):
            return (
                f"{shown} conflicts with the name of an existing Python module ({where}): "
                "pick another name"
            )
    return None


# ---------------------------------------------------------------------------------------------
# Planning: relative path -> bytes, nothing written
# ---------------------------------------------------------------------------------------------


def plan_project(project: Project, source_root: Path = SOURCE_ROOT) -> dict[PurePosixPath, bytes]:
    """Every file of a new project, as relative path -> contents.

    Raises:
        FileNotFoundError: ``source_root`` is not a checkout of the template (no ``game/``,
            ``levels/`` or ``pyproject.toml``).
    """
    for needed in ("pyproject.toml", "game/__main__.py", "levels/tiles"):
        if not (source_root / needed).exists():
            raise FileNotFoundError(
                f"{source_root / needed} not found: making a project needs a source checkout of "
                "the template (installed with pip install -e)"
            )
    engine = plan_engine(source_root)
    files: dict[PurePosixPath, bytes] = {}
    files.update(_game_files(project, source_root))
    files.update(engine)
    files.update(_level_files(project, source_root))
    files.update(_template_files(project, source_root, engine, files))
    files[PurePosixPath(MANIFEST_NAME)] = Manifest.of(engine, source_root).to_json()
    files[BASE_NAME] = _vendored_base(engine, engine_version(source_root))
    return dict(sorted(files.items()))


def plan_engine(source_root: Path = SOURCE_ROOT) -> dict[PurePosixPath, bytes]:
    """The vendored engine: every file of ``engine/`` but :data:`ENGINE_EXCLUDED`, caches and
    the template's docs."""
    engine_dir = source_root / "engine"
    files: dict[PurePosixPath, bytes] = {}
    for path in sorted(engine_dir.rglob("*")):
        relative = path.relative_to(engine_dir)
        if not path.is_file() or _is_cache(relative) or _is_template_doc(relative):
            continue
        if relative.parts[0] in ENGINE_EXCLUDED:
            continue
        files[PurePosixPath("engine", *relative.parts)] = path.read_bytes()
    if PurePosixPath("engine/__init__.py") not in files:
        raise FileNotFoundError(f"{engine_dir}: not the template's engine package")
    return files


def _is_cache(relative: Path | PurePosixPath) -> bool:
    return "__pycache__" in relative.parts or relative.suffix in (".pyc", ".pyo")


def _is_template_doc(relative: Path | PurePosixPath) -> bool:
    """A package's ``README.md``: the template's reference pages stay in the template.

    They describe the template (its sample game, tools and figures) and link into its tree, so
    a new game would get pages whose links lead nowhere; it gets its own README instead.
    """
    return relative.name == "README.md"


def _packages(files: Iterable[PurePosixPath]) -> list[str]:
    """The Python packages among ``files``: every folder with an ``__init__.py``, dotted."""
    return sorted({".".join(path.parent.parts) for path in files if path.name == "__init__.py"})


def _template_files(
    project: Project,
    source_root: Path,
    engine: Mapping[PurePosixPath, bytes],
    planned: Mapping[PurePosixPath, bytes],
) -> dict[PurePosixPath, bytes]:
    dependencies, test_dependencies = _dependencies(source_root / "pyproject.toml")
    bundle = _extra(source_root / "pyproject.toml", "bundle")
    packages = _packages([*engine, *planned])
    fields = {
        "dependencies": _toml_list(dependencies),
        "test_dependencies": _toml_list(test_dependencies),
        "bundle_dependencies": _toml_list(bundle),
        "packages": _toml_list([*packages, f"{project.name}.project_data"]),
        "package_data": _toml_list(_project_data_globs(source_root / "pyproject.toml")),
        "levels": _level_names(source_root),
    }
    files: dict[PurePosixPath, bytes] = {}
    for target, template in TEMPLATE_FILES.items():
        text = (TEMPLATE_DIR / template).read_text(encoding="utf-8")
        files[PurePosixPath(project.fill(target))] = project.fill(text, **fields).encode()
    return files


def _dependencies(pyproject: Path) -> tuple[list[str], list[str]]:
    """The template's run-time dependencies, and the test tools a new project keeps."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    project = data["project"]
    keep = ("pytest", "ruff", "pytest-xdist")
    tests = [
        requirement
        for requirement in project.get("optional-dependencies", {}).get("test", [])
        if _requirement_name(requirement) in keep
    ]
    return list(project["dependencies"]), tests


def _extra(pyproject: Path, name: str) -> list[str]:
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return list(data["project"].get("optional-dependencies", {}).get(name, []))


def _project_data_globs(pyproject: Path) -> list[str]:
    """The sample game's project files shipped in its wheel: the new game ships the same ones.

    One list, in the template's ``pyproject.toml`` (``game.project_data``'s package data), so
    an asset folder the sample game gains (backdrops, music) ships in new games too.
    """
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return list(data["tool"]["setuptools"]["package-data"]["game.project_data"])


def _toml_list(items: Iterable[str]) -> str:
    return "\n".join(f'    "{item}",' for item in items)


def _starter_levels(source_root: Path) -> list[Path]:
    """The sample game's first :data:`STARTER_LEVELS` levels in play order, with replays."""
    from engine.app.level_order import bundled_levels  # the same order the game plays them in

    levels = bundled_levels(source_root / "levels")[:STARTER_LEVELS]
    for level in levels:
        replay = source_root / "levels" / "replays" / f"{level.stem}.replay"
        if not replay.is_file():
            raise FileNotFoundError(f"{replay} not found: every starter level needs its replay")
    return levels


def _level_names(source_root: Path) -> str:
    return ", ".join(f"`{level.name}`" for level in _starter_levels(source_root))


def _game_files(project: Project, source_root: Path) -> dict[PurePosixPath, bytes]:
    """Every file of ``game/`` but its README, renamed: the new game is the sample game."""
    game_dir = source_root / "game"
    files: dict[PurePosixPath, bytes] = {}
    for source in sorted(game_dir.rglob("*")):
        relative = source.relative_to(game_dir)
        if not source.is_file() or _is_cache(relative) or _is_template_doc(relative):
            continue
        data = source.read_bytes()
        if source.suffix in (".py", ".md", ".txt", ".toml"):
            data = rewrite_game_text(data.decode("utf-8"), project).encode()
        files[PurePosixPath(project.name, *relative.parts)] = data
    return files


def rewrite_game_text(text: str, project: Project) -> str:
    """Sample game code or text renamed for ``project``.

    ``game.X`` (imports, ``:mod:`` references, ``--kinds game.kinds``) becomes ``NAME.X``,
    ``from game import`` and ``import game`` follow, ``python -m game`` becomes ``python -m
    NAME``, the distribution name ``platformer-engine`` (which also names the player's
    settings and records folders) becomes the project's, and the wording that calls the code
    a "sample game" is made neutral. ``self.game.x`` and "the game." are left alone.
    """
    name = project.name
    text = re.sub(r"(?<![\w.])game\.(?=[A-Za-z_])", f"{name}.", text)
    text = re.sub(r"(?<![\w.])from game import\b", f"from {name} import", text)
    text = re.sub(r"(?<![\w.])import game\b", f"import {name}", text)
    text = re.sub(r"python -m game\b", f"python -m {name}", text)
    text = text.replace('"platformer-engine"', f'"{project.dist_name}"')
    text = text.replace("/platformer-engine", f"/{project.dist_name}")
    for old, new in _WORDING:
        text = text.replace(old, new)
    return text


def _level_files(project: Project, source_root: Path) -> dict[PurePosixPath, bytes]:
    """The new game's ``levels/``: the starter levels and replays, and every other file of it.

    Which files count is the sample game's one list, the project files its wheel ships
    (:func:`_project_data_globs`): the tileset, backdrops, music and ``CREDITS.md`` today, and
    whatever asset folder it ships tomorrow. Of the maps and replays only the starters are
    taken; ``levels/README.md`` is the new project's own (:func:`levels_readme`), and the bundled
    run file (``levels/runs/``) is left out: it plays every sample level.
    """
    from engine.app.level_order import LEVEL_SUFFIXES  # what the game counts as a level

    starters = _starter_levels(source_root)
    taken = {level.name for level in starters} | {f"{level.stem}.replay" for level in starters}
    levels = source_root / "levels"
    files: dict[PurePosixPath, bytes] = {}
    for path in _project_files(source_root):
        relative = path.relative_to(source_root)
        if relative.parts[0] != "levels" or relative == Path("levels/README.md"):
            continue
        if relative.parts[:2] == ("levels", "runs"):
            continue  # the sample's run plays all its levels; `python -m engine.app.make_run` makes one
        is_map = path.parent == levels and path.suffix.lower() in LEVEL_SUFFIXES
        is_replay = path.parent == levels / "replays"
        if (is_map or is_replay) and path.name not in taken:
            continue
        files[PurePosixPath(*relative.parts)] = path.read_bytes()  # byte for byte: hashes
    files[PurePosixPath("levels/README.md")] = levels_readme(project, source_root).encode()
    return files


def _project_files(source_root: Path) -> list[Path]:
    """The sample game's project files (``config.toml``, ``levels/``...) its wheel ships."""
    globs = _project_data_globs(source_root / "pyproject.toml")
    return sorted({path for glob in globs for path in source_root.glob(glob) if path.is_file()})


def levels_readme(project: Project, source_root: Path = SOURCE_ROOT) -> str:
    """The new project's ``levels/README.md``: its own intro and the template's conventions.

    Raises:
        ValueError: The template's ``levels/README.md`` lacks one of the sections it copies.
    """
    source = (source_root / "levels" / "README.md").read_text(encoding="utf-8")
    sections = _markdown_sections(source)
    chosen: dict[str, str] = {}
    for wanted in _LEVEL_SECTIONS:
        matches = [body for title, body in sections.items() if title.startswith(wanted)]
        if not matches:
            raise ValueError(f"levels/README.md has no section '## {wanted}...'")
        body = rewrite_game_text(matches[0], project)
        for old, new in _LEVELS_WORDING:
            body = body.replace(old, new)
        chosen[wanted] = body.rstrip() + "\n"
    template = (TEMPLATE_DIR / "levels_README.md.tmpl").read_text(encoding="utf-8")
    return project.fill(
        template,
        making_a_level=chosen["Making a level in Tiled"],
        reachability=chosen["Reachability"],
        licence=chosen["Licence"],
        levels=_level_names(source_root),
    )


def _markdown_sections(text: str) -> dict[str, str]:
    """Level-2 sections of a Markdown document: title -> the section, heading included."""
    sections: dict[str, str] = {}
    title: str | None = None
    lines: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            if title is not None:
                sections[title] = "".join(lines)
            title, lines = line[3:].strip(), []
        if title is not None:
            lines.append(line)
    if title is not None:
        sections[title] = "".join(lines)
    return sections


# ---------------------------------------------------------------------------------------------
# The manifest
# ---------------------------------------------------------------------------------------------


def file_hash(data: bytes) -> str:
    """blake2b-128 hex of a file's bytes (``b2sum -l 128 FILE``)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def engine_version(source_root: Path = SOURCE_ROOT) -> str:
    """The template's version (``pyproject.toml``), with the git commit when there is one."""
    data = tomllib.loads((source_root / "pyproject.toml").read_text(encoding="utf-8"))
    version = str(data["project"]["version"])
    commit = _git(source_root, "rev-parse", "--short=12", "HEAD")
    return f"{version}+g{commit}" if commit else version


@dataclass(frozen=True, slots=True)
class Manifest:
    """What was vendored: ``engine-manifest.json`` in the project.

    Attributes:
        engine_version: The template version the engine came from (``0.1.0+g<commit>``).
        dependencies: The engine's dependency pins at that version.
        files: Every vendored engine file (``engine/...``) -> its :func:`file_hash`.
    """

    engine_version: str
    dependencies: tuple[str, ...]
    files: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, engine: Mapping[PurePosixPath, bytes], source_root: Path) -> Manifest:
        """The manifest of ``engine`` (from :func:`plan_engine`) taken from ``source_root``."""
        dependencies, _ = _dependencies(source_root / "pyproject.toml")
        files = {str(path): file_hash(data) for path, data in sorted(engine.items())}
        return cls(engine_version(source_root), tuple(dependencies), files)

    def to_json(self) -> bytes:
        """The file's bytes: indented JSON, sorted, one file per line."""
        data = {
            "format": MANIFEST_FORMAT,
            "version": 1,
            "engine_version": self.engine_version,
            "dependencies": list(self.dependencies),
            "files": dict(sorted(self.files.items())),
        }
        return (json.dumps(data, indent=2) + "\n").encode()

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """Read and check a manifest.

        Raises:
            ValueError: It is missing, unreadable or not a manifest (one line).
        """
        try:
            data = json.loads(read_regular_file(path, 16 << 20))
        except FileNotFoundError:
            raise ValueError(
                f"{path} not found: the project records no vendored engine (made before "
                "manifests?); use --force to replace engine/ with this checkout's"
            ) from None
        except (OSError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            reason = (
                "nested too deeply" if isinstance(exc, RecursionError) else shown_text(str(exc))
            )
            raise ValueError(f"{path}: not a readable engine manifest ({reason})") from None
        files = data.get("files") if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("format") != MANIFEST_FORMAT
            or not isinstance(files, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
            or not isinstance(data.get("dependencies"), list)
        ):
            raise ValueError(f"{path}: not an engine manifest (format {MANIFEST_FORMAT!r})")
        return cls(
            str(data.get("engine_version", "?")),
            tuple(str(item) for item in data["dependencies"]),
            dict(files),
        )


# ---------------------------------------------------------------------------------------------
# Writing a new project
# ---------------------------------------------------------------------------------------------


class ExistingFileError(Exception):
    """A file the command would write exists already (and ``--force`` was not given)."""

    def __init__(self, path: Path, count: int) -> None:
        more = f" (and {count - 1} more of the files it would write)" if count > 1 else ""
        super().__init__(f"{path} exists{more}; nothing was written (use --force to overwrite)")
        self.path = path
        self.count = count


def write_files(
    dest: Path, files: Mapping[PurePosixPath, bytes], *, force: bool = False
) -> list[Path]:
    """Write ``files`` under ``dest``; all or nothing (:func:`~engine.storage.staged_tree.write_tree`).

    Returns:
        The existing files that were overwritten with other contents (empty without force).

    Raises:
        ExistingFileError: A planned file exists and ``force`` is False; nothing was written.
        NotADirectoryError: A planned directory exists as a file; nothing was written.
        OSError: A file could not be written (a full disk, say); nothing was written.
    """
    targets = [(dest.joinpath(*relative.parts), data) for relative, data in files.items()]
    for path, _ in targets:
        for parent in (path.parent, *path.parent.parents):
            if parent.exists() and not parent.is_dir():
                raise NotADirectoryError(
                    f"{parent} is a file, not a directory; nothing was written"
                )
            if parent == dest:
                break
    existing = [path for path, _ in targets if path.exists() or path.is_symlink()]
    if existing and not force:
        raise ExistingFileError(existing[0], len(existing))
    overwritten = [
        path
        for path, data in targets
        if path in existing and not (path.is_file() and path.read_bytes() == data)
    ]
    write_tree(dest, files)  # all or nothing: a full disk half-way leaves no half project
    return overwritten


def _git(folder: Path, *args: str) -> str | None:
    """``git -C folder ARGS``'s output, or None when git is missing or fails."""
    if shutil.which("git") is None:
        return None
    try:
        out = subprocess.run(
            ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=120
        )
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_first_commit(dest: Path, project: Project, version: str) -> str:
    """Make ``dest`` a git repository with everything in a first commit; say what happened."""
    if shutil.which("git") is None:
        return "git not found: the project is not a git repository (git init to make it one)"
    if _git(dest, "rev-parse", "--is-inside-work-tree") == "true":
        return "the folder is inside a git repository already: review the new files with git status"
    identity: list[str] = []
    if not _git(dest, "config", "user.email"):
        identity = ["-c", "user.name=platformer-new", "-c", "user.email=platformer-new@localhost"]
    message = f"New game {project.title} from the platformer engine {version}"
    if (
        _git(dest, "init", "-q") is None
        or _git(dest, "add", "-A") is None
        or _git(dest, *identity, "commit", "-q", "-m", message) is None
    ):
        return "warning: git could not make the first commit; the files are all there"
    return f"git repository with a first commit: {message!r}"


# ---------------------------------------------------------------------------------------------
# Taking a newer engine
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EngineUpdate:
    """What :func:`update_engine` did (or, refused or a dry run, would do).

    Every list holds ``engine/...`` paths; the outcomes are :mod:`engine.tools.engine_update`'s.

    Attributes:
        added: Engine files new in this engine.
        changed: Engine files not edited in the project: replaced by this engine's.
        merged: Files edited in the project that this engine changed on other lines: both kept.
        conflicting: Files both changed on the same lines: both sides between markers.
        removed: Engine files this engine no longer has (not edited in the project).
        kept: Files the user added to ``engine/`` (not the engine's): left alone.
        orphaned: Files this engine no longer has that were edited in the project: kept.
        left_deleted: Files deleted in the project that this engine changed: left deleted.
        local_edits: Files edited in the project that this engine did not change: kept.
        unresolved: Files still holding an earlier update's conflict markers.
        resolved: Files an earlier update left conflicting, now free of markers.
        uncommitted: Files of the project git has uncommitted changes to (besides those an
            earlier update left conflicting): the update refuses them without ``--force``.
        pin_changes: ``old -> new`` dependency pins, ``+ new`` and ``- old``.
        pyproject_lacks: New pins the project's ``pyproject.toml`` does not have.
        packages_lacking: Engine packages the project's ``pyproject.toml`` does not list.
        old_version: The engine version the project had.
        new_version: This engine's version.
        order: :func:`~engine.tools.engine_update.compare_versions` of the two: -1 when this
            engine is older (refused without ``--force``), None when it cannot tell.
        steps: Every file's step (what is written), by path.
        base: Every vendored file's BASE (None: not known), by path.
        engine: This engine's files, by path.
    """

    added: list[str]
    changed: list[str]
    merged: list[str]
    conflicting: list[str]
    removed: list[str]
    kept: list[str]
    orphaned: list[str]
    left_deleted: list[str]
    local_edits: list[str]
    unresolved: list[str]
    resolved: list[str]
    uncommitted: list[str]
    pin_changes: list[str]
    pyproject_lacks: list[str]
    packages_lacking: list[str]
    old_version: str
    new_version: str
    order: int | None
    steps: Mapping[str, FileStep] = field(default_factory=dict, repr=False)
    base: Mapping[str, bytes | None] = field(default_factory=dict, repr=False)
    engine: Mapping[str, bytes] = field(default_factory=dict, repr=False)


class UpdateRefusedError(Exception):
    """The update would take an older engine, or the project has uncommitted changes."""


def _vendored_base(engine: Mapping[PurePosixPath, bytes], version: str) -> bytes:
    """The project's record of the engine it vendors (:data:`BASE_NAME`)."""
    return pack_base(VendoredBase(version, {str(path): data for path, data in engine.items()}))


def _base_texts(
    manifest: Manifest,
    record: VendoredBase | None,
    local: Mapping[str, bytes],
    new: Mapping[str, bytes],
) -> dict[str, bytes | None]:
    """Every vendored file -> its BASE: from the record, else what still has its hash."""
    texts: dict[str, bytes | None] = dict(record.files) if record is not None else {}
    for path, recorded in manifest.files.items():
        if path in texts:
            continue
        known = [data for data in (local.get(path), new.get(path)) if data is not None]
        texts[path] = next((data for data in known if file_hash(data) == recorded), None)
    return texts


def _uncommitted(dest: Path) -> list[str]:
    """Files under ``dest`` with changes git has not committed.

    None when the project is not in git: not in a repository, or in one that does not track
    its manifest (a game made inside another checkout and never added to it).
    """
    if _git(dest, "rev-parse", "--is-inside-work-tree") != "true" or not _git(
        dest, "ls-files", "--", MANIFEST_NAME
    ):
        return []
    changed: set[str] = set()
    for args in (
        ("ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard"),
        ("diff", "--cached", "--name-only", "--relative", "-z"),
    ):
        out = _git(dest, "-c", "core.quotepath=off", *args, "--", ".")
        if out is None:
            return ["(git status failed)"]
        changed.update(name for name in out.split("\0") if name)
    return sorted(changed)


def _is_ancestor(source_root: Path) -> Callable[[str, str], bool | None]:
    def is_ancestor(older: str, newer: str) -> bool | None:
        if any(
            _git(source_root, "cat-file", "-e", f"{c}^{{commit}}") is None for c in (older, newer)
        ):
            return None  # a commit this checkout does not have: cannot tell
        return _git(source_root, "merge-base", "--is-ancestor", older, newer) is not None

    return is_ancestor


def plan_engine_update(
    dest: Path, source_root: Path = SOURCE_ROOT, *, force: bool = False
) -> EngineUpdate:
    """Merge the project's engine with this checkout's, in memory; nothing is written.

    Raises:
        ValueError: The project's manifest is missing or damaged (with ``force``, the
            project's engine files then merge against nothing: a file that differs from
            this engine's is a conflict holding both), or its record of the vendored engine
            (:data:`BASE_NAME`) is damaged.
    """
    try:
        manifest = Manifest.read(dest / MANIFEST_NAME)
    except ValueError:
        if not force:
            raise
        manifest = Manifest("unknown", (), {})
    record = read_base(dest / BASE_NAME)
    new = {str(path): data for path, data in plan_engine(source_root).items()}
    local = {
        path.relative_to(dest).as_posix(): path.read_bytes()
        for path in sorted((dest / "engine").rglob("*"))
        if path.is_file() and not _is_cache(path.relative_to(dest))
    }
    new_version = engine_version(source_root)
    base = _base_texts(manifest, record, local, new)
    steps = plan_files(base, local, new, (manifest.engine_version, new_version))
    by_outcome: dict[str, list[str]] = {outcome: [] for outcome in OUTCOMES}
    for path, step in steps.items():
        by_outcome[step.outcome].append(path)
    pending = record.conflicts if record is not None else ()
    allowed = {*pending, str(BASE_NAME)}
    dependencies, _ = _dependencies(source_root / "pyproject.toml")
    return EngineUpdate(
        added=by_outcome["added"],
        changed=by_outcome["changed"],
        merged=by_outcome["merged"],
        conflicting=by_outcome["conflicting"],
        removed=by_outcome["removed"],
        kept=by_outcome["yours"],
        orphaned=by_outcome["orphaned"],
        left_deleted=by_outcome["left_deleted"],
        local_edits=by_outcome["local"],
        unresolved=by_outcome["unresolved"],
        resolved=[
            path for path in pending if path in steps and steps[path].outcome != "unresolved"
        ],
        uncommitted=[path for path in _uncommitted(dest) if path not in allowed],
        pin_changes=_pin_changes(manifest.dependencies, dependencies),
        pyproject_lacks=_pyproject_lacks(dest / "pyproject.toml", dependencies),
        packages_lacking=_packages_lacking(dest / "pyproject.toml", list(map(PurePosixPath, new))),
        old_version=manifest.engine_version,
        new_version=new_version,
        order=compare_versions(manifest.engine_version, new_version, _is_ancestor(source_root)),
        steps=steps,
        base=base,
        engine=new,
    )


def _pin_changes(old: Sequence[str], new: Sequence[str]) -> list[str]:
    before = {_normalise(_requirement_name(pin)): pin for pin in old}
    after = {_normalise(_requirement_name(pin)): pin for pin in new}
    changes = [
        f"{before[name]} -> {after[name]}"
        for name in after
        if name in before and before[name] != after[name]
    ]
    changes += [f"+ {after[name]}" for name in after if name not in before]
    changes += [f"- {before[name]}" for name in before if name not in after]
    return changes


def _pyproject_lacks(pyproject: Path, wanted: Sequence[str]) -> list[str]:
    try:
        have, _ = _dependencies(pyproject)
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return list(wanted)
    normalised = {" ".join(pin.split()) for pin in have}
    return [pin for pin in wanted if " ".join(pin.split()) not in normalised]


def _packages_lacking(pyproject: Path, engine_files: Sequence[PurePosixPath]) -> list[str]:
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        listed = set(data["tool"]["setuptools"]["packages"])
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError):
        return []
    return [package for package in _packages(engine_files) if package not in listed]


def update_engine(
    dest: Path,
    name: str,
    source_root: Path = SOURCE_ROOT,
    *,
    force: bool = False,
    dry_run: bool = False,
) -> EngineUpdate:
    """Merge this checkout's engine into the project at ``dest``; touch nothing else.

    Every engine file is merged three ways (:mod:`engine.tools.engine_update`). When every
    file merges, the merged files are written atomically, then the record of the vendored
    engine (:data:`BASE_NAME`) and last the manifest, so an update cut short is finished by
    running it again. When some conflict, only they are written (with markers) and the record
    notes them; the caller reports them and exits 1. When a file still holds an earlier
    conflict's markers (:attr:`EngineUpdate.unresolved`), nothing is written.

    Args:
        force: Take an older engine, and update although git has uncommitted changes.
        dry_run: Plan only: nothing is refused, nothing is written.

    Raises:
        FileNotFoundError: ``dest`` is not a project made with ``new`` (no ``dest/NAME/``
            package or no ``dest/engine/``).
        ValueError: The manifest is missing or damaged (and ``force`` is False), or the
            record of the vendored engine is damaged.
        UpdateRefusedError: This engine is older than the project's, or git has uncommitted
            changes in the project (and ``force`` is False); nothing was written.
    """
    if not (dest / name / "__init__.py").is_file() or not (dest / "engine").is_dir():
        raise FileNotFoundError(
            f"{dest} is not a project made with 'new {name}' (it needs {name}/ and engine/)"
        )
    update = plan_engine_update(dest, source_root, force=force)
    if dry_run:
        return update
    if update.order == -1 and not force:
        raise UpdateRefusedError(
            f"{dest / MANIFEST_NAME} records engine {update.old_version}, newer than this "
            f"checkout's {update.new_version}: taking it would go back to an older engine; "
            "nothing was written (use --force to take it anyway)"
        )
    if update.uncommitted and not force:
        first, rest = update.uncommitted[0], len(update.uncommitted) - 1
        more = f" and {rest} more" if rest else ""
        raise UpdateRefusedError(
            f"{dest / first}{more}: uncommitted changes in the project; commit or stash them "
            "first, so that git diff shows just what the update did and git checkout undoes "
            "it; nothing was written (or use --force)"
        )
    if update.unresolved:
        return update
    if update.conflicting:
        for path in update.conflicting:  # the files first: the record says they hold markers
            data = update.steps[path].data
            if data is not None:
                write_atomic(dest / path, data)
        texts = {path: data for path, data in update.base.items() if data is not None}
        texts.update({path: update.engine[path] for path in update.conflicting})
        pending = tuple(sorted({*update.resolved, *update.conflicting}))
        record = VendoredBase(update.old_version, texts, pending)
        (dest / BASE_NAME).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(dest / BASE_NAME, pack_base(record))
        return update
    for path in [*update.added, *update.changed, *update.merged]:
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = update.steps[path].data
        assert data is not None
        write_atomic(target, data)
    for path in update.removed:
        (dest / path).unlink()
        for parent in (dest / path).parents:
            if parent == dest / "engine" or any(parent.iterdir()):
                break
            parent.rmdir()
    engine = {PurePosixPath(path): data for path, data in update.engine.items()}
    if read_base(dest / BASE_NAME) != VendoredBase(update.new_version, update.engine):
        (dest / BASE_NAME).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(dest / BASE_NAME, _vendored_base(engine, update.new_version))
    write_atomic(dest / MANIFEST_NAME, Manifest.of(engine, source_root).to_json())
    return update


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def build_parser(prog: str = PROG) -> OneLineParser:
    """The ``new`` command's flags."""
    parser = OneLineParser(
        prog=prog,
        description="Start a new game: the sample game under a new name, with the engine "
        "vendored in engine/, its starter levels, tests, recipes and a git repository.",
    )
    parser.add_argument(
        "name",
        metavar="NAME",
        help="the game's name as written, e.g. 'Moon Jump' (package moon_jump) or moon_jump",
    )
    parser.add_argument(
        "--path",
        type=Path,
        default=None,
        metavar="DIR",
        help="where to create the project (default: ./<package>)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite files that exist, listing them (other files are kept); with "
        "--update-engine, take an older engine, or update with uncommitted changes",
    )
    parser.add_argument(
        "--update-engine",
        action="store_true",
        help="merge this checkout's engine into the project at DIR, three ways (your edits "
        "of engine files are kept): lists what it adds, changes, merges and removes; a "
        "conflict is written between <<<<<<< and >>>>>>> markers, nothing else changes, exit 1",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="with --update-engine: print the plan (added, changed, merged, conflicting, "
        "pins) and write nothing",
    )
    parser.add_argument(
        "--no-git", action="store_true", help="do not make the new project a git repository"
    )
    return parser


def _print_list(title: str, items: Sequence[str]) -> None:
    if items:
        print(f"{title} ({len(items)}):")
        for item in items:
            print(f"  {item}")


def report_update(dest: Path, update: EngineUpdate, *, dry_run: bool = False) -> None:
    """Print what an engine update did, or, with ``dry_run`` or stopped, would do."""
    if dry_run:
        status = "dry run, nothing written: "
    elif update.unresolved:
        status = "stopped, nothing written: "
    elif update.conflicting:
        status = "stopped at conflicts, only they were written: "
    else:
        status = ""
    would = "would be " if status else ""
    print(
        f"{status}engine {update.old_version} -> {update.new_version}: "
        f"{len(update.added)} added, {len(update.changed)} changed, "
        f"{len(update.merged)} merged, {len(update.conflicting)} conflicting, "
        f"{len(update.removed)} removed"
    )
    _print_list(f"{would}added", update.added)
    _print_list(f"{would}changed", update.changed)
    _print_list(f"{would}merged (your edits kept, the engine's changes added)", update.merged)
    _print_list(
        "conflicting (you and the engine changed the same lines"
        + ("" if dry_run else ": both sides are in the file between <<<<<<< and >>>>>>>")
        + ")",
        update.conflicting,
    )
    _print_list(f"{would}removed", update.removed)
    _print_list(f"{would}kept although the engine removed them (you edited them)", update.orphaned)
    _print_list(
        f"{would}left deleted (you deleted them; the engine changed them)", update.left_deleted
    )
    _print_list("kept (your files, not the engine's)", update.kept)
    _print_list("conflicts you resolved", update.resolved)
    _print_list(
        "unresolved: still holding the conflict markers of an earlier update", update.unresolved
    )
    _print_list("dependency pins changed", update.pin_changes)
    if update.pyproject_lacks:
        print(
            f"{dest / 'pyproject.toml'} does not have the engine's pins "
            f"{', '.join(update.pyproject_lacks)}: put them in [project] dependencies and "
            "reinstall (pip install -e '.[test]')"
        )
    if update.packages_lacking:
        print(
            f"{dest / 'pyproject.toml'}: add {', '.join(update.packages_lacking)} to "
            "[tool.setuptools] packages, or the wheel misses them"
        )
    if update.order is None:
        print(
            f"cannot tell whether engine {update.new_version} is newer than "
            f"{update.old_version} (git does not know both commits)"
        )
    if dry_run:
        if update.order == -1:
            print("this engine is older than the project's: the update refuses without --force")
        if update.uncommitted:
            print(
                f"git has uncommitted changes ({', '.join(update.uncommitted[:3])}"
                f"{'...' if len(update.uncommitted) > 3 else ''}): the update refuses them "
                "without --force"
            )
    elif update.unresolved:
        print("nothing was written: resolve the markers, then run the update again")
    elif update.conflicting:
        print(
            "nothing else was changed (but the record in .engine/): resolve the markers, then "
            "run the same update again to finish it"
        )
    else:
        print(
            "nothing outside engine/, .engine/ and engine-manifest.json was touched; review "
            "with git diff"
        )


def main(
    argv: Sequence[str] | None = None, prog: str = PROG, source_root: Path = SOURCE_ROOT
) -> int:
    """Create a project (or update its engine) from ``source_root``; return the exit status."""
    parser = build_parser(prog)
    args: argparse.Namespace = parser.parse_args(argv)
    if args.dry_run and not args.update_engine:
        parser.error("--dry-run goes with --update-engine")
    if not args.name.isprintable():
        fail(
            prog,
            f"the name '{shown_text(args.name)}' holds a control character or a line break: "
            "use letters, digits, spaces, - or _",
        )
    project = project_from_name(args.name)
    dest: Path = args.path if args.path is not None else Path(project.name)
    # An update needs only the project's package to exist (update_engine checks it).
    problem = None if args.update_engine else name_problem(project.name, dest)
    if problem is not None:
        fail(prog, problem)
    try:
        if args.update_engine:
            update = update_engine(
                dest, project.name, source_root, force=args.force, dry_run=args.dry_run
            )
            report_update(dest, update, dry_run=args.dry_run)
            problems = [] if args.dry_run else update.unresolved or update.conflicting
            if problems:
                print(
                    f"{prog}: {len(problems)} engine file(s) "
                    f"{'still hold conflict markers' if update.unresolved else 'conflict'}: "
                    f"{', '.join(problems)}",
                    file=sys.stderr,
                )
                return 1
            return 0
        files = plan_project(project, source_root)
        overwritten = write_files(dest, files, force=args.force)
    except (
        ExistingFileError,
        NotADirectoryError,
        FileNotFoundError,
        ValueError,
        UpdateRefusedError,
    ) as exc:
        fail(prog, str(exc))
    except OSError as exc:
        fail(
            prog,
            f"cannot write the project to {shown_text(str(dest), 200)}: "
            f"{shown_text(exc.strerror or str(exc), 200)}; nothing was written",
        )
    if overwritten:
        _print_list(f"overwrote files in {dest} that differed", [str(p) for p in overwritten])
    print(
        f"created {project.title} in {dest}/ ({len(files)} files): the {project.name} package "
        "(the sample game, renamed), engine/ (vendored), levels/, tests/"
    )
    if not args.no_git:
        print(git_first_commit(dest, project, engine_version()))
    print("next:")
    print(f"  cd {dest} && python3 -m venv .venv && . .venv/bin/activate")
    print(f"  pip install -e . && python -m {project.name}    # install and play")
    print("  pip install -e '.[test]' && python -m pytest    # install and run the tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
