/* error.c - error values: filled deep down, printed once by the CLI. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ws/error.h"

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
	e->kind = WS_ERRK_MALFORMED;
	e->http_status = 0;
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
	e->kind = code == WS_EXIT_INTERNAL ? WS_ERRK_INTERNAL
		: code == WS_EXIT_USAGE ? WS_ERRK_USAGE : WS_ERRK_UNREADABLE;
	e->http_status = 0;
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

static const char *const kind_names[WS_ERRK_COUNT] = {
	[WS_ERRK_NONE] = "", [WS_ERRK_NOT_FOUND] = "not-found",
	[WS_ERRK_TRUNCATED] = "truncated", [WS_ERRK_MALFORMED] = "malformed",
	[WS_ERRK_LFS_POINTER] = "lfs-pointer", [WS_ERRK_NOT_WEIGHTS] = "not-weights",
	[WS_ERRK_UNREADABLE] = "unreadable", [WS_ERRK_USAGE] = "usage",
	[WS_ERRK_HTTP] = "http", [WS_ERRK_GATED] = "gated", [WS_ERRK_NETWORK] = "network",
	[WS_ERRK_INTERNAL] = "internal",
};

const char *
ws_err_kind_name(int kind)
{
	return kind > 0 && kind < WS_ERRK_COUNT ? kind_names[kind] : "unreadable";
}

int
ws_err_kind(int rc, ws_error *e, int kind)
{
	if (e)
		e->kind = kind;
	return rc;
}

int
ws_err_errno(ws_error *e, const char *file, int errnum, const char *what)
{
	ws_err(e, WS_EXIT_INPUT, file, "%s%s%s", what ? what : "", what ? ": " : "",
	       strerror(errnum));
	return ws_err_kind(-1, e, errnum == ENOENT || errnum == ENOTDIR ? WS_ERRK_NOT_FOUND
			   : WS_ERRK_UNREADABLE);
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
