#!/usr/bin/env bash
# Ablation study (Table 2): remove or add one component at a time, MSE at horizon 96.
set -euo pipefail
cd "$(dirname "$0")/.."

SEEDS="2021 2022 2023"
mkdir -p runs results
: > runs/ablation_per_seed.log

declare -A VARIANTS=(
  [full]=""
  [no_gate]="--no-gate"
  [no_channel_mix]="--no-channel-mix"
  [no_patch]="--no-patch"
  [learn_temperature]="--learn-temperature"
)

for dataset in etth1 weather electricity; do
  for variant in full no_gate no_channel_mix no_patch learn_temperature; do
    for seed in ${SEEDS}; do
      run="runs/ablation/${dataset}_${variant}_s${seed}"
      # shellcheck disable=SC2086
      python train.py --config "configs/${dataset}.yaml" --seed "${seed}" --out "${run}" \
        ${VARIANTS[$variant]}
      python evaluate.py --checkpoint "${run}" --split test --variant "${variant}" \
        --append-log runs/ablation_per_seed.log
    done
  done
done

python scripts/aggregate_results.py runs/ablation_per_seed.log --metrics mse \
  --out results/ablation_results.log
