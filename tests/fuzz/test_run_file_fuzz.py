"""Generated run files: a run that verifies (or says why not), or one error line.

An honest run file (played on the pure simulation, :mod:`tests.engine.app.honest_runs`) is damaged
two ways: one field anywhere in it (top level, settings, a split, an attempt) set to a
generated JSON value or deleted, and random bytes of the file changed. What still loads is
verified as well (the first five, to keep the suite fast): verification must return its
answer, never raise.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.app.run_file import RunFileError, Verification, read_run, verify_run
from tests.engine.app.honest_runs import ORDER, honest_run
from tests.engine.app.sample_game import GAME, LEVELS_DIR, SECTIONS
from tests.fuzz.conftest import TALLY, assert_one_line, case

FUZZ_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
MAX_VERIFIED = 5
"""Loadable damaged runs verified per session (each replays the whole run: 0.3 s)."""


def paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path in the run's JSON, leaves and containers alike (not the replay texts)."""
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data[:2]):
            found += paths(value, (*prefix, index))
    return found


@functools.cache
def honest_text() -> str:
    """The damaged file's original: an honest run's JSON text.

    Played on first use (2 s), not at import: every pytest-xdist worker imports this module to
    collect it, and only the one that runs these tests needs the run.
    """
    return json.dumps(honest_run(restarts=[(1, 30)]).to_json(), indent=1)


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**5000), max_value=10**5000)
    | st.integers(min_value=-3, max_value=3000)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
    | st.sampled_from(["0" * 32, "f" * 32, "strict", "on", "level1.json", "x" * 100_000])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


def run_error_line(message: str) -> None:
    assert_one_line(message, limit=4600)  # the file name, then at most a few hundred characters
    assert len(message.split(": ", 1)[1]) <= 600


def check(text: str | bytes, path_factory: pytest.TempPathFactory) -> None:
    path = path_factory.mktemp("run") / "run.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    with case("run files", RunFileError, run_error_line):
        loaded = read_run(path, SECTIONS)
        if TALLY["run files (verified)"]["cases"] < MAX_VERIFIED:
            with case("run files (verified)", RunFileError, run_error_line):
                result = verify_run(GAME, loaded, LEVELS_DIR, ORDER)
                assert isinstance(result, Verification)
                assert result.verified == (not result.problem)


@FUZZ_SETTINGS
@given(
    path=st.deferred(lambda: st.sampled_from(paths(json.loads(honest_text())))),
    value=json_values,
    delete=st.booleans(),
)
@pytest.mark.slow  # (moved out of the default suite's 90 s)
def test_one_field_set_to_anything_or_deleted(
    tmp_path_factory: pytest.TempPathFactory, path: tuple[Any, ...], value: Any, delete: bool
) -> None:
    data = json.loads(honest_text())
    node = data
    for key in path[:-1]:
        node = node[key]
    deleted = delete and isinstance(node, dict)
    if deleted:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    try:
        text = json.dumps(data)
    except ValueError:  # an integer json cannot write; write it by hand
        text, count = re.subn(r'"version": \d+', '"version": ' + "9" * 5000, honest_text(), count=1)
        assert count == 1
    if not deleted and isinstance(value, float) and not math.isfinite(value):
        assert "NaN" in text or "Infinity" in text  # json's own spelling, which it also reads
    check(text, tmp_path_factory)


@FUZZ_SETTINGS
@given(
    edits=st.lists(
        st.tuples(
            st.deferred(lambda: st.integers(0, len(honest_text().encode("utf-8")) - 1)),
            st.binary(min_size=0, max_size=3),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_bytes_changed(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, bytes]]
) -> None:
    data = bytearray(honest_text().encode("utf-8"))
    for index, replacement in edits:
        data[index : index + 1] = replacement
    check(bytes(data), tmp_path_factory)
