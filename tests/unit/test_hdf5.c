/* Description: the hdf5 engine and writer on real HDF5 files (the library, no mock).
 * gf_h5_locate turns a row-major byte offset into (row, byte in row) and refuses a
 * request that crosses a row or lies past the last one. A file written with
 * gf_h5_rows_create/write/write_meta holds records [rows][width] (chunked as asked),
 * lengths and labels; the gf_io_hdf5 engine opens it and reads any part of a row, in
 * one request or in pieces, byte for byte as written; several files open at once keep
 * their own geometry; a request across a row, a write, a missing file, a non-HDF5 file,
 * a truncated file and an HDF5 file without records fail with -errno and a detail that
 * says why; O_DIRECT is refused at init.
 * Expected result: all of the above.
 * Buggy result: rows read from the wrong place (offset taken as bytes of a packed file),
 * a short or shifted hyperslab, a crossing request read silently, errors without the
 * library's reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/h5rows.h"
#include "io/hdf5.h"
#include "io/io.h"

#define ROWS 10
#define WIDTH 777

static char dir[] = "/tmp/gf-test-hdf5.XXXXXX";

static uint8_t byte_at(uint64_t row, uint64_t col)
{
	return (uint8_t)(row * 131 + col * 7 + (col >> 8));
}

/* A file of rows x width with known bytes; chunk_rows as given. */
static void make_file(const char *path, uint64_t rows, uint64_t width, uint64_t chunk_rows)
{
	struct gf_h5_rows *h;
	char detail[512] = "";
	uint8_t *buf = malloc(rows * width);
	uint64_t lengths[ROWS];
	uint32_t labels[ROWS];

	assert_non_null(buf);
	for (uint64_t r = 0; r < rows; r++)
		for (uint64_t c = 0; c < width; c++)
			buf[r * width + c] = byte_at(r, c);
	if (gf_h5_rows_create(path, rows, width, chunk_rows, &h, detail, sizeof(detail)))
		fail_msg("create %s: %s", path, detail);
	/* Rows 0-2 at once, then the rest in two pieces per row. */
	assert_int_equal(gf_h5_rows_write(h, 0, 3, 0, width, buf, detail, sizeof(detail)), 0);
	for (uint64_t r = 3; r < rows; r++) {
		uint64_t half = width / 2;
		assert_int_equal(gf_h5_rows_write(h, r, 1, 0, half, buf + r * width, detail, sizeof(detail)), 0);
		assert_int_equal(gf_h5_rows_write(h, r, 1, half, width - half, buf + r * width + half, detail,
						  sizeof(detail)), 0);
	}
	for (uint64_t r = 0; r < rows; r++) {
		lengths[r] = width - r;
		labels[r] = (uint32_t)r * 3;
	}
	assert_int_equal(gf_h5_rows_write_meta(h, 0, rows, lengths, labels, detail, sizeof(detail)), 0);
	assert_int_equal(gf_h5_rows_close(h, detail, sizeof(detail)), 0);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_locate(void **state)
{
	static const struct {
		uint64_t off, len, rows, width;
		int rc;
		uint64_t row, col;
	} t[] = {
		{ 0, 777, 10, 777, 0, 0, 0 },       { 777, 1, 10, 777, 0, 1, 0 },
		{ 777 * 9 + 700, 77, 10, 777, 0, 9, 700 }, { 777 * 9 + 700, 78, 10, 777, -EINVAL, 9, 700 },
		{ 777 * 10, 1, 10, 777, -EINVAL, 10, 0 },  { 776, 2, 10, 777, -EINVAL, 0, 776 },
		{ 5, 0, 1, 10, 0, 0, 5 },            { 1ull << 40, 4096, 1ull << 30, 1ull << 12, 0, 1ull << 28, 0 },
	};
	uint64_t row, col;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = gf_h5_locate(t[i].off, t[i].len, t[i].rows, t[i].width, &row, &col);
		if (rc != t[i].rc || row != t[i].row || col != t[i].col)
			fail_msg("case %zu: rc %d row %llu col %llu", i, rc, (unsigned long long)row,
				 (unsigned long long)col);
	}
	assert_int_equal(gf_h5_locate(0, 1, 1, 0, &row, &col), -EINVAL);
}

static struct gf_io *engine(void)
{
	struct gf_io_config cfg = { .queue_depth = 4 };
	struct gf_io *io = NULL;

	assert_int_equal(gf_io_open_backend(gf_io_find("hdf5"), &cfg, &io), 0);
	return io;
}

/* Read [off, off + len) through the engine into buf; returns the result. */
static int64_t read_at(struct gf_io *io, uint64_t file, uint64_t off, size_t len, void *buf)
{
	struct gf_io_req r = { .op = GF_IO_READ, .file = file, .offset = off, .length = len, .buf = buf };

	assert_int_equal(io->ops->submit(io, &r), GF_IO_COMPLETED);
	return r.result;
}

static void test_read_rows(void **state)
{
	char a[256], b[256];
	struct gf_io *io;
	uint64_t fa, fb;
	uint8_t buf[WIDTH];

	(void)state;
	snprintf(a, sizeof(a), "%s/a.hdf5", dir);
	snprintf(b, sizeof(b), "%s/b.hdf5", dir);
	make_file(a, ROWS, WIDTH, 3);
	make_file(b, 4, 50, 0);
	io = engine();
	assert_int_equal(io->ops->open(io, a, GF_O_READ, &fa), 0);
	assert_int_equal(io->ops->open(io, b, GF_O_READ, &fb), 0);
	for (uint64_t r = 0; r < ROWS; r++) {
		/* The first length bytes of the row, as fetch asks for a sample. */
		size_t len = WIDTH - r * 13;
		memset(buf, 0, sizeof(buf));
		assert_int_equal(read_at(io, fa, r * WIDTH, len, buf), (int64_t)len);
		for (size_t c = 0; c < len; c++)
			if (buf[c] != byte_at(r, c))
				fail_msg("row %llu byte %zu: %u, wrote %u", (unsigned long long)r, c, buf[c], byte_at(r, c));
	}
	/* A large sample comes in spans: the second piece of row 4. */
	assert_int_equal(read_at(io, fa, 4 * WIDTH + 500, 277, buf), 277);
	assert_int_equal(buf[0], byte_at(4, 500));
	assert_int_equal(buf[276], byte_at(4, 776));
	/* The other open file has its own width. */
	assert_int_equal(read_at(io, fb, 3 * 50, 50, buf), 50);
	assert_int_equal(buf[49], byte_at(3, 49));
	/* Across a row or past the last row: refused, with the geometry in the detail. */
	assert_int_equal(read_at(io, fa, WIDTH - 10, 20, buf), -EINVAL);
	assert_non_null(strstr(io->detail, "10 rows x 777 bytes"));
	assert_int_equal(read_at(io, fb, 4 * 50, 1, buf), -EINVAL);
	assert_int_equal(io->ops->close(io, fa), 0);
	assert_int_equal(io->ops->close(io, fb), 0);
	assert_int_equal(io->ops->close(io, fb), -EBADF);
	gf_io_close_backend(io);
}

/* What h5py would see: the datasets, their shapes, chunking, lengths and labels. */
static void test_file_layout(void **state)
{
	char a[256];
	hid_t f, d, s, dcpl;
	hsize_t dims[2], cdims[2];
	uint64_t lengths[ROWS];
	uint32_t labels[ROWS];

	(void)state;
	snprintf(a, sizeof(a), "%s/layout.hdf5", dir);
	make_file(a, ROWS, WIDTH, 3);
	f = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	d = H5Dopen2(f, GF_H5_RECORDS, H5P_DEFAULT);
	s = H5Dget_space(d);
	assert_int_equal(H5Sget_simple_extent_dims(s, dims, NULL), 2);
	assert_int_equal(dims[0], ROWS);
	assert_int_equal(dims[1], WIDTH);
	dcpl = H5Dget_create_plist(d);
	assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
	assert_int_equal(H5Pget_chunk(dcpl, 2, cdims), 2);
	assert_int_equal(cdims[0], 3);
	assert_int_equal(cdims[1], WIDTH);
	H5Pclose(dcpl);
	H5Sclose(s);
	H5Dclose(d);
	d = H5Dopen2(f, GF_H5_LENGTHS, H5P_DEFAULT);
	assert_true(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, lengths) >= 0);
	H5Dclose(d);
	d = H5Dopen2(f, GF_H5_LABELS, H5P_DEFAULT);
	assert_true(H5Dread(d, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels) >= 0);
	H5Dclose(d);
	H5Fclose(f);
	assert_int_equal(lengths[7], WIDTH - 7);
	assert_int_equal(labels[9], 27);

	/* Contiguous when chunk_rows is 0. */
	make_file(a, 4, 50, 0);
	f = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT);
	d = H5Dopen2(f, GF_H5_RECORDS, H5P_DEFAULT);
	dcpl = H5Dget_create_plist(d);
	assert_int_equal(H5Pget_layout(dcpl), H5D_CONTIGUOUS);
	H5Pclose(dcpl);
	H5Dclose(d);
	H5Fclose(f);
}

static void test_errors(void **state)
{
	char path[256], cmd[600];
	struct gf_io *io;
	struct gf_io_config cfg = { .queue_depth = 1, .direct = true };
	uint64_t fh;
	FILE *fp;

	(void)state;
	io = engine();
	snprintf(path, sizeof(path), "%s/missing.hdf5", dir);
	assert_int_equal(io->ops->open(io, path, GF_O_READ, &fh), -ENOENT);
	assert_int_equal(io->ops->open(io, path, GF_O_WRITE, &fh), -EOPNOTSUPP);

	/* Not HDF5 at all. */
	snprintf(path, sizeof(path), "%s/plain.hdf5", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("these are not the bytes of an HDF5 file\n", fp);
	fclose(fp);
	assert_int_equal(io->ops->open(io, path, GF_O_READ, &fh), -EIO);
	assert_non_null(strstr(io->detail, "H5Fopen"));
	assert_non_null(strstr(io->detail, "signature"));

	/* Truncated: HDF5 knows the size it wrote. */
	snprintf(path, sizeof(path), "%s/trunc.hdf5", dir);
	make_file(path, ROWS, WIDTH, 0);
	snprintf(cmd, sizeof(cmd), "truncate -s 3000 %s", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(io->ops->open(io, path, GF_O_READ, &fh), -EIO);
	assert_non_null(strstr(io->detail, "truncated"));

	/* HDF5, but not a gpufeed dataset. */
	snprintf(path, sizeof(path), "%s/other.hdf5", dir);
	{
		hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
		assert_true(f >= 0);
		H5Fclose(f);
	}
	assert_int_equal(io->ops->open(io, path, GF_O_READ, &fh), -EIO);
	assert_non_null(strstr(io->detail, GF_H5_RECORDS));
	gf_io_close_backend(io);

	io = NULL;
	assert_int_equal(gf_io_open_backend(gf_io_find("hdf5"), &cfg, &io), -EINVAL);
	assert_null(io);
}

/* More files open than the first table holds: the table grows, handles stay valid. */
static void test_many_open(void **state)
{
	char path[256];
	struct gf_io *io;
	uint64_t fh[40];
	uint8_t buf[50];

	(void)state;
	snprintf(path, sizeof(path), "%s/many.hdf5", dir);
	make_file(path, 4, 50, 1);
	io = engine();
	for (int i = 0; i < 40; i++)
		assert_int_equal(io->ops->open(io, path, GF_O_READ, &fh[i]), 0);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(read_at(io, fh[i], (uint64_t)(i % 4) * 50, 50, buf), 50);
		assert_int_equal(buf[10], byte_at((uint64_t)(i % 4), 10));
	}
	for (int i = 0; i < 40; i += 2)
		assert_int_equal(io->ops->close(io, fh[i]), 0);
	/* The rest are closed by cleanup. */
	gf_io_close_backend(io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_read_rows),
		cmocka_unit_test(test_file_layout),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_many_open),
	};

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	return cmocka_run_group_tests(tests, setup, teardown);
}
