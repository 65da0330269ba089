/*
 * weightscan/findings.h - what the analysis found: each finding's
 * severity, code (listed in weightscan(1), FINDINGS), message and what
 * it is about.
 *
 * Findings belong to the model: indexes 0 .. ws_model_finding_count - 1,
 * strings valid until ws_model_free.  A model ws_open returned holds all
 * of them: a finding that could not be recorded failed the open (exit 4).
 */
#ifndef WEIGHTSCAN_FINDINGS_H
#define WEIGHTSCAN_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ws_severity {
	WS_SEV_INFO = 0, WS_SEV_WARNING = 1, WS_SEV_ERROR = 2
} ws_severity;

/* "info", "warning", "error". */
const char *ws_severity_name(ws_severity s);

size_t ws_model_finding_count(const ws_model *m);
/* WS_SEV_INFO out of range. */
ws_severity ws_model_finding_severity(const ws_model *m, size_t i);
/* The code, e.g. "count-mismatch", "missing-tensor", "tied-embeddings". */
const char *ws_model_finding_code(const ws_model *m, size_t i);
/* One line of text; names in it are escaped, safe to print. */
const char *ws_model_finding_message(const ws_model *m, size_t i);
/* The tensor it is about (escaped), or NULL when not about one. */
const char *ws_model_finding_tensor(const ws_model *m, size_t i);
/* The component it is about, or NULL: the text decoder or the whole
 * model. */
const char *ws_model_finding_component(const ws_model *m, size_t i);
/* The block it is about, or -1. */
int32_t ws_model_finding_layer(const ws_model *m, size_t i);

/* Is any finding an error?  After ws_open with WS_OPEN_CHECK, true is the
 * verdict of `weightscan check` (exit 1) without --strict, --fail-on or
 * --ignore. */
bool ws_model_has_errors(const ws_model *m);

#ifdef __cplusplus
}
#endif
#endif
