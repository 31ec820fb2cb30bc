#!/usr/bin/env bash
# The Python SDK's proof, from the artifact rather than the repository: builds the wheel of packages/python, installs
# it into a fresh virtual environment in a temporary folder (its dependencies from PyPI, nothing else from here),
# runs the Python quickstart (examples/quickstart.py) with that environment's Python against a stack of its own
# (scripts/examples/python.ts), then the SDK's pytest tests with the same installed package.
# Env: PYTHON, the interpreter the virtual environment is made from (default python3; the SDK supports >= 3.10).
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTEST_VERSION=9.2.0
HYPOTHESIS_VERSION=6.168.5
work=$(mktemp -d "${TMPDIR:-/tmp}/nap-python-sdk-XXXXXX")
trap 'rm -rf "$work"' EXIT
pip_quiet=(--quiet --disable-pip-version-check --no-input)

echo "building the wheel of packages/python ..."
python3 -m pip wheel "${pip_quiet[@]}" --no-deps packages/python --wheel-dir "$work/dist"
wheel=$(ls "$work"/dist/*.whl)
echo "wheel: $(basename "$wheel"), $(stat -c %s "$wheel") bytes"

echo "installing it into a fresh virtual environment ($work/venv) ..."
"${PYTHON:-python3}" -m venv "$work/venv"
python="$work/venv/bin/python"
"$python" -m pip install "${pip_quiet[@]}" "$wheel"
# What the quickstart imports is the installed wheel, never the source tree.
"$python" -c 'import nap, sys; assert nap.__file__.startswith(sys.prefix), nap.__file__; print(f"nap {nap.__version__} from {nap.__file__}")'

NAP_PYTHON="$python" node -r ts-node/register/transpile-only scripts/examples/python.ts
# Signed writes (issue 30) by a wallet without ETH through the installed SDK, on a stack of its own.
NAP_PYTHON="$python" NAP_SKIP_TS=1 node -r ts-node/register/transpile-only scripts/examples/signedWrites.ts

echo "the SDK's tests (pytest $PYTEST_VERSION, hypothesis $HYPOTHESIS_VERSION) against the installed wheel ..."
"$python" -m pip install "${pip_quiet[@]}" "pytest==$PYTEST_VERSION" "hypothesis==$HYPOTHESIS_VERSION"
"$python" -m pytest -p no:cacheprovider --import-mode=importlib packages/python/tests
