"""``python -m game``: the sample platformer.

The sample game is built in its own issue. Until it lands, this command says so and runs the
engine's demo scene with the same flags (``--headless``, ``--frames``, ``--config``, ...), so the
README's run command already works on a fresh machine.
"""

from __future__ import annotations

import sys

from engine.demo import main as demo_main


def main(argv: list[str] | None = None) -> int:
    """Run the placeholder: the engine demo."""
    print("The sample platformer is not here yet; running the engine demo.", file=sys.stderr)
    return demo_main(argv, prog="python -m game")


if __name__ == "__main__":
    sys.exit(main())
