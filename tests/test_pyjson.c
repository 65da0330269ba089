/* test_pyjson.c - JSON sidecars as Python writes them: the bare tokens
 * Infinity, -Infinity and NaN read as numbers in config.json and index
 * files, printed by meta as Python spells them; never in a safetensors
 * header. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "ws/json.h"

static cJSON *
parse(const char *text, const char **end)
{
	return ws_json_parse_py(text, strlen(text), end);
}

static double
num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	cr_assert(cJSON_IsNumber(v), "%s is not a number", key);
	return v->valuedouble;
}

Test(pyjson, literals_are_numbers_strings_untouched)
{
	const char *text = "{\"a\": Infinity, \"b\":-Infinity,\"c\":NaN, \"d\": [1, NaN,2.5e3, -0.5],"
			   " \"e\": \"Infinity NaN -Infinity\", \"f\\\"NaN\": NaN, \"g\": \"\\\\\","
			   " \"h\": {\"i\": [[Infinity]], \"j\": -7}, \"k\": 1e999}";
	cJSON *o = parse(text, NULL);
	cr_assert(o);
	cr_expect(isinf(num(o, "a")) && num(o, "a") > 0);
	cr_expect(isinf(num(o, "b")) && num(o, "b") < 0);
	cr_expect(isnan(num(o, "c")));
	const cJSON *d = cJSON_GetObjectItem(o, "d");
	cr_expect_eq(cJSON_GetArrayItem(d, 0)->valuedouble, 1);
	cr_expect(isnan(cJSON_GetArrayItem(d, 1)->valuedouble));
	cr_expect_eq(cJSON_GetArrayItem(d, 2)->valuedouble, 2500);
	cr_expect_eq(cJSON_GetArrayItem(d, 3)->valuedouble, -0.5);
	/* inside strings, keys included, the words stay words */
	cr_expect_str_eq(cJSON_GetObjectItem(o, "e")->valuestring, "Infinity NaN -Infinity");
	cr_expect(isnan(num(o, "f\"NaN")));
	cr_expect_str_eq(cJSON_GetObjectItem(o, "g")->valuestring, "\\");
	const cJSON *h = cJSON_GetObjectItem(o, "h");
	cr_expect(isinf(cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(h, "i"), 0), 0)->valuedouble));
	cr_expect_eq(num(h, "j"), -7);
	/* an overflowing number is cJSON's, not a literal */
	cr_expect(isinf(num(o, "k")));
	cJSON_Delete(o);

	/* a whole document of one literal */
	static const char *const alone[] = {"NaN", " Infinity\n", "-Infinity"};
	for (size_t i = 0; i < 3; i++) {
		const char *end = NULL;
		o = parse(alone[i], &end);
		cr_assert(o && cJSON_IsNumber(o), "%s", alone[i]);
		cr_expect(!isfinite(o->valuedouble), "%s", alone[i]);
		/* it ends after the literal: nothing but whitespace follows */
		cr_expect_eq(end + strspn(end, " \n"), alone[i] + strlen(alone[i]), "%s", alone[i]);
		cJSON_Delete(o);
	}
	/* strict JSON is unchanged */
	o = parse("{\"a\": [true, false, null, 0, -1.5e-3, \"x\"]}", NULL);
	cr_assert(o);
	cr_expect_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "a"), 4)->valuedouble, -1.5e-3);
	cJSON_Delete(o);
}

Test(pyjson, near_misses_stay_invalid)
{
	static const char *const bad[] = {
		"{\"a\": Infinityx}", "[NaNa]", "[1NaN]", "[NaN1]", "{\"a\": nan}", "{\"a\": -NaN}",
		"[-Infinityy]", "{NaN: 1}", "[Infinity", "[- Infinity]", "[+Infinity]", "[inf]",
		"[Inf]", "[NaN NaN]", "{\"a\" NaN}", "[\"x\"NaN]", "xNaN", "[.NaN]",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cJSON *o = parse(bad[i], NULL);
		cr_expect_null(o, "accepted %s", bad[i]);
		cJSON_Delete(o);
	}
}

Test(pyjson, an_error_offset_is_the_files)
{
	/* NaN rewritten to 3 bytes of the same length: the error after it is
	 * where a strict document of the same shape has it */
	const char *py = "{\"a\": NaN, \"b\": [Infinity, -Infinity], \"c\": tru}";
	const char *st = "{\"a\": 0.0, \"b\": [12345678, 123456789], \"c\": tru}";
	const char *e1 = NULL, *e2 = NULL;
	cr_assert_null(parse(py, &e1));
	cr_assert_null(parse(st, &e2));
	cr_assert(e1 && e2);
	cr_expect_eq(e1 - py, e2 - st);
	cr_expect_geq(e1 - py, (long)(strstr(py, "tru") - py));
	/* the end of a good value is in the caller's buffer */
	const char *e3 = NULL;
	const char *t = "[NaN] x";
	cJSON *o = parse(t, &e3);
	cr_assert(o);
	cr_expect_eq(e3 - t, 5);
	cJSON_Delete(o);
}

Test(pyjson, many_literals_in_linear_time)
{
	/* 500,000 literals in an array: one pass and one walk, no quadratic work */
	size_t n = 500000, len = 0;
	char *t = malloc(n * 11 + 3);
	cr_assert(t);
	t[len++] = '[';
	static const char *const lit[] = {"NaN", "Infinity", "-Infinity", "1"};
	for (size_t i = 0; i < n; i++) {
		const char *l = lit[i % 4];
		memcpy(t + len, l, strlen(l));
		len += strlen(l);
		t[len++] = ',';
	}
	t[len - 1] = ']';
	cJSON *o = ws_json_parse_py(t, len, NULL);
	cr_assert(o);
	size_t i = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, o) {
		double x = v->valuedouble;
		bool ok = i % 4 == 0 ? isnan(x) : i % 4 == 1 ? x == INFINITY : i % 4 == 2 ? x == -INFINITY : x == 1;
		if (!ok)
			cr_assert_fail("item %zu is %g", i, x);
		i++;
	}
	cr_expect_eq(i, n);
	cJSON_Delete(o);
	free(t);
}

Test(pyjson, spelled_as_strings_or_bare)
{
	cJSON *o = parse("{\"a\": [NaN, -Infinity, 2], \"b\": Infinity}", NULL);
	cr_assert(o);
	cJSON *c = cJSON_Duplicate(o, true);
	cr_assert_eq(ws_json_nonfinite_spelled(c, false), 0);
	char *s = cJSON_PrintUnformatted(c);
	cr_expect_str_eq(s, "{\"a\":[\"NaN\",\"-Infinity\",2],\"b\":\"Infinity\"}");
	cJSON_free(s);
	cJSON_Delete(c);
	cr_assert_eq(ws_json_nonfinite_spelled(o, true), 0);
	s = cJSON_PrintUnformatted(o);
	cr_expect_str_eq(s, "{\"a\":[NaN,-Infinity,2],\"b\":Infinity}");
	cJSON_free(s);
	cJSON_Delete(o);
}

/* ==== the CLI ==== */

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	static char buf[1 << 17];
	*len = fread(buf, 1, sizeof buf - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* A fresh folder d/sub with testdata/tiny-llama's weights and CONFIG. */
static char *
tiny_with(const char *d, const char *sub, const char *config)
{
	char *dir = ws_join(d, sub);
	cr_assert(mkdir(dir, 0755) == 0);
	char *src = ws_testdata_path("tiny-llama");
	char *mp = ws_join(src, "model.safetensors");
	size_t n;
	const char *model = slurp(mp, &n);
	free(ws_write_file(dir, "model.safetensors", model, n));
	free(ws_write_file(dir, "config.json", config, strlen(config)));
	free(mp);
	free(src);
	return dir;
}

#define TINY_CONFIG(EXTRA, LAYERS)                                                          \
	"{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n"     \
	"  \"vocab_size\": 64,\n  \"hidden_size\": 32,\n  \"intermediate_size\": 88,\n"       \
	"  \"num_hidden_layers\": " LAYERS ",\n  \"num_attention_heads\": 4,\n"               \
	"  \"num_key_value_heads\": 2,\n  \"head_dim\": 8,\n" EXTRA                           \
	"  \"max_position_embeddings\": 256,\n  \"tie_word_embeddings\": false\n}\n"

#define PY_EXTRA                                                                             \
	"  \"rms_norm_eps\": Infinity,\n  \"rope_scaling\": {\"factor\": NaN, \"low\": -Infinity},\n" \
	"  \"note\": \"Infinity and NaN\",\n  \"list\": [NaN,1,-Infinity],\n"

static cJSON *
run_json(int want, const char *a1, const char *a2)
{
	ws_run r = ws_run_cli("--json", a1, a2, NULL);
	cr_assert_eq(r.status, want, "%s: status %d, stderr %s", a1, r.status, r.err);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o, "not JSON: %s", r.out);
	ws_run_free(&r);
	return o;
}

static const char *
str_at(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	cr_assert(cJSON_IsString(v), "%s is not a string", k);
	return v->valuestring;
}

Test(pyjson, a_config_with_infinity_and_nan_reads)
{
	char *d = ws_tmpdir();
	char *dir = tiny_with(d, "m", TINY_CONFIG(PY_EXTRA, "2"));
	cJSON *o = run_json(0, "formula", dir);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "formula"), "total")->valuedouble, 27296);
	cJSON_Delete(o);
	o = run_json(0, "inspect", dir);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "formula"), "total")->valuedouble, 27296);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(o, "ok")));
	cJSON_Delete(o);

	/* meta --json: Python's spellings as strings; a string stays itself */
	o = run_json(0, "meta", dir);
	const cJSON *c = cJSON_GetObjectItem(o, "config");
	cr_assert(c);
	cr_expect_str_eq(str_at(c, "rms_norm_eps"), "Infinity");
	cr_expect_str_eq(str_at(cJSON_GetObjectItem(c, "rope_scaling"), "factor"), "NaN");
	cr_expect_str_eq(str_at(cJSON_GetObjectItem(c, "rope_scaling"), "low"), "-Infinity");
	cr_expect_str_eq(str_at(c, "note"), "Infinity and NaN");
	const cJSON *l = cJSON_GetObjectItem(c, "list");
	cr_expect_str_eq(cJSON_GetArrayItem(l, 0)->valuestring, "NaN");
	cr_expect_eq(cJSON_GetArrayItem(l, 1)->valuedouble, 1);
	cr_expect_str_eq(cJSON_GetArrayItem(l, 2)->valuestring, "-Infinity");
	cr_expect_eq(cJSON_GetObjectItem(c, "hidden_size")->valuedouble, 32);
	cJSON_Delete(o);

	/* meta's text shows them bare, as the file has them */
	ws_run r = ws_run_cli("meta", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"rms_norm_eps\": Infinity,"), "%s", r.out);
	cr_expect(ws_contains(r.out, "[NaN, 1, -Infinity]"), "%s", r.out);
	cr_expect(!ws_contains(r.out, "null"), "%s", r.out);
	ws_run_free(&r);
	free(dir);
	ws_rmtree(d);
	free(d);
}

Test(pyjson, an_integer_key_refuses_them_by_name)
{
	char *d = ws_tmpdir();
	static const struct {
		const char *sub, *layers, *says;
	} cases[] = {
		{"nan", "NaN", "'num_hidden_layers': NaN is not an integer"},
		{"inf", "Infinity", "'num_hidden_layers': Infinity is not an integer"},
		{"ninf", "-Infinity", "'num_hidden_layers': -Infinity is not an integer"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char cfg[1024];
		snprintf(cfg, sizeof cfg,
			 "{\"model_type\": \"llama\", \"vocab_size\": 64, \"hidden_size\": 32,"
			 " \"intermediate_size\": 88, \"num_hidden_layers\": %s,"
			 " \"num_attention_heads\": 4}",
			 cases[i].layers);
		char *dir = tiny_with(d, cases[i].sub, cfg);
		ws_run r = ws_run_cli("formula", dir, NULL);
		cr_expect_eq(r.status, 3, "%s: %d", cases[i].sub, r.status);
		cr_expect(ws_contains(r.err, cases[i].says), "%s", r.err);
		ws_run_free(&r);
		free(dir);
	}
	/* a near miss is a syntax error at its offset */
	const char *cfg = "{\"model_type\": \"llama\", \"rms_norm_eps\": Infinityx}";
	char *dir = tiny_with(d, "miss", cfg);
	ws_run r = ws_run_cli("formula", dir, NULL);
	cr_expect_eq(r.status, 3);
	char want[64];
	snprintf(want, sizeof want, "offset %ld: invalid JSON", (long)(strstr(cfg, "Infinityx") - cfg));
	cr_expect(ws_contains(r.err, want), "%s (want %s)", r.err, want);
	ws_run_free(&r);
	free(dir);
	ws_rmtree(d);
	free(d);
}

Test(pyjson, an_index_with_nan_in_metadata_reads)
{
	char *d = ws_tmpdir();
	char *dir = tiny_with(d, "m", TINY_CONFIG("", "2"));
	/* the weight map from the shard's own header */
	char *mp = ws_join(dir, "model.safetensors");
	size_t n;
	const unsigned char *b = (const unsigned char *)slurp(mp, &n);
	uint64_t hl = 0;
	for (int k = 0; k < 8; k++)
		hl |= (uint64_t)b[k] << (8 * k);
	cr_assert(hl + 8 <= n);
	cJSON *h = cJSON_ParseWithLength((const char *)b + 8, (size_t)hl);
	cr_assert(h);
	cJSON *idx = cJSON_CreateObject(), *wm = cJSON_CreateObject();
	const cJSON *t;
	cJSON_ArrayForEach(t, h)
		if (strcmp(t->string, "__metadata__"))
			cJSON_AddStringToObject(wm, t->string, "model.safetensors");
	cJSON_AddItemToObject(idx, "metadata", cJSON_CreateRaw("{\"total_size\": NaN, \"x\": -Infinity}"));
	cJSON_AddItemToObject(idx, "weight_map", wm);
	char *text = cJSON_Print(idx);
	char *ip = ws_write_file(dir, "model.safetensors.index.json", text, strlen(text));
	cJSON *o = run_json(0, "inspect", dir);
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "formula"), "total")->valuedouble, 27296);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "files")), 1);
	cJSON_Delete(o);
	o = run_json(0, "inspect", ip);
	cJSON_Delete(o);
	cJSON_free(text);
	cJSON_Delete(idx);
	cJSON_Delete(h);
	free(ip);
	free(mp);
	free(dir);
	ws_rmtree(d);
	free(d);
}

Test(pyjson, a_safetensors_header_stays_strict)
{
	char *d = ws_tmpdir();
	static const char *const headers[] = {
		"{\"__metadata__\":{\"a\":Infinity},\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
		"{\"x\":{\"dtype\":\"F32\",\"shape\":[Infinity],\"data_offsets\":[0,8]}}",
		"{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"extra\":NaN}}",
		"{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"y\":-Infinity}",
	};
	static const char *const lit[] = {"Infinity", "Infinity", "NaN", "-Infinity"};
	for (size_t i = 0; i < sizeof headers / sizeof *headers; i++) {
		char name[32];
		snprintf(name, sizeof name, "h%zu.safetensors", i);
		char *p = ws_write_safetensors(d, name, headers[i], strlen(headers[i]), 8);
		ws_run r = ws_run_cli("inspect", p, NULL);
		cr_expect_eq(r.status, 3, "%s: %d", headers[i], r.status);
		/* at the literal: 8 bytes of length, then the header */
		char want[32];
		snprintf(want, sizeof want, "offset %ld:",
			 (long)(8 + (strstr(headers[i], lit[i]) - headers[i])));
		cr_expect(ws_contains(r.err, want), "%s (want %s)", r.err, want);
		ws_run_free(&r);
		free(p);
	}
	ws_rmtree(d);
	free(d);
}

Test(pyjson, mkmodel_reads_such_a_config_and_check_passes)
{
	/* the generator of sparse checkpoints reads real configs the same way */
	char *d = ws_tmpdir();
	const char *cfg = TINY_CONFIG(PY_EXTRA, "2");
	char *cp = ws_write_file(d, "c.json", cfg, strlen(cfg));
	char *dir = ws_join(d, "m");
	char *argv[] = {getenv("WS_MKMODEL"), dir, cp, "--shards", "2", NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	cJSON *o = run_json(0, "check", dir);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(o, "ok")));
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "formula"), "total")->valuedouble, 27296);
	cJSON_Delete(o);
	free(dir);
	free(cp);
	ws_rmtree(d);
	free(d);
}
