"""Maps from other projects (melonJS, its tutorial, Tiled's sticker-knight, a Phaser game, a
LÖVE game, pytiled_parser's own test data): every file loads or refuses in one line, at least
80% of the platformer maps load, and on each the player stands after 300 ticks.

The maps are public but not this project's: they are not committed here. The suite reads them
from ``$LEVEL_CORPUS`` or ``../shared/level-corpus`` (beside the project) when present, with a
``CREDITS.md`` listing each file's repository, path, commit and licence; without them these tests
are skipped, saying where to put the corpus. engine/levels/README.md says how the corpus is made.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.levels import LevelError, load_level
from game.conventions import CONVENTIONS
from game.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("LEVEL_CORPUS", ROOT.parent / "shared" / "level-corpus"))
HAVE = (CORPUS / "CREDITS.md").is_file()
pytestmark = pytest.mark.skipif(
    not HAVE, reason=f"no outside map corpus at {CORPUS} (set LEVEL_CORPUS)"
)


def _files(pattern: str) -> list[Path]:
    if not HAVE:
        return []
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.suffix in (".tmx", ".tmj", ".json") and p.is_file() and pattern in str(p)
    )


def _is_map(path: Path) -> bool:
    head = path.read_bytes()[:4000]
    return b"<map" in head or b'"tilesets"' in head


PLATFORMER = [p for p in _files("") if "pytiled-parser" not in str(p) and _is_map(p)]
EVERY = _files("")


@pytest.mark.parametrize("path", EVERY, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_outside_file_loads_or_refuses_in_one_line(
    path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    try:
        load_level(path, KINDS, CONVENTIONS)
    except LevelError as exc:
        line = str(exc)
        assert "\n" not in line and line.startswith("level error: ")
        for raw in ("Error:", "Exception", "Traceback", "'dict' object", "pip install pytiled"):
            assert raw not in line
    assert capfd.readouterr().out == ""


def test_most_platformer_maps_load() -> None:
    loaded = 0
    for path in PLATFORMER:
        try:
            load_level(path, KINDS, CONVENTIONS)
            loaded += 1
        except LevelError:
            pass
    assert len(PLATFORMER) >= 20 and loaded >= 0.8 * len(PLATFORMER)


@pytest.mark.slow
@pytest.mark.parametrize("path", PLATFORMER, ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_player_stands_after_300_ticks(path: Path) -> None:
    from engine.input.snapshot import ActionMap, InputSnapshot
    from game.movement import PlayerTuning
    from game.world_builder import LevelWorld

    try:
        world = LevelWorld.load(path, PlayerTuning(), 1 / 60)
    except LevelError:
        pytest.skip("refused in one line (counted by test_most_platformer_maps_load)")
    idle = InputSnapshot(ActionMap(("left", "right", "up", "down", "jump")), 0, 0)
    for _ in range(300):
        world.tick(idle)
    assert world.player.state.grounded and world.deaths == 0
