#!/bin/sh
# test_exports.sh BUILDDIR - the shared library exports exactly the
# functions the installed headers (include/) declare: no internal helper,
# no data object (a writable global such as ws_st_parallel), nothing
# missing; and no array in those headers is sized by a name.  The declared functions are the compiler's own list
# (-aux-info) where it has one, and tools/exports.sh's, which made the
# version script, must agree with it.
set -eu
build=$1
src=${WS_SRCDIR:?WS_SRCDIR not set}
so=$build/src/libweightscan.so
cc=${CC:-cc}
tmp=$(mktemp -d /tmp/ws-exports-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -e "$so" ] || fail "no $so"
nm -D --defined-only "$so" >"$tmp/nm" || fail "nm -D $so"
# T: a function in the text section; anything else (D, B, R, V, W, ...)
# is data, a weak or an indirect symbol
awk '$2 != "T"' "$tmp/nm" >"$tmp/other"
[ ! -s "$tmp/other" ] || fail "exports other than functions: $(tr '\n' ' ' <"$tmp/other")"
awk '{ sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | LC_ALL=C sort -u >"$tmp/exported"

"$src/tools/exports.sh" names "$src/include" $cc >"$tmp/declared" || fail "tools/exports.sh"
printf '#include <weightscan.h>\n' >"$tmp/t.c"
# shellcheck disable=SC2086
if $cc -std=c11 -I"$src/include" -fsyntax-only -aux-info "$tmp/aux" "$tmp/t.c" 2>/dev/null; then
  # /* DIR/include/weightscan/model.h:53:NC */ extern int ws_open (...);
  grep -F "/* $src/include/" "$tmp/aux" |
    sed -E 's/^\/\*[^*]*\*\/ extern [^(]*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' |
    LC_ALL=C sort -u >"$tmp/compiler"
  diff "$tmp/compiler" "$tmp/declared" >"$tmp/d" ||
    fail "tools/exports.sh and the compiler disagree on the declared functions (< compiler, > exports.sh): $(cat "$tmp/d")"
fi

# Nothing installed is sized by an internal count: every array in the
# headers (after the preprocessor: macros are public constants) has a
# number for its size, never an enum constant such as WS_ROLE_COUNT.
# shellcheck disable=SC2086
$cc -std=c11 -E -I"$src/include" "$src/include/weightscan.h" |
  awk -v inc="$src/include/" '
    /^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); keep = index(f, inc) == 1; next }
    keep { print }' >"$tmp/pp" || fail "preprocess the headers"
if grep -nE '\[[^]]*[A-Za-z_][^]]*\]' "$tmp/pp" >"$tmp/sized"; then
  fail "an array sized by a name: $(cat "$tmp/sized")"
fi

if ! diff "$tmp/declared" "$tmp/exported" >"$tmp/d"; then
  fail "the exports differ from the declared functions (< declared, not exported; > exported, not declared):
$(grep '^[<>]' "$tmp/d")"
fi
echo "exports: ok ($(wc -l <"$tmp/exported") functions)"
