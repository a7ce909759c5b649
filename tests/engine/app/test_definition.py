"""The game definition: the README's example is the sample's, and tools find a game by name."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from engine.app.definition import DefinitionError, GameDefinition, load_definition
from game.definition import GAME

ROOT = Path(__file__).resolve().parents[3]


def test_the_readme_example_is_the_sample_games_definition() -> None:
    text = (ROOT / "engine" / "app" / "README.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    namespace: dict[str, object] = {}
    exec(compile(block, "engine/app/README.md", "exec"), namespace)
    assert namespace["GAME"] == GAME


def test_a_tool_loads_a_game_by_package_or_module_and_attribute() -> None:
    assert load_definition("game") is GAME
    assert load_definition("game.definition:GAME") is GAME


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("no_such_game_here", "cannot import the game 'no_such_game_here.definition'"),
        ("game.definition:APP_NAME", "has no GameDefinition named APP_NAME"),
    ],
)
def test_a_bad_game_name_is_one_line(spec: str, fragment: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        load_definition(spec)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_without_a_name_the_one_game_in_the_working_directory_is_found(tmp_path: Path) -> None:
    here = Path.cwd()
    try:
        os.chdir(ROOT)
        assert load_definition(None) is GAME
        os.chdir(tmp_path)
        with pytest.raises(DefinitionError, match="found none"):
            load_definition(None)
        for name in ("one", "two"):
            (tmp_path / name).mkdir()
            (tmp_path / name / "__init__.py").write_text("")
            (tmp_path / name / "definition.py").write_text("")
        with pytest.raises(DefinitionError, match="found one, two"):
            load_definition(None)
    finally:
        os.chdir(here)


def test_the_definition_is_a_frozen_value() -> None:
    assert isinstance(GAME, GameDefinition)
    with pytest.raises(AttributeError):
        GAME.package = "other"  # type: ignore[misc]
    assert GAME.prog == "python -m game"
    assert GAME.files.levels_dir() == ROOT / "levels"
