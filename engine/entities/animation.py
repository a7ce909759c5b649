"""Animation states whose frames advance with ticks.

An animation is data about *time in ticks*: which frame of which clip shows at tick ``t``. Tying
it to ticks, not to rendered frames or wall time, makes it part of the deterministic simulation:
a replay shows the same frame on the same tick at 30 Hz or 240 Hz, and a screenshot of tick
``t`` is always the same picture.

A :class:`Clip` says how many frames a state has, how many ticks each lasts and whether it
loops; an :class:`Animator` remembers which state plays since which tick::

    animator = Animator({"idle": Clip(1), "walk": Clip(8, ticks_per_frame=4)}, "idle")
    animator.play("walk", tick=120)       # no-op if "walk" is already playing
    animator.frame(tick=130)              # (130 - 120) // 4 % 8 == 2

The textures each frame shows are the renderer's business
(:class:`~engine.entities.entity.Look`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["Animator", "Clip"]


@dataclass(frozen=True, slots=True)
class Clip:
    """One animation state's timing.

    Attributes:
        frames: How many frames it has (at least 1).
        ticks_per_frame: How many ticks each frame shows (at least 1).
        loop: Start again after the last frame; otherwise hold the last frame.
    """

    frames: int = 1
    ticks_per_frame: int = 1
    loop: bool = True

    def __post_init__(self) -> None:
        if self.frames < 1 or self.ticks_per_frame < 1:
            raise ValueError(f"a clip needs frames >= 1 and ticks_per_frame >= 1, got {self}")

    def frame_at(self, elapsed_ticks: int) -> int:
        """The frame shown ``elapsed_ticks`` after the clip started."""
        index = max(0, elapsed_ticks) // self.ticks_per_frame
        return index % self.frames if self.loop else min(index, self.frames - 1)

    @property
    def length_ticks(self) -> int:
        """Ticks one pass through the clip takes."""
        return self.frames * self.ticks_per_frame


class Animator:
    """Which clip plays, since which tick.

    Args:
        clips: The states by name.
        state: The state to start in.
        tick: The tick it starts at.
    """

    __slots__ = ("_clips", "started_tick", "state")

    def __init__(self, clips: Mapping[str, Clip], state: str, tick: int = 0) -> None:
        if state not in clips:
            raise ValueError(f"unknown animation state {state!r}; the clips are {sorted(clips)}")
        self._clips = MappingProxyType(dict(clips))
        self.state = state
        self.started_tick = tick

    @property
    def clips(self) -> Mapping[str, Clip]:
        """The states by name."""
        return self._clips

    def play(self, state: str, tick: int, *, restart: bool = False) -> None:
        """Switch to ``state`` at ``tick``; playing it already keeps its place unless ``restart``.

        Raises:
            ValueError: ``state`` is not one of the clips.
        """
        if state not in self._clips:
            raise ValueError(
                f"unknown animation state {state!r}; the clips are {sorted(self._clips)}"
            )
        if restart or state != self.state:
            self.state = state
            self.started_tick = tick

    def frame(self, tick: int) -> int:
        """The frame of the current state shown at ``tick``."""
        return self._clips[self.state].frame_at(tick - self.started_tick)

    def finished(self, tick: int) -> bool:
        """A non-looping clip has shown its last frame for its full time."""
        clip = self._clips[self.state]
        return not clip.loop and tick - self.started_tick >= clip.length_ticks

    def state_key(self) -> tuple[str, int]:
        """What the state hash covers: the state and when it started."""
        return (self.state, self.started_tick)
