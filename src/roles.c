/*
 * roles.c - the role table and its matcher.
 *
 * The table below is the whole mapping from tensor names to roles (SPEC
 * "Roles"); the pattern language is described in weightscan/roles.h.  A
 * new architecture is a few table lines.  Matching is a small backtracking
 * glob over bytes (no regex library, no global state).  ws_roles_assign()
 * classifies each distinct name "skeleton" (digit segments replaced by a
 * placeholder) once and reuses the answer, so `layers.0` .. `layers.79`
 * cost one table walk per tensor kind, not per tensor; a large model is
 * assigned in two halves on two threads, each with its own cache.
 */
#include <pthread.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>


#include "catalogue/catalogue.h"
#include "internal.h"
#include "xxh.h"
#include "ws/adapter.h"
#include "ws/model.h"
#include "ws/roles.h"

/* ==== role names ==== */

static const char *const role_names[WS_ROLE_COUNT] = {
#define WS_ROLE_NAME_(id, name, part, mm) [WS_ROLE_##id] = name,
	WS_ROLES(WS_ROLE_NAME_)
#undef WS_ROLE_NAME_
};

static const unsigned char role_parts[WS_ROLE_COUNT] = {
#define WS_ROLE_PART_(id, name, part, mm) [WS_ROLE_##id] = WS_PART_##part,
	WS_ROLES(WS_ROLE_PART_)
#undef WS_ROLE_PART_
};

static const unsigned char role_matmuls[WS_ROLE_COUNT] = {
#define WS_ROLE_MM_(id, name, part, mm) [WS_ROLE_##id] = WS_MATMUL_##mm,
	WS_ROLES(WS_ROLE_MM_)
#undef WS_ROLE_MM_
};

enum ws_role_part
ws_role_part(ws_role r)
{
	return (unsigned)r < WS_ROLE_COUNT ? (enum ws_role_part)role_parts[r] : WS_PART_OTHER;
}

enum ws_role_matmul
ws_role_matmul(ws_role r)
{
	return (unsigned)r < WS_ROLE_COUNT ? (enum ws_role_matmul)role_matmuls[r] : WS_MATMUL_NONE;
}

const char *
ws_role_name(ws_role r)
{
	/* An out-of-range value prints as "other" rather than crashing a
	 * report. */
	if ((unsigned)r >= WS_ROLE_COUNT)
		return role_names[WS_ROLE_OTHER];
	return role_names[r];
}

int
ws_role_from_name(const char *name)
{
	if (!name)
		return -1;
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		if (strcmp(role_names[r], name) == 0)
			return r;
	return -1;
}

/* ==== the table ==== */

enum { F_HF = 1u << WS_FORMAT_SAFETENSORS, F_GG = 1u << WS_FORMAT_GGUF };

typedef struct role_line {
	unsigned formats;  /* F_HF / F_GG */
	const char *arch;  /* space-separated model types; "" = all */
	const char *pat;
	ws_role role;
	int needs;         /* a switch the model type's catalogue entry has; -1 none */
} role_line;

#define HF(arch, pat, role) { F_HF, arch, pat, WS_ROLE_##role, -1 }
#define GG(arch, pat, role) { F_GG, arch, pat, WS_ROLE_##role, -1 }
/* A line for every model type whose catalogue entry has switch sw. */
#define HF_IF(sw, pat, role) { F_HF, "", pat, WS_ROLE_##role, sw }

/* First match wins: specific lines before general ones, and
 * architecture-specific lines before the default meaning of a name. */
static const role_line lines[] = {
	/* ---- Hugging Face names (after wrapper prefixes are stripped) ---- */

	/* PEFT LoRA: the adapted module's name sits in the middle. */
	HF("", "{B}.*.experts.{E}.*.lora_A{K}", LORA_A),
	HF("", "{B}.*.experts.{E}.*.lora_B{K}", LORA_B),
	HF("", "{B}.*.lora_A{K}", LORA_A),
	HF("", "{B}.*.lora_B{K}", LORA_B),
	HF("", "{B}.*.lora_embedding_A{K}", LORA_EMBED_A),
	HF("", "{B}.*.lora_embedding_B{K}", LORA_EMBED_B),
	HF("", "*.lora_A{K}", LORA_A),
	HF("", "*.lora_B{K}", LORA_B),
	HF("", "*.lora_embedding_A{K}", LORA_EMBED_A),
	HF("", "*.lora_embedding_B{K}", LORA_EMBED_B),
	/* PEFT's trainable_token_indices: the chosen rows of an embedding,
	 * a delta trained in the embedding's space (as LoRA's embedding B) */
	HF("", "*.token_adapter.trainable_tokens_delta", LORA_EMBED_B),
	/* DoRA's magnitudes (PEFT; kohya's dora_scale) */
	HF("", "{B}.*.lora_magnitude_vector{K}", LORA_MAGNITUDE),
	HF("", "*.lora_magnitude_vector{K}", LORA_MAGNITUDE),
	HF("", "lora_*.dora_scale", LORA_MAGNITUDE),
	/* mlx-lm: lora_a [in, r], lora_b [r, out]; DoRA's magnitude m */
	HF("", "{B}.*.lora_a", LORA_A),
	HF("", "{B}.*.lora_b", LORA_B),
	HF("", "{B}.*_proj.m", LORA_MAGNITUDE),
	HF("", "*.lora_a", LORA_A),
	HF("", "*.lora_b", LORA_B),
	/* kohya / ComfyUI (lora_unet_*, lora_te1_*): down, up and the alpha
	 * scalar; LyCORIS LoHa (hada_w1_a ...) and LoKr (lokr_w1 ...) */
	HF("", "lora_*.lora_down{K}", LORA_A),
	HF("", "lora_*.lora_up{K}", LORA_B),
	HF("", "lora_*.lora_mid{K}", LORA_A),
	HF("", "lora_*.alpha", LORA_ALPHA),
	HF("", "lora_*.hada_w*_a", LORA_A),
	HF("", "lora_*.hada_w*_b", LORA_B),
	HF("", "lora_*.hada_t*", LORA_A),
	HF("", "lora_*.lokr_w1*", LORA_A),
	HF("", "lora_*.lokr_w2*", LORA_B),
	HF("", "lora_*.lokr_t*", LORA_A),
	HF("", "*.lora_down{K}", LORA_A),
	HF("", "*.lora_up{K}", LORA_B),

	/* Non-parameter buffers saved by older transformers versions. */
	HF("", "{B}.*.inv_freq", BUFFER),
	HF("", "*inv_freq", BUFFER),
	HF("", "{B}.attn.bias", BUFFER),
	HF("", "{B}.attn.masked_bias", BUFFER),
	HF("", "{B}.attention.bias", BUFFER),
	HF("", "{B}.attention.masked_bias", BUFFER),
	HF("", "*.masked_bias", BUFFER),
	HF("", "*position_ids", BUFFER),
	HF("", "*token_type_ids", BUFFER),
	/* an original Stable Diffusion file's noise schedule and EMA
	 * counters (registered buffers of the training code, outside its
	 * modules) */
	HF("", "betas", BUFFER),
	HF("", "alphas_cumprod", BUFFER),
	HF("", "alphas_cumprod_prev", BUFFER),
	HF("", "sqrt_alphas_cumprod", BUFFER),
	HF("", "sqrt_one_minus_alphas_cumprod", BUFFER),
	HF("", "log_one_minus_alphas_cumprod", BUFFER),
	HF("", "sqrt_recip_alphas_cumprod", BUFFER),
	HF("", "sqrt_recipm1_alphas_cumprod", BUFFER),
	HF("", "posterior_variance", BUFFER),
	HF("", "posterior_log_variance_clipped", BUFFER),
	HF("", "posterior_mean_coef1", BUFFER),
	HF("", "posterior_mean_coef2", BUFFER),
	HF("", "model_ema.decay", BUFFER),
	HF("", "model_ema.num_updates", BUFFER),

	/* Encoder-decoders (each stack's names after its prefix, encoder. /
	 * model.decoder. ...; a stack saved alone keeps it: the leading *).
	 * T5: block.N.layer.0 self-attention, then in the decoder layer.1
	 * the cross-attention (EncDecAttention), the last the MLP
	 * (DenseReluDense: wi, or wi_0 gate and wi_1 up, then wo); the
	 * relative bias of a stack's first block serves every block
	 * (UMT5: one per block) */
	HF("t5* mt5* umt5* bart* mbart* marian*", "shared{K}", EMBED),
	HF("t5* mt5* umt5*", "*embed_tokens{K}", EMBED),
	HF("t5* mt5* umt5*", "*final_layer_norm{K}", FINAL_NORM),
	HF("umt5*", "*block.{L}.layer.0.SelfAttention.relative_attention_bias{K}", REL_POS_BIAS),
	HF("t5* mt5*", "*block.{N}.layer.0.SelfAttention.relative_attention_bias{K}", REL_POS_BIAS),
	HF("t5* mt5* umt5*", "*block.{L}.layer.{N}.EncDecAttention.relative_attention_bias{K}", REL_POS_BIAS),
	HF("t5* mt5* umt5*", "*block.{L}.layer.0.SelfAttention.q{K}", ATTN_Q),
	HF("t5* mt5* umt5*", "*block.{L}.layer.0.SelfAttention.k{K}", ATTN_K),
	HF("t5* mt5* umt5*", "*block.{L}.layer.0.SelfAttention.v{K}", ATTN_V),
	HF("t5* mt5* umt5*", "*block.{L}.layer.0.SelfAttention.o{K}", ATTN_O),
	HF("t5* mt5* umt5*", "*block.{L}.layer.0.layer_norm{K}", ATTN_NORM),
	HF("t5* mt5* umt5*", "*block.{L}.layer.1.EncDecAttention.q{K}", XATTN_Q),
	HF("t5* mt5* umt5*", "*block.{L}.layer.1.EncDecAttention.k{K}", XATTN_K),
	HF("t5* mt5* umt5*", "*block.{L}.layer.1.EncDecAttention.v{K}", XATTN_V),
	HF("t5* mt5* umt5*", "*block.{L}.layer.1.EncDecAttention.o{K}", XATTN_O),
	HF("t5_decoder mt5_decoder umt5_decoder", "*block.{L}.layer.1.layer_norm{K}", XATTN_NORM),
	HF("t5* mt5* umt5*", "*block.{L}.layer.{N}.layer_norm{K}", FFN_NORM),
	HF("t5* mt5* umt5*", "*block.{L}.layer.{N}.DenseReluDense.wi_0{K}", FFN_GATE),
	HF("t5* mt5* umt5*", "*block.{L}.layer.{N}.DenseReluDense.wi_1{K}", FFN_UP),
	HF("t5* mt5* umt5*", "*block.{L}.layer.{N}.DenseReluDense.wi{K}", FFN_UP),
	HF("t5* mt5* umt5*", "*block.{L}.layer.{N}.DenseReluDense.wo{K}", FFN_DOWN),
	/* BART, mBART, Whisper: self_attn, encoder_attn (the decoder's
	 * cross-attention), fc1 / fc2, a norm after each (BART) or before
	 * (mBART, Whisper, which end each stack in layer_norm); BART's
	 * final_logits_bias is a buffer; Whisper's conv stem, proj_out its
	 * head (tied) */
	HF("bart_encoder bart_decoder marian*", "{B}.self_attn_layer_norm{K}", ATTN_POST_NORM),
	HF("bart_encoder bart_decoder marian*", "{B}.final_layer_norm{K}", FFN_POST_NORM),
	HF("bart* mbart* whisper*", "{B}.self_attn_layer_norm{K}", ATTN_NORM),
	HF("bart* mbart* whisper*", "{B}.final_layer_norm{K}", FFN_NORM),
	HF("bart* mbart* whisper* marian*", "{B}.encoder_attn_layer_norm{K}", XATTN_NORM),
	HF("bart* mbart* whisper* marian*", "{B}.encoder_attn.q_proj{K}", XATTN_Q),
	HF("bart* mbart* whisper* marian*", "{B}.encoder_attn.k_proj{K}", XATTN_K),
	HF("bart* mbart* whisper* marian*", "{B}.encoder_attn.v_proj{K}", XATTN_V),
	HF("bart* mbart* whisper* marian*", "{B}.encoder_attn.out_proj{K}", XATTN_O),
	HF("bart* mbart* whisper* marian*", "{B}.fc1{K}", FFN_UP),
	HF("bart* mbart* whisper* marian*", "{B}.fc2{K}", FFN_DOWN),
	HF("bart* mbart* whisper*", "layernorm_embedding{K}", EMBED_NORM),
	HF("bart* mbart* whisper*", "layer_norm{K}", FINAL_NORM),
	HF("bart* mbart* whisper* marian*", "final_logits_bias", BUFFER),
	HF("whisper*", "conv1{K}", CONV),
	HF("whisper*", "conv2{K}", CONV),
	HF("whisper*", "proj_out{K}", LM_HEAD),
	/* the same encoder as another type's audio tower (Qwen2-Audio's,
	 * Voxtral's): every type with a conv stem */
	HF_IF(WS_ARCH_CONV_STEM, "{B}.self_attn_layer_norm{K}", ATTN_NORM),
	HF_IF(WS_ARCH_CONV_STEM, "{B}.final_layer_norm{K}", FFN_NORM),
	HF_IF(WS_ARCH_CONV_STEM, "{B}.fc1{K}", FFN_UP),
	HF_IF(WS_ARCH_CONV_STEM, "{B}.fc2{K}", FFN_DOWN),
	HF_IF(WS_ARCH_CONV_STEM, "layer_norm{K}", FINAL_NORM),
	HF_IF(WS_ARCH_CONV_STEM, "conv1{K}", CONV),
	HF_IF(WS_ARCH_CONV_STEM, "conv2{K}", CONV),

	/* Embeddings, final norm, head. */
	HF("", "embed_tokens{K}", EMBED),
	HF("", "wte{K}", EMBED),
	HF("", "embd.wte{K}", EMBED),
	HF("", "tok_embeddings{K}", EMBED),
	HF("", "word_embeddings{K}", EMBED),
	HF("", "embedding.word_embeddings{K}", EMBED),
	HF("", "embeddings.word_embeddings{K}", EMBED),
	HF("", "embed_in{K}", EMBED),
	HF("", "wpe{K}", POS_EMBED),
	HF("", "embed_positions{K}", POS_EMBED),
	HF("", "embeddings.position_embeddings{K}", POS_EMBED),
	HF("", "embeddings.token_type_embeddings{K}", TYPE_EMBED),
	/* image encoders' (ViT): the patch convolution, the class token */
	HF("", "embeddings.patch_embeddings.projection{K}", PATCH_EMBED),
	HF("", "embeddings.cls_token", CLS_TOKEN),
	/* CLIP / SigLIP towers (after text_model. / vision_model.) */
	HF("", "embeddings.token_embedding{K}", EMBED),
	HF("", "embeddings.position_embedding{K}", POS_EMBED),
	HF("", "embeddings.patch_embedding{K}", PATCH_EMBED),
	HF("", "embeddings.class_embedding", CLS_TOKEN),
	HF("", "pre_layrnorm{K}", EMBED_NORM),
	HF("", "post_layernorm{K}", FINAL_NORM),
	HF("", "text_projection{K}", PROJECTOR),
	HF("", "visual_projection{K}", PROJECTOR),
	HF("", "logit_scale", LOGIT_SCALE),
	/* OpenCLIP inside a Stable Diffusion single file (conditioner.embedders.1.model.) */
	HF("", "*.model.logit_scale", LOGIT_SCALE),
	/* OpenCLIP's text tower by its own names (a Stable Diffusion single
	 * file's, after its module prefix): q, k, v one in_proj */
	HF("clip_text_model", "token_embedding{K}", EMBED),
	HF("clip_text_model", "positional_embedding", POS_EMBED),
	HF("clip_text_model", "resblocks.{L}.ln_1{K}", ATTN_NORM),
	HF("clip_text_model", "resblocks.{L}.attn.in_proj_weight", ATTN_QKV),
	HF("clip_text_model", "resblocks.{L}.attn.in_proj_bias", ATTN_QKV),
	HF("clip_text_model", "resblocks.{L}.attn.out_proj{K}", ATTN_O),
	HF("clip_text_model", "resblocks.{L}.ln_2{K}", FFN_NORM),
	HF("clip_text_model", "resblocks.{L}.mlp.c_fc{K}", FFN_UP),
	HF("clip_text_model", "resblocks.{L}.mlp.c_proj{K}", FFN_DOWN),
	HF("clip_text_model", "ln_final{K}", FINAL_NORM),
	HF("clip_text_model", "text_projection", PROJECTOR),
	HF("", "logit_bias", LOGIT_BIAS),
	/* SigLIP's attention-pooling head (a probe and a packed attention)
	 * and its text tower's own head */
	HF("siglip*", "head.probe", ATTN_POOL),
	HF("siglip*", "head.attention.in_proj_weight", ATTN_POOL),
	HF("siglip*", "head.attention.in_proj_bias", ATTN_POOL),
	HF("siglip*", "head.attention.out_proj{K}", ATTN_POOL),
	HF("siglip*", "head.layernorm{K}", ATTN_POOL),
	HF("siglip*", "head.mlp.fc1{K}", ATTN_POOL),
	HF("siglip*", "head.mlp.fc2{K}", ATTN_POOL),
	HF("siglip*", "head{K}", PROJECTOR),
	/* Qwen-VL towers (after visual.): a patch convolution over frames,
	 * blocks of norm1 / norm2, a fused qkv and its output proj */
	HF("qwen2_5_vl_vision qwen2_vl_vision qwen3_vl_vision", "patch_embed.proj{K}", PATCH_EMBED),
	HF("qwen2_5_vl_vision qwen2_vl_vision qwen3_vl_vision", "{B}.norm1{K}", ATTN_NORM),
	HF("qwen2_5_vl_vision qwen2_vl_vision qwen3_vl_vision", "{B}.norm2{K}", FFN_NORM),
	HF("qwen2_5_vl_vision qwen2_vl_vision qwen3_vl_vision", "{B}.attn.qkv{K}", ATTN_QKV),
	HF("qwen2_5_vl_vision qwen2_vl_vision qwen3_vl_vision", "{B}.attn.proj{K}", ATTN_O),
	HF("qwen3_vl_vision", "pos_embed{K}", POS_EMBED),
	HF("qwen3_vl_vision", "{B}.mlp.linear_fc1{K}", FFN_UP),
	HF("qwen3_vl_vision", "{B}.mlp.linear_fc2{K}", FFN_DOWN),
	/* InternViT (InternVL's tower, after vision_model.): a fused qkv
	 * and proj, q / k norms, norm1 / norm2, layer scales ls1 / ls2 */
	HF("intern_vit_6b", "{B}.attn.qkv{K}", ATTN_QKV),
	HF("intern_vit_6b", "{B}.attn.proj{K}", ATTN_O),
	HF("intern_vit_6b", "{B}.attn.q_norm{K}", ATTN_Q_NORM),
	HF("intern_vit_6b", "{B}.attn.k_norm{K}", ATTN_K_NORM),
	HF("intern_vit_6b", "{B}.norm1{K}", ATTN_NORM),
	HF("intern_vit_6b", "{B}.norm2{K}", FFN_NORM),
	HF("intern_vit_6b", "{B}.ls1", LAYER_SCALE),
	HF("intern_vit_6b", "{B}.ls2", LAYER_SCALE),
	/* ... and as transformers converts it (after vision_tower.) */
	HF("internvl_vision", "encoder.layer.{L}.attention.q_proj{K}", ATTN_Q),
	HF("internvl_vision", "encoder.layer.{L}.attention.k_proj{K}", ATTN_K),
	HF("internvl_vision", "encoder.layer.{L}.attention.v_proj{K}", ATTN_V),
	HF("internvl_vision", "encoder.layer.{L}.attention.projection_layer{K}", ATTN_O),
	HF("internvl_vision", "encoder.layer.{L}.attention.q_norm{K}", ATTN_Q_NORM),
	HF("internvl_vision", "encoder.layer.{L}.attention.k_norm{K}", ATTN_K_NORM),
	HF("internvl_vision", "encoder.layer.{L}.lambda_1", LAYER_SCALE),
	HF("internvl_vision", "encoder.layer.{L}.lambda_2", LAYER_SCALE),
	/* Mllama: the text model's cross-attention layers */
	HF("mllama_text_model", "{B}.cross_attn.q_proj{K}", XATTN_Q),
	HF("mllama_text_model", "{B}.cross_attn.k_proj{K}", XATTN_K),
	HF("mllama_text_model", "{B}.cross_attn.v_proj{K}", XATTN_V),
	HF("mllama_text_model", "{B}.cross_attn.o_proj{K}", XATTN_O),
	HF("mllama_text_model", "{B}.cross_attn.q_norm{K}", XATTN_NORM),
	HF("mllama_text_model", "{B}.cross_attn.k_norm{K}", XATTN_NORM),
	HF("mllama_text_model", "{B}.cross_attn_attn_gate", XATTN_GATE),
	HF("mllama_text_model", "{B}.cross_attn_mlp_gate", XATTN_GATE),
	/* its tower (after vision_model.): patches, class token, gated
	 * positions and tile tables, norms; the global layers' gates */
	HF("mllama_vision_model", "patch_embedding{K}", PATCH_EMBED),
	HF("mllama_vision_model", "class_embedding", CLS_TOKEN),
	HF("mllama_vision_model", "gated_positional_embedding.embedding", POS_EMBED),
	HF("mllama_vision_model", "gated_positional_embedding.gate", POS_EMBED),
	HF("mllama_vision_model", "gated_positional_embedding.tile_embedding{K}", POS_EMBED),
	HF("mllama_vision_model", "pre_tile_positional_embedding.embedding{K}", POS_EMBED),
	HF("mllama_vision_model", "pre_tile_positional_embedding.gate", POS_EMBED),
	HF("mllama_vision_model", "post_tile_positional_embedding.embedding{K}", POS_EMBED),
	HF("mllama_vision_model", "post_tile_positional_embedding.gate", POS_EMBED),
	HF("mllama_vision_model", "layernorm_pre{K}", EMBED_NORM),
	HF("mllama_vision_model", "layernorm_post{K}", FINAL_NORM),
	HF("mllama_vision_global", "{B}.gate_attn", LAYER_SCALE),
	HF("mllama_vision_global", "{B}.gate_ffn", LAYER_SCALE),
	/* Qwen3-VL's DeepStack mergers (after their list's prefix): one
	 * per index */
	HF("deepstack", "{L}.*{K}", PROJECTOR),
	/* Llama 4's tower (after vision_model.): patches through a linear,
	 * a class token and its positions, norms around the blocks, and
	 * its adapter */
	HF("llama4_vision_model", "patch_embedding.linear{K}", PATCH_EMBED),
	HF("llama4_vision_model", "class_embedding", CLS_TOKEN),
	HF("llama4_vision_model", "positional_embedding_vlm", POS_EMBED),
	HF("llama4_vision_model", "layernorm_pre{K}", EMBED_NORM),
	HF("llama4_vision_model", "layernorm_post{K}", FINAL_NORM),
	HF("llama4_vision_model", "vision_adapter.mlp.fc1{K}", PROJECTOR),
	HF("llama4_vision_model", "vision_adapter.mlp.fc2{K}", PROJECTOR),
	/* DINOv2's mask token and register tokens */
	HF("", "embeddings.mask_token", MASK_TOKEN),
	HF("", "embeddings.register_tokens", REGISTER_TOKENS),
	/* ModernBERT's embeddings, final norm and heads (head.dense and
	 * head.norm before the classifier or the masked-LM decoder) */
	HF("modernbert", "embeddings.tok_embeddings{K}", EMBED),
	HF("modernbert", "embeddings.norm{K}", EMBED_NORM),
	HF("modernbert", "final_norm{K}", FINAL_NORM),
	HF("modernbert", "head.dense{K}", MLM_TRANSFORM),
	HF("modernbert", "head.norm{K}", MLM_TRANSFORM),
	HF("modernbert", "decoder.bias", MLM_BIAS),
	HF("modernbert", "decoder{K}", LM_HEAD),
	/* nomic-bert's embedding norm */
	HF("nomic_bert", "emb_ln{K}", EMBED_NORM),
	/* DeBERTa-v2's relative positions (and their norm); the masked-LM
	 * head of its non-legacy layout */
	HF("deberta-v2", "encoder.rel_embeddings{K}", POS_EMBED),
	HF("deberta-v2", "encoder.LayerNorm{K}", EMBED_NORM),
	HF("deberta-v2", "lm_predictions.lm_head.dense{K}", MLM_TRANSFORM),
	HF("deberta-v2", "lm_predictions.lm_head.LayerNorm{K}", MLM_TRANSFORM),
	HF("deberta-v2", "lm_predictions.lm_head.bias", MLM_BIAS),
	HF("", "word_embeddings_layernorm{K}", EMBED_NORM),
	HF("", "embeddings.LayerNorm{K}", EMBED_NORM),
	HF("", "norm{K}", FINAL_NORM),
	HF("", "ln_f{K}", FINAL_NORM),
	HF("", "norm_f{K}", FINAL_NORM),
	HF("", "final_layernorm{K}", FINAL_NORM),
	HF("", "layernorm{K}", FINAL_NORM),   /* ViT-style encoders, after the wrapper */
	HF("", "final_layer_norm{K}", FINAL_NORM),
	HF("", "encoder.final_layernorm{K}", FINAL_NORM),
	/* Qwen3-Next's multi-token-prediction block (mtp.fc, its norms,
	 * mtp.layers.0, mtp.norm): counted apart */
	HF("qwen3_next", "mtp.*{K}", MTP),
	/* Mamba-style bodies (backbone.embeddings, layers.N.norm) */
	HF("mamba falcon_mamba mamba2 nemotron_h", "embeddings{K}", EMBED),
	HF("mamba falcon_mamba mamba2 nemotron_h", "{B}.norm{K}", ATTN_NORM),
	HF("mamba falcon_mamba mamba2 nemotron_h", "{B}.mixer.out_proj{K}", SSM_OUT),
	/* Nemotron-H: attention and the MLP are the layer's mixer too */
	HF("nemotron_h", "{B}.mixer.q_proj{K}", ATTN_Q),
	HF("nemotron_h", "{B}.mixer.k_proj{K}", ATTN_K),
	HF("nemotron_h", "{B}.mixer.v_proj{K}", ATTN_V),
	HF("nemotron_h", "{B}.mixer.o_proj{K}", ATTN_O),
	HF("nemotron_h", "{B}.mixer.up_proj{K}", FFN_UP),
	HF("nemotron_h", "{B}.mixer.down_proj{K}", FFN_DOWN),
	/* ... and its MoE (Nemotron-3: E layers) */
	HF("nemotron_h", "{B}.mixer.gate.e_score_correction_bias", MOE_ROUTER_BIAS),
	HF("nemotron_h", "{B}.mixer.gate{K}", MOE_ROUTER),
	HF("nemotron_h", "{B}.mixer.experts.{E}.up_proj{K}", MOE_UP),
	HF("nemotron_h", "{B}.mixer.experts.{E}.down_proj{K}", MOE_DOWN),
	HF("nemotron_h", "{B}.mixer.shared_experts.up_proj{K}", MOE_SHARED_UP),
	HF("nemotron_h", "{B}.mixer.shared_experts.down_proj{K}", MOE_SHARED_DOWN),
	/* LFM2: the norm before the mixer, the final norm, the short
	 * convolution (conv.in_proj, conv.conv, conv.out_proj) */
	HF("lfm2", "embedding_norm{K}", FINAL_NORM),
	HF("lfm2", "{B}.operator_norm{K}", ATTN_NORM),
	HF("lfm2", "{B}.conv.in_proj{K}", SSM_IN),
	HF("lfm2", "{B}.conv.conv{K}", SSM_CONV),
	HF("lfm2", "{B}.conv.out_proj{K}", SSM_OUT),
	/* Encoder heads: BERT's pooler and pre-training heads (cls.*), the
	 * RoBERTa-style lm_head (dense, layer_norm, decoder and its own
	 * bias), classifiers. */
	HF("", "pooler.dense{K}", POOLER),
	HF("", "cls.predictions.transform.dense{K}", MLM_TRANSFORM),
	HF("", "cls.predictions.transform.LayerNorm{K}", MLM_TRANSFORM),
	HF("", "cls.predictions.decoder{K}", LM_HEAD),
	HF("", "cls.predictions.bias", MLM_BIAS),
	HF("", "cls.seq_relationship{K}", NSP_HEAD),
	HF("bert roberta xlm-roberta", "lm_head.dense{K}", MLM_TRANSFORM),
	HF("bert roberta xlm-roberta", "lm_head.layer_norm{K}", MLM_TRANSFORM),
	HF("bert roberta xlm-roberta", "lm_head.decoder{K}", LM_HEAD),
	HF("bert roberta xlm-roberta", "lm_head.bias", MLM_BIAS),
	/* ELECTRA: embeddings projected to the hidden width; the
	 * discriminator's and the generator's heads */
	HF("electra", "embeddings_project{K}", PROJECTOR),
	HF("electra", "discriminator_predictions.dense{K}", CLASSIFIER),
	HF("electra", "discriminator_predictions.dense_prediction{K}", CLASSIFIER),
	HF("electra", "generator_predictions.dense{K}", MLM_TRANSFORM),
	HF("electra", "generator_predictions.LayerNorm{K}", MLM_TRANSFORM),
	HF("electra", "generator_lm_head.bias", MLM_BIAS),
	HF("electra", "generator_lm_head{K}", LM_HEAD),
	HF("distilbert", "vocab_transform{K}", MLM_TRANSFORM),
	HF("distilbert", "vocab_layer_norm{K}", MLM_TRANSFORM),
	HF("distilbert", "vocab_projector.bias", MLM_BIAS),
	HF("distilbert", "vocab_projector{K}", LM_HEAD),
	HF("distilbert", "pre_classifier{K}", CLASSIFIER),
	HF("", "classifier.dense{K}", CLASSIFIER),
	HF("", "classifier.out_proj{K}", CLASSIFIER),
	HF("", "classifier{K}", CLASSIFIER),
	HF("", "qa_outputs{K}", CLASSIFIER),
	HF("", "lm_head.ln{K}", FINAL_NORM),
	HF("", "lm_head{K}", LM_HEAD),
	HF("", "lm_head.linear{K}", LM_HEAD),
	HF("", "embed_out{K}", LM_HEAD),
	HF("", "output{K}", LM_HEAD),
	HF("", "output_layer{K}", LM_HEAD),
	HF("", "ff_out{K}", LM_HEAD),

	/* BERT-style encoder layers (encoder.layer.N), post-norm: the
	 * LayerNorms after attention and after the MLP. */
	HF("", "encoder.layer.{L}.attention.self.query{K}", ATTN_Q),
	HF("", "encoder.layer.{L}.attention.self.key{K}", ATTN_K),
	HF("", "encoder.layer.{L}.attention.self.value{K}", ATTN_V),
	HF("", "encoder.layer.{L}.attention.output.dense{K}", ATTN_O),
	HF("", "encoder.layer.{L}.attention.output.LayerNorm{K}", ATTN_POST_NORM),
	HF("", "encoder.layer.{L}.intermediate.dense{K}", FFN_UP),
	HF("", "encoder.layer.{L}.output.dense{K}", FFN_DOWN),
	HF("", "encoder.layer.{L}.output.LayerNorm{K}", FFN_POST_NORM),
	/* ViT's layers: pre-norm, the attention one level deeper */
	HF("", "encoder.layer.{L}.layernorm_before{K}", ATTN_NORM),
	HF("", "encoder.layer.{L}.attention.attention.query{K}", ATTN_Q),
	HF("", "encoder.layer.{L}.attention.attention.key{K}", ATTN_K),
	HF("", "encoder.layer.{L}.attention.attention.value{K}", ATTN_V),
	HF("", "encoder.layer.{L}.layernorm_after{K}", FFN_NORM),
	/* DeBERTa's projections (and those of the relative positions);
	 * BERT's relative_key distance table */
	HF("", "encoder.layer.{L}.attention.self.query_proj{K}", ATTN_Q),
	HF("", "encoder.layer.{L}.attention.self.key_proj{K}", ATTN_K),
	HF("", "encoder.layer.{L}.attention.self.value_proj{K}", ATTN_V),
	HF("", "encoder.layer.{L}.attention.self.pos_key_proj{K}", ATTN_K),
	HF("", "encoder.layer.{L}.attention.self.pos_query_proj{K}", ATTN_Q),
	HF("", "encoder.layer.{L}.attention.self.distance_embedding{K}", POS_EMBED),
	/* DINOv2's layers: ViT's with norm1 / norm2, an mlp, layer scales */
	HF("", "encoder.layer.{L}.norm1{K}", ATTN_NORM),
	HF("", "encoder.layer.{L}.norm2{K}", FFN_NORM),
	HF("", "encoder.layer.{L}.layer_scale1.lambda1", LAYER_SCALE),
	HF("", "encoder.layer.{L}.layer_scale2.lambda1", LAYER_SCALE),
	HF("", "encoder.layer.{L}.mlp.fc1{K}", FFN_UP),
	HF("", "encoder.layer.{L}.mlp.fc2{K}", FFN_DOWN),
	HF("", "encoder.layer.{L}.*{K}", OTHER),
	/* DistilBERT's (distilbert.transformer.layer.N, both prefixes
	 * stripped) */
	HF("distilbert", "layer.{L}.attention.q_lin{K}", ATTN_Q),
	HF("distilbert", "layer.{L}.attention.k_lin{K}", ATTN_K),
	HF("distilbert", "layer.{L}.attention.v_lin{K}", ATTN_V),
	HF("distilbert", "layer.{L}.attention.out_lin{K}", ATTN_O),
	HF("distilbert", "layer.{L}.sa_layer_norm{K}", ATTN_POST_NORM),
	HF("distilbert", "layer.{L}.ffn.lin1{K}", FFN_UP),
	HF("distilbert", "layer.{L}.ffn.lin2{K}", FFN_DOWN),
	HF("distilbert", "layer.{L}.output_layer_norm{K}", FFN_POST_NORM),
	HF("distilbert", "layer.{L}.*{K}", OTHER),

	/* nomic-bert's post-norm layers: fused qkv, SwiGLU fc11 / fc12 / fc2 */
	HF("nomic_bert", "encoder.layers.{L}.attn.Wqkv{K}", ATTN_QKV),
	HF("nomic_bert", "encoder.layers.{L}.attn.out_proj{K}", ATTN_O),
	HF("nomic_bert", "encoder.layers.{L}.mlp.fc11{K}", FFN_UP),
	HF("nomic_bert", "encoder.layers.{L}.mlp.fc12{K}", FFN_GATE),
	HF("nomic_bert", "encoder.layers.{L}.mlp.fc2{K}", FFN_DOWN),
	HF("nomic_bert", "encoder.layers.{L}.norm1{K}", ATTN_POST_NORM),
	HF("nomic_bert", "encoder.layers.{L}.norm2{K}", FFN_POST_NORM),
	/* ChatGLM: blocks under encoder.layers, fused SwiGLU up-projection. */
	HF("chatglm", "encoder.layers.{L}.input_layernorm{K}", ATTN_NORM),
	HF("chatglm", "encoder.layers.{L}.self_attention.query_key_value{K}", ATTN_QKV),
	HF("chatglm", "encoder.layers.{L}.self_attention.dense{K}", ATTN_O),
	HF("chatglm", "encoder.layers.{L}.post_attention_layernorm{K}", FFN_NORM),
	HF("chatglm", "encoder.layers.{L}.mlp.dense_h_to_4h{K}", FFN_GATE_UP),
	HF("chatglm", "encoder.layers.{L}.mlp.dense_4h_to_h{K}", FFN_DOWN),
	HF("chatglm", "encoder.layers.{L}.*{K}", OTHER),

	/* Block norms.  Architectures with post norms (Gemma 2/3, OLMo 2/3,
	 * EXAONE 4) put a norm after attention under the name llama uses for
	 * the norm before the MLP. */
	HF_IF(WS_ARCH_POST_NORMS, "{B}.post_attention_layernorm{K}", ATTN_POST_NORM),
	HF("", "{B}.input_layernorm{K}", ATTN_NORM),
	HF("", "{B}.post_attention_layernorm{K}", FFN_NORM),
	HF("", "{B}.pre_feedforward_layernorm{K}", FFN_NORM),
	HF("", "{B}.post_feedforward_layernorm{K}", FFN_POST_NORM),
	HF("", "{B}.post_self_attn_layernorm{K}", ATTN_POST_NORM),
	HF("", "{B}.post_mlp_layernorm{K}", FFN_POST_NORM),
	HF("", "{B}.layer_norm1{K}", ATTN_NORM),      /* CLIP, SigLIP */
	HF("", "{B}.layer_norm2{K}", FFN_NORM),
	HF("", "{B}.ln_1{K}", ATTN_NORM),
	HF("", "{B}.ln_2{K}", FFN_NORM),
	HF("", "{B}.ln_attn{K}", ATTN_NORM),
	HF("", "{B}.ln_mlp{K}", FFN_NORM),
	HF("", "{B}.ln{K}", ATTN_NORM),
	HF("", "{B}.norm_1{K}", ATTN_NORM),
	HF("", "{B}.norm_2{K}", FFN_NORM),
	HF("", "{B}.attn_norm{K}", ATTN_NORM),
	HF("", "{B}.ff_norm{K}", FFN_NORM),
	HF("", "{B}.attention_norm{K}", ATTN_NORM),
	HF("", "{B}.attention_layernorm{K}", ATTN_NORM),     /* Apertus */
	HF("", "{B}.feedforward_layernorm{K}", FFN_NORM),
	HF("", "{B}.ffn_norm{K}", FFN_NORM),

	/* State-space mixers: Mamba and Mamba-2 (mixer.* in Mamba's
	 * bodies, mamba.* in Jamba's, Falcon-H1's, Granite-4.0-H's), and
	 * Gated DeltaNet (Qwen3-Next's linear_attn.*). */
	HF("", "{B}.mixer.in_proj{K}", SSM_IN),
	HF("", "{B}.mixer.conv1d{K}", SSM_CONV),
	HF("", "{B}.mixer.x_proj{K}", SSM_X),
	HF("", "{B}.mixer.dt_proj{K}", SSM_DT),
	HF("", "{B}.mixer.dt_bias", SSM_DT),
	HF("", "{B}.mixer.A_log{K}", SSM_A),
	HF("", "{B}.mixer.D{K}", SSM_D),
	HF("", "{B}.mixer.norm{K}", SSM_NORM),
	/* Falcon-H1's mup_vector: its config's multipliers spread over
	 * in_proj's rows, a buffer transformers rebuilds (not persistent);
	 * a re-saved copy that holds it holds no parameter */
	HF("", "{B}.mamba.mup_vector", BUFFER),
	HF("", "{B}.mamba.in_proj{K}", SSM_IN),
	HF("", "{B}.mamba.conv1d{K}", SSM_CONV),
	HF("", "{B}.mamba.x_proj{K}", SSM_X),
	HF("", "{B}.mamba.dt_proj{K}", SSM_DT),
	HF("", "{B}.mamba.dt_bias", SSM_DT),
	HF("", "{B}.mamba.A_log{K}", SSM_A),
	HF("", "{B}.mamba.D{K}", SSM_D),
	HF("", "{B}.mamba.norm{K}", SSM_NORM),
	HF("", "{B}.mamba.dt_layernorm{K}", SSM_NORM),
	HF("", "{B}.mamba.b_layernorm{K}", SSM_NORM),
	HF("", "{B}.mamba.c_layernorm{K}", SSM_NORM),
	HF("", "{B}.mamba.out_proj{K}", SSM_OUT),
	HF("", "{B}.linear_attn.in_proj_qkvz{K}", LINATTN_QKVZ),
	HF("", "{B}.linear_attn.in_proj_ba{K}", LINATTN_BA),
	HF("", "{B}.linear_attn.conv1d{K}", LINATTN_CONV),
	HF("", "{B}.linear_attn.A_log{K}", LINATTN_A),
	HF("", "{B}.linear_attn.dt_bias", LINATTN_DT),
	HF("", "{B}.linear_attn.norm{K}", LINATTN_NORM),
	HF("", "{B}.linear_attn.out_proj{K}", LINATTN_OUT),
	HF("", "{B}.pre_ff_layernorm{K}", FFN_NORM),   /* Jamba */

	/* Attention: llama family. */
	HF("", "{B}.self_attn.q_proj{K}", ATTN_Q),
	HF("", "{B}.self_attn.k_proj{K}", ATTN_K),
	HF("", "{B}.self_attn.v_proj{K}", ATTN_V),
	HF("", "{B}.self_attn.o_proj{K}", ATTN_O),
	HF("", "{B}.self_attn.qkv_proj{K}", ATTN_QKV),
	HF("", "{B}.self_attn.W_pack{K}", ATTN_QKV),
	HF("", "{B}.self_attn.query_key_value{K}", ATTN_QKV),
	HF("", "{B}.self_attn.dense{K}", ATTN_O),
	HF("", "{B}.self_attn.out_proj{K}", ATTN_O),
	HF("", "{B}.self_attn.q_norm{K}", ATTN_Q_NORM),
	HF("", "{B}.self_attn.k_norm{K}", ATTN_K_NORM),
	HF("", "{B}.self_attn.q_layernorm{K}", ATTN_Q_NORM),
	HF("", "{B}.self_attn.k_layernorm{K}", ATTN_K_NORM),
	HF("", "{B}.self_attn.q_layernorm.norms.{N}{K}", ATTN_Q_NORM),
	HF("", "{B}.self_attn.k_layernorm.norms.{N}{K}", ATTN_K_NORM),
	HF("", "{B}.self_attn.sinks{K}", ATTN_SINKS),
	/* DeepSeek MLA. */
	HF("", "{B}.self_attn.q_a_proj{K}", ATTN_Q_A),
	HF("", "{B}.self_attn.q_a_layernorm{K}", ATTN_Q_A_NORM),
	HF("", "{B}.self_attn.q_b_proj{K}", ATTN_Q_B),
	HF("", "{B}.self_attn.kv_a_proj_with_mqa{K}", ATTN_KV_A),
	HF("", "{B}.self_attn.kv_a_layernorm{K}", ATTN_KV_A_NORM),
	HF("", "{B}.self_attn.kv_b_proj{K}", ATTN_KV_B),
	/* DeepSeek-V3.2's lightning indexer (a LayerNorm with a bias). */
	HF("", "{B}.self_attn.indexer.wq_b{K}", ATTN_IDX_Q_B),
	HF("", "{B}.self_attn.indexer.wk{K}", ATTN_IDX_K),
	HF("", "{B}.self_attn.indexer.k_norm{K}", ATTN_IDX_K_NORM),
	HF("", "{B}.self_attn.indexer.weights_proj{K}", ATTN_IDX_PROJ),
	/* GPT-2 / StarCoder (Conv1D), GPT-J, MPT, phi-1.5. */
	HF("", "{B}.attn.c_attn{K}", ATTN_QKV),
	HF("", "{B}.attn.c_proj{K}", ATTN_O),
	HF("", "{B}.attn.q_proj{K}", ATTN_Q),
	HF("", "{B}.attn.k_proj{K}", ATTN_K),
	HF("", "{B}.attn.v_proj{K}", ATTN_V),
	HF("", "{B}.attn.out_proj{K}", ATTN_O),
	HF("", "{B}.attn.Wqkv{K}", ATTN_QKV),
	HF("", "{B}.mixer.Wqkv{K}", ATTN_QKV),
	HF("", "{B}.mixer.out_proj{K}", ATTN_O),
	/* GPT-NeoX, Falcon, BLOOM. */
	HF("", "{B}.attention.query_key_value{K}", ATTN_QKV),
	HF("", "{B}.attention.dense{K}", ATTN_O),
	HF("", "{B}.self_attention.query_key_value{K}", ATTN_QKV),
	HF("", "{B}.self_attention.dense{K}", ATTN_O),
	/* Meta's original checkpoints, InternLM2. */
	HF("", "{B}.attention.wq{K}", ATTN_Q),
	HF("", "{B}.attention.wk{K}", ATTN_K),
	HF("", "{B}.attention.wv{K}", ATTN_V),
	HF("", "{B}.attention.wo{K}", ATTN_O),
	HF("", "{B}.attention.wqkv{K}", ATTN_QKV),
	/* OLMo (original hf_olmo layout). */
	HF("", "{B}.att_proj{K}", ATTN_QKV),
	HF("", "{B}.attn_out{K}", ATTN_O),

	/* Dense MLP. */
	HF("", "{B}.mlp.gate_proj{K}", FFN_GATE),
	HF("", "{B}.mlp.up_proj{K}", FFN_UP),
	HF("", "{B}.mlp.down_proj{K}", FFN_DOWN),
	HF("", "{B}.mlp.gate_up_proj{K}", FFN_GATE_UP),
	HF("", "{B}.mlp.fc1{K}", FFN_UP),
	HF("", "{B}.mlp.fc2{K}", FFN_DOWN),
	HF("", "{B}.mlp.c_fc{K}", FFN_UP),
	HF("", "{B}.mlp.c_proj{K}", FFN_DOWN),
	HF("", "{B}.mlp.fc_in{K}", FFN_UP),
	HF("", "{B}.mlp.fc_out{K}", FFN_DOWN),
	HF("", "{B}.mlp.dense_h_to_4h{K}", FFN_UP),
	HF("", "{B}.mlp.dense_4h_to_h{K}", FFN_DOWN),
	HF("", "{B}.feed_forward.w1{K}", FFN_GATE),
	HF("", "{B}.feed_forward.w3{K}", FFN_UP),
	HF("", "{B}.feed_forward.w2{K}", FFN_DOWN),
	HF("", "{B}.feed_forward.gate_proj{K}", FFN_GATE),
	HF("", "{B}.feed_forward.up_proj{K}", FFN_UP),
	HF("", "{B}.feed_forward.down_proj{K}", FFN_DOWN),
	HF("", "{B}.ffn.up_proj{K}", FFN_UP),
	HF("", "{B}.ffn.down_proj{K}", FFN_DOWN),
	HF("", "{B}.ff_proj{K}", FFN_GATE_UP),
	HF("", "{B}.ff_out{K}", FFN_DOWN),
	/* xIELU (Apertus): two learnable scalars beside two 0-d buffers. */
	HF("", "{B}.mlp.act_fn.alpha_p", FFN_ACT),
	HF("", "{B}.mlp.act_fn.alpha_n", FFN_ACT),
	HF("", "{B}.mlp.act_fn.beta", BUFFER),
	HF("", "{B}.mlp.act_fn.eps", BUFFER),

	/* MoE: Mixtral, PhiMoE, GraniteMoE. */
	HF("", "{B}.block_sparse_moe.gate{K}", MOE_ROUTER),
	HF("", "{B}.block_sparse_moe.experts.{E}.w1{K}", MOE_GATE),
	HF("", "{B}.block_sparse_moe.experts.{E}.w3{K}", MOE_UP),
	HF("", "{B}.block_sparse_moe.experts.{E}.w2{K}", MOE_DOWN),
	HF("", "{B}.block_sparse_moe.router.layer{K}", MOE_ROUTER),
	/* Granite's shared MLP: the block's dense MLP, gate and up fused */
	HF("", "{B}.shared_mlp.input_linear{K}", FFN_GATE_UP),
	HF("", "{B}.shared_mlp.output_linear{K}", FFN_DOWN),
	HF("", "{B}.block_sparse_moe.input_linear{K}", MOE_GATE_UP),
	HF("", "{B}.block_sparse_moe.output_linear{K}", MOE_DOWN),
	/* mlx-lm's stacked experts (SwitchGLU's switch_mlp, [E, out, in]) */
	HF("", "{B}.*.switch_mlp.gate_proj{K}", MOE_GATE),
	HF("", "{B}.*.switch_mlp.up_proj{K}", MOE_UP),
	HF("", "{B}.*.switch_mlp.down_proj{K}", MOE_DOWN),
	/* MoE: Qwen2/3-MoE, OLMoE, DeepSeek-V2/V3, gpt-oss. */
	HF("", "{B}.mlp.gate.e_score_correction_bias", MOE_ROUTER_BIAS),
	HF("", "{B}.mlp.gate{K}", MOE_ROUTER),
	HF("", "{B}.mlp.router{K}", MOE_ROUTER),
	HF("", "{B}.mlp.experts.{E}.gate_proj{K}", MOE_GATE),
	HF("", "{B}.mlp.experts.{E}.up_proj{K}", MOE_UP),
	HF("", "{B}.mlp.experts.{E}.down_proj{K}", MOE_DOWN),
	HF("", "{B}.mlp.experts.{E}.w1{K}", MOE_GATE),
	HF("", "{B}.mlp.experts.{E}.w3{K}", MOE_UP),
	HF("", "{B}.mlp.experts.{E}.w2{K}", MOE_DOWN),
	HF("", "{B}.mlp.experts.gate_up_proj{K}", MOE_GATE_UP),
	HF("", "{B}.mlp.experts.gate_proj{K}", MOE_GATE),
	HF("", "{B}.mlp.experts.up_proj{K}", MOE_UP),
	HF("", "{B}.mlp.experts.down_proj{K}", MOE_DOWN),
	HF("", "{B}.mlp.shared_expert.gate_proj{K}", MOE_SHARED_GATE),
	HF("", "{B}.mlp.shared_expert.up_proj{K}", MOE_SHARED_UP),
	HF("", "{B}.mlp.shared_expert.down_proj{K}", MOE_SHARED_DOWN),
	HF("", "{B}.mlp.shared_experts.gate_proj{K}", MOE_SHARED_GATE),
	HF("", "{B}.mlp.shared_experts.up_proj{K}", MOE_SHARED_UP),
	HF("", "{B}.mlp.shared_experts.down_proj{K}", MOE_SHARED_DOWN),
	HF("", "{B}.mlp.shared_expert_gate{K}", MOE_SHARED_ROUTER),
	/* MoE: Llama 4. */
	HF("", "{B}.feed_forward.router{K}", MOE_ROUTER),
	HF("", "{B}.feed_forward.experts.gate_up_proj{K}", MOE_GATE_UP),
	HF("", "{B}.feed_forward.experts.down_proj{K}", MOE_DOWN),
	HF("", "{B}.feed_forward.experts.{E}.gate_proj{K}", MOE_GATE),
	HF("", "{B}.feed_forward.experts.{E}.up_proj{K}", MOE_UP),
	HF("", "{B}.feed_forward.experts.{E}.down_proj{K}", MOE_DOWN),
	HF("", "{B}.feed_forward.shared_expert.gate_proj{K}", MOE_SHARED_GATE),
	HF("", "{B}.feed_forward.shared_expert.up_proj{K}", MOE_SHARED_UP),
	HF("", "{B}.feed_forward.shared_expert.down_proj{K}", MOE_SHARED_DOWN),

	/* ModernBERT: Wqkv as above, Wo, a fused gated MLP (Wi) */
	HF("modernbert", "{B}.attn.Wo{K}", ATTN_O),
	HF("modernbert", "{B}.mlp_norm{K}", FFN_NORM),
	HF("modernbert", "{B}.mlp.Wi{K}", FFN_GATE_UP),
	HF("modernbert", "{B}.mlp.Wo{K}", FFN_DOWN),

	/* Unknown tensors keep their block index; a quantization side tail
	 * still makes them quant_aux. */
	HF("", "{B}.*{K}", OTHER),
	HF("", "*{K}", OTHER),

	/* ---- GGUF names (llama.cpp gguf-py TENSOR_NAMES) ---- */
	/* T5 as llama.cpp's converter writes it (t5: enc. and dec. stacks,
	 * read after their prefix; t5encoder keeps enc.): attn_o, the
	 * relative bias of block 0 (attn_rel_b; the decoder's leftover
	 * cross_attn_rel_b), the cross-attention */
	GG("t5*", "*blk.{N}.attn_rel_b{K}", REL_POS_BIAS),
	GG("t5*", "*blk.{L}.cross_attn_rel_b{K}", REL_POS_BIAS),
	GG("t5*", "*blk.{L}.cross_attn_q{K}", XATTN_Q),
	GG("t5*", "*blk.{L}.cross_attn_k{K}", XATTN_K),
	GG("t5*", "*blk.{L}.cross_attn_v{K}", XATTN_V),
	GG("t5*", "*blk.{L}.cross_attn_o{K}", XATTN_O),
	GG("t5*", "*blk.{L}.cross_attn_norm{K}", XATTN_NORM),
	GG("t5*", "*blk.{L}.attn_o{K}", ATTN_O),
	GG("t5*", "*blk.{L}.attn_norm{K}", ATTN_NORM),
	GG("t5*", "*blk.{L}.attn_q{K}", ATTN_Q),
	GG("t5*", "*blk.{L}.attn_k{K}", ATTN_K),
	GG("t5*", "*blk.{L}.attn_v{K}", ATTN_V),
	GG("t5*", "*blk.{L}.ffn_norm{K}", FFN_NORM),
	GG("t5*", "*blk.{L}.ffn_gate{K}", FFN_GATE),
	GG("t5*", "*blk.{L}.ffn_up{K}", FFN_UP),
	GG("t5*", "*blk.{L}.ffn_down{K}", FFN_DOWN),
	GG("t5*", "*output_norm{K}", FINAL_NORM),
	GG("", "token_embd{K}", EMBED),
	/* LFM2's final norm (embedding_norm) under the embedding norm's name */
	GG("lfm2", "token_embd_norm{K}", FINAL_NORM),
	GG("", "token_embd_norm{K}", EMBED_NORM),
	GG("", "position_embd{K}", POS_EMBED),
	/* encoders (bert, nomic-bert): token types, a reranker's classifier */
	GG("", "token_types{K}", TYPE_EMBED),
	GG("", "cls.output{K}", CLASSIFIER),
	GG("", "cls{K}", CLASSIFIER),
	GG("", "output_norm{K}", FINAL_NORM),
	GG("", "output{K}", LM_HEAD),
	GG("", "rope_freqs{K}", BUFFER),
	GG("", "rope_factors_long{K}", BUFFER),
	GG("", "rope_factors_short{K}", BUFFER),
	GG("", "blk.{L}.rope_freqs{K}", BUFFER),
	GG("", "blk.{L}.attn_rot_embd{K}", BUFFER),
	GG("", "blk.{L}.*.lora_a", LORA_A),
	GG("", "blk.{L}.*.lora_b", LORA_B),
	GG("", "*.lora_a", LORA_A),
	GG("", "*.lora_b", LORA_B),
	/* Qwen3-Next's Gated DeltaNet under llama.cpp's ssm_* names, its q,
	 * k, v and z as attn_qkv and attn_gate (its full attention has
	 * attn_q / attn_k / attn_v) */
	GG("qwen3next", "blk.{L}.attn_qkv{K}", LINATTN_QKVZ),
	GG("qwen3next", "blk.{L}.attn_gate{K}", LINATTN_QKVZ),
	GG("qwen3next", "blk.{L}.ssm_ba{K}", LINATTN_BA),
	GG("qwen3next", "blk.{L}.ssm_conv1d{K}", LINATTN_CONV),
	GG("qwen3next", "blk.{L}.ssm_dt{K}", LINATTN_DT),
	GG("qwen3next", "blk.{L}.ssm_a{K}", LINATTN_A),
	GG("qwen3next", "blk.{L}.ssm_norm{K}", LINATTN_NORM),
	GG("qwen3next", "blk.{L}.ssm_out{K}", LINATTN_OUT),
	GG("", "blk.{L}.attn_norm{K}", ATTN_NORM),
	/* Falcon-40B: ln_attn is attn_norm_2 and ln_mlp attn_norm; both are
	 * [d] + bias, so mapping attn_norm_2 to ffn_norm keeps role totals. */
	GG("", "blk.{L}.attn_norm_2{K}", FFN_NORM),
	GG("", "blk.{L}.attn_q{K}", ATTN_Q),
	GG("", "blk.{L}.attn_k{K}", ATTN_K),
	GG("", "blk.{L}.attn_v{K}", ATTN_V),
	GG("", "blk.{L}.attn_qkv{K}", ATTN_QKV),
	GG("", "blk.{L}.attn_output{K}", ATTN_O),
	GG("", "blk.{L}.attn_q_norm{K}", ATTN_Q_NORM),
	GG("", "blk.{L}.attn_k_norm{K}", ATTN_K_NORM),
	GG("", "blk.{L}.attn_sinks{K}", ATTN_SINKS),
	GG("", "blk.{L}.attn_q_a{K}", ATTN_Q_A),
	GG("", "blk.{L}.attn_q_a_norm{K}", ATTN_Q_A_NORM),
	GG("", "blk.{L}.attn_q_b{K}", ATTN_Q_B),
	GG("", "blk.{L}.attn_kv_a_mqa{K}", ATTN_KV_A),
	GG("", "blk.{L}.attn_kv_a_norm{K}", ATTN_KV_A_NORM),
	GG("", "blk.{L}.attn_kv_b{K}", ATTN_KV_B),
	GG("", "blk.{L}.attn_k_b{K}", ATTN_KV_B),
	GG("", "blk.{L}.attn_v_b{K}", ATTN_KV_B),
	GG("", "blk.{L}.indexer.attn_q_b{K}", ATTN_IDX_Q_B),
	GG("", "blk.{L}.indexer.attn_k{K}", ATTN_IDX_K),
	GG("", "blk.{L}.indexer.k_norm{K}", ATTN_IDX_K_NORM),
	GG("", "blk.{L}.indexer.proj{K}", ATTN_IDX_PROJ),
	GG("", "blk.{L}.ffn_norm{K}", FFN_NORM),
	/* gpt-oss's converter writes its pre-MLP norm under this name */
	GG("gpt-oss", "blk.{L}.post_attention_norm{K}", FFN_NORM),
	GG("", "blk.{L}.post_attention_norm{K}", ATTN_POST_NORM),
	GG("", "blk.{L}.post_ffw_norm{K}", FFN_POST_NORM),
	GG("", "blk.{L}.attn_output_norm{K}", ATTN_POST_NORM),
	GG("", "blk.{L}.layer_output_norm{K}", FFN_POST_NORM),
	/* Fused gate+up stored as ffn_up ([d, 2F]). */
	GG("phi3 chatglm glm4", "blk.{L}.ffn_up{K}", FFN_GATE_UP),
	GG("jina-bert-v2", "blk.{L}.ffn_up{K}", FFN_GATE_UP),
	GG("", "blk.{L}.ffn_gate{K}", FFN_GATE),
	GG("", "blk.{L}.ffn_up{K}", FFN_UP),
	GG("", "blk.{L}.ffn_down{K}", FFN_DOWN),
	/* Early Mixtral GGUFs: one 2-D tensor per expert. */
	GG("", "blk.{L}.ffn_gate.{E}{K}", MOE_GATE),
	GG("", "blk.{L}.ffn_up.{E}{K}", MOE_UP),
	GG("", "blk.{L}.ffn_down.{E}{K}", MOE_DOWN),
	GG("", "blk.{L}.ffn_gate_inp{K}", MOE_ROUTER),
	GG("", "blk.{L}.exp_probs_b{K}", MOE_ROUTER_BIAS),
	GG("", "blk.{L}.ffn_gate_exps{K}", MOE_GATE),
	GG("", "blk.{L}.ffn_up_exps{K}", MOE_UP),
	GG("", "blk.{L}.ffn_down_exps{K}", MOE_DOWN),
	GG("", "blk.{L}.ffn_gate_up_exps{K}", MOE_GATE_UP),
	GG("", "blk.{L}.ffn_gate_shexp{K}", MOE_SHARED_GATE),
	GG("", "blk.{L}.ffn_up_shexp{K}", MOE_SHARED_UP),
	GG("", "blk.{L}.ffn_down_shexp{K}", MOE_SHARED_DOWN),
	GG("", "blk.{L}.ffn_gate_inp_shexp{K}", MOE_SHARED_ROUTER),
	/* State-space and short-convolution mixers (llama.cpp's ssm_*,
	 * shortconv.*) */
	GG("", "blk.{L}.ssm_in{K}", SSM_IN),
	GG("", "blk.{L}.ssm_conv1d{K}", SSM_CONV),
	GG("", "blk.{L}.ssm_x{K}", SSM_X),
	GG("", "blk.{L}.ssm_dt{K}", SSM_DT),
	GG("", "blk.{L}.ssm_a{K}", SSM_A),
	GG("", "blk.{L}.ssm_d{K}", SSM_D),
	GG("", "blk.{L}.ssm_norm{K}", SSM_NORM),
	GG("", "blk.{L}.ssm_dt_norm{K}", SSM_NORM),
	GG("", "blk.{L}.ssm_b_norm{K}", SSM_NORM),
	GG("", "blk.{L}.ssm_c_norm{K}", SSM_NORM),
	GG("", "blk.{L}.ssm_out{K}", SSM_OUT),
	GG("", "blk.{L}.shortconv.in_proj{K}", SSM_IN),
	GG("", "blk.{L}.shortconv.conv{K}", SSM_CONV),
	GG("", "blk.{L}.shortconv.out_proj{K}", SSM_OUT),
	/* llama.cpp's vision files (mmproj): the tower under v. (its
	 * projector's mm.* tensors are the projector component's) */
	GG("", "v.patch_embd{K}", PATCH_EMBED),
	GG("", "v.class_embd", CLS_TOKEN),
	GG("", "v.position_embd{K}", POS_EMBED),
	GG("", "v.pre_ln{K}", EMBED_NORM),
	GG("", "v.post_ln{K}", FINAL_NORM),
	GG("", "v.blk.{L}.ln1{K}", ATTN_NORM),
	GG("", "v.blk.{L}.ln2{K}", FFN_NORM),
	GG("", "v.blk.{L}.attn_q{K}", ATTN_Q),
	GG("", "v.blk.{L}.attn_k{K}", ATTN_K),
	GG("", "v.blk.{L}.attn_v{K}", ATTN_V),
	GG("", "v.blk.{L}.attn_out{K}", ATTN_O),
	GG("", "v.blk.{L}.ffn_up{K}", FFN_UP),
	GG("", "v.blk.{L}.ffn_gate{K}", FFN_GATE),
	GG("", "v.blk.{L}.ffn_down{K}", FFN_DOWN),
	GG("", "v.blk.{L}.attn_q_norm{K}", ATTN_Q_NORM),
	GG("", "v.blk.{L}.attn_k_norm{K}", ATTN_K_NORM),
	GG("", "v.blk.{L}.ls1{K}", LAYER_SCALE),
	GG("", "v.blk.{L}.ls2{K}", LAYER_SCALE),
	GG("", "v.blk.{L}.*{K}", OTHER),
	/* an audio file's Whisper-style tower (a.): the two convolutions,
	 * the stored positions, pre-norm blocks, a final norm */
	GG("", "a.conv1d.*{K}", CONV),
	GG("", "a.position_embd{K}", POS_EMBED),
	GG("", "a.post_ln{K}", FINAL_NORM),
	GG("", "a.blk.{L}.ln1{K}", ATTN_NORM),
	GG("", "a.blk.{L}.ln2{K}", FFN_NORM),
	GG("", "a.blk.{L}.attn_q{K}", ATTN_Q),
	GG("", "a.blk.{L}.attn_k{K}", ATTN_K),
	GG("", "a.blk.{L}.attn_v{K}", ATTN_V),
	GG("", "a.blk.{L}.attn_out{K}", ATTN_O),
	GG("", "a.blk.{L}.ffn_up{K}", FFN_UP),
	GG("", "a.blk.{L}.ffn_down{K}", FFN_DOWN),
	GG("", "a.blk.{L}.*{K}", OTHER),
	GG("", "blk.{L}.*{K}", OTHER),
	GG("", "*{K}", OTHER),
};

#define N_LINES (sizeof lines / sizeof lines[0])

size_t
ws_role_table_size(void)
{
	return N_LINES;
}

/* ==== tails: what {K} accepts ==== */

enum tail_class { T_WEIGHT, T_BIAS, T_AUX };

typedef struct tail {
	const char *s;
	unsigned char len;
	unsigned char cls;
	bool prefix;          /* the rest of the name only starts with s */
} tail;

#define TL(str, cls) { str, sizeof str - 1, cls, false }
#define TLP(str, cls) { str, sizeof str - 1, cls, true }

/* SPEC quant_aux list and research/quantized.md: packed weights keep their
 * module's role; scales, zero points, group indices, absmax, code books
 * and serialized quant states are side tensors. */
static const tail tails[] = {
	TL("", T_WEIGHT),                 /* gpt-oss sinks, fused experts */
	TL(".weight", T_WEIGHT),
	TL(".bias", T_BIAS),
	TL(".gamma", T_WEIGHT),           /* TF-era LayerNorm names (BERT) */
	TL(".beta", T_BIAS),
	TL(".qweight", T_WEIGHT),         /* GPTQ, AWQ */
	TL(".weight_packed", T_WEIGHT),   /* compressed-tensors */
	TL(".B", T_WEIGHT),               /* GPTQ Marlin */
	TL("_blocks", T_WEIGHT),          /* MXFP4 */
	TL("_bias", T_BIAS),              /* gpt-oss fused expert biases */
	TL(".scales", T_AUX),             /* GPTQ, AWQ, MLX */
	TL(".biases", T_AUX),             /* MLX affine (not .bias) */
	TL(".qzeros", T_AUX),
	TL(".zeros", T_AUX),
	TL(".g_idx", T_AUX),
	TL(".s", T_AUX),                  /* GPTQ Marlin scales */
	TL(".weight_scale", T_AUX),
	TL(".weight_scale_inv", T_AUX),
	TL(".weight_scale_2", T_AUX),
	TL(".weight_shape", T_AUX),
	TL(".weight_zero_point", T_AUX),
	TL(".weight_g_idx", T_AUX),
	TL(".weight_global_scale", T_AUX),
	TL(".input_scale", T_AUX),
	TL(".input_global_scale", T_AUX),
	TL(".input_zero_point", T_AUX),
	TL(".output_scale", T_AUX),
	TL(".k_scale", T_AUX),
	TL(".v_scale", T_AUX),
	TL(".SCB", T_AUX),                /* bitsandbytes int8 */
	TL(".weight_format", T_AUX),
	TL(".weight.absmax", T_AUX),      /* bitsandbytes 4-bit */
	TL(".weight.quant_map", T_AUX),
	TL(".weight.nested_absmax", T_AUX),
	TL(".weight.nested_quant_map", T_AUX),
	TLP(".weight.quant_state.", T_AUX),
	TL("_scales", T_AUX),             /* MXFP4 */
	TL("_scale", T_AUX),              /* fbgemm FP8 fused experts */
	TL("_scale_inv", T_AUX),
	TL("_scales_inv", T_AUX),
};

#define N_TAILS (sizeof tails / sizeof tails[0])

static int
tail_lookup(const char *s, size_t n)
{
	for (size_t i = 0; i < N_TAILS; i++) {
		const tail *t = &tails[i];
		if (t->prefix ? n < t->len : n != t->len)
			continue;
		if (memcmp(s, t->s, t->len) == 0)
			return t->cls;
	}
	return -1;
}

/* ==== the matcher ==== */

/* Block and expert indices up to 999,999: a longer digit run is not an
 * index, so a hostile name cannot size the per-layer arrays. */
#define MAX_DIGITS 6

/* Length of a digit-only segment starting at s[i] (1..MAX_DIGITS), or 0. */
static size_t
digit_seg(const char *s, size_t n, size_t i)
{
	if (i > 0 && s[i - 1] != '.')
		return 0;
	size_t d = 0;
	while (i + d < n && s[i + d] >= '0' && s[i + d] <= '9') {
		if (++d > MAX_DIGITS)
			return 0;
	}
	if (d == 0 || (i + d < n && s[i + d] != '.'))
		return 0;
	return d;
}

/* Block containers {B} accepts, each followed by the layer segment. */
static const struct { const char *s; size_t len; } blocks[] = {
	{ "layers.", 7 }, { "h.", 2 }, { "blocks.", 7 },
	{ "encoder.layers.", 15 },   /* CLIP / SigLIP towers */
};

/* Length of a "{B}" block ("layers.12") starting at s[i], or 0; *digits
 * gets the offset of its layer digits. */
static size_t
block_len(const char *s, size_t n, size_t i, size_t *digits)
{
	if (i > 0 && s[i - 1] != '.')
		return 0;
	for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
		size_t k = blocks[b].len;
		if (n - i > k && memcmp(s + i, blocks[b].s, k) == 0) {
			size_t d = digit_seg(s, n, i + k);
			*digits = i + k;
			return d ? k + d : 0;
		}
	}
	return 0;
}

typedef struct caps {
	long layer_at;   /* byte offset of the layer digits, or -1 */
	long expert_at;
	int tail;        /* enum tail_class, or -1 when no {K} */
} caps;

/* Failure memo for the stars of one pattern, by their ordinal.  Whether
 * the rest of a pattern matches depends only on (pattern position,
 * string position), never on the captures; and a star tried from i that
 * failed has tried every candidate j >= i, so it fails from any later i
 * too.  Remembering the smallest failed start makes each star's work
 * linear in the name: without it, crafted names (".experts.1" x 98 then
 * ".lora_X") made two-star lines quadratic to cubic. */
#define MEMO_STARS 4
typedef struct memo {
	size_t fail_from[MEMO_STARS]; /* 0 = none yet, else start + 1 */
} memo;

static bool
match_at(const char *p, const char *s, size_t n, size_t i, caps *c, memo *mo,
	 unsigned star)
{
	for (;;) {
		char pc = *p;
		if (pc == '\0')
			return i == n;
		if (pc == '*') {
			/* Shortest first, so `*{K}` takes the longest tail.  A
			 * literal after the star must start the rest; a tail
			 * starts with '.' or '_' or is empty. */
			char next = p[1];
			bool tail_next = next == '{' && p[2] == 'K';
			size_t end = n; /* candidates j in [i, end] */
			size_t *ff = star < MEMO_STARS ? &mo->fail_from[star] : NULL;
			if (ff && *ff) {
				if (i + 1 >= *ff)
					return false;
				end = *ff - 2; /* j >= *ff - 1 failed already */
			}
			bool lit_next = next != '{' && next != '*';
			for (size_t j = i; j <= end; j++) {
				if (lit_next && j < n && s[j] != next) {
					/* jump to the literal's next occurrence */
					const char *q = memchr(s + j, next, n - j);
					j = q ? (size_t)(q - s) : n;
					if (j > end)
						break;
				}
				if (j < n && tail_next && s[j] != '.' && s[j] != '_')
					continue;
				caps c2 = *c;
				if (match_at(p + 1, s, n, j, &c2, mo, star + 1)) {
					*c = c2;
					return true;
				}
			}
			if (ff)
				*ff = i + 1;
			return false;
		}
		if (pc == '{') {
			char tok = p[1];
			p += 3;
			if (tok == 'K') {
				int cls = tail_lookup(s + i, n - i);
				if (cls < 0)
					return false;
				c->tail = cls;
				return *p == '\0';
			}
			if (tok == 'B') {
				size_t at, bl = block_len(s, n, i, &at);
				if (bl == 0)
					return false;
				c->layer_at = (long)at;
				i += bl;
				continue;
			}
			size_t d = digit_seg(s, n, i);
			if (d == 0)
				return false;
			if (tok == 'L')
				c->layer_at = (long)i;
			else if (tok == 'E')
				c->expert_at = (long)i;
			i += d;
			continue;
		}
		if (i >= n || s[i] != pc)
			return false;
		i++;
		p++;
	}
}

/* ==== architectures ==== */

static char
arch_fold(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* arch -> lower case without '_' and '-' ("deepseek_v3" -> "deepseekv3"). */
static void
arch_normalize(const char *arch, size_t max, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; arch && i < max && arch[i] && o + 1 < cap; i++) {
		if (arch[i] == '_' || arch[i] == '-')
			continue;
		out[o++] = arch_fold(arch[i]);
	}
	out[o] = '\0';
}

static bool
arch_token_match(const char *tok, size_t len, const char *arch)
{
	size_t a = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = tok[i];
		if (ch == '_' || ch == '-')
			continue;
		if (ch == '*' && i + 1 == len)
			return true;
		if (arch[a] != arch_fold(ch))
			return false;
		a++;
	}
	return arch[a] == '\0';
}

static bool
arch_ok(const role_line *l, const char *arch)
{
	const char *list = l->arch;
	if (l->needs >= 0) {
		const struct ws_cat_entry *e = arch[0] ? ws_cat_by_folded(arch) : NULL;
		return e && (ws_sw_has(&e->flags, l->needs) || ws_sw_has(&e->defaults, l->needs));
	}
	if (!list[0])
		return true;
	if (!arch[0])
		return false;
	for (const char *p = list; *p;) {
		while (*p == ' ')
			p++;
		const char *start = p;
		while (*p && *p != ' ')
			p++;
		if (p > start && arch_token_match(start, (size_t)(p - start), arch))
			return true;
	}
	return false;
}

/* ==== classification ==== */

/* Wrapper prefixes of Hugging Face names (CausalLM wrappers, multimodal
 * language models, PEFT). */
static const struct { const char *s; size_t len; } wrappers[] = {
	{ "model.", 6 }, { "language_model.", 15 }, { "transformer.", 12 },
	{ "base_model.", 11 }, { "gpt_neox.", 9 },
	/* encoders' bodies under a head class */
	{ "bert.", 5 }, { "roberta.", 8 }, { "distilbert.", 11 }, { "electra.", 8 },
	{ "vit.", 4 },
	/* a dual encoder's towers */
	{ "text_model.", 11 }, { "vision_model.", 13 },
	{ "backbone.", 9 },   /* Mamba, Mamba-2, Nemotron-H */
	{ "deberta.", 8 }, { "dinov2.", 7 }, { "dinov2_with_registers.", 22 },
};

static size_t
strip_wrappers(const char *s, size_t n)
{
	size_t i = 0;
	for (bool again = true; again;) {
		again = false;
		for (size_t w = 0; w < sizeof wrappers / sizeof wrappers[0]; w++) {
			size_t l = wrappers[w].len;
			if (n - i > l && memcmp(s + i, wrappers[w].s, l) == 0) {
				i += l;
				again = true;
				break;
			}
		}
	}
	return i;
}

static bool
ends_with_bias(const char *s, size_t n)
{
	return n >= 4 && memcmp(s + n - 4, "bias", 4) == 0;
}

typedef struct result {
	ws_role role;
	ws_kind kind;
	long layer_at;   /* byte offsets into the full name, or -1 */
	long expert_at;
} result;

static void
classify_raw(unsigned fmtbit, const char *arch, const char *name, size_t len,
	     result *r)
{
	r->role = WS_ROLE_OTHER;
	r->kind = ends_with_bias(name, len) ? WS_KIND_BIAS : WS_KIND_WEIGHT;
	r->layer_at = r->expert_at = -1;
	if (len > WS_ROLE_MAX_NAME)
		return;
	size_t off = fmtbit == F_HF ? strip_wrappers(name, len) : 0;
	const char *s = name + off;
	size_t n = len - off;

	/* Cheap rejections before the matcher: the first byte of a literal
	 * start, and for block lines the block and the byte after it. */
	size_t at, bl = block_len(s, n, 0, &at);
	for (size_t li = 0; li < N_LINES; li++) {
		const role_line *l = &lines[li];
		if (!(l->formats & fmtbit))
			continue;
		const char *p = l->pat;
		if (p[0] == '{' && p[1] == 'B') {
			if (bl == 0)
				continue;
			if (p[3] == '.' && p[4] != '*' && p[4] != '{' &&
			    (bl + 1 >= n || s[bl + 1] != p[4]))
				continue;
		} else if (p[0] != '{' && p[0] != '*' && (n == 0 || s[0] != p[0])) {
			continue;
		}
		caps c = { -1, -1, -1 };
		memo mo = {{0}};
		if (!match_at(p, s, n, 0, &c, &mo, 0) || !arch_ok(l, arch))
			continue;
		r->role = c.tail == T_AUX ? WS_ROLE_QUANT_AUX : l->role;
		if (c.tail >= 0)
			r->kind = c.tail == T_BIAS ? WS_KIND_BIAS : WS_KIND_WEIGHT;
		r->layer_at = c.layer_at < 0 ? -1 : c.layer_at + (long)off;
		r->expert_at = c.expert_at < 0 ? -1 : c.expert_at + (long)off;
		return;
	}
}

static int32_t
digits_at(const char *s, size_t n, long at)
{
	int32_t v = 0;
	if (at < 0)
		return -1;
	for (size_t i = (size_t)at; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');   /* <= MAX_DIGITS digits: no overflow */
	return v;
}

static unsigned
format_bit(ws_format fmt)
{
	return fmt == WS_FORMAT_GGUF ? F_GG : F_HF;
}

int
ws_role_classify(ws_format fmt, const char *arch, const char *name,
		 size_t len, ws_role *role, int32_t *layer, int32_t *expert,
		 ws_kind *kind)
{
	char an[64];
	result r;

	arch_normalize(arch, SIZE_MAX, an, sizeof an);
	if (!name)
		len = 0;
	classify_raw(format_bit(fmt), an, name ? name : "", len, &r);
	if (role)
		*role = r.role;
	if (layer)
		*layer = digits_at(name, len, r.layer_at);
	if (expert)
		*expert = digits_at(name, len, r.expert_at);
	if (kind)
		*kind = r.kind;
	return r.role != WS_ROLE_OTHER;
}

/* ==== the skeleton cache used by ws_roles_assign ==== */

#define MAX_SEGS 16   /* digit segments remembered per name */
#define MAX_MARKS 32  /* segment starts remembered per name */

/* Where a segment of the last name built starts, in the name and in its
 * key, and how many digit segments lie before it. */
typedef struct mark {
	uint32_t at, klen, nseg;
} mark;

typedef struct skel {
	unsigned char *key;
	size_t len, cap;
	uint32_t nseg;
	uint32_t seg_at[MAX_SEGS];   /* byte offsets of digit segments */
	int32_t seg_val[MAX_SEGS];   /* and their numbers (kept with the
				      * segments a build reuses) */
	const char *prev;            /* the name key was built from, or NULL */
	size_t prev_len;
	uint32_t nmark;
	mark marks[MAX_MARKS];
} skel;

/* Word-at-a-time byte tests (little or big endian alike: only whole-word
 * masks are combined, positions come from zero_bytes on the loaded
 * order).  zero_bytes: 0x80 in each byte of x that is zero, exactly (no
 * false positives from borrows); digit_bytes: 0x80 in each byte that is
 * an ASCII digit. */
#define ONES ((uint64_t)0x0101010101010101u)
#define HIGHS (ONES * 0x80)
#define LOWS (ONES * 0x7F)

static uint64_t
zero_bytes(uint64_t x)
{
	return ~(((x & LOWS) + LOWS) | x | LOWS);
}

static uint64_t
digit_bytes(uint64_t x)
{
	uint64_t lo = (x & LOWS) | HIGHS;
	uint64_t ge0 = (lo - ONES * '0') & HIGHS;     /* low 7 bits >= '0' */
	uint64_t ge10 = (lo - ONES * ('9' + 1)) & HIGHS;
	return ge0 & ~ge10 & ~x & HIGHS;
}

/* The index in memory order of the first byte flagged in a nonzero
 * mask, and a mask of the bytes before index k (0..8). */
static size_t
first_byte(uint64_t mask)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (size_t)__builtin_clzll(mask) / 8;
#else
	return (size_t)__builtin_ctzll(mask) / 8;
#endif
}

static uint64_t
bytes_before(size_t k)
{
	if (k == 0)
		return 0;
	if (k >= 8)
		return ~(uint64_t)0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return ~(uint64_t)0 << (64 - 8 * k);
#else
	return ~(uint64_t)0 >> (64 - 8 * k);
#endif
}

/* The bytes s[i..i+avail) (avail 1..8) as the first bytes of a word,
 * without reading outside s[0..n): a short tail is the end of the last
 * whole word of the name, shifted down. */
static uint64_t
load_word(const char *s, size_t n, size_t i, size_t avail)
{
	uint64_t w = 0;
	if (avail == 8) {
		memcpy(&w, s + i, 8); /* a fixed size: one load, not a call */
		return w;
	}
	if (n < 8) {
		memcpy(&w, s + i, avail);
		return w;
	}
	memcpy(&w, s + n - 8, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return w << (8 * (8 - avail));
#else
	return w >> (8 * (8 - avail));
#endif
}

/* Bytes a and b have in common from the start. */
static size_t
common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + first_byte(~zero_bytes(x ^ y) & HIGHS);
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The name with each 1-9 digit segment replaced by the pair FF 23 and each
 * literal FF byte escaped as FF FE, so distinct shapes never collide.
 * Returns false when the name has too many digit segments to cache.
 *
 * One pass over the bytes: a segment is copied as it is read and, when it
 * turns out to be all digits, rewound and replaced by the placeholder.
 * Whole segments shared with the previous name (most of a name, in a
 * checkpoint listed block by block and expert by expert) keep the key
 * already built for them, so only the differing tail is walked. */
static bool
skel_build(skel *k, const char *s, size_t n)
{
	unsigned char *o = k->key;
	size_t len = 0, seg = 0;
	uint32_t nseg = 0, nmark = 0;

	if (k->prev) {
		size_t l = common_prefix(s, k->prev, n < k->prev_len ? n : k->prev_len);
		/* marks rise: from the last, as the shared prefix is most of a
		 * name */
		nmark = k->nmark;
		while (nmark && k->marks[nmark - 1].at > l)
			nmark--;
		if (nmark) {
			const mark *mk = &k->marks[nmark - 1];
			seg = mk->at;
			len = mk->klen;
			nseg = mk->nseg;
		}
	}
	k->prev = NULL;  /* until this build completes */
	for (size_t i = seg;; i++) {
		/* copy the segment; note a non-digit and a literal FF on the
		 * way, without a branch per byte */
		size_t kseg = len;
		uint64_t nondigit = 0, ff = 0;
		/* eight bytes at a time (the key has room for a whole word
		 * past its end) */
		while (i < n) {
			size_t avail = n - i < 8 ? n - i : 8, take;
			uint64_t w = load_word(s, n, i, avail), keep, dots;
			memcpy(o + len, &w, 8);
			dots = zero_bytes(w ^ (ONES * '.')) & bytes_before(avail);
			take = dots ? first_byte(dots) : avail;
			keep = bytes_before(take);
			nondigit |= ~digit_bytes(w) & HIGHS & keep;
			ff |= zero_bytes(~w) & keep;
			len += take;
			i += take;
			if (dots)
				break;
		}
		size_t sl = i - seg;
		if (!nondigit && sl >= 1 && sl <= MAX_DIGITS) {
			if (nseg == MAX_SEGS)
				return false;
			int32_t v = 0;   /* <= MAX_DIGITS digits: no overflow */
			for (size_t j = seg; j < i; j++)
				v = v * 10 + (s[j] - '0');
			k->seg_val[nseg] = v;
			k->seg_at[nseg++] = (uint32_t)seg;
			len = kseg;
			o[len++] = 0xFF;
			o[len++] = '#';
		} else if (ff) {
			len = kseg;
			for (size_t j = seg; j < i; j++) {
				o[len++] = (unsigned char)s[j];
				if ((unsigned char)s[j] == 0xFF)
					o[len++] = 0xFE;
			}
		}
		if (i == n)
			break;
		o[len++] = '.';
		seg = i + 1;
		if (nmark < MAX_MARKS)
			k->marks[nmark++] = (mark){(uint32_t)seg, (uint32_t)len, nseg};
	}
	k->len = len;
	k->nseg = nseg;
	k->nmark = nmark;
	k->prev = s;
	k->prev_len = n;
	return true;
}

typedef struct centry {
	uint64_t hash;
	size_t koff;
	uint32_t klen;
	bool used;
	bool factor;             /* an adapter factor's name (counting only) */
	unsigned char role, kind;
	signed char lord, eord;  /* digit segment ordinals, or -1 */
} centry;

typedef struct cache {
	centry *e;
	size_t cap, n;           /* cap: power of two */
	unsigned char *keys;
	size_t klen, kcap;
} cache;

static centry *
cache_find(cache *c, uint64_t h, const unsigned char *key, size_t len)
{
	size_t mask = c->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		centry *e = &c->e[i];
		if (!e->used)
			return e;
		if (e->hash == h && e->klen == len &&
		    (len == 0 || memcmp(c->keys + e->koff, key, len) == 0))
			return e;
	}
}

static bool
cache_grow(cache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 1024;
	centry *ne = calloc(ncap, sizeof *ne);
	if (!ne)
		return false;
	for (size_t i = 0; i < c->cap; i++) {
		if (!c->e[i].used)
			continue;
		size_t j = (size_t)c->e[i].hash & (ncap - 1);
		while (ne[j].used)
			j = (j + 1) & (ncap - 1);
		ne[j] = c->e[i];
	}
	free(c->e);
	c->e = ne;
	c->cap = ncap;
	return true;
}

/* Store key -> r in a free slot e; false on OOM (the cache just misses). */
static bool
cache_put(cache *c, centry *e, uint64_t h, const skel *k, const result *r)
{
	signed char ord[2] = { -1, -1 };
	long at[2] = { r->layer_at, r->expert_at };
	for (int w = 0; w < 2; w++) {
		if (at[w] < 0)
			continue;
		for (uint32_t s = 0; s < k->nseg; s++)
			if (k->seg_at[s] == (uint32_t)at[w])
				ord[w] = (signed char)s;
		if (ord[w] < 0)
			return true;  /* not a digit segment: do not cache */
	}
	if (c->klen + k->len > c->kcap) {
		size_t nk = c->kcap ? c->kcap * 2 : 64 * 1024;
		while (nk < c->klen + k->len)
			nk *= 2;
		unsigned char *p = realloc(c->keys, nk);
		if (!p)
			return false;
		c->keys = p;
		c->kcap = nk;
	}
	if (k->len)  /* keys is still NULL for an empty first name */
		memcpy(c->keys + c->klen, k->key, k->len);
	e->hash = h;
	e->koff = c->klen;
	e->klen = (uint32_t)k->len;
	e->used = true;
	e->role = (unsigned char)r->role;
	e->kind = (unsigned char)r->kind;
	e->lord = ord[0];
	e->eord = ord[1];
	c->klen += k->len;
	c->n++;
	return true;
}

/* Key bytes a and b (n each) the same?  Eight at a time from the end,
 * where the keys of one block's matrices differ (the first word may
 * overlap the second): a call to memcmp costs more than the compare. */
static bool
key_eq(const unsigned char *a, const unsigned char *b, size_t n)
{
	if (n < 8) {
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i])
				return false;
		return true;
	}
	for (size_t i = n;;) {
		uint64_t x, y;
		i = i >= 8 ? i - 8 : 0;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
		if (!i)
			return true;
	}
}

/* The entries the last few names found: a checkpoint lists each block's
 * or expert's few matrices in turn, so a name's skeleton is most often
 * one of these, found without hashing it. */
#define RECENT 4

static centry *
recent_find(const cache *c, const size_t *recent, size_t *last, const skel *k)
{
	/* from the one after the last found: the matrices come in turn */
	for (size_t i = 1; i <= RECENT; i++) {
		size_t r = (*last + i) % RECENT;
		centry *e = recent[r] < c->cap ? &c->e[recent[r]] : NULL;
		if (e && e->klen == k->len && key_eq(c->keys + e->koff, k->key, k->len)) {
			*last = r;
			return e;
		}
	}
	return NULL;
}

static int32_t
seg_value(const skel *k, signed char ord)
{
	return ord < 0 ? -1 : k->seg_val[(int)ord];
}

/* ==== names of a known shape, without building their skeleton ====
 *
 * A checkpoint lists the same few shapes in turn (an expert's gate, up
 * and down; a block's nine matrices), differing only in their numbers.
 * A slot keeps one name whose skeleton the cache answered and, for each
 * byte, whether it lies in one of its digit segments.  A name of the same
 * length whose bytes differ from it only inside those segments, and only
 * by digits, has the same skeleton (its separators and other segments
 * are the same bytes, its digit segments still all digits), so the same
 * answer: found with a word compare per 8 bytes, not the skeleton walk. */
#define SLOTS 16
#define SLOT_WORDS 16   /* names up to 128 bytes */

typedef struct slot {
	const char *name;       /* the last name of this shape, or NULL */
	uint32_t len, words;
	unsigned char role, kind;
	bool factor;
	unsigned char next;           /* the slot found after this one, or SLOTS */
	int32_t layer_at, expert_at;  /* byte offsets of its digit segments, or -1 */
	uint8_t layer_len, expert_len; /* their lengths: a name that fits has them */
	uint64_t digits[SLOT_WORDS];  /* 0x80: that byte is in a digit segment */
#ifdef __SSE2__
	unsigned char in[8 * SLOT_WORDS]; /* the same, byte by byte: 16 at a time */
#endif
} slot;

/* Word w of s[0, n) (n >= 1, w < ceil(n / 8)): the last, if short, is the
 * name's last 8 bytes (the whole name, zero-padded, when shorter), so no
 * byte past the name is read.  Two names of one length load alike. */
static uint64_t
name_word(const char *s, size_t n, size_t w)
{
	uint64_t x = 0;
	if (8 * w + 8 <= n)
		memcpy(&x, s + 8 * w, 8);
	else if (n >= 8)
		memcpy(&x, s + n - 8, 8);
	else
		memcpy(&x, s, n);
	return x;
}

/* The digits at s + at (at < 0: 0). */
static unsigned
segment_len(const char *s, size_t n, int32_t at)
{
	unsigned k = 0;
	for (size_t i = (size_t)(at < 0 ? (int32_t)n : at); i < n && s[i] >= '0' && s[i] <= '9'; i++)
		k++;
	return k;
}

/* Keep name s (skeleton k, cache answer e) in a slot: the oldest. */
static void
slot_put(slot *sl, size_t *fill, size_t *last, const char *s, size_t n, const skel *k,
	 const centry *e)
{
	if (n == 0 || n > 8 * SLOT_WORDS)
		return;
	size_t j = *fill % SLOTS;
	slot *o = &sl[j];
	if (*last < SLOTS && *last < *fill)
		sl[*last].next = (unsigned char)j;
	*last = j;
	(*fill)++;
	o->next = SLOTS;
	unsigned char in[8 * SLOT_WORDS];
	memset(in, 0, n);
	for (uint32_t g = 0; g < k->nseg; g++)
		for (size_t i = k->seg_at[g]; i < n && s[i] != '.'; i++)
			in[i] = 0x80;
	o->name = s;
	o->len = (uint32_t)n;
	o->words = (uint32_t)((n + 7) / 8);
	for (size_t w = 0; w < o->words; w++)
		o->digits[w] = name_word((const char *)in, n, w);
#ifdef __SSE2__
	memcpy(o->in, in, n);
#endif
	o->role = e->role;
	o->kind = e->kind;
	o->factor = e->factor;
	o->layer_at = e->lord < 0 ? -1 : (int32_t)k->seg_at[(int)e->lord];
	o->expert_at = e->eord < 0 ? -1 : (int32_t)k->seg_at[(int)e->eord];
	o->layer_len = (uint8_t)segment_len(s, n, o->layer_at);
	o->expert_len = (uint8_t)segment_len(s, n, o->expert_at);
}

/* The number in the digit segment of len bytes at s + at (-1: none).  A
 * name that fits a slot has its digits where the slot's had them, as
 * many: no byte needs looking at twice. */
static inline int32_t
slot_digits(const char *s, int32_t at, unsigned len)
{
	if (at < 0)
		return -1;
	const unsigned char *d = (const unsigned char *)s + at;
	switch (len) { /* 1..MAX_DIGITS; an index is most often 1 to 3 */
	case 1:
		return d[0] - '0';
	case 2:
		return (d[0] - '0') * 10 + (d[1] - '0');
	case 3:
		return (d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0');
	default: {
		int32_t v = 0;
		for (unsigned i = 0; i < len; i++)
			v = v * 10 + (d[i] - '0');
		return v;
	}
	}
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* slot_fits for n >= 32 where the CPU has AVX2: 32 bytes a step. */
__attribute__((target("avx2"))) static bool
slot_fits_avx2(const slot *o, const char *s, size_t n)
{
	const __m256i lo = _mm256_set1_epi8('0' - 1), hi = _mm256_set1_epi8('9' + 1);
	for (size_t i = 0;; i += 32) {
		if (i + 32 > n)
			i = n - 32;
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
		__m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(o->name + i));
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(o->in + i));
		__m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(x, lo), _mm256_cmpgt_epi8(hi, x));
		__m256i ok = _mm256_or_si256(_mm256_cmpeq_epi8(x, y), _mm256_and_si256(d, digit));
		if ((uint32_t)_mm256_movemask_epi8(ok) != 0xFFFFFFFFu)
			return false;
		if (i + 32 == n)
			return true;
	}
}
#endif

/* Does s[0, n) have slot o's shape? (o->len == n) */
static bool
slot_fits_n(const slot *o, const char *s, size_t n)
{
#ifdef __SSE2__
	if (n >= 16) {
		/* 16 bytes a step, the last step ending at the name's end: a
		 * byte may differ only inside a digit segment, and by a digit */
		const __m128i lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
		for (size_t i = 0;; i += 16) {
			if (i + 16 > n)
				i = n - 16;
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(o->name + i));
			__m128i d = _mm_loadu_si128((const __m128i *)(const void *)(o->in + i));
			__m128i digit = _mm_and_si128(_mm_cmpgt_epi8(x, lo), _mm_cmplt_epi8(x, hi));
			__m128i ok = _mm_or_si128(_mm_cmpeq_epi8(x, y), _mm_and_si128(d, digit));
			if (_mm_movemask_epi8(ok) != 0xFFFF)
				return false;
			if (i + 16 == n)
				return true;
		}
	}
#endif
	size_t whole = n / 8;
	uint64_t bad = 0;
	for (size_t w = 0; w <= whole; w++) {
		uint64_t x, y;
		if (w < whole) {
			memcpy(&x, s + 8 * w, 8);
			memcpy(&y, o->name + 8 * w, 8);
		} else if (w < o->words) {
			x = name_word(s, n, w);
			y = name_word(o->name, n, w);
		} else {
			break;
		}
		uint64_t d = x ^ y;
		if (d) {
			uint64_t diff = ~zero_bytes(d) & HIGHS;
			bad |= (diff & ~o->digits[w]) | (diff & ~digit_bytes(x));
		}
	}
	return !bad;
}

/* The same, the length first, where most names that do not fit differ
 * and which the AVX2 compare needs (32 bytes or more). */
static inline bool
slot_fits(const slot *o, const char *s, size_t n, bool avx2)
{
	if (!o->name || o->len != n)
		return false;
#if defined(__x86_64__) && defined(__GNUC__)
	if (avx2 && n >= 32)
		return slot_fits_avx2(o, s, n);
#else
	(void)avx2;
#endif
	return slot_fits_n(o, s, n);
}

/* The slot whose shape s[0, n) has, or NULL: first the one that came
 * after the last found the time before (names come in turn), then each. */
static slot *
slot_find(slot *sl, size_t fill, size_t *last, const char *s, size_t n, bool avx2)
{
	size_t used = fill < SLOTS ? fill : SLOTS, guess = SLOTS;
	if (*last < used) {
		guess = sl[*last].next;
		if (guess < used && slot_fits(&sl[guess], s, n, avx2)) {
			*last = guess;
			return &sl[guess];
		}
	}
	for (size_t j = 0; j < used; j++) {
		if (j != guess && slot_fits(&sl[j], s, n, avx2)) {
			if (*last < used)
				sl[*last].next = (unsigned char)j;
			*last = j;
			return &sl[j];
		}
	}
	return NULL;
}

/* A worker assigning tensors a run at a time, with its own cache: on a
 * large model two workers take runs from one counter (a worker the
 * machine leaves waiting takes fewer; none waits for the other's half),
 * and since a name's answer depends on the name alone the result is the
 * same however the runs fall. */
#define RUN 2048

typedef struct part {
	ws_model *m;
	const char *arch;     /* normalized */
	unsigned fmtbit;
	int32_t num_hidden_layers;
	_Atomic uint64_t *next; /* the first tensor no worker has taken */
	uint64_t end;
	bool oom;
	bool count_factors;
	uint64_t factors;       /* names that are adapter factors' */
} part;

static void
assign_part(part *p)
{
	ws_model *m = p->m;
	cache c = { 0 };
	skel k = { 0 };
	bool oom = false;
	size_t recent[RECENT] = { SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX }, next = 0, last = 0;
	slot sl[SLOTS];
	size_t fill = 0, slast = SLOTS;
	bool avx2 = ws_cpu_avx2();

	/* Escaping at most doubles a name; longer names are not classified.
	 * A word of slack: skel_build stores whole words. */
	k.key = malloc(2 * WS_ROLE_MAX_NAME + 2 + 8);
	if (!k.key || !cache_grow(&c))
		oom = true;

	for (uint64_t ti = 0, run_end = 0;; ti++) {
		if (ti == run_end) {
			ti = atomic_fetch_add(p->next, RUN);
			if (ti >= p->end)
				break;
			run_end = p->end - ti < RUN ? p->end : ti + RUN;
		}
		ws_tensor *t = &m->tensors[ti];
		const char *s = t->name ? t->name : "";
		size_t n = t->name ? t->name_len : 0;
		result r;
		bool done = false, factor = false, factor_known = false;

		slot *o = n ? slot_find(sl, fill, &slast, s, n, avx2) : NULL;
		if (o) {
			o->name = s;  /* the latest, as the next of its shape is most like it */
			t->role = (ws_role)o->role;
			t->kind = (ws_kind)o->kind;
			t->layer = slot_digits(s, o->layer_at, o->layer_len);
			t->expert = slot_digits(s, o->expert_at, o->expert_len);
			factor = o->factor;
			factor_known = done = true;
		} else if (!oom && n <= WS_ROLE_MAX_NAME && skel_build(&k, s, n)) {
			centry *e = recent_find(&c, recent, &last, &k);
			uint64_t h = 0;
			if (!e) {
				h = XXH3_64bits(k.key, k.len);
				e = cache_find(&c, h, k.key, k.len);
				if (e->used)
					recent[next++ % RECENT] = (size_t)(e - c.e);
			}
			if (e->used) {
				t->role = (ws_role)e->role;
				t->kind = (ws_kind)e->kind;
				t->layer = seg_value(&k, e->lord);
				t->expert = seg_value(&k, e->eord);
				factor = e->factor;
				factor_known = done = true;
				slot_put(sl, &fill, &slast, s, n, &k, e);
			} else {
				classify_raw(p->fmtbit, p->arch, s, n, &r);
				/* whether a name is a factor's depends on its
				 * non-digit segments alone: one answer a shape */
				factor = p->count_factors && ws_adapter_name_is_factor(s, n);
				factor_known = true;
				if (!cache_put(&c, e, h, &k, &r)) {
					oom = true;
				} else if (e->used) {
					e->factor = factor;
					slot_put(sl, &fill, &slast, s, n, &k, e);
				}
				if (!oom && c.n * 2 > c.cap && !cache_grow(&c))
					oom = true;
				/* growing moves the entries */
				for (size_t i = 0; i < RECENT; i++)
					recent[i] = SIZE_MAX;
			}
		} else {
			classify_raw(p->fmtbit, p->arch, s, n, &r);
		}
		if (!done) {
			t->role = r.role;
			t->kind = r.kind;
			t->layer = digits_at(s, n, r.layer_at);
			t->expert = digits_at(s, n, r.expert_at);
		}
		if (!factor_known)
			factor = p->count_factors && ws_adapter_name_is_factor(s, n);
		p->factors += factor;
		if (p->num_hidden_layers > 0 && t->layer >= p->num_hidden_layers &&
		    t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX)
			t->role = WS_ROLE_MTP;
		t->params = (t->role == WS_ROLE_BUFFER ||
			     t->role == WS_ROLE_QUANT_AUX) ? 0 : t->elements;
	}
	free(k.key);
	free(c.e);
	free(c.keys);
	p->oom = oom;
}

static void
assign_worker(void *arg, unsigned worker)
{
	assign_part((part *)arg + worker);
}


int
ws_roles_assign_counting(ws_model *m, int32_t num_hidden_layers, uint64_t *factors)
{
	char an[64];
	part p[2];
	_Atomic uint64_t next = 0;

	arch_normalize(m->arch_name, sizeof m->arch_name, an, sizeof an);
	for (int i = 0; i < 2; i++)
		p[i] = (part){m, an, format_bit(m->format), num_hidden_layers, &next, m->n_tensors,
			      false, factors != NULL, 0};
	ws_team_run(ws_team_helpers_for(m->n_tensors), assign_worker, p);
	if (factors)
		*factors = p[0].factors + p[1].factors;
	return p[0].oom || p[1].oom ? -1 : 0;
}

int
ws_roles_assign(ws_model *m, int32_t num_hidden_layers)
{
	return ws_roles_assign_counting(m, num_hidden_layers, NULL);
}
