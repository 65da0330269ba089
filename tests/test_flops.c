/* test_flops.c - MACs a·N + b·N² from real shapes, layer selections, KV
 * cache and memory: the library on full-size checkpoints (sparse files,
 * in-memory models with real names and shapes) and the CLI on the tiny
 * testdata model. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/flops.h"
#include "ws/formula.h"
#include "testutil.h"

/* ==== helpers ==== */

/* An opened, analyzed model and its blocks. */
typedef struct fixture {
	ws_model *m;
	ws_flops_model f;
	char *dir;
} fixture;

static void
fixture_open(fixture *x, const char *path)
{
	ws_error err = {0};
	cr_assert_eq(ws_model_open(path, NULL, &x->m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_model_analyze(x->m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_flops_model_init(x->m, &x->f, &err), 0, "%s", err.message);
}

static void
fixture_free(fixture *x)
{
	ws_flops_model_free(&x->f);
	ws_model_free(x->m);
	if (x->dir) {
		ws_rmtree(x->dir);
		free(x->dir);
	}
	memset(x, 0, sizeof *x);
}

/* A full-size sparse checkpoint of a real config (skip without ../shared). */
static void
fixture_sparse(fixture *x, const char *config_name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "configs/%s", config_name);
	char *cfg = ws_shared_path(rel);
	if (!cfg)
		cr_skip_test("../shared absent");
	x->dir = ws_tmpdir();
	ws_mkfixture("sparse", x->dir, cfg, NULL);
	free(cfg);
	fixture_open(x, x->dir);
}

/* Select SPEC (NULL: all); asserts success. */
static ws_flops_result
select_spec(const fixture *x, const char *spec)
{
	ws_layer_sel sel = {0};
	char why[256];
	ws_error err = {0};
	ws_flops_result r;
	if (spec)
		cr_assert_eq(ws_layer_sel_parse(spec, &sel, why, sizeof why), 0, "%s: %s", spec, why);
	cr_assert_eq(ws_flops_select(x->m, &x->f, spec ? &sel : NULL, WS_DT_INVALID, &r, &err), 0,
		     "%s", err.message);
	ws_layer_sel_free(&sel);
	return r;
}

/* ==== in-memory llama-family models with real names and shapes ==== */

static uint64_t
cfg_num(const cJSON *c, const char *key, uint64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
	return cJSON_IsNumber(v) ? (uint64_t)v->valuedouble : dflt;
}

static void
push(ws_model *m, const char *name, uint64_t d0, uint64_t d1)
{
	ws_tensor *t = ws_model_push_tensor(m);
	cr_assert(t);
	t->name = ws_model_strndup(m, name, strlen(name));
	t->name_len = (uint32_t)strlen(name);
	t->dtype = WS_DT_BF16;
	uint64_t *shape = ws_model_alloc(m, 2 * sizeof *shape);
	cr_assert(t->name && shape);
	shape[0] = d0;
	shape[1] = d1;
	t->ndim = d1 ? 2 : 1;
	t->shape = shape;
	t->elements = d1 ? d0 * d1 : d0;
	t->bytes = t->elements * 2;
}

/* Build the tensors HF transformers names for a llama / mistral / mixtral
 * config (Mixtral: block_sparse_moe.gate and experts.E.w1/w2/w3), then
 * analyze: roles and architecture come from the real code paths. */
static void
fixture_memory_path(fixture *x, const char *cfg_path)
{
	char name[160];
	ws_error err = {0};
	ws_model *m = ws_model_new(cfg_path);
	cr_assert(m);
	cr_assert_eq(ws_model_load_config(m, cfg_path, &err), 0, "%s", err.message);
	const cJSON *c = m->config;
	uint64_t h = cfg_num(c, "hidden_size", 0), inter = cfg_num(c, "intermediate_size", 0);
	uint64_t layers = cfg_num(c, "num_hidden_layers", 0), heads = cfg_num(c, "num_attention_heads", 0);
	uint64_t kv = cfg_num(c, "num_key_value_heads", heads), vocab = cfg_num(c, "vocab_size", 0);
	uint64_t hd = cfg_num(c, "head_dim", h / heads), experts = cfg_num(c, "num_local_experts", 0);
	push(m, "model.embed_tokens.weight", vocab, h);
	for (uint64_t l = 0; l < layers; l++) {
#define P(suffix, d0, d1) do { \
		snprintf(name, sizeof name, "model.layers.%llu.%s", (unsigned long long)l, suffix); \
		push(m, name, d0, d1); } while (0)
		P("input_layernorm.weight", h, 0);
		P("self_attn.q_proj.weight", heads * hd, h);
		P("self_attn.k_proj.weight", kv * hd, h);
		P("self_attn.v_proj.weight", kv * hd, h);
		P("self_attn.o_proj.weight", h, heads * hd);
		P("post_attention_layernorm.weight", h, 0);
		if (!experts) {
			P("mlp.gate_proj.weight", inter, h);
			P("mlp.up_proj.weight", inter, h);
			P("mlp.down_proj.weight", h, inter);
		} else {
			P("block_sparse_moe.gate.weight", experts, h);
		}
		for (uint64_t e = 0; e < experts; e++) {
			char sfx[96];
			snprintf(sfx, sizeof sfx, "block_sparse_moe.experts.%llu.w1.weight", (unsigned long long)e);
			P(sfx, inter, h);
			snprintf(sfx, sizeof sfx, "block_sparse_moe.experts.%llu.w3.weight", (unsigned long long)e);
			P(sfx, inter, h);
			snprintf(sfx, sizeof sfx, "block_sparse_moe.experts.%llu.w2.weight", (unsigned long long)e);
			P(sfx, h, inter);
		}
#undef P
	}
	push(m, "model.norm.weight", h, 0);
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "tie_word_embeddings")))
		push(m, "lm_head.weight", vocab, h);
	x->m = m;
	cr_assert_eq(ws_model_analyze(m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_flops_model_init(m, &x->f, &err), 0, "%s", err.message);
}

static void
fixture_memory(fixture *x, const char *config_name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "configs/%s", config_name);
	char *cfg_path = ws_shared_path(rel);
	if (!cfg_path)
		cr_skip_test("../shared absent");
	fixture_memory_path(x, cfg_path);
	free(cfg_path);
}

/* ==== --layers SPEC ==== */

Test(flops, layer_spec_parse)
{
	ws_layer_sel s;
	char why[256], buf[64];
	cr_assert_eq(ws_layer_sel_parse("0-23,27-31", &s, why, sizeof why), 0, "%s", why);
	cr_assert_eq(s.n, 2);
	cr_assert_eq(s.blocks, 29);
	cr_assert_eq(s.ranges[1].first, 27);
	cr_assert_eq(s.ranges[1].last, 31);
	cr_assert_str_eq(ws_layer_sel_format(&s, buf, sizeof buf), "0-23,27-31");
	ws_layer_sel_free(&s);

	cr_assert_eq(ws_layer_sel_parse("0-15,8-15,16-31", &s, why, sizeof why), 0);
	cr_assert_eq(s.blocks, 40);
	ws_layer_sel_free(&s);
	cr_assert_eq(ws_layer_sel_parse("7", &s, why, sizeof why), 0);
	cr_assert_eq(s.blocks, 1);
	cr_assert_str_eq(ws_layer_sel_format(&s, buf, sizeof buf), "7");
	ws_layer_sel_free(&s);

	static const char *const bad[] = {
		"", ",", "0,", ",0", "0,,1", "1-", "-1", "3-1", "a", "0-x", "1 ,2", " 1",
		"0-3;4", "99999999999", "1-2-3", "0x10", "+1",
		"0-2147483647,0-2147483647",  /* more blocks than a selection may run */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why[0] = '\0';
		cr_assert_eq(ws_layer_sel_parse(bad[i], &s, why, sizeof why), -1,
			     "accepted '%s'", bad[i]);
		cr_assert(why[0], "no reason for '%s'", bad[i]);
		cr_assert_null(s.ranges);
	}
}

Test(flops, dtype_names)
{
	cr_assert_eq(ws_flops_parse_dtype("bf16"), WS_DT_BF16);
	cr_assert_eq(ws_flops_parse_dtype("F32"), WS_DT_F32);
	cr_assert_eq(ws_flops_parse_dtype("q8_0"), WS_DT_Q8_0);
	cr_assert_eq(ws_flops_parse_dtype("f8_e4m3"), WS_DT_F8_E4M3);
	cr_assert_eq(ws_flops_parse_dtype("bfloat"), WS_DT_INVALID);
	cr_assert_eq(ws_flops_parse_dtype(""), WS_DT_INVALID);
}

/* ==== Llama-2-7B, full size ==== */

Test(flops, llama2_7b_selections, .timeout = 60)
{
	fixture x = {0};
	fixture_sparse(&x, "meta-llama__Llama-2-7b-hf.json");
	cr_assert_eq(x.f.num_layers, 32);
	cr_assert_eq(x.f.sliding_window, 0);

	ws_flops_result all = select_spec(&x, NULL);
	cr_assert_eq(all.a, 6607077376ull, "a = %llu", (unsigned long long)all.a);
	cr_assert_eq(all.b, 262144);
	cr_assert_eq(all.b_sliding, 0);
	cr_assert_eq(all.blocks, 32);
	cr_assert_eq(all.params, 6738415616ull);
	/* lm_head 32000 × 4096; no embedding lookup, no norm in a */
	cr_assert_eq(all.a_by_role[WS_ROLE_LM_HEAD], 131072000ull);
	cr_assert_eq(all.a_by_role[WS_ROLE_EMBED], 0);
	cr_assert_eq(all.a_by_role[WS_ROLE_ATTN_NORM], 0);
	cr_assert_eq(all.a_by_role[WS_ROLE_FFN_DOWN], 32ull * 4096 * 11008);
	/* K and V of 32 blocks × 4096 in the config's torch_dtype (float16;
	 * the fixture stores BF16, the config says what runs) */
	cr_assert_eq(all.kv_dtype, WS_DT_F16);
	cr_assert_eq(all.kv_bytes_per_token, 524288);
	cr_assert_eq(all.weight_bytes, 2 * 6738415616ull);
	cr_assert_eq(all.bytes_by_dtype[WS_DT_BF16], all.weight_bytes);

	/* the same selection written out equals the default */
	ws_flops_result same = select_spec(&x, "0-31");
	cr_assert_eq(same.a, all.a);
	cr_assert_eq(same.b, all.b);

	ws_flops_result skip = select_spec(&x, "0-23,27-31");
	cr_assert_eq(skip.a, 5999951872ull, "a = %llu", (unsigned long long)skip.a);
	cr_assert_eq(skip.b, 237568);
	cr_assert_eq(skip.blocks, 29);
	cr_assert_eq(skip.kv_bytes_per_token, 29 * 16384);
	/* three blocks' parameters and bytes fewer */
	uint64_t block = 4 * 4096ull * 4096 + 3 * 4096ull * 11008 + 2 * 4096;
	cr_assert_eq(skip.params, all.params - 3 * block);
	cr_assert_eq(skip.weight_bytes, all.weight_bytes - 3 * 2 * block);

	cr_assert_eq(select_spec(&x, "0-30").b, 253952);
	cr_assert_eq(select_spec(&x, "0-26").b, 221184);
	/* every third dropped: 22 blocks */
	ws_flops_result third = select_spec(&x, "0-1,3-4,6-7,9-10,12-13,15-16,18-19,21-22,24-25,27-28,30-31");
	cr_assert_eq(third.blocks, 22);
	cr_assert_eq(third.b, 180224);

	/* depth expansion: 8-15 runs twice and counts twice; stored once */
	ws_flops_result rep = select_spec(&x, "0-15,8-15,16-31");
	uint64_t per_block_a = 202375168ull;
	cr_assert_eq(rep.blocks, 40);
	cr_assert_eq(rep.a, all.a + 8 * per_block_a, "a = %llu", (unsigned long long)rep.a);
	cr_assert_eq(rep.b, 40 * 8192);
	cr_assert_eq(rep.kv_bytes_per_token, 40 * 16384);
	cr_assert_eq(rep.params, all.params);
	cr_assert_eq(rep.weight_bytes, all.weight_bytes);
	/* a single block repeated */
	ws_flops_result one = select_spec(&x, "5,5,5");
	cr_assert_eq(one.a, 3 * per_block_a + 131072000ull);

	/* evaluated at N = 4096: a·N + b·N², twice that in FLOPs */
	ws_flops_eval ev;
	cr_assert(ws_flops_eval_at(&x.f, &all, 4096, &ev));
	cr_assert_eq(ev.macs, 6607077376ull * 4096 + 262144ull * 4096 * 4096);
	cr_assert_eq(ev.flops, 2 * ev.macs);
	cr_assert_eq(ev.kv_cache_bytes, 524288ull * 4096);
	cr_assert_eq(ev.memory_bytes, all.weight_bytes + ev.kv_cache_bytes);
	cr_assert_not(ws_flops_eval_at(&x.f, &all, UINT64_MAX / 2, &ev));

	/* a block past the end is a usage error */
	ws_layer_sel sel;
	char why[128];
	ws_error err = {0};
	ws_flops_result r;
	cr_assert_eq(ws_layer_sel_parse("0-32", &sel, why, sizeof why), 0);
	cr_assert_eq(ws_flops_select(x.m, &x.f, &sel, WS_DT_INVALID, &r, &err), -1);
	cr_assert_eq(err.code, WS_EXIT_USAGE);
	cr_assert(ws_contains(err.message, "32"), "%s", err.message);
	ws_layer_sel_free(&sel);

	/* another cache type */
	cr_assert_eq(ws_flops_select(x.m, &x.f, NULL, WS_DT_F32, &r, &err), 0);
	cr_assert_eq(r.kv_bytes_per_token, 2 * 524288);
	cr_assert_eq(ws_flops_select(x.m, &x.f, NULL, WS_DT_Q8_0, &r, &err), 0);
	cr_assert_eq(r.kv_bytes_per_token, 64 * (4096 / 32) * 34);
	fixture_free(&x);
}

Test(flops, llama3_8b_kv_cache, .timeout = 60)
{
	fixture x = {0};
	fixture_sparse(&x, "meta-llama__Meta-Llama-3-8B.json");
	ws_flops_result r = select_spec(&x, NULL);
	cr_assert_eq(r.kv_dtype, WS_DT_BF16);
	/* 32 blocks × (K + V) × 8 KV heads × 128 × 2 bytes */
	cr_assert_eq(r.kv_bytes_per_token, 131072);
	/* 4096 × (1024 + 1024 + 2 × 4096) per block... b is per query head */
	cr_assert_eq(r.b, 32ull * 32 * (128 + 128));
	cr_assert_eq(r.a_by_role[WS_ROLE_ATTN_K], 32ull * 1024 * 4096);
	cr_assert_eq(r.a_by_role[WS_ROLE_LM_HEAD], 128256ull * 4096);
	fixture_free(&x);
}

/* ==== MoE and sliding windows ==== */

Test(flops, mixtral_counts_two_of_eight, .timeout = 60)
{
	fixture x = {0};
	fixture_memory(&x, "mistralai__Mixtral-8x7B-v0.1.json");
	cr_assert_eq(x.f.num_experts, 8);
	cr_assert_eq(x.f.experts_per_tok, 2);
	cr_assert_not(x.f.topk_unknown);
	ws_flops_result r = select_spec(&x, NULL);
	uint64_t expert = 3ull * 4096 * 14336;
	uint64_t attn = 2 * 4096ull * 4096 + 2 * 1024ull * 4096;
	uint64_t router = 8 * 4096;
	cr_assert_eq(r.a_by_role[WS_ROLE_MOE_GATE], 32 * 2 * 4096ull * 14336);
	cr_assert_eq(r.a_by_role[WS_ROLE_MOE_ROUTER], 32 * router);
	cr_assert_eq(r.a, 32 * (attn + router + 2 * expert) + 32000ull * 4096,
		     "a = %llu", (unsigned long long)r.a);
	cr_assert_eq(r.a, 12748587008ull);
	/* memory holds all eight */
	cr_assert_eq(r.params, 46702792704ull);
	cr_assert_eq(r.b, 262144);
	cr_assert_eq(r.kv_bytes_per_token, 131072);
	cr_assert_eq(x.f.sliding_window, 0);   /* "sliding_window": null */
	/* half the blocks: half the experts' MACs */
	ws_flops_result half = select_spec(&x, "0-15");
	cr_assert_eq(half.a_by_role[WS_ROLE_MOE_DOWN], r.a_by_role[WS_ROLE_MOE_DOWN] / 2);
	fixture_free(&x);
}

Test(flops, mistral_sliding_window_apart, .timeout = 60)
{
	fixture x = {0};
	fixture_memory(&x, "mistralai__Mistral-7B-v0.1.json");
	cr_assert_eq(x.f.sliding_window, 4096);
	ws_flops_result r = select_spec(&x, NULL);
	cr_assert_eq(r.b, 0);
	cr_assert_eq(r.b_sliding, 262144);
	cr_assert_eq(r.kv_bytes_per_token_sliding, r.kv_bytes_per_token);
	ws_flops_eval ev;
	/* past the window each token attends to 4096 others */
	cr_assert(ws_flops_eval_at(&x.f, &r, 8192, &ev));
	cr_assert_eq(ev.macs, r.a * 8192 + 262144ull * 8192 * 4096);
	cr_assert_eq(ev.kv_cache_bytes, r.kv_bytes_per_token * 4096);
	cr_assert(ws_flops_eval_at(&x.f, &r, 100, &ev));
	cr_assert_eq(ev.macs, r.a * 100 + 262144ull * 100 * 100);
	fixture_free(&x);
}

Test(flops, qwen2_window_off_and_tied_head, .timeout = 60)
{
	/* Qwen2 names a sliding_window but use_sliding_window is false */
	fixture x = {0};
	fixture_sparse(&x, "Qwen__Qwen2-0.5B.json");
	cr_assert_eq(x.f.sliding_window, 0);
	cr_assert(x.f.head_from_embedding);
	ws_flops_result r = select_spec(&x, NULL);
	cr_assert_eq(r.b_sliding, 0);
	cr_assert_eq(r.b, 24ull * 14 * (64 + 64));
	cr_assert_eq(r.a_by_role[WS_ROLE_LM_HEAD], 151936ull * 896);
	cr_assert_eq(r.a_by_role[WS_ROLE_EMBED], 0);
	/* 2 KV heads × 64, K and V, 24 blocks, bfloat16 */
	cr_assert_eq(r.kv_bytes_per_token, 24 * 2 * 128 * 2);
	fixture_free(&x);
}

Test(flops, layer_types_pick_sliding_blocks)
{
	/* a config's layer_types list decides, whatever the architecture */
	char *dir = ws_tmpdir();
	static const char cfg[] =
		"{\"model_type\":\"mistral\",\"vocab_size\":64,\"hidden_size\":32,"
		"\"intermediate_size\":88,\"num_hidden_layers\":3,\"num_attention_heads\":4,"
		"\"num_key_value_heads\":2,\"head_dim\":8,\"sliding_window\":16,"
		"\"torch_dtype\":\"float32\",\"layer_types\":[\"sliding_attention\","
		"\"full_attention\",\"sliding_attention\"]}";
	char *path = ws_write_file(dir, "config.json", cfg, sizeof cfg - 1);
	fixture x = {0};
	fixture_memory_path(&x, path);
	cr_assert_eq(x.f.sliding_window, 16);
	cr_assert(x.f.blocks[0].sliding);
	cr_assert_not(x.f.blocks[1].sliding);
	cr_assert(x.f.blocks[2].sliding);
	ws_flops_result r = select_spec(&x, NULL);
	cr_assert_eq(r.b, 64);
	cr_assert_eq(r.b_sliding, 128);
	cr_assert_eq(r.kv_dtype, WS_DT_F32);
	cr_assert_eq(r.kv_bytes_per_token, 3 * 32 * 4);
	cr_assert_eq(r.kv_bytes_per_token_sliding, 2 * 32 * 4);
	ws_flops_eval ev;
	cr_assert(ws_flops_eval_at(&x.f, &r, 100, &ev));
	cr_assert_eq(ev.macs, r.a * 100 + 64 * 100 * 100 + 128 * 100 * 16);
	cr_assert_eq(ev.kv_cache_bytes, 128 * 100 + 256 * 16);
	/* the selection keeps only the global block: nothing slides */
	ws_flops_result g = select_spec(&x, "1");
	cr_assert_eq(g.b, 64);
	cr_assert_eq(g.b_sliding, 0);
	fixture_free(&x);
	free(path);
	ws_rmtree(dir);
	free(dir);
}

Test(flops, tiny_moe_gguf_top_k_and_tied_head)
{
	char *path = ws_shared_path("gguf/tiny-moe-gguf-py.gguf");
	if (!path)
		cr_skip_test("../shared absent");
	fixture x = {0};
	fixture_open(&x, path);
	free(path);
	cr_assert_eq(x.f.num_experts, 4);
	cr_assert_eq(x.f.experts_per_tok, 2);
	cr_assert(x.f.head_from_embedding);
	ws_flops_result r = select_spec(&x, NULL);
	uint64_t stored[WS_ROLE_COUNT] = {0};
	for (uint64_t i = 0; i < x.m->n_tensors; i++)
		stored[x.m->tensors[i].role] += x.m->tensors[i].params;
	cr_assert_gt(stored[WS_ROLE_MOE_GATE], 0);
	cr_assert_eq(r.a_by_role[WS_ROLE_MOE_GATE], stored[WS_ROLE_MOE_GATE] / 2);
	cr_assert_eq(r.a_by_role[WS_ROLE_MOE_DOWN], stored[WS_ROLE_MOE_DOWN] / 2);
	cr_assert_eq(r.a_by_role[WS_ROLE_LM_HEAD], stored[WS_ROLE_EMBED]);
	cr_assert_eq(r.a_by_role[WS_ROLE_ATTN_Q], stored[WS_ROLE_ATTN_Q]);
	fixture_free(&x);
}

/* ==== the CLI on testdata/tiny-llama ==== */

static cJSON *
cli_json(ws_run *r, const char *a1, const char *a2, const char *a3, const char *a4,
	 const char *a5, const char *a6)
{
	char *tiny = ws_testdata_path("tiny-llama");
	*r = ws_run_cli("flops", tiny, "--json", a1, a2, a3, a4, a5, a6, NULL);
	free(tiny);
	cr_assert_eq(r->status, 0, "exit %d: %s", r->status, r->err);
	cJSON *o = cJSON_Parse(r->out);
	cr_assert(o, "not JSON: %s", r->out);
	return o;
}

static uint64_t
jnum(const cJSON *o, const char *k1, const char *k2)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k1);
	if (k2)
		v = cJSON_GetObjectItemCaseSensitive(v, k2);
	cr_assert(cJSON_IsNumber(v), "%s.%s missing", k1, k2 ? k2 : "");
	return (uint64_t)v->valuedouble;
}

Test(flops, cli_tiny_json)
{
	/* tiny-llama: hidden 32, 2 blocks, 4 heads of 8, 2 KV heads, MLP 88,
	 * vocab 64, untied, BF16.  Per block: q 32·32 + k 16·32 + v 16·32 +
	 * o 32·32 = 3,072 and gate/up/down 3·88·32 = 8,448, so 11,520;
	 * a = 2 · 11,520 + lm_head 64·32 = 25,088.  b = 2 · 4 · (8 + 8) = 128.
	 * KV: 2 blocks · (16 + 16) · 2 bytes = 128 per token. */
	ws_run r;
	cJSON *o = cli_json(&r, "--seq", "10", NULL, NULL, NULL, NULL);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "command")->valuestring, "flops");
	const cJSON *sels = cJSON_GetObjectItem(o, "selections");
	cr_assert_eq(cJSON_GetArraySize(sels), 1);
	const cJSON *s = cJSON_GetArrayItem(sels, 0);
	cr_assert_str_eq(cJSON_GetObjectItem(s, "layers")->valuestring, "0-1");
	cr_assert_eq(jnum(s, "macs", "a"), 25088);
	cr_assert_eq(jnum(s, "macs", "b"), 128);
	cr_assert_eq(jnum(s, "flops", "a"), 50176);
	cr_assert_eq(jnum(s, "flops", "b"), 256);
	cr_assert_eq(jnum(s, "params", NULL), 27296);
	cr_assert_eq(jnum(s, "kv_cache_bytes_per_token", NULL), 128);
	cr_assert_str_eq(cJSON_GetObjectItem(s, "kv_dtype")->valuestring, "BF16");
	cr_assert_eq(jnum(s, "weights", "bytes"), 54592);
	/* N = 10: 25,088·10 + 128·100 = 263,680 MACs; memory = weights + 1,280 */
	cr_assert_eq(jnum(s, "at_seq", "seq"), 10);
	cr_assert_eq(jnum(s, "at_seq", "macs"), 263680);
	cr_assert_eq(jnum(s, "at_seq", "flops"), 527360);
	cr_assert_eq(jnum(s, "at_seq", "kv_cache_bytes"), 1280);
	cr_assert_eq(jnum(s, "at_seq", "memory_bytes"), 55872);
	const cJSON *by_role = cJSON_GetObjectItem(cJSON_GetObjectItem(s, "macs"), "a_by_role");
	cr_assert_eq(jnum(by_role, "lm_head", NULL), 2048);
	cr_assert_null(cJSON_GetObjectItem(by_role, "embed"));
	cJSON_Delete(o);
	ws_run_free(&r);
}

Test(flops, cli_tiny_several_selections)
{
	ws_run r;
	cJSON *o = cli_json(&r, "--layers", "0", "--layers=1,0-1", "--kv-dtype", "f32", NULL);
	const cJSON *sels = cJSON_GetObjectItem(o, "selections");
	cr_assert_eq(cJSON_GetArraySize(sels), 2);
	const cJSON *s0 = cJSON_GetArrayItem(sels, 0), *s1 = cJSON_GetArrayItem(sels, 1);
	cr_assert_str_eq(cJSON_GetObjectItem(s0, "layers")->valuestring, "0");
	cr_assert_eq(jnum(s0, "macs", "a"), 11520 + 2048);
	cr_assert_eq(jnum(s0, "macs", "b"), 64);
	cr_assert_eq(jnum(s0, "kv_cache_bytes_per_token", NULL), 128);   /* F32 */
	/* one block fewer stored: 11,584 parameters (norms included) */
	cr_assert_eq(jnum(s0, "params", NULL), 27296 - 11584);
	cr_assert_str_eq(cJSON_GetObjectItem(s1, "layers")->valuestring, "1,0-1");
	cr_assert_eq(jnum(s1, "blocks", NULL), 3);
	cr_assert_eq(jnum(s1, "macs", "a"), 3 * 11520 + 2048);
	cr_assert_eq(jnum(s1, "macs", "b"), 192);
	cr_assert_eq(jnum(s1, "kv_cache_bytes_per_token", NULL), 384);
	cr_assert_eq(jnum(s1, "params", NULL), 27296);
	cr_assert_null(cJSON_GetObjectItem(s1, "at_seq"));
	cJSON_Delete(o);
	ws_run_free(&r);
}

Test(flops, cli_tiny_text)
{
	char *tiny = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("flops", tiny, "--seq", "10", "--layers", "0-1", "--layers", "0", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert(ws_contains(r.out, "25,088"), "%s", r.out);
	cr_assert(ws_contains(r.out, "527,360"), "%s", r.out);
	cr_assert(ws_contains(r.out, "lm_head"), "%s", r.out);
	cr_assert(ws_contains(r.out, "13,568"), "%s", r.out);
	ws_run_free(&r);
	free(tiny);
}

Test(flops, cli_usage_errors)
{
	char *tiny = ws_testdata_path("tiny-llama");
	static const char *const bad[][2] = {
		{"--layers", "0-2"},       /* out of range: 2 blocks */
		{"--layers", "2"},
		{"--layers", "1-0"},
		{"--layers", "x"},
		{"--layers", ""},
		{"--seq", "-1"},
		{"--seq", "ten"},
		{"--kv-dtype", "int3"},
		{"--bogus", "1"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ws_run r = ws_run_cli("flops", tiny, bad[i][0], bad[i][1], NULL);
		cr_assert_eq(r.status, 2, "%s %s: exit %d", bad[i][0], bad[i][1], r.status);
		cr_assert(r.err[0], "no message for %s %s", bad[i][0], bad[i][1]);
		ws_run_free(&r);
	}
	ws_run r = ws_run_cli("flops", tiny, "--layers", NULL);
	cr_assert_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("flops", NULL);
	cr_assert_eq(r.status, 2);
	ws_run_free(&r);
	/* a missing PATH is unreadable input */
	r = ws_run_cli("flops", "/nonexistent/model.safetensors", NULL);
	cr_assert_eq(r.status, 3);
	ws_run_free(&r);
	free(tiny);
}
