"""A small bilingual custom knowledge graph for integration tests."""

from __future__ import annotations

from typing import Any

DOCS = {
    "doc-sante": "Offre Santé: Helix propose le module Vitalis pour les cliniques et hôpitaux, avec dossier patient partagé.",
    "doc-btp": "Offre BTP: Helix propose le module Chantier Pro pour les entreprises du bâtiment et des travaux publics.",
    "doc-retail": "Retail offer: Pulse POS is the loyalty terminal that Helix sells to retailers and shops.",
    "doc-pulse-customers": "Retailers running Pulse POS: Maison Ferrand and Boulangeries Arnaud installed the terminal in 2025.",
    "doc-offices": "Helix has four offices: Lyon, Paris, Nantes and Montréal.",
    "doc-courses": "German course level B1 is taught on weekday evenings; level A1 also runs on Saturdays.",
}

ENTITIES = [
    ("Offre Santé", "offer", "Helix's offer for the health sector (santé): the Vitalis module.", "doc-sante"),
    ("Vitalis", "product", "Vitalis is Helix's module for clinics and hospitals.", "doc-sante"),
    ("Offre BTP", "offer", "Helix's offer for construction (BTP): the Chantier Pro module.", "doc-btp"),
    ("Chantier Pro", "product", "Chantier Pro is Helix's module for construction companies.", "doc-btp"),
    ("Pulse POS", "product", "Pulse POS is Helix's loyalty terminal for retailers.", "doc-retail"),
    ("Maison Ferrand", "customer", "Maison Ferrand is a retailer that runs Pulse POS.", "doc-pulse-customers"),
    ("Helix Offices", "organization", "Helix has four offices: Lyon, Paris, Nantes, Montréal.", "doc-offices"),
    ("German B1", "course", "German course level B1, weekday evenings.", "doc-courses"),
]

RELATIONS = [
    ("Offre Santé", "Vitalis", "The health offer is built on Vitalis.", "health, module", "doc-sante"),
    ("Offre BTP", "Chantier Pro", "The construction offer is built on Chantier Pro.", "construction, module", "doc-btp"),
    ("Maison Ferrand", "Pulse POS", "Maison Ferrand runs Pulse POS.", "customer, retail", "doc-pulse-customers"),
]


def custom_kg() -> dict[str, Any]:
    return {
        "chunks": [{"content": text, "source_id": doc, "file_path": f"{doc}.txt"} for doc, text in DOCS.items()],
        "entities": [
            {"entity_name": n, "entity_type": t, "description": d, "source_id": s, "file_path": f"{s}.txt"}
            for n, t, d, s in ENTITIES
        ],
        "relationships": [
            {"src_id": a, "tgt_id": b, "description": d, "keywords": k, "weight": 1.0, "source_id": s, "file_path": f"{s}.txt"}
            for a, b, d, k, s in RELATIONS
        ],
    }
