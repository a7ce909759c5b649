"""How a map's layers and objects are read: this template's conventions, or arcade's.

**This template's conventions** (``project``, strict; levels/README.md is the designer's
guide):

* a tile layer named ``solid`` or ``one_way`` (or with a bool property ``solid``/``one_way``, or
  that Tiled class) is collision; any other tile layer is decoration;
* every object's class is a registered kind (:mod:`engine.levels.kinds`); a missing or unknown
  class is an error naming the object, with a "did you mean";
* a tile layer whose class, or string property ``objects``, names a kind turns every painted
  tile into an object of that kind; so does any painted tile whose tileset tile has a kind's
  class (coins painted as tiles). Such a tile's properties (from the tileset) are the object's;
* a layer with a bool property ``foreground = true`` is drawn above the player.

**arcade's conventions** (``arcade``, lenient), used when a map has arcade's tutorial layer
names (``Platforms``, ``Coins``, ...) and no ``solid`` or ``one_way`` layer:

=======================  ==========================================================================
``Platforms``            solid ground
``Coins``                every tile is a ``coin``
``Don't Touch``          every tile is a ``hazard`` (also spelt ``Dont Touch``)
``Ladders``              every tile is a ``ladder`` (if the game registers that kind)
``Dynamic Items``        every tile is a ``crate`` (if the game registers that kind)
``Moving Platforms``     tile objects moving ``change_x``/``change_y`` px per frame (at 60 fps)
                         between ``boundary_left``/``right``/``bottom``/``top``: ``moving_platform``
``Enemies``              objects of class ``enemy`` with ``speed_px_s`` (``change_x`` x 60),
                         ``patrol_left_px``/``patrol_right_px`` (the boundaries, -1 for none) and
                         ``art`` (arcade's ``type``), if the game registers an ``enemy`` kind
``Player Death Zones``   every object is a ``hazard`` (a polygon hurts in its bounding box)
``Foreground``           decoration drawn above the player; ``Background`` and others below
=======================  ==========================================================================

Without a ``player_start`` the player starts on the ground of the leftmost column that has any
(standing on its top tile); without an ``exit`` the map's rightmost column is the exit. Anything
else the engine does not know (an unregistered class, a text object, a rotated object) is left
out with one warning line, aggregated per kind of problem (:attr:`Level.warnings`).

Pure: standard library and pytiled_parser's data classes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pytiled_parser import layer as tiled_layer
from pytiled_parser import tiled_object

from engine.levels.kinds import KindRegistry
from engine.levels.model import LevelObject, Rect

__all__ = [
    "ARCADE_LAYERS",
    "ArcadeConventions",
    "Conventions",
    "ProjectConventions",
    "conventions_for",
]

FRAMES_PER_S = 60.0
"""arcade's examples move things ``change_x`` px per frame at 60 frames a second."""

ARCADE_TILE_OBJECTS = {
    "Coins": "coin",
    "Don't Touch": "hazard",
    "Dont Touch": "hazard",
    "Ladders": "ladder",
    "Dynamic Items": "crate",
}
"""arcade tile layers whose every tile is an object of a kind."""

ARCADE_LAYERS = frozenset(
    {
        "Platforms",
        *ARCADE_TILE_OBJECTS,
        "Moving Platforms",
        "Enemies",
        "Player Death Zones",
        "Foreground",
        "Background",
    }
)
"""Layer names that mark a map written for arcade's platformer tutorial and examples."""

Role = Literal["solid", "one_way", "decor"]


class Conventions:
    """How to read layers and objects; the base is lenient and knows nothing.

    Attributes:
        name: ``"project"`` or ``"arcade"``.
        strict: Problems are errors (True) or warnings (False).
    """

    name: Literal["project", "arcade"] = "project"
    strict: bool = True

    def __init__(self, kinds: KindRegistry) -> None:
        self.kinds = kinds
        self._warnings: Counter[str] = Counter()

    def warn(self, line: str) -> None:
        """Note one warning (identical lines are counted, not repeated)."""
        self._warnings[line] += 1

    def summary(self) -> tuple[str, ...]:
        """The warnings, one line each, with how often each happened."""
        return tuple(
            f"{line} ({count} times)" if count > 1 else line
            for line, count in self._warnings.items()
        )

    def role(self, layer: tiled_layer.TileLayer) -> Role:
        """Collision role of a tile layer."""
        return "decor"

    def layer_objects(self, layer: tiled_layer.TileLayer, where: str) -> str | None:
        """The kind every painted tile of this layer becomes, or None."""
        return None

    def foreground(self, layer: tiled_layer.Layer) -> bool:
        """Whether the layer is drawn above the player."""
        return False

    def object_class(
        self, item: tiled_object.TiledObject, layer: tiled_layer.Layer, rect: Rect
    ) -> tuple[str, dict[str, Any], list[LevelObject]]:
        """An object's class, its raw properties, and objects it brings along (ids 0)."""
        return str(item.class_ or ""), dict(item.properties or {}), []

    def default_objects(
        self,
        width: int,
        height: int,
        tile_px: int,
        solid: Sequence[Sequence[bool]],
        present: set[str],
    ) -> list[LevelObject]:
        """Objects the map lacks (``present``: the kinds it has) that the conventions supply.

        Their ids are 0: the loader numbers them.
        """
        return []


Fail = Callable[[str, str | None], Exception]


class ProjectConventions(Conventions):
    """This template's conventions (see the module docstring): strict."""

    name = "project"
    strict = True

    def __init__(self, kinds: KindRegistry, fail: Fail) -> None:
        super().__init__(kinds)
        self.fail = fail

    def _flag(self, layer: tiled_layer.Layer, name: str) -> bool:
        value = (layer.properties or {}).get(name, False)
        if not isinstance(value, bool):
            raise self.fail(
                f'property "{name}" must be a bool, got {str(value)[:40]!r}',
                f'layer "{layer.name}"',
            )
        return value

    def role(self, layer: tiled_layer.TileLayer) -> Role:
        solid = layer.name == "solid" or layer.class_ == "solid" or self._flag(layer, "solid")
        one_way = (
            layer.name == "one_way" or layer.class_ == "one_way" or self._flag(layer, "one_way")
        )
        if solid and one_way:
            raise self.fail(
                "a tile layer cannot be both solid and one_way", f'layer "{layer.name}"'
            )
        return "solid" if solid else "one_way" if one_way else "decor"

    def layer_objects(self, layer: tiled_layer.TileLayer, where: str) -> str | None:
        named = (layer.properties or {}).get("objects")
        if named is not None:
            if not isinstance(named, str) or named not in self.kinds:
                raise self.fail(
                    f'property "objects" must name a kind: {self.kinds.unknown_message(str(named))}',
                    where,
                )
            return named
        if layer.class_ and layer.class_ in self.kinds:
            return layer.class_
        return None

    def foreground(self, layer: tiled_layer.Layer) -> bool:
        return self._flag(layer, "foreground")


class ArcadeConventions(Conventions):
    """arcade's tutorial and example maps (see the module docstring): lenient."""

    name = "arcade"
    strict = False

    def role(self, layer: tiled_layer.TileLayer) -> Role:
        return "solid" if layer.name == "Platforms" else "decor"

    def layer_objects(self, layer: tiled_layer.TileLayer, where: str) -> str | None:
        kind = ARCADE_TILE_OBJECTS.get(layer.name)
        if kind is None:
            return None
        if kind not in self.kinds:
            self.warn(f'{where}: no kind "{kind}" is registered: its tiles are drawn, not played')
            return None
        return kind

    def foreground(self, layer: tiled_layer.Layer) -> bool:
        return layer.name == "Foreground"

    def object_class(
        self, item: tiled_object.TiledObject, layer: tiled_layer.Layer, rect: Rect
    ) -> tuple[str, dict[str, Any], list[LevelObject]]:
        props = dict(item.properties or {})
        if layer.name == "Moving Platforms":
            return self._moving_platform(item, props, rect, layer.name)
        if layer.name == "Enemies":
            return "enemy", self._enemy(props), []
        if layer.name == "Player Death Zones":
            return "hazard", {}, []
        return str(item.class_ or ""), props, []

    @staticmethod
    def _number(props: dict[str, Any], name: str) -> float | None:
        value = props.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value) if math.isfinite(value) else None

    def _enemy(self, props: dict[str, Any]) -> dict[str, Any]:
        change_x = self._number(props, "change_x") or 1.0
        left = self._number(props, "boundary_left")
        right = self._number(props, "boundary_right")
        art = props.get("type")
        return {
            "speed_px_s": abs(change_x) * FRAMES_PER_S,
            "patrol_left_px": left if left is not None else -1.0,
            "patrol_right_px": right if right is not None else -1.0,
            **({"art": art} if isinstance(art, str) and art else {}),
        }

    def _moving_platform(
        self, item: tiled_object.TiledObject, props: dict[str, Any], rect: Rect, layer_name: str
    ) -> tuple[str, dict[str, Any], list[LevelObject]]:
        change_x = self._number(props, "change_x") or 0.0
        change_y = self._number(props, "change_y") or 0.0
        half_w, half_h = rect.width_px / 2, rect.height_px / 2
        cx, cy = rect.center_px
        start, end = (cx, cy), (cx, cy)
        if change_x:
            left, right = (
                self._number(props, "boundary_left"),
                self._number(props, "boundary_right"),
            )
            if left is None or right is None:
                self.warn(f'layer "{layer_name}": a moving platform without boundaries stays still')
            else:
                start, end = (left + half_w, cy), (right - half_w, cy)
        if change_y:
            bottom, top = (
                self._number(props, "boundary_bottom"),
                self._number(props, "boundary_top"),
            )
            if bottom is None or top is None:
                self.warn(f'layer "{layer_name}": a moving platform without boundaries stays still')
            else:
                start, end = (start[0], bottom + half_h), (end[0], top - half_h)
        if (change_x < 0) or (not change_x and change_y < 0):
            start, end = end, start  # the path runs the way the platform first moves
        travelled = math.hypot(cx - start[0], cy - start[1])
        speed = math.hypot(change_x, change_y) * FRAMES_PER_S
        path_name = f"arcade path {item.id}"
        path = LevelObject(
            0,
            path_name,
            "path",
            Rect(
                min(start[0], end[0]),
                min(start[1], end[1]),
                abs(end[0] - start[0]),
                abs(end[1] - start[1]),
            ),
            "polyline",
            (start, end),
        )
        return (
            "moving_platform",
            {"path": path_name, "speed_px_s": max(speed, 1.0), "start_px": travelled},
            [path],
        )

    def default_objects(
        self,
        width: int,
        height: int,
        tile_px: int,
        solid: Sequence[Sequence[bool]],
        present: set[str],
    ) -> list[LevelObject]:
        defaults: list[LevelObject] = []
        height_px = height * tile_px
        if "player_start" in self.kinds and "player_start" not in present:
            defaults.append(_default_start(width, height, tile_px, solid))
        if "exit" in self.kinds and "exit" not in present:
            defaults.append(
                LevelObject(
                    0,
                    "right edge",
                    "exit",
                    Rect((width - 1) * tile_px, 0.0, float(tile_px), float(height_px)),
                )
            )
        return defaults


def _default_start(
    width: int, height: int, tile_px: int, solid: Sequence[Sequence[bool]]
) -> LevelObject:
    """The top of the ground in the leftmost column that has any (two free tiles above it)."""
    for column in range(width):
        for row in range(height):
            free_above = row >= 2 and not solid[row - 1][column] and not solid[row - 2][column]
            if solid[row][column] and free_above:
                x = (column + 0.5) * tile_px
                y = (height - row) * tile_px
                return LevelObject(
                    0, "default start", "player_start", Rect(x, y, 0.0, 0.0), "point"
                )
    return LevelObject(
        0,
        "default start",
        "player_start",
        Rect(tile_px / 2, height * tile_px / 2, 0.0, 0.0),
        "point",
    )


def conventions_for(
    layers: Sequence[tiled_layer.Layer], kinds: KindRegistry, fail: Fail
) -> Conventions:
    """arcade's conventions for a map with arcade's layer names and no ``solid``/``one_way``
    layer; this template's otherwise."""
    names = {layer.name for layer in layers}
    if names & ARCADE_LAYERS and not names & {"solid", "one_way"}:
        return ArcadeConventions(kinds)
    return ProjectConventions(kinds, fail)
