"""Simplified Chinese: written from the forms the project's languages issue lists and their common synonyms.

Chinese is written without spaces: its words are found in a message by the
record's own lexicon (``Language.words``), and the gate counts words by Han
characters (``HAN_CHARS_PER_WORD``).
"""

from __future__ import annotations

from .record import Language

CHINESE = Language(
    code="zh",
    drops_subject=True,
    name="Chinese (Simplified)",
    spaced=False,
    assent=frozenset(
        "好 好的 好啊 好呀 是 是的 对 对的 可以 行 嗯 没问题 当然 谢谢 多谢 麻烦 请 要 需要 不 不用 不要 不了 不需要 "
        "为什么不 好吧 太好了 介绍一下".split()
    ),
    declining=frozenset("不 不用 不要 不了 不需要".split()),
    thanking=frozenset("谢谢 多谢".split()),
    accepting_negations=("为什么不",),
    offering=(
        r"需要我",
        r"要不要我",
        r"要我",
        r"我可以(?:为您|给您|帮您)",
        r"您想(?:了解|知道|看)",
        r"您需要",
        r"您要不要",
        r"是否需要",
        r"您是否想",
        r"您有兴趣",
        r"感兴趣吗",
    ),
    inviting=(r"请告诉我", r"告诉我", r"请(?:选择|说明|确认)", r"我可以(?:为您|给您|帮您)", r"如果您(?:需要|愿意|想)"),
    pointers=frozenset(
        "它 它们 它的 这个 那个 这些 那些 这款 那款 这种 那种 这门 那门 这项 那项 这家 那家 该 此 其 他 她 他们 她们 "
        "他的 她的 这 那".split()
    ),
    set_pointers=frozenset("其他 另外 另一个 哪个 哪一个 哪些 两者 两个都".split()),
    not_pointing=(r"这里", r"那里", r"这样", r"那样", r"那么", r"这么", r"其实", r"其中", r"尤其"),
    elliptical=(r"那", r"那么", r"还有", r"那.{0,6}呢"),
    function_words=frozenset(
        "的 了 吗 呢 吧 啊 是 在 有 和 与 及 或 或者 还是 我 我们 您 你 你们 贵 公司 请问 什么 怎么 哪 多少 如何 为什么 "
        "可以 能 会 要 想 也 都 就 还 很 更 最".split()
    ),
    question_words=frozenset("什么 怎么 哪 哪个 哪些 多少 如何 为什么 是否 吗 呢".split()),
    definite_articles=frozenset(),
    addressing=frozenset("您 你 你们 贵公司 贵司".split()),
    name_stop_words=frozenset(),
    list_gaps=frozenset({"、", "和", "或", "或者", "还是", "与", "及", "，", ","}),
    ordinals=(
        r"第一(?:个|种|款|门|项)?",
        r"第二(?:个|种|款|门|项)?",
        r"第三(?:个|种|款|门|项)?",
        r"第四(?:个|种|款|门|项)?",
    ),
    last=r"最后一(?:个|种|款|门|项)",
)
