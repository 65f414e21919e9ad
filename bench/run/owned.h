/* owned: the one rule for what gpufeed may write or delete. A path is gpufeed's when,
 * once resolved, it lies inside a root that gpufeed created and marked (GF_MARKER): the
 * target folder, or a checkpoint folder outside the target, which is a root of its own
 * with the same marker and emptiness checks.
 *
 * Resolved means: realpath of the nearest existing ancestor, the rest appended
 * component by component ("." dropped, ".." taking the previous one off: what does not
 * exist yet is no link, so its parent is known by name). Containment is component-wise: the root followed by
 * '/' or the end, so /p/tgt-old is not inside /p/tgt, nor /p/tgt/../x.
 *
 * Below a marked root nothing gpufeed writes through is a symbolic link: the folders
 * and files a run writes are walked with lstat from the root down before anything is
 * written (guards.c), and data files are opened for writing with O_NOFOLLOW
 * (io/posix.c), so a link planted in a marked folder (train -> /elsewhere, or a link in
 * place of a data file) is refused, never followed. A link planted after that walk is
 * refused by the kernel at the write or delete: the local engines, folder creation and
 * local deletes open beneath the marked root, held open by descriptor from before the
 * phases (io/beneath.h, roots marked and registered by the driver), and the files HDF5
 * and MPI-IO open are given by their own descriptor (/proc/self/fd/N). Links above the
 * root (a site's /scratch -> /lustre/scratch) are the user's choice and resolved.
 *
 * Names of the other schemes (s3://, gluster://) have no links and no kernel to
 * resolve them: they are compared as written, with ".." components refused.
 *
 * Deleting follows the same rule: a run deletes what it wrote (gf_owned_remove_dataset,
 * the checkpoints it wrote, the marker it made when it keeps nothing), never a folder's
 * or a prefix's whole contents, and never checkpoints an earlier run kept.
 *
 * Names that gpufeed makes from the workload (dataset.file_prefix, checkpoint names
 * from an index) must be one plain component: gf_name_component (model/workload.h)
 * checks them when the workload is loaded. */
#ifndef GF_RUN_OWNED_H
#define GF_RUN_OWNED_H

#include <stdbool.h>
#include <stddef.h>

#include "model/plan.h"
#include "model/workload.h"

/* path resolved into out (see above). Returns 0, -ENAMETOOLONG or -errno of realpath. Remote names: copied with trailing
 * slashes taken off, -EINVAL for a ".." component. */
int gf_owned_resolve(const char *path, char *out, size_t len);

/* Pure: whether path is root or lies under it, component-wise (both resolved: absolute,
 * no "." or ".." components; trailing slashes are ignored). */
bool gf_owned_within(const char *root, const char *path);

/* 1 if path lies inside root once both are resolved, 0 if not, -errno if either cannot be
 * resolved. */
int gf_owned_contains(const char *root, const char *path);

/* No symbolic link along path below root (lstat of each existing component past root;
 * path as given, starting with root). Returns 0, or -ELOOP naming the link in why. */
int gf_owned_links(const char *root, const char *path, char *why, size_t whylen);

/* path (given as root + "/" + rest, or anything else) must lie inside root and pass
 * through no symbolic link below root: lstat of each existing component under root.
 * Returns 0; -ELOOP naming the link in why; -EXDEV when path resolves outside root
 * (why says where it leads); other -errno. Remote names: containment only. */
int gf_owned_check(const char *root, const char *path, char *why, size_t whylen);

/* What a cleanup left behind: deletes that failed are counted, never silent. */
struct gf_owned_left {
	uint64_t deleted;     /* names deleted */
	uint64_t failed;      /* names that may still be there */
	uint64_t bytes_left;  /* their planned bytes */
	char where[1024];     /* the first of them and why ("name: cause") */
};

/* Cleanup deletes what the run wrote, by name, never what a listing finds: the files of
 * the plan that this run stored under root, and its manifest (the run's manifest of
 * writes is the plan itself and a count per rank, so memory stays bounded: names go out
 * 1000 at a time). written[r] (ranks entries; NULL: every file) is how many files rank r
 * stored, its first ones in datagen's order (files r, r + ranks, ...): a file this run
 * did not store (its upload failed, or a signal came first) keeps whatever an earlier
 * datagen left under its name. A batch that fails does not stop the rest; its names are
 * all counted in left (a store that refused the request as a whole, or some of its
 * names, leaves them not known to be gone). Returns 0 or the first -errno. */
int gf_owned_remove_dataset(const struct gf_workload *w, const struct gf_plan *p, const char *root,
			    const uint64_t *written, unsigned ranks, struct gf_owned_left *left);
/* Count a failed delete of name (bytes planned) in left, the first one with cause. */
void gf_owned_left_add(struct gf_owned_left *left, const char *name, uint64_t n, uint64_t bytes, int cause);

#endif
