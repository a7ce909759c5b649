"""Follow camera: dead zone, look-ahead, exponential follow, level clamp, pixel snap.

This module is pure math: it decides *where* the camera should look. Applying the
result to an ``arcade.Camera2D`` (whose ``position`` is the centre of the view)
happens elsewhere. All lengths are world pixels; if the camera is zoomed, pass the
viewport size in world pixels (screen size divided by zoom).

The camera is updated once per **rendered** frame with the *interpolated* target
position (the physics runs at a fixed rate; rendering blends the last two physics
states), the target's velocity and the frame's ``dt``. Each update runs a
pipeline of small pure steps:

1. **Dead zone.** A rectangle of ``dead_zone_width_px`` x ``dead_zone_height_px``
   is centred on the *focus* point. While the target is inside it nothing happens.
   When the target leaves it, the focus moves the minimum distance that puts the
   target back on the rectangle's edge. Small hops and idle animation therefore do
   not shake the view.
2. **Look-ahead.** The camera leads by up to ``look_ahead_px`` in the direction of
   horizontal motion, so the player sees what they run into. The offset is itself
   smoothed with the exponential law below (``look_ahead_time_s``), so turning
   around pans the view across instead of snapping it. Below
   ``look_ahead_min_speed_px_s`` the offset eases back to zero.
3. **Goal.** ``goal = focus + (look_ahead_offset, 0)``, clamped to the level (4).
4. **Level clamp.** A view of size ``w x h`` centred at ``(x, y)`` stays inside the
   level when ``left + w/2 <= x <= right - w/2`` (and likewise for ``y``). If the
   level is smaller than the view on an axis, the view is centred on the level on
   that axis instead.
5. **Exponential follow.** ``position = lerp(position, goal, 1 - c**dt)`` with
   ``c`` chosen so that 99% of the distance is covered in ``follow_time_s``
   (see :mod:`engine.rendering.smoothing`). This is frame-rate independent: one 1/30 s frame
   and two 1/60 s frames end at the same position. The result is clamped again,
   which only matters when the level or viewport changed since the last frame.
6. **Pixel snap (view only).** :attr:`FollowCamera.position` is the unsnapped
   float state that carries over between frames. :attr:`FollowCamera.view_position`
   is what gets drawn: after clamping, the view's **bottom-left corner** is snapped
   to whole pixels with **round-half-away-from-zero** (2.5 -> 3, -2.5 -> -3; exact
   ties are decided on the corner coordinate, not the centre). For even viewport
   sizes the centre is then an integer too; for an odd size it lands on ``.5`` so
   that the *edges* (and thus every pixel-aligned sprite) stay on whole pixels.
   Snapping never feeds back into the state; feeding it back would stall the
   camera (a sub-pixel step would round away) and make motion frame-rate
   dependent.

Everything is a pure function of its inputs: :func:`step_camera` maps an immutable
:class:`CameraState` to the next one; :class:`FollowCamera` is a thin mutable
wrapper holding the current state for convenience.
"""

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from engine.rendering.smoothing import exp_approach, remaining_fraction_per_s

if TYPE_CHECKING:
    from engine.config import Config

__all__ = [
    "Bounds",
    "CameraSettings",
    "CameraState",
    "FollowCamera",
    "Vec2",
    "clamp_view_centre",
    "round_half_away_from_zero",
    "snap_view_position",
    "step_camera",
    "track_dead_zone",
]

Vec2: TypeAlias = tuple[float, float]
"""An ``(x, y)`` pair, e.g. a position in px or a velocity in px/s."""

Bounds: TypeAlias = tuple[float, float, float, float]
"""Level rectangle ``(left, bottom, right, top)`` in px."""


@dataclass(frozen=True, slots=True)
class CameraSettings:
    """Tuning values for :class:`FollowCamera`.

    Attributes:
        follow_time_s: Seconds for the camera to cover 99% of the distance to its
            goal. ``0`` follows rigidly.
        dead_zone_width_px: Width of the dead-zone rectangle (0 = no dead zone).
        dead_zone_height_px: Height of the dead-zone rectangle.
        look_ahead_px: Maximum horizontal lead in the direction of motion.
        clamp_to_level: Keep the view inside the level bounds when given.
        pixel_snap: Snap :attr:`FollowCamera.view_position` to whole pixels.
        look_ahead_time_s: Seconds for the look-ahead offset to cover 99% of a change
            (e.g. the swing from ``+look_ahead_px`` to ``-look_ahead_px``).
        look_ahead_min_speed_px_s: Horizontal speed below which the target counts as
            standing still and the look-ahead eases back to zero.
    """

    follow_time_s: float = 0.25
    dead_zone_width_px: float = 0.0
    dead_zone_height_px: float = 0.0
    look_ahead_px: float = 0.0
    clamp_to_level: bool = True
    pixel_snap: bool = True
    look_ahead_time_s: float = 0.5
    look_ahead_min_speed_px_s: float = 1.0

    @classmethod
    def from_config(cls, config: "Config") -> "CameraSettings":
        """The settings the ``[camera]`` section and ``render.pixel_snap`` of a config ask for."""
        camera = config.camera
        return cls(
            follow_time_s=camera.follow_time_s,
            dead_zone_width_px=camera.dead_zone_width_px,
            dead_zone_height_px=camera.dead_zone_height_px,
            look_ahead_px=camera.look_ahead_px,
            clamp_to_level=camera.clamp_to_level,
            pixel_snap=config.render.pixel_snap,
        )

    def __post_init__(self) -> None:
        for name in (
            "follow_time_s",
            "dead_zone_width_px",
            "dead_zone_height_px",
            "look_ahead_px",
            "look_ahead_time_s",
            "look_ahead_min_speed_px_s",
        ):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0.0:
                raise ValueError(f"{name} must be finite and >= 0, got {value}")

    @property
    def follow_remaining_per_s(self) -> float:
        """Fraction of the distance to the goal still left after one second."""
        return remaining_fraction_per_s(self.follow_time_s)

    @property
    def look_ahead_remaining_per_s(self) -> float:
        """Fraction of a look-ahead change still pending after one second."""
        return remaining_fraction_per_s(self.look_ahead_time_s)


@dataclass(frozen=True, slots=True)
class CameraState:
    """Everything the camera remembers between frames.

    Attributes:
        position_px: Unsnapped centre of the view (the smoothed, clamped state).
        focus_px: Centre of the dead-zone rectangle.
        look_ahead_offset_px: Current (smoothed) horizontal lead; signed.
    """

    position_px: Vec2
    focus_px: Vec2
    look_ahead_offset_px: float = 0.0

    @classmethod
    def at(cls, x_px: float, y_px: float) -> "CameraState":
        """State looking straight at ``(x_px, y_px)``: no lead, dead zone centred."""
        return cls(position_px=(x_px, y_px), focus_px=(x_px, y_px), look_ahead_offset_px=0.0)


def round_half_away_from_zero(value: float) -> float:
    """Round to the nearest integer, ties away from zero (2.5 -> 3.0, -2.5 -> -3.0).

    Python's built-in ``round`` uses banker's rounding (2.5 -> 2, 3.5 -> 4), which
    would make the snapped camera alternate between rounding down and up.
    """
    return math.copysign(math.floor(abs(value) + 0.5), value)


def track_dead_zone(focus: float, target: float, zone_size_px: float) -> float:
    """Move a dead-zone centre the minimum needed to contain ``target`` (one axis).

    Args:
        focus: Current centre of the dead zone.
        target: Position that must end up inside the zone.
        zone_size_px: Full width (or height) of the zone; 0 tracks rigidly.

    Returns:
        The new centre: unchanged if ``target`` is inside, otherwise moved so that
        ``target`` sits exactly on the nearer edge.
    """
    half = zone_size_px / 2.0
    if target > focus + half:
        return target - half
    if target < focus - half:
        return target + half
    return focus


def clamp_view_centre(centre: float, view_size_px: float, low: float, high: float) -> float:
    """Clamp a view centre on one axis so the view stays within ``[low, high]``.

    If the level is not larger than the view on this axis, the level is centred.
    """
    half = view_size_px / 2.0
    if high - low <= view_size_px:
        return (low + high) / 2.0
    return min(max(centre, low + half), high - half)


def _clamp_to_level(
    point: Vec2, viewport_px: Vec2, level_bounds_px: Bounds | None, settings: CameraSettings
) -> Vec2:
    if level_bounds_px is None or not settings.clamp_to_level:
        return point
    left, bottom, right, top = level_bounds_px
    return (
        clamp_view_centre(point[0], viewport_px[0], left, right),
        clamp_view_centre(point[1], viewport_px[1], bottom, top),
    )


def _look_ahead_goal_px(velocity_x_px_s: float, settings: CameraSettings) -> float:
    if abs(velocity_x_px_s) < max(settings.look_ahead_min_speed_px_s, 1e-12):
        return 0.0
    return math.copysign(settings.look_ahead_px, velocity_x_px_s)


def step_camera(
    state: CameraState,
    settings: CameraSettings,
    target_px: Vec2,
    velocity_px_s: Vec2,
    dt_s: float,
    viewport_px: Vec2,
    level_bounds_px: Bounds | None = None,
) -> CameraState:
    """Advance the camera by one rendered frame (pure function).

    Args:
        state: The camera state after the previous frame.
        settings: Tuning values.
        target_px: Interpolated position of the followed object this frame.
        velocity_px_s: Its velocity, used for the look-ahead direction.
        dt_s: Duration of this rendered frame in seconds (negative treated as 0).
        viewport_px: Size of the view in world pixels ``(width, height)``.
        level_bounds_px: ``(left, bottom, right, top)`` of the level, or ``None``.

    Returns:
        The new state. ``position_px`` is clamped but not snapped; use
        :func:`snap_view_position` for what to draw.
    """
    focus_px = (
        track_dead_zone(state.focus_px[0], target_px[0], settings.dead_zone_width_px),
        track_dead_zone(state.focus_px[1], target_px[1], settings.dead_zone_height_px),
    )
    look_ahead_offset_px = exp_approach(
        state.look_ahead_offset_px,
        _look_ahead_goal_px(velocity_px_s[0], settings),
        settings.look_ahead_remaining_per_s,
        dt_s,
    )
    goal_px = _clamp_to_level(
        (focus_px[0] + look_ahead_offset_px, focus_px[1]), viewport_px, level_bounds_px, settings
    )
    c = settings.follow_remaining_per_s
    position_px = _clamp_to_level(
        (
            exp_approach(state.position_px[0], goal_px[0], c, dt_s),
            exp_approach(state.position_px[1], goal_px[1], c, dt_s),
        ),
        viewport_px,
        level_bounds_px,
        settings,
    )
    return CameraState(position_px, focus_px, look_ahead_offset_px)


def snap_view_position(position_px: Vec2, viewport_px: Vec2) -> Vec2:
    """View centre whose bottom-left corner lies on whole pixels.

    The corner ``centre - size/2`` is rounded half away from zero and the half size
    is added back, so for even viewport sizes the result is an integer and for odd
    sizes it ends in ``.5`` (the edges stay pixel-aligned either way). An exact tie
    is resolved by the sign of the corner: corner -309.5 -> -310, 10.5 -> 11.

    Args:
        position_px: Unsnapped (already clamped) view centre.
        viewport_px: View size ``(width, height)`` in world pixels.
    """
    half_w = viewport_px[0] / 2.0
    half_h = viewport_px[1] / 2.0
    return (
        round_half_away_from_zero(position_px[0] - half_w) + half_w,
        round_half_away_from_zero(position_px[1] - half_h) + half_h,
    )


class FollowCamera:
    """Stateful convenience wrapper around :func:`step_camera`.

    Call :meth:`update` once per rendered frame, then draw with
    :attr:`view_position` (e.g. ``camera2d.position = follow.view_position``).
    Call :meth:`teleport` after a respawn or level load so the camera does not
    glide across the whole level.
    """

    def __init__(
        self,
        settings: CameraSettings | None = None,
        x_px: float = 0.0,
        y_px: float = 0.0,
        viewport_px: Vec2 = (0.0, 0.0),
    ) -> None:
        self._settings = settings if settings is not None else CameraSettings()
        self._state = CameraState.at(x_px, y_px)
        self._viewport_px = viewport_px

    @property
    def settings(self) -> CameraSettings:
        """Tuning values (replace with :meth:`set_settings`)."""
        return self._settings

    def set_settings(self, settings: CameraSettings) -> None:
        """Swap tuning values; the current state is kept."""
        self._settings = settings

    @property
    def state(self) -> CameraState:
        """The full immutable state after the last update."""
        return self._state

    @property
    def position(self) -> Vec2:
        """Unsnapped, clamped view centre in px (the state kept between frames)."""
        return self._state.position_px

    @property
    def view_position(self) -> Vec2:
        """View centre to draw: :attr:`position`, pixel-snapped if enabled."""
        if not self._settings.pixel_snap:
            return self._state.position_px
        return snap_view_position(self._state.position_px, self._viewport_px)

    def update(
        self,
        target_px: Vec2,
        velocity_px_s: Vec2,
        dt_s: float,
        viewport_px: Vec2,
        level_bounds_px: Bounds | None = None,
    ) -> Vec2:
        """Advance one rendered frame; returns :attr:`view_position`.

        See :func:`step_camera` for the arguments.
        """
        self._viewport_px = viewport_px
        self._state = step_camera(
            self._state,
            self._settings,
            target_px,
            velocity_px_s,
            dt_s,
            viewport_px,
            level_bounds_px,
        )
        return self.view_position

    def teleport(
        self,
        x_px: float,
        y_px: float,
        viewport_px: Vec2 | None = None,
        level_bounds_px: Bounds | None = None,
    ) -> Vec2:
        """Put the camera on ``(x_px, y_px)`` instantly; returns :attr:`view_position`.

        The dead zone is centred on the point and the look-ahead is cleared. When
        ``viewport_px`` (and bounds) are given the position is clamped right away;
        otherwise the next :meth:`update` clamps it.
        """
        if viewport_px is not None:
            self._viewport_px = viewport_px
        clamped = _clamp_to_level((x_px, y_px), self._viewport_px, level_bounds_px, self._settings)
        self._state = CameraState(
            position_px=clamped, focus_px=(x_px, y_px), look_ahead_offset_px=0.0
        )
        return self.view_position

    def reset(
        self,
        x_px: float,
        y_px: float,
        viewport_px: Vec2 | None = None,
        level_bounds_px: Bounds | None = None,
    ) -> Vec2:
        """Same as :meth:`teleport`; reads better after a level load."""
        return self.teleport(x_px, y_px, viewport_px, level_bounds_px)
