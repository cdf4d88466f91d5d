# Two commands matter: `make run` (a demo match) and `make test`; `make check`
# is the quick tier to run while working.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# Tests run in parallel (pytest-xdist): most of a test's time is spent waiting
# for player processes and limits, so more workers than cores pays.  The tests
# of a module with a module-scoped fixture stay on one worker (tests/conftest.py).
# `make test TEST_JOBS=0` runs them all in one process.
TEST_JOBS ?= 4
# The tests' scratch folders (TMPDIR) go to a RAM disk where there is a usable
# one (tests/ram_disk.py says why and when); `make test TEST_TMP=` keeps the
# system's default.  There only the last run's folders are kept.
TEST_TMP ?= $(shell $(BIN)/python tests/ram_disk.py)
PYTEST = $(if $(TEST_TMP),TMPDIR=$(TEST_TMP) )$(BIN)/python -m pytest -q -n $(TEST_JOBS) \
         $(if $(TEST_TMP),-o tmp_path_retention_count=1)
.PHONY: run test check bench bench-ab clean bytecode

# The checkout's bytecode, brought up to date before anything runs: with
# PYTHONDONTWRITEBYTECODE set (many CI and Docker images set it) nothing else
# writes it, and then every referee, seat host and built-in player started
# compiles the whole package from source again (a third of a match's CPU).
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q -j 0 referee players >/dev/null

$(STAMP): setup.cfg pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ needed"' 
	@$(PYTHON) -m venv $(VENV) || { echo "make: could not create $(VENV); on Debian/Ubuntu run: sudo apt-get install python3-venv" >&2; exit 1; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# (setuptools' notice about editable installs of a flat layout is for
	@# package authors, and the .pth line below replaces what it is about)
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e '.[test]'
	@# setuptools' editable install makes every Python this venv starts import
	@# an import-hook finder (and pathlib): ~40 ms of CPU each, paid by every
	@# referee, built-in and test player the suite starts.  For this flat
	@# layout a plain path entry finds the same package.
	@$(BIN)/python -c 'import glob, os, sysconfig; [open(p, "w").write(os.getcwd() + "\n") for p in glob.glob(os.path.join(sysconfig.get_paths()["purelib"], "__editable__.referee-*.pth"))]'
	@# setuptools' distutils-precedence.pth imports its distutils shim at every
	@# start too: ~2 ms of a ~20 ms start, ~4,400 starts a run.  setuptools
	@# imports the shim itself whenever it is used (building a wheel).
	@rm -f "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/distutils-precedence.pth"
	@touch $(STAMP)

# pytest rewrites the asserts of its plugins' modules (hypothesis's 70, anyio's
# 30) at every start, and keeps the result only where bytecode may be written:
# with PYTHONDONTWRITEBYTECODE set, every xdist worker did it again, ~2 s of
# CPU each (tests/conftest.py lets the tests' own modules be kept, but plugins
# load before it).  Once per venv, a collection allowed to write keeps them
# (every module collected, none run; a warm-up only: its status is not news).
REWRITTEN := $(VENV)/.pytest-rewritten
$(REWRITTEN): $(STAMP)
	@PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider -m warm_up_only >/dev/null 2>&1 || true
	@touch $@

run: bytecode
	$(BIN)/referee play cantris --player builtin:greedy --player builtin:random --seed 1 --out step_logs/demo --replace
	@echo ""
	@echo "Next, try:"
	@echo "  source $(BIN)/activate               # puts 'referee' on your PATH"
	@echo "  referee replay step_logs/demo           # step through this match: Enter/n, p, j K, q"
	@echo "  referee new-player cantris mybot        # a player of your own to start from"
	@echo "  referee play cantris --player \"python3 mybot/player.py\" --player builtin:greedy"

test: bytecode $(REWRITTEN)
	$(PYTEST)

# Unit tests and the quick end-to-end cases, in under a minute: everything not
# marked `slow`.
check: bytecode $(REWRITTEN)
	$(PYTEST) -m "not slow"

bench: bytecode
	$(BIN)/python tests/bench/run.py

# This checkout against another revision, in one run: make bench-ab BASE=main
bench-ab: bytecode
	$(BIN)/python tests/bench/ab.py $(BASE)

clean:
	rm -rf $(VENV) build *.egg-info
