/* error.c - error values: filled deep down, printed once by the CLI. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weightscan/error.h"

static void
set_file(ws_error *e, const char *file)
{
	if (!file)
		file = "";
	snprintf(e->file, sizeof e->file, "%s", file);
}

int
ws_err_at(ws_error *e, const char *file, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->code = 3;
	e->has_offset = true;
	e->offset = offset;
	set_file(e, file);
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	return -1;
}

int
ws_err(ws_error *e, int code, const char *file, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	e->code = code;
	e->has_offset = false;
	e->offset = 0;
	set_file(e, file);
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	return -1;
}

int
ws_err_oom(ws_error *e, const char *file)
{
	return ws_err(e, WS_EXIT_INTERNAL, file, "out of memory");
}

void
ws_error_format(const ws_error *e, char *buf, size_t len)
{
	if (e->file[0] && e->has_offset)
		snprintf(buf, len, "%s: offset %llu: %s", e->file,
			 (unsigned long long)e->offset, e->message);
	else if (e->file[0])
		snprintf(buf, len, "%s: %s", e->file, e->message);
	else
		snprintf(buf, len, "%s", e->message);
}
