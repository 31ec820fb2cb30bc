#!/usr/bin/env bash
# `npm run prove`: symbolic proofs of the vaults' and the registry's core rules with halmos (test/symbolic, listed in
# scripts/prove/proofs.txt), for every input within each proof's stated bounds. Installs forge and halmos when
# missing (scripts/prove/install.sh), compiles once with the project's solcjs (scripts/prove/solc), then runs each
# proof in its own halmos process under a time limit and prints one line per proof with its time.
#
# A proof marked `known-finding` in proofs.txt states a rule an open finding breaks: it is expected to fail with a
# counterexample and is reported as such (never skipped); if it passes, the run says to mark it proven.
# A proof marked `out-of-reach` is one the solver does not settle within the budget: each run lists it as not run
# (docs/invariants.md marks its rule tested only), and PROVE_ALL=1 runs it too. `solver=cvc5-int` runs a proof with
# cvc5 reading bit-vectors as integers (scripts/prove/cvc5-int.py) instead of yices: the lemmas of non-linear
# arithmetic in test/symbolic/MathLemmas.t.sol, which bit-blasting does not settle.
# Exit status: non-zero if any other proof fails, times out or errs, or a known finding's proof times out or errs.
# Budget: PROVE_TIMEOUT seconds per proof (default 90; a `timeout=N` after the expectation gives one proof its own)
# and PROVE_SOLVER_TIMEOUT per solver query (default 60s); `.ci/run` gives the whole list 10 minutes.
#
# Foundry's root is build/prove (the config scripts/prove/foundry.toml and links to contracts/, test/,
# node_modules/ and scripts/), not the project root: a foundry.toml there would make slither's crytic-compile take
# the project for a Foundry one (it prefers Foundry to Hardhat) and break `npm run analyze`. contracts/ and
# test/symbolic are copied there, not linked: what is proven is the snapshot compiled at the start, and an edit made
# during the run cannot make halmos recompile inside a proof's time limit.
set -uo pipefail
cd "$(dirname "$0")/../.."

per_proof="${PROVE_TIMEOUT:-90}"
solver_timeout="${PROVE_SOLVER_TIMEOUT:-60s}"
mapfile -t tools < <(bash scripts/prove/install.sh)
if [ "${#tools[@]}" -ne 3 ]; then
  echo "[prove] FAILED: could not install forge, halmos and cvc5"
  exit 1
fi
forge="${tools[0]}"
halmos="${tools[1]}"
cvc5_int="${tools[2]} $(pwd)/scripts/prove/cvc5-int.py"
PATH="$(dirname "$forge"):$PATH"
export PATH

root=build/prove
mkdir -p "$root"
cp scripts/prove/foundry.toml "$root/foundry.toml"
for link in node_modules scripts; do ln -sfn "../../$link" "$root/$link"; done
rm -rf "$root/contracts" "$root/test"
mkdir -p "$root/test"
cp -R contracts "$root/contracts"
cp -R test/symbolic "$root/test/symbolic"

started=$(date +%s)
echo "[prove] forge build (solcjs through scripts/prove/solc) ..."
# The outputs halmos asks forge for, from scratch (a cached build without them would be taken as up to date).
(cd "$root" && forge build --force --quiet --ast --extra-output storageLayout metadata) ||
  { echo "[prove] FAILED: forge build"; exit 1; }

proven=0
known=0
failed=0
failures=()
times=()
log="$(mktemp -d)"
not_run=0
while read -r contract proof expect options; do
  case "$contract" in "" | "#"*) continue ;; esac
  limit="$per_proof"
  solver=()
  reach=""
  for option in $expect ${options:-}; do
    case "$option" in
      timeout=*) limit="${option#timeout=}" ;;
      solver=cvc5-int) solver=(--solver-command "$cvc5_int") ;;
      out-of-reach) reach="out-of-reach" ;;
    esac
  done
  if [ "$reach" = "out-of-reach" ]; then
    if [ "${PROVE_ALL:-0}" != "1" ]; then
      not_run=$((not_run + 1))
      echo "[prove] NOT RUN        $contract.$proof: out of the solver's reach in the budget (PROVE_ALL=1 runs it)"
      continue
    fi
  fi
  t0=$(date +%s)
  out="$log/$contract.$proof.log"
  # Own process group, removed whole afterwards: halmos can leave solver processes behind when it stops.
  setsid timeout --kill-after=10 "$limit" "$halmos" --root "$root" --forge-build-out out --no-status \
    --match-contract "^$contract\$" --match-test "^$proof\\(" \
    --solver-timeout-assertion "$solver_timeout" --solver-max-memory 3000 --loop 4 "${solver[@]}" >"$out" 2>&1 &
  pid=$!
  wait "$pid"
  code=$?
  kill -KILL -- "-$pid" 2>/dev/null
  secs=$(( $(date +%s) - t0 ))
  name="$contract.$proof"
  if [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then
    result="TIMEOUT"
  elif grep -q "PASS\].* $proof(" "$out" && grep -q "1 passed; 0 failed" "$out"; then
    result="PASS"
  elif grep -q "FAIL\].* $proof(" "$out" && grep -q "Counterexample" "$out"; then
    result="FAIL"
  elif grep -q "TIMEOUT\].* $proof(" "$out"; then
    result="TIMEOUT"
  else
    result="ERROR"
  fi
  if [ "$expect" = "known-finding" ] && [ "$result" = "FAIL" ]; then
    known=$((known + 1))
    echo "[prove] KNOWN FINDING  $name (${secs}s): counterexample found, as expected (open finding)"
  elif [ "$result" = "PASS" ]; then
    proven=$((proven + 1))
    if [ "$expect" = "known-finding" ]; then
      echo "[prove] PROVEN         $name (${secs}s): the known finding is fixed; mark it proven in scripts/prove/proofs.txt"
    else
      echo "[prove] PROVEN         $name (${secs}s)"
    fi
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "[prove] $result        $name (${secs}s)"
    grep -vE '^\s*$' "$out" | grep -v "saved in" | tail -30
  fi
done < scripts/prove/proofs.txt
rm -rf "$log"

total=$(( $(date +%s) - started ))
if [ "$failed" -gt 0 ]; then
  echo "[prove] FAILED: ${failed} of $((proven + known + failed)) proofs (${failures[*]}); ${proven} proven, ${known} known findings confirmed, ${not_run} not run, in ${total}s"
  exit 1
fi
echo "[prove] PASSED: ${proven} proven, ${known} known findings confirmed (expected failures), 0 failed, ${not_run} out of reach not run, in ${total}s"
