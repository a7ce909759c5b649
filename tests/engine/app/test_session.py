"""The game's screens: title, level select, pause, restart, level complete and final screen.

Each test runs a real :class:`~engine.app.session.GameSession` on the engine with the shared hidden
window and presses actions through the engine's input sampler, the path key and gamepad
events take.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.app.session import GameSession, bundled_levels
from engine.config import load_config
from engine.runtime.audio import SoundBank
from engine.runtime.menu import MenuScene
from engine.speedrun.timer import format_time_ms
from tests.engine.app.sample_game import GAME

ROOT = Path(__file__).resolve().parents[3]
LEVELS = bundled_levels(ROOT / "levels")

pytestmark = pytest.mark.gl


@pytest.fixture
def session(gl_window: Any) -> Iterator[GameSession]:
    from engine.runtime.engine import Engine

    engine = Engine(gl_window, load_config(None), headless=True, probe_frames=0)
    sounds = SoundBank(GAME.sound_files, {})  # silent, but counts what the game asked to play
    game = GameSession(engine, GAME, LEVELS, sounds=sounds)
    game.show_title()
    yield game
    engine.close()


def frames(session: GameSession, count: int = 1) -> None:
    for _ in range(count):
        session.engine.run_frame()


def tap(session: GameSession, action: str) -> None:
    """Press and release ``action`` between frames; run frames until a tick has seen it.

    (A frame right after a scene switch runs no tick: the engine resyncs after loading.)
    """
    engine = session.engine
    engine.sampler.press(action)
    engine.sampler.release(action)
    ticks = engine.pacer.ticks
    while engine.pacer.ticks == ticks and not engine.closed:
        engine.run_frame()


def reach_exit(session: GameSession) -> None:
    """Put the player on the exit and run a frame: the level completes."""
    scene = session.current
    assert scene is not None
    exit_rect = scene.level.exits[0].rect
    scene.sim.teleport_player(exit_rect.center_px[0], exit_rect.bottom_px)
    while session.current is scene:
        frames(session)


def menu_title(session: GameSession) -> str:
    scene = session.engine.scene
    assert isinstance(scene, MenuScene), scene
    return scene.panel.title


def test_the_bundled_levels_are_found_in_order() -> None:
    assert [p.name for p in LEVELS] == [f"level{n}.json" for n in range(1, 7)]


def test_play_on_the_title_screen_starts_a_run_at_level_1(session: GameSession) -> None:
    frames(session)
    assert menu_title(session) == "Platformer"
    tap(session, "jump")
    assert session.in_run and session.current is not None
    assert session.engine.scene is session.current
    assert session.current.level_path == LEVELS[0]
    frames(session, 30)
    assert session.current.sim.ticks > 0


def test_pause_freezes_the_level_and_resume_continues(session: GameSession) -> None:
    tap(session, "confirm")  # Enter chooses too
    scene = session.current
    assert scene is not None
    frames(session, 10)
    tap(session, "pause")
    assert scene.paused
    ticks = scene.sim.ticks
    frames(session, 30)
    assert scene.sim.ticks == ticks  # no in-game time passes while paused
    tap(session, "jump")  # "Resume" is selected first
    assert not scene.paused
    frames(session, 5)
    assert scene.sim.ticks > ticks


def test_the_pause_menu_restarts_and_quits_to_title(session: GameSession) -> None:
    tap(session, "jump")
    first = session.current
    frames(session, 20)
    tap(session, "pause")
    tap(session, "down")  # Restart level
    tap(session, "jump")
    assert session.current is not None and session.current is not first
    assert [a.outcome for a in session.attempts] == ["restart"]
    assert session.attempts[0].ticks == first.sim.ticks > 0
    tap(session, "pause")
    tap(session, "up")  # wraps to the last item: Quit to title
    tap(session, "jump")
    assert session.current is None
    assert menu_title(session) == "Platformer"


def test_the_title_plays_the_bundled_replays_behind_the_menu(session: GameSession) -> None:
    scene = session.engine.scene
    assert isinstance(scene, MenuScene) and scene.backdrop is session.attract
    frames(session, 30)
    level = session.attract.current
    assert level is not None and level.level_path == LEVELS[0]
    assert level.sim.ticks > 0  # the replay is playing, without the player's input
    assert not level.show_hud and level.sounds is None
    assert session.current is None  # no attempt is counted


def test_credits_come_from_the_credits_file_and_go_back(session: GameSession) -> None:
    from engine.app.session import credit_lines

    for _ in range(3):
        tap(session, "down")  # Credits
    tap(session, "jump")
    assert menu_title(session) == "Credits"
    lines = session.engine.scene.panel.lines
    assert lines == credit_lines(Path(GAME.files.asset_path(GAME.credits_file))) and len(lines) >= 5
    assert any("Kenney" in line for line in lines)
    tap(session, "pause")
    assert menu_title(session) == "Platformer"


def test_options_from_the_title_and_from_the_pause_menu_come_back(session: GameSession) -> None:
    tap(session, "down")
    tap(session, "down")  # Options
    tap(session, "jump")
    assert menu_title(session) == "Options"
    tap(session, "pause")  # back
    assert menu_title(session) == "Platformer"
    tap(session, "jump")  # Play
    level = session.current
    assert level is not None
    frames(session, 10)
    ticks = level.sim.ticks
    tap(session, "pause")
    tap(session, "down")
    tap(session, "down")  # Options (after Resume, Restart level)
    tap(session, "jump")
    assert menu_title(session) == "Options"
    frames(session, 10)
    tap(session, "pause")  # back to the level, still paused, its time stopped
    assert session.engine.scene is level
    assert level.paused
    assert level.sim.ticks == ticks
    assert level.pause_menu.selected_key == "options"  # where the player left it
    tap(session, "pause")  # resume
    frames(session, 5)
    assert level.sim.ticks > ticks


def test_the_restart_key_restarts_at_once_and_the_run_keeps_counting(
    session: GameSession,
) -> None:
    tap(session, "jump")
    frames(session, 20)
    played = session.current.sim.ticks
    tap(session, "restart")
    assert session.current.sim.ticks == 0
    assert session.in_run
    frames(session, 10)
    assert session.run_ticks == played + session.current.sim.ticks


def test_a_practice_save_outlives_the_restart_key(session: GameSession) -> None:
    tap(session, "jump")
    frames(session, 20)
    tap(session, "save_state")
    saved = session.current.practice.saved
    assert saved is not None and saved.ticks > 0
    frames(session, 10)
    tap(session, "restart")
    assert session.current.sim.ticks == 0 and session.current.practice.saved is saved
    frames(session, 5)
    tap(session, "load_state")  # the new attempt goes to the saved tick (and one tick on)
    assert session.current.sim.ticks == saved.ticks + 1
    assert "PRACTICE" in session.current.extra_hud_lines()[0]


def test_completing_a_level_shows_the_complete_screen_then_the_next_level(
    session: GameSession,
) -> None:
    tap(session, "jump")
    frames(session, 5)
    reach_exit(session)
    assert menu_title(session) == "Level complete!"
    lines = session.engine.scene.panel.lines
    assert lines[0] == "First Steps"
    assert lines[1].startswith("time 0:00.") and "par 0:12.000   under par!" in lines[1]
    assert session.sounds is not None and session.sounds.played["complete"] == 1
    assert [a.outcome for a in session.attempts] == ["complete"]
    tap(session, "jump")  # Next level
    assert session.current is not None and session.current.level_path == LEVELS[1]


def test_a_run_through_every_level_ends_on_the_final_screen(session: GameSession) -> None:
    tap(session, "jump")
    for index in range(len(LEVELS)):
        assert session.current is not None and session.current.level_path == LEVELS[index]
        frames(session, 3)
        reach_exit(session)
        if index + 1 < len(LEVELS):
            tap(session, "jump")  # Next level
    assert menu_title(session) == "You made it!"
    assert session.run_completed
    total = sum(a.ticks for a in session.attempts)
    assert session.run_ticks == total
    assert session.igt_text() == format_time_ms(session.engine.tick_rate.tick_time_ms(total))
    tap(session, "jump")
    assert menu_title(session) == "Platformer"


def test_level_select_plays_any_level_as_practice(session: GameSession) -> None:
    tap(session, "down")
    tap(session, "jump")  # Select level
    assert menu_title(session) == "Select level"
    tap(session, "down")
    tap(session, "jump")  # 2. <level 2>
    assert session.current is not None and session.current.level_path == LEVELS[1]
    assert not session.in_run
    reach_exit(session)
    assert menu_title(session) == "Level complete!"
    tap(session, "jump")  # Play again
    assert session.current is not None and session.current.level_path == LEVELS[1]


def test_pause_on_level_select_goes_back_to_the_title(session: GameSession) -> None:
    tap(session, "down")
    tap(session, "jump")
    tap(session, "pause")
    assert menu_title(session) == "Platformer"


def test_jumps_and_coins_play_their_sounds_once_per_event(session: GameSession) -> None:
    tap(session, "jump")
    frames(session, 5)
    session.engine.sampler.press("jump")
    frames(session, 3)
    session.engine.sampler.release("jump")
    frames(session, 60)
    assert session.sounds is not None
    assert session.sounds.played["jump"] == 1
    scene = session.current
    coin = scene.level.coins[0].rect
    scene.sim.teleport_player(coin.center_px[0], coin.bottom_px)
    frames(session, 2)
    assert session.sounds.played["coin"] == 1


def test_a_jump_after_a_practice_load_is_heard_again(session: GameSession) -> None:
    tap(session, "jump")  # the title's Play
    frames(session, 5)
    tap(session, "save_state")
    session.engine.sampler.press("jump")
    frames(session, 3)
    session.engine.sampler.release("jump")
    frames(session, 30)
    assert session.sounds is not None and session.sounds.played["jump"] == 1
    tap(session, "load_state")  # back before the jump: the world's event log is shorter again
    session.engine.sampler.press("jump")
    frames(session, 3)
    session.engine.sampler.release("jump")
    frames(session, 5)
    assert session.sounds.played["jump"] == 2


def test_quit_stops_the_loop_and_leaves_the_window_to_the_caller(session: GameSession) -> None:
    tap(session, "up")  # wraps to Quit
    tap(session, "jump")  # the rest of this frame still draws: the window must be open
    assert session.engine.closed and session.quit_requested
    session.engine.render_frame(0.0)  # the window and its GL context are still there


def test_a_jump_mashed_through_the_exit_does_not_skip_the_complete_screen(
    session: GameSession,
) -> None:
    tap(session, "jump")
    scene = session.current
    exit_rect = scene.level.exits[0].rect
    scene.sim.teleport_player(exit_rect.center_px[0], exit_rect.bottom_px)
    while not scene.completed:
        frames(session)
    tap(session, "jump")  # pressed on the tick right after the completing one
    assert menu_title(session) == "Level complete!"


def test_a_completed_level_is_recorded_and_level_select_shows_it(
    session: GameSession, tmp_path: Path
) -> None:
    from engine.app.level_records import LevelRecords
    from engine.app.level_select import LevelSelectScene
    from engine.runtime.menu import LOGO_COLOR

    session.level_records = LevelRecords(tmp_path / "level_records.json")
    tap(session, "jump")  # Play
    frames(session, 4)
    reach_exit(session)
    ticks = session.attempts[-1].ticks
    tap(session, "down")
    tap(session, "down")
    tap(session, "jump")  # Title screen
    tap(session, "down")
    tap(session, "jump")  # Select level
    scene = session.engine.scene
    assert isinstance(scene, LevelSelectScene)
    first = scene.entries[0]
    assert first.best_ticks == ticks and first.medal == "gold"  # teleported: far under par
    assert scene.entries[1].best_ticks is None and scene.entries[1].medal is None
    frames(session, 2)  # draws the card: name, best, par, coins, medal
    assert scene._text is not None
    texts = scene._text.texts
    assert f"best {format_time_ms(session.engine.tick_rate.tick_time_ms(ticks))}" in texts
    assert "medal gold" in texts and "par 0:12.000" in texts
    again = LevelRecords(tmp_path / "level_records.json")  # saved, and read back
    assert next(iter(again.records.values())).best_ticks == ticks
    tap(session, "jump")  # play level 1 again, faster: the complete screen says so
    reach_exit(session)
    assert session.attempts[-1].ticks < ticks
    assert ("new best time!", LOGO_COLOR) in session.engine.scene.panel.lines


def test_the_timer_option_shows_a_level_timer_in_normal_play(session: GameSession) -> None:
    from engine.config.settings import config_with

    tap(session, "jump")  # Play (no speedrun mode)
    frames(session, 10)
    lines = session.hud_lines()
    assert lines and str(lines[0][0] if isinstance(lines[0], tuple) else lines[0]).startswith(
        f"TIME {session.igt_text()}"
    )
    session.engine.apply_config(config_with(session.engine.config, "speedrun.show_timer", False))
    assert session.hud_lines() == []
