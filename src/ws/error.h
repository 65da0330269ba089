/*
 * ws/error.h - errors are values: how the library makes them.
 *
 * Deep code never prints: it fills a ws_error and returns -1.  The CLI
 * turns the error into "FILE: offset N: what is wrong" and its exit code.
 */
#ifndef WS_ERROR_H
#define WS_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* enum ws_exit, ws_error, ws_error_format, ws_error_kind: the public
 * part */
#include "weightscan/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What kind of failure (SPEC JSON "error.kind"): set where the error is
 * made; the constructors give the usual one (ws_err_at: malformed; ws_err
 * with exit 3: unreadable, with exit 4: internal). */
enum ws_err_kind {
	WS_ERRK_NONE = 0,
	WS_ERRK_NOT_FOUND,
	WS_ERRK_TRUNCATED,
	WS_ERRK_MALFORMED,
	WS_ERRK_LFS_POINTER,
	WS_ERRK_NOT_WEIGHTS,
	WS_ERRK_UNREADABLE,
	WS_ERRK_USAGE,
	WS_ERRK_HTTP,           /* with http_status */
	WS_ERRK_GATED,
	WS_ERRK_NETWORK,
	WS_ERRK_INTERNAL,
	WS_ERRK_COUNT
};

/* Set an input error (exit 3) at a byte offset of FILE.  Returns -1. */
int ws_err_at(ws_error *e, const char *file, uint64_t offset,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Set an error with no offset (code 3 or 4).  Returns -1. */
int ws_err(ws_error *e, int code, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Out of memory (exit 4).  Returns -1. */
int ws_err_oom(ws_error *e, const char *file);
/* Set e's kind (after one of the constructors); returns -1 for chaining:
 * `return ws_err_kind(ws_err_at(...), e, WS_ERRK_TRUNCATED);` */
int ws_err_kind(int rc, ws_error *e, int kind);
/* An open or stat that failed with errno: not-found or unreadable. */
int ws_err_errno(ws_error *e, const char *file, int errnum, const char *what);
/* "not-found", "truncated", ...: the JSON name of a kind. */
const char *ws_err_kind_name(int kind);

#ifdef __cplusplus
}
#endif
#endif
