"""Tools for the template's developers; a shipped game does not need any of them.

``python -m engine new`` does not copy this package into a new game.

* :mod:`~engine.tools.monitor_sim` — the offline lab: pacing policies against a simulated
  display, driving the very same :class:`~engine.timing.GameLoop` as the game.
* :mod:`~engine.tools.bench` — benchmarks: interpolation writes, physics, loop pacing.
* :mod:`~engine.tools.demo` — the engine alone: physics bodies, a moving platform, the camera.
* :mod:`~engine.tools.new_project` — ``python -m engine new NAME``: start a game from the
  template (its files in ``project_template/``).
"""
