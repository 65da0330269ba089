/* test_remote.c - remote inspection (http://, hf://) against the project's
 * own HTTP server (tests/httpd, $WS_HTTPD), started on 127.0.0.1 by each
 * test: the remote header view must give the local result, with bounded
 * bytes, and every failure mode must be a clear exit 3. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/remote.h"

/* ==== the server ==== */

typedef struct server {
	pid_t pid;
	int port;
	char base[64];   /* http://127.0.0.1:PORT */
} server;

static void
no_proxies(void)
{
	/* never route loopback tests through a proxy */
	static const char *const vars[] = {"http_proxy", "HTTP_PROXY", "https_proxy",
					   "HTTPS_PROXY", "all_proxy", "ALL_PROXY"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
		unsetenv(vars[i]);
	setenv("no_proxy", "127.0.0.1,localhost", 1);
	setenv("NO_PROXY", "127.0.0.1,localhost", 1);
	unsetenv("HF_TOKEN");
}

static server start_server_with(const char *root, const char *opt, const char *val);

static server
start_server(const char *root)
{
	return start_server_with(root, NULL, NULL);
}

/* With one more option (--delay MS, --redirect-all BASE), or none. */
static server
start_server_with(const char *root, const char *opt, const char *val)
{
	server s = {0};
	int po[2];
	const char *bin = getenv("WS_HTTPD");
	cr_assert(bin, "WS_HTTPD not set");
	cr_assert(pipe(po) == 0);
	s.pid = fork();
	cr_assert(s.pid >= 0);
	if (s.pid == 0) {
		dup2(po[1], 1);
		close(po[0]);
		execl(bin, bin, root, "--idle", "30", opt, val, (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	char line[32] = "";
	size_t n = 0;
	while (n + 1 < sizeof line) {
		ssize_t r = read(po[0], line + n, 1);
		if (r <= 0 || line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	close(po[0]);
	s.port = atoi(line);
	cr_assert(s.port > 0, "the test server did not print its port");
	snprintf(s.base, sizeof s.base, "http://127.0.0.1:%d", s.port);
	no_proxies();
	return s;
}

static void
stop_server(server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = 0;
}

/* A counter of the server's /__stats route ("bytes " sent, "requests "
 * served), asked over a raw loopback socket. */
static unsigned long long
server_stat(const server *s, const char *key)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	const char *q = "GET /__stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	cr_assert(write(fd, q, strlen(q)) == (ssize_t)strlen(q));
	char buf[1024];
	size_t n = 0;
	ssize_t r;
	while (n + 1 < sizeof buf && (r = read(fd, buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
	const char *b = strstr(buf, key);
	cr_assert(b, "no %s in %s", key, buf);
	return strtoull(b + strlen(key), NULL, 10);
}

static unsigned long long
bytes_sent(const server *s)
{
	return server_stat(s, "bytes ");
}

static unsigned long long
requests_served(const server *s)
{
	return server_stat(s, "requests ");
}

static char *
url(const server *s, const char *rest)
{
	char *u;
	cr_assert(asprintf(&u, "%s/%s", s->base, rest) >= 0);
	return u;
}

/* ==== comparing reports ==== */

/* Paths differ between a local and a remote run; everything else must
 * not. */
static void
strip_paths(cJSON *j)
{
	if (!j)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(j, "path");
	for (cJSON *c = j->child; c; c = c->next)
		strip_paths(c);
}

static cJSON *
json_of(const ws_run *r)
{
	cJSON *j = cJSON_Parse(r->out);
	cr_assert(j, "not JSON: %s / %s", r->out, r->err);
	strip_paths(j);
	return j;
}

static void
expect_same(const ws_run *local, const ws_run *remote)
{
	cr_expect_eq(remote->status, local->status, "status %d vs local %d: %s",
		     remote->status, local->status, remote->err);
	cJSON *a = json_of(local), *b = json_of(remote);
	cr_expect(cJSON_Compare(a, b, true), "remote report differs:\nlocal  %.400s\nremote %.400s",
		  local->out, remote->out);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define NEED_REMOTE()                                                       \
	do {                                                                \
		if (!ws_remote_available())                                 \
			cr_skip_test("built without remote support");       \
	} while (0)

/* ==== tests ==== */

Test(remote, url_forms)
{
	cr_expect(ws_remote_is_url("http://127.0.0.1:1/x.safetensors"));
	cr_expect(ws_remote_is_url("https://example.org/"));
	cr_expect(ws_remote_is_url("hf://Qwen/Qwen2.5-7B"));
	cr_expect(!ws_remote_is_url("model.safetensors"));
	cr_expect(!ws_remote_is_url("./http://x"));
}

Test(remote, without_support_is_exit_3)
{
	if (ws_remote_available())
		cr_skip_test("built with remote support");
	ws_run r = ws_run_cli("inspect", "http://127.0.0.1:9/x.safetensors", NULL);
	cr_expect_eq(r.status, 3);
	cr_expect(ws_contains(r.err, "built without remote support"), "%s", r.err);
	ws_run_free(&r);
}

Test(remote, single_file_redirect_and_folder)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *tiny = ws_join(dir, "tiny");
	ws_mkfixture("tiny", tiny, NULL);
	server s = start_server(dir);
	char *file = ws_join(tiny, "model.safetensors");
	ws_run local = ws_run_cli("--json", "inspect", file, NULL);
	static const char *const forms[] = {
		"tiny/model.safetensors", "_redirect/tiny/model.safetensors", "tiny/",
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		char *u = url(&s, forms[i]);
		ws_run remote = ws_run_cli("--json", "inspect", u, NULL);
		expect_same(&local, &remote);
		ws_run_free(&remote);
		free(u);
	}
	/* the config beside the weights is read remotely too */
	char *u = url(&s, "tiny/model.safetensors");
	ws_run r = ws_run_cli("--json", "inspect", u, NULL);
	cr_expect(ws_contains(r.out, "\"source\":\"config.json\""), "%s", r.out);
	ws_run_free(&r);
	/* ls and meta work on the header view */
	ws_run l1 = ws_run_cli("ls", "--sort", "offset", file, NULL);
	ws_run l2 = ws_run_cli("ls", "--sort", "offset", u, NULL);
	cr_expect_eq(l2.status, 0, "%s", l2.err);
	cr_expect(ws_contains(l2.out, "model.embed_tokens.weight"), "%s", l2.out);
	ws_run_free(&l1);
	ws_run_free(&l2);
	ws_run m = ws_run_cli("meta", u, NULL);
	cr_expect_eq(m.status, 0, "%s", m.err);
	ws_run_free(&m);
	free(u);
	ws_run_free(&local);
	stop_server(&s);
	free(file);
	ws_rmtree(dir);
	free(tiny);
	free(dir);
}

/* The acceptance test: Llama-3.1-405B's names and shapes in 191
 * sparse shards; check gives the local result from under 4 MB. */
Test(remote, sparse_405b_191_shards, .timeout = 120)
{
	NEED_REMOTE();
	char *cfg = ws_shared_path("configs/meta-llama__Llama-3.1-405B.json");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *m405 = ws_join(dir, "405b");
	ws_mkfixture("sparse", m405, cfg, "--shards", "191", NULL);
	server s = start_server(dir);
	ws_run local = ws_run_cli("--json", "check", m405, NULL);
	cr_assert_eq(local.status, 0, "%s", local.err);
	char *u = url(&s, "405b/");
	unsigned long long before = bytes_sent(&s);
	double t0 = now_s();
	ws_run remote = ws_run_cli("--json", "check", u, NULL);
	double secs = now_s() - t0;
	unsigned long long bytes = bytes_sent(&s) - before;
	expect_same(&local, &remote);
	cr_expect(ws_contains(remote.out, "\"tensor_count\":1138") ||
		  ws_contains(remote.out, "\"tensor_count\""), "%s", remote.out);
	cr_expect_lt(bytes, 4ull << 20, "transferred %llu bytes", bytes);
	cr_log_info("remote check of 191 shards: %llu bytes in %.3f s", bytes, secs);
	fprintf(stderr, "remote check of 191 shards: %llu bytes in %.3f s\n", bytes, secs);
	/* text output: same verdict */
	ws_run text = ws_run_cli("check", u, NULL);
	cr_expect_eq(text.status, 0, "%s", text.err);
	cr_expect(ws_contains(text.out, "check          passed"), "%s", text.out);
	ws_run_free(&text);
	ws_run_free(&remote);
	ws_run_free(&local);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(m405);
	free(dir);
	free(cfg);
}

/* ---- a GGUF with a large vocabulary and real tensor data ---- */

static void
put(FILE *f, const void *p, size_t n)
{
	cr_assert(fwrite(p, 1, n, f) == n);
}

static void
put_u32(FILE *f, uint32_t v)
{
	put(f, &v, 4);
}

static void
put_u64(FILE *f, uint64_t v)
{
	put(f, &v, 8);
}

static void
put_str(FILE *f, const char *s)
{
	put_u64(f, strlen(s));
	put(f, s, strlen(s));
}

/* general.architecture, a 150,000-token vocabulary (a few MB of metadata,
 * so the prefix must grow several times) and one 4 MiB F32 tensor. */
static void
write_big_vocab_gguf(const char *path, uint64_t *meta_end)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	const uint64_t vocab = 150000, rows = 1024, cols = 1024;
	put(f, "GGUF", 4);
	put_u32(f, 3);
	put_u64(f, 1); /* tensors */
	put_u64(f, 2); /* kvs */
	put_str(f, "general.architecture");
	put_u32(f, 8);
	put_str(f, "test");
	put_str(f, "tokenizer.ggml.tokens");
	put_u32(f, 9);
	put_u32(f, 8);
	put_u64(f, vocab);
	char tok[32];
	for (uint64_t i = 0; i < vocab; i++) {
		snprintf(tok, sizeof tok, "tok_%06llu", (unsigned long long)i);
		put_str(f, tok);
	}
	put_str(f, "blk.0.ffn_up.weight");
	put_u32(f, 2);
	put_u64(f, cols);
	put_u64(f, rows);
	put_u32(f, 0); /* F32 */
	put_u64(f, 0);
	long end = ftell(f);
	*meta_end = (uint64_t)end;
	long pad = (32 - end % 32) % 32;
	static const char zeros[32];
	put(f, zeros, (size_t)pad);
	float *data = calloc(rows * cols, sizeof *data);
	cr_assert(data);
	for (uint64_t i = 0; i < rows * cols; i++)
		data[i] = 1.0f;
	put(f, data, rows * cols * sizeof *data);
	free(data);
	cr_assert(fclose(f) == 0);
}

Test(remote, gguf_large_vocab_metadata_only)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *p = ws_join(dir, "big.gguf");
	uint64_t meta_end;
	write_big_vocab_gguf(p, &meta_end);
	struct stat st;
	cr_assert(stat(p, &st) == 0);
	server s = start_server(dir);
	char *u = url(&s, "big.gguf");
	ws_run local = ws_run_cli("--json", "meta", p, NULL);
	unsigned long long before = bytes_sent(&s);
	ws_run remote = ws_run_cli("--json", "meta", u, NULL);
	unsigned long long bytes = bytes_sent(&s) - before;
	expect_same(&local, &remote);
	/* the metadata in doubling chunks, never the 4 MiB of tensor data */
	cr_expect_lt(bytes, 2 * meta_end + 65536, "%llu bytes for %llu of metadata", bytes,
		     (unsigned long long)meta_end);
	cr_expect_lt(bytes, (unsigned long long)st.st_size - (4ull << 20) + 65536 + meta_end);
	cr_log_info("GGUF: %llu bytes fetched for %llu bytes of metadata in a %lld-byte file",
		    bytes, (unsigned long long)meta_end, (long long)st.st_size);
	ws_run_free(&remote);
	ws_run_free(&local);
	local = ws_run_cli("--json", "inspect", p, NULL);
	remote = ws_run_cli("--json", "inspect", u, NULL);
	expect_same(&local, &remote);
	ws_run_free(&remote);
	ws_run_free(&local);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(p);
	free(dir);
}

Test(remote, gguf_real_vocab_deepseek)
{
	NEED_REMOTE();
	char *p = ws_shared_path("gguf/ggml-vocab-deepseek-llm.gguf");
	if (!p)
		cr_skip_test("../shared is absent");
	char *dir = strdup(p);
	*strrchr(dir, '/') = '\0';
	server s = start_server(dir);
	char *u = url(&s, "ggml-vocab-deepseek-llm.gguf");
	ws_run local = ws_run_cli("--json", "inspect", p, NULL);
	ws_run remote = ws_run_cli("--json", "inspect", u, NULL);
	expect_same(&local, &remote);
	ws_run_free(&remote);
	ws_run_free(&local);
	free(u);
	stop_server(&s);
	free(dir);
	free(p);
}

Test(remote, server_without_range)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *tiny = ws_join(dir, "tiny");
	ws_mkfixture("tiny", tiny, NULL);
	server s = start_server(dir);
	char *u = url(&s, "_norange/tiny/model.safetensors");
	ws_run r = ws_run_cli("inspect", u, NULL);
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect(ws_contains(r.err, "ignores Range"), "%s", r.err);
	cr_expect(ws_contains(r.err, "--allow-full-download"), "%s", r.err);
	ws_run_free(&r);
	char *file = ws_join(tiny, "model.safetensors");
	ws_run local = ws_run_cli("--json", "check", file, NULL);
	r = ws_run_cli("--json", "--allow-full-download", "check", u, NULL);
	expect_same(&local, &r);
	ws_run_free(&r);
	ws_run_free(&local);
	free(file);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(tiny);
	free(dir);
}

Test(remote, http_errors_are_exit_3_naming_the_url)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *tiny = ws_join(dir, "tiny");
	ws_mkfixture("tiny", tiny, NULL);
	server s = start_server(dir);
	static const struct { const char *path, *says, *kind; } cases[] = {
		{"nope/model.safetensors", "not found (HTTP 404)", "\"kind\":\"http\",\"status\":404"},
		{"_truncate/tiny/model.safetensors", "truncated", "\"kind\":\"network\""},
		{"_status/401/x.safetensors", "HF_TOKEN", "\"kind\":\"gated\",\"status\":401"},
		{"_status/403/x.safetensors", "HTTP 403", "\"kind\":\"gated\",\"status\":403"},
		{"empty/", "neither model.safetensors.index.json nor model.safetensors", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *u = url(&s, cases[i].path);
		ws_run r = ws_run_cli("inspect", u, NULL);
		cr_expect_eq(r.status, 3, "%s: %d %s", u, r.status, r.err);
		cr_expect(ws_contains(r.err, s.base), "%s: error does not name the URL: %s", u, r.err);
		cr_expect(ws_contains(r.err, cases[i].says), "%s: %s", u, r.err);
		ws_run_free(&r);
		if (cases[i].kind) {
			/* JSON errors say which kind (SPEC) */
			r = ws_run_cli("--json", "inspect", u, NULL);
			cr_expect(ws_contains(r.out, cases[i].kind), "%s: %s", u, r.out);
			ws_run_free(&r);
		}
		free(u);
	}
	/* a 503 is retried */
	char *u = url(&s, "_flaky/tiny/model.safetensors");
	ws_run r = ws_run_cli("inspect", u, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(tiny);
	free(dir);
}

Test(remote, data_commands_say_they_need_the_data)
{
	NEED_REMOTE();
	static const char *const cmds[] = {"hash", "scan", "verify"};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		/* refused before any connection: port 9 is never contacted */
		ws_run r = ws_run_cli(cmds[i], "http://127.0.0.1:9/m/model.safetensors", NULL);
		cr_expect_eq(r.status, 3, "%s: %d %s", cmds[i], r.status, r.err);
		cr_expect(ws_contains(r.err, "needs the tensor data"), "%s: %s", cmds[i], r.err);
		ws_run_free(&r);
	}
}

Test(remote, hf_paths_against_hf_endpoint)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *repo = ws_join(dir, "acme/tiny-7B/resolve/main");
	char *cmd;
	cr_assert(asprintf(&cmd, "mkdir -p '%s'", repo) >= 0 && system(cmd) == 0);
	free(cmd);
	ws_mkfixture("tiny", repo, NULL);
	server s = start_server(dir);
	setenv("HF_ENDPOINT", s.base, 1);
	setenv("HF_TOKEN", "hf_test_token", 1);
	char *file = ws_join(repo, "model.safetensors");
	ws_run local = ws_run_cli("--json", "inspect", file, NULL);
	static const char *const forms[] = {
		"hf://acme/tiny-7B", "hf://acme/tiny-7B@main", "hf://acme/tiny-7B/model.safetensors",
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		ws_run r = ws_run_cli("--json", "inspect", forms[i], NULL);
		expect_same(&local, &r);
		ws_run_free(&r);
	}
	ws_run r = ws_run_cli("inspect", "hf://acme/tiny-7B@v2", NULL);
	cr_expect_eq(r.status, 3);
	cr_expect(ws_contains(r.err, "/acme/tiny-7B/resolve/v2/"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("inspect", "hf://acme", NULL);
	cr_expect_eq(r.status, 3);
	cr_expect(ws_contains(r.err, "hf://ORG/NAME"), "%s", r.err);
	ws_run_free(&r);
	ws_run_free(&local);
	free(file);
	stop_server(&s);
	ws_rmtree(dir);
	free(repo);
	free(dir);
}

/* HF_TOKEN goes to the Hub's host only: a redirect to another host (the
 * Hub's CDN) gets the request without it. */
Test(remote, token_never_follows_a_redirect_to_another_host)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *repo = ws_join(dir, "acme/tiny-7B/resolve/main");
	char *cmd;
	cr_assert(asprintf(&cmd, "mkdir -p '%s'", repo) >= 0 && system(cmd) == 0);
	free(cmd);
	ws_mkfixture("tiny", repo, NULL);
	server cdn = start_server(dir);
	server hub = start_server_with(dir, "--redirect-all", cdn.base);
	setenv("HF_ENDPOINT", hub.base, 1);
	setenv("HF_TOKEN", "hf_test_token", 1);
	ws_run r = ws_run_cli("--json", "inspect", "hf://acme/tiny-7B", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"tensor_count\""), "%s", r.out);
	ws_run_free(&r);
	cr_expect_gt(server_stat(&hub, "auth "), 0, "the Hub's host gets the token");
	cr_expect_gt(server_stat(&cdn, "requests "), 0, "the redirect was followed");
	cr_expect_eq(server_stat(&cdn, "auth "), 0, "the token followed the redirect");
	unsetenv("HF_TOKEN");
	unsetenv("HF_ENDPOINT");
	stop_server(&hub);
	stop_server(&cdn);
	ws_rmtree(dir);
	free(repo);
	free(dir);
}

/* A round's requests all go out at once: with every response held 200 ms
 * (a slow network's round trip, long enough that a sanitizer build's
 * start-up spread stays inside one round) the 191-file folder costs a
 * fixed few rounds, not one per shard or per connection's worth. */
Test(remote, shard_headers_in_a_fixed_number_of_rounds)
{
	NEED_REMOTE();
	char *cfg = ws_shared_path("configs/meta-llama__Llama-3.1-405B.json");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *m405 = ws_join(dir, "405b");
	ws_mkfixture("sparse", m405, cfg, "--shards", "191", NULL);
	server s = start_server_with(dir, "--delay", "200");
	char *u = NULL;
	cr_assert(asprintf(&u, "%s/405b/", s.base) > 0);
	unsigned long long r0 = server_stat(&s, "rounds ");
	ws_run r = ws_run_cli("check", u, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	unsigned long long rounds = server_stat(&s, "rounds ") - r0;
	cr_expect_leq(rounds, 4, "%llu sequential rounds", rounds);
	cr_log_info("remote check of 191 shards at 200 ms per response: %llu rounds", rounds);
	ws_run_free(&r);
	stop_server(&s);
	ws_rmtree(dir);
	free(u), free(m405), free(dir), free(cfg);
}

/* ==== bounded work for declared counts ==== */

typedef struct measured {
	int status;
	long maxrss_kb;  /* the CLI process's peak resident set */
	char *err;
} measured;

/* Run `weightscan CMD URL` with its peak RSS (wait4), stderr kept. */
static measured
run_measured(const char *cmd, const char *u)
{
	measured m = {0};
	const char *bin = getenv("WS_BIN");
	cr_assert(bin, "WS_BIN not set");
	char *dir = ws_tmpdir(), *ep = ws_join(dir, "stderr");
	int efd = open(ep, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(efd >= 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int dn = open("/dev/null", O_RDWR);
		dup2(dn, 0);
		dup2(dn, 1);
		dup2(efd, 2);
		execl(bin, bin, cmd, u, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	struct rusage ru;
	cr_assert(wait4(pid, &st, 0, &ru) == pid);
	m.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	m.maxrss_kb = ru.ru_maxrss;
	off_t len = lseek(efd, 0, SEEK_END);
	m.err = calloc(1, (size_t)len + 1);
	cr_assert(m.err && pread(efd, m.err, (size_t)len, 0) == len);
	close(efd);
	ws_rmtree(dir);
	free(ep);
	free(dir);
	return m;
}

/* DIR/model.safetensors.index.json naming `shards` distinct shards (one
 * tensor each), none of which exists. */
static void
write_index(const char *dir, unsigned shards)
{
	char *p = ws_join(dir, "model.safetensors.index.json");
	FILE *f = fopen(p, "w");
	cr_assert(f);
	fprintf(f, "{\"metadata\":{},\"weight_map\":{");
	for (unsigned i = 0; i < shards; i++)
		fprintf(f, "%s\"t%u.weight\":\"model-%06u.safetensors\"", i ? "," : "", i, i);
	fprintf(f, "}}");
	cr_assert(fclose(f) == 0);
	free(p);
}

/* A 20,000-shard index whose shards are missing: before the fix every
 * shard got a handle and a 16 KB buffer up front (343 MB RSS); now a
 * window of 64 runs and the first 404 ends it. */
Test(remote, index_20000_shards_bounded_memory)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *big = ws_join(dir, "big");
	cr_assert(mkdir(big, 0755) == 0);
	write_index(big, 20000);
	server s = start_server(dir);
	char *u = url(&s, "big/");
	unsigned long long before = requests_served(&s);
	measured m = run_measured("inspect", u);
	unsigned long long reqs = requests_served(&s) - before;
	cr_expect_eq(m.status, 3, "%d %s", m.status, m.err);
	cr_expect(ws_contains(m.err, "not found (HTTP 404)"), "%s", m.err);
	cr_expect(ws_contains(m.err, s.base), "%s", m.err);
	cr_expect_lt(m.maxrss_kb, 96 * 1024, "peak RSS %ld KB", m.maxrss_kb);
	/* config, index, probe, then at most one window of shards */
	cr_expect_leq(reqs, 3 + 256, "%llu requests (the window)", reqs);
	fprintf(stderr, "20,000-shard index: peak RSS %ld KB, %llu requests\n", m.maxrss_kb,
		reqs);
	free(m.err);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(big);
	free(dir);
}

Test(remote, index_shard_count_is_capped)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *over = ws_join(dir, "over"), *at = ws_join(dir, "at");
	cr_assert(mkdir(over, 0755) == 0 && mkdir(at, 0755) == 0);
	write_index(over, 100001);
	write_index(at, 100000);
	server s = start_server(dir);
	char *u = url(&s, "over/model.safetensors.index.json");
	unsigned long long before = requests_served(&s);
	ws_run r = ws_run_cli("inspect", u, NULL);
	unsigned long long reqs = requests_served(&s) - before;
	cr_expect_eq(r.status, 3, "%d %s", r.status, r.err);
	cr_expect(ws_contains(r.err, u), "error does not name the index: %s", r.err);
	cr_expect(ws_contains(r.err, "100001 distinct shards"), "%s", r.err);
	cr_expect_leq(reqs, 2, "shards were asked for: %llu requests", reqs); /* config, index */
	ws_run_free(&r);
	free(u);
	/* the limit itself is allowed: the shards are asked for (and missing) */
	u = url(&s, "at/model.safetensors.index.json");
	r = ws_run_cli("inspect", u, NULL);
	cr_expect_eq(r.status, 3, "%d %s", r.status, r.err);
	cr_expect(ws_contains(r.err, "not found (HTTP 404)"), "%s", r.err);
	ws_run_free(&r);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(over);
	free(at);
	free(dir);
}

/* A shard with one F32[2] tensor; `pad` bytes of metadata make its header
 * longer than the first 16 KB range. */
static void
write_shard(const char *dir, unsigned i, size_t pad)
{
	char name[64], *hdr = NULL;
	snprintf(name, sizeof name, "s-%05u.safetensors", i);
	int hl = asprintf(&hdr,
			  "{\"__metadata__\":{\"pad\":\"%*s\"},\"layers.%u.weight\":{\"dtype\":"
			  "\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
			  (int)pad, "", i);
	cr_assert(hl > 0);
	size_t padded = ((size_t)hl + 7) / 8 * 8;
	size_t total = 8 + padded + 8;
	uint8_t *b = calloc(1, total);
	cr_assert(b);
	uint64_t n = padded;
	memcpy(b, &n, 8);
	memset(b + 8, ' ', padded);
	memcpy(b + 8, hdr, (size_t)hl);
	float v[2] = {1.0f, 2.0f};
	memcpy(b + 8 + padded, v, 8);
	free(ws_write_file(dir, name, b, total));
	free(b);
	free(hdr);
}

/* More shards than the window, some with long headers (a second round):
 * the remote report is the local one. */
Test(remote, index_150_shards_through_the_window)
{
	NEED_REMOTE();
	const unsigned n = 150;
	char *dir = ws_tmpdir(), *many = ws_join(dir, "many");
	cr_assert(mkdir(many, 0755) == 0);
	char *ip = ws_join(many, "model.safetensors.index.json");
	FILE *f = fopen(ip, "w");
	cr_assert(f);
	fprintf(f, "{\"metadata\":{},\"weight_map\":{");
	for (unsigned i = 0; i < n; i++) {
		write_shard(many, i, i % 7 == 0 ? 20000 : 16);
		fprintf(f, "%s\"layers.%u.weight\":\"s-%05u.safetensors\"", i ? "," : "", i, i);
	}
	fprintf(f, "}}");
	cr_assert(fclose(f) == 0);
	server s = start_server(dir);
	ws_run local = ws_run_cli("--json", "inspect", ip, NULL);
	cr_assert_eq(local.status, 0, "%s", local.err);
	cr_assert(ws_contains(local.out, "layers.149.weight") ||
		  ws_contains(local.out, "\"tensor_count\":150"), "%.400s", local.out);
	char *u = url(&s, "many/model.safetensors.index.json");
	unsigned long long before = requests_served(&s);
	ws_run remote = ws_run_cli("--json", "inspect", u, NULL);
	unsigned long long reqs = requests_served(&s) - before;
	expect_same(&local, &remote);
	/* index, config, one range a shard, one more for the 22 long headers */
	cr_expect_eq(reqs, 2 + n + 22, "%llu requests", reqs);
	ws_run_free(&remote);
	ws_run_free(&local);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(ip);
	free(many);
	free(dir);
}

static void
copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	cr_assert(a && b, "%s -> %s", from, to);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, a)) > 0)
		cr_assert(fwrite(buf, 1, n, b) == n);
	fclose(a);
	cr_assert(fclose(b) == 0);
}

/* mkgguf's valid files in DIR/g. */
static char *
gguf_fixtures(const char *dir)
{
	char *g = ws_join(dir, "g");
	cr_assert(mkdir(g, 0755) == 0);
	const char *bin = getenv("WS_MKGGUF");
	cr_assert(bin, "WS_MKGGUF not set");
	char *const argv[] = {(char *)bin, "valid", g, NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	return g;
}

/* The split count is read from the file name: 99,999 parts declared, one
 * present.  Before the fix all 99,999 requests and 64 KB buffers were made
 * at once (over 1.6 GB and still running after 30 s). */
Test(remote, gguf_split_count_from_the_name_is_bounded)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *g = gguf_fixtures(dir);
	char *src = ws_join(g, "tiny-llama.gguf"), *dst = ws_join(g, "x-00001-of-99999.gguf");
	copy_file(src, dst);
	server s = start_server(dir);
	char *u = url(&s, "g/x-00001-of-99999.gguf");
	unsigned long long before = requests_served(&s);
	double t0 = now_s();
	measured m = run_measured("inspect", u);
	double secs = now_s() - t0;
	unsigned long long reqs = requests_served(&s) - before;
	cr_expect_eq(m.status, 3, "%d %s", m.status, m.err);
	cr_expect(ws_contains(m.err, "-of-99999.gguf: not found (HTTP 404)"), "%s", m.err);
	cr_expect_lt(m.maxrss_kb, 96 * 1024, "peak RSS %ld KB", m.maxrss_kb);
	/* bounded work is the request count and memory above; the time is
	 * only reported (a wall-clock limit fails on a loaded machine) */
	cr_expect_leq(reqs, 1 + 256 + 256, "%llu requests (the window)", reqs);
	fprintf(stderr, "x-00001-of-99999.gguf: peak RSS %ld KB, %llu requests, %.3f s\n",
		m.maxrss_kb, reqs, secs);
	free(m.err);
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(src);
	free(dst);
	free(g);
	free(dir);
}

/* Part numbers as the local reader takes them: past the count the name is
 * a single file (no other part is asked for); a real set is one model. */
Test(remote, gguf_split_names_as_local)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *g = gguf_fixtures(dir);
	char *src = ws_join(g, "tiny-llama.gguf"), *dst = ws_join(g, "y-00003-of-00002.gguf");
	copy_file(src, dst);
	server s = start_server(dir);
	static const char *const names[] = {"y-00003-of-00002.gguf",
					    "tiny-split-00002-of-00003.gguf"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *lp = ws_join(g, names[i]), *rel = ws_join("g", names[i]);
		char *u = url(&s, rel);
		ws_run local = ws_run_cli("--json", "inspect", lp, NULL);
		cr_expect_eq(local.status, 0, "%s: %s", names[i], local.err);
		unsigned long long before = requests_served(&s);
		ws_run remote = ws_run_cli("--json", "inspect", u, NULL);
		unsigned long long reqs = requests_served(&s) - before;
		expect_same(&local, &remote);
		if (i == 0)
			cr_expect_eq(reqs, 1, "%llu requests for a single small file", reqs);
		else
			cr_expect(ws_contains(remote.out, "tiny-split-00003-of-00003.gguf"), "%s",
				  remote.out);
		ws_run_free(&remote);
		ws_run_free(&local);
		free(u);
		free(rel);
		free(lp);
	}
	stop_server(&s);
	ws_rmtree(dir);
	free(src);
	free(dst);
	free(g);
	free(dir);
}

/* A library caller opening remote paths from several threads at once:
 * the one-time libcurl setup runs once, whichever thread comes first. */
typedef struct opener {
	const char *url;
	int rc;
	uint64_t n_tensors;
	ws_error err;
} opener;

static void *
open_remote(void *arg)
{
	opener *o = arg;
	ws_model *m = NULL;
	o->rc = ws_model_open(o->url, NULL, &m, &o->err);
	if (m)
		o->n_tensors = m->n_tensors;
	ws_model_free(m);
	return NULL;
}

Test(remote, threads_open_remote_paths_at_once)
{
	NEED_REMOTE();
	char *dir = ws_tmpdir(), *tiny = ws_join(dir, "tiny");
	ws_mkfixture("tiny", tiny, NULL);
	server s = start_server(dir);
	char *u = url(&s, "tiny/model.safetensors");
	enum { N = 8 };
	pthread_t th[N];
	opener o[N];
	memset(o, 0, sizeof o);
	for (int i = 0; i < N; i++) {
		o[i].url = u;
		cr_assert(pthread_create(&th[i], NULL, open_remote, &o[i]) == 0);
	}
	for (int i = 0; i < N; i++)
		cr_assert(pthread_join(th[i], NULL) == 0);
	for (int i = 0; i < N; i++) {
		cr_expect_eq(o[i].rc, 0, "thread %d: %s: %s", i, o[i].err.file, o[i].err.message);
		cr_expect_gt(o[i].n_tensors, 0);
		cr_expect_eq(o[i].n_tensors, o[0].n_tensors);
	}
	free(u);
	stop_server(&s);
	ws_rmtree(dir);
	free(tiny);
	free(dir);
}
