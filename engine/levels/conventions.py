"""How a map's layers and objects are read: this template's conventions, or a foreign map's.

**Conventions are data the game supplies.** :class:`MapConventions` holds the names (matched
case-insensitively, see :func:`normalized_name`) that give meaning to a map written for another
engine or tutorial: which objects are the start, the exits, coins, hazards, checkpoints; which
layers are solid ground or one-way platforms; which tile layers turn every painted tile into an
object of a kind. :data:`GENERIC_CONVENTIONS` knows the names other engines and tutorials use; a
game extends or overrides it in one place (:meth:`MapConventions.extended`,
``dataclasses.replace``) and passes it to :func:`~engine.levels.tiled.load_level`. The engine
names none of a game's kinds: a game that has ladders adds ``{"Ladders": "ladder"}`` itself.

Two ways of reading a map:

**This template's conventions** (``project``, strict; levels/README.md is the designer's
guide), used when a tile layer is named ``solid`` or ``one_way`` (or has that bool property or
Tiled class):

* a tile layer named ``solid`` or ``one_way`` (or with a bool property ``solid``/``one_way``, or
  that Tiled class) is collision; any other tile layer is decoration; an *object* layer named
  (or flagged) so holds ground drawn as rectangles, polygons and polylines (what
  ``python -m engine.levels import`` writes for a map whose ground was objects);
* every object's class is a registered kind (:mod:`engine.levels.kinds`); a missing or unknown
  class is an error naming the object, with a "did you mean", so a typo never drops a coin;
* a tile layer whose class, or string property ``objects``, names a kind turns every painted
  tile into an object of that kind; so does any painted tile whose tileset tile has a kind's
  class (coins painted as tiles). Such a tile's properties (from the tileset) are the object's;
* a layer with a bool property ``foreground = true`` is drawn above the player.

**Foreign conventions** (``foreign``, or ``arcade`` for maps with arcade's tutorial layer names;
lenient), for every other map. An object's kind is found from, in this order, its class, its
name and its layer's name, each matched against :class:`MapConventions`' names; the ground is
every tile layer *or object layer* whose name is one of the solid (or one-way) layer names, plus
the collision shapes Tiled's tile collision editor stores on tiles. What cannot be read (an
object without a known class, a text object, a rotated object) is left out and counted, one
warning line per kind of problem (:attr:`Level.warnings`). arcade's own layers keep their
meaning:

=======================  ==========================================================================
``Platforms``            solid ground (one of the generic solid layer names)
``Coins``                every tile is a ``coin``
``Don't Touch``          every tile is a ``hazard`` (also spelt ``Dont Touch``)
``Moving Platforms``     tile objects moving ``change_x``/``change_y`` px per frame (at 60 fps)
                         between ``boundary_left``/``right``/``bottom``/``top``: ``moving_platform``
``Enemies``              objects of class ``enemy`` with ``speed_px_s`` (``change_x`` x 60),
                         ``patrol_left_px``/``patrol_right_px`` (the boundaries, -1 for none) and
                         ``art`` (arcade's ``type``), if the game registers an ``enemy`` kind
``Player Death Zones``   every object is a ``hazard`` (a polygon hurts in its bounding box)
``Foreground``           decoration drawn above the player; ``Background`` and others below
=======================  ==========================================================================

Without a start the player starts on the ground of the leftmost column that has any (standing
on its top); without an ``exit`` the map's rightmost column is the exit.

Pure: standard library and pytiled_parser's data classes.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pytiled_parser import layer as tiled_layer
from pytiled_parser import tiled_object

from engine.levels.kinds import KindRegistry
from engine.levels.model import LevelObject, Rect

__all__ = [
    "ARCADE_LAYERS",
    "GENERIC_CONVENTIONS",
    "Conventions",
    "ForeignConventions",
    "MapConventions",
    "ProjectConventions",
    "conventions_for",
    "normalized_name",
]

FRAMES_PER_S = 60.0
"""arcade's examples move things ``change_x`` px per frame at 60 frames a second."""


def normalized_name(text: str) -> str:
    """A name as conventions compare it: words in lower case, one space apart.

    ``"SpawnPoint"``, ``"spawn_point"``, ``"Spawn Point"`` and ``"spawn-point"`` are all
    ``"spawn point"``; apostrophes vanish (``"Don't Touch"`` is ``"dont touch"``).
    """
    text = text.replace("'", "").replace("\u2019", "")
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return " ".join(re.sub(r"[^0-9a-zA-Z]+", " ", text).lower().split())


def _names(*names: str) -> frozenset[str]:
    return frozenset(normalized_name(name) for name in names)


def _name_map(mapping: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType({normalized_name(key): value for key, value in mapping.items()})


@dataclass(frozen=True, slots=True)
class MapConventions:
    """The names that give a foreign map's layers and objects meaning (case-insensitive).

    Every name is compared after :func:`normalized_name`; an object or layer matches a name
    when its whole normalized name is that name, or ends with it as whole words once
    :attr:`ignored_words` are dropped (``"mainPlayer"`` is a ``player``, ``"CoinEntity"`` a
    ``coin``, ``"layer02-nonpassable"`` a ``nonpassable`` layer).

    Attributes:
        object_kinds: Normalized object class, name or layer name -> the kind it is.
        solid_layers: Tile or object layers that are solid ground.
        one_way_layers: Tile or object layers that are one-way platforms.
        one_way_classes: Object classes that make a ground object one-way (melonJS marks its
            one-way polygons ``platform``).
        tile_layer_kinds: Tile layers whose every painted tile is an object of a kind.
        foreground_layers: Layers drawn above the player.
        ignored_words: Words dropped from the end of a name before matching (``Entity``).
    """

    object_kinds: Mapping[str, str] = field(default_factory=dict)
    solid_layers: frozenset[str] = frozenset()
    one_way_layers: frozenset[str] = frozenset()
    one_way_classes: frozenset[str] = frozenset()
    tile_layer_kinds: Mapping[str, str] = field(default_factory=dict)
    foreground_layers: frozenset[str] = frozenset()
    ignored_words: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for name in ("object_kinds", "tile_layer_kinds"):
            object.__setattr__(self, name, _name_map(getattr(self, name)))
        for name in ("solid_layers", "one_way_layers", "one_way_classes", "foreground_layers"):
            object.__setattr__(self, name, _names(*getattr(self, name)))
        object.__setattr__(self, "ignored_words", _names(*self.ignored_words))

    def extended(
        self,
        *,
        object_kinds: Mapping[str, str] | None = None,
        solid_layers: Iterable[str] = (),
        one_way_layers: Iterable[str] = (),
        one_way_classes: Iterable[str] = (),
        tile_layer_kinds: Mapping[str, str] | None = None,
        foreground_layers: Iterable[str] = (),
        ignored_words: Iterable[str] = (),
    ) -> MapConventions:
        """These conventions with more names (a name given again is overridden)."""
        return MapConventions(
            object_kinds={**self.object_kinds, **(object_kinds or {})},
            solid_layers=self.solid_layers | frozenset(solid_layers),
            one_way_layers=self.one_way_layers | frozenset(one_way_layers),
            one_way_classes=self.one_way_classes | frozenset(one_way_classes),
            tile_layer_kinds={**self.tile_layer_kinds, **(tile_layer_kinds or {})},
            foreground_layers=self.foreground_layers | frozenset(foreground_layers),
            ignored_words=self.ignored_words | frozenset(ignored_words),
        )

    def without(self, *names: str) -> MapConventions:
        """These conventions with some names forgotten (in every table)."""
        gone = _names(*names)
        return dataclasses.replace(
            self,
            object_kinds={k: v for k, v in self.object_kinds.items() if k not in gone},
            solid_layers=self.solid_layers - gone,
            one_way_layers=self.one_way_layers - gone,
            one_way_classes=self.one_way_classes - gone,
            tile_layer_kinds={k: v for k, v in self.tile_layer_kinds.items() if k not in gone},
            foreground_layers=self.foreground_layers - gone,
        )

    # -- matching -------------------------------------------------------------------------------
    def _candidates(self, text: str) -> list[str]:
        """The normalized name, then its trailing word runs, longest first."""
        words = normalized_name(text).split()
        while words and words[-1] in self.ignored_words and len(words) > 1:
            words = words[:-1]
        return [" ".join(words[start:]) for start in range(len(words))]

    def match(self, text: str, names: frozenset[str] | Mapping[str, str]) -> str | None:
        """The name of ``names`` that ``text`` matches (see the class docstring), or None."""
        for candidate in self._candidates(text):
            if candidate in names:
                return candidate
        return None

    def kind_of(self, text: str) -> str | None:
        """The kind an object class, name or layer name means, or None."""
        found = self.match(text, self.object_kinds)
        return self.object_kinds[found] if found is not None else None

    def layer_kind(self, name: str) -> str | None:
        """The kind every painted tile of a tile layer named ``name`` is, or None."""
        found = self.match(name, self.tile_layer_kinds)
        return self.tile_layer_kinds[found] if found is not None else None


GENERIC_CONVENTIONS = MapConventions(
    object_kinds={
        **dict.fromkeys(
            (
                "player_start", "Player", "Player Start", "Spawn", "SpawnPoint", "Player Spawn",
                "Start", "Starting Point", "Hero",
            ),
            "player_start",
        ),
        **dict.fromkeys(
            ("exit", "Goal", "Door", "Finish", "End", "Level End", "Flag", "Goal Flag"), "exit"
        ),
        **dict.fromkeys(
            ("coin", "Coins", "Gem", "Gems", "Jewel", "Collectable", "Collectible"), "coin"
        ),
        **dict.fromkeys(
            (
                "hazard", "Hazards", "Spikes", "Spike", "Death", "Kill", "Lava", "Deadly",
                "Don't Touch", "Player Death Zones", "Death Zone",
            ),
            "hazard",
        ),
        **dict.fromkeys(("checkpoint", "Checkpoints", "Save Point"), "checkpoint"),
    },
    solid_layers=frozenset(
        {
            "solid", "Collision", "Collisions", "Collider", "Colliders", "Ground", "Walls", "Wall",
            "Platforms", "Terrain", "Nonpassable", "Non Passable", "Blocked", "Blocks",
        }
    ),
    one_way_layers=frozenset({"one_way", "One Way Platforms", "Jump Through", "Jumpthrough"}),
    one_way_classes=frozenset({"one_way", "Platform", "Jump Through", "Jumpthrough", "Oneway"}),
    tile_layer_kinds={"Coins": "coin", "Don't Touch": "hazard", "Spikes": "hazard"},
    foreground_layers=frozenset({"Foreground", "Above"}),
    ignored_words=frozenset({"Entity", "Entities", "Object", "Objects", "Obj", "Sprite"}),
)  # fmt: skip
"""The names other engines' and tutorials' maps use (Tiled examples, melonJS, Phaser, LÖVE,
arcade); a game extends it with its own kinds' names."""

ARCADE_LAYERS = frozenset(
    {
        "Platforms",
        "Coins",
        "Don't Touch",
        "Dont Touch",
        "Ladders",
        "Dynamic Items",
        "Moving Platforms",
        "Enemies",
        "Player Death Zones",
        "Foreground",
        "Background",
    }
)
"""Layer names that mark a map written for arcade's platformer tutorial and examples."""

_ARCADE_MARKS = ARCADE_LAYERS - {"Foreground", "Background", "Coins"}
"""The layer names only arcade's maps use (other engines' maps have backgrounds and coins too)."""

Role = Literal["solid", "one_way", "decor"]


class Conventions:
    """How to read layers and objects; the base is lenient and knows nothing.

    Attributes:
        name: ``"project"``, ``"arcade"`` or ``"foreign"``.
        strict: Problems are errors (True) or warnings (False).
    """

    name: Literal["project", "arcade", "foreign"] = "project"
    strict: bool = True

    def __init__(self, kinds: KindRegistry, names: MapConventions = GENERIC_CONVENTIONS) -> None:
        self.kinds = kinds
        self.names = names
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

    def role(self, layer: tiled_layer.Layer) -> Role:
        """Collision role of a tile layer (or, in lenient conventions, an object layer)."""
        return "decor"

    def layer_objects(self, layer: tiled_layer.TileLayer, where: str) -> str | None:
        """The kind every painted tile of this layer becomes, or None."""
        return None

    def tile_kind(self, tile_class: str) -> str | None:
        """The kind a tileset tile's class means, or None."""
        return tile_class if tile_class in self.kinds else None

    def foreground(self, layer: tiled_layer.Layer) -> bool:
        """Whether the layer is drawn above the player."""
        return False

    def object_class(
        self, item: tiled_object.TiledObject, layer: tiled_layer.Layer, rect: Rect
    ) -> tuple[str, dict[str, Any], list[LevelObject]]:
        """An object's class, its raw properties, and objects it brings along (ids 0)."""
        return str(item.class_ or ""), dict(item.properties or {}), []

    def ground_object(self, item: tiled_object.TiledObject, layer: tiled_layer.Layer) -> Role:
        """Whether an object is ground (``solid``/``one_way``) rather than a thing."""
        return "decor"

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

    def __init__(
        self, kinds: KindRegistry, fail: Fail, names: MapConventions = GENERIC_CONVENTIONS
    ) -> None:
        super().__init__(kinds, names)
        self.fail = fail

    def _flag(self, layer: tiled_layer.Layer, name: str) -> bool:
        value = (layer.properties or {}).get(name, False)
        if not isinstance(value, bool):
            raise self.fail(
                f'property "{name}" must be a bool, got {str(value)[:40]!r}',
                f'layer "{layer.name}"',
            )
        return value

    def role(self, layer: tiled_layer.Layer) -> Role:
        if not isinstance(layer, tiled_layer.TileLayer):
            return "decor"
        solid = layer.name == "solid" or layer.class_ == "solid" or self._flag(layer, "solid")
        one_way = (
            layer.name == "one_way" or layer.class_ == "one_way" or self._flag(layer, "one_way")
        )
        if solid and one_way:
            raise self.fail(
                "a tile layer cannot be both solid and one_way", f'layer "{layer.name}"'
            )
        return "solid" if solid else "one_way" if one_way else "decor"

    def ground_object(self, item: tiled_object.TiledObject, layer: tiled_layer.Layer) -> Role:
        """An object layer named ``solid``/``one_way`` (or flagged so) holds ground objects."""
        if not isinstance(layer, tiled_layer.ObjectLayer):
            return "decor"
        solid = layer.name == "solid" or self._flag(layer, "solid")
        one_way = layer.name == "one_way" or self._flag(layer, "one_way")
        if solid and one_way:
            raise self.fail(
                "an object layer cannot be both solid and one_way", f'layer "{layer.name}"'
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


class ForeignConventions(Conventions):
    """Maps written for other engines, tutorials or arcade (see the module docstring): lenient.

    Args:
        kinds: The kinds objects may become.
        names: The names that give layers and objects meaning.
        arcade: The map has arcade's tutorial layer names (its ``Moving Platforms`` and
            ``Enemies`` get arcade's meaning, and the summary says ``arcade``).
    """

    strict = False

    def __init__(
        self, kinds: KindRegistry, names: MapConventions = GENERIC_CONVENTIONS, *, arcade: bool
    ) -> None:
        super().__init__(kinds, names)
        self.arcade = arcade
        self.name = "arcade" if arcade else "foreign"

    def _layer_role(self, name: str) -> Role:
        if self.names.match(name, self.names.one_way_layers):
            return "one_way"
        if self.names.match(name, self.names.solid_layers):
            return "solid"
        return "decor"

    def role(self, layer: tiled_layer.Layer) -> Role:
        props = layer.properties or {}
        for key in ("one_way", "oneway"):
            if props.get(key) is True:
                return "one_way"
        for key in ("solid", "collides", "collision", "collidable"):
            if props.get(key) is True:
                return "solid"
        if (
            isinstance(layer, tiled_layer.ObjectLayer)
            and self.arcade
            and layer.name in ARCADE_LAYERS
        ):
            return "decor"  # arcade's object layers have their own meaning (moving platforms)
        return self._layer_role(layer.name)

    def layer_objects(self, layer: tiled_layer.TileLayer, where: str) -> str | None:
        kind = self.names.layer_kind(layer.name)
        if kind is None:
            return None
        if kind not in self.kinds:
            self.warn(f'{where}: no kind "{kind}" is registered: its tiles are drawn, not played')
            return None
        return kind

    def tile_kind(self, tile_class: str) -> str | None:
        if tile_class in self.kinds:
            return tile_class
        kind = self.names.kind_of(tile_class)
        return kind if kind is not None and kind in self.kinds else None

    def foreground(self, layer: tiled_layer.Layer) -> bool:
        return self.names.match(layer.name, self.names.foreground_layers) is not None

    def ground_object(self, item: tiled_object.TiledObject, layer: tiled_layer.Layer) -> Role:
        class_name = str(item.class_ or "")
        if class_name and self.names.match(class_name, self.names.one_way_classes):
            return "one_way"
        if class_name and self.names.match(class_name, self.names.solid_layers):
            return "solid"
        role = self.role(layer)
        if role == "decor":
            return "decor"
        # An object with a kind of its own on a ground layer (spikes in "Collision") is a thing.
        if class_name and (class_name in self.kinds or self.names.kind_of(class_name)):
            return "decor"
        return role

    def object_class(
        self, item: tiled_object.TiledObject, layer: tiled_layer.Layer, rect: Rect
    ) -> tuple[str, dict[str, Any], list[LevelObject]]:
        props = dict(item.properties or {})
        if self.arcade:
            if layer.name == "Moving Platforms":
                return self._moving_platform(item, props, rect, layer.name)
            if layer.name == "Enemies":
                return "enemy", self._enemy(props), []
        class_name = str(item.class_ or "")
        if class_name in self.kinds:
            return class_name, props, []
        for text in (class_name, str(item.name or ""), layer.name):
            kind = self.names.kind_of(text) if text else None
            if kind is not None:
                return kind, _foreign_props(kind, props, self.kinds), []
        return class_name, props, []

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
            start = _default_start(width, height, tile_px, solid)
            if start is not None:
                self.warn("no start object: the player starts on the leftmost ground")
                defaults.append(start)
        if "exit" in self.kinds and "exit" not in present:
            self.warn("no exit object: the map's rightmost column is the exit")
            defaults.append(
                LevelObject(
                    0,
                    "right edge",
                    "exit",
                    Rect((width - 1) * tile_px, 0.0, float(tile_px), float(height_px)),
                )
            )
        return defaults


def _foreign_props(kind: str, props: dict[str, Any], kinds: KindRegistry) -> dict[str, Any]:
    """A foreign object's properties, kept only where the kind declares them.

    Another engine's properties (melonJS's ``anchorPoint``, Phaser's ``collides``) mean
    nothing here; a declared property of the wrong type would refuse the whole map, so only
    the names the kind declares are passed on, and those are checked as usual.
    """
    declared = kinds.get(kind)
    if declared is None:
        return {}
    return {name: value for name, value in props.items() if declared.prop(name) is not None}


def _default_start(
    width: int, height: int, tile_px: int, solid: Sequence[Sequence[bool]]
) -> LevelObject | None:
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
    return None


def conventions_for(
    layers: Sequence[tiled_layer.Layer],
    kinds: KindRegistry,
    fail: Fail,
    names: MapConventions = GENERIC_CONVENTIONS,
) -> Conventions:
    """This template's conventions for a map with a ``solid``/``one_way`` tile or object layer
    (by name, class or bool property); foreign conventions (arcade's, if it has arcade's layer
    names) otherwise."""
    for layer in layers:
        if not isinstance(layer, tiled_layer.TileLayer | tiled_layer.ObjectLayer):
            continue
        props = layer.properties or {}
        if (
            layer.name in ("solid", "one_way")
            or layer.class_ in ("solid", "one_way")
            or props.get("solid") is True
            or props.get("one_way") is True
        ):
            return ProjectConventions(kinds, fail, names)
    arcade = any(layer.name in _ARCADE_MARKS for layer in layers)
    return ForeignConventions(kinds, names, arcade=arcade)
