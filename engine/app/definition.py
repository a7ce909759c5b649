"""A game's definition: the one object a game hands the engine.

The engine owns every piece of machinery a game does not make its own: the command line, the
screen flow (title, level select, options, pause, level complete, final, credits, attract
mode), recording, replaying and re-recording, the speedrun HUD, splits, personal bests, run
files and their verification, watching a run, the ghost, the bundled run maker, finding the
project's files and the level order (the modules of :mod:`engine.app`). A game is its content
and rules, and it tells the engine about them here::

    GAME = GameDefinition(
        app_name="frog-fall",                  # pyproject's name: version, the player's folders
        package="frog_fall",                   # the import package; project files beside it
        kinds=KINDS,                           # the Tiled object classes it knows
        config_sections={"player": PlayerTuning},  # its own config.toml sections
        load_world=load_world,                 # (level file, settings) -> its pure simulation
        make_scene=make_scene,                 # (engine, level file, **options) -> its scene
        sound_files=SOUND_FILES,               # event name -> sound file
    )

Its name as players see it is ``[video] title`` in its ``config.toml``. Its ``__main__.py``
is two lines: ``from engine.app.cli import run_game`` and
``sys.exit(run_game(GAME))``.

What the engine asks of the two factories:

* :class:`World` is the level's deterministic simulation without a window: ticks with one
  input snapshot per tick, a state hash, ``completed`` when the player reached the exit. Run
  files, re-recording, the bundled run maker and the ghost run it headless.
* The scene is a :class:`~engine.app.play_scene.PlayScene` subclass: the engine's part of a
  level scene (the input tape, pause, restart, the ghost's lockstep) with the game's world and
  drawing. ``make_scene`` receives the engine's keyword options (``on_complete``,
  ``on_restart``, ``on_quit``, ``on_options``, ``sounds``, ``hud_extra``, ``show_hud``) and
  passes them on.

Both read the game's own settings from :class:`~engine.app.run_file.RunSettings`
(``settings.section("player", PlayerTuning)``): the tick rate, ``[physics]`` and every section
named in ``config_sections``, which is also what a replay and a run file record.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from engine.app.assets import ProjectFiles
from engine.input.snapshot import InputSnapshot
from engine.levels import KindRegistry, Level

if TYPE_CHECKING:
    from engine.app.play_scene import PlayScene
    from engine.app.run_file import RunSettings

__all__ = ["DefinitionError", "GameDefinition", "World", "load_definition"]


class World(Protocol):
    """A level's pure simulation, as the engine's headless machinery drives it."""

    level: Level
    ticks: int
    par_time_s: float | None
    """The level's par time (the complete screen compares with it), or None."""

    @property
    def completed(self) -> bool:
        """The player has reached an exit."""
        ...

    @property
    def coins_collected(self) -> int:
        """Coins collected so far (of ``level.coins``)."""
        ...

    def tick(self, snapshot: InputSnapshot) -> None:
        """Advance one fixed tick with this tick's input."""
        ...

    def state_hash(self) -> str:
        """A fingerprint of everything that can change (replays record it every tick)."""
        ...


WorldFactory = Callable[["Path", "RunSettings"], World]
"""``load_world(level_path, settings)``: load a map and build its simulation."""

SceneFactory = Callable[..., "PlayScene"]
"""``make_scene(engine, level_path, **options)``: the game's level scene for the engine."""


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GameDefinition:
    """Everything the engine asks of a game (see the module docstring).

    Attributes:
        app_name: The distribution name (``pyproject.toml``'s ``name``): the game's version is
            looked up under it, and it names the player's own folders (settings, records).
        package: The game's import package; its project files (``config.toml``, ``levels/``)
            are found beside it (:class:`~engine.app.assets.ProjectFiles`).
        kinds: The Tiled object classes the game's levels may use.
        load_world: Builds the pure simulation of a level (:data:`WorldFactory`).
        make_scene: Builds the level scene the window shows (:data:`SceneFactory`).
        config_sections: The game's own ``config.toml`` sections: TOML name -> frozen
            dataclass. They change the simulation, so replays and run files record them.
        sound_files: Event name -> sound file (``:resources:`` paths or project files).
        title_music: The menus' music, a project file (empty: none).
        level_music: The levels' music, a project file (empty: none).
        credits_file: The credits shown on the credits screen, a project file.
    """

    app_name: str
    package: str
    kinds: KindRegistry
    load_world: WorldFactory
    make_scene: SceneFactory
    config_sections: Mapping[str, type] = field(default_factory=_empty)
    sound_files: Mapping[str, str] = field(default_factory=_empty)
    title_music: str = "levels/music/title_theme.wav"
    level_music: str = "levels/music/level_theme.wav"
    credits_file: str = "levels/CREDITS.md"

    @property
    def prog(self) -> str:
        """How players start it: ``python -m <package>``."""
        return f"python -m {self.package}"

    @property
    def files(self) -> ProjectFiles:
        """Where its project files are (levels, ``config.toml``), wherever it runs."""
        return ProjectFiles(self.package)

    def default_settings(self) -> RunSettings:
        """The settings a leaderboard verifies with: every section at its defaults, 60 Hz."""
        from engine.app.run_file import RunSettings

        return RunSettings.defaults(self.config_sections)


class DefinitionError(Exception):
    """A game definition that cannot be found; the message is one line."""


def load_definition(spec: str | None) -> GameDefinition:
    """The definition a tool names: ``PACKAGE`` or ``MODULE:ATTRIBUTE``, or the one here.

    ``frog_fall`` means ``frog_fall.definition:GAME``, where ``python -m engine new`` puts it.
    Engine tools (benchmarks, the level bench, the run maker) take a ``--game`` flag and load
    the game here, so nothing under ``engine/`` imports a game. Without one (``spec`` None),
    the working directory must hold exactly one game package (a folder with ``__init__.py``
    and ``definition.py``): a game's project folder.

    Raises:
        DefinitionError: The module cannot be imported or has no :class:`GameDefinition` there.
    """
    if spec is None:
        spec = _game_here()
    module_name, _, attribute = spec.partition(":")
    if not attribute:
        module_name, attribute = f"{spec}.definition", "GAME"
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise DefinitionError(f"cannot import the game {module_name!r}: {exc}") from None
    found: Any = getattr(module, attribute, None)
    if not isinstance(found, GameDefinition):
        raise DefinitionError(
            f"{module_name} has no GameDefinition named {attribute} (a game defines one in "
            "its definition.py)"
        )
    return found


def _game_here() -> str:
    """The one game package in the working directory (see :func:`load_definition`)."""
    here = Path.cwd()
    names = sorted(
        path.parent.name
        for path in here.glob("*/definition.py")
        if (path.parent / "__init__.py").is_file()
    )
    if len(names) != 1:
        found = f"found {', '.join(names)}" if names else "found none"
        raise DefinitionError(
            f"name the game with --game PACKAGE: {here} should hold exactly one game package "
            f"(a folder with __init__.py and definition.py), {found}"
        )
    return names[0]
