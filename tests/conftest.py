"""Shared pytest setup: headless arcade and one hidden window for all GL tests.

``ARCADE_HEADLESS`` must be set before anything imports arcade, so it is set
here at import time (pytest imports conftest.py before collecting tests).
``setdefault`` lets a developer with a display override it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("ARCADE_HEADLESS", "1")


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
