/* fuzz_config.c - config.json: architecture and formula from hostile JSON. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "ws/formula.h"
#include "ws/json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *c = ws_json_parse_py((const char *)data, size, NULL);
	if (!c)
		return 0;
	struct ws_arch a;
	ws_error err = {0};
	memset(&a, 0, sizeof a);
	if (ws_arch_from_config(c, "config.json", &a, &err) == 0) {
		struct ws_formula f;
		memset(&f, 0, sizeof f);
		if (a.known && ws_formula_compute(&a, &f, &err) == 0) {
			if (f.active > f.total)
				__builtin_trap();
			cJSON *j = ws_formula_to_json(&a, &f);
			char *s = j ? cJSON_PrintUnformatted(j) : NULL;
			free(s);
			cJSON_Delete(j);
			ws_formula_free(&f);
		}
		cJSON *aj = ws_arch_to_json(&a);
		cJSON_Delete(aj);
		ws_arch_free(&a);
	} else if (err.code != WS_EXIT_INPUT) {
		__builtin_trap();
	}
	cJSON_Delete(c);
	return 0;
}
