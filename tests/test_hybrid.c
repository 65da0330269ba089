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
