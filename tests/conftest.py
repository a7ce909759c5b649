"""Shared pytest setup: headless arcade, one hidden window for all GL tests, the slow set.

``ARCADE_HEADLESS`` must be set before anything imports arcade, so it is set
here at import time (pytest imports conftest.py before collecting tests).
``setdefault`` lets a developer with a display override it.

Tests marked ``slow`` (end-to-end runs: a fresh virtual environment, the full simulator
matrix, every replay at every display rate) are deselected by default so that
``python -m pytest`` stays fast; ``python -m pytest --full`` runs them too, and ``.ci/run``
always does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("ARCADE_HEADLESS", "1")
os.environ.setdefault("ENGINE_DEBUG_GL", "1")  # pyglet checks every GL call in the tests


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        help="also run the slow end-to-end tests (marked slow), as .ci/run does",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect (not skip) the slow tests unless ``--full`` is given; with it, run them first.

    pytest-xdist hands tests to its workers in collection order: a minute-long test collected
    last keeps one worker busy while the other waits at the end. Slow tests first, the many
    short ones fill in behind them and both workers finish together.
    """
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if config.getoption("--full"):
        fast = [item for item in items if item.get_closest_marker("slow") is None]
        items[:] = slow + fast
        return
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


@pytest.fixture(scope="session")
def gl_window() -> Iterator[Any]:
    """One hidden arcade window (an offscreen EGL context when headless).

    Shared by every ``@pytest.mark.gl`` test because creating GL contexts is
    slow and arcade expects a single window per process. Tests that draw
    should clear it first and must not close it.
    """
    import arcade

    window = arcade.Window(width=320, height=240, title="tests", visible=False)
    yield window
    window.close()
