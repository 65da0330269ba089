/*
 * weightscan/error.h - errors are values.
 *
 * A function that fails returns -1 (or NULL) and fills the ws_error the
 * caller passed: the caller owns it, usually on the stack and zeroed
 * ({0}).  It holds no pointer and is never freed.  Its text buffers have
 * a fixed size, the same in every version of the library, so that an
 * out-of-memory error is reported without allocating anything.
 */
#ifndef WEIGHTSCAN_ERROR_H
#define WEIGHTSCAN_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The exit codes of the weightscan command, and the codes of errors. */
enum ws_exit {
	WS_EXIT_OK = 0,
	WS_EXIT_FINDINGS = 1, /* the command's verdict; never an error's code */
	WS_EXIT_USAGE = 2,    /* a bad argument */
	WS_EXIT_INPUT = 3,    /* the input: missing, unreadable, malformed */
	WS_EXIT_INTERNAL = 4, /* out of memory, or a bug */
};

typedef struct ws_error {
	int code;            /* enum ws_exit; 0 when no error */
	int kind;            /* read it with ws_error_kind() */
	long http_status;    /* a remote input's HTTP status, or 0 */
	bool has_offset;     /* offset is the byte of file that is wrong */
	uint64_t offset;
	char file[1024];     /* the file the error is about, or "" */
	char message[512];   /* what is wrong (NUL-terminated) */
} ws_error;

/* "FILE: offset N: message" (the file and offset parts only when known)
 * into buf, NUL-terminated and cut to len bytes. */
void ws_error_format(const ws_error *e, char *buf, size_t len);

/* What kind of failure, as the JSON "error.kind" of the weightscan
 * command names it: "not-found", "truncated", "malformed", "lfs-pointer",
 * "not-weights", "unreadable", "usage", "http", "gated", "network",
 * "internal"; "" when e holds no error.  A static string. */
const char *ws_error_kind(const ws_error *e);

#ifdef __cplusplus
}
#endif
#endif
