/* test_scan.c - scan: the value kernels on known data, planted NaN/Inf/
 * all-zero tensors through the CLI, GGUF byte orders, a file that shrinks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/scan.h"
#include "testutil.h"

/* ==== a tiny safetensors writer ==== */

typedef struct st_tensor {
	const char *name, *dtype;
	const char *shape;     /* JSON array text, e.g. "[64, 64]" */
	const void *data;
	size_t len;
} st_tensor;

static char *
write_st(const char *dir, const char *fname, const st_tensor *t, size_t n)
{
	char hdr[4096];
	size_t o = 0, off = 0;
	o += (size_t)snprintf(hdr + o, sizeof hdr - o, "{");
	for (size_t i = 0; i < n; i++) {
		o += (size_t)snprintf(hdr + o, sizeof hdr - o,
				      "%s\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%zu,%zu]}",
				      i ? "," : "", t[i].name, t[i].dtype, t[i].shape, off, off + t[i].len);
		off += t[i].len;
	}
	o += (size_t)snprintf(hdr + o, sizeof hdr - o, "}");
	while (o % 8)
		hdr[o++] = ' ';
	size_t total = 8 + o + off;
	unsigned char *buf = malloc(total);
	cr_assert(buf);
	uint64_t hl = o;
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)(hl >> (8 * i));
	memcpy(buf + 8, hdr, o);
	off = 8 + o;
	for (size_t i = 0; i < n; i++) {
		memcpy(buf + off, t[i].data, t[i].len);
		off += t[i].len;
	}
	char *p = ws_write_file(dir, fname, buf, total);
	free(buf);
	return p;
}

static uint16_t
bf16_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

/* ==== kernels on known data ==== */

Test(scan, f32_statistics)
{
	float v[] = {1, 2, 3, 4, 0, -2};
	ws_scan_acc a;
	ws_scan_tensor t;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_F32, v, 6, false, 0);
	ws_scan_finish(&a, &t);
	cr_assert_eq(t.values, 6);
	cr_assert_eq(t.zero, 1);
	cr_assert_eq(t.nan + t.inf, 0);
	cr_assert_float_eq(t.min, -2.0, 1e-12);
	cr_assert_float_eq(t.max, 4.0, 1e-12);
	cr_assert_float_eq(t.mean, 8.0 / 6.0, 1e-9);
	/* population std of {1,2,3,4,0,-2} */
	double m = 8.0 / 6.0, ss = 0;
	for (int i = 0; i < 6; i++)
		ss += (v[i] - m) * (v[i] - m);
	cr_assert_float_eq(t.std, sqrt(ss / 6), 1e-6);
}

/* A large offset and a tiny spread: sum(x^2) - n*mean^2 in float would
 * lose every digit; the chunked two-pass merge keeps them. */
Test(scan, std_is_numerically_sound)
{
	size_t n = 1000003;
	float *v = malloc(n * sizeof *v);
	cr_assert(v);
	for (size_t i = 0; i < n; i++)
		v[i] = i % 2 ? 10000.5f : 9999.5f;
	ws_scan_acc a;
	ws_scan_tensor t;
	ws_scan_acc_init(&a);
	/* in uneven pieces, as reads arrive */
	for (size_t off = 0; off < n; off += 77777)
		ws_scan_values(&a, WS_DT_F32, v + off, off + 77777 < n ? 77777 : n - off, false, off);
	ws_scan_finish(&a, &t);
	double mean = (10000.5 * (double)(n / 2) + 9999.5 * (double)(n - n / 2)) / (double)n;
	cr_assert_float_eq(t.mean, mean, 1e-9);
	cr_assert_float_eq(t.std, 0.5, 1e-5, "std %.9g", t.std);
	free(v);
}

/* Squares of large F32/E8M0 values overflow float lanes: still finite. */
Test(scan, large_values_stay_finite)
{
	float v[64];
	for (int i = 0; i < 64; i++)
		v[i] = i % 2 ? 3e37f : -3e37f;
	ws_scan_acc a;
	ws_scan_tensor t;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_F32, v, 64, false, 0);
	ws_scan_finish(&a, &t);
	cr_assert_float_eq(t.mean, 0.0, 1e25);
	cr_assert_float_eq(t.std, 3e37, 1e31, "std %g", t.std);
}

Test(scan, bf16_nan_inf_first_index)
{
	size_t n = 5000;
	uint16_t *v = malloc(n * 2);
	for (size_t i = 0; i < n; i++)
		v[i] = bf16_of((float)(i % 7) - 3.0f);
	v[3333] = 0x7fc1; /* NaN */
	v[4000] = 0xff80; /* -Inf */
	ws_scan_acc a;
	ws_scan_tensor t;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_BF16, v, n, false, 0);
	ws_scan_finish(&a, &t);
	cr_assert_eq(t.nan, 1);
	cr_assert_eq(t.inf, 1);
	cr_assert_eq(t.first_bad, 3333);
	cr_assert_float_eq(t.min, -3.0, 1e-12);
	cr_assert_float_eq(t.max, 3.0, 1e-12);
	/* byte-swapped data gives the same answer with swap set */
	for (size_t i = 0; i < n; i++)
		v[i] = (uint16_t)((v[i] >> 8) | (v[i] << 8));
	ws_scan_tensor s;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_BF16, v, n, true, 0);
	ws_scan_finish(&a, &s);
	cr_assert_eq(s.nan, 1);
	cr_assert_eq(s.first_bad, 3333);
	cr_assert_float_eq(s.mean, t.mean, 1e-12);
	cr_assert_float_eq(s.std, t.std, 1e-12);
	free(v);
}

static double
one(ws_dtype dt, const void *p, size_t size, ws_scan_tensor *t)
{
	ws_scan_acc a;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, dt, p, 1, false, 0);
	(void)size;
	ws_scan_finish(&a, t);
	return t->max;
}

Test(scan, f16_and_f8_decoding)
{
	ws_scan_tensor t;
	uint16_t h = 0x3c00; /* 1.0 */
	cr_assert_float_eq(one(WS_DT_F16, &h, 2, &t), 1.0, 0);
	h = 0x0001;          /* smallest subnormal, 2^-24 */
	cr_assert_float_eq(one(WS_DT_F16, &h, 2, &t), ldexp(1, -24), 0);
	h = 0xfc00;          /* -Inf */
	one(WS_DT_F16, &h, 2, &t);
	cr_assert_eq(t.inf, 1);
	h = 0x7e00;
	one(WS_DT_F16, &h, 2, &t);
	cr_assert_eq(t.nan, 1);

	static const struct { ws_dtype dt; uint8_t b; double v; int nan, inf; } f8[] = {
		{WS_DT_F8_E4M3, 0x38, 1.0, 0, 0},
		{WS_DT_F8_E4M3, 0x7e, 448.0, 0, 0},      /* the E4M3FN max */
		{WS_DT_F8_E4M3, 0x7f, 0, 1, 0},
		{WS_DT_F8_E4M3, 0x01, 0.001953125, 0, 0}, /* 2^-9 */
		{WS_DT_F8_E5M2, 0x3c, 1.0, 0, 0},
		{WS_DT_F8_E5M2, 0x7c, 0, 0, 1},
		{WS_DT_F8_E5M2, 0x7d, 0, 1, 0},
		{WS_DT_F8_E4M3FNUZ, 0x40, 1.0, 0, 0},
		{WS_DT_F8_E4M3FNUZ, 0x80, 0, 1, 0},
		{WS_DT_F8_E5M2FNUZ, 0x40, 1.0, 0, 0},
		{WS_DT_F8_E5M2FNUZ, 0x80, 0, 1, 0},
		{WS_DT_F8_E8M0, 0x7f, 1.0, 0, 0},
		{WS_DT_F8_E8M0, 0xff, 0, 1, 0},
	};
	for (size_t i = 0; i < sizeof f8 / sizeof f8[0]; i++) {
		double v = one(f8[i].dt, &f8[i].b, 1, &t);
		cr_assert_eq(t.nan, (uint64_t)f8[i].nan, "%s %02x", ws_dtype_name(f8[i].dt), f8[i].b);
		cr_assert_eq(t.inf, (uint64_t)f8[i].inf, "%s %02x", ws_dtype_name(f8[i].dt), f8[i].b);
		if (!f8[i].nan && !f8[i].inf)
			cr_assert_float_eq(v, f8[i].v, 1e-12, "%s %02x -> %g", ws_dtype_name(f8[i].dt), f8[i].b, v);
	}
}

Test(scan, skip_reasons)
{
	cr_assert_null(ws_scan_skip_reason(WS_DT_BF16));
	cr_assert_null(ws_scan_skip_reason(WS_DT_Q4_K));
	cr_assert_null(ws_scan_skip_reason(WS_DT_F8_E4M3));
	cr_assert_str_eq(ws_scan_skip_reason(WS_DT_I64), "integer type");
	cr_assert_str_eq(ws_scan_skip_reason(WS_DT_F4), "packed sub-byte floats");
	cr_assert_not_null(ws_scan_skip_reason(WS_DT_IQ2_XXS));
}

/* ==== the command ==== */

static char *
planted(const char *dir)
{
	static uint16_t w[64 * 64];
	static float inf[10];
	static uint16_t zero[16];
	static int64_t ids[4] = {1, 2, 3, 4};
	for (size_t i = 0; i < 64 * 64; i++)
		w[i] = bf16_of((float)((int)(i % 11) - 5) / 16.0f);
	w[777] = 0x7fc0;
	w[900] = 0x7fc0;
	for (int i = 0; i < 10; i++)
		inf[i] = (float)i;
	inf[3] = INFINITY;
	st_tensor t[] = {
		{"model.layers.0.mlp.up_proj.weight", "BF16", "[64, 64]", w, sizeof w},
		{"model.layers.0.input_layernorm.weight", "F32", "[10]", inf, sizeof inf},
		{"model.norm.weight", "F16", "[16]", zero, sizeof zero},
		{"position_ids", "I64", "[4]", ids, sizeof ids},
	};
	return write_st(dir, "planted.safetensors", t, 4);
}

Test(scan, cli_finds_planted_nan_inf_zero)
{
	char *dir = ws_tmpdir(), *p = planted(dir);
	ws_run r = ws_run_cli("scan", p, NULL);
	cr_assert_eq(r.status, 1, "exit %d\n%s%s", r.status, r.out, r.err);
	cr_assert(ws_contains(r.out, "model.layers.0.mlp.up_proj.weight"));
	cr_assert(ws_contains(r.out, "first at flat index 777"), "%s", r.out);
	cr_assert(ws_contains(r.out, "first at flat index 3"), "%s", r.out);
	cr_assert(ws_contains(r.out, "ALL-ZERO"));
	cr_assert(ws_contains(r.out, "position_ids  I64: integer type"), "%s", r.out);
	cr_assert(ws_contains(r.err, "model.layers.0.mlp.up_proj.weight: NaN at flat index 777"),
		  "%s", r.err);
	ws_run_free(&r);

	r = ws_run_cli("--json", "scan", "-j", "2", p, NULL);
	cr_assert_eq(r.status, 1);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o, "%s", r.out);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "command")->valuestring, "scan");
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
	cJSON *ts = cJSON_GetObjectItem(o, "tensors"), *it;
	int seen = 0;
	cJSON_ArrayForEach(it, ts) {
		const char *name = cJSON_GetObjectItem(it, "name")->valuestring;
		if (!strcmp(name, "model.layers.0.mlp.up_proj.weight")) {
			cr_assert_eq(cJSON_GetObjectItem(it, "nan")->valueint, 2);
			cr_assert_eq(cJSON_GetObjectItem(it, "first_bad")->valueint, 777);
			cr_assert_eq(cJSON_GetObjectItem(it, "values")->valueint, 4096);
			seen++;
		} else if (!strcmp(name, "model.layers.0.input_layernorm.weight")) {
			cr_assert_eq(cJSON_GetObjectItem(it, "inf")->valueint, 1);
			cr_assert_float_eq(cJSON_GetObjectItem(it, "max")->valuedouble, 9.0, 0);
			/* mean of 0..9 without the 3 */
			cr_assert_float_eq(cJSON_GetObjectItem(it, "mean")->valuedouble, 42.0 / 9.0, 1e-9);
			seen++;
		} else if (!strcmp(name, "model.norm.weight")) {
			cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(it, "all_zero")));
			seen++;
		}
	}
	cr_assert_eq(seen, 3);
	cJSON *sk = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "skipped"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(sk, "name")->valuestring, "position_ids");
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "summary"), "all_zero")->valueint, 1);
	cJSON_Delete(o);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

Test(scan, clean_checkpoint_exits_0)
{
	char *p = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("scan", p, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "21 scanned, 0 skipped"), "%s", r.out);
	cr_assert(ws_contains(r.out, "result: 0 tensors with NaN or Inf, 0 all-zero"));
	ws_run_free(&r);
	free(p);
}

static cJSON *
scan_json(const char *path)
{
	ws_run r = ws_run_cli("--json", "scan", path, NULL);
	cr_assert_eq(r.status, 0, "%s: %d %s", path, r.status, r.err);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o);
	ws_run_free(&r);
	return o;
}

/* Big-endian GGUF is swapped: the same statistics as little-endian, and
 * quantized tensors report their block scales. */
Test(scan, gguf_byte_orders_agree)
{
	char *dir = ws_tmpdir();
	char *argv[] = {getenv("WS_MKGGUF"), "valid", dir, NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0);
	ws_run_free(&g);
	char *le = ws_join(dir, "tiny-llama.gguf"), *be = ws_join(dir, "tiny-llama-be.gguf");
	cJSON *a = scan_json(le), *b = scan_json(be);
	cJSON *ta = cJSON_GetObjectItem(a, "tensors"), *tb = cJSON_GetObjectItem(b, "tensors");
	cr_assert_eq(cJSON_GetArraySize(ta), 12);
	cr_assert_eq(cJSON_GetArraySize(tb), 12);
	int scales = 0;
	for (int i = 0; i < 12; i++) {
		cJSON *x = cJSON_GetArrayItem(ta, i), *y = cJSON_GetArrayItem(tb, i);
		static const char *keys[] = {"values", "min", "max", "mean", "std", "nan", "zero"};
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			cr_assert_float_eq(cJSON_GetObjectItem(x, keys[k])->valuedouble,
					   cJSON_GetObjectItem(y, keys[k])->valuedouble, 0, "%s %s",
					   cJSON_GetObjectItem(x, "name")->valuestring, keys[k]);
		scales += cJSON_IsTrue(cJSON_GetObjectItem(x, "scales_only"));
	}
	cr_assert_eq(scales, 8); /* the Q8_0 and Q4_K tensors */
	/* blk.0.attn_norm.weight holds (e % 13 - 6) / 8 for e < 256 */
	cJSON *norm = cJSON_GetArrayItem(ta, 1);
	double s = 0, ss = 0;
	for (int e = 0; e < 256; e++)
		s += (e % 13 - 6) / 8.0;
	double mean = s / 256;
	for (int e = 0; e < 256; e++)
		ss += ((e % 13 - 6) / 8.0 - mean) * ((e % 13 - 6) / 8.0 - mean);
	cr_assert_str_eq(cJSON_GetObjectItem(norm, "name")->valuestring, "blk.0.attn_norm.weight");
	cr_assert_float_eq(cJSON_GetObjectItem(norm, "mean")->valuedouble, mean, 1e-12);
	cr_assert_float_eq(cJSON_GetObjectItem(norm, "std")->valuedouble, sqrt(ss / 256), 1e-9);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(le);
	free(be);
	ws_rmtree(dir);
	free(dir);
}

/* Real gguf-py output: F16/F32 tensors agree across the byte orders. */
Test(scan, realdata_gguf_py_floats)
{
	char *le = ws_shared_path("gguf/tiny-llama-gguf-py.gguf");
	char *be = ws_shared_path("gguf/tiny-llama-gguf-py-be.gguf");
	if (!le || !be) {
		free(le);
		free(be);
		cr_skip_test("no ../shared/realdata");
	}
	cJSON *a = scan_json(le);
	ws_run r = ws_run_cli("--json", "scan", be, NULL);
	cJSON *b = cJSON_Parse(r.out);
	cr_assert(b);
	cJSON *x, *ta = cJSON_GetObjectItem(a, "tensors");
	int floats = 0;
	cJSON_ArrayForEach(x, ta) {
		const char *dt = cJSON_GetObjectItem(x, "dtype")->valuestring;
		if (strcmp(dt, "F16") && strcmp(dt, "F32"))
			continue;
		cJSON *y;
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(b, "tensors"))
			if (!strcmp(cJSON_GetObjectItem(y, "name")->valuestring,
				    cJSON_GetObjectItem(x, "name")->valuestring))
				break;
		cr_assert(y);
		cr_assert_float_eq(cJSON_GetObjectItem(x, "std")->valuedouble,
				   cJSON_GetObjectItem(y, "std")->valuedouble, 0);
		floats++;
	}
	cr_assert_eq(floats, 14);
	cJSON_Delete(a);
	cJSON_Delete(b);
	ws_run_free(&r);
	free(le);
	free(be);
}

/* Reads are pread, never the mapping: a file cut short under an open
 * model is an error value naming the file, not SIGBUS. */
Test(scan, shrunk_file_is_an_error)
{
	char *dir = ws_tmpdir(), *p = planted(dir);
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_eq(truncate(p, 200), 0);
	ws_scan s;
	cr_assert_eq(ws_scan_model(m, NULL, &s, &err), 0);
	cr_assert(s.failed);
	cr_assert(ws_contains(s.err.message, "shrank"), "%s", s.err.message);
	cr_assert(ws_contains(s.err.file, "planted.safetensors"));
	ws_scan_free(&s);
	ws_model_free(m);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* Review: an F64 tensor of [1.7e308] x 4 gave mean inf and std -nan (the
 * chunk sum overflowed, then inf * 0 in the merge).  Values near DBL_MAX
 * now give the exact mean; a spread whose squares leave double range
 * saturates std to +inf, never NaN. */
Test(scan, f64_near_dbl_max)
{
	double v[4] = {1.7e308, 1.7e308, 1.7e308, 1.7e308};
	ws_scan_acc a;
	ws_scan_tensor t;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_F64, v, 4, false, 0);
	ws_scan_finish(&a, &t);
	cr_assert_eq(t.values, 4);
	cr_assert_eq(t.nan + t.inf, 0);
	cr_assert(isfinite(t.mean), "mean %g", t.mean);
	cr_assert_float_eq(t.mean, 1.7e308, 1.7e308 * 1e-12, "mean %g", t.mean);
	cr_assert_float_eq(t.std, 0.0, 1e-300, "std %g", t.std);
	cr_assert_float_eq(t.max, 1.7e308, 0);

	/* several chunks, in uneven pieces, one with an Inf to drop */
	size_t n = 3001;
	double *w = malloc(n * sizeof *w);
	cr_assert(w);
	for (size_t i = 0; i < n; i++)
		w[i] = i % 2 ? 1.7e308 : 1.6e308;
	w[1234] = INFINITY;
	ws_scan_acc_init(&a);
	for (size_t off = 0; off < n; off += 700)
		ws_scan_values(&a, WS_DT_F64, w + off, off + 700 < n ? 700 : n - off, false, off);
	ws_scan_finish(&a, &t);
	cr_assert_eq(t.inf, 1);
	cr_assert_eq(t.first_bad, 1234);
	double want = (1.7e308 * 1500.0 + 1.6e308 * 1500.0) / 3000.0;
	cr_assert_float_eq(t.mean, want, want * 1e-12, "mean %g", t.mean);
	cr_assert(!isnan(t.std) && t.std > 1e300, "std %g", t.std); /* 5e306: m2 saturates */

	/* opposite halves: their means differ by more than DBL_MAX */
	for (size_t i = 0; i < 1024; i++)
		w[i] = i < 512 ? 1.7e308 : -1.7e308;
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_F64, w, 1024, false, 0);
	ws_scan_finish(&a, &t);
	cr_assert_float_eq(t.mean, 0.0, 1e295, "mean %g", t.mean);
	cr_assert(!isnan(t.std) && t.std > 1e300, "std %g", t.std);
	cr_assert_float_eq(t.min, -1.7e308, 0);
	free(w);

	/* and the ordinary case is unchanged */
	double s[] = {1, 2, 3, 4, 0, -2};
	ws_scan_acc_init(&a);
	ws_scan_values(&a, WS_DT_F64, s, 6, false, 0);
	ws_scan_finish(&a, &t);
	cr_assert_float_eq(t.mean, 8.0 / 6.0, 1e-12);
	cr_assert_float_eq(t.std, sqrt((1 + 4 + 9 + 16 + 0 + 4) / 6.0 - (8.0 / 6) * (8.0 / 6)), 1e-12);
}
