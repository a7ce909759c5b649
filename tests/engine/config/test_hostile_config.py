"""Config input that used to crash or hang: each is one clean ConfigError line now."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engine.config import (
    ConfigError,
    PhysicsConfig,
    load_config,
    section_from_mapping,
    section_to_mapping,
)
from engine.config.loader import MAX_CONFIG_BYTES, MAX_NESTING
from engine.timing import TickRate
from game.movement import PlayerTuning

ROOT = Path(__file__).resolve().parents[3]
EXTRA = {"player": PlayerTuning}


def error_of(path: Path | None = None, overrides: tuple[str, ...] = ()) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, overrides, EXTRA)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    assert message.isprintable(), message
    return message


def write(tmp_path: Path, data: bytes | str) -> Path:
    path = tmp_path / "c.toml"
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize("text", ["1e-9", "5e-7", "0.5", "1001", "inf", "nan"])
def test_a_tick_rate_the_engine_cannot_run_is_refused(text: str) -> None:
    message = error_of(overrides=(f"timing.tick_rate_hz={text}",))
    assert "timing.tick_rate_hz" in message and "1 <= x <= 1000" in message


def test_every_accepted_tick_rate_makes_a_tick_rate() -> None:
    for text in ("1", "59.94", "60", "144", "999.999", "1000"):
        rate = load_config(None, (f"timing.tick_rate_hz={text}",)).timing.tick_rate_hz
        assert TickRate.from_hz(rate).rate_hz > 0


@pytest.mark.parametrize("where", ["file", "--set"])
@pytest.mark.parametrize(
    "key", ["timing.max_frame_delta_s", "player.run_speed_px_s", "physics.gravity_px_s2"]
)
def test_an_integer_beyond_the_largest_float_is_refused(
    tmp_path: Path, where: str, key: str
) -> None:
    huge = "1" + "0" * 400
    section, name = key.split(".")
    if where == "file":
        message = error_of(write(tmp_path, f"[{section}]\n{name} = {huge}\n"))
    else:
        message = error_of(overrides=(f"{key}={huge}",))
    assert key in message and "..." in message  # the value is shortened
    assert len(message) < 300


def test_an_integer_of_5000_digits_is_malformed_toml(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "[timing]\ntick_rate_hz = " + "1" * 5000 + "\n"))
    assert "malformed TOML" in message and "set_int_max_str_digits" not in message


@pytest.mark.parametrize("opening", ["[", "{a = "])
def test_deep_nesting_is_refused_without_recursion_error(tmp_path: Path, opening: str) -> None:
    closing = "]" if opening == "[" else "}"
    message = error_of(write(tmp_path, f"x = {opening * 5000}{closing * 5000}\n"))
    assert f"nested deeper than {MAX_NESTING} levels" in message


def test_deep_dotted_tables_are_refused(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "[" + ".".join(["a"] * 5000) + "]\n"))
    assert "nested deeper" in message


def test_deep_nesting_in_an_override_is_refused() -> None:
    message = error_of(overrides=("timing.mode=" + "[" * 5000,))
    assert "--set" in message and "nested deeper" in message


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, b'\xef\xbb\xbf[timing]\nmode = "strict"\n')
    assert load_config(path).timing.mode == "strict"


def test_control_characters_in_keys_are_escaped(tmp_path: Path) -> None:
    path = write(tmp_path, '[timing]\n"mode\\u001b[31m\\u0007" = 1\n')
    message = error_of(path)
    assert "\x1b" not in message and "\\u001b" in message and "\\u0007" in message


def test_a_megabyte_long_key_is_shortened(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, "[timing]\n" + "k" * 1_000_000 + " = 1\n"))
    assert "kkk..." in message and len(message) < 400


def test_a_file_name_with_a_line_break_stays_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad\nname.toml"
    path.write_text("[timing]\nmode = 1\n")
    message = error_of(path)
    assert "bad\\nname.toml" in message


def test_a_file_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, b"#" * (MAX_CONFIG_BYTES + 1))
    assert "larger than the 4 MiB allowed" in error_of(path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_device_is_refused() -> None:
    assert "a character device, not a regular file" in error_of(Path("/dev/zero"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    messages: list[str] = []
    reader = threading.Thread(target=lambda: messages.append(error_of(fifo)), daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("loading a config from a named pipe hung")
    assert "a named pipe, not a regular file" in messages[0]


def test_keys_piped_into_head_end_quietly() -> None:
    code = (
        "import subprocess, sys; "
        "p = subprocess.Popen([sys.executable, '-m', 'engine.config', '--keys'], "
        "stdout=subprocess.PIPE, stderr=subprocess.PIPE); "
        "p.stdout.readline(); p.stdout.close(); err = p.stderr.read(); "
        "print(p.wait(), len(err))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert out.stdout.split() == ["0", "0"], out.stdout + out.stderr


def test_sections_round_trip_through_plain_data() -> None:
    tuning = dataclasses.replace(PlayerTuning(), run_speed_px_s=400.0)
    data = section_to_mapping(tuning)
    assert section_from_mapping("player", PlayerTuning, data, "run.json") == tuning
    assert section_from_mapping("physics", PhysicsConfig, {}, "run.json") == PhysicsConfig()


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ([], "player = []: must be a table [player]"),
        ({"run_speed_px_s": True}, "player.run_speed_px_s = true: must be a number"),
        ({"run_speed_px_s": 10**30}, "player.run_speed_px_s = 1000000000000000000000000000000"),
        ({"run_sped_px_s": 1}, "did you mean player.run_speed_px_s?"),
        ({"tile_px": 1.5}, "player.tile_px = 1.5: must be an integer"),
    ],
)
def test_sections_from_plain_data_are_checked_like_the_file(values: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        section_from_mapping("player", PlayerTuning, values, "run.json")
    assert str(caught.value).startswith("config error: run.json: ")
    assert fragment in str(caught.value)
