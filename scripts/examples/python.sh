#!/usr/bin/env bash
# Runs the Python quickstart (examples/quickstart.py) against a stack of its own: installs eth-account (PyPI,
# pinned) into ~/.cache/nap unless it is there, then scripts/examples/python.ts starts a Hardhat node, deploys, starts
# the API on free ports, runs the example with that folder on PYTHONPATH, checks what it prints and stops everything.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=0.14.0
TARGET="${NAP_CACHE:-$HOME/.cache/nap}/eth-account-$VERSION"

if ! PYTHONPATH="$TARGET" python3 -c "import eth_account, sys; sys.exit(eth_account.__version__ != '$VERSION')" 2>/dev/null; then
  echo "installing eth-account $VERSION into $TARGET ..."
  rm -rf "$TARGET"
  # A folder of its own: what the machine's Python already has installed is neither used nor changed.
  python3 -m pip install --quiet --disable-pip-version-check --no-warn-conflicts --root-user-action=ignore \
    --target "$TARGET" "eth-account==$VERSION"
fi

ETH_ACCOUNT_PATH="$TARGET" exec node -r ts-node/register/transpile-only scripts/examples/python.ts
