"""The sample game's kinds of objects: what a designer may place in Tiled, beyond the engine's.

Each :class:`~engine.levels.kinds.Kind` is data: the class name written in Tiled, the shapes it
may have and its typed properties (with units, so the map's 128 px tiles scale to the game's
tile size by themselves). :data:`KINDS` holds the engine's kinds and these; the level loader
checks every object against it, and ``python -m engine.levels --kinds game.kinds FILE`` checks a
map the way the game loads it. What each kind *does* is its entity class in
:mod:`game.entities`.

Pure: no arcade, no pymunk.
"""

from __future__ import annotations

from engine.levels.kinds import Kind, KindRegistry, ObjectRef, Prop

__all__ = [
    "CRATE",
    "CRUMBLING_PLATFORM",
    "FLYER",
    "KINDS",
    "LADDER",
    "PAR_TIME",
    "SPRING",
    "SWING",
    "WALKER",
    "game_kinds",
]

ENEMY_ART = ("slimeBlue", "slimeGreen", "slimePurple", "wormGreen", "wormPink", "robot", "zombie")
"""The walkers' looks (arcade's bundled Kenney enemies)."""

FLYER_ART = ("bee", "fly")
"""The flyers' looks."""

WALKER = Kind(
    "walker",
    ("point", "rectangle", "tile"),
    props=(
        Prop("speed_px_s", float, 128.0, doc="Walking speed.", unit="px/s", min=0, max=2048),
        Prop(
            "patrol_left_px",
            float,
            -1.0,
            doc="Turns around at this x (left edge); negative: only at walls and ledges.",
            unit="px",
            min=-1,
            max=10_000_000,
        ),
        Prop(
            "patrol_right_px",
            float,
            -1.0,
            doc="Turns around at this x (right edge); negative: only at walls and ledges.",
            unit="px",
            min=-1,
            max=10_000_000,
        ),
        Prop("facing", str, "left", doc="Which way it starts walking.", choices=("left", "right")),
        Prop("art", str, "slimeBlue", doc=f"Its look: one of {', '.join(ENEMY_ART)}."),
    ),
    doc="An enemy that walks, turns at walls and ledges, and is stomped from above.",
    aliases=("enemy",),
)

FLYER = Kind(
    "flyer",
    ("point", "rectangle", "tile"),
    props=(
        Prop("path", ObjectRef, doc="The path it flies back and forth along.", ref_kind="path"),
        Prop("speed_px_s", float, 160.0, doc="Flying speed.", unit="px/s", min=1, max=4096),
        Prop("art", str, "bee", doc="Its look.", choices=FLYER_ART),
    ),
    doc="An enemy that flies back and forth along a path; stomp it from above.",
)

SPRING = Kind(
    "spring",
    ("point", "rectangle", "tile"),
    props=(
        Prop(
            "launch_height_tiles",
            float,
            6.0,
            doc="How high it throws the player (held jump or not).",
            unit="tiles",
            min=1,
            max=40,
        ),
    ),
    doc="A bouncy mushroom: landing on it throws the player up.",
)

LADDER = Kind(
    "ladder",
    ("rectangle", "tile"),
    doc="Climb it with up and down, jump off it; its top is a ledge to stand on.",
    needs_area=True,
    merge_tiles=True,
)

CRUMBLING_PLATFORM = Kind(
    "crumbling_platform",
    ("rectangle", "tile"),
    props=(
        Prop(
            "delay_s",
            float,
            0.5,
            doc="How long it holds once stood on.",
            unit="s",
            min=0.05,
            max=30,
        ),
        Prop(
            "respawn_s",
            float,
            3.0,
            doc="How long until it is back after falling.",
            unit="s",
            min=0.1,
            max=600,
        ),
    ),
    doc="A ledge that shakes, falls a moment after being stood on, and comes back.",
    needs_area=True,
)

CRATE = Kind(
    "crate",
    ("rectangle", "tile"),
    props=(
        Prop("mass", float, 2.0, doc="How heavy it is (the player weighs 1).", min=0.1, max=100),
    ),
    doc="A wooden crate that falls, stacks, slides and can be pushed (real pymunk dynamics).",
    needs_area=True,
)

SWING = Kind(
    "swing",
    ("rectangle", "tile"),
    props=(
        Prop(
            "rope_px",
            float,
            384.0,
            doc="Length of the rope from the pivot above to the platform's centre.",
            unit="px",
            min=16,
            max=100_000,
        ),
        Prop(
            "start_angle_deg",
            float,
            30.0,
            doc="How far from hanging straight down it starts (positive: to the left).",
            unit="deg",
            min=-80,
            max=80,
        ),
        Prop("mass", float, 4.0, doc="How heavy the platform is.", min=0.1, max=100),
    ),
    doc="A platform hanging on a rope from a pivot: a pendulum the player rides and pushes.",
    needs_area=True,
)


PAR_TIME = Prop(
    "par_time_s",
    float,
    None,
    doc='The level complete screen shows it next to the time taken ("under par!").',
    unit="s",
    min=0.1,
    max=24 * 3600,
)
"""The map property ``par_time_s``: the level's par time (optional)."""


def game_kinds() -> KindRegistry:
    """A registry with the engine's kinds and the sample game's (add a new kind to the tuple),
    and the map properties the game reads."""
    kinds = KindRegistry(map_props=(PAR_TIME,))
    for kind in (WALKER, FLYER, SPRING, LADDER, CRUMBLING_PLATFORM, CRATE, SWING):
        kinds.register(kind)
    return kinds


KINDS = game_kinds()
"""The kinds the sample game's levels may use (``python -m engine.levels --kinds game.kinds``)."""
