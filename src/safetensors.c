/* safetensors.c - placeholder, replaced by the strict reader. */
#include "internal.h"
int
ws_safetensors_load(ws_model *m, const char *path, ws_error *err)
{
	(void)m;
	return ws_err(err, WS_EXIT_INTERNAL, path, "not yet");
}
