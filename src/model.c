/*
 * model.c - the model handle: its arena, files, tensors, metadata and
 * findings, and the dispatch from a PATH to the right reader.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "ws/formula.h"
#include "ws/util.h"

/* ==== arena: one owner for names, shapes and strings ==== */

/* A chunk's bookkeeping lies apart from its bytes: a chunk reserved for a
 * thread is not touched (its first page not faulted in) until the thread
 * writes it. */
typedef struct ws_arena {
	struct ws_arena *next;
	size_t used, cap;
	unsigned char *data;   /* cap bytes, 16-aligned (malloc or a mapping) */
} ws_arena;

#define ARENA_CHUNK (256u * 1024u)
#define ARENA_CHUNK_MAX (8u << 20)

/* A fresh chunk of cap bytes at the head of m's list: later allocations
 * come from it. */
static int
arena_push(ws_model *m, size_t cap)
{
	ws_arena *n = malloc(sizeof *n);
	unsigned char *data = n ? ws_big_realloc(NULL, 0, cap) : NULL;
	if (!data) {
		free(n);
		return -1;
	}
	n->data = data;
	n->used = 0;
	n->cap = cap;
	n->next = m->arena;
	m->arena = n;
	return 0;
}

void *
ws_model_alloc(ws_model *m, size_t size)
{
	ws_arena *a = m->arena;

	size = (size + 15u) & ~(size_t)15u;
	if (!a || a->cap - a->used < size) {
		/* chunks double up to 8 MB: a 46,848-tensor header's names take
		 * a few large (huge-page) chunks, not a dozen small ones */
		size_t cap = !a ? ARENA_CHUNK : a->cap < ARENA_CHUNK_MAX / 2 ? a->cap * 2
			     : ARENA_CHUNK_MAX;
		if (cap < size)
			cap = size;
		if (arena_push(m, cap))
			return NULL;
		a = m->arena;
	}
	void *p = a->data + a->used;
	a->used += size;
	return p;
}

void *
ws_model_alloc_zero(ws_model *m, size_t size)
{
	void *p = ws_model_alloc(m, size);
	/* a chunk of WS_BIG_MIN or more is a mapping of its own, zero-filled,
	 * whose rest no allocation has written (the arena only bumps): the
	 * pages are left for the first writer to fault in */
	if (p && m->arena->cap < WS_BIG_MIN)
		memset(p, 0, size);
	return p;
}

int
ws_model_reserve_arena(ws_model *m, size_t size)
{
	ws_arena *a = m->arena;
	return a && a->cap - a->used >= size ? 0 : arena_push(m, size);
}

char *
ws_model_strndup(ws_model *m, const char *s, size_t len)
{
	char *p = ws_model_alloc(m, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* ==== growing arrays ==== */

static bool
grow(void **arr, size_t elem, uint64_t n, uint64_t *cap)
{
	if (n < *cap)
		return true;
	uint64_t nc = *cap ? *cap * 2 : 64;
	if (nc > SIZE_MAX / elem)
		return false;
	void *p = realloc(*arr, nc * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = nc;
	return true;
}

/* Capacities live beside the arrays; kept in a side struct to keep the
 * public struct small. */
typedef struct model_priv {
	ws_model pub;
	uint64_t cap_tensors, cap_meta;
	uint32_t cap_files;
} model_priv;

ws_model *
ws_model_new(const char *path)
{
	model_priv *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->pub.path = strdup(path ? path : "");
	if (!p->pub.path) {
		free(p);
		return NULL;
	}
	return &p->pub;
}

ws_tensor *
ws_model_push_tensor(ws_model *m)
{
	model_priv *p = (model_priv *)m;
	if (m->n_tensors == p->cap_tensors &&
	    ws_model_reserve_tensors(m, p->cap_tensors ? p->cap_tensors : 64))
		return NULL;
	ws_tensor *t = &m->tensors[m->n_tensors++];
	ws_tensor_init(t);
	return t;
}

int
ws_model_reserve_tensors(ws_model *m, uint64_t n)
{
	model_priv *p = (model_priv *)m;
	uint64_t want;
	if (!ws_add_u64(m->n_tensors, n, &want) || want > SIZE_MAX / sizeof *m->tensors)
		return -1;
	if (want <= p->cap_tensors)
		return 0;
	/* geometric even here: 191 shards each reserving a few more must not
	 * copy the array 191 times */
	if (want < p->cap_tensors * 2 && p->cap_tensors * 2 <= SIZE_MAX / sizeof *m->tensors)
		want = p->cap_tensors * 2;
	void *t = ws_big_realloc(m->tensors, (size_t)p->cap_tensors * sizeof *m->tensors,
				 (size_t)want * sizeof *m->tensors);
	if (!t)
		return -1;
	m->tensors = t;
	p->cap_tensors = want;
	return 0;
}

uint64_t
ws_model_tensor_room(const ws_model *m)
{
	return ((const model_priv *)m)->cap_tensors - m->n_tensors;
}

void
ws_model_take_arena(ws_model *m, ws_model *from)
{
	/* from's chunks join m's list behind the chunk m allocates from */
	ws_arena *tail = from->arena;
	if (tail) {
		while (tail->next)
			tail = tail->next;
		if (m->arena) {
			tail->next = m->arena->next;
			m->arena->next = from->arena;
		} else {
			m->arena = from->arena;
		}
		from->arena = NULL;
	}
}

ws_kv *
ws_model_push_kv(ws_model *m)
{
	model_priv *p = (model_priv *)m;
	if (!grow((void **)&m->meta, sizeof *m->meta, m->n_meta, &p->cap_meta))
		return NULL;
	ws_kv *kv = &m->meta[m->n_meta++];
	memset(kv, 0, sizeof *kv);
	return kv;
}

const ws_kv *
ws_model_find_kv(const ws_model *m, const char *key)
{
	size_t len = strlen(key);
	for (uint64_t i = 0; i < m->n_meta; i++)
		if (m->meta[i].key_len == len && memcmp(m->meta[i].key, key, len) == 0)
			return &m->meta[i];
	return NULL;
}

/* ==== files ==== */

int
ws_model_open_file(ws_model *m, const char *path, ws_error *err)
{
	return ws_model_open_file_at(m, AT_FDCWD, path, path, err);
}

int
ws_model_open_file_at(ws_model *m, int dirfd, const char *name, const char *path,
		      ws_error *err)
{
	uint64_t size;
	const char *why;
	int fd = ws_open_regular(dirfd, name, &size, &why);
	if (fd < 0)
		return errno ? ws_err_errno(err, path, errno, why)
			     : ws_err(err, WS_EXIT_INPUT, path, "%s", why);
	return ws_model_adopt_fd(m, fd, size, path, err);
}

int
ws_open_regular(int dirfd, const char *name, uint64_t *size, const char **why)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO named like a shard is refused below, not waited
	 * on for a writer; it changes nothing for a regular file */
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		*why = "cannot open";
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		*why = "cannot stat";
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = 0;
		*why = "not a regular file";
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

int
ws_model_adopt_fd(ws_model *m, int fd, uint64_t size, const char *path, ws_error *err)
{
	model_priv *p = (model_priv *)m;
	uint64_t cap = p->cap_files;
	if (!grow((void **)&m->files, sizeof *m->files, m->n_files, &cap)) {
		close(fd);
		return ws_err_oom(err, path);
	}
	p->cap_files = (uint32_t)cap;
	ws_file *f = &m->files[m->n_files];
	memset(f, 0, sizeof *f);
	f->fd = fd;
	f->size = size;
	f->path = strdup(path);
	if (!f->path) {
		close(fd);
		return ws_err_oom(err, path);
	}
	return (int)m->n_files++;
}

int
ws_file_map(ws_file *f, uint64_t len, ws_error *err)
{
	if (len > f->size)
		len = f->size;
	if (!len || f->map)
		return 0;
	/* Read-only private mapping of the header part only: tensor data is
	 * read with pread, and a small mapping is cheap to make and undo. */
	/* A mapping smaller than the file is a header that is about to be read
	 * whole: populate it in one go instead of one fault per page.  One
	 * large enough to be parsed in pieces is read in by the threads that
	 * parse it, each its own part at once (safetensors.c). */
	int flags = MAP_PRIVATE | (len < f->size && len < WS_MAP_POPULATE_MAX ? MAP_POPULATE : 0);
	void *map = mmap(NULL, (size_t)len, PROT_READ, flags, f->fd, 0);
	if (map == MAP_FAILED)
		return ws_err(err, WS_EXIT_INPUT, f->path, "cannot map: %s", strerror(errno));
	f->map = map;
	f->map_len = len;
	return 0;
}

int
ws_file_pread(const ws_file *f, void *buf, size_t len, uint64_t off, ws_error *err)
{
	for (size_t got = 0; got < len;) {
		ssize_t r = pread(f->fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ws_err_at(err, f->path, off + got, "read error: %s", strerror(errno));
		if (r == 0)
			return ws_err_at(err, f->path, off + got,
					 "file ended while being read: it shrank");
		got += (size_t)r;
	}
	return 0;
}

int
ws_file_load_prefix(ws_file *f, uint64_t len, const uint8_t *have, size_t have_len,
		    ws_error *err)
{
	if (len > f->size)
		len = f->size;
	if (!len || f->map)
		return 0;
	if (len > WS_HEADER_READ_MAX)
		return ws_file_map(f, len, err);
	uint8_t *buf = malloc((size_t)len);
	if (!buf)
		return ws_err_oom(err, f->path);
	size_t got = have_len < len ? have_len : (size_t)len;
	memcpy(buf, have, got);
	if (ws_file_pread(f, buf + got, (size_t)len - got, got, err)) {
		free(buf);
		return -1;
	}
	f->map = buf;
	f->map_len = len;
	f->map_copied = true;
	return 0;
}

void
ws_model_release_headers(ws_model *m)
{
	if (m->format != WS_FORMAT_SAFETENSORS)
		return; /* a GGUF's metadata is read from its mapping */
	for (uint32_t i = 0; i < m->n_files; i++) {
		ws_file *f = &m->files[i];
		if (f->map && !f->map_copied && f->map_len >= WS_MAP_POPULATE_MAX) {
			ws_unmap_later((void *)f->map, (size_t)f->map_len);
			f->map = NULL;
			f->map_len = 0;
		}
	}
}

int
ws_model_add_file(ws_model *m, const char *path, ws_error *err)
{
	int idx = ws_model_open_file(m, path, err);
	if (idx >= 0 && ws_file_map(&m->files[idx], m->files[idx].size, err))
		return -1; /* the file stays in m->files; ws_model_free closes it */
	return idx;
}

/* A remote file: the header prefix fetched over HTTP stands in for the
 * mapping (buf is malloc'd, owned from here on), size is the remote size
 * and fd is -1 because there is no local data to pread. */
int
ws_model_add_buffer(ws_model *m, const char *path, uint8_t *buf, uint64_t len,
		    uint64_t size, ws_error *err)
{
	model_priv *p = (model_priv *)m;
	uint64_t cap = p->cap_files;

	if (!grow((void **)&m->files, sizeof *m->files, m->n_files, &cap)) {
		free(buf);
		return ws_err_oom(err, path);
	}
	p->cap_files = (uint32_t)cap;
	ws_file *f = &m->files[m->n_files];
	memset(f, 0, sizeof *f);
	f->fd = -1;
	f->path = strdup(path);
	if (!f->path) {
		free(buf);
		return ws_err_oom(err, path);
	}
	f->map = buf;
	f->map_len = len;
	f->map_copied = true;
	f->size = size;
	return (int)m->n_files++;
}

/* ==== findings ==== */

/* Test only (tests/test_findings.c): WS_FAIL_FINDING=N makes the Nth
 * finding this process records fail as if memory ran out, to show that
 * every command then exits 4.  Read once; unset or 0: never. */
static unsigned long fail_finding_at;
static _Atomic unsigned long findings_seen;

static void
read_fail_finding(void)
{
	const char *s = getenv("WS_FAIL_FINDING");
	fail_finding_at = s ? strtoul(s, NULL, 10) : 0;
}

static bool
finding_fails(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_fail_finding);
	return fail_finding_at && ++findings_seen == fail_finding_at;
}

/* A finding not recorded: the model remembers it, and the operation
 * that recorded it fails (ws_model_findings_ok), whatever its caller did
 * with this -1. */
static int
finding_lost(ws_model *m)
{
	m->findings_lost = true;
	return -1;
}

int
ws_model_findings_ok(const ws_model *m, ws_error *err)
{
	if (!m || !m->findings_lost)
		return 0;
	return ws_err_oom(err, m->path);
}

int
ws_model_add_finding(ws_model *m, ws_severity sev, const char *code,
		     const char *tensor, int role, int32_t layer,
		     bool has_expected, uint64_t expected, uint64_t actual,
		     const char *fmt, ...)
{
	uint64_t cap = m->cap_findings;
	if (finding_fails() ||
	    !grow((void **)&m->findings, sizeof *m->findings, m->n_findings, &cap))
		return finding_lost(m);
	m->cap_findings = (size_t)cap;

	ws_finding *f = &m->findings[m->n_findings];
	memset(f, 0, sizeof *f);
	char *raw = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	if (!raw)
		return finding_lost(m);
	/* whatever the callers put in (a model_type, a name), no control
	 * byte, ESC or invalid UTF-8 leaves here raw */
	f->message = ws_sanitize_text(raw, strlen(raw));
	free(raw);
	if (!f->message)
		return finding_lost(m);
	if (tensor && !(f->tensor = ws_sanitize_text(tensor, strlen(tensor)))) {
		free(f->message);
		return finding_lost(m);
	}
	f->severity = sev;
	f->code = code;
	f->role = role;
	f->layer = layer;
	f->has_expected = has_expected;
	f->expected = expected;
	f->actual = actual;
	m->n_findings++;
	return 0;
}

/* ==== lifetime ==== */

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Our descriptors, closed a run of consecutive numbers at a time: a
 * 191-shard checkpoint's are one run, one syscall instead of 191. */
static void
close_all(int *fds, size_t n)
{
	if (n > 1)
		qsort(fds, n, sizeof *fds, cmp_int);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && fds[j] == fds[j - 1] + 1; j++)
			;
		if (j - i == 1 || close_range((unsigned)fds[i], (unsigned)fds[j - 1], 0) != 0)
			for (size_t k = i; k < j; k++)
				close(fds[k]);
	}
}

void
ws_model_free(ws_model *m)
{
	if (!m)
		return;
	int *fds = m->n_files > 1 ? malloc(m->n_files * sizeof *fds) : NULL;
	size_t nfd = 0;
	for (uint32_t i = 0; i < m->n_files; i++) {
		ws_file *f = &m->files[i];
		if (f->map_copied)
			free((void *)f->map);
		else if (f->map)
			munmap((void *)f->map, (size_t)f->map_len);
		if (f->fd >= 0 && fds)
			fds[nfd++] = f->fd;
		else if (f->fd >= 0)
			close(f->fd);
		free(f->path);
	}
	close_all(fds, nfd);
	free(fds);
	free(m->files);
	ws_big_free(m->tensors, (size_t)((model_priv *)m)->cap_tensors * sizeof *m->tensors);
	free(m->meta);
	for (size_t i = 0; i < m->n_findings; i++) {
		free(m->findings[i].message);
		free(m->findings[i].tensor);
	}
	free(m->findings);
	cJSON_Delete(m->config);
	cJSON_Delete(m->index);
	free(m->config_path);
	free(m->index_path);
	free(m->adapter);
	/* m->arch and m->formula are freed here, and the other components' */
	for (uint32_t i = 0; i < m->n_components; i++)
		ws_component_release(&m->components[i]);
	if (m->arch) {
		ws_arch_free(m->arch);
		free(m->arch);
	}
	if (m->formula) {
		ws_formula_free(m->formula);
		free(m->formula);
	}
	for (ws_arena *a = m->arena, *n; a; a = n) {
		n = a->next;
		ws_big_free(a->data, a->cap);
		free(a);
	}
	free(m->path);
	free(m);
}
