/*
 * templates.c - the tensor templates and the quantities their shapes are
 * made of (see templates.h).
 */
#include "catalogue/templates.h"

const struct ws_qdef ws_qdefs[WS_Q_COUNT] = {
	[WS_Q_NONE] = {WS_QOP_CONST, 1, 0},
	[WS_Q_ONE] = {WS_QOP_CONST, 1, 0}, [WS_Q_TWO] = {WS_QOP_CONST, 2, 0},
	[WS_Q_D] = {WS_QOP_LEAF, WS_AK_HIDDEN, 0}, [WS_Q_V] = {WS_QOP_LEAF, WS_AK_VOCAB, 0},
	[WS_Q_P] = {WS_QOP_LEAF, WS_AK_POSITIONS, 0}, [WS_Q_F] = {WS_QOP_LEAF, WS_AK_INTER, 0},
	[WS_Q_FE] = {WS_QOP_LEAF, WS_AK_MOE_INTER, 0}, [WS_Q_E] = {WS_QOP_LEAF, WS_AK_EXPERTS, 0},
	[WS_Q_H] = {WS_QOP_LEAF, WS_AK_HEADS, 0}, [WS_Q_HKV] = {WS_QOP_LEAF, WS_AK_KV_HEADS, 0},
	[WS_Q_DK] = {WS_QOP_LEAF, WS_AK_HEAD_DIM, 0}, [WS_Q_DV] = {WS_QOP_LEAF, WS_AK_V_HEAD_DIM, 0},
	[WS_Q_QLORA] = {WS_QOP_LEAF, WS_AK_Q_LORA, 0}, [WS_Q_KVLORA] = {WS_QOP_LEAF, WS_AK_KV_LORA, 0},
	[WS_Q_NOPE] = {WS_QOP_LEAF, WS_AK_QK_NOPE, 0}, [WS_Q_ROPE] = {WS_QOP_LEAF, WS_AK_QK_ROPE, 0},
	[WS_Q_SHN] = {WS_QOP_LEAF, WS_AK_SHARED_N, 0}, [WS_Q_SHF] = {WS_QOP_LEAF, WS_AK_SHARED_INTER, 0},
	[WS_Q_IH] = {WS_QOP_LEAF, WS_AK_INDEX_HEADS, 0}, [WS_Q_IDK] = {WS_QOP_LEAF, WS_AK_INDEX_HEAD_DIM, 0},
	[WS_Q_TV] = {WS_QOP_LEAF, WS_AK_TYPE_VOCAB, 0}, [WS_Q_L] = {WS_QOP_LEAF, WS_AK_LABELS, 0},
	[WS_Q_E0] = {WS_QOP_LEAF, WS_AK_EMBED_SIZE, 0},
	[WS_Q_C] = {WS_QOP_LEAF, WS_AK_CHANNELS, 0}, [WS_Q_PS] = {WS_QOP_LEAF, WS_AK_PATCH, 0},
	[WS_Q_NP] = {WS_QOP_LEAF, WS_AK_PATCHES, 0}, [WS_Q_PO0] = {WS_QOP_LEAF, WS_AK_POOLER_OUT, 0},
	[WS_Q_RR] = {WS_QOP_LEAF, WS_AK_REL_ROWS, 0}, [WS_Q_NR] = {WS_QOP_LEAF, WS_AK_REGISTERS, 0},
	[WS_Q_HQ] = {WS_QOP_MUL, WS_Q_H, WS_Q_DK},           /* q: heads × head_dim */
	[WS_Q_HK] = {WS_QOP_MUL, WS_Q_HKV, WS_Q_DK},         /* k: kv heads × head_dim */
	[WS_Q_HV] = {WS_QOP_MUL, WS_Q_HKV, WS_Q_DV},
	[WS_Q_HO] = {WS_QOP_MUL, WS_Q_H, WS_Q_DV},           /* attention output input */
	[WS_Q_KV2] = {WS_QOP_ADD, WS_Q_HK, WS_Q_HV},
	[WS_Q_QKV] = {WS_QOP_ADD, WS_Q_HQ, WS_Q_KV2},        /* fused qkv rows */
	[WS_Q_F2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_F},          /* fused gate_up rows */
	[WS_Q_FE2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_FE},
	[WS_Q_FS] = {WS_QOP_MUL, WS_Q_SHN, WS_Q_SHF},        /* shared experts as one MLP */
	[WS_Q_KVA] = {WS_QOP_ADD, WS_Q_KVLORA, WS_Q_ROPE},   /* MLA kv_a: latent + rope key */
	[WS_Q_NOPEV] = {WS_QOP_ADD, WS_Q_NOPE, WS_Q_DV},
	[WS_Q_KVB] = {WS_QOP_MUL, WS_Q_H, WS_Q_NOPEV},       /* MLA kv_b: per head k_nope + v */
	[WS_Q_D2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_D},          /* MTP eh_proj input */
	[WS_Q_IQ] = {WS_QOP_MUL, WS_Q_IH, WS_Q_IDK},         /* indexer queries: heads × dim */
	[WS_Q_DE] = {WS_QOP_ELSE, WS_Q_E0, WS_Q_D},          /* embedding width, else d */
	[WS_Q_NP1] = {WS_QOP_ADD, WS_Q_NP, WS_Q_ONE},        /* patches and the class token */
	[WS_Q_PO] = {WS_QOP_ELSE, WS_Q_PO0, WS_Q_D},         /* pooler width, else d */
};

#define W WS_KIND_WEIGHT
#define B WS_KIND_BIAS
#define R(role) WS_ROLE_##role

const struct ws_template ws_templates[] = {
	/* the embeddings are d wide unless the type gives them their own
	 * width (then projected to d) */
	{R(EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_TOKENS), {WS_Q_V, WS_Q_DE}, NULL},
	/* an image encoder's: a convolution with the patch as its kernel
	 * and stride, a learned class token, and learned positions for
	 * every patch and the class token */
	{R(PATCH_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES), {WS_Q_D, WS_Q_C, WS_Q_PS, WS_Q_PS}, NULL},
	{R(PATCH_EMBED), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(CLS_TOKEN), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES), {WS_Q_ONE, WS_Q_ONE, WS_Q_D}, NULL},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES), {WS_Q_ONE, WS_Q_NP1, WS_Q_D}, NULL},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_LEARNED_POS), {WS_Q_P, WS_Q_DE}, NULL},
	{R(EMBED_NORM), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_EMBED_NORM, WS_TX_NORM_W), {WS_Q_DE, WS_Q_NONE}, NULL},
	{R(EMBED_NORM), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_EMBED_NORM, WS_TX_NORM_B), {WS_Q_DE, WS_Q_NONE}, NULL},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_EMBED_PROJ), {WS_Q_D, WS_Q_DE}, "embeddings_project"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_EMBED_PROJ), {WS_Q_D, WS_Q_NONE}, "embeddings_project"},
	{R(TYPE_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TYPE_EMBED), {WS_Q_TV, WS_Q_DE}, NULL},
	{R(FINAL_NORM), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_FINAL_NORM, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FINAL_NORM), B, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_FINAL_NORM, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(LM_HEAD), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_UNTIED), {WS_Q_V, WS_Q_DE}, NULL},
	{R(LM_HEAD), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_LM_HEAD_BIAS), {WS_Q_V, WS_Q_NONE}, NULL},
	/* an encoder class's parts: the decoder of its masked-LM head is
	 * the LM head above (tied unless the config unties it) */
	{R(POOLER), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_POOLER), {WS_Q_PO, WS_Q_D}, NULL},
	{R(POOLER), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_POOLER), {WS_Q_PO, WS_Q_NONE}, NULL},
	{R(MLM_TRANSFORM), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_TRANSFORM), {WS_Q_DE, WS_Q_D}, "dense"},
	{R(MLM_TRANSFORM), B, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_TRANSFORM_B), {WS_Q_DE, WS_Q_NONE}, "dense"},
	{R(MLM_TRANSFORM), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_TRANSFORM, WS_TX_NORM_W), {WS_Q_DE, WS_Q_NONE}, "norm"},
	{R(MLM_TRANSFORM), B, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_TRANSFORM, WS_TX_NORM_B), {WS_Q_DE, WS_Q_NONE}, "norm"},
	{R(MLM_BIAS), B, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_MLM_B), {WS_Q_V, WS_Q_NONE}, NULL},
	{R(NSP_HEAD), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_NSP), {WS_Q_TWO, WS_Q_D}, NULL},
	{R(NSP_HEAD), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_NSP), {WS_Q_TWO, WS_Q_NONE}, NULL},
	{R(CLASSIFIER), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CLS_DENSE), {WS_Q_D, WS_Q_D}, "dense"},
	{R(CLASSIFIER), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CLS_DENSE), {WS_Q_D, WS_Q_NONE}, "dense"},
	{R(CLASSIFIER), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CLASSIFIER), {WS_Q_L, WS_Q_D}, NULL},
	{R(CLASSIFIER), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CLASSIFIER), {WS_Q_L, WS_Q_NONE}, NULL},
	{R(CLASSIFIER), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CHOICE), {WS_Q_ONE, WS_Q_D}, NULL},
	{R(CLASSIFIER), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CHOICE), {WS_Q_ONE, WS_Q_NONE}, NULL},
	/* DINOv2's classifier reads the class token beside the mean patch */
	{R(CLASSIFIER), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CLS_CONCAT), {WS_Q_L, WS_Q_D2}, NULL},
	{R(CLASSIFIER), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CLS_CONCAT), {WS_Q_L, WS_Q_NONE}, NULL},
	/* DINOv2's mask token and register tokens (no positions of their own) */
	{R(MASK_TOKEN), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_MASK_TOKEN), {WS_Q_ONE, WS_Q_D}, NULL},
	{R(REGISTER_TOKENS), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_REGISTERS), {WS_Q_ONE, WS_Q_NR, WS_Q_D}, NULL},
	/* DeBERTa's relative positions: one table the layers share, its norm */
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_REL_EMBED), {WS_Q_RR, WS_Q_D}, "rel_embeddings"},
	{R(EMBED_NORM), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_REL_EMBED_NORM, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, "rel_embeddings norm"},
	{R(EMBED_NORM), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_REL_EMBED_NORM, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, "rel_embeddings norm"},

	{R(ATTN_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_PRE_ATTN_ALL, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_PRE_ATTN_ALL, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_NORM), W, WS_SC_LAYER1, WS_SWITCHES(WS_TX_PRE_ATTN_LATER, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_NORM), B, WS_SC_LAYER1, WS_SWITCHES(WS_TX_PRE_ATTN_LATER, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_Q), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_Q), {WS_Q_HQ, WS_Q_D}, NULL},
	{R(ATTN_Q), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_Q, WS_ARCH_QKV_BIAS), {WS_Q_HQ, WS_Q_NONE}, NULL},
	{R(ATTN_K), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_KV), {WS_Q_HK, WS_Q_D}, NULL},
	{R(ATTN_K), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_KV, WS_ARCH_QKV_BIAS), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(ATTN_V), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_KV), {WS_Q_HV, WS_Q_D}, NULL},
	{R(ATTN_V), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_KV, WS_ARCH_QKV_BIAS), {WS_Q_HV, WS_Q_NONE}, NULL},
	{R(ATTN_QKV), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_FUSED_QKV), {WS_Q_QKV, WS_Q_D}, NULL},
	{R(ATTN_QKV), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_FUSED_QKV, WS_ARCH_QKV_BIAS), {WS_Q_QKV, WS_Q_NONE}, NULL},
	{R(ATTN_Q_A), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_QLORA), {WS_Q_QLORA, WS_Q_D}, NULL},
	{R(ATTN_Q_A_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_QLORA), {WS_Q_QLORA, WS_Q_NONE}, NULL},
	{R(ATTN_Q_B), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_QLORA), {WS_Q_HQ, WS_Q_QLORA}, NULL},
	{R(ATTN_KV_A), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_MLA), {WS_Q_KVA, WS_Q_D}, NULL},
	{R(ATTN_KV_A_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_MLA), {WS_Q_KVLORA, WS_Q_NONE}, NULL},
	{R(ATTN_KV_B), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_MLA), {WS_Q_KVB, WS_Q_KVLORA}, NULL},
	/* the indexer's queries come from MLA's low-rank q */
	{R(ATTN_IDX_Q_B), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_INDEXER, WS_TX_QLORA), {WS_Q_IQ, WS_Q_QLORA}, NULL},
	{R(ATTN_IDX_K), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IDK, WS_Q_D}, NULL},
	{R(ATTN_IDX_K_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IDK, WS_Q_NONE}, NULL},
	{R(ATTN_IDX_K_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IDK, WS_Q_NONE}, NULL},
	{R(ATTN_IDX_PROJ), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IH, WS_Q_D}, NULL},
	/* DeBERTa's projections of the relative positions, unless shared */
	{R(ATTN_K), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_POS_KEY), {WS_Q_HQ, WS_Q_D}, "pos_key_proj"},
	{R(ATTN_K), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_POS_KEY), {WS_Q_HQ, WS_Q_NONE}, "pos_key_proj"},
	{R(ATTN_Q), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_POS_QUERY), {WS_Q_HQ, WS_Q_D}, "pos_query_proj"},
	{R(ATTN_Q), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_POS_QUERY), {WS_Q_HQ, WS_Q_NONE}, "pos_query_proj"},
	/* BERT relative_key(_query): a distance table per layer */
	{R(POS_EMBED), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_REL_DIST), {WS_Q_RR, WS_Q_DK}, "distance_embedding"},
	{R(ATTN_O), W, WS_SC_LAYER, WS_NO_SWITCHES, {WS_Q_D, WS_Q_HO}, NULL},
	{R(ATTN_O), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_O_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD, WS_ARCH_QK_NORM_BIAS), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_FULL), {WS_Q_HQ, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_FULL, WS_ARCH_QK_NORM_BIAS), {WS_Q_HQ, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD, WS_ARCH_QK_NORM_BIAS), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_FULL), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_QK_NORM_FULL, WS_ARCH_QK_NORM_BIAS), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(ATTN_SINKS), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_SINKS), {WS_Q_H, WS_Q_NONE}, NULL},
	{R(ATTN_POST_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_POST_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FFN_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_PRE_FFN, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FFN_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_PRE_FFN, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	/* DINOv2: a learned per-channel scale after attention and the MLP */
	{R(LAYER_SCALE), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_LAYER_SCALE), {WS_Q_D, WS_Q_NONE}, "layer_scale1"},
	{R(LAYER_SCALE), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_LAYER_SCALE), {WS_Q_D, WS_Q_NONE}, "layer_scale2"},
	{R(FFN_POST_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FFN_POST_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},

	{R(FFN_GATE), W, WS_SC_DENSE, WS_SWITCHES(WS_TX_MLP_GATE), {WS_Q_F, WS_Q_D}, NULL},
	{R(FFN_GATE), B, WS_SC_DENSE, WS_SWITCHES(WS_TX_MLP_GATE, WS_TX_UP_BIAS), {WS_Q_F, WS_Q_NONE}, NULL},
	{R(FFN_UP), W, WS_SC_DENSE, WS_SWITCHES(WS_TX_MLP_UP), {WS_Q_F, WS_Q_D}, NULL},
	{R(FFN_UP), B, WS_SC_DENSE, WS_SWITCHES(WS_TX_MLP_UP, WS_TX_UP_BIAS), {WS_Q_F, WS_Q_NONE}, NULL},
	{R(FFN_GATE_UP), W, WS_SC_DENSE, WS_SWITCHES(WS_TX_MLP_FUSED), {WS_Q_F2, WS_Q_D}, NULL},
	{R(FFN_GATE_UP), B, WS_SC_DENSE, WS_SWITCHES(WS_TX_MLP_FUSED, WS_TX_UP_BIAS), {WS_Q_F2, WS_Q_NONE}, NULL},
	{R(FFN_DOWN), W, WS_SC_DENSE, WS_NO_SWITCHES, {WS_Q_D, WS_Q_F}, NULL},
	{R(FFN_DOWN), B, WS_SC_DENSE, WS_SWITCHES(WS_ARCH_MLP_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FFN_ACT), W, WS_SC_DENSE, WS_SWITCHES(WS_ARCH_XIELU), {WS_Q_ONE, WS_Q_NONE}, "act_fn.alpha_p"},
	{R(FFN_ACT), W, WS_SC_DENSE, WS_SWITCHES(WS_ARCH_XIELU), {WS_Q_ONE, WS_Q_NONE}, "act_fn.alpha_n"},

	{R(MOE_ROUTER), W, WS_SC_MOE, WS_NO_SWITCHES, {WS_Q_E, WS_Q_D}, NULL},
	{R(MOE_ROUTER), B, WS_SC_MOE, WS_SWITCHES(WS_ARCH_ROUTER_BIAS), {WS_Q_E, WS_Q_NONE}, NULL},
	{R(MOE_ROUTER_BIAS), W, WS_SC_MOE, WS_SWITCHES(WS_ARCH_ROUTER_SCORE_BIAS), {WS_Q_E, WS_Q_NONE}, NULL},
	{R(MOE_SHARED_GATE), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED), {WS_Q_FS, WS_Q_D}, NULL},
	{R(MOE_SHARED_UP), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED), {WS_Q_FS, WS_Q_D}, NULL},
	{R(MOE_SHARED_DOWN), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED), {WS_Q_D, WS_Q_FS}, NULL},
	{R(MOE_SHARED_ROUTER), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED_GATE), {WS_Q_ONE, WS_Q_D}, NULL},
	{R(MOE_GATE), W, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_SPLIT), {WS_Q_FE, WS_Q_D}, NULL},
	{R(MOE_UP), W, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_SPLIT), {WS_Q_FE, WS_Q_D}, NULL},
	/* gpt-oss in GGUF: the converter splits the fused experts, biases too */
	{R(MOE_GATE), B, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_SPLIT, WS_ARCH_MOE_BIAS), {WS_Q_FE, WS_Q_NONE}, NULL},
	{R(MOE_UP), B, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_SPLIT, WS_ARCH_MOE_BIAS), {WS_Q_FE, WS_Q_NONE}, NULL},
	{R(MOE_GATE_UP), W, WS_SC_EXPERT, WS_SWITCHES(WS_ARCH_MOE_FUSED), {WS_Q_FE2, WS_Q_D}, NULL},
	{R(MOE_GATE_UP), B, WS_SC_EXPERT, WS_SWITCHES(WS_ARCH_MOE_FUSED, WS_ARCH_MOE_BIAS), {WS_Q_FE2, WS_Q_NONE}, NULL},
	{R(MOE_DOWN), W, WS_SC_EXPERT, WS_NO_SWITCHES, {WS_Q_D, WS_Q_FE}, NULL},
	{R(MOE_DOWN), B, WS_SC_EXPERT, WS_SWITCHES(WS_ARCH_MOE_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},

	/* DeepSeek-V3 MTP: a block (counted from the block ws_templates) plus these;
	 * the checkpoint stores its own embedding and head copies. */
	{R(MTP), W, WS_SC_MTP, WS_NO_SWITCHES, {WS_Q_D, WS_Q_NONE}, "enorm"},
	{R(MTP), W, WS_SC_MTP, WS_NO_SWITCHES, {WS_Q_D, WS_Q_NONE}, "hnorm"},
	{R(MTP), W, WS_SC_MTP, WS_NO_SWITCHES, {WS_Q_D, WS_Q_D2}, "eh_proj"},
	{R(MTP), W, WS_SC_MTP, WS_NO_SWITCHES, {WS_Q_D, WS_Q_NONE}, "shared_head.norm"},
	{R(MTP), W, WS_SC_MTP, WS_NO_SWITCHES, {WS_Q_V, WS_Q_D}, "embed_tokens"},
	{R(MTP), W, WS_SC_MTP, WS_NO_SWITCHES, {WS_Q_V, WS_Q_D}, "shared_head.head"},
};

#undef W
#undef B
#undef R

const size_t ws_n_templates = sizeof ws_templates / sizeof ws_templates[0];

ws_switches
ws_template_features(const struct ws_arch *a)
{
	ws_switches f = a->flags;
	bool mla = ws_sw_has(&a->flags, WS_ARCH_MLA), fused = ws_sw_has(&a->flags, WS_ARCH_FUSED_QKV);

	if (a->norm != WS_NORM_NONE)
		ws_sw_set(&f, WS_TX_NORM_W);
	if (a->norm == WS_NORM_LAYER && !ws_sw_has(&a->flags, WS_ARCH_NO_NORM_BIAS))
		ws_sw_set(&f, WS_TX_NORM_B);
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_PRE_NORM)) {
		ws_sw_set(&f, WS_TX_PRE_ATTN);
		ws_sw_set(&f, ws_sw_has(&a->flags, WS_ARCH_FIRST_NO_NORM) ? WS_TX_PRE_ATTN_LATER
									 : WS_TX_PRE_ATTN_ALL);
		if (!ws_sw_has(&a->flags, WS_ARCH_PARALLEL))
			ws_sw_set(&f, WS_TX_PRE_FFN);
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_TIED) && !a->no_head)
		ws_sw_set(&f, WS_TX_UNTIED);
	if (!fused && (!mla || a->q_lora_rank == 0))
		ws_sw_set(&f, WS_TX_Q);
	if (!fused && !mla)
		ws_sw_set(&f, WS_TX_KV);
	if (mla && a->q_lora_rank)
		ws_sw_set(&f, WS_TX_QLORA);
	if (a->mlp == WS_MLP_GATED) {
		ws_sw_set(&f, WS_TX_MLP_GATE);
		ws_sw_set(&f, WS_TX_MLP_UP);
	}
	if (a->mlp == WS_MLP_PLAIN)
		ws_sw_set(&f, WS_TX_MLP_UP);
	if (a->mlp == WS_MLP_GATED_FUSED)
		ws_sw_set(&f, WS_TX_MLP_FUSED);
	if (a->shared_experts) {
		ws_sw_set(&f, WS_TX_SHARED);
		if (ws_sw_has(&a->flags, WS_ARCH_SHARED_GATE))
			ws_sw_set(&f, WS_TX_SHARED_GATE);
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_MOE_FUSED))
		ws_sw_set(&f, WS_TX_MOE_SPLIT);
	if (a->index_heads && a->index_head_dim)
		ws_sw_set(&f, WS_TX_INDEXER);
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_FINAL_NORM))
		ws_sw_set(&f, WS_TX_FINAL_NORM);
	if (a->embedding_size && a->embedding_size != a->hidden_size)
		ws_sw_set(&f, WS_TX_EMBED_PROJ);
	if (!ws_sw_has(&a->flags, WS_ARCH_PATCHES))
		ws_sw_set(&f, WS_TX_TOKENS);
	bool rel = ws_sw_has(&a->flags, WS_ARCH_REL_EMBED) && !ws_sw_has(&a->flags, WS_ARCH_SHARE_ATT_KEY);
	if (rel && ws_sw_has(&a->flags, WS_ARCH_POS_C2P))
		ws_sw_set(&f, WS_TX_POS_KEY);
	if (rel && ws_sw_has(&a->flags, WS_ARCH_POS_P2C))
		ws_sw_set(&f, WS_TX_POS_QUERY);
	if (ws_sw_has(&a->flags, WS_ARCH_MLM) || ws_sw_has(&a->flags, WS_ARCH_HEAD_TRANSFORM)) {
		ws_sw_set(&f, WS_TX_TRANSFORM);
		if (!ws_sw_has(&a->flags, WS_ARCH_NO_HEAD_DENSE_BIAS))
			ws_sw_set(&f, WS_TX_TRANSFORM_B);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_MLM) && !ws_sw_has(&a->flags, WS_ARCH_NO_MLM_BIAS))
		ws_sw_set(&f, WS_TX_MLM_B);
	if (ws_sw_has(&a->flags, WS_ARCH_MLP_BIAS) && !ws_sw_has(&a->flags, WS_ARCH_NO_UP_BIAS))
		ws_sw_set(&f, WS_TX_UP_BIAS);
	return f;
}

bool
ws_template_on(const struct ws_template *r, const ws_switches *feat)
{
	return ws_sw_all(feat, &r->need);
}

bool
ws_template_in_block(const struct ws_template *r, int k)
{
	return r->scope == WS_SC_LAYER || r->scope == WS_SC_LAYER1 || (r->scope == WS_SC_DENSE && k == 0) ||
	       ((r->scope == WS_SC_MOE || r->scope == WS_SC_EXPERT) && k == 1);
}

unsigned
ws_template_rank(const struct ws_template *r)
{
	unsigned n = 1;
	while (n < WS_TEMPLATE_RANK && r->dim[n] != WS_Q_NONE)
		n++;
	return n;
}
