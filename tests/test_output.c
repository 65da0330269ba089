/* test_output.c - the findings formats (SARIF 2.1.0, GitHub annotations),
 * colour only on a terminal and never with NO_COLOR / --no-color, and the
 * shipped documentation (man page, completions) against the binary. */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	cr_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
	b[n] = '\0';
	fclose(f);
	return b;
}

static char *
src_path(const char *rel)
{
	const char *s = getenv("WS_SRCDIR");
	cr_assert(s, "WS_SRCDIR not set");
	return ws_join(s, rel);
}

/* The tiny model in tmp/<name> with `num_key_value_heads` changed from 2
 * to 1 when `defect`: every k and v projection then has the wrong shape.
 * (A changed width the tensors show, such as intermediate_size, is one
 * config-mismatch: these tests want findings on tensors.) */
static void
tiny_model(const char *tmp, const char *name, bool defect)
{
	char *dir = ws_join(tmp, name);
	ws_mkfixture("tiny", dir, NULL);
	if (defect) {
		char *cfg = ws_join(dir, "config.json");
		char *c = slurp(cfg);
		char *p = strstr(c, "\"num_key_value_heads\": 2");
		cr_assert(p, "tiny config.json changed shape: %s", c);
		p[strlen("\"num_key_value_heads\": ")] = '1';
		free(ws_write_file(dir, "config.json", c, strlen(c)));
		free(c);
		free(cfg);
	}
	free(dir);
}

static cJSON *
obj(const cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	cr_assert(v, "missing key %s", key);
	return v;
}

static const char *
str(const cJSON *o, const char *key)
{
	cJSON *v = obj(o, key);
	cr_assert(cJSON_IsString(v), "%s is not a string", key);
	return v->valuestring;
}

/* Parse a SARIF log and check the skeleton every log has. */
static cJSON *
sarif_parse(const char *text)
{
	cJSON *log = cJSON_Parse(text);
	cr_assert(log, "not JSON: %s", text);
	cr_assert(ws_contains(str(log, "$schema"), "sarif-2.1.0"));
	cr_assert_str_eq(str(log, "version"), "2.1.0");
	cJSON *runs = obj(log, "runs");
	cr_assert(cJSON_IsArray(runs));
	cr_assert_eq(cJSON_GetArraySize(runs), 1, "one run per invocation");
	cJSON *drv = obj(obj(cJSON_GetArrayItem(runs, 0), "tool"), "driver");
	cr_assert_str_eq(str(drv, "name"), "weightscan");
	cr_assert_str_eq(str(drv, "version"), WS_VERSION);
	cJSON *rules = obj(drv, "rules");
	cr_assert(cJSON_GetArraySize(rules) >= 16);
	/* every result names a rule, and ruleIndex points at it */
	cJSON *results = obj(cJSON_GetArrayItem(runs, 0), "results");
	cJSON *r;
	cJSON_ArrayForEach(r, results) {
		const char *id = str(r, "ruleId");
		cJSON *ri = obj(r, "ruleIndex");
		cJSON *rule = cJSON_GetArrayItem(rules, ri->valueint);
		cr_assert(rule && !strcmp(str(rule, "id"), id), "ruleIndex of %s", id);
		const char *lv = str(r, "level");
		cr_assert(!strcmp(lv, "error") || !strcmp(lv, "warning") || !strcmp(lv, "note"));
		cr_assert(strlen(str(obj(r, "message"), "text")) > 0);
		cJSON *loc = cJSON_GetArrayItem(obj(r, "locations"), 0);
		cr_assert(loc);
		str(obj(obj(loc, "physicalLocation"), "artifactLocation"), "uri");
	}
	return log;
}

static cJSON *
run0(const cJSON *log)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(log, "runs"), 0);
}

static const cJSON *
find_result(const cJSON *log, const char *rule, const char *tensor)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, obj(run0(log), "results")) {
		if (strcmp(str(r, "ruleId"), rule))
			continue;
		const cJSON *ll = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(obj(r, "locations"), 0), "logicalLocations");
		if (!tensor || (ll && !strcmp(str(cJSON_GetArrayItem(ll, 0), "name"), tensor)))
			return r;
	}
	return NULL;
}

/* ==== SARIF ==== */

Test(sarif, planted_defect_is_a_result)
{
	char *tmp = ws_tmpdir();
	tiny_model(tmp, "bad", true);
	/* relative PATH, as CI runs it from the checkout */
	cr_assert(chdir(tmp) == 0);
	ws_run r = ws_run_cli("check", "--format", "sarif", "bad", NULL);
	cr_assert_eq(r.status, 1, "stderr: %s", r.err);
	cJSON *log = sarif_parse(r.out);

	const cJSON *res = find_result(log, "shape-mismatch", "model.layers.0.self_attn.k_proj.weight");
	cr_assert(res, "no shape-mismatch result for k_proj: %s", r.out);
	cr_assert_str_eq(str(res, "level"), "error");
	cr_assert(ws_contains(str(obj(res, "message"), "text"), "[8, 32]"));
	const cJSON *al = obj(obj(cJSON_GetArrayItem(obj(res, "locations"), 0), "physicalLocation"),
			      "artifactLocation");
	cr_assert_str_eq(str(al, "uri"), "bad/model.safetensors");
	cr_assert_str_eq(str(al, "uriBaseId"), "%SRCROOT%");
	/* the count comparison is there too, with its numbers */
	res = find_result(log, "count-mismatch", NULL);
	cr_assert(res);
	char *expected = cJSON_PrintUnformatted(obj(obj(res, "properties"), "expected"));
	cr_assert_str_eq(expected, "512"); /* attn_k: 2 blocks x 8 x 32 */
	free(expected);
	cJSON *inv = cJSON_GetArrayItem(obj(run0(log), "invocations"), 0);
	cr_assert(cJSON_IsTrue(obj(inv, "executionSuccessful")));
	cr_assert_eq(obj(inv, "exitCode")->valueint, 1);

	cJSON_Delete(log);
	ws_run_free(&r);
	ws_rmtree(tmp);
	free(tmp);
}

Test(sarif, clean_model_has_no_results_and_passes)
{
	char *tmp = ws_tmpdir();
	tiny_model(tmp, "good", false);
	char *dir = ws_join(tmp, "good");
	ws_run r = ws_run_cli("check", "--format=sarif", dir, NULL);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	cJSON *log = sarif_parse(r.out);
	cr_assert_eq(cJSON_GetArraySize(obj(run0(log), "results")), 0);
	/* absolute paths become file:// URIs */
	cJSON *art = cJSON_GetArrayItem(obj(run0(log), "artifacts"), 0);
	cr_assert(!strncmp(str(obj(art, "location"), "uri"), "file:///", 8));
	cJSON_Delete(log);
	ws_run_free(&r);
	/* --expect-params missed is a result of its own */
	r = ws_run_cli("check", "--format", "sarif", "--expect-params", "1000", dir, NULL);
	cr_assert_eq(r.status, 1);
	log = sarif_parse(r.out);
	cr_assert(find_result(log, "expect-params", NULL));
	cJSON_Delete(log);
	ws_run_free(&r);
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
}

Test(sarif, several_paths_one_log_and_errors_as_notifications)
{
	char *tmp = ws_tmpdir();
	tiny_model(tmp, "good", false);
	tiny_model(tmp, "bad", true);
	cr_assert(chdir(tmp) == 0);
	ws_run r = ws_run_cli("--format", "sarif", "inspect", "good", "missing", "bad", NULL);
	cr_assert_eq(r.status, 3, "worst code wins");
	cJSON *log = sarif_parse(r.out);
	cr_assert(find_result(log, "shape-mismatch", NULL));
	cr_assert_eq(cJSON_GetArraySize(obj(run0(log), "artifacts")), 2);
	cJSON *inv = cJSON_GetArrayItem(obj(run0(log), "invocations"), 0);
	cr_assert(cJSON_IsFalse(obj(inv, "executionSuccessful")));
	cJSON *n = cJSON_GetArrayItem(obj(inv, "toolExecutionNotifications"), 0);
	cr_assert(n);
	cr_assert_str_eq(str(n, "level"), "error");
	cr_assert(ws_contains(str(obj(n, "message"), "text"), "missing"));
	cJSON_Delete(log);
	ws_run_free(&r);

	/* every PATH failing still prints a valid log */
	r = ws_run_cli("check", "--format", "sarif", "missing", NULL);
	cr_assert_eq(r.status, 3);
	log = sarif_parse(r.out);
	cJSON_Delete(log);
	ws_run_free(&r);
	ws_rmtree(tmp);
	free(tmp);
}

Test(sarif, only_for_findings_commands)
{
	ws_run r = ws_run_cli("hash", "--format", "sarif", "x", NULL);
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.out, "");
	cr_assert(ws_contains(r.err, "--help"));
	ws_run_free(&r);
}

/* ==== GitHub annotations ==== */

/* The tiny model plus a tensor whose name tries to start a command of its
 * own, and a config whose model_type does (it reaches the message). */
static void
hostile_model(const char *dir)
{
	ws_mkfixture("tiny", dir, NULL);
	char *st = ws_join(dir, "model.safetensors");
	char *d = NULL;
	FILE *f = fopen(st, "rb");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	size_t size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	d = malloc(size);
	cr_assert(d && fread(d, 1, size, f) == size);
	fclose(f);
	uint64_t n = 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | (unsigned char)d[i];
	cJSON *h = cJSON_ParseWithLength(d + 8, (size_t)n);
	cr_assert(h);
	size_t data_len = size - 8 - (size_t)n;
	cJSON *t = cJSON_AddObjectToObject(h, "model.layers.0.x\n::error::pwned 100%, a:b");
	cJSON_AddStringToObject(t, "dtype", "BF16");
	cJSON *shape = cJSON_AddArrayToObject(t, "shape");
	cJSON_AddItemToArray(shape, cJSON_CreateNumber(2));
	cJSON *off = cJSON_AddArrayToObject(t, "data_offsets");
	cJSON_AddItemToArray(off, cJSON_CreateNumber((double)data_len));
	cJSON_AddItemToArray(off, cJSON_CreateNumber((double)data_len + 4));
	char *hs = cJSON_PrintUnformatted(h);
	size_t hl = strlen(hs), pad = (8 - hl % 8) % 8;
	f = fopen(st, "wb");
	cr_assert(f);
	unsigned char len8[8];
	for (int i = 0; i < 8; i++)
		len8[i] = (unsigned char)((hl + pad) >> (8 * i));
	fwrite(len8, 1, 8, f);
	fwrite(hs, 1, hl, f);
	fwrite("        ", 1, pad, f);
	fwrite(d + 8 + n, 1, data_len, f);
	fwrite("\0\0\0\0", 1, 4, f);
	cr_assert(fclose(f) == 0);
	free(hs);
	cJSON_Delete(h);
	free(d);
	free(st);

	const char *cfg = "{\"model_type\": \"evil\\n::error::pwned 100%, a:b\", \"hidden_size\": 32,"
			  " \"num_hidden_layers\": 2, \"vocab_size\": 64}";
	free(ws_write_file(dir, "config.json", cfg, strlen(cfg)));
}

/* Every line is one workflow command: nothing a name or message holds can
 * start another. */
static void
assert_commands_only(const char *out)
{
	const char *p = out;
	cr_assert(*p, "no annotations");
	while (*p) {
		const char *nl = strchr(p, '\n');
		cr_assert(nl, "unterminated line");
		cr_assert(!strncmp(p, "::error file=", 13) || !strncmp(p, "::warning file=", 15) ||
			  !strncmp(p, "::notice file=", 14), "not an annotation: %.*s", (int)(nl - p), p);
		cr_assert(!memchr(p, '\r', (size_t)(nl - p)));
		cr_assert(!memchr(p, '\033', (size_t)(nl - p)));
		p = nl + 1;
	}
}

Test(github, errors_with_file_and_code)
{
	char *tmp = ws_tmpdir();
	tiny_model(tmp, "bad", true);
	cr_assert(chdir(tmp) == 0);
	ws_run r = ws_run_cli("check", "--format", "github", "bad", "missing", NULL);
	cr_assert_eq(r.status, 3);
	assert_commands_only(r.out);
	cr_assert(ws_contains(r.out, "::error file=bad/model.safetensors,title=shape-mismatch::"
				     "model.layers.0.self_attn.k_proj.weight: "), "%s", r.out);
	cr_assert(ws_contains(r.out, "::error file=bad/model.safetensors,title=count-mismatch::"));
	cr_assert(ws_contains(r.out, "::error file=missing,title=input-error::missing"));
	ws_run_free(&r);
	ws_rmtree(tmp);
	free(tmp);
}

Test(github, hostile_names_are_escaped)
{
	char *tmp = ws_tmpdir();
	/* the folder name reaches the file= property */
	char *dir = ws_join(tmp, "m%1,a:b\n::error::x");
	hostile_model(dir);
	ws_run r = ws_run_cli("inspect", "--format", "github", dir, NULL);
	cr_assert_eq(r.status, 0, "stderr: %s", r.err);
	assert_commands_only(r.out);
	cr_assert(ws_contains(r.out, "/m%251%2Ca%3Ab%0A%3A%3Aerror%3A%3Ax/model.safetensors,title="),
		  "%s", r.out);
	/* findings already carry the newline escaped as \x0A; % still needs %25 */
	cr_assert(ws_contains(r.out, "evil\\x0A::error::pwned 100%25, a:b"), "%s", r.out);
	cr_assert(!ws_contains(r.out, "\n::error::"));
	ws_run_free(&r);

	/* the same model as SARIF: still valid JSON, the text intact */
	r = ws_run_cli("inspect", "--format", "sarif", dir, NULL);
	cr_assert_eq(r.status, 0);
	cJSON *log = sarif_parse(r.out);
	const cJSON *res = find_result(log, "unsupported-architecture", NULL);
	cr_assert(res);
	cr_assert(ws_contains(str(obj(res, "message"), "text"), "evil\\x0A::error::pwned 100%"));
	cJSON *art = cJSON_GetArrayItem(obj(run0(log), "artifacts"), 0);
	cr_assert(ws_contains(str(obj(art, "location"), "uri"), "/m%251%2Ca%3Ab%0A%3A%3Aerror%3A%3Ax/"));
	cJSON_Delete(log);
	ws_run_free(&r);
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
}

/* ==== colour ==== */

/* Run the CLI on a pseudo-terminal (stdout is a tty) and return what it
 * wrote; extra environment as NAME=VALUE or NULL. */
static char *
run_pty(const char *env, const char *a1, const char *a2, const char *a3)
{
	int master;
	pid_t pid = forkpty(&master, NULL, NULL, NULL);
	cr_assert(pid >= 0);
	if (pid == 0) {
		unsetenv("NO_COLOR");
		if (env)
			putenv((char *)env);
		const char *bin = getenv("WS_BIN");
		execl(bin, bin, a1, a2, a3, (char *)NULL);
		_exit(127);
	}
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);
	cr_assert(out);
	for (;;) {
		struct pollfd p = {master, POLLIN, 0};
		if (poll(&p, 1, 20000) <= 0)
			break;
		if (len + 1024 >= cap)
			cr_assert(out = realloc(out, cap *= 2));
		ssize_t n = read(master, out + len, cap - len - 1);
		if (n <= 0) /* EIO once the child has gone */
			break;
		len += (size_t)n;
	}
	out[len] = '\0';
	int st;
	waitpid(pid, &st, 0);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1, "check should fail: %s", out);
	close(master);
	return out;
}

Test(color, only_on_a_terminal_and_never_with_no_color)
{
	if (!ws_have_pty())
		cr_skip_test("no pseudo-terminal here (/dev/pts not mounted)");
	char *tmp = ws_tmpdir();
	tiny_model(tmp, "bad", true);
	char *dir = ws_join(tmp, "bad");

	/* the control: on a terminal, error findings are red */
	char *o = run_pty(NULL, "check", dir, NULL);
	cr_assert(ws_contains(o, "\033[31m"), "no colour on a terminal: %s", o);
	cr_assert(ws_contains(o, "shape-mismatch"));
	free(o);

	o = run_pty("NO_COLOR=1", "check", dir, NULL);
	cr_assert(ws_contains(o, "shape-mismatch"));
	cr_assert(!strchr(o, '\033'), "escape code under NO_COLOR: %s", o);
	free(o);

	o = run_pty(NULL, "check", "--no-color", dir);
	cr_assert(ws_contains(o, "shape-mismatch"));
	cr_assert(!strchr(o, '\033'), "escape code under --no-color: %s", o);
	free(o);

	/* a pipe is not a terminal */
	ws_run r = ws_run_cli("check", dir, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, "shape-mismatch"));
	cr_assert(!strchr(r.out, '\033'));
	ws_run_free(&r);
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
}

/* ==== the shipped documentation matches the binary ==== */

Test(docs, help_version_and_usage_errors)
{
	ws_run r = ws_run_cli("--help", NULL);
	cr_assert_eq(r.status, 0);
	cr_assert(ws_contains(r.out, "usage: weightscan"));
	cr_assert_str_eq(r.err, "");
	ws_run_free(&r);
	r = ws_run_cli("--version", NULL);
	cr_assert_eq(r.status, 0);
	cr_assert_str_eq(r.out, "weightscan " WS_VERSION "\n");
	ws_run_free(&r);
	r = ws_run_cli("check", "--no-such-option", "x", NULL);
	cr_assert_eq(r.status, 2);
	cr_assert_str_eq(r.out, "");
	cr_assert(ws_contains(r.err, "--no-such-option") && ws_contains(r.err, "--help"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("--format", "xml", "x", NULL);
	cr_assert_eq(r.status, 2);
	ws_run_free(&r);
}

/* Every command of --help, role, finding code (the SARIF rules) and
 * format is in the man page and both completions. */
Test(docs, man_page_and_completions_cover_everything)
{
	char *paths[3] = {src_path("src/weightscan.1"), src_path("tools/completion/weightscan.bash"),
			  src_path("tools/completion/_weightscan")};
	char *text[3];
	for (int i = 0; i < 3; i++)
		text[i] = slurp(paths[i]);
	cr_assert(ws_contains(text[0], "\"weightscan " WS_VERSION "\""), "man page version");

	/* commands: the first word of each line under "commands:" in --help */
	ws_run r = ws_run_cli("--help", NULL);
	char *p = strstr(r.out, "commands:\n");
	cr_assert(p);
	int ncmd = 0;
	for (p = strchr(p, '\n') + 1; !strncmp(p, "  ", 2); p = strchr(p, '\n') + 1) {
		char word[32] = "";
		cr_assert(sscanf(p, " %31s", word) == 1);
		char man_entry[48];
		snprintf(man_entry, sizeof man_entry, ".BI \"%s ", word);
		cr_assert(ws_contains(text[0], man_entry) ||
			  (snprintf(man_entry, sizeof man_entry, ".BI \"%s\"", word),
			   ws_contains(text[0], man_entry)), "man page lacks command %s", word);
		for (int i = 1; i < 3; i++)
			cr_assert(ws_contains(text[i], word), "%s lacks command %s", paths[i], word);
		ncmd++;
	}
	cr_assert(ncmd >= 7);
	ws_run_free(&r);

	for (int role = 0; role < WS_ROLE_COUNT; role++)
		for (int i = 0; i < 3; i++)
			cr_assert(ws_contains(text[i], ws_role_name((ws_role)role)), "%s lacks role %s",
				  paths[i], ws_role_name((ws_role)role));

	char *tmp = ws_tmpdir();
	tiny_model(tmp, "good", false);
	char *dir = ws_join(tmp, "good");
	r = ws_run_cli("inspect", "--format", "sarif", dir, NULL);
	cJSON *log = sarif_parse(r.out);
	const cJSON *rule;
	cJSON_ArrayForEach(rule, obj(obj(obj(run0(log), "tool"), "driver"), "rules")) {
		const char *code = str(rule, "id");
		for (int i = 0; i < 3; i++) {
			/* roff writes '-' as '\-' */
			char esc[64];
			size_t k = 0;
			for (const char *c = code; *c && k + 3 < sizeof esc; c++) {
				if (*c == '-' && i == 0)
					esc[k++] = '\\';
				esc[k++] = *c;
			}
			esc[k] = '\0';
			cr_assert(ws_contains(text[i], esc), "%s lacks finding code %s", paths[i], code);
		}
	}
	static const char *const formats[] = {"text", "json", "sarif", "github"};
	for (size_t f = 0; f < 4; f++)
		for (int i = 0; i < 3; i++)
			cr_assert(ws_contains(text[i], formats[f]));
	cJSON_Delete(log);
	ws_run_free(&r);
	for (int i = 0; i < 3; i++) {
		free(text[i]);
		free(paths[i]);
	}
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
}
