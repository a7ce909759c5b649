"""Reading configuration: TOML file, then ``--set`` overrides, into a checked :class:`Config`.

See :mod:`engine.config` for the file format, overrides and errors. This module also writes
configurations back as TOML (:func:`to_toml`, :func:`defaults_toml`) and holds the command
line glue (:func:`add_config_arguments`, :func:`config_from_args`, ``python -m engine.config``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tomllib
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from engine.config.schema import (
    _BARE_KEY,
    _KEY_NAME_ORDER,
    OVERRIDE_SOURCE,
    ConfigError,
    _check_section_class,
    _Context,
    _convert,
    _describe,
    _dotted,
    _show,
    _toml_value,
    _unknown_key,
    _unknown_section,
    shown_text,
)
from engine.config.sections import _BUILTIN_SECTIONS, Config
from engine.storage.bounded_read import read_regular_file

T = TypeVar("T")

DEFAULT_CONFIG_PATH = Path("config.toml")
"""Read when no ``--config`` is given; relative to the current working directory."""


def _schema(extra_sections: Mapping[str, type] | None) -> dict[str, type]:
    """All sections by TOML name: built-in first, then the game's, all checked."""
    schema = dict(_BUILTIN_SECTIONS)
    for name, cls in (extra_sections or {}).items():
        if name in schema or name == "extra":
            raise ValueError(f"extra section name {name!r} is taken by the engine")
        if not _BARE_KEY.fullmatch(name):
            raise ValueError(f"extra section name {name!r} must match [A-Za-z0-9_-]+")
        schema[name] = cls
    for cls in schema.values():
        _check_section_class(cls)
    return schema


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------

_OVERRIDE_HELP = "expected section.key=value, e.g. --set timing.mode=strict"


def _parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """Split ``section.key=value`` into a key path and a TOML-parsed value."""
    key_text, equals, value_text = text.partition("=")
    path = tuple(part.strip() for part in key_text.split("."))
    if not equals or len(path) < 2 or not all(_BARE_KEY.fullmatch(part) for part in path):
        raise ConfigError(OVERRIDE_SOURCE, f"{_show(text)}: {_OVERRIDE_HELP}")
    value_text = value_text.strip()
    try:
        parsed = parse_toml(f"value = {value_text}", OVERRIDE_SOURCE)
    except ConfigError as exc:
        if value_text[:1] in ('"', "'", "[", "{"):  # meant as TOML, but broken
            message = exc.detail.removeprefix("malformed TOML: ").split(" (at line")[0]
            raise ConfigError(
                OVERRIDE_SOURCE,
                f"{_dotted(path)} = {shown_text(value_text)}: not a valid TOML value ({message})",
                key=_dotted(path),
            ) from None
        return path, value_text  # a bare word: take it as a string
    if set(parsed) != {"value"}:
        return path, value_text  # the text smuggled in more TOML; keep it literal
    return path, parsed["value"]


def _check_override_path(path: tuple[str, ...], schema: Mapping[str, type]) -> None:
    """Reject an override of a key that does not exist, with a "did you mean"."""
    cls: Any = schema.get(path[0])
    if cls is None:
        raise _unknown_section(OVERRIDE_SOURCE, path[0], schema)
    for depth in range(1, len(path)):
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise ConfigError(
                OVERRIDE_SOURCE,
                f"unknown key {_dotted(path)} ({_dotted(path[:depth])} is not a table)",
                key=_dotted(path),
            )
        hints = typing.get_type_hints(cls)
        if path[depth] not in hints:
            raise _unknown_key(OVERRIDE_SOURCE, cls, path[: depth + 1])
        cls = hints[path[depth]]


def _merge(raw: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set ``raw[path[0]][path[1]]... = value``, creating tables on the way."""
    node = raw
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[path[-1]] = value


MAX_CONFIG_BYTES = 4 << 20
"""The largest config file read (4 MiB; a complete file with every key is about 10 KiB)."""

MAX_NESTING = 16
"""Deepest nesting of tables and arrays accepted (the engine's own keys need 3)."""

_BOM = "\ufeff"


def _nesting(value: Any) -> int:
    """How deeply tables and arrays nest in ``value`` (0 for a scalar), counted without recursion."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_NESTING:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text with bounded nesting; a UTF-8 byte order mark at the start is skipped.

    Raises:
        ConfigError: Malformed TOML, absurd numbers, or tables and arrays nested deeper than
            :data:`MAX_NESTING` (which would exhaust Python's recursion limit).
    """
    try:
        data = tomllib.loads(text.removeprefix(_BOM))
    except RecursionError:
        data = None
    except ValueError as exc:  # TOMLDecodeError, or an integer of more than 4300 digits
        message = str(exc).split("; use sys.set_int_max_str_digits")[0]
        raise ConfigError(source, f"malformed TOML: {message}") from None
    if data is None or _nesting(data) > MAX_NESTING:
        raise ConfigError(
            source, f"malformed TOML: tables or arrays nested deeper than {MAX_NESTING} levels"
        )
    return data


def _read_toml(path: Path, *, missing_ok: bool) -> dict[str, Any]:
    label = str(path)
    try:
        data = read_regular_file(path, MAX_CONFIG_BYTES)
    except FileNotFoundError as exc:
        if missing_ok:
            return {}
        raise ConfigError(label, "cannot read file: no such file") from exc
    except OSError as exc:
        raise ConfigError(label, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(label, f"cannot read file: not UTF-8 text (byte {exc.start})") from exc
    return parse_toml(text, label)


def load_config(
    path: Path | str | None = None,
    overrides: Sequence[str] = (),
    extra_sections: Mapping[str, type] | None = None,
    *,
    missing_ok: bool = False,
) -> Config:
    """Load, override and validate the configuration.

    Args:
        path: The TOML file, or None for defaults only.
        overrides: ``section.key=value`` strings, applied in order after the file.
        extra_sections: Game sections, TOML table name -> frozen dataclass (see the
            module docstring). Available afterwards as ``config.extra[name]`` and
            ``config.section(name, cls)``; defaults if the file lacks them.
        missing_ok: Treat a missing ``path`` as empty. True for the default path
            (:data:`DEFAULT_CONFIG_PATH`), False for a path the user named.

    Returns:
        The validated configuration.

    Raises:
        ConfigError: Unreadable file, malformed TOML, bad override syntax, unknown
            section or key, wrong type, value out of range or not a choice, or an
            unknown key name.
        ValueError: An extra section name clashes with a built-in one.
        TypeError: An extra section class does not follow the conventions.
    """
    schema = _schema(extra_sections)
    raw: dict[str, Any] = {}
    file_label = "<defaults>"
    if path is not None:
        path = Path(path)
        file_label = str(path)
        raw = _read_toml(path, missing_ok=missing_ok)

    override_paths: set[tuple[str, ...]] = set()
    for text in overrides:
        key_path, value = _parse_override(text)
        _check_override_path(key_path, schema)
        _merge(raw, key_path, value)
        override_paths.add(key_path)

    ctx = _Context(file_label, override_paths)
    sections: dict[str, Any] = {}
    for name, value in raw.items():
        cls = schema.get(name)
        if cls is not None:
            sections[name] = _convert(value, cls, {}, (name,), ctx)
        elif isinstance(value, dict):
            raise _unknown_section(ctx.source((name,)), name, schema)
        else:
            owners = [s for s, c in schema.items() if name in typing.get_type_hints(c)]
            hint = f"did you mean {owners[0]}.{name}?" if owners else "keys belong in a section"
            raise ConfigError(
                ctx.source((name,)), f"unknown top-level key {_dotted((name,))} ({hint})", key=name
            )

    extra = {
        name: sections.get(name, cls())
        for name, cls in schema.items()
        if name not in _BUILTIN_SECTIONS
    }
    builtin = {name: sections[name] for name in _BUILTIN_SECTIONS if name in sections}
    return Config(**builtin, extra=MappingProxyType(extra))


def section_from_mapping(name: str, cls: type[T], values: object, source: str) -> T:
    """Build one section from already-parsed values, checked exactly as the config file is.

    For settings stored elsewhere than ``config.toml``, e.g. the ``[player]`` and ``[physics]``
    values a speedrun's run file records: the same types, ranges and one-line errors.

    Args:
        name: The section's TOML table name (used in messages: ``player.run_speed_px_s``).
        cls: The section's frozen dataclass.
        values: The table, e.g. from ``json.loads``; keys missing from it keep their defaults.
        source: Where the values came from (a file name), for messages.

    Raises:
        ConfigError: Not a table, nested too deeply, an unknown key, a wrong type or a value
            out of range.
    """
    _check_section_class(typing.cast(type, cls))
    if _nesting(values) > MAX_NESTING:
        raise ConfigError(source, f"[{name}] is nested deeper than {MAX_NESTING} levels")
    return typing.cast(T, _convert(values, cls, {}, (name,), _Context(source, set())))


def section_to_mapping(section: object) -> dict[str, Any]:
    """A section's values as plain JSON-ready data (tuples become lists, subsections tables).

    :func:`section_from_mapping` reads it back to an equal section.
    """
    if not dataclasses.is_dataclass(section) or isinstance(section, type):
        raise TypeError(f"expected a config section, got {section!r}")
    result: dict[str, Any] = {}
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        if dataclasses.is_dataclass(value):
            result[f.name] = section_to_mapping(value)
        else:
            result[f.name] = list(value) if isinstance(value, tuple) else value
    return result


# ---------------------------------------------------------------------------------------------
# Writing TOML
# ---------------------------------------------------------------------------------------------


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n")[0]


def _render_table(lines: list[str], path: tuple[str, ...], section: Any, doc: str) -> None:
    lines.append("")
    if doc:
        lines.append(f"# {doc}")
    lines.append(f"[{_dotted(path)}]")
    hints = typing.get_type_hints(type(section))
    subsections = []
    for f in dataclasses.fields(section):
        value = getattr(section, f.name)
        if dataclasses.is_dataclass(hints[f.name]):
            subsections.append((f, value))
            continue
        lines.append("")
        lines.append(f"# {f.metadata['doc']}")
        lines.append(f"# Allowed: {_describe(hints[f.name], f.metadata)}.")
        lines.append(f"{f.name} = {_toml_value(value)}")
    for f, value in subsections:
        _render_table(lines, (*path, f.name), value, f.metadata["doc"])


def to_toml(config: Config, header: str = "") -> str:
    """Write ``config`` as a commented TOML document that loads back to an equal Config.

    Args:
        config: Any configuration, e.g. the result of :func:`load_config`.
        header: Text put at the top as ``#`` comment lines.

    Returns:
        The TOML text: every section and key, each key with its doc and allowed values.
    """
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    sections = {name: getattr(config, name) for name in _BUILTIN_SECTIONS}
    sections.update(config.extra)
    for name, section in sections.items():
        _render_table(lines, (name,), section, _first_line(type(section).__doc__))
    return "\n".join(lines).lstrip("\n") + "\n"


_DEFAULTS_HEADER = """\
Engine configuration: every key with its default value.

Save as config.toml in the working directory (or pass --config PATH) and keep only
the keys you change; a missing key keeps its default. Override one key on the
command line with --set section.key=value, e.g. --set timing.mode=strict."""


def defaults_toml(extra_sections: Mapping[str, type] | None = None) -> str:
    """Return a complete, commented TOML document of every key and its default.

    Args:
        extra_sections: Game sections to include, as for :func:`load_config`.

    Returns:
        TOML text that parses back to the default configuration.
    """
    return to_toml(load_config(None, extra_sections=extra_sections), header=_DEFAULTS_HEADER)


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--config PATH`` (``args.config``) and ``--set`` (``args.config_overrides``).

    Args:
        parser: The program's parser; read the result with :func:`config_from_args`.
    """
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"TOML config file (default: {DEFAULT_CONFIG_PATH} if it exists)",
    )
    parser.add_argument(
        "--set",
        dest="config_overrides",
        action="append",
        default=None,
        metavar="SECTION.KEY=VALUE",
        help="override one config key, e.g. --set timing.mode=strict (repeatable)",
    )


def config_from_args(
    args: argparse.Namespace,
    extra_sections: Mapping[str, type] | None = None,
    *,
    settings_overrides: Sequence[str] = (),
) -> Config:
    """Load the configuration named by :func:`add_config_arguments`'s options.

    Without ``--config``, :data:`DEFAULT_CONFIG_PATH` is read if it exists. On a
    :class:`ConfigError` the one-line message goes to stderr and the program exits
    with status 2 (the usual status for bad command-line input), without a traceback.

    Args:
        args: Parsed arguments.
        extra_sections: Game sections, as for :func:`load_config`.
        settings_overrides: The player's saved options
            (:meth:`engine.config.settings.UserSettings.overrides`), applied after the file
            and before ``--set``.

    Raises:
        SystemExit: With code 2 if the configuration is invalid.
    """
    explicit_path: Path | None = args.config
    try:
        return load_config(
            explicit_path if explicit_path is not None else DEFAULT_CONFIG_PATH,
            [*settings_overrides, *(args.config_overrides or ())],
            extra_sections,
            missing_ok=explicit_path is None,
        )
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m engine.config``: print defaults, list key names, or check a file.

    Without options, print every key with its default (a ready ``config.toml``).
    With ``--config`` and/or ``--set``, validate and print the effective
    configuration. With ``--keys``, print every allowed key name, one per line.
    """
    parser = argparse.ArgumentParser(
        prog="python -m engine.config",
        description="Print every config key with its default, or check a config file.",
    )
    add_config_arguments(parser)
    parser.add_argument("--keys", action="store_true", help="list the key names for [input]")
    args = parser.parse_args(argv)
    if args.keys:
        text = "\n".join(_KEY_NAME_ORDER) + "\n"
    elif args.config is None and not args.config_overrides:
        text = defaults_toml()
    else:
        config = config_from_args(args)
        text = to_toml(config, header="Effective configuration (file, then --set overrides).")
    return write_stdout(text)


def write_stdout(text: str) -> int:
    """Print ``text``; a reader that stopped early (``| head``) is not an error.

    Returns:
        The exit status: 0, also when the pipe closed before everything was read.
    """
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_closed_stdout()
    return 0


def silence_closed_stdout() -> None:
    """After a ``BrokenPipeError`` on stdout (``| head`` stopped reading), point it at devnull.

    Otherwise Python complains a second time when it flushes stdout at exit.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    raise SystemExit(main())
