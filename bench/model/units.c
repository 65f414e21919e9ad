/* units: parse and print sizes and times. See units.h for the suffix rules.
 *
 * Sizes are parsed without going through a double for the integer part, so that every
 * 64-bit value ("18446744073709551615") round-trips exactly; only the fraction, which is
 * below one unit and so below 2^50 bytes, goes through floating point. */
#include "model/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct size_suffix {
	const char *name;
	uint64_t mult;
};

#define KI 1024ull
#define KD 1000ull

/* Matched case-insensitively: "kb", "KB" and "kB" all mean 1000, "kib" and "KiB" 1024.
 * The bare letters are powers of 1024 in either case, because "4k" in a fio or dd
 * command line means 4096. */
static const struct size_suffix size_suffixes[] = {
	{ "", 1 },
	{ "B", 1 },
	{ "K", KI },
	{ "M", KI * KI },
	{ "G", KI * KI * KI },
	{ "T", KI * KI * KI * KI },
	{ "P", KI * KI * KI * KI * KI },
	{ "KB", KD },
	{ "MB", KD * KD },
	{ "GB", KD * KD * KD },
	{ "TB", KD * KD * KD * KD },
	{ "PB", KD * KD * KD * KD * KD },
	{ "KiB", KI },
	{ "MiB", KI * KI },
	{ "GiB", KI * KI * KI },
	{ "TiB", KI * KI * KI * KI },
	{ "PiB", KI * KI * KI * KI * KI },
};

/* Strip trailing blanks into a bounded copy so that suffix matching can use strcmp.
 * Returns -EINVAL when the suffix is too long to be any we know. */
static int copy_suffix(const char *p, char *out, size_t len)
{
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	if (n >= len)
		return -EINVAL;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

int gf_parse_size(const char *s, uint64_t *out)
{
	const char *p;
	uint64_t ip = 0, mult = 0, whole, part;
	double frac = 0.0, scale = 0.1;
	int ndigits = 0, overflow = 0, ret;
	char suf[8];
	size_t i;

	if (!s || !out)
		return -EINVAL;
	p = s;
	while (isspace((unsigned char)*p))
		p++;
	/* Signs are refused outright: strtoull would silently wrap "-1" to 2^64 - 1. */
	for (; isdigit((unsigned char)*p); p++, ndigits++) {
		unsigned d = (unsigned)(*p - '0');

		if (ip > (UINT64_MAX - d) / 10)
			overflow = 1;
		else
			ip = ip * 10 + d;
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, ndigits++) {
			frac += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (ndigits == 0)
		return -EINVAL;

	ret = copy_suffix(p, suf, sizeof(suf));
	if (ret)
		return ret;
	for (i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]); i++) {
		if (!strcasecmp(suf, size_suffixes[i].name)) {
			mult = size_suffixes[i].mult;
			break;
		}
	}
	if (!mult)
		return -EINVAL;
	/* Garbage is reported before overflow: "99999999999999999999XB" is not a size. */
	if (overflow || (ip && mult > UINT64_MAX / ip))
		return -ERANGE;
	whole = ip * mult;
	/* frac * mult < 2^50, exact enough in a double to round to the nearest byte. */
	part = (uint64_t)llround(frac * (double)mult);
	if (part > UINT64_MAX - whole)
		return -ERANGE;
	*out = whole + part;
	return 0;
}

struct time_suffix {
	const char *name;
	double mult;
};

/* Case-sensitive: "m" is minutes and "ms" milliseconds; "M" means nothing here. */
static const struct time_suffix time_suffixes[] = {
	{ "", 1.0 },   { "s", 1.0 },     { "ns", 1e-9 },  { "us", 1e-6 },
	{ "ms", 1e-3 }, { "m", 60.0 },   { "min", 60.0 }, { "h", 3600.0 },
};

int gf_parse_time(const char *s, double *seconds)
{
	const char *p, *start;
	char num[64], suf[8];
	double v, mult = -1.0;
	int ndigits = 0, ret;
	size_t i, n;

	if (!s || !seconds)
		return -EINVAL;
	p = s;
	while (isspace((unsigned char)*p))
		p++;
	/* Validate the number by hand: strtod alone would also take "-1", "inf", "nan" and
	 * hex floats, none of which is a duration. */
	start = p;
	for (; isdigit((unsigned char)*p); p++)
		ndigits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			ndigits++;
	if (ndigits == 0)
		return -EINVAL;
	if ((*p == 'e' || *p == 'E') &&
	    (isdigit((unsigned char)p[1]) ||
	     ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
		p += 2;
		while (isdigit((unsigned char)*p))
			p++;
	}
	n = (size_t)(p - start);
	if (n >= sizeof(num))
		return -ERANGE;
	memcpy(num, start, n);
	num[n] = '\0';

	ret = copy_suffix(p, suf, sizeof(suf));
	if (ret)
		return ret;
	for (i = 0; i < sizeof(time_suffixes) / sizeof(time_suffixes[0]); i++) {
		if (!strcmp(suf, time_suffixes[i].name)) {
			mult = time_suffixes[i].mult;
			break;
		}
	}
	if (mult < 0)
		return -EINVAL;

	errno = 0;
	v = strtod(num, NULL);
	/* Underflow ("1e-400") is a duration of zero for all practical purposes. */
	if ((errno == ERANGE && v == HUGE_VAL) || !isfinite(v * mult))
		return -ERANGE;
	*seconds = v * mult;
	return 0;
}

/* Print v (>= 0) with three significant digits followed by a unit, moving to the next
 * unit when rounding would otherwise print "1024 KiB" or "1000 ms". */
static void format3(double v, double base, const char *const *unit, int nunit,
		    const char *tail, char *buf, size_t len)
{
	int k = 0;
	int prec;

	while (k + 1 < nunit && v >= base - 0.5) {
		v /= base;
		k++;
	}
	if (v < 9.995)
		prec = 2;
	else if (v < 99.95)
		prec = 1;
	else
		prec = 0;
	snprintf(buf, len, "%.*f %s%s", prec, v, unit[k], tail);
}

char *gf_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

	if (!buf || len == 0)
		return buf;
	/* Bytes are whole: "512 B", not "512.00 B". */
	if (bytes < 1024)
		snprintf(buf, len, "%u B", (unsigned)bytes);
	else
		format3((double)bytes / 1024.0, 1024.0, unit + 1, 6, "", buf, len);
	return buf;
}

char *gf_format_rate(double bytes_per_s, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	size_t off = 0;

	if (!buf || len == 0)
		return buf;
	if (!isfinite(bytes_per_s)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (bytes_per_s < 0) {
		if (len < 2) {
			buf[0] = '\0';
			return buf;
		}
		buf[0] = '-';
		off = 1;
		bytes_per_s = -bytes_per_s;
	}
	format3(bytes_per_s, 1000.0, unit, 7, "/s", buf + off, len - off);
	return buf;
}

char *gf_format_time(double seconds, char *buf, size_t len)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	char *const ret = buf;

	if (!buf || len == 0)
		return buf;
	if (!isfinite(seconds)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	if (seconds < 0) {
		if (len < 2) {
			buf[0] = '\0';
			return ret;
		}
		*buf++ = '-';
		len--;
		seconds = -seconds;
	}

	if (seconds == 0) {
		snprintf(buf, len, "0 s");
	} else if (seconds < 59.95) {
		/* Below a minute, three significant digits in ns, us, ms or s. */
		format3(seconds * 1e9, 1000.0, unit, 4, "", buf, len);
	} else if (seconds < 3599.5) {
		unsigned long long t = (unsigned long long)llround(seconds);

		snprintf(buf, len, "%llum%02llus", t / 60, t % 60);
	} else if (seconds < 1e12) {
		/* The bound keeps the conversion to an integer defined; 1e12 s is 31700 years. */
		unsigned long long t = (unsigned long long)llround(seconds / 60.0);

		snprintf(buf, len, "%lluh%02llum", t / 60, t % 60);
	} else {
		snprintf(buf, len, "%.3g s", seconds);
	}
	return ret;
}

char *gf_format_count(double n, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *word;
	} w[] = { { 1e12, "trillion" }, { 1e9, "billion" }, { 1e6, "million" } };

	if (!buf || len == 0)
		return buf;
	if (!isfinite(n)) {
		snprintf(buf, len, "n/a");
		return buf;
	}
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (fabs(n) >= w[i].scale) {
			double x = n / w[i].scale;
			snprintf(buf, len, "%.*f %s", fabs(x) >= 100 ? 0 : fabs(x) >= 10 ? 1 : 2, x, w[i].word);
			return buf;
		}
	snprintf(buf, len, "%.0f", n);
	return buf;
}
