"""The first k documents against raw: relevant documents lost and gained, from hand-made fake records."""

from __future__ import annotations

from lightrag_resolve.eval import Item, Record, relevant_lost_and_gained, render_markdown, summarize

HISTORY = ({"role": "user", "content": "Tell me about Pulse POS and Pulse Go."},)
FIXTURE_ITEMS = [
    # An ambiguous question after two products: both price pages are relevant.
    Item(
        id="price",
        query="How much does it cost?",
        history=HISTORY,
        turn_class="follow_up",
        relevant=("price-pos", "price-go"),
    ),
    Item(id="yes", query="yes", history=HISTORY, turn_class="short_reply", relevant=("offer",)),
    Item(id="facts", query="Where are you?", history=HISTORY, turn_class="follow_up", must_contain=("Lyon",)),
]


def _fake(item: str, arm: str, run: int, retrieved: list[str]) -> Record:
    turn_class = next(i.turn_class for i in FIXTURE_ITEMS if i.id == item)
    return Record(
        item=item,
        arm=arm,
        run=run,
        turn_class=turn_class,
        mode="naive",
        lang="en",
        text="t",
        outcome="raw" if arm == "raw" else "rewritten",
        hit=True,
        gold_hit=True,
        retrieved=retrieved,
    )


FAKE_RECORDS = [
    # "price": raw has both price pages in its first 3 in both runs; resolve keeps one in run 0, both in run 1.
    _fake("price", "raw", 0, ["price-pos", "price-go", "about"]),
    _fake("price", "raw", 1, ["price-go", "about", "price-pos"]),
    _fake("price", "resolve", 0, ["price-pos", "about", "team", "price-go"]),
    _fake("price", "resolve", 1, ["price-pos", "price-go"]),
    # "yes": raw finds the offer fourth (outside the first 3); resolve brings it first, in both runs.
    _fake("yes", "raw", 0, ["about", "team", "jobs", "offer"]),
    _fake("yes", "raw", 1, ["about", "team", "jobs", "offer"]),
    _fake("yes", "resolve", 0, ["offer", "about"]),
    _fake("yes", "resolve", 1, ["offer", "about"]),
    # "facts" has no relevant documents: nothing to count.
    _fake("facts", "raw", 0, ["about"]),
    _fake("facts", "resolve", 0, ["jobs"]),
]


def test_lost_are_raws_relevant_documents_the_arm_drops_and_gained_the_ones_it_adds() -> None:
    raw, arm = ["a", "b", "x"], ["a", "y", "c", "b"]
    assert relevant_lost_and_gained(raw, arm, {"a", "b", "c"}, 3) == (1, 1)  # b dropped below 3, c added
    assert relevant_lost_and_gained(raw, ["a", "y"], {"a", "b"}, 3) == (1, 0)
    assert relevant_lost_and_gained(["y"], ["b", "a"], {"a", "b"}, 3) == (0, 2)
    assert relevant_lost_and_gained(raw, raw, {"a", "b"}, 3) == (0, 0)
    assert relevant_lost_and_gained(raw, arm, {"a", "b"}, 1) == (0, 0)  # only the first document counts


def test_hit_at_k_hides_the_loss_the_counts_show() -> None:
    summary = summarize(FAKE_RECORDS, FIXTURE_ITEMS, ["raw", "resolve"], runs=2, resamples=200, k=3)
    raw, resolve = summary.first_k_row("raw", "follow_up"), summary.first_k_row("resolve", "follow_up")
    assert raw is not None and resolve is not None
    assert raw.hit_rate == resolve.hit_rate == 1.0  # one price page is a hit, like two
    assert (resolve.items, resolve.pairs, resolve.raw_relevant) == (1, 2, 4)  # "facts" has no relevant documents
    assert (resolve.lost, resolve.gained, resolve.items_losing) == (1, 0, 1)  # run 0 dropped price-go
    assert raw.lost is None and raw.gained is None


def test_a_document_the_arm_adds_is_gained_not_lost() -> None:
    summary = summarize(FAKE_RECORDS, FIXTURE_ITEMS, ["raw", "resolve"], runs=2, resamples=200, k=3)
    short = summary.first_k_row("resolve", "short_reply")
    assert short is not None
    assert (short.lost, short.gained, short.items_losing) == (0, 2, 0)
    assert short.hit_rate == 1.0 and summary.first_k_row("raw", "short_reply").hit_rate == 0.0  # type: ignore[union-attr]
    pooled = summary.first_k_row("resolve", "all")
    assert pooled is not None and (pooled.lost, pooled.gained, pooled.pairs) == (1, 2, 4)


def test_pairs_are_matched_by_run() -> None:
    # resolve's run 1 ranking is raw's run 0 ranking: paired by item alone it would lose nothing in run 1.
    records = [
        _fake("yes", "raw", 0, ["offer"]),
        _fake("yes", "raw", 1, ["about"]),
        _fake("yes", "resolve", 0, ["about"]),
        _fake("yes", "resolve", 1, ["offer"]),
    ]
    row = summarize(records, FIXTURE_ITEMS, ["raw", "resolve"], runs=2, resamples=200, k=3).first_k_row(
        "resolve", "short_reply"
    )
    assert row is not None and (row.lost, row.gained, row.pairs) == (1, 1, 2)


def test_the_report_shows_the_counts_beside_hit_at_k() -> None:
    summary = summarize(FAKE_RECORDS, FIXTURE_ITEMS, ["raw", "resolve"], runs=2, resamples=200, k=3)
    text = render_markdown(summary, {"dataset_name": "fixture", "items": 3, "judge": "gold", "settings": {"k": 3}})
    assert "## The first 3 documents: relevant documents lost and gained against raw" in text
    assert "| relevant lost vs raw, first 3 | relevant gained vs raw, first 3 |" in text
    assert "| follow_up | resolve | 1 | 1.00 | 2 | 4 | 1 | 0 | 1 |" in text
    assert "| short_reply | resolve | 1 | 1.00 | 2 | 0 | 0 | 2 | 0 |" in text
    assert "| follow_up | raw | 1 | 1.00 | (baseline) | | | | |" in text


def test_a_dataset_without_relevant_documents_has_no_first_k_section() -> None:
    records = [_fake("facts", "raw", 0, ["about"]), _fake("facts", "resolve", 0, ["jobs"])]
    summary = summarize(records, FIXTURE_ITEMS, ["raw", "resolve"], runs=1, resamples=200)
    assert summary.first_k == ()
    assert "relevant lost" not in render_markdown(summary, {"settings": {"k": 5}})
