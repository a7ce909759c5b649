"""Saving files so that a crash, a full disk or a kill mid-save never loses the previous copy.

* :mod:`~engine.storage.atomic_file` — write to a temporary file, fsync, rename over the target.
  Used by replays, personal bests, run files and settings. Pure: standard library only.
"""
