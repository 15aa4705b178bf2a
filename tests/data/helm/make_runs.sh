#!/bin/sh
# Remake the two HELM runs in this directory: helm-run's own output, offline.
# Needs Python 3.10+; crfm-helm is installed into a temporary virtual environment,
# never into the repository. HELM's SimpleClient answers from the prompt itself
# (no network, no model weights); simple/model2 is the same client registered
# under a second name with HELM's prod_env mechanism (prod_env/*.yaml below).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cd "$work"
python3 -m venv venv
venv/bin/pip install --quiet crfm-helm==0.5.16
mkdir prod_env
cp "$here/prod_env/model_deployments.yaml" "$here/prod_env/model_metadata.yaml" prod_env/
venv/bin/helm-run --suite fixture -m 4 --run-entries \
    "simple_mcqa:model=simple/model1,data_augmentation=lower,num_train_trials=2" \
    "simple_mcqa:model=simple/model2,format_prompt=Question=,data_augmentation=lower,num_train_trials=2"
for run in benchmark_output/runs/fixture/simple_mcqa:*; do
    name=$(basename "$run" | sed 's/^simple_mcqa:model=\(simple_model[12]\),.*/\1/')
    mkdir -p "$here/runs/$name"
    cp "$run/run_spec.json" "$run/per_instance_stats.json" "$run/scenario_state.json" \
        "$here/runs/$name/"
done
rm -rf "$work"
