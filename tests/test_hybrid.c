/* test_hybrid.c - state-space and hybrid stacks: each layer's mixer and
 * feed-forward from what the config says (class defaults, periods,
 * intervals, layer_types), the formula, check on full-size sparse
 * checkpoints, a planted defect, and flops' KV cache and recurrent
 * state.  The real configs' totals are in test_catalogue's tables. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ws/error.h"
#include "ws/model.h"
#include "ws/formula.h"
#include "testutil.h"

/* The formula of a config given as JSON text. */
static void
formula_of_text(const char *json, struct ws_arch *a, struct ws_formula *f)
{
	cJSON *cfg = cJSON_Parse(json);
	cr_assert(cfg, "bad test JSON: %s", json);
	ws_formula_of(cfg, a, f);
	cJSON_Delete(cfg);
}

/* JambaConfig's defaults are Jamba-v0.1's, the size of Jamba-Mini-1.5:
 * Mamba layers, attention at i % 8 == 4, MoE at i % 2 == 1. */
Test(hybrid, jamba_from_class_defaults)
{
	struct ws_arch a;
	struct ws_formula f;
	formula_of_text("{\"model_type\": \"jamba\"}", &a, &f);
	cr_expect_eq(f.total, 51570323328ull, "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.active, 12110311296ull, "%llu", (unsigned long long)f.active);
	for (uint64_t i = 0; i < a.num_layers; i++) {
		cr_expect_str_eq(ws_arch_layer_kind(&a, i), i % 8 == 4 ? "attention" : "mamba", "layer %llu",
				 (unsigned long long)i);
		cr_expect_eq(ws_arch_layer_is_moe(&a, i), i % 2 == 1, "layer %llu", (unsigned long long)i);
	}
	ws_formula_free(&f);
	ws_arch_free(&a);
	/* another period and offset: attention at 1, 3, 5 ...; MoE nowhere */
	formula_of_text("{\"model_type\": \"jamba\", \"attn_layer_period\": 2, \"attn_layer_offset\": 1,"
			" \"expert_layer_period\": 8, \"expert_layer_offset\": 5, \"num_hidden_layers\": 4}", &a, &f);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 0), "mamba");
	cr_expect_str_eq(ws_arch_layer_kind(&a, 1), "attention");
	cr_expect_eq(f.active, f.total);
	ws_formula_free(&f);
	ws_arch_free(&a);
}

/* MambaConfig's defaults (32 layers of 768) with time_step_rank "auto":
 * ceil(768 / 16) = 48, the same as the number */
Test(hybrid, mamba_time_step_rank_auto)
{
	struct ws_arch a;
	struct ws_formula f;
	static const char *const cfgs[] = {
		"{\"model_type\": \"mamba\"}",
		"{\"model_type\": \"mamba\", \"time_step_rank\": \"auto\"}",
		"{\"model_type\": \"mamba\", \"time_step_rank\": 48}",
	};
	for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
		formula_of_text(cfgs[i], &a, &f);
		cr_expect_eq(a.ssm_rank, 48);
		cr_expect_eq(f.total, 159308544ull, "%s: %llu", cfgs[i], (unsigned long long)f.total);
		cr_expect_str_eq(ws_arch_layer_kind(&a, 3), "mamba");
		cr_expect_eq(a.num_heads, 0);
		ws_formula_free(&f);
		ws_arch_free(&a);
	}
	/* "auto" is the only word a rank may be */
	cJSON *cfg = cJSON_Parse("{\"model_type\": \"mamba\", \"time_step_rank\": \"big\"}");
	ws_error err = {0};
	cr_expect_eq(ws_arch_from_config(cfg, "c.json", &a, &err), -1);
	cr_expect(ws_contains(err.message, "time_step_rank"), "%s", err.message);
	cJSON_Delete(cfg);
}

/* Qwen3-Next: full attention every full_attention_interval-th layer, or
 * where layer_types says; the MTP block apart */
Test(hybrid, qwen3_next_interval_and_layer_types)
{
	char list[48 * 24 + 64] = "{\"model_type\": \"qwen3_next\", \"layer_types\": [";
	for (int i = 0; i < 48; i++)
		strcat(list, (i + 1) % 4 ? "\"linear_attention\"," : "\"full_attention\",");
	list[strlen(list) - 1] = '\0';
	strcat(list, "]}");
	const char *cfgs[] = {"{\"model_type\": \"qwen3_next\"}", list};
	for (size_t i = 0; i < 2; i++) {
		struct ws_arch a;
		struct ws_formula f;
		formula_of_text(cfgs[i], &a, &f);
		cr_expect_eq(f.total, 79674391296ull, "%llu", (unsigned long long)f.total);
		cr_expect_eq(f.mtp, 1650471424ull, "%llu", (unsigned long long)f.mtp);
		cr_expect_str_eq(ws_arch_layer_kind(&a, 2), "linear_attention");
		cr_expect_str_eq(ws_arch_layer_kind(&a, 3), "attention");
		cr_expect_str_eq(ws_arch_layer_kind(&a, 48), "mtp");
		ws_formula_free(&f);
		ws_arch_free(&a);
	}
}

static void
mkmodel(const char *dir, const char *config, const char *opt, const char *val)
{
	char *argv[] = {getenv("WS_MKMODEL"), (char *)dir, (char *)config, (char *)opt, (char *)val, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

/* A Mamba checkpoint checks clean; one without a layer's in_proj names
 * that block, the role and the shortfall. */
Test(hybrid, mamba_missing_ssm_tensor)
{
	static const char cfg[] = "{\"model_type\": \"mamba\", \"architectures\": [\"MambaForCausalLM\"],"
				  " \"hidden_size\": 64, \"num_hidden_layers\": 4, \"vocab_size\": 1000}";
	char *dir = ws_tmpdir(), *good = ws_join(dir, "good"), *bad = ws_join(dir, "bad");
	char *p = ws_write_file(dir, "config.json", cfg, strlen(cfg));
	mkmodel(good, p, NULL, NULL);
	mkmodel(bad, p, "--plant", "missing-ssm");
	ws_run r = ws_run_cli("check", good, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "\"layer_kind\":\"mamba\""), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("check", bad, "--json", NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	bool named = false;
	const cJSON *fd;
	cJSON_ArrayForEach(fd, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(fd, "code");
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(fd, "role");
		const cJSON *layer = cJSON_GetObjectItemCaseSensitive(fd, "layer");
		if (cJSON_IsString(code) && !strcmp(code->valuestring, "missing-tensor") &&
		    cJSON_IsString(role) && !strcmp(role->valuestring, "ssm_in") &&
		    cJSON_IsNumber(layer) && layer->valuedouble == 1)
			named = true;
	}
	cr_expect(named, "no missing ssm_in in block 1: %s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(p);
	free(good);
	free(bad);
	free(dir);
}

/* Jamba at full size: KV cache for its 4 attention layers only, and a
 * state per sequence for its 28 Mamba layers (conv window 3 × 8,192 and
 * state 8,192 × 16 each, in F32) */
Test(hybrid, jamba_flops_kv_and_state)
{
	static const char cfg[] = "{\"model_type\": \"jamba\", \"architectures\": [\"JambaForCausalLM\"],"
				  " \"torch_dtype\": \"bfloat16\"}";
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *p = ws_write_file(dir, "jamba.json", cfg, strlen(cfg));
	mkmodel(model, p, NULL, NULL);
	ws_run r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	ws_run_free(&r);
	r = ws_run_cli("flops", model, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(s, "kv_cache_bytes_per_token");
	const cJSON *kb = cJSON_GetObjectItemCaseSensitive(s, "kv_blocks");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "recurrent_state_bytes_per_sequence");
	/* 4 layers × (k 1,024 + v 1,024) × 2 bytes */
	cr_expect(cJSON_IsNumber(kv) && kv->valuedouble == 16384, "%s", r.out);
	cr_expect(cJSON_IsNumber(kb) && kb->valuedouble == 4, "%s", r.out);
	cr_expect(cJSON_IsNumber(st) && st->valuedouble == 28.0 * (8192 * 3 + 8192 * 16) * 4, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(p);
	free(model);
	free(dir);
}

/* Mamba2Config's defaults are Mamba-Codestral-7B-v0.1's sizes (its
 * num_heads are the SSM's): 7,285,403,648, and a checkpoint of them
 * checks clean */
Test(hybrid, mamba2_from_class_defaults)
{
	static const char cfg[] = "{\"model_type\": \"mamba2\", \"architectures\": [\"Mamba2ForCausalLM\"]}";
	struct ws_arch a;
	struct ws_formula f;
	formula_of_text(cfg, &a, &f);
	cr_expect_eq(f.total, 7285403648ull, "%llu", (unsigned long long)f.total);
	cr_expect_eq(a.ssm_heads, 128);
	cr_expect_eq(a.num_heads, 0);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 0), "mamba2");
	ws_formula_free(&f);
	ws_arch_free(&a);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *p = ws_write_file(dir, "mamba2.json", cfg, strlen(cfg));
	mkmodel(model, p, NULL, NULL);
	ws_run r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(p);
	free(model);
	free(dir);
}

/* Nemotron-H: each letter of hybrid_override_pattern is one layer: M a
 * Mamba-2 mixer, * attention, - a squared-ReLU MLP, each behind one
 * norm (NemotronHConfig's defaults: Nemotron-H-8B's sizes) */
Test(hybrid, nemotron_h_pattern)
{
	static const char cfg[] = "{\"model_type\": \"nemotron_h\", \"architectures\": [\"NemotronHForCausalLM\"],"
				  " \"hybrid_override_pattern\": \"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\"}";
	struct ws_arch a;
	struct ws_formula f;
	formula_of_text(cfg, &a, &f);
	cr_expect_eq(f.total, 8100852736ull, "%llu", (unsigned long long)f.total);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 0), "mamba2");
	cr_expect_str_eq(ws_arch_layer_kind(&a, 1), "dense");
	cr_expect_str_eq(ws_arch_layer_kind(&a, 7), "attention");
	cr_expect_not(ws_arch_layer_attends(&a, 0));
	ws_formula_free(&f);
	ws_arch_free(&a);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *p = ws_write_file(dir, "nemotron_h.json", cfg, strlen(cfg));
	mkmodel(model, p, NULL, NULL);
	ws_run r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	ws_run_free(&r);
	/* a letter that is no layer kind, a pattern of the wrong length */
	static const char *const bad[] = {
		"{\"model_type\": \"nemotron_h\", \"num_hidden_layers\": 3, \"hybrid_override_pattern\": \"M?-\"}",
		"{\"model_type\": \"nemotron_h\", \"num_hidden_layers\": 3, \"hybrid_override_pattern\": \"M-\"}",
	};
	for (size_t i = 0; i < 2; i++) {
		cJSON *c = cJSON_Parse(bad[i]);
		ws_error err = {0};
		cr_expect_eq(ws_arch_from_config(c, "c.json", &a, &err), -1, "%s", bad[i]);
		cr_expect(ws_contains(err.message, "hybrid_override_pattern"), "%s", err.message);
		cJSON_Delete(c);
	}
	ws_rmtree(dir);
	free(p);
	free(model);
	free(dir);
}

/* ==== Falcon-H1, Granite-4.0-H, LFM2, FalconMamba ==== */

/* The formula of a config file. */
static void
formula_of_file(const char *path, struct ws_arch *a, struct ws_formula *f)
{
	FILE *fp = fopen(path, "rb");
	cr_assert(fp, "%s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	formula_of_text(buf, a, f);
}

/* Released configs transcribed under testdata/hybrid (README there names
 * each source) and the totals they give. */
static const struct {
	const char *file;
	uint64_t total, active;
	const char *kind0, *kind_last; /* layer 0's and the last layer's kind */
	const char *plant_role;        /* the role missing-ssm takes from block 1 */
} released[] = {
	{"hybrid/tiiuae__falcon-mamba-7b.json", 7272665088ull, 7272665088ull, "mamba", "mamba", "ssm_in"},
	{"hybrid/tiiuae__Falcon-H1-7B-Instruct.json", 7585648736ull, 7585648736ull, "hybrid", "hybrid", "ssm_in"},
	{"hybrid/tiiuae__Falcon-H1-Tiny-90M-Base.json", 91131072ull, 91131072ull, "hybrid", "hybrid", "ssm_in"},
	{"hybrid/ibm-granite__granite-4.0-h-small.json", 32207337984ull, 8803121664ull, "mamba2", "mamba2",
	 "ssm_in"},
	{"hybrid/LiquidAI__LFM2-1.2B.json", 1170340608ull, 1170340608ull, "conv", "conv", "ssm_in"},
};

Test(hybrid, released_formula_totals)
{
	for (size_t i = 0; i < sizeof released / sizeof released[0]; i++) {
		char *p = ws_testdata_path(released[i].file);
		struct ws_arch a;
		struct ws_formula f;
		formula_of_file(p, &a, &f);
		cr_expect_eq(f.total, released[i].total, "%s: %llu", p, (unsigned long long)f.total);
		cr_expect_eq(f.active, released[i].active, "%s: active %llu", p, (unsigned long long)f.active);
		cr_expect_str_eq(ws_arch_layer_kind(&a, 0), released[i].kind0, "%s", p);
		cr_expect_str_eq(ws_arch_layer_kind(&a, a.num_layers - 1), released[i].kind_last, "%s", p);
		ws_formula_free(&f);
		ws_arch_free(&a);
		free(p);
	}
}

/* A missing-tensor finding of role in block `layer`? */
static bool
has_missing(const char *json, const char *role, int layer)
{
	cJSON *j = cJSON_Parse(json);
	bool named = false;
	const cJSON *fd;
	cJSON_ArrayForEach(fd, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(fd, "code");
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(fd, "role");
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(fd, "layer");
		if (cJSON_IsString(code) && !strcmp(code->valuestring, "missing-tensor") && cJSON_IsString(r) &&
		    !strcmp(r->valuestring, role) && cJSON_IsNumber(l) && l->valuedouble == layer)
			named = true;
	}
	cJSON_Delete(j);
	return named;
}

/* Each released config as a full-size sparse checkpoint with the released
 * tensor names checks clean with its total; without block 1's mixer
 * input projection it names that block. */
Test(hybrid, released_checkpoints_check, .timeout = 120)
{
	for (size_t i = 0; i < sizeof released / sizeof released[0]; i++) {
		char *p = ws_testdata_path(released[i].file);
		char *dir = ws_tmpdir(), *good = ws_join(dir, "good"), *bad = ws_join(dir, "bad");
		mkmodel(good, p, NULL, NULL);
		mkmodel(bad, p, "--plant", "missing-ssm");
		char expect[32];
		snprintf(expect, sizeof expect, "%llu", (unsigned long long)released[i].total);
		ws_run r = ws_run_cli("check", good, "--expect-params", expect, NULL);
		cr_expect_eq(r.status, 0, "%s: %s%s", p, r.out, r.err);
		ws_run_free(&r);
		r = ws_run_cli("check", bad, "--json", NULL);
		cr_expect_eq(r.status, 1, "%s: %s%s", p, r.out, r.err);
		cr_expect(has_missing(r.out, released[i].plant_role, 1), "%s: %s", p, r.out);
		ws_run_free(&r);
		ws_rmtree(dir);
		free(good);
		free(bad);
		free(dir);
		free(p);
	}
}

/* Falcon-H1: mamba_d_ssm null is mamba_expand × hidden (not the class's
 * 1,024); mamba_rms_norm adds the gated norm; the biases apart */
Test(hybrid, falcon_h1_config_rules)
{
	static const char base[] = "{\"model_type\": \"falcon_h1\", \"hidden_size\": 256, \"num_hidden_layers\": 2,"
				   " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"intermediate_size\": 512,"
				   " \"vocab_size\": 1000, \"mamba_n_heads\": 8, \"mamba_d_state\": 16";
	char cfg[512];
	struct ws_arch a;
	struct ws_formula f;
	snprintf(cfg, sizeof cfg, "%s, \"mamba_d_ssm\": null}", base);
	formula_of_text(cfg, &a, &f);
	cr_expect_eq(a.ssm_inner, 512);
	uint64_t no_norm = f.total;
	cr_expect_eq(f.by_role[WS_ROLE_SSM_NORM], 0);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_Q], 2 * 256 * 256);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 1), "hybrid");
	cr_expect(ws_arch_layer_attends(&a, 1));
	ws_formula_free(&f);
	ws_arch_free(&a);
	snprintf(cfg, sizeof cfg, "%s, \"mamba_d_ssm\": null, \"mamba_rms_norm\": true, \"projectors_bias\": true}", base);
	formula_of_text(cfg, &a, &f);
	cr_expect_eq(f.by_role[WS_ROLE_SSM_NORM], 2 * 512);
	cr_expect_eq(f.total, no_norm + 2 * 512 + 2 * 256, "%llu", (unsigned long long)f.total);
	ws_formula_free(&f);
	ws_arch_free(&a);
	/* absent: the class default, 1,024 */
	snprintf(cfg, sizeof cfg, "%s}", base);
	formula_of_text(cfg, &a, &f);
	cr_expect_eq(a.ssm_inner, 1024);
	ws_formula_free(&f);
	ws_arch_free(&a);
}

/* Granite-4.0-H: all Mamba without layer_types; without experts the
 * shared MLP is the whole feed-forward */
Test(hybrid, granite_h_dense_and_moe)
{
	struct ws_arch a;
	struct ws_formula f;
	formula_of_text("{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 256, \"num_hidden_layers\": 3,"
			" \"num_attention_heads\": 4, \"vocab_size\": 1000, \"mamba_n_heads\": 8,"
			" \"num_local_experts\": 0, \"shared_intermediate_size\": 384}", &a, &f);
	for (uint64_t i = 0; i < 3; i++)
		cr_expect_str_eq(ws_arch_layer_kind(&a, i), "mamba2");
	cr_expect_eq(f.by_role[WS_ROLE_FFN_GATE_UP], 3ull * 2 * 384 * 256);
	cr_expect_eq(f.by_role[WS_ROLE_MOE_ROUTER], 0);
	ws_formula_free(&f);
	ws_arch_free(&a);
	formula_of_text("{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 256, \"num_hidden_layers\": 2,"
			" \"num_attention_heads\": 4, \"vocab_size\": 1000, \"mamba_n_heads\": 8,"
			" \"layer_types\": [\"attention\", \"mamba\"], \"num_local_experts\": 4,"
			" \"num_experts_per_tok\": 2, \"intermediate_size\": 64, \"shared_intermediate_size\": 384}", &a, &f);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 0), "attention");
	cr_expect(ws_arch_layer_is_moe(&a, 0));
	cr_expect_eq(f.by_role[WS_ROLE_FFN_GATE_UP], 2ull * 2 * 384 * 256);
	cr_expect_eq(f.by_role[WS_ROLE_MOE_GATE_UP], 2ull * 4 * 2 * 64 * 256);
	ws_formula_free(&f);
	ws_arch_free(&a);
}

/* LFM2: layer_types or full_attn_idxs; the feed-forward width adjusted
 * (2/3, multiplier, multiple) unless block_auto_adjust_ff_dim is false */
Test(hybrid, lfm2_layers_and_ff_width)
{
	struct ws_arch a;
	struct ws_formula f;
	static const char *const same[] = {
		"{\"model_type\": \"lfm2\", \"hidden_size\": 256, \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
		" \"intermediate_size\": 1000, \"full_attn_idxs\": [1, 3]}",
		"{\"model_type\": \"lfm2\", \"hidden_size\": 256, \"num_hidden_layers\": 4, \"num_attention_heads\": 4,"
		" \"block_ff_dim\": 1000, \"layer_types\": [\"conv\", \"full_attention\", \"conv\", \"full_attention\"]}",
	};
	for (size_t i = 0; i < 2; i++) {
		formula_of_text(same[i], &a, &f);
		cr_expect_str_eq(ws_arch_layer_kind(&a, 0), "conv", "%s", same[i]);
		cr_expect_str_eq(ws_arch_layer_kind(&a, 1), "attention", "%s", same[i]);
		cr_expect_not(ws_arch_layer_attends(&a, 2));
		/* int(2 × 1000 / 3) = 666, rounded up to 768 */
		cr_expect_eq(a.intermediate_size, 768, "%llu", (unsigned long long)a.intermediate_size);
		cr_expect_eq(f.by_role[WS_ROLE_SSM_IN], 2ull * 3 * 256 * 256);
		ws_formula_free(&f);
		ws_arch_free(&a);
	}
	formula_of_text("{\"model_type\": \"lfm2\", \"hidden_size\": 256, \"num_hidden_layers\": 2, \"num_attention_heads\": 4,"
			" \"intermediate_size\": 1000, \"block_auto_adjust_ff_dim\": false}", &a, &f);
	cr_expect_eq(a.intermediate_size, 1000);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 0), "attention");  /* neither list: all attention */
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON *c = cJSON_Parse("{\"model_type\": \"lfm2\", \"num_hidden_layers\": 4, \"full_attn_idxs\": [1, 4]}");
	ws_error err = {0};
	cr_expect_eq(ws_arch_from_config(c, "c.json", &a, &err), -1);
	cr_expect(ws_contains(err.message, "full_attn_idxs"), "%s", err.message);
	cJSON_Delete(c);
}

/* inspect's per-layer table names each run's block kind in a hybrid stack */
Test(hybrid, per_layer_kind_in_text)
{
	char *p = ws_testdata_path("hybrid/LiquidAI__LFM2-1.2B.json");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, p, NULL, NULL);
	ws_run r = ws_run_cli("inspect", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "layers 0-1 "), "%s", r.out);
	cr_expect(ws_contains(r.out, "conv dense"), "%s", r.out);
	cr_expect(ws_contains(r.out, "attention dense"), "%s", r.out);
	ws_run_free(&r);
	/* ls names each block's kind beside its index */
	r = ws_run_cli("ls", model, "--layer", "2", NULL);
	cr_expect(ws_contains(r.out, "attention 2"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("ls", model, "--layer", "3", NULL);
	cr_expect(ws_contains(r.out, "conv 3"), "%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(p);
}

/* Nemotron-H's E letter (Nemotron-3): a MoE layer of squared-ReLU
 * experts (up and down, no gate), shared experts alike, a router with a
 * score-correction bias; a checkpoint checks, one with a latent MoE
 * (moe_latent_size) is said to be unmodelled */
Test(hybrid, nemotron_h_moe_letter)
{
	static const char cfg[] =
		"{\"model_type\": \"nemotron_h\", \"architectures\": [\"NemotronHForCausalLM\"], \"hidden_size\": 256,"
		" \"num_hidden_layers\": 6, \"hybrid_override_pattern\": \"ME*EME\", \"num_attention_heads\": 4,"
		" \"num_key_value_heads\": 2, \"head_dim\": 64, \"mamba_num_heads\": 8, \"mamba_head_dim\": 32,"
		" \"ssm_state_size\": 16, \"n_groups\": 2, \"vocab_size\": 1000, \"n_routed_experts\": 8,"
		" \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 96, \"moe_shared_expert_intermediate_size\": 192,"
		" \"n_shared_experts\": 1, \"moe_latent_size\": null, \"intermediate_size\": 512}";
	struct ws_arch a;
	struct ws_formula f;
	formula_of_text(cfg, &a, &f);
	cr_expect_str_eq(ws_arch_layer_kind(&a, 1), "moe");
	cr_expect(ws_arch_layer_is_moe(&a, 3));
	cr_expect_not(ws_arch_layer_is_moe(&a, 2));
	/* 3 MoE layers: router 8 × 256 and its bias 8, experts 8 × 2 × 96 × 256, shared 2 × 192 × 256 */
	cr_expect_eq(f.by_role[WS_ROLE_MOE_GATE], 0);
	cr_expect_eq(f.by_role[WS_ROLE_MOE_UP], 3ull * 8 * 96 * 256);
	cr_expect_eq(f.by_role[WS_ROLE_MOE_SHARED_UP], 3ull * 192 * 256);
	cr_expect_eq(f.by_role[WS_ROLE_MOE_ROUTER_BIAS], 3ull * 8);
	cr_expect_eq(f.total, 2624968ull, "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.active, 1740232ull, "%llu", (unsigned long long)f.active);
	ws_formula_free(&f);
	ws_arch_free(&a);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *p = ws_write_file(dir, "nemotron3.json", cfg, strlen(cfg));
	mkmodel(model, p, NULL, NULL);
	ws_run r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	ws_run_free(&r);
	/* expert 2 of the first MoE layer (block 1) dropped: named */
	char *bad = ws_join(dir, "bad");
	mkmodel(bad, p, "--plant", "missing-expert");
	r = ws_run_cli("check", bad, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "block 1 has no moe_up weight for expert 2"), "%s", r.out);
	ws_run_free(&r);
	free(bad);
	ws_rmtree(dir);
	free(p);
	free(model);
	free(dir);
	cJSON *c = cJSON_Parse("{\"model_type\": \"nemotron_h\", \"num_hidden_layers\": 2, \"hybrid_override_pattern\": \"ME\","
			       " \"n_routed_experts\": 8, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 96,"
			       " \"moe_latent_size\": 1024}");
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(c, "c.json", &a, &err), 0, "%s", err.message);
	cr_expect_not(a.known);
	cr_expect(a.unsupported && ws_contains(a.unsupported, "moe_latent_size"));
	ws_arch_free(&a);
	cJSON_Delete(c);
}

/* The GGUF llama.cpp's converter writes (mkmodel --format gguf): each
 * layer's kind read back from the per-layer head_count_kv, a pattern's
 * feed_forward_length or full_attention_interval, the mixers' sizes from
 * {arch}.ssm.*; the totals those of the safetensors form (Qwen3-Next's
 * without its MTP block, which the converter drops) */
static const struct {
	const char *file;      /* under testdata/, or a real config under ../shared */
	bool shared;
	uint64_t total;
	int attn_layer;        /* a layer that attends, or -1 */
	int other_layer;       /* one that does not */
	const char *other_kind;
	const char *plant_role;
} gguf_cases[] = {
	{"hybrid/tiiuae__falcon-mamba-7b.json", false, 7272665088ull, -1, 1, "mamba", "ssm_in"},
	{"hybrid/tiiuae__Falcon-H1-7B-Instruct.json", false, 7585648736ull, 1, -1, NULL, "ssm_in"},
	{"hybrid/ibm-granite__granite-4.0-h-small.json", false, 32207337984ull, 5, 6, "mamba2", "ssm_in"},
	{"hybrid/LiquidAI__LFM2-1.2B.json", false, 1170340608ull, 2, 3, "conv", "ssm_in"},
	{"configs/state-spaces__mamba-130m-hf.json", true, 129135360ull, -1, 0, "mamba", "ssm_in"},
	{"configs/ai21labs__AI21-Jamba-Mini-1.5.json", true, 51570323328ull, 4, 5, "mamba", "ssm_in"},
	{"configs/Qwen__Qwen3-Next-80B-A3B-Instruct.json", true, 79674391296ull, 3, 4, "linear_attention", NULL},
};

static char *
case_path(size_t i)
{
	if (!gguf_cases[i].shared)
		return ws_testdata_path(gguf_cases[i].file);
	const char *sh = getenv("WS_SHARED");
	if (!sh)
		return NULL;
	char *dir = ws_join(sh, "realdata"), *p = ws_join(dir, gguf_cases[i].file);
	free(dir);
	return p;
}

/* layer_kind of block `layer` in ls --json */
static bool
ls_kind(const char *json, int layer, const char *kind)
{
	cJSON *j = cJSON_Parse(json);
	bool ok = false;
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tensors")) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(t, "layer");
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(t, "layer_kind");
		if (cJSON_IsNumber(l) && l->valuedouble == layer && cJSON_IsString(k) && !strcmp(k->valuestring, kind))
			ok = true;
	}
	cJSON_Delete(j);
	return ok;
}

Test(hybrid, gguf_forms_check, .timeout = 180)
{
	for (size_t i = 0; i < sizeof gguf_cases / sizeof gguf_cases[0]; i++) {
		char *p = case_path(i);
		if (!p || access(p, R_OK) != 0) {
			free(p);
			continue;  /* a real config without WS_SHARED */
		}
		char *dir = ws_tmpdir(), *good = ws_join(dir, "good"), *bad = ws_join(dir, "bad");
		char *argv[] = {getenv("WS_MKMODEL"), good, p, "--format", "gguf", NULL};
		ws_run r = ws_run_argv(argv);
		cr_assert_eq(r.status, 0, "mkmodel %s: %s", p, r.err);
		ws_run_free(&r);
		char *argv2[] = {getenv("WS_MKMODEL"), bad, p, "--format", "gguf", "--plant", "missing-ssm", NULL};
		r = ws_run_argv(argv2);
		cr_assert_eq(r.status, 0, "mkmodel %s: %s", p, r.err);
		ws_run_free(&r);
		char expect[32];
		snprintf(expect, sizeof expect, "%llu", (unsigned long long)gguf_cases[i].total);
		r = ws_run_cli("check", good, "--expect-params", expect, NULL);
		cr_expect_eq(r.status, 0, "%s: %s%s", p, r.out, r.err);
		ws_run_free(&r);
		r = ws_run_cli("ls", good, "--json", NULL);
		if (gguf_cases[i].attn_layer >= 0)
			cr_expect(ls_kind(r.out, gguf_cases[i].attn_layer,
					  gguf_cases[i].other_layer < 0 ? "hybrid" : "attention"),
				  "%s: layer %d", p, gguf_cases[i].attn_layer);
		if (gguf_cases[i].other_layer >= 0)
			cr_expect(ls_kind(r.out, gguf_cases[i].other_layer, gguf_cases[i].other_kind), "%s: layer %d", p,
				  gguf_cases[i].other_layer);
		ws_run_free(&r);
		r = ws_run_cli("check", bad, "--json", NULL);
		cr_expect_eq(r.status, 1, "%s: %s%s", p, r.out, r.err);
		if (gguf_cases[i].plant_role)
			cr_expect(has_missing(r.out, gguf_cases[i].plant_role, 1), "%s: %s", p, r.out);
		ws_run_free(&r);
		ws_rmtree(dir);
		free(good);
		free(bad);
		free(dir);
		free(p);
	}
}

/* A per-layer head_count_kv of another length than block_count: the
 * metadata is unusable, said naming the key */
Test(hybrid, gguf_layer_array_length)
{
	char *p = ws_testdata_path("hybrid/LiquidAI__LFM2-1.2B.json");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "m");
	char *argv[] = {getenv("WS_MKMODEL"), model, p, "--format", "gguf", "--meta", "block_count=15", NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "'lfm2.attention.head_count_kv': 16 entries for 15 blocks"), "%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(p);
}

/* Nemotron-H in GGUF: llama.cpp's nemotron_h (NemotronHConfig's defaults
 * with the 8B pattern) and, with experts, nemotron_h_moe; the MLP-only
 * and MoE layers told by the per-layer feed_forward_length; Mamba-2
 * (ssm.time_step_rank its head count) */
Test(hybrid, gguf_nemotron_h)
{
	static const struct {
		const char *cfg;
		uint64_t total;
		const char *arch;
	} cases[] = {
		{"{\"model_type\": \"nemotron_h\", \"architectures\": [\"NemotronHForCausalLM\"],"
		 " \"hybrid_override_pattern\": \"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\"}",
		 8100852736ull, "\"nemotron_h\""},
		{"{\"model_type\": \"nemotron_h\", \"architectures\": [\"NemotronHForCausalLM\"], \"hidden_size\": 256,"
		 " \"num_hidden_layers\": 6, \"hybrid_override_pattern\": \"ME*EME\", \"num_attention_heads\": 4,"
		 " \"num_key_value_heads\": 2, \"head_dim\": 64, \"mamba_num_heads\": 8, \"mamba_head_dim\": 32,"
		 " \"ssm_state_size\": 16, \"n_groups\": 2, \"vocab_size\": 1000, \"n_routed_experts\": 8,"
		 " \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 96, \"moe_shared_expert_intermediate_size\": 192,"
		 " \"n_shared_experts\": 1, \"intermediate_size\": 512}",
		 2624968ull, "\"nemotron_h_moe\""},
		/* and Mamba-2 (Mamba2Config's defaults) */
		{"{\"model_type\": \"mamba2\", \"architectures\": [\"Mamba2ForCausalLM\"]}", 7285403648ull, "\"mamba2\""},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *dir = ws_tmpdir(), *model = ws_join(dir, "m");
		char *p = ws_write_file(dir, "config.json", cases[i].cfg, strlen(cases[i].cfg));
		mkmodel(model, p, "--format", "gguf");
		char expect[32];
		snprintf(expect, sizeof expect, "%llu", (unsigned long long)cases[i].total);
		ws_run r = ws_run_cli("check", model, "--expect-params", expect, NULL);
		cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
		ws_run_free(&r);
		r = ws_run_cli("meta", model, "--key", "general.architecture", NULL);
		cr_expect(ws_contains(r.out, cases[i].arch), "%s", r.out);
		ws_run_free(&r);
		ws_rmtree(dir);
		free(p);
		free(model);
		free(dir);
	}
}

/* flops: Falcon-H1's layers keep a KV cache and a Mamba-2 state each;
 * LFM2 a KV cache in its 6 attention layers, a conv window (L_cache - 1
 * inputs of the hidden width, F32) in its 10 short-convolution layers */
Test(hybrid, flops_parallel_and_short_conv)
{
	static const struct {
		const char *file;
		double kv, blocks, state;
	} cases[] = {
		/* 24 × (k, v: 2 heads × 64) × 2 bytes; 24 × ((768 + 2 × 64) × 3 + 768 × 64) × 4 */
		{"hybrid/tiiuae__Falcon-H1-Tiny-90M-Base.json", 24.0 * 256 * 2, 24, 24.0 * (896 * 3 + 768 * 64) * 4},
		/* 6 × (8 heads × 64) × 2 × 2 bytes; 10 × 2,048 × 2 × 4 */
		{"hybrid/LiquidAI__LFM2-1.2B.json", 6.0 * 1024 * 2, 6, 10.0 * 2048 * 2 * 4},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = ws_testdata_path(cases[i].file);
		char *dir = ws_tmpdir(), *model = ws_join(dir, "m");
		mkmodel(model, p, NULL, NULL);
		ws_run r = ws_run_cli("flops", model, "--json", NULL);
		cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
		cJSON *j = cJSON_Parse(r.out);
		const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
		const cJSON *kv = cJSON_GetObjectItemCaseSensitive(s, "kv_cache_bytes_per_token");
		const cJSON *kb = cJSON_GetObjectItemCaseSensitive(s, "kv_blocks");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(s, "recurrent_state_bytes_per_sequence");
		cr_expect(cJSON_IsNumber(kv) && kv->valuedouble == cases[i].kv, "%s: %s", p, r.out);
		cr_expect(cJSON_IsNumber(kb) && kb->valuedouble == cases[i].blocks, "%s: %s", p, r.out);
		cr_expect(cJSON_IsNumber(st) && st->valuedouble == cases[i].state, "%s: %s", p, r.out);
		cJSON_Delete(j);
		ws_run_free(&r);
		ws_rmtree(dir);
		free(model);
		free(dir);
		free(p);
	}
}
