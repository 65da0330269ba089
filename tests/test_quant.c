/* test_quant.c - packed/quantized checkpoints: logical parameter counts,
 * unpacked shapes, zero biases, bits per weight.  Full-size sparse
 * checkpoints come from tools/mkquant; small edge cases are written here. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "ws/formula.h"
#include "ws/model.h"
#include "ws/quant.h"

/* ==== helpers ==== */

static char *
mkquant(const char *kind, const char *shards)
{
	const char *bin = getenv("WS_MKQUANT");
	cr_assert(bin, "WS_MKQUANT not set");
	char *dir = ws_tmpdir();
	char *out = ws_join(dir, kind);
	char *argv[] = {(char *)bin, (char *)kind, out, shards ? "--shards" : NULL,
			(char *)shards, NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkquant %s: %s", kind, r.err);
	ws_run_free(&r);
	free(dir);
	return out;
}

static void
rmdir_of(char *dir)
{
	char *slash = strrchr(dir, '/');
	*slash = '\0';
	ws_rmtree(dir);
	free(dir);
}

/* `check DIR --json`: asserts exit 0 and ok, returns the object. */
static cJSON *
check_json(const char *dir)
{
	ws_run r = ws_run_cli("check", dir, "--json", NULL);
	cr_assert_eq(r.status, 0, "check %s exited %d: %s %s", dir, r.status, r.err, r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "findings")), 0, "findings: %s", r.out);
	ws_run_free(&r);
	return j;
}

static uint64_t
u64_at(const cJSON *j, const char *a, const char *b)
{
	const cJSON *o = cJSON_GetObjectItem(j, a);
	if (b)
		o = cJSON_GetObjectItem(o, b);
	cr_assert(cJSON_IsNumber(o), "%s.%s missing", a, b ? b : "");
	return (uint64_t)o->valuedouble;
}

static double
bpw_total(const cJSON *j)
{
	const cJSON *b = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "bits_per_weight"), "total");
	cr_assert(cJSON_IsNumber(b), "bits_per_weight.total missing");
	return b->valuedouble;
}

static const char *
method(const cJSON *j)
{
	const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "quantization"), "method");
	cr_assert(cJSON_IsString(m));
	return m->valuestring;
}

static ws_model *
open_analyzed(const char *path)
{
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(path, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_model_analyze(m, &err), 0, "%s", err.message);
	return m;
}

static const ws_tensor *
tensor(const ws_model *m, const char *name)
{
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (strcmp(m->tensors[i].name, name) == 0)
			return &m->tensors[i];
	cr_assert_fail("no tensor %s", name);
	return NULL;
}

static void
expect_logical(const ws_model *m, const char *name, uint32_t nd, const uint64_t *dims)
{
	const ws_tensor *t = tensor(m, name);
	cr_assert(t->logical, "%s: no logical shape", name);
	uint32_t lnd;
	const uint64_t *ls = ws_tensor_logical(t, &lnd);
	cr_assert_eq(lnd, nd, "%s: rank %u", name, lnd);
	uint64_t n = 1;
	for (uint32_t i = 0; i < nd; i++) {
		cr_expect_eq(ls[i], dims[i], "%s dim %u: %" PRIu64 " != %" PRIu64,
			     name, i, ls[i], dims[i]);
		n *= dims[i];
	}
	cr_expect_eq(t->params, n, "%s params", name);
}

#define DIMS(...) (sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)), ((const uint64_t[]){__VA_ARGS__})

/* A small safetensors file: tensors of zeros, or given bytes. */
typedef struct st_tensor {
	const char *name, *dtype;
	unsigned esize;
	uint64_t d0, d1;       /* d1 == 0: 1-D */
	const char *data;      /* NULL: zeros */
} st_tensor;

static void
write_st(const char *dir, const st_tensor *t, size_t n)
{
	char h[8192];
	size_t o = 0;
	uint64_t off = 0;
	o += (size_t)snprintf(h + o, sizeof h - o, "{");
	for (size_t i = 0; i < n; i++) {
		uint64_t b = t[i].d0 * (t[i].d1 ? t[i].d1 : 1) * t[i].esize;
		o += (size_t)snprintf(h + o, sizeof h - o, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[%" PRIu64,
				      i ? "," : "", t[i].name, t[i].dtype, t[i].d0);
		if (t[i].d1)
			o += (size_t)snprintf(h + o, sizeof h - o, ",%" PRIu64, t[i].d1);
		o += (size_t)snprintf(h + o, sizeof h - o, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
				      off, off + b);
		off += b;
	}
	o += (size_t)snprintf(h + o, sizeof h - o, "}");
	while (o % 8)
		h[o++] = ' ';
	size_t total = 8 + o + (size_t)off;
	unsigned char *buf = calloc(1, total);
	cr_assert(buf);
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)((uint64_t)o >> (8 * i));
	memcpy(buf + 8, h, o);
	off = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = t[i].d0 * (t[i].d1 ? t[i].d1 : 1) * t[i].esize;
		if (t[i].data)
			memcpy(buf + 8 + o + off, t[i].data, (size_t)b);
		off += b;
	}
	free(ws_write_file(dir, "model.safetensors", buf, total));
	free(buf);
}

/* ==== full-size checkpoints: check passes at the unquantized count ==== */

Test(quant, gptq_llama2_7b)
{
	char *dir = mkquant("gptq-llama2-7b", NULL);
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "params", "total"), 6738415616ull);
	cr_expect_str_eq(method(j), "gptq");
	/* 4 bits + F16 scales and packed zeros per 128 + g_idx + zero biases */
	double b = bpw_total(j);
	cr_expect(b > 4.15 && b < 4.30, "GPTQ g128 bits per weight %.3f", b);
	cr_expect_eq(u64_at(j, "quantization", "zero_biases"), 224);
	cr_expect_eq(u64_at(j, "buffers", "total"), 32 * 64);  /* inv_freq */
	cJSON_Delete(j);

	ws_model *m = open_analyzed(dir);
	expect_logical(m, "model.layers.0.self_attn.q_proj.qweight", DIMS(4096, 4096));
	expect_logical(m, "model.layers.31.mlp.down_proj.qweight", DIMS(4096, 11008));
	const ws_tensor *bias = tensor(m, "model.layers.0.mlp.down_proj.bias");
	cr_expect_eq(bias->role, WS_ROLE_QUANT_AUX);
	cr_expect_eq(bias->params, 0);
	cr_expect_eq(tensor(m, "model.layers.0.mlp.down_proj.qweight")->elements, 1376ull * 4096);
	ws_model_free(m);
	/* ls: the unpacked shape, the stored one beside it (JSON: "shape"
	 * stays the stored one, "logical_shape" beside) */
	ws_run r = ws_run_cli("ls", dir, "--match", "model.layers.31.mlp.down_proj.qweight", NULL);
	cr_expect(ws_contains(r.out, "[4096, 11008] (stored [1376, 4096])"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("ls", dir, "--match", "model.layers.31.mlp.down_proj.qweight", "--json", NULL);
	cr_expect(ws_contains(r.out, "\"shape\":[1376,4096],\"logical_shape\":[4096,11008]"), "%s", r.out);
	ws_run_free(&r);
	rmdir_of(dir);
}

Test(quant, awq_mistral_7b_packs_columns)
{
	char *dir = mkquant("awq-mistral-7b", NULL);
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "params", "total"), 7241732096ull);
	cr_expect_str_eq(method(j), "awq");
	double b = bpw_total(j);
	cr_expect(b > 4.10 && b < 4.25, "AWQ bits per weight %.3f", b);
	cJSON_Delete(j);

	/* a GPTQ reading would give [512, 114688]: same product, wrong shape */
	ws_model *m = open_analyzed(dir);
	expect_logical(m, "model.layers.0.mlp.down_proj.qweight", DIMS(4096, 14336));
	expect_logical(m, "model.layers.0.self_attn.k_proj.qweight", DIMS(1024, 4096));
	ws_model_free(m);
	rmdir_of(dir);
}

Test(quant, compressed_tensors_llama31_8b)
{
	char *dir = mkquant("ct-llama31-8b", "3");
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "params", "total"), 8030261248ull);
	cr_expect_str_eq(method(j), "compressed-tensors");
	double b = bpw_total(j);
	cr_expect(b > 4.10 && b < 4.20, "w4a16 bits per weight %.3f", b);
	cJSON_Delete(j);
	char *ix = ws_join(dir, "model.safetensors.index.json");
	ws_model *m = open_analyzed(ix);
	expect_logical(m, "model.layers.5.mlp.up_proj.weight_packed", DIMS(14336, 4096));
	ws_model_free(m);
	free(ix);
	rmdir_of(dir);
}

Test(quant, bnb_nf4_llama32_1b)
{
	char *dir = mkquant("bnb-llama32-1b", NULL);
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "params", "total"), 1235814400ull);
	cr_expect_str_eq(method(j), "bitsandbytes");
	double b = bpw_total(j);
	cr_expect(b > 4.05 && b < 4.30, "NF4 bits per weight %.3f", b);
	cJSON_Delete(j);
	/* the quant_state JSON gives the exact [out, in] */
	ws_model *m = open_analyzed(dir);
	expect_logical(m, "model.layers.0.self_attn.k_proj.weight", DIMS(512, 2048));
	expect_logical(m, "model.layers.15.mlp.down_proj.weight", DIMS(2048, 8192));
	ws_model_free(m);
	rmdir_of(dir);
}

Test(quant, mlx_qwen25_05b_mixed_bits)
{
	char *dir = mkquant("mlx-qwen25-05b", NULL);
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "params", "total"), 494032768ull);
	cr_expect_str_eq(method(j), "mlx");
	double b = bpw_total(j);
	cr_expect(b > 4.50 && b < 4.60, "MLX 4-bit g64 bits per weight %.3f", b);
	const cJSON *emb = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "bits_per_weight"), "by_role"), "embed");
	cr_expect(cJSON_IsNumber(emb) && emb->valuedouble == 4.5, "quantized embedding: 4 + 2 × 16/64");
	cJSON_Delete(j);
	ws_model *m = open_analyzed(dir);
	expect_logical(m, "model.embed_tokens.weight", DIMS(151936, 896));
	/* the per-module 8-bit entry: U32 [896, 1216] is 4864 inputs */
	expect_logical(m, "model.layers.0.mlp.down_proj.weight", DIMS(896, 4864));
	expect_logical(m, "model.layers.1.mlp.down_proj.weight", DIMS(896, 4864));
	/* .biases is a side tensor, .bias a parameter */
	cr_expect_eq(tensor(m, "model.layers.0.self_attn.q_proj.biases")->role, WS_ROLE_QUANT_AUX);
	cr_expect_eq(tensor(m, "model.layers.0.self_attn.q_proj.bias")->params, 896);
	ws_model_free(m);
	rmdir_of(dir);
}

Test(quant, fp8_deepseek_v3)
{
	char *dir = mkquant("fp8-deepseek-v3", "8");
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "tensor_count", NULL), 91991);
	cr_expect_eq(u64_at(j, "formula", "total"), 671026419200ull);
	/* the MTP layer is stored and counted; the formula reports it apart */
	cr_expect_eq(u64_at(j, "params", "total"),
		     671026419200ull + u64_at(j, "formula", "mtp"));
	cr_expect_eq(u64_at(j, "params", "total"), 684489845504ull);
	/* per dtype as the Hub reports the real files */
	const cJSON *bd = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "elements"), "by_dtype");
	cr_expect_eq((uint64_t)cJSON_GetObjectItem(bd, "F8_E4M3")->valuedouble, 680571043840ull);
	cr_expect_eq((uint64_t)cJSON_GetObjectItem(bd, "BF16")->valuedouble, 3918786560ull);
	cr_expect_eq((uint64_t)cJSON_GetObjectItem(bd, "F32")->valuedouble, 41555600ull);
	cr_expect_str_eq(method(j), "fp8");
	double b = bpw_total(j);
	cr_expect(b > 8.0 && b < 8.01, "FP8 + 128×128 F32 scales: %.3f", b);
	cJSON_Delete(j);
	rmdir_of(dir);
}

Test(quant, mxfp4_gpt_oss_20b)
{
	char *dir = mkquant("mxfp4-gpt-oss-20b", NULL);
	cJSON *j = check_json(dir);
	cr_expect_eq(u64_at(j, "params", "total"), u64_at(j, "formula", "total"));
	cr_expect_eq(u64_at(j, "params", "total"), 20914757184ull);
	cr_expect_eq(u64_at(j, "bytes", "total"), 13761264768ull);  /* the real total_size */
	cr_expect_str_eq(method(j), "mxfp4");
	cr_expect_eq(bpw_total(j), 4.25);
	cJSON_Delete(j);
	ws_model *m = open_analyzed(dir);
	expect_logical(m, "model.layers.0.mlp.experts.gate_up_proj_blocks", DIMS(32, 5760, 2880));
	ws_model_free(m);
	rmdir_of(dir);
}

Test(quant, text_report_shows_bits_per_weight)
{
	char *dir = mkquant("gptq-llama2-7b", NULL);
	ws_run r = ws_run_cli(dir, NULL);
	cr_assert_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "parameters     6,738,415,616 (6.74B)"), "%s", r.out);
	cr_expect(ws_contains(r.out, "quantization   gptq, 4-bit, group 128"), "%s", r.out);
	cr_expect(ws_contains(r.out, "bits/weight    4.1"), "%s", r.out);
	ws_run_free(&r);
	rmdir_of(dir);
}

/* ==== small cases ==== */

static const char llama_cfg[] =
	"{\"model_type\":\"llama\",\"vocab_size\":16,\"hidden_size\":16,"
	"\"intermediate_size\":32,\"num_hidden_layers\":1,\"num_attention_heads\":2,"
	"\"num_key_value_heads\":2,\"tie_word_embeddings\":true%s}";

static ws_model *
small(const char *dir, const char *cfg_extra, const st_tensor *t, size_t n)
{
	if (cfg_extra) {
		char cfg[1024];
		snprintf(cfg, sizeof cfg, llama_cfg, cfg_extra);
		free(ws_write_file(dir, "config.json", cfg, strlen(cfg)));
	}
	write_st(dir, t, n);
	return open_analyzed(dir);
}

Test(quant, dispatch_by_shapes_without_config)
{
	/* GPTQ: scales.cols == qweight.cols; bits from qzeros (1 word = 8 outs) */
	char *d1 = ws_tmpdir();
	st_tensor g[] = {
		{"model.layers.0.mlp.down_proj.qweight", "I32", 4, 2, 8, NULL},
		{"model.layers.0.mlp.down_proj.qzeros", "I32", 4, 1, 1, NULL},
		{"model.layers.0.mlp.down_proj.scales", "F16", 2, 1, 8, NULL},
	};
	ws_model *m = small(d1, NULL, g, 3);
	expect_logical(m, "model.layers.0.mlp.down_proj.qweight", DIMS(8, 16));
	cr_expect_str_eq(m->quant->method_name, "gptq");
	cr_expect_str_eq(m->quant->source, "tensor names");
	ws_model_free(m);
	ws_rmtree(d1);
	free(d1);

	/* AWQ GEMM: qweight [in, out/8], scales [in/g, out] */
	char *d2 = ws_tmpdir();
	st_tensor a[] = {
		{"model.layers.0.mlp.down_proj.qweight", "I32", 4, 16, 1, NULL},
		{"model.layers.0.mlp.down_proj.qzeros", "I32", 4, 1, 1, NULL},
		{"model.layers.0.mlp.down_proj.scales", "F16", 2, 1, 8, NULL},
	};
	m = small(d2, NULL, a, 3);
	expect_logical(m, "model.layers.0.mlp.down_proj.qweight", DIMS(8, 16));
	cr_expect_str_eq(m->quant->method_name, "awq");
	ws_model_free(m);
	ws_rmtree(d2);
	free(d2);
}

Test(quant, gptq_bias_kept_when_the_architecture_has_one)
{
	char *dir = ws_tmpdir();
	st_tensor t[] = {
		{"model.layers.0.self_attn.q_proj.qweight", "I32", 4, 2, 16, NULL},
		{"model.layers.0.self_attn.q_proj.g_idx", "I32", 4, 16, 0, NULL},
		{"model.layers.0.self_attn.q_proj.scales", "F16", 2, 1, 16, NULL},
		{"model.layers.0.self_attn.q_proj.bias", "F16", 2, 16, 0, NULL},
		{"model.layers.0.mlp.up_proj.qweight", "I32", 4, 2, 32, NULL},
		{"model.layers.0.mlp.up_proj.g_idx", "I32", 4, 16, 0, NULL},
		{"model.layers.0.mlp.up_proj.bias", "F16", 2, 32, 0, NULL},
	};
	ws_model *m = small(dir, ",\"attention_bias\":true,"
			    "\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":128}",
			    t, 7);
	const ws_tensor *qb = tensor(m, "model.layers.0.self_attn.q_proj.bias");
	cr_expect_eq(qb->role, WS_ROLE_ATTN_Q);
	cr_expect_eq(qb->params, 16);
	const ws_tensor *ub = tensor(m, "model.layers.0.mlp.up_proj.bias");
	cr_expect_eq(ub->role, WS_ROLE_QUANT_AUX, "llama has no MLP bias: a zero bias");
	cr_expect_eq(ub->params, 0);
	cr_expect_eq(m->quant->zero_biases, 1);
	ws_model_free(m);
	ws_rmtree(dir);
	free(dir);
}

Test(quant, gptq_g_idx_that_does_not_fit_is_a_finding)
{
	char *dir = ws_tmpdir();
	st_tensor t[] = {
		{"model.layers.0.mlp.down_proj.qweight", "I32", 4, 2, 16, NULL},
		{"model.layers.0.mlp.down_proj.g_idx", "I32", 4, 20, 0, NULL},
	};
	ws_model *m = small(dir, ",\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4}", t, 2);
	bool found = false;
	for (size_t i = 0; i < m->n_findings; i++)
		found |= strcmp(m->findings[i].code, "shape-mismatch") == 0 && m->findings[i].tensor &&
			 strstr(m->findings[i].tensor, "down_proj.qweight");
	cr_expect(found, "no shape-mismatch for a qweight its g_idx contradicts");
	cr_expect_not(tensor(m, "model.layers.0.mlp.down_proj.qweight")->logical);
	ws_model_free(m);
	ws_rmtree(dir);
	free(dir);
}

Test(quant, bnb_without_a_readable_state_counts_two_per_byte)
{
	char *dir = ws_tmpdir();
	st_tensor t[] = {
		{"model.layers.0.mlp.down_proj.weight", "U8", 1, 256, 1, NULL},
		{"model.layers.0.mlp.down_proj.weight.absmax", "F32", 4, 8, 0, NULL},
		{"model.layers.0.mlp.down_proj.weight.quant_map", "F32", 4, 16, 0, NULL},
		{"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", "U8", 1, 6, 0, "{\"sha"},
	};
	ws_model *m = small(dir, ",\"quantization_config\":{\"quant_method\":\"bitsandbytes\",\"load_in_4bit\":true}",
			    t, 4);
	expect_logical(m, "model.layers.0.mlp.down_proj.weight", DIMS(512));
	ws_model_free(m);

	/* a state whose shape contradicts the bytes is not believed either */
	st_tensor t2[] = {
		{"model.layers.0.mlp.down_proj.weight", "U8", 1, 256, 1, NULL},
		{"model.layers.0.mlp.down_proj.weight.absmax", "F32", 4, 8, 0, NULL},
		{"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", "U8", 1, 17, 0,
		 "{\"shape\":[99,99]}"},
	};
	m = small(dir, NULL, t2, 3);
	expect_logical(m, "model.layers.0.mlp.down_proj.weight", DIMS(512));
	ws_model_free(m);

	st_tensor t3[] = {
		{"model.layers.0.mlp.down_proj.weight", "U8", 1, 256, 1, NULL},
		{"model.layers.0.mlp.down_proj.weight.absmax", "F32", 4, 8, 0, NULL},
		{"model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", "U8", 1, 17, 0,
		 "{\"shape\":[16,32]}"},
	};
	m = small(dir, NULL, t3, 3);
	expect_logical(m, "model.layers.0.mlp.down_proj.weight", DIMS(16, 32));
	ws_model_free(m);
	ws_rmtree(dir);
	free(dir);
}

Test(quant, hostile_descriptions_are_ignored)
{
	static const char *const bad[] = {
		",\"quantization_config\":{\"quant_method\":5,\"bits\":\"x\"}",
		",\"quantization_config\":[1,2]",
		",\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":1e300,\"group_size\":-7}",
		",\"quantization\":{\"bits\":0,\"group_size\":0}",
		",\"quantization_config\":{\"quant_method\":\"\\u001b[31mevil\"}",
		",\"compression_config\":{\"quant_method\":\"compressed-tensors\",\"config_groups\":7}",
	};
	st_tensor t[] = {
		{"model.layers.0.mlp.down_proj.weight_packed", "I32", 4, 16, 4, NULL},
		{"model.layers.0.mlp.down_proj.weight_shape", "I32", 4, 2, 0, NULL},
		{"model.layers.0.mlp.up_proj.weight", "U32", 4, 32, 2, NULL},
		{"model.layers.0.mlp.up_proj.scales", "F16", 2, 32, 1, NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *dir = ws_tmpdir();
		ws_model *m = small(dir, bad[i], t, 4);
		cr_assert(m->quant);
		cr_expect_null(strchr(m->quant->method_name, '\033'), "an escape byte survived");
		ws_model_free(m);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(quant, unquantized_models_have_no_quant_section)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	ws_model *m = open_analyzed(dir);
	cr_expect_null(m->quant);
	ws_bpw b;
	ws_quant_bpw(m, &b);
	cr_expect_eq(b.params, 0);
	cr_expect_eq(ws_bpw_value(b.all_bytes, b.all_params), 16.0);
	ws_model_free(m);
	ws_run r = ws_run_cli("check", dir, "--json", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(!ws_contains(r.out, "bits_per_weight"), "golden outputs of plain models stay as they were");
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

Test(quant, gguf_block_types)
{
	char *p = ws_shared_path("gguf/tiny-llama-gguf-py.gguf");
	if (!p)
		cr_skip_test("../shared is absent");
	ws_run r = ws_run_cli(p, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j);
	cr_expect_str_eq(method(j), "gguf");
	cr_expect_eq(bpw_total(j), 8.5, "Q8_0: 34 bytes per 32 weights");
	cJSON_Delete(j);
	ws_run_free(&r);
	free(p);
}

Test(quant, description_places)
{
	st_tensor t[] = {
		{"model.layers.0.mlp.down_proj.weight_packed", "I32", 4, 16, 2, NULL},
		{"model.layers.0.mlp.down_proj.weight_scale", "BF16", 2, 16, 1, NULL},
	};
	/* compressed-tensors <= 0.5 wrote compression_config; 2 bits here */
	char *dir = ws_tmpdir();
	ws_model *m = small(dir, ",\"compression_config\":{\"quant_method\":\"compressed-tensors\","
			    "\"format\":\"pack-quantized\",\"config_groups\":{\"g\":{\"targets\":[\"Linear\"],"
			    "\"weights\":{\"num_bits\":2,\"group_size\":16}}}}", t, 2);
	expect_logical(m, "model.layers.0.mlp.down_proj.weight_packed", DIMS(16, 32));
	cr_expect_str_eq(m->quant->source, "config.json compression_config");
	cr_expect_eq(m->quant->bits, 2);
	ws_model_free(m);
	ws_rmtree(dir);
	free(dir);

	/* GPTQ settings from the safetensors header alone */
	dir = ws_tmpdir();
	st_tensor g[] = {
		{"model.layers.0.mlp.down_proj.qweight", "I32", 4, 4, 8, NULL},
		{"model.layers.0.mlp.down_proj.scales", "F16", 2, 1, 8, NULL},
	};
	write_st(dir, g, 2);
	char *f = ws_join(dir, "model.safetensors");
	FILE *fp = fopen(f, "r+b");
	cr_assert(fp);
	/* rewrite the header with __metadata__ gptq_bits = 8 (same length) */
	char h[4096];
	unsigned char n8[8];
	cr_assert_eq(fread(n8, 1, 8, fp), 8);
	size_t hl = 0;
	for (int i = 0; i < 8; i++)
		hl |= (size_t)n8[i] << (8 * i);
	cr_assert(hl < sizeof h && fread(h, 1, hl, fp) == hl);
	fclose(fp);
	free(f);
	const char *meta = "\"__metadata__\":{\"gptq_bits\":\"8\"},";
	char nh[4096];
	int k = snprintf(nh, sizeof nh, "{%s%.*s", meta, (int)hl - 1, h + 1);
	while (k % 8)
		nh[k++] = ' ';
	size_t dl = 4 * 4 * 8 + 2 * 8;
	unsigned char *buf = calloc(1, 8 + (size_t)k + dl);
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)((uint64_t)k >> (8 * i));
	memcpy(buf + 8, nh, (size_t)k);
	free(ws_write_file(dir, "model.safetensors", buf, 8 + (size_t)k + dl));
	free(buf);
	m = open_analyzed(dir);
	cr_expect_str_eq(m->quant->source, "__metadata__ gptq_bits");
	expect_logical(m, "model.layers.0.mlp.down_proj.qweight", DIMS(8, 16));
	ws_model_free(m);
	ws_rmtree(dir);
	free(dir);
}
