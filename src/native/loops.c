/* The sparse Newton-CG's per-pair loops (dprank.fit.sparse, dprank.objective), and the
 * censored items' win totals of dprank.intervals (logistic_totals).
 *
 * Built by the package build (setup.py) with the reader (reader.c) into the
 * extension dprank._native, loaded with ctypes by dprank.base._compiled. Compiled
 * without fast-math and without floating-point contraction (no fused
 * multiply-add): IEEE arithmetic in the order written, so a result is the same
 * bits on every machine and compiler (tests/test_sparse_backends.py checks
 * the loops against a line-by-line Python transcription).
 *
 * Pairs in rows (CSR): those of item a are k = ptr[a] .. ptr[a + 1] - 1, with
 * partners b[k] (int32). No pair joins an item with itself.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

/* SSE2 on x86-64 (every such processor) where the compiler says so: the pair weights'
 * streaming stores (store_weight) */
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define STREAM_STORES 1
#else
#define STREAM_STORES 0
#endif

#define NODE_EXP_SPREAD 600.0

/* The partner's record of the pair AHEAD places on is fetched while this pair is
 * done: the items' records are spread over more memory than the caches hold, and
 * the partners come in no order, so each is a cache miss; fetched ahead, several
 * are in flight at once. Only a hint: the arithmetic is that of the loop alone. */
#define AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define FETCH(p) __builtin_prefetch(p)
#else
#define FETCH(p) ((void)0)
#endif

static double py_max(double a, double b) { return (b > a) ? b : a; }

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ALWAYS_INLINE static __forceinline
#else
#define ALWAYS_INLINE static inline
#endif

/* A pair's count or wins, k-th of v: float64, or (whole) int32, where they are whole
 * numbers below 2^31 (the reader's pair sums of rows without counts). An int32 is exact
 * as a double: the loops' arithmetic, and their results, are the same bit for bit
 * either way; int32 halves what the loops read for them (they are memory-bound). Each
 * loop is written once, inlined with `whole` constant into its float64 and its int32
 * entry point. */
ALWAYS_INLINE double count_at(const void *v, int whole, int64_t k)
{
    return whole ? (double)((const int32_t *)v)[k] : ((const double *)v)[k];
}
static double py_min(double a, double b) { return (b < a) ? b : a; }

/* A pair weight into h[k], written once and read by the next passes: a streaming store
 * (the line is not read first, as a plain store's write-allocate does: btl_pass writes a
 * weight for every pair it reads, 8 bytes against its 12 read). The bits are those of the
 * plain store; btl_pass ends with a store fence. */
static inline void store_weight(double *h, double hk)
{
#if STREAM_STORES
    long long bits;
    memcpy(&bits, &hk, sizeof bits);
    _mm_stream_si64((long long *)h, bits);
#else
    *h = hk;
#endif
}

static inline void weights_done(void)
{
#if STREAM_STORES
    _mm_sfence();
#endif
}

/* One pair of btl_pass: with s = F(theta_a - theta_b) and q = F'(theta_a - theta_b),
 * g = c s - w, h = c q; h stored, g and h added to item a's sums (gi, di) and to the
 * partner's record (node: theta's term, gradient, diagonal per item). */
static inline void add_pair(double *node, int64_t ib, double s, double q, double c, double w,
                            double *h, double *gi, double *di)
{
    double g = c * s - w;
    double hk = c * q;
    store_weight(h, hk);
    *gi += g;
    node[3 * ib + 1] -= g;
    *di += hk;
    node[3 * ib + 2] += hk;
}

ALWAYS_INLINE int btl_pass_of(int64_t n, const double *theta, const int64_t *ptr,
                              const int32_t *b, const void *cnt, const void *w, int whole,
                              double *grad, double *diag, double *h)
{
    const int64_t end = n > 0 ? ptr[n] : 0;
    double hi = -INFINITY, lo = INFINITY;
    for (int64_t i = 0; i < n; i++) {
        hi = py_max(hi, theta[i]);
        lo = py_min(lo, theta[i]);
    }
    double *node = malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
    if (!node) return -1;
    for (int64_t i = 0; i < n; i++) {
        node[3 * i + 1] = grad[i];
        node[3 * i + 2] = diag[i];
    }
    if (n && hi - lo <= NODE_EXP_SPREAD) {
        for (int64_t i = 0; i < n; i++) node[3 * i] = exp(theta[i] - hi);
        for (int64_t i = 0; i < n; i++) {
            double ua = node[3 * i], gi = node[3 * i + 1], di = node[3 * i + 2];
            for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
                if (k + AHEAD < end) FETCH(&node[3 * (int64_t)b[k + AHEAD]]);
                int64_t ib = b[k];
                double ub = node[3 * ib];
                double inv = 1.0 / (ua + ub);
                double s = ua * inv;
                add_pair(node, ib, s, s * (ub * inv), count_at(cnt, whole, k),
                         count_at(w, whole, k), &h[k], &gi, &di);
            }
            node[3 * i + 1] = gi;
            node[3 * i + 2] = di;
        }
    } else {
        for (int64_t i = 0; i < n; i++) node[3 * i] = theta[i];
        for (int64_t i = 0; i < n; i++) {
            double ta = node[3 * i], gi = node[3 * i + 1], di = node[3 * i + 2];
            for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
                if (k + AHEAD < end) FETCH(&node[3 * (int64_t)b[k + AHEAD]]);
                int64_t ib = b[k];
                double d = ta - node[3 * ib];
                double e = exp(-fabs(d));
                double inv = 1.0 / (1.0 + e);
                double s = (d >= 0.0) ? inv : e * inv;
                add_pair(node, ib, s, e * inv * inv, count_at(cnt, whole, k),
                         count_at(w, whole, k), &h[k], &gi, &di);
            }
            node[3 * i + 1] = gi;
            node[3 * i + 2] = di;
        }
    }
    weights_done();
    for (int64_t i = 0; i < n; i++) {
        grad[i] = node[3 * i + 1];
        diag[i] = node[3 * i + 2];
    }
    free(node);
    return 0;
}

int btl_pass(int64_t n, const double *theta, const int64_t *ptr, const int32_t *b,
             const double *cnt, const double *w, double *grad, double *diag, double *h)
{
    return btl_pass_of(n, theta, ptr, b, cnt, w, 0, grad, diag, h);
}

int btl_pass_whole(int64_t n, const double *theta, const int64_t *ptr, const int32_t *b,
                   const int32_t *cnt, const int32_t *w, double *grad, double *diag, double *h)
{
    return btl_pass_of(n, theta, ptr, b, cnt, w, 1, grad, diag, h);
}

ALWAYS_INLINE double btl_value_of(int64_t n, const double *theta, const int64_t *ptr,
                                  const int32_t *b, const void *cnt, const void *w, int whole)
{
    double value = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double ta = theta[i];
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            double d = ta - theta[b[k]];
            value += count_at(cnt, whole, k) * (py_max(d, 0.0) + log1p(exp(-fabs(d)))) -
                     count_at(w, whole, k) * d;
        }
    }
    return value;
}

double btl_value(int64_t n, const double *theta, const int64_t *ptr, const int32_t *b,
                 const double *cnt, const double *w)
{
    return btl_value_of(n, theta, ptr, b, cnt, w, 0);
}

double btl_value_whole(int64_t n, const double *theta, const int64_t *ptr, const int32_t *b,
                       const int32_t *cnt, const int32_t *w)
{
    return btl_value_of(n, theta, ptr, b, cnt, w, 1);
}

void scatter_pairs(int64_t n, const int64_t *ptr, const int32_t *b, const double *g,
                   const double *h, double *grad, double *diag)
{
    for (int64_t i = 0; i < n; i++) {
        double gi = grad[i], di = diag[i];
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            int64_t ib = b[k];
            gi += g[k];
            grad[ib] -= g[k];
            di += h[k];
            diag[ib] += h[k];
        }
        grad[i] = gi;
        diag[i] = di;
    }
}

ALWAYS_INLINE void zero_pass_of(int64_t n, const int64_t *ptr, const int32_t *b,
                                const void *cnt, const void *w, int whole, double *grad,
                                double *diag, double *h)
{
    for (int64_t i = 0; i < n; i++) {
        double gi = grad[i], di = diag[i];
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            int64_t ib = b[k];
            double c = count_at(cnt, whole, k);
            double g = 0.5 * c - count_at(w, whole, k);
            double hk = 0.25 * c;
            store_weight(&h[k], hk);
            gi += g;
            grad[ib] -= g;
            di += hk;
            diag[ib] += hk;
        }
        grad[i] = gi;
        diag[i] = di;
    }
    weights_done();
}

void zero_pass(int64_t n, const int64_t *ptr, const int32_t *b, const double *cnt,
               const double *w, double *grad, double *diag, double *h)
{
    zero_pass_of(n, ptr, b, cnt, w, 0, grad, diag, h);
}

void zero_pass_whole(int64_t n, const int64_t *ptr, const int32_t *b, const int32_t *cnt,
                     const int32_t *w, double *grad, double *diag, double *h)
{
    zero_pass_of(n, ptr, b, cnt, w, 1, grad, diag, h);
}

/* xo[2 i + 1] -= (U x + U^T x)[i], x[i] read from xo[2 i]; xo: 2 n doubles, its odd
 * entries diag * x already (lap_pass, or pcg's update of its direction) */
static void lap_pairs(int64_t n, const int64_t *ptr, const int32_t *b, const double *h,
                      double *xo)
{
    const int64_t end = n > 0 ? ptr[n] : 0;
    for (int64_t i = 0; i < n; i++) {
        double xi = xo[2 * i], oi = xo[2 * i + 1];
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            if (k + AHEAD < end) FETCH(&xo[2 * (int64_t)b[k + AHEAD]]);
            int64_t ib = b[k];
            double hk = h[k];
            oi -= hk * xo[2 * ib];
            xo[2 * ib + 1] -= hk * xi;
        }
        xo[2 * i + 1] = oi;
    }
}

/* (diag * x - U x - U^T x)[i] into xo[2 i + 1], x[i] read from xo[2 i]; xo: 2 n doubles */
static void lap_pass(int64_t n, const int64_t *ptr, const int32_t *b, const double *h,
                     const double *diag, double *xo)
{
    for (int64_t i = 0; i < n; i++) xo[2 * i + 1] = diag[i] * xo[2 * i];
    lap_pairs(n, ptr, b, h, xo);
}

/* out = diag * x - U x - U^T x; xo: workspace of 2 n doubles */
static void lap_mv(int64_t n, const double *x, const int64_t *ptr, const int32_t *b,
                   const double *h, const double *diag, double *out, double *xo)
{
    for (int64_t i = 0; i < n; i++) xo[2 * i] = x[i];
    lap_pass(n, ptr, b, h, diag, xo);
    for (int64_t i = 0; i < n; i++) out[i] = xo[2 * i + 1];
}

int laplacian_mv(int64_t n, const double *x, const int64_t *ptr, const int32_t *b,
                 const double *h, const double *diag, double *out)
{
    double *xo = malloc(sizeof(double) * 2 * (size_t)(n > 0 ? n : 1));
    if (!xo) return -1;
    lap_mv(n, x, ptr, b, h, diag, out, xo);
    free(xo);
    return 0;
}

/* z = the preconditioned residual r, given the sum of r (total); returns r . z, summed
 * in the order of the items (the loop that ends the preconditioning sums it). */
static double precondition(int64_t n, const double *r, const double *inv_diag, double ones_eig,
                           double total, double *z)
{
    double mean = total / (double)n;
    double zmean = 0.0;
    for (int64_t i = 0; i < n; i++) {
        z[i] = inv_diag[i] * (r[i] - mean);
        zmean += z[i];
    }
    zmean /= (double)n;
    double shift = mean / ones_eig - zmean;
    double rz = 0.0;
    for (int64_t i = 0; i < n; i++) {
        z[i] += shift;
        rz += r[i] * z[i];
    }
    return rz;
}

/* Returns the iterations, or -1 when out of memory; *positive = 0 where a
 * direction of non-positive curvature was met. x: output, n doubles. */
int64_t pcg(int64_t n, const int64_t *ptr, const int32_t *b, const double *h,
            const double *diag, const double *rhs, double c, double ones_eig, double rtol,
            double atol_update, int64_t max_iter, double *x, int32_t *positive)
{
    /* the direction p and the product H p where lap_pass reads and leaves them, as
     * xo's even and odd entries: p[2 i], hp[2 i] */
    double *work = malloc(sizeof(double) * 5 * (size_t)(n > 0 ? n : 1));
    if (!work) return -1;
    double *inv_diag = work, *r = work + n, *z = work + 2 * n;
    double *xo = work + 3 * n, *p = xo, *hp = xo + 1;
    *positive = 1;
    for (int64_t i = 0; i < n; i++) inv_diag[i] = (diag[i] > 0.0) ? 1.0 / diag[i] : 1.0;
    double rsum = 0.0; /* the residual's sum, precondition's input */
    for (int64_t i = 0; i < n; i++) {
        x[i] = 0.0;
        r[i] = rhs[i];
        rsum += rhs[i];
    }
    double rz = precondition(n, r, inv_diag, ones_eig, rsum, z);
    for (int64_t i = 0; i < n; i++) {
        p[2 * i] = z[i];
        hp[2 * i] = diag[i] * p[2 * i]; /* lap_pass's first loop, done here */
    }
    double rr = 0.0;
    for (int64_t i = 0; i < n; i++) rr += r[i] * r[i];
    double tol2 = rtol * rtol * rr;
    int64_t it = 0;
    /* the loops over the items are those of lap_pass and precondition, in their order,
     * fused where one's result is the next one's input item by item (the sums are summed
     * in the same order): the same bits, three passes over the items fewer an iteration */
    for (it = 1; it <= max_iter; it++) {
        lap_pairs(n, ptr, b, h, xo);
        if (c != 0.0) {
            double total = 0.0;
            for (int64_t i = 0; i < n; i++) total += p[2 * i];
            for (int64_t i = 0; i < n; i++) hp[2 * i] += c * total;
        }
        double curv = 0.0;
        for (int64_t i = 0; i < n; i++) curv += p[2 * i] * hp[2 * i];
        if (!(curv > 0.0)) {
            *positive = 0;
            free(work);
            return it;
        }
        double alpha = rz / curv;
        rr = 0.0;
        double pmax = 0.0;
        rsum = 0.0;
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[2 * i];
            r[i] -= alpha * hp[2 * i];
            rr += r[i] * r[i];
            pmax = py_max(pmax, fabs(p[2 * i]));
            rsum += r[i];
        }
        if (rr <= tol2 || fabs(alpha) * pmax <= atol_update) break;
        double rz_new = precondition(n, r, inv_diag, ones_eig, rsum, z);
        double beta = rz_new / rz;
        for (int64_t i = 0; i < n; i++) {
            p[2 * i] = z[i] + beta * p[2 * i];
            hp[2 * i] = diag[i] * p[2 * i]; /* lap_pass's first loop */
        }
        rz = rz_new;
    }
    if (it > max_iter) it = max_iter;
    free(work);
    return it;
}

/* The rows of m pairs sorted by a (each a[k] in 0 .. n - 1): ptr[i] = the first k with
 * a[k] >= i, for i = 0 .. n, as numpy's searchsorted(a, arange(n + 1)) gives them, in one
 * pass over a instead of n + 1 binary searches into it; row_starts for int32 a (the
 * solver's pairs), row_starts_wide for int64 a (Comparisons' pair statistics). */
#define ROW_STARTS(name, index_t)                                     \
    void name(int64_t n, int64_t m, const index_t *a, int64_t *ptr)   \
    {                                                                 \
        int64_t k = 0;                                                \
        for (int64_t i = 0; i <= n; i++) {                            \
            while (k < m && a[k] < i) k++;                            \
            ptr[i] = k;                                               \
        }                                                             \
    }
ROW_STARTS(row_starts, int32_t)
ROW_STARTS(row_starts_wide, int64_t)

/* Connected components of the graph on n nodes with the m edges (a[k], b[k]):
 * label[i], numbered by each component's smallest node (as scipy numbers them).
 * Union by the smaller root with path halving; parent: workspace of n. Returns
 * the number of components. After n - 1 unions the graph is connected and the
 * remaining edges can join nothing: they are not read (a dense graph is connected
 * after a small part of its edges). */
int64_t components(int64_t n, int64_t m, const int32_t *a, const int32_t *b, int64_t *label,
                   int64_t *parent)
{
    int64_t unions = 0;
    for (int64_t i = 0; i < n; i++) parent[i] = i;
    for (int64_t k = 0; k < m && unions < n - 1; k++) {
        int64_t x = a[k], y = b[k];
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        while (parent[y] != y) {
            parent[y] = parent[parent[y]];
            y = parent[y];
        }
        if (x < y) {
            parent[y] = x;
            unions++;
        } else if (y < x) {
            parent[x] = y;
            unions++;
        }
    }
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) { /* parent[i] <= i: a root is met before its nodes */
        int64_t r = i;
        while (parent[r] != r) r = parent[r];
        parent[i] = r;
        label[i] = (r == i) ? count++ : label[r];
    }
    return count;
}

/* row[j] += c / (1 + a eb[j]) (as c * (1 / (1 + a eb[j]))) for j < k. With GCC and Clang
 * two nodes at a time in a vector of two doubles (SSE2's divpd, the division's throughput
 * twice the scalar one's): each lane's operations are the scalar loop's, in its order, so
 * the bits are the same either way. */
#if defined(__GNUC__) || defined(__clang__)
typedef double two_doubles __attribute__((vector_size(16)));
#endif

ALWAYS_INLINE void add_logistic_terms(int64_t k, double a, double c, const double *eb,
                                      double *row)
{
    int64_t j = 0;
#if defined(__GNUC__) || defined(__clang__)
    const two_doubles one = {1.0, 1.0}, av = {a, a}, cv = {c, c};
    for (; j + 2 <= k; j += 2) {
        two_doubles e, acc;
        memcpy(&e, eb + j, sizeof e);
        memcpy(&acc, row + j, sizeof acc);
        acc += cv * (one / (one + av * e));
        memcpy(row + j, &acc, sizeof acc);
    }
#endif
    for (; j < k; j++) row[j] += c * (1.0 / (1.0 + a * eb[j]));
}

/* The win totals of items at a grid of scores under the logistic link (the censored
 * items' likelihood of dprank.intervals, TotalLikelihood): for each of the m items
 * rows[r], mu[r * k + j] = sum of count[p] F(nodes[j] - at[opponent[p]]) over its pairs
 * p = start[rows[r]] .. start[rows[r] + 1] - 1, in their order, F the logistic cdf.
 * F(x - a) = 1 / (1 + e^{a - ref} e^{ref - x}): an exponential per item and one per node,
 * none per pair and node. The caller keeps at and nodes within NODE_EXP_SPREAD / 2 of
 * ref, so that no factor or product overflows. Returns -1 where out of memory. */
int logistic_totals(int64_t m, const int64_t *rows, const int64_t *start,
                    const int32_t *opponent, const double *count, int64_t n, const double *at,
                    int64_t k, const double *nodes, double ref, double *mu)
{
    double *ea = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double *eb = malloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
    if (!ea || !eb) {
        free(ea);
        free(eb);
        return -1;
    }
    for (int64_t i = 0; i < n; i++) ea[i] = exp(at[i] - ref);
    for (int64_t j = 0; j < k; j++) eb[j] = exp(ref - nodes[j]);
    for (int64_t r = 0; r < m; r++) {
        double *row = mu + r * k;
        for (int64_t j = 0; j < k; j++) row[j] = 0.0;
        for (int64_t p = start[rows[r]]; p < start[rows[r] + 1]; p++)
            add_logistic_terms(k, ea[opponent[p]], count[p], eb, row);
    }
    free(ea);
    free(eb);
    return 0;
}
