"""A 2D platformer engine on arcade 3, pymunk and numpy with exact fixed-step timing.

The pure timing core lives in :mod:`engine.timing`; the offline lab that proves it is
:mod:`engine.monitor_sim`.
"""
