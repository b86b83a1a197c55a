"""``python -m baccarat_sim.hold``: what a table does over N rounds (see :mod:`baccarat_sim.cli.hold`)."""

import sys

if __name__ == "__main__":  # a stop signal that comes while the command is imported is heard too
    from .storage.signals import FIRST_STOP

    FIRST_STOP.install()

from .cli.hold import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
