"""``python -m baccarat_sim.leak``: what leaked card information is worth (see :mod:`baccarat_sim.cli.leak`)."""

import sys

if __name__ == "__main__":  # a stop signal that comes while the command is imported is heard too
    from .storage.signals import FIRST_STOP

    FIRST_STOP.install()

from .cli.leak import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
