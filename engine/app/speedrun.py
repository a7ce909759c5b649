"""Speedrun mode in the game: the timer on screen, splits, personal bests, run files, LiveSplit.

Turned on by ``[speedrun] enabled = true`` in ``config.toml`` (or ``--speedrun``), which also
makes the engine use the ``strict`` timing mode (game time within one tick of real time). The
:class:`~engine.app.session.GameSession` tells a :class:`Speedrun` when a run starts (Play on the
title screen), when a level is completed (a split), when the run ends (the final screen) and
when the runner resets (``reset_run``, Backspace, from anywhere). Everything else is derived:

* **IGT** is the run's level ticks × the tick period (:mod:`engine.speedrun.timer`): menus,
  pauses and level loads run no level tick, so they are not in it.
* **RTA** is the monotonic clock since Play, everything included.
* **Validity**: strict mode active, the vsync verdict, and the time the hitch guard dropped
  during the run (:attr:`~engine.timing.FramePacer.hitch_dropped_ns`; level-load resyncs do not
  count). It is on screen all the time.
* **Personal bests and golds** per category (the levels and the tick rate; non-default
  ``[player]`` or ``[physics]`` settings make a category of their own) are kept in
  ``personal_bests.json`` in the user data directory (:mod:`engine.speedrun.personal_best`: atomic
  saves, a corrupt file is moved aside with one warning, and a finished run is merged into the
  file under a lock, so two games finishing at once lose nothing and "New personal best!" is
  said only of a run that beat every saved one). Only **valid** runs (strict timing,
  no dropped time) set them; an invalid run, or a level played for practice, shows its times
  marked as such and saves nothing.
* **Run files**: each finished run is exported to ``runs/`` next to it
  (:mod:`engine.app.run_file`: its attempts chained under a random run id, its settings recorded),
  ready for ``python -m <game> --verify-run FILE``, under a name no other file has (a second run
  saved in the same second gets ``-2``). The run file is the run's only proof, so it
  is never dropped: when ``runs/`` cannot be written (read-only, a full disk, a file in its
  place) it goes to the next place that can take it (the data directory itself, then the
  temporary directory) and a warning line says where.
* **LiveSplit** (``[speedrun.livesplit]``): start, game time, splits and reset are sent to
  LiveSplit Server from a background thread (:mod:`engine.speedrun.livesplit`), so the game never waits.
"""

from __future__ import annotations

import secrets
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.app.definition import GameDefinition
from engine.app.ghost import ghost_path, ghost_replays
from engine.app.replay_run import game_version as installed_version
from engine.app.run_file import RunRecord, RunSettings, SplitRecord, run_json, sealed_run
from engine.app.speedrun_hud import GOLD_COLOR, SplitDelta, split_delta, status_line
from engine.input.replay import Replay
from engine.rendering.frame_stats import vsync_name
from engine.rendering.hud_text import HudLine
from engine.speedrun.livesplit import LiveSplitClient
from engine.speedrun.livesplit import from_config as livesplit_from_config
from engine.speedrun.personal_best import (
    Records,
    SavedRun,
    default_records_path,
    holding_personal_best,
    load_records,
    record_run,
)
from engine.speedrun.timer import SpeedrunTimer, SplitResult, StrictStatus, format_time_ms
from engine.storage.atomic_file import write_atomic, write_atomic_first
from engine.timing import TimingMode

__all__ = ["GAME_TIME_PUSH_TICKS", "Speedrun"]

GAME_TIME_PUSH_TICKS = 6
"""Send LiveSplit the game time every this many level ticks (10 times a second at 60 Hz)."""


def _print_line(message: str) -> None:
    """Print a warning line as it is (every warning starts with ``warning:`` already)."""
    print(message, file=sys.stderr)


class Speedrun:
    """The speedrun timer, splits, records and LiveSplit link of one game session.

    Args:
        engine: The engine (its pacer, tick rate, clock and config).
        definition: The game's definition (its name, its sections, its world for the ghost).
        level_files: The run's level file names, in order (the split keys).
        level_names: The levels' display names.
        game_version: Written into run files (default: the installed game's version).
        data_dir: Where ``personal_bests.json`` and ``runs/`` live (default: the user data
            directory of the game's ``app_name``, e.g. ``~/.local/share/<app_name>``
            on Linux).
        livesplit: A LiveSplit client (default: from ``[speedrun.livesplit]``).
        clock_ns: The monotonic clock for RTA (default: the engine's clock, which is the
            virtual display's clock in headless runs, so RTA and IGT agree there).
        warn: Where one-line warnings go (each starts with ``warning:``).
        settings: The settings the run is played with (default: from the engine's config).
        fallback_dirs: Where a run file goes when ``data_dir/runs`` cannot take it, in order
            (default: ``data_dir``, the user data directory, the temporary directory).
        watched: Given when a run file is played back (``--watch``, :mod:`engine.app.watch`): the
            status the file recorded (strict mode, vsync, dropped time), shown instead of the
            playback's own. The timer, splits, deltas against the personal best and LiveSplit
            work as in a run, but nothing is saved (no records, no golds, no run file): the
            run is someone's, not the viewer's.

    Attributes:
        timer: The current run's timer, or None between runs.
        run_id: The current (or last) run's id, drawn at random when it starts.
        last_split: The latest split of the current run (shown on the HUD and screens).
        last_run_file: Where the latest finished run was exported.
    """

    def __init__(
        self,
        engine: Any,
        definition: GameDefinition,
        level_files: Sequence[str],
        level_names: Sequence[str],
        *,
        game_version: str | None = None,
        data_dir: Path | None = None,
        livesplit: LiveSplitClient | None = None,
        clock_ns: Callable[[], int] | None = None,
        warn: Callable[[str], None] = _print_line,
        settings: RunSettings | None = None,
        fallback_dirs: Sequence[Path] | None = None,
        watched: StrictStatus | None = None,
    ) -> None:
        self.engine = engine
        self.level_files = tuple(level_files)
        self.level_names = tuple(level_names)
        self.definition = definition
        self.game_version = game_version or installed_version(definition.app_name)
        user_dir = default_records_path(definition.app_name).parent
        self.data_dir = data_dir if data_dir is not None else user_dir
        self.records_path = self.data_dir / "personal_bests.json"
        self.records: Records = load_records(self.records_path, warn=warn)
        self.livesplit = (
            livesplit
            if livesplit is not None
            else livesplit_from_config(
                engine.config.speedrun.livesplit, warn=warn, info=_print_line
            )
        )
        self.clock_ns = clock_ns if clock_ns is not None else engine.clock.now_ns
        self.warn = warn
        self.settings = (
            settings
            if settings is not None
            else RunSettings.from_config(engine.config, definition.config_sections)
        )
        self.fallback_dirs = tuple(
            fallback_dirs
            if fallback_dirs is not None
            else (self.data_dir, user_dir, Path(tempfile.gettempdir()))
        )
        self.watched = watched
        #: Practice was used in this run (:mod:`engine.app.practice`): no records from it.
        self.practice = False
        self.run_id = ""
        self.timer: SpeedrunTimer | None = None
        self.last_split: SplitResult | None = None
        self.last_run_file: Path | None = None
        self._hitch_base_ns = 0
        self._pushed_ticks = -GAME_TIME_PUSH_TICKS
        self._ghosts: dict[str, Replay] | None = None

    @property
    def category(self) -> str:
        """The records category: the level set, the tick rate, and other settings if any.

        Runs with non-default ``[player]`` or ``[physics]`` settings play another game, so
        they get a category of their own (suffixed with the settings hash).
        """
        category = f"{'+'.join(self.level_files)}@{self.engine.tick_rate}"
        if not self.settings.same_simulation_as_defaults():
            category += f"#settings-{self.settings.hash[:8]}"
        return category

    # -- the run --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start a run's timer (Play on the title screen)."""
        self.timer = SpeedrunTimer(
            self.engine.tick_rate, self.level_files, self.records.comparison(self.category)
        )
        self.timer.start(self.clock_ns())
        self.practice = False
        self.run_id = secrets.token_hex(16)
        self.last_split = None
        self._hitch_base_ns = self.engine.pacer.hitch_dropped_ns
        stats = getattr(self.engine, "stats", None)
        if stats is not None:  # F3's dropped time counts from the run's start too
            stats.mark_dropped()
        self._pushed_ticks = -GAME_TIME_PUSH_TICKS
        if self.livesplit is not None:
            self.livesplit.reset()  # LiveSplit ignores starttimer while a finished run shows
            self.livesplit.start_timer()

    def sync(self, run_ticks: int) -> None:
        """Bring the timer up to ``run_ticks`` level ticks and the hitch drops so far."""
        timer = self.timer
        if timer is None or not timer.running:
            return
        timer.add_ticks(run_ticks - timer.igt_ticks)
        hitch_ns = self.engine.pacer.hitch_dropped_ns - self._hitch_base_ns
        if hitch_ns > timer.dropped_ns and not self.watching:
            timer.record_dropped_ns(hitch_ns - timer.dropped_ns)
        if self.livesplit is not None and run_ticks - self._pushed_ticks >= GAME_TIME_PUSH_TICKS:
            self.livesplit.set_game_time_ms(timer.igt_ms)
            self._pushed_ticks = run_ticks

    def split(self, run_ticks: int) -> SplitResult | None:
        """Split at a level exit; None when no run is timed."""
        self.sync(run_ticks)
        if self.timer is None or not self.timer.running:
            return None
        result = self.timer.split(self.clock_ns())
        self.last_split = result
        if self.livesplit is not None:
            self.livesplit.split(result.cumulative_ms)
        return result

    def finish(self, attempts: Sequence[tuple[str, str, Replay]], final_hash: str) -> list[str]:
        """The run is over: save records and the run file; return lines for the final screen.

        Records are saved for a valid run only (strict mode, no dropped time); an invalid
        run's lines say why it does not count. The run file is written either way.

        Args:
            attempts: ``(level file, outcome, replay)`` of every attempt, in order.
            final_hash: The state hash after the run's last tick.
        """
        timer = self.timer
        if timer is None or not timer.finished:
            return []
        lines = []
        status = self.status()
        if self.watching:
            return ["watched run: no records or run file saved"]
        is_pb = False
        if self.practice:
            lines.append("practice run: no records saved")
        elif status.valid:
            saved = self._record_run(self.level_files, timer.split_segment_ticks, completed=True)
            is_pb = saved is not None and saved.is_new_pb
            if saved is None:
                lines.append("personal best and golds NOT saved (see the warning)")
            elif is_pb:
                lines.append("New personal best!")
            if saved is not None and saved.gold_names:
                lines.append(f"gold splits: {len(saved.gold_names)}")
        else:
            lines.append(f"invalid run ({self._invalid_reason(status)}): no records saved")
        now_ns = self.clock_ns()
        run = RunRecord(
            game_version=self.game_version,
            run_id=self.run_id,
            settings=self.settings,
            timing_mode=self.engine.pacer.mode.value,
            vsync=status.vsync,
            strict_valid=status.valid,
            hitch_dropped_ns=timer.dropped_ns,
            igt_ticks=timer.igt_ticks,
            igt=timer.igt_text,
            rta_ms=timer.rta_ms(now_ns),
            final_hash="",  # sealed_run: the last sealed hash
            splits=tuple(
                SplitRecord(
                    self.level_files[s.index],
                    self.level_names[s.index],
                    s.segment_ticks,
                    s.cumulative_ticks,
                    s.time_text,
                    s.rta_ns // 1_000_000,
                )
                for s in timer.splits
            ),
            attempts=(),
            practice=self.practice,
        )
        run = sealed_run(run, attempts)
        lines.append(self._export(run, timer.igt_ticks))
        if is_pb:
            self._save_ghost(run)
        return lines

    # -- the ghost --------------------------------------------------------------------------------
    @property
    def ghost_file(self) -> Path:
        """The category's ghost file: the personal best's run (:mod:`engine.app.ghost`)."""
        return ghost_path(self.data_dir, self.category)

    def ghost_replay(self, level_path: Path) -> Replay | None:
        """The personal best's completing attempt at ``level_path``, or None (no ghost)."""
        if self._ghosts is None:
            self._ghosts = ghost_replays(
                self.ghost_file,
                level_path.parent,
                self.settings,
                self.definition.config_sections,
                self.engine.actions,
            )
        return self._ghosts.get(level_path.name)

    def _save_ghost(self, run: RunRecord) -> None:
        """Keep a new personal best's run as the ghost file (a warning if it cannot be)."""
        path = self.ghost_file
        try:  # under the records lock: a game whose PB was beaten meanwhile writes no ghost
            with holding_personal_best(
                self.records_path, self.category, run.igt_ticks, self.warn
            ) as pb:
                if pb:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_atomic(path, run_json(run))
        except OSError as exc:
            self.warn(f"warning: the ghost file {path} not saved: {exc.strerror or exc}")
        self._ghosts = None  # read again for the next level

    def _export(self, run: RunRecord, igt_ticks: int) -> str:
        """Save the run file in ``runs/``, or the first fallback place; the line saying where."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        name = f"run-{stamp}-{igt_ticks}.json"
        usual = self.data_dir / "runs" / name
        places = [usual, *(folder / name for folder in self.fallback_dirs)]
        candidates = [path for index, path in enumerate(places) if path not in places[:index]]
        try:
            saved, failures = write_atomic_first(candidates, run_json(run), new_name=True)
        except OSError as exc:
            self.warn(f"warning: the run file {name} {exc.strerror or exc}")
            return "run file NOT saved (see the warning)"
        if failures:
            first, error = failures[0]
            self.warn(
                f"warning: cannot write the run file to {first} ({error.strerror or error}); "
                f"saved it to {saved} instead"
            )
        self.last_run_file = saved
        return f"run file: {saved}"

    def mark_practice(self) -> None:
        """Practice was used in this run (:mod:`engine.app.practice`): it saves no records."""
        self.practice = True

    def reset(self) -> None:
        """Reset the run (``reset_run``): golds of finished segments are kept, LiveSplit resets.

        Golds come from valid runs only: a run with dropped time keeps nothing.
        """
        timer = self.timer
        finished_some = timer is not None and bool(timer.splits) and not timer.finished
        valid = self.status().valid and not self.practice
        if timer is not None and finished_some and not self.watching and valid:
            self._record_run(
                self.level_files[: len(timer.splits)], timer.split_segment_ticks, completed=False
            )
        self.timer = None
        self.last_split = None
        if self.livesplit is not None:
            self.livesplit.reset()

    def close(self) -> None:
        """Stop the LiveSplit thread."""
        if self.livesplit is not None:
            self.livesplit.close()

    # -- display ----------------------------------------------------------------------------------
    @property
    def watching(self) -> bool:
        """A run file is being played back (see the ``watched`` argument)."""
        return self.watched is not None

    def status(self) -> StrictStatus:
        """The run's validity right now (strict mode, vsync verdict, hitch drops).

        While watching, the watched run's recorded status.
        """
        if self.watched is not None:
            return self.watched
        strict = self.engine.pacer.mode is TimingMode.STRICT
        vsync = self.engine.loop.frame_time.vsync
        dropped_ns = self.timer.dropped_ns if self.timer is not None else 0
        return StrictStatus.from_verdict(strict, vsync, dropped_ns)

    def hud_lines(self, run_ticks: int) -> list[HudLine]:
        """The timer lines: IGT, RTA (if shown), validity, and the latest split's delta.

        What they say and their colours: :mod:`engine.app.speedrun_hud`.
        """
        speedrun = self.engine.config.speedrun
        if self.timer is None or not speedrun.show_timer:
            return []
        self.sync(run_ticks)
        timer = self.timer
        lines: list[HudLine] = [f"IGT {timer.igt_text}"]
        if speedrun.show_rta:
            lines.append(f"RTA {timer.rta_text(self.clock_ns())}")
        status = self.status()
        verdict = self.engine.loop.frame_time.vsync
        vsync = vsync_name(verdict) if self.watched is None else status.vsync
        lines.append(status_line(status, "detecting" if vsync == "unknown" else vsync))
        split = self.last_split
        if split is not None:
            delta = self.delta(split)
            gold = self._gold(split)
            text = f"{self.level_names[split.index]} {split.time_text} {delta.text}{gold}"
            lines.append((text.rstrip(), GOLD_COLOR if gold else delta.color))
        return lines

    def delta(self, split: SplitResult) -> SplitDelta:
        """The split's delta: against the personal best, else the sum of best segments."""
        assert self.timer is not None
        return split_delta(
            split, self.timer.split_names, self.timer.comparison, self.engine.tick_rate
        )

    def split_lines(self, split: SplitResult | None) -> list[str]:
        """Lines for the level complete screen: the split, or a practice level's mark.

        Args:
            split: The split of a run's level, or None for a level played for practice
                (from "Select level"), which the timer does not time.
        """
        if split is None:
            return ["practice: not a run, no splits or records"]
        delta = self.delta(split) if self.timer is not None else None
        shown = f"  ({delta.text})" if delta is not None and delta.delta_ms is not None else ""
        status = self.status()
        invalid = "" if status.valid else f"  (invalid run: {self._invalid_reason(status)})"
        return [f"split {split.time_text}{shown}{self._gold(split)}{invalid}"]

    def _gold(self, split: SplitResult) -> str:
        """``"  gold!"`` for a gold split of a valid run (an invalid run sets no golds)."""
        return "  gold!" if split.is_gold and self.status().valid and not self.practice else ""

    @staticmethod
    def _invalid_reason(status: StrictStatus) -> str:
        if not status.strict:
            return "not timed in strict mode"
        return f"{format_time_ms(-(-status.dropped_ns // 1_000_000))} dropped"

    def _record_run(
        self, names: Sequence[str], segment_ticks: Sequence[int], *, completed: bool
    ) -> SavedRun | None:
        """Fold the run into the records file under its lock (other games may save too).

        Returns what was saved, or None (after a warning) when nothing could be.
        """
        try:
            saved = record_run(
                self.records_path,
                self.category,
                names,
                segment_ticks,
                completed=completed,
                known=self.records,
                warn=self.warn,
            )
        except (OSError, ValueError) as exc:
            self.warn(f"warning: personal bests not saved to {self.records_path}: {exc}")
            return None
        self.records = saved.records
        return saved
