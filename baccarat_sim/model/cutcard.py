"""Where the cut card sits: :class:`CutCard`, and the one reading of a position in a file or on a command line.

A position is a number of cards from the end of the shoe, or a fraction of the
shoe rounded to whole cards (:func:`cards_at`); a range ``low..high`` places
the cut card uniformly in every shoe, and ``low`` must not exceed ``high``.
Rule files (``shoe.cut_card``), counting strategies (``cut_cards``) and the
command line (``--cut-cards``, ``--sweep cut=...``) all read positions here.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from ..errors import InputError

__all__ = ["LOW_ABOVE_HIGH", "CutCard", "as_pair", "cards_at", "parse_cut_positions", "parse_cut_sweep"]

#: What is wrong with a range whose low end lies above its high end (every reader says it alike).
LOW_ABOVE_HIGH = "low must not exceed high"

#: One end of a position in text: a card count (``14``) or a fraction of the shoe (``0.25``, ``.5``).
_BOUND = r"(\d+(?:\.\d*)?|\.\d+)"
_ITEM = re.compile(rf"^\s*{_BOUND}\s*(?::\s*{_BOUND}\s*)?$")


def cards_at(fraction: Fraction, n_cards: int) -> int:
    """The cut card's distance from the end, in whole cards, at ``fraction`` of a shoe of ``n_cards``.

    Rounded to the nearest card (half to even), in exact arithmetic.

    >>> cards_at(Fraction(1, 4), 416), cards_at(Fraction("0.45"), 416)
    (104, 187)
    """
    return int(round(Fraction(fraction) * n_cards))


def as_pair(value) -> list | None:
    """A data file's position as ``[low, high]``: a single value is both ends; None when it is neither.

    >>> as_pair(14), as_pair([100, 110]), as_pair([1, 2, 3])
    ([14, 14], [100, 110], None)
    """
    bounds = value if isinstance(value, list) else [value, value]
    return bounds if len(bounds) == 2 else None


@dataclasses.dataclass(frozen=True)
class CutCard:
    """Where the cut card sits, in cards from the end of the shoe.

    The position is drawn uniformly from ``low..high`` for every shoe (``low ==
    high`` for a fixed position). ``fraction`` keeps a position the rule file
    gave as a fraction of the shoe (e.g. "approximately half": ``(0.45, 0.55)``)
    so that it scales when the number of decks is changed.
    """

    low: int
    high: int
    fraction: tuple[Fraction, Fraction] | None = None

    @property
    def mean(self) -> float:
        """Mean distance of the cut card from the end of the shoe, in cards."""
        return (self.low + self.high) / 2

    def for_cards(self, n_cards: int) -> CutCard:
        """The same rule for a shoe of ``n_cards`` (only a fraction rescales)."""
        if self.fraction is None:
            return self
        low, high = (cards_at(f, n_cards) for f in self.fraction)
        return CutCard(low, high, self.fraction)


def parse_cut_positions(text: str, n_cards: int | None = None, *, example: str = "52,100:110") -> list[CutCard]:
    """Cut-card positions written as text: comma-separated, each a position or a range ``low:high``.

    A position is a number of cards from the end of the shoe (``14``, a whole
    number); given ``n_cards``, also a fraction of the shoe (``0.25``: a number
    with a decimal point, rounded to whole cards by :func:`cards_at`). Both ends
    of a range are of one kind.

    Parameters
    ----------
    text : str
    n_cards : int or None
        Cards in the shoe (None: card counts only).
    example : str
        Shown in the message about a malformed list.

    Returns
    -------
    list of CutCard
        In the order written (positions given as fractions keep no
        ``fraction``: they are cards of this shoe).

    Raises
    ------
    ValueError
        One line naming the item at fault and what is allowed.

    Examples
    --------
    >>> [(c.low, c.high) for c in parse_cut_positions("52, 100:110")]
    [(52, 52), (100, 110)]
    >>> [(c.low, c.high) for c in parse_cut_positions("14,0.25,0.45:0.55", 416)]
    [(14, 14), (104, 104), (187, 229)]
    """
    fractions = n_cards is not None
    items = text.split(",")
    if fractions and (not text.strip() or any(not item.strip() for item in items)):
        raise ValueError(f"give a comma-separated list of cut-card positions, e.g. {example}; got {text!r}")
    cuts = []
    for item in items:
        match = _ITEM.match(item)
        bounds = [] if not match else [match.group(1)] + ([match.group(2)] if match.group(2) else [])
        fractional = ["." in b for b in bounds]
        if not fractions and (not match or any(fractional)):
            raise ValueError(f"{item.strip()!r} is not a number of cards from the end (or low:high), e.g. {example}")
        if not match:
            raise ValueError(f"{item.strip()!r}: a cut-card position is a card count (14), a fraction of the shoe "
                             "(0.25) or a range low:high of either")
        if len(set(fractional)) > 1:
            raise ValueError(f"{item.strip()!r}: both ends of a range must be card counts or both fractions")
        if fractional[0]:
            values = [Fraction(b) for b in bounds]
            if any(v > 1 for v in values):
                raise ValueError(f"{item.strip()!r}: a fraction of the shoe must be from 0 to 1")
            cards = [cards_at(v, n_cards) for v in values]
        else:
            cards = [int(b) for b in bounds]
        low, high = cards[0], cards[-1]
        if low > high:
            raise ValueError(f"{item.strip()!r}: {LOW_ABOVE_HIGH}")
        cuts.append(CutCard(low, high))
    return cuts


def parse_cut_sweep(text: str, rules, n_cards: int | None = None) -> list[CutCard]:
    """The cut-card positions of a sweep, ``cut=14,0.25,0.5`` (the ``cut=`` may be left out).

    Positions as :func:`parse_cut_positions` reads them, fractions of the shoe
    included; each must leave room for a round in a dealt shoe of ``rules``
    (:meth:`baccarat_sim.model.rules.Shoe.room_problem`).

    Parameters
    ----------
    text : str
    rules : Rules
        The rule set dealt (burn, rounds after the cut card).
    n_cards : int or None
        Cards in the shoe (None: the rule set's).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> [(c.low, c.high) for c in parse_cut_sweep("cut=14,0.25,0.45:0.55", load_rules("live-8deck-side-bets"))]
    [(14, 14), (104, 104), (187, 229)]

    Raises
    ------
    InputError
        ``sweep``: one line naming the bad item and what is allowed.
    """
    n_cards = rules.shoe.n_cards if n_cards is None else n_cards
    body = text.strip()
    kind, sep, rest = body.partition("=")
    if sep:
        if kind.strip() != "cut":
            raise InputError("sweep", f"only cut=... can be swept, got {kind.strip()!r} (e.g. cut=14,0.25,0.5)")
        body = rest
    if not body.strip() or any(not item.strip() for item in body.split(",")):
        raise InputError("sweep", f"give a comma-separated list of cut-card positions, e.g. cut=14,0.25,0.5; got "
                                  f"{text!r}")
    cuts = []
    for item in body.split(","):  # item by item: the first item at fault is named, whatever its fault
        try:
            (cut,) = parse_cut_positions(item, n_cards)
        except ValueError as error:
            raise InputError("sweep", str(error)) from None
        problem = rules.with_shoe(model="dealt", cut_card=cut).shoe.room_problem(n_cards)
        if problem:
            raise InputError("sweep", f"{item.strip()!r}: {problem}")
        cuts.append(cut)
    return cuts
