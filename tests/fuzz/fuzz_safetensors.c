/* fuzz_safetensors.c - the safetensors reader (header scanner, offsets,
 * not-a-weight-file diagnoses) and the analysis behind inspect. */
#include <unistd.h>

#include "fuzz_common.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	const char *p = ws_fuzz_memfile(data, size, "x.safetensors", &fd);
	ws_model *m = NULL;
	ws_error err = {0};
	if (ws_model_open(p, NULL, &m, &err) == 0) {
		if (ws_model_analyze(m, &err) == 0)
			ws_fuzz_check_model(m);
	} else if (err.code != WS_EXIT_INPUT) {
		__builtin_trap(); /* only input errors are possible here */
	}
	ws_model_free(m);
	close(fd);
	return 0;
}
