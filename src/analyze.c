/*
 * analyze.c - the pipeline behind inspect and check: architecture, roles,
 * formula, comparison, declared counts.  Each step is its own module;
 * this file only orders them.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "weightscan/formula.h"
#include "weightscan/quant.h"
#include "weightscan/roles.h"
#include "weightscan/report.h"
#include "weightscan/util.h"

/* total_parameters from the index (transformers writes it) against ours. */
static void
check_declared(ws_model *m)
{
	const cJSON *meta = m->index ? cJSON_GetObjectItemCaseSensitive(m->index, "metadata") : NULL;
	const cJSON *tp = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "total_parameters") : NULL;
	if (!cJSON_IsNumber(tp) || tp->valuedouble < 0 || tp->valuedouble >= 9.0e15 ||
	    (double)(uint64_t)tp->valuedouble != tp->valuedouble)
		return;
	ws_summary s;
	if (ws_summary_compute(m, &s))
		return;
	uint64_t declared = (uint64_t)tp->valuedouble;
	if (declared != s.params)
		ws_model_add_finding(m, WS_SEV_ERROR, "declared-mismatch", NULL, -1, -1, true,
				     declared, s.params,
				     "index.json total_parameters says %llu, the tensors hold %llu",
				     (unsigned long long)declared, (unsigned long long)s.params);
	ws_summary_free(&s);
}

int
ws_model_analyze(ws_model *m, ws_error *err)
{
	struct ws_arch *a = calloc(1, sizeof *a);
	if (!a)
		return ws_err_oom(err, m->path);
	int have = 0;
	if (m->config) {
		if (ws_arch_from_config(m->config, m->config_path, a, err)) {
			free(a);
			return -1;
		}
		have = 1;
	} else if (m->format == WS_FORMAT_GGUF && ws_model_find_kv(m, "general.architecture")) {
		/* Missing or contradictory {arch}.* keys break no GGUF rule, but
		 * llama.cpp refuses such a file: a finding, not exit 3. */
		ws_error aerr = {0};
		if (ws_arch_from_gguf(m, a, &aerr) == 0) {
			have = 1;
		} else {
			ws_arch_free(a);
			if (aerr.code == WS_EXIT_INTERNAL) {
				free(a);
				*err = aerr;
				return -1;
			}
			char *msg = ws_escape_text(aerr.message, strlen(aerr.message));
			ws_model_add_finding(m, WS_SEV_ERROR, "metadata-mismatch", NULL, -1, -1, false,
					     0, 0, "architecture metadata unusable: %s",
					     msg ? msg : "?");
			free(msg);
		}
	}
	if (have)
		m->arch = a;
	else
		free(a);

	int32_t layers = m->arch && m->arch->num_layers <= INT32_MAX ? (int32_t)m->arch->num_layers : -1;
	if (ws_roles_assign(m, layers))
		return ws_err_oom(err, m->path);
	if (ws_quant_apply(m, err))
		return -1;

	if (m->format == WS_FORMAT_GGUF && m->n_tensors == 0) {
		ws_model_add_finding(m, WS_SEV_INFO, "vocab-only", NULL, -1, -1, false, 0, 0,
				     "GGUF with metadata and no tensors (vocab-only): no formula comparison");
		return 0;
	}
	if (m->arch && !m->arch->known) {
		ws_model_add_finding(m, WS_SEV_WARNING, "unsupported-architecture", NULL, -1, -1,
				     false, 0, 0, "no formula for architecture '%s'%s%s",
				     m->arch->architecture, m->arch->unsupported ? ": " : "",
				     m->arch->unsupported ? m->arch->unsupported : "");
	} else if (m->arch) {
		struct ws_formula *f = calloc(1, sizeof *f);
		if (!f)
			return ws_err_oom(err, m->path);
		if (ws_formula_compute(m->arch, f, err)) {
			free(f);
			return -1;
		}
		m->formula = f;
		if (ws_model_compare(m))
			return ws_err_oom(err, m->path);
	}
	check_declared(m);
	return 0;
}
