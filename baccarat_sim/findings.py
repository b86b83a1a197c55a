"""``python -m baccarat_sim.findings``: the findings page's command line (see :mod:`baccarat_sim.cli.findings`)."""

import sys

from .cli.findings import main

if __name__ == "__main__":
    sys.exit(main())
