"""Questions for fitting and checking the answer layer: cloze questions (fit) and real labelled questions (check).

A real question comes from a finished `manage.py evaluate papers` evaluation: its run stored the reader's best
sentences (answer signals "evidence"), so the answer layer can be refitted and re-read offline on exactly the
sentences the product path read. dev2 is split by paper: part A checks choices, part B is never used for one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidence.answers.ranker_rows import Sentence

DEV2_PAPERS = (
    "answer_validation_ave2008", "biomedical_association_rules", "dvt_prophylaxis_trauma_review",
    "glia_calcium_waves", "hindawi_rehab_157939", "image_denoising_convnets", "influential_nodes_complex_networks",
    "mapreduce_osdi04", "mobile_feedback_eeg", "monolingual_mt_paraphrase", "parallel_topic_models",
    "phoenix_paludosa_phytochemistry", "qi_barriers_resource_limited", "reverb_relations_open_ie",
    "semeagat_event_detection", "silicon_strain_sensor_cmos", "timp_r_package_jss", "trustrank_web_spam",
    "vespa_selective_pressure", "zone_based_sensor_routing",
)  # fmt: skip
HELD_OUT = frozenset(DEV2_PAPERS[1::2])  # dev2 part B: every second paper by name, never used for any choice


def paper_of(questions: list[dict]) -> dict[str, str]:
    """qid -> the paper a question is about: its gold evidence's document, or (unanswerable) the document of
    another question with the same paper title."""
    by_title = {q.get("paper_title"): q["evidence"][0]["docid"] for q in questions if q.get("evidence")}
    return {
        str(q["qid"]): q["evidence"][0]["docid"] if q.get("evidence") else by_title.get(q.get("paper_title"), "")
        for q in questions
    }


@dataclass
class Item:
    """One question with the sentences the reader gave the answer layer."""

    qid: str
    source: str  # "cloze", "dev", "dev2A", "dev2B", "own"
    group: str  # the paper (folds never split one)
    question: str
    answers: list[str]
    qtype: str  # the gold type ("number", "named", "yes_no", "unanswerable", ...) or the cloze span's type
    sentences: list[Sentence]
    absent: float = 0.0
    refs: list[tuple[str, int, int]] = field(default_factory=list)  # (docid, start, end) per sentence
    gold_ranges: list[tuple[str, int, int]] = field(default_factory=list)
    answerable: bool = True
    context: str | None = None  # the whole text the reader read


class Texts:
    """Document texts by (collection name or "scifact", docid), loaded once."""

    def __init__(self) -> None:
        self.cache: dict[tuple[str, str], str] = {}
        self.scifact: dict[str, str] | None = None

    def get(self, source: str, docid: str) -> str:
        key = (source, docid)
        if key not in self.cache:
            self.cache[key] = self._load(source, docid)
        return self.cache[key]

    def _load(self, source: str, docid: str) -> str:
        if source == "scifact":
            if self.scifact is None:
                from bench.answers.common import DATA

                rows = (json.loads(line) for line in (DATA / "scifact" / "corpus.jsonl").read_text().splitlines())
                self.scifact = {f"scifact-{r['doc_id']}": " ".join(r["abstract"]) for r in rows}
            return self.scifact.get(docid, "")
        from evidence.models import Document

        document = Document.objects.filter(collection__name=source, docid=docid).order_by("pk").first()
        return document.text if document else ""


def load_cloze(path: Path, limit: int | None = None) -> list[Item]:
    texts = Texts()
    items = []
    for line in path.read_text().splitlines()[:limit]:
        row = json.loads(line)
        sentences = [
            Sentence(s["text"], s["rank"], s["score"], s["probability"], s.get("coverage")) for s in row["sentences"]
        ]
        items.append(
            Item(
                row["qid"],
                "cloze",
                row["group"],
                row["question"],
                row["answers"],
                row["type"],
                sentences,
                row.get("absent", 0.0),
                context=" ".join(texts.get(row["context"][0], d) for d in row["context"][1])
                if "context" in row
                else None,
            )
        )
    return items


def load_real(evaluation_id: int, questions: Path, name: str) -> list[Item]:
    """Real questions of a papers evaluation, with the evidence sentences their runs read."""
    from evidence.eval.metrics_papers import locate_quote
    from evidence.models import Document, Evaluation

    evaluation = Evaluation.objects.get(pk=evaluation_id)
    raw = json.loads(questions.read_text())
    gold = {str(q["qid"]): q for q in raw}
    papers = paper_of(raw)
    texts: dict[str, str] = {}

    def text(docid: str) -> str:
        if docid not in texts:
            document = Document.objects.filter(collection=evaluation.collection, docid=docid).first()
            texts[docid] = document.text if document else ""
        return texts[docid]

    items = []
    for item in evaluation.items.select_related("run").order_by("pk"):
        q = gold.get(item.qid)
        if q is None or item.run is None:
            continue
        signals: dict[str, Any] = (item.run.answer or {}).get("signals") or {}
        rows = signals.get("evidence") or []
        sentences = [Sentence(text(r["docid"])[r["start"] : r["end"]], r["rank"], r["score"], r["probability"],
                              r.get("coverage")) for r in rows]  # fmt: skip
        group = papers.get(item.qid) or (rows[0]["docid"] if rows else item.qid)
        source = name
        if name == "dev2":
            source = "dev2B" if group in HELD_OUT else "dev2A"
        ranges = [(e["docid"], s, t) for e in q["evidence"] for s, t in locate_quote(text(e["docid"]), e["quote"])]
        items.append(
            Item(
                str(q["qid"]), source, f"{name}/{group}", str(q["question"]), [str(a) for a in q["answers"]],
                str(q.get("type", "")), sentences, float((signals.get("answer") or {}).get("absent", 0.0)),
                [(r["docid"], r["start"], r["end"]) for r in rows], ranges, q.get("type") != "unanswerable",
                " ".join(text(d) for d in dict.fromkeys(r["docid"] for r in rows)),
            )
        )  # fmt: skip
    return items
