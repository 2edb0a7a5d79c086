#!/bin/sh
# Seventh pass, final: every arm on this machine. MTRAG: raw, oracle, prose and anythingllm from
# eval-2026-12-02-h (the rewriting arms' first run on this machine), resolve run again with the final code.
# The sample (naive, all 80) and its seeded 40 in mix mode: raw, resolve and oracle from eval-2026-12-02-i(-mix),
# the final code, with prose and anythingllm run here. Copies made with (the MTRAG header gains
# "check_sole_candidate": false by hand, as reuse_eval.py says):
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-h benchmarks/results/eval-2026-12-02-j --rerun resolve --datasets mtrag
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-i benchmarks/results/eval-2026-12-02-j --rerun "" --datasets sample
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-i-mix benchmarks/results/eval-2026-12-02-j-mix --rerun "" --datasets sample
cd "$(dirname "$0")/../../.."
OUT=benchmarks/results/eval-2026-12-02-j
MIX=benchmarks/results/eval-2026-12-02-j-mix
ARMS=raw,resolve,prose,anythingllm,oracle
echo "mtrag start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets mtrag --mtrag-follow-ups 150 \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/mtrag-naive.log 2>&1
echo "sample start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode naive \
    --arms $ARMS --runs 2 --out $OUT --no-progress > $OUT/sample-naive.log 2>&1
echo "mix start $(date +%T)" >> $OUT/times.log
EMBEDDING_TIMEOUT=1800 .venv/bin/python benchmarks/eval_report.py --datasets sample --sample-mode mix --limit 40 \
    --arms $ARMS --runs 2 --out $MIX --no-progress > $MIX/sample-mix.log 2>&1
echo "mix end $(date +%T)" >> $OUT/times.log
