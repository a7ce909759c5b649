"""Effects are drawn from the event log and the tick: deterministic, fading, never in the state."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.config import InputConfig, game_action_names
from engine.input.replay import ReplayVerifier, load_replay
from engine.input.snapshot import ActionMap
from game.effects import BURSTS, IRIS_OPEN_TICKS, Effects
from game.entities.player import HURT_TICKS
from game.movement import PlayerTuning
from game.world_builder import Event, LevelWorld

ROOT = Path(__file__).resolve().parents[2]
DT_S = 1 / 60


def event(seq: int, tick: int, name: str, x: float = 100.0, y: float = 50.0) -> Event:
    return Event(seq, tick, name, x, y)


def test_a_burst_starts_at_its_event_spreads_and_fades() -> None:
    effects = Effects(DT_S)
    log = [event(1, 10, "land")]
    xy0, rgba0 = effects.particles(log, 10.0)
    assert len(xy0) == BURSTS["land"].count
    assert np.all(np.abs(xy0 - (100, 50)) <= BURSTS["land"].spread_px + 1e-6)
    xy1, rgba1 = effects.particles(log, 15.0)
    assert np.all(np.abs(xy1 - xy0).max(axis=1) > 0)  # they moved
    assert np.all(rgba1[:, 3] < rgba0[:, 3])  # and faded
    assert len(effects.particles(log, 10.0 + BURSTS["land"].lifetime_ticks)[0]) == 0  # gone
    assert len(effects.particles(log, 9.0)[0]) == 0  # not yet


def test_the_same_event_looks_the_same_whoever_draws_it_and_whenever() -> None:
    log = [event(7, 3, "coin"), event(8, 4, "hurt"), event(9, 4, "unknown-event")]
    a_xy, a_rgba = Effects(DT_S).particles(log, 8.5)
    other = Effects(DT_S)
    other.particles(log, 4.0)  # drawn at other moments first: the cache changes nothing
    other.particles(log, 20.0)
    b_xy, b_rgba = other.particles(log, 8.5)
    assert np.array_equal(a_xy, b_xy) and np.array_equal(a_rgba, b_rgba)
    assert len(a_xy) == BURSTS["coin"].count + BURSTS["hurt"].count


def test_shake_flash_and_iris_follow_a_hurt_then_a_respawn() -> None:
    hurt = event(1, 100, "hurt", 300, 80)
    respawn = event(2, 100 + HURT_TICKS, "respawn", 40, 64)
    assert Effects.shake_px([hurt], 99) == (0.0, 0.0)
    assert Effects.shake_px([hurt], 103) != (0.0, 0.0)
    assert Effects.shake_px([hurt], 130) == (0.0, 0.0)
    assert Effects.flash_rgba([hurt], 100)[3] > Effects.flash_rgba([hurt], 106)[3] > 0
    assert Effects.flash_rgba([hurt], 120)[3] == 0
    assert Effects.iris([hurt], 101) is None  # the freeze starts open
    closing = Effects.iris([hurt], 100 + HURT_TICKS - 5)
    assert closing is not None and closing[:2] == (300, 80) and 0 < closing[2] < 1
    opening = Effects.iris([hurt, respawn], 100 + HURT_TICKS + IRIS_OPEN_TICKS / 2)
    assert opening == (40, 64, 0.5)
    assert Effects.iris([hurt, respawn], 100 + HURT_TICKS + IRIS_OPEN_TICKS) is None


def test_coin_sparkles_come_from_the_tick_alone() -> None:
    coins = np.array([[10.0, 10.0], [50.0, 10.0], [90.0, 10.0]])
    seen = {tick: len(Effects.coin_sparkles(coins, tick, 8.0)[0]) for tick in range(0, 180)}
    assert 0 < sum(seen.values()) < 3 * 180  # each coin glints now and then
    xy, rgba = Effects.coin_sparkles(coins, 3, 8.0)
    again = Effects.coin_sparkles(coins, 3, 8.0)
    assert np.array_equal(xy, again[0]) and np.array_equal(rgba, again[1])


@pytest.mark.parametrize("name", ["level2.replay", "level4.replay"])
def test_computing_every_effect_each_tick_leaves_the_state_hashes_alone(name: str) -> None:
    """The bundled replay's recorded hashes still match with every effect computed each tick."""
    replay = load_replay(ROOT / "levels" / "replays" / name)
    world = LevelWorld.load(ROOT / "levels" / replay.level_id, PlayerTuning(), DT_S)
    verifier = ReplayVerifier(replay, source=name)
    inputs = verifier.player(ActionMap(game_action_names(InputConfig())))
    effects = Effects(DT_S)
    while not inputs.finished:
        tick = inputs.position
        world.tick(inputs.sample())
        for alpha in (0.0, 0.5):
            drawn = world.ticks - 1 + alpha
            effects.particles(world.events, drawn)
            effects.shake_px(world.events, drawn)
            effects.flash_rgba(world.events, drawn)
            effects.iris(world.events, drawn)
        verifier.check(tick, world.state_hash())
    assert world.completed


def test_a_par_time_must_be_a_positive_number(tmp_path: Path) -> None:
    import json

    from engine.levels import KindRegistry, LevelError, load_level
    from game.kinds import KINDS
    from game.world_builder import par_time_s

    level_file = ROOT / "levels" / "level1.json"
    assert par_time_s(load_level(level_file, KINDS)) == 12.0
    data = json.loads(level_file.read_text())
    for bad in ("fast", -1, 0, True, 1e9, [[1]]):
        for prop in data["properties"]:
            if prop["name"] == "par_time_s":
                prop["value"] = bad
        broken = tmp_path / "level1.json"
        broken.write_text(json.dumps(data))
        for folder in ("tiles", "backgrounds"):
            link = tmp_path / folder
            if not link.exists():
                link.symlink_to(ROOT / "levels" / folder)
        with pytest.raises(LevelError) as caught:
            load_level(broken, KINDS)  # the loader, and so the level checker, refuses it
        assert 'map properties: property "par_time_s" must be a number in 0.1..86400 s' in str(
            caught.value
        )
        # A game with a registry of its own (its kinds, no map properties) loads it; the
        # world reading the par time refuses it in the same words.
        own = KindRegistry()
        for kind in KINDS:
            if kind.name not in own:
                own.register(kind)
        with pytest.raises(LevelError) as again:
            par_time_s(load_level(broken, own))
        assert str(again.value) == str(caught.value)
