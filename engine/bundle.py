"""``python -m engine.bundle``: build a folder players run without Python (PyInstaller).

Run it in a game's project folder (the one with ``pyproject.toml``) after ``pip install -e
'.[bundle]'``, which installs `PyInstaller <https://pyinstaller.org>`_, the tool arcade's own
documentation uses for this::

    python -m engine.bundle            # -> dist/<game>/<game>, zip dist/<game>/ and ship it

What goes in:
    * the game's package and the engine, with everything they import (PyInstaller follows
      the imports; the game's and the engine's submodules are collected whole, as is pyglet,
      whose window and GL backends are chosen at run time);
    * the game's project files, where :mod:`importlib.resources` finds them in an installed
      game: ``config.toml``, ``levels/``, ``sounds/`` and ``music/`` become
      ``<game>/project_data/...`` inside the bundle (the game's ``assets`` module looks there
      first);
    * arcade's bundled art, sounds and music (``:resources:images``, ``sounds``, ``music``), which
      games made from the template use, and its system files (shaders, fonts), through a hook
      of our own (:func:`arcade_hook_text`) in place of arcade's, which puts arcade's
      ``VERSION`` file in a folder of that name (every run of the bundle then printed an
      ``ERROR`` line).

    The engine's developer tools (``engine.tools``: the simulator, the benchmarks) and
    matplotlib stay out.

Which package is the game: the one ``pyproject.toml`` maps its project files into
(``[tool.setuptools.package-dir]`` ``"<game>.project_data" = "."``).

It prints the folder's size on disk, the figure ``du -s`` gives (:func:`disk_usage_bytes`).
Archive it keeping its symbolic links (``zip -ry``, ``tar``): a plain ``zip -r`` stores each
linked library twice. The bundle is for the system it is built on (build on Windows for
Windows). Check it with ``dist/<game>/<game> --headless --frames 60``. Problems (no
``pyproject.toml``, no game in it, PyInstaller missing or failing) are one line and exit
status 2.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "ARCADE_ASSETS",
    "PROJECT_FILES",
    "BundleError",
    "data_destination",
    "disk_usage_bytes",
    "game_package",
    "pyinstaller_args",
]

PROJECT_FILES = ("config.toml", "levels", "sounds", "music")
"""The project files bundled into ``<game>/project_data/`` when they exist."""

ARCADE_ASSETS = ("images", "sounds", "music")
"""The folders of arcade's ``resources/assets`` the bundle carries."""

PROG = "python -m engine.bundle"


class BundleError(Exception):
    """A bundle cannot be built; the message is one line."""


def game_package(project: Path) -> str:
    """The game package of the project at ``project``, from its ``pyproject.toml``.

    Raises:
        BundleError: No readable ``pyproject.toml``, or no ``<game>.project_data`` mapping.
    """
    pyproject = project / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BundleError(f"cannot read {pyproject}: {exc}; run this in a game's project") from None
    mapping = data.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    games = [
        name.removesuffix(".project_data") for name in mapping if name.endswith(".project_data")
    ]
    if len(games) != 1:
        raise BundleError(
            f"{pyproject} maps no game package's project files ([tool.setuptools.package-dir] "
            '"<game>.project_data" = "."): is this a project made with python -m engine new?'
        )
    return str(games[0])


def _arcade_assets() -> Path:
    spec = importlib.util.find_spec("arcade")
    if spec is None or spec.origin is None:
        raise BundleError("arcade is not installed here: pip install -e . first")
    return Path(spec.origin).parent / "resources" / "assets"


def pyinstaller_args(project: Path, package: str, dist: Path, build: Path) -> list[str]:
    """PyInstaller's command line (after ``python -m PyInstaller``) for ``package``'s bundle."""
    launcher = build / f"launch_{package}.py"
    args = [
        "--noconfirm",
        "--onedir",
        "--log-level",
        "WARN",
        "--name",
        package,
        "--distpath",
        str(dist),
        "--workpath",
        str(build / "work"),
        "--specpath",
        str(build),
        "--paths",
        str(project),
        "--collect-submodules",
        package,
        "--collect-submodules",
        "engine",
        "--collect-submodules",
        "pyglet",
        "--exclude-module",
        "engine.tools",
        "--exclude-module",
        "matplotlib",
        "--additional-hooks-dir",
        str(build / "hooks"),
    ]
    for name in PROJECT_FILES:
        source = project / name
        if source.exists():
            args += ["--add-data", f"{source}{os.pathsep}{data_destination(package, source)}"]
    return [*args, str(launcher)]


def data_destination(package: str, source: Path) -> str:
    """Where ``--add-data`` puts the project file or folder ``source`` inside the bundle.

    PyInstaller's ``--add-data SOURCE:DEST`` always reads ``DEST`` as a **folder**: a file goes
    *into* it under its own name, a folder's contents go into it. So a folder names itself
    (``levels`` -> ``<game>/project_data/levels``) and a file names only the folder it lands in
    (``config.toml`` -> ``<game>/project_data``); ``<game>/project_data/config.toml`` as the
    destination of a file made a folder of that name holding ``config.toml``.
    """
    folder = f"{package}/project_data"
    return f"{folder}/{source.name}" if source.is_dir() else folder


def disk_usage_bytes(folder: Path) -> int:
    """The space ``folder`` takes on disk, as ``du -s`` counts it (in bytes, not KiB).

    Every file, folder and symbolic link under ``folder`` (and ``folder`` itself) counts the
    blocks the file system gave it (``st_blocks * 512``), once per inode: a file reached by
    two hard links counts once, and a symbolic link counts as the small link it is, never as
    the file it points to (PyInstaller links a library's versioned names to one copy, so
    following the links counted those libraries twice).
    Where the system has no ``st_blocks`` (Windows), a file counts its length.
    """
    seen: set[tuple[int, int]] = set()
    total = _blocks_once(folder, seen)
    for root, dirs, files in os.walk(folder):  # lists links to folders, never walks into them
        for name in (*dirs, *files):
            total += _blocks_once(Path(root, name), seen)
    return total


def _blocks_once(path: Path, seen: set[tuple[int, int]]) -> int:
    info = path.lstat()
    if (info.st_dev, info.st_ino) in seen:
        return 0
    seen.add((info.st_dev, info.st_ino))
    blocks = getattr(info, "st_blocks", None)
    return info.st_size if blocks is None else blocks * 512


def arcade_hook_text() -> str:
    """A PyInstaller hook for arcade: its GL backend, system files, ``VERSION`` and assets."""
    assets = _arcade_assets()
    arcade_dir = assets.parent.parent
    datas = [
        (str(arcade_dir / "resources" / "system"), "arcade/resources/system"),
        (str(arcade_dir / "VERSION"), "arcade"),
        *((str(assets / name), f"arcade/resources/assets/{name}") for name in ARCADE_ASSETS),
    ]
    return (
        '"""arcade for a game\'s bundle (written by python -m engine.bundle)."""\n\n'
        'hiddenimports = ["arcade.gl.backends.opengl.provider", "arcade.gl.backends.opengl"]\n'
        f"datas = {datas!r}\n"
    )


def launcher_text(package: str) -> str:
    """The bundle's entry point: the game's ``python -m`` command."""
    return (
        f'"""Starts {package} in a bundle, as python -m {package} does."""\n\n'
        "import sys\n\n"
        "from engine.app.cli import run_command_for\n"
        f"from {package}.definition import GAME\n\n"
        "sys.exit(run_command_for(GAME))\n"
    )


def build_bundle(project: Path, dist: Path, build: Path) -> Path:
    """Build the bundle; return the program's path.

    Raises:
        BundleError: See the module docstring.
    """
    package = game_package(project)
    if not (project / package / "__main__.py").is_file():
        raise BundleError(f"{project / package / '__main__.py'} not found: no game to bundle")
    if importlib.util.find_spec("PyInstaller") is None:
        raise BundleError("PyInstaller is not installed: pip install -e '.[bundle]'")
    (build / "hooks").mkdir(parents=True, exist_ok=True)
    (build / f"launch_{package}.py").write_text(launcher_text(package), encoding="utf-8")
    (build / "hooks" / "hook-arcade.py").write_text(arcade_hook_text(), encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "PyInstaller",
        *pyinstaller_args(project, package, dist, build),
    ]
    out = subprocess.run(command, cwd=project, capture_output=True, text=True)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise BundleError(f"PyInstaller failed (exit {out.returncode}): {last}")
    program = dist / package / (package + (".exe" if os.name == "nt" else ""))
    if not program.is_file():
        raise BundleError(f"PyInstaller finished but {program} is missing")
    return program


def main(argv: Sequence[str] | None = None) -> int:
    """Build the bundle of the game in ``--project`` (default: here); return the exit status."""
    from engine.runtime.launch import OneLineParser

    parser = OneLineParser(prog=PROG, description="Build a one-folder bundle of the game.")
    parser.add_argument(
        "--project", type=Path, default=Path(), metavar="DIR", help="the game's project folder"
    )
    parser.add_argument(
        "--dist", type=Path, default=None, metavar="DIR", help="where (default: DIR/dist)"
    )
    parser.add_argument(
        "--build",
        type=Path,
        default=None,
        metavar="DIR",
        help="PyInstaller's work folder (default: DIR/build/bundle)",
    )
    args = parser.parse_args(argv)
    project = args.project.resolve()
    dist = (args.dist or project / "dist").resolve()
    build = (args.build or project / "build" / "bundle").resolve()
    try:
        program = build_bundle(project, dist, build)
    except BundleError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    size_mib = disk_usage_bytes(program.parent) / 2**20
    print(
        f"built {program.parent}/ ({size_mib:.0f} MiB on disk): run {program}; "
        "zip the folder to ship it"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
