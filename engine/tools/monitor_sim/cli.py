"""Command line of the monitor simulator: ``python -m engine.tools.monitor_sim``.

Examples::

    python -m engine.tools.monitor_sim --policy naive                 # the seed's first loop at 60 Hz
    python -m engine.tools.monitor_sim --policy fuzzy62 --refresh-hz 59.94
    python -m engine.tools.monitor_sim --policy auto --stall-s 1 --stall-at 600 --json
    python -m engine.tools.monitor_sim --matrix                       # every policy x every cell
    python -m engine.tools.monitor_sim --matrix --full                # ... the seeds' loops in both phases
    python -m engine.tools.monitor_sim --policy naive,auto --refresh-hz 59.94 --plot pacing.png
    python -m engine.tools.monitor_sim --refresh-hz 144 --noise-model heavy --noise-ms 0.25
    python -m engine.tools.monitor_sim --sweep-seeds 1-130           # the jitter rows, 130 seeds each
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from engine.runtime.launch import OneLineParser, count_arg, number_arg, png_path
from engine.timing.frame_delay import AUTO, MAX_FIXED_MS, OFF
from engine.tools.monitor_sim.display import DEFAULT_PRESENT_JITTER
from engine.tools.monitor_sim.policies import ALL_POLICIES
from engine.tools.monitor_sim.simulation import REFERENCE_NOISE_MS, SimConfig, simulate
from engine.tools.monitor_sim.survey import FAMILIES as SURVEY_FAMILIES

PROG = "python -m engine.tools.monitor_sim"
MAX_UPDATES = 1_000_000
"""Most updates one run simulates (about 20 s on a 2-core machine; the seed's runs are 10,000)."""
MAX_FRAMES = 4_000_000
"""Most frames one run may simulate, estimated from the flags (:func:`simulated_frames`): what
1,000,000 updates at 60 Hz make on a 240 Hz display; memory grows with frames, not updates."""
MAX_FRAME_INDEX = 100_000_000
"""Largest frame number a flag names (the simulator stops by 100 frames per update anyway)."""
MAX_SEED = 1_000_000
"""Largest ``--seed``."""
MAX_SWEEP_SEEDS = 10_000
"""Most seeds one ``--sweep-seeds`` runs (each runs every jitter cell: the README's is 130)."""
MODES = (("--matrix", "matrix"), ("--sweep-seeds", "sweep_seeds"), ("--survey", "survey"))
"""The flags that run many simulations (flag, attribute): one at a time, none with ``--plot``."""


def _policies(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    for name in names:
        if name not in ALL_POLICIES:
            raise argparse.ArgumentTypeError(
                f"unknown policy {name!r}; choose from {', '.join(ALL_POLICIES)}"
            )
    if not names:
        raise argparse.ArgumentTypeError("no policy given")
    return names


def _frame_delay(text: str) -> str | float:
    word = text.strip().lower()
    if word in (AUTO, OFF):
        return word
    try:
        return number_arg("frame delay", maximum=MAX_FIXED_MS, unit=" ms")(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f'frame delay must be "auto", "off" or 0..{MAX_FIXED_MS:g} ms, got {text[:30]!r}'
        ) from None


def _seed_range(text: str) -> range:
    first, dash, last = text.partition("-")
    parse = count_arg("seed", 0, maximum=MAX_SEED)
    if not dash:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST (as 1-130), got {text[:30]!r}")
    seeds = range(parse(first.strip()), parse(last.strip()) + 1)
    if not seeds:
        raise argparse.ArgumentTypeError(f"the last seed is before the first in {text!r}")
    if len(seeds) > MAX_SWEEP_SEEDS:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_SWEEP_SEEDS:,} seeds in one sweep, got {len(seeds):,} ({text[:30]})"
        )
    return seeds


def build_parser() -> argparse.ArgumentParser:
    """The simulator's argument parser."""
    p = OneLineParser(
        prog=PROG,
        description="Run frame-pacing policies against a simulated display and report how smooth "
        "and how faithful they are (seed 001's Monitor Simulator, extended).",
    )
    p.add_argument(
        "--policy",
        type=_policies,
        default=("auto",),
        help=f"policy, or comma-separated policies ({', '.join(ALL_POLICIES)}); default auto",
    )
    p.add_argument(
        "--refresh-hz",
        type=number_arg("refresh rate", minimum=1, maximum=1000, unit=" Hz"),
        default=60.0,
        help="display refresh rate in Hz (maximum rate with --vrr); default 60",
    )
    p.add_argument("--no-vsync", action="store_true", help="presents do not wait for vblank")
    p.add_argument(
        "--tick-hz",
        type=number_arg("tick rate", minimum=1, maximum=1000, unit=" Hz"),
        default=60.0,
        help="fixed update rate in Hz; default 60",
    )
    p.add_argument(
        "--updates",
        type=count_arg("updates", 1, maximum=MAX_UPDATES),
        default=10_000,
        help="run until this many updates; default 10000",
    )
    p.add_argument(
        "--noise-ms",
        type=number_arg("noise", maximum=1000, unit=" ms"),
        default=REFERENCE_NOISE_MS,
        help=f"half-range of the vblank wake-up noise; default {REFERENCE_NOISE_MS:.4f}",
    )
    p.add_argument(
        "--noise-model",
        choices=("uniform", "heavy"),
        default="uniform",
        help="uniform: wake-ups uniform in +-noise; heavy: that, and 1%% of all wake-ups "
        "2-8 ms late (a busy desktop); default uniform",
    )
    p.add_argument(
        "--update-ms",
        type=number_arg("update cost", maximum=1000, unit=" ms"),
        default=0.01,
        help="cost of one update; default 0.01",
    )
    p.add_argument(
        "--render-ms",
        type=number_arg("render cost", maximum=1000, unit=" ms"),
        default=5.0,
        help="cost of rendering a frame; default 5",
    )
    p.add_argument(
        "--present-ms",
        type=number_arg("present cost", maximum=1000, unit=" ms"),
        default=0.0,
        help="work inside the present call itself, vsync or not (software GL under X: about 4);"
        " default 0",
    )
    p.add_argument(
        "--present-jitter",
        type=number_arg("present jitter", maximum=1),
        default=DEFAULT_PRESENT_JITTER,
        help="how much one present's work varies, a fraction of --present-ms either way (0-1);"
        f" default {DEFAULT_PRESENT_JITTER:g} (a quiet machine; with the other core busy,"
        " copies here vary 3-5 fold)",
    )
    p.add_argument(
        "--spike-ms",
        type=number_arg("spike", maximum=10_000, unit=" ms"),
        default=0.0,
        help="extra render cost of every --spike-every-th frame",
    )
    p.add_argument(
        "--spike-every",
        type=count_arg("spike period", 0, maximum=MAX_FRAME_INDEX),
        default=0,
        help="frames between spikes (0: none)",
    )
    p.add_argument(
        "--stall-s",
        type=number_arg("stall", maximum=3600, unit=" s"),
        default=0.0,
        help="one stall of this many seconds ...",
    )
    p.add_argument(
        "--stall-at",
        type=count_arg("stall frame", 0, maximum=MAX_FRAME_INDEX),
        default=600,
        help="... at this frame; default 600",
    )
    p.add_argument(
        "--vsync-off-at",
        type=count_arg("frame", 0, maximum=MAX_FRAME_INDEX),
        default=None,
        help="switch vsync off at this frame",
    )
    p.add_argument(
        "--vsync-on-at",
        type=count_arg("frame", 0, maximum=MAX_FRAME_INDEX),
        default=None,
        help="vsync is off until this frame, then on",
    )
    p.add_argument(
        "--reported-hz",
        type=number_arg("reported refresh rate", maximum=1000, unit=" Hz"),
        default=None,
        help="refresh rate the OS reports for the screen mode (0: none); default: the refresh "
        "rate rounded to whole Hz",
    )
    p.add_argument(
        "--queue-depth",
        type=count_arg("queue depth", 1, maximum=3),
        default=1,
        help="vsync on: frames that may wait for their vblank (the swap chain, 'max pre-rendered "
        "frames'); a present returns at once while fewer wait and blocks until a vblank frees "
        "a place; 1 (default): it returns when its own image flips",
    )
    p.add_argument(
        "--frame-delay",
        type=_frame_delay,
        default="off",
        help='frames just in time (our policies but strict): "auto", "off" (default) or '
        "milliseconds after the frame could start",
    )
    p.add_argument(
        "--hold",
        action="store_true",
        help="our policies: never aim a frame at a vblank its work might miss (always hold for "
        "the one it surely makes), and present every frame, as before issue 24's choice",
    )
    p.add_argument(
        "--mailbox",
        action="store_true",
        help="a compositor: a present never blocks; each vblank shows the newest image "
        "presented before it (older unshown ones are dropped)",
    )
    p.add_argument(
        "--vrr",
        action="store_true",
        help="variable refresh: present when ready, at most --refresh-hz",
    )
    p.add_argument(
        "--phase",
        choices=("aligned", "random"),
        default="aligned",
        help="aligned: clock and vblanks start together; random: anywhere",
    )
    p.add_argument(
        "--seed",
        type=count_arg("seed", 0, maximum=MAX_SEED),
        default=1,
        help=f"random seed, 0..{MAX_SEED:,} (with --survey, the draw's); default 1",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument(
        "--matrix",
        action="store_true",
        help="run the standard matrix (every policy, or those given, x every cell x both phases;"
        " the seeds' loops in the aligned phase only unless --full)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="with --matrix: the seeds' loops in both phases too (as MATRIX.md; about twice as long)",
    )
    p.add_argument(
        "--sweep-seeds",
        type=_seed_range,
        metavar="FIRST-LAST",
        default=None,
        help="run the matrix's jitter rows (auto, interpolated, strict) with every seed from FIRST "
        "to LAST and report each measure's worst seed per cell",
    )
    p.add_argument(
        "--survey",
        choices=SURVEY_FAMILIES,
        default=None,
        help="draw --draws displays of a family from --seed and run each with auto (see "
        "engine/tools/monitor_sim/survey.py); with --json, one object a draw per line",
    )
    p.add_argument(
        "--draws",
        type=count_arg("draws", 1, maximum=100_000),
        default=100,
        help="displays a --survey draws; default 100",
    )
    p.add_argument(
        "--workers",
        type=count_arg("workers", 1, maximum=256),
        default=None,
        help="processes for --matrix, --sweep-seeds and --survey; default: all cores",
    )
    p.add_argument(
        "--plot",
        type=png_path,
        metavar="FILE.png",
        default=None,
        help="draw updates per vsync, drift and motion error for the chosen policies",
    )
    return p


def simulated_frames(args: argparse.Namespace) -> float:
    """An upper estimate of the frames one run of these flags simulates.

    The run lasts ``updates / tick_hz`` simulated seconds. With vsync all along, at most one
    frame is shown per refresh; without it (or with vsync switched mid-run) frames are only
    limited by their own cost (``render_ms`` and the shortest present, ``present_ms`` less
    its jitter), and the simulator's own stop at 100 frames per update.
    """
    duration_s = args.updates / args.tick_hz
    vsync_all_along = not args.no_vsync and args.vsync_off_at is None and args.vsync_on_at is None
    frame_cost_ms = args.render_ms + args.present_ms * (1 - args.present_jitter)
    if vsync_all_along or args.vrr:
        per_second = args.refresh_hz
    elif frame_cost_ms > 0:
        per_second = 1000.0 / frame_cost_ms
    else:
        per_second = float("inf")
    return float(min(100 * args.updates, duration_s * per_second))


def config_from_args(args: argparse.Namespace, policy: str) -> SimConfig:
    """The run settings the flags describe."""
    return SimConfig(
        policy=policy,
        refresh_hz=args.refresh_hz,
        vsync=not args.no_vsync,
        tick_hz=args.tick_hz,
        updates=args.updates,
        noise_ms=args.noise_ms,
        update_ms=args.update_ms,
        render_ms=args.render_ms,
        present_ms=args.present_ms,
        present_jitter=args.present_jitter,
        spike_ms=args.spike_ms,
        spike_every=args.spike_every,
        stall_s=args.stall_s,
        stall_at=args.stall_at if args.stall_s else 0,
        vsync_off_at=args.vsync_off_at,
        vsync_on_at=args.vsync_on_at,
        vrr=args.vrr,
        queue_depth=args.queue_depth,
        mailbox=args.mailbox,
        frame_delay=args.frame_delay,
        aim=not args.hold,
        reported_hz=args.reported_hz,
        noise_model=args.noise_model,
        phase=args.phase,
        seed=args.seed,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulator; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    batch = [flag for flag, on in MODES if getattr(args, on)]
    if args.plot and batch:
        parser.error(f"--plot draws the chosen policies' runs; it does not work with {batch[0]}")
    if len(batch) > 1:
        parser.error(f"{batch[0]} and {batch[1]} are two different runs: choose one")
    frames = simulated_frames(args)
    if not batch and frames > MAX_FRAMES:
        paced_by = (
            f"--refresh-hz {args.refresh_hz:g}"
            if not args.no_vsync and args.vsync_off_at is None and args.vsync_on_at is None
            else f"--render-ms + --present-ms {args.render_ms + args.present_ms:g} (no vsync)"
        )
        parser.error(
            f"--updates {args.updates:,} at --tick-hz {args.tick_hz:g} with {paced_by} would "
            f"simulate about {frames:,.0f} frames; at most {MAX_FRAMES:,} are allowed "
            "(fewer --updates or a higher --tick-hz)"
        )
    explicit_policy = argv is not None and any(a.startswith("--policy") for a in argv)
    explicit_policy = explicit_policy or (
        argv is None and any(a.startswith("--policy") for a in sys.argv)
    )
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(
                f"{PROG}: error: --plot needs matplotlib: pip install -e '.[plot]'", file=sys.stderr
            )
            return 2
    if args.matrix:
        from engine.tools.monitor_sim.matrix import run_matrix
        from engine.tools.monitor_sim.report import format_matrix

        policies = args.policy if explicit_policy else ALL_POLICIES
        started = time.perf_counter()
        rows = run_matrix(
            config_from_args(args, policies[0]), policies, args.workers, full=args.full
        )
        seconds = time.perf_counter() - started
        if args.json:
            print(json.dumps([dict(result.to_json(), cell=cell) for cell, result in rows]))
        else:
            print(format_matrix(rows))
            print(f"{len(rows)} runs in {seconds:.1f} s")
        return 0
    if args.sweep_seeds:
        from engine.tools.monitor_sim.sweep import format_sweep, sweep_seeds

        started = time.perf_counter()
        swept = sweep_seeds(config_from_args(args, "auto"), args.sweep_seeds, workers=args.workers)
        seconds = time.perf_counter() - started
        if args.json:
            print(json.dumps([row.to_json() for row in swept]))
        else:
            print(format_sweep(swept))
            seeds = args.sweep_seeds
            print(f"seeds {seeds[0]}-{seeds[-1]}: {len(swept)} cells in {seconds:.1f} s")
        return 0
    if args.survey:
        from engine.tools.monitor_sim.survey import format_survey, run_survey

        started = time.perf_counter()
        drawn = run_survey(args.survey, args.draws, args.seed, workers=args.workers)
        seconds = time.perf_counter() - started
        if args.json:
            print("\n".join(json.dumps(row.to_json()) for row in drawn))
        else:
            print(format_survey(drawn))
            print(f"{args.survey}, seed {args.seed}: {len(drawn)} draws in {seconds:.1f} s")
        return 0
    results = [
        simulate(config_from_args(args, name), traces=bool(args.plot)) for name in args.policy
    ]
    if args.plot:
        from engine.tools.monitor_sim.plot import plot_results

        plot_results(results, args.plot)
    if args.json:
        objects = [result.to_json() for result in results]
        print(json.dumps(objects[0] if len(objects) == 1 else objects))
    else:
        from engine.tools.monitor_sim.report import format_result

        print(
            "\n\n".join(
                f"== {r.policy} ==\n{format_result(r)}" if len(results) > 1 else format_result(r)
                for r in results
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
