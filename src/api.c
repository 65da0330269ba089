/*
 * api.c - the public face (include/weightscan.h): opaque handles and
 * accessors over the model the rest of the library fills.  Thin on
 * purpose: it reads the structures, it computes nothing of its own.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/report.h"
#include "ws/util.h"
#include "ws/version.h"

const char *
ws_version(void)
{
	return WS_VERSION;
}

const char *
ws_error_kind(const ws_error *e)
{
	return e && e->code ? ws_err_kind_name(e->kind) : "";
}

int
ws_open(const char *path, const char *config_path, unsigned flags, ws_model **out,
	ws_error *err)
{
	*out = NULL;
	if (!path)
		return ws_err(err, WS_EXIT_USAGE, "", "ws_open: no path");
	if (flags & ~(unsigned)WS_OPEN_CHECK)
		return ws_err(err, WS_EXIT_USAGE, path, "ws_open: unknown flags %#x",
			      flags & ~(unsigned)WS_OPEN_CHECK);
	ws_open_opts o = {.config_path = config_path};
	ws_model *m;
	if (ws_model_open(path, &o, &m, err))
		return -1;
	if (ws_model_analyze(m, err) ||
	    ((flags & WS_OPEN_CHECK) && ws_model_compare_data(m, err))) {
		ws_model_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

const char *
ws_model_format(const ws_model *m)
{
	return m->format == WS_FORMAT_GGUF ? "gguf" : "safetensors";
}

const char *
ws_model_architecture(const ws_model *m)
{
	const char *a = m->arch ? m->arch->architecture : m->arch_name;
	return a[0] ? a : NULL;
}

uint64_t
ws_model_params(const ws_model *m)
{
	/* every counted tensor is in exactly one component */
	uint64_t n = 0;
	for (uint32_t c = 0; c < m->n_components; c++)
		if (!ws_add_u64(n, m->components[c].params, &n))
			return UINT64_MAX;
	return n;
}

bool
ws_model_formula(const ws_model *m, uint64_t *total, uint64_t *mtp)
{
	const struct ws_formula *f = m->formula;
	if (total)
		*total = f ? f->total : 0;
	if (mtp)
		*mtp = f ? f->mtp : 0;
	return f != NULL;
}

/* ==== tensors ==== */

static const ws_tensor *
tensor(const ws_model *m, uint64_t i)
{
	return i < m->n_tensors ? &m->tensors[i] : NULL;
}

uint64_t
ws_model_tensor_count(const ws_model *m)
{
	return m->n_tensors;
}

const char *
ws_model_tensor_name(const ws_model *m, uint64_t i, size_t *len)
{
	const ws_tensor *t = tensor(m, i);
	if (len)
		*len = t ? t->name_len : 0;
	return t ? t->name : NULL;
}

const char *
ws_model_tensor_dtype(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? ws_dtype_name(t->dtype) : NULL;
}

uint32_t
ws_model_tensor_rank(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->ndim : 0;
}

uint64_t
ws_model_tensor_dim(const ws_model *m, uint64_t i, uint32_t d)
{
	const ws_tensor *t = tensor(m, i);
	return t && d < t->ndim ? t->shape[d] : 0;
}

const char *
ws_model_tensor_file(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t && t->file < m->n_files ? m->files[t->file].path : NULL;
}

uint64_t
ws_model_tensor_offset(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->offset : 0;
}

uint64_t
ws_model_tensor_bytes(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->bytes : 0;
}

uint64_t
ws_model_tensor_elements(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->elements : 0;
}

uint64_t
ws_model_tensor_params(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->params : 0;
}

const char *
ws_model_tensor_role(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? ws_role_name(t->role) : NULL;
}

int32_t
ws_model_tensor_layer(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->layer : -1;
}

int32_t
ws_model_tensor_expert(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t ? t->expert : -1;
}

const char *
ws_model_tensor_component(const ws_model *m, uint64_t i)
{
	const ws_tensor *t = tensor(m, i);
	return t && t->component < m->n_components ? m->components[t->component].name : NULL;
}

/* ==== components ==== */

static const ws_component *
component(const ws_model *m, uint32_t c)
{
	return c < m->n_components ? &m->components[c] : NULL;
}

uint32_t
ws_model_component_count(const ws_model *m)
{
	return m->n_components;
}

const char *
ws_model_component_name(const ws_model *m, uint32_t c)
{
	const ws_component *co = component(m, c);
	return co ? co->name : NULL;
}

const char *
ws_model_component_kind(const ws_model *m, uint32_t c)
{
	const ws_component *co = component(m, c);
	return co ? co->kind : NULL;
}

uint64_t
ws_model_component_params(const ws_model *m, uint32_t c)
{
	const ws_component *co = component(m, c);
	return co ? co->params : 0;
}

bool
ws_model_component_formula(const ws_model *m, uint32_t c, uint64_t *total)
{
	/* the main component's is the model's; the others have none yet */
	const ws_component *co = component(m, c);
	bool known = co && co->main && m->formula;
	if (total)
		*total = known ? m->formula->total : 0;
	return known;
}

/* ==== findings ==== */

static const ws_finding *
finding(const ws_model *m, size_t i)
{
	return i < m->n_findings ? &m->findings[i] : NULL;
}

size_t
ws_model_finding_count(const ws_model *m)
{
	return m->n_findings;
}

ws_severity
ws_model_finding_severity(const ws_model *m, size_t i)
{
	const ws_finding *f = finding(m, i);
	return f ? f->severity : WS_SEV_INFO;
}

const char *
ws_model_finding_code(const ws_model *m, size_t i)
{
	const ws_finding *f = finding(m, i);
	return f ? f->code : NULL;
}

const char *
ws_model_finding_message(const ws_model *m, size_t i)
{
	const ws_finding *f = finding(m, i);
	return f ? f->message : NULL;
}

const char *
ws_model_finding_tensor(const ws_model *m, size_t i)
{
	const ws_finding *f = finding(m, i);
	return f ? f->tensor : NULL;
}

const char *
ws_model_finding_component(const ws_model *m, size_t i)
{
	const ws_finding *f = finding(m, i);
	return f ? f->component : NULL;
}

int32_t
ws_model_finding_layer(const ws_model *m, size_t i)
{
	const ws_finding *f = finding(m, i);
	return f ? f->layer : -1;
}

/* ==== the JSON report ==== */

char *
ws_model_json(const ws_model *m, const char *command, ws_error *err)
{
	bool check = command && !strcmp(command, "check");
	if (!check && !(command && !strcmp(command, "inspect"))) {
		ws_err(err, WS_EXIT_USAGE, m->path, "ws_model_json: command is \"inspect\" or \"check\"");
		return NULL;
	}
	/* the keys every object of the CLI starts with, then inspect's body
	 * (check's is the same, its "ok" the verdict) */
	cJSON *o = cJSON_CreateObject();
	char *s = NULL;
	if (o && cJSON_AddStringToObject(o, "weightscan", WS_VERSION) &&
	    ws_json_add_u64(o, "schema", WS_SCHEMA) &&
	    cJSON_AddStringToObject(o, "command", command) &&
	    ws_json_add_bytes(o, "path", m->path, strlen(m->path)) &&
	    ws_report_inspect_json(m, o) == 0)
		s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		ws_err_oom(err, m->path);
	return s;
}

void
ws_string_free(char *s)
{
	cJSON_free(s);
}
