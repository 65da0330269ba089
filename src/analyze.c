/*
 * analyze.c - the pipeline behind inspect and check: roles, architecture,
 * formula, comparison.  Each step is its own module; this file only
 * orders them.
 */
#include "internal.h"

int
ws_model_analyze(ws_model *m, ws_error *err)
{
	(void)err;
	if (m->format == WS_FORMAT_GGUF && m->n_tensors == 0)
		ws_model_add_finding(m, WS_SEV_INFO, "vocab-only", NULL, -1, -1, false, 0, 0,
				     "GGUF with metadata and no tensors (vocab-only): no formula comparison");
	return 0;
}
