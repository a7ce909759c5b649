"""Input as data: per-tick snapshots of actions, key and gamepad bindings, replay files.

Modules, one concept each:

* :mod:`~engine.input.snapshot` — actions, the per-tick :class:`InputSnapshot` (held, pressed,
  released), the sampler that turns events into snapshots, recording and playback. Pure.
* :mod:`~engine.input.keys` — keyboard bindings: key codes to actions (arcade's key names).
* :mod:`~engine.input.gamepad` — controllers (pyglet) pressing the same actions as the keys.
* :mod:`~engine.input.replay` — replay files: one encoded snapshot and state hash per tick. Pure.
"""
