"""Whether a longer follow-up points back at the conversation (contract §5.8).

The reference check can only help a message that leans on something the
conversation named: "Which retailers already run it?", "Cette formation
est-elle proposée le samedi ?". A message with no word that points back names
its own subject ("What does the Horizon plan cost?", "Chantio fonctionne-t-il
sans réseau ?") or opens a new one ("Do you offer training?"). Asking a model
about it costs a call where the visitor waits, and a weak model appends a
name all the same. So the check runs only on messages that hold a pointing
word (a pronoun, a demonstrative, a possessive, an elliptical "what about",
or a word that presupposes a set already named: "other", "else", "both",
"autres", "lequel", a question opening on "which is").

A message can also point back with a definite article alone: "What are the
benefits?", "What is the difference with the dialog node?" ask about *the*
benefits of something the conversation named. Such a message
(``unnamed_definite``: a definite article, at most three content words, none
of them a name, a number or a word addressed to the assistant) meets the check
too; the model may still keep it. A short question without a definite article
("Is privacy protected?", "What is an account?") opens a subject of its own.

The word lists are English and French, the languages the project tests. A
message in neither (no marker word of either language) is always checked:
in other languages the model keeps the decision, as before this rule. Every
uncertain case counts as pointing back, so this rule can only spare model
calls on messages that have nothing to point with; it never adds a name.
"""

from __future__ import annotations

import re

from ._clean_text import visible, word_form

__all__ = ["is_function_word", "leans_on_conversation", "named_before_pointing", "points_back", "unnamed_definite"]

_ENGLISH_POINTERS = frozenset(
    "it its itself this that these those they them their theirs themselves he him his himself she her hers "
    "herself one ones former latter such same".split()
)
_FRENCH_POINTERS = frozenset(
    "il ils elle elles lui eux leur leurs ce cet cette ces celui celle ceux celles ça cela ceci son sa ses là".split()
)
# Words that presuppose a set the conversation named: "Are there other river systems?", "What else is
# included?", "Lequel est le moins cher ?" (contract §5.8, tenth pass).
_ENGLISH_SET_POINTERS = frozenset("other others another else both either neither".split())
_FRENCH_SET_POINTERS = frozenset("autre autres lequel laquelle lesquels lesquelles".split())
_POINTERS = _ENGLISH_POINTERS | _FRENCH_POINTERS | _ENGLISH_SET_POINTERS | _FRENCH_SET_POINTERS

# Words that mark a message as English or French and rarely occur in the neighbouring languages
# (German, Spanish, Italian, Portuguese): a message with none of them keeps the check.
_LANGUAGE_MARKERS = frozenset(
    # English
    "the is are were do does did what which who whom how when where why can could should would of to on for "
    "with from by about and or not be been have has had i you we my your our me us there any some much many "
    # French
    "est sont quel quelle quels quelles comment quand où pourquoi combien peut peux pouvez vous nous votre vos "
    "notre nos avec pour dans sur des du au aux une pas je cette elle elles ils".split()
)

# Other function words: articles, auxiliaries, prepositions and fillers, which name nothing.
_OTHER_FUNCTION_WORDS = frozenset(
    # English
    "a an am is was will shall may might must if in into at as so than then too very just also no yes not "
    "it's i'm don't doesn't didn't can't isn't aren't get got there here now really please tell know want need like "
    # French
    "le la les l un d de et ou en y a ai as avons ont suis es sommes être avoir fait faire se mon ma mes ton ta tes "
    "qui que qu ne n plus "
    # what is left of an English contraction once split at its apostrophe ("what's", "they'll")
    "s t ll re ve m".split()
)

# Words that address the assistant, that is the company behind it: a message holding one asks about the
# company ("Combien de bureaux avez-vous ?"), a subject of its own.
_ADDRESSING = frozenset("you your yours yourself yourselves vous votre vos vôtre vôtres avez-vous".split())

# Definite articles, and French articles contracted with a preposition ("du" = "de le").
_DEFINITE = frozenset("the le la les l du au aux".split())

# A message with a definite article and at most this many content words, none of them a name, names nothing.
_MAX_UNNAMED_CONTENT_WORDS = 3

# Words that open a question without being its subject: an inverted pronoun after them points back
# ("Combien coûte-t-il ?", "Dans quelles formules est-il inclus ?").
_FRENCH_QUESTION_WORDS = frozenset(
    "combien comment où quand pourquoi que qu quoi quel quelle quels quelles lequel laquelle lesquels lesquelles "
    "est-ce".split()
)

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# French inversion: "est-il", "coûte-t-elle", "ont-ils" (the verb and its subject pronoun after it).
_INVERSION = re.compile(r"^([^\W\d_]+)-(?:t-)?(il|elle|ils|elles)$")
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
_PARTS = re.compile(r"['\u2019-]")
_QUOTED = re.compile(r"[\"“”«»]|(?:^|\s)'\w")
_CLAUSE_BREAK = re.compile(r"[,;:.!?¿¡()\[\]«»\"“”]")
# Phrases that hold a pointing word without pointing: "qu'est-ce que", "ce que", "il y a", "y a-t-il",
# "in other words", "each other", "d'autre part".
_NOT_POINTING = re.compile(
    r"\b(?:est-ce|c'est|ce\s+(?:que|qu'|qui|dont)|il\s+y\s+a|y\s+a-t-il|il\s+faut|faut-il|one\s+of|no\s+one"
    r"|in\s+other\s+words|on\s+the\s+other\s+hand|each\s+other|one\s+another|d'autre\s+part|les\s+uns\s+les\s+autres)\b"
)
# A French object pronoun before its verb: "vous le proposez", "peut-on le louer", "l'ont", "l'acheter".
_FRENCH_OBJECT = re.compile(r"(?:\b(?:je|tu|on|nous|vous|ne|n')\s*(?:le|la|les)\s)|(?:(?:^|\s)l')")
_ELLIPSIS = re.compile(r"^\s*(?:and|what\s+about|how\s+about|et|quid\s+de)\b")
# "Which" as a pronoun opening a question asks to choose among things already named ("Which is more
# important?", "So which of them…"); "which" before a noun ("Which countries…") names what it asks about,
# and so does "which is the…" ("Which is the largest river in America?" asks for a thing by its description).
_PRONOMINAL_WHICH = re.compile(
    r"^(?:(?:so|but|then|now|ok|okay|well)\s+)?which\s+"
    r"(?:(?:is|are|was|were)\b(?!\s+(?:the|a|an)\b)|(?:of|would|should|could|will|can|does|do|did|has|have)\b)"
)


def is_function_word(word: str) -> bool:
    """Whether ``word`` is one of the English or French function words above ("What", "Quelle", "the").

    A rewrite opens with one in capitals without naming anything by it, so
    the name check of a restatement (contract §5.9) passes over them.
    """
    form = word_form(word)
    return (
        form in _LANGUAGE_MARKERS
        or form in _FRENCH_QUESTION_WORDS
        or form in _POINTERS
        or form in _OTHER_FUNCTION_WORDS
    )


def leans_on_conversation(message: str) -> bool:
    """Whether a longer follow-up may need the conversation: a pointing word, or a definite article and no name."""
    return points_back(message) or unnamed_definite(message)


def unnamed_definite(message: str) -> bool:
    """Whether ``message`` asks about "the" something without naming whose ("What are the benefits?").

    True when it holds a definite article ("the", "le", "la", "les", "l'",
    "du", "au", "aux"), has at most three content words (words that are not
    English or French function words), and none of its words looks like a
    name: no capitalised word other than a function word ("What", "Le") or
    "I", no acronym ("US", "VPC"), no digit, nothing quoted, and no word
    addressed to the assistant ("you", "votre"), since such a message asks
    about the company.
    """
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    text = visible(message)
    words = _TOKEN.findall(text)
    if _QUOTED.search(text):
        return False
    content = 0
    definite = False
    for word in words:
        parts = [part for part in _PARTS.split(word_form(word)) if part]
        definite = definite or parts[0] in _DEFINITE
        if any(char.isdigit() for char in word) or any(part in _ADDRESSING for part in parts):
            return False
        function = is_function_word(word) or all(is_function_word(part) for part in parts)
        if _looks_like_a_name(word, function=function):
            return False
        content += not function
    return definite and content <= _MAX_UNNAMED_CONTENT_WORDS


def _looks_like_a_name(word: str, *, function: bool) -> bool:
    """Whether a part of ``word`` is an acronym ("US", "l'ERP", even "IT") or has a capital and is no function word.

    A capital anywhere counts ("iPhone", "l'Essentiel"); "What's", "I" and
    "Le" are function words in capitals.
    """
    for part in _PARTS.split(word):
        letters = [char for char in part if char.isalpha()]
        if len(letters) >= 2 and all(char.isupper() for char in letters):
            return True
        if any(char.isupper() for char in part) and not (function or is_function_word(part)):
            return True
    return False


def named_before_pointing(message: str, name: str) -> bool:
    """Whether ``name`` occurs in ``message`` before its first pointing word ("How does Kubernetes work and why use it?").

    The reference check proposes what a message points at; when it proposes a
    name the message already holds before its pronoun, the pronoun takes up
    the message's own subject, and there is nothing in the conversation to
    restate it with (contract §5.9). Words are compared without case; an
    elliptical opening ("What about…") points before anything is named, and a
    message whose pointing word this reading cannot place ("l'ont") is not
    taken as named before it.
    """
    if not isinstance(message, str) or not isinstance(name, str):
        raise TypeError("message and name must be str")
    text = word_form(visible(message))
    wanted = [piece for chunk in _PARTS.split(word_form(visible(name))) for piece in _TOKEN.findall(chunk)]
    if not wanted or _ELLIPSIS.search(text):
        return False
    words = [part for word in _TOKEN.findall(text) for part in _PARTS.split(word) if part]
    for position, word in enumerate(words):
        if word in _POINTERS:
            return False
        if words[position : position + len(wanted)] == wanted:
            return any(later in _POINTERS for later in words[position + len(wanted) :])
    return False


def points_back(message: str) -> bool:
    """Whether ``message`` holds a word that may point at something the conversation named.

    True when it does, and when its language is neither English nor French
    (the model then decides, as for every message before this rule).
    """
    if not isinstance(message, str):
        raise TypeError(f"message must be a str, got {type(message).__name__}")
    text = word_form(visible(message))
    if _ELLIPSIS.search(text) or _FRENCH_OBJECT.search(text):
        return True
    if not any(part in _LANGUAGE_MARKERS for word in _WORD.findall(text) for part in word.split("-")):
        return True  # neither English nor French: the model decides
    for clause in _CLAUSE_BREAK.split(_NOT_POINTING.sub(" ", text)):
        words = _WORD.findall(clause)
        for position, word in enumerate(words):
            parts = word.split("-")
            if _INVERSION.match(word) is not None:
                if _inversion_points_back(words[:position]):
                    return True
                parts = parts[:1]  # "est-il" after a named subject: the pronoun repeats that subject
            if any(part in _POINTERS for part in parts):
                return True
        if _PRONOMINAL_WHICH.match(" ".join(words)):
            return True
    return False


def _inversion_points_back(before: list[str]) -> bool:
    """Whether an inverted French pronoun stands for something outside the clause.

    "Chantio fonctionne-t-il ?" repeats its subject (Chantio); "Combien
    coûte-t-il ?" and "Est-il inclus ?" have none before the verb, so the
    pronoun points back.
    """
    return not before or any(word in _FRENCH_QUESTION_WORDS for word in before)
