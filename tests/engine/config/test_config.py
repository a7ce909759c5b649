"""Tests for engine.config: defaults, files, overrides, game sections, errors and the CLI."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib.util
import subprocess
import sys
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine.config import (
    DEFAULT_CONFIG_PATH,
    Config,
    ConfigError,
    LiveSplitConfig,
    SpeedrunConfig,
    TimingConfig,
    add_config_arguments,
    config_from_args,
    defaults_toml,
    key_binding,
    key_names,
    load_config,
    setting,
    to_toml,
)

REPO_ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True, slots=True)
class PlayerTuning:
    """Player movement tuning (a game-defined section)."""

    run_speed_px_s: float = setting(320.0, "Top running speed.", min=0, max=5000)
    jumps: int = setting(1, "Jumps before landing.", min=1, max=3)
    dash: tuple[str, ...] = key_binding(("X",), "Keys that dash.")
    style: str = setting("normal", "Movement feel.", choices=("normal", "floaty"))


@dataclass(frozen=True, slots=True)
class Bounds:
    """A subsection of a game section."""

    low: int = setting(0, "Lower bound.", min=0, max=100)
    high: int = setting(10, "Upper bound.", min=0, max=100)

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"low ({self.low}) must not exceed high ({self.high})")


@dataclass(frozen=True, slots=True)
class SpawnTuning:
    """Enemy spawning (a game section with a subsection)."""

    enabled: bool = setting(True, "Spawn enemies.")
    rate: Bounds = field(default_factory=Bounds, metadata={"doc": "Enemies per minute."})


def write(tmp_path: Path, text: str, name: str = "game.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_for(tmp_path: Path, text: str, overrides: tuple[str, ...] = ()) -> str:
    """Load ``text`` as game.toml and return the ConfigError line (which must be one line)."""
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text), overrides)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("config error: ")
    return message


# ---------------------------------------------------------------------------------------------
# Defaults and valid files
# ---------------------------------------------------------------------------------------------


def test_no_file_gives_defaults() -> None:
    config = load_config(None)
    assert config == Config()
    assert config.timing.mode == "auto"
    assert config.timing.tick_rate_hz == 60.0
    assert config.timing.max_frame_delta_s == 0.25
    assert config.timing.max_updates_per_frame == 5
    assert config.timing.lock_tolerance == 0.01
    assert config.video.vsync is True
    assert config.video.fps_limit == 0.0
    assert config.video.internal_size == (640, 360)
    assert config.video.window_size == (1280, 720)
    assert config.video.title == "Platformer"
    assert config.render.mode == "interpolate"
    assert config.render.pixel_snap is True
    assert config.camera.follow_time_s == 0.3
    assert config.physics.gravity_px_s2 == -1800.0
    assert config.input.jump == ("SPACE", "Z")
    assert config.input.debug_overlay == ("F3",)
    assert config.speedrun.enabled is False
    assert config.speedrun.livesplit == LiveSplitConfig(False, "localhost", 16834)
    assert config.audio.volume == 0.8
    assert config.debug.frame_graph_frames == 240
    assert dict(config.extra) == {}


def test_missing_default_path_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / "config.toml", missing_ok=True) == Config()


def test_empty_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "")) == Config()


FULL_FILE = """\
[timing]
mode = "locked"
tick_rate_hz = 120          # an int is accepted for a float key
max_frame_delta_s = 0.1
max_updates_per_frame = 8
lock_tolerance = 0.02

[video]
vsync = false
fps_limit = 144
internal_width = 480
internal_height = 270
scale = 3
scale_mode = "fit"
fullscreen = true
title = "My Game"

[render]
mode = "extrapolate"
pixel_snap = false

[camera]
follow_time_s = 0.5
dead_zone_width_px = 0
dead_zone_height_px = 10.5
look_ahead_px = 100
clamp_to_level = false

[physics]
gravity_px_s2 = -2400.0
substeps = 4
iterations = 20

[input]
left = ["A"]
right = ["D", "NUM_6"]
up = ["W"]
down = ["S"]
jump = ["KEY_1", "LSHIFT"]
pause = ["F10"]
restart = ["R", "HOME"]
reset_run = ["DELETE"]
debug_overlay = []

[speedrun]
enabled = true
show_timer = false
show_rta = false

[speedrun.livesplit]
enabled = true
host = "192.168.1.5"
port = 16900

[audio]
enabled = false
volume = 0.25

[debug]
overlay = true
frame_graph_frames = 600
"""


def test_full_file_is_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL_FILE))
    assert config.timing == TimingConfig("locked", 120.0, 0.1, 8, 0.02)
    assert isinstance(config.timing.tick_rate_hz, float)
    assert config.video.fps_limit == 144.0
    assert config.video.window_size == (1440, 810)
    assert config.video.scale_mode == "fit"
    assert config.video.title == "My Game"
    assert config.render.mode == "extrapolate"
    assert config.camera.dead_zone_height_px == 10.5
    assert config.physics.substeps == 4
    assert config.input.right == ("D", "NUM_6")
    assert config.input.debug_overlay == ()
    assert config.speedrun == SpeedrunConfig(
        enabled=True,
        show_timer=False,
        show_rta=False,
        livesplit=LiveSplitConfig(True, "192.168.1.5", 16900),
    )
    assert config.audio.volume == 0.25
    assert config.debug.frame_graph_frames == 600


def test_full_file_round_trips_through_to_toml(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL_FILE))
    again = load_config(write(tmp_path, to_toml(config), "again.toml"))
    assert again == config


def test_partial_file_keeps_other_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "[speedrun.livesplit]\nport = 20000\n"))
    assert config.speedrun.livesplit.port == 20000
    assert config.speedrun.livesplit.host == "localhost"
    assert config.timing == TimingConfig()


def test_sections_are_frozen() -> None:
    config = load_config(None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.timing.tick_rate_hz = 30.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.timing = TimingConfig()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.speedrun.livesplit.port = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.extra["x"] = 1  # type: ignore[index]


def test_every_field_documents_itself() -> None:
    def walk(cls: type) -> None:
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            assert f.metadata.get("doc"), f"{cls.__name__}.{f.name} has no doc"
            assert "\n" not in f.metadata["doc"]
            if dataclasses.is_dataclass(hints[f.name]):
                walk(hints[f.name])

    hints = typing.get_type_hints(Config)
    for f in dataclasses.fields(Config):
        if f.name != "extra":
            walk(hints[f.name])


# ---------------------------------------------------------------------------------------------
# defaults_toml
# ---------------------------------------------------------------------------------------------


def test_defaults_toml_parses_back_to_defaults(tmp_path: Path) -> None:
    text = defaults_toml()
    tomllib.loads(text)  # valid TOML
    assert load_config(write(tmp_path, text)) == Config()


def test_defaults_toml_lists_every_key_with_its_doc() -> None:
    text = defaults_toml()
    for f in dataclasses.fields(TimingConfig):
        assert f"\n{f.name} = " in text
        assert f.metadata["doc"] in text
    assert "[speedrun.livesplit]" in text
    assert "port = 16834" in text
    assert "# Allowed: a number in 1 <= x <= 1000." in text


def test_defaults_toml_includes_extra_sections(tmp_path: Path) -> None:
    extras = {"player": PlayerTuning, "spawn": SpawnTuning}
    text = defaults_toml(extra_sections=extras)
    assert "[player]" in text
    assert "[spawn.rate]" in text
    assert "Top running speed." in text
    config = load_config(write(tmp_path, text), extra_sections=extras)
    assert config == load_config(None, extra_sections=extras)


def test_module_prints_defaults() -> None:
    result = run_module()
    assert result.returncode == 0
    assert tomllib.loads(result.stdout)["timing"]["tick_rate_hz"] == 60.0


# ---------------------------------------------------------------------------------------------
# Key names
# ---------------------------------------------------------------------------------------------


def arcade_key_constants() -> set[str]:
    """Names assigned in arcade/key/__init__.py, read as text (nothing is imported)."""
    spec = importlib.util.find_spec("arcade")
    assert spec is not None and spec.origin is not None
    source = Path(spec.origin).parent / "key" / "__init__.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_every_key_name_exists_in_arcade_key() -> None:
    missing = key_names() - arcade_key_constants()
    assert not missing


def test_key_names_cover_the_documented_groups() -> None:
    names = key_names()
    expected = {
        *"ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        *(f"KEY_{d}" for d in range(10)),
        *(f"NUM_{d}" for d in range(10)),
        *(f"F{n}" for n in range(1, 25)),
        *["LEFT", "RIGHT", "UP", "DOWN", "SPACE", "ENTER", "ESCAPE", "TAB", "BACKSPACE"],
        *["LSHIFT", "RSHIFT", "LCTRL", "RCTRL", "LALT", "RALT"],
        *["HOME", "END", "PAGEUP", "PAGEDOWN", "INSERT", "DELETE"],
    }
    assert expected <= names
    assert "0" not in names  # digits are spelled KEY_0 .. KEY_9


def test_default_bindings_use_valid_names() -> None:
    for f in dataclasses.fields(Config().input):
        assert set(getattr(Config().input, f.name)) <= key_names()


# ---------------------------------------------------------------------------------------------
# Overrides
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "read", "expected"),
    [
        ("timing.mode=strict", lambda c: c.timing.mode, "strict"),  # bare word -> string
        ('timing.mode="locked"', lambda c: c.timing.mode, "locked"),
        ("timing.tick_rate_hz=120", lambda c: c.timing.tick_rate_hz, 120.0),  # int -> float
        ("timing.tick_rate_hz=59.94", lambda c: c.timing.tick_rate_hz, 59.94),
        ("timing.max_updates_per_frame=3", lambda c: c.timing.max_updates_per_frame, 3),
        ("video.vsync=false", lambda c: c.video.vsync, False),
        ("video.title=My Game", lambda c: c.video.title, "My Game"),
        ("video.title = 'Quoted'", lambda c: c.video.title, "Quoted"),
        ('input.jump=["UP", "KEY_2"]', lambda c: c.input.jump, ("UP", "KEY_2")),
        ("input.jump=X", lambda c: c.input.jump, ("X",)),  # one name for a list
        ("physics.gravity_px_s2=-981", lambda c: c.physics.gravity_px_s2, -981.0),
        ("speedrun.livesplit.port=16900", lambda c: c.speedrun.livesplit.port, 16900),
        ("speedrun.livesplit.host=10.0.0.2", lambda c: c.speedrun.livesplit.host, "10.0.0.2"),
        ("speedrun.livesplit={port=1}", lambda c: c.speedrun.livesplit.port, 1),
    ],
)
def test_override_types(override: str, read: object, expected: object) -> None:
    config = load_config(None, [override])
    assert read(config) == expected  # type: ignore[operator]
    assert type(read(config)) is type(expected)  # type: ignore[operator]


def test_overrides_win_over_file_and_later_wins(tmp_path: Path) -> None:
    path = write(tmp_path, '[timing]\nmode = "locked"\ntick_rate_hz = 50\n')
    config = load_config(path, ["timing.mode=strict", "timing.mode=interpolated"])
    assert config.timing.mode == "interpolated"
    assert config.timing.tick_rate_hz == 50.0


def test_override_creates_missing_sections(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""), ["speedrun.livesplit.enabled=true"])
    assert config.speedrun.livesplit.enabled is True


def test_override_fixes_a_bad_file_value(tmp_path: Path) -> None:
    path = write(tmp_path, "[timing]\ntick_rate_hz = -5\n")
    assert load_config(path, ["timing.tick_rate_hz=30"]).timing.tick_rate_hz == 30.0


# ---------------------------------------------------------------------------------------------
# Game sections
# ---------------------------------------------------------------------------------------------


def test_extra_sections_default_when_absent() -> None:
    config = load_config(None, extra_sections={"player": PlayerTuning})
    assert config.extra["player"] == PlayerTuning()
    assert config.section("player", PlayerTuning) == PlayerTuning()


def test_extra_sections_from_file_and_overrides(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "[player]\nrun_speed_px_s = 400\ndash = ['C']\n\n[spawn.rate]\nhigh = 50\n",
    )
    config = load_config(
        path,
        ["player.jumps=2", "spawn.rate.low=5"],
        extra_sections={"player": PlayerTuning, "spawn": SpawnTuning},
    )
    player = config.section("player", PlayerTuning)
    assert player == PlayerTuning(400.0, 2, ("C",), "normal")
    assert config.section("spawn", SpawnTuning).rate == Bounds(5, 50)
    assert config.section("timing", TimingConfig) is config.timing


def test_section_lookup_errors() -> None:
    config = load_config(None, extra_sections={"player": PlayerTuning})
    with pytest.raises(KeyError):
        config.section("enemy", PlayerTuning)
    with pytest.raises(TypeError):
        config.section("player", TimingConfig)


def test_extra_section_errors_are_config_errors(tmp_path: Path) -> None:
    extras = {"player": PlayerTuning, "spawn": SpawnTuning}
    with pytest.raises(ConfigError, match=r"player\.jumps = 9: must be an integer in 1 <= x <= 3"):
        load_config(write(tmp_path, "[player]\njumps = 9\n"), extra_sections=extras)
    with pytest.raises(ConfigError, match=r"did you mean player\.dash\?"):
        load_config(write(tmp_path, "[player]\ndahs = ['X']\n"), extra_sections=extras)
    with pytest.raises(ConfigError, match=r"\[spawn\.rate\]: low \(20\) must not exceed high"):
        load_config(write(tmp_path, "[spawn.rate]\nlow = 20\n"), extra_sections=extras)


def test_extra_section_must_follow_conventions() -> None:
    @dataclass(frozen=True)
    class NoDoc:
        speed: float = 1.0

    @dataclass
    class NotFrozen:
        speed: float = setting(1.0, "Speed.")

    @dataclass(frozen=True)
    class BadDefault:
        speed: float = setting(-1.0, "Speed.", min=0)

    for cls in (NoDoc, NotFrozen, BadDefault):
        with pytest.raises(TypeError):
            load_config(None, extra_sections={"thing": cls})
    with pytest.raises(ValueError, match="taken"):
        load_config(None, extra_sections={"timing": PlayerTuning})


# ---------------------------------------------------------------------------------------------
# Errors: one line naming source, key, value and what is allowed
# ---------------------------------------------------------------------------------------------


def test_error_malformed_toml(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[timing]\ntick_rate_hz = = 5\n")
    assert "game.toml: malformed TOML" in message
    assert "line 2, column" in message


def test_error_wrong_type(tmp_path: Path) -> None:
    message = error_for(tmp_path, '[timing]\ntick_rate_hz = "fast"\n')
    assert message.endswith(
        'game.toml: timing.tick_rate_hz = "fast": must be a number in 1 <= x <= 1000'
    )


def test_error_bool_is_not_a_number(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[timing]\nmax_updates_per_frame = true\n")
    assert "timing.max_updates_per_frame = true: must be an integer in 1 <= x <= 100" in message
    message = error_for(tmp_path, "[audio]\nvolume = false\n")
    assert "audio.volume = false: must be a number in 0 <= x <= 1" in message


def test_error_float_for_int(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[video]\ninternal_width = 640.0\n")
    assert "video.internal_width = 640.0: must be an integer in 64 <= x <= 3840" in message


def test_error_number_is_not_a_bool(tmp_path: Path) -> None:
    assert "video.vsync = 1: must be true or false" in error_for(tmp_path, "[video]\nvsync = 1\n")


def test_error_out_of_range(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[timing]\ntick_rate_hz = -5\n")
    assert message == (
        f"config error: {tmp_path / 'game.toml'}: timing.tick_rate_hz = -5: "
        "must be a number in 1 <= x <= 1000"
    )
    assert "timing.tick_rate_hz = 0: " in error_for(tmp_path, "[timing]\ntick_rate_hz = 0\n")
    assert "= inf: " in error_for(tmp_path, "[timing]\ntick_rate_hz = inf\n")
    assert "= nan: " in error_for(tmp_path, "[timing]\ntick_rate_hz = nan\n")


def test_error_special_value_outside_range(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "[video]\nfps_limit = 0\n")).video.fps_limit == 0.0
    message = error_for(tmp_path, "[video]\nfps_limit = 0.5\n")
    assert "video.fps_limit = 0.5: must be 0 or a number in 1 <= x <= 1000" in message


def test_error_nested_out_of_range(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[speedrun.livesplit]\nport = 70000\n")
    assert "speedrun.livesplit.port = 70000: must be an integer in 1 <= x <= 65535" in message


def test_error_empty_string(tmp_path: Path) -> None:
    message = error_for(tmp_path, '[speedrun.livesplit]\nhost = ""\n')
    assert 'speedrun.livesplit.host = "": must be a non-empty string' in message


def test_error_not_a_choice(tmp_path: Path) -> None:
    message = error_for(tmp_path, '[timing]\nmode = "fast"\n')
    assert 'timing.mode = "fast": must be one of "auto", "strict", "locked", "interpolated"' in (
        message
    )
    assert 'did you mean "strict"?' in error_for(tmp_path, '[timing]\nmode = "strictt"\n')


def test_error_unknown_section(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[timng]\nmode = 'auto'\n")
    assert message.endswith("game.toml: unknown section [timng] (did you mean [timing]?)")
    message = error_for(tmp_path, "[zzz]\n")
    assert "unknown section [zzz] (valid sections: [timing], [video]" in message


def test_error_unknown_key(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[timing]\ntick_rate = 5\n")
    assert message.endswith(
        "game.toml: unknown key timing.tick_rate (did you mean timing.tick_rate_hz?)"
    )
    message = error_for(tmp_path, "[speedrun.livesplit]\nprot = 1\n")
    assert "unknown key speedrun.livesplit.prot (did you mean speedrun.livesplit.port?)" in message


def test_error_key_outside_a_section(tmp_path: Path) -> None:
    message = error_for(tmp_path, "tick_rate_hz = 60\n")
    assert "unknown top-level key tick_rate_hz (did you mean timing.tick_rate_hz?)" in message
    assert "timing = 5: must be a table [timing]" in error_for(tmp_path, "timing = 5\n")


def test_error_bad_key_name(tmp_path: Path) -> None:
    message = error_for(tmp_path, '[input]\njump = ["SPACE", "SPACEBAR"]\n')
    assert 'game.toml: input.jump = ["SPACE", "SPACEBAR"]: "SPACEBAR" is not a key name' in message
    assert 'did you mean "SPACE"?' in message
    assert "--keys" in message
    assert 'did you mean "A"?' in error_for(tmp_path, '[input]\nleft = ["a"]\n')
    assert '"0" is not a key name' in error_for(tmp_path, '[input]\nleft = ["0"]\n')
    assert "must be a list of key names" in error_for(tmp_path, "[input]\nleft = [1]\n")


def test_error_bad_override_syntax() -> None:
    for text in ("timing.mode", "mode=strict", "timing..mode=1", ".mode=1", "timing mode=1"):
        with pytest.raises(ConfigError) as info:
            load_config(None, [text])
        message = str(info.value)
        assert message.startswith("config error: --set: ")
        assert "expected section.key=value" in message
        assert text in message


def test_error_override_broken_toml_value() -> None:
    with pytest.raises(ConfigError, match=r"--set: input\.jump = \[\"A\": not a valid TOML"):
        load_config(None, ['input.jump=["A"'])


def test_error_override_unknown_key_and_section() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(None, ["timing.tick_rate=5"])
    assert str(info.value) == (
        "config error: --set: unknown key timing.tick_rate (did you mean timing.tick_rate_hz?)"
    )
    with pytest.raises(ConfigError, match=r"--set: unknown section \[vidoe\].*\[video\]"):
        load_config(None, ["vidoe.vsync=false"])
    with pytest.raises(ConfigError, match=r"--set: unknown key timing\.mode\.x"):
        load_config(None, ["timing.mode.x=1"])


def test_error_override_bad_value_names_set_not_file(tmp_path: Path) -> None:
    message = error_for(tmp_path, "[timing]\nmode = 'strict'\n", ("timing.tick_rate_hz=-1",))
    assert message == (
        "config error: --set: timing.tick_rate_hz = -1: must be a number in 1 <= x <= 1000"
    )
    message = error_for(tmp_path, "", ("speedrun.livesplit.port=abc",))
    assert message == (
        'config error: --set: speedrun.livesplit.port = "abc": '
        "must be an integer in 1 <= x <= 65535"
    )


def test_error_missing_explicit_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "nope.toml")
    assert (
        str(info.value) == f"config error: {tmp_path / 'nope.toml'}: cannot read file: no such file"
    )


def test_error_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read file"):
        load_config(tmp_path)  # a directory
    with pytest.raises(ConfigError, match="cannot read file: not UTF-8"):
        bad = tmp_path / "latin1.toml"
        bad.write_bytes(b'[video]\ntitle = "caf\xe9"\n')
        load_config(bad)


def test_error_keeps_key_and_source_attributes(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "[timing]\ntick_rate_hz = -5\n"))
    assert info.value.source == str(tmp_path / "game.toml")
    assert info.value.key == "timing.tick_rate_hz"


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    return parser.parse_args(argv)


def test_config_from_args(tmp_path: Path) -> None:
    path = write(tmp_path, "[timing]\ntick_rate_hz = 144\n")
    args = parse(
        ["--config", str(path), "--set", "timing.mode=strict", "--set", "video.vsync=false"]
    )
    config = config_from_args(args)
    assert config.timing.tick_rate_hz == 144.0
    assert config.timing.mode == "strict"
    assert config.video.vsync is False


def test_config_from_args_reads_default_path_only_if_present(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert config_from_args(parse([])) == Config()
    (tmp_path / DEFAULT_CONFIG_PATH).write_text("[video]\nscale = 3\n", encoding="utf-8")
    assert config_from_args(parse([])).video.scale == 3


def test_config_from_args_with_extra_sections() -> None:
    args = parse(["--set", "player.style=floaty"])
    config = config_from_args(args, extra_sections={"player": PlayerTuning})
    assert config.section("player", PlayerTuning).style == "floaty"


def test_config_from_args_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "[timing]\ntick_rate_hz = -5\n")
    with pytest.raises(SystemExit) as info:
        config_from_args(parse(["--config", str(path)]))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "timing.tick_rate_hz = -5" in err


def run_module(*argv: str, cwd: Path = REPO_ROOT) -> subprocess.CompletedProcess[str]:
    env_path = str(REPO_ROOT)
    return subprocess.run(
        [sys.executable, "-m", "engine.config", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("body", "argv", "needle"),
    [
        ("[timing]\ntick_rate_hz = -5\n", (), "timing.tick_rate_hz = -5: must be a number"),
        ("[timing\n", (), "malformed TOML"),
        ("[timing]\ntick_rate = 5\n", (), "did you mean timing.tick_rate_hz?"),
        ("", ("--set", "timing.mode=fast"), '--set: timing.mode = "fast": must be one of'),
        ("", ("--set", "nonsense"), '--set: "nonsense": expected section.key=value'),
    ],
)
def test_cli_bad_config_exits_2_with_one_stderr_line(
    tmp_path: Path, body: str, argv: tuple[str, ...], needle: str
) -> None:
    path = write(tmp_path, body, "bad.toml")
    result = run_module("--config", str(path), *argv)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("config error: ")
    assert needle in lines[0]
    assert result.stdout == ""


def test_cli_missing_explicit_file_exits_2(tmp_path: Path) -> None:
    result = run_module("--config", str(tmp_path / "missing.toml"))
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"config error: {tmp_path / 'missing.toml'}: cannot read file: no such file"
    )


def test_cli_prints_effective_config(tmp_path: Path) -> None:
    path = write(tmp_path, "[video]\ninternal_width = 800\n")
    result = run_module("--config", str(path), "--set", "speedrun.livesplit.port=16900")
    assert result.returncode == 0, result.stderr
    data = tomllib.loads(result.stdout)
    assert data["video"]["internal_width"] == 800
    assert data["speedrun"]["livesplit"]["port"] == 16900


def test_cli_lists_key_names() -> None:
    result = run_module("--keys")
    assert result.returncode == 0
    assert set(result.stdout.split()) == key_names()


def test_module_is_pure() -> None:
    code = (
        "import sys, engine.config; "
        "print(sorted(m for m in ('arcade', 'pyglet', 'pymunk', 'numpy') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=True,
        timeout=60,
    )
    assert result.stdout.strip() == "[]"


# -- a game's own sections for the checker (--sections) ------------------------------------------


def test_sections_from_spec_imports_a_games_mapping() -> None:
    from engine.config.loader import sections_from_spec
    from game.definition import CONFIG_SECTIONS

    assert sections_from_spec("game.definition") == dict(CONFIG_SECTIONS)
    assert sections_from_spec("game.definition:CONFIG_SECTIONS") == dict(CONFIG_SECTIONS)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("no_such_module_here", "cannot import no_such_module_here"),
        ("game.definition:APP_NAME", "has no APP_NAME mapping"),
        ("a b", "expected MODULE[:NAME]"),
        (":X", "expected MODULE[:NAME]"),
    ],
)
def test_bad_sections_specs_are_one_line(spec: str, fragment: str) -> None:
    from engine.config.loader import sections_from_spec

    with pytest.raises(ConfigError) as caught:
        sections_from_spec(spec)
    assert fragment in str(caught.value) and len(str(caught.value).splitlines()) == 1


def test_the_checker_knows_a_games_section_when_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.config.loader import main

    path = tmp_path / "config.toml"
    path.write_text("[player]\njump_height_tiles = 3.4\n", encoding="utf-8")
    assert main(["--config", str(path)]) == 2
    assert "--sections MODULE" in capsys.readouterr().err
    assert main(["--sections", "game.definition", "--config", str(path)]) == 0
    assert "jump_height_tiles = 3.4" in capsys.readouterr().out
    assert main(["--sections", "game.definition"]) == 0
    assert "[player]" in capsys.readouterr().out
    assert main(["--sections", "nope_module"]) == 2
    assert "cannot import nope_module" in capsys.readouterr().err


def test_section_hash_changes_with_any_value() -> None:
    from engine.config import PhysicsConfig, section_hash

    base = section_hash(PhysicsConfig())
    assert len(base) == 32 and base == section_hash(PhysicsConfig())
    assert section_hash(PhysicsConfig(iterations=11)) != base


def test_frame_delay_takes_a_word_or_milliseconds(tmp_path: Path) -> None:
    for text, expected in (('"auto"', "auto"), ('"off"', "off"), ("4", 4.0), ("2.5", 2.5)):
        path = tmp_path / "delay.toml"
        path.write_text(f"[timing]\nframe_delay = {text}\n", encoding="utf-8")
        assert load_config(path).timing.frame_delay == expected
    assert load_config(None).timing.frame_delay == "auto"


def test_a_bad_frame_delay_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "delay.toml"
    for text in ('"soon"', "-1", "51", "true", "[1]"):
        path.write_text(f"[timing]\nframe_delay = {text}\n", encoding="utf-8")
        with pytest.raises(ConfigError) as caught:
            load_config(path)
        line = str(caught.value)
        assert "\n" not in line and "timing.frame_delay" in line and str(path) in line
        assert '"auto" or "off" or a number in 0 <= x <= 50' in line
