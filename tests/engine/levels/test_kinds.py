"""Kinds: typed properties with units and ranges, defaults, did-you-mean, generic scaling."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from engine.levels import Kind, KindRegistry, LevelError, ObjectRef, Prop, load_level
from engine.levels.kinds import ENGINE_KINDS, REQUIRED, PropError

DATA_DIR = Path(__file__).parent / "data"

SPRING = Kind(
    "spring",
    ("point", "rectangle"),
    props=(
        Prop("launch_px", float, 512.0, unit="px", min=1, max=10_000, doc="How high."),
        Prop("launches", int, 3, min=1, max=9, doc="How many times."),
        Prop("color", str, "red", choices=("red", "blue"), doc="Its colour."),
        Prop("loud", bool, False, doc="Whether it says boing."),
        Prop("delay_s", float, 0.25, unit="s", min=0, max=5, doc="Wait before throwing."),
    ),
)


def test_props_check_types_ranges_and_choices() -> None:
    launch, launches, color, loud, _ = SPRING.props
    assert launch.check(2) == 2.0 and isinstance(launch.check(2), float)  # ints are fine
    assert launches.check(4.0) == 4 and isinstance(launches.check(4.0), int)
    for bad in (True, "3", float("nan"), float("inf"), 0.5, 20_000.0):
        with pytest.raises(PropError):
            launch.check(bad)
    with pytest.raises(PropError, match="whole number"):
        launches.check(2.5)
    with pytest.raises(PropError, match="one of 'red', 'blue'"):
        color.check("green")
    with pytest.raises(PropError, match="must be a bool"):
        loud.check(1)


def test_a_bad_default_is_refused_when_the_kind_is_written() -> None:
    with pytest.raises(PropError):
        Prop("speed_px_s", float, -1.0, min=0)
    with pytest.raises(ValueError, match="ref_kind"):
        Prop("path", ObjectRef)


def test_check_properties_fills_defaults_and_names_the_problem() -> None:
    checked = SPRING.check_properties({"launch_px": 100, "note": "kept"})
    assert checked == {
        "launch_px": 100.0,
        "launches": 3,
        "color": "red",
        "loud": False,
        "delay_s": 0.25,
        "note": "kept",  # undeclared properties are kept for the game
    }
    with pytest.raises(PropError, match=re.escape('property "launches" must be a whole number')):
        SPRING.check_properties({"launches": 12})
    required = Kind("door", ("point",), props=(Prop("key", str, REQUIRED, doc="Which key."),))
    with pytest.raises(PropError, match='needs a property "key"'):
        required.check_properties({})
    strict = Kind("lamp", ("point",), props=(Prop("watts", int, 60),), strict_props=True)
    with pytest.raises(
        PropError, match='unknown property "wats" for a lamp \\(did you mean "watts"'
    ):
        strict.check_properties({"wats": 40})


def test_the_registry_holds_the_engines_kinds_and_aliases() -> None:
    kinds = KindRegistry()
    assert kinds.names == tuple(kind.name for kind in ENGINE_KINDS)
    kinds.register(Kind("walker", ("point",), aliases=("enemy",)))
    assert kinds.get("enemy") is kinds.get("walker") and "enemy" in kinds
    assert 'did you mean "walker"' in kinds.unknown_message("walkr")
    with pytest.raises(ValueError):
        kinds.register(Kind("badguy", ("point",), aliases=("enemy",)))


def test_scaling_converts_exactly_the_length_properties(tmp_path: Path) -> None:
    kinds = KindRegistry()
    kinds.register(SPRING)
    data = json.loads((DATA_DIR / "small.json").read_text(encoding="utf-8"))
    data["layers"][3]["objects"].append(
        {
            "id": 20,
            "name": "boing",
            "class": "spring",
            "point": True,
            "x": 32,
            "y": 32,
            "width": 0,
            "height": 0,
            "rotation": 0,
            "visible": True,
            "properties": [{"name": "launch_px", "type": "float", "value": 64}],
        }
    )
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "tiles.png")
    path = tmp_path / "springy.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    level = load_level(path, kinds)
    doubled = level.scaled(32)  # 16 px tiles drawn at 32: everything in px doubles
    (spring,) = doubled.of_kind("spring")
    assert spring.properties["launch_px"] == 128.0  # px: scaled
    assert spring.properties["delay_s"] == 0.25 and spring.properties["launches"] == 3
    assert spring.rect.center_px == (64.0, 64.0)
    (lift,) = doubled.moving_platforms
    assert lift.properties["speed_px_s"] == 120.0  # px/s: scaled (60 in the map)
    assert doubled.ref(lift, "path").points_px[0] == (32.0, 120.0)
    assert doubled.solid_rects[1].width_px == 2 * level.solid_rects[1].width_px
    assert doubled.art_scale == 2.0 and doubled.scaled(32) is doubled
    with pytest.raises(LevelError, match='unknown object class "spring"'):
        load_level(path)  # without the game's kind the loader refuses the object


def test_map_properties_are_checked_and_defaulted_like_a_kinds(tmp_path: Path) -> None:
    par = Prop("par_s", float, None, unit="s", min=0.1, max=600, doc="Par time.")
    lives = Prop("lives", int, 3, min=1, max=9, doc="Lives.")
    kinds = KindRegistry(map_props=(par, lives))
    assert kinds.map_props == (par, lives)
    data = json.loads((DATA_DIR / "small.json").read_text(encoding="utf-8"))
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "tiles.png")
    path = tmp_path / "props.json"

    def with_props(*props: dict[str, object]) -> Path:
        data["properties"] = list(props)
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    level = load_level(with_props({"name": "par_s", "type": "int", "value": 12}), kinds)
    assert level.properties["par_s"] == 12.0 and isinstance(level.properties["par_s"], float)
    assert level.properties["lives"] == 3  # defaulted
    level = load_level(with_props(), kinds)
    assert level.properties["par_s"] is None  # optional, unset
    for bad in ("fast", 0, True, 1e9, [[1]], {"a": 1}):
        with pytest.raises(LevelError) as caught:
            load_level(with_props({"name": "par_s", "type": "float", "value": bad}), kinds)
        assert 'map properties: property "par_s" must be a number in 0.1..600 s' in str(
            caught.value
        )
    # Without the declaration the value is kept as it is (another game may read it).
    kept = load_level(with_props({"name": "par_s", "type": "string", "value": "fast"}))
    assert kept.properties["par_s"] == "fast"
    with pytest.raises(ValueError, match="a length"):
        KindRegistry(map_props=(Prop("spawn_px", float, 0.0, unit="px"),))
