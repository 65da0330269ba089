/*
 * cmd_hash.c - hash (write manifests) and verify (check them), the CLI
 * side of ws/hash.h: option parsing, the progress bar, OK/FAILED/
 * MISSING lines and exit codes.
 *
 * Without -o, `hash` prints the manifest on stdout with paths as given;
 * with --sha256 and no -o, file lines carry SHA-256 instead of XXH3-128
 * (byte-identical to `sha256sum`), tensor lines stay XXH3-128.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ws/hash.h"
#include "ws/json.h"


/* ==== progress ==== */

typedef struct progress {
	const char *what;
	struct timespec t0;
	bool shown;
} progress;

static double
since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void
show_progress(void *ctx, uint64_t done, uint64_t total)
{
	progress *p = ctx;
	double s = since(&p->t0);
	char a[32], b[32];
	int width = 30, fill = total ? (int)((double)done / (double)total * width) : width;
	if (fill > width)
		fill = width;
	if (s < 0.3 && !p->shown)
		return; /* quick runs stay silent */
	char eta[32];
	ws_fmt_eta(done, total, s, eta, sizeof eta);
	fprintf(stderr, "\r%s [%.*s%*s] %3d%% %s / %s %.2f GB/s %s\033[K", p->what, fill,
		"==============================", width - fill, "",
		total ? (int)((double)done * 100.0 / (double)total) : 100,
		ws_fmt_bytes(done, a, sizeof a), ws_fmt_bytes(total, b, sizeof b),
		s > 0 ? (double)done / s / 1e9 : 0.0, eta);
	p->shown = true;
}

static void
progress_end(progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
}

/* ==== hash ==== */

/* One object per file (SPEC): {path, size, xxh3_128 | sha256, tensors?},
 * the tensors of the file in model order. */
static int
hash_json(FILE *out, const ws_hash_set *s)
{
	const char *key = s->has_sha256 ? "sha256" : "xxh3_128";
	size_t dl = s->has_sha256 ? WS_SHA256_LEN : WS_XXH128_LEN;
	char hex[2 * WS_SHA256_LEN + 1];
	for (size_t i = 0; i < s->n; i++) {
		const ws_hash_line *l = &s->lines[i];
		if (l->tensor)
			continue;
		cJSON *o = ws_cli_json_header("hash", l->name);
		if (!o)
			return -1;
		ws_json_add_u64(o, "size", l->size);
		ws_hex(s->has_sha256 ? l->sha256 : l->xxh128, dl, hex);
		cJSON_AddStringToObject(o, key, hex);
		cJSON *ts = NULL;
		for (size_t k = 0; k < s->n; k++) {
			const ws_hash_line *t = &s->lines[k];
			if (!t->tensor || t->file != i)
				continue;
			if (!ts && !(ts = cJSON_AddArrayToObject(o, "tensors")))
				break;
			cJSON *e = cJSON_CreateObject();
			if (!e || !cJSON_AddItemToArray(ts, e))
				break;
			ws_json_add_bytes(e, "name", t->name, t->name_len);
			ws_json_add_u64(e, "size", t->size);
			ws_hex(s->has_sha256 ? t->sha256 : t->xxh128, dl, hex);
			cJSON_AddStringToObject(e, key, hex);
		}
		int r = ws_json_print_line(out, o);
		cJSON_Delete(o);
		if (r)
			return -1;
	}
	return fflush(out) ? -1 : 0;
}

int
ws_cmd_hash(const ws_cli *cli, int argc, char **argv)
{
	ws_hash_opts o = {0};
	const char *manifest = NULL, *val;
	const char **paths = calloc((size_t)argc, sizeof *paths);
	int n = 0, rc;
	bool ended = false;
	progress pr = {.what = "hashing"};

	if (!paths)
		return WS_EXIT_INTERNAL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (ended || a[0] != '-' || !a[1]) {
			paths[n++] = a;
		} else if (!strcmp(a, "--")) {
			ended = true;
		} else if (!strcmp(a, "--per-tensor")) {
			o.per_tensor = true;
		} else if (!strcmp(a, "--sha256")) {
			o.sha256 = true;
		} else if (ws_cli_opt_value(argc, argv, &i, "-j", "--jobs", &val)) {
			if ((rc = ws_cli_parse_jobs(argv[0], val, &o.threads)) != 0)
				goto out;
		} else if (ws_cli_opt_value(argc, argv, &i, "-o", "--output", &val)) {
			if (!val) {
				rc = ws_cli_usage_error("%s: -o needs a MANIFEST", argv[0]);
				goto out;
			}
			manifest = val;
		} else {
			rc = ws_cli_usage_error("%s: unknown option '%s'", argv[0], a);
			goto out;
		}
	}
	if (!n) {
		rc = ws_cli_usage_error("%s: no PATH given", argv[0]);
		goto out;
	}
	if (cli->progress && !cli->quiet) {
		clock_gettime(CLOCK_MONOTONIC, &pr.t0);
		o.progress = show_progress;
		o.progress_ctx = &pr;
	}

	ws_hash_set set;
	ws_error err = {0};
	char *base = NULL;
	if (manifest) {
		/* names are relative to the manifest's folder */
		const char *s = strrchr(manifest, '/');
		base = !s ? strdup(".") : s == manifest ? strdup("/")
			: strndup(manifest, (size_t)(s - manifest));
		if (!base) {
			rc = WS_EXIT_INTERNAL;
			goto out;
		}
	}
	int r = ws_hash_paths(paths, (size_t)n, base, &o, &set, &err);
	free(base);
	progress_end(&pr);
	if (r != 0) {
		rc = ws_cli_report_error(cli, argv[0], err.file[0] ? err.file : paths[0], &err);
		goto out;
	}
	if (manifest) {
		r = ws_hash_write_manifest(manifest, &set, &err);
		rc = r ? ws_cli_report_error(cli, argv[0], manifest, &err) : WS_EXIT_OK;
	}
	if (cli->format == WS_OUT_JSON) {
		if (rc == WS_EXIT_OK && hash_json(cli->out, &set) != 0)
			rc = WS_EXIT_INTERNAL;
	} else if (!manifest) {
		unsigned what = WS_PRINT_TENSORS |
			(o.sha256 ? WS_PRINT_FILES_SHA256 : WS_PRINT_FILES_XXH);
		rc = ws_hash_print(cli->out, &set, what) ? WS_EXIT_INTERNAL : WS_EXIT_OK;
	}
	ws_hash_set_free(&set);
out:
	free(paths);
	return rc;
}

/* ==== verify ==== */

static const char *const state_word[] = {
	[WS_VERIFY_OK] = "OK",
	[WS_VERIFY_FAILED] = "FAILED",
	[WS_VERIFY_MISSING] = "MISSING",
	[WS_VERIFY_UNREADABLE] = "FAILED open or read",
	[WS_VERIFY_IGNORED] = "",
};

static void
print_item(FILE *f, const ws_verify_item *it)
{
	if (it->tensor)
		fputs("tensor:", f);
	ws_fput_escaped(f, it->name, it->name_len);
	fprintf(f, ": %s", state_word[it->state]);
	if (it->detail) {
		fputs(" (", f);
		ws_fput_escaped(f, it->detail, strlen(it->detail));
		fputc(')', f);
	}
	fputc('\n', f);
}

/* One object per entry, {path, status, reason?}, then the summary. */
static int
verify_json(FILE *out, const char *manifest, const ws_verify_result *r)
{
	static const char *const status[] = {
		[WS_VERIFY_OK] = "OK", [WS_VERIFY_FAILED] = "FAILED",
		[WS_VERIFY_MISSING] = "MISSING", [WS_VERIFY_UNREADABLE] = "FAILED",
	};
	for (size_t i = 0; i < r->n; i++) {
		const ws_verify_item *it = &r->items[i];
		if (it->state == WS_VERIFY_IGNORED)
			continue;
		cJSON *o = ws_cli_json_header("verify", NULL);
		if (!o)
			return -1;
		char *name = NULL;
		if (asprintf(&name, "%s%.*s", it->tensor ? "tensor:" : "", (int)it->name_len,
			     it->name) < 0) {
			cJSON_Delete(o);
			return -1;
		}
		ws_json_add_bytes(o, "path", name, strlen(name));
		free(name);
		cJSON_AddStringToObject(o, "status", status[it->state]);
		if (it->why != WS_WHY_NONE)
			cJSON_AddStringToObject(o, "kind", ws_verify_why_kind(it->why));
		if (it->detail)
			ws_json_add_bytes(o, "reason", it->detail, strlen(it->detail));
		int rc = ws_json_print_line(out, o);
		cJSON_Delete(o);
		if (rc)
			return -1;
	}
	cJSON *o = ws_cli_json_header("verify", manifest);
	if (!o)
		return -1;
	ws_json_add_u64(o, "ok", r->ok);
	ws_json_add_u64(o, "failed", r->failed + r->unreadable);
	ws_json_add_u64(o, "missing", r->missing);
	ws_json_add_u64(o, "ignored", r->ignored);
	ws_json_add_u64(o, "malformed", r->malformed);
	cJSON *k = cJSON_AddObjectToObject(o, "by_kind");
	for (int w = WS_WHY_MISMATCH; k && w < WS_WHY_COUNT; w++)
		if (r->by_why[w])
			ws_json_add_u64(k, ws_verify_why_kind(w), r->by_why[w]);
	int rc = ws_json_print_line(out, o);
	cJSON_Delete(o);
	return rc || fflush(out) ? -1 : 0;
}

int
ws_cmd_verify(const ws_cli *cli, int argc, char **argv)
{
	ws_verify_opts o = {0};
	const char *path = NULL, *val;
	bool quiet = cli->quiet, status = false, strict = false, ended = false;
	progress pr = {.what = "verifying"};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc;
		if (ended || a[0] != '-' || !a[1]) {
			if (path)
				return ws_cli_usage_error("%s: one MANIFEST or DIR, please", argv[0]);
			path = a;
		} else if (!strcmp(a, "--")) {
			ended = true;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			quiet = true;
		} else if (!strcmp(a, "--status")) {
			status = true;
		} else if (!strcmp(a, "--strict")) {
			strict = true;
		} else if (!strcmp(a, "--ignore-missing")) {
			o.ignore_missing = true;
		} else if (ws_cli_opt_value(argc, argv, &i, "-j", "--jobs", &val)) {
			if ((rc = ws_cli_parse_jobs(argv[0], val, &o.threads)) != 0)
				return rc;
		} else {
			return ws_cli_usage_error("%s: unknown option '%s'", argv[0], a);
		}
	}
	if (!path)
		return ws_cli_usage_error("%s: no MANIFEST or DIR given", argv[0]);
	if (cli->progress && !quiet && !status) {
		clock_gettime(CLOCK_MONOTONIC, &pr.t0);
		o.progress = show_progress;
		o.progress_ctx = &pr;
	}

	ws_verify_result r;
	ws_error err = {0};
	int v = ws_verify_path(path, &o, &r, &err);
	progress_end(&pr);
	if (v != 0) {
		if (status)
			return err.code ? err.code : WS_EXIT_INPUT;
		return ws_cli_report_error(cli, argv[0], path, &err);
	}
	if (!status && cli->format == WS_OUT_JSON) {
		if (verify_json(cli->out, path, &r) != 0) {
			ws_verify_result_free(&r);
			return WS_EXIT_INTERNAL;
		}
	} else if (!status) {
		for (size_t i = 0; i < r.n; i++) {
			const ws_verify_item *it = &r.items[i];
			if (it->state == WS_VERIFY_IGNORED || (quiet && it->state == WS_VERIFY_OK))
				continue;
			print_item(cli->out, it);
		}
		fprintf(cli->out, "%zu OK, %zu FAILED, %zu MISSING", r.ok,
			r.failed + r.unreadable, r.missing);
		if (r.ignored)
			fprintf(cli->out, ", %zu ignored", r.ignored);
		/* which kind of failure: a half-finished download is not a
		 * corrupt one */
		const char *sep = " (";
		for (int w = WS_WHY_MISMATCH; w < WS_WHY_COUNT; w++) {
			if (!r.by_why[w])
				continue;
			fprintf(cli->out, "%s%zu %s", sep, r.by_why[w], ws_verify_why_name(w));
			sep = ", ";
		}
		if (sep[0] == ',')
			fputc(')', cli->out);
		fputc('\n', cli->out);
		if (r.malformed)
			fprintf(stderr, "weightscan: %s: %zu line%s improperly formatted (first: line %zu)\n",
				path, r.malformed, r.malformed == 1 ? " is" : "s are", r.first_malformed);
		if (r.ok + r.failed + r.unreadable == 0)
			fprintf(stderr, "weightscan: %s: no file was verified\n", path);
	}
	int rc = WS_EXIT_OK;
	if (r.failed || r.missing || (strict && r.malformed) ||
	    r.ok + r.failed + r.unreadable == 0)
		rc = WS_EXIT_FINDINGS;
	if (r.unreadable)
		rc = WS_EXIT_INPUT;
	ws_verify_result_free(&r);
	if (fflush(cli->out) != 0)
		rc = WS_EXIT_INTERNAL;
	return rc;
}
