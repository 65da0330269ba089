/*
 * weightscan/model.h - a checkpoint opened and analyzed: its tensors,
 * parameter counts, components and the architecture's formula.
 *
 * Lifetimes: ws_open gives the caller a ws_model, which the caller frees
 * with ws_model_free.  Every pointer an accessor returns points into the
 * model (or is a static string) and stays valid until ws_model_free; the
 * caller never frees it.  A model is read-only after ws_open: accessors
 * may be called from several threads at once.
 *
 * Threads: on a large model (a header of 512 KiB, 16,384 tensors) ws_open
 * works with helper threads beside the caller's, up to three and fewer
 * than the CPUs the process may use, from a pool that outlives the call:
 * a helper waits for the next pass, asleep, and leaves after 50 ms
 * without one (unloading the library waits for it).  Two ws_open calls at
 * once each get helpers of their own.
 *
 * Accessors take an index: tensors 0 .. ws_model_tensor_count - 1,
 * components 0 .. ws_model_component_count - 1.  Out of range, they
 * return NULL, 0 or -1 (as each says) instead of failing.
 */
#ifndef WEIGHTSCAN_MODEL_H
#define WEIGHTSCAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The handle: opaque, made by ws_open, freed by ws_model_free. */
typedef struct ws_model ws_model;

enum ws_open_flag {
	/* Also make the comparisons `weightscan check` makes that read
	 * tensor data: a head stored under a config that ties it to the
	 * embedding is compared byte for byte (the same bytes: counted
	 * once, a warning; different: an error). */
	WS_OPEN_CHECK = 1u << 0,
};

/*
 * Open PATH read-only and analyze it as `weightscan inspect` does: a
 * .safetensors or .gguf file, a checkpoint folder, an index.json, the
 * first part of a GGUF split set (and, when the library was built with
 * remote support, an http(s):// or hf:// URL).  config_path: a
 * config.json to read the architecture from instead of the one beside
 * the weights, or NULL.  flags: enum ws_open_flag values or 0.
 *
 * 0 and *out the model; or -1, *out NULL and err filled (code 2 for an
 * unknown flag, 3 for the input, 4 out of memory: never a model with
 * some of its findings missing).  Only the files' headers are read
 * (with WS_OPEN_CHECK, also the tensors it compares); the model keeps
 * its files open, read-only, until ws_model_free.
 */
int ws_open(const char *path, const char *config_path, unsigned flags, ws_model **out,
	    ws_error *err);
/* Free the model and every string its accessors returned (not one of
 * ws_model_json: that is the caller's).  NULL: nothing. */
void ws_model_free(ws_model *m);

/* "safetensors" or "gguf". */
const char *ws_model_format(const ws_model *m);
/* The architecture as the config.json (model_type), the GGUF metadata
 * (general.architecture) or the tensors' names say, e.g. "llama"; NULL
 * when nothing tells. */
const char *ws_model_architecture(const ws_model *m);
/* Parameters the tensors hold: every tensor but buffers and quantization
 * side tensors, a tied head stored twice counted once (WS_OPEN_CHECK). */
uint64_t ws_model_params(const ws_model *m);
/* The architecture's formula: true and *total (without the MTP layers),
 * *mtp (the MTP layers, 0 when none) when known; false when there is no
 * formula for it (then *total and *mtp are 0).  total, mtp: may be NULL. */
bool ws_model_formula(const ws_model *m, uint64_t *total, uint64_t *mtp);

/* ==== tensors, in the order the files list them ==== */

uint64_t ws_model_tensor_count(const ws_model *m);
/* The name (NUL-terminated); *len its length in bytes when len is not
 * NULL: a GGUF name may hold NUL bytes.  The file's bytes as they are,
 * not necessarily UTF-8 or printable.  NULL out of range. */
const char *ws_model_tensor_name(const ws_model *m, uint64_t i, size_t *len);
/* The element type as stored, e.g. "BF16", "F8_E4M3", "Q4_K". */
const char *ws_model_tensor_dtype(const ws_model *m, uint64_t i);
/* The stored shape, outermost dimension first (PyTorch order, also for
 * GGUF): its rank, and dimension d (0 when d >= rank). */
uint32_t ws_model_tensor_rank(const ws_model *m, uint64_t i);
uint64_t ws_model_tensor_dim(const ws_model *m, uint64_t i, uint32_t d);
/* The path of the file holding its data, the data's absolute offset in
 * that file and its length in bytes. */
const char *ws_model_tensor_file(const ws_model *m, uint64_t i);
uint64_t ws_model_tensor_offset(const ws_model *m, uint64_t i);
uint64_t ws_model_tensor_bytes(const ws_model *m, uint64_t i);
/* Elements as the shape declares them, and the parameters it counts for
 * in ws_model_params (0 for a tied head stored twice, after
 * WS_OPEN_CHECK; buffers and quantization side tensors are not counted
 * whatever this says). */
uint64_t ws_model_tensor_elements(const ws_model *m, uint64_t i);
uint64_t ws_model_tensor_params(const ws_model *m, uint64_t i);
/* Its role, e.g. "attn_q", "ffn_down", "embed", "other" (the names of
 * `weightscan ls --role`). */
const char *ws_model_tensor_role(const ws_model *m, uint64_t i);
/* The block (layer) and the expert it belongs to, or -1. */
int32_t ws_model_tensor_layer(const ws_model *m, uint64_t i);
int32_t ws_model_tensor_expert(const ws_model *m, uint64_t i);
/* The name of the component it belongs to ("text": the text decoder). */
const char *ws_model_tensor_component(const ws_model *m, uint64_t i);

/* ==== components: the text decoder first, then e.g. a vision tower ==== */

uint32_t ws_model_component_count(const ws_model *m);
/* The checkpoint's own name for it ("text" for the decoder) and its kind
 * ("text", "vision", "audio", "projector"). */
const char *ws_model_component_name(const ws_model *m, uint32_t c);
const char *ws_model_component_kind(const ws_model *m, uint32_t c);
/* Parameters its tensors hold. */
uint64_t ws_model_component_params(const ws_model *m, uint32_t c);
/* Its formula total: true and *total when known (total may be NULL). */
bool ws_model_component_formula(const ws_model *m, uint32_t c, uint64_t *total);

/* ==== the whole report ==== */

/*
 * The JSON object `weightscan inspect --json` (command "inspect") or
 * `weightscan check --json` (command "check") prints for the model, as
 * one line without the newline: malloc'd, the caller frees it with
 * ws_string_free.  NULL with err set: code 2 for another command, 4 out
 * of memory.
 */
char *ws_model_json(const ws_model *m, const char *command, ws_error *err);
/* Free a string the library returned.  NULL: nothing. */
void ws_string_free(char *s);

#ifdef __cplusplus
}
#endif
#endif
