/*
 * ws/report.h - what inspect says: totals by dtype, role and
 * layer, as text or JSON.
 */
#ifndef WS_REPORT_H
#define WS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

typedef struct ws_summary {
	uint64_t elements, bytes, params, non_embedding;
	uint64_t active;                   /* MoE: per token (see report.c) */
	bool has_active;                   /* the architecture routes experts */
	uint64_t buffers, n_buffers;       /* elements of buffer tensors */
	uint64_t unloaded, n_unloaded;     /* elements not loaded by the class */
	uint64_t quant_aux, n_quant_aux;   /* elements of quant side tensors */
	uint64_t elements_by_dtype[WS_DT_COUNT];
	uint64_t bytes_by_dtype[WS_DT_COUNT];
	uint64_t params_by_dtype[WS_DT_COUNT];
	uint64_t tensors_by_dtype[WS_DT_COUNT];
	uint64_t params_by_role[WS_ROLE_COUNT];
	uint64_t *params_by_layer;         /* n_layers entries */
	int32_t n_layers;                  /* 1 + highest block index, or 0 */
} ws_summary;

/* 0, or -1 on OOM. */
int ws_summary_compute(const ws_model *m, ws_summary *s);
void ws_summary_free(ws_summary *s);

/* The inspect report.  The JSON object gets the body keys of SPEC's
 * inspect/check object added to `obj`. */
int ws_report_inspect_json(const ws_model *m, struct cJSON *obj);
void ws_report_inspect_text(FILE *f, const ws_model *m, bool color);

/* ws_model_has_errors, ws_severity_name: weightscan/findings.h */

#ifdef __cplusplus
}
#endif
#endif
