"""The sample game's definition: what it tells the engine about itself.

Everything game-agnostic (the command line, the menus, replays, speedrun timing, run files, the
ghost) is the engine's (:mod:`engine.app`); this file hands it the game's content and rules in
one :class:`~engine.app.definition.GameDefinition`, :data:`GAME`:

* :data:`APP_NAME`, the distribution name (``pyproject.toml``'s ``name``). The game's version is
  looked up under it, and it names the player's own directories (per `platformdirs
  <https://pypi.org/project/platformdirs/>`_): the options in ``~/.config/<APP_NAME>/settings.toml``
  and the personal bests and run files in ``~/.local/share/<APP_NAME>/`` on Linux. A new game made
  with ``python -m engine new`` gets its own name here, so its players' files never mix;
* the kinds its levels use (:data:`game.kinds.KINDS`);
* :data:`CONFIG_SECTIONS`, the ``config.toml`` sections it adds (here ``[player]``, the movement
  feel of :mod:`game.movement`). The engine checks them with the rest of the config, records
  them in replays and run files, and its checker knows them::

      python -m engine.config --sections game.definition --config config.toml

* the two factories: the level's pure simulation (:func:`load_world`,
  :class:`~game.world_builder.LevelWorld`) and the scene the window shows (:func:`make_scene`,
  :class:`~game.level_scene.LevelScene`);
* :data:`SOUND_FILES`, the sound of each event the world logs.

``config.toml`` is the one beside the game, wherever it is started from; ``--config PATH``
reads another.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.app.definition import GameDefinition
from engine.app.run_file import RunSettings
from game.kinds import KINDS
from game.movement import PlayerTuning
from game.world_builder import LevelWorld

if TYPE_CHECKING:
    from game.level_scene import LevelScene

__all__ = ["APP_NAME", "CONFIG_SECTIONS", "GAME", "SOUND_FILES", "load_world", "make_scene"]

APP_NAME = "platformer-engine"
"""The distribution name: the game's version and the player's settings and records folders."""

CONFIG_SECTIONS: Mapping[str, type] = {"player": PlayerTuning}
"""The game's own ``config.toml`` sections: TOML name -> frozen dataclass of settings."""

#: The level's sound effects (arcade's bundled Kenney sounds, CC0), by event name (see
#: :class:`~game.world_builder.Event`). Events without a sound here are silent.
SOUND_FILES: Mapping[str, str] = {
    "jump": ":resources:sounds/jump1.wav",
    "coin": ":resources:sounds/coin1.wav",
    "hurt": ":resources:sounds/hurt1.wav",
    "complete": ":resources:sounds/upgrade1.wav",
    "stomp": ":resources:sounds/hit2.wav",
    "spring": ":resources:sounds/jump4.wav",
    "crate": ":resources:sounds/rockHit2.wav",
    "crumble": ":resources:sounds/explosion2.wav",
    "checkpoint": ":resources:sounds/upgrade4.wav",
    "respawn": ":resources:sounds/phaseJump1.wav",
}


def load_world(level_path: Path, settings: RunSettings) -> LevelWorld:
    """A level's pure simulation under ``settings`` (tick rate, ``[player]``, ``[physics]``).

    Raises:
        LevelError: The map cannot be loaded (one line).
    """
    return LevelWorld.load(
        level_path,
        settings.section("player", PlayerTuning),
        settings.tick_rate.step_s,
        physics=settings.physics,
    )


def make_scene(engine: Any, level_path: Path | str, **options: Any) -> LevelScene:
    """The level scene for the engine's window, with its tick length and settings."""
    # arcade is imported here, once the command line has said whether the window is headless
    from game.level_scene import LevelScene

    settings = RunSettings.from_config(engine.config, CONFIG_SECTIONS)  # [player]: defaults
    return LevelScene.for_engine(
        engine, level_path, settings.section("player", PlayerTuning), **options
    )


GAME = GameDefinition(
    app_name=APP_NAME,
    package=__name__.rpartition(".")[0],
    kinds=KINDS,
    load_world=load_world,
    make_scene=make_scene,
    config_sections=CONFIG_SECTIONS,
    sound_files=SOUND_FILES,
)
"""The sample game, as the engine sees it."""
