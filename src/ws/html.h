/*
 * ws/html.h - the picture report: where the parameters sit.
 *
 * One self-contained HTML page (inline SVG and CSS; no script, no font,
 * no image, nothing fetched: a Content-Security-Policy of default-src
 * 'none' says so to the browser) or a bare SVG document.  It shows a
 * treemap of the parameters (role groups -> layers -> tensors, area =
 * parameters, colour = dtype), a per-layer stacked bar chart (attention,
 * MLP, experts, norms) with the findings marked on their layer and the
 * formula's expectation as an outline, and (HTML) the summary tables and
 * the findings.  Given two models it adds their per-role deltas.
 *
 * The output is a pure function of the models: byte-identical across runs.
 * Tensors too small to see are merged per (layer, role, dtype) into one
 * rectangle, so a 92k-tensor checkpoint stays a few megabytes.
 */
#ifndef WS_HTML_H
#define WS_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ws_html_opts {
	bool svg;        /* a bare SVG document (pictures only, no tables) */
	uint32_t width;  /* picture width in px; 0 = 1280 (clamped to 480..4096) */
} ws_html_opts;

/*
 * Write the report of models[0..n) to f: n = 1 one model, n = 2 a
 * comparison (A and B, per-role deltas side by side, then each model).
 * The models are analyzed (ws_model_analyze) or at least opened.  Returns
 * 0, or -1 on out of memory or a write error (ferror(f)).
 */
int ws_report_html(FILE *f, const ws_model *const *models, size_t n,
		   const ws_html_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
