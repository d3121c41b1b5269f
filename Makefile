# ruling-dumps: `make run` runs the nightly job on raw/ into output/; `make test` runs the tests.
# Both create the virtual environment (.venv) from requirements.lock when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint lock clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check \
		--constraint requirements.lock --editable '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/ruling-dumps run --raw raw --output output

# Two worker processes (pytest-xdist), one per core, each given the next tests as it frees
# up (the slow ones first: tests/conftest.py).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist load --maxschedchunk 2

lint: $(STAMP)
	$(BIN)/ruff check flows schemas bench tests
	$(BIN)/ruff format --check flows schemas bench tests

# Re-pin every dependency after changing pyproject.toml (in a fresh venv: nothing stale is pinned).
lock:
	rm -rf /tmp/ruling-dumps-lock && $(PYTHON) -m venv /tmp/ruling-dumps-lock
	/tmp/ruling-dumps-lock/bin/python -m pip install --quiet '.[test]'
	/tmp/ruling-dumps-lock/bin/python -m pip freeze --exclude-editable \
		| grep -v '^ruling-dumps' > requirements.lock

clean:
	rm -rf $(VENV) build *.egg-info
