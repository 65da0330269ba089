/*
 * test_roles.c - the role table: real tensor names of each architecture,
 * both namings, against the expected (role, layer, expert, kind); the
 * cached assignment path against the single-name path; hostile names.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ws/model.h"
#include "ws/roles.h"
#include "testutil.h"

typedef struct row {
	ws_format fmt;
	const char *arch;
	const char *name;
	ws_role role;
	int32_t layer, expert;
	ws_kind kind;
} row;

#define ST WS_FORMAT_SAFETENSORS
#define GF WS_FORMAT_GGUF
/* weight / bias rows: format, arch, name, role, layer, expert */
#define W(f, a, n, r, l, e) { f, a, n, WS_ROLE_##r, l, e, WS_KIND_WEIGHT }
#define B(f, a, n, r, l, e) { f, a, n, WS_ROLE_##r, l, e, WS_KIND_BIAS }

static const row rows[] = {
	/* ---- llama / mistral ---- */
	W(ST, "llama", "model.embed_tokens.weight", EMBED, -1, -1),
	W(ST, "llama", "model.layers.0.input_layernorm.weight", ATTN_NORM, 0, -1),
	W(ST, "llama", "model.layers.0.self_attn.q_proj.weight", ATTN_Q, 0, -1),
	W(ST, "llama", "model.layers.0.self_attn.k_proj.weight", ATTN_K, 0, -1),
	W(ST, "llama", "model.layers.0.self_attn.v_proj.weight", ATTN_V, 0, -1),
	W(ST, "llama", "model.layers.31.self_attn.o_proj.weight", ATTN_O, 31, -1),
	W(ST, "llama", "model.layers.7.post_attention_layernorm.weight", FFN_NORM, 7, -1),
	W(ST, "llama", "model.layers.7.mlp.gate_proj.weight", FFN_GATE, 7, -1),
	W(ST, "llama", "model.layers.7.mlp.up_proj.weight", FFN_UP, 7, -1),
	W(ST, "llama", "model.layers.79.mlp.down_proj.weight", FFN_DOWN, 79, -1),
	W(ST, "llama", "model.norm.weight", FINAL_NORM, -1, -1),
	W(ST, "llama", "lm_head.weight", LM_HEAD, -1, -1),
	W(ST, "llama", "model.layers.3.self_attn.rotary_emb.inv_freq", BUFFER, 3, -1),
	B(ST, "llama", "model.layers.3.self_attn.q_proj.bias", ATTN_Q, 3, -1),
	W(ST, "mistral", "model.layers.12.self_attn.k_proj.weight", ATTN_K, 12, -1),
	W(ST, "mistral", "model.embed_tokens.weight", EMBED, -1, -1),
	W(ST, "", "model.layers.2.mlp.gate_proj.weight", FFN_GATE, 2, -1),
	/* bare names (no model. prefix) */
	W(ST, "llama", "layers.4.self_attn.q_proj.weight", ATTN_Q, 4, -1),
	W(ST, "llama", "embed_tokens.weight", EMBED, -1, -1),
	W(ST, "llama", "norm.weight", FINAL_NORM, -1, -1),
	/* ---- qwen2 / qwen3 ---- */
	B(ST, "qwen2", "model.layers.0.self_attn.q_proj.bias", ATTN_Q, 0, -1),
	B(ST, "qwen2", "model.layers.0.self_attn.k_proj.bias", ATTN_K, 0, -1),
	B(ST, "qwen2", "model.layers.23.self_attn.v_proj.bias", ATTN_V, 23, -1),
	W(ST, "qwen2", "model.layers.23.mlp.down_proj.weight", FFN_DOWN, 23, -1),
	W(ST, "qwen3", "model.layers.5.self_attn.q_norm.weight", ATTN_Q_NORM, 5, -1),
	W(ST, "qwen3", "model.layers.5.self_attn.k_norm.weight", ATTN_K_NORM, 5, -1),
	W(ST, "qwen3", "model.layers.5.post_attention_layernorm.weight", FFN_NORM, 5, -1),
	/* ---- gemma / gemma2 / gemma3 ---- */
	W(ST, "gemma", "model.layers.1.post_attention_layernorm.weight", FFN_NORM, 1, -1),
	W(ST, "gemma", "model.layers.1.input_layernorm.weight", ATTN_NORM, 1, -1),
	W(ST, "gemma2", "model.layers.1.post_attention_layernorm.weight", ATTN_POST_NORM, 1, -1),
	W(ST, "gemma2", "model.layers.1.pre_feedforward_layernorm.weight", FFN_NORM, 1, -1),
	W(ST, "gemma2", "model.layers.1.post_feedforward_layernorm.weight", FFN_POST_NORM, 1, -1),
	W(ST, "gemma2", "model.layers.1.input_layernorm.weight", ATTN_NORM, 1, -1),
	W(ST, "gemma3_text", "model.layers.9.post_attention_layernorm.weight", ATTN_POST_NORM, 9, -1),
	W(ST, "gemma3_text", "model.layers.9.self_attn.q_norm.weight", ATTN_Q_NORM, 9, -1),
	W(ST, "gemma3_text", "model.layers.9.pre_feedforward_layernorm.weight", FFN_NORM, 9, -1),
	W(ST, "gemma3", "language_model.model.layers.9.post_attention_layernorm.weight", ATTN_POST_NORM, 9, -1),
	W(ST, "gemma3", "language_model.model.embed_tokens.weight", EMBED, -1, -1),
	W(ST, "gemma3", "language_model.model.norm.weight", FINAL_NORM, -1, -1),
	W(ST, "gemma3", "model.language_model.layers.2.mlp.up_proj.weight", FFN_UP, 2, -1),
	W(ST, "gemma3", "vision_tower.vision_model.encoder.layers.0.self_attn.q_proj.weight", OTHER, -1, -1),
	W(ST, "gemma3", "multi_modal_projector.mm_input_projection_weight", OTHER, -1, -1),
	/* ---- phi (phi-2) and phi-1.5 ---- */
	W(ST, "phi", "model.layers.0.self_attn.dense.weight", ATTN_O, 0, -1),
	B(ST, "phi", "model.layers.0.self_attn.dense.bias", ATTN_O, 0, -1),
	W(ST, "phi", "model.layers.0.mlp.fc1.weight", FFN_UP, 0, -1),
	B(ST, "phi", "model.layers.0.mlp.fc2.bias", FFN_DOWN, 0, -1),
	B(ST, "phi", "model.layers.0.input_layernorm.bias", ATTN_NORM, 0, -1),
	W(ST, "phi", "model.final_layernorm.weight", FINAL_NORM, -1, -1),
	B(ST, "phi", "lm_head.bias", LM_HEAD, -1, -1),
	W(ST, "phi-msft", "transformer.h.3.mixer.Wqkv.weight", ATTN_QKV, 3, -1),
	W(ST, "phi-msft", "transformer.h.3.mixer.out_proj.weight", ATTN_O, 3, -1),
	/* hybrid stacks: Falcon-H1's mup_vector a buffer, its mixer's
	 * tensors; Granite-4.0-H's shared MLP; LFM2's short convolution and
	 * norms; Nemotron-3's MoE layer */
	W(ST, "falcon_h1", "model.layers.2.mamba.mup_vector", BUFFER, 2, -1),
	W(ST, "falcon_h1", "model.layers.2.mamba.in_proj.weight", SSM_IN, 2, -1),
	W(ST, "falcon_h1", "model.layers.2.pre_ff_layernorm.weight", FFN_NORM, 2, -1),
	W(ST, "granitemoehybrid", "model.layers.1.shared_mlp.input_linear.weight", FFN_GATE_UP, 1, -1),
	W(ST, "granitemoehybrid", "model.layers.1.shared_mlp.output_linear.weight", FFN_DOWN, 1, -1),
	W(ST, "lfm2", "model.layers.0.conv.conv.weight", SSM_CONV, 0, -1),
	W(ST, "lfm2", "model.layers.0.conv.in_proj.weight", SSM_IN, 0, -1),
	W(ST, "lfm2", "model.layers.0.operator_norm.weight", ATTN_NORM, 0, -1),
	W(ST, "lfm2", "model.embedding_norm.weight", FINAL_NORM, -1, -1),
	B(ST, "nemotron_h", "backbone.layers.1.mixer.gate.e_score_correction_bias", MOE_ROUTER_BIAS, 1, -1),
	W(ST, "nemotron_h", "backbone.layers.1.mixer.experts.5.up_proj.weight", MOE_UP, 1, 5),
	W(ST, "nemotron_h", "backbone.layers.1.mixer.shared_experts.down_proj.weight", MOE_SHARED_DOWN, 1, -1),
	W(ST, "phi-msft", "transformer.h.3.ln.weight", ATTN_NORM, 3, -1),
	W(ST, "phi-msft", "transformer.embd.wte.weight", EMBED, -1, -1),
	W(ST, "phi-msft", "lm_head.ln.weight", FINAL_NORM, -1, -1),
	W(ST, "phi-msft", "lm_head.linear.weight", LM_HEAD, -1, -1),
	/* ---- phi3 ---- */
	W(ST, "phi3", "model.layers.0.self_attn.qkv_proj.weight", ATTN_QKV, 0, -1),
	W(ST, "phi3", "model.layers.0.self_attn.o_proj.weight", ATTN_O, 0, -1),
	W(ST, "phi3", "model.layers.0.mlp.gate_up_proj.weight", FFN_GATE_UP, 0, -1),
	W(ST, "phi3", "model.layers.0.mlp.down_proj.weight", FFN_DOWN, 0, -1),
	/* ---- gpt2 / starcoder (gpt_bigcode) ---- */
	W(ST, "gpt2", "wte.weight", EMBED, -1, -1),
	W(ST, "gpt2", "wpe.weight", POS_EMBED, -1, -1),
	W(ST, "gpt2", "h.0.ln_1.weight", ATTN_NORM, 0, -1),
	B(ST, "gpt2", "h.0.ln_1.bias", ATTN_NORM, 0, -1),
	W(ST, "gpt2", "h.0.attn.c_attn.weight", ATTN_QKV, 0, -1),
	B(ST, "gpt2", "h.0.attn.c_attn.bias", ATTN_QKV, 0, -1),
	W(ST, "gpt2", "h.0.attn.c_proj.weight", ATTN_O, 0, -1),
	B(ST, "gpt2", "h.11.ln_2.bias", FFN_NORM, 11, -1),
	W(ST, "gpt2", "h.11.mlp.c_fc.weight", FFN_UP, 11, -1),
	W(ST, "gpt2", "h.11.mlp.c_proj.weight", FFN_DOWN, 11, -1),
	B(ST, "gpt2", "h.11.mlp.c_proj.bias", FFN_DOWN, 11, -1),
	W(ST, "gpt2", "ln_f.weight", FINAL_NORM, -1, -1),
	B(ST, "gpt2", "h.0.attn.bias", BUFFER, 0, -1),
	B(ST, "gpt2", "h.5.attn.masked_bias", BUFFER, 5, -1),
	W(ST, "gpt2", "transformer.h.5.attn.c_attn.weight", ATTN_QKV, 5, -1),
	W(ST, "gpt2", "transformer.wte.weight", EMBED, -1, -1),
	B(ST, "gpt2", "transformer.h.5.attn.bias", BUFFER, 5, -1),
	W(ST, "gpt_bigcode", "transformer.h.2.mlp.c_fc.weight", FFN_UP, 2, -1),
	/* ---- gpt_neox ---- */
	W(ST, "gpt_neox", "gpt_neox.embed_in.weight", EMBED, -1, -1),
	W(ST, "gpt_neox", "gpt_neox.layers.0.attention.query_key_value.weight", ATTN_QKV, 0, -1),
	B(ST, "gpt_neox", "gpt_neox.layers.0.attention.query_key_value.bias", ATTN_QKV, 0, -1),
	W(ST, "gpt_neox", "gpt_neox.layers.0.attention.dense.weight", ATTN_O, 0, -1),
	W(ST, "gpt_neox", "gpt_neox.layers.0.mlp.dense_h_to_4h.weight", FFN_UP, 0, -1),
	W(ST, "gpt_neox", "gpt_neox.layers.0.mlp.dense_4h_to_h.weight", FFN_DOWN, 0, -1),
	W(ST, "gpt_neox", "gpt_neox.layers.0.input_layernorm.weight", ATTN_NORM, 0, -1),
	B(ST, "gpt_neox", "gpt_neox.layers.0.post_attention_layernorm.bias", FFN_NORM, 0, -1),
	W(ST, "gpt_neox", "gpt_neox.layers.15.attention.rotary_emb.inv_freq", BUFFER, 15, -1),
	B(ST, "gpt_neox", "gpt_neox.layers.15.attention.bias", BUFFER, 15, -1),
	B(ST, "gpt_neox", "gpt_neox.layers.15.attention.masked_bias", BUFFER, 15, -1),
	W(ST, "gpt_neox", "gpt_neox.final_layer_norm.weight", FINAL_NORM, -1, -1),
	W(ST, "gpt_neox", "embed_out.weight", LM_HEAD, -1, -1),
	/* ---- falcon ---- */
	W(ST, "falcon", "transformer.word_embeddings.weight", EMBED, -1, -1),
	W(ST, "falcon", "transformer.h.0.self_attention.query_key_value.weight", ATTN_QKV, 0, -1),
	W(ST, "falcon", "transformer.h.0.self_attention.dense.weight", ATTN_O, 0, -1),
	W(ST, "falcon", "transformer.h.0.mlp.dense_h_to_4h.weight", FFN_UP, 0, -1),
	W(ST, "falcon", "transformer.h.0.mlp.dense_4h_to_h.weight", FFN_DOWN, 0, -1),
	W(ST, "falcon", "transformer.h.0.input_layernorm.weight", ATTN_NORM, 0, -1),
	W(ST, "falcon", "transformer.h.59.ln_attn.weight", ATTN_NORM, 59, -1),
	B(ST, "falcon", "transformer.h.59.ln_mlp.bias", FFN_NORM, 59, -1),
	W(ST, "falcon", "transformer.ln_f.weight", FINAL_NORM, -1, -1),
	W(ST, "falcon", "lm_head.weight", LM_HEAD, -1, -1),
	W(ST, "RefinedWebModel", "transformer.h.1.self_attention.dense.weight", ATTN_O, 1, -1),
	/* ---- olmo / olmo2 ---- */
	W(ST, "olmo", "model.layers.2.self_attn.q_proj.weight", ATTN_Q, 2, -1),
	W(ST, "olmo", "model.layers.2.mlp.down_proj.weight", FFN_DOWN, 2, -1),
	W(ST, "olmo2", "model.layers.2.post_attention_layernorm.weight", ATTN_POST_NORM, 2, -1),
	W(ST, "olmo2", "model.layers.2.post_feedforward_layernorm.weight", FFN_POST_NORM, 2, -1),
	W(ST, "olmo2", "model.layers.2.self_attn.q_norm.weight", ATTN_Q_NORM, 2, -1),
	W(ST, "hf_olmo", "model.transformer.blocks.4.att_proj.weight", ATTN_QKV, 4, -1),
	W(ST, "hf_olmo", "model.transformer.blocks.4.attn_out.weight", ATTN_O, 4, -1),
	W(ST, "hf_olmo", "model.transformer.blocks.4.ff_proj.weight", FFN_GATE_UP, 4, -1),
	W(ST, "hf_olmo", "model.transformer.blocks.4.ff_out.weight", FFN_DOWN, 4, -1),
	W(ST, "hf_olmo", "model.transformer.wte.weight", EMBED, -1, -1),
	W(ST, "hf_olmo", "model.transformer.ff_out.weight", LM_HEAD, -1, -1),
	/* ---- starcoder2 ---- */
	W(ST, "starcoder2", "model.layers.3.mlp.c_fc.weight", FFN_UP, 3, -1),
	B(ST, "starcoder2", "model.layers.3.mlp.c_proj.bias", FFN_DOWN, 3, -1),
	B(ST, "starcoder2", "model.layers.3.self_attn.o_proj.bias", ATTN_O, 3, -1),
	B(ST, "starcoder2", "model.norm.bias", FINAL_NORM, -1, -1),
	/* ---- stablelm ---- */
	B(ST, "stablelm", "model.layers.0.input_layernorm.bias", ATTN_NORM, 0, -1),
	W(ST, "stablelm", "model.layers.0.self_attn.q_layernorm.norms.3.weight", ATTN_Q_NORM, 0, -1),
	W(ST, "stablelm", "model.layers.0.self_attn.k_layernorm.norms.1.weight", ATTN_K_NORM, 0, -1),
	W(ST, "stablelm", "model.layers.0.mlp.up_proj.weight", FFN_UP, 0, -1),
	/* ---- bloom ---- */
	W(ST, "bloom", "word_embeddings.weight", EMBED, -1, -1),
	W(ST, "bloom", "word_embeddings_layernorm.weight", EMBED_NORM, -1, -1),
	B(ST, "bloom", "word_embeddings_layernorm.bias", EMBED_NORM, -1, -1),
	W(ST, "bloom", "h.0.self_attention.query_key_value.weight", ATTN_QKV, 0, -1),
	W(ST, "bloom", "h.0.self_attention.dense.weight", ATTN_O, 0, -1),
	W(ST, "bloom", "h.0.mlp.dense_h_to_4h.weight", FFN_UP, 0, -1),
	B(ST, "bloom", "h.0.mlp.dense_4h_to_h.bias", FFN_DOWN, 0, -1),
	W(ST, "bloom", "h.0.post_attention_layernorm.weight", FFN_NORM, 0, -1),
	W(ST, "bloom", "ln_f.weight", FINAL_NORM, -1, -1),
	W(ST, "bloom", "transformer.word_embeddings.weight", EMBED, -1, -1),
	/* ---- cohere ---- */
	W(ST, "cohere", "model.layers.0.input_layernorm.weight", ATTN_NORM, 0, -1),
	W(ST, "cohere", "model.layers.0.self_attn.q_norm.weight", ATTN_Q_NORM, 0, -1),
	W(ST, "cohere", "model.layers.0.mlp.gate_proj.weight", FFN_GATE, 0, -1),
	/* ---- internlm2 ---- */
	W(ST, "internlm2", "model.tok_embeddings.weight", EMBED, -1, -1),
	W(ST, "internlm2", "model.layers.0.attention.wqkv.weight", ATTN_QKV, 0, -1),
	W(ST, "internlm2", "model.layers.0.attention.wo.weight", ATTN_O, 0, -1),
	W(ST, "internlm2", "model.layers.0.feed_forward.w1.weight", FFN_GATE, 0, -1),
	W(ST, "internlm2", "model.layers.0.feed_forward.w3.weight", FFN_UP, 0, -1),
	W(ST, "internlm2", "model.layers.0.feed_forward.w2.weight", FFN_DOWN, 0, -1),
	W(ST, "internlm2", "model.layers.0.attention_norm.weight", ATTN_NORM, 0, -1),
	W(ST, "internlm2", "model.layers.0.ffn_norm.weight", FFN_NORM, 0, -1),
	W(ST, "internlm2", "model.norm.weight", FINAL_NORM, -1, -1),
	W(ST, "internlm2", "output.weight", LM_HEAD, -1, -1),
	/* ---- chatglm ---- */
	W(ST, "chatglm", "transformer.embedding.word_embeddings.weight", EMBED, -1, -1),
	W(ST, "chatglm", "transformer.encoder.layers.0.input_layernorm.weight", ATTN_NORM, 0, -1),
	W(ST, "chatglm", "transformer.encoder.layers.0.self_attention.query_key_value.weight", ATTN_QKV, 0, -1),
	B(ST, "chatglm", "transformer.encoder.layers.0.self_attention.query_key_value.bias", ATTN_QKV, 0, -1),
	W(ST, "chatglm", "transformer.encoder.layers.0.self_attention.dense.weight", ATTN_O, 0, -1),
	W(ST, "chatglm", "transformer.encoder.layers.27.post_attention_layernorm.weight", FFN_NORM, 27, -1),
	W(ST, "chatglm", "transformer.encoder.layers.27.mlp.dense_h_to_4h.weight", FFN_GATE_UP, 27, -1),
	W(ST, "chatglm", "transformer.encoder.layers.27.mlp.dense_4h_to_h.weight", FFN_DOWN, 27, -1),
	W(ST, "chatglm", "transformer.encoder.final_layernorm.weight", FINAL_NORM, -1, -1),
	W(ST, "chatglm", "transformer.output_layer.weight", LM_HEAD, -1, -1),
	W(ST, "chatglm", "transformer.rotary_pos_emb.inv_freq", BUFFER, -1, -1),
	/* ---- glm4 (four norms per block) ---- */
	W(ST, "glm4", "model.layers.1.post_self_attn_layernorm.weight", ATTN_POST_NORM, 1, -1),
	W(ST, "glm4", "model.layers.1.post_attention_layernorm.weight", FFN_NORM, 1, -1),
	W(ST, "glm4", "model.layers.1.post_mlp_layernorm.weight", FFN_POST_NORM, 1, -1),
	W(ST, "glm4", "model.layers.1.mlp.gate_up_proj.weight", FFN_GATE_UP, 1, -1),
	/* ---- Meta original checkpoints ---- */
	W(ST, "", "tok_embeddings.weight", EMBED, -1, -1),
	W(ST, "", "layers.0.attention.wq.weight", ATTN_Q, 0, -1),
	W(ST, "", "layers.0.attention.wk.weight", ATTN_K, 0, -1),
	W(ST, "", "layers.0.attention.wv.weight", ATTN_V, 0, -1),
	W(ST, "", "layers.0.attention.wo.weight", ATTN_O, 0, -1),
	W(ST, "", "layers.0.feed_forward.w1.weight", FFN_GATE, 0, -1),
	W(ST, "", "layers.0.feed_forward.w2.weight", FFN_DOWN, 0, -1),
	W(ST, "", "layers.0.feed_forward.w3.weight", FFN_UP, 0, -1),
	W(ST, "", "layers.0.attention_norm.weight", ATTN_NORM, 0, -1),
	W(ST, "", "layers.0.ffn_norm.weight", FFN_NORM, 0, -1),
	W(ST, "", "norm.weight", FINAL_NORM, -1, -1),
	W(ST, "", "output.weight", LM_HEAD, -1, -1),
	W(ST, "", "rope.freqs", OTHER, -1, -1),
	/* ---- mpt, gpt-j ---- */
	W(ST, "mpt", "transformer.blocks.0.attn.Wqkv.weight", ATTN_QKV, 0, -1),
	W(ST, "mpt", "transformer.blocks.0.attn.out_proj.weight", ATTN_O, 0, -1),
	W(ST, "mpt", "transformer.blocks.0.ffn.up_proj.weight", FFN_UP, 0, -1),
	W(ST, "mpt", "transformer.blocks.0.ffn.down_proj.weight", FFN_DOWN, 0, -1),
	W(ST, "mpt", "transformer.blocks.0.norm_1.weight", ATTN_NORM, 0, -1),
	W(ST, "mpt", "transformer.blocks.0.norm_2.weight", FFN_NORM, 0, -1),
	W(ST, "mpt", "transformer.norm_f.weight", FINAL_NORM, -1, -1),
	W(ST, "gptj", "transformer.h.2.attn.q_proj.weight", ATTN_Q, 2, -1),
	W(ST, "gptj", "transformer.h.2.mlp.fc_in.weight", FFN_UP, 2, -1),
	B(ST, "gptj", "transformer.h.2.mlp.fc_out.bias", FFN_DOWN, 2, -1),
	/* ---- mixtral / phimoe ---- */
	W(ST, "mixtral", "model.layers.0.block_sparse_moe.gate.weight", MOE_ROUTER, 0, -1),
	W(ST, "mixtral", "model.layers.0.block_sparse_moe.experts.0.w1.weight", MOE_GATE, 0, 0),
	W(ST, "mixtral", "model.layers.0.block_sparse_moe.experts.7.w3.weight", MOE_UP, 0, 7),
	W(ST, "mixtral", "model.layers.31.block_sparse_moe.experts.5.w2.weight", MOE_DOWN, 31, 5),
	W(ST, "mixtral", "model.layers.31.self_attn.q_proj.weight", ATTN_Q, 31, -1),
	W(ST, "phimoe", "model.layers.2.block_sparse_moe.experts.15.w1.weight", MOE_GATE, 2, 15),
	B(ST, "phimoe", "model.layers.2.input_layernorm.bias", ATTN_NORM, 2, -1),
	/* ---- qwen2_moe / qwen3_moe / olmoe ---- */
	W(ST, "qwen2_moe", "model.layers.0.mlp.gate.weight", MOE_ROUTER, 0, -1),
	W(ST, "qwen2_moe", "model.layers.0.mlp.experts.59.gate_proj.weight", MOE_GATE, 0, 59),
	W(ST, "qwen2_moe", "model.layers.0.mlp.experts.59.up_proj.weight", MOE_UP, 0, 59),
	W(ST, "qwen2_moe", "model.layers.0.mlp.experts.0.down_proj.weight", MOE_DOWN, 0, 0),
	W(ST, "qwen2_moe", "model.layers.0.mlp.shared_expert.gate_proj.weight", MOE_SHARED_GATE, 0, -1),
	W(ST, "qwen2_moe", "model.layers.0.mlp.shared_expert.up_proj.weight", MOE_SHARED_UP, 0, -1),
	W(ST, "qwen2_moe", "model.layers.0.mlp.shared_expert.down_proj.weight", MOE_SHARED_DOWN, 0, -1),
	W(ST, "qwen2_moe", "model.layers.0.mlp.shared_expert_gate.weight", MOE_SHARED_ROUTER, 0, -1),
	W(ST, "qwen3_moe", "model.layers.47.mlp.experts.127.down_proj.weight", MOE_DOWN, 47, 127),
	W(ST, "qwen3_moe", "model.layers.47.mlp.gate.weight", MOE_ROUTER, 47, -1),
	W(ST, "qwen3_moe", "model.layers.47.mlp.experts.gate_up_proj", MOE_GATE_UP, 47, -1),
	W(ST, "qwen3_moe", "model.layers.47.mlp.experts.down_proj", MOE_DOWN, 47, -1),
	W(ST, "olmoe", "model.layers.3.mlp.experts.63.up_proj.weight", MOE_UP, 3, 63),
	/* ---- deepseek_v2 / v3 ---- */
	W(ST, "deepseek_v3", "model.layers.0.self_attn.q_a_proj.weight", ATTN_Q_A, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.self_attn.q_a_layernorm.weight", ATTN_Q_A_NORM, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.self_attn.q_b_proj.weight", ATTN_Q_B, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.self_attn.kv_a_proj_with_mqa.weight", ATTN_KV_A, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.self_attn.kv_a_layernorm.weight", ATTN_KV_A_NORM, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.self_attn.kv_b_proj.weight", ATTN_KV_B, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.self_attn.o_proj.weight", ATTN_O, 0, -1),
	W(ST, "deepseek_v3", "model.layers.0.mlp.gate_proj.weight", FFN_GATE, 0, -1),
	W(ST, "deepseek_v3", "model.layers.3.mlp.gate.weight", MOE_ROUTER, 3, -1),
	B(ST, "deepseek_v3", "model.layers.3.mlp.gate.e_score_correction_bias", MOE_ROUTER_BIAS, 3, -1),
	W(ST, "deepseek_v3", "model.layers.3.mlp.experts.255.gate_proj.weight", MOE_GATE, 3, 255),
	W(ST, "deepseek_v3", "model.layers.3.mlp.shared_experts.gate_proj.weight", MOE_SHARED_GATE, 3, -1),
	W(ST, "deepseek_v3", "model.layers.3.mlp.shared_experts.up_proj.weight", MOE_SHARED_UP, 3, -1),
	W(ST, "deepseek_v3", "model.layers.3.mlp.shared_experts.down_proj.weight", MOE_SHARED_DOWN, 3, -1),
	W(ST, "deepseek_v3", "model.layers.3.mlp.experts.255.down_proj.weight_scale_inv", QUANT_AUX, 3, 255),
	W(ST, "deepseek_v3", "model.layers.3.self_attn.kv_a_proj_with_mqa.weight_scale_inv", QUANT_AUX, 3, -1),
	W(ST, "deepseek_v2", "model.layers.1.self_attn.q_proj.weight", ATTN_Q, 1, -1),
	/* ---- deepseek_v32: the lightning indexer ---- */
	W(ST, "deepseek_v32", "model.layers.0.self_attn.indexer.wq_b.weight", ATTN_IDX_Q_B, 0, -1),
	W(ST, "deepseek_v32", "model.layers.0.self_attn.indexer.wq_b.weight_scale_inv", QUANT_AUX, 0, -1),
	W(ST, "deepseek_v32", "model.layers.60.self_attn.indexer.wk.weight", ATTN_IDX_K, 60, -1),
	W(ST, "deepseek_v32", "model.layers.3.self_attn.indexer.k_norm.weight", ATTN_IDX_K_NORM, 3, -1),
	B(ST, "deepseek_v32", "model.layers.3.self_attn.indexer.k_norm.bias", ATTN_IDX_K_NORM, 3, -1),
	W(ST, "deepseek_v32", "model.layers.3.self_attn.indexer.weights_proj.weight", ATTN_IDX_PROJ, 3, -1),
	/* ---- apertus: renamed norms, xIELU scalars and buffers ---- */
	W(ST, "apertus", "model.layers.7.attention_layernorm.weight", ATTN_NORM, 7, -1),
	W(ST, "apertus", "model.layers.7.feedforward_layernorm.weight", FFN_NORM, 7, -1),
	W(ST, "apertus", "model.layers.7.mlp.act_fn.alpha_p", FFN_ACT, 7, -1),
	W(ST, "apertus", "model.layers.7.mlp.act_fn.alpha_n", FFN_ACT, 7, -1),
	W(ST, "apertus", "model.layers.7.mlp.act_fn.beta", BUFFER, 7, -1),
	W(ST, "apertus", "model.layers.7.mlp.act_fn.eps", BUFFER, 7, -1),
	/* ---- llama4 text ---- */
	W(ST, "llama4_text", "model.layers.0.feed_forward.router.weight", MOE_ROUTER, 0, -1),
	W(ST, "llama4_text", "model.layers.0.feed_forward.experts.gate_up_proj", MOE_GATE_UP, 0, -1),
	W(ST, "llama4_text", "model.layers.0.feed_forward.experts.down_proj", MOE_DOWN, 0, -1),
	W(ST, "llama4_text", "model.layers.0.feed_forward.shared_expert.gate_proj.weight", MOE_SHARED_GATE, 0, -1),
	W(ST, "llama4_text", "model.layers.0.feed_forward.shared_expert.up_proj.weight", MOE_SHARED_UP, 0, -1),
	W(ST, "llama4_text", "model.layers.0.feed_forward.shared_expert.down_proj.weight", MOE_SHARED_DOWN, 0, -1),
	W(ST, "llama4_text", "model.layers.1.feed_forward.gate_proj.weight", FFN_GATE, 1, -1),
	W(ST, "llama4_text", "model.layers.1.feed_forward.down_proj.weight", FFN_DOWN, 1, -1),
	W(ST, "llama4", "language_model.model.layers.5.feed_forward.experts.gate_up_proj", MOE_GATE_UP, 5, -1),
	W(ST, "llama4", "language_model.lm_head.weight", LM_HEAD, -1, -1),
	W(ST, "llama4", "language_model.model.layers.5.feed_forward.experts.gate_up_proj_scale", QUANT_AUX, 5, -1),
	/* ---- gpt-oss (MXFP4) ---- */
	W(ST, "gpt_oss", "model.layers.0.self_attn.sinks", ATTN_SINKS, 0, -1),
	W(ST, "gpt_oss", "model.layers.0.mlp.router.weight", MOE_ROUTER, 0, -1),
	B(ST, "gpt_oss", "model.layers.0.mlp.router.bias", MOE_ROUTER, 0, -1),
	W(ST, "gpt_oss", "model.layers.0.mlp.experts.gate_up_proj_blocks", MOE_GATE_UP, 0, -1),
	W(ST, "gpt_oss", "model.layers.0.mlp.experts.gate_up_proj_scales", QUANT_AUX, 0, -1),
	B(ST, "gpt_oss", "model.layers.0.mlp.experts.gate_up_proj_bias", MOE_GATE_UP, 0, -1),
	W(ST, "gpt_oss", "model.layers.23.mlp.experts.down_proj_blocks", MOE_DOWN, 23, -1),
	W(ST, "gpt_oss", "model.layers.23.mlp.experts.down_proj_scales", QUANT_AUX, 23, -1),
	B(ST, "gpt_oss", "model.layers.23.mlp.experts.down_proj_bias", MOE_DOWN, 23, -1),
	W(ST, "gpt_oss", "model.layers.23.mlp.experts.gate_up_proj", MOE_GATE_UP, 23, -1),
	B(ST, "gpt_oss", "model.layers.23.self_attn.q_proj.bias", ATTN_Q, 23, -1),
	/* ---- granitemoe ---- */
	W(ST, "granitemoe", "model.layers.0.block_sparse_moe.input_linear.weight", MOE_GATE_UP, 0, -1),
	W(ST, "granitemoe", "model.layers.0.block_sparse_moe.output_linear.weight", MOE_DOWN, 0, -1),
	W(ST, "granitemoe", "model.layers.0.block_sparse_moe.router.layer.weight", MOE_ROUTER, 0, -1),
	/* ---- PEFT LoRA ---- */
	W(ST, "llama", "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight", LORA_A, 0, -1),
	W(ST, "llama", "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight", LORA_B, 0, -1),
	W(ST, "llama", "base_model.model.model.layers.17.mlp.down_proj.lora_A.weight", LORA_A, 17, -1),
	W(ST, "mixtral", "base_model.model.model.layers.2.block_sparse_moe.experts.3.w1.lora_B.weight", LORA_B, 2, 3),
	W(ST, "llama", "base_model.model.model.embed_tokens.lora_embedding_A", LORA_EMBED_A, -1, -1),
	W(ST, "llama", "base_model.model.model.embed_tokens.lora_embedding_B", LORA_EMBED_B, -1, -1),
	W(ST, "mistral", "base_model.model.model.layers.4.self_attn.k_proj.lora_magnitude_vector", LORA_MAGNITUDE, 4, -1),
	W(ST, "mistral", "base_model.model.model.layers.4.mlp.up_proj.lora_magnitude_vector.weight", LORA_MAGNITUDE, 4, -1),
	W(ST, "", "model.layers.30.self_attn.q_proj.lora_a", LORA_A, 30, -1),
	W(ST, "", "model.layers.30.mlp.down_proj.lora_b", LORA_B, 30, -1),
	W(ST, "", "lora_unet_down_blocks_1_attentions_0_transformer_blocks_0_attn1_to_q.lora_down.weight", LORA_A, -1, -1),
	W(ST, "", "lora_unet_down_blocks_1_attentions_0_transformer_blocks_0_attn1_to_q.lora_up.weight", LORA_B, -1, -1),
	W(ST, "", "lora_te1_text_model_encoder_layers_0_self_attn_q_proj.alpha", LORA_ALPHA, -1, -1),
	W(ST, "", "lora_unet_input_blocks_4_1_proj_in.hada_w1_a", LORA_A, -1, -1),
	W(ST, "", "lora_unet_input_blocks_4_1_proj_in.lokr_w2", LORA_B, -1, -1),
	W(ST, "llama", "base_model.model.lm_head.lora_B.weight", LORA_B, -1, -1),
	W(ST, "gpt2", "base_model.model.transformer.h.3.attn.c_attn.lora_A.weight", LORA_A, 3, -1),
	/* ---- buffers ---- */
	W(ST, "", "model.embeddings.position_ids", BUFFER, -1, -1),
	W(ST, "", "position_ids", BUFFER, -1, -1),
	/* ---- quantization side tensors ---- */
	/* GPTQ / AWQ */
	W(ST, "llama", "model.layers.0.self_attn.q_proj.qweight", ATTN_Q, 0, -1),
	W(ST, "llama", "model.layers.0.self_attn.q_proj.qzeros", QUANT_AUX, 0, -1),
	W(ST, "llama", "model.layers.0.self_attn.q_proj.scales", QUANT_AUX, 0, -1),
	W(ST, "llama", "model.layers.0.self_attn.q_proj.g_idx", QUANT_AUX, 0, -1),
	B(ST, "llama", "model.layers.0.self_attn.q_proj.bias", ATTN_Q, 0, -1),
	W(ST, "llama", "model.layers.9.mlp.down_proj.zeros", QUANT_AUX, 9, -1),
	/* compressed-tensors */
	W(ST, "llama", "model.layers.1.mlp.up_proj.weight_packed", FFN_UP, 1, -1),
	W(ST, "llama", "model.layers.1.mlp.up_proj.weight_scale", QUANT_AUX, 1, -1),
	W(ST, "llama", "model.layers.1.mlp.up_proj.weight_shape", QUANT_AUX, 1, -1),
	W(ST, "llama", "model.layers.1.mlp.up_proj.weight_zero_point", QUANT_AUX, 1, -1),
	W(ST, "llama", "model.layers.1.mlp.up_proj.weight_g_idx", QUANT_AUX, 1, -1),
	W(ST, "llama", "model.layers.1.mlp.up_proj.input_scale", QUANT_AUX, 1, -1),
	W(ST, "llama", "model.layers.1.mlp.up_proj.weight_global_scale", QUANT_AUX, 1, -1),
	W(ST, "llama", "model.layers.1.self_attn.k_scale", QUANT_AUX, 1, -1),
	/* bitsandbytes */
	W(ST, "llama", "model.layers.2.self_attn.v_proj.weight", ATTN_V, 2, -1),
	W(ST, "llama", "model.layers.2.self_attn.v_proj.weight.absmax", QUANT_AUX, 2, -1),
	W(ST, "llama", "model.layers.2.self_attn.v_proj.weight.quant_map", QUANT_AUX, 2, -1),
	W(ST, "llama", "model.layers.2.self_attn.v_proj.weight.nested_absmax", QUANT_AUX, 2, -1),
	W(ST, "llama", "model.layers.2.self_attn.v_proj.weight.nested_quant_map", QUANT_AUX, 2, -1),
	W(ST, "llama", "model.layers.2.self_attn.v_proj.weight.quant_state.bitsandbytes__nf4", QUANT_AUX, 2, -1),
	W(ST, "llama", "model.layers.2.self_attn.v_proj.SCB", QUANT_AUX, 2, -1),
	/* MLX: .biases is a side tensor, .bias a parameter */
	W(ST, "llama", "model.embed_tokens.scales", QUANT_AUX, -1, -1),
	W(ST, "llama", "model.embed_tokens.biases", QUANT_AUX, -1, -1),
	W(ST, "llama", "model.layers.4.mlp.gate_proj.biases", QUANT_AUX, 4, -1),
	B(ST, "qwen2", "model.layers.4.self_attn.q_proj.bias", ATTN_Q, 4, -1),
	W(ST, "llama", "lm_head.scales", QUANT_AUX, -1, -1),
	/* FP8 */
	W(ST, "llama", "model.layers.5.self_attn.o_proj.weight_scale_inv", QUANT_AUX, 5, -1),
	/* unknown names: other, keeping the block index */
	W(ST, "llama", "model.layers.6.some_new_thing.weight", OTHER, 6, -1),
	B(ST, "llama", "model.layers.6.some_new_thing.bias", OTHER, 6, -1),
	W(ST, "llama", "totally.unknown.tensor", OTHER, -1, -1),
	W(ST, "llama", "model.layers.x.self_attn.q_proj.weight", OTHER, -1, -1),
	W(ST, "llama", "model.layers.1234567890.self_attn.q_proj.weight", OTHER, -1, -1),
	/* an arch-specific line does not apply to other architectures */
	W(ST, "gemma2_not", "model.layers.1.post_attention_layernorm.weight", FFN_NORM, 1, -1),
	W(ST, "GEMMA-2", "model.layers.1.post_attention_layernorm.weight", ATTN_POST_NORM, 1, -1),

	/* ---- GGUF ---- */
	W(GF, "llama", "token_embd.weight", EMBED, -1, -1),
	W(GF, "llama", "output_norm.weight", FINAL_NORM, -1, -1),
	W(GF, "llama", "output.weight", LM_HEAD, -1, -1),
	W(GF, "llama", "rope_freqs.weight", BUFFER, -1, -1),
	W(GF, "phi3", "rope_factors_long.weight", BUFFER, -1, -1),
	W(GF, "phi3", "rope_factors_short.weight", BUFFER, -1, -1),
	W(GF, "llama", "blk.0.attn_norm.weight", ATTN_NORM, 0, -1),
	W(GF, "llama", "blk.0.attn_q.weight", ATTN_Q, 0, -1),
	W(GF, "llama", "blk.0.attn_k.weight", ATTN_K, 0, -1),
	W(GF, "llama", "blk.0.attn_v.weight", ATTN_V, 0, -1),
	W(GF, "llama", "blk.0.attn_output.weight", ATTN_O, 0, -1),
	W(GF, "llama", "blk.31.ffn_norm.weight", FFN_NORM, 31, -1),
	W(GF, "llama", "blk.31.ffn_gate.weight", FFN_GATE, 31, -1),
	W(GF, "llama", "blk.31.ffn_up.weight", FFN_UP, 31, -1),
	W(GF, "llama", "blk.31.ffn_down.weight", FFN_DOWN, 31, -1),
	B(GF, "qwen2", "blk.3.attn_q.bias", ATTN_Q, 3, -1),
	W(GF, "qwen3", "blk.3.attn_q_norm.weight", ATTN_Q_NORM, 3, -1),
	W(GF, "qwen3", "blk.3.attn_k_norm.weight", ATTN_K_NORM, 3, -1),
	W(GF, "gpt2", "position_embd.weight", POS_EMBED, -1, -1),
	W(GF, "gpt2", "blk.2.attn_qkv.weight", ATTN_QKV, 2, -1),
	B(GF, "gpt2", "blk.2.attn_qkv.bias", ATTN_QKV, 2, -1),
	W(GF, "gpt2", "blk.2.ffn_up.weight", FFN_UP, 2, -1),
	W(GF, "bloom", "token_embd_norm.weight", EMBED_NORM, -1, -1),
	B(GF, "bloom", "token_embd_norm.bias", EMBED_NORM, -1, -1),
	W(GF, "phi3", "blk.4.ffn_up.weight", FFN_GATE_UP, 4, -1),
	W(GF, "phi3", "blk.4.attn_qkv.weight", ATTN_QKV, 4, -1),
	W(GF, "phi2", "blk.4.ffn_up.weight", FFN_UP, 4, -1),
	B(GF, "phi2", "output.bias", LM_HEAD, -1, -1),
	W(GF, "chatglm", "blk.4.ffn_up.weight", FFN_GATE_UP, 4, -1),
	W(GF, "glm4", "blk.4.ffn_up.weight", FFN_GATE_UP, 4, -1),
	W(GF, "falcon", "blk.1.attn_norm.weight", ATTN_NORM, 1, -1),
	B(GF, "falcon", "blk.1.attn_norm_2.bias", FFN_NORM, 1, -1),
	W(GF, "gemma2", "blk.1.post_attention_norm.weight", ATTN_POST_NORM, 1, -1),
	W(GF, "gemma2", "blk.1.post_ffw_norm.weight", FFN_POST_NORM, 1, -1),
	W(GF, "gemma2", "blk.1.ffn_norm.weight", FFN_NORM, 1, -1),
	W(GF, "gpt-oss", "blk.0.attn_sinks.weight", ATTN_SINKS, 0, -1),
	W(GF, "gpt-oss", "blk.0.ffn_gate_up_exps.weight", MOE_GATE_UP, 0, -1),
	B(GF, "gpt-oss", "blk.0.ffn_down_exps.bias", MOE_DOWN, 0, -1),
	B(GF, "gpt-oss", "blk.0.ffn_gate_inp.bias", MOE_ROUTER, 0, -1),
	/* MLA */
	W(GF, "deepseek2", "blk.0.attn_q_a.weight", ATTN_Q_A, 0, -1),
	W(GF, "deepseek2", "blk.0.attn_q_a_norm.weight", ATTN_Q_A_NORM, 0, -1),
	W(GF, "deepseek2", "blk.0.attn_q_b.weight", ATTN_Q_B, 0, -1),
	W(GF, "deepseek2", "blk.0.attn_kv_a_mqa.weight", ATTN_KV_A, 0, -1),
	W(GF, "deepseek2", "blk.0.attn_kv_a_norm.weight", ATTN_KV_A_NORM, 0, -1),
	W(GF, "deepseek2", "blk.0.attn_kv_b.weight", ATTN_KV_B, 0, -1),
	W(GF, "deepseek2", "blk.0.attn_k_b.weight", ATTN_KV_B, 0, -1),
	W(GF, "deepseek32", "blk.5.indexer.attn_q_b.weight", ATTN_IDX_Q_B, 5, -1),
	W(GF, "deepseek32", "blk.5.indexer.attn_k.weight", ATTN_IDX_K, 5, -1),
	B(GF, "deepseek32", "blk.5.indexer.k_norm.bias", ATTN_IDX_K_NORM, 5, -1),
	W(GF, "deepseek32", "blk.5.indexer.proj.weight", ATTN_IDX_PROJ, 5, -1),
	W(GF, "deepseek2", "blk.0.attn_v_b.weight", ATTN_KV_B, 0, -1),
	/* MoE */
	W(GF, "deepseek2", "blk.5.ffn_gate_inp.weight", MOE_ROUTER, 5, -1),
	B(GF, "deepseek2", "blk.5.exp_probs_b.bias", MOE_ROUTER_BIAS, 5, -1),
	W(GF, "deepseek2", "blk.5.ffn_gate_exps.weight", MOE_GATE, 5, -1),
	W(GF, "deepseek2", "blk.5.ffn_up_exps.weight", MOE_UP, 5, -1),
	W(GF, "deepseek2", "blk.5.ffn_down_exps.weight", MOE_DOWN, 5, -1),
	W(GF, "deepseek2", "blk.5.ffn_gate_shexp.weight", MOE_SHARED_GATE, 5, -1),
	W(GF, "deepseek2", "blk.5.ffn_up_shexp.weight", MOE_SHARED_UP, 5, -1),
	W(GF, "deepseek2", "blk.5.ffn_down_shexp.weight", MOE_SHARED_DOWN, 5, -1),
	W(GF, "qwen2moe", "blk.5.ffn_gate_inp_shexp.weight", MOE_SHARED_ROUTER, 5, -1),
	W(GF, "llama", "blk.7.ffn_gate.3.weight", MOE_GATE, 7, 3),
	W(GF, "llama", "blk.7.ffn_up.3.weight", MOE_UP, 7, 3),
	W(GF, "llama", "blk.7.ffn_down.0.weight", MOE_DOWN, 7, 0),
	/* LoRA GGUF */
	W(GF, "llama", "blk.3.attn_q.weight.lora_a", LORA_A, 3, -1),
	W(GF, "llama", "blk.3.attn_q.weight.lora_b", LORA_B, 3, -1),
	W(GF, "llama", "token_embd.weight.lora_a", LORA_A, -1, -1),
	/* llama.cpp's state-space and short-convolution mixers; Qwen3-Next's
	 * Gated DeltaNet under them; LFM2's final norm */
	W(GF, "mamba", "blk.0.ssm_conv1d.weight", SSM_CONV, 0, -1),
	W(GF, "mamba", "blk.2.ssm_a", SSM_A, 2, -1),
	W(GF, "jamba", "blk.1.ssm_dt_norm.weight", SSM_NORM, 1, -1),
	W(GF, "qwen3next", "blk.0.attn_qkv.weight", LINATTN_QKVZ, 0, -1),
	W(GF, "qwen3next", "blk.0.attn_gate.weight", LINATTN_QKVZ, 0, -1),
	W(GF, "qwen3next", "blk.0.ssm_conv1d.weight", LINATTN_CONV, 0, -1),
	W(GF, "lfm2", "blk.0.shortconv.in_proj.weight", SSM_IN, 0, -1),
	W(GF, "lfm2", "token_embd_norm.weight", FINAL_NORM, -1, -1),
	/* unknown */
	W(GF, "llama", "x.blk.0.attn_q.weight", OTHER, -1, -1),
	/* a vision file's (mmproj) tower */
	W(GF, "clip", "v.blk.0.attn_q.weight", ATTN_Q, 0, -1),
	W(GF, "clip", "v.blk.3.ln2.weight", FFN_NORM, 3, -1),
	W(GF, "clip", "v.class_embd", CLS_TOKEN, -1, -1),
	/* HF names in a GGUF are not GGUF names */
	W(GF, "llama", "model.layers.0.self_attn.q_proj.weight", OTHER, -1, -1),
	/* and GGUF names in a safetensors file are not HF names */
	W(ST, "llama", "blk.0.attn_q.weight", OTHER, -1, -1),
};

#define N_ROWS (sizeof rows / sizeof rows[0])
#define S(lit) { lit, sizeof lit - 1 }

static bool
row_ok(const row *r, ws_role role, int32_t layer, int32_t expert, ws_kind kind)
{
	bool ok = role == r->role && layer == r->layer && expert == r->expert &&
		  kind == r->kind;
	if (!ok)
		cr_log_error("%s [%s] %s: got %s L%d E%d %s, want %s L%d E%d %s",
			     r->fmt == GF ? "gguf" : "hf", r->arch, r->name,
			     ws_role_name(role), layer, expert,
			     kind == WS_KIND_BIAS ? "bias" : "weight",
			     ws_role_name(r->role), r->layer, r->expert,
			     r->kind == WS_KIND_BIAS ? "bias" : "weight");
	return ok;
}

Test(roles, names_round_trip)
{
	/* SPEC "Roles", and the indexer's four and xIELU's (ffn_act); the
	 * encoders' (type_embed and the five of their heads), projector;
	 * image encoders' patch_embed and cls_token; dual encoders' attn_pool,
	 * logit_scale and logit_bias; the state-space and linear-attention
	 * mixers'; adapters' magnitudes, embedding factors and alphas; DINOv2's
	 * mask_token, register_tokens and layer_scale; encoder-decoders'
	 * xattn_q/k/v/o, xattn_norm, rel_pos_bias and conv (UNets' attn2 and
	 * convolutions too); diffusion networks' norm, time_embed,
	 * cond_embed and adaln; Mllama's xattn_gate */
	cr_assert_eq(WS_ROLE_COUNT, 94);
	for (int r = 0; r < WS_ROLE_COUNT; r++) {
		const char *n = ws_role_name((ws_role)r);
		cr_assert_not_null(n);
		cr_assert_eq(ws_role_from_name(n), r, "%s", n);
	}
	cr_assert_str_eq(ws_role_name(WS_ROLE_ATTN_KV_B), "attn_kv_b");
	cr_assert_str_eq(ws_role_name(WS_ROLE_MOE_SHARED_ROUTER), "moe_shared_router");
	cr_assert_str_eq(ws_role_name(WS_ROLE_QUANT_AUX), "quant_aux");
	cr_assert_str_eq(ws_role_name(WS_ROLE_COUNT), "other");
	cr_assert_eq(ws_role_from_name("attn_x"), -1);
	cr_assert_eq(ws_role_from_name(""), -1);
	cr_assert_eq(ws_role_from_name(NULL), -1);
	cr_assert_gt(ws_role_table_size(), 150);
}

Test(roles, table_single_names)
{
	int bad = 0;
	for (size_t i = 0; i < N_ROWS; i++) {
		const row *r = &rows[i];
		ws_role role;
		int32_t layer, expert;
		ws_kind kind;
		int rc = ws_role_classify(r->fmt, r->arch, r->name,
					  strlen(r->name), &role, &layer,
					  &expert, &kind);
		cr_assert_eq(rc, role != WS_ROLE_OTHER);
		if (!row_ok(r, role, layer, expert, kind))
			bad++;
	}
	cr_assert_eq(bad, 0, "%d of %zu names misclassified", bad, N_ROWS);
}

/* A model holding the given names, each with `elements` elements. */
static ws_model *
model_of(ws_format fmt, const char *arch, const char *const *names, size_t n,
	 uint64_t elements)
{
	ws_model *m = ws_model_new("test");
	cr_assert_not_null(m);
	m->format = fmt;
	snprintf(m->arch_name, sizeof m->arch_name, "%s", arch);
	for (size_t i = 0; i < n; i++) {
		ws_tensor *t = ws_model_push_tensor(m);
		cr_assert_not_null(t);
		size_t len = strlen(names[i]);
		t->name = ws_model_strndup(m, names[i], len);
		t->name_len = (uint32_t)len;
		t->elements = elements;
		t->role = WS_ROLE_COUNT;  /* must be overwritten */
		t->layer = t->expert = 99;
	}
	return m;
}

/* Every row again through ws_roles_assign: one model per (format, arch),
 * each name present three times so the cache is hit. */
Test(roles, table_assign)
{
	int bad = 0;
	for (size_t i = 0; i < N_ROWS; i++) {
		const row *r = &rows[i];
		const char *names[3] = { r->name, r->name, r->name };
		ws_model *m = model_of(r->fmt, r->arch, names, 3, 10);
		cr_assert_eq(ws_roles_assign(m, -1), 0);
		for (uint64_t k = 0; k < m->n_tensors; k++) {
			ws_tensor *t = &m->tensors[k];
			if (!row_ok(r, t->role, t->layer, t->expert, t->kind))
				bad++;
			bool counted = t->role != WS_ROLE_BUFFER &&
				       t->role != WS_ROLE_QUANT_AUX;
			cr_assert_eq(t->params, counted ? 10u : 0u, "%s", r->name);
		}
		ws_model_free(m);
	}
	cr_assert_eq(bad, 0, "%d misclassified through ws_roles_assign", bad);
}

/* The skeleton cache must give each name its own digits. */
Test(roles, cache_keeps_indices)
{
	/* name = a <layer> b [<expert> c] */
	static const struct { const char *a, *b, *c; } kinds[] = {
		{ "model.layers.", ".self_attn.q_proj.weight", NULL },
		{ "model.layers.", ".block_sparse_moe.experts.", ".w1.weight" },
		{ "model.layers.", ".block_sparse_moe.experts.", ".w2.weight" },
		{ "model.layers.", ".mlp.experts.", ".down_proj.weight_scale_inv" },
		{ "model.layers.", ".input_layernorm.weight", NULL },
		{ "base_model.model.model.layers.", ".mlp.experts.", ".up_proj.lora_A.weight" },
		{ "model.layers.", ".weird.", ".thing" },
	};

	enum { NL = 40, NE = 8, NK = sizeof kinds / sizeof kinds[0] };
	static char buf[NL * NE * NK][128];
	const char *names[NL * NE * NK];
	size_t n = 0;
	for (int l = 0; l < NL; l++)
		for (int e = 0; e < NE; e++)
			for (size_t k = 0; k < NK; k++) {
				if (kinds[k].c)
					snprintf(buf[n], sizeof buf[n], "%s%d%s%d%s",
						 kinds[k].a, l, kinds[k].b, e,
						 kinds[k].c);
				else
					snprintf(buf[n], sizeof buf[n], "%s%d%s",
						 kinds[k].a, l, kinds[k].b);
				names[n] = buf[n];
				n++;
			}
	ws_model *m = model_of(WS_FORMAT_SAFETENSORS, "mixtral", names, n, 1);
	cr_assert_eq(ws_roles_assign(m, -1), 0);
	for (size_t i = 0; i < n; i++) {
		ws_role role;
		int32_t layer, expert;
		ws_kind kind;
		ws_role_classify(WS_FORMAT_SAFETENSORS, "mixtral", names[i],
				 strlen(names[i]), &role, &layer, &expert, &kind);
		ws_tensor *t = &m->tensors[i];
		cr_assert_eq(t->role, role, "%s", names[i]);
		cr_assert_eq(t->layer, layer, "%s", names[i]);
		cr_assert_eq(t->expert, expert, "%s", names[i]);
		cr_assert_eq(t->kind, kind, "%s", names[i]);
		cr_assert_eq(t->layer, (int32_t)(i / (NE * NK)), "%s", names[i]);
	}
	/* spot checks of the expectations themselves */
	cr_assert_eq(m->tensors[NK * NE * 5 + NK * 3 + 1].role, WS_ROLE_MOE_GATE);
	cr_assert_eq(m->tensors[NK * NE * 5 + NK * 3 + 1].expert, 3);
	cr_assert_eq(m->tensors[NK * NE * 7 + NK * 6 + 3].role, WS_ROLE_QUANT_AUX);
	cr_assert_eq(m->tensors[NK * NE * 7 + NK * 6 + 3].expert, 6);
	cr_assert_eq(m->tensors[NK * NE * 7 + NK * 6 + 5].role, WS_ROLE_LORA_A);
	cr_assert_eq(m->tensors[NK * NE * 7 + NK * 6 + 5].expert, 6);
	cr_assert_eq(m->tensors[NK * NE * 7 + NK * 6 + 6].role, WS_ROLE_OTHER);
	cr_assert_eq(m->tensors[NK * NE * 7 + NK * 6 + 6].expert, -1);
	ws_model_free(m);
}

/* ws_roles_assign answers a name of a shape it has just seen by comparing
 * it with the last such name; names of one length that differ outside a
 * digit segment (w1/w2, 1a/12, seven digits) or only by their numbers,
 * in turn and shuffled, must all get what the single-name path gives. */
Test(roles, shape_slots_agree)
{
	/* a <n> b <m> c */
	static const struct { const char *a, *b, *c; } forms[] = {
		{ "model.layers.", ".block_sparse_moe.experts.", ".w1.weight" },
		{ "model.layers.", ".block_sparse_moe.experts.", ".w2.weight" },
		{ "model.layers.", ".block_sparse_moe.experts.", ".w3.weight" },
		{ "model.layers.", ".mlp.experts.", ".gate_proj.weight" },
		{ "model.layers.", ".mlp.experts.", ".down_proj.weight" },
		{ "model.layers.", ".mlp.experts.", ".up_proj.weight_scale" },
		{ "model.layers.", ".mlp.experts.", "a.up_proj.weight" },
		{ "model.layers.", ".mlp.experts.a", ".up_proj.weight" },
		{ "model.layers.", ".mlp.experts.", "0000.up_proj.weight" },
		{ "model.layers.", ".x", ".self_attn.q_proj.weight" },
		{ "model.layers.", ".", ".self_attn.q_proj.weight" },
		{ "layers.", ".", "" },
		{ "h.", ".attn.c_attn.weight", "" },
		{ "blk.", ".ffn_gate.", ".weight" },
	};
	enum { NF = sizeof forms / sizeof forms[0], N = 6000 };
	static char buf[N][96];
	const char *names[N];
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < N; i++) {
		/* runs in turn for the first half, then at random */
		size_t f = i < N / 2 ? i % NF : 0;
		int a = (int)(i / NF % 12), b = (int)(i / NF / 12 % 130);
		if (i >= N / 2) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			f = (size_t)(x % NF);
			a = (int)(x >> 20) % 13 * ((x >> 40) % 2 ? 1 : 99);
			b = (int)(x >> 30) % 1100;
		}
		snprintf(buf[i], sizeof buf[i], "%s%d%s%d%s", forms[f].a, a, forms[f].b, b,
			 forms[f].c);
		names[i] = buf[i];
	}
	for (int fmt = 0; fmt < 2; fmt++) {
		ws_model *m = model_of((ws_format)fmt, "mixtral", names, N, 1);
		cr_assert_eq(ws_roles_assign(m, -1), 0);
		for (size_t i = 0; i < N; i++) {
			ws_role role;
			int32_t layer, expert;
			ws_kind kind;
			ws_role_classify((ws_format)fmt, "mixtral", names[i], strlen(names[i]),
					 &role, &layer, &expert, &kind);
			ws_tensor *t = &m->tensors[i];
			cr_assert_eq(t->role, role, "%s", names[i]);
			cr_assert_eq(t->layer, layer, "%s", names[i]);
			cr_assert_eq(t->expert, expert, "%s", names[i]);
			cr_assert_eq(t->kind, kind, "%s", names[i]);
		}
		ws_model_free(m);
	}
}

/* DeepSeek-V3: model.layers.<num_hidden_layers> is the MTP layer. */
Test(roles, mtp_layer)
{
	static const char *const names[] = {
		"model.layers.60.mlp.gate.weight",
		"model.layers.61.self_attn.q_a_proj.weight",
		"model.layers.61.embed_tokens.weight",
		"model.layers.61.enorm.weight",
		"model.layers.61.eh_proj.weight",
		"model.layers.61.shared_head.head.weight",
		"model.layers.61.self_attn.q_a_proj.weight_scale_inv",
		"model.layers.61.self_attn.rotary_emb.inv_freq",
		"model.norm.weight",
	};
	static const ws_role want[] = {
		WS_ROLE_MOE_ROUTER, WS_ROLE_MTP, WS_ROLE_MTP, WS_ROLE_MTP,
		WS_ROLE_MTP, WS_ROLE_MTP, WS_ROLE_QUANT_AUX, WS_ROLE_BUFFER,
		WS_ROLE_FINAL_NORM,
	};
	size_t n = sizeof names / sizeof names[0];
	ws_model *m = model_of(WS_FORMAT_SAFETENSORS, "deepseek_v3", names, n, 7);
	cr_assert_eq(ws_roles_assign(m, 61), 0);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(m->tensors[i].role, want[i], "%s: %s", names[i],
			     ws_role_name(m->tensors[i].role));
		cr_assert_eq(m->tensors[i].params,
			     want[i] == WS_ROLE_QUANT_AUX || want[i] == WS_ROLE_BUFFER ? 0u : 7u);
	}
	cr_assert_eq(m->tensors[1].layer, 61);
	/* without the layer count, the same tensors keep their own roles */
	cr_assert_eq(ws_roles_assign(m, -1), 0);
	cr_assert_eq(m->tensors[1].role, WS_ROLE_ATTN_Q_A);
	cr_assert_eq(m->tensors[3].role, WS_ROLE_OTHER);
	cr_assert_eq(m->tensors[3].layer, 61);
	/* a zero layer count means unknown, not "every block is MTP" */
	cr_assert_eq(ws_roles_assign(m, 0), 0);
	cr_assert_eq(m->tensors[1].role, WS_ROLE_ATTN_Q_A);
	cr_assert_eq(m->tensors[0].role, WS_ROLE_MOE_ROUTER);
	ws_model_free(m);
}

/* Names are untrusted bytes: nothing crashes, results stay in range, and
 * the cached path agrees with the single-name path. */
Test(roles, hostile_names)
{
	static char longname[4096];
	memset(longname, 'a', sizeof longname - 1);
	memcpy(longname, "model.layers.1.", 15);
	static char manydigits[512];
	size_t o = 0;
	o += (size_t)snprintf(manydigits + o, sizeof manydigits - o, "layers");
	for (int i = 0; i < 40; i++)
		o += (size_t)snprintf(manydigits + o, sizeof manydigits - o, ".%d", i);
	static const struct { const char *s; size_t len; } odd[] = {
		S(""),
		S("."),
		S(".."),
		S("layers."),
		S("layers.0"),
		S("layers.0."),
		S("blk."),
		S("blk.0"),
		S("model."),
		S("model.model.model."),
		S("{B}{K}*"),
		S("model.layers.\xff#.self_attn.q_proj.weight"),
		S("model.layers.\0.self_attn.q_proj.weight"),
		S("model.layers.0\0.self_attn.q_proj.weight"),
		S("model.layers.0.self_attn.q_proj.weight\0"),
		S("\xff\xfe\xff\xff"),
		S("layers.-1.self_attn.q_proj.weight"),
		S("layers.+1.self_attn.q_proj.weight"),
		S("layers.999999.self_attn.q_proj.weight"),
		S("layers.0000000001.self_attn.q_proj.weight"),
		S("*"),
		S("weight"),
		S(".weight"),
		S("model.weight"),
	};
	size_t n_odd = sizeof odd / sizeof odd[0];
	size_t n = n_odd + 2;
	ws_model *m = ws_model_new("hostile");
	cr_assert_not_null(m);
	for (int fmt = 0; fmt < 2; fmt++) {
		m->format = (ws_format)fmt;
		m->n_tensors = 0;
		for (size_t i = 0; i < n; i++) {
			ws_tensor *t = ws_model_push_tensor(m);
			const char *s = i < n_odd ? odd[i].s : i == n_odd ? longname : manydigits;
			size_t len = i < n_odd ? odd[i].len : strlen(s);
			t->name = ws_model_strndup(m, s, len);
			t->name_len = (uint32_t)len;
			t->elements = 1;
		}
		snprintf(m->arch_name, sizeof m->arch_name, "llama");
		cr_assert_eq(ws_roles_assign(m, 2), 0);
		for (size_t i = 0; i < n; i++) {
			ws_tensor *t = &m->tensors[i];
			cr_assert_lt((int)t->role, WS_ROLE_COUNT);
			cr_assert_geq(t->layer, -1);
			cr_assert_geq(t->expert, -1);
			ws_role role;
			int32_t layer, expert;
			ws_role_classify((ws_format)fmt, "llama", t->name,
					 t->name_len, &role, &layer, &expert, NULL);
			if (!(layer >= 2 && role != WS_ROLE_QUANT_AUX))
				cr_assert_eq(t->role, role, "#%zu", i);
			cr_assert_eq(t->layer, layer, "#%zu", i);
			cr_assert_eq(t->expert, expert, "#%zu", i);
		}
	}
	/* specific answers */
	ws_role role;
	int32_t layer;
	ws_role_classify(WS_FORMAT_SAFETENSORS, NULL, odd[11].s, odd[11].len,
			 &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_OTHER);   /* "\xff#" is not a digit segment */
	cr_assert_eq(layer, -1);
	ws_role_classify(WS_FORMAT_SAFETENSORS, NULL, odd[18].s, odd[18].len,
			 &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_ATTN_Q);  /* six digits are still a layer */
	cr_assert_eq(layer, 999999);
	ws_role_classify(WS_FORMAT_SAFETENSORS, NULL, odd[19].s, odd[19].len,
			 &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_OTHER);   /* ten digits are not */
	ws_role_classify(WS_FORMAT_SAFETENSORS, NULL, "layers.1000000.self_attn.q_proj.weight", 38,
			 &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_OTHER);   /* nor seven: no index may size the layer arrays */
	cr_assert_eq(layer, -1);
	ws_role_classify(WS_FORMAT_SAFETENSORS, NULL, odd[12].s, odd[12].len,
			 &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_OTHER);   /* NUL inside the layer segment */
	ws_role_classify(WS_FORMAT_SAFETENSORS, NULL, longname, strlen(longname),
			 &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_OTHER);
	cr_assert_eq(layer, -1);             /* too long to be matched at all */
	cr_assert_eq(ws_role_classify(WS_FORMAT_GGUF, "", NULL, 5, NULL, NULL,
				      NULL, NULL), 0);
	ws_model_free(m);
}

/* Real files written by the reference writers: every tensor has a role. */
Test(roles, realdata_tiny_llama)
{
	char *path = ws_shared_path("safetensors/tiny-llama-f32.safetensors");
	if (!path)
		cr_skip_test("../shared/realdata is absent");
	ws_model *m = NULL;
	ws_error err = { 0 };
	cr_assert_eq(ws_model_open(path, NULL, &m, &err), 0, "%s", err.message);
	snprintf(m->arch_name, sizeof m->arch_name, "llama");
	cr_assert_eq(ws_roles_assign(m, 2), 0);
	uint64_t params = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		cr_assert_neq(t->role, WS_ROLE_OTHER, "%s", t->name);
		cr_assert_neq(t->role, WS_ROLE_MTP, "%s", t->name);
		cr_assert_lt(t->layer, 2);
		params += t->params;
	}
	cr_assert_eq(params, 108864u);  /* the config's analytic count */
	ws_model_free(m);
	free(path);
}

Test(roles, realdata_tiny_moe_gguf)
{
	char *path = ws_shared_path("gguf/tiny-moe-gguf-py.gguf");
	if (!path)
		cr_skip_test("../shared/realdata is absent");
	ws_model *m = NULL;
	ws_error err = { 0 };
	cr_assert_eq(ws_model_open(path, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_roles_assign(m, -1), 0);
	uint64_t params = 0;
	int seen[WS_ROLE_COUNT] = { 0 };
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		cr_assert_neq(t->role, WS_ROLE_OTHER, "%s", t->name);
		seen[t->role]++;
		params += t->params;
	}
	cr_assert_gt(seen[WS_ROLE_MOE_ROUTER], 0);
	cr_assert_gt(seen[WS_ROLE_MOE_GATE], 0);
	cr_assert_gt(seen[WS_ROLE_MOE_UP], 0);
	cr_assert_gt(seen[WS_ROLE_MOE_DOWN], 0);
	cr_assert_eq(seen[WS_ROLE_LM_HEAD], 0);  /* tied output */
	cr_assert_eq(params, 90944u);            /* REFERENCE: all elements */
	ws_model_free(m);
	free(path);
}

/* ==== matcher cost ==== */

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "model.layers.0.a<i>" + `rep` x 98 + tail, about 1 KB. */
static size_t
crafted(char *buf, size_t cap, size_t i, const char *rep, const char *tail)
{
	size_t n = (size_t)snprintf(buf, cap, "model.layers.0.a%zu", i);
	for (int k = 0; k < 98; k++)
		n += (size_t)snprintf(buf + n, cap - n, "%s", rep);
	n += (size_t)snprintf(buf + n, cap - n, "%s", tail);
	cr_assert_lt(n, (size_t)WS_ROLE_MAX_NAME, "crafted name too long: %zu", n);
	return n;
}

static double
classify_many(const char *rep, const char *tail, size_t count)
{
	char name[WS_ROLE_MAX_NAME + 64];
	double t0 = now_s();
	for (size_t i = 0; i < count; i++) {
		size_t n = crafted(name, sizeof name, i, rep, tail);
		ws_role role;
		ws_role_classify(WS_FORMAT_SAFETENSORS, "llama", name, n, &role, NULL, NULL, NULL);
	}
	return now_s() - t0;
}

/* Review: names full of ".experts.1" made the two-star LoRA lines
 * backtrack over every pair of dots (20k such names took 5.5 s).  The
 * matcher now remembers where each star failed; the crafted names cost
 * about what benign names of the same length cost, and still classify
 * as before. */
Test(roles, crafted_star_names_are_linear, .timeout = 120)
{
	char name[WS_ROLE_MAX_NAME + 64];
	ws_role role;
	int32_t layer, expert;
	ws_kind kind;
	size_t n = crafted(name, sizeof name, 7, ".experts.1", ".lora_A.weight");
	ws_role_classify(ST, "llama", name, n, &role, &layer, &expert, &kind);
	cr_assert_eq(role, WS_ROLE_LORA_A);
	cr_assert_eq(layer, 0);
	cr_assert_eq(expert, 1);
	cr_assert_eq(kind, WS_KIND_WEIGHT);
	n = crafted(name, sizeof name, 7, ".experts.1", ".lora_X");
	ws_role_classify(ST, "llama", name, n, &role, &layer, NULL, NULL);
	cr_assert_eq(role, WS_ROLE_OTHER);
	cr_assert_eq(layer, 0);

	const size_t count = 4000;
	double benign = classify_many(".zzzzzzzzz", ".lora_X", count);
	double hostile = classify_many(".experts.1", ".lora_X", count);
	cr_log_info("%zu ~1 KB names: benign %.3f s, crafted %.3f s (%.1fx)", count, benign,
		    hostile, hostile / benign);
	/* was ~7x; a small factor is left for the extra candidate dots */
	cr_expect_lt(hostile, 4 * benign + 0.05, "crafted %.3f s vs benign %.3f s", hostile,
		     benign);
}
