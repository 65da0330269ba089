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

#include <cjson/cJSON.h>

#include "internal.h"
#include "ws/hash.h"
#include "ws/util.h"

#define MANIFEST_MAX (1ull << 30)
#define LFS_MAX 1024

/* Each reason: its JSON kind and the summary line's words. */
static const struct why_name {
	const char *kind, *words;
} why_names[WS_WHY_COUNT] = {
	[WS_WHY_NONE] = {"", ""},
	[WS_WHY_MISMATCH] = {"mismatch", "checksum mismatch"},
	[WS_WHY_TRUNCATED] = {"truncated", "truncated"},
	[WS_WHY_PARTIAL] = {"partial", "partially downloaded"},
	[WS_WHY_LFS] = {"lfs-pointer", "LFS pointer"},
	[WS_WHY_ABSENT] = {"absent", "absent"},
};

const char *
ws_verify_why_name(int why)
{
	return why >= 0 && why < WS_WHY_COUNT ? why_names[why].words : "";
}

const char *
ws_verify_why_kind(int why)
{
	return why >= 0 && why < WS_WHY_COUNT ? why_names[why].kind : "";
}

/* The LFS diagnosis of a small file, with its remedy, or NULL. */
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
		if (asprintf(&msg, "%s: run `git lfs pull` in its checkout", m) < 0)
			msg = NULL;
	}
	free(buf);
	return msg;
}

static bool
is_weight_name(const char *name)
{
	size_t n = strlen(name);
	return (n > 12 && strcmp(name + n - 12, ".safetensors") == 0) ||
	       (n > 5 && strcmp(name + n - 5, ".gguf") == 0);
}

/* "truncated at N of M bytes" when a weight file is shorter than its
 * header says, else NULL. */
static char *
truncated_detail(const char *path, const char *shown)
{
	uint64_t size, expect;
	ws_error e;
	char *msg = NULL;
	if (!is_weight_name(path) || ws_weight_file_extent(path, &size, &expect, &e) != 0 ||
	    expect <= size)
		return NULL;
	if (asprintf(&msg, "truncated at %llu of %llu bytes: download %s again",
		     (unsigned long long)size, (unsigned long long)expect, shown) < 0)
		msg = NULL;
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
set_state(ws_verify_item *it, int state, int why, char *detail)
{
	it->state = state;
	it->why = why;
	free(it->detail);
	it->detail = detail;
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
	bool little_endian;    /* expect holds the digest's bytes reversed */
	uint8_t expect[WS_SHA256_LEN];
	const char *tensor_file; /* for the FAILED detail */
	bool named;            /* an index or split set names the file:
				* --ignore-missing does not hide it */
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

static bool
digest_equal(const pending *p, const ws_hash_job *j)
{
	const uint8_t *d = ws_digest_of(&j->digest, p->algo);
	size_t n = ws_hash_algo_len(p->algo);
	if (!p->little_endian)
		return memcmp(d, p->expect, n) == 0;
	for (size_t i = 0; i < n; i++)
		if (d[i] != p->expect[n - 1 - i])
			return false;
	return true;
}

/* A file the manifest or the folder names is not there. */
static char *
absent_detail(const ws_error *e)
{
	char buf[1700];
	ws_error_format(e, buf, sizeof buf);
	return dupf("%s: download it again", buf);
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
			set_state(it, o->ignore_missing && !p->named ? WS_VERIFY_IGNORED
				  : WS_VERIFY_MISSING, WS_WHY_ABSENT, absent_detail(&j->err));
		} else if (j->status != WS_JOB_OK) {
			set_state(it, WS_VERIFY_UNREADABLE, WS_WHY_NONE, fmt_error(&j->err));
		} else if (digest_equal(p, j)) {
			set_state(it, WS_VERIFY_OK, WS_WHY_NONE, NULL);
		} else if (it->tensor) {
			set_state(it, WS_VERIFY_FAILED, WS_WHY_MISMATCH,
				  dupf("tensor data in %s at offset %llu differs: download that file again",
				       p->tensor_file, (unsigned long long)j->offset));
		} else {
			/* A pointer where the weights should be is a missing
			 * download, and a short file an interrupted one, not
			 * corrupted data. */
			char *lfs = j->size <= LFS_MAX ? lfs_detail(j->path) : NULL;
			char *tr = lfs ? NULL : truncated_detail(j->path, it->name);
			if (lfs)
				set_state(it, WS_VERIFY_MISSING, WS_WHY_LFS, lfs);
			else if (tr)
				set_state(it, WS_VERIFY_FAILED, WS_WHY_TRUNCATED, tr);
			else
				set_state(it, WS_VERIFY_FAILED, WS_WHY_MISMATCH,
					  dupf("%s checksum differs: download %s again",
					       ws_hash_algo_name(p->algo), it->name));
		}
	}
	free(jobs);
	return 0;
}

static void
count(ws_verify_result *r)
{
	r->ok = r->failed = r->missing = r->unreadable = r->ignored = 0;
	memset(r->by_why, 0, sizeof r->by_why);
	for (size_t i = 0; i < r->n; i++) {
		size_t *c[] = {&r->ok, &r->failed, &r->missing, &r->unreadable, &r->ignored};
		(*c[r->items[i].state])++;
		if (r->items[i].state != WS_VERIFY_IGNORED)
			r->by_why[r->items[i].why]++;
	}
}

/* ==== what a folder promises ==== */

/* Files the folder's own files name: the shards of every index, every
 * part of a GGUF split set one part names (paths relative to the root);
 * for each shard, the index that names it, to match partial downloads. */
typedef struct promise {
	char *rel;
	const cJSON *index;    /* the index naming it, or NULL (a split part) */
	char *shard;           /* its name inside that index */
	bool present;
} promise;

typedef struct promises {
	promise *v;
	size_t n, cap;
	cJSON **indexes;
	size_t n_indexes;
} promises;

static int
promise_add(promises *ps, char *rel, const cJSON *index, const char *shard)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i].rel, rel) == 0) {
			free(rel);
			return 0;
		}
	if (ps->n == ps->cap) {
		size_t nc = ps->cap ? ps->cap * 2 : 16;
		promise *nv = realloc(ps->v, nc * sizeof *nv);
		if (!nv) {
			free(rel);
			return -1;
		}
		ps->v = nv;
		ps->cap = nc;
	}
	char *sh = shard ? strdup(shard) : NULL;
	if (shard && !sh) {
		free(rel);
		return -1;
	}
	ps->v[ps->n++] = (promise){rel, index, sh, false};
	return 0;
}

static void
promises_free(promises *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].rel);
		free(ps->v[i].shard);
	}
	free(ps->v);
	for (size_t i = 0; i < ps->n_indexes; i++)
		cJSON_Delete(ps->indexes[i]);
	free(ps->indexes);
}

/* rel's folder part + name ("" folder: name alone); malloc'd or NULL. */
static char *
sibling(const char *rel, const char *name)
{
	const char *slash = strrchr(rel, '/');
	char *out = NULL;
	if (asprintf(&out, "%.*s%s%s", slash ? (int)(slash - rel) : 0, rel, slash ? "/" : "",
		     name) < 0)
		return NULL;
	return out;
}

/* An index file's shards.  A malformed index is the caller's error. */
static int
promise_index(promises *ps, const char *root, const char *rel, ws_error *err)
{
	char *full = NULL, *text = NULL;
	size_t len;
	if (asprintf(&full, "%s/%s", root, rel) < 0)
		return ws_err_oom(err, rel);
	int rc = ws_read_small_file(full, 64u << 20, &text, &len, err);
	cJSON *idx = rc ? NULL : ws_parse_json_buf(text, len, full, err);
	free(text);
	if (!idx) {
		free(full);
		return -1;
	}
	cJSON **ni = realloc(ps->indexes, (ps->n_indexes + 1) * sizeof *ni);
	if (!ni) {
		cJSON_Delete(idx);
		free(full);
		return ws_err_oom(err, rel);
	}
	ps->indexes = ni;
	ps->indexes[ps->n_indexes++] = idx;
	const char **names;
	size_t n;
	rc = ws_index_shards(idx, full, &names, &n, err);
	free(full);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *r = sibling(rel, names[i]);
		if (!r || promise_add(ps, r, idx, names[i]) != 0)
			rc = ws_err_oom(err, rel);
	}
	if (rc == 0)
		free(names);
	return rc;
}

/* Every part of the split set rel belongs to, when it is one. */
static int
promise_split(promises *ps, const char *rel)
{
	size_t len = strlen(rel);
	unsigned no, count;
	int tail = 0;
	/* NAME-0000N-of-0000M.gguf: 20 bytes of tail */
	if (len < 20 || sscanf(rel + len - 20, "-%5u-of-%5u.gguf%n", &no, &count, &tail) != 2 ||
	    tail != 20 || count == 0 || no == 0 || no > count)
		return 0;
	for (unsigned i = 1; i <= count; i++) {
		char *r = NULL;
		if (asprintf(&r, "%.*s-%05u-of-%05u.gguf", (int)(len - 20), rel, i, count) < 0 ||
		    promise_add(ps, r, NULL, NULL) != 0)
			return -1;
	}
	return 0;
}

static bool
is_index_name(const char *rel)
{
	const char *b = strrchr(rel, '/');
	b = b ? b + 1 : rel;
	size_t n = strlen(b);
	return strstr(b, ".safetensors.index") && n > 5 && strcmp(b + n - 5, ".json") == 0;
}

static bool
promised_name(const promises *ps, const char *rel)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->v[i].rel, rel) == 0)
			return true;
	return false;
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

/* MANIFEST.tensors, when there: its lines join the manifest's. */
static int
read_companion(const char *path, ws_manifest *man, ws_error *err)
{
	char *cp = NULL, *text = NULL;
	size_t len;
	struct stat sb;
	ws_manifest more;
	if (asprintf(&cp, "%s.tensors", path) < 0)
		return ws_err_oom(err, path);
	if (stat(cp, &sb) != 0) {
		free(cp);
		return 0;
	}
	int rc = ws_read_small_file(cp, MANIFEST_MAX, &text, &len, err);
	free(cp);
	if (rc != 0)
		return -1;
	rc = ws_manifest_parse(text, len, &more, err);
	free(text);
	if (rc != 0)
		return -1;
	ws_manifest_entry *ne = realloc(man->entries, (man->n + more.n + 1) * sizeof *ne);
	if (!ne) {
		ws_manifest_free(&more);
		return ws_err_oom(err, path);
	}
	man->entries = ne;
	memcpy(man->entries + man->n, more.entries, more.n * sizeof *ne);
	man->n += more.n;
	man->cap = man->n + 1;
	if (more.malformed && !man->malformed)
		man->first_malformed = more.first_malformed;
	man->malformed += more.malformed;
	free(more.entries);
	return 0;
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
	promises ps = {0};
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
	/* hash --per-tensor -o M keeps M readable by xxhsum -c and puts the
	 * tensor lines in M.tensors */
	if (read_companion(path, &man, err) != 0) {
		ws_manifest_free(&man);
		return -1;
	}
	r->malformed = man.malformed;
	r->first_malformed = man.first_malformed;
	if (man.n == 0) {
		ws_err(err, WS_EXIT_INPUT, path, "no properly formatted checksum lines found");
		goto done;
	}
	if (!(base = ws_path_dir(path)))
		goto oom;
	/* the shards an index in the manifest names, the parts of a split
	 * set: --ignore-missing does not hide them */
	for (size_t i = 0; i < man.n; i++) {
		const ws_manifest_entry *e = &man.entries[i];
		if (e->tensor || memchr(e->name, '\0', e->name_len) || e->name[0] == '/')
			continue;
		ws_error ie;
		if (is_index_name(e->name) ? promise_index(&ps, base, e->name, &ie) != 0 &&
					     ie.code == WS_EXIT_INTERNAL
		    : promise_split(&ps, e->name) != 0)
			goto oom;
	}
	for (size_t i = 0; i < man.n; i++) {
		ws_manifest_entry *e = &man.entries[i];
		ws_verify_item *it = push_item(r, e->name, e->name_len, e->tensor);
		if (!it)
			goto oom;
		if (!e->tensor) {
			if (memchr(e->name, '\0', e->name_len)) {
				set_state(it, WS_VERIFY_MISSING, WS_WHY_ABSENT,
					  strdup("a file name cannot hold a NUL byte"));
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
			p->little_endian = e->little_endian;
			p->named = promised_name(&ps, e->name);
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
			/* a truncated file still names its tensors: those past
			 * its end fail as truncated, the others are checked */
			ws_open_opts oo = {.allow_truncated = true};
			if (ws_model_open(mbase, &oo, &model, &merr) != 0) {
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
			set_state(it, st, WS_WHY_ABSENT,
				  model ? dupf("no such tensor in the model in %s", mbase)
					       : dupf("no model to check it against: %s", model_err));
			continue;
		}
		const ws_file *tf = &model->files[t->file];
		if (t->offset + t->bytes > tf->size) { /* both checked at open */
			set_state(it, WS_VERIFY_FAILED, WS_WHY_TRUNCATED,
				  dupf("its data lies past the end of %s, truncated at %llu of %llu "
				       "bytes: download that file again", tf->path,
				       (unsigned long long)tf->size,
				       (unsigned long long)tf->expected_size));
			if (!it->detail)
				goto oom;
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
		p->job.algos = e->algo;
		p->algo = e->algo;
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
	promises_free(&ps);
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

/* ==== partial downloads ==== */

/* An interrupted download: where, how far, and (once its header came)
 * its tensor names. */
typedef struct partial {
	char *path;            /* as shown: relative to the folder verified */
	char *full;
	uint64_t size, expect; /* expect 0: the header has not arrived */
	ws_model *model;       /* its header parsed, or NULL */
	bool claimed;
} partial;

typedef struct partials {
	partial *v;
	size_t n;
} partials;

static void
partials_free(partials *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->v[i].path);
		free(pl->v[i].full);
		ws_model_free(pl->v[i].model);
	}
	free(pl->v);
}

/* Every *.incomplete directly in dir (shown as shown/NAME). */
static int
find_partials(partials *pl, const char *dir, const char *shown)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		if (n <= 11 || strcmp(de->d_name + n - 11, ".incomplete") != 0)
			continue;
		partial *nv = realloc(pl->v, (pl->n + 1) * sizeof *nv);
		if (!nv) {
			rc = -1;
			break;
		}
		pl->v = nv;
		partial *p = &pl->v[pl->n];
		memset(p, 0, sizeof *p);
		if (asprintf(&p->full, "%s/%s", dir, de->d_name) < 0) {
			rc = -1;
			break;
		}
		if (asprintf(&p->path, "%s/%s", shown, de->d_name) < 0) {
			free(p->full);
			rc = -1;
			break;
		}
		pl->n++;
		struct stat sb;
		if (stat(p->full, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		p->size = (uint64_t)sb.st_size;
		/* the header alone tells which file it will be */
		ws_model *m = ws_model_new(p->full);
		ws_error e;
		if (!m) {
			rc = -1;
			break;
		}
		m->keep_truncated = true;
		char magic[4] = {0};
		FILE *f = fopen(p->full, "rb");
		size_t got = f ? fread(magic, 1, 4, f) : 0;
		if (f)
			fclose(f);
		int r = got == 4 && !memcmp(magic, "GGUF", 4) ? ws_gguf_load_file(m, p->full, &e)
			: ws_safetensors_load(m, p->full, &e);
		if (r == 0 && m->n_files == 1) {
			p->expect = m->files[0].expected_size;
			p->model = m;
		} else {
			ws_model_free(m);
		}
	}
	closedir(d);
	return rc;
}

/* The partial download whose tensors are exactly those the index gives
 * the shard, or NULL. */
static partial *
match_partial(partials *pl, const promise *pr)
{
	const cJSON *wm = pr->index ? cJSON_GetObjectItemCaseSensitive(pr->index, "weight_map") : NULL;
	if (!wm)
		return NULL;
	uint64_t want = 0;
	for (const cJSON *e = wm->child; e; e = e->next)
		want += cJSON_IsString(e) && strcmp(e->valuestring, pr->shard) == 0;
	for (size_t i = 0; i < pl->n; i++) {
		partial *p = &pl->v[i];
		if (p->claimed || !p->model || p->model->n_tensors != want || !want)
			continue;
		ws_name_index ix = {0};
		int64_t dup[2];
		if (ws_name_index_build(p->model, &ix, dup) != 0)
			return NULL;
		bool all = true;
		for (const cJSON *e = wm->child; e && all; e = e->next)
			if (cJSON_IsString(e) && strcmp(e->valuestring, pr->shard) == 0)
				all = ws_name_index_find(p->model, &ix, e->string, strlen(e->string)) >= 0;
		ws_name_index_free(&ix);
		if (all)
			return p;
	}
	return NULL;
}

/* The MISSING detail of a promised file: a matched partial download, or
 * "not downloaded" and the partial downloads whose header has not told
 * what they are yet. */
static int
missing_item(ws_verify_result *r, partials *pl, promise *pr, const char *why_absent)
{
	ws_verify_item *it = push_item(r, pr->rel, strlen(pr->rel), false);
	if (!it)
		return -1;
	partial *p = match_partial(pl, pr);
	char a[32], b[32];
	if (p) {
		p->claimed = true;
		char *d = dupf("partially downloaded: %llu of %llu bytes (%s, %s of %s): run the "
			       "download again to finish it", (unsigned long long)p->size,
			       (unsigned long long)p->expect, p->path,
			       ws_fmt_bytes(p->size, a, sizeof a), ws_fmt_bytes(p->expect, b, sizeof b));
		set_state(it, WS_VERIFY_MISSING, WS_WHY_PARTIAL, d);
		return d ? 0 : -1;
	}
	char *others = NULL;
	for (size_t i = 0; i < pl->n; i++) {
		if (pl->v[i].claimed || pl->v[i].expect)
			continue;
		char *n = dupf("%s%s%s (%s so far)", others ? others : "", others ? ", " : "",
			       pl->v[i].path, ws_fmt_bytes(pl->v[i].size, a, sizeof a));
		free(others);
		if (!(others = n))
			return -1;
	}
	char *d = others ? dupf("%s; partial downloads beside it: %s: run the download again",
				why_absent, others)
		: dupf("%s: run the download again", why_absent);
	free(others);
	set_state(it, WS_VERIFY_MISSING, others || !p ? WS_WHY_ABSENT : WS_WHY_PARTIAL, d);
	return d ? 0 : -1;
}

/* ==== the folder itself ==== */

/* hf download --local-dir: .cache/huggingface/download/REL.metadata holds
 * the commit, the etag (SHA-256 for LFS files, the git blob SHA-1
 * otherwise) and a time, a line each. */
static unsigned
localdir_etag(const char *meta_dir, const char *rel, uint8_t out[WS_SHA256_LEN])
{
	char *p = NULL, *text = NULL;
	size_t len;
	ws_error e;
	unsigned algo = 0;
	if (asprintf(&p, "%s/%s.metadata", meta_dir, rel) < 0)
		return 0;
	if (ws_read_small_file(p, 4096, &text, &len, &e) == 0) {
		const char *l2 = memchr(text, '\n', len);
		if (l2) {
			l2++;
			size_t rest = len - (size_t)(l2 - text), k = 0;
			while (k < rest && l2[k] != '\n' && l2[k] != '\r')
				k++;
			if ((k == 64 || k == 40) && ws_unhex(l2, k / 2, out))
				algo = k == 64 ? WS_HASH_SHA256 : WS_HASH_GITBLOB;
		}
	}
	free(text);
	free(p);
	return algo;
}

int
ws_verify_dir(const char *dir, const ws_verify_opts *o, ws_verify_result *r,
	      ws_error *err)
{
	char *snap = NULL, *meta_dir = NULL;
	walk w = {0};
	plist l = {0};
	promises ps = {0};
	partials pl = {0};
	int rc = -1;
	struct stat sb;

	memset(r, 0, sizeof *r);
	if (hf_snapshot(dir, &snap, err) != 0)
		return -1;
	const char *root = snap ? snap : dir;
	if (walk_dir(root, "", 0, &w) != 0)
		goto oom;
	qsort(w.rel, w.n, sizeof *w.rel, cmp_str);
	if (!snap && asprintf(&meta_dir, "%s/.cache/huggingface/download", dir) < 0)
		goto oom;
	if (meta_dir && (stat(meta_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		free(meta_dir);
		meta_dir = NULL;
	}
	for (size_t i = 0; i < w.n; i++) {
		if (is_index_name(w.rel[i]) ? promise_index(&ps, root, w.rel[i], err) != 0
		    : promise_split(&ps, w.rel[i]) != 0) {
			if (!err->code)
				ws_err_oom(err, dir);
			goto done;
		}
	}
	for (size_t i = 0; i < w.n; i++) {
		char *full = NULL, target[4096];
		uint8_t etag[WS_SHA256_LEN];
		bool named = false;
		for (size_t k = 0; k < ps.n; k++)
			if (strcmp(ps.v[k].rel, w.rel[i]) == 0) {
				named = true;
				ps.v[k].present = true;
			}
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
		if (algo)
			ws_unhex(blob, strlen(blob) / 2, etag);
		else if (meta_dir)
			algo = localdir_etag(meta_dir, w.rel[i], etag);
		if (tl > 0 && stat(full, &sb) != 0) {
			/* the snapshot links to a blob that is not there */
			ws_verify_item *it = push_item(r, w.rel[i], strlen(w.rel[i]), false);
			char *d = it ? dupf("the snapshot links to %s, which is missing: run the "
					    "download again", target) : NULL;
			free(full);
			if (!d)
				goto oom;
			set_state(it, o->ignore_missing && !named ? WS_VERIFY_IGNORED
				  : WS_VERIFY_MISSING, WS_WHY_ABSENT, d);
			continue;
		}
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
			p->named = named;
			memcpy(p->expect, etag, sizeof p->expect);
			continue;
		}
		/* no hash to check against: an LFS pointer, or a weight file
		 * shorter than its header, say something; a weight file of the
		 * right size is checked as far as it can be */
		char *lfs = stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size <= LFS_MAX
			? lfs_detail(full) : NULL;
		char *tr = lfs ? NULL : truncated_detail(full, w.rel[i]);
		bool weight = is_weight_name(w.rel[i]);
		free(full);
		if (lfs || tr || weight) {
			ws_verify_item *it = push_item(r, w.rel[i], strlen(w.rel[i]), false);
			if (!it) {
				free(lfs);
				free(tr);
				goto oom;
			}
			if (lfs)
				set_state(it, o->ignore_missing && !named ? WS_VERIFY_IGNORED
					  : WS_VERIFY_MISSING, WS_WHY_LFS, lfs);
			else if (tr)
				set_state(it, WS_VERIFY_FAILED, WS_WHY_TRUNCATED, tr);
			else
				set_state(it, WS_VERIFY_OK, WS_WHY_NONE,
					  strdup("its size matches its header; no checksum recorded"));
		}
	}
	/* what the index or split set names and the folder lacks */
	bool lacking = false;
	for (size_t k = 0; k < ps.n; k++)
		lacking |= !ps.v[k].present;
	if (lacking) {
		char *pdir = NULL;
		if (snap ? asprintf(&pdir, "%s/../../blobs", snap) < 0
			 : meta_dir && asprintf(&pdir, "%s", meta_dir) < 0)
			goto oom;
		if (pdir && find_partials(&pl, pdir, snap ? "blobs" : ".cache/huggingface/download") != 0) {
			free(pdir);
			goto oom;
		}
		free(pdir);
		/* local-dir partials sit in the shard's folder under .cache */
		for (size_t k = 0; k < ps.n; k++) {
			if (ps.v[k].present)
				continue;
			if (missing_item(r, &pl, &ps.v[k], ps.v[k].index
					 ? "not downloaded: the index names it"
					 : "not downloaded: its split set names it") != 0)
				goto oom;
		}
	}
	if (r->n == 0) {
		ws_err(err, WS_EXIT_INPUT, dir, snap
		       ? "no file of the snapshot is named by its blob hash: nothing to verify"
		       : "no manifest, not a Hugging Face cache folder, no weight files and no Git LFS pointers: nothing to verify");
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
	promises_free(&ps);
	partials_free(&pl);
	for (size_t i = 0; i < w.n; i++)
		free(w.rel[i]);
	free(w.rel);
	free(meta_dir);
	free(snap);
	return rc;
}

int
ws_verify_path(const char *path, const ws_verify_opts *o, ws_verify_result *r,
	       ws_error *err)
{
	struct stat sb;
	char *cached = ws_hf_cache_resolve(path);
	if (cached) {
		int rc = ws_verify_dir(cached, o, r, err);
		free(cached);
		return rc;
	}
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
