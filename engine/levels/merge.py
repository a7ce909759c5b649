"""Merging a grid of filled tiles into few rectangles, and reading Tiled's tile ids.

One pymunk shape per tile would be thousands of shapes and seams that snag a sliding player;
:func:`merge_tiles` makes a long floor one rectangle, a wall one, a platform one. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.levels.model import Rect, TileRect

GID_FLAG_MASK = 0xF0000000
"""The top four bits of a tile gid: flip horizontally/vertically/diagonally, hex rotation."""

# ---------------------------------------------------------------------------------------------
# Pure helpers: gids and merging
# ---------------------------------------------------------------------------------------------


def mask_gid(raw_gid: int) -> int:
    """Return the tile id part of a gid, without Tiled's flip/rotation flags.

    Tiled stores flips in the top bits of each 32-bit gid (bit 32 horizontal, 31 vertical,
    30 diagonal, 29 hexagonal rotation, kept even on orthogonal maps). A flipped tile is still
    the same tile, so collision only needs the masked id; ``0`` means "no tile".

    Args:
        raw_gid: The value from the layer's ``data``.

    Returns:
        The global tile id, ``0`` for an empty cell.
    """
    return raw_gid & ~GID_FLAG_MASK


def merge_tiles(mask: Sequence[Sequence[bool]], *, vertical: bool = True) -> list[TileRect]:
    """Merge filled cells of a grid into few non-overlapping rectangles.

    Greedy and simple: each row is split into horizontal runs of filled cells; a run extends
    the rectangle from the row directly above when that rectangle has exactly the same x-span,
    otherwise it starts a new one. Floors, walls and platforms become one rectangle each.

    Args:
        mask: ``mask[row][column]`` is True for a filled cell; row 0 is the top row.
        vertical: False merges along rows only (every rectangle is one row tall).

    Returns:
        Rectangles sorted by ``(row, column)``; their union is exactly the filled cells.
    """
    done: list[TileRect] = []
    open_rects: dict[tuple[int, int], tuple[int, int]] = {}  # (x0, x1) -> (row0, height)
    for row, cells in enumerate(mask):
        next_open: dict[tuple[int, int], tuple[int, int]] = {}
        column = 0
        while column < len(cells):
            if not cells[column]:
                column += 1
                continue
            start = column
            while column < len(cells) and cells[column]:
                column += 1
            span = (start, column)
            if vertical and span in open_rects:
                row0, height = open_rects.pop(span)
                next_open[span] = (row0, height + 1)
            else:
                next_open[span] = (row, 1)
        for (x0, x1), (row0, height) in open_rects.items():
            done.append(TileRect(x0, row0, x1 - x0, height))
        open_rects = next_open
    for (x0, x1), (row0, height) in open_rects.items():
        done.append(TileRect(x0, row0, x1 - x0, height))
    done.sort(key=lambda r: (r.row, r.column))
    return done


def tile_rect_to_px(tile_rect: TileRect, tile_size_px: int, map_height_px: int) -> Rect:
    """Convert a tile rectangle (row 0 at the top) to engine px (y up)."""
    return Rect(
        left_px=float(tile_rect.column * tile_size_px),
        bottom_px=float(map_height_px - (tile_rect.row + tile_rect.height_tiles) * tile_size_px),
        width_px=float(tile_rect.width_tiles * tile_size_px),
        height_px=float(tile_rect.height_tiles * tile_size_px),
    )
