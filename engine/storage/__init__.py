"""Reading and saving files so that no input hangs the game and no crash loses a save.

* :mod:`~engine.storage.atomic_file` — write to a temporary file, fsync, rename over the target;
  replace only regular files, write through symlinks, fall back to other places when one
  cannot be written. Used by replays, personal bests, run files and screenshots.
* :mod:`~engine.storage.bounded_read` — read a file someone named: regular files only, capped
  in size, never hanging on a named pipe or a device. Used by every loader.

Pure: standard library only.
"""
