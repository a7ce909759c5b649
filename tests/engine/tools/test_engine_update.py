"""``--update-engine`` merges three ways: the engine as vendored, the project's copy, the new one.

The pure parts first (one decision per file, the record of the vendored engine, which
version is older), then the command on real projects: one project is generated per module
and copied for each test; an "upstream" is a copy of this checkout's ``engine/`` and
``pyproject.toml`` changed as a newer engine would be. The files edited are chosen from the
vendored engine by size, not by name (the engine's layout moves), except the run-file
verification file, which the goal names.
"""

from __future__ import annotations

import bz2
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tools import engine_update, new_project
from engine.tools.engine_update import (
    BASE_NAME,
    VendoredBase,
    compare_versions,
    pack_base,
    plan_files,
    read_base,
)
from engine.tools.new_project import MANIFEST_NAME, Manifest, plan_engine
from tests.engine.tools.test_new_project import CLEAN_ENV, NAME, ROOT, files_under, make, run_new
from tests.game.test_replays import assert_one_line_error

pytestmark = pytest.mark.xdist_group("engine-update")

VERIFICATION_FILE = "engine/app/run_file.py"
"""The engine's run-file verification (``verify_run`` and the sealed chain):
the file a fix must reach existing games in. Update the name if it moves."""

GIT_IDENTITY = ("-c", "user.name=test", "-c", "user.email=test@localhost")

# ---------------------------------------------------------------------------------------------
# One decision per file
# ---------------------------------------------------------------------------------------------

B, L, N = b"base\nline\n", b"local\nline\n", b"base\nline\nnew\n"


@pytest.mark.parametrize(
    ("base", "local", "new", "outcome", "data"),
    [
        ({}, {}, {"f": N}, "added", N),
        ({"f": B}, {"f": B}, {"f": N}, "changed", N),
        ({"f": B}, {"f": L}, {"f": N}, "merged", b"local\nline\nnew\n"),
        ({"f": B}, {"f": L}, {"f": B}, "local", None),
        ({"f": B}, {"f": L}, {"f": L}, "unchanged", None),
        ({"f": B}, {"f": B}, {}, "removed", None),
        ({"f": B}, {"f": L}, {}, "orphaned", None),
        ({"f": B}, {}, {"f": N}, "left_deleted", None),
        ({"f": B}, {}, {"f": B}, "local", None),
        ({}, {"f": L}, {}, "yours", None),
        ({"f": B}, {"f": b"<<<<<<< x\nline\n>>>>>>> y\n"}, {"f": N}, "unresolved", None),
        ({"f": B}, {"f": b"x\0"}, {"f": N}, "conflicting", None),
    ],
)
def test_each_file_gets_one_outcome(
    base: dict[str, bytes],
    local: dict[str, bytes],
    new: dict[str, bytes],
    outcome: str,
    data: bytes | None,
) -> None:
    step = plan_files(base, local, new)["f"]
    assert (step.outcome, step.data) == (outcome, data)


@st.composite
def three_trees(draw: st.DrawFn) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes]]:
    """A vendored engine of a few files, and a project and a newer engine that each keep,
    edit (at the top or the bottom), delete or add files."""
    base = {
        f"engine/m{i}.py": b"".join(f"m{i} line {k}\n".encode() for k in range(6))
        for i in range(draw(st.integers(1, 5)))
    }

    def descendant(tag: str) -> dict[str, bytes]:
        tree: dict[str, bytes] = {}
        for path, data in base.items():
            change = draw(st.sampled_from(("keep", "top", "bottom", "delete")))
            if change == "keep":
                tree[path] = data
            elif change == "top":
                tree[path] = f"# {tag}\n".encode() + data[data.index(b"\n") + 1 :]
            elif change == "bottom":
                tree[path] = data + f"# {tag}\n".encode()
        if draw(st.booleans()):
            tree[f"engine/{draw(st.sampled_from(('x', 'y')))}.py"] = f"# {tag}\n".encode()
        return tree

    return base, descendant("local"), descendant("new")


@settings(max_examples=80, deadline=None)
@given(trees=three_trees())
def test_every_side_of_every_file_is_kept_unless_the_other_side_replaces_it(
    trees: tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes]],
) -> None:
    base, local, new = trees
    steps = plan_files(base, local, new)
    assert sorted(steps) == sorted({*base, *local, *new})
    for path, step in steps.items():
        was, mine, theirs = base.get(path), local.get(path), new.get(path)
        result = step.data if step.data is not None else mine
        if step.outcome == "removed":
            result = None
        if step.outcome == "conflicting":
            assert step.data is not None and mine is not None and theirs is not None
            assert step.data.count(b"<<<<<<< ") == step.data.count(b">>>>>>> ") >= 1
            continue
        if mine == was:  # not edited in the project: the new engine's file, whatever it is
            assert result == theirs, (path, step)
        elif theirs == was:  # the engine did not change it: the project's, untouched
            assert result == mine and step.data is None, (path, step)
        elif mine is not None and theirs is not None and was is not None:
            # both edited, one the top line and the other the end: both edits, merged
            top, bottom = (mine, theirs) if theirs.startswith(was) else (theirs, mine)
            assert step.outcome == "merged" and result == top + bottom[len(was) :]
        elif was is not None and mine is None and theirs is not None:
            # deleted here, changed in the engine: it stays deleted
            assert step.outcome == "left_deleted" and result is None
        elif was is not None and theirs is None and mine is not None:
            # edited here, gone from the engine: kept, the project's own now
            assert step.outcome == "orphaned" and result == mine


def test_a_conflict_holds_both_sides_and_names_the_versions() -> None:
    step = plan_files({"f": B}, {"f": b"mine\nline\n"}, {"f": b"theirs\nline\n"}, ("1.0", "1.1"))[
        "f"
    ]
    assert step.outcome == "conflicting" and step.data is not None
    assert step.data.decode().splitlines() == [
        "<<<<<<< project: f",
        "mine",
        "||||||| engine 1.0 (as vendored)",
        "base",
        "=======",
        "theirs",
        ">>>>>>> engine 1.1 (this update)",
        "line",
    ]


def test_an_unknown_base_or_a_file_on_both_sides_conflicts_whole() -> None:
    for base in ({"f": None}, {}):
        step = plan_files(base, {"f": b"a\nb\n"}, {"f": b"a\nc\n"})["f"]
        assert step.outcome == "conflicting" and step.data is not None
        assert b"<<<<<<< project: f\na\nb\n" in step.data and b"=======\na\nc\n>>>>>>>" in step.data


# ---------------------------------------------------------------------------------------------
# The record of the vendored engine
# ---------------------------------------------------------------------------------------------


def test_the_record_round_trips_and_the_same_engine_gives_the_same_bytes(tmp_path: Path) -> None:
    files = {str(path): data for path, data in plan_engine(ROOT).items()}
    record = VendoredBase("0.1.0+gabc", files, ("engine/a.py",))
    packed = pack_base(record)
    assert (
        pack_base(VendoredBase("0.1.0+gabc", dict(reversed(files.items())), ("engine/a.py",)))
        == packed
    )
    (tmp_path / "record").write_bytes(packed)
    assert read_base(tmp_path / "record") == record
    assert read_base(tmp_path / "absent") is None
    assert len(packed) < sum(map(len, files.values())) / 3  # small: about a quarter


def tar_bz2(members: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return bz2.compress(raw.getvalue())


INDEX = json.dumps({"format": "vendored-engine-base", "version": 1}).encode()
DAMAGED_RECORDS: dict[str, Callable[[bytes], bytes]] = {
    "cut short": lambda good: good[: len(good) // 2],
    "not bzip2": lambda good: b"garbage" * 100,
    "empty": lambda good: b"",
    "data after the end": lambda good: good + b"x",
    "a member outside engine/": lambda good: tar_bz2({"index.json": INDEX, "../evil.py": b""}),
    "no index": lambda good: tar_bz2({"engine/a.py": b""}),
    "a nested index": lambda good: tar_bz2({"index.json": b"[" * 100_000}),
    "an index of another format": lambda good: tar_bz2({"index.json": b'{"format": "x"}'}),
    "unpacks too large": lambda good: bz2.compress(b"\0" * (3 << 20)),
}


@pytest.mark.parametrize("damage", sorted(DAMAGED_RECORDS))
def test_a_damaged_record_is_one_clear_error(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine_update, "MAX_BASE_UNPACKED_BYTES", 2 << 20)
    good = pack_base(VendoredBase("1", {"engine/a.py": b"a\n"}))
    path = tmp_path / "record"
    path.write_bytes(DAMAGED_RECORDS[damage](good))
    with pytest.raises(ValueError, match="not a readable vendored engine") as caught:
        read_base(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


# ---------------------------------------------------------------------------------------------
# Which engine is older
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "order"),
    [
        ("0.1.0", "0.1.0", 0),
        ("0.1.0", "0.2.0", 1),
        ("0.10.0", "0.9.0", -1),  # numbers, not text
        ("1.0.0", "1.0.0rc1", -1),  # a release candidate comes before its release
        ("1.0", "1.0.0", 0),
        ("0.2.0+gaaaa111", "0.1.0+gbbbb222", -1),  # the version decides before the commit
        ("0.1.0+gaaaa111", "0.1.0+gaaaa111", 0),
        ("0.1.0+gaaaa111", "0.1.0+gbbbb222", 1),  # aaaa111 is an ancestor of bbbb222
        ("0.1.0+gbbbb222", "0.1.0+gaaaa111", -1),
        ("0.1.0+gbbbb222", "0.1.0+gcccc333", None),  # git cannot order them
        ("0.1.0+gaaaa111", "0.1.0", None),  # no commit to compare
        ("unknown", "0.1.0", None),
    ],
)
def test_versions_are_ordered_by_pep_440_then_by_git_history(
    old: str, new: str, order: int | None
) -> None:
    def is_ancestor(older: str, newer: str) -> bool | None:
        known = {"aaaa111": 0, "bbbb222": 1}
        if older not in known or newer not in known:
            return None
        return known[older] < known[newer]

    assert compare_versions(old, new, is_ancestor) == order


def test_without_packaging_plain_dotted_versions_still_compare(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "packaging.version", None)  # import fails
    assert compare_versions("0.10.0", "0.9.0") == -1
    assert compare_versions("1.0", "1.0.0") == 0
    assert compare_versions("0.1.0", "0.2") == 1
    assert compare_versions("1.0.0", "1.0.0rc1") is None  # not plain numbers: cannot tell


# ---------------------------------------------------------------------------------------------
# The command, on real projects
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("generated") / NAME)


@pytest.fixture
def project(generated: Path, tmp_path: Path) -> Path:
    """A fresh copy of the generated project."""
    return Path(shutil.copytree(generated, tmp_path / NAME))


def minimal_project(where: Path, generated: Path) -> Path:
    """Just what an update reads: the package, engine/, the manifest and the record."""
    (where / NAME).mkdir(parents=True)
    (where / NAME / "__init__.py").write_text("")
    shutil.copytree(generated / "engine", where / "engine")
    for name in (MANIFEST_NAME, str(BASE_NAME), "pyproject.toml"):
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(generated / name, where / name)
    return where


@pytest.fixture
def small_project(generated: Path, tmp_path: Path) -> Path:
    """What an update reads of the generated project, copied (faster to copy and commit)."""
    return minimal_project(tmp_path / NAME, generated)


def upstream(where: Path) -> Path:
    """A checkout for a newer engine: this one's ``engine/`` and ``pyproject.toml``."""
    shutil.copytree(
        ROOT / "engine", where / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def engine_files(count: int) -> list[str]:
    """``count`` different vendored modules of some size (chosen by size, not by name)."""
    files = plan_engine(ROOT)
    big = sorted(str(path) for path, data in files.items() if data.count(b"\n") > 40)
    chosen = [path for path in big if path != VERIFICATION_FILE][:count]
    assert len(chosen) == count
    return chosen


def prepend(path: Path, line: str) -> None:
    path.write_text(f"{line}\n" + path.read_text(encoding="utf-8"), encoding="utf-8")


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def update(
    capsys: pytest.CaptureFixture[str], dest: Path, source: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    """``--update-engine`` from the checkout ``source``, in this process, as the CLI runs it."""
    argv = [NAME, "--path", str(dest), "--update-engine", *flags]
    try:
        status = new_project.main(argv, prog="platformer-new", source_root=source)
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    out = capsys.readouterr()
    return subprocess.CompletedProcess(argv, status, out.out, out.err)


def section(stdout: str, title: str) -> list[str]:
    """The files listed under the heading starting with ``title`` in an update's report."""
    lines = stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(title)]
    if not starts:
        return []
    items = []
    for line in lines[starts[0] + 1 :]:
        if not line.startswith("  "):
            break
        items.append(line.strip())
    return items


def test_dry_run_conflict_resolution_and_the_finished_update(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    merge, local, conflict, changed, removed = engine_files(5)
    added = "engine/storage/added_upstream.py"
    source = upstream(tmp_path / "upstream")
    # The project's edits: two engine files at their top, one the engine also changes there,
    # and a file of its own.
    prepend(project / merge, "# my note on this module")
    prepend(project / local, "# my tuning")
    prepend(project / conflict, "# my change")
    (project / "engine" / "mine.py").write_text("# my helper\n")
    # The newer engine: one of them changed at its end, one at its top, others changed,
    # added and removed, and a dependency pin moved.
    append(source / merge, "\n\ndef newer_engine_helper() -> int:\n    return 1\n")
    prepend(source / conflict, "# the engine's change")
    append(source / changed, "\n# newer engine\n")
    (source / removed).unlink()
    (source / added).write_text('"""New in the newer engine."""\n')
    pyproject = (source / "pyproject.toml").read_text()
    pin = tomllib.loads(pyproject)["project"]["dependencies"][0]
    (source / "pyproject.toml").write_text(pyproject.replace(f'"{pin}"', f'"{pin},!=0.0.1"'))
    before = files_under(project)

    planned = update(capsys, project, source, "--dry-run")
    assert planned.returncode == 0, planned.stderr
    assert planned.stdout.startswith("dry run, nothing written")
    assert section(planned.stdout, "would be added") == [added]
    assert section(planned.stdout, "would be changed") == [changed]
    assert section(planned.stdout, "would be merged") == [merge]
    assert section(planned.stdout, "conflicting") == [conflict]
    assert section(planned.stdout, "would be removed") == [removed]
    assert section(planned.stdout, "dependency pins") == [f"{pin} -> {pin},!=0.0.1"]
    assert local not in planned.stdout  # an edit the engine did not touch: silent
    assert files_under(project) == before

    stopped = update(capsys, project, source)
    assert stopped.returncode == 1
    assert conflict in stopped.stderr and len(stopped.stderr.splitlines()) == 1
    text = (project / conflict).read_text()
    assert text.startswith(f"<<<<<<< project: {conflict}\n# my change\n|||||||")
    assert "=======\n# the engine's change\n>>>>>>> engine" in text
    after = files_under(project)
    assert {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)} == {
        conflict,
        str(BASE_NAME),
    }

    again = update(capsys, project, source)
    assert again.returncode == 1 and "still hold conflict markers" in again.stderr
    assert section(again.stdout, "unresolved") == [conflict]
    assert files_under(project) == after

    original = before[conflict].decode().split("\n", 1)[1]
    resolved = "# my change\n# the engine's change\n" + original
    (project / conflict).write_text(resolved)
    finished = update(capsys, project, source)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert section(finished.stdout, "conflicts you resolved") == [conflict]
    assert (project / conflict).read_text() == resolved
    assert (project / merge).read_text().startswith("# my note on this module\n")
    assert (project / merge).read_text().endswith("    return 1\n")
    assert (project / local).read_text().startswith("# my tuning\n")
    assert (project / changed).read_bytes() == (source / changed).read_bytes()
    assert (project / added).read_bytes() == (source / added).read_bytes()
    assert not (project / removed).exists() and (project / "engine" / "mine.py").exists()
    manifest = Manifest.read(project / MANIFEST_NAME)
    assert f"{pin},!=0.0.1" in manifest.dependencies and removed not in manifest.files
    record = read_base(project / BASE_NAME)
    assert record is not None and record.conflicts == ()
    assert record.files == {str(p): d for p, d in plan_engine(source).items()}
    game = {k: v for k, v in before.items() if k.startswith(f"{NAME}/")}
    assert {k: v for k, v in files_under(project).items() if k.startswith(f"{NAME}/")} == game

    settled = files_under(project)
    quiet = update(capsys, project, source)
    assert "0 added, 0 changed, 0 merged, 0 conflicting, 0 removed" in quiet.stdout
    assert files_under(project) == settled


@pytest.mark.parametrize("local_edit", ["another engine file", "the same file, other lines"])
def test_a_fix_to_run_file_verification_reaches_an_existing_game(
    small_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], local_edit: str
) -> None:
    """The goal of issue 21: a later engine's verification fix lands in a game made earlier,
    although the game's author edited the vendored engine."""
    project = small_project
    source = upstream(tmp_path / "upstream")
    fixed = source / VERIFICATION_FILE
    lines = fixed.read_text().splitlines(keepends=True)
    middle = len(lines) // 2
    lines.insert(middle, "# fix: a run file is checked against every recorded hash\n")
    lines.append("\n\ndef verification_fix() -> str:\n    return 'fixed'\n")
    fixed.write_text("".join(lines))
    edited = project / (
        VERIFICATION_FILE if local_edit.startswith("the same") else engine_files(1)[0]
    )
    prepend(edited, "# the game's own engine note")

    done = update(capsys, project, source)
    assert done.returncode == 0, done.stdout + done.stderr
    vendored = (project / VERIFICATION_FILE).read_text()
    if edited.name == fixed.name:
        assert vendored == "# the game's own engine note\n" + fixed.read_text()
    else:
        assert vendored == fixed.read_text()
        assert edited.read_text().startswith("# the game's own engine note\n")
    module = VERIFICATION_FILE.removesuffix(".py").replace("/", ".")
    ran = subprocess.run(
        [sys.executable, "-c", f"import {module} as m; print(m.verification_fix(), m.__file__)"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=CLEAN_ENV,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["fixed", str(project / VERIFICATION_FILE)]


def git(folder: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(folder), *GIT_IDENTITY, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout.strip()


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the test runs real git")


@needs_git
def test_an_older_engine_is_refused_unless_forced(
    small_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = small_project
    source = upstream(tmp_path / "upstream")
    (target,) = engine_files(1)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "older")
    older = git(source, "rev-parse", "HEAD")
    append(source / target, "\n# newer\n")
    git(source, "commit", "-qam", "newer")
    assert update(capsys, project, source).returncode == 0  # now at the newer commit
    git(source, "checkout", "-q", older)
    before = files_under(project)

    refused = update(capsys, project, source)
    assert_one_line_error(refused, str(project / MANIFEST_NAME), "older engine", "--force")
    assert files_under(project) == before
    planned = update(capsys, project, source, "--dry-run")
    assert planned.returncode == 0 and "older than the project's" in planned.stdout
    forced = update(capsys, project, source, "--force")
    assert forced.returncode == 0, forced.stderr
    assert (project / target).read_bytes() == (source / target).read_bytes()
    assert Manifest.read(project / MANIFEST_NAME).engine_version.endswith(older[:12])


@needs_git
def test_uncommitted_changes_are_refused_but_not_the_conflicts_being_resolved(
    small_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = small_project
    conflict, changed = engine_files(2)
    source = upstream(tmp_path / "upstream")
    prepend(source / conflict, "# the engine's change")
    append(source / changed, "\n# newer\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "game")
    prepend(project / NAME / "__init__.py", "# work in progress")
    before = files_under(project)
    refused = update(capsys, project, source)
    assert_one_line_error(refused, f"{NAME}/__init__.py", "uncommitted changes", "--force")
    assert files_under(project) == before

    prepend(project / conflict, "# my change")
    git(project, "commit", "-qam", "my engine change")
    assert update(capsys, project, source).returncode == 1  # the conflict, written
    text = (project / conflict).read_text()
    (project / conflict).write_text(text.split(">>>>>>> ", 1)[1].split("\n", 1)[1])
    done = update(capsys, project, source)  # dirty only where the conflict was: allowed
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / changed).read_bytes() == (source / changed).read_bytes()


@needs_git
def test_a_game_inside_another_repository_that_does_not_track_it_is_not_refused(
    generated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Made inside the template's own checkout (``new NAME`` there), the game is untracked
    there: that is not "uncommitted work" of the game's."""
    git(tmp_path, "init", "-q")
    (tmp_path / "README").write_text("another project\n")
    git(tmp_path, "add", "README")
    git(tmp_path, "commit", "-qm", "another project")
    project = minimal_project(tmp_path / NAME, generated)
    done = update(capsys, project, upstream(tmp_path / "upstream"))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("damaged", "content"),
    [
        pytest.param(MANIFEST_NAME, b"[" * 100_000, id="manifest-nested-lists"),
        pytest.param(MANIFEST_NAME, b'{"format": ' * 50_000, id="manifest-nested-objects"),
        pytest.param(MANIFEST_NAME, b"\xff\xfe not json", id="manifest-not-json"),
        pytest.param(str(BASE_NAME), b"BZh91AY&SY not really", id="record-not-bzip2"),
    ],
)
def test_a_damaged_manifest_or_record_is_one_line_and_exit_2(
    generated: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damaged: str,
    content: bytes,
) -> None:
    dest = minimal_project(tmp_path / "proj", generated)
    (dest / damaged).write_bytes(content)
    before = files_under(dest)
    out = update(capsys, dest, ROOT)
    assert_one_line_error(out, str(dest / damaged))
    assert files_under(dest) == before


def test_a_deeply_nested_manifest_is_one_line_from_the_command_too(
    generated: Path, tmp_path: Path
) -> None:
    dest = minimal_project(tmp_path / "proj", generated)
    (dest / MANIFEST_NAME).write_bytes(b"[" * 200_000)
    out = run_new(NAME, "--path", str(dest), "--update-engine")
    assert_one_line_error(out, str(dest / MANIFEST_NAME), "not a readable engine manifest")


def test_a_project_made_before_the_record_still_updates(
    small_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = small_project
    local, changed, both = engine_files(3)
    source = upstream(tmp_path / "upstream")
    (project / BASE_NAME).unlink()
    (project / BASE_NAME).parent.rmdir()
    prepend(project / local, "# mine")
    append(source / changed, "\n# newer\n")
    prepend(project / both, "# mine")
    append(source / both, "\n# newer\n")
    mine = (project / both).read_text()

    stopped = update(capsys, project, source)
    assert stopped.returncode == 1 and section(stopped.stdout, "conflicting") == [both]
    text = (project / both).read_text()  # no base: the two whole files, nothing lost
    assert f"<<<<<<< project: {both}\n{mine}|||||||" in text
    assert "(its text was not recorded)" in text
    assert f"=======\n{(source / both).read_text()}>>>>>>> engine" in text
    (project / both).write_text(mine + "\n# newer\n")
    done = update(capsys, project, source)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / local).read_text().startswith("# mine\n")
    assert (project / changed).read_bytes() == (source / changed).read_bytes()
    assert read_base(project / BASE_NAME) is not None
