"""Recording and playing back input replays of a level (``--record`` / ``--replay``).

A replay (:mod:`engine.input.replay`) stores one encoded input snapshot per *tick* and the level's
state hash after each tick. Because the level's simulation is deterministic and runs in fixed
ticks, those inputs replay the run exactly, at any display rate: a 144 Hz display draws more
frames, but the same ticks run with the same inputs. The hashes prove it tick by tick.

This module adds two things to :class:`~game.level_scene.LevelScene`:

* :class:`TapedLevelScene`, a level scene with a *tape* attached. The tape decides the input
  of each tick (the live input when recording, the recorded input when playing back) and sees
  the state hash after it. Once the level is completed the taped scene stops ticking the level,
  so a recording ends exactly at the completing tick and the tick count (and so the in-game
  time) does not depend on how many ticks the last drawn frame happened to run.
* :class:`Recorder` and :class:`Player`, the two tapes.

What is recorded:
    Every tick: the snapshot the level consumed and the state hash after it (``hash-every 1``).
    Hashing costs a few microseconds per tick, and checking every tick makes a playback stop at
    the very first tick whose state differs, which is where a determinism bug starts.

Header values:
    ``level-id`` is the level file's name (``level1.json``), looked up in ``levels/`` on
    playback; ``level-hash`` is :func:`~engine.input.replay.hash_level_file` of the level file, so a
    replay of an edited level is rejected; ``game-version`` is the installed package's version
    (:func:`game_version`), kept for people reading the file: playback does not reject other
    versions, the state hashes catch any change that matters.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any, Protocol

from engine.input.replay import Replay, ReplayRecorder, ReplayVerifier, hash_level_file
from engine.input.snapshot import ActionMap, InputPlayer, InputSnapshot
from game.level_scene import LevelScene

__all__ = [
    "FALLBACK_VERSION",
    "HASH_EVERY_TICKS",
    "PACKAGE_NAME",
    "Player",
    "Recorder",
    "TapedLevelScene",
    "game_version",
]

PACKAGE_NAME = "platformer-engine"
"""The distribution whose version :func:`game_version` reports."""

FALLBACK_VERSION = "0.1.0"
"""The version in ``pyproject.toml``, used when the package is run from a source checkout."""

HASH_EVERY_TICKS = 1
"""The recorder keeps the state hash of every tick (see the module docstring)."""


def game_version() -> str:
    """The game's version: the installed package's, or :data:`FALLBACK_VERSION` from a checkout."""
    try:
        return importlib.metadata.version(PACKAGE_NAME)
    except importlib.metadata.PackageNotFoundError:
        return FALLBACK_VERSION


class Recorder:
    """The recording tape: passes the live input through and records it with the state hash.

    Args:
        action_map: The game's actions (``engine.actions``).
        level_path: The level being played; its file name becomes the replay's level id.
        tick_rate_hz: The engine's exact tick rate (``engine.tick_rate.rate_hz``).
    """

    def __init__(self, action_map: ActionMap, level_path: Path, tick_rate_hz: Any) -> None:
        self.recorder = ReplayRecorder(
            action_map,
            level_id=level_path.name,
            level_hash=hash_level_file(level_path),
            tick_rate_hz=tick_rate_hz,
            game_version=game_version(),
            hash_every=HASH_EVERY_TICKS,
        )

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

    Attributes:
        hashes_checked: How many ticks had a recorded hash that matched.
    """

    def __init__(self, replay: Replay, action_map: ActionMap, source: str) -> None:
        self.verifier = ReplayVerifier(replay, source=source)
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


class Tape(Protocol):
    """What a taped scene asks of its tape: a :class:`Recorder`, a :class:`Player`, or any
    source of inputs (the title screen's attract mode plays inputs without checking them)."""

    @property
    def finished(self) -> bool:
        """No more input: the scene stops ticking."""
        ...

    def input_for(self, tick: int, live: InputSnapshot) -> InputSnapshot:
        """The input of level tick ``tick`` (``live`` is the player's own)."""
        ...

    def after_tick(self, tick: int, snapshot: InputSnapshot, state_hash: str) -> None:
        """Called after the tick with its input and the state hash it ended in."""
        ...


class TapedLevelScene(LevelScene):
    """A :class:`~game.level_scene.LevelScene` whose ticks go through a tape.

    Build it like a level scene (``TapedLevelScene.for_engine(engine, path, tuning)``), then set
    :attr:`tape`. Each tick, the tape chooses the input, the level ticks with it, and the tape
    sees the state hash after the tick. The replay's tick numbers count the level's own ticks
    (``sim.ticks``), starting at 0 when the level starts.

    The scene does not tick once the level is completed or the tape has run out of input, so
    a frame that would run more ticks than that runs none.

    Attributes:
        tape: The recorder or player, or None to play like a plain level scene.
    """

    tape: Tape | None = None

    def on_tick(self, tick: int, snapshot: InputSnapshot) -> None:
        """Tick the level once with the tape's input, then show the tape the state hash.

        Pause and restart come from the live input, before the tape is asked: paused ticks
        are neither recorded nor played back.
        """
        tape = self.tape
        if tape is None:
            super().on_tick(tick, snapshot)
            return
        if self.handle_pause_and_restart(snapshot) or self.completed or tape.finished:
            return
        if self.script is not None:
            raise ValueError("a taped scene takes its input from the tape, not from a script")
        level_tick = self.sim.ticks
        consumed = tape.input_for(level_tick, snapshot)
        self.advance(consumed)
        tape.after_tick(level_tick, consumed, self.state_hash())
