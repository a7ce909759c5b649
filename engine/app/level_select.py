"""The level select screen: every level with the player's records and a preview of the one chosen.

The left column lists the levels, each with its best time and a medal (gold at or under par,
silver near it, bronze for a completion: :func:`engine.app.level_records.medal_for`); the right
shows the selected level: its thumbnail (:mod:`engine.rendering.level_preview`), best time,
par, coins and medal. Up and down choose, jump or confirm plays, pause goes back: it is a
:class:`~engine.runtime.menu.MenuScene` with its own drawing, so input works as on every menu.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import arcade
from PIL import Image

from engine.app.level_records import medal_for
from engine.levels import Level
from engine.rendering.hud_text import Label, OutlinedText
from engine.rendering.level_preview import preview_rgba
from engine.runtime.fonts import TITLE_FONT
from engine.runtime.menu import ITEM_COLOR, SELECTED_COLOR, TEXT_COLOR, Menu, MenuScene
from engine.timing.tick_rate import TickRate

__all__ = ["LevelEntry", "LevelSelectScene"]

RGBA = tuple[int, int, int, int]
MEDAL_COLORS: dict[str, RGBA] = {
    "gold": (255, 214, 64, 255),
    "silver": (205, 210, 225, 255),
    "bronze": (215, 135, 60, 255),
}
NONE_COLOR: RGBA = (140, 140, 160, 255)
PANEL_COLOR: RGBA = (0, 0, 0, 110)
ROW_PX = 20
MEDAL_RADIUS_PX = 4


@dataclass(frozen=True, slots=True)
class LevelEntry:
    """One level as the screen shows it.

    Attributes:
        level: The level (for its name and preview).
        best_ticks: The player's best time, or None (never completed).
        coins: Most coins in one completion (0 if never completed).
        par_ticks: The par time, or None.
    """

    level: Level
    best_ticks: int | None
    coins: int
    par_ticks: int | None

    @property
    def medal(self) -> str | None:
        """``gold``, ``silver``, ``bronze`` or None."""
        return medal_for(self.best_ticks, self.par_ticks)


def _time(tick_rate: TickRate, ticks: int | None) -> str:
    from engine.speedrun.timer import format_igt

    return "-:--.---" if ticks is None else format_igt(tick_rate, ticks)


class LevelSelectScene(MenuScene):
    """The level select screen (see the module docstring).

    Args:
        entries: The levels, in play order.
        tick_rate: To show times.
        on_play: Called with the chosen level's index.
        on_back: Back to the title (``Back`` or pause).
        backdrop: A scene drawn behind, dimmed (the attract mode).
    """

    def __init__(
        self,
        entries: Sequence[LevelEntry],
        tick_rate: TickRate,
        on_play: Callable[[int], None],
        on_back: Callable[[], None],
        backdrop: arcade.View | None = None,
    ) -> None:
        labels = [(str(i), f"{i + 1}. {e.level.name}") for i, e in enumerate(entries)]
        menu = Menu.of(*labels, ("back", "Back"))
        super().__init__(
            "Select level",
            (),
            menu,
            lambda key: on_back() if key == "back" else on_play(int(key)),
            on_back=on_back,
            backdrop=backdrop,  # type: ignore[arg-type]
        )
        self.entries = tuple(entries)
        self.tick_rate = tick_rate
        self._text: OutlinedText | None = None
        self._items: list[Label] = []
        self._details: list[Label] = []
        self._previews: dict[int, arcade.Texture] = {}

    # -- drawing ------------------------------------------------------------------------------
    def on_render(self, alpha: float, frame_dt_s: float) -> None:
        """The backdrop, then the list, the medals and the selected level's card."""
        width, height = self.draw_backdrop(alpha, frame_dt_s)
        arcade.draw_lrbt_rectangle_filled(0, width, 0, height, (8, 10, 28, 190))
        if self._text is None:
            self._build(width, height)
        assert self._text is not None
        selected = self.menu.selected
        for index, label in enumerate(self._items):
            label.color = SELECTED_COLOR if index == selected else ITEM_COLOR
            prefix = "> " if index == selected else ""
            label.text = prefix + self.menu.items[index].label
        self._draw_medals(width, height)
        self._draw_card(width, height)
        self._text.draw()

    def _build(self, width: int, height: int) -> None:
        text = self._text = OutlinedText()
        text.add(
            self.panel.title,
            width / 2,
            height - 44,
            (255, 255, 255, 255),
            22,
            font_name=TITLE_FONT,
            anchor_x="center",
        )
        top = height - 84
        left = width * 0.06
        for index, item in enumerate(self.menu.items):
            y = top - index * ROW_PX
            self._items.append(text.add(item.label, left, y, ITEM_COLOR, 11))
            if index < len(self.entries):
                entry = self.entries[index]
                text.add(
                    _time(self.tick_rate, entry.best_ticks),
                    width * 0.5 - 18,
                    y,
                    TEXT_COLOR if entry.best_ticks is not None else NONE_COLOR,
                    9,
                    anchor_x="right",
                )
        card_x = width * 0.54
        for _row in range(5):
            self._details.append(text.add("", card_x, 0, TEXT_COLOR, 9))

    def _draw_medals(self, width: int, height: int) -> None:
        top = height - 84
        for index, entry in enumerate(self.entries):
            medal = entry.medal
            x, y = width * 0.5 - 8, top - index * ROW_PX + 4
            arcade.draw_circle_filled(x, y, MEDAL_RADIUS_PX + 1, (20, 16, 36, 255))
            color = MEDAL_COLORS[medal] if medal is not None else (60, 60, 80, 255)
            arcade.draw_circle_filled(x, y, MEDAL_RADIUS_PX, color)

    def _draw_card(self, width: int, height: int) -> None:
        """The selected level's preview and numbers (nothing on ``Back``)."""
        index = self.menu.selected
        card_left = width * 0.54
        card_right = width * 0.96
        card_top = height - 74
        if index >= len(self.entries):
            for label in self._details:
                label.text = ""
            return
        entry = self.entries[index]
        texture = self._preview(index)
        box_w, box_h = card_right - card_left, height * 0.32
        scale = min(box_w / texture.width, box_h / texture.height)
        w, h = texture.width * scale, texture.height * scale
        left = card_left + (box_w - w) / 2
        bottom = card_top - h
        arcade.draw_lrbt_rectangle_filled(
            left - 3, left + w + 3, bottom - 3, card_top + 3, (20, 16, 36, 255)
        )
        arcade.draw_texture_rect(texture, arcade.LBWH(left, bottom, w, h), pixelated=True)
        medal = entry.medal
        total = len(entry.level.coins)
        lines = [
            entry.level.name,
            f"best {_time(self.tick_rate, entry.best_ticks)}",
            f"par {_time(self.tick_rate, entry.par_ticks)}",
            f"coins {entry.coins} / {total}"
            if entry.best_ticks is not None
            else f"coins - / {total}",
            f"medal {medal or 'none yet'}",
        ]
        y = bottom - 20
        for label, line in zip(self._details, lines, strict=True):
            label.text = line
            label.position = (card_left, y)
            y -= 15
        self._details[-1].color = MEDAL_COLORS.get(medal or "", NONE_COLOR)

    def _preview(self, index: int) -> arcade.Texture:
        texture = self._previews.get(index)
        if texture is None:
            image = Image.fromarray(preview_rgba(self.entries[index].level))
            texture = arcade.Texture(image, hash=f"level-preview-{id(self)}-{index}")
            self._previews[index] = texture
        return texture
