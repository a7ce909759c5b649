"""Speedrunning: the exact in-game timer, personal bests and golds, and LiveSplit.

Modules, one concept each:

* :mod:`~engine.speedrun.timer` — IGT in integer ticks, RTA from the monotonic clock, splits,
  validity (strict timing, dropped time), ``m:ss.mmm`` formatting. Pure.
* :mod:`~engine.speedrun.personal_best` — personal bests and best segments, saved atomically in
  the user data directory. Pure.
* :mod:`~engine.speedrun.livesplit` — LiveSplit Server over TCP from a background thread.
"""
