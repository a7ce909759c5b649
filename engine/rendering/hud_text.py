"""Outlined pixel text: HUD and menu text that reads over any background.

White text over a pale sky, a cloud or a grey pillar disappears; a one-pixel dark outline makes
it read over anything, which is why every HUD text in the engine and the sample game is drawn
through :class:`OutlinedText`. Text is drawn in *picture* space (the game's internal
resolution, 640 x 360 by default, see :mod:`engine.runtime.video`) with the engine's pixel
font (:data:`engine.runtime.fonts.UI_FONT`), so it scales with the picture like the art does
and stays crisp at whole-number scales.

**How the outline is drawn, and what it costs.** Each label is laid out twice by pyglet: once in
the outline colour (in one batch) and once in its own colour (in another). A frame draws the
outline batch at the eight one-pixel offsets around the text, by moving the window's view
matrix (a uniform write, no new layout), then the fill batch once: ten batch draws for any
number of labels, and a label whose text changes is laid out twice, not nine times. Assigning
the same text again costs nothing (labels are only touched when their text, position or colour
changes).

Typical use::

    hud = OutlinedText()
    timer = hud.add("", x=634, y=354, anchor_x="right", anchor_y="top")
    ...  # each frame, with the picture's camera in use
    timer.text = "IGT 0:12.345"
    hud.draw()

:class:`HudLines` is a column of such labels (the speedrun timer's lines, a menu's text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import arcade
import pyglet
from pyglet.math import Mat4, Vec3

from engine.runtime.fonts import UI_FONT, load_fonts

__all__ = [
    "HUD_FONT_SIZE",
    "LINE_SPACING",
    "OUTLINE_COLOR",
    "HudLine",
    "HudLines",
    "Label",
    "OutlinedText",
    "line_text_color",
]

RGBA = tuple[int, int, int, int]

HUD_FONT_SIZE = 9
"""The HUD's text size in points at the internal resolution (the pixel font's own grid)."""
LINE_SPACING = 1.6
"""Distance between two lines, in font sizes."""
OUTLINE_COLOR: RGBA = (20, 16, 36, 255)
"""A very dark blue: reads as black, softer against the art's outlines."""
TEXT_COLOR: RGBA = (255, 255, 255, 255)
OUTLINE_OFFSETS_PX = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
"""Where the outline copies go: the eight neighbours of each pixel of the text."""

HudLine = str | tuple[str, RGBA]
"""One HUD line: its text, or its text and its colour."""


def line_text_color(line: HudLine, default: RGBA = TEXT_COLOR) -> tuple[str, RGBA]:
    """The text and colour of a :data:`HudLine`."""
    if isinstance(line, str):
        return line, default
    return line[0], line[1]


class Label:
    """One outlined label of an :class:`OutlinedText` (made by :meth:`OutlinedText.add`).

    Setting :attr:`text`, :attr:`color` or :attr:`position` changes both layouts, and only when
    the value differs from the current one.
    """

    __slots__ = ("_color", "_fill", "_outline", "_position", "_text", "visible")

    def __init__(self, fill: arcade.Text, outline: arcade.Text) -> None:
        self._fill = fill
        self._outline = outline
        self._text = fill.text
        self._color: RGBA = tuple(fill.color)  # type: ignore[assignment]
        self._position = (fill.x, fill.y)
        self.visible = True

    @property
    def text(self) -> str:
        """The label's text."""
        return self._text

    @text.setter
    def text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._fill.text = text
            self._outline.text = text

    @property
    def color(self) -> RGBA:
        """The fill colour (the outline keeps the batch's)."""
        return self._color

    @color.setter
    def color(self, color: RGBA) -> None:
        color = tuple(color)  # type: ignore[assignment]
        if len(color) == 3:
            color = (*color, 255)
        if color != self._color:
            self._color = color
            self._fill.color = color

    @property
    def position(self) -> tuple[float, float]:
        """Where the label is anchored, in picture px."""
        return self._position

    @position.setter
    def position(self, position: tuple[float, float]) -> None:
        if position != self._position:
            self._position = position
            self._fill.position = position
            self._outline.position = position

    @property
    def content_width(self) -> float:
        """The laid-out text's width in picture px (outline excluded)."""
        return float(self._fill.content_width)

    def _show(self, visible: bool) -> None:
        if visible != self.visible:
            self.visible = visible
            self._fill.visible = visible
            self._outline.visible = visible


class OutlinedText:
    """A set of outlined labels drawn together (see the module docstring).

    Args:
        outline_color: The outline's colour (its alpha too: a translucent outline is a glow).
    """

    def __init__(self, outline_color: RGBA = OUTLINE_COLOR) -> None:
        self.outline_color = outline_color
        self._fill_batch = pyglet.graphics.Batch()
        self._outline_batch = pyglet.graphics.Batch()
        self.labels: list[Label] = []

    def add(
        self,
        text: str,
        x: float,
        y: float,
        color: RGBA = TEXT_COLOR,
        font_size: float = HUD_FONT_SIZE,
        *,
        font_name: str | Sequence[str] = UI_FONT,
        anchor_x: str = "left",
        anchor_y: str = "baseline",
    ) -> Label:
        """A new label (laid out now; needs the GL context)."""
        load_fonts()
        options: dict[str, Any] = {
            "font_size": font_size,
            "font_name": font_name,
            "anchor_x": anchor_x,
            "anchor_y": anchor_y,
        }
        outline = arcade.Text(text, x, y, self.outline_color, batch=self._outline_batch, **options)
        fill = arcade.Text(text, x, y, color, batch=self._fill_batch, **options)
        label = Label(fill, outline)
        self.labels.append(label)
        return label

    @property
    def texts(self) -> list[str]:
        """The visible labels' texts, in the order they were added."""
        return [label.text for label in self.labels if label.visible]

    def draw(self) -> None:
        """Draw the outlines, then the text, through the camera in use."""
        if not any(label.visible for label in self.labels):
            return
        window = arcade.get_window()
        view = window.view
        for dx, dy in OUTLINE_OFFSETS_PX:
            window.view = view @ Mat4.from_translation(Vec3(dx, dy, 0))
            self._outline_batch.draw()
        window.view = view
        self._fill_batch.draw()


class HudLines:
    """A column of outlined lines anchored at a corner of the picture; reuses its labels.

    Args:
        anchor_x: ``"left"`` (lines start at ``x``) or ``"right"`` (they end at ``x``).
        font_size: Points at the internal resolution.
        color: The colour of a line given as plain text.
    """

    def __init__(
        self,
        anchor_x: str = "left",
        font_size: float = HUD_FONT_SIZE,
        color: RGBA = TEXT_COLOR,
        text: OutlinedText | None = None,
    ) -> None:
        self.anchor_x = anchor_x
        self.font_size = font_size
        self.color = color
        self.text = text if text is not None else OutlinedText()
        self._labels: list[Label] = []

    @property
    def line_height_px(self) -> int:
        """Distance between two lines' baselines, in picture px."""
        return round(self.font_size * LINE_SPACING)

    def set(self, lines: Sequence[HudLine], x: float, top_y: float) -> None:
        """Show ``lines`` from ``top_y`` (the first line's top) down, at ``x``."""
        while len(self._labels) < len(lines):
            self._labels.append(
                self.text.add("", x, top_y, self.color, self.font_size, anchor_x=self.anchor_x)
            )
        y = top_y - self.font_size
        for index, label in enumerate(self._labels):
            if index >= len(lines):
                label._show(False)
                continue
            label._show(True)
            text, color = line_text_color(lines[index], self.color)
            label.text = text
            label.color = color
            label.position = (x, y)
            y -= self.line_height_px

    def draw(self, lines: Sequence[HudLine], x: float, top_y: float) -> None:
        """:meth:`set`, then draw (the column's own :class:`OutlinedText` only)."""
        self.set(lines, x, top_y)
        self.text.draw()
