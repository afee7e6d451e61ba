# Evidence desk: `make run` (from a fresh clone to a running app) and `make test` (the whole suite).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BENCH_GROUPS := retrieval retrieval-100k retrieval-1m embed embed-quality index ingest judge titles load first-question walk reader

.PHONY: reader setup run test test-fast down services bench $(addprefix bench-,$(BENCH_GROUPS)) bench-ingest-1000 eval lint clean-data browsers

$(STAMP): requirements.txt requirements-nodeps.txt
	@boot=$$(scripts/find-python.sh) || exit 1; \
	if [ ! -x $(PY) ]; then echo "creating $(VENV) with $$boot"; "$$boot" -m venv $(VENV) || exit 1; fi
	@# A line per package as pip takes it (a first install is a few minutes of downloads, never silent).
	@echo "installing the requirements into $(VENV) (a few minutes the first time; a line per package)"
	@set -o pipefail; $(PY) -m pip install --disable-pip-version-check --progress-bar off -r requirements.txt \
		| { grep --line-buffered -E '^ *(Collecting|Building wheel|Installing collected)' | cut -c1-100 || true; }
	@set -o pipefail; $(PY) -m pip install --disable-pip-version-check --progress-bar off --no-deps \
		-r requirements-nodeps.txt | { grep --line-buffered -E '^ *(Collecting|Building wheel)' || true; }
	@echo "requirements installed"
	@touch $(STAMP)

services: $(STAMP)
	@$(PY) scripts/services.py up

setup: services
	@$(PY) manage.py migrate --noinput -v 0
	@echo "setup done: services up, database migrated"

run: $(STAMP)
	@$(PY) scripts/run.py

# The local reader (llama-cpp-python, compiled once per machine, and the model's weights): `make run` installs it in
# the background; the tests need it installed first.
reader: $(STAMP)
	@$(PY) scripts/install_reader.py

browsers:
	@scripts/ensure-chromium.sh

test: setup browsers reader
	@$(PY) -m pytest tests $(PYTEST_ARGS)

test-fast: setup
	@$(PY) -m pytest tests -m "not browser and not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	@$(PY) -m ruff check .

down:
	@if [ -x $(PY) ]; then $(PY) scripts/services.py down; fi

bench: setup
	@$(PY) bench/run_all.py $(BENCH_GROUPS)

# One group each (bench/run_all.py lists them), a few minutes apiece: make bench-retrieval, make bench-embed, ...
$(addprefix bench-,$(BENCH_GROUPS)): bench-%: setup
	@$(PY) bench/run_all.py $*

# 1,000 synthesized full papers ingested end to end: tens of minutes on 2 cores, so not part of `make bench`.
bench-ingest-1000: setup
	@$(PY) bench/run_all.py ingest-1000

eval: setup
	@$(PY) scripts/eval_dev.py
