"""Every step of a run's timeline in words: its headline and its sentence, counted with the right noun.

The one place step text is written: the timeline, the live stream and Compare show these, and the template keeps
only what is not a sentence (hit lists, quotes, bars). No stored value reaches a researcher as Python ("['a']",
"None", "{...}"): what a step logged that these words do not know yet is shown through `plain`.
"""

from __future__ import annotations

from typing import Any

from .statuses import status_words

READERS = {
    "whole": ("Chose to read {papers} whole, sentence by sentence", "paper"),
    "papers": ("Chose to read {papers} paragraph by paragraph, by section", "paper"),
    "pairs": ("Chose to read {papers} together", "linked passage"),
}
MINED = {
    "worker": "on another worker",
    "here": "beside the search",
    "in place": "in this run, as no worker was free",
}
# Payload keys in words, for steps these words do not know yet.
KEY_WORDS = {"docids": "documents", "docid": "document", "elapsed_s": "seconds", "sub_questions": "sub-questions"}


def number(value: Any) -> str:
    """A count with thousands separators, a fraction with two decimals; anything else as words."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return plain(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def count(value: Any, word: str, many: str = "") -> str:
    """ "1 search", "2 searches": a count with its noun, plural unless it is one."""
    plural = many or (word + "es" if word.endswith(("s", "sh", "ch", "x", "z")) else word + "s")
    return f"{number(value)} {word if value == 1 else plural}"


def quoted(text: Any, limit: int = 90) -> str:
    text = " ".join(plain(text).split())
    return f"“{text[: limit - 1].rstrip()}…”" if len(text) > limit else f"“{text}”"


def plain(value: Any) -> str:
    """Any logged value in words: a list as its items, a mapping as its pairs, nothing as a dash."""
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return number(value)
    if isinstance(value, dict):
        return "; ".join(f"{key_words(k)} {plain(v)}" for k, v in value.items()) or "–"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(plain(v) for v in value) or "–"
    return str(value)


def key_words(key: Any) -> str:
    return KEY_WORDS.get(str(key), str(key).replace("_", " "))


def extra(payload: dict[str, Any]) -> list[tuple[str, str]]:
    """The rows shown for a step these words do not know: each logged key and value in words."""
    return [(key_words(key), plain(value)) for key, value in sorted(payload.items())]


def _documents(p: dict[str, Any]) -> int:
    return len(dict.fromkeys(p.get("docids") or []))


def headline(kind: str, p: dict[str, Any], title: str, searched: int | None = None) -> str:
    """Say what one step did, in the words a researcher uses (the template escapes it).

    `searched`, for a plan, is how many of its queries the run went on to search (None while that is not known).
    """
    name = quoted(title or p.get("docid", ""), 70)
    if kind == "status":
        return "Run started" if p.get("status") == "running" else f"Run {status_words(p.get('status')).lower()}"
    if kind == "plan":
        subs, queries = len(p.get("sub_questions") or []), len(p.get("queries") or [])
        words = f"Planned {count(subs, 'sub-question')} and {count(queries, 'search query', 'search queries')}"
        if searched is not None and searched < queries:
            words += f", {'none' if searched == 0 else number(searched)} of them searched"
        return words
    if kind == "search":
        shown = len(p.get("top") or [])
        if not shown:
            return f"Searched {quoted(p.get('query'))} — nothing matched"
        return f"Searched {quoted(p.get('query'))} — {number(p.get('total', 0))} ranked, top {shown} shown"
    if kind == "read_search_results":
        offset, shown = p.get("offset", 0), _documents(p)
        if not isinstance(offset, int) or not shown:
            return "Looked further down the results"
        ranks = f"rank {offset}" if shown == 1 else f"ranks {offset}–{offset + shown - 1}"
        return f"Looked further down the results: {ranks}"
    if kind == "read_document":
        lines = p.get("lines") or []
        where = f" (lines {lines[0]}–{lines[1]} of {lines[2]})" if len(lines) == 3 else ""
        return f"Opened {name}{where}"
    if kind == "tool_error":
        return f"A {plain(p.get('tool') or 'tool')} call failed"
    if kind == "judgment":
        probability = p.get("probability")
        if not isinstance(probability, (int, float)):
            return f"Judged {name}"
        verdict = "relevant" if probability >= 0.5 else "not relevant"
        return f"The fast reader judged {name} {verdict} ({round(100 * probability)}%)"
    if kind == "reading":
        return f"Reading {count(_documents(p), 'document')}…"
    if kind == "request_evidence":
        with_evidence = len({d.get("docid") for d in p.get("delivered") or [] if isinstance(d, dict)})
        return f"Read {count(_documents(p), 'document')}: evidence in {with_evidence}"
    if kind == "reader":
        return reader_headline(p)
    if kind == "judge_batches":
        batches = count(p.get("batches", 0), "batch")
        return f"The fast reader read in {batches} across {count(p.get('by_workers', 0), 'worker')}"
    if kind == "evidence":
        where = f" (p. {p['page']})" if p.get("page") else f" in {name}"
        return f"Found: {quoted(p.get('quote'))}{where}"
    if kind == "lead":
        return f"Lead: {name} may help"
    if kind == "mining":
        if p.get("mined") == "dropped":
            return "Evidence mining dropped (it would have ended after the answer was due)"
        return f"Evidence mining found {count(p.get('leads', 0), 'lead')}"
    if kind == "paper_reading":
        papers = count(p.get("papers", 0), "paper")
        return f"Read {papers} whole, sentence by sentence" if "sentences" in p else f"Read {papers} section by section"
    if kind == "paragraph_pair":
        return "Found two paragraphs that answer it together"
    if kind == "fallback":
        read = p.get("read")
        top = f"the top {count(read, 'document')}" if isinstance(read, int) else "the top documents"
        return f"No passage passed the fast reader: reading {top} directly"
    if kind == "steer":
        return "Time is nearly up: asked for the answer now"
    if kind == "citations_dropped":
        return f"Dropped {count(p.get('count', 0), 'citation')} naming documents with no evidence"
    if kind == "review":
        return f"Review, round {plain(p.get('round'))}: {'supported' if p.get('supported') else 'not yet supported'}"
    if kind == "answer":
        return "Answer written" + (f": {quoted(p.get('exact_answer'), 120)}" if p.get("exact_answer") else "")
    if kind == "finished":
        elapsed = p.get("elapsed_s")
        after = f" after {elapsed:.1f} s" if isinstance(elapsed, (int, float)) else ""
        return f"Finished{after} — {status_words(p.get('status')).lower()}"
    return kind.replace("_", " ").capitalize()


def reader_headline(p: dict[str, Any]) -> str:
    """The reader chosen for the question and what it reads, or a step the reader reports in its own words."""
    if p.get("message"):
        return plain(p["message"])
    sentence, noun = READERS.get(str(p.get("reader")), ("Chose a reader for {papers}", "document"))
    return sentence.format(papers=count(_documents(p), noun))


def detail(kind: str, p: dict[str, Any]) -> str:
    """The one sentence under a step's headline ('' for steps whose body is a list, a quote or a bar)."""
    if kind == "paper_reading":
        papers, picked = count(p.get("papers", 0), "paper"), p.get("picked", 0)
        if "sentences" in p:
            read = f"{count(p.get('sentences', 0), 'sentence')} of {papers}"
            return f"The fast reader read {read} and kept the best {count(picked, 'sentence')} as evidence."
        read = f"{count(p.get('paragraphs', 0), 'paragraph')} of {papers}"
        return f"The fast reader read {read} by section and kept {count(picked, 'paragraph')} as evidence."
    if kind == "paragraph_pair":
        return f"{count(p.get('sentences', 0), 'sentence')} chosen from the two."
    if kind == "mining":
        where = MINED.get(str(p.get("mined")), "")
        if p.get("mined") == "dropped":
            return "The next results were not read: the answer was due first."
        return f"The fast reader read the next results for the question's clues{' ' + where if where else ''}."
    if kind == "judge_batches":
        return "The documents were split so several readers work at once."
    if kind == "citations_dropped":
        return "The answer cited documents for which no span was delivered; those markers were removed."
    if kind == "steer":
        elapsed = p.get("elapsed_s")
        at = f" (at {elapsed:.1f} s)" if isinstance(elapsed, (int, float)) else ""
        return f"{plain(p.get('message'))}{at}" if p.get("message") else ""
    if kind == "review":
        confidence = p.get("confidence")
        return (
            f"The answer’s confidence after this round: {confidence:.2f}."
            if isinstance(confidence, (int, float))
            else ""
        )
    return ""
