"""arcade's own maps: every one ships with arcade loads (or is refused in one line), and the
playable ones play.

arcade's platformer tutorial and examples give meaning by layer name (``Platforms``, ``Coins``,
``Don't Touch``, ``Ladders``, ``Moving Platforms``, ``Enemies``...) and have no start object;
the loader reads them with :class:`~engine.levels.conventions.ArcadeConventions`. This template's
own conventions stay strict (the other tests).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest

from engine.levels import LevelError, load_level
from engine.levels.conventions import GENERIC_CONVENTIONS
from game.conventions import CONVENTIONS
from game.kinds import KINDS
from tests.small_picture import SMALL_PICTURE_FLAGS

ARCADE_MAPS = Path(find_spec("arcade").origin).parent / "resources" / "assets" / "tiled_maps"  # type: ignore[arg-type]
ALL_MAPS = sorted(
    p for p in ARCADE_MAPS.glob("*.json") if '"type":"map"' in p.read_text().replace(" ", "")
)
PLAYABLE = (
    "level_1.json",
    "level_2.json",
    "map.json",
    "map2_level_1.json",
    "map2_level_2.json",
    "map_with_ladders.json",
    "pymunk_test_map.json",
    "test_map_1.json",
    "test_map_2.json",
    "test_map_3.json",
    "test_map_7.json",
)
"""arcade's maps with a ``Platforms`` layer: platformer levels the game can play."""


def test_arcade_ships_the_maps_we_expect() -> None:
    names = {p.name for p in ALL_MAPS}
    assert set(PLAYABLE) <= names and len(names) >= 14


@pytest.mark.parametrize("path", ALL_MAPS, ids=lambda p: p.name)
def test_every_map_arcade_ships_loads_or_is_refused_in_one_line(path: Path) -> None:
    try:
        level = load_level(path, KINDS, CONVENTIONS)
    except LevelError as exc:
        assert path.name not in PLAYABLE, str(exc)
        assert "\n" not in str(exc) and str(exc).startswith(f"level error: {path}")
        return
    assert path.name in PLAYABLE
    assert level.conventions == "arcade"
    assert len(level.of_kind("player_start")) == 1 and level.exits
    assert level.solid_rects  # its Platforms are the ground


def test_arcade_layers_become_the_games_kinds() -> None:
    level = load_level(ARCADE_MAPS / "map_with_ladders.json", KINDS, CONVENTIONS)
    kinds = {obj.kind for obj in level.objects}
    assert {"coin", "walker", "ladder", "moving_platform", "hazard"} <= kinds
    enemies = level.of_kind("walker")  # arcade's "Enemies" are the game's walkers ("enemy")
    assert len(enemies) == 3
    assert all(e.properties["speed_px_s"] == 60.0 for e in enemies)  # 1 px/frame at 60 fps
    assert enemies[0].properties["patrol_left_px"] == 128.0
    assert enemies[0].properties["art"] == "robot"
    (platform,) = level.moving_platforms
    path = level.ref(platform, "path").points_px
    assert path[0][0] == path[1][0]  # it moves up and down between its boundaries
    # the game knows every kind this map uses: only the defaults it supplied are mentioned
    assert all(w.startswith(("no start object", "no exit object")) for w in level.warnings)
    # Painted ladder tiles merge into one ladder per column, and stay drawn in their layer.
    ladders = level.of_kind("ladder")
    assert all(obj.gid == 0 and obj.rect.height_px >= obj.rect.width_px for obj in ladders)
    assert any(layer.name == "Ladders" and any(layer.cells) for layer in level.layers)  # type: ignore[union-attr]


def test_without_the_games_kinds_unsupported_layers_are_warnings_not_refusals() -> None:
    level = load_level(ARCADE_MAPS / "map_with_ladders.json", conventions=CONVENTIONS)
    assert level.conventions == "arcade"
    warnings = " | ".join(level.warnings)
    assert 'layer "Enemies": unknown object class "enemy"' in warnings and "(3 times)" in warnings
    assert 'layer "Ladders": no kind "ladder" is registered' in warnings
    assert level.skipped_objects == 3


def test_the_engine_names_no_game_kinds() -> None:
    """Ladders and crates are the sample game's: the generic conventions leave them as art."""
    assert GENERIC_CONVENTIONS.layer_kind("Ladders") is None
    assert CONVENTIONS.layer_kind("ladders") == "ladder"
    level = load_level(ARCADE_MAPS / "map_with_ladders.json", KINDS, GENERIC_CONVENTIONS)
    assert not level.of_kind("ladder")
    assert not any("Ladders" in w for w in level.warnings)


def test_a_map_without_start_or_exit_gets_the_documented_defaults() -> None:
    level = load_level(ARCADE_MAPS / "level_1.json", KINDS, CONVENTIONS)
    start = level.player_start
    x, feet = start.feet_px
    column = int(x // level.tile_size_px)
    # the leftmost column that has ground, standing on its top
    assert any(r.left_px <= x <= r.right_px and r.top_px == feet for r in level.solid_rects)
    assert all(
        not any(r.left_px <= c * 128 + 64 <= r.right_px for r in level.solid_rects)
        for c in range(column)
    )
    (goal,) = level.exits
    assert goal.rect.right_px == level.width_px and goal.rect.height_px == level.height_px


@pytest.mark.slow
@pytest.mark.parametrize("name", PLAYABLE)
def test_each_playable_arcade_map_plays_headless_for_300_frames(name: str) -> None:
    import json
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS")}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "game",
            "--headless",
            "--level",
            str(ARCADE_MAPS / name),
            "--frames",
            "300",
            "--json",
            *SMALL_PICTURE_FLAGS,  # the subject is the map playing, not its picture
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=root,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert json.loads(out.stdout)["ticks"] > 200


def test_a_playable_arcade_map_runs_on_the_simulation() -> None:
    from engine.input.snapshot import ActionMap, InputSnapshot
    from game.movement import PlayerTuning
    from game.world_builder import LevelWorld

    world = LevelWorld.load(ARCADE_MAPS / "map_with_ladders.json", PlayerTuning(), 1 / 60)
    actions = ActionMap(("left", "right", "up", "down", "jump"))
    right = InputSnapshot(actions, actions.mask(("right",)), 0)
    for _ in range(300):
        world.tick(right)
    assert world.ticks == 300
