"""The side-bet catalogue (issue 13, item 5): every catalogue bet's exact house edge against its published figure.

The catalogue is the shipped rule sets ``catalogue-*.toml``. Checks, all exact (integer combination counts):

1. ``PUBLISHED``: every published house edge (or return) of every catalogue bet, for the deck count the source
   states, to half a unit of the last digit printed. The parameter id names the bet, the decks and the source.
2. ``COMBINATIONS``: the combination counts the sources print in their return tables (ordered six-card deals out
   of 416*415*414*413*412*411 for 8 decks; two- and four-card counts are converted), matched exactly.
3. Published figures we do not reproduce, each with the test that shows why (a wrong count in the source, a
   return worked out from a rounded probability, a slip in the text, a table that counts other rules).
4. Bets with no published figure: an independent calculation (closed forms, the source's own counts of the same
   event, the point-value brute force of ``test_published_edges``) equals the exact figure.
5. Every file loads, every bet has a source, a description and a stated RTP or a documented reason it has none,
   the stated RTP is the published figure, ``--check`` fails exactly on the documented cases, Monte Carlo agrees
   with exact, and the findings page's (docs/findings.md) catalogue example prints what it shows.

Sources
-------
[AAP]       Advanced Advantage Play (E. Jacobson), Baccarat Side Bets,
            https://advancedadvantageplay.com/side-bets/baccarat-side-bets/ (3 Giving 8 "House edge: 8.682",
            88 89 98 99 7.372%, 9 over 7 8.103%, Bad Beat 8.459%, Big Tiger 15.253%).
[EJ-CM]     E. Jacobson, Card Counting the Colour Match Baccarat Side Bet,
            https://888casino.com/blog/side-bets/card-counting-the-colour-match-baccarat-side-bet (13.7635%).
[EJ-BT]     E. Jacobson, Card Counting the Big Tiger Baccarat Side Bet,
            https://advancedadvantageplay.com/2024/07/card-counting-the-big-tiger-baccarat-side-bet (15.2533%).
[EJ-BB]     E. Jacobson, Card Counting the Bad Beat Baccarat Side Bet: Natural 9 beats Natural 8,
            https://advancedadvantageplay.com/2024/07/card-counting-the-bad-beat-baccarat-side-bet-natural-9-beats-natural-8
            ("With 8 decks, the house edge is 8.4585%").
[EJ-D7]     E. Jacobson, Card Counting the Dragon/Fortune 7 Baccarat Side Bet,
            https://888casino.com/blog/news/side-bets/card-counting-the-dragonfortune-7-baccarat-side-bet (7.6113%).
[EJ-N]      E. Jacobson, Card Counting the Natural 9 and Natural 8 Baccarat Side Bets,
            http://apheat.net/2013/11/08/card-counting-the-natural-9-and-natural-8-baccarat-side-bets/
            (NAT9 9:1 5.097%, 8:1 14.588%; NAT8 9:1 5.468%, 8:1 14.921%).
[MDT]       Macau Daily Times, https://macaudailytimes.com.mo/casinos-embrace-new-baccarat-side-bet.html
            (Small Tiger 14.33%, Big Tiger 15.25%).
[LeoVegas]  https://www.leovegas.com/en-row/blog/live-casino/baccarat-academy/side-bets-guide/super-6-side-bet
            (Super 6 at 12:1, 29.98%).
[CB]        https://cooper-boating.com/countable-mines-games-baccarat-side-bets/ (Super 6 at 15:1, 13.82%).
[UKCTG]     ukcasinotablegames.info, Super Pay Egalite, https://www.ukcasinotablegames.info/putnosuperpayegalite.html
Wizard of Odds (https://wizardofodds.com/games/...; a "return table" is the page's table of events, pays,
combinations, probability and return, whose lower right cell is the return):
[WoO-3G8]   baccarat/side-bets/3-giving-8/ (200:1 8.68%, return -0.086823; 180:1 17.77%).
[WoO-L6]    baccarat/side-bets/lucky-6/ (the Macau 12/20 table, "the Tiger on some games": 16.68%, -0.166836).
[WoO-5T]    baccarat/side-bets/5-treasures/ (Fortune 7 7.61%, -0.076113; Golden 8 10.19%).
[WoO-GF]    baccarat/side-bets/golden-frog/ (2019 page: four bets, return tables).
[WoO-EZ]    ez-baccarat/ (Dragon 7 7.61%).
[WoO-Ox6]   baccarat/side-bets/ox-6/ (10.34%, -0.103376).
[WoO-Kill]  baccarat/side-bets/kill-ox-tiger/ (13.76%, -0.137559).
[WoO-L9]    baccarat/side-bets/lucky-nines/ (Binion's 19.46%, Red Rock 8.27%).
[WoO-Eg]    baccarat/side-bets/egalite/ (Egalite return table; Egalite Groupings return table).
[WoO-BB]    baccarat/side-bets/bad-beat-baccarat/ (return tables of the four bets).
[WoO-DB]    baccarat/side-bets/ (Dragon Bonus return tables, 8 decks; house edge by decks 4/6/8).
[WoO-Nat]   baccarat/side-bets/natural-8-and-9/ (9:1 5.47% / 5.10%; 8:1 14.92%).
[WoO-L99]   baccarat/side-bets/lucky-99/ (expected return 0.825790).
[WoO-3CW]   baccarat/side-bets/3-card-win/ (Player 5.69%, Banker 8.30%).
[WoO-456]   baccarat/appendix/5/, 4-5-6 (probability and return for 6 and 8 decks).
[WoO-Monkey] baccarat/side-bets/monkey-6/, monkey-6-tie, grand-monkey/ and games/monkey-baccarat/.
[WoO-L8]    baccarat/side-bets/lucky8/ (Player 13.65%, -0.136508; Banker 16.60%).
[WoO-TM]    baccarat/side-bets/lucky-max/ (Tie Max: -0.164547 and -0.117391; text 16.45% and 11.75%).
[WoO-STie]  baccarat/side-bets/super-tie/ (pay table 1 5.97%, -0.059716; pay table 2 10.26%).
[WoO-CBB]   baccarat/side-bets/contrast (Contrast Bonus: 4.96%, -0.049612; 6.96%, -0.069609).
[WoO-STot]  baccarat/side-bets/side-totals/ (Side Totals return tables, Player 0-9 and Banker 3-9).
[WoO-MM]    baccarat/side-bets/majestic-match/ (6.46%, -0.064597).
[WoO-P9]    article/perfect-9-bonus-baccarat/ (7.47%, -0.074699).
[WoO-PP1]   baccarat/side-bets/perfect-pairs-ver1/ (26:1: 8 decks 9.68%, 6 decks 13.88%; 25:1: 13.03%, -0.130294
            and 6 decks 17.07%, -0.170716).
[WoO-PP2]   baccarat/side-bets/perfect-pairs-ver2/ (250 and 25 to 1: 6.62%, -0.066235).
[WoO-L6-LV] baccarat/side-bets/lucky-6/ (Las Vegas 12/23: 11.70%, -0.116985).
[WoO-WT]    baccarat/side-bets/winning-total/ (Knockout's Winning Total: returns of 9, 8, 7, 5-6; the 1-4 row cut off).
[WoO-SB]    super-baccarat/ (Player 1-9 and Banker 9, 8, 7, 5 returns; Banker 6 is Lucky 6).
[WoO-WST]   exact-winning-side-and-total-in-baccarat (combinations of all 28 winning side and total events).
[EJ-Pairs]  E. Jacobson, Computer-perfect play against the Baccarat Pairs bet,
            https://www.888casino.com/blog/side-bets/computer-perfect-play-against-the-baccarat-pairs-bet/ (10.361%).
[EJ-DP]     E. Jacobson, Co-Card Counting the Dragon and Panda Side Bets in EZ Baccarat (888casino blog): "baseline
            house edge of 7.6110%" (Dragon 7) and "10.1876%" (Panda 8).
[EJ-TSB]    E. Jacobson, Total Shot Bonus, 888casino magazine (German edition),
            https://de.888casino.com/magazine/baccarat-strategie/total-shot-bonus ("Der Hausvorteil beträgt 8,364%",
            hit frequency 3,313%, standard deviation 5,239; eight decks).
[EJ-KOB]    E. Jacobson, Card Counting the Knockout Baccarat Side Bet, 888casino blog, January 15, 2017,
            https://www.888casino.com/blog/card-counting-the-knockout-baccarat-side-bet (the seven bets' rules and
            pays; no house edge in the stored copy).
[EJ-LW]     E. Jacobson, Card Counting the Lucky Win Baccarat Side Bet,
            https://888casino.com/blog/side-bets/card-counting-the-lucky-win-baccarat-side-bet (Player pay table #1
            12.040%; Galaxy's rack sheet 12.07%).
"""

import dataclasses
import functools
import json
import math
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from baccarat_sim.analysis.claims import check_claims
from baccarat_sim.analysis.settlement import net_vector, settle, settle_bet
from baccarat_sim.analysis.settlement_jackpot import jackpot_figures
from baccarat_sim.analysis.stats import estimate
from baccarat_sim.cli.findings import main as findings_main
from baccarat_sim.cli.rtp import main as rtp_main
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.model.rules import Rules, available_rules, load_rules, parse_rules
from baccarat_sim.tables import breakdown

from .run_helpers import MANY_THREADS
from .test_published_edges import _point_ev, point_brute_force

FINDINGS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "findings.md"
CATALOGUE = sorted(name for name in available_rules() if name.startswith("catalogue-"))
TOTAL_8 = math.perm(416, 6)
FIRST_TWO_8 = math.comb(416, 2)  # unordered two-card hands, the unit of two-card return tables
TWO_CARD = 2 * math.perm(414, 4)  # six-card deals per unordered two-card hand (Majestic Match, Perfect 9)
FOUR_CARD = 24 * 412 * 411  # six-card deals per unordered set of the first four cards (Lucky Nines)
PAIRED_HANDS = 4 * 412 * 411  # six-card deals per unordered Player hand x unordered Banker hand (Perfect Pairs)


@functools.cache
def rules_of(name):
    return load_rules(name)


@functools.cache
def histogram(name, decks=8):
    """Exact histogram of a catalogue rule set, with the card detail its bets read, for ``decks`` decks."""
    return exact_histogram(decks, rules_detail(rules_of(name)))


def exact_edge(name, bet_id, decks=8) -> Fraction:
    rules = rules_of(name)
    return -settle_bet(histogram(name, decks), rules.bet(bet_id), rules).ev_exact


def line_counts(name, bet_id, decks=8) -> dict[str, int]:
    table = breakdown(histogram(name, decks), bet_id, rules_of(name))
    return {event: int(combos) for event, combos in zip(table["event"], table["combinations"])}


def published_edge(figure: str) -> tuple[Fraction, Fraction]:
    """A published figure as (house edge, half a unit of its last digit), both as fractions of the stake.

    ``"13.7635%"`` is a house edge in percent; ``"-0.124527"`` a return (EV per unit); ``"rtp 0.825790"`` an
    expected return that includes the stake (Lucky 99, printed "for 1").
    """
    if figure.endswith("%"):
        text, scale, sign, offset = figure[:-1], Decimal(100), 1, 0
    elif figure.startswith("rtp "):
        text, scale, sign, offset = figure[4:], Decimal(1), -1, 1
    else:
        text, scale, sign, offset = figure, Decimal(1), -1, 0
    value = Decimal(text)
    half = Decimal(1).scaleb(value.as_tuple().exponent) / 2
    return offset + sign * Fraction(value / scale), Fraction(half / scale)


def holds(edge: Fraction, figure: str) -> bool:
    published, half = published_edge(figure)
    return abs(edge - published) <= half


# --------------------------------------------------------------------------- 1. published house edges

def _p(name, bet, figure, source, decks=8):
    return pytest.param(name, bet, decks, figure, id=f"{bet}-{decks}d-{source}")


SA, COL, TIG, T5, GF, DAI = ("catalogue-stand-alone", "catalogue-colour-and-suits", "catalogue-tiger",
                             "catalogue-5-treasures", "catalogue-golden-frog", "catalogue-dai-bacc")
L9, EG, BB, DB, NAT, CC = ("catalogue-lucky-nines", "catalogue-egalite", "catalogue-bad-beat",
                           "catalogue-dragon-bonus", "catalogue-naturals", "catalogue-card-count")
MON, L8, TM, STOT, TWO = ("catalogue-monkey", "catalogue-lucky-8", "catalogue-tie-max", "catalogue-side-totals",
                          "catalogue-two-card-hands")
POKER = "catalogue-poker"
WTOT, PAIRS, LW, SEVENS, ARB = ("catalogue-winning-totals", "catalogue-pairs", "catalogue-lucky-win",
                                "catalogue-macau-sevens", "catalogue-all-red-black")
TSB, KO = "catalogue-total-shot", "catalogue-knockout"

EGALITE_RETURNS = ["-0.124527", "-0.114150", "-0.095412", "-0.105243", "-0.121401", "-0.118732", "-0.114952",
                   "-0.063899", "-0.110669", "-0.106348"]  # [WoO-Eg] Egalite return table, ties 0-0 .. 9-9
SUPER_PAY = {"0": ("6.65%", "-0.066548"), "1_3": ("10.86%", "-0.108574"), "4_5": ("7.28%", "-0.072769"),
             "6_7": ("8.94%", "-0.089426"), "8_9": ("9.75%", "-0.097502")}  # [UKCTG] edges; [WoO-Eg] Groupings
WINNING_TOTAL_RETURNS = {"9": "-0.279815", "8": "-0.131132", "7": "-0.207423", "5_6": "-0.262607"}  # [WoO-WT]
SUPER_BACCARAT_RETURNS = {  # [WoO-SB] Player and Banker tables (the stored copy stops at the Banker 4 row)
    "player": {9: "-0.141421", 8: "-0.221598", 7: "-0.183651", 6: "-0.249378", 5: "-0.238159", 4: "-0.207021",
               3: "-0.231808", 2: "-0.192962", 1: "-0.206364"},
    "banker": {9: "-0.178146", 8: "-0.151865", 7: "-0.231195", 5: "-0.219573"},
}
SIDE_TOTAL_RETURNS = {  # [WoO-STot] return tables (the Banker 2, 1, 0 rows are not in the stored copy)
    "player": ["-0.154095", "-0.142936", "-0.145355", "-0.142936", "-0.219755", "-0.217635", "-0.134026",
               "-0.131169", "-0.133945", "-0.131036"],
    "banker": [None, None, None, "-0.163081", "-0.205849", "-0.144015", "-0.213008", "-0.165196", "-0.167786",
               "-0.165137"],
}

PUBLISHED = [
    # The issue's named bets.
    _p(COL, "colour_match", "13.7635%", "EJ-CM"),
    _p(SA, "three_giving_eight", "8.682%", "AAP"),  # printed "House edge: 8.682" (no % sign)
    _p(SA, "three_giving_eight", "8.68%", "WoO-3G8"),
    _p(SA, "three_giving_eight", "-0.086823", "WoO-3G8-return-table"),
    _p(SA, "three_giving_eight_180", "17.77%", "WoO-3G8"),
    _p(SA, "final_88_89_98_99", "7.372%", "AAP"),
    _p(SA, "nine_over_seven", "8.103%", "AAP"),
    _p(BB, "bad_beat_natural_9_beats_natural_8", "8.46%", "WoO-BB"),
    _p(BB, "bad_beat_natural_9_beats_natural_8", "-0.084585", "WoO-BB-return-table"),
    _p(BB, "bad_beat_natural_9_beats_natural_8", "8.4585%", "EJ-BB"),
    _p(TIG, "big_tiger", "15.253%", "AAP"),
    _p(TIG, "big_tiger", "15.2533%", "EJ-BT"),
    _p(TIG, "big_tiger", "15.25%", "MDT"),
    _p(TIG, "small_tiger", "14.33%", "MDT"),
    _p(TIG, "tiger", "16.68%", "WoO-L6-Macau"),
    _p(TIG, "tiger", "-0.166836", "WoO-L6-return-table"),
    _p(TIG, "super_6_12", "29.98%", "LeoVegas"),
    _p(TIG, "super_6_15", "13.82%", "CB"),
    _p(T5, "fortune_7", "7.61%", "WoO-5T"),
    _p(T5, "fortune_7", "-0.076113", "WoO-5T-return-table"),
    _p(T5, "golden_8", "10.19%", "WoO-5T"),
    _p(GF, "gf_any_8_beats_any_6", "21.79%", "WoO-GF"),
    _p(GF, "gf_any_8_beats_any_6", "-0.217887", "WoO-GF-return-table"),
    _p(GF, "gf_2_card_9_beats_2_card_7", "8.10%", "WoO-GF"),
    _p(GF, "gf_2_card_9_beats_2_card_7", "-0.081032", "WoO-GF-return-table"),
    _p(GF, "gf_3_card_9_beats_3_card_1", "13.87%", "WoO-GF"),
    _p(GF, "gf_3_card_9_beats_3_card_1", "-0.138686", "WoO-GF-return-table"),
    _p(GF, "gf_3_card_9_beats_3_card_7", "11.89%", "WoO-GF"),
    _p(DAI, "dai_bacc_tiger_7", "7.61%", "WoO-EZ-Dragon-7"),
    _p(DAI, "dai_bacc_tiger_7", "7.6113%", "EJ-D7"),
    _p(DAI, "dai_bacc_ox_6", "10.34%", "WoO-Ox6"),
    _p(DAI, "dai_bacc_ox_6", "-0.103376", "WoO-Ox6-return-table"),
    _p(DAI, "dai_bacc_kill", "13.76%", "WoO-Kill"),
    _p(DAI, "dai_bacc_kill", "-0.137559", "WoO-Kill-return-table"),
    _p(L9, "lucky_nines_red_rock", "8.27%", "WoO-L9-Red-Rock"),
    # Egalite on each total, and the grouped Super Pay Egalite.
    *[_p(EG, f"egalite_{t}", figure, "WoO-Eg-return-table") for t, figure in enumerate(EGALITE_RETURNS)],
    *[_p(EG, f"super_pay_egalite_{group}", edge, "UKCTG") for group, (edge, _) in SUPER_PAY.items()],
    *[_p(EG, f"super_pay_egalite_{group}", ret, "WoO-Eg-Groupings") for group, (_, ret) in SUPER_PAY.items()],
    # Bad Beat Baccarat.
    _p(BB, "any_bad_beat", "6.88%", "WoO-BB"),
    _p(BB, "any_bad_beat", "-0.068813", "WoO-BB-return-table"),
    _p(BB, "bad_beat_3_card_9_beats_3_card_8", "16.65%", "WoO-BB"),
    _p(BB, "bad_beat_3_card_9_beats_3_card_8", "-0.166469", "WoO-BB-return-table"),
    _p(BB, "bad_beat_8_beats_7", "18.35%", "WoO-BB"),
    # Dragon Bonus by decks.
    *[_p(DB, f"dragon_bonus_{side}", edge, "WoO-DB", decks)
      for side, edges in (("player", ("2.70%", "2.67%", "2.65%")), ("banker", ("9.42%", "9.39%", "9.37%")))
      for decks, edge in zip((4, 6, 8), edges)],
    _p(DB, "dragon_bonus_player", "-0.026517", "WoO-DB-return-table"),
    _p(DB, "dragon_bonus_banker", "-0.093731", "WoO-DB-return-table"),
    # Naturals: one figure for both sides ("The odds are the same on both the Banker and Player side").
    *[_p(NAT, f"natural_{total}_{side}_{pays}", figure, source)
      for side in ("player", "banker")
      for total, pays, figure, source in (
          (8, "9_to_1", "5.47%", "WoO-Nat"), (8, "9_to_1", "-0.054680", "WoO-Nat-return-table"),
          (8, "9_to_1", "5.468%", "EJ-N"), (8, "8_to_1", "14.92%", "WoO-Nat"),
          (8, "8_to_1", "-0.149212", "WoO-Nat-return-table"), (8, "8_to_1", "14.921%", "EJ-N"),
          (9, "9_to_1", "5.10%", "WoO-Nat"), (9, "9_to_1", "-0.050973", "WoO-Nat-return-table"),
          (9, "9_to_1", "5.097%", "EJ-N"), (9, "8_to_1", "14.588%", "EJ-N"))],
    _p(NAT, "lucky_99", "17.42%", "WoO-L99"),
    _p(NAT, "lucky_99", "rtp 0.825790", "WoO-L99-return-table"),  # printed "for 1": the total is the RTP
    # Card counts (4-5-6: see test_four_five_six_returns_come_from_rounded_probabilities).
    _p(CC, "three_card_win_player", "5.69%", "WoO-3CW"),
    _p(CC, "three_card_win_player", "-0.056860", "WoO-3CW-return-table"),
    _p(CC, "three_card_win_banker", "8.30%", "WoO-3CW"),
    _p(CC, "three_card_win_banker", "-0.083044", "WoO-3CW-return-table"),
    _p(CC, "cards_4", "-0.05283", "WoO-456"),
    # Monkey Baccarat, with the pay ladders the pages print.
    _p(MON, "monkey_7", "7.61%", "WoO-Monkey"),
    _p(MON, "monkey_6", "23.14%", "WoO-Monkey-6"),
    _p(MON, "monkey_6", "-0.231366", "WoO-Monkey-6-return-table"),
    _p(MON, "monkey_6_tie", "12.29%", "WoO-Monkey-6-Tie"),
    _p(MON, "monkey_6_tie", "-0.122858", "WoO-Monkey-6-Tie-return-table"),
    _p(MON, "grand_monkey_6000", "19.86%", "WoO-Grand-Monkey"),
    _p(MON, "grand_monkey_6000", "-0.198640", "WoO-Grand-Monkey-return-table"),
    _p(MON, "grand_monkey_5000", "33.22%", "WoO-Monkey-Baccarat"),
    # Tie Max (the 11.75% in the text is a slip: see test_high_tie_max_text_is_a_slip_for_its_table).
    _p(TM, "low_tie_max", "16.45%", "WoO-TM"),
    _p(TM, "low_tie_max", "-0.164547", "WoO-TM-return-table"),
    _p(TM, "high_tie_max", "-0.117391", "WoO-TM-return-table"),
    # Colour bets.
    _p(COL, "super_tie_100_25_7", "5.97%", "WoO-STie-table-1"),
    _p(COL, "super_tie_100_25_7", "-0.059716", "WoO-STie-return-table"),
    _p(COL, "super_tie_100_20_7", "10.26%", "WoO-STie-table-2"),
    _p(COL, "contrast_bonus_35_15_5", "4.96%", "WoO-CBB-table-1"),
    _p(COL, "contrast_bonus_35_15_5", "-0.049612", "WoO-CBB-return-table-1"),
    _p(COL, "contrast_bonus_33_15_5", "6.96%", "WoO-CBB-table-2"),
    _p(COL, "contrast_bonus_33_15_5", "-0.069609", "WoO-CBB-return-table-2"),
    # Two-card hands.
    _p(TWO, "majestic_match_player", "6.46%", "WoO-MM"),
    _p(TWO, "majestic_match_player", "-0.064597", "WoO-MM-return-table"),
    _p(TWO, "majestic_match_banker", "6.46%", "WoO-MM"),  # one figure for either side
    _p(TWO, "perfect_9_bonus", "7.47%", "WoO-P9"),
    _p(TWO, "perfect_9_bonus", "-0.074699", "WoO-P9-return-table"),
    _p(TWO, "perfect_pairs_26", "9.68%", "WoO-PP1"),
    _p(TWO, "perfect_pairs_26", "-0.096844", "WoO-PP1-return-table"),  # issue 41, item 5: the finer figure
    _p(TWO, "perfect_pairs_26", "13.88%", "WoO-PP1", decks=6),
    # Side totals: every printed return, and the page's summary sentences.
    *[_p(STOT, f"side_total_{side}_{t}", figure, "WoO-STot-return-table")
      for side, figures in SIDE_TOTAL_RETURNS.items() for t, figure in enumerate(figures) if figure],
    _p(STOT, "side_total_player_9", "13.10%", "WoO-STot-text"),
    _p(STOT, "side_total_player_4", "21.98%", "WoO-STot-text"),
    _p(STOT, "side_total_banker_5", "14.40%", "WoO-STot-text"),
    _p(STOT, "side_total_banker_6", "21.30%", "WoO-STot-text"),
    # Winning totals: Knockout's five bets and Super Baccarat's winning side and total.
    *[_p(WTOT, f"winning_total_{key}", figure, "WoO-WT-return-table") for key, figure in WINNING_TOTAL_RETURNS.items()],
    *[_p(WTOT, f"super_baccarat_{side}_{t}", figure, "WoO-SB-return-table")
      for side, figures in SUPER_BACCARAT_RETURNS.items() for t, figure in figures.items()],
    _p(WTOT, "super_baccarat_banker_6", "16.68%", "WoO-L6-Macau"),
    _p(WTOT, "super_baccarat_banker_6", "-0.166836", "WoO-L6-return-table"),
    # Pairs and Lucky 6 (Las Vegas), and Jacobson's Panda 8 (his Dragon 7 figure: NOT_REPRODUCED).
    _p(PAIRS, "pair_player_11", "10.361%", "EJ-Pairs"),
    _p(PAIRS, "pair_banker_11", "10.361%", "EJ-Pairs"),  # one figure for either side
    _p(PAIRS, "perfect_pairs_25", "13.03%", "WoO-PP1"),
    _p(PAIRS, "perfect_pairs_25", "-0.130294", "WoO-PP1-return-table"),
    _p(PAIRS, "perfect_pairs_25", "17.07%", "WoO-PP1", decks=6),
    _p(PAIRS, "perfect_pairs_25", "-0.170716", "WoO-PP1-return-table", decks=6),
    _p(PAIRS, "perfect_pairs_250_25", "6.62%", "WoO-PP2"),
    _p(PAIRS, "perfect_pairs_250_25", "-0.066235", "WoO-PP2-return-table"),
    _p(PAIRS, "lucky_6_12_23", "11.70%", "WoO-L6-LV"),
    _p(PAIRS, "lucky_6_12_23", "-0.116985", "WoO-L6-LV-return-table"),
    _p(T5, "golden_8", "10.1876%", "EJ-DP"),
    # Lucky Win: the rule sheet's usual odds are Jacobson's pay table #1.
    _p(LW, "lucky_win_player", "12.040%", "EJ-LW"),
    # Total Shot Bonus (issue 41, item 3): Jacobson's eight-deck analysis.
    _p(TSB, "total_shot_bonus", "8.364%", "EJ-TSB"),
    # Poker values (catalogue-poker; tests/test_catalogue_poker.py checks their tables row by row).
    _p(POKER, "jackpot_baccarat", "-0.158026", "WoO-JB-return-table"),
    _p(POKER, "lucky_match", "8.89%", "WoO-LM"),
    _p(POKER, "lucky_match", "-0.088870", "WoO-LM-return-table"),
]


@pytest.mark.parametrize("name, bet_id, decks, figure", PUBLISHED)
def test_house_edge_matches_published_figure(name, bet_id, decks, figure):
    edge = exact_edge(name, bet_id, decks)
    published, half = published_edge(figure)
    assert abs(edge - published) <= half, (f"{name}/{bet_id}, {decks} decks: exact house edge "
                                           f"{float(edge):.7%} vs published {figure}")


@pytest.mark.parametrize("bet_id, pays, figure", [
    ("monkey_6", 13, "17.22%"), ("monkey_6", 14, "11.31%"), ("monkey_6", 15, "5.40%"),  # [WoO-Monkey-6] ladder
    ("monkey_6_tie", 130, "23.90%"), ("monkey_6_tie", 140, "18.09%"), ("monkey_6_tie", 160, "6.48%"),  # 6 Tie
    ("grand_monkey_6000", 7000, "6.51%"),  # [WoO-Grand-Monkey] ladder: 5000, 6000, 7000 to 1
])
def test_monkey_pay_ladders_match_published_figures(bet_id, pays, figure):
    hit = Fraction(line_counts(MON, bet_id)[rules_of(MON).bet(bet_id).cases[0].name], TOTAL_8)
    assert holds(1 - (pays + 1) * hit, figure)


# --------------------------------------------------------------------------- 2. published combination counts

# [WoO-WST]: combinations of each winning total, as (Player win, Banker win, Tie); 0 where it cannot happen.
WINNING_SIDE_AND_TOTAL = {
    9: (613_074_020_540_416, 586_850_279_002_112, 55_146_054_060_032),
    8: (555_823_197_134_848, 529_914_458_673_152, 54_879_416_675_072),
    7: (408_043_979_470_848, 384_279_324_919_808, 101_717_538_899_968),
    6: (312_658_895_192_064, 269_232_304_455_680, 96_170_001_308_416),
    5: (122_838_277_197_824, 216_715_928_915_968, 39_684_046_743_808),
    4: (86_165_771_096_064, 163_359_790_133_248, 36_294_133_463_040),
    3: (62_946_423_310_336, 72_927_778_568_192, 22_250_510_129_408),
    2: (44_328_525_111_296, 44_681_581_871_104, 20_006_606_104_576),
    1: (24_639_193_538_560, 24_291_119_898_624, 20_499_217_668_352),
    0: (0, 0, 28_979_901_420_544),
}


def _super_baccarat_lines(side: str, total: int) -> list[str]:
    """The pay-table lines of a Super Baccarat bet that make up its winning event (Banker 6: Lucky 6's two)."""
    if (side, total) == ("banker", 6):
        return ["Banker wins with a two-card 6", "Banker wins with a three-card 6"]
    return [f"Tie at {total}" if side == "tie" else f"{side.capitalize()} wins with {total}"]


# (rule set, bet, pay-table lines summed, combinations published in the return table, source)
COMBINATIONS = [
    (SA, "three_giving_eight", ["Banker two-card 3, Player draws an 8"], 22_708_577_366_016, "WoO-3G8"),
    (T5, "fortune_7", ["Banker wins with a three-card 7"], 112_633_011_329_024, "WoO-5T"),
    (T5, "golden_8", ["Player wins with a three-card 8"], 172_660_763_262_976, "WoO-5T"),
    (TIG, "tiger", ["Banker wins with a two-card 6"], 186_173_936_904_192, "WoO-L6"),
    (TIG, "tiger", ["Banker wins with a three-card 6"], 83_058_367_551_488, "WoO-L6"),
    (GF, "gf_any_8_beats_any_6", ["Player 8 beats Banker 6", "Banker 8 beats Player 6"], 150_358_085_283_840,
     "WoO-GF"),
    (GF, "gf_2_card_9_beats_2_card_7", ["Player 2-card 9 beats Banker 2-card 7",
                                        "Banker 2-card 9 beats Player 2-card 7"], 90_066_027_282_432, "WoO-GF"),
    (GF, "gf_3_card_9_beats_3_card_1", ["Player 3-card 9 beats Banker 3-card 1",
                                        "Banker 3-card 9 beats Player 3-card 1"], 28_511_182_835_712, "WoO-GF"),
    (DAI, "dai_bacc_ox_6", ["Player wins with a three-card 6"], 109_309_407_541_248, "WoO-Ox6"),
    (DAI, "dai_bacc_kill", ["Kill the Ox: Player three-card 6 does not win"], 84_102_272_663_808, "WoO-Kill"),
    (DAI, "dai_bacc_kill", ["Kill the Tiger: Banker three-card 7 does not win"], 54_956_551_870_464, "WoO-Kill"),
    (BB, "any_bad_beat", ["Three-card 9 beats three-card 8"], 20_727_962_554_368, "WoO-BB"),
    (BB, "any_bad_beat", ["Natural 9 beats natural 8"], 89_717_848_178_688, "WoO-BB"),
    (BB, "any_bad_beat", ["8 beats 7"], 156_966_594_535_424, "WoO-BB"),
    (BB, "any_bad_beat", ["7 beats 6"], 195_793_881_763_840, "WoO-BB"),
    (BB, "any_bad_beat", ["Any other one-point win"], 369_982_973_018_112, "WoO-BB"),
    # Issue 41, item 5: bets pinned only to a two-decimal edge, whose page's return table prints the count (the
    # stored copies break off before the six-decimal return): the count is the finer figure. [WoO-BB] Eight Beats
    # Seven table; [WoO-5T] Golden 8 Return Table; [WoO-STie] Pay Table 2 counts the events of Pay Table 1.
    (BB, "bad_beat_8_beats_7", ["8 beats 7"], 156_966_594_535_424, "WoO-BB"),
    (T5, "golden_8", ["Player wins with a three-card 8"], 172_660_763_262_976, "WoO-5T"),
    (COL, "super_tie_100_20_7", ["Three-card tie on 6-9, six cards of one colour"], 1_326_729_820_672, "WoO-STie"),
    (COL, "super_tie_100_20_7", ["Three-card tie on 6-9, mixed colours"], 42_861_591_369_728, "WoO-STie"),
    (COL, "super_tie_100_20_7", ["Any other tie"], 431_439_105_282_816, "WoO-STie"),
    (EG, "super_pay_egalite_1_3", ["Tie at 1, 2 or 3"], 62_756_333_902_336, "WoO-Eg-Groupings"),
    (EG, "super_pay_egalite_4_5", ["Tie at 4 or 5"], 75_978_180_206_848, "WoO-Eg-Groupings"),
    (EG, "super_pay_egalite_6_7", ["Tie at 6 or 7"], 197_887_540_208_384, "WoO-Eg-Groupings"),
    (EG, "super_pay_egalite_8_9", ["Tie at 8 or 9"], 110_025_470_735_104, "WoO-Eg-Groupings"),
    (TM, "low_tie_max", ["Tie, highest card 0-5"], 74_570_116_880_640, "WoO-TM"),
    (TM, "high_tie_max", ["Tie, highest card 6-9"], 401_057_309_592_576, "WoO-TM"),
    (COL, "super_tie_100_25_7", ["Three-card tie on 6-9, six cards of one colour"], 1_326_729_820_672, "WoO-STie"),
    (COL, "super_tie_100_25_7", ["Three-card tie on 6-9, mixed colours"], 42_861_591_369_728, "WoO-STie"),
    (COL, "super_tie_100_25_7", ["Any other tie"], 431_439_105_282_816, "WoO-STie"),
    (COL, "contrast_bonus_35_15_5", ["Contrast, six cards"], 49_975_532_181_504, "WoO-CBB"),
    (COL, "contrast_bonus_35_15_5", ["Contrast, five cards"], 95_217_257_023_488, "WoO-CBB"),
    (COL, "contrast_bonus_35_15_5", ["Contrast, four cards"], 237_970_360_442_880, "WoO-CBB"),
    (MON, "monkey_6", ["5th card not a Monkey, 6th card a Monkey"], 295_533_789_192_192, "WoO-Monkey-6"),
    (MON, "monkey_6_tie", ["Monkey 6 and a tie"], 29_035_119_366_144, "WoO-Monkey-6-Tie"),
    (MON, "grand_monkey_6000", ["Six Monkeys"], 667_474_778_880, "WoO-Grand-Monkey"),
    (NAT, "natural_8_banker_9_to_1", ["Banker natural 8"], 472_508_456_071_680, "WoO-Nat"),
    (NAT, "natural_9_banker_9_to_1", ["Banker natural 9"], 474_361_430_409_216, "WoO-Nat"),
    (NAT, "lucky_99", ["Both natural 9"], 44_838_810_157_056, "WoO-L99"),
    (NAT, "lucky_99", ["Banker natural 9 only"], 429_522_620_252_160, "WoO-L99"),
    (NAT, "lucky_99", ["Player natural 9 only"], 429_522_620_252_160, "WoO-L99"),
    (CC, "three_card_win_player", ["Player wins with three cards"], 942_837_427_226_624, "WoO-3CW"),
    (CC, "three_card_win_banker", ["Banker wins with three cards"], 763_885_033_768_960, "WoO-3CW"),
    (L8, "lucky_8_player", ["Double suited 3-card 8"], 38_708_182_784, "WoO-L8"),
    (L8, "lucky_8_player", ["Unlucky 8 (Player 8 loses)"], 54_643_925_237_760, "WoO-L8"),
    # Two-card tables count unordered two-card hands out of C(416, 2) = 86,320.
    (TWO, "majestic_match_player", ["Suited K-Q"], 256 * TWO_CARD, "WoO-MM"),
    (TWO, "majestic_match_banker", ["Suited"], 21_168 * TWO_CARD, "WoO-MM"),
    (TWO, "perfect_9_bonus", ["Suited A-8, 2-7, 3-6, 4-5"], 1_024 * TWO_CARD, "WoO-P9"),
    (TWO, "perfect_9_bonus", ["Unsuited A-8, 2-7, 3-6, 4-5"], 3_072 * TWO_CARD, "WoO-P9"),
    (TWO, "perfect_9_bonus", ["9 with a 10, J, Q or K"], 4_096 * TWO_CARD, "WoO-P9"),
    # Perfect Pairs counts unordered Player hands x unordered Banker hands out of 7,379,583,120.
    (TWO, "perfect_pairs_26", ["A perfect pair (paid once)"], 246_848_784 * PAIRED_HANDS, "WoO-PP1"),
    # Lucky Nines counts unordered first four cards out of C(416, 4) = 1,229,930,520 (the Red Rock rows).
    (L9, "lucky_nines_red_rock", ["Three suited nines"], 86_016 * FOUR_CARD, "WoO-L9-Red-Rock"),
    (L9, "lucky_nines_red_rock", ["Three nines, mixed suits"], 1_818_624 * FOUR_CARD, "WoO-L9-Red-Rock"),
    (PAIRS, "perfect_pairs_25", ["A perfect pair (paid once)"], 246_848_784 * PAIRED_HANDS, "WoO-PP1"),
    (PAIRS, "perfect_pairs_250_25", ["Two perfect pairs"], 2_101_008 * PAIRED_HANDS, "WoO-PP2"),
    (PAIRS, "perfect_pairs_250_25", ["One perfect pair"], 244_747_776 * PAIRED_HANDS, "WoO-PP2"),
    (PAIRS, "lucky_6_12_23", ["Banker wins with a two-card 6"], 186_173_936_904_192, "WoO-L6-LV"),
    (PAIRS, "lucky_6_12_23", ["Banker wins with a three-card 6"], 83_058_367_551_488, "WoO-L6-LV"),
    # [WoO-WT] prints 1,199,924,299,542,530 for the 9 row: its formatting drops the last digits of 16-digit counts
    # (the column then sums to 4,998,398,275,503,362); the exact count is the Player and Banker 9s of [WoO-WST].
    (WTOT, "winning_total_9", ["Winning total 9"], 613_074_020_540_416 + 586_850_279_002_112, "WoO-WT"),
    (WTOT, "winning_total_8", ["Winning total 8"], 1_085_737_655_808_000, "WoO-WT"),
    (WTOT, "winning_total_7", ["Winning total 7"], 792_323_304_390_656, "WoO-WT"),
    (WTOT, "winning_total_5_6", ["Winning total 5 or 6"], 921_445_405_761_536, "WoO-WT"),
    (WTOT, "winning_total_1_4", ["Winning total 1 to 4"], 523_340_183_527_424, "WoO-WT"),
] + [
    (WTOT, f"super_baccarat_{side}_{t}", _super_baccarat_lines(side, t), row[column], "WoO-WST")
    for side, column in (("player", 0), ("banker", 1), ("tie", 2))
    for t, row in WINNING_SIDE_AND_TOTAL.items() if row[column]
] + [
    (DB, f"dragon_bonus_{side}", [line], combos, "WoO-DB")
    for side, counts in (
        ("player", (18_409_431_764_992, 34_097_645_543_424, 89_590_261_473_280, 141_238_897_317_888,
                    166_169_165_987_840, 186_780_352_174_080, 812_685_054_124_032, 89_325_908_267_520)),
        ("banker", (15_390_342_909_952, 28_305_092_784_128, 79_517_099_278_336, 119_200_072_366_080,
                    157_275_882_332_160, 201_147_167_287_296, 812_685_054_124_032, 89_325_908_267_520)))
    for line, combos in zip(["Win by 9", "Win by 8", "Win by 7", "Win by 6", "Win by 5", "Win by 4", "Natural win",
                             "Natural tie"], counts)
] + [
    (EG, f"egalite_{t}", [f"Tie at {t}"], combos, "WoO-Eg")
    for t, combos in enumerate((28_979_901_420_544, 20_499_217_668_352, 20_006_606_104_576, 22_250_510_129_408,
                                36_294_133_463_040, 39_684_046_743_808, 96_170_001_308_416, 101_717_538_899_968,
                                54_879_416_675_072, 55_146_054_060_032))
] + [
    (STOT, f"side_total_{side}_{t}", [f"{side.capitalize()} scores {t}"], combos, "WoO-STot")
    for side, rows in (
        ("player", (469_796_508_410_880, 372_517_055_559_936, 371_465_655_324_672, 372_517_215_488_256,
                    371_426_030_979_072, 372_435_601_541_376, 665_920_136_276_736, 668_117_541_187_584,
                    665_982_456_134_400, 668_220_074_600_448)),
        ("banker", (None, None, None, 363_761_246_869_760, 466_997_733_545_984, 503_359_177_443_584,
                    605_184_530_090_752, 641_950_993_608_704, 639_959_843_756_800, 641_996_333_062_144)))
    for t, combos in enumerate(rows) if combos
]


@pytest.mark.parametrize("name, bet_id, lines, combos, source", COMBINATIONS,
                         ids=[f"{bet}:{lines[0]}-{source}" for _, bet, lines, _, source in COMBINATIONS])
def test_combinations_match_published_return_tables(name, bet_id, lines, combos, source):
    counts = line_counts(name, bet_id)
    assert counts["total"] == TOTAL_8
    assert sum(counts[line] for line in lines) == combos, source


# --------------------------------------------------------------------------- 3. figures we do not reproduce

# (rule set, bet, published figure, ours at the digits published, source): each is explained by a test below or
# in the rule set's assumptions.
NOT_REPRODUCED = [
    # [WoO-L9] Binion's table: a wrong combination count (test_lucky_nines_binions_figure_comes_from_a_wrong_count).
    pytest.param(L9, "lucky_nines_binions", "19.46%", "19.06%", id="lucky_nines_binions-WoO-L9-Binions"),
    # [WoO-L8]: the tables count other rules than the page states (test_lucky_8_published_tables_count_...).
    pytest.param(L8, "lucky_8_player", "13.65%", "11.98%", id="lucky_8_player-WoO-L8"),
    pytest.param(L8, "lucky_8_banker", "16.60%", "15.25%", id="lucky_8_banker-WoO-L8"),
    # [WoO-456]: returns from rounded probabilities (test_four_five_six_returns_come_from_rounded_probabilities).
    pytest.param(CC, "cards_5", "-0.089668", "-0.089667", id="cards_5-WoO-456"),
    pytest.param(CC, "cards_6", "-0.046939", "-0.046938", id="cards_6-WoO-456"),
    # [WoO-TM]: the text's 11.75% is a slip for its own table's -0.117391 (test_high_tie_max_text_is_a_slip...).
    pytest.param(TM, "high_tie_max", "11.75%", "11.74%", id="high_tie_max-WoO-TM-text"),
    # [AAP] prints 8.459%: Jacobson's own 8.4585% [EJ-BB] rounded again (exact 8.45847%, which is 8.458%).
    pytest.param(BB, "bad_beat_natural_9_beats_natural_8", "8.459%", "8.458%", id="bad_beat_natural_9-AAP"),
    # [EJ-LW]: Galaxy's rack sheet states 12.07% for pay table #1; Jacobson got 12.040% combinatorially and by a
    # simulation of a billion shoes ("None of my numbers matched Galaxy's"), as we do (PUBLISHED).
    pytest.param(LW, "lucky_win_player", "12.07%", "12.04%", id="lucky_win_player-Galaxy-rack-sheet"),
    # [EJ-DP] prints 7.6110% for Dragon 7, where his own Dragon/Fortune 7 article [EJ-D7] prints 7.6113%, which is
    # ours and Wizard of Odds' (-0.076113): a slip in the last digit (test_dragon_7_figures_of_jacobson_disagree).
    pytest.param(T5, "fortune_7", "7.6110%", "7.6113%", id="fortune_7-EJ-DP"),
]
# The bets whose stated_rtp is one of those figures: `--check` reports them, and only them.
CHECK_FAILS = {"lucky_nines_binions", "lucky_8_player", "lucky_8_banker", "cards_5", "cards_6"}


@pytest.mark.parametrize("name, bet_id, published, ours", NOT_REPRODUCED)
def test_not_reproduced_figures_differ_and_ours_is_pinned(name, bet_id, published, ours):
    edge = exact_edge(name, bet_id)
    assert not holds(edge, published) and holds(edge, ours)


def test_lucky_nines_binions_figure_comes_from_a_wrong_count():
    # [WoO-L9] Binion's table: "Three suited nines 64,512" and "Three nines 1,840,128"; its Red Rock table on the
    # same page: 86,016 and 1,818,624. Three nines of one suit among the first four cards, the fourth not a nine,
    # in unordered four-card combinations: 4 suits x C(8, 3) nines x 384 non-nines = 86,016.
    counts = {line: n // FOUR_CARD for line, n in line_counts(L9, "lucky_nines_binions").items()}
    assert counts["Three suited nines"] == 4 * math.comb(8, 3) * 384 == 86_016
    assert counts["Three suited nines"] + counts["Three nines, mixed suits"] == 64_512 + 1_840_128
    # Ours: 19.06%. With the source's two counts in place of the right ones, its 19.46% comes out.
    rules = rules_of(L9)
    net = {case.name: case.net for case in rules.bet("lucky_nines_binions").cases}
    wrong = dict(counts, **{"Three suited nines": 64_512, "Three nines, mixed suits": 1_840_128})
    ev = sum(net.get(line, -1) * n for line, n in wrong.items() if line != "total") / math.comb(416, 4)
    assert holds(-ev, "19.46%") and holds(exact_edge(L9, "lucky_nines_binions"), "19.06%")


# The counting Wizard of Odds' Lucky 8 tables follow: a suited 3-card 8 pays 25 only when the other hand also
# drew (else it is counted as a Lucky 8 at 4), and a plain 8 tying the other hand's suited 3-card 8 loses.
LUCKY_8_AS_TABULATED = """
schema_version = 1
id = "lucky-8-as-tabulated"
[[bets]]
id = "lucky_8_player"
pays = [
  { when = "player_flush and player_score == 8 and banker_flush and banker_score == 8", pays = "200:1", name = "Double suited 3-card 8" },
  { when = "player_flush and player_score == 8 and not (banker_flush and banker_score == 8) and banker_cards == 3", pays = "25:1", name = "Suited 3-card 8" },
  { when = "player_score == 8 and banker_score == 8 and not player_flush and not banker_flush", pays = "15:1", name = "Double 8" },
  { when = "player_score == 8 and winner == banker and not player_flush", pays = "8:1", name = "Unlucky 8" },
  { when = "player_score == 8 and winner == player and not (player_flush and banker_cards == 3)", pays = "4:1", name = "Lucky 8" },
]
otherwise = { pays = "lose", name = "Loser" }
"""  # noqa: E501


def test_lucky_8_published_tables_count_other_rules_than_they_state():
    # [WoO-L8] Player return table, row by row, then the Banker total (16.60%) under the same counting.
    tabulated = parse_rules(LUCKY_8_AS_TABULATED, "lucky-8-as-tabulated.toml")
    banker_text = LUCKY_8_AS_TABULATED.replace("player", "PLAYER").replace("banker", "player").replace(
        "PLAYER", "banker")
    tabulated_banker = parse_rules(banker_text, "lucky-8-as-tabulated.toml")
    hist = exact_histogram(8, rules_detail(tabulated))
    table = breakdown(hist, "lucky_8_player", tabulated)
    assert [int(n) for n in table["combinations"]] == [
        38_708_182_784, 8_230_060_380_160, 53_649_934_949_376, 54_643_925_237_760, 548_824_514_488_320,
        4_333_011_132_264_960, TOTAL_8]
    banker = -settle_bet(exact_histogram(8, rules_detail(tabulated_banker)), tabulated_banker.bet(
        "lucky_8_banker"), tabulated_banker).ev_exact
    assert holds(banker, "16.60%")
    # Under the rules as the page states them (the catalogue's), the differences are exactly those two events.
    ours = line_counts(L8, "lucky_8_player")
    assert ours["Suited 3-card 8"] - 8_230_060_380_160 == 548_824_514_488_320 - ours["Lucky 8 (Player 8 wins)"] \
        == 3_532_917_806_592  # a Player suited 3-card 8 beating a Banker that stood
    assert ours["Double 8"] - 53_649_934_949_376 == 595_312_896_000  # a plain Player 8 tying a Banker suited 8


@pytest.mark.parametrize("decks, probabilities, returns", [
    (8, ("0.378868", "0.303444", "0.317687"), ("-0.05283", "-0.089668", "-0.046939")),
    (6, ("0.378925", "0.303540", "0.317535"), ("-0.052688", "-0.089380", "-0.047395")),
])
def test_four_five_six_returns_come_from_rounded_probabilities(decks, probabilities, returns):
    # [WoO-456]: the probabilities are exact to the digits printed; each printed return is (pays + 1) x the
    # *rounded* probability - 1, so it may miss the exact return by one in its last digit.
    rules = rules_of(CC)
    for bet_id, probability, printed in zip(("cards_4", "cards_5", "cards_6"), probabilities, returns):
        result = settle_bet(histogram(CC, decks), rules.bet(bet_id), rules)
        assert abs(Fraction(result.hit_frequency) - Fraction(probability)) <= Fraction(5, 10**7)
        from_rounded = (1 + rules.bet(bet_id).cases[0].net) * Fraction(probability) - 1
        value, half = published_edge(printed)
        assert abs(-from_rounded - value) <= half  # the source's arithmetic, to its digits
        assert abs(-result.ev_exact - value) <= 3 * half  # the exact return: at most one unit off


def test_high_tie_max_text_is_a_slip_for_its_table():
    # [WoO-TM]: "a house edge of 16.45% for the Low Tie and 11.75% for the High Tie", above a High Tie table whose
    # total is -0.117391 (401,057,309,592,576 combinations at 10 to 1): 11.74%, which is ours.
    edge = exact_edge(TM, "high_tie_max")
    assert 1 - 11 * Fraction(401_057_309_592_576, TOTAL_8) == edge
    assert holds(edge, "11.74%") and not holds(edge, "11.75%")


# --------------------------------------------------------------------------- 4. bets with no published figure

def test_tiger_tie_is_egalite_6_at_35_to_1():
    # No published edge. [WoO-Eg] counts 96,170,001,308,416 ties at 6-6: at 35 to 1 that is 30.74%.
    assert exact_edge(TIG, "tiger_tie") == 1 - 36 * Fraction(96_170_001_308_416, TOTAL_8)
    assert holds(exact_edge(TIG, "tiger_tie"), "30.735%")


def test_tiger_pair_matches_a_closed_form():
    # No published edge. Ordered first four cards of 416 (13 ranks of 32): pairs by rank, the twin pairs of one rank.
    per_rank, total = 32, math.perm(416, 4)
    twin = 13 * math.perm(per_rank, 4)
    double = 13 * 12 * math.perm(per_rank, 2) ** 2
    # A Player pair of rank r leaves 30 cards of r and 32 of every other rank for the Banker's two cards.
    banker_unpaired = math.perm(414, 2) - math.perm(per_rank - 2, 2) - 12 * math.perm(per_rank, 2)
    single = 2 * 13 * math.perm(per_rank, 2) * banker_unpaired
    ev = Fraction(100 * twin + 20 * double + 4 * single - (total - twin - double - single), total)
    assert exact_edge(TIG, "tiger_pair") == -ev
    assert holds(-ev, "16.12%")


@pytest.fixture(scope="module")
def brute():
    return point_brute_force(8)


@pytest.mark.parametrize("bet_id, figure", [("heavenly_9", "9.3105%"), ("blazing_7s", "7.7797%"),
                                            ("cover_all", "2.9664%")])
def test_five_treasures_without_published_edges_match_a_brute_force(brute, bet_id, figure):
    # [WoO-5T] prices these three, but the stored copies of the page end before their tables: our figures are
    # checked against the independent point-value brute force of test_published_edges instead.
    o = brute
    nine = {side: (o[f"{side[0]}c"] == 3) & (o[f"{side[0]}s"] == 9) for side in ("player", "banker")}
    sevens = (o["ps"] == 7) & (o["bs"] == 7)
    fortune = (o["bs"] > o["ps"]) & (o["bc"] == 3) & (o["bs"] == 7)
    golden = (o["ps"] > o["bs"]) & (o["pc"] == 3) & (o["ps"] == 8)
    lines = {
        "heavenly_9": [(nine["player"] & nine["banker"], 75), (nine["player"] | nine["banker"], 10)],
        "blazing_7s": [(sevens & (o["pc"] == 3) & (o["bc"] == 3), 200), (sevens & (o["pc"] == 2) & (o["bc"] == 2),
                                                                             50)],
        "cover_all": [(fortune | golden | nine["player"] | nine["banker"] | (sevens & (o["pc"] == o["bc"])), 6)],
    }[bet_id]
    expected = -_point_ev(o, [(mask, Fraction(pays)) for mask, pays in lines])
    assert exact_edge(T5, bet_id) == expected and holds(expected, figure)


def test_banker_side_totals_without_published_rows_fill_the_table(brute):
    # [WoO-STot] The stored Banker table stops after the 3 row. The totals 2, 1, 0 (no published figure) must hold
    # every deal the printed rows do not: the page's total is 4,998,398,275,503,360.
    printed = sum(c for name, bet, _, c, _ in COMBINATIONS if name == STOT and bet.startswith("side_total_banker"))
    missing = sum(line_counts(STOT, f"side_total_banker_{t}")[f"Banker scores {t}"] for t in range(3))
    assert printed + missing == TOTAL_8
    for t, figure in ((2, "20.5883%"), (1, "20.3264%"), (0, "20.1021%")):
        expected = -_point_ev(brute, [(brute["bs"] == t, rules_of(STOT).bet(f"side_total_banker_{t}").cases[0].net)])
        assert exact_edge(STOT, f"side_total_banker_{t}") == expected and holds(expected, figure)


def test_contrast_bonus_tables_without_published_edges_follow_the_published_counts():
    # [WoO-CBB] prints the combinations (six, five, four cards) but no edge for pay tables 3 and 4.
    counts = (49_975_532_181_504, 95_217_257_023_488, 237_970_360_442_880)
    for bet_id, pays, figure in (("contrast_bonus_30_17_5", (30, 17, 5), "6.150%"),
                                 ("contrast_bonus_30_15_6", (30, 15, 6), "5.199%")):
        ev = Fraction(sum((p + 1) * c for p, c in zip(pays, counts)), TOTAL_8) - 1
        assert exact_edge(COL, bet_id) == -ev and holds(-ev, figure)


def test_contrast_bonus_tables_3_and_4_give_wizard_of_odds_rounded_figures():
    # [WoO-CBB] analyses all four tables ("The following four tables show my analysis of the four available pay
    # tables"), but the stored copies break off inside table 3: its own counts give 6.15% and 5.20%, as ours do.
    assert holds(exact_edge(COL, "contrast_bonus_30_17_5"), "6.15%")
    assert holds(exact_edge(COL, "contrast_bonus_30_15_6"), "5.20%")
    assert holds(exact_edge(COL, "contrast_bonus_30_17_5"), "-0.061505")
    assert holds(exact_edge(COL, "contrast_bonus_30_15_6"), "-0.051994")


def test_four_five_six_six_deck_returns_are_one_unit_off_where_the_note_says():
    # [WoO-456] 6 decks: the 4- and 5-card returns printed are one unit off the exact returns at six decimals, as
    # the 5- and 6-card ones are at 8 decks (catalogue-card-count's assumptions say so); the 6-card one is exact.
    rules = rules_of(CC)
    for bet_id, printed, exact_digits in (("cards_4", "-0.052688", "-0.052687"), ("cards_5", "-0.089380", "-0.089381"),
                                          ("cards_6", "-0.047395", "-0.047395")):
        ev = settle_bet(histogram(CC, 6), rules.bet(bet_id), rules).ev_exact
        assert holds(-ev, exact_digits) and holds(-ev, printed) == (printed == exact_digits), bet_id


def test_dragon_7_figures_of_jacobson_disagree_in_the_last_digit():
    # [EJ-D7] 7.6113% and [EJ-DP] 7.6110% for the same bet (Banker wins with a three-card 7 at 40 to 1); Wizard of
    # Odds' count (112,633,011,329,024 of 4,998,398,275,503,360) gives 7.61133%, which is ours.
    edge = 1 - 41 * Fraction(112_633_011_329_024, TOTAL_8)
    assert exact_edge(T5, "fortune_7") == edge
    assert holds(edge, "7.6113%") and not holds(edge, "7.6110%")


def test_issue41_item3_total_shot_bonus_hit_frequency_and_sd_are_jacobsons(brute):
    # [EJ-TSB]: house edge 8.364% (PUBLISHED), hit frequency 3.313%, standard deviation 5.239; and the independent
    # brute force over point values, a 9 on both sides (18) or a 9 and an 8 (17).
    rules = rules_of(TSB)
    result = settle_bet(histogram(TSB), "total_shot_bonus", rules)
    assert f"{result.hit_frequency:.3%}" == "3.313%" and f"{result.sd:.3f}" == "5.239"
    o = brute
    total = o["ps"] + o["bs"]
    assert result.ev_exact == _point_ev(o, [(total == 18, Fraction(40)), (total == 17, Fraction(20))])
    # [WoO-WST]: 18 is the 9-9 tie; 17 a 9 over an 8 either way, whose counts that page does not split out.
    assert line_counts(TSB, "total_shot_bonus")["Total 18 (9 and 9)"] == WINNING_SIDE_AND_TOTAL[9][2]


def test_issue41_item3_knockout_follows_a_brute_force_and_the_published_counts(brute):
    # [EJ-KOB] prints the rules and pays, no house edge: each bet against the independent point-value brute force,
    # and its winning line against the winning side and total counts of [WoO-WST]; every tie pushes.
    o = brute
    tie = o["ps"] == o["bs"]
    winning = np.where(o["ps"] > o["bs"], o["ps"], o["bs"])
    player_wins, banker_wins = o["ps"] > o["bs"], o["bs"] > o["ps"]
    bets = {"knockout_1_4": ((1, 2, 3, 4), Fraction(7)), "knockout_5_6": ((5, 6), Fraction(7, 2)),
            "knockout_7": ((7,), Fraction(9, 2)), "knockout_8": ((8,), Fraction(3)),
            "knockout_9": ((9,), Fraction(5, 2))}
    for bet_id, (totals, pays) in bets.items():
        wins = ~tie & np.isin(winning, totals)
        assert exact_edge(KO, bet_id) == -_point_ev(o, [(wins, pays), (tie, Fraction(0))]), bet_id
        published = sum(WINNING_SIDE_AND_TOTAL[t][0] + WINNING_SIDE_AND_TOTAL[t][1] for t in totals)
        ties = sum(row[2] for row in WINNING_SIDE_AND_TOTAL.values())
        assert exact_edge(KO, bet_id) == 1 - Fraction(published * (pays + 1) + ties, TOTAL_8), bet_id
    for side, wins, natural in (("player", player_wins, o["pn"]), ("banker", banker_wins, o["bn"])):
        bet_id = f"knockout_{side}_natural"
        assert exact_edge(KO, bet_id) == -_point_ev(o, [(wins & natural, Fraction(4)), (tie, Fraction(0))]), bet_id
    # Not Wizard of Odds' Winning Total (catalogue-winning-totals): other pays, and there a tie loses.
    assert exact_edge(KO, "knockout_9") != exact_edge(WTOT, "winning_total_9")
    assert f"{float(exact_edge(KO, 'knockout_1_4')):.4%}" == "6.7231%"


def test_winning_totals_without_published_returns_follow_the_published_counts():
    # [WoO-WT] cuts off inside the 1-to-4 row and [WoO-SB] at the Banker 4 row, before the Tie table; [WoO-WST]
    # prints the combinations of every event, so each edge follows from (pays + 1) x count.
    rules = rules_of(WTOT)
    events = {"winning_total_1_4": 523_340_183_527_424}
    events.update({f"super_baccarat_banker_{t}": WINNING_SIDE_AND_TOTAL[t][1] for t in (4, 3, 2, 1)})
    events.update({f"super_baccarat_tie_{t}": WINNING_SIDE_AND_TOTAL[t][2] for t in range(10)})
    unstated = {bet.id for bet in rules.bets if bet.stated_rtp is None}
    assert unstated == set(events)
    for bet_id, count in events.items():
        pays = rules.bet(bet_id).cases[0].net
        assert exact_edge(WTOT, bet_id) == 1 - (pays + 1) * Fraction(count, TOTAL_8), bet_id
    assert holds(exact_edge(WTOT, "winning_total_1_4"), "-0.162387")  # our own figure: the row is cut off
    # A tie loses every one of these bets: with a push on a tie the printed returns do not come out.
    nine = Fraction(WINNING_SIDE_AND_TOTAL[9][0] + WINNING_SIDE_AND_TOTAL[9][1], TOTAL_8)
    tie = Fraction(sum(row[2] for row in WINNING_SIDE_AND_TOTAL.values()), TOTAL_8)
    assert holds(-(3 * nine - 1), "-0.279815") and not holds(-(3 * nine - (1 - tie)), "-0.279815")


def test_macau_sevens_without_published_edges_match_a_brute_force(brute):
    # No published edge (news items only). The independent point-value brute force of test_published_edges.
    o = brute
    seven = (o["ps"] == 7) & (o["ps"] > o["bs"])
    over_six = (o["ps"] == 7) & (o["bs"] == 6)
    lucky = [(seven & (o["pc"] == 2), Fraction(6)), (seven & (o["pc"] == 3), Fraction(15))]
    superb = [(over_six & (o["pc"] == 3) & (o["bc"] == 3), Fraction(100)),
              (over_six & (o["pc"] == 3) & (o["bc"] == 2), Fraction(40)),
              (over_six & (o["pc"] == 2) & (o["bc"] == 2), Fraction(30))]
    for bet_id, lines, figure in (("lucky_7", lucky, "18.2961%"), ("super_lucky_7", superb, "33.4403%")):
        expected = -_point_ev(o, lines)
        assert exact_edge(SEVENS, bet_id) == expected and holds(expected, figure), bet_id
    # Issue 41, item 2: the case no source prices (two-card Player 7 over three-card Banker 6), a line of its own
    # priced as a loss, and the RTP the rule file quotes were it paid 30 to 1; both in the assumptions.
    unresolved = over_six & (o["pc"] == 2) & (o["bc"] == 3)
    assert f"{float(o['weight'][unresolved].sum()) / TOTAL_8:.4%}" == "0.4538%"
    assert line_counts(SEVENS, "super_lucky_7")["Two-card 7 over three-card 6: unresolved, priced as a loss"] == int(
        o["weight"][unresolved].sum())
    at_30 = 1 + _point_ev(o, [*superb, (unresolved, Fraction(30))])
    assert holds(1 - at_30, "19.3723%")  # RTP 80.6277%
    notes = " ".join(rules_of(SEVENS).assumptions)
    assert "UNRESOLVED" in notes and "RTP 66.5597%" in notes and "80.6277%" in notes


def test_all_red_and_all_black_match_a_brute_force_over_point_values(brute):
    # No published pays (issue 41, item 1): each bet pays the odds offered, a meter X in stakes, so the RTP is
    # P x (X + 1), P the event's probability, worked out here independently. Within a point value, half the cards
    # are red and colour is independent of the deal: a round whose used cards number k_v of value v (of n_v in the
    # shoe) is all red with probability
    # prod C(n_v / 2, k_v) / C(n_v, k_v), summed over every ordered six-card sequence of point values.
    import numpy as np

    values = np.indices((10,) * 6).reshape(6, -1)
    drawn = (brute["pc"] == 3) | (brute["bc"] == 3)
    used = np.stack([np.ones_like(drawn)] * 4 + [drawn, (brute["pc"] == 3) & (brute["bc"] == 3)])
    kinds = np.stack([((values == v) & used).sum(axis=0) for v in range(10)], axis=1)
    rows, where = np.unique(kinds, axis=0, return_inverse=True)
    weight = np.zeros(len(rows), np.int64)
    np.add.at(weight, where.ravel(), brute["weight"])
    assert int(weight.sum()) == TOTAL_8
    shoe = [128] + [32] * 9
    p = sum(Fraction(int(weight[i])) * math.prod(Fraction(math.comb(n // 2, int(k)), math.comb(n, int(k)))
                                                 for n, k in zip(shoe, row)) for i, row in enumerate(rows))
    p /= TOTAL_8
    rules, hist = rules_of(ARB), histogram(ARB)
    for bet_id in ("all_red", "all_black"):
        figures = jackpot_figures(hist, bet_id, rules)
        assert figures.base == figures.slope == figures.jackpot_probability == p, bet_id
        assert figures.break_even_meter == 1 / p - 1 and figures.reset is None and figures.meter == 0
        for pays in (0, 24, 25, Fraction(51, 2)):
            assert -settle_bet(hist, rules.bet(bet_id).with_meter(pays), rules).ev_exact == 1 - (pays + 1) * p
    assert abs(p - Fraction("0.0373904")) < Fraction(5, 10**8)


LUCKY_WIN_ON_THE_BANKER = """
schema_version = 1
id = "lucky-win-banker-as-player"
[[bets]]
id = "lucky_win_banker"
pays = [
  { when = "winner == banker and banker_score == 1 and banker_suited and B1.suit == spades", pays = "500:1" },
  { when = "winner == banker and banker_score == 1 and banker_suited and B1.suit != spades", pays = "200:1" },
  { when = "winner == banker and banker_score == 1 and not banker_suited", pays = "30:1" },
  { when = "winner == banker and banker_score == 2", pays = "20:1" },
  { when = "winner == banker and banker_score == 3", pays = "12:1" },
  { when = "winner == banker and banker_score == 4", pays = "8:1" },
  { when = "winner == banker and banker_score == 5", pays = "5:1" },
]
otherwise = "lose"
"""


def test_lucky_win_banker_cannot_pay_the_players_table():
    # catalogue-lucky-win's assumptions: the Banker's table is cut off, and the Player's would return 115.55%.
    rules = parse_rules(LUCKY_WIN_ON_THE_BANKER, "lucky-win-banker-as-player.toml")
    result = settle_bet(exact_histogram(8, rules_detail(rules)), rules.bet("lucky_win_banker"), rules)
    assert round(100 * result.rtp, 2) == 115.55
    assert "115.55%" in " ".join(rules_of(LW).assumptions)


# --------------------------------------------------------------------------- 5. the files themselves

def test_the_catalogue_holds_the_issues_bets():
    bets = {bet_id for name in CATALOGUE for bet_id in rules_of(name).bet_ids}
    named = {"colour_match", "three_giving_eight", "final_88_89_98_99", "nine_over_seven",
             "bad_beat_natural_9_beats_natural_8", "big_tiger", "small_tiger", "tiger_pair", "tiger_tie",
             "fortune_7", "golden_8", "heavenly_9", "blazing_7s", "cover_all", "gf_any_8_beats_any_6",
             "gf_2_card_9_beats_2_card_7", "gf_3_card_9_beats_3_card_1", "gf_3_card_9_beats_3_card_7",
             "dai_bacc_tiger_7", "dai_bacc_ox_6", "dai_bacc_kill", "lucky_nines_binions", "lucky_nines_red_rock",
             *(f"egalite_{t}" for t in range(10))}
    assert named <= bets
    # At least 30 bets beyond the other shipped rule sets (counted by pay table, not by id).
    def tables(rules):
        return {tuple((case.when, case.net) for case in bet.cases) for bet in rules.bets}
    others = set().union(*(tables(rules_of(n)) for n in available_rules() if not n.startswith("catalogue-")))
    new = {t for name in CATALOGUE for t in tables(rules_of(name))} - others
    assert len(new) >= 30 and len(bets) >= 100


@pytest.mark.parametrize("name", CATALOGUE)
def test_catalogue_file_loads_with_its_sources_and_stated_figures(name):
    rules = rules_of(name)
    assert rules.id == name and rules.shoe.decks == 8 and rules.shoe.model == "fresh"
    assert re.search(r"https?://", rules.source), "the publication is named with its address"
    assert rules.assumptions and rules.description
    detail = rules_detail(rules)
    # Every card-level bet is settled on one group of the card detail (there is no cap on their number).
    assert detail is None or all(detail.group_holding(a.text for a in bet.atoms) is not None
                                 for bet in rules.bets if bet.card_level)
    published_ids = {p.values[1] for p in PUBLISHED if p.values[0] == name}
    for bet in rules.bets:
        assert bet.name != bet.id and bet.description, bet.id
        if bet.stated_rtp is None:
            # No published figure: a documented reason names the bet, and a test of part 4 checks our figure.
            assert any(f"`{bet.id}`" in line for line in rules.assumptions), bet.id
            assert bet.id not in published_ids
        else:
            assert bet.id in published_ids or bet.id in CHECK_FAILS, bet.id
            # The stated RTP is exactly a published figure (1 - house edge, or 1 + return), at its digits.
            stated = Decimal(bet.stated_rtp.rstrip("%"))
            figures = [p.values[3] for p in PUBLISHED if p.values[:2] == (name, bet.id) and p.values[2] == 8]
            figures += [p.values[2] for p in NOT_REPRODUCED if p.values[:2] == (name, bet.id)]
            as_rtp = {100 - Decimal(f[:-1]) if f.endswith("%") else 100 * (1 + Decimal(f)) for f in figures
                      if not f.startswith("rtp")} | {100 * Decimal(f[4:]) for f in figures if f.startswith("rtp")}
            assert stated in as_rtp, (bet.id, bet.stated_rtp, figures)


def test_check_fails_exactly_on_the_documented_figures():
    failing = set()
    for name in CATALOGUE:
        rules = rules_of(name)
        for check in check_claims(rules, settle(histogram(name), rules)):
            if not check.holds:
                failing.add(check.claim.bet)
                # Each is explained in the rule set's assumptions, naming the bet.
                assert any(f"`{check.claim.bet}`" in line for line in rules.assumptions), check.claim.bet
    assert failing == CHECK_FAILS


# Monte Carlo against exact for every catalogue rule set that reads cards (the outcome-only ones share one run).
MC_ROUNDS, MC_SEED = 1_000_000, 20_240_613


@pytest.mark.parametrize("name", [n for n in CATALOGUE if rules_of(n).atoms] + ["outcomes"])  # atoms: a card detail
def test_monte_carlo_agrees_with_exact(name):
    names = [n for n in CATALOGUE if rules_detail(rules_of(n)) is None] if name == "outcomes" else [name]
    mc = simulate(rules_of(names[0]), MC_ROUNDS, MC_SEED, model="fresh", threads=MANY_THREADS)
    for rules in map(rules_of, names):
        for bet in rules.bets:
            view = mc.view([bet])  # the cells of the bet's group of the card detail
            est = estimate(view, net_vector(bet, rules, view.detail))
            z = est.z(1 + float(settle_bet(histogram(rules.id), bet, rules).ev_exact))
            assert abs(z) < 4, f"{rules.id}/{bet.id}: z = {z:.2f}"


#: A suit at each position, beside the catalogue: more than 40 card-level bets in one file.
SUIT_BETS = parse_rules("schema_version = 1\nid = \"suits\"\nname = \"suits\"\n[shoe]\ndecks = 8\n" + "".join(
    f'[[bets]]\nid = "{p.lower()}_{s}"\npays = [{{ when = "{p}.suit == {s}", pays = "3:1" }}]\notherwise = "lose"\n'
    for p in ("P1", "B1", "P2", "B2", "P3", "B3") for s in ("spades", "hearts", "diamonds", "clubs")), "suits.toml")


@functools.cache
def whole_catalogue() -> Rules:
    """Every catalogue bet in one rule set (issue 22: no cap on card-level bets in a file); all are 8-deck files."""
    files = [rules_of(name) for name in CATALOGUE]
    bets = tuple(bet for rules in files for bet in rules.bets) + SUIT_BETS.bets
    return dataclasses.replace(files[0], id="catalogue-all", bets=bets)


def test_every_catalogue_bet_in_one_rule_set_prices_exactly_and_by_monte_carlo():
    rules = whole_catalogue()
    assert len(rules.bets) >= 124 and sum(bet.card_level for bet in rules.bets) >= 40
    exact = exact_histogram(8, rules_detail(rules))
    mc = simulate(rules, MC_ROUNDS, MC_SEED + 1, model="fresh", threads=MANY_THREADS)
    for name in [*CATALOGUE, "suits"]:
        alone = SUIT_BETS if name == "suits" else rules_of(name)
        alone_exact = exact_histogram(8, rules_detail(alone)) if name == "suits" else histogram(name)
        for bet in alone.bets:
            ev = settle_bet(exact, bet, rules).ev_exact
            assert ev == settle_bet(alone_exact, bet, alone).ev_exact, (name, bet.id)
            view = mc.view([bet])
            z = estimate(view, net_vector(bet, rules, view.detail)).z(1 + float(ev))
            assert abs(z) < 4, f"{name}/{bet.id}: z = {z:.2f}"


def test_findings_page_lists_the_catalogue(tmp_path):
    out = tmp_path / "findings"
    assert findings_main(["--out", str(out), "--rules", "default", L9, TIG]) == 0
    table = pd.read_csv(out / "catalogue.csv")
    assert list(table["bet"]) == [*rules_of(L9).bet_ids, *rules_of(TIG).bet_ids]
    binions = table.set_index("bet").loc["lucky_nines_binions"]
    assert binions["published"] == "19.46%" and not binions["reproduced"]
    assert round(binions["house_edge"], 6) == round(float(exact_edge(L9, "lucky_nines_binions")), 6)
    assert table.set_index("bet")["reproduced"].isna().sum() == 2  # tiger_tie, tiger_pair: none published
    page = (out / "README.md").read_text()
    section = page.split("## Side-bet catalogue", 1)[1]
    assert "| `lucky_nines_binions` | Lucky Nines (Binion's) | 500:1 / 250:1 / 20:1 / 8:1 / 5:1 / 2:1 / 1:1 | " \
        "19.0583% | 19.46% | **differs** |" in section
    assert "| `tiger_tie` | Tiger Tie | 35:1 | 30.7354% | none published | - |" in section
    assert "https://wizardofodds.com/games/baccarat/side-bets/lucky-nines/" in section  # the source
    assert section.count("- `") == 3  # the notes: Binion's count, Tiger Tie, Tiger Pair
    # The catalogue is not among the rule sheets' stated RTPs, nor plotted.
    assert not (out / f"{L9}.png").exists() and (out / "default.png").exists()
    claims = json.loads((out / "findings.json").read_text())
    assert claims["claims"] == [] and len(claims["catalogue"]) == len(table)


def test_bet_ids_are_unique_across_the_catalogue():
    # One rule file may hold every catalogue bet (issue 22): no two catalogue bets share an id.
    ids = [bet_id for name in CATALOGUE for bet_id in rules_of(name).bet_ids]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_findings_page_covers_the_new_catalogue_bets():
    # Issue 22: every bet of the new catalogue files is on the findings page, reproduced where a figure is published.
    from baccarat_sim.analysis.findings import build_findings

    names = [WTOT, PAIRS, LW, SEVENS, ARB]
    rows = {row["bet"]: row for row in build_findings(names).catalogue}
    assert set(rows) == {bet_id for name in names for bet_id in rules_of(name).bet_ids}
    for name in names:
        for bet in rules_of(name).bets:
            assert rows[bet.id]["reproduced"] is (None if bet.stated_rtp is None else True), bet.id


def test_readme_catalogue_example_is_real(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # whatever the command writes stays out of the repository
    section = FINDINGS_PAGE.read_text().split("## The side-bet catalogue", 1)[1]
    command = re.search(r"```console\n\$ python -m baccarat_sim\.rtp (.*?)\n", section).group(1)
    shown = re.search(r"```console\n\$ [^\n]*\n(.*?)```", section, re.S).group(1)
    assert rtp_main(command.split()) == 0
    assert capsys.readouterr().out == shown
