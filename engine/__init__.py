"""A 2D platformer engine on arcade 3, pymunk and numpy with exact fixed-step timing.

The engine is grouped by concept; each subpackage's docstring lists its modules:

==================  ==========================================================================
``timing``          the pure timing core: clocks, exact tick rates, the frame pacer, the vsync
                    detector, the frame limiter, the game loop (no arcade, pyglet or pymunk)
``runtime``         what a game runs on: the engine's window loop, scenes, shared command-line
                    flags, the headless virtual display, sound
``config``          TOML settings into frozen, validated dataclasses; ``python -m engine.config``
``input``           per-tick input snapshots, key and gamepad bindings, replay files
``physics``         the fixed-step pymunk world with bulk snapshots; exact motion helpers
``rendering``       bulk interpolated sprite writes, the follow camera, the F3 overlay
``levels``          Tiled maps (JSON or TMX) into pure level data: kinds of objects with typed
                    properties, layers, static pymunk geometry; ``python -m engine.levels``
``entities``        objects with behaviour, ticked in order; animations that follow ticks
``speedrun``        the exact in-game timer, personal bests, LiveSplit
``storage``         atomic saves
``tools``           for the template's developers only (not copied into new games): the monitor
                    simulator, benchmarks, the demo, ``python -m engine new``
==================  ==========================================================================

The public API a game uses is named here (:data:`__all__`), so ``from engine import Engine,
Scene, PhysicsWorld`` works. Names are imported lazily, on first use: importing :mod:`engine`
(or the pure :mod:`engine.config`) must not import arcade, because arcade reads
``ARCADE_HEADLESS`` once, when it is first imported, and the command line decides it
(``--headless``). Type-checked code can import from the defining modules directly, as the sample
game does; both are the same objects.
"""

from __future__ import annotations

from engine.runtime.interrupt import exit_quietly_on_interrupt

exit_quietly_on_interrupt(__name__)  # Ctrl+C while ``python -m engine...`` imports: one line

import importlib  # noqa: E402  (after the line above, which must run first)
from typing import Any  # noqa: E402

_PUBLIC: dict[str, str] = {
    # a game's definition and the machinery around it
    "GameDefinition": "engine.app.definition",
    "World": "engine.app.definition",
    "PlayScene": "engine.app.play_scene",
    "run_command_for": "engine.app.cli",
    # runtime
    "Engine": "engine.runtime.engine",
    "Scene": "engine.runtime.scene",
    "SceneHost": "engine.runtime.scene",
    "SoundBank": "engine.runtime.audio",
    "OneLineParser": "engine.runtime.launch",
    "add_runtime_arguments": "engine.runtime.launch",
    "is_headless": "engine.runtime.launch",
    "open_window": "engine.runtime.launch",
    "fail": "engine.runtime.launch",
    # config
    "Config": "engine.config",
    "ConfigError": "engine.config",
    "load_config": "engine.config",
    "config_from_args": "engine.config",
    "setting": "engine.config",
    "key_binding": "engine.config",
    # timing
    "TickRate": "engine.timing",
    "TimingMode": "engine.timing",
    # input
    "ActionMap": "engine.input.snapshot",
    "InputSnapshot": "engine.input.snapshot",
    "Replay": "engine.input.replay",
    "ReplayError": "engine.input.replay",
    "ReplayMismatch": "engine.input.replay",
    "ReplayRecorder": "engine.input.replay",
    "ReplayVerifier": "engine.input.replay",
    "load_replay": "engine.input.replay",
    "save_replay": "engine.input.replay",
    # physics
    "PhysicsWorld": "engine.physics.world",
    # rendering
    "SpriteSync": "engine.rendering.sprite_sync",
    "TrackedSpriteList": "engine.rendering.sprite_sync",
    "CameraSettings": "engine.rendering.camera",
    "FollowCamera": "engine.rendering.camera",
    "TileMapView": "engine.rendering.tilemap",
    "EntitySprites": "engine.rendering.entity_sprites",
    # levels
    "Level": "engine.levels",
    "LevelError": "engine.levels",
    "LevelObject": "engine.levels",
    "Rect": "engine.levels",
    "load_level": "engine.levels",
    "add_static_geometry": "engine.levels",
    "Kind": "engine.levels",
    "KindRegistry": "engine.levels",
    "Prop": "engine.levels",
    "ObjectRef": "engine.levels",
    # entities
    "Entity": "engine.entities",
    "Entities": "engine.entities",
    "Look": "engine.entities",
    "Animator": "engine.entities",
    "Clip": "engine.entities",
    # speedrun
    "SpeedrunTimer": "engine.speedrun.timer",
    "format_igt": "engine.speedrun.timer",
    # storage
    "write_atomic": "engine.storage.atomic_file",
}
"""Each public name and the module that defines it (engine/README.md's API table lists them)."""

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
