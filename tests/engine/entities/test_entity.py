"""Entities: tick order, safe spawning and despawning inside a pass, ids, the state digest."""

from __future__ import annotations

from typing import Any

import pytest

from engine.entities import Entities, Entity, Look


class Log:
    """A host that records what entities did, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.entities: Entities[Log] = Entities(self)


class Probe(Entity):
    order = 20

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.counter = 0

    def on_spawn(self, world: Log) -> None:
        world.calls.append(("spawn", self.id, self.name))

    def tick(self, world: Log) -> None:
        self.counter += 1
        world.calls.append(("tick", self.id, self.name))

    def after_step(self, world: Log) -> None:
        world.calls.append(("after", self.id, self.name))

    def on_despawn(self, world: Log) -> None:
        world.calls.append(("despawn", self.id, self.name))

    def hash_state(self) -> tuple[object, ...]:
        return (self.counter,)


class Early(Probe):
    order = 0


class Spawner(Probe):
    """Spawns a child on its first tick and despawns itself and a victim on its second."""

    def __init__(self, name: str, victim: Entity | None = None) -> None:
        super().__init__(name)
        self.victim = victim
        self.child: Probe | None = None

    def tick(self, world: Log) -> None:
        super().tick(world)
        if self.counter == 1:
            self.child = world.entities.spawn(Probe("child"))
        elif self.counter == 2:
            world.entities.despawn(self)
            if self.victim is not None:
                world.entities.despawn(self.victim)


def test_entities_tick_by_order_then_spawn_order() -> None:
    log = Log()
    late, early, later = Probe("a"), Early("b"), Probe("c")
    for entity in (late, early, later):
        log.entities.spawn(entity)
    assert [e.id for e in (late, early, later)] == [1, 2, 3]
    log.calls.clear()
    log.entities.tick()
    log.entities.after_step()
    assert log.calls == [
        ("tick", 2, "b"),
        ("tick", 1, "a"),
        ("tick", 3, "c"),
        ("after", 2, "b"),
        ("after", 1, "a"),
        ("after", 3, "c"),
    ]


def test_spawning_and_despawning_inside_a_pass_is_safe_and_deterministic() -> None:
    log = Log()
    victim = Probe("victim")
    spawner = Spawner("spawner", victim)
    log.entities.spawn(spawner)
    log.entities.spawn(victim)
    log.calls.clear()
    log.entities.tick()  # the spawner spawns its child: on_spawn at once, ticks from next pass
    assert log.calls == [
        ("tick", 1, "spawner"),
        ("spawn", 3, "child"),
        ("tick", 2, "victim"),
    ]
    log.calls.clear()
    log.entities.tick()  # the spawner despawns itself and the victim, which must not tick
    assert log.calls == [
        ("tick", 1, "spawner"),
        ("tick", 3, "child"),
        ("despawn", 1, "spawner"),
        ("despawn", 2, "victim"),
    ]
    assert not spawner.alive and not victim.alive
    assert list(log.entities) == [spawner.child]
    log.entities.despawn(victim)  # despawning twice does nothing
    assert log.calls[-1] == ("despawn", 2, "victim")


def test_an_entity_cannot_be_spawned_twice() -> None:
    log = Log()
    probe = log.entities.spawn(Probe("once"))
    with pytest.raises(ValueError, match="spawned already"):
        log.entities.spawn(probe)


def test_the_state_digest_covers_ids_classes_and_state() -> None:
    def world(counter: int) -> Log:
        log = Log()
        log.entities.spawn(Probe("x")).counter = counter
        return log

    assert world(1).entities.state_digest() == world(1).entities.state_digest()
    assert world(1).entities.state_digest() != world(2).entities.state_digest()
    other = Log()
    other.entities.spawn(Early("x")).counter = 1
    assert other.entities.state_digest() != world(1).entities.state_digest()


def test_of_type_and_len_see_only_the_living() -> None:
    log = Log()
    a, b = log.entities.spawn(Probe("a")), log.entities.spawn(Early("b"))
    assert log.entities.of_type(Early) == [b] and len(log.entities) == 2
    log.entities.despawn(a)
    assert len(log.entities) == 1 and log.entities.spawned == 2


def test_a_look_needs_a_texture_and_is_read_only() -> None:
    with pytest.raises(ValueError):
        Look({})
    with pytest.raises(ValueError):
        Look({"idle": ()})
    look = Look.still("art.png", height_px=16.0)
    assert look.clips["idle"] == ("art.png",)
    clips: Any = look.clips
    with pytest.raises(TypeError):
        clips["walk"] = ("x.png",)
