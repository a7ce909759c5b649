"""The engine running its demo scene headless on the shared window (GL integration)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from engine.config import load_config

pytestmark = pytest.mark.gl


@pytest.fixture
def make_engine(gl_window: Any) -> Iterator[Any]:
    from engine.runtime.engine import Engine
    from engine.tools.demo import make_demo_scene

    engines = []

    def make(display_hz: float, **overrides: str) -> tuple[Any, Any]:
        config = load_config(None, [f"{k}={v}" for k, v in overrides.items()])
        engine = Engine(gl_window, config, headless=True, display_hz=display_hz)
        scene = make_demo_scene(engine, body_count=120)
        engine.show(scene)
        engines.append(engine)
        return engine, scene

    yield make
    for engine in engines:
        engine.close()


def drawn_positions(scene: Any) -> np.ndarray:
    """x, y of every sprite as it sits in the SpriteList's buffer (what the GPU draws)."""
    data = np.frombuffer(scene.sprites._sprite_pos_angle_data, dtype=np.float32).reshape(-1, 4)
    slots = [scene.sprites.sprite_slot[sprite] for sprite in scene.world.sprites]
    return data[slots, :2].astype(np.float64)


@pytest.mark.parametrize("display_hz", [60.0, 144.0])
def test_demo_runs_300_frames_and_draws_the_interpolated_physics_state(
    make_engine: Any, display_hz: float
) -> None:
    engine, scene = make_engine(display_hz)
    report = engine.run(300)
    assert report is not None and engine.loop.frames == 300
    assert engine.loop.detector.verdict is True
    assert abs(engine.loop.detector.refresh_hz - display_hz) < 0.01
    expected_ticks = round(299 * 60 / display_hz)  # 299 frame intervals of virtual time
    assert abs(engine.pacer.ticks - expected_ticks) <= 1
    # what the GPU draws is the interpolated physics state at the last frame's alpha
    poses = scene.world.interpolated_poses(report.alpha)
    assert np.allclose(drawn_positions(scene), poses[:, :2], atol=1e-3)
    # the screenshot shows the scene: background, the orange platform, blue and pink bodies
    import arcade

    engine.render_frame(report.alpha)
    image = np.asarray(arcade.get_image(0, 0, *gl_size(engine)).convert("RGB")).reshape(-1, 3)
    colours = {tuple(c) for c in image}
    assert tuple(arcade.color.DARK_SLATE_GRAY[:3]) in colours
    assert any(tuple(c[:3]) in colours for c in (arcade.color.LIGHT_BLUE, arcade.color.PINK))
    background = np.all(image == np.array(arcade.color.DARK_SLATE_GRAY[:3]), axis=1).mean()
    assert 0.2 < background < 0.98  # there is a scene, not a blank frame


def gl_size(engine: Any) -> tuple[int, int]:
    return engine.window.width, engine.window.height


def test_render_never_changes_the_simulation(make_engine: Any) -> None:
    engine, scene = make_engine(60.0)
    engine.run(120)
    before = scene.world.state_hash()
    for alpha in (0.0, 0.3, 1.0):
        engine.render_frame(alpha)
    assert scene.world.state_hash() == before


def test_game_state_does_not_depend_on_the_display_rate(make_engine: Any) -> None:
    """The same number of ticks gives the same physics state at 60 and 144 Hz."""
    hashes = []
    for display_hz in (60.0, 144.0):
        engine, scene = make_engine(display_hz)
        while engine.pacer.ticks < 150:
            engine.run_frame()
        assert engine.pacer.ticks == 150  # one tick per frame at most on both displays
        hashes.append(scene.world.state_hash())
        engine.close()
    assert hashes[0] == hashes[1]


def test_a_stall_is_dropped_by_the_hitch_guard(make_engine: Any) -> None:
    engine, _ = make_engine(60.0)
    engine.run(100)
    engine.clock.advance(1_000_000_000)  # the machine froze for a second
    ticks = engine.pacer.ticks
    # a frame starts at the previous present, so the stall shows in the second frame from now
    reports = [engine.run_frame() for _ in range(2)]
    cap = engine.config.timing.max_updates_per_frame
    assert [r.updates for r in reports] == [1, cap]
    assert 900_000_000 <= engine.pacer.dropped_ns <= 1_000_000_000
    after = [engine.run_frame().updates for _ in range(10)]
    assert after == [1] * 10  # no backlog: one tick per frame again at once
    assert engine.pacer.ticks == ticks + 1 + cap + 10


def test_esc_quits_the_demo(make_engine: Any) -> None:
    from engine.input.snapshot import InputSnapshot

    engine, scene = make_engine(60)
    engine.run_frame()
    bit = engine.actions.bit("pause")  # [input] pause: Esc and P
    scene.on_tick(1, InputSnapshot(engine.actions, bit, bit))
    assert engine.closed


def test_the_demo_window_has_its_own_title_unless_one_is_set() -> None:
    from engine.tools.demo import TITLE, titled

    assert titled(load_config(None)).video.title == TITLE == "Engine demo"
    assert titled(load_config(None, ['video.title="Mine"'])).video.title == "Mine"
