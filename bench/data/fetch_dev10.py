"""Fetch the 10 papers of the held-out dev10 question set (bench/data/dev10.json) from Debian packages.

    python3 bench/data/fetch_dev10.py [OUT_DIR]          # default .data/dev10-papers/ (git-ignored)
    python3 bench/data/fetch_dev10.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a PDF shipped in a Debian 12 ("bookworm") package: four are vignettes of r-cran-* packages
(under usr/lib/R/site-library), six are manuals and user guides shipped by program or documentation packages
of other fields (sparse matrix ordering, nearest neighbour search, phylogenetic model selection, C/OCaml
interfacing, LTR retrotransposon detection, crystal space groups; under usr/share/doc, three of them gzipped,
`.pdf.gz`, decompressed before the hash check). The download, unpacking and hash check are fetch_dev3.py's
(`apt-get download PACKAGE=VERSION`, falling back to the current version; run `apt-get update` once first;
`dpkg-deb -x`). A file whose SHA-256 differs from the one below is not kept: the script reports it and exits 1.
PDFs are never committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "jsonlite_json_r_mapping": (
        "r-cran-jsonlite", "1.8.4+dfsg-1", "usr/lib/R/site-library/jsonlite/doc/json-mapping.pdf",
        "a35b3516ca6a1cd68bcefbb4b785ba44ebbff793d2aba2abb2784278e74a422a", 29),
    "elliptic_modular_functions": (
        "r-cran-elliptic", "1.4-0-2", "usr/lib/R/site-library/elliptic/doc/ellipticpaper.pdf",
        "4f8adbb85cc4ca69e0d9d5a17c1be2bbffff00a3409b4d64bcc36641a70c9a9e", 24),
    "bms_bayesian_model_averaging": (
        "r-cran-bms", "0.3.5-1", "usr/lib/R/site-library/BMS/doc/bmsmanual.pdf",
        "641377620663823ecb40e0525a79417f2f52d590d28c42a912ee0f5fbc836cc0", 30),
    "expint_exponential_integral": (
        "r-cran-expint", "0.1-8-1", "usr/lib/R/site-library/expint/doc/expint.pdf",
        "cdc0728a402824934294df3c90a0f91152838e3b1c05ecad5e95226b12e83cce", 9),
    "amd_minimum_degree_ordering": (
        "libsuitesparse-doc", "1:5.12.0+dfsg-2", "usr/share/doc/libsuitesparse-dev/AMD_UserGuide.pdf",
        "25dccc0fc4824104bd87fba726d963f3aea9cf2abe978af1882ef8bf61ab39c6", 18),
    "ann_nearest_neighbor_manual": (
        "libann-dev", "1.1.2+doc-9+b1", "usr/share/doc/libann-dev/ANNmanual.pdf",
        "add5bd158dc022af17d2e9588a467444d9c625e8bb333deb816cb0e182d5e0a3", 36),
    "jmodeltest_model_selection_manual": (
        "jmodeltest", "2.1.10+dfsg-12", "usr/share/doc/jmodeltest/manual.pdf",
        "0c87873f60567480ca6e6a247589902fc004416f12285943d0c10b3aab0258ce", 28),
    "camlidl_users_manual": (
        "camlidl-doc", "1.04-5", "usr/share/doc/camlidl/camlidl-1.04.doc.pdf",
        "29df28a0ebbf3677ccc1b20ff36cf66a0a2b32ca61525f48df6da7f31c600e6f", 26),
    "ltrharvest_retrotransposon_detection": (
        "genometools-doc", "1.6.2+ds-3", "usr/share/doc/genometools/ltrharvest.pdf.gz",
        "382599bff458f6c6cb67976d81c804a907406f1add6e068d9d336d3ebd95c2ff", 13),
    "elk_spacegroup_manual": (
        "elk-lapw", "8.4.30-1", "usr/share/doc/elk-lapw/spacegroup.pdf.gz",
        "02c97b0d3ba90722a4b0d98dce4c6c9ffc415a08283b19c1cba48942c50dec44", 18),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev10-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
