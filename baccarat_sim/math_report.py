"""``python -m baccarat_sim.math_report``: the math report a lab receives (:mod:`baccarat_sim.cli.math_report`)."""

import sys

if __name__ == "__main__":  # a stop signal that comes while the command is imported is heard too
    from .storage.signals import FIRST_STOP

    FIRST_STOP.install()

from .cli.math_report import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
