/* test_util.c - number formatting and escaping. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"

Test(util, commas)
{
	char b[32];
	cr_assert_str_eq(ws_fmt_commas(8030261248ull, b, sizeof b), "8,030,261,248");
	cr_assert_str_eq(ws_fmt_commas(0, b, sizeof b), "0");
	cr_assert_str_eq(ws_fmt_commas(999, b, sizeof b), "999");
	cr_assert_str_eq(ws_fmt_commas(1000, b, sizeof b), "1,000");
	cr_assert_str_eq(ws_fmt_commas(18446744073709551615ull, b, sizeof b),
			 "18,446,744,073,709,551,615");
}

Test(util, human_three_significant_digits)
{
	char b[32];
	cr_assert_str_eq(ws_fmt_human(8030261248ull, b, sizeof b), "8.03B");
	cr_assert_str_eq(ws_fmt_human(6738415616ull, b, sizeof b), "6.74B");
	cr_assert_str_eq(ws_fmt_human(405853388800ull, b, sizeof b), "406B");
	cr_assert_str_eq(ws_fmt_human(108864, b, sizeof b), "109K");
	cr_assert_str_eq(ws_fmt_human(999, b, sizeof b), "999");
	cr_assert_str_eq(ws_fmt_human(999999, b, sizeof b), "1.00M");
	cr_assert_str_eq(ws_fmt_human(12879925248ull, b, sizeof b), "12.9B");
}

Test(util, escape_text)
{
	char *s = ws_escape_text("a\n\x1b[31m\xff\\b\xc3\xa9", 12);
	cr_assert_str_eq(s, "a\\x0A\\x1B[31m\\xFF\\\\b\xc3\xa9");
	free(s);
	s = ws_escape_text("x\0y", 3);
	cr_assert_str_eq(s, "x\\x00y");
	free(s);
}

Test(util, utf8)
{
	cr_assert(ws_utf8_valid("h\xc3\xa9", 3));
	cr_assert_not(ws_utf8_valid("\xc0\xaf", 2));       /* overlong */
	cr_assert_not(ws_utf8_valid("\xed\xa0\x80", 3));   /* surrogate */
	cr_assert_not(ws_utf8_valid("a\0", 2));
}

Test(util, json_exact_and_valid)
{
	cJSON *o = cJSON_CreateObject();
	ws_json_add_u64(o, "n", 1000000000000000001ull);
	ws_json_add_bytes(o, "name", "a\xff\0b", 4);
	char *s = cJSON_PrintUnformatted(o);
	cr_assert_str_eq(s, "{\"n\":1000000000000000001,\"name\":\"a\xef\xbf\xbd\\u0000b\",\"name_hex\":\"61ff0062\"}");
	free(s);
	cJSON_Delete(o);
}

Test(util, bidi_and_c1_controls_escaped)
{
	char *s = ws_escape_text("a\xe2\x80\xae" "b\xc2\x9b" "c\xe2\x81\xa6", 11);
	cr_assert_str_eq(s, "a\\xE2\\x80\\xAEb\\xC2\\x9Bc\\xE2\\x81\\xA6");
	free(s);
	cJSON *o = cJSON_CreateObject();
	ws_json_add_bytes(o, "n", "x\xe2\x80\xae", 4);
	char *j = cJSON_PrintUnformatted(o);
	cr_assert_str_eq(j, "{\"n\":\"x\\u202e\"}");
	free(j);
	cJSON_Delete(o);
}

/* ==== cJSON's arena (the CLI's) ==== */

/* A JSON text of n members, each a string of `len` bytes. */
static char *
members(size_t n, size_t len)
{
	char *v = malloc(len + 1), *out = NULL;
	size_t size = 0;
	memset(v, 'x', len);
	v[len] = '\0';
	FILE *f = open_memstream(&out, &size);
	fputc('{', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\"k%zu\":\"%s\"", i ? "," : "", i, v);
	fputc('}', f);
	fclose(f);
	free(v);
	return out;
}

/* Trees parsed, printed and freed through the arena come out as through
 * malloc; once nothing is alive its memory is used again from the start;
 * a block larger than a chunk gets its own. */
Test(util, json_arena)
{
	ws_json_use_arena();
	char *text = members(5000, 40), *big = members(3, 200000);
	for (int round = 0; round < 3; round++) {
		cJSON *a = cJSON_Parse(text), *b = cJSON_Parse(big);
		cr_assert(a && b);
		cr_assert_eq(cJSON_GetArraySize(a), 5000);
		cr_assert_eq(strlen(cJSON_GetObjectItem(b, "k2")->valuestring), 200000);
		char *pa = cJSON_PrintUnformatted(a), *pb = cJSON_PrintUnformatted(b);
		cr_assert_str_eq(pa, text);
		cr_assert_str_eq(pb, big);
		cJSON_free(pb);
		cJSON_free(pa);
		cJSON_Delete(b);
		cJSON_Delete(a);
	}
	/* nothing alive: the next allocation starts the chunk again */
	cJSON *x = cJSON_CreateObject();
	cJSON_Delete(x);
	cJSON *y = cJSON_CreateObject();
	cr_expect_eq((void *)x, (void *)y, "memory not reused once free");
	/* while something is alive, nothing is handed out twice */
	cJSON *z = cJSON_CreateObject();
	cr_expect_neq((void *)y, (void *)z);
	cJSON_Delete(z);
	cJSON_Delete(y);
	free(big);
	free(text);
}

static void *
make_object(void *arg)
{
	cJSON_Delete(cJSON_CreateObject());
	return arg;
}

/* It belongs to one thread: another using cJSON stops the process loudly
 * instead of corrupting the arena. */
Test(util, json_arena_one_thread, .signal = SIGABRT)
{
	ws_json_use_arena();
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, make_object, NULL), 0);
	pthread_join(t, NULL);
}

/* ==== the pool behind ws_team_run ==== */

#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

typedef struct job {
	_Atomic unsigned next, done, helpers_in;
	unsigned items;
	bool wait_for_helper;   /* the caller holds on until a helper came */
	_Atomic unsigned max_worker;
	_Atomic uintptr_t helper_thread;
} job;

static void
job_fn(void *arg, unsigned worker)
{
	job *j = arg;
	if (worker) {
		atomic_fetch_add(&j->helpers_in, 1);
		atomic_store(&j->helper_thread, (uintptr_t)syscall(SYS_gettid));
		unsigned m = atomic_load(&j->max_worker);
		while (worker > m && !atomic_compare_exchange_weak(&j->max_worker, &m, worker))
			;
	} else if (j->wait_for_helper) {
		/* no clock in the bound: a count of yields, generous */
		for (long i = 0; i < 20000000 && !atomic_load(&j->helpers_in); i++)
			sched_yield();
	}
	while (atomic_fetch_add(&j->next, 1) < j->items)
		atomic_fetch_add(&j->done, 1);
}

static unsigned
threads_now(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned n = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

Test(pool, every_item_once_and_helpers_numbered_within_the_ask)
{
	for (unsigned round = 0; round < 500; round++) {
		job j = {.items = 1000 + round};
		ws_team_run(1 + round % 3, job_fn, &j);
		cr_assert_eq(atomic_load(&j.done), j.items);
		cr_assert_leq(atomic_load(&j.max_worker), 1 + round % 3);
	}
}

Test(pool, one_worker_serves_pass_after_pass)
{
	/* a thread made per pass would give as many helper threads as
	 * passes; the pool gives one (a few if the machine stalls the caller
	 * past the idle time) */
	uintptr_t seen[100];
	size_t distinct = 0;
	for (unsigned round = 0; round < 100; round++) {
		job j = {.items = 10, .wait_for_helper = true};
		ws_team_run(1, job_fn, &j);
		cr_assert_eq(atomic_load(&j.done), 10u);
		cr_assert_eq(atomic_load(&j.helpers_in), 1u, "round %u: no helper came", round);
		uintptr_t t = atomic_load(&j.helper_thread);
		size_t k = 0;
		while (k < distinct && seen[k] != t)
			k++;
		if (k == distinct)
			seen[distinct++] = t;
	}
	cr_assert_lt(distinct, 10u, "%zu helper threads for 100 passes", distinct);
}

Test(pool, idle_workers_leave)
{
	unsigned before = threads_now(); /* the test runner may have its own */
	job j = {.items = 10, .wait_for_helper = true};
	ws_team_run(2, job_fn, &j);
	cr_assert_geq(atomic_load(&j.helpers_in), 1u);
	unsigned n = threads_now();
	for (int i = 0; i < 1000 && n > before; i++) {
		struct timespec ms10 = {0, 10000000};
		nanosleep(&ms10, NULL);
		n = threads_now();
	}
	cr_assert_eq(n, before, "%u threads left after 10 s idle", n - before);
}

static void *
caller(void *arg)
{
	(void)arg;
	for (unsigned round = 0; round < 300; round++) {
		job j = {.items = 500};
		ws_team_run(1, job_fn, &j);
		if (atomic_load(&j.done) != 500)
			return (void *)1;
	}
	return NULL;
}

Test(pool, callers_at_once_each_get_every_item)
{
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, caller, NULL), 0);
	for (int i = 0; i < 3; i++) {
		void *r;
		pthread_join(th[i], &r);
		cr_assert_null(r, "caller %d lost items", i);
	}
}

Test(pool, a_forked_child_runs_jobs, .timeout = 60)
{
	job j = {.items = 100, .wait_for_helper = true};
	ws_team_run(1, job_fn, &j);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		for (unsigned round = 0; round < 50; round++) {
			job c = {.items = 100};
			ws_team_run(1, job_fn, &c);
			if (atomic_load(&c.done) != 100)
				_exit(1);
		}
		_exit(0);
	}
	int st = 0;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
}
