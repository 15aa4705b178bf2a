# Two commands do all the set-up on a fresh machine (only Python >= 3.11 needed):
#   make demo   - virtual environment, install pdpaired, run a real comparison
#   make test   - virtual environment with the test, docs and dask extras; build the
#                 docs (warnings are errors) and run the whole suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q

.PHONY: demo test test-fast docs bench lint clean

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

test: $(VENV)/.installed-test
	$(MAKE) docs
	$(PY) -m pytest

test-fast: $(VENV)/.installed-test
	$(PY) -m pytest -m "not slow"

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
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
