"""The true bylines of the real PDFs in ../shared/data (title, authors' family names, year), for the byline tests
and `bench/pdf_bylines.py`.

Where each truth comes from:
- titles: `tests/ingest/real_titles.py` (S2ORC JSON beside the ACL PDFs, realqa dev2's `paper_title`);
- authors: the S2ORC JSON for `papers/pdf/`; for `realqa/papers/`, README2 names only the first author ("Datta et
  al."), so the full lists below were transcribed by reading each PDF's first page, and each list's first name is
  checked against README2's;
- years: README2's "(Venue YYYY)" or the year of its arXiv id (1504.06236 -> 2015); the ACL Anthology id of the
  S2ORC papers (N18-3011 -> 2018, 2020.acl-main.207 -> 2020), S2ORC's own `year` being empty. One paper
  (biomedical_association_rules) has no year in README2 and is left out of the year figures.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from evidence.names import fold
from tests.ingest.real_titles import DATA, known_titles

# fmt: off
TRANSCRIBED = {
    "answer_validation_ave2008": ["Wang", "Neumann"],
    "biomedical_association_rules": ["Berardi", "Lapi", "Leo", "Loglisci"],
    "dvt_prophylaxis_trauma_review": ["Datta", "Ball", "Rudmik", "Hameed", "Kortbeek"],
    "glia_calcium_waves": ["Charles"],
    "hindawi_rehab_157939": ["Tully", "Morgan", "Burke", "McGee"],
    "image_denoising_convnets": ["Jain", "Seung"],
    "influential_nodes_complex_networks": ["Sheikhahmadi", "Nematbakhsh", "Shokrollahi"],
    "mapreduce_osdi04": ["Dean", "Ghemawat"],
    "mobile_feedback_eeg": ["Antons", "Schleicher", "Arndt", "Möller", "Seebode"],
    "monolingual_mt_paraphrase": ["Quirk", "Brockett", "Dolan"],
    "parallel_topic_models": ["Smola", "Narayanamurthy"],
    "phoenix_paludosa_phytochemistry": ["Alam", "Rahman", "Alam", "Hossain", "Hossain", "Rashid"],
    "qi_barriers_resource_limited": ["Agyeman-Duah", "Theurer", "Munthali", "Alide", "Neuhann"],
    "reverb_relations_open_ie": ["Fader", "Soderland", "Etzioni"],
    "semeagat_event_detection": ["Xi", "Lu", "Hang", "Zhang", "Wang", "Feng"],
    "silicon_strain_sensor_cmos": ["Roisin", "Delhaye", "André", "Raskin", "Flandre"],
    "timp_r_package_jss": ["Mullen", "van Stokkum"],
    "trustrank_web_spam": ["Gyöngyi", "Garcia-Molina", "Pedersen"],
    "vespa_selective_pressure": ["Webb", "Walsh", "O'Connell"],
    "zone_based_sensor_routing": ["Ahmed", "Hussain"],
}
# fmt: on
_ROW = re.compile(r"^\| `(?P<docid>[\w.\-]+)` \| (?P<paper>[^|]+) \|", re.M)


@dataclass(frozen=True)
class Truth:
    title: str
    families: tuple[str, ...]  # in the paper's order
    year: int | None


def family_set(families: list[str] | tuple[str, ...]) -> frozenset[str]:
    """Return the folded family names, for comparing author lists as sets."""
    return frozenset(fold(name) for name in families)


def _readme_rows() -> dict[str, str]:
    """Return README2's "paper" cell per docid: "Datta et al., Complications ... (J Trauma Manag Outcomes 2010)"."""
    return {m["docid"]: m["paper"] for m in _ROW.finditer((DATA / "realqa" / "README2.md").read_text())}


def _readme_year(paper: str) -> int | None:
    venue = re.search(r"\(([^()]*)\)\s*$", paper)
    if venue is None:
        return None
    arxiv = re.search(r"arXiv:(\d\d)\d\d\.", venue.group(1))
    if arxiv:
        return 2000 + int(arxiv.group(1))
    years = re.findall(r"\b(?:19|20)\d\d\b", venue.group(1))
    return int(years[-1]) if years else None


def known_bylines() -> dict[Path, Truth]:
    """The true title, authors' family names and year of each real PDF."""
    titles = known_titles()
    rows = _readme_rows()
    truths: dict[Path, Truth] = {}
    for path, title in titles.items():
        s2orc = path.with_suffix(".s2orc.json")
        if s2orc.exists():
            paper = json.loads(s2orc.read_text())
            anthology = re.match(r"(?:[A-Z](\d\d)-|(\d{4})\.)", path.stem)
            year = int(anthology.group(2) or f"20{anthology.group(1)}") if anthology else None
            truths[path] = Truth(title, tuple(a["last"] for a in paper["authors"]), year)
            continue
        families = TRANSCRIBED[path.stem]
        first = rows[path.stem].split(",")[0].split(" et al")[0].split(" and ")[0].strip()
        assert fold(first) == fold(families[0]), f"{path.stem}: README2 says {first}, transcribed {families[0]}"
        truths[path] = Truth(title, tuple(families), _readme_year(rows[path.stem]))
    return truths
