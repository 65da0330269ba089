/* test_catalogue.c - the architecture catalogue: config reading as
 * transformers does it (class defaults, the class's head, model_type from
 * `architectures`) and the model types added through it, against the
 * published totals of real models. */
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
#include "ws/formula.h"
#include "testutil.h"

static uint64_t
total_of_json(const char *json, uint64_t *mtp)
{
	cJSON *cfg = cJSON_Parse(json);
	cr_assert(cfg, "bad test JSON");
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	uint64_t t = f.total;
	if (mtp)
		*mtp = f.mtp;
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	return t;
}

static bool
defaulted(const struct ws_arch *a, const char *key)
{
	for (uint32_t i = 0; i < a->n_defaulted; i++)
		if (strcmp(a->defaulted[i], key) == 0)
			return true;
	return false;
}

/* ==== published totals from the released configs ==== */

static const struct real {
	const char *file;
	uint64_t total, active, mtp;  /* active 0: dense */
} reals[] = {
	{"configs/intfloat__e5-mistral-7b-instruct.json", 7110660096ull, 0, 0},
	{"configs/ibm-granite__granite-3.3-8b-instruct.json", 8170864640ull, 0, 0},
	{"configs/HuggingFaceTB__SmolLM3-3B-Base.json", 3075098624ull, 0, 0},
	{"configs/allenai__OLMoE-1B-7B-0924.json", 6919161856ull, 1282017280ull, 0},
	{"configs/allenai__Olmo-3-1025-7B.json", 7298011136ull, 0, 0},
	{"configs/zai-org__GLM-4.5-Air.json", 106852251264ull, 0, 3616573568ull},
	{"configs/google__gemma-3-4b-it.json", 3880263168ull, 0, 0},
	{"configs/tiiuae__falcon-40b.json", 41303293952ull, 0, 0},
	{"configs/tiiuae__falcon-7b.json", 6921720704ull, 0, 0},
	/* state-space and hybrid stacks (tied head; attention every 8th
	 * layer and MoE every 2nd; Gated DeltaNet with its MTP block apart) */
	{"configs/state-spaces__mamba-130m-hf.json", 129135360ull, 0, 0},
	{"configs/ai21labs__AI21-Jamba-Mini-1.5.json", 51570323328ull, 12110311296ull, 0},
	{"configs/Qwen__Qwen3-Next-80B-A3B-Instruct.json", 79674391296ull, 3874929408ull, 1650471424ull},
};

Test(catalogue, published_totals)
{
	for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
		char *p = ws_shared_path(reals[i].file);
		if (!p)
			cr_skip_test("../shared is absent");
		FILE *probe = fopen(p, "rb");
		if (!probe) {
			free(p);
			continue;
		}
		fclose(probe);
		cJSON *cfg = ws_load_json(p);
		struct ws_arch a;
		struct ws_formula f;
		ws_formula_of(cfg, &a, &f);
		cr_expect_eq(f.total, reals[i].total, "%s: %llu, expected %llu", reals[i].file,
			     (unsigned long long)f.total, (unsigned long long)reals[i].total);
		if (reals[i].active)
			cr_expect_eq(f.active, reals[i].active, "%s: active %llu", reals[i].file,
				     (unsigned long long)f.active);
		cr_expect_eq(f.mtp, reals[i].mtp, "%s: mtp %llu", reals[i].file,
			     (unsigned long long)f.mtp);
		ws_formula_free(&f);
		ws_arch_free(&a);
		cJSON_Delete(cfg);
		free(p);
	}
}

/* ==== the head a class adds ==== */

#define LLAMA1(h, i, n, l, cls) \
	"{\"model_type\": \"llama\", \"architectures\": [\"" cls "\"], \"hidden_size\": " #h \
	", \"intermediate_size\": " #i ", \"num_attention_heads\": " #n \
	", \"num_hidden_layers\": " #l ", \"vocab_size\": 32000}"

Test(catalogue, base_model_class_has_no_head)
{
	cr_expect_eq(total_of_json(LLAMA1(4096, 11008, 32, 32, "LlamaModel"), NULL), 6607343616ull);
	cr_expect_eq(total_of_json(LLAMA1(8192, 22016, 64, 80, "LlamaModel"), NULL), 65023516672ull);
	/* the same configs under the causal-LM class keep their head */
	cr_expect_eq(total_of_json(LLAMA1(4096, 11008, 32, 32, "LlamaForCausalLM"), NULL), 6738415616ull);
	cr_expect_eq(total_of_json(LLAMA1(8192, 22016, 64, 80, "LlamaForCausalLM"), NULL), 65285660672ull);
}

Test(catalogue, base_model_class_in_json_and_text)
{
	cJSON *cfg = cJSON_Parse(LLAMA1(4096, 11008, 32, 32, "LlamaModel"));
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect(a.no_head);
	cr_expect_eq(f.by_role[WS_ROLE_LM_HEAD], 0);
	cJSON *j = ws_arch_to_json(&a);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "head");
	cr_expect(cJSON_IsString(h) && strcmp(h->valuestring, "none") == 0);
	cJSON_Delete(j);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* ==== model_type from `architectures` ==== */

Test(catalogue, model_type_from_architectures)
{
	const char *json = "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 4096,"
			   " \"intermediate_size\": 11008, \"num_attention_heads\": 32,"
			   " \"num_hidden_layers\": 32, \"vocab_size\": 32000}";
	cJSON *cfg = cJSON_Parse(json);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_str_eq(a.architecture, "llama");
	cr_expect_eq(f.total, 6738415616ull);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(catalogue, nothing_known_says_why)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{"{\"hidden_size\": 64}", "neither 'model_type' nor 'architectures'"},
		{"{\"architectures\": [\"NoSuchForCausalLM\"]}", "not in the catalogue"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *cfg = cJSON_Parse(cases[i].json);
		struct ws_arch a;
		ws_error err = {0};
		cr_assert_eq(ws_arch_from_config(cfg, "config.json", &a, &err), 0, "%s", err.message);
		cr_expect(!a.known);
		cr_expect(a.unsupported && ws_contains(a.unsupported, "architecture unknown") &&
			  ws_contains(a.unsupported, cases[i].why), "%s", a.unsupported);
		ws_arch_free(&a);
		cJSON_Delete(cfg);
	}
}

Test(catalogue, unknown_config_prints_no_zeros)
{
	char *dir = ws_tmpdir();
	const char *json = "{\"hidden_size\": 0}";
	char *p = ws_write_file(dir, "config.json", json, strlen(json));
	ws_run r = ws_run_cli("formula", p, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "architecture unknown"), "%s", r.out);
	cr_expect(!ws_contains(r.out, "hidden 0"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("formula", p, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "architecture unknown"), "%s", r.out);
	cr_expect(!ws_contains(r.out, "\"hidden_size\":0") && !ws_contains(r.out, "\"num_layers\":0"),
		  "%s", r.out);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== class defaults ==== */

Test(catalogue, gemma3_text_config_relies_on_class_defaults)
{
	/* gemma-3-4b-it's config as released: the text_config gives three
	 * widths; heads, kv heads, head_dim and the vocabulary are the
	 * Gemma3TextConfig defaults */
	const char *json =
		"{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"model_type\": \"gemma3\","
		" \"text_config\": {\"hidden_size\": 2560, \"intermediate_size\": 10240,"
		" \"model_type\": \"gemma3_text\", \"num_hidden_layers\": 34, \"sliding_window\": 1024},"
		" \"vision_config\": {\"hidden_size\": 1152, \"model_type\": \"siglip_vision_model\"}}";
	cJSON *cfg = cJSON_Parse(json);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.total, 3880263168ull, "%llu", (unsigned long long)f.total);
	cr_expect_eq(a.num_heads, 8);
	cr_expect_eq(a.num_kv_heads, 4);
	cr_expect_eq(a.head_dim, 256);
	cr_expect(defaulted(&a, "num_attention_heads") && defaulted(&a, "head_dim") &&
		  defaulted(&a, "vocab_size") && defaulted(&a, "tie_word_embeddings"));
	cr_expect(!defaulted(&a, "hidden_size"), "a value in the file is not a default");
	cJSON *j = ws_arch_to_json(&a);
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "defaulted");
	cr_expect(cJSON_IsArray(d) && cJSON_GetArraySize(d) == (int)a.n_defaulted);
	cJSON_Delete(j);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(catalogue, a_default_never_hides_an_alias_in_the_file)
{
	/* n_head in the file wins over the class default of num_attention_heads */
	const char *json = "{\"model_type\": \"gemma3_text\", \"hidden_size\": 2560,"
			   " \"intermediate_size\": 10240, \"num_hidden_layers\": 2,"
			   " \"n_head\": 10, \"head_dim\": 256}";
	cJSON *cfg = cJSON_Parse(json);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(a.num_heads, 10);
	cr_expect(!defaulted(&a, "num_attention_heads"));
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* ==== the original Falcon code's two layouts ==== */

Test(catalogue, refinedweb_layouts)
{
	/* 7B code, multi-query, parallel attention: one norm per layer */
	const char *rw7 = "{\"model_type\": \"RefinedWebModel\", \"hidden_size\": 4544,"
			  " \"n_head\": 71, \"n_layer\": 32, \"multi_query\": true,"
			  " \"parallel_attn\": true, \"bias\": false, \"vocab_size\": 65024}";
	cr_expect_eq(total_of_json(rw7, NULL), 6921720704ull);
	/* 40B code (n_head_kv): ln_attn and ln_mlp, grouped kv heads */
	const char *rw40 = "{\"model_type\": \"RefinedWeb\", \"hidden_size\": 8192,"
			   " \"n_head\": 128, \"n_head_kv\": 8, \"n_layer\": 60,"
			   " \"parallel_attn\": true, \"bias\": false, \"vocab_size\": 65024}";
	cr_expect_eq(total_of_json(rw40, NULL), 41303293952ull);
}

/* ==== EXAONE 4: post-norm layers, per-head q/k norms ==== */

Test(catalogue, exaone4_body_without_embeddings)
{
	/* EXAONE-4.0-32B: the model card's "30.95B without embeddings" */
	const char *json = "{\"model_type\": \"exaone4\", \"hidden_size\": 5120,"
			   " \"intermediate_size\": 27392, \"num_hidden_layers\": 64,"
			   " \"num_attention_heads\": 40, \"num_key_value_heads\": 8, \"head_dim\": 128,"
			   " \"vocab_size\": 102400, \"tie_word_embeddings\": false}";
	cJSON *cfg = cJSON_Parse(json);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.total - f.by_role[WS_ROLE_EMBED] - f.by_role[WS_ROLE_LM_HEAD], 30954640384ull,
		     "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_Q_NORM], 64ull * 128);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_NORM], 0);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* ==== check on full-size sparse checkpoints with the released names ==== */



/* mkmodel DIR CONFIG --shards 3 and up to three options */
static void
mkmodel3(const char *dir, const char *config, const char *opt, const char *opt2, const char *opt3)
{
	char *argv[] = {getenv("WS_MKMODEL"), (char *)dir, (char *)config, "--shards", "3",
			(char *)opt, opt ? (char *)opt2 : NULL, opt && opt2 ? (char *)opt3 : NULL,
			NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

static void
mkmodel(const char *dir, const char *config, const char *opt)
{
	mkmodel3(dir, config, opt, NULL, NULL);
}

/* A count of a parsed document: a JSON number is a double, exact only
 * below 2^53, which every count here is. */
static uint64_t
json_u64(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	cr_assert(cJSON_IsNumber(x), "%s.%s is missing", a, b ? b : "");
	cr_assert(x->valuedouble >= 0 && x->valuedouble < 9007199254740992.0 &&
		  x->valuedouble == (double)(uint64_t)x->valuedouble, "%s.%s: %g is not exact", a, b,
		  x->valuedouble);
	return (uint64_t)x->valuedouble;
}

/* The integer `key` of the "formula" object as printed: the digits
 * themselves, never through a double; 0 when the object lacks it. */
static uint64_t
formula_text_u64(const char *out, const char *key)
{
	const char *f = strstr(out, "\"formula\":{");
	cr_assert(f, "no formula object in %s", out);
	const char *end = strstr(f, "\"by_role\"");
	char pat[48];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *k = strstr(f, pat);
	if (!k || (end && k > end))
		return 0;
	return strtoull(k + strlen(pat), NULL, 10);
}

/* A raw number of a JSON tree the library built (exact integers are
 * cJSON raw items): its text. */
static const char *
raw_text(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	cr_assert(cJSON_IsRaw(x), "%s is not a raw number", key);
	return x->valuestring;
}

/* Generate dir from config, check it: exit 0, the published params,
 * formula `main` plus its MTP part equal to them (read from the JSON
 * text exactly), and no finding but `warn` (when not NULL: exactly that
 * one). */
static void
check_published(const char *config, uint64_t params, uint64_t main, uint64_t mtp, const char *opt,
		const char *warn)
{
	char *dir = ws_tmpdir();
	char *model = ws_join(dir, "model");
	mkmodel(model, config, opt);
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s: exit %d: %s%s", config, r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s: not JSON: %s", config, r.out);
	cr_expect_eq(json_u64(j, "params", "total"), params, "%s: params %llu", config,
		     (unsigned long long)json_u64(j, "params", "total"));
	uint64_t f = formula_text_u64(r.out, "total"), fm = formula_text_u64(r.out, "mtp");
	cr_expect_eq(f, main, "%s: formula.total %llu", config, (unsigned long long)f);
	cr_expect_eq(f, json_u64(j, "formula", "total"));
	cr_expect_eq(fm, mtp, "%s: formula.mtp %llu", config, (unsigned long long)fm);
	cr_expect_eq(f + fm, params, "%s: formula %llu + mtp %llu", config,
		     (unsigned long long)f, (unsigned long long)fm);
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(j, "findings");
	cr_expect_eq(cJSON_GetArraySize(fs), warn ? 1 : 0, "%s: findings in %s", config, r.out);
	if (warn && cJSON_GetArraySize(fs) == 1) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(fs, 0), "code");
		cr_expect(cJSON_IsString(code) && strcmp(code->valuestring, warn) == 0,
			  "%s: %s", config, r.out);
	}
	cJSON_Delete(j);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
}

Test(catalogue, check_llama1_base_model_checkpoints)
{
	char *dir = ws_tmpdir();
	const char *c7 = LLAMA1(4096, 11008, 32, 32, "LlamaModel");
	const char *c65 = LLAMA1(8192, 22016, 64, 80, "LlamaModel");
	char *p7 = ws_write_file(dir, "llama1-7b.json", c7, strlen(c7));
	char *p65 = ws_write_file(dir, "llama1-65b.json", c65, strlen(c65));
	check_published(p7, 6607343616ull, 6607343616ull, 0, NULL, NULL);
	check_published(p65, 65023516672ull, 65023516672ull, 0, NULL, NULL);
	free(p7);
	free(p65);
	ws_rmtree(dir);
	free(dir);
}

static const struct published {
	const char *file;
	uint64_t params, main, mtp;   /* params = main + mtp */
	const char *opt, *warn;
} published[] = {
	{"configs/intfloat__e5-mistral-7b-instruct.json", 7110660096ull, 7110660096ull, 0, NULL, NULL},
	{"configs/ibm-granite__granite-3.3-8b-instruct.json", 8170864640ull, 8170864640ull, 0, NULL, NULL},
	{"configs/HuggingFaceTB__SmolLM3-3B-Base.json", 3075098624ull, 3075098624ull, 0, NULL, NULL},
	{"configs/allenai__OLMoE-1B-7B-0924.json", 6919161856ull, 6919161856ull, 0, NULL, NULL},
	{"configs/allenai__Olmo-3-1025-7B.json", 7298011136ull, 7298011136ull, 0, NULL, NULL},
	/* the MTP layer (model.layers.46) is counted, apart in formula.mtp */
	{"configs/zai-org__GLM-4.5-Air.json", 110468824832ull, 106852251264ull, 3616573568ull, NULL, NULL},
	/* the original Falcon code ties by default, and the released
	 * checkpoints store the head anyway: a copy, counted once */
	{"configs/tiiuae__falcon-7b.json", 6921720704ull, 6921720704ull, 0, "--tie-head-copy", "tied-embeddings"},
	{"configs/tiiuae__falcon-40b.json", 41303293952ull, 41303293952ull, 0, "--tie-head-copy", "tied-embeddings"},
	{"configs/state-spaces__mamba-130m-hf.json", 129135360ull, 129135360ull, 0, NULL, NULL},
	{"configs/ai21labs__AI21-Jamba-Mini-1.5.json", 51570323328ull, 51570323328ull, 0, NULL, NULL},
	/* mtp.* (fc, its norms, one attention MoE layer) apart */
	{"configs/Qwen__Qwen3-Next-80B-A3B-Instruct.json", 81324862720ull, 79674391296ull, 1650471424ull, NULL, NULL},
};

Test(catalogue, check_released_checkpoints)
{
	for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
		char *p = ws_shared_path(published[i].file);
		if (!p)
			cr_skip_test("../shared is absent");
		FILE *probe = fopen(p, "rb");
		if (probe) {
			fclose(probe);
			check_published(p, published[i].params, published[i].main, published[i].mtp,
					published[i].opt, published[i].warn);
		}
		free(p);
	}
}

Test(catalogue, check_gemma3_every_component_has_its_formula)
{
	char *cfg = ws_shared_path("configs/google__gemma-3-4b-it.json");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir();
	char *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "exit %d: %s%s", r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	/* the model's formula is its components' sum, each equal */
	cr_expect_eq(json_u64(j, "params", "total"), 4300079472ull);
	cr_expect_eq(json_u64(j, "formula", "total"), 4300079472ull);
	const cJSON *bc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "formula"),
							   "by_component");
	static const struct { const char *name; unsigned long long n; } want[] = {
		{"text", 3880263168ull}, {"vision_tower", 416866032ull}, {"multi_modal_projector", 2950272ull},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(bc, want[i].name);
		cr_expect(cJSON_IsNumber(v) && v->valuedouble == (double)want[i].n, "%s", want[i].name);
	}
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

Test(catalogue, check_exaone4_checkpoint)
{
	/* EXAONE-4.0-32B's sizes: the card's 30.95B without embeddings, plus
	 * the untied embedding and head */
	const char *json = "{\"architectures\": [\"Exaone4ForCausalLM\"], \"model_type\": \"exaone4\","
			   " \"hidden_size\": 5120, \"intermediate_size\": 27392,"
			   " \"num_hidden_layers\": 64, \"num_attention_heads\": 40,"
			   " \"num_key_value_heads\": 8, \"head_dim\": 128, \"vocab_size\": 102400,"
			   " \"tie_word_embeddings\": false}";
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "exaone4.json", json, strlen(json));
	check_published(p, 30954640384ull + 2ull * 102400 * 5120, 30954640384ull + 2ull * 102400 * 5120, 0,
			NULL, NULL);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== GLM-4.5-Air: the MTP layer apart, exactly, in the JSON ==== */

Test(catalogue, glm45_air_mtp_in_formula_json)
{
	char *p = ws_shared_path("configs/zai-org__GLM-4.5-Air.json");
	if (!p)
		cr_skip_test("../shared is absent");
	cJSON *cfg = ws_load_json(p);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	/* the library's tree: raw integers, compared as printed */
	cJSON *j = ws_formula_to_json(&a, &f);
	cr_assert(j);
	cr_expect_str_eq(raw_text(j, "total"), "106852251264");
	cr_expect_str_eq(raw_text(j, "mtp"), "3616573568");
	cJSON_Delete(j);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	/* and the CLI's */
	ws_run r = ws_run_cli("formula", p, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(formula_text_u64(r.out, "total"), 106852251264ull, "%s", r.out);
	cr_expect_eq(formula_text_u64(r.out, "mtp"), 3616573568ull, "%s", r.out);
	ws_run_free(&r);
	free(p);
}

/* ==== model_type from `architectures`, through the CLI ==== */

Test(catalogue, formula_cli_reads_model_type_from_architectures)
{
	char *dir = ws_tmpdir();
	/* LLaMA-7B's sizes, no model_type: the class names the type and its head */
	const char *json = "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 4096,"
			   " \"intermediate_size\": 11008, \"num_attention_heads\": 32,"
			   " \"num_hidden_layers\": 32, \"vocab_size\": 32000}";
	char *p = ws_write_file(dir, "config.json", json, strlen(json));
	ws_run r = ws_run_cli("formula", p, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "architecture  llama (config.json)") &&
		  ws_contains(r.out, "formula       6,738,415,616"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("formula", p, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"architecture\":\"llama\""), "%s", r.out);
	cr_expect_eq(formula_text_u64(r.out, "total"), 6738415616ull, "%s", r.out);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

Test(catalogue, formula_cli_says_why_nothing_is_known)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{"{\"hidden_size\": 4096, \"num_hidden_layers\": 32}",
		 "architecture unknown: the config has neither 'model_type' nor 'architectures'"},
		{"{\"architectures\": [\"NoSuchForCausalLM\"], \"hidden_size\": 4096}",
		 "architecture unknown: no model_type, and the class in 'architectures' is not in the catalogue"},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = ws_write_file(dir, "config.json", cases[i].json, strlen(cases[i].json));
		ws_run r = ws_run_cli("formula", p, NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(ws_contains(r.out, cases[i].why), "%s", r.out);
		/* what was read is shown, and no zero stands in for the rest */
		cr_expect(ws_contains(r.out, "hidden_size 4,096"), "%s", r.out);
		cr_expect(!ws_contains(r.out, " 0,") && !ws_contains(r.out, " 0\n") &&
			  !ws_contains(r.out, "(kv 0)"), "%s", r.out);
		ws_run_free(&r);
		r = ws_run_cli("formula", p, "--json", NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(ws_contains(r.out, cases[i].why) && ws_contains(r.out, "\"known\":false") &&
			  ws_contains(r.out, "\"formula\":null") && !ws_contains(r.out, "\"num_heads\":0"),
			  "%s", r.out);
		ws_run_free(&r);
		free(p);
	}
	ws_rmtree(dir);
	free(dir);
}

/* ==== Apertus: a plain MLP with xIELU's learnable scalars ==== */

/* swiss-ai/Apertus-8B-2509's sizes */
static const char apertus_8b[] =
	"{\"architectures\": [\"ApertusForCausalLM\"], \"model_type\": \"apertus\","
	" \"hidden_size\": 4096, \"intermediate_size\": 21504, \"num_hidden_layers\": 32,"
	" \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 131072,"
	" \"tie_word_embeddings\": false, \"mlp_bias\": false, \"attention_bias\": false,"
	" \"hidden_act\": \"xielu\", \"qk_norm\": true, \"max_position_embeddings\": 65536}";

/*
 * Apertus-8B, head_dim 4096 / 32 = 128, 8 kv heads:
 *   per layer  q 4096·4096 = 16,777,216; k, v 1024·4096 = 4,194,304 each;
 *              o 16,777,216                               -> 41,943,040
 *              q_norm, k_norm 128 each                    ->        256
 *              up, down 21504·4096 = 88,080,384 each      -> 176,160,768
 *              attention_layernorm, feedforward_layernorm ->      8,192
 *              act_fn.alpha_p, alpha_n [1] each           ->          2
 *                                                         = 218,112,258
 *   32 layers  6,979,592,256
 *   embed and untied lm_head 131072·4096 = 536,870,912 each -> 1,073,741,824
 *   final norm 4,096
 *   total      8,053,338,176
 * (beta and eps, 0-d buffers, are not parameters: 64 buffer elements.)
 */
#define APERTUS_8B 8053338176ull

Test(catalogue, apertus_formula_and_class_defaults)
{
	cJSON *cfg = cJSON_Parse(apertus_8b);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.total, APERTUS_8B, "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.by_role[WS_ROLE_FFN_ACT], 64);
	cr_expect_eq(f.by_role[WS_ROLE_FFN_GATE], 0);
	cr_expect_eq(f.by_layer[0], 218112258ull);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	/* the class alone: ApertusConfig's defaults (hidden 4096, inter
	 * 14336, 32 layers, 32 heads = kv heads, vocab 131072, untied): per
	 * layer 4·4096² = 67,108,864 + 256 + 2·4096·14336 = 117,440,512
	 * + 8,192 + 2 = 184,557,826; × 32 = 5,905,850,432; + embed and head
	 * 1,073,741,824 + 4,096 = 6,979,596,352 */
	cfg = cJSON_Parse("{\"architectures\": [\"ApertusForCausalLM\"]}");
	ws_formula_of(cfg, &a, &f);
	cr_expect_str_eq(a.architecture, "apertus");
	cr_expect_eq(f.by_layer[0], 184557826ull);
	cr_expect_eq(f.total, 6979596352ull, "%llu", (unsigned long long)f.total);
	cr_expect(defaulted(&a, "intermediate_size") && defaulted(&a, "vocab_size"));
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(catalogue, check_apertus_checkpoint)
{
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "apertus-8b.json", apertus_8b, sizeof apertus_8b - 1);
	check_published(p, APERTUS_8B, APERTUS_8B, 0, NULL, NULL);
	/* the buffers are stored, listed apart, and neither counted nor unexpected */
	char *model = ws_join(dir, "model");
	mkmodel(model, p, NULL);
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	cr_expect_eq(json_u64(j, "buffers", "total"), 64);
	const cJSON *bt = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "buffers"),
							    "tensors");
	cr_expect_eq(cJSON_GetArraySize(bt), 64);
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
	cr_expect_eq(json_u64(params, "by_role", "ffn_act"), 64);
	cr_expect(!ws_contains(r.out, "unexpected-tensor"), "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* llama.cpp keeps the xIELU scalars as xielu.* metadata arrays: the GGUF's
 * tensors, and so its formula, hold 2 × 32 parameters fewer */
Test(catalogue, check_apertus_gguf)
{
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "apertus-8b.json", apertus_8b, sizeof apertus_8b - 1);
	char *model = ws_join(dir, "model");
	mkmodel3(model, p, "--format", "gguf", NULL);
	char *gguf = ws_join(model, "model.gguf");
	ws_run r = ws_run_cli("check", gguf, "--json", NULL);
	cr_expect_eq(r.status, 0, "exit %d: %s%s", r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	cr_expect_eq(json_u64(j, "params", "total"), APERTUS_8B - 64);
	cr_expect_eq(formula_text_u64(r.out, "total"), APERTUS_8B - 64, "%s", r.out);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	free(gguf);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== DeepSeek-V3.2: V3 with a lightning indexer, FP8, an MTP layer ==== */

/* deepseek-ai/DeepSeek-V3.2's config.json (the count-relevant keys) */
static const char deepseek_v32[] =
	"{\"architectures\": [\"DeepseekV32ForCausalLM\"], \"model_type\": \"deepseek_v32\","
	" \"first_k_dense_replace\": 3, \"hidden_size\": 7168, \"index_head_dim\": 128,"
	" \"index_n_heads\": 64, \"index_topk\": 2048, \"intermediate_size\": 18432,"
	" \"kv_lora_rank\": 512, \"max_position_embeddings\": 163840,"
	" \"moe_intermediate_size\": 2048, \"moe_layer_freq\": 1, \"n_group\": 8,"
	" \"n_routed_experts\": 256, \"n_shared_experts\": 1, \"num_attention_heads\": 128,"
	" \"num_experts_per_tok\": 8, \"num_hidden_layers\": 61, \"num_key_value_heads\": 128,"
	" \"num_nextn_predict_layers\": 1, \"q_lora_rank\": 1536, \"qk_nope_head_dim\": 128,"
	" \"qk_rope_head_dim\": 64, \"tie_word_embeddings\": false, \"topk_method\": \"noaux_tc\","
	" \"v_head_dim\": 128, \"vocab_size\": 129280,"
	" \"quantization_config\": {\"activation_scheme\": \"dynamic\", \"fmt\": \"e4m3\","
	" \"quant_method\": \"fp8\", \"weight_block_size\": [128, 128]}}";

/*
 * DeepSeek-V3.2 (H 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128,
 * rope 64, v 128; indexer 64 heads of 128):
 *   MLA        q_a 1536·7168 = 11,010,048; q_a_norm 1,536;
 *              q_b 128·192·1536 = 37,748,736; kv_a (512+64)·7168 = 4,128,768;
 *              kv_a_norm 512; kv_b 128·256·512 = 16,777,216;
 *              o 7168·128·128 = 117,440,512                  = 187,107,328
 *   indexer    wq_b 64·128·1536 = 12,582,912; wk 128·7168 = 917,504;
 *              k_norm weight and bias 2·128 = 256;
 *              weights_proj 64·7168 = 458,752                =  13,959,424
 *   norms      2·7168                                        =      14,336
 *   dense MLP  3·18432·7168                                  = 396,361,728
 *   MoE        256 experts 3·2048·7168 each = 11,274,289,152; shared
 *              3·2048·7168 = 44,040,192; router 256·7168 = 1,835,008;
 *              e_score_correction_bias 256                   = 11,320,164,608
 *   dense layer 597,442,816 (× 3); MoE layer 11,521,245,696 (× 58)
 *   main       1,792,328,448 + 668,232,250,368 + embed and lm_head
 *              2·129280·7168 = 1,853,358,080 + norm 7,168
 *                                                            = 671,877,944,064
 *   MTP        a MoE layer 11,521,245,696 + enorm, hnorm, shared_head.norm
 *              3·7168 = 21,504 + eh_proj 7168·14336 = 102,760,448 + its
 *              embed_tokens and shared_head.head 1,853,358,080
 *                                                            =  13,477,385,728
 *   stored     685,355,329,792
 * FP8 scales (weight_scale_inv, [ceil(out/128), ceil(in/128)] beside every
 * FP8 linear) are quant_aux: 40,888,496 + 703,088 (MTP) = 41,591,584.
 */
#define DS32_MAIN 671877944064ull
#define DS32_MTP 13477385728ull

Test(catalogue, deepseek_v32_formula_and_class_defaults)
{
	cJSON *cfg = cJSON_Parse(deepseek_v32);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.total, DS32_MAIN, "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.mtp, DS32_MTP, "%llu", (unsigned long long)f.mtp);
	cr_expect_eq(f.by_layer[0], 597442816ull);
	cr_expect_eq(f.by_layer[3], 11521245696ull);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_IDX_Q_B], 61ull * 12582912);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_IDX_K_NORM], 61ull * 256);
	/* top-8 of 256 routed experts per MoE layer */
	cr_expect_eq(f.active, DS32_MAIN - 58ull * 248 * 3 * 2048 * 7168);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	/* the class alone gives the same model (DeepseekV32Config's defaults
	 * are the released sizes); MTP is not a class key */
	cfg = cJSON_Parse("{\"architectures\": [\"DeepseekV32ForCausalLM\"]}");
	ws_formula_of(cfg, &a, &f);
	cr_expect_str_eq(a.architecture, "deepseek_v32");
	cr_expect_eq(f.total, DS32_MAIN, "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.mtp, 0);
	cr_expect(defaulted(&a, "index_n_heads") && defaulted(&a, "q_lora_rank") &&
		  defaulted(&a, "first_k_dense_replace") && defaulted(&a, "v_head_dim"));
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(catalogue, check_deepseek_v32_fp8_checkpoint)
{
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "deepseek-v32.json", deepseek_v32, sizeof deepseek_v32 - 1);
	check_published(p, DS32_MAIN + DS32_MTP, DS32_MAIN, DS32_MTP, "--fp8", NULL);
	char *model = ws_join(dir, "model");
	mkmodel(model, p, "--fp8");
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	/* V3's 91,991 tensors and, in each of 62 layers (the MTP one too),
	 * wq_b and wk with their scales, k_norm's two and weights_proj */
	cr_expect_eq(json_u64(j, "tensor_count", NULL), 91991 + 62 * 7);
	cr_expect_eq(json_u64(j, "quant_aux", "total"), 41591584ull);
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
	cr_expect_eq(json_u64(params, "by_role", "mtp"), DS32_MTP);
	/* the MTP layer's indexer is role mtp */
	cr_expect_eq(json_u64(params, "by_role", "attn_idx_proj"), 61ull * 458752);
	cJSON_Delete(j);
	ws_run_free(&r);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* llama.cpp's converter dequantises the FP8 weights (no scales) and
 * keeps the MTP block, counted in block_count (62) with
 * nextn_predict_layers 1; a GGUF without it is the main model alone */
Test(catalogue, check_deepseek_v32_gguf)
{
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "deepseek-v32.json", deepseek_v32, sizeof deepseek_v32 - 1);
	for (int with_mtp = 0; with_mtp < 2; with_mtp++) {
		char *model = ws_join(dir, with_mtp ? "mtp" : "main");
		mkmodel3(model, p, "--format", "gguf", with_mtp ? "--gguf-mtp" : NULL);
		char *gguf = ws_join(model, "model.gguf");
		ws_run r = ws_run_cli("check", gguf, "--json", NULL);
		cr_expect_eq(r.status, 0, "exit %d: %s%s", r.status, r.out, r.err);
		cJSON *j = cJSON_Parse(r.out);
		cr_assert(j, "%s", r.out);
		uint64_t mtp = with_mtp ? DS32_MTP : 0;
		cr_expect_eq(json_u64(j, "params", "total"), DS32_MAIN + mtp);
		cr_expect_eq(json_u64(j, "arch", "num_layers"), 61);
		cr_expect_eq(formula_text_u64(r.out, "total"), DS32_MAIN, "%s", r.out);
		cr_expect_eq(formula_text_u64(r.out, "mtp"), mtp, "%s", r.out);
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0,
			     "%s", r.out);
		cJSON_Delete(j);
		ws_run_free(&r);
		free(gguf);
		free(model);
	}
	free(p);
	ws_rmtree(dir);
	free(dir);
}
