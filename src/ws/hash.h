/*
 * ws/hash.h - streaming hashes, manifests and their verification.
 *
 * Data is read with pread into bounded per-thread buffers, never through a
 * mapping, so a file that shrinks under us is an error value, not SIGBUS.
 * Jobs (a byte range of one file, plus the tensors inside it) run on a
 * small thread pool; a job computes every digest it asks for in one pass.
 *
 * Manifest lines are those of `xxhsum -H2` / `sha256sum`:
 *   <hex>  <name>            hex = 32 (XXH3-128, canonical big-endian) or
 *                            64 (SHA-256) lowercase digits
 *   \<hex>  <escaped name>   when the name holds '\\', LF, CR or NUL
 *                            (escaped as \\ \n \r \0, coreutils style)
 *   <hex>  tensor:<name>     XXH3-128 of one tensor's data bytes
 */
#ifndef WS_HASH_H
#define WS_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WS_XXH128_LEN 16
#define WS_SHA256_LEN 32
#define WS_SHA1_LEN 20
/* Per-thread read buffer, the only memory hashing needs besides states.
 * Small enough that pread's copy stays in L2: 128 KiB reads a cached
 * 1 GiB file ~1.4x faster than 1-2 MiB buffers (readahead is the kernel's
 * job, POSIX_FADV_SEQUENTIAL asks for it). */
#define WS_HASH_BUF (128u * 1024u)

enum ws_hash_algo {
	WS_HASH_XXH128 = 1u << 0,
	WS_HASH_SHA256 = 1u << 1,
	WS_HASH_SHA1 = 1u << 2,
	/* SHA-1 of "blob <size>\0" + content: a git blob id (HF small files) */
	WS_HASH_GITBLOB = 1u << 3,
	/* the other digests `xxhsum` writes, read back by verify */
	WS_HASH_XXH32 = 1u << 4,
	WS_HASH_XXH64 = 1u << 5,
	WS_HASH_XXH3_64 = 1u << 6,
};

typedef struct ws_digest {
	uint8_t xxh128[WS_XXH128_LEN];
	uint8_t sha256[WS_SHA256_LEN];
	uint8_t sha1[WS_SHA1_LEN];    /* SHA1 or GITBLOB, whichever was asked */
	uint8_t xxh32[4], xxh64[8], xxh3_64[8]; /* canonical (big-endian) */
} ws_digest;

/* A range inside a job's range (a tensor), hashed in the same pass
 * (XXH3-128, or SHA-256 when the job's sub_sha256 is set).  Subs of one
 * job must be sorted by offset. */
typedef struct ws_hash_sub {
	uint64_t offset;               /* absolute, in the job's file */
	uint64_t length;
	uint8_t xxh128[WS_XXH128_LEN]; /* result */
	uint8_t sha256[WS_SHA256_LEN]; /* result, with sub_sha256 */
} ws_hash_sub;

enum ws_job_status {
	WS_JOB_PENDING = 0,
	WS_JOB_OK,
	WS_JOB_MISSING, /* the file does not exist (ENOENT, ENOTDIR) */
	WS_JOB_ERROR,   /* unreadable, shrank, sub out of range: see err */
};

#define WS_HASH_TO_END UINT64_MAX

typedef struct ws_hash_job {
	const char *path;      /* opened when fd < 0; named in errors */
	int fd;                /* an open descriptor to pread, or -1 */
	uint64_t offset;
	uint64_t length;       /* WS_HASH_TO_END: to the size fstat reports */
	unsigned algos;        /* enum ws_hash_algo bits */
	ws_hash_sub *subs;
	size_t n_subs;
	bool sub_sha256;       /* subs get SHA-256 instead of XXH3-128 */
	/* results */
	int status;            /* enum ws_job_status */
	uint64_t size;         /* bytes hashed */
	ws_digest digest;
	ws_error err;
} ws_hash_job;

/* Called from the calling thread about every 100 ms while jobs run. */
typedef void (*ws_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Online cores (at least 1). */
unsigned ws_hash_default_threads(void);

/*
 * Run the jobs on up to `threads` threads (0 = online cores).  Each job
 * gets its own status; returns 0, or -1 with err set when the pool itself
 * could not start (exit 4).
 */
int ws_hash_run(ws_hash_job *jobs, size_t n, unsigned threads,
		ws_progress_fn progress, void *ctx, ws_error *err);

/* Lowercase hex of n bytes into out (2n+1 bytes). */
void ws_hex(const uint8_t *d, size_t n, char *out);
/* Parse 2n hex digits (either case) into n bytes; false on a non-digit. */
bool ws_unhex(const char *s, size_t n, uint8_t *out);

/*
 * A Git LFS pointer ("version https://git-lfs.github.com/spec/v1", "oid
 * sha256:<64 hex>", "size <n>")?  Fills oid_hex (65 bytes) and size.
 */
bool ws_lfs_pointer_parse(const char *buf, size_t len, char oid_hex[65],
			  uint64_t *size);
/* The diagnosis text of a pointer: "an LFS pointer for a N-byte file with
 * sha256 X; the weights were not downloaded". */
void ws_lfs_message(const char *oid_hex, uint64_t size, char *buf, size_t len);

/* ==== manifest lines ==== */

/* Write one line: digest (n bytes) and prefix+name, escaped when needed.
 * Returns 0 or -1 on a write error. */
int ws_manifest_put_line(FILE *f, const uint8_t *digest, size_t n,
			 const char *prefix, const char *name, size_t len);

/*
 * Lines verify reads: the GNU form `<hex>  <name>` (the digest told by its
 * length: 8 XXH32, 16 XXH64, 32 XXH3-128, 40 SHA-1, 64 SHA-256; xxhsum's
 * `XXH3_<16 hex>` is XXH3-64) and the BSD form `ALGO (<name>) = <hex>`
 * (`sha256sum --tag`, `xxhsum --tag`: SHA256, SHA1, XXH32, XXH64, XXH3,
 * XXH128, each with `_LE` for xxhsum's little-endian digests), either
 * escaped with a leading backslash.
 */
typedef struct ws_manifest_entry {
	char *name;            /* unescaped; "tensor:" removed for tensors */
	size_t name_len;
	bool tensor;
	unsigned algo;         /* one enum ws_hash_algo bit */
	bool little_endian;    /* xxhsum --little-endian: digest bytes reversed */
	uint8_t digest[WS_SHA256_LEN];
	size_t line;           /* 1-based */
} ws_manifest_entry;

/* Digest bytes of one algorithm (enum ws_hash_algo bit), and its name as
 * BSD lines spell it. */
size_t ws_hash_algo_len(unsigned algo);
const char *ws_hash_algo_name(unsigned algo);
/* The digest of one algorithm in d (canonical byte order). */
const uint8_t *ws_digest_of(const ws_digest *d, unsigned algo);

typedef struct ws_manifest {
	ws_manifest_entry *entries;
	size_t n, cap;
	size_t malformed;      /* improperly formatted lines */
	size_t first_malformed;/* 1-based line number of the first, or 0 */
} ws_manifest;

/* Parse manifest text (need not be NUL-terminated).  Malformed lines are
 * counted, not fatal.  -1 only on OOM. */
int ws_manifest_parse(const char *text, size_t len, ws_manifest *m,
		      ws_error *err);
void ws_manifest_free(ws_manifest *m);

/* ==== hash: PATHs to manifest lines ==== */

typedef struct ws_hash_opts {
	unsigned threads;      /* 0 = online cores */
	bool per_tensor;       /* add tensor: lines */
	bool sha256;           /* compute SHA-256 of files as well */
	ws_progress_fn progress;
	void *progress_ctx;
} ws_hash_opts;

typedef struct ws_hash_line {
	char *name;            /* file path (relative or as given) or tensor */
	size_t name_len;
	bool tensor;
	uint64_t size;         /* files: bytes; tensors: data bytes */
	size_t file;           /* tensors: the index of their file's line */
	uint8_t xxh128[WS_XXH128_LEN];
	uint8_t sha256[WS_SHA256_LEN]; /* with opts.sha256 (tensors too) */
} ws_hash_line;

typedef struct ws_hash_set {
	ws_hash_line *lines;   /* files first (in PATH order), then tensors */
	size_t n, cap;
	bool has_sha256;
} ws_hash_set;

/*
 * Hash every PATH: a plain file as itself; a safetensors/GGUF file, index
 * or folder through ws_model_open() (its files, plus its index.json and
 * config.json when PATH is a folder or an index).  File names are made
 * relative to base_dir when it is not NULL, else kept as given.  Returns
 * 0, or -1 with err (exit 3 for input, 4 for OOM).
 */
int ws_hash_paths(const char *const *paths, size_t n_paths,
		  const char *base_dir, const ws_hash_opts *o,
		  ws_hash_set *out, ws_error *err);
void ws_hash_set_free(ws_hash_set *s);

enum ws_hash_print {
	WS_PRINT_FILES_XXH = 1u << 0,
	WS_PRINT_FILES_SHA256 = 1u << 1,
	WS_PRINT_TENSORS = 1u << 2,
};
/* Print the chosen lines; 0 or -1 on a write error.  Tensor lines carry
 * SHA-256 when the set has it. */
int ws_hash_print(FILE *f, const ws_hash_set *s, unsigned what);
/*
 * Write MANIFEST atomically (temporary file + rename) with the file lines
 * (SHA-256 when the set has them, else XXH3-128), and the tensor lines,
 * if any, in MANIFEST.tensors: MANIFEST alone stays readable by
 * `xxhsum -c` / `sha256sum -c`.  0 or -1 with err (exit 4).
 */
int ws_hash_write_manifest(const char *path, const ws_hash_set *s,
			   ws_error *err);

/* ==== verify ==== */

enum ws_verify_state {
	WS_VERIFY_OK,
	WS_VERIFY_FAILED,      /* digest differs */
	WS_VERIFY_MISSING,     /* absent (or an LFS pointer in its place) */
	WS_VERIFY_UNREADABLE,  /* read error, file shrank: exit 3 */
	WS_VERIFY_IGNORED,     /* missing under --ignore-missing */
};

/* Why an entry is not OK, beyond its state: counted apart in the
 * summary so that a half-finished download is told from a corrupt one. */
enum ws_verify_why {
	WS_WHY_NONE = 0,
	WS_WHY_MISMATCH,       /* the digest differs */
	WS_WHY_TRUNCATED,      /* shorter than its header says */
	WS_WHY_PARTIAL,        /* an interrupted download (*.incomplete) */
	WS_WHY_LFS,            /* a Git LFS pointer: not downloaded */
	WS_WHY_ABSENT,         /* no such file (or a dangling link) */
	WS_WHY_COUNT
};

typedef struct ws_verify_item {
	char *name;            /* as in the manifest (tensor: prefix removed) */
	size_t name_len;
	bool tensor;
	int state;             /* enum ws_verify_state */
	int why;               /* enum ws_verify_why */
	char *detail;          /* why, ending with what to do, or NULL */
} ws_verify_item;

typedef struct ws_verify_result {
	ws_verify_item *items; /* manifest order */
	size_t n, cap;
	size_t ok, failed, missing, unreadable, ignored, malformed;
	size_t by_why[WS_WHY_COUNT];
	size_t first_malformed;
} ws_verify_result;

/* "truncated", "partially downloaded", ...: the summary's words; and the
 * JSON kind ("truncated", "partial", "lfs-pointer", ...). */
const char *ws_verify_why_name(int why);
const char *ws_verify_why_kind(int why);

typedef struct ws_verify_opts {
	unsigned threads;
	bool ignore_missing;
	ws_progress_fn progress;
	void *progress_ctx;
} ws_verify_opts;

/*
 * Verify a manifest (file or tensor lines, XXH3-128 or SHA-256), or a
 * folder with no manifest: a Hugging Face cache folder (models--org--name
 * or one of its snapshots; files checked against their blob names) or a
 * folder of Git LFS pointers.  Per-entry states land in res.  Returns 0,
 * or -1 with err when there is nothing to verify (no well-formed line,
 * exit 3), the manifest is unreadable (3) or on OOM (4).
 */
int ws_verify_path(const char *path, const ws_verify_opts *o,
		   ws_verify_result *res, ws_error *err);
int ws_verify_manifest(const char *path, const ws_verify_opts *o,
		       ws_verify_result *res, ws_error *err);
int ws_verify_dir(const char *dir, const ws_verify_opts *o,
		  ws_verify_result *res, ws_error *err);
void ws_verify_result_free(ws_verify_result *r);

#ifdef __cplusplus
}
#endif
#endif
