/*
 * net.c - diffusion networks as data (see ws/net.h): units of tensor
 * lines, and per class the config keys read, the units placed once, the
 * blocks repeated, and the level stacks of a UNet or a VAE.
 */
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "catalogue/catalogue.h"
#include "ws/json.h"
#include "ws/net.h"
#include "ws/util.h"

/* Quantities a shape is made of: per unit instance (its input and output
 * width, a block's depth) and the class's, read or derived from keys. */
enum nq {
	Q1 = 1, QI, QO,
	QT,     /* time-embedding width */
	QX,     /* cross-attention (text) width */
	QCIN, QCOUT, QKIN, QKOUT,
	QB0, QBL, /* first and last level width */
	QADD,   /* addition embedding's input (SDXL text_time) */
	QD, QHEADS, QDH, QF, QPOOL, QCTX, QCAP, QLAT, QLAT2, QPS, QPS2, QOUTC, QOUTP, QPOSM, QPOS,
	QTIN,   /* sinusoidal timestep features */
	QQKVF, QDF, /* BFL's fused widths: q, k, v and the MLP; attention and MLP */
	QXH, QXDH, QXI, /* cross-attention heads, their width, the inner width */
	QSZ,    /* PixArt's size-condition embedding (the width / 3) */
	QPT, QPH, QPW, QPS3, /* a 3-D patch: frames, height, width; its volume */
	QFREQ, QIMG, QAKV, QPSL, /* Wan's timestep features, image embedding, added k/v, image positions */
	QOH, QDTOP, QDBOT, /* half the output; a video decoder's first and last width */
	QN
};

/* A dimension: quantity × mul (mul 0 is 1). */
struct nd {
	unsigned char q, mul;
};
#define NET_MAX_DIMS 5 /* a 3-D convolution's weight */

/* Switches a unit instance has (need: all; unless: none). */
enum {
	F_TEMB = 1u << 0,      /* a resnet with a time-embedding projection */
	F_SHORT = 1u << 1,     /* a resnet whose width changes: 1x1 shortcut */
	F_LIN = 1u << 2,       /* use_linear_projection */
	F_QKN = 1u << 3,       /* q/k norms (SD3 qk_norm) */
	F_PRE = 1u << 4,       /* the context stream ends here (context_pre_only) */
	F_DUAL = 1u << 5,      /* SD3.5's second attention (dual_attention_layers) */
	F_QC = 1u << 6,        /* use_quant_conv */
	F_PQC = 1u << 7,       /* use_post_quant_conv */
	F_GUID = 1u << 8,      /* guidance_embeds */
	F_TEXTTIME = 1u << 9,  /* addition_embed_type text_time */
	F_MIDATTN = 1u << 10,  /* mid_block_add_attention */
	F_BUF = 1u << 11,      /* line flag: a buffer, not a parameter */
	F_ADDCOND = 1u << 12,  /* use_additional_conditions (PixArt's size embeddings) */
	F_CAPT = 1u << 13,     /* caption_channels given: a caption projection */
	F_ABIAS = 1u << 14,    /* attention_bias: q, k, v with biases */
	F_AFFINE = 1u << 15,   /* norm_elementwise_affine */
	F_XNORM = 1u << 16,    /* cross_attn_norm: an affine norm before the cross-attention */
	F_IMG = 1u << 17,      /* image_dim given: Wan's image embedder (I2V) */
	F_AKV = 1u << 18,      /* added_kv_proj_dim given: the image's keys and values */
	F_IPOS = 1u << 19,     /* pos_embed_seq_len given: the image positions (FLF2V) */
	F_TIME = 1u << 20,     /* a video sampler that also resamples time */
};

/* What a matrix runs over, per step (flops): the image's positions at
 * the unit's level (0, the default), once per sample, the text tokens,
 * image and text together (a single-stream block), the image at the
 * deepest level (a VAE's latent end). */
#define T_IMG WS_NET_TOK_IMG
#define T_ONE WS_NET_TOK_ONE
#define T_TXT WS_NET_TOK_TXT
#define T_ALL WS_NET_TOK_ALL
#define T_DEEP 4
/* An attention whose scores this line's projection starts: over its own
 * tokens, its tokens against the text, image and text jointly. */
#define A_SELF WS_NET_ATT_SELF
#define A_TXT WS_NET_ATT_TXT
#define A_JOINT WS_NET_ATT_JOINT

struct nline {
	const char *name;
	ws_role role;
	unsigned need, unless;
	struct nd d[NET_MAX_DIMS];
	unsigned char tok, att;
	struct nd aw;        /* the attention's inner width (heads x head dim) */
};

#define R(x) WS_ROLE_##x
/* a linear with bias: weight [o, i], bias [o] */
#define Z_ 0, 0, {0, 0}
#define LIN(n, role, need, unless, o, i) \
	{n ".weight", R(role), need, unless, {o, i}, Z_}, {n ".bias", R(role), need, unless, {o}, Z_}
#define LINNB(n, role, need, unless, o, i) {n ".weight", R(role), need, unless, {o, i}, Z_}
/* ... running over tok; starting an attention att of inner width aw */
#define LINT(n, role, need, unless, o, i, tok) \
	{n ".weight", R(role), need, unless, {o, i}, tok, 0, {0, 0}}, \
	{n ".bias", R(role), need, unless, {o}, tok, 0, {0, 0}}
#define LINNBT(n, role, need, unless, o, i, tok) {n ".weight", R(role), need, unless, {o, i}, tok, 0, {0, 0}}
#define LINA(n, role, need, unless, o, i, tok, att, aw) \
	{n ".weight", R(role), need, unless, {o, i}, tok, att, aw}, \
	{n ".bias", R(role), need, unless, {o}, tok, 0, {0, 0}}
#define LINNBA(n, role, need, unless, o, i, att, aw) {n ".weight", R(role), need, unless, {o, i}, 0, att, aw}
#define CONVT(n, role, need, unless, o, i, k, tok) \
	{n ".weight", R(role), need, unless, {o, i, k, k}, tok, 0, {0, 0}}, \
	{n ".bias", R(role), need, unless, {o}, tok, 0, {0, 0}}
/* a weight vector alone (an RMSNorm) */
#define VEC(n, role, need, unless, w) {n ".weight", R(role), need, unless, {w}, Z_}
/* a vector under its own name (BFL's RMSNorm scale) */
#define RAW(n, role, need, unless, w) {n, R(role), need, unless, {w}, Z_}
#define NORMWB(n, role, need, unless, w) \
	{n ".weight", R(role), need, unless, {w}, Z_}, {n ".bias", R(role), need, unless, {w}, Z_}
#define CONV(n, role, need, unless, o, i, k) \
	{n ".weight", R(role), need, unless, {o, i, k, k}, Z_}, {n ".bias", R(role), need, unless, {o}, Z_}
#define O_ {QO, 0}
#define I_ {QI, 0}
#define K1 {Q1, 1}
#define K3 {Q1, 3}
#define DD {QD, 0}
#define dT {QT, 0}
#define dX {QX, 0}
#define dB0 {QB0, 0}
#define dBL {QBL, 0}
#define dCIN {QCIN, 0}
#define dCOUT {QCOUT, 0}
#define dKIN {QKIN, 0}
#define dKOUT {QKOUT, 0}
#define dADD {QADD, 0}
#define dLAT {QLAT, 0}
#define dLAT2 {QLAT2, 0}
#define dDH {QDH, 0}
#define dF {QF, 0}
#define dPOOL {QPOOL, 0}
#define dCTX {QCTX, 0}
#define dCAP {QCAP, 0}
#define dTIN {QTIN, 0}
#define dOUTP {QOUTP, 0}
#define dPS {QPS, 0}
#define dPOS {QPOS, 0}
#define dO_8 {QO, 8}
#define dO_4 {QO, 4}
#define dD_2 {QD, 2}
#define dD_6 {QD, 6}
#define dD_3 {QD, 3}
#define dD_5 {QD, 5}
#define dD_9 {QD, 9}
#define END {NULL, 0, 0, 0, {{0, 0}}, Z_}

/* ==== units ==== */

/* a resnet: group norms, two 3x3 convolutions, the timestep's shift */
static const struct nline u_resnet[] = {
	NORMWB("norm1", NORM, 0, 0, I_),
	CONV("conv1", CONV, 0, 0, O_, I_, K3),
	LINT("time_emb_proj", TIME_EMBED, F_TEMB, 0, O_, dT, T_ONE),
	NORMWB("norm2", NORM, 0, 0, O_),
	CONV("conv2", CONV, 0, 0, O_, O_, K3),
	CONV("conv_shortcut", CONV, F_SHORT, 0, O_, I_, K1),
	END,
};

/* a 3x3 down- or upsampling convolution */
static const struct nline u_sampler[] = {
	CONV("conv", CONV, 0, 0, O_, O_, K3),
	END,
};

/* a UNet's Transformer2DModel around its blocks */
static const struct nline u_t2d[] = {
	NORMWB("norm", NORM, 0, 0, O_),
	LIN("proj_in", CONV, F_LIN, 0, O_, O_),
	CONV("proj_in", CONV, 0, F_LIN, O_, O_, K1),
	LIN("proj_out", CONV, F_LIN, 0, O_, O_),
	CONV("proj_out", CONV, 0, F_LIN, O_, O_, K1),
	END,
};

/* BasicTransformerBlock: self-attention, cross-attention to the text,
 * a GEGLU feed-forward (its proj holds value and gate) */
static const struct nline u_basic[] = {
	NORMWB("norm1", ATTN_NORM, 0, 0, O_),
	LINNBA("attn1.to_q", ATTN_Q, 0, 0, O_, O_, A_SELF, O_),
	LINNB("attn1.to_k", ATTN_K, 0, 0, O_, O_),
	LINNB("attn1.to_v", ATTN_V, 0, 0, O_, O_),
	LIN("attn1.to_out.0", ATTN_O, 0, 0, O_, O_),
	NORMWB("norm2", XATTN_NORM, 0, 0, O_),
	LINNBA("attn2.to_q", XATTN_Q, 0, 0, O_, O_, A_TXT, O_),
	LINNBT("attn2.to_k", XATTN_K, 0, 0, O_, dX, T_TXT),
	LINNBT("attn2.to_v", XATTN_V, 0, 0, O_, dX, T_TXT),
	LIN("attn2.to_out.0", XATTN_O, 0, 0, O_, O_),
	NORMWB("norm3", FFN_NORM, 0, 0, O_),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dO_8, O_),
	LIN("ff.net.2", FFN_DOWN, 0, 0, O_, dO_4),
	END,
};

/* a VAE's single-head attention with biases */
static const struct nline u_vae_attn[] = {
	NORMWB("group_norm", NORM, 0, 0, O_),
	LINA("to_q", ATTN_Q, 0, 0, O_, O_, T_IMG, A_SELF, O_),
	LIN("to_k", ATTN_K, 0, 0, O_, O_),
	LIN("to_v", ATTN_V, 0, 0, O_, O_),
	LIN("to_out.0", ATTN_O, 0, 0, O_, O_),
	END,
};

/* UNet2DConditionModel's own layers */
static const struct nline u_unet[] = {
	CONV("conv_in", CONV, 0, 0, dB0, dCIN, dKIN),
	LINT("time_embedding.linear_1", TIME_EMBED, 0, 0, dT, dB0, T_ONE),
	LINT("time_embedding.linear_2", TIME_EMBED, 0, 0, dT, dT, T_ONE),
	LINT("add_embedding.linear_1", COND_EMBED, F_TEXTTIME, 0, dT, dADD, T_ONE),
	LINT("add_embedding.linear_2", COND_EMBED, F_TEXTTIME, 0, dT, dT, T_ONE),
	NORMWB("conv_norm_out", NORM, 0, 0, dB0),
	CONV("conv_out", CONV, 0, 0, dCOUT, dB0, dKOUT),
	END,
};

/* AutoencoderKL's own layers: the encoder's ends (double_z: mean and
 * log-variance), the quant convolutions, the decoder's ends */
static const struct nline u_vae[] = {
	CONV("encoder.conv_in", CONV, 0, 0, dB0, dCIN, K3),
	NORMWB("encoder.conv_norm_out", NORM, 0, 0, dBL),
	CONVT("encoder.conv_out", CONV, 0, 0, dLAT2, dBL, K3, T_DEEP),
	CONVT("quant_conv", CONV, F_QC, 0, dLAT2, dLAT2, K1, T_DEEP),
	CONVT("post_quant_conv", CONV, F_PQC, 0, dLAT, dLAT, K1, T_DEEP),
	CONVT("decoder.conv_in", CONV, 0, 0, dBL, dLAT, K3, T_DEEP),
	NORMWB("decoder.conv_norm_out", NORM, 0, 0, dB0),
	CONV("decoder.conv_out", CONV, 0, 0, dCOUT, dB0, K3),
	END,
};

/* FluxTransformer2DModel's own layers */
static const struct nline u_flux[] = {
	LIN("x_embedder", PATCH_EMBED, 0, 0, DD, dCIN),
	LINT("context_embedder", COND_EMBED, 0, 0, DD, dCTX, T_TXT),
	LINT("time_text_embed.timestep_embedder.linear_1", TIME_EMBED, 0, 0, DD, dTIN, T_ONE),
	LINT("time_text_embed.timestep_embedder.linear_2", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("time_text_embed.guidance_embedder.linear_1", COND_EMBED, F_GUID, 0, DD, dTIN, T_ONE),
	LINT("time_text_embed.guidance_embedder.linear_2", COND_EMBED, F_GUID, 0, DD, DD, T_ONE),
	LINT("time_text_embed.text_embedder.linear_1", COND_EMBED, 0, 0, DD, dPOOL, T_ONE),
	LINT("time_text_embed.text_embedder.linear_2", COND_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("norm_out.linear", ADALN, 0, 0, dD_2, DD, T_ONE),
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* a double-stream (MMDiT) block: image and text streams, joint attention */
static const struct nline u_flux_double[] = {
	LINT("norm1.linear", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINT("norm1_context.linear", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINA("attn.to_q", ATTN_Q, 0, 0, DD, DD, T_IMG, A_JOINT, DD),
	LIN("attn.to_k", ATTN_K, 0, 0, DD, DD),
	LIN("attn.to_v", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_q", ATTN_Q_NORM, 0, 0, dDH),
	VEC("attn.norm_k", ATTN_K_NORM, 0, 0, dDH),
	LINT("attn.add_q_proj", ATTN_Q, 0, 0, DD, DD, T_TXT),
	LINT("attn.add_k_proj", ATTN_K, 0, 0, DD, DD, T_TXT),
	LINT("attn.add_v_proj", ATTN_V, 0, 0, DD, DD, T_TXT),
	VEC("attn.norm_added_q", ATTN_Q_NORM, 0, 0, dDH),
	VEC("attn.norm_added_k", ATTN_K_NORM, 0, 0, dDH),
	LIN("attn.to_out.0", ATTN_O, 0, 0, DD, DD),
	LINT("attn.to_add_out", ATTN_O, 0, 0, DD, DD, T_TXT),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ff.net.2", FFN_DOWN, 0, 0, DD, dF),
	LINT("ff_context.net.0.proj", FFN_UP, 0, 0, dF, DD, T_TXT),
	LINT("ff_context.net.2", FFN_DOWN, 0, 0, DD, dF, T_TXT),
	END,
};

/* a single-stream block: attention and MLP side by side, one output */
static const struct nline u_flux_single[] = {
	LINT("norm.linear", ADALN, 0, 0, dD_3, DD, T_ONE),
	LINT("proj_mlp", FFN_UP, 0, 0, dF, DD, T_ALL),
	LINA("attn.to_q", ATTN_Q, 0, 0, DD, DD, T_ALL, A_SELF, DD),
	LINT("attn.to_k", ATTN_K, 0, 0, DD, DD, T_ALL),
	LINT("attn.to_v", ATTN_V, 0, 0, DD, DD, T_ALL),
	VEC("attn.norm_q", ATTN_Q_NORM, 0, 0, dDH),
	VEC("attn.norm_k", ATTN_K_NORM, 0, 0, dDH),
	LINT("proj_out", FFN_DOWN, 0, 0, DD, dD_5, T_ALL),
	END,
};

/* SD3Transformer2DModel's own layers; pos_embed a persistent buffer */
static const struct nline u_sd3[] = {
	{"pos_embed.proj.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPS, dPS}, Z_},
	{"pos_embed.proj.bias", R(PATCH_EMBED), 0, 0, {DD}, Z_},
	{"pos_embed.pos_embed", R(BUFFER), F_BUF, 0, {{Q1, 1}, dPOS, DD}, Z_},
	LINT("time_text_embed.timestep_embedder.linear_1", TIME_EMBED, 0, 0, DD, dTIN, T_ONE),
	LINT("time_text_embed.timestep_embedder.linear_2", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("time_text_embed.text_embedder.linear_1", COND_EMBED, 0, 0, DD, dPOOL, T_ONE),
	LINT("time_text_embed.text_embedder.linear_2", COND_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("context_embedder", COND_EMBED, 0, 0, dCAP, dCTX, T_TXT),
	LINT("norm_out.linear", ADALN, 0, 0, dD_2, DD, T_ONE),
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* a JointTransformerBlock; the last one's context stream ends in its
 * attention (context_pre_only), SD3.5's dual layers attend twice */
static const struct nline u_sd3_block[] = {
	LINT("norm1.linear", ADALN, 0, F_DUAL, dD_6, DD, T_ONE),
	LINT("norm1.linear", ADALN, F_DUAL, 0, dD_9, DD, T_ONE),
	LINT("norm1_context.linear", ADALN, 0, F_PRE, dD_6, DD, T_ONE),
	LINT("norm1_context.linear", ADALN, F_PRE, 0, dD_2, DD, T_ONE),
	LINA("attn.to_q", ATTN_Q, 0, 0, DD, DD, T_IMG, A_JOINT, DD),
	LIN("attn.to_k", ATTN_K, 0, 0, DD, DD),
	LIN("attn.to_v", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_q", ATTN_Q_NORM, F_QKN, 0, dDH),
	VEC("attn.norm_k", ATTN_K_NORM, F_QKN, 0, dDH),
	LINT("attn.add_q_proj", ATTN_Q, 0, 0, DD, DD, T_TXT),
	LINT("attn.add_k_proj", ATTN_K, 0, 0, DD, DD, T_TXT),
	LINT("attn.add_v_proj", ATTN_V, 0, 0, DD, DD, T_TXT),
	VEC("attn.norm_added_q", ATTN_Q_NORM, F_QKN, 0, dDH),
	VEC("attn.norm_added_k", ATTN_K_NORM, F_QKN, 0, dDH),
	LIN("attn.to_out.0", ATTN_O, 0, 0, DD, DD),
	LINT("attn.to_add_out", ATTN_O, 0, F_PRE, DD, DD, T_TXT),
	LINA("attn2.to_q", ATTN_Q, F_DUAL, 0, DD, DD, T_IMG, A_SELF, DD),
	LIN("attn2.to_k", ATTN_K, F_DUAL, 0, DD, DD),
	LIN("attn2.to_v", ATTN_V, F_DUAL, 0, DD, DD),
	VEC("attn2.norm_q", ATTN_Q_NORM, F_DUAL | F_QKN, 0, dDH),
	VEC("attn2.norm_k", ATTN_K_NORM, F_DUAL | F_QKN, 0, dDH),
	LIN("attn2.to_out.0", ATTN_O, F_DUAL, 0, DD, DD),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ff.net.2", FFN_DOWN, 0, 0, DD, dF),
	LINT("ff_context.net.0.proj", FFN_UP, 0, F_PRE, dF, DD, T_TXT),
	LINT("ff_context.net.2", FFN_DOWN, 0, F_PRE, DD, dF, T_TXT),
	END,
};

/* FLUX as Black Forest Labs names it (a single file): the same network,
 * q, k, v fused, a single block's attention and MLP input fused */
#define dQKV {QD, 3}
#define dQKVF {QQKVF, 0}
#define dDF {QDF, 0}
static const struct nline u_bfl[] = {
	LIN("img_in", PATCH_EMBED, 0, 0, DD, dCIN),
	LINT("txt_in", COND_EMBED, 0, 0, DD, dCTX, T_TXT),
	LINT("time_in.in_layer", TIME_EMBED, 0, 0, DD, dTIN, T_ONE),
	LINT("time_in.out_layer", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("guidance_in.in_layer", COND_EMBED, F_GUID, 0, DD, dTIN, T_ONE),
	LINT("guidance_in.out_layer", COND_EMBED, F_GUID, 0, DD, DD, T_ONE),
	LINT("vector_in.in_layer", COND_EMBED, 0, 0, DD, dPOOL, T_ONE),
	LINT("vector_in.out_layer", COND_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("final_layer.adaLN_modulation.1", ADALN, 0, 0, dD_2, DD, T_ONE),
	LIN("final_layer.linear", CONV, 0, 0, dOUTP, DD),
	END,
};
static const struct nline u_bfl_double[] = {
	LINT("img_mod.lin", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINT("txt_mod.lin", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINA("img_attn.qkv", ATTN_QKV, 0, 0, dQKV, DD, T_IMG, A_JOINT, DD),
	RAW("img_attn.norm.query_norm.scale", ATTN_Q_NORM, 0, 0, dDH),
	RAW("img_attn.norm.key_norm.scale", ATTN_K_NORM, 0, 0, dDH),
	LIN("img_attn.proj", ATTN_O, 0, 0, DD, DD),
	LINT("txt_attn.qkv", ATTN_QKV, 0, 0, dQKV, DD, T_TXT),
	RAW("txt_attn.norm.query_norm.scale", ATTN_Q_NORM, 0, 0, dDH),
	RAW("txt_attn.norm.key_norm.scale", ATTN_K_NORM, 0, 0, dDH),
	LINT("txt_attn.proj", ATTN_O, 0, 0, DD, DD, T_TXT),
	LIN("img_mlp.0", FFN_UP, 0, 0, dF, DD),
	LIN("img_mlp.2", FFN_DOWN, 0, 0, DD, dF),
	LINT("txt_mlp.0", FFN_UP, 0, 0, dF, DD, T_TXT),
	LINT("txt_mlp.2", FFN_DOWN, 0, 0, DD, dF, T_TXT),
	END,
};
static const struct nline u_bfl_single[] = {
	LINT("modulation.lin", ADALN, 0, 0, dD_3, DD, T_ONE),
	LINA("linear1", ATTN_QKV, 0, 0, dQKVF, DD, T_ALL, A_SELF, DD),
	RAW("norm.query_norm.scale", ATTN_Q_NORM, 0, 0, dDH),
	RAW("norm.key_norm.scale", ATTN_K_NORM, 0, 0, dDH),
	LINT("linear2", FFN_DOWN, 0, 0, DD, dDF, T_ALL),
	END,
};

/* SD3 as Stability AI names it (its single files; ComfyUI-GGUF's "sd3"):
 * the same MMDiT, q, k, v fused, x_block the image stream and
 * context_block the text's; pos_embed a buffer as in diffusers */
static const struct nline u_sai[] = {
	{"pos_embed", R(BUFFER), F_BUF, 0, {{Q1, 1}, dPOS, DD}, Z_},
	{"x_embedder.proj.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPS, dPS}, Z_},
	{"x_embedder.proj.bias", R(PATCH_EMBED), 0, 0, {DD}, Z_},
	LINT("t_embedder.mlp.0", TIME_EMBED, 0, 0, DD, dTIN, T_ONE),
	LINT("t_embedder.mlp.2", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("y_embedder.mlp.0", COND_EMBED, 0, 0, DD, dPOOL, T_ONE),
	LINT("y_embedder.mlp.2", COND_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("context_embedder", COND_EMBED, 0, 0, dCAP, dCTX, T_TXT),
	LINT("final_layer.adaLN_modulation.1", ADALN, 0, 0, dD_2, DD, T_ONE),
	LIN("final_layer.linear", CONV, 0, 0, dOUTP, DD),
	END,
};
static const struct nline u_sai_block[] = {
	LINT("x_block.adaLN_modulation.1", ADALN, 0, F_DUAL, dD_6, DD, T_ONE),
	LINT("x_block.adaLN_modulation.1", ADALN, F_DUAL, 0, dD_9, DD, T_ONE),
	LINA("x_block.attn.qkv", ATTN_QKV, 0, 0, dQKV, DD, T_IMG, A_JOINT, DD),
	VEC("x_block.attn.ln_q", ATTN_Q_NORM, F_QKN, 0, dDH),
	VEC("x_block.attn.ln_k", ATTN_K_NORM, F_QKN, 0, dDH),
	LIN("x_block.attn.proj", ATTN_O, 0, 0, DD, DD),
	LINA("x_block.attn2.qkv", ATTN_QKV, F_DUAL, 0, dQKV, DD, T_IMG, A_SELF, DD),
	VEC("x_block.attn2.ln_q", ATTN_Q_NORM, F_DUAL | F_QKN, 0, dDH),
	VEC("x_block.attn2.ln_k", ATTN_K_NORM, F_DUAL | F_QKN, 0, dDH),
	LIN("x_block.attn2.proj", ATTN_O, F_DUAL, 0, DD, DD),
	LIN("x_block.mlp.fc1", FFN_UP, 0, 0, dF, DD),
	LIN("x_block.mlp.fc2", FFN_DOWN, 0, 0, DD, dF),
	LINT("context_block.adaLN_modulation.1", ADALN, 0, F_PRE, dD_6, DD, T_ONE),
	LINT("context_block.adaLN_modulation.1", ADALN, F_PRE, 0, dD_2, DD, T_ONE),
	LINT("context_block.attn.qkv", ATTN_QKV, 0, 0, dQKV, DD, T_TXT),
	VEC("context_block.attn.ln_q", ATTN_Q_NORM, F_QKN, 0, dDH),
	VEC("context_block.attn.ln_k", ATTN_K_NORM, F_QKN, 0, dDH),
	LINT("context_block.attn.proj", ATTN_O, 0, F_PRE, DD, DD, T_TXT),
	LINT("context_block.mlp.fc1", FFN_UP, 0, F_PRE, dF, DD, T_TXT),
	LINT("context_block.mlp.fc2", FFN_DOWN, 0, F_PRE, DD, dF, T_TXT),
	END,
};

/* The original Stable Diffusion names (LDM / SGM, a single file): the
 * same networks, modules numbered as the original code builds them. */
static const struct nline u_ldm_resnet[] = {
	NORMWB("in_layers.0", NORM, 0, 0, I_),
	CONV("in_layers.2", CONV, 0, 0, O_, I_, K3),
	LINT("emb_layers.1", TIME_EMBED, F_TEMB, 0, O_, dT, T_ONE),
	NORMWB("out_layers.0", NORM, 0, 0, O_),
	CONV("out_layers.3", CONV, 0, 0, O_, O_, K3),
	CONV("skip_connection", CONV, F_SHORT, 0, O_, I_, K1),
	END,
};
/* a UNet's downsampler: its strided convolution */
static const struct nline u_ldm_op[] = {
	CONV("op", CONV, 0, 0, O_, O_, K3),
	END,
};
static const struct nline u_ldm_unet[] = {
	CONV("input_blocks.0.0", CONV, 0, 0, dB0, dCIN, dKIN),
	LINT("time_embed.0", TIME_EMBED, 0, 0, dT, dB0, T_ONE),
	LINT("time_embed.2", TIME_EMBED, 0, 0, dT, dT, T_ONE),
	LINT("label_emb.0.0", COND_EMBED, F_TEXTTIME, 0, dT, dADD, T_ONE),
	LINT("label_emb.0.2", COND_EMBED, F_TEXTTIME, 0, dT, dT, T_ONE),
	NORMWB("out.0", NORM, 0, 0, dB0),
	CONV("out.2", CONV, 0, 0, dCOUT, dB0, dKOUT),
	END,
};
static const struct nline u_ldm_vae_resnet[] = {
	NORMWB("norm1", NORM, 0, 0, I_),
	CONV("conv1", CONV, 0, 0, O_, I_, K3),
	NORMWB("norm2", NORM, 0, 0, O_),
	CONV("conv2", CONV, 0, 0, O_, O_, K3),
	CONV("nin_shortcut", CONV, F_SHORT, 0, O_, I_, K1),
	END,
};
/* q, k, v and the output as 1x1 convolutions (diffusers' linears: the
 * same count) */
static const struct nline u_ldm_vae_attn[] = {
	NORMWB("norm", NORM, 0, 0, O_),
	{"q.weight", R(ATTN_Q), 0, 0, {O_, O_, K1, K1}, T_IMG, A_SELF, O_},
	{"q.bias", R(ATTN_Q), 0, 0, {O_}, Z_},
	CONV("k", ATTN_K, 0, 0, O_, O_, K1),
	CONV("v", ATTN_V, 0, 0, O_, O_, K1),
	CONV("proj_out", ATTN_O, 0, 0, O_, O_, K1),
	END,
};
static const struct nline u_ldm_vae[] = {
	CONV("encoder.conv_in", CONV, 0, 0, dB0, dCIN, K3),
	NORMWB("encoder.norm_out", NORM, 0, 0, dBL),
	CONVT("encoder.conv_out", CONV, 0, 0, dLAT2, dBL, K3, T_DEEP),
	CONVT("quant_conv", CONV, F_QC, 0, dLAT2, dLAT2, K1, T_DEEP),
	CONVT("post_quant_conv", CONV, F_PQC, 0, dLAT, dLAT, K1, T_DEEP),
	CONVT("decoder.conv_in", CONV, 0, 0, dBL, dLAT, K3, T_DEEP),
	NORMWB("decoder.norm_out", NORM, 0, 0, dB0),
	CONV("decoder.conv_out", CONV, 0, 0, dCOUT, dB0, K3),
	END,
};

/* PixArt's own layers (PixArtTransformer2DModel, and Transformer2DModel
 * with norm_type ada_norm_single): the patch embedding, AdaLN-single (the
 * timestep's embedding, PixArt-α's resolution and aspect-ratio ones, one
 * linear to the six modulations every block shares), the caption
 * projection, the final modulation table and projection.  The sin-cos
 * position table is not stored (no pos_embed_max_size). */
#define dSZ {QSZ, 0}
#define dXI {QXI, 0}
#define dF_2 {QF, 2}
static const struct nline u_pixart[] = {
	{"pos_embed.proj.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPS, dPS}, Z_},
	{"pos_embed.proj.bias", R(PATCH_EMBED), 0, 0, {DD}, Z_},
	LINT("adaln_single.emb.timestep_embedder.linear_1", TIME_EMBED, 0, 0, DD, dTIN, T_ONE),
	LINT("adaln_single.emb.timestep_embedder.linear_2", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("adaln_single.emb.resolution_embedder.linear_1", COND_EMBED, F_ADDCOND, 0, dSZ, dTIN, T_ONE),
	LINT("adaln_single.emb.resolution_embedder.linear_2", COND_EMBED, F_ADDCOND, 0, dSZ, dSZ, T_ONE),
	LINT("adaln_single.emb.aspect_ratio_embedder.linear_1", COND_EMBED, F_ADDCOND, 0, dSZ, dTIN, T_ONE),
	LINT("adaln_single.emb.aspect_ratio_embedder.linear_2", COND_EMBED, F_ADDCOND, 0, dSZ, dSZ, T_ONE),
	LINT("adaln_single.linear", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINT("caption_projection.linear_1", COND_EMBED, F_CAPT, 0, DD, dCTX, T_TXT),
	LINT("caption_projection.linear_2", COND_EMBED, F_CAPT, 0, DD, DD, T_TXT),
	{"scale_shift_table", R(ADALN), 0, 0, {{Q1, 2}, DD}, T_ONE, 0, {0, 0}},
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* BasicTransformerBlock as AdaLN-single builds it: norms without affine
 * parameters (unless norm_elementwise_affine), self- and cross-attention
 * (biases per attention_bias), a GELU feed-forward, the block's own
 * modulation table */
static const struct nline u_pixart_block[] = {
	NORMWB("norm1", ATTN_NORM, F_AFFINE, 0, DD),
	LINA("attn1.to_q", ATTN_Q, F_ABIAS, 0, DD, DD, T_IMG, A_SELF, DD),
	LINNBA("attn1.to_q", ATTN_Q, 0, F_ABIAS, DD, DD, A_SELF, DD),
	LIN("attn1.to_k", ATTN_K, F_ABIAS, 0, DD, DD),
	LINNB("attn1.to_k", ATTN_K, 0, F_ABIAS, DD, DD),
	LIN("attn1.to_v", ATTN_V, F_ABIAS, 0, DD, DD),
	LINNB("attn1.to_v", ATTN_V, 0, F_ABIAS, DD, DD),
	LIN("attn1.to_out.0", ATTN_O, 0, 0, DD, DD),
	NORMWB("norm2", XATTN_NORM, F_AFFINE, 0, DD),
	LINA("attn2.to_q", XATTN_Q, F_ABIAS, 0, DD, DD, T_IMG, A_TXT, DD),
	LINNBA("attn2.to_q", XATTN_Q, 0, F_ABIAS, DD, DD, A_TXT, DD),
	LINT("attn2.to_k", XATTN_K, F_ABIAS, 0, DD, dX, T_TXT),
	LINNBT("attn2.to_k", XATTN_K, 0, F_ABIAS, DD, dX, T_TXT),
	LINT("attn2.to_v", XATTN_V, F_ABIAS, 0, DD, dX, T_TXT),
	LINNBT("attn2.to_v", XATTN_V, 0, F_ABIAS, DD, dX, T_TXT),
	LIN("attn2.to_out.0", XATTN_O, 0, 0, DD, DD),
	NORMWB("norm3", FFN_NORM, F_AFFINE, 0, DD),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ff.net.2", FFN_DOWN, 0, 0, DD, dF),
	{"scale_shift_table", R(ADALN), 0, 0, {{Q1, 6}, DD}, T_ONE, 0, {0, 0}},
	END,
};

/* SanaTransformer2DModel's own layers: as PixArt's, AdaLN-single (or,
 * with guidance_embeds, the timestep's and the guidance's embedders
 * beside it), the caption projection and its RMS norm */
static const struct nline u_sana[] = {
	{"patch_embed.proj.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPS, dPS}, Z_},
	{"patch_embed.proj.bias", R(PATCH_EMBED), 0, 0, {DD}, Z_},
	LINT("time_embed.emb.timestep_embedder.linear_1", TIME_EMBED, 0, F_GUID, DD, dTIN, T_ONE),
	LINT("time_embed.emb.timestep_embedder.linear_2", TIME_EMBED, 0, F_GUID, DD, DD, T_ONE),
	LINT("time_embed.timestep_embedder.linear_1", TIME_EMBED, F_GUID, 0, DD, dTIN, T_ONE),
	LINT("time_embed.timestep_embedder.linear_2", TIME_EMBED, F_GUID, 0, DD, DD, T_ONE),
	LINT("time_embed.guidance_embedder.linear_1", COND_EMBED, F_GUID, 0, DD, dTIN, T_ONE),
	LINT("time_embed.guidance_embedder.linear_2", COND_EMBED, F_GUID, 0, DD, DD, T_ONE),
	LINT("time_embed.linear", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINT("caption_projection.linear_1", COND_EMBED, 0, 0, DD, dCTX, T_TXT),
	LINT("caption_projection.linear_2", COND_EMBED, 0, 0, DD, DD, T_TXT),
	VEC("caption_norm", NORM, 0, 0, DD),
	{"scale_shift_table", R(ADALN), 0, 0, {{Q1, 2}, DD}, T_ONE, 0, {0, 0}},
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* SanaTransformerBlock: linear self-attention (biases per
 * attention_bias), cross-attention of its own heads and width, q/k RMS
 * norms across heads (qk_norm), the GLUMBConv feed-forward (a 1x1
 * convolution to value and gate, a depthwise 3x3, a 1x1 back without
 * bias), the block's modulation table */
static const struct nline u_sana_block[] = {
	LIN("attn1.to_q", ATTN_Q, F_ABIAS, 0, DD, DD),
	LINNB("attn1.to_q", ATTN_Q, 0, F_ABIAS, DD, DD),
	LIN("attn1.to_k", ATTN_K, F_ABIAS, 0, DD, DD),
	LINNB("attn1.to_k", ATTN_K, 0, F_ABIAS, DD, DD),
	LIN("attn1.to_v", ATTN_V, F_ABIAS, 0, DD, DD),
	LINNB("attn1.to_v", ATTN_V, 0, F_ABIAS, DD, DD),
	VEC("attn1.norm_q", ATTN_Q_NORM, F_QKN, 0, DD),
	VEC("attn1.norm_k", ATTN_K_NORM, F_QKN, 0, DD),
	LIN("attn1.to_out.0", ATTN_O, 0, 0, DD, DD),
	LINA("attn2.to_q", XATTN_Q, 0, 0, dXI, DD, T_IMG, A_TXT, dXI),
	LINT("attn2.to_k", XATTN_K, 0, 0, dXI, dX, T_TXT),
	LINT("attn2.to_v", XATTN_V, 0, 0, dXI, dX, T_TXT),
	VEC("attn2.norm_q", ATTN_Q_NORM, F_QKN, 0, dXI),
	VEC("attn2.norm_k", ATTN_K_NORM, F_QKN, 0, dXI),
	LIN("attn2.to_out.0", XATTN_O, 0, 0, DD, dXI),
	NORMWB("norm2", FFN_NORM, F_AFFINE, 0, DD),
	{"ff.conv_inverted.weight", R(FFN_GATE_UP), 0, 0, {dF_2, DD, K1, K1}, Z_},
	{"ff.conv_inverted.bias", R(FFN_GATE_UP), 0, 0, {dF_2}, Z_},
	{"ff.conv_depth.weight", R(CONV), 0, 0, {dF_2, K1, K3, K3}, Z_},
	{"ff.conv_depth.bias", R(CONV), 0, 0, {dF_2}, Z_},
	{"ff.conv_point.weight", R(FFN_DOWN), 0, 0, {DD, dF, K1, K1}, Z_},
	{"scale_shift_table", R(ADALN), 0, 0, {{Q1, 6}, DD}, T_ONE, 0, {0, 0}},
	END,
};

/* WanTransformer3DModel's own layers: the 3-D patch embedding, the
 * condition embedder (the timestep's embedding and its projection to
 * the six modulations every block shares, the text's projection; an
 * image encoder's features and, for first-last-frame models, their
 * positions), the final modulation table and projection */
#define dPT {QPT, 0}
#define dPH {QPH, 0}
#define dPW {QPW, 0}
#define dFREQ {QFREQ, 0}
#define dIMG {QIMG, 0}
#define dAKV {QAKV, 0}
static const struct nline u_wan[] = {
	{"patch_embedding.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPT, dPH, dPW}, Z_},
	{"patch_embedding.bias", R(PATCH_EMBED), 0, 0, {DD}, Z_},
	LINT("condition_embedder.time_embedder.linear_1", TIME_EMBED, 0, 0, DD, dFREQ, T_ONE),
	LINT("condition_embedder.time_embedder.linear_2", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("condition_embedder.time_proj", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINT("condition_embedder.text_embedder.linear_1", COND_EMBED, 0, 0, DD, dCTX, T_TXT),
	LINT("condition_embedder.text_embedder.linear_2", COND_EMBED, 0, 0, DD, DD, T_TXT),
	NORMWB("condition_embedder.image_embedder.norm1", NORM, F_IMG, 0, dIMG),
	LINT("condition_embedder.image_embedder.ff.net.0.proj", COND_EMBED, F_IMG, 0, dIMG, dIMG, T_TXT),
	LINT("condition_embedder.image_embedder.ff.net.2", COND_EMBED, F_IMG, 0, DD, dIMG, T_TXT),
	NORMWB("condition_embedder.image_embedder.norm2", NORM, F_IMG, 0, DD),
	{"condition_embedder.image_embedder.pos_embed", R(POS_EMBED), F_IMG | F_IPOS, 0, {K1, {QPSL, 0}, dIMG}, T_ONE, 0, {0, 0}},
	{"scale_shift_table", R(ADALN), 0, 0, {K1, {Q1, 2}, DD}, T_ONE, 0, {0, 0}},
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* WanTransformerBlock: self-attention and cross-attention with biases
 * and q/k RMS norms across heads, an affine norm before the
 * cross-attention (cross_attn_norm), the image's own keys and values
 * (I2V: added_kv_proj_dim), a GELU feed-forward, the block's modulation
 * table */
static const struct nline u_wan_block[] = {
	LINA("attn1.to_q", ATTN_Q, 0, 0, DD, DD, T_IMG, A_SELF, DD),
	LIN("attn1.to_k", ATTN_K, 0, 0, DD, DD),
	LIN("attn1.to_v", ATTN_V, 0, 0, DD, DD),
	VEC("attn1.norm_q", ATTN_Q_NORM, F_QKN, 0, DD),
	VEC("attn1.norm_k", ATTN_K_NORM, F_QKN, 0, DD),
	LIN("attn1.to_out.0", ATTN_O, 0, 0, DD, DD),
	NORMWB("norm2", XATTN_NORM, F_XNORM, 0, DD),
	LINA("attn2.to_q", XATTN_Q, 0, 0, DD, DD, T_IMG, A_TXT, DD),
	LINT("attn2.to_k", XATTN_K, 0, 0, DD, DD, T_TXT),
	LINT("attn2.to_v", XATTN_V, 0, 0, DD, DD, T_TXT),
	VEC("attn2.norm_q", ATTN_Q_NORM, F_QKN, 0, DD),
	VEC("attn2.norm_k", ATTN_K_NORM, F_QKN, 0, DD),
	LINT("attn2.add_k_proj", XATTN_K, F_AKV, 0, DD, dAKV, T_TXT),
	LINT("attn2.add_v_proj", XATTN_V, F_AKV, 0, DD, dAKV, T_TXT),
	VEC("attn2.norm_added_k", ATTN_K_NORM, F_AKV, 0, DD),
	LIN("attn2.to_out.0", XATTN_O, 0, 0, DD, DD),
	LIN("ffn.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ffn.net.2", FFN_DOWN, 0, 0, DD, dF),
	{"scale_shift_table", R(ADALN), 0, 0, {K1, {Q1, 6}, DD}, T_ONE, 0, {0, 0}},
	END,
};

/* AutoencoderKLWan (Wan 2.1's causal video VAE): 3-D convolutions, RMS
 * norms whose gamma broadcasts over time and space.  A resnet: */
#define K1_3 K1, K1, K1
#define K3_3 K3, K3, K3
static const struct nline u_wres[] = {
	{"norm1.gamma", R(NORM), 0, 0, {I_, K1_3}, T_ONE, 0, {0, 0}},
	{"conv1.weight", R(CONV), 0, 0, {O_, I_, K3_3}, Z_},
	{"conv1.bias", R(CONV), 0, 0, {O_}, Z_},
	{"norm2.gamma", R(NORM), 0, 0, {O_, K1_3}, T_ONE, 0, {0, 0}},
	{"conv2.weight", R(CONV), 0, 0, {O_, O_, K3_3}, Z_},
	{"conv2.bias", R(CONV), 0, 0, {O_}, Z_},
	{"conv_shortcut.weight", R(CONV), F_SHORT, 0, {O_, I_, K1_3}, Z_},
	{"conv_shortcut.bias", R(CONV), F_SHORT, 0, {O_}, Z_},
	END,
};
/* a single-head attention per frame: q, k, v in one 1x1 convolution */
static const struct nline u_wattn[] = {
	{"norm.gamma", R(NORM), 0, 0, {O_, K1, K1}, T_ONE, 0, {0, 0}},
	{"to_qkv.weight", R(ATTN_QKV), 0, 0, {{QO, 3}, O_, K1, K1}, T_IMG, A_SELF, O_},
	{"to_qkv.bias", R(ATTN_QKV), 0, 0, {{QO, 3}}, Z_},
	{"proj.weight", R(ATTN_O), 0, 0, {O_, O_, K1, K1}, Z_},
	{"proj.bias", R(ATTN_O), 0, 0, {O_}, Z_},
	END,
};
/* downsampling: a strided 3x3 per frame, then (F_TIME) a strided causal
 * convolution over time */
static const struct nline u_wdown[] = {
	{"resample.1.weight", R(CONV), 0, 0, {O_, O_, K3, K3}, Z_},
	{"resample.1.bias", R(CONV), 0, 0, {O_}, Z_},
	{"time_conv.weight", R(CONV), F_TIME, 0, {O_, O_, K3, K1, K1}, Z_},
	{"time_conv.bias", R(CONV), F_TIME, 0, {O_}, Z_},
	END,
};
/* upsampling: a 3x3 to half the width per frame, (F_TIME) a causal
 * convolution doubling the frames first */
static const struct nline u_wup[] = {
	{"resample.1.weight", R(CONV), 0, 0, {{QOH, 0}, O_, K3, K3}, Z_},
	{"resample.1.bias", R(CONV), 0, 0, {{QOH, 0}}, Z_},
	{"time_conv.weight", R(CONV), F_TIME, 0, {{QO, 2}, O_, K3, K1, K1}, Z_},
	{"time_conv.bias", R(CONV), F_TIME, 0, {{QO, 2}}, Z_},
	END,
};
/* its own layers: the encoder's ends (mean and log-variance), the quant
 * convolutions, the decoder's ends */
static const struct nline u_wvae[] = {
	{"encoder.conv_in.weight", R(CONV), 0, 0, {dB0, dCIN, K3_3}, Z_},
	{"encoder.conv_in.bias", R(CONV), 0, 0, {dB0}, Z_},
	{"encoder.norm_out.gamma", R(NORM), 0, 0, {dBL, K1_3}, T_ONE, 0, {0, 0}},
	{"encoder.conv_out.weight", R(CONV), 0, 0, {dLAT2, dBL, K3_3}, T_DEEP, 0, {0, 0}},
	{"encoder.conv_out.bias", R(CONV), 0, 0, {dLAT2}, T_DEEP, 0, {0, 0}},
	{"quant_conv.weight", R(CONV), 0, 0, {dLAT2, dLAT2, K1_3}, T_DEEP, 0, {0, 0}},
	{"quant_conv.bias", R(CONV), 0, 0, {dLAT2}, T_DEEP, 0, {0, 0}},
	{"post_quant_conv.weight", R(CONV), 0, 0, {dLAT, dLAT, K1_3}, T_DEEP, 0, {0, 0}},
	{"post_quant_conv.bias", R(CONV), 0, 0, {dLAT}, T_DEEP, 0, {0, 0}},
	{"decoder.conv_in.weight", R(CONV), 0, 0, {{QDTOP, 0}, dLAT, K3_3}, T_DEEP, 0, {0, 0}},
	{"decoder.conv_in.bias", R(CONV), 0, 0, {{QDTOP, 0}}, T_DEEP, 0, {0, 0}},
	{"decoder.norm_out.gamma", R(NORM), 0, 0, {{QDBOT, 0}, K1_3}, T_ONE, 0, {0, 0}},
	{"decoder.conv_out.weight", R(CONV), 0, 0, {dCOUT, {QDBOT, 0}, K3_3}, Z_},
	{"decoder.conv_out.bias", R(CONV), 0, 0, {dCOUT}, Z_},
	END,
};

/* Wan's transformer as its original code names it (a single file, as
 * ComfyUI's repackaged ones): the same network; its norm3 is diffusers'
 * norm2, the affine norm before the cross-attention */
static const struct nline u_wan_orig[] = {
	{"patch_embedding.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPT, dPH, dPW}, Z_},
	{"patch_embedding.bias", R(PATCH_EMBED), 0, 0, {DD}, Z_},
	LINT("time_embedding.0", TIME_EMBED, 0, 0, DD, dFREQ, T_ONE),
	LINT("time_embedding.2", TIME_EMBED, 0, 0, DD, DD, T_ONE),
	LINT("time_projection.1", ADALN, 0, 0, dD_6, DD, T_ONE),
	LINT("text_embedding.0", COND_EMBED, 0, 0, DD, dCTX, T_TXT),
	LINT("text_embedding.2", COND_EMBED, 0, 0, DD, DD, T_TXT),
	NORMWB("img_emb.proj.0", NORM, F_IMG, 0, dIMG),
	LINT("img_emb.proj.1", COND_EMBED, F_IMG, 0, dIMG, dIMG, T_TXT),
	LINT("img_emb.proj.3", COND_EMBED, F_IMG, 0, DD, dIMG, T_TXT),
	NORMWB("img_emb.proj.4", NORM, F_IMG, 0, DD),
	{"img_emb.emb_pos", R(POS_EMBED), F_IMG | F_IPOS, 0, {K1, {QPSL, 0}, dIMG}, T_ONE, 0, {0, 0}},
	{"head.modulation", R(ADALN), 0, 0, {K1, {Q1, 2}, DD}, T_ONE, 0, {0, 0}},
	LIN("head.head", CONV, 0, 0, dOUTP, DD),
	END,
};
static const struct nline u_wan_orig_block[] = {
	LINA("self_attn.q", ATTN_Q, 0, 0, DD, DD, T_IMG, A_SELF, DD),
	LIN("self_attn.k", ATTN_K, 0, 0, DD, DD),
	LIN("self_attn.v", ATTN_V, 0, 0, DD, DD),
	VEC("self_attn.norm_q", ATTN_Q_NORM, F_QKN, 0, DD),
	VEC("self_attn.norm_k", ATTN_K_NORM, F_QKN, 0, DD),
	LIN("self_attn.o", ATTN_O, 0, 0, DD, DD),
	NORMWB("norm3", XATTN_NORM, F_XNORM, 0, DD),
	LINA("cross_attn.q", XATTN_Q, 0, 0, DD, DD, T_IMG, A_TXT, DD),
	LINT("cross_attn.k", XATTN_K, 0, 0, DD, DD, T_TXT),
	LINT("cross_attn.v", XATTN_V, 0, 0, DD, DD, T_TXT),
	VEC("cross_attn.norm_q", ATTN_Q_NORM, F_QKN, 0, DD),
	VEC("cross_attn.norm_k", ATTN_K_NORM, F_QKN, 0, DD),
	LINT("cross_attn.k_img", XATTN_K, F_AKV, 0, DD, dAKV, T_TXT),
	LINT("cross_attn.v_img", XATTN_V, F_AKV, 0, DD, dAKV, T_TXT),
	VEC("cross_attn.norm_k_img", ATTN_K_NORM, F_AKV, 0, DD),
	LIN("cross_attn.o", XATTN_O, 0, 0, DD, DD),
	LIN("ffn.0", FFN_UP, 0, 0, dF, DD),
	LIN("ffn.2", FFN_DOWN, 0, 0, DD, dF),
	{"modulation", R(ADALN), 0, 0, {K1, {Q1, 6}, DD}, T_ONE, 0, {0, 0}},
	END,
};

/* ==== layouts ==== */

/* a count key: its quantity, its default (0: required; else_q: the value
 * of another quantity × mul when absent) */
struct nkey {
	const char *key;
	unsigned char q;
	uint64_t def;
	unsigned char else_q, mul;
};
/* q = a × b (× mul) (+ plus), where a quantity is derived */
struct nderive {
	unsigned char q, a, b, mul, plus;
};
/* a boolean key that turns a switch on (or, inverted, off) */
struct nflag {
	const char *key;
	unsigned flag;
	bool def;
};
/* a string key: the switch a value turns on; other values (and keys the
 * class has no layout for) leave the class without a formula */
struct nstr {
	const char *key;
	const char *value;   /* NULL: only null / absent / false is read */
	unsigned flag;
};
/* blocks repeated count times */
struct nrep {
	const char *fmt;     /* "transformer_blocks.%u." */
	const struct nline *unit;
	unsigned char count;  /* quantity */
	bool last_pre_only;  /* the last block is F_PRE */
	const char *dual_key; /* a list of the blocks that are F_DUAL */
};
/* a level's block type and whether it attends */
struct nbtype {
	const char *name;
	bool attn;
};
/* a stack of levels, one per block_out_channels entry */
struct nlevels {
	const char *fmt;     /* "down_blocks.%u." */
	const char *types_key;
	const struct nbtype *types;
	bool up;             /* widths reversed, a resnet more, inputs from the level before */
	bool skips;          /* a UNet's skip connections widen the up resnets */
	const char *sampler; /* on every level but the last */
	unsigned flags;
};
/* a mid block: resnet, attention (a transformer or a VAE attention), resnet */
struct nmid {
	const char *prefix;
	const char *type_key; /* UNet: mid_block_type (null: none) */
	const char *type;
	bool transformer;
	unsigned flags, attn_need;
};

struct nclass {
	const char *cls, *kind;
	const struct nkey *keys;
	const struct nderive *derive;
	const struct nflag *flags;
	const struct nstr *strs;
	const struct nline *own;
	const struct nrep *reps;
	const struct nlevels *levels;
	const struct nmid *mid;
	const struct nkey *counts; /* the repeats' block counts */
	/* a layout found by its names in a file without a config (a
	 * single file): the tensor that tells it, the quantities read
	 * from shapes, the switches told by a tensor's presence */
	const char *detect;
	const struct nprobe *probes;
	const char *twin;    /* the diffusers class it is a layout of */
	/* flops: the name prefixes of a VAE's encode pass; the text tokens
	 * its pipeline gives per prompt (the denoiser's context), those of a
	 * T5 encoder there; the latent positions per token side its pipeline
	 * packs beyond patch_size; the latent sample size its pipeline
	 * defaults to when the config has none */
	const char *const *encode;
	uint64_t text_tokens, long_text_tokens, pack, sample_def;
	/* general.architecture of a GGUF file of this layout (ComfyUI-GGUF's
	 * converter keeps the original names): one family or two (sd1 and
	 * sdxl share one layout), the first what mkmodel writes */
	const char *gguf[2];
	const struct nkey *level_keys; /* a value per level (see unet_level_keys) */
	/* a file's blocks of the second attention (SD3.5's dual layers):
	 * those whose names hold dual_prefix N dual_suffix, read as the
	 * config's list of the reps' dual_key */
	const char *dual_prefix, *dual_suffix;
};

/* a quantity read from a tensor's shape (dim), or a block count from the
 * names under a prefix (name ends in '.'), or a switch (flag) on when
 * the tensor is present */
struct nprobe {
	const char *name;    /* a leading '*': any name ending so */
	unsigned char dim, q; /* a switch's dim: the dims the tensor must have (0: any) */
	unsigned flag;
};

/* A stack of levels as the original code numbers its modules: name
 * formats of a resnet, an attention and a sampler.  `running`: one number
 * per row of modules (input_blocks.N: a resnet, its attention; the
 * sampler a row of its own going down, beside the row's last modules
 * going up: output_blocks.N.M); else the level and the block
 * (encoder.down.L.block.M; decoder.up.L is named by its level). */
struct nldm_stack {
	const char *res, *attn, *sampler;
	const char *types_key;
	const struct nbtype *types;
	bool up, skips, running;
	const struct nline *sampler_unit;
	unsigned flags;
};
/* a mid block: resnet, attention (when the switches attn_need are on), resnet */
struct nldm_mid {
	const char *res0, *attn, *res1;
	unsigned flags, attn_need;
};
/* Reading the levels back from a file's names: `rows` the down stack's
 * modules ("input_blocks." numbered in a run, or "encoder.down." by
 * level, then `block` and its number); the tensor whose rows are a
 * resnet's width (after a row's or a block's number); the sampler's (a
 * row that is one); the transformer blocks of a row's attention and of
 * the mid block's. */
struct nldm_names {
	const char *rows, *block, *res_out, *sampler, *blocks, *mid, *mid_blocks;
};
struct nldm {
	const struct nldm_stack *stacks;
	const struct nldm_mid *mids;
	const char *mid_type_key, *mid_type; /* a config's mid block type (null: none) */
	const struct nline *resnet, *attn;
	bool transformer;    /* attn is a Transformer2DModel with blocks */
	struct nldm_names names;
};

static const struct nbtype unet_down[] = {{"DownBlock2D", false}, {"CrossAttnDownBlock2D", true}, {NULL, false}};
static const struct nbtype unet_up[] = {{"UpBlock2D", false}, {"CrossAttnUpBlock2D", true}, {NULL, false}};
static const struct nbtype vae_down[] = {{"DownEncoderBlock2D", false}, {NULL, false}};
static const struct nbtype vae_up[] = {{"UpDecoderBlock2D", false}, {NULL, false}};

static const struct nkey unet_keys[] = {
	{"in_channels", QCIN, 4, 0, 0}, {"out_channels", QCOUT, 4, 0, 0},
	{"conv_in_kernel", QKIN, 3, 0, 0}, {"conv_out_kernel", QKOUT, 3, 0, 0},
	{"cross_attention_dim", QX, 1280, 0, 0},
	{"time_embedding_dim", QT, 0, QB0, 4},
	{"projection_class_embeddings_input_dim", QADD, 0, Q1, 0},
	{NULL, 0, 0, 0, 0},
};
/* a number, or a list of one per level (the up blocks read it backwards,
 * the mid block the last): read by levels(), not as the class's keys */
static const struct nkey unet_level_keys[] = {
	{"cross_attention_dim", QX, 1280, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nflag unet_flags[] = {
	{"use_linear_projection", F_LIN, false}, {NULL, 0, false},
};
static const struct nstr unet_strs[] = {
	{"addition_embed_type", "text_time", F_TEXTTIME},
	{"class_embed_type", NULL, 0}, {"encoder_hid_dim_type", NULL, 0},
	{"encoder_hid_dim", NULL, 0}, {"time_cond_proj_dim", NULL, 0},
	{"num_class_embeds", NULL, 0}, {"dual_cross_attention", NULL, 0},
	{"only_cross_attention", NULL, 0}, {"reverse_transformer_layers_per_block", NULL, 0},
	{"attention_type", "default", 0}, {"resnet_time_scale_shift", "default", 0},
	{"time_embedding_type", "positional", 0}, {"class_embeddings_concat", NULL, 0},
	{"mid_block_only_cross_attention", NULL, 0},
	{NULL, NULL, 0},
};
static const struct nlevels unet_levels[] = {
	{"down_blocks.%u.", "down_block_types", unet_down, false, false, "downsamplers.0.", F_TEMB},
	{"up_blocks.%u.", "up_block_types", unet_up, true, true, "upsamplers.0.", F_TEMB},
	{NULL, NULL, NULL, false, false, NULL, 0},
};
static const struct nmid unet_mid[] = {
	{"mid_block.", "mid_block_type", "UNetMidBlock2DCrossAttn", true, F_TEMB, 0},
	{NULL, NULL, NULL, false, 0, 0},
};

static const struct nkey vae_keys[] = {
	{"in_channels", QCIN, 3, 0, 0}, {"out_channels", QCOUT, 3, 0, 0},
	{"latent_channels", QLAT, 4, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nderive vae_derive[] = {{QLAT2, QLAT, Q1, 2, 0}, {0, 0, 0, 0, 0}};
static const struct nflag vae_flags[] = {
	{"use_quant_conv", F_QC, true}, {"use_post_quant_conv", F_PQC, true},
	{"mid_block_add_attention", F_MIDATTN, true}, {NULL, 0, false},
};
static const struct nstr vae_strs[] = {
	{"double_z", NULL, 0}, /* read apart: only true has a layout (see below) */
	{NULL, NULL, 0},
};
static const struct nlevels vae_levels[] = {
	{"encoder.down_blocks.%u.", "down_block_types", vae_down, false, false, "downsamplers.0.", 0},
	{"decoder.up_blocks.%u.", "up_block_types", vae_up, true, false, "upsamplers.0.", 0},
	{NULL, NULL, NULL, false, false, NULL, 0},
};
static const struct nmid vae_mid[] = {
	{"encoder.mid_block.", NULL, NULL, false, 0, F_MIDATTN},
	{"decoder.mid_block.", NULL, NULL, false, 0, F_MIDATTN},
	{NULL, NULL, NULL, false, 0, 0},
};

static const struct nkey flux_keys[] = {
	{"in_channels", QCIN, 64, 0, 0}, {"out_channels", QOUTC, 0, QCIN, 0},
	{"patch_size", QPS, 1, 0, 0},
	{"num_attention_heads", QHEADS, 24, 0, 0}, {"attention_head_dim", QDH, 128, 0, 0},
	{"joint_attention_dim", QCTX, 4096, 0, 0}, {"pooled_projection_dim", QPOOL, 768, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nflag flux_flags[] = {{"guidance_embeds", F_GUID, false}, {NULL, 0, false}};

static const struct nkey sd3_keys[] = {
	{"in_channels", QCIN, 16, 0, 0}, {"out_channels", QOUTC, 0, QCIN, 0},
	{"patch_size", QPS, 2, 0, 0},
	{"num_attention_heads", QHEADS, 18, 0, 0}, {"attention_head_dim", QDH, 64, 0, 0},
	{"joint_attention_dim", QCTX, 4096, 0, 0}, {"pooled_projection_dim", QPOOL, 2048, 0, 0},
	{"caption_projection_dim", QCAP, 1152, 0, 0}, {"pos_embed_max_size", QPOSM, 96, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nstr sd3_strs[] = {{"qk_norm", "rms_norm", F_QKN}, {NULL, NULL, 0}};
/* the hidden width, the feed-forward's, the output patch, positions */
static const struct nderive dit_derive[] = {
	{QD, QHEADS, QDH, 1, 0}, {QF, QD, Q1, 4, 0}, {QPS2, QPS, QPS, 1, 0}, {QOUTP, QPS2, QOUTC, 1, 0},
	{QPOS, QPOSM, QPOSM, 1, 0}, {0, 0, 0, 0, 0},
};

/* repeat counts live in quantities after QN (see rep_count) */
enum { QR_LAYERS = QN, QR_SINGLE, QR_COUNT };
static const struct nrep flux_reps[] = {
	{"transformer_blocks.%u.", u_flux_double, QR_LAYERS, false, NULL},
	{"single_transformer_blocks.%u.", u_flux_single, QR_SINGLE, false, NULL},
	{NULL, NULL, 0, false, NULL},
};
static const struct nrep sd3_reps[] = {
	{"transformer_blocks.%u.", u_sd3_block, QR_LAYERS, true, "dual_attention_layers"},
	{NULL, NULL, 0, false, NULL},
};
static const struct nkey flux_counts[] = {
	{"num_layers", QR_LAYERS, 19, 0, 0}, {"num_single_layers", QR_SINGLE, 38, 0, 0}, {NULL, 0, 0, 0, 0},
};
static const struct nkey sd3_counts[] = {{"num_layers", QR_LAYERS, 18, 0, 0}, {NULL, 0, 0, 0, 0}};

static const struct nprobe bfl_probes[] = {
	{"img_in.weight", 0, QD, 0}, {"img_in.weight", 1, QCIN, 0},
	{"txt_in.weight", 1, QCTX, 0}, {"vector_in.in_layer.weight", 1, QPOOL, 0},
	{"time_in.in_layer.weight", 1, QTIN, 0},
	{"double_blocks.0.img_mlp.0.weight", 0, QF, 0},
	{"double_blocks.0.img_attn.norm.query_norm.scale", 0, QDH, 0},
	{"final_layer.linear.weight", 0, QOUTP, 0},
	{"double_blocks.", 0, QR_LAYERS, 0}, {"single_blocks.", 0, QR_SINGLE, 0},
	{"guidance_in.in_layer.weight", 0, 0, F_GUID},
	{NULL, 0, 0, 0},
};
/* from a config as FLUX's; from a file, the widths read are kept */
static const struct nderive bfl_derive[] = {
	{QD, QHEADS, QDH, 1, 0}, {QF, QD, Q1, 4, 0}, {QPS2, QPS, QPS, 1, 0}, {QOUTP, QPS2, QOUTC, 1, 0},
	{QQKVF, QD, Q1, 3, QF}, {QDF, QD, Q1, 1, QF}, {0, 0, 0, 0, 0},
};
static const struct nprobe sai_probes[] = {
	{"x_embedder.proj.weight", 0, QD, 0}, {"x_embedder.proj.weight", 1, QCIN, 0},
	{"x_embedder.proj.weight", 2, QPS, 0}, {"context_embedder.weight", 0, QCAP, 0},
	{"context_embedder.weight", 1, QCTX, 0}, {"y_embedder.mlp.0.weight", 1, QPOOL, 0},
	{"t_embedder.mlp.0.weight", 1, QTIN, 0}, {"joint_blocks.0.x_block.mlp.fc1.weight", 0, QF, 0},
	{"joint_blocks.0.x_block.attn.ln_q.weight", 0, QDH, 0},
	{"joint_blocks.0.x_block.attn.ln_q.weight", 0, 0, F_QKN},
	{"final_layer.linear.weight", 0, QOUTP, 0}, {"pos_embed", 1, QPOS, 0},
	{"joint_blocks.", 0, QR_LAYERS, 0},
	{NULL, 0, 0, 0},
};
static const struct nrep sai_reps[] = {
	{"joint_blocks.%u.", u_sai_block, QR_LAYERS, true, "dual_attention_layers"},
	{NULL, NULL, 0, false, NULL},
};
static const struct nrep bfl_reps[] = {
	{"double_blocks.%u.", u_bfl_double, QR_LAYERS, false, NULL},
	{"single_blocks.%u.", u_bfl_single, QR_SINGLE, false, NULL},
	{NULL, NULL, 0, false, NULL},
};

static const char *const vae_encode[] = {"encoder.", "quant_conv.", NULL};

/* Text tokens per prompt (flops): a UNet's pipelines pad CLIP's prompt to
 * its 77 positions; FluxPipeline's T5 prompt is max_sequence_length 512
 * (the denoiser's whole context) and packs 2x2 latent positions into a
 * token, its default_sample_size 128; StableDiffusion3Pipeline joins
 * CLIP's 77 and T5's 256 (max_sequence_length) into 333. */
/* UNet2DConditionModel as the original code names it (model.diffusion_model.) */
static const struct nldm_stack ldm_unet_stacks[] = {
	{"input_blocks.%u.0.", "input_blocks.%u.1.", "input_blocks.%u.0.", "down_block_types", unet_down, false,
	 false, true, u_ldm_op, F_TEMB},
	{"output_blocks.%u.0.", "output_blocks.%u.1.", "output_blocks.%u.%u.", "up_block_types", unet_up, true,
	 true, true, u_sampler, F_TEMB},
	{NULL, NULL, NULL, NULL, NULL, false, false, false, NULL, 0},
};
static const struct nldm_mid ldm_unet_mid[] = {
	{"middle_block.0.", "middle_block.1.", "middle_block.2.", F_TEMB, 0},
	{NULL, NULL, NULL, 0, 0},
};
static const struct nldm ldm_unet = {
	ldm_unet_stacks, ldm_unet_mid, "mid_block_type", "UNetMidBlock2DCrossAttn", u_ldm_resnet, u_t2d, true,
	{"input_blocks.", NULL, "0.out_layers.3.weight", "0.op.weight", "1.transformer_blocks.", "middle_block.",
	 "middle_block.1.transformer_blocks."},
};
static const struct nprobe ldm_unet_probes[] = {
	{"input_blocks.0.0.weight", 0, QB0, 0}, {"input_blocks.0.0.weight", 1, QCIN, 0},
	{"input_blocks.0.0.weight", 2, QKIN, 0}, {"time_embed.0.weight", 0, QT, 0},
	{"label_emb.0.0.weight", 1, QADD, 0}, {"label_emb.0.0.weight", 0, 0, F_TEXTTIME},
	{"out.2.weight", 0, QCOUT, 0}, {"out.2.weight", 2, QKOUT, 0},
	/* the text width from any cross-attention's key */
	{"*.attn2.to_k.weight", 1, QX, 0},
	/* use_linear_projection: proj_in a linear (2-D), not a 1x1 convolution */
	{"*.proj_in.weight", 2, 0, F_LIN},
	/* heads are in no shape (SDXL's attention_head_dim [5, 10, 20] is its
	 * heads at 64 wide each): not read, and no count depends on them */
	{NULL, 0, 0, 0},
};

/* AutoencoderKL as the original code names it (first_stage_model.) */
static const struct nldm_stack ldm_vae_stacks[] = {
	{"encoder.down.%u.block.%u.", NULL, "encoder.down.%u.downsample.", "down_block_types", vae_down, false,
	 false, false, u_sampler, 0},
	{"decoder.up.%u.block.%u.", NULL, "decoder.up.%u.upsample.", "up_block_types", vae_up, true, false, false,
	 u_sampler, 0},
	{NULL, NULL, NULL, NULL, NULL, false, false, false, NULL, 0},
};
static const struct nldm_mid ldm_vae_mid[] = {
	{"encoder.mid.block_1.", "encoder.mid.attn_1.", "encoder.mid.block_2.", 0, F_MIDATTN},
	{"decoder.mid.block_1.", "decoder.mid.attn_1.", "decoder.mid.block_2.", 0, F_MIDATTN},
	{NULL, NULL, NULL, 0, 0},
};
static const struct nldm ldm_vae = {
	ldm_vae_stacks, ldm_vae_mid, NULL, NULL, u_ldm_vae_resnet, u_ldm_vae_attn, false,
	{"encoder.down.", "block.", "conv2.weight", NULL, NULL, "encoder.mid.", NULL},
};
static const struct nprobe ldm_vae_probes[] = {
	{"encoder.conv_in.weight", 1, QCIN, 0}, {"decoder.conv_in.weight", 1, QLAT, 0},
	{"decoder.conv_out.weight", 0, QCOUT, 0},
	{"quant_conv.weight", 0, 0, F_QC}, {"post_quant_conv.weight", 0, 0, F_PQC},
	{"encoder.mid.attn_1.q.weight", 0, 0, F_MIDATTN},
	{NULL, 0, 0, 0},
};

/* What a class reads beyond its count, switch and string keys (a side
 * table by class, as ldm_layouts): keys whose presence is a switch or
 * required, switches whose default another key decides, string keys
 * whose absence reads as a value, quantities divided or scaled by a
 * ratio key (a float). */
struct ngiven {
	const char *key;
	unsigned flag;       /* on when the key is given (not null) */
	bool required;       /* absent or null: the config's error */
};
struct ncond {
	const char *key;
	unsigned flag;
	const char *def_key; /* absent: on when this count key is def_eq */
	uint64_t def_eq;
};
struct nstrdef {
	const char *key, *value; /* value: the one the layout reads */
	const char *def;     /* the class's default when absent */
	unsigned flag;
};
struct ndiv {
	unsigned char q, a, div; /* q = a / div (floor) */
};
struct nratio {
	const char *key;
	unsigned char q, of; /* q = floor(ratio × of), as diffusers' int() */
	double def;
};
/* a list key of n counts (Wan's patch_size [1, 2, 2]) */
struct nlist {
	const char *key;
	unsigned char n, q[3];
	uint64_t def[3];
};
/* A video VAE's stack of levels (AutoencoderKLWan): widths base_dim ×
 * dim_mult (the decoder's from the last, its own base), num_res_blocks
 * resnets (a decoder's one more), a sampler ending each level but the
 * last, resampling time too where temperal_downsample says (the decoder
 * reads it backwards).  `running`: the encoder numbers resnets and
 * samplers in one run (down_blocks.N). */
struct nvstack {
	const char *res, *sampler; /* name formats ("%u": the run, or the level then the resnet) */
	const struct nline *sampler_unit;
	bool up, running;
	unsigned char in_div;      /* up: a level after the first takes its input / in_div */
};
/* a mid block: resnet, attention, resnet, at the encoder's last width or
 * the decoder's first */
struct nvmid {
	const char *prefix;
	bool up;
};
struct nextra {
	const struct ngiven *given;
	const struct ncond *conds;
	const struct nstrdef *strs;
	const struct ndiv *divs;
	const struct nratio *ratios;
	const struct nlist *lists;
	const struct nvstack *vstacks;
	const struct nvmid *vmids;
};

static const struct nkey pixart_keys[] = {
	{"in_channels", QCIN, 0, 0, 0}, {"out_channels", QOUTC, 8, 0, 0},
	{"patch_size", QPS, 0, 0, 0},
	{"num_attention_heads", QHEADS, 16, 0, 0}, {"attention_head_dim", QDH, 72, 0, 0},
	{"cross_attention_dim", QX, 1152, 0, 0}, {"caption_channels", QCTX, 0, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nflag pixart_flags[] = {
	{"attention_bias", F_ABIAS, true}, {"norm_elementwise_affine", F_AFFINE, false}, {NULL, 0, false},
};
static const struct nstr pixart_strs[] = {
	{"activation_fn", "gelu-approximate", 0}, {"attention_type", "default", 0},
	{"only_cross_attention", NULL, 0}, {"double_self_attention", NULL, 0}, {"num_vector_embeds", NULL, 0},
	{NULL, NULL, 0},
};
static const struct nkey pixart_counts[] = {{"num_layers", QR_LAYERS, 28, 0, 0}, {NULL, 0, 0, 0, 0}};
static const struct nrep pixart_reps[] = {
	{"transformer_blocks.%u.", u_pixart_block, QR_LAYERS, false, NULL},
	{NULL, NULL, 0, false, NULL},
};
static const struct ngiven pixart_given[] = {
	{"caption_channels", F_CAPT, false}, {"in_channels", 0, true}, {"patch_size", 0, true},
	{"sample_size", 0, true}, {NULL, 0, false},
};
static const struct ncond pixart_conds[] = {
	{"use_additional_conditions", F_ADDCOND, "sample_size", 128}, {NULL, 0, NULL, 0},
};
/* PixArtTransformer2DModel is AdaLN-single only; Transformer2DModel is
 * PixArt's layout when its norm_type says so (its default is another) */
static const struct nstrdef pixart_strdefs[] = {
	{"norm_type", "ada_norm_single", "ada_norm_single", 0}, {NULL, NULL, NULL, 0},
};
static const struct nstrdef t2d_strdefs[] = {
	{"norm_type", "ada_norm_single", "layer_norm", 0}, {NULL, NULL, NULL, 0},
};
static const struct ndiv pixart_divs[] = {{QSZ, QD, 3}, {0, 0, 0}};
static const struct nextra pixart_x = {
	.given = pixart_given, .conds = pixart_conds, .strs = pixart_strdefs, .divs = pixart_divs,
};
static const struct nextra t2d_x = {
	.given = pixart_given, .conds = pixart_conds, .strs = t2d_strdefs, .divs = pixart_divs,
};

static const struct nkey sana_keys[] = {
	{"in_channels", QCIN, 32, 0, 0}, {"out_channels", QOUTC, 32, 0, 0}, {"patch_size", QPS, 1, 0, 0},
	{"num_attention_heads", QHEADS, 70, 0, 0}, {"attention_head_dim", QDH, 32, 0, 0},
	{"num_cross_attention_heads", QXH, 20, 0, 0}, {"cross_attention_head_dim", QXDH, 112, 0, 0},
	{"cross_attention_dim", QX, 2240, 0, 0}, {"caption_channels", QCTX, 2304, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nflag sana_flags[] = {
	{"attention_bias", F_ABIAS, false}, {"guidance_embeds", F_GUID, false},
	{"norm_elementwise_affine", F_AFFINE, false}, {NULL, 0, false},
};
static const struct nstr sana_strs[] = {{"qk_norm", "rms_norm_across_heads", F_QKN}, {NULL, NULL, 0}};
static const struct nderive sana_derive[] = {
	{QD, QHEADS, QDH, 1, 0}, {QPS2, QPS, QPS, 1, 0}, {QOUTP, QPS2, QOUTC, 1, 0}, {QXI, QXH, QXDH, 1, 0},
	{0, 0, 0, 0, 0},
};
static const struct nkey sana_counts[] = {{"num_layers", QR_LAYERS, 20, 0, 0}, {NULL, 0, 0, 0, 0}};
static const struct nrep sana_reps[] = {
	{"transformer_blocks.%u.", u_sana_block, QR_LAYERS, false, NULL},
	{NULL, NULL, 0, false, NULL},
};
/* GLUMBConv's hidden width: int(mlp_ratio × the width) */
static const struct nratio sana_ratios[] = {{"mlp_ratio", QF, QD, 2.5}, {NULL, 0, 0, 0}};
static const struct nextra sana_x = {.ratios = sana_ratios};

static const struct nkey wan_keys[] = {
	{"in_channels", QCIN, 16, 0, 0}, {"out_channels", QOUTC, 16, 0, 0},
	{"num_attention_heads", QHEADS, 40, 0, 0}, {"attention_head_dim", QDH, 128, 0, 0},
	{"text_dim", QCTX, 4096, 0, 0}, {"freq_dim", QFREQ, 256, 0, 0}, {"ffn_dim", QF, 13824, 0, 0},
	{"image_dim", QIMG, 0, 0, 0}, {"added_kv_proj_dim", QAKV, 0, 0, 0}, {"pos_embed_seq_len", QPSL, 0, 0, 0},
	{NULL, 0, 0, 0, 0},
};
static const struct nflag wan_flags[] = {{"cross_attn_norm", F_XNORM, true}, {NULL, 0, false}};
/* QPS: the patch's height, a token's latent positions per side (flops) */
static const struct nderive wan_derive[] = {
	{QD, QHEADS, QDH, 1, 0}, {QPS2, QPH, QPW, 1, 0}, {QPS3, QPS2, QPT, 1, 0}, {QOUTP, QPS3, QOUTC, 1, 0},
	{QPS, QPH, Q1, 1, 0}, {0, 0, 0, 0, 0},
};
static const struct nkey wan_counts[] = {{"num_layers", QR_LAYERS, 40, 0, 0}, {NULL, 0, 0, 0, 0}};
static const struct nrep wan_reps[] = {
	{"blocks.%u.", u_wan_block, QR_LAYERS, false, NULL},
	{NULL, NULL, 0, false, NULL},
};
static const struct ngiven wan_given[] = {
	{"image_dim", F_IMG, false}, {"added_kv_proj_dim", F_AKV, false}, {"pos_embed_seq_len", F_IPOS, false},
	{NULL, 0, false},
};
static const struct nstrdef wan_strdefs[] = {
	{"qk_norm", "rms_norm_across_heads", "rms_norm_across_heads", F_QKN}, {NULL, NULL, NULL, 0},
};
static const struct nlist wan_lists[] = {
	{"patch_size", 3, {QPT, QPH, QPW}, {1, 2, 2}}, {NULL, 0, {0, 0, 0}, {0, 0, 0}},
};
static const struct nextra wan_x = {.given = wan_given, .strs = wan_strdefs, .lists = wan_lists};

static const struct nkey wvae_keys[] = {
	{"in_channels", QCIN, 3, 0, 0}, {"out_channels", QCOUT, 3, 0, 0}, {"z_dim", QLAT, 16, 0, 0},
	{NULL, 0, 0, 0, 0},
};
/* Wan 2.2's residual blocks and patchified input are another layout */
static const struct nstr wvae_strs[] = {{"is_residual", NULL, 0}, {"patch_size", NULL, 0}, {NULL, NULL, 0}};
static const struct nvstack wvae_stacks[] = {
	{"encoder.down_blocks.%u.", "encoder.down_blocks.%u.", u_wdown, false, true, 0},
	{"decoder.up_blocks.%u.resnets.%u.", "decoder.up_blocks.%u.upsamplers.0.", u_wup, true, false, 2},
	{NULL, NULL, NULL, false, false, 0},
};
static const struct nvmid wvae_mids[] = {
	{"encoder.mid_block.", false}, {"decoder.mid_block.", true}, {NULL, false},
};
static const struct nextra wvae_x = {.vstacks = wvae_stacks, .vmids = wvae_mids};

static const struct nrep wan_orig_reps[] = {
	{"blocks.%u.", u_wan_orig_block, QR_LAYERS, false, NULL},
	{NULL, NULL, 0, false, NULL},
};
/* a file's widths, block count and switches, read from its shapes and
 * names; heads are in no shape (no count depends on them) */
static const struct nprobe wan_orig_probes[] = {
	{"patch_embedding.weight", 0, QD, 0}, {"patch_embedding.weight", 1, QCIN, 0},
	{"patch_embedding.weight", 2, QPT, 0}, {"patch_embedding.weight", 3, QPH, 0},
	{"patch_embedding.weight", 4, QPW, 0},
	{"text_embedding.0.weight", 1, QCTX, 0}, {"time_embedding.0.weight", 1, QFREQ, 0},
	{"blocks.0.ffn.0.weight", 0, QF, 0}, {"head.head.weight", 0, QOUTP, 0},
	{"blocks.", 0, QR_LAYERS, 0},
	{"blocks.0.norm3.weight", 0, 0, F_XNORM}, {"blocks.0.self_attn.norm_q.weight", 0, 0, F_QKN},
	{"img_emb.proj.0.weight", 0, QIMG, 0}, {"img_emb.proj.0.weight", 0, 0, F_IMG},
	{"blocks.0.cross_attn.k_img.weight", 1, QAKV, 0}, {"blocks.0.cross_attn.k_img.weight", 0, 0, F_AKV},
	{"img_emb.emb_pos", 1, QPSL, 0}, {"img_emb.emb_pos", 0, 0, F_IPOS},
	{NULL, 0, 0, 0},
};

static const struct nclass classes[] = {
	{"UNet2DConditionModel", "unet", unet_keys, NULL, unet_flags, unet_strs, u_unet, NULL, unet_levels,
	 unet_mid, NULL, NULL, NULL, NULL, .text_tokens = 77, .level_keys = unet_level_keys},
	{"AutoencoderKL", "vae", vae_keys, vae_derive, vae_flags, vae_strs, u_vae, NULL, vae_levels, vae_mid,
	 NULL, NULL, NULL, NULL, .encode = vae_encode},
	{"FluxTransformer2DModel", "transformer", flux_keys, dit_derive, flux_flags, NULL, u_flux, flux_reps,
	 NULL, NULL, flux_counts, NULL, NULL, NULL, .text_tokens = 512, .long_text_tokens = 512, .pack = 2,
	 .sample_def = 128},
	{"SD3Transformer2DModel", "transformer", sd3_keys, dit_derive, NULL, sd3_strs, u_sd3, sd3_reps, NULL,
	 NULL, sd3_counts, NULL, NULL, NULL, .text_tokens = 333, .long_text_tokens = 256, .sample_def = 128},
	/* read from a file's shapes; mkmodel writes it from a FLUX config */
	{"FluxTransformer2DModel (BFL names)", "transformer", flux_keys, bfl_derive, flux_flags, NULL, u_bfl,
	 bfl_reps, NULL, NULL, flux_counts, "double_blocks.0.img_attn.qkv.weight", bfl_probes,
	 "FluxTransformer2DModel", .text_tokens = 512, .long_text_tokens = 512, .pack = 2, .sample_def = 128,
	 .gguf = {"flux"}},
	/* read from a file's shapes; mkmodel writes it from an SD3 config */
	{"SD3Transformer2DModel (SAI names)", "transformer", sd3_keys, dit_derive, NULL, sd3_strs, u_sai, sai_reps,
	 NULL, NULL, sd3_counts, "joint_blocks.0.x_block.attn.qkv.weight", sai_probes, "SD3Transformer2DModel",
	 .text_tokens = 333, .long_text_tokens = 256, .sample_def = 128, .gguf = {"sd3"},
	 .dual_prefix = "joint_blocks.", .dual_suffix = ".x_block.attn2.qkv.weight"},
	/* read from a single file's shapes (after its module's prefix) */
	{"UNet2DConditionModel (LDM names)", "unet", unet_keys, NULL, unet_flags, unet_strs, u_ldm_unet, NULL, NULL,
	 NULL, NULL, "input_blocks.0.0.weight", ldm_unet_probes, "UNet2DConditionModel",
	 .text_tokens = 77, .gguf = {"sdxl", "sd1"}},
	{"AutoencoderKL (LDM names)", "vae", vae_keys, vae_derive, vae_flags, vae_strs, u_ldm_vae, NULL, NULL, NULL,
	 NULL, "encoder.down.0.block.0.conv1.weight", ldm_vae_probes, "AutoencoderKL",
	 .encode = vae_encode},
	/* flops: PixArtSigmaPipeline's T5 prompt is max_sequence_length
	 * 300, PixArtAlphaPipeline's (its configs name Transformer2DModel)
	 * 120; SanaPipeline's Gemma prompt 300; WanPipeline's umT5 prompt 512 */
	{"PixArtTransformer2DModel", "transformer", pixart_keys, dit_derive, pixart_flags, pixart_strs, u_pixart,
	 pixart_reps, NULL, NULL, pixart_counts, NULL, NULL, NULL, .text_tokens = 300, .long_text_tokens = 300},
	/* the class PixArt-α's configs name (diffusers remaps it) */
	{"Transformer2DModel", "transformer", pixart_keys, dit_derive, pixart_flags, pixart_strs, u_pixart,
	 pixart_reps, NULL, NULL, pixart_counts, NULL, NULL, NULL, .text_tokens = 120, .long_text_tokens = 120},
	{"SanaTransformer2DModel", "transformer", sana_keys, sana_derive, sana_flags, sana_strs, u_sana, sana_reps,
	 NULL, NULL, sana_counts, NULL, NULL, NULL, .text_tokens = 300, .long_text_tokens = 300},
	{"WanTransformer3DModel", "transformer", wan_keys, wan_derive, wan_flags, NULL, u_wan, wan_reps, NULL, NULL,
	 wan_counts, NULL, NULL, NULL, .text_tokens = 512, .long_text_tokens = 512},
	{"AutoencoderKLWan", "vae", wvae_keys, vae_derive, NULL, wvae_strs, u_wvae, NULL, NULL, NULL, NULL, NULL, NULL,
	 NULL, .encode = vae_encode},
	/* read from a file's shapes (and ComfyUI-GGUF's wan); mkmodel writes it
	 * from a Wan config */
	{"WanTransformer3DModel (original names)", "transformer", wan_keys, wan_derive, wan_flags, NULL, u_wan_orig,
	 wan_orig_reps, NULL, NULL, wan_counts, "time_projection.1.weight", wan_orig_probes, "WanTransformer3DModel",
	 .text_tokens = 512, .long_text_tokens = 512, .gguf = {"wan"}},
};

/* The general.architecture values ComfyUI-GGUF's loader takes for an
 * image or video network (its IMG_ARCH_LIST); those without a layout
 * above are named, without a formula. */
static const char *const gguf_families[] = {
	"flux", "sd1", "sdxl", "sd3", "aura", "hidream", "cosmos", "ltxv", "hyvid", "wan", "lumina2", "qwen_image",
};

/* the classes that read more than their keys (see struct nextra) */
static const struct {
	const char *cls;
	const struct nextra *x;
} extras[] = {
	{"PixArtTransformer2DModel", &pixart_x},
	{"Transformer2DModel", &t2d_x},
	{"SanaTransformer2DModel", &sana_x},
	{"WanTransformer3DModel", &wan_x},
	{"AutoencoderKLWan", &wvae_x},
	{"WanTransformer3DModel (original names)", &wan_x},
};

static const struct nextra *
extra_of(const struct nclass *c)
{
	for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++)
		if (!strcmp(extras[i].cls, c->cls))
			return extras[i].x;
	return NULL;
}

/* the classes whose levels the original code numbers (LDM names) */
static const struct {
	const char *cls;
	const struct nldm *ldm;
} ldm_layouts[] = {
	{"UNet2DConditionModel (LDM names)", &ldm_unet},
	{"AutoencoderKL (LDM names)", &ldm_vae},
};

static const struct nldm *
ldm_of(const struct nclass *c)
{
	for (size_t i = 0; i < sizeof ldm_layouts / sizeof ldm_layouts[0]; i++)
		if (!strcmp(ldm_layouts[i].cls, c->cls))
			return ldm_layouts[i].ldm;
	return NULL;
}

static const struct nclass *
class_of(const char *name)
{
	for (size_t i = 0; name && i < sizeof classes / sizeof classes[0]; i++)
		if (!strcmp(classes[i].cls, name))
			return &classes[i];
	return NULL;
}

static const char *
class_name(const cJSON *config)
{
	const cJSON *cn = cJSON_GetObjectItemCaseSensitive(config, "_class_name");
	return cJSON_IsString(cn) ? cn->valuestring : NULL;
}

bool
ws_net_config(const cJSON *config)
{
	return class_of(class_name(config)) != NULL;
}

const char *
ws_net_kind_of(const char *cls)
{
	const struct nclass *c = class_of(cls);
	return c ? c->kind : NULL;
}

/* ==== building the list ==== */

/* bounds that keep an untrusted config's list small: no released
 * network comes near them */
#define NET_MAX_LEVELS 16
#define NET_MAX_REPEAT 4096
#define NET_MAX_VALUE (1ull << 32)
#define NET_MAX_TENSORS (1u << 17)
#define NET_MAX_LEVEL_KEYS 4

struct build {
	struct ws_net *n;
	size_t cap;
	const char *path;
	ws_error *err;
	const char *why;     /* the class has no layout for the config */
	uint8_t level, deep; /* the level placed now; the deepest */
	const char *const *encode;
	const struct nplan *plan; /* LDM levels read from names (NULL: from the config) */
};

/* the levels of an LDM layout: widths, resnets, transformer depth, and
 * whether each attends (down, and up in the order the up stack walks) */
struct nplan {
	size_t n;
	uint64_t ch[NET_MAX_LEVELS], lpb[NET_MAX_LEVELS], tl[NET_MAX_LEVELS];
	bool down_attn[NET_MAX_LEVELS], up_attn[NET_MAX_LEVELS];
	bool mid;
	uint64_t mid_tl;
};

static int
emit(struct build *b, const char *prefix, const struct nline *u, const uint64_t *q, unsigned fl)
{
	for (; u->name; u++) {
		unsigned need = u->need & ~(unsigned)F_BUF;
		if ((fl & need) != need || (fl & u->unless))
			continue;
		if (b->n->n == NET_MAX_TENSORS)
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config describes more than %u tensors",
				      NET_MAX_TENSORS);
		if (b->n->n == b->cap) {
			size_t nc = b->cap ? b->cap * 2 : 256;
			struct ws_net_tensor *t = realloc(b->n->t, nc * sizeof *t);
			if (!t)
				return ws_err_oom(b->err, b->path);
			b->n->t = t;
			b->cap = nc;
		}
		struct ws_net_tensor *t = &b->n->t[b->n->n];
		memset(t, 0, sizeof *t);
		size_t pl = strlen(prefix), nl = strlen(u->name);
		if (!(t->name = malloc(pl + nl + 1)))
			return ws_err_oom(b->err, b->path);
		memcpy(t->name, prefix, pl);
		memcpy(t->name + pl, u->name, nl + 1);
		b->n->n++;
		t->role = u->role;
		t->buffer = (u->need & F_BUF) != 0;
		t->tok = u->tok == T_DEEP ? T_IMG : u->tok;
		t->level = u->tok == T_DEEP ? b->deep : b->level;
		t->att = u->att;
		if (u->att && u->aw.q && !ws_mul_u64(q[u->aw.q], u->aw.mul ? u->aw.mul : 1, &t->att_dim))
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
		for (const char *const *e = b->encode; e && *e && !t->encode; e++)
			t->encode = !strncmp(t->name, *e, strlen(*e));
		t->kind = nl > 5 && !strcmp(u->name + nl - 5, ".bias") ? WS_KIND_BIAS : WS_KIND_WEIGHT;
		t->elements = 1;
		for (int d = 0; d < NET_MAX_DIMS && u->d[d].q; d++) {
			uint64_t v = q[u->d[d].q];
			if (u->d[d].mul && !ws_mul_u64(v, u->d[d].mul, &v))
				return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
			t->dim[d] = v;
			t->ndim = (uint8_t)(d + 1);
			if (!ws_mul_u64(t->elements, v, &t->elements))
				return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
		}
		if (!t->buffer && !ws_add_u64(b->n->total, t->elements, &b->n->total))
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
		if (!t->buffer)
			b->n->by_role[t->role] += t->elements; /* below the total: no overflow */
	}
	return 0;
}

/* fmt with each "%u" replaced by the next of v, at buf + *o */
static int
put_fmt(char *buf, size_t cap, size_t *o, const char *fmt, const unsigned *v)
{
	for (const char *p = fmt; *p; p++) {
		int w = p[0] == '%' && p[1] == 'u' ? snprintf(buf + *o, cap - *o, "%u", *v++)
						   : snprintf(buf + *o, cap - *o, "%c", *p);
		if (w < 0 || (size_t)w >= cap - *o)
			return -1;
		*o += (size_t)w;
		p += p[0] == '%' && p[1] == 'u';
	}
	return 0;
}

static int
emit_at(struct build *b, const char *fmt, unsigned i, const char *sub, unsigned j, const struct nline *u,
	const uint64_t *q, unsigned fl)
{
	char pre[256];
	size_t o = 0;
	if (put_fmt(pre, sizeof pre, &o, fmt, &i) || (sub && put_fmt(pre, sizeof pre, &o, sub, &j)))
		return ws_err(b->err, WS_EXIT_INTERNAL, b->path, "net prefix too long");
	return emit(b, pre, u, q, fl);
}

/* A count key into *v (absent or null: def); -1: not a count. */
static int
key_u64(struct build *b, const cJSON *config, const char *key, uint64_t def, uint64_t *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, key);
	*v = def;
	if (!it || cJSON_IsNull(it))
		return 0;
	if (cJSON_IsArray(it)) {
		/* a per-level list (cross_attention_dim) the layout reads as one */
		b->why = "a list where the catalogue's layout reads one number";
		return 0;
	}
	if (ws_json_count(it, v) != WS_JSON_COUNT_OK || *v > NET_MAX_VALUE)
		return ws_err(b->err, WS_EXIT_INPUT, b->path,
			      "config key '%s': expected a non-negative integer below 2^32", key);
	return 1;
}

/* A key that is a count or a list of counts, one per level (n of them). */
static int
key_levels_max(struct build *b, const cJSON *config, const char *key, uint64_t def, size_t n, uint64_t *out,
	       uint64_t max)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, key);
	if (cJSON_IsArray(it)) {
		if ((size_t)cJSON_GetArraySize(it) != n)
			return ws_err(b->err, WS_EXIT_INPUT, b->path,
				      "config key '%s': %d entries for %zu levels", key, cJSON_GetArraySize(it), n);
		size_t i = 0;
		const cJSON *e;
		cJSON_ArrayForEach(e, it) {
			if (ws_json_count(e, &out[i]) != WS_JSON_COUNT_OK || out[i] > max)
				return ws_err(b->err, WS_EXIT_INPUT, b->path,
					      "config key '%s': expected counts up to %llu", key, (unsigned long long)max);
			i++;
		}
		return 0;
	}
	uint64_t v;
	if (key_u64(b, config, key, def, &v) < 0)
		return -1;
	if (v > max)
		return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': more than %llu", key,
			      (unsigned long long)max);
	for (size_t i = 0; i < n; i++)
		out[i] = v;
	return 0;
}

/* A count per level (blocks, layers). */
static int
key_levels(struct build *b, const cJSON *config, const char *key, uint64_t def, size_t n, uint64_t *out)
{
	return key_levels_max(b, config, key, def, n, out, NET_MAX_REPEAT);
}

/* Is key one of the class's keys of a value per level? */
static bool
level_key(const struct nclass *c, const char *key)
{
	for (const struct nkey *k = c->level_keys; k && k->key; k++)
		if (!strcmp(k->key, key))
			return true;
	return false;
}

static int
levels(struct build *b, const cJSON *config, const struct nclass *c, uint64_t *q, unsigned cfl)
{
	const cJSON *boc = cJSON_GetObjectItemCaseSensitive(config, "block_out_channels");
	uint64_t ch[NET_MAX_LEVELS], lpb[NET_MAX_LEVELS], tl[NET_MAX_LEVELS];
	size_t n = 0;
	if (!cJSON_IsArray(boc) || cJSON_GetArraySize(boc) < 1 || cJSON_GetArraySize(boc) > NET_MAX_LEVELS)
		return ws_err(b->err, WS_EXIT_INPUT, b->path,
			      "config key 'block_out_channels': expected a list of 1 to %d widths", NET_MAX_LEVELS);
	const cJSON *e;
	cJSON_ArrayForEach(e, boc) {
		if (ws_json_count(e, &ch[n]) != WS_JSON_COUNT_OK || !ch[n] || ch[n] > NET_MAX_VALUE)
			return ws_err(b->err, WS_EXIT_INPUT, b->path,
				      "config key 'block_out_channels': expected positive integers");
		n++;
	}
	q[QB0] = ch[0];
	q[QBL] = ch[n - 1];
	b->deep = (uint8_t)(n - 1);
	if (key_levels(b, config, "layers_per_block", 2, n, lpb) ||
	    key_levels(b, config, "transformer_layers_per_block", 1, n, tl))
		return -1;
	/* the class's keys of a value per level */
	uint64_t lk[NET_MAX_LEVEL_KEYS][NET_MAX_LEVELS];
	size_t nlk = 0;
	for (const struct nkey *k = c->level_keys; k && k->key && nlk < NET_MAX_LEVEL_KEYS; k++, nlk++) {
		if (key_levels_max(b, config, k->key, k->def, n, lk[nlk], NET_MAX_VALUE))
			return -1;
		q[k->q] = lk[nlk][n - 1];
	}
	/* UNet2DConditionModel's time embedding width: 4 × the first level */
	for (const struct nkey *k = c->keys; k->key; k++)
		if (k->else_q == QB0 && !q[k->q])
			q[k->q] = ch[0] * k->mul;
	for (const struct nlevels *lv = c->levels; lv->fmt; lv++) {
		const cJSON *types = cJSON_GetObjectItemCaseSensitive(config, lv->types_key);
		if (!cJSON_IsArray(types) || (size_t)cJSON_GetArraySize(types) != n)
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected %zu block types",
				      lv->types_key, n);
		size_t i = 0;
		cJSON_ArrayForEach(e, types) {
			const struct nbtype *bt = lv->types;
			while (bt->name && !(cJSON_IsString(e) && !strcmp(bt->name, e->valuestring)))
				bt++;
			if (!bt->name) {
				b->why = "a block type the catalogue has no layout for";
				return 0;
			}
			/* level i: up stacks walk the widths backwards */
			size_t li = lv->up ? n - 1 - i : i;
			uint64_t out = ch[li];
			uint64_t prev = lv->up ? ch[i ? n - i : n - 1] : ch[i ? i - 1 : 0];
			uint64_t skip_in = lv->up ? ch[i + 1 < n ? n - 2 - i : 0] : 0;
			uint64_t nres = lpb[li] + (lv->up ? 1 : 0);
			b->level = (uint8_t)li;
			for (uint64_t j = 0; j < nres; j++) {
				uint64_t v[QR_COUNT];
				memcpy(v, q, sizeof v);
				for (size_t k = 0; k < nlk; k++)
					v[c->level_keys[k].q] = lk[k][li];
				v[QI] = j ? out : prev;
				if (lv->skips)
					v[QI] += j + 1 == nres ? skip_in : out;
				v[QO] = out;
				unsigned fl = lv->flags | (v[QI] != v[QO] ? F_SHORT : 0) | cfl;
				if (emit_at(b, lv->fmt, (unsigned)i, "resnets.%u.", (unsigned)j, u_resnet, v, fl))
					return -1;
				if (!bt->attn)
					continue;
				if (emit_at(b, lv->fmt, (unsigned)i, "attentions.%u.", (unsigned)j, u_t2d, v, fl))
					return -1;
				for (uint64_t k = 0; k < tl[li]; k++) {
					char pre[256];
					size_t o = 0;
					unsigned ij[3] = {(unsigned)i, (unsigned)j, (unsigned)k};
					if (put_fmt(pre, sizeof pre, &o, lv->fmt, ij) ||
					    put_fmt(pre, sizeof pre, &o, "attentions.%u.transformer_blocks.%u.", ij + 1))
						return ws_err(b->err, WS_EXIT_INTERNAL, b->path, "net prefix too long");
					if (emit(b, pre, u_basic, v, fl))
						return -1;
				}
			}
			if (i + 1 < n) {
				uint64_t v[QR_COUNT];
				/* a downsampler's output is the next level's, an
				 * upsampler's the level above */
				b->level = (uint8_t)(lv->up ? li - 1 : li + 1);
				memcpy(v, q, sizeof v);
				v[QI] = v[QO] = out;
				if (emit_at(b, lv->fmt, (unsigned)i, lv->sampler, 0, u_sampler, v, 0))
					return -1;
			}
			i++;
		}
	}
	for (const struct nmid *md = c->mid; md && md->prefix; md++) {
		if (md->type_key) {
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(config, md->type_key);
			if (t && cJSON_IsNull(t))
				continue;
			if (t && !(cJSON_IsString(t) && !strcmp(t->valuestring, md->type))) {
				b->why = "a mid block type the catalogue has no layout for";
				return 0;
			}
		}
		uint64_t v[QR_COUNT];
		memcpy(v, q, sizeof v);
		v[QI] = v[QO] = ch[n - 1];
		b->level = b->deep;
		unsigned fl = md->flags | cfl;
		char pre[64];
		snprintf(pre, sizeof pre, "%sresnets.0.", md->prefix);
		if (emit(b, pre, u_resnet, v, fl))
			return -1;
		if ((fl & md->attn_need) == md->attn_need) {
			snprintf(pre, sizeof pre, "%sattentions.0.", md->prefix);
			if (emit(b, pre, md->transformer ? u_t2d : u_vae_attn, v, fl))
				return -1;
			for (uint64_t k = 0; md->transformer && k < tl[n - 1]; k++) {
				snprintf(pre, sizeof pre, "%sattentions.0.transformer_blocks.%u.", md->prefix, (unsigned)k);
				if (emit(b, pre, u_basic, v, fl))
					return -1;
			}
		}
		snprintf(pre, sizeof pre, "%sresnets.1.", md->prefix);
		if (emit(b, pre, u_resnet, v, fl))
			return -1;
	}
	b->level = 0;  /* the class's own layers: the input grid unless said */
	return 0;
}

/* ==== LDM levels ==== */

/* The prefix fmt (its "%u"s from ix), then unit u. */
static int
emit_ix(struct build *b, const char *fmt, const unsigned *ix, const char *tail, const struct nline *u,
	const uint64_t *q, unsigned fl)
{
	char pre[256];
	size_t o = 0;
	if (put_fmt(pre, sizeof pre, &o, fmt, ix) || (tail && put_fmt(pre, sizeof pre, &o, tail, ix + 2)))
		return ws_err(b->err, WS_EXIT_INTERNAL, b->path, "net prefix too long");
	return emit(b, pre, u, q, fl);
}

/* An attention (and its transformer blocks) under prefix fmt. */
static int
ldm_attn(struct build *b, const struct nldm *L, const char *fmt, const unsigned *ix, uint64_t depth,
	 const uint64_t *v, unsigned fl)
{
	if (emit_ix(b, fmt, ix, NULL, L->attn, v, fl))
		return -1;
	for (uint64_t k = 0; L->transformer && k < depth; k++) {
		unsigned ixk[3] = {ix[0], ix[1], (unsigned)k};
		if (emit_ix(b, fmt, ixk, "transformer_blocks.%u.", u_basic, v, fl))
			return -1;
	}
	return 0;
}

static int
ldm_levels(struct build *b, const struct nclass *c, const struct nplan *p, const uint64_t *q, unsigned cfl)
{
	const struct nldm *L = ldm_of(c);
	size_t n = p->n;
	const uint64_t *ch = p->ch;
	b->deep = (uint8_t)(n - 1);
	for (const struct nldm_stack *st = L->stacks; st->res; st++) {
		/* input_blocks.0 is the input convolution */
		unsigned row = st->up ? 0 : 1;
		for (size_t i = 0; i < n; i++) {
			/* level li; up stacks walk the widths backwards */
			size_t li = st->up ? n - 1 - i : i;
			bool attn = st->up ? p->up_attn[i] : p->down_attn[i];
			uint64_t out = ch[li];
			uint64_t prev = st->up ? ch[i ? n - i : n - 1] : ch[i ? i - 1 : 0];
			uint64_t skip_in = st->up ? ch[i + 1 < n ? n - 2 - i : 0] : 0;
			uint64_t nres = p->lpb[li] + (st->up ? 1 : 0);
			uint64_t v[QR_COUNT];
			memcpy(v, q, sizeof v);
			for (uint64_t j = 0; j < nres; j++) {
				v[QI] = j ? out : prev;
				if (st->skips)
					v[QI] += j + 1 == nres ? skip_in : out;
				v[QO] = out;
				b->level = (uint8_t)li;
				unsigned fl = st->flags | (v[QI] != v[QO] ? F_SHORT : 0) | cfl;
				unsigned ix[2] = {st->running ? row : (unsigned)li, st->running ? 0 : (unsigned)j};
				if (emit_ix(b, st->res, ix, NULL, L->resnet, v, fl))
					return -1;
				if (attn && st->attn && ldm_attn(b, L, st->attn, ix, p->tl[li], v, fl))
					return -1;
				/* going up, the sampler ends the level's last row */
				if (st->running && st->up && i + 1 < n && j + 1 == nres) {
					unsigned sx[2] = {row, attn ? 2 : 1};
					v[QI] = out;
					b->level = (uint8_t)(li - 1);  /* an upsampler's output */
					if (emit_ix(b, st->sampler, sx, NULL, st->sampler_unit, v, 0))
						return -1;
				}
				row += st->running;
			}
			if (i + 1 < n && !(st->running && st->up)) {
				unsigned sx[2] = {st->running ? row : (unsigned)li, 0};
				v[QI] = v[QO] = out;
				/* a downsampler's output is the next level's, an
				 * upsampler's the level above */
				b->level = (uint8_t)(st->up ? li - 1 : li + 1);
				if (emit_ix(b, st->sampler, sx, NULL, st->sampler_unit, v, 0))
					return -1;
				row += st->running;
			}
		}
	}
	for (const struct nldm_mid *md = L->mids; p->mid && md->res0; md++) {
		uint64_t v[QR_COUNT];
		memcpy(v, q, sizeof v);
		v[QI] = v[QO] = ch[n - 1];
		b->level = b->deep;
		unsigned fl = md->flags | cfl, ix[2] = {0, 0};
		if (emit(b, md->res0, L->resnet, v, fl))
			return -1;
		if ((fl & md->attn_need) == md->attn_need && ldm_attn(b, L, md->attn, ix, p->mid_tl, v, fl))
			return -1;
		if (emit(b, md->res1, L->resnet, v, fl))
			return -1;
	}
	b->level = 0;  /* the class's own layers: the input grid unless said */
	return 0;
}

/* The levels a config describes, as levels() reads them. */
static int
ldm_plan_config(struct build *b, const cJSON *config, const struct nclass *c, struct nplan *p, uint64_t *q)
{
	const cJSON *boc = cJSON_GetObjectItemCaseSensitive(config, "block_out_channels"), *e;
	memset(p, 0, sizeof *p);
	if (!cJSON_IsArray(boc) || cJSON_GetArraySize(boc) < 1 || cJSON_GetArraySize(boc) > NET_MAX_LEVELS)
		return ws_err(b->err, WS_EXIT_INPUT, b->path,
			      "config key 'block_out_channels': expected a list of 1 to %d widths", NET_MAX_LEVELS);
	cJSON_ArrayForEach(e, boc) {
		if (ws_json_count(e, &p->ch[p->n]) != WS_JSON_COUNT_OK || !p->ch[p->n] || p->ch[p->n] > NET_MAX_VALUE)
			return ws_err(b->err, WS_EXIT_INPUT, b->path,
				      "config key 'block_out_channels': expected positive integers");
		p->n++;
	}
	size_t n = p->n;
	if (key_levels(b, config, "layers_per_block", 2, n, p->lpb) ||
	    key_levels(b, config, "transformer_layers_per_block", 1, n, p->tl))
		return -1;
	for (const struct nldm_stack *st = ldm_of(c)->stacks; st->res; st++) {
		const cJSON *types = cJSON_GetObjectItemCaseSensitive(config, st->types_key);
		if (!cJSON_IsArray(types) || (size_t)cJSON_GetArraySize(types) != n)
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected %zu block types",
				      st->types_key, n);
		size_t i = 0;
		cJSON_ArrayForEach(e, types) {
			const struct nbtype *bt = st->types;
			while (bt->name && !(cJSON_IsString(e) && !strcmp(bt->name, e->valuestring)))
				bt++;
			if (!bt->name) {
				b->why = "a block type the catalogue has no layout for";
				return 0;
			}
			(st->up ? p->up_attn : p->down_attn)[i++] = bt->attn;
		}
	}
	p->mid = true;
	p->mid_tl = p->tl[n - 1];
	const cJSON *t = ldm_of(c)->mid_type_key ? cJSON_GetObjectItemCaseSensitive(config, ldm_of(c)->mid_type_key) : NULL;
	if (t && cJSON_IsNull(t))
		p->mid = false;
	else if (t && !(cJSON_IsString(t) && !strcmp(t->valuestring, ldm_of(c)->mid_type)))
		b->why = "a mid block type the catalogue has no layout for";
	return 0;
}

/* A tensor's rows at its logical shape (a GGUF's reshaped tensor: its
 * original one). */
static uint64_t
out_rows(const ws_tensor *t)
{
	uint32_t nd;
	const uint64_t *sh = ws_tensor_logical(t, &nd);
	return nd ? sh[0] : 0;
}

/* The number after name's start s (len bytes), and where its rest
 * begins (after the '.'); -1: none. */
static int64_t
num_after(const char *name, size_t len, size_t s, size_t *rest)
{
	int64_t v = 0;
	size_t i = s;
	for (; i < len && name[i] >= '0' && name[i] <= '9' && v <= NET_MAX_REPEAT; i++)
		v = v * 10 + (name[i] - '0');
	if (i == s || i >= len || name[i] != '.' || v > NET_MAX_REPEAT)
		return -1;
	*rest = i + 1;
	return v;
}

static bool
starts(const char *name, size_t len, size_t at, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return s && len >= at + n && !memcmp(name + at, s, n);
}

static bool
is_exactly(const char *name, size_t len, size_t at, const char *s)
{
	return s && len - at == strlen(s) && !memcmp(name + at, s, len - at);
}

#define LDM_MAX_ROWS 256

/* The levels told by the names under prefix: a down stack numbered in
 * rows (a resnet row gives its level a resnet, its width, its
 * transformer depth; a sampler row ends the level) or by level and
 * block.  The up stack mirrors the down one, as the original code builds
 * it. */
static int
ldm_plan_names(const ws_model *m, size_t pl, const struct nldm *L, struct nplan *p, ws_error *err)
{
	const struct nldm_names *nm = &L->names;
	struct row {
		uint64_t out, depth, blocks;
		bool res, sampler, any;
	} *rows = calloc(LDM_MAX_ROWS, sizeof *rows);
	if (!rows)
		return ws_err_oom(err, m->path);
	memset(p, 0, sizeof *p);
	size_t nrows = 0;
	bool too_many = false;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		const char *s = t->name;
		size_t len = t->name_len, r, r2;
		if (len <= pl)
			continue;
		if (starts(s, len, pl, nm->mid))
			p->mid = true;
		if (starts(s, len, pl, nm->mid_blocks)) {
			int64_t k = num_after(s, len, pl + strlen(nm->mid_blocks), &r);
			if (k >= 0 && (uint64_t)k + 1 > p->mid_tl)
				p->mid_tl = (uint64_t)k + 1;
		}
		if (!starts(s, len, pl, nm->rows))
			continue;
		int64_t k = num_after(s, len, pl + strlen(nm->rows), &r);
		if (k < 0)
			continue;
		if (k >= LDM_MAX_ROWS) {
			/* more rows than any network has: no levels read */
			too_many = true;
			continue;
		}
		struct row *w = &rows[k];
		w->any = true;
		if ((size_t)k + 1 > nrows)
			nrows = (size_t)k + 1;
		if (nm->block) {
			/* by level: its blocks, the first one's width */
			if (!starts(s, len, r, nm->block))
				continue;
			int64_t j = num_after(s, len, r + strlen(nm->block), &r2);
			if (j < 0)
				continue;
			if ((uint64_t)j + 1 > w->blocks)
				w->blocks = (uint64_t)j + 1;
			if (j == 0 && is_exactly(s, len, r2, nm->res_out) && t->ndim)
				w->out = out_rows(t);
			continue;
		}
		if (is_exactly(s, len, r, nm->res_out) && t->ndim) {
			w->res = true;
			w->out = out_rows(t);
		} else if (is_exactly(s, len, r, nm->sampler)) {
			w->sampler = true;
		} else if (starts(s, len, r, nm->blocks)) {
			int64_t d = num_after(s, len, r + strlen(nm->blocks), &r2);
			if (d >= 0 && (uint64_t)d + 1 > w->depth)
				w->depth = (uint64_t)d + 1;
		}
	}
	if (nm->block) {
		for (size_t k = 0; k < nrows && p->n < NET_MAX_LEVELS; k++) {
			p->ch[p->n] = rows[k].out;
			p->lpb[p->n++] = rows[k].blocks;
		}
		if (nrows > NET_MAX_LEVELS)
			p->n = 0;
	} else {
		/* row 0 is the input convolution; a level ends at a sampler */
		bool open = false;
		for (size_t k = 1; k < nrows && p->n < NET_MAX_LEVELS; k++) {
			const struct row *w = &rows[k];
			if (w->sampler) {
				p->n += open;
				open = false;
			} else if (w->res) {
				open = true;
				p->lpb[p->n]++;
				p->ch[p->n] = w->out;
				if (w->depth > p->tl[p->n])
					p->tl[p->n] = w->depth;
				p->down_attn[p->n] |= w->depth > 0;
			}
		}
		p->n += open && p->n < NET_MAX_LEVELS;
		/* the up stack attends where the down one does */
		for (size_t i = 0; i < p->n; i++)
			p->up_attn[i] = p->down_attn[p->n - 1 - i];
	}
	free(rows);
	for (size_t i = 0; i < p->n; i++)
		if (!p->ch[i] || p->ch[i] > NET_MAX_VALUE)
			p->n = 0;
	if (too_many)
		p->n = 0;
	return 0;
}

/* Is block i listed in the config's list key? */
static int
listed(struct build *b, const cJSON *config, const char *key, uint64_t i, bool *yes)
{
	const cJSON *l = key ? cJSON_GetObjectItemCaseSensitive(config, key) : NULL, *e;
	*yes = false;
	if (!l || cJSON_IsNull(l))
		return 0;
	if (!cJSON_IsArray(l))
		return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected a list", key);
	cJSON_ArrayForEach(e, l) {
		uint64_t v;
		if (ws_json_count(e, &v) != WS_JSON_COUNT_OK)
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected block numbers", key);
		*yes |= v == i;
	}
	return 0;
}

static int
tcmp(const void *a, const void *b)
{
	return strcmp(((const struct ws_net_tensor *)a)->name, ((const struct ws_net_tensor *)b)->name);
}

void
ws_net_free(struct ws_net *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		free(n->t[i].name);
	free(n->t);
	free(n);
}

static int finish(struct build *b0, const struct nclass *c, const cJSON *config, uint64_t *q, unsigned fl,
		  struct ws_arch *out);

/* Is config's key the count v? */
static bool
count_is(const cJSON *config, const char *key, uint64_t v)
{
	uint64_t x;
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, key);
	return it && ws_json_count(it, &x) == WS_JSON_COUNT_OK && x == v;
}

/* The keys of a class's extra table that give switches (*fl), or leave
 * it without a layout (b->why); an error names the key. */
static int
extra_read(struct build *b, const cJSON *config, const struct nextra *x, uint64_t *q, unsigned *fl)
{
	for (const struct nlist *l = x ? x->lists : NULL; l && l->key; l++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, l->key), *e;
		for (unsigned i = 0; i < l->n; i++)
			q[l->q[i]] = l->def[i];
		if (!it || cJSON_IsNull(it))
			continue;
		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != (int)l->n)
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected a list of %u counts",
				      l->key, l->n);
		unsigned i = 0;
		cJSON_ArrayForEach(e, it) {
			if (ws_json_count(e, &q[l->q[i]]) != WS_JSON_COUNT_OK || q[l->q[i]] > NET_MAX_VALUE)
				return ws_err(b->err, WS_EXIT_INPUT, b->path,
					      "config key '%s': expected a list of %u counts", l->key, l->n);
			i++;
		}
	}
	for (const struct ngiven *g = x ? x->given : NULL; g && g->key; g++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, g->key);
		if (it && !cJSON_IsNull(it))
			*fl |= g->flag;
		else if (g->required)
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s' is required by %s", g->key,
				      b->n->cls);
	}
	for (const struct ncond *c = x ? x->conds : NULL; c && c->key; c++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, c->key);
		if (it && !cJSON_IsBool(it) && !cJSON_IsNull(it))
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected true or false", c->key);
		if (it && cJSON_IsBool(it) ? cJSON_IsTrue(it) : count_is(config, c->def_key, c->def_eq))
			*fl |= c->flag;
	}
	for (const struct nstrdef *s = x ? x->strs : NULL; s && s->key; s++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, s->key);
		const char *v = !it || cJSON_IsNull(it) ? s->def : cJSON_IsString(it) ? it->valuestring : "";
		if (strcmp(v, s->value))
			b->why = "a config option the catalogue has no layout for";
		else
			*fl |= s->flag;
	}
	return 0;
}

/* The quantities a class's extra table derives: divided, or a ratio key
 * (a float) × another; a value that is not a ratio names the key. */
static int
extra_derive(struct build *b, const cJSON *config, const struct nextra *x, uint64_t *q)
{
	for (const struct ndiv *d = x ? x->divs : NULL; d && d->q; d++)
		if (!q[d->q])
			q[d->q] = q[d->a] / d->div;
	for (const struct nratio *r = x ? x->ratios : NULL; r && r->key; r++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, r->key);
		double v = r->def;
		if (it && !cJSON_IsNull(it)) {
			if (!cJSON_IsNumber(it) || !(it->valuedouble > 0) || !(it->valuedouble < 1024))
				return ws_err(b->err, WS_EXIT_INPUT, b->path,
					      "config key '%s': expected a ratio above 0 and below 1024", r->key);
			v = it->valuedouble;
		}
		/* a released width (below 2^32) × a ratio floors as Python's
		 * int() does; a product no uint64 holds is refused, not cast */
		double p = v * (double)q[r->of];
		if (!(p < 18446744073709551616.0))
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
		q[r->q] = (uint64_t)p;
	}
	return 0;
}

/* A count key into *v (absent or null: def), at most max. */
static int
vcount(struct build *b, const cJSON *config, const char *key, uint64_t def, uint64_t max, uint64_t *v)
{
	if (key_u64(b, config, key, def, v) < 0)
		return -1;
	if (*v > max || !*v)
		return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': expected a count from 1 to %llu", key,
			      (unsigned long long)max);
	return 0;
}

/* A video VAE's stacks and mid blocks (struct nvstack), from base_dim,
 * decoder_base_dim, dim_mult, num_res_blocks, temperal_downsample and
 * attn_scales (only none has a layout). */
static int
vlevels(struct build *b, const cJSON *config, const struct nextra *x, uint64_t *q, unsigned fl)
{
	uint64_t base, dbase, nrb, mult[NET_MAX_LEVELS];
	bool tdown[NET_MAX_LEVELS] = {false};
	size_t n = 0;
	if (vcount(b, config, "base_dim", 96, NET_MAX_VALUE, &base) ||
	    vcount(b, config, "decoder_base_dim", base, NET_MAX_VALUE, &dbase) ||
	    vcount(b, config, "num_res_blocks", 2, NET_MAX_REPEAT, &nrb))
		return -1;
	const cJSON *dm = cJSON_GetObjectItemCaseSensitive(config, "dim_mult"), *e;
	if (!dm || cJSON_IsNull(dm)) {
		static const uint64_t def[] = {1, 2, 4, 4};
		memcpy(mult, def, sizeof def);
		n = 4;
	} else if (!cJSON_IsArray(dm) || cJSON_GetArraySize(dm) < 1 || cJSON_GetArraySize(dm) > NET_MAX_LEVELS) {
		return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key 'dim_mult': expected a list of 1 to %d counts",
			      NET_MAX_LEVELS);
	} else {
		cJSON_ArrayForEach(e, dm) {
			if (ws_json_count(e, &mult[n]) != WS_JSON_COUNT_OK || !mult[n] || mult[n] > NET_MAX_VALUE)
				return ws_err(b->err, WS_EXIT_INPUT, b->path,
					      "config key 'dim_mult': expected positive counts");
			n++;
		}
	}
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(config, "temperal_downsample");
	if (!td || cJSON_IsNull(td)) {
		for (size_t i = 1; i + 1 < n; i++)
			tdown[i] = true; /* diffusers' [False, True, True] */
	} else if (!cJSON_IsArray(td) || (size_t)cJSON_GetArraySize(td) + 1 != n) {
		return ws_err(b->err, WS_EXIT_INPUT, b->path,
			      "config key 'temperal_downsample': expected %zu true or false, one per level but the last",
			      n - 1);
	} else {
		size_t i = 0;
		cJSON_ArrayForEach(e, td) {
			if (!cJSON_IsBool(e))
				return ws_err(b->err, WS_EXIT_INPUT, b->path,
					      "config key 'temperal_downsample': expected true or false");
			tdown[i++] = cJSON_IsTrue(e);
		}
	}
	const cJSON *as = cJSON_GetObjectItemCaseSensitive(config, "attn_scales");
	if (as && !cJSON_IsNull(as) && !(cJSON_IsArray(as) && !cJSON_GetArraySize(as))) {
		b->why = "a config option the catalogue has no layout for";
		return 0;
	}
	/* the widths, encoder's [base, base × mult...], decoder's [dbase ×
	 * the last mult, dbase × mult reversed...] */
	uint64_t ed[NET_MAX_LEVELS + 1], dd[NET_MAX_LEVELS + 1];
	ed[0] = base;
	if (!ws_mul_u64(dbase, mult[n - 1], &dd[0]))
		return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
	for (size_t i = 0; i < n; i++)
		if (!ws_mul_u64(base, mult[i], &ed[i + 1]) || !ws_mul_u64(dbase, mult[n - 1 - i], &dd[i + 1]))
			return ws_err(b->err, WS_EXIT_INPUT, b->path, "config sizes overflow");
	q[QB0] = ed[0];
	q[QBL] = ed[n];
	q[QDTOP] = dd[0];
	q[QDBOT] = dd[n];
	/* flops: each level halves the frame; the decoder starts deepest */
	b->deep = (uint8_t)(n - 1);
	for (const struct nvstack *st = x->vstacks; st->res; st++) {
		const uint64_t *d = st->up ? dd : ed;
		unsigned run = 0;
		for (size_t i = 0; i < n; i++) {
			uint64_t v[QR_COUNT];
			memcpy(v, q, sizeof v);
			uint64_t in = d[i], out = d[i + 1];
			if (st->up && i && st->in_div)
				in /= st->in_div;
			size_t li = st->up ? n - 1 - i : i;
			b->level = (uint8_t)li;
			for (uint64_t j = 0; j < nrb + st->up; j++) {
				v[QI] = j ? out : in;
				v[QO] = out;
				unsigned ix[2] = {st->running ? run++ : (unsigned)i, (unsigned)j};
				if (emit_ix(b, st->res, ix, NULL, u_wres, v, fl | (v[QI] != v[QO] ? F_SHORT : 0)))
					return -1;
			}
			if (i + 1 == n)
				continue;
			v[QI] = v[QO] = out;
			v[QOH] = out / 2;
			/* the decoder upsamples time where the encoder downsampled it */
			bool t = st->up ? tdown[n - 2 - i] : tdown[i];
			b->level = (uint8_t)(st->up ? li - 1 : li + 1); /* the sampler's output */
			unsigned ix[2] = {st->running ? run++ : (unsigned)i, 0};
			if (emit_ix(b, st->sampler, ix, NULL, st->sampler_unit, v, fl | (t ? F_TIME : 0)))
				return -1;
		}
	}
	for (const struct nvmid *md = x->vmids; md && md->prefix; md++) {
		uint64_t v[QR_COUNT];
		memcpy(v, q, sizeof v);
		v[QI] = v[QO] = md->up ? dd[0] : ed[n];
		b->level = b->deep;
		char pre[64];
		static const char *const part[] = {"resnets.0.", "attentions.0.", "resnets.1."};
		for (int k = 0; k < 3; k++) {
			snprintf(pre, sizeof pre, "%s%s", md->prefix, part[k]);
			if (emit(b, pre, k == 1 ? u_wattn : u_wres, v, fl))
				return -1;
		}
	}
	b->level = 0;  /* the class's own layers: the input grid unless said */
	return 0;
}

int
ws_net_arch_from_config(const cJSON *config, const char *path, struct ws_arch *out, ws_error *err)
{
	const struct nclass *c = class_of(class_name(config));
	const char *cn = class_name(config);
	snprintf(out->architecture, sizeof out->architecture, "%s", cn ? cn : "");
	if (!c) {
		out->unsupported = "a diffusers class the catalogue has no layout for";
		return 0;
	}
	snprintf(out->cls, sizeof out->cls, "%s", c->cls);
	struct ws_net *n = calloc(1, sizeof *n);
	if (!n)
		return ws_err_oom(err, path);
	n->cls = c->cls;
	n->kind = c->kind;
	struct build b = {.n = n, .path = path, .err = err};
	uint64_t q[QR_COUNT] = {0};
	q[Q1] = 1;
	int rc = 0;
	for (const struct nkey *k = c->keys; !rc && k->key; k++) {
		if (level_key(c, k->key))
			continue;  /* levels() reads it, a number or a list */
		int r = key_u64(&b, config, k->key, k->def, &q[k->q]);
		if (r < 0)
			rc = -1;
		else if (!r && k->else_q && k->else_q != QB0)
			q[k->q] = q[k->else_q] * (k->mul ? k->mul : 1);
	}
	const struct nkey *counts = c->counts;
	for (const struct nkey *k = counts; !rc && k && k->key; k++)
		if (key_u64(&b, config, k->key, k->def, &q[k->q]) < 0 || q[k->q] > NET_MAX_REPEAT)
			rc = rc ? rc : q[k->q] > NET_MAX_REPEAT
				? ws_err(err, WS_EXIT_INPUT, path, "config key '%s': more than %u blocks", k->key,
					 NET_MAX_REPEAT) : -1;
	unsigned fl = 0;
	for (const struct nflag *f = c->flags; !rc && f && f->key; f++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, f->key);
		if (it && !cJSON_IsBool(it) && !cJSON_IsNull(it))
			rc = ws_err(err, WS_EXIT_INPUT, path, "config key '%s': expected true or false", f->key);
		else if (it && cJSON_IsBool(it) ? cJSON_IsTrue(it) : f->def)
			fl |= f->flag;
	}
	for (const struct nstr *s = c->strs; !rc && s && s->key; s++) {
		const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, s->key);
		if (!it || cJSON_IsNull(it) || cJSON_IsFalse(it))
			continue;
		if (c->strs == vae_strs && cJSON_IsTrue(it))
			continue; /* double_z true: the encoder's two outputs, the layout */
		if (s->value && cJSON_IsString(it) && !strcmp(it->valuestring, s->value))
			fl |= s->flag;
		else
			b.why = "a config option the catalogue has no layout for";
	}
	if (!rc)
		rc = extra_read(&b, config, extra_of(c), q, &fl);
	q[QTIN] = 256; /* the sinusoidal timestep features diffusers embeds */
	if (rc) {
		ws_net_free(n);
		return -1;
	}
	return finish(&b, c, config, q, fl, out);
}

/* The derived quantities, then every unit placed; out->net on success. */
static int
finish(struct build *b0, const struct nclass *c, const cJSON *config, uint64_t *q, unsigned fl,
       struct ws_arch *out)
{
	struct build b = *b0;
	struct ws_net *n = b.n;
	ws_error *err = b.err;
	const char *path = b.path;
	int rc = 0;
	/* derived quantities: a × b × mul + plus (what was not read) */
	for (const struct nderive *d = c->derive; !rc && d && d->q; d++) {
		uint64_t v;
		if (q[d->q])
			continue;
		if (!ws_mul_u64(q[d->a], q[d->b], &v) || !ws_mul_u64(v, d->mul ? d->mul : 1, &v) ||
		    !ws_add_u64(v, q[d->plus], &v))
			rc = ws_err(err, WS_EXIT_INPUT, path, "config sizes overflow");
		else
			q[d->q] = v;
	}
	if (!rc)
		rc = extra_derive(&b, config, extra_of(c), q);
	b.encode = c->encode;
	if (!rc && !b.why && config && extra_of(c) && extra_of(c)->vstacks)
		rc = vlevels(&b, config, extra_of(c), q, fl);
	/* the levels first: they read the widths the class's own layers use */
	if (!rc && !b.why && c->levels)
		rc = levels(&b, config, c, q, fl);
	if (!rc && !b.why && ldm_of(c)) {
		struct nplan pc;
		const struct nplan *p = b.plan;
		if (!p && !(rc = ldm_plan_config(&b, config, c, &pc, q)))
			p = &pc;
		if (!rc && !b.why && !p->n)
			b.why = "no levels of resnets in the tensor names";
		if (!rc && !b.why) {
			q[QB0] = p->ch[0];
			q[QBL] = p->ch[p->n - 1];
			/* UNet2DConditionModel's time embedding width: 4 × the first level */
			for (const struct nkey *k = c->keys; k->key; k++)
				if (k->else_q == QB0 && !q[k->q])
					q[k->q] = p->ch[0] * k->mul;
			rc = ldm_levels(&b, c, p, q, fl);
		}
	}
	if (!rc && !b.why)
		rc = emit(&b, "", c->own, q, fl);
	for (const struct nrep *r = c->reps; !rc && !b.why && r && r->fmt; r++)
		for (uint64_t i = 0; !rc && i < q[r->count]; i++) {
			bool dual;
			rc = listed(&b, config, r->dual_key, i, &dual);
			unsigned f = fl | (dual ? F_DUAL : 0) | (r->last_pre_only && i + 1 == q[r->count] ? F_PRE : 0);
			if (!rc)
				rc = emit_at(&b, r->fmt, (unsigned)i, NULL, 0, r->unit, q, f);
		}
	if (rc) {
		ws_net_free(n);
		return -1;
	}
	if (b.why) {
		ws_net_free(n);
		out->unsupported = b.why;
		return 0;
	}
	qsort(n->t, n->n, sizeof *n->t, tcmp);
	if (config)
		key_u64(&b, config, "sample_size", 0, &n->sample_size);
	n->sample_from_config = n->sample_size != 0;
	if (!n->sample_size)
		n->sample_size = c->sample_def;
	n->levels = (uint64_t)b.deep + 1;
	n->patch = (q[QPS] ? q[QPS] : 1) * (c->pack ? c->pack : 1);
	n->text_tokens = c->text_tokens;
	n->long_text_tokens = c->long_text_tokens;
	n->in_channels = q[QCIN];
	n->latent_channels = q[QLAT];
	out->net = n;
	out->known = true;
	out->hidden_size = q[QD] ? q[QD] : q[QBL];
	out->num_heads = q[QHEADS];
	out->head_dim = q[QDH];
	return 0;
}

const struct ws_net_tensor *
ws_net_find(const struct ws_net *n, const char *name, size_t len)
{
	size_t lo = 0, hi = n->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *s = n->t[mid].name;
		size_t sl = strlen(s);
		int c = memcmp(s, name, sl < len ? sl : len);
		if (!c)
			c = sl < len ? -1 : sl > len ? 1 : 0;
		if (!c)
			return &n->t[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
ws_net_formula(const struct ws_net *n, struct ws_formula *f)
{
	f->total = f->active = n->total;
	memcpy(f->by_role, n->by_role, sizeof f->by_role);
}

/* The length of the component's name prefix t carries, or 0. */
static size_t
prefix_of(const ws_model *m, uint32_t comp, const ws_tensor *t)
{
	const ws_component *co = comp < m->n_components ? &m->components[comp] : NULL;
	for (size_t i = 0; co && co->part && i < WS_CAT_MAX_PREFIXES && co->part->prefixes[i]; i++) {
		size_t pl = strlen(co->part->prefixes[i]);
		if (t->name_len > pl && !memcmp(t->name, co->part->prefixes[i], pl))
			return pl;
	}
	return 0;
}

/* A buffer of a single file outside the component's module (the noise
 * schedule beside model.diffusion_model.): the role table's, not the
 * network's, and no tensor the network expects. */
static bool
outside_buffer(const ws_model *m, uint32_t comp, const ws_tensor *t, size_t skip)
{
	const ws_component *co = comp < m->n_components ? &m->components[comp] : NULL;
	return !skip && co && co->part && co->part->prefixes[0] && t->role == WS_ROLE_BUFFER;
}

void
ws_net_roles(ws_model *m, uint32_t comp, const struct ws_net *n)
{
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		if (t->component != comp || t->role == WS_ROLE_QUANT_AUX)
			continue;
		size_t skip = prefix_of(m, comp, t);
		if (outside_buffer(m, comp, t, skip)) {
			t->params = 0;
			continue;
		}
		const struct ws_net_tensor *e = ws_net_find(n, t->name + skip, t->name_len - skip);
		t->layer = -1;
		t->expert = -1;
		t->role = e ? e->role : WS_ROLE_OTHER;
		t->kind = e ? e->kind : t->name_len > 5 && !memcmp(t->name + t->name_len - 5, ".bias", 5)
			? WS_KIND_BIAS : WS_KIND_WEIGHT;
		t->params = t->role == WS_ROLE_BUFFER ? 0 : t->elements;
	}
	/* the component's count follows the roles (a buffer is no parameter) */
	if (comp < m->n_components) {
		ws_component *co = &m->components[comp];
		co->params = 0;
		for (uint64_t i = 0; i < m->n_tensors; i++)
			if (m->tensors[i].component == comp && m->tensors[i].role != WS_ROLE_QUANT_AUX)
				co->params += m->tensors[i].params;
	}
}

#define NET_FINDING_CAP 16

static int
shape_str(char *buf, size_t len, const uint64_t *dim, unsigned nd)
{
	size_t o = 0;
	o += (size_t)snprintf(buf, len, "[");
	for (unsigned d = 0; d < nd && o < len; d++)
		o += (size_t)snprintf(buf + o, len - o, "%s%llu", d ? ", " : "", (unsigned long long)dim[d]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return 0;
}

int
ws_net_compare(ws_model *m, uint32_t comp, const struct ws_net *n)
{
	ws_strset seen = {0};
	uint64_t missing = 0, extra = 0, shapes = 0, params = 0;
	int rc = -1;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->component != comp || t->role == WS_ROLE_QUANT_AUX)
			continue;
		size_t skip = prefix_of(m, comp, t);
		if (outside_buffer(m, comp, t, skip))
			continue;
		params += t->params;
		const char *nm = t->name + skip;
		size_t nl = t->name_len - skip;
		if (ws_strset_add(&seen, nm, nl) < 0)
			goto out;
		const struct ws_net_tensor *e = ws_net_find(n, nm, nl);
		char *esc = NULL;
		if (!e) {
			if (extra++ >= NET_FINDING_CAP)
				continue;
			if (!(esc = ws_escape_text(t->name, t->name_len)) ||
			    ws_model_add_finding(m, WS_SEV_WARNING, "unexpected-tensor", esc, t->role, -1, false, 0, 0,
						 "tensor '%s' is not part of %s", esc, n->cls) < 0) {
				free(esc);
				goto out;
			}
			free(esc);
			continue;
		}
		/* a GGUF's reshaped tensor compares at its original shape */
		uint32_t tnd;
		const uint64_t *tsh = ws_tensor_logical(t, &tnd);
		bool same = tnd == e->ndim;
		for (unsigned d = 0; same && d < e->ndim; d++)
			same = tsh[d] == e->dim[d];
		if (same || shapes++ >= NET_FINDING_CAP)
			continue;
		char want[128], have[128];
		shape_str(want, sizeof want, e->dim, e->ndim);
		shape_str(have, sizeof have, tsh, tnd);
		if (!(esc = ws_escape_text(t->name, t->name_len)) ||
		    ws_model_add_finding(m, WS_SEV_ERROR, "shape-mismatch", esc, e->role, -1, true, e->elements,
					 t->elements, "tensor '%s' has shape %s, %s expects %s", esc, have, n->cls,
					 want) < 0) {
			free(esc);
			goto out;
		}
		free(esc);
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct ws_net_tensor *e = &n->t[i];
		if (ws_strset_has(&seen, e->name, strlen(e->name)) || missing++ >= NET_FINDING_CAP)
			continue;
		char *esc = ws_escape_text(e->name, strlen(e->name));
		if (!esc || ws_model_add_finding(m, WS_SEV_ERROR, "missing-tensor", esc, e->role, -1, true,
						 e->elements, 0, "%s has no tensor '%s' (role %s)", n->cls, esc,
						 ws_role_name(e->role)) < 0) {
			free(esc);
			goto out;
		}
		free(esc);
	}
	uint64_t over[3] = {missing, extra, shapes};
	static const char *const what[3] = {"missing-tensor", "unexpected-tensor", "shape-mismatch"};
	for (int k = 0; k < 3; k++)
		if (over[k] > NET_FINDING_CAP &&
		    ws_model_add_finding(m, k == 1 ? WS_SEV_WARNING : WS_SEV_ERROR, what[k], NULL, -1, -1, false, 0, 0,
					 "and %llu more", (unsigned long long)(over[k] - NET_FINDING_CAP)) < 0)
			goto out;
	if (params != n->total &&
	    ws_model_add_finding(m, WS_SEV_ERROR, "count-mismatch", NULL, -1, -1, true, n->total, params,
				 "%s holds %llu parameters, its formula %llu", n->cls,
				 (unsigned long long)params, (unsigned long long)n->total) < 0)
		goto out;
	rc = 0;
out:
	ws_strset_free(&seen);
	return rc;
}

/* The number after prefix in name[0..len) ("double_blocks.12." -> 12),
 * or -1. */
static int64_t
index_after(const char *name, size_t len, const char *prefix)
{
	size_t pl = strlen(prefix);
	if (len <= pl || memcmp(name, prefix, pl))
		return -1;
	int64_t v = 0;
	size_t i = pl;
	for (; i < len && name[i] >= '0' && name[i] <= '9' && v <= NET_MAX_REPEAT; i++)
		v = v * 10 + (name[i] - '0');
	return i > pl && i < len && name[i] == '.' ? v : -1;
}

/* The levels read from the shapes, in words (what the output shows). */
static void
describe(char *buf, size_t cap, const struct nplan *p, const uint64_t *q, unsigned fl)
{
	size_t o = 0;
#define PUT(...)                                                                         \
	do {                                                                             \
		int w_ = o < cap ? snprintf(buf + o, cap - o, __VA_ARGS__) : 0;          \
		o += w_ > 0 ? (size_t)w_ : 0;                                            \
	} while (0)
	PUT("levels");
	for (size_t i = 0; i < p->n; i++)
		PUT("%s%llu", i ? ", " : " ", (unsigned long long)p->ch[i]);
	PUT("; resnets");
	for (size_t i = 0; i < p->n; i++)
		PUT("%s%llu", i ? ", " : " ", (unsigned long long)p->lpb[i]);
	bool attn = false;
	for (size_t i = 0; i < p->n; i++)
		attn |= p->down_attn[i];
	if (attn) {
		PUT("; transformer depth");
		for (size_t i = 0; i < p->n; i++)
			PUT("%s%llu", i ? ", " : " ", (unsigned long long)p->tl[i]);
		PUT(", mid %llu", (unsigned long long)p->mid_tl);
	}
	if (q[QX])
		PUT("; text width %llu", (unsigned long long)q[QX]);
	if (attn)
		PUT("; %s projections", fl & F_LIN ? "linear" : "1x1 convolution");
	if (fl & F_TEXTTIME)
		PUT("; text_time embedding of %llu", (unsigned long long)q[QADD]);
	if (q[QLAT])
		PUT("; %llu latent channels", (unsigned long long)q[QLAT]);
#undef PUT
	if (o >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
}

/* Is tensor t named prefix + name (name's leading '*': ending so)? */
static bool
probe_hit(const ws_tensor *t, size_t pl, const char *name)
{
	size_t n = strlen(name);
	if (name[0] == '*')
		return t->name_len >= pl + n - 1 && !memcmp(t->name + t->name_len - (n - 1), name + 1, n - 1);
	return t->name_len == pl + n && !memcmp(t->name + pl, name, n);
}

/* ws_net_infer_part's search for the first class with its detect
 * tensor, on two threads for a large file: each worker takes runs of
 * tensors and keeps the first class it has seen a hit of (the first of
 * them all is the same however the runs fall). */
#define DETECT_RUN 2048

typedef struct {
	const ws_model *m;
	const char *prefix;
	size_t pl;
	const size_t *need;
	size_t lo;
	uint64_t want, loose, lens, runs;
	size_t first[2];  /* a worker's first class found */
	_Atomic uint64_t next;
} detect_pass;

static void
detect_worker(void *arg, unsigned worker)
{
	detect_pass *p = arg;
	const ws_model *m = p->m;
	size_t pl = p->pl, lo = p->lo, *first = &p->first[worker < 2 ? worker : 1];
	uint64_t want = p->want;
	for (uint64_t r; want && (r = atomic_fetch_add(&p->next, 1)) < p->runs;) {
		uint64_t hi = m->n_tensors - r * DETECT_RUN < DETECT_RUN ? m->n_tensors : (r + 1) * DETECT_RUN;
		for (uint64_t i = r * DETECT_RUN; i < hi && want; i++) {
			const ws_tensor *t = &m->tensors[i];
			size_t len = t->name_len;
			if (len <= pl)
				continue;
			uint64_t cand = p->loose & want;
			if (len >= lo && len - lo < 64 && (p->lens >> (len - lo) & 1))
				cand = want;
			for (; cand; cand &= cand - 1) {
				size_t k = (size_t)__builtin_ctzll(cand);
				if ((classes[k].detect[0] == '*' ? len < p->need[k] : len != p->need[k]) ||
				    (pl && memcmp(t->name, p->prefix, pl)) || !probe_hit(t, pl, classes[k].detect))
					continue;
				*first = k;
				/* only a class before it can still come first */
				want &= (1ull << k) - 1;
				break;
			}
		}
	}
}

int
ws_net_infer_part(const ws_model *m, const char *prefix, const char *cls, struct ws_arch *out, ws_error *err)
{
	const struct nclass *c = NULL;
	size_t pl = prefix ? strlen(prefix) : 0;
	/* The first class in order with its detect tensor: one pass over
	 * the tensors for all of them, a name tried only against the
	 * classes whose detect name has its length (probe_hit's first
	 * test; a '*' one, ending so, against any at least as long). */
	enum { NC = sizeof classes / sizeof classes[0] };
	_Static_assert(NC <= 64, "a class a bit");
	size_t need[NC] = {0}, lo = SIZE_MAX;
	uint64_t want = 0, loose = 0, lens = 0;
	for (size_t k = 0; k < NC; k++) {
		if (!classes[k].detect || (cls && strcmp(classes[k].cls, cls)))
			continue;
		size_t dn = strlen(classes[k].detect);
		want |= 1ull << k;
		if (classes[k].detect[0] == '*') {
			need[k] = pl + dn - 1; /* at least */
			loose |= 1ull << k;
		} else {
			need[k] = pl + dn;     /* exactly */
			if (need[k] < lo)
				lo = need[k];
		}
	}
	for (size_t k = 0; k < NC; k++)
		if ((want & ~loose) >> k & 1) {
			if (need[k] - lo < 64)
				lens |= 1ull << (need[k] - lo);
			else
				loose |= 1ull << k; /* tried at every name */
		}
	detect_pass dp = {.m = m, .prefix = prefix, .pl = pl, .need = need, .lo = lo, .want = want,
			  .loose = loose, .lens = lens,
			  .runs = m->n_tensors / DETECT_RUN + (m->n_tensors % DETECT_RUN != 0),
			  .first = {NC, NC}};
	atomic_init(&dp.next, 0);
	ws_team_run(ws_team_helpers_for(m->n_tensors), detect_worker, &dp);
	size_t first = dp.first[0] < dp.first[1] ? dp.first[0] : dp.first[1];
	if (first < NC)
		c = &classes[first];
	if (!c)
		return 0;
	uint64_t q[QR_COUNT] = {0};
	unsigned fl = 0;
	q[Q1] = 1;
	for (const struct nprobe *p = c->probes; p->name; p++) {
		size_t nl = strlen(p->name);
		for (uint64_t i = 0; i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (t->name_len <= pl || memcmp(t->name, prefix, pl))
				continue;
			if (p->name[nl - 1] == '.') {
				int64_t v = index_after(t->name + pl, t->name_len - pl, p->name);
				if (v >= 0 && (uint64_t)v + 1 > q[p->q])
					q[p->q] = (uint64_t)v + 1;
			} else if (probe_hit(t, pl, p->name)) {
				/* a GGUF's reshaped tensor is read at its original shape */
				uint32_t nd;
				const uint64_t *sh = ws_tensor_logical(t, &nd);
				if (p->flag && (!p->dim || nd == p->dim))
					fl |= p->flag;
				if (!p->flag && p->dim < nd)
					q[p->q] = sh[p->dim];
			}
		}
		if (!p->flag && (q[p->q] > (p->name[nl - 1] == '.' ? NET_MAX_REPEAT : NET_MAX_VALUE)))
			return ws_err(err, WS_EXIT_INPUT, m->path, "'%s': a size no network has", p->name);
	}
	struct nplan plan;
	if (ldm_of(c) && ldm_plan_names(m, pl, ldm_of(c), &plan, err))
		return -1;
	out->source = "inferred";
	snprintf(out->architecture, sizeof out->architecture, "%s", c->cls);
	snprintf(out->cls, sizeof out->cls, "%s", c->twin ? c->twin : c->cls);
	struct ws_net *n = calloc(1, sizeof *n);
	if (!n)
		return ws_err_oom(err, m->path);
	n->cls = c->cls;
	n->kind = c->kind;
	/* sizes read from a file that overflow, or more tensors than any
	 * network has: no formula, said so (an untrusted file's shapes are
	 * not a config's error) */
	ws_error e2 = {0};
	struct build b = {.n = n, .path = m->path, .err = &e2, .plan = ldm_of(c) ? &plan : NULL};
	/* the blocks of a second attention, as the config would list them */
	cJSON *cfg = NULL, *dual = NULL;
	if (c->dual_prefix && c->reps && c->reps[0].dual_key) {
		size_t sl = strlen(c->dual_suffix), dl = strlen(c->dual_prefix);
		if (!(cfg = cJSON_CreateObject()) || !(dual = cJSON_AddArrayToObject(cfg, c->reps[0].dual_key))) {
			cJSON_Delete(cfg);
			ws_net_free(n);
			return ws_err_oom(err, m->path);
		}
		for (uint64_t i = 0; i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (t->name_len <= pl || memcmp(t->name, prefix, pl))
				continue;
			const char *nm = t->name + pl;
			size_t len = t->name_len - pl;
			int64_t v = index_after(nm, len, c->dual_prefix);
			const char *dot = v >= 0 ? memchr(nm + dl, '.', len - dl) : NULL;
			if (dot && (size_t)(nm + len - dot) == sl && !memcmp(dot, c->dual_suffix, sl) &&
			    !cJSON_AddItemToArray(dual, cJSON_CreateNumber((double)v))) {
				cJSON_Delete(cfg);
				ws_net_free(n);
				return ws_err_oom(err, m->path);
			}
		}
	}
	int rc = finish(&b, c, cfg, q, fl, out);
	cJSON_Delete(cfg);
	if (rc) {
		if (e2.code == WS_EXIT_INTERNAL) {
			*err = e2;
			return -1;
		}
		out->unsupported = "the sizes read from the shapes do not form a network (overflow or too many tensors)";
	}
	if (out->net && ldm_of(c)) {
		describe(out->net->layout, sizeof out->net->layout, &plan, q, fl);
		/* attention heads are in no shape (diffusers' attention_head_dim) */
		if (ldm_of(c)->transformer)
			out->assumed = "heads: in no shape, not read; no count depends on them";
	}
	/* found, with its formula or the reason it has none */
	return 1;
}

int
ws_net_infer(const ws_model *m, struct ws_arch *out, ws_error *err)
{
	return ws_net_infer_part(m, "", NULL, out, err);
}

const char *
ws_net_single_file_class(const char *cls)
{
	for (size_t k = 0; cls && k < sizeof classes / sizeof classes[0]; k++)
		if (classes[k].twin && !strcmp(classes[k].twin, cls))
			return classes[k].cls;
	return NULL;
}

bool
ws_net_macs(const struct ws_net *n, uint64_t h, uint64_t w, uint64_t txt, struct ws_net_macs *out)
{
	memset(out, 0, sizeof *out);
	if (!ws_mul_u64(h, w, &out->image_tokens))
		return false;
	for (size_t i = 0; i < n->n; i++) {
		const struct ws_net_tensor *t = &n->t[i];
		/* matrices only: norms, biases and buffers multiply nothing */
		if (t->buffer || t->kind != WS_KIND_WEIGHT || t->ndim < 2)
			continue;
		uint64_t img, tokens, m, x, keys, q;
		if (t->level >= 64 || !ws_mul_u64(h >> t->level, w >> t->level, &img))
			return false;
		switch (t->tok) {
		case T_ONE: tokens = 1; break;
		case T_TXT: tokens = txt; break;
		case T_ALL: if (!ws_add_u64(img, txt, &tokens)) return false; break;
		default: tokens = img; break;
		}
		/* a weight element per token (a convolution's per output position) */
		uint64_t *sum = t->encode ? &out->encode_macs : &out->macs;
		uint64_t *att = t->encode ? &out->encode_attention : &out->attention;
		if (!ws_mul_u64(t->elements, tokens, &m) || !ws_add_u64(*sum, m, sum) ||
		    !ws_add_u64(out->by_role[t->role], t->encode ? 0 : m, &out->by_role[t->role]))
			return false;
		if (!t->att)
			continue;
		/* scores Q·Kᵀ and the weighted sum of V: 2 × queries × keys × width */
		q = tokens;
		keys = t->att == A_TXT ? txt : tokens;
		if (t->att == A_JOINT && !ws_add_u64(img, txt, &q))
			return false;
		if (t->att == A_JOINT)
			keys = q;
		if (!ws_mul_u64(q, keys, &x) || !ws_mul_u64(x, t->att_dim, &x) || !ws_mul_u64(x, 2, &x) ||
		    !ws_add_u64(*att, x, att) || !ws_add_u64(*sum, x, sum))
			return false;
	}
	return true;
}

const char *
ws_net_gguf_arch(const char *cls)
{
	for (size_t k = 0; cls && k < sizeof classes / sizeof classes[0]; k++)
		if (classes[k].gguf[0] && !strcmp(classes[k].cls, cls))
			return classes[k].gguf[0];
	return NULL;
}

bool
ws_net_gguf_family(const char *arch)
{
	for (size_t k = 0; arch && k < sizeof gguf_families / sizeof gguf_families[0]; k++)
		if (!strcmp(gguf_families[k], arch))
			return true;
	return false;
}

int
ws_net_infer_gguf(const ws_model *m, const char *prefix, const char *family, struct ws_arch *out,
		  ws_error *err)
{
	int r = ws_net_infer_part(m, prefix, NULL, out, err);
	if (r < 0)
		return -1;
	if (r && !out->net)
		return 0;  /* a layout's names, sizes of no network: said why */
	const struct nclass *c = r ? class_of(out->net->cls) : NULL;
	for (size_t k = 0; c && k < 2; k++)
		if (c->gguf[k] && !strcmp(c->gguf[k], family))
			return 0;
	/* names of no layout, or of another family's than the key says */
	if (out->net) {
		ws_net_free(out->net);
		out->net = NULL;
	}
	out->known = false;
	out->hidden_size = out->num_heads = out->head_dim = 0;
	snprintf(out->architecture, sizeof out->architecture, "%s", family);
	out->unsupported = r ? "a GGUF whose general.architecture names another diffusion family than its "
			       "tensor names"
			     : "a diffusion network in ComfyUI-GGUF's layout whose tensor names the catalogue "
			       "has no layout for";
	return 0;
}
