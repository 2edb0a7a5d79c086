"""Time the embedded local models: load, one resolver-sized call, embedding throughput.

Run after ``bash scripts/install-local.sh``::

    python benchmarks/local_models.py [--runs 5] [--threads N]

Prints model assembly and load times, the median latency of a ~400-token prompt
answered in short text and in JSON mode (each run's prompt differs from its start,
so none reuses llama.cpp's cached prefix), the same prompt repeated (the cached
floor), and the embedding's load time and passages per second. Uses only the public API of ``lightrag_resolve.local``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import time

from lightrag_resolve.local import QWEN25_CODER_1_5B, LocalLLM, assemble_gguf, cache_dir, e5_embedding

SYSTEM = (
    "You help a search engine understand a short reply in a chat with a company's assistant. "
    "Read the conversation, then restate the visitor's last message as a complete, self-contained "
    "search query in the visitor's language. Keep every name the visitor chose; add nothing else."
)

HISTORY = [
    (
        "user",
        "Bonjour, je dirige une entreprise de taille moyenne, une quarantaine de salariés répartis sur deux "
        "sites, et je cherche un logiciel pour gérer nos activités au quotidien. Quels secteurs couvrez-vous "
        "exactement, et avez-vous des références clients dans la région lyonnaise ?",
    ),
    (
        "assistant",
        "Bonjour ! Helix couvre trois secteurs. Pour la santé, l'offre Santé repose sur le module Vitalis, "
        "utilisé par des cliniques et des hôpitaux, avec un dossier patient partagé et la planification des "
        "blocs opératoires. Pour le bâtiment et les travaux publics, l'offre BTP repose sur Chantier Pro, qui "
        "suit les chantiers, les équipes et les achats de matériaux. Pour le commerce de détail, Pulse POS est "
        "un terminal de fidélité installé notamment chez Maison Ferrand et les Boulangeries Arnaud depuis 2025. "
        "Nous avons des bureaux à Lyon, Paris, Nantes et Montréal, et chaque offre peut être déployée sur site "
        "ou dans notre cloud. Les tarifs dépendent du nombre d'utilisateurs et des modules choisis ; une "
        "démonstration gratuite d'une heure est possible pour chaque offre, en visioconférence ou dans l'un de "
        "nos bureaux. Quel secteur vous intéresse ?",
    ),
]
LAST_MESSAGE = "Santé"

PASSAGE = (
    "Helix propose le module Vitalis aux cliniques et aux hôpitaux: dossier patient partagé, planification "
    "des blocs opératoires, suivi des stocks de la pharmacie et tableaux de bord pour la direction. Le module "
    "se déploie sur site ou dans le cloud de Helix, avec une équipe d'accompagnement basée à Lyon. "
    "Vitalis works with existing hospital systems through standard interfaces, and each clinic keeps its data "
    "in its own space. Training takes two days per team, and support answers within four hours on weekdays."
)


def _prompt(run: int) -> str:
    """A resolver-sized prompt; ``run`` changes its start so no call reuses the last one's cache."""
    transcript = "\n".join(f"{role}: {text}" for role, text in HISTORY)
    return (
        f"Conversation {run + 1} of the day, on the website chat:\n{transcript}\n\n"
        f"Visitor's last message: {LAST_MESSAGE}\n\nSearch query:"
    )


async def _time_calls(
    llm: LocalLLM, runs: int, system: str, *, same_prompt: bool = False, **kwargs: object
) -> tuple[list[float], str]:
    times, reply = [], ""
    for run in range(runs):
        prompt = _prompt(0 if same_prompt else run)
        start = time.perf_counter()
        reply = await llm(prompt, system_prompt=system, **kwargs)
        times.append(time.perf_counter() - start)
    return times, reply


async def main(runs: int, threads: int | None) -> None:
    print(f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} usable CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")

    cached = (cache_dir() / QWEN25_CODER_1_5B.filename).is_file()
    start = time.perf_counter()
    path = assemble_gguf(QWEN25_CODER_1_5B)
    print(f"model file: {path} ({path.stat().st_size / 1e9:.2f} GB), "
          f"{'reused from cache' if cached else 'assembled from parts'} in {time.perf_counter() - start:.2f} s")

    start = time.perf_counter()
    llm = LocalLLM.load(n_threads=threads)
    print(f"LLM load ({llm.model_name}): {time.perf_counter() - start:.2f} s")

    prompt = _prompt(0)
    n_tokens = len(llm._model.tokenize((SYSTEM + prompt).encode(), add_bos=False))  # type: ignore[union-attr]
    print(f"prompt: ~{n_tokens} tokens (system + user), temperature 0")

    await llm("Warm up.", max_tokens=1)
    times, reply = await _time_calls(llm, runs, SYSTEM, max_tokens=32)
    print(f"short text, max_tokens=32: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f}, max {max(times):.2f}, {runs} runs) -> {reply!r}")

    json_system = SYSTEM + ' Answer in JSON only: {"query": "..."}'
    times, reply = await _time_calls(llm, runs, json_system, max_tokens=64, response_format={"type": "json_object"})
    json.loads(reply)
    print(f"JSON mode, max_tokens=64: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f}, max {max(times):.2f}, {runs} runs) -> {reply!r}")

    # llama.cpp keeps the last prompt's state: a call whose prompt starts like the previous
    # one only evaluates the new tail. This is the floor, reached when the same prompt repeats.
    times, reply = await _time_calls(llm, runs, SYSTEM, same_prompt=True, max_tokens=32)
    print(f"same prompt repeated (cached prefix), max_tokens=32: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f}, max {max(times):.2f}, {runs} runs)")
    llm.close()

    start = time.perf_counter()
    embedding = e5_embedding()
    print(f"embedding load (multilingual-e5-small q4): {time.perf_counter() - start:.2f} s")
    passages = [f"{PASSAGE} ({i})" for i in range(24)]
    print(f"passage: {len(PASSAGE.split())} words")
    await embedding(passages[:2])
    start = time.perf_counter()
    await embedding(passages, context="document")
    elapsed = time.perf_counter() - start
    print(f"embedding: {len(passages) / elapsed:.1f} passages/s ({len(passages)} in one batch)")
    start = time.perf_counter()
    for _ in range(10):
        await embedding(["Quel module pour un hôpital ?"], context="query")
    print(f"embedding: {(time.perf_counter() - start) / 10 * 1000:.0f} ms per short query")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other processes share these CPUs)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: all usable CPUs)")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.threads))
