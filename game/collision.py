"""What collides with what: the collision types of the level's shapes, and box queries.

Every shape in a level's pymunk space is an axis-aligned box (the merged ground, platforms,
crates, ladder tops, the player) and carries one of these collision types. The player's motor
works on boxes: it sweeps its box against the boxes around it (:mod:`game.entities.player`).

=================  =========================================================================
``SOLID``          static ground: blocks from every side
``ONE_WAY``        one-way platforms: landed on from above, passed from below, dropped through
``MOVING``         solid things that move (moving, crumbling and swinging platforms): ridden,
                   and swept against where they will be at the end of the step
``CRATE``          crates: solid, pushed by the player, ridden
``LADDER_TOP``     the top of a ladder: like a one-way platform, but down climbs the ladder
``PLAYER``         the player's box
=================  =========================================================================

Pure: pymunk only.
"""

from __future__ import annotations

import pymunk

from engine.levels import ONE_WAY_COLLISION_TYPE, SOLID_COLLISION_TYPE

__all__ = [
    "CRATE",
    "LADDER_TOP",
    "MOVING",
    "ONE_WAY",
    "PLAYER",
    "SOLID",
    "Box",
    "query_boxes",
]

SOLID = SOLID_COLLISION_TYPE
ONE_WAY = ONE_WAY_COLLISION_TYPE
MOVING = 3
CRATE = 4
LADDER_TOP = 5
PLAYER = 10

PASS_FROM_BELOW = frozenset({ONE_WAY, LADDER_TOP})
"""Types the player lands on from above but passes from below."""

Box = tuple[float, float, float, float]
"""``(left, bottom, right, top)`` in px."""

_ALL = pymunk.ShapeFilter()


def query_boxes(space: pymunk.Space, box: Box, *, exclude: object = None) -> list[pymunk.Shape]:
    """Solid shapes whose bounding boxes overlap ``box``: sensors and ``exclude`` left out.

    Sorted by collision type and box, so the result never depends on pymunk's tree order (and
    a replay never on the order shapes were added).
    """
    left, bottom, right, top = box
    found = space.bb_query(pymunk.BB(left, bottom, right, top), _ALL)
    shapes = [shape for shape in found if not shape.sensor and shape is not exclude]
    shapes.sort(key=lambda s: (s.collision_type, s.bb.left, s.bb.bottom, s.bb.right, s.bb.top))
    return shapes


def shape_box(shape: pymunk.Shape) -> Box:
    """A shape's bounding box as ``(left, bottom, right, top)``."""
    bb = shape.bb
    return (bb.left, bb.bottom, bb.right, bb.top)
