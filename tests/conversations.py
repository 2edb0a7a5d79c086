"""Conversations that the tests of more than one module share."""

from __future__ import annotations

from lightrag_resolve import Message, Turn
from lightrag_resolve._turn.candidates import Candidates

OFFER = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="Shall I send you the pricing of Kadoro, Magazio or Cerclia?"),
)
"""The assistant offers three products by name: a short reply may pick one."""
OPTIONS = Candidates(names=("Kadoro", "Magazio", "Cerclia"), options=("Kadoro", "Magazio", "Cerclia"))
"""The candidates of ``OFFER``, each an option of its question."""

SHOPS = (
    Message(role="user", content="What do you sell to shops?"),
    Message(role="assistant", content="For shops Helix sells Pulse POS and Orbit CRM, often together."),
)
"""The assistant names two products: a follow-up that points back may mean either (contract §5.9)."""
SHOPS_ASK = "Which shops in Lyon already use it?"
"""A follow-up to ``SHOPS`` that points back at one of its products."""
RESTATED = "Lyon shops using Pulse POS or Orbit CRM"
"""``SHOPS_ASK`` restated as a search query that names both products."""


def shops_turn(query: str = SHOPS_ASK, *, mode: str = "naive", history=SHOPS, company: str | None = None) -> Turn:
    """A turn after ``SHOPS`` (or ``history``)."""
    return Turn(query=query, history=tuple(history), mode=mode, company_name=company)
