"""The player's options: a small TOML file in the user's config directory that overlays the config.

``config.toml`` belongs to the game (its author ships it next to the game); the options a player
picks in the game's options screen (volumes, fullscreen, window scale, vsync, timer display, key
and button bindings) belong to the player and are saved apart, in ``settings.toml`` in the user
config directory of the OS (platformdirs: ``~/.config/<game>/`` on Linux, ``%APPDATA%\\<game>\\``
on Windows, ``~/Library/Application Support/<game>/`` on macOS)::

    # Options saved by the game's options screen; they overlay config.toml.
    [audio]
    music_volume = 0.5

    [input]
    jump = ["X"]

Precedence, lowest first: defaults, ``config.toml``, ``settings.toml``, ``--set`` on the command
line. The file may hold any config key (it is checked exactly like ``config.toml``); the options
screen writes only the keys whose value differs from the default (a value set back to the
default is dropped from the file). Saves are atomic (:func:`~engine.storage.write_atomic`):
a crash leaves the old file or the new one.

A settings file that cannot be used (malformed TOML, an unknown key, a value out of range, not
UTF-8, too big, tables or arrays nested deeper than ``--config`` allows) never stops the game:
it is moved aside to ``settings.toml.damaged`` with one warning naming the problem, and the game
starts with the ``config.toml`` values. A later damaged file never replaces an earlier one: it
goes to ``settings.toml.damaged-2``, ``-3``... (:func:`~engine.storage.unique_name.move_aside`),
so no options a player may want back are lost. A path that is
not a regular file (a directory, a pipe) is left alone, with one warning, and nothing is saved
there.

Values are kept typed (``0.5``, ``True``, ``("X",)``) after the file has been checked, so the
options screen changes a running game with :func:`config_with` and saves with :meth:`save`.
"""

from __future__ import annotations

import dataclasses
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import platformdirs

from engine.config.loader import load_config, parse_toml
from engine.config.schema import ConfigError, _toml_value
from engine.config.sections import Config
from engine.storage.atomic_file import write_atomic
from engine.storage.unique_name import move_aside

__all__ = [
    "SETTINGS_FILE_NAME",
    "UserSettings",
    "config_value",
    "config_with",
    "default_settings_path",
]

SETTINGS_FILE_NAME = "settings.toml"
MAX_SETTINGS_BYTES = 256 * 1024
"""A settings file bigger than this is damaged (the options screen writes well under 2 KiB)."""
DAMAGED_SUFFIX = ".damaged"
HEADER = "# Options saved by the game's options screen; they overlay config.toml.\n"


def _stderr_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def default_settings_path(app_name: str) -> Path:
    """``settings.toml`` in the user config directory of ``app_name`` (see the module docstring)."""
    return platformdirs.user_config_path(app_name) / SETTINGS_FILE_NAME


def config_value(config: Config, key: str) -> Any:
    """The value of a dotted key (``"audio.music_volume"``, ``"player.run_speed_px_s"``).

    Raises:
        KeyError: No such section or key.
    """
    section, *rest = key.split(".")
    node: Any = config.extra[section] if section in config.extra else getattr(config, section)
    for part in rest:
        if not dataclasses.is_dataclass(node) or part not in {
            f.name for f in dataclasses.fields(node)
        }:
            raise KeyError(key)
        node = getattr(node, part)
    return node


def _replaced(node: Any, parts: list[str], value: Any) -> Any:
    if not parts:
        return value
    head, *rest = parts
    if not dataclasses.is_dataclass(node) or head not in {f.name for f in dataclasses.fields(node)}:
        raise KeyError(head)
    return dataclasses.replace(node, **{head: _replaced(getattr(node, head), rest, value)})  # type: ignore[type-var]


def config_with(config: Config, key: str, value: Any) -> Config:
    """``config`` with one dotted key set to an already-typed value (no checking here).

    Raises:
        KeyError: No such section or key.
    """
    section, *rest = key.split(".")
    if not rest:
        raise KeyError(key)
    if section in config.extra:
        extra = dict(config.extra)
        extra[section] = _replaced(extra[section], rest, value)
        return dataclasses.replace(config, extra=MappingProxyType(extra))
    return _replaced(config, [section, *rest], value)  # type: ignore[no-any-return]


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{key}."))
        else:
            flat[key] = value
    return flat


def _override(key: str, value: Any) -> str:
    return f"{key}={_toml_value(value)}"


class UserSettings:
    """The options a player chose, by dotted key, and where they are saved.

    Args:
        path: The settings file, or None to keep options for this run only.
        values: Dotted key -> typed value.
        extra_sections: The game's config sections (so their keys are allowed).
        warn: Gets one line for a damaged or unusable file, or a failed save.
    """

    def __init__(
        self,
        path: Path | None,
        values: Mapping[str, Any] | None = None,
        *,
        extra_sections: Mapping[str, type] | None = None,
        warn: Callable[[str], None] = _stderr_warning,
    ) -> None:
        self.path = path
        self.values: dict[str, Any] = dict(values or {})
        self.extra_sections = extra_sections
        self.warn = warn
        #: False when :attr:`path` is not a regular file: nothing is ever written there.
        self.writable = path is not None
        #: The config without these options (``config.toml`` and ``--set``): what "reset to
        #: defaults" goes back to. None means the built-in defaults.
        self.defaults: Config | None = None

    # -- reading -----------------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        path: Path | None,
        *,
        extra_sections: Mapping[str, type] | None = None,
        warn: Callable[[str], None] = _stderr_warning,
    ) -> UserSettings:
        """Read ``path`` (a missing file is no options), moving a damaged one aside."""
        settings = cls(path, extra_sections=extra_sections, warn=warn)
        if path is None:
            return settings
        try:
            info = path.stat()
        except FileNotFoundError:
            return settings
        except OSError as exc:
            warn(f"settings not read from {path}: {exc.strerror or exc}")
            settings.writable = False
            return settings
        if not stat.S_ISREG(info.st_mode):
            warn(f"settings not read from {path}: not a regular file (options will not be saved)")
            settings.writable = False
            return settings
        try:
            settings.values = settings._read(path)
        except ConfigError as exc:
            settings._move_aside(exc.detail)
        return settings

    def _read(self, path: Path) -> dict[str, Any]:
        label = str(path)
        try:
            with path.open("rb") as file:
                data = file.read(MAX_SETTINGS_BYTES + 1)
        except OSError as exc:
            raise ConfigError(label, f"cannot read file: {exc.strerror or exc}") from exc
        if len(data) > MAX_SETTINGS_BYTES:
            raise ConfigError(label, f"bigger than {MAX_SETTINGS_BYTES // 1024} KiB")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(label, f"not UTF-8 text (byte {exc.start})") from exc
        table = parse_toml(text, label)  # nesting bounded as for --config (no RecursionError)
        flat = _flatten(table)
        try:
            checked = load_config(
                None, [_override(k, v) for k, v in flat.items()], self.extra_sections
            )
        except ConfigError as exc:
            raise ConfigError(label, exc.detail, exc.key) from exc
        return {key: config_value(checked, key) for key in flat}

    def _move_aside(self, problem: str) -> None:
        assert self.path is not None
        try:
            aside = move_aside(self.path, self.path.with_name(self.path.name + DAMAGED_SUFFIX), "")
        except OSError as exc:
            self.warn(
                f"settings in {self.path} ignored ({problem}); could not move it aside: "
                f"{exc.strerror or exc}"
            )
            self.writable = False
            return
        self.warn(f"settings in {self.path} ignored ({problem}); moved to {aside.name}")

    # -- using -----------------------------------------------------------------------------------
    def overrides(self) -> list[str]:
        """The options as ``--set`` strings, to load between ``config.toml`` and the command line."""
        return [_override(key, value) for key, value in self.values.items()]

    def apply(self, config: Config) -> Config:
        """``config`` with every option set."""
        for key, value in self.values.items():
            config = config_with(config, key, value)
        return config

    def set(self, key: str, value: Any) -> None:
        """Remember an option (typed as the config holds it); call :meth:`save` to keep it.

        A value equal to the default (:attr:`defaults`, or the built-in defaults when that is
        None) is forgotten instead, so the file holds only what the player changed: cycling
        the window scale back to x2 leaves no ``scale = 2`` behind.
        """
        if value == config_value(self._defaults(), key):
            self.values.pop(key, None)
        else:
            self.values[key] = value

    def _defaults(self) -> Config:
        if self.defaults is None:
            self.defaults = load_config(None, [], self.extra_sections)
        return self.defaults

    def forget(self, keys: Iterable[str] | None = None) -> None:
        """Drop options (all of them by default): their ``config.toml`` values come back."""
        if keys is None:
            self.values.clear()
        else:
            for key in keys:
                self.values.pop(key, None)

    # -- saving ------------------------------------------------------------------------------
    def to_toml(self) -> str:
        """The file's text: a header, then one table per section."""
        by_section: dict[str, list[str]] = {}
        for key, value in sorted(self.values.items()):
            section, rest = key.split(".", 1)
            by_section.setdefault(section, []).append(f"{rest} = {_toml_value(value)}")
        tables = [f"[{name}]\n" + "\n".join(lines) + "\n" for name, lines in by_section.items()]
        return HEADER + "".join(f"\n{table}" for table in tables)

    def save(self) -> bool:
        """Write the file atomically; False (after one warning) when it cannot be written."""
        if self.path is None or not self.writable:
            return False
        defaults = self._defaults()  # a file from before this rule may hold default values
        self.values = {k: v for k, v in self.values.items() if v != config_value(defaults, k)}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, self.to_toml().encode("utf-8"))
        except OSError as exc:
            self.warn(f"settings not saved to {self.path}: {exc.strerror or exc}")
            return False
        return True
