"""Maps from other projects (melonJS's example and tutorial, Tiled's sticker-knight, two Phaser
projects, a LÖVE game, a pygame game, pytiled_parser's own test data...): every file loads or
refuses in one line, at least 80% of the platformer maps load, each platformer map plays 300
ticks with the player standing (or is refused in one line), and the import command turns each
loading map into one in this template's conventions that plays the same.

The maps are public but not this project's, so they are not in the repository: the suite reads
them from ``$LEVEL_CORPUS`` or ``../shared/level-corpus`` (beside the project). ``CREDITS.md``
there lists every file (repository, path, commit, licence, size, sha256), and the first test
checks the corpus against it. Without a corpus these tests are skipped, saying where it belongs;
engine/levels/README.md says how the corpus is made and how to add maps to it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest

from engine.levels import Level, LevelError, load_level
from game.conventions import CONVENTIONS
from game.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("LEVEL_CORPUS") or ROOT.parent / "shared" / "level-corpus")
CREDITS = CORPUS / "CREDITS.md"
HAVE = CREDITS.is_file()
# One worker for the module: each file is loaded once, by its own test, and the counts reuse it.
pytestmark = [
    pytest.mark.skipif(not HAVE, reason=f"no outside-map corpus at {CORPUS} (set LEVEL_CORPUS)"),
    pytest.mark.xdist_group("outside-maps"),
]
SUFFIXES = (".tmx", ".tmj", ".json")
# Raw exception texts that must never reach a refusal line.
RAW = ("Error:", "Exception", "Traceback", "'dict' object", "pip install pytiled")
# Rows of CREDITS.md's per-file tables: | `path` | bytes | `sha256 prefix` | why |
_ROW = re.compile(r"^\| `(?P<path>[^`]+)` \| (?P<bytes>\d+) \| `(?P<sha>[0-9a-f]{16})` \|")
_PROJECT = re.compile(r"^## `(?P<project>[^`/]+)/`")


def _files() -> list[Path]:
    if not HAVE:
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def _is_map(path: Path) -> bool:
    """A Tiled map (not a tileset, template or world file)."""
    if path.suffix == ".tmx":
        return b"<map" in path.read_bytes()[:4000]
    try:
        document = json.loads(path.read_bytes())
    except ValueError:
        return False
    return isinstance(document, dict) and "layers" in document and document.get("type") != "tileset"


def _project(path: Path) -> str:
    return path.relative_to(CORPUS).parts[0]


EVERY = _files()
# Platformer levels: every map except pytiled_parser's test data (format tests, not levels).
PLATFORMER = [p for p in EVERY if _project(p) != "pytiled-parser" and _is_map(p)]


def _id(path: Path) -> str:
    return str(path.relative_to(CORPUS))


_OUTCOMES: dict[Path, str | None] = {}


def load(path: Path) -> str | None:
    """Load ``path`` with the sample game's kinds and conventions: None, or the refusal line."""
    try:
        load_level(path, KINDS, CONVENTIONS)
    except LevelError as exc:
        _OUTCOMES[path] = str(exc)
    else:
        _OUTCOMES[path] = None
    return _OUTCOMES[path]


def outcome(path: Path) -> str | None:
    """:func:`load`'s answer, loading only the first time."""
    return _OUTCOMES[path] if path in _OUTCOMES else load(path)


def test_the_corpus_is_what_its_credits_list() -> None:
    """Every file is credited, present and unchanged; nothing uncredited lies beside them."""
    listed: dict[Path, tuple[int, str]] = {}
    project = None
    for line in CREDITS.read_text(encoding="utf-8").splitlines():
        if heading := _PROJECT.match(line):
            project = heading["project"]
        elif (row := _ROW.match(line)) and project:
            listed[CORPUS / project / row["path"]] = (int(row["bytes"]), row["sha"])
    present = {p for p in CORPUS.rglob("*") if p.is_file() and p != CREDITS}
    assert sorted(map(_id, present - set(listed))) == [], "files not in CREDITS.md"
    assert sorted(map(_id, set(listed) - present)) == [], "credited files missing"
    for path, (size, sha) in listed.items():
        data = path.read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()[:16]) == (size, sha), _id(path)


@pytest.mark.parametrize("path", EVERY, ids=_id)
def test_every_outside_file_loads_or_refuses_in_one_line(
    path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    line = load(path)  # loaded here even if another test did, to see what it prints
    if line is not None:
        assert "\n" not in line and line.startswith(f"level error: {path}")
        for raw in RAW:
            assert raw not in line
    assert capfd.readouterr().out == ""  # the parser prints nothing


def test_most_platformer_maps_from_five_projects_load() -> None:
    loaded = [p for p in PLATFORMER if outcome(p) is None]
    assert len(PLATFORMER) >= 20 and len({_project(p) for p in loaded}) >= 5
    assert len(loaded) >= 0.8 * len(PLATFORMER), [_id(p) for p in PLATFORMER if p not in loaded]


@pytest.mark.slow
@pytest.mark.parametrize("path", PLATFORMER, ids=_id)
def test_each_platformer_map_plays_300_ticks_standing_or_is_refused(path: Path) -> None:
    """Loaded: after 300 idle ticks the player stands and was never sent back. Refused: one
    line (counted against the 80% by the test above)."""
    from tests.engine.levels.test_tiled_compat import stands_after_300_ticks

    line = outcome(path)
    if line is None:
        assert stands_after_300_ticks(path)
    else:
        assert "\n" not in line and not any(raw in line for raw in RAW)


@pytest.mark.slow
@pytest.mark.parametrize("path", PLATFORMER, ids=_id)
def test_each_platformer_map_imports_into_the_project_conventions(
    path: Path, tmp_path: Path
) -> None:
    """``python -m engine.levels import``: the imported map loads strictly with the same ground,
    objects and start, and plays the same. A map the loader refuses, or gives its default start
    (no object was the start), is refused by the import in one line."""
    from tests.engine.levels.test_importer import run
    from tests.engine.levels.test_tiled_compat import stands_after_300_ticks

    target = tmp_path / "levels" / "imported.json"
    args = ["import", str(path), "--out", str(target), "--kinds", "game.kinds"]
    status, out, err = run([*args, "--conventions", "game.conventions"])
    before = None if outcome(path) else load_level(path, KINDS, CONVENTIONS)
    if before is None or not before.player_start.layer:
        assert (status, out, len(err.splitlines())) == (2, "", 1), err
        return
    assert status == 0, err
    after = load_level(target, KINDS, CONVENTIONS)
    assert before.conventions == "foreign" and after.conventions == "project"
    assert after.solid_rects == before.solid_rects
    assert _ground(after) == _ground(before)
    assert sorted(o.kind for o in after.objects) == sorted(o.kind for o in before.objects)
    assert after.player_start.feet_px == before.player_start.feet_px
    assert stands_after_300_ticks(target)


def _ground(level: Level) -> list[tuple[bool, bool, tuple[tuple[float, float], ...]]]:
    """Ground shapes in any order (the import groups them by layer)."""
    return sorted((s.one_way, s.closed, s.points_px) for s in level.ground_shapes)
