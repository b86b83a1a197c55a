"""Issue 41: ``--check`` on a dealt shoe, and the smaller corrections of the ``rtp`` and ``hold`` command lines."""

from __future__ import annotations

import json

from .cli_helpers import cli

#: One deck dealt to its last card: rounds late in a shoe are dealt only from shoes whose earlier rounds were short,
#: which moves the RTP over every round far from the fresh shoe's (the cut card's effect, strong on a small shoe).
DEEP_CUT = '''schema_version = 1
id = "deep-cut"
name = "One deck dealt to the last card"
source = "tests/test_issue41_check.py"

[shoe]
decks = 1
shuffle = "dealt"
cut_card = { cards_from_end = 0 }

[commission]
rate = 0.05

[[bets]]
id = "four_cards"
name = "Four cards in the round"
pays = [{ when = "total_cards == 4", pays = "1:1" }]
otherwise = "lose"

[[bets]]
id = "any_natural"
name = "A natural"
pays = [{ when = "natural", pays = "1:1" }]
otherwise = "lose"
'''
#: Ones to fours out: a 36-card shoe of six or seven rounds, the last ones strongly selected.
DEPLETED = "A,A,A,A,2,2,2,2,3,3,3,3,4,4,4,4"


def test_issue41_item20_check_holds_a_dealt_shoe_to_the_rounds_every_shoe_deals(tmp_path, capsys):
    rules = tmp_path / "deep-cut.toml"
    rules.write_text(DEEP_CUT)
    status, out, err = cli(capsys, "--rules", rules, "--remove", DEPLETED, "--rounds", "2e6", "--seed", "2",
                           "--check", "--format", "json", "--threads", "2")
    assert status == 0, err
    report = json.loads(out)
    bets = {bet["id"]: bet for bet in report["bets"]}
    every = report["run"]["rounds_in_every_shoe"]
    assert every >= 4
    for bet in bets.values():
        # Over every round the cut card moves the RTP many standard errors from the fresh shoe's exact figure
        # (what --check compared before, and failed on)...
        assert abs(bet["z"]) > 4, bet["z"]
        # ... while the rounds every shoe deals have the fresh shoe's exact RTP, and hold to it.
        assert abs(bet["z_rounds_in_every_shoe"]) < 4
        assert bet["rtp_rounds_in_every_shoe"] != bet["rtp"]
        assert bet["se_rounds_in_every_shoe"] > 0
        assert bet["z_rounds_in_every_shoe"] == (bet["rtp_rounds_in_every_shoe"] - bet["exact_rtp"]) / \
            bet["se_rounds_in_every_shoe"]
    assert f"over rounds 1-{every} (those every shoe deals)" in err and "check passed" in err

