"""How a config section declares its keys, and how values are checked against them.

A section is a frozen dataclass whose fields carry their constraints as metadata
(:func:`setting`, :func:`key_binding`); this module turns raw TOML values into such
dataclasses (:func:`build_section`) or explains in one :class:`ConfigError` line why it
cannot. It knows no particular section: the engine's own live in
:mod:`engine.config.sections`, a game's in the game. Pure: standard library only.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, TypeVar

T = TypeVar("T")

OVERRIDE_SOURCE = "--set"
"""How errors name the source of a value that came from a command-line override."""

# ---------------------------------------------------------------------------------------------
# Key names
# ---------------------------------------------------------------------------------------------

_KEY_NAME_ORDER: tuple[str, ...] = (
    # Letters: A .. Z.
    *(chr(code) for code in range(ord("A"), ord("Z") + 1)),
    # Digits of the main row: KEY_0 .. KEY_9 (arcade.key has no constant named "0").
    *(f"KEY_{digit}" for digit in range(10)),
    # Function keys: F1 .. F24.
    *(f"F{number}" for number in range(1, 25)),
    "LEFT", "RIGHT", "UP", "DOWN",
    "SPACE", "ENTER", "RETURN", "ESCAPE", "TAB", "BACKSPACE",
    "LSHIFT", "RSHIFT", "LCTRL", "RCTRL", "LALT", "RALT",
    "LMETA", "RMETA", "LWINDOWS", "RWINDOWS", "LCOMMAND", "RCOMMAND",
    "HOME", "END", "PAGEUP", "PAGEDOWN", "INSERT", "DELETE",
    "CAPSLOCK", "NUMLOCK", "SCROLLLOCK", "PAUSE", "MENU",
    "MINUS", "EQUAL", "COMMA", "PERIOD", "SLASH", "BACKSLASH", "SEMICOLON", "APOSTROPHE",
    "GRAVE", "BRACKETLEFT", "BRACKETRIGHT",
    # Numeric keypad.
    *(f"NUM_{digit}" for digit in range(10)),
    "NUM_ENTER", "NUM_ADD", "NUM_SUBTRACT", "NUM_MULTIPLY", "NUM_DIVIDE", "NUM_DECIMAL",
    "NUM_EQUAL", "NUM_LEFT", "NUM_RIGHT", "NUM_UP", "NUM_DOWN", "NUM_HOME", "NUM_END",
    "NUM_PAGE_UP", "NUM_PAGE_DOWN", "NUM_INSERT", "NUM_DELETE",
)  # fmt: skip

_KEY_NAMES: frozenset[str] = frozenset(_KEY_NAME_ORDER)


def key_names() -> frozenset[str]:
    """Return every key name allowed in key bindings.

    Names are spelled exactly like the constants of ``arcade.key`` (checked against
    arcade 3.3), so ``getattr(arcade.key, name)`` gives the key code. Convention:
    letters are ``A``..``Z``, digits of the main row are ``KEY_0``..``KEY_9``, keypad
    keys are ``NUM_0``..``NUM_9``, ``NUM_ENTER`` and so on, function keys ``F1``..``F24``.
    """
    return _KEY_NAMES


# ---------------------------------------------------------------------------------------------
# Field helpers: how a section declares a key
# ---------------------------------------------------------------------------------------------

_METADATA_KEYS = frozenset(
    {"doc", "min", "max", "min_exclusive", "also_allowed", "choices", "non_empty", "key_names"}
)


def setting(
    default: T,
    doc: str,
    *,
    min: float | None = None,
    max: float | None = None,
    min_exclusive: bool = False,
    also_allowed: tuple[float, ...] = (),
    choices: tuple[str, ...] = (),
    non_empty: bool = False,
) -> T:
    """Declare one config key: its default, a one-line doc and its constraints.

    This is ``dataclasses.field(default=default, metadata={...})``; writing the
    ``field`` call by hand with the same metadata keys works just as well.

    Args:
        default: Value used when the file does not set the key. (For a subsection,
            write ``field(default_factory=Sub, metadata={"doc": "..."})``.)
        doc: One line shown in :func:`defaults_toml` above the key.
        min: Smallest allowed number (inclusive unless ``min_exclusive``).
        max: Largest allowed number (inclusive).
        min_exclusive: Make ``min`` exclusive (``0 < x`` instead of ``0 <= x``).
        also_allowed: Numbers allowed outside ``min``..``max``, e.g. ``(0,)`` for "off".
        choices: The only strings allowed.
        non_empty: Reject the empty (or all-blank) string.

    Returns:
        A dataclass field (typed as ``T`` so the class body type-checks).
    """
    metadata: dict[str, Any] = {"doc": doc}
    if min is not None:
        metadata["min"] = min
    if max is not None:
        metadata["max"] = max
    if min_exclusive:
        metadata["min_exclusive"] = True
    if also_allowed:
        metadata["also_allowed"] = also_allowed
    if choices:
        metadata["choices"] = choices
    if non_empty:
        metadata["non_empty"] = True
    return field(default=default, metadata=metadata)


def key_binding(default: tuple[str, ...], doc: str) -> tuple[str, ...]:
    """Declare a key-binding key: a list of key names from :func:`key_names`.

    Args:
        default: Key names bound by default, e.g. ``("SPACE", "Z")``.
        doc: One line shown in :func:`defaults_toml` above the key.

    Returns:
        A dataclass field for a ``tuple[str, ...]`` attribute.
    """
    return field(default=default, metadata={"doc": doc, "key_names": True})


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class ConfigError(Exception):
    """A configuration problem, reported as exactly one line.

    ``str(error)`` is ``config error: <source>: <detail>``, where ``source`` is the
    file as given (or ``--set`` for an override) and ``detail`` names the key as
    ``section.key``, the offending value and what is allowed.

    Attributes:
        source: The file name, or ``"--set"``.
        detail: What is wrong, without the prefix.
        key: The dotted key (``"timing.mode"``) if the problem is about one, else None.
    """

    def __init__(self, source: str, detail: str, key: str | None = None) -> None:
        self.source = shown_text(source, _PATH_CHARS)
        self.detail = " ".join(detail.splitlines())
        self.key = key
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"config error: {self.source}: {self.detail}"


# ---------------------------------------------------------------------------------------------
# TOML text
# ---------------------------------------------------------------------------------------------

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}

SHOWN_CHARS = 60
"""Longest piece of user text (a value or a key) quoted in an error line."""

_PATH_CHARS = 4096
"""File names are escaped but not shortened (no path is longer than this anyway)."""


def _escaped(text: str, *, quotes: bool = True) -> str:
    """``text`` with every unprintable character escaped, TOML style (``\\n``, ``\\u001b``).

    With ``quotes``, double quotes and backslashes are escaped too (for a TOML string).
    """
    parts = []
    for char in text:
        if char in _TOML_ESCAPES and (quotes or char.isspace()):
            parts.append(_TOML_ESCAPES[char])
        elif not char.isprintable():  # control characters, line and paragraph separators, ...
            code = ord(char)
            parts.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            parts.append(char)
    return "".join(parts)


def _toml_string(text: str) -> str:
    """Quote ``text`` as a one-line TOML basic string (unprintable characters escaped)."""
    return '"' + _escaped(text) + '"'


def _shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown_text(text: str, limit: int = SHOWN_CHARS) -> str:
    """User text (a file name, a key) made safe for a one-line message: escaped, shortened.

    Printable text is kept as it is; a control character, a line break or an escape sequence
    is shown as a TOML escape (``\\u001b``) and never reaches the terminal raw. Text longer
    than ``limit`` characters ends in ``...``.
    """
    if len(text) > 4 * limit:
        text = text[: 4 * limit]  # escaping a megabyte to keep 60 characters is wasted work
    return _shorten(_escaped(text, quotes=False), limit)


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_value(value: Any) -> str:
    """Write ``value`` (as produced by tomllib or held by a section) as TOML text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        items = (f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _toml_value({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    return str(value)  # TOML dates and times print as valid TOML


def _show(value: Any, limit: int = SHOWN_CHARS) -> str:
    """Show an offending value in an error line: TOML syntax, escaped, shortened if long."""
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[: 4 * limit]
    return _shorten(_toml_value(value), limit)


def _dotted(path: Sequence[str]) -> str:
    """A key path as written in TOML (``speedrun.livesplit.port``), each part safe to show."""
    return ".".join(_shown_key(part) for part in path)


def _shown_key(key: str) -> str:
    if _BARE_KEY.fullmatch(key):
        return _shorten(key)
    return _shorten(_toml_string(key[: 4 * SHOWN_CHARS]))


# ---------------------------------------------------------------------------------------------
# Validation, driven by field types and metadata
# ---------------------------------------------------------------------------------------------

_SCALAR_TYPES: tuple[type, ...] = (bool, int, float, str)
#: A key that takes a word from its ``choices`` or a number in its range (``"auto"`` or 4.5).
WORD_OR_NUMBER = str | float
_PLURALS: dict[type, str] = {bool: "booleans", int: "integers", float: "numbers", str: "strings"}


def _number(value: float) -> str:
    """Show a bound: ``10.0`` as ``10``, ``0.001`` as ``0.001``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _describe(tp: Any, meta: Mapping[str, Any]) -> str:
    """Describe what a key allows, e.g. ``an integer in 1 <= x <= 100``."""
    if dataclasses.is_dataclass(tp):
        return "a table"
    if typing.get_origin(tp) is tuple:
        if meta.get("key_names"):
            return "a list of key names (python -m engine.config --keys lists them)"
        if "choices" in meta:
            return "a list of names from: " + ", ".join(meta["choices"])
        return f"a list of {_PLURALS[typing.get_args(tp)[0]]}"
    if tp == WORD_OR_NUMBER:
        words = " or ".join(_toml_string(c) for c in meta.get("choices", ()))
        return f"{words} or {_describe(float, {k: v for k, v in meta.items() if k != 'choices'})}"
    if tp is bool:
        return "true or false"
    if tp is str:
        if "choices" in meta:
            return "one of " + ", ".join(_toml_string(c) for c in meta["choices"])
        return "a non-empty string" if meta.get("non_empty") else "a string"
    kind = "an integer" if tp is int else "a number"
    low, high = meta.get("min"), meta.get("max")
    low_op = "<" if meta.get("min_exclusive") else "<="
    if low is not None and high is not None:
        text = f"{kind} in {_number(low)} {low_op} x <= {_number(high)}"
    elif low is not None:
        text = f"{kind} {'>' if low_op == '<' else '>='} {_number(low)}"
    elif high is not None:
        text = f"{kind} <= {_number(high)}"
    else:
        text = kind
    also = meta.get("also_allowed", ())
    if also:
        text = " or ".join(_number(v) for v in also) + " or " + text
    return text


def _in_range(value: float, meta: Mapping[str, Any]) -> bool:
    if value in meta.get("also_allowed", ()):
        return True
    if isinstance(value, float) and not math.isfinite(value):
        return False  # (an int is always finite; math.isfinite overflows on a huge one)
    low, high = meta.get("min"), meta.get("max")
    if low is not None and (value <= low if meta.get("min_exclusive") else value < low):
        return False
    return high is None or value <= high


def _scalar(value: Any, tp: type, meta: Mapping[str, Any]) -> tuple[bool, Any]:
    """Check and convert one scalar. Returns ``(ok, converted_value)``."""
    if tp == WORD_OR_NUMBER:
        return _scalar(value, str if isinstance(value, str) else float, meta)
    if tp is bool:
        return isinstance(value, bool), value
    if tp is str:
        if not isinstance(value, str):
            return False, value
        if "choices" in meta and value not in meta["choices"]:
            return False, value
        return not (meta.get("non_empty") and not value.strip()), value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False, value  # bool is an int subclass in Python, but never a number here
    if tp is int and not isinstance(value, int):
        return False, value
    try:
        converted = float(value) if tp is float else value
    except OverflowError:  # an integer beyond the largest float (about 1.8e308)
        return False, value
    return _in_range(converted, meta), converted


class _Context:
    """Where values came from, so each error names the right source."""

    def __init__(self, file_label: str, override_paths: set[tuple[str, ...]]) -> None:
        self.file_label = file_label
        self.override_paths = override_paths

    def source(self, path: tuple[str, ...]) -> str:
        for end in range(len(path), 0, -1):
            if path[:end] in self.override_paths:
                return OVERRIDE_SOURCE
        return self.file_label

    def error(self, path: tuple[str, ...], detail: str) -> ConfigError:
        return ConfigError(self.source(path), detail, key=_dotted(path))


def _suggest(word: str, candidates: Sequence[str]) -> str | None:
    if len(word) > SHOWN_CHARS:
        return None  # nothing the schema names is that long; comparing would be slow
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return close[0] if close else None


def _unknown_key(source: str, cls: type, path: tuple[str, ...]) -> ConfigError:
    names = [f.name for f in dataclasses.fields(cls)]
    prefix = _dotted(path[:-1])
    close = _suggest(path[-1], names)
    if close is not None:
        hint = f"did you mean {prefix}.{close}?"
    else:
        hint = "valid keys: " + ", ".join(names)
    return ConfigError(source, f"unknown key {_dotted(path)} ({hint})", key=_dotted(path))


def _unknown_section(source: str, name: str, schema: Mapping[str, type]) -> ConfigError:
    close = _suggest(name, list(schema))
    if close is not None:
        hint = f"did you mean [{close}]?"
    else:
        hint = "valid sections: " + ", ".join(f"[{s}]" for s in schema)
    return ConfigError(source, f"unknown section [{_dotted((name,))}] ({hint})", key=name)


def _convert(
    value: Any, tp: Any, meta: Mapping[str, Any], path: tuple[str, ...], ctx: _Context
) -> Any:
    """Validate one value against its field type and metadata; return the typed value."""
    key = _dotted(path)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ctx.error(path, f"{key} = {_show(value)}: must be a table [{key}]")
        return _build(tp, value, path, ctx)

    problem = f"{key} = {_show(value)}: must be {_describe(tp, meta)}"
    if typing.get_origin(tp) is tuple:
        item_tp = typing.get_args(tp)[0]
        if isinstance(value, str) and item_tp is str:
            value = [value]  # one key name where a list is expected
        if not isinstance(value, list | tuple):
            raise ctx.error(path, problem)
        items = []
        for item in value:
            ok, converted = _scalar(item, item_tp, {})
            if not ok:
                raise ctx.error(path, problem)
            if meta.get("key_names") and converted not in _KEY_NAMES:
                close = _suggest(converted.upper(), _KEY_NAME_ORDER)
                hint = f" (did you mean {_toml_string(close)}?)" if close else ""
                raise ctx.error(
                    path,
                    f"{key} = {_show(value)}: {_show(converted)} is not a key name{hint}; "
                    "must be key names like A, KEY_1, F1, LEFT, SPACE "
                    "(python -m engine.config --keys lists them)",
                )
            if "choices" in meta and converted not in meta["choices"]:
                close = _suggest(converted, meta["choices"])
                hint = f" (did you mean {_toml_string(close)}?)" if close else ""
                raise ctx.error(
                    path,
                    f"{key} = {_show(value)}: {_show(converted)} is unknown{hint}; "
                    f"allowed: {', '.join(meta['choices'])}",
                )
            items.append(converted)
        return tuple(items)

    ok, converted = _scalar(value, tp, meta)
    if not ok:
        if isinstance(value, str) and "choices" in meta:
            close = _suggest(value, meta["choices"])
            if close is not None:
                problem += f" (did you mean {_toml_string(close)}?)"
        raise ctx.error(path, problem)
    return converted


def _build(cls: type[T], raw: Mapping[str, Any], path: tuple[str, ...], ctx: _Context) -> T:
    """Build section ``cls`` from a TOML table; missing keys keep their defaults."""
    hints = typing.get_type_hints(cls)
    by_name = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        key_path = (*path, key)
        if key not in by_name:
            raise _unknown_key(ctx.source(key_path), cls, key_path)
        values[key] = _convert(value, hints[key], by_name[key].metadata, key_path, ctx)
    try:
        return cls(**values)
    except ValueError as exc:  # cross-field rules from __post_init__
        raise ctx.error(path, f"[{_dotted(path)}]: {exc}") from exc


@functools.cache
def _check_section_class(cls: type) -> None:
    """Check that a section class follows the conventions (a programming error if not).

    Raises:
        TypeError: Not a frozen dataclass, a field without default or doc, an
            unsupported field type, an unknown metadata key, or an invalid default.
    """
    name = getattr(cls, "__qualname__", repr(cls))
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"config section {name} must be a dataclass")
    if not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"config section {name} must be a frozen dataclass")
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        where = f"{name}.{f.name}"
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise TypeError(f"{where} needs a default")
        if not isinstance(f.metadata.get("doc"), str):
            raise TypeError(f"{where} needs metadata doc='...' (use setting())")
        unknown = set(f.metadata) - _METADATA_KEYS
        if unknown:
            raise TypeError(f"{where} has unknown metadata {sorted(unknown)}")
        tp = hints[f.name]
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            _check_section_class(tp)
            continue
        args = typing.get_args(tp)
        tuple_ok = (
            typing.get_origin(tp) is tuple
            and len(args) == 2
            and args[1] is Ellipsis
            and args[0] in _SCALAR_TYPES
        )
        if tp not in _SCALAR_TYPES and not tuple_ok and tp != WORD_OR_NUMBER:
            raise TypeError(f"{where} has unsupported type {tp!r}")
    defaults = dataclasses.asdict(cls())
    try:
        _build(cls, defaults, (name,), _Context("<defaults>", set()))
    except ConfigError as exc:
        raise TypeError(f"invalid default in {exc.detail}") from exc
