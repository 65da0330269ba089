/*
 * catalogue.c - the architecture entries, one per model_type, as data.
 *
 * Read by arch.c (config.json and GGUF metadata through these entries)
 * and from there by the formula, roles, flops and the report.  A new
 * decoder model_type built from known layer kinds is one entry here: its
 * names, norm and MLP kind, switches, the config booleans that change
 * them, the class-name prefix of its `architectures`, and the defaults of
 * its transformers config class for the keys a config.json may omit.
 */
#include <string.h>

#include "catalogue/catalogue.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define QKVO (WS_ARCH_QKV_BIAS | WS_ARCH_O_BIAS)
#define ALLB (WS_ARCH_QKV_BIAS | WS_ARCH_O_BIAS | WS_ARCH_MLP_BIAS)
#define D(k, v) {k, WS_CAT_NUM, v}
#define DTRUE(k) {k, WS_CAT_TRUE, 0}
#define DFALSE(k) {k, WS_CAT_FALSE, 0}

/* An entry leaves the fields after the last it needs at their zero
 * meaning (no defaults, every layer slides): that is the point of the
 * table, so the warning about it is off here. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* {names}, gguf, norm, mlp, always, by default, {config booleans}, ffn 4×,
 * fixup, class prefix, class defaults, sliding rule and its period */
static const struct ws_cat_entry entries[] = {
	{{"llama"}, "llama", WS_NORM_RMS, WS_MLP_GATED, 0, 0, {{"attention_bias", QKVO}, {"mlp_bias", WS_ARCH_MLP_BIAS}}, false, WS_FIX_NONE, "Llama", {{0}}},
	{{"mistral"}, NULL, WS_NORM_RMS, WS_MLP_GATED, 0, 0, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Mistral", {{0}}},
	{{"mixtral"}, NULL, WS_NORM_RMS, WS_MLP_GATED, 0, 0, {{0}}, false, WS_FIX_NONE, "Mixtral", {{0}}},
	{{"qwen2"}, "qwen2", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_QKV_BIAS, 0, {{0}}, false, WS_FIX_NONE, "Qwen2", {{0}}, WS_SLIDE_FROM, 0},
	{{"qwen2_moe"}, "qwen2moe", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_QKV_BIAS | WS_ARCH_SHARED_GATE, 0, {{0}}, false, WS_FIX_NONE, "Qwen2Moe", {{0}}, WS_SLIDE_FROM, 0},
	{{"qwen3"}, "qwen3", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_QK_NORM_HEAD, 0, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Qwen3", {{0}}, WS_SLIDE_FROM, 0},
	{{"qwen3_moe"}, "qwen3moe", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_QK_NORM_HEAD, 0, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Qwen3Moe", {{0}}, WS_SLIDE_FROM, 0},
	{{"gemma"}, "gemma", WS_NORM_RMS, WS_MLP_GATED, 0, WS_ARCH_TIED, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Gemma", {{0}}},
	{{"gemma2"}, "gemma2", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_POST_NORMS, WS_ARCH_TIED, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Gemma2", {{0}}, WS_SLIDE_EVEN, 0},
	{{"gemma3_text", "gemma3"}, "gemma3", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_POST_NORMS | WS_ARCH_QK_NORM_HEAD, WS_ARCH_TIED, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Gemma3",
	 {D("vocab_size", 262208), D("hidden_size", 2304), D("intermediate_size", 9216), D("num_hidden_layers", 26),
	 D("num_attention_heads", 8), D("num_key_value_heads", 4), D("head_dim", 256), DTRUE("tie_word_embeddings")},
	 WS_SLIDE_PATTERN, 6},
	{{"phi"}, "phi2", WS_NORM_LAYER, WS_MLP_PLAIN, ALLB | WS_ARCH_LM_HEAD_BIAS | WS_ARCH_PARALLEL, 0, {{"qk_layernorm", WS_ARCH_QK_NORM_HEAD | WS_ARCH_QK_NORM_BIAS}}, false, WS_FIX_NONE, "Phi", {{0}}},
	{{"phi3"}, "phi3", WS_NORM_RMS, WS_MLP_GATED_FUSED, WS_ARCH_FUSED_QKV, 0, {{0}}, false, WS_FIX_NONE, "Phi3", {{0}}},
	{{"phimoe"}, "phimoe", WS_NORM_LAYER, WS_MLP_GATED, 0, 0, {{"attention_bias", QKVO}, {"lm_head_bias", WS_ARCH_LM_HEAD_BIAS}}, false, WS_FIX_NONE, "PhiMoE", {{0}}},
	{{"gpt2"}, "gpt2", WS_NORM_LAYER, WS_MLP_PLAIN, ALLB | WS_ARCH_FUSED_QKV | WS_ARCH_LEARNED_POS, WS_ARCH_TIED, {{0}}, true, WS_FIX_NONE, "GPT2", {{0}}},
	{{"gptj"}, "gptj", WS_NORM_LAYER, WS_MLP_PLAIN, WS_ARCH_MLP_BIAS | WS_ARCH_LM_HEAD_BIAS | WS_ARCH_PARALLEL, 0, {{0}}, true, WS_FIX_NONE, "GPTJ", {{0}}},
	{{"gpt_neox"}, "gptneox", WS_NORM_LAYER, WS_MLP_PLAIN, WS_ARCH_MLP_BIAS | WS_ARCH_FUSED_QKV, QKVO, {{"attention_bias", QKVO}}, true, WS_FIX_NONE, "GPTNeoX", {{0}}},
	{{"falcon"}, "falcon", WS_NORM_LAYER, WS_MLP_PLAIN, WS_ARCH_FUSED_QKV, WS_ARCH_TIED, {{"bias", ALLB}}, true, WS_FIX_FALCON, "Falcon", {{0}}},
	{{"olmo"}, "olmo", WS_NORM_NONE, WS_MLP_GATED, 0, 0, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Olmo", {{0}}},
	{{"olmo2"}, "olmo2", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_NO_PRE_NORM | WS_ARCH_POST_NORMS | WS_ARCH_QK_NORM_FULL, 0, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Olmo2", {{0}}},
	{{"starcoder2"}, "starcoder2", WS_NORM_LAYER, WS_MLP_PLAIN, 0, ALLB | WS_ARCH_TIED, {{"use_bias", ALLB}}, false, WS_FIX_NONE, "Starcoder2", {{0}}},
	{{"stablelm"}, "stablelm", WS_NORM_LAYER, WS_MLP_GATED, 0, 0, {{"use_qkv_bias", WS_ARCH_QKV_BIAS}, {"qk_layernorm", WS_ARCH_QK_NORM_FULL}, {"use_parallel_residual", WS_ARCH_PARALLEL}}, false, WS_FIX_NONE, "StableLm", {{0}}},
	{{"bloom"}, "bloom", WS_NORM_LAYER, WS_MLP_PLAIN, ALLB | WS_ARCH_FUSED_QKV | WS_ARCH_EMBED_NORM, WS_ARCH_TIED, {{0}}, true, WS_FIX_NONE, "Bloom", {{0}}},
	{{"cohere"}, "command-r", WS_NORM_LAYER_NOBIAS, WS_MLP_GATED, WS_ARCH_PARALLEL, WS_ARCH_TIED, {{"attention_bias", QKVO}, {"use_qk_norm", WS_ARCH_QK_NORM_FULL}}, false, WS_FIX_NONE, "Cohere", {{0}}},
	{{"internlm2"}, "internlm2", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_FUSED_QKV, QKVO, {{"bias", QKVO}}, false, WS_FIX_NONE, "InternLM2", {{0}}},
	{{"chatglm"}, "chatglm", WS_NORM_RMS, WS_MLP_GATED_FUSED, WS_ARCH_FUSED_QKV, 0, {{"add_qkv_bias", WS_ARCH_QKV_BIAS}, {"add_bias_linear", WS_ARCH_O_BIAS | WS_ARCH_MLP_BIAS}}, false, WS_FIX_NONE, NULL, {{0}}},
	{{"deepseek_v2"}, "deepseek2", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_MLA, 0, {{0}}, false, WS_FIX_DEEPSEEK, "DeepseekV2", {{0}}},
	{{"deepseek_v3"}, NULL, WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_MLA | WS_ARCH_ROUTER_SCORE_BIAS, 0, {{0}}, false, WS_FIX_DEEPSEEK, "DeepseekV3", {{0}}},
	{{"llama4_text", "llama4"}, "llama4", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_MOE_FUSED, 0, {{"attention_bias", QKVO}}, false, WS_FIX_LLAMA4, "Llama4", {{0}}},
	{{"gpt_oss"}, "gpt-oss", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_SINKS | WS_ARCH_MOE_FUSED | WS_ARCH_MOE_BIAS | WS_ARCH_ROUTER_BIAS, QKVO, {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "GptOss", {{0}}, WS_SLIDE_EVEN, 0},

	/* The original Falcon code (RWConfig, trust_remote_code): its class
	 * defaults differ from FalconConfig's; a config with n_head_kv is the
	 * 40B code's layout (ln_attn and ln_mlp, grouped kv heads). */
	{{"RefinedWebModel", "RefinedWeb"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, WS_ARCH_FUSED_QKV, WS_ARCH_TIED,
	 {{"bias", ALLB}}, true, WS_FIX_FALCON, "RW",
	 {D("vocab_size", 250880), D("hidden_size", 64), D("n_layer", 2), D("n_head", 8),
	  DFALSE("multi_query"), DFALSE("parallel_attn"), DFALSE("bias"),
	  DTRUE("tie_word_embeddings")}},
	{{"granite"}, "granite", WS_NORM_RMS, WS_MLP_GATED, 0, 0,
	 {{"attention_bias", QKVO}, {"mlp_bias", WS_ARCH_MLP_BIAS}}, false, WS_FIX_NONE, "Granite",
	 {D("vocab_size", 32000), D("hidden_size", 4096), D("intermediate_size", 11008),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32)}},
	{{"smollm3"}, "smollm3", WS_NORM_RMS, WS_MLP_GATED, 0, WS_ARCH_TIED,
	 {{"attention_bias", QKVO}, {"mlp_bias", WS_ARCH_MLP_BIAS}}, false, WS_FIX_NONE, "SmolLM3",
	 {D("vocab_size", 128256), D("hidden_size", 2048), D("intermediate_size", 11008),
	  D("num_hidden_layers", 36), D("num_attention_heads", 16), D("num_key_value_heads", 4),
	  DTRUE("tie_word_embeddings")}},
	/* OLMoE: q/k norms over the whole q and k widths; every layer MoE */
	{{"olmoe"}, "olmoe", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_QK_NORM_FULL, 0,
	 {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Olmoe",
	 {D("vocab_size", 50304), D("hidden_size", 2048), D("intermediate_size", 2048),
	  D("num_hidden_layers", 16), D("num_attention_heads", 16), D("num_experts", 64),
	  D("num_experts_per_tok", 8)}},
	/* OLMo 3: OLMo 2's post-norm layer (sliding layers have the same tensors) */
	{{"olmo3"}, NULL, WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_NO_PRE_NORM | WS_ARCH_POST_NORMS | WS_ARCH_QK_NORM_FULL, 0,
	 {{"attention_bias", QKVO}}, false, WS_FIX_NONE, "Olmo3",
	 {D("vocab_size", 50304), D("hidden_size", 4096), D("intermediate_size", 11008),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32)}},
	/* GLM-4.5: attention_bias on q, k, v only; DeepSeek-style routing and
	 * shared experts; the MTP layers after the last are counted apart */
	{{"glm4_moe"}, "glm4moe", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_ROUTER_SCORE_BIAS, 0,
	 {{"attention_bias", WS_ARCH_QKV_BIAS}, {"use_qk_norm", WS_ARCH_QK_NORM_HEAD}}, false, WS_FIX_NONE, "Glm4Moe",
	 {D("vocab_size", 151552), D("hidden_size", 4096), D("intermediate_size", 10944),
	  D("num_hidden_layers", 46), D("num_attention_heads", 96), D("num_key_value_heads", 8),
	  D("moe_intermediate_size", 1408), D("num_experts_per_tok", 8), D("n_shared_experts", 1),
	  D("n_routed_experts", 128), D("first_k_dense_replace", 1)}},
	/* EXAONE 4: OLMo 2's post-norm layer with per-head q/k norms */
	{{"exaone4"}, "exaone4", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_NO_PRE_NORM | WS_ARCH_POST_NORMS | WS_ARCH_QK_NORM_HEAD, 0,
	 {{0}}, false, WS_FIX_NONE, "Exaone4",
	 {D("vocab_size", 102400), D("hidden_size", 4096), D("intermediate_size", 16384),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32), D("num_key_value_heads", 32)}},
	/* Apertus: a plain MLP with xIELU's two learnable scalars per layer
	 * (its beta and eps are buffers), per-head q/k norms */
	{{"apertus"}, "apertus", WS_NORM_RMS, WS_MLP_PLAIN, WS_ARCH_QK_NORM_HEAD | WS_ARCH_XIELU, 0,
	 {{"attention_bias", QKVO}, {"mlp_bias", WS_ARCH_MLP_BIAS}}, false, WS_FIX_NONE, "Apertus",
	 {D("vocab_size", 131072), D("hidden_size", 4096), D("intermediate_size", 14336),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32)}},
	/* DeepSeek-V3.2: DeepSeek-V3 with a lightning indexer in every layer
	 * (index_n_heads × index_head_dim queries from the low-rank q) */
	{{"deepseek_v32"}, "deepseek32", WS_NORM_RMS, WS_MLP_GATED, WS_ARCH_MLA | WS_ARCH_ROUTER_SCORE_BIAS, 0,
	 {{0}}, false, WS_FIX_DEEPSEEK, "DeepseekV32",
	 {D("vocab_size", 129280), D("hidden_size", 7168), D("intermediate_size", 18432),
	  D("moe_intermediate_size", 2048), D("num_hidden_layers", 61), D("num_attention_heads", 128),
	  D("num_key_value_heads", 128), D("n_shared_experts", 1), D("n_routed_experts", 256),
	  D("kv_lora_rank", 512), D("q_lora_rank", 1536), D("qk_rope_head_dim", 64),
	  D("v_head_dim", 128), D("qk_nope_head_dim", 128), D("num_experts_per_tok", 8),
	  D("first_k_dense_replace", 3), D("index_n_heads", 64), D("index_head_dim", 128)}},
};

static const struct {
	const char *name;     /* SPEC layer_kind */
	const char *config;   /* its layer_types spelling, or NULL */
} layer_kinds[WS_LK_COUNT] = {
	[WS_LK_ATTENTION] = {"attention", "full_attention"},
	[WS_LK_SLIDING] = {"sliding_attention", "sliding_attention"},
	[WS_LK_MAMBA] = {"mamba", "mamba"},
	[WS_LK_MAMBA2] = {"mamba2", "mamba2"},
	[WS_LK_LINEAR] = {"linear_attention", "linear_attention"},
	[WS_LK_CONV] = {"conv", "conv"},
	[WS_LK_MOE] = {"moe", NULL},
	[WS_LK_DENSE] = {"dense", NULL},
	[WS_LK_MTP] = {"mtp", NULL},
};

const char *
ws_layer_kind_name(enum ws_layer_kind k)
{
	return (unsigned)k < WS_LK_COUNT ? layer_kinds[k].name : "?";
}

int
ws_layer_kind_from_config(const char *s)
{
	for (int k = 0; s && k < WS_LK_COUNT; k++)
		if (layer_kinds[k].config && strcmp(layer_kinds[k].config, s) == 0)
			return k;
	if (s && strcmp(s, "attention") == 0)
		return WS_LK_ATTENTION;
	return -1;
}

/* The head each class suffix adds; first match wins, so LMHeadModel
 * (GPT-2) is read before the bare Model of a base class. */
static const struct {
	const char *suffix;
	enum ws_cat_head head;
} class_heads[] = {
	{"ForCausalLM", WS_HEAD_LM},
	{"LMHeadModel", WS_HEAD_LM},
	{"ForConditionalGeneration", WS_HEAD_LM},
	{"Model", WS_HEAD_NONE},
	{"ForSequenceClassification", WS_HEAD_OTHER},
	{"ForTokenClassification", WS_HEAD_OTHER},
	{"ForQuestionAnswering", WS_HEAD_OTHER},
};

/* Components of multimodal checkpoints, by the prefixes transformers
 * saves them under (before and after the 4.52 refactor). */
static const struct ws_cat_component components[] = {
	{"vision_tower.", "vision_tower", "vision"},
	{"model.vision_tower.", "vision_tower", "vision"},
	{"multi_modal_projector.", "multi_modal_projector", "projector"},
	{"model.multi_modal_projector.", "multi_modal_projector", "projector"},
	{"audio_tower.", "audio_tower", "audio"},
	{"model.audio_tower.", "audio_tower", "audio"},
};

size_t
ws_cat_component_prefix_max(void)
{
	size_t most = 0;
	for (size_t i = 0; i < ARRAY_LEN(components); i++)
		if (strlen(components[i].prefix) > most)
			most = strlen(components[i].prefix);
	return most;
}

const struct ws_cat_component *
ws_cat_component_of(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(components); i++) {
		size_t n = strlen(components[i].prefix);
		if (len > n && memcmp(name, components[i].prefix, n) == 0)
			return &components[i];
	}
	return NULL;
}

const struct ws_cat_entry *
ws_cat_by_model_type(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(entries); i++)
		for (size_t j = 0; j < WS_CAT_MAX_NAMES; j++)
			if (entries[i].names[j] && strcmp(entries[i].names[j], name) == 0)
				return &entries[i];
	return NULL;
}

/* Does name fold (lower case, no '_' or '-') to folded? */
static bool
folds_to(const char *name, const char *folded)
{
	for (;; name++) {
		if (*name == '_' || *name == '-')
			continue;
		char c = *name >= 'A' && *name <= 'Z' ? (char)(*name - 'A' + 'a') : *name;
		if (c != *folded)
			return false;
		if (!c)
			return true;
		folded++;
	}
}

const struct ws_cat_entry *
ws_cat_by_folded(const char *folded)
{
	for (size_t i = 0; i < ARRAY_LEN(entries); i++) {
		const struct ws_cat_entry *e = &entries[i];
		for (size_t j = 0; j < WS_CAT_MAX_NAMES; j++)
			if (e->names[j] && folds_to(e->names[j], folded))
				return e;
		if (e->gguf && folds_to(e->gguf, folded))
			return e;
	}
	return NULL;
}

const struct ws_cat_entry *
ws_cat_by_gguf(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(entries); i++)
		if (entries[i].gguf && strcmp(entries[i].gguf, name) == 0)
			return &entries[i];
	return NULL;
}

const struct ws_cat_entry *
ws_cat_by_class(const char *cls, enum ws_cat_head *head)
{
	for (size_t i = 0; i < ARRAY_LEN(entries); i++) {
		const char *p = entries[i].cls;
		size_t n = p ? strlen(p) : 0;
		if (!n || strncmp(cls, p, n) != 0)
			continue;
		for (size_t j = 0; j < ARRAY_LEN(class_heads); j++) {
			if (strcmp(cls + n, class_heads[j].suffix) == 0) {
				*head = class_heads[j].head;
				return &entries[i];
			}
		}
	}
	return NULL;
}

const struct ws_cat_default *
ws_cat_default(const struct ws_cat_entry *e, const char *key)
{
	for (size_t i = 0; i < WS_CAT_MAX_DEFAULTS && e->defs[i].kind != WS_CAT_END; i++)
		if (strcmp(e->defs[i].key, key) == 0)
			return &e->defs[i];
	return NULL;
}
