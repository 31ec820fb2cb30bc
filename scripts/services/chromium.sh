#!/usr/bin/env bash
# Prints the path of a headless-capable Chromium for the browser tests of the reference pages (/docs, /v1/docs,
# GraphiQL). CHROMIUM_PATH wins; else the machine's chromium; else Debian's package, installed once with apt-get when
# this runs as root (the machines reach Debian's registry, not Google's download hosts that Playwright's own browser
# download uses).
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || { echo "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable" >&2; exit 1; }
  echo "$CHROMIUM_PATH"
  exit 0
fi
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then
    command -v "$candidate"
    exit 0
  fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "services: installing Debian's chromium with apt-get (once)..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2 \
    || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >&2; }
  command -v chromium
  exit 0
fi
echo "no Chromium found: install Debian's 'chromium' package (or your system's) or set CHROMIUM_PATH" >&2
exit 1
