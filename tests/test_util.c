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
