# Two commands do all the set-up on a fresh machine:  `make book`  and  `make test`.
# environment.yml is the single source of truth for dependencies; without conda
# we install its `pip:` list into .venv.

SHELL := /bin/bash
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# rmlib's folders are the checkout's own here (installed elsewhere, rmlib uses the user's data and cache folders:
# rmlib.config); the tests set their own cache whatever this says (tests/cache_guard.py).
export RMLIB_DATA_DIR ?= $(CURDIR)/data/external
export RMLIB_CACHE_DIR ?= $(CURDIR)/.cache/rmlib
# A local mirror of the raw data is used when present; otherwise `make data`
# downloads from the original addresses in src/rmlib/data/sources.yml.
MIRROR ?= $(wildcard $(CURDIR)/../shared/data)
export RMLIB_DATA_MIRROR ?= $(MIRROR)
PYTEST_ARGS ?=
# make test runs in this many pytest-xdist workers (one per core; 0 runs everything in one process)
TEST_WORKERS ?= 2

.PHONY: browser help venv data test test-fast book chapter lab course benchmarks clean sweeps card

help:
	@echo "make book       build the whole report offline (embedded models + published scores)"
	@echo "make test       run the whole test suite: unit, integration, chapters (tiny models, no network, no GPU)"
	@echo "make test-fast  run the unit tests only (about 2 minutes on 2 cores)"
	@echo "make data       fill \$$RMLIB_DATA_DIR from the mirror or the original URLs, verifying checksums"
	@echo "make chapter NB=<name> [MODELS='[...]'] [PARAMS=file.yaml] [ARGS='-p KEY VALUE'] [FORCE=1]"
	@echo "               rerun one chapter with other parameters: MODELS= the models it scores, PARAMS= a YAML"
	@echo "               file of parameter values, ARGS= more options of rmlib book run (-p KEY VALUE,"
	@echo "               the value read as YAML; --tiny), FORCE=1 rerun even if its stamp is current"
	@echo "make book FORCE=1   rerun every chapter, stale or not"
	@echo "make lab        JupyterLab on 127.0.0.1 with rmlib in the kernel"
	@echo "make course     the course edition: student notebooks (solutions stripped) and instructor notebooks"
	@echo "                in _build/course/; make lab COURSE=student opens the student's"
	@echo "make benchmarks run the speed and memory benchmarks (writes benchmarks/out/)"
	@echo "make sweeps PLAN=plans/x.yaml [RUN_ARGS='--ray auto --gpus-per-worker 1']   run a plan of many sweeps"
	@echo "make card MODEL=<id> [ARGS='--quick']   a value card of any RM in _build/cards/<id>/"

# uv (this version) installs environment.yml's pins in seconds; tools/install_venv.sh falls back to pip
UV_VERSION := 0.13.9

$(STAMP): environment.yml tools/env_to_requirements.py tools/install_venv.sh pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(PY) tools/env_to_requirements.py environment.yml $(VENV)/requirements.txt $(VENV)/requirements-nodeps.txt
	tools/install_venv.sh $(VENV) $(UV_VERSION)
	@touch $(STAMP)

venv: $(STAMP)

data: $(STAMP)
	$(BIN)/rmlib data fetch --dest "$(RMLIB_DATA_DIR)" $(if $(MIRROR),--mirror "$(MIRROR)")

# tests/unit (fast, mirrors src/rmlib), tests/integration (tiny-model sweeps, training, concurrency),
# tests/chapters (every chapter through one harness, and the book)
# Chapter runs and the course's student notebooks are kept in .pytest_cache/d/rmlib/ (tests/chapters/conftest.py), so
# a second run on the same checkout executes only what changed; `make clean` or `pytest --cache-clear` starts cold.
test: $(STAMP) data browser
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=25 $(PYTEST_ARGS)

# Debian's chromium, for the browser check of the tiny book in tests/chapters/test_book.py
# (tools/browser_check.py installs it with apt-get when it is missing, as root; otherwise it says what to run)
browser: $(STAMP)
	@$(BIN)/python tools/browser_check.py --ensure-browser

test-fast: $(STAMP) data
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

benchmarks: $(STAMP)
	$(BIN)/python benchmarks/sweep_speed.py --full

# A plan of many (model x prompt) sweeps into the cache, serially or on Ray (RUN_ARGS='--ray auto'); see README.
PLAN ?=
RUN_ARGS ?=
sweeps: $(STAMP) data
	@test -n "$(PLAN)" || { echo "usage: make sweeps PLAN=plans/<plan>.yaml [RUN_ARGS='--ray auto --workers 4']" >&2; exit 2; }
	$(BIN)/rmlib run "$(PLAN)" $(RUN_ARGS)

# A value card (Big Two, love/freedom, moral foundations, agreement; ARGS=--quick: Big Two and love/freedom under four
# prompts) of any model the loader takes, placed among the ten paper RMs.
MODEL ?=
card: $(STAMP) data
	@test -n "$(MODEL)" || { echo "usage: make card MODEL=<registry id, owner/name or local:/path> [ARGS='...']" >&2; exit 2; }
	$(BIN)/rmlib card "$(MODEL)" $(ARGS)

clean:
	rm -rf _build book/_executed .pytest_cache

# book, chapter, lab and browser-check
-include mk/book.mk
