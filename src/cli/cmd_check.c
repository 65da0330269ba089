/*
 * cmd_check.c - the CI gate: inspect, the byte comparisons that need data,
 * --expect-params, --strict, --fail-on and --ignore.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "ws/report.h"

typedef struct ignore_rule {
	char *code;
	char *glob;   /* NULL: every tensor */
	char *why;    /* the rest of the line, or NULL */
} ignore_rule;

typedef struct check_opts {
	const char *config;
	const char *base;      /* --base PATH: an adapter's base */
	const char *variant;
	bool strict;
	bool have_expect;
	uint64_t expect, tol;
	bool tol_percent;
	double tol_pct;     /* with tol_percent */
	char **fail_on;
	size_t n_fail_on;
	ignore_rule *ignore;
	size_t n_ignore;
	const char *ignore_path;
	const char *vision;    /* the vision file joined to this model, or NULL */
} check_opts;

/* An unknown finding code is a usage error listing the valid ones: a
 * typo must not switch the gate off. */
static int
unknown_code(const char *where, const char *code)
{
	size_t n;
	const ws_finding_code *c = ws_finding_codes(&n);
	char list[1024] = "";
	size_t len = 0;
	for (size_t i = 0; i < n && len < sizeof list; i++)
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
					c[i].code);
	char *esc = ws_escape_text(code, strlen(code));
	int rc = ws_cli_usage_error("check: %s: unknown finding code '%s' (valid: %s)", where,
				    esc ? esc : "?", list);
	free(esc);
	return rc;
}

/* "N" or "N:TOL" or "N:TOL%". */
static int
parse_expect(check_opts *o, const char *v)
{
	char *dup = strdup(v), *colon;
	if (!dup)
		return WS_EXIT_INTERNAL;
	colon = strchr(dup, ':');
	if (colon)
		*colon++ = '\0';
	/* 8.03B: within the rounding of the digits given, unless a
	 * tolerance is; 8030261248:0.1% or :5M */
	int rc = ws_parse_count(dup, false, &o->expect, &o->tol) ? 0
		: ws_cli_usage_error("--expect-params: '%s' is not a count (8030261248, 8.03B, "
				     "8.03B:1%%, 8030261248:5M)", v);
	if (!rc && colon) {
		size_t l = strlen(colon);
		char *end = NULL;
		if (l && colon[l - 1] == '%') {
			colon[l - 1] = '\0';
			o->tol_percent = true;
			o->tol_pct = strtod(colon, &end);
			rc = *colon && end && !*end && o->tol_pct >= 0 && o->tol_pct <= 100 ? 0
				: ws_cli_usage_error("--expect-params: '%s%%' is not a percentage", colon);
		} else {
			rc = ws_parse_count(colon, false, &o->tol, NULL) ? 0
				: ws_cli_usage_error("--expect-params: tolerance '%s' is not a count or a "
						     "percentage", colon);
		}
	}
	o->have_expect = true;
	free(dup);
	return rc;
}

static int
parse_fail_on(check_opts *o, const char *v)
{
	char *dup = strdup(v), *save = NULL;
	if (!dup)
		return WS_EXIT_INTERNAL;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!ws_finding_code_find(t)) {
			int rc = unknown_code("--fail-on", t);
			free(dup);
			return rc;
		}
		char **n = realloc(o->fail_on, (o->n_fail_on + 1) * sizeof *n);
		if (!n || !(n[o->n_fail_on] = strdup(t))) {
			free(n ? n : o->fail_on);
			o->fail_on = NULL;
			free(dup);
			return WS_EXIT_INTERNAL;
		}
		o->fail_on = n;
		o->n_fail_on++;
	}
	free(dup);
	return 0;
}

/* Lines `CODE[:TENSOR-GLOB] reason`; # comments and blank lines skipped. */
static int
parse_ignore(check_opts *o, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return ws_cli_usage_error("--ignore: cannot read %s", path);
	o->ignore_path = path;
	char line[4096];
	size_t lineno = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		size_t w = strcspn(p, " \t\n");
		char *rest = p[w] ? p + w + 1 : p + w;
		p[w] = '\0';
		rest += strspn(rest, " \t");
		rest[strcspn(rest, "\n")] = '\0';
		ignore_rule r = {0};
		char *colon = strchr(p, ':');
		if (colon)
			*colon = '\0';
		if (!ws_finding_code_find(p)) {
			char where[64];
			snprintf(where, sizeof where, "--ignore line %zu", lineno);
			fclose(f);
			return unknown_code(where, p);
		}
		if (colon)
			r.glob = strdup(colon + 1);
		r.code = strdup(p);
		r.why = *rest ? strdup(rest) : NULL;
		ignore_rule *n = realloc(o->ignore, (o->n_ignore + 1) * sizeof *n);
		if (!r.code || (colon && !r.glob) || (*rest && !r.why) || !n) {
			free(r.code);
			free(r.glob);
			free(r.why);
			free(n ? n : o->ignore);
			o->ignore = NULL;
			fclose(f);
			return WS_EXIT_INTERNAL;
		}
		o->ignore = n;
		o->ignore[o->n_ignore++] = r;
	}
	fclose(f);
	return 0;
}

static void
free_opts(check_opts *o)
{
	for (size_t i = 0; i < o->n_fail_on; i++)
		free(o->fail_on[i]);
	free(o->fail_on);
	for (size_t i = 0; i < o->n_ignore; i++) {
		free(o->ignore[i].code);
		free(o->ignore[i].glob);
		free(o->ignore[i].why);
	}
	free(o->ignore);
}

static const ignore_rule *
ignored_by(const check_opts *o, const ws_finding *f)
{
	for (size_t i = 0; i < o->n_ignore; i++) {
		const ignore_rule *r = &o->ignore[i];
		if (strcmp(r->code, f->code))
			continue;
		if (!r->glob || (f->tensor && fnmatch(r->glob, f->tensor, 0) == 0))
			return r;
	}
	return NULL;
}

/* Mark ignored findings: the user's decision, kept in every output so a
 * reviewer sees what was waived; how many. */
static size_t
apply_ignore(const check_opts *o, ws_model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_findings; i++) {
		const ignore_rule *r = ignored_by(o, &m->findings[i]);
		if (r) {
			m->findings[i].ignored = true;
			m->findings[i].ignored_why = r->why;
			n++;
		}
	}
	return n;
}

/* Errors always fail; --strict adds every warning, --fail-on the codes
 * it names; only an --ignore line takes a finding out. */
static bool
fails(const check_opts *o, const ws_model *m)
{
	for (size_t i = 0; i < m->n_findings; i++) {
		const ws_finding *f = &m->findings[i];
		if (f->ignored)
			continue;
		if (f->severity == WS_SEV_ERROR || (o->strict && f->severity == WS_SEV_WARNING))
			return true;
		for (size_t c = 0; c < o->n_fail_on; c++)
			if (!strcmp(o->fail_on[c], f->code))
				return true;
	}
	return false;
}

static int
check_one(const ws_cli *cli, const check_opts *o, const char *path)
{
	ws_model *m = NULL;
	ws_error err = {0};
	ws_open_opts oo = {.config_path = o->config, .vision_file = o->vision,
			   .allow_full_download = cli->allow_full_download,
			   .variant = o->variant, .base_path = o->base};
	if (ws_model_open(path, &oo, &m, &err) || ws_model_analyze(m, &err) ||
	    ws_model_compare_data(m, &err)) {
		ws_model_free(m);
		return ws_cli_report_error(cli, "check", path, &err);
	}
	if (o->have_expect) {
		ws_summary s;
		if (ws_summary_compute(m, &s)) {
			ws_model_free(m);
			ws_err_oom(&err, path);
			return ws_cli_report_error(cli, "check", path, &err);
		}
		uint64_t tol = o->tol;
		if (o->tol_percent) {
			double t = (double)o->expect * o->tol_pct / 100.0;
			/* 2^64 as a double: anything at or above it is "any count" */
			tol = t >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)t;
		}
		uint64_t diff = s.params > o->expect ? s.params - o->expect : o->expect - s.params;
		int fr = diff <= tol ? 0
			: ws_model_add_finding(m, WS_SEV_ERROR, "expect-params", NULL, -1, -1, true,
					       o->expect, s.params,
					       "expected %llu parameters (tolerance %llu), found %llu",
					       (unsigned long long)o->expect, (unsigned long long)tol,
					       (unsigned long long)s.params);
		ws_summary_free(&s);
		if (fr < 0) {
			/* no verdict on a shorter list of findings */
			ws_model_free(m);
			ws_err_oom(&err, path);
			return ws_cli_report_error(cli, "check", path, &err);
		}
	}
	size_t n_ignored = apply_ignore(o, m);
	bool failed = fails(o, m);
	int rc = failed ? WS_EXIT_FINDINGS : WS_EXIT_OK;
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header("check", path);
		if (!obj || ws_report_inspect_json(m, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_ReplaceItemInObject(obj, "ok", cJSON_CreateBool(!failed));
		if (ws_json_print_line(cli->out, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(obj);
	} else if (ws_out_findings_format(cli)) {
		rc = ws_exit_worst(rc, ws_out_model(cli, path, m));
	} else if (cli->quiet) {
		ws_out_findings_quiet(cli->out, path, m);
	} else {
		ws_report_inspect_text(cli->out, m, cli->color);
		if (n_ignored) {
			fprintf(cli->out, "  %zu finding%s ignored by ", n_ignored, n_ignored == 1 ? "" : "s");
			ws_fput_escaped(cli->out, o->ignore_path, strlen(o->ignore_path));
			fputc('\n', cli->out);
		}
		fprintf(cli->out, "\ncheck          %s\n", failed ? "FAILED" : "passed");
	}
	ws_model_free(m);
	return rc;
}

int
ws_cmd_check(const ws_cli *cli, int argc, char **argv)
{
	check_opts o = {0};
	const char **paths = calloc((size_t)argc, sizeof *paths);
	int n = 0, rc = 0;
	bool ended = false;

	if (!paths)
		return WS_EXIT_INTERNAL;
	for (int i = 1; i < argc && !rc; i++) {
		const char *a = argv[i];
		bool opt = !ended && a[0] == '-' && a[1];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (opt && !strcmp(a, "--")) {
			ended = true;
		} else if (opt && !strcmp(a, "--strict")) {
			o.strict = true;
		} else if (opt && (!strcmp(a, "--expect-params") || !strcmp(a, "--config") ||
				   !strcmp(a, "--fail-on") || !strcmp(a, "--ignore") ||
				   !strcmp(a, "--variant") || !strcmp(a, "--base"))) {
			if (!val) {
				rc = ws_cli_usage_error("check: %s needs a value", a);
				break;
			}
			i++;
			if (!strcmp(a, "--expect-params"))
				rc = parse_expect(&o, val);
			else if (!strcmp(a, "--config"))
				o.config = val;
			else if (!strcmp(a, "--variant"))
				o.variant = val;
			else if (!strcmp(a, "--base"))
				o.base = val;
			else if (!strcmp(a, "--fail-on"))
				rc = parse_fail_on(&o, val);
			else
				rc = parse_ignore(&o, val);
		} else if (opt) {
			rc = ws_cli_usage_error("check: unknown option '%s'", a);
		} else {
			paths[n++] = a;
		}
	}
	if (!rc && !n)
		rc = ws_cli_usage_error("check: no PATH given");
	if (!rc) {
		for (int i = 0; i < n; i++) {
			/* a folder of models (GGUF or safetensors): each on its own;
			 * with --variant the folder is one checkpoint in that variant */
			char **sub = NULL, **vis = NULL;
			size_t nsub = 0;
			ws_error err = {0};
			if (!o.variant && ws_expand_joined(paths[i], &sub, &vis, &nsub, &err)) {
				rc = ws_exit_worst(rc, ws_cli_report_error(cli, "check", paths[i], &err));
				continue;
			}
			for (size_t k = 0; k < nsub; k++) {
				o.vision = vis ? vis[k] : NULL;
				rc = ws_exit_worst(rc, check_one(cli, &o, sub[k]));
				free(sub[k]);
				if (vis)
					free(vis[k]);
			}
			o.vision = NULL;
			free(sub);
			free(vis);
			if (!nsub)
				rc = ws_exit_worst(rc, check_one(cli, &o, paths[i]));
		}
	}
	free(paths);
	free_opts(&o);
	return rc;
}
