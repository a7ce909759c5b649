"""Reading and saving files so that no input hangs the game and no crash loses a save.

* :mod:`~engine.storage.atomic_file` — write to a temporary file, fsync, rename over the target;
  replace only regular files, write through symlinks, fall back to other places when one
  cannot be written. Used by replays, personal bests, run files and screenshots.
* :mod:`~engine.storage.bounded_read` — read a file someone named: regular files only, capped
  in size, never hanging on a named pipe or a device. Used by every loader.
* :mod:`~engine.storage.file_lock` — an exclusive lock between processes (an OS lock on a
  lock file: ``flock``, or ``msvcrt.locking`` on Windows), so two games never
  read-modify-write one file at once. Used by personal bests.
* :mod:`~engine.storage.unique_name` — new names taken with an exclusive create, so a save
  never replaces another file (run files) and a damaged file moved aside never replaces an
  earlier one (settings, records).

Pure: standard library only.
"""
