"""The README documents every config key, with the default and the doc the schema has."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.config.schema import _toml_value

README = Path(__file__).resolve().parents[1] / "README.md"
TABLE_HEAD = "| key | default | meaning |\n|---|---|---|\n"


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
    text = README.read_text(encoding="utf-8")
    start = text.index(TABLE_HEAD) + len(TABLE_HEAD)
    table = text[start:].split("\n\n", 1)[0].splitlines()
    assert table == schema_rows(Config())
