"""``python -m baccarat_sim.audit``: audit real play from its logs (see :mod:`baccarat_sim.cli.audit`)."""

import sys

if __name__ == "__main__":  # a stop signal that comes while the command is imported is heard too
    from .storage.signals import FIRST_STOP

    FIRST_STOP.install()

from .cli.audit import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
