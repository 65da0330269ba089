/*
 * ws/model.h - the format-independent model view.
 *
 * A ws_model is what every reader fills and every command reads: the files
 * that make up a checkpoint, their tensors (name, dtype, shape, elements,
 * bytes, file, offset) and their metadata.  The model owns everything it
 * points to; ws_model_free() releases it all.  Names and strings from files
 * are untrusted bytes: lengths are explicit and printing goes through the
 * escaping helpers in ws/util.h.
 */
#ifndef WS_MODEL_H
#define WS_MODEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws/error.h"
/* the handle ws_model, ws_severity and the accessors: the public part */
#include "weightscan/model.h"
#include "weightscan/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== dtypes: one enum for safetensors dtypes and ggml types ==== */

/*
 * Every element type either format can store.  Sizes are expressed as
 * `block` elements per `block_bytes` bytes, which covers plain types
 * (1 element, N bytes), sub-byte types (F4: 2 elements per byte, F6: 4 per
 * 3 bytes) and ggml quantized blocks (Q4_K: 256 elements per 144 bytes).
 */
typedef enum ws_dtype {
	WS_DT_INVALID = 0,
	/* shared by both formats */
	WS_DT_F64, WS_DT_F32, WS_DT_F16, WS_DT_BF16,
	WS_DT_I64, WS_DT_I32, WS_DT_I16, WS_DT_I8,
	/* safetensors only */
	WS_DT_U64, WS_DT_U32, WS_DT_U16, WS_DT_U8, WS_DT_BOOL, WS_DT_C64,
	WS_DT_F8_E5M2, WS_DT_F8_E4M3, WS_DT_F8_E8M0,
	WS_DT_F8_E4M3FNUZ, WS_DT_F8_E5M2FNUZ,
	WS_DT_F6_E2M3, WS_DT_F6_E3M2, WS_DT_F4,
	/* ggml only */
	WS_DT_Q4_0, WS_DT_Q4_1, WS_DT_Q5_0, WS_DT_Q5_1, WS_DT_Q8_0, WS_DT_Q8_1,
	WS_DT_Q2_K, WS_DT_Q3_K, WS_DT_Q4_K, WS_DT_Q5_K, WS_DT_Q6_K, WS_DT_Q8_K,
	WS_DT_IQ2_XXS, WS_DT_IQ2_XS, WS_DT_IQ3_XXS, WS_DT_IQ1_S, WS_DT_IQ4_NL,
	WS_DT_IQ3_S, WS_DT_IQ2_S, WS_DT_IQ4_XS, WS_DT_IQ1_M,
	WS_DT_TQ1_0, WS_DT_TQ2_0, WS_DT_MXFP4, WS_DT_NVFP4, WS_DT_Q1_0,
	WS_DT_Q2_0,
	WS_DT_COUNT
} ws_dtype;

enum ws_dtype_flags {
	WS_DTF_SAFETENSORS = 1u << 0, /* a valid safetensors dtype string */
	WS_DTF_GGML = 1u << 1,        /* a valid ggml type id */
	WS_DTF_FLOAT = 1u << 2,       /* a floating-point element type */
	WS_DTF_QUANT = 1u << 3,       /* a block-quantized ggml type */
};

typedef struct ws_dtype_info {
	const char *name;     /* upper case, as printed and as in SPEC */
	uint32_t block;       /* elements per block */
	uint32_t block_bytes; /* bytes per block */
	int32_t ggml_id;      /* GGUF on-disk id, or -1 */
	uint32_t flags;       /* ws_dtype_flags */
} ws_dtype_info;

const ws_dtype_info *ws_dtype_get(ws_dtype dt);
const char *ws_dtype_name(ws_dtype dt);
/* Safetensors dtype string (exact, case-sensitive) -> dtype, or INVALID. */
ws_dtype ws_dtype_from_safetensors(const char *s, size_t len);
/* GGUF ggml type id -> dtype, or INVALID (unknown or removed ids). */
ws_dtype ws_dtype_from_ggml(uint32_t id);
/* Bytes for `elements` elements; false when not a whole number of blocks
 * or on overflow. */
bool ws_dtype_bytes(ws_dtype dt, uint64_t elements, uint64_t *bytes);

/* ==== roles (filled by ws_roles_assign, see ws/roles.h) ==== */

/* One line per role: its enum id, its SPEC name, the part of a model it
 * belongs to (the report's colours and groups) and whether it is a matrix
 * a token is multiplied by (flops: every token's, or a routed expert's). */
#define WS_ROLES(X) \
	X(OTHER, "other", OTHER, NONE)                            \
	X(EMBED, "embed", EMBED, NONE)                            \
	X(POS_EMBED, "pos_embed", EMBED, NONE)                    \
	X(TYPE_EMBED, "type_embed", EMBED, NONE)                  \
	X(PATCH_EMBED, "patch_embed", EMBED, NONE)                \
	X(CLS_TOKEN, "cls_token", EMBED, NONE)                    \
	X(MASK_TOKEN, "mask_token", EMBED, NONE)                  \
	X(REGISTER_TOKENS, "register_tokens", EMBED, NONE)        \
	X(EMBED_NORM, "embed_norm", EMBED, NONE)                  \
	X(ATTN_NORM, "attn_norm", NORMS, NONE)                    \
	X(ATTN_Q, "attn_q", ATTN, DENSE)                          \
	X(ATTN_K, "attn_k", ATTN, DENSE)                          \
	X(ATTN_V, "attn_v", ATTN, DENSE)                          \
	X(ATTN_QKV, "attn_qkv", ATTN, DENSE)                      \
	X(ATTN_O, "attn_o", ATTN, DENSE)                          \
	X(ATTN_Q_NORM, "attn_q_norm", NORMS, NONE)                \
	X(ATTN_K_NORM, "attn_k_norm", NORMS, NONE)                \
	X(ATTN_SINKS, "attn_sinks", ATTN, NONE)                   \
	X(ATTN_Q_A, "attn_q_a", ATTN, DENSE)                      \
	X(ATTN_Q_B, "attn_q_b", ATTN, DENSE)                      \
	X(ATTN_Q_A_NORM, "attn_q_a_norm", NORMS, NONE)            \
	X(ATTN_KV_A, "attn_kv_a", ATTN, DENSE)                    \
	X(ATTN_KV_A_NORM, "attn_kv_a_norm", NORMS, NONE)          \
	X(ATTN_KV_B, "attn_kv_b", ATTN, DENSE)                    \
	X(ATTN_IDX_Q_B, "attn_idx_q_b", ATTN, DENSE)              \
	X(ATTN_IDX_K, "attn_idx_k", ATTN, DENSE)                  \
	X(ATTN_IDX_K_NORM, "attn_idx_k_norm", NORMS, NONE)        \
	X(ATTN_IDX_PROJ, "attn_idx_proj", ATTN, DENSE)            \
	X(FFN_NORM, "ffn_norm", NORMS, NONE)                      \
	X(ATTN_POST_NORM, "attn_post_norm", NORMS, NONE)          \
	X(FFN_POST_NORM, "ffn_post_norm", NORMS, NONE)            \
	X(LAYER_SCALE, "layer_scale", NORMS, NONE)                \
	/* encoder-decoders: the decoder's attention over the encoder's \
	 * output (k and v read the encoder's tokens, once per input), T5's \
	 * relative-position bias, a convolution stem (Whisper) */ \
	X(XATTN_Q, "xattn_q", ATTN, DENSE)                        \
	X(XATTN_K, "xattn_k", ATTN, NONE)                         \
	X(XATTN_V, "xattn_v", ATTN, NONE)                         \
	X(XATTN_O, "xattn_o", ATTN, DENSE)                        \
	X(XATTN_NORM, "xattn_norm", NORMS, NONE)                  \
	/* Mllama's gates on a cross-attention layer's attention and MLP */ \
	X(XATTN_GATE, "xattn_gate", ATTN, NONE)                   \
	X(REL_POS_BIAS, "rel_pos_bias", ATTN, NONE)               \
	X(CONV, "conv", EMBED, DENSE)                             \
	X(FFN_GATE, "ffn_gate", MLP, DENSE)                       \
	X(FFN_UP, "ffn_up", MLP, DENSE)                           \
	X(FFN_DOWN, "ffn_down", MLP, DENSE)                       \
	X(FFN_GATE_UP, "ffn_gate_up", MLP, DENSE)                 \
	X(FFN_ACT, "ffn_act", MLP, NONE)                          \
	X(MOE_ROUTER, "moe_router", EXPERTS, DENSE)               \
	X(MOE_ROUTER_BIAS, "moe_router_bias", EXPERTS, NONE)      \
	X(MOE_GATE, "moe_gate", EXPERTS, EXPERT)                  \
	X(MOE_UP, "moe_up", EXPERTS, EXPERT)                      \
	X(MOE_DOWN, "moe_down", EXPERTS, EXPERT)                  \
	X(MOE_GATE_UP, "moe_gate_up", EXPERTS, EXPERT)            \
	X(MOE_SHARED_GATE, "moe_shared_gate", EXPERTS, DENSE)     \
	X(MOE_SHARED_UP, "moe_shared_up", EXPERTS, DENSE)         \
	X(MOE_SHARED_DOWN, "moe_shared_down", EXPERTS, DENSE)     \
	X(MOE_SHARED_ROUTER, "moe_shared_router", EXPERTS, DENSE) \
	X(SSM_IN, "ssm_in", ATTN, DENSE)                          \
	X(SSM_CONV, "ssm_conv", ATTN, DENSE)                      \
	X(SSM_X, "ssm_x", ATTN, DENSE)                            \
	X(SSM_DT, "ssm_dt", ATTN, DENSE)                          \
	X(SSM_A, "ssm_a", ATTN, NONE)                             \
	X(SSM_D, "ssm_d", ATTN, NONE)                             \
	X(SSM_NORM, "ssm_norm", NORMS, NONE)                      \
	X(SSM_OUT, "ssm_out", ATTN, DENSE)                        \
	X(LINATTN_QKVZ, "linattn_qkvz", ATTN, DENSE)              \
	X(LINATTN_BA, "linattn_ba", ATTN, DENSE)                  \
	X(LINATTN_CONV, "linattn_conv", ATTN, DENSE)              \
	X(LINATTN_A, "linattn_a", ATTN, NONE)                     \
	X(LINATTN_DT, "linattn_dt", ATTN, NONE)                   \
	X(LINATTN_NORM, "linattn_norm", NORMS, NONE)              \
	X(LINATTN_OUT, "linattn_out", ATTN, DENSE)                \
	X(FINAL_NORM, "final_norm", NORMS, NONE)                  \
	X(LM_HEAD, "lm_head", HEAD, DENSE)                        \
	X(MLM_TRANSFORM, "mlm_transform", HEAD, DENSE)            \
	X(MLM_BIAS, "mlm_bias", HEAD, NONE)                       \
	X(POOLER, "pooler", HEAD, NONE)                           \
	X(NSP_HEAD, "nsp_head", HEAD, NONE)                       \
	X(CLASSIFIER, "classifier", HEAD, NONE)                   \
	X(PROJECTOR, "projector", HEAD, NONE)                     \
	X(ATTN_POOL, "attn_pool", HEAD, NONE)                     \
	X(LOGIT_SCALE, "logit_scale", HEAD, NONE)                 \
	X(LOGIT_BIAS, "logit_bias", HEAD, NONE)                   \
	X(MTP, "mtp", MTP, NONE)                                  \
	X(NORM, "norm", NORMS, NONE)                              \
	X(TIME_EMBED, "time_embed", EMBED, NONE)                  \
	X(COND_EMBED, "cond_embed", EMBED, NONE)                  \
	X(ADALN, "adaln", NORMS, NONE)                            \
	X(LORA_A, "lora_a", OTHER, NONE)                          \
	X(LORA_B, "lora_b", OTHER, NONE)                          \
	X(LORA_MAGNITUDE, "lora_magnitude", OTHER, NONE)          \
	X(LORA_EMBED_A, "lora_embed_a", OTHER, NONE)              \
	X(LORA_EMBED_B, "lora_embed_b", OTHER, NONE)              \
	X(LORA_ALPHA, "lora_alpha", AUX, NONE)                    \
	X(BUFFER, "buffer", AUX, NONE)                            \
	X(QUANT_AUX, "quant_aux", AUX, NONE)

/* The part of a model a role belongs to. */
enum ws_role_part {
	WS_PART_ATTN, WS_PART_MLP, WS_PART_EXPERTS, WS_PART_NORMS, WS_PART_EMBED,
	WS_PART_HEAD, WS_PART_MTP, WS_PART_OTHER, WS_PART_AUX,
	WS_PART_COUNT
};

/* Is a role a matrix multiply, and whose. */
enum ws_role_matmul { WS_MATMUL_NONE = 0, WS_MATMUL_DENSE, WS_MATMUL_EXPERT };

typedef enum ws_role {
#define WS_ROLE_ENUM_(id, name, part, mm) WS_ROLE_##id,
	WS_ROLES(WS_ROLE_ENUM_)
#undef WS_ROLE_ENUM_
	WS_ROLE_COUNT
} ws_role;

typedef enum ws_kind { WS_KIND_WEIGHT = 0, WS_KIND_BIAS = 1 } ws_kind;

const char *ws_role_name(ws_role r);
enum ws_role_part ws_role_part(ws_role r);      /* WS_PART_OTHER when out of range */
enum ws_role_matmul ws_role_matmul(ws_role r);  /* WS_MATMUL_NONE when out of range */
/* "attn_q" -> WS_ROLE_ATTN_Q; -1 when unknown. */
int ws_role_from_name(const char *name);

/* ==== files, tensors, metadata ==== */

typedef enum ws_format { WS_FORMAT_SAFETENSORS = 0, WS_FORMAT_GGUF = 1 } ws_format;

typedef struct ws_file {
	char *path;            /* path as opened */
	int fd;                /* O_RDONLY; data is read with pread; -1 for a
				* remote file (map: its fetched header) */
	const uint8_t *map;    /* the header part: a PROT_READ mapping, or a
				* malloc'd copy when map_copied; NULL once
				* a safetensors header that came whole with
				* the first read is parsed (the model holds
				* copies of its names and metadata) */
	uint64_t map_len;
	bool map_copied;       /* map was read (a long header, a remote
				* prefix), not mapped: ws_model_free frees it */
	uint64_t size;         /* st_size when opened */
	uint64_t header_bytes; /* safetensors: 8 + N; GGUF: end of tensor infos */
	uint64_t data_start;   /* absolute offset of the data section */
	uint64_t tensor_count;
	uint64_t expected_size; /* the size the header implies: > size when the
				 * file is truncated (kept only when the model
				 * was opened with allow_truncated) */
	uint64_t truncated_at;  /* then: the offset the reader names (the end
				 * of the file; GGUF: the first tensor whose
				 * data runs past it) */
	uint32_t version;      /* GGUF version; 0 for safetensors */
	bool big_endian;       /* GGUF byte-swapped file */
} ws_file;

/* The 8-byte fields first, then the 4-byte ones: no padding (96 bytes on
 * 64-bit), as every pass over a 46,848-tensor model streams the array. */
typedef struct ws_tensor {
	const char *name;      /* NUL-terminated copy, owned by the model */
	const uint64_t *shape; /* outermost first (PyTorch order); see logical */
	uint64_t elements;     /* product of shape, as the file declares */
	uint64_t bytes;        /* stored bytes */
	uint64_t offset;       /* absolute offset of the data in that file */
	uint64_t params;       /* logical parameters (0 for buffers/quant aux;
				* filled with the roles) */
	uint32_t name_len;     /* bytes; a GGUF name may hold NUL bytes */
	uint32_t ndim;
	uint32_t file;         /* index into ws_model.files */
	/* roles: filled by ws_roles_assign() */
	uint32_t component;    /* index into ws_model.components */
	int32_t layer;         /* block index, or -1 */
	int32_t expert;        /* expert index, or -1 */
	/* a byte each (80 bytes a tensor, not 104: a 46,848-tensor header's
	 * array is two huge pages, not three, and each pass over it reads
	 * less) */
	uint8_t dtype;         /* ws_dtype */
	uint8_t role;          /* ws_role */
	uint8_t kind;          /* ws_kind */
	bool unloaded;         /* stored, but the config's class does not load
				* it (params 0; role kept) */
	bool tied_copy;        /* a stored copy of a table another tensor holds
				* (T5's encoder.embed_tokens beside shared):
				* one parameter set, counted once (params 0;
				* role kept; not compared) */
	/* packed quantized weights (ws_quant_apply): the unpacked shape in
	 * PyTorch order is stored before `shape` (ws_tensor_logical) */
	bool logical;
} ws_tensor;

_Static_assert(WS_DT_COUNT <= 256 && WS_ROLE_COUNT <= 256, "ws_tensor keeps them in a byte");

/* The shape a formula compares: a packed quantized weight's unpacked one,
 * else the stored one.  ws_quant_apply lays the unpacked dims out, then
 * their count, then a copy of the stored shape that t->shape points to. */
static inline const uint64_t *
ws_tensor_logical(const ws_tensor *t, uint32_t *ndim)
{
	if (!t->logical) {
		*ndim = t->ndim;
		return t->shape;
	}
	*ndim = (uint32_t)t->shape[-1];
	return t->shape - 1 - t->shape[-1];
}

/* Metadata value types: the GGUF ids (safetensors __metadata__ is STRING). */
typedef enum ws_vtype {
	WS_V_U8 = 0, WS_V_I8 = 1, WS_V_U16 = 2, WS_V_I16 = 3, WS_V_U32 = 4,
	WS_V_I32 = 5, WS_V_F32 = 6, WS_V_BOOL = 7, WS_V_STRING = 8,
	WS_V_ARRAY = 9, WS_V_U64 = 10, WS_V_I64 = 11, WS_V_F64 = 12,
	WS_V_COUNT
} ws_vtype;

typedef struct ws_kv {
	const char *key;       /* not NUL-terminated: use key_len */
	uint32_t key_len;
	ws_vtype type;
	ws_vtype arr_type;     /* element type when type == ARRAY */
	uint64_t arr_count;
	const uint8_t *data;   /* STRING: its bytes; ARRAY: first element */
	uint64_t data_len;     /* STRING: length; ARRAY: bytes spanned */
	union { uint64_t u; int64_t i; double f; } num; /* scalar, decoded */
	uint32_t file;         /* index of the file holding it */
	bool swap;             /* array elements are byte-swapped in data */
} ws_kv;

typedef struct ws_finding {
	ws_severity severity;
	const char *code;      /* static string, e.g. "count-mismatch" */
	char *message;         /* text built from escaped names: safe to print */
	char *tensor;          /* escaped name; NULL when not about one tensor */
	int role;              /* ws_role or -1 */
	int32_t layer;         /* -1 when none */
	bool has_expected;
	uint64_t expected, actual;
	/* check --ignore: kept, reported as ignored, never failing the gate;
	 * why: the reason the ignore line gives (borrowed, may be NULL) */
	bool ignored;
	const char *ignored_why;
	/* the component it is about (static or model-owned), NULL: the
	 * model's main component or the whole model */
	const char *component;
	bool other_components; /* about every component but the main one
				* (named in the message) */
} ws_finding;

/*
 * A part of a checkpoint with its own architecture: the text decoder, a
 * vision or audio tower, a projector (SPEC components[]).  Every tensor
 * belongs to exactly one; a decoder-only model is one component.  The
 * main one (the text decoder) is the one m->arch and m->formula describe.
 */
/* The main component's name (a decoder-only model's only one). */
#define WS_MAIN_COMPONENT "text"

typedef struct ws_component {
	const char *name;      /* the checkpoint's own ("vision_tower"), or
				* "text" for the decoder; static or the
				* model's */
	const char *kind;      /* SPEC kind: text, vision, audio, projector */
	bool main;             /* described by ws_model.arch / .formula */
	uint64_t tensors, params;
	bool has_formula;      /* a component with its own count (a
				* sentence-transformers Dense module, a
				* tower) */
	uint64_t formula;
	/* a component of a wrapper's config (catalogue parts) other than
	 * the main one: its architecture and formula (owned, freed with the
	 * model; NULL when it has none) and its part */
	struct ws_arch *arch;
	struct ws_formula *formula_of;
	const struct ws_cat_part *part;
} ws_component;

/*
 * A module of a sentence-transformers folder (modules.json), in order:
 * the Transformer (its weights are the model's main component), Pooling,
 * Normalize, Dense, ...  A module folder holding a model.safetensors is a
 * component named by its path, its tensors' names prefixed "PATH.".
 */
typedef struct ws_st_module {
	const char *name, *path, *type; /* as modules.json gives them (model's) */
	bool weights;          /* its model.safetensors was read */
	bool dense;            /* a Dense module whose config.json was read */
	uint64_t in_features, out_features;
	bool bias;
} ws_st_module;

/*
 * The finding codes of SPEC "Findings", one table for the library and
 * every output: the code, its SARIF rule name, the most severe level it is
 * raised at, and one line saying when.  Codes outside it are refused by
 * check --fail-on and --ignore.
 */
typedef struct ws_finding_code {
	const char *code;
	const char *rule;      /* SARIF rule name, e.g. "CountMismatch" */
	ws_severity severity;
	const char *text;
} ws_finding_code;

/* The whole table (*n entries, static). */
const ws_finding_code *ws_finding_codes(size_t *n);
/* The entry of code, or NULL. */
const ws_finding_code *ws_finding_code_find(const char *code);

struct ws_arena;
struct cJSON;
struct ws_arch;
struct ws_formula;
struct ws_quant;

struct ws_model {
	ws_format format;
	char *path;               /* the PATH the user gave */
	ws_file *files;
	uint32_t n_files;
	ws_tensor *tensors;
	uint64_t n_tensors;
	ws_kv *meta;              /* GGUF key/values or __metadata__ */
	uint64_t n_meta;
	char *config_path;        /* config.json used, or NULL */
	struct cJSON *config;     /* parsed config.json, or NULL */
	char *index_path;         /* index.json used, or NULL */
	struct cJSON *index;      /* parsed index.json, or NULL */
	char arch_name[64];       /* model_type / general.architecture */
	struct ws_arch *arch;     /* owned; see ws/formula.h */
	struct ws_formula *formula;
	struct ws_quant *quant;   /* quantization found (arena), or NULL */
	ws_finding *findings;
	size_t n_findings, cap_findings;
	ws_component *components;  /* filled by ws_model_analyze (arena) */
	uint32_t n_components;
	ws_st_module *st_modules;  /* a sentence-transformers folder's
				    * modules.json (arena), or NULL */
	uint32_t n_st_modules;
	struct ws_arena *arena;   /* names, shapes and strings */
	/* A folder's files that were not read: the variants not chosen
	 * (model.fp16.safetensors beside model.safetensors); hash covers
	 * them too.  Paths in the arena. */
	const char **unread_files;
	uint32_t n_unread_files;
	/* A diffusers pipeline (model_index.json): its components as parts
	 * (arena), their configs under their names in config; NULL else */
	const struct ws_cat_part *parts;
	/* the tensors an index.json describes start here (a pipeline's
	 * component folders are read one after the other) */
	uint64_t index_first;
	/* A folder without an index whose files each hold a whole model
	 * (ws_expand_path reports them one by one). */
	bool folder_of_models;
	bool keep_truncated;      /* readers record data past the end of a
				   * file (ws_file.expected_size) instead of
				   * failing: an intact header still lists */
	struct ws_adapter *adapter; /* an adapter's analysis (malloc'd), or NULL */
	const char *base_path;    /* --base PATH for an adapter (arena), or NULL */
	bool findings_lost;       /* a finding could not be recorded (out of
				   * memory): the operation fails (exit 4),
				   * never a shorter list of findings */
};

typedef struct ws_open_opts {
	const char *config_path;  /* --config FILE, or NULL for auto */
	bool allow_full_download; /* remote: accept a server ignoring Range */
	const char *variant;      /* --variant NAME: the variant a folder's
				   * checkpoint is read in (NULL: the
				   * non-variant files) */
	bool allow_truncated;     /* a file whose header is intact but whose
				   * data is short opens (ws_model_truncated
				   * says which); otherwise it is exit 3 */
	const char *base_path;    /* --base PATH: an adapter's base */
	const char *vision_file;  /* an mmproj GGUF joined to a GGUF model as
				   * its vision components (ws_expand_joined) */
} ws_open_opts;

/*
 * Open PATH (a file, a folder, an index.json, a GGUF split part) read-only
 * and validate it.  On failure returns -1, *out is NULL and err holds the
 * file, offset and reason (code WS_EXIT_INPUT or WS_EXIT_INTERNAL).
 */
int ws_model_open(const char *path, const ws_open_opts *opts, ws_model **out,
		  ws_error *err);

/*
 * `org/name` that is no local path, as the hf CLI finds it: the folder
 * models--org--name in HF_HUB_CACHE, else HF_HOME/hub, else
 * ~/.cache/huggingface/hub (malloc'd), or NULL when PATH is not of that
 * form, exists here, or is not in the cache.
 */
char *ws_hf_cache_resolve(const char *path);

/* The first file of m shorter than its header says (opened with
 * allow_truncated), or NULL. */
const ws_file *ws_model_truncated(const ws_model *m);

/*
 * One weight file alone (safetensors or GGUF, not its split set or
 * folder): its size and the size its header implies.  -1 with err when
 * the header itself is unreadable or malformed.
 */
int ws_weight_file_extent(const char *path, uint64_t *size, uint64_t *expected,
			  ws_error *err);

/*
 * Everything inspect and check say about an open model: roles, the
 * architecture (config.json, GGUF metadata or inferred), the formula and
 * the findings comparing them.  -1 with err set when the architecture
 * source is malformed (a hostile config.json is exit 3 naming the key).
 */
int ws_model_analyze(ws_model *m, ws_error *err);

/*
 * The comparisons that need tensor data (check): a head stored under a
 * tied config is compared byte for byte with the embedding (identical:
 * warning, counted once; different: error).  Data is read with pread;
 * a file that shrank is an error (-1, err set).
 */
int ws_model_compare_data(ws_model *m, ws_error *err);

/* Stream two byte ranges and compare them: 1 equal, 0 different, -1 on a
 * read error (err names the file and offset). */
int ws_ranges_equal(const ws_model *m, const ws_tensor *a, const ws_tensor *b,
		    ws_error *err);

/*
 * A folder of several GGUF models is reported model by model (a split set
 * as one), and so is a folder of safetensors models (ws_model
 * folder_of_models): when PATH is such a folder, *out lists one path per model
 * (malloc'd, each malloc'd) and *n their count; otherwise *n is 0.
 * Returns -1 with err set (exit 4) when memory ran out.
 */
int ws_expand_path(const char *path, char ***out, size_t *n, ws_error *err);
/* The same, and each vision file (mmproj GGUF) joined to the models
 * whose width is its projector's output: *vision lists, beside *out, the
 * vision file to open each model with (ws_open_opts.vision_file;
 * malloc'd, or NULL); a joined vision file is not listed apart, and a
 * folder of one model and its vision file is expanded to that model. */
int ws_expand_joined(const char *path, char ***out, char ***vision, size_t *n, ws_error *err);

/*
 * Keep only the tensors of component NAME (its name or its kind) and
 * the findings about it: inspect, ls, diff, scan and flops --component.
 * A component other than the main one drops the architecture and the
 * formula (they describe the main one).  After ws_model_analyze; -1 with
 * a usage error listing the components when there is no such component.
 */
int ws_model_select_component(ws_model *m, const char *name, ws_error *err);

/* Parse config_path as the model's config.json (architecture source). */
int ws_model_load_config(ws_model *m, const char *config_path, ws_error *err);

/* Allocation helpers for readers: memory owned by the model's arena. */
ws_model *ws_model_new(const char *path);
void *ws_model_alloc(ws_model *m, size_t size);
void *ws_model_alloc_zero(ws_model *m, size_t size);
char *ws_model_strndup(ws_model *m, const char *s, size_t len);
/* Add a file (opened O_RDONLY, header mapped) and return its index or -1. */
int ws_model_add_file(ws_model *m, const char *path, ws_error *err);
/* Let go of the safetensors header mappings the model holds copies of
 * (names, shapes, metadata): large ones are unmapped on a helper thread
 * while the caller goes on.  ws_model_analyze ends with it. */
void ws_model_release_headers(ws_model *m);
/* Grow the tensor / metadata arrays; return the new slot or NULL (OOM). */
ws_tensor *ws_model_push_tensor(ws_model *m);
ws_kv *ws_model_push_kv(ws_model *m);

/* Findings: messages are printf-formatted; tensor may be NULL.  0, or
 * -1 when it could not be recorded (out of memory): then m->findings_lost
 * is set, and ws_model_open, ws_model_analyze, ws_model_compare_data and
 * every other operation that records findings fail with exit 4 even
 * where the -1 is not passed up. */
int ws_model_add_finding(ws_model *m, ws_severity sev, const char *code,
			 const char *tensor, int role, int32_t layer,
			 bool has_expected, uint64_t expected,
			 uint64_t actual, const char *fmt, ...)
	__attribute__((format(printf, 10, 11)));

/* Metadata lookup by exact key; NULL when absent. */
const ws_kv *ws_model_find_kv(const ws_model *m, const char *key);

#ifdef __cplusplus
}
#endif
#endif
