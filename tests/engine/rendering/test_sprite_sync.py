"""Tests for engine.rendering.sprite_sync: bulk writes into arcade SpriteLists (needs the GL window)."""

from __future__ import annotations

import math
from typing import Any

import arcade
import numpy as np
import pymunk
import pytest

from engine.physics.world import PhysicsWorld
from engine.rendering.sprite_sync import (
    TESTED_ARCADE_VERSION,
    ArcadeInternalsError,
    SpriteSync,
    TrackedSpriteList,
    arcade_angle_deg,
    check_sprite_list_internals,
)

pytestmark = pytest.mark.gl

DT_S = 1.0 / 60.0


def slot_records(sprite_list: arcade.SpriteList[Any]) -> np.ndarray:
    """``(len, 3)`` float32 ``x, y, angle_deg`` per sprite, in list order, from arcade's array."""
    records = np.array(sprite_list._sprite_pos_angle_data, dtype=np.float32).reshape(-1, 4)
    slots = [sprite_list.sprite_slot[sprite] for sprite in sprite_list]
    return records[slots][:, [0, 1, 3]]


class Scene:
    """A world whose sprites live in a bulk list, mirrored by a setter-driven reference list."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.world = PhysicsWorld((0.0, -900.0))
        self.bulk_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList()
        self.reference_list: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.twin: dict[arcade.Sprite, arcade.Sprite] = {}  # bulk sprite -> reference sprite
        self.body_of: dict[arcade.Sprite, pymunk.Body] = {}
        self.sync = SpriteSync(self.world, self.bulk_list)

    def spawn(self, index: int | None = None) -> arcade.Sprite:
        x_px, y_px = self.rng.uniform(-200.0, 800.0, size=2).tolist()
        body = pymunk.Body(mass=1.0, moment=5.0)
        body.position = (x_px, y_px)
        body.angle = float(self.rng.uniform(-4.0, 4.0))
        body.velocity = tuple(self.rng.uniform(-300.0, 300.0, size=2).tolist())
        body.angular_velocity = float(self.rng.uniform(-8.0, 8.0))
        sprite = arcade.SpriteSolidColor(6, 6, x_px, y_px)
        reference = arcade.SpriteSolidColor(6, 6, x_px, y_px)
        self.world.add(body, sprite=sprite)
        if index is None:
            self.bulk_list.append(sprite)
            self.reference_list.append(reference)
        else:
            self.bulk_list.insert(index, sprite)
            self.reference_list.insert(index, reference)
        self.twin[sprite] = reference
        self.body_of[sprite] = body
        return sprite

    def despawn(self, sprite: arcade.Sprite) -> None:
        self.world.remove(self.body_of.pop(sprite))
        self.bulk_list.remove(sprite)
        self.reference_list.remove(self.twin.pop(sprite))

    def write_reference(self, alpha: float) -> None:
        """The slow, obvious route: per-sprite setters."""
        poses = self.world.interpolated_poses(alpha).tolist()
        for sprite, (x_px, y_px, angle_rad) in zip(self.world.sprites, poses, strict=True):
            reference = self.twin[sprite]
            reference.position = (x_px, y_px)
            reference.angle = -math.degrees(angle_rad)

    def assert_bulk_matches_setters(self, alpha: float) -> None:
        written = self.sync.write(alpha)
        self.write_reference(alpha)
        assert written == len(self.world)
        np.testing.assert_array_equal(
            slot_records(self.bulk_list), slot_records(self.reference_list)
        )


@pytest.fixture
def scene(gl_window: arcade.Window) -> Scene:
    return Scene(np.random.default_rng(1234))


def test_bulk_write_matches_per_sprite_setters(scene: Scene) -> None:
    for _ in range(40):
        scene.spawn()
    scene.world.step(DT_S)
    for alpha in (0.0, 0.37, 0.5, 1.0):
        scene.assert_bulk_matches_setters(alpha)


def test_bulk_write_matches_after_adding_and_removing_sprites(scene: Scene) -> None:
    sprites = [scene.spawn() for _ in range(30)]
    scene.world.step(DT_S)
    scene.assert_bulk_matches_setters(0.25)

    for sprite in sprites[3:25:4]:  # leaves free slots: the scatter path
        scene.despawn(sprite)
    scene.world.step(DT_S)
    scene.assert_bulk_matches_setters(0.6)

    for _ in range(4):  # reuse freed slots: rows and slots no longer in the same order
        scene.spawn()
    scene.spawn(index=0)  # list order differs from world row order
    scene.world.step(DT_S)
    scene.assert_bulk_matches_setters(0.8)

    for _ in range(300):  # grows arcade's arrays past a view taken by an earlier write
        scene.spawn()
    scene.world.step(DT_S)
    scene.assert_bulk_matches_setters(0.1)
    scene.assert_bulk_matches_setters(1.0)


def test_extrapolated_write_matches_setters(scene: Scene) -> None:
    for _ in range(10):
        scene.spawn()
    scene.world.step(DT_S)
    scene.sync.write(0.5, mode="extrapolate")
    poses = scene.world.interpolated_poses(0.5, mode="extrapolate").tolist()
    for sprite, (x_px, y_px, angle_rad) in zip(scene.world.sprites, poses, strict=True):
        scene.twin[sprite].position = (x_px, y_px)
        scene.twin[sprite].angle = arcade_angle_deg(angle_rad)
    np.testing.assert_array_equal(slot_records(scene.bulk_list), slot_records(scene.reference_list))


def test_sprites_outside_the_world_and_rows_outside_the_list_are_untouched(
    gl_window: arcade.Window,
) -> None:
    world = PhysicsWorld((0.0, 0.0))
    sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList()
    decoration = arcade.SpriteSolidColor(4, 4, 7.0, 9.0, angle=15.0)
    sprite_list.append(decoration)
    for x_px in (100.0, 200.0):
        body = pymunk.Body(mass=1.0, moment=1.0)
        body.position = (x_px, 0.0)
        body.velocity = (60.0, 0.0)
        sprite = arcade.SpriteSolidColor(4, 4, x_px, 0.0)
        world.add(body, sprite=sprite)
        if x_px == 100.0:
            sprite_list.append(sprite)  # the second sprite lives in some other list
    world.add(pymunk.Body(mass=1.0, moment=1.0))  # an invisible body, no sprite
    world.step(DT_S)

    sync = SpriteSync(world, sprite_list)
    assert sync.write(0.5) == 1
    records = slot_records(sprite_list)
    assert records[0].tolist() == [7.0, 9.0, 15.0]
    assert records[1].tolist() == [100.5, 0.0, 0.0]


# ----------------------------------------------------------- logical-state rule


def test_write_never_changes_logical_sprite_state_nor_the_world(scene: Scene) -> None:
    sprites = [scene.spawn() for _ in range(12)]
    scene.world.step(DT_S)
    logical_before = [(s.position, s.angle, s.hit_box.get_adjusted_points()) for s in sprites]
    hash_before = scene.world.state_hash()

    scene.sync.write(0.5)
    scene.sync.write(0.9, mode="extrapolate")

    assert [(s.position, s.angle, s.hit_box.get_adjusted_points()) for s in sprites] == (
        logical_before
    )
    assert scene.world.state_hash() == hash_before
    drawn = slot_records(scene.bulk_list)
    logical = np.array([[*s.position, s.angle] for s in sprites], dtype=np.float32)
    assert not np.array_equal(drawn, logical)  # only what is drawn moved


def test_tracked_sprites_follow_the_latest_tick_and_others_keep_their_state(
    scene: Scene,
) -> None:
    sprites = [scene.spawn() for _ in range(6)]
    player, others = sprites[2], sprites[:2] + sprites[3:]
    spawn_poses = [(s.position, s.angle) for s in others]
    scene.sync.track_logical(player)

    for _ in range(3):
        scene.world.step(DT_S)
        assert scene.sync.sync_logical() == 1
        scene.sync.write(0.5)  # render in between ticks must not disturb the rule
        x_px, y_px, angle_rad = scene.world.current[scene.world.row_of(scene.body_of[player])]
        assert player.position == (x_px, y_px)
        assert player.angle == arcade_angle_deg(angle_rad)
        assert player.position == tuple(scene.body_of[player].position)
        assert [(s.position, s.angle) for s in others] == spawn_poses

    scene.sync.untrack_logical(player)
    frozen = player.position
    scene.world.step(DT_S)
    assert scene.sync.sync_logical() == 0
    assert player.position == frozen


# ----------------------------------------------------------------- drawing


def test_draw_uploads_and_shows_the_bulk_written_poses(gl_window: arcade.Window) -> None:
    world = PhysicsWorld((0.0, 0.0))
    sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList()
    colors = [arcade.color.RED, arcade.color.LIME_GREEN, arcade.color.BLUE]
    # Each body moves 60 px in one tick (3600 px/s); alpha 0.5 draws it 30 px along.
    starts_px = [(40.0, 60.0), (40.0, 120.0), (40.0, 180.0)]
    for (x_px, y_px), color in zip(starts_px, colors, strict=True):
        body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
        body.position = (x_px, y_px)
        body.velocity = (3600.0, 0.0)
        sprite = arcade.SpriteSolidColor(10, 10, x_px, y_px, color=color)
        world.add(body, sprite=sprite)
        sprite_list.append(sprite)
    world.step(DT_S)
    sync = SpriteSync(world, sprite_list)

    gl_window.default_camera.use()
    for alpha in (0.0, 0.5):  # frame 1 uploads everything; frame 2 only what write() marks
        sync.write(alpha)
        gl_window.clear(color=arcade.color.BLACK)
        sprite_list.draw()

    # 1. The GPU buffer holds the bulk-written values.
    gpu = np.frombuffer(sprite_list.data.buffer_positions_angle.read(), dtype=np.float32)
    gpu = gpu.reshape(-1, 4)
    slots = [sprite_list.sprite_slot[s] for s in sprite_list]
    expected = world.interpolated_poses(0.5)
    np.testing.assert_array_equal(gpu[slots, 0], expected[:, 0].astype(np.float32))
    np.testing.assert_array_equal(gpu[slots, 1], expected[:, 1].astype(np.float32))

    # 2. The pixels show the sprites there, not at their logical (spawn) position.
    image = arcade.get_image(0, 0, gl_window.width, gl_window.height).convert("RGB")

    def pixel(x_px: float, y_px: float) -> tuple[int, int, int]:
        return image.getpixel((int(x_px), gl_window.height - 1 - int(y_px)))

    for sprite, (x_px, y_px), color in zip(sprite_list, starts_px, colors, strict=True):
        assert sprite.position == (x_px, y_px)  # logical state untouched
        assert pixel(x_px + 30.0, y_px) == tuple(color[:3])
        assert pixel(x_px, y_px) == (0, 0, 0)
        assert pixel(x_px + 60.0, y_px) == (0, 0, 0)


# --------------------------------------------------------------- guard rails


def test_plain_sprite_list_is_rejected(gl_window: arcade.Window) -> None:
    with pytest.raises(TypeError, match="TrackedSpriteList"):
        SpriteSync(PhysicsWorld((0.0, 0.0)), arcade.SpriteList())  # type: ignore[arg-type]


def test_changed_internals_fail_with_the_arcade_version(gl_window: arcade.Window) -> None:
    sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList()
    sprite_list._sprite_pos_angle_data = [0.0] * 4  # type: ignore[assignment]
    with pytest.raises(ArcadeInternalsError) as error:
        check_sprite_list_internals(sprite_list)
    message = str(error.value)
    assert TESTED_ARCADE_VERSION in message
    assert arcade.version.VERSION in message
    assert "_sprite_pos_angle_data" in message


def test_tracked_sprite_list_counts_membership_changes(gl_window: arcade.Window) -> None:
    sprite_list: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList()
    a, b, c = (arcade.SpriteSolidColor(2, 2) for _ in range(3))
    sprite_list.extend([a, b])
    sprite_list.insert(0, c)
    assert sprite_list.membership_version == 3
    sprite_list.remove(a)
    sprite_list.pop()
    b.remove_from_sprite_lists()  # no-op here: b was popped
    c.remove_from_sprite_lists()  # Sprite.kill() and friends go through remove()
    assert sprite_list.membership_version == 6
    sprite_list.append(a)
    sprite_list.clear()
    assert sprite_list.membership_version == 8
    sprite_list.extend([b, c])
    sprite_list.sort(key=id)  # reordering keeps slots: no change
    sprite_list.reverse()
    assert sprite_list.membership_version == 10
