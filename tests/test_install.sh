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
# exactly the public headers: nothing of src/ws/
(cd "$src/include" && find . -name '*.h' | LC_ALL=C sort) >"$tmp/want.h"
(cd "$root/include" && find . -name '*.h' | LC_ALL=C sort) >"$tmp/got.h"
diff "$tmp/want.h" "$tmp/got.h" >/dev/null || fail "installed headers: $(tr '\n' ' ' <"$tmp/got.h")"
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

# Each installed header compiles on its own, strictly.
cc=${CC:-cc}
san=
[ "$sanitize" = none ] || san="-fsanitize=$sanitize"
while read -r h; do
  h=${h#./}
  printf '#include <%s>\n' "$h" >"$tmp/one.c"
  # shellcheck disable=SC2086
  $cc -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only $cflags "$tmp/one.c" ||
    fail "header $h does not compile on its own"
done <"$tmp/got.h"

# A program of the public API only (accessors; no struct field but
# ws_error's): every tensor's accessors, the totals, the formula, the
# components, the findings, the JSON document and an error.
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <weightscan.h>

int
main(int argc, char **argv)
{
	ws_model *m = NULL;
	ws_error err = {0};
	char buf[2048];
	if (argc < 2)
		return 2;
	if (ws_open(argv[1], NULL, WS_OPEN_CHECK, &m, &err)) {
		ws_error_format(&err, buf, sizeof buf);
		fprintf(stderr, "%s (%s)\n", buf, ws_error_kind(&err));
		return 3;
	}
	unsigned long long sum = 0, bytes = 0;
	for (uint64_t i = 0; i < ws_model_tensor_count(m); i++) {
		size_t len;
		const char *name = ws_model_tensor_name(m, i, &len);
		if (!name || !len || !ws_model_tensor_dtype(m, i) || !ws_model_tensor_role(m, i) ||
		    !ws_model_tensor_file(m, i) || !ws_model_tensor_component(m, i) ||
		    ws_model_tensor_rank(m, i) == 0 || ws_model_tensor_offset(m, i) == 0 ||
		    ws_model_tensor_expert(m, i) != -1)
			return 4;
		uint64_t el = 1;
		for (uint32_t d = 0; d < ws_model_tensor_rank(m, i); d++)
			el *= ws_model_tensor_dim(m, i, d);
		if (el != ws_model_tensor_elements(m, i))
			return 5;
		sum += ws_model_tensor_params(m, i);
		bytes += ws_model_tensor_bytes(m, i);
		if (!strcmp(name, "model.layers.1.self_attn.q_proj.weight"))
			printf("%s %s %s layer %d [%llu, %llu]\n", name, ws_model_tensor_dtype(m, i),
			       ws_model_tensor_role(m, i), (int)ws_model_tensor_layer(m, i),
			       (unsigned long long)ws_model_tensor_dim(m, i, 0),
			       (unsigned long long)ws_model_tensor_dim(m, i, 1));
	}
	uint64_t total = 0, mtp = 0;
	if (sum != ws_model_params(m) || !ws_model_formula(m, &total, &mtp))
		return 6;
	printf("%s %s %s, %llu tensors, %llu params in %llu bytes, formula %llu + mtp %llu\n",
	       ws_version(), ws_model_format(m), ws_model_architecture(m),
	       (unsigned long long)ws_model_tensor_count(m), sum, bytes,
	       (unsigned long long)total, (unsigned long long)mtp);
	for (uint32_t c = 0; c < ws_model_component_count(m); c++)
		printf("component %s (%s) %llu params, formula %s\n", ws_model_component_name(m, c),
		       ws_model_component_kind(m, c),
		       (unsigned long long)ws_model_component_params(m, c),
		       ws_model_component_formula(m, c, NULL) ? "known" : "none");
	for (size_t i = 0; i < ws_model_finding_count(m); i++)
		printf("%s %s: %s\n", ws_severity_name(ws_model_finding_severity(m, i)),
		       ws_model_finding_code(m, i), ws_model_finding_message(m, i));
	char *json = ws_model_json(m, "check", &err);
	if (!json)
		return 7;
	int in_json = strstr(json, "\"command\":\"check\"") && strstr(json, "\"schema\":1");
	ws_string_free(json);
	if (!in_json || ws_model_json(m, "ls", &err) || err.code != WS_EXIT_USAGE)
		return 8;
	printf("errors: %d\n", ws_model_has_errors(m));
	ws_model_free(m);
	/* an error: a value, formatted */
	memset(&err, 0, sizeof err);
	if (ws_open("/nonexistent/weights.safetensors", NULL, 0, &m, &err) == 0 || m ||
	    err.code != WS_EXIT_INPUT)
		return 9;
	printf("error %s\n", ws_error_kind(&err));
	return 0;
}
EOF
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
version=$("$bin" --version | cut -d' ' -f2)
cat >"$tmp/want" <<EOF
model.layers.1.self_attn.q_proj.weight BF16 attn_q layer 1 [32, 32]
$version safetensors llama, 21 tensors, 27296 params in 54592 bytes, formula 27296 + mtp 0
component text (text) 27296 params, formula known
errors: 0
error not-found
EOF
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/prog" "$tmp/tiny") || fail "prog (shared) failed: $? $out"
[ "$out" = "$(cat "$tmp/want")" ] || fail "prog (shared) said '$out'"
LD_LIBRARY_PATH="$libdir" ldd "$tmp/prog" | grep -q "libweightscan.so.0 => $libdir" || fail "prog does not use the installed shared library"
out=$("$tmp/prog_static" "$tmp/tiny") || fail "prog (static) failed: $? $out"
[ "$out" = "$(cat "$tmp/want")" ] || fail "prog (static) said '$out'"
if ldd "$tmp/prog_static" | grep -q libweightscan; then fail "static prog links the shared library"; fi
echo "install: ok ($root)"
