"""Generated first pages laid out like real papers (headers, stamps, author blocks), with their true titles."""

from __future__ import annotations

from .pdfgen import Line, Run, make_pdf, text_line

BODY = [
    "Retrieval over long documents remains hard because relevant passages are scattered across sections",
    "and the signal of a single query term is diluted by thousands of unrelated words in the same file.",
    "We study this problem on three collections and report consistent gains over strong lexical baselines.",
    "Our analysis shows that most errors come from tables and figures whose text is extracted poorly.",
]


def _body(y: float, x: float = 72, size: float = 10) -> list[Line]:
    """Return an abstract heading and a few body lines starting at height y."""
    lines = [text_line(x, y, "Abstract", size + 2, "F2")]
    lines += [text_line(x, y - (i + 1) * (size * 1.3), text, size) for i, text in enumerate(BODY)]
    return lines


def _names(x: float, y: float, parts: list[tuple[str, str]], size: float, font: str = "F1") -> Line:
    """Return an author line: (name, superscript marker) pairs separated by commas."""
    runs: list[Run] = []
    for i, (name, mark) in enumerate(parts):
        runs.append(Run(("" if i == 0 else ", ") + name, size, font))
        if mark:
            runs.append(Run(mark, size * 0.7, font, size * 0.35))
    return Line(x, y, runs)


def _acl() -> tuple[bytes, str]:
    title = ["Evidence Retrieval for Claim Verification over", "Long Scientific Documents"]
    lines = [
        Line(
            72,
            40,
            [
                Run("Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics", 9, "F5"),
                Run(", pages 1120-1134", 9),
            ],
        ),
        text_line(72, 29, "August 11-16, 2024 (c)2024 Association for Computational Linguistics", 9),
        text_line(296, 56, "1120", 10.9),
        text_line(150, 760, title[0], 14.3, "F2"),
        text_line(200, 744, title[1], 14.3, "F2"),
        text_line(180, 710, "Jane Doe and John Smith and Priya Raman", 12, "F2"),
        text_line(200, 696, "Allen Institute for AI, Seattle, WA, USA", 12),
        text_line(210, 682, "{janed,johns,priyar}@allenai.org", 10, "F3"),
        *_body(640),
    ]
    return make_pdf([lines]), " ".join(title)


def _ceur() -> tuple[bytes, str]:
    title = "Temporal Drift in Web Search: Query Logs Under the LongEval Lens"
    lines = [
        text_line(
            72,
            770,
            "LongEval 2024: CLEF 2024 Working Notes, Proceedings of the Conference and Labs of the "
            "Evaluation Forum, September 09-12, 2024, Grenoble, France",
            7,
        ),
        text_line(72, 720, title, 16, "F4"),
        _names(72, 690, [("Maria Rossi", "1,*"), ("Luca Bianchi", "2"), ("Giulia Verdi", "1")], 11, "F4"),
        text_line(72, 670, "1 University of Padua, Via Gradenigo 6/b, 35131 Padua, Italy", 8, "F3"),
        text_line(72, 660, "2 Department of Information Engineering, University of Pisa, Italy", 8, "F3"),
        *_body(620, size=9),
        text_line(72, 60, "CEUR Workshop Proceedings (CEUR-WS.org), ISSN 1613-0073", 7),
    ]
    return make_pdf([lines], {"Title": "Microsoft Word - longeval_paper_v3.docx", "Author": "mrossi"}), title


def _arxiv() -> tuple[bytes, str]:
    title = ["Sparse and Dense Retrievers Disagree on Rare Entities:", "An Analysis with Controlled Queries"]
    lines = [
        Line(30, 250, [Run("arXiv:2105.04321v2 [cs.IR] 3 Jun 2021", 20, "F1")], rotated=True),
        text_line(110, 730, title[0], 17.2, "F1"),
        text_line(150, 708, title[1], 17.2, "F1"),
        text_line(140, 670, "Tomas Novak*   Elena Petrova*   Kenji Watanabe", 12),
        text_line(170, 655, "Charles University, Prague   Tohoku University, Sendai", 10),
        text_line(190, 642, "novak@ufal.mff.cuni.cz, kenji.w@tohoku.ac.jp", 9, "F3"),
        *_body(600),
    ]
    return make_pdf([lines], {"Title": ""}), " ".join(title)


def _journal_doi() -> tuple[bytes, str]:
    title = ["Citation Intent Classification Across", "Scientific Disciplines"]
    lines = [
        text_line(72, 770, "Journal of Informetrics 14 (2020) 101045", 8),
        text_line(72, 760, "doi:10.1016/j.joi.2020.101045", 8),
        text_line(72, 735, "RESEARCH ARTICLE", 10, "F4"),
        text_line(72, 705, title[0], 18, "F2"),
        text_line(72, 683, title[1], 18, "F2"),
        _names(72, 655, [("Anna Kowalski", "1"), ("Peter Novak", "2"), ("Mei Chen", "1,3")], 11),
        text_line(72, 638, "1 School of Information, University of Michigan, Ann Arbor, MI, USA", 8),
        text_line(72, 628, "2 Institute of Computer Science, Czech Academy of Sciences, Prague", 8),
        text_line(72, 618, "3 Department of Statistics, Peking University, Beijing, China", 8),
        text_line(72, 600, "Received 3 March 2020; Accepted 1 June 2020", 8),
        *_body(570),
    ]
    return make_pdf([lines], {"Title": "doi:10.1016/j.joi.2020.101045"}), " ".join(title)


def _same_size_authors() -> tuple[bytes, str]:
    title = "Measuring Faithfulness of Generated Answers with Span Overlap"
    lines = [
        text_line(100, 720, title, 14, "F2"),
        text_line(150, 700, "Wei Zhang, Hannah Mueller, and Carlos Perez", 14),
        text_line(170, 684, "Department of Computer Science, ETH Zurich", 12),
        text_line(200, 670, "wei.zhang@inf.ethz.ch", 10, "F3"),
        *_body(630),
    ]
    return make_pdf([lines], {"Title": "main"}), title


def _elsevier() -> tuple[bytes, str]:
    title = ["Query Performance Prediction for Conversational", "Search with Dense Retrievers"]
    lines = [
        text_line(200, 760, "Contents lists available at ScienceDirect", 8),
        text_line(170, 744, "Information Processing and Management", 14),
        text_line(190, 730, "journal homepage: www.elsevier.com/locate/ipm", 8),
        text_line(72, 690, title[0], 17, "F1"),
        text_line(72, 670, title[1], 17, "F1"),
        _names(72, 645, [("Sara Lee", "a,*"), ("Tom Hardy", "b"), ("Nina Costa", "a")], 11),
        text_line(72, 628, "a School of Computing, National University of Singapore, Singapore", 7),
        text_line(72, 620, "b Faculty of Engineering, University of Porto, Portugal", 7),
        *_body(590, size=9),
    ]
    return make_pdf([lines]), " ".join(title)


def _three_lines_untitled() -> tuple[bytes, str]:
    title = ["On the Robustness of Neural Rankers to", "Typos, Paraphrases and Adversarial", "Document Perturbations"]
    lines = [
        text_line(72, 740, title[0], 20, "F4"),
        text_line(72, 716, title[1], 20, "F4"),
        text_line(72, 692, title[2], 20, "F4"),
        text_line(72, 660, "Olga Ivanova  Marco Ferri  Lars Eriksen", 11, "F3"),
        text_line(72, 646, "March 2023", 10, "F3"),
        *_body(610),
    ]
    return make_pdf([lines], {"Title": "Untitled"}), " ".join(title)


def _lncs_metadata() -> tuple[bytes, str]:
    title = "Learning to Rank Passages for Systematic Reviews"
    lines = [
        text_line(130, 700, title, 14, "F2"),
        text_line(200, 675, "Alice Martin1 and Bob Stone2", 10),
        text_line(180, 660, "1 University of Glasgow, Glasgow, UK", 9),
        text_line(190, 649, "alice.martin@glasgow.ac.uk", 9, "F3"),
        *_body(610, size=9),
    ]
    return make_pdf([lines], {"Title": title}), title


def _title_subtitle() -> tuple[bytes, str]:
    lines = [
        text_line(72, 730, "ColBERT-Lite:", 22, "F4"),
        text_line(72, 705, "Efficient Passage Search via Late Interaction on a Budget", 16, "F4"),
        text_line(72, 675, "Ravi Kumar, Stanford University", 11, "F3"),
        text_line(72, 662, "ravi@cs.stanford.edu", 10, "F3"),
        *_body(630),
    ]
    return make_pdf([lines], {"Title": "colbert_lite_final.pdf"}), (
        "ColBERT-Lite: Efficient Passage Search via Late Interaction on a Budget"
    )


def synthetic_papers() -> list[tuple[str, bytes, str]]:
    """Return (file name, PDF bytes, true title) for every generated first page."""
    makers = {
        "acl_footer.pdf": _acl,
        "ceur_longeval.pdf": _ceur,
        "arxiv_stamp.pdf": _arxiv,
        "journal_doi.pdf": _journal_doi,
        "same_size_authors.pdf": _same_size_authors,
        "elsevier_header.pdf": _elsevier,
        "three_line_untitled.pdf": _three_lines_untitled,
        "lncs_metadata.pdf": _lncs_metadata,
        "title_subtitle.pdf": _title_subtitle,
    }
    return [(name, *make()) for name, make in makers.items()]
