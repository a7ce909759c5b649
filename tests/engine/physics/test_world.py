"""Tests for engine.physics.world: fixed-step snapshots and render interpolation (no GL)."""

from __future__ import annotations

import math

import numpy as np
import pymunk
import pytest

from engine.physics.world import PhysicsWorld

DT_S = 1.0 / 60.0
GRAVITY_PX_S2 = (0.0, -900.0)


def make_body(
    x_px: float,
    y_px: float,
    *,
    velocity_px_s: tuple[float, float] = (0.0, 0.0),
    angle_rad: float = 0.0,
    spin_rad_s: float = 0.0,
    kinematic: bool = False,
) -> pymunk.Body:
    body_type = pymunk.Body.KINEMATIC if kinematic else pymunk.Body.DYNAMIC
    body = pymunk.Body(mass=1.0, moment=10.0, body_type=body_type)
    body.position = (x_px, y_px)
    body.velocity = velocity_px_s
    body.angle = angle_rad
    body.angular_velocity = spin_rad_s
    return body


def build_scene(world: PhysicsWorld, n_boxes: int = 6) -> list[pymunk.Body]:
    """Boxes falling onto a static floor: collisions make determinism non-trivial."""
    floor = pymunk.Segment(world.space.static_body, (-500, 0), (500, 0), 2)
    floor.friction = 0.8
    world.space.add(floor)
    bodies = []
    for i in range(n_boxes):
        body = pymunk.Body(mass=1.0, moment=pymunk.moment_for_box(1.0, (20, 20)))
        body.position = (i * 13.0 - 30.0, 40.0 + i * 25.0)
        body.angle = 0.1 * i
        shape = pymunk.Poly.create_box(body, (20, 20))
        shape.friction = 0.6
        world.add(body, shape, sprite=f"sprite-{i}")
        bodies.append(body)
    return bodies


def run_hashes(n_ticks: int, kick_px_s: float = 0.0) -> list[str]:
    world = PhysicsWorld(GRAVITY_PX_S2, substeps=2, iterations=15)
    bodies = build_scene(world)
    bodies[0].velocity = (kick_px_s, 0.0)
    hashes = []
    for _ in range(n_ticks):
        world.step(DT_S)
        hashes.append(world.state_hash())
    return hashes


# ------------------------------------------------------------------ determinism


def test_same_inputs_give_the_same_hash_every_tick() -> None:
    first = run_hashes(120)
    second = run_hashes(120)
    assert first == second
    assert len(set(first)) == len(first)  # the state (and tick count) changes every tick


def test_different_inputs_give_a_different_hash() -> None:
    assert run_hashes(30)[-1] != run_hashes(30, kick_px_s=50.0)[-1]


def test_step_splits_the_tick_into_substeps() -> None:
    seen_dt_s: list[float] = []
    world = PhysicsWorld(GRAVITY_PX_S2, substeps=4)
    original_step = world.space.step

    def recording_step(dt_s: float) -> None:
        seen_dt_s.append(dt_s)
        original_step(dt_s)

    world.space.step = recording_step  # type: ignore[method-assign]
    world.step(DT_S)
    assert seen_dt_s == [DT_S / 4] * 4
    assert world.tick_count == 1
    assert world.last_dt_s == DT_S


@pytest.mark.parametrize("bad_dt_s", [0.0, -DT_S, math.inf, math.nan])
def test_step_rejects_non_positive_or_non_finite_dt(bad_dt_s: float) -> None:
    with pytest.raises(ValueError, match="dt_s"):
        PhysicsWorld(GRAVITY_PX_S2).step(bad_dt_s)


# ----------------------------------------------------------------- membership


def test_spawn_during_a_tick_appears_at_spawn_pose_at_alpha_0_and_1() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    world.add(make_body(0.0, 0.0, velocity_px_s=(60.0, 0.0)), sprite="mover")
    world.step(DT_S)
    spawned = make_body(250.0, 80.0, velocity_px_s=(300.0, 120.0), angle_rad=0.75)

    def spawn(space: pymunk.Space, key: str) -> None:  # runs inside space.step, last
        world.add(spawned, pymunk.Circle(spawned, 4), sprite="bullet")

    world.space.add_post_step_callback(spawn, "spawn")
    world.step(DT_S)

    row = world.row_of(spawned)
    spawn_pose = [250.0, 80.0, 0.75]
    for alpha in (0.0, 0.5, 1.0):
        assert world.interpolated_poses(alpha)[row].tolist() == spawn_pose
    np.testing.assert_array_equal(world.previous[row], spawn_pose)


def test_spawn_between_ticks_starts_from_spawn_pose_not_the_origin() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    body = make_body(400.0, 300.0, velocity_px_s=(120.0, 0.0))
    world.add(body, sprite="enemy")
    assert world.interpolated_poses(0.0)[0].tolist() == [400.0, 300.0, 0.0]
    assert world.interpolated_poses(1.0)[0].tolist() == [400.0, 300.0, 0.0]
    world.step(DT_S)
    # Interpolates from the spawn pose to where the first step moved it.
    assert world.interpolated_poses(0.0)[0].tolist() == [400.0, 300.0, 0.0]
    assert world.interpolated_poses(1.0)[0, 0] == pytest.approx(400.0 + 120.0 * DT_S)


def test_remove_drops_the_row_at_that_tick_and_keeps_order() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    bodies = [make_body(10.0 * i, 0.0) for i in range(5)]
    handles = [world.add(body, sprite=f"s{i}") for i, body in enumerate(bodies)]
    world.step(DT_S)
    version = world.membership_version

    world.remove(bodies[1])

    assert len(world) == 4
    assert bodies[1] not in world
    assert bodies[1] not in world.space.bodies
    assert world.membership_version == version + 1
    assert world.sprites == ("s0", "s2", "s3", "s4")  # stable compaction
    assert world.handles.tolist() == [handles[0], handles[2], handles[3], handles[4]]
    assert [world.row_of(b) for b in (bodies[0], bodies[2], bodies[3], bodies[4])] == [0, 1, 2, 3]
    assert world.interpolated_poses(1.0)[:, 0].tolist() == [0.0, 20.0, 30.0, 40.0]


def test_remove_inside_a_collision_callback_disappears_that_tick() -> None:
    world = PhysicsWorld((0.0, 0.0))
    keep, doomed = make_body(0.0, 0.0), make_body(3.0, 0.0)
    keep_shape, doomed_shape = pymunk.Circle(keep, 5), pymunk.Circle(doomed, 5)
    keep_shape.collision_type, doomed_shape.collision_type = 1, 2
    world.add(keep, keep_shape, sprite="keep")
    world.add(doomed, doomed_shape, sprite="doomed")

    def on_touch(arbiter: pymunk.Arbiter, space: pymunk.Space, data: dict) -> bool:
        world.remove(doomed)  # the space is locked here; pymunk defers the removal
        return False

    world.space.add_collision_handler(1, 2).begin = on_touch
    world.step(DT_S)
    assert world.sprites == ("keep",)
    assert world.interpolated_poses(0.5).shape == (1, 3)
    assert doomed not in world.space.bodies
    assert doomed_shape not in world.space.shapes


def test_add_twice_and_remove_unknown_raise() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    body = make_body(0.0, 0.0)
    world.add(body)
    with pytest.raises(ValueError, match="already registered"):
        world.add(body)
    with pytest.raises(KeyError):
        world.remove(make_body(1.0, 1.0))


def test_rows_grow_past_initial_capacity() -> None:
    world = PhysicsWorld((0.0, 0.0))
    bodies = [make_body(float(i), 0.0, velocity_px_s=(60.0, 0.0)) for i in range(200)]
    for body in bodies:
        world.add(body)
    world.step(DT_S)
    np.testing.assert_allclose(world.current[:, 0], np.arange(200) + 1.0)
    np.testing.assert_array_equal(world.previous[:, 0], np.arange(200.0))


def test_teleport_resets_interpolation() -> None:
    world = PhysicsWorld((0.0, 0.0))
    body = make_body(0.0, 0.0, velocity_px_s=(600.0, 0.0))
    world.add(body, sprite="player")
    world.step(DT_S)
    world.step(DT_S)
    world.teleport(body, 1000.0, 500.0, angle_rad=1.25)
    pose = [1000.0, 500.0, 1.25]
    for alpha in (0.0, 0.3, 1.0):
        assert world.interpolated_poses(alpha)[0].tolist() == pose
    world.step(DT_S)  # the next tick slides from the teleport pose, not from before it
    assert world.previous[0].tolist() == pose
    assert world.current[0, 0] == pytest.approx(1000.0 + 600.0 * DT_S)


# --------------------------------------------------------------- interpolation


def moving_world() -> tuple[PhysicsWorld, list[pymunk.Body]]:
    world = PhysicsWorld((0.0, 0.0))
    bodies = [
        make_body(0.0, 0.0, velocity_px_s=(600.0, -300.0), spin_rad_s=6.0, kinematic=True),
        make_body(13.7, -4.1, velocity_px_s=(-123.4, 56.7), angle_rad=2.0, spin_rad_s=-1.5),
    ]
    for body in bodies:
        world.add(body)
    world.step(DT_S)
    return world, bodies


def test_interpolation_is_exact_at_alpha_0_half_and_1() -> None:
    world, _ = moving_world()
    previous, current = world.previous.copy(), world.current.copy()
    assert not np.array_equal(previous, current)
    np.testing.assert_array_equal(world.interpolated_poses(0.0), previous)
    np.testing.assert_array_equal(world.interpolated_poses(1.0), current)
    np.testing.assert_array_equal(world.interpolated_poses(0.5), (previous + current) / 2)
    assert world.interpolated_poses(0.5)[0].tolist() == pytest.approx([5.0, -2.5, 0.05])


def test_interpolation_with_no_bodies_is_empty() -> None:
    assert PhysicsWorld(GRAVITY_PX_S2).interpolated_poses(0.5).shape == (0, 3)


@pytest.mark.parametrize(("from_rad", "to_rad"), [(3.0, -3.0), (-3.0, 3.0)])
def test_angle_interpolates_along_the_shortest_arc_across_pi(
    from_rad: float, to_rad: float
) -> None:
    world = PhysicsWorld((0.0, 0.0))
    body = make_body(0.0, 0.0, angle_rad=from_rad)
    world.add(body)
    world.step(DT_S)
    body.angle = to_rad  # game code sets the angle by hand, crossing the +-pi seam
    world.step(DT_S)

    def wrapped(angle_rad: float) -> float:
        return (angle_rad + math.pi) % (2 * math.pi) - math.pi

    halfway_rad = world.interpolated_poses(0.5)[0, 2]
    assert abs(wrapped(halfway_rad - math.pi)) < 1e-12  # through pi, not through 0
    quarter_rad = world.interpolated_poses(0.25)[0, 2]
    step_rad = 2 * math.pi - 6.0
    expected_quarter = from_rad + math.copysign(step_rad / 4, from_rad)
    assert wrapped(quarter_rad - expected_quarter) == pytest.approx(0.0, abs=1e-12)
    assert world.interpolated_poses(1.0)[0, 2] == to_rad  # exactly the current angle
    assert wrapped(world.interpolated_poses(0.0)[0, 2] - from_rad) == pytest.approx(0.0, abs=1e-12)


def test_continuous_spin_over_many_turns_is_not_wrapped() -> None:
    world = PhysicsWorld((0.0, 0.0))
    body = make_body(0.0, 0.0, angle_rad=100.0, spin_rad_s=3.0, kinematic=True)
    world.add(body)
    world.step(DT_S)
    assert world.previous[0, 2] == 100.0
    assert world.interpolated_poses(0.5)[0, 2] == pytest.approx(100.0 + 1.5 * DT_S)


def test_extrapolation_is_current_plus_velocity_times_alpha_step() -> None:
    world, bodies = moving_world()
    alpha = 0.4
    expected = np.array(
        [
            [
                b.position.x + b.velocity.x * alpha * DT_S,
                b.position.y + b.velocity.y * alpha * DT_S,
                b.angle + b.angular_velocity * alpha * DT_S,
            ]
            for b in bodies
        ]
    )
    np.testing.assert_allclose(
        world.interpolated_poses(alpha, mode="extrapolate"), expected, rtol=0, atol=1e-12
    )
    np.testing.assert_array_equal(world.interpolated_poses(0.0, "extrapolate"), world.current)


@pytest.mark.parametrize("alpha", [-0.01, 1.01, math.nan])
def test_alpha_outside_unit_interval_is_rejected(alpha: float) -> None:
    world, _ = moving_world()
    with pytest.raises(ValueError, match="alpha"):
        world.interpolated_poses(alpha)


def test_unknown_mode_is_rejected() -> None:
    world, _ = moving_world()
    with pytest.raises(ValueError, match="mode"):
        world.interpolated_poses(0.5, mode="predict")  # type: ignore[arg-type]


# --------------------------------------------------------------- no mutation


def test_render_queries_do_not_change_state() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    build_scene(world)
    for _ in range(10):
        world.step(DT_S)
    before = world.state_hash()
    snapshots = (world.previous.copy(), world.current.copy(), world.velocity.copy())

    for alpha in (0.0, 0.25, 0.5, 1.0):
        poses = world.interpolated_poses(alpha)
        poses += 1000.0  # the result is the caller's own array
        world.interpolated_poses(alpha, mode="extrapolate")
    world.state_hash()

    assert world.state_hash() == before
    for snapshot, live in zip(
        snapshots, (world.previous, world.current, world.velocity), strict=True
    ):
        np.testing.assert_array_equal(snapshot, live)


def test_snapshot_views_are_read_only() -> None:
    world, _ = moving_world()
    for view in (world.previous, world.current, world.velocity):
        with pytest.raises(ValueError, match="read-only"):
            view[0, 0] = 1.0


def test_hash_sees_a_change_to_a_body() -> None:
    """The hash covers the snapshot: a direct change to a body shows once a step has read it."""
    world, bodies = moving_world()
    twin, _ = moving_world()
    assert world.state_hash() == twin.state_hash()
    bodies[1].velocity = (0.0, 0.0)
    assert world.state_hash() == twin.state_hash()  # the hash reads no body
    world.step(DT_S)
    twin.step(DT_S)
    assert world.state_hash() != twin.state_hash()


def test_hash_sees_a_teleport_at_once() -> None:
    world, bodies = moving_world()
    before = world.state_hash()
    world.teleport(bodies[1], 5.0, 5.0)
    assert world.state_hash() != before
