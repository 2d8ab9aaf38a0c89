#!/usr/bin/env bash
# Main results (Table 1): GateMix on four benchmarks, horizon 96, three seeds each.
set -euo pipefail
cd "$(dirname "$0")/.."

SEEDS="2021 2022 2023"
mkdir -p runs results
: > runs/main_per_seed.log

for dataset in etth1 ettm1 weather electricity; do
  for seed in ${SEEDS}; do
    python train.py --config "configs/${dataset}.yaml" --seed "${seed}" \
      --out "runs/${dataset}_s${seed}"
    python evaluate.py --checkpoint "runs/${dataset}_s${seed}" --split test \
      --append-log runs/main_per_seed.log
  done
done

python scripts/aggregate_results.py runs/main_per_seed.log --out results/main_results.log
