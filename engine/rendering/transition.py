"""Screen transitions: a short fade from black when the screen changes.

A cut from the title to a level, or from a level to its complete screen, is abrupt; a fade of
a fifth of a second reads as one motion. :class:`Fade` is pure: it is started with the frame
time of the change and answers, for any later frame time, how dark the picture is still
(:meth:`Fade.alpha_at`). The engine draws that as one translucent rectangle over the picture
(``Engine.fade_in``), after the scene, so a scene knows nothing about it.

The fade is presentation only: it reads the frame clock, never the game's state, and it
changes no state (a replay plays the same ticks and hashes with it or without it). It starts
dark, so the first frame of a scene that is still laying itself out shows black, not a flash of
half-drawn text.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FADE_MS", "Fade"]

FADE_MS = 180
"""How long a screen takes to fade in."""


@dataclass(slots=True)
class Fade:
    """A fade in from black (see the module docstring).

    Attributes:
        duration_ns: How long it lasts.
        start_ns: The frame time it started at, or None before the first frame drawn.
    """

    duration_ns: int = FADE_MS * 1_000_000
    start_ns: int | None = None

    def alpha_at(self, now_ns: int) -> int:
        """The black overlay's opacity at ``now_ns`` (255 at the start, 0 when done).

        The first call fixes the start (the change's first drawn frame), so time spent
        loading the new screen does not eat the fade.
        """
        if self.start_ns is None:
            self.start_ns = now_ns
        if self.duration_ns <= 0:
            return 0
        left = min(1.0, max(0.0, 1.0 - (now_ns - self.start_ns) / self.duration_ns))
        return max(0, min(255, round(255 * left * left)))  # eases out

    def done(self, now_ns: int) -> bool:
        """Whether the fade is over at ``now_ns``."""
        return self.start_ns is not None and now_ns - self.start_ns >= self.duration_ns
