"""Tests for game.movement: the player motor, driven tick by tick with scripted input.

The "world" here is a few lines: a body at ``(x, y)`` moved by the motor's output
velocity with ``position += velocity * dt`` (what pymunk does for a body whose
velocity the game sets), and a ground plane at ``y = 0`` under ``x < ledge_x``.
"""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine.config import defaults_toml, load_config
from engine.input.snapshot import ActionMap, InputSnapshot
from game.movement import (
    Contacts,
    MotorOutput,
    PlayerState,
    PlayerTuning,
    seconds_to_ticks,
    step,
)

ACTIONS = ActionMap(("left", "right", "up", "down", "jump"))
TUNING = PlayerTuning()
DT_60 = 1 / 60
DT_120 = 1 / 120


# ---------------------------------------------------------------------------------------------
# Helpers: scripted input and a tiny world
# ---------------------------------------------------------------------------------------------


def snap(held: Sequence[str] = (), pressed: Sequence[str] = ()) -> InputSnapshot:
    """A snapshot; every pressed action is also held unless it is listed as a tap."""
    return InputSnapshot(ACTIONS, ACTIONS.mask({*held, *pressed}), ACTIONS.mask(pressed))


def tap(action: str) -> InputSnapshot:
    """A press and release between two ticks: pressed and released, not held."""
    return InputSnapshot(ACTIONS, 0, ACTIONS.mask([action]), ACTIONS.mask([action]))


class Script:
    """Per-tick input from a list of (held, pressed) edges built with press/hold helpers."""

    def __init__(self) -> None:
        self.held: dict[int, set[str]] = {}
        self.pressed: dict[int, set[str]] = {}

    def hold(self, action: str, first: int, last: int) -> Script:
        """Hold ``action`` from tick ``first`` to ``last`` inclusive, pressed on ``first``."""
        self.pressed.setdefault(first, set()).add(action)
        for tick in range(first, last + 1):
            self.held.setdefault(tick, set()).add(action)
        return self

    def __call__(self, tick: int) -> InputSnapshot:
        held = self.held.get(tick, set())
        pressed = self.pressed.get(tick, set())
        released = self.held.get(tick - 1, set()) - held
        return InputSnapshot(
            ACTIONS, ACTIONS.mask(held), ACTIONS.mask(pressed), ACTIONS.mask(released)
        )


@dataclass
class World:
    """A body above a ground plane at y = 0 that ends at ``ledge_x`` (open air beyond)."""

    x: float = 0.0
    y: float = 0.0
    ledge_x: float = math.inf
    ground_velocity_px_s: tuple[float, float] = (0.0, 0.0)
    on_one_way: bool = False
    state: PlayerState = field(default_factory=PlayerState)
    outputs: list[MotorOutput] = field(default_factory=list)
    states: list[PlayerState] = field(default_factory=list)
    heights: list[float] = field(default_factory=list)

    def contacts(self) -> Contacts:
        grounded = self.y <= 0 and self.x < self.ledge_x
        return Contacts(
            grounded=grounded,
            ground_velocity_px_s=self.ground_velocity_px_s if grounded else (0.0, 0.0),
            on_one_way=grounded and self.on_one_way,
        )

    def tick(self, snapshot: InputSnapshot, tuning: PlayerTuning, dt_s: float) -> MotorOutput:
        self.state, out = step(self.state, snapshot, self.contacts(), tuning, dt_s)
        vx, vy = out.velocity_px_s
        self.x += vx * dt_s
        self.y += vy * dt_s
        if self.y < 0 and self.x < self.ledge_x:
            self.y = 0.0  # the ground stops the fall
        self.outputs.append(out)
        self.states.append(self.state)
        self.heights.append(self.y)
        return out

    def run(
        self,
        script: Callable[[int], InputSnapshot],
        ticks: int,
        tuning: PlayerTuning = TUNING,
        dt_s: float = DT_60,
    ) -> World:
        """Run ticks 1..ticks (tick numbers match PlayerState.tick)."""
        for tick in range(1, ticks + 1):
            self.tick(script(tick), tuning, dt_s)
        return self


def idle(_tick: int) -> InputSnapshot:
    return snap()


def jumped_ticks(world: World) -> list[int]:
    return [s.tick for s, o in zip(world.states, world.outputs, strict=True) if o.jumped]


def settled(dt_s: float = DT_60) -> World:
    """A world where the player has stood on the ground for a few ticks."""
    world = World()
    world.run(idle, 3, dt_s=dt_s)
    assert world.state.grounded
    return world


# ---------------------------------------------------------------------------------------------
# Tuning and config
# ---------------------------------------------------------------------------------------------


def test_derived_jump_physics_follow_the_classic_formulas() -> None:
    h = TUNING.jump_height_tiles * TUNING.tile_px
    t = TUNING.jump_time_to_apex_s
    assert TUNING.jump_height_px == h
    assert TUNING.gravity_px_s2 == pytest.approx(2 * h / t**2)
    assert TUNING.jump_velocity_px_s == pytest.approx(2 * h / t)


def test_tuning_loads_as_a_config_section() -> None:
    config = load_config(
        None, ["player.jump_height_tiles=4", "player.coyote_time_s=0.05"], {"player": PlayerTuning}
    )
    tuning = config.section("player", PlayerTuning)
    assert tuning.jump_height_tiles == 4
    assert tuning.coyote_time_s == 0.05
    assert "[player]" in defaults_toml({"player": PlayerTuning})


def test_tuning_is_frozen_and_slotted() -> None:
    assert not hasattr(TUNING, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        TUNING.run_speed_px_s = 1.0  # type: ignore[misc]


def test_seconds_to_ticks_rounds_to_the_nearest_tick() -> None:
    assert seconds_to_ticks(0.1, DT_60) == 6
    assert seconds_to_ticks(0.1, DT_120) == 12
    assert seconds_to_ticks(0.25, DT_60) == 15
    assert seconds_to_ticks(0.0, DT_60) == 0
    assert seconds_to_ticks(0.09, DT_60) == 5  # 5.4 ticks
    assert seconds_to_ticks(0.095, DT_60) == 6  # 5.7 ticks


def test_module_is_pure() -> None:
    source = Path(__file__).resolve().parents[2] / "game" / "movement.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported.isdisjoint({"arcade", "pyglet", "pymunk", "numpy", "time"})


# ---------------------------------------------------------------------------------------------
# Coyote time and jump buffering
# ---------------------------------------------------------------------------------------------


def run_off_ledge_and_jump(delay_s: float, dt_s: float) -> tuple[World, int]:
    """Run right off a ledge; press jump ``delay_s`` after the first airborne tick's start.

    Returns the world and the tick of the press.
    """
    world = World(ledge_x=40.0)
    script = Script().hold("right", 1, 10_000)
    tick = 0
    while world.state.grounded or tick < 3:
        tick += 1
        world.tick(script(tick), TUNING, dt_s)
    last_grounded = tick - 1
    press = last_grounded + round(delay_s / dt_s)
    script.hold("jump", press, press + 30)
    for t in range(tick + 1, press + 40):
        world.tick(script(t), TUNING, dt_s)
    return world, press


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_coyote_time_jump_shortly_after_leaving_a_ledge(dt_s: float) -> None:
    world, press = run_off_ledge_and_jump(0.08, dt_s)
    assert jumped_ticks(world) == [press]
    before = world.heights[press - 2]  # heights[i] is the height after tick i + 1
    assert before < 0  # it really had left the ledge's height
    assert max(world.heights[press - 1 :]) > before + 50  # and really jumped


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_coyote_time_expires(dt_s: float) -> None:
    world, _press = run_off_ledge_and_jump(0.2, dt_s)
    assert jumped_ticks(world) == []
    assert all(s.vy_px_s <= 0 for s in world.states)


def fall_and_press_before_landing(early_s: float, dt_s: float) -> tuple[World, int, int]:
    """Drop from 200 px; press (and hold) jump ``early_s`` before the landing tick.

    Returns the world, the landing tick (first tick standing) and the press tick.
    """
    probe = World(y=200.0).run(idle, 200, dt_s=dt_s)
    landing = next(s.tick for s in probe.states if s.grounded)
    press = landing - round(early_s / dt_s)
    script = Script().hold("jump", press, landing + 30)
    world = World(y=200.0).run(script, landing + 30, dt_s=dt_s)
    return world, landing, press


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_buffered_jump_happens_on_landing(dt_s: float) -> None:
    world, landing, _press = fall_and_press_before_landing(0.08, dt_s)
    assert jumped_ticks(world) == [landing]
    assert world.outputs[landing - 1].landed


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_jump_pressed_too_early_is_forgotten(dt_s: float) -> None:
    world, landing, _press = fall_and_press_before_landing(0.2, dt_s)
    assert jumped_ticks(world) == []  # holding the button does not re-trigger the jump
    assert world.states[landing - 1].grounded
    assert world.states[-1].last_jump_press_tick is None


def test_a_held_jump_does_not_repeat_on_landing() -> None:
    world = settled()
    script = Script().hold("jump", 5, 200)
    world.run(lambda t: script(t + 3), 150)
    assert len(jumped_ticks(world)) == 1


# ---------------------------------------------------------------------------------------------
# Jump height
# ---------------------------------------------------------------------------------------------


def jump_apex(dt_s: float, hold_ticks: int | None) -> float:
    """Apex height of a jump from the ground; ``None`` holds jump throughout."""
    world = settled(dt_s)
    start = world.state.tick + 1
    last = start + 10_000 if hold_ticks is None else start + hold_ticks - 1
    script = Script().hold("jump", start, last)
    world.run(lambda t: script(t + start - 1), round(2.0 / dt_s), dt_s=dt_s)
    assert len(jumped_ticks(world)) == 1
    return max(world.heights)


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_held_jump_reaches_the_configured_height(dt_s: float) -> None:
    assert jump_apex(dt_s, None) == pytest.approx(TUNING.jump_height_px, rel=0.02)


def test_jump_height_is_the_same_at_60_and_120_hz() -> None:
    assert jump_apex(DT_60, None) == pytest.approx(jump_apex(DT_120, None), rel=0.02)


def test_short_tap_gives_a_clearly_lower_jump() -> None:
    full = jump_apex(DT_60, None)
    one_tick = jump_apex(DT_60, 1)
    short_hold = jump_apex(DT_60, 6)
    assert one_tick < 0.4 * full
    assert one_tick < short_hold < full


def test_tap_between_ticks_still_jumps_and_is_cut() -> None:
    world = settled()
    out = world.tick(tap("jump"), TUNING, DT_60)
    assert out.jumped
    assert world.state.vy_px_s < TUNING.jump_velocity_px_s * TUNING.jump_cut_factor
    world.run(idle, 60)
    assert max(world.heights) < 0.4 * TUNING.jump_height_px


def test_apex_hang_slows_gravity_near_the_top_while_jump_is_held() -> None:
    held = settled()
    released = settled()
    script = Script().hold("jump", 1, 1000)
    # Hold until just before the apex, then compare one tick with and without jump held.
    for tick in range(1, 200):
        held.tick(script(tick), TUNING, DT_60)
        if 0 < held.state.vy_px_s < TUNING.apex_hang_speed_px_s:
            break
    released.state = dataclasses.replace(held.state, jump_rising=False)
    vy = held.state.vy_px_s
    held.tick(snap(held=["jump"]), TUNING, DT_60)
    released.tick(snap(), TUNING, DT_60)
    g = TUNING.gravity_px_s2
    assert vy - held.state.vy_px_s == pytest.approx(g * TUNING.apex_hang_gravity_multiplier * DT_60)
    assert vy - released.state.vy_px_s == pytest.approx(g * DT_60)


def test_ceiling_stops_the_rise() -> None:
    world = settled()
    state, _ = step(world.state, snap(pressed=["jump"]), Contacts(grounded=True), TUNING, DT_60)
    assert state.vy_px_s > 0
    state, out = step(state, snap(held=["jump"]), Contacts(hit_ceiling=True), TUNING, DT_60)
    assert out.velocity_px_s[1] < 0
    assert state.vy_px_s < 0


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def ticks_to_full_speed(grounded: bool, dt_s: float = DT_60) -> int:
    state = PlayerState()
    contacts = Contacts(grounded=grounded)
    for tick in range(1, 10_000):
        state, _ = step(state, snap(held=["right"]), contacts, TUNING, dt_s)
        if state.vx_px_s >= TUNING.run_speed_px_s:
            assert state.vx_px_s == TUNING.run_speed_px_s  # never overshoots
            return tick
    raise AssertionError("never reached full speed")


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_reaching_full_run_speed_takes_the_configured_time(dt_s: float) -> None:
    expected = TUNING.ground_accel_time_s / dt_s
    assert abs(ticks_to_full_speed(True, dt_s) - expected) <= 1


def test_air_control_is_weaker() -> None:
    ground = ticks_to_full_speed(True)
    air = ticks_to_full_speed(False)
    expected_air = TUNING.ground_accel_time_s / TUNING.air_control / DT_60
    assert air > ground
    assert abs(air - expected_air) <= 1


def test_stopping_takes_the_configured_deceleration_time() -> None:
    state = PlayerState(vx_px_s=TUNING.run_speed_px_s, grounded=True)
    ticks = 0
    while state.vx_px_s > 0:
        state, _ = step(state, snap(), Contacts(grounded=True), TUNING, DT_60)
        ticks += 1
    assert abs(ticks - TUNING.ground_decel_time_s / DT_60) <= 1


def test_running_left_faces_left_and_walls_stop_the_run() -> None:
    state, out = step(PlayerState(), snap(held=["left"]), Contacts(grounded=True), TUNING, DT_60)
    assert out.facing == -1 and state.facing == -1 and state.vx_px_s < 0
    state, out = step(state, snap(), Contacts(grounded=True), TUNING, DT_60)
    assert state.facing == -1  # facing is kept when no direction is held
    contacts = Contacts(grounded=True, wall_right=True)
    state, out = step(state, snap(held=["right"]), contacts, TUNING, DT_60)
    state, out = step(state, snap(held=["right"]), contacts, TUNING, DT_60)
    assert state.vx_px_s == 0 and out.velocity_px_s[0] == 0


def test_instant_acceleration_when_times_are_zero() -> None:
    tuning = dataclasses.replace(TUNING, ground_accel_time_s=0.0, ground_decel_time_s=0.0)
    state, _ = step(PlayerState(), snap(held=["right"]), Contacts(grounded=True), tuning, DT_60)
    assert state.vx_px_s == tuning.run_speed_px_s
    state, _ = step(state, snap(), Contacts(grounded=True), tuning, DT_60)
    assert state.vx_px_s == 0


# ---------------------------------------------------------------------------------------------
# Falling
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_fall_speed_never_exceeds_the_cap(dt_s: float) -> None:
    world = World(y=100_000.0).run(idle, round(5 / dt_s), dt_s=dt_s)
    cap = TUNING.max_fall_speed_px_s
    assert min(s.vy_px_s for s in world.states) == -cap  # the cap is reached...
    assert all(s.vy_px_s >= -cap for s in world.states)  # ...and never exceeded
    assert all(o.velocity_px_s[1] >= -cap for o in world.outputs)


def test_falling_is_faster_than_rising() -> None:
    state = PlayerState(vy_px_s=-100.0)
    state, _ = step(state, snap(), Contacts(), TUNING, DT_60)
    expected = TUNING.gravity_px_s2 * TUNING.fall_gravity_multiplier * DT_60
    assert -100.0 - state.vy_px_s == pytest.approx(expected)


# ---------------------------------------------------------------------------------------------
# One-way platforms
# ---------------------------------------------------------------------------------------------


def test_down_jump_on_a_one_way_platform_drops_through() -> None:
    world = World(on_one_way=True)
    world.run(idle, 3)
    out = world.tick(snap(held=["down"], pressed=["jump"]), TUNING, DT_60)
    assert out.drop_started
    assert not out.jumped
    active = [out.drop_through_active]
    assert out.drop_through_active
    assert not world.state.grounded
    assert world.state.vy_px_s < 0  # falling, not rising
    window = seconds_to_ticks(TUNING.drop_through_time_s, DT_60)
    assert world.state.drop_through_until_tick == world.state.tick + window
    # While the drop lasts, the one-way platform the feet still touch is ignored.
    active.append(world.tick(snap(held=["down", "jump"]), TUNING, DT_60).drop_through_active)
    for _ in range(window + 5):
        state, out = step(
            world.state, snap(), Contacts(grounded=True, on_one_way=True), TUNING, DT_60
        )
        world.state = state
        active.append(out.drop_through_active)
        if not out.drop_through_active:
            break
    assert active.count(True) == window
    state, _ = step(world.state, snap(), Contacts(grounded=True, on_one_way=True), TUNING, DT_60)
    assert state.grounded  # the platform counts again once the window is over
    assert not any(o.jumped for o in world.outputs)


def test_no_coyote_jump_right_after_dropping_through() -> None:
    world = World(on_one_way=True)
    world.run(idle, 3)
    world.tick(snap(held=["down"], pressed=["jump"]), TUNING, DT_60)
    out = world.tick(snap(pressed=["jump"]), TUNING, DT_60)
    assert not out.jumped


def test_down_jump_on_solid_ground_jumps() -> None:
    world = settled()
    out = world.tick(snap(held=["down"], pressed=["jump"]), TUNING, DT_60)
    assert out.jumped and not out.drop_started


def test_jump_on_a_one_way_platform_without_down_jumps() -> None:
    world = World(on_one_way=True)
    world.run(idle, 3)
    out = world.tick(snap(pressed=["jump"]), TUNING, DT_60)
    assert out.jumped and not out.drop_started and not out.drop_through_active


# ---------------------------------------------------------------------------------------------
# Moving platforms
# ---------------------------------------------------------------------------------------------


def test_standing_on_a_moving_platform_carries_the_player() -> None:
    world = World(ground_velocity_px_s=(120.0, -30.0))
    out = world.run(idle, 5).outputs[-1]
    assert out.velocity_px_s == (120.0, -30.0)
    assert world.state.vx_px_s == 0.0  # own speed is relative to the platform


def test_jumping_off_a_moving_platform_keeps_its_momentum() -> None:
    world = World(ground_velocity_px_s=(120.0, 0.0))
    world.run(idle, 5)
    out = world.tick(snap(pressed=["jump"]), TUNING, DT_60)
    assert out.jumped
    assert out.velocity_px_s[0] == 120.0
    assert world.state.vx_px_s == 120.0
    world.ground_velocity_px_s = (0.0, 0.0)
    world.run(lambda _t: snap(held=["jump"]), 20)
    assert world.state.vx_px_s == 120.0  # letting go of left/right keeps air momentum


def test_running_jump_off_a_moving_platform_adds_the_platform_velocity() -> None:
    world = World(ground_velocity_px_s=(120.0, 0.0))
    world.run(lambda _t: snap(held=["right"]), 30)
    assert world.outputs[-1].velocity_px_s[0] == TUNING.run_speed_px_s + 120.0
    out = world.tick(snap(held=["right"], pressed=["jump"]), TUNING, DT_60)
    assert out.velocity_px_s[0] == TUNING.run_speed_px_s + 120.0
    world.run(lambda _t: snap(held=["right", "jump"]), 10)
    assert world.state.vx_px_s == TUNING.run_speed_px_s + 120.0  # momentum is not braked


def test_platform_momentum_fraction() -> None:
    tuning = dataclasses.replace(TUNING, platform_momentum_fraction=0.5)
    world = World(ground_velocity_px_s=(120.0, 0.0))
    world.run(idle, 5, tuning=tuning)
    out = world.tick(snap(pressed=["jump"]), tuning, DT_60)
    assert out.velocity_px_s[0] == 60.0


def test_landing_on_a_moving_platform_converts_to_its_frame() -> None:
    state = PlayerState(vx_px_s=120.0, vy_px_s=-50.0)
    contacts = Contacts(grounded=True, ground_velocity_px_s=(120.0, 0.0))
    state, out = step(state, snap(), contacts, TUNING, DT_60)
    assert out.landed and state.grounded
    assert state.vx_px_s == 0.0  # moving with the platform already: nothing to brake
    assert out.velocity_px_s == (120.0, 0.0)


# ---------------------------------------------------------------------------------------------
# Determinism and tick rate
# ---------------------------------------------------------------------------------------------


def busy_script() -> Script:
    """A fixed, busy input script: runs, turns, jumps, taps, drops."""
    script = Script()
    script.hold("right", 1, 80).hold("left", 90, 150).hold("right", 170, 400)
    for start, length in [(10, 20), (60, 3), (100, 40), (200, 1), (230, 12), (300, 25)]:
        script.hold("jump", start, start + length - 1)
    script.hold("down", 360, 380).hold("jump", 365, 367)
    return script


def run_busy(dt_s: float) -> tuple[list[PlayerState], list[MotorOutput]]:
    world = World(ledge_x=2500.0, ground_velocity_px_s=(35.0, 0.0), on_one_way=True)
    world.run(busy_script(), 450, dt_s=dt_s)
    return world.states, world.outputs


def as_bits(states: Sequence[object]) -> list[str]:
    """Exact text of each dataclass: repr of floats round-trips every bit."""
    return [repr(dataclasses.astuple(s)) for s in states]  # type: ignore[call-overload]


@pytest.mark.parametrize("dt_s", [DT_60, DT_120])
def test_same_input_gives_bit_identical_states(dt_s: float) -> None:
    states_a, outputs_a = run_busy(dt_s)
    states_b, outputs_b = run_busy(dt_s)
    assert as_bits(states_a) == as_bits(states_b)
    assert as_bits(outputs_a) == as_bits(outputs_b)
    assert any(o.jumped for o in outputs_a)
    assert any(o.drop_started for o in outputs_a)
    assert any(o.landed for o in outputs_a)


def test_step_does_not_depend_on_call_history() -> None:
    """Replaying one recorded (state, input, contacts) gives the same result each time."""
    state = PlayerState(tick=7, vx_px_s=10.0, vy_px_s=55.5, jump_rising=True)
    results = {
        repr(step(state, snap(held=["jump", "left"]), Contacts(), TUNING, DT_60)) for _ in range(3)
    }
    assert len(results) == 1
