"""Unicode edge cases in the text fields that are saved or looked up (issue 25, item 4).

Lone surrogates, escapes, bidi controls, other scripts and long names, drawn by hypothesis:

* a personal-bests file either loads, and then saves again (nothing that loads can make a
  later save fail), or is moved aside with one printable warning line;
* a LiveSplit host either passes the config check, and then the socket library can encode it
  (no ``UnicodeError`` inside the LiveSplit thread), or is refused in one line.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import ConfigError, load_config
from engine.config.sections import host_problem
from engine.speedrun.personal_best import Records, load_records, save_records
from tests.fuzz.conftest import TALLY, assert_one_line

edge_text = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(categories=["Cs", "Cc", "Cf", "Zl", "Zp"]), max_size=6),
    st.sampled_from(
        ["\ud800", "a\udcffb", "\x1b[31m", "\u202eevil", "e\u0301", "𝔘𝔫𝔦", "L" * 300, "", " "]
    ),
)


@settings(max_examples=40, deadline=None)
@given(
    category=edge_text,
    split=edge_text,
    gold=edge_text,
    date=edge_text,
)
def test_records_that_load_can_always_be_saved_again(
    tmp_path_factory: pytest.TempPathFactory, category: str, split: str, gold: str, date: str
) -> None:
    folder = tmp_path_factory.mktemp("records")
    path = folder / "personal_bests.json"
    data = {
        "format": "platformer-personal-bests",
        "version": 1,
        "categories": {
            category: {
                "personal_best": {"total_ticks": 10, "date": date, "splits": {split: 10}},
                "best_segments": {gold: 3},
            }
        },
    }
    path.write_text(json.dumps(data))  # ensure_ascii: surrogates travel as \\udXXX escapes
    warnings: list[str] = []
    TALLY["unicode records"]["cases"] += 1
    records = load_records(path, warn=warnings.append)
    if warnings:
        assert records == Records() and len(warnings) == 1
        assert_one_line(warnings[0], "warning: personal bests ", limit=600)
        assert list(folder.glob("personal_bests.corrupt-*.json"))
        TALLY["unicode records"]["clean errors"] += 1
        return
    save_records(records, path)  # must not raise: what loads can be written back
    assert load_records(path) == records
    TALLY["unicode records"]["loaded"] += 1


hosts = st.one_of(
    edge_text,
    st.lists(st.text(min_size=0, max_size=70), min_size=1, max_size=5).map(".".join),
    st.from_regex(r"[a-z0-9-]{1,70}(\.[a-z0-9-]{0,70}){0,4}\.?", fullmatch=True),
    st.ip_addresses().map(str),
)


@settings(max_examples=150, deadline=None)
@given(host=hosts)
def test_a_host_the_config_accepts_is_one_the_socket_library_can_look_up(host: str) -> None:
    TALLY["livesplit hosts"]["cases"] += 1
    problem = host_problem(host)
    if problem is None:
        host.encode("idna")  # what socket.getaddrinfo does first; no UnicodeError
        TALLY["livesplit hosts"]["loaded"] += 1
        return
    TALLY["livesplit hosts"]["clean errors"] += 1
    if "\\" in host or '"' in host or not host.strip():
        return  # not expressible in the --set string below, or caught as empty by the schema
    with pytest.raises(ConfigError) as caught:
        load_config(None, [f'speedrun.livesplit.host="{host}"'])
    assert_one_line(str(caught.value), limit=400)
