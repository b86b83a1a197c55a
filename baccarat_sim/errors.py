"""Typed errors: what the library raises on purpose, in its own terms.

Every error the library raises because of its *input* is an :class:`InputError`
that names the parameter at fault (``param``, the library's own name such as
``"decks"`` or ``"rounds"``) and says what is allowed. A command line maps the
parameter to the option that set it (``--decks``) and prints one line; every
other exception is a bug.

>>> from baccarat_sim.errors import InputError
>>> error = InputError("decks", "must be a whole number from 1 to 16, got 20")
>>> str(error), error.param
('decks: must be a whole number from 1 to 16, got 20', 'decks')
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "BaccaratSimError",
    "CheckpointError",
    "CheckpointInUse",
    "ConditionError",
    "InputError",
    "InternalError",
    "InvalidRules",
    "InvalidStrategy",
    "LimitError",
    "ShoeError",
    "ShoeMismatchWarning",
]


class BaccaratSimError(Exception):
    """Base of every error the library raises on purpose (never a bug)."""


class InputError(BaccaratSimError, ValueError):
    """Input the library cannot use: one line naming the parameter and what is allowed.

    Parameters
    ----------
    param : str
        The library parameter at fault (``"rounds"``, ``"decks"``, ``"remove"``,
        ...), or ``""`` when the message itself names the file and key at fault.
    message : str
        What is wrong and what is allowed, without the parameter name.
    """

    def __init__(self, param: str, message: str):
        self.param = param
        self.message = message
        super().__init__(f"{param}: {message}" if param else message)

    def __reduce__(self):
        # Dask ships errors between processes: rebuild from both arguments, not from str(self).
        return (type(self), (self.param, self.message))


class InvalidRules(InputError):
    """A rule set that cannot be used; the message names the file and key at fault."""


class ConditionError(InputError):
    """A condition of a pay table that cannot be read or names an unknown feature or value."""


class InvalidStrategy(InputError):
    """A counting strategy that cannot be used; the message names the file and key at fault."""


class ShoeError(InputError):
    """A shoe that cannot be dealt (a deck count, a card to remove, a composition)."""


class LimitError(InputError):
    """A bet slip that breaks a table limit of the rule set; the message names the limit."""


class ShoeMismatchWarning(UserWarning):
    """A histogram settled under a rule set of another deck count: the figures are the histogram's shoe's."""


class CheckpointError(InputError):
    """A checkpoint that cannot be resumed (unreadable, damaged, or from another run)."""


class CheckpointInUse(CheckpointError):
    """A checkpoint another run holds (its lock): the message names that run."""


class InternalError(RuntimeError):
    """A check the library makes of its own results failed: a bug, never the input (not a :class:`BaccaratSimError`)."""


class BackendError(BaccaratSimError, RuntimeError):
    """A cluster backend that cannot run (no Dask, no scheduler, mismatched workers, failed tasks).

    ``param`` names the setting at fault when there is one (``"scheduler"``).
    """

    def __init__(self, message: str, param: str = ""):
        self.param = param
        self.message = message
        super().__init__(f"{param}: {message}" if param else message)

    def __reduce__(self):
        return (type(self), (self.message, self.param))
