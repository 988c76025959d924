#!/usr/bin/env bash
# Mutation testing of the convergence analysis: cargo-mutants changes the code of compiler/core/src/convergence/
# (and, with MUTANTS_TYPECK=1, the parts of the type checker it relies on: written-vector tracking, aliases and
# where cells may go) one mutant at a time and runs the tests that judge it: skc-core's unit tests, the property
# test against the reference interpreter, the scaling test, and the UI corpus with the memoized-calls check. A
# mutant that survives is either a missing test or a change that cannot alter behaviour; each survivor is
# explained in scripts/mutants-survivors.md.
#
# Needs cargo-mutants (`cargo install cargo-mutants --locked`). Slow: about a minute per mutant on two cores;
# MUTANTS_SHARD=k/n runs one shard of n (round-robin: every n-th mutant of `cargo mutants --list`, so one
# shard samples every file); MUTANTS_IN_PLACE=1 mutates the working tree itself and builds in its target/
# (incremental, minutes faster per mutant; do not edit or build in the tree meanwhile). Results go to mutants.out/ (outcomes.json, caught.txt, missed.txt,
# timeout.txt, unviable.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

files=(--file 'compiler/core/src/convergence/**')
if [[ "${MUTANTS_TYPECK:-0}" == 1 ]]; then
    files+=(--file compiler/core/src/typeck/effects.rs --file compiler/core/src/typeck/cells.rs
        --file compiler/core/src/storage.rs)
fi
shard=()
if [[ -n "${MUTANTS_SHARD:-}" ]]; then
    shard=(--shard "$MUTANTS_SHARD" --sharding round-robin)
fi
jobs=(--jobs 1)
if [[ "${MUTANTS_IN_PLACE:-0}" == 1 ]]; then
    jobs=(--in-place)
fi

# Fewer generated programs per run than in CI: each mutant runs the property test once.
export SKC_PROPERTY_CASES="${SKC_PROPERTY_CASES:-1500}"

# The baseline is skipped: cargo-mutants runs it with the mutated package's tests only, where `--test ui` (a
# target of skc-tests) does not exist. Check that the tests pass unmutated first:
#   cargo test -p skc-core -p skc-tests --lib --test convergence_reference --test convergence_scaling --test ui

exec cargo mutants \
    --workspace \
    "${files[@]}" \
    "${shard[@]}" \
    --test-package skc-core --test-package skc-tests \
    --baseline skip \
    "${jobs[@]}" \
    --timeout "${MUTANTS_TIMEOUT:-240}" \
    --output "${MUTANTS_OUTPUT:-.}" \
    -- --lib --test convergence_reference --test convergence_scaling --test ui
