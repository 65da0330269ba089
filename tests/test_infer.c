/*
 * test_infer.c - the architecture inferred from the tensors when there is
 * no config.json: checkpoints from tools/mkfixture and tools/mkmodel with
 * their config.json removed (the published totals, exactly), hand-made
 * MoE and per-head-norm checkpoints, planted inconsistencies still
 * flagged, and names of no known family reported as unsupported.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* ==== helpers ==== */

/* $WS_MKMODEL DIR CONFIG [--plant DEFECT]; asserts exit 0. */
static void
mkmodel(const char *dir, const char *config, const char *defect)
{
	char *argv[8];
	int n = 0;
	argv[n++] = getenv("WS_MKMODEL");
	cr_assert(argv[0], "WS_MKMODEL is not set");
	argv[n++] = (char *)dir;
	argv[n++] = (char *)config;
	if (defect) {
		argv[n++] = "--plant";
		argv[n++] = (char *)defect;
	}
	argv[n] = NULL;
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

/* A config under ../shared/realdata/configs, or NULL (skip). */
static char *
real_config(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "configs/%s.json", name);
	char *p = ws_shared_path(rel);
	if (p && access(p, R_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void
drop_config(const char *dir)
{
	char *c = ws_join(dir, "config.json");
	cr_assert_eq(unlink(c), 0, "no %s to remove", c);
	free(c);
}

/* weightscan CMD --json PATH: status and the parsed object. */
typedef struct out {
	int status;
	cJSON *json;
} out;

static out
run_json(const char *cmd, const char *path)
{
	ws_run r = ws_run_cli(cmd, "--json", path, NULL);
	out o = {r.status, cJSON_Parse(r.out)};
	cr_assert(o.json, "%s %s: no JSON (status %d): %s", cmd, path, r.status, r.err);
	ws_run_free(&r);
	return o;
}

static const cJSON *
at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

static uint64_t
u64_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = at(o, a, b);
	cr_assert(cJSON_IsNumber(x), "no number at %s.%s", a, b ? b : "");
	return (uint64_t)x->valuedouble;   /* exact below 2^53 */
}

static const char *
str_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = at(o, a, b);
	return cJSON_IsString(x) ? x->valuestring : "";
}

static bool
true_at(const cJSON *o, const char *a, const char *b)
{
	return cJSON_IsTrue(at(o, a, b));
}

/* Findings with this code (any when NULL) and severity (any when NULL),
 * at this layer (any when < 0) naming this tensor (any when NULL). */
static int
count(const cJSON *o, const char *code, const char *sev, int layer, const char *tensor)
{
	int n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, at(o, "findings", NULL)) {
		if (code && strcmp(str_at(f, "code", NULL), code))
			continue;
		if (sev && strcmp(str_at(f, "severity", NULL), sev))
			continue;
		if (layer >= 0 && (!cJSON_IsNumber(at(f, "layer", NULL)) ||
				   at(f, "layer", NULL)->valueint != layer))
			continue;
		if (tensor && strcmp(str_at(f, "tensor", NULL), tensor))
			continue;
		n++;
	}
	return n;
}

static void
dump_findings(const char *what, const cJSON *o)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, at(o, "findings", NULL))
		cr_log_warn("%s: %s %s %s", what, str_at(f, "severity", NULL),
			    str_at(f, "code", NULL), str_at(f, "message", NULL));
}

/* ==== hand-made safetensors ==== */

typedef struct tensor {
	char name[96];
	uint64_t shape[3];
	int ndim;
} tensor;

typedef struct tlist {
	tensor v[256];
	int n;
} tlist;

static void add(tlist *l, uint64_t d0, uint64_t d1, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A 1-D (d1 == 0) or 2-D tensor named by fmt. */
static void
add(tlist *l, uint64_t d0, uint64_t d1, const char *fmt, ...)
{
	cr_assert_lt(l->n, 256);
	tensor *t = &l->v[l->n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof t->name, fmt, ap);
	va_end(ap);
	t->shape[0] = d0;
	t->shape[1] = d1;
	t->ndim = d1 ? 2 : 1;
}

/* dir/model.safetensors holding l's tensors as zero BF16 data; returns
 * the total element count. */
static uint64_t
write_st(const char *dir, const tlist *l)
{
	char *hdr = NULL;
	size_t hl = 0;
	FILE *h = open_memstream(&hdr, &hl);
	uint64_t off = 0, total = 0;
	fputc('{', h);
	for (int i = 0; i < l->n; i++) {
		const tensor *t = &l->v[i];
		uint64_t e = t->shape[0] * (t->ndim == 2 ? t->shape[1] : 1);
		fprintf(h, "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":[%" PRIu64, i ? "," : "",
			t->name, t->shape[0]);
		if (t->ndim == 2)
			fprintf(h, ",%" PRIu64, t->shape[1]);
		fprintf(h, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", off, off + 2 * e);
		off += 2 * e;
		total += e;
	}
	fputc('}', h);
	fclose(h);
	size_t n = 8 + hl + off;
	uint8_t *buf = calloc(1, n);
	cr_assert(buf);
	for (int i = 0; i < 8; i++)
		buf[i] = (uint8_t)((uint64_t)hl >> (8 * i));
	memcpy(buf + 8, hdr, hl);
	free(ws_write_file(dir, "model.safetensors", buf, n));
	free(buf);
	free(hdr);
	return total;
}

/* A small Qwen2-MoE-like model: q/k/v biases, 4 routed experts of width
 * 8, one shared expert of width 12 with its gate, untied head.
 * odd_k_layer >= 0 gives that block a k_proj of q's size. */
static tlist
qwen2_moe_like(int layers, int odd_k_layer)
{
	tlist l = {.n = 0};
	const uint64_t d = 16, v = 32, q = 16, kv = 8, e = 4, fe = 8, fs = 12;
	add(&l, v, d, "model.embed_tokens.weight");
	for (int i = 0; i < layers; i++) {
		uint64_t k = i == odd_k_layer ? q : kv;
		add(&l, d, 0, "model.layers.%d.input_layernorm.weight", i);
		add(&l, q, d, "model.layers.%d.self_attn.q_proj.weight", i);
		add(&l, q, 0, "model.layers.%d.self_attn.q_proj.bias", i);
		add(&l, k, d, "model.layers.%d.self_attn.k_proj.weight", i);
		add(&l, k, 0, "model.layers.%d.self_attn.k_proj.bias", i);
		add(&l, kv, d, "model.layers.%d.self_attn.v_proj.weight", i);
		add(&l, kv, 0, "model.layers.%d.self_attn.v_proj.bias", i);
		add(&l, d, q, "model.layers.%d.self_attn.o_proj.weight", i);
		add(&l, d, 0, "model.layers.%d.post_attention_layernorm.weight", i);
		add(&l, e, d, "model.layers.%d.mlp.gate.weight", i);
		for (uint64_t x = 0; x < e; x++) {
			add(&l, fe, d, "model.layers.%d.mlp.experts.%d.gate_proj.weight", i, (int)x);
			add(&l, fe, d, "model.layers.%d.mlp.experts.%d.up_proj.weight", i, (int)x);
			add(&l, d, fe, "model.layers.%d.mlp.experts.%d.down_proj.weight", i, (int)x);
		}
		add(&l, fs, d, "model.layers.%d.mlp.shared_expert.gate_proj.weight", i);
		add(&l, fs, d, "model.layers.%d.mlp.shared_expert.up_proj.weight", i);
		add(&l, d, fs, "model.layers.%d.mlp.shared_expert.down_proj.weight", i);
		add(&l, 1, d, "model.layers.%d.mlp.shared_expert_gate.weight", i);
	}
	add(&l, d, 0, "model.norm.weight");
	add(&l, v, d, "lm_head.weight");
	return l;
}

/* ==== mkfixture tiny without its config ==== */

Test(infer, tiny_llama_exact)
{
	static const struct {
		const char *opt;
		uint64_t total;
		bool tied;
	} cases[] = {{NULL, 27296, false}, {"--tied", 25248, true}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *dir = ws_tmpdir();
		ws_mkfixture("tiny", dir, cases[i].opt, NULL);
		drop_config(dir);
		out o = run_json("inspect", dir);
		const cJSON *a = at(o.json, "arch", NULL);
		cr_expect_eq(o.status, 0);
		cr_expect_str_eq(str_at(a, "source", NULL), "inferred");
		cr_expect_str_eq(str_at(a, "architecture", NULL), "llama");
		cr_expect_eq(u64_at(a, "hidden_size", NULL), 32);
		cr_expect_eq(u64_at(a, "num_layers", NULL), 2);
		cr_expect_eq(u64_at(a, "vocab_size", NULL), 64);
		cr_expect_eq(u64_at(a, "intermediate_size", NULL), 88);
		/* q is 32 wide and k/v 16: any split, counted exactly */
		cr_expect_eq(u64_at(a, "num_heads", NULL) * u64_at(a, "head_dim", NULL), 32);
		cr_expect_eq(u64_at(a, "num_kv_heads", NULL) * u64_at(a, "head_dim", NULL), 16);
		cr_expect_eq(true_at(a, "tied_embeddings", NULL), cases[i].tied);
		cr_expect_str_eq(str_at(a, "norm", NULL), "rmsnorm");
		cr_expect_eq(u64_at(o.json, "formula", "total"), cases[i].total);
		cr_expect_eq(u64_at(o.json, "params", "total"), cases[i].total);
		cr_expect_eq(count(o.json, NULL, NULL, -1, NULL), 0);
		dump_findings("tiny", o.json);
		cJSON_Delete(o.json);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(infer, text_names_the_source)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	drop_config(dir);
	ws_run r = ws_run_cli(dir, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "llama (inferred)"), "%s", r.out);
	cr_expect(ws_contains(r.out, "formula       27,296"), "%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

/* ==== real configs, config.json removed ==== */

static const struct published {
	const char *config;
	const char *arch;
	uint64_t total;
	uint64_t q_width, kv_width;   /* heads × head_dim, kv heads × head_dim */
	bool tied, qkv_bias;
	uint64_t experts;
} published[] = {
	{"meta-llama__Llama-2-7b-hf", "llama", 6738415616ull, 4096, 4096, false, false, 0},
	{"meta-llama__Meta-Llama-3-8B", "llama", 8030261248ull, 4096, 1024, false, false, 0},
	{"Qwen__Qwen2-0.5B", "llama", 494032768ull, 896, 128, true, true, 0},
	{"mistralai__Mixtral-8x7B-v0.1", "mixtral", 46702792704ull, 4096, 1024, false, false, 8},
	{"microsoft__Phi-3-mini-4k-instruct", "phi3", 3821079552ull, 3072, 3072, false, false, 0},
	{"openai-community__gpt2", "gpt2", 124439808ull, 768, 768, true, true, 0},
};

Test(infer, published_totals_without_config)
{
	char *probe = real_config(published[0].config);
	if (!probe)
		cr_skip_test("../shared/realdata/configs is absent");
	free(probe);
	for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
		const struct published *p = &published[i];
		char *cfg = real_config(p->config);
		if (!cfg)
			continue;
		char *tmp = ws_tmpdir(), *dir = ws_join(tmp, "m");
		mkmodel(dir, cfg, NULL);
		drop_config(dir);
		out o = run_json("inspect", dir);
		const cJSON *a = at(o.json, "arch", NULL);
		cr_expect_eq(o.status, 0, "%s: exit %d", p->config, o.status);
		cr_expect_str_eq(str_at(a, "source", NULL), "inferred", "%s", p->config);
		cr_expect_str_eq(str_at(a, "architecture", NULL), p->arch, "%s", p->config);
		cr_expect_eq(u64_at(o.json, "formula", "total"), p->total, "%s: formula %" PRIu64,
			     p->config, u64_at(o.json, "formula", "total"));
		cr_expect_eq(u64_at(o.json, "params", "total"), p->total, "%s", p->config);
		uint64_t hd = u64_at(a, "head_dim", NULL);
		cr_expect_eq(u64_at(a, "num_heads", NULL) * hd, p->q_width, "%s", p->config);
		cr_expect_eq(u64_at(a, "num_kv_heads", NULL) * hd, p->kv_width, "%s", p->config);
		cr_expect_eq(true_at(a, "tied_embeddings", NULL), p->tied, "%s", p->config);
		cr_expect_eq(true_at(a, "qkv_bias", NULL), p->qkv_bias, "%s", p->config);
		if (p->experts) {
			cr_expect_eq(u64_at(a, "num_experts", NULL), p->experts);
			/* top-k is not in the shapes: every expert is active */
			cr_expect_eq(u64_at(a, "experts_per_tok", NULL), p->experts);
			cr_expect_null(at(o.json, "formula", "active"));
		}
		cr_expect_eq(count(o.json, NULL, "error", -1, NULL), 0, "%s: error findings", p->config);
		cr_expect_eq(count(o.json, NULL, NULL, -1, NULL), 0, "%s: findings", p->config);
		dump_findings(p->config, o.json);
		cJSON_Delete(o.json);

		/* the gate passes too */
		o = run_json("check", dir);
		cr_expect_eq(o.status, 0, "%s: check exit %d", p->config, o.status);
		cJSON_Delete(o.json);
		ws_rmtree(tmp);
		free(tmp);
		free(dir);
		free(cfg);
	}
}

Test(infer, planted_defects_still_flagged)
{
	static const struct {
		const char *config, *defect, *code, *tensor;
		int layer;
	} cases[] = {
		/* the MHA-size k_proj is the odd one: the GQA size is read from
		 * the other 31 blocks */
		{"meta-llama__Meta-Llama-3-8B", "mha-k", "shape-mismatch",
		 "model.layers.3.self_attn.k_proj.weight", 3},
		{"meta-llama__Llama-2-7b-hf", "missing-block", "layer-gap", NULL, 5},
		{"mistralai__Mixtral-8x7B-v0.1", "missing-expert", "missing-tensor",
		 "model.layers.1.block_sparse_moe.experts.2.w1.weight", 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *cfg = real_config(cases[i].config);
		if (!cfg)
			cr_skip_test("../shared/realdata/configs is absent");
		char *tmp = ws_tmpdir(), *dir = ws_join(tmp, "m");
		mkmodel(dir, cfg, cases[i].defect);
		drop_config(dir);
		out o = run_json("check", dir);
		cr_expect_eq(o.status, 1, "%s: exit %d", cases[i].defect, o.status);
		cr_expect_str_eq(str_at(o.json, "arch", "source"), "inferred");
		cr_expect_geq(count(o.json, cases[i].code, "error", cases[i].layer, cases[i].tensor), 1,
			      "%s: no %s at layer %d", cases[i].defect, cases[i].code, cases[i].layer);
		if (!strcmp(cases[i].defect, "mha-k")) {
			cr_expect_eq(u64_at(o.json, "arch", "num_kv_heads") * u64_at(o.json, "arch", "head_dim"), 1024);
			cr_expect_eq(count(o.json, "layer-inconsistent", "warning", 3, NULL), 1);
			cr_expect_eq(count(o.json, "shape-mismatch", NULL, -1, NULL), 1);
		}
		cJSON_Delete(o.json);
		ws_rmtree(tmp);
		free(tmp);
		free(dir);
		free(cfg);
	}
}

Test(infer, mla_is_unsupported_with_a_reason)
{
	char *cfg = real_config("deepseek-ai__DeepSeek-V2-Lite");
	if (!cfg)
		cr_skip_test("../shared/realdata/configs is absent");
	char *tmp = ws_tmpdir(), *dir = ws_join(tmp, "m");
	mkmodel(dir, cfg, NULL);
	drop_config(dir);
	out o = run_json("inspect", dir);
	cr_expect_eq(o.status, 0);
	cr_expect_str_eq(str_at(o.json, "arch", "source"), "inferred");
	cr_expect(cJSON_IsFalse(at(o.json, "arch", "known")));
	cr_expect(ws_contains(str_at(o.json, "arch", "unsupported"), "latent attention"));
	cr_expect_not(cJSON_IsObject(at(o.json, "formula", NULL)));
	cr_expect_eq(count(o.json, "unsupported-architecture", "warning", -1, NULL), 1);
	cJSON_Delete(o.json);
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
	free(cfg);
}

/* ==== hand-made checkpoints ==== */

Test(infer, qwen2_moe_shared_expert)
{
	char *dir = ws_tmpdir();
	tlist l = qwen2_moe_like(3, -1);
	uint64_t total = write_st(dir, &l);
	out o = run_json("inspect", dir);
	const cJSON *a = at(o.json, "arch", NULL);
	cr_expect_str_eq(str_at(a, "source", NULL), "inferred");
	cr_expect_str_eq(str_at(a, "architecture", NULL), "qwen2_moe");
	cr_expect_eq(u64_at(a, "num_layers", NULL), 3);
	cr_expect_eq(u64_at(a, "num_experts", NULL), 4);
	cr_expect_eq(u64_at(a, "moe_intermediate_size", NULL), 8);
	cr_expect_eq(u64_at(a, "shared_experts", NULL), 1);
	cr_expect_eq(u64_at(a, "shared_intermediate_size", NULL), 12);
	cr_expect(true_at(a, "shared_expert_gate", NULL));
	cr_expect(true_at(a, "qkv_bias", NULL));
	cr_expect_not(true_at(a, "o_bias", NULL));
	cr_expect_not(true_at(a, "tied_embeddings", NULL));
	cr_expect_eq(total, 10112);
	cr_expect_eq(u64_at(o.json, "formula", "total"), total);
	cr_expect_eq(u64_at(o.json, "params", "total"), total);
	cr_expect_eq(count(o.json, NULL, NULL, -1, NULL), 0);
	dump_findings("qwen2_moe", o.json);
	cJSON_Delete(o.json);
	ws_rmtree(dir);
	free(dir);
}

Test(infer, odd_block_flagged_in_a_small_model)
{
	char *dir = ws_tmpdir();
	tlist l = qwen2_moe_like(3, 1);
	write_st(dir, &l);
	out o = run_json("check", dir);
	cr_expect_eq(o.status, 1);
	cr_expect_eq(u64_at(o.json, "arch", "num_kv_heads") * u64_at(o.json, "arch", "head_dim"), 8);
	cr_expect_eq(count(o.json, "shape-mismatch", "error", 1,
			   "model.layers.1.self_attn.k_proj.weight"), 1);
	cr_expect_eq(count(o.json, "layer-inconsistent", "warning", 1, NULL), 1);
	cr_expect_geq(count(o.json, "count-mismatch", "error", -1, NULL), 1);
	cJSON_Delete(o.json);
	ws_rmtree(dir);
	free(dir);
}

/* A per-head q/k norm gives the head split exactly. */
Test(infer, per_head_norm_sets_the_split)
{
	char *dir = ws_tmpdir();
	tlist l = {.n = 0};
	const uint64_t d = 32, v = 40, hd = 4, h = 8, hkv = 2, f = 48;
	add(&l, v, d, "model.embed_tokens.weight");
	for (int i = 0; i < 2; i++) {
		add(&l, d, 0, "model.layers.%d.input_layernorm.weight", i);
		add(&l, h * hd, d, "model.layers.%d.self_attn.q_proj.weight", i);
		add(&l, hkv * hd, d, "model.layers.%d.self_attn.k_proj.weight", i);
		add(&l, hkv * hd, d, "model.layers.%d.self_attn.v_proj.weight", i);
		add(&l, d, h * hd, "model.layers.%d.self_attn.o_proj.weight", i);
		add(&l, hd, 0, "model.layers.%d.self_attn.q_norm.weight", i);
		add(&l, hd, 0, "model.layers.%d.self_attn.k_norm.weight", i);
		add(&l, d, 0, "model.layers.%d.post_attention_layernorm.weight", i);
		add(&l, f, d, "model.layers.%d.mlp.gate_proj.weight", i);
		add(&l, f, d, "model.layers.%d.mlp.up_proj.weight", i);
		add(&l, d, f, "model.layers.%d.mlp.down_proj.weight", i);
	}
	add(&l, d, 0, "model.norm.weight");
	uint64_t total = write_st(dir, &l);
	out o = run_json("inspect", dir);
	const cJSON *a = at(o.json, "arch", NULL);
	cr_expect_str_eq(str_at(a, "architecture", NULL), "qwen3");
	cr_expect_eq(u64_at(a, "head_dim", NULL), hd);
	cr_expect_eq(u64_at(a, "num_heads", NULL), h);
	cr_expect_eq(u64_at(a, "num_kv_heads", NULL), hkv);
	cr_expect(true_at(a, "qk_norm_per_head", NULL));
	cr_expect(true_at(a, "tied_embeddings", NULL));
	cr_expect_eq(u64_at(o.json, "formula", "total"), total);
	cr_expect_eq(count(o.json, NULL, NULL, -1, NULL), 0);
	dump_findings("qwen3", o.json);
	cJSON_Delete(o.json);
	ws_rmtree(dir);
	free(dir);
}

Test(infer, unknown_names_are_unsupported)
{
	char *dir = ws_tmpdir();
	tlist l = {.n = 0};
	add(&l, 4, 4, "encoder.block.0.mystery.weight");
	add(&l, 4, 0, "encoder.block.0.mystery.bias");
	write_st(dir, &l);
	out o = run_json("inspect", dir);
	cr_expect_eq(o.status, 0);
	cr_expect_str_eq(str_at(o.json, "arch", "source"), "inferred");
	cr_expect(cJSON_IsFalse(at(o.json, "arch", "known")));
	cr_expect(ws_contains(str_at(o.json, "arch", "unsupported"), "no config.json"));
	cr_expect_not(cJSON_IsObject(at(o.json, "formula", NULL)));
	cr_expect_eq(count(o.json, "unsupported-architecture", "warning", -1, NULL), 1);
	cJSON_Delete(o.json);
	ws_rmtree(dir);
	free(dir);
}

/* Hostile shapes: a block index past WS_ARCH_MAX_LAYERS, an embedding of zero width, no
 * block at all: unsupported, never a crash or a huge allocation. */
Test(infer, hostile_shapes_are_unsupported)
{
	static const struct {
		uint64_t e0, e1;
		const char *q, *why;
	} cases[] = {
		/* a 7-digit block number is no block index to the role table */
		{8, 4, "model.layers.2000000.self_attn.q_proj.weight", "no numbered blocks"},
		{0, 4, "model.layers.0.self_attn.q_proj.weight", "zero dimension"},
		{8, 4, "model.self_attn.q_proj.weight", "no numbered blocks"},
		/* attention only: no MLP width to count with */
		{8, 4, "model.layers.0.self_attn.q_proj.weight", "consistent architecture"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *dir = ws_tmpdir();
		tlist l = {.n = 0};
		add(&l, cases[i].e0, cases[i].e1, "model.embed_tokens.weight");
		add(&l, 4, 4, "%s", cases[i].q);
		write_st(dir, &l);
		out o = run_json("check", dir);
		cr_expect_lt(o.status, 2, "case %zu: exit %d", i, o.status);
		cr_expect_str_eq(str_at(o.json, "arch", "source"), "inferred");
		cr_expect(cJSON_IsFalse(at(o.json, "arch", "known")), "case %zu", i);
		cr_expect(ws_contains(str_at(o.json, "arch", "unsupported"), cases[i].why),
			  "case %zu: %s", i, str_at(o.json, "arch", "unsupported"));
		cJSON_Delete(o.json);
		ws_rmtree(dir);
		free(dir);
	}
}
