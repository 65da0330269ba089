/*
 * output.h - findings for code-scanning dashboards and CI logs:
 * SARIF 2.1.0 (--format sarif) and GitHub workflow commands
 * (--format github).
 *
 * SARIF is one log per invocation with one run: uploaders (GitHub code
 * scanning among them) want a single run per tool and category, so every
 * PATH's results go into that run, each located in its own file.  main.c
 * creates the log before the command runs and writes it afterwards; a
 * PATH that cannot be read becomes a toolExecutionNotification, so stdout
 * is valid SARIF whatever happened (except usage errors, exit 2, which
 * print nothing).  GitHub annotations are streamed, one line per finding.
 */
#ifndef WS_CLI_OUTPUT_H
#define WS_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

typedef struct ws_sarif ws_sarif;

/* NULL on OOM. */
ws_sarif *ws_sarif_new(void);
void ws_sarif_free(ws_sarif *s);
/* A model's findings as results.  0, or -1 on OOM. */
int ws_sarif_add_model(ws_sarif *s, const char *path, const ws_model *m);
/* A PATH that failed (exit 3/4) as an error notification.  0 or -1. */
int ws_sarif_add_error(ws_sarif *s, const char *path, const ws_error *e);
/* The whole log, pretty-printed, then a newline.  0, or -1 on OOM or a
 * write error. */
int ws_sarif_write(ws_sarif *s, FILE *f, int exit_code);

/* `::error file=...,title=CODE::message` per finding.  0 or -1. */
int ws_github_model(FILE *f, const char *path, const ws_model *m);
int ws_github_error(FILE *f, const char *path, const ws_error *e);

/* Does this command speak --format sarif|github? */
bool ws_out_supported(const char *command, enum ws_out_format fmt);
/* Is cli->format one of the findings formats (sarif, github)? */
bool ws_out_findings_format(const ws_cli *cli);
/* Emit m's findings in cli->format (sarif: into cli->sarif).  0, or
 * WS_EXIT_INTERNAL. */
int ws_out_model(const ws_cli *cli, const char *path, const ws_model *m);

/* --quiet text: one `PATH: severity code: message` line per finding and
 * nothing else (the exit status says the rest). */
void ws_out_findings_quiet(FILE *f, const char *path, const ws_model *m);

#endif
