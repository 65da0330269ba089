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

static cJSON *
load_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot open %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	cJSON *j = cJSON_Parse(buf);
	cr_assert(j, "cannot parse %s", path);
	return j;
}

static void
formula_of(const cJSON *cfg, struct ws_arch *a, struct ws_formula *f)
{
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(cfg, "config.json", a, &err), 0, "%s", err.message);
	cr_assert(a->known, "unknown architecture '%s': %s", a->architecture,
		  a->unsupported ? a->unsupported : "");
	cr_assert_eq(ws_formula_compute(a, f, &err), 0, "%s", err.message);
}

static uint64_t
total_of_json(const char *json, uint64_t *mtp)
{
	cJSON *cfg = cJSON_Parse(json);
	cr_assert(cfg, "bad test JSON");
	struct ws_arch a;
	struct ws_formula f;
	formula_of(cfg, &a, &f);
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
		cJSON *cfg = load_json(p);
		struct ws_arch a;
		struct ws_formula f;
		formula_of(cfg, &a, &f);
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
	formula_of(cfg, &a, &f);
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
	formula_of(cfg, &a, &f);
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
	formula_of(cfg, &a, &f);
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
	formula_of(cfg, &a, &f);
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
	formula_of(cfg, &a, &f);
	cr_expect_eq(f.total - f.by_role[WS_ROLE_EMBED] - f.by_role[WS_ROLE_LM_HEAD], 30954640384ull,
		     "%llu", (unsigned long long)f.total);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_Q_NORM], 64ull * 128);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_NORM], 0);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* ==== check on full-size sparse checkpoints with the released names ==== */



static void
mkmodel(const char *dir, const char *config, const char *opt)
{
	char *argv[] = {getenv("WS_MKMODEL"), (char *)dir, (char *)config, "--shards", "3",
			(char *)opt, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

static uint64_t
json_u64(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);
	cr_assert(cJSON_IsNumber(x), "%s.%s is missing", a, b);
	return (uint64_t)x->valuedouble;
}

/* Generate dir from config, check it: exit 0, the published params,
 * formula (plus its MTP part) equal to them, and no finding but `warn`
 * (when not NULL: exactly that one). */
static void
check_published(const char *config, uint64_t params, uint64_t mtp, const char *opt,
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
	uint64_t f = json_u64(j, "formula", "total");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "formula"), "mtp");
	uint64_t fm = cJSON_IsNumber(m) ? (uint64_t)m->valuedouble : 0;
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
	check_published(p7, 6607343616ull, 0, NULL, NULL);
	check_published(p65, 65023516672ull, 0, NULL, NULL);
	free(p7);
	free(p65);
	ws_rmtree(dir);
	free(dir);
}

static const struct published {
	const char *file;
	uint64_t params, mtp;
	const char *opt, *warn;
} published[] = {
	{"configs/intfloat__e5-mistral-7b-instruct.json", 7110660096ull, 0, NULL, NULL},
	{"configs/ibm-granite__granite-3.3-8b-instruct.json", 8170864640ull, 0, NULL, NULL},
	{"configs/HuggingFaceTB__SmolLM3-3B-Base.json", 3075098624ull, 0, NULL, NULL},
	{"configs/allenai__OLMoE-1B-7B-0924.json", 6919161856ull, 0, NULL, NULL},
	{"configs/allenai__Olmo-3-1025-7B.json", 7298011136ull, 0, NULL, NULL},
	{"configs/zai-org__GLM-4.5-Air.json", 110468824832ull, 3616573568ull, NULL, NULL},
	/* the original Falcon code ties by default, and the released
	 * checkpoints store the head anyway: a copy, counted once */
	{"configs/tiiuae__falcon-7b.json", 6921720704ull, 0, "--tie-head-copy", "tied-embeddings"},
	{"configs/tiiuae__falcon-40b.json", 41303293952ull, 0, "--tie-head-copy", "tied-embeddings"},
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
			check_published(p, published[i].params, published[i].mtp, published[i].opt,
					published[i].warn);
		}
		free(p);
	}
}

Test(catalogue, check_gemma3_names_the_vision_tower_and_projector)
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
	/* the whole checkpoint is counted; the formula is the text model's */
	cr_expect_eq(json_u64(j, "params", "total"), 4300079472ull);
	cr_expect_eq(json_u64(j, "formula", "total"), 3880263168ull);
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(j, "findings");
	cr_assert_eq(cJSON_GetArraySize(fs), 1, "%s", r.out);
	const cJSON *f0 = cJSON_GetArrayItem(fs, 0);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(f0, "code");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(f0, "message");
	cr_expect(cJSON_IsString(code) && strcmp(code->valuestring, "unsupported-architecture") == 0);
	cr_expect(cJSON_IsString(msg) && ws_contains(msg->valuestring, "vision_tower") &&
		  ws_contains(msg->valuestring, "multi_modal_projector") &&
		  ws_contains(msg->valuestring, "416,866,032") &&
		  ws_contains(msg->valuestring, "2,950,272"), "%s", msg ? msg->valuestring : "");
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
	check_published(p, 30954640384ull + 2ull * 102400 * 5120, 0, NULL, NULL);
	free(p);
	ws_rmtree(dir);
	free(dir);
}
