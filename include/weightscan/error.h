/*
 * weightscan/error.h - errors are values.
 *
 * Deep code never prints: it fills a ws_error and returns -1.  The CLI
 * turns the error into "FILE: offset N: what is wrong" and its exit code.
 */
#ifndef WEIGHTSCAN_ERROR_H
#define WEIGHTSCAN_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of SPEC "Exit status"; also the error codes. */
enum ws_exit {
	WS_EXIT_OK = 0,
	WS_EXIT_FINDINGS = 1,
	WS_EXIT_USAGE = 2,
	WS_EXIT_INPUT = 3,
	WS_EXIT_INTERNAL = 4,
};

typedef struct ws_error {
	int code;            /* enum ws_exit; 0 when no error */
	bool has_offset;
	uint64_t offset;
	char file[1024];
	char message[512];
} ws_error;

/* Set an input error (exit 3) at a byte offset of FILE.  Returns -1. */
int ws_err_at(ws_error *e, const char *file, uint64_t offset,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Set an error with no offset (code 3 or 4).  Returns -1. */
int ws_err(ws_error *e, int code, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Out of memory (exit 4).  Returns -1. */
int ws_err_oom(ws_error *e, const char *file);
/* "FILE: offset N: message" (file and offset parts only when known). */
void ws_error_format(const ws_error *e, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
