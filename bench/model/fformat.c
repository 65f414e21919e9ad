/* fformat: see fformat.h. */
#include "model/fformat.h"

#include <isa-l/crc.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "model/plan.h"

/* Python's zipfile.ZIP64_LIMIT: sizes and offsets past it take ZIP64 fields. */
#define ZIP64_LIMIT ((1ull << 31) - 1)
#define ZIP_LOCAL 30u   /* local file header, before name and extra */
#define ZIP_CENTRAL 46u
#define ZIP_EOCD 22u
#define ZIP_EOCD64 56u
#define ZIP_LOCATOR 20u
#define ZIP_NAME 5u     /* "x.npy", "y.npy" */
#define ZIP_EXTRA 20u   /* force_zip64: id, size, file size, compressed size */
/* CPython's BufferedReader buffer (st_blksize of a local file system) and numpy's read
 * size in format.read_array (BUFFER_SIZE = 2**18): np.load of a member reads 256 KiB at a
 * time through it (strace of numpy 1.24: 4 KiB at every 256 KiB boundary, then 252 KiB). */
#define PY_BUF 4096u
#define NP_BUF (256u << 10)

static uint8_t *le16(uint8_t *b, uint64_t v) { b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); return b + 2; }
static uint8_t *le32(uint8_t *b, uint64_t v) { le16(b, v); return le16(b + 2, v >> 16); }
static uint8_t *le64(uint8_t *b, uint64_t v) { le32(b, v); return le32(b + 4, v >> 32); }
static uint8_t *be32(uint8_t *b, uint64_t v)
{
	b[0] = (uint8_t)(v >> 24); b[1] = (uint8_t)(v >> 16); b[2] = (uint8_t)(v >> 8); b[3] = (uint8_t)v;
	return b + 4;
}
static uint8_t *put(uint8_t *b, const void *s, size_t n) { memcpy(b, s, n); return b + n; }

/* --- .npy --- */

/* numpy/lib/format.py (1.24) _write_array_header and _wrap_header, version 1.0: the
 * dict's repr, spaces for the first axis to grow to 21 digits, padded with spaces and a
 * newline so that magic + length + header is a multiple of 64 (a full 64 when already). */
static size_t npy_header(const char *descr, const uint64_t *shape, unsigned nd, uint8_t *buf)
{
	char h[256], dim[32];
	int n = snprintf(h, sizeof(h), "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
	size_t hlen, pad;

	for (unsigned i = 0; i < nd; i++)
		n += snprintf(h + n, sizeof(h) - (size_t)n, "%s%llu", i ? ", " : "", (unsigned long long)shape[i]);
	n += snprintf(h + n, sizeof(h) - (size_t)n, "%s), }", nd == 1 ? "," : "");
	snprintf(dim, sizeof(dim), "%llu", (unsigned long long)shape[0]);
	for (size_t s = strlen(dim); s < 21; s++)
		h[n++] = ' ';
	hlen = (size_t)n + 1;
	pad = 64 - (10 + hlen) % 64;
	if (buf) {
		uint8_t *b = put(buf, "\x93NUMPY\x01\x00", 8);
		b = le16(b, hlen + pad - 0);
		b = put(b, h, (size_t)n);
		memset(b, ' ', pad);
		b[pad] = '\n';
	}
	return 10 + hlen + pad;
}

static size_t npy_x(const struct gf_plan *p, const struct gf_ff_layout *l, uint8_t *buf)
{
	uint64_t shape[3] = { l->dim1, l->dim2, p->samples_per_file };

	return npy_header("|u1", shape, 3, buf);
}

static size_t npy_y(const struct gf_plan *p, uint8_t *buf)
{
	uint64_t shape[1] = { p->samples_per_file };

	return npy_header("<i8", shape, 1, buf);
}

/* --- TFRecord --- */

static size_t varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		if (b)
			b[n] = c | (v ? 0x80 : 0);
		n++;
	} while (v);
	return n;
}

/* tf.train.Example {features {feature {key "image" value {bytes_list {value: <n bytes>}}}
 * feature {key "size" value {int64_list {value: [size]}}}}} in protobuf's wire format
 * (each field a tag, a length varint, its bytes): the bytes before the image (pre) and
 * after it (post). Returns the Example's length. */
static uint64_t example(uint64_t n, uint64_t size, uint8_t *pre, size_t *npre, uint8_t *post, size_t *npost)
{
	uint8_t *q;
	uint64_t bl = 1 + varint(NULL, n) + n;             /* BytesList */
	uint64_t fv = 1 + varint(NULL, bl) + bl;           /* Feature{bytes_list} */
	uint64_t e1 = 7 + 1 + varint(NULL, fv) + fv;       /* entry: key "image", value */
	uint64_t il = 1 + 1 + varint(NULL, size);          /* Int64List packed */
	uint64_t f2 = 1 + varint(NULL, il) + il;           /* Feature{int64_list} */
	uint64_t e2 = 6 + 1 + varint(NULL, f2) + f2;       /* entry: key "size", value */
	uint64_t fs = 1 + varint(NULL, e1) + e1 + 1 + varint(NULL, e2) + e2; /* Features */

	q = pre;
	*q++ = 0x0a; q += varint(q, fs);                   /* Example.features */
	*q++ = 0x0a; q += varint(q, e1);                   /* Features.feature (map entry) */
	q = put(q, "\x0a\x05image", 7);
	*q++ = 0x12; q += varint(q, fv);
	*q++ = 0x0a; q += varint(q, bl);                   /* Feature.bytes_list */
	*q++ = 0x0a; q += varint(q, n);                    /* BytesList.value */
	*npre = (size_t)(q - pre);
	q = post;
	*q++ = 0x0a; q += varint(q, e2);
	q = put(q, "\x0a\x04size", 6);
	*q++ = 0x12; q += varint(q, f2);
	*q++ = 0x1a; q += varint(q, il);                   /* Feature.int64_list */
	*q++ = 0x0a; q += varint(q, varint(NULL, size));   /* Int64List.value, packed */
	q += varint(q, size);
	*npost = (size_t)(q - post);
	return 1 + varint(NULL, fs) + fs;
}

uint32_t gf_ff_crc32c(uint32_t crc, const void *buf, size_t len)
{
	/* ISA-L's crc32_iscsi is the CRC32C register: seeded and finished inverted. */
	while (len) {
		int n = len > (1u << 30) ? 1 << 30 : (int)len;
		crc = ~crc32_iscsi((unsigned char *)buf, n, ~crc);
		buf = (const uint8_t *)buf + n;
		len -= (size_t)n;
	}
	return crc;
}

/* TFRecord's masked CRC (tensorflow/core/lib/hash/crc32c.h Mask). */
static uint32_t masked(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/* DLIO's 'size' feature: the configured dimension (tf_generator.py:62, self._dimension). */
static uint64_t tf_size(const struct gf_plan *p)
{
	uint64_t d = 1;

	while ((d + 1) * (d + 1) <= p->mean_bytes)
		d++;
	return d;
}

/* --- layouts --- */

void gf_ff_layout(const struct gf_plan *p, uint64_t file, struct gf_ff_layout *l)
{
	uint64_t n = p->samples_per_file;
	uint8_t pre[64], post[64];
	size_t npre, npost;

	memset(l, 0, sizeof(*l));
	gf_plan_dims(p, file, &l->dim1, &l->dim2);
	l->sample = l->dim1 * l->dim2;
	l->payload = n * l->sample;
	switch (p->format) {
	case GF_FMT_NPZ: {
		uint64_t xs = npy_x(p, l, NULL) + l->payload, ys = npy_y(p, NULL) + 8 * n;
		uint64_t cd = 2 * (ZIP_CENTRAL + ZIP_NAME), cdoff = 2 * (ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA) + xs + ys;
		/* _write_end_record: ZIP64 fields for sizes and offsets past the limit. */
		cd += xs > ZIP64_LIMIT ? 20 : 0;
		cd += ys > ZIP64_LIMIT ? 20 : 0;
		cd += (ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA + xs > ZIP64_LIMIT) ? (ys > ZIP64_LIMIT ? 8 : 12) : 0;
		l->head = ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA + npy_x(p, l, NULL);
		l->tail = ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA + ys + cd + ZIP_EOCD +
			  (cdoff > ZIP64_LIMIT ? ZIP_EOCD64 + ZIP_LOCATOR : 0);
		break;
	}
	case GF_FMT_NPY:
		l->head = npy_x(p, l, NULL);
		break;
	case GF_FMT_TFRECORD:
		example(l->sample, tf_size(p), pre, &npre, post, &npost);
		l->rec_head = 12 + npre;
		l->rec_tail = npost + 4;
		break;
	case GF_FMT_PNG:
		l->head = 8 + 25 + 8;
		l->tail = 4 + 12;
		break;
	case GF_FMT_JPEG:
		l->head = 2 + 18 + 69 + 13 + 2 * 22 + 10;
		l->tail = 2;
		break;
	default:
		break;
	}
	l->stride = l->rec_head + l->sample + l->rec_tail;
	l->first = l->head + l->rec_head;
	l->size = l->head + n * l->stride + l->tail;
}

bool gf_ff_head_needs_crc(const struct gf_plan *p)
{
	return p->format == GF_FMT_NPZ;
}

/* --- zip --- */

/* zipfile.ZipInfo.FileHeader(zip64=True): version 20 (45 past the limit), no flags,
 * stored, 1980-01-01 00:00, the ZIP64 extra with both sizes. */
static uint8_t *zip_local(uint8_t *b, const char *name, uint32_t crc, uint64_t size)
{
	bool big = size > ZIP64_LIMIT;

	b = le32(b, 0x04034b50);
	b = le16(b, big ? 45 : 20);
	b = le16(b, 0);
	b = le16(b, 0);
	b = le16(b, 0);
	b = le16(b, 0x21);
	b = le32(b, crc);
	b = le32(b, big ? 0xffffffffu : size);
	b = le32(b, big ? 0xffffffffu : size);
	b = le16(b, ZIP_NAME);
	b = le16(b, ZIP_EXTRA);
	b = put(b, name, ZIP_NAME);
	b = le16(b, 1);
	b = le16(b, 16);
	b = le64(b, size);
	return le64(b, size);
}

/* _write_end_record's entry: ZIP64 fields only for what passes the limit. */
static uint8_t *zip_central(uint8_t *b, const char *name, uint32_t crc, uint64_t size, uint64_t off)
{
	uint64_t extra[3];
	unsigned n = 0, v;

	if (size > ZIP64_LIMIT) {
		extra[n++] = size;
		extra[n++] = size;
	}
	if (off > ZIP64_LIMIT)
		extra[n++] = off;
	v = n ? 45 : 20;
	b = le32(b, 0x02014b50);
	b = le16(b, 0x0300 | v);  /* made by: unix (3) */
	b = le16(b, v);
	b = le16(b, 0);
	b = le16(b, 0);
	b = le16(b, 0);
	b = le16(b, 0x21);
	b = le32(b, crc);
	b = le32(b, size > ZIP64_LIMIT ? 0xffffffffu : size);
	b = le32(b, size > ZIP64_LIMIT ? 0xffffffffu : size);
	b = le16(b, ZIP_NAME);
	b = le16(b, n ? 4 + 8 * n : 0);
	b = le16(b, 0);
	b = le16(b, 0);
	b = le16(b, 0);
	b = le32(b, 0600u << 16); /* ?rw------- */
	b = le32(b, off > ZIP64_LIMIT ? 0xffffffffu : off);
	b = put(b, name, ZIP_NAME);
	if (n) {
		b = le16(b, 1);
		b = le16(b, 8 * n);
		for (unsigned i = 0; i < n; i++)
			b = le64(b, extra[i]);
	}
	return b;
}

/* x.npy's CRC-32: its .npy header, then the payload (the caller's CRC). */
static uint32_t npz_x_crc(const struct gf_plan *p, const struct gf_ff_layout *l, uint32_t payload_crc)
{
	uint8_t h[GF_FF_FRAME];
	size_t n = npy_x(p, l, h);

	return (uint32_t)crc32_combine(crc32(0, h, (uInt)n), payload_crc, (z_off_t)l->payload);
}

size_t gf_ff_head(const struct gf_plan *p, uint64_t file, uint32_t crc, uint8_t *buf)
{
	struct gf_ff_layout l;
	uint8_t *b = buf;

	gf_ff_layout(p, file, &l);
	switch (p->format) {
	case GF_FMT_NPZ:
		b = zip_local(b, "x.npy", npz_x_crc(p, &l, crc), l.head - ZIP_LOCAL - ZIP_NAME - ZIP_EXTRA + l.payload);
		b += npy_x(p, &l, b);
		break;
	case GF_FMT_NPY:
		b += npy_x(p, &l, b);
		break;
	case GF_FMT_PNG: {
		uint8_t *ihdr;
		b = put(b, "\x89PNG\r\n\x1a\n", 8);
		b = be32(b, 13);
		ihdr = b;
		b = put(b, "IHDR", 4);
		b = be32(b, l.dim2);
		b = be32(b, l.dim1 * p->samples_per_file);
		b = put(b, "\x08\x00\x00\x00\x00", 5); /* 8 bits, grayscale, deflate, filter 0, no interlace */
		b = be32(b, crc32(0, ihdr, 17));
		b = be32(b, l.payload);
		b = put(b, "IDAT", 4);
		break;
	}
	case GF_FMT_JPEG: {
		uint64_t h = l.dim1 * p->samples_per_file, w = l.dim2;
		b = put(b, "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 20);
		b = put(b, "\xff\xdb\x00\x43\x00", 5);
		memset(b, 1, 64); /* a quantisation table of ones */
		b += 64;
		b = put(b, "\xff\xc0\x00\x0b\x08", 5);
		b[0] = (uint8_t)((h > 65535 ? 65535 : h) >> 8); b[1] = (uint8_t)(h > 65535 ? 65535 : h);
		b[2] = (uint8_t)((w > 65535 ? 65535 : w) >> 8); b[3] = (uint8_t)(w > 65535 ? 65535 : w);
		b = put(b + 4, "\x01\x01\x11\x00", 4);
		/* one DC and one AC Huffman table, a single 1-bit code each */
		for (int cls = 0; cls < 2; cls++) {
			b = put(b, "\xff\xc4\x00\x14", 4);
			*b++ = (uint8_t)(cls << 4);
			*b++ = 1;
			memset(b, 0, 15);
			b += 15;
			*b++ = 0;
		}
		b = put(b, "\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00", 10);
		break;
	}
	default:
		break;
	}
	return (size_t)(b - buf);
}

size_t gf_ff_tail(const struct gf_plan *p, uint64_t file, uint32_t crc, uint8_t *buf)
{
	struct gf_ff_layout l;
	uint8_t *b = buf;
	uint64_t n = p->samples_per_file;

	gf_ff_layout(p, file, &l);
	switch (p->format) {
	case GF_FMT_NPZ: {
		/* y.npy's local header, y.npy (its .npy header, n int64 zeros), the central
		 * directory, the end records. */
		uint64_t xs = l.head - ZIP_LOCAL - ZIP_NAME - ZIP_EXTRA + l.payload, ys = npy_y(p, NULL) + 8 * n;
		uint64_t yoff = ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA + xs, cdoff = yoff + ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA + ys;
		uint8_t *yb = b + ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA, *cd;
		uint64_t cdlen;
		uint32_t ycrc;

		memset(yb + npy_y(p, yb), 0, 8 * n);
		ycrc = (uint32_t)crc32(0, yb, (uInt)ys);
		b = zip_local(b, "y.npy", ycrc, ys) + ys;
		cd = b;
		b = zip_central(b, "x.npy", npz_x_crc(p, &l, crc), xs, 0);
		b = zip_central(b, "y.npy", ycrc, ys, yoff);
		cdlen = (uint64_t)(b - cd);
		if (cdoff > ZIP64_LIMIT) {
			/* zip64 end of central directory record and locator */
			b = le32(b, 0x06064b50);
			b = le64(b, 44);
			b = le16(b, 45);
			b = le16(b, 45);
			b = le32(b, 0);
			b = le32(b, 0);
			b = le64(b, 2);
			b = le64(b, 2);
			b = le64(b, cdlen);
			b = le64(b, cdoff);
			b = le32(b, 0x07064b50);
			b = le32(b, 0);
			b = le64(b, cdoff + cdlen);
			b = le32(b, 1);
		}
		b = le32(b, 0x06054b50);
		b = le32(b, 0);
		b = le16(b, 2);
		b = le16(b, 2);
		b = le32(b, cdlen);
		b = le32(b, cdoff > 0xffffffffu ? 0xffffffffu : cdoff);
		b = le16(b, 0);
		break;
	}
	case GF_FMT_PNG:
		b = be32(b, crc32_combine(crc32(0, (const Bytef *)"IDAT", 4), crc, (z_off_t)l.payload));
		b = put(b, "\x00\x00\x00\x00IEND\xae\x42\x60\x82", 12);
		break;
	case GF_FMT_JPEG:
		b = put(b, "\xff\xd9", 2);
		break;
	default:
		break;
	}
	return (size_t)(b - buf);
}

size_t gf_ff_rec_head(const struct gf_plan *p, uint64_t file, uint8_t *buf)
{
	struct gf_ff_layout l;
	uint8_t post[64], *b = buf;
	size_t npre, npost;
	uint64_t len;

	if (p->format != GF_FMT_TFRECORD)
		return 0;
	gf_ff_layout(p, file, &l);
	/* tensorflow/core/lib/io/record_writer.cc: length, masked CRC32C of its 8 bytes. */
	len = example(l.sample, tf_size(p), buf + 12, &npre, post, &npost);
	b = le64(b, len);
	b = le32(b, masked(gf_ff_crc32c(0, buf, 8)));
	return 12 + npre;
}

uint32_t gf_ff_rec_crc_begin(const struct gf_plan *p, uint64_t file)
{
	uint8_t pre[64], post[64];
	size_t npre, npost;

	if (p->format != GF_FMT_TFRECORD)
		return 0;
	example(gf_plan_sample_size(p, file, 0), tf_size(p), pre, &npre, post, &npost);
	return gf_ff_crc32c(0, pre, npre);
}

size_t gf_ff_rec_tail(const struct gf_plan *p, uint64_t file, uint32_t rec_crc, uint8_t *buf)
{
	uint8_t pre[64];
	size_t npre, npost;

	if (p->format != GF_FMT_TFRECORD)
		return 0;
	example(gf_plan_sample_size(p, file, 0), tf_size(p), pre, &npre, buf, &npost);
	le32(buf + npost, masked(gf_ff_crc32c(rec_crc, buf, npost)));
	return npost + 4;
}

void gf_ff_payload_fix(const struct gf_plan *p, uint8_t *buf, size_t len)
{
	/* A 0xFF in a JPEG scan starts a marker (ITU T.81 B.1.1.5). */
	if (p->format != GF_FMT_JPEG)
		return;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == 0xff)
			buf[i] = 0xfe;
}

static void pre_read(struct gf_ff_reads *it, uint64_t off, uint64_t len)
{
	if (off >= it->size || it->npre >= sizeof(it->pre) / sizeof(it->pre[0]))
		return;
	it->pre[it->npre][0] = off;
	it->pre[it->npre][1] = off + len > it->size ? it->size - off : len;
	it->npre++;
}

void gf_ff_reads_begin(struct gf_ff_reads *it, const struct gf_plan *p, uint64_t file, uint64_t j,
		       bool objects)
{
	struct gf_ff_layout l;
	uint64_t end;

	gf_ff_layout(p, file, &l);
	memset(it, 0, sizeof(*it));
	it->size = l.size;
	it->chunk = p->chunk ? p->chunk : l.size;
	if (objects && p->layout == GF_LAYOUT_FILE_PER_SAMPLE) {
		it->end = l.size;
		return;
	}
	switch (p->format) {
	case GF_FMT_NPZ: {
		/* np.load(f)['x'] (npz_reader.py:36-38) with a 4 KiB st_blksize, as strace shows
		 * numpy 1.24 and Python 3.11: the magic; zipfile's end record, the ZIP64 locator
		 * probe and the central directory (_EndRecData, _RealGetContents); x.npy's local
		 * header and .npy header, twice (NpzFile.__getitem__ opens the member to check the
		 * magic, then again to read it); then the array 256 KiB at a time through the
		 * buffered file: 4 KiB at each 256 KiB boundary, then the rest of the 256 KiB.
		 * reader.transfer_size, when given, replaces the 256 KiB (no 4 KiB piece). */
		uint64_t ys = npy_y(p, NULL) + 8 * p->samples_per_file;
		uint64_t cdoff = l.head + l.payload + ZIP_LOCAL + ZIP_NAME + ZIP_EXTRA + ys;

		pre_read(it, 0, PY_BUF);
		pre_read(it, l.size - ZIP_EOCD, ZIP_EOCD);
		if (l.size >= ZIP_EOCD + ZIP_LOCATOR)
			pre_read(it, l.size - ZIP_EOCD - ZIP_LOCATOR, ZIP_EOCD + ZIP_LOCATOR);
		pre_read(it, cdoff, PY_BUF);
		for (int k = 0; k < 2; k++) {
			pre_read(it, 0, PY_BUF);
			pre_read(it, PY_BUF, PY_BUF);
		}
		it->pos = 2 * PY_BUF;
		end = (l.head + l.payload + PY_BUF - 1) / PY_BUF * PY_BUF;
		it->end = end < l.size ? end : l.size;
		it->chunk = p->transfer ? p->transfer : NP_BUF;
		it->split = p->transfer ? 0 : PY_BUF;
		break;
	}
	case GF_FMT_NPY:
		/* np.load of a .npy (npy_reader.py): the magic, the header, then the array in one
		 * read (numpy.fromfile) from the buffer's end; gpufeed's requests stay at most the
		 * plan's chunk. */
		pre_read(it, 0, PY_BUF);
		pre_read(it, 0, l.head);
		pre_read(it, 0, PY_BUF);
		it->pos = PY_BUF;
		it->end = l.size;
		break;
	case GF_FMT_PNG:
	case GF_FMT_JPEG:
		/* PIL's Image.open then np.asarray: the whole file (image_reader.py:39-41). */
		it->end = l.size;
		break;
	default:
		it->pos = l.first + j * l.stride;
		it->end = it->pos + l.sample;
		it->base = it->pos; /* chunks from the sample's start */
		break;
	}
	if (it->pos > it->end)
		it->pos = it->end;
}

bool gf_ff_reads_next(struct gf_ff_reads *it, uint64_t *offset, uint64_t *length)
{
	uint64_t len;

	if (it->next_pre < it->npre) {
		*offset = it->pre[it->next_pre][0];
		*length = it->pre[it->next_pre][1];
		it->next_pre++;
		return true;
	}
	if (it->pos >= it->end)
		return false;
	if (it->split && (it->pos - it->base) % it->chunk == 0 && it->split < it->chunk)
		len = it->split;
	else
		len = it->chunk - (it->pos - it->base) % it->chunk;
	if (len > it->end - it->pos)
		len = it->end - it->pos;
	*offset = it->pos;
	*length = len;
	it->pos += len;
	return true;
}
