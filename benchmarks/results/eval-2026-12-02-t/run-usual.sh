#!/bin/sh
# Tenth pass, the pointer words alone on MTRAG's default cut: the baseline (e1a58e8, worktree /work/base, raw and
# resolve; the index copied from eval-2026-12-02-r-base/held-out), then the pointer words (/work/ptr) from it:
#   python benchmarks/reuse_eval.py benchmarks/results/eval-2026-12-02-t/usual-base benchmarks/results/eval-2026-12-02-t/usual --rerun resolve
OUT=/work/main/benchmarks/results/eval-2026-12-02-t
rm -rf $OUT/usual-base $OUT/usual && mkdir -p $OUT/usual-base/mtrag
cp -r /work/main/benchmarks/results/eval-2026-12-02-r-base/held-out/mtrag/lightrag $OUT/usual-base/mtrag/
cd /work/base
echo "usual-base start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/base EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --arms raw,resolve --runs 2 --out $OUT/usual-base --no-progress > $OUT/usual-base.log 2>&1
echo "usual-base end $(date +%T) rc=$?" >> $OUT/times.log
cd /work/main && .venv/bin/python benchmarks/reuse_eval.py $OUT/usual-base $OUT/usual --rerun resolve
# /work/ptr's ResolverConfig has the (not kept) restate_standing_follow_ups field: the header must say it is off.
.venv/bin/python -c "import json; p='$OUT/usual/mtrag/results.json'; d=json.load(open(p)); d['header']['settings']['resolver']['restate_standing_follow_ups']=False; json.dump(d, open(p, 'w'))"
cd /work/ptr
echo "usual start $(date +%T)" >> $OUT/times.log
PYTHONPATH=/work/ptr EMBEDDING_TIMEOUT=1800 /work/main/.venv/bin/python benchmarks/eval_report.py --datasets mtrag \
    --arms raw,resolve --runs 2 --out $OUT/usual --no-progress > $OUT/usual.log 2>&1
echo "usual end $(date +%T) rc=$?" >> $OUT/times.log
