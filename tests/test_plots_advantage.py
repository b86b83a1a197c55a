"""Plots of the advantage-play analyses draw on a given Axes and return their artists (issue 7)."""

import numpy as np
import pytest
from matplotlib.figure import Figure

from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.analysis.eor import effect_of_removal
from baccarat_sim.model.rules import load_rules
from baccarat_sim.model.strategy import parse_strategy
from baccarat_sim.report.counting import count_frame
from baccarat_sim.report.eor import eor_table
from baccarat_sim.report.plots import count_figure, eor_figure, plot_count, plot_eor


@pytest.fixture(scope="module")
def eor():
    return effect_of_removal(load_rules("live-8deck-dragon-tiger"))


def test_plot_eor_bars_are_the_effects_in_percent(eor):
    ax = Figure().add_subplot()
    artists = plot_eor(eor, bets=["player", "tie"], ax=ax)
    assert sorted(artists) == ["player", "tie"]
    heights = [bar.get_height() for bar in artists["tie"]]
    assert heights == pytest.approx(100 * eor_table(eor)["tie"].to_numpy())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]


def test_plot_eor_by_rank_and_a_bet_no_card_moves(eor):
    ax = Figure().add_subplot()
    artists = plot_eor(eor, bets=["dragon"], by="rank", ax=ax)
    assert len(artists["dragon"]) == 13 and all(bar.get_height() == 0 for bar in artists["dragon"])
    assert any("no effect" in t.get_text() for t in ax.texts)  # a full shoe: every rank is alike


def test_eor_figure_has_a_panel_per_bet(eor):
    figure = eor_figure(eor)
    visible = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == list(eor.bet_names)


def test_count_plot_rows_and_intervals():
    rules = load_rules("live-8deck-side-bets")
    strategy = parse_strategy('schema_version = 1\nid = "flat"\ncut_cards = [52]\n[[bets]]\nid = "lucky_six"\n'
                              'play = "always"\nexact_edge = false')
    result = count_simulation(rules, strategy, 64, seed=2)
    ax = Figure().add_subplot()
    artists = plot_count(result, ax=ax)
    table = count_frame(result)
    assert list(artists) == list(dict.fromkeys(table["scenario"]))
    first = table[table["scenario"] == list(artists)[0]]
    x, _ = artists[list(artists)[0]].lines[0].get_data()
    assert np.allclose(x, first["units_per_shoe"])
    rows = dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())))
    assert [rows[y] for y in sorted(rows, reverse=True)] == ["lucky_six (all rounds)", "lucky_six (rounds 1-50)"]
    assert len(count_figure(result).axes) == 1
