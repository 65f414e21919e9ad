/* units: parse and print sizes ("4KiB", "1.5GB", "2M") and times ("250ms", "1.5h").
 * Sizes: SI suffixes (k, K, KB, M, MB, G, GB, T, TB, P, PB) are powers of 1000, IEC
 * suffixes (KiB, MiB, GiB, TiB, PiB) powers of 1024, as fio and IOR print them; a bare
 * single letter (K, M, G, T, P) is also read as a power of 1024 because that is what
 * fio, IOR and dd users mean by "4k" and "2M". Fractions are allowed ("1.5GB"),
 * the result is rounded to the nearest byte.
 * Resolved: a bare letter ("4k", "4K") is 1024-based, "kB"/"KB" 1000; case-insensitive. */
#ifndef GF_UNITS_H
#define GF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parse a size. Returns 0, or -EINVAL on garbage, a negative number or a trailing
 * unknown suffix, -ERANGE when the value does not fit in 64 bits. */
int gf_parse_size(const char *s, uint64_t *out);

/* Parse a duration into seconds. A bare number is seconds. Suffixes: ns, us, ms, s,
 * m (minutes), min, h. Returns 0, -EINVAL or -ERANGE like gf_parse_size. */
int gf_parse_time(const char *s, double *seconds);

/* Print bytes with an IEC suffix and 3 significant digits ("1.50 GiB", "512 B").
 * Returns buf. */
char *gf_format_size(uint64_t bytes, char *buf, size_t len);

/* Print a rate in bytes per second, SI decimal as storage vendors quote ("1.23 GB/s"). */
char *gf_format_rate(double bytes_per_s, char *buf, size_t len);

/* Print seconds with a fitting unit ("350 us", "1.25 s", "2h03m"). */
char *gf_format_time(double seconds, char *buf, size_t len);
/* A count of things in words a reader does not take for bytes: "8.03 billion",
 * "406 million", "1.20 trillion", "950". */
char *gf_format_count(double n, char *buf, size_t len);

#endif
