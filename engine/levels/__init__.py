"""Load Tiled JSON maps into a pure :class:`Level` description, and into pymunk.

`Tiled <https://www.mapeditor.org>`_ is the level editor this engine expects. Save levels as
JSON (``.json``/``.tmj``) *orthogonal*, *finite* maps; tilesets may be embedded or external
JSON files (``.tsj``/``.json``). This module reads such a map and returns a frozen
:class:`Level`: plain numbers in engine coordinates, nothing drawn, no arcade import. The game
turns it into sprites; :func:`add_static_geometry` turns its ground into pymunk shapes.

Coordinates
-----------
Tiled's y axis points **down** from the map's top-left corner. The engine (arcade and pymunk)
uses y **up** from the bottom-left corner. Every coordinate in a :class:`Level` is already in
engine pixels::

    x_px    = x_tiled
    y_up_px = map_height_px - y_down_px          # map_height_px = height_tiles * tile_size_px

A Tiled rectangle object has its ``(x, y)`` at its *top-left* corner, so its engine bottom is
``map_height_px - (y + height)``. Tile objects (objects with a ``gid``) are the exception: Tiled
anchors them at their *bottom-left* corner, so their engine bottom is ``map_height_px - y``.
Tile row 0 is the top row of the map; a tile at ``(column, row)`` covers engine x from
``column * tile`` to ``(column + 1) * tile`` and engine y from ``map_height_px - (row + 1) * tile``
to ``map_height_px - row * tile``. Object-layer offsets (``offsetx``/``offsety``) are applied.

Conventions
-----------
Tile layers (group layers are searched too, hidden layers count as well):

* a layer named ``solid``, or with a custom bool property ``solid = true``: every non-empty
  tile is solid ground. Solid tiles are merged into few rectangles (see below).
* a layer named ``one_way``, or with a custom bool property ``one_way = true``: platforms you
  can jump through from below and stand on. Runs of one-way tiles are merged along rows only
  (each row is its own landing surface). A cell may not be both solid and one-way.
* any other tile layer is decoration: the loader only checks its tile ids.

Object layers hold objects whose type (Tiled's ``type``, or ``class`` as written by Tiled 1.9)
is one of:

* ``player_start``: a point or rectangle; **exactly one** is required.
* ``exit``: a point or rectangle; **at least one** is required.
* ``checkpoint``, ``coin``: points or rectangles.
* ``hazard``: a rectangle (width and height > 0).
* ``moving_platform``: a rectangle, plus its route: a custom property ``path`` that is either a
  *string* naming a ``path`` object, or an *object* property pointing at one (Tiled's
  "attach" picker). Optional float property ``speed_px_s`` (> 0, default 120). The rectangle
  gives the platform's size and starting place; the path's points (engine px) are where the
  platform's *centre* goes, in order. Looping or ping-pong is the game's choice.
* ``path``: a polyline with at least 2 points, referenced by moving platforms.

Anything else (including an object without a type) is an error, so a typo never silently
drops a coin. Ellipses and tile objects count as their bounding rectangles; polygons, text and
rotated objects are rejected. Custom properties must match their declared Tiled type.

Merging solid tiles
-------------------
One pymunk shape per tile would be thousands of shapes and seams that snag a sliding player.
:func:`merge_tiles` merges greedily: first each row into horizontal runs, then a run joins the
rectangle from the row above when both have exactly the same x-span. A long floor becomes one
shape, a wall one shape, a platform one shape. The union of the rectangles is exactly the set of
solid tiles and no two rectangles overlap (the tests check this with hypothesis).
:attr:`Level.solid_tile_count` and ``len(Level.solid_rects)`` report how well it worked.

Errors
------
Every problem raises :class:`LevelError`, whose ``str()`` is one line naming the file, the
object (id and name), layer or tileset, and what is wrong::

    level error: levels/level2.json: object 17 "lift": moving_platform without a path ...

Command line
------------
``python -m engine.levels FILE...`` loads each file and prints one summary line per level,
or the one-line error (on stderr) and exits with status 2.
"""

from __future__ import annotations

from engine.levels.geometry import (
    ONE_WAY_COLLISION_TYPE,
    SOLID_COLLISION_TYPE,
    add_static_geometry,
)
from engine.levels.merge import mask_gid, merge_tiles
from engine.levels.model import (
    DEFAULT_PLATFORM_SPEED_PX_S,
    Level,
    LevelError,
    LevelObject,
    MovingPlatform,
    Rect,
    TileRect,
)
from engine.levels.tiled import load_level

__all__ = [
    "DEFAULT_PLATFORM_SPEED_PX_S",
    "ONE_WAY_COLLISION_TYPE",
    "SOLID_COLLISION_TYPE",
    "Level",
    "LevelError",
    "LevelObject",
    "MovingPlatform",
    "Rect",
    "TileRect",
    "add_static_geometry",
    "load_level",
    "mask_gid",
    "merge_tiles",
]
