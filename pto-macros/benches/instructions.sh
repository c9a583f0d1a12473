#!/usr/bin/env bash
# Instruction counts of the `expand` bench's typical kernel: 20 expansions and 20 floors
# (syn parse + quote) under callgrind. Unlike wall-clock time, the counts repeat exactly for
# the same binary on a busy machine, so a change's effect shows even when timings are noise.
# Needs valgrind. Usage: bash pto-macros/benches/instructions.sh [--phases]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(CARGO_PROFILE_BENCH_DEBUG=line-tables-only cargo bench -p pto-macros --bench expand --no-run 2>&1 |
    sed -n 's/.*(\(target\/[^)]*expand-[0-9a-f]*\)).*/\1/p' | tail -1)
out=$(mktemp -d)
count() { # bench, function to count inside, output file
    valgrind --tool=callgrind --callgrind-out-file="$3" --toggle-collect="$2" \
        "$bin" --bench "$1" --sample-count 20 --sample-size 1 >/dev/null 2>&1
    sed -n 's/^summary: //p' "$3"
}
e=$(count typical_expand 'expand::expand::kernel' "$out/expand")
f=$(count typical_floor 'expand::floor' "$out/floor")
echo "typical kernel, instructions per expansion: $((e / 20)), floor $((f / 20)), ratio $(awk "BEGIN { printf \"%.2f\", $e / $f }")"
if [[ "${1:-}" == --phases ]]; then
    echo "per expansion, inclusive:"
    callgrind_annotate --inclusive=yes "$out/expand" 2>/dev/null | grep -v ' => ' |
        grep -E 'Parser>::parse2 |Compiled::emit |PassManager>::lower |rust::emit_with_params |cpp::emit_as |emit_lowered |expand::items |text_literal |expand::lower::lower |to_text |model::build ' |
        sed 's/ \[.*//; s/,//g; s/([ 0-9.]*%) *//' |
        awk '{ n = $1 / 20; $1 = ""; sub(/^ +[^ ]*\.rs:/, ""); printf "%10d  %s\n", n, $0 }'
fi
rm -rf "$out"
