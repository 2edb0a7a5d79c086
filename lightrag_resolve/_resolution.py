"""The typed record of what the resolver decided for one turn, and a result paired with it."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Generic, Literal, TypeVar

from ._languages.text import encodable, recorded_output

__all__ = ["Decision", "FallbackReason", "RejectedReason", "Resolution", "ResolutionPath", "Resolved"]

T = TypeVar("T")

ResolutionPath = Literal["disabled", "first_turn", "bypass", "text", "keywords", "reference"]
"""Which branch of contract §3 the turn took."""

FallbackReason = str
"""Why the visitor's words went through unchanged (contract §6).

One of ``disabled``, ``unsupported_mode``, ``first_turn``, ``gate_declined``, ``caller_keywords``, ``llm_error``,
``timeout``, ``unparsable``, ``incomplete``, ``scaffold``, ``empty``, ``ungrounded`` (no low-level keyword the
conversation established), ``unprompted`` (a short reply that answers no question and picks no option, §5.7), and for
the reference check ``keep``, ``ambiguous``, ``no_candidates`` (the window names nothing), ``stands_alone`` (no word
points back, §5.8; decision ``keep``) and ``rejected:<reason>``. ``None`` on success (a restated follow-up included,
§5.9), on ``bypass`` and on a carried short reply (``Resolution.carry_reason``). When set, retrieval gets the visitor's
words exactly: no keywords, ``changed`` is ``False`` (the ``Resolution`` constructor refuses anything else).
"""

Decision = Literal["resolve", "keep", "ambiguous", "error"]
"""The reference check's verdict (contract §5.3)."""

RejectedReason = Literal["not_in_history", "not_a_candidate", "company", "already_named", "too_long"]
"""Why a name proposed by the reference check was discarded."""


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """What reaches retrieval for one turn, and why.

    ``query`` is the text handed to LightRAG; ``candidates`` the names the model was shown; ``dropped_keywords`` the
    low-level keywords it proposed that the conversation did not establish. ``context`` is the end of the assistant's
    question a short reply's text carries (contract §5.6), also when the model's answer was not used: that turn is
    *carried*, its text "<reply> — <context>" found in code, ``carry_reason`` says why the model's meaning is missing
    (``timeout``, ``empty``, ``ungrounded``, …) and ``fallback_reason`` stays ``None``. ``fallback_reason`` means one
    thing only: retrieval got the visitor's words exactly, so ``changed`` is ``False``. ``restatement`` is the search
    query added to a follow-up that points back at something the reference check could not name (§5.9);
    ``standalone_question`` the question a resolved reference's chunk search was fused with (the open-domain
    ``OpenDomainResolver``, §5.10; the text stays ``query``). ``ll_keywords`` and ``hl_keywords`` are both empty
    (LightRAG extracts its own) or both filled. The constructor refuses a record breaking these rules, so no code path
    can hand LightRAG half a keyword query. ``raw_output`` is recorded encodable (a lone surrogate becomes U+FFFD) and
    bounded (``_languages.text.MAX_RAW_OUTPUT_CHARS``, marked as cut), so the record always serialises to UTF-8 JSON.
    """

    query: str
    original_query: str
    mode: str
    path: ResolutionPath
    ll_keywords: tuple[str, ...] = ()
    hl_keywords: tuple[str, ...] = ()
    fallback_reason: FallbackReason | None = None
    carry_reason: FallbackReason | None = None
    decision: Decision | None = None
    entity: str | None = None
    rejected_reason: RejectedReason | None = None
    model: str | None = None
    raw_output: str | None = None
    elapsed_ms: float = 0.0
    candidates: tuple[str, ...] = ()
    dropped_keywords: tuple[str, ...] = ()
    context: str | None = None
    restatement: str | None = None
    standalone_question: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ll_keywords", tuple(self.ll_keywords))
        object.__setattr__(self, "hl_keywords", tuple(self.hl_keywords))
        object.__setattr__(self, "candidates", tuple(self.candidates))
        object.__setattr__(self, "dropped_keywords", tuple(self.dropped_keywords))
        if isinstance(self.raw_output, str):
            object.__setattr__(self, "raw_output", recorded_output(self.raw_output))
        if bool(self.ll_keywords) != bool(self.hl_keywords):
            raise ValueError("ll_keywords and hl_keywords must be both empty or both non-empty")
        if self.ll_keywords and self.fallback_reason is not None:
            raise ValueError("a fallback carries no keywords")
        if self.fallback_reason is not None and self.query != self.original_query:
            raise ValueError("a fallback retrieves with the visitor's words exactly")
        if self.carry_reason is not None and (self.fallback_reason is not None or self.ll_keywords or not self.context):
            raise ValueError("a carried short reply has a context, no keywords and no fallback reason")

    @property
    def changed(self) -> bool:
        """Whether retrieval sees anything other than the visitor's words alone."""
        return bool(self.ll_keywords) or self.query != self.original_query

    @property
    def has_keywords(self) -> bool:
        """Whether LightRAG's own keyword extraction is replaced for this turn."""
        return bool(self.ll_keywords)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, ``changed`` included; a lone surrogate shows as U+FFFD here, the record keeps it."""
        data = {key: encodable(value) if isinstance(value, str) else value for key, value in asdict(self).items()}
        data["ll_keywords"] = list(self.ll_keywords)
        data["hl_keywords"] = list(self.hl_keywords)
        data["candidates"] = list(self.candidates)
        data["dropped_keywords"] = list(self.dropped_keywords)
        data["changed"] = self.changed
        return data


@dataclass(frozen=True, kw_only=True)
class Resolved(Generic[T]):
    """A LightRAG result with the ``Resolution`` it was retrieved with: what ``aretrieve`` and ``aanswer`` return."""

    resolution: Resolution
    result: T
