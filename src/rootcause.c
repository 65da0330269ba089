/*
 * rootcause.c - a config.json that belongs to another model: one
 * config-mismatch naming each value the tensors contradict, instead of a
 * finding for every tensor that follows from it.
 *
 * The tensors imply an architecture of their own (ws_arch_infer: the
 * embedding's rows, the width most blocks share, the gap-free block
 * count).  When the config's numbers differ from those and the inferred
 * architecture explains the tensors with fewer errors, the config is
 * contradicted consistently, not by one odd tensor: the report goes on
 * with the inferred architecture, and the findings that only restated the
 * contradiction are summarised in that one error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ws/formula.h"

static size_t
errors_from(const ws_model *m, size_t first)
{
	size_t n = 0;
	for (size_t i = first; i < m->n_findings; i++)
		n += m->findings[i].severity == WS_SEV_ERROR;
	return n;
}

static void
drop_findings_from(ws_model *m, size_t first)
{
	for (size_t i = first; i < m->n_findings; i++) {
		free(m->findings[i].message);
		free(m->findings[i].tensor);
	}
	m->n_findings = first;
}

/* The numbers a config can contradict, as the tensors show them; the
 * dense MLP width only where there is no MoE (in a MoE model the tensors
 * show the experts' width there). */
static const struct {
	enum ws_arch_key key;
	bool dense_only;
} compared[] = {
	{WS_AK_HIDDEN, false}, {WS_AK_LAYERS, false}, {WS_AK_VOCAB, false},
	{WS_AK_INTER, true}, {WS_AK_EXPERTS, false}, {WS_AK_MOE_INTER, false},
};

int
ws_root_cause(ws_model *m, size_t first, ws_error *err)
{
	struct ws_arch *cfg = m->arch;
	if (!cfg || !cfg->known || !cfg->source || strcmp(cfg->source, "config.json") ||
	    m->format != WS_FORMAT_SAFETENSORS || errors_from(m, first) < 2)
		return 0;
	struct ws_arch *ia = ws_arch_infer_new(m, err);
	if (!ia)
		return -1;
	char said[512] = "", implied[512] = "";
	size_t ls = 0, li = 0, differ = 0;
	for (size_t k = 0; ia->known && k < sizeof compared / sizeof compared[0]; k++) {
		enum ws_arch_key ak = compared[k].key;
		uint64_t c = ws_arch_value(cfg, ak), t = ws_arch_value(ia, ak);
		if (!c || !t || c == t || (compared[k].dense_only && (cfg->num_experts || ia->num_experts)))
			continue;
		char key[96];
		ws_arch_key_label(cfg, ak, key, sizeof key);
		ls += (size_t)snprintf(said + ls, ls < sizeof said ? sizeof said - ls : 0, "%s%s %llu",
				       differ ? ", " : "", key, (unsigned long long)c);
		li += (size_t)snprintf(implied + li, li < sizeof implied ? sizeof implied - li : 0,
				       "%s%s %llu", differ ? ", " : "", ws_arch_key_name(ak),
				       (unsigned long long)t);
		differ++;
	}
	struct ws_formula *f = NULL;
	if (!differ || !(f = calloc(1, sizeof *f)) || ws_formula_compute(ia, f, err)) {
		int oom = differ && !f;
		free(f);
		ws_arch_free(ia);
		free(ia);
		if (oom)
			return ws_err_oom(err, m->path);
		return err->code == WS_EXIT_INTERNAL ? -1 : 0;
	}
	/* the tensors under their own architecture */
	size_t before = errors_from(m, first), n_cfg = m->n_findings - first;
	ws_finding *saved = malloc((n_cfg ? n_cfg : 1) * sizeof *saved);
	if (!saved) {
		ws_formula_free(f);
		free(f);
		ws_arch_free(ia);
		free(ia);
		return ws_err_oom(err, m->path);
	}
	memcpy(saved, m->findings + first, n_cfg * sizeof *saved);
	m->n_findings = first;
	struct ws_formula *cfg_f = m->formula;
	m->arch = ia;
	m->formula = f;
	if (ws_model_compare(m)) {
		free(saved);
		return ws_err_oom(err, m->path);
	}
	size_t after = errors_from(m, first);
	if (after >= before) {
		/* the config explains the tensors as well: keep its report */
		drop_findings_from(m, first);
		memcpy(m->findings + first, saved, n_cfg * sizeof *saved);
		m->n_findings = first + n_cfg;
		free(saved);
		m->arch = cfg;
		m->formula = cfg_f;
		ws_formula_free(f);
		free(f);
		ws_arch_free(ia);
		free(ia);
		return 0;
	}
	for (size_t i = 0; i < n_cfg; i++) {
		free(saved[i].message);
		free(saved[i].tensor);
	}
	free(saved);
	ws_formula_free(cfg_f);
	free(cfg_f);
	ws_arch_free(cfg);
	free(cfg);
	/* first in the list: the cause, before what follows from it */
	if (ws_model_add_finding(m, WS_SEV_ERROR, "config-mismatch", NULL, -1, -1, false, 0, 0,
				 "the config contradicts the tensors: it says %s; the tensors imply %s "
				 "(a config.json of another model?). The report below uses the "
				 "architecture the tensors imply; %zu shape, count or layer error%s that "
				 "followed from the config are not repeated",
				 said, implied, before, before == 1 ? "" : "s"))
		return ws_err_oom(err, m->path);
	ws_finding cause = m->findings[m->n_findings - 1];
	memmove(m->findings + 1, m->findings, (m->n_findings - 1) * sizeof *m->findings);
	m->findings[0] = cause;
	return 0;
}
