"""``python -m baccarat_sim``: the same analyzer as ``python -m baccarat_sim.rtp``."""

import sys

from .cli.rtp import main

if __name__ == "__main__":
    sys.exit(main())
