/*
 * hash.c - the hashing engine (a pool of pread workers), manifest lines
 * (writing, escaping, parsing) and `hash`: PATHs to manifest lines.
 *
 * A job reads its range once, in WS_HASH_BUF chunks, and feeds every
 * digest it asked for plus the XXH3 states of the tensors the chunk
 * overlaps.  Tensors of a valid file do not overlap, so only one or two
 * tensor states are live at a time whatever the tensor count.
 */
#include <assert.h>
#include <dlfcn.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "internal.h"
#include "xxh.h"
#include "ws/hash.h"
#include "ws/util.h"

/* ==== small helpers ==== */

void
ws_hex(const uint8_t *d, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = '\0';
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool
ws_unhex(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

unsigned
ws_hash_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1u : n > 256 ? 256u : (unsigned)n;
}

/* ==== Git LFS pointers ==== */

#define LFS_VERSION "version https://git-lfs.github.com/spec/v1\n"

bool
ws_lfs_pointer_parse(const char *buf, size_t len, char oid_hex[65],
		     uint64_t *size)
{
	size_t vl = strlen(LFS_VERSION);
	bool have_oid = false, have_size = false;

	/* The spec caps pointers well under 1 KiB. */
	if (len > 1024 || len < vl || memcmp(buf, LFS_VERSION, vl) != 0)
		return false;
	for (size_t i = vl; i < len;) {
		const char *line = buf + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - line) : len - i;
		i += ll + 1;
		if (ll == 11 + 64 && memcmp(line, "oid sha256:", 11) == 0) {
			uint8_t tmp[32];
			if (!ws_unhex(line + 11, 32, tmp))
				return false;
			ws_hex(tmp, 32, oid_hex);
			have_oid = true;
		} else if (ll > 5 && memcmp(line, "size ", 5) == 0) {
			uint64_t v = 0;
			for (size_t k = 5; k < ll; k++) {
				if (line[k] < '0' || line[k] > '9' ||
				    !ws_mul_u64(v, 10, &v) ||
				    !ws_add_u64(v, (uint64_t)(line[k] - '0'), &v))
					return false;
			}
			*size = v;
			have_size = true;
		}
	}
	return have_oid && have_size;
}

void
ws_lfs_message(const char *oid_hex, uint64_t size, char *buf, size_t len)
{
	snprintf(buf, len,
		 "an LFS pointer for a %llu-byte file with sha256 %s; the weights were not downloaded",
		 (unsigned long long)size, oid_hex);
}

/* ==== the engine ==== */

typedef struct pool {
	ws_hash_job *jobs;
	size_t *order;          /* biggest first, for balance */
	size_t n;
	unsigned split;         /* > 1: one job, read by this many threads */
	atomic_size_t next;
	atomic_uint_fast64_t done;
	atomic_uint running;
} pool;

typedef struct job_state {
	XXH3_state_t *xxh;
	EVP_MD_CTX *sha256, *sha1;
	/* the short digests xxhsum also writes: verify only, so plain
	 * states rather than the dispatched bulk update */
	XXH32_state_t *x32;
	XXH64_state_t *x64;
	XXH3_state_t *x3_64;
	XXH3_state_t **sub;     /* one per sub, created when first touched */
	EVP_MD_CTX **subsha;    /* the same, when subs take SHA-256 */
} job_state;

static void
canon128(XXH128_hash_t h, uint8_t out[16])
{
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	memcpy(out, c.digest, 16);
}

static void sub_sha_finish(job_state *st, ws_hash_sub *s, size_t k);

static void
sub_finish(job_state *st, ws_hash_sub *s, size_t k)
{
	if (st->subsha) {
		sub_sha_finish(st, s, k);
		return;
	}
	if (st->sub[k]) {
		canon128(XXH3_128bits_digest(st->sub[k]), s->xxh128);
		XXH3_freeState(st->sub[k]);
		st->sub[k] = NULL;
	} else {
		canon128(XXH3_128bits(NULL, 0), s->xxh128);
	}
}

/* libcrypto is loaded on the first SHA digest, not at start: mapping and
 * relocating it costs ~1.2 ms, more than inspecting 191 shards. */
static struct evp_api {
	EVP_MD_CTX *(*ctx_new)(void);
	void (*ctx_free)(EVP_MD_CTX *);
	int (*init)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
	int (*update)(EVP_MD_CTX *, const void *, size_t);
	int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
	const EVP_MD *(*sha256)(void);
	const EVP_MD *(*sha1)(void);
} evp;
static bool evp_ok;
static pthread_once_t evp_once = PTHREAD_ONCE_INIT;

static const struct {
	const char *name;
	size_t off;
} evp_syms[] = {
	{"EVP_MD_CTX_new", offsetof(struct evp_api, ctx_new)},
	{"EVP_MD_CTX_free", offsetof(struct evp_api, ctx_free)},
	{"EVP_DigestInit_ex", offsetof(struct evp_api, init)},
	{"EVP_DigestUpdate", offsetof(struct evp_api, update)},
	{"EVP_DigestFinal_ex", offsetof(struct evp_api, final)},
	{"EVP_sha256", offsetof(struct evp_api, sha256)},
	{"EVP_sha1", offsetof(struct evp_api, sha1)},
};

static void
evp_load(void)
{
	void *h = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	for (size_t i = 0; i < sizeof evp_syms / sizeof evp_syms[0]; i++) {
		void *f = dlsym(h, evp_syms[i].name);
		if (!f)
			return;
		/* POSIX: a dlsym result converts to a function pointer */
		memcpy((char *)&evp + evp_syms[i].off, &f, sizeof f);
	}
	evp_ok = true;
}

static void
job_state_free(job_state *st, size_t n_subs)
{
	XXH3_freeState(st->xxh);
	XXH32_freeState(st->x32);
	XXH64_freeState(st->x64);
	XXH3_freeState(st->x3_64);
	if (st->subsha)
		for (size_t k = 0; k < n_subs; k++)
			if (st->subsha[k])
				evp.ctx_free(st->subsha[k]);
	free(st->subsha);
	if (st->sha256)
		evp.ctx_free(st->sha256);
	if (st->sha1)
		evp.ctx_free(st->sha1);
	if (st->sub)
		for (size_t k = 0; k < n_subs; k++)
			XXH3_freeState(st->sub[k]);
	free(st->sub);
	memset(st, 0, sizeof *st);
}

static int
md_init(EVP_MD_CTX **ctx, bool sha256)
{
	pthread_once(&evp_once, evp_load);
	if (!evp_ok)
		return -1;
	*ctx = evp.ctx_new();
	return *ctx && evp.init(*ctx, sha256 ? evp.sha256() : evp.sha1(), NULL) == 1 ? 0 : -1;
}

static void
sub_sha_finish(job_state *st, ws_hash_sub *s, size_t k)
{
	EVP_MD_CTX *c = st->subsha[k];
	if (!c && md_init(&c, true) != 0) {
		memset(s->sha256, 0, sizeof s->sha256); /* cannot be: probed at start */
		return;
	}
	evp.final(c, s->sha256, NULL);
	evp.ctx_free(c);
	st->subsha[k] = NULL;
}

static int
job_state_init(ws_hash_job *j, job_state *st, uint64_t len)
{
	memset(st, 0, sizeof *st);
	if ((j->algos & WS_HASH_XXH128) &&
	    (!(st->xxh = XXH3_createState()) || XXH3_128bits_reset(st->xxh) != XXH_OK))
		return -1;
	if ((j->algos & WS_HASH_SHA256) && md_init(&st->sha256, true) != 0)
		return -1;
	if ((j->algos & (WS_HASH_SHA1 | WS_HASH_GITBLOB)) &&
	    md_init(&st->sha1, false) != 0)
		return -1;
	if (j->algos & WS_HASH_GITBLOB) {
		/* git hashes the object header, NUL included, before the content */
		char hdr[40];
		int hl = snprintf(hdr, sizeof hdr, "blob %llu", (unsigned long long)len);
		if (evp.update(st->sha1, hdr, (size_t)hl + 1) != 1)
			return -1;
	}
	if ((j->algos & WS_HASH_XXH32) && (!(st->x32 = XXH32_createState()) ||
					    XXH32_reset(st->x32, 0) != XXH_OK))
		return -1;
	if ((j->algos & WS_HASH_XXH64) && (!(st->x64 = XXH64_createState()) ||
					    XXH64_reset(st->x64, 0) != XXH_OK))
		return -1;
	if ((j->algos & WS_HASH_XXH3_64) && (!(st->x3_64 = XXH3_createState()) ||
					      XXH3_64bits_reset(st->x3_64) != XXH_OK))
		return -1;
	if (j->n_subs && j->sub_sha256) {
		EVP_MD_CTX *probe;
		if (md_init(&probe, true) != 0)
			return -1; /* no libcrypto: say so before reading */
		evp.ctx_free(probe);
		if (!(st->subsha = calloc(j->n_subs, sizeof *st->subsha)))
			return -1;
	}
	if (j->n_subs && !(st->sub = calloc(j->n_subs, sizeof *st->sub)))
		return -1;
	return 0;
}

/* Feed chunk [a, a+n) to every sub it overlaps; finish the subs that end
 * inside it.  *lo is the first sub not finished yet. */
static int
feed_subs(ws_hash_job *j, job_state *st, size_t *lo, const uint8_t *buf,
	  uint64_t a, uint64_t n)
{
	uint64_t b = a + n;
	for (size_t k = *lo; k < j->n_subs && j->subs[k].offset < b; k++) {
		ws_hash_sub *s = &j->subs[k];
		uint64_t se = s->offset + s->length;
		if (se <= a)
			continue;
		uint64_t oa = s->offset > a ? s->offset : a;
		uint64_t ob = se < b ? se : b;
		if (st->subsha) {
			if ((!st->subsha[k] && md_init(&st->subsha[k], true) != 0) ||
			    evp.update(st->subsha[k], buf + (oa - a), (size_t)(ob - oa)) != 1)
				return -1;
			continue;
		}
		if (!st->sub[k]) {
			if (!(st->sub[k] = XXH3_createState()) ||
			    XXH3_128bits_reset(st->sub[k]) != XXH_OK)
				return -1;
		}
		ws_xxh3_128_update(st->sub[k], buf + (oa - a), (size_t)(ob - oa));
	}
	while (*lo < j->n_subs && j->subs[*lo].offset + j->subs[*lo].length <= b) {
		sub_finish(st, &j->subs[*lo], *lo);
		(*lo)++;
	}
	return 0;
}

/* A job's file opened and checked, its range [*start, *end) and its
 * digests begun; false with j->err set (and nothing left open). */
static bool
job_begin(ws_hash_job *j, job_state *st, int *fdp, bool *own, uint64_t *startp,
	  uint64_t *endp)
{
	struct stat sb;
	int fd = j->fd;
	uint64_t start = j->offset, len, end;

	*own = false;
	j->status = WS_JOB_ERROR;
	if (fd < 0) {
		fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: refused below */
		if (fd < 0) {
			int e = errno;
			if (e == ENOENT || e == ENOTDIR)
				j->status = WS_JOB_MISSING;
			ws_err(&j->err, WS_EXIT_INPUT, j->path, "cannot open: %s", strerror(e));
			return false;
		}
		*own = true;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		ws_err(&j->err, WS_EXIT_INPUT, j->path, "not a readable regular file");
		goto fail;
	}
	uint64_t fsize = (uint64_t)sb.st_size;
	if (start > fsize) {
		ws_err_at(&j->err, j->path, fsize, "range starts at %llu, past the end of the file",
			  (unsigned long long)start);
		goto fail;
	}
	len = j->length == WS_HASH_TO_END ? fsize - start : j->length;
	if (!ws_add_u64(start, len, &end) || end > fsize) {
		ws_err_at(&j->err, j->path, fsize,
			  "range %llu+%llu extends past the end of the file (%llu bytes)",
			  (unsigned long long)start, (unsigned long long)len,
			  (unsigned long long)fsize);
		goto fail;
	}
	for (size_t k = 0; k < j->n_subs; k++) {
		uint64_t se;
		assert(k == 0 || j->subs[k - 1].offset <= j->subs[k].offset);
		if (j->subs[k].offset < start ||
		    !ws_add_u64(j->subs[k].offset, j->subs[k].length, &se) || se > end) {
			ws_err_at(&j->err, j->path, j->subs[k].offset,
				  "tensor data extends past the end of the file (%llu bytes)",
				  (unsigned long long)fsize);
			goto fail;
		}
	}
	if (job_state_init(j, st, len) != 0) {
		job_state_free(st, j->n_subs);
		ws_err_oom(&j->err, j->path);
		j->err.code = WS_EXIT_INTERNAL;
		goto fail;
	}
	posix_fadvise(fd, (off_t)start, (off_t)len, POSIX_FADV_SEQUENTIAL);
	*fdp = fd;
	*startp = start;
	*endp = end;
	return true;
fail:
	if (*own)
		close(fd);
	return false;
}

/* Bytes [pos, pos + n) of the job, the next in order, into every digest
 * and the subs they overlap; false with j->err set. */
static bool
job_feed(pool *p, ws_hash_job *j, job_state *st, size_t *lo, const uint8_t *buf,
	 uint64_t pos, uint64_t n)
{
	if (st->xxh)
		ws_xxh3_128_update(st->xxh, buf, (size_t)n);
	if (st->x32)
		XXH32_update(st->x32, buf, (size_t)n);
	if (st->x64)
		XXH64_update(st->x64, buf, (size_t)n);
	if (st->x3_64)
		XXH3_64bits_update(st->x3_64, buf, (size_t)n);
	if ((st->sha256 && evp.update(st->sha256, buf, (size_t)n) != 1) ||
	    (st->sha1 && evp.update(st->sha1, buf, (size_t)n) != 1) ||
	    (j->n_subs && feed_subs(j, st, lo, buf, pos, n) != 0)) {
		ws_err(&j->err, WS_EXIT_INTERNAL, j->path, "out of memory or digest failure");
		return false;
	}
	atomic_fetch_add(&p->done, n);
	return true;
}

/* The digests finished: the job is done. */
static void
job_finish(ws_hash_job *j, job_state *st, size_t lo, uint64_t len)
{
	for (; lo < j->n_subs; lo++)
		sub_finish(st, &j->subs[lo], lo);
	if (st->xxh)
		canon128(XXH3_128bits_digest(st->xxh), j->digest.xxh128);
	if (st->sha256)
		evp.final(st->sha256, j->digest.sha256, NULL);
	if (st->sha1)
		evp.final(st->sha1, j->digest.sha1, NULL);
	if (st->x32) {
		XXH32_canonical_t c;
		XXH32_canonicalFromHash(&c, XXH32_digest(st->x32));
		memcpy(j->digest.xxh32, c.digest, 4);
	}
	if (st->x64) {
		XXH64_canonical_t c;
		XXH64_canonicalFromHash(&c, XXH64_digest(st->x64));
		memcpy(j->digest.xxh64, c.digest, 8);
	}
	if (st->x3_64) {
		XXH64_canonical_t c;
		XXH64_canonicalFromHash(&c, XXH3_64bits_digest(st->x3_64));
		memcpy(j->digest.xxh3_64, c.digest, 8);
	}
	j->size = len;
	j->status = WS_JOB_OK;
}

/* A pread that failed or came up short, at pos: the job's error. */
static void
read_error(ws_hash_job *j, uint64_t pos, uint64_t end, int e)
{
	if (e)
		ws_err_at(&j->err, j->path, pos, "read error: %s", strerror(e));
	else /* the file shrank since it was opened: report, never SIGBUS */
		ws_err_at(&j->err, j->path, pos,
			  "file ended while being read (expected %llu bytes): it shrank",
			  (unsigned long long)end);
}

/* Bytes [pos, pos + want) of fd into buf; how many were read: want, or
 * fewer with *e the errno, or 0 when the file ended first. */
static uint64_t
read_chunk(int fd, uint8_t *buf, uint64_t pos, uint64_t want, int *e)
{
	uint64_t got = 0;
	*e = 0;
	while (got < want) {
		ssize_t r = pread(fd, buf + got, (size_t)(want - got), (off_t)(pos + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			*e = r < 0 ? errno : 0;
			break;
		}
		got += (uint64_t)r;
	}
	return got;
}

static void
run_job(pool *p, ws_hash_job *j, uint8_t *buf)
{
	job_state st;
	int fd;
	bool own;
	uint64_t start, end, pos;
	size_t lo = 0;

	if (!job_begin(j, &st, &fd, &own, &start, &end))
		return;
	for (pos = start; pos < end;) {
		uint64_t want = end - pos < WS_HASH_BUF ? end - pos : WS_HASH_BUF;
		int e;
		uint64_t got = read_chunk(fd, buf, pos, want, &e);
		if (got < want) {
			read_error(j, pos + got, end, e);
			break;
		}
		if (!job_feed(p, j, &st, &lo, buf, pos, got))
			break;
		pos += got;
	}
	if (pos == end)
		job_finish(j, &st, lo, end - start);
	job_state_free(&st, j->n_subs);
	if (own)
		close(fd);
}

/* ==== one job, several threads ====
 *
 * Most of the time of hashing a file in page cache is the kernel copying
 * it (pread): one job with threads to spare is read by all of them at
 * once, a chunk each, and each hashes the chunk it read when its turn
 * comes, so the digests see the bytes in order and the copies overlap. */
typedef struct split {
	pool *p;
	ws_hash_job *j;
	job_state st;
	int fd;
	uint64_t start, end;
	size_t lo;                      /* subs finished */
	atomic_uint_fast64_t next_read; /* the next chunk to claim */
	atomic_uint_fast64_t next_feed; /* the chunk whose turn it is */
	atomic_bool stop;               /* an error was met: no more turns */
} split;

static bool
my_turn(split *sp, uint64_t c)
{
	return atomic_load_explicit(&sp->next_feed, memory_order_acquire) == c ||
	       atomic_load(&sp->stop);
}

/* A turn comes within a chunk's digest time (microseconds for XXH3, ~100
 * for SHA-256): spin, then yield; measured, sleeping on a futex instead
 * is slower for both, its wake-ups late on a VM. */
static void
wait_turn(split *sp, uint64_t c)
{
	for (unsigned spins = 0; !my_turn(sp, c); spins++)
		if (spins > 64)
			sched_yield();
}

static void
pass_turn(split *sp, uint64_t next)
{
	atomic_store_explicit(&sp->next_feed, next, memory_order_release);
}

static void *
split_worker(void *arg)
{
	split *sp = arg;
	uint8_t *buf = malloc(WS_HASH_BUF);
	uint64_t n_chunks = (sp->end - sp->start + WS_HASH_BUF - 1) / WS_HASH_BUF;

	for (;;) {
		uint64_t c = atomic_fetch_add(&sp->next_read, 1);
		if (c >= n_chunks)
			break;
		uint64_t pos = sp->start + c * WS_HASH_BUF;
		uint64_t want = sp->end - pos < WS_HASH_BUF ? sp->end - pos : WS_HASH_BUF;
		int e = 0;
		uint64_t got = buf ? read_chunk(sp->fd, buf, pos, want, &e) : 0;
		/* chunk c's turn: the one before it is fed */
		wait_turn(sp, c);
		if (atomic_load(&sp->stop))
			break;
		bool ok = false;
		if (!buf) {
			ws_err_oom(&sp->j->err, sp->j->path);
			sp->j->err.code = WS_EXIT_INTERNAL;
		} else if (got < want) {
			read_error(sp->j, pos + got, sp->end, e);
		} else {
			ok = job_feed(sp->p, sp->j, &sp->st, &sp->lo, buf, pos, got);
		}
		if (!ok)
			atomic_store(&sp->stop, true);
		pass_turn(sp, c + 1);
		if (!ok)
			break;
	}
	free(buf);
	return NULL;
}

static void
run_split(pool *p, ws_hash_job *j, unsigned threads)
{
	split sp = {.p = p, .j = j};
	bool own;
	pthread_t tid[8];
	unsigned started = 0;

	if (!job_begin(j, &sp.st, &sp.fd, &own, &sp.start, &sp.end))
		return;
	if (threads > 8)
		threads = 8;
	for (unsigned t = 1; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, split_worker, &sp) != 0)
			break;
		started++;
	}
	split_worker(&sp);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t + 1], NULL);
	if (!atomic_load(&sp.stop))
		job_finish(j, &sp.st, sp.lo, sp.end - sp.start);
	job_state_free(&sp.st, j->n_subs);
	if (own)
		close(sp.fd);
}

static void *
worker(void *arg)
{
	pool *p = arg;
	uint8_t *buf = malloc(WS_HASH_BUF);

	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		ws_hash_job *j = &p->jobs[p->order[i]];
		if (!buf) {
			j->status = WS_JOB_ERROR;
			ws_err_oom(&j->err, j->path);
			continue;
		}
		if (p->split > 1)
			run_split(p, j, p->split);
		else
			run_job(p, j, buf);
	}
	free(buf);
	atomic_fetch_sub(&p->running, 1);
	return NULL;
}

static uint64_t
job_estimate(const ws_hash_job *j)
{
	struct stat sb;
	if (j->length != WS_HASH_TO_END)
		return j->length;
	if ((j->fd >= 0 ? fstat(j->fd, &sb) : stat(j->path, &sb)) != 0 ||
	    (uint64_t)sb.st_size < j->offset)
		return 0;
	return (uint64_t)sb.st_size - j->offset;
}

/* Largest job first; ctx is the sizes array (qsort_r: no shared state). */
static int
cmp_order(const void *a, const void *b, void *ctx)
{
	const uint64_t *sizes = ctx;
	uint64_t x = sizes[*(const size_t *)a], y = sizes[*(const size_t *)b];
	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

int
ws_hash_run(ws_hash_job *jobs, size_t n, unsigned threads,
	    ws_progress_fn progress, void *ctx, ws_error *err)
{
	pool p = {.jobs = jobs, .n = n};
	uint64_t total = 0;
	uint64_t *sizes = calloc(n ? n : 1, sizeof *sizes);
	pthread_t tid[256];
	unsigned started = 0;

	p.order = malloc((n ? n : 1) * sizeof *p.order);
	if (!sizes || !p.order) {
		free(sizes);
		free(p.order);
		return ws_err_oom(err, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		jobs[i].status = WS_JOB_PENDING;
		memset(&jobs[i].err, 0, sizeof jobs[i].err);
		sizes[i] = job_estimate(&jobs[i]);
		p.order[i] = i;
		ws_add_u64(total, sizes[i], &total);
	}
	qsort_r(p.order, n, sizeof *p.order, cmp_order, sizes);

	if (threads == 0)
		threads = ws_hash_default_threads();
	if (threads > 256)
		threads = 256;
	/* One file: its reads shared by the threads, from one worker, when a
	 * SHA digest is slower than the copy.  XXH3 alone keeps up with one
	 * reader: split, the turns only cost (512 MiB in page cache, 2 cores:
	 * 58 ms with one thread, 154 ms split). */
	bool slow = n == 1 && ((jobs[0].algos & (WS_HASH_SHA256 | WS_HASH_SHA1 | WS_HASH_GITBLOB)) ||
			       (jobs[0].sub_sha256 && jobs[0].n_subs));
	if (n == 1 && threads > 1 && slow) {
		p.split = threads;
		threads = 1;
	}
	if (threads > n)
		threads = n ? (unsigned)n : 1;
	atomic_store(&p.running, threads);
	for (unsigned t = 0; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, worker, &p) != 0)
			break;
		started++;
	}
	if (started < threads)
		atomic_fetch_sub(&p.running, threads - started);
	if (started == 0) {
		/* No thread could start: do the work here. */
		atomic_store(&p.running, 1);
		worker(&p);
	}
	if (progress) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		while (atomic_load(&p.running) > 0) {
			progress(ctx, atomic_load(&p.done), total);
			nanosleep(&ts, NULL);
		}
		progress(ctx, atomic_load(&p.done), total);
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	free(sizes);
	free(p.order);
	return 0;
}

/* ==== manifest lines ==== */

static bool
needs_escape(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\\' || s[i] == '\n' || s[i] == '\r' || s[i] == '\0')
			return true;
	return false;
}

static void
put_escaped(FILE *f, const char *s, size_t len)
{
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		const char *e = s[i] == '\\' ? "\\\\" : s[i] == '\n' ? "\\n"
			: s[i] == '\r' ? "\\r" : s[i] == '\0' ? "\\0" : NULL;
		if (!e) {
			run++;
			continue;
		}
		fwrite(s + i - run, 1, run, f);
		run = 0;
		fputs(e, f);
	}
	fwrite(s + len - run, 1, run, f);
}

/* Would a terminal see s[0..len) other than as plain text (control bytes,
 * ESC sequences, invalid UTF-8, C1 or bidi controls)?  A backslash alone
 * is harmless there.  Out of memory counts as unsafe: escaping is safe. */
static bool
tty_unsafe(const char *s, size_t len)
{
	char *e = ws_sanitize_text(s, len);
	bool unsafe = !e || strlen(e) != len || memcmp(e, s, len) != 0;
	free(e);
	return unsafe;
}

static bool
is_tty(FILE *f)
{
	int fd = fileno(f);
	return fd >= 0 && isatty(fd);
}

/* A manifest line.  Files and pipes get the coreutils form byte for byte
 * (what `xxhsum -c` / `sha256sum -c` read back).  A terminal gets a name
 * with control characters in the \xNN form of ws_fput_escaped instead,
 * so a hostile tensor name cannot drive it; that line is for reading,
 * not for checking. */
static int
put_line(FILE *f, bool tty, const uint8_t *digest, size_t n, const char *prefix,
	 const char *name, size_t len)
{
	char hex[2 * WS_SHA256_LEN + 1];
	bool show = tty && tty_unsafe(name, len);
	bool esc = !show && (needs_escape(prefix, strlen(prefix)) || needs_escape(name, len));

	ws_hex(digest, n, hex);
	if (esc)
		fputc('\\', f);
	fputs(hex, f);
	fputs("  ", f);
	fputs(prefix, f);
	if (show)
		ws_fput_escaped(f, name, len);
	else if (esc)
		put_escaped(f, name, len);
	else
		fwrite(name, 1, len, f);
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int
ws_manifest_put_line(FILE *f, const uint8_t *digest, size_t n,
		     const char *prefix, const char *name, size_t len)
{
	return put_line(f, is_tty(f), digest, n, prefix, name, len);
}

#define MANIFEST_MAX_LINE (64u * 1024u)

/* Unescape s[0..len) in place; new length or -1 for an unknown escape. */
static long
unescape(char *s, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\') {
			s[o++] = s[i];
			continue;
		}
		if (++i == len)
			return -1;
		char c = s[i] == '\\' ? '\\' : s[i] == 'n' ? '\n' : s[i] == 'r' ? '\r'
			: s[i] == '0' ? '\0' : 'x';
		if (c == 'x')
			return -1;
		s[o++] = c;
	}
	return (long)o;
}

/* The digests verify knows: one line each, the BSD tag first. */
static const struct algo_info {
	unsigned algo;
	const char *tag;       /* BSD form: `TAG (name) = hex` */
	size_t len;            /* digest bytes */
} algos[] = {
	{WS_HASH_XXH128, "XXH128", WS_XXH128_LEN},
	{WS_HASH_SHA256, "SHA256", WS_SHA256_LEN},
	{WS_HASH_SHA1, "SHA1", WS_SHA1_LEN},
	{WS_HASH_XXH3_64, "XXH3", 8},
	{WS_HASH_XXH64, "XXH64", 8},
	{WS_HASH_XXH32, "XXH32", 4},
	{WS_HASH_GITBLOB, "GITBLOB", WS_SHA1_LEN},
};

static const struct algo_info *
algo_info(unsigned algo)
{
	for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++)
		if (algos[i].algo == algo)
			return &algos[i];
	return NULL;
}

size_t
ws_hash_algo_len(unsigned algo)
{
	const struct algo_info *a = algo_info(algo);
	return a ? a->len : 0;
}

const char *
ws_hash_algo_name(unsigned algo)
{
	const struct algo_info *a = algo_info(algo);
	return a ? a->tag : "?";
}

const uint8_t *
ws_digest_of(const ws_digest *d, unsigned algo)
{
	switch (algo) {
	case WS_HASH_XXH128: return d->xxh128;
	case WS_HASH_SHA256: return d->sha256;
	case WS_HASH_XXH32: return d->xxh32;
	case WS_HASH_XXH64: return d->xxh64;
	case WS_HASH_XXH3_64: return d->xxh3_64;
	default: return d->sha1; /* SHA1, GITBLOB */
	}
}

/* The GNU form tells the digest by its length alone. */
static unsigned
algo_of_hex_len(size_t nhex)
{
	switch (nhex) {
	case 8: return WS_HASH_XXH32;
	case 16: return WS_HASH_XXH64;
	case 2 * WS_XXH128_LEN: return WS_HASH_XXH128;
	case 2 * WS_SHA1_LEN: return WS_HASH_SHA1;
	case 2 * WS_SHA256_LEN: return WS_HASH_SHA256;
	default: return 0;
	}
}

static size_t
hex_run(const char *p, size_t len)
{
	size_t n = 0;
	while (n < len && hexval(p[n]) >= 0)
		n++;
	return n;
}

/* A BSD line, `TAG[_LE] (name) = hex`: the name's span and the entry's
 * algorithm and digest; false when the line is not of that form. */
static bool
parse_bsd(const char *p, size_t len, ws_manifest_entry *e, const char **name,
	  size_t *nl)
{
	const struct algo_info *a = NULL;
	size_t k = 0;
	for (size_t i = 0; i < sizeof algos / sizeof algos[0] && !a; i++) {
		size_t tl = strlen(algos[i].tag);
		if (len > tl && memcmp(p, algos[i].tag, tl) == 0 &&
		    (p[tl] == ' ' || p[tl] == '_')) {
			a = &algos[i];
			k = tl;
		}
	}
	if (!a || a->algo == WS_HASH_GITBLOB)
		return false;
	if (len >= k + 3 && memcmp(p + k, "_LE", 3) == 0) {
		if (a->algo == WS_HASH_SHA256 || a->algo == WS_HASH_SHA1)
			return false;
		e->little_endian = true;
		k += 3;
	}
	/* " (" name ") = " hex: the name is whatever lies between, so the
	 * last ") = " ends it */
	size_t nhex = 2 * a->len;
	if (len < k + 2 + 4 + nhex || memcmp(p + k, " (", 2) != 0 ||
	    memcmp(p + len - nhex - 4, ") = ", 4) != 0 ||
	    hex_run(p + len - nhex, nhex) != nhex)
		return false;
	e->algo = a->algo;
	ws_unhex(p + len - nhex, a->len, e->digest);
	*name = p + k + 2;
	*nl = len - nhex - 4 - (k + 2);
	return true;
}

/* Parse one line; 1 = entry added, 0 = malformed, -1 = OOM. */
static int
parse_line(const char *p, size_t len, size_t lineno, ws_manifest *m)
{
	bool esc = false;
	ws_manifest_entry e = {0};
	const char *name;
	size_t nl;

	if (len > MANIFEST_MAX_LINE)
		return 0;
	if (len && p[len - 1] == '\r')
		len--;
	if (len && p[0] == '\\') {
		esc = true;
		p++;
		len--;
	}
	if (!parse_bsd(p, len, &e, &name, &nl)) {
		/* GNU: hex, then two spaces (or space and '*', binary mode);
		 * xxhsum 0.8.2 marks XXH3-64 as `XXH3_<hex>` */
		size_t skip = len > 5 && memcmp(p, "XXH3_", 5) == 0 ? 5 : 0;
		size_t nhex = hex_run(p + skip, len - skip);
		e.algo = skip ? (nhex == 16 ? WS_HASH_XXH3_64 : 0) : algo_of_hex_len(nhex);
		if (!e.algo || len < skip + nhex + 3 || p[skip + nhex] != ' ' ||
		    (p[skip + nhex + 1] != ' ' && p[skip + nhex + 1] != '*'))
			return 0;
		ws_unhex(p + skip, nhex / 2, e.digest);
		name = p + skip + nhex + 2;
		nl = len - skip - nhex - 2;
	}
	e.line = lineno;
	if (!(e.name = malloc(nl + 1)))
		return -1;
	memcpy(e.name, name, nl);
	e.name[nl] = '\0';
	if (esc) {
		long u = unescape(e.name, nl);
		if (u < 0) {
			free(e.name);
			return 0;
		}
		nl = (size_t)u;
		e.name[nl] = '\0';
	}
	if (nl > 7 && memcmp(e.name, "tensor:", 7) == 0) {
		if ((e.algo != WS_HASH_XXH128 && e.algo != WS_HASH_SHA256) || e.little_endian) {
			free(e.name);
			return 0;
		}
		e.tensor = true;
		memmove(e.name, e.name + 7, nl - 7 + 1);
		nl -= 7;
	}
	if (nl == 0) {
		free(e.name);
		return 0;
	}
	e.name_len = nl;
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		ws_manifest_entry *ne = realloc(m->entries, nc * sizeof *ne);
		if (!ne) {
			free(e.name);
			return -1;
		}
		m->entries = ne;
		m->cap = nc;
	}
	m->entries[m->n++] = e;
	return 1;
}

int
ws_manifest_parse(const char *text, size_t len, ws_manifest *m, ws_error *err)
{
	size_t lineno = 0;
	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - (text + i)) : len - i;
		lineno++;
		if (ll > 0 && !(ll == 1 && text[i] == '\r')) {
			int r = parse_line(text + i, ll, lineno, m);
			if (r < 0) {
				ws_manifest_free(m);
				return ws_err_oom(err, NULL);
			}
			if (r == 0 && m->malformed++ == 0)
				m->first_malformed = lineno;
		}
		i += ll + 1;
	}
	return 0;
}

void
ws_manifest_free(ws_manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->entries[i].name);
	free(m->entries);
	memset(m, 0, sizeof *m);
}

/* ==== hash: PATHs to lines ==== */

/* realpath of PATH's folder + "/" + its last component: keeps a symlink
 * (an HF snapshot entry) named as itself. */
static char *
abs_keep_last(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *rdir, *out = NULL;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return NULL;
	rdir = realpath(dir, NULL);
	free(dir);
	if (!rdir)
		return NULL;
	const char *base = slash ? slash + 1 : path;
	if (asprintf(&out, "%s%s%s", rdir, strcmp(rdir, "/") ? "/" : "", base) < 0)
		out = NULL;
	free(rdir);
	return out;
}

/* TARGET (absolute) relative to folder BASE (absolute, resolved). */
static char *
relative_to(const char *base, const char *target)
{
	size_t i = 0, common = 0, ups = 0;

	/* common = index of the last '/' both share as a component boundary */
	while (base[i] && base[i] == target[i]) {
		if (base[i] == '/')
			common = i;
		i++;
	}
	if (base[i] == '\0' && target[i] == '/')
		common = i;
	for (const char *q = base + common; *q; q++)
		if (*q == '/' && q[1])
			ups++;
	const char *rest = target + common + 1;
	size_t rl = strlen(rest);
	char *out = malloc(ups * 3 + rl + 1);
	if (!out)
		return NULL;
	char *o = out;
	for (size_t k = 0; k < ups; k++, o += 3)
		memcpy(o, "../", 3);
	memcpy(o, rest, rl + 1);
	return out;
}

typedef struct unit {
	char *name;             /* display name */
	const char *path;       /* to open (borrowed) */
	int fd;
	ws_model *model;        /* NULL for a plain file */
	uint32_t file;          /* file index in the model */
	bool is_model_file;
} unit;

static bool
ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

typedef struct hash_ctx {
	const ws_hash_opts *o;
	char *base;             /* resolved base folder, or NULL */
	unit *units;
	size_t n_units, cap_units;
	ws_model **models;
	size_t n_models;
	char **cached;          /* org/name PATHs resolved in the HF cache */
	size_t n_cached;
} hash_ctx;

static int
add_unit(hash_ctx *c, const char *path, int fd, ws_model *m, uint32_t file,
	 bool is_model_file, ws_error *err)
{
	char *name;
	if (c->base) {
		char *abs = abs_keep_last(path);
		if (!abs)
			return ws_err(err, WS_EXIT_INPUT, path, "cannot resolve: %s", strerror(errno));
		name = relative_to(c->base, abs);
		free(abs);
	} else {
		name = strdup(path);
	}
	if (!name)
		return ws_err_oom(err, path);
	for (size_t i = 0; i < c->n_units; i++) {
		if (strcmp(c->units[i].name, name) == 0) {
			free(name); /* the same file named twice */
			return 0;
		}
	}
	if (c->n_units == c->cap_units) {
		size_t nc = c->cap_units ? c->cap_units * 2 : 16;
		unit *nu = realloc(c->units, nc * sizeof *nu);
		if (!nu) {
			free(name);
			return ws_err_oom(err, path);
		}
		c->units = nu;
		c->cap_units = nc;
	}
	c->units[c->n_units++] = (unit){name, path, fd, m, file, is_model_file};
	return 0;
}

static int
add_path(hash_ctx *c, const char *path, ws_error *err)
{
	if (ws_remote_needs_data(path, "hash", err))
		return -1;
	char *cached = ws_hf_cache_resolve(path);
	if (cached) {
		/* kept for the run: units point at it */
		char **nc = realloc(c->cached, (c->n_cached + 1) * sizeof *nc);
		if (!nc) {
			free(cached);
			return ws_err_oom(err, path);
		}
		c->cached = nc;
		c->cached[c->n_cached++] = cached;
		path = cached;
	}
	struct stat sb;
	if (stat(path, &sb) != 0)
		return ws_err_errno(err, path, errno, "cannot open");
	bool dir = S_ISDIR(sb.st_mode);
	bool index = ends_with(path, ".index.json");
	bool model = dir || index || ends_with(path, ".safetensors") || ends_with(path, ".gguf");
	if (!model)
		return add_unit(c, path, -1, NULL, 0, false, err);

	ws_model *m = NULL;
	if (ws_model_open(path, NULL, &m, err) != 0)
		return -1;
	ws_model **nm = realloc(c->models, (c->n_models + 1) * sizeof *nm);
	if (!nm) {
		ws_model_free(m);
		return ws_err_oom(err, path);
	}
	c->models = nm;
	c->models[c->n_models++] = m;
	if ((dir || index) && m->index_path && add_unit(c, m->index_path, -1, NULL, 0, false, err))
		return -1;
	if (dir && m->config_path && add_unit(c, m->config_path, -1, NULL, 0, false, err))
		return -1;
	/* shards in name order (00001 before 00002), whatever the index says */
	uint32_t *ord = malloc((m->n_files ? m->n_files : 1) * sizeof *ord);
	if (!ord)
		return ws_err_oom(err, path);
	for (uint32_t f = 0; f < m->n_files; f++) {
		uint32_t k = f;
		for (; k > 0 && strcmp(m->files[ord[k - 1]].path, m->files[f].path) > 0; k--)
			ord[k] = ord[k - 1];
		ord[k] = f;
	}
	int rc = 0;
	for (uint32_t i = 0; i < m->n_files && rc == 0; i++)
		rc = add_unit(c, m->files[ord[i]].path, m->files[ord[i]].fd, m, ord[i], true, err);
	free(ord);
	/* the folder's other variants, not read as the model but hashed */
	for (uint32_t i = 0; i < m->n_unread_files && rc == 0; i++)
		rc = add_unit(c, m->unread_files[i], -1, NULL, 0, false, err);
	return rc;
}

static int
push_line(ws_hash_set *s, const char *name, size_t len, bool tensor)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		ws_hash_line *nl = realloc(s->lines, nc * sizeof *nl);
		if (!nl)
			return -1;
		s->lines = nl;
		s->cap = nc;
	}
	ws_hash_line *l = &s->lines[s->n];
	memset(l, 0, sizeof *l);
	if (!(l->name = malloc(len + 1)))
		return -1;
	memcpy(l->name, name, len);
	l->name[len] = '\0';
	l->name_len = len;
	l->tensor = tensor;
	s->n++;
	return 0;
}

/* Per unit: its subs (in offset order, as the job reads them), the
 * unit's tensors in model order, and for each of those the sub that
 * holds its digest (the inverse of the offset sort, so lines come out in
 * model order without a search per tensor). */
typedef struct unit_work {
	ws_hash_sub *subs;
	uint64_t *tensor_of; /* i-th tensor of this unit, model order */
	size_t *sub_of;      /* sub index of tensor_of[i] */
	const ws_tensor *tensors;
} unit_work;

/* Orders indices into a unit's tensor_of by offset (qsort_r; the context
 * is the unit_work, so concurrent callers share nothing). */
static int
cmp_tensor_offset(const void *a, const void *b, void *ctx)
{
	const unit_work *w = ctx;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	const ws_tensor *x = &w->tensors[w->tensor_of[i]];
	const ws_tensor *y = &w->tensors[w->tensor_of[k]];
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return i < k ? -1 : i > k; /* stable: ties keep model order */
}

int
ws_hash_paths(const char *const *paths, size_t n_paths, const char *base_dir,
	      const ws_hash_opts *o, ws_hash_set *out, ws_error *err)
{
	hash_ctx c = {.o = o};
	ws_hash_job *jobs = NULL;
	unit_work *work = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (base_dir && !(c.base = realpath(base_dir, NULL))) {
		ws_err(err, WS_EXIT_INPUT, base_dir, "cannot resolve folder: %s", strerror(errno));
		goto done;
	}
	for (size_t i = 0; i < n_paths; i++)
		if (add_path(&c, paths[i], err) != 0)
			goto done;

	jobs = calloc(c.n_units ? c.n_units : 1, sizeof *jobs);
	work = calloc(c.n_units ? c.n_units : 1, sizeof *work);
	if (!jobs || !work) {
		ws_err_oom(err, NULL);
		goto done;
	}
	for (size_t u = 0; u < c.n_units; u++) {
		unit *un = &c.units[u];
		ws_hash_job *j = &jobs[u];
		j->path = un->path;
		j->fd = un->fd;
		j->offset = 0;
		j->length = WS_HASH_TO_END;
		j->algos = WS_HASH_XXH128 | (o->sha256 ? WS_HASH_SHA256 : 0);
		if (!o->per_tensor || !un->is_model_file)
			continue;
		ws_model *m = un->model;
		size_t k = 0;
		for (uint64_t t = 0; t < m->n_tensors; t++)
			k += m->tensors[t].file == un->file;
		if (!k)
			continue;
		unit_work *w = &work[u];
		w->tensors = m->tensors;
		w->subs = calloc(k, sizeof *w->subs);
		w->tensor_of = calloc(k, sizeof *w->tensor_of);
		w->sub_of = calloc(k, sizeof *w->sub_of);
		size_t *by_offset = calloc(k, sizeof *by_offset);
		if (!w->subs || !w->tensor_of || !w->sub_of || !by_offset) {
			free(by_offset);
			ws_err_oom(err, un->path);
			goto done;
		}
		k = 0;
		for (uint64_t t = 0; t < m->n_tensors; t++)
			if (m->tensors[t].file == un->file)
				w->tensor_of[k++] = t;
		for (size_t i = 0; i < k; i++)
			by_offset[i] = i;
		qsort_r(by_offset, k, sizeof *by_offset, cmp_tensor_offset, w);
		for (size_t s = 0; s < k; s++) {
			const ws_tensor *t = &m->tensors[w->tensor_of[by_offset[s]]];
			w->subs[s].offset = t->offset;
			w->subs[s].length = t->bytes;
			w->sub_of[by_offset[s]] = s;
		}
		free(by_offset);
		j->subs = work[u].subs;
		j->n_subs = k;
		j->sub_sha256 = o->sha256;
	}
	if (ws_hash_run(jobs, c.n_units, o->threads, o->progress, o->progress_ctx, err) != 0)
		goto done;
	for (size_t u = 0; u < c.n_units; u++) {
		if (jobs[u].status != WS_JOB_OK) {
			*err = jobs[u].err;
			goto done;
		}
	}
	/* file lines in PATH order, then tensor lines in model order */
	out->has_sha256 = o->sha256;
	for (size_t u = 0; u < c.n_units; u++) {
		if (push_line(out, c.units[u].name, strlen(c.units[u].name), false) != 0) {
			ws_err_oom(err, NULL);
			goto done;
		}
		memcpy(out->lines[out->n - 1].xxh128, jobs[u].digest.xxh128, WS_XXH128_LEN);
		memcpy(out->lines[out->n - 1].sha256, jobs[u].digest.sha256, WS_SHA256_LEN);
		out->lines[out->n - 1].size = jobs[u].size;
	}
	for (size_t u = 0; u < c.n_units; u++) {
		if (!jobs[u].n_subs)
			continue;
		ws_model *m = c.units[u].model;
		/* model order: tensor_of is that order, sub_of finds each digest */
		for (size_t i = 0; i < jobs[u].n_subs; i++) {
			const ws_tensor *t = &m->tensors[work[u].tensor_of[i]];
			if (push_line(out, t->name, t->name_len, true) != 0) {
				ws_err_oom(err, NULL);
				goto done;
			}
			const ws_hash_sub *sub = &work[u].subs[work[u].sub_of[i]];
			ws_hash_line *l = &out->lines[out->n - 1];
			memcpy(l->xxh128, sub->xxh128, WS_XXH128_LEN);
			memcpy(l->sha256, sub->sha256, WS_SHA256_LEN);
			l->size = t->bytes;
			l->file = u; /* file lines come first, one per unit */
		}
	}
	rc = 0;
done:
	if (rc != 0)
		ws_hash_set_free(out);
	for (size_t u = 0; work && u < c.n_units; u++) {
		free(work[u].subs);
		free(work[u].tensor_of);
		free(work[u].sub_of);
	}
	free(work);
	free(jobs);
	for (size_t u = 0; u < c.n_units; u++)
		free(c.units[u].name);
	free(c.units);
	for (size_t i = 0; i < c.n_models; i++)
		ws_model_free(c.models[i]);
	free(c.models);
	for (size_t i = 0; i < c.n_cached; i++)
		free(c.cached[i]);
	free(c.cached);
	free(c.base);
	return rc;
}

void
ws_hash_set_free(ws_hash_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->lines[i].name);
	free(s->lines);
	memset(s, 0, sizeof *s);
}

int
ws_hash_print(FILE *f, const ws_hash_set *s, unsigned what)
{
	bool tty = is_tty(f); /* once, not a system call per line */
	for (size_t i = 0; i < s->n; i++) {
		const ws_hash_line *l = &s->lines[i];
		int r = 0;
		if (l->tensor && (what & WS_PRINT_TENSORS))
			r = s->has_sha256
				? put_line(f, tty, l->sha256, WS_SHA256_LEN, "tensor:", l->name, l->name_len)
				: put_line(f, tty, l->xxh128, WS_XXH128_LEN, "tensor:", l->name, l->name_len);
		if (!l->tensor && (what & WS_PRINT_FILES_XXH))
			r = put_line(f, tty, l->xxh128, WS_XXH128_LEN, "", l->name, l->name_len);
		if (!l->tensor && (what & WS_PRINT_FILES_SHA256) && s->has_sha256)
			r = put_line(f, tty, l->sha256, WS_SHA256_LEN, "", l->name, l->name_len);
		if (r)
			return -1;
	}
	return 0;
}

/* Write `what` lines to PATH through a temporary file in the same folder
 * and a rename, so a reader never sees half a manifest. */
static int
write_atomic(const char *path, const ws_hash_set *s, unsigned what, ws_error *err)
{
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.tmpXXXXXX", path) < 0)
		return ws_err_oom(err, path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		ws_err(err, WS_EXIT_INTERNAL, path, "cannot create: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	mode_t um = umask(022);
	umask(um);
	fchmod(fd, 0666 & ~um);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		goto fail;
	}
	int r = ws_hash_print(f, s, what);
	if (fflush(f) != 0 || r != 0 || fsync(fileno(f)) != 0) {
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	ws_err(err, WS_EXIT_INTERNAL, path, "cannot write: %s", strerror(errno));
	unlink(tmp);
	free(tmp);
	return -1;
}

int
ws_hash_write_manifest(const char *path, const ws_hash_set *s, ws_error *err)
{
	if (write_atomic(path, s, s->has_sha256 ? WS_PRINT_FILES_SHA256 : WS_PRINT_FILES_XXH,
			 err) != 0)
		return -1;
	char *p2 = NULL;
	if (asprintf(&p2, "%s.tensors", path) < 0)
		return ws_err_oom(err, path);
	bool tensors = false;
	for (size_t i = 0; i < s->n && !tensors; i++)
		tensors = s->lines[i].tensor;
	/* no tensor lines: no companion, and none left from an earlier run */
	int r = tensors ? write_atomic(p2, s, WS_PRINT_TENSORS, err)
		: (unlink(p2) == 0 || errno == ENOENT ? 0
		   : ws_err(err, WS_EXIT_INTERNAL, p2, "cannot remove: %s", strerror(errno)));
	free(p2);
	return r;
}
