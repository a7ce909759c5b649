"""Engine configuration: one TOML file, loaded into frozen, validated dataclasses.

Where the file lives:
    A game reads the ``config.toml`` beside it (``config_from_args(...,
    default_path=...)`` with the path the game finds through ``importlib.resources``), so
    the folder it is started from does not matter; the engine's own tools read ``config.toml`` in the
    current working directory (:data:`DEFAULT_CONFIG_PATH`). If the file does not exist,
    every key keeps its default, so a fresh checkout runs without any file. ``--config
    PATH`` picks another file; a file passed explicitly must exist. Print a complete,
    commented file with every key and its default with::

        python -m engine.config > config.toml

    and delete the keys you do not change. ``python -m engine.config --keys`` lists
    the key names allowed in ``[input]``, and ``python -m engine.config --config
    my.toml --set timing.mode=strict`` validates a file and prints the effective
    configuration. A game's own sections are known to the checker when it is told
    where the game declares them: ``python -m engine.config --sections mygame.config``
    imports the game package's ``mygame.config`` and reads its ``CONFIG_SECTIONS``
    mapping (``--sections MODULE:NAME`` for another name).

The file:
    One table per section (``[timing]``, ``[video]``, ``[render]``, ``[camera]``,
    ``[physics]``, ``[input]``, ``[speedrun]`` with its subsection
    ``[speedrun.livesplit]``, ``[audio]``, ``[debug]``). Every key has a default;
    unknown sections and keys are errors (with a "did you mean" hint), because a
    typo that is silently ignored is the worst kind of bug. Integers are accepted
    where a float is expected; ``true`` is never accepted as a number.

Overrides:
    ``--set section.key=value`` (repeatable, applied in order after the file) sets
    one key, e.g. ``--set timing.tick_rate_hz=120`` or, in a subsection,
    ``--set speedrun.livesplit.port=16900``. The value is parsed as a TOML value, so
    ``true``, ``60``, ``0.5``, ``"text"`` and ``["A", "B"]`` work; a bare word that is
    not valid TOML is taken as a string, so ``--set timing.mode=strict`` works too.
    A single key name is accepted where a list of key names is expected
    (``--set input.jump=X``).

Errors:
    Every problem raises :class:`ConfigError`, whose text is exactly one line naming
    the file (or ``--set``), the key, the offending value and what is allowed::

        config error: settings.toml: timing.tick_rate_hz = -5: must be a number in 1 <= x <= 1000

    :func:`config_from_args` prints that line to stderr and exits with status 2.

    No input gets past that line: the file must be a regular file of at most 4 MiB (a
    named pipe or ``/dev/zero`` is refused at once, never read), a UTF-8 byte order mark
    is skipped, tables and arrays may nest 16 deep, numbers beyond a float's range or a
    key's bounds are refused, and keys or values quoted in the message are shortened to
    60 characters with control characters escaped (``\\u001b``), so a message never
    carries a terminal escape sequence or a megabyte of text.

Settings stored elsewhere:
    :func:`section_from_mapping` checks a section's values that come from another file
    (a speedrun's run file records ``[player]`` and ``[physics]``) exactly as the config
    file is checked; :func:`section_to_mapping` writes them, and :func:`section_hash` fingerprints them
    (replays record the hash of each section that changes the simulation).

Adding a section for your game:
    Write a frozen dataclass whose fields all have defaults and declare their
    constraints with :func:`setting` (or :func:`key_binding` for key lists), then
    pass it to the loader under the TOML table name you want::

        @dataclass(frozen=True, slots=True)
        class PlayerTuning:
            \"\"\"Player movement tuning.\"\"\"

            run_speed_px_s: float = setting(320.0, "Top running speed.", min=0, max=5000)
            coyote_time_s: float = setting(0.1, "Jump grace after leaving a ledge.", min=0, max=1)
            dash: tuple[str, ...] = key_binding(("X",), "Keys that dash.")

        config = load_config(path, extra_sections={"player": PlayerTuning})
        tuning = config.section("player", PlayerTuning)  # typed as PlayerTuning

    The section is read from ``[player]``, overridable with ``--set player.dash=C``,
    included in :func:`defaults_toml` (pass the same ``extra_sections``) and
    available as ``config.extra["player"]``. Supported field types are ``bool``,
    ``int``, ``float``, ``str``, ``tuple[T, ...]`` of those, and nested frozen
    dataclasses (a subsection). Field metadata keys: ``doc`` (required, one line),
    ``min``/``max`` (inclusive), ``min_exclusive``, ``also_allowed`` (values allowed
    outside the range, like ``0`` for "off"), ``choices``, ``non_empty`` and
    ``key_names``. Cross-field rules go in ``__post_init__``: a ``ValueError`` raised
    there becomes a :class:`ConfigError`.

This module is pure: it imports neither arcade, pyglet, pymunk nor numpy. Key names
are spelled like the constants in ``arcade.key``, so ``getattr(arcade.key, name)``
turns one into a key code.
"""

from engine.config.loader import (
    DEFAULT_CONFIG_PATH,
    add_config_arguments,
    config_from_args,
    defaults_toml,
    load_config,
    parse_toml,
    section_from_mapping,
    section_hash,
    section_to_mapping,
    to_toml,
)
from engine.config.schema import ConfigError, key_binding, key_names, setting
from engine.config.sections import (
    DEBUG_OVERLAY_ACTION,
    GAMEPAD_CONTROLS,
    PRACTICE_ACTIONS,
    AudioConfig,
    CameraConfig,
    Config,
    DebugConfig,
    GamepadConfig,
    InputConfig,
    LiveSplitConfig,
    PhysicsConfig,
    RenderConfig,
    SpeedrunConfig,
    TimingConfig,
    VideoConfig,
    game_action_names,
    gamepad_binding,
)

__all__ = [
    "DEBUG_OVERLAY_ACTION",
    "DEFAULT_CONFIG_PATH",
    "GAMEPAD_CONTROLS",
    "PRACTICE_ACTIONS",
    "AudioConfig",
    "CameraConfig",
    "Config",
    "ConfigError",
    "DebugConfig",
    "GamepadConfig",
    "InputConfig",
    "LiveSplitConfig",
    "PhysicsConfig",
    "RenderConfig",
    "SpeedrunConfig",
    "TimingConfig",
    "VideoConfig",
    "add_config_arguments",
    "config_from_args",
    "defaults_toml",
    "game_action_names",
    "gamepad_binding",
    "key_binding",
    "key_names",
    "load_config",
    "parse_toml",
    "section_from_mapping",
    "section_hash",
    "section_to_mapping",
    "setting",
    "to_toml",
]
