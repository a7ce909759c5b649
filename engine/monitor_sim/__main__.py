"""``python -m engine.monitor_sim``: see :mod:`engine.monitor_sim.cli`."""

from engine.monitor_sim.cli import main

raise SystemExit(main())
