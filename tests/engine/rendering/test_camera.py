"""Tests for engine.rendering.camera: follow camera math."""

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rendering.camera import (
    CameraSettings,
    CameraState,
    FollowCamera,
    clamp_view_centre,
    round_half_away_from_zero,
    snap_view_position,
    step_camera,
    track_dead_zone,
)
from engine.rendering.smoothing import lerp, remaining_fraction_per_s

VIEWPORT_PX = (640.0, 360.0)
PLAIN = CameraSettings(
    follow_time_s=2.0,  # slow: after 1 s ~10% of the distance is still left
    dead_zone_width_px=0.0,
    dead_zone_height_px=0.0,
    look_ahead_px=0.0,
    clamp_to_level=False,
    pixel_snap=False,
)
TARGET_PX = (1000.0, -400.0)


def follow_fixed_target(cam_settings: CameraSettings, frame_dts_s: list[float]) -> FollowCamera:
    camera = FollowCamera(cam_settings, 0.0, 0.0)
    for dt_s in frame_dts_s:
        camera.update(TARGET_PX, (0.0, 0.0), dt_s, VIEWPORT_PX)
    return camera


def irregular_second(seed: int) -> list[float]:
    rng = random.Random(seed)
    dts = [rng.uniform(0.002, 0.05) for _ in range(200)]
    kept: list[float] = []
    for dt in dts:
        if math.fsum(kept) + dt >= 1.0:
            break
        kept.append(dt)
    kept.append(1.0 - math.fsum(kept))  # last frame makes the total exactly 1 s
    assert math.fsum(kept) == 1.0
    return kept


# --- frame-rate independence -------------------------------------------------------


def test_one_second_of_following_agrees_across_frame_rates() -> None:
    runs = {f"{hz} Hz": [1.0 / hz] * hz for hz in (30, 60, 144, 240)}
    runs["irregular A"] = irregular_second(seed=1)
    runs["irregular B"] = irregular_second(seed=2)
    positions = {name: follow_fixed_target(PLAIN, dts).position for name, dts in runs.items()}

    left_after_1_s = remaining_fraction_per_s(PLAIN.follow_time_s)
    expected = (TARGET_PX[0] * (1 - left_after_1_s), TARGET_PX[1] * (1 - left_after_1_s))
    assert 0.05 < left_after_1_s < 0.2  # the check below is not trivially "converged"
    for name, (x, y) in positions.items():
        assert x == pytest.approx(expected[0], abs=1e-6), name
        assert y == pytest.approx(expected[1], abs=1e-6), name


def test_naive_per_frame_lerp_does_not_agree_across_frame_rates() -> None:
    def naive_x_after_1_s(hz: int) -> float:
        x = 0.0
        for _ in range(hz):
            x = lerp(x, TARGET_PX[0], 0.1)
        return x

    results = {hz: naive_x_after_1_s(hz) for hz in (30, 60, 144, 240)}
    assert results[60] - results[30] > 30.0
    assert results[240] - results[30] > 40.0


@pytest.mark.parametrize("dt_s", [1 / 240, 1 / 60, 1 / 30, 0.2])
def test_camera_two_steps_of_dt_equal_one_step_of_2dt(dt_s: float) -> None:
    two = follow_fixed_target(PLAIN, [dt_s, dt_s]).position
    one = follow_fixed_target(PLAIN, [2 * dt_s]).position
    assert two[0] == pytest.approx(one[0], abs=1e-9)
    assert two[1] == pytest.approx(one[1], abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    weights=st.lists(st.floats(min_value=0.01, max_value=1.0), min_size=1, max_size=30),
    total_s=st.floats(min_value=0.001, max_value=3.0),
)
def test_camera_any_split_of_duration_equals_one_step(weights: list[float], total_s: float) -> None:
    weight_sum = math.fsum(weights)
    steps_s = [total_s * w / weight_sum for w in weights]
    split = follow_fixed_target(PLAIN, steps_s).position
    whole = follow_fixed_target(PLAIN, [math.fsum(steps_s)]).position
    assert split[0] == pytest.approx(whole[0], abs=1e-8)
    assert split[1] == pytest.approx(whole[1], abs=1e-8)


@pytest.mark.parametrize("follow_time_s", [0.1, 0.3, 1.5])
def test_follow_time_covers_99_percent(follow_time_s: float) -> None:
    cam_settings = CameraSettings(
        follow_time_s=follow_time_s, clamp_to_level=False, pixel_snap=False
    )
    frames = round(follow_time_s * 120)
    x, y = follow_fixed_target(cam_settings, [follow_time_s / frames] * frames).position
    assert x / TARGET_PX[0] == pytest.approx(0.99, abs=1e-9)
    assert y / TARGET_PX[1] == pytest.approx(0.99, abs=1e-9)


def test_zero_follow_time_is_rigid_and_zero_dt_does_not_move() -> None:
    rigid = CameraSettings(follow_time_s=0.0, clamp_to_level=False, pixel_snap=False)
    assert follow_fixed_target(rigid, [1 / 60]).position == TARGET_PX
    assert follow_fixed_target(PLAIN, [0.0, -0.01]).position == (0.0, 0.0)


# --- dead zone ----------------------------------------------------------------------


def test_track_dead_zone_moves_minimum() -> None:
    assert track_dead_zone(0.0, 40.0, 100.0) == 0.0
    assert track_dead_zone(0.0, 80.0, 100.0) == 30.0
    assert track_dead_zone(0.0, -80.0, 100.0) == -30.0
    assert track_dead_zone(5.0, 7.0, 0.0) == 7.0


def test_target_inside_dead_zone_does_not_move_camera() -> None:
    cam_settings = CameraSettings(
        follow_time_s=0.2,
        dead_zone_width_px=100.0,
        dead_zone_height_px=60.0,
        clamp_to_level=False,
        pixel_snap=False,
    )
    camera = FollowCamera(cam_settings, 200.0, 100.0)
    rng = random.Random(7)
    for _ in range(300):
        target = (200.0 + rng.uniform(-50.0, 50.0), 100.0 + rng.uniform(-30.0, 30.0))
        camera.update(target, (rng.uniform(-300, 300), 0.0), 1 / 60, VIEWPORT_PX)
        assert camera.position == (200.0, 100.0)
        assert camera.state.focus_px == (200.0, 100.0)


def test_leaving_dead_zone_pushes_goal_to_put_target_on_edge() -> None:
    cam_settings = CameraSettings(
        follow_time_s=0.2,
        dead_zone_width_px=100.0,
        dead_zone_height_px=60.0,
        clamp_to_level=False,
        pixel_snap=False,
    )
    camera = FollowCamera(cam_settings, 0.0, 0.0)
    camera.update((80.0, -45.0), (0.0, 0.0), 1 / 60, VIEWPORT_PX)
    assert camera.state.focus_px == (30.0, -15.0)
    assert 0.0 < camera.position[0] < 30.0
    for _ in range(240):
        camera.update((80.0, -45.0), (0.0, 0.0), 1 / 60, VIEWPORT_PX)
    assert camera.position[0] == pytest.approx(30.0, abs=1e-6)
    assert camera.position[1] == pytest.approx(-15.0, abs=1e-6)


# --- look-ahead ---------------------------------------------------------------------


LOOK = CameraSettings(
    follow_time_s=0.2,
    look_ahead_px=80.0,
    look_ahead_time_s=0.5,
    clamp_to_level=False,
    pixel_snap=False,
)


def test_look_ahead_leads_in_direction_of_motion() -> None:
    camera = FollowCamera(LOOK, 0.0, 0.0)
    for _ in range(300):
        camera.update((0.0, 0.0), (250.0, 0.0), 1 / 60, VIEWPORT_PX)
    assert camera.state.look_ahead_offset_px == pytest.approx(80.0, abs=1e-3)
    assert camera.position[0] == pytest.approx(80.0, abs=1e-2)
    assert camera.position[1] == 0.0  # look-ahead is horizontal only


def test_look_ahead_flips_smoothly_when_direction_changes() -> None:
    camera = FollowCamera(LOOK, 0.0, 0.0)
    for _ in range(300):
        camera.update((0.0, 0.0), (250.0, 0.0), 1 / 60, VIEWPORT_PX)
    dt_s = 1 / 60
    max_step = 160.0 * (1 - remaining_fraction_per_s(LOOK.look_ahead_time_s) ** dt_s)
    offsets = [camera.state.look_ahead_offset_px]
    for _ in range(300):
        camera.update((0.0, 0.0), (-250.0, 0.0), dt_s, VIEWPORT_PX)
        offsets.append(camera.state.look_ahead_offset_px)
    steps = [b - a for a, b in itertools.pairwise(offsets)]
    # first frame moves by the exponential fraction of the 160 px swing, not to -80
    assert offsets[1] == pytest.approx(80.0 - max_step, abs=1e-9)
    assert offsets[1] > 50.0
    assert all(step <= 0.0 for step in steps)  # monotonic swing
    assert max(abs(step) for step in steps) <= max_step + 1e-9
    assert offsets[-1] == pytest.approx(-80.0, abs=1e-3)


def test_look_ahead_returns_to_centre_when_standing_still() -> None:
    camera = FollowCamera(LOOK, 0.0, 0.0)
    for _ in range(120):
        camera.update((0.0, 0.0), (250.0, 0.0), 1 / 60, VIEWPORT_PX)
    assert camera.state.look_ahead_offset_px > 40.0
    for _ in range(600):
        camera.update((0.0, 0.0), (0.0, 0.0), 1 / 60, VIEWPORT_PX)
    assert camera.state.look_ahead_offset_px == pytest.approx(0.0, abs=1e-6)


# --- level clamp --------------------------------------------------------------------


def test_clamp_view_centre_axis() -> None:
    assert clamp_view_centre(-50.0, 400.0, 0.0, 1000.0) == 200.0
    assert clamp_view_centre(950.0, 400.0, 0.0, 1000.0) == 800.0
    assert clamp_view_centre(500.0, 400.0, 0.0, 1000.0) == 500.0
    assert clamp_view_centre(0.0, 400.0, 100.0, 300.0) == 200.0  # small level: centred


CLAMPED = CameraSettings(follow_time_s=0.15, clamp_to_level=True, pixel_snap=True)


def test_clamping_keeps_view_inside_level_bounds() -> None:
    bounds = (0.0, 0.0, 3200.0, 960.0)
    viewport = (640.0, 360.0)
    camera = FollowCamera(CLAMPED)
    camera.teleport(-300.0, -300.0, viewport, bounds)
    assert camera.view_position == (320.0, 180.0)
    rng = random.Random(3)
    target = [0.0, 0.0]
    for _ in range(2000):
        target[0] += rng.uniform(-120.0, 120.0)
        target[1] += rng.uniform(-60.0, 60.0)
        for x_or_y in (0, 1):
            target[x_or_y] = min(max(target[x_or_y], -500.0), 4000.0)
        camera.update((target[0], target[1]), (0.0, 0.0), 1 / 60, viewport, bounds)
        for centre in (camera.position, camera.view_position):
            assert bounds[0] <= centre[0] - viewport[0] / 2
            assert centre[0] + viewport[0] / 2 <= bounds[2]
            assert bounds[1] <= centre[1] - viewport[1] / 2
            assert centre[1] + viewport[1] / 2 <= bounds[3]


def test_clamping_centres_level_smaller_than_view() -> None:
    bounds = (100.0, 50.0, 400.0, 250.0)  # 300 x 200 level, smaller than 640 x 360 view
    camera = FollowCamera(CLAMPED, 0.0, 0.0)
    for target in ((0.0, 0.0), (5000.0, -90.0), (250.0, 150.0)):
        for _ in range(5):
            camera.update(target, (300.0, 0.0), 1 / 60, VIEWPORT_PX, bounds)
            assert camera.position == (250.0, 150.0)


def test_clamping_one_axis_only_when_level_is_narrow() -> None:
    bounds = (0.0, 0.0, 300.0, 5000.0)  # narrower than the view, taller than it
    camera = FollowCamera(CLAMPED)
    camera.teleport(1000.0, 2000.0, VIEWPORT_PX, bounds)
    assert camera.position == (150.0, 2000.0)


def test_clamp_disabled_ignores_bounds() -> None:
    camera = FollowCamera(PLAIN)
    camera.teleport(-300.0, -300.0, VIEWPORT_PX, (0.0, 0.0, 3200.0, 960.0))
    assert camera.position == (-300.0, -300.0)


# --- pixel snapping -----------------------------------------------------------------


def test_round_half_away_from_zero() -> None:
    assert round_half_away_from_zero(2.5) == 3.0
    assert round_half_away_from_zero(-2.5) == -3.0
    assert round_half_away_from_zero(3.5) == 4.0  # built-in round(2.5) would give 2
    assert round_half_away_from_zero(2.4999) == 2.0
    assert round_half_away_from_zero(-0.4) == 0.0


def test_snap_view_position_even_and_odd_viewports() -> None:
    # ties are decided on the corner coordinate: corner 10.5 -> 11, corner -309.5 -> -310
    assert snap_view_position((330.5, 190.5), (640.0, 360.0)) == (331.0, 191.0)
    assert snap_view_position((10.5, -10.5), (640.0, 360.0)) == (10.0, -11.0)
    assert snap_view_position((10.2, 7.7), (640.0, 360.0)) == (10.0, 8.0)
    # odd sizes: the edges (centre - size/2) are whole pixels, so the centre ends in .5
    x, y = snap_view_position((10.2, 7.7), (641.0, 361.0))
    assert (x, y) == (10.5, 7.5)  # corners -310.3 -> -310 and -172.8 -> -173
    assert (x - 320.5).is_integer() and (y - 180.5).is_integer()


def test_snapped_view_is_integer_and_state_is_unaffected_by_snapping() -> None:
    snap_on = CameraSettings(follow_time_s=0.7, look_ahead_px=40.0, pixel_snap=True)
    snap_off = CameraSettings(follow_time_s=0.7, look_ahead_px=40.0, pixel_snap=False)
    bounds = (-5000.0, -5000.0, 5000.0, 5000.0)
    snapped, unsnapped = FollowCamera(snap_on), FollowCamera(snap_off)
    saw_fractional_state = False
    for frame in range(400):
        target = (3.3 * frame, 17.0 * math.sin(frame / 9.0))
        velocity = (200.0, 0.0)
        view = snapped.update(target, velocity, 1 / 144, VIEWPORT_PX, bounds)
        unsnapped.update(target, velocity, 1 / 144, VIEWPORT_PX, bounds)
        assert view[0] == int(view[0]) and view[1] == int(view[1])
        assert abs(view[0] - snapped.position[0]) <= 0.5
        assert abs(view[1] - snapped.position[1]) <= 0.5
        assert snapped.position == unsnapped.position  # bit-identical state
        assert unsnapped.view_position == unsnapped.position
        saw_fractional_state |= snapped.position[0] != int(snapped.position[0])
    assert saw_fractional_state


# --- teleport / purity --------------------------------------------------------------


def test_teleport_and_reset_put_camera_on_target_instantly() -> None:
    cam_settings = CameraSettings(follow_time_s=1.0, look_ahead_px=50.0, pixel_snap=False)
    camera = FollowCamera(cam_settings)
    for _ in range(30):
        camera.update((500.0, 500.0), (300.0, 0.0), 1 / 60, VIEWPORT_PX)
    camera.teleport(-20.0, 35.0)
    assert camera.position == (-20.0, 35.0)
    assert camera.state == CameraState.at(-20.0, 35.0)
    camera.reset(7.0, 8.0)
    assert camera.position == (7.0, 8.0)
    camera.update((7.0, 8.0), (0.0, 0.0), 1 / 60, VIEWPORT_PX)
    assert camera.position == (7.0, 8.0)


def test_step_camera_is_pure() -> None:
    state = CameraState.at(1.0, 2.0)
    args = (LOOK, (300.0, -40.0), (100.0, 0.0), 1 / 60, VIEWPORT_PX, None)
    first = step_camera(state, *args)
    second = step_camera(state, *args)
    assert first == second
    assert state == CameraState.at(1.0, 2.0)
    assert first != state


def test_invalid_settings_rejected() -> None:
    with pytest.raises(ValueError):
        CameraSettings(follow_time_s=-1.0)
    with pytest.raises(ValueError):
        CameraSettings(look_ahead_px=math.nan)
