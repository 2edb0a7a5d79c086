"""``serve``'s own options: ``--local``, ``--offline-tokenizer``, ``--sample``, without a model or a server.

What they change is pure (the flags taken out, the resolver's defaults, the
local model's context); the errors stop before LightRAG's server is imported.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from harness import require_server_deps

from lightrag_resolve import ResolverConfig
from lightrag_resolve.cli import main
from lightrag_resolve.cli.serve import OWN_FLAGS, FlagError, split_flags
from lightrag_resolve.local import LOCAL_RESOLVER_TIMEOUT
from lightrag_resolve.sample import COMPANY_NAME
from lightrag_resolve.server._launch import served_resolver_config
from lightrag_resolve.server._local_serving import LOCAL_SERVER_SETTINGS
from lightrag_resolve.server._served import local_context_size


def test_own_flags_are_taken_out_and_lightrags_arguments_keep_their_order():
    own, rest = split_flags(["--port", "9621", "--local", "--working-dir", "kb", "--sample"], tuple(OWN_FLAGS))
    assert own == {"--local", "--sample"}
    assert rest == ["--port", "9621", "--working-dir", "kb"]


def test_only_exact_tokens_are_own_flags():
    own, rest = split_flags(["--local-thing", "--working-dir=--local"], tuple(OWN_FLAGS))
    assert own == set() and rest == ["--local-thing", "--working-dir=--local"]


def test_a_flag_the_command_does_not_take_is_refused_by_name():
    with pytest.raises(FlagError, match="--local"):
        split_flags(["--workers", "2", "--local"], ("--offline-tokenizer",))


@pytest.mark.parametrize("flag", ["--local", "--sample"])
def test_serve_gunicorn_refuses_the_single_process_flags(flag: str, capsys: pytest.CaptureFixture[str]):
    assert main(["serve-gunicorn", "--workers", "2", flag]) == 2
    err = capsys.readouterr().err
    assert flag in err and "lightrag-resolve serve" in err


def test_local_gives_the_resolver_the_local_models_timeouts():
    config = served_resolver_config(ResolverConfig(), {}, local=True, sample=False)
    assert (config.timeout, config.reference_timeout) == (LOCAL_RESOLVER_TIMEOUT, LOCAL_RESOLVER_TIMEOUT)
    assert config.company_name is None


def test_the_sample_gives_the_resolver_its_company():
    config = served_resolver_config(ResolverConfig(), {}, local=False, sample=True)
    assert config.company_name == COMPANY_NAME
    assert (config.timeout, config.reference_timeout) == (ResolverConfig().timeout, ResolverConfig().reference_timeout)


def test_a_resolver_variable_wins_over_those_defaults():
    environ = {"RESOLVER_TIMEOUT": "7", "RESOLVER_COMPANY_NAME": "Helix", "RESOLVER_REFERENCE_TIMEOUT": " "}
    given = ResolverConfig(timeout=7, company_name="Helix")
    config = served_resolver_config(given, environ, local=True, sample=True)
    assert (config.timeout, config.company_name) == (7, "Helix")
    assert config.reference_timeout == LOCAL_RESOLVER_TIMEOUT  # blank counts as unset


def test_without_local_or_sample_the_configuration_is_untouched():
    given = ResolverConfig(company_name="Helix")
    assert served_resolver_config(given, {}, local=False, sample=False) is given


@pytest.mark.parametrize(
    ("budget", "context"),
    [
        (30000, 32768),  # LightRAG's default budget: the model's whole trained context
        (6000, 8192),  # 7,500 + 256 rounded up to a multiple of 1,024
        (3000, 4096),
        (100, 2048),  # never below the resolver's and LightRAG's short prompts
    ],
)
def test_the_local_models_context_holds_lightrags_prompt_budget_and_the_answer(budget: int, context: int):
    size = local_context_size(budget, 256)
    assert size == context
    assert size % 1024 == 0
    assert size >= min(32768, budget + 256)


@pytest.fixture
def clean_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No RESOLVER_* from outside, an empty working directory, sys.argv and LightRAG's model names restored."""
    require_server_deps()
    for name in [name for name in os.environ if name.startswith("RESOLVER_")]:
        monkeypatch.delenv(name)
    for name in ("LLM_MODEL", "EMBEDDING_MODEL", "EMBEDDING_DIM"):  # --local names its models there
        monkeypatch.setenv(name, os.environ.get(name, "unset"))
    for name in [*LOCAL_SERVER_SETTINGS, "HOST", "LIGHTRAG_API_KEY", "WHITELIST_PATHS"]:  # restored after the test
        monkeypatch.setenv(name, "restored")
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", list(sys.argv))


@pytest.mark.usefixtures("clean_start")
def test_help_lists_this_commands_flags_after_lightrags(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: lightrag-resolve serve") and "--llm-binding" in out
    assert out.index("--llm-binding") < out.index("lightrag-resolve options")
    assert all(flag in out for flag in OWN_FLAGS)


@pytest.mark.usefixtures("clean_start")
def test_local_without_the_local_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    # The runtime is hidden, whether or not this machine has it: the real loader must then say what to install.
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    assert main(["serve", "--local", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "is not installed" in err and "scripts/install-local.sh" in err and "lightrag-resolve[local]" in err


# ---- serve --local: LightRAG's settings sized for a small CPU, and the models named ------------------


def test_local_sets_only_the_settings_nobody_chose_and_says_which():
    from lightrag_resolve.server._local_serving import apply_local_settings

    environ = {"TOP_K": "25", "MAX_TOTAL_TOKENS": " "}
    chosen = apply_local_settings(environ)
    assert chosen == {name: value for name, value in LOCAL_SERVER_SETTINGS.items() if name != "TOP_K"}
    assert environ["TOP_K"] == "25" and environ["MAX_TOTAL_TOKENS"] == LOCAL_SERVER_SETTINGS["MAX_TOTAL_TOKENS"]


def test_the_local_budget_keeps_the_answer_call_well_under_lightrags_timeout():
    """The arithmetic of _local_serving, from the measured speeds of docs/local-models.md."""
    from lightrag_resolve.server._local_serving import LOCAL_ANSWER_TOKENS

    slowest_prompt_tokens_per_s, generated_tokens_per_s = 40, 20
    prompt_s = int(LOCAL_SERVER_SETTINGS["MAX_TOTAL_TOKENS"]) * 1.25 / slowest_prompt_tokens_per_s
    answer_call_s = prompt_s + LOCAL_ANSWER_TOKENS / generated_tokens_per_s
    assert answer_call_s < 240 / 2  # LightRAG's default LLM_TIMEOUT, with room to spare
    assert int(LOCAL_SERVER_SETTINGS["LLM_TIMEOUT"]) >= 4 * answer_call_s  # a busy machine is several times slower
    assert local_context_size(int(LOCAL_SERVER_SETTINGS["MAX_TOTAL_TOKENS"]), LOCAL_ANSWER_TOKENS) == 5120


def test_a_query_left_at_lightrags_defaults_gets_the_served_ones_and_a_chosen_value_is_kept():
    from lightrag import QueryParam

    from lightrag_resolve.server._local_serving import query_defaults, with_served_defaults

    defaults = query_defaults({"CHUNK_TOP_K": "5", "MAX_TOTAL_TOKENS": "3000", "LLM_TIMEOUT": "600"})
    assert defaults == {"chunk_top_k": 5, "max_total_tokens": 3000}
    plain = QueryParam(mode="mix")
    served = with_served_defaults(plain, defaults)
    assert (served.chunk_top_k, served.max_total_tokens, served.mode) == (5, 3000, "mix")
    assert plain.max_total_tokens == QueryParam().max_total_tokens  # the caller's object is not mutated
    chosen = QueryParam(max_total_tokens=12345)
    assert with_served_defaults(chosen, defaults).max_total_tokens == 12345
    assert with_served_defaults(plain, {}) is plain


def test_served_models_are_named_where_lightrag_names_its_bindings():
    from lightrag_resolve.server import ServedModels
    from lightrag_resolve.server._served import served_bindings

    class FakeEmbedding:
        model_name = "fake-e5"

    async def fake_llm(prompt: str, **kwargs: object) -> str:
        return ""

    shown = served_bindings(ServedModels(llm=fake_llm, llm_name="fake-qwen", embedding=FakeEmbedding()))  # type: ignore[arg-type]
    assert shown == {
        "llm_binding": "lightrag-resolve",
        "llm_binding_host": "in-process",
        "llm_model": "fake-qwen",
        "embedding_binding": "lightrag-resolve",
        "embedding_binding_host": "in-process",
        "embedding_model": "fake-e5",
    }
    assert served_bindings(ServedModels()) == {}  # --offline-tokenizer: LightRAG's bindings are the real ones


def test_the_splash_screen_and_health_read_the_served_names_after_lightrag_built_the_app():
    import argparse

    from lightrag_resolve.server._seam import _describing_splash, _serving_app

    args = argparse.Namespace(llm_binding="ollama", llm_binding_host="http://localhost:11434", top_k=10)
    bindings = {"llm_binding": "lightrag-resolve", "llm_binding_host": "in-process"}
    built_with: list[str] = []
    create_app = _serving_app(lambda given: built_with.append(given.llm_binding) or "app", bindings)
    shown: list[argparse.Namespace] = []
    splash = _describing_splash(shown.append, bindings)

    splash(args)
    assert shown[0].llm_binding == "lightrag-resolve" and shown[0].top_k == 10
    assert args.llm_binding == "ollama"  # the splash saw a copy; LightRAG's create_app still checks its own value
    assert create_app(args) == "app" and built_with == ["ollama"]
    assert (args.llm_binding, args.llm_binding_host) == ("lightrag-resolve", "in-process")  # what /health reads


# ---- serve --local listens on this machine unless told otherwise ------------------------------------


def test_local_binds_loopback_only_when_neither_host_flag_nor_variable_chose():
    from lightrag_resolve.server._local_serving import LOCAL_HOST, apply_local_host

    environ: dict[str, str] = {}
    assert apply_local_host(["--port", "9621"], environ) == LOCAL_HOST == environ["HOST"] == "127.0.0.1"
    for argv, given in ((["--host", "0.0.0.0"], {}), (["--host=10.0.0.2"], {}), ([], {"HOST": "0.0.0.0"})):
        environ = dict(given)
        assert apply_local_host(argv, environ) is None and environ == given


def test_the_exposure_note_names_the_api_key_and_the_open_chat_api():
    from lightrag_resolve.server._local_serving import exposure_note

    local = exposure_note("127.0.0.1", {})
    assert local and "this machine only" in local and "LIGHTRAG_API_KEY" in local and "WHITELIST_PATHS" in local
    assert "no LIGHTRAG_API_KEY" in (exposure_note("0.0.0.0", {}) or "")
    assert "/api/*" in (exposure_note("0.0.0.0", {"LIGHTRAG_API_KEY": "k"}) or "")
    assert exposure_note("0.0.0.0", {"LIGHTRAG_API_KEY": "k", "WHITELIST_PATHS": "/health"}) is None


@pytest.fixture
def parsed_host(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``serve`` run up to LightRAG's ``main`` (faked), with no model loaded: the host LightRAG parsed."""
    import types

    require_server_deps()

    from lightrag.api import config as lightrag_config

    from lightrag_resolve.server import _launch, _seam
    from lightrag_resolve.server._served import ServedModels

    monkeypatch.setattr(lightrag_config, "_initialized", False)  # parse this test's sys.argv, restored after
    monkeypatch.setattr(lightrag_config, "_global_args", None)
    monkeypatch.setattr(_launch, "_served_models", lambda **kwargs: ServedModels())
    monkeypatch.setattr(_launch, "_show_resolutions", lambda level: None)
    monkeypatch.setattr(_seam, "install", lambda *args, **kwargs: None)
    hosts: list[str] = []
    fake_server = types.SimpleNamespace(main=lambda: hosts.append(lightrag_config.global_args.host))
    monkeypatch.setitem(sys.modules, "lightrag.api.lightrag_server", fake_server)
    return hosts


@pytest.mark.usefixtures("clean_start")
@pytest.mark.parametrize(
    ("argv", "host", "note"),
    [
        (["serve", "--local"], "127.0.0.1", "this machine only"),
        (["serve", "--local", "--host", "0.0.0.0"], "0.0.0.0", "no LIGHTRAG_API_KEY"),
        (["serve"], "0.0.0.0", None),  # without --local: LightRAG's own default, and nothing added to its log
    ],
)
def test_serve_local_binds_127_0_0_1_by_default(
    argv: list[str], host: str, note: str | None, parsed_host: list[str], capsys: pytest.CaptureFixture[str]
):
    assert main([*argv, "--port", "9621"]) == 0
    assert parsed_host == [host]
    err = capsys.readouterr().err
    if note is None:
        assert "LIGHTRAG_API_KEY" not in err
    else:
        assert note in err and "LIGHTRAG_API_KEY" in err
