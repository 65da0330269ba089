/* fuzz_config.c - config.json: architecture and formula from hostile JSON. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "internal.h"
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
	/* then as `formula CONFIG` reads it: every component a wrapper's
	 * config describes, each with its architecture and formula */
	ws_model *m = ws_model_new("config.json");
	ws_error merr = {0};
	int set = m ? ws_model_set_config(m, c, "config.json", &merr) : -1;
	if (m)
		c = NULL;  /* the model's now, taken or freed */
	if (set == 0) {
		if (ws_model_analyze(m, &merr) == 0) {
			cJSON *j = ws_model_formula_json(m);
			char *s = j ? cJSON_PrintUnformatted(j) : NULL;
			free(s);
			cJSON_Delete(j);
		} else if (merr.code != WS_EXIT_INPUT) {
			__builtin_trap();
		}
	}
	ws_model_free(m);
	cJSON_Delete(c);
	return 0;
}
