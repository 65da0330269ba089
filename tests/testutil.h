/* testutil.h - helpers shared by the Criterion suites. */
#ifndef WS_TESTUTIL_H
#define WS_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ws_run {
	int status;     /* exit code, or 128+signal */
	char *out;      /* stdout, NUL-terminated */
	char *err;      /* stderr, NUL-terminated */
} ws_run;

/* The JSON file at path, parsed whole; asserts. */
struct cJSON *ws_load_json(const char *path);
/* A config's architecture and formula; asserts a known type and success. */
struct ws_arch;
struct ws_formula;
void ws_formula_of(const struct cJSON *cfg, struct ws_arch *a, struct ws_formula *f);
/* Run argv[0..] (NULL-terminated) with stdin from /dev/null. */
ws_run ws_run_argv(char *const argv[]);
/* Run the weightscan CLI ($WS_BIN) with a NULL-terminated list of args. */
ws_run ws_run_cli(const char *arg0, ...) __attribute__((sentinel));
void ws_run_free(ws_run *r);

/* $WS_SHARED/realdata/<rel> when ../shared exists, else NULL (skip). */
char *ws_shared_path(const char *rel);
/* $WS_TESTDATA/<rel>. */
char *ws_testdata_path(const char *rel);
/* A fresh temporary directory (removed by ws_rmtree). */
char *ws_tmpdir(void);
void ws_rmtree(const char *dir);
/* Write bytes to dir/name; returns the malloc'd path. */
char *ws_write_file(const char *dir, const char *name, const void *data, size_t len);
/* A safetensors file dir/name: the 8-byte length, header[0..hl), then
 * `data` zero bytes; returns the malloc'd path. */
char *ws_write_safetensors(const char *dir, const char *name, const char *header, size_t hl,
			   size_t data);
/* Run $WS_MKFIXTURE with args (NULL-terminated); asserts exit 0. */
void ws_mkfixture(const char *arg0, ...) __attribute__((sentinel));
/* Join two path parts (malloc'd). */
char *ws_join(const char *a, const char *b);
/* Can a pseudo-terminal be opened here?  (Not in a chroot without
 * /dev/pts: tests that need one skip themselves.) */
bool ws_have_pty(void);
/* Does haystack contain needle? */
bool ws_contains(const char *haystack, const char *needle);

#endif
