"""``python -m baccarat_sim.compile``: compile every kernel ahead of time (see :mod:`baccarat_sim.cli.compile`)."""

import sys

from .cli.compile import main

if __name__ == "__main__":
    sys.exit(main())
