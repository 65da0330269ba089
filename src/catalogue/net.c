/*
 * net.c - diffusion networks as data (see ws/net.h): units of tensor
 * lines, and per class the config keys read, the units placed once, the
 * blocks repeated, and the level stacks of a UNet or a VAE.
 */
#include <cjson/cJSON.h>
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
	QN
};

/* A dimension: quantity × mul (mul 0 is 1). */
struct nd {
	unsigned char q, mul;
};

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
};

struct nline {
	const char *name;
	ws_role role;
	unsigned need, unless;
	struct nd d[4];
};

#define R(x) WS_ROLE_##x
/* a linear with bias: weight [o, i], bias [o] */
#define LIN(n, role, need, unless, o, i) \
	{n ".weight", R(role), need, unless, {o, i}}, {n ".bias", R(role), need, unless, {o}}
#define LINNB(n, role, need, unless, o, i) {n ".weight", R(role), need, unless, {o, i}}
/* a weight vector alone (an RMSNorm) */
#define VEC(n, role, need, unless, w) {n ".weight", R(role), need, unless, {w}}
/* a vector under its own name (BFL's RMSNorm scale) */
#define RAW(n, role, need, unless, w) {n, R(role), need, unless, {w}}
#define NORMWB(n, role, need, unless, w) \
	{n ".weight", R(role), need, unless, {w}}, {n ".bias", R(role), need, unless, {w}}
#define CONV(n, role, need, unless, o, i, k) \
	{n ".weight", R(role), need, unless, {o, i, k, k}}, {n ".bias", R(role), need, unless, {o}}
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
#define END {NULL, 0, 0, 0, {{0, 0}}}

/* ==== units ==== */

/* a resnet: group norms, two 3x3 convolutions, the timestep's shift */
static const struct nline u_resnet[] = {
	NORMWB("norm1", NORM, 0, 0, I_),
	CONV("conv1", CONV, 0, 0, O_, I_, K3),
	LIN("time_emb_proj", TIME_EMBED, F_TEMB, 0, O_, dT),
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
	LINNB("attn1.to_q", ATTN_Q, 0, 0, O_, O_),
	LINNB("attn1.to_k", ATTN_K, 0, 0, O_, O_),
	LINNB("attn1.to_v", ATTN_V, 0, 0, O_, O_),
	LIN("attn1.to_out.0", ATTN_O, 0, 0, O_, O_),
	NORMWB("norm2", XATTN_NORM, 0, 0, O_),
	LINNB("attn2.to_q", XATTN_Q, 0, 0, O_, O_),
	LINNB("attn2.to_k", XATTN_K, 0, 0, O_, dX),
	LINNB("attn2.to_v", XATTN_V, 0, 0, O_, dX),
	LIN("attn2.to_out.0", XATTN_O, 0, 0, O_, O_),
	NORMWB("norm3", FFN_NORM, 0, 0, O_),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dO_8, O_),
	LIN("ff.net.2", FFN_DOWN, 0, 0, O_, dO_4),
	END,
};

/* a VAE's single-head attention with biases */
static const struct nline u_vae_attn[] = {
	NORMWB("group_norm", NORM, 0, 0, O_),
	LIN("to_q", ATTN_Q, 0, 0, O_, O_),
	LIN("to_k", ATTN_K, 0, 0, O_, O_),
	LIN("to_v", ATTN_V, 0, 0, O_, O_),
	LIN("to_out.0", ATTN_O, 0, 0, O_, O_),
	END,
};

/* UNet2DConditionModel's own layers */
static const struct nline u_unet[] = {
	CONV("conv_in", CONV, 0, 0, dB0, dCIN, dKIN),
	LIN("time_embedding.linear_1", TIME_EMBED, 0, 0, dT, dB0),
	LIN("time_embedding.linear_2", TIME_EMBED, 0, 0, dT, dT),
	LIN("add_embedding.linear_1", COND_EMBED, F_TEXTTIME, 0, dT, dADD),
	LIN("add_embedding.linear_2", COND_EMBED, F_TEXTTIME, 0, dT, dT),
	NORMWB("conv_norm_out", NORM, 0, 0, dB0),
	CONV("conv_out", CONV, 0, 0, dCOUT, dB0, dKOUT),
	END,
};

/* AutoencoderKL's own layers: the encoder's ends (double_z: mean and
 * log-variance), the quant convolutions, the decoder's ends */
static const struct nline u_vae[] = {
	CONV("encoder.conv_in", CONV, 0, 0, dB0, dCIN, K3),
	NORMWB("encoder.conv_norm_out", NORM, 0, 0, dBL),
	CONV("encoder.conv_out", CONV, 0, 0, dLAT2, dBL, K3),
	CONV("quant_conv", CONV, F_QC, 0, dLAT2, dLAT2, K1),
	CONV("post_quant_conv", CONV, F_PQC, 0, dLAT, dLAT, K1),
	CONV("decoder.conv_in", CONV, 0, 0, dBL, dLAT, K3),
	NORMWB("decoder.conv_norm_out", NORM, 0, 0, dB0),
	CONV("decoder.conv_out", CONV, 0, 0, dCOUT, dB0, K3),
	END,
};

/* FluxTransformer2DModel's own layers */
static const struct nline u_flux[] = {
	LIN("x_embedder", PATCH_EMBED, 0, 0, DD, dCIN),
	LIN("context_embedder", COND_EMBED, 0, 0, DD, dCTX),
	LIN("time_text_embed.timestep_embedder.linear_1", TIME_EMBED, 0, 0, DD, dTIN),
	LIN("time_text_embed.timestep_embedder.linear_2", TIME_EMBED, 0, 0, DD, DD),
	LIN("time_text_embed.guidance_embedder.linear_1", COND_EMBED, F_GUID, 0, DD, dTIN),
	LIN("time_text_embed.guidance_embedder.linear_2", COND_EMBED, F_GUID, 0, DD, DD),
	LIN("time_text_embed.text_embedder.linear_1", COND_EMBED, 0, 0, DD, dPOOL),
	LIN("time_text_embed.text_embedder.linear_2", COND_EMBED, 0, 0, DD, DD),
	LIN("norm_out.linear", ADALN, 0, 0, dD_2, DD),
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* a double-stream (MMDiT) block: image and text streams, joint attention */
static const struct nline u_flux_double[] = {
	LIN("norm1.linear", ADALN, 0, 0, dD_6, DD),
	LIN("norm1_context.linear", ADALN, 0, 0, dD_6, DD),
	LIN("attn.to_q", ATTN_Q, 0, 0, DD, DD),
	LIN("attn.to_k", ATTN_K, 0, 0, DD, DD),
	LIN("attn.to_v", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_q", ATTN_Q_NORM, 0, 0, dDH),
	VEC("attn.norm_k", ATTN_K_NORM, 0, 0, dDH),
	LIN("attn.add_q_proj", ATTN_Q, 0, 0, DD, DD),
	LIN("attn.add_k_proj", ATTN_K, 0, 0, DD, DD),
	LIN("attn.add_v_proj", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_added_q", ATTN_Q_NORM, 0, 0, dDH),
	VEC("attn.norm_added_k", ATTN_K_NORM, 0, 0, dDH),
	LIN("attn.to_out.0", ATTN_O, 0, 0, DD, DD),
	LIN("attn.to_add_out", ATTN_O, 0, 0, DD, DD),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ff.net.2", FFN_DOWN, 0, 0, DD, dF),
	LIN("ff_context.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ff_context.net.2", FFN_DOWN, 0, 0, DD, dF),
	END,
};

/* a single-stream block: attention and MLP side by side, one output */
static const struct nline u_flux_single[] = {
	LIN("norm.linear", ADALN, 0, 0, dD_3, DD),
	LIN("proj_mlp", FFN_UP, 0, 0, dF, DD),
	LIN("attn.to_q", ATTN_Q, 0, 0, DD, DD),
	LIN("attn.to_k", ATTN_K, 0, 0, DD, DD),
	LIN("attn.to_v", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_q", ATTN_Q_NORM, 0, 0, dDH),
	VEC("attn.norm_k", ATTN_K_NORM, 0, 0, dDH),
	LIN("proj_out", FFN_DOWN, 0, 0, DD, dD_5),
	END,
};

/* SD3Transformer2DModel's own layers; pos_embed a persistent buffer */
static const struct nline u_sd3[] = {
	{"pos_embed.proj.weight", R(PATCH_EMBED), 0, 0, {DD, dCIN, dPS, dPS}},
	{"pos_embed.proj.bias", R(PATCH_EMBED), 0, 0, {DD}},
	{"pos_embed.pos_embed", R(BUFFER), F_BUF, 0, {{Q1, 1}, dPOS, DD}},
	LIN("time_text_embed.timestep_embedder.linear_1", TIME_EMBED, 0, 0, DD, dTIN),
	LIN("time_text_embed.timestep_embedder.linear_2", TIME_EMBED, 0, 0, DD, DD),
	LIN("time_text_embed.text_embedder.linear_1", COND_EMBED, 0, 0, DD, dPOOL),
	LIN("time_text_embed.text_embedder.linear_2", COND_EMBED, 0, 0, DD, DD),
	LIN("context_embedder", COND_EMBED, 0, 0, dCAP, dCTX),
	LIN("norm_out.linear", ADALN, 0, 0, dD_2, DD),
	LIN("proj_out", CONV, 0, 0, dOUTP, DD),
	END,
};

/* a JointTransformerBlock; the last one's context stream ends in its
 * attention (context_pre_only), SD3.5's dual layers attend twice */
static const struct nline u_sd3_block[] = {
	LIN("norm1.linear", ADALN, 0, F_DUAL, dD_6, DD),
	LIN("norm1.linear", ADALN, F_DUAL, 0, dD_9, DD),
	LIN("norm1_context.linear", ADALN, 0, F_PRE, dD_6, DD),
	LIN("norm1_context.linear", ADALN, F_PRE, 0, dD_2, DD),
	LIN("attn.to_q", ATTN_Q, 0, 0, DD, DD),
	LIN("attn.to_k", ATTN_K, 0, 0, DD, DD),
	LIN("attn.to_v", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_q", ATTN_Q_NORM, F_QKN, 0, dDH),
	VEC("attn.norm_k", ATTN_K_NORM, F_QKN, 0, dDH),
	LIN("attn.add_q_proj", ATTN_Q, 0, 0, DD, DD),
	LIN("attn.add_k_proj", ATTN_K, 0, 0, DD, DD),
	LIN("attn.add_v_proj", ATTN_V, 0, 0, DD, DD),
	VEC("attn.norm_added_q", ATTN_Q_NORM, F_QKN, 0, dDH),
	VEC("attn.norm_added_k", ATTN_K_NORM, F_QKN, 0, dDH),
	LIN("attn.to_out.0", ATTN_O, 0, 0, DD, DD),
	LIN("attn.to_add_out", ATTN_O, 0, F_PRE, DD, DD),
	LIN("attn2.to_q", ATTN_Q, F_DUAL, 0, DD, DD),
	LIN("attn2.to_k", ATTN_K, F_DUAL, 0, DD, DD),
	LIN("attn2.to_v", ATTN_V, F_DUAL, 0, DD, DD),
	VEC("attn2.norm_q", ATTN_Q_NORM, F_DUAL | F_QKN, 0, dDH),
	VEC("attn2.norm_k", ATTN_K_NORM, F_DUAL | F_QKN, 0, dDH),
	LIN("attn2.to_out.0", ATTN_O, F_DUAL, 0, DD, DD),
	LIN("ff.net.0.proj", FFN_UP, 0, 0, dF, DD),
	LIN("ff.net.2", FFN_DOWN, 0, 0, DD, dF),
	LIN("ff_context.net.0.proj", FFN_UP, 0, F_PRE, dF, DD),
	LIN("ff_context.net.2", FFN_DOWN, 0, F_PRE, DD, dF),
	END,
};

/* FLUX as Black Forest Labs names it (a single file): the same network,
 * q, k, v fused, a single block's attention and MLP input fused */
#define dQKV {QD, 3}
#define dQKVF {QQKVF, 0}
#define dDF {QDF, 0}
static const struct nline u_bfl[] = {
	LIN("img_in", PATCH_EMBED, 0, 0, DD, dCIN),
	LIN("txt_in", COND_EMBED, 0, 0, DD, dCTX),
	LIN("time_in.in_layer", TIME_EMBED, 0, 0, DD, dTIN),
	LIN("time_in.out_layer", TIME_EMBED, 0, 0, DD, DD),
	LIN("guidance_in.in_layer", COND_EMBED, F_GUID, 0, DD, dTIN),
	LIN("guidance_in.out_layer", COND_EMBED, F_GUID, 0, DD, DD),
	LIN("vector_in.in_layer", COND_EMBED, 0, 0, DD, dPOOL),
	LIN("vector_in.out_layer", COND_EMBED, 0, 0, DD, DD),
	LIN("final_layer.adaLN_modulation.1", ADALN, 0, 0, dD_2, DD),
	LIN("final_layer.linear", CONV, 0, 0, dOUTP, DD),
	END,
};
static const struct nline u_bfl_double[] = {
	LIN("img_mod.lin", ADALN, 0, 0, dD_6, DD),
	LIN("txt_mod.lin", ADALN, 0, 0, dD_6, DD),
	LIN("img_attn.qkv", ATTN_QKV, 0, 0, dQKV, DD),
	RAW("img_attn.norm.query_norm.scale", ATTN_Q_NORM, 0, 0, dDH),
	RAW("img_attn.norm.key_norm.scale", ATTN_K_NORM, 0, 0, dDH),
	LIN("img_attn.proj", ATTN_O, 0, 0, DD, DD),
	LIN("txt_attn.qkv", ATTN_QKV, 0, 0, dQKV, DD),
	RAW("txt_attn.norm.query_norm.scale", ATTN_Q_NORM, 0, 0, dDH),
	RAW("txt_attn.norm.key_norm.scale", ATTN_K_NORM, 0, 0, dDH),
	LIN("txt_attn.proj", ATTN_O, 0, 0, DD, DD),
	LIN("img_mlp.0", FFN_UP, 0, 0, dF, DD),
	LIN("img_mlp.2", FFN_DOWN, 0, 0, DD, dF),
	LIN("txt_mlp.0", FFN_UP, 0, 0, dF, DD),
	LIN("txt_mlp.2", FFN_DOWN, 0, 0, DD, dF),
	END,
};
static const struct nline u_bfl_single[] = {
	LIN("modulation.lin", ADALN, 0, 0, dD_3, DD),
	LIN("linear1", ATTN_QKV, 0, 0, dQKVF, DD),
	RAW("norm.query_norm.scale", ATTN_Q_NORM, 0, 0, dDH),
	RAW("norm.key_norm.scale", ATTN_K_NORM, 0, 0, dDH),
	LIN("linear2", FFN_DOWN, 0, 0, DD, dDF),
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
};

/* a quantity read from a tensor's shape (dim), or a block count from the
 * names under a prefix (name ends in '.'), or a switch (flag) on when
 * the tensor is present */
struct nprobe {
	const char *name;
	unsigned char dim, q;
	unsigned flag;
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
static const struct nrep bfl_reps[] = {
	{"double_blocks.%u.", u_bfl_double, QR_LAYERS, false, NULL},
	{"single_blocks.%u.", u_bfl_single, QR_SINGLE, false, NULL},
	{NULL, NULL, 0, false, NULL},
};

static const struct nclass classes[] = {
	{"UNet2DConditionModel", "unet", unet_keys, NULL, unet_flags, unet_strs, u_unet, NULL, unet_levels,
	 unet_mid, NULL, NULL, NULL, NULL},
	{"AutoencoderKL", "vae", vae_keys, vae_derive, vae_flags, vae_strs, u_vae, NULL, vae_levels, vae_mid,
	 NULL, NULL, NULL, NULL},
	{"FluxTransformer2DModel", "transformer", flux_keys, dit_derive, flux_flags, NULL, u_flux, flux_reps,
	 NULL, NULL, flux_counts, NULL, NULL, NULL},
	{"SD3Transformer2DModel", "transformer", sd3_keys, dit_derive, NULL, sd3_strs, u_sd3, sd3_reps, NULL,
	 NULL, sd3_counts, NULL, NULL, NULL},
	/* read from a file's shapes; mkmodel writes it from a FLUX config */
	{"FluxTransformer2DModel (BFL names)", "transformer", flux_keys, bfl_derive, flux_flags, NULL, u_bfl,
	 bfl_reps, NULL, NULL, flux_counts, "double_blocks.0.img_attn.qkv.weight", bfl_probes,
	 "FluxTransformer2DModel"},
};

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

struct build {
	struct ws_net *n;
	size_t cap;
	const char *path;
	ws_error *err;
	const char *why;     /* the class has no layout for the config */
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
		t->kind = nl > 5 && !strcmp(u->name + nl - 5, ".bias") ? WS_KIND_BIAS : WS_KIND_WEIGHT;
		t->elements = 1;
		for (int d = 0; d < 4 && u->d[d].q; d++) {
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
key_levels(struct build *b, const cJSON *config, const char *key, uint64_t def, size_t n, uint64_t *out)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(config, key);
	if (cJSON_IsArray(it)) {
		if ((size_t)cJSON_GetArraySize(it) != n)
			return ws_err(b->err, WS_EXIT_INPUT, b->path,
				      "config key '%s': %d entries for %zu levels", key, cJSON_GetArraySize(it), n);
		size_t i = 0;
		const cJSON *e;
		cJSON_ArrayForEach(e, it) {
			if (ws_json_count(e, &out[i]) != WS_JSON_COUNT_OK || out[i] > NET_MAX_REPEAT)
				return ws_err(b->err, WS_EXIT_INPUT, b->path,
					      "config key '%s': expected counts below %u", key, NET_MAX_REPEAT);
			i++;
		}
		return 0;
	}
	uint64_t v;
	if (key_u64(b, config, key, def, &v) < 0)
		return -1;
	if (v > NET_MAX_REPEAT)
		return ws_err(b->err, WS_EXIT_INPUT, b->path, "config key '%s': more than %u", key, NET_MAX_REPEAT);
	for (size_t i = 0; i < n; i++)
		out[i] = v;
	return 0;
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
	if (key_levels(b, config, "layers_per_block", 2, n, lpb) ||
	    key_levels(b, config, "transformer_layers_per_block", 1, n, tl))
		return -1;
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
			for (uint64_t j = 0; j < nres; j++) {
				uint64_t v[QR_COUNT];
				memcpy(v, q, sizeof v);
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
	/* the levels first: they read the widths the class's own layers use */
	if (!rc && !b.why && c->levels)
		rc = levels(&b, config, c, q, fl);
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

void
ws_net_roles(ws_model *m, uint32_t comp, const struct ws_net *n)
{
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		if (t->component != comp || t->role == WS_ROLE_QUANT_AUX)
			continue;
		size_t skip = prefix_of(m, comp, t);
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
		params += t->params;
		size_t skip = prefix_of(m, comp, t);
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
		bool same = t->ndim == e->ndim;
		for (unsigned d = 0; same && d < e->ndim; d++)
			same = t->shape[d] == e->dim[d];
		if (same || shapes++ >= NET_FINDING_CAP)
			continue;
		char want[128], have[128];
		shape_str(want, sizeof want, e->dim, e->ndim);
		shape_str(have, sizeof have, t->shape, t->ndim);
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

int
ws_net_infer(const ws_model *m, struct ws_arch *out, ws_error *err)
{
	const struct nclass *c = NULL;
	for (size_t k = 0; k < sizeof classes / sizeof classes[0] && !c; k++) {
		/* strcmp's answer (a name is NUL-terminated after name_len,
		 * and may hold a NUL before), without a call a tensor */
		size_t dl = classes[k].detect ? strlen(classes[k].detect) : 0;
		for (uint64_t i = 0; classes[k].detect && i < m->n_tensors && !c; i++)
			if (m->tensors[i].name_len >= dl &&
			    m->tensors[i].name[0] == classes[k].detect[0] && !memcmp(m->tensors[i].name, classes[k].detect, dl + 1))
				c = &classes[k];
	}
	if (!c)
		return 0;
	uint64_t q[QR_COUNT] = {0};
	unsigned fl = 0;
	q[Q1] = 1;
	for (const struct nprobe *p = c->probes; p->name; p++) {
		size_t pl = strlen(p->name);
		for (uint64_t i = 0; i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (p->name[pl - 1] == '.') {
				int64_t v = index_after(t->name, t->name_len, p->name);
				if (v >= 0 && (uint64_t)v + 1 > q[p->q])
					q[p->q] = (uint64_t)v + 1;
			} else if (t->name_len == pl && !memcmp(t->name, p->name, pl)) {
				fl |= p->flag;
				if (!p->flag && p->dim < t->ndim)
					q[p->q] = t->shape[p->dim];
			}
		}
		if (!p->flag && (q[p->q] > (p->name[pl - 1] == '.' ? NET_MAX_REPEAT : NET_MAX_VALUE)))
			return ws_err(err, WS_EXIT_INPUT, m->path, "'%s': a size no network has", p->name);
	}
	out->source = "inferred";
	snprintf(out->architecture, sizeof out->architecture, "%s", c->cls);
	snprintf(out->cls, sizeof out->cls, "%s", c->twin ? c->twin : c->cls);
	struct ws_net *n = calloc(1, sizeof *n);
	if (!n)
		return ws_err_oom(err, m->path);
	n->cls = c->cls;
	n->kind = c->kind;
	struct build b = {.n = n, .path = m->path, .err = err};
	if (finish(&b, c, NULL, q, fl, out))
		return -1;
	return out->net ? 1 : 0;
}

const char *
ws_net_single_file_class(const char *cls)
{
	for (size_t k = 0; cls && k < sizeof classes / sizeof classes[0]; k++)
		if (classes[k].twin && !strcmp(classes[k].twin, cls))
			return classes[k].cls;
	return NULL;
}
