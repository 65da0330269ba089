/*
 * output.c - SARIF 2.1.0 logs and GitHub workflow annotations for the
 * findings of inspect and check (see output.h for the shape).
 *
 * Everything printed here comes from untrusted files and paths: SARIF goes
 * through cJSON (valid UTF-8 via ws_json_bytes, URIs percent-encoded), and
 * annotations escape what the workflow-command parser would act on.
 */
#include <stdlib.h>
#include <string.h>

#include "xxh.h"

#include "output.h"
#include "ws/report.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

/* ==== rules: the library's table of finding codes ==== */


static const char *const sarif_levels[] = {
	[WS_SEV_INFO] = "note", [WS_SEV_WARNING] = "warning", [WS_SEV_ERROR] = "error",
};
static const char *const github_levels[] = {
	[WS_SEV_INFO] = "notice", [WS_SEV_WARNING] = "warning", [WS_SEV_ERROR] = "error",
};

static int
rule_index(const char *code)
{
	size_t n;
	const ws_finding_code *codes = ws_finding_codes(&n);
	const ws_finding_code *c = ws_finding_code_find(code);
	return c ? (int)(c - codes) : -1;
}

/* Commands that speak the findings formats; one line each. */
static const struct {
	const char *command;
} findings_commands[] = {
	{"inspect"},
	{"check"},
};

bool
ws_out_supported(const char *command, enum ws_out_format fmt)
{
	if (fmt != WS_OUT_SARIF && fmt != WS_OUT_GITHUB)
		return true;
	for (size_t i = 0; i < sizeof findings_commands / sizeof findings_commands[0]; i++)
		if (!strcmp(findings_commands[i].command, command))
			return true;
	return false;
}

bool
ws_out_findings_format(const ws_cli *cli)
{
	return cli->format == WS_OUT_SARIF || cli->format == WS_OUT_GITHUB;
}

/* ==== where a finding sits ==== */

static const ws_tensor *
find_tensor(const ws_model *m, const char *name)
{
	for (uint64_t i = 0; name && i < m->n_tensors; i++)
		if (!strcmp(m->tensors[i].name, name))
			return &m->tensors[i];
	return NULL;
}

/* The file a finding belongs to: the shard holding its tensor, else the
 * checkpoint's one file, its index, its config, or the PATH as given. */
static const char *
finding_file(const ws_model *m, const char *path, const ws_finding *f,
	     const ws_tensor **tensor)
{
	const ws_tensor *t = find_tensor(m, f->tensor);
	*tensor = t;
	if (t && t->file < m->n_files)
		return m->files[t->file].path;
	if (m->n_files == 1)
		return m->files[0].path;
	if (m->index_path)
		return m->index_path;
	if (m->config_path)
		return m->config_path;
	return path;
}

/* ==== SARIF ==== */

struct ws_sarif {
	cJSON *log;
	cJSON *artifacts, *results, *notifications;
};

/* A URI reference for a path: relative paths stay relative (to be
 * resolved against %SRCROOT%, the repository, by uploaders), absolute
 * ones become file:// URIs; bytes outside RFC 3986 unreserved and '/'
 * are percent-encoded, so the result is ASCII whatever the path holds. */
static char *
path_uri(const char *path, bool *relative)
{
	static const char hex[] = "0123456789ABCDEF";
	while (path[0] == '.' && path[1] == '/')
		path += 2 + strspn(path + 2, "/");
	*relative = path[0] != '/';
	size_t n = strlen(path);
	char *u = malloc(3 * n + 8), *o = u;
	if (!u)
		return NULL;
	if (!*relative)
		o = stpcpy(o, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return u;
}

/* {"uri": ..., "uriBaseId"?: ..., "index"?: n} */
static cJSON *
artifact_location(const char *path, int index)
{
	bool rel;
	char *uri = path_uri(path, &rel);
	cJSON *a = uri ? cJSON_CreateObject() : NULL;
	if (a) {
		cJSON_AddStringToObject(a, "uri", uri);
		if (rel)
			cJSON_AddStringToObject(a, "uriBaseId", "%SRCROOT%");
		if (index >= 0)
			ws_json_add_u64(a, "index", (uint64_t)index);
	}
	free(uri);
	return a;
}

/* The artifacts[] index of path, added when new; -1 on OOM. */
static int
artifact_index(ws_sarif *s, const char *path, bool have_size, uint64_t size)
{
	bool rel;
	char *uri = path_uri(path, &rel);
	if (!uri)
		return -1;
	int i = 0;
	for (cJSON *a = s->artifacts->child; a; a = a->next, i++) {
		const cJSON *loc = cJSON_GetObjectItemCaseSensitive(a, "location");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(loc, "uri");
		if (cJSON_IsString(u) && !strcmp(u->valuestring, uri)) {
			free(uri);
			return i;
		}
	}
	free(uri);
	cJSON *a = cJSON_CreateObject();
	cJSON *loc = artifact_location(path, -1);
	if (!a || !loc) {
		cJSON_Delete(a);
		cJSON_Delete(loc);
		return -1;
	}
	cJSON_AddItemToObject(a, "location", loc);
	if (have_size)
		ws_json_add_u64(a, "length", size);
	cJSON_AddItemToArray(s->artifacts, a);
	return i;
}

static cJSON *
text_message(const char *s)
{
	cJSON *msg = cJSON_CreateObject();
	cJSON *t = msg ? ws_json_bytes(s, strlen(s)) : NULL;
	if (!t) {
		cJSON_Delete(msg);
		return NULL;
	}
	cJSON_AddItemToObject(msg, "text", t);
	return msg;
}

static cJSON *
driver_rules(void)
{
	cJSON *arr = cJSON_CreateArray();
	size_t n;
	const ws_finding_code *codes = ws_finding_codes(&n);
	for (size_t i = 0; arr && i < n; i++) {
		const ws_finding_code *r = &codes[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "id", r->code);
		cJSON_AddStringToObject(o, "name", r->rule);
		cJSON_AddItemToObject(o, "shortDescription", text_message(r->text));
		cJSON *dc = cJSON_AddObjectToObject(o, "defaultConfiguration");
		if (dc)
			cJSON_AddStringToObject(dc, "level", sarif_levels[r->severity]);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

ws_sarif *
ws_sarif_new(void)
{
	ws_sarif *s = calloc(1, sizeof *s);
	cJSON *log = cJSON_CreateObject();
	if (!s || !log)
		goto err;
	s->log = log;
	cJSON_AddStringToObject(log, "$schema", SARIF_SCHEMA);
	cJSON_AddStringToObject(log, "version", "2.1.0");
	cJSON *runs = cJSON_AddArrayToObject(log, "runs");
	cJSON *run = cJSON_CreateObject();
	if (!runs || !run) {
		cJSON_Delete(run);
		goto err;
	}
	cJSON_AddItemToArray(runs, run);
	cJSON *tool = cJSON_AddObjectToObject(run, "tool");
	cJSON *drv = tool ? cJSON_AddObjectToObject(tool, "driver") : NULL;
	if (!drv)
		goto err;
	cJSON_AddStringToObject(drv, "name", "weightscan");
	cJSON_AddStringToObject(drv, "version", WS_VERSION);
	cJSON_AddStringToObject(drv, "semanticVersion", WS_VERSION);
	cJSON_AddItemToObject(drv, "rules", driver_rules());
	s->artifacts = cJSON_AddArrayToObject(run, "artifacts");
	s->results = cJSON_AddArrayToObject(run, "results");
	s->notifications = cJSON_CreateArray();
	if (!s->artifacts || !s->results || !s->notifications)
		goto err;
	return s;
err:
	ws_sarif_free(s);
	return NULL;
}

void
ws_sarif_free(ws_sarif *s)
{
	if (!s)
		return;
	cJSON_Delete(s->log);
	cJSON_Delete(s->notifications);
	free(s);
}

/* A fingerprint from what the finding is about, not from the file's
 * bytes: uploaders otherwise hash "source lines" of a binary file. */
static void
fingerprint(cJSON *res, const ws_finding *f, const char *file)
{
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		return;
	XXH3_64bits_reset(st);
	/* not the message: it holds counts that change with the fix */
	const char *parts[] = {f->code, file, f->tensor ? f->tensor : ""};
	char extra[32];
	snprintf(extra, sizeof extra, "%d/%d", f->role, (int)f->layer);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		XXH3_64bits_update(st, parts[i], strlen(parts[i]) + 1);
	XXH3_64bits_update(st, extra, strlen(extra));
	char hex[32];
	snprintf(hex, sizeof hex, "%016llx:1", (unsigned long long)XXH3_64bits_digest(st));
	XXH3_freeState(st);
	cJSON *pf = cJSON_AddObjectToObject(res, "partialFingerprints");
	if (pf)
		cJSON_AddStringToObject(pf, "primaryLocationLineHash", hex);
}

static cJSON *
sarif_result(ws_sarif *s, const char *path, const ws_model *m, const ws_finding *f)
{
	const ws_tensor *t;
	const char *file = finding_file(m, path, f, &t);
	int ai = artifact_index(s, file, false, 0);
	int ri = rule_index(f->code);
	cJSON *res = cJSON_CreateObject();
	if (!res || ai < 0)
		goto err;
	cJSON_AddStringToObject(res, "ruleId", f->code);
	if (ri >= 0)
		ws_json_add_u64(res, "ruleIndex", (uint64_t)ri);
	cJSON_AddStringToObject(res, "level", sarif_levels[f->severity <= WS_SEV_ERROR ? f->severity : WS_SEV_ERROR]);
	cJSON *msg = text_message(f->message);
	if (!msg)
		goto err;
	cJSON_AddItemToObject(res, "message", msg);
	if (f->ignored) {
		/* waived by check --ignore: kept, so a reviewer sees it */
		cJSON *sup = cJSON_AddArrayToObject(res, "suppressions");
		cJSON *so = cJSON_CreateObject();
		if (!sup || !so || !cJSON_AddItemToArray(sup, so)) {
			cJSON_Delete(so);
			goto err;
		}
		cJSON_AddStringToObject(so, "kind", "external");
		if (f->ignored_why)
			ws_json_add_bytes(so, "justification", f->ignored_why, strlen(f->ignored_why));
	}

	cJSON *locs = cJSON_AddArrayToObject(res, "locations");
	cJSON *loc = cJSON_CreateObject();
	if (!locs || !loc) {
		cJSON_Delete(loc);
		goto err;
	}
	cJSON_AddItemToArray(locs, loc);
	cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
	cJSON *al = artifact_location(file, ai);
	if (!phys || !al) {
		cJSON_Delete(al);
		goto err;
	}
	cJSON_AddItemToObject(phys, "artifactLocation", al);
	/* weight files have no lines; code-scanning UIs need a region, so
	 * the result sits at the top of the file and the tensor's bytes are
	 * in properties */
	cJSON *reg = cJSON_AddObjectToObject(phys, "region");
	if (reg)
		ws_json_add_u64(reg, "startLine", 1);
	if (f->tensor) {
		cJSON *ll = cJSON_AddArrayToObject(loc, "logicalLocations");
		cJSON *l = cJSON_CreateObject();
		if (!ll || !l) {
			cJSON_Delete(l);
			goto err;
		}
		cJSON_AddItemToArray(ll, l);
		cJSON_AddItemToObject(l, "name", ws_json_bytes(f->tensor, strlen(f->tensor)));
		cJSON_AddStringToObject(l, "kind", "variable");
	}
	fingerprint(res, f, file);

	cJSON *pr = cJSON_AddObjectToObject(res, "properties");
	if (!pr)
		goto err;
	if (f->tensor)
		cJSON_AddItemToObject(pr, "tensor", ws_json_bytes(f->tensor, strlen(f->tensor)));
	if (f->role >= 0 && f->role < WS_ROLE_COUNT)
		cJSON_AddStringToObject(pr, "role", ws_role_name((ws_role)f->role));
	if (f->layer >= 0)
		ws_json_add_i64(pr, "layer", f->layer);
	if (f->has_expected) {
		ws_json_add_u64(pr, "expected", f->expected);
		ws_json_add_u64(pr, "actual", f->actual);
	}
	if (t) {
		ws_json_add_u64(pr, "byteOffset", t->offset);
		ws_json_add_u64(pr, "byteLength", t->bytes);
	}
	return res;
err:
	cJSON_Delete(res);
	return NULL;
}

int
ws_sarif_add_model(ws_sarif *s, const char *path, const ws_model *m)
{
	/* every file of the checkpoint is an analysis target */
	for (uint32_t i = 0; i < m->n_files; i++) {
		int ai = artifact_index(s, m->files[i].path, true, m->files[i].size);
		if (ai < 0)
			return -1;
		cJSON *a = cJSON_GetArrayItem(s->artifacts, ai);
		if (!cJSON_GetObjectItemCaseSensitive(a, "roles")) {
			cJSON *roles = cJSON_AddArrayToObject(a, "roles");
			if (roles)
				cJSON_AddItemToArray(roles, cJSON_CreateString("analysisTarget"));
		}
	}
	for (size_t i = 0; i < m->n_findings; i++) {
		cJSON *r = sarif_result(s, path, m, &m->findings[i]);
		if (!r)
			return -1;
		cJSON_AddItemToArray(s->results, r);
	}
	return 0;
}

int
ws_sarif_add_error(ws_sarif *s, const char *path, const ws_error *e)
{
	char buf[2048];
	ws_error_format(e, buf, sizeof buf);
	cJSON *n = cJSON_CreateObject();
	cJSON *msg = text_message(buf);
	const char *file = e->file[0] ? e->file : path;
	cJSON *al = artifact_location(file ? file : "", -1);
	if (!n || !msg || !al)
		goto err;
	cJSON_AddStringToObject(n, "level", "error");
	cJSON_AddItemToObject(n, "message", msg);
	msg = NULL;
	cJSON *d = cJSON_AddObjectToObject(n, "descriptor");
	if (d)
		cJSON_AddStringToObject(d, "id", e->code == WS_EXIT_INPUT ? "input-error" : "internal-error");
	cJSON *locs = cJSON_AddArrayToObject(n, "locations");
	cJSON *loc = cJSON_CreateObject();
	cJSON *phys = loc ? cJSON_AddObjectToObject(loc, "physicalLocation") : NULL;
	if (!locs || !phys) {
		cJSON_Delete(loc);
		goto err;
	}
	cJSON_AddItemToArray(locs, loc);
	cJSON_AddItemToObject(phys, "artifactLocation", al);
	al = NULL;
	if (e->has_offset) {
		cJSON *reg = cJSON_AddObjectToObject(phys, "region");
		if (reg)
			ws_json_add_u64(reg, "byteOffset", e->offset);
	}
	cJSON_AddItemToArray(s->notifications, n);
	return 0;
err:
	cJSON_Delete(n);
	cJSON_Delete(msg);
	cJSON_Delete(al);
	return -1;
}

int
ws_sarif_write(ws_sarif *s, FILE *f, int exit_code)
{
	cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->log, "runs"), 0);
	cJSON *inv = cJSON_AddArrayToObject(run, "invocations");
	cJSON *i = cJSON_CreateObject();
	if (!inv || !i) {
		cJSON_Delete(i);
		return -1;
	}
	cJSON_AddItemToArray(inv, i);
	/* 0 and 1 are answers; 3 and 4 mean something could not be read */
	cJSON_AddBoolToObject(i, "executionSuccessful",
			      exit_code == WS_EXIT_OK || exit_code == WS_EXIT_FINDINGS);
	ws_json_add_i64(i, "exitCode", exit_code);
	if (cJSON_GetArraySize(s->notifications)) {
		cJSON_AddItemToObject(i, "toolExecutionNotifications", s->notifications);
		s->notifications = NULL;
	}
	char *text = cJSON_Print(s->log);
	if (!text)
		return -1;
	int rc = (fputs(text, f) < 0 || fputc('\n', f) == EOF) ? -1 : 0;
	cJSON_free(text);
	return rc;
}

/* ==== GitHub workflow commands ==== */

/*
 * The runner splits a command at its first "::" and the properties at ','
 * and '=', and un-escapes %25 %0D %0A (and %3A %2C in properties), so those
 * are what we escape.  Other control bytes (ESC...) and invalid UTF-8 are
 * written as \xNN, as in text output, so a log viewer never sees them.
 */
static void
gh_escape(FILE *f, const char *s, bool property)
{
	size_t len = strlen(s);
	bool utf8 = ws_utf8_valid(s, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '%')
			fputs("%25", f);
		else if (c == '\r')
			fputs("%0D", f);
		else if (c == '\n')
			fputs("%0A", f);
		else if (property && c == ':')
			fputs("%3A", f);
		else if (property && c == ',')
			fputs("%2C", f);
		else if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8))
			fprintf(f, "\\x%02X", c);
		else
			fputc(c, f);
	}
}

static void
gh_line(FILE *f, const char *level, const char *file, const char *title,
	const char *tensor, const char *message)
{
	fprintf(f, "::%s file=", level);
	gh_escape(f, file, true);
	fputs(",title=", f);
	gh_escape(f, title, true);
	fputs("::", f);
	if (tensor) {
		gh_escape(f, tensor, false);
		fputs(": ", f);
	}
	gh_escape(f, message, false);
	fputc('\n', f);
}

int
ws_github_model(FILE *f, const char *path, const ws_model *m)
{
	for (size_t i = 0; i < m->n_findings; i++) {
		const ws_finding *fd = &m->findings[i];
		const ws_tensor *t;
		if (fd->ignored)
			continue;
		const char *file = finding_file(m, path, fd, &t);
		gh_line(f, github_levels[fd->severity <= WS_SEV_ERROR ? fd->severity : WS_SEV_ERROR],
			file, fd->code, fd->tensor, fd->message);
	}
	return ferror(f) ? -1 : 0;
}

int
ws_github_error(FILE *f, const char *path, const ws_error *e)
{
	char buf[2048];
	ws_error_format(e, buf, sizeof buf);
	gh_line(f, "error", e->file[0] ? e->file : path ? path : "",
		e->code == WS_EXIT_INPUT ? "input-error" : "internal-error", NULL, buf);
	return ferror(f) ? -1 : 0;
}

int
ws_out_model(const ws_cli *cli, const char *path, const ws_model *m)
{
	int r = 0;
	if (cli->format == WS_OUT_SARIF)
		r = cli->sarif ? ws_sarif_add_model(cli->sarif, path, m) : -1;
	else if (cli->format == WS_OUT_GITHUB)
		r = ws_github_model(cli->out, path, m);
	return r ? WS_EXIT_INTERNAL : 0;
}

void
ws_out_findings_quiet(FILE *f, const char *path, const ws_model *m)
{
	for (size_t i = 0; i < m->n_findings; i++) {
		const ws_finding *fd = &m->findings[i];
		if (fd->ignored)
			continue;
		ws_fput_escaped(f, path, strlen(path));
		/* messages are built from escaped names: safe to print */
		fprintf(f, ": %s %s: %s\n", ws_severity_name(fd->severity), fd->code, fd->message);
	}
}
