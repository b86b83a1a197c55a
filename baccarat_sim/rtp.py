"""``python -m baccarat_sim.rtp``: the analyzer's command line (see :mod:`baccarat_sim.cli.rtp`)."""

import sys

from .cli.rtp import main

if __name__ == "__main__":
    sys.exit(main())
