# neon.cloud developer entry points. On a fresh machine:
#   make demo    build + install the collection, run playbooks/demo.yml against the simulator
#   make test    everything CI runs (lint, sanity, units, integration, version matrix)
# The logic lives in scripts/; venvs in .venvs/, the collection copy that
# ansible-test runs on in .build/ansible_collections/neon/cloud/.
#
# CELL selects the environment of sanity/units/integration: default
# (ansible-core 2.19 on Python 3.11), 2.17, 2.18, 2.20 (py3.12), 2.21 (py3.13).
# ARGS are passed on to ansible-test / ansible-playbook / the benchmark.

SHELL := /bin/bash
CELL ?= default
ARGS ?=

.PHONY: help env demo test sanity units integration suites ecosystem reliability lint matrix bench simulator changelog clean

help:
	@sed -n 's/^#   make /make /p; s/^## //p' $(MAKEFILE_LIST)

## make env          create/refresh .venvs/default (skipped when requirements are unchanged)
env:
	@scripts/venv.sh default 3.11 requirements-test.txt >/dev/null

demo:
	scripts/demo.sh $(ARGS)

## make test         lint, pytest suites + sanity/units/integration for ansible-core 2.17-2.21, 2 cells at a time
##                   (NEON_JOBS=1: one at a time; NEON_TEST_MATRIX=newest: 2.19 + 2.21 only)
test:
	scripts/test.sh

## make sanity       ansible-test sanity --python X.Y (CELL=...)
sanity:
	scripts/ansible-test.sh $(CELL) sanity $(ARGS)

## make units        ansible-test units --local (CELL=...)
units:
	scripts/ansible-test.sh $(CELL) units $(ARGS)

## make integration  ansible-test integration --local against a fresh simulator (CELL=...)
integration:
	scripts/integration.sh $(CELL) $(ARGS)

## make suites       the plain-pytest suites (tests/ecosystem, tests/reliability, ...) in .venvs/default
suites:
	scripts/pytest-suite.sh $(SUITE) -- $(ARGS)

## make ecosystem / make reliability   one of them
ecosystem reliability:
	scripts/pytest-suite.sh tests/$@ -- $(ARGS)

## make lint         ansible-lint, antsibull-changelog lint, antsibull-docs lint, shellcheck
lint:
	scripts/lint.sh

## make matrix       sanity + units + integration for ansible-core 2.17 ... 2.21 (scripts/matrix.sh [CELL...])
matrix:
	scripts/matrix.sh

## make bench        benchmarks/run.py against a fresh simulator
bench: env
	NEON_SIM_PYTHON=.venvs/default/bin/python scripts/with-simulator.sh .venvs/default/bin/python benchmarks/run.py $(ARGS)

## make simulator    run the API simulator in the foreground (PORT=8080 KEY=...)
simulator: env
	PYTHONPATH=tests/simulator .venvs/default/bin/python -m neon_simulator --port $(or $(PORT),8080) --api-key $(or $(KEY),dev-key) $(ARGS)

## make changelog    lint the changelog fragments
changelog: env
	.venvs/default/bin/antsibull-changelog lint

## make clean        remove venvs, build copies and test output
clean:
	rm -rf .venvs .build .ansible tests/output .pytest_cache .hypothesis
