/*
 * ws/quant.h - packed and quantized checkpoints: logical parameter
 * counts and bits per weight.
 *
 * Quantizing writers store a Linear's weight packed (GPTQ/AWQ `qweight`,
 * compressed-tensors `weight_packed`, bitsandbytes 4-bit, MLX U32, MXFP4
 * `_blocks`) next to side tensors (scales, zero points, group indices...).
 * ws_quant_apply() finds the quantization description, recovers every
 * packed weight's unpacked shape from the header and the config, and sets
 * its params (t->elements stays the stored count).  The rules are those of
 * shared/research/quantized.md.
 */
#ifndef WS_QUANT_H
#define WS_QUANT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

typedef enum ws_quant_method {
	WS_QM_NONE = 0,
	WS_QM_GPTQ, WS_QM_AWQ, WS_QM_COMPRESSED, WS_QM_BNB, WS_QM_MLX,
	WS_QM_FP8, WS_QM_MXFP4, WS_QM_GGUF,
	WS_QM_OTHER,                /* a quant_method we do not know */
	WS_QM_COUNT
} ws_quant_method;

#define WS_QUANT_NO_ROLE 0xFF    /* bpw_role: not a quantized weight's */

/* What ws_quant_apply found; allocated in the model's arena. */
struct ws_quant {
	ws_quant_method method;
	const char *method_name;    /* "gptq", ...; an unknown quant_method as
				     * written (escaped) */
	const char *source;         /* "config.json quantization_config", ... */
	uint32_t bits;              /* weight bits of the description, 0 unknown */
	int64_t group_size;         /* 0 unknown; -1 one group per row */
	uint64_t packed;            /* tensors whose params were unpacked */
	uint64_t zero_biases;       /* GPTQ zero biases made quant_aux */
	uint64_t quantized;         /* quantized weight tensors */
	/* per tensor: the role whose bits per weight it counts toward (a
	 * quantized weight, or a side tensor of one), or WS_QUANT_NO_ROLE */
	uint8_t *bpw_role;
};

/**
 * Find the quantization description (config.json quantization_config,
 * compression_config, text_config.quantization_config, MLX quantization,
 * GPTQ __metadata__), recover the logical size of every packed weight and
 * set t->params and the logical shape (ws_tensor_logical); make the all-zero
 * biases old GPTQ writers add to bias-free layers quant_aux (decided by m->arch).  Runs
 * after ws_roles_assign().  Reads at most a few hundred bytes of tensor
 * data (bitsandbytes quant_state JSON, compressed-tensors weight_shape)
 * with pread.  Sets m->quant when anything is quantized.  Returns 0, or
 * -1 with err set (out of memory, a read error).
 */
int ws_quant_apply(ws_model *m, ws_error *err);

/* Bits per weight, from the tensors (and m->quant for safetensors). */
typedef struct ws_bpw {
	uint64_t bytes, params;           /* quantized weights + their side tensors */
	uint64_t role_bytes[WS_ROLE_COUNT], role_params[WS_ROLE_COUNT];
	uint64_t all_bytes, all_params;   /* every parameter and side tensor */
} ws_bpw;

void ws_quant_bpw(const ws_model *m, ws_bpw *out);
/* 8 × bytes / params rounded to 3 decimals; 0 when params is 0. */
double ws_bpw_value(uint64_t bytes, uint64_t params);

/**
 * Add "quantization" {method, source, bits?, group_size?} and
 * "bits_per_weight" {total, overall, by_role} to obj when the model holds
 * quantized weights; nothing otherwise.  0, or -1 on OOM.
 */
int ws_quant_report_json(const ws_model *m, struct cJSON *obj);
/* The same as text lines (nothing when nothing is quantized). */
void ws_quant_report_text(FILE *f, const ws_model *m);

#ifdef __cplusplus
}
#endif
#endif
