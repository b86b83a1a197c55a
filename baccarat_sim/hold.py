"""``python -m baccarat_sim.hold``: what a table does over N rounds (see :mod:`baccarat_sim.cli.hold`)."""

import sys

from .cli.hold import main

if __name__ == "__main__":
    sys.exit(main())
