/* gen.h - what the fixture generators in tools/ share: fatal errors,
 * checked allocation and whole writes. */
#ifndef WS_GEN_H
#define WS_GEN_H

#include <stddef.h>

/* Print "PROGRAM: message" to stderr and exit 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* realloc that dies instead of returning NULL. */
void *xrealloc(void *p, size_t n);
/* write every byte or die naming `what`. */
void write_all(int fd, const void *buf, size_t len, const char *what);
/* open PATH for writing (created, truncated) or die. */
int create_file(const char *path);

#endif
