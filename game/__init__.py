"""The sample platformer, built only on the engine's public API."""
