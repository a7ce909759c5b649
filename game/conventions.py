"""The sample game's map conventions: the names that make other people's maps play here.

The engine's :data:`~engine.levels.conventions.GENERIC_CONVENTIONS` knows the names other
engines and tutorials give starts, exits, coins, hazards and ground (case-insensitive). This is
the one place the sample game adds its own kinds to them: arcade's tutorial maps paint ladders
on a ``Ladders`` layer and crates on ``Dynamic Items``, which are this game's ``ladder`` and
``crate`` kinds (:mod:`game.kinds`). A game made from this template edits this file; the
engine names none of a game's kinds.

``python -m engine.levels --kinds game.kinds --conventions game.conventions FILE``
checks a map the way the game loads it.

Pure: no arcade, no pymunk.
"""

from __future__ import annotations

from engine.levels.conventions import GENERIC_CONVENTIONS, MapConventions

__all__ = ["CONVENTIONS"]

CONVENTIONS: MapConventions = GENERIC_CONVENTIONS.extended(
    tile_layer_kinds={"Ladders": "ladder", "Dynamic Items": "crate"},
    object_kinds={"Enemy": "walker", "Slime": "walker", "Walker": "walker"},
)
"""The generic names, plus the sample game's kinds: ladders, crates and walking enemies."""
