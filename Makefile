# Two commands set everything up on a fresh machine:  make run  and  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench validate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## run: serve the talk on http://127.0.0.1:8000
run: $(STAMP)
	$(BIN)/attention-talk serve

## test: lint, then every test (unit, API and real-Chromium browser tests)
test: $(STAMP) lint
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

## bench: speed tables (never asserts times); HTTP load comes from wrk when installed
bench: $(STAMP)
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/server.py
	$(BIN)/python benchmarks/page.py
	$(BIN)/python benchmarks/keypaint.py

validate: $(STAMP)
	$(BIN)/attention-talk validate

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis dist build
