"""Check PDF bylines against the real ones: `python bench/pdf_bylines.py`.

Over every real PDF in ../shared/data (the truth and where it comes from: tests/ingest/real_bylines.py), prints one
row per PDF and the totals: titles right (case and punctuation aside), titles with an author's name glued on (0
wanted), authors (family names as a set: exact matches, and precision and recall over all names), years right.
Its exit code is 1 when a title is wrong or has a name glued on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def glued_names(title: str, true_title: str, families: tuple[str, ...]) -> list[str]:
    """Return the authors' family names the title prints that the true title does not."""
    from evidence.names import fold

    printed, true = f" {fold(title)} ", f" {fold(true_title)} "
    return [name for name in families if f" {fold(name)} " in printed and f" {fold(name)} " not in true]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    import django

    django.setup()
    from evidence.ingest.parsers.pdf import parse_pdf
    from evidence.names import name_parts
    from tests.ingest.real_bylines import family_set, known_bylines
    from tests.ingest.real_titles import comparable

    truths = known_bylines()
    titles_right = glued = authors_exact = years_right = years_known = found = true_names = hits = 0
    for path, truth in truths.items():
        document = parse_pdf(path.name, path.read_bytes())[0]
        meta = document.metadata
        title_ok = comparable(document.title) == comparable(truth.title)
        names_glued = glued_names(document.title, truth.title, truth.families)
        predicted = family_set([name_parts(a)[0] for a in meta.get("authors", [])])
        expected = family_set(truth.families)
        year = meta.get("year")
        titles_right += title_ok
        glued += bool(names_glued)
        authors_exact += predicted == expected
        found, true_names, hits = found + len(predicted), true_names + len(expected), hits + len(predicted & expected)
        if truth.year is not None:
            years_known += 1
            years_right += year == truth.year
        marks = "".join(
            [
                "T" if title_ok else "t",
                "A" if predicted == expected else "a",
                "Y" if truth.year is None or year == truth.year else "y",
            ]
        )
        print(f"{marks} {path.stem[:34]:34} {document.title[:60]}")
        print(f"{'':4}authors [{meta.get('authors_source', '-')}] {', '.join(meta.get('authors', [])) or '-'}")
        if predicted != expected:
            print(f"{'':4}  truth: {', '.join(truth.families)}")
        print(f"{'':4}year [{meta.get('year_source', '-')}] {year or '-'}  (truth {truth.year or 'unknown'})")
        if not title_ok:
            print(f"{'':4}title truth: {truth.title}")
        if names_glued:
            print(f"{'':4}AUTHOR NAMES GLUED ONTO THE TITLE: {', '.join(names_glued)}")
    n = len(truths)
    precision = hits / found if found else 0.0
    recall = hits / true_names if true_names else 0.0
    print(f"\n{n} PDFs")
    print(f"titles right           {titles_right} of {n}")
    print(f"titles with a name     {glued} of {n} (0 wanted)")
    print(f"authors exactly right  {authors_exact} of {n} (family names as a set)")
    print(f"author names           precision {precision:.3f} ({hits}/{found}), recall {recall:.3f}", end="")
    print(f" ({hits}/{true_names})")
    print(f"years right            {years_right} of {years_known} (PDFs whose year is known)")
    sys.exit(0 if titles_right == n and glued == 0 else 1)


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    main()
