"""``python -m engine new NAME``: start a new game from this template.

What it makes:
    A standalone project in ``--path DIR`` (default ``./NAME``) that installs and runs on its own::

        DIR/pyproject.toml   the distribution NAME, console script NAME, test extra, ruff config
        DIR/README.md        the same two-command set-up as the template (play, run the tests)
        DIR/.gitignore
        DIR/config.toml      the game's settings, with the speedrun toggle ``[speedrun] enabled``
        DIR/NAME/            the game: one level with the template's movement, camera, HUD, pause
        DIR/engine/          a copy of this engine (vendored, see below)
        DIR/levels/          the starter level, its tileset, a replay that completes it, and the
                             level conventions (``levels/README.md``)
        DIR/tests/           a headless smoke test and replay tests that pass out of the box

Where the pieces come from:
    Everything is read from this checkout when the command runs, so a project is always made
    from the code next to it:

    * the project's own files are the text files in ``engine/tools/project_template/``, with
      ``{{name}}``-style placeholders filled in by plain string replacement;
    * the game package is the template game's modules (``game/level_scene.py``,
      ``game/replay_run.py`` and the modules they import), copied with every reference to the
      ``game`` package renamed to NAME (:func:`rewrite_game_module`);
    * ``engine/`` is copied file for file, but for the developers' tools (:data:`ENGINE_EXCLUDED`);
    * ``levels/`` gets ``level1.json`` and ``replays/level1.replay`` byte for byte (the replay
      checks the level file's hash), the tileset, and the conventions from
      ``levels/README.md`` (:func:`levels_readme`).

The engine is vendored:
    A fresh virtual environment needs nothing but the new project's ``pip install -e
    '.[test]'``. To take a newer engine later, run the command again from a newer checkout of the
    template with ``--update-engine``: it replaces ``DIR/engine/`` and nothing else, so local
    edits there are lost (keep game changes in the NAME package, or commit first and merge with
    git).

Safety:
    Every file is planned before anything is written. If one of them exists already, nothing is
    written and the command names it (exit status 2) unless ``--force`` is given. A NAME that is
    not a plain Python package name, or that would shadow the standard library, the engine, the
    template's own packages or a package the engine needs, is refused with one line (exit 2).
"""

from __future__ import annotations

import argparse
import ast
import keyword
import re
import shutil
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from engine.runtime.launch import OneLineParser, fail

__all__ = [
    "ENGINE_EXCLUDED",
    "GAME_MODULES",
    "MAX_NAME_LENGTH",
    "RESERVED_NAMES",
    "Project",
    "build_parser",
    "main",
    "name_problem",
    "plan_engine",
    "plan_project",
    "rewrite_game_module",
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
    "{{name}}/__init__.py": "package_init.py.tmpl",
    "{{name}}/__main__.py": "package_main.py.tmpl",
    "tests/__init__.py": "tests_init.py.tmpl",
    "tests/conftest.py": "tests_conftest.py.tmpl",
    "tests/test_smoke.py": "test_smoke.py.tmpl",
    "tests/test_replay.py": "test_replay.py.tmpl",
}
"""Path in the new project -> template file in :data:`TEMPLATE_DIR`."""

GAME_MODULES = ("movement", "world_builder", "level_scene", "replay_run")
"""Modules of ``game/`` the new game starts from; the ``game`` modules they import come too."""

ENGINE_EXCLUDED = ("__main__.py", "tools")
"""Entries of ``engine/`` a shipped game does not need: the developers' tools (the monitor
simulator, the benchmarks, the demo, this generator) and ``python -m engine``, which runs it."""

STARTER_FILES = ("levels/level1.json", "levels/replays/level1.replay")
ASSET_FOLDERS = ("tiles", "backgrounds", "music")
"""Folders of ``levels/`` copied whole: the tileset, the backdrop pictures, the music."""
"""Copied byte for byte: the replay names ``level1.json`` and checks the file's hash."""

RESERVED_NAMES = frozenset({"engine", "game", "levels", "tests"})
"""Names already used by the template or by the new project's own layout."""

DEPENDENCY_IMPORTS = frozenset(
    {
        "arcade",
        "pymunk",
        "numpy",
        "pyglet",
        "PIL",
        "pytiled_parser",
        "platformdirs",
        "cffi",
        "attrs",
        "attr",
        "pytest",
        "ruff",
        "setuptools",
        "pip",
        "wheel",
    }
)
"""Top-level imports the game needs at run, test or build time: a package NAME would hide them."""

MAX_NAME_LENGTH = 16
"""Longest NAME: it is typed in every ``python -m NAME`` and fits the copied code's lines."""

PROG = "platformer-new"

# Wording of the template game that a new game should not inherit (old, new); applied in order.
_WORDING = (
    ("The sample platformer", "The game"),
    ("the sample platformer", "the game"),
    ("The sample game", "The game"),
    ("the sample game", "the game"),
    ("sample game", "game"),
)

# The conventions sections of levels/README.md, and rewrites for sentences about the template's
# own levels (which a new project does not have beyond level 1).
_LEVEL_SECTIONS = ("Making a level in Tiled", "Reachability", "Licence")
_LEVELS_WORDING = (
    ("the bundled maps are", "the template's maps are"),
    ("the bundled shaft", "the template's climbing level"),
    ("(levels 2 and 3)", "(the template's levels 2 and 3)"),
    ("The bundled levels", "The template's levels"),
    ("the bundled levels", "the template's levels"),
)


@dataclass(frozen=True, slots=True)
class Project:
    """The names a new project is made with.

    Attributes:
        name: The Python package, console script and command (``python -m NAME``).
    """

    name: str

    @property
    def dist_name(self) -> str:
        """The distribution name in ``pyproject.toml``: NAME with ``-`` for ``_``."""
        return self.name.replace("_", "-")

    @property
    def title(self) -> str:
        """A human title: ``moon_jump`` -> ``Moon Jump``."""
        return " ".join(word.capitalize() for word in self.name.split("_") if word) or self.name

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


# ---------------------------------------------------------------------------------------------
# NAME
# ---------------------------------------------------------------------------------------------


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a new game's package, or None if it can."""
    if not (name.isascii() and name.isidentifier()):
        return (
            f"{name!r} is not a Python package name: use letters, digits and underscores, "
            "starting with a letter (e.g. moon_jump)"
        )
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"{name!r} is a Python keyword"
    if len(name) > MAX_NAME_LENGTH:
        return (
            f"{name!r} is longer than {MAX_NAME_LENGTH} characters: pick a short package name "
            "(the title shown in the window can be longer, see config.toml)"
        )
    if name.startswith("_"):
        return f"{name!r} starts with an underscore: start the package name with a letter"
    if name in RESERVED_NAMES:
        return (
            f"{name!r} is taken: the template and the new project use engine, game, levels, tests"
        )
    if name in sys.stdlib_module_names:
        return f"{name!r} is a standard library module: the game's package would shadow it"
    if name in DEPENDENCY_IMPORTS or name.lower() in {dep.lower() for dep in DEPENDENCY_IMPORTS}:
        return f"{name!r} is a package the game needs: the game's package would shadow it"
    return None


# ---------------------------------------------------------------------------------------------
# Planning: relative path -> bytes, nothing written
# ---------------------------------------------------------------------------------------------


def plan_project(name: str, source_root: Path = SOURCE_ROOT) -> dict[PurePosixPath, bytes]:
    """Every file of a new project called ``name``, as relative path -> contents.

    Raises:
        FileNotFoundError: ``source_root`` is not a checkout of the template (no ``game/``,
            ``levels/`` or ``pyproject.toml``).
    """
    for needed in ("pyproject.toml", "game", "levels/level1.json", "levels/tiles"):
        if not (source_root / needed).exists():
            raise FileNotFoundError(
                f"{source_root / needed} not found: making a project needs a source checkout of "
                "the template (installed with pip install -e)"
            )
    project = Project(name)
    files: dict[PurePosixPath, bytes] = {}
    files.update(_template_files(project, source_root))
    files.update(_game_modules(project, source_root))
    files.update(plan_engine(source_root))
    files.update(_level_files(project, source_root))
    return dict(sorted(files.items()))


def plan_engine(source_root: Path = SOURCE_ROOT) -> dict[PurePosixPath, bytes]:
    """The vendored engine: every file of ``engine/`` but :data:`ENGINE_EXCLUDED` and caches."""
    engine_dir = source_root / "engine"
    files: dict[PurePosixPath, bytes] = {}
    for path in sorted(engine_dir.rglob("*")):
        relative = path.relative_to(engine_dir)
        if not path.is_file() or _is_cache(relative):
            continue
        if relative.parts[0] in ENGINE_EXCLUDED:
            continue
        files[PurePosixPath("engine", *relative.parts)] = path.read_bytes()
    if PurePosixPath("engine/__init__.py") not in files:
        raise FileNotFoundError(f"{engine_dir}: not the template's engine package")
    return files


def _is_cache(relative: Path) -> bool:
    return "__pycache__" in relative.parts or relative.suffix in (".pyc", ".pyo")


def _template_files(project: Project, source_root: Path) -> dict[PurePosixPath, bytes]:
    dependencies, test_dependencies = _dependencies(source_root / "pyproject.toml")
    fields = {
        "dependencies": _toml_list(dependencies),
        "test_dependencies": _toml_list(test_dependencies),
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
    keep = ("pytest", "ruff")
    tests = [
        requirement
        for requirement in project.get("optional-dependencies", {}).get("test", [])
        if re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0] in keep
    ]
    return list(project["dependencies"]), tests


def _toml_list(items: Iterable[str]) -> str:
    return "\n".join(f'    "{item}",' for item in items)


def _game_modules(project: Project, source_root: Path) -> dict[PurePosixPath, bytes]:
    game_dir = source_root / "game"
    modules = _module_closure(game_dir, GAME_MODULES)
    files: dict[PurePosixPath, bytes] = {}
    for module in modules:
        for source in _module_files(game_dir, module):
            text = source.read_text(encoding="utf-8")
            rewritten = rewrite_game_module(text, project, modules)
            relative = source.relative_to(game_dir)
            files[PurePosixPath(project.name, *relative.parts)] = rewritten.encode()
    return files


def _module_files(game_dir: Path, module: str) -> list[Path]:
    """The source files of a top-level ``game`` module: ``X.py``, or every file of package ``X``."""
    package = game_dir / module
    if package.is_dir():
        return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    return [game_dir / f"{module}.py"]


def _module_closure(game_dir: Path, roots: Sequence[str]) -> list[str]:
    """``roots`` and every ``game`` module or package they import, directly or not, in order."""
    found: list[str] = []
    pending = list(roots)
    while pending:
        module = pending.pop(0)
        if module in found:
            continue
        found.append(module)
        for source in _module_files(game_dir, module):
            tree = ast.parse(source.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    if node.module == "game":
                        pending.extend(alias.name for alias in node.names)
                    elif node.module.startswith("game."):
                        pending.append(node.module.split(".")[1])
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.startswith("game."):
                            pending.append(alias.name.split(".")[1])
    return [module for module in found if module != "__main__"]


def rewrite_game_module(text: str, project: Project, modules: Iterable[str]) -> str:
    """A template game module renamed for ``project``.

    ``game.MODULE`` becomes ``NAME.MODULE`` for each copied module (imports and docstring
    references such as ``:mod:`game.movement```), ``from game import`` becomes ``from NAME
    import``, ``python -m game`` becomes ``python -m NAME``, the wording that calls the code a
    "sample game" is made neutral, and the distribution name the replay recorder reports becomes
    the new project's.
    """
    names = "|".join(re.escape(module) for module in modules)
    text = re.sub(rf"(?<![\w.])game\.(?=(?:{names})\b)", f"{project.name}.", text)
    text = re.sub(r"(?<![\w.])from game import\b", f"from {project.name} import", text)
    text = re.sub(r"python -m game\b", f"python -m {project.name}", text)
    for old, new in _WORDING:
        text = text.replace(old, new)
    return text.replace(
        'PACKAGE_NAME = "platformer-engine"', f'PACKAGE_NAME = "{project.dist_name}"'
    )


def _level_files(project: Project, source_root: Path) -> dict[PurePosixPath, bytes]:
    levels = source_root / "levels"
    files = {PurePosixPath(name): (source_root / name).read_bytes() for name in STARTER_FILES}
    for folder in ASSET_FOLDERS:
        for path in sorted((levels / folder).iterdir()):
            if path.is_file():
                files[PurePosixPath("levels", folder, path.name)] = path.read_bytes()
    files[PurePosixPath("levels/CREDITS.md")] = (levels / "CREDITS.md").read_bytes()
    files[PurePosixPath("levels/README.md")] = levels_readme(project, source_root).encode()
    return files


def levels_readme(project: Project, source_root: Path = SOURCE_ROOT) -> str:
    """The new project's ``levels/README.md``: its own intro and the template's conventions.

    The conventions (making a level in Tiled, reachability, the art's licence) are the sections
    of the template's ``levels/README.md`` named in :data:`_LEVEL_SECTIONS`, so a new project
    documents the loader it vendors.

    Raises:
        ValueError: The template's ``levels/README.md`` lacks one of those sections.
    """
    source = (source_root / "levels" / "README.md").read_text(encoding="utf-8")
    sections = _markdown_sections(source)
    chosen: dict[str, str] = {}
    for wanted in _LEVEL_SECTIONS:
        matches = [body for title, body in sections.items() if title.startswith(wanted)]
        if not matches:
            raise ValueError(f"levels/README.md has no section '## {wanted}...'")
        body = matches[0]
        for old, new in _LEVELS_WORDING + _WORDING:
            body = body.replace(old, new)
        chosen[wanted] = body.rstrip() + "\n"
    template = (TEMPLATE_DIR / "levels_README.md.tmpl").read_text(encoding="utf-8")
    return project.fill(
        template,
        making_a_level=chosen["Making a level in Tiled"],
        reachability=chosen["Reachability"],
        licence=chosen["Licence"],
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
# Writing
# ---------------------------------------------------------------------------------------------


class ExistingFileError(Exception):
    """A file the command would write exists already (and ``--force`` was not given).

    Attributes:
        path: The first such file.
        count: How many of the planned files exist.
    """

    def __init__(self, path: Path, count: int) -> None:
        more = f" (and {count - 1} more of the files it would write)" if count > 1 else ""
        super().__init__(f"{path} exists{more}; nothing was written (use --force to overwrite)")
        self.path = path
        self.count = count


def write_files(
    dest: Path, files: Mapping[PurePosixPath, bytes], *, force: bool = False
) -> list[Path]:
    """Write ``files`` under ``dest``; all or nothing with respect to existing files.

    Returns:
        The paths written.

    Raises:
        ExistingFileError: A planned file exists and ``force`` is False; nothing was written.
        NotADirectoryError: A planned directory exists as a file; nothing was written.
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
    written: list[Path] = []
    for path, data in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def update_engine(dest: Path, name: str, source_root: Path = SOURCE_ROOT) -> tuple[int, list[str]]:
    """Replace ``dest/engine/`` with this checkout's engine; touch nothing else.

    The new engine is written next to the old one first and swapped in, so a failure leaves
    the old engine in place.

    Returns:
        The number of engine files written, and the template's dependencies that
        ``dest/pyproject.toml`` does not list (the newer engine may need them).

    Raises:
        FileNotFoundError: ``dest`` is not a project made with ``new NAME`` (no ``dest/NAME/``
            package or no ``dest/engine/``).
    """
    if not (dest / name / "__init__.py").is_file() or not (dest / "engine").is_dir():
        raise FileNotFoundError(
            f"{dest} is not a project made with 'new {name}' (it needs {name}/ and engine/)"
        )
    files = plan_engine(source_root)
    staging = dest / ".engine-update"
    retired = dest / ".engine-old"
    for leftover in (staging, retired):
        if leftover.exists():
            shutil.rmtree(leftover)
    write_files(staging, {PurePosixPath(*p.parts[1:]): data for p, data in files.items()})
    (dest / "engine").rename(retired)
    staging.rename(dest / "engine")
    shutil.rmtree(retired)
    return len(files), _missing_dependencies(dest / "pyproject.toml", source_root)


def _missing_dependencies(pyproject: Path, source_root: Path) -> list[str]:
    wanted, _ = _dependencies(source_root / "pyproject.toml")
    try:
        have, _ = _dependencies(pyproject)
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return wanted

    def base(requirement: str) -> str:
        return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")

    have_names = {base(requirement) for requirement in have}
    return [requirement for requirement in wanted if base(requirement) not in have_names]


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def build_parser(prog: str = PROG) -> OneLineParser:
    """The ``new`` command's flags."""
    parser = OneLineParser(
        prog=prog,
        description="Start a new game from this template: a standalone project with the engine "
        "vendored in engine/, one starter level, tests and a README.",
    )
    parser.add_argument(
        "name", metavar="NAME", help="the game's Python package name, e.g. moon_jump"
    )
    parser.add_argument(
        "--path",
        type=Path,
        default=None,
        metavar="DIR",
        help="where to create the project (default: ./NAME)",
    )
    parser.add_argument(
        "--force", action="store_true", help="overwrite files that exist (others are kept)"
    )
    parser.add_argument(
        "--update-engine",
        action="store_true",
        help="only replace DIR/engine/ with this checkout's engine (local edits there are lost)",
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Create a project (or update its engine); return the exit status."""
    args: argparse.Namespace = build_parser(prog).parse_args(argv)
    problem = name_problem(args.name)
    if problem is not None:
        fail(prog, problem)
    dest: Path = args.path if args.path is not None else Path(args.name)
    try:
        if args.update_engine:
            count, missing = update_engine(dest, args.name)
            print(f"replaced {dest / 'engine'}/ with this checkout's engine ({count} files)")
            print("nothing else was touched; review the change with git diff before committing")
            if missing:
                print(
                    "the new engine needs dependencies the project does not list: "
                    + ", ".join(missing)
                    + f"; add them to {dest / 'pyproject.toml'} and reinstall"
                )
            return 0
        files = plan_project(args.name)
        write_files(dest, files, force=args.force)
    except (ExistingFileError, NotADirectoryError, FileNotFoundError, ValueError) as exc:
        fail(prog, str(exc))
    except OSError as exc:
        fail(prog, f"cannot write the project to {dest}: {exc}")
    print(
        f"created {Project(args.name).title} in {dest}/ ({len(files)} files): "
        f"the {args.name} package, engine/ (vendored), levels/, tests/"
    )
    print("next:")
    print(f"  cd {dest} && python3 -m venv .venv && . .venv/bin/activate")
    print(f"  pip install -e . && python -m {args.name}    # install and play")
    print("  pip install -e '.[test]' && python -m pytest    # install and run the tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
