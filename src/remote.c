/*
 * remote.c - http(s):// and hf:// inputs: a checkpoint judged from its
 * headers, fetched with HTTP Range requests through libcurl.
 *
 * Bytes are bounded by design: a safetensors file costs one range of at
 * most 16 KB, plus the rest of its header only when that is longer; a GGUF
 * file costs its metadata, fetched in doubling chunks until the parser no
 * longer runs past the prefix (WS_NEED_MORE); tensor data is never asked
 * for.  The files of a round are fetched concurrently (one curl multi
 * handle) through a window of at most WINDOW requests, each made with its
 * handle and buffer when it starts and released when it ends, so memory
 * follows the window and the bytes received, not a declared count of
 * shards or split parts.  Redirects are followed; 5xx, 429, timeouts and
 * cut transfers are retried with a doubling backoff a bounded number of
 * times.  A server that ignores Range (200 with the whole body) is refused
 * unless the caller allows a full download; even then only the bytes
 * needed are kept and the transfer stops once they are in and the size is
 * known.
 *
 * The readers parse the fetched prefix as the file's mapping (map_len) and
 * check data ranges against the remote size, so a remote model is the same
 * ws_model as a local one, with fd == -1 on every file.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/remote.h"
#include "ws/util.h"

bool
ws_remote_is_url(const char *path)
{
	static const char *const schemes[] = {"http://", "https://", "hf://"};
	for (size_t i = 0; path && i < sizeof schemes / sizeof schemes[0]; i++)
		if (!strncasecmp(path, schemes[i], strlen(schemes[i])))
			return true;
	return false;
}

int
ws_remote_needs_data(const char *path, const char *what, ws_error *err)
{
	if (!ws_remote_is_url(path))
		return 0;
	return ws_err(err, WS_EXIT_INPUT, path,
		      "%s needs the tensor data; remote inputs are read by their headers "
		      "only (download the files and give their local path)", what);
}

bool
ws_file_is_remote(const ws_file *f)
{
	return f->fd < 0;
}

#ifndef WS_HAVE_REMOTE

bool
ws_remote_available(void)
{
	return false;
}

static int
no_remote(const char *url, ws_error *err)
{
	return ws_err(err, WS_EXIT_INPUT, url,
		      "built without remote support (libcurl was not found at build "
		      "time): download the files and give their local path");
}

int
ws_remote_open(const char *url, const ws_open_opts *opts, ws_model **out, ws_error *err)
{
	(void)opts;
	*out = NULL;
	return no_remote(url, err);
}

int
ws_remote_load_config(ws_model *m, const char *url, ws_error *err)
{
	(void)m;
	return no_remote(url, err);
}

#else /* WS_HAVE_REMOTE */

/* libcurl and the TLS, GSSAPI and LDAP libraries behind it cost every run
 * milliseconds to load; only a remote PATH needs them, so they are loaded
 * with dlopen on first use and called through this table. */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#define CURL_FUNCS(X)                                                        \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt)           \
	X(curl_easy_getinfo) X(curl_easy_cleanup) X(curl_easy_strerror)     \
	X(curl_slist_append) X(curl_slist_free_all) X(curl_multi_init)      \
	X(curl_multi_setopt) X(curl_multi_add_handle)                       \
	X(curl_multi_remove_handle) X(curl_multi_perform)                   \
	X(curl_multi_poll) X(curl_multi_info_read) X(curl_multi_cleanup)     \
	X(curl_share_init) X(curl_share_setopt) X(curl_share_cleanup)

static struct {
#define CURL_PTR_(fn) __typeof__(fn) *fn;
	CURL_FUNCS(CURL_PTR_)
#undef CURL_PTR_
} curl_api;

/* Loaded and initialised once per process, whichever thread opens the
 * first remote path: pthread_once orders the dlopen, the table's writes and
 * curl_global_init (itself not thread-safe) before every later reader. */
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_state; /* 1 ready, -1 no libcurl, -2 curl_global_init failed */

static void
curl_setup(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	int st = h ? 1 : -1;
#define CURL_SYM_(fn)                                                        \
	if (st == 1 && !(*(void **)&curl_api.fn = dlsym(h, #fn)))               \
		st = -1;
	CURL_FUNCS(CURL_SYM_)
#undef CURL_SYM_
	if (st == 1 && curl_api.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		st = -2;
	curl_state = st;
}

/* 0 when libcurl is loaded and initialised; the handle stays open for the
 * process. */
static int
curl_load(ws_error *err, const char *what)
{
	if (pthread_once(&curl_once, curl_setup) != 0)
		return ws_err(err, WS_EXIT_INTERNAL, what, "cannot initialise libcurl");
	if (curl_state == -2)
		return ws_err(err, WS_EXIT_INTERNAL, what, "cannot initialise libcurl");
	if (curl_state < 0)
		return ws_err(err, WS_EXIT_INPUT, what,
			      "remote paths need libcurl (libcurl.so.4), which could not be loaded");
	return 0;
}

/* curl.h wraps these three in argument-count macros; ours replace them */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt
#undef curl_share_setopt
#define curl_easy_init (*curl_api.curl_easy_init)
#define curl_easy_setopt (*curl_api.curl_easy_setopt)
#define curl_easy_getinfo (*curl_api.curl_easy_getinfo)
#define curl_easy_cleanup (*curl_api.curl_easy_cleanup)
#define curl_easy_strerror (*curl_api.curl_easy_strerror)
#define curl_slist_append (*curl_api.curl_slist_append)
#define curl_slist_free_all (*curl_api.curl_slist_free_all)
#define curl_multi_init (*curl_api.curl_multi_init)
#define curl_multi_setopt (*curl_api.curl_multi_setopt)
#define curl_multi_add_handle (*curl_api.curl_multi_add_handle)
#define curl_multi_remove_handle (*curl_api.curl_multi_remove_handle)
#define curl_multi_perform (*curl_api.curl_multi_perform)
#define curl_multi_poll (*curl_api.curl_multi_poll)
#define curl_multi_info_read (*curl_api.curl_multi_info_read)
#define curl_multi_cleanup (*curl_api.curl_multi_cleanup)
#define curl_share_init (*curl_api.curl_share_init)
#define curl_share_setopt (*curl_api.curl_share_setopt)
#define curl_share_cleanup (*curl_api.curl_share_cleanup)

#define ST_FIRST_RANGE (16u * 1024u)     /* most safetensors headers fit */
#define ST_MAX_HEADER 100000000ull       /* the reference reader's limit */
#define GGUF_FIRST_RANGE (64u * 1024u)   /* then doubled while needed */
#define GGUF_MAX_META (256ull << 20)     /* metadata we agree to fetch */
#define MAX_JSON (64ull << 20)           /* config.json / index.json */
/* A round's requests all in flight at once: on a real network each
 * sequential wave costs a round trip.  HTTP/2 servers (the Hub) take them
 * as streams of one connection; an HTTP/1.1 server gets up to MAX_PARALLEL
 * connections, reused from round to round through the run's share. */
#define MAX_PARALLEL 128L                /* connections per host */
#define WINDOW 256                       /* requests (handles, buffers) alive */
#define MAX_SHARDS 100000                /* distinct shards an index may name */
#define MAX_ATTEMPTS 4
#define BACKOFF_MS 100                   /* 100, 200, 400 ms */
#define CONNECT_TIMEOUT_S 15L
#define STALL_S 30L                      /* < 1 byte/s for this long */
#define UNKNOWN UINT64_MAX

bool
ws_remote_available(void)
{
	return true;
}

/* ==== one request ==== */

typedef struct rctx {
	bool allow_full;
	CURLSH *share;             /* one connection pool, DNS and TLS cache
				    * for every round of the run */
	struct curl_slist *auth;   /* Authorization for the Hub, or NULL */
	char *auth_prefix;         /* URLs the token may be sent to (owned) */
} rctx;

typedef struct req {
	const rctx *c;
	char *url;                 /* fetched (escaped); named in errors */
	uint64_t start, len;       /* Range [start, start+len) */
	bool whole;                /* a small file fetched whole (JSON) */
	bool optional;             /* 404 means absent, not an error */
	size_t item;               /* the producer's number for it */
	bool busy;                 /* a window slot in use */
	/* outcome */
	uint8_t *buf;
	uint64_t got, cap;         /* cap: bytes allocated in buf */
	uint64_t total;            /* remote size, UNKNOWN when not said */
	bool missing;
	/* one attempt */
	CURL *h;
	bool added;
	long status;
	uint64_t stream;           /* body bytes seen (a 200 to a Range) */
	uint64_t clen;             /* Content-Length or UNKNOWN */
	uint64_t cr_start, cr_total;
	bool have_cr, refused, stopped, overflow, bad_range;
	int attempts;
	double retry_at;           /* monotonic seconds; 0 = not waiting */
	char cerr[CURL_ERROR_SIZE];
} req;

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "Name: value" header line?  Sets the value (trimmed). */
static bool
header_is(const char *b, size_t len, const char *name, const char **v, size_t *vl)
{
	size_t n = strlen(name);
	if (len <= n || strncasecmp(b, name, n) || b[n] != ':')
		return false;
	size_t i = n + 1;
	while (i < len && (b[i] == ' ' || b[i] == '\t'))
		i++;
	size_t e = len;
	while (e > i && (b[e - 1] == '\r' || b[e - 1] == '\n' || b[e - 1] == ' '))
		e--;
	*v = b + i;
	*vl = e - i;
	return true;
}

/* Decimal digits at *p (advanced); false when none or overflow. */
static bool
parse_dec(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;
	while (*p < end && **p >= '0' && **p <= '9') {
		if (!ws_mul_u64(v, 10, &v) || !ws_add_u64(v, (uint64_t)(**p - '0'), &v))
			return false;
		(*p)++;
	}
	*out = v;
	return *p > s;
}

static size_t
on_header(char *b, size_t sz, size_t n, void *ud)
{
	req *r = ud;
	size_t len = sz * n;
	const char *v;
	size_t vl;

	if (len >= 5 && !strncasecmp(b, "HTTP/", 5)) {
		/* a new response (after a redirect): forget the last one's */
		r->have_cr = false;
		r->clen = UNKNOWN;
		r->stream = 0;
	} else if (header_is(b, len, "Content-Range", &v, &vl)) {
		/* bytes A-B/T or bytes * /T (T may be '*') */
		const char *p = v, *end = v + vl;
		uint64_t a = 0, bb = 0, t = UNKNOWN;
		if (vl > 6 && !strncasecmp(p, "bytes ", 6)) {
			p += 6;
			bool ok = true;
			if (p < end && *p == '*')
				p++;
			else
				ok = parse_dec(&p, end, &a) && p < end && *p++ == '-' &&
				     parse_dec(&p, end, &bb);
			if (ok && p < end && *p++ == '/') {
				if (!(p < end && *p == '*') && !parse_dec(&p, end, &t))
					t = UNKNOWN;
				r->have_cr = true;
				r->cr_start = a;
				r->cr_total = t;
			}
		}
	} else if (header_is(b, len, "Content-Length", &v, &vl)) {
		const char *p = v;
		uint64_t cl;
		if (parse_dec(&p, v + vl, &cl) && p == v + vl)
			r->clen = cl;
	}
	return len;
}

/* Keep the bytes of [start, start+len) out of a body seen from `pos`. */
static void
keep(req *r, const char *b, size_t n, uint64_t pos)
{
	uint64_t lo = pos > r->start ? pos : r->start;
	uint64_t hi = pos + n, lim = r->start + r->len;
	if (hi > lim)
		hi = lim;
	if (lo >= hi)
		return;
	memcpy(r->buf + (lo - r->start), b + (lo - pos), (size_t)(hi - lo));
	if (lo - r->start + (hi - lo) > r->got)
		r->got = lo - r->start + (hi - lo);
}

static size_t
on_body(char *b, size_t sz, size_t n, void *ud)
{
	req *r = ud;
	size_t len = sz * n;
	long st = 0;

	curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &st);
	r->status = st;
	if (st == 206 && !r->whole) {
		if (!r->have_cr || r->cr_start != r->start) {
			r->bad_range = true;
			return 0;
		}
		keep(r, b, len, r->start + r->stream);
		r->stream += len;
		return len;
	}
	if (st == 200 && r->whole) {
		if (r->got + len > r->len) {
			r->overflow = true;
			return 0;
		}
		if (r->got + len > r->cap) {
			/* grown as it arrives: the limit is a bound, not a size */
			uint64_t nc = r->cap * 2 > r->got + len ? r->cap * 2 : r->got + len;
			uint8_t *nb = realloc(r->buf, (size_t)nc);
			if (!nb)
				return 0;
			r->buf = nb;
			r->cap = nc;
		}
		memcpy(r->buf + r->got, b, len);
		r->got += len;
		return len;
	}
	if (st == 200) {
		/* the server ignored Range and sends the whole file */
		if (!r->c->allow_full) {
			r->refused = true;
			return 0;
		}
		keep(r, b, len, r->stream);
		r->stream += len;
		if (r->got == r->len && r->clen != UNKNOWN) {
			r->stopped = true; /* enough: the size is known */
			return 0;
		}
		return len;
	}
	return len; /* an error page: discarded */
}

static void
attempt_reset(req *r)
{
	r->got = 0;
	r->status = 0;
	r->stream = 0;
	r->clen = UNKNOWN;
	r->have_cr = r->refused = r->stopped = r->overflow = r->bad_range = false;
	r->cerr[0] = '\0';
}

static int
req_setup(req *r, ws_error *err)
{
	char range[64];
	CURL *h = r->h = curl_easy_init();
	if (!h)
		return ws_err(err, WS_EXIT_INTERNAL, r->url, "cannot start a transfer");
	r->cap = r->whole ? 16384 : r->len ? r->len : 1;
	r->buf = malloc((size_t)r->cap);
	if (!r->buf)
		return ws_err_oom(err, r->url);
	attempt_reset(r);
	curl_easy_setopt(h, CURLOPT_URL, r->url);
	curl_easy_setopt(h, CURLOPT_PRIVATE, r);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT_S);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, STALL_S);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "weightscan/" WS_VERSION);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, r->cerr);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
	if (r->c->share)
		curl_easy_setopt(h, CURLOPT_SHARE, r->c->share);
	/* HTTPS: wait for the first connection's ALPN and multiplex on it
	 * (HTTP/2) rather than open one connection per request */
	if (!strncmp(r->url, "https://", 8))
		curl_easy_setopt(h, CURLOPT_PIPEWAIT, 1L);
	if (r->c->auth && r->c->auth_prefix &&
	    !strncmp(r->url, r->c->auth_prefix, strlen(r->c->auth_prefix)))
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, r->c->auth);
	if (!r->whole) {
		snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)r->start,
			 (unsigned long long)(r->start + r->len - 1));
		curl_easy_setopt(h, CURLOPT_RANGE, range);
	}
	return 0;
}

static void
req_free(req *r)
{
	if (r->h)
		curl_easy_cleanup(r->h);
	r->h = NULL;
	free(r->buf);
	r->buf = NULL;
	free(r->url);
	r->url = NULL;
}

enum { DONE = 0, RETRY = 1 };

/* Retry while attempts remain, else fail with msg. */
static int
retry_or_fail(req *r, ws_error *err, const char *msg)
{
	if (r->attempts < MAX_ATTEMPTS)
		return RETRY;
	ws_err(err, WS_EXIT_INPUT, r->url, "%s (after %d attempts): try again later", msg,
	       r->attempts);
	err->http_status = r->status;
	return ws_err_kind(-1, err, r->status >= 400 ? WS_ERRK_HTTP : WS_ERRK_NETWORK);
}

/* What one finished attempt means: DONE, RETRY or -1 (err set). */
static int
finish(req *r, CURLcode cc, ws_error *err)
{
	char msg[512];
	long st = 0;

	curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &st);
	r->status = st;
	if (r->refused)
		return ws_err(err, WS_EXIT_INPUT, r->url,
			      "the server ignores Range requests (it answered HTTP 200 with the "
			      "whole file%s%s); refusing to download it: pass "
			      "--allow-full-download to accept",
			      r->clen != UNKNOWN ? ", bytes: " : "",
			      r->clen != UNKNOWN ? ws_fmt_commas(r->clen, msg, sizeof msg) : "");
	if (r->overflow)
		return ws_err(err, WS_EXIT_INPUT, r->url,
			      "larger than the %llu-byte limit for a JSON file",
			      (unsigned long long)r->len);
	if (r->bad_range)
		return ws_err(err, WS_EXIT_INPUT, r->url,
			      "the server answered another range than the one asked for");
	if (!(cc == CURLE_WRITE_ERROR && r->stopped) && cc != CURLE_OK) {
		static const CURLcode transient[] = {
			CURLE_OPERATION_TIMEDOUT, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR,
			CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2, CURLE_HTTP2_STREAM,
		};
		snprintf(msg, sizeof msg, "%s", r->cerr[0] ? r->cerr : curl_easy_strerror(cc));
		if (cc == CURLE_PARTIAL_FILE)
			snprintf(msg, sizeof msg,
				 "truncated response: the connection closed before the whole "
				 "body arrived (%s)", r->cerr[0] ? r->cerr : "partial file");
		for (size_t i = 0; i < sizeof transient / sizeof transient[0]; i++)
			if (cc == transient[i])
				return retry_or_fail(r, err, msg);
		return ws_err_kind(ws_err(err, WS_EXIT_INPUT, r->url, "%s", msg), err,
				   WS_ERRK_NETWORK);
	}
	if (st == 404 || st == 410) {
		if (r->optional) {
			r->missing = true;
			return DONE;
		}
		ws_err(err, WS_EXIT_INPUT, r->url, "not found (HTTP %ld)", st);
		err->http_status = st;
		return ws_err_kind(-1, err, WS_ERRK_HTTP);
	}
	if (st == 401 || st == 403) {
		ws_err(err, WS_EXIT_INPUT, r->url, st == 401
		       ? "HTTP 401: authentication required (a gated or private Hugging Face "
			 "repository needs HF_TOKEN)"
		       : "HTTP 403: access denied (for a gated repository, accept its terms and "
			 "set HF_TOKEN)");
		err->http_status = st;
		return ws_err_kind(-1, err, WS_ERRK_GATED);
	}
	if (st == 429 || (st >= 500 && st <= 599)) {
		snprintf(msg, sizeof msg, "HTTP %ld from the server", st);
		return retry_or_fail(r, err, msg);
	}
	if (st == 416 && !r->whole && r->have_cr && r->cr_total != UNKNOWN &&
	    r->start >= r->cr_total) {
		/* nothing at or after start: an empty file when start is 0 */
		r->total = r->cr_total;
		r->got = 0;
		return DONE;
	}
	if (r->whole && st == 200) {
		r->total = r->got;
		return DONE;
	}
	if (!r->whole && (st == 206 || st == 200)) {
		if (st == 206)
			r->total = r->cr_total;
		else
			r->total = r->clen != UNKNOWN ? r->clen : r->stream;
		if (r->total == UNKNOWN)
			return ws_err(err, WS_EXIT_INPUT, r->url,
				      "the server did not say the file's size (Content-Range)");
		uint64_t want = r->start >= r->total ? 0
				: r->total - r->start < r->len ? r->total - r->start : r->len;
		if (r->got != want) {
			snprintf(msg, sizeof msg,
				 "truncated response: %llu of the %llu bytes asked for arrived",
				 (unsigned long long)r->got, (unsigned long long)want);
			return retry_or_fail(r, err, msg);
		}
		return DONE;
	}
	ws_err(err, WS_EXIT_INPUT, r->url, "unexpected HTTP status %ld", st);
	err->http_status = st;
	return ws_err_kind(-1, err, WS_ERRK_HTTP);
}

/* Requests made one at a time by a producer, so that only a window of
 * them (curl handles and buffers) exists at once, however many there are:
 * memory follows the window and the bytes received, not a declared count. */
typedef struct feed {
	size_t n;          /* requests at most (sizes the window) */
	const char *what;  /* named when the transfer engine fails */
	/* Set up the next request in r with req_init: 1, or 0 when none is
	 * left, or -1 (err set). */
	int (*next)(void *ud, req *r, ws_error *err);
	/* r is done: take what is wanted (r->buf may be taken); 0 or -1. */
	int (*done)(void *ud, req *r, ws_error *err);
	void *ud;
} feed;

static void
slot_free(CURLM *mh, req *r)
{
	if (r->added)
		curl_multi_remove_handle(mh, r->h);
	r->added = false;
	req_free(r);
	r->busy = false;
}

/* Run the feed's requests, WINDOW at most at a time; retries wait their
 * backoff.  0 when all are done (a missing optional one included), -1 at
 * the first failure (the requests in flight are dropped). */
static int
run_feed(const feed *fd, ws_error *err)
{
	size_t win = fd->n < WINDOW ? fd->n : WINDOW, active = 0;
	bool more = true;
	int rc = -1;
	if (!win)
		return 0;
	req *w = calloc(win, sizeof *w);
	CURLM *mh = curl_multi_init();
	if (!w || !mh) {
		ws_err(err, WS_EXIT_INTERNAL, fd->what, "cannot start transfers");
		goto out;
	}
	curl_multi_setopt(mh, CURLMOPT_MAX_HOST_CONNECTIONS, MAX_PARALLEL);
	curl_multi_setopt(mh, CURLMOPT_MAX_TOTAL_CONNECTIONS, MAX_PARALLEL);
	for (;;) {
		/* a free slot starts the next request: handle and buffer now */
		for (size_t s = 0; more && s < win; s++) {
			req *r = &w[s];
			if (r->busy)
				continue;
			int v = fd->next(fd->ud, r, err);
			if (v < 0)
				goto out;
			if (v == 0) {
				more = false;
				break;
			}
			r->busy = true;
			r->attempts = 1;
			active++;
			if (req_setup(r, err))
				goto out;
			if (curl_multi_add_handle(mh, r->h) != CURLM_OK) {
				ws_err(err, WS_EXIT_INTERNAL, r->url, "cannot start a transfer");
				goto out;
			}
			r->added = true;
		}
		if (!active)
			break;
		int running = 0, q, wait_ms = 200;
		if (curl_multi_perform(mh, &running) != CURLM_OK) {
			ws_err(err, WS_EXIT_INTERNAL, fd->what, "transfer engine failed");
			goto out;
		}
		CURLMsg *msg;
		while ((msg = curl_multi_info_read(mh, &q))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			char *pv = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &pv);
			req *r = (req *)pv;
			CURLcode cc = msg->data.result;
			curl_multi_remove_handle(mh, r->h);
			r->added = false;
			int v = finish(r, cc, err);
			if (v < 0)
				goto out;
			if (v == RETRY) {
				r->retry_at = now_s() + BACKOFF_MS / 1000.0 * (double)(1 << (r->attempts - 1));
				continue;
			}
			/* the handle goes before done() may move the request */
			curl_easy_cleanup(r->h);
			r->h = NULL;
			if (fd->done(fd->ud, r, err))
				goto out;
			slot_free(mh, r);
			active--;
			if (more)
				wait_ms = 0;
		}
		double t = now_s();
		for (size_t s = 0; s < win; s++) {
			req *r = &w[s];
			if (!r->busy || r->retry_at == 0)
				continue;
			if (r->retry_at <= t) {
				r->retry_at = 0;
				r->attempts++;
				attempt_reset(r);
				if (curl_multi_add_handle(mh, r->h) != CURLM_OK) {
					ws_err(err, WS_EXIT_INTERNAL, r->url, "cannot restart a transfer");
					goto out;
				}
				r->added = true;
				wait_ms = 0;
			} else if ((r->retry_at - t) * 1000 < wait_ms) {
				wait_ms = (int)((r->retry_at - t) * 1000) + 1;
			}
		}
		if (active && wait_ms)
			curl_multi_poll(mh, NULL, 0, wait_ms, NULL);
	}
	rc = 0;
out:
	for (size_t s = 0; w && s < win; s++)
		slot_free(mh, &w[s]);
	if (mh)
		curl_multi_cleanup(mh);
	free(w);
	return rc;
}

/* A few requests made beforehand (the first round's probes): each is moved
 * into a slot to run and back when done, its outcome kept. */
typedef struct list {
	req *rs;
	size_t n, pos;
} list;

static int
list_next(void *ud, req *r, ws_error *err)
{
	list *l = ud;
	(void)err;
	if (l->pos == l->n)
		return 0;
	*r = l->rs[l->pos];
	memset(&l->rs[l->pos], 0, sizeof *r);
	r->item = l->pos++;
	return 1;
}

static int
list_done(void *ud, req *r, ws_error *err)
{
	list *l = ud;
	(void)err;
	l->rs[r->item] = *r;
	memset(r, 0, sizeof *r);
	return 0;
}

static int
run_list(req *rs, size_t n, ws_error *err)
{
	list l = {rs, n, 0};
	feed fd = {n, n ? rs[0].url : "", list_next, list_done, &l};
	return run_feed(&fd, err);
}

/* ==== locations ==== */

/* Percent-encode everything but unreserved characters (and '/' when
 * keep_slash): shard names go into URLs as they are in index.json. */
static char *
url_escape(const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *o = malloc(3 * n + 1), *p = o;
	if (!o)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = '\0';
	return o;
}

/* Where a PATH points: the folder's URL (fetched) and display form, both
 * ending in '/', and the file name in it (NULL for the folder itself). */
typedef struct loc {
	char *url_dir;
	char *disp_dir;
	char *file;
	bool hub;
} loc;

static void
loc_free(loc *l)
{
	free(l->url_dir);
	free(l->disp_dir);
	free(l->file);
}

static int
parse_loc(const char *path, loc *l, ws_error *err)
{
	memset(l, 0, sizeof *l);
	if (!strncasecmp(path, "hf://", 5)) {
		/* hf://ORG/NAME[@REVISION][/FILE] */
		const char *p = path + 5, *s1 = strchr(p, '/');
		if (!s1 || s1 == p || !s1[1] || s1[1] == '/' || s1[1] == '@')
			return ws_err(err, WS_EXIT_INPUT, path,
				      "a Hugging Face path is hf://ORG/NAME[@REVISION][/FILE]");
		const char *name = s1 + 1, *s2 = strchr(name, '/');
		size_t nl = s2 ? (size_t)(s2 - name) : strlen(name);
		const char *at = memchr(name, '@', nl);
		char *rev = at ? strndup(at + 1, nl - (size_t)(at + 1 - name)) : strdup("main");
		char *erev = rev ? url_escape(rev, false) : NULL;
		const char *ep = getenv("HF_ENDPOINT");
		if (!ep || !*ep)
			ep = "https://huggingface.co";
		size_t el = strlen(ep);
		while (el && ep[el - 1] == '/')
			el--;
		int ok = erev && *rev &&
			 asprintf(&l->url_dir, "%.*s/%.*s/%.*s/resolve/%s/", (int)el, ep,
				  (int)(s1 - p), p, (int)(at ? (size_t)(at - name) : nl), name,
				  erev) >= 0 &&
			 asprintf(&l->disp_dir, "hf://%.*s/", (int)(s2 ? (size_t)(s2 - p) : strlen(p)),
				  p) >= 0;
		free(rev);
		free(erev);
		if (!ok)
			return ws_err(err, WS_EXIT_INPUT, path, "bad Hugging Face path (empty revision?)");
		l->hub = true;
		if (s2 && s2[1] && !(l->file = strdup(s2 + 1)))
			return ws_err_oom(err, path);
		return 0;
	}
	const char *host = strstr(path, "://") + 3;
	const char *slash = strrchr(host, '/');
	if (!slash) {
		/* http://host: the server's root folder */
		if (asprintf(&l->url_dir, "%s/", path) < 0 || !(l->disp_dir = strdup(l->url_dir)))
			return ws_err_oom(err, path);
		return 0;
	}
	if (!(l->url_dir = strndup(path, (size_t)(slash + 1 - path))) ||
	    !(l->disp_dir = strdup(l->url_dir)) ||
	    (slash[1] && !(l->file = strdup(slash + 1))))
		return ws_err_oom(err, path);
	return 0;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcasecmp(s + a - b, suffix);
}

/* A request for dir + name (name escaped for the URL; '/' kept). */
static int
req_init(req *r, const rctx *c, const loc *l, const char *name, bool whole,
	 uint64_t start, uint64_t len, bool optional, ws_error *err)
{
	memset(r, 0, sizeof *r);
	char *e = url_escape(name, true);
	if (!e || asprintf(&r->url, "%s%s", l->url_dir, e) < 0) {
		free(e);
		r->url = NULL;
		return ws_err_oom(err, name);
	}
	free(e);
	r->c = c;
	r->whole = whole;
	r->start = start;
	r->len = len;
	r->optional = optional;
	r->total = UNKNOWN;
	return 0;
}

/* ==== files: prefixes, grown until the reader has what it needs ==== */

typedef struct rfile {
	char *disp;            /* path shown (display folder + name) */
	char *name;            /* name inside the folder */
	uint8_t *buf;
	uint64_t have, total;
	bool fetched;          /* a first range is in (possibly from a probe) */
} rfile;

static void
rfiles_free(rfile *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++) {
		free(f[i].disp);
		free(f[i].name);
		free(f[i].buf);
	}
	free(f);
}

/* Take a finished range request's bytes into a file (appended).  The
 * buffer was sized for the range asked for; what is kept is what came. */
static int
take(rfile *f, req *r, ws_error *err)
{
	if (!f->buf) {
		uint8_t *nb = realloc(r->buf, r->got ? (size_t)r->got : 1);
		f->buf = nb ? nb : r->buf; /* a failed shrink keeps the larger one */
		r->buf = NULL;
		f->have = r->got;
	} else {
		uint8_t *nb = realloc(f->buf, (size_t)(f->have + r->got) + 1);
		if (!nb)
			return ws_err_oom(err, f->disp);
		memcpy(nb + f->have, r->buf, (size_t)r->got);
		f->buf = nb;
		f->have += r->got;
	}
	f->total = r->total;
	f->fetched = true;
	return 0;
}

/* A round's producer: the files with want[i] > have, in order. */
typedef struct rround {
	const rctx *c;
	const loc *l;
	rfile *f;
	const uint64_t *want;
	size_t n, pos;
} rround;

static int
round_next(void *ud, req *r, ws_error *err)
{
	rround *rd = ud;
	while (rd->pos < rd->n && rd->want[rd->pos] <= rd->f[rd->pos].have)
		rd->pos++;
	if (rd->pos == rd->n)
		return 0;
	rfile *f = &rd->f[rd->pos];
	if (req_init(r, rd->c, rd->l, f->name, false, f->have, rd->want[rd->pos] - f->have,
		     false, err))
		return -1;
	r->item = rd->pos++;
	return 1;
}

static int
round_done(void *ud, req *r, ws_error *err)
{
	rround *rd = ud;
	return take(&rd->f[r->item], r, err);
}

/* One round: for every file with want[i] > have, fetch [have, want). */
static int
fetch_round(const rctx *c, const loc *l, rfile *f, const uint64_t *want, size_t n,
	    ws_error *err)
{
	rround rd = {c, l, f, want, n, 0};
	feed fd = {n, l->disp_dir, round_next, round_done, &rd};
	return run_feed(&fd, err);
}

static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t
min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* safetensors: a first range, then the rest of the header when longer;
 * the files are added to m and parsed in order. */
static int
load_safetensors(const rctx *c, ws_model *m, const loc *l, rfile *f, size_t n,
		 ws_error *err)
{
	uint64_t *want = calloc(n ? n : 1, sizeof *want);
	int rc = -1;
	if (!want)
		return ws_err_oom(err, l->disp_dir);
	for (size_t i = 0; i < n; i++)
		want[i] = f[i].fetched ? 0 : ST_FIRST_RANGE;
	if (fetch_round(c, l, f, want, n, err))
		goto out;
	for (size_t i = 0; i < n; i++) {
		want[i] = 0;
		if (f[i].have < 8)
			continue;
		uint64_t hn = le64(f[i].buf);
		/* a length past the limit or the file is the reader's to report */
		if (hn <= ST_MAX_HEADER && 8 + hn <= f[i].total && 8 + hn > f[i].have)
			want[i] = 8 + hn;
	}
	if (fetch_round(c, l, f, want, n, err))
		goto out;
	m->format = WS_FORMAT_SAFETENSORS;
	for (size_t i = 0; i < n; i++) {
		int idx = ws_model_add_buffer(m, f[i].disp, f[i].buf, f[i].have, f[i].total, err);
		f[i].buf = NULL;
		if (idx < 0 || ws_safetensors_parse(m, (uint32_t)idx, err))
			goto out;
	}
	rc = 0;
out:
	free(want);
	return rc;
}

/* Parse a copy of the prefix in a scratch model: does the reader need
 * more bytes?  (A parse that fails for another reason is redone, and
 * reported, on the real model.) */
static int
gguf_needs_more(const rfile *f, bool *more, ws_error *err)
{
	ws_model *tmp = ws_model_new(f->disp);
	uint8_t *copy = malloc(f->have ? (size_t)f->have : 1);
	ws_strset names = {0};
	ws_error e = {0};
	if (!tmp || !copy) {
		free(copy);
		ws_model_free(tmp);
		return ws_err_oom(err, f->disp);
	}
	memcpy(copy, f->buf, (size_t)f->have);
	int idx = ws_model_add_buffer(tmp, f->disp, copy, f->have, f->total, &e);
	int r = idx < 0 ? -1 : ws_gguf_parse(tmp, (uint32_t)idx, &names, &e);
	ws_strset_free(&names);
	ws_model_free(tmp);
	if (idx < 0 && e.code == WS_EXIT_INTERNAL) {
		*err = e;
		return -1;
	}
	*more = r == WS_NEED_MORE;
	return 0;
}

/* GGUF (one file or a split set): metadata in doubling chunks. */
static int
load_gguf(const rctx *c, ws_model *m, const loc *l, rfile *f, size_t n, ws_error *err)
{
	uint64_t *want = calloc(n ? n : 1, sizeof *want);
	ws_strset names = {0};
	int rc = -1;
	if (!want)
		return ws_err_oom(err, l->disp_dir);
	for (size_t i = 0; i < n; i++)
		want[i] = f[i].fetched ? 0 : GGUF_FIRST_RANGE;
	for (;;) {
		if (fetch_round(c, l, f, want, n, err))
			goto out;
		bool any = false;
		for (size_t i = 0; i < n; i++) {
			bool more = false;
			want[i] = 0;
			if (gguf_needs_more(&f[i], &more, err))
				goto out;
			if (!more)
				continue;
			uint64_t w = min_u64(f[i].total, f[i].have * 2 > GGUF_FIRST_RANGE
								  ? f[i].have * 2 : GGUF_FIRST_RANGE);
			if (w > GGUF_MAX_META) {
				ws_err_at(err, f[i].disp, f[i].have,
					  "GGUF metadata runs past %llu MiB; not fetched",
					  (unsigned long long)(GGUF_MAX_META >> 20));
				goto out;
			}
			want[i] = w;
			any = true;
		}
		if (!any)
			break;
	}
	m->format = WS_FORMAT_GGUF;
	for (size_t i = 0; i < n; i++) {
		int idx = ws_model_add_buffer(m, f[i].disp, f[i].buf, f[i].have, f[i].total, err);
		f[i].buf = NULL;
		if (idx < 0 || ws_gguf_parse(m, (uint32_t)idx, &names, err))
			goto out;
	}
	rc = ws_gguf_finish(m, (unsigned)n, err);
out:
	ws_strset_free(&names);
	free(want);
	return rc;
}

static rfile *
rfiles_new(const loc *l, const char *const *names, size_t n, ws_error *err)
{
	rfile *f = calloc(n ? n : 1, sizeof *f);
	if (!f) {
		ws_err_oom(err, l->disp_dir);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		f[i].total = UNKNOWN;
		if (!(f[i].name = strdup(names[i])) ||
		    asprintf(&f[i].disp, "%s%s", l->disp_dir, names[i]) < 0) {
			f[i].disp = NULL;
			rfiles_free(f, n);
			ws_err_oom(err, l->disp_dir);
			return NULL;
		}
	}
	return f;
}

/* ==== JSON files ==== */

static cJSON *
req_json(req *r, const char *disp, ws_error *err)
{
	return ws_parse_json_buf((const char *)r->buf, (size_t)r->got, disp, err);
}

static int
set_config(ws_model *m, req *r, const char *disp, ws_error *err)
{
	cJSON *cfg = req_json(r, disp, err);
	if (!cfg)
		return -1;
	return ws_model_set_config(m, cfg, disp, err);
}

/* ==== what a PATH names ==== */

/* NAME-#####-of-#####.gguf, by the rule of the local reader (src/gguf.c):
 * a part number from 1 to the count, a count of 1 to 99999 (five digits);
 * any other name is a single file.  The count comes from a name, not from
 * bytes, so the set goes through the bounded window like an index. */
static bool
gguf_split_name(const char *name, size_t *prefix, unsigned *count)
{
	static const char pat[] = "-#####-of-#####.gguf";
	size_t len = strlen(name), pl = sizeof pat - 1;
	unsigned a = 0, b = 0;
	if (len <= pl)
		return false;
	const char *s = name + len - pl;
	for (size_t i = 0; i < pl; i++) {
		if (pat[i] == '#') {
			if (s[i] < '0' || s[i] > '9')
				return false;
			unsigned *d = i < 6 ? &a : &b;
			*d = *d * 10 + (unsigned)(s[i] - '0');
		} else if (s[i] != pat[i]) {
			return false;
		}
	}
	if (a == 0 || b == 0 || a > b)
		return false;
	*prefix = len - pl;
	*count = b;
	return true;
}

/* A split set's first ranges, part after part.  The parts' records grow as
 * their requests start, so a count only a name declares costs no more than
 * the parts that answer plus the window: the first missing part ends it. */
typedef struct split {
	const rctx *c;
	const loc *l;
	const char *name;  /* the part named in the PATH */
	size_t prefix;
	unsigned count, started;
	rfile *f;
	size_t cap;        /* records allocated (zeroed past started) */
} split;

static int
split_next(void *ud, req *r, ws_error *err)
{
	split *sp = ud;
	if (sp->started == sp->count)
		return 0;
	if (sp->started == sp->cap) {
		size_t nc = sp->cap ? sp->cap * 2 : WINDOW;
		if (nc > sp->count)
			nc = sp->count;
		rfile *nf = realloc(sp->f, nc * sizeof *nf);
		if (!nf)
			return ws_err_oom(err, sp->l->disp_dir);
		memset(nf + sp->cap, 0, (nc - sp->cap) * sizeof *nf);
		sp->f = nf;
		sp->cap = nc;
	}
	rfile *f = &sp->f[sp->started];
	f->total = UNKNOWN;
	if (asprintf(&f->name, "%.*s-%05u-of-%05u.gguf", (int)sp->prefix, sp->name,
		     sp->started + 1, sp->count) < 0) {
		f->name = NULL;
		return ws_err_oom(err, sp->l->disp_dir);
	}
	if (asprintf(&f->disp, "%s%s", sp->l->disp_dir, f->name) < 0) {
		f->disp = NULL;
		return ws_err_oom(err, sp->l->disp_dir);
	}
	if (req_init(r, sp->c, sp->l, f->name, false, 0, GGUF_FIRST_RANGE, false, err))
		return -1;
	r->item = sp->started++;
	return 1;
}

static int
split_done(void *ud, req *r, ws_error *err)
{
	split *sp = ud;
	return take(&sp->f[r->item], r, err);
}

static int
open_gguf(const rctx *c, ws_model *m, const loc *l, rfile *first, ws_error *err)
{
	size_t prefix;
	unsigned count;
	if (!gguf_split_name(first->name, &prefix, &count) || count == 1)
		return load_gguf(c, m, l, first, 1, err);
	/* the whole split set, whichever part was named */
	split sp = {c, l, first->name, prefix, count, 0, NULL, 0};
	feed fd = {count, l->disp_dir, split_next, split_done, &sp};
	int rc = run_feed(&fd, err);
	if (!rc)
		rc = load_gguf(c, m, l, sp.f, count, err);
	rfiles_free(sp.f, sp.cap);
	return rc;
}

/* An index.json already fetched: every shard's header, concurrently. */
static int
open_index(const rctx *c, ws_model *m, const loc *l, req *ir, const char *index_name,
	   ws_error *err)
{
	char *disp = NULL;
	if (asprintf(&disp, "%s%s", l->disp_dir, index_name) < 0)
		return ws_err_oom(err, l->disp_dir);
	cJSON *idx = req_json(ir, disp, err);
	m->index = idx;
	m->index_path = disp;
	if (!idx)
		return -1;
	m->format = WS_FORMAT_SAFETENSORS;
	const char **shards;
	size_t n;
	/* before any shard is fetched: what a good index cannot be */
	if (ws_index_duplicate_first(idx, disp, err) || ws_index_shards(idx, disp, &shards, &n, err))
		return -1;
	if (n > MAX_SHARDS) {
		free(shards);
		return ws_err(err, WS_EXIT_INPUT, disp,
			      "weight_map names %zu distinct shards; more than %d are refused",
			      n, MAX_SHARDS);
	}
	rfile *f = rfiles_new(l, shards, n, err);
	free(shards);
	if (!f)
		return -1;
	int rc = load_safetensors(c, m, l, f, n, err);
	rfiles_free(f, n);
	return rc ? -1 : ws_index_check(m, err);
}

static bool
is_index_name(const char *name)
{
	return ends_with(name, ".json") && strcmp(name, "config.json") &&
	       !ends_with(name, "/config.json");
}

/*
 * The first round asks for everything that might be there at once: the
 * config beside the weights, the index, and the first range of a single
 * file, so a folder costs one round trip before its shards.
 */
static int
open_loc(const rctx *c, ws_model *m, loc *l, bool want_config, ws_error *err)
{
	static const char *const probes[] = {"model.safetensors.index.json", "model.safetensors"};
	const char *file = l->file;
	bool folder = !file || !strcmp(file, "config.json") || ends_with(file, "/config.json");
	req rs[3];
	size_t n = 0;
	int rc = -1;

	memset(rs, 0, sizeof rs);
	if (folder && file && strchr(file, '/')) {
		/* sub/config.json: the folder is sub/ */
		char *dir = NULL;
		const char *s = strrchr(file, '/');
		if (asprintf(&dir, "%s%.*s/", l->url_dir, (int)(s - file), file) < 0)
			return ws_err_oom(err, file);
		free(l->url_dir);
		l->url_dir = dir;
		if (asprintf(&dir, "%s%.*s/", l->disp_dir, (int)(s - file), file) < 0)
			return ws_err_oom(err, file);
		free(l->disp_dir);
		l->disp_dir = dir;
	}
	const char *name = folder ? probes[0] : file;
	bool index = folder || is_index_name(file);
	bool gguf = !folder && ends_with(file, ".gguf");
	int cfg = -1, main_req = -1, single = -1;
	if (want_config && !gguf) {
		cfg = (int)n;
		if (req_init(&rs[n++], c, l, "config.json", true, 0, MAX_JSON, true, err))
			goto out;
	}
	main_req = (int)n;
	if (req_init(&rs[n++], c, l, name, index, 0,
		     index ? MAX_JSON : gguf ? GGUF_FIRST_RANGE : ST_FIRST_RANGE, folder, err))
		goto out;
	if (folder) {
		single = (int)n;
		if (req_init(&rs[n++], c, l, probes[1], false, 0, ST_FIRST_RANGE, true, err))
			goto out;
	}
	if (run_list(rs, n, err))
		goto out;

	if (index && !rs[main_req].missing) {
		rc = open_index(c, m, l, &rs[main_req], name, err);
	} else if (folder && rs[single].missing) {
		rc = ws_err(err, WS_EXIT_INPUT, l->disp_dir,
			    "neither %s nor %s is at %s (a folder URL is probed for these "
			    "names; give the weight file's own URL)", probes[0], probes[1],
			    l->url_dir);
	} else {
		const char *fname = folder ? probes[1] : file;
		req *r = folder ? &rs[single] : &rs[main_req];
		rfile *f = rfiles_new(l, &fname, 1, err);
		if (!f)
			goto out;
		if (take(f, r, err)) {
			rfiles_free(f, 1);
			goto out;
		}
		bool is_gguf = f->have >= 4 && !memcmp(f->buf, "GGUF", 4);
		rc = is_gguf ? open_gguf(c, m, l, f, err) : load_safetensors(c, m, l, f, 1, err);
		rfiles_free(f, 1);
	}
	if (!rc && cfg >= 0 && !rs[cfg].missing && m->format == WS_FORMAT_SAFETENSORS) {
		char *disp = NULL;
		if (asprintf(&disp, "%sconfig.json", l->disp_dir) < 0) {
			rc = ws_err_oom(err, l->disp_dir);
			goto out;
		}
		rc = set_config(m, &rs[cfg], disp, err);
		free(disp);
	}
out:
	for (size_t i = 0; i < n; i++)
		req_free(&rs[i]);
	return rc ? -1 : 0;
}

static void
ctx_free(rctx *c)
{
	curl_slist_free_all(c->auth);
	free(c->auth_prefix);
	if (c->share)
		curl_share_cleanup(c->share);
	memset(c, 0, sizeof *c);
}

static int
ctx_init(rctx *c, const loc *l, bool allow_full, ws_error *err)
{
	memset(c, 0, sizeof *c);
	c->allow_full = allow_full;
	if (curl_load(err, l->disp_dir))
		return -1;
	/* without it every round would connect anew */
	if ((c->share = curl_share_init()) != NULL) {
		curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
		curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
		curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
	}
	const char *tok = getenv("HF_TOKEN");
	if (l->hub && tok && *tok) {
		char *h = NULL;
		if (asprintf(&h, "Authorization: Bearer %s", tok) < 0) {
			ctx_free(c);
			return ws_err_oom(err, l->disp_dir);
		}
		c->auth = curl_slist_append(NULL, h);
		free(h);
		c->auth_prefix = c->auth ? strdup(l->url_dir) : NULL;
		if (!c->auth_prefix) {
			ctx_free(c);
			return ws_err_oom(err, l->disp_dir);
		}
	}
	return 0;
}

int
ws_remote_open(const char *path, const ws_open_opts *opts, ws_model **out, ws_error *err)
{
	loc l;
	rctx c;
	ws_model *m = NULL;
	int rc = -1;

	*out = NULL;
	if (parse_loc(path, &l, err))
		goto out0;
	if (ctx_init(&c, &l, opts && opts->allow_full_download, err))
		goto out0;
	m = ws_model_new(path);
	if (!m) {
		ws_err_oom(err, path);
		goto out;
	}
	bool own_config = opts && opts->config_path;
	if (open_loc(&c, m, &l, !own_config, err))
		goto out;
	if (own_config && ws_model_load_config(m, opts->config_path, err))
		goto out;
	rc = 0;
out:
	ctx_free(&c);
out0:
	loc_free(&l);
	if (rc) {
		ws_model_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int
ws_remote_load_config(ws_model *m, const char *path, ws_error *err)
{
	loc l;
	rctx c;
	req r;
	int rc = -1;

	memset(&r, 0, sizeof r);
	if (parse_loc(path, &l, err))
		goto out0;
	if (!l.file) {
		ws_err(err, WS_EXIT_INPUT, path, "a config URL names a .json file");
		goto out0;
	}
	if (ctx_init(&c, &l, false, err))
		goto out0;
	if (!req_init(&r, &c, &l, l.file, true, 0, MAX_JSON, false, err) &&
	    !run_list(&r, 1, err))
		rc = set_config(m, &r, path, err);
	req_free(&r);
	ctx_free(&c);
out0:
	loc_free(&l);
	return rc ? -1 : 0;
}

#endif /* WS_HAVE_REMOTE */
