#!/usr/bin/env bash
# Static analysis of contracts/ with slither (PyPI: slither-analyzer), over Hardhat's build-info.
# Fails on any medium or high finding. A finding we accept is silenced where it occurs with
# `// slither-disable-next-line <detector>` and its reason is written in docs/slither-triage.md.
set -euo pipefail
cd "$(dirname "$0")/.."
version="0.11.6"
if ! command -v slither >/dev/null || [ "$(slither --version 2>/dev/null)" != "$version" ]; then
  python3 -m pip install --quiet --disable-pip-version-check "slither-analyzer==$version" </dev/null
fi
# slither reads the artifacts; compile first so that they match the sources.
npx hardhat compile --quiet
slither . --config-file slither.config.json --fail-medium
