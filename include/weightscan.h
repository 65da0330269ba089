/*
 * weightscan.h - libweightscan: open a checkpoint (safetensors, GGUF),
 * read its tensors, parameter counts, components, the architecture's
 * formula and the findings, as `weightscan inspect` and `check` do.
 *
 * Opaque handles and accessor functions only (see README "Library"):
 *   weightscan/error.h     ws_error, the value every failure fills
 *   weightscan/model.h     ws_open, ws_model_free, tensors, components
 *   weightscan/findings.h  findings and the verdict
 * The shared library exports exactly the functions these headers declare.
 */
#ifndef WEIGHTSCAN_H
#define WEIGHTSCAN_H

/* The version of these headers, and of the JSON schema ws_model_json
 * writes ("weightscan" and "schema" in every object). */
#define WS_VERSION "0.1.0"
#define WS_SCHEMA 1

#include "weightscan/error.h"
#include "weightscan/model.h"
#include "weightscan/findings.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version at run time: WS_VERSION of the build it came
 * from (a static string). */
const char *ws_version(void);

#ifdef __cplusplus
}
#endif
#endif
