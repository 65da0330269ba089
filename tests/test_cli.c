/* test_cli.c - the command line: options, exit codes, JSON Lines, golden
 * outputs of the shipped tiny model (WS_UPDATE_GOLDEN=1 rewrites them). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "ws/util.h"
#include "ws/kv.h"

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	cr_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
	b[n] = '\0';
	fclose(f);
	return b;
}

/* Run in testdata/ so the printed paths are stable, compare with
 * tests/golden/NAME. */
static void
golden(const char *name, int want_status, const char *a1, const char *a2,
       const char *a3, const char *a4)
{
	const char *src = getenv("WS_SRCDIR");
	cr_assert(src);
	char *td = ws_join(src, "testdata");
	cr_assert(chdir(td) == 0);
	ws_run r = ws_run_cli(a1, a2, a3, a4, NULL);
	cr_expect_eq(r.status, want_status, "%s: status %d, stderr %s", name, r.status, r.err);
	char *gd = ws_join(src, "tests/golden");
	char *gp = ws_join(gd, name);
	if (getenv("WS_UPDATE_GOLDEN")) {
		FILE *f = fopen(gp, "wb");
		cr_assert(f);
		fputs(r.out, f);
		fclose(f);
	}
	char *want = slurp(gp);
	cr_assert(want, "missing golden file %s (run with WS_UPDATE_GOLDEN=1)", gp);
	cr_expect_str_eq(r.out, want, "%s differs from its golden output", name);
	free(want);
	free(gp);
	free(gd);
	free(td);
	ws_run_free(&r);
}

Test(cli, golden_inspect_text) { golden("inspect-tiny.txt", 0, "tiny-llama", NULL, NULL, NULL); }
Test(cli, golden_inspect_json) { golden("inspect-tiny.json", 0, "--json", "tiny-llama", NULL, NULL); }
Test(cli, golden_ls_text) { golden("ls-tiny.txt", 0, "ls", "tiny-llama", NULL, NULL); }
Test(cli, golden_ls_json) { golden("ls-tiny.json", 0, "ls", "--json", "tiny-llama", NULL); }
Test(cli, golden_meta_text) { golden("meta-tiny.txt", 0, "meta", "tiny-llama", NULL, NULL); }

Test(cli, version_and_help)
{
	ws_run r = ws_run_cli("--version", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "weightscan "));
	ws_run_free(&r);
	r = ws_run_cli("--help", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "usage:"));
	cr_expect(ws_contains(r.out, "ls PATH"));
	ws_run_free(&r);
}

Test(cli, usage_errors_exit_2)
{
	char *tiny = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("--bogus", tiny, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "--bogus"));
	ws_run_free(&r);
	r = ws_run_cli("ls", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("--format", "yaml", tiny, NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("ls", tiny, "--sort", "color", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	free(tiny);
}

Test(cli, several_paths_json_lines_and_worst_exit)
{
	char *tiny = ws_testdata_path("tiny-llama");
	char *dir = ws_tmpdir();
	char *bad = ws_write_file(dir, "x.safetensors", "version https://git-lfs.github.com/spec/v1\noid sha256:", 52);
	ws_run r = ws_run_cli("--json", tiny, bad, tiny, "/nonexistent/x.safetensors", NULL);
	cr_expect_eq(r.status, 3);
	int lines = 0;
	for (char *p = r.out; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_eq(lines, 4, "one JSON object per PATH: %s", r.out);
	char *save, *line = strtok_r(r.out, "\n", &save);
	int errors = 0;
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *o = cJSON_Parse(line);
		cr_assert(o, "invalid JSON line: %s", line);
		cr_expect(cJSON_IsString(cJSON_GetObjectItem(o, "weightscan")));
		cr_expect_eq(cJSON_GetObjectItem(o, "schema")->valueint, 1);
		cr_expect_str_eq(cJSON_GetObjectItem(o, "command")->valuestring, "inspect");
		errors += cJSON_GetObjectItem(o, "error") != NULL;
		cJSON_Delete(o);
	}
	cr_expect_eq(errors, 2);
	ws_run_free(&r);
	free(bad);
	ws_rmtree(dir);
	free(dir);
	free(tiny);
}

Test(cli, double_dash_takes_a_folder_named_like_a_command)
{
	char *dir = ws_tmpdir();
	cr_assert(chdir(dir) == 0);
	ws_mkfixture("tiny", "ls", NULL);
	ws_run r = ws_run_cli("--", "ls", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "format         safetensors"), "%s", r.out);
	ws_run_free(&r);
	cr_assert(chdir("/") == 0);
	ws_rmtree(dir);
	free(dir);
}

Test(cli, ls_filters_and_sorts)
{
	char *tiny = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("ls", tiny, "--match", "*.k_proj.*", "--sort", "name", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "model.layers.0.self_attn.k_proj.weight"));
	cr_expect(ws_contains(r.out, "model.layers.1.self_attn.k_proj.weight"));
	cr_expect_not(ws_contains(r.out, "q_proj"));
	ws_run_free(&r);
	r = ws_run_cli("ls", tiny, "--sort", "size", NULL);
	cr_expect_eq(r.status, 0);
	/* the largest tensors come first: the MLP's 2,816 elements beat the
	 * embedding's 2,048 */
	const char *first = strchr(r.out, '\n');
	cr_assert(first && strncmp(r.out, "name ", 5) == 0, "a header line first: %s", r.out);
	cr_expect_eq(strncmp(first + 1, "model.layers.0.mlp.down_proj.weight", 35), 0, "%s", r.out);
	ws_run_free(&r);
	free(tiny);
}

Test(cli, sigpipe_ends_quietly)
{
	char *tiny = ws_testdata_path("tiny-llama");
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' ls '%s' '%s' 2>&1 | head -c 10 >/dev/null; exit ${PIPESTATUS:-0}",
			   getenv("WS_BIN"), tiny, tiny) > 0);
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	ws_run r = ws_run_argv(argv);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, "");
	ws_run_free(&r);
	free(cmd);
	free(tiny);
}

Test(cli, write_error_is_exit_4)
{
	char *tiny = ws_testdata_path("tiny-llama");
	char *cmd;
	cr_assert(asprintf(&cmd, "'%s' ls '%s' >/dev/full", getenv("WS_BIN"), tiny) > 0);
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	ws_run r = ws_run_argv(argv);
	cr_expect_eq(r.status, 4, "status %d: %s", r.status, r.err);
	ws_run_free(&r);
	free(cmd);
	free(tiny);
}

/* ==== hostile names: escaped in every output format ==== */

static void
assert_clean_text(const char *what, const char *out)
{
	for (const char *p = out; *p; p++)
		cr_assert((unsigned char)*p != 0x1b && (unsigned char)*p != 0x07,
			  "%s: raw control byte in output", what);
	cr_expect_not(ws_contains(out, "\n::"), "%s: a line starts with '::'", what);
	cr_expect(ws_utf8_valid(out, strlen(out)) || !*out, "%s: invalid UTF-8", what);
	cr_expect_not(ws_contains(out, "\xe2\x80\xae"), "%s: raw bidi override", what);
}

static void
hostile_case(const char *golden_name, const char *a1, const char *a2, const char *a3)
{
	const char *src = getenv("WS_SRCDIR");
	char *dir = ws_tmpdir();
	ws_mkfixture("hostile", dir, NULL);
	cr_assert(chdir(dir) == 0);
	ws_run r = ws_run_cli(a1, a2, a3, NULL);
	assert_clean_text(golden_name, r.out);
	assert_clean_text(golden_name, r.err);
	if (ws_contains(golden_name, ".json")) {
		char *save = NULL;
		for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			cJSON *o = cJSON_Parse(l);
			cr_expect(o, "%s: invalid JSON line", golden_name);
			cJSON_Delete(o);
		}
		ws_run_free(&r);
		r = ws_run_cli(a1, a2, a3, NULL);
	}
	char *gd = ws_join(src, "tests/golden");
	char *gp = ws_join(gd, golden_name);
	if (getenv("WS_UPDATE_GOLDEN")) {
		FILE *f = fopen(gp, "wb");
		cr_assert(f);
		fputs(r.out, f);
		fclose(f);
	}
	char *want = slurp(gp);
	cr_assert(want, "missing golden file %s", gp);
	cr_expect_str_eq(r.out, want, "%s differs from its golden output", golden_name);
	free(want);
	free(gp);
	free(gd);
	ws_run_free(&r);
	cr_assert(chdir("/") == 0);
	ws_rmtree(dir);
	free(dir);
}

Test(hostile, ls_text_safetensors) { hostile_case("hostile-ls-st.txt", "ls", "hostile.safetensors", NULL); }
Test(hostile, ls_json_safetensors) { hostile_case("hostile-ls-st.json", "ls", "--json", "hostile.safetensors"); }
Test(hostile, ls_text_gguf) { hostile_case("hostile-ls-gguf.txt", "ls", "hostile.gguf", NULL); }
Test(hostile, ls_json_gguf) { hostile_case("hostile-ls-gguf.json", "ls", "--json", "hostile.gguf"); }
Test(hostile, inspect_text_gguf) { hostile_case("hostile-inspect-gguf.txt", "hostile.gguf", NULL, NULL); }
Test(hostile, inspect_json_gguf) { hostile_case("hostile-inspect-gguf.json", "--json", "hostile.gguf", NULL); }
Test(hostile, meta_text) { hostile_case("hostile-meta-gguf.txt", "meta", "hostile.gguf", NULL); }
Test(hostile, meta_json) { hostile_case("hostile-meta-gguf.json", "meta", "--json", "hostile.gguf"); }
Test(hostile, meta_text_safetensors) { hostile_case("hostile-meta-st.txt", "meta", "hostile.safetensors", NULL); }

Test(cli, not_a_weight_file_diagnoses)
{
	char *dir = ws_tmpdir();
	static const struct { const char *name, *content, *expect; } cases[] = {
		{"m.gguf", "version https://git-lfs.github.com/spec/v1\noid sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\nsize 4920\n",
		 "an LFS pointer for a 4,920-byte file with sha256 0123456789abcdef"},
		{"m.safetensors", "<!doctype html><html>rate limited</html>", "HTML"},
		{"e.safetensors", "", "empty file"},
		{"j.gguf", "{\"error\":\"Entry not found\"}", "JSON document"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = ws_write_file(dir, cases[i].name, cases[i].content, strlen(cases[i].content));
		ws_run r = ws_run_cli(p, NULL);
		cr_expect_eq(r.status, 3, "%s", cases[i].name);
		cr_expect(ws_contains(r.err, cases[i].expect), "%s: %s", cases[i].name, r.err);
		cr_expect(ws_contains(r.err, p), "%s names the file", cases[i].name);
		ws_run_free(&r);
		free(p);
	}
	ws_rmtree(dir);
	free(dir);
}

Test(hostile, config_strings_in_findings_are_escaped)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	char *cfg = ws_join(dir, "config.json");
	FILE *f = fopen(cfg, "w");
	cr_assert(f);
	fputs("{\"model_type\": \"evil\\n::error::pwned\\u001b[2J\\u202e\", \"hidden_size\": 32}", f);
	fclose(f);
	ws_run r = ws_run_cli(dir, NULL);
	assert_clean_text("inspect", r.out);
	cr_expect(ws_contains(r.out, "evil\\x0A::error::pwned\\x1B[2J\\xE2\\x80\\xAE"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("check", "--json", dir, NULL);
	assert_clean_text("check json", r.out);
	cJSON *o = cJSON_Parse(r.out);
	cr_expect(o, "invalid JSON: %s", r.out);
	cJSON_Delete(o);
	ws_run_free(&r);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

/* ==== the command line a newcomer meets ==== */

Test(newcomer, help_per_command)
{
	static const char *const cmds[] = {"inspect", "ls", "meta", "formula", "hash", "verify",
					   "flops", "report", "check", "diff", "scan"};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		ws_run a = ws_run_cli(cmds[i], "--help", NULL);
		ws_run b = ws_run_cli("help", cmds[i], NULL);
		cr_expect_eq(a.status, 0, "%s --help: %s", cmds[i], a.err);
		char want[64];
		snprintf(want, sizeof want, "usage: weightscan %s", cmds[i]);
		cr_expect(ws_contains(a.out, want), "%s --help: %s", cmds[i], a.out);
		cr_expect(ws_contains(a.out, "exit 1 when:"), "%s", a.out);
		cr_expect_str_eq(a.out, b.out, "help %s differs from %s --help", cmds[i], cmds[i]);
		ws_run_free(&a);
		ws_run_free(&b);
	}
	ws_run r = ws_run_cli("check", "--help", NULL);
	cr_expect(ws_contains(r.out, "--fail-on CODES"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("help", "bogus", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "commands: inspect, ls"), "%s", r.err);
	ws_run_free(&r);
}

Test(newcomer, mistyped_command_is_a_usage_error_with_a_suggestion)
{
	ws_run r = ws_run_cli("chekc", "model", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "did you mean 'check'?"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("fromula", "x.json", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "did you mean 'formula'?"), "%s", r.err);
	ws_run_free(&r);
	/* with a '.' or '/', or far from every command, it is a PATH */
	r = ws_run_cli("chekc.safetensors", NULL);
	cr_expect_eq(r.status, 3);
	ws_run_free(&r);
	r = ws_run_cli("model-dir-that-is-absent", NULL);
	cr_expect_eq(r.status, 3);
	ws_run_free(&r);
	/* an existing path of that name is read as the path */
	char *dir = ws_tmpdir(), *cwd = getcwd(NULL, 0);
	cr_assert(chdir(dir) == 0);
	free(ws_write_file(dir, "chekc", "x", 1));
	r = ws_run_cli("chekc", NULL);
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect_not(ws_contains(r.err, "did you mean"), "%s", r.err);
	ws_run_free(&r);
	cr_assert(chdir(cwd) == 0);
	ws_rmtree(dir);
	free(dir);
	free(cwd);
}

Test(newcomer, unknown_values_list_the_valid_ones)
{
	char *m = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("ls", m, "--role", "bogus", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "(roles: other, embed,"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("--format", "xml", m, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "text, json, sarif, github"), "%s", r.err);
	ws_run_free(&r);
	free(m);
}

Test(newcomer, counts_take_suffixes)
{
	uint64_t v, u;
	cr_expect(ws_parse_count("8.03B", false, &v, &u));
	cr_expect_eq(v, 8030000000ull);
	cr_expect_eq(u, 5000000ull);
	cr_expect(ws_parse_count("8030261248", false, &v, &u));
	cr_expect_eq(v, 8030261248ull);
	cr_expect_eq(u, 0);
	cr_expect(ws_parse_count("405B", false, &v, &u));
	cr_expect_eq(v, 405000000000ull);
	cr_expect_eq(u, 500000000ull);
	cr_expect(ws_parse_count("8k", true, &v, NULL));
	cr_expect_eq(v, 8192);
	cr_expect(ws_parse_count("1.5k", true, &v, NULL));
	cr_expect_eq(v, 1536);
	cr_expect(ws_parse_count("128K", true, &v, NULL));
	cr_expect_eq(v, 131072);
	cr_expect_not(ws_parse_count("8B", true, &v, NULL), "B is no token suffix");
	cr_expect_not(ws_parse_count("1.0001k", true, &v, NULL), "not whole");
	cr_expect_not(ws_parse_count("99999999999999999999", false, &v, NULL));
	cr_expect_not(ws_parse_count("", false, &v, NULL));
	cr_expect_not(ws_parse_count("8.03Bx", false, &v, NULL));
	cr_expect_not(ws_parse_count("30000000T", false, &v, NULL), "overflow");

	/* the tiny checkpoint holds 27,296 */
	char *m = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("check", "-q", m, "--expect-params", "27.3K", NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	ws_run_free(&r);
	r = ws_run_cli("check", "-q", m, "--expect-params", "27.4K", NULL);
	cr_expect_eq(r.status, 1);
	ws_run_free(&r);
	r = ws_run_cli("check", "-q", m, "--expect-params", "27.4K:1%", NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("check", "-q", m, "--expect-params", "many", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	ws_run a = ws_run_cli("flops", "--json", m, "--seq", "8k", NULL);
	ws_run b = ws_run_cli("flops", "--json", m, "--seq", "8192", NULL);
	cr_expect_eq(a.status, 0, "%s", a.err);
	cr_expect_str_eq(a.out, b.out);
	ws_run_free(&a);
	ws_run_free(&b);
	free(m);
}

/* JSON errors carry the kind SPEC lists; text messages end with the
 * remedy where there is one. */
Test(newcomer, errors_say_their_kind_and_remedy)
{
	char *dir = ws_tmpdir();
	static const char lfs[] = "version https://git-lfs.github.com/spec/v1\n"
		"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
		"size 4294967296\n";
	static const char pickle[] = "\x80\x02}q\x00.";
	static const char page[] = "<!DOCTYPE html><html>rate limited</html>";
	free(ws_write_file(dir, "lfs.safetensors", lfs, sizeof lfs - 1));
	free(ws_write_file(dir, "pytorch_model.bin.safetensors", pickle, sizeof pickle - 1));
	free(ws_write_file(dir, "page.safetensors", page, sizeof page - 1));
	free(ws_write_safetensors(dir, "short.safetensors",
				  "{\"a\":{\"dtype\":\"F32\",\"shape\":[64],\"data_offsets\":[0,256]}}",
				  57, 100));
	free(ws_write_safetensors(dir, "bad.safetensors", "{\"a\":{\"dtype\":\"F99\"}}", 21, 0));
	static const struct { const char *name, *kind, *remedy; } cases[] = {
		{"absent.safetensors", "not-found", NULL},
		{"lfs.safetensors", "lfs-pointer", "git lfs pull"},
		{"pytorch_model.bin.safetensors", "not-weights", "convert it to safetensors"},
		{"page.safetensors", "not-weights", "download it again"},
		{"short.safetensors", "truncated", "download the file again"},
		{"bad.safetensors", "malformed", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = ws_join(dir, cases[i].name), want[64];
		ws_run r = ws_run_cli("--json", p, NULL);
		cr_expect_eq(r.status, 3, "%s", cases[i].name);
		snprintf(want, sizeof want, "\"kind\":\"%s\"", cases[i].kind);
		cr_expect(ws_contains(r.out, want), "%s: %s", cases[i].name, r.out);
		if (cases[i].remedy)
			cr_expect(ws_contains(r.err, cases[i].remedy), "%s: %s", cases[i].name, r.err);
		ws_run_free(&r);
		free(p);
	}
	ws_rmtree(dir);
	free(dir);
}

/* GGUF facts in inspect, meta's names and exits, ls's shape order. */
Test(newcomer, gguf_facts_meta_and_shape_order)
{
	cr_expect_str_eq(ws_gguf_file_type_name(17), "Q5_K_M");
	cr_expect_str_eq(ws_gguf_file_type_name(15), "Q4_K_M");
	cr_expect_str_eq(ws_gguf_file_type_name(32), "BF16");
	cr_expect_null(ws_gguf_file_type_name(5), "removed from llama.cpp");
	cr_expect_null(ws_gguf_file_type_name(1u << 20));

	char *dir = ws_tmpdir();
	char *gen[] = {getenv("WS_MKGGUF"), "valid", dir, NULL};
	cr_assert(gen[0]);
	ws_run g = ws_run_argv(gen);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	char *one = ws_join(dir, "tiny-llama.gguf"), *part = ws_join(dir, "tiny-split-00001-of-00003.gguf");

	ws_run r = ws_run_cli(one, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\nname           mkgguf tiny\n"), "%s", r.out);
	cr_expect(ws_contains(r.out, "\ncontext        128 tokens\n"), "%s", r.out);
	ws_run_free(&r);

	/* meta: absent key is exit 1; --raw unquoted; each part's values
	 * under its own name */
	r = ws_run_cli("meta", one, "--key", "general.name", NULL);
	cr_expect_str_eq(r.out, "\"mkgguf tiny\"\n");
	ws_run_free(&r);
	r = ws_run_cli("meta", one, "--key", "general.name", "--raw", NULL);
	cr_expect_str_eq(r.out, "mkgguf tiny\n");
	ws_run_free(&r);
	r = ws_run_cli("meta", one, "--key", "no.such.key", NULL);
	cr_expect_eq(r.status, 1);
	cr_expect(ws_contains(r.err, "no key 'no.such.key'"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("meta", part, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "tiny-split-00002-of-00003.gguf:\n  "), "%s", r.out);
	cr_expect(ws_contains(r.out, "tiny-split-00001-of-00003.gguf:\n  "), "%s", r.out);
	ws_run_free(&r);

	/* ls says its shape order; --gguf-order prints ne[] */
	r = ws_run_cli("ls", one, "--match", "token_embd.weight", NULL);
	cr_expect(ws_contains(r.out, "shape (PyTorch order)"), "%s", r.out);
	ws_run s = ws_run_cli("ls", one, "--match", "token_embd.weight", "--gguf-order", NULL);
	cr_expect(ws_contains(s.out, "ne (GGUF order)"), "%s", s.out);
	/* the same dimensions, reversed */
	const char *a = strchr(strchr(r.out, '\n') + 1, '['), *b = strchr(strchr(s.out, '\n') + 1, '[');
	cr_assert(a && b);
	unsigned long x0, x1, y0, y1;
	cr_assert_eq(sscanf(a, "[%lu, %lu]", &x0, &x1), 2);
	cr_assert_eq(sscanf(b, "[%lu, %lu]", &y0, &y1), 2);
	cr_expect(x0 == y1 && x1 == y0 && x0 != x1, "%s / %s", a, b);
	ws_run_free(&r);
	ws_run_free(&s);
	free(one);
	free(part);
	ws_rmtree(dir);
	free(dir);
}
