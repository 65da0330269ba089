/*
 * main.c - the weightscan command line: common options, the command
 * table, exit codes.  Everything else lives in the library.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"

typedef struct cmd_entry {
	const char *name;
	ws_cmd_fn fn;
	const char *usage;     /* one line, in the global usage */
	const char *options;   /* `weightscan COMMAND --help`: a line each */
	const char *exit1;     /* when the command exits 1 */
} cmd_entry;

/* One entry per command; "inspect" is also what a bare PATH means. */
static const cmd_entry commands[] = {
	{"inspect", ws_cmd_inspect, "inspect PATH... [--config F] [--base PATH] summary: files, tensors, parameters, roles, formula, findings",
	 "  --config FILE    the architecture source instead of the config.json beside the weights\n"
	 "  --base PATH      an adapter's base: a config.json, a checkpoint folder or\n"
	 "                   file, a HF cache folder (default: base_model_name_or_path\n"
	 "                   when it resolves here)\n",
	 "never (findings are shown; use check to gate)"},
	{"ls", ws_cmd_ls, "ls PATH [--role R] [--layer N] [--match GLOB] [--sort name|offset|size] [--gguf-order] [--base PATH]",
	 "  --role R         only tensors of role R (see SPEC's role tables)\n"
	 "  --layer N        only block N\n"
	 "  --match GLOB     only names matching GLOB\n"
	 "  --sort KEY       name, offset or size (default: layer, role, name)\n"
	 "  --gguf-order     shapes in GGUF's ne[] order (innermost first)\n"
	 "  --config FILE    the architecture source\n"
	 "  --base PATH      an adapter's base: a config.json, a checkpoint folder or\n"
	 "                   file, a HF cache folder (default: base_model_name_or_path\n"
	 "                   when it resolves here)\n",
	 "never"},
	{"meta", ws_cmd_meta, "meta PATH [--key K] [--full] [--raw] metadata key/values",
	 "  --key K          only key K\n"
	 "  --full           long arrays in full, not summarized\n"
	 "  --raw            values unquoted, for scripts\n",
	 "the --key asked for is absent"},
	{"formula", ws_cmd_formula, "formula CONFIG.json|x.gguf|ADAPTER_CONFIG [--base PATH] [--explain] the analytic expectation alone",
	 "  --explain        each role's formula with numbers\n"
	 "  --base PATH      an adapter config's base (config.json, checkpoint, HF cache\n"
	 "                   folder): the adapter's expected count\n",
	 "never"},
	{"hash", ws_cmd_hash, "hash PATH... [-j N] [--per-tensor] [--sha256] [-o MANIFEST]",
	 "  -j, --jobs N     threads (1 to 256; default: the cores)\n"
	 "  --per-tensor     a hash per tensor too (in MANIFEST.tensors with -o)\n"
	 "  --sha256         SHA-256 lines instead of XXH3-128 (sha256sum -c reads them)\n"
	 "  -o, --output F   write the manifest to F (paths relative to its folder)\n",
	 "never"},
	{"verify", ws_cmd_verify, "verify MANIFEST|DIR [-j N] [--quiet] [--status] [--strict] [--ignore-missing]",
	 "  -j, --jobs N     threads (1 to 256)\n"
	 "  -q, --quiet      no OK lines\n"
	 "  --status         print nothing; the exit code says\n"
	 "  --strict         improperly formatted manifest lines fail\n"
	 "  --ignore-missing manifest entries whose file is absent are skipped (never a\n"
	 "                   file an index or split set names)\n",
	 "any entry FAILED or MISSING, or nothing verified"},
	{"flops", ws_cmd_flops, "flops PATH [--seq N] [--layers SPEC]... [--size H[xW]] [--kv-dtype T] MACs a*N + b*N^2 from real shapes",
	 "  --seq N          sequence length (suffixes: 8k = 8,192)\n"
	 "  --layers SPEC    blocks to count, e.g. 0-23,27-31 (repeatable)\n"
	 "  --size H[xW]     an image in pixels: a diffusion network's (default its native\n"
	 "                   size), a vision tower's of any image size (default 448)\n"
	 "  --kv-dtype T     KV cache element type (f16, bf16, f32, q8_0, ...)\n",
	 "never"},
	{"report", ws_cmd_report, "report PATH [B] [-o FILE] [--svg] [--config F]  self-contained HTML/SVG picture",
	 "  -o, --output F   write to F instead of stdout\n"
	 "  --svg            the pictures alone, as SVG\n"
	 "  --config FILE    the architecture source\n",
	 "never"},
	{"check", ws_cmd_check, "check PATH [--expect-params N[:TOL]] [--config F] [--base PATH] [--variant NAME] [--strict] [--fail-on CODES] [--ignore FILE]",
	 "  --expect-params N[:TOL]  the parameter count must be N (8.03B = within the\n"
	 "                   rounding of the digits given; TOL a count or a percentage)\n"
	 "  --config FILE    the architecture source\n"
	 "  --variant NAME   read that variant of the folder's checkpoint (fp16, ...)\n"
	 "  --base PATH      an adapter's base: a config.json, a checkpoint folder or\n"
	 "                   file, a HF cache folder (default: base_model_name_or_path\n"
	 "                   when it resolves here)\n"
	 "  --strict         every warning fails too\n"
	 "  --fail-on CODES  these finding codes fail too (comma-separated); never\n"
	 "                   takes an error away; an unknown code is exit 2\n"
	 "  --ignore FILE    lines `CODE[:TENSOR-GLOB] reason`: those findings are\n"
	 "                   reported as ignored and do not fail\n",
	 "an error-level finding; with --strict any warning; --fail-on's codes; --expect-params missed"},
	{"diff", ws_cmd_diff, "diff A B [-j N]             what changed: tensors, dtypes, shapes, content, per-role deltas",
	 "  -j, --jobs N     threads for the content comparison\n",
	 "any structural or content difference"},
	{"scan", ws_cmd_scan, "scan PATH [-j N]            NaN, Inf, all-zero tensors, min/max/mean/std",
	 "  -j, --jobs N     threads\n",
	 "a NaN or an Inf"},
};

static const char exit_text[] =
	"exit status: 0 ok, 1 findings/check failed, 2 usage, 3 malformed or\n"
	"unreadable input, 4 internal error.\n";

static void
command_help(FILE *f, const cmd_entry *c)
{
	fprintf(f, "usage: weightscan %s\n\noptions:\n%s", c->usage, c->options);
	fputs("  --json, --format text|json|sarif|github, --quiet, --no-color, --\n", f);
	fprintf(f, "\nexit 1 when: %s\n%s", c->exit1, exit_text);
}

static void
usage(FILE *f)
{
	fputs("usage: weightscan [OPTIONS] PATH...\n"
	      "       weightscan [OPTIONS] COMMAND ARGS...\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %s\n", commands[i].usage);
	fputs("\ncommon options:\n"
	      "  --json, --format text|json|sarif|github\n"
	      "  --quiet, --no-color, -h/--help, --version, -- (end of options)\n"
	      "  --allow-full-download  (http(s)://, hf:// PATHs) accept a server that ignores Range\n"
	      "\n'weightscan COMMAND --help' or 'weightscan help COMMAND': one command's options\n\n", f);
	fputs(exit_text, f);
}

int
ws_cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("weightscan: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(see 'weightscan --help')\n", stderr);
	return WS_EXIT_USAGE;
}

void
ws_cli_done_with(ws_model *m)
{
	static ws_model *last;
	ws_model_free(last);
	last = m;
}

int
ws_exit_worst(int a, int b)
{
	static const int rank[] = {0, 1, 2, 3, 4}; /* 4 > 3 > 2 > 1 > 0 */
	if (a < 0 || a > 4)
		a = 4;
	if (b < 0 || b > 4)
		b = 4;
	return rank[a] >= rank[b] ? a : b;
}

cJSON *
ws_cli_json_header(const char *command, const char *path)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "weightscan", WS_VERSION);
	ws_json_add_u64(o, "schema", WS_SCHEMA);
	cJSON_AddStringToObject(o, "command", command);
	if (path)
		ws_json_add_bytes(o, "path", path, strlen(path));
	return o;
}

int
ws_cli_json_error(cJSON *o, const ws_error *e)
{
	cJSON *eo = cJSON_AddObjectToObject(o, "error");
	if (!eo)
		return -1;
	cJSON_AddStringToObject(eo, "kind", ws_err_kind_name(e->kind));
	if (e->kind == WS_ERRK_HTTP || e->kind == WS_ERRK_GATED)
		ws_json_add_u64(eo, "status", (uint64_t)e->http_status);
	ws_json_add_bytes(eo, "file", e->file, strlen(e->file));
	if (e->has_offset)
		ws_json_add_u64(eo, "offset", e->offset);
	else
		cJSON_AddNullToObject(eo, "offset");
	ws_json_add_bytes(eo, "message", e->message, strlen(e->message));
	return 0;
}

int
ws_cli_select_component(const ws_cli *cli, const char *command, const char *path,
			ws_model *m)
{
	ws_error err = {0};
	if (!cli->component || ws_model_select_component(m, cli->component, &err) == 0)
		return 0;
	return ws_cli_report_error(cli, command, path, &err);
}

int
ws_cli_report_error(const ws_cli *cli, const char *command, const char *path,
		    const ws_error *e)
{
	if (cli->format == WS_OUT_JSON) {
		cJSON *o = ws_cli_json_header(command, path);
		if (o && ws_cli_json_error(o, e) == 0)
			ws_json_print_line(cli->out, o);
		cJSON_Delete(o);
	} else if (cli->sarif) {
		ws_sarif_add_error(cli->sarif, path, e);
	} else if (cli->format == WS_OUT_GITHUB) {
		ws_github_error(cli->out, path, e);
	}
	char buf[2048];
	ws_error_format(e, buf, sizeof buf);
	fputs("weightscan: ", stderr);
	ws_fput_escaped(stderr, buf, strlen(buf));
	fputc('\n', stderr);
	return e->code ? e->code : WS_EXIT_INTERNAL;
}

int
ws_cli_parse_u64(const char *opt, const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!s || !*s) {
		ws_cli_usage_error("%s needs a number", opt);
		return -1;
	}
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || !ws_mul_u64(v, 10, &v) ||
		    !ws_add_u64(v, (uint64_t)(*p - '0'), &v)) {
			ws_cli_usage_error("%s: '%s' is not a non-negative integer", opt, s);
			return -1;
		}
	}
	*out = v;
	return 0;
}

/* Value of an option given as "-o V", "-oV", "--opt V" or "--opt=V".
 * Returns 1 when argv[*i] is this option (value in *val, NULL when it is
 * missing), else 0. */
int
ws_cli_opt_value(int argc, char **argv, int *i, const char *shrt, const char *lng,
	  const char **val)
{
	const char *a = argv[*i];
	size_t sl = strlen(shrt), ll = strlen(lng);
	if ((sl && !strcmp(a, shrt)) || !strcmp(a, lng)) {
		*val = *i + 1 < argc ? argv[++*i] : NULL;
		return 1;
	}
	if (sl && !strncmp(a, shrt, sl) && a[sl]) {
		*val = a + sl;
		return 1;
	}
	if (!strncmp(a, lng, ll) && a[ll] == '=') {
		*val = a + ll + 1;
		return 1;
	}
	return 0;
}

int
ws_cli_parse_jobs(const char *cmd, const char *val, unsigned *threads)
{
	uint64_t v;
	if (!val)
		return ws_cli_usage_error("%s: -j needs a number", cmd);
	if (ws_cli_parse_u64("-j", val, &v))
		return WS_EXIT_USAGE;
	if (v == 0 || v > 256)
		return ws_cli_usage_error("%s: -j takes 1 to 256", cmd);
	*threads = (unsigned)v;
	return 0;
}

static const cmd_entry *
find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Edit distance (insert, delete, substitute, swap two neighbours) of two
 * short words, capped: the words are command-sized. */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 32 || lb > 32)
		return 99;
	size_t d[33][33];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* SPEC: a first word with no '/' or '.', that is no existing path and is
 * close to a command name, is a mistyped command; the closest, or NULL. */
static const cmd_entry *
mistyped(const char *w)
{
	struct stat sb;
	if (strchr(w, '/') || strchr(w, '.') || stat(w, &sb) == 0)
		return NULL;
	const cmd_entry *best = NULL;
	size_t bd = 99;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		size_t d = distance(w, commands[i].name);
		if (d < bd) {
			bd = d;
			best = &commands[i];
		}
	}
	/* close: at most two edits, and fewer than the word's own length */
	return best && bd <= 2 && bd < strlen(w) ? best : NULL;
}

/* `weightscan help [COMMAND]` */
static int
help_command(char **words, int n)
{
	if (n == 0) {
		usage(stdout);
	} else {
		const cmd_entry *c = find_command(words[0]);
		if (!c) {
			char list[256] = "";
			size_t len = 0;
			for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
							i ? ", " : "", commands[i].name);
			return ws_cli_usage_error("help: unknown command '%s' (commands: %s)", words[0],
						  list);
		}
		command_help(stdout, c);
	}
	return fflush(stdout) ? WS_EXIT_INTERNAL : WS_EXIT_OK;
}

static int
set_format(ws_cli *cli, const char *v)
{
	static const struct { const char *name; enum ws_out_format f; } formats[] = {
		{"text", WS_OUT_TEXT}, {"json", WS_OUT_JSON},
		{"sarif", WS_OUT_SARIF}, {"github", WS_OUT_GITHUB},
	};
	if (!v)
		return ws_cli_usage_error("--format needs a value (text, json, sarif, github)");
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (!strcmp(v, formats[i].name)) {
			cli->format = formats[i].f;
			return 0;
		}
	return ws_cli_usage_error("--format: '%s' is not one of text, json, sarif, github", v);
}

int
main(int argc, char **argv)
{
	ws_cli cli = {.format = WS_OUT_TEXT, .out = stdout};
	bool no_color = getenv("NO_COLOR") && *getenv("NO_COLOR");
	const cmd_entry *cmd = NULL;
	char **rest = calloc((size_t)argc + 2, sizeof *rest);
	int nrest = 0;
	bool ended = false;

	ws_json_use_arena();
	/* `weightscan ... | head` ends quietly */
	signal(SIGPIPE, SIG_DFL);
	if (!rest)
		return WS_EXIT_INTERNAL;

	/* Common options may stand anywhere before `--`; the first other
	 * word names the command unless it is a PATH. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (ended || a[0] != '-' || !a[1]) {
			if (!cmd && nrest == 0 && !ended) {
				if (!strcmp(a, "help")) {
					int rc = help_command(argv + i + 1, argc - i - 1);
					free(rest);
					return rc;
				}
				if ((cmd = find_command(a)))
					continue;
				const cmd_entry *near = mistyped(a);
				if (near) {
					free(rest);
					return ws_cli_usage_error("unknown command '%s'; did you mean '%s'? (a path "
								  "named so: ./%s)", a, near->name, a);
				}
			}
			rest[nrest++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			ended = true;
			rest[nrest++] = argv[i];
		} else if (!strcmp(a, "--json")) {
			cli.format = WS_OUT_JSON;
		} else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < argc ? argv[++i] : NULL);
			if (set_format(&cli, v)) {
				free(rest);
				return WS_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			cli.quiet = true;
		} else if (!strcmp(a, "--no-color")) {
			no_color = true;
		} else if (!strcmp(a, "--component") || !strncmp(a, "--component=", 12)) {
			cli.component = a[11] == '=' ? a + 12 : (i + 1 < argc ? argv[++i] : NULL);
			if (!cli.component || !*cli.component) {
				free(rest);
				return ws_cli_usage_error("--component needs a NAME");
			}
		} else if (!strcmp(a, "--allow-full-download")) {
			cli.allow_full_download = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			if (cmd)
				command_help(stdout, cmd);
			else
				usage(stdout);
			free(rest);
			return fflush(stdout) ? WS_EXIT_INTERNAL : WS_EXIT_OK;
		} else if (!strcmp(a, "--version")) {
			puts("weightscan " WS_VERSION);
			free(rest);
			return fflush(stdout) ? WS_EXIT_INTERNAL : WS_EXIT_OK;
		} else {
			rest[nrest++] = argv[i]; /* the command's own option */
		}
	}
	cli.color = !no_color && isatty(STDOUT_FILENO);
	cli.progress = !cli.quiet && isatty(STDERR_FILENO);
	if (!cmd)
		cmd = &commands[0];
	static const char *const by_component[] = {"inspect", "ls", "diff", "scan", "flops"};
	bool component_ok = false;
	for (size_t k = 0; k < sizeof by_component / sizeof *by_component; k++)
		component_ok |= !strcmp(cmd->name, by_component[k]);
	if (cli.component && !component_ok) {
		free(rest);
		return ws_cli_usage_error("%s: --component is for inspect, ls, diff, scan and flops",
					  cmd->name);
	}
	if (!ws_out_supported(cmd->name, cli.format)) {
		free(rest);
		return ws_cli_usage_error("%s: --format %s is for inspect and check", cmd->name,
					  cli.format == WS_OUT_SARIF ? "sarif" : "github");
	}

	/* argv for the command: its name, then its words and options */
	char **cargv = calloc((size_t)nrest + 2, sizeof *cargv);
	if (!cargv) {
		free(rest);
		return WS_EXIT_INTERNAL;
	}
	cargv[0] = (char *)cmd->name;
	memcpy(cargv + 1, rest, (size_t)nrest * sizeof *rest);
	int rc = WS_EXIT_INTERNAL;
	if (cli.format != WS_OUT_SARIF || (cli.sarif = ws_sarif_new()))
		rc = cmd->fn(&cli, nrest + 1, cargv);
	/* one SARIF log per invocation, even when every PATH failed */
	if (cli.sarif && rc != WS_EXIT_USAGE && ws_sarif_write(cli.sarif, stdout, rc))
		rc = WS_EXIT_INTERNAL;
	ws_sarif_free(cli.sarif);
	free(cargv);
	free(rest);
	/* a failed write is an internal error, not a silent success */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fputs("weightscan: error writing output\n", stderr);
		rc = WS_EXIT_INTERNAL;
	}
	/* The library's helper threads end with the process: leaving
	 * without its clean-up (a destructor that wakes each helper and
	 * waits for it to leave) saves about 0.1 ms a run.  Every stream is
	 * flushed or closed by now.  Under AddressSanitizer the normal exit
	 * runs its leak check. */
#ifndef __SANITIZE_ADDRESS__
	fflush(stderr);
	quick_exit(rc);
#endif
	return rc;
}
