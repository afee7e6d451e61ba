"""Fetch the 10 papers of the dev4 question set (bench/data/dev4.json) from Debian packages.

    python3 bench/data/fetch_dev4.py [OUT_DIR]          # default .data/dev4-papers/ (git-ignored)
    python3 bench/data/fetch_dev4.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

Each paper is a vignette PDF shipped in a Debian r-cran-* package (Debian 12 "bookworm"). The script runs
`apt-get download PACKAGE=VERSION` (falling back to the current version when that one is gone from the
archive; run `apt-get update` once first), unpacks the .deb with `dpkg-deb -x` into a temporary folder,
copies the PDF to OUT_DIR/<docid>.pdf and checks its SHA-256 against the hash written below. A file whose
hash differs is not kept (a newer package may ship a rebuilt vignette): the script reports it and exits 1.
PDFs are never committed to git.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_dev3 import main  # the same download, unpacking and hash check

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "twinstim_spatiotemporal_epidemics": (
        "r-cran-surveillance", "1.20.3-1", "usr/lib/R/site-library/surveillance/doc/twinstim.pdf",
        "e5ea14724ed19c088463fe9276042d0766391d563132dcd8b1675e56d5f8548a", 19),
    "forecast_automatic_time_series": (
        "r-cran-forecast", "8.20-1", "usr/lib/R/site-library/forecast/doc/JSS2008.pdf",
        "396a0fc6ab2b5ef5fe602c963a5b1b4969d42cede7038010bbfe36cb91fd3a2f", 23),
    "dbscan_density_clustering": (
        "r-cran-dbscan", "1.1-11+ds-1", "usr/lib/R/site-library/dbscan/doc/dbscan.pdf",
        "14f4aad8fc00862763ff5ac3d3615e53018cf5d0b4d9ba005714132d76a2d282", 28),
    "multcomp_simultaneous_inference": (
        "r-cran-multcomp", "1.4-22-1", "usr/lib/R/site-library/multcomp/doc/generalsiminf.pdf",
        "261ba9e67d6b237891ccd8338f8b3e28b31f51b78b4fbe1fa5b392f998bef5e2", 24),
    "network_relational_data": (
        "r-cran-network", "1.18.1-1", "usr/lib/R/site-library/network/doc/networkVignette.pdf",
        "f1fa524bd6b24b0b79928e08a12c83a8c576d79c4f62c8cee493410e788f4b41", 39),
    "ape_random_tree_topologies": (
        "r-cran-ape", "5.7-1", "usr/lib/R/site-library/ape/doc/RandomTopologies.pdf",
        "ab85ea28022f7f5f2b653384e96edc4a8d81a28b3e7cd373838df47815b72cb3", 14),
    "crq_censored_quantile_regression": (
        "r-cran-quantreg", "5.94-1", "usr/lib/R/site-library/quantreg/doc/crq.pdf",
        "e480d79e975428b982605324e4fae1d04ef3ba8ec5b26832f46c4dba20039160", 26),
    "vegan_ecological_diversity": (
        "r-cran-vegan", "2.6-4+dfsg-1", "usr/lib/R/site-library/vegan/doc/diversity-vegan.pdf",
        "e653242bcabb9ce27e2f877b192f74a784eaa43ff031851a82626945a7dd96b5", 12),
    "party_model_based_partitioning": (
        "r-cran-party", "1.3-11-1", "usr/lib/R/site-library/party/doc/MOB.pdf",
        "e513d3a843555becac92adb7ee39d49cc24f0fdc8cc1a0a1b5ebef5f6dc7c6de", 14),
    "tsp_traveling_salesperson": (
        "r-cran-tsp", "1.2-2-1", "usr/lib/R/site-library/TSP/doc/TSP.pdf",
        "4fd2477ab0010369e6a2531bdf076936c6782a8b9cf072c898cbd1d2f4ae219e", 22),
}


if __name__ == "__main__":
    sys.exit(main(PAPERS, ".data/dev4-papers", __doc__))
