"""The fuzz suite's tally: cases tried per category, clean errors and tracebacks.

Each fuzz test counts its cases in :data:`TALLY`; the counts are printed at the end of the run
(``fuzz: config 400 cases: 131 loaded, 269 clean errors, 0 tracebacks``). A traceback is any
exception other than the loader's one-line error: it fails its test, and is counted so that
the summary says so too.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

TALLY: defaultdict[str, Counter[str]] = defaultdict(Counter)


def assert_one_line(message: str, prefix: str = "", limit: int = 600) -> None:
    """A clean error: one printable line (no raw control character), short, with its prefix."""
    assert message.startswith(prefix), message[:200]
    assert len(message.splitlines()) == 1, message[:200]
    assert message.isprintable(), message[:200]
    assert len(message) <= limit, message[:200]


@contextmanager
def case(category: str, error: type[BaseException], check: Callable[[str], None]) -> Iterator[Any]:
    """Count one case: loaded, a clean ``error`` (checked by ``check``), or a traceback."""
    try:
        yield
    except error as exc:
        check(str(exc))
        TALLY[category]["clean errors"] += 1
    except Exception:
        TALLY[category]["tracebacks"] += 1
        raise
    else:
        TALLY[category]["loaded"] += 1
    finally:
        TALLY[category]["cases"] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for category, counts in sorted(TALLY.items()):
        terminalreporter.write_line(
            f"fuzz: {category} {counts['cases']} cases: {counts['loaded']} loaded, "
            f"{counts['clean errors']} clean errors, {counts['tracebacks']} tracebacks"
        )
