"""``--level NAME``: the file as given, else one of the game's own levels, else one clear line."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.app.assets import ProjectFilesError
from engine.app.level_order import bundled_levels
from game.definition import GAME

find_level = GAME.files.find_level
levels_dir = GAME.files.levels_dir
project_dir = GAME.files.project_dir

OWN_LEVELS = bundled_levels(levels_dir())


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder outside the project, as an installed game is started from."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("level", OWN_LEVELS, ids=lambda path: path.name)
def test_a_bare_name_finds_the_games_own_level_from_any_folder(
    elsewhere: Path, level: Path
) -> None:
    assert find_level(Path(level.name)) == levels_dir() / level.name
    # the way the READMEs name levels, relative to the project root
    assert find_level(Path("levels") / level.name) == project_dir() / "levels" / level.name


def test_a_file_that_exists_as_given_wins_over_the_games_own(elsewhere: Path) -> None:
    name = OWN_LEVELS[-1].name
    (elsewhere / name).write_text("{}")  # a map being edited here, named like one of the game's
    assert find_level(Path(name)) == Path(name)
    absolute = elsewhere / name
    assert find_level(absolute) == absolute


def test_a_folder_of_the_game_is_not_a_level(elsewhere: Path) -> None:
    with pytest.raises(ProjectFilesError, match="no such level file"):
        find_level(Path("replays"))  # a folder in levels/, not a map


def assert_lists_the_levels_in_one_line(message: str) -> None:
    assert "\n" not in message and "\r" not in message
    assert message.endswith(" ".join(path.name for path in OWN_LEVELS))


def test_a_missing_level_says_where_it_looked_and_lists_the_games_levels(elsewhere: Path) -> None:
    with pytest.raises(ProjectFilesError) as relative:
        find_level(Path("sub") / "nowhere.json")
    message = str(relative.value)
    assert message.startswith("--level sub/nowhere.json: no such level file (looked at ")
    for folder in (elsewhere, levels_dir(), project_dir()):
        assert str(folder / "sub" / "nowhere.json") in message
    assert_lists_the_levels_in_one_line(message)
    with pytest.raises(ProjectFilesError) as absolute:
        find_level(elsewhere / "nowhere.json")  # one place only: the game's folders are not tried
    assert f"(looked at {elsewhere / 'nowhere.json'});" in str(absolute.value)
    assert_lists_the_levels_in_one_line(str(absolute.value))


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.one_of(
        st.text(string.printable, min_size=1, max_size=40),
        st.text(min_size=1, max_size=12).map(lambda text: text * 600),  # too long for a file name
    )
)
def test_any_name_is_found_or_refused_in_one_line(elsewhere: Path, name: str) -> None:
    if "\x00" in name:
        return  # a command line cannot hold a NUL
    try:
        found = find_level(Path(name))
    except ProjectFilesError as exc:
        assert_lists_the_levels_in_one_line(str(exc))
        assert len(str(exc)) < 1500
    else:
        assert found.exists()
