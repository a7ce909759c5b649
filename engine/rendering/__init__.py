"""Drawing what the simulation decided: sprites at interpolated poses, the camera, the F3 overlay.

Modules, one concept each:

* :mod:`~engine.rendering.sprite_sync` — one bulk write of all interpolated poses into a
  SpriteList's buffer per frame (no per-sprite Python loop).
* :mod:`~engine.rendering.camera` — the exponential follow camera with dead zone, look-ahead and
  level bounds. Pure math.
* :mod:`~engine.rendering.smoothing` — frame-rate independent exponential smoothing. Pure.
* :mod:`~engine.rendering.frame_stats` — what the pacing overlay shows, computed from frame
  reports. Pure.
* :mod:`~engine.rendering.debug_overlay` — the F3 overlay that draws those numbers.
"""
