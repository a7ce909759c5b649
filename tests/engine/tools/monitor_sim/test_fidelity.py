"""The simulator reproduces the seed's published numbers (reference model, aligned phase, 10k updates)."""

from __future__ import annotations

from engine.tools.monitor_sim.simulation import SimConfig, simulate


def test_naive_accumulator_double_updates_on_a_quarter_of_vsyncs_at_60_hz() -> None:
    r = simulate(SimConfig(policy="naive", refresh_hz=60))
    assert 0.23 <= r.double_updates / r.vsyncs <= 0.27  # seed: 2535 of 10002
    assert abs(r.vsyncs - 10_002) <= 5
    assert r.skipped_renders == 0


def test_fuzzy_60_to_62_double_updates_about_10_times_at_59_94_hz() -> None:
    r = simulate(SimConfig(policy="fuzzy62", refresh_hz=59.94))
    assert 5 <= r.double_updates <= 15  # seed: 10
    assert abs(r.vsyncs - 9991) <= 5  # seed: 9991


def test_fuzzy_59_to_61_never_double_updates_at_59_94_hz() -> None:
    r = simulate(SimConfig(policy="fuzzy61_59", refresh_hz=59.94))
    assert r.double_updates == 0


def test_fuzzy_59_to_61_with_vsync_off_loses_about_1_46_percent_of_game_time() -> None:
    r = simulate(SimConfig(policy="fuzzy61_59", vsync=False))
    assert abs(r.game_time_s - 166.667) < 0.001  # seed: 166.667
    ahead = r.system_time_s / r.game_time_s - 1
    assert 0.013 <= ahead <= 0.016  # seed: 169.102 / 166.667 - 1 = 1.46 %


def test_runs_are_deterministic_for_a_seed() -> None:
    a = simulate(SimConfig(policy="auto", refresh_hz=144, updates=2000, phase="random", seed=5))
    b = simulate(SimConfig(policy="auto", refresh_hz=144, updates=2000, phase="random", seed=5))
    assert a.to_json() == b.to_json()
    assert a.digits == b.digits
