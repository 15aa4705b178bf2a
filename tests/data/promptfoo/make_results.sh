#!/bin/sh
# Remake results.json: promptfoo's own output for promptfooconfig.yaml.
# Needs Node.js (20 or newer) and npm; promptfoo is installed into a temporary
# directory, never into the repository. The echo provider runs locally, so no
# network is used after the install.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund promptfoo@0.121.20 >/dev/null
cp "$here/promptfooconfig.yaml" .
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_CONFIG_DIR="$work/cfg"
# one test errors on purpose, so promptfoo exits 100: that is expected
npx promptfoo eval -c promptfooconfig.yaml --output results.json --no-cache --no-table \
    --no-write || [ $? -eq 100 ]
cp results.json "$here/results.json"
rm -rf "$work"
