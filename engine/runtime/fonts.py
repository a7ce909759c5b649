"""The fonts the engine's screens use: Kenney's pixel fonts, which ship with arcade (CC0).

Menus, the options screen and a game's HUD draw text at the game's internal resolution
(640 x 360 by default), where a pixel font stays crisp when the picture is scaled up by whole
numbers. :func:`load_fonts` registers them with pyglet once; pass :data:`UI_FONT` or
:data:`TITLE_FONT` as ``font_name`` to ``arcade.Text``. Fonts are looked up by name, so a game
can load its own and use that name instead.
"""

from __future__ import annotations

__all__ = ["FONT_FILES", "TITLE_FONT", "UI_FONT", "load_fonts"]

UI_FONT = "Kenney Mini Square"
"""Menus, HUD and hints: upper case, square, readable at 9 to 12 points."""
TITLE_FONT = "Kenney Blocks"
"""Big titles."""

FONT_FILES = {
    UI_FONT: ":system:fonts/ttf/Kenney/Kenney_Mini_Square.ttf",
    TITLE_FONT: ":system:fonts/ttf/Kenney/Kenney_Blocks.ttf",
}
"""Each font's file (the outlined HUD text renders its glyphs from them:
:mod:`engine.rendering.hud_text`)."""
_loaded = False


def load_fonts() -> None:
    """Register the engine's fonts with pyglet (once; later calls do nothing)."""
    global _loaded
    if _loaded:
        return
    import arcade

    for path in FONT_FILES.values():
        arcade.load_font(path)
    _loaded = True
