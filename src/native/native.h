/* dprank's compiled part (the extension dprank._native): the functions that
 * dprank.base._compiled loads with ctypes. loops.c: the sparse solver's per-pair
 * loops; reader.c: the comparison reader's parser, label tables and pair sums;
 * shortest.c: doubles as repr() writes them (module.c's text writers); mapguard.c: a
 * mapped input file's pages kept readable where the file shrinks while it is read. */
#ifndef DPRANK_NATIVE_H
#define DPRANK_NATIVE_H

#include <stdint.h>

#if defined(_WIN32)
#define DPRANK_API __declspec(dllexport)
#else
#define DPRANK_API __attribute__((visibility("default")))
#endif

/* loops.c */
DPRANK_API int btl_pass(int64_t n, const double *theta, const int64_t *ptr, const int32_t *b,
                        const double *cnt, const double *w, double *grad, double *diag,
                        double *h);
DPRANK_API double btl_value(int64_t n, const double *theta, const int64_t *ptr,
                            const int32_t *b, const double *cnt, const double *w);
DPRANK_API void scatter_pairs(int64_t n, const int64_t *ptr, const int32_t *b, const double *g,
                              const double *h, double *grad, double *diag);
DPRANK_API void zero_pass(int64_t n, const int64_t *ptr, const int32_t *b, const double *cnt,
                          const double *w, double *grad, double *diag, double *h);
/* the same loops with counts and wins as int32 (whole numbers below 2^31) */
DPRANK_API int btl_pass_whole(int64_t n, const double *theta, const int64_t *ptr,
                              const int32_t *b, const int32_t *cnt, const int32_t *w,
                              double *grad, double *diag, double *h);
DPRANK_API double btl_value_whole(int64_t n, const double *theta, const int64_t *ptr,
                                  const int32_t *b, const int32_t *cnt, const int32_t *w);
DPRANK_API void zero_pass_whole(int64_t n, const int64_t *ptr, const int32_t *b,
                                const int32_t *cnt, const int32_t *w, double *grad,
                                double *diag, double *h);
DPRANK_API int laplacian_mv(int64_t n, const double *x, const int64_t *ptr, const int32_t *b,
                            const double *h, const double *diag, double *out);
DPRANK_API int64_t pcg(int64_t n, const int64_t *ptr, const int32_t *b, const double *h,
                       const double *diag, const double *rhs, double c, double ones_eig,
                       double rtol, double atol_update, int64_t max_iter, double *x,
                       int32_t *positive);
DPRANK_API void row_starts(int64_t n, int64_t m, const int32_t *a, int64_t *ptr);
DPRANK_API void row_starts_wide(int64_t n, int64_t m, const int64_t *a, int64_t *ptr);
DPRANK_API int64_t components(int64_t n, int64_t m, const int32_t *a, const int32_t *b,
                              int64_t *label, int64_t *parent);
DPRANK_API int logistic_totals(int64_t m, const int64_t *rows, const int64_t *start,
                               const int32_t *opponent, const double *count, int64_t n,
                               const double *at, int64_t k, const double *nodes, double ref,
                               double *mu);

/* reader.c */
DPRANK_API void *labels_new(void);
DPRANK_API void labels_free(void *t);
DPRANK_API int64_t labels_count(void *t);
DPRANK_API int64_t labels_text_bytes(void *t, int64_t lo, int64_t hi);
DPRANK_API void labels_export(void *t, int64_t lo, int64_t hi, int64_t *val, int64_t *len,
                              uint8_t *out);
DPRANK_API void ints_to_text(int64_t n, const int64_t *v, int64_t width, uint32_t *out);
DPRANK_API int64_t labels_encode_texts(void *t, const uint8_t *data, const int64_t *offsets,
                                       const uint8_t *nulls, int64_t n, int64_t *out);
DPRANK_API int64_t labels_encode_ints(void *t, const int64_t *v, int64_t n, int64_t *out);
DPRANK_API int64_t parse_csv(const uint8_t *buf, int64_t len, int64_t ncols, const int64_t *kind,
                             const int64_t *slot, int64_t sep, void **tables, int32_t *ids,
                             double *nums, int64_t cap, int64_t *stop);
DPRANK_API void rows_pack(int64_t m, const int32_t *i, const int32_t *j, const double *y,
                          uint64_t *out);
DPRANK_API int64_t rows_sum(int64_t m, uint64_t *x, uint64_t *y, double *cx, double *cy,
                            const int32_t *rank, int64_t n_items, int32_t *a, int32_t *b,
                            int64_t whole);

DPRANK_API void *pairs_new(void);
DPRANK_API void pairs_free(void *t);
DPRANK_API int64_t pairs_count(void *t);
DPRANK_API int64_t pairs_add(void *t, int64_t m, const int32_t *i, const int32_t *j,
                             const double *y);
DPRANK_API void pairs_export(void *t, int64_t expand, uint64_t *keys, double *counts);

/* records.c: Comparisons' records checked and copied in one pass, and the pair statistics
 * of records whose pairs come sorted and distinct */
#define RECORDS_BINARY 1
#define RECORDS_UNIT 2
#define RECORDS_WHOLE 4
#define RECORDS_SORTED 8
DPRANK_API int64_t records_check(int64_t m, int64_t n_items, const int64_t *i, const int64_t *j,
                                 const double *y, const double *count, int64_t weighted,
                                 int64_t ties, int64_t *io, int64_t *jo, double *yo, double *co);
DPRANK_API int64_t sorted_pairs(int64_t m, const int64_t *i, const int64_t *j, const double *y,
                                const double *count, int64_t *a, int64_t *b, double *n,
                                double *w);

/* mapguard.c: a mapped input's pages kept readable (zeros) where its file shrinks */
DPRANK_API int64_t map_guard_add(const void *base, int64_t len);
DPRANK_API int map_guard_lost(int64_t slot);
DPRANK_API int map_guard_remove(int64_t slot);
DPRANK_API int map_guard_installed(void);

/* shortest.c: repr() of a double into out (at most SHORTEST_REPR_MAX bytes, no NUL);
 * returns the length */
#define SHORTEST_REPR_MAX 32
int shortest_repr(double value, char *out);

/* module.c: the hash of these sources the build compiled in, and their stat stamp */
DPRANK_API const char *native_source_digest(void);
DPRANK_API const char *native_source_stamp(void);

#endif
