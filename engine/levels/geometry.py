"""A level's static ground in pymunk: merged rectangles as static boxes with collision types."""

from __future__ import annotations

import pymunk

from engine.levels.model import Level

SOLID_COLLISION_TYPE = 1
"""pymunk ``collision_type`` of the merged solid ground shapes."""

ONE_WAY_COLLISION_TYPE = 2
"""pymunk ``collision_type`` of one-way platform shapes; the game filters contacts with it."""

# ---------------------------------------------------------------------------------------------
# pymunk
# ---------------------------------------------------------------------------------------------


def add_static_geometry(
    level: Level,
    space: pymunk.Space,
    *,
    friction: float = 1.0,
    elasticity: float = 0.0,
) -> list[pymunk.Shape]:
    """Add the level's solid ground and one-way platforms to ``space`` as static boxes.

    Each merged rectangle becomes one :class:`pymunk.Poly` box on ``space.static_body``
    (vertices in world px, so no body offset is involved). Solid boxes get
    :data:`SOLID_COLLISION_TYPE`, one-way boxes :data:`ONE_WAY_COLLISION_TYPE` so the game
    can let the player pass through them from below with a collision handler.
    Moving platforms, coins and hazards are left to the game.

    Args:
        level: A loaded level.
        space: The pymunk space to add to.
        friction: Friction of every box (pymunk multiplies it with the other shape's).
        elasticity: Bounciness of every box, 0 for none.

    Returns:
        The shapes added: solid boxes first, then one-way boxes, in ``level`` order.
    """
    shapes: list[pymunk.Shape] = []
    groups = (
        (level.solid_rects, SOLID_COLLISION_TYPE),
        (level.one_way_rects, ONE_WAY_COLLISION_TYPE),
    )
    for rects, collision_type in groups:
        for rect in rects:
            box = pymunk.Poly(
                space.static_body,
                [
                    (rect.left_px, rect.bottom_px),
                    (rect.right_px, rect.bottom_px),
                    (rect.right_px, rect.top_px),
                    (rect.left_px, rect.top_px),
                ],
            )
            box.friction = friction
            box.elasticity = elasticity
            box.collision_type = collision_type
            shapes.append(box)
    space.add(*shapes)
    return shapes
