"""The Update Method: entities that advance themselves one fixed tick at a time.

An :class:`Entity` is one object of a level with behaviour: an enemy, a spring, a crate, a moving
platform, the player. :class:`Entities` holds a level's entities and runs two passes per tick:

1. :meth:`Entity.tick` for every live entity, before the physics step (decide velocities, read
   input, start timers);
2. the caller steps the physics world;
3. :meth:`Entity.after_step` for every live entity (overlaps, deaths, pick-ups).

Both passes go in a fixed order: by :attr:`Entity.order` (lower first), then by spawn order.
Nothing depends on dict or set iteration, the clock or chance, so a replay of the same inputs
ticks every entity identically.

Spawning and despawning are safe at any time, also from inside a pass: :meth:`Entities.spawn`
calls :meth:`Entity.on_spawn` at once (the new entity may add its body) but the entity only joins
the passes after the running pass ends; :meth:`Entities.despawn` marks it dead at once (it is
skipped from then on, and :attr:`Entity.alive` is False) and calls :meth:`Entity.on_despawn`
when the running pass ends.

How an entity is drawn is data: its :attr:`Entity.look` (textures per animation state), its
:attr:`Entity.animator` (which state, advancing with ticks), :attr:`Entity.facing`,
:attr:`Entity.visible` and :attr:`Entity.alpha`, and where it is: its body's interpolated pose
when it registered one with the physics world (``world.physics.add(body, sprite=self)``), else
:attr:`Entity.position_px`. :class:`engine.rendering.entity_sprites.EntitySprites` draws that;
nothing here imports arcade.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import types
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

from engine.entities.animation import Animator
from engine.levels.model import TileArt

__all__ = ["Entities", "Entity", "Look"]

Host = TypeVar("Host")
E = TypeVar("E", bound="Entity")

Art = str | TileArt
"""A texture: a file path (``:resources:`` paths work) or a tile's art from the level."""


@dataclass(frozen=True, slots=True)
class Look:
    """How an entity is drawn.

    Attributes:
        clips: The textures of each animation state, one per frame (an entity without an
            animator shows the first state's first frame).
        height_px: Draw the art this tall in game px (the width keeps the art's shape); None
            draws it at the level's art scale.
        width_px: With ``height_px``, stretch to exactly this width too.
        flip_with_facing: Mirror the art when the entity faces the other way than the art.
        art_faces_left: The art looks left (Kenney's enemies do): mirrored when facing right.
        anchor_bottom: The position is the art's bottom centre (feet) instead of its centre.
    """

    clips: Mapping[str, tuple[Art, ...]] = field(default_factory=lambda: MappingProxyType({}))
    height_px: float | None = None
    width_px: float | None = None
    flip_with_facing: bool = True
    art_faces_left: bool = False
    anchor_bottom: bool = False

    def __post_init__(self) -> None:
        if not self.clips or any(not frames for frames in self.clips.values()):
            raise ValueError("a look needs at least one state with at least one texture")
        object.__setattr__(self, "clips", MappingProxyType(dict(self.clips)))

    @classmethod
    def still(cls, art: Art, **options: Any) -> Look:
        """A look of one texture."""
        return cls({"idle": (art,)}, **options)


class Entity:
    """Base class of a level's objects with behaviour (see the module docstring).

    Subclasses override what they need: :meth:`on_spawn`, :meth:`tick`, :meth:`after_step`,
    :meth:`on_despawn` and :meth:`hash_state`.

    Attributes:
        order: Tick order of the class: lower ticks first (ties: spawn order).
        look: How it is drawn, or None for an invisible entity.
        id: Its number in the level, from 1 in spawn order (0 before it is spawned).
        alive: False once despawned.
        body: Its pymunk body, if it has one; registered with the physics world
            (``world.physics.add(body, *shapes, sprite=entity)``) it is drawn interpolated.
        position_px: Where it is drawn when it has no body registered with the physics world.
        facing: ``1`` right, ``-1`` left (mirrors the look).
        visible: Drawn at all.
        alpha: Opacity when drawn, 0..255.
        animator: Its animation state, or None (the look's first state).
    """

    order: ClassVar[int] = 20
    look: Look | None = None

    def __init__(self) -> None:
        self.id = 0
        self.alive = True
        self.body: Any = None
        self.position_px: tuple[float, float] = (0.0, 0.0)
        self.facing = 1
        self.visible = True
        self.alpha = 255
        self.animator: Animator | None = None

    # -- the life of an entity (override) -----------------------------------------------------
    def on_spawn(self, world: Any) -> None:
        """Called once when spawned (create bodies and add them to ``world.physics`` here)."""

    def tick(self, world: Any) -> None:
        """Advance one tick, before the physics step."""

    def after_step(self, world: Any) -> None:
        """React to the physics step just taken (overlaps, landings, deaths)."""

    def on_despawn(self, world: Any) -> None:
        """Called once when removed (remove its bodies from ``world.physics`` here)."""

    def hash_state(self) -> tuple[object, ...]:
        """What the simulation holds beyond its registered body, for the state hash.

        Return plain values (numbers, strings, tuples of them); their ``repr`` is hashed.
        """
        return ()

    def capture_state(self) -> dict[str, Any]:
        """Its attributes for a savestate (:mod:`engine.app.savestate`), restored in place.

        The default copies every attribute one level deep (:func:`copy_value`): numbers,
        strings, tuples, frozen dataclasses, looks and pymunk objects are kept as they are (a
        pymunk body's motion is the physics world's to save), lists, dicts, sets and other
        plain objects (an :class:`~engine.entities.animation.Animator`) are copied. An entity
        holding deeper mutable state overrides this and :meth:`restore_state`.
        """
        return {name: copy_value(value) for name, value in vars(self).items()}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Put back what :meth:`capture_state` returned (the saved dict stays reusable)."""
        vars(self).clear()
        vars(self).update({name: copy_value(value) for name, value in state.items()})

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}{'' if self.alive else ' dead'}>"


_KEPT_TYPES = (
    int,
    float,
    complex,
    str,
    bytes,
    bool,
    type(None),
    tuple,
    frozenset,
    MappingProxyType,
)
_CODE_TYPES = (
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    types.BuiltinMethodType,
    type,
)
_KEEP, _COPY_METHOD, _SHALLOW = 0, 1, 2
_HOW_BY_TYPE: dict[type, int] = {}


def _how_to_copy(cls: type) -> int:
    """How values of ``cls`` are copied (see :func:`copy_value`), decided once per type."""
    how = _HOW_BY_TYPE.get(cls)
    if how is None:
        params = getattr(cls, "__dataclass_params__", None)
        if (
            issubclass(cls, (*_KEPT_TYPES, *_CODE_TYPES, Entity))
            or cls.__module__.partition(".")[0] == "pymunk"
            or (params is not None and params.frozen)
        ):
            how = _KEEP
        elif issubclass(cls, (list, dict, set, bytearray, deque)):
            how = _COPY_METHOD
        elif hasattr(cls, "__dict__") or hasattr(cls, "__slots__"):
            how = _SHALLOW
        else:
            how = _KEEP
        _HOW_BY_TYPE[cls] = how
    return how


def copy_value(value: Any) -> Any:
    """One attribute's value for a savestate: kept if it cannot change, else a shallow copy.

    Kept as they are: immutable values (numbers, strings, tuples, frozensets, read-only
    mappings, frozen dataclasses), functions and methods, classes, entities (their own state
    is saved by themselves) and pymunk objects (the physics world saves their motion and
    membership). Copied one level deep: lists, dicts, sets, deques and any other object with
    attributes (an animator). Decided once per type, so a capture costs a dict lookup per
    attribute.
    """
    how = _how_to_copy(type(value))
    if how == _KEEP:
        return value
    if how == _COPY_METHOD:
        return value.copy()
    return copy.copy(value)


class Entities(Generic[Host]):
    """A level's entities, ticked in order, with safe spawning and despawning.

    Args:
        host: What entities receive as ``world`` in their methods (the game's level world).
    """

    def __init__(self, host: Host) -> None:
        self.host = host
        self._live: list[tuple[int, int, Entity]] = []  # (order, id, entity), sorted
        self._incoming: list[Entity] = []
        self._outgoing: list[Entity] = []
        self._next_id = 1
        self._passing = False

    # -- membership ---------------------------------------------------------------------------
    def spawn(self, entity: E) -> E:
        """Add ``entity``: it is numbered, ``on_spawn`` runs now, it ticks from the next pass.

        Returns:
            The entity (for chaining).
        """
        if entity.id:
            raise ValueError(f"{entity!r} was spawned already")
        entity.id = self._next_id
        self._next_id += 1
        entity.alive = True
        entity.on_spawn(self.host)
        if self._passing:
            self._incoming.append(entity)
        else:
            self._insert(entity)
        return entity

    def despawn(self, entity: Entity) -> None:
        """Remove ``entity``: dead at once, ``on_despawn`` at the end of the running pass."""
        if not entity.alive:
            return
        entity.alive = False
        self._outgoing.append(entity)
        if not self._passing:
            self._settle()

    def _insert(self, entity: Entity) -> None:
        bisect.insort(self._live, (type(entity).order, entity.id, entity), key=_order_key)

    def _settle(self) -> None:
        """Apply the spawns and despawns a pass asked for."""
        while self._incoming or self._outgoing:
            incoming, self._incoming = self._incoming, []
            for entity in incoming:
                if entity.alive:
                    self._insert(entity)
            outgoing, self._outgoing = self._outgoing, []
            if outgoing:
                gone = {id(entity) for entity in outgoing}
                self._live = [item for item in self._live if id(item[2]) not in gone]
                for entity in outgoing:
                    entity.on_despawn(self.host)

    # -- the passes ---------------------------------------------------------------------------
    def tick(self) -> None:
        """Run :meth:`Entity.tick` on every live entity, in order."""
        self._pass("tick")

    def after_step(self) -> None:
        """Run :meth:`Entity.after_step` on every live entity, in order."""
        self._pass("after_step")

    def _pass(self, method: str) -> None:
        self._passing = True
        try:
            for _, _, entity in list(self._live):
                if entity.alive:
                    getattr(entity, method)(self.host)
        finally:
            self._passing = False
            self._settle()

    # -- queries ------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Entity]:
        """Live entities in tick order."""
        return (entity for _, _, entity in self._live if entity.alive)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def of_type(self, cls: type[E]) -> list[E]:
        """Live entities that are instances of ``cls``, in tick order."""
        return [entity for entity in self if isinstance(entity, cls)]

    @property
    def spawned(self) -> int:
        """How many entities have been spawned so far (the next id minus one)."""
        return self._next_id - 1

    def capture(self) -> tuple[Any, ...]:
        """Who is alive, in which order, and each one's :meth:`Entity.capture_state`."""
        if self._passing:
            raise RuntimeError("entities cannot be captured during a pass")
        saved = []
        for _, _, entity in self._live:
            attributes = entity.capture_state()
            copied: tuple[str, ...] | None = None  # None: the entity restores itself
            if type(entity).restore_state is Entity.restore_state:
                copied = tuple(
                    name for name, value in attributes.items() if _how_to_copy(type(value)) != _KEEP
                )
            saved.append((entity, attributes, copied))
        return (tuple(self._live), self._next_id, tuple(saved))

    def restore(self, state: tuple[Any, ...]) -> None:
        """Put back a :meth:`capture` in place (the same entity objects, their saved state).

        An entity despawned since is live again with its saved attributes; one spawned since
        is gone (its body leaves the space with the physics world's own restore). An entity
        with the default :meth:`Entity.restore_state` is restored as it would: its attributes
        replaced by the saved ones, the mutable ones copied; the capture noted which those
        are, so the values that cannot change (most of them) cost nothing per restore.
        """
        live, self._next_id, saved = state
        self._live = list(live)
        self._incoming, self._outgoing = [], []
        for entity, attributes, copied in saved:
            if copied is None:
                entity.restore_state(attributes)
                continue
            own = vars(entity)
            own.clear()
            own.update(attributes)
            for name in copied:
                own[name] = copy_value(attributes[name])

    def state_digest(self) -> str:
        """A fingerprint of every live entity's id, class and :meth:`Entity.hash_state`."""
        digest = hashlib.blake2b(digest_size=16)
        for entity in self:
            digest.update(repr((entity.id, type(entity).__name__, entity.hash_state())).encode())
            digest.update(b"\n")
        return digest.hexdigest()


def _order_key(item: tuple[int, int, Entity]) -> tuple[int, int]:
    return (item[0], item[1])
