/* ckpt_csv: see ckpt_csv.h. */
#include "results/ckpt_csv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One row per rank per burst: what the checkpoint plot draws. */
int gf_ckpt_csv_ranks(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/checkpoint_ranks.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* server: where the rank's shard file was (GlusterFS's brick, host:path), empty where the
	 * file system does not say; a name with a comma or quote is quoted as CSV does. */
	fprintf(f, "burst,kind,checkpoint,rank,seconds,server\n");
	for (unsigned i = 0; i < s->ckpt->nbursts; i++) {
		const struct gf_fig_burst *b = &s->ckpt->bursts[i];
		for (int r = 0; b->rank_s && r < s->ranks; r++) {
			const char *srv = b->rank_server ? b->rank_server + (size_t)r * GF_FIG_SERVER : "";
			bool quote = strpbrk(srv, ",\"\n") != NULL;
			fprintf(f, "%u,%s,%u,%d,%.6f,%s", i, b->restore ? "restore" : "write", b->index, r,
				b->rank_s[r], quote ? "\"" : "");
			for (const char *p = srv; *p && p < srv + GF_FIG_SERVER; p++) {
				if (*p == '"')
					fputc('"', f);
				fputc(*p, f);
			}
			fprintf(f, "%s\n", quote ? "\"" : "");
		}
	}
	return fclose(f) ? -errno : 0;
}

/* Where each rank's time in each burst went: open, write (or read), sync, close. */
int gf_ckpt_csv_latency(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/checkpoint_latency.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "burst,kind,checkpoint,rank,bytes,open_s,transfer_s,sync_s,close_s,total_s,blocks_verified\n");
	for (unsigned i = 0; i < s->ckpt->nbursts; i++) {
		const struct gf_fig_burst *b = &s->ckpt->bursts[i];
		for (int r = 0; b->rank_detail && r < s->ranks; r++) {
			const double *d = b->rank_detail + (size_t)r * GF_FIG_RANK_FIELDS;
			fprintf(f, "%u,%s,%u,%d,%.0f,%.6f,%.6f,%.6f,%.6f,%.6f,%.0f\n", i, b->restore ? "restore" : "write",
				b->index, r, d[GF_FIG_R_BYTES], d[GF_FIG_R_OPEN_S], d[GF_FIG_R_WRITE_S],
				d[GF_FIG_R_SYNC_S], d[GF_FIG_R_CLOSE_S], d[GF_FIG_R_TOTAL_S], d[GF_FIG_R_BLOCKS]);
		}
	}
	return fclose(f) ? -errno : 0;
}

