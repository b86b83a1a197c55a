"""Optional progress bar: tqdm (terminal or Jupyter) when wanted, else a no-op."""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["progress_bar"]


class _NoOpBar:
    """Stands in for tqdm when no bar is shown."""

    def __init__(self, *args, **kwargs):
        self.n = kwargs.get("initial", 0)

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, *args, **kwargs):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress_bar(display: bool | None, total: int, initial: int = 0, unit: str = "round"):
    """A context-managed bar counting ``total`` units, updated per chunk.

    Hand it to a run as ``progress=``: the run driver calls ``update(n)`` as it
    deals (:class:`baccarat_sim.engines.driver.RunControl`).

    Parameters
    ----------
    display : bool or None
        True: always show; False: never; None: show only when stderr is a
        terminal (or in Jupyter).
    total : int
        Units (rounds) the run will deal.
    initial : int
        Units already done (a resumed run).
    """
    if display is None:
        display = sys.stderr.isatty() or _in_notebook()
    if not display:
        return _NoOpBar(initial=initial)
    try:
        if _in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.notebook import tqdm  # a live widget in Jupyter
        else:
            # tqdm.auto would warn (IProgress not found) in a notebook without
            # ipywidgets; the text bar works everywhere.
            from tqdm.std import tqdm
    except ImportError:  # tqdm is a declared dependency, but a bar is never essential
        return _NoOpBar(initial=initial)
    return tqdm(total=total, initial=initial, unit=unit, unit_scale=True, dynamic_ncols=True, file=sys.stderr,
                smoothing=0.3)


def _in_notebook() -> bool:
    """Whether we run in a Jupyter kernel (its ``sys.stderr`` is no terminal, yet a bar is wanted)."""
    if "IPython" not in sys.modules:  # importing IPython just to ask costs a quarter of a second
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"
