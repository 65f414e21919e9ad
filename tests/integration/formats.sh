#!/usr/bin/env bash
# Description: the dataset files are what they say, and are read as their framework reads
# them (DLIO mlperf_storage_v2.0, 392621b). numpy itself (Debian's python3-numpy) opens
# gpufeed's npz: zipfile.testzip() checks every member's CRC, np.load gives x as the uint8
# array (dim1, dim2, samples_per_file) and y as int64 zeros, as DLIO's npz_generator.py
# writes them with np.savez; x's .npy header is byte for byte numpy's. A TFRecord reader
# written here from the format's specification (length, masked CRC32C of it, data, masked
# CRC32C of the data: tensorflow/core/lib/io/record_writer.cc) walks every record, and
# each is a tf.train.Example whose image holds the sample. PNG's chunk CRCs and the JPEG
# markers check; the bytes stay incompressible (gzip saves under 1%).
# Reads: a 3 MiB npz sample is read as np.load reads it (strace of numpy 1.24): 8 header
# reads, then the member in 256 KiB pieces split 4 KiB + 252 KiB at each boundary: 12 + 2
# x 11 + 1 requests and 20 + ... bytes; reader.transfer_size 1 MiB replaces the 256 KiB.
# Buggy: random bytes named .npz (np.load fails), 4 MiB requests for npz.
# About 10 s.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || { echo "skip: Debian's python3-numpy is missing (scripts/install-deps.sh)"; exit 77; }

gen() { # FORMAT FOLDER [--set ...]
	local fmt=$1 dir=$2
	shift 2
	gf 2 datagen "$SMALL" --target "$dir" --quiet --set dataset.format="$fmt" --set dataset.num_files_train=4 \
		--set dataset.num_samples_per_file=3 "$@" >"$TMP/o" 2>&1 || { bad "$fmt datagen failed"; cat "$TMP/o"; return 1; }
}

gen npz "$TMP/npz" && $PY - "$TMP/npz/train" <<'PYEOF' && ok "npz: numpy reads every file, CRCs, shapes and headers as np.savez" || bad "npz is not what np.savez writes"
import glob, io, sys, zipfile
import numpy as np
files = sorted(glob.glob(sys.argv[1] + "/*.npz"))
assert len(files) == 4, files
for f in files:
    with zipfile.ZipFile(f) as z:
        assert z.testzip() is None, f + ": a bad CRC"
        assert z.namelist() == ["x.npy", "y.npy"], z.namelist()
        raw = z.read("x.npy")
    d = np.load(f)
    x, y = d["x"], d["y"]
    assert x.dtype == np.uint8 and x.ndim == 3 and x.shape[2] == 3, (f, x.dtype, x.shape)
    assert y.dtype == np.int64 and y.shape == (3,) and not y.any(), (f, y)
    want = io.BytesIO()
    np.lib.format.write_array_header_1_0(want, np.lib.format.header_data_from_array_1_0(x))
    assert raw.startswith(want.getvalue()), (f, raw[:128], want.getvalue())
    # np.savez of the same arrays writes the same bytes but for the data
    out = io.BytesIO()
    np.savez(out, x=x, y=y)
    assert out.getvalue() == open(f, "rb").read(), f + ": differs from np.savez"
PYEOF

gen tfrecord "$TMP/tf" --set framework=tensorflow --set reader.data_loader=tensorflow &&
$PY - "$TMP/tf/train" <<'PYEOF' && ok "tfrecord: every record's length and masked CRC32Cs check, each an Example" || bad "tfrecord framing"
import glob, struct, sys
# CRC32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit from its definition.
def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
def masked(c):
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7F) << s; s += 7
        if not c & 0x80:
            return v, i
def fields(b):  # protobuf: (field number, wire type, value)
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        if k & 7 == 2:
            n, i = varint(b, i); yield k >> 3, b[i:i + n]; i += n
        elif k & 7 == 0:
            v, i = varint(b, i); yield k >> 3, v
        else:
            raise ValueError("wire type %d" % (k & 7))
files = sorted(glob.glob(sys.argv[1] + "/*.tfrecord"))
assert len(files) == 4
for f in files:
    data, pos, n = open(f, "rb").read(), 0, 0
    while pos < len(data):
        length, lcrc = struct.unpack_from("<QI", data, pos)
        assert masked(crc32c(data[pos:pos + 8])) == lcrc, (f, pos, "length crc")
        rec = data[pos + 12:pos + 12 + length]
        assert masked(crc32c(rec)) == struct.unpack_from("<I", data, pos + 12 + length)[0], (f, pos, "data crc")
        feats = {}
        for _, features in fields(rec):
            for _, entry in fields(features):
                kv = dict(fields(entry))
                feats[kv[1].decode()] = dict(fields(kv[2]))
        image = dict(fields(feats["image"][1]))[1]
        size = varint(dict(fields(feats["size"][3]))[1], 0)[0]
        assert len(image) > 0 and size == 181, (f, len(image), size)  # int(sqrt(32 KiB))
        pos += 12 + length + 4; n += 1
    assert n == 3, (f, n)
PYEOF

gen png "$TMP/png" && gen jpeg "$TMP/jpg" && $PY - "$TMP/png/train" "$TMP/jpg/train" <<'PYEOF' && ok "png chunk CRCs and jpeg markers valid" || bad "png/jpeg"
import glob, struct, sys, zlib
for f in sorted(glob.glob(sys.argv[1] + "/*.png")):
    b = open(f, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n"
    pos, kinds = 8, []
    while pos < len(b):
        n, = struct.unpack_from(">I", b, pos)
        kind, body = b[pos + 4:pos + 8], b[pos + 8:pos + 8 + n]
        assert struct.unpack_from(">I", b, pos + 8 + n)[0] == zlib.crc32(kind + body), (f, kind)
        kinds.append(kind); pos += 12 + n
    assert kinds == [b"IHDR", b"IDAT", b"IEND"], kinds
for f in sorted(glob.glob(sys.argv[2] + "/*.jpeg")):
    b = open(f, "rb").read()
    assert b[:4] == b"\xff\xd8\xff\xe0" and b[6:11] == b"JFIF\0" and b[-2:] == b"\xff\xd9"
    sos = b.index(b"\xff\xda")
    assert b"\xff" not in b[sos + 10:-2], f + ": a marker inside the scan"
PYEOF

sz=$(find "$TMP/npz/train" -type f -name '*.npz' | head -1)
if [ -n "$sz" ]; then
	orig=$(stat -c %s "$sz")
	comp=$(gzip -c "$sz" | wc -c)
	[ "$comp" -ge $((orig * 99 / 100)) ] && ok "npz stays incompressible ($orig -> $comp)" || bad "npz compresses: $orig -> $comp"
fi

# Reads as np.load issues them: one 3 MiB sample per file (dims 1536 x 2048, no stdev).
for ts in 0 1MiB; do
	extra=()
	[ "$ts" != 0 ] && extra=(--set reader.transfer_size=$ts)
	gf 1 run "$SMALL" --target "$TMP/r-$ts" --results "$TMP/res-$ts" --quiet --set dataset.num_files_train=2 \
		--set dataset.record_length_bytes=3145728 --set dataset.record_length_bytes_stdev=0 \
		--set reader.batch_size=1 --set train.epochs=1 --set reader.read_threads=1 "${extra[@]}" >"$TMP/o" 2>&1 ||
		{ bad "npz run ($ts)"; cat "$TMP/o"; continue; }
	s=$(only_result "$TMP/res-$ts")/summary.json
	# 3 MiB + 183 bytes of x.npy end at 3145911: to 3149824 (4 KiB) from 8192. By 256 KiB:
	# 253952 to 262144, then 11 x (4 KiB, 252 KiB) to 3145728, then 4 KiB: 24 data reads.
	# By 1 MiB: 1040384 to 1 MiB, 2 more of 1 MiB, then 4096: 4 data reads.
	if [ "$ts" = 0 ]; then want=$((2 * (8 + 24))); else want=$((2 * (8 + 4))); fi
	expect "npz, transfer_size $ts: $want requests for 2 samples" "$s" ".train.read_requests == $want"
done
finish
