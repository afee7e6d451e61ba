"""Fetch the 10 papers of the dev3 question set (bench/data/dev3.json) from Debian packages.

    python3 bench/data/fetch_dev3.py [OUT_DIR]          # default .data/dev3-papers/ (git-ignored)
    python3 bench/data/fetch_dev3.py OUT_DIR --debs DIR # use .deb files already in DIR instead of downloading

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
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# docid: (Debian package, version, path inside the package, SHA-256 of the PDF, pages)
PAPERS = {
    "zoo_irregular_time_series": (
        "r-cran-zoo", "1.8-11-1", "usr/lib/R/site-library/zoo/doc/zoo.pdf",
        "fd63de7b0dc3122272339ff49e6ceeb47ea71a89a9cb5b7c411c78a7d6c8c332", 30),
    "rcpp_seamless_cpp_integration": (
        "r-cran-rcpp", "1.0.10-1", "usr/lib/R/site-library/Rcpp/doc/Rcpp-jss-2011.pdf",
        "6f7a1aafb95e463bc4a28770dd9ca8309000889d60d4aa1d4a5e6f8ff687be67", 19),
    "kernlab_kernel_methods": (
        "r-cran-kernlab", "0.9-32-1", "usr/lib/R/site-library/kernlab/doc/kernlab.pdf",
        "68c3c050db63954debebe74971f8d62844d505f19b3f384f945cf3d41262cbd7", 22),
    "erm_extended_rasch_models": (
        "r-cran-erm", "1.0-2-1+b1", "usr/lib/R/site-library/eRm/doc/eRm.pdf",
        "6f391b14c5d26a76902470b23fdd25d649a35cffd9420539d3f8449f387d5a2b", 29),
    "rgenoud_genetic_optimization": (
        "r-cran-rgenoud", "5.9-0.3-1", "usr/lib/R/site-library/rgenoud/doc/rgenoud.pdf",
        "86e337a64e83fc3511426494d70fc38066373a1950512a47a28dc1b3082819b1", 27),
    "gstat_spatiotemporal_kriging": (
        "r-cran-gstat", "2.1-0-1", "usr/lib/R/site-library/gstat/doc/spatio-temporal-kriging.pdf",
        "6c0504252c562a0c6fce30f5f5e652a2ac8979bbf7067767e1ccf02206382794", 16),
    "bym_leroux_areal_count_pitfalls": (
        "r-cran-spam", "2.9-1-1", "usr/lib/R/site-library/spam/doc/jss15.pdf",
        "2d6b4408c41575b429057773d9c89bf874e3214fde90bb170ea35f736a5d36cc", 32),
    "count_data_regression_models": (
        "r-cran-pscl", "1.5.5-1+b1", "usr/lib/R/site-library/pscl/doc/countreg.pdf",
        "8ff9cb8331837ff2d21c4a840efbe4e5bdc10a1008edc0c39b8ba47d145cea04", 25),
    "flexmix_finite_mixture_models": (
        "r-cran-flexmix", "2.3-18-1", "usr/lib/R/site-library/flexmix/doc/flexmix-intro.pdf",
        "df4ce7cb00ab723134b2d8b9f34168cf7e6a8705bfefef3b6524230270172469", 18),
    "coin_conditional_inference": (
        "r-cran-coin", "1.4-2-1+b1", "usr/lib/R/site-library/coin/doc/coin.pdf",
        "04f1a9749b6731478ae66a257225bc7d2b1961b6233fe7af9df1a108e9e27cb9", 11),
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


def main(papers: dict | None = None, default_out: str = ".data/dev3-papers", doc: str | None = None) -> int:
    """Fetch `papers` (this set's PAPERS by default; fetch_dev4.py and fetch_dev5.py pass their own) into OUT_DIR.
    A package is downloaded once however many papers it holds; a `.pdf.gz` inside it is decompressed, and its
    SHA-256 is that of the PDF."""
    papers = PAPERS if papers is None else papers
    ap = argparse.ArgumentParser(description=doc or __doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=default_out, help="folder for the PDFs")
    ap.add_argument("--debs", help="folder with the .deb files already downloaded")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not shutil.which("dpkg-deb") or (not args.debs and not shutil.which("apt-get")):
        print("needs dpkg-deb and apt-get (Debian/Ubuntu)")
        return 1

    failures = []
    debs: dict[str, Path] = {}  # one download per package (lammps-doc holds two papers)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        for docid, (package, version, inner, digest, pages) in papers.items():
            target = out / f"{docid}.pdf"
            if target.exists() and sha256(target) == digest:
                print(f"ok   {target} (already there)")
                continue
            try:
                if package not in debs:
                    deb = find_deb(Path(args.debs), package) if args.debs else download(package, version, tmp_path)
                    if deb is None:
                        raise RuntimeError(f"no {package}_*.deb in {args.debs}")
                    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path / package)], check=True)
                    debs[package] = deb
                deb = debs[package]
                source = tmp_path / package / inner
                if not source.exists():
                    raise RuntimeError(f"{inner} not in {deb.name}")
                staged = tmp_path / f"{docid}.pdf"
                if inner.endswith(".gz"):
                    with gzip.open(source, "rb") as src, open(staged, "wb") as dst:
                        shutil.copyfileobj(src, dst)
                else:
                    shutil.copyfile(source, staged)
                got = sha256(staged)
                if got != digest:
                    raise RuntimeError(f"SHA-256 mismatch for {inner} in {deb.name}: {got}")
                shutil.copyfile(staged, target)
                os.chmod(target, 0o644)
                print(f"ok   {target} ({package} {deb.name}, {pages} pages)")
            except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
                failures.append(docid)
                print(f"FAIL {docid}: {exc}")
    print(f"{len(papers) - len(failures)} of {len(papers)} papers in {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
