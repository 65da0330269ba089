/*
 * sniff.c - "this is not a weight file": the diagnoses users need most
 * (research/safetensors.md (e): almost every HeaderTooLarge is a Git LFS
 * pointer, an HTML or JSON error page, or a pickle).
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "ws/util.h"

static bool
starts(const uint8_t *h, uint64_t len, const char *prefix)
{
	size_t k = strlen(prefix);
	return len >= k && memcmp(h, prefix, k) == 0;
}

/* The LFS pointer's size and oid, if present, into the message. */
static int
lfs_pointer(const char *path, const uint8_t *h, uint64_t len, ws_error *err)
{
	char oid[65] = "";
	unsigned long long size = 0;
	bool have_size = false;
	uint64_t i = 0;

	while (i < len && i < 1024) {
		uint64_t e = i;
		while (e < len && h[e] != '\n')
			e++;
		const char *line = (const char *)h + i;
		size_t ll = (size_t)(e - i);
		if (ll > 11 && !memcmp(line, "oid sha256:", 11)) {
			size_t k = 0;
			while (k < 64 && 11 + k < ll && isxdigit((unsigned char)line[11 + k])) {
				oid[k] = line[11 + k];
				k++;
			}
			oid[k == 64 ? 64 : 0] = '\0';
		} else if (ll > 5 && !memcmp(line, "size ", 5)) {
			size = 0;
			have_size = true;
			for (size_t k = 5; k < ll; k++) {
				if (!isdigit((unsigned char)line[k]) ||
				    size > (~0ull - 9) / 10) {
					have_size = false;
					break;
				}
				size = size * 10 + (unsigned long long)(line[k] - '0');
			}
		}
		i = e + 1;
	}
	if (have_size && oid[0]) {
		char nb[32];
		return ws_err_kind(ws_err_at(err, path, 0,
					     "an LFS pointer for a %s-byte file with sha256 %s; "
					     "the weights were not downloaded: run `git lfs pull` in "
					     "the checkout", ws_fmt_commas(size, nb, sizeof nb), oid),
				   err, WS_ERRK_LFS_POINTER);
	}
	return ws_err_kind(ws_err_at(err, path, 0,
				     "a Git LFS pointer file; the weights were not downloaded: run "
				     "`git lfs pull` in the checkout"), err, WS_ERRK_LFS_POINTER);
}

int
ws_sniff(const char *path, const uint8_t *h, uint64_t len, uint64_t file_size,
	 ws_error *err)
{
	if (file_size == 0)
		return ws_err_kind(ws_err_at(err, path, 0, "empty file (0 bytes): download it again"),
				   err, WS_ERRK_TRUNCATED);
	if (starts(h, len, "version https://git-lfs"))
		return lfs_pointer(path, h, len, err);

	uint64_t i = 0;
	while (i < len && i < 512 && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' ||
				       h[i] == '\r'))
		i++;
	const char *rest = (const char *)h + i;
	uint64_t rl = len - i;
	if (rl >= 5 && (!strncasecmp(rest, "<!doc", 5) || !strncasecmp(rest, "<html", 5) ||
			!strncasecmp(rest, "<?xml", 5) || !strncasecmp(rest, "<head", 5)))
		return ws_err_kind(ws_err_at(err, path, i,
					     "an HTML/XML page, not weights (an error page saved in "
					     "place of the download?): download it again"),
				   err, WS_ERRK_NOT_WEIGHTS);
	/* A valid safetensors file starts with a u64 length < 100 MB, so its
	 * bytes 4..7 are zero; a JSON page starts with '{' plus text. */
	if (rl >= 2 && (rest[0] == '{' || rest[0] == '[') && len >= 8 &&
	    (h[5] | h[6] | h[7]) != 0)
		return ws_err_kind(ws_err_at(err, path, i,
					     "a JSON document, not weights (an error page or a config "
					     "saved in place of the download?): download it again"),
				   err, WS_ERRK_NOT_WEIGHTS);
	if (starts(h, len, "PK\x03\x04"))
		return ws_err_kind(ws_err_at(err, path, 0,
					     "a zip archive (a PyTorch .bin/.pt checkpoint?); not parsed: "
					     "convert it to safetensors (transformers: save_pretrained with "
					     "safe_serialization=True) or give the .safetensors file"),
				   err, WS_ERRK_NOT_WEIGHTS);
	if (len >= 2 && h[0] == 0x80 && h[1] >= 2 && h[1] <= 5)
		return ws_err_kind(ws_err_at(err, path, 0,
					     "a Python pickle (a PyTorch checkpoint?); not parsed: convert "
					     "it to safetensors (transformers: save_pretrained with "
					     "safe_serialization=True) or give the .safetensors file"),
				   err, WS_ERRK_NOT_WEIGHTS);
	return 0;
}
