"""``python -m engine.config``: print every key with its default, list key names, or check a file."""

import sys

from engine.config.loader import main

sys.exit(main())
