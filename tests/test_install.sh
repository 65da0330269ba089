#!/bin/sh
# test_install.sh BUILDDIR [SANITIZE] - `meson install` into a DESTDIR and
# check what a user gets: the binary, static and shared library, public
# headers, weightscan.pc, the man page (rendered when man is there) and the
# completions; then build a small program against the installed library
# through pkg-config, shared and static, and run it on a fixture.
set -eu
build=$1
sanitize=${2:-none}
src=${WS_SRCDIR:?WS_SRCDIR not set}
tmp=$(mktemp -d /tmp/ws-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

DESTDIR=$tmp/dest meson install -C "$build" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "meson install"; }

bin=$(find "$tmp/dest" -path '*/bin/weightscan' -type f)
[ -n "$bin" ] || fail "no bin/weightscan installed"
root=${bin%/bin/weightscan}
pc=$(find "$root" -name weightscan.pc)
[ -n "$pc" ] || fail "no weightscan.pc"
libdir=$(dirname "$(dirname "$pc")")

for f in include/weightscan.h share/man/man1/weightscan.1 \
  share/bash-completion/completions/weightscan share/zsh/site-functions/_weightscan; do
  [ -f "$root/$f" ] || fail "$f not installed"
done
for h in "$src"/include/weightscan/*.h; do
  [ -f "$root/include/weightscan/$(basename "$h")" ] || fail "header $(basename "$h") not installed"
done
[ -f "$libdir/libweightscan.a" ] || fail "no static library"
[ -e "$libdir/libweightscan.so" ] || fail "no shared library"
ls "$libdir"/libweightscan.so.* >/dev/null 2>&1 || fail "no versioned shared library"

# The installed binary runs on its own (it links the library statically).
"$bin" --version | grep -qx "weightscan [0-9][0-9.]*" || fail "installed --version"

# The man page renders, without groff warnings.
page=$root/share/man/man1/weightscan.1
if command -v groff >/dev/null 2>&1; then
  warn=$(groff -man -ww -z -Tutf8 "$page" 2>&1) || fail "groff: $warn"
  [ -z "$warn" ] || fail "groff warnings: $warn"
fi
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$page" >"$tmp/man.txt" 2>"$tmp/man.err" || fail "man -l: $(cat "$tmp/man.err")"
  for s in NAME SYNOPSIS COMMANDS "EXIT STATUS" JSON FINDINGS; do
    grep -q "^$s" "$tmp/man.txt" || fail "man page has no $s section"
  done
else
  echo "man not installed: rendering skipped"
fi

# Completions: valid shell; bash completes a role name after --role.
bash -n "$root/share/bash-completion/completions/weightscan" || fail "bash completion syntax"
got=$(bash -c '. "$1"; COMP_WORDS=(weightscan ls m --role attn_q); COMP_CWORD=4; _weightscan; echo "${COMPREPLY[*]}"' \
  sh "$root/share/bash-completion/completions/weightscan")
case " $got " in *" attn_q_norm "*) ;; *) fail "bash completion of --role: '$got'" ;; esac
if command -v zsh >/dev/null 2>&1; then
  zsh -n "$root/share/zsh/site-functions/_weightscan" || fail "zsh completion syntax"
fi

# A program against the installed library, found through pkg-config.
export PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/dest"
cflags=$(pkg-config --cflags weightscan) || fail "pkg-config --cflags"
libs=$(pkg-config --libs weightscan) || fail "pkg-config --libs"
pkg-config --static --libs weightscan >/dev/null || fail "pkg-config --static --libs"
case "$cflags" in *"-I$root/include"*) ;; *) fail "cflags '$cflags'" ;; esac
case "$libs" in *-lweightscan*) ;; *) fail "libs '$libs'" ;; esac
[ "$(pkg-config --modversion weightscan)" = "$("$bin" --version | cut -d' ' -f2)" ] ||
  fail "pc version differs from --version"

cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <weightscan.h>
#include "ws/report.h"

int
main(int argc, char **argv)
{
	ws_model *m = NULL;
	ws_error err = {0};
	if (argc < 2)
		return 2;
	if (ws_model_open(argv[1], NULL, &m, &err) || ws_model_analyze(m, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 3;
	}
	printf("%s %llu tensors, errors: %d\n", WS_VERSION,
	       (unsigned long long)m->n_tensors, ws_model_has_errors(m));
	ws_model_free(m);
	return 0;
}
EOF
cc=${CC:-cc}
san=
[ "$sanitize" = none ] || san="-fsanitize=$sanitize"
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -pedantic -Werror $san -o "$tmp/prog" "$tmp/prog.c" $cflags $libs ||
  fail "compile and link against the shared library"
# static libweightscan, its dependencies shared: the libraries of
# Requires.private (not their own static closure) and Libs.private
deps=$(pkg-config --print-requires-private weightscan | cut -d' ' -f1 | tr '\n' ' ')
# shellcheck disable=SC2086
dlibs=$(pkg-config --libs weightscan $deps) || fail "pkg-config --libs of $deps"
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -pedantic -Werror $san -o "$tmp/prog_static" "$tmp/prog.c" $cflags \
  $(echo "$dlibs" | sed 's/-lweightscan/-l:libweightscan.a/') -pthread -lm ||
  fail "compile and link against the static library"

"${WS_MKFIXTURE:?}" tiny "$tmp/tiny" >/dev/null
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/prog" "$tmp/tiny") || fail "prog (shared) failed"
[ "$out" = "$("$bin" --version | cut -d' ' -f2) 21 tensors, errors: 0" ] || fail "prog (shared) said '$out'"
LD_LIBRARY_PATH="$libdir" ldd "$tmp/prog" | grep -q "libweightscan.so.0 => $libdir" || fail "prog does not use the installed shared library"
out=$("$tmp/prog_static" "$tmp/tiny") || fail "prog (static) failed"
case "$out" in *"21 tensors, errors: 0") ;; *) fail "prog (static) said '$out'" ;; esac
if ldd "$tmp/prog_static" | grep -q libweightscan; then fail "static prog links the shared library"; fi
echo "install: ok ($root)"
