"""Relative links in Markdown files, and whether they resolve (shared by the docs tests).

A link resolves when its file (or folder) exists inside the tree it was found in and, when it
names an anchor (``file.md#heading`` or ``#heading``), the target Markdown file has a heading
whose GitHub anchor is that name. Anchors are made as GitHub makes them (github-slugger): the
heading's text as rendered (code spans and emphasis unwrapped, a link's text kept), lower case,
every character that is not a letter, digit, mark, ``_``, ``-`` or space dropped, spaces turned
into ``-``; a repeated heading gets ``-1``, ``-2``...

Links inside fenced code blocks and code spans are not links and are not checked; web links
(``https:``, ``mailto:``...) are not checked either (no network in the suite).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
SKIPPED_DIRS = {"build", "dist", "__pycache__", "node_modules"}


@dataclass(frozen=True, slots=True)
class Link:
    """One relative link: the file it is in, its line, and its target as written."""

    source: Path
    line: int
    target: str


def outside_fences(text: str) -> Iterator[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
        else:
            yield number, line


def fence_problems(path: Path) -> list[str]:
    """Code fences that look unclosed: one left open at the end of the file, or a fence with a
    language (```` ```bash ````) met inside an open block, which is where a closing fence was
    forgotten (everything after it would render as code, and its links would go unchecked)."""
    problems: list[str] = []
    opened_at: int | None = None
    fence = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(line)
        if opened_at is None:
            if match:
                opened_at, fence = number, match.group(1)
            continue
        stripped = line.strip()
        if stripped.startswith(fence) and not stripped.strip(fence[0]):
            opened_at = None
        elif match and line[match.end() :].strip():
            problems.append(
                f"{path}:{number}: a {stripped} fence inside the block of line {opened_at}"
            )
    if opened_at is not None:
        problems.append(f"{path}:{opened_at}: a code block never closed")
    return problems


def heading_text(raw: str) -> str:
    """A heading's text as rendered: links give their text, code and emphasis marks go."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("`", "").replace("*", "")


def slug(text: str) -> str:
    """GitHub's anchor for a heading's rendered text (before de-duplication)."""
    kept = (
        ch
        for ch in text.lower()
        if ch in "-_ " or unicodedata.category(ch)[0] in "LNM" or unicodedata.category(ch) == "Pc"
    )
    return "".join(kept).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a Markdown text has: its headings' (numbered when repeated) and HTML ones."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in outside_fences(text):
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(heading_text(match.group(2)))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> list[Link]:
    """Every link in a Markdown file that is not a web link."""
    links: list[Link] = []
    for number, raw in outside_fences(path.read_text(encoding="utf-8")):
        line = CODE_SPAN.sub("", raw)
        targets = INLINE_LINK.findall(line)
        definition = REFERENCE_DEF.match(line)
        if definition:
            targets.append(definition.group(1))
        links += [
            Link(path, number, t)
            for t in targets
            if t and not SCHEME.match(t) and not t.startswith("//")
        ]
    return links


def problem(link: Link, root: Path) -> str | None:
    """Why a link does not resolve inside ``root``, or None when it does."""
    where = f"{link.source.relative_to(root)}:{link.line}: {link.target}"
    path_part, _, anchor = link.target.partition("#")
    target = (link.source.parent / unquote(path_part)).resolve() if path_part else link.source
    if not target.is_relative_to(root.resolve()):
        return f"{where}: points outside the repository"
    if not target.exists():
        return f"{where}: no such file"
    if not anchor:
        return None
    if target.suffix != ".md":
        if re.fullmatch(r"L\d+(-L\d+)?", anchor):
            return None
        return f"{where}: an anchor into a file that is not Markdown"
    if unquote(anchor) not in anchors(target.read_text(encoding="utf-8")):
        return f"{where}: {target.name} has no heading with the anchor #{anchor}"
    return None


def markdown_files(root: Path) -> list[Path]:
    """The Markdown files of a source tree: hidden folders, builds and virtual envs left out."""
    found: list[Path] = []

    def walk(folder: Path) -> None:
        for entry in sorted(folder.iterdir()):
            if entry.is_dir():
                skipped = (
                    entry.name.startswith(".")
                    or entry.name in SKIPPED_DIRS
                    or entry.name.endswith(".egg-info")
                    or (entry / "pyvenv.cfg").exists()
                )
                if not skipped:
                    walk(entry)
            elif entry.suffix == ".md":
                found.append(entry)

    walk(root)
    return found


def broken_links(root: Path) -> list[str]:
    """One line for every relative link under ``root`` that does not resolve."""
    return [
        line
        for path in markdown_files(root)
        for link in relative_links(path)
        if (line := problem(link, root)) is not None
    ]
