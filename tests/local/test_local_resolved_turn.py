"""A resolved turn end to end on the real local models, and the demo command on them.

Slow: run with ``pytest -m local_model`` after ``make test-local``'s install.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lightrag import QueryParam

from lightrag_resolve import ResolverConfig, ResolvingLightRAG
from lightrag_resolve.cli import main
from lightrag_resolve.local import LocalLLM, e5_embedding, offline_tokenizer
from lightrag_resolve.sample import COMPANY_NAME, load_custom_kg, load_items

pytestmark = pytest.mark.local_model

# The model takes seconds per call on a CPU (tens on a busy one): these timeouts bound a hang, not latency.
SLOW_CPU = ResolverConfig(company_name=COMPANY_NAME, timeout=300, reference_timeout=300)


@pytest.fixture(scope="module")
def llm() -> Iterator[LocalLLM]:
    model = LocalLLM.load(n_ctx=4096)
    yield model
    model.close()


class CountingLLM:
    """The real local LLM, counting which prompts it received (LightRAG's own keyword extraction or not)."""

    def __init__(self, llm: LocalLLM) -> None:
        self.llm, self.prompts = llm, []
        self.model_name = llm.model_name

    async def __call__(self, prompt: str, system_prompt: str | None = None, **kwargs: Any) -> str:
        self.prompts.append(prompt)
        return await self.llm(prompt, system_prompt=system_prompt, **kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> CountingLLM:
        return self

    def lightrag_keyword_calls(self) -> int:
        return sum("keyword extractor" in prompt for prompt in self.prompts)


async def test_a_short_reply_resolves_on_the_local_models(llm: LocalLLM, tmp_path: Path) -> None:
    counting = CountingLLM(llm)
    rag = ResolvingLightRAG(
        working_dir=str(tmp_path),
        workspace=f"local-{uuid.uuid4().hex[:8]}",
        llm_model_func=counting,
        llm_model_name=llm.model_name,
        embedding_func=e5_embedding(),
        tokenizer=offline_tokenizer(),
        enable_llm_cache=False,
        resolver=SLOW_CPU,
    )
    item = next(i for i in load_items() if i["id"] == "fr-short-02")  # "Santé" after a question on sectors
    await rag.initialize_storages()
    try:
        await rag.ainsert_custom_kg(load_custom_kg())
        param = QueryParam(mode="mix", conversation_history=item["history"], enable_rerank=False)
        result = await rag.aquery_data(item["query"], param)
    finally:
        await rag.finalize_storages()
    resolution = result["metadata"]["resolution"]
    assert resolution["path"] == "keywords"
    assert resolution["fallback_reason"] not in {"timeout", "llm_error"}, resolution
    if resolution["changed"]:
        assert counting.lightrag_keyword_calls() == 0  # the resolver's call replaced LightRAG's
        assert result["metadata"]["keywords"]["low_level"] == resolution["ll_keywords"]
        assert result["status"] == "success"
    else:  # the checks refused the model's answer: LightRAG extracted its own keywords, as without us
        assert counting.lightrag_keyword_calls() == 1


def test_the_demo_runs_on_the_local_models(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A generous bound: this checks that every resolver call completes on the local model, not how fast (a cold
    # first call on a loaded 2-core machine has exceeded the demo's 30 s); speeds are benchmarks/local_resolver.py's.
    demo = ["demo", "--items", "fr-short-02,en-ref-01", "--cache-dir", str(tmp_path), "--timeout", "180"]
    assert main(demo) == 0
    out = capsys.readouterr().out
    assert out.count("understood: ") == 2
    assert "(short reply, " in out and "(reference check, " in out  # which resolver each turn took
    assert "(timeout)" not in out and "no meaning: timeout" not in out
    assert "2 turns," in out
