/*
 * compare_data.c - comparisons that read tensor data: streamed with pread
 * in bounded buffers, never through the header mapping.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "ws/formula.h"

#define CMP_CHUNK (1u << 20)

static int
read_at(const ws_model *m, const ws_tensor *t, uint64_t off, void *buf, size_t len,
	ws_error *err)
{
	const ws_file *f = &m->files[t->file];
	size_t got = 0;
	if (ws_file_is_remote(f))
		return ws_remote_needs_data(m->path, "comparing tensor bytes", err);
	while (got < len) {
		ssize_t n = pread(f->fd, (char *)buf + got, len - got,
				  (off_t)(t->offset + off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ws_err_at(err, f->path, t->offset + off + got,
					 "short read: the file ends before the tensor's data (truncated since it was opened?)");
		got += (size_t)n;
	}
	return 0;
}

int
ws_ranges_equal(const ws_model *m, const ws_tensor *a, const ws_tensor *b, ws_error *err)
{
	if (a->bytes != b->bytes)
		return 0;
	char *x = malloc(CMP_CHUNK), *y = malloc(CMP_CHUNK);
	int rc = 1;
	if (!x || !y) {
		rc = ws_err_oom(err, m->path);
		goto out;
	}
	for (uint64_t off = 0; off < a->bytes; off += CMP_CHUNK) {
		size_t n = a->bytes - off < CMP_CHUNK ? (size_t)(a->bytes - off) : CMP_CHUNK;
		if (read_at(m, a, off, x, n, err) || read_at(m, b, off, y, n, err)) {
			rc = -1;
			goto out;
		}
		if (memcmp(x, y, n)) {
			rc = 0;
			goto out;
		}
	}
out:
	free(x);
	free(y);
	return rc;
}

static ws_tensor *
find_role(ws_model *m, ws_role role)
{
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].role == role && m->tensors[i].kind == WS_KIND_WEIGHT &&
		    m->tensors[i].layer < 0)
			return &m->tensors[i];
	return NULL;
}

static int
compare_data(ws_model *m, ws_error *err)
{
	if (!m->arch || !ws_sw_has(&m->arch->flags, WS_ARCH_TIED))
		return 0;
	ws_tensor *head = find_role(m, WS_ROLE_LM_HEAD), *emb = find_role(m, WS_ROLE_EMBED);
	if (!head || !emb)
		return 0;
	/* a remote header view has no data: compare's "not compared" warning
	 * stands */
	if (ws_file_is_remote(&m->files[head->file]) || ws_file_is_remote(&m->files[emb->file]))
		return 0;
	int eq = head->dtype == emb->dtype && head->elements == emb->elements
			 ? ws_ranges_equal(m, head, emb, err) : 0;
	if (eq < 0)
		return -1;
	/* the comparison replaces compare's "not compared" finding */
	size_t k = 0;
	for (size_t i = 0; i < m->n_findings; i++) {
		if (!strcmp(m->findings[i].code, "tied-embeddings")) {
			free(m->findings[i].message);
			free(m->findings[i].tensor);
			continue;
		}
		m->findings[k++] = m->findings[i];
	}
	m->n_findings = k;
	if (eq) {
		/* a redundant copy of a tied head: counted once, in its
		 * component's total too */
		if (head->component < m->n_components)
			m->components[head->component].params -= head->params;
		head->params = 0;
		if (ws_model_add_finding(m, WS_SEV_WARNING, "tied-embeddings", head->name,
					 WS_ROLE_LM_HEAD, -1, false, 0, 0,
					 "config ties the embeddings and '%s' is stored with identical bytes: counted once",
					 head->name) < 0)
			return ws_err_oom(err, m->path);
		return 0;
	}
	if (ws_model_add_finding(m, WS_SEV_ERROR, "tied-embeddings", head->name,
				 WS_ROLE_LM_HEAD, -1, false, 0, 0,
				 "config ties the embeddings but '%s' differs from the embedding: loaders drop this trained head",
				 head->name) < 0)
		return ws_err_oom(err, m->path);
	return 0;
}

int
ws_model_compare_data(ws_model *m, ws_error *err)
{
	if (compare_data(m, err))
		return -1;
	return ws_model_findings_ok(m, err);
}
