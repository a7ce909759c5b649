"""Maps as other engines and older Tiled versions write them: they load, or refuse in one line.

Every map here is written by the test from Tiled's format documentation, in the shapes found in
the wild (a Tiled 1.0 header, melonJS's ``Collision`` object layer, a start named
``SpawnPoint``, chunked infinite data, a JSON tileset in a TMX map...), and the hostile shapes
(compression bombs, special files as templates and tilesets, bogus encodings, huge ids, names
no run file can record). Each is loaded by the real loader and, where it should play, by the
real simulation for 300 ticks: the player must stand on ground, not fall.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import io
import json
import os
import shutil
import time
import zlib
from pathlib import Path

import pytest

from engine.levels import LevelError, load_level
from engine.levels.__main__ import main as check_levels
from engine.levels.conventions import GENERIC_CONVENTIONS, MapConventions, normalized_name
from engine.levels.model import MAX_NAME_CHARS
from game.conventions import CONVENTIONS
from game.kinds import KINDS
from tests.small_picture import SMALL_PICTURE_FLAGS

DATA_DIR = Path(__file__).parent / "data"

W, H = 12, 8
GROUND = ",".join("1" if row == H - 1 else "0" for row in range(H) for _ in range(W))


def tsx(image: str = "tiles.png", *, counts: bool = True) -> str:
    extra = ' tilecount="4" columns="2"' if counts else ""
    return (
        f'<tileset name="tiles" tilewidth="16" tileheight="16"{extra}>'
        f'<image source="{image}" width="32" height="32"/></tileset>'
    )


def tmx(
    body: str,
    *,
    header: str = 'version="1.0"',
    tileset: str | None = None,
    width: int = W,
    height: int = H,
) -> str:
    """A TMX map in the shape Tiled 1.0 wrote (no infinite, nextlayerid, renderorder...)."""
    tileset = tileset if tileset is not None else f'<tileset firstgid="1" {tsx()[9:]}'
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<map {header} orientation="orthogonal" width="{width}" height="{height}" '
        f'tilewidth="16" tileheight="16">{tileset}{body}</map>'
    )


def write(tmp_path: Path, text: str | bytes, name: str = "map.tmx") -> Path:
    shutil.copy(DATA_DIR / "tiles.png", tmp_path / "tiles.png")
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def one_line_error(path: Path, **kwargs: object) -> str:
    with pytest.raises(LevelError) as info:
        load_level(path, KINDS, CONVENTIONS, **kwargs)  # type: ignore[arg-type]
    line = str(info.value)
    assert "\n" not in line and line.startswith("level error: ")
    return line


def stands_after_300_ticks(path: Path) -> bool:
    from engine.input.snapshot import ActionMap, InputSnapshot
    from game.movement import PlayerTuning
    from game.world_builder import LevelWorld

    world = LevelWorld.load(path, PlayerTuning(), 1 / 60)
    idle = InputSnapshot(ActionMap(("left", "right", "up", "down", "jump")), 0, 0)
    for _ in range(300):
        world.tick(idle)
    return bool(world.player.state.grounded) and world.deaths == 0


GROUND_LAYER = (
    f'<layer name="Ground" width="{W}" height="{H}"><data encoding="csv">{GROUND}</data></layer>'
)
SPAWN = (
    '<objectgroup name="Entities">'
    '<object id="1" name="SpawnPoint" x="40" y="60" width="16" height="16"/></objectgroup>'
)


# -- conventions --------------------------------------------------------------------------------


def test_names_match_case_and_spelling_insensitively() -> None:
    for spelling in ("SpawnPoint", "spawn_point", "Spawn Point", "SPAWN-POINT", "mainPlayer"):
        assert GENERIC_CONVENTIONS.kind_of(spelling) == "player_start", spelling
    assert GENERIC_CONVENTIONS.kind_of("CoinEntity") == "coin"
    assert GENERIC_CONVENTIONS.kind_of("Don't Touch") == "hazard"
    assert GENERIC_CONVENTIONS.match("layer02-nonpassable", GENERIC_CONVENTIONS.solid_layers)
    assert GENERIC_CONVENTIONS.kind_of("Slime") is None
    assert normalized_name("Starting  Point") == "starting point"


def test_a_game_extends_or_overrides_names_in_one_place() -> None:
    mine = GENERIC_CONVENTIONS.extended(object_kinds={"Hero": "exit"}, solid_layers=["Rocks"])
    assert isinstance(mine, MapConventions)
    assert mine.kind_of("hero") == "exit" and GENERIC_CONVENTIONS.kind_of("hero") == "player_start"
    assert mine.match("rocks", mine.solid_layers)
    assert mine.without("Ground").match("Ground", mine.without("Ground").solid_layers) is None


# -- Tiled 1.0 and other engines' shapes --------------------------------------------------------


def test_a_tiled_1_0_map_with_a_spawn_point_loads_and_the_player_stands(tmp_path: Path) -> None:
    path = write(tmp_path, tmx(GROUND_LAYER + SPAWN))
    level = load_level(path, KINDS, CONVENTIONS)
    assert level.conventions == "foreign" and level.solid_tile_count == W
    assert level.player_start.name == "SpawnPoint"
    assert stands_after_300_ticks(path)


def test_ground_drawn_as_objects_on_a_collision_layer_is_stood_on(tmp_path: Path) -> None:
    collision = (
        '<objectgroup name="collision">'
        f'<object id="2" x="0" y="{(H - 1) * 16}" width="{W * 16}" height="16"/>'
        '<object id="3" type="platform" x="64" y="40"><polyline points="0,0 48,0"/></object>'
        '<object id="4" x="120" y="112"><polygon points="0,0 64,0 64,-32"/></object>'
        "</objectgroup>"
    )
    path = write(tmp_path, tmx(collision + SPAWN))
    level = load_level(path, KINDS, CONVENTIONS)
    assert level.solid_tile_count == 0 and len(level.ground_shapes) == 3
    assert [shape.one_way for shape in level.ground_shapes] == [False, True, False]
    assert stands_after_300_ticks(path)


def test_tile_collision_shapes_are_ground(tmp_path: Path) -> None:
    tileset = (
        '<tileset firstgid="1" name="t" tilewidth="16" tileheight="16" tilecount="4" columns="2">'
        '<image source="tiles.png" width="32" height="32"/>'
        '<tile id="0"><objectgroup><object id="1" x="0" y="8" width="16" height="8"/>'
        "</objectgroup></tile></tileset>"
    )
    layer = (
        f'<layer name="art" width="{W}" height="{H}"><data encoding="csv">{GROUND}</data></layer>'
    )
    path = write(tmp_path, tmx(layer + SPAWN, tileset=tileset))
    level = load_level(path, KINDS, CONVENTIONS)
    assert len(level.ground_shapes) == W and level.solid_tile_count == 0
    assert stands_after_300_ticks(path)


def test_objects_without_a_known_class_are_skipped_and_counted(tmp_path: Path) -> None:
    junk = (
        '<objectgroup name="decor"><object id="5" x="1" y="1" width="4" height="4"/>'
        '<object id="6" type="PalmTree" x="1" y="1" width="4" height="4"/></objectgroup>'
    )
    level = load_level(write(tmp_path, tmx(GROUND_LAYER + SPAWN + junk)), KINDS, CONVENTIONS)
    assert level.skipped_objects == 2
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert check_levels(["--kinds", "game.kinds", str(tmp_path / "map.tmx")]) == 0
    assert "skipped 2 objects" in out.getvalue().splitlines()[0]


def test_a_foreign_map_without_start_or_ground_is_refused_saying_what_to_do(
    tmp_path: Path,
) -> None:
    art = f'<layer name="art" width="{W}" height="{H}"><data encoding="csv">{GROUND}</data></layer>'
    line = one_line_error(write(tmp_path, tmx(art)))
    assert "no start found and no ground" in line and '"player_start"' in line


def test_the_project_conventions_stay_strict(tmp_path: Path) -> None:
    solid = (
        f'<layer name="solid" width="{W}" height="{H}"><data encoding="csv">{GROUND}</data></layer>'
    )
    junk = '<objectgroup name="o"><object id="5" x="1" y="1" width="4" height="4"/></objectgroup>'
    assert "object has no class" in one_line_error(write(tmp_path, tmx(solid + SPAWN + junk)))


def test_a_json_tileset_in_a_tmx_map(tmp_path: Path) -> None:
    (tmp_path / "tiles.tsj").write_text(
        '{"name":"t","tilewidth":16,"tileheight":16,"tilecount":4,"columns":2,'
        '"image":"tiles.png","imagewidth":32,"imageheight":32,"type":"tileset"}'
    )
    path = write(
        tmp_path, tmx(GROUND_LAYER + SPAWN, tileset='<tileset firstgid="1" source="tiles.tsj"/>')
    )
    assert load_level(path, KINDS, CONVENTIONS).solid_tile_count == W


def test_a_tileset_without_tilecount_or_columns(tmp_path: Path) -> None:
    (tmp_path / "old.tsx").write_text(tsx(counts=False))
    path = write(
        tmp_path, tmx(GROUND_LAYER + SPAWN, tileset='<tileset firstgid="1" source="old.tsx"/>')
    )
    assert load_level(path, KINDS, CONVENTIONS).solid_tile_count == W


@pytest.mark.parametrize("encoding", ["csv", "base64", "zlib", "gzip", "xml"])
def test_every_tile_data_encoding_tiled_writes(tmp_path: Path, encoding: str) -> None:
    gids = [int(g) for g in GROUND.split(",")]
    raw = b"".join(g.to_bytes(4, "little") for g in gids)
    if encoding == "csv":
        data = f'<data encoding="csv">{GROUND}</data>'
    elif encoding == "xml":
        data = "<data>" + "".join(f'<tile gid="{g}"/>' for g in gids) + "</data>"
    else:
        packed = {"base64": raw, "zlib": zlib.compress(raw), "gzip": gzip.compress(raw)}[encoding]
        compression = "" if encoding == "base64" else f' compression="{encoding}"'
        data = f'<data encoding="base64"{compression}>{base64.b64encode(packed).decode()}</data>'
    layer = f'<layer name="Ground" width="{W}" height="{H}">{data}</layer>'
    assert load_level(write(tmp_path, tmx(layer + SPAWN)), KINDS, CONVENTIONS).solid_tile_count == W


def test_an_infinite_map_is_laid_out_finite_with_its_objects(tmp_path: Path) -> None:
    row = ",".join(["1"] * 16)
    empty = ",".join(["0"] * 16)
    chunk = ",".join([empty] * 15 + [row])
    layer = (
        '<layer name="Ground" width="16" height="16"><data encoding="csv">'
        f'<chunk x="-16" y="-16" width="16" height="16">{chunk}</chunk>'
        f'<chunk x="0" y="-16" width="16" height="16">{chunk}</chunk></data></layer>'
    )
    spawn = (
        '<objectgroup name="Entities"><object id="1" name="Player" x="-200" y="-40"/></objectgroup>'
    )
    path = write(tmp_path, tmx(layer + spawn, header='version="1.2" infinite="1"'))
    level = load_level(path, KINDS, CONVENTIONS)
    assert (level.width_tiles, level.height_tiles) == (32, 1) and level.solid_tile_count == 32
    x, _ = level.player_start.feet_px
    assert x == -200 + 16 * 16  # shifted with the tiles
    assert stands_after_300_ticks(path)


# -- hostile shapes (issue 25) ------------------------------------------------------------------


@pytest.mark.parametrize("compression", ["zlib", "gzip"])
def test_a_compression_bomb_is_refused_without_inflating_it(
    tmp_path: Path, compression: str
) -> None:
    bomb = b"\0" * (16 * 1024 * 1024)  # 16 MiB of zeros for a 384-byte layer: a few kB packed
    packed = zlib.compress(bomb, 9) if compression == "zlib" else gzip.compress(bomb, 9)
    data = f'<data encoding="base64" compression="{compression}">{base64.b64encode(packed).decode()}</data>'
    path = write(
        tmp_path, tmx(f'<layer name="Ground" width="{W}" height="{H}">{data}</layer>' + SPAWN)
    )
    started = time.perf_counter()
    line = one_line_error(path)
    assert f"more than the {W * H} tiles the layer declares" in line
    assert time.perf_counter() - started < 2.0


def test_zstd_is_one_consistent_line_in_both_formats(tmp_path: Path) -> None:
    data = '<data encoding="base64" compression="zstd">KLUv/QBYAAAA</data>'
    tmx_line = one_line_error(
        write(tmp_path, tmx(f'<layer name="G" width="{W}" height="{H}">{data}</layer>'))
    )
    assert 'layer "G": ' in tmx_line and "zstd" in tmx_line and "pytiled" not in tmx_line


def test_a_bogus_xml_encoding_is_one_line(tmp_path: Path) -> None:
    text = tmx(GROUND_LAYER + SPAWN).replace('encoding="UTF-8"', 'encoding="x-bogus"', 1)
    assert "encoding" in one_line_error(write(tmp_path, text))


def test_a_huge_tmx_object_id_is_refused_like_a_json_one(tmp_path: Path) -> None:
    spawn = SPAWN.replace('id="1"', f'id="{2**63}"')
    assert "out of range" in one_line_error(write(tmp_path, tmx(GROUND_LAYER + spawn)))


@pytest.mark.parametrize("what", ["template", "tileset"])
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_templates_and_tilesets_that_are_special_files_are_refused(
    tmp_path: Path, what: str, special: str
) -> None:
    target = special
    if special == "fifo":
        target = str(tmp_path / "pipe")
        os.mkfifo(target)
    if what == "template":
        body = (
            GROUND_LAYER
            + f'<objectgroup name="o"><object id="3" template="{target}" x="1" y="1"/></objectgroup>'
        )
        text = tmx(body + SPAWN)
    else:
        text = tmx(GROUND_LAYER + SPAWN, tileset=f'<tileset firstgid="1" source="{target}"/>')
    line = one_line_error(write(tmp_path, text))
    assert "not a regular file" in line


def test_a_template_whose_tileset_is_a_special_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "t.tx").write_text(
        '<template><tileset firstgid="1" source="/dev/zero"/>'
        '<object gid="1" width="16" height="16"/></template>'
    )
    body = (
        GROUND_LAYER
        + '<objectgroup name="o"><object id="3" template="t.tx" x="1" y="1"/></objectgroup>'
    )
    assert "not a regular file" in one_line_error(write(tmp_path, tmx(body + SPAWN)))


@pytest.mark.parametrize(
    "name",
    ["\ud800 lone", "two\nlines", "bell\x07", "\x1b[31mred", "x" * (MAX_NAME_CHARS + 1)],
    ids=["surrogate", "newline", "control", "escape", "long"],
)
def test_level_names_no_run_file_could_record_are_refused(tmp_path: Path, name: str) -> None:
    raw = {
        "type": "map",
        "orientation": "orthogonal",
        "width": W,
        "height": H,
        "tilewidth": 16,
        "tileheight": 16,
        "properties": [{"name": "name", "type": "string", "value": name}],
        "tilesets": [
            {
                "firstgid": 1,
                "name": "t",
                "tilewidth": 16,
                "tileheight": 16,
                "image": "tiles.png",
                "imagewidth": 32,
                "imageheight": 32,
            }
        ],
        "layers": [
            {
                "type": "tilelayer",
                "name": "Ground",
                "width": W,
                "height": H,
                "data": [int(g) for g in GROUND.split(",")],
            },
            {
                "type": "objectgroup",
                "name": "Entities",
                "objects": [{"id": 1, "name": "Player", "x": 40, "y": 60}],
            },
        ],
    }  # fmt: skip  (a Tiled 1.0-style JSON map: no ids on layers, no tilecount)
    line = one_line_error(write(tmp_path, json.dumps(raw), "map.json"))
    assert 'property "name"' in line
    line.encode("utf-8")  # no lone surrogate reaches the terminal
    assert "\x1b" not in line and "\x07" not in line


@pytest.mark.parametrize("prefix", [" ", "\t", "\n"])
def test_file_names_a_run_file_cannot_record_are_refused(tmp_path: Path, prefix: str) -> None:
    path = write(tmp_path, tmx(GROUND_LAYER + SPAWN), f"{prefix}map.tmx")
    assert "file name" in one_line_error(path)


def test_the_checker_prints_names_escaped_and_short(tmp_path: Path) -> None:
    folder = tmp_path / "dir\u202e"  # a bidi override (turns the rest of the line around)
    folder.mkdir()
    props = f'<properties><property name="name" value="{"é" * 200}"/></properties>'
    path = write(folder, tmx(props + GROUND_LAYER + SPAWN))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert check_levels([str(path)]) == 0
    first = out.getvalue().splitlines()[0]
    assert "\u202e" not in first and "\\u202e" in first
    assert "..." in first and len(first) < 600


def test_the_parser_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    load_level(write(tmp_path, tmx(GROUND_LAYER + SPAWN)), KINDS, CONVENTIONS)
    assert capfd.readouterr().out == ""


def test_object_templates_in_the_other_format_are_read(tmp_path: Path) -> None:
    (tmp_path / "start.tj").write_text(
        '{"type":"template","object":{"name":"Player","point":true,"width":0,"height":0}}'
    )
    (tmp_path / "coin.tx").write_text(
        '<template><object type="coin" width="16" height="16"/></template>'
    )
    body = (
        GROUND_LAYER
        + '<objectgroup name="o"><object id="3" template="start.tj" x="40" y="60"/>'
        + '<object id="4" template="coin.tx" x="80" y="60"/></objectgroup>'
    )
    level = load_level(write(tmp_path, tmx(body)), KINDS, CONVENTIONS)
    assert level.player_start.id == 3 and len(level.coins) == 1


@pytest.mark.slow
def test_the_game_plays_a_foreign_map_headless_and_the_player_stands(tmp_path: Path) -> None:
    import subprocess
    import sys

    collision = (
        '<objectgroup name="Collision">'
        f'<object id="2" x="0" y="{(H - 1) * 16}" width="{W * 16}" height="16"/></objectgroup>'
    )
    path = write(tmp_path, tmx(collision + SPAWN))
    root = Path(__file__).resolve().parents[3]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS")}
    command = [sys.executable, "-m", "game", "--headless", "--level", str(path), "--json"]
    out = subprocess.run(
        [*command, "--frames", "300", *SMALL_PICTURE_FLAGS],  # the player standing: no pixels
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=root,
    )
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    summary = json.loads(out.stdout)
    assert summary["respawns"] == 0 and summary["ticks"] > 200
