"""Fetch the 10 papers of the held-out dev7 question set (bench/data/dev7.json) from Debian packages.

    python3 bench/data/fetch_dev7.py [OUT_DIR]          # default .data/dev7-papers/ (git-ignored)
    python3 bench/data/fetch_dev7.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a vignette PDF shipped in a Debian 12 ("bookworm") r-cran-* package (Matrix's lives under
usr/lib/R/library, the others under usr/lib/R/site-library). The download, unpacking and hash check are
fetch_dev3.py's (`apt-get download PACKAGE=VERSION`, falling back to the current version; run `apt-get update`
once first; `dpkg-deb -x`). Two versions carry a Debian epoch ("1:"), which apt-get needs and the .deb file
name writes as "1%3a". A file whose SHA-256 differs from the one below is not kept: the script reports it and
exits 1. PDFs are never committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "gbm_generalized_boosted_models": (
        "r-cran-gbm", "2.1.8.1-1", "usr/lib/R/site-library/gbm/doc/gbm.pdf",
        "0c40381c09006b0d2e85cfb1870c4fe74b0f6a0d667dca583f8b951310aa6dec", 15),
    "vcd_residual_based_shadings": (
        "r-cran-vcd", "1:1.4-11-1", "usr/lib/R/site-library/vcd/doc/residual-shadings.pdf",
        "936f618b11c4bb4948246079649df8a6786a9146721f70784e9b5c154fbd9051", 12),
    "mvtnorm_multivariate_t_gauss_probabilities": (
        "r-cran-mvtnorm", "1.1-3-1+b1", "usr/lib/R/site-library/mvtnorm/doc/MVT_Rnews.pdf",
        "0caa34fb53315b2ddf143cd7c4f9dc13a167648963ca6f43bbba676e0033abc9", 6),
    "matrix_sparse_model_matrices": (
        "r-cran-matrix", "1.5-3-1", "usr/lib/R/library/Matrix/doc/sparseModels.pdf",
        "45e496d1f3cf9e17f4fb062173706f62e96fd16ba812fc10015b5b5589b610f4", 8),
    "sp_spatial_data_classes": (
        "r-cran-sp", "1:1.6-0+dfsg-1", "usr/lib/R/site-library/sp/doc/intro_sp.pdf",
        "e2d3bdae779e19724923ee1bdb976be6082afd825a19f3b6a675e36d09755527", 21),
    "robustbase_lmrob_small_sample_simulation": (
        "r-cran-robustbase", "0.95-0-1", "usr/lib/R/site-library/robustbase/doc/lmrob_simulation.pdf",
        "0caffe8d90f26a18c0f301cf89e54867b4a88d83209d62fbc89db0dcd43e1540", 19),
    "epi_years_of_life_lost": (
        "r-cran-epi", "2.47-1", "usr/lib/R/site-library/Epi/doc/yll.pdf",
        "6a7eef46ea1af5b5d7e2ab4ff399354236235f7e521e264fce46681080f83f1f", 16),
    "mcmc_bayes_factors_serial_tempering": (
        "r-cran-mcmc", "0.9-7-1+b1", "usr/lib/R/site-library/mcmc/doc/bfst.pdf",
        "72b5350ebfafb2be72e0b67d89119f87bcc730a248e7e1b8462af8cd32b842cf", 20),
    "survey_two_phase_epidemiology": (
        "r-cran-survey", "4.1-1-1", "usr/lib/R/site-library/survey/doc/epi.pdf",
        "cabb668b67285873f3094edc237708842d24df945416d7b517f7cbfe885c2ebb", 8),
    "effects_partial_residuals": (
        "r-cran-effects", "4.2.2-1", "usr/lib/R/site-library/effects/doc/partial-residuals.pdf",
        "be99b475b4786a0f0d69ba1a27262e7b4a785092ff8befcbd3888b631dfbd5b4", 12),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev7-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
