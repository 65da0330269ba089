/* test_formula.c - architecture readers, the analytic count, its JSON and
 * text, and the comparison findings. */
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
#include "ws/json.h"
#include "testutil.h"

/* ==== helpers ==== */

/* Expect exit 3 naming `key`, from the reader or from the formula. */
static void
expect_input_error(const char *json, const char *key)
{
	cJSON *cfg = cJSON_Parse(json);
	cr_assert(cfg, "bad test JSON");
	struct ws_arch a;
	struct ws_formula f;
	ws_error err = {0};
	int rc = ws_arch_from_config(cfg, "cfg.json", &a, &err);
	if (rc == 0) {
		rc = ws_formula_compute(&a, &f, &err);
		ws_formula_free(&f);
		ws_arch_free(&a);
	}
	cJSON_Delete(cfg);
	cr_assert_eq(rc, -1, "accepted hostile config for %s", key);
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	cr_assert(ws_contains(err.message, key), "message '%s' does not name '%s'",
		  err.message, key);
	cr_assert_str_eq(err.file, "cfg.json");
}

/* ==== real configs ==== */

static const struct real {
	const char *file;
	uint64_t total, active;  /* active 0: dense */
} reals[] = {
	{"configs/meta-llama__Llama-2-7b-hf.json", 6738415616ull, 0},
	{"configs/meta-llama__Llama-2-70b-hf.json", 68976648192ull, 0},
	{"configs/meta-llama__Meta-Llama-3-8B.json", 8030261248ull, 0},
	{"configs/meta-llama__Llama-3.1-405B.json", 405853388800ull, 0},
	{"configs/meta-llama__Llama-3.2-1B.json", 1235814400ull, 0},
	{"configs/mistralai__Mistral-7B-v0.1.json", 7241732096ull, 0},
	{"configs/Qwen__Qwen2-0.5B.json", 494032768ull, 0},
	{"configs/google__gemma-7b.json", 8537680896ull, 0},
	{"configs/openai-community__gpt2.json", 124439808ull, 0},
	{"configs/microsoft__Phi-3-mini-4k-instruct.json", 3821079552ull, 0},
	{"configs/mistralai__Mixtral-8x7B-v0.1.json", 46702792704ull, 12879925248ull},
	{"configs/deepseek-ai__DeepSeek-V2-Lite.json", 15706484224ull, 0},
	{"safetensors/tiny-llama.config.json", 108864ull, 0},
};

Test(formula, real_configs)
{
	for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
		char *p = ws_shared_path(reals[i].file);
		if (!p)
			cr_skip_test("../shared is absent");
		cJSON *cfg = ws_load_json(p);
		struct ws_arch a;
		struct ws_formula f;
		ws_formula_of(cfg, &a, &f);
		cr_expect_eq(f.total, reals[i].total, "%s: %llu, expected %llu", reals[i].file,
			     (unsigned long long)f.total, (unsigned long long)reals[i].total);
		if (reals[i].active)
			cr_expect_eq(f.active, reals[i].active, "%s: active %llu", reals[i].file,
				     (unsigned long long)f.active);
		uint64_t sum = 0, lsum = 0;
		for (int r = 0; r < WS_ROLE_COUNT; r++)
			sum += f.by_role[r];
		for (uint64_t l = 0; l < f.num_layers; l++)
			lsum += f.by_layer[l];
		cr_expect_eq(sum, f.total, "%s: by_role does not sum to total", reals[i].file);
		cr_expect_eq(lsum + f.by_role[WS_ROLE_EMBED] + f.by_role[WS_ROLE_POS_EMBED] +
			     f.by_role[WS_ROLE_FINAL_NORM] + f.by_role[WS_ROLE_LM_HEAD],
			     f.total, "%s: by_layer does not add up", reals[i].file);
		ws_formula_free(&f);
		ws_arch_free(&a);
		cJSON_Delete(cfg);
		free(p);
	}
}

Test(formula, deepseek_v2_lite_dense_first_layer)
{
	char *p = ws_shared_path("configs/deepseek-ai__DeepSeek-V2-Lite.json");
	if (!p)
		cr_skip_test("../shared is absent");
	cJSON *cfg = ws_load_json(p);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_assert(ws_sw_has(&a.flags, WS_ARCH_MLA));
	cr_assert_eq(a.q_lora_rank, 0);            /* null: a plain q_proj */
	cr_assert_eq(a.head_dim, 192);
	cr_assert_not(ws_arch_layer_is_moe(&a, 0));
	cr_assert(ws_arch_layer_is_moe(&a, 1));
	cr_assert_lt(f.by_layer[0], f.by_layer[1]);
	cr_assert_eq(f.by_role[WS_ROLE_MOE_ROUTER_BIAS], 0); /* greedy routing */
	cr_assert_eq(f.by_role[WS_ROLE_ATTN_Q], 26ull * 2048 * 16 * 192 + 2048ull * 16 * 192);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	free(p);
}

Test(formula, tiny_llama_tied)
{
	char *p = ws_shared_path("safetensors/tiny-llama.config.json");
	if (!p)
		cr_skip_test("../shared is absent");
	cJSON *cfg = ws_load_json(p);
	cJSON_ReplaceItemInObject(cfg, "tie_word_embeddings", cJSON_CreateTrue());
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_assert_eq(f.total, 100672);
	cr_assert_eq(f.by_role[WS_ROLE_LM_HEAD], 0);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	free(p);
}

/* ==== inline configs ==== */

static const char deepseek_v3[] =
	"{\"model_type\":\"deepseek_v3\",\"hidden_size\":7168,\"num_hidden_layers\":61,"
	"\"num_attention_heads\":128,\"num_key_value_heads\":128,\"q_lora_rank\":1536,"
	"\"kv_lora_rank\":512,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
	"\"v_head_dim\":128,\"vocab_size\":129280,\"intermediate_size\":18432,"
	"\"moe_intermediate_size\":2048,\"n_routed_experts\":256,\"n_shared_experts\":1,"
	"\"num_experts_per_tok\":8,\"first_k_dense_replace\":3,\"moe_layer_freq\":1,"
	"\"num_nextn_predict_layers\":1,\"topk_method\":\"noaux_tc\","
	"\"tie_word_embeddings\":false}";

Test(formula, deepseek_v3_with_and_without_mtp)
{
	cJSON *cfg = cJSON_Parse(deepseek_v3);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_assert_eq(f.total, 671026419200ull, "%llu", (unsigned long long)f.total);
	cr_assert_eq(f.total + f.mtp, 684489845504ull, "%llu", (unsigned long long)(f.total + f.mtp));
	/* the MTP block: a MoE block + enorm, hnorm, eh_proj, shared_head.norm
	 * and its own embedding and head copies */
	cr_assert_eq(f.mtp, f.by_layer[60] + 3ull * 7168 + 2ull * 7168 * 7168 + 2ull * 129280 * 7168);
	cr_assert_eq(f.by_role[WS_ROLE_MOE_ROUTER_BIAS], 58ull * 256);
	/* active: 8 of 256 routed experts per MoE block */
	cr_assert_eq(f.total - f.active, 58ull * 248 * 3 * 7168 * 2048);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(formula, gpt_oss_20b)
{
	/* gpt-oss-20b's published config; the count below is the 20.9B the
	 * model card gives, worked out by hand from the layer shapes. */
	cJSON *cfg = cJSON_Parse(
		"{\"model_type\":\"gpt_oss\",\"hidden_size\":2880,\"num_hidden_layers\":24,"
		"\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":64,"
		"\"intermediate_size\":2880,\"vocab_size\":201088,\"num_local_experts\":32,"
		"\"num_experts_per_tok\":4,\"attention_bias\":true,\"sliding_window\":128,"
		"\"tie_word_embeddings\":false}");
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_assert_eq(f.total, 20914757184ull, "%llu", (unsigned long long)f.total);
	cr_assert_eq(f.by_role[WS_ROLE_ATTN_SINKS], 24ull * 64);
	cr_assert_eq(f.by_role[WS_ROLE_MOE_ROUTER], 24ull * (2880 * 32 + 32));
	cr_assert_eq(f.active, f.total - 24ull * 28 * (2880ull * 5760 + 5760 + 2880ull * 2880 + 2880));
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(formula, qwen2_moe_shared_expert_and_sparse_step)
{
	/* Qwen1.5-MoE-A2.7B's shape, with decoder_sparse_step 2 and an
	 * mlp_only layer to exercise the layer pattern */
	cJSON *cfg = cJSON_Parse(
		"{\"model_type\":\"qwen2_moe\",\"hidden_size\":2048,\"num_hidden_layers\":6,"
		"\"num_attention_heads\":16,\"num_key_value_heads\":16,\"intermediate_size\":5632,"
		"\"moe_intermediate_size\":1408,\"shared_expert_intermediate_size\":5632,"
		"\"num_experts\":60,\"num_experts_per_tok\":4,\"vocab_size\":151936,"
		"\"decoder_sparse_step\":2,\"mlp_only_layers\":[3],\"tie_word_embeddings\":false}");
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	/* (i + 1) % 2 == 0 → 1, 3, 5; 3 is mlp-only */
	bool moe[6] = {false, true, false, false, false, true};
	for (int i = 0; i < 6; i++)
		cr_assert_eq(ws_arch_layer_is_moe(&a, (uint64_t)i), moe[i], "layer %d", i);
	cr_assert_eq(f.by_role[WS_ROLE_MOE_SHARED_ROUTER], 2ull * 2048);
	cr_assert_eq(f.by_role[WS_ROLE_MOE_SHARED_UP], 2ull * 5632 * 2048);
	cr_assert_eq(f.by_role[WS_ROLE_FFN_UP], 4ull * 5632 * 2048);
	cr_assert_eq(f.by_role[WS_ROLE_ATTN_Q], 6ull * (2048 * 2048 + 2048)); /* q bias */
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(formula, multimodal_wrapper_reads_text_config)
{
	cJSON *cfg = cJSON_Parse(
		"{\"model_type\":\"gemma3\",\"vision_config\":{\"hidden_size\":1152},"
		"\"text_config\":{\"model_type\":\"gemma3_text\",\"hidden_size\":64,"
		"\"num_hidden_layers\":2,\"num_attention_heads\":4,\"num_key_value_heads\":2,"
		"\"head_dim\":32,\"intermediate_size\":128,\"vocab_size\":100}}");
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_assert_str_eq(a.architecture, "gemma3_text");
	cr_assert(ws_sw_has(&a.flags, WS_ARCH_TIED));
	/* per block: 4 norms, q/k norms over head_dim, q 128×64, k/v 64×64,
	 * o 64×128, MLP 3×128×64 */
	uint64_t block = 4 * 64 + 2 * 32 + 128 * 64 + 2 * 64 * 64 + 64 * 128 + 3 * 128 * 64;
	cr_assert_eq(f.total, 100 * 64 + 64 + 2 * block);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* ==== hostile configs ==== */

#define BASE "\"model_type\":\"llama\",\"num_hidden_layers\":2,\"num_attention_heads\":4," \
	     "\"intermediate_size\":128,\"vocab_size\":100"

Test(formula, hostile_configs_name_the_key)
{
	expect_input_error("{" BASE ",\"hidden_size\":\"4096\"}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":-64}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":64.5}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":1e300}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":[64]}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":true}", "hidden_size");
	/* missing, in a type whose catalogue entry has no default for it */
	expect_input_error("{\"model_type\":\"qwen3\",\"num_hidden_layers\":2,\"num_attention_heads\":4,"
			   "\"intermediate_size\":128,\"vocab_size\":100}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":0}", "hidden_size");
	expect_input_error("{" BASE ",\"hidden_size\":66}", "hidden_size"); /* 66 / 4 heads */
	expect_input_error("{" BASE ",\"hidden_size\":64,\"tie_word_embeddings\":\"yes\"}",
			   "tie_word_embeddings");
	expect_input_error("{" BASE ",\"hidden_size\":64,\"num_key_value_heads\":-1}",
			   "num_key_value_heads");
	expect_input_error("{\"model_type\":7}", "model_type");
	/* each value exact in a double, their product overflows 64 bits */
	expect_input_error("{\"model_type\":\"llama\",\"num_hidden_layers\":2,"
			   "\"num_attention_heads\":1,\"intermediate_size\":128,"
			   "\"vocab_size\":4000000000000000,\"hidden_size\":8000}", "vocab_size");
	expect_input_error("{\"model_type\":\"llama\",\"num_hidden_layers\":2,"
			   "\"num_attention_heads\":1,\"intermediate_size\":9000000000000000,"
			   "\"vocab_size\":10,\"hidden_size\":8000000}", "intermediate_size");
	expect_input_error("{\"model_type\":\"llama\",\"num_hidden_layers\":1000000,"
			   "\"num_attention_heads\":1,\"intermediate_size\":4000000000000,"
			   "\"vocab_size\":10,\"hidden_size\":8000}", "num_hidden_layers");
	expect_input_error("{\"model_type\":\"llama\",\"num_hidden_layers\":4000000000,"
			   "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
			   "\"hidden_size\":64}", "num_hidden_layers");
	expect_input_error("{\"model_type\":\"qwen2_moe\",\"num_hidden_layers\":2,"
			   "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
			   "\"hidden_size\":64,\"num_experts\":4,\"num_experts_per_tok\":2,"
			   "\"mlp_only_layers\":{\"a\":1}}", "mlp_only_layers");
	expect_input_error("{\"model_type\":\"mixtral\",\"num_hidden_layers\":2,"
			   "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
			   "\"hidden_size\":64,\"num_local_experts\":4,\"num_experts_per_tok\":5}",
			   "num_experts_per_tok");
}

Test(formula, unknown_model_type_is_not_an_error)
{
	cJSON *cfg = cJSON_Parse("{\"model_type\":\"rwkv\",\"hidden_size\":768}");
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(cfg, "c.json", &a, &err), 0);
	cr_assert_not(a.known);
	cr_assert_str_eq(a.architecture, "rwkv");
	cr_assert_eq(a.hidden_size, 768);
	struct ws_formula f;
	cr_assert_eq(ws_formula_compute(&a, &f, &err), -1);
	cJSON *j = ws_arch_to_json(&a);
	char *s = cJSON_PrintUnformatted(j);
	cr_assert(ws_contains(s, "\"known\":false"), "%s", s);
	free(s);
	cJSON_Delete(j);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* ==== JSON and text ==== */

Test(formula, json_is_exact_and_omits_zero_roles)
{
	cJSON *cfg = cJSON_Parse(deepseek_v3);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cJSON *fj = ws_formula_to_json(&a, &f), *aj = ws_arch_to_json(&a);
	char *fs = cJSON_PrintUnformatted(fj), *as = cJSON_PrintUnformatted(aj);
	cr_assert(ws_contains(fs, "\"total\":671026419200,"), "%s", fs);
	cr_assert(ws_contains(fs, "\"mtp\":13463426304"), "%s", fs);
	cr_assert(ws_contains(fs, "\"attn_kv_b\":"), "%s", fs);
	cr_assert_not(ws_contains(fs, "\"attn_k\":"), "%s", fs);
	cr_assert_not(ws_contains(fs, "\"ffn_gate_up\""), "%s", fs);
	cJSON *bl = cJSON_GetObjectItem(fj, "by_layer");
	/* 61 blocks (3 dense, then MoE) and the MTP layer after them */
	cr_assert_eq(cJSON_GetArraySize(bl), 62);
	static const struct { int i; const char *kind; } kinds[] = {
		{0, "dense"}, {2, "dense"}, {3, "moe"}, {60, "moe"}, {61, "mtp"}};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		cJSON *e = cJSON_GetArrayItem(bl, kinds[k].i);
		cr_assert_str_eq(cJSON_GetObjectItem(e, "layer_kind")->valuestring, kinds[k].kind);
		cr_assert_str_eq(cJSON_GetObjectItem(e, "component")->valuestring, "text");
		char want[16];
		snprintf(want, sizeof want, "%d", kinds[k].i);
		cr_assert_str_eq(cJSON_GetObjectItem(e, "layer")->valuestring, want);
	}
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(bl, 61), "params")->valuestring, "13463426304");
	cr_assert(ws_contains(fs, "\"by_component\":{\"text\":671026419200}"), "%s", fs);
	cr_assert(ws_contains(as, "\"source\":\"config.json\",\"architecture\":\"deepseek_v3\","
			      "\"hidden_size\":7168,\"num_layers\":61,\"num_heads\":128"), "%s", as);
	cr_assert(ws_contains(as, "\"tied_embeddings\":false"), "%s", as);
	cr_assert(ws_contains(as, "\"kv_lora_rank\":512"), "%s", as);
	cr_assert(ws_contains(as, "\"mla\":true"), "%s", as);
	free(fs);
	free(as);
	cJSON_Delete(fj);
	cJSON_Delete(aj);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(formula, explain_shows_numbers)
{
	char *p = ws_shared_path("configs/meta-llama__Llama-2-70b-hf.json");
	if (!p)
		cr_skip_test("../shared is absent");
	cJSON *cfg = ws_load_json(p);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	ws_formula_print_text(out, &a, &f, true);
	fclose(out);
	cr_assert(ws_contains(buf, "68,976,648,192 (69.0B)"), "%s", buf);
	cr_assert(ws_contains(buf, "80 \xc3\x97 (8 \xc3\x97 128) \xc3\x97 8,192 = 671,088,640"), "%s", buf);
	cr_assert(ws_contains(buf, "32,000 \xc3\x97 8,192 = 262,144,000"), "%s", buf);
	free(buf);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	free(p);
}

/* ==== GGUF metadata ==== */

static void
kv_u32(ws_model *m, const char *key, uint64_t v)
{
	ws_kv *kv = ws_model_push_kv(m);
	kv->key = key;
	kv->key_len = (uint32_t)strlen(key);
	kv->type = WS_V_U32;
	kv->num.u = v;
}

static void
kv_str(ws_model *m, const char *key, const char *s)
{
	ws_kv *kv = ws_model_push_kv(m);
	kv->key = key;
	kv->key_len = (uint32_t)strlen(key);
	kv->type = WS_V_STRING;
	kv->data = (const uint8_t *)s;
	kv->data_len = strlen(s);
}

static ws_tensor *
push(ws_model *m, const char *name, ws_role role, int32_t layer, ws_kind kind,
     uint32_t nd, uint64_t d0, uint64_t d1, uint64_t d2)
{
	ws_tensor *t = ws_model_push_tensor(m);
	cr_assert(t);
	uint64_t *s = ws_model_alloc(m, 3 * sizeof *s);
	s[0] = d0;
	s[1] = d1;
	s[2] = d2;
	t->name = ws_model_strndup(m, name, strlen(name));
	t->name_len = (uint32_t)strlen(name);
	t->ndim = nd;
	t->shape = s;
	t->elements = d0 * (nd > 1 ? d1 : 1) * (nd > 2 ? d2 : 1);
	t->params = t->elements;
	t->role = role;
	t->layer = layer;
	t->kind = kind;
	t->dtype = WS_DT_F32;
	return t;
}

/* The tiny llama as GGUF metadata (vocab from the token array). */
static ws_model *
tiny_gguf(void)
{
	ws_model *m = ws_model_new("tiny.gguf");
	kv_str(m, "general.architecture", "llama");
	kv_u32(m, "llama.block_count", 2);
	kv_u32(m, "llama.embedding_length", 64);
	kv_u32(m, "llama.feed_forward_length", 176);
	kv_u32(m, "llama.attention.head_count", 4);
	kv_u32(m, "llama.attention.head_count_kv", 2);
	kv_u32(m, "llama.attention.key_length", 16);
	ws_kv *tok = ws_model_push_kv(m);
	tok->key = "tokenizer.ggml.tokens";
	tok->key_len = (uint32_t)strlen(tok->key);
	tok->type = WS_V_ARRAY;
	tok->arr_type = WS_V_STRING;
	tok->arr_count = 128;
	return m;
}

Test(formula, gguf_metadata)
{
	ws_model *m = tiny_gguf();
	struct ws_arch a;
	struct ws_formula f;
	ws_error err = {0};

	/* vocab-only (no tensors): the llama default, untied */
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), 0, "%s", err.message);
	cr_assert_str_eq(a.source, "gguf");
	cr_assert_eq(a.vocab_size, 128);
	cr_assert_eq(a.head_dim, 16);
	cr_assert_eq(ws_formula_compute(&a, &f, &err), 0, "%s", err.message);
	cr_assert_eq(f.total, 108864);
	ws_formula_free(&f);
	ws_arch_free(&a);

	/* tensors present, no output.weight: tied */
	push(m, "token_embd.weight", WS_ROLE_EMBED, -1, WS_KIND_WEIGHT, 2, 128, 64, 0);
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), 0, "%s", err.message);
	cr_assert(ws_sw_has(&a.flags, WS_ARCH_TIED));
	cr_assert_eq(ws_formula_compute(&a, &f, &err), 0, "%s", err.message);
	cr_assert_eq(f.total, 100672);
	ws_formula_free(&f);
	ws_arch_free(&a);
	ws_model_free(m);
}

Test(formula, gguf_hostile_and_unknown)
{
	ws_model *m = tiny_gguf();
	ws_kv *kv = (ws_kv *)ws_model_find_kv(m, "llama.block_count");
	kv->type = WS_V_STRING;
	kv->data = (const uint8_t *)"2";
	kv->data_len = 1;
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), -1);
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	cr_assert(ws_contains(err.message, "llama.block_count"), "%s", err.message);
	ws_model_free(m);

	m = tiny_gguf();
	kv = (ws_kv *)ws_model_find_kv(m, "llama.attention.head_count");
	kv->type = WS_V_I32;
	kv->num.i = -4;
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), -1);
	cr_assert(ws_contains(err.message, "llama.attention.head_count"), "%s", err.message);
	ws_model_free(m);

	m = ws_model_new("x.gguf");
	kv_str(m, "general.architecture", "rwkv7");
	kv_u32(m, "rwkv7.embedding_length", 2048);
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), 0);
	cr_assert_not(a.known);
	cr_assert_eq(a.hidden_size, 2048);
	ws_arch_free(&a);
	ws_model_free(m);
}

Test(formula, gguf_per_layer_array)
{
	ws_model *m = tiny_gguf();
	ws_kv *kv = (ws_kv *)ws_model_find_kv(m, "llama.feed_forward_length");
	static const uint8_t same[8] = {176, 0, 0, 0, 176, 0, 0, 0};
	kv->type = WS_V_ARRAY;
	kv->arr_type = WS_V_U32;
	kv->arr_count = 2;
	kv->data = same;
	kv->data_len = sizeof same;
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), 0, "%s", err.message);
	cr_assert(a.known);
	cr_assert_eq(a.intermediate_size, 176);
	ws_arch_free(&a);

	static const uint8_t differ[8] = {176, 0, 0, 0, 100, 0, 0, 0};
	kv->data = differ;
	cr_assert_eq(ws_arch_from_gguf(m, &a, &err), 0, "%s", err.message);
	cr_assert_not(a.known);
	ws_arch_free(&a);
	ws_model_free(m);
}

/* ==== comparison ==== */

/* The tiny llama (4 blocks) as HF tensors, with roles set by hand. */
static ws_model *
tiny_model(int skip_layer, bool mha_k_in_block1, bool drop_v0, bool q_bias, bool head)
{
	ws_model *m = ws_model_new("tiny");
	char n[96];
	push(m, "model.embed_tokens.weight", WS_ROLE_EMBED, -1, WS_KIND_WEIGHT, 2, 128, 64, 0);
	push(m, "model.norm.weight", WS_ROLE_FINAL_NORM, -1, WS_KIND_WEIGHT, 1, 64, 0, 0);
	if (head)
		push(m, "lm_head.weight", WS_ROLE_LM_HEAD, -1, WS_KIND_WEIGHT, 2, 128, 64, 0);
	for (int l = 0; l < 4; l++) {
		if (l == skip_layer)
			continue;
#define T(suffix, role, nd, a, b)                                                    \
		snprintf(n, sizeof n, "model.layers.%d." suffix, l);                   \
		push(m, n, WS_ROLE_##role, l, WS_KIND_WEIGHT, nd, a, b, 0)
		T("input_layernorm.weight", ATTN_NORM, 1, 64, 0);
		T("self_attn.q_proj.weight", ATTN_Q, 2, 64, 64);
		if (mha_k_in_block1 && l == 1) {
			T("self_attn.k_proj.weight", ATTN_K, 2, 64, 64);
		} else {
			T("self_attn.k_proj.weight", ATTN_K, 2, 32, 64);
		}
		if (!(drop_v0 && l == 0)) {
			T("self_attn.v_proj.weight", ATTN_V, 2, 32, 64);
		}
		T("self_attn.o_proj.weight", ATTN_O, 2, 64, 64);
		T("post_attention_layernorm.weight", FFN_NORM, 1, 64, 0);
		T("mlp.gate_proj.weight", FFN_GATE, 2, 176, 64);
		T("mlp.up_proj.weight", FFN_UP, 2, 176, 64);
		T("mlp.down_proj.weight", FFN_DOWN, 2, 64, 176);
#undef T
		if (q_bias && l == 2) {
			snprintf(n, sizeof n, "model.layers.%d.self_attn.q_proj.bias", l);
			push(m, n, WS_ROLE_ATTN_Q, l, WS_KIND_BIAS, 1, 64, 0, 0);
		}
	}
	return m;
}

static void
attach(ws_model *m, bool tied)
{
	char cfg[512];
	snprintf(cfg, sizeof cfg,
		 "{\"model_type\":\"llama\",\"vocab_size\":128,\"hidden_size\":64,"
		 "\"intermediate_size\":176,\"num_hidden_layers\":4,\"num_attention_heads\":4,"
		 "\"num_key_value_heads\":2,\"head_dim\":16,\"tie_word_embeddings\":%s}",
		 tied ? "true" : "false");
	cJSON *j = cJSON_Parse(cfg);
	m->arch = calloc(1, sizeof *m->arch);
	m->formula = calloc(1, sizeof *m->formula);
	ws_formula_of(j, m->arch, m->formula);
	cJSON_Delete(j);
}

static size_t
count_code(const ws_model *m, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_findings; i++)
		n += strcmp(m->findings[i].code, code) == 0;
	return n;
}

static const ws_finding *
first_code(const ws_model *m, const char *code)
{
	for (size_t i = 0; i < m->n_findings; i++)
		if (strcmp(m->findings[i].code, code) == 0)
			return &m->findings[i];
	return NULL;
}

Test(compare, clean_model_has_no_findings)
{
	ws_model *m = tiny_model(-1, false, false, false, true);
	attach(m, false);
	cr_assert_eq(ws_model_compare(m), 0);
	for (size_t i = 0; i < m->n_findings; i++)
		cr_log_error("%s: %s", m->findings[i].code, m->findings[i].message);
	cr_assert_eq(m->n_findings, 0);
	ws_model_free(m);
}

Test(compare, mha_k_proj_in_gqa_model)
{
	ws_model *m = tiny_model(-1, true, false, false, true);
	attach(m, false);
	cr_assert_eq(ws_model_compare(m), 0);
	const ws_finding *f = first_code(m, "shape-mismatch");
	cr_assert(f);
	cr_assert_str_eq(f->tensor, "model.layers.1.self_attn.k_proj.weight");
	cr_assert_eq(f->layer, 1);
	cr_assert_eq(f->role, WS_ROLE_ATTN_K);
	cr_assert(ws_contains(f->message, "[64, 64]") && ws_contains(f->message, "[32, 64]"),
		  "%s", f->message);
	f = first_code(m, "count-mismatch");
	cr_assert(f);
	cr_assert_eq(f->role, WS_ROLE_ATTN_K);
	cr_assert_eq(f->expected, 4 * 32 * 64);
	cr_assert_eq(f->actual, 3 * 32 * 64 + 64 * 64);
	cr_assert(ws_contains(f->message, "attn_k"), "%s", f->message);
	cr_assert_eq(count_code(m, "layer-inconsistent"), 1);
	ws_model_free(m);
}

Test(compare, layer_gap_missing_unexpected)
{
	ws_model *m = tiny_model(2, false, true, false, false);
	attach(m, false);
	cr_assert_eq(ws_model_compare(m), 0);
	const ws_finding *g = first_code(m, "layer-gap");
	cr_assert(g);
	cr_assert_eq(g->layer, 2);
	cr_assert_eq(count_code(m, "layer-gap"), 1);
	/* v_proj of block 0 and the head */
	cr_assert_eq(count_code(m, "missing-tensor"), 2);
	bool v0 = false, head = false;
	for (size_t i = 0; i < m->n_findings; i++) {
		const ws_finding *f = &m->findings[i];
		if (strcmp(f->code, "missing-tensor"))
			continue;
		v0 = v0 || (f->role == WS_ROLE_ATTN_V && f->layer == 0);
		head = head || f->role == WS_ROLE_LM_HEAD;
	}
	cr_assert(v0 && head);
	ws_model_free(m);

	m = tiny_model(-1, false, false, true, true);
	attach(m, false);
	cr_assert_eq(ws_model_compare(m), 0);
	const ws_finding *u = first_code(m, "unexpected-tensor");
	cr_assert(u);
	cr_assert_eq(u->severity, WS_SEV_WARNING);
	cr_assert_str_eq(u->tensor, "model.layers.2.self_attn.q_proj.bias");
	ws_model_free(m);
}

Test(compare, tied_config_with_stored_head)
{
	ws_model *m = tiny_model(-1, false, false, false, true);
	attach(m, true);
	cr_assert_eq(ws_model_compare(m), 0);
	const ws_finding *t = first_code(m, "tied-embeddings");
	cr_assert(t);
	cr_assert_eq(t->severity, WS_SEV_WARNING);
	cr_assert_eq(count_code(m, "count-mismatch"), 0);
	cr_assert_eq(count_code(m, "unexpected-tensor"), 0);
	ws_model_free(m);
}

Test(compare, stacked_experts)
{
	/* a llama MoE from GGUF: 3-D expert tensors [E, F, d] */
	ws_model *m = ws_model_new("moe.gguf");
	kv_str(m, "general.architecture", "llama");
	kv_u32(m, "llama.block_count", 1);
	kv_u32(m, "llama.embedding_length", 32);
	kv_u32(m, "llama.feed_forward_length", 48);
	kv_u32(m, "llama.attention.head_count", 2);
	kv_u32(m, "llama.vocab_size", 50);
	kv_u32(m, "llama.expert_count", 4);
	kv_u32(m, "llama.expert_used_count", 2);
	push(m, "token_embd.weight", WS_ROLE_EMBED, -1, WS_KIND_WEIGHT, 2, 50, 32, 0);
	push(m, "output_norm.weight", WS_ROLE_FINAL_NORM, -1, WS_KIND_WEIGHT, 1, 32, 0, 0);
	push(m, "blk.0.attn_norm.weight", WS_ROLE_ATTN_NORM, 0, WS_KIND_WEIGHT, 1, 32, 0, 0);
	push(m, "blk.0.attn_q.weight", WS_ROLE_ATTN_Q, 0, WS_KIND_WEIGHT, 2, 32, 32, 0);
	push(m, "blk.0.attn_k.weight", WS_ROLE_ATTN_K, 0, WS_KIND_WEIGHT, 2, 32, 32, 0);
	push(m, "blk.0.attn_v.weight", WS_ROLE_ATTN_V, 0, WS_KIND_WEIGHT, 2, 32, 32, 0);
	push(m, "blk.0.attn_output.weight", WS_ROLE_ATTN_O, 0, WS_KIND_WEIGHT, 2, 32, 32, 0);
	push(m, "blk.0.ffn_norm.weight", WS_ROLE_FFN_NORM, 0, WS_KIND_WEIGHT, 1, 32, 0, 0);
	push(m, "blk.0.ffn_gate_inp.weight", WS_ROLE_MOE_ROUTER, 0, WS_KIND_WEIGHT, 2, 4, 32, 0);
	push(m, "blk.0.ffn_gate_exps.weight", WS_ROLE_MOE_GATE, 0, WS_KIND_WEIGHT, 3, 4, 48, 32);
	push(m, "blk.0.ffn_up_exps.weight", WS_ROLE_MOE_UP, 0, WS_KIND_WEIGHT, 3, 4, 48, 32);
	push(m, "blk.0.ffn_down_exps.weight", WS_ROLE_MOE_DOWN, 0, WS_KIND_WEIGHT, 3, 4, 32, 40);
	ws_error err = {0};
	m->arch = calloc(1, sizeof *m->arch);
	m->formula = calloc(1, sizeof *m->formula);
	cr_assert_eq(ws_arch_from_gguf(m, m->arch, &err), 0, "%s", err.message);
	cr_assert(ws_sw_has(&m->arch->flags, WS_ARCH_TIED));
	cr_assert_eq(ws_formula_compute(m->arch, m->formula, &err), 0, "%s", err.message);
	cr_assert_eq(m->formula->active, m->formula->total - 2 * 3 * 48 * 32);
	cr_assert_eq(ws_model_compare(m), 0);
	/* the planted defect: ffn_down_exps with 40 instead of 48 */
	cr_assert_eq(count_code(m, "shape-mismatch"), 1);
	cr_assert_str_eq(first_code(m, "shape-mismatch")->tensor, "blk.0.ffn_down_exps.weight");
	cr_assert_eq(count_code(m, "count-mismatch"), 1);
	cr_assert_eq(m->n_findings, 2);
	ws_model_free(m);
}
