/*
 * verify.c - re-hash what a manifest lists, or check a folder that needs
 * no manifest: a Hugging Face cache (blobs are named by their hash) or a
 * checkout holding Git LFS pointers where the weights should be.
 *
 * Semantics follow `sha256sum -c`: every entry gets OK, FAILED or
 * MISSING; malformed lines are counted; the caller turns the counts into
 * an exit code.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "weightscan/hash.h"
#include "weightscan/util.h"

#define MANIFEST_MAX (1ull << 30)
#define LFS_MAX 1024

/* The LFS diagnosis of a small file, or NULL. */
static char *
lfs_detail(const char *path)
{
	char *buf;
	size_t len;
	ws_error e;
	char oid[65], *msg = NULL;
	uint64_t size;

	if (ws_read_small_file(path, LFS_MAX, &buf, &len, &e) != 0)
		return NULL;
	if (ws_lfs_pointer_parse(buf, len, oid, &size)) {
		char m[256];
		ws_lfs_message(oid, size, m, sizeof m);
		msg = strdup(m);
	}
	free(buf);
	return msg;
}

static ws_verify_item *
push_item(ws_verify_result *r, const char *name, size_t len, bool tensor)
{
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		ws_verify_item *ni = realloc(r->items, nc * sizeof *ni);
		if (!ni)
			return NULL;
		r->items = ni;
		r->cap = nc;
	}
	ws_verify_item *it = &r->items[r->n];
	memset(it, 0, sizeof *it);
	if (!(it->name = malloc(len + 1)))
		return NULL;
	memcpy(it->name, name, len);
	it->name[len] = '\0';
	it->name_len = len;
	it->tensor = tensor;
	r->n++;
	return it;
}

static void
set_state(ws_verify_result *r, ws_verify_item *it, int state, char *detail)
{
	it->state = state;
	free(it->detail);
	it->detail = detail;
	(void)r;
}

static char *
fmt_error(const ws_error *e)
{
	char buf[1700];
	ws_error_format(e, buf, sizeof buf);
	return strdup(buf);
}

static char *dupf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
dupf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* Pending work: item index, job, expected digest. */
typedef struct pending {
	size_t item;
	ws_hash_job job;
	char *path;            /* owned path for the job, or NULL */
	unsigned algo;         /* which digest to compare */
	uint8_t expect[WS_SHA256_LEN];
	const char *tensor_file; /* for the FAILED detail */
} pending;

typedef struct plist {
	pending *p;
	size_t n, cap;
} plist;

static pending *
push_pending(plist *l)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		pending *np = realloc(l->p, nc * sizeof *np);
		if (!np)
			return NULL;
		l->p = np;
		l->cap = nc;
	}
	pending *p = &l->p[l->n++];
	memset(p, 0, sizeof *p);
	p->job.fd = -1;
	return p;
}

static void
plist_free(plist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->p[i].path);
	free(l->p);
}

static size_t
digest_len(unsigned algo)
{
	return algo == WS_HASH_XXH128 ? WS_XXH128_LEN
		: algo == WS_HASH_SHA256 ? WS_SHA256_LEN : WS_SHA1_LEN;
}

static const uint8_t *
job_digest(const ws_hash_job *j, unsigned algo)
{
	return algo == WS_HASH_XXH128 ? j->digest.xxh128
		: algo == WS_HASH_SHA256 ? j->digest.sha256 : j->digest.sha1;
}

/* Run every pending job and settle its item. */
static int
run_pending(plist *l, const ws_verify_opts *o, ws_verify_result *r, ws_error *err)
{
	ws_hash_job *jobs = calloc(l->n ? l->n : 1, sizeof *jobs);
	if (!jobs)
		return ws_err_oom(err, NULL);
	for (size_t i = 0; i < l->n; i++)
		jobs[i] = l->p[i].job;
	if (ws_hash_run(jobs, l->n, o->threads, o->progress, o->progress_ctx, err) != 0) {
		free(jobs);
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		pending *p = &l->p[i];
		ws_hash_job *j = &jobs[i];
		ws_verify_item *it = &r->items[p->item];
		if (j->status == WS_JOB_MISSING) {
			set_state(r, it, o->ignore_missing ? WS_VERIFY_IGNORED : WS_VERIFY_MISSING,
				  fmt_error(&j->err));
		} else if (j->status != WS_JOB_OK) {
			set_state(r, it, WS_VERIFY_UNREADABLE, fmt_error(&j->err));
		} else if (memcmp(job_digest(j, p->algo), p->expect, digest_len(p->algo)) == 0) {
			set_state(r, it, WS_VERIFY_OK, NULL);
		} else if (it->tensor) {
			set_state(r, it, WS_VERIFY_FAILED,
				  dupf("tensor data in %s at offset %llu differs", p->tensor_file,
				       (unsigned long long)j->offset));
		} else {
			/* A pointer where the weights should be is a missing
			 * download, not corrupted data. */
			char *lfs = j->size <= LFS_MAX ? lfs_detail(j->path) : NULL;
			set_state(r, it, lfs ? WS_VERIFY_MISSING : WS_VERIFY_FAILED, lfs);
		}
	}
	free(jobs);
	return 0;
}

static void
count(ws_verify_result *r)
{
	r->ok = r->failed = r->missing = r->unreadable = r->ignored = 0;
	for (size_t i = 0; i < r->n; i++) {
		size_t *c[] = {&r->ok, &r->failed, &r->missing, &r->unreadable, &r->ignored};
		(*c[r->items[i].state])++;
	}
}

/* ==== manifests ==== */

static bool
ends_with(const char *s, size_t n, const char *sfx)
{
	size_t k = strlen(sfx);
	return n >= k && !memcmp(s + n - k, sfx, k);
}

/* Where the tensor lines' model is: the one weight file the manifest
 * lists, else the folder of its first file line (hash writes paths
 * relative to the manifest, which need not sit in the model's folder),
 * else the manifest's folder. */
static char *
model_path_of(const ws_manifest *man, const char *base)
{
	static const char *const sfx[] = {".safetensors", ".gguf", ".safetensors.index.json"};
	const ws_manifest_entry *first = NULL, *weight = NULL;
	size_t n_weight = 0;
	for (size_t i = 0; i < man->n; i++) {
		const ws_manifest_entry *e = &man->entries[i];
		if (e->tensor || memchr(e->name, '\0', e->name_len))
			continue;
		first = first ? first : e;
		for (size_t k = 0; k < sizeof sfx / sizeof sfx[0]; k++)
			if (ends_with(e->name, e->name_len, sfx[k])) {
				weight = e;
				n_weight++;
				break;
			}
	}
	const ws_manifest_entry *e = n_weight == 1 ? weight : first;
	char *p = NULL;
	if (!e)
		return strdup(base);
	if (e->name[0] == '/' ? !(p = strdup(e->name)) : asprintf(&p, "%s/%s", base, e->name) < 0)
		return NULL;
	if (n_weight == 1)
		return p;
	char *d = ws_path_dir(p);
	free(p);
	return d;
}

int
ws_verify_manifest(const char *path, const ws_verify_opts *o,
		   ws_verify_result *r, ws_error *err)
{
	char *text = NULL, *base = NULL, *mbase = NULL;
	size_t len;
	ws_manifest man;
	plist l = {0};
	ws_model *model = NULL;
	ws_error merr = {0};
	char *model_err = NULL;
	bool model_tried = false;
	ws_name_index names = {0}; /* the model's tensors by name */
	if (ws_remote_needs_data(path, "verify", err))
		return -1;
	int rc = -1;

	memset(r, 0, sizeof *r);
	if (ws_read_small_file(path, MANIFEST_MAX, &text, &len, err) != 0)
		return -1;
	if (ws_manifest_parse(text, len, &man, err) != 0) {
		free(text);
		return -1;
	}
	free(text);
	r->malformed = man.malformed;
	r->first_malformed = man.first_malformed;
	if (man.n == 0) {
		ws_err(err, WS_EXIT_INPUT, path, "no properly formatted checksum lines found");
		goto done;
	}
	if (!(base = ws_path_dir(path)))
		goto oom;
	for (size_t i = 0; i < man.n; i++) {
		ws_manifest_entry *e = &man.entries[i];
		ws_verify_item *it = push_item(r, e->name, e->name_len, e->tensor);
		if (!it)
			goto oom;
		if (!e->tensor) {
			if (memchr(e->name, '\0', e->name_len)) {
				set_state(r, it, WS_VERIFY_MISSING, strdup("a file name cannot hold a NUL byte"));
				continue;
			}
			pending *p = push_pending(&l);
			if (!p)
				goto oom;
			p->item = r->n - 1;
			if (e->name[0] == '/')
				p->path = strdup(e->name);
			else if (asprintf(&p->path, "%s/%s", base, e->name) < 0)
				p->path = NULL;
			if (!p->path)
				goto oom;
			p->job.path = p->path;
			p->job.length = WS_HASH_TO_END;
			p->job.algos = e->algo;
			p->algo = e->algo;
			memcpy(p->expect, e->digest, sizeof p->expect);
			continue;
		}
		if (!model_tried) {
			/* Tensor lines are checked against the model beside the
			 * manifest, whatever its sharding. */
			model_tried = true;
			free(mbase);
			if (!(mbase = model_path_of(&man, base)))
				goto oom;
			if (ws_model_open(mbase, NULL, &model, &merr) != 0) {
				model = NULL;
				if (merr.code == WS_EXIT_INTERNAL) {
					*err = merr;
					goto done;
				}
				if (!(model_err = fmt_error(&merr)))
					goto oom;
			} else {
				int64_t dup[2];
				if (ws_name_index_build(model, &names, dup))
					goto oom;
			}
		}
		int64_t ti = model ? ws_name_index_find(model, &names, e->name, e->name_len) : -1;
		const ws_tensor *t = ti >= 0 ? &model->tensors[ti] : NULL;
		if (!t) {
			int st = o->ignore_missing ? WS_VERIFY_IGNORED : WS_VERIFY_MISSING;
			set_state(r, it, st, model ? dupf("no such tensor in the model in %s", mbase)
					       : dupf("no model to check it against: %s", model_err));
			continue;
		}
		pending *p = push_pending(&l);
		if (!p)
			goto oom;
		p->item = r->n - 1;
		p->job.path = model->files[t->file].path;
		p->job.fd = model->files[t->file].fd;
		p->job.offset = t->offset;
		p->job.length = t->bytes;
		p->job.algos = WS_HASH_XXH128;
		p->algo = WS_HASH_XXH128;
		p->tensor_file = model->files[t->file].path;
		memcpy(p->expect, e->digest, sizeof p->expect);
	}
	if (run_pending(&l, o, r, err) != 0)
		goto done;
	count(r);
	rc = 0;
	goto done;
oom:
	ws_err_oom(err, path);
done:
	if (rc != 0)
		ws_verify_result_free(r);
	plist_free(&l);
	ws_manifest_free(&man);
	ws_name_index_free(&names);
	ws_model_free(model);
	free(model_err);
	free(mbase);
	free(base);
	return rc;
}

/* ==== folders with no manifest ==== */

typedef struct walk {
	char **rel;            /* paths relative to the root, sorted */
	size_t n, cap;
} walk;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect files and symlinks under root/rel (hidden folders skipped: .git
 * and .cache hold objects, not the checkout). */
static int
walk_dir(const char *root, const char *rel, int depth, walk *w)
{
	char *dir = NULL;
	if (asprintf(&dir, "%s%s%s", root, rel[0] ? "/" : "", rel) < 0)
		return -1;
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		char *child = NULL, *full = NULL;
		struct stat sb;
		if (asprintf(&child, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) < 0) {
			rc = -1;
			break;
		}
		if (asprintf(&full, "%s/%s", dir, de->d_name) < 0) {
			free(child);
			rc = -1;
			break;
		}
		if (lstat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (de->d_name[0] != '.' && depth < 16 && walk_dir(root, child, depth + 1, w) != 0)
				rc = -1;
			free(child);
		} else if (lstat(full, &sb) == 0 && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))) {
			if (w->n == w->cap) {
				size_t nc = w->cap ? w->cap * 2 : 64;
				char **nr = realloc(w->rel, nc * sizeof *nr);
				if (!nr) {
					free(child);
					free(full);
					rc = -1;
					break;
				}
				w->rel = nr;
				w->cap = nc;
			}
			w->rel[w->n++] = child;
		} else {
			free(child);
		}
		free(full);
		if (rc)
			break;
	}
	closedir(d);
	free(dir);
	return rc;
}

static bool
all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[n] == '\0';
}

/* The snapshot folder of an HF cache folder (refs/main) or of a snapshot
 * given directly; NULL when DIR is neither.  -1 on a broken cache. */
static int
hf_snapshot(const char *dir, char **snap, ws_error *err)
{
	char *p = NULL, *txt = NULL;
	size_t len;
	struct stat sb;

	*snap = NULL;
	if (asprintf(&p, "%s/refs/main", dir) < 0)
		return ws_err_oom(err, dir);
	if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
		int r = ws_read_small_file(p, 256, &txt, &len, err);
		free(p);
		if (r != 0)
			return -1;
		while (len && (txt[len - 1] == '\n' || txt[len - 1] == '\r' || txt[len - 1] == ' '))
			txt[--len] = '\0';
		/* a revision is a hash or a name: never a path */
		if (len == 0 || strchr(txt, '/') || strcmp(txt, "..") == 0 || strcmp(txt, ".") == 0) {
			free(txt);
			return ws_err(err, WS_EXIT_INPUT, dir, "refs/main does not name a revision");
		}
		int a = asprintf(snap, "%s/snapshots/%s", dir, txt);
		free(txt);
		if (a < 0)
			return ws_err_oom(err, dir);
		if (stat(*snap, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			ws_err(err, WS_EXIT_INPUT, *snap, "the snapshot refs/main names is missing");
			free(*snap);
			*snap = NULL;
			return -1;
		}
		return 0;
	}
	free(p);
	/* DIR = models--org--name/snapshots/<rev> */
	if (asprintf(&p, "%s/../../blobs", dir) < 0)
		return ws_err_oom(err, dir);
	char *abs = realpath(dir, NULL);
	if (abs && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		char *s = strrchr(abs, '/');
		if (s && s - abs >= 10 && strncmp(s - 10, "/snapshots", 10) == 0)
			*snap = strdup(dir);
	}
	free(abs);
	free(p);
	return 0;
}

int
ws_verify_dir(const char *dir, const ws_verify_opts *o, ws_verify_result *r,
	      ws_error *err)
{
	char *snap = NULL;
	walk w = {0};
	plist l = {0};
	int rc = -1;

	memset(r, 0, sizeof *r);
	if (hf_snapshot(dir, &snap, err) != 0)
		return -1;
	const char *root = snap ? snap : dir;
	if (walk_dir(root, "", 0, &w) != 0)
		goto oom;
	qsort(w.rel, w.n, sizeof *w.rel, cmp_str);
	for (size_t i = 0; i < w.n; i++) {
		char *full = NULL, target[4096];
		struct stat sb;
		if (asprintf(&full, "%s/%s", root, w.rel[i]) < 0)
			goto oom;
		ssize_t tl = snap ? readlink(full, target, sizeof target - 1) : -1;
		const char *blob = NULL;
		if (tl > 0) {
			target[tl] = '\0';
			const char *b = strrchr(target, '/');
			blob = b ? b + 1 : target;
		}
		unsigned algo = blob && strlen(blob) == 64 && all_hex(blob, 64) ? WS_HASH_SHA256
			: blob && strlen(blob) == 40 && all_hex(blob, 40) ? WS_HASH_GITBLOB : 0;
		if (algo) {
			ws_verify_item *it = push_item(r, w.rel[i], strlen(w.rel[i]), false);
			pending *p = it ? push_pending(&l) : NULL;
			if (!p) {
				free(full);
				goto oom;
			}
			p->item = r->n - 1;
			p->path = full;
			p->job.path = full;
			p->job.length = WS_HASH_TO_END;
			p->job.algos = algo;
			p->algo = algo;
			ws_unhex(blob, strlen(blob) / 2, p->expect);
			continue;
		}
		/* no hash to check against: only an LFS pointer says anything */
		char *lfs = stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size <= LFS_MAX
			? lfs_detail(full) : NULL;
		free(full);
		if (lfs) {
			ws_verify_item *it = push_item(r, w.rel[i], strlen(w.rel[i]), false);
			if (!it) {
				free(lfs);
				goto oom;
			}
			set_state(r, it, o->ignore_missing ? WS_VERIFY_IGNORED : WS_VERIFY_MISSING, lfs);
		}
	}
	if (r->n == 0) {
		ws_err(err, WS_EXIT_INPUT, dir, snap
		       ? "no file of the snapshot is named by its blob hash: nothing to verify"
		       : "no manifest, not a Hugging Face cache folder, and no Git LFS pointers: nothing to verify");
		goto done;
	}
	if (run_pending(&l, o, r, err) != 0)
		goto done;
	count(r);
	rc = 0;
	goto done;
oom:
	ws_err_oom(err, dir);
done:
	if (rc != 0)
		ws_verify_result_free(r);
	plist_free(&l);
	for (size_t i = 0; i < w.n; i++)
		free(w.rel[i]);
	free(w.rel);
	free(snap);
	return rc;
}

int
ws_verify_path(const char *path, const ws_verify_opts *o, ws_verify_result *r,
	       ws_error *err)
{
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return ws_verify_dir(path, o, r, err);
	return ws_verify_manifest(path, o, r, err);
}

void
ws_verify_result_free(ws_verify_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->items[i].name);
		free(r->items[i].detail);
	}
	free(r->items);
	memset(r, 0, sizeof *r);
}
