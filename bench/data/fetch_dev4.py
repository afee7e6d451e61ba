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

import argparse
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def find_deb(folder: Path, package: str) -> Path | None:
    found = sorted(glob.glob(str(folder / f"{package}_*.deb")))
    return Path(found[-1]) if found else None


def download(package: str, version: str, folder: Path) -> Path:
    for spec in (f"{package}={version}", package):
        run = subprocess.run(["apt-get", "download", spec], cwd=folder, capture_output=True, text=True)
        deb = find_deb(folder, package)
        if run.returncode == 0 and deb:
            if spec == package:
                print(f"  note: {package} {version} is gone from the archive; trying the current version")
            return deb
    raise RuntimeError(f"apt-get download {package} failed: {run.stderr.strip()[-300:]}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=".data/dev4-papers", help="folder for the PDFs")
    ap.add_argument("--debs", help="folder with the .deb files already downloaded")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not shutil.which("dpkg-deb") or (not args.debs and not shutil.which("apt-get")):
        print("needs dpkg-deb and apt-get (Debian/Ubuntu)")
        return 1

    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        for docid, (package, version, inner, digest, pages) in PAPERS.items():
            target = out / f"{docid}.pdf"
            if target.exists() and sha256(target) == digest:
                print(f"ok   {target} (already there)")
                continue
            try:
                deb = find_deb(Path(args.debs), package) if args.debs else download(package, version, tmp_path)
                if deb is None:
                    raise RuntimeError(f"no {package}_*.deb in {args.debs}")
                unpacked = tmp_path / package
                subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
                source = unpacked / inner
                if not source.exists():
                    raise RuntimeError(f"{inner} not in {deb.name}")
                got = sha256(source)
                if got != digest:
                    raise RuntimeError(f"SHA-256 mismatch for {inner} in {deb.name}: {got}")
                shutil.copyfile(source, target)
                os.chmod(target, 0o644)
                print(f"ok   {target} ({package} {deb.name}, {pages} pages)")
            except (RuntimeError, subprocess.CalledProcessError) as exc:
                failures.append(docid)
                print(f"FAIL {docid}: {exc}")
    print(f"{len(PAPERS) - len(failures)} of {len(PAPERS)} papers in {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
