PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow bench clean

$(STAMP): pyproject.toml constraints.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c constraints.txt -e ".[dev,ray,rllib,sb3]"
	touch $(STAMP)

demo: $(STAMP)
	rm -rf runs/demo
	$(BIN)/python train.py --config configs/smoke.yaml --run-dir runs/demo
	$(BIN)/python evaluate.py runs/demo/latest.pt random --deals 200

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP)
	$(BIN)/pip install -q -c constraints.txt -e ".[bench]"
	$(BIN)/python benchmarks/env_speed.py
	$(BIN)/python benchmarks/batch_speed.py
	$(BIN)/python benchmarks/eval_speed.py

clean:
	rm -rf $(VENV)
