/*
 * ws/roles.h - tensor name -> (role, layer, expert, kind).
 *
 * The mapping is a data table (src/roles.c) of lines
 * {format, architectures, pattern, role}; the first line that matches wins.
 * Pattern language, matched against the whole name (Hugging Face names
 * first lose leading wrapper segments: model., language_model.,
 * transformer., base_model., gpt_neox.):
 *
 *   literal   bytes compared exactly
 *   {L}       a segment of 1-9 digits: the layer index
 *   {E}       a segment of 1-9 digits: the expert index
 *   {N}       a segment of 1-9 digits, not recorded
 *   {B}       a block: "layers.{L}", "h.{L}" or "blocks.{L}"
 *   *         any run of bytes, possibly empty
 *   {K}       the rest of the name is a known tail (".weight", ".bias",
 *             ".qweight", "_blocks", ".scales", "" ...); the tail sets the
 *             kind, and a quantization side tail (".scales", ".qzeros",
 *             ".weight_scale_inv", "_scales" ...) turns the role into
 *             quant_aux.  Only at the end of a pattern.
 *
 * A pattern without {K} is kind bias when the name ends in "bias".
 * Architectures are a space-separated list compared without case, '_' or
 * '-' ("gpt_neox" = "gptneox"); a trailing '*' matches a prefix
 * ("gemma3*" = gemma3, gemma3_text, gemma3n); empty = every architecture.
 */
#ifndef WS_ROLES_H
#define WS_ROLES_H

#include <stddef.h>
#include <stdint.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Names longer than this are role other without being matched: no real
 * tensor name comes close, and it bounds the matcher's work. */
#define WS_ROLE_MAX_NAME 1024

/**
 * Fill role, layer, expert and kind of every tensor of m from its name,
 * m->format and m->arch_name, and set params = elements (0 for roles
 * buffer and quant_aux).  num_hidden_layers is the architecture's block
 * count, or <= 0 when unknown: a tensor of a block index >= it is role mtp
 * (DeepSeek-V3 / GLM-4.5 multi-token-prediction layers), unless it is a
 * buffer or a quantization side tensor.
 *
 * Names with the same shape (digits aside) are classified once, so a
 * 100k-tensor model costs one table walk per distinct shape.  Thread-safe:
 * no global state.  Returns 0, or -1 on out of memory (every tensor is
 * still assigned, through the uncached path).
 */
int ws_roles_assign(ws_model *m, int32_t num_hidden_layers);
/* The same, counting in *factors the names that are adapter factors'
 * (ws_adapter_name_is_factor) as it goes: one answer a shape of name,
 * where ws_adapter_detect would look at each. */
int ws_roles_assign_counting(ws_model *m, int32_t num_hidden_layers, uint64_t *factors);

/**
 * Classify one name (name[0..len), any bytes) for a format and an
 * architecture (NUL-terminated, NULL or "" = unknown).  Every out pointer
 * may be NULL.  The mtp rule is not applied (see ws_roles_assign).
 * Returns 1 when the role is not other, 0 when it is (layer may still be
 * set: an unknown tensor inside block N).
 */
int ws_role_classify(ws_format fmt, const char *arch, const char *name,
		     size_t len, ws_role *role, int32_t *layer,
		     int32_t *expert, ws_kind *kind);

/* Number of lines in the role table (for tests and `--explain`-style
 * listings). */
size_t ws_role_table_size(void);

#ifdef __cplusplus
}
#endif
#endif
