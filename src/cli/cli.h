/*
 * cli.h - what the CLI's command files share.
 *
 * main.c strips the common options (--json, --format, --quiet, --no-color,
 * -h, --version) and calls the command with the rest of argv; argv[0] is
 * the command name.  A command returns its exit code (enum ws_exit).
 */
#ifndef WS_CLI_H
#define WS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/remote.h"

enum ws_out_format { WS_OUT_TEXT, WS_OUT_JSON, WS_OUT_SARIF, WS_OUT_GITHUB };

typedef struct ws_cli {
	enum ws_out_format format;
	bool quiet;
	bool color;       /* stdout is a terminal and colour not disabled */
	bool progress;    /* stderr is a terminal */
	FILE *out;        /* stdout */
	bool allow_full_download; /* remote: accept a server ignoring Range */
	struct ws_sarif *sarif; /* --format sarif: the log main.c writes at exit */
	const char *component;  /* --component NAME, or NULL: the whole model */
} ws_cli;

typedef int (*ws_cmd_fn)(const ws_cli *cli, int argc, char **argv);

/* Print "weightscan: ..." to stderr and return WS_EXIT_USAGE. */
int ws_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a failed PATH: text to stderr, or a JSON error object on stdout
 * when cli->format is JSON.  Returns e->code. */
int ws_cli_report_error(const ws_cli *cli, const char *command,
			const char *path, const ws_error *e);
/* Add "error": {kind, status?, file, offset, message} to o; 0 or -1. */
int ws_cli_json_error(cJSON *o, const ws_error *e);
/* A JSON object with the keys every object carries (weightscan, schema,
 * command, path). */
cJSON *ws_cli_json_header(const char *command, const char *path);
/* A model the command is done with: the one done with before it is freed
 * now, this one is left to the process's exit, which takes back its
 * memory and descriptors at once (freeing a 191-shard model piece by piece
 * was 4% of a run).  It stays reachable, so leak checkers are quiet. */
void ws_cli_done_with(ws_model *m);
/* --component: keep only that component of an analyzed model; 0, or
 * the failure reported and its exit code. */
int ws_cli_select_component(const ws_cli *cli, const char *command, const char *path,
			    ws_model *m);
/* The worse of two exit codes (4 > 3 > 1 > 0; 2 is usage). */
int ws_exit_worst(int a, int b);
/* Parse a non-negative integer option value; -1 and a usage message when
 * it is not one. */
int ws_cli_parse_u64(const char *opt, const char *s, uint64_t *out);

/* Value of an option given as "-o V", "-oV", "--opt V" or "--opt=V":
 * 1 when argv[*i] is this option (value in *val, NULL when missing). */
int ws_cli_opt_value(int argc, char **argv, int *i, const char *shrt,
		     const char *lng, const char **val);
/* -j N: 1 to 256 threads; 0, or WS_EXIT_USAGE with a message. */
int ws_cli_parse_jobs(const char *cmd, const char *val, unsigned *threads);

/* Commands (one file each under src/cli/). */
int ws_cmd_inspect(const ws_cli *cli, int argc, char **argv);
int ws_cmd_ls(const ws_cli *cli, int argc, char **argv);
int ws_cmd_meta(const ws_cli *cli, int argc, char **argv);
int ws_cmd_check(const ws_cli *cli, int argc, char **argv);
int ws_cmd_formula(const ws_cli *cli, int argc, char **argv);
int ws_cmd_hash(const ws_cli *cli, int argc, char **argv);
int ws_cmd_verify(const ws_cli *cli, int argc, char **argv);
int ws_cmd_report(const ws_cli *cli, int argc, char **argv);
int ws_cmd_diff(const ws_cli *cli, int argc, char **argv);
int ws_cmd_scan(const ws_cli *cli, int argc, char **argv);
int ws_cmd_flops(const ws_cli *cli, int argc, char **argv);

#endif
