# Two entry points: `make run` grades the reference model, `make test` runs the suite
# (after installing Debian's chromium for the report browser test when root and missing; it
# waits for the package lock, and a failed install stops `make test` saying why).
# The venv has the [dask] extra too: tests/test_cluster.py grades on a local Dask cluster; the
# [recipes] extra (dask-jobqueue): tests/test_cluster_recipes.py builds the Slurm recipe; and
# the [transparency] extra: tests/test_transparency.py runs other projects' own test suites in
# the sandbox (their sdists are fetched into .cache/transparency/ on first use).
# `make setup` also writes the bytecode of the whole `benchmark` package (the editable install
# compiles none of it), so a PYTHONDONTWRITEBYTECODE=1 environment costs nothing, and checks it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup bytecode run test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,dask,transparency,recipes]'
	touch $(STAMP)

setup: $(STAMP) bytecode

bytecode: $(STAMP)
	$(PY) scripts/check_bytecode.py --compile

run: $(STAMP)
	$(PY) run_benchmark.py --model example_model

test: $(STAMP)
	bash scripts/install_browser.sh
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info
