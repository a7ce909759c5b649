"""A level's static ground in pymunk: merged tile rectangles as boxes, ground objects as convex
pieces and segments, with collision types.

Ground objects (:class:`~engine.levels.model.GroundShape`: rectangles, polygons and polylines on a
collision layer, and the shapes Tiled's tile collision editor stores on tiles) may be concave;
pymunk's polygons must be convex, so a polygon is cut into triangles (ear clipping) and each
convex piece is added. A game whose motor works on bounding boxes (this template's game sweeps the
player's box against its neighbours' boxes) asks for pieces no wider than ``max_piece_px``: each
piece is then cut into vertical strips, so a slope is a fine staircase rather than one big box.
Polylines become segments, cut the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pymunk

from engine.levels.model import GroundShape, Level

__all__ = [
    "ONE_WAY_COLLISION_TYPE",
    "SOLID_COLLISION_TYPE",
    "add_static_geometry",
    "convex_pieces",
    "triangulate",
]

SOLID_COLLISION_TYPE = 1
"""pymunk ``collision_type`` of the merged solid ground shapes."""

ONE_WAY_COLLISION_TYPE = 2
"""pymunk ``collision_type`` of one-way platform shapes; the game filters contacts with it."""

Point = tuple[float, float]

_MAX_PIECES_PER_SHAPE = 4096
"""A ground object is cut into at most this many pieces (the cut width grows to fit)."""


def _area2(points: Sequence[Point]) -> float:
    """Twice the signed area (positive: counter-clockwise)."""
    return sum(
        x0 * y1 - x1 * y0
        for (x0, y0), (x1, y1) in zip(points, [*points[1:], points[0]], strict=True)
    )


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _inside(p: Point, a: Point, b: Point, c: Point) -> bool:
    return _cross(a, b, p) >= 0 and _cross(b, c, p) >= 0 and _cross(c, a, p) >= 0


def triangulate(points: Sequence[Point]) -> list[tuple[Point, Point, Point]]:
    """Cut a simple polygon into triangles (ear clipping); degenerate parts are dropped.

    A self-intersecting outline (which Tiled allows) still gives triangles covering most of
    it: when no ear is found the rest is fanned from its first point.
    """
    pts = [p for i, p in enumerate(points) if p != points[i - 1]]
    if len(pts) < 3 or abs(_area2(pts)) < 1e-9:
        return []
    if _area2(pts) < 0:
        pts.reverse()
    triangles: list[tuple[Point, Point, Point]] = []
    guard = 0
    while len(pts) > 3 and guard < len(points) ** 2 + 8:
        guard += 1
        for i in range(len(pts)):
            a, b, c = pts[i - 1], pts[i], pts[(i + 1) % len(pts)]
            if _cross(a, b, c) <= 0:
                continue
            if any(_inside(p, a, b, c) for p in pts if p not in (a, b, c)):
                continue
            triangles.append((a, b, c))
            del pts[i]
            break
        else:
            break
    if len(pts) >= 3:
        triangles.extend((pts[0], pts[i], pts[i + 1]) for i in range(1, len(pts) - 1))
    return [t for t in triangles if abs(_cross(*t)) > 1e-9]


def _clip_x(points: Sequence[Point], low: float, high: float) -> list[Point]:
    """The part of a convex polygon with ``low <= x <= high`` (Sutherland-Hodgman)."""
    for bound, keep_above in ((low, True), (high, False)):
        result: list[Point] = []
        for i, current in enumerate(points):
            previous = points[i - 1]
            cur_in = current[0] >= bound if keep_above else current[0] <= bound
            prev_in = previous[0] >= bound if keep_above else previous[0] <= bound
            if cur_in != prev_in:
                t = (bound - previous[0]) / (current[0] - previous[0])
                result.append((bound, previous[1] + t * (current[1] - previous[1])))
            if cur_in:
                result.append(current)
        points = result
        if not points:
            return []
    return list(points)


def _strips(points: Sequence[Point], max_width_px: float | None) -> list[list[Point]]:
    xs = [x for x, _ in points]
    left, right = min(xs), max(xs)
    if max_width_px is None or right - left <= max_width_px:
        return [list(points)]
    count = min(int((right - left) / max_width_px) + 1, _MAX_PIECES_PER_SHAPE)
    width = (right - left) / count
    pieces = []
    for index in range(count):
        piece = _clip_x(points, left + index * width, left + (index + 1) * width)
        if len(piece) >= 3 and abs(_area2(piece)) > 1e-9:
            pieces.append(piece)
    return pieces


def _is_box(points: Sequence[Point]) -> bool:
    """An axis-aligned rectangle (it needs no cutting: its bounding box is itself)."""
    if len(points) != 4:
        return False
    xs = {x for x, _ in points}
    ys = {y for _, y in points}
    return len(xs) == 2 and len(ys) == 2


def convex_pieces(shape: GroundShape, max_piece_px: float | None = None) -> list[list[Point]]:
    """A closed ground shape as convex polygons (each at most ``max_piece_px`` wide unless it
    is an axis-aligned box, which needs no cutting); a polyline as segments (2 points each)."""
    points = list(shape.points_px)
    if not shape.closed:
        segments: list[list[Point]] = []
        for a, b in itertools.pairwise(points):
            if a == b:
                continue
            pieces = 1
            if max_piece_px is not None and abs(b[0] - a[0]) > max_piece_px:
                pieces = min(int(abs(b[0] - a[0]) / max_piece_px) + 1, _MAX_PIECES_PER_SHAPE)
            for i in range(pieces):
                t0, t1 = i / pieces, (i + 1) / pieces
                segments.append(
                    [
                        (a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0),
                        (a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1),
                    ]
                )
        return segments
    if _is_box(points):
        return [points]
    return [strip for triangle in triangulate(points) for strip in _strips(triangle, max_piece_px)]


# ---------------------------------------------------------------------------------------------
# pymunk
# ---------------------------------------------------------------------------------------------


def add_static_geometry(
    level: Level,
    space: pymunk.Space,
    *,
    friction: float = 1.0,
    elasticity: float = 0.0,
    max_piece_px: float | None = None,
) -> list[pymunk.Shape]:
    """Add the level's solid ground and one-way platforms to ``space`` as static shapes.

    Each merged tile rectangle becomes one :class:`pymunk.Poly` box on ``space.static_body``
    (vertices in world px, so no body offset is involved); each ground object its convex
    pieces (:func:`convex_pieces`), a polyline its segments. Solid shapes get
    :data:`SOLID_COLLISION_TYPE`, one-way shapes :data:`ONE_WAY_COLLISION_TYPE` so the game
    can let the player pass through them from below with a collision handler.
    Moving platforms, coins and hazards are left to the game.

    Args:
        level: A loaded level.
        space: The pymunk space to add to.
        friction: Friction of every shape (pymunk multiplies it with the other shape's).
        elasticity: Bounciness of every shape, 0 for none.
        max_piece_px: Cut ground objects into pieces at most this wide (None: never cut).

    Returns:
        The shapes added: solid boxes, then one-way boxes (in ``level`` order), then the
        ground objects' pieces.
    """
    shapes: list[pymunk.Shape] = []
    groups = (
        (level.solid_rects, SOLID_COLLISION_TYPE),
        (level.one_way_rects, ONE_WAY_COLLISION_TYPE),
    )
    for rects, collision_type in groups:
        for rect in rects:
            shapes.append(
                pymunk.Poly(
                    space.static_body,
                    [
                        (rect.left_px, rect.bottom_px),
                        (rect.right_px, rect.bottom_px),
                        (rect.right_px, rect.top_px),
                        (rect.left_px, rect.top_px),
                    ],
                )
            )
            shapes[-1].collision_type = collision_type
    for ground in level.ground_shapes:
        collision_type = ONE_WAY_COLLISION_TYPE if ground.one_way else SOLID_COLLISION_TYPE
        for piece in convex_pieces(ground, max_piece_px):
            shape: pymunk.Shape
            if ground.closed:
                shape = pymunk.Poly(space.static_body, piece)
            else:
                shape = pymunk.Segment(space.static_body, piece[0], piece[1], 0.0)
            shape.collision_type = collision_type
            shapes.append(shape)
    for shape in shapes:
        shape.friction = friction
        shape.elasticity = elasticity
    space.add(*shapes)
    return shapes
