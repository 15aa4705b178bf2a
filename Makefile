# Two commands do all the set-up on a fresh machine (only Python >= 3.11 needed):
#   make demo   - virtual environment, install pdpaired, run a real comparison
#   make test   - virtual environment with the test, docs and dask extras; build the
#                 docs (warnings are errors) and run the whole suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q

.PHONY: demo test test-fast docs bench lint mutation clean coverage-gate

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

$(VENV)/.installed-base: pyproject.toml | $(PY)
	$(PIP) install -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install -e ".[test,docs,dask]"
	touch $@

demo: $(VENV)/.installed-base
	$(PY) examples/demo.py

# PDPAIRED_REQUIRE_EXTRAS=1: a test that needs an extra (numba, dask, pyarrow,
# scikit-learn, the console script, import-linter) fails instead of skipping.
# Coverage: line + branch, reported per module for the core and pairs layers
# (tools/coverage_layers.py fails below 95% lines / 90% branches; docs/quality.md).
# The suite runs on every core with pytest-xdist (WORKERS=0: in this process, no xdist);
# pytest-cov combines the workers' data into one .coverage file.
# (tests/conftest.py: the slow simulations go first, the other tests stay with their file;
# the simulations of tests/calibration run untraced, docs/quality.md).
# PYTEST_ARGS: more options, e.g. make test PYTEST_ARGS=--durations=25
WORKERS ?= auto
XDIST   := -n $(WORKERS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)
test: $(VENV)/.installed-test
	$(MAKE) docs
	PDPAIRED_REQUIRE_EXTRAS=1 $(PY) -m pytest $(XDIST) --cov=pdpaired --cov-branch --cov-report=
	$(PY) tools/coverage_layers.py

# The same gate without the docs build (95% lines, 90% branches on core and pairs).
coverage-gate: $(VENV)/.installed-test
	PDPAIRED_REQUIRE_EXTRAS=1 $(PY) -m pytest $(XDIST) --cov=pdpaired --cov-branch --cov-report=
	$(PY) tools/coverage_layers.py

test-fast: $(VENV)/.installed-test
	$(PY) -m pytest $(XDIST) -m "not slow"

# Mutation testing of the statistics core with mutmut, module by module with the
# tests that cover each; scores and measured times in docs/quality.md.
# One target: make mutation TARGETS="bootstrap rules" (python tools/mutation.py --list);
# a random sample of each target's mutants: make mutation SAMPLE=100.
mutation: $(VENV)/.installed-test
	$(PIP) install "mutmut>=3.3"
	MPLBACKEND=Agg $(PY) tools/mutation.py $(TARGETS) $(if $(SAMPLE),--sample $(SAMPLE))

# The documentation site (Sphinx; warnings are errors) in docs/_build/html.
docs: $(VENV)/.installed-test
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

bench: $(VENV)/.installed-test
	$(PY) benchmarks/targets.py

lint: $(VENV)/.installed-test
	$(PIP) install ruff mypy
	$(PY) -m ruff check pdpaired tests examples benchmarks
	$(PY) -m ruff format --check pdpaired tests examples benchmarks
	$(VENV)/bin/lint-imports --no-cache

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis .coverage mutants
