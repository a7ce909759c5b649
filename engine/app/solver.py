"""The solver: a search of a level's deterministic simulation for inputs that reach the exit.

``python -m <game> --solve LEVEL`` proves a level can be finished under the game's current
settings, writes a replay of a way through it (``--out``), and when it cannot find one says
where it got furthest and, if it can tell, what stopped it. ``--rerecord`` uses it when a
replay's own inputs no longer finish its level (:mod:`engine.app.rerecord`). It works on any
game through its definition: the game's world needs savestates (``capture`` / ``restore``,
:mod:`engine.app.savestate`) and to say where its player is (:class:`SolvableWorld`).

How it searches (best first, no window, no drawing):

* **Macro-actions.** From a state, the search tries each of a few inputs held for a short
  stretch (:data:`MACRO_S`, a tenth of a second: 6 ticks at 60 Hz): run left, right or
  neither, each with jump held or not, climb up, climb down, and drop through (down with
  jump). A jump is pressed when a macro holding jump follows one that did not, so a long held
  jump is several jump macros in a row, and a new jump needs a macro without it in between.
  The input of each tick is the held keys with the pressed and released edges a player's
  keyboard would give. A macro that holds up or down on top of another's keys (climb,
  climb down, drop) stops after its first tick when that tick left the world exactly as the
  other's first tick did (the same ``state_hash``: no ladder, no one-way platform there), so
  the keys that do nothing in most places cost one tick, not six.
* **Savestates.** Each state expanded is captured; expanding it restores it once per macro
  but the first. States are kept for the most recent nodes (:data:`KEPT_STATES`); an older
  one is rebuilt by restoring the nearest kept ancestor and playing the inputs between
  (restores are exact, so this is the same state).
* **A heuristic that knows the level.** :class:`LayoutMap` measures, over the level's
  tiles, the distance in tiles from every open tile to the nearest exit (a breadth-first
  search through tiles that are not solid), and a node's priority is that distance at the
  player's position plus half a tile per second of game time taken: it heads for the exit
  through the level's corridors, round walls and up shafts, and of two ways to the same
  distance it prefers the quicker.
* **Queues taken in turn, searches side by side** (:data:`PORTFOLIO`). A distance alone
  leads into dead ends: under a wall too high to jump, where the way is to push a crate to it
  first and jump from the crate, or below a gap a moving platform will carry the player
  through at the right moment. So a search puts every state it finds into several priority
  queues and expands the best state of each in turn (a state once, whichever queue reaches
  it first): a *greedy* queue of every state (the priority above, plus a little for each
  state already queued in the same tile, so it spreads out), and *novelty* queues (the idea
  of width-based planning, Lipovetzky and Geffner's IW and best-first width search) that
  take only states showing something no state before them did: the player in a tile it had
  not been in (standing or in the air), a body near the player (a crate, a platform, a
  swing) somewhere it had not been or in a tile while the player was in a tile they had not
  shared; then also a body near the player in a new quarter tile relative to the player's
  tile; then also any body anywhere, coarsely (:data:`FAR_STEP_TILES`), relative to the
  player's tile (a platform that is low when the player gets to it). Pushing a crate along,
  riding a platform, standing on a crate pushed to a wall, arriving as the platform comes:
  each shows something new and is searched however bad its distance looks, while trying
  every speed in the same places is not. Two such searches with different queues run side
  by side, one expansion each in turn, sharing only the world and the budget: which order
  finds a level's way first depends on the level and the tuning, and two searches that go
  wrong in different places rarely both do (a portfolio: a level costs at most about twice
  what the better search alone needs). No budget is split between fixed phases.
* **Pruning.** A macro in which the player is hurt ends that branch. States are told apart
  by the player's position (a quarter tile), velocity (coarsely), whether it stands on
  something (the world's optional ``player_grounded``, else a vertical velocity of exactly 0),
  whether jump is held and, when the world has
  a physics world with render rows (``world.physics.current``), where the bodies within
  :data:`NEAR_TILES` of the player are (to a tile; the player's own body, the world's
  optional ``player_body``, left out): a state like one already reached is not searched
  again, but waiting for a moving platform to come round is a new state.

The budget is wall time (``budget_s``) and, for a result that does not depend on the machine
or its load, optionally simulated ticks (``max_ticks``: the same search every time).

The first way found is written as a replay recorded from a *fresh start* (the inputs played
on a newly loaded level, every state hash recorded), and checked to complete the level: a
solver's replay plays like any other, at any display rate. It is not the fastest way, only a
way: a runner's replay stays better.

When the budget runs out (``--budget-s``, default :data:`DEFAULT_BUDGET_S`), the result names
the furthest point reached (the open tile nearest the exit by the layout distance), as a
Tiled column and row (row counted from the top, as Tiled shows it), and, when the tile
columns just past it toward the exit form a solid wall taller than the player ever got above
the ground it stood on, that wall.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from engine.app.savestate import Savestate
from engine.input.snapshot import ActionMap, InputSnapshot

if TYPE_CHECKING:
    from engine.app.definition import GameDefinition
    from engine.app.run_file import RunSettings
    from engine.input.replay import Replay
    from engine.levels import Level

__all__ = [
    "DEFAULT_BUDGET_S",
    "KEPT_STATES",
    "MACRO_S",
    "PORTFOLIO",
    "LayoutMap",
    "Queue",
    "SolvableWorld",
    "SolveResult",
    "Unsolvable",
    "macros_for",
    "record_solution",
    "solve",
]

DEFAULT_BUDGET_S = 120.0
"""How long a search may run by default (seconds of wall time on one core)."""

MACRO_S = 0.1
"""How long one macro-action holds its keys, seconds (rounded to whole ticks, at least one)."""

KEPT_STATES = 4000
"""How many captured states a solve keeps, shared out among the portfolio's searches (older
ones are rebuilt from an ancestor): about 30 to 50 KiB each on the bundled levels."""

POSITION_STEP_TILES = 0.25
"""States whose player is within this much (and moves alike) count as the same state."""

UNLIKELY_RISE_COST = 12.0
"""What rising a tile costs the heuristic where no jump from the ground reaches."""

MAX_REACH_TILES = 2.0
"""The heuristic lets the player rise this many tiles to the side of what it stands on, at
most (a jump goes further, but rising is near the take-off)."""


@dataclass(frozen=True, slots=True)
class Queue:
    """One of a search's priority queues (see :data:`PORTFOLIO`).

    Attributes:
        crowding: Each state already queued in a tile makes the next one there weigh this
            many tiles more (the search spreads out instead of trying every speed in the
            same few tiles).
        novelty: 0: the queue takes every state; 1: only states that show something no
            state before them did (the player in a tile it had not been in, standing or not;
            a body near the player somewhere no body had been, to a quarter tile; or in a tile
            while the player is in a tile they had not been in together); 2: those and
            states that show a body near the player somewhere (to a quarter tile) where it
            had not been while the player was in its tile (standing or not); 3: those and
            states that show any body, near or far, somewhere (to :data:`FAR_STEP_TILES`)
            it had not been while the player was in its tile.
        turns: How many nodes it expands in a row when its turn comes.
    """

    crowding: float = 0.0
    novelty: int = 0
    turns: int = 1


PORTFOLIO: tuple[tuple[Queue, ...], ...] = (
    (Queue(crowding=0.25), Queue(novelty=1), Queue(novelty=2)),
    (Queue(crowding=0.25), Queue(novelty=1), Queue(novelty=2), Queue(novelty=3)),
)
"""The searches run side by side, one expansion each in turn, each with its queues (taken in
turn: every state a search finds goes into each of its queues that takes it, and is expanded
once, by whichever queue reaches it first). The searches share nothing but the world and the
budget: which one finds the way first depends on the level and the tuning in ways no single
search order gets right for all, and two searches that go wrong in different places rarely
both go wrong (a portfolio: the budget a level needs is at most twice the better one's)."""

NEAR_TILES = 5.0
"""Bodies this near the player (platforms, crates, a swing) are part of what tells states
apart: waiting for a platform to come is a new state, waiting in an empty room is not."""

FAR_STEP_TILES = 4.0
"""For the third novelty queue, where every body is (near the player or not) counts to this
many tiles: the player in a tile while a platform, an enemy or a crate anywhere is in a part
of the level it had not been in with the player there is new. A platform that comes round
while the player waits somewhere safe, or that is low when the player gets to it, shows
something new, and a way that needs the right moment is searched."""

SECONDS_PER_TILE = 2.0
"""The priority's exchange rate: this much game time weighs as much as one tile nearer."""


class Unsolvable(Exception):  # noqa: N818 - names the outcome
    """The level cannot be searched at all (no exit, no savestates); one line."""


@runtime_checkable
class SolvableWorld(Protocol):
    """What the solver asks of a world beyond :class:`~engine.app.definition.World`."""

    ticks: int

    @property
    def completed(self) -> bool: ...

    @property
    def player_feet_px(self) -> tuple[float, float]:
        """The bottom centre of the player's box, in level px (y up)."""
        ...

    @property
    def player_velocity_px_s(self) -> tuple[float, float]:
        """The player's velocity."""
        ...

    @property
    def player_hurt(self) -> bool:
        """The player is hurt: the search abandons that path."""
        ...

    def tick(self, snapshot: InputSnapshot) -> None: ...

    def state_hash(self) -> str: ...

    def capture(self) -> Savestate: ...

    def restore(self, state: Savestate) -> None: ...


@dataclass(frozen=True, slots=True)
class Macro:
    """Keys held together for one macro-action."""

    name: str
    held: tuple[str, ...]


_MACRO_KEYS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("right", ("right",)),
    ("right+jump", ("right", "jump")),
    ("left", ("left",)),
    ("left+jump", ("left", "jump")),
    ("jump", ("jump",)),
    ("wait", ()),
    ("climb", ("up",)),
    ("down", ("down",)),
    ("drop", ("down", "jump")),
)


def macros_for(actions: ActionMap) -> tuple[Macro, ...]:
    """The macro-actions the game's actions allow (those naming a missing action are left out)."""
    return tuple(
        Macro(name, held) for name, held in _MACRO_KEYS if all(key in actions for key in held)
    )


class LayoutMap:
    """Tile distances to the nearest exit through open tiles (see the module docstring).

    Args:
        level: The level (in game px, as the world holds it).
        exits: The exits' rectangles ``(left, bottom, right, top)`` px; default: the level's
            ``exit`` objects.

    Attributes:
        solid: ``(rows, columns)`` bool, row 0 at the bottom.
        distance: ``(rows, columns)`` float, tiles to the nearest exit (``inf``: solid or
            no way there).
    """

    def __init__(
        self,
        level: Level,
        exits: Sequence[tuple[float, float, float, float]] | None = None,
        *,
        jump_tiles: float | None = None,
        reach_tiles: float | None = None,
        lifts: Sequence[tuple[float, float, float, float]] = (),
    ) -> None:
        self.tile_px = float(level.tile_size_px)
        self.columns = level.width_tiles
        self.rows = level.height_tiles
        solid = np.zeros((self.rows, self.columns), dtype=bool)
        for rect in level.solid_rects:
            c0, r0, c1, r1 = self._cells(rect.left_px, rect.bottom_px, rect.right_px, rect.top_px)
            solid[r0:r1, c0:c1] = True
        self.solid = solid
        one_way = np.zeros_like(solid)
        for rect in level.one_way_rects:
            c0, r0, c1, r1 = self._cells(rect.left_px, rect.bottom_px, rect.right_px, rect.top_px)
            one_way[r0:r1, c0:c1] = True
        self.one_way = one_way
        self.up_ok = self._rising(jump_tiles, reach_tiles)
        for left, bottom, right, top in lifts:  # ladders, springs, platforms: rising is easy
            c0, r0, c1, r1 = self._cells(left, bottom, right, top)
            self.up_ok[r0:r1, c0:c1] |= ~self.solid[r0:r1, c0:c1]
        if exits is None:
            exits = [
                (o.rect.left_px, o.rect.bottom_px, o.rect.right_px, o.rect.top_px)
                for o in level.objects
                if o.kind == "exit"
            ]
        if not exits:
            raise Unsolvable(f"{level.source}: the level has no exit to reach")
        self.exit_cells: list[tuple[int, int]] = []
        for left, bottom, right, top in exits:
            c0, r0, c1, r1 = self._cells(left, bottom, right, top)
            for row in range(r0, max(r1, r0 + 1)):
                for column in range(c0, max(c1, c0 + 1)):
                    if 0 <= row < self.rows and 0 <= column < self.columns:
                        self.exit_cells.append((row, column))
        self.distance = self._distances()

    def _cells(
        self, left: float, bottom: float, right: float, top: float
    ) -> tuple[int, int, int, int]:
        tile = self.tile_px
        c0 = max(0, int(np.floor(left / tile + 1e-6)))
        r0 = max(0, int(np.floor(bottom / tile + 1e-6)))
        c1 = min(self.columns, int(np.ceil(right / tile - 1e-6)))
        r1 = min(self.rows, int(np.ceil(top / tile - 1e-6)))
        return c0, r0, c1, r1

    def _rising(self, jump_tiles: float | None, reach_tiles: float | None) -> np.ndarray:
        """Where the player can rise a tile: within a jump's height above ground it can stand
        on (solid or one-way below an open tile), within a jump's reach to the side."""
        if jump_tiles is None:
            return ~self.solid
        support = np.zeros_like(self.solid)
        below = self.solid | self.one_way
        support[1:] = below[:-1] & ~self.solid[1:]
        support |= self.one_way  # a one-way tile's art may be half high: its row is stood in
        reach = max(0, int(np.ceil(reach_tiles if reach_tiles is not None else jump_tiles)))
        wide = support.copy()
        for shift in range(1, reach + 1):
            wide[:, shift:] |= support[:, :-shift]
            wide[:, :-shift] |= support[:, shift:]
        rising = wide.copy()
        for shift in range(1, max(1, int(np.ceil(jump_tiles)))):
            rising[shift:] |= wide[:-shift]
        return rising & ~self.solid

    def _distances(self) -> np.ndarray:
        """Dijkstra back from the exits: a tile costs 1 to the side or down, 1 up where the
        player can rise (:meth:`_rising`) and :data:`UNLIKELY_RISE_COST` up elsewhere (a
        spring or a platform may still lift it there)."""
        distance = np.full((self.rows, self.columns), np.inf)
        heap: list[tuple[float, int, int]] = []
        for row, column in self.exit_cells:
            if distance[row, column] != 0.0:
                distance[row, column] = 0.0
                heap.append((0.0, row, column))
        heapq.heapify(heap)
        solid, up_ok = self.solid, self.up_ok
        while heap:
            done, row, column = heapq.heappop(heap)
            if done > distance[row, column]:
                continue
            # the tiles from which one step reaches this one: above (falling), beside, below
            for r, c, rising in (
                (row + 1, column, False),
                (row, column + 1, False),
                (row, column - 1, False),
                (row - 1, column, True),
            ):
                if not (0 <= r < self.rows and 0 <= c < self.columns) or solid[r, c]:
                    continue
                cost = 1.0 if not rising or up_ok[r, c] else UNLIKELY_RISE_COST
                if done + cost < distance[r, c]:
                    distance[r, c] = done + cost
                    heapq.heappush(heap, (done + cost, r, c))
        return distance

    def cell(self, x_px: float, y_px: float) -> tuple[int, int]:
        """The tile ``(row, column)`` holding a point (row 0 at the bottom), clamped to the map."""
        column = min(max(int(x_px // self.tile_px), 0), self.columns - 1)
        row = min(max(int(y_px // self.tile_px), 0), self.rows - 1)
        return row, column

    def distance_at(self, feet_px: tuple[float, float]) -> float:
        """Tiles to the exit from the player whose feet are at ``feet_px``.

        Measured from the tile just above the feet (the player's body); a point outside the
        map counts from the nearest tile inside it.
        """
        x_px, y_px = feet_px
        row, column = self.cell(x_px, y_px + self.tile_px / 2)
        found = float(self.distance[row, column])
        if np.isfinite(found):
            return found
        return self.walled_off + self.straight_distance(row, column)

    @property
    def walled_off(self) -> float:
        """Distances from here on mean "no open way": a tile sealed off from the exits counts
        this much plus its straight distance to the nearest exit tile (so a search still
        heads toward the exit, and reports how near it got)."""
        return float(self.rows * self.columns * UNLIKELY_RISE_COST)

    def straight_distance(self, row: int, column: int) -> float:
        """Tiles (across plus up or down) to the nearest exit tile."""
        return float(min(abs(row - r) + abs(column - c) for r, c in self.exit_cells))

    def tiled_row(self, row: int) -> int:
        """Tiled's row number (counted from the top) of a row counted from the bottom."""
        return self.rows - 1 - row

    def wall_after(self, row: int, column: int, toward: int, climb_tiles: float) -> str | None:
        """A wall taller than ``climb_tiles`` in the next columns toward the exit, in words."""
        for step in range(1, 4):
            c = column + toward * step
            if not 0 <= c < self.columns:
                return None
            if not self.solid[row, c]:
                continue
            height = 0
            r = row
            while r < self.rows and self.solid[r, c]:
                height += 1
                r += 1
            if height > climb_tiles:
                top = "the top of the map" if r >= self.rows else f"row {self.tiled_row(r - 1)}"
                return (
                    f"a wall {height} tiles tall at column {c} (up to {top}), higher than the "
                    f"player got above its ground ({climb_tiles:.1f} tiles)"
                )
            return None
        return None


@dataclass(slots=True, eq=False)
class _Node:
    id: int
    parent: _Node | None
    inputs: tuple[InputSnapshot, ...]
    ticks: int
    held: int
    feet_px: tuple[float, float]
    distance: float
    expanded: bool = False


@dataclass(slots=True)
class SolveResult:
    """What a search found.

    Attributes:
        solved: A way to the exit was found.
        inputs: Its input per tick, up to and including the completing tick (when solved).
        ticks: How many ticks that way takes.
        simulated_ticks: Ticks simulated by the whole search.
        seconds: Wall time the search took.
        furthest: The furthest point reached: ``(column, row)`` in Tiled's numbering.
        furthest_distance_tiles: Its distance to the exit by the layout.
        stopped_by: What stopped the search there, in words, when it can tell.
        reached: Tiles ``(row, column)`` (row 0 at the bottom) the player reached.
        sealed_off: The furthest point has no open way to the exit through the tiles (its
            distance is then a straight line).
        path_px: The feet's positions along the best path (the way found, or the way to the
            furthest point).
    """

    solved: bool
    inputs: list[InputSnapshot] = field(default_factory=list)
    ticks: int = 0
    simulated_ticks: int = 0
    seconds: float = 0.0
    furthest: tuple[int, int] = (0, 0)
    furthest_distance_tiles: float = float("inf")
    stopped_by: str | None = None
    reached: set[tuple[int, int]] = field(default_factory=set)
    sealed_off: bool = False
    path_px: list[tuple[float, float]] = field(default_factory=list)

    @property
    def ticks_per_s(self) -> float:
        """Simulated ticks per second of search."""
        return self.simulated_ticks / self.seconds if self.seconds > 0 else 0.0


Progress = Callable[[SolveResult, float], None]
"""Called now and then during a search with the result so far and the seconds left."""


def _snapshot(actions: ActionMap, previous: int, held: int) -> InputSnapshot:
    return InputSnapshot(actions, held, held & ~previous, previous & ~held)


def solve(
    world: Any,
    level: Level,
    actions: ActionMap,
    step_s: float,
    *,
    budget_s: float = DEFAULT_BUDGET_S,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.perf_counter,
    held: int = 0,
    max_ticks: int | None = None,
    portfolio: Sequence[Sequence[Queue]] | None = None,
) -> SolveResult:
    """Search ``world`` from the state it is in (freshly loaded: tick 0) for a way to the exit.

    Args:
        world: The level's world; it must be a :class:`SolvableWorld`. It is left in some
            searched state.
        level: The level (for the layout heuristic).
        actions: The game's actions (macro-actions use ``left``, ``right``, ``up``, ``down``,
            ``jump`` where the game has them).
        step_s: Length of one tick.
        budget_s: Give up after this many seconds.
        progress: Called about four times a second with the result so far.
        held: The keys held in the tick before (when searching from the middle of a run:
            the next tick's pressed and released edges follow from them).
        max_ticks: Give up after simulating this many ticks (a budget that does not depend
            on the machine's speed or load: the same search every time).
        portfolio: The searches run side by side, each its queues (default
            :data:`PORTFOLIO`).

    The result's inputs start at the world's tick then (``world.ticks``).

    Raises:
        Unsolvable: The world has no savestates or the level no exit.
    """
    if not isinstance(world, SolvableWorld):
        raise Unsolvable(
            "the game's world cannot be searched: it needs capture/restore (savestates) and "
            "player_feet_px, player_velocity_px_s, player_hurt (engine.app.solver)"
        )
    started = clock()
    root_state = world.capture()
    jump_tiles, reach_tiles, measured_ticks = _measure_jump(world, actions, step_s, root_state)
    find_lifts = getattr(world, "solver_lifts", None)
    lifts = find_lifts() if callable(find_lifts) else ()
    layout = LayoutMap(level, jump_tiles=jump_tiles, reach_tiles=reach_tiles, lifts=lifts)
    macros = macros_for(actions)
    if not macros:
        raise Unsolvable("the game has none of the actions left, right, up, down, jump")
    searches = tuple(tuple(plan) for plan in (portfolio if portfolio is not None else PORTFOLIO))
    if not searches or not all(searches):
        raise ValueError("the portfolio needs at least one search, each at least one queue")
    macro_ticks = max(1, round(MACRO_S / step_s))
    masks = [actions.mask(macro.held) for macro in macros]
    bases = _bases(macros)
    hashed = {index for index, base in enumerate(bases) if base is not None}
    hashed |= {base for base in bases if base is not None}
    tile = layout.tile_px
    quantum = POSITION_STEP_TILES * tile
    result = SolveResult(solved=False, simulated_ticks=measured_ticks)
    tick_limit = max_ticks if max_ticks is not None else -1
    counter = itertools.count()

    physics: Any = getattr(world, "physics", None)
    has_bodies = getattr(physics, "current", None) is not None

    def grounded(velocity: tuple[float, float]) -> bool:
        standing = getattr(world, "player_grounded", None)
        return bool(standing) if standing is not None else velocity[1] == 0.0

    jump_bit = actions.mask(("jump",)) if "jump" in actions else 0
    near_px = NEAR_TILES * tile

    player_body = getattr(world, "player_body", None)

    def near_bodies(feet: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
        """Rows and positions ``(x, y)`` px of the bodies near the player (not its own)."""
        xy = physics.current[:, :2]
        near = np.abs(xy - feet).max(axis=1) < near_px
        if player_body is not None and player_body in physics:
            near[physics.row_of(player_body)] = False
        close = np.flatnonzero(near)
        return close, xy[close]

    def cells_of(xy: np.ndarray) -> bytes:
        """The tiles the bodies at ``xy`` are in, as bytes (part of a state's key)."""
        return np.floor(xy / tile).astype(np.int64).tobytes()

    def key(
        feet: tuple[float, float],
        velocity: tuple[float, float],
        held: int,
        standing: bool,
        bodies: bytes,
    ) -> tuple[object, ...]:
        return (
            round(feet[0] / quantum),
            round(feet[1] / quantum),
            round(velocity[0] / (tile * 4)),
            round(velocity[1] / (tile * 4)),
            standing,  # standing on something, not at the top of a jump
            held & jump_bit,
            bodies,
        )

    no_rows = np.zeros(0, dtype=np.int64)
    no_xy = np.zeros((0, 2))
    start_feet = world.player_feet_px
    root_rows, root_xy = near_bodies(start_feet) if has_bodies else (no_rows, no_xy)
    root_standing = grounded(world.player_velocity_px_s)
    root_key = key(start_feet, world.player_velocity_px_s, 0, root_standing, cells_of(root_xy))
    root_cell = layout.cell(start_feet[0], start_feet[1] + tile / 2)
    roots = [_Node(next(counter), None, (), world.ticks, held, start_feet, 0.0) for _ in searches]
    for root in roots:  # one each: a node is expanded once per search
        root.distance = layout.distance_at(start_feet)
    kept_states = max(1, KEPT_STATES // len(searches))

    def search(plan: tuple[Queue, ...], track: _Track) -> Iterator[None]:
        """One search (its own queues, states seen and kept): yields before each
        expansion, ends when it has found the exit (``track.solution``) or run out."""
        root = track.best
        atoms: set[tuple[int, ...]] = set()

        far_px = FAR_STEP_TILES * tile

        def novelty(cell: tuple[int, int], standing: bool, rows: np.ndarray, xy: np.ndarray) -> int:
            """How new a state is (see :class:`Queue`): 1 if it shows something no state before
            it did (the player in a tile, standing or not; a body near the player somewhere, to
            :data:`POSITION_STEP_TILES`; or in a tile while the player is in its tile), 2 if only
            a body near the player somewhere while the player is in its tile, 3 if only any
            body somewhere (to :data:`FAR_STEP_TILES`) while the player is in its tile, else 4.
            Records what it shows."""
            found = 4
            mine = (-1, *cell, int(standing))
            if mine not in atoms:
                atoms.add(mine)
                found = 1
            row, column = cell
            cells = np.floor(xy / tile).astype(np.int64).tolist()
            fine = np.floor(xy / quantum).astype(np.int64).tolist()
            for index, (bx, by), (fx, fy) in zip(rows.tolist(), cells, fine, strict=True):
                for atom in ((index, bx, by, row, column), (index, fx, fy)):
                    if atom not in atoms:
                        atoms.add(atom)
                        found = 1
                pair = (index, fx, fy, row, column, int(standing))
                if pair not in atoms:
                    atoms.add(pair)
                    found = min(found, 2)
            if found == 4 and has_bodies:  # every body, near or far, to FAR_STEP_TILES
                coarse = np.floor(physics.current[:, :2] / far_px).astype(np.int64).tolist()
                for index, (bx, by) in enumerate(coarse):
                    seen_with = (-2, index, bx, by, row, column, int(standing))
                    if seen_with not in atoms:
                        atoms.add(seen_with)
                        found = 3
            return found

        states: OrderedDict[int, Savestate] = OrderedDict()
        states[root.id] = root_state
        seen: set[tuple[object, ...]] = {root_key}
        novelty(root_cell, root_standing, root_rows, root_xy)
        frontiers: list[list[tuple[float, int, _Node]]] = [[] for _ in plan]
        for frontier in frontiers:
            frontier.append((root.distance, root.id, root))
        turns = [index for index, queue in enumerate(plan) for _ in range(queue.turns)]
        turn = 0
        queued: dict[tuple[int, int], int] = {}  # states queued per tile
        ground_y: dict[int, float] = {root.id: root.feet_px[1]}

        def state_of(node: _Node) -> Savestate:
            """Put the world in ``node``'s state (restored, or rebuilt from an ancestor)."""
            kept = states.get(node.id)
            if kept is not None:
                states.move_to_end(node.id)
                world.restore(kept)
                return kept
            chain = []
            ancestor: _Node | None = node
            while ancestor is not None and ancestor.id not in states:
                chain.append(ancestor)
                ancestor = ancestor.parent
            world.restore(root_state if ancestor is None else states[ancestor.id])
            for step in reversed(chain):
                for snapshot in step.inputs:
                    world.tick(snapshot)
                    result.simulated_ticks += 1
            state = world.capture()
            states[node.id] = state
            if len(states) > kept_states:
                oldest = next(iter(states))
                if oldest == root.id:
                    states.move_to_end(root.id)
                states.popitem(last=False)
            return state

        def next_node() -> _Node | None:
            """The next node to expand: from the queue whose turn it is (or the next that has
            one), skipping nodes another queue has expanded already."""
            nonlocal turn
            for _ in range(len(turns)):
                frontier = frontiers[turns[turn]]
                turn = (turn + 1) % len(turns)
                while frontier:
                    _, _, node = heapq.heappop(frontier)
                    if not node.expanded:
                        node.expanded = True
                        return node
            return None

        while True:
            yield
            node = next_node()
            if node is None:
                track.exhausted = True
                return
            saved = state_of(node)
            first_hashes: dict[int, str] = {}  # macro -> the state hash after its first tick
            for index, held in enumerate(masks):
                if index:
                    world.restore(saved)
                previous = node.held
                inputs = []
                hurt = same = False
                for tick in range(macro_ticks):
                    snapshot = _snapshot(actions, previous, held)
                    previous = held
                    world.tick(snapshot)
                    result.simulated_ticks += 1
                    inputs.append(snapshot)
                    if world.completed:
                        break
                    if world.player_hurt:
                        hurt = True
                        break
                    if tick == 0 and index in hashed:
                        first_hashes[index] = world.state_hash()
                        plain = bases[index]
                        if plain is not None and first_hashes.get(plain) == first_hashes[index]:
                            same = True
                            break
                if hurt or same:
                    continue
                feet = world.player_feet_px
                child = _Node(next(counter), node, tuple(inputs), world.ticks, held, feet, 0.0)
                child.distance = layout.distance_at(feet)
                if world.completed:
                    track.solution = child
                    return
                velocity = world.player_velocity_px_s
                standing = grounded(velocity)
                rows, xy = near_bodies(feet) if has_bodies else (no_rows, no_xy)
                state_key = key(feet, velocity, held, standing, cells_of(xy))
                if state_key in seen:
                    continue
                seen.add(state_key)
                cell = layout.cell(feet[0], feet[1] + tile / 2)
                result.reached.add(cell)
                new = novelty(cell, standing, rows, xy)
                base = feet[1] if abs(velocity[1]) < 1e-6 else ground_y.get(node.id, feet[1])
                ground_y[child.id] = base
                track.climb_tiles = max(track.climb_tiles, (feet[1] - base) / tile)
                best = track.best
                if child.distance < best.distance or (
                    child.distance == best.distance and child.ticks < best.ticks
                ):
                    track.best = child
                if not np.isfinite(child.distance):
                    continue
                crowd = queued.get(cell, 0)
                queued[cell] = crowd + 1
                late = child.ticks * step_s / SECONDS_PER_TILE
                for queue, frontier in zip(plan, frontiers, strict=True):
                    if queue.novelty and new > queue.novelty:
                        continue
                    priority = child.distance + late + queue.crowding * crowd
                    heapq.heappush(frontier, (priority, child.id, child))

    tracks = [_Track(root) for root in roots]
    running = [search(plan, track) for plan, track in zip(searches, tracks, strict=True)]
    next_report = started + 0.25
    solution: _Node | None = None
    while solution is None and running:
        now = clock()
        if now - started > budget_s or 0 <= tick_limit <= result.simulated_ticks:
            break
        if progress is not None and now >= next_report:
            next_report = now + 0.25
            _fill_furthest(result, _best(tracks), layout, _climb(tracks))
            result.seconds = now - started
            progress(result, budget_s - (now - started))
        for run, track in list(zip(running, tracks, strict=False)):
            try:
                next(run)
            except StopIteration:
                running.remove(run)
            if track.solution is not None:
                solution = track.solution
                break
    result.seconds = clock() - started
    if solution is not None:
        result.solved = True
        path = _path(solution)
        result.inputs = [snapshot for step in path for snapshot in step.inputs]
        result.ticks = len(result.inputs)
        result.path_px = [step.feet_px for step in path]
        result.furthest_distance_tiles = 0.0
        row, column = layout.cell(solution.feet_px[0], solution.feet_px[1] + tile / 2)
        result.furthest = (column, layout.tiled_row(row))
        return result
    _fill_furthest(result, _best(tracks), layout, _climb(tracks))
    if all(track.exhausted for track in tracks) and result.stopped_by is None:
        result.stopped_by = "every reachable state was searched (the exit cannot be reached)"
    return result


@dataclass(slots=True, eq=False)
class _Track:
    """What one search of a portfolio found so far."""

    best: _Node
    climb_tiles: float = 0.0
    solution: _Node | None = None
    exhausted: bool = False


def _best(tracks: Sequence[_Track]) -> _Node:
    """The node nearest the exit any search reached (of two as near, the earlier)."""
    return min((track.best for track in tracks), key=lambda node: (node.distance, node.ticks))


def _climb(tracks: Sequence[_Track]) -> float:
    return max(track.climb_tiles for track in tracks)


def _bases(macros: Sequence[Macro]) -> list[int | None]:
    """For each macro, the earlier macro holding the same keys but up and down, if any.

    A macro that holds up or down on top of another's keys is cut short when its first
    tick leaves the world exactly as that macro's first tick did (the same state hash):
    holding up or down did nothing there (no ladder, no one-way platform underfoot), and
    the rest of it would be that macro again.
    """
    index_of = {frozenset(macro.held): index for index, macro in enumerate(macros)}
    bases: list[int | None] = []
    for index, macro in enumerate(macros):
        plain = frozenset(macro.held) - {"up", "down"}
        base = index_of.get(plain)
        bases.append(base if base is not None and base < index else None)
    return bases


def _measure_jump(
    world: Any, actions: ActionMap, step_s: float, start: Savestate
) -> tuple[float | None, float | None, int]:
    """How high (tiles) and how far to the side the player gets with a held running jump.

    Measured from the start, once to each side, on the world itself (the game's own
    movement, whatever its tuning): up to two seconds each, until the player is back on its
    feet. Returns ``(None, None, ticks)`` when the game has no jump or left/right actions.
    """
    if not all(name in actions for name in ("jump", "left", "right")):
        return None, None, 0
    tile = float(world.level.tile_size_px)
    limit = max(1, round(2.0 / step_s))
    best_rise = best_reach = 0.0
    ticks = 0
    for side in ("right", "left"):
        world.restore(start)
        x0, y0 = world.player_feet_px
        held = actions.mask((side, "jump"))
        previous = 0
        airborne = False
        for _ in range(limit):
            world.tick(_snapshot(actions, previous, held))
            previous = held
            ticks += 1
            x, y = world.player_feet_px
            best_rise = max(best_rise, (y - y0) / tile)
            vy = world.player_velocity_px_s[1]
            airborne = airborne or abs(vy) > 1e-6
            if (airborne and abs(vy) < 1e-6) or world.player_hurt or world.completed:
                break
        best_reach = max(best_reach, abs(x - x0) / tile / 2)
    world.restore(start)
    if best_rise <= 0.0:
        return None, None, ticks
    return best_rise, min(max(best_reach, 1.0), MAX_REACH_TILES), ticks


def _path(node: _Node) -> list[_Node]:
    path = []
    step: _Node | None = node
    while step is not None:
        path.append(step)
        step = step.parent
    return path[::-1]


def _fill_furthest(result: SolveResult, best: _Node, layout: LayoutMap, climb: float) -> None:
    row, column = layout.cell(best.feet_px[0], best.feet_px[1] + layout.tile_px / 2)
    result.furthest = (column, layout.tiled_row(row))
    result.furthest_distance_tiles = best.distance
    result.sealed_off = best.distance >= layout.walled_off
    if result.sealed_off:
        result.furthest_distance_tiles = best.distance - layout.walled_off
    result.path_px = [step.feet_px for step in _path(best)]
    exit_columns = [c for _, c in layout.exit_cells]
    toward = 1 if (sum(exit_columns) / len(exit_columns)) >= column else -1
    result.stopped_by = layout.wall_after(row, column, toward, climb)


def record_solution(
    definition: GameDefinition,
    level_path: Path,
    settings: RunSettings,
    actions: ActionMap,
    inputs: Sequence[InputSnapshot],
    *,
    game_version: str,
) -> Replay:
    """Play ``inputs`` on a freshly loaded level and record them as a replay (format 2).

    Raises:
        Unsolvable: The inputs do not complete the level from a fresh start (a savestate that
            was not exact would show here).
    """
    from engine.app.replay_run import HASH_EVERY_TICKS
    from engine.input.replay import ReplayRecorder, hash_level_file

    world = definition.load_world(level_path, settings)
    recorder = ReplayRecorder(
        actions,
        level_id=level_path.name,
        level_hash=hash_level_file(level_path),
        tick_rate_hz=settings.tick_rate.rate_hz,
        game_version=game_version,
        hash_every=HASH_EVERY_TICKS,
        settings_hashes=settings.section_hashes(),
    )
    for tick, snapshot in enumerate(inputs):
        world.tick(snapshot)
        recorder.record(tick, snapshot, world.state_hash())
        if world.completed:
            break
    if not world.completed:
        raise Unsolvable(
            f"{level_path}: the solver's inputs do not finish the level from a fresh start"
        )
    return recorder.to_replay()


def describe(result: SolveResult, level_name: str) -> str:
    """The one line ``--solve`` prints."""
    rate = f"{result.simulated_ticks:,} ticks simulated in {result.seconds:.1f} s " + (
        f"({result.ticks_per_s:,.0f} ticks/s)"
    )
    if result.solved:
        return f"{level_name}: solved in {result.ticks} ticks; {rate}"
    column, row = result.furthest
    line = (
        f"{level_name}: NOT solved: the furthest point reached is column {column}, row {row} "
        f"(Tiled's numbering), {result.furthest_distance_tiles:.0f} tiles from the exit"
    )
    if result.sealed_off:
        line += " in a straight line (no open way through the tiles from there)"
    if result.stopped_by:
        line += f"; stopped by {result.stopped_by}"
    return f"{line}; {rate}"


def as_json(result: SolveResult) -> dict[str, Any]:
    """The object ``--solve --json`` prints."""
    data: dict[str, Any] = {
        "solved": result.solved,
        "ticks": result.ticks if result.solved else None,
        "simulated_ticks": result.simulated_ticks,
        "seconds": round(result.seconds, 3),
        "ticks_per_s": round(result.ticks_per_s),
    }
    if not result.solved:
        column, row = result.furthest
        data["furthest"] = {
            "column": column,
            "row": row,
            "distance_tiles": result.furthest_distance_tiles,
            "sealed_off": result.sealed_off,
        }
        data["stopped_by"] = result.stopped_by
    return data


def terminal_progress(level_name: str, stream: Any = None) -> Progress:
    """A progress line that rewrites itself on a terminal (``\\r``)."""
    out = stream if stream is not None else sys.stderr

    def show(result: SolveResult, left_s: float) -> None:
        column, row = result.furthest
        out.write(
            f"\r{level_name}: furthest column {column} row {row} "
            f"({result.furthest_distance_tiles:.0f} tiles from the exit), "
            f"{result.simulated_ticks:,} ticks simulated, {max(left_s, 0):.0f} s left   "
        )
        out.flush()

    return show
