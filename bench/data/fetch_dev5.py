"""Fetch the 10 papers of the held-out dev5 question set (bench/data/dev5.json) from Debian packages.

    python3 bench/data/fetch_dev5.py [OUT_DIR]          # default .data/dev5-papers/ (git-ignored)
    python3 bench/data/fetch_dev5.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a PDF shipped in a Debian 12 ("bookworm") package: six are vignettes of r-cran-* packages (as
for dev3 and dev4), four come from the documentation packages of other scientific software (dynare-doc,
lammps-doc, graphviz-doc), which ship their PDFs gzip-compressed (`.pdf.gz`). The download, unpacking,
decompression and hash check are fetch_dev3.py's (`apt-get download PACKAGE=VERSION`, falling back to the
current version; run `apt-get update` once first; `dpkg-deb -x`); the SHA-256 below is that of the
decompressed PDF, which is what goes to OUT_DIR/<docid>.pdf. A file whose hash differs is not kept: the
script reports it and exits 1. PDFs are never committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download, decompression and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the (decompressed) PDF, pages)
PAPERS = {
    "dynare_first_order_solution": (
        "dynare-doc", "5.3-1", "usr/share/doc/dynare/dr.pdf.gz",
        "4590442194e1d2207bb25991992cffe5643d59f8f83e529fbb902c9bbd44fd9c", 9),
    "oxdna_coarse_grained_dna": (
        "lammps-doc", "20220106.git7586adbb6a+ds1-2", "usr/share/doc/lammps/html/PDF/CG-DNA.pdf.gz",
        "0a178d00fa824638ef67f9ad728a78d4fef6772fde16448b6ad7703076a06be4", 12),
    "peridynamics_lammps_overview": (
        "lammps-doc", "20220106.git7586adbb6a+ds1-2", "usr/share/doc/lammps/html/PDF/PDLammps_overview.pdf.gz",
        "a341e11688d265cf8590ff14c9b88ee01a52e87778b0014d730da967be4c58d5", 8),
    "neato_undirected_graph_layout": (
        "graphviz-doc", "2.42.2-7+deb12u1", "usr/share/doc/graphviz/pdf/neatoguide.pdf.gz",
        "87b9788e8388b144ac313052524b56f26e7053cbd5a24f18ffa7af75403bf4af", 11),
    "e1071_svm_libsvm_interface": (
        "r-cran-e1071", "1.7-13-1", "usr/lib/R/site-library/e1071/doc/svmdoc.pdf",
        "be8a045b09f32471e0495f5796a5b696b27707dfa73a3611f9e42918e6a51f53", 8),
    "fitdistrplus_distribution_fitting": (
        "r-cran-fitdistrplus", "1.1-8-1", "usr/lib/R/site-library/fitdistrplus/doc/paper2JSS.pdf",
        "873307d5c87cc73699dc760f74a9dff10e811ec6b111ffaaf05be3a77760c522", 22),
    "hexbin_hexagon_binning": (
        "r-cran-hexbin", "1.28.2-1", "usr/lib/R/site-library/hexbin/doc/hexagon_binning.pdf",
        "43e15d8b05b5fac95d2aaeb15f8225783102242d54f3bfe85d54b71d4e9dc6da", 11),
    "pls_partial_least_squares": (
        "r-cran-pls", "2.8-1-1", "usr/lib/R/site-library/pls/doc/pls-manual.pdf",
        "ef028434b390676ebed7018ce7e3af50f43a004386d921683f980375a68bec7f", 24),
    "sandwich_hc_hac_covariance": (
        "r-cran-sandwich", "3.0-2-1", "usr/lib/R/site-library/sandwich/doc/sandwich.pdf",
        "ab762c22ff2d6b0c26e6e642171f116a11ec4dcfe58821148bdf41856f293a1b", 21),
    "seriation_ordering_objects": (
        "r-cran-seriation", "1.4.1-1", "usr/lib/R/site-library/seriation/doc/seriation.pdf",
        "756b375ad97a7ea0df3e4036755c9d40c207fb77685357648091387a7634b8d0", 37),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev5-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
