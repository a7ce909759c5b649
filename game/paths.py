"""Moving along a path: where something is after travelling some distance, back and forth.

A moving platform or a flyer follows a Tiled polyline: out from the first point to the last,
then back the same way, forever (ping-pong). Its position is a pure function of the distance
travelled (``start_px + speed_px_s * time_s``), never the sum of many small steps, so it never
drifts, and any tick's position is known exactly. Pure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

__all__ = ["ping_pong_position", "platform_position"]


def ping_pong_position(
    path_px: Sequence[tuple[float, float]], distance_px: float
) -> tuple[float, float]:
    """The point ``distance_px`` along a ping-pong route over ``path_px``.

    Args:
        path_px: The route's points, at least one.
        distance_px: Distance travelled from the first point (out and back count).

    Returns:
        ``(x, y)`` in px.
    """
    lengths = [math.dist(a, b) for a, b in itertools.pairwise(path_px)]
    total = sum(lengths)
    if total <= 0.0:
        return path_px[0]
    distance = distance_px % (2.0 * total)
    if distance > total:
        distance = 2.0 * total - distance
    for (a, b), length in zip(itertools.pairwise(path_px), lengths, strict=True):
        if distance <= length and length > 0.0:
            f = distance / length
            return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)
        distance -= length
    return path_px[-1]


def platform_position(
    path_px: Sequence[tuple[float, float]], speed_px_s: float, time_s: float, start_px: float = 0.0
) -> tuple[float, float]:
    """Where a ping-pong mover's centre is after ``time_s``, starting ``start_px`` along."""
    return ping_pong_position(path_px, start_px + speed_px_s * time_s)
