"""Where the game's own files are (levels, config.toml, sounds, music), wherever it runs.

A game is its package (the code) and its **project files** beside it: ``config.toml`` (the
designer's settings), ``levels/`` (Tiled maps, tilesets, bundled replays) and, when the game
has them, ``sounds/`` and ``music/``. They are found the same way in the three places a game
runs, through :func:`importlib.resources` on the game's package (:class:`ProjectFiles`):

* **in its project folder** (a checkout, or ``pip install -e .``): the files are at the project
  root, the folder that holds the package;
* **installed from a wheel** (``pip install .``): the build copies them into the package as
  ``<package>/project_data/`` (``pyproject.toml`` maps the pseudo-package
  ``<package>.project_data`` to the project root and lists the files as its package data), so
  the game runs from any directory;
* **a PyInstaller bundle** (``python -m engine.bundle``): the bundle puts them in the same
  place inside the bundle.

So the folder a game is started from never matters: ``python -m <game>`` in ``/tmp`` plays the
same levels with the same ``config.toml`` as in the project. Only ``--config`` and
``--level`` name files elsewhere, and ``--level`` falls back on the game's own levels
(:meth:`ProjectFiles.find_level`): ``--level level3.json`` plays the game's level 3 from any
folder.

The paths are real files on disk (pip unpacks wheels; PyInstaller unpacks data files), which
the level loader, pytiled_parser and arcade's sound loader need.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

from engine.app.level_order import bundled_levels
from engine.levels.model import one_line

__all__ = ["PACKAGED_DIR", "ProjectFiles", "ProjectFilesError"]

PACKAGED_DIR = "project_data"
"""The folder inside the package that holds the project files in a wheel or a bundle."""


class ProjectFilesError(FileNotFoundError):
    """The game's project files are not where they should be; the message is one line."""


@dataclass(frozen=True, slots=True)
class ProjectFiles:
    """A game's project files, found through its package.

    Attributes:
        package: The game's import package (``game``, or a new game's name).
    """

    package: str

    def project_dir(self) -> Path:
        """The folder holding ``config.toml`` and ``levels/``: packaged copy first, then the project.

        Raises:
            ProjectFilesError: Neither place has a ``levels/`` folder (a broken install).
        """
        package = importlib.resources.files(self.package)
        packaged = Path(str(package / PACKAGED_DIR))
        project = Path(str(package)).parent
        for candidate in (packaged, project):
            if (candidate / "levels").is_dir():
                return candidate
        raise ProjectFilesError(
            f"cannot find the game's levels/ folder: looked in {packaged} and {project}; "
            "reinstall the game (pip install .) or run it from its project folder"
        )

    def levels_dir(self) -> Path:
        """The game's ``levels/`` folder (maps, tilesets, ``replays/``)."""
        return self.project_dir() / "levels"

    def config_path(self) -> Path:
        """The game's ``config.toml`` (it may not exist: every key then keeps its default)."""
        return self.project_dir() / "config.toml"

    def asset_path(self, relative: str) -> str:
        """A project file as a path string for arcade, e.g. ``asset_path("sounds/land.wav")``.

        Args:
            relative: The file's path from the project root, with ``/`` separators.
        """
        return str(self.project_dir().joinpath(*relative.split("/")))

    def find_level(self, name: Path) -> Path:
        """The level file ``--level NAME`` means: ``NAME`` as given, or else one of the game's own.

        A path that exists as given (absolute, or from the current folder) is that file, so a
        map being edited in the current folder plays as it is. A relative path that does not
        exist there is looked up among the game's project files wherever the game is (project,
        wheel or bundle): in ``levels/`` (``level3.json``), then from the project root
        (``levels/level3.json``, the way the README and the error messages name levels). So an
        installed or bundled game plays its own levels by name from any folder.

        Raises:
            ProjectFilesError: No such file in any of those places; the one line says where it
                looked and lists the game's levels.
        """
        if _is_there(name, file_only=False):
            return name
        levels_dir = self.levels_dir()
        own = [] if name.is_absolute() else [levels_dir / name, self.project_dir() / name]
        for place in own:
            if _is_there(place, file_only=True):
                return place
        places = [Path.cwd() / name, *own]  # an absolute name stays itself
        levels = " ".join(path.name for path in bundled_levels(levels_dir)) or "(none)"
        looked = one_line(", ".join(str(place) for place in places), 600)
        raise ProjectFilesError(
            f"--level {one_line(str(name), 200)}: no such level file (looked at {looked}); "
            f"the game's own levels, by name: {levels}"
        )


def _is_there(path: Path, *, file_only: bool) -> bool:
    try:
        return path.is_file() if file_only else path.exists()
    except OSError:  # a name too long for the file system, for one: not there
        return False
