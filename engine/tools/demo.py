"""``python -m engine.tools.demo``: the engine alone, with no game on top.

A box of a few hundred dynamic pymunk bodies tumbling onto the ground, a kinematic platform moving
back and forth, and the follow camera tracking one body ("the hero"). It shows the whole pipeline
working: fixed ticks step the physics world, every rendered frame interpolates all bodies with one
bulk write, the camera follows the interpolated hero, F3 shows the pacing overlay. **Esc** (the
``[input] pause`` keys) quits; Ctrl+C and SIGTERM end the run the same way, with its summary line
and exit status 130 or 143. The window is titled :data:`TITLE` unless ``[video] title`` is set.

Examples::

    python -m engine.tools.demo                                  # a window, vsync, until closed
    python -m engine.tools.demo --headless --frames 300 --display-hz 144 --screenshot demo.png --json
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.runtime.launch import (
    OneLineParser,
    StopSignals,
    add_runtime_arguments,
    count_arg,
    fail,
    finish_gl_queue,
    is_headless,
    run_command,
)

PROG = "python -m engine.tools.demo"
TITLE = "Engine demo"
"""The demo window's title (``[video] title`` is the game's, ``"Platformer"`` by default)."""
LEVEL_WIDTH_PX = 2400.0
LEVEL_HEIGHT_PX = 1400.0
BODY_COUNT = 300
PLATFORM_SPEED_PX_S = 160.0
PLATFORM_TRAVEL_PX = 700.0


def build_parser(prog: str = PROG) -> OneLineParser:
    """The demo's flags: the shared runtime flags plus ``--bodies``."""
    parser = OneLineParser(
        prog=prog,
        description="The engine alone: physics bodies, a moving "
        "platform and the follow camera, paced by the engine's loop.",
    )
    add_runtime_arguments(parser)
    parser.add_argument(
        "--bodies",
        type=count_arg("bodies", 1, maximum=5000),
        default=BODY_COUNT,
        help="dynamic bodies, 1..5000 (default 300)",
    )
    return parser


def make_demo_scene(engine: Any, body_count: int = BODY_COUNT, seed: int = 7) -> Any:
    """Build the demo scene for ``engine`` (imports arcade, so call it after the window exists)."""
    import arcade
    import pymunk

    from engine.physics.world import PhysicsWorld
    from engine.rendering.camera import CameraSettings, FollowCamera
    from engine.rendering.sprite_sync import SpriteSync, TrackedSpriteList
    from engine.runtime.scene import Scene

    config = engine.config

    class DemoScene(Scene):
        """Bodies, a moving platform and a camera that follows one body."""

        def __init__(self) -> None:
            super().__init__(background_color=arcade.color.DARK_SLATE_GRAY)
            physics = config.physics
            self.world = PhysicsWorld(
                (0.0, physics.gravity_px_s2),
                substeps=physics.substeps,
                iterations=physics.iterations,
            )
            self.sprites: TrackedSpriteList[Any] = TrackedSpriteList()
            self.static_shapes: arcade.shape_list.ShapeElementList[Any] = (
                arcade.shape_list.ShapeElementList()
            )
            self._build_level()
            rng = random.Random(seed)
            self.hero = self._spawn(rng, 0)
            for i in range(1, body_count):
                self._spawn(rng, i)
            self.sync = SpriteSync(self.world, self.sprites)
            self.follow = FollowCamera(CameraSettings.from_config(config))
            self.camera: arcade.Camera2D | None = None  # made on the first frame

        def _bounds(self) -> tuple[float, float, float, float]:
            return (0.0, 0.0, LEVEL_WIDTH_PX, LEVEL_HEIGHT_PX)

        def _viewport(self) -> tuple[float, float]:
            width, height = self.engine.video.size_px
            return (float(width), float(height))

        def _build_level(self) -> None:
            space = self.world.space
            static = space.static_body
            w, h = LEVEL_WIDTH_PX, LEVEL_HEIGHT_PX
            for a, b in (((0, 20), (w, 20)), ((10, 0), (10, h)), ((w - 10, 0), (w - 10, h))):
                seg = pymunk.Segment(static, a, b, 10)
                seg.friction = 0.8
                space.add(seg)
            ground = arcade.shape_list.create_rectangle_filled(w / 2, 10, w, 20, arcade.color.SAND)
            self.static_shapes.append(ground)
            for x in (10, w - 10):
                wall = arcade.shape_list.create_rectangle_filled(x, h / 2, 20, h, arcade.color.SAND)
                self.static_shapes.append(wall)
            # the moving platform: a kinematic body whose velocity follows a back-and-forth path
            self.platform = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
            self.platform.position = (w / 2 - PLATFORM_TRAVEL_PX / 2, 320)
            shape = pymunk.Poly.create_box(self.platform, (240, 24))
            shape.friction = 1.0
            sprite = arcade.SpriteSolidColor(240, 24, color=arcade.color.ORANGE)
            self.sprites.append(sprite)
            self.world.add(self.platform, shape, sprite=sprite)
            self._platform_start_x = self.platform.position.x

        def _spawn(self, rng: random.Random, i: int) -> pymunk.Body:
            mass = 1.0
            x = 200 + (i % 30) * 66 + rng.uniform(-6, 6)
            y = 500 + (i // 30) * 70
            if i % 2:
                radius = rng.uniform(9, 16)
                body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0, radius))
                shape: pymunk.Shape = pymunk.Circle(body, radius)
                sprite: Any = arcade.SpriteCircle(round(radius), arcade.color.LIGHT_BLUE)
            else:
                size = rng.uniform(16, 28)
                body = pymunk.Body(mass, pymunk.moment_for_box(mass, (size, size)))
                shape = pymunk.Poly.create_box(body, (size, size))
                sprite = arcade.SpriteSolidColor(round(size), round(size), color=arcade.color.PINK)
            if i == 0:  # the hero: a bigger yellow box the camera follows
                size = 40.0
                body = pymunk.Body(mass * 3, pymunk.moment_for_box(mass * 3, (size, size)))
                shape = pymunk.Poly.create_box(body, (size, size))
                sprite = arcade.SpriteSolidColor(40, 40, color=arcade.color.YELLOW)
            body.position = (x, y)
            body.velocity = (rng.uniform(-80, 80), 0)
            shape.friction = 0.6
            shape.elasticity = 0.2
            self.sprites.append(sprite)
            self.world.add(body, shape, sprite=sprite)
            return body

        def on_tick(self, tick: int, snapshot: Any) -> None:
            if "pause" in snapshot.action_map and snapshot.was_pressed("pause"):
                engine.close()  # Esc quits; main closes the window once the loop has returned
                return
            # the platform moves back and forth along its path: velocity from the tick, exactly
            period_ticks = round(2 * PLATFORM_TRAVEL_PX / PLATFORM_SPEED_PX_S / engine.step_s)
            phase = tick % period_ticks
            direction = 1.0 if phase < period_ticks // 2 else -1.0
            self.platform.velocity = (direction * PLATFORM_SPEED_PX_S, 0.0)
            # the hero hops every two seconds so the camera has something to follow
            if tick % round(2.0 / engine.step_s) == 0:
                self.hero.apply_impulse_at_local_point((rng_sign(tick) * 250.0, 700.0))
            self.world.step(engine.step_s)

        def on_render(self, alpha: float, frame_dt_s: float) -> None:
            if self.camera is None:
                self.camera = self.engine.video.camera()
                x_px, y_px = self.hero.position
                self.follow.teleport(
                    x_px, y_px, viewport_px=self._viewport(), level_bounds_px=self._bounds()
                )
            mode = config.render.mode
            self.sync.write(alpha, mode)
            row = self.world.row_of(self.hero)
            hero = self.world.interpolated_poses(alpha, mode)[row]
            view = self.follow.update(
                (float(hero[0]), float(hero[1])),
                tuple(self.hero.velocity),
                frame_dt_s,
                self._viewport(),
                self._bounds(),
            )
            self.camera.position = view
            self.camera.use()
            self.static_shapes.draw()
            self.sprites.draw()

    return DemoScene()


def titled(config: Any) -> Any:
    """``config`` with the demo's window title, unless ``[video] title`` was set."""
    from engine.config import VideoConfig

    if config.video.title != VideoConfig().title:
        return config
    return dataclasses.replace(config, video=dataclasses.replace(config.video, title=TITLE))


def rng_sign(tick: int) -> float:
    """Alternate the hero's hop direction (deterministic: a pure function of the tick)."""
    return 1.0 if (tick // 120) % 2 == 0 else -1.0


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the demo; return the exit status."""
    args = build_parser(prog).parse_args(argv)
    with StopSignals() as stop:
        return run_demo(args, prog, stop)


def run_demo(args: Any, prog: str, stop: StopSignals) -> int:
    """:func:`main` after the flags are parsed."""
    headless = is_headless(args)
    from engine.config import config_from_args

    config = titled(config_from_args(args))
    from engine.runtime.engine import Engine
    from engine.runtime.launch import open_window

    window = open_window(config, headless=headless, prog=prog)
    engine = Engine(
        window, config, headless=headless, display_hz=args.display_hz, realtime=args.realtime
    )
    scene = make_demo_scene(engine, args.bodies)
    engine.show(scene)
    report = None
    while not engine.closed and not stop.requested:
        if args.frames is not None and engine.loop.frames >= args.frames:
            break
        report = engine.run_frame()
        if headless:
            finish_gl_queue(window, engine.loop.frames)
    if args.screenshot and report is not None:
        save_screenshot(engine, report.alpha, args.screenshot)
    summary = {
        "frames": engine.loop.frames,
        "ticks": engine.pacer.ticks,
        "dropped_s": engine.pacer.dropped_ns / 1e9,
        "vsync_detected": engine.loop.detector.verdict,
        "refresh_estimate_hz": engine.loop.detector.refresh_hz,
        "mode": str(engine.pacer.mode),
        "state_hash": scene.world.state_hash(),
    }
    if stop.requested:
        summary["stopped_by"] = stop.name
    if args.json:
        print(json.dumps(summary))
    else:
        refresh = summary["refresh_estimate_hz"]
        print(
            f"{summary['frames']} frames, {summary['ticks']} ticks, dropped "
            f"{summary['dropped_s']:.3f} s, vsync {summary['vsync_detected']}, refresh "
            f"{'-' if refresh is None else f'{refresh:.3f} Hz'}, mode {summary['mode']}"
            + (f", stopped by {stop.name}" if stop.requested else "")
        )
    window.close()
    return stop.exit_status(0)


def save_screenshot(engine: Any, alpha: float, path: Path) -> None:
    """Render the current state once more (render never changes state) and save it as a PNG."""

    engine.render_frame(alpha)
    try:
        engine.video.screenshot(path)
    except OSError as exc:
        fail(PROG, f"cannot write screenshot {path}: {exc.strerror or exc}")


if __name__ == "__main__":
    sys.exit(run_command(main, PROG))
