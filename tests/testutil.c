/* testutil.c - run the CLI, find fixtures, make temporary folders. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ws/formula.h"
#include "testutil.h"

static void
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = realloc(*buf, *cap);
		cr_assert(*buf);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

ws_run
ws_run_argv(char *const argv[])
{
	int po[2], pe[2];
	ws_run r = {0};
	cr_assert(pipe(po) == 0 && pipe(pe) == 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int dn = open("/dev/null", O_RDONLY);
		dup2(dn, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	size_t ol = 0, oc = 0, el = 0, ec = 0;
	append(&r.out, &ol, &oc, "", 0);
	append(&r.err, &el, &ec, "", 0);
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	int open_fds = 2;
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0)
			break;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
				continue;
			char buf[65536];
			ssize_t n = read(fds[i].fd, buf, sizeof buf);
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else if (i == 0) {
				append(&r.out, &ol, &oc, buf, (size_t)n);
			} else {
				append(&r.err, &el, &ec, buf, (size_t)n);
			}
		}
	}
	int st;
	waitpid(pid, &st, 0);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

ws_run
ws_run_cli(const char *arg0, ...)
{
	char *argv[64];
	int n = 0;
	const char *bin = getenv("WS_BIN");
	cr_assert(bin, "WS_BIN not set");
	argv[n++] = (char *)bin;
	va_list ap;
	va_start(ap, arg0);
	for (const char *a = arg0; a && n < 63; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	return ws_run_argv(argv);
}

void
ws_run_free(ws_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

char *
ws_join(const char *a, const char *b)
{
	char *p;
	cr_assert(asprintf(&p, "%s/%s", a, b) >= 0);
	return p;
}

char *
ws_shared_path(const char *rel)
{
	const char *s = getenv("WS_SHARED");
	struct stat st;
	if (!s)
		return NULL;
	char *base = ws_join(s, "realdata");
	if (stat(base, &st) != 0) {
		free(base);
		return NULL;
	}
	char *p = ws_join(base, rel);
	free(base);
	return p;
}

char *
ws_testdata_path(const char *rel)
{
	const char *s = getenv("WS_TESTDATA");
	cr_assert(s, "WS_TESTDATA not set");
	return ws_join(s, rel);
}

char *
ws_tmpdir(void)
{
	char *t = strdup("/tmp/ws-test-XXXXXX");
	cr_assert(t && mkdtemp(t));
	return t;
}

static int
rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(p);
}

void
ws_rmtree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

char *
ws_write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = ws_join(dir, name);
	FILE *f = fopen(p, "wb");
	cr_assert(f, "cannot write %s", p);
	cr_assert(fwrite(data, 1, len, f) == len);
	fclose(f);
	return p;
}

char *
ws_write_safetensors(const char *dir, const char *name, const char *header, size_t hl,
		     size_t data)
{
	size_t n = 8 + hl + data;
	unsigned char *b = calloc(1, n);
	cr_assert(b);
	for (int k = 0; k < 8; k++)
		b[k] = (unsigned char)((uint64_t)hl >> (8 * k));
	memcpy(b + 8, header, hl);
	char *p = ws_write_file(dir, name, b, n);
	free(b);
	return p;
}

void
ws_mkfixture(const char *arg0, ...)
{
	char *argv[64];
	int n = 0;
	const char *bin = getenv("WS_MKFIXTURE");
	cr_assert(bin, "WS_MKFIXTURE not set");
	argv[n++] = (char *)bin;
	va_list ap;
	va_start(ap, arg0);
	for (const char *a = arg0; a && n < 63; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkfixture failed: %s", r.err);
	ws_run_free(&r);
}

bool
ws_contains(const char *haystack, const char *needle)
{
	return haystack && strstr(haystack, needle) != NULL;
}

bool
ws_have_pty(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0)
		return false;
	bool ok = grantpt(m) == 0 && unlockpt(m) == 0;
	const char *name = ok ? ptsname(m) : NULL;
	int s = name ? open(name, O_RDWR | O_NOCTTY) : -1;
	if (s >= 0)
		close(s);
	close(m);
	return s >= 0;
}

cJSON *
ws_load_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot open %s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long len = ftell(f);
	cr_assert(len >= 0);
	rewind(f);
	char *buf = malloc((size_t)len + 1);
	cr_assert(buf);
	size_t n = fread(buf, 1, (size_t)len, f);
	fclose(f);
	buf[n] = '\0';
	cJSON *j = cJSON_Parse(buf);
	free(buf);
	cr_assert(j, "cannot parse %s", path);
	return j;
}

void
ws_formula_of(const cJSON *cfg, struct ws_arch *a, struct ws_formula *f)
{
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(cfg, "config.json", a, &err), 0, "%s", err.message);
	cr_assert(a->known, "unknown architecture '%s': %s", a->architecture,
		  a->unsupported ? a->unsupported : "");
	cr_assert_eq(ws_formula_compute(a, f, &err), 0, "%s", err.message);
}
