/* Description: plan is pure and deterministic and its schedule is right. Two builds from
 * the same workload and world size are equal and give identical samples for every
 * accelerator and position; the accelerators' shares of an epoch never overlap and cover
 * exactly accels x share distinct sample ids (checked with a bitmap, for shuffle off,
 * sample shuffle by seed, and file shuffle only); epochs differ when seed_change_epoch is
 * true and repeat when it is false; sample sizes have the configured mean and standard
 * deviation, are never below 1 byte, and offsets are the prefix sums of the sizes within a
 * file, with gf_plan_file_size the sum of all of them; steps_per_epoch and total_steps
 * follow the arithmetic (total_training_steps caps each epoch, as DLIO's main.py:348, and
 * a cap above the epoch is refused as statscounter.py:79 does; several accelerators per
 * rank); the checkpoint schedule restarts steps_between_checkpoints every epoch (DLIO
 * main.py:403) and names folders global_epoch{E}_step{S} (base_checkpointing.py:389);
 * demand_bytes_per_s = batch x mean / compute; a dataset too small for one batch per
 * accelerator is -EINVAL with a message; file paths look like
 * "<root>/train[/<sub>]/img_3_of_10.npz"; a plan of 10^10 samples builds at once and
 * gf_plan_sample works near the end of an epoch. A sweep's in-between counts
 * (gf_plan_build_accels: 1 to 13 accelerators over 4 ranks, some ranks one fewer or
 * idle): the ranks' counts differ by at most one and sum to the count, their first
 * indexes run on without gap, and walking each rank's own accelerators reads every
 * sample of the epoch's shares once.
 * Expected result: all of the above hold exactly (statistics within stated tolerances).
 * Buggy result: a sample read twice or never, shares overlapping, every epoch alike (or
 * unstable orders), sizes whose mean/stdev drift or reach 0, offsets that leave gaps or
 * overlaps, wrong step counts, or a plan whose cost grows with the dataset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/plan.h"
#include "model/workload.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* dataset.format by name, through the key table as a workload file sets it. */
static void set_format(struct gf_workload *w, const char *name)
{
	char err[256];

	assert_int_equal(gf_key_set(w, gf_key_find("dataset.format"), name, NULL, err, sizeof(err)), 0);
}

/* A small workload: everything a test does not set keeps gpufeed's defaults. */
static void small_workload(struct gf_workload *w, int64_t files, int64_t spf, int64_t batch,
			   int64_t per_rank, enum gf_shuffle fs, enum gf_shuffle ss)
{
	gf_workload_defaults(w);
	w->dataset.format = GF_FMT_NPZ;
	w->dataset.num_files_train = files;
	w->dataset.num_samples_per_file = spf;
	w->dataset.record_length_bytes = 1000;
	w->dataset.record_length_bytes_stdev = 100;
	w->reader.batch_size = batch;
	w->accelerator.per_rank = per_rank;
	w->reader.file_shuffle = fs;
	w->reader.sample_shuffle = ss;
	/* The shuffles under test: DLIO's PyTorch order ignores them (test_dlio_order). */
	w->run.sample_order = GF_ORDER_SHUFFLED;
	w->train.computation_time.type = GF_DIST_CONST;
	w->train.computation_time.a = 0.1;
}

static void build_ok(const struct gf_workload *w, unsigned ranks, struct gf_plan *p)
{
	char err[512] = "";
	int rc = gf_plan_build(w, ranks, p, err, sizeof(err));

	if (rc != 0)
		fail_msg("gf_plan_build: %d: %s", rc, err);
}

/* The cases the order tests run over. */
struct order_case {
	const char *name;
	int64_t files, spf, batch, per_rank;
	unsigned ranks;
	enum gf_shuffle fs, ss;
	int64_t seed;
};

static const struct order_case order_cases[] = {
	{ "off, 1 sample per file", 100, 1, 4, 1, 3, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF, 1 },
	{ "off, records", 37, 11, 5, 2, 3, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF, 1 },
	{ "sample seed, 1 per file", 1000, 1, 8, 1, 4, GF_SHUFFLE_OFF, GF_SHUFFLE_SEED, 123 },
	{ "sample seed, records, remainder", 103, 7, 3, 2, 5, GF_SHUFFLE_SEED, GF_SHUFFLE_SEED, 9 },
	{ "sample seed, 1 accelerator", 4096, 1, 16, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_SEED, 0 },
	{ "sample random", 500, 2, 4, 1, 7, GF_SHUFFLE_OFF, GF_SHUFFLE_RANDOM, 5 },
	{ "file seed only, 1 per file", 999, 1, 2, 1, 4, GF_SHUFFLE_SEED, GF_SHUFFLE_OFF, 77 },
	{ "file seed only, records", 50, 13, 4, 3, 2, GF_SHUFFLE_SEED, GF_SHUFFLE_OFF, 77 },
	{ "file seed only, remainder", 61, 3, 1, 4, 3, GF_SHUFFLE_SEED, GF_SHUFFLE_OFF, 2 },
	{ "file random only", 64, 4, 2, 1, 8, GF_SHUFFLE_RANDOM, GF_SHUFFLE_OFF, 3 },
};

static void case_workload(const struct order_case *c, struct gf_workload *w)
{
	small_workload(w, c->files, c->spf, c->batch, c->per_rank, c->fs, c->ss);
	w->train.seed = c->seed;
}

static bool same_sample(const struct gf_sample *a, const struct gf_sample *b)
{
	return a->id == b->id && a->file == b->file && a->offset == b->offset && a->length == b->length;
}

#define EQ_FIELD(f) assert_true(a->f == b->f)
static void assert_plans_equal(const struct gf_plan *a, const struct gf_plan *b)
{
	EQ_FIELD(layout);
	EQ_FIELD(files);
	EQ_FIELD(samples_per_file);
	EQ_FIELD(samples);
	EQ_FIELD(mean_bytes);
	EQ_FIELD(stdev_bytes);
	EQ_FIELD(size_seed);
	EQ_FIELD(chunk);
	EQ_FIELD(ranks);
	EQ_FIELD(per_rank);
	EQ_FIELD(accels);
	EQ_FIELD(batch);
	EQ_FIELD(share);
	EQ_FIELD(steps_per_epoch);
	EQ_FIELD(epochs);
	EQ_FIELD(total_steps);
	EQ_FIELD(file_shuffle);
	EQ_FIELD(sample_shuffle);
	EQ_FIELD(shuffle_seed);
	EQ_FIELD(seed_change_epoch);
	EQ_FIELD(dataset_bytes);
	EQ_FIELD(compute_s);
	EQ_FIELD(bytes_per_step);
	EQ_FIELD(demand_bytes_per_s);
	EQ_FIELD(demand_samples_per_s);
}

/* Two builds (one from a copy of the workload, as another rank would have) agree on
 * every field and on every sample of every accelerator in several epochs. */
static void test_determinism(void **state)
{
	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(order_cases); c++) {
		struct gf_workload w1, w2;
		struct gf_plan p1, p2;

		case_workload(&order_cases[c], &w1);
		memcpy(&w2, &w1, sizeof(w1));
		build_ok(&w1, order_cases[c].ranks, &p1);
		build_ok(&w2, order_cases[c].ranks, &p2);
		assert_plans_equal(&p1, &p2);
		for (uint64_t ep = 0; ep < 3; ep++) {
			struct gf_epoch e1, e2;

			gf_plan_epoch(&p1, ep, &e1);
			gf_plan_epoch(&p2, ep, &e2);
			for (unsigned a = 0; a < p1.accels; a++)
				for (uint64_t pos = 0; pos < p1.share; pos++) {
					struct gf_sample s1, s2, s3;

					gf_plan_sample(&e1, a, pos, &s1);
					gf_plan_sample(&e2, a, pos, &s2);
					gf_plan_sample(&e1, a, pos, &s3); /* asked twice */
					if (!same_sample(&s1, &s2) || !same_sample(&s1, &s3))
						fail_msg("%s: epoch %llu accel %u pos %llu differs",
							 order_cases[c].name, (unsigned long long)ep, a,
							 (unsigned long long)pos);
				}
		}
	}
}

/* Every sample an accelerator reads is a real one (id < samples, file and offset derived
 * from it), no two positions of any accelerators in one epoch give the same id, and so
 * the epoch covers exactly accels x share ids. */
static void test_shares_cover(void **state)
{
	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(order_cases); c++) {
		const struct order_case *oc = &order_cases[c];
		struct gf_workload w;
		struct gf_plan p;

		case_workload(oc, &w);
		build_ok(&w, oc->ranks, &p);
		assert_int_equal(p.accels, oc->ranks * (unsigned)oc->per_rank);
		assert_int_equal(p.share, p.samples / p.accels);
		for (uint64_t ep = 0; ep < 3; ep++) {
			uint8_t *seen = calloc(p.samples, 1);
			uint64_t distinct = 0, identity = 0;
			struct gf_epoch e;

			assert_non_null(seen);
			gf_plan_epoch(&p, ep, &e);
			for (unsigned a = 0; a < p.accels; a++)
				for (uint64_t pos = 0; pos < p.share; pos++) {
					struct gf_sample s;
					uint64_t g = (uint64_t)a * p.share + pos;

					gf_plan_sample(&e, a, pos, &s);
					if (s.id >= p.samples)
						fail_msg("%s: id %llu >= %llu samples", oc->name,
							 (unsigned long long)s.id, (unsigned long long)p.samples);
					if (seen[s.id])
						fail_msg("%s: epoch %llu: sample %llu read twice (accel %u pos %llu)",
							 oc->name, (unsigned long long)ep,
							 (unsigned long long)s.id, a, (unsigned long long)pos);
					seen[s.id] = 1;
					distinct++;
					identity += s.id == g;
					assert_int_equal(s.file, s.id / p.samples_per_file);
					assert_int_equal(s.offset, gf_plan_sample_offset(&p, s.file, s.id % p.samples_per_file));
					assert_int_equal(s.length, gf_plan_sample_size(&p, s.file, s.id % p.samples_per_file));
					if (oc->ss == GF_SHUFFLE_OFF && oc->fs == GF_SHUFFLE_OFF)
						assert_int_equal(s.id, g);
					/* File shuffle moves whole files: the sample within the file
					 * keeps its place. */
					if (oc->ss == GF_SHUFFLE_OFF)
						assert_int_equal(s.id % p.samples_per_file, g % p.samples_per_file);
				}
			/* Distinct ids: the bitmap holds exactly accels x share ones. */
			uint64_t ones = 0;
			for (uint64_t i = 0; i < p.samples; i++)
				ones += seen[i];
			assert_int_equal(ones, distinct);
			assert_int_equal(ones, (uint64_t)p.accels * p.share);
			/* A shuffled order is not the identity. */
			if (oc->ss != GF_SHUFFLE_OFF || oc->fs != GF_SHUFFLE_OFF)
				assert_true(identity < distinct / 2);
			free(seen);
		}
	}
}

/* Counts that 4 ranks cannot split evenly: each rank walks its own accelerators, as
 * phase/train.c does, and together they read each sample of the shares once. */
static void test_uneven_split(void **state)
{
	struct gf_workload w;
	struct gf_plan p;
	char err[512];

	(void)state;
	small_workload(&w, 97, 3, 2, 1, GF_SHUFFLE_SEED, GF_SHUFFLE_SEED);
	for (unsigned n = 1; n <= 13; n++) {
		uint8_t *seen = calloc(291, 1);
		unsigned sum = 0, next = 0, lo = ~0u, hi = 0;
		uint64_t read = 0;
		struct gf_epoch e;

		assert_non_null(seen);
		assert_int_equal(gf_plan_build_accels(&w, 4, n, &p, err, sizeof(err)), 0);
		assert_int_equal(p.accels, n);
		assert_int_equal(p.per_rank, (n + 3) / 4);
		assert_int_equal(p.share, 291 / n);
		gf_plan_epoch(&p, 1, &e);
		for (unsigned r = 0; r < 4; r++) {
			unsigned k = gf_plan_rank_accels(&p, r);
			assert_int_equal(gf_plan_rank_first(&p, r), next);
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
			for (unsigned a = 0; a < k; a++)
				for (uint64_t pos = 0; pos < p.share; pos++) {
					struct gf_sample sm;
					gf_plan_sample(&e, gf_plan_rank_first(&p, r) + a, pos, &sm);
					assert_true(sm.id < 291);
					if (seen[sm.id])
						fail_msg("%u accelerators: sample %llu read twice", n, (unsigned long long)sm.id);
					seen[sm.id] = 1;
					read++;
				}
			next += k;
			sum += k;
		}
		assert_int_equal(sum, n);
		assert_int_equal(hi, p.per_rank);
		assert_true(hi - lo <= 1);
		/* Only the remainder of whole shares is left out, as DLIO's drop_last. */
		assert_int_equal(read, (uint64_t)n * p.share);
		assert_true(291 - read < n);
		free(seen);
	}
}

/* Whether epoch 1 repeats epoch 0: only when seed_change_epoch is false or nothing is
 * shuffled. */
static void test_epoch_orders(void **state)
{
	static const struct {
		enum gf_shuffle fs, ss;
		bool change;
		bool differ;
	} t[] = {
		{ GF_SHUFFLE_OFF, GF_SHUFFLE_SEED, true, true },
		{ GF_SHUFFLE_OFF, GF_SHUFFLE_SEED, false, false },
		{ GF_SHUFFLE_SEED, GF_SHUFFLE_OFF, true, true },
		{ GF_SHUFFLE_SEED, GF_SHUFFLE_OFF, false, false },
		{ GF_SHUFFLE_SEED, GF_SHUFFLE_SEED, true, true },
		{ GF_SHUFFLE_SEED, GF_SHUFFLE_SEED, false, false },
		{ GF_SHUFFLE_OFF, GF_SHUFFLE_OFF, true, false },
		{ GF_SHUFFLE_OFF, GF_SHUFFLE_OFF, false, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;

		small_workload(&w, 200, 3, 4, 2, t[i].fs, t[i].ss);
		w.train.seed_change_epoch = t[i].change;
		build_ok(&w, 2, &p);
		for (uint64_t ep = 1; ep < 4; ep++) {
			struct gf_epoch e0, e1;
			uint64_t diff = 0;

			gf_plan_epoch(&p, 0, &e0);
			gf_plan_epoch(&p, ep, &e1);
			for (unsigned a = 0; a < p.accels; a++)
				for (uint64_t pos = 0; pos < p.share; pos++) {
					struct gf_sample s0, s1;

					gf_plan_sample(&e0, a, pos, &s0);
					gf_plan_sample(&e1, a, pos, &s1);
					diff += s0.id != s1.id;
				}
			if (t[i].differ && diff < p.accels * p.share / 2)
				fail_msg("case %zu: epoch %llu repeats epoch 0 (%llu of %llu differ)", i,
					 (unsigned long long)ep, (unsigned long long)diff,
					 (unsigned long long)(p.accels * p.share));
			if (!t[i].differ && diff != 0)
				fail_msg("case %zu: epoch %llu differs from epoch 0 in %llu places", i,
					 (unsigned long long)ep, (unsigned long long)diff);
		}
	}
}

/* Different seeds give different orders; the same seed the same order. */
static void test_seed_selects_order(void **state)
{
	struct gf_workload w;
	struct gf_plan p1, p2, p3;
	struct gf_epoch e1, e2, e3;
	uint64_t diff = 0, same = 0;

	(void)state;
	small_workload(&w, 500, 1, 4, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_SEED);
	w.train.seed = 1;
	build_ok(&w, 2, &p1);
	build_ok(&w, 2, &p3);
	w.train.seed = 2;
	build_ok(&w, 2, &p2);
	gf_plan_epoch(&p1, 0, &e1);
	gf_plan_epoch(&p2, 0, &e2);
	gf_plan_epoch(&p3, 0, &e3);
	for (uint64_t pos = 0; pos < p1.share; pos++) {
		struct gf_sample a, b, c;

		gf_plan_sample(&e1, 1, pos, &a);
		gf_plan_sample(&e2, 1, pos, &b);
		gf_plan_sample(&e3, 1, pos, &c);
		diff += a.id != b.id;
		same += a.id == c.id;
	}
	assert_true(diff > p1.share / 2);
	assert_int_equal(same, p1.share);
}

/* Sample sizes as DLIO's generators make them (data_generator.py:54-59, config.py:312-313):
 * each file draws two dims max(int(normal(d, sd)), 1) with d = int(sqrt(L)) and
 * sd = stdev / 2 / sqrt(L), and all its samples are dim1 x dim2 bytes. Hand-computed:
 * with mu = d - 1/2 (int() truncates) and s^2 = sd^2 + 1/12, E[size] = mu^2 and
 * SD = s sqrt(s^2 + 2 mu^2), so about 0.71 x the configured stdev (unet3d: 48.97 MB of
 * 68.34 MB, 0.717). Without stdev every sample is L bytes exactly. Buggy: sizes per
 * sample spread by the full stdev (gpufeed before). */
static void test_size_dims(void **state)
{
	static const struct {
		int64_t files, spf;
		uint64_t mean, stdev;
	} t[] = {
		{ 100000, 1, 146600628, 68341808 }, /* unet3d */
		{ 20000, 7, 65536, 16384 },
		{ 5000, 3, 1 << 20, 0 },
		{ 5000, 3, 1000003, 0 },            /* prime: dims 1 x 1000003 */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		double sum = 0, sum2 = 0, n = (double)t[i].files, mean, sd;
		double d = floor(sqrt((double)t[i].mean)), sdim = (double)t[i].stdev / 2 / sqrt((double)t[i].mean);
		double mu = d - 0.5, s2 = sdim * sdim + 1.0 / 12, want_sd = sqrt(s2) * sqrt(s2 + 2 * mu * mu);

		small_workload(&w, t[i].files, t[i].spf, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		w.dataset.record_length_bytes = t[i].mean;
		w.dataset.record_length_bytes_stdev = t[i].stdev;
		build_ok(&w, 1, &p);
		for (uint64_t f = 0; f < (uint64_t)t[i].files; f++) {
			uint64_t d1, d2, size = gf_plan_sample_size(&p, f, 0);

			gf_plan_dims(&p, f, &d1, &d2);
			assert_int_equal(size, d1 * d2);
			assert_true(d1 >= 1 && d2 >= 1);
			for (uint64_t j = 1; j < (uint64_t)t[i].spf; j++)
				assert_int_equal(gf_plan_sample_size(&p, f, j), size);
			sum += (double)size;
			sum2 += (double)size * (double)size;
		}
		mean = sum / n;
		sd = sqrt(sum2 / n - mean * mean);
		if (!t[i].stdev) {
			assert_true(sd == 0 && mean == (double)t[i].mean);
			continue;
		}
		if (fabs(mean - mu * mu) > 0.005 * mu * mu)
			fail_msg("case %zu: mean size %.0f, expected %.0f", i, mean, mu * mu);
		if (fabs(sd - want_sd) > 0.02 * want_sd)
			fail_msg("case %zu: stdev of sizes %.0f, expected %.0f (%.3f of the configured)", i, sd,
				 want_sd, want_sd / (double)t[i].stdev);
	}
	/* unet3d's spread: 0.717 of the configured stdev. */
	assert_true(fabs(48.97e6 / 68341808.0 - 0.7166) < 0.001);
}

/* Every size is at least 1 byte, even when the stdev is far above the mean (the largest
 * the validator allows is ten times): a dim below 1 is 1, as DLIO's max(int(x), 1). */
static void test_sizes_at_least_one(void **state)
{
	static const struct {
		uint64_t mean, stdev;
	} t[] = { { 1, 10 }, { 2, 20 }, { 100, 1000 }, { 100, 150 }, { 4096, 40960 } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		uint64_t min = UINT64_MAX, max = 0, ones = 0;

		small_workload(&w, 2000, 4, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		w.dataset.record_length_bytes = t[i].mean;
		w.dataset.record_length_bytes_stdev = t[i].stdev;
		build_ok(&w, 1, &p);
		for (uint64_t f = 0; f < 2000; f++) {
			uint64_t a = gf_plan_sample_size(&p, f, 0);
			min = a < min ? a : min;
			max = a > max ? a : max;
			ones += a == 1;
		}
		assert_int_equal(min, 1); /* a wide spread clamps some files to 1 x 1 */
		assert_true(ones > 0 && max > min);
	}
}

/* Offsets: the samples back to back for a raw format (csv), offset(f, j + 1) = offset(f, j)
 * + size and the file their sum; TFRecord frames each record: 8 + 4 bytes of length and
 * its CRC, the Example's bytes around the image, 4 of CRC after, so the stride is the
 * size plus that framing and the file spf strides. */
static void test_offsets_prefix_sums(void **state)
{
	static const struct {
		const char *format;
		int64_t spf;
		uint64_t mean, stdev;
	} t[] = {
		{ "csv", 1, 1000, 100 }, { "csv", 7, 65536, 20000 }, { "csv", 1251, 114660, 11466 },
		{ "csv", 5, 4096, 0 }, { "tfrecord", 1, 1000, 100 }, { "tfrecord", 100, 114660, 30000 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		bool tf = !strcmp(t[i].format, "tfrecord");

		small_workload(&w, 20, t[i].spf, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		set_format(&w, t[i].format);
		w.dataset.record_length_bytes = t[i].mean;
		w.dataset.record_length_bytes_stdev = t[i].stdev;
		build_ok(&w, 1, &p);
		for (uint64_t f = 0; f < 20; f++) {
			uint64_t size = gf_plan_sample_size(&p, f, 0), frame = 0, first = 0;

			if (tf) {
				/* Example: 0a L 0a L 0a 05 "image" 12 L 0a L 0a L <image> 0a L 0a 04
				 * "size" 12 L 1a L 0a L <varint>: 2 + 2 + 7 + 2 + 2 + 1 + varint(size)
				 * + ... with one- to three-byte lengths */
				first = gf_plan_sample_offset(&p, f, 0);
				assert_true(first > 12 + 16 && first < 12 + 30);
				frame = gf_plan_file_size(&p, f) / (uint64_t)t[i].spf - size;
				assert_true(frame > first && frame < first + 20 + 4);
			}
			for (uint64_t j = 0; j < (uint64_t)t[i].spf; j++)
				assert_int_equal(gf_plan_sample_offset(&p, f, j), first + j * (size + frame));
			assert_int_equal(gf_plan_file_size(&p, f), (uint64_t)t[i].spf * (size + frame));
		}
		/* Sizes are a function of the file: files differ. */
		if (t[i].stdev > 0)
			assert_true(gf_plan_sample_size(&p, 0, 0) != gf_plan_sample_size(&p, 1, 0) ||
				    gf_plan_sample_size(&p, 0, 0) != gf_plan_sample_size(&p, 2, 0));
	}
}

/* steps_per_epoch = floor(floor(samples / accels) / batch), or total_training_steps when
 * set (DLIO mlperf_storage_v2.0 main.py:348 stops each epoch there; the count restarts
 * every epoch, :318), total_steps = steps x epochs. */
static void test_steps(void **state)
{
	static const struct {
		int64_t files, spf, batch, per_rank, epochs, total_training_steps;
		unsigned ranks;
		uint64_t accels, share, steps_per_epoch, total_steps;
	} t[] = {
		{ 1000, 1, 4, 1, 1, -1, 1, 1, 1000, 250, 250 },
		{ 1000, 1, 4, 1, 3, -1, 2, 2, 500, 125, 375 },
		{ 1000, 1, 4, 1, 3, -1, 3, 3, 333, 83, 249 },
		{ 100, 10, 4, 2, 3, -1, 3, 6, 166, 41, 123 },
		{ 100, 10, 4, 2, 3, 20, 3, 6, 166, 20, 60 },   /* the cap is per epoch */
		{ 100, 10, 4, 2, 3, 41, 3, 6, 166, 41, 123 },
		{ 100, 10, 4, 2, 3, 0, 3, 6, 166, 41, 123 },   /* 0 is not a cap */
		{ 168, 1, 7, 1, 5, -1, 8, 8, 21, 3, 15 },      /* unet3d-like */
		{ 168, 1, 7, 4, 5, -1, 2, 8, 21, 3, 15 },      /* same accelerators, 4 per rank */
		{ 1024, 1251, 400, 8, 2, -1, 4, 32, 40032, 100, 200 },
		{ 64, 1, 1, 1, 1, -1, 64, 64, 1, 1, 1 },       /* exactly one batch each */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;

		small_workload(&w, t[i].files, t[i].spf, t[i].batch, t[i].per_rank, GF_SHUFFLE_OFF,
			       GF_SHUFFLE_SEED);
		w.train.epochs = t[i].epochs;
		w.train.total_training_steps = t[i].total_training_steps;
		build_ok(&w, t[i].ranks, &p);
		if (p.accels != t[i].accels || p.share != t[i].share ||
		    p.steps_per_epoch != t[i].steps_per_epoch || p.total_steps != t[i].total_steps)
			fail_msg("case %zu: accels %u share %llu steps/epoch %llu total %llu, expected "
				 "%llu %llu %llu %llu", i, p.accels, (unsigned long long)p.share,
				 (unsigned long long)p.steps_per_epoch, (unsigned long long)p.total_steps,
				 (unsigned long long)t[i].accels, (unsigned long long)t[i].share,
				 (unsigned long long)t[i].steps_per_epoch,
				 (unsigned long long)t[i].total_steps);
		assert_int_equal(p.ranks, t[i].ranks);
		assert_int_equal(p.per_rank, (unsigned)t[i].per_rank);
		assert_int_equal(p.samples, (uint64_t)(t[i].files * t[i].spf));
		assert_int_equal(p.epochs, (uint64_t)t[i].epochs);
		assert_int_equal(p.batch, (uint64_t)t[i].batch);
	}
}

/* A cap above what the dataset gives an epoch is refused, as DLIO's statscounter.py:79-81
 * ("Only have enough data for N steps but M wanted"). */
static void test_steps_cap_refused(void **state)
{
	struct gf_workload w;
	struct gf_plan p;
	char err[512] = "";

	(void)state;
	small_workload(&w, 100, 10, 4, 2, GF_SHUFFLE_OFF, GF_SHUFFLE_SEED);
	w.train.total_training_steps = 42; /* 41 steps per epoch at 3 ranks */
	assert_int_equal(gf_plan_build(&w, 3, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "train.total_training_steps is 42"));
	assert_non_null(strstr(err, "41 step(s) per epoch"));
}

/* DLIO's datasize (mlcommons/storage mlpstorage/rules/utils.py:68-77): files by memory =
 * 5 x client memory / (samples_per_file x record length), files by batch = accelerators x
 * batch / samples_per_file, both rounded up, the larger wins; the fitted plan builds. */
static void test_fit_files(void **state)
{
	static const struct {
		int64_t spf, batch, per_rank;
		unsigned accels;
		double memory;
		uint64_t by_mem, by_batch, files;
	} t[] = {
		/* 5 x 1 MB / (10 x 1000 B) = 500 files; 64 x 4 / 10 = 25.6 -> 26 */
		{ 10, 4, 1, 64, 1e6, 500, 26, 500 },
		/* no memory given: the batch bound alone; 1000 x 7 / 1 = 7000 */
		{ 1, 7, 1, 1000, 0, 0, 7000, 7000 },
		/* 5 x 1000.5 B / 1000 B = 5.0025 -> 6: at least, never just under */
		{ 1, 1, 1, 1, 1000.5, 6, 1, 6 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gf_workload w;
		struct gf_plan p;
		uint64_t m = 0, b = 0, n;
		small_workload(&w, 1, t[i].spf, t[i].batch, t[i].per_rank, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		n = gf_plan_fit_files(&w, t[i].accels, t[i].memory, &m, &b);
		if (n != t[i].files || m != t[i].by_mem || b != t[i].by_batch)
			fail_msg("case %zu: %llu files (memory %llu, batch %llu), expected %llu (%llu, %llu)", i,
				 (unsigned long long)n, (unsigned long long)m, (unsigned long long)b,
				 (unsigned long long)t[i].files, (unsigned long long)t[i].by_mem,
				 (unsigned long long)t[i].by_batch);
		w.dataset.num_files_train = (int64_t)n;
		build_ok(&w, t[i].accels, &p);
		assert_true(p.steps_per_epoch >= 1);
	}
}

/* DLIO's checkpoint schedule in training (mlperf_storage_v2.0 main.py): the megatron
 * file (3 epochs, total_training_steps 1000, steps_between_checkpoints 1000) runs 3000
 * steps and 3 checkpoints, one per epoch, because next_checkpoint_step is reset every
 * epoch (:403); epoch checkpoints follow checkpoint_after_epoch and
 * epochs_between_checkpoints (:360, :365), unet3d's 5 and 2 give one after epoch 5 of 5;
 * steps_between_checkpoints 0 gives none (:336 never matches, :360 wants it < 0), and so
 * does checkpoint_after_epoch 0. */
static void test_checkpoint_schedule(void **state)
{
	static const struct {
		int64_t epochs, tts, sbc, after, between;
		uint64_t count, first_step, first_epoch, first_s, last_epoch, last_s;
	} t[] = {
		/* megatron_deepspeed_LLNL: 3 x 1000 steps, a checkpoint after step 1000 of each */
		{ 3, 1000, 1000, 1, 1, 3, 999, 1, 1000, 3, 1000 },
		/* every 250 steps of 1000 (bert_v100): 4 per epoch */
		{ 2, 1000, 250, 1, 1, 8, 249, 1, 250, 2, 1000 },
		/* unet3d: after epoch 5, every 2 after it, in 5 epochs: one, named step 1001 */
		{ 5, 1000, -1, 5, 2, 1, 4999, 5, 1001, 5, 1001 },
		/* every epoch from the first */
		{ 3, 1000, -1, 1, 1, 3, 999, 1, 1001, 3, 1001 },
		/* 0: none at all */
		{ 3, 1000, 0, 1, 1, 0, 0, 0, 0, 0, 0 },
		/* checkpoint_after_epoch 0: epochs count from 1, so none (:360); gpufeed took it
		 * as 1 before */
		{ 3, 1000, -1, 0, 1, 0, 0, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		uint64_t due = 0, first = UINT64_MAX, e, st;

		small_workload(&w, 100000, 1, 4, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		w.train.epochs = t[i].epochs;
		w.train.total_training_steps = t[i].tts;
		w.workflow.checkpoint = true;
		w.checkpoint.steps_between_checkpoints = t[i].sbc;
		w.checkpoint.checkpoint_after_epoch = t[i].after;
		w.checkpoint.epochs_between_checkpoints = t[i].between;
		build_ok(&w, 8, &p);
		assert_int_equal(p.total_steps, (uint64_t)(t[i].epochs * t[i].tts));
		for (uint64_t s = 0; s < p.total_steps; s++)
			if (gf_plan_checkpoint_due(&w, &p, s)) {
				if (first == UINT64_MAX)
					first = s;
				due++;
			}
		if (due != t[i].count || gf_plan_checkpoints(&w, &p) != t[i].count)
			fail_msg("case %zu: %llu due, %llu counted, expected %llu", i, (unsigned long long)due,
				 (unsigned long long)gf_plan_checkpoints(&w, &p), (unsigned long long)t[i].count);
		if (!t[i].count)
			continue;
		assert_int_equal(first, t[i].first_step);
		gf_plan_checkpoint_id(&w, &p, 0, &e, &st);
		assert_int_equal(e, t[i].first_epoch);
		assert_int_equal(st, t[i].first_s);
		gf_plan_checkpoint_id(&w, &p, t[i].count - 1, &e, &st);
		assert_int_equal(e, t[i].last_epoch);
		assert_int_equal(st, t[i].last_s);
	}
	/* Checkpoint-only (main.py:275-289): epoch 1, steps 1, 2, 3 ... */
	{
		struct gf_workload w;
		uint64_t e, st;
		small_workload(&w, 100, 1, 4, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		w.workflow.train = false;
		w.workflow.checkpoint = true;
		gf_plan_checkpoint_id(&w, NULL, 6, &e, &st);
		assert_int_equal(e, 1);
		assert_int_equal(st, 7);
	}
}

/* The loader model follows the framework: pytorch (DLIO torch_data_loader.py:143-156)
 * one sample read in flight per reader thread; tensorflow + tfrecord the TFRecord stream
 * (tf_reader.py:91); mmap_indexed_binary keeps files open (indexed_binary_mmap_reader.py:
 * 53-66); target.queue_depth given is the asynchronous loader at that depth. */
static void test_loader_model(void **state)
{
	static const struct {
		const char *loader, *format;
		int64_t qd, per_rank;
		enum gf_loader want;
		unsigned depth;
		bool keep_open;
	} t[] = {
		{ "pytorch", "npz", 0, 1, GF_LOADER_WORKER, 1, false },
		{ "pytorch", "hdf5", 0, 1, GF_LOADER_WORKER, 1, false },
		{ "pytorch", "mmap_indexed_binary", 0, 1, GF_LOADER_WORKER, 1, true },
		{ "tensorflow", "tfrecord", 0, 1, GF_LOADER_TF_STREAM, 1, false },
		{ "tensorflow", "tfrecord", 0, 2, GF_LOADER_WORKER, 1, false }, /* a stream per rank */
		{ "tensorflow", "npz", 0, 1, GF_LOADER_WORKER, 1, false },
		{ "pytorch", "npz", 8, 1, GF_LOADER_ASYNC, 8, false },
		{ "tensorflow", "tfrecord", 4, 1, GF_LOADER_ASYNC, 4, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;

		small_workload(&w, 64, 4, 2, t[i].per_rank, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		snprintf(w.reader.data_loader, sizeof(w.reader.data_loader), "%s", t[i].loader);
		set_format(&w, t[i].format);
		w.target.queue_depth = t[i].qd;
		w.reader.read_threads = 3;
		build_ok(&w, 2, &p);
		assert_int_equal(p.loader, t[i].want);
		assert_int_equal(p.read_depth, t[i].depth);
		assert_int_equal(p.keep_open, t[i].keep_open);
		assert_int_equal(p.threads, 3);
	}
}

/* DLIO's PyTorch order (run.sample_order dlio, the default): dlio_sampler
 * (torch_data_loader.py:88-107) yields rank r's contiguous range r x ceil(n / size) ...
 * in order, every epoch, whatever reader.sample_shuffle and file_shuffle say (config.py:
 * 443-455 shuffles only the order a dictionary is filled in). Expected: accelerator a's
 * pos-th sample of any epoch is a x share + pos, and both keys are listed as without
 * effect. Buggy: the shuffled order of gpufeed before, its page-cache hits DLIO never
 * gets. The TFRecord stream keeps tf.data's shuffle buffer. */
static void without_effect_cb(void *arg, const char *key, const char *why)
{
	(void)why;
	if (!strcmp(key, "reader.sample_shuffle") || !strcmp(key, "reader.file_shuffle"))
		(*(int *)arg)++;
}

static void test_dlio_order(void **state)
{
	struct gf_workload w;
	struct gf_plan p;
	int listed = 0;

	(void)state;
	small_workload(&w, 40, 3, 4, 1, GF_SHUFFLE_SEED, GF_SHUFFLE_RANDOM);
	w.run.sample_order = GF_ORDER_DLIO;
	w.key_origin[gf_key_find("reader.sample_shuffle") - gf_keys] = 1;
	w.key_origin[gf_key_find("reader.file_shuffle") - gf_keys] = 1;
	build_ok(&w, 3, &p);
	assert_false(p.shuffled_order);
	for (uint64_t ep = 0; ep < 3; ep++) {
		struct gf_epoch e;
		gf_plan_epoch(&p, ep, &e);
		for (unsigned a = 0; a < p.accels; a++)
			for (uint64_t pos = 0; pos < p.share; pos++) {
				struct gf_sample s;
				gf_plan_sample(&e, a, pos, &s);
				assert_int_equal(s.id, (uint64_t)a * 40 + pos);
				assert_int_equal(s.file, s.id / 3);
			}
	}
	gf_plan_without_effect(&w, &p, without_effect_cb, &listed);
	assert_int_equal(listed, 2);
	/* Asked for: the shuffles apply; tf.data's buffer shuffles whatever the order key. */
	w.run.sample_order = GF_ORDER_SHUFFLED;
	build_ok(&w, 3, &p);
	assert_true(p.shuffled_order);
	listed = 0;
	gf_plan_without_effect(&w, &p, without_effect_cb, &listed);
	assert_int_equal(listed, 0);
	w.run.sample_order = GF_ORDER_DLIO;
	set_format(&w, "tfrecord");
	snprintf(w.reader.data_loader, sizeof(w.reader.data_loader), "tensorflow");
	build_ok(&w, 3, &p);
	assert_int_equal(p.loader, GF_LOADER_TF_STREAM);
	assert_true(p.shuffled_order);
}

/* Batches in flight per accelerator: DLIO hands a PyTorch DataLoader prefetch_factor =
 * ceil(prefetch_size / read_threads), 2 when that is 0 (torch_data_loader.py:119-131), and
 * the DataLoader keeps prefetch_factor x num_workers batches outstanding; tf.data's
 * prefetch(prefetch_size) for the stream (tf_reader.py:112). Hand-computed. Buggy: every
 * loader capped at prefetch_size, so threads past it idle (gpufeed before: unet3d's 4
 * workers with prefetch 2 kept 2 busy). */
static void test_in_flight(void **state)
{
	static const struct {
		enum gf_loader loader;
		uint64_t threads, prefetch, want;
	} t[] = {
		{ GF_LOADER_WORKER, 4, 2, 4 },   /* unet3d: 4 workers x ceil(2 / 4) = 1 */
		{ GF_LOADER_WORKER, 1, 2, 2 },
		{ GF_LOADER_WORKER, 2, 2, 2 },
		{ GF_LOADER_WORKER, 3, 8, 9 },   /* 3 x ceil(8 / 3) = 3 x 3 */
		{ GF_LOADER_WORKER, 32, 2, 32 }, /* a submitter's 32 workers */
		{ GF_LOADER_WORKER, 4, 0, 8 },   /* factor 0: PyTorch's default 2 */
		{ GF_LOADER_ASYNC, 2, 5, 6 },
		{ GF_LOADER_TF_STREAM, 4, 2, 2 },
		{ GF_LOADER_TF_STREAM, 4, 0, 1 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (gf_plan_in_flight(t[i].loader, t[i].threads, t[i].prefetch) != t[i].want)
			fail_msg("case %zu: %llu in flight, expected %llu", i,
				 (unsigned long long)gf_plan_in_flight(t[i].loader, t[i].threads, t[i].prefetch),
				 (unsigned long long)t[i].want);
}

/* A plain simulation of DLIO's tf.data pipeline for one rank (tf_reader.py:85-112,
 * mlperf_storage_v2.0): the sorted files sharded over ranks (or, with fewer files than
 * ranks, every record sharded after the shuffle), TFRecordDataset interleaving T files a
 * record at a time, a shuffle buffer of S, batch(drop_remainder) then repeat. For batch b
 * it returns the records each interleave slot had to read: the closed form of
 * gf_plan_stream_need must match it. */
static void simulate_need(uint64_t files, uint64_t spf, unsigned R, unsigned r, unsigned T,
			  uint64_t B, uint64_t S, uint64_t b, uint64_t *need)
{
	uint64_t n = 0, pass_slot[64] = { 0 }, outs = 0, want, passes = 0;

	for (uint64_t f = 0; f < files; f++)
		if (files < R || f % R == r)
			n++;
	/* One pass: the slot (thread) of every record in interleave order. */
	uint64_t order[4096], len = 0;
	for (uint64_t g = 0; g * T < n; g++) {
		uint64_t m = n - g * T < T ? n - g * T : T;
		for (uint64_t rec = 0; rec < spf; rec++)
			for (uint64_t j = 0; j < m; j++)
				order[len++] = j; /* slot j of group g is thread j */
	}
	for (uint64_t k = 0; k < len; k++)
		if (files >= R || k % R == r)
			outs++;
	want = b / (outs / B); /* whole passes before this batch */
	passes = want;
	b %= outs / B;
	/* Inputs consumed when output o = (b + 1) B - 1 of this rank leaves the buffer. */
	{
		uint64_t o = (b + 1) * B - 1, k = (files >= R ? o : o * R + r) + S;
		if (k > len)
			k = len;
		for (unsigned t = 0; t < T; t++)
			need[t] = 0;
		for (uint64_t i = 0; i < len; i++)
			pass_slot[order[i]]++;
		for (unsigned t = 0; t < T; t++)
			need[t] = passes * pass_slot[t];
		for (uint64_t i = 0; i < k; i++)
			need[order[i]]++;
	}
}

static void test_stream_need(void **state)
{
	static const struct {
		uint64_t files, spf;
		unsigned ranks, threads;
		uint64_t batch, shuffle;
	} t[] = {
		{ 8, 3, 2, 2, 2, 1 },     /* the hand example below */
		{ 32, 5, 4, 8, 4, 1 },    /* more threads than the shard's files */
		{ 30, 4, 4, 3, 5, 16 },   /* shards of 8 and 7 files, a shuffle buffer */
		{ 3, 10, 4, 2, 2, 4 },    /* fewer files than ranks: records sharded */
		{ 16, 1, 2, 4, 1, 2 },    /* cosmoflow-like: one record per file, batch 1 */
		{ 64, 6, 2, 8, 7, 1024 }, /* a buffer larger than a pass */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;

		small_workload(&w, (int64_t)t[i].files, (int64_t)t[i].spf, (int64_t)t[i].batch, 1,
			       GF_SHUFFLE_OFF, t[i].shuffle > 1 ? GF_SHUFFLE_SEED : GF_SHUFFLE_OFF);
		snprintf(w.reader.data_loader, sizeof(w.reader.data_loader), "tensorflow");
		w.dataset.format = GF_FMT_TFRECORD;
		w.reader.read_threads = t[i].threads;
		w.reader.shuffle_size = (int64_t)t[i].shuffle;
		build_ok(&w, t[i].ranks, &p);
		assert_int_equal(p.loader, GF_LOADER_TF_STREAM);
		assert_int_equal(p.chunk, 256 << 10); /* TFRecordDataset's default buffer */
		for (unsigned r = 0; r < t[i].ranks; r++)
			for (uint64_t b = 0; b < 3 * p.steps_per_epoch + 2; b++) {
				uint64_t need[64];
				simulate_need(t[i].files, t[i].spf, t[i].ranks, r, t[i].threads, t[i].batch,
					      t[i].shuffle, b, need);
				for (unsigned th = 0; th < t[i].threads; th++)
					if (gf_plan_stream_need(&p, r, th, b) != need[th])
						fail_msg("case %zu rank %u batch %llu thread %u: need %llu, simulated %llu",
							 i, r, (unsigned long long)b, th,
							 (unsigned long long)gf_plan_stream_need(&p, r, th, b),
							 (unsigned long long)need[th]);
			}
	}
	/* By hand: 8 files, 2 ranks, 2 threads, 3 records a file, batch 2. Rank 0's shard is
	 * files 0 2 4 6; thread 0 streams 0 then 4, thread 1 2 then 6; the interleave reads
	 * f0r0 f2r0 f0r1 f2r1 f0r2 f2r2 f4r0 f6r0 ...; batch 3 (records 6, 7) needs 4 from each,
	 * batch 6 opens the second pass: 6 + 1 each. */
	{
		struct gf_workload w;
		struct gf_plan p;
		small_workload(&w, 8, 3, 2, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		snprintf(w.reader.data_loader, sizeof(w.reader.data_loader), "tensorflow");
		w.dataset.format = GF_FMT_TFRECORD;
		w.reader.read_threads = 2;
		build_ok(&w, 2, &p);
		assert_int_equal(gf_plan_stream_need(&p, 0, 0, 0), 1);
		assert_int_equal(gf_plan_stream_need(&p, 0, 1, 0), 1);
		assert_int_equal(gf_plan_stream_need(&p, 0, 0, 3), 4);
		assert_int_equal(gf_plan_stream_need(&p, 0, 1, 3), 4);
		assert_int_equal(gf_plan_stream_need(&p, 0, 0, 6), 7);
		assert_int_equal(gf_plan_stream_file(&p, 0, 0, 0), 0);
		assert_int_equal(gf_plan_stream_file(&p, 0, 0, 1), 4);
		assert_int_equal(gf_plan_stream_file(&p, 0, 1, 1), 6);
		assert_int_equal(gf_plan_stream_file(&p, 0, 1, 2), 2); /* the next pass */
		assert_int_equal(gf_plan_stream_file(&p, 1, 0, 1), 5);
	}
}

/* demand_bytes_per_s = batch x mean / mean compute; bytes_per_step = batch x mean. */
static void test_demand(void **state)
{
	static const struct {
		int64_t batch;
		uint64_t mean;
		struct gf_dist compute;
		double compute_s, bytes_per_step, bytes_per_s, samples_per_s;
	} t[] = {
		{ 4, 1000, { GF_DIST_CONST, 0.5, 0 }, 0.5, 4000, 8000, 8 },
		{ 7, 146600628, { GF_DIST_CONST, 0.323, 0 }, 0.323, 7.0 * 146600628,
		  7.0 * 146600628 / 0.323, 7 / 0.323 },
		{ 400, 114660, { GF_DIST_NORMAL, 0.224, 0.001 }, 0.224, 400.0 * 114660,
		  400.0 * 114660 / 0.224, 400 / 0.224 },
		{ 8, 131072, { GF_DIST_UNIFORM, 0.2, 0.6 }, 0.4, 8.0 * 131072, 8.0 * 131072 / 0.4,
		  20 },
		{ 2, 1 << 20, { GF_DIST_GAMMA, 2, 0.05 }, 0.1, 2.0 * (1 << 20), 20.0 * (1 << 20), 20 },
		{ 1, 4096, { GF_DIST_EXPONENTIAL, 0.25, 0 }, 0.25, 4096, 4 * 4096, 4 },
		/* No compute: nothing to derive a demand from. */
		{ 4, 1000, { GF_DIST_CONST, 0, 0 }, 0, 4000, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;

		small_workload(&w, 10000, 1, t[i].batch, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		w.dataset.record_length_bytes = t[i].mean;
		w.dataset.record_length_bytes_stdev = 0;
		w.train.computation_time = t[i].compute;
		build_ok(&w, 1, &p);
		if (fabs(p.compute_s - t[i].compute_s) > 1e-9 * (1 + t[i].compute_s) ||
		    fabs(p.bytes_per_step - t[i].bytes_per_step) > 1e-9 * t[i].bytes_per_step ||
		    fabs(p.demand_bytes_per_s - t[i].bytes_per_s) > 1e-9 * (1 + t[i].bytes_per_s) ||
		    fabs(p.demand_samples_per_s - t[i].samples_per_s) > 1e-9 * (1 + t[i].samples_per_s))
			fail_msg("case %zu: compute %g bytes/step %g demand %g B/s %g samples/s, "
				 "expected %g %g %g %g", i, p.compute_s, p.bytes_per_step,
				 p.demand_bytes_per_s, p.demand_samples_per_s, t[i].compute_s,
				 t[i].bytes_per_step, t[i].bytes_per_s, t[i].samples_per_s);
		assert_true(fabs(p.dataset_bytes - 10000.0 * (double)t[i].mean) < 1e-6);
	}
}

/* Fewer samples than accelerators x batch: -EINVAL and a message that says why and what
 * to change. Not an error when training is off. */
static void test_too_small(void **state)
{
	static const struct {
		int64_t files, spf, batch, per_rank;
		unsigned ranks;
		const char *numbers; /* expected in the message */
	} t[] = {
		{ 5, 1, 4, 1, 2, "5 samples" },
		{ 7, 1, 1, 2, 4, "8 accelerator(s)" },
		{ 3, 10, 16, 1, 2, "= 32" },
		{ 1, 1, 2, 1, 1, "batch_size 2" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		char err[512] = "";

		small_workload(&w, t[i].files, t[i].spf, t[i].batch, t[i].per_rank, GF_SHUFFLE_OFF,
			       GF_SHUFFLE_SEED);
		assert_int_equal(gf_plan_build(&w, t[i].ranks, &p, err, sizeof(err)), -EINVAL);
		if (!strstr(err, "fewer than one batch") || !strstr(err, t[i].numbers) ||
		    !strstr(err, "num_files_train") || !strstr(err, "batch_size"))
			fail_msg("case %zu: message '%s'", i, err);
		/* The file it came from names the message. */
		snprintf(w.source, sizeof(w.source), "tiny.yaml");
		err[0] = '\0';
		assert_int_equal(gf_plan_build(&w, t[i].ranks, &p, err, sizeof(err)), -EINVAL);
		assert_true(strncmp(err, "tiny.yaml: ", 11) == 0);
		/* Without a training phase there is nothing to schedule, and no error. */
		w.workflow.train = false;
		w.workflow.checkpoint = true;
		assert_int_equal(gf_plan_build(&w, t[i].ranks, &p, err, sizeof(err)), 0);
	}
}

static void test_file_paths(void **state)
{
	static const struct {
		const char *root, *prefix, *format;
		int64_t files, subfolders;
		uint64_t file;
		const char *path, *sub;
	} t[] = {
		{ "/data", "img", "npz", 10, 0, 3, "/data/train/img_3_of_10.npz", "" },
		{ "/data", "img", "npz", 10, 4, 3, "/data/train/3/img_3_of_10.npz", "3" },
		{ "/data", "img", "npz", 10, 4, 7, "/data/train/3/img_7_of_10.npz", "3" },
		{ "/data", "img", "npz", 10, 4, 0, "/data/train/0/img_0_of_10.npz", "0" },
		{ "/lustre/gf", "img", "tfrecord", 1024, 0, 1023,
		  "/lustre/gf/train/img_1023_of_1024.tfrecord", "" },
		{ "s3://bucket/pre", "sample", "jpeg", 100000, 10, 12345,
		  "s3://bucket/pre/train/5/sample_12345_of_100000.jpeg", "5" },
		{ "rel", "x", "hdf5", 1, 1, 0, "rel/train/0/x_0_of_1.hdf5", "0" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		char buf[512], sub[32] = "junk";

		small_workload(&w, t[i].files, 1, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		snprintf(w.dataset.file_prefix, sizeof(w.dataset.file_prefix), "%s", t[i].prefix);
		set_format(&w, t[i].format);
		w.dataset.num_subfolders_train = t[i].subfolders;
		build_ok(&w, 1, &p);
		assert_int_equal(gf_plan_file_path(&w, &p, t[i].root, t[i].file, buf, sizeof(buf)), 0);
		assert_string_equal(buf, t[i].path);
		gf_plan_subfolder(&w, t[i].file, sub, sizeof(sub));
		assert_string_equal(sub, t[i].sub);
		/* A buffer one byte too short is refused, not silently cut. */
		assert_int_equal(gf_plan_file_path(&w, &p, t[i].root, t[i].file, buf, strlen(t[i].path)),
				 -ENAMETOOLONG);
		assert_int_equal(gf_plan_file_path(&w, &p, t[i].root, t[i].file, buf, strlen(t[i].path) + 1), 0);
		assert_string_equal(buf, t[i].path);
	}
}

/* CPU time of this thread: a loaded machine stretches the wall clock, not the work. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* 10^10 samples: the plan holds nothing per file or sample, builds instantly, and the
 * last positions of the last accelerator map to valid, distinct samples. */
static void test_huge(void **state)
{
	static const enum gf_shuffle modes[][2] = {
		{ GF_SHUFFLE_OFF, GF_SHUFFLE_SEED },
		{ GF_SHUFFLE_SEED, GF_SHUFFLE_OFF },
		{ GF_SHUFFLE_OFF, GF_SHUFFLE_OFF },
	};
	enum { N = 2000 };

	(void)state;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		struct gf_workload w;
		struct gf_plan p;
		struct gf_epoch e;
		uint64_t ids[N];
		unsigned last;
		double t0, dt;

		small_workload(&w, 10000000000ll, 1, 32, 8, modes[m][0], modes[m][1]);
		w.train.epochs = 3;
		t0 = now_s();
		build_ok(&w, 64, &p);
		gf_plan_epoch(&p, 2, &e);
		assert_int_equal(p.samples, 10000000000ull);
		assert_int_equal(p.accels, 512);
		assert_int_equal(p.share, 19531250);
		assert_int_equal(p.steps_per_epoch, 610351);
		assert_int_equal(p.total_steps, 3 * 610351);
		last = p.accels - 1;
		for (int i = 0; i < N; i++) {
			struct gf_sample s;
			uint64_t pos = p.share - 1 - (uint64_t)i;

			gf_plan_sample(&e, last, pos, &s);
			assert_true(s.id < p.samples);
			assert_int_equal(s.file, s.id);
			assert_int_equal(s.offset, gf_plan_sample_offset(&p, s.file, 0)); /* after the npz head */
			assert_int_equal(s.length, gf_plan_sample_size(&p, s.file, 0));
			assert_true(s.length >= 1);
			if (modes[m][0] == GF_SHUFFLE_OFF && modes[m][1] == GF_SHUFFLE_OFF)
				assert_int_equal(s.id, (uint64_t)last * p.share + pos);
			ids[i] = s.id;
		}
		dt = now_s() - t0;
		assert_true(dt < 1.0);
		qsort(ids, N, sizeof(ids[0]), cmp_u64);
		for (int i = 1; i < N; i++)
			assert_true(ids[i] != ids[i - 1]);
		/* A file path near the end is well formed. */
		{
			char buf[256];

			assert_int_equal(gf_plan_file_path(&w, &p, "/d", p.files - 1, buf, sizeof(buf)), 0);
			assert_string_equal(buf, "/d/train/img_9999999999_of_10000000000.npz");
		}
	}
}

/* Layout follows the format; one-sample formats with several samples per file are read
 * as records. */
static void test_layout(void **state)
{
	static const struct {
		const char *format;
		int64_t spf;
		enum gf_layout layout;
	} t[] = {
		{ "npz", 1, GF_LAYOUT_FILE_PER_SAMPLE },  { "npz", 4, GF_LAYOUT_FILE_PER_SAMPLE },
		{ "jpeg", 1, GF_LAYOUT_FILE_PER_SAMPLE }, { "tfrecord", 1, GF_LAYOUT_RECORDS },
		{ "hdf5", 8, GF_LAYOUT_ROWS },            { "indexed_binary", 8, GF_LAYOUT_INDEXED },
		{ "hdf5", 1, GF_LAYOUT_ROWS },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;

		small_workload(&w, 100, t[i].spf, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
		set_format(&w, t[i].format);
		build_ok(&w, 1, &p);
		assert_int_equal(p.layout, t[i].layout);
	}
}

/* format hdf5: each file is records[spf][row_bytes], row_bytes its largest sample; sample
 * j is at j x row_bytes (row j in row-major order, what the hdf5 engine turns back into
 * a row), every sample fits its row, the dataset is spf x row_bytes; chunk rows follow
 * dataset.chunk_size in whole rows, 0 when chunking is off. */
static void test_rows(void **state)
{
	static const struct {
		int64_t spf;
		uint64_t mean, stdev, chunk;
		bool chunked;
	} t[] = {
		{ 64, 10240, 2048, 65536, true }, { 7, 4096, 1000, 0, true }, { 1, 5000, 900, 1 << 20, true },
		{ 64, 4096, 0, 10000, true },     { 33, 8000, 7000, 0, false }, { 2, 100, 90, 250, true },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_plan p;
		uint64_t widths_differ = 0, first_w = 0;

		small_workload(&w, 12, t[i].spf, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_SEED);
		w.dataset.format = GF_FMT_HDF5;
		w.dataset.record_length_bytes = t[i].mean;
		w.dataset.record_length_bytes_stdev = t[i].stdev;
		w.dataset.enable_chunking = t[i].chunked;
		w.dataset.chunk_size = t[i].chunk;
		build_ok(&w, 1, &p);
		assert_int_equal(p.layout, GF_LAYOUT_ROWS);
		for (uint64_t f = 0; f < 12; f++) {
			uint64_t width = gf_plan_row_bytes(&p, f), widest = 0, cr = gf_plan_chunk_rows(&p, f);

			for (uint64_t j = 0; j < (uint64_t)t[i].spf; j++) {
				uint64_t size = gf_plan_sample_size(&p, f, j);
				widest = size > widest ? size : widest;
				assert_int_equal(gf_plan_sample_offset(&p, f, j), j * width);
				assert_true(size <= width);
			}
			if (widest != width)
				fail_msg("case %zu file %llu: row_bytes %llu, largest sample %llu", i,
					 (unsigned long long)f, (unsigned long long)width, (unsigned long long)widest);
			assert_int_equal(gf_plan_file_size(&p, f), (uint64_t)t[i].spf * width);
			if (!t[i].chunked) {
				assert_int_equal(cr, 0);
			} else {
				uint64_t want = t[i].chunk / width;
				want = want < 1 ? 1 : want > (uint64_t)t[i].spf ? (uint64_t)t[i].spf : want;
				assert_int_equal(cr, want);
			}
			if (f == 0)
				first_w = width;
			widths_differ += width != first_w;
		}
		/* Varying sizes give each file its own width (unless clamping at 2 x mean - 1
		 * makes them all alike); fixed sizes the mean. */
		if (t[i].stdev == 0)
			assert_int_equal(first_w, t[i].mean);
		else if (t[i].stdev * 3 < t[i].mean)
			assert_true(widths_differ > 0);
		/* The schedule hands out the same offsets. */
		{
			struct gf_epoch e;
			struct gf_sample s;
			gf_plan_epoch(&p, 0, &e);
			for (uint64_t pos = 0; pos < p.share; pos++) {
				gf_plan_sample(&e, 0, pos, &s);
				assert_int_equal(s.offset, (s.id % p.samples_per_file) * gf_plan_row_bytes(&p, s.file));
			}
		}
	}
}

static uint64_t widest_sample(const struct gf_plan *p, uint64_t f)
{
	uint64_t w = 0;

	for (uint64_t j = 0; j < p->samples_per_file; j++) {
		uint64_t size = gf_plan_sample_size(p, f, j);
		w = size > w ? size : w;
	}
	return w;
}

/* Row widths are remembered per thread: two plans asked in turn, and files that share a
 * memo slot (f and f + 4096), still get their own widths. */
static void test_rows_memo(void **state)
{
	struct gf_workload w;
	struct gf_plan a, b;

	(void)state;
	small_workload(&w, 20000, 16, 1, 1, GF_SHUFFLE_OFF, GF_SHUFFLE_OFF);
	w.dataset.format = GF_FMT_HDF5;
	w.dataset.record_length_bytes = 5000;
	w.dataset.record_length_bytes_stdev = 500;
	build_ok(&w, 1, &a);
	w.dataset.record_length_bytes_stdev = 800;
	build_ok(&w, 1, &b);
	for (uint64_t f = 0; f < 9000; f += 7) {
		uint64_t g = f + 4096;
		assert_int_equal(gf_plan_row_bytes(&a, f), widest_sample(&a, f));
		assert_int_equal(gf_plan_row_bytes(&a, g), widest_sample(&a, g));
		assert_int_equal(gf_plan_row_bytes(&a, f), widest_sample(&a, f));
		assert_int_equal(gf_plan_row_bytes(&b, f), widest_sample(&b, f));
		assert_int_equal(gf_plan_row_bytes(&a, f), widest_sample(&a, f));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_shares_cover),
		cmocka_unit_test(test_uneven_split),
		cmocka_unit_test(test_epoch_orders),
		cmocka_unit_test(test_seed_selects_order),
		cmocka_unit_test(test_size_dims),
		cmocka_unit_test(test_sizes_at_least_one),
		cmocka_unit_test(test_offsets_prefix_sums),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_steps_cap_refused),
		cmocka_unit_test(test_fit_files),
		cmocka_unit_test(test_checkpoint_schedule),
		cmocka_unit_test(test_loader_model),
		cmocka_unit_test(test_dlio_order),
		cmocka_unit_test(test_in_flight),
		cmocka_unit_test(test_stream_need),
		cmocka_unit_test(test_demand),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_file_paths),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_rows_memo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
