"""Text output of the simulator: the seed's digit line and totals, and the matrix table."""

from __future__ import annotations

from engine.tools.monitor_sim.simulation import SimResult

#: Digits shown before a long run's digit line is cut.
DIGITS_HEAD = 120
DIGITS_TAIL = 40


def digit_line(digits: str) -> str:
    """The digit string, cut in the middle with ``[...]`` when long (as in the seed)."""
    if len(digits) <= DIGITS_HEAD + DIGITS_TAIL + 5:
        return digits
    return f"{digits[:DIGITS_HEAD]}[...]{digits[-DIGITS_TAIL:]}"


def _fmt_hz(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def format_result(result: SimResult) -> str:
    """The seed's report for one run, plus our extra metrics."""
    verdict = {True: "vsync on", False: "vsync off", None: "undecided"}[result.vsync_detected]
    lines = [
        digit_line(result.digits),
        f"TOTAL UPDATES: {result.updates}",
        f"TOTAL VSYNCS: {result.vsyncs}",
        f"TOTAL DOUBLE UPDATES: {result.double_updates}",
        f"TOTAL SKIPPED RENDERS: {result.skipped_renders}",
        f"GAME TIME: {result.game_time_s:.3f}",
        f"SYSTEM TIME: {result.system_time_s:.3f}",
        f"ZERO-UPDATE FRAMES: {result.zero_update_frames}",
        f"DRIFT: {result.drift_s * 1000:+.3f} ms at the end, worst {result.max_abs_drift_s * 1000:.3f} ms",
        f"MAX UPDATES IN ONE FRAME: {result.max_updates_per_frame}",
        f"DROPPED TIME: {result.dropped_s:.3f} s",
        f"MOTION ERROR: interpolated RMS {result.motion_error_rms_ms:.4f} ms, "
        f"max {result.motion_error_max_ms:.4f} ms; not interpolated RMS "
        f"{result.judder_rms_ms:.4f} ms, max {result.judder_max_ms:.4f} ms",
        f"VBLANK ERROR: RMS {result.vblank_error_rms_ms:.4f} ms, max "
        f"{result.vblank_error_max_ms:.4f} ms ({result.repeated_vblanks} vblanks repeated an image)",
        f"VSYNC VERDICT: {verdict}",
        f"REFRESH ESTIMATE: {_fmt_hz(result.refresh_estimate_hz)} Hz",
        f"FRAMES PER SECOND: {result.fps:.2f} ({result.held_vblanks} vblanks held back, "
        f"{result.discarded_frames} frames discarded)",
        f"INPUT LATENCY: mean {result.latency_mean_ms:.2f} ms, "
        f"99th percentile {result.latency_p99_ms:.2f} ms",
    ]
    if result.bend_s:
        lines.append(f"LOCKED BEND: {result.bend_s * 1000:+.3f} ms")
    return "\n".join(lines)


MATRIX_COLUMNS = (
    ("policy", 17),
    ("phase", 7),
    ("cell", 17),
    ("upd", 6),
    ("vsyncs", 6),
    ("dbl", 5),
    ("zero", 5),
    ("skip", 5),
    ("max", 3),
    ("drift_ms", 9),
    ("worst_ms", 9),
    ("drop_s", 6),
    ("motion_ms", 9),
    ("judder_ms", 9),
    ("vbl_ms", 7),
    ("vbl_max", 7),
    ("rep", 5),
    ("vsync", 5),
    ("refresh", 9),
    ("fps", 7),
    ("held", 5),
    ("lat_ms", 6),
    ("lat99", 6),
)


def format_matrix(rows: list[tuple[str, SimResult]]) -> str:
    """One table row per (policy, phase, cell)."""
    header = " ".join(name.rjust(width) for name, width in MATRIX_COLUMNS)
    lines = [header, "-" * len(header)]
    for cell, r in rows:
        vsync = {True: "on", False: "off", None: "?"}[r.vsync_detected]
        values = (
            r.policy,
            r.config["phase"],
            cell,
            r.updates,
            r.vsyncs,
            r.double_updates,
            r.zero_update_frames,
            r.skipped_renders,
            r.max_updates_per_frame,
            f"{r.drift_s * 1000:+.2f}",
            f"{r.max_abs_drift_s * 1000:.2f}",
            f"{r.dropped_s:.2f}",
            f"{r.motion_error_rms_ms:.4f}",
            f"{r.judder_rms_ms:.3f}",
            f"{r.vblank_error_rms_ms:.4f}",
            f"{r.vblank_error_max_ms:.3f}",
            r.repeated_vblanks,
            vsync,
            "-" if r.refresh_estimate_hz is None else f"{r.refresh_estimate_hz:.3f}",
            f"{r.fps:.1f}",
            r.held_vblanks,
            f"{r.latency_mean_ms:.1f}",
            f"{r.latency_p99_ms:.1f}",
        )
        cols = zip(values, MATRIX_COLUMNS, strict=True)
        lines.append(" ".join(str(v).rjust(width) for v, (_, width) in cols))
    return "\n".join(lines)
