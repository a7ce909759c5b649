"""Generated Tiled level JSON: the level checker accepts or gives one line, and the game agrees.

Each case is a mutation of a bundled level (``levels/level1.json``; its tileset and
backgrounds are linked beside the file, so only the mutation differs). Six kinds of damage:
values of the wrong type anywhere, missing keys, huge sizes, deep nesting, bad gids (cells and
tile objects) and bad properties. Four more families are built around it: special files
(templates, tilesets and images that are FIFOs, devices, directories or links to them),
compression bombs in tile data, Unicode edge cases in every name (lone surrogates, escapes,
bidi overrides, line breaks, long names; in the map, its layers, objects and file name), and
TMX-specific attributes (XML encodings, Tiled 1.0 headers, ids, data encodings, chunks). For
each case:

* the checker, ``python -m engine.levels --kinds game.kinds FILE`` (its ``main``, in process),
  exits 0, or exits 2 with exactly one error line naming the file (warnings aside);
* what it accepts, the game's real loader loads: a :class:`~game.level_scene.LevelScene` on the
  engine with the shared small headless window draws two frames and ticks, without an exception.

Counts per category (cases, accepted, clean errors, tracebacks) print at the end of the run.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import gzip
import io
import json
import os
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.levels.__main__ import main as check_levels
from engine.levels.model import escaped
from tests.fuzz.conftest import TALLY, assert_one_line

ROOT = Path(__file__).resolve().parents[2]
LEVELS_DIR = ROOT / "levels"
BASE: dict[str, Any] = json.loads((LEVELS_DIR / "level1.json").read_text())

EXAMPLES = int(os.environ.get("LEVEL_FUZZ_EXAMPLES", "8"))
"""Cases per category: 8 keep the default suite quick (a few seconds on two cores);
``LEVEL_FUZZ_EXAMPLES=200`` for a longer hunt."""

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

Path_ = tuple[str | int, ...]


def all_paths(node: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Every key and index path in a JSON tree (tile data cells only every 97th: too many)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key)
            yield from all_paths(value, (*path, key))
    elif isinstance(node, list):
        step = 97 if len(node) > 200 else 1
        for index in range(0, len(node), step):
            yield (*path, index)
            yield from all_paths(node[index], (*path, index))


PATHS = list(all_paths(BASE))
KEY_PATHS = [p for p in PATHS if isinstance(p[-1], str)]
SIZE_KEYS = ("width", "height", "tilewidth", "tileheight", "x", "y", "imagewidth", "imageheight")
SIZE_PATHS = [p for p in KEY_PATHS if p[-1] in SIZE_KEYS]
PROPERTY_PATHS = [p for p in KEY_PATHS if p[-1] == "properties"]
OBJECT_PATHS = [p[:-1] for p in KEY_PATHS if p[-1] == "type" and len(p) >= 4 and p[-3] == "objects"]
TILE_LAYERS = [i for i, layer in enumerate(BASE["layers"]) if layer["type"] == "tilelayer"]

any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["\x00", "../../etc/passwd", ":resources:", "9" * 5000, "NaN"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
huge_numbers = st.sampled_from(
    [0, -1, -(10**6), 10**6, 10**9, 2**31, 2**63, 10**300, 1e308, 0.5, 1e-300]
) | st.integers(-(10**7), 10**7)
gids = st.sampled_from(
    [0, -1, 1, 0x80000000, 0x40000001, 0xFFFFFFFF, 2**32, 2**40, 10**6, 3.5, "7", None, True]
) | st.integers(-(2**33), 2**33)
properties = (
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "name": st.text(max_size=8) | any_json,
                "type": st.sampled_from(
                    ["int", "float", "bool", "string", "color", "file", "object", "class"]
                )
                | any_json,
                "value": any_json,
                "propertytype": any_json,
            },
        ),
        max_size=4,
    )
    | any_json
)


def get(doc: Any, path: Path_) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def put(doc: Any, path: Path_, value: Any) -> None:
    get(doc, path[:-1])[path[-1]] = value


def delete(doc: Any, path: Path_) -> None:
    del get(doc, path[:-1])[path[-1]]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the level's tileset and backgrounds linked in."""
    made = tmp_path_factory.mktemp("levelfuzz")
    for name in ("tiles", "backgrounds"):
        (made / name).symlink_to(LEVELS_DIR / name)
    return made


@pytest.fixture(scope="module")
def game_loader(gl_window: Any) -> Iterator[Callable[[Path], None]]:
    """The game's real loader: a level scene on the engine, two frames drawn, ticks run."""
    from engine.config import load_config
    from engine.runtime.engine import Engine
    from game.level_scene import LevelScene
    from game.movement import PlayerTuning

    engine = Engine(gl_window, load_config(None), headless=True, probe_frames=0)

    def load(path: Path) -> None:
        scene = LevelScene.for_engine(engine, path, PlayerTuning())
        engine.show(scene)
        engine.resync()
        for _ in range(2):
            engine.run_frame()
        engine.render_frame(1.0)

    yield load
    engine.close()


def check(
    category: str,
    text: str | bytes,
    folder: Path,
    load: Callable[[Path], None],
    name: str = "fuzz.json",
) -> None:
    """Run the checker on ``text`` (saved as ``name``); load what it accepts in the game; count
    the case."""
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        check_path(category, path, load)
    finally:
        path.unlink(missing_ok=True)


def check_path(category: str, path: Path, load: Callable[[Path], None]) -> None:
    """The checker (with the game's kinds and conventions) on ``path``, then the game."""
    counts = TALLY[f"levels: {category}"]
    counts["cases"] += 1
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = check_levels(
                ["--kinds", "game.kinds", "--conventions", "game.conventions", str(path)]
            )
    except Exception:
        counts["tracebacks"] += 1
        raise
    if status == 2:
        errors = [line for line in err.getvalue().splitlines() if not line.startswith("warning:")]
        assert len(errors) == 1, err.getvalue()[:500]
        assert_one_line(errors[0], "level error: ", limit=1000)
        assert escaped(str(path), 200)[:60] in errors[0] or "file name" in errors[0], errors[0]
        counts["clean errors"] += 1
        return
    assert status == 0, (status, err.getvalue()[:500])
    try:
        load(path)
    except Exception:
        counts["tracebacks"] += 1
        counts["game tracebacks after the checker accepted"] += 1
        raise
    counts["loaded"] += 1


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_values_of_the_wrong_type(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 3))):
        path, value = data.draw(st.sampled_from(PATHS)), data.draw(any_json)
        with contextlib.suppress(KeyError, IndexError, TypeError):  # gone with an earlier one
            put(doc, path, value)
    check("wrong types", json.dumps(doc), folder, game_loader)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_missing_keys(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(KEY_PATHS))
        with contextlib.suppress(KeyError, IndexError, TypeError):
            delete(doc, path)
    check("missing keys", json.dumps(doc), folder, game_loader)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_huge_sizes(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 3))):
        put(doc, data.draw(st.sampled_from(SIZE_PATHS)), data.draw(huge_numbers))
    if data.draw(st.booleans()):  # a layer's data of another length
        layer = doc["layers"][data.draw(st.sampled_from(TILE_LAYERS))]
        layer["data"] = [0] * data.draw(st.sampled_from([0, 1, 10**5, 2 * 10**6]))
    check("huge sizes", json.dumps(doc), folder, game_loader)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_deep_nesting(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    put(doc, data.draw(st.sampled_from(PATHS)), "@@DEEP@@")
    depth = data.draw(st.sampled_from([20, 64, 200, 1000, 100_000]))
    opener, closer = data.draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
    text = json.dumps(doc).replace('"@@DEEP@@"', opener * depth + "1" + closer * depth)
    check("deep nesting", text, folder, game_loader)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_bad_gids(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 4))):
        if data.draw(st.booleans()):
            cells = doc["layers"][data.draw(st.sampled_from(TILE_LAYERS))]["data"]
            cells[data.draw(st.integers(0, len(cells) - 1))] = data.draw(gids)
        else:
            obj = get(doc, data.draw(st.sampled_from(OBJECT_PATHS)))
            obj["gid"] = data.draw(gids)
    check("bad gids", json.dumps(doc), folder, game_loader)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_bad_properties(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 3))):
        if PROPERTY_PATHS and data.draw(st.booleans()):
            put(doc, data.draw(st.sampled_from(PROPERTY_PATHS)), data.draw(properties))
        else:  # properties on an object, a layer or the map that had none
            target = data.draw(st.sampled_from([(), ("layers", 4), *OBJECT_PATHS]))
            get(doc, target)["properties"] = data.draw(properties)
    check("bad properties", json.dumps(doc), folder, game_loader)


# -- special files, bombs, Unicode, TMX (issue 25) ------------------------------------------------

SPECIAL = ("/dev/zero", "/dev/null", "/dev/urandom", "fifo", "directory", "link to /dev/zero")


def special_file(folder: Path, kind: str) -> str:
    """A path in ``folder`` (or a device) that is not a bounded regular file."""
    if kind.startswith("/dev/"):
        return kind
    target = folder / f"special-{kind.replace(' ', '-').replace('/', '')}"
    if not target.exists() and not target.is_symlink():
        if kind == "fifo":
            os.mkfifo(target)
        elif kind == "directory":
            target.mkdir()
        else:
            target.symlink_to("/dev/zero")
    return target.name


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_special_files(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    target = special_file(folder, data.draw(st.sampled_from(SPECIAL)))
    where = data.draw(st.sampled_from(["tileset", "template", "image layer"]))
    if where == "tileset":
        doc["tilesets"][0]["source"] = target
    elif where == "template":
        obj = get(doc, data.draw(st.sampled_from(OBJECT_PATHS)))
        obj["template"] = target
    else:
        layer = next(layer for layer in doc["layers"] if layer["type"] == "imagelayer")
        layer["image"] = target
    check("special files", json.dumps(doc), folder, game_loader)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_compression_bombs(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    layer = doc["layers"][data.draw(st.sampled_from(TILE_LAYERS))]
    cells = len(layer["data"])
    size = data.draw(
        st.sampled_from([cells * 4, cells * 4 - 4, cells * 4 + 4, 10**6, 3 * 10**7])
        | st.integers(0, 10**5)
    )
    compression = data.draw(st.sampled_from(["zlib", "gzip", "zstd", "", "lz4"]))
    raw = bytes(size)
    packed = {
        "zlib": lambda b: zlib.compress(b, 9),
        "gzip": lambda b: gzip.compress(b, 9),
    }.get(compression, lambda b: b[:4096])(raw)
    layer.update(encoding="base64", compression=compression, data=base64.b64encode(packed).decode())
    started = time.perf_counter()
    check("compression bombs", json.dumps(doc), folder, game_loader)
    assert time.perf_counter() - started < 30  # bounded: never inflated past the layer's size


odd_text = st.lists(
    st.characters(codec=None, categories=None, exclude_characters="\x00")
    | st.sampled_from(["\ud800", "\udfff", "\x1b[31m", "\u202e", "\n", "\r", "\t", "\x07"]),
    max_size=20,
).map("".join) | st.builds(
    lambda c, n: c * n, st.sampled_from(["a", "é", "\u202e"]), st.integers(200, 3000)
)


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_unicode_names(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    doc = copy.deepcopy(BASE)
    text = data.draw(odd_text)
    where = data.draw(st.sampled_from(["map name", "layer name", "object name", "file name"]))
    name = "fuzz.json"
    if where == "map name":
        doc["properties"][0]["value"] = text
    elif where == "layer name":
        data.draw(st.sampled_from(doc["layers"]))["name"] = text
    elif where == "object name":
        get(doc, data.draw(st.sampled_from(OBJECT_PATHS)))["name"] = text
    else:
        safe = "".join(ch for ch in text if ch not in "/\x00" and not 0xD800 <= ord(ch) <= 0xDFFF)
        name = (safe[:60] or " ") + ".json"
    check("unicode names", json.dumps(doc), folder, game_loader, name=name)


TMX_TEMPLATE = """<?xml version="1.0" encoding="{encoding}"?>
<map {version} orientation="orthogonal" width="{width}" height="4" tilewidth="128"
 tileheight="128" {infinite}>
 <tileset firstgid="1" source="tiles/tiles.tsj"/>
 <layer id="{layer_id}" name="solid" width="{width}" height="4">
  <data {data_attrs}>{data}</data>
 </layer>
 <objectgroup id="2" name="objects">
  <object id="{object_id}" name="start" type="player_start" x="64" y="380"><point/></object>
  <object id="11" name="goal" type="exit" x="500" y="256" width="128" height="128"/>
 </objectgroup>
</map>
"""


@pytest.mark.gl
@FUZZ_SETTINGS
@given(data=st.data())
def test_tmx_attributes(data: st.DataObject, folder: Path, game_loader: Any) -> None:
    width = data.draw(st.sampled_from(["6", "0", "-1", "x", "99999999", "6"]))
    cells = [0] * 18 + [1] * 6
    data_encoding = data.draw(st.sampled_from(["csv", "base64", "xml", "bogus", "chunks"]))
    raw = b"".join(g.to_bytes(4, "little") for g in cells)
    if data_encoding == "csv":
        attrs, body = 'encoding="csv"', ",".join(map(str, cells))
    elif data_encoding == "base64":
        compression = data.draw(st.sampled_from(["", "zlib", "gzip", "zstd", "x"]))
        packed = zlib.compress(raw) if compression == "zlib" else raw
        packed = gzip.compress(raw) if compression == "gzip" else packed
        attrs = f'encoding="base64" compression="{compression}"'
        body = base64.b64encode(packed).decode()
    elif data_encoding == "xml":
        attrs, body = "", "".join(f'<tile gid="{g}"/>' for g in cells)
    elif data_encoding == "chunks":
        x = data.draw(st.sampled_from(["0", "-16", "2147483647", "-99999999999", "a"]))
        attrs = 'encoding="csv"'
        body = f'<chunk x="{x}" y="0" width="6" height="4">{",".join(map(str, cells))}</chunk>'
    else:
        attrs, body = 'encoding="bogus"', "1,2"
    text = TMX_TEMPLATE.format(
        encoding=data.draw(st.sampled_from(["UTF-8", "x-bogus", "latin-1", "UTF-16", "ascii"])),
        version=data.draw(
            st.sampled_from(['version="1.0"', 'version="1.10" tiledversion="1.10"', ""])
        ),
        width=width,
        infinite=data.draw(st.sampled_from(['infinite="0"', 'infinite="1"', "", 'infinite="x"'])),
        layer_id=data.draw(st.sampled_from(["1", "0", str(2**63), "-5", "one"])),
        object_id=data.draw(st.sampled_from(["10", str(2**63), str(2**31), "-1", "1e3", "10"])),
        data_attrs=attrs,
        data=body,
    )
    check("tmx attributes", text.encode("utf-8"), folder, game_loader, name="fuzz.tmx")
