"""The public API: every name resolves, engine/README.md's table lists exactly them, nothing eager."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_name_resolves_to_the_object_of_its_module() -> None:
    import importlib

    for name in engine.__all__:
        module = importlib.import_module(engine._PUBLIC[name])
        assert getattr(engine, name) is getattr(module, name), name


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        engine.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("engine.NoSuchThing resolved")


def test_the_readme_table_lists_exactly_the_public_api() -> None:
    text = (ROOT / "engine" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### The public API") :]
    section = section.split("\n## ", 1)[0]
    listed: dict[str, str] = {}
    for row in re.findall(r"^\| (`.+?`) \| `([\w.]+)` \|", section, flags=re.MULTILINE):
        for name in re.findall(r"`(\w+)`", row[0]):
            listed[name] = row[1]
    assert listed == engine._PUBLIC


def test_importing_the_engine_and_its_config_imports_no_arcade() -> None:
    code = (
        "import sys, engine, engine.config, engine.levels, engine.input.replay; "
        "print(sorted(m for m in ('arcade', 'pyglet') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
