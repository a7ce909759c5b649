"""``python -m engine.levels import``: a foreign map becomes one in this template's conventions.

The foreign maps are written here in the shapes other engines use (a ``Ground`` tile layer, a
melonJS-style ``collision`` object layer with one-way ``platform`` polylines, a start named
``SpawnPoint``, coins by name); the import must print what it decided, write a map the strict
conventions load with the same ground and objects, copy its art beside it, and refuse a map
whose start it cannot find in one line listing the objects.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from engine.levels import load_level
from engine.levels.__main__ import main as levels_main
from game.conventions import CONVENTIONS
from game.kinds import KINDS
from tests.engine.levels.test_tiled_compat import (
    GROUND_LAYER,
    SPAWN,
    H,
    stands_after_300_ticks,
    tmx,
    write,
)

COLLISION = (
    '<objectgroup name="collision">'
    f'<object id="7" x="200" y="{(H - 3) * 16}"><polygon points="0,0 32,0 32,16 0,16"/></object>'
    '<object id="8" type="platform" x="64" y="80"><polyline points="0,0 48,0"/></object>'
    "</objectgroup>"
    '<objectgroup name="Pickups"><object id="9" name="Gem" x="90" y="90"/>'
    '<object id="10" name="Tree" x="10" y="10" width="4" height="4"/></objectgroup>'
)


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = levels_main(argv)
    return status, out.getvalue(), err.getvalue()


def test_a_foreign_map_is_imported_into_the_project_conventions(tmp_path: Path) -> None:
    source = write(tmp_path, tmx(GROUND_LAYER + COLLISION + SPAWN))
    target = tmp_path / "levels" / "imported.json"
    args = ["import", str(source), "--out", str(target), "--kinds", "game.kinds"]
    status, out, err = run([*args, "--conventions", "game.conventions"])
    assert status == 0, err
    assert 'layer "Ground": tiles -> solid ground' in out
    assert 'layer "collision": 1 shapes -> solid ground' in out
    assert 'layer "collision": 1 shapes -> one-way platforms' in out
    assert 'object 1 "SpawnPoint" on layer "Entities" -> player_start' in out
    assert "1 object(s) without a known class left out" in out
    before = load_level(source, KINDS, CONVENTIONS)
    after = load_level(target, KINDS, CONVENTIONS)
    assert before.conventions == "foreign" and after.conventions == "project"
    assert after.solid_rects == before.solid_rects
    assert [s.points_px for s in after.ground_shapes] == [s.points_px for s in before.ground_shapes]
    assert sorted(o.kind for o in after.objects) == sorted(o.kind for o in before.objects)
    assert after.player_start.feet_px == before.player_start.feet_px
    assert (tmp_path / "levels" / "imported-art" / "tiles.png").is_file()
    assert json.loads(target.read_text())["properties"][0]["value"] == "map"
    assert stands_after_300_ticks(target)


def test_a_map_whose_start_cannot_be_found_is_refused_listing_its_objects(tmp_path: Path) -> None:
    lost = SPAWN.replace('name="SpawnPoint"', 'name="Hans"')
    source = write(tmp_path, tmx(GROUND_LAYER + lost))
    status, out, err = run(["import", str(source), "--out", str(tmp_path / "x.json")])
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and '"Hans"' in err and "player_start" in err
    assert not (tmp_path / "x.json").exists()
