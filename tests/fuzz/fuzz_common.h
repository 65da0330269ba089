/* fuzz_common.h - shared by the libFuzzer targets and the replay driver:
 * run bytes through a reader and check what a successful parse promises. */
#ifndef WS_FUZZ_COMMON_H
#define WS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write data to an anonymous memory file; returns its /proc path (static
 * buffer) and the fd in *fd. */
const char *ws_fuzz_memfile(const uint8_t *data, size_t size, const char *name, int *fd);
/* Abort unless every tensor lies inside its file, sizes add up and the
 * inspect JSON is valid and parses back. */
void ws_fuzz_check_model(ws_model *m);

#endif
