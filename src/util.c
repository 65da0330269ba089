/* util.c - number formatting and escaping of untrusted bytes. */
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "ws/util.h"

char *
ws_fmt_commas(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v);
	size_t o = 0;

	for (int i = 0; i < n && o + 1 < len; i++) {
		if (i > 0 && (n - i) % 3 == 0 && o + 2 < len)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
	return buf;
}

/* 3 significant digits, computed in integers so 8,030,261,248 -> 8.03B. */
char *
ws_fmt_human(uint64_t v, char *buf, size_t len)
{
	static const char suffix[] = " KMBTQ";
	uint64_t scale = 1;
	int s = 0;

	while (s < 5 && v / scale >= 1000) {
		scale *= 1000;
		s++;
	}
	if (s == 0) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	/* value = v / scale in [1, 1000): keep 3 significant digits, rounded */
	uint64_t ip = v / scale;
	int dec = ip >= 100 ? 0 : ip >= 10 ? 1 : 2;
	uint64_t unit = scale;
	for (int i = 0; i < dec; i++)
		unit /= 10;
	uint64_t q = (v + unit / 2) / unit; /* digits with dec decimals */
	uint64_t pow10 = dec == 0 ? 1 : dec == 1 ? 10 : 100;
	if (q / pow10 >= 1000 && s < 5) { /* rounding carried to next unit */
		s++;
		scale *= 1000;
		unit = scale / 100;
		q = (v + unit / 2) / unit;
		dec = 2;
		pow10 = 100;
	}
	if (dec == 0)
		snprintf(buf, len, "%llu%c", (unsigned long long)q, suffix[s]);
	else
		snprintf(buf, len, "%llu.%0*llu%c",
			 (unsigned long long)(q / pow10), dec,
			 (unsigned long long)(q % pow10), suffix[s]);
	return buf;
}

char *
ws_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double d = (double)v;
	int u = 0;

	while (d >= 1024.0 && u < 5) {
		d /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else
		snprintf(buf, len, "%.2f %s", d, unit[u]);
	return buf;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t
utf8_seq(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	if (cp >= 0xD800 && cp <= 0xDFFF)
		return 0;
	return n;
}

bool
ws_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t n;
		if (p[i] == 0)
			return false;
		n = utf8_seq(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* Shared by the FILE and string forms: emit through a small sink. */
typedef struct sink {
	FILE *f;
	char *buf;
	size_t len, cap;
	bool oom;
} sink;

static void
sink_put(sink *k, const char *s, size_t n)
{
	if (k->f) {
		fwrite(s, 1, n, k->f);
		return;
	}
	if (k->oom)
		return;
	if (k->len + n + 1 > k->cap) {
		size_t cap = (k->cap ? k->cap * 2 : 64);
		while (cap < k->len + n + 1)
			cap *= 2;
		char *nb = realloc(k->buf, cap);
		if (!nb) {
			k->oom = true;
			return;
		}
		k->buf = nb;
		k->cap = cap;
	}
	memcpy(k->buf + k->len, s, n);
	k->len += n;
	k->buf[k->len] = '\0';
}

/* Valid UTF-8 that still must not reach a terminal raw: C1 controls and
 * the bidirectional overrides and isolates ("Trojan Source"). */
static bool
unsafe_codepoint(const unsigned char *p, size_t n)
{
	if (n == 2 && p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
		return true;
	if (n == 3 && p[0] == 0xE2 && p[1] == 0x80 && p[2] >= 0xAA && p[2] <= 0xAE)
		return true;
	if (n == 3 && p[0] == 0xE2 && p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9)
		return true;
	return false;
}

static void
escape_into(sink *k, const char *s, size_t len, bool backslash)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < len) {
		unsigned c = p[i];
		size_t n = (c >= 0x20 && c != 0x7F && (c != '\\' || !backslash))
				   ? utf8_seq(p + i, len - i) : 0;
		if (n > 1 && unsafe_codepoint(p + i, n)) {
			sink_put(k, (const char *)p + i - run, run);
			run = 0;
			for (size_t b = 0; b < n; b++) {
				char esc[5];
				snprintf(esc, sizeof esc, "\\x%02X", p[i + b]);
				sink_put(k, esc, 4);
			}
			i += n;
			continue;
		}
		if (n) {
			i += n;
			run += n;
			continue;
		}
		sink_put(k, (const char *)p + i - run, run);
		run = 0;
		if (c == '\\') {
			sink_put(k, "\\\\", 2);
		} else {
			char esc[5];
			snprintf(esc, sizeof esc, "\\x%02X", c);
			sink_put(k, esc, 4);
		}
		i++;
	}
	sink_put(k, (const char *)p + i - run, run);
}

void
ws_fput_escaped(FILE *f, const char *s, size_t len)
{
	sink k = {.f = f};
	escape_into(&k, s, len, true);
}

char *
ws_escape_text(const char *s, size_t len)
{
	sink k = {0};
	sink_put(&k, "", 0);
	escape_into(&k, s, len, true);
	if (k.oom) {
		free(k.buf);
		return NULL;
	}
	return k.buf;
}

char *
ws_sanitize_text(const char *s, size_t len)
{
	sink k = {0};
	sink_put(&k, "", 0);
	escape_into(&k, s, len, false);
	if (k.oom) {
		free(k.buf);
		return NULL;
	}
	return k.buf;
}

/* ==== paths ==== */

char *
ws_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	size_t slash = dl && dir[dl - 1] == '/' ? 0 : 1;
	char *p = malloc(dl + slash + nl + 1);
	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + slash, name, nl + 1);
	return p;
}

char *
ws_path_dir(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return strdup(".");
	if (s == path)
		return strdup("/");
	return strndup(path, (size_t)(s - path));
}

/* ==== big arrays ==== */


/* Whole 2 MB pages: a huge page is only granted for an aligned 2 MB. */
static size_t
page_round(size_t n)
{
	return (n + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
}

static void *
big_map(size_t size)
{
	void *p = mmap(NULL, page_round(size), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* a hint: where huge pages are "madvise", this is what asks */
	madvise(p, page_round(size), MADV_HUGEPAGE);
	return p;
}

void *
ws_big_calloc(size_t size)
{
	return size < WS_BIG_MIN ? calloc(1, size ? size : 1) : big_map(size);
}

void *
ws_big_realloc(void *p, size_t old_size, size_t new_size)
{
	if (new_size < WS_BIG_MIN)
		return realloc(p, new_size ? new_size : 1); /* old_size < new_size here */
	if (!p || old_size < WS_BIG_MIN) {
		void *q = big_map(new_size);
		if (q && p) {
			memcpy(q, p, old_size);
			free(p);
		}
		return q;
	}
	void *q = mremap(p, page_round(old_size), page_round(new_size), MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	madvise(q, page_round(new_size), MADV_HUGEPAGE);
	return q;
}

void
ws_big_free(void *p, size_t size)
{
	if (p && size >= WS_BIG_MIN)
		munmap(p, page_round(size));
	else
		free(p);
}

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define WS_CPU_RECORD 1
#endif
#endif

bool
ws_cpu_avx2(void)
{
#ifdef WS_CPU_RECORD
	return CPU_FEATURE_ACTIVE(AVX2);
#else
	return false;
#endif
}

bool
ws_cpu_avx512f(void)
{
#ifdef WS_CPU_RECORD
	return CPU_FEATURE_ACTIVE(AVX512F);
#else
	return false;
#endif
}

void
ws_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + len) & ~(page - 1);
	if (hi > lo + 4 * page) /* an older kernel says EINVAL: faults it is */
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

void
ws_populate_read(const void *p, size_t len)
{
#ifdef MADV_POPULATE_READ
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
#else
	(void)p;
	(void)len;
#endif
}

/* ==== threads ==== */

static int
thread_start(pthread_t *th, void *(*fn)(void *), void *arg, bool detached)
{
	/* Keep the new thread off this CPU: left to itself the scheduler may
	 * run it here first and the caller only after it, in turn (seen on a
	 * 2-vCPU VM: a 2-piece scan took as long as a 1-piece one). */
	pthread_attr_t attr, *ap = NULL;
	cpu_set_t set;
	int here = sched_getcpu();
	if (here >= 0 && sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1 &&
	    pthread_attr_init(&attr) == 0) {
		CPU_CLR(here, &set);
		if (pthread_attr_setaffinity_np(&attr, sizeof set, &set) == 0)
			ap = &attr;
		else
			pthread_attr_destroy(&attr);
	}
	int rc = pthread_create(th, ap, fn, arg);
	if (ap)
		pthread_attr_destroy(ap);
	if (!rc && detached)
		pthread_detach(*th);
	return rc ? -1 : 0;
}

int
ws_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	return thread_start(th, fn, arg, false);
}

/* ==== teams: the caller and helpers that may come late ====
 *
 * A helper's share waits on the scheduler: on a busy machine it may run
 * milliseconds after it was made, and a caller joining it waits that long
 * for work it could have done itself.  So helpers are detached and start
 * work only while the caller is still at it; the caller waits only for
 * helpers inside fn.  The slots are static: a helper the scheduler runs
 * after the caller has left touches nothing but its slot, which stays
 * taken (refs) until it has. */
typedef struct team {
	atomic_uint refs;  /* 0: free; the caller and each helper not yet gone */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void (*fn)(void *, unsigned);
	void *arg;
	unsigned joined, active;
	bool closed;
	bool widen;        /* cpus: the caller's CPUs, for a helper at work */
	cpu_set_t cpus;
} team;

#define TEAM_SLOT {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER}
static team teams[8] = {TEAM_SLOT, TEAM_SLOT, TEAM_SLOT, TEAM_SLOT,
			TEAM_SLOT, TEAM_SLOT, TEAM_SLOT, TEAM_SLOT};
#undef TEAM_SLOT

static void *
team_helper(void *arg)
{
	team *t = arg;
	unsigned k = 0;
	pthread_mutex_lock(&t->mu);
	if (!t->closed) {
		k = ++t->joined;
		t->active++;
	}
	pthread_mutex_unlock(&t->mu);
	if (k) {
		/* made off the caller's CPU so that it starts beside it; at
		 * work, free to run on the caller's when the caller waits for
		 * it (a busy machine may give its own CPU to another process) */
		if (t->widen)
			sched_setaffinity(0, sizeof t->cpus, &t->cpus);
		t->fn(t->arg, k);
		pthread_mutex_lock(&t->mu);
		if (!--t->active)
			pthread_cond_signal(&t->cv);
		pthread_mutex_unlock(&t->mu);
	}
	atomic_fetch_sub_explicit(&t->refs, 1, memory_order_release);
	return NULL;
}

ws_team *
ws_team_start(unsigned helpers, void (*fn)(void *arg, unsigned worker), void *arg)
{
	team *t = NULL;
	for (size_t i = 0; helpers && !t && i < sizeof teams / sizeof teams[0]; i++) {
		unsigned free_ = 0;
		if (atomic_compare_exchange_strong_explicit(&teams[i].refs, &free_, 1,
							    memory_order_acquire,
							    memory_order_relaxed))
			t = &teams[i];
	}
	if (!t)
		return NULL;
	/* no helper of this slot is left: plain writes, published by
	 * pthread_create */
	t->fn = fn;
	t->arg = arg;
	t->joined = t->active = 0;
	t->closed = false;
	t->widen = sched_getaffinity(0, sizeof t->cpus, &t->cpus) == 0 && CPU_COUNT(&t->cpus) > 1;
	unsigned started = 0;
	for (unsigned h = 0; h < helpers; h++) {
		pthread_t th;
		atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
		if (thread_start(&th, team_helper, t, true)) {
			atomic_fetch_sub_explicit(&t->refs, 1, memory_order_relaxed);
			break;
		}
		started++;
	}
	if (!started) {
		atomic_fetch_sub_explicit(&t->refs, 1, memory_order_release);
		return NULL;
	}
	return t;
}

bool
ws_team_close(ws_team *t)
{
	pthread_mutex_lock(&t->mu);
	t->closed = true;
	bool none = !t->joined;
	pthread_mutex_unlock(&t->mu);
	return none;
}

void
ws_team_finish(ws_team *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->closed = true;
	while (t->active)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
	atomic_fetch_sub_explicit(&t->refs, 1, memory_order_release);
}

/* ==== the pool: helpers that stay for the next pass ====
 *
 * An analysis runs a dozen short passes one after another.  A thread made
 * for each costs its clone, affinity and exit every time, and on a VM it
 * starts late: waking a sleeping vCPU costs hundreds of microseconds.  So
 * the pool's workers stay: after a job a worker polls a moment for the
 * next, then sleeps, and leaves when none comes for POOL_IDLE_MS or when
 * the library is unloaded.  One job at a time: a caller that finds the
 * slot taken (two threads of a program, or the read-ahead team beside a
 * pass) makes its own helpers (ws_team_start). */
#define POOL_MAX 8
#define POOL_IDLE_MS 50
/* a worker waits this long awake for a job: the serial steps between
 * passes (a header mapped, a report's summary while a chore unmaps) take
 * up to a few hundred microseconds, and a worker that had gone to sleep
 * came late to the next pass (1 ms against 0.3: 0.15-0.2 ms a run less
 * on the 46,848-tensor header, alternating runs) */
#define POOL_POLL_NS 1000000L
#define POOL_WAIT_NS 2000000L /* a caller, for a helper still in fn */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t wake;  /* a job was posted, or the pool closes */
	pthread_cond_t done;  /* the last helper left fn, or a worker left */
	void (*fn)(void *, unsigned);
	void *arg;
	unsigned want;        /* helpers the posted job may still take */
	unsigned joined;      /* helpers that took it: their k */
	unsigned workers;     /* threads alive */
	bool busy;            /* a caller holds the job slot */
	bool closing;
	void *chore;          /* a mapping to unmap between jobs, chore_len bytes */
	size_t chore_len;
	bool widen;           /* cpus: the CPUs of the caller that made workers */
	cpu_set_t cpus;
	_Atomic unsigned active; /* helpers inside fn (changed under mu) */
	_Atomic unsigned gen;    /* jobs posted, and the close: what pollers watch */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
	  .done = PTHREAD_COND_INITIALIZER};

static int64_t
mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void
cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Poll *v until it differs from `from` or ns pass; true if it did.  The
 * poller yields now and then, in case what it waits for is queued on its
 * own CPU. */
static bool
poll_change(_Atomic unsigned *v, unsigned from, int64_t ns)
{
	int64_t until = mono_ns() + ns;
	for (unsigned i = 1;; i++) {
		if (atomic_load_explicit(v, memory_order_acquire) != from)
			return true;
		cpu_relax();
		if (!(i & 255)) {
			if (mono_ns() > until)
				return false;
			if (!(i & 4095))
				sched_yield();
		}
	}
}

static void *
pool_worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.mu);
	/* made off the caller's CPU so that it starts beside it; from then
	 * on free to run on any of the caller's */
	if (pool.widen) {
		cpu_set_t cpus = pool.cpus;
		pthread_mutex_unlock(&pool.mu);
		sched_setaffinity(0, sizeof cpus, &cpus);
		pthread_mutex_lock(&pool.mu);
	}
	while (!pool.closing) {
		if (pool.chore && !pool.want) {
			void *c = pool.chore;
			size_t len = pool.chore_len;
			pool.chore = NULL;
			pthread_mutex_unlock(&pool.mu);
			munmap(c, len);
			pthread_mutex_lock(&pool.mu);
			continue;
		}
		if (!pool.want) {
			unsigned g = atomic_load_explicit(&pool.gen, memory_order_relaxed);
			pthread_mutex_unlock(&pool.mu);
			bool posted = poll_change(&pool.gen, g, POOL_POLL_NS);
			pthread_mutex_lock(&pool.mu);
			if (!posted && !pool.want && !pool.chore && !pool.closing) {
				struct timespec until;
				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_nsec += POOL_IDLE_MS * 1000000L;
				until.tv_sec += until.tv_nsec / 1000000000L;
				until.tv_nsec %= 1000000000L;
				if (pthread_cond_timedwait(&pool.wake, &pool.mu, &until) &&
				    !pool.want && !pool.chore && !pool.closing)
					break; /* idle: leave */
			}
			continue;
		}
		pool.want--;
		unsigned k = ++pool.joined;
		void (*fn)(void *, unsigned) = pool.fn;
		void *fa = pool.arg;
		atomic_fetch_add_explicit(&pool.active, 1, memory_order_relaxed);
		pthread_mutex_unlock(&pool.mu);
		fn(fa, k);
		pthread_mutex_lock(&pool.mu);
		if (atomic_fetch_sub_explicit(&pool.active, 1, memory_order_release) == 1)
			pthread_cond_broadcast(&pool.done);
	}
	pool.workers--;
	pthread_cond_broadcast(&pool.done);
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

/* Unloading the library (or exit) waits for the workers to leave its
 * code; each is between jobs then, polling or asleep. */
__attribute__((destructor)) static void
pool_close(void)
{
	pthread_mutex_lock(&pool.mu);
	pool.closing = true;
	atomic_fetch_add_explicit(&pool.gen, 1, memory_order_release);
	pthread_cond_broadcast(&pool.wake);
	while (pool.workers)
		pthread_cond_wait(&pool.done, &pool.mu);
	void *c = pool.chore;
	size_t len = pool.chore_len;
	pool.chore = NULL;
	pthread_mutex_unlock(&pool.mu);
	if (c)
		munmap(c, len);
}

void
ws_unmap_later(void *p, size_t len)
{
	pthread_mutex_lock(&pool.mu);
	if (pool.workers && !pool.chore && !pool.closing) {
		pool.chore = p;
		pool.chore_len = len;
		atomic_fetch_add_explicit(&pool.gen, 1, memory_order_release);
		pthread_cond_broadcast(&pool.wake);
		p = NULL;
	}
	pthread_mutex_unlock(&pool.mu);
	if (p)
		munmap(p, len);
}

/* A forked child has none of the parent's threads (and only the forking
 * thread: no job of its parent is its own). */
static void
pool_forked(void)
{
	pthread_mutex_init(&pool.mu, NULL);
	pthread_cond_init(&pool.wake, NULL);
	pthread_cond_init(&pool.done, NULL);
	pool.workers = pool.want = 0;
	pool.busy = false;
	pool.chore = NULL; /* the parent's to unmap; the child's copy stays */
	atomic_store(&pool.active, 0);
}

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static void
pool_init(void)
{
	pthread_atfork(NULL, NULL, pool_forked);
}

/* Workers made now (as many as helpers, at most POOL_MAX, counting those
 * alive), none of them yet needed: they start while the caller prepares
 * the work. */
static unsigned
pool_make(unsigned helpers)
{
	unsigned make = helpers > pool.workers ? helpers - pool.workers : 0;
	pool.workers += make;
	if (make)
		pool.widen = sched_getaffinity(0, sizeof pool.cpus, &pool.cpus) == 0 &&
			     CPU_COUNT(&pool.cpus) > 1;
	return make;
}

static void
pool_start(unsigned make)
{
	for (; make; make--) {
		pthread_t th;
		if (thread_start(&th, pool_worker, NULL, true)) {
			pthread_mutex_lock(&pool.mu);
			pool.workers -= make;
			pthread_cond_broadcast(&pool.done);
			pthread_mutex_unlock(&pool.mu);
			break;
		}
	}
}

void
ws_team_warm(unsigned helpers)
{
	if (!helpers)
		return;
	pthread_once(&pool_once, pool_init);
	pthread_mutex_lock(&pool.mu);
	unsigned make = pool.closing ? 0 : pool_make(helpers < POOL_MAX ? helpers : POOL_MAX);
	pthread_mutex_unlock(&pool.mu);
	pool_start(make);
}

void
ws_team_run(unsigned helpers, void (*fn)(void *arg, unsigned worker), void *arg)
{
	if (!helpers) {
		fn(arg, 0);
		return;
	}
	pthread_once(&pool_once, pool_init);
	if (helpers > POOL_MAX)
		helpers = POOL_MAX;
	pthread_mutex_lock(&pool.mu);
	if (pool.busy || pool.closing) {
		pthread_mutex_unlock(&pool.mu);
		ws_team *t = ws_team_start(helpers, fn, arg);
		fn(arg, 0);
		ws_team_finish(t);
		return;
	}
	pool.busy = true;
	pool.fn = fn;
	pool.arg = arg;
	pool.want = helpers;
	pool.joined = 0;
	atomic_fetch_add_explicit(&pool.gen, 1, memory_order_release);
	unsigned make = pool_make(helpers);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.mu);
	pool_start(make);
	fn(arg, 0);
	/* a helper that has not come yet finds the job closed; one still in
	 * fn is most often near its end: poll for it before sleeping */
	pthread_mutex_lock(&pool.mu);
	pool.want = 0;
	unsigned active = atomic_load_explicit(&pool.active, memory_order_acquire);
	pthread_mutex_unlock(&pool.mu);
	int64_t until = mono_ns() + POOL_WAIT_NS;
	while (active && poll_change(&pool.active, active, until - mono_ns()))
		active = atomic_load_explicit(&pool.active, memory_order_acquire);
	pthread_mutex_lock(&pool.mu);
	while (atomic_load_explicit(&pool.active, memory_order_acquire))
		pthread_cond_wait(&pool.done, &pool.mu);
	pool.busy = false;
	pthread_mutex_unlock(&pool.mu);
}

void
ws_fmt_eta(uint64_t done, uint64_t total, double secs, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!done || done >= total || secs <= 0)
		return;
	double left = secs * (double)(total - done) / (double)done;
	if (left < 90)
		snprintf(buf, len, "%.0f s left", left);
	else if (left < 5400)
		snprintf(buf, len, "%.0f min left", left / 60);
	else
		snprintf(buf, len, "%.1f h left", left / 3600);
}

bool
ws_parse_count(const char *s, bool binary, uint64_t *value, uint64_t *half_ulp)
{
	static const struct { char c; unsigned dec_exp, bin_exp; } sfx[] = {
		{'k', 3, 10}, {'m', 6, 20}, {'b', 9, 0}, {'g', 0, 30}, {'t', 12, 40},
	};
	uint64_t mant = 0, scale_dec = 1;
	size_t i = 0, frac = 0;
	bool dot = false, digits = false;
	if (!s)
		return false;
	for (; s[i]; i++) {
		if (s[i] == '.' && !dot) {
			dot = true;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			break;
		digits = true;
		if (!ws_mul_u64(mant, 10, &mant) || !ws_add_u64(mant, (uint64_t)(s[i] - '0'), &mant))
			return false;
		frac += dot;
	}
	if (!digits)
		return false;
	unsigned dexp = 0, bexp = 0;
	if (s[i]) {
		char c = (char)(s[i] | 0x20);
		size_t k = 0;
		for (; k < sizeof sfx / sizeof sfx[0] && sfx[k].c != c; k++)
			;
		if (k == sizeof sfx / sizeof sfx[0] || s[i + 1])
			return false;
		if (binary ? !sfx[k].bin_exp : !sfx[k].dec_exp)
			return false;
		dexp = binary ? 0 : sfx[k].dec_exp;
		bexp = binary ? sfx[k].bin_exp : 0;
	}
	for (size_t k = 0; k < frac; k++)
		if (!ws_mul_u64(scale_dec, 10, &scale_dec))
			return false;
	/* value = mant * 10^dexp * 2^bexp / 10^frac, whole */
	uint64_t v = mant;
	for (unsigned k = 0; k < dexp; k++)
		if (!ws_mul_u64(v, 10, &v))
			return false;
	if (bexp && (bexp >= 64 || v > (UINT64_MAX >> bexp)))
		return false;
	v <<= bexp;
	if (v % scale_dec)
		return false;
	*value = v / scale_dec;
	if (half_ulp) {
		/* half a unit of the last digit: 10^(dexp - frac) / 2 */
		uint64_t u = 0;
		if (!binary && dexp && dexp > frac) {
			u = 1;
			for (unsigned k = 0; k < dexp - frac; k++)
				u *= 10;
			u /= 2;
		}
		*half_ulp = u;
	}
	return true;
}
