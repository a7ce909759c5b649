"""The launch path's GL error-check switch: off in normal runs, on with --debug-gl or the variable.

pyglet decides once, when ``pyglet.gl`` is first imported, so each case runs in a fresh process:
the launch steps a command runs (parse the runtime flags, ``is_headless``), then ``import arcade``,
then it prints what pyglet's GL functions actually do.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from engine.runtime.launch import DEBUG_GL_ENV, gl_error_checks_active

LAUNCH_THEN_IMPORT_ARCADE = """
import sys
from engine.runtime.launch import (
    OneLineParser, add_runtime_arguments, gl_error_checks_active, is_headless,
)
parser = OneLineParser(prog="launch-test")
add_runtime_arguments(parser)
is_headless(parser.parse_args(["--headless", *sys.argv[1:]]))
import arcade
print(gl_error_checks_active())
"""


def launch(*flags: str, debug_gl_env: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != DEBUG_GL_ENV}
    if debug_gl_env is not None:
        env[DEBUG_GL_ENV] = debug_gl_env
    return subprocess.run(
        [sys.executable, "-c", LAUNCH_THEN_IMPORT_ARCADE, *flags],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize(
    ("flags", "debug_gl_env", "expected"),
    [
        ((), None, "False"),  # a normal run: checks off
        ((), "0", "False"),
        ((), "", "False"),
        (("--debug-gl",), None, "True"),
        ((), "1", "True"),
        (("--debug-gl",), "0", "True"),  # the flag wins
    ],
)
def test_gl_error_checks_follow_the_flag_and_the_variable(
    flags: tuple[str, ...], debug_gl_env: str | None, expected: str
) -> None:
    out = launch(*flags, debug_gl_env=debug_gl_env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected


def test_a_bad_variable_value_is_one_line_and_exit_2() -> None:
    out = launch(debug_gl_env="yes")
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr == "ENGINE_DEBUG_GL: error: must be 0 or 1 (or unset), got 'yes'\n"


@pytest.mark.gl
def test_the_test_suite_runs_with_the_checks_on(gl_window: Any) -> None:
    assert os.environ[DEBUG_GL_ENV] == "1"  # set by tests/conftest.py, inherited by subprocesses
    assert gl_error_checks_active() is True
