# Every install step of the project lives here, so a fresh machine needs only Python 3.10+ and make.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: test demo example clean

$(VENV)/.installed-test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,eval,serve]"
	touch $@

## test: install the package with its test, eval and serve extras into .venv and run the default test suite
test: $(VENV)/.installed-test
	$(PY) -m pytest -q

## example: the offline quickstart (no model, no network)
example: $(VENV)/.installed-test
	$(PY) examples/offline_quickstart.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
