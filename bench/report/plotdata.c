/* plotdata: see plotdata.h. */
#include "report/plotdata.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/doc.h"
#include "results/load.h"
#include "results/rdir.h"

/* --- reading a CSV file by column names --- */

/* The rows of a CSV file, the columns named in cols (NAN where a column is missing or a
 * field empty), and the first text column when text is set. */
struct table {
	size_t n, cap, ncols;
	double *v;   /* n x ncols */
	char (*text)[16];
};

static void table_free(struct table *t)
{
	free(t->v);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

static int table_grow(struct table *t, bool text)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	double *v = realloc(t->v, cap * t->ncols * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->v = v;
	if (text) {
		char (*tx)[16] = realloc(t->text, cap * sizeof(*tx));
		if (!tx)
			return -ENOMEM;
		t->text = tx;
	}
	t->cap = cap;
	return 0;
}

/* Read path's columns cols[0..ncols) (and the column named text as a short string).
 * Returns 0, -ENOENT when the file or its first column is missing, -EFBIG past
 * GF_PLOT_MAX_ROWS rows, or -errno. */
static int table_read(const char *path, const char *const *cols, size_t ncols, const char *text,
		      struct table *t)
{
	char line[4096], *f[128];
	int idx[16], ti = -1;
	FILE *fp;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	for (size_t c = 0; c < ncols && c < 16; c++)
		idx[c] = gf_csv_column(path, cols[c]);
	if (idx[0] < 0)
		return idx[0] == -ENODATA ? 0 : idx[0];
	if (text)
		ti = gf_csv_column(path, text);
	fp = gf_load_fopen(path, GF_LOAD_CSV_MAX);
	if (!fp)
		return -errno;
	if (!fgets(line, sizeof(line), fp))
		goto out;
	while (fgets(line, sizeof(line), fp)) {
		int nf = gf_csv_split(line, f, 128);
		if (nf <= idx[0] || !f[idx[0]][0])
			continue;
		if (t->n == GF_PLOT_MAX_ROWS) {
			rc = -EFBIG;
			goto out;
		}
		if (t->n == t->cap && (rc = table_grow(t, text != NULL)))
			goto out;
		for (size_t c = 0; c < ncols; c++) {
			int i = idx[c];
			double v = i >= 0 && i < nf && f[i][0] ? strtod(f[i], NULL) : NAN;
			/* 1e400 reads as inf: no row of gpufeed's holds one, so it is a cell left
			 * empty (an infinite time made the bin count NaN). */
			t->v[t->n * ncols + c] = isfinite(v) ? v : NAN;
		}
		if (text)
			snprintf(t->text[t->n], sizeof(t->text[0]), "%s", ti >= 0 && ti < nf ? f[ti] : "");
		t->n++;
	}
out:
	fclose(fp);
	if (rc)
		table_free(t);
	return rc;
}

static double cell(const struct table *t, size_t row, size_t col)
{
	return t->v[row * t->ncols + col];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The interval of a series: the smallest step between two of its start times (1 s when
 * it cannot tell, as with a single interval). */
static double interval_of(const struct table *t)
{
	double *ts = malloc((t->n ? t->n : 1) * sizeof(*ts)), best = 0;

	if (!ts)
		return 1.0;
	for (size_t i = 0; i < t->n; i++)
		ts[i] = cell(t, i, 0);
	qsort(ts, t->n, sizeof(*ts), cmp_double);
	for (size_t i = 1; i < t->n; i++) {
		double d = ts[i] - ts[i - 1];
		if (d > 1e-6 && (best == 0 || d < best))
			best = d;
	}
	free(ts);
	return best > 0 ? best : 1.0;
}

/* --- time series summed over ranks --- */

enum { S_T, S_BYTES, S_SAMPLES, S_REQ, S_COMPUTE, S_LAT, S_CKPT, S_RANKS, S_COLS };

static void put_num(FILE *f, double v, const char *fmt)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("NaN", f);
}

int gf_plotdata_series(const char *in, const char *out, double t_end, double accels, bool halts,
		       struct gf_series_info *info)
{
	/* S_RANKS counts the rows of an interval: no column of its own. */
	static const char *const cols[S_RANKS] = { "t_s", "read_bytes", "samples", "requests", "compute_s",
						   "latency_sum_s", "checkpoint_s" };
	struct table t;
	double (*bin)[S_COLS] = NULL, nk = 0, m;
	size_t nbins = 0;
	FILE *f = NULL;
	int rc;

	memset(info, 0, sizeof(*info));
	info->iv = 1.0;
	rc = table_read(in, cols, S_RANKS, NULL, &t);
	if (rc)
		return rc;
	if (!t.n)
		goto out;
	info->iv = interval_of(&t);
	/* The intervals the file spans, as a double: a hostile time (1e300) must not overflow
	 * a count. Past GF_PLOT_MAX_POINTS, m of them make one bin. */
	for (size_t i = 0; i < t.n; i++) {
		double k = floor(cell(&t, i, S_T) / info->iv + 0.5);
		if (k >= 0 && k + 1 > nk)
			nk = k + 1;
	}
	m = nk > GF_PLOT_MAX_POINTS ? ceil(nk / GF_PLOT_MAX_POINTS) : 1;
	nbins = nk > 0 ? (size_t)floor((nk - 1) / m) + 1 : 0;
	bin = calloc(nbins ? nbins : 1, sizeof(*bin));
	if (!bin) {
		rc = -ENOMEM;
		goto out;
	}
	/* Every rank's row of interval k adds to its bin: the job's figure, not a rank's. */
	for (size_t i = 0; i < t.n; i++) {
		double k = floor(cell(&t, i, S_T) / info->iv + 0.5);
		size_t b;
		if (!(k >= 0))
			continue;
		b = (size_t)floor(k / m);
		for (int c = S_BYTES; c < S_RANKS; c++)
			bin[b][c] += isnan(cell(&t, i, c)) ? 0 : cell(&t, i, c);
		bin[b][S_RANKS]++;
		/* A column the file lacks stays absent, not zero. */
		if (isnan(cell(&t, i, S_LAT)))
			bin[b][S_LAT] = NAN;
		if (isnan(cell(&t, i, S_COMPUTE)))
			bin[b][S_COMPUTE] = NAN;
	}
	/* The ranks' rows of a bin are over its m intervals (fewer in the last one). */
	for (size_t b = 0; b < nbins; b++)
		bin[b][S_RANKS] /= fmin(m, nk - (double)b * m);
	info->iv *= m;
	f = gf_rdir_fopen(out, "w");
	if (!f) {
		rc = -errno;
		goto out;
	}
	fprintf(f, "t_s,width_s,t_mid_s,read_bytes_per_s,samples_per_s,requests_per_s,au_percent,"
		"read_latency_mean_us,halted_percent\n");
	for (size_t k = 0; k < nbins; k++) {
		double t0 = (double)k * info->iv, w = info->iv, rate, lat, halted = 0;
		/* The last interval is cut short by the end of the phase: rates over the part
		 * the phase lasted, so the run does not seem to slow down at its end. */
		if (t_end > 0 && t_end - t0 < w)
			w = t_end - t0;
		if (!(w > 0) || (w < GF_PLOT_SLIVER * info->iv && k > 0)) {
			info->dropped_last = true;
			continue;
		}
		rate = bin[k][S_BYTES] / w;
		lat = bin[k][S_REQ] > 0 ? bin[k][S_LAT] / bin[k][S_REQ] * 1e6 : NAN;
		fprintf(f, "%.6f,%.6f,%.6f,%.6e,%.6e,%.6e,", t0, w, t0 + w / 2, rate, bin[k][S_SAMPLES] / w,
			bin[k][S_REQ] / w);
		/* AU as summary.json counts it: a checkpoint halt is no time the accelerators
		 * waited for data, so it leaves the interval's time; an interval halted all
		 * through has no AU (a gap, its burst shaded), never 0%. */
		if (halts && bin[k][S_RANKS] > 0)
			halted = fmin(1, bin[k][S_CKPT] / (bin[k][S_RANKS] * w));
		put_num(f, accels > 0 && halted < 0.95 ? 100.0 * bin[k][S_COMPUTE] / (w * accels * (1 - halted)) : NAN,
			"%.4f");
		fputc(',', f);
		put_num(f, lat, "%.6e");
		fprintf(f, ",%.2f\n", 100 * halted);
		info->rows++;
		info->bytes += bin[k][S_BYTES];
		info->width += w;
		if (rate > info->max_rate)
			info->max_rate = rate;
		if (isfinite(lat) && lat > info->max_lat_us)
			info->max_lat_us = lat;
	}
	if (fclose(f))
		rc = -errno;
	f = NULL;
out:
	free(bin);
	table_free(&t);
	return rc ? rc : (int)info->rows;
}

/* --- checkpoint bursts on the timeline --- */

int gf_plotdata_spans(struct gf_doc *s, const char *timeseries, double iv, const char *out)
{
	size_t len = gf_len(s, GF_F_CKPT_BURSTS);
	int n = 0;
	FILE *f = gf_rdir_fopen(out, "w");

	if (!f)
		return -errno;
	fprintf(f, "start_s,end_s,label\n");
	for (size_t i = 0; i < len && n < GF_PLOT_MAX_POINTS; i++) {
		double st, el, ck = gf_el_num(s, GF_F_BURST_CKPT, i, (double)i);
		if (!gf_el_get(s, GF_F_BURST_START_S, i, &st) || !gf_el_get(s, GF_F_BURST_S, i, &el))
			continue;
		fprintf(f, "%.6f,%.6f,%s %.0f\n", st, st + el,
			!strcmp(gf_el_str(s, GF_F_BURST_KIND, i, "write"), "restore") ? "restore" : "ckpt", ck);
		n++;
	}
	if (!n && timeseries) {
		/* No start times: the intervals in which a rank was halted for a burst. */
		static const char *const cols[2] = { "t_s", "checkpoint_s" };
		struct table t;
		double *ck = NULL;
		size_t nck = 0;
		int rc = table_read(timeseries, cols, 2, NULL, &t);
		if (!rc && t.n)
			ck = malloc(t.n * sizeof(*ck));
		for (size_t i = 0; ck && i < t.n; i++)
			if (cell(&t, i, 1) > 0)
				ck[nck++] = cell(&t, i, 0);
		qsort(ck, nck, sizeof(*ck), cmp_double);
		for (size_t i = 0; i < nck && n < GF_PLOT_MAX_POINTS;) {
			size_t j = i;
			while (j + 1 < nck && ck[j + 1] - ck[j] <= iv * 1.01)
				j++;
			fprintf(f, "%.6f,%.6f,ckpt %d\n", ck[i], ck[j] + iv, n++);
			i = j + 1;
		}
		free(ck);
		table_free(&t);
	}
	if (fclose(f))
		return -errno;
	return n;
}

/* --- checkpoint bursts --- */

static double median_sorted(const double *v, size_t n)
{
	return !n ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A row of checkpoint_ranks.csv by its burst: the rows sorted by burst, then by row,
 * so that a burst's rows are found by a binary search, not a pass over the file per
 * burst (quadratic in a file of 600,000 rows). */
struct brow {
	double burst;
	size_t row;
};

static int cmp_brow(const void *a, const void *b)
{
	const struct brow *x = a, *y = b;

	return x->burst != y->burst ? (x->burst > y->burst) - (x->burst < y->burst) : (x->row > y->row) - (x->row < y->row);
}

/* The first of the n sorted rows whose burst is at least b. */
static size_t first_of(const struct brow *r, size_t n, double b)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].burst < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fastest, median and slowest rank of the burst whose rows are r[0..n), over the ranks
 * with a time above zero (a rank that moved no data has nothing to wait for). */
static void ranks_of(const struct table *t, const struct brow *r, size_t n, double *lo, double *med, double *hi)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));
	size_t k = 0;

	*lo = *med = *hi = NAN;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		if (cell(t, r[i].row, 2) > 0)
			v[k++] = cell(t, r[i].row, 2);
	qsort(v, k, sizeof(*v), cmp_double);
	if (k) {
		*lo = v[0];
		*med = median_sorted(v, k);
		*hi = v[k - 1];
	}
	free(v);
}

/* One row of the checkpoint plot's data for burst b (rows r[0..n) of the CSV file).
 * Returns whether it was written (a burst of a known kind). */
static bool burst_row(FILE *f, struct gf_doc *s, const struct table *t, double b, const struct brow *r, size_t n,
		      double *max_bw, double *max_s)
{
	bool j = b < (double)gf_len(s, GF_F_CKPT_BURSTS), from_csv = false;
	const char *kind = j ? gf_el_str(s, GF_F_BURST_KIND, (size_t)b, NULL) : NULL;
	double ck = NAN, lo = NAN, med = NAN, hi = NAN, bw = NAN;

	for (size_t i = 0; i < n && (!kind || isnan(ck)); i++) {
		if (!kind)
			kind = t->text[r[i].row];
		if (isnan(ck))
			ck = cell(t, r[i].row, 1);
	}
	if (!kind || (strcmp(kind, "write") && strcmp(kind, "restore")))
		return false;
	if (j) {
		gf_el_get(s, GF_F_BURST_CKPT, (size_t)b, &ck);
		gf_el_get(s, GF_F_BURST_BPS, (size_t)b, &bw);
		from_csv = !gf_el_get(s, GF_F_BURST_RANK_MIN_S, (size_t)b, &lo) |
			   !gf_el_get(s, GF_F_BURST_RANK_MEDIAN_S, (size_t)b, &med) |
			   !gf_el_get(s, GF_F_BURST_RANK_MAX_S, (size_t)b, &hi);
	}
	if (!j || from_csv)
		ranks_of(t, r, n, &lo, &med, &hi);
	/* The burst's own time when no rank's time is known: its slowest rank. */
	if (isnan(hi) && j)
		gf_el_get(s, GF_F_BURST_S, (size_t)b, &hi);
	if (!(bw > 0))
		bw = NAN;
	if (isnan(ck))
		ck = b;
	fprintf(f, "%.0f,%s,%s %.0f,%.0f,%d,", b, kind, kind, ck, ck, !strcmp(kind, "restore"));
	put_num(f, lo, "%.6f");
	fputc(',', f);
	put_num(f, med, "%.6f");
	fputc(',', f);
	put_num(f, hi, "%.6f");
	fputc(',', f);
	put_num(f, bw, "%.6e");
	fputc('\n', f);
	if (isfinite(bw) && bw > *max_bw)
		*max_bw = bw;
	if (isfinite(hi) && hi > *max_s)
		*max_s = hi;
	return true;
}

int gf_plotdata_checkpoint(struct gf_doc *s, const char *ranks_csv, const char *out,
			   double *max_bw, double *max_s)
{
	static const char *const cols[3] = { "burst", "checkpoint", "seconds" };
	size_t narr = gf_len(s, GF_F_CKPT_BURSTS), nr = 0;
	struct brow *r = NULL;
	struct table t;
	FILE *f;
	int rc;

	*max_bw = *max_s = 0;
	rc = table_read(ranks_csv, cols, 3, "kind", &t);
	if (rc && rc != -ENOENT)
		return rc;
	rc = 0;
	r = malloc((t.n ? t.n : 1) * sizeof(*r));
	if (!r) {
		rc = -ENOMEM;
		goto out;
	}
	/* A burst is a whole number from 0 (a rank's row of a burst that is none is left out). */
	for (size_t i = 0; i < t.n; i++)
		if (cell(&t, i, 0) >= 0 && cell(&t, i, 0) < 1e15 && cell(&t, i, 0) == floor(cell(&t, i, 0)))
			r[nr++] = (struct brow){ cell(&t, i, 0), i };
	qsort(r, nr, sizeof(*r), cmp_brow);
	f = gf_rdir_fopen(out, "w");
	if (!f) {
		rc = -errno;
		goto out;
	}
	fprintf(f, "burst,kind,label,checkpoint,restore,fastest_s,median_s,slowest_s,bytes_per_s\n");
	/* The bursts of summary.json, then those only the CSV file has, in order; at most
	 * GF_PLOT_MAX_POINTS. */
	for (size_t b = 0, i = first_of(r, nr, (double)narr); rc < GF_PLOT_MAX_POINTS && (b < narr || i < nr);) {
		double id = b < narr ? (double)b++ : r[i].burst;
		size_t lo = first_of(r, nr, id), hi = first_of(r, nr, id + 0.5);
		if (id >= (double)narr)
			i = hi;
		rc += burst_row(f, s, &t, id, r + lo, hi - lo, max_bw, max_s);
	}
	if (fclose(f))
		rc = -errno;
out:
	free(r);
	table_free(&t);
	return rc;
}

/* --- latency percentiles --- */

int gf_plotdata_latency(const char *in, const char *curves, const char *phases, double *max_us)
{
	static const char *const cols[2] = { "bucket_high_ns", "cumulative_percent" };
	char names[8][16];
	struct table t;
	size_t stride;
	int np = 0, rc;
	FILE *fc = NULL, *fp = NULL;

	*max_us = 0;
	rc = table_read(in, cols, 2, "phase", &t);
	if (rc)
		return rc;
	stride = t.n / GF_PLOT_MAX_POINTS + 1;
	fc = gf_rdir_fopen(curves, "w");
	fp = gf_rdir_fopen(phases, "w");
	if (!fc || !fp) {
		rc = -errno;
		goto out;
	}
	/* The x axis counts "nines": p90 = 1, p99 = 2, p99.9 = 3, so the tail gets as much
	 * room as the median. The 100% bucket would be infinitely far right: it is named as
	 * the maximum instead. */
	fprintf(fc, "phase,nines,latency_us\n");
	fprintf(fp, "phase,p99_us,max_us\n");
	for (size_t i = 0; i < t.n; i++) {
		int p = -1;
		for (int k = 0; k < np; k++)
			if (!strcmp(names[k], t.text[i]))
				p = k;
		if (p < 0 && np < 6) {
			snprintf(names[np], sizeof(names[0]), "%s", t.text[i]);
			p = np++;
		}
		if (p < 0)
			continue;
		/* Every stride-th point of a file longer than a plot shows. */
		if (cell(&t, i, 1) < 100 && i % stride == 0)
			fprintf(fc, "%d,%.6f,%.6e\n", p + 1, -log10(1.0 - cell(&t, i, 1) / 100.0), cell(&t, i, 0) / 1e3);
		if (cell(&t, i, 0) / 1e3 > *max_us)
			*max_us = cell(&t, i, 0) / 1e3;
	}
	for (int k = 0; k < np; k++) {
		double p99 = NAN, mx = 0;
		/* p99: the upper edge of the first bucket at or past 99%. */
		for (size_t i = 0; i < t.n; i++) {
			if (strcmp(names[k], t.text[i]))
				continue;
			if (isnan(p99) && cell(&t, i, 1) >= 99)
				p99 = cell(&t, i, 0) / 1e3;
			if (cell(&t, i, 0) / 1e3 > mx)
				mx = cell(&t, i, 0) / 1e3;
		}
		fprintf(fp, "%s,", names[k]);
		put_num(fp, p99, "%.6e");
		fprintf(fp, ",%.6e\n", mx);
	}
	rc = np;
out:
	if (fc && fclose(fc) && rc >= 0)
		rc = -errno;
	if (fp && fclose(fp) && rc >= 0)
		rc = -errno;
	table_free(&t);
	return rc;
}

int gf_plotdata_accelerators(const char *ranks_csv, const char *out, double threshold, int *below, double *mean)
{
	static const char *const cols[2] = { "au_percent", "rank" };
	struct brow *r = NULL;
	struct table t;
	size_t n = 0, step;
	FILE *f;
	int rc = table_read(ranks_csv, cols, 2, NULL, &t);

	double sum = 0;

	*below = 0;
	*mean = NAN;
	if (rc)
		return rc;
	r = malloc((t.n ? t.n : 1) * sizeof(*r));
	if (!r) {
		rc = -ENOMEM;
		goto out;
	}
	/* Counted ones only (au_percent -1: not counted), by AU. */
	for (size_t i = 0; i < t.n; i++)
		if (cell(&t, i, 0) >= 0 && cell(&t, i, 0) <= 1000) {
			r[n++] = (struct brow){ cell(&t, i, 0), i };
			*below += cell(&t, i, 0) < threshold;
			sum += cell(&t, i, 0);
		}
	if (n)
		*mean = sum / (double)n;
	qsort(r, n, sizeof(*r), cmp_brow);
	f = gf_rdir_fopen(out, "w");
	if (!f) {
		rc = -errno;
		goto out;
	}
	fprintf(f, "rank,au_percent\n");
	/* Every step-th of them, and the highest. */
	step = n / GF_PLOT_MAX_POINTS + 1;
	for (size_t i = 0; i < n; i += step) {
		size_t k = i + step >= n ? n - 1 : i;
		fprintf(f, "%.0f,%.6g\n", cell(&t, r[k].row, 1), r[k].burst);
	}
	rc = fclose(f) ? -errno : (int)(n < INT32_MAX ? n : INT32_MAX);
out:
	free(r);
	table_free(&t);
	return rc;
}
