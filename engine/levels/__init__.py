"""Levels: Tiled maps into a pure :class:`Level` description, and its ground into pymunk.

`Tiled <https://www.mapeditor.org>`_ is the level editor this engine expects. Maps are
*orthogonal*, *finite* maps of square tiles, saved as JSON (``.json``/``.tmj``) or XML
(``.tmx``); tilesets may be embedded or external (``.tsj``/``.json``/``.tsx``), a single image
or a collection of images, with Tiled's tile animations. :func:`load_level` reads such a map and
returns a frozen :class:`Level`: plain numbers in engine coordinates (y up), its checked objects,
its layers and the art of its tiles; nothing drawn, no arcade import. The game turns objects into
entities (:mod:`engine.entities`), :mod:`engine.rendering.tilemap` draws the layers, and
:func:`add_static_geometry` turns the ground into pymunk shapes.

Modules, one concept each:

* :mod:`~engine.levels.kinds` — what an object's class means: :class:`Kind` (shapes, count,
  typed properties with units) and the :class:`KindRegistry` a game adds its kinds to.
* :mod:`~engine.levels.model` — the level as values: :class:`Level`, :class:`LevelObject`,
  :class:`TileLayer`, :class:`TileArt`, :class:`Rect`; generic scaling to the game's tile size.
* :mod:`~engine.levels.map_file` — reading a map safely (bounded, regular files only) and
  finding its images.
* :mod:`~engine.levels.tiled` — the loader (parsing with pytiled_parser).
* :mod:`~engine.levels.conventions` — this template's layer and object conventions, and arcade's
  (its tutorial maps load and play).
* :mod:`~engine.levels.merge` — solid tiles merged into few rectangles.
* :mod:`~engine.levels.geometry` — the merged ground as static pymunk boxes.

Objects
-------
Every object's class names a kind. The engine's own (:data:`~engine.levels.kinds.ENGINE_KINDS`):

* ``player_start``: a point or rectangle; **exactly one** (the feet go on the point).
* ``exit``: **at least one**; ``checkpoint``, ``coin``: points, rectangles or tile objects.
* ``hazard``: a rectangle, tile object or polygon (its bounding box hurts).
* ``moving_platform``: a rectangle or tile object with ``path`` (an object property pointing at a
  ``path``, or the path's name), ``speed_px_s`` (default 120) and ``start_px`` (default 0).
* ``path``: a polyline with at least 2 points: where a moving object's centre goes.

A game adds its own kinds (an enemy, a spring) on a :class:`KindRegistry` passed to
:func:`load_level`; an unknown class is an error naming the object, with a did-you-mean, so a typo
never silently drops a coin. Rotated objects and text are rejected.

Coordinates
-----------
Tiled's y axis points **down** from the map's top-left corner. The engine (arcade and pymunk)
uses y **up** from the bottom-left corner::

    x_px    = x_tiled
    y_up_px = map_height_px - y_down_px          # map_height_px = height_tiles * tile_size_px

A Tiled rectangle's ``(x, y)`` is its *top-left* corner, so its engine bottom is
``map_height_px - (y + height)``. Tile objects are anchored at their *bottom-left* corner, so
their engine bottom is ``map_height_px - y``. Tile row 0 is the top row. Layer and group offsets
are applied.

Merging solid tiles
-------------------
One pymunk shape per tile would be thousands of shapes and seams that snag a sliding player.
:func:`merge_tiles` merges greedily: first each row into horizontal runs, then a run joins the
rectangle from the row above when both have exactly the same x-span. The union of the rectangles
is exactly the set of solid tiles and no two overlap (the tests check this with hypothesis).

Errors
------
Every problem raises :class:`LevelError`, whose ``str()`` is one line naming the file, the object
(id and name), layer or tileset, and what is wrong::

    level error: levels/level2.json: object 17 "lift": moving_platform property "speed_px_s" ...

Command line
------------
``python -m engine.levels FILE...`` loads each file and prints one summary line per level (and its
warnings), or the one-line error (on stderr) and exits with status 2.
"""

from engine.levels.geometry import (
    ONE_WAY_COLLISION_TYPE,
    SOLID_COLLISION_TYPE,
    add_static_geometry,
)
from engine.levels.kinds import ENGINE_KINDS, Kind, KindRegistry, ObjectRef, Prop
from engine.levels.merge import mask_gid, merge_tiles
from engine.levels.model import (
    ImageLayer,
    Level,
    LevelError,
    LevelObject,
    Rect,
    TileArt,
    TileLayer,
    TileRect,
)
from engine.levels.tiled import load_level

__all__ = [
    "ENGINE_KINDS",
    "ONE_WAY_COLLISION_TYPE",
    "SOLID_COLLISION_TYPE",
    "ImageLayer",
    "Kind",
    "KindRegistry",
    "Level",
    "LevelError",
    "LevelObject",
    "ObjectRef",
    "Prop",
    "Rect",
    "TileArt",
    "TileLayer",
    "TileRect",
    "add_static_geometry",
    "load_level",
    "mask_gid",
    "merge_tiles",
]
