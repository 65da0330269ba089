/*
 * cmd_formula.c - `formula CONFIG.json|x.gguf [--explain]`: the analytic
 * expectation alone, from the architecture description.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ws/adapter.h"
#include "ws/formula.h"

static bool
is_json_path(const char *p)
{
	size_t n = strlen(p);
	return n >= 5 && !strcmp(p + n - 5, ".json");
}

/* An adapter config: the count its base implies. */
static int
adapter_formula(const ws_cli *cli, const char *path, const char *base)
{
	ws_error err = {0};
	ws_adapter *ad = NULL;
	int rc = 0;
	if (ws_adapter_formula(path, base, &ad, &err))
		return ws_cli_report_error(cli, "formula", path, &err);
	if (cli->format == WS_OUT_JSON) {
		cJSON *o = ws_cli_json_header("formula", path);
		cJSON *f = o ? cJSON_CreateObject() : NULL;
		if (f) {
			cJSON_AddItemToObject(o, "adapter", ws_adapter_to_json(ad));
			ws_json_add_u64(f, "total", ad->expected);
			cJSON_AddItemToObject(o, "formula", f);
		}
		if (!o || ws_json_print_line(cli->out, o))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(o);
	} else {
		char c1[32];
		ws_adapter_print_text(cli->out, ad);
		fprintf(cli->out, "total          %s\n", ws_fmt_commas(ad->expected, c1, sizeof c1));
	}
	free(ad);
	return rc;
}

static int
formula_one(const ws_cli *cli, const char *path, bool explain, const char *base)
{
	ws_error err = {0};
	ws_model *m = NULL;
	int rc = 0;

	if (is_json_path(path) && ws_adapter_config_is(path))
		return adapter_formula(cli, path, base);

	if (is_json_path(path)) {
		/* a bare config: no weights to open */
		ws_open_opts o = {.config_path = path};
		m = ws_model_new(path);
		if (!m)
			return WS_EXIT_INTERNAL;
		(void)o;
		if (ws_model_load_config(m, path, &err))
			goto fail;
	} else if (ws_model_open(path, &(ws_open_opts){.allow_full_download = cli->allow_full_download},
				 &m, &err)) {
		goto fail;
	}
	if (ws_model_analyze(m, &err))
		goto fail;
	if (!m->arch) {
		ws_err(&err, WS_EXIT_INPUT, path, "no architecture description (config.json or GGUF metadata)");
		goto fail;
	}
	if (cli->format == WS_OUT_JSON) {
		cJSON *o = ws_cli_json_header("formula", path);
		if (o) {
			cJSON_AddItemToObject(o, "arch", ws_arch_to_json(m->arch));
			if (m->formula)
				cJSON_AddItemToObject(o, "formula", ws_model_formula_json(m));
			else
				cJSON_AddNullToObject(o, "formula");
		}
		if (!o || ws_json_print_line(cli->out, o))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(o);
	} else {
		ws_model_formula_print(cli->out, m, explain ? 2 : 1);
	}
	ws_model_free(m);
	return rc;
fail:
	ws_model_free(m);
	return ws_cli_report_error(cli, "formula", path, &err);
}

int
ws_cmd_formula(const ws_cli *cli, int argc, char **argv)
{
	bool explain = false, ended = false;
	const char *base = NULL;
	int rc = 0, n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!ended && !strcmp(a, "--"))
			ended = true;
		else if (!ended && !strcmp(a, "--explain"))
			explain = true;
		else if (!ended && !strcmp(a, "--base")) {
			if (i + 1 >= argc)
				return ws_cli_usage_error("formula: --base needs a PATH");
			base = argv[++i];
			argv[i] = NULL; /* its value is not a CONFIG */
		}
		else if (!ended && a[0] == '-' && a[1])
			return ws_cli_usage_error("formula: unknown option '%s'", a);
	}
	ended = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a && !ended && !strcmp(a, "--")) {
			ended = true;
			continue;
		}
		if (!a || (!ended && !strcmp(a, "--base")) || (!ended && a[0] == '-' && a[1]))
			continue;
		rc = ws_exit_worst(rc, formula_one(cli, a, explain, base));
		n++;
	}
	if (!n)
		return ws_cli_usage_error("formula: no CONFIG.json or .gguf given");
	return rc;
}
