#!/usr/bin/env bash
# Generated-request testing of the live API: installs schemathesis (PyPI, pinned) into a virtualenv under
# ~/.cache/nap unless it is there, then runs scripts/ci/schemathesis.ts, which starts a Hardhat node, deploys, starts
# the API on free ports, registers and funds an agent, runs schemathesis with the agent's key and requires at least
# 2,000 requests, 0 server errors and 0 schema violations; everything it starts is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

VERSION=4.32.5
VENV="${NAP_CACHE:-$HOME/.cache/nap}/schemathesis-$VERSION"
ST="$VENV/bin/st"

if ! "$ST" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "installing schemathesis $VERSION into $VENV ..."
  if ! python3 -m venv "$VENV" 2>/dev/null; then
    # Debian ships venv separately (python3-venv); without it, a plain install into the same folder.
    rm -rf "$VENV"
    python3 -m pip install --quiet --target "$VENV/lib" "schemathesis==$VERSION"
    mkdir -p "$VENV/bin"
    printf '#!/usr/bin/env bash\nPYTHONPATH="%s/lib${PYTHONPATH:+:$PYTHONPATH}" exec python3 -m schemathesis.cli "$@"\n' "$VENV" > "$ST"
    chmod +x "$ST"
  else
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
  fi
fi
"$ST" --version

SCHEMATHESIS="$ST" exec node -r ts-node/register/transpile-only scripts/ci/schemathesis.ts
