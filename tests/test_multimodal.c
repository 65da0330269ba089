/*
 * test_multimodal.c - image-text checkpoints as components: the text
 * decoder, the vision tower (with what its module holds: Llama 4's
 * adapter) and the projector (Qwen-VL's merger, Idefics3's connector),
 * each with its own formula from the config, compared with full-size
 * sparse checkpoints tools/mkmodel writes under the released names;
 * planted defects name the component.  Real configs from ../shared,
 * other released models of the families from the config facts
 * transcribed under testdata/multimodal.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MAX_COMP 4

/* A released model: its config, its total and each component's. */
struct released {
	const char *file;
	bool shared;           /* ../shared/realdata (else testdata/multimodal) */
	unsigned long long total;
	struct { const char *name; unsigned long long n; } comp[MAX_COMP];
	unsigned long long text_active;  /* 0: dense */
};

static const struct released models[] = {
	{"configs/Qwen__Qwen2.5-VL-7B-Instruct.json", true, 8292166656ull,
	 {{"text", 7615616512ull}, {"visual", 631975680ull}, {"merger", 44574464ull}}, 0},
	{"configs/HuggingFaceTB__SmolVLM-Instruct.json", true, 2246272880ull,
	 {{"text", 1812051968ull}, {"vision_model", 412987248ull}, {"connector", 21233664ull}}, 0},
	{"configs/meta-llama__Llama-4-Scout-17B-16E-Instruct.json", true, 108641793536ull,
	 {{"text", 107769861120ull}, {"vision_model", 850960896ull}, {"multi_modal_projector", 20971520ull}},
	 17172894720ull},
	{"configs/google__gemma-3-4b-it.json", true, 4300079472ull,
	 {{"text", 3880263168ull}, {"vision_tower", 416866032ull}, {"multi_modal_projector", 2950272ull}}, 0},
	{"configs/llava-hf__llava-1.5-7b-hf.json", true, 7063427072ull,
	 {{"text", 6738939904ull}, {"vision_tower", 303507456ull}, {"multi_modal_projector", 20979712ull}}, 0},
	/* the same families' other released sizes (published totals) */
	{"multimodal/Qwen__Qwen2.5-VL-3B-Instruct.json", false, 3754622976ull,
	 {{"text", 3085938688ull}, {"visual", 631975680ull}, {"merger", 36708608ull}}, 0},
	{"multimodal/Qwen__Qwen2.5-VL-72B-Instruct.json", false, 73410777344ull,
	 {{"text", 72706203648ull}, {"visual", 636401664ull}, {"merger", 68172032ull}}, 0},
	/* Qwen2-VL: LayerNorm blocks, a plain MLP of mlp_ratio x embed_dim,
	 * the merger's LayerNorm with its bias */
	{"multimodal/Qwen__Qwen2-VL-7B-Instruct.json", false, 8291375616ull,
	 {{"text", 7615616512ull}, {"visual", 631183360ull}, {"merger", 44575744ull}}, 0},
	{"multimodal/Qwen__Qwen2-VL-2B-Instruct.json", false, 2208985600ull,
	 {{"text", 1543714304ull}, {"visual", 631183360ull}, {"merger", 34087936ull}}, 0},
	{"multimodal/meta-llama__Llama-4-Maverick-17B-128E-Instruct.json", false, 401583781376ull,
	 {{"text", 400711848960ull}, {"vision_model", 850960896ull}, {"multi_modal_projector", 20971520ull}},
	 17184691200ull},
	/* LLaVA-NeXT: image_newline (4,096) beside the projector; the text
	 * config leans on MistralConfig's defaults */
	{"multimodal/llava-hf__llava-v1.6-mistral-7b-hf.json", false, 7566747648ull,
	 {{"text", 7242256384ull}, {"vision_tower", 303507456ull}, {"multi_modal_projector", 20983808ull}}, 0},
	/* Qwen3-VL: a position table in the tower, the merger and three
	 * DeepStack mergers (deepstack_visual_indexes), a component apart */
	{"multimodal/Qwen__Qwen3-VL-8B-Instruct.json", false, 8767123696ull,
	 {{"text", 8190735360ull}, {"visual", 415891440ull}, {"merger", 40119040ull},
	  {"deepstack_merger_list", 120377856ull}}, 0},
	/* Mllama (Llama 3.2 Vision): 8 cross-attention layers in the text
	 * stack, the tower's 8 gated global layers a stack of their own, a
	 * biased projector from vision_output_dim (7,680) */
	{"multimodal/meta-llama__Llama-3.2-11B-Vision-Instruct.json", false, 10670220835ull,
	 {{"text", 9775192080ull}, {"global_transformer", 157378576ull}, {"vision_model", 706188803ull},
	  {"multi_modal_projector", 31461376ull}}, 0},
	/* PaliGemma: a SigLIP So400m tower without its pooling head, one
	 * biased linear, Gemma's text model tied to its table of 257,216
	 * rows (the converter's 257,152 + 2 padded to 64); the text config
	 * leaves head_dim to GemmaConfig.  The published 2,923,335,408 is
	 * 64 rows fewer (paligemma_published_total) */
	{"multimodal/google__paligemma-3b-pt-224.json", false, 2923466480ull,
	 {{"text", 2508662784ull}, {"vision_tower", 412442352ull}, {"multi_modal_projector", 2361344ull}}, 0},
	/* PaliGemma 2: Gemma 2's text model, its heads and head_dim
	 * Gemma2Config's (the config writes neither) */
	{"multimodal/google__paligemma2-3b-pt-224.json", false, 3032242416ull,
	 {{"text", 2617143552ull}, {"vision_tower", 412442352ull}, {"multi_modal_projector", 2656512ull}}, 0},
	/* InternVL (remote code): InternViT-300M (a class token, layer
	 * scales, a fused qkv, no final norm; 1,025 positions at 448),
	 * mlp1 over 2 x 2 shuffled patches (downsample_ratio 0.5), a
	 * Qwen2.5 text model with its own head */
	{"multimodal/OpenGVLab__InternVL3-1B.json", false, 938193024ull,
	 {{"text", 629697920ull}, {"vision_model", 304012288ull}, {"mlp1", 4482816ull}}, 0},
	{"multimodal/OpenGVLab__InternVL3-2B.json", false, 2088957440ull,
	 {{"text", 1776283136ull}, {"vision_model", 304012288ull}, {"mlp1", 8662016ull}}, 0},
	{"multimodal/OpenGVLab__InternVL3-8B.json", false, 7944373760ull,
	 {{"text", 7612820992ull}, {"vision_model", 304012288ull}, {"mlp1", 27540480ull}}, 0},
	/* an InternLM2 text model (fused wqkv, no biases, its head output) */
	{"multimodal/OpenGVLab__InternVL2_5-8B.json", false, 8075365376ull,
	 {{"text", 7737782272ull}, {"vision_model", 304012288ull}, {"mlp1", 33570816ull}}, 0},
	/* InternViT-6B: RMS norms (norm_type rms_norm), q / k norms, no
	 * qkv bias, 45 layers of 3,200 */
	{"multimodal/OpenGVLab__InternVL2_5-38B.json", false, 38388164992ull,
	 {{"text", 32759882752ull}, {"vision_model", 5536496000ull}, {"mlp1", 91786240ull}}, 0},
	/* InternVL3-1B as transformers converts it (internvl): q, k, v
	 * apart, mlp1 as multi_modal_projector, the same count */
	{"multimodal/OpenGVLab__InternVL3-1B-hf.json", false, 938193024ull,
	 {{"text", 629697920ull}, {"vision_tower", 304012288ull}, {"multi_modal_projector", 4482816ull}}, 0},
	/* PaliGemma 2 at 896: 4,096 positions, the tower gemma-3's own
	 * (416,866,032); the 10B: Gemma 2 9B's text, the vision config's
	 * num_positions (1,024) a key transformers never reads */
	{"multimodal/google__paligemma2-3b-pt-896.json", false, 3036666096ull,
	 {{"text", 2617143552ull}, {"vision_tower", 416866032ull}, {"multi_modal_projector", 2656512ull}}, 0},
	{"multimodal/google__paligemma2-10b-pt-224.json", false, 9662638832ull,
	 {{"text", 9246064128ull}, {"vision_tower", 412442352ull}, {"multi_modal_projector", 4132352ull}}, 0},
	/* audio towers (index 23 on): whisper-large-v3's encoder, 636,968,960
	 * = convs 492,800 + 4,916,480, the frozen sinusoidal positions
	 * 1,500 x 1,280 = 1,920,000 (an nn.Embedding with requires_grad
	 * off: a parameter, saved), 32 x 19,676,160, layer_norm 2,560.
	 * Qwen2-Audio: Qwen2-7B's text (its text_config leans on
	 * Qwen2Config's 4,096 x 32 layers, 32 kv heads; 156,032 rows,
	 * untied) and one biased linear 1,280 -> 4,096 */
	{"multimodal/Qwen__Qwen2-Audio-7B.json", false, 8397094912ull,
	 {{"text", 7754878976ull}, {"audio_tower", 636968960ull}, {"multi_modal_projector", 5246976ull}}, 0},
	/* Voxtral: two bias-free linears from the tower's 5,120-wide rows
	 * (4 frames of 1,280) into the text width, then text to text;
	 * published 4.68B and 24.3B */
	{"multimodal/mistralai__Voxtral-Mini-3B-2507.json", false, 4676271104ull,
	 {{"text", 4014136320ull}, {"audio_tower", 636968960ull}, {"multi_modal_projector", 25165824ull}}, 0},
	{"multimodal/mistralai__Voxtral-Small-24B-2507.json", false, 24261800960ull,
	 {{"text", 23572403200ull}, {"audio_tower", 636968960ull}, {"multi_modal_projector", 52428800ull}}, 0},
	/* Qwen3-VL-MoE (30B-A3B, published as 31.1B): Qwen3-VL's tower and
	 * mergers beside 48 MoE blocks of 128 experts (8 a token) stored
	 * fused; active: embedding, head, attention, routers and 8 experts
	 * of 3 x 2,048 x 768 in each block */
	{"multimodal/Qwen__Qwen3-VL-30B-A3B-Instruct.json", false, 31070754032ull,
	 {{"text", 30532122624ull}, {"visual", 415891440ull}, {"merger", 30679808ull},
	  {"deepstack_merger_list", 92060160ull}}, 3353032704ull},
	/* 235B-A22B (published as 236B): Qwen3-235B-A22B's text model (its
	 * 235,093,634,560) beside the same tower into 4,096 */
	{"multimodal/Qwen__Qwen3-VL-235B-A22B-Instruct.json", false, 235670022896ull,
	 {{"text", 235093634560ull}, {"visual", 415891440ull}, {"merger", 40119040ull},
	  {"deepstack_merger_list", 120377856ull}}, 22190763520ull},
};

/* How many components a model has (the table's names). */
static int
n_comp(const struct released *m)
{
	int n = 0;
	while (n < MAX_COMP && m->comp[n].name)
		n++;
	return n;
}

static char *
config_path(const struct released *r)
{
	return r->shared ? ws_shared_path(r->file) : ws_testdata_path(r->file);
}

static cJSON *
run_json(int want, const char *a1, const char *a2, const char *a3, const char *a4)
{
	ws_run r = ws_run_cli(a1, a2, a3, a4, NULL);
	cr_assert_eq(r.status, want, "%s %s: exit %d: %s%s", a1, a2, r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	ws_run_free(&r);
	return j;
}

/* A count of a parsed document (exact below 2^53, which these are). */
static unsigned long long
num(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	cr_assert(cJSON_IsNumber(x), "%s.%s is missing", a, b ? b : "");
	return (unsigned long long)x->valuedouble;
}

/* flops' components[] object of the component `name`, and its
 * per_image object. */
static const cJSON *
per_image(const cJSON *flops, const char *name)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(flops, "components")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name)) {
			const cJSON *per = cJSON_GetObjectItemCaseSensitive(c, "per");
			cr_expect(cJSON_IsString(per) && !strcmp(per->valuestring, "image"), "%s", name);
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "per_image");
			cr_assert(cJSON_IsObject(p), "%s: no per_image", name);
			return p;
		}
	}
	cr_assert_fail("no component %s in flops", name);
	return NULL;
}

static void
mkmodel(const char *dir, const char *config, const char *plant)
{
	char *argv[] = {getenv("WS_MKMODEL"), (char *)dir, (char *)config, plant ? "--plant" : NULL,
			(char *)plant, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

/* The formula from each config alone: every component's and the sum. */
Test(multimodal, formula_from_the_configs)
{
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
		const struct released *m = &models[i];
		char *cfg = config_path(m);
		if (!cfg && m->shared)
			continue;  /* ../shared is absent: the transcribed ones still run */
		cr_assert(cfg, "%s", m->file);
		cJSON *j = run_json(0, "formula", "--json", cfg, NULL);
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "formula");
		cr_expect_eq(num(f, "total", NULL), m->total, "%s: total %llu", m->file, num(f, "total", NULL));
		for (int c = 0; c < n_comp(m); c++)
			cr_expect_eq(num(f, "by_component", m->comp[c].name), m->comp[c].n, "%s: %s %llu", m->file,
				     m->comp[c].name, num(f, "by_component", m->comp[c].name));
		cJSON_Delete(j);
		free(cfg);
	}
}

/* check on a full-size sparse checkpoint with the released names: exit
 * 0, every component equal to its formula, no finding, no tensor
 * without a role, the text's active count apart from the towers. */
static void
check_released(const struct released *m)
{
	char *cfg = config_path(m);
	if (!cfg && m->shared)
		cr_skip_test("../shared is absent");
	cr_assert(cfg, "%s", m->file);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *j = run_json(0, "check", "--json", model, NULL);
	cr_expect_eq(num(j, "params", "total"), m->total, "%s", m->file);
	cr_expect_eq(num(j, "formula", "total"), m->total, "%s", m->file);
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), n_comp(m), "%s", m->file);
	for (int c = 0; c < n_comp(m); c++) {
		const cJSON *co = cJSON_GetArrayItem(comps, c);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(co, "name");
		cr_assert(cJSON_IsString(name));
		cr_expect_str_eq(name->valuestring, m->comp[c].name, "%s", m->file);
		/* an audio tower is SPEC's kind audio */
		if (!strcmp(m->comp[c].name, "audio_tower"))
			cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "kind")->valuestring, "audio", "%s", m->file);
		cr_expect_eq(num(co, "params", NULL), m->comp[c].n, "%s: %s", m->file, m->comp[c].name);
		cr_expect_eq(num(co, "formula", NULL), m->comp[c].n, "%s: %s", m->file, m->comp[c].name);
		const cJSON *bc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"),
								   "by_component");
		cr_expect_eq(num(bc, m->comp[c].name, NULL), m->comp[c].n, "%s: %s", m->file, m->comp[c].name);
	}
	if (m->text_active)
		cr_expect_eq(num(cJSON_GetArrayItem(comps, 0), "active", NULL), m->text_active, "%s", m->file);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0, "%s", m->file);
	cJSON_Delete(j);
	/* every tensor has a role of its component's own */
	cJSON *l = run_json(0, "ls", "--json", model, NULL);
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(l, "tensors")) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(t, "role");
		cr_expect(cJSON_IsString(role) && strcmp(role->valuestring, "other"),
			  "%s: %s has no role", m->file,
			  cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring);
	}
	cJSON_Delete(l);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

Test(multimodal, check_qwen2_5_vl_7b, .timeout = 120) { check_released(&models[0]); }
Test(multimodal, check_smolvlm, .timeout = 120) { check_released(&models[1]); }
Test(multimodal, check_llama4_scout, .timeout = 240) { check_released(&models[2]); }
Test(multimodal, check_qwen2_5_vl_3b_tied, .timeout = 120) { check_released(&models[5]); }
Test(multimodal, check_qwen2_vl_2b_layernorm_tower, .timeout = 120) { check_released(&models[8]); }
Test(multimodal, check_llava_next_image_newline, .timeout = 120) { check_released(&models[10]); }
Test(multimodal, check_qwen3_vl_deepstack, .timeout = 120) { check_released(&models[11]); }
Test(multimodal, check_mllama_cross_attention, .timeout = 120) { check_released(&models[12]); }
Test(multimodal, check_paligemma, .timeout = 120) { check_released(&models[13]); }
Test(multimodal, check_paligemma2_class_defaults, .timeout = 120) { check_released(&models[14]); }
Test(multimodal, check_internvl3_1b, .timeout = 120) { check_released(&models[15]); }
Test(multimodal, check_internvl3_2b, .timeout = 120) { check_released(&models[16]); }
Test(multimodal, check_internvl3_8b, .timeout = 120) { check_released(&models[17]); }
Test(multimodal, check_internvl2_5_8b_internlm2, .timeout = 120) { check_released(&models[18]); }
Test(multimodal, check_internvl2_5_38b_vit_6b, .timeout = 120) { check_released(&models[19]); }
Test(multimodal, check_internvl3_1b_hf, .timeout = 120) { check_released(&models[20]); }
Test(multimodal, check_paligemma2_10b, .timeout = 120) { check_released(&models[22]); }
Test(multimodal, check_qwen2_audio, .timeout = 120) { check_released(&models[23]); }
Test(multimodal, check_voxtral_mini, .timeout = 120) { check_released(&models[24]); }
Test(multimodal, check_voxtral_small, .timeout = 240) { check_released(&models[25]); }
/* A row of the table by its config's name (rows other branches add
 * shift the indices). */
static const struct released *
released_of(const char *name)
{
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		if (ws_contains(models[i].file, name))
			return &models[i];
	cr_assert_fail("no row for %s", name);
	return NULL;
}

Test(multimodal, check_qwen3_vl_moe_fused_experts, .timeout = 120)
{
	check_released(released_of("Qwen3-VL-30B-A3B"));
}
Test(multimodal, check_qwen3_vl_moe_235b, .timeout = 120) { check_released(released_of("Qwen3-VL-235B-A22B")); }

/* Qwen3-VL-MoE's fused experts: one [E, hidden, 2 x moe_intermediate]
 * gate_up_proj and one [E, moe_intermediate, hidden] down_proj a
 * block; a stack short of an expert is a shape-mismatch of its block */
Test(multimodal, qwen3_vl_moe_fused_expert_stacks, .timeout = 120)
{
	char *cfg = ws_testdata_path(released_of("Qwen3-VL-30B-A3B")->file);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *l = run_json(0, "ls", "--json", model, NULL);
	int gate_up = 0, down = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(l, "tensors")) {
		const char *role = cJSON_GetObjectItemCaseSensitive(t, "role")->valuestring;
		const cJSON *sh = cJSON_GetObjectItemCaseSensitive(t, "shape");
		if (!strcmp(role, "moe_gate_up") || !strcmp(role, "moe_down")) {
			bool gu = !strcmp(role, "moe_gate_up");
			cr_expect_eq(cJSON_GetArraySize(sh), 3);
			cr_expect_eq(cJSON_GetArrayItem(sh, 0)->valuedouble, 128);
			cr_expect_eq(cJSON_GetArrayItem(sh, 1)->valuedouble, gu ? 2048 : 768);
			cr_expect_eq(cJSON_GetArrayItem(sh, 2)->valuedouble, gu ? 1536 : 2048);
			gate_up += gu;
			down += !gu;
		}
		cr_expect(strcmp(role, "moe_gate") && strcmp(role, "moe_up"), "%s",
			  cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring);
	}
	cr_expect_eq(gate_up, 48);
	cr_expect_eq(down, 48);
	cJSON_Delete(l);
	/* flops: 8 of the 128 fused experts a token, the router, attention
	 * (32 q heads and 4 kv heads of 128) and the head */
	cJSON *fj = run_json(0, "flops", "--json", model, NULL);
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fj, "selections"), 0);
	unsigned long long per_block = 2 * 2048 * 4096 + 2 * 2048 * 512 + 128 * 2048 + 8 * 3 * 2048 * 768;
	cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(s0, "macs"), "a", NULL), 48 * per_block + 151936ull * 2048);
	cJSON_Delete(fj);
	ws_rmtree(dir);
	free(model);
	free(dir);
	dir = ws_tmpdir();
	mkmodel(model = ws_join(dir, "model"), cfg, "missing-expert");
	cJSON *j = run_json(1, "check", "--json", model, NULL);
	bool found = false;
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
		const char *msg = cJSON_GetObjectItemCaseSensitive(f, "message")->valuestring;
		if (!strcmp(c->valuestring, "shape-mismatch") && ws_contains(msg, "moe_gate_up")) {
			found = true;
			cr_expect_eq(num(f, "layer", NULL), 1, "%s", msg);
			cr_expect(ws_contains(msg, "[127, 2048, 1536]"), "%s", msg);
		}
	}
	cr_expect(found);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* Mllama: the cross-attention layers are a layer kind of their own;
 * they keep no KV cache per text token, the image's once. */
Test(multimodal, mllama_cross_attention_layers, .timeout = 120)
{
	char *cfg = ws_testdata_path(models[12].file);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *j = run_json(0, "inspect", "--json", model, NULL);
	const cJSON *bl = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "formula"), "by_layer");
	const cJSON *e;
	int xattn = 0;
	cJSON_ArrayForEach(e, bl) {
		const cJSON *co = cJSON_GetObjectItemCaseSensitive(e, "component");
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "layer_kind");
		if (!cJSON_IsString(co) || strcmp(co->valuestring, "text") || !cJSON_IsString(k))
			continue;
		unsigned long long l = num(e, "layer", NULL);
		bool want = l % 5 == 3;  /* 3, 8, ... 38 */
		cr_expect_eq(!strcmp(k->valuestring, "cross_attention"), want, "layer %llu: %s", l, k->valuestring);
		xattn += want;
	}
	cr_expect_eq(xattn, 8);
	cJSON_Delete(j);
	j = run_json(0, "flops", "--json", model, NULL);
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
	/* K and V of 8 kv heads x 128 in BF16, in the 32 self-attention layers */
	cr_expect_eq(num(s0, "kv_cache_bytes_per_token", NULL), 32ull * 2 * 1024 * 2);
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "cross_attention");
	cr_expect_eq(num(x, "blocks", NULL), 8);
	cr_expect_eq(num(x, "kv_cache_bytes_per_image_token", NULL), 8ull * 2 * 1024 * 2);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* Reads "[a, b, ...]" after `key` in msg: the count of dims, 0 if absent. */
static int
dims_after(const char *msg, const char *key, unsigned long long *d)
{
	const char *p = strstr(msg, key);
	if (!p || !(p = strchr(p, '[')))
		return 0;
	int n = 0;
	while (n < 4 && *p && *p != ']') {
		char *e;
		d[n++] = strtoull(p + 1, &e, 10);
		p = e;
	}
	return n;
}

/* A projector mismatch names its tensor and quotes that tensor's own
 * expected shape in its stored order: with the projector 64 wider than
 * the text model, each found dimension is the expected one or it + 64
 * (not another matrix's or a norm's shape, nor [in, out] for [out, in]). */
static void
check_implied(const struct released *m, const cJSON *f)
{
	const char *msg = cJSON_GetObjectItemCaseSensitive(f, "message")->valuestring;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(f, "tensor");
	cr_assert(cJSON_IsString(t), "%s: %s", m->file, msg);
	char quoted[256];
	snprintf(quoted, sizeof quoted, "'%s'", t->valuestring);
	cr_expect(ws_contains(msg, quoted), "%s: %s does not name its tensor", m->file, msg);
	unsigned long long got[4], want[4];
	int ng = dims_after(msg, "has shape", got), nw = dims_after(msg, "implies", want);
	cr_assert(ng > 0 && ng == nw, "%s: %s", m->file, msg);
	bool wider = false;
	for (int i = 0; i < ng; i++) {
		cr_expect(got[i] == want[i] || got[i] == want[i] + 64, "%s: %s", m->file, msg);
		wider = wider || got[i] == want[i] + 64;
	}
	cr_expect(wider, "%s: %s", m->file, msg);
}

/* A planted defect is reported in the component that has it. */
static void
check_defect(const struct released *m, const char *plant, const char *code, int comp)
{
	char *cfg = config_path(m);
	if (!cfg && m->shared)
		return;  /* ../shared is absent */
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, plant);
	cJSON *j = run_json(1, "check", "--json", model, NULL);
	const cJSON *f, *found = NULL;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
		const cJSON *co = cJSON_GetObjectItemCaseSensitive(f, "component");
		/* no finding about a component without the defect */
		cr_expect(cJSON_IsString(co) && !strcmp(co->valuestring, m->comp[comp].name),
			  "%s %s: a finding about another component: %s", m->file, plant,
			  cJSON_GetObjectItemCaseSensitive(f, "message")->valuestring);
		if (cJSON_IsString(c) && !strcmp(c->valuestring, code) && !found)
			found = f;
		if (cJSON_IsString(c) && !strcmp(c->valuestring, "shape-mismatch"))
			check_implied(m, f);
	}
	cr_assert(found, "%s %s: no %s", m->file, plant, code);
	const char *msg = cJSON_GetObjectItemCaseSensitive(found, "message")->valuestring;
	if (!strcmp(code, "layer-gap")) {
		cr_expect_eq(num(found, "layer", NULL), 1, "%s", msg);
	} else {
		/* the projector's mismatch names the tower and the text model */
		cr_expect(ws_contains(msg, m->comp[1].name) && ws_contains(msg, m->comp[0].name), "%s", msg);
	}
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

Test(multimodal, defects_name_the_component, .timeout = 300)
{
	static const int which[] = {0, 1, 2, 3, 4, 8, 10, 13, 14, 15, 19, 20, 23, 24};
	for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
		check_defect(&models[which[i]], "missing-tower-layer", "layer-gap", 1);
		check_defect(&models[which[i]], "projector-width", "shape-mismatch", 2);
	}
}

/* flops: the text selection over the text blocks alone (its KV cache
 * too), each other component per image at its config's image size. */
Test(multimodal, flops_per_component, .timeout = 120)
{
	char *cfg = ws_shared_path("configs/llava-hf__llava-1.5-7b-hf.json");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *j = run_json(0, "flops", "--json", model, NULL);
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
	/* the text model's 32 blocks and parameters; K and V of 4,096 in
	 * F16 per block */
	cr_expect_eq(num(s0, "blocks", NULL), 32);
	cr_expect_eq(num(s0, "params", NULL), 6738939904ull);
	cr_expect_eq(num(s0, "kv_cache_bytes_per_token", NULL), 32ull * 2 * 4096 * 2);
	/* CLIP ViT-L/14 at 336: 576 patches and the class token; a = every
	 * matrix (the patch convolution's too), b = 24 blocks x 2 x 1,024 */
	const cJSON *v = per_image(j, "vision_tower");
	cr_expect_eq(num(v, "tokens", NULL), 577);
	cr_expect_eq(num(v, "image_size", NULL), 336);
	unsigned long long a = 24ull * (4 * 1024 * 1024 + 2 * 1024 * 4096) + 1024 * 3 * 14 * 14;
	cr_expect_eq(num(v, "a", NULL), a);
	cr_expect_eq(num(v, "b", NULL), 24ull * 2 * 1024);
	cr_expect_eq(num(v, "macs", NULL), a * 577 + 24ull * 2 * 1024 * 577 * 577);
	/* every stored layer counted, though the config reads the one
	 * before the last: said */
	cr_expect(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "vision_feature_layer")));
	const cJSON *p = per_image(j, "multi_modal_projector");
	cr_expect_eq(num(p, "a", NULL), 1024ull * 4096 + 4096ull * 4096);
	cJSON_Delete(j);
	ws_run r = ws_run_cli("flops", model, NULL);
	cr_expect(ws_contains(r.out, "vision_feature_layer -2") && ws_contains(r.out, "every stored layer is counted"),
		  "%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* Hostile values of the keys the multimodal parts read: exit 3 naming
 * the key, never a crash or a guess. */
Test(multimodal, hostile_part_keys_name_the_key)
{
	static const struct { const char *cfg, *key; } bad[] = {
		/* Qwen3-VL's list of DeepStack layers */
		{"{\"model_type\": \"qwen3_vl\", \"text_config\": {\"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256},"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2,"
		 " \"deepstack_visual_indexes\": 3}}", "deepstack_visual_indexes"},
		/* Idefics3's scale_factor */
		{"{\"model_type\": \"idefics3\", \"scale_factor\": \"3\", \"text_config\": {\"model_type\": \"llama\","
		 " \"hidden_size\": 64, \"intermediate_size\": 128, \"num_hidden_layers\": 2,"
		 " \"num_attention_heads\": 4, \"vocab_size\": 256}, \"vision_config\": {\"hidden_size\": 32,"
		 " \"intermediate_size\": 64, \"num_hidden_layers\": 2, \"num_attention_heads\": 2,"
		 " \"patch_size\": 4, \"image_size\": 16}}", "scale_factor"},
		/* Qwen2.5-VL's tower: its own spellings */
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": -2, \"hidden_size\": 32, \"num_heads\": 2}}", "depth"},
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2, \"in_channels\": [3, 4]}}",
		 "in_channels"},
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2,"
		 " \"temporal_patch_size\": 1e300}}", "temporal_patch_size"},
		/* Qwen2.5-VL's window attention */
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2, \"window_size\": 27}}",
		 "window_size"},
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2,"
		 " \"fullatt_block_indexes\": [1, 2]}}", "fullatt_block_indexes"},
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2,"
		 " \"fullatt_block_indexes\": \"7\"}}", "fullatt_block_indexes"},
		{"{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 64, \"intermediate_size\": 128,"
		 " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256,"
		 " \"vision_config\": {\"depth\": 2, \"hidden_size\": 32, \"num_heads\": 2,"
		 " \"fullatt_block_indexes\": [-1]}}", "fullatt_block_indexes"},
		/* Mllama's cross-attention layers and aspect ratios */
		{"{\"model_type\": \"mllama\", \"text_config\": {\"cross_attention_layers\": [3, 99]}}",
		 "cross_attention_layers"},
		{"{\"model_type\": \"mllama\", \"text_config\": {\"cross_attention_layers\": \"3\"}}",
		 "cross_attention_layers"},
		{"{\"model_type\": \"mllama\", \"text_config\": {\"cross_attention_layers\": [-3]}}",
		 "cross_attention_layers"},
		{"{\"model_type\": \"mllama\", \"vision_config\": {\"supported_aspect_ratios\": 8}}",
		 "supported_aspect_ratios"},
		/* InternVL's fraction of patches kept per side */
		{"{\"model_type\": \"internvl_chat\", \"downsample_ratio\": \"0.5\"}", "downsample_ratio"},
		{"{\"model_type\": \"internvl_chat\", \"downsample_ratio\": 0.3}", "downsample_ratio"},
		{"{\"model_type\": \"internvl_chat\", \"downsample_ratio\": 0}", "downsample_ratio"},
		{"{\"model_type\": \"internvl_chat\", \"downsample_ratio\": -0.5}", "downsample_ratio"},
		{"{\"model_type\": \"internvl_chat\", \"downsample_ratio\": 2}", "downsample_ratio"},
		{"{\"model_type\": \"internvl_chat\", \"downsample_ratio\": 1e-300}", "downsample_ratio"},
		/* Llama 4's adapter width */
		{"{\"model_type\": \"llama4\", \"text_config\": {\"model_type\": \"llama4_text\", \"hidden_size\": 64,"
		 " \"intermediate_size\": 32, \"intermediate_size_mlp\": 128, \"num_hidden_layers\": 2,"
		 " \"num_attention_heads\": 4, \"vocab_size\": 256, \"num_local_experts\": 2, \"num_experts_per_tok\": 1},"
		 " \"vision_config\": {\"projector_output_dim\": \"wide\"}}", "projector_output_dim"},
		/* audio towers: their sub-config, mel bins, positions, widths */
		{"{\"model_type\": \"qwen2_audio\", \"audio_config\": 7}", "audio_config"},
		{"{\"model_type\": \"qwen2_audio\", \"audio_config\": {\"num_mel_bins\": \"128\"}}", "num_mel_bins"},
		{"{\"model_type\": \"qwen2_audio\", \"audio_config\": {\"num_mel_bins\": 0}}", "num_mel_bins"},
		{"{\"model_type\": \"qwen2_audio\", \"audio_config\": {\"max_source_positions\": 1e300}}",
		 "max_source_positions"},
		{"{\"model_type\": \"qwen2_audio\", \"audio_config\": {\"max_source_positions\": 0}}",
		 "max_source_positions"},
		{"{\"model_type\": \"voxtral\", \"audio_config\": {\"intermediate_size\": -5}}", "intermediate_size"},
		{"{\"model_type\": \"voxtral\", \"audio_config\": {\"intermediate_size\": 0}}", "intermediate_size"},
		{"{\"model_type\": \"voxtral\", \"audio_config\": {\"hidden_size\": 0}}", "hidden_size"},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *cfg = ws_write_file(dir, "config.json", bad[i].cfg, strlen(bad[i].cfg));
		ws_run r = ws_run_cli("formula", cfg, NULL);
		cr_expect_eq(r.status, 3, "%s: exit %d: %s%s", bad[i].key, r.status, r.out, r.err);
		cr_expect(ws_contains(r.err, bad[i].key), "%s: %s", bad[i].key, r.err);
		ws_run_free(&r);
		free(cfg);
	}
	ws_rmtree(dir);
	free(dir);
}

/* Llama 4: the projector sees the pixel-shuffled patches (576 x 0.5²),
 * the tower's adapter runs over those too; Mllama's tiles side by side */
Test(multimodal, flops_pixel_shuffle_and_tiles, .timeout = 120)
{
	char *cfg = ws_shared_path(models[2].file);
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *j = run_json(0, "flops", "--json", model, NULL);
	const cJSON *v = per_image(j, "vision_model"), *p = per_image(j, "multi_modal_projector");
	cr_expect_eq(num(v, "tokens", NULL), 577);
	cr_expect_eq(num(p, "tokens", NULL), 144);
	unsigned long long adapter = 4096ull * 5632 + 4096ull * 4096;
	cr_expect_eq(num(v, "macs", NULL),
		     num(v, "a", NULL) * 577 + num(v, "b", NULL) * 577 * 577 + adapter * 144);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
	cfg = ws_testdata_path(models[12].file);
	dir = ws_tmpdir();
	model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	j = run_json(0, "flops", "--json", model, NULL);
	/* 4 tiles of 40 x 40 patches and a class token; the global layers
	 * over the same tokens */
	static const char *const names[] = {"global_transformer", "vision_model", "multi_modal_projector"};
	for (int i = 0; i < 3; i++)
		cr_expect_eq(num(per_image(j, names[i]), "tokens", NULL), 4 * 1601, "%s", names[i]);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* A list the config leaves out is the config class's: Mllama's
 * cross_attention_layers, Qwen3-VL's deepstack_visual_indexes. */
Test(multimodal, class_default_lists)
{
	static const struct { int model; const char *sub, *key; } cases[] = {
		{12, "text_config", "cross_attention_layers"},
		{11, "vision_config", "deepstack_visual_indexes"},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct released *m = &models[cases[i].model];
		char *src = ws_testdata_path(m->file);
		cJSON *cfg = ws_load_json(src);
		cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, cases[i].sub),
							cases[i].key);
		char *text = cJSON_PrintUnformatted(cfg);
		char *path = ws_write_file(dir, "config.json", text, strlen(text));
		cJSON *j = run_json(0, "formula", "--json", path, NULL);
		cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(j, "formula"), "total", NULL), m->total, "%s", cases[i].key);
		cJSON_Delete(j);
		cJSON_Delete(cfg);
		free(text);
		free(path);
		free(src);
	}
	ws_rmtree(dir);
	free(dir);
}

/* check --json of a sparse checkpoint mkmodel writes from cfg with one
 * extra option pair (NULL: none); asserts exit 0 and no finding. */
static cJSON *
check_written(const char *cfg, const char *opt, const char *val, char **names)
{
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, (char *)cfg, (char *)opt, (char *)val, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s %s: %s", cfg, val ? val : "", r.err);
	ws_run_free(&r);
	cJSON *j = run_json(0, "check", "--json", model, NULL);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0, "%s %s", cfg,
		     val ? val : "");
	/* the stored names, one a line */
	cJSON *l = run_json(0, "ls", "--json", model, NULL);
	size_t cap = 1, len = 0;
	char *s = calloc(1, 1);
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(l, "tensors")) {
		const char *n = cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring;
		size_t k = strlen(n);
		cr_assert(s = realloc(s, cap += k + 2));
		memcpy(s + len, "\n", 1);
		memcpy(s + len + 1, n, k + 1);
		len += k + 1;
	}
	*names = s;
	cJSON_Delete(l);
	ws_rmtree(dir);
	free(model);
	free(dir);
	return j;
}

/* The components of a check: name, params and formula, in order. */
static void
expect_same_components(const cJSON *a, const cJSON *b, const char *what)
{
	cr_expect_eq(num(a, "params", "total"), num(b, "params", "total"), "%s", what);
	cr_expect_eq(num(a, "formula", "total"), num(b, "formula", "total"), "%s", what);
	const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "components");
	const cJSON *cb = cJSON_GetObjectItemCaseSensitive(b, "components");
	cr_assert_eq(cJSON_GetArraySize(ca), cJSON_GetArraySize(cb), "%s", what);
	for (int i = 0; i < cJSON_GetArraySize(ca); i++) {
		const cJSON *x = cJSON_GetArrayItem(ca, i), *y = cJSON_GetArrayItem(cb, i);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring,
				 cJSON_GetObjectItemCaseSensitive(y, "name")->valuestring, "%s", what);
		cr_expect_eq(num(x, "params", NULL), num(y, "params", NULL), "%s: component %d", what, i);
		cr_expect_eq(num(x, "formula", NULL), num(y, "formula", NULL), "%s: component %d", what, i);
	}
}

/* Every name (one a line after a newline) under model., or the head. */
static bool
every_name_nested(const char *names)
{
	for (const char *p = names; (p = strchr(p, '\n')); p++)
		if (strncmp(p + 1, "model.", 6) && strncmp(p + 1, "lm_head.", 8))
			return false;
	return true;
}

/* LLaVA-NeXT in both layouts: the same components and totals; the
 * newer one nests every component under model. (image_newline too) */
Test(multimodal, llava_next_both_layouts, .timeout = 120)
{
	const struct released *m = &models[10];
	char *cfg = config_path(m), *old_names, *new_names;
	cJSON *o = check_written(cfg, "--layout", "old", &old_names);
	cJSON *n = check_written(cfg, "--layout", "new", &new_names);
	expect_same_components(o, n, m->file);
	cr_expect_eq(num(n, "params", "total"), m->total);
	cr_expect(ws_contains(old_names, "\nlanguage_model.model.layers.0.") && ws_contains(old_names, "\nvision_tower."));
	cr_expect(ws_contains(new_names, "\nmodel.vision_tower.") && ws_contains(new_names, "\nmodel.multi_modal_projector."));
	cr_expect(every_name_nested(new_names) && ws_contains(new_names, "\nmodel.image_newline"));
	cr_expect(ws_contains(old_names, "\nimage_newline") && ws_contains(old_names, "\nlanguage_model.lm_head.weight"));
	cJSON_Delete(o);
	cJSON_Delete(n);
	free(old_names);
	free(new_names);
	free(cfg);
}

/* Qwen-VL checkpoints as transformers >= 4.52 saves them
 * (model.language_model.*, model.visual.*, lm_head.*) and as older
 * versions did (model.* text, visual.*): the same components, tensors
 * and totals, equal to the released ones. */
Test(multimodal, qwen_vl_both_layouts, .timeout = 240)
{
	static const int which[] = {5, 8, 11};  /* 2.5-VL 3B, 2-VL 2B, 3-VL 8B */
	for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
		const struct released *m = &models[which[i]];
		char *cfg = config_path(m), *old_names, *new_names;
		cJSON *o = check_written(cfg, "--layout", "old", &old_names);
		cJSON *n = check_written(cfg, "--layout", "new", &new_names);
		expect_same_components(o, n, m->file);
		cr_expect_eq(num(n, "params", "total"), m->total, "%s", m->file);
		for (int c = 0; c < n_comp(m); c++)
			cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(n, "params"), "by_component", m->comp[c].name),
				     m->comp[c].n, "%s: %s", m->file, m->comp[c].name);
		/* each file has the layout it was asked for */
		cr_expect(ws_contains(new_names, "\nmodel.language_model.layers.0.") &&
			  ws_contains(new_names, "\nmodel.visual.blocks.0.") &&
			  !ws_contains(new_names, "\nvisual."), "%s", m->file);
		cr_expect(ws_contains(old_names, "\nvisual.blocks.0.") && ws_contains(old_names, "\nvisual.merger.") &&
			  !ws_contains(old_names, "\nmodel.visual.") && !ws_contains(old_names, "model.language_model."),
			  "%s", m->file);
		cr_expect(every_name_nested(new_names), "%s", m->file);
		cJSON_Delete(o);
		cJSON_Delete(n);
		free(old_names);
		free(new_names);
		free(cfg);
	}
}

/* A Qwen2.5-VL config as transformers >= 4.52 saves it (the text
 * model's keys in text_config of its own model_type) reads into the
 * same components as the flat one, in either checkpoint layout. */
Test(multimodal, qwen2_5_vl_nested_config, .timeout = 120)
{
	const struct released *m = &models[5];
	char *src = ws_testdata_path(m->file);
	cJSON *flat = ws_load_json(src), *text = cJSON_CreateObject(), *nested = cJSON_CreateObject();
	cJSON_AddStringToObject(text, "model_type", "qwen2_5_vl_text");
	const cJSON *it;
	cJSON_ArrayForEach(it, flat) {
		bool wrapper = !strcmp(it->string, "architectures") || !strcmp(it->string, "model_type") ||
			       !strcmp(it->string, "vision_config") || !strcmp(it->string, "tie_word_embeddings");
		cJSON_AddItemToObject(wrapper ? nested : text, it->string, cJSON_Duplicate(it, true));
	}
	cJSON_AddItemToObject(nested, "text_config", text);
	char *s = cJSON_PrintUnformatted(nested), *dir = ws_tmpdir();
	char *cfg = ws_write_file(dir, "config.json", s, strlen(s));
	cJSON *f = run_json(0, "formula", "--json", cfg, NULL);
	const cJSON *fo = cJSON_GetObjectItemCaseSensitive(f, "formula");
	cr_expect_eq(num(fo, "total", NULL), m->total);
	for (int c = 0; c < n_comp(m); c++)
		cr_expect_eq(num(fo, "by_component", m->comp[c].name), m->comp[c].n, "%s", m->comp[c].name);
	cJSON_Delete(f);
	static const char *const layouts[] = {"old", "new"};
	for (int k = 0; k < 2; k++) {
		char *names;
		cJSON *j = check_written(cfg, "--layout", layouts[k], &names);
		cr_expect_eq(num(j, "params", "total"), m->total, "%s", layouts[k]);
		cr_expect_eq(num(j, "formula", "total"), m->total, "%s", layouts[k]);
		cJSON_Delete(j);
		free(names);
	}
	ws_rmtree(dir);
	free(dir);
	free(cfg);
	free(s);
	cJSON_Delete(nested);
	cJSON_Delete(flat);
	free(src);
}

/* flops --json of a sparse checkpoint of cfg (extra: one more option
 * pair or NULL). */
static cJSON *
flops_of(const char *cfg, const char *opt, const char *val)
{
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	ws_run r = ws_run_cli("flops", "--json", model, opt, val, NULL);
	cr_assert_eq(r.status, 0, "flops %s: %s%s", cfg, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	return j;
}

/* Qwen-VL towers per image: no image size in their configs, so 448 x
 * 448 pixels (said) or --size, each side to whole merged patches (28 px
 * for 14-pixel patches merged 2 x 2); one temporal patch per image (the
 * convolution spans its two copies); Qwen2.5-VL's windowed blocks attend
 * within windows of 112 px (4 x 4 merged patches), its
 * fullatt_block_indexes 7, 15, 23, 31 over the whole image; the merger
 * over every 2 x 2 patches. */
Test(multimodal, flops_qwen_vl_per_image, .timeout = 120)
{
	/* Qwen2.5-VL-3B: blocks of qkv 3 x 1,280², proj 1,280², a gated
	 * MLP of 3 x 1,280 x 3,420; the patch convolution 1,280 x 3 x 2 x
	 * 14 x 14; 16 heads of 80 (q and v) */
	const unsigned long long blk = 3 * 1280 * 1280 + 1280 * 1280 + 3 * 1280 * 3420;
	const unsigned long long a = 32 * blk + 1280 * 3 * 2 * 14 * 14, hd = 16 * (80 + 80);
	char *cfg = ws_testdata_path(models[5].file);
	cJSON *j = flops_of(cfg, NULL, NULL);
	const cJSON *v = per_image(j, "visual"), *p = per_image(j, "merger");
	cr_expect_eq(num(v, "height", NULL), 448);
	cr_expect_eq(num(v, "width", NULL), 448);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(v, "size_source")->valuestring, "default");
	cr_expect_eq(num(v, "tokens", NULL), 32 * 32);
	cr_expect_eq(num(v, "a", NULL), a);
	cr_expect_eq(num(v, "b", NULL), 4 * hd);
	cr_expect_eq(num(v, "b_window", NULL), 28 * hd);
	/* 4 x 4 windows of 8 x 8 patches */
	cr_expect_eq(num(v, "window_pairs", NULL), 16ull * 64 * 64);
	cr_expect_eq(num(v, "macs", NULL), a * 1024 + 4 * hd * 1024 * 1024 + 28 * hd * 16 * 64 * 64);
	/* the merger: 5,120² and 2,048 x 5,120 over 256 merged tokens */
	cr_expect_eq(num(p, "tokens", NULL), 256);
	cr_expect_eq(num(p, "macs", NULL), 256ull * (5120 * 5120 + 2048 * 5120));
	cJSON_Delete(j);
	/* 500 x 1000 rounds to 504 x 1008: 36 x 72 patches, 18 x 36 merged;
	 * windows along 18: 4, 4, 4, 4, 2 merged patches; along 36: 9 x 4 */
	j = flops_of(cfg, "--size", "500x1000");
	v = per_image(j, "visual");
	cr_expect_eq(num(v, "height", NULL), 504);
	cr_expect_eq(num(v, "width", NULL), 1008);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(v, "size_source")->valuestring, "--size");
	unsigned long long t = 36 * 72, pairs = 16ull * (4 * 16 + 2 * 2) * (9 * 16);
	cr_expect_eq(num(v, "tokens", NULL), t);
	cr_expect_eq(num(v, "window_pairs", NULL), pairs);
	cr_expect_eq(num(v, "macs", NULL), a * t + 4 * hd * t * t + 28 * hd * pairs);
	cr_expect_eq(num(per_image(j, "merger"), "tokens", NULL), 18 * 36);
	cJSON_Delete(j);
	free(cfg);

	/* Qwen2-VL-2B: no window, every block over the whole image; a
	 * plain MLP of 1,280 x 5,120 */
	cfg = ws_testdata_path(models[8].file);
	j = flops_of(cfg, NULL, NULL);
	v = per_image(j, "visual");
	unsigned long long a2 = 32ull * (4 * 1280 * 1280 + 2 * 1280 * 5120) + 1280 * 3 * 2 * 14 * 14;
	cr_expect_eq(num(v, "a", NULL), a2);
	cr_expect_eq(num(v, "b", NULL), 32 * hd);
	cr_expect(!cJSON_GetObjectItemCaseSensitive(v, "b_window"));
	cr_expect_eq(num(v, "macs", NULL), a2 * 1024 + 32 * hd * 1024 * 1024);
	cJSON_Delete(j);
	free(cfg);

	/* Qwen3-VL-8B: 16-pixel patches, 28 x 28 of them; its biased
	 * convolution's bias is no matrix; 16 heads of 72; the merger and
	 * the three DeepStack mergers over 14 x 14 merged tokens */
	cfg = ws_testdata_path(models[11].file);
	j = flops_of(cfg, NULL, NULL);
	v = per_image(j, "visual");
	unsigned long long a3 = 27ull * (4 * 1152 * 1152 + 2 * 1152 * 4304) + 1152 * 3 * 2 * 16 * 16;
	cr_expect_eq(num(v, "tokens", NULL), 784);
	cr_expect_eq(num(v, "a", NULL), a3);
	cr_expect_eq(num(v, "macs", NULL), a3 * 784 + 27ull * 16 * 144 * 784 * 784);
	unsigned long long merge = 4608ull * 4608 + 4096 * 4608;
	cr_expect_eq(num(per_image(j, "merger"), "macs", NULL), 196 * merge);
	cr_expect_eq(num(per_image(j, "deepstack_merger_list"), "macs", NULL), 3 * 196 * merge);
	cJSON_Delete(j);
	free(cfg);
}

/* The text output says which image a tower of any size was costed at;
 * --size is checked. */
Test(multimodal, flops_qwen_vl_says_the_size, .timeout = 120)
{
	char *cfg = ws_testdata_path(models[5].file);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	ws_run r = ws_run_cli("flops", model, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "448 x 448 px (any size, none in its config: the default, --size H[xW] to change)") &&
		  ws_contains(r.out, "windows of 112 px"), "%s", r.out);
	/* the tower's and merger's cost is per image, not per token: no
	 * per-token line for them that ignores the windows */
	cr_expect(ws_contains(r.out, "component visual (vision): 32 blocks, params 631,975,680; per image below") &&
		  !ws_contains(r.out, "per input sequence") && !ws_contains(r.out, "merger (projector), per token"),
		  "%s", r.out);
	ws_run_free(&r);
	static const char *const bad[] = {"0", "x", "448x", "2000000", "-4"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		r = ws_run_cli("flops", model, "--size", bad[i], NULL);
		cr_expect_eq(r.status, 2, "--size %s: %d %s", bad[i], r.status, r.err);
		ws_run_free(&r);
	}
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
	/* a tower of a fixed size (LLaVA-NeXT's CLIP at 336) takes none */
	cfg = ws_testdata_path(models[10].file);
	dir = ws_tmpdir();
	model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	r = ws_run_cli("flops", model, "--size", "448", NULL);
	cr_expect_eq(r.status, 2, "%d %s", r.status, r.err);
	cr_expect(ws_contains(r.err, "--size"), "%s", r.err);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* A Qwen2.5-VL tower config without window_size and
 * fullatt_block_indexes gets its class's (112, [7, 15, 23, 31]). */
Test(multimodal, flops_qwen2_5_vl_class_default_windows, .timeout = 120)
{
	char *src = ws_testdata_path(models[5].file);
	cJSON *c = ws_load_json(src);
	cJSON *vc = cJSON_GetObjectItemCaseSensitive(c, "vision_config");
	cJSON_DeleteItemFromObjectCaseSensitive(vc, "window_size");
	cJSON_DeleteItemFromObjectCaseSensitive(vc, "fullatt_block_indexes");
	char *text = cJSON_PrintUnformatted(c), *dir = ws_tmpdir();
	char *path = ws_write_file(dir, "config.json", text, strlen(text));
	cJSON *j = flops_of(path, NULL, NULL);
	const cJSON *v = per_image(j, "visual");
	cr_expect_eq(num(v, "b", NULL), 4 * 16 * 160);
	cr_expect_eq(num(v, "window_pairs", NULL), 16ull * 64 * 64);
	cr_expect_eq(num(v, "window_size", NULL), 112);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(dir);
	free(path);
	free(text);
	cJSON_Delete(c);
	free(src);
}

/* The module prefixes transformers >= 4.52 saves (model.language_model.,
 * model.vision_tower., model.multi_modal_projector.): the same
 * components, every one equal.  The checkpoint mkmodel writes in the
 * older layout, renamed tensor by tensor. */
Test(multimodal, paligemma_new_layout, .timeout = 120)
{
	static const char *const from[] = {"language_model.model.", "vision_tower.", "multi_modal_projector."};
	static const char *const to[] = {"model.language_model.", "model.vision_tower.", "model.multi_modal_projector."};
	const struct released *m = &models[14];
	char *cfg = config_path(m);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model"), *renamed = ws_join(dir, "renamed");
	mkmodel(model, cfg, NULL);
	cJSON *l = run_json(0, "ls", "--json", model, NULL);
	size_t cap = 1 << 16, n = 0;
	char *spec = malloc(cap);
	cr_assert(spec);
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(l, "tensors")) {
		const char *name = cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring, *pre = "";
		for (size_t i = 0; i < 3; i++) {
			if (!strncmp(name, from[i], strlen(from[i]))) {
				pre = to[i];
				name += strlen(from[i]);
				break;
			}
		}
		char line[512];
		int k = snprintf(line, sizeof line, "t %s%s %s", pre, name,
				 cJSON_GetObjectItemCaseSensitive(t, "dtype")->valuestring);
		const cJSON *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(t, "shape"))
			k += snprintf(line + k, sizeof line - (size_t)k, " %.0f", d->valuedouble);
		k += snprintf(line + k, sizeof line - (size_t)k, "\n");
		if (n + (size_t)k + 1 > cap) {
			cap *= 2;
			spec = realloc(spec, cap);
			cr_assert(spec);
		}
		memcpy(spec + n, line, (size_t)k + 1);
		n += (size_t)k;
	}
	cJSON_Delete(l);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s/config.json'", renamed, cfg, renamed);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	char *sp = ws_write_file(dir, "spec.txt", spec, n);
	char *out = ws_join(renamed, "model.safetensors");
	snprintf(cmd, sizeof cmd, "'%s' '%s' < '%s'", getenv("WS_MKTENSORS"), out, sp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cJSON *j = run_json(0, "check", "--json", renamed, NULL);
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), 3);
	for (int c = 0; c < 3; c++) {
		const cJSON *co = cJSON_GetArrayItem(comps, c);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "name")->valuestring, m->comp[c].name);
		cr_expect_eq(num(co, "params", NULL), m->comp[c].n, "%s", m->comp[c].name);
		cr_expect_eq(num(co, "formula", NULL), m->comp[c].n, "%s", m->comp[c].name);
	}
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(out);
	free(sp);
	free(spec);
	free(renamed);
	free(model);
	free(dir);
	free(cfg);
}

/* google/paligemma-3b-pt-224's published 2,923,335,408 is the count at
 * the original vocabulary of 257,152 rows (PaliGemmaConfig's default);
 * the released checkpoint's table has 257,216 (its text_config), 64 x
 * 2,048 more. */
Test(multimodal, paligemma_published_total)
{
	char *src = ws_testdata_path(models[13].file);
	cJSON *cfg = ws_load_json(src);
	cJSON *tc = cJSON_GetObjectItemCaseSensitive(cfg, "text_config");
	cJSON_ReplaceItemInObjectCaseSensitive(tc, "vocab_size", cJSON_CreateNumber(257152));
	char *text = cJSON_PrintUnformatted(cfg), *dir = ws_tmpdir();
	char *path = ws_write_file(dir, "config.json", text, strlen(text));
	cJSON *j = run_json(0, "formula", "--json", path, NULL);
	cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(j, "formula"), "total", NULL), 2923335408ull);
	cr_expect_eq(models[13].total - 2923335408ull, 64ull * 2048);
	cJSON_Delete(j);
	cJSON_Delete(cfg);
	ws_rmtree(dir);
	free(text);
	free(path);
	free(dir);
	free(src);
}

/* Keys an InternVL config may leave to its classes: downsample_ratio
 * (InternVLChatConfig's 0.5), InternViT's norm_type (rms_norm) and
 * qk_normalization (true), as the 6B tower has them. */
Test(multimodal, internvl_class_defaults)
{
	static const struct { int model; const char *sub, *key; } cases[] = {
		{15, NULL, "downsample_ratio"},
		{19, "vision_config", "norm_type"},
		{19, "vision_config", "qk_normalization"},
		/* InternVLVisionConfig's are the 300M tower's at 448 */
		{20, "vision_config", "hidden_size"},
		{20, "vision_config", "num_hidden_layers"},
		{20, "vision_config", "intermediate_size"},
		{20, "vision_config", "image_size"},
		{20, "vision_config", "patch_size"},
		{20, "vision_config", "norm_type"},
		{20, "vision_config", "use_mean_pooling"},
		{20, NULL, "downsample_ratio"},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct released *m = &models[cases[i].model];
		char *src = ws_testdata_path(m->file);
		cJSON *cfg = ws_load_json(src);
		cJSON *obj = cases[i].sub ? cJSON_GetObjectItemCaseSensitive(cfg, cases[i].sub) : cfg;
		cr_assert(cJSON_GetObjectItemCaseSensitive(obj, cases[i].key), "%s", cases[i].key);
		cJSON_DeleteItemFromObjectCaseSensitive(obj, cases[i].key);
		char *text = cJSON_PrintUnformatted(cfg);
		char *path = ws_write_file(dir, "config.json", text, strlen(text));
		cJSON *j = run_json(0, "formula", "--json", path, NULL);
		cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(j, "formula"), "total", NULL), m->total, "%s", cases[i].key);
		cJSON_Delete(j);
		cJSON_Delete(cfg);
		free(text);
		free(path);
		free(src);
	}
	/* the 300M tower's LayerNorms keep their bias: norm_type
	 * layer_norm against the class's rms_norm is 2 x 1,024 per layer */
	char *src = ws_testdata_path(models[15].file);
	cJSON *cfg = ws_load_json(src);
	cJSON_DeleteItemFromObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "vision_config"), "norm_type");
	char *text = cJSON_PrintUnformatted(cfg);
	char *path = ws_write_file(dir, "config.json", text, strlen(text));
	cJSON *j = run_json(0, "formula", "--json", path, NULL);
	cr_expect_eq(num(cJSON_GetObjectItemCaseSensitive(j, "formula"), "by_component", "vision_model"),
		     models[15].comp[1].n - 24ull * 2 * 1024);
	cJSON_Delete(j);
	cJSON_Delete(cfg);
	free(text);
	free(path);
	free(src);
	ws_rmtree(dir);
	free(dir);
}

/* flops: InternViT over 1,024 patches and the class token at 448;
 * mlp1 over the 256 shuffled tokens (4,096 wide) */
Test(multimodal, internvl_flops, .timeout = 120)
{
	char *cfg = ws_testdata_path(models[16].file);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *j = run_json(0, "flops", "--json", model, NULL);
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
	cr_expect_eq(num(s0, "blocks", NULL), 28);
	cr_expect_eq(num(s0, "params", NULL), models[16].comp[0].n);
	const cJSON *v = per_image(j, "vision_model"), *p = per_image(j, "mlp1");
	cr_expect_eq(num(v, "tokens", NULL), 1025);
	cr_expect_eq(num(v, "image_size", NULL), 448);
	cr_expect_eq(num(p, "tokens", NULL), 256);
	cr_expect_eq(num(p, "a", NULL), 4096ull * 1536 + 1536ull * 1536);
	cr_expect_eq(num(p, "macs", NULL), 256ull * (4096ull * 1536 + 1536ull * 1536));
	/* the tower by hand: 24 blocks of qkv + proj (4 x 1024^2) and an MLP
	 * (2 x 1024 x 4096), the 14x14x3 patch convolution, over 1025
	 * tokens (the class token's row is charged the patch matmul too:
	 * 602,112 MACs of 361.8 G); scores and values 2 x 1024 a block */
	unsigned long long a = 24 * (4 * 1024ull * 1024 + 2 * 1024ull * 4096) + 3ull * 14 * 14 * 1024;
	cr_expect_eq(num(v, "a", NULL), a);
	cr_expect_eq(num(v, "macs", NULL), 1025 * a + 24 * 2 * 1024ull * 1025 * 1025);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* llama.cpp's vision file of an InternVL tower (clip.projector_type
 * internvl): the converter's split q / k / v, ls1 / ls2, mm.model.mlp.
 * {0,1,3}, clip.vision.projector.scale_factor; made by mkmodel from the
 * config, counted as the safetensors count the tower and mlp1 (one
 * block less when the file says so), joined to its text model in a
 * folder. */
static cJSON *
mmproj_check(const char *config, const char *drop, const char *meta, int want)
{
	char *cfg = ws_testdata_path(config);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, "--format", "mmproj", NULL, NULL, NULL, NULL, NULL};
	int k = 5;
	if (drop) {
		argv[k++] = "--mmproj-drop";
		argv[k++] = (char *)drop;
	}
	if (meta) {
		argv[k++] = "--meta";
		argv[k++] = (char *)meta;
	}
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	char *file = ws_join(model, "mmproj.gguf");
	cJSON *j = run_json(want, "check", "--json", file, NULL);
	if (want == 0) {
		cJSON *l = run_json(0, "ls", "--json", file, NULL);
		const cJSON *t;
		cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(l, "tensors"))
			cr_expect(strcmp(cJSON_GetObjectItemCaseSensitive(t, "role")->valuestring, "other"), "%s has no role",
				  cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring);
		cJSON_Delete(l);
	}
	ws_rmtree(dir);
	free(file);
	free(model);
	free(dir);
	free(cfg);
	return j;
}

static void
expect_two(const cJSON *j, unsigned long long tower, unsigned long long proj)
{
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), 2);
	static const char *const names[] = {"vision", "mm"};
	const unsigned long long want[] = {tower, proj};
	for (int c = 0; c < 2; c++) {
		const cJSON *co = cJSON_GetArrayItem(comps, c);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "name")->valuestring, names[c]);
		cr_expect_eq(num(co, "params", NULL), want[c], "%s", names[c]);
		cr_expect_eq(num(co, "formula", NULL), want[c], "%s", names[c]);
	}
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0);
}

Test(multimodal, internvl_mmproj, .timeout = 120)
{
	cJSON *j = mmproj_check(models[15].file, NULL, NULL, 0);
	expect_two(j, models[15].comp[1].n, models[15].comp[2].n);
	cJSON_Delete(j);
	/* InternViT-6B's (RMS norms, q / k norms, no qkv bias), a block of
	 * 122,918,400 dropped */
	j = mmproj_check(models[19].file, "1", NULL, 0);
	expect_two(j, models[19].comp[1].n - 122918400ull, models[19].comp[2].n);
	cJSON_Delete(j);
	/* the file's scale factor is the projector's: 4 x 4 patches is a
	 * projector 16 x 1,024 wide; an absurd one names the key */
	j = mmproj_check(models[15].file, NULL, "projector.scale_factor=4", 1);
	const cJSON *f;
	bool shape = false;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings"))
		shape = shape || !strcmp(cJSON_GetObjectItemCaseSensitive(f, "code")->valuestring, "shape-mismatch");
	cr_expect(shape);
	cJSON_Delete(j);
	j = mmproj_check(models[15].file, NULL, "projector.scale_factor=99", 1);
	bool named = false;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings"))
		named = named || (!strcmp(cJSON_GetObjectItemCaseSensitive(f, "code")->valuestring, "metadata-mismatch") &&
				  ws_contains(cJSON_GetObjectItemCaseSensitive(f, "message")->valuestring,
					      "clip.vision.projector.scale_factor"));
	cr_expect(named);
	cJSON_Delete(j);
}

Test(multimodal, internvl_mmproj_joins_its_text_model, .timeout = 120)
{
	const struct released *m = &models[16];
	char *cfg = ws_testdata_path(m->file);
	char *dir = ws_tmpdir(), *t = ws_join(dir, "t"), *v = ws_join(dir, "v"), *f = ws_join(dir, "f");
	char *a1[] = {getenv("WS_MKMODEL"), t, cfg, "--format", "gguf", NULL};
	char *a2[] = {getenv("WS_MKMODEL"), v, cfg, "--format", "mmproj", NULL};
	char *const *runs[] = {a1, a2};
	for (size_t i = 0; i < 2; i++) {
		ws_run r = ws_run_argv(runs[i]);
		cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
		ws_run_free(&r);
	}
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "mkdir '%s' && mv '%s/model.gguf' '%s/InternVL3-2B-BF16.gguf' && "
		 "mv '%s/mmproj.gguf' '%s/mmproj-InternVL3-2B-BF16.gguf'", f, t, f, v, f);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	cJSON *j = run_json(0, "check", "--json", f, NULL);
	cr_expect_eq(num(j, "params", "total"), m->total);
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), 3);
	static const char *const names[] = {"text", "v", "mm"};
	for (int c = 0; c < 3; c++) {
		const cJSON *co = cJSON_GetArrayItem(comps, c);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "name")->valuestring, names[c]);
		cr_expect_eq(num(co, "params", NULL), m->comp[c].n, "%s", names[c]);
		cr_expect_eq(num(co, "formula", NULL), m->comp[c].n, "%s", names[c]);
	}
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(f);
	free(v);
	free(t);
	free(dir);
	free(cfg);
}

/* An audio config may leave its tower to the wrapper's class:
 * Qwen2AudioConfig builds the whisper-large-v3 encoder, VoxtralConfig
 * VoxtralEncoderConfig()'s, the same tower; a key left out is its
 * config class's. */
Test(multimodal, audio_class_defaults)
{
	static const struct { int model; const char *key; } cases[] = {
		{23, NULL}, {23, "d_model"}, {23, "encoder_layers"}, {23, "encoder_ffn_dim"},
		{23, "encoder_attention_heads"}, {23, "num_mel_bins"}, {23, "max_source_positions"},
		{24, NULL}, {24, "hidden_size"}, {24, "intermediate_size"}, {24, "num_hidden_layers"},
		{24, "max_source_positions"}, {25, NULL},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct released *m = &models[cases[i].model];
		char *src = ws_testdata_path(m->file);
		cJSON *cfg = ws_load_json(src);
		cJSON *ac = cJSON_GetObjectItemCaseSensitive(cfg, "audio_config");
		if (cases[i].key) {
			cr_assert(cJSON_GetObjectItemCaseSensitive(ac, cases[i].key), "%s", cases[i].key);
			cJSON_DeleteItemFromObjectCaseSensitive(ac, cases[i].key);
		} else {
			cJSON_DeleteItemFromObjectCaseSensitive(cfg, "audio_config");
		}
		char *text = cJSON_PrintUnformatted(cfg);
		char *path = ws_write_file(dir, "config.json", text, strlen(text));
		cJSON *j = run_json(0, "formula", "--json", path, NULL);
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "formula");
		cr_expect_eq(num(f, "total", NULL), m->total, "%s %s", m->file, cases[i].key ? cases[i].key : "audio_config");
		cr_expect_eq(num(f, "by_component", "audio_tower"), m->comp[1].n, "%s", m->file);
		cJSON_Delete(j);
		cJSON_Delete(cfg);
		free(text);
		free(path);
		free(src);
	}
	ws_rmtree(dir);
	free(dir);
}

/* The audio tower's tensors by function: its two convolutions, the
 * stored position table, the blocks' norms, q / k / v / o (k without a
 * bias) and MLP; Voxtral's projector without biases. */
Test(multimodal, audio_tower_roles, .timeout = 120)
{
	char *cfg = ws_testdata_path(models[24].file);
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	static const struct { const char *name, *role; } want[] = {
		{"audio_tower.conv1.weight", "conv"}, {"audio_tower.conv2.bias", "conv"},
		{"audio_tower.embed_positions.weight", "pos_embed"},
		{"audio_tower.layers.0.self_attn_layer_norm.weight", "attn_norm"},
		{"audio_tower.layers.0.self_attn.k_proj.weight", "attn_k"},
		{"audio_tower.layers.0.self_attn.out_proj.bias", "attn_o"},
		{"audio_tower.layers.31.final_layer_norm.bias", "ffn_norm"},
		{"audio_tower.layers.31.fc1.weight", "ffn_up"}, {"audio_tower.layers.31.fc2.weight", "ffn_down"},
		{"audio_tower.layer_norm.weight", "final_norm"},
		{"multi_modal_projector.linear_1.weight", "projector"},
		{"multi_modal_projector.linear_2.weight", "projector"},
		{"language_model.lm_head.weight", "lm_head"},
	};
	cJSON *l = run_json(0, "ls", "--json", model, NULL);
	size_t seen = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(l, "tensors")) {
		const char *name = cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring;
		const char *role = cJSON_GetObjectItemCaseSensitive(t, "role")->valuestring;
		cr_expect(!ws_contains(name, "k_proj.bias") && !ws_contains(name, "projector.linear_1.bias") &&
			  !ws_contains(name, "projector.linear_2.bias"), "%s", name);
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
			if (!strcmp(name, want[i].name)) {
				cr_expect_str_eq(role, want[i].role, "%s", name);
				seen++;
			}
	}
	cr_expect_eq(seen, sizeof want / sizeof want[0]);
	cJSON_Delete(l);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

/* flops per audio input: every input padded to max_source_positions
 * after the conv stem (Whisper's 30 s: 3,000 mel frames, 1,500
 * positions); a = the blocks' matrices, conv2 once and conv1 twice a
 * position (stride 1 over the mel frames, conv2's 2); the projector
 * over Qwen2-Audio's pooled 750 positions, Voxtral's 375 rows of 4
 * frames. */
Test(multimodal, audio_flops_per_input, .timeout = 120)
{
	static const struct { int model; unsigned long long proj_tokens, proj_a; } cases[] = {
		{23, 750, 1280ull * 4096}, {24, 375, 5120ull * 3072 + 3072ull * 3072},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *cfg = ws_testdata_path(models[cases[i].model].file);
		char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
		mkmodel(model, cfg, NULL);
		cJSON *j = run_json(0, "flops", "--json", model, NULL);
		/* the text selection: the text model's blocks and parameters
		 * alone, its KV cache (K and V of its kv heads in BF16) */
		const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
		const struct released *m = &models[cases[i].model];
		cr_expect_eq(num(s0, "params", NULL), m->comp[0].n, "%s", m->file);
		cr_expect_eq(num(s0, "kv_cache_bytes_per_token", NULL), i == 0 ? 32ull * 2 * 4096 * 2 : 30ull * 2 * 1024 * 2,
			     "%s", m->file);
		const cJSON *c, *tw = NULL, *pj = NULL;
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "components")) {
			const char *name = cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring;
			const cJSON *per = cJSON_GetObjectItemCaseSensitive(c, "per");
			if (!strcmp(name, "audio_tower") || !strcmp(name, "multi_modal_projector")) {
				cr_expect(cJSON_IsString(per) && !strcmp(per->valuestring, "audio"), "%s", name);
				*(!strcmp(name, "audio_tower") ? &tw : &pj) = cJSON_GetObjectItemCaseSensitive(c, "per_audio");
			}
		}
		cr_assert(cJSON_IsObject(tw) && cJSON_IsObject(pj));
		unsigned long long a = 32ull * (4 * 1280 * 1280 + 2 * 1280 * 5120) + 2ull * 1280 * 128 * 3 +
				       1280ull * 1280 * 3;
		cr_expect_eq(num(tw, "mel_frames", NULL), 3000);
		cr_expect_eq(num(tw, "tokens", NULL), 1500);
		cr_expect_eq(num(tw, "a", NULL), a);
		cr_expect_eq(num(tw, "b", NULL), 32ull * 20 * 128);
		cr_expect_eq(num(tw, "macs", NULL), a * 1500 + 32ull * 20 * 128 * 1500 * 1500);
		cr_expect_eq(num(pj, "tokens", NULL), cases[i].proj_tokens);
		cr_expect_eq(num(pj, "a", NULL), cases[i].proj_a);
		cr_expect_eq(num(pj, "macs", NULL), cases[i].proj_a * cases[i].proj_tokens);
		cJSON_Delete(j);
		ws_run r = ws_run_cli("flops", model, NULL);
		cr_expect(ws_contains(r.out, "3000 mel frames, 1,500 tokens") && ws_contains(r.out, "MACs per audio input"),
			  "%s", r.out);
		ws_run_free(&r);
		ws_rmtree(dir);
		free(model);
		free(dir);
		free(cfg);
	}
}

/* llama.cpp's audio file (clip.has_audio_encoder, clip.audio.* keys,
 * clip.projector_type qwen2a / voxtral): the tower under a. (conv1d.1 /
 * .2 with [d, 1] biases, position_embd, blk.N, post_ln), the projector
 * under mm.a.; made by mkmodel from the config, counted as the
 * safetensors count the tower and the projector (one block less when
 * block_count says so); Voxtral's projector input is stack_factor x the
 * tower width. */
static void
expect_audio_file(const cJSON *j, unsigned long long tower, unsigned long long proj)
{
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), 2);
	static const char *const names[] = {"audio", "mm"}, *const kinds[] = {"audio", "projector"};
	const unsigned long long want[] = {tower, proj};
	for (int c = 0; c < 2; c++) {
		const cJSON *co = cJSON_GetArrayItem(comps, c);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "name")->valuestring, names[c]);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "kind")->valuestring, kinds[c]);
		cr_expect_eq(num(co, "params", NULL), want[c], "%s", names[c]);
		cr_expect_eq(num(co, "formula", NULL), want[c], "%s", names[c]);
	}
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0);
}

Test(multimodal, audio_mmproj, .timeout = 120)
{
	for (int i = 23; i <= 24; i++) {
		cJSON *j = mmproj_check(models[i].file, NULL, NULL, 0);
		expect_audio_file(j, models[i].comp[1].n, models[i].comp[2].n);
		cJSON_Delete(j);
		/* a block of 19,676,160 dropped: block_count says 31 */
		j = mmproj_check(models[i].file, "1", NULL, 0);
		expect_audio_file(j, models[i].comp[1].n - 19676160ull, models[i].comp[2].n);
		cJSON_Delete(j);
	}
	/* Voxtral's frames stacked 2 to a row: a projector 2,560 wide
	 * against the file's 5,120; an absurd factor names the key */
	cJSON *j = mmproj_check(models[24].file, NULL, "projector.stack_factor=2", 1);
	const cJSON *f;
	bool shape = false;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings"))
		shape = shape || !strcmp(cJSON_GetObjectItemCaseSensitive(f, "code")->valuestring, "shape-mismatch");
	cr_expect(shape);
	cJSON_Delete(j);
	j = mmproj_check(models[24].file, NULL, "projector.stack_factor=99", 1);
	bool named = false;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings"))
		named = named || (!strcmp(cJSON_GetObjectItemCaseSensitive(f, "code")->valuestring, "metadata-mismatch") &&
				  ws_contains(cJSON_GetObjectItemCaseSensitive(f, "message")->valuestring,
					      "clip.audio.projector.stack_factor"));
	cr_expect(named);
	cJSON_Delete(j);
}

/* An audio file beside its text model's GGUF in a folder joins it (its
 * clip.audio.projection_dim is the text width): the three components,
 * the safetensors count. */
Test(multimodal, audio_mmproj_joins_its_text_model, .timeout = 120)
{
	for (int i = 23; i <= 24; i++) {
		const struct released *m = &models[i];
		char *cfg = ws_testdata_path(m->file);
		char *dir = ws_tmpdir(), *t = ws_join(dir, "t"), *v = ws_join(dir, "v"), *f = ws_join(dir, "f");
		char *a1[] = {getenv("WS_MKMODEL"), t, cfg, "--format", "gguf", NULL};
		char *a2[] = {getenv("WS_MKMODEL"), v, cfg, "--format", "mmproj", NULL};
		char *const *runs[] = {a1, a2};
		for (size_t k = 0; k < 2; k++) {
			ws_run r = ws_run_argv(runs[k]);
			cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
			ws_run_free(&r);
		}
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "mkdir '%s' && mv '%s/model.gguf' '%s/M-F16.gguf' && "
			 "mv '%s/mmproj.gguf' '%s/mmproj-M-F16.gguf'", f, t, f, v, f);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cJSON *j = run_json(0, "check", "--json", f, NULL);
		cr_expect_eq(num(j, "params", "total"), m->total, "%s", m->file);
		const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
		cr_assert_eq(cJSON_GetArraySize(comps), 3);
		static const char *const names[] = {"text", "a", "mm"}, *const kinds[] = {"text", "audio", "projector"};
		for (int c = 0; c < 3; c++) {
			const cJSON *co = cJSON_GetArrayItem(comps, c);
			cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "name")->valuestring, names[c]);
			cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "kind")->valuestring, kinds[c]);
			cr_expect_eq(num(co, "params", NULL), m->comp[c].n, "%s %s", m->file, names[c]);
			cr_expect_eq(num(co, "formula", NULL), m->comp[c].n, "%s %s", m->file, names[c]);
		}
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0, "%s", m->file);
		cJSON_Delete(j);
		ws_rmtree(dir);
		free(f);
		free(v);
		free(t);
		free(dir);
		free(cfg);
	}
}

/* VoxtralConfig builds its text model from its own defaults under the
 * text_config's (Voxtral-Mini's: 30 layers, 8 kv heads of 128, 8,192
 * wide), not LlamaConfig's: a text_config without them counts the same. */
Test(multimodal, voxtral_text_defaults_are_the_wrappers)
{
	static const char *const keys[] = {"hidden_size", "intermediate_size", "num_hidden_layers",
					   "num_key_value_heads", "head_dim", "vocab_size", "max_position_embeddings"};
	const struct released *m = &models[24];
	char *src = ws_testdata_path(m->file), *dir = ws_tmpdir();
	cJSON *cfg = ws_load_json(src);
	cJSON *tc = cJSON_GetObjectItemCaseSensitive(cfg, "text_config");
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		cr_assert(cJSON_GetObjectItemCaseSensitive(tc, keys[i]), "%s", keys[i]);
		cJSON_DeleteItemFromObjectCaseSensitive(tc, keys[i]);
	}
	char *text = cJSON_PrintUnformatted(cfg);
	char *path = ws_write_file(dir, "config.json", text, strlen(text));
	cJSON *j = run_json(0, "formula", "--json", path, NULL);
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "formula");
	cr_expect_eq(num(f, "total", NULL), m->total);
	cr_expect_eq(num(f, "by_component", "text"), m->comp[0].n);
	cJSON_Delete(j);
	cJSON_Delete(cfg);
	ws_rmtree(dir);
	free(text);
	free(path);
	free(dir);
	free(src);
}

/* A text GGUF and its mmproj in one folder (named as llama.cpp's
 * converter names them): the folder's path, malloc'd, under dir. */
static char *
joined_folder(const char *cfg, const char *dir)
{
	char *t = ws_join(dir, "t"), *v = ws_join(dir, "v"), *f = ws_join(dir, "f");
	char *a1[] = {getenv("WS_MKMODEL"), t, (char *)cfg, "--format", "gguf", NULL};
	char *a2[] = {getenv("WS_MKMODEL"), v, (char *)cfg, "--format", "mmproj", NULL};
	char *const *runs[] = {a1, a2};
	for (size_t k = 0; k < 2; k++) {
		ws_run r = ws_run_argv(runs[k]);
		cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
		ws_run_free(&r);
	}
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "mkdir '%s' && mv '%s/model.gguf' '%s/M-F16.gguf' && "
		 "mv '%s/mmproj.gguf' '%s/mmproj-M-F16.gguf'", f, t, f, v, f);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(t);
	free(v);
	return f;
}

/* flops of a GGUF joined to its mmproj: the components of its
 * safetensors checkpoint, the same numbers (tower per image or audio
 * input, projector over the tokens the text model gets, text per token,
 * Gemma 3's sliding layers included). */
Test(multimodal, joined_mmproj_flops_match_safetensors, .timeout = 300)
{
	static const int which[] = {3, 16, 23};
	for (size_t i = 0; i < sizeof which / sizeof which[0]; i++) {
		const struct released *m = &models[which[i]];
		char *cfg = config_path(m);
		if (!cfg)
			continue;  /* ../shared is absent */
		char *dir = ws_tmpdir(), *st = ws_join(dir, "st");
		mkmodel(st, cfg, NULL);
		char *f = joined_folder(cfg, dir);
		ws_run r1 = ws_run_cli("flops", "--json", "--kv-dtype", "BF16", st, NULL);
		ws_run r2 = ws_run_cli("flops", "--json", "--kv-dtype", "BF16", f, NULL);
		cr_assert_eq(r1.status, 0, "%s", r1.err);
		cr_assert_eq(r2.status, 0, "%s", r2.err);
		cJSON *a = cJSON_Parse(r1.out), *b = cJSON_Parse(r2.out);
		cr_assert(a && b);
		const cJSON *ca = cJSON_GetObjectItemCaseSensitive(a, "components"),
			    *cb = cJSON_GetObjectItemCaseSensitive(b, "components");
		cr_assert_eq(cJSON_GetArraySize(cb), 3, "%s: %s", m->file, r2.out);
		cr_assert_eq(cJSON_GetArraySize(ca), 3, "%s", m->file);
		for (int c = 0; c < 3; c++) {
			const cJSON *x = cJSON_GetArrayItem(ca, c), *y = cJSON_GetArrayItem(cb, c);
			cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(x, "kind")->valuestring,
					 cJSON_GetObjectItemCaseSensitive(y, "kind")->valuestring);
			cr_expect_eq(num(x, "params", NULL), m->comp[c].n, "%s %d", m->file, c);
			cr_expect_eq(num(y, "params", NULL), m->comp[c].n, "%s %d", m->file, c);
			cr_expect_eq(num(x, "macs", "a"), num(y, "macs", "a"), "%s %d", m->file, c);
			cr_expect_eq(num(x, "macs", "b"), num(y, "macs", "b"), "%s %d", m->file, c);
			/* Gemma 3's sliding layers: the GGUF's window */
			const cJSON *sx = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x, "macs"), "b_sliding");
			const cJSON *sy = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(y, "macs"), "b_sliding");
			cr_expect_eq(!sx, !sy, "%s %d", m->file, c);
			if (sx && sy)
				cr_expect_eq(sx->valuedouble, sy->valuedouble, "%s %d", m->file, c);
			cr_expect_eq(num(x, "kv_cache_bytes_per_token", NULL), num(y, "kv_cache_bytes_per_token", NULL));
			if (!c)
				continue;
			const char *per = strcmp(m->comp[1].name, "audio_tower") ? "per_image" : "per_audio";
			const cJSON *px = cJSON_GetObjectItemCaseSensitive(x, per), *py = cJSON_GetObjectItemCaseSensitive(y, per);
			cr_assert(px && py, "%s %d: no %s", m->file, c, per);
			static const char *const keys[] = {"tokens", "a", "b", "macs"};
			for (size_t k = 0; k < 4; k++)
				cr_expect_eq(num(px, keys[k], NULL), num(py, keys[k], NULL), "%s %d %s", m->file, c, keys[k]);
		}
		cJSON_Delete(a);
		cJSON_Delete(b);
		ws_run_free(&r1);
		ws_run_free(&r2);
		ws_rmtree(dir);
		free(f);
		free(st);
		free(dir);
		free(cfg);
	}
}

/* The summary's norm kind and norm bias are the formula's: InternViT-6B's
 * norm_type rms_norm norms are RMS norms without a bias, InternViT-300M's
 * layer_norm ones LayerNorms with one, ModernBERT-base's norm_bias false
 * LayerNorms without. */
static void
expect_norm(const char *cfgname, const char *comp, const char *norm, bool bias, const char *text)
{
	char *cfg = ws_testdata_path(cfgname), *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	mkmodel(model, cfg, NULL);
	cJSON *j = run_json(0, "inspect", "--json", model, NULL);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "arch"), *co;
	cJSON_ArrayForEach(co, cJSON_GetObjectItemCaseSensitive(j, "components")) {
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(co, "name");
		if (comp && cJSON_IsString(nm) && !strcmp(nm->valuestring, comp))
			a = cJSON_GetObjectItemCaseSensitive(co, "arch");
	}
	cr_assert(a, "%s: no arch", cfgname);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(a, "norm")->valuestring, norm, "%s", cfgname);
	cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "norm_bias")), bias, "%s", cfgname);
	cJSON_Delete(j);
	ws_run r = ws_run_cli("inspect", model, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, text), "%s: no '%s' in\n%s", cfgname, text, r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

Test(multimodal, norm_summary_is_the_formulas, .timeout = 120)
{
	expect_norm("multimodal/OpenGVLab__InternVL2_5-38B.json", "vision_model", "rmsnorm", false,
		    "no head, rmsnorm, plain MLP");
	expect_norm("multimodal/OpenGVLab__InternVL3-1B.json", "vision_model", "layernorm", true,
		    "no head, layernorm, plain MLP");
	expect_norm("encoders/answerdotai__ModernBERT-base.json", NULL, "layernorm", false,
		    "tied, layernorm without bias, gated_fused MLP");
	/* llama.cpp's vision files: norms without a bias are InternViT's
	 * rms_norm ones, the type's norm_type option says */
	static const struct { const char *cfg, *norm; bool bias; } vf[] = {
		{"multimodal/OpenGVLab__InternVL2_5-38B.json", "rmsnorm", false},
		{"multimodal/OpenGVLab__InternVL3-1B.json", "layernorm", true},
	};
	for (size_t i = 0; i < sizeof vf / sizeof vf[0]; i++) {
		char *cfg = ws_testdata_path(vf[i].cfg), *dir = ws_tmpdir(), *v = ws_join(dir, "v");
		char *argv[] = {getenv("WS_MKMODEL"), v, cfg, "--format", "mmproj", NULL};
		ws_run r = ws_run_argv(argv);
		cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
		ws_run_free(&r);
		cJSON *j = run_json(0, "inspect", "--json", v, NULL);
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "arch");
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(a, "norm")->valuestring, vf[i].norm, "%s", vf[i].cfg);
		cr_expect_eq(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "norm_bias")), vf[i].bias, "%s", vf[i].cfg);
		cJSON_Delete(j);
		ws_rmtree(dir);
		free(v);
		free(dir);
		free(cfg);
	}
}
