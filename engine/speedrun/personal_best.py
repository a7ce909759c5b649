"""Personal bests and gold splits, kept in a JSON file that a crash can never destroy.

What is stored, per *category* (a string the game chooses, e.g. ``"all-levels@60Hz"``, so runs
at different tick rates or with different level sets never compare against each other):

* the **personal best** (PB): the fastest complete run's total IGT ticks, the cumulative ticks at
  each split (by split name, in run order) and the UTC date it was set;
* the **best segments** ("golds"): for each split name, the fewest ticks that segment was ever
  played in, in any run. The sum of the golds is the "sum of best", the best run possible.

Times are integer ticks (see :mod:`engine.speedrun.timer`); milliseconds are only for display.

The file (``personal_bests.json`` in the user data directory, :func:`default_records_path`)::

    {
      "format": "platformer-personal-bests",
      "version": 1,
      "categories": {
        "all-levels@60Hz": {
          "personal_best": {
            "total_ticks": 5400,
            "date": "2026-11-22T12:00:00Z",
            "splits": {"level1": 1500, "level2": 3300, "level3": 5400}
          },
          "best_segments": {"level1": 1490, "level2": 1790, "level3": 2080}
        }
      }
    }

``personal_best`` may be ``null`` (golds from runs that were reset before the end). Keys this
version does not know are ignored on load and not written back.

Saving is atomic (:func:`save_records`): the new JSON goes to a temporary file in the same
directory (``.personal_bests.json.<random>.tmp``), is flushed and ``fsync``-ed, then renamed over
the old file with :func:`os.replace` (atomic on POSIX and Windows), and the directory is
``fsync``-ed so the rename itself survives a power cut. A process killed at any moment leaves
either the old file or the new one, never a mix and never an empty file. A kill before the rename
can leave a temporary file behind; it is never read as records, and the next save deletes such
leftovers once they are :data:`STALE_TEMP_AGE_S` old (younger ones may belong to another game
instance that is saving right now).

Two games at once (:func:`record_run`): a finished run is folded into the records **under an
exclusive lock** between processes (:func:`~engine.storage.file_lock.file_lock` on
``.personal_bests.json.lock``), into what the file holds *at that moment* merged with what this
game knew (:func:`merge_records`: per split the faster gold, per category the faster personal
best). So when two games finish runs together, whichever saves second sees the first one's
save: a worse total never replaces a better one, no gold is lost, and "new personal best" is
said only of a run that beat every personal best saved so far, by any game.

Loading never stops the game (:func:`load_records`):

* no file: empty records (the first run);
* a file that is not valid UTF-8 JSON of the shape above, or that could never be written back
  (a name or date holding a lone surrogate such as ``"\\ud800"``, which JSON escapes allow but
  UTF-8 cannot encode: every later save would fail): it is **moved aside** to
  ``personal_bests.corrupt-<UTC time>.json`` (never deleted; never over an earlier one: a
  second in the same second gets ``-2``), one warning line names both files, and the game goes
  on with empty records;
* a file that exists but cannot be read (permissions, a directory, a named pipe or a device in
  its place, more than 16 MiB): one warning line, empty records, and :func:`save_records` then
  **refuses** to replace that file (it raises :class:`RecordsError`), because it may hold bests
  that were never loaded. Fix the permissions (or move the file) and the next save works. A
  named pipe is never opened for reading, so it cannot hang the game's start-up.

A ``personal_bests.json`` that is a symbolic link (to a synced folder, say) stays one: saves
write through it to the file it points at (:func:`~engine.storage.atomic_file.write_atomic`).

Warning lines start with ``warning:``; a ``warn`` callback prints them as they are.

Typical use::

    path = default_records_path("my-game")  # the game's name names its folder
    records = load_records(path)
    comparison = records.comparison("all-levels@60Hz")       # for SpeedrunTimer
    ...                                                       # when the run finishes:
    try:
        saved = record_run(path, "all-levels@60Hz", timer.split_names,
                           timer.split_segment_ticks, known=records)
        records = saved.records                               # new_pb, golds: saved.is_new_pb...
    except (RecordsError, OSError) as error:
        print(f"warning: personal bests not saved: {error}", file=sys.stderr)

This module is pure: it imports the standard library, platformdirs and
:mod:`engine.speedrun.timer`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from types import MappingProxyType
from typing import Any

import platformdirs

from engine.speedrun.timer import Comparison
from engine.storage.atomic_file import remove_stale_temps, save_target, write_atomic
from engine.storage.bounded_read import read_regular_file
from engine.storage.file_lock import file_lock, lock_path_for
from engine.storage.unique_name import move_aside

FORMAT_NAME = "platformer-personal-bests"
FORMAT_VERSION = 1
RECORDS_FILE_NAME = "personal_bests.json"

#: The largest records file read (a category takes a few hundred bytes).
MAX_RECORDS_BYTES = 16 << 20

#: Temporary files from an interrupted save older than this are deleted by the next save.
STALE_TEMP_AGE_S = 60.0

Warn = Callable[[str], None]


class RecordsError(ValueError):
    """A records file has the wrong shape, or may not be replaced. The message is one line."""


def _print_warning(message: str) -> None:
    print(message, file=sys.stderr)


def default_records_path(app_name: str) -> Path:
    """``personal_bests.json`` in the user data directory (e.g. ``~/.local/share/<app_name>``)."""
    return platformdirs.user_data_path(app_name) / RECORDS_FILE_NAME


def _utc_now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _check_ticks(ticks: object, where: str) -> int:
    if isinstance(ticks, bool) or not isinstance(ticks, int) or ticks < 0:
        raise RecordsError(f"{where}: expected an integer >= 0, got {ticks!r}")
    return ticks


def _check_text(text: object, where: str) -> str:
    """``text`` if it is a string UTF-8 can encode (no lone surrogate), else RecordsError."""
    if not isinstance(text, str):
        raise RecordsError(f"{where}: expected a string, got {text!r:.60}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise RecordsError(  # the problem first: a long name may be shortened after it
            f"a lone surrogate (\\u{ord(text[error.start]):04x}) in {where}, near "
            f"{text[: error.start + 1][-20:]!r}: it cannot be saved as UTF-8"
        ) from None
    return text


def _check_name(name: object, where: str) -> str:
    if not isinstance(name, str) or not name:
        raise RecordsError(f"{where}: expected a non-empty string, got {name!r:.60}")
    return _check_text(name, where)


def _ticks_by_name(values: object, where: str) -> dict[str, int]:
    if not isinstance(values, Mapping):
        raise RecordsError(f"{where}: expected an object of name -> ticks, got {values!r:.60}")
    return {
        _check_name(name, where): _check_ticks(ticks, f"{where}[{name!r}]")
        for name, ticks in values.items()
    }


@dataclass(frozen=True, slots=True)
class PersonalBest:
    """The fastest complete run of a category.

    Attributes:
        total_ticks: IGT of the whole run, in ticks.
        split_names: The run's splits, in order.
        cumulative_ticks: IGT at the end of each split (same order; the last is ``total_ticks``).
        date: When it was set, ISO 8601 UTC (``2026-11-22T12:00:00Z``).
    """

    total_ticks: int
    split_names: tuple[str, ...]
    cumulative_ticks: tuple[int, ...]
    date: str

    def __post_init__(self) -> None:
        where = "personal_best"
        _check_ticks(self.total_ticks, f"{where}.total_ticks")
        _check_text(self.date, f"{where}.date")
        if not self.split_names or len(self.split_names) != len(self.cumulative_ticks):
            raise RecordsError(f"{where}.splits: expected one cumulative time per split")
        if len(set(self.split_names)) != len(self.split_names):
            raise RecordsError(f"{where}.splits: split names repeat")
        previous = 0
        for name, ticks in zip(self.split_names, self.cumulative_ticks, strict=True):
            _check_name(name, f"{where}.splits")
            _check_ticks(ticks, f"{where}.splits[{name!r}]")
            if ticks < previous:
                raise RecordsError(f"{where}.splits[{name!r}]: cumulative time goes backwards")
            previous = ticks
        if self.cumulative_ticks[-1] != self.total_ticks:
            raise RecordsError(
                f"{where}: total_ticks {self.total_ticks} != last split {self.cumulative_ticks[-1]}"
            )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "total_ticks": self.total_ticks,
            "date": self.date,
            "splits": dict(zip(self.split_names, self.cumulative_ticks, strict=True)),
        }

    @classmethod
    def from_json(cls, data: object) -> PersonalBest:
        """Build from :meth:`to_json` output; raises :class:`RecordsError` on any wrong shape."""
        if not isinstance(data, Mapping):
            raise RecordsError(f"personal_best: expected an object, got {data!r:.60}")
        splits = _ticks_by_name(data.get("splits"), "personal_best.splits")
        return cls(
            total_ticks=data.get("total_ticks"),  # type: ignore[arg-type]  # checked in __post_init__
            split_names=tuple(splits),
            cumulative_ticks=tuple(splits.values()),
            date=data.get("date"),  # type: ignore[arg-type]
        )


@dataclass(frozen=True, slots=True)
class CategoryRecord:
    """Everything kept for one category.

    Attributes:
        personal_best: The fastest complete run, or ``None`` before the first one.
        best_segment_ticks: Split name -> fewest ticks that segment was ever played in.
    """

    personal_best: PersonalBest | None = None
    best_segment_ticks: Mapping[str, int] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        golds = _ticks_by_name(self.best_segment_ticks, "best_segments")
        object.__setattr__(self, "best_segment_ticks", MappingProxyType(golds))

    @property
    def sum_of_best_ticks(self) -> int:
        """Sum of the best segments: the best run the golds make possible."""
        return sum(self.best_segment_ticks.values())

    def comparison(self) -> Comparison:
        """The personal best and golds as a :class:`~engine.speedrun.timer.Comparison`."""
        pb = self.personal_best
        cumulative = (
            {} if pb is None else dict(zip(pb.split_names, pb.cumulative_ticks, strict=True))
        )
        return Comparison(
            pb_cumulative_ticks=cumulative, best_segment_ticks=self.best_segment_ticks
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        pb = None if self.personal_best is None else self.personal_best.to_json()
        return {"personal_best": pb, "best_segments": dict(self.best_segment_ticks)}

    @classmethod
    def from_json(cls, data: object) -> CategoryRecord:
        """Build from :meth:`to_json` output; raises :class:`RecordsError` on any wrong shape."""
        if not isinstance(data, Mapping):
            raise RecordsError(f"category: expected an object, got {data!r:.60}")
        pb_data = data.get("personal_best")
        pb = None if pb_data is None else PersonalBest.from_json(pb_data)
        golds = _ticks_by_name(data.get("best_segments", {}), "best_segments")
        return cls(personal_best=pb, best_segment_ticks=golds)


@dataclass(frozen=True, slots=True)
class Records:
    """All categories' records (what the file holds).

    Attributes:
        categories: Category key -> its record.
    """

    categories: Mapping[str, CategoryRecord] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for key, record in self.categories.items():
            _check_name(key, "categories")
            if not isinstance(record, CategoryRecord):
                raise RecordsError(f"categories[{key!r}]: expected a CategoryRecord")
        object.__setattr__(self, "categories", MappingProxyType(dict(self.categories)))

    def category(self, key: str) -> CategoryRecord:
        """The record of category ``key`` (an empty one if there is none yet)."""
        return self.categories.get(key) or CategoryRecord()

    def comparison(self, key: str) -> Comparison:
        """Category ``key``'s personal best and golds, ready for a SpeedrunTimer."""
        return self.category(key).comparison()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, the whole file."""
        return {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "categories": {key: record.to_json() for key, record in self.categories.items()},
        }

    @classmethod
    def from_json(cls, data: object) -> Records:
        """Build from :meth:`to_json` output; raises :class:`RecordsError` on any wrong shape."""
        if not isinstance(data, Mapping):
            raise RecordsError(f"expected a JSON object at the top, got {type(data).__name__}")
        if data.get("format") != FORMAT_NAME:
            raise RecordsError(f'"format" must be {FORMAT_NAME!r}, got {data.get("format")!r:.60}')
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version != FORMAT_VERSION:
            raise RecordsError(
                f'"version" must be {FORMAT_VERSION}, got {data.get("version")!r:.60}'
            )
        categories = data.get("categories")
        if not isinstance(categories, Mapping):
            raise RecordsError('"categories" must be an object')
        parsed: dict[str, CategoryRecord] = {}
        for key, value in categories.items():
            try:
                parsed[_check_name(key, "categories")] = CategoryRecord.from_json(value)
            except RecordsError as error:
                raise RecordsError(f"categories[{key!r}].{error}") from None
        return cls(parsed)


def update_with_run(
    records: Records,
    category: str,
    split_names: Sequence[str],
    segment_ticks: Sequence[int],
    *,
    completed: bool = True,
    date: str | None = None,
) -> tuple[Records, bool, tuple[str, ...]]:
    """Fold one run into the records.

    Golds are updated segment by segment: every segment faster than its best (or without one)
    becomes the new best. The personal best is replaced only by a *complete* run that is
    strictly faster in total. A run reset before the end (``completed=False``, with the segments
    that were finished) can still set golds.

    Args:
        records: The current records (not modified).
        category: The category key.
        split_names: The segments' names, in run order (unique).
        segment_ticks: Ticks of each segment, same order and length.
        completed: The run reached its last split.
        date: The PB date to store (default: now, UTC).

    Returns:
        ``(new_records, is_new_pb, gold_names)``, ``gold_names`` in run order.
    """
    names = tuple(split_names)
    segments = tuple(segment_ticks)
    if len(names) != len(segments):
        raise ValueError(f"{len(names)} split names but {len(segments)} segment times")
    if len(set(names)) != len(names):
        raise ValueError(f"split names must be unique, got {list(names)}")
    for name, ticks in zip(names, segments, strict=True):
        _check_name(name, "split name")
        _check_ticks(ticks, f"segment {name!r}")
    old = records.category(category)

    golds = dict(old.best_segment_ticks)
    gold_names = []
    for name, ticks in zip(names, segments, strict=True):
        best = golds.get(name)
        if best is None or ticks < best:
            golds[name] = ticks
            gold_names.append(name)

    pb = old.personal_best
    total_ticks = sum(segments)
    is_new_pb = completed and bool(names) and (pb is None or total_ticks < pb.total_ticks)
    if is_new_pb:
        pb = PersonalBest(
            total_ticks=total_ticks,
            split_names=names,
            cumulative_ticks=tuple(accumulate(segments)),
            date=date if date is not None else _utc_now_text(),
        )
    categories = dict(records.categories)
    categories[category] = CategoryRecord(personal_best=pb, best_segment_ticks=golds)
    return Records(categories), is_new_pb, tuple(gold_names)


def merge_records(first: Records, second: Records) -> Records:
    """The best of both: every category of either, each gold the faster, each PB the faster.

    Nothing better is ever dropped: a gold or a personal best in either survives unless the
    other has a strictly faster one (on a tie, ``first``'s is kept). Used to fold what this
    game knew into what another game saved meanwhile (:func:`record_run`).
    """
    categories = dict(first.categories)
    for key, theirs in second.categories.items():
        ours = categories.get(key)
        if ours is None:
            categories[key] = theirs
            continue
        golds = dict(ours.best_segment_ticks)
        for name, ticks in theirs.best_segment_ticks.items():
            if name not in golds or ticks < golds[name]:
                golds[name] = ticks
        pb = ours.personal_best
        if theirs.personal_best is not None and (
            pb is None or theirs.personal_best.total_ticks < pb.total_ticks
        ):
            pb = theirs.personal_best
        categories[key] = CategoryRecord(personal_best=pb, best_segment_ticks=golds)
    return Records(categories)


@dataclass(frozen=True, slots=True)
class SavedRun:
    """What :func:`record_run` saved.

    Attributes:
        records: The records as saved (the file's, this game's and the run's, merged).
        is_new_pb: The run beat every personal best saved before it, by any game.
        gold_names: The run's segments that beat every saved gold, in run order.
    """

    records: Records
    is_new_pb: bool
    gold_names: tuple[str, ...]


def record_run(
    path: Path,
    category: str,
    split_names: Sequence[str],
    segment_ticks: Sequence[int],
    *,
    completed: bool = True,
    known: Records | None = None,
    warn: Warn = _print_warning,
    date: str | None = None,
) -> SavedRun:
    """Fold one run into the records file under the lock; safe with other games saving too.

    Under :func:`~engine.storage.file_lock.file_lock`: read the file as it is now
    (:func:`load_records`: a corrupt one is moved aside with a warning), merge ``known`` (what
    this game loaded or saved before) into it, fold the run in (:func:`update_with_run`) and
    save atomically. Another game doing the same waits for the lock, then sees this save.

    Args:
        path: The records file.
        category, split_names, segment_ticks, completed, date: As :func:`update_with_run`.
        known: Records this game holds; none of their bests is lost even if the file lost
            them meanwhile (moved aside, say).
        warn: Gets the warning line about a corrupt file.

    Raises:
        RecordsError: The file exists but cannot be read (it is not replaced), or the run's
            names cannot be saved.
        OSError: The lock or the save failed (a read-only folder, a full disk, a lock held
            by another process for :data:`~engine.storage.file_lock.DEFAULT_LOCK_TIMEOUT_S`).
    """
    path = Path(path)
    with file_lock(lock_path_for(save_target(path))):
        current = load_records(path, warn=warn)
        if known is not None:
            current = merge_records(current, known)
        records, is_new_pb, golds = update_with_run(
            current, category, split_names, segment_ticks, completed=completed, date=date
        )
        save_records(records, path)
    return SavedRun(records, is_new_pb, golds)


@contextmanager
def holding_personal_best(
    path: Path, category: str, total_ticks: int, warn: Warn = _print_warning
) -> Iterator[bool]:
    """Hold the records lock; yield whether ``category``'s saved PB is still ``total_ticks``.

    For files that belong with the personal best (a ghost of its run): write them inside the
    block, only when it yields True, so a slower game that set a PB a moment before another
    game's faster one never writes its file last.

    Raises:
        OSError: The lock cannot be taken.
    """
    path = Path(path)
    with file_lock(lock_path_for(save_target(path))):
        pb = load_records(path, warn=warn).category(category).personal_best
        yield pb is not None and pb.total_ticks == total_ticks


# -- the file ----------------------------------------------------------------------------------


def _refuse_unreadable_target(path: Path) -> None:
    try:
        read_regular_file(path, MAX_RECORDS_BYTES)
    except FileNotFoundError:
        return
    except OSError as error:
        raise RecordsError(
            f"{path}: exists but cannot be read ({error.strerror or error}); not replacing it, "
            "because it may hold personal bests that were never loaded"
        ) from None


def save_records(records: Records, path: Path) -> None:
    """Write ``records`` to ``path`` atomically (see the module docstring).

    Creates missing parent directories. The file gets mode ``0o666 & ~umask`` like any newly
    created file.

    Raises:
        RecordsError: ``path`` exists but cannot be read (it is left untouched).
        OSError: The directory or the disk refused (the old file is left untouched).
    """
    path = Path(path)
    _refuse_unreadable_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(save_target(path), STALE_TEMP_AGE_S)  # beside the file a link leads to
    data = (json.dumps(records.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    write_atomic(path, data)


def _corrupt_destination(path: Path) -> Path:
    """The first name a corrupt file is moved to (numbered ``-2``... if it is taken)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return path.with_name(f"{path.stem}.corrupt-{stamp}.json")


def load_records(path: Path, warn: Warn = _print_warning) -> Records:
    """Read the records at ``path``; never raises for a missing, unreadable or corrupt file.

    Args:
        path: The records file.
        warn: Receives the one warning line when something is wrong (default: print to stderr).

    Returns:
        The records, or empty records when the file is missing, unreadable or corrupt (a corrupt
        file is moved aside first; see the module docstring).
    """
    path = Path(path)
    try:
        raw = read_regular_file(path, MAX_RECORDS_BYTES)
    except FileNotFoundError:
        return Records()
    except OSError as error:
        warn(
            f"warning: personal bests {path} cannot be read ({error.strerror or error}); "
            "playing without them, and they will not be overwritten"
        )
        return Records()
    try:
        return Records.from_json(json.loads(raw.decode("utf-8")))
    except (ValueError, RecursionError) as error:  # JSON, UTF-8 and RecordsError are ValueErrors
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
    try:
        destination = move_aside(path, _corrupt_destination(path))
    except OSError as error:
        warn(
            f"warning: personal bests {path} are corrupt ({reason:.120}) and could not be moved "
            f"aside ({error.strerror or error}); playing without them"
        )
        return Records()
    warn(
        f"warning: personal bests {path} are corrupt ({reason:.120}); moved to {destination}, "
        "starting with empty records"
    )
    return Records()
