"""The game's settings: the sections it adds to ``config.toml``, and its name for the player.

The engine reads ``config.toml`` into a checked :class:`~engine.config.Config`; a game adds
sections of its own (here ``[player]``, the movement feel of :mod:`game.movement`) by naming
them in :data:`CONFIG_SECTIONS`. The same mapping lets the engine's checker know them::

    python -m engine.config --sections game.config --config config.toml

``config.toml`` is the one beside the game (:func:`game.assets.config_path`), wherever the
game is started from; ``--config PATH`` reads another.

:data:`APP_NAME` is the game's distribution name (``pyproject.toml``'s ``name``). The game's
version is looked up under it, and it names the player's own directories (per
`platformdirs <https://pypi.org/project/platformdirs/>`_): the options in
``~/.config/<APP_NAME>/settings.toml`` and the personal bests and run files in
``~/.local/share/<APP_NAME>/`` on Linux. A new game made with ``python -m engine new`` gets its
own name here, so its players' files never mix with another game's.
"""

from __future__ import annotations

from collections.abc import Mapping

from game.movement import PlayerTuning

__all__ = ["APP_NAME", "CONFIG_SECTIONS"]

APP_NAME = "platformer-engine"
"""The distribution name: the game's version and the player's settings and records folders."""

CONFIG_SECTIONS: Mapping[str, type] = {"player": PlayerTuning}
"""The game's own ``config.toml`` sections: TOML name -> frozen dataclass of settings."""
