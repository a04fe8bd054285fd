# The book: papermill-executed chapters rendered by Jupyter Book 1.x, offline.
# Included from the Makefile, which defines VENV, BIN, STAMP and the venv/data targets.
#
#   make book                                   every chapter in _toc.yml (only stale ones rerun) + HTML
#   make chapter NB=about MODELS='["org/model"]' rerun one chapter with other models, then the HTML; a rerun with
#                                               parameters other than the book's gets a page of its own under
#                                               "Your reruns" (book/_executed/reruns/), the book's page is kept
#   make chapter NB=about PARAMS=my.yaml ARGS='-p TOP_K 20'     any parameters (YAML file and/or -p KEY VALUE)
#   make lab                                    JupyterLab on 127.0.0.1 with rmlib in the kernel
#   make course                                 the course: _build/course/student (solutions stripped) and instructor
#   make lab COURSE=student                     JupyterLab on the student (or instructor) notebooks
#   make browser-check                          headless Chromium opens every page from file:// and judges it by what it
#                                               should contain (charts drawn, math rendered, no logs or machine paths)
#
# `make chapter` is `rmlib book run NB ...` then `rmlib book html` (rmbook.book.runner and rmbook.book.reruns: the
# template with the chapter's parameters, only when stale, into its own folder when they are not the book's).
# `make book` prints each stale chapter as "chapter i/N" with the estimated time left (from its last run times, else
# from book/reference_times.yaml: see tools/reference_times.py).

BOOK := $(BIN)/rmlib book
NB ?=
MODELS ?=
PARAMS ?=
ARGS ?=
FORCE ?=
CHECK_PAGE ?= _build/html

.PHONY: book book-vendor book-html chapter lab course browser-check
COURSE ?=

book-vendor: $(STAMP)
	$(BOOK) vendor

book-html: $(STAMP) book-vendor
	$(BOOK) html

# The finetuning chapter trains the compute-mode RMs (local:ft-...) that other chapters sweep, so it runs first.
# Every chapter writes its numbers to book/_executed/results/; the claims page reads them, so `rmlib book run`
# puts it after the chapters it reads (whatever its place in _toc.yml) and reruns it when their results change.
book: $(STAMP) data book-vendor
	$(BOOK) run --estimate $(if $(FORCE),--force)
	$(BOOK) run finetuning $(if $(FORCE),--force)
	$(BOOK) run $(if $(FORCE),--force)
	$(BOOK) html

# MODELS, TRUST_REMOTE_CODE and PARAMS reach the shell through the environment ("$$MODELS"), never pasted into its
# quotes: a model path with an apostrophe (local:/home/o'brien/rm) or a file named with " or ` arrives as typed (#62).
chapter: export MODELS := $(MODELS)
chapter: export TRUST_REMOTE_CODE := $(TRUST_REMOTE_CODE)
chapter: export PARAMS := $(PARAMS)
chapter: $(STAMP) data book-vendor
	@test -n "$(NB)" || { echo "usage: make chapter NB=<name> [MODELS='[\"org/model\"]'] [TRUST_REMOTE_CODE='[\"org/model\"]'] [PARAMS=file.yaml] [ARGS='-p KEY VALUE']" >&2; exit 2; }
	$(BOOK) run $(NB) $(if $(FORCE),--force) $(if $(PARAMS),--params "$$PARAMS") $(if $(MODELS),-p MODELS "$$MODELS") $(if $(TRUST_REMOTE_CODE),-p TRUST_REMOTE_CODE "$$TRUST_REMOTE_CODE") $(ARGS)
	$(BOOK) html

# The course: every chapter with exercises, as student notebooks (stubs, no solutions) and instructor notebooks,
# each with the chapter's small course parameters (src/rmbook/chapters/<name>/params.course.yaml). Offline, and quick: nothing
# is executed here (book/course.md says what each notebook takes to run).
course: $(STAMP) data
	$(BOOK) course

lab: $(STAMP) data $(if $(COURSE),course)
	$(BIN)/jupyter lab --ip=127.0.0.1 --no-browser --ServerApp.root_dir="$(CURDIR)" \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(if $(COURSE),_build/course/$(COURSE)/,notebooks/)

browser-check: book
	$(BIN)/python tools/browser_check.py "$(CHECK_PAGE)"
