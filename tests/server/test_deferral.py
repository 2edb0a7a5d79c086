"""``defers_to_core``: which too-short messages the server leaves to the resolving core."""

from __future__ import annotations

import pytest

from lightrag_resolve import ResolverConfig
from lightrag_resolve.server._deferral import defers_to_core

HISTORY = [
    {"role": "user", "content": "Which German courses do you run?"},
    {"role": "assistant", "content": "A1 and B1. Which level?"},
]
ON = ResolverConfig()


def test_a_short_follow_up_is_left_to_the_core():
    assert defers_to_core("B1", "mix", HISTORY, ON)


@pytest.mark.parametrize(
    ("query", "mode", "history", "config"),
    [
        ("B1", "mix", None, ON),  # first turn: LightRAG's refusal as usual
        ("B1", "mix", [], ON),
        ("B1", "mix", [{"role": "system", "content": "Be brief."}], ON),  # no usable earlier message
        ("B1", "mix", "not a list", ON),
        ("B1", "bypass", HISTORY, ON),  # bypass has no minimum to defer
        ("B1", "mix", HISTORY, ResolverConfig(enabled=False)),
        ("Yes, B1", "mix", HISTORY, ON),  # long enough: nothing to defer
        ("   ", "mix", HISTORY, ON),  # empty stays LightRAG's refusal
    ],
)
def test_everything_else_keeps_lightrags_own_check(query, mode, history, config):
    assert not defers_to_core(query, mode, history, config)
