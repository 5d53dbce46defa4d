/* Comparison records (dprank.data.comparisons.Comparisons): their checks, copied in the same
 * pass, and the pair statistics of records whose pairs come sorted and distinct.
 *
 * Built by the package build (setup.py) into the extension dprank._native, loaded with
 * ctypes by dprank.base._compiled. Compiled without fast-math and without contraction
 * (IEEE arithmetic in the order written): the outcome sums are numpy's to the bit.
 *
 * records_check only says whether every record is valid; where one is not, the caller runs
 * its numpy checks, whose message names the first bad record.
 */
#include <math.h>
#include <stdint.h>

#include "native.h"

/* Check m records, and copy them into io, jo, yo, co where those are given (all or none):
 *   0 <= i, j < n_items, i != j, y finite (with ties: 0, 1 or 1/2), count finite and > 0
 *   (unless weighted, a whole number).
 * Returns -1 where a record is not valid, else RECORDS_* flags of what every record is:
 * an outcome 0 or 1 (BINARY), a count of 1 (UNIT), a whole count below 2^53 (WHOLE), and
 * whether the pairs (min(i, j), max(i, j)) strictly increase, (a, b) in lexicographic order
 * (SORTED: distinct pairs in the order of the pair statistics). */
int64_t records_check(int64_t m, int64_t n_items, const int64_t *i, const int64_t *j,
                      const double *y, const double *count, int64_t weighted, int64_t ties,
                      int64_t *io, int64_t *jo, double *yo, double *co)
{
    const uint64_t n = (uint64_t)n_items;
    int bad = 0, binary = 1, unit = 1, whole = 1, sorted = 1;
    int64_t pa = -1, pb = -1;
    for (int64_t k = 0; k < m; k++) {
        const int64_t ik = i[k], jk = j[k];
        const double yk = y[k], ck = count[k];
        if (io) {
            io[k] = ik;
            jo[k] = jk;
            yo[k] = yk;
            co[k] = ck;
        }
        /* negative indices wrap to 2^64 - |i| >= n */
        bad |= ((uint64_t)ik >= n) | ((uint64_t)jk >= n) | (ik == jk) | !isfinite(yk);
        bad |= !isfinite(ck) | !(ck > 0.0);
        const int is_binary = (yk == 0.0) | (yk == 1.0);
        const int is_whole = (floor(ck) == ck) & (ck < 9007199254740992.0);
        if (ties) bad |= !(is_binary | (yk == 0.5));
        if (!weighted) bad |= floor(ck) != ck;
        binary &= is_binary;
        unit &= ck == 1.0;
        whole &= is_whole;
        const int64_t a = ik < jk ? ik : jk, b = ik < jk ? jk : ik;
        sorted &= (a > pa) | ((a == pa) & (b > pb));
        pa = a;
        pb = b;
    }
    if (bad) return -1;
    return (binary ? RECORDS_BINARY : 0) | (unit ? RECORDS_UNIT : 0) |
           (whole ? RECORDS_WHOLE : 0) | (sorted ? RECORDS_SORTED : 0);
}

/* The pair statistics of m checked records (records_check) whose pairs strictly increase:
 * a = min(i, j), b = max(i, j), n = count, w = (y if i < j else 1 - y) * count, as numpy
 * computes them elementwise. Returns 1 where every w is finite (n is: the counts are),
 * else 0. */
int64_t sorted_pairs(int64_t m, const int64_t *i, const int64_t *j, const double *y,
                     const double *count, int64_t *a, int64_t *b, double *n, double *w)
{
    int finite = 1;
    for (int64_t k = 0; k < m; k++) {
        const int64_t ik = i[k], jk = j[k];
        const double ck = count[k];
        const int first = ik < jk;
        a[k] = first ? ik : jk;
        b[k] = first ? jk : ik;
        const double ya = first ? y[k] : 1.0 - y[k];
        const double wk = ya * ck;
        n[k] = ck;
        w[k] = wk;
        finite &= isfinite(wk) != 0;
    }
    return finite;
}
