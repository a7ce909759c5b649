"""The level scene: a Tiled level, its entities, a follow camera and the HUD.

:class:`LevelScene` is the game's :class:`~engine.app.play_scene.PlayScene`: the engine calls
its ``on_tick`` once per fixed tick and :meth:`LevelScene.on_render` once per drawn frame. All
the rules live in :class:`~game.world_builder.LevelWorld` (physics and the entities: the player,
coins, enemies, platforms, crates...); this module adds what is *drawn*: the map's layers
(:class:`~engine.rendering.tilemap.TileMapView`, parallax included), one sprite per entity at its
interpolated pose (:class:`~engine.rendering.entity_sprites.EntitySprites`), the ropes of swings,
a follow camera, the HUD, the effects and the sounds. What happens *around* play (the input tape
of recordings and replays, pause, restart, the ghost's lockstep, scripted input) is the
engine's, in :class:`~engine.app.play_scene.PlayScene`.

Typical use::

    scene = LevelScene.for_engine(engine, "levels/level1.json", tuning, on_complete=next_level)
    engine.show(scene)
    engine.resync()  # loading took a while: do not simulate the time it took

The engine builds it through the game's definition (:func:`make_scene`).

Graphics are loaded on the first :meth:`on_render`, so a scene can be built and ticked without
drawing. Drawing never changes the simulation: the sprites follow the entities once per new
tick, and sounds play for the events the simulation logged since the last frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self, cast

import arcade
import numpy as np
import numpy.typing as npt
from pyglet.math import Mat4, Vec3

from engine.app.play_scene import InputScript, PlayScene
from engine.config import PhysicsConfig
from engine.levels import KindRegistry, Level, load_level
from engine.physics.world import PoseMode
from engine.rendering.camera import CameraSettings, FollowCamera
from engine.rendering.entity_sprites import EntitySprites
from engine.rendering.hud_text import HudLine, HudLines, OutlinedText
from engine.rendering.particles import PointBatch, ScreenOverlay
from engine.rendering.tilemap import TileMapView
from engine.runtime.audio import SoundBank
from game.conventions import CONVENTIONS
from game.definition import SOUND_FILES
from game.effects import Effects
from game.entities.enemies import Enemy
from game.entities.gadgets import Spring
from game.entities.platforms import Swing
from game.kinds import KINDS
from game.movement import PlayerTuning
from game.world_builder import LevelWorld

__all__ = ["LevelScene"]

BACKGROUND_COLOR = arcade.color.SKY_BLUE
ROPE_COLOR = (92, 64, 40)
HUD_MARGIN_PX = 6
PARTICLE_PX = 3.0
GHOST_ALPHA = 110
"""The ghost's opacity (0..255): seen, never mistaken for the player."""
GHOST_TINT = (170, 210, 255)
"""The ghost's colour: the player's art tinted pale blue."""
SPARKLE_PX = 2.0
OUTLINE_RGB = (20, 16, 36, 255)
"""The outline of enemies and gadgets: the HUD text's (engine.rendering.hud_text)."""
OUTLINE_OFFSETS_PX = ((-1, 0), (1, 0), (0, -1), (0, 1))
OUTLINED_ENTITIES = (Enemy, Spring)
"""What gets an outline: what hurts or throws the player."""
IRIS_CENTRE_UP_PX = 12.0
"""The iris closes on the player's middle, not the feet the events record."""


class LevelScene(PlayScene):
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
        hud_extra: Callable[[], Sequence[HudLine]] | None = None,
        on_options: Callable[[], None] | None = None,
        show_hud: bool = True,
    ) -> None:
        self.level_path = Path(level_path)
        self.level: Level = load_level(self.level_path, kinds, CONVENTIONS).scaled(tuning.tile_px)
        super().__init__(
            step_s=step_s,
            on_complete=on_complete,
            script=script,
            on_restart=on_restart,
            on_quit=on_quit,
            on_options=on_options,
            sounds=sounds,
            hud_extra=hud_extra,
            show_hud=show_hud,
            background_color=self.level.background_color or BACKGROUND_COLOR,
        )
        self.sim: LevelWorld = LevelWorld(
            self.level, tuning, step_s, physics=physics, on_complete=on_complete
        )
        self.follow = FollowCamera(CameraSettings())
        self._graphics_loaded = False
        self._tilemap: TileMapView | None = None
        self._entity_sprites: EntitySprites | None = None
        self._outlined: EntitySprites | None = None  # enemies and springs, drawn as outlines
        self._shown_tick = -1
        self._camera: arcade.Camera2D | None = None
        self._hud_camera: arcade.Camera2D | None = None
        self._hud_text: OutlinedText | None = None  # every HUD label, outlined, one draw
        self._hud_left: HudLines | None = None  # the level's name and coins
        self._hud_right: HudLines | None = None  # the engine's lines (the speedrun timer)
        #: What the effects look like (see :mod:`game.effects`): computed, never stored in state.
        self.effects = Effects(step_s)
        self._points: PointBatch | None = None
        self._overlay: ScreenOverlay | None = None
        self._coin_ids: npt.NDArray[np.int64] | None = None
        self._coins_xy_px: npt.NDArray[np.float64] | None = None
        # the coin glints of one tick (they change only with it), and the tick they belong to
        self._glints: tuple[int, npt.NDArray[np.float32], npt.NDArray[np.uint8]] | None = None
        self._heard = self.sim.events.count
        self._ghost_sprites: EntitySprites | None = None
        self._ghost_drawn: object | None = None  # the ghost whose sprites are built

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
            if self._outlined is not None:
                self._outlined.update(sim.ticks)
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
        self.focus_x_fraction = (float(x_px) - view[0]) / self._viewport()[0] + 0.5
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
        self._draw_outlines(alpha, mode)
        self._entity_sprites.draw(alpha, mode)
        self._draw_particles(drawn_ticks)
        self._tilemap.draw(self._camera, view, foreground=True)
        self._draw_overlay(drawn_ticks, view)
        if self.show_hud:
            self._draw_hud()
        self.draw_pause_menu(*self._viewport_int())
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

    def _draw_outlines(self, alpha: float, mode: PoseMode) -> None:
        """A dark one-pixel outline around enemies and springs, so they read at a glance over
        any backdrop (a light-blue slime on light-blue hills): their sprites drawn as dark
        silhouettes at the four one-pixel offsets, under the sprites themselves."""
        outlined = self._outlined
        if outlined is None or not len(outlined.sprite_list):
            return
        outlined.sync.write(alpha, mode)  # the poses once, the silhouettes four times
        window = self.engine.video.window
        view = window.view
        for dx, dy in OUTLINE_OFFSETS_PX:
            window.view = view @ Mat4.from_translation(Vec3(dx, dy, 0))
            outlined.sprite_list.draw(pixelated=True)
        window.view = view

    def _draw_ghost(self, alpha: float, mode: PoseMode) -> None:
        """The ghost's player, translucent, behind the level's entities (if there is a ghost)."""
        ghost = self.ghost
        if ghost is None:
            return
        if self._ghost_drawn is not ghost or self._ghost_sprites is None:
            world = cast(LevelWorld, ghost.world)
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
        outlined = cast(Any, [e for e in self.sim.entities if isinstance(e, OUTLINED_ENTITIES)])
        self._outlined = EntitySprites(outlined, self.sim.physics, self.level.art_scale)
        self._outlined.sprite_list.color = OUTLINE_RGB
        self._outlined.update(self.sim.ticks)
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
        self._camera = self.engine.video.camera()
        self._hud_camera = self.engine.video.camera()
        self._hud_text = OutlinedText()
        self._hud_left = HudLines("left", text=self._hud_text)
        self._hud_right = HudLines("right", text=self._hud_text)
        x, y = self.sim.player.body.position
        self.follow.teleport(
            float(x), float(y), viewport_px=self._viewport(), level_bounds_px=self._bounds()
        )
        self._graphics_loaded = True

    def _draw_hud(self) -> None:
        """The level's name and the coins at the top left, the engine's lines at the top right.

        Every line is outlined pixel text at the internal resolution (:mod:`engine.rendering.hud_text`),
        so it reads over the sky, clouds and pillars alike and scales with the picture.
        """
        assert self._hud_camera is not None and self._hud_text is not None
        assert self._hud_left is not None and self._hud_right is not None
        width, height = self._viewport_int()
        collected, total = self.sim.coins_collected, len(self.level.coins)
        self._hud_left.set(
            [self.level.name, f"coins {collected} / {total}"], HUD_MARGIN_PX, height - HUD_MARGIN_PX
        )
        extra = self.extra_hud_lines()  # the practice line, the speedrun timer
        self._hud_right.set(extra, width - HUD_MARGIN_PX, height - HUD_MARGIN_PX)
        self._hud_camera.use()
        self._hud_text.draw()
