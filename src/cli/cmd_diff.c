/*
 * cmd_diff.c - `diff A B` and `scan PATH [-j N]`, the CLI side of
 * ws/diff.h and weightscan/scan.h: options, output, exit codes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ws/diff.h"
#include "ws/scan.h"


/* Common argument loop: PATHs and -j.  Returns 0 or an exit code. */
static int
parse_args(int argc, char **argv, const char **paths, int want, unsigned *threads)
{
	int n = 0;
	bool ended = false;
	const char *val;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;
		if (ended || a[0] != '-' || !a[1]) {
			if (n == want)
				return ws_cli_usage_error("%s: too many arguments ('%s')", argv[0], a);
			paths[n++] = a;
		} else if (!strcmp(a, "--")) {
			ended = true;
		} else if (ws_cli_opt_value(argc, argv, &i, "-j", "--jobs", &val)) {
			if ((rc = ws_cli_parse_jobs(argv[0], val, threads)) != 0)
				return rc;
		} else {
			return ws_cli_usage_error("%s: unknown option '%s'", argv[0], a);
		}
	}
	if (n != want)
		return ws_cli_usage_error(want == 2 ? "%s: needs two PATHs (A B)" : "%s: needs a PATH",
					  argv[0]);
	return 0;
}

/* ==== progress (stderr, terminals only) ==== */

typedef struct progress {
	const char *what;
	struct timespec t0;
	bool shown;
} progress;

static void
show_progress(void *ctx, uint64_t done, uint64_t total)
{
	progress *p = ctx;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double s = (double)(t.tv_sec - p->t0.tv_sec) + (double)(t.tv_nsec - p->t0.tv_nsec) / 1e9;
	char a[32], b[32];
	if (s < 0.3 && !p->shown)
		return;
	fprintf(stderr, "\r%s %3d%% %s / %s %.2f GB/s\033[K", p->what,
		total ? (int)((double)done * 100.0 / (double)total) : 100,
		ws_fmt_bytes(done, a, sizeof a), ws_fmt_bytes(total, b, sizeof b),
		s > 0 ? (double)done / s / 1e9 : 0.0);
	p->shown = true;
}

static void
progress_end(const progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
}

static int
open_analyzed(const ws_cli *cli, const char *cmd, const char *path, ws_model **m)
{
	ws_error err = {0};
	if (ws_model_open(path, NULL, m, &err) != 0 || ws_model_analyze(*m, &err) != 0) {
		ws_model_free(*m);
		*m = NULL;
		return ws_cli_report_error(cli, cmd, err.file[0] ? err.file : path, &err);
	}
	int rc = ws_cli_select_component(cli, cmd, path, *m);
	if (rc) {
		ws_model_free(*m);
		*m = NULL;
	}
	return rc;
}

/* ==== diff ==== */

int
ws_cmd_diff(const ws_cli *cli, int argc, char **argv)
{
	const char *paths[2] = {NULL, NULL};
	ws_diff_opts o = {0};
	ws_model *a = NULL, *b = NULL;
	progress pr = {.what = "hashing"};
	int rc = parse_args(argc, argv, paths, 2, &o.threads);

	if (rc)
		return rc;
	if ((rc = open_analyzed(cli, argv[0], paths[0], &a)) != 0)
		return rc;
	if ((rc = open_analyzed(cli, argv[0], paths[1], &b)) != 0) {
		ws_model_free(a);
		return rc;
	}
	if (cli->progress) {
		clock_gettime(CLOCK_MONOTONIC, &pr.t0);
		o.progress = show_progress;
		o.progress_ctx = &pr;
	}
	ws_diff d;
	ws_error err = {0};
	int r = ws_diff_models(a, b, &o, &d, &err);
	progress_end(&pr);
	if (r) {
		rc = ws_cli_report_error(cli, argv[0], err.file[0] ? err.file : paths[0], &err);
		goto out;
	}
	rc = ws_diff_differs(&d) ? WS_EXIT_FINDINGS : WS_EXIT_OK;
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header(argv[0], paths[0]);
		if (!obj || ws_diff_to_json(obj, a, b, &d) || ws_json_print_line(cli->out, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(obj);
	} else {
		ws_diff_print_text(cli->out, a, b, &d, cli->quiet);
	}
	ws_diff_free(&d);
out:
	ws_model_free(a);
	ws_model_free(b);
	return rc;
}

/* ==== scan ==== */

static bool
bad(const ws_scan_tensor *st)
{
	return st->state == WS_SCAN_DONE && (st->nan || st->inf);
}

static void
scan_text(FILE *f, const ws_model *m, const ws_scan *s, bool quiet)
{
	char b1[32];
	if (!quiet) {
		ws_fput_escaped(f, m->path, strlen(m->path));
		fprintf(f, ": %zu tensors, %" PRIu64 " scanned, %" PRIu64 " skipped, %s read\n\n",
			s->n, s->scanned, s->skipped, ws_fmt_bytes(s->bytes_read, b1, sizeof b1));
		fprintf(f, "%-12s %-8s %14s %13s %13s %13s %13s  %s\n", "", "dtype", "values",
			"min", "max", "mean", "std", "tensor");
	}
	for (size_t i = 0; i < s->n; i++) {
		const ws_scan_tensor *st = &s->t[i];
		const ws_tensor *t = &m->tensors[i];
		bool zero = st->state == WS_SCAN_DONE && st->values && st->zero == st->values;
		if (st->state != WS_SCAN_DONE || (quiet && !bad(st) && !zero))
			continue;
		const char *tag = st->nan ? "NAN" : st->inf ? "INF" : zero ? "ALL-ZERO" : "ok";
		fprintf(f, "%-12s %-8s %14" PRIu64 " %13.6g %13.6g %13.6g %13.6g  ", tag,
			ws_dtype_name(t->dtype), st->values, st->min, st->max, st->mean, st->std);
		ws_fput_escaped(f, t->name, t->name_len);
		if (st->scales_only)
			fputs(" (block scales only)", f);
		if (bad(st))
			fprintf(f, " (%" PRIu64 " NaN, %" PRIu64 " Inf; first at flat index %" PRIu64 "%s)",
				st->nan, st->inf, st->first_bad, st->scales_only ? ", its block" : "");
		fputc('\n', f);
	}
	if (s->skipped && !quiet) {
		fprintf(f, "\nskipped (%" PRIu64 "):\n", s->skipped);
		for (size_t i = 0; i < s->n; i++) {
			const ws_scan_tensor *st = &s->t[i];
			if (st->state != WS_SCAN_SKIPPED)
				continue;
			fputs("  ", f);
			ws_fput_escaped(f, m->tensors[i].name, m->tensors[i].name_len);
			fprintf(f, "  %s: %s\n", ws_dtype_name(m->tensors[i].dtype), st->skip_reason);
		}
	}
	uint64_t nbad = 0;
	for (size_t i = 0; i < s->n; i++)
		nbad += bad(&s->t[i]);
	fprintf(f, "%sresult: %" PRIu64 " tensor%s with NaN or Inf, %" PRIu64 " all-zero\n",
		quiet ? "" : "\n", nbad, nbad == 1 ? "" : "s", s->all_zero);
}

static int
scan_json(FILE *f, const char *cmd, const char *path, const ws_model *m, const ws_scan *s)
{
	cJSON *obj = ws_cli_json_header(cmd, path);
	cJSON *arr = obj ? cJSON_AddArrayToObject(obj, "tensors") : NULL;
	cJSON *sk = obj ? cJSON_AddArrayToObject(obj, "skipped") : NULL;
	bool ok = true;
	int rc = 0;
	if (!arr || !sk) {
		cJSON_Delete(obj);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		const ws_scan_tensor *st = &s->t[i];
		const ws_tensor *t = &m->tensors[i];
		cJSON *o = cJSON_CreateObject();
		if (!o) {
			rc = -1;
			break;
		}
		ws_json_add_bytes(o, "name", t->name, t->name_len);
		cJSON_AddStringToObject(o, "dtype", ws_dtype_name(t->dtype));
		if (st->state == WS_SCAN_SKIPPED) {
			cJSON_AddStringToObject(o, "reason", st->skip_reason);
			cJSON_AddItemToArray(sk, o);
			continue;
		}
		cJSON_AddItemToArray(arr, o);
		if (st->state == WS_SCAN_ERROR) {
			cJSON_AddStringToObject(o, "error", "read failed");
			continue;
		}
		cJSON_AddBoolToObject(o, "scales_only", st->scales_only);
		ws_json_add_u64(o, "values", st->values);
		ws_json_add_u64(o, "nan", st->nan);
		ws_json_add_u64(o, "inf", st->inf);
		ws_json_add_u64(o, "zero", st->zero);
		cJSON_AddBoolToObject(o, "all_zero", st->values && st->zero == st->values);
		if (bad(st)) {
			ws_json_add_u64(o, "first_bad", st->first_bad);
			ok = false;
		}
		cJSON_AddNumberToObject(o, "min", st->min);
		cJSON_AddNumberToObject(o, "max", st->max);
		cJSON_AddNumberToObject(o, "mean", st->mean);
		cJSON_AddNumberToObject(o, "std", st->std);
	}
	cJSON *sum = cJSON_AddObjectToObject(obj, "summary");
	if (sum) {
		ws_json_add_u64(sum, "tensors", s->n);
		ws_json_add_u64(sum, "scanned", s->scanned);
		ws_json_add_u64(sum, "skipped", s->skipped);
		ws_json_add_u64(sum, "with_nan", s->with_nan);
		ws_json_add_u64(sum, "with_inf", s->with_inf);
		ws_json_add_u64(sum, "all_zero", s->all_zero);
		ws_json_add_u64(sum, "bytes_read", s->bytes_read);
	}
	cJSON_AddBoolToObject(obj, "ok", ok);
	if (rc == 0 && ws_json_print_line(f, obj))
		rc = -1;
	cJSON_Delete(obj);
	return rc;
}

int
ws_cmd_scan(const ws_cli *cli, int argc, char **argv)
{
	const char *path = NULL;
	ws_scan_opts o = {0};
	ws_model *m = NULL;
	progress pr = {.what = "scanning"};
	ws_error err = {0};
	int rc = parse_args(argc, argv, &path, 1, &o.threads);

	if (rc)
		return rc;
	if (ws_remote_needs_data(path, "scan", &err) || ws_model_open(path, NULL, &m, &err) != 0 ||
	    (cli->component && ws_model_analyze(m, &err) != 0)) {
		ws_model_free(m);
		return ws_cli_report_error(cli, argv[0], err.file[0] ? err.file : path, &err);
	}
	if ((rc = ws_cli_select_component(cli, argv[0], path, m)) != 0) {
		ws_model_free(m);
		return rc;
	}
	if (cli->progress) {
		clock_gettime(CLOCK_MONOTONIC, &pr.t0);
		o.progress = show_progress;
		o.progress_ctx = &pr;
	}
	ws_scan s;
	int r = ws_scan_model(m, &o, &s, &err);
	progress_end(&pr);
	if (r) {
		rc = ws_cli_report_error(cli, argv[0], err.file[0] ? err.file : path, &err);
		ws_model_free(m);
		return rc;
	}
	if (s.failed) {
		rc = ws_cli_report_error(cli, argv[0], s.err.file[0] ? s.err.file : path, &s.err);
	} else {
		rc = s.with_nan || s.with_inf ? WS_EXIT_FINDINGS : WS_EXIT_OK;
		if (cli->format == WS_OUT_JSON) {
			if (scan_json(cli->out, argv[0], path, m, &s))
				rc = WS_EXIT_INTERNAL;
		} else {
			scan_text(cli->out, m, &s, cli->quiet);
		}
		/* the exit-1 reasons on stderr too: each bad tensor, its first index */
		for (size_t i = 0; i < s.n && rc == WS_EXIT_FINDINGS; i++) {
			if (!bad(&s.t[i]))
				continue;
			fputs("weightscan: ", stderr);
			ws_fput_escaped(stderr, m->tensors[i].name, m->tensors[i].name_len);
			fprintf(stderr, ": %s at flat index %" PRIu64 "\n",
				!s.t[i].inf ? "NaN" : !s.t[i].nan ? "Inf" : "NaN/Inf",
				s.t[i].first_bad);
		}
	}
	ws_scan_free(&s);
	ws_model_free(m);
	return rc;
}
