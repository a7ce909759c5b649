"""The suite's ``xdist_group`` marks really keep a group on one pytest-xdist worker.

The slow matrix tests and the tests of one played speedrun run share a module fixture that takes
a minute or more to build. ``--dist loadgroup`` (pyproject.toml) sends a group's tests to one
worker, so each is built once. pytest-xdist does it by adding the group to each test's id, which
pytest 9.2 no longer lets it do: the tests were spread over both workers again and each built
the fixture, with nothing failing. This test runs a tiny suite of its own to check that a group
lands on one worker with the installed pytest and pytest-xdist. It starts a pytest of its own
(three processes, 5 s), so it runs with ``--full`` (and in ``.ci/run``), where the groups matter most.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TINY_SUITE = """
import os
import pytest

GROUP = pytest.mark.xdist_group("together")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return os.environ["PYTEST_XDIST_WORKER"]


@GROUP
@pytest.mark.parametrize("n", range(4))
def test_grouped(built, n):
    with open(os.environ["WORKERS_FILE"], "a") as out:
        out.write(built + "\\n")
"""


@pytest.mark.slow
def test_a_group_runs_on_one_worker_and_builds_its_module_fixture_once(tmp_path: Path) -> None:
    (tmp_path / "test_tiny.py").write_text(TINY_SUITE)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    workers_file = tmp_path / "workers.txt"
    command = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q"]
    command += ["-p", "no:cacheprovider", "-c", str(tmp_path / "pytest.ini"), str(tmp_path)]
    out = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "WORKERS_FILE": str(workers_file)},
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    workers = workers_file.read_text().split()
    assert len(workers) == 4
    assert len(set(workers)) == 1, f"the group ran on {sorted(set(workers))}"
