"""The engine: the timing core's game loop running on an arcade window.

arcade's own loop is not used. Measured on this machine, its desktop scheduler runs at ~59.1 fps
with double fixed updates, and a headless ``arcade.run()`` never calls ``on_fixed_update``. The
:class:`Engine` drives the window itself with :class:`~engine.timing.GameLoop`, the same object the
monitor simulator (``python -m engine.tools.monitor_sim``) proves:

1. poll window events (keys become per-tick input through :class:`~engine.input.snapshot.InputSampler`);
2. ask the pacer how many fixed ticks to run; run them (:meth:`Scene.on_tick`);
3. render with ``alpha`` (:meth:`Scene.on_render`), then the F3 overlay;
4. when vsync is off, sleep to the limiter deadline; with vsync, hold a frame that would otherwise
   flip a vblank earlier than planned (see :mod:`engine.timing.present_plan`);
5. ``flip()``, and take the present timestamp the vsync detector learns from.

Vsync is requested by default (``[video] vsync``); whether the driver honours it is decided from the
present timestamps, how long ``flip()`` blocked and the refresh rate the OS reports for the screen
mode (:func:`reported_refresh_hz`, a prior the timestamps must confirm). When vsync is off, not
honoured, or the panel is variable-refresh, the frame limiter paces presents at that refresh rate,
capped by ``[video] fps_limit`` (the tick rate when the OS reports none), and interpolation shows
motion between ticks. The hitch guard drops a window drag, a debugger pause or a level load (call
:meth:`Engine.resync` after loading).

Headless (``ARCADE_HEADLESS=1`` or ``--headless``): the same loop renders offscreen with a
:class:`~engine.runtime.virtual_display.VirtualDisplay`: a virtual clock that advances one simulated
refresh per frame (``display_hz``, which then stands in for the OS's report), as fast as the machine
allows, or in wall time with ``realtime``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import arcade

from engine.config import DEBUG_OVERLAY_ACTION, PRACTICE_ACTIONS, Config, game_action_names
from engine.config.settings import UserSettings, config_with
from engine.input.gamepad import GamepadInput
from engine.input.keys import KeyBindings, bindings_from_input_config
from engine.input.snapshot import ActionMap, InputSampler, InputSnapshot
from engine.rendering.debug_overlay import DebugOverlay
from engine.rendering.frame_stats import FrameStats
from engine.rendering.transition import FADE_MS, Fade
from engine.runtime.scene import Scene
from engine.runtime.video import Video
from engine.runtime.virtual_display import VirtualDisplay
from engine.timing import (
    FrameDelay,
    FrameLimiter,
    FramePacer,
    FrameReport,
    GameLoop,
    LimitWhen,
    ManualClock,
    PacerSettings,
    RealClock,
    TickRate,
    TimingMode,
    VsyncDetector,
)
from engine.timing.clock import NS_PER_S
from engine.timing.game_loop import PROBE_FRAMES


def pacer_settings(config: Config) -> PacerSettings:
    """The pacer settings a config asks for; ``[speedrun] enabled`` forces ``strict``."""
    timing = config.timing
    mode = TimingMode.STRICT if config.speedrun.enabled else TimingMode(timing.mode)
    return PacerSettings(
        mode=mode,
        max_frame_delta_ns=round(timing.max_frame_delta_s * NS_PER_S),
        max_updates_per_frame=timing.max_updates_per_frame,
        lock_tolerance=timing.lock_tolerance,
    )


def reported_refresh_hz(window: arcade.Window) -> float | None:
    """The refresh rate the OS reports for the window's screen mode, or ``None``.

    pyglet 2.1 gives it as ``window.screen.get_mode().rate`` (whole Hz on some platforms, so a
    59.94 Hz mode may say 60; fractional where the OS says so). A headless window has no mode.
    Anything unusable (missing, not finite, outside 20-1000 Hz) is ``None``: the refresh rate is
    then measured from the timestamps alone.
    """
    try:
        mode = window.screen.get_mode()
    except Exception:  # a platform without modes, or a closed display
        return None
    rate = getattr(mode, "rate", None)
    if not isinstance(rate, int | float) or not math.isfinite(rate) or not 20 <= rate <= 1000:
        return None
    return float(rate)


def frame_delay(config: Config, *, virtual: bool = False) -> FrameDelay | None:
    """The frame delay ``[timing] frame_delay`` asks for; none with ``strict`` timing (the
    speedrun mode included) and none on a virtual clock (headless, where frames cost no time
    and nobody waits for input)."""
    if virtual or pacer_settings(config).mode is TimingMode.STRICT:
        return None
    return FrameDelay.from_setting(config.timing.frame_delay)


def limiter_rate_hz(display_hz: float | None, tick_rate: TickRate, fps_limit: float) -> Fraction:
    """What the frame limiter paces at when vsync is off, not honoured or variable-refresh.

    The display's refresh rate (``display_hz``, as the OS reports it), so that a 144 Hz panel shows
    144 interpolated frames a second; the tick rate when it is unknown; never more than
    ``fps_limit`` (0: no cap).
    """
    rate = TickRate.from_hz(display_hz).rate_hz if display_hz else tick_rate.rate_hz
    if fps_limit:
        rate = min(rate, TickRate.from_hz(fps_limit).rate_hz)
    return rate


class Engine:
    """Runs scenes on an arcade window with exact fixed ticks and paced, interpolated frames.

    Args:
        window: The arcade window to drive (created by the caller, e.g. with
            :func:`engine.runtime.launch.open_window`).
        config: The loaded configuration.
        headless: Use virtual time (see the module docstring).
        display_hz: Refresh rate of the virtual display when headless.
        realtime: With ``headless``, wait for the virtual vblanks in wall time.
        probe_frames: Present-only frames at start-up that measure the display.
    """

    def __init__(
        self,
        window: arcade.Window,
        config: Config,
        *,
        headless: bool = False,
        display_hz: float = 60.0,
        realtime: bool = False,
        probe_frames: int = PROBE_FRAMES,
    ) -> None:
        self.window = window
        self.config = config
        self.tick_rate = TickRate.from_hz(config.timing.tick_rate_hz)
        #: Length of one fixed tick in seconds (use it for physics steps).
        self.step_s = self.tick_rate.step_s
        self.pacer = FramePacer(self.tick_rate, pacer_settings(config))
        vsync = config.video.vsync
        self.clock: ManualClock | RealClock = (
            ManualClock(0) if headless and not realtime else RealClock()
        )
        if headless:
            self.display: VirtualDisplay | None = VirtualDisplay(
                self.clock, window.flip, display_hz, vsync=vsync
            )
            present = self.display.present
            #: The refresh rate the OS reports (the virtual display's, headless), or ``None``.
            self.reported_hz: float | None = display_hz
        else:
            self.display = None
            window.set_vsync(vsync)
            present = window.flip
            self.reported_hz = reported_refresh_hz(window)
        limiter_hz = limiter_rate_hz(self.reported_hz, self.tick_rate, config.video.fps_limit)
        self.loop = GameLoop(
            clock=self.clock,
            pacer=self.pacer,
            fixed_update=self._fixed_update,
            render=self._render,
            present=present,
            poll_events=self._poll_events,
            detector=VsyncDetector(nominal_hz=self.reported_hz),
            limiter=FrameLimiter(limiter_hz),
            limit_when=LimitWhen.AUTO if vsync else LimitWhen.ALWAYS,
            probe_frames=probe_frames,
            probe=self._probe,
            frame_delay=frame_delay(config, virtual=isinstance(self.clock, ManualClock)),
        )
        self.bindings: KeyBindings = bindings_from_input_config(config.input)
        self.actions = ActionMap(game_action_names(config.input))
        #: The practice keys (``engine.app.practice``): sampled with the game's actions, then
        #: split off, so the game's snapshots (and replays) never carry them.
        self.practice_actions = ActionMap(PRACTICE_ACTIONS)
        self.practice_input = InputSnapshot.empty(self.practice_actions)
        self.sampler = InputSampler(ActionMap((*self.actions, *PRACTICE_ACTIONS)))
        #: Gamepads feed the same sampler as the keyboard (none are read when headless).
        self.gamepads = GamepadInput(config.gamepad, self.sampler)
        #: The device the player last pressed something on: ``"keyboard"`` or ``"gamepad"``
        #: (hints name its keys or buttons: :mod:`engine.input.hints`).
        self.input_device = "keyboard"
        self.gamepads.on_use = self._gamepad_used
        if not headless:
            self.gamepads.attach()
        self.stats = FrameStats.from_config(
            config.debug, pacer=self.pacer, target_hz=float(self.tick_rate.rate_hz)
        )
        self.overlay = DebugOverlay(self.stats, visible=config.debug.overlay)
        #: The game's picture: scenes draw into it, :meth:`Video.present` shows it scaled.
        self.video = Video(window, config.video)
        self.scene: Scene | None = None
        #: This thread's CPU time spent in ticks and in drawing, ns, since the start (the F3
        #: overlay and ``python -m engine.tools.bench --section game`` read them).
        self.cpu_tick_ns = 0
        self.cpu_render_ns = 0
        #: Called with each tick's input before the scene's ``on_tick``; when it returns True
        #: the input is consumed and the scene does not tick (keys that work on every screen,
        #: like the speedrun reset).
        self.global_input: Callable[[int, InputSnapshot], bool] | None = None
        self._capture_key: Callable[[int], bool] | None = None
        #: Called with the new config after :meth:`apply_config` (e.g. a game's sound bank).
        self.config_listeners: list[Callable[[Config], None]] = []
        #: The player's saved options (:class:`~engine.config.settings.UserSettings`), when the
        #: game keeps them; the options screen saves its changes there.
        self.settings: UserSettings | None = None
        self._captured: set[int] = set()
        self._closed = False
        self._last_render_ns: int | None = None
        self._fade: Fade | None = None
        self._fade_camera: arcade.Camera2D | None = None
        window.push_handlers(
            on_key_press=self._on_key_press,
            on_key_release=self._on_key_release,
            on_deactivate=self._on_deactivate,
            on_close=self._on_close,
        )

    # -- public API -------------------------------------------------------------------------------
    def show(self, scene: Scene) -> None:
        """Make ``scene`` the one that ticks and renders (arcade's ``show_view`` underneath)."""
        scene.engine = self
        self.scene = scene
        self.window.show_view(scene)

    def fade_in(self, duration_ms: int = FADE_MS) -> None:
        """Fade the picture in from black over ``duration_ms``, from the next frame drawn
        (a screen change: :mod:`engine.rendering.transition`). Drawing only; no state changes."""
        self._fade = Fade(duration_ms * 1_000_000)

    def resync(self) -> None:
        """Drop the time until the next frame: call after loading a level, so it is not simulated."""
        self.loop.resync()
        self._last_render_ns = None

    def run(self, frames: int | None = None) -> FrameReport | None:
        """Run frames until the window closes (or ``frames`` game frames have run)."""
        report = None
        while not self._closed and (frames is None or self.loop.frames < frames):
            report = self.run_frame()
        return report

    def run_frame(self) -> FrameReport:
        """Run one frame (or one start-up probe) of the loop."""
        tick_before, render_before = self.cpu_tick_ns, self.cpu_render_ns
        report = self.loop.run_frame()
        self.stats.record(report)
        if not report.probe:
            self.stats.record_cpu(
                self.cpu_tick_ns - tick_before, self.cpu_render_ns - render_before
            )
        return report

    def apply_config(self, config: Config) -> None:
        """Change the options of a running game at once: video, vsync, bindings, volumes.

        What can change: ``[video]`` fullscreen, scale, scale mode and vsync; ``[input]`` and
        ``[gamepad]`` bindings; everything the :attr:`config_listeners` follow (sound). The
        tick rate, timing mode and internal resolution stay as the game started.
        """
        old = self.config
        self.config = config
        video = config.video
        self.video.apply(video)
        if video.vsync != old.video.vsync:
            self.loop.limit_when = LimitWhen.AUTO if video.vsync else LimitWhen.ALWAYS
            if self.display is not None:
                self.display.vsync = video.vsync
            else:
                self.window.set_vsync(video.vsync)
            self.loop.display_changed()
        if video.fullscreen != self.window.fullscreen or video.scale != old.video.scale:
            self.set_fullscreen(video.fullscreen)
        if config.input != old.input:
            self.sampler.release_all()  # keys held through the old bindings
            self.bindings = bindings_from_input_config(config.input)
        if config.gamepad != old.gamepad:
            self.gamepads.rebind(config.gamepad)
        for listener in self.config_listeners:
            listener(config)

    def capture_input(
        self,
        on_key: Callable[[int], bool] | None = None,
        on_control: Callable[[str], bool] | None = None,
    ) -> None:
        """Send the next key presses (``on_key``) or gamepad controls (``on_control``) to a
        callback instead of pressing actions, until it returns True; no arguments stop it.

        The options screen rebinds this way: the key pressed presses nothing, and its release
        releases nothing.
        """
        self._capture_key = on_key
        self.gamepads.capture = on_control

    def toggle_fullscreen(self) -> None:
        """Fullscreen on or off (F11, Alt+Enter), remembered in the player's settings."""
        fullscreen = not self.config.video.fullscreen
        self.apply_config(config_with(self.config, "video.fullscreen", fullscreen))
        if self.settings is not None:
            self.settings.set("video.fullscreen", fullscreen)
            self.settings.save()

    def set_fullscreen(self, fullscreen: bool) -> None:
        """Go fullscreen or back to a window of ``[video] scale`` times the picture."""
        if self.display is not None:
            return  # headless: there is no screen to fill
        if fullscreen != self.window.fullscreen:
            self.window.set_fullscreen(fullscreen)
        if not fullscreen:
            width, height = self.video.size_px
            scale = self.config.video.scale
            self.window.set_size(width * scale, height * scale)
        # a window moved to (or from) another screen's mode may refresh at another rate
        self.display_rate_changed(reported_refresh_hz(self.window))
        self.loop.display_changed()
        self.resync()  # switching modes takes a moment: do not simulate it

    def display_rate_changed(self, reported_hz: float | None) -> None:
        """The OS now reports ``reported_hz`` for the screen (e.g. after going fullscreen).

        The vsync detector takes it as its new prior (to confirm, never trusted blindly) and
        the frame limiter paces at it (capped by ``[video] fps_limit``), as at start-up.
        """
        if reported_hz == self.reported_hz:
            return
        self.reported_hz = reported_hz
        self.loop.detector.nominal_hz = reported_hz
        if self.loop.limiter is not None:
            self.loop.limiter.retarget(
                limiter_rate_hz(reported_hz, self.tick_rate, self.config.video.fps_limit)
            )

    def render_frame(self, alpha: float) -> None:
        """Draw the current state once more without ticking or presenting (e.g. for a screenshot)."""
        self._render(alpha)

    def close(self) -> None:
        """Stop the loop and remove the engine's event handlers (the window stays open)."""
        self._closed = True
        self.gamepads.close()
        self.window.remove_handlers(
            on_key_press=self._on_key_press,
            on_key_release=self._on_key_release,
            on_deactivate=self._on_deactivate,
            on_close=self._on_close,
        )

    @property
    def closed(self) -> bool:
        """Whether the loop has stopped."""
        return self._closed

    # -- loop callbacks ------------------------------------------------------------------------
    def _poll_events(self) -> None:
        self.window.dispatch_events()

    def _fixed_update(self, tick: int) -> None:
        start_ns = time.thread_time_ns()
        try:
            snapshot, self.practice_input = split_practice(
                self.sampler.sample(), self.actions, self.practice_actions
            )
            if self.global_input is not None and self.global_input(tick, snapshot):
                return
            if self.scene is not None:
                self.scene.on_tick(tick, snapshot)
        finally:
            self.cpu_tick_ns += time.thread_time_ns() - start_ns

    def _render(self, alpha: float) -> None:
        start_ns = time.thread_time_ns()
        try:
            self._draw(alpha)
        finally:
            self.cpu_render_ns += time.thread_time_ns() - start_ns

    def _draw(self, alpha: float) -> None:
        frame = self.loop.frame_time
        now_ns = frame.smooth_ns if frame.smooth_ns is not None else frame.real_ns
        dt_s = (
            0.0
            if self._last_render_ns is None
            else max(0, now_ns - self._last_render_ns) / NS_PER_S
        )
        self._last_render_ns = now_ns
        window = self.window
        scene = self.scene
        self.video.begin(scene.background_color if scene is not None else (0, 0, 0, 255))
        if scene is not None:
            scene.on_render(alpha, dt_s)
        if self._fade is not None:
            self._draw_fade(now_ns)
        self.video.present()
        if self.overlay.visible:  # at the window's own resolution, at the bottom: never on the HUD
            window.default_camera.use()
            focus = getattr(scene, "focus_x_fraction", None)  # where the player is, 0..1
            right = focus is not None and focus < 0.5  # the bottom corner away from the player
            self.overlay.draw(window.width, window.height, from_bottom=True, right=right)

    def _draw_fade(self, now_ns: int) -> None:
        """The transition's black veil over the picture (one rectangle)."""
        assert self._fade is not None
        opacity = self._fade.alpha_at(now_ns)
        if self._fade.done(now_ns):
            self._fade = None
        if opacity <= 0:
            return
        if self._fade_camera is None:
            self._fade_camera = self.video.camera()
        self._fade_camera.use()
        width, height = self.video.size_px
        arcade.draw_lrbt_rectangle_filled(0, width, 0, height, (0, 0, 0, opacity))

    def _probe(self) -> None:
        self.window.clear()
        present = self.display.present if self.display is not None else self.window.flip
        present()

    # -- window events ---------------------------------------------------------------------------
    def _gamepad_used(self) -> None:
        self.input_device = "gamepad"

    def _on_key_press(self, symbol: int, modifiers: int) -> Any:
        self.input_device = "keyboard"
        if self._capture_key is not None:
            if self._capture_key(symbol):
                self._capture_key = None
            self._captured.add(symbol)
            return True  # presses no action, and its release releases none
        if symbol == arcade.key.F11 or (
            symbol in (arcade.key.ENTER, arcade.key.RETURN) and modifiers & arcade.key.MOD_ALT
        ):
            self.toggle_fullscreen()
            return True  # not also a menu choice
        for action in self.bindings.actions_for(symbol):
            if action == DEBUG_OVERLAY_ACTION:
                self.overlay.cycle()  # hidden -> compact -> full -> hidden
            elif action in self.sampler.action_map:
                self.sampler.press(action)
        return None

    def _on_key_release(self, symbol: int, modifiers: int) -> Any:
        if symbol in self._captured:
            self._captured.discard(symbol)
            return True
        for action in self.bindings.actions_for(symbol):
            if action != DEBUG_OVERLAY_ACTION and action in self.sampler.action_map:
                self.sampler.release(action)
        return None

    def _on_deactivate(self) -> Any:
        self.sampler.release_all()  # keys released while unfocused never arrive
        self.gamepads.forget_held()  # so a pad button held now presses again when pushed
        return None

    def _on_close(self) -> Any:
        self._closed = True
        return None


def split_practice(
    sampled: InputSnapshot, game: ActionMap, practice: ActionMap
) -> tuple[InputSnapshot, InputSnapshot]:
    """Split a snapshot of the game's actions followed by the practice ones into the two."""
    count = len(game)
    mask = (1 << count) - 1
    return (
        InputSnapshot(game, sampled.held & mask, sampled.pressed & mask, sampled.released & mask),
        InputSnapshot(
            practice, sampled.held >> count, sampled.pressed >> count, sampled.released >> count
        ),
    )
