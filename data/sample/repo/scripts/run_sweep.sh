#!/usr/bin/env bash
# Sensitivity (Table 4): number of mixing blocks x hidden width on ETTh1, seed 2021.
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p runs/sweep results
echo "n_blocks,d_model,mse" > results/sweep_etth1.csv

for n_blocks in 1 2 3 4; do
  for d_model in 64 128 256; do
    run="runs/sweep/etth1_k${n_blocks}_d${d_model}"
    python train.py --config configs/etth1.yaml --n-blocks "${n_blocks}" \
      --d-model "${d_model}" --seed 2021 --out "${run}"
    mse=$(python evaluate.py --checkpoint "${run}" --split test \
      | python -c "import json, sys; print(json.load(sys.stdin)['mse'])")
    echo "${n_blocks},${d_model},${mse}" >> results/sweep_etth1.csv
  done
done
