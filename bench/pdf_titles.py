"""Check PDF titles against the real ones: `python bench/pdf_titles.py [--lines]`.

The truth: `paper_title` of realqa dev2's questions (their evidence names the docid, which is the file's stem) and
the `title` of the S2ORC JSON beside each PDF in `../shared/data/papers/pdf/`. Prints each PDF's title, where it
came from, and whether it matches (case and punctuation aside); its exit code is 1 when one is wrong.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.ingest.real_titles import comparable, known_titles  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    import django

    django.setup()
    from evidence.ingest.parsers.pdf import parse_pdf

    right = 0
    titles = known_titles()
    for path, truth in titles.items():
        document = parse_pdf(path.name, path.read_bytes())[0]
        ok = comparable(document.title) == comparable(truth)
        right += ok
        source = document.metadata.get("title_source", "?")
        print(f"{'ok ' if ok else 'BAD'} {path.name[:34]:34} [{source}] {document.title}")
        if not ok:
            print(f"{'':4}{'truth':34}   {truth}")
    print(f"\n{right} of {len(titles)} titles right")
    sys.exit(0 if right == len(titles) else 1)


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchapp.settings")
    main()
