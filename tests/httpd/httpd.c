/*
 * httpd.c - a small HTTP/1.1 file server for the remote tests.
 *
 *   ws-httpd ROOT [--idle SECONDS] [--delay MS] [--redirect-all BASE]
 *
 * Listens on 127.0.0.1 only, on an ephemeral port it prints on stdout
 * ("PORT\n"), and serves the regular files under ROOT with GET and HEAD,
 * single byte ranges (206, 416), keep-alive, one thread per connection.
 * Exits after SECONDS (default 30) without a request.  Test routes, as
 * path prefixes:
 *   /_redirect/P    302 to /P
 *   /_norange/P     P served whole (200), ignoring Range
 *   /_truncate/P    P with honest headers, the connection closed after
 *                   half the body
 *   /_flaky/P       503 the first time each P is asked for, then P
 *   /_status/NNN/P  answers HTTP NNN
 *   /__stats        "bytes N\nrequests M\nrounds R\nauth A\n": what was
 *                   sent for every other request (status line, headers and
 *                   body), in how many sequential rounds they came, and how
 *                   many carried an Authorization header
 * --redirect-all BASE answers every request but /__stats with a 302 to
 * BASE + the same target: another host, for the token tests.
 * --delay MS holds every response MS milliseconds, each on its own (a
 * connection's thread sleeps; others go on), as a real network's round
 * trip would.  A round is a run of requests that arrive within 0.9 MS of
 * the first of them: a client that waits for one answer before asking the
 * next starts a new round each time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQ 16384
#define MAX_FLAKY 4096

static const char *root;
static atomic_ullong sent_bytes, served;
static atomic_llong last_activity;
static atomic_int active;
static long delay_ms;
static const char *redirect_all;
static atomic_ullong with_auth;
static pthread_mutex_t round_mu = PTHREAD_MUTEX_INITIALIZER;
static double round_start = -1e9;
static unsigned long long rounds;

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A request arrived: a new round when the last began 0.9 delay ago or
 * more (an answer takes a whole delay; with no delay, 1 ms). */
static void
count_round(void)
{
	double t = now_ms(), gap = delay_ms ? 0.9 * (double)delay_ms : 1.0;
	pthread_mutex_lock(&round_mu);
	if (t - round_start >= gap) {
		rounds++;
		round_start = t;
	}
	pthread_mutex_unlock(&round_mu);
}
static pthread_mutex_t flaky_mu = PTHREAD_MUTEX_INITIALIZER;
static char *flaky_seen[MAX_FLAKY];
static size_t n_flaky;

static long long
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec;
}

/* send all of buf; false when the peer went away */
static bool
send_all(int fd, const void *buf, size_t len, bool count)
{
	const char *p = buf;
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		if (count)
			atomic_fetch_add(&sent_bytes, (unsigned long long)n);
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool
reply(int fd, int status, const char *reason, const char *extra, const char *body,
      bool head, bool count)
{
	char h[1024];
	size_t bl = body ? strlen(body) : 0;
	int n = snprintf(h, sizeof h,
			 "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\nContent-Type: text/plain\r\n%s\r\n",
			 status, reason, bl, extra ? extra : "");
	if (!send_all(fd, h, (size_t)n, count))
		return false;
	return head || !bl || send_all(fd, body, bl, count);
}

/* %XX decoding; refuses NUL and ".." segments */
static bool
decode_path(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	for (const char *p = in; *p && *p != '?'; p++) {
		char c = *p;
		if (c == '%' && p[1] && p[2]) {
			char hx[3] = {p[1], p[2], 0};
			char *end;
			long v = strtol(hx, &end, 16);
			if (*end || v <= 0)
				return false;
			c = (char)v;
			p += 2;
		}
		if (o + 1 >= cap)
			return false;
		out[o++] = c;
	}
	out[o] = '\0';
	return !strstr(out, "/../") && strcmp(out + (o >= 3 ? o - 3 : 0), "/..");
}

static bool
first_time(const char *path)
{
	bool first = true;
	pthread_mutex_lock(&flaky_mu);
	for (size_t i = 0; i < n_flaky; i++)
		if (!strcmp(flaky_seen[i], path))
			first = false;
	if (first && n_flaky < MAX_FLAKY)
		flaky_seen[n_flaky++] = strdup(path);
	pthread_mutex_unlock(&flaky_mu);
	return first;
}

/* Range: bytes=A-B | bytes=A- | bytes=-N over a file of size; -1 bad */
static int
parse_range(const char *v, uint64_t size, uint64_t *a, uint64_t *b)
{
	if (strncasecmp(v, "bytes=", 6))
		return -1;
	v += 6;
	if (strchr(v, ','))
		return -1; /* one range only */
	char *end;
	if (*v == '-') {
		uint64_t n = strtoull(v + 1, &end, 10);
		if (end == v + 1 || !n)
			return -1;
		*a = n > size ? 0 : size - n;
		*b = size ? size - 1 : 0;
		return size ? 0 : 1;
	}
	*a = strtoull(v, &end, 10);
	if (end == v || *end != '-')
		return -1;
	const char *bs = end + 1;
	if (!*bs || *bs == '\r') {
		*b = size ? size - 1 : 0;
	} else {
		*b = strtoull(bs, &end, 10);
		if (*b < *a)
			return -1;
		if (*b >= size && size)
			*b = size - 1;
	}
	return *a >= size ? 1 : 0; /* 1: not satisfiable */
}

static bool
serve_file(int fd, const char *rel, const char *range, bool head, bool norange, bool truncate)
{
	char path[8192];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", root, rel);
	int ffd = open(path, O_RDONLY | O_CLOEXEC);
	if (ffd < 0 || fstat(ffd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (ffd >= 0)
			close(ffd);
		return reply(fd, 404, "Not Found", NULL, "not found\n", head, true);
	}
	uint64_t size = (uint64_t)st.st_size, a = 0, b = size ? size - 1 : 0;
	int status = 200;
	char extra[256] = "Accept-Ranges: bytes\r\n";
	if (range && !norange) {
		int r = parse_range(range, size, &a, &b);
		if (r == 1) {
			char x[128];
			snprintf(x, sizeof x, "Content-Range: bytes */%llu\r\n", (unsigned long long)size);
			close(ffd);
			return reply(fd, 416, "Range Not Satisfiable", x, NULL, head, true);
		}
		if (r == 0) {
			status = 206;
			snprintf(extra, sizeof extra, "Content-Range: bytes %llu-%llu/%llu\r\n",
				 (unsigned long long)a, (unsigned long long)b, (unsigned long long)size);
		}
	}
	if (norange)
		extra[0] = '\0';
	uint64_t len = size ? b - a + 1 : 0;
	char h[512];
	int n = snprintf(h, sizeof h, "HTTP/1.1 %d %s\r\nContent-Length: %llu\r\n"
			 "Content-Type: application/octet-stream\r\n%s\r\n",
			 status, status == 206 ? "Partial Content" : "OK",
			 (unsigned long long)len, extra);
	bool ok = send_all(fd, h, (size_t)n, true);
	uint64_t limit = truncate ? len / 2 : len, done = 0;
	char chunk[65536];
	while (ok && !head && done < limit) {
		size_t want = limit - done < sizeof chunk ? (size_t)(limit - done) : sizeof chunk;
		ssize_t r = pread(ffd, chunk, want, (off_t)(a + done));
		if (r <= 0)
			break;
		ok = send_all(fd, chunk, (size_t)r, true);
		done += (uint64_t)r;
	}
	close(ffd);
	return ok && !truncate; /* a truncated reply ends the connection */
}

/* One request from buf (headers only); false: close the connection. */
static bool
handle(int fd, char *req)
{
	char method[16], target[8192];
	if (sscanf(req, "%15s %8191s", method, target) != 2)
		return reply(fd, 400, "Bad Request", NULL, "bad request\n", false, true), false;
	bool head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET"))
		return reply(fd, 405, "Method Not Allowed", NULL, NULL, false, true);
	const char *range = NULL;
	bool close_after = false;
	for (char *line = strstr(req, "\r\n"); line; line = strstr(line + 2, "\r\n")) {
		char *l = line + 2;
		if (!strncasecmp(l, "Range:", 6))
			range = l + 6 + strspn(l + 6, " ");
		else if (!strncasecmp(l, "Connection:", 11) && strstr(l, "close"))
			close_after = true;
		else if (!strncasecmp(l, "Authorization:", 14) && strcmp(target, "/__stats"))
			atomic_fetch_add(&with_auth, 1);
	}
	char path[8192];
	if (target[0] != '/' || !decode_path(target, path, sizeof path))
		return reply(fd, 400, "Bad Request", NULL, "bad path\n", head, true), false;
	if (!strcmp(path, "/__stats")) {
		char body[128];
		pthread_mutex_lock(&round_mu);
		unsigned long long r = rounds;
		pthread_mutex_unlock(&round_mu);
		snprintf(body, sizeof body, "bytes %llu\nrequests %llu\nrounds %llu\nauth %llu\n",
			 (unsigned long long)atomic_load(&sent_bytes),
			 (unsigned long long)atomic_load(&served), r,
			 (unsigned long long)atomic_load(&with_auth));
		return reply(fd, 200, "OK", NULL, body, head, false) && !close_after;
	}
	atomic_fetch_add(&served, 1);
	count_round();
	if (delay_ms) {
		struct timespec d = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
		nanosleep(&d, NULL);
	}
	const char *p = path + 1;
	bool ok;
	if (redirect_all) {
		char loc[8400];
		snprintf(loc, sizeof loc, "Location: %s%s\r\n", redirect_all, target);
		ok = reply(fd, 302, "Found", loc, NULL, head, true);
	} else if (!strncmp(p, "_redirect/", 10)) {
		char loc[8300];
		snprintf(loc, sizeof loc, "Location: /%s\r\n", target + 11);
		ok = reply(fd, 302, "Found", loc, NULL, head, true);
	} else if (!strncmp(p, "_norange/", 9)) {
		ok = serve_file(fd, p + 9, range, head, true, false);
	} else if (!strncmp(p, "_truncate/", 10)) {
		ok = serve_file(fd, p + 10, range, head, false, true);
	} else if (!strncmp(p, "_flaky/", 7)) {
		ok = first_time(p + 7)
			? reply(fd, 503, "Service Unavailable", NULL, "try again\n", head, true)
			: serve_file(fd, p + 7, range, head, false, false);
	} else if (!strncmp(p, "_status/", 8)) {
		int code = atoi(p + 8);
		ok = reply(fd, code >= 200 && code <= 599 ? code : 500, "Status", NULL,
			   "status route\n", head, true);
	} else {
		ok = serve_file(fd, p, range, head, false, false);
	}
	return ok && !close_after;
}

static void *
conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char *buf = malloc(MAX_REQ + 1);
	size_t have = 0;
	struct timeval tv = {5, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	while (buf) {
		char *end = NULL;
		while (!(end = (have ? strstr(buf, "\r\n\r\n") : NULL))) {
			if (have >= MAX_REQ)
				goto done;
			ssize_t n = recv(fd, buf + have, MAX_REQ - have, 0);
			if (n <= 0)
				goto done;
			have += (size_t)n;
			buf[have] = '\0';
		}
		atomic_store(&last_activity, now_s());
		*end = '\0';
		size_t used = (size_t)(end + 4 - buf);
		bool keep = handle(fd, buf);
		memmove(buf, buf + used, have - used);
		have -= used;
		buf[have] = '\0';
		atomic_store(&last_activity, now_s());
		if (!keep)
			break;
	}
done:
	free(buf);
	close(fd);
	atomic_fetch_sub(&active, 1);
	return NULL;
}

int
main(int argc, char **argv)
{
	long idle = 30;
	if (argc < 2) {
		fprintf(stderr, "usage: ws-httpd ROOT [--idle SECONDS] [--delay MS]\n");
		return 2;
	}
	root = argv[1];
	for (int i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--idle"))
			idle = atol(argv[++i]);
		else if (!strcmp(argv[i], "--delay"))
			delay_ms = atol(argv[++i]);
		else if (!strcmp(argv[i], "--redirect-all"))
			redirect_all = argv[++i];
	signal(SIGPIPE, SIG_IGN);
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */
	socklen_t sl = sizeof sa;
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 256) != 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl) != 0) {
		perror("ws-httpd");
		return 1;
	}
	printf("%u\n", (unsigned)ntohs(sa.sin_port));
	fflush(stdout);
	atomic_store(&last_activity, now_s());
	for (;;) {
		struct pollfd pfd = {ls, POLLIN, 0};
		int r = poll(&pfd, 1, 250);
		if (r == 0) {
			if (atomic_load(&active) == 0 && now_s() - atomic_load(&last_activity) >= idle)
				break;
			continue;
		}
		if (r < 0)
			continue;
		int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		atomic_store(&last_activity, now_s());
		/* headers and body go out in separate writes: no Nagle delay */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		pthread_t t;
		atomic_fetch_add(&active, 1);
		if (pthread_create(&t, NULL, conn, (void *)(intptr_t)fd) != 0) {
			atomic_fetch_sub(&active, 1);
			close(fd);
			continue;
		}
		pthread_detach(t);
	}
	close(ls);
	return 0;
}
