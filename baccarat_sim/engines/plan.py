"""How a Monte Carlo run is laid out: blocks, chunks and batches, fixed by the run's size alone.

The random stream of a run is fixed by (seed, block index): block ``b`` always
deals the same rounds. A run is cut into *chunks* of whole blocks (the unit of
progress, checkpoints, interruption and distributed tasks) and the chunks into
at most :data:`MAX_BATCHES` *batches* of whole chunks (the unit of batch-means
standard errors and of convergence plots). All three layouts depend only on the
run's size, never on threads or timing, so a histogram is bit-identical however
the run is executed, interrupted and resumed.

The chunk layout (:func:`blocks_per_chunk`, :class:`BlockChunks`) is every
run's: the counting runs (:mod:`baccarat_sim.engines.counting`) and the session
runs (:mod:`baccarat_sim.engines.sessions`) cut their blocks the same way.
"""

from __future__ import annotations

import dataclasses
import math
import secrets

import numba
import numpy as np

from ..errors import InputError, InvalidRules, ShoeError
from ..kernels.dealing import N_SHOE_PARAMS, pack_shoe_params
from ..kernels.dealing import rounds_in_every_shoe as _worst_shoe_rounds
from ..limits import MAX_ROUNDS, MAX_RUN_BYTES
from ..model.codes import N_CODES
from ..model.cost import kernel_cost, run_cost
from ..model.rules import Rules, Shoe
from ..model.shoe import as_shoe
from .detail import rules_detail
from .exact import exact_histogram

__all__ = [
    "MAX_BATCHES",
    "MIN_CHUNKS",
    "SHOES_PER_BLOCK",
    "BlockChunks",
    "RunPlan",
    "blocks_per_chunk",
    "normalize_seed",
    "plan_run",
    "recorded_rounds_in_every_shoe",
    "rounds_in_every_shoe",
    "shoe_params",
    "whole_number",
]

#: Rounds per block in the fresh model.
ROUNDS_PER_BLOCK = 1 << 16
#: Shoes per block in the dealt model (and in a counting run: the same blocks of the same stream).
SHOES_PER_BLOCK = 16
#: Rounds a chunk aims at (about 0.1-0.2 s of kernel time on one core).
CHUNK_ROUNDS = 1 << 23
#: Chunks a run is cut into at least (when it has that many blocks): progress, checkpoints and prompt stops.
MIN_CHUNKS = 32
#: Most batches of a run (rows kept for batch-means standard errors and convergence plots).
MAX_BATCHES = 100
#: Most bytes of the batch rows (int64 per cell): a rule set with card-level bets has many cells per row.
BATCH_BYTES = 256 << 20
#: Fewest batches a run keeps when it has that many chunks, whatever its cells (batch-means needs some).
MIN_BATCHES = 20
#: Most bytes of the per-position rows of a dealt run (int64 per cell); beyond, positions are not kept.
POSITION_BYTES = 512 << 20
MODELS = ("fresh", "dealt")


def normalize_seed(seed: int | None) -> int:
    """The master seed as a non-negative 63-bit integer; None draws one at random.

    Raises
    ------
    InputError
        ``seed``: not a whole number from 0 to 2**63 - 1.
    """
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InputError("seed", f"must be a whole number, got {seed!r}")
    if not 0 <= seed < 2**63:
        raise InputError("seed", f"must be from 0 to 2**63 - 1, got {seed}")
    return int(seed)


def whole_number(value, name: str, low: int, high: int) -> int:
    """``value`` as an int when it is a whole number in ``[low, high]`` (``1e6`` included).

    Raises
    ------
    InputError
        Naming ``name`` and the allowed range.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float, np.floating)):
        raise InputError(name, f"must be a whole number from {low} to {high:.0e}, got {value!r}")
    if isinstance(value, (float, np.floating)) and not (math.isfinite(value) and float(value).is_integer()):
        raise InputError(name, f"must be a whole number from {low} to {high:.0e}, got {value!r}")
    number = int(value)
    if not low <= number <= high:
        raise InputError(name, f"must be a whole number from {low} to {high:.0e}, got {value!r}")
    return number


def blocks_per_chunk(total_blocks: int, most: int, *, power_of_two: bool = False) -> int:
    """Blocks in a chunk of a run of ``total_blocks`` blocks: at most ``most``, and at least :data:`MIN_CHUNKS` chunks.

    ``most`` is what a chunk may hold (about a tenth of a second of kernel
    time); a run with fewer than ``MIN_CHUNKS * most`` blocks gets smaller
    chunks, one block at least. ``power_of_two``: rounded down to a power of
    two, so that a longer run's chunks are unions of a shorter one's (see
    :attr:`RunPlan.batch_blocks`).
    """
    blocks = max(1, min(most, -(-total_blocks // MIN_CHUNKS)))
    return _power_of_two_at_most(blocks) if power_of_two else blocks


class BlockChunks:
    """The chunks of a run of ``total_blocks`` blocks, ``blocks_per_chunk`` each (the last may hold fewer).

    A base of every run's plan (:class:`RunPlan`, counting and session plans), which set the two attributes.
    """

    total_blocks: int
    blocks_per_chunk: int

    @property
    def n_chunks(self) -> int:
        """Chunks in the run."""
        return -(-self.total_blocks // self.blocks_per_chunk)

    def chunk_blocks(self, chunk: int) -> tuple[int, int]:
        """(first block, number of blocks) of chunk ``chunk``."""
        first = chunk * self.blocks_per_chunk
        return first, min(self.blocks_per_chunk, self.total_blocks - first)


@dataclasses.dataclass(frozen=True)
class RunPlan(BlockChunks):
    """Everything that fixes a run's random stream and layout (no results).

    Build it with :func:`plan_run`. ``units`` are rounds (fresh model) or shoes
    (dealt model).
    """

    model: str
    seed: int
    composition: tuple
    shoe_params: tuple
    rounds_requested: int
    units_per_block: int
    total_blocks: int
    last_units: int
    blocks_per_chunk: int
    n_positions: int
    rules_id: str = ""
    rules_sha256: str = ""
    #: The card detail counted: its groups, ``(outcomes, atom texts)`` each
    #: (:func:`baccarat_sim.engines.detail.plan_groups`; empty: the outcome codes alone), and the cells per row.
    detail: tuple = ()
    n_cells: int = N_CODES

    @property
    def batch_blocks(self) -> int:
        """Blocks per batch: a power of two, a multiple of the chunk's, for at most the run's batch rows.

        Chunks and batches are aligned powers of two of blocks, so a longer run
        of the same stream has batches that are unions of this run's: a run
        can be extended (:mod:`baccarat_sim.engines.extend`).
        """
        most = min(MAX_BATCHES, max(MIN_BATCHES, BATCH_BYTES // (8 * self.n_cells)))
        return max(self.blocks_per_chunk, _power_of_two_at_least(-(-self.total_blocks // most)))

    @property
    def n_batches(self) -> int:
        """Batches in the run (consecutive groups of whole chunks), fewer when a row has many cells."""
        return -(-self.total_blocks // self.batch_blocks)

    def batch_of_chunk(self, chunk: int) -> int:
        """Batch that chunk ``chunk`` belongs to."""
        return chunk * self.blocks_per_chunk // self.batch_blocks

    def units_of_block(self, block: int) -> int:
        """Rounds (fresh model) or shoes (dealt model) block ``block`` deals."""
        return self.last_units if block == self.total_blocks - 1 else self.units_per_block

    def units_of_chunks(self, first_chunk: int, n_chunks: int) -> int:
        """Rounds (fresh model) or shoes (dealt model) chunks ``first_chunk ..`` (``n_chunks`` of them) deal.

        Arithmetic, not a loop: a run of 10^15 rounds has 10^8 chunks.
        """
        if n_chunks <= 0:
            return 0
        first_block, n_blocks = self.chunk_range_blocks(first_chunk, n_chunks)
        short = self.units_per_block - self.last_units if first_block + n_blocks == self.total_blocks else 0
        return n_blocks * self.units_per_block - short

    def chunk_range_blocks(self, first_chunk: int, n_chunks: int) -> tuple[int, int]:
        """(first block, number of blocks) of chunks ``first_chunk .. first_chunk + n_chunks - 1``."""
        first_block, _ = self.chunk_blocks(first_chunk)
        last_first, last_n = self.chunk_blocks(first_chunk + n_chunks - 1)
        return first_block, last_first + last_n - first_block

    @property
    def shoe(self) -> np.ndarray:
        """Composition as ``ndarray(int64, shape=(13, 4))``."""
        return np.array(self.composition, dtype=np.int64).reshape(13, 4)

    def identity(self) -> dict:
        """JSON-ready fields that must match for a checkpoint to be resumed."""
        fields = dataclasses.asdict(self)
        fields["composition"] = list(self.composition)
        fields["shoe_params"] = list(self.shoe_params)
        fields["detail"] = [[outcomes, list(texts)] for outcomes, texts in self.detail]
        return fields


def _power_of_two_at_least(n: int) -> int:
    return 1 << max(0, (int(n) - 1).bit_length())


def _power_of_two_at_most(n: int) -> int:
    return 1 << (int(n).bit_length() - 1)


def _estimate_rounds_per_shoe(rules: Rules, composition: np.ndarray) -> float:
    """Expected rounds per dealt shoe, from the exact mean cards per round."""
    hist = exact_histogram(composition)
    cards_per_round = 4 + (hist.marginal("player_cards")[1] + hist.marginal("banker_cards")[1]) / hist.total
    shoe = rules.shoe
    low, high = shoe.cards_before_first_round()
    usable = composition.sum() - (low + high) / 2 - shoe.cut_card.mean
    return max(1.0, usable / cards_per_round + 0.5 + shoe.rounds_after_cut)


def shoe_params(shoe: Shoe, n_cards: int) -> np.ndarray:
    """The kernel's burn and cut-card settings of a rule set's shoe, for a shoe of ``n_cards``."""
    # The rule set's cut card (moved with the deck count by Rules.with_shoe) also marks a depleted shoe of it.
    return pack_shoe_params(shoe.burn_by_rank(), shoe.turned_discarded, min(shoe.cut_card.low, n_cards),
                            min(shoe.cut_card.high, n_cards), shoe.rounds_after_cut)


def rounds_in_every_shoe(shoe: Shoe, n_cards: int | None = None) -> int:
    """The last round position that every shoe deals, whatever its cards.

    The dealing procedure (:mod:`baccarat_sim.kernels.dealing`) run on the
    worst shoe: the burn takes its most cards, the cut card sits at its
    deepest, and every round takes six cards.

    Parameters
    ----------
    shoe : Shoe
        Burn, cut card and last-round rule (``rules.shoe``).
    n_cards : int or None
        Cards in the shoe (default ``52 * shoe.decks``).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> rounds_in_every_shoe(load_rules("live-8deck-side-bets").shoe)  # 416 cards, burn up to 11, cut card at 14
    66
    """
    n = shoe.n_cards if n_cards is None else int(n_cards)
    return int(_worst_shoe_rounds(n, shoe_params(shoe, n)))


def recorded_rounds_in_every_shoe(params, n_cards: int) -> int | None:
    """:func:`rounds_in_every_shoe` of the dealing a dealt run recorded, or None where ``params`` is no such record.

    ``params`` is a histogram's ``meta["shoe_params"]`` (the packed burn, cut
    card and rounds after it, :func:`shoe_params`), read from a file: anything
    but a list of that many whole numbers within the shoe is not a record.
    """
    if not (isinstance(params, list) and len(params) == N_SHOE_PARAMS
            and all(type(x) is int and 0 <= x <= n_cards for x in params)):
        return None
    return int(_worst_shoe_rounds(n_cards, np.array(params, np.int64)))


def plan_run(rules: Rules, rounds: int, seed: int | None = None, *, model: str | None = None,
             shoe=None, by_position: bool | None = None) -> RunPlan:
    """Lay out a Monte Carlo run.

    Parameters
    ----------
    rules : Rules
        Rule set (shoe, burn and cut card come from it).
    rounds : int
        Rounds to deal (a float that is a whole number, such as ``1e6``, is
        accepted): exactly, in the fresh model; in the dealt model, whole shoes
        are dealt until about this many rounds (the count is reported).
    seed : int or None
        Master seed; None draws one.
    model : {"fresh", "dealt"} or None
        Overrides the rule set's shoe model.
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Overrides the rule set's decks (e.g. a depleted shoe).
    by_position : bool or None
        Dealt model: keep a histogram per round position (default True; not
        kept when the rule set's card detail would make the rows larger than
        :data:`POSITION_BYTES`, and then not by default).

    Raises
    ------
    InputError
        ``rounds``, ``seed`` or ``model`` out of range.
    ShoeError
        ``shoe``: a dealt shoe whose burn and cut card leave no room for a round
        (the same check as a rule file's).
    """
    model = model or rules.shoe.model
    if model not in MODELS:
        raise InputError("model", f"must be fresh or dealt, got {model!r}")
    rounds = whole_number(rounds, "rounds", 1, MAX_ROUNDS)
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    n_cards = int(composition.sum())
    detail = rules_detail(rules)
    n_cells = N_CODES if detail is None else detail.n_cells
    if model == "fresh":
        units_per_block = ROUNDS_PER_BLOCK
        total_units = rounds
        rounds_per_unit = 1.0
        n_positions = 1
    else:
        problem = rules.shoe.room_problem(n_cards)
        if problem:
            raise ShoeError("shoe", problem)
        units_per_block = SHOES_PER_BLOCK
        rounds_per_unit = _estimate_rounds_per_shoe(rules, composition)
        total_units = max(1, math.ceil(rounds / rounds_per_unit))
        n_positions = (n_cards // 4 + 1) if (by_position is None or by_position) else 1
        if n_positions * n_cells * 8 > POSITION_BYTES:
            if by_position:
                raise InputError("by_position", f"the rule set's card-level bets make {n_cells:,} cells per round "
                                                f"position: {n_positions} positions would take "
                                                f"{n_positions * n_cells * 8 >> 20:,} MiB; run without positions, or "
                                                "with fewer card-level bets")
            n_positions = 1
    total_blocks = -(-total_units // units_per_block)
    last_units = total_units - (total_blocks - 1) * units_per_block
    rounds_per_block = units_per_block * rounds_per_unit
    # A power of two (see RunPlan.batch_blocks), growing with the run: a longer run's chunks are unions of a shorter
    # one's.
    chunk = blocks_per_chunk(total_blocks, round(CHUNK_ROUNDS / rounds_per_block), power_of_two=True)
    plan = RunPlan(
        model=model,
        seed=normalize_seed(seed),
        composition=tuple(int(x) for x in composition.reshape(-1)),
        shoe_params=tuple(int(x) for x in shoe_params(rules.shoe, n_cards)),
        rounds_requested=rounds,
        units_per_block=units_per_block,
        total_blocks=total_blocks,
        last_units=last_units,
        blocks_per_chunk=chunk,
        n_positions=n_positions,
        rules_id=rules.id,
        rules_sha256=rules.sha256,
        detail=() if detail is None else tuple((group.outcomes, group.texts) for group in detail.groups),
        n_cells=n_cells,
    )
    _check_run_cost(plan, rules, detail)
    return plan


def _check_run_cost(plan: RunPlan, rules: Rules, detail) -> None:
    """Refuse, before dealing, a run whose counts the cost model puts beyond :data:`~baccarat_sim.limits.MAX_RUN_BYTES`.

    Raises
    ------
    InvalidRules
        One line naming the file, the card-level bets whose groups hold most of the cells, and the predicted cost.
    """
    cost = run_cost(plan.n_cells, plan.n_positions, plan.n_batches, min(2, max(1, numba.get_num_threads())))
    for group in () if detail is None else detail.groups:  # the Monte Carlo tables, packed before the run deals
        cost = cost.beside(kernel_cost(group.atoms, group.outcomes))
    if cost.bytes <= MAX_RUN_BYTES:
        return
    largest = sorted(detail.groups, key=lambda group: -group.n_cells)
    texts = {text for group in largest if group.n_cells * 4 >= largest[0].n_cells for text in group.texts}
    bets = ", ".join(f"bets.{bet.id}" for bet in rules.bets
                     if bet.card_level and texts & {atom.text for atom in bet.atoms})
    raise InvalidRules("", f"{rules.path}: {bets}: a Monte Carlo run of this rule set counts {plan.n_cells:,} cells a "
                           f"round ({plan.n_batches} batch rows), predicted to take "
                           f"{cost.bytes / 1e9:.1f} GB of memory, more than the limit of {MAX_RUN_BYTES / 1e9:.1f} GB; "
                           "run fewer of these bets at once (--bets), or price them exactly (--exact)")
