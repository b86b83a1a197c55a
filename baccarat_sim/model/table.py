"""The table a rule set describes: how the shoe is dealt, how commission is taken, the stake limits.

Plain frozen data, built by the rule-file loader (:mod:`baccarat_sim.model.rules`)
and read by every engine: :class:`Shoe` (decks, shuffle, burn and its
:class:`~baccarat_sim.model.cutcard.CutCard`), :class:`Commission` (its rate and
rounding, in the table's money) and :class:`Limits` (the stakes a slip may hold).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from .cutcard import CutCard

__all__ = ["Commission", "Limits", "Shoe"]


@dataclasses.dataclass(frozen=True)
class Shoe:
    """How cards are dealt.

    Attributes
    ----------
    decks : int
        Standard 52-card decks in the shoe.
    model : str
        ``"fresh"``: shuffled before every round; ``"dealt"``: shuffled once and
        dealt through to the cut card.
    burn : str
        ``"none"``, ``"face_value"`` (a card is turned and that many cards
        burned, ``ten_value`` for a ten or face card) or ``"fixed"``.
    burn_cards : int
        Cards burned for ``burn = "fixed"``.
    ten_value : int
        Cards burned when the turned card is a ten or a face card.
    discard_turned : bool
        Whether the turned card itself is discarded too.
    cut_card : CutCard
        Cut-card position, in cards from the end of the shoe.
    rounds_after_cut : int
        0: the round in which the cut card comes out is the last; 1: one more.
    """

    decks: int = 8
    model: str = "fresh"
    burn: str = "none"
    burn_cards: int = 0
    ten_value: int = 10
    discard_turned: bool = True
    cut_card: CutCard = CutCard(14, 14)
    rounds_after_cut: int = 0

    @property
    def n_cards(self) -> int:
        """Cards in the shoe."""
        return 52 * self.decks

    def burn_by_rank(self) -> np.ndarray:
        """Cards burned (after the turned card) by the rank of the turned card.

        Returns
        -------
        ndarray(int64, shape=(13,))
        """
        if self.burn == "face_value":
            return np.array([1, 2, 3, 4, 5, 6, 7, 8, 9] + [self.ten_value] * 4, np.int64)
        if self.burn == "fixed":
            return np.full(13, self.burn_cards, np.int64)
        return np.zeros(13, np.int64)

    @property
    def turned_discarded(self) -> bool:
        """Whether a card is turned to set the burn and discarded with the burned cards."""
        return self.burn == "face_value" and self.discard_turned

    def cards_before_first_round(self) -> tuple[int, int]:
        """Fewest and most cards removed before the first round (turned card included)."""
        by_rank = self.burn_by_rank()
        turned = 1 if self.turned_discarded else 0
        return int(by_rank.min()) + turned, int(by_rank.max()) + turned

    def room_problem(self, n_cards: int | None = None) -> str | None:
        """Why a dealt shoe of ``n_cards`` cannot deal a round under this burn and cut card, or None.

        The one check of every dealt shoe, whether it comes from a rule file, a
        new deck count or a depleted shoe: after the most cards the burn can
        take, the cut card must leave six cards for its round and for each round
        dealt after it.
        """
        n = self.n_cards if n_cards is None else int(n_cards)
        _, burned = self.cards_before_first_round()
        cut = self.cut_card
        deepest = n - burned - 6 * (1 + self.rounds_after_cut)
        if cut.high > deepest:
            if deepest < 0:
                return (f"a {n}-card shoe leaves no room for a round after burning up to {burned} cards"
                        + (" and dealing one more round after the cut card's" if self.rounds_after_cut else ""))
            return (f"the cut card {cut.high} cards from the end leaves no room for a round in a {n}-card shoe "
                    f"after burning up to {burned} cards (at most {deepest} cards from the end)")
        return None


@dataclasses.dataclass(frozen=True)
class Commission:
    """Commission on winning bets marked ``commission = true``.

    Amounts (stakes, wins, the commission) are in the table's money, the unit
    of ``limits.min_bet`` (a currency, or chips). ``lowest_chip`` is the value
    of the table's lowest chip in that unit. With ``rounding`` (``"up"``,
    ``"down"`` or ``"nearest"``; ``"none"`` keeps the exact amount) the
    commission is rounded to a multiple of :attr:`step`, ``unit`` lowest chips:
    online-commission-rounding.txt rounds "up to a quarter of the lowest chip
    denomination" (``unit = 0.25``), so with a lowest chip of 0.10 EUR it is
    rounded up to 0.025 EUR, and a stake is a whole number of lowest chips.
    """

    rate: Fraction = Fraction(5, 100)
    rounding: str = "none"
    unit: Fraction = Fraction(1, 4)
    lowest_chip: Fraction = Fraction(1)

    @property
    def rounded(self) -> bool:
        """Whether the commission is rounded (so a commission bet's RTP depends on the stake)."""
        return self.rounding != "none"

    @property
    def step(self) -> Fraction:
        """The amount the commission is rounded to a multiple of: ``unit`` lowest chips."""
        return self.unit * self.lowest_chip

    def amount(self, win: Fraction) -> Fraction:
        """Commission on a win of ``win`` (in the table's money), rounded to a multiple of :attr:`step`."""
        raw = self.rate * win
        if not self.rounded:
            return raw
        steps = raw / self.step
        whole = {
            "up": -((-steps.numerator) // steps.denominator),
            "down": steps.numerator // steps.denominator,
            "nearest": int(steps + Fraction(1, 2)) if steps >= 0 else -int(-steps + Fraction(1, 2)),
        }[self.rounding]
        return whole * self.step

    def nominal_stake_multiple(self, nets) -> Fraction | None:
        """Smallest stake whose multiples, and only they, pay the unrounded commission on every win.

        A stake is ``k`` lowest chips. On a line paying ``net`` per unit staked
        the commission ``rate * k * lowest_chip * net`` needs no rounding when
        ``k * rate * net / unit`` is whole, that is when ``k`` is a multiple of
        that fraction's denominator; every line at once when ``k`` is a
        multiple of their least common multiple.

        Parameters
        ----------
        nets : iterable of Fraction
            Net win per unit staked of each winning line the commission is taken from.

        Returns
        -------
        Fraction or None
            That stake, in the table's money (online-commission-rounding: 5
            lowest chips); None when the commission is not rounded (every stake
            pays the nominal rate).
        """
        if not self.rounded:
            return None
        chips = 1
        for net in nets:
            chips = math.lcm(chips, (self.rate * Fraction(net) / self.unit).denominator)
        return chips * self.lowest_chip


@dataclasses.dataclass(frozen=True)
class Limits:
    """Table limits.

    Stakes and ``min_bet`` are amounts in the table's money (a currency, or
    chips; the unit of ``commission.lowest_chip`` too); the maxima are
    multiples of ``min_bet``.

    Attributes
    ----------
    min_bet : Fraction
        The minimum bet, an amount.
    max_bet : tuple of (bet id, Fraction)
        Largest stake per bet, as a multiple of the minimum bet.
    equal_player_banker : bool
        False where the same amount may not be staked on Player and Banker.
    player_banker_min_difference : Fraction
        Smallest allowed difference of the Player and Banker stakes when both
        are staked (rng-6deck-single-hand.txt: one minimum bet).
    player_banker_limit : str
        ``"each"``: the Player and Banker maxima cap each stake;
        ``"difference"``: they cap the *difference* of the two stakes
        (live-8deck-side-bets.txt: "a bet on Player will adjust and increase the
        Banker limit by the same amount").
    side_bets_need_main_bet : bool
        Whether a side bet (group ``"side"``) may only be placed with a main bet.
    counts_as : tuple of (bet id, bet id)
        Bets whose stake counts as a stake on another bet for that bet's limits
        (its maximum, the Player/Banker difference, equal and minimum-difference
        rules): live-8deck-side-bets' No Commission Banker is the Banker bet of
        the other betting mode.
    exclusive : tuple of tuple of str
        Groups of alternative bets: a slip may stake at most one bet of each
        group (the Traditional and No Commission Banker bets, one per betting mode).
    """

    min_bet: Fraction = Fraction(1)
    max_bet: tuple[tuple[str, Fraction], ...] = ()
    equal_player_banker: bool = True
    player_banker_min_difference: Fraction = Fraction(0)
    player_banker_limit: str = "each"
    side_bets_need_main_bet: bool = False
    counts_as: tuple[tuple[str, str], ...] = ()
    exclusive: tuple[tuple[str, ...], ...] = ()

    def max_for(self, bet_id: str) -> Fraction | None:
        """Largest stake on ``bet_id`` (in units of the minimum bet), or None."""
        return dict(self.max_bet).get(bet_id)

    def counted_as(self, bet_id: str) -> str:
        """The bet whose limits a stake on ``bet_id`` counts towards (``bet_id`` itself unless ``counts_as`` says)."""
        return dict(self.counts_as).get(bet_id, bet_id)
