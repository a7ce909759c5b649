"""Tests for PhysicsWorld's bulk snapshot: batch rows matched to world rows by body id (no GL).

The snapshot reads every body of the space with ``pymunk.batch.get_space_bodies``, in the space's
own order. These tests build spaces whose order differs from the world's row order (bodies added
to the space directly, removals, sleeping bodies, kinematic and static bodies) and check every
row against pymunk's per-body getters, bit for bit.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pymunk
import pymunk.batch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.physics.world as world_module
from engine.physics.world import PhysicsWorld

DT_S = 1.0 / 60.0
GRAVITY_PX_S2 = (0.0, -900.0)


def box(x_px: float, y_px: float, **kwargs: float) -> tuple[pymunk.Body, pymunk.Shape]:
    body = pymunk.Body(1.0, pymunk.moment_for_box(1.0, (10, 10)))
    body.position = (x_px, y_px)
    body.velocity = (kwargs.get("vx", 0.0), kwargs.get("vy", 0.0))
    body.angular_velocity = kwargs.get("spin", 0.0)
    shape = pymunk.Poly.create_box(body, (10, 10))
    shape.friction = 0.8
    return body, shape


def getter_states(bodies: tuple[pymunk.Body, ...]) -> np.ndarray:
    """The world's rows as pymunk's per-body getters see them, ``(n, 6)``."""
    return np.array(
        [
            (b.position.x, b.position.y, b.angle, b.velocity.x, b.velocity.y, b.angular_velocity)
            for b in bodies
        ],
        dtype=np.float64,
    ).reshape(-1, 6)


def assert_snapshot_is_live(world: PhysicsWorld) -> None:
    """current and velocity equal the live bodies bit for bit, row by row."""
    snapshot = np.concatenate((world.current, world.velocity), axis=1)
    live = getter_states(world.bodies)
    assert snapshot.tobytes() == live.tobytes()


def space_order(space: pymunk.Space) -> list[int]:
    """Body ids in the order the batch reads them."""
    buffer = pymunk.batch.Buffer()
    pymunk.batch.get_space_bodies(space, pymunk.batch.BodyFields.BODY_ID, buffer)
    return np.frombuffer(buffer.int_buf(), dtype=np.uintp).tolist()


def registered_order_in_space(world: PhysicsWorld) -> list[int]:
    """The registered ids in the space's order (equal to row order only if nothing reordered)."""
    registered = {body.id for body in world.bodies}
    return [body_id for body_id in space_order(world.space) if body_id in registered]


def test_bodies_added_to_the_space_directly_are_skipped() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    for i in range(6):
        body, shape = box(20.0 * i, 0.0, vx=10.0 * i, spin=0.1 * i)
        if i % 2:
            world.space.add(body, shape)  # simulated, never drawn: not a row
        else:
            world.add(body, shape, sprite=f"s{i}")
    static = pymunk.Body(body_type=pymunk.Body.STATIC)
    world.space.add(static, pymunk.Segment(static, (-100, -50), (200, -50), 1))
    world.step(DT_S)
    assert len(world) == 3
    assert len(space_order(world.space)) > 3
    assert_snapshot_is_live(world)
    world.step(DT_S)
    assert_snapshot_is_live(world)


def test_removal_reorders_the_space_but_not_the_rows() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    bodies = []
    for i in range(8):
        body, shape = box(30.0 * i, 100.0, vx=5.0 * i, vy=-3.0 * i, spin=0.2 * i)
        world.add(body, shape)
        bodies.append(body)
    world.step(DT_S)
    world.remove(bodies[2])  # chipmunk moves the last body into the freed place
    world.remove(bodies[5])
    ids_in_rows = [body.id for body in world.bodies]
    assert registered_order_in_space(world) != ids_in_rows  # the space did reorder
    for _ in range(3):
        world.step(DT_S)
        assert_snapshot_is_live(world)
    assert [body.id for body in world.bodies] == ids_in_rows


def test_sleeping_and_waking_bodies_keep_their_rows() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    world.space.sleep_time_threshold = 0.2
    floor = pymunk.Segment(world.space.static_body, (-200, 0), (400, 0), 2)
    floor.friction = 1.0
    world.space.add(floor)
    resting = [box(25.0 * i, 7.0) for i in range(5)]
    flyer = box(100.0, 3000.0, vx=60.0, spin=1.5)
    world.add(*resting[0], sprite="r0")
    world.add(*flyer, sprite="flyer")  # far above the floor: stays awake while falling
    for body, shape in resting[1:]:
        world.add(body, shape)
    for _ in range(90):  # the resting boxes fall asleep; the flyer is still falling
        world.step(DT_S)
        assert_snapshot_is_live(world)
    assert all(body.is_sleeping for body, _ in resting)
    assert not flyer[0].is_sleeping
    assert registered_order_in_space(world) != [body.id for body in world.bodies]

    resting[2][0].activate()  # wake one: the space moves it back among the awake bodies
    resting[2][0].apply_impulse_at_local_point((0.0, 300.0))
    for _ in range(5):
        world.step(DT_S)
        assert_snapshot_is_live(world)
    assert world.current[world.row_of(resting[2][0]), 1] > 7.0


def test_kinematic_bodies_registered_or_not() -> None:
    world = PhysicsWorld((0.0, 0.0))
    platform = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    platform.position = (0.0, 0.0)
    platform.velocity = (120.0, 30.0)
    platform.angular_velocity = 0.5
    stray = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
    stray.velocity = (-50.0, 0.0)
    world.space.add(stray)
    player, player_shape = box(10.0, 50.0, vx=-20.0)
    world.add(player, player_shape)
    world.add(platform, pymunk.Poly.create_box(platform, (80, 10)))
    for tick in range(1, 4):
        world.step(DT_S)
        assert_snapshot_is_live(world)
        row = world.row_of(platform)
        assert world.current[row, 0] == pytest.approx(120.0 * DT_S * tick)
        assert world.velocity[row].tolist() == [120.0, 30.0, 0.5]


def test_a_body_removed_from_the_space_behind_the_worlds_back_is_still_read() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    kept, kept_shape = box(0.0, 0.0, vx=10.0)
    gone, gone_shape = box(50.0, 0.0, vx=20.0)
    world.add(kept, kept_shape)
    world.add(gone, gone_shape)
    world.space.remove(gone, gone_shape)  # not world.remove: the row stays
    gone.position = (70.0, 5.0)
    world.step(DT_S)
    assert_snapshot_is_live(world)
    assert world.current[1, :2].tolist() == [70.0, 5.0]  # not simulated any more, but read


def test_step_reads_no_body_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    world = PhysicsWorld(GRAVITY_PX_S2)
    for i in range(20):
        world.add(*box(15.0 * i, 0.0, vx=1.0 * i))
    world.space.add(*box(500.0, 0.0))  # an unregistered body in the batch as well

    def per_body_read(bodies: object) -> np.ndarray:
        raise AssertionError("the per-tick snapshot must not use the per-body getters")

    monkeypatch.setattr(world_module, "_read_body_states", per_body_read)
    for _ in range(3):
        world.step(DT_S)
    world.state_hash()
    monkeypatch.undo()
    assert_snapshot_is_live(world)


def legacy_hash(world: PhysicsWorld) -> str:
    """The state hash as it was defined before the bulk snapshot: live bodies read one by one."""
    n = len(world)
    digest = hashlib.blake2b(digest_size=16)
    digest.update(np.array([world.tick_count, n], dtype=np.int64).tobytes())
    digest.update(world.handles.tobytes())
    digest.update(getter_states(world.bodies).tobytes())
    for array in (world.previous, world.current, world.velocity):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def test_hash_bytes_equal_the_live_read_hash_when_nothing_changed_since_the_step() -> None:
    world = PhysicsWorld(GRAVITY_PX_S2, substeps=2)
    floor = pymunk.Segment(world.space.static_body, (-300, 0), (300, 0), 2)
    world.space.add(floor)
    bodies = []
    for i in range(10):
        body, shape = box(22.0 * i - 100.0, 20.0 + 13.0 * i, spin=0.3 * i)
        body.angle = 0.2 * i
        world.add(body, shape, sprite=i)
        bodies.append(body)
    assert world.state_hash() == legacy_hash(world)
    for tick in range(40):
        world.step(DT_S)
        if tick == 10:
            world.remove(bodies[3])
        if tick == 20:
            world.teleport(bodies[7], 0.0, 200.0, angle_rad=3.0)
        assert world.state_hash() == legacy_hash(world)


# A random history of world operations; after every step the snapshot must equal the bodies.
_OPERATIONS = st.lists(
    st.sampled_from(["add", "add_unregistered", "add_kinematic", "remove", "step", "sleep"]),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(operations=_OPERATIONS, seed=st.integers(0, 2**16))
def test_any_history_of_adds_removes_and_sleeps_keeps_rows_exact(
    operations: list[str], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    world = PhysicsWorld(GRAVITY_PX_S2)
    world.space.sleep_time_threshold = 0.05
    world.space.add(pymunk.Segment(world.space.static_body, (-1000, 0), (1000, 0), 2))
    for operation in operations:
        x_px, y_px = rng.uniform(-500.0, 500.0), rng.uniform(6.0, 300.0)
        if operation == "add":
            world.add(*box(x_px, y_px, vx=rng.uniform(-50, 50), spin=rng.uniform(-2, 2)))
        elif operation == "add_unregistered":
            world.space.add(*box(x_px, y_px))
        elif operation == "add_kinematic":
            body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
            body.position = (x_px, y_px)
            body.velocity = (rng.uniform(-50, 50), 0.0)
            world.add(body, pymunk.Poly.create_box(body, (30, 5)))
        elif operation == "remove" and len(world):
            world.remove(world.bodies[int(rng.integers(len(world)))])
        elif operation == "sleep":
            for _ in range(10):
                world.step(DT_S)
        world.step(DT_S)
        assert_snapshot_is_live(world)
