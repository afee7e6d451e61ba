"""Fetch the 10 papers of the held-out dev11 question set (bench/data/dev11.json) from Debian packages.

    python3 bench/data/fetch_dev11.py [OUT_DIR]          # default .data/dev11-papers/ (git-ignored)
    python3 bench/data/fetch_dev11.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a PDF shipped in a Debian 12 ("bookworm") package: five are vignettes of r-cran-* packages
(under usr/lib/R/site-library), five are manuals, guides or notes shipped by program or documentation packages
of other fields (semidefinite programming, ray tracing, reliable server pooling, gene finding, mesh generation;
under usr/share/doc, three of them gzipped, `.pdf.gz`, decompressed before the hash check). The download,
unpacking and hash check are fetch_dev3.py's (`apt-get download PACKAGE=VERSION`, falling back to the current
version; run `apt-get update` once first; `dpkg-deb -x`). A file whose SHA-256 differs from the one below is
not kept: the script reports it and exits 1. PDFs are never committed to git. rheolef-doc is the largest
download (about 28 MB; the BAMG notes are a small part of it).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_dev3  # the same download and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "partykit_recursive_partitioning_toolkit": (
        "r-cran-partykit", "1.2-16-1", "usr/lib/R/site-library/partykit/doc/partykit.pdf",
        "68d0da9bf0c692d89ab1a36cc11e24b70bf481d90d13152d05b7a077e92daff1", 20),
    "rcppeigen_numerical_linear_algebra": (
        "r-cran-rcppeigen", "0.3.3.9.3-1", "usr/lib/R/site-library/RcppEigen/doc/RcppEigen-Introduction.pdf",
        "6c1da08cded2a27f3b47a6b6405cadd7099bd8def33a98c8b2d1fac9c8ee2462", 24),
    "scatterplot3d_multivariate_visualization": (
        "r-cran-scatterplot3d", "0.3-42-1", "usr/lib/R/site-library/scatterplot3d/doc/s3d.pdf",
        "38fae68894fa1a89185776818ddcc21c50ac8de34d473be744f75bc99b8e45d8", 36),
    "sparsem_sparse_matrix_package": (
        "r-cran-sparsem", "1.81-1", "usr/lib/R/site-library/SparseM/doc/SparseM.pdf",
        "a7a886104dbc19cdd536b687c731160bbe308da934f20a1edf5dc9b2f953c069", 9),
    "rprotobuf_data_serialization": (
        "r-cran-rprotobuf", "0.4.20-1+b1", "usr/lib/R/site-library/RProtoBuf/doc/RProtoBuf-paper.pdf",
        "2b97761d242725161d6cf90bfb87b9a2a117b7e64c476208bc5048f6a8a72daf", 21),
    "sdpb_semidefinite_program_solver_manual": (
        "sdpb-doc", "1.0-4", "usr/share/doc/sdpb-doc/SDPB-Manual.pdf.gz",
        "4aae891936240ee37cef9f9f8debd0d0bb180cf9ed70f78396c6068af80de962", 14),
    "tachyon_ray_tracer_users_guide": (
        "tachyon-doc", "0.99~b6+dsx-10", "usr/share/doc/tachyon/tachyon.pdf",
        "60d1be0e965a0d42ade7351bc255ca67f9801a87f759f683b6a3fae4ba6ee661", 24),
    "rsplib_rserpool_handbook": (
        "rsplib-doc", "3.4.4-1", "usr/share/doc/rsplib/Handbook.pdf.gz",
        "26c273b7d5550021059266903c22c99c7c435f9221500776355c44917b57a9be", 16),
    "glimmer3_gene_finder_release_notes": (
        "tigr-glimmer", "3.02b-6+b1", "usr/share/doc/tigr-glimmer/notes.pdf.gz",
        "fb0fdc67e86eb7674155dbec8b7d08be27bca36bb2c577a6dce8893c3c890850", 19),
    "bamg_anisotropic_mesh_generator": (
        "rheolef-doc", "7.2-2", "usr/share/doc/rheolef-doc/bamg.pdf",
        "85280b1dd7a92bda344cb9c55a2321996b5c7fc16429a28812638459f3b7af31", 31),
}


def main() -> int:
    return fetch_dev3.main(PAPERS, ".data/dev11-papers", __doc__)


if __name__ == "__main__":
    sys.exit(main())
