"""Ctrl+C at any moment of a command, even while Python is still importing it: one line, no traceback.

A command's ``main`` catches ``KeyboardInterrupt`` (:func:`~engine.runtime.launch.run_command`)
and its loop turns SIGINT into a stop request (:class:`~engine.runtime.launch.StopSignals`). But
a game's ``python -m`` command spends its first few hundred milliseconds *importing* (numpy,
pymunk, the game's modules), before ``main`` is even defined; Python's own SIGINT handler raises
``KeyboardInterrupt`` there, and nothing can catch it: the player sees a 30-line traceback
through ``importlib``.

:func:`exit_quietly_on_interrupt` closes that window. A package calls it first thing in its
``__init__.py`` (the engine's and the game's do), which runs before any of its modules. When the
process was started as ``python -m <that package>...`` (read from :data:`sys.orig_argv`), or as
a console script whose entry point is in the package (the script ``pip`` generates, e.g.
``monitor-sim``: the ``__main__`` module is that script, and its name is looked up among the
installed ``console_scripts``), so that a test or another program importing the package is left
alone, it replaces Python's
``KeyboardInterrupt`` handler with one that prints ``python -m <package>: interrupted`` and raises
``SystemExit(130)``. ``SystemExit`` unwinds the imports like any exception (``finally`` blocks
run, nothing is half-saved: nothing has been saved yet) but is never printed as a traceback and
is not caught by ``except Exception``. Once the command runs, :class:`StopSignals` takes SIGINT
over for its loop and hands it back to this handler afterwards.

What is left, and cannot be closed from inside the package: the interpreter's own start-up,
before the package's ``__init__`` runs. Measured here (2 cores, shared): SIGINT within about
30 ms of the start kills the process by the signal itself, silently (Python has not installed
its handler yet); from then until about 70 ms Python is importing ``site`` (much of it the
path hook of an *editable* install, ``pip install -e``; a normal install has none) and prints
its ``KeyboardInterrupt`` traceback. From the package's first line on, every SIGINT is one line
and status 130.

Pure: standard library only.
"""

from __future__ import annotations

import contextlib  # (imports kept to what the interpreter has loaded anyway: this runs first)
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType

__all__ = ["command_module", "exit_quietly_on_interrupt", "module_run_as_main"]


def module_run_as_main(orig_argv: Sequence[str] | None = None) -> str | None:
    """The module of ``python -m MODULE`` that started this process, or None."""
    argv = list(sys.orig_argv if orig_argv is None else orig_argv)
    index = 1
    while index < len(argv):
        arg = argv[index]
        if arg == "-m":
            return argv[index + 1] if index + 1 < len(argv) else None
        if arg.startswith("-m") and not arg.startswith("--"):
            return arg[2:]
        if arg == "-c" or not arg.startswith("-"):
            return None  # a script or -c: what follows are its arguments
        index += 2 if arg in ("-X", "-W") else 1  # the options that take a value
    return None


def _console_script() -> tuple[str, str] | None:
    """``(script name, its entry point's module)`` when ``__main__`` is a console script."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or getattr(main, "__spec__", None) is not None or not path:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in ("-script.pyw", "-script.py", ".exe"):
        name = name.removesuffix(suffix)
    from importlib.metadata import entry_points  # only for scripts: a few ms, once

    for entry in entry_points(group="console_scripts", name=name):
        return name, entry.module
    return None


def command_module() -> tuple[str, str] | None:
    """``(the command as typed, the module it runs)`` for ``python -m`` or a console script."""
    module = module_run_as_main()
    if module is not None:
        return f"python -m {module.removesuffix('.__main__')}", module
    return _console_script()


_installed_in_pid: int | None = None
"""The process that installed the handler; forked workers (a process pool) inherit it."""


class _Interrupted(SystemExit):
    """The ``SystemExit`` the handler raises (told apart from any other by its class)."""


def _interrupted(signum: int, frame: FrameType | None) -> None:
    if os.getpid() != _installed_in_pid:  # a forked worker: Ctrl+C reaches the whole group,
        raise _Interrupted(128 + signum)  # and only the command itself says so, once
    found = command_module()
    command = found[0] if found is not None else "python"
    with contextlib.suppress(OSError, ValueError, RuntimeError):  # stderr closed or busy
        print(f"{command}: interrupted", file=sys.stderr, flush=True)
    raise _Interrupted(128 + signum)


def _exit_if_swallowed(unraisable: Any) -> None:
    """``sys.unraisablehook``: finish an exit the interpreter could not raise.

    Python runs a signal handler between any two bytecodes of the main thread, and that can be
    inside code whose exceptions it ignores: a weakref callback (importlib's module locks use
    them while importing), a ``__del__``. There the handler's ``SystemExit`` is printed as
    "Exception ignored in ..." with a traceback, and the command runs on as if Ctrl+C had not
    been pressed. This hook, for our own exit only, ends the process with its status at once
    (nothing else is printed; the one line was written already); any other unraisable error
    goes to the hook that was there before.
    """
    value = getattr(unraisable, "exc_value", None)
    if isinstance(value, _Interrupted):
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(value.code if isinstance(value.code, int) else 1)
    _previous_unraisablehook(unraisable)


_previous_unraisablehook = sys.unraisablehook


def exit_quietly_on_interrupt(package: str) -> bool:
    """In ``python -m <package>[.module]`` or its console script, make Ctrl+C one line and 130.

    Only replaces Python's default handler (a handler someone else installed is kept), only
    in the main thread, and only when this process runs ``package`` or one of its modules.

    Args:
        package: The calling package (pass ``__name__`` from its ``__init__.py``).

    Returns:
        Whether the handler was installed.
    """
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return False
    found = command_module()
    if found is None or not (found[1] == package or found[1].startswith(package + ".")):
        return False
    global _installed_in_pid
    try:
        signal.signal(signal.SIGINT, _interrupted)
    except ValueError:  # not the main thread: Python only lets the main thread set handlers
        return False
    _installed_in_pid = os.getpid()
    sys.unraisablehook = _exit_if_swallowed
    return True
