"""Animations advance with ticks: the same tick always shows the same frame."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.entities import Animator, Clip


def test_a_looping_clip_cycles_and_a_one_shot_holds_its_last_frame() -> None:
    walk = Clip(frames=4, ticks_per_frame=3)
    assert [walk.frame_at(t) for t in range(14)] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0]
    once = Clip(frames=3, ticks_per_frame=2, loop=False)
    assert [once.frame_at(t) for t in range(8)] == [0, 0, 1, 1, 2, 2, 2, 2]
    assert walk.length_ticks == 12


def test_the_animator_keeps_its_place_unless_the_state_changes() -> None:
    animator = Animator({"idle": Clip(1), "walk": Clip(8, ticks_per_frame=4)}, "idle")
    animator.play("walk", tick=100)
    animator.play("walk", tick=110)  # already walking: keeps the place
    assert animator.frame(130) == (130 - 100) // 4 % 8
    animator.play("walk", tick=130, restart=True)
    assert animator.frame(130) == 0
    assert animator.state_key() == ("walk", 130)
    with pytest.raises(ValueError, match="unknown animation state"):
        animator.play("fly", tick=0)


def test_a_one_shot_reports_when_it_is_done() -> None:
    animator = Animator({"squash": Clip(2, ticks_per_frame=5, loop=False)}, "squash", tick=10)
    assert not animator.finished(19)
    assert animator.finished(20)


@given(
    frames=st.integers(1, 12),
    ticks_per_frame=st.integers(1, 10),
    start=st.integers(0, 10_000),
    tick=st.integers(0, 20_000),
)
def test_the_frame_depends_only_on_the_ticks_since_the_state_began(
    frames: int, ticks_per_frame: int, start: int, tick: int
) -> None:
    a = Animator({"s": Clip(frames, ticks_per_frame)}, "s", tick=start)
    b = Animator({"s": Clip(frames, ticks_per_frame)}, "s", tick=start + 1000)
    assert a.frame(tick) == b.frame(tick + 1000)
    assert 0 <= a.frame(tick) < frames


def test_clips_need_frames() -> None:
    with pytest.raises(ValueError):
        Clip(0)
    with pytest.raises(ValueError):
        Clip(2, ticks_per_frame=0)
