"""Sound effects: played by name, silent with one warning line when there is no audio device."""

from __future__ import annotations

import pytest

from engine.config import AudioConfig
from engine.runtime.audio import SoundBank

SOUNDS = {"jump": ":resources:sounds/jump1.wav", "coin": ":resources:sounds/coin1.wav"}


class Recording:
    """A loaded sound stand-in that remembers the volumes it was played at."""

    def __init__(self) -> None:
        self.volumes: list[float] = []

    def play(self, volume: float) -> None:
        self.volumes.append(volume)


def test_sounds_play_by_name_at_the_master_volume() -> None:
    jump = Recording()
    bank = SoundBank(SOUNDS, {"jump": jump}, volume=0.5)
    bank.play("jump")
    bank.play("coin")  # declared but not loaded: silent
    assert jump.volumes == [0.5]
    assert bank.played == {"jump": 1, "coin": 1}


def test_an_unknown_sound_name_is_a_programming_error_even_when_silent() -> None:
    with pytest.raises(KeyError, match="unknown sound 'jupm'"):
        SoundBank(SOUNDS, {}).play("jupm")


def test_audio_disabled_in_the_config_is_silent_without_a_warning() -> None:
    warnings: list[str] = []
    bank = SoundBank.from_config(AudioConfig(enabled=False), SOUNDS, warn=warnings.append)
    assert bank.silent and warnings == []
    bank.play("jump")


def test_headless_runs_are_silent_without_a_warning() -> None:
    warnings: list[str] = []
    bank = SoundBank.from_config(AudioConfig(), SOUNDS, headless=True, warn=warnings.append)
    assert bank.silent and warnings == []


def test_without_an_audio_device_there_is_exactly_one_warning_line() -> None:
    """This machine has no sound card: pyglet's real driver probe falls back to silence."""
    warnings: list[str] = []
    bank = SoundBank.from_config(AudioConfig(), SOUNDS, warn=warnings.append)
    if not bank.silent:
        pytest.fail("this test expects a machine without an audio device")
    bank.play("jump")
    bank.play("coin")
    assert warnings == ["sound is off: no audio device found"]
