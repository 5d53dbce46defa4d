/* Doubles written as Python's repr() writes them, without Python's dtoa.
 *
 * repr(x) is the shortest decimal string that reads back to x (of the shortest, the
 * nearest to x; of two equally near, the one with an even last digit), spelled in
 * fixed notation where its decimal point falls from 4 places left of the first digit
 * to 16 places right of it, else in scientific notation with a two-digit exponent at
 * least ("1e-05", "1.5e+300"); "0.0", "inf", "nan". Python computes the digits with
 * David Gay's dtoa (big-number arithmetic, about a microsecond a value); here they come
 * from the method of U. Adams (2018), "Ryu: fast float-to-string conversion", PLDI:
 * the bounds of the interval that rounds to x, scaled by a power of ten through one
 * 128-bit multiplication by a power of five (pow5_table.h, written into the build tree
 * by dprank.base._native_build.pow5_table), then the digits removed while the interval
 * still holds a shorter number. Whether a scaled value is exact (its removed digits all
 * zero, which decides ties and the interval's closed ends) is tested exactly.
 * tests/test_compiled_format.py compares the output with repr() on millions of doubles.
 */
#include <stdint.h>
#include <string.h>

#include "native.h"
#include "pow5_table.h"

static uint32_t pow5bits(int32_t e) { return (uint32_t)(((uint32_t)e * 1217359u) >> 19) + 1; }
static uint32_t log10_pow2(int32_t e) { return ((uint32_t)e * 78913u) >> 18; }
static uint32_t log10_pow5(int32_t e) { return ((uint32_t)e * 732923u) >> 20; }

static int multiple_of_pow5(uint64_t v, uint32_t p)
{
    uint32_t count = 0;
    while (v != 0 && v % 5 == 0) {
        v /= 5;
        count++;
    }
    return count >= p;
}

static int multiple_of_pow2(uint64_t v, uint32_t p)
{
    return p >= 64 ? v == 0 : (v & ((UINT64_C(1) << p) - 1)) == 0;
}

/* (m * mul) >> j for a 64-bit m and a 128-bit mul (low, high), j >= 64 */
static uint64_t mul_shift(uint64_t m, const uint64_t *mul, uint32_t j)
{
#if defined(__SIZEOF_INT128__) && !defined(DPRANK_NO_INT128)
    unsigned __int128 low = (unsigned __int128)m * mul[0];
    unsigned __int128 high = (unsigned __int128)m * mul[1];
    unsigned __int128 sum = (low >> 64) + high;
    return (uint64_t)(sum >> (j - 64));
#else
    /* the same with 32-bit halves */
    uint64_t ml = m & 0xffffffffu, mh = m >> 32, words[2][2];
    for (int w = 0; w < 2; w++) {
        uint64_t xl = mul[w] & 0xffffffffu, xh = mul[w] >> 32;
        uint64_t ll = ml * xl, lh = ml * xh, hl = mh * xl, hh = mh * xh;
        uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
        words[w][0] = (mid << 32) | (ll & 0xffffffffu);
        words[w][1] = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    }
    uint64_t lo = words[1][0] + words[0][1];
    uint64_t hi = words[1][1] + (lo < words[1][0]);
    uint32_t dist = j - 64;
    if (dist == 0) return lo;
    if (dist >= 64) return hi >> (dist - 64);
    return (hi << (64 - dist)) | (lo >> dist);
#endif
}

/* The scaled centre and ends of the interval, as digits are removed from them. */
typedef struct {
    uint64_t vr, vp, vm;
    uint32_t last; /* the last digit removed from vr */
    int vr_exact;  /* vr and the digits removed before the last were exact (zeros) */
    int32_t removed;
} Scaled;

static void drop_digit(Scaled *d)
{
    d->vr_exact &= d->last == 0;
    d->last = (uint32_t)(d->vr % 10);
    d->vr /= 10;
    d->vp /= 10;
    d->vm /= 10;
    d->removed++;
}

/* The shortest digits of a finite nonzero double's magnitude: *digits * 10^(*exponent) */
static void shortest_digits(uint64_t mantissa, uint32_t biased, uint64_t *digits,
                            int32_t *exponent)
{
    int32_t e2;
    uint64_t m2;
    if (biased == 0) {
        e2 = 1 - 1023 - 52 - 2;
        m2 = mantissa;
    } else {
        e2 = (int32_t)biased - 1023 - 52 - 2;
        m2 = (UINT64_C(1) << 52) | mantissa;
    }
    const int accept_bounds = (m2 & 1) == 0; /* reading rounds half to even */
    /* the interval's centre and ends, times 4: mv, mp = mv + 2, mm = mv - 1 - mm_shift
     * (the lower gap is half as wide below a power of two) */
    const uint64_t mv = 4 * m2;
    const uint32_t mm_shift = (mantissa != 0 || biased <= 1);
    const uint64_t mp = mv + 2, mm = mv - 1 - mm_shift;
    uint64_t vr, vp, vm;
    int32_t e10;
    int vm_exact = 0, vr_exact = 0, vp_exact = 0;
    if (e2 >= 0) {
        const uint32_t q = log10_pow2(e2) - (e2 > 3);
        e10 = (int32_t)q;
        const uint32_t j = (uint32_t)(-e2 + (int32_t)q + POW5_BITS + (int32_t)pow5bits(q) - 1);
        vr = mul_shift(mv, POW5_INV[q], j);
        vp = mul_shift(mp, POW5_INV[q], j);
        vm = mul_shift(mm, POW5_INV[q], j);
        if (q <= 23) { /* 5^24 exceeds every mp: no removed digits are zero beyond */
            vr_exact = multiple_of_pow5(mv, q);
            vm_exact = multiple_of_pow5(mm, q);
            vp_exact = multiple_of_pow5(mp, q);
        }
    } else {
        const uint32_t q = log10_pow5(-e2) - (-e2 > 1);
        e10 = (int32_t)q + e2;
        const int32_t i = -e2 - (int32_t)q;
        const int32_t k = (int32_t)pow5bits(i) - POW5_BITS;
        const uint32_t j = (uint32_t)((int32_t)q - k);
        vr = mul_shift(mv, POW5[i], j);
        vp = mul_shift(mp, POW5[i], j);
        vm = mul_shift(mm, POW5[i], j);
        vr_exact = multiple_of_pow2(mv, q);
        vm_exact = multiple_of_pow2(mm, q);
        vp_exact = multiple_of_pow2(mp, q);
    }
    if (!accept_bounds) {
        vp -= vp_exact; /* the upper end is open */
        vm_exact = 0;   /* and so is the lower one: vm itself is never chosen */
    }
    Scaled d = {vr, vp, vm, 0, vr_exact, 0};
    /* remove digits while the interval holds a number with one digit fewer */
    while (d.vp / 10 > d.vm / 10) {
        vm_exact &= d.vm % 10 == 0;
        drop_digit(&d);
    }
    if (vm_exact) /* the lower end itself (closed, exact) may be shorter still */
        while (d.vm % 10 == 0) drop_digit(&d);
    if (d.vr_exact && d.last == 5 && d.vr % 2 == 0) d.last = 4; /* a tie: to the even digit */
    *digits = d.vr + ((d.vr == d.vm && !vm_exact) || d.last >= 5);
    *exponent = e10 + d.removed;
}

int shortest_repr(double value, char *out)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    const uint64_t mantissa = bits & ((UINT64_C(1) << 52) - 1);
    const uint32_t biased = (uint32_t)((bits >> 52) & 0x7ff);
    const int negative = (int)(bits >> 63);
    char *p = out;
    if (biased == 0x7ff) {
        if (mantissa) {
            memcpy(out, "nan", 3); /* repr drops a NaN's sign */
            return 3;
        }
        if (negative) *p++ = '-';
        memcpy(p, "inf", 3);
        return (int)(p - out) + 3;
    }
    if (negative) *p++ = '-';
    if (biased == 0 && mantissa == 0) {
        memcpy(p, "0.0", 3);
        return (int)(p - out) + 3;
    }
    uint64_t digits;
    int32_t exponent;
    shortest_digits(mantissa, biased, &digits, &exponent);
    char text[20];
    int n = 0;
    for (uint64_t d = digits; d; d /= 10) text[19 - n++] = (char)('0' + d % 10);
    const char *s = text + 20 - n;
    const int32_t point = n + exponent; /* the decimal point, after `point` digits */
    if (point > 16 || point <= -4) { /* scientific, as repr: d[.ddd]e[+-]XX */
        *p++ = s[0];
        if (n > 1) {
            *p++ = '.';
            memcpy(p, s + 1, (size_t)(n - 1));
            p += n - 1;
        }
        int32_t e = point - 1;
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        if (e < 0) e = -e;
        if (e >= 100) *p++ = (char)('0' + e / 100);
        *p++ = (char)('0' + e / 10 % 10);
        *p++ = (char)('0' + e % 10);
    } else if (point <= 0) { /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int32_t k = 0; k < -point; k++) *p++ = '0';
        memcpy(p, s, (size_t)n);
        p += n;
    } else if (point >= n) { /* ddd000.0 */
        memcpy(p, s, (size_t)n);
        p += n;
        for (int32_t k = n; k < point; k++) *p++ = '0';
        *p++ = '.';
        *p++ = '0';
    } else { /* ddd.ddd */
        memcpy(p, s, (size_t)point);
        p += point;
        *p++ = '.';
        memcpy(p, s + point, (size_t)(n - point));
        p += n - point;
    }
    return (int)(p - out);
}
