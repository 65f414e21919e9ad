/* workload: the one struct that describes a run (DLIO / MLPerf Storage schema plus
 * gpufeed's own sections), its defaults, the table of every key the YAML loader and
 * --set accept, and validation. The key table is the single source of truth: the loader,
 * the overrides, the "did you mean" suggestions and the resolved workload in
 * summary.json are all driven by it. */
#ifndef GF_WORKLOAD_H
#define GF_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"
#include "model/dist.h"

struct json_object;

#define GF_KEYS_MAX 192 /* room for the key table */

enum gf_shuffle { GF_SHUFFLE_OFF = 0, GF_SHUFFLE_SEED, GF_SHUFFLE_RANDOM };
/* run.sample_order: DLIO's PyTorch order, or the shuffle reader.*_shuffle ask for. */
enum gf_sample_order { GF_ORDER_DLIO = 0, GF_ORDER_SHUFFLED };
enum gf_read_type { GF_READ_ON_DEMAND = 0, GF_READ_MEMORY };
enum gf_direct { GF_DIRECT_OFF = 0, GF_DIRECT_ON, GF_DIRECT_AUTO };

/* Enum keys whose names the code would otherwise compare as strings: one list each, which
 * gives the enum, the names the key table accepts (in this order, as the enum's values)
 * and the name functions below. */
#define GF_FORMATS(X) \
	X(GF_FMT_TFRECORD, tfrecord) X(GF_FMT_HDF5, hdf5) X(GF_FMT_CSV, csv) X(GF_FMT_NPZ, npz) \
	X(GF_FMT_NPY, npy) X(GF_FMT_JPEG, jpeg) X(GF_FMT_PNG, png) \
	X(GF_FMT_INDEXED_BINARY, indexed_binary) X(GF_FMT_MMAP_INDEXED_BINARY, mmap_indexed_binary) \
	X(GF_FMT_SYNTHETIC, synthetic)
#define GF_CKPT_MODES(X) X(GF_CKPT_MODE_DEFAULT, default) X(GF_CKPT_MODE_SUBSET, subset) \
	X(GF_CKPT_MODE_ASYNC, async)
/* file per rank, one MPI-IO file, one parallel HDF5 file, one S3 object per rank: what
 * each needs of the target is the layout table in phase/ckpt.c. */
#define GF_CKPT_LAYOUTS(X) X(GF_CKPT_FILE_PER_RANK, file_per_rank) X(GF_CKPT_SHARED_FILE, shared_file) \
	X(GF_CKPT_HDF5, hdf5) X(GF_CKPT_OBJECT_PER_RANK, object_per_rank)
#define GF_ENUM_ID(id, name) id,
enum gf_format { GF_FORMATS(GF_ENUM_ID) GF_FMT_COUNT };
enum gf_ckpt_mode { GF_CKPT_MODES(GF_ENUM_ID) GF_CKPT_MODE_COUNT };
enum gf_ckpt_layout { GF_CKPT_LAYOUTS(GF_ENUM_ID) GF_CKPT_LAYOUT_COUNT };

/* How a format lays samples out, which decides the access pattern. */
enum gf_layout {
	GF_LAYOUT_FILE_PER_SAMPLE, /* npz, npy, jpeg, png: each file read whole */
	GF_LAYOUT_RECORDS,         /* tfrecord, csv, synthetic: samples back to back */
	GF_LAYOUT_INDEXED,         /* indexed_binary, mmap_indexed_binary: small records at offsets */
	GF_LAYOUT_ROWS,            /* hdf5: rows of a 2-D byte dataset, one hyperslab per sample */
};

/* A list of whole numbers (DLIO's model.layer_parameters, model.optimization_groups). */
#define GF_LIST_MAX 64
struct gf_i64list {
	int64_t v[GF_LIST_MAX];
	int n;
};

/* checkpoint.recovery_rank_shift: false restores every rank's own shard; true and auto
 * (unset) another node's (or, on one node, the next rank's). */
enum gf_shift { GF_SHIFT_FALSE = 0, GF_SHIFT_TRUE, GF_SHIFT_AUTO };

/* checkpoint.shares: how a rank's checkpoint share is sized. */
enum gf_ckpt_shares { GF_SHARES_DLIO = 0, GF_SHARES_STAGE_EXACT };

struct gf_workload {
	char source[GF_STR]; /* the file it was loaded from */

	struct {
		char name[GF_STR];
		char type[64];
		uint64_t model_size_bytes;
		uint64_t model_size;  /* MLPerf's spelling, which DLIO does not read */
		char model_datatype[16];
		char optimizer_datatype[16];
		int64_t num_layers;
		int64_t tensor, pipeline, data, zero_stage;
		int64_t hidden_size, ffn_hidden_size, vocab_size, num_attention_heads, num_kv_heads;
		struct gf_i64list layer_parameters, optimization_groups; /* DLIO's predefined sizes */
	} model;

	char framework[32];

	struct {
		bool generate_data, train, evaluation, checkpoint, profiling;
	} workflow;

	struct {
		char data_folder[GF_STR];
		enum gf_format format;
		int64_t num_files_train, num_files_eval, num_samples_per_file;
		uint64_t record_length_bytes;
		uint64_t record_length_bytes_stdev;
		uint64_t record_length_bytes_resize;
		int64_t num_subfolders_train, num_subfolders_eval;
		char file_prefix[64];
		char compression[32];
		int64_t compression_level;
		bool enable_chunking;
		uint64_t chunk_size;
		bool keep_files;
		uint64_t generation_buffer_size;
		char record_element_type[32];
	} dataset;

	struct {
		char data_loader[32];
		int64_t batch_size, batch_size_eval;
		int64_t read_threads, computation_threads, prefetch_size;
		enum gf_shuffle file_shuffle, sample_shuffle;
		int64_t shuffle_size;
		uint64_t transfer_size; /* 0 = the whole sample, in chunks of GF_DEFAULT_CHUNK */
		enum gf_read_type read_type;
		char file_access[32];
		struct gf_dist preprocess_time;
		bool odirect;
	} reader;

	struct {
		int64_t epochs;
		struct gf_dist computation_time;
		int64_t total_training_steps;
		int64_t seed;
		bool seed_change_epoch;
	} train;

	struct {
		struct gf_dist eval_time;
		int64_t eval_after_epoch, epochs_between_evals;
	} evaluation;

	struct {
		char checkpoint_folder[GF_STR];
		int64_t checkpoint_after_epoch, epochs_between_checkpoints;
		int64_t steps_between_checkpoints;
		double time_between_checkpoints;
		int64_t num_checkpoints_write, num_checkpoints_read;
		bool fsync, rank_sync;
		enum gf_shift recovery_rank_shift; /* false | true | auto (unset: gpufeed's shift) */
		enum gf_ckpt_mode mode;
		char type[32];
		uint64_t model_size;
		/* gpufeed's additions */
		enum gf_ckpt_layout layout;
		bool collective;          /* shared_file: MPI_File_write_at_all */
		struct gf_kvmap mpiio_hints;
		uint64_t buffer_size;     /* per rank, streamed through */
		uint64_t part_size;       /* object_per_rank: multipart part (0 = s3_part_size) */
		double scale;             /* shrink every shard by this factor */
		enum gf_ckpt_shares shares; /* dlio (default) | stage_exact */
		int64_t restore_shift;    /* restore the shard of rank + shift (0 = ranks per node) */
		bool verify;              /* check every block's checksum on restore */
		bool keep;                /* keep the checkpoints after the run */
	} checkpoint;

	struct {
		char storage_type[32];
		char storage_root[GF_STR];
		struct gf_kvmap options;
	} storage;

	struct {
		double au; /* fraction, 0..1 */
	} metric;

	struct {
		char folder[GF_STR];
		char log_file[GF_STR];
		int64_t exclude_start_steps, exclude_end_steps;
	} output;

	/* the line each key was set on (0 = default or command line), for messages about
	 * checks that span keys; indexed like gf_keys */
	unsigned key_line[GF_KEYS_MAX];
	/* where each key was set: GF_ORIGIN_DEFAULT, _FILE or _CLI (the last setter wins) */
	unsigned char key_origin[GF_KEYS_MAX];

	/* keys accepted for compatibility that do not change what gpufeed does */
	struct gf_kv ignored[GF_KV_MAX];
	int nignored;

	/* gpufeed's own sections */
	struct {
		char profile[32];
		char compute_source[160]; /* where train.computation_time came from (profiles.h) */
		int64_t per_rank;
		bool step_barrier; /* DLIO's MPI_Barrier after every step */
	} accelerator;

	struct {
		char path[GF_STR];   /* path or URI of the data folder */
		char engine[32];     /* "" = the default for the scheme */
		enum gf_direct direct;
		int64_t queue_depth; /* requests in flight per reader thread; 0 = the loader's */
		bool sqpoll;         /* uring: kernel thread polls the submission queue */
		int64_t open_files;  /* per reader thread with read_type memory; 0 = auto */
		/* Lustre striping of new files (0 = the filesystem's default). Without
		 * liblustreapi they reach shared files as MPI-IO hints only (target.c). */
		int64_t lustre_stripe_count;
		uint64_t lustre_stripe_size;
		int64_t prefix_spread; /* s3: keys spread over this many hashed prefixes (0, 1: off) */
	} target;

	struct {
		double duration; /* seconds; 0 = until the steps or epochs are done */
		bool ceiling;    /* run measures the storage ceiling before train */
		double ceiling_duration; /* seconds; 0 = duration, else the whole schedule */
		enum gf_sample_order sample_order;
	} run;
};

/* Requests in flight for dataset generation and checkpoint bursts when target.queue_depth
 * is not given (it is 0 then, and reads follow the loader model: plan.h). */
#define GF_WRITE_DEPTH 8

/* Read sizes are capped at this when transfer_size is not set, so that a 140 MB sample
 * never needs a 140 MB buffer. */
#define GF_DEFAULT_CHUNK (4u << 20)
/* np.load's reads of an npz member (numpy format.read_array BUFFER_SIZE = 2**18). */
#define GF_NPZ_CHUNK (256u << 10)

enum gf_origin_kind { GF_ORIGIN_DEFAULT = 0, GF_ORIGIN_FILE, GF_ORIGIN_CLI };

enum gf_key_type {
	GF_K_BOOL,
	GF_K_INT,    /* int64 */
	GF_K_SIZE,   /* uint64 bytes, units and floats allowed */
	GF_K_FLOAT,  /* double */
	GF_K_FRACTION,/* double in [0, 1]; "90%" accepted */
	GF_K_TIME,   /* struct gf_dist (a number of seconds, a unit, or a distribution map) */
	GF_K_SECONDS,/* double seconds (a plain duration) */
	GF_K_STR,    /* char[GF_STR] or smaller, size in the table */
	GF_K_ENUM_STR,/* a string that must be one of the choices */
	GF_K_ENUM,   /* int, the index of one of the choices */
	GF_K_STDEV,  /* seconds: the stdev of the GF_K_TIME in the same field (DLIO's *_stdev) */
	GF_K_RATIO,  /* double in (0, 1]: "1/1000", "0.001" or "1e-3" */
	GF_K_KV,     /* a map passed through */
	GF_K_IGNORED,/* accepted for compatibility, recorded, no effect on I/O */
	GF_K_LIST,   /* struct gf_i64list: "[1, 2, 3]" */
};

struct gf_key {
	const char *path;       /* "reader.batch_size" */
	enum gf_key_type type;
	size_t offset;          /* into struct gf_workload */
	size_t size;            /* of the field */
	const char *choices;    /* GF_K_ENUM and checked GF_K_STR: "off|seed|random" */
	double min, max;        /* numeric bounds, inclusive; min > max = unbounded */
	const char *help;
};

/* The table and its lookups are in keys.c. */
extern const struct gf_key gf_keys[];
extern const size_t gf_nkeys;

/* Sections that take a map; a scalar where a section is expected is an error except
 * for DLIO's scalar forms (framework: pytorch, model: unet3d). */
const struct gf_key *gf_key_find(const char *path);
/* The known key nearest to path (edit distance), for "did you mean". */
const char *gf_key_nearest(const char *path);
/* Levenshtein distance of two short strings (key paths, case folded); 1000 past 127
 * characters. For "did you mean" in every file gpufeed reads. */
unsigned gf_edit_distance(const char *a, const char *b);
/* Of the n dotted names name_at(0..n-1), the one path most likely meant: by whole path,
 * by last component (right key, wrong section) or, for a name without a dot, by section.
 * Written into best; NULL when none is near (edit distance over 6). */
const char *gf_path_nearest(const char *path, const char *(*name_at)(size_t i), size_t n,
			    char *best, size_t len);
/* The first key of a section or group ("reader" -> "reader.data_loader"), or NULL. */
const char *gf_key_first_in(const char *group);
/* True if some key starts with "prefix." (a section or a nested group). */
bool gf_key_is_group(const char *path);

/* Where a value came from, for error messages: "unet3d.yaml:12" or "--set". */
struct gf_origin {
	const char *file;
	unsigned line; /* 1-based; 0 = not from a file */
};

/* Set one key from its text. On failure returns -EINVAL and writes a message that names
 * the origin, the key and what is allowed into err. */
int gf_key_set(struct gf_workload *w, const struct gf_key *k, const char *value,
	       const struct gf_origin *o, char *err, size_t errlen);
/* Set a GF_K_TIME key from a distribution map given as parallel arrays of names/values. */
int gf_key_set_dist(struct gf_workload *w, const struct gf_key *k, const char *const *names,
		    const char *const *values, int n, const struct gf_origin *o, char *err,
		    size_t errlen);
/* Add an entry to a GF_K_KV key. */
int gf_key_set_kv(struct gf_workload *w, const struct gf_key *k, const char *name,
		  const char *value, const struct gf_origin *o, char *err, size_t errlen);

void gf_workload_defaults(struct gf_workload *w);
/* Cross-key checks and derived defaults after loading and overrides. Returns 0 or -EINVAL
 * with a message. */
int gf_workload_validate(struct gf_workload *w, char *err, size_t errlen);

/* Whether s can be one component of a path gpufeed makes: not empty, no '/', not "." or
 * "..". Names gpufeed generates from the workload or reads from its own index must pass
 * (run/owned.h: the ownership rule). */
bool gf_name_component(const char *s);

/* in with the user information of a URL ("scheme://user:password@host/...") replaced by
 * with ("<redacted>" keeps "<redacted>@host"; "" drops it and its '@'); anything else
 * copied as it is. A password never reaches summary.json, a report or a message: every
 * URL gpufeed stores or prints goes through it. Returns whether userinfo was found. */
bool gf_url_userinfo(const char *in, const char *with, char *out, size_t len);

/* The names of the enum keys' values, as the key table spells them. */
const char *gf_format_name(enum gf_format f);
const char *gf_ckpt_mode_name(enum gf_ckpt_mode m);
const char *gf_ckpt_layout_name(enum gf_ckpt_layout l);

enum gf_layout gf_workload_layout(const struct gf_workload *w);
/* Samples in the training set. */
uint64_t gf_workload_samples(const struct gf_workload *w);
/* Short name for results folders: model name, else the file's base name. */
const char *gf_workload_name(const struct gf_workload *w, char *buf, size_t len);

/* The resolved workload as JSON, by section (secrets redacted). */
struct json_object *gf_workload_to_json(const struct gf_workload *w);

#endif
