# Sourced by .ci/run before anything else: everything after it runs on Node 24 LTS. When the machine's Node is older,
# Node 24 comes from the npm registry's `node` package (it carries the binary for this platform), installed once into
# the tools cache (NAP_TOOLS_DIR, default ~/.cache/nap) and put first on PATH; later runs find it there at once.
# Only npm is needed, which every Node comes with; no download from anywhere but the npm registry.

nap_node_major=24
nap_node_dir="${NAP_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/nap}/node-$nap_node_major"
nap_node_bin="$nap_node_dir/node_modules/node/bin"

nap_major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(nap_major_of node)" -lt "$nap_node_major" ]; then
  if [ "$(nap_major_of "$nap_node_bin/node")" -ne "$nap_node_major" ]; then
    echo "[ci] installing Node $nap_node_major from the npm registry into $nap_node_dir"
    npm install --prefix "$nap_node_dir" --no-audit --no-fund --loglevel=error "node@$nap_node_major" </dev/null
  fi
  export PATH="$nap_node_bin:$PATH"
fi
hash -r
echo "[ci] node $(node --version), npm $(npm --version)"
if [ "$(nap_major_of node)" -lt "$nap_node_major" ]; then
  echo "[ci] Node $nap_node_major is required, $(node --version) is first on PATH" >&2
  return 1 2>/dev/null || exit 1
fi
unset -f nap_major_of
unset nap_node_major nap_node_dir nap_node_bin
