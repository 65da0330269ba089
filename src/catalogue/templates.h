/*
 * templates.h - every tensor an architecture can have, as data (internal).
 *
 * One line per tensor template: its role and kind, where it occurs (once,
 * every block, dense blocks, MoE blocks, every routed expert, the MTP
 * block), the switches it needs, and its shape in PyTorch order (up to 4
 * dimensions) as symbolic quantities of the architecture (`ws_qdefs`: d,
 * V, H*dk, ...).  The formula, the comparison with a checkpoint and
 * --explain read this one table; a catalogue entry picks its lines by its
 * switches.  A new architecture is switches on existing lines, or new
 * lines here, never new code.
 */
#ifndef WS_CATALOGUE_TEMPLATES_H
#define WS_CATALOGUE_TEMPLATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws/formula.h"

#define WS_TEMPLATE_RANK 4

/* Quantities a shape is made of: leaves read from the architecture,
 * composites defined from earlier entries. */
enum ws_q {
	WS_Q_NONE = 0,   /* no dimension (its value is 1) */
	/* leaves: a number of the arch */
	WS_Q_ONE, WS_Q_TWO, WS_Q_D, WS_Q_V, WS_Q_P, WS_Q_F, WS_Q_FE, WS_Q_E, WS_Q_H, WS_Q_HKV, WS_Q_DK, WS_Q_DV,
	WS_Q_QLORA, WS_Q_KVLORA, WS_Q_NOPE, WS_Q_ROPE, WS_Q_SHN, WS_Q_SHF, WS_Q_IH, WS_Q_IDK,
	WS_Q_TV, WS_Q_L, WS_Q_E0, WS_Q_C, WS_Q_PS, WS_Q_NP, WS_Q_PO0, WS_Q_THREE, WS_Q_PJ,
	WS_Q_SI, WS_Q_SN, WS_Q_SK, WS_Q_SR, WS_Q_SH, WS_Q_SG,
	WS_Q_LKH, WS_Q_LVH, WS_Q_LKD, WS_Q_LVD, WS_Q_RR, WS_Q_NR,
	WS_Q_TP, WS_Q_MG, WS_Q_VO, WS_Q_XR, WS_Q_TL, WS_Q_AR,
	/* composites, defined from earlier entries */
	WS_Q_HQ, WS_Q_HK, WS_Q_HV, WS_Q_HO, WS_Q_KV2, WS_Q_QKV, WS_Q_F2, WS_Q_FE2, WS_Q_FS, WS_Q_KVA,
	WS_Q_NOPEV, WS_Q_KVB, WS_Q_D2, WS_Q_IQ, WS_Q_DE, WS_Q_NP1, WS_Q_PO, WS_Q_D3, WS_Q_PJD,
	WS_Q_HQ2, WS_Q_SI2, WS_Q_SN2, WS_Q_SXR, WS_Q_SGN, WS_Q_SGN2, WS_Q_SCD, WS_Q_SIC, WS_Q_SIN,
	WS_Q_LK, WS_Q_LV, WS_Q_LK2, WS_Q_LV2, WS_Q_LQKVZ, WS_Q_LBA, WS_Q_LCD,
	WS_Q_T1, WS_Q_CT, WS_Q_M1, WS_Q_E0M, WS_Q_E0M2,
	WS_Q_VX, WS_Q_TLD, WS_Q_NP1D, WS_Q_TNPD,
	WS_Q_P2,
	WS_Q_COUNT
};

/* ELSE: a, or b where a is 0 (a width that defaults to another) */
enum ws_qop { WS_QOP_LEAF, WS_QOP_CONST, WS_QOP_MUL, WS_QOP_ADD, WS_QOP_ELSE };

struct ws_qdef {
	enum ws_qop op;
	int a, b;       /* LEAF: a = enum ws_arch_key; CONST: a = value; else operands */
};

extern const struct ws_qdef ws_qdefs[WS_Q_COUNT];

/* Where a template's tensor occurs: once, every block, blocks of some
 * kind (their mixer: attention, a Mamba, Mamba-2, Gated DeltaNet or
 * short-convolution mixer; their feed-forward: any, dense, MoE, each
 * routed expert), the MTP block's own parts. */
enum ws_scope {
	WS_SC_GLOBAL, WS_SC_LAYER, WS_SC_DENSE, WS_SC_MOE, WS_SC_EXPERT, WS_SC_MTP,
	WS_SC_ATTN, WS_SC_FFN, WS_SC_MAMBA, WS_SC_MAMBA2, WS_SC_LINEAR, WS_SC_SCONV,
	/* every block but the first (ModernBERT's attention norm, which
	 * block 0 leaves to the embedding norm) */
	WS_SC_LAYER1,
	WS_SC_XATTN,   /* cross-attention blocks (Mllama) */
};

/* Switches: the architecture's own (enum ws_arch_flag), and these,
 * derived from its norm, MLP and attention kinds, after them in one set. */
enum ws_tx_switch {
	WS_TX_NORM_W = WS_ARCH_SWITCH_COUNT, /* norms have a weight */
	WS_TX_NORM_B, /* norms have a bias */
	WS_TX_PRE_ATTN, /* a norm before attention */
	WS_TX_PRE_FFN, /* a norm before the MLP */
	WS_TX_UNTIED,
	WS_TX_Q, /* a plain q projection */
	WS_TX_KV, /* plain k and v projections */
	WS_TX_QLORA, /* MLA low-rank q */
	WS_TX_MLP_GATE,
	WS_TX_MLP_UP,
	WS_TX_MLP_FUSED,
	WS_TX_SHARED, /* shared experts */
	WS_TX_SHARED_GATE,
	WS_TX_MOE_SPLIT, /* experts' gate and up apart */
	WS_TX_INDEXER, /* a lightning indexer per layer */
	WS_TX_FINAL_NORM, /* a norm after the last block */
	WS_TX_EMBED_PROJ, /* embeddings projected to the hidden width */
	WS_TX_TOKENS, /* a token embedding table (not an image encoder) */
	WS_TX_NO_CLS, /* image patches without a class token */
	WS_TX_MTP_OWN, /* an MTP block with its own embedding and head (DeepSeek-V3) */
	WS_TX_SSM_NORM, /* a Mamba-2 mixer's gated RMSNorm */
	WS_TX_MOE_GATE, /* split experts with a gate (not a plain up / down MLP) */
	WS_TX_SHARED_MLP_GATE, /* shared experts with a gate */
	WS_TX_LIN_FUSED, /* Gated DeltaNet's q, k, v, z in one projection */
	WS_TX_POS_KEY, /* DeBERTa's own key projection of positions (c2p, not shared) */
	WS_TX_POS_QUERY, /* ... and query projection (p2c, not shared) */
	WS_TX_TRANSFORM, /* a head's dense + norm transform (masked LM or not) */
	WS_TX_TRANSFORM_B, /* ... its dense layer's bias */
	WS_TX_MLM_B, /* the masked-LM decoder's bias */
	WS_TX_PRE_ATTN_ALL, /* a norm before attention in every block */
	WS_TX_PRE_ATTN_LATER, /* ... in every block but the first */
	WS_TX_UP_BIAS, /* the MLP's gate / up side has biases */
	WS_TX_K_BIAS, /* the key projections have biases (q, v do: not Whisper's k) */
	WS_TX_REL_BIAS_ONCE, /* T5's relative bias once per stack, not per block */
	WS_TX_COUNT
};
_Static_assert(WS_TX_COUNT <= 64 * WS_SWITCH_WORDS, "ws_switches holds every switch");

struct ws_template {
	ws_role role;
	ws_kind kind;
	enum ws_scope scope;
	ws_switches need;  /* all of these switches */
	enum ws_q dim[WS_TEMPLATE_RANK]; /* PyTorch order; WS_Q_NONE past the rank */
	const char *what;  /* for --explain, when the role name is not enough */
};

extern const struct ws_template ws_templates[];
extern const size_t ws_n_templates;

/* The switches an architecture turns on (its flags and the derived ones). */
ws_switches ws_template_features(const struct ws_arch *a);
/* Does an architecture with switches `feat` have template r's tensor? */
bool ws_template_on(const struct ws_template *r, const ws_switches *feat);
/* Does template r describe a tensor of a block of kind k (WS_BK: 0
 * attention and dense, 1 attention and MoE, ...)? */
bool ws_template_in_block(const struct ws_template *r, int k);
/* The number of dimensions of r's tensor (1 to WS_TEMPLATE_RANK). */
unsigned ws_template_rank(const struct ws_template *r);

/* Every quantity (enum ws_q) of an architecture evaluated, overflow
 * checked (an input error naming the key): a template's shape is
 * v[dim[0]] x v[dim[1]] ...  (formula.c) */
int ws_arch_quantities(const struct ws_arch *a, uint64_t v[WS_Q_COUNT], ws_error *err);

#endif
