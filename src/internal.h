/*
 * internal.h - what the modules of libweightscan share but do not export.
 */
#ifndef WS_INTERNAL_H
#define WS_INTERNAL_H

#include <pthread.h>

#include "ws/model.h"
#include "ws/remote.h"

/* Readers: fill m from one file (safetensors) or a file and its split set
 * (GGUF).  Return 0 or -1 with err set. */
int ws_safetensors_load(ws_model *m, const char *path, ws_error *err);
/* When a safetensors header is scanned in parallel pieces: headers of at
 * least 2 x min_piece bytes, in up to `pieces` pieces (0 = the CPUs this
 * process may use). Tests and fuzzers turn it to tiny pieces to compare
 * the parallel scan with the serial one (min_piece SIZE_MAX). */
extern struct ws_st_parallel {
	size_t min_piece;
	size_t pieces;
	_Atomic unsigned long done; /* headers scanned in pieces, for tests */
	_Atomic unsigned long ahead; /* shards loaded from bytes read ahead */
	_Atomic unsigned long parsed; /* ... and parsed there */
	bool patient;      /* wait for the reader rather than read a shard here
			    * (tests: then every shard is read ahead) */
	uint64_t listing_index; /* an index.json of this many bytes or more: the
				 * reader lists the folder too (tests: 0) */
	size_t name_blocks; /* a header of this many bytes or more copies its
			     * names into 64 KiB blocks of the arena as it reads
			     * them (fuzzers: 0, so that small inputs reach it) */
} ws_st_parallel;
int ws_safetensors_load_at(ws_model *m, int dirfd, const char *name, const char *path,
			   ws_error *err);
/* A shard's first bytes read ahead (another thread opened, stat'ed and
 * read it): load it as ws_safetensors_load_at would have. */
#define WS_ST_FIRST_READ 1024 /* the length and most shards' whole header */
typedef struct ws_st_ahead {
	int fd;            /* O_RDONLY regular file; -1 = not read, load by name */
	uint64_t size;
	size_t len;        /* bytes [0, len) of the file, in more if set, else head */
	uint8_t *more;     /* malloc'd for a header longer than head */
	uint8_t *head;     /* WS_ST_FIRST_READ bytes (the reader's buffer, set
			    * before the read, reused for the next shard) */
	/* parsed there too (ws_safetensors_parse_ahead): its tensors and
	 * __metadata__, names and shapes in that thread's model's arena */
	bool parsed;
	const ws_tensor *t;
	const ws_kv *kv;
	uint64_t nt, nkv, header_bytes;
} ws_st_ahead;
/* Read up to the header's end (at most WS_HEADER_READ_MAX) from an open
 * file; false on any error (the caller loads by name and reports it). */
bool ws_safetensors_read_ahead(ws_st_ahead *a);
/* On the reading thread, after the read: the header parsed into pm (its
 * arena must outlive the model the shard is loaded into), or false when
 * it could not be (a long or a malformed header: the loading thread
 * parses it and says why). */
bool ws_safetensors_parse_ahead(ws_model *pm, ws_st_ahead *a);
/* Takes a->fd, and a->more when it keeps it (then NULL). */
int ws_safetensors_load_ahead(ws_model *m, ws_st_ahead *a, const char *path, ws_error *err);
int ws_safetensors_load_index(ws_model *m, const char *index_path, ws_error *err);
int ws_gguf_load(ws_model *m, const char *path, ws_error *err);
/* One GGUF file alone, never its split set. */
int ws_gguf_load_file(ws_model *m, const char *path, ws_error *err);

/* Room for n more tensors, so a parser that can estimate its count from
 * the bytes in hand avoids growing the array (0, or -1 on OOM). */
int ws_model_reserve_tensors(ws_model *m, uint64_t n);
/* How many more tensors fit before the array moves. */
uint64_t ws_model_tensor_room(const ws_model *m);
/* A safetensors tensor entry takes at least 47 header bytes
 * ("":{"dtype":"U8","shape":[],"data_offsets":[0,0]} and a comma): a
 * header of len bytes holds at most this many. */
#define WS_ST_MAX_TENSORS(len) ((len) / 40 + 1)
/* A new tensor's fields: zero, no layer, no expert. */
static inline void
ws_tensor_init(ws_tensor *t)
{
	*t = (ws_tensor){.layer = -1, .expert = -1};
}
/* from's arena (all ws_model_alloc made there) becomes m's. */
void ws_model_take_arena(ws_model *m, ws_model *from);
/* Room for size bytes of ws_model_alloc in one chunk (0, or -1 on OOM):
 * threads that fill models allocate up front, not while others fault. */
int ws_model_reserve_arena(ws_model *m, size_t size);

/* The model's tensors by name, a hash index (build it after the last
 * tensor is added). dup[0], dup[1]: the first name held twice, as the
 * earlier and the later tensor, or -1. 0, or -1 on OOM. */
typedef struct ws_name_index {
	uint64_t *slots;
	size_t cap;
} ws_name_index;
int ws_name_index_build(const ws_model *m, ws_name_index *ix, int64_t dup[2]);
/* The tensor named name[0..len), or -1. */
int64_t ws_name_index_find(const ws_model *m, const ws_name_index *ix, const char *name,
			   size_t len);
void ws_name_index_free(ws_name_index *ix);

/* Open a file O_RDONLY into m->files without mapping it (index or -1). */
int ws_model_open_file(ws_model *m, const char *path, ws_error *err);
/* The same for name relative to dirfd (one path walk for a whole folder
 * of shards instead of one per shard); path is what messages say. */
int ws_model_open_file_at(ws_model *m, int dirfd, const char *name, const char *path,
			  ws_error *err);
/* name (relative to dirfd) opened O_RDONLY, if it is a regular file: the
 * descriptor and *size, or -1 with *why the step that failed ("cannot
 * open", "cannot stat": errno says why; "not a regular file": errno 0). */
int ws_open_regular(int dirfd, const char *name, uint64_t *size, const char **why);
/* A regular file opened elsewhere (fd O_RDONLY, owned from here on, closed
 * on failure) joins the model; its index, or -1. */
int ws_model_adopt_fd(ws_model *m, int fd, uint64_t size, const char *path, ws_error *err);
/* Map the first len bytes (at most the file size) of an opened file. */
int ws_file_map(ws_file *f, uint64_t len, ws_error *err);
/* Big arrays (the tensor table, name sets): from 1 MiB up straight from
 * mmap, asking for huge pages - a 46,848-tensor header touches ~20 MB,
 * 5,000 faults in 4 KB pages - below that malloc. The caller keeps the
 * size (ws_big_free needs it); ws_big_realloc only grows. */
/* Sizes from this up are mappings of their own (zero-filled, huge pages
 * where the system gives them on request); below, the C heap. */
#define WS_BIG_MIN (1u << 20)
void *ws_big_calloc(size_t size);
void *ws_big_realloc(void *p, size_t old_size, size_t new_size);
void ws_big_free(void *p, size_t size);
/* Whether the CPU has AVX2 / AVX-512F, from glibc's record of it: no CPUID
 * of our own (libgcc's ifunc resolver ran a dozen at every start, and each
 * one exits a virtual machine).  False where there is no such record. */
bool ws_cpu_avx2(void);
bool ws_cpu_avx512f(void);
/* Memory about to be written whole: its pages made now, in one system
 * call, instead of one fault each (a fault costs microseconds in a VM). */
void ws_prefault(void *p, size_t len);
/* The pages of a read-only mapping that is about to be read whole, made
 * now in one system call (a thread its own part: they fault at once). */
void ws_populate_read(const void *p, size_t len);
/* pthread_create for a helper that works beside the caller, kept off the
 * caller's CPU (0, or -1). */
int ws_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);
/* fn(arg, 0) here and fn(arg, k) on up to `helpers` helper threads (k =
 * 1.., in the order they arrive), each started only if it arrives while
 * fn(arg, 0) still runs: fn claims its items itself (an atomic counter),
 * so the caller does every item no helper took, and returns when every
 * fn that started has, without waiting for a helper the scheduler has
 * not run yet. */
void ws_team_run(unsigned helpers, void (*fn)(void *arg, unsigned worker), void *arg);
/* Make ws_team_run's helpers now, ahead of a pass the caller is about to
 * run: they start while it prepares the work. */
void ws_team_warm(unsigned helpers);
/* The helpers a pass over n tensors takes: below 16,384 tensors a second
 * thread costs more than it saves (one bound for every such pass). */
static inline unsigned
ws_team_helpers_for(uint64_t n)
{
	return n >= 16384 ? 1 : 0;
}
/* The same in parts, for a caller that works beside its helpers on
 * something else: ws_team_start makes them (NULL: none could be, or no
 * slot was free; the caller does without), ws_team_close stops any that
 * has not started fn from starting it (true: none had, and none will),
 * ws_team_finish closes and waits for those inside fn, and releases. */
/* munmap(p, len) on a helper of ws_team_run's between its jobs, so that
 * the caller goes on (a large header's pages take a third of a
 * millisecond to unmap); here when no helper is alive or one chore is
 * already waiting. */
void ws_unmap_later(void *p, size_t len);
typedef struct team ws_team;
ws_team *ws_team_start(unsigned helpers, void (*fn)(void *arg, unsigned worker), void *arg);
bool ws_team_close(ws_team *t);
void ws_team_finish(ws_team *t);
/* Exactly len bytes at off, or an error naming the offset reached. */
int ws_file_pread(const ws_file *f, void *buf, size_t len, uint64_t off, ws_error *err);
/* Headers up to this size are read into a copy instead of mapped: for a
 * 191-shard checkpoint of ~700-byte headers, mmap + fault + munmap per shard
 * cost more than all the parsing (tools/bench). Larger ones are mapped. */
#define WS_HEADER_READ_MAX (64u << 10)
/* Headers mapped below this size are populated by mmap; larger ones
 * (two parallel pieces of ws_st_parallel.min_piece) by their readers. */
#define WS_MAP_POPULATE_MAX (512u << 10)
/* f->map = the first len bytes (clamped to the size): have[0..have_len)
 * already read from offset 0, the rest read with pread; mapped instead
 * when len > WS_HEADER_READ_MAX. */
int ws_file_load_prefix(ws_file *f, uint64_t len, const uint8_t *have, size_t have_len,
			ws_error *err);

/* ws_arch_infer into a new allocation (free with ws_arch_free + free);
 * NULL with err set. */
/* A set of roles as wide as the role table (a new role never outgrows a
 * fixed-width mask). */
#define WS_ROLE_WORDS ((WS_ROLE_COUNT + 63) / 64)
typedef struct ws_role_set {
	uint64_t w[WS_ROLE_WORDS];
} ws_role_set;

static inline void
ws_rs_add(ws_role_set *s, int r)
{
	s->w[(unsigned)r / 64] |= 1ull << ((unsigned)r % 64);
}

static inline bool
ws_rs_has(const ws_role_set *s, int r)
{
	return (s->w[(unsigned)r / 64] >> ((unsigned)r % 64)) & 1;
}

/* Is any role of `any` in s? */
static inline bool
ws_rs_any(const ws_role_set *s, const ws_role_set *any)
{
	for (int i = 0; i < WS_ROLE_WORDS; i++)
		if (s->w[i] & any->w[i])
			return true;
	return false;
}

static inline ws_role_set
ws_rs_union(const ws_role_set *a, const ws_role_set *b)
{
	ws_role_set u;
	for (int i = 0; i < WS_ROLE_WORDS; i++)
		u.w[i] = a->w[i] | b->w[i];
	return u;
}

/* 0, or -1 with an out-of-memory error (exit 4) when a finding of m
 * could not be recorded (m->findings_lost): what every operation that
 * records findings ends with. */
int ws_model_findings_ok(const ws_model *m, ws_error *err);

/* Give every tensor its component (catalogue prefixes; the rest is the
 * main one, components[0]) and fill m->components.  -1 on OOM. */
int ws_components_assign(ws_model *m);
/* Free what component c owns (its architecture and formula). */
void ws_component_release(ws_component *c);
struct ws_cat_part;
/* The components of a wrapper's config (catalogue parts, the main one
 * first): each part's architecture and formula, each tensor under a
 * part's module prefix in that part with the role its own type gives
 * it.  -1 with err (a malformed sub-config is exit 3). */
int ws_components_from_parts(ws_model *m, const struct ws_cat_part *parts, ws_error *err);

struct ws_arch *ws_arch_infer_new(const ws_model *m, ws_error *err);

/* After the comparison (its findings from index first on): a config.json
 * contradicted consistently by the tensors becomes one config-mismatch and
 * the architecture the tensors imply (src/rootcause.c).  0, or -1 (OOM). */
int ws_root_cause(ws_model *m, size_t first, ws_error *err);

/* Not-a-weight-file diagnosis: when the first bytes of a file are an LFS
 * pointer, an HTML/JSON page, a pickle/zip or nothing, set err (exit 3)
 * with the diagnosis and return -1; otherwise return 0. */
int ws_sniff(const char *path, const uint8_t *head, uint64_t len,
	     uint64_t file_size, ws_error *err);

/* "dir/name" (one slash), and the folder part of a path ("." when none);
 * malloc'd, NULL on OOM. */
char *ws_path_join(const char *dir, const char *name);
char *ws_path_dir(const char *path);

/* Read a whole small file (config.json, index.json) up to max bytes. */
int ws_read_small_file(const char *path, uint64_t max, char **out,
		       size_t *len, ws_error *err);

/* Exact-key hash set over (pointer, length) byte strings; used for
 * duplicate detection in O(n).  Its first keys sit in few[], compared one
 * by one: most sets are a shard's handful of names, made and freed per
 * shard, and a table for them was mostly its allocation. */
#define WS_STRSET_FEW 16
struct ws_strset_slot {
	const char *key; /* NULL = empty slot */
	uint32_t len;
	uint32_t hash;
};
typedef struct ws_strset {
	struct ws_strset_slot *slots; /* the table (cap slots), once past few[] */
	size_t cap, n;
	struct ws_strset_slot few[WS_STRSET_FEW];
} ws_strset;
/* 1 = inserted, 0 = already present, -1 = OOM. */
int ws_strset_add(ws_strset *s, const char *key, size_t len);
/* The same in steps, for large sets: hash a key and start fetching its
 * slot, do other work while that cache miss resolves, then add. */
uint32_t ws_strset_hash(const char *key, size_t len);
void ws_strset_prefetch(const ws_strset *s, uint32_t hash);
int ws_strset_add_hashed(ws_strset *s, const char *key, size_t len, uint32_t hash);
bool ws_strset_has_hashed(const ws_strset *s, const char *key, size_t len, uint32_t hash);
bool ws_strset_has(const ws_strset *s, const char *key, size_t len);
/* Room for n keys without rehashing (0, or -1 on OOM). */
int ws_strset_reserve(ws_strset *s, size_t n);
void ws_strset_free(ws_strset *s);

/* ==== remote files (src/remote.c) ==== */

/* A reader ran past the fetched prefix of a remote file (map_len < size):
 * fetch more bytes and parse again.  err holds a "truncated" message. */
#define WS_NEED_MORE (-2)
/* Add a file whose header bytes are buf[0..len) (malloc'd; the model owns
 * it from here on, even on failure), size the remote size, fd -1. */
int ws_model_add_buffer(ws_model *m, const char *path, uint8_t *buf, uint64_t len,
			uint64_t size, ws_error *err);
/* Parse file idx, already added (its header in map[0..map_len)). */
int ws_safetensors_parse(ws_model *m, uint32_t idx, ws_error *err);
/* GGUF: parse file idx (0, -1 or WS_NEED_MORE); `names` collects tensor
 * names across a split set.  Then ws_gguf_finish checks a set of `parts`
 * files (split keys when more than one) and names the architecture. */
int ws_gguf_parse(ws_model *m, uint32_t idx, ws_strset *names, ws_error *err);
int ws_gguf_finish(ws_model *m, unsigned parts, ws_error *err);
/* index.json, from memory: the distinct shards weight_map names, in the
 * order it first names them (validated; pointers into idx, array
 * malloc'd), and the cross-check of the map against the loaded headers. */
struct cJSON;
int ws_index_shards(const struct cJSON *idx, const char *index_path,
		    const char ***names, size_t *n, ws_error *err);
int ws_index_check(ws_model *m, ws_error *err);
/* A tensor the index's weight_map names twice, what to report before any
 * other error of the index: -1 with err (re)set to it, or 0 (err as it
 * was).  ws_index_check finds it anyway; this is for the error paths. */
int ws_index_duplicate_first(const struct cJSON *idx, const char *index_path, ws_error *err);
/* Parse a JSON sidecar (whole buffer; trailing garbage refused) as
 * Python writes it: Infinity, -Infinity and NaN are numbers. */
struct cJSON *ws_parse_json_buf(const char *buf, size_t len, const char *name,
				ws_error *err);
/* Take c (a parsed config.json) as the model's architecture source. */
int ws_model_set_config(ws_model *m, struct cJSON *c, const char *config_path,
			ws_error *err);
/* Remote inputs: http(s):// and hf:// (src/remote.c). */
int ws_remote_open(const char *url, const ws_open_opts *opts, ws_model **out,
		   ws_error *err);
/* A config.json URL as the model's architecture source. */
int ws_remote_load_config(ws_model *m, const char *url, ws_error *err);

#endif
