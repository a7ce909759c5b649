"""Outlined pixel text: HUD and menu text that reads over any background, at little cost.

White text over a pale sky, a cloud or a grey pillar disappears; a one-pixel dark outline makes
it read over anything, which is why every HUD and menu text in the engine and its games is
drawn through :class:`OutlinedText`. Text is drawn in *picture* space (the game's internal
resolution, 640 x 360 by default, see :mod:`engine.runtime.video`) with the engine's pixel fonts
(:mod:`engine.runtime.fonts`), so it scales with the picture like the art does and stays crisp
at whole-number scales.

**A bitmap font, outline baked in.** Each character is rendered once per font and size by
Pillow, without antialiasing (a pixel font's pixels stay whole) and with a one-pixel stroke in
the outline colour, into a small texture that is cached. A label is then a row of sprites, one
per character, in one :class:`arcade.SpriteList` per :class:`OutlinedText`: drawing every label
of a HUD is one draw call, and changing a label's text moves or retextures a few sprites (tens
of microseconds) instead of making pyglet lay the text out again (about 150 us a label here, which
a timer that changes every frame would pay every frame, nine times over for an outline drawn as
offset copies). The fill is white and tinted by the sprite's colour, so one set of glyphs serves
every colour; the outline stays dark under any tint.

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
from functools import cache

import arcade
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from engine.runtime.fonts import FONT_FILES, UI_FONT

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
"""The HUD's text size in points at the internal resolution (12 picture px)."""
LINE_SPACING = 1.6
"""Distance between two lines, in font sizes."""
OUTLINE_COLOR: RGBA = (20, 16, 36, 255)
"""A very dark blue: reads as black, softer against the art's outlines."""
TEXT_COLOR: RGBA = (255, 255, 255, 255)
OUTLINE_PX = 1
PX_PER_POINT = 96 / 72
"""Points to pixels as pyglet counts them (96 dpi), so sizes mean what they meant with it."""

HudLine = str | tuple[str, RGBA]
"""One HUD line: its text, or its text and its colour."""


def line_text_color(line: HudLine, default: RGBA = TEXT_COLOR) -> tuple[str, RGBA]:
    """The text and colour of a :data:`HudLine`."""
    if isinstance(line, str):
        return line, default
    return line[0], line[1]


@cache
def _font(font_name: str, size_px: int) -> ImageFont.FreeTypeFont:
    path = FONT_FILES.get(font_name, FONT_FILES[UI_FONT])
    return ImageFont.truetype(str(arcade.resources.resolve(path)), size_px)


@cache
def _glyph(font_name: str, size_px: int, char: str, outline: RGBA) -> tuple[arcade.Texture, float]:
    """The character's texture (white, outlined) and its advance in px."""
    font = _font(font_name, size_px)
    ascent, descent = font.getmetrics()
    advance = font.getlength(char)
    width = max(1, int(-(-advance // 1))) + 2 * OUTLINE_PX
    height = ascent + descent + 2 * OUTLINE_PX
    image = Image.new("RGBA", (width + 1, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # no antialiasing: whole pixels
    if char.strip():
        draw.text(
            (OUTLINE_PX, OUTLINE_PX),
            char,
            font=font,
            fill=TEXT_COLOR,
            stroke_width=OUTLINE_PX,
            stroke_fill=outline,
        )
    pixels = np.asarray(image).copy()  # whole pixels: the stroke's soft edge made hard
    pixels[..., 3] = np.where(pixels[..., 3] >= 128, 255, 0)
    image = Image.fromarray(pixels)
    key = f"hud-glyph-{font_name}-{size_px}-{ord(char)}-{outline}"
    return arcade.Texture(image, hash=key), advance


class Label:
    """One outlined label of an :class:`OutlinedText` (made by :meth:`OutlinedText.add`).

    Setting :attr:`text`, :attr:`color` or :attr:`position` touches its sprites only when the
    value differs from the current one.
    """

    def __init__(
        self,
        owner: OutlinedText,
        text: str,
        position: tuple[float, float],
        color: RGBA,
        size_px: int,
        font_name: str,
        anchor_x: str,
        anchor_y: str,
    ) -> None:
        self._owner = owner
        self._size_px = size_px
        self._font_name = font_name
        self._anchor_x = anchor_x
        self._anchor_y = anchor_y
        self._sprites: list[arcade.Sprite] = []
        self._text = ""
        self._color = _rgba(color)
        self._position = position
        self._width_px = 0.0
        self.visible = True
        self.text = text

    @property
    def text(self) -> str:
        """The label's text."""
        return self._text

    @text.setter
    def text(self, text: str) -> None:
        if text != self._text:
            self._text = text
            self._layout()

    @property
    def color(self) -> RGBA:
        """The fill colour (the outline stays dark)."""
        return self._color

    @color.setter
    def color(self, color: RGBA) -> None:
        color = _rgba(color)
        if color != self._color:
            self._color = color
            for sprite in self._sprites:
                sprite.color = color

    @property
    def position(self) -> tuple[float, float]:
        """Where the label is anchored, in picture px."""
        return self._position

    @position.setter
    def position(self, position: tuple[float, float]) -> None:
        if position != self._position:
            self._position = position
            self._layout()

    @property
    def content_width(self) -> float:
        """The text's width in picture px (outline excluded)."""
        return self._width_px

    def _show(self, visible: bool) -> None:
        if visible != self.visible:
            self.visible = visible
            for sprite in self._sprites:
                sprite.visible = visible

    def _layout(self) -> None:
        """Give each character a sprite, its glyph and its place."""
        outline = self._owner.outline_color
        glyphs = [_glyph(self._font_name, self._size_px, c, outline) for c in self._text]
        self._width_px = sum(advance for _, advance in glyphs)
        sprites = self._sprites
        sprite_list = self._owner.sprite_list
        while len(sprites) < len(glyphs):
            sprite = arcade.Sprite()
            sprite.color = self._color
            sprite.visible = self.visible
            sprites.append(sprite)
            sprite_list.append(sprite)
        while len(sprites) > len(glyphs):
            sprite_list.remove(sprites.pop())
        font = _font(self._font_name, self._size_px)
        ascent, descent = font.getmetrics()
        x, y = self._position
        left = x - {"left": 0.0, "center": self._width_px / 2, "right": self._width_px}.get(
            self._anchor_x, 0.0
        )
        baseline = {"top": y - ascent, "center": y - (ascent - descent) / 2}.get(self._anchor_y, y)
        bottom = round(baseline) - descent - OUTLINE_PX
        pen = left - OUTLINE_PX
        for sprite, (texture, advance) in zip(sprites, glyphs, strict=True):
            if sprite.texture is not texture:
                sprite.texture = texture
            sprite.position = (round(pen) + texture.width / 2, bottom + texture.height / 2)
            pen += advance


def _rgba(color: Sequence[int]) -> RGBA:
    values = tuple(int(v) for v in color)
    return (*values, 255)[:4] if len(values) == 3 else values[:4]  # type: ignore[return-value]


class OutlinedText:
    """A set of outlined labels drawn together in one call (see the module docstring).

    Args:
        outline_color: The outline's colour (baked into the glyphs).
    """

    def __init__(self, outline_color: RGBA = OUTLINE_COLOR) -> None:
        self.outline_color = outline_color
        self.sprite_list: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.labels: list[Label] = []

    def add(
        self,
        text: str,
        x: float,
        y: float,
        color: RGBA = TEXT_COLOR,
        font_size: float = HUD_FONT_SIZE,
        *,
        font_name: str = UI_FONT,
        anchor_x: str = "left",
        anchor_y: str = "baseline",
    ) -> Label:
        """A new label; ``font_size`` in points as pyglet counts them."""
        label = Label(
            self,
            text,
            (x, y),
            color,
            round(font_size * PX_PER_POINT),
            font_name,
            anchor_x,
            anchor_y,
        )
        self.labels.append(label)
        return label

    @property
    def texts(self) -> list[str]:
        """The visible labels' texts, in the order they were added."""
        return [label.text for label in self.labels if label.visible]

    def draw(self) -> None:
        """Draw every label through the camera in use (one draw call)."""
        if self.sprite_list:
            self.sprite_list.draw(pixelated=True)


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
