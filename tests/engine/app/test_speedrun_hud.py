"""Split deltas against the personal best, else the sum of best segments; the status line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.app.speedrun_hud import AHEAD_COLOR, BEHIND_COLOR, split_delta, status_line
from engine.speedrun.timer import (
    Comparison,
    SpeedrunTimer,
    StrictStatus,
    format_delta_ms,
    ticks_delta_ms,
)
from engine.timing.tick_rate import TickRate

NAMES = ("a.json", "b.json", "c.json")


def run_splits(comparison: Comparison, segments: list[int], rate_hz: int = 60) -> list:
    timer = SpeedrunTimer(TickRate(rate_hz), NAMES, comparison)
    timer.start(0)
    splits = []
    for index, ticks in enumerate(segments):
        timer.add_ticks(ticks)
        splits.append(timer.split(index + 1))
    return splits


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 5000), min_size=3, max_size=3),
    st.lists(st.integers(1, 5000), min_size=3, max_size=3),
    st.sampled_from([30, 60, 144]),
)
def test_without_a_pb_the_delta_is_against_the_sum_of_golds(
    golds: list[int], segments: list[int], rate_hz: int
) -> None:
    comparison = Comparison(best_segment_ticks=dict(zip(NAMES, golds, strict=True)))
    rate = TickRate(rate_hz)
    for index, split in enumerate(run_splits(comparison, segments, rate_hz)):
        delta = split_delta(split, NAMES, comparison, rate)
        behind_ticks = sum(segments[: index + 1]) - sum(golds[: index + 1])
        assert delta.against == "SoB"
        assert delta.delta_ms == ticks_delta_ms(rate, behind_ticks)
        assert delta.color == (BEHIND_COLOR if delta.delta_ms > 0 else AHEAD_COLOR)
        assert delta.text == f"{format_delta_ms(delta.delta_ms)} vs SoB"


def test_a_pb_wins_over_golds_and_a_missing_gold_gives_no_delta() -> None:
    pb = Comparison(
        pb_cumulative_ticks={"a.json": 100, "b.json": 200, "c.json": 300},
        best_segment_ticks={"a.json": 90, "b.json": 90, "c.json": 90},
    )
    split = run_splits(pb, [110, 100, 100])[0]
    assert split_delta(split, NAMES, pb, TickRate(60)).text == "+0.166 vs PB"
    partial = Comparison(best_segment_ticks={"a.json": 90})
    splits = run_splits(partial, [100, 100, 100])
    assert split_delta(splits[0], NAMES, partial, TickRate(60)).against == "SoB"
    second = split_delta(splits[1], NAMES, partial, TickRate(60))
    assert second.delta_ms is None and second.text == "-"


def test_the_status_line_uses_the_overlays_words_and_colours() -> None:
    text, color = status_line(StrictStatus(True, "on", 0), "on")
    assert text == "strict  vsync on  dropped 0.000 s" and color == AHEAD_COLOR
    text, color = status_line(StrictStatus(True, "unknown", 1), "detecting")
    assert text == "strict  vsync detecting  dropped 0.001 s" and color == BEHIND_COLOR
