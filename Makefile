# The README's two commands, as thin wrappers around nox (noxfile.py):
#   make demo    the tour: playbooks/demo.yml against the local API simulator (nox -s demo)
#   make test    every test session, two at a time (nox --parallel 2); what CI runs
# Both install nox first, into .venvs/nox (Python 3.11). Everything else: `nox -l` lists the
# sessions, `.venvs/nox/bin/nox -s NAME` runs one (see CONTRIBUTING.md).

SHELL := /bin/bash
PYTHON ?= python3.11
NOX_VENV := .venvs/nox
NOX := $(NOX_VENV)/bin/nox

.PHONY: demo test clean

# (a virtualenv without pip, filled by uv: 6 s instead of 13 with venv and pip; see the script)
$(NOX): requirements-nox.txt scripts/make_nox_venv.py
	rm -rf $(NOX_VENV)
	$(PYTHON) scripts/make_nox_venv.py $(NOX_VENV) requirements-nox.txt
	touch $(NOX)

demo: $(NOX)
	$(NOX) -s demo

test: $(NOX)
	$(NOX) --parallel 2 --allow-parallel --report .nox/report.json

clean:
	rm -rf .venvs .nox tests/output .pytest_cache .hypothesis docs/docsite/build
