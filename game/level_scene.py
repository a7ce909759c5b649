"""The level scene: a Tiled level, the player, coins, hazards and the exit.

:class:`LevelScene` is a :class:`~engine.runtime.scene.Scene`: the engine calls :meth:`LevelScene.on_tick`
once per fixed tick and :meth:`LevelScene.on_render` once per drawn frame. All the rules live in
:class:`~game.world_builder.LevelWorld` (physics, the player motor, coins, checkpoints, hazards,
exits); this module adds what is *drawn*: the map's tiles, coins not yet collected, the moving
platforms, the player at its interpolated pose, a follow camera and the HUD; and what happens
*around* the play: the pause menu, the fast restart key and the sounds.

Pause and restart: ``pause`` (Esc, P, Start) freezes the level and shows a menu (resume, restart
level, quit to title); ``restart`` (R) restarts at once. Restarting and quitting are the game's
business, so the scene only calls ``on_restart`` / ``on_quit``; menu items whose callback is
not given are left out. While paused no level tick runs, so the in-game time stops.

Typical use::

    scene = LevelScene.for_engine(engine, "levels/level1.json", tuning, on_complete=next_level)
    engine.show(scene)
    engine.resync()  # loading took a while: do not simulate the time it took

Scripted input (tests, demos, attract mode): pass ``script``, a function from the tick number to
an :class:`~engine.input.snapshot.InputSnapshot`; the scene then ignores the live input it is given.

Graphics (the tile map, coin sprites, the HUD text) are loaded on the first :meth:`on_render`, so a
scene can be built and ticked without drawing. The player and platform sprites are plain sprites
in a lazy sprite list, created up front because the physics world registers them with their bodies.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self, cast

import arcade

from engine.input.snapshot import InputSnapshot
from engine.levels import Level, load_level
from engine.physics.world import PoseMode
from engine.rendering.camera import CameraSettings, FollowCamera
from engine.rendering.sprite_sync import SpriteSync, TrackedSpriteList
from engine.runtime.audio import SoundBank
from engine.runtime.scene import Scene
from game.menus import Menu, MenuPanel
from game.movement import PlayerTuning
from game.world_builder import LevelWorld, scale_level

__all__ = ["COIN_TEXTURE", "PLAYER_TEXTURE", "SOUND_FILES", "InputScript", "LevelScene"]

#: A scripted input source: the tick number in, that tick's input out.
InputScript = Callable[[int], InputSnapshot]

PLAYER_TEXTURE = ":resources:images/animated_characters/female_person/femalePerson_idle.png"
COIN_TEXTURE = Path(__file__).resolve().parent.parent / "levels" / "tiles" / "coinGold.png"
BACKGROUND_COLOR = arcade.color.SKY_BLUE
PLATFORM_COLOR = arcade.color.DARK_BROWN
HUD_MARGIN_PX = 10
HUD_FONT_SIZE = 14

#: The level's sound effects (arcade's bundled Kenney sounds, CC0), by event.
SOUND_FILES = {
    "jump": ":resources:sounds/jump1.wav",
    "coin": ":resources:sounds/coin1.wav",
    "hurt": ":resources:sounds/hurt1.wav",
    "complete": ":resources:sounds/upgrade1.wav",
}


def _tile_layer_names(map_path: Path) -> set[str]:
    """Names of the map's tile layers, including those inside group layers."""
    names: set[str] = set()
    pending = list(json.loads(map_path.read_text(encoding="utf-8")).get("layers", []))
    while pending:
        layer = pending.pop()
        if layer.get("type") == "group":
            pending.extend(layer.get("layers", []))
        elif layer.get("type") == "tilelayer":
            names.add(str(layer.get("name", "")))
    return names


class LevelScene(Scene):
    """One playable level.

    Args:
        level_path: The Tiled JSON map (see ``levels/README.md``).
        tuning: Player tuning; ``tuning.tile_px`` is the game's tile size, and the map is scaled
            by ``tile_px / map tile size``.
        step_s: Length of one tick; must equal the engine's ``step_s`` (see :meth:`for_engine`).
        substeps: Physics substeps per tick.
        iterations: pymunk solver iterations.
        on_complete: Called once when the player reaches an exit (inside that tick).
        script: Replaces live input with ``script(tick)`` when given.
        on_restart: Restart the level (the ``restart`` key and the pause menu call it).
        on_quit: Leave the level for the title screen (from the pause menu).
        sounds: Where jump, coin, hurt and complete sounds play (see :data:`SOUND_FILES`).
        hud_extra: Lines drawn at the top right of the HUD each frame (the speedrun timer).

    Attributes:
        paused: The pause menu is open and the level does not tick.
        level_path: The map file.
        level: The level in game px.
        sim: The simulation (physics, player, gameplay state).
        scale: Map px to game px factor.
        script: The scripted input source, or None for live input.
    """

    def __init__(
        self,
        level_path: Path | str,
        tuning: PlayerTuning,
        *,
        step_s: float = 1.0 / 60.0,
        substeps: int = 1,
        iterations: int = 10,
        on_complete: Callable[[], None] | None = None,
        script: InputScript | None = None,
        on_restart: Callable[[], None] | None = None,
        on_quit: Callable[[], None] | None = None,
        sounds: SoundBank | None = None,
        hud_extra: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        super().__init__(background_color=BACKGROUND_COLOR)
        self.on_restart = on_restart
        self.on_quit = on_quit
        self.sounds = sounds
        self.hud_extra = hud_extra
        self.paused = False
        items = [("resume", "Resume")]
        if on_restart is not None:
            items.append(("restart", "Restart level"))
        if on_quit is not None:
            items.append(("title", "Quit to title"))
        self.pause_menu = Menu.of(*items)
        self._pause_panel = MenuPanel("Paused", (), self.pause_menu, dim_background=True)
        self.level_path = Path(level_path)
        raw_level = load_level(self.level_path)
        self.scale = tuning.tile_px / raw_level.tile_size_px
        self.level: Level = scale_level(raw_level, tuning.tile_px)
        self.script = script

        # Sprites registered with bodies: the player and the moving platforms.
        self.body_sprites: TrackedSpriteList[arcade.Sprite] = TrackedSpriteList(lazy=True)
        platform_sprites: list[object] = []
        for platform in self.level.moving_platforms:
            sprite = arcade.SpriteSolidColor(
                round(platform.rect.width_px), round(platform.rect.height_px), color=PLATFORM_COLOR
            )
            self.body_sprites.append(sprite)
            platform_sprites.append(sprite)
        self._player_texture_right = arcade.load_texture(PLAYER_TEXTURE)
        self._player_texture_left = self._player_texture_right.flip_left_right()
        self.player_sprite = arcade.Sprite(self._player_texture_right)
        self.body_sprites.append(self.player_sprite)

        self.sim = LevelWorld(
            self.level,
            tuning,
            step_s,
            substeps=substeps,
            iterations=iterations,
            player_sprite=self.player_sprite,
            platform_sprites=platform_sprites,
            on_complete=on_complete,
        )
        # Fit the art's height to the body's (keeping its shape), so the feet meet the ground.
        self.player_sprite.scale = self.sim.player_height_px / self._player_texture_right.height
        self.sync = SpriteSync(self.sim.world, self.body_sprites)
        self.follow = FollowCamera(CameraSettings())
        self._graphics_loaded = False
        self._tile_lists: list[arcade.SpriteList[Any]] = []
        self._coin_sprites: dict[int, arcade.Sprite] = {}
        self._coin_list: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList(lazy=True)
        self._camera: arcade.Camera2D | None = None
        self._hud_camera: arcade.Camera2D | None = None
        self._hud_text: arcade.Text | None = None
        self._hud_shown: tuple[int, int] | None = None
        self._extra_texts: list[arcade.Text] = []
        self._heard = self._sound_events()

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

        ``scene_options`` are the other keyword arguments of the constructor (``on_restart``,
        ``on_quit``, ``sounds``, ``hud_extra``).
        """
        physics = engine.config.physics
        return cls(
            level_path,
            tuning,
            step_s=engine.step_s,
            substeps=physics.substeps,
            iterations=physics.iterations,
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

    def on_render(self, alpha: float, frame_dt_s: float) -> None:
        """Draw the level, the coins, the platforms and the player, then the HUD."""
        self._load_graphics()
        assert self._camera is not None and self._hud_camera is not None
        mode: PoseMode = "interpolate"
        engine = getattr(self, "engine", None)
        if engine is not None:
            mode = cast(PoseMode, engine.config.render.mode)  # validated by [render] mode's choices
        self.player_sprite.texture = (
            self._player_texture_right if self.sim.state.facing >= 0 else self._player_texture_left
        )
        self.sync.write(alpha, mode)
        row = self.sim.world.row_of(self.sim.player)
        pose = self.sim.world.interpolated_poses(alpha, mode)[row]
        velocity = self.sim.player.velocity
        self._camera.position = self.follow.update(
            (float(pose[0]), float(pose[1])),
            (velocity.x, velocity.y),
            frame_dt_s,
            self._viewport(),
            self._bounds(),
        )
        self._camera.use()
        for sprite_list in self._tile_lists:
            sprite_list.draw()
        for coin_id in self.sim.collected:
            sprite = self._coin_sprites.pop(coin_id, None)
            if sprite is not None:
                sprite.remove_from_sprite_lists()
        self._coin_list.draw()
        self.body_sprites.draw()
        self._draw_hud()
        if self.paused:
            self._pause_panel.draw(self.window.width, self.window.height)
        self.play_sounds()

    # -- sounds ------------------------------------------------------------------------------
    def _sound_events(self) -> tuple[int, int, int, bool]:
        sim = self.sim
        return (sim.jumps, sim.coins_collected, sim.deaths, sim.completed)

    def play_sounds(self) -> None:
        """Play one sound per kind of event not heard yet (called by each render, not ticks).

        A game that leaves the scene right after a tick calls it once more, so the last
        events (the level's completion) are heard even if no frame was drawn in between.
        """
        now = self._sound_events()
        if self.sounds is not None and now != self._heard:
            for name, before, after in zip(
                ("jump", "coin", "hurt", "complete"), self._heard, now, strict=True
            ):
                if after > before:
                    self.sounds.play(name)
        self._heard = now

    # -- drawing helpers -----------------------------------------------------------------------
    def _viewport(self) -> tuple[float, float]:
        return (float(self.window.width), float(self.window.height))

    def _bounds(self) -> tuple[float, float, float, float]:
        tile = self.level.tile_size_px
        return (
            0.0,
            0.0,
            float(self.level.width_tiles * tile),
            float(self.level.height_tiles * tile),
        )

    def _load_graphics(self) -> None:
        """Load the tile map, coin sprites, cameras and HUD text (once, on the first frame)."""
        if self._graphics_loaded:
            return
        tile_map = arcade.load_tilemap(str(self.level_path), scaling=self.scale)
        tile_layers = _tile_layer_names(self.level_path)
        for name, sprite_list in tile_map.sprite_lists.items():
            if name not in tile_layers:
                # Object layers: keep the art of tile objects (exit sign, flags) but not coins,
                # which are drawn from the simulation so they vanish when collected.
                for sprite in list(sprite_list):
                    if sprite.properties.get("class") == "coin":
                        sprite.remove_from_sprite_lists()
            self._tile_lists.append(sprite_list)
        coin_texture = arcade.load_texture(COIN_TEXTURE)
        for coin in self.level.coins:
            sprite = arcade.Sprite(coin_texture, scale=self.scale)
            sprite.position = coin.rect.center_px
            self._coin_sprites[coin.id] = sprite
            self._coin_list.append(sprite)
        engine = getattr(self, "engine", None)
        if engine is not None:
            self.follow.set_settings(CameraSettings.from_config(engine.config))
        self._camera = arcade.Camera2D()
        self._hud_camera = arcade.Camera2D()
        self._hud_text = arcade.Text(
            "",
            HUD_MARGIN_PX,
            self.window.height - HUD_MARGIN_PX,
            arcade.color.WHITE,
            HUD_FONT_SIZE,
            anchor_y="top",
        )
        x, y = self.sim.player.position
        self.follow.teleport(x, y, viewport_px=self._viewport(), level_bounds_px=self._bounds())
        self._graphics_loaded = True

    def _draw_hud(self) -> None:
        """The level name and coins collected / total, in screen space."""
        assert self._hud_camera is not None and self._hud_text is not None
        shown = (self.sim.coins_collected, len(self.level.coins))
        if shown != self._hud_shown:
            self._hud_text.text = f"{self.level.name}    coins {shown[0]} / {shown[1]}"
            self._hud_shown = shown
        self._hud_text.y = self.window.height - HUD_MARGIN_PX
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
        y = self.window.height - HUD_MARGIN_PX - HUD_FONT_SIZE
        for text, line in zip(self._extra_texts, lines, strict=False):
            if text.text != line:
                text.text = line
            text.x = self.window.width - HUD_MARGIN_PX
            text.y = y
            text.draw()
            y -= round(HUD_FONT_SIZE * 1.6)
