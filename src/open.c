/*
 * open.c - from a PATH to a model: files, folders, index.json, Hugging Face
 * cache folders, GGUF split parts; config.json beside the weights.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "catalogue/catalogue.h"
#include "ws/net.h"
#include "ws/json.h"
#include "ws/kv.h"
#include "ws/remote.h"
#include "ws/util.h"

#define INDEX_FINDING_CAP 16
#define MAX_JSON_FILE (64ull << 20) /* config.json / index.json cap */

/* path names the file `name`: equal to it or ending in "/name" (a bare
 * suffix would take xmodel-1.safetensors for model-1.safetensors). */
static bool
names_file(const char *path, const char *name)
{
	size_t a = strlen(path), b = strlen(name);
	return a >= b && strcmp(path + a - b, name) == 0 && (a == b || path[a - b - 1] == '/');
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

int
ws_read_small_file(const char *path, uint64_t max, char **out, size_t *len,
		   ws_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: refused, not waited on */
	struct stat st;
	*out = NULL;
	if (fd < 0)
		return ws_err_errno(err, path, errno, "cannot open");
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return ws_err(err, WS_EXIT_INPUT, path, "not a regular file");
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return ws_err(err, WS_EXIT_INPUT, path, "file is %llu bytes, over the %llu-byte limit",
			      (unsigned long long)st.st_size, (unsigned long long)max);
	}
	size_t n = (size_t)st.st_size, got = 0;
	char *buf = malloc(n + 1);
	if (!buf) {
		close(fd);
		return ws_err_oom(err, path);
	}
	ws_prefault(buf, n);
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)got);
		if (r <= 0) {
			free(buf);
			close(fd);
			return ws_err_at(err, path, got, "short read (file shrank?)");
		}
		got += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* Parse a JSON sidecar as Python writes it (Infinity, -Infinity, NaN
 * accepted); a syntax error names its byte offset. */
cJSON *
ws_parse_json_buf(const char *buf, size_t len, const char *path, ws_error *err)
{
	const char *end = NULL;
	cJSON *j = ws_json_parse_py(buf, len, &end);
	if (!j) {
		/* cJSON points `end` at the error; its global error pointer is
		 * not consulted (shared between threads) */
		uint64_t off = end && end >= buf && end <= buf + len ? (uint64_t)(end - buf) : 0;
		ws_err_at(err, path, off, "invalid JSON");
	} else {
		/* only whitespace may follow the value */
		size_t o = (size_t)(end - buf);
		while (o < len && (buf[o] == ' ' || buf[o] == '\n' || buf[o] == '\r' || buf[o] == '\t'))
			o++;
		if (o < len) {
			cJSON_Delete(j);
			j = NULL;
			ws_err_at(err, path, o, "invalid JSON: trailing characters");
		}
	}
	return j;
}

static cJSON *
parse_json_file(const char *path, ws_error *err)
{
	char *buf;
	size_t len;
	if (ws_read_small_file(path, MAX_JSON_FILE, &buf, &len, err))
		return NULL;
	cJSON *j = ws_parse_json_buf(buf, len, path, err);
	free(buf);
	return j;
}

/* ==== config.json ==== */

static void
set_arch_name(ws_model *m, const char *s)
{
	size_t o = 0;
	for (; s && *s && o + 1 < sizeof m->arch_name; s++) {
		unsigned char c = (unsigned char)*s;
		/* a lookup key only: keep it printable */
		m->arch_name[o++] = (c > 0x20 && c < 0x7F) ? (char)c : '?';
	}
	m->arch_name[o] = '\0';
}

static int load_config(ws_model *m, const char *config_path, bool required, ws_error *err);

int
ws_model_load_config(ws_model *m, const char *config_path, ws_error *err)
{
	return load_config(m, config_path, true, err);
}

static int
load_config(ws_model *m, const char *config_path, bool required, ws_error *err)
{
	struct stat st;
	if (ws_remote_is_url(config_path))
		return ws_remote_load_config(m, config_path, err);
	if (!required && stat(config_path, &st) != 0)
		return 0;
	cJSON *c = parse_json_file(config_path, err);
	if (!c)
		return -1;
	return ws_model_set_config(m, c, config_path, err);
}

int
ws_model_set_config(ws_model *m, cJSON *c, const char *config_path, ws_error *err)
{
	if (!cJSON_IsObject(c)) {
		cJSON_Delete(c);
		return ws_err_at(err, config_path, 0, "config.json is not a JSON object");
	}
	m->config = c;
	m->config_path = strdup(config_path);
	if (!m->config_path)
		return ws_err_oom(err, config_path);
	const cJSON *mt = cJSON_GetObjectItemCaseSensitive(c, "model_type");
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(c, "text_config");
	const cJSON *tmt = cJSON_IsObject(tc) ? cJSON_GetObjectItemCaseSensitive(tc, "model_type") : NULL;
	/* a multimodal wrapper's text model decides the architecture */
	if (cJSON_IsString(tmt) && !m->arch_name[0])
		set_arch_name(m, tmt->valuestring);
	else if (cJSON_IsString(mt) && !m->arch_name[0])
		set_arch_name(m, mt->valuestring);
	return 0;
}

/* ==== index.json ==== */

/* A shard name must stay inside the index's folder. */
static bool
safe_relative(const char *s)
{
	if (!*s || *s == '/')
		return false;
	for (const char *p = s; *p;) {
		const char *e = strchr(p, '/');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if ((l == 2 && !memcmp(p, "..", 2)) || l == 0)
			return false;
		p += l + (e ? 1 : 0);
		if (!e)
			break;
	}
	return true;
}

/* The first weight_map entry (before stop, or in all of it) whose tensor
 * an earlier entry names too, or NULL.  Asked only when something else
 * went wrong: a map naming a tensor twice is what to report first, as if
 * it had been checked up front. */
static const cJSON *
map_duplicate(const cJSON *wm, const cJSON *stop)
{
	ws_strset seen = {0};
	const cJSON *hit = NULL;
	for (const cJSON *e = wm ? wm->child : NULL; e && e != stop && !hit; e = e->next)
		if (e->string && ws_strset_add(&seen, e->string, strlen(e->string)) == 0)
			hit = e;
	ws_strset_free(&seen);
	return hit;
}

/* err says that entry e names its tensor a second time; -1. */
static int
map_duplicate_error(const cJSON *e, const char *index_path, ws_error *err)
{
	char *esc = ws_escape_text(e->string, strlen(e->string));
	if (!esc)
		return ws_err_oom(err, index_path);
	*err = (ws_error){0};
	ws_err(err, WS_EXIT_INPUT, index_path, "weight_map names tensor '%s' twice", esc);
	free(esc);
	return -1;
}

int
ws_index_duplicate_first(const cJSON *idx, const char *index_path, ws_error *err)
{
	const cJSON *d = map_duplicate(cJSON_GetObjectItemCaseSensitive(idx, "weight_map"), NULL);
	return d ? map_duplicate_error(d, index_path, err) : 0;
}

int
ws_index_shards(const cJSON *idx, const char *index_path, const char ***out,
		size_t *n_out, ws_error *err)
{
	const cJSON *wm = cJSON_GetObjectItemCaseSensitive(idx, "weight_map");
	const char **v = NULL;
	size_t n = 0, cap = 0;
	ws_strset shards = {0};
	int rc = -1;

	*out = NULL;
	*n_out = 0;
	if (!cJSON_IsObject(wm))
		return ws_err_at(err, index_path, 0, "index has no \"weight_map\" object");
	/* every distinct shard, in the order the map first names it (a tensor
	 * named twice is found by ws_index_check, with no extra pass) */
	for (const cJSON *e = wm->child; e; e = e->next) {
		if (!cJSON_IsString(e) || !e->string) {
			const cJSON *d = map_duplicate(wm, e);
			if (d)
				map_duplicate_error(d, index_path, err);
			else
				ws_err(err, WS_EXIT_INPUT, index_path,
				       "weight_map value is not a file name");
			goto out;
		}
		/* a shard's tensors come in a run, as a rule */
		if (n && !strcmp(v[n - 1], e->valuestring))
			continue;
		int added = ws_strset_add(&shards, e->valuestring, strlen(e->valuestring));
		if (added < 0) {
			ws_err_oom(err, index_path);
			goto out;
		}
		if (added == 0)
			continue;
		if (!safe_relative(e->valuestring)) {
			const cJSON *d = map_duplicate(wm, e->next);
			if (d) {
				map_duplicate_error(d, index_path, err);
				goto out;
			}
			char *esc = ws_escape_text(e->valuestring, strlen(e->valuestring));
			ws_err(err, WS_EXIT_INPUT, index_path,
			       "shard name '%s' leaves the index's folder", esc ? esc : "?");
			free(esc);
			goto out;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			const char **nv = realloc(v, cap * sizeof *nv);
			if (!nv) {
				ws_err_oom(err, index_path);
				goto out;
			}
			v = nv;
		}
		v[n++] = e->valuestring;
	}
	rc = 0;
out:
	ws_strset_free(&shards);
	if (rc) {
		free(v);
		return -1;
	}
	*out = v;
	*n_out = n;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in a folder: a listing owns them (in one block), filtered lists
 * borrow them. */
typedef struct name_list {
	char **v;
	size_t n;
	char *block;
} name_list;

static void
free_names(name_list *l)
{
	free(l->block);
	free(l->v);
	*l = (name_list){0};
}

/* ==== reading shards ahead ====
 *
 * While this thread parses index.json (cJSON, the largest single cost of a
 * 191-shard folder), another opens every shard in the folder, reads its
 * header and parses it into a model of its own; the shards are then
 * loaded here in the index's order, their tensors copied from that
 * model. Whatever it could not read is loaded by name, and whatever it
 * could not parse is parsed here, as without it. */
#define AHEAD_MIN_SHARDS 8

/* A slot is claimed once, by the reader or by this thread: a reader that
 * falls behind (or never gets a CPU) costs no more than reading here.  The
 * reader starts from the last name and this thread from the first, so once
 * index.json is parsed both read, and they meet in the middle. */
enum { SLOT_FREE, SLOT_READING, SLOT_READ, SLOT_TAKEN };

typedef struct ahead {
	ws_model *m;            /* the model loaded */
	ws_model *pm;           /* the reader's: its arena becomes m's */
	int dirfd;
	const char *dir;        /* set: the reader lists it first, into all and st */
	name_list all, st;
	const name_list *names; /* the shards, in the folder's order */
	ws_st_ahead *slot;      /* one per name */
	_Atomic unsigned char *state;
	uint32_t *by_name;      /* hash table: 1 + index into names, 0 = empty */
	size_t by_name_mask;
	_Atomic int ready;      /* 1: names and slots made; -1: none (load by name) */
	ws_team *team;          /* the reader, as a team of one helper */
	bool running;
} ahead;

static int list_dir(const char *dir, name_list *out, ws_error *err);
static int index_names(const name_list *all, name_list *out);
static int with_suffix(const name_list *all, const char *suffix, name_list *out);
static bool ahead_setup(ahead *a);
static void ahead_end(ahead *a);

static void *
read_ahead(void *arg)
{
	ahead *a = arg;
	uint8_t head[WS_ST_FIRST_READ]; /* every shard's first bytes, in turn */
	if (a->dir) {
		ws_error e;
		a->names = &a->st;
		bool ok = !list_dir(a->dir, &a->all, &e) && !with_suffix(&a->all, ".safetensors", &a->st);
		if (!ok || !ahead_setup(a)) {
			atomic_store_explicit(&a->ready, -1, memory_order_release);
			return NULL;
		}
		atomic_store_explicit(&a->ready, 1, memory_order_release);
	}
	for (size_t i = a->names->n; i-- > 0;) {
		ws_st_ahead *sl = &a->slot[i];
		const char *why;
		unsigned char free_state = SLOT_FREE;
		if (!atomic_compare_exchange_strong(&a->state[i], &free_state, SLOT_READING))
			continue;
		sl->fd = ws_open_regular(a->dirfd, a->names->v[i], &sl->size, &why);
		sl->head = head;
		if (sl->fd >= 0 && ws_safetensors_read_ahead(sl) &&
		    !(a->pm && ws_safetensors_parse_ahead(a->pm, sl)) && !sl->more &&
		    (sl->more = malloc(sl->len ? sl->len : 1)) != NULL)
			memcpy(sl->more, head, sl->len); /* for the loading thread */
		if (sl->fd >= 0 && !sl->parsed && !sl->more) {
			close(sl->fd);
			sl->fd = -1;
		}
		sl->head = NULL;
		atomic_store_explicit(&a->state[i], SLOT_READ, memory_order_release);
	}
	return NULL;
}

static void
read_ahead_work(void *arg, unsigned worker)
{
	(void)worker;
	read_ahead(arg);
}

/* The slots, the table of their names and the reader's model, for
 * a->names; false when not worth it or not possible. */
static bool
ahead_setup(ahead *a)
{
	const name_list *names = a->names;
	if (names->n < AHEAD_MIN_SHARDS || names->n > SIZE_MAX / (2 * WS_ST_FIRST_READ) ||
	    names->n > UINT32_MAX / 4)
		return false;
	a->slot = calloc(names->n, sizeof *a->slot);
	a->state = calloc(names->n, sizeof *a->state);
	/* names to slots: a folder's listing comes in no useful order */
	size_t cap = 16;
	while (cap < 2 * names->n)
		cap *= 2;
	a->by_name = calloc(cap, sizeof *a->by_name);
	a->by_name_mask = cap - 1;
	for (size_t i = 0; a->by_name && i < names->n; i++) {
		size_t h = ws_strset_hash(names->v[i], strlen(names->v[i])) & a->by_name_mask;
		while (a->by_name[h])
			h = (h + 1) & a->by_name_mask;
		a->by_name[h] = (uint32_t)i + 1;
	}
	/* its memory before it starts (names, shapes and tensors take about
	 * what their header text does); without it, it only reads */
	a->pm = ws_model_new(NULL);
	if (a->pm && (ws_model_reserve_arena(a->pm, names->n * WS_ST_FIRST_READ) ||
		      ws_model_reserve_tensors(a->pm, names->n *
						      WS_ST_MAX_TENSORS(WS_ST_FIRST_READ)))) {
		ws_model_free(a->pm);
		a->pm = NULL;
	}
	if (!a->slot || !a->state || !a->by_name) {
		free(a->slot);
		free((void *)a->state);
		free(a->by_name);
		ws_model_free(a->pm);
		a->slot = NULL;
		a->state = NULL;
		a->by_name = NULL;
		a->pm = NULL;
		return false;
	}
	return true;
}

/* The reader started on what a holds; false (and a's slots freed) if it
 * could not be. */
static bool
ahead_launch(ahead *a)
{
	/* a reader the scheduler has not run yet is not waited for: it
	 * starts only while this thread has not given up on it */
	if (a->dirfd < 0 || !(a->team = ws_team_start(1, read_ahead_work, a))) {
		a->ready = -1;
		ahead_end(a);
		return false;
	}
	a->running = true;
	return true;
}

/* Shards `names` of the folder dirfd read ahead; false when not worth it
 * or not possible: then they load by name. */
static bool
ahead_start(ahead *a, ws_model *m, int dirfd, const name_list *names)
{
	*a = (ahead){.m = m, .dirfd = dirfd, .names = names, .ready = 1};
	return ahead_setup(a) && ahead_launch(a);
}

/* The same with the listing of dir left to the reader too, while this
 * thread parses the index. */
static bool
ahead_start_listing(ahead *a, ws_model *m, int dirfd, const char *dir)
{
	*a = (ahead){.m = m, .dirfd = dirfd, .dir = dir};
	return ahead_launch(a);
}

/* The slot read ahead for shard `name`, once ready, or NULL. */
static ws_st_ahead *
ahead_get(ahead *a, const char *name)
{
	if (!a || !a->running)
		return NULL;
	int ready;
	while (!(ready = atomic_load_explicit(&a->ready, memory_order_acquire))) {
		/* the reader is still listing, or has not started: then it
		 * never will, and the shards load by name */
		if (!ws_st_parallel.patient && ws_team_close(a->team)) {
			atomic_store_explicit(&a->ready, -1, memory_order_release);
			return NULL;
		}
		sched_yield();
	}
	if (ready < 0)
		return NULL;
	size_t h = ws_strset_hash(name, strlen(name)) & a->by_name_mask, i;
	for (;; h = (h + 1) & a->by_name_mask) {
		if (!a->by_name[h])
			return NULL; /* not in the folder (or in a subfolder) */
		i = a->by_name[h] - 1;
		if (!strcmp(a->names->v[i], name))
			break;
	}
	unsigned char st = SLOT_FREE;
	if (!ws_st_parallel.patient &&
	    atomic_compare_exchange_strong(&a->state[i], &st, SLOT_TAKEN))
		return NULL; /* the reader is behind: read it here */
	st = atomic_load_explicit(&a->state[i], memory_order_acquire);
	/* the reader is at this very shard: read it here too rather than
	 * wait for a reader the scheduler may have stopped mid-read (what
	 * it reads is closed and freed with the slots) */
	if (st == SLOT_READING && !ws_st_parallel.patient)
		return NULL;
	while (st != SLOT_READ && st != SLOT_TAKEN) {
		sched_yield();
		st = atomic_load_explicit(&a->state[i], memory_order_acquire);
	}
	return st == SLOT_READ && a->slot[i].fd >= 0 ? &a->slot[i] : NULL;
}

/* The reader joined and its slots freed; a listing it made stays. */
static void
ahead_end(ahead *a)
{
	if (a->running)
		ws_team_finish(a->team);
	a->team = NULL;
	a->running = false;
	for (size_t i = 0; a->slot && i < a->names->n; i++) {
		if (a->state[i] == SLOT_READ && a->slot[i].fd >= 0)
			close(a->slot[i].fd);
		free(a->slot[i].more);
	}
	free(a->slot);
	free((void *)a->state);
	free(a->by_name);
	a->slot = NULL;
	a->state = NULL;
	a->by_name = NULL;
	if (a->pm) {
		/* the names and shapes of the tensors taken from it */
		ws_model_take_arena(a->m, a->pm);
		ws_model_free(a->pm);
		a->pm = NULL;
	}
}

static int
load_index(ws_model *m, const char *index_path, int dirfd, ahead *ah, ws_error *err);

/* A descriptor for opening shards relative to their folder, or -1. */
static int
open_dir(const char *dir, ws_error *err)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		ws_err_errno(err, dir, errno, "cannot open folder");
	return fd;
}

int
ws_safetensors_load_index(ws_model *m, const char *index_path, ws_error *err)
{
	char *dir = ws_path_dir(index_path);
	if (!dir)
		return ws_err_oom(err, index_path);
	int dirfd = open_dir(dir, err);
	int rc = dirfd < 0 ? -1 : load_index(m, index_path, dirfd, NULL, err);
	if (dirfd >= 0)
		close(dirfd);
	free(dir);
	return rc;
}

static int
load_index(ws_model *m, const char *index_path, int dirfd, ahead *ah, ws_error *err)
{
	cJSON *idx = parse_json_file(index_path, err);
	if (!idx)
		return -1;
	m->index = idx;
	m->index_path = strdup(index_path);
	if (!m->index_path)
		return ws_err_oom(err, index_path);
	m->format = WS_FORMAT_SAFETENSORS;

	const char **shards;
	size_t n;
	if (ws_index_shards(idx, index_path, &shards, &n, err))
		return -1;
	char *dir = ws_path_dir(index_path);
	int rc = dir ? 0 : ws_err_oom(err, index_path);
	for (size_t i = 0; i < n && !rc; i++) {
		char *sp = ws_path_join(dir, shards[i]);
		ws_st_ahead *sl = ahead_get(ah, shards[i]);
		if (!sp) {
			rc = ws_err_oom(err, index_path);
		} else if (sl) {
			rc = ws_safetensors_load_ahead(m, sl, sp, err);
		} else if ((rc = ws_safetensors_load_at(m, dirfd, shards[i], sp, err)) != 0 &&
			   faccessat(dirfd, shards[i], F_OK, 0) != 0) {
			/* asked only when loading failed: one syscall less a shard */
			rc = ws_err(err, WS_EXIT_INPUT, sp, "shard named by %s is missing", index_path);
		}
		free(sp);
	}
	free(shards);
	free(dir);
	if (rc) {
		ws_index_duplicate_first(idx, index_path, err);
		return -1;
	}
	return ws_index_check(m, err);
}

static int duplicate_findings(ws_model *m, ws_error *err);

/* The names m holds more than once, into out (its keys borrowed). */
static int
duplicated_names(const ws_model *m, ws_strset *out, ws_error *err)
{
	ws_strset seen = {0};
	int rc = 0;
	for (uint64_t i = 0; i < m->n_tensors && !rc; i++) {
		const ws_tensor *t = &m->tensors[i];
		int added = ws_strset_add(&seen, t->name, t->name_len);
		if (added < 0 || (added == 0 && ws_strset_add(out, t->name, t->name_len) < 0))
			rc = ws_err_oom(err, m->path);
	}
	ws_strset_free(&seen);
	return rc;
}

/* The map against the loaded headers; mismatches are findings. */
int
ws_index_check(ws_model *m, ws_error *err)
{
	const char *index_path = m->index_path;
	const cJSON *idx = m->index;
	const cJSON *wm = cJSON_GetObjectItemCaseSensitive(idx, "weight_map");
	ws_name_index byname = {0};
	ws_strset listed = {0}, unheld = {0}, dups = {0};
	uint64_t n_listed = 0, mismatches = 0;
	int64_t dup[2];
	int rc = -1;
	/* per tensor: the map names it (a second time is an error) */
	uint8_t *named = calloc(m->n_tensors ? m->n_tensors : 1, 1);
	if (!named) {
		ws_err_oom(err, index_path);
		goto out;
	}

	if (ws_name_index_build(m, &byname, dup)) {
		ws_err_oom(err, index_path);
		goto out;
	}
	if (dup[0] >= 0 && ws_index_duplicate_first(idx, index_path, err))
		goto out;
	/* two shards holding one tensor: the checkpoint's fault, not either
	 * file's (each is a valid safetensors file); where such a tensor
	 * lies is not held against the map */
	if (dup[0] >= 0 && (duplicate_findings(m, err) || duplicated_names(m, &dups, err)))
		goto out;
	/* one finding a tensor up to the cap, then a count: a stale index of
	 * 100k entries stays a readable report */
	for (const cJSON *e = wm->child; e; e = e->next) {
		size_t len = strlen(e->string);
		int64_t ti = ws_name_index_find(m, &byname, e->string, len);
		int fresh = ti >= 0 ? !named[ti]++ : ws_strset_add(&unheld, e->string, len);
		if (fresh <= 0) {
			char *esc = fresh == 0 ? ws_escape_text(e->string, len) : NULL;
			if (esc)
				ws_err(err, WS_EXIT_INPUT, index_path,
				       "weight_map names tensor '%s' twice", esc);
			else
				ws_err_oom(err, index_path);
			free(esc);
			goto out;
		}
		const char *fp = ti < 0 ? NULL : m->files[m->tensors[ti].file].path;
		n_listed += ti >= 0;
		if (fp && (names_file(fp, e->valuestring) || ws_strset_has(&dups, e->string, len)))
			continue;
		if (mismatches++ >= INDEX_FINDING_CAP)
			continue;
		char *esc = ws_escape_text(e->string, len);
		if (!esc) {
			ws_err_oom(err, index_path);
			goto out;
		}
		int fr = !fp ? ws_model_add_finding(m, WS_SEV_ERROR, "index-mismatch", esc, -1, -1,
						    false, 0, 0,
						    "index.json maps '%s' to %s, which does not hold it",
						    esc, e->valuestring)
			: ws_model_add_finding(m, WS_SEV_ERROR, "index-mismatch", esc, -1, -1,
					       false, 0, 0,
					       "index.json maps '%s' to %s, but it is stored in %s",
					       esc, e->valuestring, fp);
		free(esc);
		if (fr < 0) {
			ws_err_oom(err, index_path);
			goto out;
		}
	}
	/* tensors the map does not list: only looked for when some are */
	if (n_listed < m->n_tensors - m->index_first)
		for (const cJSON *e = wm->child; e; e = e->next)
			if (ws_strset_add(&listed, e->string, strlen(e->string)) < 0) {
				ws_err_oom(err, index_path);
				goto out;
			}
	uint64_t data_bytes = 0;
	for (uint64_t i = m->index_first; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		data_bytes += t->bytes;
		if (n_listed < m->n_tensors - m->index_first &&
		    (!ws_strset_has(&listed, t->name, t->name_len) || memchr(t->name, 0, t->name_len)) &&
		    mismatches++ < INDEX_FINDING_CAP) {
			char *esc = ws_escape_text(t->name, t->name_len);
			int fr = esc ? ws_model_add_finding(m, WS_SEV_ERROR, "index-mismatch", esc, -1, -1,
							    false, 0, 0,
							    "'%s' is stored in %s but index.json does not list it",
							    esc, m->files[t->file].path) : -1;
			free(esc);
			if (fr < 0) {
				ws_err_oom(err, index_path);
				goto out;
			}
		}
	}
	if (mismatches > INDEX_FINDING_CAP &&
	    ws_model_add_finding(m, WS_SEV_ERROR, "index-mismatch", NULL, -1, -1, false, 0, 0,
				 "and %llu more tensors index.json and the shards disagree on",
				 (unsigned long long)(mismatches - INDEX_FINDING_CAP)) < 0) {
		ws_err_oom(err, index_path);
		goto out;
	}
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(idx, "metadata");
	const cJSON *ts = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "total_size") : NULL;
	if (cJSON_IsNumber(ts) && ts->valuedouble >= 0 && ts->valuedouble < 9.0e15 &&
	    (double)(uint64_t)ts->valuedouble == ts->valuedouble &&
	    (uint64_t)ts->valuedouble != data_bytes &&
	    ws_model_add_finding(m, WS_SEV_WARNING, "index-mismatch", NULL, -1, -1,
				 true, (uint64_t)ts->valuedouble, data_bytes,
				 "index.json total_size is %llu but the shards hold %llu data bytes",
				 (unsigned long long)ts->valuedouble,
				 (unsigned long long)data_bytes) < 0) {
		ws_err_oom(err, index_path);
		goto out;
	}
	rc = 0;
out:
	ws_name_index_free(&byname);
	ws_strset_free(&listed);
	ws_strset_free(&unheld);
	ws_strset_free(&dups);
	free(named);
	return rc;
}

/* ==== folders ==== */

/* Every name in dir but dot files, in the folder's order (read once: a
 * 191-shard folder is one getdents, not one per suffix asked about). */
static int
list_dir(const char *dir, name_list *out, ws_error *err)
{
	DIR *d = opendir(dir);
	size_t cap = 0, used = 0, room = 0;
	struct dirent *e;

	*out = (name_list){0};
	if (!d)
		return ws_err(err, WS_EXIT_INPUT, dir, "cannot read folder: %s", strerror(errno));
	/* offsets into the block while it grows, pointers once it is done */
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		size_t len = strlen(e->d_name) + 1;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nv = realloc(out->v, cap * sizeof *nv);
			if (!nv)
				goto oom;
			out->v = nv;
		}
		if (room - used < len) {
			room = room ? room * 2 : 4096;
			if (room - used < len)
				room = used + len;
			char *nb = realloc(out->block, room);
			if (!nb)
				goto oom;
			out->block = nb;
		}
		memcpy(out->block + used, e->d_name, len);
		out->v[out->n++] = (char *)(uintptr_t)used;
		used += len;
	}
	closedir(d);
	for (size_t i = 0; i < out->n; i++)
		out->v[i] = out->block + (uintptr_t)out->v[i];
	return 0;
oom:
	closedir(d);
	free_names(out);
	return ws_err_oom(err, dir);
}

/* A list in name order: what a folder holds is reported and loaded so. */
static void
sort_names(name_list *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_str);
}

/* The names of `all` ending with suffix, borrowed, in order; -1 on OOM. */
static int
with_suffix(const name_list *all, const char *suffix, name_list *out)
{
	out->n = 0;
	out->v = malloc((all->n ? all->n : 1) * sizeof *out->v);
	if (!out->v)
		return -1;
	for (size_t i = 0; i < all->n; i++)
		if (ends_with(all->v[i], suffix))
			out->v[out->n++] = all->v[i];
	return 0;
}

/* ==== variants and folders of models ==== */

/* transformers and diffusers write variant V of checkpoint S (model,
 * diffusion_pytorch_model) as S.V.safetensors, its shards as S.V-00001-of-00002.safetensors (older
 * writers: S-00001-of-00002.V.safetensors) and their index as
 * S.safetensors.index.V.json; the non-variant files have no V. */
typedef struct vparts {
	size_t stem_len;  /* name[0..stem_len) is S */
	const char *var;  /* V, or "" */
	size_t var_len;
} vparts;

/* s[0..*n) ends with "-#####-of-#####": *n cut before it. */
static bool
cut_shard_suffix(const char *s, size_t *n)
{
	static const char tmpl[] = "-#####-of-#####"; /* # = a digit */
	size_t t = sizeof tmpl - 1;
	if (*n < t)
		return false;
	const char *p = s + *n - t;
	for (size_t i = 0; i < t; i++)
		if (tmpl[i] == '#' ? !(p[i] >= '0' && p[i] <= '9') : p[i] != tmpl[i])
			return false;
	*n -= t;
	return true;
}

/* The weights names transformers and diffusers add a variant to: another
 * file's "x.v2.safetensors" is a name of its own (a LoRA's second version
 * is not an alternative to its first). */
static bool
variant_stem(const char *s, size_t n)
{
	static const char *const stems[] = {"model", "diffusion_pytorch_model"};
	for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++)
		if (strlen(stems[i]) == n && !memcmp(stems[i], s, n))
			return true;
	return false;
}

static void
variant_parts(const char *name, vparts *v)
{
	static const char idx[] = ".safetensors.index.", st[] = ".safetensors";
	size_t n = strlen(name);
	*v = (vparts){.stem_len = n, .var = ""};
	const char *ix = strstr(name, idx);
	if (ix && ends_with(name, ".json")) {
		v->stem_len = (size_t)(ix - name);
		const char *a = ix + sizeof idx - 1, *b = name + n - 5; /* before ".json" */
		if (b > a && !memchr(a, '.', (size_t)(b - a))) {
			v->var = a;
			v->var_len = (size_t)(b - a);
		}
		if (!strcmp(a, "json") || !variant_stem(name, v->stem_len))
			v->var_len = 0; /* S.safetensors.index.json, or not a variant */
		return;
	}
	if (!ends_with(name, st))
		return;
	n -= sizeof st - 1;
	cut_shard_suffix(name, &n);
	const char *dot = memchr(name, '.', n) ? name + n : NULL;
	while (dot && *--dot != '.')
		;
	if (dot && dot > name && (size_t)(dot - name) + 1 < n) {
		size_t stem = (size_t)(dot - name);
		cut_shard_suffix(name, &stem);
		if (variant_stem(name, stem)) {
			v->var = dot + 1;
			v->var_len = n - (size_t)(dot - name) - 1;
			n = stem;
		}
	}
	v->stem_len = n;
}

static bool
same_stem(const char *a, const vparts *va, const char *b, const vparts *vb)
{
	return va->stem_len == vb->stem_len && !memcmp(a, b, va->stem_len);
}

static bool
var_is(const vparts *v, const char *s, size_t n)
{
	return v->var_len == n && !memcmp(v->var, s, n);
}

static bool
var_less(const vparts *a, const vparts *b)
{
	size_t k = a->var_len < b->var_len ? a->var_len : b->var_len;
	int c = memcmp(a->var, b->var, k);
	return c < 0 || (c == 0 && a->var_len < b->var_len);
}

/* The variants named in the folder, for a usage error: "fp16, bf16". */
static char *
variants_present(const char *const *names, const vparts *vp, size_t n)
{
	size_t cap = 1;
	for (size_t i = 0; i < n; i++)
		cap += vp[i].var_len + 2;
	char *s = malloc(cap), *o = s;
	if (!s)
		return NULL;
	*o = '\0';
	for (size_t i = 0; i < n; i++) {
		bool seen = vp[i].var_len == 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = var_is(&vp[j], vp[i].var, vp[i].var_len);
		if (seen)
			continue;
		o += sprintf(o, "%s%.*s", o == s ? "" : ", ", (int)vp[i].var_len, vp[i].var);
	}
	(void)names;
	return s;
}

#define VARIANT_NAMES_SHOWN 8

/*
 * Of a folder's safetensors files and indexes (st, idx: filtered in place),
 * those of the variant read.  A checkpoint S found in several variants
 * keeps the files of `want` (NULL or "": the non-variant files, as
 * transformers and diffusers load them; S without it: its first variant
 * by name); the others are m's unread files, named by a `variant` info
 * finding.  A `want` no file carries is a usage error listing those there.
 */
static int
select_variant(ws_model *m, const char *dir, const char *want, name_list *st, name_list *idx,
	       ws_error *err)
{
	size_t n = st->n + idx->n, wl = want ? strlen(want) : 0, any = 0;
	const char **names = malloc((n ? n : 1) * sizeof *names);
	vparts *vp = malloc((n ? n : 1) * sizeof *vp);
	unsigned char *keep = malloc(n ? n : 1);
	int rc = -1;
	if (!names || !vp || !keep) {
		ws_err_oom(err, dir);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		names[i] = i < st->n ? st->v[i] : idx->v[i - st->n];
		variant_parts(names[i], &vp[i]);
		any += vp[i].var_len > 0;
		keep[i] = 1;
	}
	if (wl) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = var_is(&vp[i], want, wl);
		if (!found) {
			char *have = variants_present(names, vp, n);
			char *esc = ws_escape_text(want, wl);
			if (!have || !esc)
				ws_err_oom(err, dir);
			else
				ws_err(err, WS_EXIT_USAGE, dir,
				       "--variant %s: no such variant here (variants present: %s)", esc,
				       *have ? have : "none");
			free(have);
			free(esc);
			goto out;
		}
	}
	if (!any) {
		rc = 0;
		goto out;
	}
	/* per checkpoint: the variant wanted if it has it, else its first */
	const char *w = want ? want : "";
	size_t dropped = 0;
	for (size_t i = 0; i < n; i++) {
		const vparts *first = NULL;
		bool several = false, has_want = false;
		for (size_t j = 0; j < n; j++) {
			if (!same_stem(names[i], &vp[i], names[j], &vp[j]))
				continue;
			several |= !var_is(&vp[j], vp[i].var, vp[i].var_len);
			has_want |= var_is(&vp[j], w, wl);
			if (!first || var_less(&vp[j], first))
				first = &vp[j];
		}
		keep[i] = !several || (has_want ? var_is(&vp[i], w, wl)
						: var_is(&vp[i], first->var, first->var_len));
		dropped += !keep[i];
	}
	if (!dropped) {
		rc = 0;
		goto out;
	}
	m->unread_files = ws_model_alloc(m, dropped * sizeof *m->unread_files);
	if (!m->unread_files) {
		ws_err_oom(err, dir);
		goto out;
	}
	char shown[VARIANT_NAMES_SHOWN * 96 + 64] = "";
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (keep[i])
			continue;
		char *p = ws_path_join(dir, names[i]);
		const char *kept = p ? ws_model_strndup(m, p, strlen(p)) : NULL;
		free(p);
		if (!kept) {
			ws_err_oom(err, dir);
			goto out;
		}
		if (m->n_unread_files < VARIANT_NAMES_SHOWN)
			o += (size_t)snprintf(shown + o, sizeof shown - o, "%s%.80s",
					      o ? ", " : "", names[i]);
		m->unread_files[m->n_unread_files++] = kept;
	}
	if (dropped > VARIANT_NAMES_SHOWN)
		snprintf(shown + o, sizeof shown - o, " and %zu more", dropped - VARIANT_NAMES_SHOWN);
	char *esc = ws_escape_text(shown, strlen(shown));
	char *wesc = wl ? ws_escape_text(want, wl) : NULL;
	if (!esc || (wl && !wesc) ||
	    ws_model_add_finding(m, WS_SEV_INFO, "variant", NULL, -1, -1, false, 0, 0,
				 "the folder holds variants of the checkpoint; read: %s%s%s; "
				 "not read: %s",
				 wl ? "variant '" : "the non-variant files", wl ? wesc : "",
				 wl ? "'" : "", esc) < 0) {
		free(esc);
		free(wesc);
		ws_err_oom(err, dir);
		goto out;
	}
	free(esc);
	free(wesc);
	/* filter both lists in place, in their order */
	size_t ks = 0, ki = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		if (i < st->n)
			st->v[ks++] = (char *)names[i];
		else
			idx->v[ki++] = (char *)names[i];
	}
	st->n = ks;
	idx->n = ki;
	rc = 0;
out:
	free(names);
	free(vp);
	free(keep);
	return rc;
}

#define DUPLICATE_FINDING_CAP 16

/* The same tensor name in two files of one checkpoint (a folder read
 * without an index): an error naming both files, up to the cap, then a
 * count. */
static int
duplicate_findings(ws_model *m, ws_error *err)
{
	ws_strset seen = {0};
	uint64_t dups = 0;
	int rc = 0;
	if (ws_strset_reserve(&seen, (size_t)m->n_tensors))
		return ws_err_oom(err, m->path);
	for (uint64_t i = 0; i < m->n_tensors && !rc; i++) {
		const ws_tensor *t = &m->tensors[i];
		int added = ws_strset_add(&seen, t->name, t->name_len);
		if (added < 0) {
			rc = ws_err_oom(err, m->path);
			break;
		}
		if (added || dups++ >= DUPLICATE_FINDING_CAP)
			continue;
		/* the earlier holder: found by a scan, for the few reported */
		uint64_t j = 0;
		while (j < i && !(m->tensors[j].name_len == t->name_len &&
				  !memcmp(m->tensors[j].name, t->name, t->name_len)))
			j++;
		char *esc = ws_escape_text(t->name, t->name_len);
		if (!esc || ws_model_add_finding(m, WS_SEV_ERROR, "duplicate-tensor", esc, -1, -1,
						 false, 0, 0,
						 "tensor '%s' is stored in both %s and %s", esc,
						 m->files[m->tensors[j].file].path,
						 m->files[t->file].path) < 0)
			rc = ws_err_oom(err, m->path);
		free(esc);
	}
	if (!rc && dups > DUPLICATE_FINDING_CAP &&
	    ws_model_add_finding(m, WS_SEV_ERROR, "duplicate-tensor", NULL, -1, -1, false, 0, 0,
				 "and %llu more tensor names stored in two files",
				 (unsigned long long)(dups - DUPLICATE_FINDING_CAP)) < 0)
		rc = ws_err_oom(err, m->path);
	ws_strset_free(&seen);
	return rc;
}

/* Files past this many are not compared pairwise: one checkpoint. */
#define MODELS_FOLDER_MAX_FILES 256

/*
 * A folder without an index whose files each hold a whole model (ComfyUI
 * loras/, two checkpoints side by side): every file shares at least half
 * of the tensor names of the larger of the two with some other file.  The
 * shards of one checkpoint share no names, and a stray duplicate or two
 * is far from half: those stay one checkpoint (with duplicate-tensor
 * errors).  Files of different architectures that share nothing are read
 * as one checkpoint - nothing in their names tells them from shards.
 */
static int
is_folder_of_models(const ws_model *m, bool *yes, ws_error *err)
{
	uint32_t nf = m->n_files;
	*yes = false;
	if (nf < 2 || nf > MODELS_FOLDER_MAX_FILES)
		return 0;
	ws_strset *sets = calloc(nf, sizeof *sets);
	uint64_t *count = calloc(nf, sizeof *count);
	uint64_t *shared = calloc((size_t)nf * nf, sizeof *shared);
	int rc = 0;
	if (!sets || !count || !shared) {
		rc = ws_err_oom(err, m->path);
		goto out;
	}
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		count[t->file]++;
		if (ws_strset_add(&sets[t->file], t->name, t->name_len) < 0) {
			rc = ws_err_oom(err, m->path);
			goto out;
		}
	}
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		for (uint32_t g = 0; g < nf; g++)
			if (g != t->file && ws_strset_has(&sets[g], t->name, t->name_len))
				shared[(size_t)t->file * nf + g]++;
	}
	bool all = true;
	for (uint32_t f = 0; f < nf && all; f++) {
		bool partner = false;
		for (uint32_t g = 0; g < nf && !partner; g++) {
			uint64_t big = count[f] > count[g] ? count[f] : count[g];
			partner = g != f && count[f] && shared[(size_t)f * nf + g] * 2 >= big;
		}
		all = partner;
	}
	*yes = all;
out:
	for (uint32_t f = 0; sets && f < nf; f++)
		ws_strset_free(&sets[f]);
	free(sets);
	free(count);
	free(shared);
	return rc;
}

/* models--org--name/ -> models--org--name/snapshots/<refs/main>/ */
static char *
hf_cache_snapshot(const char *dir)
{
	char *ref = ws_path_join(dir, "refs/main"), *buf = NULL, *snap = NULL;
	size_t len;
	ws_error e = {0};
	if (ref && ws_read_small_file(ref, 4096, &buf, &len, &e) == 0) {
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (len && !strchr(buf, '/')) {
			char *rel;
			if (asprintf(&rel, "snapshots/%s", buf) >= 0) {
				snap = ws_path_join(dir, rel);
				free(rel);
			}
		}
	}
	free(buf);
	free(ref);
	return snap;
}

/* Shards in the folder that the index does not name: a warning each, in
 * name order.  plen: the length of the folder's part of a loaded shard's
 * path. */
static int
unlisted_shards(ws_model *m, name_list *shards, size_t plen, const char *dir,
		ws_error *err)
{
	ws_strset loaded = {0};
	int rc = 0;
	/* the index's shards are distinct names: when as many are files of
	 * the listing's kind right in the folder as it lists, it names all */
	size_t listed_kind = 0;
	for (uint32_t f = 0; f < m->n_files; f++) {
		const char *p = m->files[f].path;
		listed_kind += strlen(p) > plen && p[plen] != '.' && !strchr(p + plen, '/') &&
			       ends_with(p + plen, ".safetensors");
	}
	if (listed_kind == shards->n)
		return 0;
	sort_names(shards);
	for (uint32_t f = 0; f < m->n_files && !rc; f++) {
		const char *slash = strrchr(m->files[f].path, '/');
		const char *base = slash ? slash + 1 : m->files[f].path;
		if (ws_strset_add(&loaded, base, strlen(base)) < 0)
			rc = ws_err_oom(err, dir);
	}
	for (size_t i = 0; i < shards->n && !rc; i++)
		if (!ws_strset_has(&loaded, shards->v[i], strlen(shards->v[i])) &&
		    ws_model_add_finding(m, WS_SEV_WARNING, "index-mismatch", NULL, -1, -1,
					 false, 0, 0,
					 "%s is in the folder but index.json does not name it",
					 shards->v[i]) < 0)
			rc = ws_err_oom(err, dir);
	ws_strset_free(&loaded);
	return rc;
}

/* The folder's index ip and the shards it names, then a warning for each
 * shard of the folder it does not name.  st: the folder's shards, or NULL
 * to have the reader list the folder while the index is parsed here. */
static int
load_folder_index(ws_model *m, const char *dir, const char *ip, name_list *st, ws_error *err)
{
	name_list ix = {0};
	int dirfd = open_dir(dir, err);
	if (dirfd < 0)
		return -1;
	ahead ah;
	name_list all = {0}, own = {0};
	bool started = st ? ahead_start(&ah, m, dirfd, st) : ahead_start_listing(&ah, m, dirfd, dir);
	int r = load_index(m, ip, dirfd, started ? &ah : NULL, err);
	if (started)
		ahead_end(&ah);
	close(dirfd);
	if (!st) {
		/* the reader's listing, or one made here when it could not */
		all = ah.all;
		own = ah.st;
		if (!own.v && !r) {
			free_names(&all);
			if (list_dir(dir, &all, err))
				r = -1;
			else if (with_suffix(&all, ".safetensors", &own))
				r = ws_err_oom(err, dir);
		}
		/* the index read is the non-variant one: other variants'
		 * shards are not read, rather than unlisted */
		if (!r && own.v && index_names(&all, &ix))
			r = ws_err_oom(err, dir);
		if (!r && own.v) {
			sort_names(&own);
			sort_names(&ix);
		}
		if (!r && own.v && select_variant(m, dir, NULL, &own, &ix, err))
			r = -1;
		st = &own;
	}
	/* the shards' paths start as load_index made them */
	char *sd = ws_path_dir(ip);
	size_t plen = sd ? strlen(sd) : 0;
	plen += plen && sd[plen - 1] != '/';
	if (!r)
		r = sd ? unlisted_shards(m, st, plen, dir, err) : ws_err_oom(err, dir);
	free(sd);
	free(own.v);
	free(ix.v);
	free_names(&all);
	return r ? -1 : 0;
}

/* Checkpoint indexes (S.safetensors.index.json, S.safetensors.index.V.json)
 * among `all`, borrowed; -1 on OOM. */
static int
index_names(const name_list *all, name_list *out)
{
	out->n = 0;
	out->v = malloc((all->n ? all->n : 1) * sizeof *out->v);
	if (!out->v)
		return -1;
	for (size_t i = 0; i < all->n; i++)
		if (strstr(all->v[i], ".safetensors.index.") && ends_with(all->v[i], ".json"))
			out->v[out->n++] = all->v[i];
	return 0;
}

/* The folder's safetensors files read without an index, one checkpoint
 * (duplicate names are errors) unless the folder is one of models. */
static int
load_folder_files(ws_model *m, const char *dir, const name_list *st, ws_error *err)
{
	int dirfd = open_dir(dir, err);
	int rc = dirfd < 0 ? -1 : 0;
	for (size_t i = 0; i < st->n && !rc; i++) {
		char *p = ws_path_join(dir, st->v[i]);
		rc = p ? ws_safetensors_load_at(m, dirfd, st->v[i], p, err) : ws_err_oom(err, dir);
		free(p);
	}
	if (dirfd >= 0)
		close(dirfd);
	if (rc || m->n_files < 2)
		return rc;
	if (is_folder_of_models(m, &m->folder_of_models, err))
		return -1;
	return m->folder_of_models ? 0 : duplicate_findings(m, err);
}

static int
load_folder(ws_model *m, const char *dir, const char *want, ws_error *err)
{
	name_list all, idx = {0}, st = {0}, gg = {0};
	int rc = -1;

	char *cip = ws_path_join(dir, "model.safetensors.index.json");
	struct stat ist;
	if (!cip)
		return ws_err_oom(err, dir);
	/* an index large enough to name many shards: the folder is listed by
	 * the reader (only it needs the listing before the end) */
	if (!want && stat(cip, &ist) == 0 && S_ISREG(ist.st_mode) &&
	    (uint64_t)ist.st_size >= ws_st_parallel.listing_index) {
		rc = load_folder_index(m, dir, cip, NULL, err);
		free(cip);
		return rc;
	}
	free(cip);
	if (list_dir(dir, &all, err))
		return -1;
	if (index_names(&all, &idx) ||
	    with_suffix(&all, ".safetensors", &st) || with_suffix(&all, ".gguf", &gg)) {
		ws_err_oom(err, dir);
		goto out;
	}
	sort_names(&st);
	sort_names(&idx);
	if ((st.n || idx.n || want) && select_variant(m, dir, want, &st, &idx, err))
		goto out;
	if (idx.n) {
		/* the canonical name wins when several indexes are read, else
		 * the first by name */
		sort_names(&idx);
		size_t pick = 0;
		for (size_t i = 0; i < idx.n; i++)
			if (!strncmp(idx.v[i], "model.safetensors.index.", 24))
				pick = i;
		char *ip = ws_path_join(dir, idx.v[pick]);
		rc = ip ? load_folder_index(m, dir, ip, &st, err) : ws_err_oom(err, dir);
		free(ip);
	} else if (st.n) {
		sort_names(&st);
		rc = load_folder_files(m, dir, &st, err);
	} else if (gg.n) {
		/* one model (or one split set) per folder here; the CLI expands
		 * folders holding several */
		sort_names(&gg);
		char *p = ws_path_join(dir, gg.v[0]);
		rc = p ? ws_gguf_load(m, p, err) : ws_err_oom(err, dir);
		free(p);
	} else {
		ws_err(err, WS_EXIT_INPUT, dir,
		       "no .safetensors, .safetensors.index.json or .gguf files in this folder");
	}
out:
	free(idx.v);
	free(st.v);
	free(gg.v);
	free_names(&all);
	return rc ? -1 : 0;
}

/* "x-00002-of-00003.gguf" -> true, with the prefix length in *plen. */
static bool
split_part(const char *name, size_t *plen)
{
	static const char tmpl[] = "-#####-of-#####.gguf"; /* # = a digit */
	size_t n = strlen(name), t = sizeof tmpl - 1;
	if (n < t)
		return false;
	const char *p = name + n - t;
	for (size_t i = 0; i < t; i++)
		if (tmpl[i] == '#' ? !(p[i] >= '0' && p[i] <= '9') : p[i] != tmpl[i])
			return false;
	*plen = n - t;
	return true;
}

/* A folder holding the index Hugging Face writes is one safetensors model:
 * known without listing it (a 191-shard folder's listing is not free, and
 * the model's open lists it anyway).  A model.safetensors alone says less:
 * a whole model may lie beside it. */
static bool
holds_canonical(const char *dir)
{
	static const char *const names[] = {"model.safetensors.index.json"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *p = ws_path_join(dir, names[i]);
		bool yes = p && access(p, F_OK) == 0;
		free(p);
		if (yes)
			return true;
	}
	return false;
}

/* A folder of safetensors files without an index, each holding a whole
 * model: their paths (one model each); else nothing.  -1 with err set
 * (exit 4: out of memory). */
static int
expand_models_folder(const char *path, const name_list *all, char ***out, size_t *n_out,
		     ws_error *err)
{
	size_t files = 0;
	for (size_t i = 0; i < all->n; i++) {
		if (strstr(all->v[i], ".safetensors.index.") && ends_with(all->v[i], ".json"))
			return 0;
		files += ends_with(all->v[i], ".safetensors");
	}
	if (files < 2)
		return 0;
	ws_model *m = NULL;
	ws_error oerr = {0};
	if (ws_model_open(path, NULL, &m, &oerr)) {
		if (oerr.code != WS_EXIT_INTERNAL)
			return 0; /* reported when opened */
		*err = oerr;
		return -1;
	}
	char **res = m->folder_of_models ? calloc(m->n_files, sizeof *res) : NULL;
	int rc = m->folder_of_models && !res ? ws_err_oom(err, path) : 0;
	for (uint32_t f = 0; res && f < m->n_files; f++)
		if (!(res[f] = strdup(m->files[f].path))) {
			while (f)
				free(res[--f]);
			free(res);
			res = NULL;
			rc = ws_err_oom(err, path);
		}
	if (res) {
		*out = res;
		*n_out = m->n_files;
	}
	ws_model_free(m);
	return rc;
}

/* A GGUF's general.architecture (into arch) and the width it speaks: a
 * text model's embedding_length, a vision file's projection_dim (what
 * its projector outputs).  false when the file does not open. */
static bool
gguf_peek(const char *path, char *arch, size_t cap, uint64_t *width)
{
	ws_model *m = NULL;
	ws_error e = {0};
	const char *s;
	size_t n;
	*width = 0;
	arch[0] = '\0';
	if (ws_model_open(path, NULL, &m, &e))
		return false;
	const ws_kv *ak = ws_model_find_kv(m, "general.architecture");
	if (ak && ws_kv_get_str(ak, &s, &n) && n < cap && !memchr(s, 0, n)) {
		memcpy(arch, s, n);
		arch[n] = '\0';
		char key[96];
		snprintf(key, sizeof key, "%s.%s", arch,
			 strcmp(arch, "clip") ? "embedding_length" : "vision.projection_dim");
		const ws_kv *w = ws_model_find_kv(m, key);
		/* an audio file's projector: clip.audio.projection_dim */
		if (!w && !strcmp(arch, "clip"))
			w = ws_model_find_kv(m, "clip.audio.projection_dim");
		if (!w || !ws_kv_get_u64(w, width))
			*width = 0;
	}
	ws_model_free(m);
	return true;
}

/* A folder's vision files (mmproj) joined to the text models whose width
 * is their projector's output: vision[i] names the one joined to model
 * i (malloc'd) or is NULL; a vision file joined to none stays a model of
 * its own, one joined is not listed apart. */
static int
join_vision(char **res, size_t *k, char ***vision, ws_error *err, const char *dir)
{
	size_t n = *k;
	char (*arch)[64] = calloc(n ? n : 1, sizeof *arch);
	uint64_t *width = calloc(n ? n : 1, sizeof *width);
	bool *joined = calloc(n ? n : 1, sizeof *joined);
	char **v = calloc(n ? n : 1, sizeof *v);
	int rc = 0;
	if (!arch || !width || !joined || !v) {
		rc = ws_err_oom(err, dir);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		(void)gguf_peek(res[i], arch[i], sizeof arch[i], &width[i]);
	for (size_t j = 0; j < n; j++) {
		if (strcmp(arch[j], "clip") || !width[j])
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!arch[i][0] || !strcmp(arch[i], "clip") || width[i] != width[j] || v[i])
				continue;
			if (!(v[i] = strdup(res[j]))) {
				rc = ws_err_oom(err, dir);
				goto out;
			}
			joined[j] = true;
		}
	}
	/* drop the joined vision files from the list, keeping the order */
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (joined[i]) {
			free(res[i]);
			free(v[i]);
			continue;
		}
		res[w] = res[i];
		v[w++] = v[i];
	}
	*k = w;
	*vision = v;
	v = NULL;
out:
	if (v)
		for (size_t i = 0; i < n; i++)
			free(v[i]);
	free(v);
	free(arch);
	free(width);
	free(joined);
	return rc;
}

int
ws_expand_path(const char *path, char ***out, size_t *n_out, ws_error *err)
{
	return ws_expand_joined(path, out, NULL, n_out, err);
}

int
ws_expand_joined(const char *path, char ***out, char ***vision, size_t *n_out, ws_error *err)
{
	struct stat st;
	name_list all, gg = {0};
	char **res = NULL;
	size_t k = 0;
	ws_error lerr = {0};

	*out = NULL;
	*n_out = 0;
	if (vision)
		*vision = NULL;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || holds_canonical(path) ||
	    list_dir(path, &all, &lerr))
		return 0;
	/* safetensors (or an index) make the folder one model */
	bool safetensors = false;
	for (size_t i = 0; i < all.n && !safetensors; i++)
		safetensors = ends_with(all.v[i], ".safetensors") ||
			      ends_with(all.v[i], ".safetensors.index.json");
	int rc = 0;
	if (safetensors) {
		rc = expand_models_folder(path, &all, out, n_out, err);
		goto out;
	}
	if (with_suffix(&all, ".gguf", &gg) || !(res = calloc(gg.n ? gg.n : 1, sizeof *res))) {
		rc = ws_err_oom(err, path);
		goto out;
	}
	if (gg.n)
		qsort(gg.v, gg.n, sizeof *gg.v, cmp_str);
	for (size_t i = 0; i < gg.n; i++) {
		size_t pl, ql;
		/* later parts of a split set are reported with their first */
		if (i > 0 && split_part(gg.v[i], &pl) && split_part(gg.v[i - 1], &ql) &&
		    pl == ql && !strncmp(gg.v[i], gg.v[i - 1], pl))
			continue;
		if (!(res[k] = ws_path_join(path, gg.v[i]))) {
			rc = ws_err_oom(err, path);
			break;
		}
		k++;
	}
	/* a model with its vision file is listed even when it is the only
	 * one (the folder path alone would open the model's file) */
	bool any_joined = false;
	if (!rc && vision && k > 1 && (rc = join_vision(res, &k, vision, err, path)) == 0)
		for (size_t i = 0; i < k; i++)
			any_joined = any_joined || (*vision)[i];
	if (rc || (k < 2 && !any_joined)) {
		for (size_t i = 0; i < k; i++) {
			free(res[i]);
			if (vision && *vision)
				free((*vision)[i]);
		}
		free(res);
		if (vision) {
			free(*vision);
			*vision = NULL;
		}
	} else {
		*out = res;
		*n_out = k;
	}
out:
	free(gg.v);
	free_names(&all);
	return rc;
}

/* ==== sentence-transformers folders ==== */

/* modules.json lists a pipeline: the Transformer (weights and config at
 * the root, or in its own folder in older saves), then modules such as
 * Pooling, Normalize (no weights) and Dense (a linear layer of its own,
 * PATH/model.safetensors and PATH/config.json). */

#define ST_MAX_MODULES 64

/* Is mod's type the sentence-transformers module cls ("Dense")? */
static bool
st_is(const cJSON *mod, const char *cls)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(mod, "type");
	if (!cJSON_IsString(t))
		return false;
	const char *dot = strrchr(t->valuestring, '.');
	return !strcmp(dot ? dot + 1 : t->valuestring, cls);
}

static const char *
st_str(const cJSON *mod, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(mod, key);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* dir/modules.json, checked (an array of modules with relative paths),
 * into *out; *out NULL when the folder has none. */
static int
st_read_modules(const char *dir, cJSON **out, ws_error *err)
{
	*out = NULL;
	char *p = ws_path_join(dir, "modules.json");
	if (!p)
		return ws_err_oom(err, dir);
	struct stat st;
	if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(p);
		return 0;
	}
	cJSON *j = parse_json_file(p, err);
	int rc = j ? 0 : -1;
	if (j && (!cJSON_IsArray(j) || cJSON_GetArraySize(j) > ST_MAX_MODULES))
		rc = ws_err(err, WS_EXIT_INPUT, p, "expected an array of at most %d modules",
			    ST_MAX_MODULES);
	const cJSON *mod, *list = rc ? NULL : j;
	cJSON_ArrayForEach(mod, list) {
		const cJSON *path = cJSON_GetObjectItemCaseSensitive(mod, "path");
		if (!cJSON_IsObject(mod) || !cJSON_IsString(path) ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(mod, "type"))) {
			rc = ws_err(err, WS_EXIT_INPUT, p, "a module without a string 'path' and 'type'");
			break;
		}
		if (*path->valuestring && !safe_relative(path->valuestring)) {
			char *esc = ws_escape_text(path->valuestring, strlen(path->valuestring));
			rc = ws_err(err, WS_EXIT_INPUT, p, "module path '%s' leaves the folder", esc ? esc : "?");
			free(esc);
			break;
		}
	}
	free(p);
	if (rc)
		cJSON_Delete(j);
	else
		*out = j;
	return rc;
}

/* The folder holding the Transformer module's weights and config (malloc'd):
 * dir, or dir/PATH when modules.json puts it in a folder of its own. */
static char *
st_transformer_dir(const char *dir, const cJSON *mods)
{
	const cJSON *mod;
	cJSON_ArrayForEach(mod, mods)
		if (st_is(mod, "Transformer") && *st_str(mod, "path"))
			return ws_path_join(dir, st_str(mod, "path"));
	return strdup(dir);
}

/* A Dense module's sizes from PATH/config.json. */
static int
st_dense_config(ws_model *m, const char *sub, ws_st_module *md, ws_error *err)
{
	char *p = ws_path_join(sub, "config.json");
	if (!p)
		return ws_err_oom(err, sub);
	cJSON *j = parse_json_file(p, err);
	int rc = j ? 0 : -1;
	static const char *const keys[] = {"in_features", "out_features"};
	uint64_t *vals[] = {&md->in_features, &md->out_features};
	for (size_t i = 0; !rc && i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[i]);
		if (ws_json_count(v, vals[i]) != WS_JSON_COUNT_OK)
			rc = ws_err(err, WS_EXIT_INPUT, p, "config key '%s': expected a non-negative integer",
				    keys[i]);
	}
	const cJSON *b = j ? cJSON_GetObjectItemCaseSensitive(j, "bias") : NULL;
	if (!rc && b && !cJSON_IsBool(b))
		rc = ws_err(err, WS_EXIT_INPUT, p, "config key 'bias': expected true or false");
	md->bias = !b || cJSON_IsTrue(b);   /* Dense's default */
	md->dense = !rc;
	(void)m;
	cJSON_Delete(j);
	free(p);
	return rc;
}

/* Every module of mods into m->st_modules; the weights of those with a
 * PATH/model.safetensors read, their names prefixed "PATH.". */
static int
st_load_modules(ws_model *m, const char *dir, const cJSON *mods, ws_error *err)
{
	int n = cJSON_GetArraySize(mods), i = 0;
	m->st_modules = ws_model_alloc(m, (size_t)(n ? n : 1) * sizeof *m->st_modules);
	if (!m->st_modules)
		return ws_err_oom(err, dir);
	const cJSON *mod;
	cJSON_ArrayForEach(mod, mods) {
		ws_st_module *md = &m->st_modules[i++];
		memset(md, 0, sizeof *md);
		const char *name = st_str(mod, "name"), *path = st_str(mod, "path"), *type = st_str(mod, "type");
		if (!(md->name = ws_model_strndup(m, name, strlen(name))) ||
		    !(md->path = ws_model_strndup(m, path, strlen(path))) ||
		    !(md->type = ws_model_strndup(m, type, strlen(type))))
			return ws_err_oom(err, dir);
		m->n_st_modules = (uint32_t)i;
		if (!*path || st_is(mod, "Transformer"))
			continue;
		char *sub = ws_path_join(dir, path), *wf = sub ? ws_path_join(sub, "model.safetensors") : NULL;
		struct stat st;
		int rc = wf ? 0 : ws_err_oom(err, dir);
		if (!rc && stat(wf, &st) == 0 && S_ISREG(st.st_mode)) {
			uint64_t first = m->n_tensors;
			rc = ws_safetensors_load(m, wf, err);
			size_t pl = strlen(path);
			for (uint64_t k = first; !rc && k < m->n_tensors; k++) {
				ws_tensor *t = &m->tensors[k];
				char *nn = ws_model_alloc(m, pl + 1 + t->name_len + 1);
				if (!nn || pl + 1 + (uint64_t)t->name_len > UINT32_MAX) {
					rc = ws_err_oom(err, wf);
					break;
				}
				memcpy(nn, path, pl);
				nn[pl] = '.';
				memcpy(nn + pl + 1, t->name, t->name_len);
				nn[pl + 1 + t->name_len] = '\0';
				t->name = nn;
				t->name_len += (uint32_t)pl + 1;
			}
			md->weights = !rc;
		}
		if (!rc && st_is(mod, "Dense"))
			rc = st_dense_config(m, sub, md, err);
		free(wf);
		free(sub);
		if (rc)
			return -1;
	}
	return 0;
}

/* ==== diffusers pipelines ==== */

/* The component folders a pipeline's model_index.json may name, by the
 * start of their names (text_encoder_2, transformer_2), with their SPEC
 * kinds; the first denoiser (unet, transformer) is the main component. */
struct pipeline_part {
	const char *key, *kind;
};
static const struct pipeline_part pipeline_kinds[] = {
	{"unet", "unet"}, {"transformer", "transformer"}, {"vae", "vae"},
	{"text_encoder", "text_encoder"}, {"image_encoder", "vision"},
};

/* Append the unread files one component folder left (its variants not
 * read) to those of the folders before; -1 on OOM. */
static int
merge_unread(ws_model *m, const char **before, uint32_t n_before)
{
	if (!n_before)
		return 0;
	uint32_t n = m->n_unread_files;
	const char **all = ws_model_alloc(m, ((size_t)n_before + n) * sizeof *all);
	if (!all)
		return -1;
	memcpy(all, before, n_before * sizeof *all);
	if (n)
		memcpy(all + n_before, m->unread_files, n * sizeof *all);
	m->unread_files = all;
	m->n_unread_files = n_before + n;
	return 0;
}

/* One component folder of a pipeline: its weights (variants and an index
 * as in any folder), their names prefixed "KEY/", its config under KEY in
 * cfg.  1: no such folder (the index names a component not here). */
static int
load_pipeline_part(ws_model *m, const char *dir, const struct pipeline_part *pp, const char *want,
		   cJSON *cfg, struct ws_cat_part *part, ws_error *err)
{
	char *sub = ws_path_join(dir, pp->key), *cp = sub ? ws_path_join(sub, "config.json") : NULL;
	struct stat st;
	int rc = 0;
	if (!cp) {
		rc = ws_err_oom(err, dir);
		goto out;
	}
	if (stat(cp, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = 1;
		goto out;
	}
	cJSON *cc = parse_json_file(cp, err);
	if (!cc) {
		rc = -1;
		goto out;
	}
	if (!cJSON_IsObject(cc)) {
		cJSON_Delete(cc);
		rc = ws_err(err, WS_EXIT_INPUT, cp, "config.json is not a JSON object");
		goto out;
	}
	cJSON_AddItemToObject(cfg, pp->key, cc);
	uint64_t first = m->n_tensors;
	const char **ub = m->unread_files;
	uint32_t nb = m->n_unread_files;
	m->unread_files = NULL;
	m->n_unread_files = 0;
	m->index_first = first;
	size_t nf = m->n_findings;
	if (load_folder(m, sub, want, err) || merge_unread(m, ub, nb)) {
		rc = err->code ? -1 : ws_err_oom(err, sub);
		goto out;
	}
	/* what the folder's reading found (its variants) is the component's */
	for (size_t k = nf; k < m->n_findings; k++)
		if (!m->findings[k].component)
			m->findings[k].component = pp->key;
	/* the index was checked against this folder's tensors: the model's
	 * is none of the folders' */
	cJSON_Delete(m->index);
	m->index = NULL;
	free(m->index_path);
	m->index_path = NULL;
	size_t pl = strlen(pp->key) + 1;
	char *prefix = ws_model_alloc(m, pl + 1);
	if (!prefix) {
		rc = ws_err_oom(err, sub);
		goto out;
	}
	snprintf(prefix, pl + 1, "%s/", pp->key);
	for (uint64_t k = first; k < m->n_tensors; k++) {
		ws_tensor *t = &m->tensors[k];
		char *nn = pl + (uint64_t)t->name_len < UINT32_MAX ? ws_model_alloc(m, pl + t->name_len + 1) : NULL;
		if (!nn) {
			rc = ws_err_oom(err, sub);
			goto out;
		}
		memcpy(nn, prefix, pl);
		memcpy(nn + pl, t->name, t->name_len);
		nn[pl + t->name_len] = '\0';
		t->name = nn;
		t->name_len += (uint32_t)pl;
	}
	const char *cpath = ws_model_strndup(m, cp, strlen(cp));
	if (!cpath) {
		rc = ws_err_oom(err, sub);
		goto out;
	}
	*part = (struct ws_cat_part){.kind = pp->kind, .name = pp->key, .config = pp->key, .type = "",
				     .prefixes = {prefix}, .whole = true, .path = cpath};
out:
	free(cp);
	free(sub);
	return rc;
}

/* A diffusers folder: one model whose components are the folders its
 * model_index.json names, each with its config.json; the model's config
 * holds them under their names and names the main one. */
static int
load_pipeline(ws_model *m, const char *dir, const char *mi, const char *want, ws_error *err)
{
	cJSON *idx = parse_json_file(mi, err), *cfg = NULL;
	int rc = -1;
	if (!idx)
		return -1;
	if (!cJSON_IsObject(idx)) {
		ws_err(err, WS_EXIT_INPUT, mi, "model_index.json is not a JSON object");
		goto out;
	}
	size_t n = (size_t)cJSON_GetArraySize(idx);
	struct ws_cat_part *parts = ws_model_alloc(m, (n + 1) * sizeof *parts);
	if (!parts || !(cfg = cJSON_CreateObject())) {
		ws_err_oom(err, mi);
		goto out;
	}
	memset(parts, 0, (n + 1) * sizeof *parts);
	size_t np = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, idx) {
		/* [library, class]; a null class: the pipeline runs without it */
		if (!cJSON_IsArray(v) || !cJSON_IsString(cJSON_GetArrayItem(v, 1)) || !safe_relative(v->string) ||
		    strchr(v->string, '/') || cJSON_GetObjectItemCaseSensitive(cfg, v->string))
			continue;
		const struct pipeline_part *k = NULL;
		for (size_t i = 0; i < sizeof pipeline_kinds / sizeof pipeline_kinds[0] && !k; i++)
			if (!strncmp(v->string, pipeline_kinds[i].key, strlen(pipeline_kinds[i].key)))
				k = &pipeline_kinds[i];
		if (!k)
			continue;
		struct pipeline_part pp = {ws_model_strndup(m, v->string, strlen(v->string)), k->kind};
		if (!pp.key) {
			ws_err_oom(err, mi);
			goto out;
		}
		int r = load_pipeline_part(m, dir, &pp, want, cfg, &parts[np], err);
		if (r < 0)
			goto out;
		np += r == 0;
	}
	m->index_first = 0;
	/* the first denoiser is the main component */
	for (size_t i = 1; i < np; i++)
		if (!strcmp(parts[i].kind, "unet") || !strcmp(parts[i].kind, "transformer")) {
			if (strcmp(parts[0].kind, "unet") && strcmp(parts[0].kind, "transformer")) {
				struct ws_cat_part t = parts[i];
				memmove(parts + 1, parts, i * sizeof *parts);
				parts[0] = t;
			}
			break;
		}
	if (!np) {
		ws_err(err, WS_EXIT_INPUT, mi, "model_index.json names no component folder with a config.json here");
		goto out;
	}
	const cJSON *cn = cJSON_GetObjectItemCaseSensitive(idx, "_class_name");
	if ((cJSON_IsString(cn) && !cJSON_AddStringToObject(cfg, "_class_name", cn->valuestring)) ||
	    !cJSON_AddStringToObject(cfg, WS_PIPELINE_MAIN, parts[0].config) ||
	    !cJSON_AddStringToObject(cfg, WS_PIPELINE_MAIN_PATH, parts[0].path)) {
		ws_err_oom(err, mi);
		goto out;
	}
	m->format = WS_FORMAT_SAFETENSORS;
	m->parts = parts;
	if (!(m->config_path = strdup(mi))) {
		ws_err_oom(err, mi);
		goto out;
	}
	m->config = cfg;
	cfg = NULL;
	rc = 0;
out:
	cJSON_Delete(cfg);
	cJSON_Delete(idx);
	return rc;
}

/* ==== the entry point ==== */

static bool
is_gguf_file(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	bool yes = pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "GGUF", 4);
	close(fd);
	return yes;
}

static int
open_model(const char *path, const ws_open_opts *opts, ws_model **out, ws_error *err)
{
	struct stat st;
	char *snap = NULL, *cfg_dir = NULL;
	const char *target = path;
	int rc = -1;

	*out = NULL;
	if (ws_remote_is_url(path))
		return ws_remote_open(path, opts, out, err);
	char *cached = ws_hf_cache_resolve(path);
	if (cached) {
		int r = ws_model_open(cached, opts, out, err);
		free(cached);
		return r;
	}
	ws_model *m = ws_model_new(path);
	if (!m)
		return ws_err_oom(err, path);
	m->keep_truncated = opts && opts->allow_truncated;
	if (stat(path, &st) != 0) {
		ws_err_errno(err, path, errno, NULL);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		snap = hf_cache_snapshot(path);
		struct stat ss;
		if (snap && stat(snap, &ss) == 0 && S_ISDIR(ss.st_mode))
			target = snap;
		/* a diffusers pipeline: its component folders */
		char *mi = ws_path_join(target, "model_index.json");
		struct stat mst;
		if (!mi) {
			ws_err_oom(err, path);
			goto out;
		}
		if (stat(mi, &mst) == 0 && S_ISREG(mst.st_mode)) {
			int r = load_pipeline(m, target, mi, opts ? opts->variant : NULL, err);
			free(mi);
			if (r || !(cfg_dir = strdup(target))) {
				if (!r)
					ws_err_oom(err, path);
				goto out;
			}
			goto loaded;
		}
		free(mi);
		/* a sentence-transformers folder: its Transformer's weights
		 * and config, then the modules with weights of their own */
		cJSON *mods = NULL;
		if (st_read_modules(target, &mods, err))
			goto out;
		cfg_dir = mods ? st_transformer_dir(target, mods) : strdup(target);
		if (!cfg_dir) {
			cJSON_Delete(mods);
			ws_err_oom(err, path);
			goto out;
		}
		int r = load_folder(m, cfg_dir, opts ? opts->variant : NULL, err);
		if (!r && mods)
			r = st_load_modules(m, target, mods, err);
		cJSON_Delete(mods);
		if (r)
			goto out;
	} else {
		cfg_dir = ws_path_dir(path);
		if (!cfg_dir) {
			ws_err_oom(err, path);
			goto out;
		}
		int r;
		if (ends_with(path, ".index.json"))
			r = ws_safetensors_load_index(m, path, err);
		else if (ends_with(path, ".gguf") || is_gguf_file(path))
			r = ws_gguf_load(m, path, err);
		else
			r = ws_safetensors_load(m, path, err);
		/* a vision file (mmproj) joined as components */
		if (!r && opts && opts->vision_file)
			r = m->format == WS_FORMAT_GGUF ? ws_gguf_load_file(m, opts->vision_file, err)
				: ws_err(err, WS_EXIT_USAGE, path, "a vision file joins a GGUF model only");
		if (r)
			goto out;
	}
loaded:
	if (opts && opts->config_path) {
		if (load_config(m, opts->config_path, true, err))
			goto out;
	} else if (m->format == WS_FORMAT_SAFETENSORS && !m->parts) {
		char *cp = ws_path_join(cfg_dir, "config.json");
		if (!cp) {
			ws_err_oom(err, path);
			goto out;
		}
		int r = load_config(m, cp, false, err);
		free(cp);
		if (r)
			goto out;
	}
	if (opts && opts->base_path &&
	    !(m->base_path = ws_model_strndup(m, opts->base_path, strlen(opts->base_path)))) {
		ws_err_oom(err, path);
		goto out;
	}
	rc = 0;
out:
	free(snap);
	free(cfg_dir);
	if (rc) {
		ws_model_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int
ws_model_open(const char *path, const ws_open_opts *opts, ws_model **out, ws_error *err)
{
	int rc = open_model(path, opts, out, err);
	if (rc == 0 && ws_model_findings_ok(*out, err)) {
		ws_model_free(*out);
		*out = NULL;
		return -1;
	}
	return rc;
}

const ws_file *
ws_model_truncated(const ws_model *m)
{
	for (uint32_t i = 0; m && i < m->n_files; i++)
		if (m->files[i].expected_size > m->files[i].size)
			return &m->files[i];
	return NULL;
}

int
ws_weight_file_extent(const char *path, uint64_t *size, uint64_t *expected, ws_error *err)
{
	ws_model *m = ws_model_new(path);
	if (!m)
		return ws_err_oom(err, path);
	m->keep_truncated = true;
	int r = ends_with(path, ".gguf") || is_gguf_file(path) ? ws_gguf_load_file(m, path, err)
		: ws_safetensors_load(m, path, err);
	if (r == 0) {
		*size = m->files[0].size;
		*expected = m->files[0].expected_size;
	}
	ws_model_free(m);
	return r ? -1 : 0;
}

char *
ws_hf_cache_resolve(const char *path)
{
	struct stat st;
	const char *slash = path ? strchr(path, '/') : NULL;
	if (!slash || slash == path || !slash[1] || strchr(slash + 1, '/') || path[0] == '.' ||
	    stat(path, &st) == 0)
		return NULL;
	/* a repository id: letters, digits, '-', '_', '.' on each side */
	for (const char *p = path; *p; p++)
		if (p != slash && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return NULL;
	const char *cache = getenv("HF_HUB_CACHE"), *home = getenv("HF_HOME");
	char *hub = NULL, *dir = NULL;
	int r = cache && *cache ? asprintf(&hub, "%s", cache)
		: home && *home ? asprintf(&hub, "%s/hub", home)
		: getenv("HOME") ? asprintf(&hub, "%s/.cache/huggingface/hub", getenv("HOME")) : -1;
	if (r < 0)
		return NULL;
	r = asprintf(&dir, "%s/models--%.*s--%s", hub, (int)(slash - path), path, slash + 1);
	free(hub);
	if (r < 0)
		return NULL;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(dir);
		return NULL;
	}
	return dir;
}
