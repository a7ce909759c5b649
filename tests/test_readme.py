"""The docs: a short README whose commands run, links that resolve, every config key documented.

What each test here proves, and what it does not:

- The top-level README stays a newcomer's page (at most 300 lines) and its map of the docs links
  every package README in the repository.
- Every relative link in every Markdown file of the repository resolves: the file exists inside
  the repository and a ``#anchor`` names a heading of the target (``tests/markdown_links.py``; a
  test below shows the checker catches each kind of broken link). Web links are not followed.
- Every command in a ``bash`` block of the top-level README is accounted for, one by one
  (:data:`CHECKS`). The new-game block runs here as written (``engine new`` into a temporary
  folder, ``cd``, the new game with no display: exit 2, as documented; in the slow set, as it
  takes a few seconds). The others name the test
  or the ``.ci/run`` line that already runs them (the test checks that those exist): installing
  into a fresh virtual environment and the suite itself run in CI and in the slow new-user test;
  ``python -m game`` without a display runs in the demo/game CLI tests; the bundled run file's
  ``--verify-run`` in the run-file tests. A command added to the README without an entry here, or
  an entry the README dropped, fails the suite. Installing is not repeated here: it takes minutes.
- Every command in the README's commands table answers ``--help`` (it exists and parses its
  flags; not that it works: that is each command's own tests).
- The ``--json`` keys the runtime-flags table lists are the keys the commands print: the game's
  and the demo's CLI tests compare the table (:func:`documented_json_keys`) with their output.
- The configuration reference lists every config key with the default and doc the schema has.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.config import Config
from engine.config.schema import _toml_value
from tests.markdown_links import (
    anchors,
    broken_links,
    fence_problems,
    markdown_files,
    relative_links,
)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CONFIG_README = ROOT / "engine" / "config" / "README.md"
RUNTIME_README = ROOT / "engine" / "runtime" / "README.md"
TABLE_HEAD = "| key | default | meaning |\n|---|---|---|\n"
MAX_README_LINES = 300
# No display (a CI machine may have one): `python -m game` must take its no-display path.
NO_DISPLAY_ENV = {
    key: value
    for key, value in os.environ.items()
    if key not in ("DISPLAY", "WAYLAND_DISPLAY", "ARCADE_HEADLESS", "PYTHONPATH", "VIRTUAL_ENV")
}


# -- the configuration reference -----------------------------------------------------------------


def schema_rows(section: Any, prefix: str = "") -> list[str]:
    rows: list[str] = []
    for f in dataclasses.fields(section):
        if f.name == "extra":
            continue
        value = getattr(section, f.name)
        if dataclasses.is_dataclass(value):
            rows += schema_rows(value, f"{prefix}{f.name}.")
        else:
            doc = f.metadata.get("doc", "")
            rows.append(f"| `{prefix}{f.name}` | `{_toml_value(value)}` | {doc} |")
    return rows


def test_the_configuration_table_lists_every_key_with_its_default_and_doc() -> None:
    text = CONFIG_README.read_text(encoding="utf-8")
    start = text.index(TABLE_HEAD) + len(TABLE_HEAD)
    table = text[start:].split("\n\n", 1)[0].splitlines()
    assert table == schema_rows(Config())


# -- a short README with a map of the docs ------------------------------------------------------


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section, up to the next ``## ``."""
    start = text.index(f"\n## {heading}\n") + len(heading) + 5
    end = text.find("\n## ", start)
    return text[start : end if end != -1 else len(text)]


def test_the_readme_is_a_short_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"


def test_the_map_of_the_docs_links_every_readme() -> None:
    text = README.read_text(encoding="utf-8")
    mapped = {
        (ROOT / link.target.partition("#")[0]).resolve()
        for link in relative_links(README)
        if f"]({link.target})" in section(text, "Map of the docs")
    }
    readmes = {p.resolve() for p in markdown_files(ROOT) if p.name == "README.md" and p != README}
    assert readmes, "no package README found"
    missing = sorted(str(p.relative_to(ROOT)) for p in readmes - mapped)
    assert not missing, f"README.md's 'Map of the docs' does not link {missing}"


# -- links ---------------------------------------------------------------------------------------


def test_every_relative_link_in_every_markdown_file_resolves() -> None:
    files = markdown_files(ROOT)
    assert README in files and len(files) > 5
    assert broken_links(ROOT) == []


def test_every_code_block_in_every_markdown_file_is_closed(tmp_path: Path) -> None:
    assert [p for path in markdown_files(ROOT) for p in fence_problems(path)] == []
    forgot = tmp_path / "forgot.md"
    forgot.write_text("```toml\na = 1\n\ntext\n\n```bash\nls\n```\n\n```\nopen\n", encoding="utf-8")
    assert [line.split(": ", 1)[1] for line in fence_problems(forgot)] == [
        "a ```bash fence inside the block of line 1",
        "a code block never closed",
    ]


def test_the_link_checker_finds_every_kind_of_broken_link(tmp_path: Path) -> None:
    """The check above could pass by finding nothing: here it must find exactly the bad links."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(
        "# Guide\n\n## Set-up: `pip` & *you*\n\n## Twice\n\n## Twice\n", encoding="utf-8"
    )
    (tmp_path / "image.png").write_bytes(b"")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "skipped.md").write_text("[gone](nowhere.md)\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "# Top\n\n"
        "[ok](docs/guide.md#set-up-pip--you) [ok](docs/guide.md#twice-1) ![ok](image.png)\n"
        "[ok](#top) [web](https://example.com/x.md) `[code](no.md)`\n"
        "```bash\n[in a block](no.md)\n```\n"
        "[bad file](docs/none.md) [bad anchor](docs/guide.md#twice-2) [bad self](#nope)\n"
        "[outside](../elsewhere.md) [anchor in a picture](image.png#x)\n"
        "[ref]: docs/missing.md\n",
        encoding="utf-8",
    )
    found = broken_links(tmp_path)
    assert [line.split(": ")[1] for line in found] == [
        "docs/none.md",
        "docs/guide.md#twice-2",
        "#nope",
        "../elsewhere.md",
        "image.png#x",
        "docs/missing.md",
    ], found
    assert anchors("## A `b` [c](d.md)\n") == {"a-b-c"}


# -- the README's commands -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class RunsHere:
    """Run as written (``where``: the checkout, or the new game's folder) with this outcome."""

    where: str
    status: int
    says: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class RunsElsewhere:
    """Too slow for the default suite: ``proof`` names where it runs, ``what`` says how."""

    proof: tuple[str, ...]
    what: str


CI = ".ci/run"
NEW_USER_TEST = (
    "tests/engine/tools/test_new_project.py::"
    "test_a_new_user_makes_a_game_follows_recipes_ships_it_and_updates_the_engine"
)
CHECKS: dict[str, RunsHere | RunsElsewhere] = {
    "python3 -m venv .venv": RunsElsewhere(
        (f"{CI}: python3 -m venv .ci-venv", NEW_USER_TEST),
        "CI makes its fresh virtual environment this way; the new-user test makes one for the game",
    ),
    ". .venv/bin/activate": RunsElsewhere(
        (f"{CI}: . .ci-venv/bin/activate",), "CI activates its environment this way"
    ),
    "pip install -e .": RunsElsewhere(
        (f"{CI}: pip install -e '.[test]'", NEW_USER_TEST),
        "CI installs the checkout editable (with the test extra); the new-user test installs a "
        "new game editable into a fresh environment",
    ),
    "pip install -e '.[test]'": RunsElsewhere(
        (f"{CI}: pip install -e '.[test]' && python -m pytest --full", NEW_USER_TEST),
        "CI runs this very line (then the full suite); the new-user test does it in a new game",
    ),
    "python -m pytest": RunsElsewhere(
        (f"{CI}: python -m pytest --full", NEW_USER_TEST),
        "this suite is that command (CI runs it with --full); the new-user test runs a new "
        "game's own suite with it",
    ),
    "python -m game": RunsElsewhere(
        (
            "tests/engine/tools/test_demo_cli.py::"
            "test_without_a_display_it_says_so_in_one_line_and_exits_2",
        ),
        "with no display it runs `python -m game --frames 1` (the flag changes nothing before "
        "the window would open): one line pointing at --headless, exit 2, as the README says; "
        "playing is tests/game/",
    ),
    "python -m game --verify-run levels/runs/any-percent.run.json": RunsElsewhere(
        (
            "tests/engine/app/test_make_run.py::test_the_bundled_run_file_verifies_through_every_level",
            "tests/engine/app/test_game_cli.py::test_verify_run_has_a_status_for_each_verdict",
        ),
        "the first verifies this file (in process, the same verify_run), the second the "
        "command's exit status for each verdict",
    ),
    "python -m engine new 'Moon Jump' --path ../moon_jump": RunsHere(
        "workspace", 0, "created Moon Jump"
    ),
    "cd ../moon_jump": RunsHere("workspace", 0),
    "python -m moon_jump": RunsHere("new game", 2, "run with --headless"),
}


def readme_commands(text: str) -> list[str]:
    """The commands of the README's ``bash`` blocks, split at ``&&``, in ``shlex.join`` form."""
    commands: list[str] = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens = list(lexer)
            unsupported = [t for t in tokens if set(t) <= set("();<>|&") and t != "&&"]
            assert not unsupported, f"README command with {unsupported}: {line}"
            words: list[str] = []
            for token in [*tokens, "&&"]:
                if token == "&&":
                    if words:
                        commands.append(shlex.join(words))
                    words = []
                else:
                    words.append(token)
    return commands


def test_every_command_in_the_readme_is_checked() -> None:
    commands = readme_commands(README.read_text(encoding="utf-8"))
    assert "python -m game" in commands and "python -m pytest" in commands
    assert set(commands) - set(CHECKS) == set(), "add these README commands to CHECKS"
    assert set(CHECKS) - set(commands) == set(), "CHECKS names commands the README dropped"


def test_the_commands_run_elsewhere_name_tests_and_ci_lines_that_exist() -> None:
    ci = (ROOT / CI).read_text(encoding="utf-8")
    for command, check in CHECKS.items():
        if not isinstance(check, RunsElsewhere):
            continue
        for proof in check.proof:
            if proof.startswith(f"{CI}: "):
                line = proof.removeprefix(f"{CI}: ")
                parts = {part.strip() for row in ci.splitlines() for part in row.split("&&")}
                assert line in parts | set(ci.splitlines()), (command, proof)
            else:
                path, _, name = proof.partition("::")
                source = (ROOT / path).read_text(encoding="utf-8")
                assert f"\ndef {name}(" in source, (command, proof)


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # (two commands, 3-5 s on this machine: followed by --full and CI)
def test_the_new_game_commands_run_and_exit_as_documented(tmp_path: Path) -> None:
    """``engine new`` as written makes the game; from its folder ``python -m moon_jump`` finds its
    own package and vendored engine there and, with no display, exits 2 as ``python -m game``
    does (``pip install -e .`` before it is the new-user test's part)."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    places = {"checkout": ROOT, "workspace": workspace, "new game": tmp_path / "moon_jump"}
    envs = {  # `engine new` runs with the template importable, as in the checkout's venv
        "checkout": NO_DISPLAY_ENV,
        "workspace": {**NO_DISPLAY_ENV, "PYTHONPATH": str(ROOT)},
        "new game": NO_DISPLAY_ENV,
    }
    problems = []
    for command, check in CHECKS.items():  # in the README's order: the game is made first
        if not isinstance(check, RunsHere):
            continue
        args, cwd = shlex.split(command), places[check.where]
        if args[0] == "cd":
            status, said = (0 if (cwd / args[1]).is_dir() else 1), ""
        else:
            assert args[0] == "python", command
            out = run([sys.executable, *args[1:]], cwd, envs[check.where])
            status, said = out.returncode, out.stdout + out.stderr
        if status != check.status or check.says not in said:
            problems.append(f"{command} (in {check.where}): exit {status}, {said[-500:]!r}")
    assert problems == []


# -- the commands table and the runtime flags ------------------------------------------------------


def table_modules(text: str) -> list[list[str]]:
    """``python -m MODULE [SUBCOMMAND]`` of each row of the README's commands table."""
    rows = re.findall(r"^\| `python -m ([\w.]+)((?: [a-z]\w*)*)", section(text, "Commands"), re.M)
    return [[module, *words.split()] for module, words in rows]


HELP_ALL = """
import runpy, sys
for words in sys.argv[1:]:
    module, *rest = words.split()
    sys.argv = [module, *rest, "--help"]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        print("EXIT", words, exc.code, flush=True)
    else:
        print("EXIT", words, "no exit", flush=True)
"""


def test_every_command_in_the_commands_table_answers_help() -> None:
    """One fresh interpreter runs each ``python -m MODULE --help`` as ``-m`` would (runpy)."""
    modules = table_modules(README.read_text(encoding="utf-8"))
    assert ["game"] in modules and ["engine", "new"] in modules
    words = [" ".join(m) for m in modules]
    out = run([sys.executable, "-c", HELP_ALL, *words], ROOT, NO_DISPLAY_ENV)
    exits = re.findall(r"^EXIT (.+) (\S+)$", out.stdout, flags=re.MULTILINE)
    assert exits == [(w, "0") for w in words], out.stdout[-2000:] + out.stderr[-2000:]
    assert out.stdout.lower().count("usage:") == len(words)


def documented_json_keys(command: str) -> set[str]:
    """The ``--json`` keys engine/runtime/README.md's flags table lists for ``game`` or
    ``engine.tools.demo`` (the CLI tests compare them with what the command prints)."""
    text = RUNTIME_README.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `--json` |"))
    part = row[row.index(f"`{command}`:") :].split(". ", 1)[0]
    return set(re.findall(r"`(\w+)`", part)) - {command}
