"""``python -m game`` as a player runs it: headless summary, and one-line errors with exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.engine.app.sample_game import GAME
from tests.small_picture import SMALL_PICTURE_FLAGS
from tests.test_readme import documented_json_keys

ROOT = Path(__file__).resolve().parents[3]


def game(*args: str, headless: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS")}
    env["PYTHONPATH"] = str(ROOT)
    flags = ["--headless"] if headless else []
    return subprocess.run(
        [sys.executable, "-m", "game", *flags, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_headless_run_prints_the_summary_object(tmp_path: Path) -> None:
    shot = tmp_path / "level1.png"
    out = game("--frames", "120", "--display-hz", "144", "--json", "--screenshot", str(shot))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == documented_json_keys("game") - {"hash_ok"}  # hash_ok: replays only
    assert data["level"] == "First Steps"
    assert data["completed"] is False
    assert abs(data["ticks"] - round(119 * 60 / 144)) <= 1
    assert (
        data["igt"]
        == f"0:{data['ticks'] * 1000 // 60 // 1000:02d}.{data['ticks'] * 1000 // 60 % 1000:03d}"
    )
    assert data["coins"].endswith("/15")  # level 1 has 15 coins
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_text_summary_is_one_line() -> None:
    out = game("--frames", "30")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines() == [out.stdout.strip()]
    assert out.stdout.startswith("First Steps: not complete, ")


def test_any_bundled_level_can_be_started() -> None:
    out = game("--level", str(ROOT / "levels" / "level6.json"), "--frames", "10", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["level"] == "The Climb"


def test_a_missing_or_broken_level_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"type": "map", "orientation": "orthogonal",')
    own = sorted(path.name for path in (ROOT / "levels").glob("*.json"))
    # missing: the line says where it looked and lists the game's own levels; broken: the loader's
    for level, says in ((tmp_path / "missing.json", own), (broken, ["level error"])):
        out = game("--level", str(level))
        assert out.returncode == 2
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and level.name in lines[0] and all(s in lines[0] for s in says)
        assert "Traceback" not in out.stderr


def test_bad_player_tuning_gives_one_line_and_exit_2() -> None:
    out = game("--set", "player.run_speed_px_s=-1")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "player.run_speed_px_s" in out.stderr


# ---------------------------------------------------------------------------------------------
# Trust: messages, --verify-run's statuses, stopping, the headless default
# ---------------------------------------------------------------------------------------------


def test_a_replay_played_on_another_level_says_so() -> None:
    from engine.app.cli import load_checked_replay
    from engine.input.replay import ReplayError

    replay = ROOT / "levels" / "replays" / "level1.replay"
    with pytest.raises(ReplayError) as caught:
        load_checked_replay(GAME, replay, ROOT / "levels" / "level2.json")
    assert str(caught.value).endswith(
        "recorded on level 'level1.json', not on 'level2.json' (--level); leave --level out "
        "to play it on its own level"
    )


@pytest.mark.slow
def test_verify_run_has_a_status_for_each_verdict(tmp_path: Path, capsys: Any) -> None:
    from engine.app.cli import verify_run_file
    from engine.app.run_file import save_run
    from engine.config import load_config
    from engine.speedrun.timer import format_igt
    from engine.timing import TickRate
    from game.definition import CONFIG_SECTIONS
    from tests.engine.app.honest_runs import BUNDLED_TICKS, LEVELS, honest_run

    config = load_config(None, extra_sections=CONFIG_SECTIONS)
    valid, invalid, edited = tmp_path / "valid.json", tmp_path / "invalid.json", tmp_path / "e.json"
    save_run(honest_run(), valid)
    save_run(honest_run(strict_valid=False), invalid)
    data = json.loads(valid.read_text())
    data["igt_ticks"] = 1800
    edited.write_text(json.dumps(data))
    igt = format_igt(TickRate.from_hz(60), BUNDLED_TICKS)
    run = f"IGT {igt} ({BUNDLED_TICKS} ticks), {len(LEVELS)} levels"
    expected = {
        valid: (0, f"{valid}: verified: {run}, from the inputs; claimed, sealed in the chain: "),
        edited: (1, f"{edited}: NOT verified: the file claims IGT {igt} (1800 ticks)"),
        invalid: (3, f"{invalid}: verified but INVALID: {run}, from the inputs; claimed, "),
        tmp_path: (2, ""),
    }
    for path, (status, start) in expected.items():
        assert verify_run_file(GAME, path, config, as_json=False) == status
        out = capsys.readouterr()
        if status == 2:
            assert out.out == "" and "a directory, not a regular file" in out.err
        else:
            assert out.out.startswith(start) and out.out.count("\n") == 1, out.out
    assert verify_run_file(GAME, invalid, config, as_json=True) == 3
    assert json.loads(capsys.readouterr().out)["valid"] is False


def started(process: subprocess.Popen[str], timeout_s: float = 120) -> None:
    """Wait until the game has opened its window (its stop handlers are in place by then)."""
    import time

    maps = Path(f"/proc/{process.pid}/maps")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the game ended early: {process.communicate()}")
        if "libEGL" in maps.read_text(errors="replace"):
            time.sleep(0.5)  # a few frames into the loop
            return
        time.sleep(0.05)
    raise AssertionError("the game did not start")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="watches /proc")
@pytest.mark.parametrize(("signal_number", "status"), [(2, 130), (15, 143)])
def test_ctrl_c_and_sigterm_end_a_recording_with_its_summary(
    tmp_path: Path, signal_number: int, status: int
) -> None:
    from engine.input.replay import load_replay

    record = tmp_path / "stopped.replay"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "ARCADE_HEADLESS")}
    env["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [sys.executable, "-m", "game", "--headless", "--record", str(record), "--frames", "99999"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    started(process)
    process.send_signal(signal_number)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == status, stderr
    assert stderr == ""
    name = {2: "SIGINT", 15: "SIGTERM"}[signal_number]
    assert stdout.startswith("First Steps: not complete, ")
    assert stdout.rstrip().endswith(f", stopped by {name}") and stdout.count("\n") == 1
    ticks = int(stdout.split(", ")[1].split()[0])
    assert load_replay(record).tick_count == ticks  # the recording was saved, every tick


@pytest.mark.slow
def test_headless_without_frames_or_a_replay_stops_at_the_default() -> None:
    from engine.app.cli import HEADLESS_DEFAULT_FRAMES

    out = game("--json", *SMALL_PICTURE_FLAGS)  # 600 frames: their count is the subject
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["completed"] is False
    assert data["ticks"] == HEADLESS_DEFAULT_FRAMES - 1  # the first frame runs no tick


def _full_disk() -> None:
    """In the child: writes past 20 kB fail as on a full disk (EFBIG instead of ENOSPC)."""
    import resource
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_record_into_a_full_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    """Finding 8: checked up front, as --screenshot is, not after playing the whole run."""
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    target = tmp_path / "run.replay"
    out = subprocess.run(
        [sys.executable, "-m", "game", "--headless", "--record", str(target), "--frames", "9"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "PYTHONPATH": str(ROOT)},
        preexec_fn=_full_disk,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"python -m game: error: cannot record to {target}: File too large\n"
    assert list(tmp_path.iterdir()) == []  # the probe file is gone too


def test_record_into_a_folder_that_refuses_files_is_refused_before_the_run(
    tmp_path: Path,
) -> None:
    import tempfile

    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)  # refuses files, except to root: then a read-only file system's folder
    candidates = [folder, Path("/sys"), Path("/proc")]
    for candidate in candidates:
        try:
            os.close(tempfile.mkstemp(dir=candidate)[0])
        except OSError:
            break
    else:
        pytest.skip("every folder here takes files")
    out = game("--record", str(candidate / "run.replay"), "--frames", "9")
    folder.chmod(0o755)
    assert out.returncode == 2 and out.stdout == "", out.stderr
    assert out.stderr.startswith(
        f"python -m game: error: cannot record to {candidate / 'run.replay'}: "
    )
    assert len(out.stderr.splitlines()) == 1


HOSTILE_NAME = "\x1b[2J\x1b]0;pwned\x07Evil two\nlines\rand\u2028more \u202e" + "L" * 5000


def _level_named(tmp_path: Path, name: str) -> Path:
    levels = ROOT / "levels"
    for entry in levels.iterdir():
        if entry.suffix != ".json" and not (tmp_path / entry.name).exists():
            (tmp_path / entry.name).symlink_to(entry)
    data = json.loads((levels / "level1.json").read_text(encoding="utf-8"))
    for prop in data["properties"]:
        if prop["name"] == "name":
            prop["value"] = name
    level = tmp_path / "named.json"
    level.write_text(json.dumps(data), encoding="utf-8")
    return level


@pytest.mark.slow
def test_a_hostile_level_name_is_refused_in_one_escaped_line(tmp_path: Path) -> None:
    """Messages: terminal escapes, line breaks or 5,000 characters in a name never reach the
    terminal raw: the level is refused (a run file could not hold the name) in one line."""
    out = game("--level", str(_level_named(tmp_path, HOSTILE_NAME)), "--frames", "2")
    assert out.returncode == 2 and out.stdout == ""
    line = out.stderr.rstrip("\n")
    assert len(out.stderr.splitlines()) == 1 and line.isprintable(), line[:300]
    assert "\x1b" not in out.stderr and len(line) < 1000


@pytest.mark.slow
def test_the_summary_line_shortens_a_long_level_name(tmp_path: Path) -> None:
    """A legal but long name (256 characters) is shortened in the text summary, whole in --json."""
    name = "Long " * 51 + "!"
    out = game("--level", str(_level_named(tmp_path, name)), "--frames", "2")
    assert out.returncode == 0, out.stderr[-500:]
    line = out.stdout.rstrip("\n")
    assert len(out.stdout.splitlines()) == 1 and len(line) < 200
    assert "...: not complete, " in line, line[:300]
    data = game("--level", str(_level_named(tmp_path, name)), "--frames", "2", "--json")
    assert json.loads(data.stdout)["level"] == name


@pytest.mark.gl
def test_the_windowed_game_saves_its_screenshot_too(
    gl_window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--screenshot`` in the game with its screens (a display, no ``--headless``), not only
    in a level run: it was ignored there. Run on the shared hidden window, 30 frames of the
    title screen."""
    from PIL import Image

    from engine.app.cli import build_parser, play_session
    from engine.config import load_config
    from engine.runtime.engine import Engine
    from engine.runtime.launch import StopSignals

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # records stay out of ~
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    # the command closes its window when done: the shared one stays open for the other tests
    closed: list[bool] = []
    monkeypatch.setattr(gl_window, "close", lambda: closed.append(True))
    shot = tmp_path / "title.png"
    args = build_parser("game").parse_args(["--frames", "30", "--screenshot", str(shot)])
    config = load_config(None)
    engine = Engine(gl_window, config, headless=True, probe_frames=0)
    try:
        assert play_session(GAME, engine, config, args, StopSignals()) == 0
    finally:
        engine.close()
    assert closed == [True]
    with Image.open(shot) as picture:
        assert picture.size == tuple(gl_window.get_framebuffer_size())
        assert len(set(picture.convert("RGB").getdata())) > 16  # the title, not a blank frame
