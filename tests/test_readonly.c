/* test_readonly.c - model files are opened O_RDONLY, mapped PROT_READ and
 * never written; tensor data is read with pread, so a file that shrinks
 * under us is an error, not SIGBUS. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/hash.h"

/* The permissions of the mapping that covers addr, from /proc/self/maps. */
static void
map_perms(const void *addr, char out[5])
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	strcpy(out, "????");
	cr_assert(f);
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		char perms[5];
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    (unsigned long)addr >= lo && (unsigned long)addr < hi) {
			memcpy(out, perms, 5);
			break;
		}
	}
	fclose(f);
}

/* Every file O_RDONLY; a header over WS_HEADER_READ_MAX is a private
 * read-only mapping, a smaller one a copy read with pread; returns how
 * many headers were mapped. */
static unsigned
check_files(const char *path)
{
	ws_model *m;
	ws_error err = {0};
	unsigned mapped = 0;
	cr_assert_eq(ws_model_open(path, NULL, &m, &err), 0, "%s", err.message);
	for (uint32_t i = 0; i < m->n_files; i++) {
		const ws_file *f = &m->files[i];
		int fl = fcntl(f->fd, F_GETFL);
		cr_expect_eq(fl & O_ACCMODE, O_RDONLY, "file %u not O_RDONLY", i);
		if (!f->map) {
			cr_expect_leq(f->header_bytes, WS_HEADER_READ_MAX, "a %llu-byte header not kept",
				      (unsigned long long)f->header_bytes);
			continue;
		}
		cr_expect_eq(f->map_copied, f->map_len <= WS_HEADER_READ_MAX,
			     "a %llu-byte header %s", (unsigned long long)f->map_len,
			     f->map_copied ? "was copied" : "was mapped");
		if (f->map_copied)
			continue;
		char perms[5];
		map_perms(f->map, perms);
		cr_expect_eq(perms[0], 'r');
		cr_expect_eq(perms[1], '-', "mapping is writable: %s", perms);
		cr_expect_eq(perms[3], 'p', "mapping is shared: %s", perms);
		mapped++;
	}
	ws_model_free(m);
	return mapped;
}

Test(readonly, descriptors_and_mappings_are_read_only)
{
	char *tiny = ws_testdata_path("tiny-llama");
	cr_expect_eq(check_files(tiny), 0, "a small header is read, not mapped");
	free(tiny);

	/* 1,200 layers of a tiny Llama: a header of over 100 KB is mapped */
	char *dir = ws_tmpdir();
	static const char cfg[] =
		"{\"architectures\":[\"LlamaForCausalLM\"],\"model_type\":\"llama\","
		"\"vocab_size\":16,\"hidden_size\":8,\"intermediate_size\":8,"
		"\"num_hidden_layers\":1200,\"num_attention_heads\":2,"
		"\"num_key_value_heads\":1,\"tie_word_embeddings\":true}";
	char *cp = ws_write_file(dir, "config.json", cfg, sizeof cfg - 1);
	char *out = ws_join(dir, "deep");
	ws_mkfixture("sparse", out, cp, NULL);
	cr_expect_eq(check_files(out), 1, "the large header is mapped");
	free(out);
	free(cp);
	free(dir);
}

static char *
digest_of(const char *path)
{
	char *argv[] = {"/usr/bin/sha256sum", (char *)path, NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0);
	char *d = strndup(r.out, 64);
	ws_run_free(&r);
	return d;
}

Test(readonly, no_command_changes_a_model_file)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	char *model = ws_join(dir, "model.safetensors");
	char *manifest = ws_join(dir, "MANIFEST");
	struct stat before, after;
	cr_assert_eq(stat(model, &before), 0);
	char *d0 = digest_of(model);
	static const char *const cmds[][4] = {
		{"inspect", NULL}, {"ls", NULL}, {"meta", NULL}, {"check", NULL},
		{"hash", "--per-tensor", NULL}, {"verify", NULL},
	};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		const char *a1 = cmds[i][0], *a2 = cmds[i][1] ? cmds[i][1] : dir;
		const char *a3 = cmds[i][1] ? dir : NULL;
		ws_run r;
		if (!strcmp(a1, "hash"))
			r = ws_run_cli(a1, a2, a3, "-o", manifest, NULL);
		else if (!strcmp(a1, "verify"))
			r = ws_run_cli(a1, manifest, NULL);
		else
			r = ws_run_cli(a1, a2, a3, NULL);
		cr_expect_eq(r.status, 0, "%s: %s", a1, r.err);
		ws_run_free(&r);
	}
	cr_assert_eq(stat(model, &after), 0);
	char *d1 = digest_of(model);
	cr_expect_str_eq(d0, d1, "content changed");
	cr_expect_eq(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	cr_expect_eq(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec, "mtime changed");
	free(d0);
	free(d1);
	free(model);
	free(manifest);
	ws_rmtree(dir);
	free(dir);
}

Test(readonly, a_file_that_shrinks_is_an_error_not_sigbus)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, "--tied", NULL);
	/* a tied config with a stored head makes check compare bytes */
	char *model = ws_join(dir, "model.safetensors");
	ws_model *m;
	ws_error err = {0};
	ws_mkfixture("tiny", dir, NULL);
	char *cfg = ws_join(dir, "config.json");
	FILE *f = fopen(cfg, "r+");
	char buf[2048];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	char *t = strstr(buf, "\"tie_word_embeddings\": false");
	cr_assert(t);
	memcpy(t, "\"tie_word_embeddings\": true ", 28);
	rewind(f);
	fwrite(buf, 1, n, f);
	fclose(f);
	cr_assert_eq(ws_model_open(dir, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_model_analyze(m, &err), 0, "%s", err.message);
	/* cut the data section in half under the open model */
	cr_assert_eq(truncate(model, (off_t)(m->files[0].header_bytes + 100)), 0);
	cr_expect_eq(ws_model_compare_data(m, &err), -1);
	cr_expect_eq(err.code, WS_EXIT_INPUT);
	cr_expect(ws_contains(err.message, "short read"), "%s", err.message);
	/* the streaming hasher says the same */
	ws_hash_job job = {.path = model, .fd = -1, .offset = m->files[0].data_start,
			   .length = 4096, .algos = WS_HASH_XXH128};
	ws_error herr = {0};
	ws_hash_run(&job, 1, 1, NULL, NULL, &herr);
	cr_expect_eq(job.status, WS_JOB_ERROR, "status %d", job.status);
	ws_model_free(m);
	free(cfg);
	free(model);
	ws_rmtree(dir);
	free(dir);
}
