"""Features of (goal, block) and (goal, unit) pairs for the local judge; the one place they are listed.

Every feature is computed against the *candidate set*: all units (and their blocks) judged for one
goal in one batch, so BM25 idf, z-scores and gaps are relative to what the judge is looking at.

Block features (sentences, paragraphs), BLOCK_FEATURES:
  cos, cos_z, cos_gap (to the best block anywhere), cos_doc_gap and cos_doc_rank (within its unit),
  neighbor_cos (best adjacent block), bm25_mm, bm25_z, bm25_doc_gap (BM25 of the goal against the
  block, Lucene k1=0.9 b=0.4, idf over the candidate blocks), overlap and idf_overlap (share of goal
  terms present), num_match and has_numbers (numbers of the goal found), ent_overlap (capitalised
  goal entities found), log_len (words), position, pos_rel, is_first, is_last, n_blocks (log),
  unit_cos, unit_score (min-max retrieval score), unit_rank (log), unit_maxcos_gap, unit_bm25,
  title_in_goal, title_in_top (the bridge cue: this unit's title appears in the best other unit),
  section-name flags sec_* (introduction, related work, conclusion, abstract, experiments or
  results, data, baselines, method or model, appendix, analysis or discussion), unit_score_raw (the
  unit's score as given: System 1's p_d when known, else the fused retrieval score in [0, 1]),
  bigram_overlap (share of goal term bigrams found), and findings cues stat_cue (p-values, CI, %),
  result_cue (increase, reduce, associated, ...) and conclusion_cue ("These results ...").
Unit features (documents, passages), UNIT_FEATURES: the unit's cosine, retrieval score and rank,
  BM25 of the goal against the whole unit, the best and top-2 block cosines (raw, z-score, gap),
  the best block BM25, lexical, number and entity overlap, length, title overlap, the title string in
  the goal and in the best other unit (the bridge cue of two-hop questions).
Stacked block features, STACKED_FEATURES: a head may append the unit head's probability and its rank.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from evidence.retrieval import minmax_array as minmax
from evidence.text import terms

from .types import Unit

SECTIONS: dict[str, tuple[str, ...]] = {
    "sec_intro": ("introduction", "intro", "motivation"),
    "sec_related": ("related work", "background", "previous work", "prior work"),
    "sec_conclusion": ("conclusion", "future work", "summary"),
    "sec_abstract": ("abstract",),
    "sec_results": ("experiment", "result", "evaluation", "performance"),
    "sec_data": ("data", "corpus", "corpora", "annotation", "collection"),
    "sec_baseline": ("baseline", "comparison", "setup", "settings"),
    "sec_method": ("method", "model", "approach", "architecture", "system", "framework"),
    "sec_appendix": ("appendix", "supplementary"),
    "sec_analysis": ("analysis", "discussion", "error", "ablation"),
}
BLOCK_FEATURES: tuple[str, ...] = (
    "cos",
    "cos_z",
    "cos_gap",
    "cos_doc_gap",
    "cos_doc_rank",
    "neighbor_cos",
    "bm25_mm",
    "bm25_z",
    "bm25_doc_gap",
    "overlap",
    "idf_overlap",
    "num_match",
    "has_numbers",
    "ent_overlap",
    "log_len",
    "position",
    "pos_rel",
    "is_first",
    "is_last",
    "n_blocks",
    "unit_cos",
    "unit_score",
    "unit_rank",
    "unit_maxcos_gap",
    "unit_bm25",
    "title_in_goal",
    "title_in_top",
    *SECTIONS,
    "unit_score_raw",
    "bigram_overlap",
    "stat_cue",
    "result_cue",
    "conclusion_cue",
)
UNIT_FEATURES: tuple[str, ...] = (
    "unit_cos",
    "unit_cos_z",
    "unit_cos_gap",
    "score_mm",
    "score_z",
    "log_rank",
    "inv_rank",
    "bm25_mm",
    "bm25_z",
    "maxcos",
    "maxcos_z",
    "maxcos_gap",
    "top2cos",
    "max_block_bm25",
    "overlap",
    "idf_overlap",
    "num_match",
    "ent_overlap",
    "log_len",
    "title_in_goal",
    "title_str_in_goal",
    "title_in_top",
)
# Stacked block features: the unit head's probability for the block's unit and its rank in the set.
STACKED_FEATURES: tuple[str, ...] = ("unit_p", "unit_p_rank")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")
_ENTITY = re.compile(r"\b(?:[A-Z][\w\-]*[A-Za-z0-9]|[a-z]+[A-Z0-9][\w\-]*)\b")
_WORD = re.compile(r"\S+")
# Cues of a findings sentence (what evidence usually looks like), independent of the goal.
_STAT = re.compile(r"\b[pP]\s*[<=>]|%|\b(?:CI|OR|HR|RR|SD|SE)\b|\d+\s*(?:fold|times)\b|\bsignifican", re.I)
_RESULT = re.compile(
    r"\b(?:increas|decreas|reduc|improv|associat|correlat|higher|lower|greater|fewer|more likely|"
    r"less likely|induc|inhibit|promot|prevent|enhanc|impair|result(?:s|ed)? in|led to|caus)",
    re.I,
)
_CONCLUSION = re.compile(
    r"^(?:these|our|the) (?:results|findings|data)|^(?:we|in) conclu|^taken together|"
    r"^thus\b|^overall\b|^collectively\b|^this (?:study|work) (?:shows|demonstrates|suggests)",
    re.I,
)


def numbers(text: str) -> set[str]:
    """Return the numbers written in a text."""
    return {m.group().replace(",", "") for m in _NUMBER.finditer(text)}


def entities(text: str) -> set[str]:
    """Return lower-cased capitalised or mixed-case words, skipping a capitalised first word."""
    found = {m.group() for m in _ENTITY.finditer(text)}
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    if first[:1].isupper() and first[1:].islower():
        found.discard(first.strip(".,;:!?\"'()"))
    return {e.lower() for e in found}


def zscore(x: np.ndarray) -> np.ndarray:
    """Standardise within the candidate set; a constant set maps to zeros."""
    sd = float(x.std()) if len(x) else 0.0
    return (x - x.mean()) / sd if sd > 1e-9 else np.zeros_like(x)


def bm25(goal_terms: Sequence[str], docs: Sequence[Sequence[str]], k1: float = 0.9, b: float = 0.4) -> np.ndarray:
    """Return Lucene BM25 of the goal against each token list, idf over the lists themselves."""
    return weighted_bm25(Counter(goal_terms), docs, k1, b)


def weighted_bm25(
    weights: Mapping[str, float], docs: Sequence[Sequence[str]], k1: float = 0.9, b: float = 0.4
) -> np.ndarray:
    """Return Lucene BM25 of weighted query terms against each token list, idf over the lists themselves."""
    n = len(docs)
    out = np.zeros(n)
    if not n or not weights:
        return out
    counts = [Counter(d) for d in docs]
    lengths = np.array([len(d) for d in docs], dtype=float)
    norm = k1 * (1 - b + b * lengths / max(lengths.mean(), 1e-9))
    for term, weight in weights.items():
        tf = np.array([c.get(term, 0) for c in counts], dtype=float)
        df = int(np.count_nonzero(tf))
        if df:
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            out += weight * idf * tf / (tf + norm)
    return out


def lexical(goal: str, texts: Sequence[str], token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """Return (overlap, idf_overlap, num_match, has_numbers, ent_overlap) per text as an (n, 5) array."""
    gset = set(terms(goal))
    n = len(texts)
    df = Counter(t for toks in token_lists for t in set(toks) & gset)
    idf = {t: math.log(1 + (n + 1) / (df.get(t, 0) + 0.5)) for t in gset}
    total_idf = sum(idf.values()) or 1.0
    gnums, gents = numbers(goal), entities(goal)
    out = np.zeros((n, 5))
    for i, (text, toks) in enumerate(zip(texts, token_lists, strict=True)):
        present = gset.intersection(toks)
        out[i, 0] = len(present) / len(gset) if gset else 0.0
        out[i, 1] = sum(idf[t] for t in present) / total_idf
        if gnums:
            out[i, 2] = len(gnums & numbers(text)) / len(gnums)
            out[i, 3] = 1.0
        if gents:
            low = text.lower()
            out[i, 4] = sum(1 for e in gents if e in low) / len(gents)
    return out


def title_key(title: str) -> str:
    """Return a title without a trailing parenthetical, lower-cased ("Ed Wood (film)" -> "ed wood")."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip().lower()


def section_flags(label: str) -> list[float]:
    """Return one 0/1 flag per SECTIONS entry for a section name."""
    low = label.lower()
    return [float(any(k in low for k in keys)) for keys in SECTIONS.values()]


def _cosines(goal_vec: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Return the dot products of unit vectors with the goal."""
    return vectors @ goal_vec if len(vectors) else np.zeros(0)


def unit_context(units: Sequence[Unit]) -> tuple[np.ndarray, np.ndarray]:
    """Return (min-max retrieval score, log rank) per unit; missing scores count as 0, missing ranks as last."""
    scores = np.array([u.score if u.score is not None else 0.0 for u in units], dtype=float)
    ranks = np.array([u.rank if u.rank is not None else len(units) for u in units], dtype=float)
    return minmax(scores), np.log1p(ranks)


def block_features(
    goal: str,
    goal_vec: np.ndarray,
    units: Sequence[Unit],
    block_vecs: Sequence[np.ndarray],
    unit_vecs: np.ndarray,
) -> np.ndarray:
    """Return the (n_blocks, len(BLOCK_FEATURES)) matrix for every block of every unit, in order."""
    sizes = [len(u.blocks) for u in units]
    texts = [b.text for u in units for b in u.blocks]
    toks = [terms(t) for t in texts]
    vecs = np.concatenate(block_vecs) if block_vecs else np.zeros((0, len(goal_vec)), dtype=np.float32)
    cos = _cosines(goal_vec, vecs)
    gterms = terms(goal)
    bm = minmax(bm25(gterms, toks))
    lex = lexical(goal, texts, toks)
    u_cos = _cosines(goal_vec, unit_vecs)
    u_score, u_rank = unit_context(units)
    u_bm = minmax(bm25(gterms, [t for u in units for t in [terms(u.title + " " + u.text)]]))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    doc_max = np.array([cos[s:e].max() if e > s else 0.0 for s, e in itertools.pairwise(starts)])
    bm_max = np.array([bm[s:e].max() if e > s else 0.0 for s, e in itertools.pairwise(starts)])
    best_unit = int(np.argmax(doc_max)) if len(doc_max) else -1
    gset = set(gterms)
    gbigrams = set(itertools.pairwise(gterms))
    rows = []
    for ui, unit in enumerate(units):
        s, e = starts[ui], starts[ui + 1]
        ucos = cos[s:e]
        order = np.argsort(-ucos, kind="stable")
        rank_in_doc = np.empty(len(ucos))
        rank_in_doc[order] = np.arange(len(ucos))
        title_terms = set(terms(unit.title))
        title_in_goal = len(title_terms & gset) / len(title_terms) if title_terms else 0.0
        other = best_unit if best_unit != ui else (int(np.argsort(-doc_max)[1]) if len(units) > 1 else -1)
        top_text = set(terms(units[other].text)) if other >= 0 else set()
        title_in_top = len(title_terms & top_text) / len(title_terms) if title_terms and other >= 0 else 0.0
        n = e - s
        for j, block in enumerate(unit.blocks):
            k = s + j
            nb = [cos[k - 1]] if j > 0 else []
            if j + 1 < n:
                nb.append(cos[k + 1])
            rows.append(
                [
                    cos[k],
                    0.0,
                    0.0,
                    cos[k] - doc_max[ui],
                    math.log1p(rank_in_doc[j]),
                    max(nb) if nb else 0.0,
                    bm[k],
                    0.0,
                    bm[k] - bm_max[ui],
                    *lex[k],
                    math.log1p(len(_WORD.findall(block.text))),
                    min(block.position, 30),
                    block.position / max(n - 1, 1),
                    float(j == 0),
                    float(j == n - 1),
                    math.log1p(n),
                    u_cos[ui],
                    u_score[ui],
                    u_rank[ui],
                    doc_max[ui] - doc_max.max(),
                    u_bm[ui],
                    title_in_goal,
                    title_in_top,
                    *section_flags(block.label),
                    unit.score if unit.score is not None else 0.0,
                    _bigram_share(gbigrams, toks[k]),
                    float(bool(_STAT.search(block.text))),
                    float(bool(_RESULT.search(block.text))),
                    float(bool(_CONCLUSION.search(block.text))),
                ]
            )
    out = np.asarray(rows, dtype=float).reshape(len(rows), len(BLOCK_FEATURES))
    if len(out):
        out[:, 1] = zscore(cos)
        out[:, 2] = cos - cos.max()
        out[:, 7] = zscore(bm25(gterms, toks))
    return out


def _bigram_share(goal_bigrams: set[tuple[str, str]], tokens: Sequence[str]) -> float:
    """Return the share of the goal's term bigrams that occur in the tokens."""
    if not goal_bigrams:
        return 0.0
    return len(goal_bigrams & set(itertools.pairwise(tokens))) / len(goal_bigrams)


def unit_features(
    goal: str,
    goal_vec: np.ndarray,
    units: Sequence[Unit],
    block_vecs: Sequence[np.ndarray],
    unit_vecs: np.ndarray,
) -> np.ndarray:
    """Return the (n_units, len(UNIT_FEATURES)) matrix for the candidate units, in order."""
    texts = [f"{u.title} {u.text}" for u in units]
    toks = [terms(t) for t in texts]
    gterms = terms(goal)
    u_cos = _cosines(goal_vec, unit_vecs)
    scores = np.array([u.score if u.score is not None else 0.0 for u in units], dtype=float)
    ranks = np.array([u.rank if u.rank is not None else len(units) for u in units], dtype=float)
    raw_bm = bm25(gterms, toks)
    all_blocks = [terms(b.text) for u in units for b in u.blocks]
    block_bm = minmax(bm25(gterms, all_blocks))
    lex = lexical(goal, texts, toks)
    maxcos, top2, max_bbm = np.zeros(len(units)), np.zeros(len(units)), np.zeros(len(units))
    k = 0
    for i, vecs in enumerate(block_vecs):
        c = np.sort(_cosines(goal_vec, vecs))[::-1]
        n = len(c)
        maxcos[i] = c[0] if n else u_cos[i]
        top2[i] = c[:2].mean() if n else u_cos[i]
        max_bbm[i] = block_bm[k : k + n].max() if n else 0.0
        k += n
    gset = set(gterms)
    title_in_goal = np.array([len(set(terms(u.title)) & gset) / max(len(set(terms(u.title))), 1) for u in units])
    log_len = np.array([math.log1p(len(_WORD.findall(t))) for t in texts])
    names = [title_key(u.title) for u in units]
    low_goal = goal.lower()
    in_goal = np.array([float(bool(n) and n in low_goal) for n in names])
    best = np.argsort(-maxcos, kind="stable")
    in_top = np.zeros(len(units))
    for i, name in enumerate(names):
        other = best[0] if best[0] != i else (best[1] if len(best) > 1 else -1)
        in_top[i] = float(bool(name) and other >= 0 and name in units[other].text.lower())
    cols = [
        u_cos,
        zscore(u_cos),
        u_cos - (u_cos.max() if len(u_cos) else 0.0),
        minmax(scores),
        zscore(scores),
        np.log1p(ranks),
        1.0 / ranks.clip(1),
        minmax(raw_bm),
        zscore(raw_bm),
        maxcos,
        zscore(maxcos),
        maxcos - (maxcos.max() if len(maxcos) else 0.0),
        top2,
        max_bbm,
        lex[:, 0],
        lex[:, 1],
        lex[:, 2],
        lex[:, 4],
        log_len,
        title_in_goal,
        in_goal,
        in_top,
    ]
    return np.column_stack(cols) if len(units) else np.zeros((0, len(UNIT_FEATURES)))
