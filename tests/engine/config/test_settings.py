"""The player's settings file: read, checked, saved atomically, damaged files moved aside."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.config import Config, add_config_arguments, load_config, setting
from engine.config.settings import (
    HEADER,
    UserSettings,
    config_value,
    config_with,
    default_settings_path,
)
from engine.runtime.launch import add_settings_argument, config_and_settings


@dataclass(frozen=True, slots=True)
class Tuning:
    """A game section, as a game declares one."""

    speed_px_s: float = setting(100.0, "Speed.", min=0, max=1000)


EXTRA = {"player": Tuning}


def load(path: Path) -> tuple[UserSettings, list[str]]:
    warnings: list[str] = []
    return UserSettings.load(path, extra_sections=EXTRA, warn=warnings.append), warnings


def test_a_missing_file_is_no_options_and_says_nothing(tmp_path: Path) -> None:
    settings, warnings = load(tmp_path / "settings.toml")
    assert settings.values == {}
    assert warnings == []
    assert settings.writable


def test_saved_options_read_back_typed(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "settings.toml"
    settings = UserSettings(path, extra_sections=EXTRA)
    settings.set("audio.music_volume", 0.5)
    settings.set("input.jump", ("X",))
    settings.set("video.scale", 3)
    settings.set("player.speed_px_s", 250.0)
    settings.set("speedrun.livesplit.port", 16900)
    assert settings.save()
    text = path.read_text(encoding="utf-8")
    assert text.startswith(HEADER)
    assert "[audio]\nmusic_volume = 0.5\n" in text
    assert 'jump = ["X"]' in text
    assert "livesplit.port = 16900" in text
    again, warnings = load(path)
    assert warnings == []
    assert again.values == settings.values
    assert again.values["input.jump"] == ("X",)  # a tuple, as the config holds it


def test_an_int_where_a_float_goes_reads_back_as_a_float(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text("[audio]\nmusic_volume = 1\n", encoding="utf-8")
    settings, _ = load(path)
    assert settings.values == {"audio.music_volume": 1.0}
    assert isinstance(settings.values["audio.music_volume"], float)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ("[audio\n", "malformed TOML"),
        ("[audio]\nmusic_volume = 2\n", "audio.music_volume = 2: must be a number in 0 <= x <= 1"),
        ("[audio]\nmusic = 0.5\n", "unknown key audio.music"),
        ("[nope]\nx = 1\n", "unknown section [nope]"),
        ('[input]\njump = ["NOT_A_KEY"]\n', "NOT_A_KEY"),
    ],
)
def test_a_damaged_file_is_moved_aside_with_one_warning(
    tmp_path: Path, body: str, needle: str
) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(body, encoding="utf-8")
    settings, warnings = load(path)
    assert settings.values == {}
    assert len(warnings) == 1
    assert needle in warnings[0]
    assert str(path) in warnings[0]
    assert "moved to settings.toml.damaged" in warnings[0]
    assert not path.exists()
    assert (tmp_path / "settings.toml.damaged").read_text(encoding="utf-8") == body
    settings.set("video.vsync", False)  # and the game saves a fresh file later
    assert settings.save()
    assert load(path)[0].values == {"video.vsync": False}


def test_binary_and_oversized_files_are_damaged(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(b"\xff\xfe garbage")
    assert "not UTF-8" in load(path)[1][0]
    path.write_bytes(b"# " + b"x" * 300_000 + b"\n")
    assert "bigger than 256 KiB" in load(path)[1][0]


@pytest.mark.parametrize(
    "body",
    [
        "[audio]\nmusic_volume = " + "[" * 500 + "]" * 500 + "\n",  # finding 11
        "x = " + "[" * 30 + "]" * 30 + "\n",
        "[input]\njump = " + "{a = " * 40 + "1" + "}" * 40 + "\n",
    ],
)
def test_settings_nested_deeper_than_config_allows_are_damaged_not_a_crash(
    tmp_path: Path, body: str
) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(body, encoding="utf-8")
    settings, warnings = load(path)
    assert settings.values == {}
    assert len(warnings) == 1 and "nested deeper than 16 levels" in warnings[0]
    assert (tmp_path / "settings.toml.damaged").read_text(encoding="utf-8") == body


def test_every_damaged_file_is_kept_under_its_own_name(tmp_path: Path) -> None:
    """Finding 9: the second damaged file must not replace the first one."""
    path = tmp_path / "settings.toml"
    bodies = ["not toml [", "[video]\nvsync = 3\n", "\u0000"]
    for body in bodies:
        path.write_text(body, encoding="utf-8")
        _, warnings = load(path)
        assert len(warnings) == 1
    kept = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("settings.toml.damaged*")}
    assert kept == {
        "settings.toml.damaged": bodies[0],
        "settings.toml.damaged-2": bodies[1],
        "settings.toml.damaged-3": bodies[2],
    }
    assert "moved to settings.toml.damaged-3" in warnings[0]


def test_a_path_that_is_not_a_regular_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.mkdir()
    settings, warnings = load(path)
    assert warnings == [
        f"settings not read from {path}: not a regular file (options will not be saved)"
    ]
    settings.set("video.vsync", False)
    assert not settings.save()
    assert path.is_dir()


def test_a_failed_save_warns_and_keeps_the_old_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory", encoding="utf-8")
    warnings: list[str] = []
    settings = UserSettings(blocker / "settings.toml", warn=warnings.append)
    settings.set("video.vsync", False)
    assert not settings.save()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"settings not saved to {blocker / 'settings.toml'}")
    assert blocker.read_text(encoding="utf-8") == "not a directory"


def test_a_save_replaces_the_file_atomically(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    settings = UserSettings(path)
    settings.set("video.vsync", False)
    settings.save()
    before = os.stat(path).st_ino
    settings.set("video.vsync", True)
    settings.save()
    assert os.stat(path).st_ino != before  # a new file renamed over the old one
    assert [p.name for p in tmp_path.iterdir()] == ["settings.toml"]  # no temporary left


def test_forget_brings_back_the_config_values(tmp_path: Path) -> None:
    settings = UserSettings(tmp_path / "s.toml", {"video.vsync": False, "video.scale": 3})
    settings.forget(["video.scale"])
    assert settings.values == {"video.vsync": False}
    settings.forget()
    assert settings.values == {}
    assert settings.to_toml() == HEADER


def test_config_with_and_config_value_reach_every_kind_of_key() -> None:
    config = load_config(None, extra_sections=EXTRA)
    changed = config_with(config, "audio.music_volume", 0.25)
    changed = config_with(changed, "speedrun.livesplit.port", 1234)
    changed = config_with(changed, "player.speed_px_s", 7.0)
    assert config_value(changed, "audio.music_volume") == 0.25
    assert changed.speedrun.livesplit.port == 1234
    assert changed.section("player", Tuning).speed_px_s == 7.0
    assert config.audio.music_volume == 0.7  # frozen: the original is untouched
    for bad in ("audio", "audio.nope", "nope.key", "speedrun.livesplit.port.deeper"):
        with pytest.raises(KeyError):
            config_with(config, bad, 1)
    with pytest.raises(KeyError):
        config_value(config, "audio.nope")


def test_apply_sets_every_option() -> None:
    settings = UserSettings(None, {"video.vsync": False, "audio.volume": 0.1})
    config = settings.apply(Config())
    assert (config.video.vsync, config.audio.volume) == (False, 0.1)
    assert not settings.save()  # no path: this run only


def test_the_default_path_is_in_the_user_config_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_settings_path("my-game") == tmp_path / "my-game" / "settings.toml"


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    add_settings_argument(parser)
    return parser.parse_args(argv)


def test_settings_overlay_config_toml_and_set_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.toml").write_text(
        "[audio]\nmusic_volume = 0.2\neffects_volume = 0.3\nvolume = 0.4\n", encoding="utf-8"
    )
    settings_path = tmp_path / "settings.toml"
    settings_path.write_text(
        "[audio]\nmusic_volume = 0.5\neffects_volume = 0.6\n", encoding="utf-8"
    )
    args = parse(["--settings", str(settings_path), "--set", "audio.effects_volume=0.9"])
    config, settings = config_and_settings(args, "unused", EXTRA)
    assert config.audio.volume == 0.4  # config.toml
    assert config.audio.music_volume == 0.5  # the player's setting over config.toml
    assert config.audio.effects_volume == 0.9  # --set over both
    assert settings.defaults is not None
    assert settings.defaults.audio.music_volume == 0.2  # what "reset to defaults" restores
    assert settings.defaults.audio.effects_volume == 0.9


def test_a_damaged_settings_file_does_not_stop_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    settings_path = tmp_path / "settings.toml"
    settings_path.write_text("[video]\nscale = 99\n", encoding="utf-8")
    config, _ = config_and_settings(parse(["--settings", str(settings_path)]), "unused")
    assert config == Config()
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"warning: settings in {settings_path} ignored (video.scale = 99: ")
    assert (tmp_path / "settings.toml.damaged").exists()


@pytest.mark.parametrize(
    ("key", "other"),
    [
        ("video.scale", 3),
        ("video.scale_mode", "fit"),
        ("audio.music_volume", 0.3),
        ("input.jump", ("X",)),
        ("player.speed_px_s", 250.0),
    ],
)
def test_a_value_set_back_to_its_default_leaves_the_file(
    tmp_path: Path, key: str, other: object
) -> None:
    path = tmp_path / "settings.toml"
    settings = UserSettings(path, extra_sections=EXTRA)
    default = config_value(load_config(None, [], EXTRA), key)
    settings.set(key, other)
    assert settings.save() and key.rsplit(".", 1)[1] in path.read_text(encoding="utf-8")
    settings.set(key, default)  # cycled back to the default
    assert settings.save()
    assert key not in settings.values
    assert path.read_text(encoding="utf-8") == HEADER  # nothing the player changed is left


def test_default_values_in_an_old_file_are_dropped_on_the_next_save(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text('[video]\nscale = 2\nscale_mode = "integer"\nvsync = false\n', "utf-8")
    settings, _ = load(path)
    assert settings.save()
    assert settings.values == {"video.vsync": False}
