"""Look and feel: dust, sparks, sparkles, screen shake, the hurt flash and the respawn iris.

Every effect here is a *function of the simulation's state and its event log* (see
:class:`game.world_builder.Events`), evaluated at draw time: an event that happened at tick ``t``
shows, at the frame being drawn, what it looks like ``age = now - t`` ticks later. Nothing is
stored from one frame to the next except a cache of each event's random numbers (drawn once from
a generator seeded with the event's number, so they are the same on every machine and at every
frame rate). Effects therefore never change the state (the state hash is the same with them on or
off, which the tests check), a replay looks the same every time, and a frame drawn twice is the
same frame.

:class:`Effects` computes numpy arrays and numbers; :class:`game.level_scene.LevelScene` draws
them with :class:`engine.rendering.particles.PointBatch` and
:class:`~engine.rendering.particles.ScreenOverlay`, and moves its camera by :meth:`Effects.shake_px`
(zero when the player turned screen shake off in the options).

What each event looks like is data, :data:`BURSTS`: add an entry for a new event name.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from game.entities.player import HURT_TICKS
from game.world_builder import Event

__all__ = ["BURSTS", "IRIS_CLOSE_TICKS", "IRIS_OPEN_TICKS", "Burst", "Effects"]

RGBA = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Burst:
    """How one kind of event throws particles.

    Attributes:
        count: Particles per event.
        lifetime_ticks: How long they live; they fade out over it.
        speed_px_s: Smallest and largest start speed.
        angle_deg: The range of start directions (0 is right, 90 up).
        gravity_px_s2: Vertical acceleration (negative falls).
        colors: Each particle takes one of these.
        spread_px: Start positions scatter this far around the event's point.
    """

    count: int
    lifetime_ticks: int
    speed_px_s: tuple[float, float]
    angle_deg: tuple[float, float]
    gravity_px_s2: float
    colors: tuple[RGBA, ...]
    spread_px: float = 2.0


DUST = ((235, 225, 205, 220), (210, 196, 170, 200), (255, 255, 255, 180))
GOLD = ((255, 236, 90, 255), (255, 250, 200, 255), (255, 200, 40, 255))
BURSTS: dict[str, Burst] = {
    "jump": Burst(6, 16, (20, 60), (160, 200), 0, DUST),
    "land": Burst(8, 18, (30, 80), (150, 210), 0, DUST),
    "step": Burst(2, 12, (10, 30), (100, 150), 20, DUST, 1.0),
    "coin": Burst(10, 22, (60, 140), (0, 360), -120, GOLD),
    "checkpoint": Burst(16, 40, (40, 120), (30, 150), -60, (*GOLD, (120, 230, 120, 255))),
    "stomp": Burst(10, 20, (60, 160), (0, 180), -300, ((255, 255, 255, 230), (170, 230, 120, 230))),
    "spring": Burst(
        8, 18, (60, 140), (30, 150), -200, ((255, 120, 120, 230), (255, 255, 255, 230))
    ),
    "hurt": Burst(18, 30, (60, 200), (0, 360), -400, ((255, 70, 60, 255), (255, 170, 60, 255))),
    "respawn": Burst(14, 30, (30, 90), (60, 120), 40, ((255, 255, 255, 230), (180, 220, 255, 230))),
    "crumble": Burst(
        12, 40, (20, 80), (200, 340), -700, ((150, 110, 70, 255), (110, 80, 50, 255)), 12
    ),
    "crate": Burst(5, 16, (20, 60), (150, 210), 0, DUST, 6),
    "complete": Burst(24, 50, (80, 220), (20, 160), -250, (*GOLD, (255, 255, 255, 255))),
}

SHAKES: dict[str, tuple[float, int]] = {"hurt": (5.0, 20), "stomp": (2.0, 8), "crumble": (1.5, 10)}
"""Event name -> (amplitude px, duration ticks) of the screen shake it starts."""

FLASH_TICKS = 12
FLASH_RGBA = (255, 40, 30, 110)
IRIS_CLOSE_TICKS = 20
"""The iris closes over the last ticks of the hurt freeze, ending black at the respawn."""
IRIS_OPEN_TICKS = 18
"""The iris opens around the respawned player over this many ticks."""
SPARKLE_PERIOD_TICKS = 90
SPARKLE_TICKS = 10


@dataclass(slots=True)
class _Cached:
    velocity_px_s: npt.NDArray[np.float64]  # (n, 2)
    offset_px: npt.NDArray[np.float64]  # (n, 2)
    color: npt.NDArray[np.uint8]  # (n, 4)


class Effects:
    """Computes what the effects look like at a moment of a level (see the module docstring).

    Args:
        dt_s: Length of one tick in seconds.
        bursts: What each event name throws (default :data:`BURSTS`).
    """

    def __init__(self, dt_s: float, bursts: dict[str, Burst] | None = None) -> None:
        self.dt_s = dt_s
        self.bursts = BURSTS if bursts is None else bursts
        self._cache: dict[int, _Cached] = {}

    def _spec(self, event: Event, burst: Burst) -> _Cached:
        cached = self._cache.get(event.seq)
        if cached is None:
            rng = np.random.default_rng(event.seq)
            n = burst.count
            speed = rng.uniform(*burst.speed_px_s, n)
            angle = np.radians(rng.uniform(*burst.angle_deg, n))
            velocity = np.column_stack((speed * np.cos(angle), speed * np.sin(angle)))
            offset = rng.uniform(-burst.spread_px, burst.spread_px, (n, 2))
            palette = np.array(burst.colors, dtype=np.uint8)
            color = palette[rng.integers(0, len(palette), n)]
            cached = self._cache[event.seq] = _Cached(velocity, offset, color)
        return cached

    def particles(
        self, events: Iterable[Event], now_ticks: float
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8]]:
        """Every live particle at ``now_ticks`` (the drawn moment, fractional): ``(xy, rgba)``."""
        xy_parts: list[npt.NDArray[np.float64]] = []
        rgba_parts: list[npt.NDArray[np.uint8]] = []
        live: set[int] = set()
        for event in events:
            burst = self.bursts.get(event.name)
            if burst is None:
                continue
            age_ticks = now_ticks - event.tick
            if not 0 <= age_ticks < burst.lifetime_ticks:
                continue
            live.add(event.seq)
            spec = self._spec(event, burst)
            t_s = age_ticks * self.dt_s
            xy = spec.offset_px + spec.velocity_px_s * t_s
            xy[:, 0] += event.x_px
            xy[:, 1] += event.y_px + 0.5 * burst.gravity_px_s2 * t_s * t_s
            rgba = spec.color.copy()
            fade = 1.0 - age_ticks / burst.lifetime_ticks
            rgba[:, 3] = (rgba[:, 3] * fade).astype(np.uint8)
            xy_parts.append(xy)
            rgba_parts.append(rgba)
        for seq in [seq for seq in self._cache if seq not in live]:
            del self._cache[seq]  # gone for good: events only age
        if not xy_parts:
            return np.zeros((0, 2), np.float32), np.zeros((0, 4), np.uint8)
        return np.concatenate(xy_parts).astype(np.float32), np.concatenate(rgba_parts)

    @staticmethod
    def coin_sparkles(
        coins_xy_px: npt.NDArray[np.float64], now_tick: int, half_size_px: float
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.uint8]]:
        """A glint on each coin now and then (each coin at its own moment), from the tick alone.

        Args:
            coins_xy_px: Centres of the coins still in the level, ``(n, 2)``.
            now_tick: The tick drawn.
            half_size_px: Half a coin's size: the glint sits on its upper right.
        """
        n = len(coins_xy_px)
        if n == 0:
            return np.zeros((0, 2), np.float32), np.zeros((0, 4), np.uint8)
        phase = (now_tick + np.arange(n) * 37) % SPARKLE_PERIOD_TICKS
        on = phase < SPARKLE_TICKS
        xy = coins_xy_px[on] + (half_size_px * 0.45, half_size_px * 0.45)
        brightness = np.sin(phase[on] / SPARKLE_TICKS * math.pi)
        rgba = np.zeros((len(xy), 4), np.uint8)
        rgba[:, :3] = 255
        rgba[:, 3] = (255 * brightness).astype(np.uint8)
        return xy.astype(np.float32), rgba

    @staticmethod
    def shake_px(events: Iterable[Event], now_ticks: float) -> tuple[float, float]:
        """How far the view is shaken at ``now_ticks``: the sum of every recent shake."""
        dx = dy = 0.0
        for event in events:
            shake = SHAKES.get(event.name)
            if shake is None:
                continue
            amplitude_px, duration = shake
            age = now_ticks - event.tick
            if not 0 <= age < duration:
                continue
            strength = amplitude_px * (1.0 - age / duration) ** 2
            dx += strength * math.sin(age * 2.9 + event.seq)
            dy += strength * math.cos(age * 3.7 + event.seq * 1.3)
        return (dx, dy)

    @staticmethod
    def flash_rgba(events: Iterable[Event], now_ticks: float) -> tuple[int, int, int, int]:
        """The red wash over the picture just after the player is hurt (alpha 0: none)."""
        alpha = 0.0
        for event in events:
            if event.name == "hurt":
                age = now_ticks - event.tick
                if 0 <= age < FLASH_TICKS:
                    alpha = max(alpha, 1.0 - age / FLASH_TICKS)
        return (*FLASH_RGBA[:3], int(FLASH_RGBA[3] * alpha))

    @staticmethod
    def iris(events: Iterable[Event], now_ticks: float) -> tuple[float, float, float] | None:
        """The death-and-respawn iris: ``(x_px, y_px, openness 0..1)`` in world pixels, or None.

        It closes on the place the player was hurt during the last :data:`IRIS_CLOSE_TICKS` of
        the hurt freeze and opens on the respawn point over :data:`IRIS_OPEN_TICKS`.
        """
        last_hurt: Event | None = None
        last_respawn: Event | None = None
        for event in events:
            if event.name == "hurt":
                last_hurt = event
            elif event.name == "respawn":
                last_respawn = event
        if last_hurt is not None and (last_respawn is None or last_respawn.seq < last_hurt.seq):
            age = now_ticks - last_hurt.tick
            closing_from = HURT_TICKS - IRIS_CLOSE_TICKS
            if age < closing_from:
                return None
            openness = max(0.0, 1.0 - (age - closing_from) / IRIS_CLOSE_TICKS)
            return (last_hurt.x_px, last_hurt.y_px, openness)
        if last_respawn is not None:
            age = now_ticks - last_respawn.tick
            if 0 <= age < IRIS_OPEN_TICKS:
                return (last_respawn.x_px, last_respawn.y_px, age / IRIS_OPEN_TICKS)
        return None
