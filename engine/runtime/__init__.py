"""The runtime a game runs on: the engine's window loop, scenes, command-line flags, audio.

Modules, one concept each:

* :mod:`~engine.runtime.engine` — :class:`Engine`, the timing core's game loop driving an arcade
  window (poll input, run fixed ticks, render with ``alpha``, pace, present).
* :mod:`~engine.runtime.scene` — :class:`Scene`, the contract between game code and the engine
  (``on_tick`` changes state, ``on_render`` draws it).
* :mod:`~engine.runtime.launch` — the flags every command shares (``--headless``,
  ``--display-hz``, ``--config``, ...), one-line argument errors, opening the window.
* :mod:`~engine.runtime.virtual_display` — the simulated vblanks of a headless run.
* :mod:`~engine.runtime.audio` — sound effects played from the render, silent without a device.

Importing this package imports nothing else: arcade must not be imported before
``--headless`` has been read, so import the module you need.
"""
