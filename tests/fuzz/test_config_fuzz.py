"""Generated config files and ``--set`` overrides: a Config the engine can run, or one line.

Three kinds of input: structured TOML documents (real and made-up sections and keys, every
kind of value including integers beyond a float, NaN, control characters in keys, deep
nesting), the complete defaults file with random bytes changed, and ``--set`` texts. Whatever
loads must be usable: its tick rate makes a :class:`~engine.timing.TickRate` and a frame pacer,
and its ``[player]`` tuning runs the level simulation.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.config import ConfigError, defaults_toml, load_config
from engine.config.schema import _toml_key, _toml_value
from engine.config.sections import _BUILTIN_SECTIONS
from engine.timing import FramePacer, PacerSettings, TickRate, TimingMode
from engine.timing.clock import NS_PER_S
from game.movement import PlayerTuning
from tests.fuzz.conftest import assert_one_line, case

EXTRA = {"player": PlayerTuning}
SECTIONS = {**_BUILTIN_SECTIONS, **EXTRA}
KNOWN_KEYS = sorted({name for cls in SECTIONS.values() for name in cls.__dataclass_fields__})
FUZZ_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

weird_text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12
) | st.sampled_from(["\x1b[31m", "a\nb", "\u2028", "\x00", "k" * 5000, "", " "])
keys = st.sampled_from(KNOWN_KEYS) | weird_text
scalars = (
    st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.integers(min_value=-5, max_value=2000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e-9, 5e-7, 1e308, -0.0, 59.94, 0.001])
    | weird_text
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
tables = st.dictionaries(keys, values, max_size=5)
documents = st.dictionaries(st.sampled_from(sorted(SECTIONS)) | weird_text, tables, max_size=4)


def toml_text(document: dict[str, dict[str, object]]) -> str:
    """Write a generated document as TOML (the loader's own writer for the values)."""
    lines = []
    for section, table in document.items():
        lines.append(f"[{_toml_key(section)}]")
        lines.extend(f"{_toml_key(key)} = {_toml_value(value)}" for key, value in table.items())
    return "\n".join(lines) + "\n"


def check_usable(path: Path | None, overrides: tuple[str, ...] = ()) -> None:
    """Load; on success, build what the engine builds from it."""
    config = load_config(path, overrides, EXTRA)
    rate = TickRate.from_hz(config.timing.tick_rate_hz)
    assert 1 <= rate.rate_hz <= 1000
    timing = config.timing
    FramePacer(
        rate,
        PacerSettings(
            mode=TimingMode(timing.mode),
            max_frame_delta_ns=round(timing.max_frame_delta_s * NS_PER_S),
            max_updates_per_frame=timing.max_updates_per_frame,
            lock_tolerance=timing.lock_tolerance,
        ),
    )
    if config.video.fps_limit:
        TickRate.from_hz(config.video.fps_limit)
    tuning = config.section("player", PlayerTuning)
    assert math.isfinite(tuning.gravity_px_s2) and math.isfinite(tuning.jump_velocity_px_s)


def config_error_line(message: str) -> None:
    assert_one_line(message, "config error: ")


@FUZZ_SETTINGS
@given(document=documents, bom=st.booleans())
def test_generated_config_files(
    tmp_path_factory: pytest.TempPathFactory, document: dict[str, dict[str, object]], bom: bool
) -> None:
    path = tmp_path_factory.mktemp("cfg") / "config.toml"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + toml_text(document).encode("utf-8"))
    with case("config files", ConfigError, config_error_line):
        check_usable(path)


DEFAULTS = defaults_toml(EXTRA).encode("utf-8")


@FUZZ_SETTINGS
@given(
    edits=st.lists(
        st.tuples(st.integers(0, len(DEFAULTS) - 1), st.binary(min_size=0, max_size=4)),
        min_size=1,
        max_size=4,
    )
)
def test_the_defaults_file_with_bytes_changed(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, bytes]]
) -> None:
    data = bytearray(DEFAULTS)
    for index, replacement in edits:
        data[index : index + len(replacement) or index + 1] = replacement
    path = tmp_path_factory.mktemp("cfg") / "config.toml"
    path.write_bytes(bytes(data))
    with case("config files", ConfigError, config_error_line):
        check_usable(path)


SECTION_KEYS = sorted(
    (section, key) for section, cls in SECTIONS.items() for key in cls.__dataclass_fields__
)


def plausible_value(section: str, key: str) -> st.SearchStrategy[str]:
    """TOML text of a value of the key's type, mostly near or inside its allowed range."""
    cls = SECTIONS[section]
    tp = typing.get_type_hints(cls)[key]
    meta = cls.__dataclass_fields__[key].metadata
    if tp is bool:
        return st.sampled_from(["true", "false"])
    if tp in (int, float):
        low, high = meta.get("min", -1e6), meta.get("max", 1e6)
        numbers = (
            st.floats(min_value=low - 1, max_value=high + 1)
            if tp is float
            else (st.integers(min_value=int(low) - 1, max_value=int(high) + 1))
        )
        return numbers.map(repr)
    if "choices" in meta:
        options = list(meta["choices"])
        return st.sampled_from(options).map(lambda c: f'"{c}"') | st.lists(
            st.sampled_from(options), max_size=2
        ).map(_toml_value)
    if meta.get("key_names"):
        return st.lists(st.sampled_from(["A", "SPACE", "F3", "NUM_1", "a", "KEY_0"])).map(
            _toml_value
        )
    return weird_text.map(_toml_value)


SCALAR_KEYS = [
    (section, key)
    for section, key in SECTION_KEYS
    if not dataclasses.is_dataclass(typing.get_type_hints(SECTIONS[section])[key])
]
plausible_overrides = st.sampled_from(SCALAR_KEYS).flatmap(
    lambda pair: plausible_value(*pair).map(lambda value: f"{pair[0]}.{pair[1]}={value}")
)

overrides = plausible_overrides | st.one_of(
    st.builds(
        lambda pair, value: f"{pair[0]}.{pair[1]}={value}",
        st.sampled_from(SECTION_KEYS),
        st.one_of(
            st.builds(_toml_value, scalars),
            st.builds(_toml_value, values),
            weird_text,
            st.just("[" * 5000),
        ),
    ),
    st.builds(
        lambda section, key, value: f"{section}.{key}={value}",
        st.sampled_from(sorted(SECTIONS)) | weird_text,
        keys,
        st.builds(_toml_value, scalars),
    ),
    weird_text,
)


@FUZZ_SETTINGS
@given(texts=st.lists(overrides, min_size=1, max_size=3))
def test_generated_set_overrides(texts: list[str]) -> None:
    with case("--set overrides", ConfigError, config_error_line):
        check_usable(None, tuple(text.replace("\x00", "") for text in texts))


@settings(max_examples=25, deadline=None)
@example(  # found by this test: instant ground acceleration with no air control gave NaN
    {**{k: getattr(PlayerTuning(), k) for k in ("tile_px", "run_speed_px_s")}}
    | {"ground_accel_time_s": 0.0, "air_control": 0.0}
)
@given(
    values=st.fixed_dictionaries(
        {
            name: st.floats(
                min_value=field.metadata.get("min", 0),
                max_value=field.metadata.get("max", 1),
                exclude_min=bool(field.metadata.get("min_exclusive")),
            )
            if field.type in (float, "float")
            else st.integers(min_value=field.metadata["min"], max_value=field.metadata["max"])
            for name, field in PlayerTuning.__dataclass_fields__.items()
            if field.type in (float, int, "float", "int")
        }
    )
)
def test_any_accepted_player_tuning_runs_the_level(values: dict[str, float]) -> None:
    """Every value the schema accepts is one the simulation can run: no crash, no NaN."""
    from engine.input.snapshot import ActionMap, InputSnapshot
    from game.world_builder import LevelWorld

    with case("[player] tuning", ConfigError, config_error_line):
        tuning = load_config(
            None, [f"player.{key}={value!r}" for key, value in values.items()], EXTRA
        ).section("player", PlayerTuning)
        world = LevelWorld.load(LEVEL, tuning, 1 / 60)
        actions = ActionMap(("left", "right", "up", "down", "jump"))
        for tick in range(40):
            held = actions.bit("right") | (actions.bit("jump") if tick % 10 < 5 else 0)
            world.tick(InputSnapshot(actions, held, held))
        x, y = world.player.body.position
        assert math.isfinite(x) and math.isfinite(y)


LEVEL = Path(__file__).resolve().parents[2] / "levels" / "level1.json"
