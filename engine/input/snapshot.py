"""Per-tick input: action bitmasks, a sampler that latches edges, and recordings.

Why input is sampled once per tick:
    The simulation runs in fixed ticks (say 60 per second) inside a frame loop that
    runs as often as the display allows. One drawn frame may run two ticks, or
    none. Keyboard events arrive whenever the operating system delivers them, in
    between. If game logic read the keyboard directly, what a tick sees would depend
    on *when* in the frame it happened to run, and a recorded run could never be
    replayed exactly. So game logic never sees a device: it sees one immutable
    :class:`InputSnapshot` per tick. The snapshot is plain data (three integers), so
    a tick's input can be recorded, compared and fed back to reproduce a run tick
    for tick.

Why presses latch:
    Suppose the player taps jump quickly: the key goes down and up again between two
    ticks (a 30 ms tap is shorter than two 60 Hz ticks, and a frame that runs zero
    ticks widens the gap). A snapshot that only copied "is the key down right now?"
    would miss the tap entirely. :class:`InputSampler` therefore *latches* edges: a
    press sets a ``pressed`` flag that stays set until the next :meth:`~InputSampler.sample`,
    however briefly the key was down, and the same for releases. Each edge is seen
    by exactly one tick: the next one.

Actions, not keys:
    Game logic asks about actions (``"jump"``), never keys. The window translates key
    codes to action names (see :mod:`engine.input.keys`, the only part that imports
    arcade) and calls :meth:`InputSampler.press` / :meth:`InputSampler.release` once
    **per key**. Several keys may serve one action (``LEFT`` and ``A``); the sampler
    counts how many of an action's keys are down, so the action stays held until the
    last of them is released.

Data layout:
    An :class:`ActionMap` fixes the order of the actions; action ``i`` is bit ``i`` of
    a mask, so a set of actions is one ``int``. :meth:`InputSnapshot.encode` packs a
    whole snapshot into one non-negative ``int`` with one group of four bits per
    action (see :meth:`InputSnapshot.encode`), written in hex that is one digit per
    action. :class:`InputRecorder` and :class:`InputPlayer` store and replay those
    integers.

This module is pure: it imports neither arcade, pyglet, pymunk nor numpy.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "BITS_PER_ACTION",
    "HELD_BIT",
    "PRESSED_BIT",
    "RELEASED_BIT",
    "ActionMap",
    "InputPlayer",
    "InputRecorder",
    "InputSampler",
    "InputSnapshot",
    "InputSource",
    "PlaybackEndedError",
]

BITS_PER_ACTION = 4
"""Bits per action in an encoded snapshot: one hex digit per action."""

HELD_BIT = 0b0001
"""Within an action's group of bits in an encoded snapshot: the action is held."""

PRESSED_BIT = 0b0010
"""Within an action's group: the action went down since the previous tick."""

RELEASED_BIT = 0b0100
"""Within an action's group: the action went up since the previous tick."""

_GROUP_MASK = HELD_BIT | PRESSED_BIT | RELEASED_BIT
"""The used bits of a group; the fourth bit is reserved and always 0."""


# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ActionMap:
    """A fixed, ordered list of action names; action ``i`` is bit ``1 << i`` of a mask.

    The order is part of the data: a recorded replay is only meaningful with the
    map it was recorded with. Appending actions keeps old recordings valid (the new
    actions decode as idle); reordering or removing actions does not.

    Attributes:
        actions: The action names in bit order, e.g. ``("left", "right", "jump")``.

    Raises:
        ValueError: A name is empty or not a string, or appears twice.
    """

    actions: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        actions = tuple(self.actions)
        for name in actions:
            if not isinstance(name, str) or not name:
                raise ValueError(f"action names must be non-empty strings, got {name!r}")
        duplicates = sorted({name for name in actions if actions.count(name) > 1})
        if duplicates:
            raise ValueError(f"duplicate action names: {', '.join(duplicates)}")
        object.__setattr__(self, "actions", actions)
        object.__setattr__(self, "_index", {name: i for i, name in enumerate(actions)})

    def __len__(self) -> int:
        return len(self.actions)

    def __contains__(self, action: object) -> bool:
        return action in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self.actions)

    @property
    def full_mask(self) -> int:
        """The mask with every action set (``2**len(self) - 1``)."""
        return (1 << len(self.actions)) - 1

    def index(self, action: str) -> int:
        """Position of ``action`` in the map (its bit number).

        Raises:
            ValueError: ``action`` is not in the map (a typo in game code, usually).
        """
        try:
            return self._index[action]
        except KeyError:
            known = ", ".join(self.actions) or "(none)"
            raise ValueError(f"unknown action {action!r}; known actions: {known}") from None

    def bit(self, action: str) -> int:
        """The mask with only ``action`` set.

        Raises:
            ValueError: ``action`` is not in the map.
        """
        return 1 << self.index(action)

    def mask(self, actions: Iterable[str]) -> int:
        """The mask with exactly ``actions`` set.

        Raises:
            ValueError: One of ``actions`` is not in the map.
        """
        result = 0
        for action in actions:
            result |= self.bit(action)
        return result

    def names(self, mask: int) -> tuple[str, ...]:
        """The actions set in ``mask``, in map order.

        Raises:
            ValueError: ``mask`` is negative or has bits beyond the last action.
        """
        self.check_mask(mask)
        return tuple(name for i, name in enumerate(self.actions) if mask >> i & 1)

    def check_mask(self, mask: int, what: str = "mask") -> None:
        """Raise ``ValueError`` unless ``mask`` is an int in ``0..full_mask``."""
        if isinstance(mask, bool) or not isinstance(mask, int):
            raise ValueError(f"{what} must be an int, got {mask!r}")
        if mask < 0 or mask > self.full_mask:
            raise ValueError(
                f"{what} {mask:#x} is outside 0..{self.full_mask:#x} "
                f"for {len(self.actions)} actions"
            )


# ---------------------------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputSnapshot:
    """What one tick sees of the input: three action masks.

    Possible states of one action (for a single key; with several keys bound the
    same rules hold for the action as a whole):

    ======  =======  ========  ====================================================
    held    pressed  released  meaning
    ======  =======  ========  ====================================================
    no      no       no        idle
    yes     no       no        held since an earlier tick
    yes     yes      no        went down since the previous tick
    no      no       yes       went up since the previous tick
    no      yes      yes       tapped: down and up again between two ticks
    yes     yes      yes       released and pressed again between two ticks
    ======  =======  ========  ====================================================

    Attributes:
        action_map: Names the bits of the masks.
        held: Actions down at the moment the tick was sampled.
        pressed: Actions that went down since the previous tick (latched, so a tap
            between two ticks is never lost).
        released: Actions that went up since the previous tick.

    Raises:
        ValueError: A mask has bits beyond the map's actions.
    """

    action_map: ActionMap
    held: int = 0
    pressed: int = 0
    released: int = 0

    def __post_init__(self) -> None:
        self.action_map.check_mask(self.held, "held")
        self.action_map.check_mask(self.pressed, "pressed")
        self.action_map.check_mask(self.released, "released")

    @classmethod
    def empty(cls, action_map: ActionMap) -> InputSnapshot:
        """A snapshot with nothing held, pressed or released."""
        return cls(action_map)

    def is_held(self, action: str) -> bool:
        """Whether ``action`` is down during this tick (e.g. keep running)."""
        return bool(self.held & self.action_map.bit(action))

    def was_pressed(self, action: str) -> bool:
        """Whether ``action`` went down since the previous tick (e.g. start a jump)."""
        return bool(self.pressed & self.action_map.bit(action))

    def was_released(self, action: str) -> bool:
        """Whether ``action`` went up since the previous tick (e.g. cut a jump short)."""
        return bool(self.released & self.action_map.bit(action))

    def describe(self) -> str:
        """A short readable form for logs and the debug overlay.

        Example: ``"held=left,jump pressed=jump released=-"``.
        """
        parts = []
        for label, mask in (
            ("held", self.held),
            ("pressed", self.pressed),
            ("released", self.released),
        ):
            parts.append(f"{label}={','.join(self.action_map.names(mask)) or '-'}")
        return " ".join(parts)

    def encode(self) -> int:
        """Pack the three masks into one non-negative int, e.g. for a replay line.

        Layout: action ``i`` owns bits ``4*i .. 4*i+3``; within its group,
        :data:`HELD_BIT` (1) is held, :data:`PRESSED_BIT` (2) pressed and
        :data:`RELEASED_BIT` (4) released; the fourth bit (8) is reserved and 0. In
        hex, digit ``i`` counted from the right is action ``i``: ``0x31`` means
        action 1 went down this tick (3 = held + pressed) and action 0 is held (1).

        Grouping per action, rather than three masks side by side, means adding an
        action at the end of the map leaves every old encoded value meaning the same.

        Returns:
            The encoded value; :meth:`decode` with the same map restores the snapshot.
        """
        value = 0
        for i in range(len(self.action_map)):
            group = (
                (self.held >> i & 1) * HELD_BIT
                | (self.pressed >> i & 1) * PRESSED_BIT
                | (self.released >> i & 1) * RELEASED_BIT
            )
            value |= group << (BITS_PER_ACTION * i)
        return value

    @classmethod
    def decode(cls, value: int, action_map: ActionMap) -> InputSnapshot:
        """Unpack a value made by :meth:`encode`.

        Args:
            value: The encoded snapshot.
            action_map: The map it was encoded with (or that map with actions appended).

        Returns:
            The snapshot.

        Raises:
            ValueError: ``value`` is not a non-negative int, sets a reserved bit, or
                has bits for more actions than ``action_map`` holds.
        """
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"an encoded snapshot must be a non-negative int, got {value!r}")
        count = len(action_map)
        if value >> (BITS_PER_ACTION * count):
            raise ValueError(
                f"encoded snapshot {value:#x} has bits for more than the {count} actions "
                "of the action map (recorded with a different map?)"
            )
        held = pressed = released = 0
        for i in range(count):
            group = value >> (BITS_PER_ACTION * i) & (1 << BITS_PER_ACTION) - 1
            if group & ~_GROUP_MASK:
                raise ValueError(
                    f"encoded snapshot {value:#x} sets the reserved bit of action "
                    f"{action_map.actions[i]!r}"
                )
            held |= bool(group & HELD_BIT) << i
            pressed |= bool(group & PRESSED_BIT) << i
            released |= bool(group & RELEASED_BIT) << i
        return cls(action_map, held, pressed, released)


class InputSource(Protocol):
    """Anything that yields one snapshot per tick: live input or a replay.

    The game loop calls :meth:`sample` exactly once per tick and passes the result
    to the game, so swapping an :class:`InputSampler` for an :class:`InputPlayer`
    replays a run without the game noticing.
    """

    def sample(self) -> InputSnapshot:
        """Return the input for the tick about to run."""
        ...


# ---------------------------------------------------------------------------------------------
# Live input
# ---------------------------------------------------------------------------------------------


class InputSampler:
    """Turns press/release events into one :class:`InputSnapshot` per tick.

    Events may arrive at any time (between ticks, several per tick, or none); the
    sampler keeps the current held state and latches every press and release until
    the next :meth:`sample`. Call :meth:`sample` exactly once per tick: it returns
    what the tick sees and clears the latches, so each edge reaches exactly one tick.

    Several keys per action: call :meth:`press` and :meth:`release` once per
    **key** event (not once per action). The sampler counts how many keys hold each
    action; the action is held while the count is above zero, it is *pressed* when
    the count goes from 0 to 1 and *released* when it goes back to 0. Pressing
    ``A`` and ``LEFT`` and releasing ``A`` therefore keeps ``left`` held. A release
    of an action whose count is already 0 is ignored: it happens when a key was
    held before the window had focus, or after :meth:`release_all`.

    Args:
        action_map: The actions this sampler tracks.
    """

    def __init__(self, action_map: ActionMap) -> None:
        self._map = action_map
        self._counts = [0] * len(action_map)
        self._held = 0
        self._pressed = 0
        self._released = 0

    @property
    def action_map(self) -> ActionMap:
        """The actions this sampler tracks."""
        return self._map

    def press(self, action: str) -> None:
        """One key bound to ``action`` went down.

        Raises:
            ValueError: ``action`` is not in the action map.
        """
        i = self._map.index(action)
        self._counts[i] += 1
        if self._counts[i] == 1:
            self._held |= 1 << i
            self._pressed |= 1 << i

    def release(self, action: str) -> None:
        """One key bound to ``action`` went up.

        Raises:
            ValueError: ``action`` is not in the action map.
        """
        i = self._map.index(action)
        if self._counts[i] == 0:
            return
        self._counts[i] -= 1
        if self._counts[i] == 0:
            self._held &= ~(1 << i)
            self._released |= 1 << i

    def release_all(self) -> None:
        """Release every held action, e.g. when the window loses focus.

        Keys released while the window has no focus never send an event, so without
        this a key could stay held forever. Every held action gets a release edge in
        the next snapshot; presses latched but not yet sampled are kept, so a tap
        just before the focus change is still seen.
        """
        self._released |= self._held
        self._held = 0
        self._counts = [0] * len(self._map)

    def reset(self) -> None:
        """Forget everything (held state and latches) without producing any edges."""
        self._counts = [0] * len(self._map)
        self._held = self._pressed = self._released = 0

    def sample(self) -> InputSnapshot:
        """Return the input for the tick about to run and clear the latched edges."""
        snapshot = InputSnapshot(self._map, self._held, self._pressed, self._released)
        self._pressed = self._released = 0
        return snapshot


# ---------------------------------------------------------------------------------------------
# Recording and playback
# ---------------------------------------------------------------------------------------------


class InputRecorder:
    """Collects the encoded snapshot of every tick, in order.

    Record the snapshot the game actually received, once per tick; the list of
    integers plus the action map (and the seed and config) is enough to replay the
    run. Writing it to a file is left to the replay format.

    Args:
        action_map: The map every recorded snapshot must use.
    """

    def __init__(self, action_map: ActionMap) -> None:
        self._map = action_map
        self._values: list[int] = []

    @property
    def action_map(self) -> ActionMap:
        """The map the recording is encoded with."""
        return self._map

    @property
    def values(self) -> tuple[int, ...]:
        """The encoded snapshots, one per recorded tick."""
        return tuple(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def record(self, snapshot: InputSnapshot) -> None:
        """Append one tick's snapshot.

        Raises:
            ValueError: The snapshot uses a different action map.
        """
        if snapshot.action_map != self._map:
            raise ValueError(
                f"snapshot uses a different action map {snapshot.action_map.actions} "
                f"than the recording {self._map.actions}"
            )
        self._values.append(snapshot.encode())

    def clear(self) -> None:
        """Drop everything recorded so far."""
        self._values.clear()


class PlaybackEndedError(Exception):
    """An :class:`InputPlayer` was asked for a tick beyond the end of its recording."""


class InputPlayer:
    """Plays a recording back: one snapshot per :meth:`sample`, in order.

    It has the same :meth:`sample` as :class:`InputSampler` (both are an
    :class:`InputSource`), so the game loop can run from a replay unchanged. All
    values are decoded up front, so a corrupt recording fails when loaded, naming
    the tick, rather than in the middle of a run.

    Args:
        action_map: The map the values were encoded with.
        values: Encoded snapshots, one per tick (e.g. :attr:`InputRecorder.values`).

    Raises:
        ValueError: A value cannot be decoded with ``action_map``.
    """

    def __init__(self, action_map: ActionMap, values: Sequence[int]) -> None:
        snapshots = []
        for tick, value in enumerate(values):
            try:
                snapshots.append(InputSnapshot.decode(value, action_map))
            except ValueError as exc:
                raise ValueError(f"tick {tick}: {exc}") from None
        self._map = action_map
        self._snapshots = tuple(snapshots)
        self._position = 0

    @property
    def action_map(self) -> ActionMap:
        """The map the recording is decoded with."""
        return self._map

    @property
    def position(self) -> int:
        """Index of the tick the next :meth:`sample` returns (ticks played so far)."""
        return self._position

    @property
    def remaining(self) -> int:
        """Ticks left to play."""
        return len(self._snapshots) - self._position

    @property
    def finished(self) -> bool:
        """True once every recorded tick has been played."""
        return self._position >= len(self._snapshots)

    def __len__(self) -> int:
        return len(self._snapshots)

    def seek(self, position: int) -> None:
        """Make ``position`` the tick the next :meth:`sample` returns (a rewound ghost).

        Raises:
            ValueError: ``position`` is outside ``0 .. len(self)``.
        """
        if not 0 <= position <= len(self._snapshots):
            raise ValueError(f"position {position} is outside 0..{len(self._snapshots)}")
        self._position = position

    def sample(self) -> InputSnapshot:
        """Return the next recorded tick's snapshot.

        Raises:
            PlaybackEndedError: Every recorded tick has been played already. Check
                :attr:`finished` first to stop the replay cleanly.
        """
        if self.finished:
            raise PlaybackEndedError(
                f"the recording has {len(self._snapshots)} ticks and all were played; "
                "check InputPlayer.finished before sampling"
            )
        snapshot = self._snapshots[self._position]
        self._position += 1
        return snapshot

    def __iter__(self) -> Iterator[InputSnapshot]:
        """Yield the remaining snapshots (stops at the end instead of raising)."""
        while not self.finished:
            yield self.sample()
