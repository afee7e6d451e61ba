"""Fetch the 10 papers of the held-out dev9 question set (bench/data/dev9.json) from Debian packages.

    python3 bench/data/fetch_dev9.py [OUT_DIR]          # default .data/dev9-papers/ (git-ignored)
    python3 bench/data/fetch_dev9.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a PDF shipped in a Debian 12 ("bookworm") package: seven are vignettes of r-cran-* packages
(under usr/lib/R/site-library), three are guides shipped by program or documentation packages of other fields
(sequence clustering, MPI, SNP detection; under usr/share/doc, two of them gzipped, `.pdf.gz`, decompressed
before the hash check). The download, unpacking and hash check are fetch_dev3.py's (`apt-get download
PACKAGE=VERSION`, falling back to the current version; run `apt-get update` once first; `dpkg-deb -x`). A file
whose SHA-256 differs from the one below is not kept: the script reports it and exits 1. PDFs are never
committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "formula_extended_model_formulas": (
        "r-cran-formula", "1.2-4-1", "usr/lib/R/site-library/Formula/doc/Formula.pdf",
        "6ec44e0cf7900753885dc2ee5812fa4dbea2f0c10d896efcbd15653acd907756", 12),
    "spacetime_spatiotemporal_data_classes": (
        "r-cran-spacetime", "1.2-8+dfsg-1", "usr/lib/R/site-library/spacetime/doc/jss816.pdf",
        "c58e0aa1674d1330982a5a7b30e4d762a108861f3298f34caedbbac923d70ffe", 32),
    "bbmle_maximum_likelihood_estimation": (
        "r-cran-bbmle", "1.0.25-2", "usr/lib/R/site-library/bbmle/doc/mle2.pdf",
        "c5c381fa0b04db51b206fee9dee7b761a5f518bb34012c8553441e452ad513a9", 21),
    "diptest_dip_distributions_pvalues": (
        "r-cran-diptest", "0.76-0-1+b1", "usr/lib/R/site-library/diptest/doc/diptest-issues.pdf",
        "c0be2776c557c1eae223d5d24fdea30ad7c711783ec263af25284f9f94a9ca56", 7),
    "intervals_package_overview": (
        "r-cran-intervals", "0.15.2-1+b1", "usr/lib/R/site-library/intervals/doc/intervals_overview.pdf",
        "6fb9e349b58e234cfd34498288f9585ed8911c2fc1a4203f363d8976fbc04b7f", 10),
    "tm_text_mining_introduction": (
        "r-cran-tm", "0.7-11-1", "usr/lib/R/site-library/tm/doc/tm.pdf",
        "ac08091170c41a1f94ed087848124768d17fafa5ace2afa9d6846778797bedfb", 8),
    "glmmtmb_getting_started": (
        "r-cran-glmmtmb", "1.1.5+dfsg-4", "usr/lib/R/site-library/glmmTMB/doc/glmmTMB.pdf",
        "441e500a3cff8a77dab51d75d09b5ec7f607330fb3d808044bec0664df56756f", 8),
    "cdhit_sequence_clustering_guide": (
        "cd-hit", "4.8.1-4", "usr/share/doc/cd-hit/cdhit-user-guide.pdf",
        "a5d8d8c8e4c892f28fcc425c29334e3c62afc7c46ceded08fbbbe5b043290cf5", 35),
    "mpich_users_guide": (
        "mpich-doc", "4.0.2-3", "usr/share/doc/mpich/user.pdf.gz",
        "24ce6e8294a8e49f263c1d4ba73ab6b981491c540980ea1173b8cc83aeda0f5c", 16),
    "discosnp_reference_free_snp_detection": (
        "discosnp", "1:2.6.2-2", "usr/share/doc/discosnp/discoSnp_user_guide.pdf.gz",
        "aee271c89991caa02c9ab764bbe2d406a927aafc45138fce65ab386c4e4fa42f", 8),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev9-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
