"""The player's movement "feel": a pure, tick-based motor.

What this module does:
    Each simulation tick the game calls :func:`step` with the previous
    :class:`PlayerState`, that tick's :class:`~engine.input.snapshot.InputSnapshot`, a
    :class:`Contacts` summary it read from the physics world, the
    :class:`PlayerTuning` and the tick length ``dt_s``. It gets back the next state
    and a :class:`MotorOutput` whose ``velocity_px_s`` the game assigns to the
    player's physics body. Nothing here imports arcade or pymunk, so every rule can
    be tested by scripting inputs and contacts tick by tick.

Who owns gravity:
    The motor does. Its gravity comes from the designer's jump height and time to
    apex (see :attr:`PlayerTuning.gravity_px_s2`), not from ``[physics]``, so the
    game must keep the player body out of the space's gravity (for example a pymunk
    ``velocity_func`` that ignores the gravity argument) and set the body's velocity
    from ``output.velocity_px_s`` before each physics step. Not blindly, though:
    pymunk moves a body first and resolves collisions after, so a landing would sink
    up to ``v * dt`` into the floor and a landing on a one-way platform would pass
    through it. Clip the velocity against the geometry first (a sweep, as
    :meth:`game.world_builder.LevelWorld.sweep` does). The velocity is in px/s with
    y up and *already includes* the velocity of a moving platform the player stands
    on, so the platform carries the player without any extra code in the game.

Why the output is the average velocity of the tick:
    Within one tick gravity changes the velocity from ``v_start`` to ``v_end``. A
    physics engine then moves the body by ``velocity * dt`` (pymunk does). Using
    ``v_start`` overshoots a jump and ``v_end`` undershoots it, by about ``dt / t_apex``
    (4% at 60 Hz for a 0.4 s rise). Handing the physics the average
    ``(v_start + v_end) / 2`` makes every tick land exactly on the continuous
    parabola the tuning describes, so a jump is equally high at 60 Hz and 120 Hz.
    :class:`PlayerState` keeps the end-of-tick velocity; only the output is averaged.

Why ticks, not seconds:
    Grace windows such as coyote time are counted in whole ticks. "Was the jump
    pressed at most 6 ticks after the player left the ledge?" has one exact answer,
    while "at most 0.1 s?" compared with accumulated floating-point seconds can flip
    on rounding noise, and anything based on wall time would change with the frame
    rate. The windows are converted once per step with :func:`seconds_to_ticks`
    (nearest whole tick), and the state stores absolute tick numbers, so a replay of
    the same inputs gives bit-identical states however the frames were drawn.

The feel rules, in short:
    * Running approaches ``run_speed_px_s`` at a rate that reaches it from rest in
      ``ground_accel_time_s`` and stops from full speed in ``ground_decel_time_s``.
      In the air only ``air_control`` of the acceleration is available, and letting
      go keeps the current horizontal speed (momentum, e.g. from a platform).
    * Coyote time: for a few ticks after walking off a ledge a jump still counts as
      a jump from the ground. Players press jump a moment "too late" all the time;
      without this grace the game feels like it ate the input.
    * Jump buffering: a jump pressed a few ticks *before* landing is remembered and
      happens on the landing tick. Without it, a press just before touching down is
      lost and the player has to press again.
    * Variable jump: releasing jump while rising multiplies the upward speed by
      ``jump_cut_factor``, so a tap is a hop and a held press a full jump.
    * Apex hang: while jump is held and the vertical speed is small (near the top of
      the arc) gravity is scaled by ``apex_hang_gravity_multiplier``, giving a moment
      of float in which to aim the landing.
    * Falling uses ``fall_gravity_multiplier`` (a snappier descent than rise) and
      never exceeds ``max_fall_speed_px_s``.
    * Down + jump while standing on a one-way platform drops through it instead of
      jumping: for ``drop_through_time_s`` the game ignores one-way collisions
      (check :attr:`PlayerState.drop_through_active` or compare the tick with
      :attr:`PlayerState.drop_through_until_tick`).
    * Jumping off a moving platform adds ``platform_momentum_fraction`` of the
      platform's velocity; walking off one keeps that fraction of its horizontal
      velocity.
    * Ladders: on a ladder (``Contacts.ladder``), holding up starts climbing, and so does
      holding down unless the feet are on solid ground. Climbing has no gravity: up and
      down move at ``climb_speed_px_s``, left and right shuffle at half that; jump leaves
      the ladder with a jump, and so does climbing off its top or bottom.
    * Launches: a spring or a stomp throws the player up (:func:`launched`); the launch is
      never cut by releasing jump.

Actions read from the snapshot: ``"left"``, ``"right"``, ``"up"``, ``"down"`` and
``"jump"``; the snapshot's action map must contain them.

This module is pure: it imports neither arcade, pyglet, pymunk nor numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.config import setting
from engine.input.snapshot import InputSnapshot

__all__ = [
    "Contacts",
    "MotorOutput",
    "PlayerState",
    "PlayerTuning",
    "seconds_to_ticks",
    "step",
]


# ---------------------------------------------------------------------------------------------
# Tuning
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerTuning:
    """Player movement tuning, in designer units (px, tiles, seconds).

    Load it as the ``[player]`` section of the config file::

        config = load_config(path, extra_sections={"player": PlayerTuning})
        tuning = config.section("player", PlayerTuning)

    Gravity and jump speed are not set directly: they follow from the jump height
    and the time to reach it, with the classic platformer formulas for a jump that
    rises ``h`` in ``t`` seconds under constant gravity: ``g = 2h / t**2`` and
    ``v = 2h / t`` (see :attr:`gravity_px_s2` and :attr:`jump_velocity_px_s`). The
    apex hang slows gravity near the top and so adds
    ``hang_speed**2 / (2 g) * (1 / multiplier - 1)`` to the height: 0.6 px, about
    0.6%, with the defaults.
    """

    tile_px: int = setting(
        32, "Size of one level tile in pixels (the unit of jump height).", min=1, max=1024
    )
    run_speed_px_s: float = setting(
        320.0, "Top running speed in pixels per second.", min=0, max=5000
    )
    ground_accel_time_s: float = setting(
        0.1,
        "Seconds to reach top running speed from rest on the ground; 0 is instant.",
        min=0,
        max=5,
    )
    ground_decel_time_s: float = setting(
        0.08, "Seconds to stop from top running speed on the ground; 0 is instant.", min=0, max=5
    )
    air_control: float = setting(
        0.65, "Fraction of the ground acceleration available in the air (0 = none).", min=0, max=1
    )
    jump_height_tiles: float = setting(
        3.2, "Height of a full (held) jump, in tiles.", min=0, min_exclusive=True, max=100
    )
    jump_time_to_apex_s: float = setting(
        0.4, "Seconds from take-off to the top of a full jump.", min=0.05, max=5
    )
    jump_cut_factor: float = setting(
        0.5,
        "Upward speed is multiplied by this when jump is released while rising (1 = no cut).",
        min=0,
        max=1,
    )
    apex_hang_speed_px_s: float = setting(
        40.0,
        "Near the apex (|vertical speed| below this, jump held) gravity uses the hang multiplier.",
        min=0,
        max=2000,
    )
    apex_hang_gravity_multiplier: float = setting(
        0.5, "Gravity multiplier during the apex hang (below 1 floats).", min=0.05, max=1
    )
    fall_gravity_multiplier: float = setting(
        1.6,
        "Gravity multiplier while falling (above 1 falls faster than it rises).",
        min=0.1,
        max=10,
    )
    max_fall_speed_px_s: float = setting(
        800.0, "Falling speed never exceeds this, in pixels per second.", min=1, max=20000
    )
    coyote_time_s: float = setting(
        0.1, "A jump pressed this long after walking off a ledge still jumps.", min=0, max=1
    )
    jump_buffer_s: float = setting(
        0.1, "A jump pressed this long before landing happens on landing.", min=0, max=1
    )
    drop_through_time_s: float = setting(
        0.25,
        "Down + jump on a one-way platform ignores one-way collisions this long.",
        min=0,
        max=2,
    )
    platform_momentum_fraction: float = setting(
        1.0,
        "Fraction of a moving platform's velocity kept when jumping or walking off it.",
        min=0,
        max=1,
    )
    climb_speed_px_s: float = setting(
        192.0, "Climbing speed on a ladder in pixels per second.", min=1, max=5000
    )
    stomp_bounce_tiles: float = setting(
        1.5,
        "Height of the bounce off a stomped enemy, in tiles (jump held: a full jump).",
        min=0,
        max=100,
    )

    @property
    def jump_height_px(self) -> float:
        """Height of a full jump in pixels (``jump_height_tiles * tile_px``)."""
        return self.jump_height_tiles * self.tile_px

    @property
    def gravity_px_s2(self) -> float:
        """Rising gravity in px/s² (a positive magnitude): ``2h / t**2``."""
        return 2.0 * self.jump_height_px / self.jump_time_to_apex_s**2

    @property
    def jump_velocity_px_s(self) -> float:
        """Take-off speed in px/s: ``2h / t`` (reaches ``h`` after ``t`` under :attr:`gravity_px_s2`)."""
        return 2.0 * self.jump_height_px / self.jump_time_to_apex_s


def seconds_to_ticks(seconds: float, dt_s: float) -> int:
    """Convert a designer duration to whole ticks: the nearest tick, halves round up.

    ``0.1`` s is 6 ticks at 60 Hz and 12 at 120 Hz; ``0.25`` s is 15 ticks at 60 Hz.
    The result never goes below 0.

    Args:
        seconds: The duration.
        dt_s: Length of one tick (``1 / tick_rate_hz``).

    Returns:
        The number of ticks.
    """
    return max(0, math.floor(seconds / dt_s + 0.5))


# ---------------------------------------------------------------------------------------------
# Per-tick data
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Contacts:
    """What the physics world says about the player this tick (filled by the game).

    The motor outputs a vertical velocity of exactly the ground's while the player
    stands (it does not push into the floor), so ``grounded`` should come from a
    check that sees a floor *touching* the feet, such as a shape query one pixel
    below the player or the body's current arbiters, not from a collision impulse.
    During a drop-through, one-way platforms reported here are ignored anyway.

    Attributes:
        grounded: The player's feet rest on something (solid or one-way).
        ground_velocity_px_s: Velocity of what the feet rest on, px/s, y up: a moving
            platform's velocity, ``(0, 0)`` on static ground or in the air.
        on_one_way: What the feet rest on is a one-way platform (drop-through allowed).
        hit_ceiling: The head touches something above (stops upward motion).
        wall_left: Something solid touches the player's left side.
        wall_right: Something solid touches the player's right side.
        ladder: The player is on a ladder (climbing is possible).
        ladder_offset_px: From the player's centre to the ladder's centre, x (climbing without
            left or right held moves the player onto the ladder's middle).
        ladder_to_top_px: How far the ladder's top is above the feet (0 or less: the feet are
            at its top, standing on its ledge).
        on_solid: What the feet rest on is solid ground (not a one-way platform or a
            ladder's top), so down does not start climbing.
    """

    grounded: bool = False
    ground_velocity_px_s: tuple[float, float] = (0.0, 0.0)
    on_one_way: bool = False
    hit_ceiling: bool = False
    wall_left: bool = False
    wall_right: bool = False
    ladder: bool = False
    ladder_offset_px: float = 0.0
    ladder_to_top_px: float = 0.0
    on_solid: bool = False


@dataclass(frozen=True, slots=True)
class PlayerState:
    """Everything the motor remembers between ticks; start with ``PlayerState()``.

    Velocities are the *end-of-tick* velocities (see the module docstring for why the
    output is an average). While grounded, ``vx_px_s`` is relative to the ground, so
    running on a moving platform works like running on static ground; in the air it
    is the world velocity.

    Attributes:
        tick: Number of the last tick stepped (0 before the first step).
        vx_px_s: Own horizontal velocity (relative to the ground while grounded).
        vy_px_s: Vertical velocity in the air, y up; 0 while grounded.
        grounded: Standing on the ground after this tick.
        ground_velocity_px_s: Velocity of the ground stood on this tick, ``(0, 0)`` in the air.
        facing: ``1`` facing right, ``-1`` facing left; the last direction held.
        last_grounded_tick: Last tick that could start a ground jump, or None after a
            jump or drop used it up (coyote time counts from here).
        last_jump_press_tick: Tick of a jump press not yet used, or None (the buffer).
        jump_rising: Rising from a jump that has not been cut yet.
        drop_through_until_tick: One-way platforms are ignored while ``tick`` is below this.
        climbing: On a ladder, climbing (no gravity).
    """

    tick: int = 0
    vx_px_s: float = 0.0
    vy_px_s: float = 0.0
    grounded: bool = False
    ground_velocity_px_s: tuple[float, float] = (0.0, 0.0)
    facing: int = 1
    last_grounded_tick: int | None = None
    last_jump_press_tick: int | None = None
    jump_rising: bool = False
    drop_through_until_tick: int = 0
    climbing: bool = False

    @property
    def drop_through_active(self) -> bool:
        """Whether the game must ignore one-way platforms in this tick's physics step."""
        return self.tick < self.drop_through_until_tick


@dataclass(frozen=True, slots=True)
class MotorOutput:
    """What one :func:`step` tells the game.

    Attributes:
        velocity_px_s: Set the player body to this velocity (px/s, y up) before the
            physics step. It is the tick's average velocity and includes the
            velocity of the platform stood on.
        jumped: A jump started this tick (play the jump sound).
        landed: The player touched down this tick.
        drop_started: A drop through a one-way platform started this tick.
        facing: ``1`` right, ``-1`` left (flip the sprite).
        drop_through_active: Ignore one-way platforms in this tick's physics step.
        climbing: On a ladder this tick (ignore ladder tops in the physics step).
    """

    velocity_px_s: tuple[float, float]
    jumped: bool = False
    landed: bool = False
    drop_started: bool = False
    facing: int = 1
    drop_through_active: bool = False
    climbing: bool = False


# ---------------------------------------------------------------------------------------------
# The step
# ---------------------------------------------------------------------------------------------


def _approach(value: float, target: float, max_change: float) -> float:
    """Move ``value`` toward ``target`` by at most ``max_change`` (never past it)."""
    if value < target:
        return min(value + max_change, target)
    return max(value - max_change, target)


def _rate_step(speed_px_s: float, time_s: float, dt_s: float) -> float:
    """Speed change per tick for reaching ``speed_px_s`` in ``time_s`` (inf if instant)."""
    return speed_px_s * dt_s / time_s if time_s > 0 else math.inf


def _horizontal(
    vx: float, direction: int, grounded: bool, tuning: PlayerTuning, dt_s: float
) -> float:
    """One tick of running: accelerate toward the held direction, brake on the ground.

    On the ground, pushing in the direction of motion (or from rest) uses the
    acceleration; no input or pushing against the motion uses the deceleration. In
    the air both are scaled by ``air_control``, no input keeps the speed, and speed
    beyond the run speed in the pushed direction is kept (momentum is not braked).
    """
    target = direction * tuning.run_speed_px_s
    accel = _rate_step(tuning.run_speed_px_s, tuning.ground_accel_time_s, dt_s)
    decel = _rate_step(tuning.run_speed_px_s, tuning.ground_decel_time_s, dt_s)
    if grounded:
        speeding_up = direction != 0 and vx * direction >= 0
        return _approach(vx, target, accel if speeding_up else decel)
    if direction == 0 or vx * direction > tuning.run_speed_px_s:
        return vx
    speeding_up = vx * direction >= 0
    air_change = (
        (accel if speeding_up else decel) * tuning.air_control if tuning.air_control else 0.0
    )
    return _approach(vx, target, air_change)  # no air control is none, even if instant (0 * inf)


def _gravity(vy: float, jump_held: bool, tuning: PlayerTuning) -> float:
    """Gravity magnitude (px/s²) for a tick starting at vertical speed ``vy`` in the air."""
    g = tuning.gravity_px_s2
    if jump_held and abs(vy) < tuning.apex_hang_speed_px_s:
        return g * tuning.apex_hang_gravity_multiplier
    if vy < 0:
        return g * tuning.fall_gravity_multiplier
    return g


def launched(state: PlayerState, vy_px_s: float) -> PlayerState:
    """The state after something throws the player up at ``vy_px_s`` (a spring, a stomp).

    The player leaves the ground and any ladder; coyote time and the jump buffer are used up,
    and the launch is not cut when jump is released.
    """
    return PlayerState(
        tick=state.tick,
        vx_px_s=state.vx_px_s + (state.ground_velocity_px_s[0] if state.grounded else 0.0),
        vy_px_s=vy_px_s,
        facing=state.facing,
        drop_through_until_tick=state.drop_through_until_tick,
    )


def launch_velocity(height_px: float, tuning: PlayerTuning) -> float:
    """Take-off speed that rises ``height_px`` under the rising gravity (``sqrt(2 g h)``)."""
    return math.sqrt(2.0 * tuning.gravity_px_s2 * max(0.0, height_px))


def _climb(
    state: PlayerState,
    snapshot: InputSnapshot,
    contacts: Contacts,
    tuning: PlayerTuning,
    dt_s: float,
    now: int,
) -> tuple[PlayerState, MotorOutput] | None:
    """One tick on a ladder, or None when the player is not (or no longer) climbing."""
    up, down = snapshot.is_held("up"), snapshot.is_held("down")
    if not contacts.ladder:
        return None
    at_top = contacts.ladder_to_top_px <= 0.5
    if not state.climbing and not ((up and not at_top) or (down and not contacts.on_solid)):
        return None
    if state.climbing and up and at_top:
        return None  # climbed out at the top: standing on its ledge
    if state.climbing and down and contacts.grounded and contacts.on_solid:
        return None  # climbed down onto the ground
    if snapshot.was_pressed("jump"):
        return None  # the normal step jumps (coyote time lets it: see below)
    direction = int(snapshot.is_held("right")) - int(snapshot.is_held("left"))
    shuffle_px_s = tuning.climb_speed_px_s / 2
    vx = direction * shuffle_px_s
    if direction == 0:  # slide onto the ladder's middle (reached exactly: the step ends there)
        vx = max(-shuffle_px_s, min(shuffle_px_s, contacts.ladder_offset_px / dt_s))
    vy = (int(up) - int(down)) * tuning.climb_speed_px_s
    if vy > 0:  # never past the top: the last step ends on it exactly
        vy = min(vy, max(0.0, contacts.ladder_to_top_px) / dt_s)
    facing = direction if direction != 0 else state.facing
    new_state = PlayerState(
        tick=now,
        vx_px_s=vx if direction else 0.0,
        vy_px_s=vy,
        facing=facing,
        last_grounded_tick=now,  # a jump off the ladder is a jump from the ground
        drop_through_until_tick=state.drop_through_until_tick,
        climbing=True,
    )
    return new_state, MotorOutput(velocity_px_s=(vx, vy), facing=facing, climbing=True)


def step(
    state: PlayerState,
    snapshot: InputSnapshot,
    contacts: Contacts,
    tuning: PlayerTuning,
    dt_s: float,
) -> tuple[PlayerState, MotorOutput]:
    """Advance the player's movement by one tick.

    The same ``(state, snapshot, contacts, tuning, dt_s)`` always gives the same
    result: no wall time, no randomness, no hidden state.

    Order within a tick: read input; decide whether the player stands (contacts say
    grounded and the player is not moving up); a requested jump on a one-way platform
    with down held becomes a drop; convert horizontal speed between ground-relative
    and world frames on landing or leaving the ground; start a jump if one is
    requested (pressed now or within the buffer) and allowed (standing, or within
    coyote time); cut the jump if jump is not held; apply gravity and the fall cap;
    run; stop at walls.

    Args:
        state: The state after the previous tick (``PlayerState()`` to begin).
        snapshot: This tick's input.
        contacts: What the physics world reported after the previous physics step.
        tuning: Movement tuning.
        dt_s: Tick length in seconds (``1 / tick_rate_hz``).

    Returns:
        The new state and what the game should do with the body this tick.
    """
    now = state.tick + 1
    climb = _climb(state, snapshot, contacts, tuning, dt_s, now)
    if climb is not None:
        return climb
    if state.climbing:  # left the ladder: fall (or jump, below) from standing still
        state = PlayerState(
            tick=state.tick,
            facing=state.facing,
            last_grounded_tick=state.tick,
            drop_through_until_tick=state.drop_through_until_tick,
        )
    coyote_ticks = seconds_to_ticks(tuning.coyote_time_s, dt_s)
    buffer_ticks = seconds_to_ticks(tuning.jump_buffer_s, dt_s)
    momentum = tuning.platform_momentum_fraction

    direction = int(snapshot.is_held("right")) - int(snapshot.is_held("left"))
    jump_held = snapshot.is_held("jump")
    last_press = now if snapshot.was_pressed("jump") else state.last_jump_press_tick
    jump_requested = last_press is not None and now - last_press <= buffer_ticks
    if not jump_requested:
        last_press = None  # an expired press is forgotten

    # Standing: ignore contacts while moving up (the tick after a jump the feet may still
    # touch), and one-way platforms during a drop-through.
    ignored = contacts.on_one_way and state.drop_through_active
    standing = contacts.grounded and state.vy_px_s <= 0 and not ignored
    ground_vx, ground_vy = contacts.ground_velocity_px_s if standing else (0.0, 0.0)

    drop_started = False
    drop_until = state.drop_through_until_tick
    if standing and jump_requested and contacts.on_one_way and snapshot.is_held("down"):
        drop_started = True
        drop_until = now + seconds_to_ticks(tuning.drop_through_time_s, dt_s)
        standing = False
        jump_requested = False
        last_press = None
        ground_vx, ground_vy = 0.0, 0.0

    # Horizontal frame changes: relative to the ground while standing, world in the air.
    vx = state.vx_px_s
    if state.grounded and not standing:
        vx += momentum * state.ground_velocity_px_s[0]
    elif standing and not state.grounded:
        vx -= ground_vx
    landed = standing and not state.grounded

    last_grounded = now if standing else state.last_grounded_tick
    if drop_started:
        last_grounded = None

    jumped = False
    jump_rising = state.jump_rising
    if standing:
        vy = 0.0
        jump_rising = False
    else:
        vy = max(state.vy_px_s, -tuning.max_fall_speed_px_s)
        if contacts.hit_ceiling and vy > 0:
            vy = 0.0
            jump_rising = False
    can_jump = last_grounded is not None and now - last_grounded <= coyote_ticks
    if jump_requested and can_jump:
        jumped = True
        vx += momentum * ground_vx  # ground-relative -> world, keeping platform momentum
        vy = tuning.jump_velocity_px_s + momentum * ground_vy
        standing = False
        jump_rising = True
        last_grounded = None
        last_press = None
        ground_vx, ground_vy = 0.0, 0.0

    # Variable jump height: cut once, on the first tick jump is not held while rising.
    if jump_rising and (vy <= 0 or not jump_held):
        if vy > 0:
            vy *= tuning.jump_cut_factor
        jump_rising = False

    if standing:
        vy_end = 0.0
    else:
        vy_end = max(vy - _gravity(vy, jump_held, tuning) * dt_s, -tuning.max_fall_speed_px_s)

    vx_end = _horizontal(vx, direction, standing, tuning, dt_s)
    if (contacts.wall_right and vx_end > 0) or (contacts.wall_left and vx_end < 0):
        vx = vx_end = 0.0

    facing = direction if direction != 0 else state.facing
    new_state = PlayerState(
        tick=now,
        vx_px_s=vx_end,
        vy_px_s=vy_end,
        grounded=standing,
        ground_velocity_px_s=(ground_vx, ground_vy),
        facing=facing,
        last_grounded_tick=last_grounded,
        last_jump_press_tick=last_press,
        jump_rising=jump_rising,
        drop_through_until_tick=drop_until,
    )
    velocity = ((vx + vx_end) / 2 + ground_vx, (vy + vy_end) / 2 + ground_vy)
    return new_state, MotorOutput(
        velocity_px_s=velocity,
        jumped=jumped,
        landed=landed,
        drop_started=drop_started,
        facing=facing,
        drop_through_active=new_state.drop_through_active,
    )
