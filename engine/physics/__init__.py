"""Physics: a fixed-step pymunk world with render snapshots, and exact motion helpers.

Modules, one concept each:

* :mod:`~engine.physics.world` — :class:`PhysicsWorld`: one pymunk space stepped once per tick,
  with previous/current poses of every registered body in numpy arrays (read in bulk with
  ``pymunk.batch``) for interpolated drawing and state hashing. No arcade.
* :mod:`~engine.physics.motion` — the closed form of accelerate-with-friction motion over any
  time step (no variable-timestep trap). Pure.
"""
