"""The game's screens and how they lead to one another.

A :class:`GameSession` owns the flow of a play session on one engine::

    title ──Play──────────────► level 1 ─► level complete ─► level 2 ─► … ─► final screen
      │                           ▲  │ R (restart) / pause menu: restart, quit to title
      └──Select level─► list ─────┘  └──────────────────────────────────────► title

Every screen is a :class:`~engine.runtime.scene.Scene` shown with ``engine.show``: the menus are
:class:`~engine.runtime.menu.MenuScene` objects and the levels are
the game's :class:`~engine.app.play_scene.PlayScene` objects, each recording its inputs with a
:class:`~engine.app.replay_run.Recorder` (a few microseconds per tick), so any attempt can be saved
as a replay afterwards. After a scene switch the engine is resynchronised, so the time spent
loading a level is not simulated.

The session counts the in-game time of a run the way a speedrun timer does: the level ticks
actually played (restarts included), never menus or pauses. A *run* starts with "Play" on the
title screen; a level picked from "Select level" is practice and ends on its own complete screen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.app.attract import AttractScene
from engine.app.definition import GameDefinition
from engine.app.ghost import Ghost
from engine.app.level_order import bundled_levels, replay_of
from engine.app.level_records import LevelRecords
from engine.app.level_select import LevelEntry, LevelSelectScene
from engine.app.level_timer import level_timer_lines
from engine.app.play_scene import PlayScene
from engine.app.replay_run import Recorder, game_version, settings_hashes
from engine.app.run_file import RunSettings
from engine.app.speedrun import Speedrun
from engine.input.hints import control_hint
from engine.input.replay import ReplayError
from engine.input.snapshot import InputSnapshot
from engine.levels import LevelError, load_level
from engine.rendering.hud_text import HudLine
from engine.runtime.audio import Music, SoundBank
from engine.runtime.menu import LOGO_COLOR, Menu, MenuScene
from engine.runtime.options import OptionsScene
from engine.speedrun.timer import format_igt

__all__ = ["Attempt", "GameSession", "bundled_levels"]

MAX_CREDITS = 14
"""Credit lines that fit on the screen; the file holds the details below them."""
TITLE_SIZE = 36
"""The game's name on the title screen, in points at the internal resolution."""


def credit_lines(path: Path) -> list[str]:
    """The ``- `` lines of a credits file's first section, without the dash."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ["(the credits file is missing)"]
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            break  # the details are for reading, not for the screen
        if line.startswith("- "):
            lines.append(line[2:].strip())
    return lines[:MAX_CREDITS]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One play of one level, from its start to completion, restart or quitting.

    Attributes:
        level_index: Which level (index into the session's level list).
        ticks: Level ticks played.
        outcome: ``"complete"``, ``"restart"`` or ``"quit"``.
        recorder: The attempt's recorded inputs and state hashes.
    """

    level_index: int
    ticks: int
    outcome: str
    recorder: Recorder


class GameSession:
    """Title screen, level select, levels, pause, level complete and the final screen.

    Args:
        engine: The engine to show the screens on.
        definition: The game's definition (its scenes, its files, its music).
        level_paths: The levels of a run, in order.
        sounds: Sound effects (the definition's ``sound_files``).
        music: The music player: the definition's ``title_music`` on menus, ``level_music``
            in levels.
        speedrun: The speedrun timer and records (:mod:`engine.app.speedrun`), when enabled.
        level_records: Where each level's best time and coins are kept
            (:mod:`engine.app.level_records`); default: for this session only.

    Attributes:
        attempts: Every finished attempt of the current run (or practice level), in order.
        in_run: A run started from "Play" is in progress.
        run_completed: The last level of a run was completed.
        current: The level scene being played, or None on a menu.
    """

    def __init__(
        self,
        engine: Any,
        definition: GameDefinition,
        level_paths: Sequence[Path],
        *,
        sounds: SoundBank | None = None,
        music: Music | None = None,
        speedrun: Speedrun | None = None,
        level_records: LevelRecords | None = None,
    ) -> None:
        if not level_paths:
            raise ValueError("a session needs at least one level")
        self.engine = engine
        self.definition = definition
        self.level_paths = list(level_paths)
        self.sounds = sounds
        self.music = music
        for follower in (sounds, music):
            if follower is not None:  # the options screen changes volumes at once
                engine.config_listeners.append(lambda config, f=follower: f.apply(config.audio))
        self.levels = [
            load_level(path, definition.kinds, definition.conventions) for path in self.level_paths
        ]
        self.level_names = [level.name for level in self.levels]
        #: The player's best time and coins per level (the level select shows them).
        self.level_records = level_records if level_records is not None else LevelRecords(None)
        self.attempts: list[Attempt] = []
        self.in_run = False
        self.run_completed = False
        self.current: PlayScene | None = None
        self.level_index = 0
        self.speedrun = speedrun
        self._completed: PlayScene | None = None
        self.quit_requested = False
        self._timer_start_ns = 0  # when the run or practice level started (the REAL line)
        self._restarting = False  # the next level shown is a restart (no fade)
        #: Makes the tape of each new attempt (see :meth:`new_tape`); None records live input.
        self.tape_for: Callable[[int], Recorder] | None = None
        #: The bundled replays playing behind the title and its menus (attract mode).
        self.attract = AttractScene(
            [replay_of(path) for path in self.level_paths if replay_of(path).is_file()],
            self.level_paths[0].parent,
            definition.make_scene,
        )
        engine.global_input = self._global_input

    # -- the run's numbers ------------------------------------------------------------------------
    @property
    def run_ticks(self) -> int:
        """Level ticks played in this run or practice: finished attempts plus the current one."""
        current = self.current.sim.ticks if self.current is not None else 0
        return sum(attempt.ticks for attempt in self.attempts) + current

    def igt_text(self) -> str:
        """The run's in-game time as ``m:ss.mmm``, exact (ticks × tick period)."""
        return format_igt(self.engine.tick_rate, self.run_ticks)

    # -- screens ------------------------------------------------------------------------------
    def show_title(self) -> None:
        """The title screen: play a run, select a level, or quit."""
        self._leave_level("quit")
        if self.speedrun is not None and self.in_run and not self.run_completed:
            self.speedrun.reset()  # an abandoned run
        self.in_run = False
        menu = Menu.of(
            ("play", "Play"),
            ("select", "Select level"),
            ("options", "Options"),
            ("credits", "Credits"),
            ("quit", "Quit"),
        )
        title = MenuScene(
            self.engine.config.video.title,
            (self.control_hint(),),
            menu,
            self._on_title_choice,
            backdrop=self.attract,
            lines_for=lambda: (self.control_hint(),),
        )
        title.panel.title_size = TITLE_SIZE
        title.panel.logo = True
        self._show(title)

    def control_hint(self) -> str:
        """How to play with the bindings in force, on the device last used
        (:mod:`engine.input.hints`)."""
        config = self.engine.config
        device = getattr(self.engine, "input_device", "keyboard")
        return control_hint(config.input, config.gamepad, device)

    def _on_title_choice(self, key: str) -> None:
        if key == "play":
            self.start_run()
        elif key == "select":
            self.show_level_select()
        elif key == "options":
            self.show_options(self.show_title)
        elif key == "credits":
            self.show_credits()
        else:
            self.quit()

    def show_credits(self) -> None:
        """Who made what: the ``- `` lines of :data:`CREDITS_FILE`; any choice goes back."""
        lines = credit_lines(Path(self.definition.files.asset_path(self.definition.credits_file)))
        menu = Menu.of(("back", "Back"))
        self._show(
            MenuScene(
                "Credits",
                lines,
                menu,
                lambda _key: self.show_title(),
                on_back=self.show_title,
                backdrop=self.attract,
            )
        )

    def show_options(self, back: Callable[[], None]) -> None:
        """The engine's options screen; ``back`` shows the screen it was opened from."""
        options = OptionsScene(self.engine, on_back=back)
        if self.current is None:  # from the title: the attract mode plays on behind
            options.backdrop = self.attract
            options.panel.dim_background = True
        self._show(options)

    def _options_from_pause(self) -> None:
        level = self.current
        assert level is not None
        self.show_options(lambda: self._show(level))

    def show_level_select(self) -> None:
        """Pick any level to practise, with records and previews (:mod:`engine.app.level_select`);
        ``pause`` goes back to the title."""
        entries = []
        for path, level in zip(self.level_paths, self.levels, strict=True):
            record = self.level_records.get(self._record_key(path))
            entries.append(
                LevelEntry(
                    level,
                    record.best_ticks if record else None,
                    record.coins if record else 0,
                    self._par_ticks(level),
                )
            )
        self._show(
            LevelSelectScene(
                entries,
                self.engine.tick_rate,
                self.start_level,
                self.show_title,
                backdrop=self.attract,
            )
        )

    def _record_key(self, path: Path) -> str:
        """The level's key in the level records: its file, the tick rate, other settings."""
        settings = RunSettings.from_config(self.engine.config, self.definition.config_sections)
        tag = "" if settings.same_simulation_as_defaults() else f"#settings-{settings.hash[:8]}"
        return LevelRecords.key(path.name, self.engine.tick_rate, tag)

    def _par_ticks(self, level: Any) -> int | None:
        """The level's ``par_time_s`` map property in ticks (None without a usable one)."""
        par_s = level.properties.get("par_time_s")
        if isinstance(par_s, bool) or not isinstance(par_s, int | float) or not par_s > 0:
            return None
        ticks: int = math.ceil(float(par_s) * float(self.engine.tick_rate.rate_hz))
        return ticks

    def start_run(self) -> None:
        """Start a run at level 1."""
        self.current = None  # a reset abandons the level being played
        self.attempts = []
        self.in_run = True
        self.run_completed = False
        self._timer_start_ns = self.engine.clock.now_ns()
        if self.speedrun is not None:
            self.speedrun.start()
        self.start_level(0, practice=False)

    def start_level(self, index: int, *, practice: bool = True) -> None:
        """Play level ``index`` (from the start)."""
        self._leave_level("quit")
        if practice:
            if self.in_run and self.speedrun is not None and not self.run_completed:
                self.speedrun.reset()  # playing a level again abandons the run
            self.in_run = False
            self.attempts = []
            self._timer_start_ns = self.engine.clock.now_ns()
        self.level_index = index
        scene = self.definition.make_scene(
            self.engine,
            self.level_paths[index],
            on_complete=self._mark_complete,
            on_restart=self.restart_level,
            on_quit=self.show_title,
            on_options=self._options_from_pause,
            sounds=self.sounds,
            hud_extra=self.hud_lines,
        )
        scene.tape = self.new_tape(index)
        scene.ghost = self.ghost_for(index, scene)
        if (
            self.speedrun is not None and self.in_run
        ):  # practice marks the run (engine.app.practice)
            scene.practice.on_used = self.speedrun.mark_practice
        self.current = scene
        self._show(scene)

    def new_tape(self, index: int) -> Recorder:
        """The tape of a new attempt at level ``index``: :attr:`tape_for`'s, or a recorder.

        A recorder records the live input; a watched run (:mod:`engine.app.watch`) gives tapes that
        play its attempts back and record them the same way.
        """
        if self.tape_for is not None:
            return self.tape_for(index)
        return Recorder(
            self.engine.actions,
            self.level_paths[index],
            self.engine.tick_rate.rate_hz,
            settings_hashes(self.engine.config, self.definition.config_sections),
            game_version(self.definition.app_name),
        )

    def ghost_for(self, index: int, scene: PlayScene) -> Ghost | None:
        """The personal best's ghost on level ``index`` (``[speedrun] ghost``), or None."""
        speedrun = self.speedrun
        if speedrun is None or not self.engine.config.speedrun.ghost:
            return None
        replay = speedrun.ghost_replay(self.level_paths[index])
        if replay is None:
            return None
        try:
            return Ghost(
                self.definition, scene.level_path, replay, speedrun.settings, self.engine.actions
            )
        except (ReplayError, LevelError):
            return None  # e.g. recorded by a build with other actions: no ghost, never a crash

    def next_level(self) -> None:
        """Go on to the run's next level (``Next level`` on the level complete screen)."""
        self.start_level(self.level_index + 1, practice=False)

    def restart_level(self) -> None:
        """Restart the current level at once (the ``restart`` key).

        Practice carries over (:mod:`engine.app.practice`): a position saved in the attempt
        before can be loaded in the new one, and slow motion stays as it was.
        """
        practice = self.current.practice if self.current is not None else None
        self._leave_level("restart")
        self._restarting = True
        self.start_level(self.level_index, practice=False)
        if practice is not None and practice.used and self.current is not None:
            self.current.practice = practice

    def _mark_complete(self) -> None:
        """Called inside the completing tick; the screen changes before the next tick.

        Waiting lets the tick finish first (a taped scene records the completing tick after
        the level's rules have run).
        """
        self._completed = self.current

    def _on_level_complete(self) -> None:
        """Show the level complete (or final) screen for the level just completed."""
        scene = self.current
        self._completed = None
        assert scene is not None
        coins = f"{scene.coins_collected} / {len(scene.level.coins)}"
        level_time = format_igt(self.engine.tick_rate, scene.sim.ticks)
        final_hash = scene.state_hash()
        self._leave_level("complete")
        split = None
        if self.in_run and self.speedrun is not None:
            split = self.speedrun.split(self.run_ticks)
        new_best = False
        if self.tape_for is None:  # a watched run (engine.app.watch) is someone else's
            key = self._record_key(self.level_paths[self.level_index])
            before = self.level_records.get(key)
            self.level_records.record(key, scene.sim.ticks, scene.coins_collected)
            new_best = before is not None and scene.sim.ticks < before.best_ticks
        scene.play_sounds()  # the completion sound, unless a frame already played it
        last = self.level_index + 1 >= len(self.level_paths)
        if self.in_run and last:
            self.run_completed = True
            self.show_final(final_hash)
            return
        lines = [self.level_names[self.level_index], f"time {level_time}"]
        par_s = scene.sim.par_time_s
        if par_s is not None:
            par_ticks = math.ceil(par_s * self.engine.tick_rate.rate_hz)
            verdict = "under par!" if scene.sim.ticks <= par_ticks else "over par"
            lines[-1] += f"   par {format_igt(self.engine.tick_rate, par_ticks)}   {verdict}"
        lines.append(f"coins {coins}")
        if self.speedrun is not None:
            lines += self.speedrun.split_lines(split)
        shown: list[HudLine] = list(lines)
        if new_best:
            shown.insert(3, ("new best time!", LOGO_COLOR))
        items = [("title", "Title screen")]
        if self.in_run and not last:
            items.insert(0, ("next", "Next level"))
        items.insert(1 if self.in_run and not last else 0, ("retry", "Play again"))
        self._show(MenuScene("Level complete!", shown, Menu.of(*items), self._on_complete_choice))

    def _on_complete_choice(self, key: str) -> None:
        if key == "next":
            self.next_level()
        elif key == "retry":
            self.start_level(self.level_index)
        else:
            self.show_title()

    def show_final(self, final_hash: str) -> None:
        """The end of a run: total in-game time and attempts (and the speedrun's results).

        Args:
            final_hash: The state hash after the run's last tick (for the run file).
        """
        lines = [
            f"in-game time {self.igt_text()}",
            f"levels {len(self.level_paths)}, attempts {len(self.attempts)}",
        ]
        if self.speedrun is not None:
            attempts = [
                (self.level_paths[a.level_index].name, a.outcome, a.recorder.to_replay())
                for a in self.attempts
            ]
            lines += self.speedrun.finish(attempts, final_hash)
        menu = Menu.of(("title", "Title screen"))
        self._show(
            MenuScene("You made it!", lines, menu, lambda _key: self.show_title(), on_back=None)
        )

    def quit(self) -> None:
        """Stop the engine's loop; the caller closes the window after the loop has returned.

        (Closing it here, inside a tick, would leave the rest of the frame drawing into a
        window without a GL context.)
        """
        self.quit_requested = True
        self.engine.close()

    def hud_lines(self) -> list[HudLine]:
        """Extra HUD lines for the level scene: the speedrun timer during a run, else the
        normal-play timer when the Timer option is on (:mod:`engine.app.level_timer`)."""
        if self.speedrun is not None and self.in_run:
            return self.speedrun.hud_lines(self.run_ticks)
        timer = self.engine.config.speedrun
        scene = self.current
        if not timer.show_timer or scene is None:
            return []
        par_s = scene.sim.par_time_s
        par_ticks = None if par_s is None else math.ceil(par_s * self.engine.tick_rate.rate_hz)
        real_ns = self.engine.clock.now_ns() - self._timer_start_ns if timer.show_rta else None
        return level_timer_lines(
            self.engine.tick_rate, self.run_ticks, scene.sim.ticks, par_ticks, real_ns
        )

    def _global_input(self, tick: int, snapshot: InputSnapshot) -> bool:
        """Before each tick: finish a completed level; ``reset_run`` works on every screen.

        Returns True (the tick's input is used up) when it changed the screen, so a jump
        mashed through the exit does not also choose on the level complete screen.
        """
        switched = False
        if self._completed is not None and self._completed is self.current:
            self._on_level_complete()
            switched = True
        wants_reset = "reset_run" in snapshot.action_map and snapshot.was_pressed("reset_run")
        if wants_reset and self.in_run:
            if self.speedrun is not None:
                self.speedrun.reset()
            self.start_run()
            switched = True
        return switched

    # -- helpers ------------------------------------------------------------------------------
    def _leave_level(self, outcome: str) -> None:
        """Close the current level's attempt, if a level is being played."""
        scene = self.current
        if scene is None:
            return
        assert isinstance(scene.tape, Recorder)
        self.attempts.append(Attempt(self.level_index, scene.sim.ticks, outcome, scene.tape))
        self.current = None

    def _show(self, scene: Any) -> None:
        if self.music is not None:
            music = (
                self.definition.level_music
                if isinstance(scene, PlayScene)
                else self.definition.title_music
            )
            if music:
                self.music.play(self.definition.files.asset_path(music))
        self.engine.show(scene)
        fade_in = getattr(self.engine, "fade_in", None)
        restart = isinstance(scene, PlayScene) and self._restarting
        if fade_in is not None and not restart:  # a short fade from black on a screen change
            fade_in()  # (engine.rendering.transition); a restart is not one: it shows at once
        self._restarting = False
        self.engine.resync()
