#!/usr/bin/env bash
# Builds FerretDB v1 (a MongoDB wire-protocol server on SQLite) from the Go module proxy, once, into a cache folder,
# and prints the binary's path. No MongoDB server exists in Debian or npm and mongodb-memory-server downloads mongod
# from a host our machines cannot reach, so this is how tests get a real MongoDB-protocol store.
set -euo pipefail
version="v1.24.2"
dir="${NAP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nap}"
bin="$dir/ferretdb-$version"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
command -v go >/dev/null || { echo "ferretdb.sh: Go is needed to build FerretDB (or set MONGODB_URI)" >&2; exit 1; }
mkdir -p "$dir"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
# `go install pkg@version` asks the proxy for the module's version list, which it refuses for this module, so fetch
# the exact version by its path instead.
export GOFLAGS=-mod=mod GOPATH="${GOPATH:-$HOME/go}"
src=$(cd "$work" && go mod download -json "github.com/FerretDB/FerretDB@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] || { echo "ferretdb.sh: could not download FerretDB $version" >&2; exit 1; }
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
# Release builds get this file from `git describe`; the module zip has no git metadata.
echo "$version" > "$work/src/build/version/version.txt"
(cd "$work/src" && go build -trimpath -o "$bin.tmp" ./cmd/ferretdb) >&2
mv "$bin.tmp" "$bin"
echo "$bin"
