"""French: written from the bundled sample."""

from __future__ import annotations

from .record import Language

FRENCH = Language(
    code="fr",
    name="French",
    markers=frozenset(
        "est sont quel quelle quels quelles comment quand où pourquoi combien peut peux pouvez vous nous votre vos "
        "notre nos avec pour dans sur des du au aux une pas je cette elle elles ils".split()
    ),
    assent=frozenset(
        "oui ouais si d'accord volontiers bien sûr non merci parfait allez-y vas-y avec plaisir pourquoi pas "
        "certainement tout à fait s'il vous plaît plait svp stp entendu".split()
    ),
    declining=frozenset("non pas".split()),
    thanking=frozenset(["merci"]),
    accepting_negations=("pourquoi pas",),
    offering=(
        r"voulez-vous",
        r"veux-tu",
        r"souhaitez-vous",
        r"souhaites-tu",
        r"désirez-vous",
        r"aimeriez-vous",
        r"voudriez-vous",
        r"puis-je",
        r"dois-je",
        r"je peux",
        r"je pourrais",
        r"vous intéresse",
        r"ça vous dit",
        r"est-ce que je",
    ),
    inviting=(
        r"dites-moi",
        r"indiquez",
        r"précisez",
        r"je peux",
        r"je pourrais",
        r"je vous propose",
        r"si vous (?:le )?(?:souhaitez|voulez)",
        r"n'hésitez pas",
        r"faites-moi savoir",
        r"choisissez",
    ),
    pointers=frozenset(
        "il ils elle elles lui eux leur leurs ce cet cette ces celui celle ceux celles ça cela ceci son sa ses là".split()
    ),
    set_pointers=frozenset("autre autres lequel laquelle lesquels lesquelles".split()),
    not_pointing=(
        r"est-ce",
        r"c'est",
        r"ce\s+(?:que|qu'|qui|dont)",
        r"il\s+y\s+a",
        r"y\s+a-t-il",
        r"il\s+faut",
        r"faut-il",
        r"d'autre\s+part",
        r"les\s+uns\s+les\s+autres",
        r"il\s+(?:pleut|neige|fait|semble|paraît)",
        r"il\s+est\s+(?:possible|probable|nécessaire|important)",
    ),
    elliptical=(r"et", r"quid\s+de"),
    # An object pronoun before its verb: "vous le proposez", "peut-on le louer", "l'ont", "l'acheter".
    object_pronoun=r"(?:\b(?:je|tu|on|nous|vous|ne|n')\s*(?:le|la|les)\s)|(?:(?:^|\s)l')",
    function_words=frozenset(
        "le la les l un d de et ou en y a ai as avons ont suis es sommes être avoir fait faire se mon ma mes ton ta "
        "tes qui que qu ne n plus".split()
    ),
    # Words that open a question without being its subject: an inverted pronoun after them points back.
    question_words=frozenset(
        "combien comment où quand pourquoi que qu quoi quel quelle quels quelles lequel laquelle lesquels lesquelles "
        "est-ce".split()
    ),
    definite_articles=frozenset("le la les l du au aux".split()),
    addressing=frozenset("vous votre vos vôtre vôtres avez-vous".split()),
    name_stop_words=frozenset(
        "à au aux avec bonjour ce ces cet cette comment dans de des du elle elles en est et il ils je l la le les leur "
        "leurs ma mais mes mon nos notre nous on ou oui par pas pour pouvez quand que quel quelle quelles quels qui sa "
        "se si son sont souhaitez ses sur ta te tes ton tous tout toute toutes un une vos votre vous voulez y".split()
    ),
    list_gaps=frozenset({"et", "ou", ", et", ", ou", "ou bien"}),
    ordinals=(
        r"premi[eè]re?|1(?:er|re|ère)",
        r"deuxi[eè]me|seconde?|2e|2ème",
        r"troisi[eè]me|3e|3ème",
        r"quatri[eè]me|4e|4ème",
    ),
    last=r"derni[eè]re?",
    extra={
        # Inversion: "est-il", "coûte-t-elle", "ont-ils" (the verb and its subject pronoun after it).
        "inversion": r"^([^\W\d_]+)-(?:t-)?(il|elle|ils|elles)$",
    },
)
