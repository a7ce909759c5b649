"""The sample platformer, built only on the engine's public API."""

from engine.runtime.interrupt import exit_quietly_on_interrupt

exit_quietly_on_interrupt(__name__)  # Ctrl+C while ``python -m game`` imports: one line
