"""The level scene: a Tiled level, its entities, a follow camera and the HUD.

:class:`LevelScene` is a :class:`~engine.runtime.scene.Scene`: the engine calls
:meth:`LevelScene.on_tick` once per fixed tick and :meth:`LevelScene.on_render` once per drawn
frame. All the rules live in :class:`~game.world_builder.LevelWorld` (physics and the entities:
the player, coins, enemies, platforms, crates...); this module adds what is *drawn*: the map's
layers (:class:`~engine.rendering.tilemap.TileMapView`, parallax included), one sprite per entity
at its interpolated pose (:class:`~engine.rendering.entity_sprites.EntitySprites`), the ropes of
swings, a follow camera and the HUD; and what happens *around* the play: the pause menu, the fast
restart key and the sounds.

Pause and restart: ``pause`` (Esc, P, Start) freezes the level and shows a menu (resume, restart
level, options, quit to title); ``restart`` (R) restarts at once. Restarting, the options screen
and quitting are the game's business, so the scene only calls ``on_restart`` / ``on_options`` /
``on_quit``; menu items whose callback is not given are left out. While paused no level tick
runs, so the in-game time stops.

Typical use::

    scene = LevelScene.for_engine(engine, "levels/level1.json", tuning, on_complete=next_level)
    engine.show(scene)
    engine.resync()  # loading took a while: do not simulate the time it took

Scripted input (tests, demos, attract mode): pass ``script``, a function from the tick number to
an :class:`~engine.input.snapshot.InputSnapshot`; the scene then ignores the live input it is given.

Graphics are loaded on the first :meth:`on_render`, so a scene can be built and ticked without
drawing. Drawing never changes the simulation: the sprites follow the entities once per new
tick, and sounds play for the events the simulation logged since the last frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, Self, cast

import arcade
import numpy as np
import numpy.typing as npt

from engine.config import PhysicsConfig
from engine.input.snapshot import InputSnapshot
from engine.levels import KindRegistry, Level, load_level
from engine.physics.world import PoseMode
from engine.rendering.camera import CameraSettings, FollowCamera
from engine.rendering.entity_sprites import EntitySprites
from engine.rendering.particles import PointBatch, ScreenOverlay
from engine.rendering.tilemap import TileMapView
from engine.runtime.audio import SoundBank
from engine.runtime.fonts import UI_FONT, load_fonts
from engine.runtime.menu import Menu, MenuPanel
from engine.runtime.scene import Scene
from game.conventions import CONVENTIONS
from game.effects import Effects
from game.entities.platforms import Swing
from game.kinds import KINDS
from game.movement import PlayerTuning
from game.world_builder import LevelWorld

__all__ = ["SOUND_FILES", "InputScript", "LevelScene"]

#: A scripted input source: the tick number in, that tick's input out.
InputScript = Callable[[int], InputSnapshot]

BACKGROUND_COLOR = arcade.color.SKY_BLUE
ROPE_COLOR = (92, 64, 40)
HUD_MARGIN_PX = 6
HUD_FONT_SIZE = 9
PARTICLE_PX = 3.0
GHOST_ALPHA = 110
"""The ghost's opacity (0..255): seen, never mistaken for the player."""
GHOST_TINT = (170, 210, 255)
"""The ghost's colour: the player's art tinted pale blue."""
SPARKLE_PX = 2.0
IRIS_CENTRE_UP_PX = 12.0
"""The iris closes on the player's middle, not the feet the events record."""

#: The level's sound effects (arcade's bundled Kenney sounds, CC0), by event name (see
#: :class:`~game.world_builder.Event`). Events without a sound here are silent.
SOUND_FILES = {
    "jump": ":resources:sounds/jump1.wav",
    "coin": ":resources:sounds/coin1.wav",
    "hurt": ":resources:sounds/hurt1.wav",
    "complete": ":resources:sounds/upgrade1.wav",
    "stomp": ":resources:sounds/hit2.wav",
    "spring": ":resources:sounds/jump4.wav",
    "crate": ":resources:sounds/rockHit2.wav",
    "crumble": ":resources:sounds/explosion2.wav",
    "checkpoint": ":resources:sounds/upgrade4.wav",
    "respawn": ":resources:sounds/phaseJump1.wav",
}


class Ghost(Protocol):
    """What the scene asks of a ghost (the speedrun's personal best, in ``ghost.py``): its own
    world, ticked with the level's ticks; only its player is drawn."""

    @property
    def world(self) -> LevelWorld:
        """The ghost's own simulation of the level."""
        ...

    def tick(self) -> None:
        """Advance one tick, in lockstep with the level."""
        ...


class LevelScene(Scene):
    """One playable level.

    Args:
        level_path: The Tiled map (see ``levels/README.md``).
        tuning: Player tuning; ``tuning.tile_px`` is the game's tile size, and the map is scaled
            by ``tile_px / map tile size``.
        step_s: Length of one tick; must equal the engine's ``step_s`` (see :meth:`for_engine`).
        physics: ``[physics]`` (gravity of everything dynamic, substeps, solver iterations).
        kinds: The kinds the level's objects may have (default: the sample game's).
        on_complete: Called once when the player reaches an exit (inside that tick).
        script: Replaces live input with ``script(tick)`` when given.
        on_restart: Restart the level (the ``restart`` key and the pause menu call it).
        on_quit: Leave the level for the title screen (from the pause menu).
        on_options: Open the options screen (from the pause menu); the level stays paused.
        sounds: Where the events' sounds play (see :data:`SOUND_FILES`).
        hud_extra: Lines drawn at the top right of the HUD each frame (the speedrun timer).
        show_hud: Draw the HUD (off behind a title screen).

    Attributes:
        paused: The pause menu is open and the level does not tick.
        level_path: The map file.
        level: The level in game px.
        sim: The simulation (physics, entities, gameplay state).
        script: The scripted input source, or None for live input.
    """

    def __init__(
        self,
        level_path: Path | str,
        tuning: PlayerTuning,
        *,
        step_s: float = 1.0 / 60.0,
        physics: PhysicsConfig | None = None,
        kinds: KindRegistry = KINDS,
        on_complete: Callable[[], None] | None = None,
        script: InputScript | None = None,
        on_restart: Callable[[], None] | None = None,
        on_quit: Callable[[], None] | None = None,
        sounds: SoundBank | None = None,
        hud_extra: Callable[[], Sequence[str]] | None = None,
        on_options: Callable[[], None] | None = None,
        show_hud: bool = True,
    ) -> None:
        self.level_path = Path(level_path)
        self.level: Level = load_level(self.level_path, kinds, CONVENTIONS).scaled(tuning.tile_px)
        super().__init__(background_color=self.level.background_color or BACKGROUND_COLOR)
        self.on_restart = on_restart
        self.on_quit = on_quit
        self.on_options = on_options
        self.sounds = sounds
        self.hud_extra = hud_extra
        self.show_hud = show_hud
        self.paused = False
        items = [("resume", "Resume")]
        if on_restart is not None:
            items.append(("restart", "Restart level"))
        if on_options is not None:
            items.append(("options", "Options"))
        if on_quit is not None:
            items.append(("title", "Quit to title"))
        self.pause_menu = Menu.of(*items)
        self._pause_panel = MenuPanel("Paused", (), self.pause_menu, dim_background=True)
        self.script = script
        self.sim = LevelWorld(self.level, tuning, step_s, physics=physics, on_complete=on_complete)
        self.follow = FollowCamera(CameraSettings())
        self._graphics_loaded = False
        self._tilemap: TileMapView | None = None
        self._entity_sprites: EntitySprites | None = None
        self._shown_tick = -1
        self._camera: arcade.Camera2D | None = None
        self._hud_camera: arcade.Camera2D | None = None
        self._hud_text: arcade.Text | None = None
        self._hud_shown: tuple[int, int] | None = None
        self._extra_texts: list[arcade.Text] = []
        #: What the effects look like (see :mod:`game.effects`): computed, never stored in state.
        self.effects = Effects(step_s)
        self._points: PointBatch | None = None
        self._overlay: ScreenOverlay | None = None
        self._coin_ids: npt.NDArray[np.int64] | None = None
        self._coins_xy_px: npt.NDArray[np.float64] | None = None
        # the coin glints of one tick (they change only with it), and the tick they belong to
        self._glints: tuple[int, npt.NDArray[np.float32], npt.NDArray[np.uint8]] | None = None
        self._heard = self.sim.events.count
        #: The personal best's ghost (see :class:`Ghost`), ticked with the level; drawing only.
        self.ghost: Ghost | None = None
        self._ghost_sprites: EntitySprites | None = None
        self._ghost_drawn: Ghost | None = None

    @classmethod
    def for_engine(
        cls,
        engine: Any,
        level_path: Path | str,
        tuning: PlayerTuning,
        *,
        on_complete: Callable[[], None] | None = None,
        script: InputScript | None = None,
        **scene_options: Any,
    ) -> Self:
        """Build a scene with the engine's tick length and physics settings.

        ``scene_options`` are the other keyword arguments of the constructor (``kinds``,
        ``on_restart``, ``on_quit``, ``on_options``, ``sounds``, ``hud_extra``, ``show_hud``).
        """
        return cls(
            level_path,
            tuning,
            step_s=engine.step_s,
            physics=engine.config.physics,
            on_complete=on_complete,
            script=script,
            **scene_options,
        )

    # -- state ---------------------------------------------------------------------------------
    @property
    def completed(self) -> bool:
        """The player has reached an exit."""
        return self.sim.completed

    @property
    def coins_collected(self) -> int:
        """Number of coins collected so far."""
        return self.sim.coins_collected

    def state_hash(self) -> str:
        """Fingerprint of the level's state (see :meth:`LevelWorld.state_hash`)."""
        return self.sim.state_hash()

    # -- engine callbacks ----------------------------------------------------------------------
    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Handle pause and restart, then advance the level one tick (with the script's input).

        Raises:
            ValueError: The engine's tick length differs from the one the scene was built with.
        """
        if self.handle_pause_and_restart(snapshot):
            return
        if self.script is not None:
            snapshot = self.script(tick)
        self.advance(snapshot)

    def handle_pause_and_restart(self, live: InputSnapshot) -> bool:
        """Apply the live input's pause and restart keys and the pause menu.

        Returns:
            True when the level must not tick this tick (paused, or left).
        """
        actions = live.action_map
        if self.completed:
            return False
        if self.on_restart is not None and "restart" in actions and live.was_pressed("restart"):
            self.on_restart()
            return True
        if "pause" in actions and live.was_pressed("pause"):
            self.paused = not self.paused
            self.pause_menu.selected = 0
            return True
        if not self.paused:
            return False
        chosen = self.pause_menu.handle(live)
        if chosen == "resume":
            self.paused = False
        elif chosen == "restart" and self.on_restart is not None:
            self.on_restart()
        elif chosen == "title" and self.on_quit is not None:
            self.on_quit()
        elif chosen == "options" and self.on_options is not None:
            self.on_options()  # the level stays paused; coming back shows it as it was
        return True

    def advance(self, snapshot: InputSnapshot) -> None:
        """Run one level tick with ``snapshot`` (no pause handling, no script).

        Raises:
            ValueError: The engine's tick length differs from the one the scene was built with.
        """
        engine = getattr(self, "engine", None)
        if engine is not None and engine.step_s != self.sim.dt_s:
            raise ValueError(
                f"the scene was built for {self.sim.dt_s} s ticks but the engine runs "
                f"{engine.step_s} s ticks: build it with LevelScene.for_engine(engine, ...)"
            )
        self.sim.tick(snapshot)
        if self.ghost is not None:
            self.ghost.tick()  # lockstep: one ghost tick per level tick

    def on_render(self, alpha: float, frame_dt_s: float) -> None:
        """Draw the layers, the entities and the HUD (and the pause menu when paused)."""
        self._load_graphics()
        assert self._camera is not None and self._hud_camera is not None
        assert self._tilemap is not None and self._entity_sprites is not None
        mode: PoseMode = "interpolate"
        engine = getattr(self, "engine", None)
        if engine is not None:
            mode = cast(PoseMode, engine.config.render.mode)  # validated by [render] mode's choices
        sim = self.sim
        if sim.ticks != self._shown_tick:  # sprites follow the entities once per new tick
            self._shown_tick = sim.ticks
            self._entity_sprites.update(sim.ticks)
            self._tilemap.advance(sim.ticks)
        poses = sim.physics.interpolated_poses(alpha, mode)
        player = sim.player
        x_px, y_px, _ = poses[sim.physics.row_of(player.body)]
        velocity = player.body.velocity
        view = self.follow.update(
            (float(x_px), float(y_px)),
            (float(velocity.x), float(velocity.y)),
            frame_dt_s,
            self._viewport(),
            self._bounds(),
        )
        # Effects are drawn from the event log at the moment shown (see game.effects).
        drawn_ticks = sim.ticks - 1 + alpha if mode == "interpolate" else sim.ticks + alpha
        events = sim.events
        if engine is None or engine.config.video.screen_shake:
            shake_x, shake_y = Effects.shake_px(events, drawn_ticks)
            view = (view[0] + shake_x, view[1] + shake_y)
        self._tilemap.draw(self._camera, view, foreground=False)
        for swing in sim.entities.of_type(Swing):  # the ropes, drawn from the interpolated pose
            sx, sy, _ = poses[sim.physics.row_of(swing.body)]
            arcade.draw_line(*swing.pivot_px, float(sx), float(sy), ROPE_COLOR, 3)
        self._draw_ghost(alpha, mode)
        self._entity_sprites.draw(alpha, mode)
        self._draw_particles(drawn_ticks)
        self._tilemap.draw(self._camera, view, foreground=True)
        self._draw_overlay(drawn_ticks, view)
        if self.show_hud:
            self._draw_hud()
        if self.paused:
            self._pause_panel.draw(*self._viewport_int())
        self.play_sounds()

    # -- sounds ------------------------------------------------------------------------------
    def play_sounds(self) -> None:
        """Play the sound of each kind of event logged since the last call (once per kind).

        Called by each render, never by a tick. A game that leaves the scene right after a
        tick calls it once more, so the last events (the level's completion) are heard even if
        no frame was drawn in between.
        """
        events = self.sim.events.since(self._heard)
        self._heard = self.sim.events.count
        if self.sounds is None or not events:
            return
        for name in dict.fromkeys(event.name for event in events):
            if name in SOUND_FILES:
                self.sounds.play(name)

    # -- effects -----------------------------------------------------------------------------
    def _draw_particles(self, drawn_ticks: float) -> None:
        """Dust, sparks and coin glints, through the world camera (one draw call each)."""
        assert self._points is not None
        assert self._coins_xy_px is not None and self._coin_ids is not None
        sim = self.sim
        xy, rgba = self.effects.particles(sim.events, drawn_ticks)
        self._points.draw(xy, rgba, PARTICLE_PX)
        glints = self._glints
        if glints is None or glints[0] != sim.ticks:  # once per tick, not per frame
            left = np.isin(self._coin_ids, list(sim.collected), invert=True)
            xy, rgba = Effects.coin_sparkles(
                self._coins_xy_px[left], sim.ticks, sim.level.tile_size_px / 2
            )
            glints = self._glints = (sim.ticks, xy, rgba)
        self._points.draw(glints[1], glints[2], SPARKLE_PX)

    def _draw_overlay(self, drawn_ticks: float, view: tuple[float, float]) -> None:
        """The hurt flash and the respawn iris, over the whole picture."""
        assert self._overlay is not None
        events = self.sim.events
        wash = Effects.flash_rgba(events, drawn_ticks)
        iris = Effects.iris(events, drawn_ticks)
        width, height = self._viewport_int()
        circle = None
        if iris is not None:  # world px -> picture px, and openness -> a radius
            x_px, y_px, openness = iris
            centre = (x_px - view[0] + width / 2, y_px + IRIS_CENTRE_UP_PX - view[1] + height / 2)
            circle = (*centre, openness * float(np.hypot(width, height)))
        self._hud_camera.use()  # type: ignore[union-attr]
        self._overlay.draw((width, height), wash_rgba=wash, iris=circle)

    def _draw_ghost(self, alpha: float, mode: PoseMode) -> None:
        """The ghost's player, translucent, behind the level's entities (if there is a ghost)."""
        ghost = self.ghost
        if ghost is None:
            return
        if self._ghost_drawn is not ghost or self._ghost_sprites is None:
            world = ghost.world
            only_player = cast(Any, [world.player])  # the ghost's coins and enemies stay unseen
            self._ghost_sprites = EntitySprites(only_player, world.physics, self.level.art_scale)
            self._ghost_sprites.sprite_list.alpha = GHOST_ALPHA
            self._ghost_sprites.sprite_list.color = (*GHOST_TINT, GHOST_ALPHA)
            self._ghost_drawn = ghost
        self._ghost_sprites.update(ghost.world.ticks)
        self._ghost_sprites.draw(alpha, mode)

    # -- drawing helpers -----------------------------------------------------------------------
    def _viewport_int(self) -> tuple[int, int]:
        return self.engine.video.size_px

    def _viewport(self) -> tuple[float, float]:
        width, height = self._viewport_int()
        return (float(width), float(height))

    def _bounds(self) -> tuple[float, float, float, float]:
        return (0.0, 0.0, float(self.level.width_px), float(self.level.height_px))

    def _load_graphics(self) -> None:
        """Build the layers' sprites, the entity sprites, cameras and HUD text (once)."""
        if self._graphics_loaded:
            return
        self._tilemap = TileMapView(self.level, self.sim.dt_s)
        self._entity_sprites = EntitySprites(
            self.sim.entities, self.sim.physics, self.level.art_scale
        )
        engine = getattr(self, "engine", None)
        if engine is not None:
            self.follow.set_settings(CameraSettings.from_config(engine.config))
        ctx = self.engine.video.window.ctx
        self._points = PointBatch(ctx)
        self._overlay = ScreenOverlay(ctx)
        coins = self.level.coins
        self._coin_ids = np.array([coin.id for coin in coins], dtype=np.int64)
        self._coins_xy_px = np.array(
            [coin.rect.center_px for coin in coins], dtype=np.float64
        ).reshape(-1, 2)
        load_fonts()
        self._camera = self.engine.video.camera()
        self._hud_camera = self.engine.video.camera()
        self._hud_text = arcade.Text(
            "",
            HUD_MARGIN_PX,
            self._viewport_int()[1] - HUD_MARGIN_PX,
            arcade.color.WHITE,
            HUD_FONT_SIZE,
            anchor_y="top",
            font_name=UI_FONT,
        )
        x, y = self.sim.player.body.position
        self.follow.teleport(
            float(x), float(y), viewport_px=self._viewport(), level_bounds_px=self._bounds()
        )
        self._graphics_loaded = True

    def _draw_hud(self) -> None:
        """The level name and coins collected / total, in screen space."""
        assert self._hud_camera is not None and self._hud_text is not None
        shown = (self.sim.coins_collected, len(self.level.coins))
        if shown != self._hud_shown:
            self._hud_text.text = f"{self.level.name}    coins {shown[0]} / {shown[1]}"
            self._hud_shown = shown
        self._hud_text.y = self._viewport_int()[1] - HUD_MARGIN_PX
        self._hud_camera.use()
        self._hud_text.draw()
        if self.hud_extra is not None:
            self._draw_extra_lines(list(self.hud_extra()))

    def _draw_extra_lines(self, lines: list[str]) -> None:
        """Draw ``lines`` right-aligned at the top right, one Text per line (reused)."""
        while len(self._extra_texts) < len(lines):
            self._extra_texts.append(
                arcade.Text("", 0, 0, arcade.color.WHITE, HUD_FONT_SIZE, anchor_x="right")
            )
        width, height = self._viewport_int()
        y = height - HUD_MARGIN_PX - HUD_FONT_SIZE
        for text, line in zip(self._extra_texts, lines, strict=False):
            if text.text != line:
                text.text = line
            text.x = width - HUD_MARGIN_PX
            text.y = y
            text.draw()
            y -= round(HUD_FONT_SIZE * 1.6)
