"""Fetch the 10 papers of the held-out dev6 question set (bench/data/dev6.json) from Debian packages.

    python3 bench/data/fetch_dev6.py [OUT_DIR]          # default .data/dev6-papers/ (git-ignored)
    python3 bench/data/fetch_dev6.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a PDF shipped in a Debian 12 ("bookworm") package: nine are vignettes of r-cran-* packages (as
for dev3, dev4 and dev5), one comes from lammps-doc, which ships its PDFs gzip-compressed (`.pdf.gz`). The
download, unpacking, decompression and hash check are fetch_dev3.py's (`apt-get download PACKAGE=VERSION`,
falling back to the current version; run `apt-get update` once first; `dpkg-deb -x`); the SHA-256 below is
that of the (decompressed) PDF, which is what goes to OUT_DIR/<docid>.pdf. A file whose hash differs is not
kept: the script reports it and exits 1. PDFs are never committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download, decompression and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the (decompressed) PDF, pages)
PAPERS = {
    "sph_lammps_smooth_particle_hydrodynamics": (
        "lammps-doc", "20220106.git7586adbb6a+ds1-2", "usr/share/doc/lammps/html/PDF/SPH_LAMMPS_userguide.pdf.gz",
        "b9d9e536252561c5c314c1c3043e2cd68dbdc22c6bbec204d63b64f48ee83cfd", 23),
    "rmpfr_log1mexp_accuracy": (
        "r-cran-rmpfr", "0.9-1-1", "usr/lib/R/site-library/Rmpfr/doc/log1mexp-note.pdf",
        "70064c14ff029cfd8730d1157b9013c98dcbab7efa4fdadd65e9630557183690", 9),
    "maxstat_maximally_selected_rank_statistics": (
        "r-cran-maxstat", "0.7-25-2+b1", "usr/lib/R/site-library/maxstat/doc/maxstat.pdf",
        "79dda2fb17d9bb3c9ccf7acdd877fa3e2a9466b60d542c0e6f9a07c240ae0d8a", 9),
    "hypergeo_gauss_hypergeometric_function": (
        "r-cran-hypergeo", "1.2-13-4", "usr/lib/R/site-library/hypergeo/doc/hypergeometric.pdf",
        "538a82d0c9be6d7799e9814e1cf0d281a4bf83704cce727e4a9e80010521db32", 7),
    "bradleyterry2_pair_comparisons": (
        "r-cran-bradleyterry2", "1.1-2-2", "usr/lib/R/site-library/BradleyTerry2/doc/BradleyTerry.pdf",
        "d7df4206872d467602f11cc7ef937f3103b2b6b694571e0bc12308f0218730d4", 21),
    "actuar_risk_ruin_theory": (
        "r-cran-actuar", "3.3-2-1", "usr/lib/R/site-library/actuar/doc/risk.pdf",
        "bcdc4eb041e89b16abb6c76aad0d6cb90c1998ccefce27752511458f4ec36506", 21),
    "gmm_generalized_method_of_moments": (
        "r-cran-gmm", "1.7-1", "usr/lib/R/site-library/gmm/doc/gmm_with_R.pdf",
        "c1c783764e830ac754e456be4347f87a008c04cd0f0bf2616163fb423dbcbd86", 29),
    "qtl_multiple_qtl_models": (
        "r-cran-qtl", "1.58-1", "usr/lib/R/site-library/qtl/doc/new_multiqtl.pdf",
        "b9789fe6fe6014f8692ae06468591ac01d8efbc4a96d20d43e21f15d0d544cdd", 16),
    "sets_generalized_fuzzy_sets": (
        "r-cran-sets", "1.0.22+ds-1", "usr/lib/R/site-library/sets/doc/sets.pdf",
        "7390212a22ced22c7ec3978c7737aec0dd049bc5dcaece074b224db6ba39185f", 27),
    "clue_cluster_ensembles": (
        "r-cran-clue", "0.3-64-1", "usr/lib/R/site-library/clue/doc/clue.pdf",
        "6ecf7357012a9d2c880dfabb52f88b48c525bbc8566d5fb550bc0607ddfee4df", 29),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev6-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
