"""``lightrag-resolve demo``: scripted conversations over the bundled sample, resolved and not.

The pieces are public so the demo can be rebuilt on your own models:
``open_sample_index`` embeds the sample graph once into a cache folder,
``play_turn`` retrieves one turn without and with resolution, and
``render_turn``/``render_summary`` print the result, and ``understood`` says in a
line what the resolver added to a turn (the name, the meaning or the keywords).
"""

from ._index import cache_root, open_sample_index
from ._render import render_summary, render_turn
from ._turns import Retrieval, TurnReport, play_turn
from ._understood import understood

__all__ = [
    "Retrieval",
    "TurnReport",
    "cache_root",
    "open_sample_index",
    "play_turn",
    "render_summary",
    "render_turn",
    "understood",
]
