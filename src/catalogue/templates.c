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
	[WS_Q_THREE] = {WS_QOP_CONST, 3, 0}, [WS_Q_PJ] = {WS_QOP_LEAF, WS_AK_PROJ, 0},
	[WS_Q_SI] = {WS_QOP_LEAF, WS_AK_SSM_INNER, 0}, [WS_Q_SN] = {WS_QOP_LEAF, WS_AK_SSM_STATE, 0},
	[WS_Q_SK] = {WS_QOP_LEAF, WS_AK_SSM_CONV, 0}, [WS_Q_SR] = {WS_QOP_LEAF, WS_AK_SSM_RANK, 0},
	[WS_Q_SH] = {WS_QOP_LEAF, WS_AK_SSM_HEADS, 0}, [WS_Q_SG] = {WS_QOP_LEAF, WS_AK_SSM_GROUPS, 0},
	[WS_Q_LKH] = {WS_QOP_LEAF, WS_AK_LIN_K_HEADS, 0}, [WS_Q_LVH] = {WS_QOP_LEAF, WS_AK_LIN_V_HEADS, 0},
	[WS_Q_LKD] = {WS_QOP_LEAF, WS_AK_LIN_K_DIM, 0}, [WS_Q_LVD] = {WS_QOP_LEAF, WS_AK_LIN_V_DIM, 0},
	[WS_Q_RR] = {WS_QOP_LEAF, WS_AK_REL_ROWS, 0}, [WS_Q_NR] = {WS_QOP_LEAF, WS_AK_REGISTERS, 0},
	[WS_Q_TP] = {WS_QOP_LEAF, WS_AK_TEMPORAL, 0}, [WS_Q_MG] = {WS_QOP_LEAF, WS_AK_MERGE, 0},
	[WS_Q_VO] = {WS_QOP_LEAF, WS_AK_OUT, 0},
	[WS_Q_XR] = {WS_QOP_LEAF, WS_AK_EXTRA_ROWS, 0}, [WS_Q_TL] = {WS_QOP_LEAF, WS_AK_TILES, 0},
	[WS_Q_AR] = {WS_QOP_LEAF, WS_AK_ASPECTS, 0},
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
	[WS_Q_D3] = {WS_QOP_MUL, WS_Q_THREE, WS_Q_D},        /* packed in_proj: q, k, v */
	[WS_Q_PJD] = {WS_QOP_ELSE, WS_Q_PJ, WS_Q_D},         /* a tower head's width, else d */
	[WS_Q_HQ2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_HQ},        /* q and its output gate */
	[WS_Q_SI2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_SI},        /* Mamba in_proj: x and z */
	[WS_Q_SN2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_SN},
	[WS_Q_SXR] = {WS_QOP_ADD, WS_Q_SR, WS_Q_SN2},        /* Mamba x_proj: dt, B, C */
	[WS_Q_SGN] = {WS_QOP_MUL, WS_Q_SG, WS_Q_SN},         /* Mamba-2: groups × state */
	[WS_Q_SGN2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_SGN},      /* B and C */
	[WS_Q_SCD] = {WS_QOP_ADD, WS_Q_SI, WS_Q_SGN2},       /* Mamba-2 conv channels: x, B, C */
	[WS_Q_SIC] = {WS_QOP_ADD, WS_Q_SI, WS_Q_SCD},        /* z and the conv channels */
	[WS_Q_SIN] = {WS_QOP_ADD, WS_Q_SIC, WS_Q_SH},        /* Mamba-2 in_proj: and dt per head */
	[WS_Q_LK] = {WS_QOP_MUL, WS_Q_LKH, WS_Q_LKD},        /* Gated DeltaNet key width */
	[WS_Q_LV] = {WS_QOP_MUL, WS_Q_LVH, WS_Q_LVD},        /* value width */
	[WS_Q_LK2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_LK},        /* q and k */
	[WS_Q_LV2] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_LV},        /* v and z */
	[WS_Q_LQKVZ] = {WS_QOP_ADD, WS_Q_LK2, WS_Q_LV2},
	[WS_Q_LBA] = {WS_QOP_MUL, WS_Q_TWO, WS_Q_LVH},       /* beta and a per value head */
	[WS_Q_LCD] = {WS_QOP_ADD, WS_Q_LK2, WS_Q_LV},        /* conv channels: q, k, v */
	[WS_Q_T1] = {WS_QOP_ELSE, WS_Q_TP, WS_Q_ONE},        /* frames a patch spans, else 1 */
	[WS_Q_CT] = {WS_QOP_MUL, WS_Q_C, WS_Q_T1},           /* a patch's channels over its frames */
	[WS_Q_M1] = {WS_QOP_ELSE, WS_Q_MG, WS_Q_ONE},        /* patches merged per side, else 1 */
	[WS_Q_E0M] = {WS_QOP_MUL, WS_Q_E0, WS_Q_M1},
	[WS_Q_E0M2] = {WS_QOP_MUL, WS_Q_E0M, WS_Q_M1},       /* m x m tower outputs side by side */
	[WS_Q_VX] = {WS_QOP_ADD, WS_Q_V, WS_Q_XR},           /* embedding rows: vocab and extra */
	[WS_Q_TLD] = {WS_QOP_MUL, WS_Q_TL, WS_Q_D},          /* a width per tile */
	[WS_Q_NP1D] = {WS_QOP_MUL, WS_Q_NP1, WS_Q_D},
	[WS_Q_TNPD] = {WS_QOP_MUL, WS_Q_TL, WS_Q_NP1D},      /* every tile's every position */
	[WS_Q_P2] = {WS_QOP_ADD, WS_Q_P, WS_Q_TWO},          /* BART's positions: 2 rows of offset */
};

#define W WS_KIND_WEIGHT
#define B WS_KIND_BIAS
#define R(role) WS_ROLE_##role

const struct ws_template ws_templates[] = {
	/* the embeddings are d wide unless the type gives them their own
	 * width (then projected to d) */
	{R(EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_TOKENS), {WS_Q_VX, WS_Q_DE}, NULL},
	/* an image encoder's: a convolution with the patch as its kernel
	 * and stride, a learned class token, and learned positions for
	 * every patch and the class token */
	{R(PATCH_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES), {WS_Q_D, WS_Q_CT, WS_Q_PS, WS_Q_PS}, NULL},
	{R(PATCH_EMBED), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES, WS_ARCH_PATCH_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(CLS_TOKEN), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES, WS_ARCH_CLS_TOKEN), {WS_Q_ONE, WS_Q_ONE, WS_Q_D}, NULL},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PATCHES, WS_ARCH_CLS_TOKEN), {WS_Q_ONE, WS_Q_NP1, WS_Q_D}, NULL},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_NO_CLS), {WS_Q_NP, WS_Q_D}, NULL},
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
	/* a dual encoder's towers: projections into the joint space, the
	 * learnable logit scale and bias, SigLIP's attention-pooling head
	 * (a probe, a packed q/k/v attention, a norm, an MLP) */
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TEXT_PROJ), {WS_Q_PJ, WS_Q_D}, "text_projection"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_VISUAL_PROJ), {WS_Q_PJ, WS_Q_D}, "visual_projection"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TOWER_HEAD), {WS_Q_PJD, WS_Q_D}, "head"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TOWER_HEAD), {WS_Q_PJD, WS_Q_NONE}, "head"},
	{R(LOGIT_SCALE), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_LOGIT_SCALE), {WS_Q_ONE, WS_Q_NONE}, NULL},
	{R(LOGIT_BIAS), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_LOGIT_BIAS), {WS_Q_ONE, WS_Q_NONE}, NULL},
	{R(ATTN_POOL), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_ONE, WS_Q_ONE, WS_Q_D}, "probe"},
	{R(ATTN_POOL), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_D3, WS_Q_D}, "attention in_proj"},
	{R(ATTN_POOL), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_D3, WS_Q_NONE}, "attention in_proj"},
	{R(ATTN_POOL), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_D, WS_Q_D}, "attention out_proj"},
	{R(ATTN_POOL), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_D, WS_Q_NONE}, "attention out_proj"},
	{R(ATTN_POOL), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, "norm"},
	{R(ATTN_POOL), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, "norm"},
	{R(ATTN_POOL), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_F, WS_Q_D}, "mlp fc1"},
	{R(ATTN_POOL), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_F, WS_Q_NONE}, "mlp fc1"},
	{R(ATTN_POOL), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_D, WS_Q_F}, "mlp fc2"},
	{R(ATTN_POOL), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_ATTN_POOL), {WS_Q_D, WS_Q_NONE}, "mlp fc2"},
	/* projectors: from a tower's width (e0) into the text width (d) */
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_IN_NORM, WS_TX_NORM_W), {WS_Q_E0, WS_Q_NONE}, "input norm"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_IN_NORM, WS_TX_NORM_B), {WS_Q_E0, WS_Q_NONE}, "input norm"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_LINEAR), {WS_Q_E0M2, WS_Q_D}, "linear"},
	/* a merger (Qwen-VL): m x m neighbouring patches side by side, a
	 * linear of that width, then one into the text width */
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MERGE_MLP), {WS_Q_E0M2, WS_Q_E0M2}, "merger fc1"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MERGE_MLP), {WS_Q_E0M2, WS_Q_NONE}, "merger fc1"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MERGE_MLP), {WS_Q_D, WS_Q_E0M2}, "merger fc2"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MERGE_MLP), {WS_Q_D, WS_Q_NONE}, "merger fc2"},
	/* Mllama's tower: a gate on its positions, a position table per
	 * aspect ratio over every tile, a gated embedding per aspect ratio
	 * before and after the layers */
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TILES), {WS_Q_ONE, WS_Q_NONE}, "gated_positional_embedding gate"},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TILES), {WS_Q_AR, WS_Q_TNPD}, "tile_embedding"},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TILES), {WS_Q_AR, WS_Q_TLD}, "pre_tile_positional_embedding"},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TILES), {WS_Q_ONE, WS_Q_NONE}, "pre_tile_positional_embedding gate"},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TILES), {WS_Q_AR, WS_Q_TLD}, "post_tile_positional_embedding"},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_TILES), {WS_Q_ONE, WS_Q_NONE}, "post_tile_positional_embedding gate"},
	/* a projector's one linear with its bias (Mllama) */
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_LINEAR, WS_ARCH_PROJ_BIAS), {WS_Q_D, WS_Q_NONE}, "linear"},
	/* LLaVA-NeXT's image_newline: a text-width row the model appends
	 * to each row of image features (stored beside the projector) */
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_IMAGE_NEWLINE), {WS_Q_D, WS_Q_NONE}, "image_newline"},
	/* Llama 4's vision adapter (inside the tower): after a pixel shuffle,
	 * intermediate-wide inputs to projector_input_dim, then to its output */
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PIXEL_SHUFFLE_MLP), {WS_Q_PJ, WS_Q_F}, "vision_adapter fc1"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PIXEL_SHUFFLE_MLP), {WS_Q_VO, WS_Q_VO}, "vision_adapter fc2"},
	/* InternVL's mlp1: a norm over m x m merged tower outputs (pixel
	 * shuffle), a linear into the text width, a GELU, a linear */
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_SHUFFLE_MLP, WS_TX_NORM_W), {WS_Q_E0M2, WS_Q_NONE}, "merged norm"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_SHUFFLE_MLP, WS_TX_NORM_B), {WS_Q_E0M2, WS_Q_NONE}, "merged norm"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_SHUFFLE_MLP), {WS_Q_D, WS_Q_E0M2}, "fc1"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_SHUFFLE_MLP), {WS_Q_D, WS_Q_NONE}, "fc1"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_SHUFFLE_MLP), {WS_Q_D, WS_Q_D}, "fc2"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_SHUFFLE_MLP), {WS_Q_D, WS_Q_NONE}, "fc2"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MLP2), {WS_Q_D, WS_Q_E0}, "linear_1"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MLP2, WS_ARCH_PROJ_BIAS), {WS_Q_D, WS_Q_NONE}, "linear_1"},
	{R(PROJECTOR), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MLP2), {WS_Q_D, WS_Q_D}, "linear_2"},
	{R(PROJECTOR), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_PROJ_MLP2, WS_ARCH_PROJ_BIAS), {WS_Q_D, WS_Q_NONE}, "linear_2"},

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

	/* Qwen3-VL's DeepStack mergers, one per "block": a norm over the
	 * merged width, then the merger's two linears */
	{R(PROJECTOR), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_PROJ_DEEPSTACK, WS_TX_NORM_W), {WS_Q_E0M2, WS_Q_NONE}, "deepstack norm"},
	{R(PROJECTOR), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_PROJ_DEEPSTACK, WS_TX_NORM_B), {WS_Q_E0M2, WS_Q_NONE}, "deepstack norm"},
	{R(PROJECTOR), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_PROJ_DEEPSTACK), {WS_Q_E0M2, WS_Q_E0M2}, "deepstack fc1"},
	{R(PROJECTOR), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_PROJ_DEEPSTACK), {WS_Q_E0M2, WS_Q_NONE}, "deepstack fc1"},
	{R(PROJECTOR), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_PROJ_DEEPSTACK), {WS_Q_D, WS_Q_E0M2}, "deepstack fc2"},
	{R(PROJECTOR), B, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_PROJ_DEEPSTACK), {WS_Q_D, WS_Q_NONE}, "deepstack fc2"},
	{R(ATTN_NORM), W, WS_SC_LAYER, WS_SWITCHES(WS_TX_PRE_ATTN_ALL, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_NORM), B, WS_SC_LAYER, WS_SWITCHES(WS_TX_PRE_ATTN_ALL, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_NORM), W, WS_SC_LAYER1, WS_SWITCHES(WS_TX_PRE_ATTN_LATER, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_NORM), B, WS_SC_LAYER1, WS_SWITCHES(WS_TX_PRE_ATTN_LATER, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_Q), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_Q), {WS_Q_HQ, WS_Q_D}, NULL},
	{R(ATTN_Q), B, WS_SC_ATTN, WS_SWITCHES(WS_TX_Q, WS_ARCH_QKV_BIAS), {WS_Q_HQ, WS_Q_NONE}, NULL},
	/* an output gate (Qwen3-Next): q_proj holds q and the gate */
	{R(ATTN_Q), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_ATTN_GATE), {WS_Q_HQ2, WS_Q_D}, NULL},
	{R(ATTN_Q), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_ATTN_GATE, WS_ARCH_QKV_BIAS), {WS_Q_HQ2, WS_Q_NONE}, NULL},
	{R(ATTN_K), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_KV), {WS_Q_HK, WS_Q_D}, NULL},
	{R(ATTN_K), B, WS_SC_ATTN, WS_SWITCHES(WS_TX_KV, WS_TX_K_BIAS), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(ATTN_V), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_KV), {WS_Q_HV, WS_Q_D}, NULL},
	{R(ATTN_V), B, WS_SC_ATTN, WS_SWITCHES(WS_TX_KV, WS_ARCH_QKV_BIAS), {WS_Q_HV, WS_Q_NONE}, NULL},
	{R(ATTN_QKV), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_FUSED_QKV), {WS_Q_QKV, WS_Q_D}, NULL},
	{R(ATTN_QKV), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_FUSED_QKV, WS_ARCH_QKV_BIAS), {WS_Q_QKV, WS_Q_NONE}, NULL},
	{R(ATTN_Q_A), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_QLORA), {WS_Q_QLORA, WS_Q_D}, NULL},
	{R(ATTN_Q_A_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_QLORA), {WS_Q_QLORA, WS_Q_NONE}, NULL},
	{R(ATTN_Q_B), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_QLORA), {WS_Q_HQ, WS_Q_QLORA}, NULL},
	{R(ATTN_KV_A), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_MLA), {WS_Q_KVA, WS_Q_D}, NULL},
	{R(ATTN_KV_A_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_MLA), {WS_Q_KVLORA, WS_Q_NONE}, NULL},
	{R(ATTN_KV_B), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_MLA), {WS_Q_KVB, WS_Q_KVLORA}, NULL},
	/* the indexer's queries come from MLA's low-rank q */
	{R(ATTN_IDX_Q_B), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_INDEXER, WS_TX_QLORA), {WS_Q_IQ, WS_Q_QLORA}, NULL},
	{R(ATTN_IDX_K), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IDK, WS_Q_D}, NULL},
	{R(ATTN_IDX_K_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IDK, WS_Q_NONE}, NULL},
	{R(ATTN_IDX_K_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IDK, WS_Q_NONE}, NULL},
	{R(ATTN_IDX_PROJ), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_INDEXER), {WS_Q_IH, WS_Q_D}, NULL},
	/* DeBERTa's projections of the relative positions, unless shared */
	{R(ATTN_K), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_POS_KEY), {WS_Q_HQ, WS_Q_D}, "pos_key_proj"},
	{R(ATTN_K), B, WS_SC_ATTN, WS_SWITCHES(WS_TX_POS_KEY), {WS_Q_HQ, WS_Q_NONE}, "pos_key_proj"},
	{R(ATTN_Q), W, WS_SC_ATTN, WS_SWITCHES(WS_TX_POS_QUERY), {WS_Q_HQ, WS_Q_D}, "pos_query_proj"},
	{R(ATTN_Q), B, WS_SC_ATTN, WS_SWITCHES(WS_TX_POS_QUERY), {WS_Q_HQ, WS_Q_NONE}, "pos_query_proj"},
	/* BERT relative_key(_query): a distance table per layer */
	{R(POS_EMBED), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_REL_DIST), {WS_Q_RR, WS_Q_DK}, "distance_embedding"},
	{R(ATTN_O), W, WS_SC_ATTN, WS_NO_SWITCHES, {WS_Q_D, WS_Q_HO}, NULL},
	{R(ATTN_O), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_O_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD, WS_ARCH_QK_NORM_BIAS), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_FULL), {WS_Q_HQ, WS_Q_NONE}, NULL},
	{R(ATTN_Q_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_FULL, WS_ARCH_QK_NORM_BIAS), {WS_Q_HQ, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_HEAD, WS_ARCH_QK_NORM_BIAS), {WS_Q_DK, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_FULL), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(ATTN_K_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_QK_NORM_FULL, WS_ARCH_QK_NORM_BIAS), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(ATTN_SINKS), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_SINKS), {WS_Q_H, WS_Q_NONE}, NULL},
	{R(ATTN_POST_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(ATTN_POST_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	/* cross-attention blocks (Mllama): queries from the text, keys and
	 * values from the image's tokens, per-head q / k norms, and a gate
	 * on attention and one on the MLP */
	{R(XATTN_Q), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_HQ, WS_Q_D}, NULL},
	{R(XATTN_K), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_HK, WS_Q_D}, NULL},
	{R(XATTN_V), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_HV, WS_Q_D}, NULL},
	{R(XATTN_O), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_D, WS_Q_HO}, NULL},
	{R(XATTN_NORM), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_DK, WS_Q_NONE}, "q_norm"},
	{R(XATTN_NORM), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_DK, WS_Q_NONE}, "k_norm"},
	{R(XATTN_GATE), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_ONE, WS_Q_NONE}, "attention gate"},
	{R(XATTN_GATE), W, WS_SC_XATTN, WS_NO_SWITCHES, {WS_Q_ONE, WS_Q_NONE}, "MLP gate"},
	/* Mllama's global tower layers: a gate after attention and the MLP */
	{R(LAYER_SCALE), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_GATED_LAYERS), {WS_Q_ONE, WS_Q_NONE}, "gate_attn"},
	{R(LAYER_SCALE), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_GATED_LAYERS), {WS_Q_ONE, WS_Q_NONE}, "gate_ffn"},
	{R(FFN_NORM), W, WS_SC_FFN, WS_SWITCHES(WS_TX_PRE_FFN, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FFN_NORM), B, WS_SC_FFN, WS_SWITCHES(WS_TX_PRE_FFN, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	/* DINOv2: a learned per-channel scale after attention and the MLP */
	{R(LAYER_SCALE), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_LAYER_SCALE), {WS_Q_D, WS_Q_NONE}, "layer_scale1"},
	{R(LAYER_SCALE), W, WS_SC_LAYER, WS_SWITCHES(WS_ARCH_LAYER_SCALE), {WS_Q_D, WS_Q_NONE}, "layer_scale2"},
	{R(FFN_POST_NORM), W, WS_SC_FFN, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(FFN_POST_NORM), B, WS_SC_FFN, WS_SWITCHES(WS_ARCH_POST_NORMS, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	/* encoder-decoders: a decoder block's attention over the encoder's
	 * output (its own norm, before it or, post-norm, after it); T5's
	 * relative-position bias (buckets x heads) once per stack, or in
	 * every block (UMT5); BART's learned positions with 2 rows of
	 * offset; Whisper's stem of two convolutions (kernel 3) over the
	 * audio features */
	{R(XATTN_NORM), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN, WS_TX_NORM_W), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(XATTN_NORM), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN, WS_TX_NORM_B), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(XATTN_Q), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN), {WS_Q_HQ, WS_Q_D}, NULL},
	{R(XATTN_Q), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN, WS_ARCH_QKV_BIAS), {WS_Q_HQ, WS_Q_NONE}, NULL},
	{R(XATTN_K), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN), {WS_Q_HK, WS_Q_D}, NULL},
	{R(XATTN_K), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN, WS_TX_K_BIAS), {WS_Q_HK, WS_Q_NONE}, NULL},
	{R(XATTN_V), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN), {WS_Q_HV, WS_Q_D}, NULL},
	{R(XATTN_V), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN, WS_ARCH_QKV_BIAS), {WS_Q_HV, WS_Q_NONE}, NULL},
	{R(XATTN_O), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN), {WS_Q_D, WS_Q_HO}, NULL},
	{R(XATTN_O), B, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_XATTN, WS_ARCH_O_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(REL_POS_BIAS), W, WS_SC_GLOBAL, WS_SWITCHES(WS_TX_REL_BIAS_ONCE), {WS_Q_RR, WS_Q_H}, NULL},
	{R(REL_POS_BIAS), W, WS_SC_ATTN, WS_SWITCHES(WS_ARCH_REL_BIAS_LAYERS), {WS_Q_RR, WS_Q_H}, NULL},
	{R(POS_EMBED), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_POS_OFFSET), {WS_Q_P2, WS_Q_D}, NULL},
	{R(CONV), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CONV_STEM), {WS_Q_D, WS_Q_C, WS_Q_THREE}, "conv1"},
	{R(CONV), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CONV_STEM), {WS_Q_D, WS_Q_NONE}, "conv1"},
	{R(CONV), W, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CONV_STEM), {WS_Q_D, WS_Q_D, WS_Q_THREE}, "conv2"},
	{R(CONV), B, WS_SC_GLOBAL, WS_SWITCHES(WS_ARCH_CONV_STEM), {WS_Q_D, WS_Q_NONE}, "conv2"},

	/* Mamba (HF MambaMixer, Jamba's mamba): in_proj to x and z, a
	 * depthwise conv, x_proj to dt (rank r), B and C, dt_proj back up */
	{R(SSM_IN), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SI2, WS_Q_D}, NULL},
	{R(SSM_IN), B, WS_SC_MAMBA, WS_SWITCHES(WS_ARCH_SSM_BIAS), {WS_Q_SI2, WS_Q_NONE}, NULL},
	{R(SSM_CONV), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SI, WS_Q_ONE, WS_Q_SK}, NULL},
	{R(SSM_CONV), B, WS_SC_MAMBA, WS_SWITCHES(WS_ARCH_SSM_CONV_BIAS), {WS_Q_SI, WS_Q_NONE}, NULL},
	{R(SSM_X), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SXR, WS_Q_SI}, NULL},
	{R(SSM_DT), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SI, WS_Q_SR}, NULL},
	{R(SSM_DT), B, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SI, WS_Q_NONE}, NULL},
	{R(SSM_A), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SI, WS_Q_SN}, "A_log"},
	{R(SSM_D), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_SI, WS_Q_NONE}, "D"},
	{R(SSM_NORM), W, WS_SC_MAMBA, WS_SWITCHES(WS_ARCH_SSM_DT_NORMS), {WS_Q_SR, WS_Q_NONE}, "dt_layernorm"},
	{R(SSM_NORM), W, WS_SC_MAMBA, WS_SWITCHES(WS_ARCH_SSM_DT_NORMS), {WS_Q_SN, WS_Q_NONE}, "b_layernorm"},
	{R(SSM_NORM), W, WS_SC_MAMBA, WS_SWITCHES(WS_ARCH_SSM_DT_NORMS), {WS_Q_SN, WS_Q_NONE}, "c_layernorm"},
	{R(SSM_OUT), W, WS_SC_MAMBA, WS_NO_SWITCHES, {WS_Q_D, WS_Q_SI}, NULL},
	{R(SSM_OUT), B, WS_SC_MAMBA, WS_SWITCHES(WS_ARCH_SSM_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	/* Mamba-2: in_proj to z, x, B, C (groups × state each) and dt per
	 * head; the conv over x, B and C; a gated RMSNorm over the inner width */
	{R(SSM_IN), W, WS_SC_MAMBA2, WS_NO_SWITCHES, {WS_Q_SIN, WS_Q_D}, NULL},
	{R(SSM_IN), B, WS_SC_MAMBA2, WS_SWITCHES(WS_ARCH_SSM_BIAS), {WS_Q_SIN, WS_Q_NONE}, NULL},
	{R(SSM_IN), B, WS_SC_MAMBA2, WS_SWITCHES(WS_ARCH_SSM_IN_BIAS), {WS_Q_SIN, WS_Q_NONE}, "in_proj bias"},
	{R(SSM_CONV), W, WS_SC_MAMBA2, WS_NO_SWITCHES, {WS_Q_SCD, WS_Q_ONE, WS_Q_SK}, NULL},
	{R(SSM_CONV), B, WS_SC_MAMBA2, WS_SWITCHES(WS_ARCH_SSM_CONV_BIAS), {WS_Q_SCD, WS_Q_NONE}, NULL},
	{R(SSM_DT), B, WS_SC_MAMBA2, WS_NO_SWITCHES, {WS_Q_SH, WS_Q_NONE}, "dt_bias"},
	{R(SSM_A), W, WS_SC_MAMBA2, WS_NO_SWITCHES, {WS_Q_SH, WS_Q_NONE}, "A_log"},
	{R(SSM_D), W, WS_SC_MAMBA2, WS_NO_SWITCHES, {WS_Q_SH, WS_Q_NONE}, "D"},
	{R(SSM_NORM), W, WS_SC_MAMBA2, WS_SWITCHES(WS_TX_SSM_NORM), {WS_Q_SI, WS_Q_NONE}, NULL},
	{R(SSM_OUT), W, WS_SC_MAMBA2, WS_NO_SWITCHES, {WS_Q_D, WS_Q_SI}, NULL},
	{R(SSM_OUT), B, WS_SC_MAMBA2, WS_SWITCHES(WS_ARCH_SSM_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(SSM_OUT), B, WS_SC_MAMBA2, WS_SWITCHES(WS_ARCH_SSM_OUT_BIAS), {WS_Q_D, WS_Q_NONE}, "out_proj bias"},
	/* LFM2's gated short convolution: in_proj to B, C and x, a
	 * depthwise conv over the hidden width, out_proj */
	{R(SSM_IN), W, WS_SC_SCONV, WS_NO_SWITCHES, {WS_Q_D3, WS_Q_D}, NULL},
	{R(SSM_IN), B, WS_SC_SCONV, WS_SWITCHES(WS_ARCH_SSM_BIAS), {WS_Q_D3, WS_Q_NONE}, NULL},
	{R(SSM_CONV), W, WS_SC_SCONV, WS_NO_SWITCHES, {WS_Q_D, WS_Q_ONE, WS_Q_SK}, NULL},
	{R(SSM_CONV), B, WS_SC_SCONV, WS_SWITCHES(WS_ARCH_SSM_CONV_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	{R(SSM_OUT), W, WS_SC_SCONV, WS_NO_SWITCHES, {WS_Q_D, WS_Q_D}, NULL},
	{R(SSM_OUT), B, WS_SC_SCONV, WS_SWITCHES(WS_ARCH_SSM_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},
	/* Gated DeltaNet (Qwen3-Next linear_attn): q, k, v, z in one
	 * projection, beta and a per value head in another, a conv over q,
	 * k, v, a gated RMSNorm over one value head */
	{R(LINATTN_QKVZ), W, WS_SC_LINEAR, WS_SWITCHES(WS_TX_LIN_FUSED), {WS_Q_LQKVZ, WS_Q_D}, NULL},
	/* ... or, as llama.cpp converts it, q, k, v (attn_qkv) and z (attn_gate) */
	{R(LINATTN_QKVZ), W, WS_SC_LINEAR, WS_SWITCHES(WS_ARCH_LIN_SPLIT), {WS_Q_LCD, WS_Q_D}, "qkv"},
	{R(LINATTN_QKVZ), W, WS_SC_LINEAR, WS_SWITCHES(WS_ARCH_LIN_SPLIT), {WS_Q_LV, WS_Q_D}, "gate"},
	{R(LINATTN_BA), W, WS_SC_LINEAR, WS_NO_SWITCHES, {WS_Q_LBA, WS_Q_D}, NULL},
	{R(LINATTN_CONV), W, WS_SC_LINEAR, WS_NO_SWITCHES, {WS_Q_LCD, WS_Q_ONE, WS_Q_SK}, NULL},
	{R(LINATTN_DT), B, WS_SC_LINEAR, WS_NO_SWITCHES, {WS_Q_LVH, WS_Q_NONE}, "dt_bias"},
	{R(LINATTN_A), W, WS_SC_LINEAR, WS_NO_SWITCHES, {WS_Q_LVH, WS_Q_NONE}, "A_log"},
	{R(LINATTN_NORM), W, WS_SC_LINEAR, WS_NO_SWITCHES, {WS_Q_LVD, WS_Q_NONE}, NULL},
	{R(LINATTN_OUT), W, WS_SC_LINEAR, WS_NO_SWITCHES, {WS_Q_D, WS_Q_LV}, NULL},

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

	/* a MoE block's shared MLP of the dense width (Granite-4.0-H:
	 * fused gate and up) */
	{R(FFN_GATE_UP), W, WS_SC_MOE, WS_SWITCHES(WS_ARCH_SHARED_MLP), {WS_Q_F2, WS_Q_D}, "shared_mlp"},
	{R(FFN_DOWN), W, WS_SC_MOE, WS_SWITCHES(WS_ARCH_SHARED_MLP), {WS_Q_D, WS_Q_F}, "shared_mlp"},
	{R(MOE_ROUTER), W, WS_SC_MOE, WS_NO_SWITCHES, {WS_Q_E, WS_Q_D}, NULL},
	{R(MOE_ROUTER), B, WS_SC_MOE, WS_SWITCHES(WS_ARCH_ROUTER_BIAS), {WS_Q_E, WS_Q_NONE}, NULL},
	{R(MOE_ROUTER_BIAS), W, WS_SC_MOE, WS_SWITCHES(WS_ARCH_ROUTER_SCORE_BIAS), {WS_Q_E, WS_Q_NONE}, NULL},
	{R(MOE_SHARED_GATE), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED_MLP_GATE), {WS_Q_FS, WS_Q_D}, NULL},
	{R(MOE_SHARED_UP), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED), {WS_Q_FS, WS_Q_D}, NULL},
	{R(MOE_SHARED_DOWN), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED), {WS_Q_D, WS_Q_FS}, NULL},
	{R(MOE_SHARED_ROUTER), W, WS_SC_MOE, WS_SWITCHES(WS_TX_SHARED_GATE), {WS_Q_ONE, WS_Q_D}, NULL},
	{R(MOE_GATE), W, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_GATE), {WS_Q_FE, WS_Q_D}, NULL},
	{R(MOE_UP), W, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_SPLIT), {WS_Q_FE, WS_Q_D}, NULL},
	/* gpt-oss in GGUF: the converter splits the fused experts, biases too */
	{R(MOE_GATE), B, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_GATE, WS_ARCH_MOE_BIAS), {WS_Q_FE, WS_Q_NONE}, NULL},
	{R(MOE_UP), B, WS_SC_EXPERT, WS_SWITCHES(WS_TX_MOE_SPLIT, WS_ARCH_MOE_BIAS), {WS_Q_FE, WS_Q_NONE}, NULL},
	{R(MOE_GATE_UP), W, WS_SC_EXPERT, WS_SWITCHES(WS_ARCH_MOE_FUSED), {WS_Q_FE2, WS_Q_D}, NULL},
	{R(MOE_GATE_UP), B, WS_SC_EXPERT, WS_SWITCHES(WS_ARCH_MOE_FUSED, WS_ARCH_MOE_BIAS), {WS_Q_FE2, WS_Q_NONE}, NULL},
	{R(MOE_DOWN), W, WS_SC_EXPERT, WS_NO_SWITCHES, {WS_Q_D, WS_Q_FE}, NULL},
	{R(MOE_DOWN), B, WS_SC_EXPERT, WS_SWITCHES(WS_ARCH_MOE_BIAS), {WS_Q_D, WS_Q_NONE}, NULL},

	/* DeepSeek-V3 MTP: a block (counted from the block ws_templates) plus these;
	 * the checkpoint stores its own embedding and head copies. */
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_TX_MTP_OWN), {WS_Q_D, WS_Q_NONE}, "enorm"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_TX_MTP_OWN), {WS_Q_D, WS_Q_NONE}, "hnorm"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_TX_MTP_OWN), {WS_Q_D, WS_Q_D2}, "eh_proj"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_TX_MTP_OWN), {WS_Q_D, WS_Q_NONE}, "shared_head.norm"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_TX_MTP_OWN), {WS_Q_V, WS_Q_D}, "embed_tokens"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_TX_MTP_OWN), {WS_Q_V, WS_Q_D}, "shared_head.head"},
	/* Qwen3-Next's: the embedding and the hidden state normed, joined by
	 * fc, one block, a final norm; the model's own embedding and head */
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_ARCH_MTP_FC), {WS_Q_D, WS_Q_NONE}, "pre_fc_norm_embedding"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_ARCH_MTP_FC), {WS_Q_D, WS_Q_NONE}, "pre_fc_norm_hidden"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_ARCH_MTP_FC), {WS_Q_D, WS_Q_D2}, "fc"},
	{R(MTP), W, WS_SC_MTP, WS_SWITCHES(WS_ARCH_MTP_FC), {WS_Q_D, WS_Q_NONE}, "norm"},
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
	if (!fused && (!mla || a->q_lora_rank == 0) && !ws_sw_has(&a->flags, WS_ARCH_ATTN_GATE))
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
	/* Granite's shared MLP is the block's dense MLP (its own templates) */
	if (a->shared_experts && !ws_sw_has(&a->flags, WS_ARCH_SHARED_MLP)) {
		ws_sw_set(&f, WS_TX_SHARED);
		if (ws_sw_has(&a->flags, WS_ARCH_SHARED_GATE))
			ws_sw_set(&f, WS_TX_SHARED_GATE);
		/* a plain MLP's experts (Nemotron-H's squared ReLU): up and down */
		if (a->mlp != WS_MLP_PLAIN)
			ws_sw_set(&f, WS_TX_SHARED_MLP_GATE);
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_MOE_FUSED)) {
		ws_sw_set(&f, WS_TX_MOE_SPLIT);
		if (a->mlp != WS_MLP_PLAIN)
			ws_sw_set(&f, WS_TX_MOE_GATE);
	}
	if (a->index_heads && a->index_head_dim)
		ws_sw_set(&f, WS_TX_INDEXER);
	/* a component of layers alone (a projector) has no table, final
	 * norm or head of its own; its e0 is its input width */
	bool bare = ws_sw_has(&a->flags, WS_ARCH_BARE);
	if (bare)
		ws_sw_clear(&f, WS_TX_UNTIED);
	if (ws_sw_has(&a->flags, WS_ARCH_PROJ_DEEPSTACK)) {
		/* its "blocks" (a list of mergers) have no block norms */
		ws_sw_clear(&f, WS_TX_PRE_ATTN_ALL);
		ws_sw_clear(&f, WS_TX_PRE_ATTN_LATER);
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_FINAL_NORM) && !bare)
		ws_sw_set(&f, WS_TX_FINAL_NORM);
	if (a->embedding_size && a->embedding_size != a->hidden_size && !bare)
		ws_sw_set(&f, WS_TX_EMBED_PROJ);
	if (!ws_sw_has(&a->flags, WS_ARCH_PATCHES) && !bare && !ws_sw_has(&a->flags, WS_ARCH_NO_TOKENS))
		ws_sw_set(&f, WS_TX_TOKENS);
	if (ws_sw_has(&a->flags, WS_ARCH_PATCHES) && !ws_sw_has(&a->flags, WS_ARCH_CLS_TOKEN) &&
	    !ws_sw_has(&a->flags, WS_ARCH_NO_PATCH_POS))
		ws_sw_set(&f, WS_TX_NO_CLS);
	if (!ws_sw_has(&a->flags, WS_ARCH_MTP_FC))
		ws_sw_set(&f, WS_TX_MTP_OWN);
	if (!ws_sw_has(&a->flags, WS_ARCH_SSM_NO_NORM))
		ws_sw_set(&f, WS_TX_SSM_NORM);
	if (!ws_sw_has(&a->flags, WS_ARCH_LIN_SPLIT))
		ws_sw_set(&f, WS_TX_LIN_FUSED);
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
	if (ws_sw_has(&a->flags, WS_ARCH_QKV_BIAS) && !ws_sw_has(&a->flags, WS_ARCH_NO_K_BIAS))
		ws_sw_set(&f, WS_TX_K_BIAS);
	if (ws_sw_has(&a->flags, WS_ARCH_REL_BIAS) && !ws_sw_has(&a->flags, WS_ARCH_REL_BIAS_LAYERS))
		ws_sw_set(&f, WS_TX_REL_BIAS_ONCE);
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
	if (k < 0 || k >= WS_BK_COUNT)
		return false;
	enum ws_mixer mix = WS_BK_MIX(k);
	enum ws_ffn_kind ffn = WS_BK_FFN(k);
	switch (r->scope) {
	case WS_SC_LAYER:
	case WS_SC_LAYER1: return true;
	case WS_SC_DENSE: return ffn == WS_FFN_DENSE;
	case WS_SC_MOE:
	case WS_SC_EXPERT: return ffn == WS_FFN_MOE;
	case WS_SC_FFN: return ffn != WS_FFN_NONE;
	case WS_SC_ATTN: return mix == WS_MIX_ATTN || mix == WS_MIX_PARALLEL;
	case WS_SC_MAMBA: return mix == WS_MIX_MAMBA;
	case WS_SC_MAMBA2: return mix == WS_MIX_MAMBA2 || mix == WS_MIX_PARALLEL;
	case WS_SC_LINEAR: return mix == WS_MIX_LINEAR;
	case WS_SC_SCONV: return mix == WS_MIX_CONV;
	case WS_SC_XATTN: return mix == WS_MIX_XATTN;
	case WS_SC_GLOBAL:
	case WS_SC_MTP: break;
	}
	return false;
}

unsigned
ws_template_rank(const struct ws_template *r)
{
	unsigned n = 1;
	while (n < WS_TEMPLATE_RANK && r->dim[n] != WS_Q_NONE)
		n++;
	return n;
}
