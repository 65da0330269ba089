/*
 * test_verify.c - verify checks that a download is complete, not only
 * that the bytes present hash right: Hugging Face cache folders with an
 * interrupted blob, `hf download --local-dir` folders, truncated shards,
 * split sets with a part missing; and the manifest forms of sha256sum,
 * sha1sum and xxhsum, and the JSON objects of hash and verify.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "ws/hash.h"
#include "ws/util.h"

/* A two-shard checkpoint: a (4 F32) in shard 1, b (1024 F32) in shard 2. */
#define SHARD1_HDR "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}"
#define SHARD2_HDR "{\"b\":{\"dtype\":\"F32\",\"shape\":[1024],\"data_offsets\":[0,4096]}}"
#define SHARD1 "model-00001-of-00002.safetensors"
#define SHARD2 "model-00002-of-00002.safetensors"
#define INDEX_JSON                                                            \
	"{\"metadata\":{\"total_size\":4112},\"weight_map\":{\"a\":\"" SHARD1 \
	"\",\"b\":\"" SHARD2 "\"}}"
#define SHARD2_SIZE (8 + sizeof SHARD2_HDR - 1 + 4096)

static void
write_checkpoint(const char *dir)
{
	free(ws_write_safetensors(dir, SHARD1, SHARD1_HDR, sizeof SHARD1_HDR - 1, 16));
	free(ws_write_safetensors(dir, SHARD2, SHARD2_HDR, sizeof SHARD2_HDR - 1, 4096));
	free(ws_write_file(dir, "model.safetensors.index.json", INDEX_JSON, sizeof INDEX_JSON - 1));
	free(ws_write_file(dir, "config.json", "{\"model_type\":\"llama\"}\n", 23));
}

/* The hex digest of a file, as the Hub names its blob. */
static char *
digest_hex(const char *path, unsigned algo)
{
	ws_hash_job j = {.path = path, .fd = -1, .length = WS_HASH_TO_END, .algos = algo};
	ws_error err = {0};
	cr_assert_eq(ws_hash_run(&j, 1, 1, NULL, NULL, &err), 0);
	cr_assert_eq(j.status, WS_JOB_OK, "%s", j.err.message);
	size_t n = ws_hash_algo_len(algo);
	char *hex = malloc(2 * n + 1);
	ws_hex(ws_digest_of(&j.digest, algo), n, hex);
	return hex;
}

/* Move dir/name into the cache's blobs under its hash and link it from
 * the snapshot, as huggingface_hub does. */
static void
cache_file(const char *src, const char *cache, const char *snap, const char *name, unsigned algo)
{
	char *from = ws_join(src, name);
	char *hex = digest_hex(from, algo);
	char *blob, *link, *target;
	cr_assert(asprintf(&blob, "%s/blobs/%s", cache, hex) > 0);
	cr_assert(asprintf(&link, "%s/%s", snap, name) > 0);
	cr_assert(asprintf(&target, "../../blobs/%s", hex) > 0);
	cr_assert_eq(rename(from, blob), 0);
	cr_assert_eq(symlink(target, link), 0);
	free(from), free(hex), free(blob), free(link), free(target);
}

/* models--org--name with refs/main -> rev; every file of the checkpoint
 * but shard 2 linked; returns the cache folder.  *src keeps shard 2. */
static char *
make_cache(char **src)
{
	char *top = ws_tmpdir();
	*src = ws_join(top, "src");
	char *cache = ws_join(top, "models--org--name");
	char *snap = ws_join(cache, "snapshots/0123abcd");
	char *cmd;
	cr_assert(asprintf(&cmd, "mkdir -p '%s' '%s/blobs' '%s/refs' '%s'", *src, cache, cache, snap) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	write_checkpoint(*src);
	free(ws_write_file(cache, "refs/main", "0123abcd", 8));
	cache_file(*src, cache, snap, SHARD1, WS_HASH_SHA256);
	cache_file(*src, cache, snap, "model.safetensors.index.json", WS_HASH_GITBLOB);
	cache_file(*src, cache, snap, "config.json", WS_HASH_GITBLOB);
	free(snap);
	free(top);
	return cache;
}

/* The first n bytes of src/name as a file elsewhere. */
static void
copy_prefix(const char *src, const char *name, const char *dst, size_t n)
{
	char *from = ws_join(src, name);
	FILE *f = fopen(from, "rb");
	cr_assert(f);
	char *buf = calloc(1, n + 1);
	cr_assert_eq(fread(buf, 1, n, f), n);
	fclose(f);
	FILE *g = fopen(dst, "wb");
	cr_assert(g);
	cr_assert_eq(fwrite(buf, 1, n, g), n);
	fclose(g);
	free(buf);
	free(from);
}

static void
top_rmtree(const char *cache)
{
	char *top = strdup(cache);
	*strrchr(top, '/') = '\0';
	ws_rmtree(top);
	free(top);
}

Test(verify_cache, interrupted_download_is_missing_partially_downloaded)
{
	char *src;
	char *cache = make_cache(&src);
	/* shard 2 interrupted after its header and 100 data bytes */
	char *inc;
	cr_assert(asprintf(&inc, "%s/blobs/%064d.incomplete", cache, 7) > 0);
	size_t got = 8 + sizeof SHARD2_HDR - 1 + 100;
	copy_prefix(src, SHARD2, inc, got);

	ws_run r = ws_run_cli("verify", cache, NULL);
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, SHARD1 ": OK"), "%s", r.out);
	char want[256];
	snprintf(want, sizeof want, SHARD2 ": MISSING (partially downloaded: %zu of %zu bytes",
		 got, (size_t)SHARD2_SIZE);
	cr_assert(ws_contains(r.out, want), "%s", r.out);
	cr_assert(ws_contains(r.out, "run the download again"), "%s", r.out);
	cr_assert(ws_contains(r.out, "1 MISSING (1 partially downloaded)"), "%s", r.out);
	ws_run_free(&r);

	/* --ignore-missing never hides a shard the index names */
	r = ws_run_cli("verify", "--ignore-missing", cache, NULL);
	cr_assert_eq(r.status, 1, "%s", r.out);
	cr_assert(ws_contains(r.out, SHARD2 ": MISSING"), "%s", r.out);
	ws_run_free(&r);

	/* before the header has arrived: named beside the missing shard */
	copy_prefix(src, SHARD2, inc, 4);
	r = ws_run_cli("verify", cache, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, SHARD2 ": MISSING (not downloaded"), "%s", r.out);
	cr_assert(ws_contains(r.out, ".incomplete (4 B so far)"), "%s", r.out);
	ws_run_free(&r);

	/* the download finished: complete and intact */
	unlink(inc);
	char *snap = ws_join(cache, "snapshots/0123abcd");
	cache_file(src, cache, snap, SHARD2, WS_HASH_SHA256);
	r = ws_run_cli("verify", cache, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "4 OK, 0 FAILED, 0 MISSING\n"), "%s", r.out);
	cr_assert_not(ws_contains(r.err, "\r"), "no progress when not a terminal");
	ws_run_free(&r);

	/* a blob that went missing behind its link */
	char *linked = ws_join(snap, SHARD1);
	char *blob = digest_hex(linked, WS_HASH_SHA256);
	free(linked);
	char *bp;
	cr_assert(asprintf(&bp, "%s/blobs/%s", cache, blob) > 0);
	cr_assert_eq(unlink(bp), 0);
	r = ws_run_cli("verify", cache, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, SHARD1 ": MISSING (the snapshot links to"), "%s", r.out);
	ws_run_free(&r);
	free(bp), free(blob), free(snap), free(inc), free(src);
	top_rmtree(cache);
	free(cache);
}

/* hf download --local-dir DIR: the etags in .cache/huggingface/download */
static void
write_metadata(const char *dir, const char *name, unsigned algo)
{
	char *p = ws_join(dir, name);
	char *hex = digest_hex(p, algo);
	char *meta, *text;
	cr_assert(asprintf(&meta, ".cache/huggingface/download/%s.metadata", name) > 0);
	cr_assert(asprintf(&text, "0123abcd0123abcd0123abcd0123abcd0123abcd\n%s\n1712656091.123\n", hex) > 0);
	free(ws_write_file(dir, meta, text, strlen(text)));
	free(p), free(hex), free(meta), free(text);
}

Test(verify_localdir, etags_checked_and_partial_download_named)
{
	char *dir = ws_tmpdir();
	char *cmd;
	cr_assert(asprintf(&cmd, "mkdir -p '%s/.cache/huggingface/download'", dir) > 0);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	write_checkpoint(dir);
	write_metadata(dir, SHARD1, WS_HASH_SHA256);
	write_metadata(dir, SHARD2, WS_HASH_SHA256);
	write_metadata(dir, "model.safetensors.index.json", WS_HASH_GITBLOB);
	write_metadata(dir, "config.json", WS_HASH_GITBLOB);
	ws_run r = ws_run_cli("verify", dir, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "4 OK, 0 FAILED, 0 MISSING"), "%s", r.out);
	ws_run_free(&r);

	/* a changed byte: the recorded etag no longer matches */
	char *s1 = ws_join(dir, SHARD1);
	FILE *f = fopen(s1, "r+b");
	fseek(f, -1, SEEK_END);
	fputc(1, f);
	fclose(f);
	r = ws_run_cli("verify", dir, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, SHARD1 ": FAILED (SHA256 checksum differs"), "%s", r.out);
	cr_assert(ws_contains(r.out, "(1 checksum mismatch)"), "%s", r.out);
	ws_run_free(&r);

	/* shard 2 still downloading: huggingface_hub's <hash>.<etag>.incomplete */
	char *s2 = ws_join(dir, SHARD2), *inc;
	cr_assert(asprintf(&inc, "%s/.cache/huggingface/download/abc123.%064d.incomplete", dir, 9) > 0);
	size_t got = SHARD2_SIZE - 1000;
	copy_prefix(dir, SHARD2, inc, got);
	cr_assert_eq(unlink(s2), 0);
	r = ws_run_cli("verify", dir, NULL);
	cr_assert_eq(r.status, 1);
	char want[160];
	snprintf(want, sizeof want, SHARD2 ": MISSING (partially downloaded: %zu of %zu bytes", got,
		 (size_t)SHARD2_SIZE);
	cr_assert(ws_contains(r.out, want), "%s", r.out);
	ws_run_free(&r);
	free(inc), free(s1), free(s2);
	ws_rmtree(dir);
	free(dir);
}

Test(verify_dir, truncated_shard_and_missing_split_part)
{
	char *dir = ws_tmpdir();
	write_checkpoint(dir);
	ws_run r = ws_run_cli("verify", dir, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, SHARD2 ": OK"), "%s", r.out);
	ws_run_free(&r);

	char *s2 = ws_join(dir, SHARD2);
	cr_assert_eq(truncate(s2, SHARD2_SIZE - 96), 0);
	r = ws_run_cli("verify", dir, NULL);
	cr_assert_eq(r.status, 1, "%s", r.out);
	char want[160];
	snprintf(want, sizeof want, SHARD2 ": FAILED (truncated at %zu of %zu bytes",
		 (size_t)SHARD2_SIZE - 96, (size_t)SHARD2_SIZE);
	cr_assert(ws_contains(r.out, want), "%s", r.out);
	cr_assert(ws_contains(r.out, "(1 truncated)"), "%s", r.out);
	ws_run_free(&r);

	/* the same under a manifest: truncated, not a checksum mismatch */
	cr_assert_eq(truncate(s2, SHARD2_SIZE), 0);
	char *man = ws_join(dir, "SUMS");
	r = ws_run_cli("hash", "-o", man, dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	cr_assert_eq(truncate(s2, SHARD2_SIZE - 96), 0);
	r = ws_run_cli("verify", man, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, want), "%s", r.out);
	ws_run_free(&r);

	/* a GGUF split set with a part absent */
	char *gdir = ws_tmpdir();
	char *gen[] = {getenv("WS_MKGGUF"), "valid", gdir, NULL};
	cr_assert(gen[0]);
	ws_run g = ws_run_argv(gen);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	char *part = ws_join(gdir, "tiny-split-00002-of-00003.gguf");
	cr_assert_eq(unlink(part), 0);
	r = ws_run_cli("verify", gdir, NULL);
	cr_assert_eq(r.status, 1, "%s", r.out);
	cr_assert(ws_contains(r.out, "tiny-split-00002-of-00003.gguf: MISSING (not downloaded: its split set names it"),
		  "%s", r.out);
	cr_assert(ws_contains(r.out, "tiny-split-00003-of-00003.gguf: OK"), "%s", r.out);
	ws_run_free(&r);
	free(part), free(man), free(s2);
	ws_rmtree(gdir);
	free(gdir);
	ws_rmtree(dir);
	free(dir);
}

static bool
have(const char *tool)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "command -v %s >/dev/null 2>&1", tool) > 0);
	int rc = system(cmd);
	free(cmd);
	return rc == 0;
}

static int
sh_status(const char *dir, const char *cmd)
{
	char *full;
	cr_assert(asprintf(&full, "cd '%s' && %s", dir, cmd) > 0);
	int rc = system(full);
	free(full);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

/* Every line form the README says verify reads, written by the tools
 * themselves; each manifest verified OK, and again after a byte changed. */
Test(verify_manifest, reads_sha256sum_sha1sum_and_xxhsum_forms)
{
	char *dir = ws_tmpdir();
	write_checkpoint(dir);
	static const struct {
		const char *tool, *cmd;
	} forms[] = {
		{"sha256sum", "sha256sum " SHARD1 " " SHARD2 " > M"},
		{"sha256sum", "sha256sum --tag " SHARD1 " " SHARD2 " > M"},
		{"sha1sum", "sha1sum " SHARD1 " " SHARD2 " > M"},
		{"sha1sum", "sha1sum --tag " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H0 " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H1 " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H2 " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H3 " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H0 --tag " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H1 --tag " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H2 --tag " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H0 --tag --little-endian " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H1 --tag --little-endian " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H2 --tag --little-endian " SHARD1 " " SHARD2 " > M"},
		{"xxhsum", "xxhsum -H3 --tag --little-endian " SHARD1 " " SHARD2 " > M"},
	};
	char *man = ws_join(dir, "M");
	size_t ran = 0;
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		if (!have(forms[i].tool))
			continue;
		cr_assert_eq(sh_status(dir, forms[i].cmd), 0, "%s", forms[i].cmd);
		ws_run r = ws_run_cli("verify", man, NULL);
		cr_assert_eq(r.status, 0, "%s: %s%s", forms[i].cmd, r.out, r.err);
		cr_assert(ws_contains(r.out, "2 OK, 0 FAILED, 0 MISSING"), "%s: %s", forms[i].cmd, r.out);
		cr_assert_not(ws_contains(r.err, "improperly formatted"), "%s: %s", forms[i].cmd, r.err);
		ws_run_free(&r);
		ran++;
	}
	cr_assert_geq(ran, 4, "sha256sum and sha1sum come with coreutils");
	/* a changed byte is seen through the last form too */
	char *s1 = ws_join(dir, SHARD1);
	FILE *f = fopen(s1, "r+b");
	fseek(f, -1, SEEK_END);
	fputc(7, f);
	fclose(f);
	ws_run r = ws_run_cli("verify", man, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, SHARD1 ": FAILED"), "%s", r.out);
	ws_run_free(&r);
	/* untrusted lines: garbage counted as malformed, no crash */
	free(ws_write_file(dir, "G", "XXH128 (x = 00\nSHA256 () = zz\n\\\\q  \n" "12345678  \n", 39));
	char *g = ws_join(dir, "G");
	r = ws_run_cli("verify", g, NULL);
	free(g);
	cr_assert_eq(r.status, 3, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.err, "no properly formatted checksum lines"), "%s", r.err);
	ws_run_free(&r);
	free(s1), free(man);
	ws_rmtree(dir);
	free(dir);
}

/* hash --sha256 -o writes what sha256sum -c reads; --per-tensor puts the
 * tensor lines in MANIFEST.tensors, so xxhsum -c MANIFEST still works and
 * verify MANIFEST reads both. */
Test(verify_manifest, written_manifests_are_read_by_the_tools)
{
	char *dir = ws_tmpdir();
	write_checkpoint(dir);
	char *man = ws_join(dir, "x.sha256");
	char *s1 = ws_join(dir, SHARD1), *s2 = ws_join(dir, SHARD2);
	ws_run r = ws_run_cli("hash", "--sha256", "-o", man, s1, s2, NULL);
	free(s1), free(s2);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	cr_assert_eq(sh_status(dir, "sha256sum -c --status x.sha256"), 0);
	char *tman = ws_join(dir, "T");
	r = ws_run_cli("hash", "--per-tensor", "-o", tman, dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	if (have("xxhsum"))
		cr_assert_eq(sh_status(dir, "xxhsum -c --status T"), 0);
	r = ws_run_cli("verify", tman, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "tensor:b: OK"), "%s", r.out);
	ws_run_free(&r);
	/* --sha256 --per-tensor: SHA-256 tensor lines */
	r = ws_run_cli("hash", "--sha256", "--per-tensor", "-o", tman, dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	char *tl = ws_join(dir, "T.tensors");
	FILE *f = fopen(tl, "r");
	char line[256] = {0};
	cr_assert(f && fgets(line, sizeof line, f));
	fclose(f);
	cr_assert_eq(strcspn(line, " "), 64, "%s", line);
	r = ws_run_cli("verify", tman, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "tensor:a: OK"), "%s", r.out);
	ws_run_free(&r);
	free(tl), free(tman), free(man);
	ws_rmtree(dir);
	free(dir);
}

Test(verify_json, hash_and_verify_print_one_object_per_line)
{
	char *dir = ws_tmpdir();
	write_checkpoint(dir);
	char *s1 = ws_join(dir, SHARD1);
	ws_run r = ws_run_cli("hash", "--json", "--per-tensor", s1, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o, "%s", r.out);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "command")->valuestring, "hash");
	cr_assert_eq(cJSON_GetObjectItem(o, "size")->valuedouble, 8 + sizeof SHARD1_HDR - 1 + 16);
	cr_assert_eq(strlen(cJSON_GetObjectItem(o, "xxh3_128")->valuestring), 32);
	cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "tensors"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(t, "name")->valuestring, "a");
	cJSON_Delete(o);
	ws_run_free(&r);

	char *man = ws_join(dir, "M");
	r = ws_run_cli("hash", "-o", man, dir, NULL);
	ws_run_free(&r);
	char *s2 = ws_join(dir, SHARD2);
	cr_assert_eq(truncate(s2, 100), 0);
	free(s2);
	r = ws_run_cli("verify", "--json", man, NULL);
	cr_assert_eq(r.status, 1);
	size_t lines = 0, failed = 0;
	for (char *p = r.out, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		cJSON *e = cJSON_Parse(p);
		cr_assert(e, "%s", p);
		cJSON *st = cJSON_GetObjectItem(e, "status");
		if (st && !strcmp(st->valuestring, "FAILED")) {
			failed++;
			cr_assert_str_eq(cJSON_GetObjectItem(e, "kind")->valuestring, "truncated");
		}
		if (!st) { /* the summary, last */
			cr_assert_eq(cJSON_GetObjectItem(e, "failed")->valuedouble, 1);
			cr_assert(cJSON_GetObjectItem(e, "ok"));
			cr_assert(cJSON_GetObjectItem(e, "missing"));
		}
		cJSON_Delete(e);
		lines++;
	}
	cr_assert_eq(failed, 1);
	cr_assert_eq(lines, 5, "4 files and the summary: %zu", lines);
	ws_run_free(&r);
	free(man), free(s1);
	ws_rmtree(dir);
	free(dir);
}

Test(verify_progress, time_left_is_shown_once_the_rate_is_known)
{
	char b[32];
	ws_fmt_eta(0, 100, 1.0, b, sizeof b);
	cr_assert_str_empty(b);
	ws_fmt_eta(50, 100, 10.0, b, sizeof b);
	cr_assert_str_eq(b, "10 s left");
	ws_fmt_eta(10, 100, 60.0, b, sizeof b);
	cr_assert_str_eq(b, "9 min left");
	ws_fmt_eta(1, 1000, 60.0, b, sizeof b);
	cr_assert_str_eq(b, "16.6 h left");
	ws_fmt_eta(100, 100, 5.0, b, sizeof b);
	cr_assert_str_empty(b);
}

/* A file whose header is intact but whose data is short still lists (ls,
 * inspect), then exits 3 saying it is truncated. */
Test(truncated, header_intact_lists_then_exit_3)
{
	char *dir = ws_tmpdir();
	write_checkpoint(dir);
	char *s2 = ws_join(dir, SHARD2), *cfg = ws_join(dir, "config.json");
	cr_assert_eq(unlink(cfg), 0); /* a bare model_type: no architecture */
	free(cfg);
	cr_assert_eq(truncate(s2, SHARD2_SIZE - 96), 0);
	static const char *const cmds[] = {"ls", "inspect"};
	for (size_t i = 0; i < 2; i++) {
		ws_run r = ws_run_cli(cmds[i], s2, NULL);
		cr_assert_eq(r.status, 3, "%s: %s", cmds[i], r.err);
		cr_assert(ws_contains(r.out, "b"), "%s listed nothing", cmds[i]);
		char want[128];
		snprintf(want, sizeof want, "offset %zu: truncated at %zu of %zu bytes",
			 (size_t)SHARD2_SIZE - 96, (size_t)SHARD2_SIZE - 96, (size_t)SHARD2_SIZE);
		cr_assert(ws_contains(r.err, want), "%s: %s", cmds[i], r.err);
		ws_run_free(&r);
	}
	/* commands that need the data refuse it as before */
	ws_run r = ws_run_cli("scan", s2, NULL);
	cr_assert_eq(r.status, 3);
	ws_run_free(&r);
	/* a header that is itself cut short is not listed */
	cr_assert_eq(truncate(s2, 20), 0);
	r = ws_run_cli("ls", s2, NULL);
	cr_assert_eq(r.status, 3);
	cr_assert_str_empty(r.out);
	ws_run_free(&r);
	free(s2);
	ws_rmtree(dir);
	free(dir);
}

/* `weightscan org/name` finds the snapshot in the local Hugging Face
 * cache as the hf CLI does: HF_HUB_CACHE, else HF_HOME/hub. */
Test(hf_cache, org_name_resolves_in_the_local_cache)
{
	char *src;
	char *cache = make_cache(&src);
	char *snap = ws_join(cache, "snapshots/0123abcd");
	cache_file(src, cache, snap, SHARD2, WS_HASH_SHA256);
	char *hub = strdup(cache);
	*strrchr(hub, '/') = '\0';
	setenv("HF_HUB_CACHE", hub, 1);
	/* (meta: the test checkpoint's config names no architecture) */
	ws_run r = ws_run_cli("meta", "org/name", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "models--org--name/snapshots/0123abcd/config.json"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("verify", "org/name", NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "4 OK"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("hash", "org/name", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	/* HF_HOME/hub when HF_HUB_CACHE is not set; the top folder of the
	 * test's cache plays HF_HOME once it is called hub */
	unsetenv("HF_HUB_CACHE");
	char *home = strdup(hub), *hubdir;
	*strrchr(home, '/') = '\0';
	cr_assert(asprintf(&hubdir, "%s/hub", home) > 0);
	cr_assert_eq(rename(hub, hubdir), 0);
	setenv("HF_HOME", home, 1);
	r = ws_run_cli("meta", "org/name", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	/* not in the cache: a missing PATH, as before */
	r = ws_run_cli("meta", "org/other", NULL);
	cr_expect_eq(r.status, 3);
	ws_run_free(&r);
	unsetenv("HF_HOME");
	cr_assert_eq(rename(hubdir, hub), 0);
	free(hubdir), free(home), free(hub), free(snap), free(src);
	top_rmtree(cache);
	free(cache);
}
