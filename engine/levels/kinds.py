"""Kinds: what a level object's class means, declared as data the loader checks.

A Tiled object's **class** (Tiled's *Class* field, saved as ``type`` or ``class``) names a
*kind*. A :class:`Kind` says which shapes an object of that kind may have, how many a level may
hold, and its custom properties (:class:`Prop`): their types, defaults, allowed ranges and
**units**. The loader (:mod:`engine.levels.tiled`) checks every object against its kind and
fills in defaults, so game code reads ``obj.properties["speed_px_s"]`` and gets a checked float;
a bad object is one line naming the file, the object and the property.

Units make scaling generic. Maps are drawn at the art's tile size (128 px); a game may simulate
at another (:meth:`engine.levels.model.Level.scaled`). Every property whose unit contains ``px``
(``px``, ``px/s``, ``px/s2``) is a length and is scaled with the positions and sizes; a property
in ``tiles``, ``s``, ``ticks`` or without unit is not. Nothing lists fields by hand, so a new
property can never be forgotten by the scaler.

The engine's own kinds (:data:`ENGINE_KINDS`): ``player_start``, ``exit``, ``checkpoint``,
``coin``, ``hazard``, ``moving_platform`` and ``path``. A game registers its own on a
:class:`KindRegistry`::

    from engine.levels.kinds import Kind, KindRegistry, Prop

    SPRING = Kind(
        "spring",
        shapes=("point", "rectangle", "tile"),
        props=(Prop("launch_height_tiles", float, 6.0, unit="tiles", min=1, max=30,
                    doc="How high the spring throws the player."),),
        doc="Bounces the player up.",
    )
    kinds = KindRegistry()          # the engine's kinds
    kinds.register(SPRING)          # and the game's
    level = load_level("levels/level4.json", kinds)

A property may refer to another object (``Prop("path", ObjectRef, ref_kind="path")``): in Tiled
it is either an *object* property picked with Tiled's object picker, or a *string* holding the
other object's name; the loader resolves both to the object's id and checks its kind.

Pure: standard library only.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = [
    "ENGINE_KINDS",
    "LENGTH_UNITS",
    "REQUIRED",
    "SHAPES",
    "Kind",
    "KindRegistry",
    "ObjectRef",
    "Prop",
    "PropError",
    "is_length",
]

Shape = Literal["point", "rectangle", "ellipse", "tile", "polyline", "polygon"]
"""The shapes of Tiled objects a kind may accept (``tile`` is an object placed with a tile)."""

SHAPES: Final[tuple[Shape, ...]] = ("point", "rectangle", "ellipse", "tile", "polyline", "polygon")

LENGTH_UNITS: Final[frozenset[str]] = frozenset({"px", "px/s", "px/s2"})
"""Units that are lengths in map pixels (or per second): scaled with the map."""


def is_length(unit: str) -> bool:
    """Whether a property in ``unit`` scales with the map's tile size."""
    return unit in LENGTH_UNITS


class _Required:
    """The marker for a property without a default (see :data:`REQUIRED`)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()
"""Default of a property the designer must set."""


class ObjectRef:
    """The type of a property that refers to another object (by picker id or by name)."""


PropType = type[bool] | type[int] | type[float] | type[str] | type[ObjectRef]


class PropError(ValueError):
    """A property value that does not fit its :class:`Prop` (the message says why)."""


_TYPE_NAMES: Final[dict[type, str]] = {
    bool: "a bool",
    int: "a whole number",
    float: "a number",
    str: "a string",
    ObjectRef: "an object (Tiled's object picker) or the name of one",
}


def _type_name(value: object) -> str:
    return {bool: "bool", int: "int", float: "float", str: "string"}.get(
        type(value), type(value).__name__
    )


def _shown(value: object, limit: int = 40) -> str:
    """``repr`` of a value for a message: printable, one line, shortened."""
    text = repr(value)
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True, slots=True)
class Prop:
    """One custom property of a kind.

    Attributes:
        name: The property's name in Tiled.
        type: ``bool``, ``int``, ``float``, ``str`` or :class:`ObjectRef`.
        default: Used when the object does not set it; :data:`REQUIRED` if it must; None for
            an optional property with no value (game code then reads None).
        doc: One line for the level-making guide and error messages.
        unit: ``px``, ``px/s``, ``px/s2`` (lengths: scaled with the map), ``tiles``, ``s``,
            ``ticks``, ``deg`` or ``""``.
        min: Smallest allowed number (inclusive), or None.
        max: Largest allowed number (inclusive), or None.
        choices: The only strings allowed (empty: any).
        ref_kind: For :class:`ObjectRef`: the kind the referred object must have.
    """

    name: str
    type: PropType
    default: Any = REQUIRED
    doc: str = ""
    unit: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()
    ref_kind: str | None = None

    def __post_init__(self) -> None:
        if self.type is ObjectRef and not self.ref_kind:
            raise ValueError(f"property {self.name!r}: an ObjectRef needs ref_kind")
        if self.default not in (REQUIRED, None) and self.type is not ObjectRef:
            self.check(self.default)  # a bad default is a programming error, found at import

    @property
    def required(self) -> bool:
        """The designer must set it (no default)."""
        return self.default is REQUIRED

    def describe(self) -> str:
        """What is allowed, for messages: ``a number in 0..500 px/s``."""
        text = _TYPE_NAMES[self.type]
        if self.choices:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        if self.min is not None and self.max is not None:
            text += f" in {self.min:g}..{self.max:g}"
        elif self.min is not None:
            text += f" >= {self.min:g}"
        elif self.max is not None:
            text += f" <= {self.max:g}"
        if self.unit:
            text += f" {self.unit}"
        return text

    def check(self, value: object) -> Any:
        """Return ``value`` as this property's type, or raise :class:`PropError`.

        Integers are accepted for floats (Tiled writes ``2`` for ``2.0``); ``True`` is never a
        number; numbers must be finite.
        """
        if self.type is ObjectRef:
            if isinstance(value, bool) or not isinstance(value, int | str) or value in (0, ""):
                raise PropError(f"must be {self.describe()}, got {_shown(value)}")
            return value
        if self.type is bool:
            if not isinstance(value, bool):
                raise PropError(f"must be a bool, got {_type_name(value)} {_shown(value)}")
            return value
        if self.type is str:
            if not isinstance(value, str):
                raise PropError(f"must be a string, got {_type_name(value)} {_shown(value)}")
            if self.choices and value not in self.choices:
                raise PropError(f"must be {self.describe()}, got {_shown(value)}")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise PropError(f"must be {self.describe()}, got {_type_name(value)} {_shown(value)}")
        if self.type is int and not (isinstance(value, int) or float(value).is_integer()):
            raise PropError(f"must be {self.describe()}, got {_shown(value)}")
        number = int(value) if self.type is int else float(value)
        if not math.isfinite(number) or (self.min is not None and number < self.min):
            raise PropError(f"must be {self.describe()}, got {_shown(value)}")
        if self.max is not None and number > self.max:
            raise PropError(f"must be {self.describe()}, got {_shown(value)}")
        return number


@dataclass(frozen=True, slots=True)
class Kind:
    """What objects of one class are: shapes, count, properties.

    Attributes:
        name: The Tiled class, e.g. ``"walker"``.
        shapes: The object shapes allowed.
        props: The custom properties, each checked and defaulted by the loader. Properties
            an object sets that its kind does not declare are kept as they are (game code may
            read them); see :attr:`strict_props`.
        doc: One line for the level-making guide.
        min_count: At least this many per level (``player_start``: 1).
        max_count: At most this many per level, or None.
        needs_area: Rectangles of this kind must have width and height > 0.
        aliases: Other classes that mean this kind (e.g. arcade's ``enemy``).
        strict_props: Refuse properties the kind does not declare (a typo is then an error).
        merge_tiles: Painted as tiles, a column of adjacent tiles is one object (a ladder
            painted tile by tile is one ladder); the tiles stay in their layer for drawing.
    """

    name: str
    shapes: tuple[Shape, ...]
    props: tuple[Prop, ...] = ()
    doc: str = ""
    min_count: int = 0
    max_count: int | None = None
    needs_area: bool = False
    aliases: tuple[str, ...] = ()
    strict_props: bool = False
    merge_tiles: bool = False
    _by_name: Mapping[str, Prop] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name or not self.name.isprintable():
            raise ValueError(f"a kind needs a printable name, got {self.name!r}")
        unknown = set(self.shapes) - set(SHAPES)
        if unknown or not self.shapes:
            raise ValueError(f"kind {self.name!r}: shapes must be some of {SHAPES}")
        by_name = {prop.name: prop for prop in self.props}
        if len(by_name) != len(self.props):
            raise ValueError(f"kind {self.name!r} declares a property twice")
        object.__setattr__(self, "_by_name", by_name)

    def prop(self, name: str) -> Prop | None:
        """The declared property ``name``, or None."""
        return self._by_name.get(name)

    def length_props(self) -> tuple[str, ...]:
        """Names of the properties that are lengths (scaled with the map)."""
        return tuple(prop.name for prop in self.props if is_length(prop.unit))

    def check_properties(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Check an object's properties against this kind; fill in defaults.

        Returns:
            The checked properties: every declared one (defaulted), then the undeclared ones
            as given (unless :attr:`strict_props`).

        Raises:
            PropError: ``property "speed_px_s": must be ...`` (the first problem).
        """
        checked: dict[str, Any] = {}
        for prop in self.props:
            if prop.name in raw:
                try:
                    checked[prop.name] = prop.check(raw[prop.name])
                except PropError as exc:
                    raise PropError(f'property "{prop.name}" {exc}') from None
            elif prop.required:
                raise PropError(f'needs a property "{prop.name}" ({prop.describe()}): {prop.doc}')
            else:
                checked[prop.name] = prop.default
        for name, value in raw.items():
            if name in checked:
                continue
            if self.strict_props:
                hint = _suggestion(name, self._by_name)
                raise PropError(f'unknown property "{name}" for a {self.name}{hint}')
            checked[name] = value
        return checked


def _suggestion(word: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


_POINTLIKE: Final[tuple[Shape, ...]] = ("point", "rectangle", "ellipse", "tile")

ENGINE_KINDS: Final[tuple[Kind, ...]] = (
    Kind(
        "player_start",
        _POINTLIKE,
        doc="Where the player appears (the feet on the point, or the rectangle's bottom centre).",
        min_count=1,
        max_count=1,
    ),
    Kind("exit", _POINTLIKE, doc="Reaching it finishes the level.", min_count=1),
    Kind("checkpoint", _POINTLIKE, doc="Touching it moves the respawn point here."),
    Kind("coin", _POINTLIKE, doc="A collectable."),
    Kind(
        "hazard",
        ("rectangle", "ellipse", "tile", "polygon"),
        doc="Touching it hurts (respawn at the last checkpoint); a polygon in its bounding box.",
        needs_area=True,
    ),
    Kind(
        "moving_platform",
        ("rectangle", "tile"),
        props=(
            Prop(
                "path",
                ObjectRef,
                doc="The path its centre follows: an object property, or the path's name.",
                ref_kind="path",
            ),
            Prop(
                "speed_px_s",
                float,
                120.0,
                doc="Speed along the path.",
                unit="px/s",
                min=1,
                max=100_000,
            ),
            Prop(
                "start_px",
                float,
                0.0,
                doc="How far along its path the platform is when the level starts.",
                unit="px",
                min=0,
                max=10_000_000,
            ),
        ),
        doc="A platform that carries what stands on it back and forth along a path.",
        needs_area=True,
    ),
    Kind("path", ("polyline",), doc="A route: the points a moving object's centre visits."),
)
"""The kinds every level may use; a game adds its own with :meth:`KindRegistry.register`."""


class KindRegistry:
    """The kinds a game's levels may use: the engine's, then the game's, by class name.

    It also holds the game's **map properties** (*Map > Map Properties* in Tiled), declared
    as :class:`Prop` like a kind's: the loader checks them and fills in their defaults, so the
    level checker refuses a bad one in the same words the game would. (``name``, the level's
    title, is the engine's own and always checked.) Map properties are not scaled with the
    map, so none may be a length (``px``) or an object reference.

    Args:
        kinds: The starting kinds (default: :data:`ENGINE_KINDS`).
        map_props: The map properties the game reads, e.g. a par time.
    """

    def __init__(
        self, kinds: Iterable[Kind] = ENGINE_KINDS, map_props: Iterable[Prop] = ()
    ) -> None:
        self._kinds: dict[str, Kind] = {}
        self._aliases: dict[str, str] = {}
        for kind in kinds:
            self.register(kind)
        self._map = Kind("map", SHAPES, props=tuple(map_props))
        for prop in self._map.props:
            if is_length(prop.unit) or prop.type is ObjectRef:
                raise ValueError(f"map property {prop.name!r}: a length or object reference")

    @property
    def map_props(self) -> tuple[Prop, ...]:
        """The declared map properties."""
        return self._map.props

    def check_map_properties(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Check a map's properties against :attr:`map_props`; fill in defaults.

        Raises:
            PropError: ``property "par_time_s" must be ...`` (the first problem).
        """
        return self._map.check_properties(raw)

    def register(self, kind: Kind) -> Kind:
        """Add ``kind``; its name and aliases must be new. Returns the kind (for decorators).

        Raises:
            ValueError: The name or an alias is taken.
        """
        for name in (kind.name, *kind.aliases):
            if name in self._kinds or name in self._aliases:
                raise ValueError(f"a kind named {name!r} is registered already")
        self._kinds[kind.name] = kind
        for alias in kind.aliases:
            self._aliases[alias] = kind.name
        return kind

    def get(self, name: str) -> Kind | None:
        """The kind with this class name or alias, or None."""
        return self._kinds.get(self._aliases.get(name, name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[Kind]:
        return iter(self._kinds.values())

    def __len__(self) -> int:
        return len(self._kinds)

    @property
    def names(self) -> tuple[str, ...]:
        """Every kind's name, in registration order."""
        return tuple(self._kinds)

    def unknown_message(self, name: str) -> str:
        """``unknown object class "sprng" (did you mean "spring"?; known: ...)``."""
        hint = _suggestion(name, [*self._kinds, *self._aliases])
        shown = _shown(name) if not isinstance(name, str) else '"' + name + '"'
        return f"unknown object class {shown}{hint}; known classes: {', '.join(self._kinds)}"
