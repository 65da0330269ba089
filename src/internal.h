/*
 * internal.h - what the modules of libweightscan share but do not export.
 */
#ifndef WS_INTERNAL_H
#define WS_INTERNAL_H

#include "weightscan/model.h"

/* Readers: fill m from one file (safetensors) or a file and its split set
 * (GGUF).  Return 0 or -1 with err set. */
int ws_safetensors_load(ws_model *m, const char *path, ws_error *err);
int ws_safetensors_load_index(ws_model *m, const char *index_path, ws_error *err);
int ws_gguf_load(ws_model *m, const char *path, ws_error *err);

/* Not-a-weight-file diagnosis: when the first bytes of a file are an LFS
 * pointer, an HTML/JSON page, a pickle/zip or nothing, set err (exit 3)
 * with the diagnosis and return -1; otherwise return 0. */
int ws_sniff(const char *path, const uint8_t *head, uint64_t len,
	     uint64_t file_size, ws_error *err);

/* Read a whole small file (config.json, index.json) up to max bytes. */
int ws_read_small_file(const char *path, uint64_t max, char **out,
		       size_t *len, ws_error *err);

/* Exact-key hash set over (pointer, length) byte strings; used for
 * duplicate detection in O(n). */
typedef struct ws_strset {
	struct ws_strset_slot *slots;
	size_t cap, n;
} ws_strset;
/* 1 = inserted, 0 = already present, -1 = OOM. */
int ws_strset_add(ws_strset *s, const char *key, size_t len);
bool ws_strset_has(const ws_strset *s, const char *key, size_t len);
void ws_strset_free(ws_strset *s);

#endif
