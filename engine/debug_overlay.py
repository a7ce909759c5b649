"""The F3 debug overlay: frame statistics as text plus a frame-time graph, top-left.

What the numbers mean is taught in :mod:`engine.frame_stats`; this module only draws them.

**Reading the graph.** One point per recent frame, oldest on the left, newest on the right edge;
the height is the frame interval (time between two presents). The two horizontal reference lines
are the target frame time (the refresh period with vsync on, e.g. 16.67 ms at 60 Hz) and twice
that. A healthy game draws a flat line on the lower reference. A point on the upper line is a
frame that missed one vblank and stayed on screen twice as long (a *hitch*); points drawn in red
are frames slower than 1.5x the target. A sawtooth between the two lines means the game renders
too slowly for the refresh and alternates between one and two vblanks, which reads as judder even
when the FPS counter looks fine. The graph's full height is three target frame times; slower
frames are clipped to the top.

**Cost.** The overlay is drawn every frame while visible, so it must not disturb what it
measures:

* Text uses :class:`arcade.Text` objects created once and drawn together through one pyglet
  batch. A label's text is assigned only when it changed (pyglet re-lays the text out on every
  assignment), and the lines are recomputed only every ``text_refresh_ms`` of game frames
  (numbers that change 60 times a second cannot be read anyway).
* The graph and its reference lines are one vertex buffer and one draw call (``GL_LINES`` with
  per-vertex colour), filled with numpy into preallocated arrays: no per-point Python loop.
* The panel is one filled rectangle.

Draw it in screen space: activate a default camera first (``window.default_camera.use()``).
"""

from __future__ import annotations

from typing import Any

import arcade
import numpy as np
import pyglet
from arcade.gl import BufferDescription

from engine.frame_stats import FrameStats
from engine.timing.clock import NS_PER_MS

__all__ = ["DebugOverlay"]

FONT_NAMES = ("DejaVu Sans Mono", "Consolas", "Menlo", "Courier New", "calibri", "arial")
"""Fonts tried in order; a monospaced one keeps the digits from jumping as they change."""

PANEL_COLOR = (0, 0, 0, 170)
TEXT_COLOR = (235, 235, 235, 255)
GRAPH_COLOR = (120, 230, 120, 255)
LATE_COLOR = (255, 80, 80, 255)
TARGET_LINE_COLOR = (255, 255, 255, 110)
DOUBLE_LINE_COLOR = (255, 170, 0, 130)

LATE_FACTOR = 1.5
"""Frames slower than this many target frame times are drawn in :data:`LATE_COLOR`."""

GRAPH_FULL_SCALE = 3.0
"""The graph's full height, in target frame times."""

_REFERENCE_VERTICES = 4  # two reference lines, two vertices each, at the start of the buffer


class DebugOverlay:
    """Draws :class:`~engine.frame_stats.FrameStats` as a panel in the top-left corner.

    GL objects (text, buffers) are created on the first visible :meth:`draw`, so the overlay can
    be built before the window exists.

    Args:
        stats: The statistics to show (fed by the game loop, read here).
        visible: Whether the overlay starts shown.
        font_size: Text size in points.
        graph_width_px: Width of the frame-time graph.
        graph_height_px: Height of the frame-time graph.
        margin_px: Gap between the window's corner and the panel.
        text_refresh_ms: Minimum game time between two recomputations of the text (measured on
            the recorded present timestamps, so a paused game does not refresh). 0 refreshes
            every draw.

    Attributes:
        text_updates: How many times a label's text was assigned (for tests and profiling).
    """

    def __init__(
        self,
        stats: FrameStats,
        visible: bool = False,
        *,
        font_size: float = 10,
        graph_width_px: int = 240,
        graph_height_px: int = 60,
        margin_px: int = 8,
        text_refresh_ms: float = 250.0,
    ) -> None:
        self.stats = stats
        self._visible = visible
        self.font_size = font_size
        self.graph_width_px = graph_width_px
        self.graph_height_px = graph_height_px
        self.margin_px = margin_px
        self.padding_px = 6
        self.line_height_px = round(font_size * 1.6)
        self.text_refresh_ns = round(text_refresh_ms * NS_PER_MS)
        self.text_updates = 0
        self._texts: list[arcade.Text] = []
        self._shown_lines: list[str] = []
        self._batch: pyglet.graphics.Batch | None = None
        self._text_width_px = 0.0
        self._text_present_ns: int | None = None  # stats.last_present_ns at the last refresh
        self._text_frames = -1  # stats.frames_recorded at the last refresh
        self._layout_key: tuple[int, int, int] | None = None
        # Graph vertices: 4 for the reference lines, then 2 per segment between frames.
        vertex_count = _REFERENCE_VERTICES + 2 * (stats.window_frames - 1)
        self._vertices = np.zeros((vertex_count, 2), dtype=np.float32)
        self._colors = np.zeros((vertex_count, 4), dtype=np.uint8)
        self._colors[0:2] = TARGET_LINE_COLOR
        self._colors[2:4] = DOUBLE_LINE_COLOR
        self._used_vertices = _REFERENCE_VERTICES
        self._graph_key: tuple[Any, ...] | None = None
        self._vbo: Any = None  # arcade.gl.Buffer, created with the GL context
        self._cbo: Any = None
        self._geometry: Any = None

    # -- visibility -----------------------------------------------------------------------------
    @property
    def visible(self) -> bool:
        """Whether :meth:`draw` draws anything."""
        return self._visible

    @visible.setter
    def visible(self, visible: bool) -> None:
        if visible and not self._visible:
            self._text_present_ns = None  # show fresh numbers at once
        self._visible = visible

    def toggle(self) -> bool:
        """Show the overlay if hidden, hide it if shown (bind to F3). Returns the new state."""
        self.visible = not self._visible
        return self._visible

    @property
    def texts(self) -> tuple[arcade.Text, ...]:
        """The text objects, one per line (empty before the first visible draw)."""
        return tuple(self._texts)

    # -- drawing --------------------------------------------------------------------------------
    def draw(self, width_px: int, height_px: int) -> None:
        """Draw the panel, text and graph in screen space, if visible.

        Args:
            width_px: Window width (the panel is clipped to it).
            height_px: Window height (the panel hangs from the top edge).
        """
        if not self._visible:
            return
        self._refresh_text()
        left_px = float(self.margin_px)
        top_px = float(height_px - self.margin_px)
        pad_px = self.padding_px
        panel_width_px = max(self.graph_width_px, self._text_width_px) + 2 * pad_px
        right_px = min(left_px + panel_width_px, float(width_px))
        text_bottom_px = top_px - pad_px - len(self._texts) * self.line_height_px
        graph_top_px = text_bottom_px - pad_px
        graph_bottom_px = graph_top_px - self.graph_height_px
        bottom_px = max(graph_bottom_px - pad_px, 0.0)
        self._place_texts(int(left_px) + pad_px, int(top_px) - pad_px)

        arcade.draw_lrbt_rectangle_filled(left_px, right_px, bottom_px, top_px, PANEL_COLOR)
        self._draw_graph(left_px + pad_px, graph_bottom_px)
        assert self._batch is not None
        self._batch.draw()

    def _refresh_text(self) -> None:
        """Recompute the lines if enough game time passed; assign only the labels that changed."""
        stats = self.stats
        present_ns = stats.last_present_ns
        if self._texts:
            if stats.frames_recorded == self._text_frames:
                return  # nothing new was recorded: the lines would be the same
            stale = (
                self._text_present_ns is None
                or present_ns is None
                or stats.frames_recorded < self._text_frames  # the stats were cleared
                or present_ns - self._text_present_ns >= self.text_refresh_ns
            )
            if not stale:
                return
        self._text_present_ns = present_ns
        self._text_frames = stats.frames_recorded
        lines = stats.lines()
        if self._batch is None:
            self._batch = pyglet.graphics.Batch()
        while len(self._texts) < len(lines):
            self._texts.append(
                arcade.Text(
                    "",
                    0,
                    0,
                    color=TEXT_COLOR,
                    font_size=self.font_size,
                    font_name=FONT_NAMES,
                    anchor_y="top",
                    batch=self._batch,
                )
            )
            self._shown_lines.append("")
            self._layout_key = None
        changed = False
        for index, text in enumerate(self._texts):
            line = lines[index] if index < len(lines) else ""
            if line != self._shown_lines[index]:
                text.text = line
                self._shown_lines[index] = line
                self.text_updates += 1
                changed = True
        if changed:
            self._text_width_px = float(max(text.content_width for text in self._texts))

    def _place_texts(self, x_px: int, top_px: int) -> None:
        """Move the labels when the window height changed (moving re-lays them out)."""
        key = (x_px, top_px, len(self._texts))
        if key == self._layout_key:
            return
        self._layout_key = key
        for index, text in enumerate(self._texts):
            text.position = (x_px, top_px - index * self.line_height_px)

    def _draw_graph(self, left_px: float, bottom_px: float) -> None:
        """Fill the vertex arrays (only when something changed) and draw them in one call."""
        ctx = arcade.get_window().ctx
        if self._geometry is None:
            self._vbo = ctx.buffer(reserve=self._vertices.nbytes)
            self._cbo = ctx.buffer(reserve=self._colors.nbytes)
            self._geometry = ctx.geometry(
                [
                    BufferDescription(self._vbo, "2f", ["in_vert"]),
                    BufferDescription(self._cbo, "4f1", ["in_color"]),
                ],
                mode=ctx.LINES,
            )
        stats = self.stats
        target_ms = stats.target_frame_ms
        key = (stats.frames_recorded, stats.last_present_ns, target_ms, left_px, bottom_px)
        if key != self._graph_key:
            self._graph_key = key
            self._fill_graph(left_px, bottom_px, target_ms)
        with ctx.enabled(ctx.BLEND):
            self._geometry.render(ctx.line_vertex_shader, vertices=self._used_vertices)

    def _fill_graph(self, left_px: float, bottom_px: float, target_ms: float) -> None:
        """Write reference lines and one ``GL_LINES`` segment per pair of consecutive frames."""
        width_px = float(self.graph_width_px)
        height_px = float(self.graph_height_px)
        right_px = left_px + width_px
        px_per_ms = height_px / (GRAPH_FULL_SCALE * target_ms)
        vertices = self._vertices
        target_y_px = bottom_px + target_ms * px_per_ms
        double_y_px = bottom_px + 2.0 * target_ms * px_per_ms
        vertices[0:4] = (
            (left_px, target_y_px),
            (right_px, target_y_px),
            (left_px, double_y_px),
            (right_px, double_y_px),
        )
        intervals_ms = self.stats.intervals_ms()
        points = len(intervals_ms)
        segments = max(points - 1, 0)
        if segments:
            # Newest frame on the right edge, one slot per frame of the window to its left.
            step_px = width_px / (self.stats.window_frames - 1)
            x_px = right_px - step_px * np.arange(points - 1, -1, -1, dtype=np.float64)
            y_px = bottom_px + np.minimum(intervals_ms * px_per_ms, height_px)
            used = _REFERENCE_VERTICES + 2 * segments
            strip = vertices[_REFERENCE_VERTICES:used]
            strip[0::2, 0] = x_px[:-1]
            strip[1::2, 0] = x_px[1:]
            strip[0::2, 1] = y_px[:-1]
            strip[1::2, 1] = y_px[1:]
            # Both ends of a segment take the colour of the frame it leads to.
            late = np.repeat(intervals_ms[1:] > LATE_FACTOR * target_ms, 2)
            self._colors[_REFERENCE_VERTICES:used] = GRAPH_COLOR
            self._colors[_REFERENCE_VERTICES:used][late] = LATE_COLOR
        else:
            used = _REFERENCE_VERTICES
        self._used_vertices = used
        self._vbo.write(vertices[:used])
        self._cbo.write(self._colors[:used])
