/*
 * test_check.c - `weightscan check` on full-size sparse checkpoints made by
 * tools/mkmodel from real configs: the published totals in safetensors and
 * GGUF layouts, DeepSeek-V3 at its real tensor count, planted defects
 * named with code, layer and tensor, and the gate's options.
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
			cr_log_info("check of the 405B 191-shard checkpoint: %.3f s", c.seconds);
			cr_expect_lt(c.seconds, 10.0, "405B check took %.1f s", c.seconds);
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
	cr_expect_lt(c.seconds, 10.0, "check took %.1f s", c.seconds);
	checked_free(&c);
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

	/* --fail-on: only the codes listed fail, warnings included */
	c = run_check(dir, "--fail-on", "tied-embeddings", NULL, NULL);
	cr_expect_eq(c.status, 1);
	checked_free(&c);
	c = run_check(dir, "--fail-on", "layer-gap,shape-mismatch", "--strict", NULL);
	cr_expect_eq(c.status, 0);
	checked_free(&c);

	/* --ignore drops a finding before --strict sees it */
	char *ign = ws_write_file(tmp, "ignore.txt",
				  "# reviewed\ntied-embeddings:lm_head.* the head is a copy\n",
				  strlen("# reviewed\ntied-embeddings:lm_head.* the head is a copy\n"));
	c = run_check(dir, "--strict", "--ignore", ign, NULL);
	cr_expect_eq(c.status, 0, "exit %d", c.status);
	cr_expect_eq(count_code(c.json, "tied-embeddings", NULL), 0);
	checked_free(&c);

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
	cr_expect_eq(count_code(c.json, NULL, NULL), 0);
	checked_free(&c);
	c = run_check(f.dir, "--fail-on", "layer-gap", NULL, NULL);
	cr_expect_eq(c.status, 0);
	checked_free(&c);
	c = run_check(f.dir, "--fail-on", "shape-mismatch", NULL, NULL);
	cr_expect_eq(c.status, 1);
	checked_free(&c);
	free(ign);
	fixture_free(&f);
}
