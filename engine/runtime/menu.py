"""Menus: a list of choices moved through with up/down, chosen with jump or confirm.

:class:`Menu` is the pure part: it reads one tick's :class:`~engine.input.snapshot.InputSnapshot`
and says which item was chosen (or changed), so menus work the same with the keyboard, a gamepad
or a replay, and tests drive them without a window. An item may be a *setting*: it shows a value
(``Music: < 70% >``) that left and right change. :class:`MenuPanel` draws a menu (a title, a few
lines of text and the items, the selected one highlighted) in picture space. :class:`MenuScene`
is a whole screen made of one panel: title screens, level select, the complete and final screens
and the options screen are all menu scenes that differ only in their text and what their choices
do. A pause menu is the same :class:`Menu` drawn by a level over the frozen game.

Menus are part of the engine's runtime so that every game, and the engine's own options screen
(:mod:`engine.runtime.options`), use the same one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import arcade

from engine.input.snapshot import InputSnapshot
from engine.rendering.hud_text import HudLine, Label, OutlinedText, line_text_color
from engine.runtime.fonts import TITLE_FONT, load_fonts
from engine.runtime.scene import Scene

__all__ = ["Menu", "MenuItem", "MenuPanel", "MenuScene"]

CONFIRM_ACTIONS = ("jump", "confirm")
"""Actions that choose the selected item (when the game's action map has them)."""

TEXT_FONT_SIZE = 9
ITEM_FONT_SIZE = 12
LINE_SPACING = 1.6
SELECTED_COLOR = arcade.color.YELLOW
ITEM_COLOR = arcade.color.WHITE
TEXT_COLOR = (225, 225, 225, 255)
DIM_COLOR = (8, 10, 28, 190)
"""Over a level playing behind a menu (attract mode): dark enough for any text to read."""
SHADOW_COLOR = (0, 0, 0, 170)
LOGO_COLOR = (255, 214, 64, 255)
"""The game's name on the title screen: gold."""


@dataclass(slots=True)
class MenuItem:
    """One choice, or one setting with values.

    Attributes:
        key: What :meth:`Menu.handle` returns when it is chosen or its value changes.
        label: What is shown.
        choices: A setting's values, shown after the label; left and right change it.
        choice: Index of the current value.
    """

    key: str
    label: str
    choices: tuple[str, ...] = ()
    choice: int = 0

    @property
    def value(self) -> str:
        """The current value of a setting ("" for a plain choice)."""
        return self.choices[self.choice] if self.choices else ""

    @property
    def text(self) -> str:
        """How the item reads: ``Music: < 70% >`` for a setting."""
        return f"{self.label}:  < {self.value} >" if self.choices else self.label


@dataclass(slots=True)
class Menu:
    """A vertical list of items with one selected.

    Attributes:
        items: The choices, top to bottom (at least one).
        selected: Index of the highlighted item.
    """

    items: Sequence[MenuItem]
    selected: int = 0

    def __post_init__(self) -> None:
        if not self.items:
            raise ValueError("a menu needs at least one item")
        self.selected %= len(self.items)

    @classmethod
    def of(cls, *pairs: tuple[str, str]) -> Menu:
        """A menu from ``(key, label)`` pairs."""
        return cls([MenuItem(key, label) for key, label in pairs])

    @property
    def selected_key(self) -> str:
        """The key of the highlighted item."""
        return self.items[self.selected].key

    def item(self, key: str) -> MenuItem:
        """The item with this key.

        Raises:
            KeyError: No such item.
        """
        for item in self.items:
            if item.key == key:
                return item
        raise KeyError(key)

    def handle(self, snapshot: InputSnapshot) -> str | None:
        """Apply one tick's input: up/down move (wrapping), left/right change a setting,
        jump/confirm choose.

        Returns:
            The key of the item chosen, or whose value changed, this tick; None otherwise.
        """
        actions = snapshot.action_map

        def pressed(action: str) -> bool:
            return action in actions and snapshot.was_pressed(action)

        if pressed("up"):
            self.selected = (self.selected - 1) % len(self.items)
        if pressed("down"):
            self.selected = (self.selected + 1) % len(self.items)
        item = self.items[self.selected]
        if item.choices:
            step = int(pressed("right")) - int(pressed("left"))
            if step:
                item.choice = (item.choice + step) % len(item.choices)
                return item.key
        for action in CONFIRM_ACTIONS:
            if pressed(action):
                if item.choices:  # choosing a setting steps it forward too
                    item.choice = (item.choice + 1) % len(item.choices)
                return item.key
        return None


@dataclass
class MenuPanel:
    """Draws a title, some lines of text and a menu, centred in the picture.

    Every text is outlined pixel text (:mod:`engine.rendering.hud_text`), so it reads over a
    level playing behind it. With ``logo`` the title is drawn as the game's logo: the title
    font in :data:`LOGO_COLOR`, outlined, over a drop shadow.

    Build it once and call :meth:`draw` every frame; the text objects are made on the first
    draw and rebuilt only when the lines change.
    """

    title: str
    lines: Sequence[HudLine] = ()
    menu: Menu | None = None
    dim_background: bool = False
    title_size: int = 22
    title_color: tuple[int, int, int, int] = (255, 255, 255, 255)
    logo: bool = False
    _text: OutlinedText | None = field(default=None, repr=False)
    _shadow: OutlinedText | None = field(default=None, repr=False)
    _items: list[Label] = field(default_factory=list, repr=False)
    _built_for: tuple[object, ...] | None = field(default=None, repr=False)
    bottom_px: float = field(default=0.0, repr=False)
    """Where the last item's baseline is (for a screen that draws more under the menu)."""

    def draw(self, width_px: int, height_px: int) -> None:
        """Draw in picture space (the caller has made a screen camera current)."""
        if self.dim_background:
            arcade.draw_lrbt_rectangle_filled(0, width_px, 0, height_px, DIM_COLOR)
        key = (width_px, height_px, self.title, tuple(self.lines), self._item_texts(), self.logo)
        if key != self._built_for:
            self._build(width_px, height_px)
            self._built_for = key
        if self.menu is not None:
            for i, label in enumerate(self._items):  # relaid out only on a change
                selected = i == self.menu.selected
                label.text = ("> " if selected else "") + self.menu.items[i].text
                label.color = tuple(SELECTED_COLOR if selected else ITEM_COLOR)  # type: ignore[assignment]
        if self._shadow is not None:
            self._shadow.draw()
        assert self._text is not None
        self._text.draw()

    def _item_texts(self) -> tuple[str, ...]:
        return tuple(item.text for item in self.menu.items) if self.menu is not None else ()

    def _build(self, width_px: int, height_px: int) -> None:
        load_fonts()
        centre_x = width_px / 2
        text = self._text = OutlinedText()
        rows = len(self.lines) + (len(self.menu.items) if self.menu is not None else 0)
        title_size = self.title_size
        y = min(
            height_px * 0.8,
            height_px / 2 + (rows * ITEM_FONT_SIZE + title_size) * LINE_SPACING / 2,
        )
        self._shadow = OutlinedText(SHADOW_COLOR)  # the title's drop shadow
        shadow_px = max(2, round(title_size / 12))
        self._shadow.add(
            self.title,
            centre_x + shadow_px,
            y - shadow_px,
            SHADOW_COLOR,
            title_size,
            font_name=TITLE_FONT,
            anchor_x="center",
        )
        color = LOGO_COLOR if self.logo else self.title_color
        text.add(
            self.title, centre_x, y, color, title_size, font_name=TITLE_FONT, anchor_x="center"
        )
        y -= title_size * LINE_SPACING
        for line in self.lines:
            label, line_color = line_text_color(line, TEXT_COLOR)
            text.add(label, centre_x, y, line_color, TEXT_FONT_SIZE, anchor_x="center")
            y -= TEXT_FONT_SIZE * LINE_SPACING
        y -= ITEM_FONT_SIZE * 0.5
        self._items = []
        for label in self._item_texts():
            self._items.append(
                text.add(label, centre_x, y, ITEM_COLOR, ITEM_FONT_SIZE, anchor_x="center")
            )
            y -= ITEM_FONT_SIZE * LINE_SPACING
        self.bottom_px = y + ITEM_FONT_SIZE * LINE_SPACING


class MenuScene(Scene):
    """A full-screen menu: ``on_choose(key)`` runs (inside the tick) when an item is chosen.

    Args:
        title: Big text at the top.
        lines: Smaller text under the title (results, hints).
        menu: The choices.
        on_choose: Called with the chosen (or changed) item's key.
        on_back: Called when ``pause`` is pressed (e.g. back to the previous screen), if given.
        background_color: The screen's colour.
        backdrop: A scene that ticks (with no input) and draws behind the menu, dimmed: a
            level playing a replay behind a title screen.
        lines_for: Computes ``lines`` afresh before each frame (hints that follow the
            bindings and the device in use); the panel lays them out again only on a change.
    """

    def __init__(
        self,
        title: str,
        lines: Sequence[HudLine],
        menu: Menu,
        on_choose: Callable[[str], None],
        *,
        on_back: Callable[[], None] | None = None,
        background_color: arcade.types.RGBOrA255 = arcade.color.DARK_MIDNIGHT_BLUE,
        backdrop: Scene | None = None,
        lines_for: Callable[[], Sequence[HudLine]] | None = None,
    ) -> None:
        super().__init__(background_color=background_color)
        self.lines_for = lines_for
        self.panel = MenuPanel(title, lines, menu, dim_background=backdrop is not None)
        self.backdrop = backdrop
        self.menu = menu
        self.on_choose = on_choose
        self.on_back = on_back
        self._camera: arcade.Camera2D | None = None

    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Tick the backdrop (without input), then move the selection, change or choose."""
        if self.backdrop is not None:
            self.backdrop.engine = self.engine
            self.backdrop.on_tick(tick, InputSnapshot(snapshot.action_map, 0, 0))
            if self.backdrop.background_color is not None:  # the frame is cleared to it
                self.background_color = self.backdrop.background_color
        if (
            self.on_back is not None
            and "pause" in snapshot.action_map
            and snapshot.was_pressed("pause")
        ):
            self.on_back()
            return
        chosen = self.menu.handle(snapshot)
        if chosen is not None:
            self.on_choose(chosen)

    def draw_backdrop(self, alpha: float, frame_dt_s: float) -> tuple[int, int]:
        """Draw the backdrop (if any) and use the menu's camera; return the picture's size."""
        if self.backdrop is not None:
            self.backdrop.engine = self.engine
            self.backdrop.on_render(alpha, frame_dt_s)
        if self._camera is None:
            self._camera = self.engine.video.camera()
        self._camera.use()
        return self.engine.video.size_px

    def on_render(self, alpha: float, frame_dt_s: float) -> None:
        """Draw the backdrop, then the panel."""
        width, height = self.draw_backdrop(alpha, frame_dt_s)
        if self.lines_for is not None:
            self.panel.lines = tuple(self.lines_for())
        self.panel.draw(width, height)
