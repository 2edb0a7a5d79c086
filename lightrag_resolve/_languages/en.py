"""English: written from the bundled sample and the MTRAG cut (information-seeking dialogues)."""

from __future__ import annotations

from .record import Language

ENGLISH = Language(
    code="en",
    name="English",
    markers=frozenset(
        "the is are were do does did what which who whom how when where why can could should would of to on for "
        "with from by about and or not be been have has had i you we my your our me us there any some much many".split()
    ),
    assent=frozenset(
        "yes yeah yep yup sure ok okay alright right fine great perfect please pls thanks thank you no nope nah "
        "go ahead on of course absolutely definitely certainly why not sounds good do it let's lets tell me more".split()
    ),
    declining=frozenset("no nope nah not".split()),
    thanking=frozenset("thanks thank you".split()),
    accepting_negations=("why not",),
    offering=(
        r"would you like",
        r"would you want",
        r"do you want",
        r"do you wish",
        r"want me to",
        r"would it help",
        r"shall i",
        r"should i",
        r"can i",
        r"could i",
        r"may i",
        r"shall we",
        r"can we",
        r"could we",
        r"(?:are|would) you (?:be )?interested",
        r"how about",
    ),
    inviting=(
        r"let me know",
        r"tell me",
        r"feel free",
        r"if you(?:'d)? (?:like|want|wish)",
        r"i can (?!not\b|'t\b)",
        r"i could",
        r"i'd be happy",
        r"i would be happy",
        r"just say",
        r"please (?:choose|pick|select|confirm|specify)",
    ),
    pointers=frozenset(
        "it its itself this that these those they them their theirs themselves he him his himself she her hers "
        "herself one ones former latter such same".split()
    ),
    # Words that presuppose a set the conversation named: "Are there other river systems?", "What else is included?"
    set_pointers=frozenset("other others another else both either neither".split()),
    not_pointing=(
        r"one\s+of",
        r"no\s+one",
        r"in\s+other\s+words",
        r"on\s+the\s+other\s+hand",
        r"each\s+other",
        r"one\s+another",
        # A dummy "it" refers to nothing: the weather, a state of things (found on an unseen dialogue set:
        # "…in case it rains?" had the window's only candidate put before it).
        r"it(?:'s|\s+is|\s+was|\s+will\s+be)?\s+(?:rain|raining|rains|snow|snowing|snows|sunny|windy|cold|hot|warm)\b",
        r"it\s+depends",
        r"it\s+seems",
        r"it\s+appears",
        r"it(?:'s|\s+is|\s+was)\s+(?:possible|likely|necessary|important|worth|better|best|easy|hard|true)\b",
    ),
    elliptical=(r"and", r"what\s+about", r"how\s+about"),
    function_words=frozenset(
        "a an am is was will shall may might must if in into at as so than then too very just also no yes not "
        "it's i'm don't doesn't didn't can't isn't aren't get got there here now really please tell know want need "
        "like s t ll re ve m".split()
    ),
    definite_articles=frozenset(["the"]),
    addressing=frozenset("you your yours yourself yourselves".split()),
    name_stop_words=frozenset(
        "a an and also are as at be both but by can could do does each every for from have hello hi how i if in is it "
        "its just may most my no not of on or our shall should so some than that the their them then there these they "
        "this those to tell us we what when where which who why will with would yes you your".split()
    ),
    list_gaps=frozenset({",", "or", "and", ", or", ", and", "/", "or else"}),
    ordinals=(r"first|1st|former", r"second|2nd", r"third|3rd", r"fourth|4th"),
    last=r"last|latter",
    extra={
        # "Which" as a pronoun opening a question asks to choose among things already named ("Which is more
        # important?", "So which of them…"); "which" before a noun names what it asks about, and so does
        # "which is the…" (a thing asked for by its description).
        "pronominal_which": r"^(?:(?:so|but|then|now|ok|okay|well)\s+)?which\s+"
        r"(?:(?:is|are|was|were)\b(?!\s+(?:the|a|an)\b)|(?:of|would|should|could|will|can|does|do|did|has|have)\b)",
    },
)
