/*
 * test_components.c - a model is components, a stack is layers of kinds:
 * components[], by_component, by_layer's component and layer_kind, the
 * tensor fields of ls --json, and --component in inspect, ls, diff, scan
 * and flops.  Models are written by tools/mkmodel from small configs.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "catalogue/catalogue.h"
#include "testutil.h"

/* A Gemma 3 wrapper at toy sizes: a text decoder, a SigLIP tower and the
 * projector mkmodel writes for it. */
static const char gemma3_cfg[] =
	"{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"model_type\": \"gemma3\","
	" \"text_config\": {\"model_type\": \"gemma3_text\", \"hidden_size\": 64,"
	" \"intermediate_size\": 128, \"num_hidden_layers\": 7, \"num_attention_heads\": 4,"
	" \"num_key_value_heads\": 2, \"head_dim\": 16, \"vocab_size\": 256,"
	" \"sliding_window\": 32},"
	" \"vision_config\": {\"hidden_size\": 32, \"intermediate_size\": 64,"
	" \"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"patch_size\": 4, \"image_size\": 16}}";

static char *
make_model(const char *dir, const char *cfg_json)
{
	char *cfg = ws_write_file(dir, "cfg.json", cfg_json, strlen(cfg_json));
	char *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	free(cfg);
	return model;
}

static cJSON *
run_json(int want, const char *a1, const char *a2, const char *a3, const char *a4,
	 const char *a5)
{
	ws_run r = ws_run_cli(a1, a2, a3, a4, a5, NULL);
	cr_assert_eq(r.status, want, "exit %d: %s%s", r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	ws_run_free(&r);
	return j;
}

static const cJSON *
at(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	cr_assert(v, "no key '%s'", k);
	return v;
}

/* Exact integers are printed raw; read one back. */
static unsigned long long
u64(const cJSON *v)
{
	cr_assert(cJSON_IsRaw(v) || cJSON_IsNumber(v));
	return cJSON_IsRaw(v) ? strtoull(v->valuestring, NULL, 10) : (unsigned long long)v->valuedouble;
}

static const char *
str(const cJSON *v)
{
	cr_assert(cJSON_IsString(v));
	return v->valuestring;
}

Test(components, multimodal_checkpoint_is_three_components)
{
	char *dir = ws_tmpdir(), *model = make_model(dir, gemma3_cfg);
	cJSON *j = run_json(0, "check", "--json", model, NULL, NULL);
	const cJSON *comps = at(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), 3);
	static const char *const names[] = {"text", "vision_tower", "multi_modal_projector"};
	static const char *const kinds[] = {"text", "vision", "projector"};
	unsigned long long sum = 0;
	const cJSON *bc = at(at(j, "params"), "by_component");
	for (int i = 0; i < 3; i++) {
		const cJSON *c = cJSON_GetArrayItem(comps, i);
		cr_expect_str_eq(str(at(c, "name")), names[i]);
		cr_expect_str_eq(str(at(c, "kind")), kinds[i]);
		cr_expect_eq(u64(at(c, "params")), u64(at(bc, names[i])));
		cr_expect_gt(u64(at(c, "params")), 0);
		sum += u64(at(c, "params"));
	}
	/* by_component sums to the total; each component has its own
	 * formula, the model's is their sum */
	cr_expect_eq(sum, u64(at(at(j, "params"), "total")));
	const cJSON *text = cJSON_GetArrayItem(comps, 0);
	const cJSON *fbc = at(at(j, "formula"), "by_component");
	for (int i = 0; i < 3; i++) {
		const cJSON *c = cJSON_GetArrayItem(comps, i);
		cr_expect_eq(u64(at(c, "formula")), u64(at(c, "params")), "%s", names[i]);
		cr_expect_eq(u64(at(fbc, names[i])), u64(at(c, "params")), "%s", names[i]);
		cr_expect(cJSON_IsObject(at(c, "arch")), "%s", names[i]);
	}
	cr_expect_eq(u64(at(at(j, "formula"), "total")), sum);
	cr_expect_str_eq(str(at(at(cJSON_GetArrayItem(comps, 1), "arch"), "architecture")), "siglip_vision_model");
	/* the tower's blocks are its own: two of them in by_layer, after
	 * the text model's seven */
	const cJSON *pbl = at(at(j, "params"), "by_layer");
	cr_assert_eq(cJSON_GetArraySize(pbl), 9);
	cr_expect_str_eq(str(at(cJSON_GetArrayItem(pbl, 8), "component")), "vision_tower");
	cr_expect_eq(cJSON_GetArraySize(at(cJSON_GetArrayItem(comps, 1), "layers")), 2);
	cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0);
	/* the text component's layers carry their kind and their roles */
	const cJSON *layers = at(text, "layers");
	cr_assert_eq(cJSON_GetArraySize(layers), 7);
	const cJSON *l0 = cJSON_GetArrayItem(layers, 0);
	cr_expect_eq(u64(at(l0, "formula")), u64(at(l0, "params")));
	cr_expect_gt(u64(at(at(l0, "by_role"), "attn_q")), 0);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
}

Test(components, component_option_keeps_one)
{
	char *dir = ws_tmpdir(), *model = make_model(dir, gemma3_cfg);
	cJSON *all = run_json(0, "inspect", "--json", model, NULL, NULL);
	const cJSON *bc = at(at(all, "params"), "by_component");

	/* by name or by kind: the vision tower alone, with its formula */
	cJSON *v = run_json(0, "inspect", "--json", "--component", "vision", model);
	cr_expect_eq(u64(at(at(v, "params"), "total")), u64(at(bc, "vision_tower")));
	cr_expect_eq(u64(at(at(v, "formula"), "total")), u64(at(bc, "vision_tower")));
	cr_expect_str_eq(str(at(at(v, "arch"), "architecture")), "siglip_vision_model");
	cr_expect_eq(cJSON_GetArraySize(at(v, "components")), 1);
	cr_expect_eq(cJSON_GetArraySize(at(v, "findings")), 0);
	cJSON_Delete(v);

	cJSON *t = run_json(0, "inspect", "--json", "--component=text", model, NULL);
	cr_expect_eq(u64(at(at(t, "params"), "total")), u64(at(bc, "text")));
	cr_expect_eq(u64(at(at(t, "formula"), "total")), u64(at(bc, "text")));
	cr_expect_eq(cJSON_GetArraySize(at(t, "findings")), 0);
	cJSON_Delete(t);

	/* ls: only the projector's tensors, each naming its component */
	cJSON *l = run_json(0, "ls", "--json", "--component", "multi_modal_projector", model);
	const cJSON *ts = at(l, "tensors"), *e;
	cr_assert_gt(cJSON_GetArraySize(ts), 0);
	cJSON_ArrayForEach(e, ts) {
		cr_expect_str_eq(str(at(e, "component")), "multi_modal_projector");
		cr_expect(!strncmp(str(at(e, "name")), "multi_modal_projector.", 22));
	}
	cJSON_Delete(l);

	/* diff of a model with itself, one component */
	ws_run r = ws_run_cli("diff", "--component", "vision_tower", model, model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	ws_run_free(&r);

	/* no such component: a usage error naming those there are */
	r = ws_run_cli("ls", "--component", "audio", model, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "vision_tower (vision)"), "%s", r.err);
	ws_run_free(&r);
	/* a command it does not apply to */
	r = ws_run_cli("hash", "--component", "text", model, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "--component is for"), "%s", r.err);
	ws_run_free(&r);

	cJSON_Delete(all);
	ws_rmtree(dir);
	free(model);
	free(dir);
}

/* The kind of each layer, as the catalogue's rule for the type says. */
static void
expect_kinds(const char *cfg, const char *const *want, int n)
{
	char *dir = ws_tmpdir(), *model = make_model(dir, cfg);
	cJSON *j = run_json(0, "inspect", "--json", model, NULL, NULL);
	const cJSON *bl = at(at(j, "params"), "by_layer");
	const cJSON *fl = at(at(j, "formula"), "by_layer");
	cr_assert_eq(cJSON_GetArraySize(bl), n);
	cr_assert_eq(cJSON_GetArraySize(fl), n);
	for (int i = 0; i < n; i++) {
		const cJSON *p = cJSON_GetArrayItem(bl, i), *f = cJSON_GetArrayItem(fl, i);
		cr_expect_str_eq(str(at(p, "layer_kind")), want[i], "layer %d", i);
		cr_expect_str_eq(str(at(f, "layer_kind")), want[i], "layer %d", i);
		cr_expect_str_eq(str(at(p, "component")), "text");
		cr_expect_eq(u64(at(p, "layer")), (unsigned long long)i);
		cr_expect_eq(u64(at(p, "params")), u64(at(f, "params")));
	}
	/* ls names each block tensor's kind */
	cJSON *l = run_json(0, "ls", "--json", model, NULL, NULL);
	const cJSON *e;
	cJSON_ArrayForEach(e, at(l, "tensors")) {
		const cJSON *layer = at(e, "layer");
		if (cJSON_IsNull(layer))
			continue;
		cr_expect_str_eq(str(at(e, "layer_kind")), want[u64(layer)]);
	}
	cJSON_Delete(l);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
}

#define S "sliding_attention"
#define A "attention"

Test(components, layer_kinds_follow_the_catalogue)
{
	/* Gemma 3: every sixth layer global (the class's pattern) */
	static const char *const g3[] = {S, S, S, S, S, A, S};
	expect_kinds("{\"model_type\": \"gemma3_text\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 7, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
		     " \"head_dim\": 16, \"vocab_size\": 256, \"sliding_window\": 32}", g3, 7);
	/* Gemma 2: even layers slide */
	static const char *const g2[] = {S, A, S, A};
	expect_kinds("{\"model_type\": \"gemma2\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
		     " \"head_dim\": 16, \"vocab_size\": 256, \"sliding_window\": 32}", g2, 4);
	/* a config's layer_types wins over the rule */
	static const char *const lt[] = {A, S, S, A};
	expect_kinds("{\"model_type\": \"gemma2\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
		     " \"head_dim\": 16, \"vocab_size\": 256, \"sliding_window\": 32, \"layer_types\":"
		     " [\"full_attention\", \"sliding_attention\", \"sliding_attention\", \"full_attention\"]}",
		     lt, 4);
	/* EXAONE 4: a number (every fourth layer global, the class's 4) or
	 * the released configs' string, L local and the last layer global */
	static const char *const ex[] = {S, S, S, A, S, S};
	expect_kinds("{\"model_type\": \"exaone4\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 6, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
		     " \"head_dim\": 16, \"vocab_size\": 256, \"sliding_window\": 32}", ex, 6);
	static const char *const exs[] = {S, S, S, A, S, S, S, A, S, A};
	expect_kinds("{\"model_type\": \"exaone4\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 10, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
		     " \"head_dim\": 16, \"vocab_size\": 256, \"sliding_window\": 32,"
		     " \"sliding_window_pattern\": \"LLLG\"}", exs, 10);
	/* no window: every layer plain attention */
	static const char *const ll[] = {A, A};
	expect_kinds("{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256}", ll, 2);
	/* experts: moe and dense layers (Qwen's decoder_sparse_step) */
	static const char *const moe[] = {"dense", "moe", "dense", "moe"};
	expect_kinds("{\"model_type\": \"qwen2_moe\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		     " \"num_hidden_layers\": 4, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,"
		     " \"vocab_size\": 256, \"num_experts\": 4, \"num_experts_per_tok\": 2,"
		     " \"moe_intermediate_size\": 32, \"shared_expert_intermediate_size\": 64,"
		     " \"decoder_sparse_step\": 2}", moe, 4);
}

/* A name that shares the bytes that decided another's component has the
 * same component: every pair of a list of near-misses. */
Test(components, decided_bytes_decide)
{
	static const char *const names[] = {
		"model.layers.0.mlp.up_proj.weight", "model.layers.100.mlp.up_proj.weight",
		"model.visual.blocks.0.attn.qkv.weight", "model.visual", "model.visual.",
		"model.vision_tower.x", "model.multi_modal_projector.linear_1.weight",
		"model.multi_modal_projector", "vision_tower.vision_model.embeddings.x",
		"vision_tower", "vision_towerx.y", "multi_modal_projector.linear_1.bias",
		"conditioner.embedders.0.transformer.x", "conditioner.embedders.1.model.x",
		"conditioner.embedders.2.x", "lm_head.weight", "m", "", "model.",
		"audio_tower.layers.0.x", "mm_projector.0.weight",
	};
	size_t n = sizeof names / sizeof names[0];
	for (size_t i = 0; i < n; i++) {
		size_t la = strlen(names[i]), decided;
		const struct ws_cat_component *a = ws_cat_component_decide(names[i], la, &decided);
		cr_assert_eq(a, ws_cat_component_of(names[i], la), "%s", names[i]);
		for (size_t j = 0; j < n; j++) {
			size_t lb = strlen(names[j]);
			if (lb >= decided && !memcmp(names[i], names[j], decided))
				cr_expect_eq(ws_cat_component_of(names[j], lb), a, "%s after %s",
					     names[j], names[i]);
		}
	}
}
