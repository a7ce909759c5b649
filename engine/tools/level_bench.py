"""Benchmark section ``levels``: what one tick of each bundled level costs, entities included.

Each bundled replay (``levels/replays/levelN.replay``) is played on the game's pure
simulation (its definition's ``load_world``: the sample's is physics, the player and every
entity, no drawing), timing every tick with ``perf_counter_ns``. A row gives the level's live entities and
physics bodies at the start, and the median, 99th percentile and mean tick in milliseconds; the
busiest level (the most entities) is marked. The state hash is left out of the timing: it is
the replay's check, not part of a tick.

When the world has savestates (``capture`` / ``restore``, :mod:`engine.app.savestate`), the
row also gives the median time of a capture plus a restore (``savestate_ms``, goal: at most
1 ms on the busiest level), measured at eight points along the replay, outside the ticks'
timing: each point captures, plays on to the next point, and restores the state it captured
before playing that stretch again.

``reload_ms`` is the median of five more ``load_world`` calls on the same level (a restart's
simulation side: with the level cache, :mod:`engine.levels.level_cache`, no map is parsed
again).

It works on any game (``--game PACKAGE``, :func:`~engine.app.definition.load_definition`;
default: the one game in the working directory). Entities and bodies are counted when the
world has ``entities`` and ``physics`` collections (the sample's does).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any


def bench_levels(options: argparse.Namespace) -> list[dict[str, Any]]:
    """Play every bundled replay on the simulation and time its ticks.

    Returns:
        One row per level: ``level``, ``ticks``, ``entities``, ``bodies``, ``median_ms``,
        ``p99_ms``, ``mean_ms``, ``busiest`` (True for the level with the most entities),
        ``savestate_ms`` and ``reload_ms``.
    """
    from engine.app.definition import load_definition
    from engine.app.savestate import supports_savestates
    from engine.config import InputConfig, game_action_names
    from engine.input.replay import ReplayVerifier, load_replay
    from engine.input.snapshot import ActionMap

    definition = load_definition(getattr(options, "game", None))
    actions = ActionMap(game_action_names(InputConfig()))
    rows: list[dict[str, Any]] = []
    levels_dir = definition.files.levels_dir()
    settings = definition.default_settings()
    for replay_path in sorted((levels_dir / "replays").glob("*.replay")):
        replay = load_replay(replay_path)
        world = definition.load_world(levels_dir / replay.level_id, settings)
        reload_ns = []
        for _ in range(5):
            start_ns = time.perf_counter_ns()
            definition.load_world(levels_dir / replay.level_id, settings)
            reload_ns.append(time.perf_counter_ns() - start_ns)
        entities = len(getattr(world, "entities", ()))
        bodies = len(getattr(world, "physics", ()))
        inputs = ReplayVerifier(replay).player(actions)
        samples_ns: list[int] = []
        savestate_ns: list[int] = []
        saves = supports_savestates(world)
        every = max(1, replay.tick_count // 8)
        stretch: list[Any] = []
        state: Any = None
        for tick in range(replay.tick_count):
            if saves and tick % every == 0:
                if state is not None:  # back to the previous point, and play the stretch again
                    start_ns = time.perf_counter_ns()
                    world.restore(state)  # type: ignore[attr-defined]
                    savestate_ns[-1] += time.perf_counter_ns() - start_ns
                    for again in stretch:
                        world.tick(again)
                start_ns = time.perf_counter_ns()
                state = world.capture()  # type: ignore[attr-defined]
                savestate_ns.append(time.perf_counter_ns() - start_ns)
                stretch = []
            snapshot = inputs.sample()
            stretch.append(snapshot)
            start_ns = time.perf_counter_ns()
            world.tick(snapshot)
            samples_ns.append(time.perf_counter_ns() - start_ns)
        samples_ns.sort()
        rows.append(
            {
                "level": world.level.name,
                "file": replay.level_id,
                "ticks": replay.tick_count,
                "entities": entities,
                "bodies": bodies,
                "median_ms": round(statistics.median(samples_ns) / 1e6, 4),
                "p99_ms": round(samples_ns[int(0.99 * (len(samples_ns) - 1))] / 1e6, 4),
                "mean_ms": round(statistics.fmean(samples_ns) / 1e6, 4),
                "busiest": False,
                "savestate_ms": (
                    round(statistics.median(savestate_ns[:-1] or savestate_ns) / 1e6, 4)
                    if savestate_ns
                    else None
                ),
                "reload_ms": round(statistics.median(reload_ns) / 1e6, 3),
            }
        )
    if rows:
        max(rows, key=lambda row: row["entities"])["busiest"] = True
    return rows


def format_levels(rows: list[dict[str, Any]]) -> str:
    """The ``levels`` section as a text table."""
    lines = [
        "levels: one simulation tick of each bundled level, replaying its bundled replay",
        f"{'level':<22} {'ticks':>6} {'entities':>9} {'bodies':>7} {'median ms':>10} "
        f"{'p99 ms':>8} {'mean ms':>8} {'save+load ms':>13} {'reload ms':>10}",
    ]
    for row in rows:
        mark = "  <- busiest" if row["busiest"] else ""
        saves = row.get("savestate_ms")
        shown = f"{saves:>13.4f}" if saves is not None else f"{'-':>13}"
        lines.append(
            f"{row['level']:<22} {row['ticks']:>6} {row['entities']:>9} {row['bodies']:>7} "
            f"{row['median_ms']:>10.4f} {row['p99_ms']:>8.4f} {row['mean_ms']:>8.4f} "
            f"{shown} {row['reload_ms']:>10.2f}{mark}"
        )
    return "\n".join(lines)
