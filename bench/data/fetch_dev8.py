"""Fetch the 10 papers of the held-out dev8 question set (bench/data/dev8.json) from Debian packages.

    python3 bench/data/fetch_dev8.py [OUT_DIR]          # default .data/dev8-papers/ (git-ignored)
    python3 bench/data/fetch_dev8.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a PDF shipped in a Debian 12 ("bookworm") package: five are vignettes of r-cran-* packages
(under usr/lib/R/site-library), five are technical papers, notes or manuals shipped by documentation or
program packages of other fields (under usr/share/doc; two of them gzipped, `.pdf.gz`, decompressed before the
hash check). The download, unpacking and hash check are fetch_dev3.py's (`apt-get download PACKAGE=VERSION`,
falling back to the current version; run `apt-get update` once first; `dpkg-deb -x`). A file whose SHA-256
differs from the one below is not kept: the script reports it and exits 1. PDFs are never committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "glmnet_regularized_cox_regression": (
        "r-cran-glmnet", "4.1-6-1", "usr/lib/R/site-library/glmnet/doc/Coxnet.pdf",
        "f7cd27330970f4ee093e4d37cd16e098847d8ef33d638d688ded5b3f77410c7a", 12),
    "lme4_computational_methods_mixed_models": (
        "r-cran-lme4", "1.1-31-1", "usr/lib/R/site-library/lme4/doc/Theory.pdf",
        "4a516509401c2f9d5e088d5b0f76d4d058d9843e586baa6f7b36488509487200", 21),
    "ordinal_cumulative_link_mixed_models": (
        "r-cran-ordinal", "2022.11-16-1", "usr/lib/R/site-library/ordinal/doc/clmm2_tutorial.pdf",
        "90b1161cc373ba33ba5b61fdb05a607b1856ee1ada3db6ce67ccb18deaad4e6a", 10),
    "ipred_improved_predictors_glaucoma": (
        "r-cran-ipred", "0.9-13-1", "usr/lib/R/site-library/ipred/doc/ipred-examples.pdf",
        "802d3ee982386567a3b9051ef4876f946c1e8cb79b78441e87e64e8019abf1ec", 11),
    "lmtest_diagnostic_checking_regression": (
        "r-cran-lmtest", "0.9.40-1", "usr/lib/R/site-library/lmtest/doc/lmtest-intro.pdf",
        "a60f149a85222f49e47cdd1a432719f044e4f32c1cdb229f91af8e9171ac87b7", 5),
    "csdp_semidefinite_programming_guide": (
        "coinor-csdp-doc", "6.2.0-4", "usr/share/doc/coinor-csdp/csdpuser.pdf",
        "a2d90d3448ceda33dc22443eded53306577bb48e7330c05d7b6555fd6b101ae3", 19),
    "atlas_developer_guide": (
        "libatlas-doc", "3.10.3-13", "usr/share/doc/libatlas-base-dev/atlas_devel.pdf.gz",
        "3d278d878d6e2c30fd741c8237cbcacea9d5573cbcc2628244155aabb6ce39c4", 29),
    "glpk_cnf_satisfiability": (
        "glpk-doc", "5.0-1", "usr/share/doc/glpk-doc/cnfsat.pdf",
        "87520dcbde789ffad0b31ebcfb1466f1a6401fdf44b6a1790ed1d5105e7cace1", 6),
    "velvet_assembler_manual": (
        "velvet", "1.2.10+dfsg1-8", "usr/share/doc/velvet/Manual.pdf",
        "219ad00f8c44797eb0f70b4ffd1dd3c0b3978e8351771772c2fe251e8d7333ea", 22),
    "examl_phylogenetic_inference_manual": (
        "examl", "3.0.22-3+b2", "usr/share/doc/examl/ExaML.pdf.gz",
        "82aafadcb5414556e2b24d47a2e2b4889325f5dddfd3b14e6c05d26f046603c3", 22),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev8-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
