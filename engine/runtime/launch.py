"""Command-line plumbing shared by the engine's commands (``engine.tools.demo``, a game's, ...).

Every engine command accepts the same runtime flags:

``--headless``      render offscreen (EGL) with a virtual clock: one simulated refresh per frame
``--display-hz HZ`` refresh rate of that virtual display (default 60)
``--realtime``      with ``--headless``, wait for the virtual vblanks in wall time
``--frames N``      stop after N frames
``--screenshot F``  save the last frame as a PNG
``--json``          print a one-line JSON summary
``--config PATH``   read this TOML file (default ``config.toml`` if it exists)
``--set S.K=V``     override one config key (repeatable)
``--debug-gl``      check for a GL error after every GL call (slower; for finding GL bugs)

``ARCADE_HEADLESS=1`` in the environment means ``--headless``. The variable has to be set before
arcade is imported, so commands parse their flags first and import arcade afterwards:
:func:`is_headless` is the step every command runs before importing arcade.

GL error checks: pyglet, under arcade, calls ``glGetError`` after every GL call and raises on an
error, unless ``pyglet.options["debug_gl"]`` is false when ``pyglet.gl`` is *first imported* (it
decides once, when it loads the GL functions; setting the option later changes nothing). The
checks cost about a microsecond per GL call, 8-9% of the main thread's render CPU for the demo's
frame (``python -m engine.tools.bench --section render``), so normal runs turn them off in
:func:`is_headless`, before arcade (and with it ``pyglet.gl``) is imported. ``--debug-gl`` or
``ENGINE_DEBUG_GL=1`` keeps them on; the test suite sets ``ENGINE_DEBUG_GL=1`` so GL mistakes
fail the tests.

Ending a run: :class:`StopSignals` turns Ctrl+C (SIGINT) and SIGTERM into a request the loop
checks each frame, so the run ends like any other (its summary line printed, a recording saved)
and the command exits with ``128 + signal`` (130, 143); a second signal ends it at once.
:func:`run_command` wraps a command's ``main`` so that Ctrl+C before the loop (while arcade
loads, say) is one line, not a traceback, and a closed pipe (``| head``) is not an error.

Headless memory: a headless run draws as fast as it can, and software GL (Mesa llvmpipe)
queues the frames it has not finished yet: the process grew to 2.5 GB and then spent seconds
to minutes in ``window.close()``. :func:`finish_gl_queue` waits for the queue every
:data:`GL_FINISH_EVERY_FRAMES` frames. Measured on this 2-core machine (shared, two runs each):
the template's game with ``--headless --replay levels/replays/level3.replay --display-hz
240`` (4284 frames) peaked at 863-900 MiB and took 24-40 s from its summary line to its exit without it,
202 MiB and under 0.7 s with it, for the same CPU time (66-68 s without, 68-70 s with); the
demo at 240 Hz for 2000 frames went from 481 MiB and 16 s to 186 MiB and 0.2 s. Waiting every
4 frames cost more CPU; every 64 let the peak grow again.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

from engine.config import Config, add_config_arguments
from engine.config.loader import silence_closed_stdout
from engine.storage.atomic_file import check_can_save, write_atomic

if TYPE_CHECKING:
    from engine.config.settings import UserSettings

#: Environment variable that keeps pyglet's GL error checks on: ``1`` on, ``0`` or unset off.
DEBUG_GL_ENV = "ENGINE_DEBUG_GL"


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


MAX_FLAG_TEXT = 30
"""Longest number text a numeric flag reads (more digits than any allowed value has)."""


def _shown_flag_text(text: str) -> str:
    """The value as given, quoted, escaped and shortened for a one-line message."""
    from engine.config.schema import shown_text

    return f"'{shown_text(text, MAX_FLAG_TEXT)}'"


def number_arg(
    kind: str,
    *,
    minimum: float = 0.0,
    maximum: float,
    exclusive: bool = False,
    unit: str = "",
) -> Callable[[str], float]:
    """An argparse type for a finite number in ``minimum..maximum``.

    Every message is one line naming ``kind``, the value as given and the allowed range
    (argparse adds the flag): ``display rate must be in 1..1000 Hz, got 'inf'``. There is no
    unbounded number flag: ``maximum`` is required.
    """
    low = f"> {minimum:g}" if exclusive else f">= {minimum:g}"
    allowed = (
        f"must be in {minimum:g}..{maximum:g}{unit}"
        if not exclusive
        else f"must be {low} and <= {maximum:g}{unit}"
    )

    def parse(text: str) -> float:
        problem = f"{kind} {allowed}, got {_shown_flag_text(text)}"
        if len(text) > MAX_FLAG_TEXT:
            raise argparse.ArgumentTypeError(f"{problem} ({len(text)} characters)")
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{problem}: not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{problem}: not a finite number")
        too_low = value <= minimum if exclusive else value < minimum
        if too_low or value > maximum:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = kind  # argparse names the type in its messages
    return parse


def count_arg(kind: str, minimum: int = 1, *, maximum: int) -> Callable[[str], int]:
    """An argparse type for a whole number in ``minimum..maximum``.

    Every message is one line naming ``kind``, the value as given and the allowed range
    (argparse adds the flag): ``ticks must be in 1..1,000,000, got '99999...'``. There is
    no unbounded count flag: ``maximum`` is required, so no flag can ask for an endless run
    or an allocation without limit.
    """

    def parse(text: str) -> int:
        problem = f"{kind} must be in {minimum:,}..{maximum:,}, got {_shown_flag_text(text)}"
        if len(text) > MAX_FLAG_TEXT:
            raise argparse.ArgumentTypeError(f"{problem} ({len(text)} characters)")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{problem}: not a whole number") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(problem)
        return value

    parse.__name__ = kind
    return parse


MAX_RUN_FRAMES = 10_000_000
"""Most frames ``--frames`` asks for (46 hours at 60 Hz)."""


def add_runtime_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the shared runtime flags (see the module docstring) and ``--config``/``--set``."""
    parser.add_argument(
        "--headless",
        action="store_true",
        help="render offscreen with a virtual clock (also: ARCADE_HEADLESS=1)",
    )
    parser.add_argument(
        "--display-hz",
        type=number_arg("display rate", minimum=1, maximum=1000, unit=" Hz"),
        default=60.0,
        help="refresh rate of the virtual display with --headless (default 60)",
    )
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="with --headless, pace frames in wall time instead of as fast as possible",
    )
    parser.add_argument(
        "--frames",
        type=count_arg("frames", maximum=MAX_RUN_FRAMES),
        default=None,
        help=f"stop after N frames (1..{MAX_RUN_FRAMES:,})",
    )
    parser.add_argument(
        "--screenshot",
        type=png_path,
        metavar="FILE.png",
        default=None,
        help="save the last frame as a PNG",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON summary when done")
    add_debug_gl_argument(parser)
    add_config_arguments(parser)


def add_debug_gl_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--debug-gl``: keep pyglet's GL error checks on (see the module docstring)."""
    parser.add_argument(
        "--debug-gl",
        action="store_true",
        help=f"check for a GL error after every GL call (slower; also {DEBUG_GL_ENV}=1)",
    )


def is_headless(args: argparse.Namespace) -> bool:
    """Whether this run is headless (the flag or ``ARCADE_HEADLESS``), and make arcade agree.

    Call it before importing arcade: it also sets pyglet's GL error checks from ``--debug-gl``
    and ``ENGINE_DEBUG_GL`` (off unless asked for), which only works before ``pyglet.gl`` is
    imported. A bad ``ENGINE_DEBUG_GL`` value prints one line and exits with status 2.
    """
    headless = bool(args.headless or os.environ.get("ARCADE_HEADLESS"))
    if headless:
        os.environ["ARCADE_HEADLESS"] = "1"
    set_gl_error_checks(gl_error_checks_requested(args))
    return headless


def gl_error_checks_requested(args: argparse.Namespace) -> bool:
    """Whether ``--debug-gl`` was given or ``ENGINE_DEBUG_GL`` is ``1``.

    Raises:
        SystemExit: With status 2 after one line, if ``ENGINE_DEBUG_GL`` is not 0, 1 or empty.
    """
    value = os.environ.get(DEBUG_GL_ENV, "")
    if value not in ("", "0", "1"):
        fail(DEBUG_GL_ENV, f"must be 0 or 1 (or unset), got {value!r}")
    return bool(getattr(args, "debug_gl", False)) or value == "1"


def set_gl_error_checks(enabled: bool) -> None:
    """Turn pyglet's GL error checks on or off for this process.

    Takes effect only if ``pyglet.gl`` has not been imported yet (arcade imports it): call it
    before importing arcade. :func:`gl_error_checks_active` tells what is in effect.
    """
    import pyglet  # the package only: pyglet.gl (which reads the option) is not imported here

    pyglet.options["debug_gl"] = enabled


def gl_error_checks_active() -> bool | None:
    """Whether pyglet's GL functions check for errors in this process (``None``: GL not loaded).

    Reads what pyglet did when it loaded the GL functions: with the checks on, each function has
    pyglet's ``errcheck`` attached; with them off it has none.
    """
    gl = sys.modules.get("pyglet.gl")
    if gl is None:
        return None
    return gl.glClear.errcheck is not None


def add_settings_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--settings PATH``: where the player's options are kept (see
    :mod:`engine.config.settings`; default ``settings.toml`` in the user config directory)."""
    parser.add_argument(
        "--settings",
        type=Path,
        default=None,
        metavar="PATH",
        help="the player's options file (default: settings.toml in the user config directory)",
    )


def config_and_settings(
    args: argparse.Namespace,
    app_name: str,
    extra_sections: Mapping[str, type] | None = None,
    *,
    config_path: Path | None = None,
) -> tuple[Config, UserSettings]:
    """The config with the player's saved options overlaid, and those options.

    Reads ``args.settings`` (from :func:`add_settings_argument`) or ``settings.toml`` in
    ``app_name``'s user config directory; a damaged file is moved aside with one warning.
    Precedence: ``config.toml`` < settings < ``--set``. A bad ``config.toml`` or ``--set``
    exits 2 with one line, as :func:`~engine.config.config_from_args` does.

    Args:
        args: The parsed flags (``--config``, ``--set``, ``--settings``).
        app_name: Names the player's user config directory.
        extra_sections: The game's own config sections.
        config_path: The game's ``config.toml``, read without ``--config`` (default:
            ``config.toml`` in the working directory).
    """
    from engine.config import DEFAULT_CONFIG_PATH, config_from_args
    from engine.config.settings import UserSettings, default_settings_path

    default = config_path if config_path is not None else DEFAULT_CONFIG_PATH
    path = getattr(args, "settings", None) or default_settings_path(app_name)
    settings = UserSettings.load(path, extra_sections=extra_sections)
    config = config_from_args(
        args, extra_sections, settings_overrides=settings.overrides(), default_path=default
    )
    settings.defaults = config_from_args(args, extra_sections, default_path=default)
    return config, settings


def open_window(config: Config, *, headless: bool, prog: str) -> Any:
    """Create the arcade window, or exit 2 with one line when there is no display."""
    import arcade

    try:
        video = config.video
        width, height = video.window_size
        samples = video.msaa_samples
        return arcade.Window(
            width,
            height,
            video.title,
            fullscreen=video.fullscreen and not headless,
            resizable=True,
            vsync=video.vsync,
            visible=not headless,
            antialiasing=samples > 0,
            samples=max(samples, 1),
        )
    except Exception as exc:
        # pyglet raises NoSuchDisplayException (X11), or other platform errors, when there is no
        # screen to open a window on; the name differs per platform, the message names the display.
        if "display" in type(exc).__name__.lower() or "display" in str(exc).lower():
            fail(prog, f"cannot open a window: no display ({exc}); run with --headless")
        raise


def png_path(text: str) -> Path:
    """An argparse type for a PNG file to write, checked before anything runs.

    The name must end in ``.png``, its folder must exist and take a file now
    (:func:`~engine.storage.atomic_file.check_can_save`: not read-only, not full), and whatever
    is already there must be a regular file (saves never replace a directory, a pipe or a
    device).
    """
    path = Path(text)
    if path.suffix.lower() != ".png":
        raise argparse.ArgumentTypeError(f"{text!r} must be a .png file name")
    try:
        check_can_save(path)  # a probe file in its folder: missing, read-only, full, a device
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {exc.strerror or exc}") from None
    return path


def save_png(image: Any, path: Path) -> None:
    """Save a PIL image as a PNG atomically (see :func:`~engine.storage.atomic_file.write_atomic`).

    Raises:
        OSError: The file cannot be written.
    """
    data = io.BytesIO()
    image.save(data, format="PNG")
    write_atomic(path, data.getvalue())


GL_FINISH_EVERY_FRAMES = 16
"""Headless runs wait for the GL queue every this many frames (see the module docstring)."""


def finish_gl_queue(window: Any, frames: int) -> None:
    """In a headless run, call after each frame: every few frames, wait for GL to catch up."""
    if frames % GL_FINISH_EVERY_FRAMES == 0:
        window.ctx.finish()


class StopSignals:
    """Ctrl+C and SIGTERM ask the loop to stop instead of killing it mid-frame.

    Use it around a command's loop::

        with StopSignals() as stop:
            while not stop.requested and ...:
                engine.run_frame()
        ...  # print the summary, save the recording
        return stop.exit_status(0)

    The first signal only sets :attr:`signal_number`; a second one raises ``SystemExit`` at
    once (a loop that does not come back still ends). Outside the main thread, where Python
    cannot install handlers, it does nothing.

    Attributes:
        signal_number: The signal that asked to stop, or None.
    """

    HANDLED = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signal_number: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        """A stop was asked for."""
        return self.signal_number is not None

    @property
    def name(self) -> str:
        """The signal's name (``"SIGINT"``), or empty."""
        return "" if self.signal_number is None else signal.Signals(self.signal_number).name

    def exit_status(self, status: int) -> int:
        """``128 + signal`` after a stop, else ``status``."""
        return status if self.signal_number is None else 128 + self.signal_number

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signal_number is not None:
            raise SystemExit(128 + signum)
        self.signal_number = signum

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for number in self.HANDLED:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()


def run_command(main: Callable[[], int], prog: str) -> int:
    """Run a command's ``main``; Ctrl+C outside its loop and a closed stdout end quietly.

    Returns:
        ``main``'s status; 130 after Ctrl+C; 0 when stdout's reader went away (``| head``).
    """
    try:
        return main()
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    except BrokenPipeError:
        silence_closed_stdout()
        return 0


def fail(prog: str, message: str) -> NoReturn:
    """Print one error line and exit with status 2."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)
