"""A tenant-specific resolver: its own gate, its own prompt, its own output format.

Subclass ``Resolver`` and override only what differs; the code-enforced checks
(both keyword lists or neither, caps, scaffold rejection, only names the
conversation established) and the fallback contract still apply to whatever
the overrides return.

Run: ``python examples/custom_resolver.py`` (offline; the LLM here is a
stand-in that answers in the tenant's line format; use your own model).
"""

from __future__ import annotations

import asyncio
import re

from lightrag_resolve import KeywordAnswer, Message, Prompt, Resolver, ResolverConfig, Turn

COURSE_CODE = re.compile(r"^[ABC][12]\b", re.IGNORECASE)


class LanguageSchoolResolver(Resolver):
    """A language school: course codes ("B1") are always replies, and the model answers in lines."""

    def should_resolve(self, query: str) -> bool:
        # A bare course level is a reply even as a question ("B1?").
        return bool(COURSE_CODE.match(query.strip())) or super().should_resolve(query)

    def keyword_prompt(self, turn: Turn) -> Prompt:
        return Prompt(
            system=(
                "You help a language school's search engine. The reply names a course, a level or a schedule. "
                "Answer with two lines:\nENTITIES: course names and levels, separated by ';'\n"
                "THEMES: at most 3 topics, separated by ';'"
            ),
            user=f"Conversation:\n{turn.history_text}\n\nReply: {turn.query}",
        )

    def parse_keywords(self, output: str) -> KeywordAnswer | None:
        fields = dict(line.split(":", 1) for line in output.splitlines() if ":" in line)
        if "ENTITIES" not in fields and "THEMES" not in fields:
            return None
        return KeywordAnswer(ll_raw=fields.get("ENTITIES", "").split(";"), hl_raw=fields.get("THEMES", "").split(";"))


async def stand_in_llm(prompt: str, system_prompt: str | None = None, **kwargs) -> str:
    """Answers like a model following the tenant prompt would; replace with a real LLM function."""
    return "ENTITIES: German B1; B1\nTHEMES: language courses; schedules"


async def main() -> None:
    resolver = LanguageSchoolResolver(ResolverConfig(company_name="Sprachhaus"))
    history = (
        Message(role="user", content="What German courses do you offer?"),
        Message(role="assistant", content="German courses from A1 to C1. Are you looking for German A1 or German B1?"),
    )
    turn = Turn(query="B1?", history=history, mode="mix", company_name="Sprachhaus")
    resolution = await resolver.resolve(turn, llm=stand_in_llm)
    print(resolution.path, resolution.ll_keywords, resolution.hl_keywords, resolution.fallback_reason)
    # Plug it into LightRAG: ResolvingLightRAG(..., resolver=LanguageSchoolResolver(ResolverConfig(...)))


if __name__ == "__main__":
    asyncio.run(main())
