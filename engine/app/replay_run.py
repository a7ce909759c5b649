"""Recording and playing back input replays of a level (``--record`` / ``--replay``).

A replay (:mod:`engine.input.replay`) stores one encoded input snapshot per *tick* and the level's
state hash after each tick. Because the level's simulation is deterministic and runs in fixed
ticks, those inputs replay the run exactly, at any display rate: a 144 Hz display draws more
frames, but the same ticks run with the same inputs. The hashes prove it tick by tick.

This module holds the two *tapes* a level scene (:class:`~engine.app.play_scene.PlayScene`)
plays through: :class:`Recorder` (the live input, recorded with the state hash after each tick)
and :class:`Player` (a replay's inputs, every hash checked). The scene asks the tape for each
tick's input and shows it the state hash after the tick; once the level is completed it stops
ticking, so a recording ends exactly at the completing tick.

What is recorded:
    Every tick: the snapshot the level consumed and the state hash after it (``hash-every 1``).
    Hashing costs a few microseconds per tick, and checking every tick makes a playback stop at
    the very first tick whose state differs, which is where a determinism bug starts.

Header values:
    ``level-id`` is the level file's name (``level1.json``), looked up in ``levels/`` on
    playback; ``level-hash`` is :func:`~engine.input.replay.hash_level_file` of the level file, so a
    replay of an edited level is rejected; ``settings`` holds the hashes of the sections that
    change the simulation (the game's own sections and ``[physics]``, :func:`settings_hashes`), so a
    playback that diverges because the game was tuned since says which section changed;
    ``game-version`` is the installed package's version (:func:`game_version`), kept for
    people reading the file: playback does not reject other versions, the state hashes catch
    any change that matters.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.app.run_file import RunSettings
from engine.config import Config
from engine.input.replay import Replay, ReplayRecorder, ReplayVerifier, hash_level_file
from engine.input.snapshot import ActionMap, InputPlayer, InputSnapshot

__all__ = [
    "FALLBACK_VERSION",
    "HASH_EVERY_TICKS",
    "Player",
    "Recorder",
    "game_version",
    "settings_hashes",
]

FALLBACK_VERSION = "0.1.0"
"""The version in ``pyproject.toml``, used when the package is run from a source checkout."""

HASH_EVERY_TICKS = 1
"""The recorder keeps the state hash of every tick (see the module docstring)."""


def game_version(app_name: str) -> str:
    """The game's version: the installed distribution's, or :data:`FALLBACK_VERSION` from a checkout.

    Args:
        app_name: The game's distribution name (its definition's ``app_name``).
    """
    try:
        return importlib.metadata.version(app_name)
    except importlib.metadata.PackageNotFoundError:
        return FALLBACK_VERSION


def settings_hashes(config: Config, game_sections: Mapping[str, type]) -> dict[str, str]:
    """The hashes of ``config``'s simulation settings, as replays record them."""
    return RunSettings.from_config(config, game_sections).section_hashes()


class Recorder:
    """The recording tape: passes the live input through and records it with the state hash.

    Args:
        action_map: The game's actions (``engine.actions``).
        level_path: The level being played; its file name becomes the replay's level id.
        tick_rate_hz: The engine's exact tick rate (``engine.tick_rate.rate_hz``).
        settings: The simulation settings' hashes (:func:`settings_hashes` of the config).
        version: The game's version (:func:`game_version`), kept in the header for readers.
    """

    def __init__(
        self,
        action_map: ActionMap,
        level_path: Path,
        tick_rate_hz: Any,
        settings: Mapping[str, str] | None = None,
        version: str = FALLBACK_VERSION,
    ) -> None:
        self._header: dict[str, Any] = {
            "level_id": level_path.name,
            "level_hash": hash_level_file(level_path),
            "tick_rate_hz": tick_rate_hz,
            "game_version": version,
            "hash_every": HASH_EVERY_TICKS,
            "settings_hashes": settings,
        }
        self._action_map = action_map
        self._ticks: list[tuple[InputSnapshot, str]] = []
        self.recorder = ReplayRecorder(action_map, **self._header)

    @property
    def finished(self) -> bool:
        """A recording never runs out of input."""
        return False

    def input_for(self, tick: int, live: InputSnapshot) -> InputSnapshot:
        """The input of ``tick``: the live input, unchanged."""
        return live

    def after_tick(self, tick: int, snapshot: InputSnapshot, state_hash: str) -> None:
        """Record the tick's input and the state hash after it."""
        self.recorder.record(tick, snapshot, state_hash)
        self._ticks.append((snapshot, state_hash))

    def rewind(self, tick: int) -> None:
        """Forget the ticks from ``tick`` on (practice loaded a state from that tick).

        The recording then holds the inputs of the timeline as it now stands: a savestate
        restores the world exactly, so they still play back with every hash.
        """
        del self._ticks[tick:]
        self.recorder = ReplayRecorder(self._action_map, **self._header)
        for index, (snapshot, state_hash) in enumerate(self._ticks):
            self.recorder.record(index, snapshot, state_hash)

    def to_replay(self) -> Replay:
        """The recording so far, ready for :func:`~engine.input.replay.save_replay`."""
        return self.recorder.to_replay()


class Player:
    """The playback tape: feeds the recorded inputs and checks every recorded hash.

    Args:
        replay: The loaded replay.
        action_map: The game's actions; it must start with the recorded ones (actions the game
            added since recording stay idle).
        source: The replay's file name, for error messages.
        settings: The running game's simulation settings' hashes (:func:`settings_hashes`):
            a playback that diverges names the sections that differ from the recording's.

    Attributes:
        hashes_checked: How many ticks had a recorded hash that matched.
    """

    def __init__(
        self,
        replay: Replay,
        action_map: ActionMap,
        source: str,
        settings: Mapping[str, str] | None = None,
    ) -> None:
        self.verifier = ReplayVerifier(replay, source=source, settings_hashes=settings)
        self._inputs: InputPlayer = self.verifier.player(action_map)
        self.hashes_checked = 0

    @property
    def finished(self) -> bool:
        """Every recorded tick has been played."""
        return self._inputs.finished

    def input_for(self, tick: int, live: InputSnapshot) -> InputSnapshot:
        """The recorded input of ``tick`` (the live input is ignored)."""
        if tick != self._inputs.position:
            raise ValueError(f"playback expected tick {self._inputs.position}, got tick {tick}")
        return self._inputs.sample()

    def after_tick(self, tick: int, snapshot: InputSnapshot, state_hash: str) -> None:
        """Compare the state hash with the recording.

        Raises:
            ReplayMismatch: The state differs; the message names the first differing tick.
        """
        self.verifier.check(tick, state_hash)
        if self.verifier.replay.hashes[tick] is not None:
            self.hashes_checked += 1
