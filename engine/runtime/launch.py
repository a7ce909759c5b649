"""Command-line plumbing shared by the engine's commands (``engine.tools.demo``, the sample game, ...).

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
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from engine.config import Config, add_config_arguments

if TYPE_CHECKING:
    from engine.config.settings import UserSettings

#: Environment variable that keeps pyglet's GL error checks on: ``1`` on, ``0`` or unset off.
DEBUG_GL_ENV = "ENGINE_DEBUG_GL"


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def number_arg(
    kind: str,
    *,
    minimum: float = 0.0,
    maximum: float | None = None,
    exclusive: bool = False,
    unit: str = "",
) -> Callable[[str], float]:
    """An argparse type for a finite number in a range, with one-line messages naming ``kind``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if maximum is not None and not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{kind} must be in {minimum:g}..{maximum:g}{unit}, got {text}"
            )
        if exclusive and value <= minimum:
            raise argparse.ArgumentTypeError(f"{kind} must be > {minimum:g}, got {text}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{kind} must be >= {minimum:g}, got {text}")
        return value

    parse.__name__ = kind  # argparse names the type in its messages
    return parse


def count_arg(kind: str, minimum: int = 1) -> Callable[[str], int]:
    """An argparse type for a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{kind} must be >= {minimum}, got {text}")
        return value

    parse.__name__ = kind
    return parse


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
        "--frames", type=count_arg("frames"), default=None, help="stop after N frames"
    )
    parser.add_argument(
        "--screenshot", metavar="FILE.png", default=None, help="save the last frame as a PNG"
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
    args: argparse.Namespace, app_name: str, extra_sections: Mapping[str, type] | None = None
) -> tuple[Config, UserSettings]:
    """The config with the player's saved options overlaid, and those options.

    Reads ``args.settings`` (from :func:`add_settings_argument`) or ``settings.toml`` in
    ``app_name``'s user config directory; a damaged file is moved aside with one warning.
    Precedence: ``config.toml`` < settings < ``--set``. A bad ``config.toml`` or ``--set``
    exits 2 with one line, as :func:`~engine.config.config_from_args` does.
    """
    from engine.config import config_from_args
    from engine.config.settings import UserSettings, default_settings_path

    path = getattr(args, "settings", None) or default_settings_path(app_name)
    settings = UserSettings.load(path, extra_sections=extra_sections)
    config = config_from_args(args, extra_sections, settings_overrides=settings.overrides())
    settings.defaults = config_from_args(args, extra_sections)
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


def fail(prog: str, message: str) -> NoReturn:
    """Print one error line and exit with status 2."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)
