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
/* switch sets: SW(QKVO, WS_ARCH_TIED) */
#define SW(...) WS_SWITCHES(__VA_ARGS__)
#define NOSW WS_NO_SWITCHES
#define QKVO WS_ARCH_QKV_BIAS, WS_ARCH_O_BIAS
#define ALLB WS_ARCH_QKV_BIAS, WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS
#define D(k, v) {k, WS_CAT_NUM, v}
#define DTRUE(k) {k, WS_CAT_TRUE, 0}
#define DFALSE(k) {k, WS_CAT_FALSE, 0}
#define DLAYERS(k, mask) {k, WS_CAT_LAYERS, mask}

/* An entry leaves the fields after the last it needs at their zero
 * meaning (no defaults, every layer slides): that is the point of the
 * table, so the warning about it is off here. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* The GGUF keys llama.cpp's converter writes for a stack's mixers: a
 * Mamba-2's ssm.time_step_rank is its head count; Gated DeltaNet's state
 * is the key head width, its groups the key heads, its rank the value
 * heads (and inner_size the value width) */
static const struct ws_cat_gkey mamba2_gguf[] = {
	{"ssm.conv_kernel", WS_AK_SSM_CONV}, {"ssm.inner_size", WS_AK_SSM_INNER},
	{"ssm.state_size", WS_AK_SSM_STATE}, {"ssm.group_count", WS_AK_SSM_GROUPS},
	{"ssm.time_step_rank", WS_AK_SSM_HEADS}, {NULL, 0},
};
static const struct ws_cat_gkey gdn_gguf[] = {
	{"ssm.conv_kernel", WS_AK_SSM_CONV}, {"ssm.inner_size", WS_AK_SSM_INNER},
	{"ssm.state_size", WS_AK_LIN_K_DIM}, {"ssm.group_count", WS_AK_LIN_K_HEADS},
	{"ssm.time_step_rank", WS_AK_LIN_V_HEADS}, {NULL, 0},
};

/* Stacks that are not all attention (catalogue.h). */
/* Mamba, FalconMamba: a config's intermediate_size is the inner width
 * (it outlives the class's expand × hidden: falcon-mamba-7b says expand
 * 16 beside intermediate_size 8,192, and loads as 8,192) */
static const struct ws_cat_stack mamba_stack = {
	.mixer = WS_MIX_MAMBA, .ffn = WS_FFN_NONE, .ssm = WS_MIX_MAMBA, .inner = "intermediate_size",
};
/* Mamba-2: its config's num_heads are the SSM's heads */
static const struct ws_cat_stack mamba2_stack = {
	.mixer = WS_MIX_MAMBA2, .ffn = WS_FFN_NONE, .ssm = WS_MIX_MAMBA2, .ssm_heads = "num_heads",
	.gguf_keys = mamba2_gguf,
};
/* Nemotron-H: a letter per layer, each one mixer or one MLP; E
 * (Nemotron-3) a MoE of squared-ReLU experts and shared experts */
static const struct ws_cat_stack nemotron_h_stack = {
	.mixer = WS_MIX_MAMBA2, .ffn = WS_FFN_NONE, .ssm = WS_MIX_MAMBA2,
	.pattern = "hybrid_override_pattern",
	.letters = {{'M', WS_MIX_MAMBA2, WS_FFN_NONE}, {'*', WS_MIX_ATTN, WS_FFN_NONE},
		    {'-', WS_MIX_NONE, WS_FFN_DENSE}, {'E', WS_MIX_NONE, WS_FFN_MOE}},
	.ssm_heads = "mamba_num_heads", .ssm_head_dim = "mamba_head_dim",
	.unmodelled = "moe_latent_size",
	.unmodelled_why = "moe_latent_size (experts in a latent width, fc1/fc2_latent_proj) is not modelled",
	.gguf_keys = mamba2_gguf,
};
/* Jamba: Mamba layers, attention every attn_layer_period-th, a MoE
 * feed-forward every expert_layer_period-th, dense elsewhere */
static const struct ws_cat_stack jamba_stack = {
	.mixer = WS_MIX_MAMBA, .ffn = WS_FFN_DENSE, .ssm = WS_MIX_MAMBA, .placed = WS_MIX_ATTN,
	.period = "attn_layer_period", .offset = "attn_layer_offset",
	.expert_period = "expert_layer_period", .expert_offset = "expert_layer_offset",
};
/* Falcon-H1: attention and a Mamba-2 mixer side by side in every
 * layer, then a dense MLP; the SSM's width is mamba_d_ssm (null:
 * mamba_expand × hidden) */
static const struct ws_cat_stack falcon_h1_stack = {
	.mixer = WS_MIX_PARALLEL, .ffn = WS_FFN_DENSE, .ssm = WS_MIX_MAMBA2,
	.inner = "mamba_d_ssm", .ssm_heads = "mamba_n_heads", .gguf_keys = mamba2_gguf,
};
/* Granite-4.0-H: Mamba-2 layers, attention where layer_types says;
 * every layer's feed-forward the shared MLP, MoE beside it when the
 * config has experts */
static const struct ws_cat_stack granite_h_stack = {
	.mixer = WS_MIX_MAMBA2, .ffn = WS_FFN_DENSE, .ssm = WS_MIX_MAMBA2, .ssm_heads = "mamba_n_heads",
	.gguf_keys = mamba2_gguf,
};
/* LFM2: short-convolution layers and attention where layer_types or
 * full_attn_idxs says (neither: every layer attention, as Lfm2Config
 * reads it), a SwiGLU feed-forward in every layer */
static const struct ws_cat_stack lfm2_stack = {
	.mixer = WS_MIX_ATTN, .ffn = WS_FFN_DENSE, .ssm = WS_MIX_MAMBA2, .placed = WS_MIX_ATTN,
	.indices = "full_attn_idxs", .other = WS_MIX_CONV, .gguf_final_norm = "token_embd_norm.weight",
};
/* Qwen3-Next: Gated DeltaNet layers, full attention every
 * full_attention_interval-th (a config's layer_types wins) */
static const struct ws_cat_stack qwen3_next_stack = {
	.mixer = WS_MIX_LINEAR, .ffn = WS_FFN_DENSE, .ssm = WS_MIX_MAMBA2, .placed = WS_MIX_ATTN,
	.interval = "full_attention_interval", .gguf_keys = gdn_gguf,
};

/* Mllama's text stack: cross-attention layers where
 * cross_attention_layers lists them, self-attention elsewhere */
static const int32_t mllama_xattn_default[] = {3, 8, 13, 18, 23, 28, 33, 38, -1};
static const struct ws_cat_stack mllama_stack = {
	.mixer = WS_MIX_ATTN, .ffn = WS_FFN_DENSE, .placed = WS_MIX_XATTN, .listed = "cross_attention_layers",
	.listed_default = mllama_xattn_default,
};

/* The head each class suffix adds; first match wins, so LMHeadModel
 * (GPT-2) is read before the bare Model of a base class. */
static const struct ws_cat_class decoder_classes[] = {
	{"ForCausalLM", WS_HEAD_LM, NOSW},
	{"LMHeadModel", WS_HEAD_LM, NOSW},
	{"ForConditionalGeneration", WS_HEAD_LM, NOSW},
	{"Model", WS_HEAD_NONE, NOSW},
	{"ForSequenceClassification", WS_HEAD_OTHER, NOSW},
	{"ForTokenClassification", WS_HEAD_OTHER, NOSW},
	{"ForQuestionAnswering", WS_HEAD_OTHER, NOSW},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* BERT's classes: the pooler where the class builds its body with
 * add_pooling_layer left true; the masked-LM decoder is the tied LM head. */
static const struct ws_cat_class bert_classes[] = {
	{"Model", WS_HEAD_NONE, SW(WS_ARCH_POOLER)},
	{"ForMaskedLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"LMHeadModel", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForPreTraining", WS_HEAD_LM, SW(WS_ARCH_POOLER, WS_ARCH_MLM, WS_ARCH_NSP)},
	{"ForNextSentencePrediction", WS_HEAD_NONE, SW(WS_ARCH_POOLER, WS_ARCH_NSP)},
	{"ForSequenceClassification", WS_HEAD_NONE, SW(WS_ARCH_POOLER, WS_ARCH_CLASSIFIER)},
	{"ForMultipleChoice", WS_HEAD_NONE, SW(WS_ARCH_POOLER, WS_ARCH_CHOICE)},
	{"ForTokenClassification", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{"ForQuestionAnswering", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* RoBERTa's (XLM-R's alike): sequence classification is a dense layer
 * and an output projection over the first token, without the pooler. */
static const struct ws_cat_class roberta_classes[] = {
	{"Model", WS_HEAD_NONE, SW(WS_ARCH_POOLER)},
	{"ForMaskedLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForCausalLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForSequenceClassification", WS_HEAD_NONE, SW(WS_ARCH_CLS_DENSE, WS_ARCH_CLASSIFIER)},
	{"ForMultipleChoice", WS_HEAD_NONE, SW(WS_ARCH_POOLER, WS_ARCH_CHOICE)},
	{"ForTokenClassification", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{"ForQuestionAnswering", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* DistilBERT's: no pooler anywhere; pre_classifier is the dense layer
 * before a sequence or multiple-choice classifier. */
static const struct ws_cat_class distilbert_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ForMaskedLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForSequenceClassification", WS_HEAD_NONE, SW(WS_ARCH_CLS_DENSE, WS_ARCH_CLASSIFIER)},
	{"ForMultipleChoice", WS_HEAD_NONE, SW(WS_ARCH_CLS_DENSE, WS_ARCH_CHOICE)},
	{"ForTokenClassification", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{"ForQuestionAnswering", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* ELECTRA's: no pooler; the discriminator's head (ForPreTraining) is a
 * dense layer and one output per token, the generator's (ForMaskedLM)
 * a masked-LM head of the embedding width. */
static const struct ws_cat_class electra_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ForPreTraining", WS_HEAD_NONE, SW(WS_ARCH_CLS_DENSE, WS_ARCH_CHOICE)},
	{"ForMaskedLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForCausalLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForSequenceClassification", WS_HEAD_NONE, SW(WS_ARCH_CLS_DENSE, WS_ARCH_CLASSIFIER)},
	{"ForTokenClassification", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{"ForQuestionAnswering", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* ViT's: the pooler where the body keeps add_pooling_layer (ViTModel);
 * the image classifier reads the final norm's class token, no pooler. */
static const struct ws_cat_class vit_classes[] = {
	{"Model", WS_HEAD_NONE, SW(WS_ARCH_POOLER)},
	{"ForImageClassification", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* A tower of a dual encoder alone (CLIPTextModel) or with its projection
 * into the joint space (CLIPTextModelWithProjection) */
static const struct ws_cat_class text_tower_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ModelWithProjection", WS_HEAD_NONE, SW(WS_ARCH_TEXT_PROJ)},
	{NULL, WS_HEAD_NONE, NOSW},
};
static const struct ws_cat_class vision_tower_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ModelWithProjection", WS_HEAD_NONE, SW(WS_ARCH_VISUAL_PROJ)},
	{NULL, WS_HEAD_NONE, NOSW},
};
/* a dual encoder's own class: its towers (their parts say what it adds) */
static const struct ws_cat_class dual_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* DeBERTa-v2's (v3's alike): no pooler in the body; the sequence and
 * multiple-choice heads pool the first token through their own dense
 * layer (ContextPooler, saved as pooler.dense beside the body). */
static const struct ws_cat_class deberta_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ForMaskedLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForSequenceClassification", WS_HEAD_NONE, SW(WS_ARCH_POOLER, WS_ARCH_CLASSIFIER)},
	{"ForMultipleChoice", WS_HEAD_NONE, SW(WS_ARCH_POOLER, WS_ARCH_CHOICE)},
	{"ForTokenClassification", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{"ForQuestionAnswering", WS_HEAD_NONE, SW(WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* ModernBERT's: every head starts with a dense layer and a norm (head.*);
 * the masked-LM decoder is the tied embedding with a bias. */
static const struct ws_cat_class modernbert_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ForMaskedLM", WS_HEAD_LM, SW(WS_ARCH_MLM)},
	{"ForSequenceClassification", WS_HEAD_NONE, SW(WS_ARCH_HEAD_TRANSFORM, WS_ARCH_CLASSIFIER)},
	{"ForTokenClassification", WS_HEAD_NONE, SW(WS_ARCH_HEAD_TRANSFORM, WS_ARCH_CLASSIFIER)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* nomic-bert's (remote code): the embedding model without a pooler */
static const struct ws_cat_class nomic_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* The components of wrappers: the main one first, then the others by
 * the module prefixes transformers saves them under (before and after
 * its 4.52 refactor). */
static const struct ws_cat_part clip_parts[] = {
	{"text", NULL, "text_config", "clip_text_model", SW(WS_ARCH_TEXT_PROJ, WS_ARCH_LOGIT_SCALE), {NULL}},
	{"vision", "vision_model", "vision_config", "clip_vision_model", SW(WS_ARCH_VISUAL_PROJ),
	 {"vision_model.", "visual_projection."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part siglip_parts[] = {
	{"text", NULL, "text_config", "siglip_text_model", SW(WS_ARCH_LOGIT_SCALE, WS_ARCH_LOGIT_BIAS), {NULL}},
	{"vision", "vision_model", "vision_config", "siglip_vision_model", NOSW, {"vision_model."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part llava_parts[] = {
	{"text", NULL, "text_config", "llama", NOSW, {NULL}},
	{"vision", "vision_tower", "vision_config", "clip_vision_model", NOSW,
	 {"vision_tower.", "model.vision_tower."}},
	{"projector", "multi_modal_projector", NULL, "mlp2", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part gemma3_parts[] = {
	{"text", NULL, "text_config", "gemma3_text", NOSW, {NULL}},
	{"vision", "vision_tower", "vision_config", "siglip_vision_model", NOSW,
	 {"vision_tower.", "model.vision_tower."}},
	{"projector", "multi_modal_projector", NULL, "norm_linear", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};

/* Mllama (Llama 3.2 Vision): the tower's two stacks, its local layers
 * with the tile tables (vision_model) and its gated global layers
 * (global_transformer, the same config read as a stack of its own),
 * and a biased projector from vision_output_dim */
static const struct ws_cat_part mllama_parts[] = {
	{"text", NULL, "text_config", "mllama_text_model", NOSW, {NULL}},
	{"vision", "global_transformer", "vision_config", "mllama_vision_global", NOSW,
	 {"vision_model.global_transformer.", "model.vision_model.global_transformer."}, .own_type = true},
	{"vision", "vision_model", "vision_config", "mllama_vision_model", NOSW,
	 {"vision_model.", "model.vision_model."}},
	{"projector", "multi_modal_projector", NULL, "linear_bias", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Qwen3-VL: the tower under model.visual., its merger and the
 * DeepStack mergers (one per deepstack_visual_indexes entry), each a
 * projector into the text width */
static const struct ws_cat_part qwen3_vl_parts[] = {
	{"text", NULL, "text_config", "qwen3", NOSW, {NULL}},
	{"vision", "visual", "vision_config", "qwen3_vl_vision", NOSW, {"model.visual.", "visual."}},
	{"projector", "merger", NULL, "merger_v3", NOSW, {"model.visual.merger.", "visual.merger."}},
	{"projector", "deepstack_merger_list", NULL, "deepstack", NOSW,
	 {"model.visual.deepstack_merger_list.", "visual.deepstack_merger_list."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Qwen3-VL-MoE: Qwen3-VL's tower and mergers beside a MoE text model */
static const struct ws_cat_part qwen3_vl_moe_parts[] = {
	{"text", NULL, "text_config", "qwen3_vl_moe_text", NOSW, {NULL}},
	{"vision", "visual", "vision_config", "qwen3_vl_vision", NOSW, {"model.visual.", "visual."}},
	{"projector", "merger", NULL, "merger_v3", NOSW, {"model.visual.merger.", "visual.merger."}},
	{"projector", "deepstack_merger_list", NULL, "deepstack", NOSW,
	 {"model.visual.deepstack_merger_list.", "visual.deepstack_merger_list."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* LLaVA-NeXT: LLaVA's, and image_newline beside the projector */
static const struct ws_cat_part llava_next_parts[] = {
	{"text", NULL, "text_config", "llama", NOSW, {NULL}},
	{"vision", "vision_tower", "vision_config", "clip_vision_model", NOSW,
	 {"vision_tower.", "model.vision_tower."}},
	{"projector", "multi_modal_projector", NULL, "mlp2_newline", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector.", "image_newline", "model.image_newline"}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Qwen2.5-VL and Qwen2-VL: the text model at the top level (or, as
 * newer transformers save it, in text_config), the tower under visual.
 * and its merger, a projector of its own, under visual.merger. */
static const struct ws_cat_part qwen2_5_vl_parts[] = {
	{"text", NULL, "text_config", "qwen2", NOSW, {NULL}},
	{"vision", "visual", "vision_config", "qwen2_5_vl_vision", NOSW, {"visual.", "model.visual."}},
	{"projector", "merger", NULL, "merger_rms", NOSW, {"visual.merger.", "model.visual.merger."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part qwen2_vl_parts[] = {
	{"text", NULL, "text_config", "qwen2", NOSW, {NULL}},
	{"vision", "visual", "vision_config", "qwen2_vl_vision", NOSW, {"visual.", "model.visual."}},
	{"projector", "merger", NULL, "merger_ln", NOSW, {"visual.merger.", "model.visual.merger."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Idefics3 / SmolVLM: text_model, vision_model and the connector
 * beside them under model. */
static const struct ws_cat_part idefics3_parts[] = {
	{"text", NULL, "text_config", "llama", NOSW, {NULL}},
	{"vision", "vision_model", "vision_config", "idefics3_vision", NOSW, {"model.vision_model.", "vision_model."}},
	{"projector", "connector", NULL, "shuffle_linear", NOSW, {"model.connector.", "connector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Llama 4: the vision model holds its own adapter (vision_adapter) */
static const struct ws_cat_part llama4_parts[] = {
	{"text", NULL, "text_config", "llama4_text", NOSW, {NULL}},
	{"vision", "vision_model", "vision_config", "llama4_vision_model", NOSW,
	 {"vision_model.", "model.vision_model."}},
	{"projector", "multi_modal_projector", NULL, "linear", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* PaliGemma (1 and 2): a SigLIP tower without its pooling head, one
 * biased linear into the text width, a Gemma or Gemma 2 text model
 * (text_config without model_type is gemma, as PaliGemmaConfig reads it) */
static const struct ws_cat_part paligemma_parts[] = {
	{"text", NULL, "text_config", "gemma", NOSW, {NULL}},
	{"vision", "vision_tower", "vision_config", "siglip_vision_model", NOSW,
	 {"vision_tower.", "model.vision_tower."}},
	{"projector", "multi_modal_projector", NULL, "sub_linear_bias", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* InternVL (remote code, InternVLChatModel): InternViT under
 * vision_model., mlp1 into the text width, the text model of
 * llm_config (Qwen2, InternLM2, Llama ...) under language_model. */
static const struct ws_cat_part internvl_chat_parts[] = {
	{"text", NULL, "llm_config", "llama", NOSW, {NULL}},
	{"vision", "vision_model", "vision_config", "intern_vit_6b", NOSW, {"vision_model."}},
	{"projector", "mlp1", NULL, "shuffle_norm_mlp2", NOSW, {"mlp1."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* InternVL as transformers has it (InternVLForConditionalGeneration,
 * 4.52 on): the same tower with q, k, v apart, mlp1 as
 * multi_modal_projector, all under model. */
static const struct ws_cat_part internvl_parts[] = {
	{"text", NULL, "text_config", "qwen2", NOSW, {NULL}},
	{"vision", "vision_tower", "vision_config", "internvl_vision", NOSW, {"model.vision_tower.", "vision_tower."}},
	{"projector", "multi_modal_projector", NULL, "shuffle_norm_mlp2", NOSW,
	 {"model.multi_modal_projector.", "multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Audio-text wrappers: a Whisper-style encoder (audio_tower, its conv
 * stem, a frozen sinusoidal position table stored as a parameter, a
 * final layer_norm; Qwen2-Audio's avg_pooler has no parameters), a
 * projector into the text width, the text CausalLM under
 * language_model.  Qwen2-Audio's projector is one biased linear
 * (multi_modal_projector.linear) from d_model; Voxtral's two bias-free
 * linears with a GELU between, from the tower's intermediate_size (its
 * outputs reshaped 4 frames to a row) */
static const struct ws_cat_part qwen2_audio_parts[] = {
	{"text", NULL, "text_config", "qwen2", NOSW, {NULL}},
	{"audio", "audio_tower", "audio_config", "qwen2_audio_encoder", NOSW, {"audio_tower.", "model.audio_tower."},
	 .pool = 2},
	{"projector", "multi_modal_projector", NULL, "sub_linear_bias", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* VoxtralConfig's defaults under its text_config's (Voxtral-Mini's
 * text model) */
static const struct ws_cat_default voxtral_text_defs[] = {
	D("vocab_size", 131072), D("hidden_size", 3072), D("intermediate_size", 8192), D("num_hidden_layers", 30),
	D("num_key_value_heads", 8), D("max_position_embeddings", 131072), D("head_dim", 128), {NULL, WS_CAT_END, 0},
};
static const struct ws_cat_part voxtral_parts[] = {
	{"text", NULL, "text_config", "llama", NOSW, {NULL}, .defs = voxtral_text_defs},
	{"audio", "audio_tower", "audio_config", "voxtral_encoder", NOSW, {"audio_tower.", "model.audio_tower."}},
	{"projector", "multi_modal_projector", NULL, "mlp2_nobias", NOSW,
	 {"multi_modal_projector.", "model.multi_modal_projector."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Encoder-decoders: two stacks read from the one config, each as a
 * type of its own (its keys through the type's aliases: encoder_layers,
 * decoder_ffn_dim ...).  The decoder is the main component: it holds
 * the shared token table (T5 `shared`, BART `model.shared`) and the head
 * tied to it, so the encoder's table is not its own (NO_TOKENS); the
 * copies transformers ties to it (encoder.embed_tokens) are one table.
 * T5's old checkpoints keep a relative bias in the decoder's first
 * cross-attention that T5ForConditionalGeneration ignores on load.
 * llama.cpp's GGUF (t5) keeps the stacks under enc. and dec. */
static const struct ws_cat_part t5_parts[] = {
	{"decoder", "decoder", "", "t5_decoder", NOSW, {"decoder.", "dec."},
	 {"block.0.layer.1.EncDecAttention.relative_attention_bias.weight", "blk.0.cross_attn_rel_b.weight"}},
	{"encoder", "encoder", "", "t5_encoder", SW(WS_ARCH_NO_TOKENS), {"encoder.", "enc."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* mT5: T5 v1.1's layout with MT5Config's defaults */
static const struct ws_cat_part mt5_parts[] = {
	{"decoder", "decoder", "", "mt5_decoder", NOSW, {"decoder.", "dec."},
	 {"block.0.layer.1.EncDecAttention.relative_attention_bias.weight", "blk.0.cross_attn_rel_b.weight"}},
	{"encoder", "encoder", "", "mt5_encoder", SW(WS_ARCH_NO_TOKENS), {"encoder.", "enc."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part umt5_parts[] = {
	{"decoder", "decoder", "", "umt5_decoder", NOSW, {"decoder."}},
	{"encoder", "encoder", "", "umt5_encoder", SW(WS_ARCH_NO_TOKENS), {"encoder."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part bart_parts[] = {
	{"decoder", "decoder", "", "bart_decoder", NOSW, {"model.decoder.", "decoder."}},
	{"encoder", "encoder", "", "bart_encoder", SW(WS_ARCH_NO_TOKENS), {"model.encoder.", "encoder."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mbart_parts[] = {
	{"decoder", "decoder", "", "mbart_decoder", NOSW, {"model.decoder.", "decoder."}},
	{"encoder", "encoder", "", "mbart_encoder", SW(WS_ARCH_NO_TOKENS), {"model.encoder.", "encoder."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part marian_parts[] = {
	{"decoder", "decoder", "", "marian_decoder", NOSW, {"model.decoder.", "decoder."}},
	{"encoder", "encoder", "", "marian_encoder", SW(WS_ARCH_NO_TOKENS), {"model.encoder.", "encoder."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* Whisper's decoder has its own table; its encoder reads audio */
static const struct ws_cat_part whisper_parts[] = {
	{"decoder", "decoder", "", "whisper_decoder", NOSW, {"model.decoder.", "decoder."}},
	{"encoder", "encoder", "", "whisper_encoder", NOSW, {"model.encoder.", "encoder."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* a tower class named by its prefix alone (Qwen2AudioEncoder) */
static const struct ws_cat_class tower_alone_classes[] = {
	{"", WS_HEAD_NONE, NOSW},
	{NULL, WS_HEAD_NONE, NOSW},
};
/* an encoder stack standing alone (T5EncoderModel) has no head */
static const struct ws_cat_class stack_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* mmproj GGUFs: the tower is the main component, its tensors v.*; the
 * projector's are mm.* */
static const struct ws_cat_part mmproj_gemma3_parts[] = {
	{"vision", NULL, NULL, "siglip_vision_model", NOSW, {NULL}},
	{"projector", "mm", NULL, "norm_linear", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_llava_parts[] = {
	{"vision", NULL, NULL, "clip_vision_model", NOSW, {NULL}},
	{"projector", "mm", NULL, "mlp2", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_gemma3_joined[] = {
	{"text", NULL, NULL, NULL, NOSW, {NULL}},
	/* llama.cpp pools the tower's patches 4 x 4 (its default for this
	 * projector type): the 256 tokens of mm_tokens_per_image */
	{"vision", "v", "clip.vision", "siglip_vision_model", NOSW, {"v."}, .pool = 4},
	{"projector", "mm", NULL, "norm_linear", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_llava_joined[] = {
	{"text", NULL, NULL, NULL, NOSW, {NULL}},
	{"vision", "v", "clip.vision", "clip_vision_model", NOSW, {"v."}},
	{"projector", "mm", NULL, "mlp2", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* InternVL's: the converter splits the tower's qkv (the tower reads as
 * transformers' own, q, k, v apart), keeps ls1 / ls2, and writes mlp1
 * as mm.model.mlp.{0,1,3} */
static const struct ws_cat_part mmproj_internvl_parts[] = {
	{"vision", NULL, NULL, "internvl_vision", NOSW, {NULL}},
	{"projector", "mm", NULL, "shuffle_norm_mlp2", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_internvl_joined[] = {
	{"text", NULL, NULL, NULL, NOSW, {NULL}},
	{"vision", "v", "clip.vision", "internvl_vision", NOSW, {"v."}},
	{"projector", "mm", NULL, "shuffle_norm_mlp2", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
/* llama.cpp's audio files (clip.has_audio_encoder): the Whisper-style
 * tower under a. (a.conv1d.1 / .2, a.position_embd, a.blk.N, a.post_ln),
 * the projector under mm.a. (Qwen2-Audio's fc, Voxtral's mlp.1 / .2) */
static const struct ws_cat_part mmproj_qwen2a_parts[] = {
	{"audio", NULL, NULL, "qwen2_audio_encoder", NOSW, {NULL}, .pool = 2},
	{"projector", "mm", NULL, "sub_linear_bias", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_qwen2a_joined[] = {
	{"text", NULL, NULL, NULL, NOSW, {NULL}},
	{"audio", "a", "clip.audio", "qwen2_audio_encoder", NOSW, {"a."}, .pool = 2},
	{"projector", "mm", NULL, "sub_linear_bias", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_voxtral_parts[] = {
	{"audio", NULL, NULL, "voxtral_encoder", NOSW, {NULL}},
	{"projector", "mm", NULL, "mlp2_nobias", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_part mmproj_voxtral_joined[] = {
	{"text", NULL, NULL, NULL, NOSW, {NULL}},
	{"audio", "a", "clip.audio", "voxtral_encoder", NOSW, {"a."}},
	{"projector", "mm", NULL, "mlp2_nobias", NOSW, {"mm."}},
	{NULL, NULL, NULL, NULL, NOSW, {NULL}},
};
static const struct ws_cat_mmproj mmprojs[] = {
	{"gemma3", mmproj_gemma3_parts, mmproj_gemma3_joined},
	{"mlp", mmproj_llava_parts, mmproj_llava_joined},
	{"internvl", mmproj_internvl_parts, mmproj_internvl_joined, "projector.scale_factor"},
	{"qwen2a", mmproj_qwen2a_parts, mmproj_qwen2a_joined, .keys = "clip.audio."},
	{"voxtral", mmproj_voxtral_parts, mmproj_voxtral_joined, .keys = "clip.audio.",
	 .stack_key = "projector.stack_factor"},
};

/* Projector layouts: LLaVA's two linear layers with a GELU between
 * them; Gemma 3's RMS norm over the tower's width and one matrix;
 * Llama 4's one matrix; Idefics3's one matrix over scale_factor² tower
 * outputs side by side (pixel shuffle); the Qwen-VL merger's norm over
 * the tower width and two linears over 2 x 2 merged patches. */
static const struct ws_cat_projector projectors[] = {
	{"mlp2", WS_NORM_LAYER, SW(WS_ARCH_PROJ_MLP2, WS_ARCH_PROJ_BIAS, WS_ARCH_BARE)},
	{"norm_linear", WS_NORM_RMS, SW(WS_ARCH_PROJ_IN_NORM, WS_ARCH_PROJ_LINEAR, WS_ARCH_BARE)},
	{"linear", WS_NORM_LAYER, SW(WS_ARCH_PROJ_LINEAR, WS_ARCH_BARE)},
	{"mlp2_newline", WS_NORM_LAYER, SW(WS_ARCH_PROJ_MLP2, WS_ARCH_PROJ_BIAS, WS_ARCH_IMAGE_NEWLINE, WS_ARCH_BARE)},
	{"linear_bias", WS_NORM_LAYER, SW(WS_ARCH_PROJ_LINEAR, WS_ARCH_PROJ_BIAS, WS_ARCH_BARE)},
	{"merger_v3", WS_NORM_LAYER, SW(WS_ARCH_PROJ_IN_NORM, WS_ARCH_PROJ_MERGE_MLP, WS_ARCH_BARE)},
	/* Qwen3VLVisionConfig's default list is [8, 16, 24] */
	{"deepstack", WS_NORM_LAYER, SW(WS_ARCH_PROJ_DEEPSTACK, WS_ARCH_BARE), NULL, 0, "deepstack_visual_indexes", 3},
	{"shuffle_linear", WS_NORM_LAYER, SW(WS_ARCH_PROJ_LINEAR, WS_ARCH_BARE), "scale_factor", 2},
	{"merger_rms", WS_NORM_RMS, SW(WS_ARCH_PROJ_IN_NORM, WS_ARCH_PROJ_MERGE_MLP, WS_ARCH_BARE)},
	{"merger_ln", WS_NORM_LAYER, SW(WS_ARCH_PROJ_IN_NORM, WS_ARCH_PROJ_MERGE_MLP, WS_ARCH_BARE)},
	/* PaliGemma's: one biased linear, a submodule (linear.) of the
	 * projector's module */
	{"sub_linear_bias", WS_NORM_NONE, SW(WS_ARCH_PROJ_LINEAR, WS_ARCH_PROJ_BIAS, WS_ARCH_BARE)},
	/* InternVL's mlp1: a LayerNorm over the pixel-shuffled patches
	 * (downsample_ratio per side, InternVLChatConfig's default 0.5),
	 * a linear into the text width, a GELU, a linear */
	{"shuffle_norm_mlp2", WS_NORM_LAYER, SW(WS_ARCH_PROJ_SHUFFLE_MLP, WS_ARCH_BARE), "downsample_ratio", 2,
	 NULL, 0, true},
	/* Voxtral's: LLaVA's two linears without biases, from the tower's
	 * output width (its entry says which key) */
	{"mlp2_nobias", WS_NORM_NONE, SW(WS_ARCH_PROJ_MLP2, WS_ARCH_BARE)},
};
/* DINOv2's: no pooler; the image classifier reads the class token and
 * the mean of the patch tokens side by side (2 × hidden inputs). */
static const struct ws_cat_class dinov2_classes[] = {
	{"Model", WS_HEAD_NONE, NOSW},
	{"ForImageClassification", WS_HEAD_NONE, SW(WS_ARCH_CLS_CONCAT)},
	{NULL, WS_HEAD_NONE, NOSW},
};

/* BERT's relative_key and relative_key_query: a distance table in every
 * layer's self-attention (RoBERTa, XLM-R and ELECTRA copy it) */
#define REL_KEY {{"position_embedding_type", "relative_key", SW(WS_ARCH_REL_DIST)}, \
		 {"position_embedding_type", "relative_key_query", SW(WS_ARCH_REL_DIST)}}

/* A post-norm encoder: a LayerNorm after attention and after the MLP,
 * none before them or at the end; learned positions, token types and an
 * embedding LayerNorm; biases on every linear. */
#define ENCODER ALLB, WS_ARCH_LEARNED_POS, WS_ARCH_TYPE_EMBED, WS_ARCH_EMBED_NORM, \
	WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS, WS_ARCH_NO_FINAL_NORM
/* BertConfig's defaults, which RobertaConfig and XLMRobertaConfig keep
 * but for the vocabulary */
#define BERT_DEFAULTS(vocab) \
	{D("vocab_size", vocab), D("hidden_size", 768), D("intermediate_size", 3072), \
	 D("num_hidden_layers", 12), D("num_attention_heads", 12), \
	 D("max_position_embeddings", 512), D("type_vocab_size", 2)}

/* T5Config's defaults (t5-small's sizes; num_decoder_layers None reads
 * num_layers) and its MLP: gated when feed_forward_proj says so */
#define T5_DEFAULTS \
	{D("vocab_size", 32128), D("d_model", 512), D("d_kv", 64), D("d_ff", 2048), \
	 D("num_layers", 6), D("num_heads", 8), D("relative_attention_num_buckets", 32)}
#define T5_SOPT {{"feed_forward_proj", "gated-gelu", SW(WS_ARCH_GATED_MLP)}, \
		 {"feed_forward_proj", "gated-silu", SW(WS_ARCH_GATED_MLP)}}
/* UMT5Config's and MT5Config's (their small models' sizes; MT5's
 * vocabulary 250,112 as UMT5's default) */
#define UMT5_DEFAULTS \
	{D("vocab_size", 250112), D("d_model", 512), D("d_kv", 64), D("d_ff", 1024), \
	 D("num_layers", 8), D("num_heads", 6), D("relative_attention_num_buckets", 32)}
/* BartConfig's (bart-large's sizes) and MBartConfig's, the same */
#define BART_DEFAULTS \
	{D("vocab_size", 50265), D("d_model", 1024), D("max_position_embeddings", 1024), \
	 D("encoder_layers", 12), D("decoder_layers", 12), D("encoder_attention_heads", 16), \
	 D("decoder_attention_heads", 16), D("encoder_ffn_dim", 4096), D("decoder_ffn_dim", 4096)}
#define ENC_KEYS {{WS_AK_LAYERS, "encoder_layers"}, {WS_AK_HEADS, "encoder_attention_heads"}, \
		  {WS_AK_INTER, "encoder_ffn_dim"}}
#define DEC_KEYS {{WS_AK_LAYERS, "decoder_layers"}, {WS_AK_HEADS, "decoder_attention_heads"}, \
		  {WS_AK_INTER, "decoder_ffn_dim"}}
#define MARIAN_DEFAULTS \
	{D("vocab_size", 58101), D("d_model", 1024), D("max_position_embeddings", 1024), \
	 D("encoder_layers", 12), D("decoder_layers", 12), D("encoder_attention_heads", 16), \
	 D("decoder_attention_heads", 16), D("encoder_ffn_dim", 4096), D("decoder_ffn_dim", 4096)}
/* WhisperConfig's (whisper-tiny's sizes) */
#define WHISPER_DEFAULTS \
	{D("vocab_size", 51865), D("num_mel_bins", 80), D("d_model", 384), D("encoder_layers", 4), \
	 D("decoder_layers", 4), D("encoder_attention_heads", 6), D("decoder_attention_heads", 6), \
	 D("encoder_ffn_dim", 1536), D("decoder_ffn_dim", 1536), D("max_source_positions", 1500), \
	 D("max_target_positions", 448)}
/* Qwen2AudioEncoderConfig's and VoxtralEncoderConfig's (the same
 * whisper-large-v3 encoder, spelled each its way) */
#define QWEN2_AUDIO_ENC_DEFAULTS \
	{D("num_mel_bins", 128), D("d_model", 1280), D("encoder_layers", 32), D("encoder_attention_heads", 20), \
	 D("encoder_ffn_dim", 5120), D("max_source_positions", 1500)}
#define VOXTRAL_ENC_DEFAULTS \
	{D("num_mel_bins", 128), D("hidden_size", 1280), D("num_hidden_layers", 32), D("num_attention_heads", 20), \
	 D("intermediate_size", 5120), D("max_source_positions", 1500)}
/* Whisper's encoder layer: biases but on the keys, a conv stem, the
 * frozen position table stored */
#define WHISPER_ENC_BODY ALLB, WS_ARCH_NO_K_BIAS, WS_ARCH_LEARNED_POS, WS_ARCH_CONV_STEM, WS_ARCH_NO_TOKENS
/* BART's layer: biases everywhere, learned positions 2 rows past the
 * span, a LayerNorm over the embeddings */
#define BART_BODY ALLB, WS_ARCH_POS_OFFSET, WS_ARCH_EMBED_NORM
#define POST_ONLY WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS, WS_ARCH_NO_FINAL_NORM

/* GemmaConfig's defaults (gemma-7b's sizes) and Gemma2Config's
 * (gemma-2-2b's): PaliGemma's sparse text_config leans on them (its
 * head_dim is never written: 256, not hidden / heads) */
#define GEMMA_DEFAULTS \
	{D("vocab_size", 256000), D("hidden_size", 3072), D("intermediate_size", 24576), \
	 D("num_hidden_layers", 28), D("num_attention_heads", 16), D("num_key_value_heads", 16), \
	 D("head_dim", 256)}
#define GEMMA2_DEFAULTS \
	{D("vocab_size", 256000), D("hidden_size", 2304), D("intermediate_size", 9216), \
	 D("num_hidden_layers", 26), D("num_attention_heads", 8), D("num_key_value_heads", 4), \
	 D("head_dim", 256)}

/* {names}, gguf, norm, mlp, always, by default, {config booleans}, ffn 4×,
 * fixup, class prefix, class defaults, sliding rule and its period */
static const struct ws_cat_entry entries[] = {
	{{"llama"}, "llama", WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{"attention_bias", SW(QKVO)}, {"mlp_bias", SW(WS_ARCH_MLP_BIAS)}}, false, WS_FIX_NONE, "Llama",
	 {D("vocab_size", 32000), D("hidden_size", 4096), D("intermediate_size", 11008), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("max_position_embeddings", 2048)}},
	{{"mistral"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Mistral",
	 {D("vocab_size", 32000), D("hidden_size", 4096), D("intermediate_size", 14336), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("num_key_value_heads", 8), D("max_position_embeddings", 131072)}},
	{{"mixtral"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Mixtral", {{0}}},
	/* Qwen2Config's defaults (Qwen2-Audio's text_config leans on them) */
	{{"qwen2"}, "qwen2", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QKV_BIAS), NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2",
	 {D("vocab_size", 151936), D("hidden_size", 4096), D("intermediate_size", 22016), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("num_key_value_heads", 32), D("max_position_embeddings", 32768)},
	 WS_SLIDE_FROM, 0},
	{{"qwen2_moe"}, "qwen2moe", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QKV_BIAS, WS_ARCH_SHARED_GATE), NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2Moe", {{0}}, WS_SLIDE_FROM, 0},
	{{"qwen3"}, "qwen3", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QK_NORM_HEAD), NOSW, {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Qwen3", {{0}}, WS_SLIDE_FROM, 0},
	{{"qwen3_moe"}, "qwen3moe", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QK_NORM_HEAD), NOSW, {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Qwen3Moe", {{0}}, WS_SLIDE_FROM, 0},
	{{"gemma"}, "gemma", WS_NORM_RMS, WS_MLP_GATED, NOSW, SW(WS_ARCH_TIED), {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Gemma", GEMMA_DEFAULTS},
	{{"gemma2"}, "gemma2", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_POST_NORMS), SW(WS_ARCH_TIED), {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Gemma2", GEMMA2_DEFAULTS, WS_SLIDE_EVEN, 0},
	{{"gemma3_text"}, "gemma3", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_POST_NORMS, WS_ARCH_QK_NORM_HEAD), SW(WS_ARCH_TIED), {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Gemma3",
	 {D("vocab_size", 262208), D("hidden_size", 2304), D("intermediate_size", 9216), D("num_hidden_layers", 26),
	 D("num_attention_heads", 8), D("num_key_value_heads", 4), D("head_dim", 256), DTRUE("tie_word_embeddings")},
	 WS_SLIDE_PATTERN, 6},
	{{"phi"}, "phi2", WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_LM_HEAD_BIAS, WS_ARCH_PARALLEL), NOSW, {{"qk_layernorm", SW(WS_ARCH_QK_NORM_HEAD, WS_ARCH_QK_NORM_BIAS)}}, false, WS_FIX_NONE, "Phi", {{0}}},
	{{"phi3"}, "phi3", WS_NORM_RMS, WS_MLP_GATED_FUSED, SW(WS_ARCH_FUSED_QKV), NOSW, {{0}}, false, WS_FIX_NONE, "Phi3", {{0}}},
	{{"phimoe"}, "phimoe", WS_NORM_LAYER, WS_MLP_GATED, NOSW, NOSW, {{"attention_bias", SW(QKVO)}, {"lm_head_bias", SW(WS_ARCH_LM_HEAD_BIAS)}}, false, WS_FIX_NONE, "PhiMoE", {{0}}},
	{{"gpt2"}, "gpt2", WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_FUSED_QKV, WS_ARCH_LEARNED_POS), SW(WS_ARCH_TIED), {{0}}, true, WS_FIX_NONE, "GPT2", {{0}}},
	{{"gptj"}, "gptj", WS_NORM_LAYER, WS_MLP_PLAIN, SW(WS_ARCH_MLP_BIAS, WS_ARCH_LM_HEAD_BIAS, WS_ARCH_PARALLEL), NOSW, {{0}}, true, WS_FIX_NONE, "GPTJ", {{0}}},
	{{"gpt_neox"}, "gptneox", WS_NORM_LAYER, WS_MLP_PLAIN, SW(WS_ARCH_MLP_BIAS, WS_ARCH_FUSED_QKV), SW(QKVO), {{"attention_bias", SW(QKVO)}}, true, WS_FIX_NONE, "GPTNeoX", {{0}}},
	{{"falcon"}, "falcon", WS_NORM_LAYER, WS_MLP_PLAIN, SW(WS_ARCH_FUSED_QKV), SW(WS_ARCH_TIED), {{"bias", SW(ALLB)}}, true, WS_FIX_FALCON, "Falcon", {{0}}},
	{{"olmo"}, "olmo", WS_NORM_NONE, WS_MLP_GATED, NOSW, NOSW, {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Olmo", {{0}}},
	{{"olmo2"}, "olmo2", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS, WS_ARCH_QK_NORM_FULL), NOSW, {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Olmo2", {{0}}},
	{{"starcoder2"}, "starcoder2", WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, SW(ALLB, WS_ARCH_TIED), {{"use_bias", SW(ALLB)}}, false, WS_FIX_NONE, "Starcoder2", {{0}}},
	{{"stablelm"}, "stablelm", WS_NORM_LAYER, WS_MLP_GATED, NOSW, NOSW, {{"use_qkv_bias", SW(WS_ARCH_QKV_BIAS)}, {"qk_layernorm", SW(WS_ARCH_QK_NORM_FULL)}, {"use_parallel_residual", SW(WS_ARCH_PARALLEL)}}, false, WS_FIX_NONE, "StableLm", {{0}}},
	{{"bloom"}, "bloom", WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_FUSED_QKV, WS_ARCH_EMBED_NORM), SW(WS_ARCH_TIED), {{0}}, true, WS_FIX_NONE, "Bloom", {{0}}},
	{{"cohere"}, "command-r", WS_NORM_LAYER_NOBIAS, WS_MLP_GATED, SW(WS_ARCH_PARALLEL), SW(WS_ARCH_TIED), {{"attention_bias", SW(QKVO)}, {"use_qk_norm", SW(WS_ARCH_QK_NORM_FULL)}}, false, WS_FIX_NONE, "Cohere", {{0}}},
	{{"internlm2"}, "internlm2", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_FUSED_QKV), SW(QKVO), {{"bias", SW(QKVO)}}, false, WS_FIX_NONE, "InternLM2", {{0}}},
	{{"chatglm"}, "chatglm", WS_NORM_RMS, WS_MLP_GATED_FUSED, SW(WS_ARCH_FUSED_QKV), NOSW, {{"add_qkv_bias", SW(WS_ARCH_QKV_BIAS)}, {"add_bias_linear", SW(WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS)}}, false, WS_FIX_NONE, NULL, {{0}}},
	{{"deepseek_v2"}, "deepseek2", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_MLA), NOSW, {{0}}, false, WS_FIX_DEEPSEEK, "DeepseekV2", {{0}}},
	{{"deepseek_v3"}, NULL, WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_MLA, WS_ARCH_ROUTER_SCORE_BIAS), NOSW, {{0}}, false, WS_FIX_DEEPSEEK, "DeepseekV3", {{0}}},
	{{"llama4_text"}, "llama4", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_MOE_FUSED), NOSW, {{"attention_bias", SW(QKVO)}}, false, WS_FIX_LLAMA4, "Llama4", {{0}}},
	{{"gpt_oss"}, "gpt-oss", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_SINKS, WS_ARCH_MOE_FUSED, WS_ARCH_MOE_BIAS, WS_ARCH_ROUTER_BIAS), SW(QKVO), {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "GptOss", {{0}}, WS_SLIDE_EVEN, 0},

	/* The original Falcon code (RWConfig, trust_remote_code): its class
	 * defaults differ from FalconConfig's; a config with n_head_kv is the
	 * 40B code's layout (ln_attn and ln_mlp, grouped kv heads). */
	{{"RefinedWebModel", "RefinedWeb"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(WS_ARCH_FUSED_QKV), SW(WS_ARCH_TIED),
	 {{"bias", SW(ALLB)}}, true, WS_FIX_FALCON, "RW",
	 {D("vocab_size", 250880), D("hidden_size", 64), D("n_layer", 2), D("n_head", 8),
	  DFALSE("multi_query"), DFALSE("parallel_attn"), DFALSE("bias"),
	  DTRUE("tie_word_embeddings")}},
	{{"granite"}, "granite", WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW,
	 {{"attention_bias", SW(QKVO)}, {"mlp_bias", SW(WS_ARCH_MLP_BIAS)}}, false, WS_FIX_NONE, "Granite",
	 {D("vocab_size", 32000), D("hidden_size", 4096), D("intermediate_size", 11008),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32)}},
	{{"smollm3"}, "smollm3", WS_NORM_RMS, WS_MLP_GATED, NOSW, SW(WS_ARCH_TIED),
	 {{"attention_bias", SW(QKVO)}, {"mlp_bias", SW(WS_ARCH_MLP_BIAS)}}, false, WS_FIX_NONE, "SmolLM3",
	 {D("vocab_size", 128256), D("hidden_size", 2048), D("intermediate_size", 11008),
	  D("num_hidden_layers", 36), D("num_attention_heads", 16), D("num_key_value_heads", 4),
	  DTRUE("tie_word_embeddings")}},
	/* OLMoE: q/k norms over the whole q and k widths; every layer MoE */
	{{"olmoe"}, "olmoe", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QK_NORM_FULL), NOSW,
	 {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Olmoe",
	 {D("vocab_size", 50304), D("hidden_size", 2048), D("intermediate_size", 2048),
	  D("num_hidden_layers", 16), D("num_attention_heads", 16), D("num_experts", 64),
	  D("num_experts_per_tok", 8)}},
	/* OLMo 3: OLMo 2's post-norm layer (sliding layers have the same tensors) */
	{{"olmo3"}, NULL, WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS, WS_ARCH_QK_NORM_FULL), NOSW,
	 {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Olmo3",
	 {D("vocab_size", 50304), D("hidden_size", 4096), D("intermediate_size", 11008),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32)}},
	/* GLM-4.5: attention_bias on q, k, v only; DeepSeek-style routing and
	 * shared experts; the MTP layers after the last are counted apart */
	{{"glm4_moe"}, "glm4moe", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_ROUTER_SCORE_BIAS), NOSW,
	 {{"attention_bias", SW(WS_ARCH_QKV_BIAS)}, {"use_qk_norm", SW(WS_ARCH_QK_NORM_HEAD)}}, false, WS_FIX_NONE, "Glm4Moe",
	 {D("vocab_size", 151552), D("hidden_size", 4096), D("intermediate_size", 10944),
	  D("num_hidden_layers", 46), D("num_attention_heads", 96), D("num_key_value_heads", 8),
	  D("moe_intermediate_size", 1408), D("num_experts_per_tok", 8), D("n_shared_experts", 1),
	  D("n_routed_experts", 128), D("first_k_dense_replace", 1)}},
	/* EXAONE 4: OLMo 2's post-norm layer with per-head q/k norms */
	{{"exaone4"}, "exaone4", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS, WS_ARCH_QK_NORM_HEAD), NOSW,
	 {{0}}, false, WS_FIX_NONE, "Exaone4",
	 {D("vocab_size", 102400), D("hidden_size", 4096), D("intermediate_size", 16384),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32), D("num_key_value_heads", 32)},
	 WS_SLIDE_PATTERN, 4},
	/* Apertus: a plain MLP with xIELU's two learnable scalars per layer
	 * (its beta and eps are buffers), per-head q/k norms */
	{{"apertus"}, "apertus", WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_QK_NORM_HEAD, WS_ARCH_XIELU), NOSW,
	 {{"attention_bias", SW(QKVO)}, {"mlp_bias", SW(WS_ARCH_MLP_BIAS)}}, false, WS_FIX_NONE, "Apertus",
	 {D("vocab_size", 131072), D("hidden_size", 4096), D("intermediate_size", 14336),
	  D("num_hidden_layers", 32), D("num_attention_heads", 32)}},
	/* DeepSeek-V3.2: DeepSeek-V3 with a lightning indexer in every layer
	 * (index_n_heads × index_head_dim queries from the low-rank q) */
	{{"deepseek_v32"}, "deepseek32", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_MLA, WS_ARCH_ROUTER_SCORE_BIAS), NOSW,
	 {{0}}, false, WS_FIX_DEEPSEEK, "DeepseekV32",
	 {D("vocab_size", 129280), D("hidden_size", 7168), D("intermediate_size", 18432),
	  D("moe_intermediate_size", 2048), D("num_hidden_layers", 61), D("num_attention_heads", 128),
	  D("num_key_value_heads", 128), D("n_shared_experts", 1), D("n_routed_experts", 256),
	  D("kv_lora_rank", 512), D("q_lora_rank", 1536), D("qk_rope_head_dim", 64),
	  D("v_head_dim", 128), D("qk_nope_head_dim", 128), D("num_experts_per_tok", 8),
	  D("first_k_dense_replace", 3), D("index_n_heads", 64), D("index_head_dim", 128)}},

	/* Mamba: a norm and a Mamba mixer per layer, no feed-forward, the
	 * body under backbone.; MambaConfig's defaults (time_step_rank
	 * "auto" is ceil(hidden / 16)) */
	{{"mamba"}, "mamba", WS_NORM_RMS, WS_MLP_GATED, NOSW, SW(WS_ARCH_TIED, WS_ARCH_SSM_CONV_BIAS),
	 {{"use_bias", SW(WS_ARCH_SSM_BIAS)}, {"use_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)}}, false, WS_FIX_NONE, "Mamba",
	 {D("vocab_size", 50280), D("hidden_size", 768), D("state_size", 16), D("num_hidden_layers", 32),
	  D("conv_kernel", 4), D("expand", 2)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &mamba_stack},
	/* FalconMamba: Mamba's tensors (its B, C and dt RMS norms have no
	 * weights of their own) */
	{{"falcon_mamba"}, "mamba", WS_NORM_RMS, WS_MLP_GATED, NOSW, SW(WS_ARCH_TIED, WS_ARCH_SSM_CONV_BIAS),
	 {{"use_bias", SW(WS_ARCH_SSM_BIAS)}, {"use_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)}}, false, WS_FIX_NONE, "FalconMamba",
	 {D("vocab_size", 50280), D("hidden_size", 768), D("state_size", 16), D("num_hidden_layers", 32),
	  D("conv_kernel", 4), D("expand", 2)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &mamba_stack},
	/* Mamba-2: a norm and a Mamba-2 mixer per layer (Mamba2Config's
	 * defaults are Mamba-Codestral-7B's sizes) */
	{{"mamba2"}, "mamba2", WS_NORM_RMS, WS_MLP_GATED, NOSW, SW(WS_ARCH_SSM_CONV_BIAS),
	 {{"use_bias", SW(WS_ARCH_SSM_BIAS)}, {"use_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)}}, false, WS_FIX_NONE, "Mamba2",
	 {D("num_heads", 128), D("vocab_size", 32768), D("hidden_size", 4096), D("state_size", 128),
	  D("num_hidden_layers", 64), D("expand", 2), D("conv_kernel", 4), D("n_groups", 8)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &mamba2_stack},
	/* Nemotron-H: one norm and one mixer per layer (Mamba-2, attention,
	 * or a squared-ReLU MLP of up and down), as its pattern spells;
	 * NemotronHConfig's defaults are Nemotron-H-8B's sizes */
	{{"nemotron_h"}, "nemotron_h", WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_PARALLEL, WS_ARCH_ROUTER_SCORE_BIAS), SW(WS_ARCH_SSM_CONV_BIAS),
	 {{"attention_bias", SW(QKVO)}, {"use_bias", SW(WS_ARCH_SSM_BIAS)}, {"mamba_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)}},
	 false, WS_FIX_NONE, "NemotronH",
	 {D("vocab_size", 131072), D("hidden_size", 4096), D("intermediate_size", 21504), D("num_hidden_layers", 52),
	  D("num_attention_heads", 32), D("head_dim", 128), D("num_key_value_heads", 8), D("ssm_state_size", 128),
	  D("mamba_num_heads", 128), D("mamba_n_groups", 8), D("mamba_head_dim", 64), D("mamba_d_conv", 4)},
	 WS_SLIDE_ALL, 0, NULL, {{WS_AK_HEAD_DIM, "attention_head_dim"}}, .stack = &nemotron_h_stack,
	 .gguf_moe = "nemotron_h_moe"},
	/* Jamba: Mamba mixers with dt / B / C norms, attention and MoE
	 * feed-forwards placed by period and offset */
	{{"jamba"}, "jamba", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_SSM_DT_NORMS), SW(WS_ARCH_SSM_CONV_BIAS),
	 {{"mamba_proj_bias", SW(WS_ARCH_SSM_BIAS)}, {"mamba_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)}}, false, WS_FIX_NONE, "Jamba",
	 {D("vocab_size", 65536), D("hidden_size", 4096), D("intermediate_size", 14336), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("num_key_value_heads", 8), D("num_experts_per_tok", 2), D("num_experts", 16),
	  D("expert_layer_period", 2), D("expert_layer_offset", 1), D("attn_layer_period", 8), D("attn_layer_offset", 4),
	  D("mamba_d_state", 16), D("mamba_d_conv", 4), D("mamba_expand", 2)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &jamba_stack},
	/* Falcon-H1: each layer's attention (LlamaAttention) and Mamba-2
	 * mixer read one normed input (input_layernorm), a SwiGLU
	 * feed_forward after pre_ff_layernorm.  Its multipliers (mup) are
	 * config scalars, no tensors; the gated norm only with
	 * mamba_rms_norm; FalconH1Config's defaults */
	{{"falcon_h1"}, "falcon-h1", WS_NORM_RMS, WS_MLP_GATED, NOSW, SW(WS_ARCH_SSM_CONV_BIAS, WS_ARCH_SSM_NO_NORM),
	 {{"attention_bias", SW(QKVO)}, {"mlp_bias", SW(WS_ARCH_MLP_BIAS)}, {"mamba_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)},
	  {"mamba_proj_bias", SW(WS_ARCH_SSM_IN_BIAS)}, {"projectors_bias", SW(WS_ARCH_SSM_OUT_BIAS)},
	  {"mamba_rms_norm", SW(WS_ARCH_SSM_NO_NORM), true}},
	 false, WS_FIX_NONE, "FalconH1",
	 {D("vocab_size", 128000), D("hidden_size", 4096), D("intermediate_size", 14336), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("num_key_value_heads", 8), D("max_position_embeddings", 8192),
	  D("mamba_d_ssm", 1024), D("mamba_n_heads", 128), D("mamba_n_groups", 1), D("mamba_d_state", 256),
	  D("mamba_d_conv", 4), D("mamba_expand", 2)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &falcon_h1_stack},
	/* Granite-4.0-H (GraniteMoeHybrid): Mamba-2 (BambaMixer: in_proj and
	 * out_proj biases by mamba_proj_bias, a gated norm) or attention per
	 * layer_types, a fused shared MLP (shared_mlp.input_linear holds
	 * gate and up) of shared_intermediate_size in every layer, and with
	 * num_local_experts > 0 fused experts of intermediate_size beside
	 * it (block_sparse_moe); GraniteMoeHybridConfig's defaults */
	{{"granitemoehybrid"}, "granitehybrid", WS_NORM_RMS, WS_MLP_GATED_FUSED, SW(WS_ARCH_MOE_FUSED, WS_ARCH_SHARED_MLP),
	 SW(WS_ARCH_SSM_CONV_BIAS),
	 {{"attention_bias", SW(QKVO)}, {"mamba_conv_bias", SW(WS_ARCH_SSM_CONV_BIAS)}, {"mamba_proj_bias", SW(WS_ARCH_SSM_BIAS)}},
	 false, WS_FIX_NONE, "GraniteMoeHybrid",
	 {D("vocab_size", 32000), D("hidden_size", 4096), D("intermediate_size", 11008), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("max_position_embeddings", 2048), D("num_local_experts", 8),
	  D("num_experts_per_tok", 2), D("shared_intermediate_size", 1024), D("mamba_n_heads", 128),
	  D("mamba_n_groups", 1), D("mamba_d_state", 256), D("mamba_d_conv", 4), D("mamba_expand", 2)},
	 WS_SLIDE_ALL, 0, NULL, {{WS_AK_INTER, "shared_intermediate_size"}, {WS_AK_MOE_INTER, "intermediate_size"}},
	 .stack = &granite_h_stack},
	/* LFM2: per layer a gated short convolution (conv.in_proj to B, C
	 * and x, a depthwise conv of conv_L_cache taps, out_proj; biases by
	 * conv_bias) or attention (out_proj, per-head q/k layernorms),
	 * operator_norm before it, a SwiGLU (w1, w3, w2) after ffn_norm whose
	 * width block_auto_adjust_ff_dim derives, the final norm named
	 * embedding_norm; Lfm2Config's defaults (tie_embedding, block_ff_dim
	 * as the original configs spell them) */
	{{"lfm2"}, "lfm2", WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QK_NORM_HEAD), SW(WS_ARCH_TIED),
	 {{"conv_bias", SW(WS_ARCH_SSM_BIAS, WS_ARCH_SSM_CONV_BIAS)}, {"tie_embedding", SW(WS_ARCH_TIED)}},
	 false, WS_FIX_FF_ADJUST, "Lfm2",
	 {D("vocab_size", 65536), D("hidden_size", 2560), D("intermediate_size", 12288), D("num_hidden_layers", 32),
	  D("num_attention_heads", 32), D("num_key_value_heads", 8), D("max_position_embeddings", 128000),
	  D("conv_L_cache", 3), D("block_multiple_of", 256), DTRUE("block_auto_adjust_ff_dim")},
	 WS_SLIDE_ALL, 0, NULL, {{WS_AK_INTER, "block_ff_dim"}}, .stack = &lfm2_stack},
	/* Qwen3-Next: Gated DeltaNet and gated full attention (q_proj holds
	 * the output gate, per-head q/k norms), MoE with a gated shared
	 * expert, one MTP block (mtp.*) its config does not count */
	{{"qwen3_next"}, "qwen3next", WS_NORM_RMS, WS_MLP_GATED,
	 SW(WS_ARCH_QK_NORM_HEAD, WS_ARCH_ATTN_GATE, WS_ARCH_SHARED_GATE, WS_ARCH_MTP_FC), NOSW,
	 {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Qwen3Next",
	 {D("vocab_size", 151936), D("hidden_size", 2048), D("intermediate_size", 5632), D("num_hidden_layers", 48),
	  D("num_attention_heads", 16), D("num_key_value_heads", 2), D("head_dim", 256),
	  D("linear_conv_kernel_dim", 4), D("linear_key_head_dim", 128), D("linear_value_head_dim", 128),
	  D("linear_num_key_heads", 16), D("linear_num_value_heads", 32), D("decoder_sparse_step", 1),
	  D("moe_intermediate_size", 512), D("shared_expert_intermediate_size", 512), D("num_experts_per_tok", 10),
	  D("num_experts", 512), D("full_attention_interval", 4), D("num_nextn_predict_layers", 1)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &qwen3_next_stack},

	/* Encoders: the body is the entry, the head the class's line */
	{{"bert"}, "bert", WS_NORM_LAYER, WS_MLP_PLAIN, SW(ENCODER), SW(WS_ARCH_TIED), {{0}}, false,
	 WS_FIX_NONE, "Bert", BERT_DEFAULTS(30522), WS_SLIDE_ALL, 0, bert_classes, {{0}}, REL_KEY},
	{{"roberta"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ENCODER), SW(WS_ARCH_TIED), {{0}}, false,
	 WS_FIX_NONE, "Roberta", BERT_DEFAULTS(50265), WS_SLIDE_ALL, 0, roberta_classes, {{0}}, REL_KEY},
	{{"xlm-roberta"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ENCODER), SW(WS_ARCH_TIED), {{0}}, false,
	 WS_FIX_NONE, "XLMRoberta", BERT_DEFAULTS(30522), WS_SLIDE_ALL, 0, roberta_classes, {{0}}, REL_KEY},
	/* DistilBERT: BERT's layer without token types; its config spells
	 * the widths dim and hidden_dim (sinusoidal positions are still a
	 * stored table) */
	{{"distilbert"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(ALLB, WS_ARCH_LEARNED_POS, WS_ARCH_EMBED_NORM, WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS,
	    WS_ARCH_NO_FINAL_NORM), SW(WS_ARCH_TIED), {{0}}, false, WS_FIX_NONE, "DistilBert",
	 {D("vocab_size", 30522), D("dim", 768), D("hidden_dim", 3072), D("n_layers", 6), D("n_heads", 12),
	  D("max_position_embeddings", 512)},
	 WS_SLIDE_ALL, 0, distilbert_classes, {{WS_AK_HIDDEN, "dim"}, {WS_AK_INTER, "hidden_dim"}}},
	/* ELECTRA: BERT's layer; embeddings of their own width, projected
	 * to the hidden size when it differs (ElectraConfig's defaults are
	 * electra-small's) */
	{{"electra"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ENCODER, WS_ARCH_EMBED_SIZE), SW(WS_ARCH_TIED), {{0}},
	 false, WS_FIX_NONE, "Electra",
	 {D("vocab_size", 30522), D("embedding_size", 128), D("hidden_size", 256), D("intermediate_size", 1024),
	  D("num_hidden_layers", 12), D("num_attention_heads", 4), D("max_position_embeddings", 512),
	  D("type_vocab_size", 2)},
	 WS_SLIDE_ALL, 0, electra_classes, {{0}}, REL_KEY},
	/* ViT: an image encoder (patches, a class token, their positions)
	 * of pre-norm layers with biases and a final LayerNorm; ViTConfig's
	 * defaults are vit-base-patch16-224's sizes */
	{{"vit"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS, WS_ARCH_CLS_TOKEN),
	 SW(WS_ARCH_QKV_BIAS), {{"qkv_bias", SW(WS_ARCH_QKV_BIAS)}}, false, WS_FIX_NONE, "ViT",
	 {D("hidden_size", 768), D("intermediate_size", 3072), D("num_hidden_layers", 12),
	  D("num_attention_heads", 12), D("image_size", 224), D("patch_size", 16), D("num_channels", 3)},
	 WS_SLIDE_ALL, 0, vit_classes},

	/* CLIP's towers: pre-norm layers with biases everywhere.  The text
	 * tower has learned positions and a final norm; the vision tower a
	 * class token, a norm before its layers (pre_layrnorm) and one
	 * after (post_layernorm), and no bias on its patch convolution. */
	{{"clip_text_model"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_LEARNED_POS), NOSW, {{0}}, false,
	 WS_FIX_NONE, "CLIPText",
	 {D("vocab_size", 49408), D("hidden_size", 512), D("intermediate_size", 2048), D("projection_dim", 512),
	  D("num_hidden_layers", 12), D("num_attention_heads", 8), D("max_position_embeddings", 77)},
	 WS_SLIDE_ALL, 0, text_tower_classes},
	{{"clip_vision_model"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(ALLB, WS_ARCH_PATCHES, WS_ARCH_CLS_TOKEN, WS_ARCH_EMBED_NORM), NOSW, {{0}}, false, WS_FIX_NONE, "CLIPVision",
	 {D("hidden_size", 768), D("intermediate_size", 3072), D("projection_dim", 512), D("num_hidden_layers", 12),
	  D("num_attention_heads", 12), D("num_channels", 3), D("image_size", 224), D("patch_size", 32)},
	 WS_SLIDE_ALL, 0, vision_tower_classes},
	{{"clip"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "CLIP",
	 {D("projection_dim", 512)}, WS_SLIDE_ALL, 0, dual_classes, {{0}}, .parts = clip_parts},
	/* SigLIP's: CLIP's layers; the text tower ends in a head of its
	 * own, the vision tower has no class token and no norm before its
	 * layers, a biased patch convolution and, unless the config says
	 * vision_use_head false, an attention-pooling head */
	{{"siglip_text_model"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_LEARNED_POS, WS_ARCH_TOWER_HEAD), NOSW,
	 {{0}}, false, WS_FIX_NONE, "SiglipText",
	 {D("vocab_size", 32000), D("hidden_size", 768), D("intermediate_size", 3072), D("num_hidden_layers", 12),
	  D("num_attention_heads", 12), D("max_position_embeddings", 64)},
	 WS_SLIDE_ALL, 0, text_tower_classes},
	{{"siglip_vision_model"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS),
	 SW(WS_ARCH_ATTN_POOL), {{"vision_use_head", SW(WS_ARCH_ATTN_POOL)}}, false, WS_FIX_NONE, "SiglipVision",
	 {D("hidden_size", 768), D("intermediate_size", 3072), D("num_hidden_layers", 12),
	  D("num_attention_heads", 12), D("num_channels", 3), D("image_size", 224), D("patch_size", 16)},
	 WS_SLIDE_ALL, 0, vision_tower_classes},
	{{"siglip"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Siglip",
	 {{0}}, WS_SLIDE_ALL, 0, dual_classes, {{0}}, .parts = siglip_parts},

	/* Multimodal wrappers: a text decoder, a vision tower and a
	 * projector, each read from its own sub-config */
	{{"llava"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Llava",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = llava_parts},
	{{"gemma3"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, NULL,
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = gemma3_parts},
	{{"llava_next"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "LlavaNext",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = llava_next_parts},
	{{"mllama"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, NULL,
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = mllama_parts},
	{{"internvl_chat"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, NULL,
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = internvl_chat_parts},
	/* InternViT (InternVisionConfig's defaults are InternViT-6B's): a
	 * class token and positions for it and every patch, pre-norm
	 * layers with a fused qkv (its bias as qkv_bias says), a biased
	 * proj and MLP, a learned scale after attention and after the MLP
	 * (ls1, ls2), RMS norms over q and k unless qk_normalization is
	 * false; norms as norm_type says (rms_norm: no bias); no final
	 * norm */
	{{"intern_vit_6b"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_FUSED_QKV, WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS,
	    WS_ARCH_CLS_TOKEN, WS_ARCH_LAYER_SCALE, WS_ARCH_NO_FINAL_NORM),
	 SW(WS_ARCH_QK_NORM_FULL, WS_ARCH_NO_NORM_BIAS, WS_ARCH_RMS_NORMS),
	 {{"qkv_bias", SW(WS_ARCH_QKV_BIAS)}, {"qk_normalization", SW(WS_ARCH_QK_NORM_FULL)}}, false, WS_FIX_NONE,
	 "InternVision",
	 {D("hidden_size", 3200), D("intermediate_size", 12800), D("num_hidden_layers", 48),
	  D("num_attention_heads", 25), D("num_channels", 3), D("image_size", 224), D("patch_size", 14)},
	 WS_SLIDE_ALL, 0, vision_tower_classes, {{0}}, {{"norm_type", "layer_norm", SW(WS_ARCH_NO_NORM_BIAS, WS_ARCH_RMS_NORMS), true}}},
	{{"internvl"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "InternVL",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = internvl_parts},
	/* its tower (InternVLVisionConfig's defaults are InternViT-300M's
	 * at 448): q, k, v apart (their bias as attention_bias says), a
	 * final norm only without use_mean_pooling, a mask token with
	 * use_mask_token, norms as norm_type says (layer_norm its default) */
	{{"internvl_vision"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS, WS_ARCH_CLS_TOKEN,
	    WS_ARCH_LAYER_SCALE),
	 SW(WS_ARCH_NO_FINAL_NORM),
	 {{"attention_bias", SW(WS_ARCH_QKV_BIAS)}, {"use_qk_norm", SW(WS_ARCH_QK_NORM_FULL)},
	  {"use_mean_pooling", SW(WS_ARCH_NO_FINAL_NORM)}, {"use_mask_token", SW(WS_ARCH_MASK_TOKEN)}},
	 false, WS_FIX_NONE, "InternVLVision",
	 {D("hidden_size", 1024), D("intermediate_size", 4096), D("num_hidden_layers", 24),
	  D("num_attention_heads", 16), D("num_channels", 3), D("image_size", 448), D("patch_size", 14)},
	 WS_SLIDE_ALL, 0, vision_tower_classes, {{0}}, {{"norm_type", "rms_norm", SW(WS_ARCH_NO_NORM_BIAS, WS_ARCH_RMS_NORMS)}}},
	{{"paligemma"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "PaliGemma",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = paligemma_parts},
	/* Mllama's text model: Llama's layers, cross-attention ones where
	 * cross_attention_layers lists them; 8 embedding rows past the
	 * vocabulary (MllamaTextConfig's defaults are the 11B's) */
	{{"mllama_text_model"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_MLLAMA, "Mllama",
	 {D("vocab_size", 128256), D("hidden_size", 4096), D("intermediate_size", 14336), D("num_hidden_layers", 40),
	  D("num_attention_heads", 32), D("num_key_value_heads", 8), D("max_position_embeddings", 131072)},
	 WS_SLIDE_ALL, 0, NULL, {{0}}, .stack = &mllama_stack},
	/* Mllama's tower: a patch convolution without bias, a class token,
	 * gated positions and tile tables, norms before and after, LayerNorm
	 * layers with bias-free attention; its output is vision_output_dim
	 * wide (the last layer's and the listed intermediate ones') */
	{{"mllama_vision_model"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_CLS_TOKEN, WS_ARCH_EMBED_NORM, WS_ARCH_TILES),
	 NOSW, {{0}}, false, WS_FIX_MLLAMA, "MllamaVision",
	 {D("hidden_size", 1280), D("num_hidden_layers", 32), D("num_attention_heads", 16), D("num_channels", 3),
	  D("intermediate_size", 5120), D("vision_output_dim", 7680), D("image_size", 448), D("patch_size", 14),
	  D("max_num_tiles", 4)},
	 WS_SLIDE_ALL, 0, vision_tower_classes, {{WS_AK_OUT, "vision_output_dim"}, {WS_AK_HEADS, "attention_heads"}}},
	/* its global layers: the same layer with a gate after attention and
	 * after the MLP, num_global_layers of them */
	{{"mllama_vision_global"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_MLP_BIAS, WS_ARCH_BARE, WS_ARCH_GATED_LAYERS),
	 NOSW, {{0}}, false, WS_FIX_NONE, "MllamaVisionGlobal",
	 {D("hidden_size", 1280), D("num_global_layers", 8), D("num_attention_heads", 16),
	  D("intermediate_size", 5120)},
	 WS_SLIDE_ALL, 0, vision_tower_classes, {{WS_AK_LAYERS, "num_global_layers"}, {WS_AK_HEADS, "attention_heads"}}},
	{{"qwen3_vl"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Qwen3VL",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = qwen3_vl_parts},
	{{"qwen3_vl_moe"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Qwen3VLMoe",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = qwen3_vl_moe_parts},
	/* Qwen3-VL-MoE's text model: Qwen3-MoE's blocks, the experts of a
	 * block stored fused as gpt-oss's and Llama 4's are (gate_up_proj
	 * [E, hidden, 2 x moe_intermediate], down_proj [E, moe_intermediate,
	 * hidden]) beside the router mlp.gate; Qwen3VLMoeTextConfig's
	 * defaults */
	{{"qwen3_vl_moe_text"}, NULL, WS_NORM_RMS, WS_MLP_GATED, SW(WS_ARCH_QK_NORM_HEAD, WS_ARCH_MOE_FUSED), NOSW,
	 {{"attention_bias", SW(QKVO)}}, false, WS_FIX_NONE, "Qwen3VLMoeText",
	 {D("vocab_size", 151936), D("hidden_size", 2048), D("intermediate_size", 5632), D("num_hidden_layers", 24),
	  D("num_attention_heads", 16), D("num_key_value_heads", 16), D("max_position_embeddings", 128000),
	  D("moe_intermediate_size", 1408), D("num_experts_per_tok", 4), D("num_experts", 60),
	  D("decoder_sparse_step", 1)},
	 WS_SLIDE_FROM, 0},
	{{"qwen2_5_vl"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2_5_VL",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = qwen2_5_vl_parts},
	{{"qwen2_vl"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2VL",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = qwen2_vl_parts},
	{{"idefics3"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Idefics3",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = idefics3_parts},
	{{"llama4"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, NULL,
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = llama4_parts},
	/* Qwen2.5-VL's tower: pre-norm RMS blocks, a fused qkv and a gated
	 * MLP with biases, a patch convolution over temporal_patch_size
	 * frames, rotary positions, no final norm (the merger's ln_q is the
	 * projector's); window attention changes no parameter, only the
	 * pairs a block attends (blocks 7, 15, 23, 31 over the whole image
	 * by default, the others in windows of 112 pixels a side) */
	{{"qwen2_5_vl_vision"}, NULL, WS_NORM_RMS, WS_MLP_GATED,
	 SW(WS_ARCH_FUSED_QKV, QKVO, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_NO_PATCH_POS, WS_ARCH_NO_FINAL_NORM),
	 NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2_5_VisionTransformerPretrained",
	 {D("depth", 32), D("hidden_size", 3584), D("intermediate_size", 3420), D("num_heads", 16),
	  D("in_channels", 3), D("patch_size", 14), D("spatial_merge_size", 2), D("temporal_patch_size", 2),
	  D("window_size", 112), DLAYERS("fullatt_block_indexes", 0x80808080u)},
	 WS_SLIDE_ALL, 0, vision_tower_classes, {{WS_AK_LAYERS, "depth"}, {WS_AK_CHANNELS, "in_channels"}}},
	/* Qwen2-VL's: LayerNorm blocks, a plain MLP of mlp_ratio x
	 * embed_dim; its hidden_size is the text width it feeds */
	{{"qwen2_vl_vision"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_FUSED_QKV, QKVO, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_NO_PATCH_POS, WS_ARCH_NO_FINAL_NORM),
	 NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2VisionTransformerPretrained",
	 {D("depth", 32), D("embed_dim", 1280), D("mlp_ratio", 4), D("num_heads", 16),
	  D("in_channels", 3), D("patch_size", 14), D("spatial_merge_size", 2), D("temporal_patch_size", 2)},
	 WS_SLIDE_ALL, 0, vision_tower_classes,
	 {{WS_AK_HIDDEN, "embed_dim"}, {WS_AK_LAYERS, "depth"}, {WS_AK_CHANNELS, "in_channels"}}},
	/* Qwen3-VL's: LayerNorm blocks, a fused qkv and a plain MLP with
	 * biases, a biased patch convolution over frames, a learned table
	 * of num_position_embeddings positions (interpolated to the image) */
	{{"qwen3_vl_vision"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_FUSED_QKV, QKVO, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS, WS_ARCH_NO_FINAL_NORM),
	 NOSW, {{0}}, false, WS_FIX_NONE, "Qwen3VLVision",
	 {D("depth", 27), D("hidden_size", 1152), D("intermediate_size", 4304), D("num_heads", 16),
	  D("in_channels", 3), D("patch_size", 16), D("spatial_merge_size", 2), D("temporal_patch_size", 2),
	  D("num_position_embeddings", 2304)},
	 WS_SLIDE_ALL, 0, vision_tower_classes,
	 {{WS_AK_LAYERS, "depth"}, {WS_AK_CHANNELS, "in_channels"}, {WS_AK_PATCHES, "num_position_embeddings"}}},
	/* Idefics3's tower: SigLIP's without the pooling head */
	{{"idefics3_vision"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS),
	 NOSW, {{0}}, false, WS_FIX_NONE, "Idefics3Vision",
	 {D("hidden_size", 1152), D("intermediate_size", 3072), D("num_hidden_layers", 12),
	  D("num_attention_heads", 16), D("num_channels", 3), D("image_size", 224), D("patch_size", 32)},
	 WS_SLIDE_ALL, 0, vision_tower_classes},
	/* Llama 4's: patches through a linear (an unfolded convolution), a
	 * class token and its positions, norms before and after the
	 * LayerNorm blocks, and its adapter (vision_adapter) after a pixel
	 * shuffle: projector_input_dim, then projector_output_dim wide */
	{{"llama4_vision_model"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(ALLB, WS_ARCH_PATCHES, WS_ARCH_CLS_TOKEN, WS_ARCH_EMBED_NORM, WS_ARCH_PIXEL_SHUFFLE_MLP),
	 NOSW, {{0}}, false, WS_FIX_NONE, "Llama4Vision",
	 {D("hidden_size", 768), D("num_hidden_layers", 34), D("num_attention_heads", 16), D("num_channels", 3),
	  D("intermediate_size", 5632), D("image_size", 448), D("patch_size", 14),
	  D("projector_input_dim", 4096), D("projector_output_dim", 4096)},
	 WS_SLIDE_ALL, 0, vision_tower_classes, {{WS_AK_PROJ, "projector_input_dim"}, {WS_AK_OUT, "projector_output_dim"}}},
	/* DeBERTa-v2 / v3: BERT's post-norm layer; DebertaV2Config's
	 * defaults: absolute positions (position_biased_input), no token
	 * types, no relative attention.  With relative_attention, one table
	 * of relative positions for all layers (encoder.rel_embeddings) and,
	 * unless share_att_key, projections of it per layer as pos_att_type
	 * names them (c2p: a key, p2c: a query) */
	{{"deberta-v2"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(ALLB, WS_ARCH_TYPE_EMBED, WS_ARCH_EMBED_NORM, WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS,
	    WS_ARCH_NO_FINAL_NORM),
	 SW(WS_ARCH_TIED, WS_ARCH_LEARNED_POS),
	 {{"position_biased_input", SW(WS_ARCH_LEARNED_POS)}, {"relative_attention", SW(WS_ARCH_REL_EMBED)},
	  {"share_att_key", SW(WS_ARCH_SHARE_ATT_KEY)}},
	 false, WS_FIX_NONE, "DebertaV2",
	 {D("vocab_size", 128100), D("hidden_size", 1536), D("intermediate_size", 6144),
	  D("num_hidden_layers", 24), D("num_attention_heads", 24), D("max_position_embeddings", 512),
	  D("type_vocab_size", 0)},
	 WS_SLIDE_ALL, 0, deberta_classes, {{0}},
	 {{"pos_att_type", "c2p", SW(WS_ARCH_POS_C2P)}, {"pos_att_type", "p2c", SW(WS_ARCH_POS_P2C)},
	  {"norm_rel_ebd", "layer_norm", SW(WS_ARCH_REL_EMBED_NORM)}}},
	/* ModernBERT: pre-norm layers with a fused qkv and a fused gated MLP
	 * (Wi holds both halves), rotary positions, a final norm; block 0
	 * has no attention norm (the embedding norm precedes it).  Biases
	 * as norm_bias, attention_bias, mlp_bias, decoder_bias and
	 * classifier_bias say (ModernBertConfig: only the decoder's) */
	{{"modernbert"}, NULL, WS_NORM_LAYER, WS_MLP_GATED_FUSED,
	 SW(WS_ARCH_FUSED_QKV, WS_ARCH_EMBED_NORM, WS_ARCH_FIRST_NO_NORM),
	 SW(WS_ARCH_TIED, WS_ARCH_NO_NORM_BIAS, WS_ARCH_NO_HEAD_DENSE_BIAS),
	 {{"norm_bias", SW(WS_ARCH_NO_NORM_BIAS), true}, {"attention_bias", SW(QKVO)},
	  {"mlp_bias", SW(WS_ARCH_MLP_BIAS)}, {"decoder_bias", SW(WS_ARCH_NO_MLM_BIAS), true},
	  {"classifier_bias", SW(WS_ARCH_NO_HEAD_DENSE_BIAS), true}},
	 false, WS_FIX_NONE, "ModernBert",
	 {D("vocab_size", 50368), D("hidden_size", 768), D("intermediate_size", 1152),
	  D("num_hidden_layers", 22), D("num_attention_heads", 12), D("max_position_embeddings", 8192)},
	 WS_SLIDE_ALL, 0, modernbert_classes},
	/* nomic-bert (NomicBertConfig, remote code, GPT-2's key names): a
	 * post-norm BERT layer with a fused qkv (Wqkv) and a SwiGLU MLP
	 * (fc11, fc12, fc2), rotary positions, token types; biases as
	 * qkv_proj_bias and mlp_fc1_bias / mlp_fc2_bias say */
	{{"nomic_bert"}, "nomic-bert", WS_NORM_LAYER, WS_MLP_GATED,
	 SW(WS_ARCH_FUSED_QKV, WS_ARCH_TYPE_EMBED, WS_ARCH_EMBED_NORM, WS_ARCH_NO_PRE_NORM,
	    WS_ARCH_POST_NORMS, WS_ARCH_NO_FINAL_NORM),
	 SW(WS_ARCH_TIED, QKVO, WS_ARCH_MLP_BIAS),
	 {{"qkv_proj_bias", SW(QKVO)}, {"mlp_fc1_bias", SW(WS_ARCH_MLP_BIAS)},
	  {"mlp_fc2_bias", SW(WS_ARCH_MLP_BIAS)}},
	 true, WS_FIX_NONE, "NomicBert",
	 {D("vocab_size", 30528), D("n_embd", 768), D("n_layer", 12), D("n_head", 12),
	  D("n_positions", 2048), D("type_vocab_size", 2)},
	 WS_SLIDE_ALL, 0, nomic_classes},
	/* JinaBERT v2 as llama.cpp converts it (its Hugging Face config says
	 * model_type bert, remote code): BERT's post-norm layer, ALiBi (no
	 * positions), a GEGLU MLP whose fused input side (gated_layers, the
	 * GGUF's ffn_up of 2 × intermediate rows) has no bias */
	{{"jina-bert-v2"}, "jina-bert-v2", WS_NORM_LAYER, WS_MLP_GATED_FUSED,
	 SW(ALLB, WS_ARCH_TYPE_EMBED, WS_ARCH_EMBED_NORM, WS_ARCH_NO_PRE_NORM, WS_ARCH_POST_NORMS,
	    WS_ARCH_NO_FINAL_NORM, WS_ARCH_NO_UP_BIAS),
	 SW(WS_ARCH_TIED), {{0}}, false, WS_FIX_NONE, "JinaBert",
	 {D("type_vocab_size", 2)}, WS_SLIDE_ALL, 0, nomic_classes},
	/* Encoder-decoders: a wrapper per model_type, its two stacks
	 * (catalogue parts) types of their own.  T5: RMS norms before
	 * attention, cross-attention and the MLP, no biases, a relative
	 * bias in each stack's first self-attention */
	{{"t5_encoder"}, "t5encoder", WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_REL_BIAS), NOSW, {{0}}, false,
	 WS_FIX_NONE, "T5Encoder", T5_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes,
	 {{WS_AK_HEAD_DIM, "d_kv"}, {WS_AK_INTER, "d_ff"}}, T5_SOPT},
	{{"t5_decoder"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_REL_BIAS, WS_ARCH_XATTN), SW(WS_ARCH_TIED),
	 {{0}}, false, WS_FIX_NONE, NULL, T5_DEFAULTS, WS_SLIDE_ALL, 0, NULL,
	 {{WS_AK_LAYERS, "num_decoder_layers"}, {WS_AK_HEAD_DIM, "d_kv"}, {WS_AK_INTER, "d_ff"}}, T5_SOPT},
	/* MT5Config's defaults: a gated-gelu MLP unless feed_forward_proj
	 * says otherwise, an untied head */
	{{"mt5_encoder"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_REL_BIAS), SW(WS_ARCH_GATED_MLP),
	 {{0}}, false, WS_FIX_NONE, "MT5Encoder", UMT5_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes,
	 {{WS_AK_HEAD_DIM, "d_kv"}, {WS_AK_INTER, "d_ff"}}, T5_SOPT},
	{{"mt5_decoder"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_REL_BIAS, WS_ARCH_XATTN), SW(WS_ARCH_GATED_MLP),
	 {{0}}, false, WS_FIX_NONE, NULL, UMT5_DEFAULTS, WS_SLIDE_ALL, 0, NULL,
	 {{WS_AK_LAYERS, "num_decoder_layers"}, {WS_AK_HEAD_DIM, "d_kv"}, {WS_AK_INTER, "d_ff"}}, T5_SOPT},
	{{"umt5_encoder"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN, SW(WS_ARCH_REL_BIAS, WS_ARCH_REL_BIAS_LAYERS), NOSW,
	 {{0}}, false, WS_FIX_NONE, "UMT5Encoder", UMT5_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes,
	 {{WS_AK_HEAD_DIM, "d_kv"}, {WS_AK_INTER, "d_ff"}}, T5_SOPT},
	{{"umt5_decoder"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN,
	 SW(WS_ARCH_REL_BIAS, WS_ARCH_REL_BIAS_LAYERS, WS_ARCH_XATTN), SW(WS_ARCH_TIED), {{0}}, false,
	 WS_FIX_NONE, NULL, UMT5_DEFAULTS, WS_SLIDE_ALL, 0, NULL,
	 {{WS_AK_LAYERS, "num_decoder_layers"}, {WS_AK_HEAD_DIM, "d_kv"}, {WS_AK_INTER, "d_ff"}}, T5_SOPT},
	{{"t5"}, "t5", WS_NORM_RMS, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "T5",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = t5_parts},
	{{"mt5"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "MT5",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = mt5_parts},
	{{"umt5"}, NULL, WS_NORM_RMS, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "UMT5",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = umt5_parts},
	/* BART: post-norm layers (no final norm); mBART: pre-norm with a
	 * final norm per stack */
	{{"bart_encoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(BART_BODY, POST_ONLY), NOSW, {{0}}, false,
	 WS_FIX_NONE, "BartEncoder", BART_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes, ENC_KEYS},
	{{"bart_decoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(BART_BODY, POST_ONLY, WS_ARCH_XATTN),
	 SW(WS_ARCH_TIED), {{0}}, false, WS_FIX_NONE, NULL, BART_DEFAULTS, WS_SLIDE_ALL, 0, NULL, DEC_KEYS},
	{{"mbart_encoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(BART_BODY), NOSW, {{0}}, false,
	 WS_FIX_NONE, "MBartEncoder", BART_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes, ENC_KEYS},
	{{"mbart_decoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(BART_BODY, WS_ARCH_XATTN), SW(WS_ARCH_TIED),
	 {{0}}, false, WS_FIX_NONE, NULL, BART_DEFAULTS, WS_SLIDE_ALL, 0, NULL, DEC_KEYS},
	{{"bart"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Bart",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = bart_parts},
	{{"mbart"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "MBart",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = mbart_parts},
	/* Marian: BART's post-norm layers without the embedding norm, its
	 * sinusoidal positions a stored table of max_position_embeddings
	 * rows (MarianConfig's defaults) */
	{{"marian_encoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_LEARNED_POS, POST_ONLY), NOSW,
	 {{0}}, false, WS_FIX_NONE, "MarianEncoder", MARIAN_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes, ENC_KEYS},
	{{"marian_decoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(ALLB, WS_ARCH_LEARNED_POS, POST_ONLY, WS_ARCH_XATTN),
	 SW(WS_ARCH_TIED), {{0}}, false, WS_FIX_NONE, NULL, MARIAN_DEFAULTS, WS_SLIDE_ALL, 0, NULL, DEC_KEYS},
	{{"marian"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Marian",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = marian_parts},
	/* Whisper: pre-norm layers with biases but on the keys; the encoder
	 * reads audio features through two convolutions, its positions a
	 * frozen sinusoidal table stored as a parameter */
	{{"whisper_encoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(ALLB, WS_ARCH_NO_K_BIAS, WS_ARCH_LEARNED_POS, WS_ARCH_CONV_STEM, WS_ARCH_NO_TOKENS), NOSW, {{0}}, false,
	 WS_FIX_NONE, "WhisperEncoder", WHISPER_DEFAULTS, WS_SLIDE_ALL, 0, stack_classes,
	 {{WS_AK_LAYERS, "encoder_layers"}, {WS_AK_HEADS, "encoder_attention_heads"},
	  {WS_AK_INTER, "encoder_ffn_dim"}, {WS_AK_POSITIONS, "max_source_positions"}}},
	{{"whisper_decoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(ALLB, WS_ARCH_NO_K_BIAS, WS_ARCH_LEARNED_POS, WS_ARCH_XATTN), SW(WS_ARCH_TIED), {{0}}, false,
	 WS_FIX_NONE, NULL, WHISPER_DEFAULTS, WS_SLIDE_ALL, 0, NULL,
	 {{WS_AK_LAYERS, "decoder_layers"}, {WS_AK_HEADS, "decoder_attention_heads"},
	  {WS_AK_INTER, "decoder_ffn_dim"}, {WS_AK_POSITIONS, "max_target_positions"}}},
	{{"whisper"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Whisper",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = whisper_parts},
	/* audio towers of audio-text wrappers (qwen2_audio_parts): Whisper's
	 * encoder; Voxtral's projector reads intermediate_size-wide rows
	 * (its output width) */
	{{"qwen2_audio_encoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(WHISPER_ENC_BODY), NOSW, {{0}}, false,
	 WS_FIX_NONE, "Qwen2AudioEncoder", QWEN2_AUDIO_ENC_DEFAULTS, WS_SLIDE_ALL, 0, tower_alone_classes,
	 {{WS_AK_LAYERS, "encoder_layers"}, {WS_AK_HEADS, "encoder_attention_heads"},
	  {WS_AK_INTER, "encoder_ffn_dim"}, {WS_AK_POSITIONS, "max_source_positions"}}},
	{{"voxtral_encoder"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN, SW(WHISPER_ENC_BODY), NOSW, {{0}}, false,
	 WS_FIX_NONE, "VoxtralEncoder", VOXTRAL_ENC_DEFAULTS, WS_SLIDE_ALL, 0, tower_alone_classes,
	 {{WS_AK_POSITIONS, "max_source_positions"}, {WS_AK_OUT, "intermediate_size"},
	  {WS_AK_LAYERS, "encoder_layers"}, {WS_AK_HEADS, "encoder_attention_heads"}}},
	{{"qwen2_audio"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Qwen2Audio",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = qwen2_audio_parts},
	{{"voxtral"}, NULL, WS_NORM_RMS, WS_MLP_GATED, NOSW, NOSW, {{0}}, false, WS_FIX_NONE, "Voxtral",
	 {{0}}, WS_SLIDE_ALL, 0, NULL, {{0}}, .parts = voxtral_parts},
	/* DINOv2: ViT's pre-norm layer with a learned scale after attention
	 * and after the MLP, a mask token, an MLP of mlp_ratio × hidden
	 * (Dinov2Config's defaults are dinov2-base's at 224 pixels) */
	{{"dinov2"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS, WS_ARCH_CLS_TOKEN, WS_ARCH_LAYER_SCALE, WS_ARCH_MASK_TOKEN),
	 SW(WS_ARCH_QKV_BIAS), {{"qkv_bias", SW(WS_ARCH_QKV_BIAS)}}, true, WS_FIX_NONE, "Dinov2",
	 {D("hidden_size", 768), D("num_hidden_layers", 12), D("num_attention_heads", 12),
	  D("image_size", 224), D("patch_size", 16), D("num_channels", 3)},
	 WS_SLIDE_ALL, 0, dinov2_classes},
	/* DINOv2 with registers: the same and num_register_tokens learned
	 * tokens (without positions) */
	{{"dinov2_with_registers"}, NULL, WS_NORM_LAYER, WS_MLP_PLAIN,
	 SW(WS_ARCH_O_BIAS, WS_ARCH_MLP_BIAS, WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS, WS_ARCH_CLS_TOKEN, WS_ARCH_LAYER_SCALE, WS_ARCH_MASK_TOKEN,
	    WS_ARCH_REGISTERS),
	 SW(WS_ARCH_QKV_BIAS), {{"qkv_bias", SW(WS_ARCH_QKV_BIAS)}}, true, WS_FIX_NONE, "Dinov2WithRegisters",
	 {D("hidden_size", 768), D("num_hidden_layers", 12), D("num_attention_heads", 12),
	  D("image_size", 224), D("patch_size", 16), D("num_channels", 3), D("num_register_tokens", 4)},
	 WS_SLIDE_ALL, 0, dinov2_classes},
};

const struct ws_cat_mmproj *
ws_cat_mmproj(const char *projector_type)
{
	for (size_t i = 0; projector_type && i < ARRAY_LEN(mmprojs); i++)
		if (!strcmp(mmprojs[i].projector_type, projector_type))
			return &mmprojs[i];
	return NULL;
}

const struct ws_cat_mmproj *
ws_cat_mmproj_by_layout(const char *layout)
{
	for (size_t i = 0; layout && i < ARRAY_LEN(mmprojs); i++)
		if (!strcmp(mmprojs[i].parts[1].type, layout))
			return &mmprojs[i];
	return NULL;
}

const struct ws_cat_projector *
ws_cat_projector(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_LEN(projectors); i++)
		if (!strcmp(projectors[i].name, name))
			return &projectors[i];
	return NULL;
}

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
	[WS_LK_XATTN] = {"cross_attention", NULL},
	[WS_LK_HYBRID] = {"hybrid", "hybrid"},
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


/* Components of multimodal checkpoints, by the prefixes transformers
 * saves them under (before and after the 4.52 refactor). */
static const struct ws_cat_component components[] = {
	{"vision_tower.", "vision_tower", "vision"},
	{"model.vision_tower.", "vision_tower", "vision"},
	{"multi_modal_projector.", "multi_modal_projector", "projector"},
	{"model.multi_modal_projector.", "multi_modal_projector", "projector"},
	{"audio_tower.", "audio_tower", "audio"},
	{"model.audio_tower.", "audio_tower", "audio"},
	/* an original Stable Diffusion single file (LDM names): the
	 * denoiser, the autoencoder and the text encoders by their modules */
	{"model.diffusion_model.", "unet", "unet"},
	{"first_stage_model.", "vae", "vae"},
	{"cond_stage_model.", "text_encoder", "text_encoder"},
	{"conditioner.embedders.0.", "text_encoder", "text_encoder"},
	{"conditioner.embedders.1.", "text_encoder_2", "text_encoder"},
};

/* An original Stable Diffusion single file: the denoiser (the main
 * component), the autoencoder, the text encoders; SD 1.x's CLIP as
 * transformers names it, SD 2.x's and SDXL's second OpenCLIP by its own
 * names (its contrastive logit_scale has no place in the text-encoder
 * class: stored, not loaded). */
static const struct ws_cat_part single_file_parts[] = {
	{.kind = "unet", .name = "unet", .type = "UNet2DConditionModel (LDM names)",
	 .prefixes = {"model.diffusion_model."}, .inferred = true},
	{.kind = "vae", .name = "vae", .type = "AutoencoderKL (LDM names)", .prefixes = {"first_stage_model."},
	 .inferred = true},
	{.kind = "text_encoder", .name = "text_encoder", .type = "clip_text_model",
	 .prefixes = {"cond_stage_model.transformer."}, .inferred = true},
	{.kind = "text_encoder", .name = "text_encoder", .type = "open_clip_text", .adds = SW(WS_ARCH_FUSED_QKV),
	 .prefixes = {"cond_stage_model.model."}, .ignored = {"logit_scale"}, .inferred = true},
	{.kind = "text_encoder", .name = "text_encoder", .type = "clip_text_model",
	 .prefixes = {"conditioner.embedders.0.transformer."}, .inferred = true},
	{.kind = "text_encoder", .name = "text_encoder_2", .type = "open_clip_text", .adds = SW(WS_ARCH_FUSED_QKV),
	 .prefixes = {"conditioner.embedders.1.model."}, .ignored = {"logit_scale"}, .inferred = true},
	/* SDXL's refiner: OpenCLIP alone, its only embedder (diffusers'
	 * text_encoder_2) */
	{.kind = "text_encoder", .name = "text_encoder_2", .type = "open_clip_text", .adds = SW(WS_ARCH_FUSED_QKV),
	 .prefixes = {"conditioner.embedders.0.model."}, .ignored = {"logit_scale"}, .inferred = true},
};

const struct ws_cat_part *
ws_cat_single_file_parts(size_t *n)
{
	*n = ARRAY_LEN(single_file_parts);
	return single_file_parts;
}

static const struct ws_cat_text_names text_names[] = {
	{"clip_text_model", "clip_text_model", "CLIPTextModel", "CLIPTextModelWithProjection", "text_projection.weight",
	 {{"hidden_size", "text_model.embeddings.token_embedding.weight", 1},
	  {"vocab_size", "text_model.embeddings.token_embedding.weight", 0},
	  {"max_position_embeddings", "text_model.embeddings.position_embedding.weight", 0},
	  {"intermediate_size", "text_model.encoder.layers.0.mlp.fc1.weight", 0},
	  {"num_hidden_layers", "text_model.encoder.layers.", 0},
	  {"projection_dim", "text_projection.weight", 0}},
	 64},
	/* OpenCLIP: a [width, embed] projection matrix (x @ text_projection) */
	{"open_clip_text", "clip_text_model", "CLIPTextModel", "CLIPTextModelWithProjection", "text_projection",
	 {{"hidden_size", "token_embedding.weight", 1},
	  {"vocab_size", "token_embedding.weight", 0},
	  {"max_position_embeddings", "positional_embedding", 0},
	  {"intermediate_size", "transformer.resblocks.0.mlp.c_fc.weight", 0},
	  {"num_hidden_layers", "transformer.resblocks.", 0},
	  {"projection_dim", "text_projection", 1}},
	 64},
};

const struct ws_cat_text_names *
ws_cat_text_names(const char *names)
{
	for (size_t i = 0; names && i < ARRAY_LEN(text_names); i++)
		if (!strcmp(text_names[i].names, names))
			return &text_names[i];
	return NULL;
}

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
ws_cat_components(size_t *n)
{
	*n = ARRAY_LEN(components);
	return components;
}

const struct ws_cat_component *
ws_cat_component_decide(const char *name, size_t len, size_t *decided)
{
	/* each prefix's walk stops at a byte the name has (a difference, or
	 * the prefix's end with the name going on) or at the name's end;
	 * the walks look at bytes up to the furthest stop, and only at the
	 * length when one ran into the name's end (then: no shortcut) */
	size_t far = 0;
	const struct ws_cat_component *hit = NULL;
	for (size_t i = 0; i < ARRAY_LEN(components) && !hit; i++) {
		const char *p = components[i].prefix;
		size_t n = 0;
		while (p[n] && n < len && name[n] == p[n])
			n++;
		if (n > far)
			far = n;
		if (!p[n] && len > n)
			hit = &components[i];
	}
	*decided = far < len ? far + 1 : SIZE_MAX;
	return hit;
}

const struct ws_cat_component *
ws_cat_component_of(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_LEN(components); i++) {
		/* strlen + memcmp's answer in one walk that stops at the first
		 * byte that differs (the first, for most prefixes): every
		 * tensor of a checkpoint asks */
		const char *p = components[i].prefix;
		size_t n = 0;
		while (p[n] && n < len && name[n] == p[n])
			n++;
		if (!p[n] && len > n)
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
		if ((entries[i].gguf && strcmp(entries[i].gguf, name) == 0) ||
		    (entries[i].gguf_moe && strcmp(entries[i].gguf_moe, name) == 0))
			return &entries[i];
	return NULL;
}

const struct ws_cat_entry *
ws_cat_by_class(const char *cls, const struct ws_cat_class **klass)
{
	for (size_t i = 0; i < ARRAY_LEN(entries); i++) {
		const char *p = entries[i].cls;
		size_t n = p ? strlen(p) : 0;
		if (!n || strncmp(cls, p, n) != 0)
			continue;
		const struct ws_cat_class *c = entries[i].classes ? entries[i].classes : decoder_classes;
		for (; c->suffix; c++) {
			if (strcmp(cls + n, c->suffix) == 0) {
				*klass = c;
				return &entries[i];
			}
		}
	}
	return NULL;
}

const struct ws_cat_class *
ws_cat_default_class(const struct ws_cat_entry *e)
{
	return e->classes ? &e->classes[0] : NULL;
}

const struct ws_cat_default *
ws_cat_default(const struct ws_cat_entry *e, const char *key)
{
	for (size_t i = 0; i < WS_CAT_MAX_DEFAULTS && e->defs[i].kind != WS_CAT_END; i++)
		if (strcmp(e->defs[i].key, key) == 0)
			return &e->defs[i];
	return NULL;
}
