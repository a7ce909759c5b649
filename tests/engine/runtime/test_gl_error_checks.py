"""The launch path's GL error-check switch: off in normal runs, on with --debug-gl or the variable.

Which way the flag and the variable decide is tested in this process. Whether pyglet follows is
tested in fresh processes, because pyglet decides once, when ``pyglet.gl`` is first imported: each
runs the launch steps of a command (parse the runtime flags, ``is_headless``), then
``import arcade``, then prints what pyglet's GL functions actually do.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

import pytest

from engine.runtime.launch import (
    DEBUG_GL_ENV,
    gl_error_checks_active,
    gl_error_checks_requested,
)

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
    ("flag", "debug_gl_env", "expected"),
    [
        (False, None, False),  # a normal run: checks off
        (False, "0", False),
        (False, "", False),
        (True, None, True),
        (False, "1", True),
        (True, "0", True),  # the flag wins
    ],
)
def test_the_flag_and_the_variable_decide(
    flag: bool, debug_gl_env: str | None, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if debug_gl_env is None:
        monkeypatch.delenv(DEBUG_GL_ENV, raising=False)
    else:
        monkeypatch.setenv(DEBUG_GL_ENV, debug_gl_env)
    assert gl_error_checks_requested(argparse.Namespace(debug_gl=flag)) is expected


def test_a_bad_variable_value_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(DEBUG_GL_ENV, "yes")
    with pytest.raises(SystemExit) as exit_info:
        gl_error_checks_requested(argparse.Namespace(debug_gl=False))
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        "ENGINE_DEBUG_GL: error: must be 0 or 1 (or unset), got 'yes'\n"
    )


@pytest.mark.parametrize(("flags", "expected"), [((), "False"), (("--debug-gl",), "True")])
def test_the_launch_path_really_switches_pyglet(flags: tuple[str, ...], expected: str) -> None:
    out = launch(*flags, debug_gl_env=None)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected


def test_a_bad_variable_value_stops_a_command_before_arcade() -> None:
    out = launch(debug_gl_env="yes")
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr == "ENGINE_DEBUG_GL: error: must be 0 or 1 (or unset), got 'yes'\n"


@pytest.mark.gl
def test_the_test_suite_runs_with_the_checks_on(gl_window: Any) -> None:
    assert os.environ[DEBUG_GL_ENV] == "1"  # set by tests/conftest.py, inherited by subprocesses
    assert gl_error_checks_active() is True
