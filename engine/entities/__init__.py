"""Entities: the objects of a level that have behaviour, ticked in a fixed order.

The model is Robert Nystrom's *Update Method* (Game Programming Patterns), not an ECS
framework: each placed object becomes one small :class:`~engine.entities.entity.Entity` object
that knows how to advance itself by one tick. What follows teaches the whole model with a complete
small example; the modules are:

* :mod:`~engine.entities.entity` — :class:`Entity` (the base class) and :class:`Entities` (the
  ordered collection a level ticks, safe to spawn into and despawn from at any time).
* :mod:`~engine.entities.animation` — :class:`Clip` and :class:`Animator`: animation states whose
  frames advance with ticks, never with frames or wall time.

Everything here is pure (no arcade): a level's simulation runs and is verified without a window.
How an entity looks is declared as data (:class:`~engine.entities.entity.Look`) and drawn by
:class:`engine.rendering.entity_sprites.EntitySprites`.

A complete example: a kind of object and its entity
---------------------------------------------------

A game declares a *kind* (what the level designer writes in Tiled's Class field, with its typed
properties, see :mod:`engine.levels.kinds`) and the entity class built from it::

    import pymunk
    from engine.entities import Animator, Clip, Entity, Look
    from engine.levels.kinds import Kind, Prop

    BOUNCER = Kind(
        "bouncer",
        shapes=("point",),
        props=(Prop("speed_px_s", float, 60.0, unit="px/s", min=0, max=1000,
                    doc="How fast it moves up and down."),),
        doc="A blob that bobs up and down.",
    )

    class Bouncer(Entity):
        order = 20                       # ticks after platforms (0) and the player (10)
        look = Look(clips={"idle": (":resources:images/enemies/slimeBlue.png",
                                    ":resources:images/enemies/slimeBlue_move.png")},
                    ticks_per_frame=8, size_px=(32, 32))

        def __init__(self, obj):         # obj: the LevelObject, properties checked
            super().__init__()
            self.speed_px_s = obj.properties["speed_px_s"]
            self.start = obj.position_px
            self.animator = Animator({"idle": Clip(frames=2, ticks_per_frame=8)}, "idle")

        def on_spawn(self, world):       # create the body; the world draws it interpolated
            self.body = pymunk.Body(body_type=pymunk.Body.KINEMATIC)
            self.body.position = self.start
            world.physics.add(self.body, sprite=self)

        def tick(self, world):           # inside a fixed tick: the only place state changes
            going_up = (world.ticks // 60) % 2 == 0
            self.body.velocity = (0.0, self.speed_px_s if going_up else -self.speed_px_s)

        def on_despawn(self, world):
            world.physics.remove(self.body)

    # The level world builds one Bouncer per "bouncer" object and ticks every entity once per
    # fixed tick, in (order, spawn order); a tick may spawn (a coin from a box) or despawn
    # (a stomped enemy) any entity: the change takes effect at the end of the running pass.

State and hashing: whatever an entity adds to the simulation beyond its pymunk body goes into
:meth:`Entity.hash_state` (plain numbers and strings), which the level's per-tick state hash covers,
so replays prove every entity ticks identically at any display rate.
"""

from engine.entities.animation import Animator, Clip
from engine.entities.entity import Entities, Entity, Look

__all__ = ["Animator", "Clip", "Entities", "Entity", "Look"]
