"""``--plot``: a picture of how each policy paces, for people who would rather look than read."""

from __future__ import annotations

from collections.abc import Sequence

from engine.tools.monitor_sim.simulation import SimResult

#: Frames of the updates-per-vsync strip.
STRIP_FRAMES = 300


def _first_irregular_frame(results: Sequence[SimResult]) -> int:
    """The first frame after start-up where any policy ran other than its usual number of ticks."""
    firsts: list[int] = []
    for result in results:
        trace = result.update_trace
        usual = max(set(trace), key=trace.count) if trace else 1
        firsts.extend(i for i, n in enumerate(trace) if i > 10 and n != usual)
    return min(firsts, default=0)


def plot_results(results: Sequence[SimResult], path: str) -> None:
    """Draw updates per shown frame, drift over time and motion error, one colour per policy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_updates, ax_drift, ax_motion) = plt.subplots(
        3, 1, figsize=(11, 9), constrained_layout=True
    )
    config = results[0].config
    title = (
        f"{config['refresh_hz']:g} Hz display, vsync {'on' if config['vsync'] else 'off'}"
        f"{', VRR' if config['vrr'] else ''}, {config['tick_hz']:g} Hz ticks, "
        f"render {config['render_ms']:g} ms, phase {config['phase']}"
    )
    fig.suptitle(title)
    count = len(results)
    strip_start = max(0, _first_irregular_frame(results) - STRIP_FRAMES // 3)
    motion_values: list[float] = []
    for i, result in enumerate(results):
        updates = result.update_trace[strip_start : strip_start + STRIP_FRAMES]
        offset = (i - (count - 1) / 2) * 0.08
        ax_updates.step(
            range(strip_start, strip_start + len(updates)),
            [u + offset for u in updates],
            where="mid",
            label=result.policy,
            linewidth=1.2,
        )
        if result.drift_trace:
            xs, ys = zip(*result.drift_trace, strict=True)
            ax_drift.plot(xs, ys, label=result.policy, linewidth=1)
        if result.motion_trace:
            xs, ys = zip(*result.motion_trace, strict=True)
            motion_values.extend(ys)
            ax_motion.plot(xs, ys, ".", markersize=1.5, label=result.policy)
    ax_updates.set_title(
        f"updates per shown frame ({STRIP_FRAMES} frames around the first irregular one; "
        "1 everywhere is smooth)"
    )
    if motion_values:  # one start-up outlier must not flatten the picture
        values = sorted(motion_values)
        low, high = values[len(values) // 500], values[-1 - len(values) // 500]
        margin = max(0.05, (high - low) * 0.1)
        ax_motion.set_ylim(low - margin, high + margin)
    ax_updates.set_xlabel("frame")
    ax_updates.set_ylabel("updates")
    ax_drift.set_title("drift: game time - real time + dropped time (0 keeps real time)")
    ax_drift.set_xlabel("real time (s)")
    ax_drift.set_ylabel("ms")
    ax_motion.set_title("motion error with interpolation (what the eye sees as judder)")
    ax_motion.set_xlabel("real time (s)")
    ax_motion.set_ylabel("ms")
    for ax in (ax_updates, ax_drift, ax_motion):
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    fig.savefig(path, dpi=110)
    plt.close(fig)
