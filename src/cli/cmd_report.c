/*
 * cmd_report.c - `report PATH [B] [-o FILE] [--svg]`: the picture report
 * (ws/html.h) of one model, or of two side by side.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ws/html.h"

int
ws_cmd_report(const ws_cli *cli, int argc, char **argv)
{
	const char *paths[2] = {NULL, NULL}, *out_path = NULL, *config = NULL;
	ws_html_opts opts = {0};
	int n = 0, rc = 0;
	bool ended = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool opt = !ended && a[0] == '-' && a[1];
		if (opt && !strcmp(a, "--")) {
			ended = true;
		} else if (opt && !strcmp(a, "--svg")) {
			opts.svg = true;
		} else if (opt && !strncmp(a, "--output=", 9)) {
			out_path = a + 9;
		} else if (opt && !strncmp(a, "-o", 2) && a[2]) {
			out_path = a + 2 + (a[2] == '=');
		} else if (opt && (!strcmp(a, "-o") || !strcmp(a, "--output") ||
				   !strcmp(a, "--config") || !strcmp(a, "--width"))) {
			if (i + 1 >= argc)
				return ws_cli_usage_error("report: %s needs a value", a);
			const char *v = argv[++i];
			if (!strcmp(a, "--config")) {
				config = v;
			} else if (!strcmp(a, "--width")) {
				uint64_t w;
				if (ws_cli_parse_u64("--width", v, &w))
					return WS_EXIT_USAGE;
				opts.width = w > 4096 ? 4096 : (uint32_t)w;
			} else {
				out_path = v;
			}
		} else if (opt) {
			return ws_cli_usage_error("report: unknown option '%s'", a);
		} else if (n < 2) {
			paths[n++] = a;
		} else {
			return ws_cli_usage_error("report: takes PATH, or two PATHs to compare");
		}
	}
	if (!n)
		return ws_cli_usage_error("report: no PATH given");
	if (out_path && !*out_path)
		return ws_cli_usage_error("report: -o needs a FILE");

	ws_model *m[2] = {NULL, NULL};
	for (int i = 0; i < n; i++) {
		ws_error err = {0};
		ws_open_opts o = {.config_path = config};
		if (ws_model_open(paths[i], &o, &m[i], &err) || ws_model_analyze(m[i], &err)) {
			ws_model_free(m[i]);
			m[i] = NULL;
			rc = ws_exit_worst(rc, ws_cli_report_error(cli, "report", paths[i], &err));
		}
	}
	if (rc)
		goto done;

	FILE *f = cli->out;
	if (out_path && !(f = fopen(out_path, "w"))) {
		fprintf(stderr, "weightscan: report: cannot write %s: %s\n", out_path,
			strerror(errno));
		rc = WS_EXIT_INTERNAL;
		goto done;
	}
	const ws_model *const mv[2] = {m[0], m[1]};
	if (ws_report_html(f, mv, (size_t)n, &opts) != 0)
		rc = WS_EXIT_INTERNAL;
	if (f != cli->out && fclose(f) != 0)
		rc = WS_EXIT_INTERNAL;
	if (rc)
		fprintf(stderr, "weightscan: report: could not write %s\n",
			out_path ? out_path : "the report to stdout");
done:
	ws_model_free(m[0]);
	ws_model_free(m[1]);
	return rc;
}
