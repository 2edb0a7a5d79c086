"""Spanish: written from the forms the project's languages issue lists and their common synonyms."""

from __future__ import annotations

from .record import Language

_ADDRESSING_PHRASE = r"(?:su|sus)\s+(?:empresa|compañía|negocio|organización|equipo|empleados|oficinas?|sede|clientes)"

SPANISH = Language(
    code="es",
    drops_subject=True,
    name="Spanish",
    markers=frozenset(
        "del qué cuál cuáles cómo cuánto cuánta cuántos cuántas dónde cuándo por para una usted "
        "ustedes está están hay también pero muy tiene tienen puede pueden su sus sí gracias quiero "
        "quisiera ofrecen".split()
    ),
    assent=frozenset(
        "sí si claro vale bueno perfecto genial por favor gracias muchas de acuerdo desde luego por supuesto "
        "exacto venga ok okay no por qué cuénteme más".split()
    ),
    declining=frozenset("no".split()),
    thanking=frozenset("gracias muchas".split()),
    accepting_negations=("por qué no",),
    offering=(
        r"quiere que",
        r"quiere saber",
        r"le gustaría",
        r"te gustaría",
        r"desea",
        r"quiere(?:s)? (?:conocer|ver|recibir)",
        r"puedo (?:enviarle|mostrarle|contarle|explicarle)",
        r"le interesa",
        r"te interesa",
        r"le envío",
        r"le mando",
        r"qué tal si",
    ),
    inviting=(
        r"dígame",
        r"indíqueme",
        r"cuénteme",
        r"puedo (?:enviarle|mostrarle|contarle|explicarle)",
        r"podría",
        r"no dude en",
        r"si (?:lo )?(?:desea|quiere)",
        r"elija",
        r"por favor (?:elija|indique|confirme)",
    ),
    pointers=frozenset(
        "lo la los las le les él ella ellos ellas ello este esta estos estas esto ese esa esos esas eso aquel aquella "
        "aquellos aquellas aquello su sus mismo misma".split()
    ),
    set_pointers=frozenset("otro otra otros otras ambos ambas cuál cuáles".split()),
    not_pointing=(
        r"lo\s+que",
        r"la\s+que",
        r"los\s+que",
        r"las\s+que",
        r"el\s+que",
        r"lo\s+(?:mejor|más|antes)",
        # Articles before a noun are no pronouns: "la formación", "los clientes" (an article starts a noun phrase).
        r"(?:la|las|los|lo)\s+(?!(?:tienen|tiene|ofrecen|ofrece|usan|usa|venden|vende|puedo|pueden|puede|hay|"
        r"compro|contrato|recomiendan|recomienda)\b)[^\W\d_]+",
        r"(?:de|a|en|con|para|por)\s+(?:su|sus)\s",
        # "su" addressing the company ("¿Cuántos empleados tiene su empresa?"): written from the example.
        _ADDRESSING_PHRASE,
    ),
    elliptical=(r"y", r"¿y", r"qué\s+hay\s+de", r"y\s+qué\s+(?:tal|hay)"),
    # An object pronoun before its verb: "¿Lo tienen?", "¿La ofrecen en Madrid?", "¿Se puede comprar?" is not one.
    object_pronoun=r"(?:^|[¿¡\s])(?:lo|la|los|las)\s+(?:tienen|tiene|ofrecen|ofrece|usan|usa|venden|vende|puedo|"
    r"pueden|puede|compro|contrato|recomiendan|recomienda)\b",
    function_words=frozenset(
        "el la los las lo un una unos unas de del al a en y o u e que qué es son está están ser estar hay tiene "
        "tienen puede pueden por para con sin sobre entre muy más también pero no sí se me te nos su sus mi mis tu "
        "tus cómo cuál cuáles cuánto cuándo dónde".split()
    ),
    question_words=frozenset("qué cuál cuáles cómo cuánto cuánta cuántos cuántas dónde cuándo quién quiénes".split()),
    definite_articles=frozenset("el la los las lo del al".split()),
    addressing=frozenset("usted ustedes vosotros tú".split()),
    name_stop_words=frozenset(
        "el la los las lo un una de del al y o u que qué es son su sus nuestro nuestra nuestros nuestras usted "
        "ustedes hola buenos cómo cuál dónde cuándo por para con también sí no".split()
    ),
    list_gaps=frozenset({"o", "y", "u", "e", ", o", ", y", "o bien"}),
    ordinals=(r"primer[oa]?", r"segund[oa]", r"tercer[oa]?", r"cuart[oa]"),
    last=r"últim[oa]",
    extra={"addressing_phrase": r"\b" + _ADDRESSING_PHRASE + r"\b"},
)
