"""German: written from the forms the project's languages issue lists and their common synonyms."""

from __future__ import annotations

from .record import Language

GERMAN = Language(
    code="de",
    name="German",
    capitalises_nouns=True,
    markers=frozenset(
        "der das und ist sind nicht ein eine einen einem mit für auf ich wir ihr ihre ihnen haben wie "
        "welche welcher welches wann warum gibt auch noch schon oder bei zum zur kann können möchten möchte "
        "gerne bitte danke sie ihr ihrem ihren unser unsere".split()
    ),
    assent=frozenset(
        "ja jawohl gerne gern klar natürlich sicher genau okay ok gut super perfekt prima bitte danke vielen dank nein "
        "nee nicht warum auch selbstverständlich einverstanden sehr mehr erzählen sie mir".split()
    ),
    declining=frozenset("nein nee nicht".split()),
    thanking=frozenset("danke vielen dank".split()),
    accepting_negations=("warum nicht",),
    offering=(
        r"möchten sie",
        r"möchtest du",
        r"wollen sie",
        r"willst du",
        r"soll ich",
        r"sollen wir",
        r"darf ich",
        r"kann ich ihnen",
        r"wünschen sie",
        r"interessiert sie",
        r"hätten sie (?:gerne|interesse)",
        r"wie wäre es",
    ),
    inviting=(
        r"sagen sie mir",
        r"lassen sie (?:mich|es mich) wissen",
        r"ich kann ihnen",
        r"ich könnte",
        r"gerne (?:kann|sende|schicke)",
        r"bitte (?:wählen|nennen|geben|bestätigen)",
        r"wählen sie",
        r"nennen sie",
        r"wenn sie (?:möchten|wollen)",
    ),
    pointers=frozenset(
        "es er ihn ihm sie ihr ihre ihren ihrem ihrer sein seine seinen seinem seiner dies diese dieser dieses diesen "
        "diesem jene jener jenes dessen deren dafür davon damit darüber daran dazu dabei derselbe dieselbe dasselbe".split()
    ),
    set_pointers=frozenset("andere anderen anderes andern beide beiden welches welcher welchen sonst".split()),
    not_pointing=(
        r"es\s+gibt",
        r"gibt\s+es",
        r"es\s+(?:regnet|schneit|ist\s+(?:möglich|wichtig|nötig|kalt|warm))",
        r"es\s+geht\s+um",
        r"geht\s+es\s+um",
        r"wie\s+geht\s+es",
        r"es\s+sei\s+denn",
        # The formal "Sie" addresses the assistant: it points at the visitor's interlocutor, not at a thing.
        r"(?:haben|bieten|verkaufen|können|könnten|möchten|hätten|sind|machen|liefern)\s+sie",
        r"sie\s+(?:haben|bieten|verkaufen|können|könnten|möchten|hätten|sind|machen|liefern)",
    ),
    elliptical=(r"und", r"was\s+ist\s+mit", r"wie\s+steht\s+es\s+mit", r"und\s+wie\s+sieht\s+es"),
    function_words=frozenset(
        "der die das den dem des ein eine einen einem einer eines und oder aber auch noch schon nur sehr ist sind war "
        "waren bin bist hat haben hatte wird werden kann können möchte möchten soll sollen muss müssen ich du wir "
        "ihr sie man nicht kein keine ja nein in im an am auf aus bei mit nach von vom zu zum zur für über unter um "
        "wie was wer wo wann warum welche welcher welches gibt es bitte danke".split()
    ),
    question_words=frozenset("wie was wer wo wann warum welche welcher welches wieviel wie viele".split()),
    definite_articles=frozenset("der die das den dem des".split()),
    addressing=frozenset("sie ihr ihre ihnen ihrem ihren ihrer euch euer dich dir dein deine".split()),
    name_stop_words=frozenset(
        "der die das den dem des ein eine einen einem einer und oder aber auch wir ich sie ihr ihre ihnen ihren unser "
        "unsere es er welche welcher welches wie was wo wann warum gerne bitte danke ja nein hallo guten tag".split()
    ),
    list_gaps=frozenset({"oder", "und", ", oder", ", und", "bzw.", "sowie"}),
    ordinals=(r"erste[nmrs]?", r"zweite[nmrs]?", r"dritte[nmrs]?", r"vierte[nmrs]?"),
    last=r"letzte[nmrs]?",
    extra={
        # The formal "Sie", "Ihr", "Ihnen" inside a sentence address the assistant, the company: they point at
        # nobody the conversation named ("Wie viele Mitarbeiter hat Ihr Unternehmen?"). Matched before case
        # folding, which would make them "sie" (she, they) and "ihr" (her, their).
        "formal_address": r"(?<![.!?:]\s)(?<!^)\b(?:Sie|Ihr|Ihre|Ihrem|Ihren|Ihrer|Ihres|Ihnen)\b",
    },
)
