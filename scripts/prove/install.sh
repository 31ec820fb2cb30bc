#!/usr/bin/env bash
# Installs the symbolic-proof tools once into a cache folder (NAP_TOOLS_DIR, default ~/.cache/nap), from the
# registries only: Foundry's forge from the npm package @foundry-rs/forge (its binary is inside the package) and
# halmos from PyPI in a virtualenv, with cvc5 from PyPI in the same virtualenv (the solver the proofs marked
# `solver=cvc5-int` use, through scripts/prove/cvc5-int.py). A later run finds them there and installs nothing.
# Prints the paths of forge, halmos and the virtualenv's python.
set -euo pipefail

FORGE_VERSION=1.7.1
HALMOS_VERSION=0.3.3
CVC5_VERSION=1.4.2
dir="${NAP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nap}"
forge_dir="$dir/forge-$FORGE_VERSION"
halmos_dir="$dir/halmos-$HALMOS_VERSION"
forge="$forge_dir/node_modules/.bin/forge"
halmos="$halmos_dir/bin/halmos"

if ! "$forge" --version 2>/dev/null | grep -q "$FORGE_VERSION"; then
  echo "installing forge $FORGE_VERSION (npm @foundry-rs/forge) into $forge_dir ..." >&2
  mkdir -p "$forge_dir"
  npm install --prefix "$forge_dir" --no-audit --no-fund --no-save "@foundry-rs/forge@$FORGE_VERSION" >&2
fi
if ! "$halmos" --version 2>/dev/null | grep -q "$HALMOS_VERSION"; then
  echo "installing halmos $HALMOS_VERSION (PyPI) into $halmos_dir ..." >&2
  rm -rf "$halmos_dir"
  python3 -m venv "$halmos_dir"
  "$halmos_dir/bin/pip" install --quiet --disable-pip-version-check "halmos==$HALMOS_VERSION" >&2
fi
python="$halmos_dir/bin/python"
if ! "$python" -c "import cvc5, sys; sys.exit(cvc5.__version__ != '$CVC5_VERSION')" 2>/dev/null; then
  echo "installing cvc5 $CVC5_VERSION (PyPI) into $halmos_dir ..." >&2
  "$halmos_dir/bin/pip" install --quiet --disable-pip-version-check "cvc5==$CVC5_VERSION" >&2
fi
echo "$forge"
echo "$halmos"
echo "$python"
