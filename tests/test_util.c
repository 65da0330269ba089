/* test_util.c - number formatting and escaping. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "weightscan.h"

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
