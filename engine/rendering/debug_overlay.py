"""The F3 debug overlay: frame statistics as text plus a frame-time graph, top-left.

What the numbers mean is taught in :mod:`engine.rendering.frame_stats`; this module only draws them.

**Reading the graph.** One point per recent frame, oldest on the left, newest on the right edge;
the height is the frame interval (time between two presents). The two horizontal reference lines
are the target frame time (the refresh period with vsync on, e.g. 16.67 ms at 60 Hz; white) and
twice that (orange). A healthy game draws a flat line on the lower reference. A spike to the
upper line is a frame that missed one vblank and stayed on screen twice as long (a *hitch*);
segments drawn in red lead to frames slower than 1.5x the target. A sawtooth between the two
lines means the game renders too slowly for the refresh and alternates between one and two
vblanks, which reads as judder even when the FPS counter looks fine. The graph's full height is
three target frame times; slower frames are clipped to the top.

**Cost.** The overlay is drawn every frame while visible, so it must not disturb what it
measures:

* Text uses one :class:`arcade.Text` per line, created once and drawn together through one
  pyglet batch. Assigning a label's text makes pyglet lay it out again, which is by far the most
  expensive thing here, so the lines are recomputed only every ``text_refresh_ms`` of game time
  (numbers that change 60 times a second cannot be read anyway), only labels whose text changed
  are assigned, and at most one per draw, so a refresh never costs one frame several layouts.
* The panel, the reference lines and the graph share one vertex buffer, filled with numpy into
  preallocated arrays (no per-point Python loop) and drawn with two calls: the panel's two
  triangles, then every line as ``GL_LINES`` with per-vertex colour.

Draw it in screen space: activate a default camera first (``window.default_camera.use()``).
"""

from __future__ import annotations

import arcade
import numpy as np
import pyglet
from arcade.gl import Buffer, BufferDescription, Geometry

from engine.rendering.frame_stats import FrameStats
from engine.timing.clock import NS_PER_MS

__all__ = ["DebugOverlay"]

FONT_NAMES = ("DejaVu Sans Mono", "Consolas", "Menlo", "Courier New", "calibri", "arial")
"""Fonts tried in order; a monospaced one keeps the digits from jumping as they change."""

PANEL_COLOR = (0, 0, 0, 170)
TEXT_COLOR = (235, 235, 235, 255)
GRAPH_COLOR = (120, 230, 120, 255)
LATE_COLOR = (255, 80, 80, 255)
TARGET_LINE_COLOR = (255, 255, 255, 110)
DOUBLE_LINE_COLOR = (255, 170, 0, 140)

LATE_FACTOR = 1.5
"""Frames slower than this many target frame times are drawn in :data:`LATE_COLOR`."""

GRAPH_FULL_SCALE = 3.0
"""The graph's full height, in target frame times."""

# Vertex buffer layout: panel (two triangles), reference lines (two lines), graph segments.
_PANEL_VERTICES = 6
_LINES_FIRST = _PANEL_VERTICES
_GRAPH_FIRST = _LINES_FIRST + 4


class DebugOverlay:
    """Draws :class:`~engine.rendering.frame_stats.FrameStats` as a panel in the top-left corner.

    GL objects (text, buffers) are created on the first visible :meth:`draw`, so the overlay can
    be built before the window exists.

    Args:
        stats: The statistics to show (fed by the game loop, read here).
        visible: Whether the overlay starts shown.
        font_size: Text size in points.
        graph_width_px: Width of the frame-time graph.
        graph_height_px: Height of the frame-time graph.
        margin_px: Gap between the window's corner and the panel.
        text_refresh_ms: Minimum time between two recomputations of the text, measured on the
            recorded present timestamps (a paused game does not refresh). 0 recomputes on every
            draw that has a new frame.

    Attributes:
        text_updates: How many times a label's text was assigned (for tests and profiling).
    """

    def __init__(
        self,
        stats: FrameStats,
        visible: bool = False,
        *,
        font_size: float = 8,
        graph_width_px: int = 160,
        graph_height_px: int = 40,
        margin_px: int = 6,
        text_refresh_ms: float = 250.0,
        full: bool = True,
    ) -> None:
        self.stats = stats
        self._visible = visible
        #: The full view (every line and the frame-time graph); False: the compact view
        #: (:meth:`FrameStats.compact_lines`: FPS, vsync, dropped time; no graph).
        self.full = full
        self.font_size = font_size
        self.graph_width_px = graph_width_px
        self.graph_height_px = graph_height_px
        self.margin_px = margin_px
        self.padding_px = 6
        self.line_height_px = round(font_size * 1.6)
        self.text_refresh_ns = round(text_refresh_ms * NS_PER_MS)
        self.text_updates = 0
        # Text: the labels, the text each one shows, and the lines waiting to be shown.
        self._batch: pyglet.graphics.Batch | None = None
        self._texts: list[arcade.Text] = []
        self._shown_lines: list[str] = []
        self._wanted_lines: list[str] = []
        self._next_label = 0  # where the search for a changed label starts (round robin)
        self._text_width_px = 0.0
        self._line_count = 0  # lines of the current view (labels past it are blank)
        self._lines_present_ns: int | None = None  # stats.last_present_ns when lines were made
        self._lines_frames = -1  # stats.frames_recorded when lines were made
        self._text_origin_px: tuple[int, int] | None = None
        # Geometry, CPU side: preallocated once for a full window of frames.
        vertex_count = _GRAPH_FIRST + 2 * (stats.window_frames - 1)
        self._vertices = np.zeros((vertex_count, 2), dtype=np.float32)
        self._colors = np.zeros((vertex_count, 4), dtype=np.uint8)
        self._colors[:_PANEL_VERTICES] = PANEL_COLOR
        self._colors[_LINES_FIRST : _LINES_FIRST + 2] = TARGET_LINE_COLOR
        self._colors[_LINES_FIRST + 2 : _GRAPH_FIRST] = DOUBLE_LINE_COLOR
        self._used_vertices = _GRAPH_FIRST
        self._geometry_key: tuple[object, ...] | None = None
        # Geometry, GPU side: created on the first draw (needs the GL context).
        self._vbo: Buffer | None = None
        self._cbo: Buffer | None = None
        self._geometry: Geometry | None = None

    # -- visibility -----------------------------------------------------------------------------
    @property
    def visible(self) -> bool:
        """Whether :meth:`draw` draws anything."""
        return self._visible

    @visible.setter
    def visible(self, visible: bool) -> None:
        if visible and not self._visible:
            self._lines_present_ns = None  # show fresh numbers at once
        self._visible = visible

    def cycle(self) -> str:
        """F3: hidden -> compact -> full -> hidden. Returns ``"hidden"``, ``"compact"`` or ``"full"``."""
        if not self._visible:
            self.full = False
            self.visible = True
        elif not self.full:
            self.full = True
        else:
            self.visible = False
        self._lines_present_ns = None  # the view's lines at the next draw, even when paused
        self._lines_frames = -1
        return "hidden" if not self._visible else ("full" if self.full else "compact")

    def toggle(self) -> bool:
        """Show the overlay if hidden, hide it if shown (bind to F3). Returns the new state."""
        self.visible = not self._visible
        return self._visible

    @property
    def texts(self) -> tuple[arcade.Text, ...]:
        """The text objects, one per line (empty before the first visible draw)."""
        return tuple(self._texts)

    # -- drawing --------------------------------------------------------------------------------
    def draw(
        self, width_px: int, height_px: int, *, from_bottom: bool = False, right: bool = False
    ) -> None:
        """Draw the panel, graph and text in screen space, if visible.

        Args:
            width_px: Window width (the panel is clipped to it).
            height_px: Window height (the panel hangs from the top edge).
            from_bottom: Stand the panel on the bottom edge instead (the engine does, so the
                panel never covers a game's HUD, which sits at the top).
            right: Put the panel at the right edge instead of the left (the engine does when
                the player is in the picture's left half, so the panel never covers it).
        """
        if not self._visible:
            return
        self._update_text()
        pad_px = self.padding_px
        lines = self._line_count
        graph_px = self.graph_height_px + pad_px if self.full else 0
        panel_width_px = (
            max(self.graph_width_px if self.full else 0, self._text_width_px) + 2 * pad_px
        )
        left_px = max(width_px - self.margin_px - panel_width_px, 0) if right else self.margin_px
        top_px = height_px - self.margin_px
        if from_bottom:
            panel_height_px = 2 * pad_px + lines * self.line_height_px + graph_px
            top_px = min(top_px, self.margin_px + panel_height_px)
        self._place_texts(round(left_px + pad_px), top_px - pad_px)
        graph_top_px = top_px - 2 * pad_px - lines * self.line_height_px
        graph_bottom_px = graph_top_px - self.graph_height_px
        panel = (
            float(left_px),
            float(min(left_px + panel_width_px, width_px)),
            float(max(graph_top_px - graph_px, 0)),
            float(top_px),
        )
        self._draw_geometry(panel, float(left_px + pad_px), float(graph_bottom_px))
        assert self._batch is not None
        self._batch.draw()

    def _update_text(self) -> None:
        """Recompute the lines when due, then assign at most one label that differs."""
        stats = self.stats
        if self._batch is None:
            self._batch = pyglet.graphics.Batch()
        if self._lines_due():
            self._lines_present_ns = stats.last_present_ns
            self._lines_frames = stats.frames_recorded
            wanted = stats.lines() if self.full else stats.compact_lines()
            self._line_count = len(wanted)
            self._add_labels(len(wanted))
            self._wanted_lines = wanted + [""] * (len(self._texts) - len(wanted))
            if len(self._shown_lines) == len(self._wanted_lines) and not any(self._shown_lines):
                # First fill: show everything at once rather than one line per frame.
                for index in range(len(self._texts)):
                    self._assign(index)
                return
        count = len(self._texts)
        for offset in range(count):
            index = (self._next_label + offset) % count
            if self._wanted_lines[index] != self._shown_lines[index]:
                self._assign(index)
                self._next_label = (index + 1) % count
                return

    def _lines_due(self) -> bool:
        """Whether the text lines should be recomputed now."""
        stats = self.stats
        if not self._texts:
            return True
        if stats.frames_recorded == self._lines_frames:
            return False  # nothing new was recorded: the lines would be the same
        present_ns = stats.last_present_ns
        return (
            self._lines_present_ns is None
            or present_ns is None
            or stats.frames_recorded < self._lines_frames  # the stats were cleared
            or present_ns - self._lines_present_ns >= self.text_refresh_ns
        )

    def _add_labels(self, count: int) -> None:
        """Create labels until there are ``count`` (normally once, on the first draw)."""
        while len(self._texts) < count:
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
            self._text_origin_px = None
        while len(self._wanted_lines) < len(self._texts):
            self._wanted_lines.append("")

    def _assign(self, index: int) -> None:
        """Show the wanted line in label ``index`` (one pyglet layout) and refit the panel."""
        line = self._wanted_lines[index]
        if line == self._shown_lines[index]:
            return
        self._texts[index].text = line
        self._shown_lines[index] = line
        self.text_updates += 1
        self._text_width_px = float(
            max(text.content_width for text in self._texts[: max(self._line_count, 1)])
        )

    def _place_texts(self, x_px: int, top_px: int) -> None:
        """Move the labels when the window height changed (moving re-lays them out)."""
        origin = (x_px, top_px)
        if origin == self._text_origin_px:
            return
        self._text_origin_px = origin
        for index, text in enumerate(self._texts):
            text.position = (x_px, top_px - index * self.line_height_px)

    def _draw_geometry(
        self, panel: tuple[float, float, float, float], graph_left_px: float, graph_bottom_px: float
    ) -> None:
        """Refill the buffer if anything changed, then draw the panel and all lines."""
        ctx = arcade.get_window().ctx
        if self._geometry is None:
            self._vbo = ctx.buffer(reserve=self._vertices.nbytes)
            self._cbo = ctx.buffer(reserve=self._colors.nbytes)
            self._geometry = ctx.geometry(
                [
                    BufferDescription(self._vbo, "2f", ["in_vert"]),
                    BufferDescription(self._cbo, "4f1", ["in_color"]),
                ]
            )
        stats = self.stats
        target_ms = stats.target_frame_ms
        key = (
            stats.frames_recorded,
            stats.last_present_ns,
            target_ms,
            panel,
            graph_bottom_px,
            self.full,
        )
        if key != self._geometry_key:
            self._geometry_key = key
            self._fill(panel, graph_left_px, graph_bottom_px, target_ms)
        program = ctx.line_vertex_shader
        with ctx.enabled(ctx.BLEND):
            self._geometry.render(program, mode=ctx.TRIANGLES, first=0, vertices=_PANEL_VERTICES)
            if not self.full:
                return  # the compact view has no graph
            self._geometry.render(
                program,
                mode=ctx.LINES,
                first=_LINES_FIRST,
                vertices=self._used_vertices - _LINES_FIRST,
            )

    def _fill(
        self,
        panel: tuple[float, float, float, float],
        graph_left_px: float,
        graph_bottom_px: float,
        target_ms: float,
    ) -> None:
        """Write the panel, the reference lines and one segment per pair of consecutive frames."""
        vertices = self._vertices
        left_px, right_px, bottom_px, top_px = panel
        vertices[:_PANEL_VERTICES] = (
            (left_px, bottom_px),
            (right_px, bottom_px),
            (right_px, top_px),
            (left_px, bottom_px),
            (right_px, top_px),
            (left_px, top_px),
        )
        width_px = float(self.graph_width_px)
        height_px = float(self.graph_height_px)
        graph_right_px = graph_left_px + width_px
        px_per_ms = height_px / (GRAPH_FULL_SCALE * target_ms)
        target_y_px = graph_bottom_px + target_ms * px_per_ms
        double_y_px = graph_bottom_px + 2.0 * target_ms * px_per_ms
        vertices[_LINES_FIRST:_GRAPH_FIRST] = (
            (graph_left_px, target_y_px),
            (graph_right_px, target_y_px),
            (graph_left_px, double_y_px),
            (graph_right_px, double_y_px),
        )
        intervals_ms = self.stats.intervals_ms()
        points = len(intervals_ms)
        used = _GRAPH_FIRST + 2 * max(points - 1, 0)
        if points >= 2:
            # Newest frame on the right edge; one slot per frame of the window to its left.
            step_px = width_px / (self.stats.window_frames - 1)
            x_px = graph_right_px - step_px * np.arange(points - 1, -1, -1, dtype=np.float64)
            y_px = graph_bottom_px + np.minimum(intervals_ms * px_per_ms, height_px)
            segments = vertices[_GRAPH_FIRST:used]
            segments[0::2, 0] = x_px[:-1]
            segments[1::2, 0] = x_px[1:]
            segments[0::2, 1] = y_px[:-1]
            segments[1::2, 1] = y_px[1:]
            # Both ends of a segment take the colour of the frame it leads to.
            colors = self._colors[_GRAPH_FIRST:used]
            colors[:] = GRAPH_COLOR
            colors[np.repeat(intervals_ms[1:] > LATE_FACTOR * target_ms, 2)] = LATE_COLOR
        self._used_vertices = used
        assert self._vbo is not None and self._cbo is not None
        self._vbo.write(vertices[:used].tobytes())
        self._cbo.write(self._colors[:used].tobytes())
