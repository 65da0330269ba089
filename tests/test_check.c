/*
 * test_check.c - `weightscan check` on full-size sparse checkpoints made by
 * tools/mkmodel from real configs: the published totals in safetensors and
 * GGUF layouts, DeepSeek-V3 at its real tensor count, the MoE layouts
 * (Qwen2/Qwen3 MoE, Llama 4, gpt-oss, PhiMoE, DeepSeek GGUF with kv_b or
 * k_b/v_b) exactly, planted defects named with code, layer and tensor
 * (missing experts, wrong expert counts in config and GGUF metadata), and
 * the gate's options.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

/* ==== helpers ==== */

/* $WS_MKMODEL DIR CONFIG args...; asserts exit 0. */
static void mkmodel(const char *dir, const char *config, ...) __attribute__((sentinel));

static void
mkmodel(const char *dir, const char *config, ...)
{
	char *argv[16];
	int n = 0;
	argv[n++] = getenv("WS_MKMODEL");
	cr_assert(argv[0], "WS_MKMODEL is not set");
	argv[n++] = (char *)dir;
	argv[n++] = (char *)config;
	va_list ap;
	va_start(ap, config);
	for (char *a; n < 15 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

/* A config under ../shared/realdata/configs, or NULL (the test skips). */
static char *
real_config(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "configs/%s.json", name);
	char *p = ws_shared_path(rel);
	if (p) {
		FILE *f = fopen(p, "rb");
		if (!f) {
			free(p);
			return NULL;
		}
		fclose(f);
	}
	return p;
}

typedef struct checked {
	int status;
	cJSON *json;      /* the check object (owned) */
	double seconds;
	char *err;
} checked;

static checked
run_check(const char *path, const char *a1, const char *a2, const char *a3, const char *a4)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ws_run r = ws_run_cli("check", "--json", path, a1, a2, a3, a4, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	checked c = {r.status, cJSON_Parse(r.out),
		     (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		     strdup(r.err ? r.err : "")};
	cr_assert(c.json, "check %s: no JSON (status %d): %s", path, r.status, r.err);
	ws_run_free(&r);
	return c;
}

static void checked_free(checked *c);

/* The best of three checks' wall time: the least disturbed by load. */
static double
best_check_seconds(const char *path)
{
	double best = 1e9;
	for (int i = 0; i < 3; i++) {
		checked c = run_check(path, NULL, NULL, NULL, NULL);
		cr_assert_eq(c.status, 0, "%s", c.err);
		if (c.seconds < best)
			best = c.seconds;
		checked_free(&c);
	}
	return best;
}

static void
checked_free(checked *c)
{
	cJSON_Delete(c->json);
	free(c->err);
}

/* obj.a.b as an exact integer (JSON integers are printed exactly). */
static uint64_t
u64_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	cr_assert(cJSON_IsNumber(x), "no number at %s.%s", a, b ? b : "");
	/* parse the printed form: a double loses nothing below 2^53, and the
	 * totals here are below 2^50 */
	return (uint64_t)x->valuedouble;
}

static const cJSON *
findings(const cJSON *o)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "findings");
	cr_assert(cJSON_IsArray(f));
	return f;
}

static const char *
str_of(const cJSON *f, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
int_of(const cJSON *f, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, k);
	return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* The first finding with this code (and layer >= 0, tensor, message
 * fragment when given), or NULL. */
static const cJSON *
find(const cJSON *o, const char *code, int layer, const char *tensor, const char *msg)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, findings(o)) {
		const char *c = str_of(f, "code"), *t = str_of(f, "tensor"), *m = str_of(f, "message");
		if (!c || strcmp(c, code))
			continue;
		if (layer >= 0 && int_of(f, "layer") != layer)
			continue;
		if (tensor && (!t || strcmp(t, tensor)))
			continue;
		if (msg && (!m || !strstr(m, msg)))
			continue;
		return f;
	}
	return NULL;
}

static int
count_code(const cJSON *o, const char *code, const char *severity)
{
	int n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, findings(o)) {
		const char *c = str_of(f, "code"), *s = str_of(f, "severity");
		if ((!code || (c && !strcmp(c, code))) && (!severity || (s && !strcmp(s, severity))))
			n++;
	}
	return n;
}

static void
dump_findings(const cJSON *o)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, findings(o))
		cr_log_info("  %s %s: %s", str_of(f, "severity"), str_of(f, "code"), str_of(f, "message"));
}

/* Write text to dir/config.json, replacing mkmodel's copy. */
static void
write_config(const char *dir, const char *text)
{
	free(ws_write_file(dir, "config.json", text, strlen(text)));
}

/* A copy of a real config with one textual replacement. */
static char *
edited_config(const char *path, const char *from, const char *to)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f);
	static char b[1 << 16];
	size_t n = fread(b, 1, sizeof b - 1, f);
	fclose(f);
	b[n] = '\0';
	char *at = strstr(b, from);
	cr_assert(at, "%s has no '%s'", path, from);
	char *out = malloc(n + strlen(to) + 1);
	cr_assert(out);
	sprintf(out, "%.*s%s%s", (int)(at - b), b, to, at + strlen(from));
	return out;
}

/* ==== the published totals ==== */

static const struct published {
	const char *config;
	uint64_t total, active;   /* active 0: dense */
	const char *shards;       /* safetensors shards */
	bool gguf;                /* also checked in the GGUF layout */
} published[] = {
	{"meta-llama__Llama-2-7b-hf", 6738415616ull, 0, "2", true},
	{"meta-llama__Llama-2-70b-hf", 68976648192ull, 0, "15", false},
	{"meta-llama__Meta-Llama-3-8B", 8030261248ull, 0, "4", true},
	{"meta-llama__Llama-3.1-405B", 405853388800ull, 0, "191", false},
	{"meta-llama__Llama-3.2-1B", 1235814400ull, 0, "1", false},
	{"mistralai__Mistral-7B-v0.1", 7241732096ull, 0, "2", false},
	{"Qwen__Qwen2-0.5B", 494032768ull, 0, "1", true},
	{"google__gemma-7b", 8537680896ull, 0, "4", true},
	/* buffers apart: the 12 attn.bias masks are not parameters */
	{"openai-community__gpt2", 124439808ull, 0, "1", false},
	{"microsoft__Phi-3-mini-4k-instruct", 3821079552ull, 0, "2", false},
	{"mistralai__Mixtral-8x7B-v0.1", 46702792704ull, 12879925248ull, "19", true},
	{"deepseek-ai__DeepSeek-V2-Lite", 15706484224ull, 0, "4", false},
};

static void
expect_exact(const char *what, const checked *c, const struct published *p)
{
	cr_expect_eq(c->status, 0, "%s: exit %d", what, c->status);
	cr_expect_eq(u64_at(c->json, "params", "total"), p->total,
		     "%s: params.total %" PRIu64 ", published %" PRIu64, what,
		     u64_at(c->json, "params", "total"), p->total);
	cr_expect_eq(u64_at(c->json, "formula", "total"), p->total,
		     "%s: formula.total %" PRIu64, what, u64_at(c->json, "formula", "total"));
	if (p->active)
		cr_expect_eq(u64_at(c->json, "formula", "active"), p->active,
			     "%s: formula.active %" PRIu64, what, u64_at(c->json, "formula", "active"));
	cr_expect_eq(count_code(c->json, NULL, "error"), 0, "%s: error findings", what);
	if (count_code(c->json, NULL, NULL))
		dump_findings(c->json);
}

Test(check, published_totals_safetensors)
{
	char *probe = real_config(published[0].config);
	if (!probe)
		cr_skip_test("../shared/realdata/configs is absent");
	free(probe);
	char *tmp = ws_tmpdir();
	for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
		const struct published *p = &published[i];
		char *cfg = real_config(p->config);
		if (!cfg)
			continue;
		char *dir = ws_join(tmp, p->config);
		mkmodel(dir, cfg, "--shards", p->shards, NULL);
		checked c = run_check(dir, NULL, NULL, NULL, NULL);
		expect_exact(p->config, &c, p);
		const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c.json, "arch");
		cr_expect_str_eq(str_of(arch, "source"), "config.json", "%s", p->config);
		if (!strcmp(p->config, "meta-llama__Llama-3.1-405B")) {
			const cJSON *files = cJSON_GetObjectItemCaseSensitive(c.json, "files");
			cr_expect_eq(cJSON_GetArraySize(files), 191);
			/* linear in shards, whatever the machine's load: the same
			 * model in 8x the shards may cost at most 16x the time
			 * (quadratic work would be 64x); times are the best of
			 * three, absolute ones belong to tools/bench */
			char *few = ws_join(tmp, "405b-24");
			mkmodel(few, cfg, "--shards", "24", NULL);
			double t191 = best_check_seconds(dir), t24 = best_check_seconds(few);
			cr_log_info("check of 405B: 191 shards %.3f s, 24 shards %.3f s", t191, t24);
			cr_expect_lt(t191, 16 * t24 + 0.05, "191 shards %.3f s vs 24 shards %.3f s",
				     t191, t24);
			free(few);
		}
		if (!strcmp(p->config, "openai-community__gpt2")) {
			/* the causal masks are buffers, reported apart */
			cr_expect_eq(u64_at(c.json, "buffers", "total"), 12ull * 1024 * 1024);
		}
		checked_free(&c);
		ws_rmtree(dir);
		free(dir);
		free(cfg);
	}
	ws_rmtree(tmp);
	free(tmp);
}

Test(check, published_totals_gguf)
{
	char *probe = real_config(published[0].config);
	if (!probe)
		cr_skip_test("../shared/realdata/configs is absent");
	free(probe);
	char *tmp = ws_tmpdir();
	for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
		const struct published *p = &published[i];
		char *cfg = real_config(p->config);
		if (!cfg || !p->gguf) {
			free(cfg);
			continue;
		}
		char *dir = ws_join(tmp, p->config);
		mkmodel(dir, cfg, "--format", "gguf", NULL);
		char *gguf = ws_join(dir, "model.gguf");
		checked c = run_check(gguf, NULL, NULL, NULL, NULL);
		char what[160];
		snprintf(what, sizeof what, "%s (GGUF)", p->config);
		expect_exact(what, &c, p);
		const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c.json, "arch");
		cr_expect_str_eq(str_of(arch, "source"), "gguf", "%s", what);
		checked_free(&c);
		free(gguf);
		ws_rmtree(dir);
		free(dir);
		free(cfg);
	}
	ws_rmtree(tmp);
	free(tmp);
}

/* ==== DeepSeek-V3: MLA, 256 experts, MTP, FP8 with scales ==== */

static const char deepseek_v3[] =
	"{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"model_type\": \"deepseek_v3\",\n"
	" \"hidden_size\": 7168, \"num_hidden_layers\": 61, \"num_attention_heads\": 128,\n"
	" \"num_key_value_heads\": 128, \"q_lora_rank\": 1536, \"kv_lora_rank\": 512,\n"
	" \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"v_head_dim\": 128,\n"
	" \"vocab_size\": 129280, \"intermediate_size\": 18432, \"moe_intermediate_size\": 2048,\n"
	" \"n_routed_experts\": 256, \"n_shared_experts\": 1, \"num_experts_per_tok\": 8,\n"
	" \"first_k_dense_replace\": 3, \"moe_layer_freq\": 1, \"num_nextn_predict_layers\": 1,\n"
	" \"max_position_embeddings\": 163840, \"tie_word_embeddings\": false}\n";

Test(check, deepseek_v3_mtp_apart_and_fast)
{
	char *tmp = ws_tmpdir();
	char *cfg = ws_write_file(tmp, "ds3.json", deepseek_v3, strlen(deepseek_v3));
	char *dir = ws_join(tmp, "ds3");
	mkmodel(dir, cfg, "--shards", "163", "--fp8", NULL);
	checked c = run_check(dir, NULL, NULL, NULL, NULL);
	cr_log_info("check of the DeepSeek-V3-shaped checkpoint (%" PRIu64 " tensors, 163 shards): %.3f s",
		    u64_at(c.json, "tensor_count", NULL), c.seconds);
	cr_expect_eq(c.status, 0, "exit %d", c.status);
	/* the real FP8 release: 91,991 tensors, weight_scale_inv beside */
	cr_expect_eq(u64_at(c.json, "tensor_count", NULL), 91991);
	cr_expect_eq(u64_at(c.json, "formula", "total"), 671026419200ull);
	cr_expect_eq(u64_at(c.json, "formula", "mtp"), 13463426304ull);
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(c.json, "params");
	cr_expect_eq(u64_at(params, "by_role", "mtp"), 13463426304ull);
	/* the stored parameters: the model and its MTP layer */
	cr_expect_eq(u64_at(c.json, "params", "total"), 684489845504ull);
	cr_expect_gt(u64_at(c.json, "quant_aux", "tensors"), 45000);
	cr_expect_eq(count_code(c.json, NULL, "error"), 0);
	if (count_code(c.json, NULL, NULL))
		dump_findings(c.json);
	checked_free(&c);
	/* linear in layers: 4x the layers (and tensors) at most ~4x the time
	 * of the same model cut to 15 layers, a wide bound that load cannot
	 * move the way it moves a wall-clock limit */
	char *text = strdup(deepseek_v3);
	char *at = strstr(text, "\"num_hidden_layers\": 61");
	cr_assert(at, "the config names 61 layers");
	memcpy(at, "\"num_hidden_layers\": 15", 23);
	char *cfg15 = ws_write_file(tmp, "ds3-15.json", text, strlen(text));
	char *dir15 = ws_join(tmp, "ds3-15");
	mkmodel(dir15, cfg15, "--shards", "40", "--fp8", NULL);
	double t61 = best_check_seconds(dir), t15 = best_check_seconds(dir15);
	cr_log_info("DeepSeek-V3 shapes: 61 layers %.3f s, 15 layers %.3f s", t61, t15);
	cr_expect_lt(t61, 8 * t15 + 0.05, "61 layers %.3f s vs 15 layers %.3f s", t61, t15);
	free(text), free(cfg15), free(dir15);
	ws_rmtree(tmp);
	free(tmp);
	free(cfg);
	free(dir);
}

/* ==== planted defects ==== */

typedef struct fixture {
	char *tmp, *dir, *cfg;
} fixture;

static fixture
plant(const char *config, const char *format, const char *defect)
{
	fixture f = {ws_tmpdir(), NULL, real_config(config)};
	if (!f.cfg) {
		ws_rmtree(f.tmp);
		cr_skip_test("../shared/realdata/configs is absent");
	}
	f.dir = ws_join(f.tmp, "m");
	if (defect)
		mkmodel(f.dir, f.cfg, "--format", format, "--plant", defect, NULL);
	else
		mkmodel(f.dir, f.cfg, "--format", format, NULL);
	if (!strcmp(format, "gguf")) {
		char *g = ws_join(f.dir, "model.gguf");
		free(f.dir);
		f.dir = g;
	}
	return f;
}

static void
fixture_free(fixture *f)
{
	ws_rmtree(f->tmp);
	free(f->tmp);
	free(f->dir);
	free(f->cfg);
}

Test(check, mha_k_in_gqa_named)
{
	static const char *fmts[][2] = {
		{"safetensors", "model.layers.3.self_attn.k_proj.weight"},
		{"gguf", "blk.3.attn_k.weight"},
	};
	for (int i = 0; i < 2; i++) {
		fixture f = plant("meta-llama__Meta-Llama-3-8B", fmts[i][0], "mha-k");
		checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
		cr_expect_eq(c.status, 1, "%s: exit %d", fmts[i][0], c.status);
		const cJSON *x = find(c.json, "shape-mismatch", 3, fmts[i][1], "[1024, 4096]");
		cr_expect(x, "%s: no shape-mismatch naming %s at layer 3", fmts[i][0], fmts[i][1]);
		cr_expect_eq(u64_at(x, "expected", NULL), 1024ull * 4096);
		cr_expect_eq(u64_at(x, "actual", NULL), 4096ull * 4096);
		cr_expect(find(c.json, "count-mismatch", -1, NULL, "attn_k"));
		cr_expect_not(c.json && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c.json, "ok")));
		checked_free(&c);
		fixture_free(&f);
	}
}

Test(check, missing_block_named)
{
	static const char *fmts[] = {"safetensors", "gguf"};
	for (int i = 0; i < 2; i++) {
		fixture f = plant("meta-llama__Llama-2-7b-hf", fmts[i], "missing-block");
		checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
		cr_expect_eq(c.status, 1);
		cr_expect(find(c.json, "layer-gap", 5, NULL, "block 5"), "%s: no layer-gap at 5", fmts[i]);
		cr_expect_eq(count_code(c.json, "layer-gap", NULL), 1);
		checked_free(&c);
		fixture_free(&f);
	}
}

Test(check, wrong_kv_heads_in_config)
{
	fixture f = plant("meta-llama__Meta-Llama-3-8B", "safetensors", NULL);
	char *cfg = edited_config(f.cfg, "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 4");
	write_config(f.dir, cfg);
	checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "count-mismatch", -1, NULL, "attn_k holds 134,217,728"));
	cr_expect(find(c.json, "count-mismatch", -1, NULL, "attn_v"));
	cr_expect(find(c.json, "shape-mismatch", 0, "model.layers.0.self_attn.k_proj.weight", "[512, 4096]"));
	/* 32 blocks × k and v: named a few per role, the rest counted */
	cr_expect_leq(count_code(c.json, "shape-mismatch", NULL), 2 * 17);
	cr_expect(find(c.json, "shape-mismatch", -1, NULL, "more attn_k tensors"));
	checked_free(&c);
	free(cfg);
	fixture_free(&f);
}

Test(check, wrong_intermediate_size_in_config)
{
	fixture f = plant("mistralai__Mistral-7B-v0.1", "safetensors", NULL);
	char *cfg = edited_config(f.cfg, "\"intermediate_size\": 14336", "\"intermediate_size\": 14000");
	write_config(f.dir, cfg);
	checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "count-mismatch", -1, NULL, "ffn_gate"));
	cr_expect(find(c.json, "count-mismatch", -1, NULL, "ffn_down"));
	cr_expect(find(c.json, "shape-mismatch", 7, "model.layers.7.mlp.up_proj.weight", "[14000, 4096]"));
	checked_free(&c);
	free(cfg);
	fixture_free(&f);
}

Test(check, missing_expert_named)
{
	fixture f = plant("mistralai__Mixtral-8x7B-v0.1", "safetensors", "missing-expert");
	checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	static const char *names[] = {"w1", "w2", "w3"};
	for (int i = 0; i < 3; i++) {
		char t[96];
		snprintf(t, sizeof t, "model.layers.1.block_sparse_moe.experts.2.%s.weight", names[i]);
		cr_expect(find(c.json, "missing-tensor", 1, t, "expert 2"), "no missing-tensor for %s", t);
	}
	cr_expect_eq(count_code(c.json, "missing-tensor", NULL), 3);
	dump_findings(c.json);
	checked_free(&c);
	fixture_free(&f);

	/* GGUF: the stacks of block 1 hold 7 experts */
	f = plant("mistralai__Mixtral-8x7B-v0.1", "gguf", "missing-expert");
	c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "shape-mismatch", 1, "blk.1.ffn_gate_exps.weight", "8 experts"));
	cr_expect(find(c.json, "shape-mismatch", 1, "blk.1.ffn_down_exps.weight", "[7, 4096, 14336]"));
	checked_free(&c);
	fixture_free(&f);
}

Test(check, wrong_expert_count_named)
{
	static const char *to[] = {"\"num_local_experts\": 6", "\"num_local_experts\": 16"};
	for (int i = 0; i < 2; i++) {
		fixture f = plant("mistralai__Mixtral-8x7B-v0.1", "safetensors", NULL);
		char *cfg = edited_config(f.cfg, "\"num_local_experts\": 8", to[i]);
		write_config(f.dir, cfg);
		checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
		cr_expect_eq(c.status, 1);
		const cJSON *x = find(c.json, "count-mismatch", -1, NULL, "every MoE block stores 8 experts");
		cr_expect(x, "no expert-count finding (%s)", to[i]);
		cr_expect(x && strstr(str_of(x, "message"), "num_local_experts"));
		cr_expect(find(c.json, "shape-mismatch", 0, "model.layers.0.block_sparse_moe.gate.weight", NULL));
		checked_free(&c);
		free(cfg);
		fixture_free(&f);
	}
}

/* ==== a head stored under a tied config ==== */

static const char small_tied[] =
	"{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\",\n"
	" \"vocab_size\": 1000, \"hidden_size\": 64, \"intermediate_size\": 176,\n"
	" \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
	" \"max_position_embeddings\": 256, \"tie_word_embeddings\": true}\n";
/* 1000·64 + 2·(64 + 64·64 + 2·32·64 + 64·64 + 64 + 3·176·64) + 64 */
#define SMALL_TIED_TOTAL 156480ull

static char *
small_model(char **tmp, const char *a1, const char *a2)
{
	*tmp = ws_tmpdir();
	char *cfg = ws_write_file(*tmp, "tied.json", small_tied, strlen(small_tied));
	char *dir = ws_join(*tmp, "m");
	mkmodel(dir, cfg, a1, a2, NULL);
	free(cfg);
	return dir;
}

Test(check, trained_head_under_tied_config_is_an_error)
{
	char *tmp;
	char *dir = small_model(&tmp, "--plant", "untied-trained-head");
	checked c = run_check(dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	const cJSON *x = find(c.json, "tied-embeddings", -1, NULL, NULL);
	cr_expect(x);
	cr_expect_str_eq(str_of(x, "severity"), "error");
	dump_findings(c.json);
	checked_free(&c);
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
}

Test(check, identical_head_under_tied_config_is_a_warning_counted_once)
{
	static const char *how[][2] = {{"--plant", "tied-identical-head"}, {"--tie-head-copy", NULL}};
	for (int i = 0; i < 2; i++) {
		char *tmp;
		char *dir = small_model(&tmp, how[i][0], how[i][1]);
		checked c = run_check(dir, NULL, NULL, NULL, NULL);
		cr_expect_eq(c.status, 0, "%s: exit %d", how[i][0], c.status);
		const cJSON *x = find(c.json, "tied-embeddings", -1, NULL, NULL);
		cr_expect(x, "%s: no tied-embeddings finding", how[i][0]);
		cr_expect_str_eq(x ? str_of(x, "severity") : "", "warning");
		cr_expect_eq(count_code(c.json, "tied-embeddings", NULL), 1);
		cr_expect_eq(u64_at(c.json, "params", "total"), SMALL_TIED_TOTAL);
		cr_expect_eq(u64_at(c.json, "formula", "total"), SMALL_TIED_TOTAL);
		checked_free(&c);
		/* --strict makes the warning fail the gate */
		c = run_check(dir, "--strict", NULL, NULL, NULL);
		cr_expect_eq(c.status, 1);
		checked_free(&c);
		ws_rmtree(tmp);
		free(tmp);
		free(dir);
	}
}

/* ==== the gate's options ==== */

Test(check, expect_params_fail_on_and_ignore)
{
	char *tmp;
	char *dir = small_model(&tmp, "--tie-head-copy", NULL);
	char exact[32], off[32];
	snprintf(exact, sizeof exact, "%llu", SMALL_TIED_TOTAL);
	snprintf(off, sizeof off, "%llu:100", SMALL_TIED_TOTAL + 150);

	checked c = run_check(dir, "--expect-params", exact, NULL, NULL);
	cr_expect_eq(c.status, 0);
	checked_free(&c);
	c = run_check(dir, "--expect-params", "150000", NULL, NULL);
	cr_expect_eq(c.status, 1);
	const cJSON *x = find(c.json, "expect-params", -1, NULL, NULL);
	cr_expect(x);
	cr_expect_eq(x ? u64_at(x, "actual", NULL) : 0, SMALL_TIED_TOTAL);
	checked_free(&c);
	c = run_check(dir, "--expect-params", off, NULL, NULL);       /* 150 off, tolerance 100 */
	cr_expect_eq(c.status, 1);
	checked_free(&c);
	c = run_check(dir, "--expect-params", "156000:1%", NULL, NULL); /* within 1% */
	cr_expect_eq(c.status, 0);
	checked_free(&c);

	/* --fail-on adds the warning codes it names to those that fail;
	 * it never takes away --strict's */
	c = run_check(dir, "--fail-on", "tied-embeddings", NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(c.json, "ok")));
	checked_free(&c);
	c = run_check(dir, "--fail-on", "layer-gap,shape-mismatch", NULL, NULL);
	cr_expect_eq(c.status, 0);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c.json, "ok")));
	checked_free(&c);
	c = run_check(dir, "--fail-on", "layer-gap,shape-mismatch", "--strict", NULL);
	cr_expect_eq(c.status, 1);
	checked_free(&c);

	/* --ignore takes a finding out of the gate, and keeps it in sight */
	char *ign = ws_write_file(tmp, "ignore.txt",
				  "# reviewed\ntied-embeddings:lm_head.* the head is a copy\n",
				  strlen("# reviewed\ntied-embeddings:lm_head.* the head is a copy\n"));
	c = run_check(dir, "--strict", "--ignore", ign, NULL);
	cr_expect_eq(c.status, 0, "exit %d", c.status);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c.json, "ok")));
	const cJSON *t = find(c.json, "tied-embeddings", -1, NULL, NULL);
	cr_expect(t && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "ignored")));
	cr_expect_str_eq(t ? str_of(t, "ignored_why") : "", "the head is a copy");
	checked_free(&c);
	ws_run tr = ws_run_cli("check", "--strict", "--ignore", ign, dir, NULL);
	cr_expect_eq(tr.status, 0);
	cr_expect(ws_contains(tr.out, "1 finding ignored by "), "%s", tr.out);
	cr_expect(ws_contains(tr.out, "check          passed"), "%s", tr.out);
	ws_run_free(&tr);
	/* SARIF: the waived finding is a result with a suppression */
	tr = ws_run_cli("check", "--format", "sarif", "--strict", "--ignore", ign, dir, NULL);
	cr_expect_eq(tr.status, 0);
	cr_expect(ws_contains(tr.out, "\"suppressions\""), "%s", tr.out);
	cr_expect(ws_contains(tr.out, "\"justification\":\t\"the head is a copy\""), "%s", tr.out);
	ws_run_free(&tr);

	/* an unknown code switches nothing off: a usage error listing them */
	tr = ws_run_cli("check", "--fail-on", "nonsense", dir, NULL);
	cr_expect_eq(tr.status, 2);
	cr_expect(ws_contains(tr.err, "unknown finding code 'nonsense'"), "%s", tr.err);
	cr_expect(ws_contains(tr.err, "count-mismatch"), "%s", tr.err);
	cr_expect_str_empty(tr.out);
	ws_run_free(&tr);
	char *bad = ws_write_file(tmp, "bad.txt", "# ok\ncount-mismatch\ntied-embedings:x typo\n", 42);
	tr = ws_run_cli("check", "--ignore", bad, dir, NULL);
	cr_expect_eq(tr.status, 2);
	cr_expect(ws_contains(tr.err, "--ignore line 3: unknown finding code 'tied-embedings'"), "%s", tr.err);
	ws_run_free(&tr);
	free(bad);

	/* usage errors */
	ws_run r = ws_run_cli("check", dir, "--expect-params", "many", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("check", dir, "--fail-on", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	free(ign);
	ws_rmtree(tmp);
	free(tmp);
	free(dir);
}

#define IGNORE_TEXT "shape-mismatch:model.layers.3.* known\ncount-mismatch\nlayer-inconsistent\n"

Test(check, ignore_and_fail_on_with_a_real_defect)
{
	fixture f = plant("meta-llama__Meta-Llama-3-8B", "safetensors", "mha-k");
	char *ign = ws_write_file(f.tmp, "ignore.txt",
				  IGNORE_TEXT, strlen(IGNORE_TEXT));
	checked c = run_check(f.dir, "--ignore", ign, NULL, NULL);
	cr_expect_eq(c.status, 0, "exit %d", c.status);
	const cJSON *fd;
	int kept = 0;
	cJSON_ArrayForEach(fd, findings(c.json)) {
		cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fd, "ignored")),
			  "%s not ignored", str_of(fd, "code"));
		kept++;
	}
	cr_expect_gt(kept, 0, "ignored findings are kept in JSON");
	checked_free(&c);
	/* --fail-on never takes an error away */
	c = run_check(f.dir, "--fail-on", "layer-gap", NULL, NULL);
	cr_expect_eq(c.status, 1);
	checked_free(&c);
	c = run_check(f.dir, "--fail-on", "shape-mismatch", NULL, NULL);
	cr_expect_eq(c.status, 1);
	checked_free(&c);
	free(ign);
	fixture_free(&f);
}

/* ==== MoE layouts at full size: Qwen MoE, Llama 4, gpt-oss, PhiMoE, DeepSeek GGUF ==== */

/* The published configs' architecture numbers (text model only for
 * Llama 4).  Totals are the formula's, which the stored tensors must
 * match exactly; against the model cards: Qwen1.5-MoE-A2.7B 14.3B / 2.7B,
 * Qwen2-57B-A14B 57.4B / 14B, Qwen3-30B-A3B 30.5B / 3.3B, Qwen3-235B-A22B
 * 235B / 22B, Llama-4-Scout 109B / 17B and Maverick 400B / 17B (with
 * the vision tower), gpt-oss-20b 20.9B and 120b 116.8B (OpenAI's active
 * 3.6B / 5.1B leave out the 0.58B embedding table), Phi-3.5-MoE
 * 41.9B / 6.6B, DeepSeek-V2-Lite 15.7B / 2.4B (without the embedding). */
#define QWEN15_MOE \
	"{\"architectures\": [\"Qwen2MoeForCausalLM\"], \"model_type\": \"qwen2_moe\",\n" \
	" \"hidden_size\": 2048, \"intermediate_size\": 5632, \"num_hidden_layers\": 24,\n" \
	" \"num_attention_heads\": 16, \"num_key_value_heads\": 16, \"vocab_size\": 151936,\n" \
	" \"max_position_embeddings\": 8192, \"decoder_sparse_step\": 1,\n" \
	" \"moe_intermediate_size\": 1408, \"shared_expert_intermediate_size\": 5632,\n" \
	" \"num_experts_per_tok\": 4, \"num_experts\": 60, \"mlp_only_layers\": [],\n" \
	" \"tie_word_embeddings\": false}\n"
#define QWEN2_57B \
	"{\"architectures\": [\"Qwen2MoeForCausalLM\"], \"model_type\": \"qwen2_moe\",\n" \
	" \"hidden_size\": 3584, \"intermediate_size\": 18944, \"num_hidden_layers\": 28,\n" \
	" \"num_attention_heads\": 28, \"num_key_value_heads\": 4, \"vocab_size\": 151936,\n" \
	" \"max_position_embeddings\": 131072, \"decoder_sparse_step\": 1,\n" \
	" \"moe_intermediate_size\": 2560, \"shared_expert_intermediate_size\": 20480,\n" \
	" \"num_experts_per_tok\": 8, \"num_experts\": 64, \"tie_word_embeddings\": false}\n"
#define QWEN3_30B_BODY \
	" \"hidden_size\": 2048, \"intermediate_size\": 6144, \"num_hidden_layers\": 48,\n" \
	" \"num_attention_heads\": 32, \"num_key_value_heads\": 4, \"head_dim\": 128,\n" \
	" \"vocab_size\": 151936, \"max_position_embeddings\": 40960,\n" \
	" \"moe_intermediate_size\": 768, \"num_experts_per_tok\": 8, \"num_experts\": 128,\n" \
	" \"attention_bias\": false, \"tie_word_embeddings\": false,\n"
#define QWEN3_30B \
	"{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"model_type\": \"qwen3_moe\",\n" \
	QWEN3_30B_BODY " \"decoder_sparse_step\": 1, \"mlp_only_layers\": []}\n"
/* not a published model: every second block MoE, block 47 dense */
#define QWEN3_30B_SPARSE \
	"{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"model_type\": \"qwen3_moe\",\n" \
	QWEN3_30B_BODY " \"decoder_sparse_step\": 2, \"mlp_only_layers\": [47]}\n"
#define QWEN3_235B \
	"{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"model_type\": \"qwen3_moe\",\n" \
	" \"hidden_size\": 4096, \"intermediate_size\": 12288, \"num_hidden_layers\": 94,\n" \
	" \"num_attention_heads\": 64, \"num_key_value_heads\": 4, \"head_dim\": 128,\n" \
	" \"vocab_size\": 151936, \"max_position_embeddings\": 40960, \"decoder_sparse_step\": 1,\n" \
	" \"moe_intermediate_size\": 1536, \"num_experts_per_tok\": 8, \"num_experts\": 128,\n" \
	" \"mlp_only_layers\": [], \"attention_bias\": false, \"tie_word_embeddings\": false}\n"
#define LLAMA4(experts, step) \
	"{\"architectures\": [\"Llama4ForCausalLM\"], \"model_type\": \"llama4_text\",\n" \
	" \"hidden_size\": 5120, \"intermediate_size\": 8192, \"intermediate_size_mlp\": 16384,\n" \
	" \"num_hidden_layers\": 48, \"num_attention_heads\": 40, \"num_key_value_heads\": 8,\n" \
	" \"head_dim\": 128, \"vocab_size\": 202048, \"max_position_embeddings\": 10485760,\n" \
	" \"num_local_experts\": " experts ", \"num_experts_per_tok\": 1,\n" \
	" \"interleave_moe_layer_step\": " step ", \"use_qk_norm\": true,\n" \
	" \"attention_bias\": false, \"tie_word_embeddings\": false}\n"
#define GPT_OSS(layers, experts) \
	"{\"architectures\": [\"GptOssForCausalLM\"], \"model_type\": \"gpt_oss\",\n" \
	" \"hidden_size\": 2880, \"intermediate_size\": 2880, \"num_hidden_layers\": " layers ",\n" \
	" \"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"head_dim\": 64,\n" \
	" \"vocab_size\": 201088, \"max_position_embeddings\": 131072,\n" \
	" \"num_local_experts\": " experts ", \"experts_per_token\": 4, \"num_experts_per_tok\": 4,\n" \
	" \"sliding_window\": 128, \"attention_bias\": true, \"tie_word_embeddings\": false}\n"
#define PHI35_MOE \
	"{\"architectures\": [\"PhiMoEForCausalLM\"], \"model_type\": \"phimoe\",\n" \
	" \"hidden_size\": 4096, \"intermediate_size\": 6400, \"num_hidden_layers\": 32,\n" \
	" \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32064,\n" \
	" \"max_position_embeddings\": 131072, \"num_local_experts\": 16,\n" \
	" \"num_experts_per_tok\": 2, \"attention_bias\": true, \"lm_head_bias\": true,\n" \
	" \"sliding_window\": 131072, \"tie_word_embeddings\": false}\n"
#define DEEPSEEK_V2_LITE \
	"{\"architectures\": [\"DeepseekV2ForCausalLM\"], \"model_type\": \"deepseek_v2\",\n" \
	" \"hidden_size\": 2048, \"num_hidden_layers\": 27, \"num_attention_heads\": 16,\n" \
	" \"num_key_value_heads\": 16, \"q_lora_rank\": null, \"kv_lora_rank\": 512,\n" \
	" \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, \"v_head_dim\": 128,\n" \
	" \"vocab_size\": 102400, \"intermediate_size\": 10944, \"moe_intermediate_size\": 1408,\n" \
	" \"n_routed_experts\": 64, \"n_shared_experts\": 2, \"num_experts_per_tok\": 6,\n" \
	" \"first_k_dense_replace\": 1, \"moe_layer_freq\": 1, \"topk_method\": \"greedy\",\n" \
	" \"max_position_embeddings\": 163840, \"tie_word_embeddings\": false}\n"

enum { L_ST = 1, L_GGUF = 2, L_GGUF_SPLIT = 4 };

static const struct layout {
	const char *name, *config, *shards;
	uint64_t total, active, st_tensors;  /* st_tensors 0: not pinned */
	unsigned formats;
} layouts[] = {
	{"Qwen1.5-MoE-A2.7B", QWEN15_MOE, "8", 14315784192ull, 2689173504ull, 4659, L_ST | L_GGUF},
	{"Qwen2-57B-A14B", QWEN2_57B, "29", 57408658944ull, 14249270784ull, 0, L_ST | L_GGUF},
	{"Qwen3-30B-A3B", QWEN3_30B, "16", 30532122624ull, 3353032704ull, 18867, L_ST | L_GGUF},
	{"Qwen3-30B-A3B-sparse-step", QWEN3_30B_SPARSE, "8", 16369793024ull, 3346479104ull, 0, L_ST},
	{"Qwen3-235B-A22B", QWEN3_235B, "118", 235093634560ull, 22190763520ull, 0, L_ST | L_GGUF},
	{"Llama-4-Scout-17B-16E", LLAMA4("16", "1"), "50", 107769861120ull, 17172894720ull, 579, L_ST | L_GGUF},
	{"Llama-4-Maverick-17B-128E", LLAMA4("128", "2"), "55", 400711848960ull, 17184691200ull, 507, L_ST | L_GGUF},
	{"gpt-oss-20b", GPT_OSS("24", "32"), "3", 20914757184ull, 4187440704ull, 411, L_ST | L_GGUF},
	{"gpt-oss-120b", GPT_OSS("36", "128"), "15", 116829156672ull, 5711982912ull, 615, L_ST | L_GGUF},
	{"Phi-3.5-MoE", PHI35_MOE, "17", 41873153344ull, 6640999744ull, 1957, L_ST | L_GGUF},
	{"DeepSeek-V2-Lite", DEEPSEEK_V2_LITE, "4", 15706484224ull, 2661150208ull, 0, L_GGUF | L_GGUF_SPLIT},
	{"DeepSeek-V3", deepseek_v3, "163", 671026419200ull, 37552297472ull, 0, L_GGUF | L_GGUF_SPLIT},
};

/* Make layout p in one format under tmp, check it, and compare. */
static void
check_layout(const char *tmp, const struct layout *p, unsigned fmt)
{
	char *cfg = ws_write_file(tmp, "config-in.json", p->config, strlen(p->config));
	char *dir = ws_join(tmp, "m");
	if (fmt == L_ST)
		mkmodel(dir, cfg, "--shards", p->shards, NULL);
	else if (fmt == L_GGUF)
		mkmodel(dir, cfg, "--format", "gguf", NULL);
	else
		mkmodel(dir, cfg, "--format", "gguf", "--mla-split", NULL);
	char *path = fmt == L_ST ? strdup(dir) : ws_join(dir, "model.gguf");
	checked c = run_check(path, NULL, NULL, NULL, NULL);
	char what[160];
	snprintf(what, sizeof what, "%s (%s)", p->name,
		 fmt == L_ST ? "safetensors" : fmt == L_GGUF ? "GGUF" : "GGUF, k_b/v_b split");
	struct published pub = {p->name, p->total, p->active, p->shards, false};
	expect_exact(what, &c, &pub);
	cr_expect_eq(count_code(c.json, NULL, NULL), 0, "%s: findings", what);
	cr_log_info("%s: total %" PRIu64 ", active %" PRIu64 ", %" PRIu64 " tensors, %.3f s", what,
		    u64_at(c.json, "params", "total"), u64_at(c.json, "formula", "active"),
		    u64_at(c.json, "tensor_count", NULL), c.seconds);
	if (fmt == L_ST && p->st_tensors)
		cr_expect_eq(u64_at(c.json, "tensor_count", NULL), p->st_tensors, "%s: tensor count", what);
	const cJSON *arch = cJSON_GetObjectItemCaseSensitive(c.json, "arch");
	cr_expect_str_eq(str_of(arch, "source"), fmt == L_ST ? "config.json" : "gguf", "%s", what);
	checked_free(&c);
	ws_rmtree(dir);
	free(path);
	free(dir);
	free(cfg);
}

Test(check, moe_layouts_safetensors)
{
	char *tmp = ws_tmpdir();
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		if (layouts[i].formats & L_ST)
			check_layout(tmp, &layouts[i], L_ST);
	ws_rmtree(tmp);
	free(tmp);
}

Test(check, moe_layouts_gguf)
{
	char *tmp = ws_tmpdir();
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		for (unsigned f = L_GGUF; f <= L_GGUF_SPLIT; f <<= 1)
			if (layouts[i].formats & f)
				check_layout(tmp, &layouts[i], f);
	ws_rmtree(tmp);
	free(tmp);
}

/* A layout made with extra mkmodel arguments; dir is the path to check. */
static fixture
plant_inline(const char *config, const char *a1, const char *a2, const char *a3, const char *a4)
{
	fixture f = {ws_tmpdir(), NULL, NULL};
	f.cfg = ws_write_file(f.tmp, "config-in.json", config, strlen(config));
	f.dir = ws_join(f.tmp, "m");
	mkmodel(f.dir, f.cfg, a1, a2, a3, a4, NULL);
	if ((a1 && !strcmp(a1, "gguf")) || (a2 && !strcmp(a2, "gguf"))) {
		char *g = ws_join(f.dir, "model.gguf");
		free(f.dir);
		f.dir = g;
	}
	return f;
}

Test(check, moe_missing_expert_named)
{
	/* Qwen3 safetensors: one tensor per expert, each missing one named */
	fixture f = plant_inline(QWEN3_30B, "--plant", "missing-expert", NULL, NULL);
	checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	static const char *names[] = {"gate_proj", "up_proj", "down_proj"};
	for (int i = 0; i < 3; i++) {
		char t[96];
		snprintf(t, sizeof t, "model.layers.1.mlp.experts.2.%s.weight", names[i]);
		cr_expect(find(c.json, "missing-tensor", 1, t, "expert 2"), "no missing-tensor for %s", t);
	}
	cr_expect_eq(count_code(c.json, "missing-tensor", NULL), 3);
	cr_expect_eq(u64_at(c.json, "params", "total"), 30532122624ull - 3ull * 768 * 2048);
	checked_free(&c);
	fixture_free(&f);

	/* Qwen3 GGUF: the stacks of block 1 hold 127 experts */
	f = plant_inline(QWEN3_30B, "--format", "gguf", "--plant", "missing-expert");
	c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "shape-mismatch", 1, "blk.1.ffn_gate_exps.weight", "[127, 768, 2048]"));
	cr_expect(find(c.json, "shape-mismatch", 1, "blk.1.ffn_down_exps.weight", "128 experts"));
	cr_expect(find(c.json, "count-mismatch", -1, NULL, "moe_up holds"));
	/* one short block is not a wrong expert count */
	cr_expect_not(find(c.json, "count-mismatch", -1, NULL, "every MoE block"));
	checked_free(&c);
	fixture_free(&f);

	/* gpt-oss's fused experts and their biases: stacks of 31 */
	f = plant_inline(GPT_OSS("24", "32"), "--plant", "missing-expert", NULL, NULL);
	c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "shape-mismatch", 1, "model.layers.1.mlp.experts.gate_up_proj",
		       "[31, 2880, 5760]"));
	cr_expect(find(c.json, "shape-mismatch", 1, "model.layers.1.mlp.experts.down_proj_bias",
		       "[31, 2880]"));
	checked_free(&c);
	fixture_free(&f);

	/* DeepSeek-V3 GGUF: blocks 0-2 are dense, the first MoE block loses one */
	f = plant_inline(deepseek_v3, "--format", "gguf", "--plant", "missing-expert");
	c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "shape-mismatch", 3, "blk.3.ffn_up_exps.weight", "[255, 2048, 7168]"));
	checked_free(&c);
	fixture_free(&f);
}

Test(check, moe_wrong_expert_count_named)
{
	/* safetensors, per-expert tensors: config says 64, blocks hold 60 */
	fixture f = plant_inline(QWEN15_MOE, NULL, NULL, NULL, NULL);
	char *cfg = edited_config(f.cfg, "\"num_experts\": 60", "\"num_experts\": 64");
	write_config(f.dir, cfg);
	checked c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "count-mismatch", -1, NULL,
		       "every MoE block stores 60 experts; the architecture declares 64 (config key 'num_experts')"));
	cr_expect(find(c.json, "shape-mismatch", 0, "model.layers.0.mlp.gate.weight", "[60, 2048]"));
	checked_free(&c);
	free(cfg);
	fixture_free(&f);

	/* safetensors, fused experts: gpt-oss's config says 16 of 32 */
	f = plant_inline(GPT_OSS("24", "32"), NULL, NULL, NULL, NULL);
	cfg = edited_config(f.cfg, "\"num_local_experts\": 32", "\"num_local_experts\": 16");
	write_config(f.dir, cfg);
	c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	cr_expect(find(c.json, "count-mismatch", -1, NULL,
		       "every MoE block stores 32 experts; the architecture declares 16 (config key 'num_local_experts')"));
	checked_free(&c);
	free(cfg);
	fixture_free(&f);

	/* GGUF: qwen3moe.expert_count says 64, the stacks hold 128 */
	f = plant_inline(QWEN3_30B, "--format", "gguf", "--meta", "expert_count=64");
	c = run_check(f.dir, NULL, NULL, NULL, NULL);
	cr_expect_eq(c.status, 1);
	const cJSON *x = find(c.json, "count-mismatch", -1, NULL,
			      "every MoE block stores 128 experts; the architecture declares 64 (GGUF key 'qwen3moe.expert_count')");
	cr_expect(x, "no expert-count finding naming the GGUF key");
	cr_expect_eq(x ? u64_at(x, "expected", NULL) : 0, 64);
	cr_expect_eq(x ? u64_at(x, "actual", NULL) : 0, 128);
	cr_expect(find(c.json, "shape-mismatch", 0, "blk.0.ffn_gate_inp.weight", "[64, 2048]"));
	checked_free(&c);
	fixture_free(&f);
}
