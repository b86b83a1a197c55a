"""Plot functions (issue 5): drawn on a fresh Figure, checked through the artists they return."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.collections import PolyCollection
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from baccarat_sim.analysis.settlement import net_vector
from baccarat_sim.analysis.stats import estimate, running_estimate, score_distribution
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.report import plots
from baccarat_sim.report.run_report import build_report

from .cli_helpers import rules_text


@pytest.fixture(scope="module")
def rules():
    # The sheet states a (correct) Banker RTP, so the stated markers have something to show.
    return parse_rules(rules_text(extra='\n[[claims]]\nwhat = "bet"\nbet = "banker"\nvalue = "98.94%"\n'))


@pytest.fixture(scope="module")
def report(rules):
    return build_report(rules, exact_histogram(8), simulate(rules, 1_000_000, seed=17))


@pytest.fixture(scope="module")
def dealt_report(rules):
    return build_report(rules, exact_histogram(8), simulate(rules, 200_000, seed=17, model="dealt"))


def axes():
    return Figure().add_subplot()


def test_bet_rtp_absolute(report):
    ax = axes()
    artists = plots.plot_bet_rtp(report, ax=ax)
    t = report.table
    assert isinstance(artists["mc"], ErrorbarContainer)
    points = artists["mc"].lines[0]
    np.testing.assert_allclose(points.get_xdata(), 100 * t["rtp"])
    np.testing.assert_allclose(artists["exact"].get_xdata(), 100 * t["exact_rtp"])
    stated = artists["stated"].get_xdata()
    assert np.isnan(stated[0]) and stated[1] == pytest.approx(98.94) and np.isnan(stated[2])
    # First bet on top; the tick labels are the bet names.
    assert points.get_ydata()[0] > points.get_ydata()[-1]
    assert [label.get_text() for label in ax.get_yticklabels()] == list(t["name"])
    # The CI bars span the 95% interval.
    (segments,) = [c for c in artists["mc"].lines[2]]
    spans = [seg[:, 0] for seg in segments.get_segments()]
    np.testing.assert_allclose([s.min() for s in spans], 100 * t["ci95_low"])
    np.testing.assert_allclose([s.max() for s in spans], 100 * t["ci95_high"])


def test_bet_rtp_relative_to_exact(report):
    artists = plots.plot_bet_rtp(report, ax=axes(), relative=True)
    t = report.table
    np.testing.assert_allclose(artists["exact"].get_xdata(), 0.0)
    np.testing.assert_allclose(artists["mc"].lines[0].get_xdata(), 100 * (t["rtp"] - t["exact_rtp"]), atol=1e-12)
    assert artists["stated"].get_xdata()[1] == pytest.approx(98.94 - 100 * t.loc["banker", "exact_rtp"])


def test_bet_rtp_exact_only(rules):
    artists = plots.plot_bet_rtp(build_report(rules.with_shoe(decks=6), exact_histogram(6)), ax=axes())
    assert artists["mc"] is None and len(artists["exact"].get_xdata()) == 3


def test_running_estimate_ends_at_the_reported_figure(report, rules):
    net = net_vector(rules.bet("tie"), rules)
    rounds, rtp, se = running_estimate(report.mc, net)
    assert rounds[-1] == report.mc.rounds and np.all(np.diff(rounds) > 0)
    final = estimate(report.mc, net)
    assert rtp[-1] == pytest.approx(final.rtp, rel=1e-14) and se[-1] == pytest.approx(final.se, rel=1e-12)
    # The first point is the first batch alone, by hand.
    first = report.mc.batches[0]
    assert rtp[0] == pytest.approx(1 + first @ net / first.sum(), rel=1e-14)
    # The standard error shrinks roughly as 1/sqrt(rounds).
    assert se[-1] * np.sqrt(rounds[-1]) == pytest.approx(se[0] * np.sqrt(rounds[0]), rel=0.2)


def test_running_estimate_of_a_dealt_shoe_uses_batch_means(dealt_report, rules):
    net = net_vector(rules.bet("banker"), rules)
    _, rtp, se = running_estimate(dealt_report.mc, net)
    final = estimate(dealt_report.mc, net)
    assert final.method == "batch_means"
    assert rtp[-1] == pytest.approx(final.rtp, rel=1e-14) and se[-1] == pytest.approx(final.se, rel=1e-12)


def test_convergence_plot(report, rules):
    ax = axes()
    row = report.table.loc["banker"]
    artists = plots.plot_convergence(running_estimate(report.mc, net_vector(rules.bet("banker"), rules)),
                                     exact_rtp=row["exact_rtp"], stated_rtp=row["stated_rtp"], ax=ax, label="Banker")
    line = artists["estimate"]
    assert line.get_xdata()[-1] == report.mc.rounds
    assert line.get_ydata()[-1] == pytest.approx(100 * row["rtp"], rel=1e-14)
    assert isinstance(artists["band"], PolyCollection)
    band = artists["band"].get_paths()[0].vertices
    assert band[:, 1].min() < 100 * row["ci95_low"] + 1e-9 and band[:, 1].max() > 100 * row["ci95_high"] - 1e-9
    np.testing.assert_allclose(artists["exact"].get_ydata(), 100 * row["exact_rtp"])
    np.testing.assert_allclose(artists["stated"].get_ydata(), 98.94)
    assert ax.get_xscale() == "log" and ax.get_title() == "Banker"


def test_convergence_needs_batches(rules):
    with pytest.raises(ValueError, match="batches"):
        running_estimate(exact_histogram(8), net_vector(rules.bet("tie"), rules))


def test_score_distribution(report):
    artists = plots.plot_score_distribution(score_distribution(report.mc, exact=report.exact), ax=axes())
    for side in ("player", "banker"):
        assert isinstance(artists[side], BarContainer) and len(artists[side]) == 10
        heights = np.array([bar.get_height() for bar in artists[side]])
        exact = report.exact.marginal(f"{side}_score") / report.exact.total
        np.testing.assert_allclose(heights, 100 * exact, rtol=1e-12)
        mc = artists[f"mc_{side}"].lines[0].get_ydata()
        np.testing.assert_allclose(mc, 100 * report.mc.marginal(f"{side}_score") / report.mc.total)
        assert sum(mc) == pytest.approx(100)
    # The tableau in the bars: a Player on 6 always stands, a Banker on 6 draws when the Player's third card was a
    # 6 or 7, so fewer hands end on a Banker 6 than on a Player 6.
    player6 = artists["player"][6].get_height()
    banker6 = artists["banker"][6].get_height()
    assert banker6 < player6


def test_score_distribution_exact_only():
    artists = plots.plot_score_distribution(score_distribution(exact_histogram(8)), ax=axes())
    assert set(artists) == {"player", "banker"}


def test_figures_stay_out_of_pyplot(report, dealt_report):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    figure = plots.bet_rtp_figure(report)
    assert len(figure.axes) == 2
    figure = plots.convergence_figure(dealt_report)
    assert sum(ax.get_visible() for ax in figure.axes) == len(report.rules.bets)
    figure = plots.score_distribution_figure(report)
    assert len(figure.axes) == 1
    assert plt.get_fignums() == before  # nothing left open in pyplot's registry
    with pytest.raises(ValueError, match="Monte Carlo"):
        plots.convergence_figure(build_report(load_rules("default"), exact_histogram(8)))
