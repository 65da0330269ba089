/*
 * ws/remote.h - http(s):// and hf:// inputs.
 *
 * A remote checkpoint is judged from its headers alone, fetched with HTTP
 * Range requests: a safetensors file costs a first range of at most 16 KB
 * (and the rest of its header only when it is longer), a GGUF file its
 * metadata in growing chunks, never tensor data.  Shards are fetched
 * concurrently.  ws_model_open() dispatches remote PATHs here; the model
 * it returns has fd == -1 on every file, so what needs the data (hash,
 * verify, scan, byte comparisons) is refused or skipped.
 *
 * PATH forms:
 *   http(s)://HOST/DIR/x.safetensors | x.gguf | *.index.json | config.json
 *   http(s)://HOST/DIR/     probes config.json, model.safetensors.index.json,
 *                           model.safetensors
 *   hf://ORG/NAME[@REVISION][/FILE]
 *                           $HF_ENDPOINT/ORG/NAME/resolve/REVISION/FILE
 *                           (default https://huggingface.co, revision main;
 *                           $HF_TOKEN is sent as a bearer token)
 */
#ifndef WS_REMOTE_H
#define WS_REMOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Is PATH an http://, https:// or hf:// input? */
bool ws_remote_is_url(const char *path);
/* Was libweightscan built with remote support (libcurl)? */
bool ws_remote_available(void);
/* For commands that read tensor data: when PATH is remote, set err (exit
 * 3: "WHAT needs the tensor data ...") and return -1; else return 0. */
int ws_remote_needs_data(const char *path, const char *what, ws_error *err);
/* Is this file of an opened model remote (only its header is present)? */
bool ws_file_is_remote(const ws_file *f);

#ifdef __cplusplus
}
#endif
#endif
