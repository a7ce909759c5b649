"""``python -m engine.tools.monitor_sim``: see :mod:`engine.tools.monitor_sim.cli`."""

from engine.tools.monitor_sim.cli import main

raise SystemExit(main())
