# One-command set-up: `make demo` and `make test` each create the venv, install,
# fetch and verify the default model, and build the demo graph — idempotently.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .make-stamps
DB ?= data/nobel
# Elsewhere than this machine, torch 2.13.0+cpu comes from PyTorch's CPU index:
#   make demo TORCH_INDEX=--extra-index-url=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
export VLLM_CPU_KVCACHE_SPACE ?= 2
export HF_HUB_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: demo test serve setup model graph browser graphviz bench-graph bench-cache clean

demo: setup graph
	$(VENV)/bin/glm-dspy demo --db $(DB)

test: setup graph browser graphviz
	$(PY) -m pytest -q -x --durations=10

# GLM as an HTTP service with its page at http://127.0.0.1:8000/ (glm_dspy/serving/service.py)
serve: setup graph graphviz
	$(VENV)/bin/glm-dspy serve --db $(DB) --port $(or $(PORT),8000)

# the service page's test drives Debian's chromium; installed here when missing and apt can (else it is skipped)
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
		 DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null) || \
		echo "chromium/chromedriver not installed: the page's browser test will be skipped"

# the answer's evidence is drawn by Graphviz's `dot` (glm_dspy/evidence/draw.py), Debian's graphviz package
graphviz:
	@command -v dot >/dev/null || \
		(command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
		 DEBIAN_FRONTEND=noninteractive apt-get install -y -q graphviz >/dev/null) || \
		echo "graphviz not installed: the page and ask --show will not draw the evidence (apt-get install graphviz)"

setup: $(STAMPS)/install model

$(STAMPS)/venv:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/install: $(STAMPS)/venv pyproject.toml
	$(PY) -m pip install --quiet torch==2.13.0 $(TORCH_INDEX)
	$(PY) -m pip install --quiet -e '.[cpu,test]' $(TORCH_INDEX)
	# their CUDA builds break `import vllm` against CPU torch
	$(PY) -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	@touch $@

model: $(STAMPS)/install
	$(PY) -m glm_dspy.lm.models

graph: $(DB)/meta.json

$(DB)/meta.json: $(STAMPS)/install graphs/nobel.py graphs/load.py graphs/schema.py
	$(VENV)/bin/glm-dspy build nobel --db $(DB) --force

bench-graph: setup
	$(PY) -m glm_dspy.bench.graph

bench-cache: setup graph
	$(PY) -m glm_dspy.bench.cache

clean:
	rm -rf $(STAMPS) data
