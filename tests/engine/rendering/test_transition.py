"""The screen fade: dark at its first frame, clear after its duration, never brighter then darker."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rendering.transition import Fade


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 10**9), st.integers(0, 10**12), st.lists(st.integers(0, 10**9), max_size=20))
def test_the_fade_clears_monotonically_and_ends(
    duration_ns: int, start_ns: int, steps: list[int]
) -> None:
    fade = Fade(duration_ns)
    assert fade.alpha_at(start_ns) == 255  # the first frame is black, whenever it comes
    now_ns, last = start_ns, 255
    for step in sorted(steps):
        now_ns = start_ns + step
        alpha = fade.alpha_at(now_ns)
        assert 0 <= alpha <= last
        last = alpha
    assert fade.alpha_at(start_ns + duration_ns) == 0 and fade.done(start_ns + duration_ns)
