"""``python -m baccarat_sim.leak``: what leaked card information is worth (see :mod:`baccarat_sim.cli.leak`)."""

import sys

from .cli.leak import main

if __name__ == "__main__":
    sys.exit(main())
