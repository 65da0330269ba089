/*
 * test_findings.c - a finding that cannot be recorded (out of memory) is
 * exit 4 with the usual error line, never a shorter list of findings and
 * never a verdict: inspect, check, scan and diff, with the library's
 * test-only hook WS_FAIL_FINDING=N (the Nth finding recorded fails).
 * Without the hook, or past the last finding, the same runs exit as
 * usual.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define LOST "out of memory"

/* The tiny llama checkpoint; name_or_path (or NULL) set in its
 * config.json: "tiny-7b" declares 7B parameters the tensors do not hold,
 * one declared-mismatch warning when analyzed. */
static char *
tiny(const char *root, const char *name, const char *name_or_path)
{
	char *dir = ws_join(root, name);
	ws_mkfixture("tiny", dir, NULL);
	if (!name_or_path)
		return dir;
	char *cp = ws_join(dir, "config.json");
	FILE *f = fopen(cp, "rb");
	cr_assert(f, "%s", cp);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	cJSON *c = cJSON_Parse(buf);
	cr_assert(c);
	cJSON_AddStringToObject(c, "_name_or_path", name_or_path);
	char *s = cJSON_Print(c);
	free(ws_write_file(dir, "config.json", s, strlen(s)));
	free(s);
	cJSON_Delete(c);
	free(cp);
	return dir;
}

/* A folder holding the checkpoint and an fp16 variant of it: one
 * "variant" finding recorded while the folder is opened. */
static char *
variants(const char *root)
{
	char *dir = tiny(root, "variants", NULL);
	char *p = ws_join(dir, "model.safetensors");
	FILE *f = fopen(p, "rb");
	cr_assert(f);
	static char buf[1 << 17];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	free(ws_write_file(dir, "model.fp16.safetensors", buf, n));
	free(p);
	return dir;
}

static void
fail_at(const char *n)
{
	if (n)
		setenv("WS_FAIL_FINDING", n, 1);
	else
		unsetenv("WS_FAIL_FINDING");
}

/* Exit 4, the error line on stderr naming PATH, and nothing of a report
 * on stdout (text: nothing at all). */
static void
assert_lost(ws_run *r, const char *path, const char *what)
{
	cr_assert_eq(r->status, 4, "%s: exit %d, stderr: %s", what, r->status, r->err);
	char line[1024];
	snprintf(line, sizeof line, "weightscan: %s: " LOST "\n", path);
	cr_assert_str_eq(r->err, line, "%s: stderr %s", what, r->err);
	cr_assert_str_eq(r->out, "", "%s: stdout %s", what, r->out);
}

Test(findings, inspect_lost_is_exit_4)
{
	char *root = ws_tmpdir();
	char *dir = tiny(root, "m", "tiny-7b");

	fail_at(NULL);
	ws_run r = ws_run_cli("inspect", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(ws_contains(r.out, "declared-mismatch"), "%s", r.out);
	ws_run_free(&r);

	fail_at("1");
	r = ws_run_cli("inspect", dir, NULL);
	assert_lost(&r, dir, "inspect");
	ws_run_free(&r);

	/* JSON: the error object, no findings[] and no "ok" */
	r = ws_run_cli("inspect", "--json", dir, NULL);
	cr_assert_eq(r.status, 4, "%s", r.err);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o, "%s", r.out);
	cJSON *e = cJSON_GetObjectItem(o, "error");
	cr_assert(e, "%s", r.out);
	cr_assert_str_eq(cJSON_GetObjectItem(e, "kind")->valuestring, "internal");
	cr_assert_str_eq(cJSON_GetObjectItem(e, "message")->valuestring, LOST);
	cr_assert_null(cJSON_GetObjectItem(o, "findings"));
	cr_assert_null(cJSON_GetObjectItem(o, "ok"));
	cJSON_Delete(o);
	ws_run_free(&r);

	/* past the last finding: the usual report */
	fail_at("2");
	r = ws_run_cli("inspect", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(ws_contains(r.out, "declared-mismatch"), "%s", r.out);
	ws_run_free(&r);
	fail_at(NULL);
	ws_rmtree(root);
	free(dir);
	free(root);
}

Test(findings, check_lost_is_exit_4)
{
	char *root = ws_tmpdir();
	char *dir = tiny(root, "m", "tiny-7b");

	fail_at(NULL);
	ws_run r = ws_run_cli("check", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(ws_contains(r.out, "check          passed"), "%s", r.out);
	ws_run_free(&r);

	fail_at("1");
	r = ws_run_cli("check", dir, NULL);
	assert_lost(&r, dir, "check");
	ws_run_free(&r);
	r = ws_run_cli("check", "--quiet", dir, NULL);
	assert_lost(&r, dir, "check --quiet");
	ws_run_free(&r);
	r = ws_run_cli("check", "--format", "github", dir, NULL);
	cr_assert_eq(r.status, 4, "%s", r.err);
	cr_assert(!ws_contains(r.out, "declared-mismatch"), "%s", r.out);
	ws_run_free(&r);
	fail_at(NULL);
	ws_rmtree(root);
	free(dir);
	free(root);
}

/* --expect-params adds its finding in the CLI, after the analysis: the
 * only finding of a clean checkpoint. */
Test(findings, check_expect_params_lost_is_exit_4)
{
	char *root = ws_tmpdir();
	char *dir = tiny(root, "m", NULL);

	fail_at(NULL);
	ws_run r = ws_run_cli("check", "--expect-params", "5", dir, NULL);
	cr_assert_eq(r.status, 1, "%s", r.err);
	cr_assert(ws_contains(r.out, "expect-params"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("check", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);

	fail_at("1");
	r = ws_run_cli("check", "--expect-params", "5", dir, NULL);
	assert_lost(&r, dir, "check --expect-params");
	ws_run_free(&r);
	/* no finding, nothing to lose */
	r = ws_run_cli("check", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	fail_at(NULL);
	ws_rmtree(root);
	free(dir);
	free(root);
}

/* The variant finding is recorded while the folder is opened: scan, and
 * inspect and check (which first look whether the folder holds several
 * models), fail on it. */
Test(findings, open_lost_is_exit_4)
{
	char *root = ws_tmpdir();
	char *dir = variants(root);

	fail_at(NULL);
	ws_run r = ws_run_cli("scan", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("inspect", "--json", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(ws_contains(r.out, "\"code\":\"variant\""), "%s", r.out);
	ws_run_free(&r);

	fail_at("1");
	r = ws_run_cli("scan", dir, NULL);
	assert_lost(&r, dir, "scan");
	ws_run_free(&r);
	r = ws_run_cli("inspect", dir, NULL);
	assert_lost(&r, dir, "inspect");
	ws_run_free(&r);
	r = ws_run_cli("check", dir, NULL);
	assert_lost(&r, dir, "check");
	ws_run_free(&r);
	/* --variant reads the folder as one checkpoint: the finding is the
	 * open's own */
	r = ws_run_cli("check", "--variant", "fp16", dir, NULL);
	assert_lost(&r, dir, "check --variant");
	ws_run_free(&r);
	fail_at(NULL);
	ws_rmtree(root);
	free(dir);
	free(root);
}

Test(findings, diff_lost_is_exit_4)
{
	char *root = ws_tmpdir();
	char *a = tiny(root, "a", NULL);
	char *b = tiny(root, "b", "tiny-7b");

	fail_at(NULL);
	ws_run r = ws_run_cli("diff", a, b, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);

	fail_at("1");
	r = ws_run_cli("diff", a, b, NULL);
	assert_lost(&r, b, "diff");
	ws_run_free(&r);
	r = ws_run_cli("diff", "--json", a, b, NULL);
	cr_assert_eq(r.status, 4, "%s", r.err);
	cr_assert(!ws_contains(r.out, "\"differs\""), "%s", r.out);
	ws_run_free(&r);
	fail_at(NULL);
	ws_rmtree(root);
	free(a);
	free(b);
	free(root);
}
