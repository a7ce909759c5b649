"""Every numeric flag of every command is bounded, and says so in one line naming it.

The parsers are read, not listed by hand: each command's flags are walked, so a flag added later
is covered without touching this file. A flag whose type is not one of the bounded number types
(:func:`~engine.runtime.launch.count_arg`, :func:`~engine.runtime.launch.number_arg`) or a
known non-numeric type fails the test. Each numeric flag is then fed hostile values (huge,
negative, not finite, not a number, escapes, other scripts' digits): either the value parses
to a finite number, or the command's own parser exits 2 with one printable line naming the flag,
the value as given and the allowed range.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz.conftest import TALLY, assert_one_line


def _parsers() -> dict[str, argparse.ArgumentParser]:
    from engine.app import cli as game
    from engine.tools import bench, demo, new_project, render_bench
    from engine.tools.monitor_sim import cli as monitor_sim

    return {
        "python -m game": game.build_parser("python -m game"),
        "python -m engine.tools.demo": demo.build_parser(),
        "python -m engine.tools.bench": bench.build_parser(),
        "python -m engine.tools.monitor_sim": monitor_sim.build_parser(),
        "python -m engine new": new_project.build_parser(),
        "python -m engine.tools.render_bench": _render_bench_parser(render_bench),
    }


def _render_bench_parser(module: object) -> argparse.ArgumentParser:
    """render_bench builds its parser inside main(); read it from there."""
    captured: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.parse_args

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> object:
        captured.append(self)
        raise SystemExit(0)

    argparse.ArgumentParser.parse_args = capture  # type: ignore[method-assign,assignment]
    try:
        with contextlib.suppress(SystemExit):
            module.main([])  # type: ignore[attr-defined]
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    return captured[0]


NON_NUMERIC = {None, str, Path}


def _is_bounded_number(kind: Callable[..., object]) -> bool:
    return getattr(kind, "__qualname__", "").split(".<locals>")[0] in ("count_arg", "number_arg")


def _numeric_flags() -> list[tuple[str, argparse.ArgumentParser, str]]:
    flags = []
    for prog, parser in _parsers().items():
        for action in parser._actions:
            if not action.option_strings or action.type in NON_NUMERIC:
                continue
            if _is_bounded_number(action.type):  # type: ignore[arg-type]
                flags.append((prog, parser, action.option_strings[-1]))
    return flags


def test_every_flag_with_a_number_is_a_bounded_number_type() -> None:
    unbounded = []
    for prog, parser in _parsers().items():
        for action in parser._actions:
            kind = action.type
            if not action.option_strings or kind in NON_NUMERIC or _is_bounded_number(kind):  # type: ignore[arg-type]
                continue
            if getattr(kind, "__name__", "") in (
                "png_path",
                "size_arg",
                "_policies",
                "_seed_range",
                "_frame_delay",
            ):
                continue  # checked types built on the bounded ones, or not numbers
            unbounded.append(f"{prog} {action.option_strings[-1]}: {kind!r}")
    assert not unbounded
    assert len(_numeric_flags()) >= 20


hostile = st.one_of(
    st.sampled_from(
        [
            "99999999999999999999999999999",
            "-1",
            "1e400",
            "-1e400",
            "inf",
            "nan",
            "1e-400",
            "",
            "0x10",
            "1_000",
            "\x1b[2J",
            "9" * 5000,
            "١٢٣",
            "½",
            " 7 ",
            "\n7",
        ]
    ),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=12),
)


@pytest.mark.parametrize("flag", _numeric_flags(), ids=lambda f: f"{f[0].split()[-1]} {f[2]}")
@settings(max_examples=6, deadline=None)
@given(value=hostile)
def test_hostile_numbers_are_one_line_naming_the_flag_value_and_range(
    flag: tuple[str, argparse.ArgumentParser, str], value: str
) -> None:
    prog, parser, option = flag
    err = io.StringIO()
    args = [f"{option}={value}"]
    if option == "--sizes" or prog.endswith("engine new"):
        args = ["moon_jump", *args] if prog.endswith("engine new") else args
    TALLY["numeric flags"]["cases"] += 1
    with contextlib.redirect_stderr(err):
        try:
            parsed = parser.parse_args(args)
        except SystemExit as exit_:
            assert exit_.code == 2
            message = err.getvalue().rstrip("\n")
            assert_one_line(message, limit=400)
            assert f"argument {option}" in message, message
            assert "must be in" in message or "must be >" in message, message
            TALLY["numeric flags"]["clean errors"] += 1
            return
    number = getattr(parsed, option.lstrip("-").replace("-", "_"))
    for item in number if isinstance(number, list) else [number]:
        assert isinstance(item, int | float) and math.isfinite(item), (option, value, item)
        assert abs(item) <= 100_000_000, (option, value, item)
    TALLY["numeric flags"]["loaded"] += 1


@pytest.mark.parametrize(
    ("command", "args", "fragment"),
    [
        ("monitor_sim", ["--sweep-seeds", "0-1000000"], "at most 10,000 seeds in one sweep"),
        (
            "monitor_sim",
            ["--updates", "1000000", "--tick-hz", "1"],
            "at most 4,000,000 are allowed",
        ),
        ("monitor_sim", ["--updates", "100000", "--no-vsync", "--render-ms", "0"], "(no vsync)"),
        ("bench", ["--sizes", *map(str, range(1, 18))], "at most 16 different sizes, got 17"),
    ],
)
def test_lists_and_products_of_flags_are_bounded_too(
    command: str, args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flag within its range can still ask for too much with another: one line, exit 2."""
    from engine.tools import bench
    from engine.tools.monitor_sim import cli as monitor_sim

    main = {"monitor_sim": monitor_sim.main, "bench": bench.main}[command]
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    err = capsys.readouterr().err.rstrip("\n")
    assert_one_line(err, limit=400)
    assert fragment in err
