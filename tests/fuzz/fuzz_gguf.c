/* fuzz_gguf.c - the GGUF reader, metadata printing and the analysis. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "ws/kv.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	const char *p = ws_fuzz_memfile(data, size, "x.gguf", &fd);
	ws_model *m = NULL;
	ws_error err = {0};
	/* a /proc path has no .gguf suffix: the magic decides */
	if (ws_model_open(p, NULL, &m, &err) == 0) {
		FILE *null = fopen("/dev/null", "w");
		for (uint64_t i = 0; null && i < m->n_meta; i++) {
			ws_kv_print_text(null, &m->meta[i], i % 2 == 0);
			cJSON *j = ws_kv_to_json(&m->meta[i], false);
			cJSON_Delete(j);
		}
		if (null)
			fclose(null);
		if (ws_model_analyze(m, &err) == 0)
			ws_fuzz_check_model(m);
	} else if (err.code != WS_EXIT_INPUT) {
		__builtin_trap();
	}
	ws_model_free(m);
	close(fd);
	return 0;
}
