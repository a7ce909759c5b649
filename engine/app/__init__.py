"""A game's machinery, owned by the engine: the command line, the screens, replays, the speedrun
timer, run files, the ghost, savestates and the solver, for any game that hands the engine its
:class:`~engine.app.definition.GameDefinition` (see ``engine/app/README.md``)."""
