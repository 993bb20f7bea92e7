PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE_STAMP := $(VENV)/.installed-core
TEST_STAMP := $(VENV)/.installed-test
MIN_VENV := .venv-min
MIN_STAMP := $(MIN_VENV)/.installed

.PHONY: demo test test-slow test-min bench docs clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# the core: the env, agents, training and evaluation (what `make demo` runs)
$(CORE_STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install -q -c constraints.txt -e .
	touch $@

# everything the tests exercise: the dev tools and the ray, rllib and sb3 extras
$(TEST_STAMP): $(CORE_STAMP)
	$(BIN)/pip install -q -c constraints.txt -e ".[dev,ray,rllib,sb3]"
	touch $@

demo: $(CORE_STAMP)
	rm -rf runs/demo
	$(BIN)/python train.py --config configs/smoke.yaml --run-dir runs/demo
	$(BIN)/python evaluate.py runs/demo/latest.pt random --deals 200

test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q

test-slow: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -m slow

# the lowest versions pyproject.toml admits (constraints-min.txt), in a venv of their own
$(MIN_STAMP): pyproject.toml constraints-min.txt
	$(PY) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/pip install -q --upgrade pip
	$(MIN_VENV)/bin/pip install -q -c constraints-min.txt -e ".[dev,ray,sb3]"
	touch $@

test-min: $(MIN_STAMP)
	$(MIN_VENV)/bin/python -m pytest -q

bench: $(CORE_STAMP)
	$(BIN)/pip install -q -c constraints.txt -e ".[bench]"
	$(BIN)/python benchmarks/env_speed.py
	$(BIN)/python benchmarks/batch_speed.py
	$(BIN)/python benchmarks/eval_speed.py

# docs/config.md from the config models (tests/test_config_reference.py checks it is current)
docs: $(CORE_STAMP)
	$(BIN)/python -m training.config_reference

clean:
	rm -rf $(VENV) $(MIN_VENV)
