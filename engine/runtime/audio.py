"""Sound effects: named sounds loaded once, played by name, silent when there is no audio device.

A game declares its sounds as a mapping from a short name to a file or an arcade resource path
and plays them by name::

    sounds = SoundBank.from_config(config.audio, {"jump": ":resources:sounds/jump1.wav"})
    sounds.play("jump")

The ``[audio]`` section turns sound off (``enabled = false``) and sets the master ``volume``,
the ``effects_volume`` and the ``music_volume`` (each times the master). :class:`Music` plays one
looping track at a time (``music.play(":resources:music/funkyrobot.mp3")``). Both follow the
options screen at once through :meth:`SoundBank.apply` and :meth:`Music.apply`.
When pyglet finds no audio device it falls back to its silent driver; the bank notices, prints
one warning line, and :meth:`SoundBank.play` does nothing from then on, so a game runs the
same on a laptop with its sound card disabled. Headless runs (``headless=True``: servers, CI,
replays at top speed) are silent without a word.

Playing a sound is an effect, not game state: call :meth:`SoundBank.play` from
:meth:`~engine.runtime.scene.Scene.on_render` (or from an event the render notices), not from
``on_tick``, so a frame that catches up five ticks does not play five overlapping sounds
and a replay played back at top speed stays quiet.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.config import AudioConfig

__all__ = ["Music", "SoundBank", "audio_device_problem", "effects_volume", "music_volume"]


def _stderr_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def audio_device_problem() -> str | None:
    """Why sounds cannot be heard here, or None when pyglet has a real audio driver."""
    try:
        import pyglet.media

        driver = pyglet.media.get_audio_driver()  # type: ignore[no-untyped-call]  # pyglet's
    except Exception as exc:  # pyglet raises driver-specific errors
        return f"the audio driver failed to start ({exc})"
    if driver is None or type(driver).__name__ == "SilentDriver":
        return "no audio device found"
    return None


def effects_volume(audio: AudioConfig) -> float:
    """The volume sound effects play at: master times effects (0 when sound is off)."""
    return audio.volume * audio.effects_volume if audio.enabled else 0.0


def music_volume(audio: AudioConfig) -> float:
    """The volume music plays at: master times music (0 when sound is off)."""
    return audio.volume * audio.music_volume if audio.enabled else 0.0


class SoundBank:
    """Named sound effects at one master volume.

    Args:
        names: Every sound name the game may play.
        sounds: Name -> loaded sound (anything with ``play(volume=...)``, e.g. ``arcade.Sound``);
            names without a loaded sound are silent.
        volume: Master volume from 0 to 1.

    Attributes:
        played: How many times each name was asked to play, heard or not (for tests).
    """

    def __init__(
        self, names: Iterable[str], sounds: Mapping[str, Any], volume: float = 1.0
    ) -> None:
        self.played: dict[str, int] = dict.fromkeys(names, 0)
        self.sounds = {name: sound for name, sound in sounds.items() if name in self.played}
        self.volume = volume

    @classmethod
    def from_config(
        cls,
        audio: AudioConfig,
        paths: Mapping[str, str],
        *,
        headless: bool = False,
        warn: Callable[[str], None] = _stderr_warning,
    ) -> SoundBank:
        """Load ``paths`` (name -> file or ``:resources:`` path) unless sound is off.

        With ``[audio] enabled = false`` or ``headless`` nothing is loaded and nothing is
        printed. Without an audio device, ``warn`` gets one line and the bank is silent. A
        sound file that cannot be loaded is a one-line warning too, and only that sound is
        silent.
        """
        volume = effects_volume(audio)
        if not audio.enabled or headless:
            return cls(paths, {}, volume)
        problem = audio_device_problem()
        if problem is not None:
            warn(f"sound is off: {problem}")
            return cls(paths, {}, volume)
        import arcade

        loaded: dict[str, Any] = {}
        for name, path in paths.items():
            try:
                loaded[name] = arcade.load_sound(path)
            except Exception as exc:  # a missing or undecodable file
                warn(f"sound {name!r} is off: cannot load {path}: {exc}")
        return cls(paths, loaded, volume)

    def apply(self, audio: AudioConfig) -> None:
        """Play at the volume ``audio`` asks for from now on (the options screen changed it)."""
        self.volume = effects_volume(audio)

    @property
    def silent(self) -> bool:
        """Whether no sound can play (sound off, no device, or nothing loaded)."""
        return not self.sounds or self.volume <= 0

    def play(self, name: str) -> None:
        """Play sound ``name`` once (nothing when silent; unknown names are a programming error).

        Raises:
            KeyError: ``name`` was never declared, even when the bank is silent.
        """
        if name not in self.played:
            raise KeyError(f"unknown sound {name!r}; known: {sorted(self.played)}")
        self.played[name] += 1
        sound = self.sounds.get(name)
        if sound is not None and self.volume > 0:
            sound.play(volume=self.volume)


class Music:
    """One looping music track at a time, at ``[audio]``'s music volume.

    Args:
        audio: ``[audio]``.
        headless: Never play (servers, CI, replays at top speed).
        warn: Gets one line when a track cannot be loaded (the game goes on without it).

    Attributes:
        track: The path of the track asked for last (played or not), or None.
    """

    def __init__(
        self,
        audio: AudioConfig,
        *,
        headless: bool = False,
        warn: Callable[[str], None] = _stderr_warning,
    ) -> None:
        self.volume = music_volume(audio)
        self.warn = warn
        self.track: str | None = None
        self._silent = headless or not audio.enabled or audio_device_problem() is not None
        self._sounds: dict[str, Any] = {}
        self._player: Any = None

    def play(self, path: str) -> None:
        """Loop ``path`` (a file or ``:resources:`` path); nothing changes if it already plays."""
        if path == self.track:
            return
        self.stop()
        self.track = path
        if self._silent or self.volume <= 0:
            return
        sound = self._sounds.get(path)
        if sound is None:
            import arcade

            try:
                sound = arcade.load_sound(path)
            except Exception as exc:  # a missing or undecodable file
                self.warn(f"music {path} is off: {exc}")
                self._silent = True
                return
            self._sounds[path] = sound
        self._player = sound.play(volume=self.volume, loop=True)

    def stop(self) -> None:
        """Stop the music."""
        if self._player is not None:
            self._player.pause()
            self._player.delete()
            self._player = None
        self.track = None

    def apply(self, audio: AudioConfig) -> None:
        """Follow new volumes at once; a track turned up from 0 starts playing."""
        self.volume = music_volume(audio)
        if self._player is not None:
            if self.volume > 0:
                self._player.volume = self.volume
            else:
                track = self.track
                self.stop()
                self.track = track
        elif self.track is not None and self.volume > 0:
            track, self.track = self.track, None
            self.play(track)
