/* The comparison reader's compiled parts (dprank.data.inputs, dprank.data._input_blocks):
 *
 *  - label tables: a provisional id for every distinct label, integers by value
 *    and text by its bytes (hash tables; ids numbered as labels first appear);
 *  - parse_csv: a block of simple CSV or TSV text straight to label ids and
 *    numbers (no text objects per row);
 *  - pair counts: rows counted by pair in a hash table, while they repeat few
 *    pairs (memory then follows the distinct pairs);
 *  - pair sums: comparisons (or the counted pairs) summed over unordered item
 *    pairs by a radix sort (64 bits a row; time linear in the rows).
 *
 * What Python keeps: the validation and its messages (the blocks' id and number
 * arrays are checked with array operations), the Unicode normalisation of the
 * distinct labels (dprank.data.inputs.normalize_label) and the final label order.
 * A field here is the text between delimiters with ASCII whitespace (Python's
 * str.isspace among ASCII: space, \t, \v, \f, \x1c-\x1f) stripped from both
 * ends; what Python strips beyond that (Unicode spaces) and NFC it applies to
 * the distinct labels, merging labels that become equal.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* SSE2 (every x86-64 processor) where the compiler says so: the field scan 16 bytes a step */
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define SSE2 1
#else
#define SSE2 0
#endif


#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PREFETCH(p) ((void)0)
#define LIKELY(x) (x)
#define ALWAYS_INLINE inline
#endif

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t load4(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The 128-bit product of a and b, its two halves xor-ed (wyhash's "mum"): one multiply
 * that mixes every bit of both words into every bit of the result. */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl;
    uint64_t lo = t + (rm1 << 32);
    c += lo < t;
    return lo ^ (rh + (rm0 >> 32) + (rm1 >> 32) + c);
#endif
}

#define HASH_K0 0xa0761d6478bd642fULL
#define HASH_K1 0xe7037ed1a0b428dbULL
#define HASH_K2 0x8ebc6af09c88c6e3ULL

static uint64_t hash_long(const uint8_t *p, int64_t n);

/* A hash of the n bytes at p (wyhash's scheme). A label is usually short: up to 16
 * bytes are read as two words that may overlap, never outside the text, and mixed by
 * two multiplies. Equal texts, equal hashes; the hashes only place labels in the index
 * (the ids are the order of first appearance). */
static inline uint64_t hash_bytes(const uint8_t *p, int64_t n)
{
    uint64_t a, b;
    if (LIKELY(n >= 8 && n <= 16)) {
        a = load8(p);
        b = load8(p + n - 8);
    } else if (n > 16) {
        return hash_long(p, n);
    } else if (n >= 4) {
        a = load4(p);
        b = load4(p + n - 4);
    } else if (n > 0) {
        a = (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1];
        b = 0;
    } else {
        a = b = 0;
    }
    return mum(HASH_K1 ^ (uint64_t)n, mum(a ^ HASH_K1, b ^ HASH_K0));
}

/* hash_bytes of a text over 16 bytes: 16 bytes a step, then its last 16 (which may
 * overlap those before) */
static uint64_t hash_long(const uint8_t *p, int64_t n)
{
    uint64_t h = HASH_K0 ^ (uint64_t)n;
    const uint8_t *last = p + n - 16;
    for (; p < last; p += 16) h = mum(load8(p) ^ HASH_K1, load8(p + 8) ^ h);
    h = mum(load8(last) ^ HASH_K2, load8(last + 8) ^ h);
    return mum(HASH_K1 ^ (uint64_t)n, h);
}

/* Whether the n bytes at p and q are equal (n <= 16: two words that may overlap) */
static inline int same_text(const uint8_t *p, const uint8_t *q, int64_t n)
{
    if (n >= 8 && n <= 16)
        return load8(p) == load8(q) && load8(p + n - 8) == load8(q + n - 8);
    if (n >= 4 && n < 8) return load4(p) == load4(q) && load4(p + n - 4) == load4(q + n - 4);
    return !memcmp(p, q, (size_t)n);
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight bytes at a time (the first byte in the lowest bits of a word) */
#define SWAR 1
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
/* the high bit of each zero byte of v, and maybe of bytes above the first (not below) */
#define ZERO_BYTES(v) (((v) - ONES) & ~(v) & HIGHS)
#if defined(__GNUC__) || defined(__clang__)
#define LOWEST_BYTE(m) (__builtin_ctzll(m) >> 3)
#else
static int LOWEST_BYTE(uint64_t m)
{
    int k = 0;
    while (!(m & 0x80)) {
        m >>= 8;
        k++;
    }
    return k;
}
#endif
#else
#define SWAR 0
#endif

/* Python's ASCII whitespace, less the line ends (which never reach a field) */
static inline int is_space(uint8_t c)
{
    return c <= ' ' && (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c >= 0x1c);
}

/* ------------------------------------------------------------------ label tables */

/* Room for an index looked up at random (a text index over 10^5 labels and more is
 * megabytes): on Linux, in 2 MiB pages where the system grants them (a lookup then
 * rarely misses the address translation's cache as well as the data's). Freed
 * with free(). Where it changes nothing but where the memory lies. */
static void *index_alloc(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)1 << 21;
    if (bytes >= 2 * huge) {
        void *p = NULL;
        bytes = (bytes + huge - 1) & ~(huge - 1);
        if (posix_memalign(&p, huge, bytes)) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: refused, the pages stay small */
        return p;
    }
#endif
    return malloc(bytes);
}

typedef struct {
    uint64_t key; /* the integer (as bits) */
    int64_t id;   /* -1: empty */
} islot_t;

/* A text index slot holds a short text itself, so that finding a label seen
 * before reads one slot (half a cache line) and nothing else. */
#define INLINE_TEXT 16
typedef struct {
    uint64_t hash;
    int32_t id; /* -1: empty */
    int32_t len;
    uint8_t text[INLINE_TEXT]; /* the text where it is this short */
} tslot_t;

typedef struct {
    int64_t n, cap;    /* ids in use, room */
    int64_t *val;      /* per id: integer value, or offset of the text */
    int32_t *len;      /* per id: -1 for an integer label, else the text's length */
    /* integers: a table over their range while they are dense in it (dense[v - dlo]:
     * id + 1, 0 unseen), else a hash index */
    int32_t *dense;
    int64_t dlo, dsize;
    islot_t *islot;
    int64_t icap, icount;
    tslot_t *tslot;    /* text index */
    int64_t tcap, tcount;
    uint8_t *text;     /* the texts, one after the other */
    int64_t tlen, tbytes;
} labels_t;

static void *grow(void *p, int64_t *cap, int64_t need, size_t size)
{
    if (need <= *cap) return p;
    int64_t c = *cap ? *cap : 64;
    while (c < need) c += c / 2 + 64;
    void *q = realloc(p, (size_t)c * size);
    if (q) *cap = c;
    return q;
}

/* The slots of an open-addressing table, all free: every byte `empty`, the tables' mark
 * of a free slot (0xff: the label indexes' id -1; 0: the pair table's key 0). NULL: out
 * of memory. Freed with free(). */
static void *empty_table(int64_t cap, size_t slot_size, int empty)
{
    void *s = index_alloc((size_t)cap * slot_size);
    if (s) memset(s, empty, (size_t)cap * slot_size);
    return s;
}

#define FREE_ID 0xff /* every byte of an empty label index slot: id -1 */

void *labels_new(void)
{
    labels_t *t = calloc(1, sizeof(labels_t));
    if (!t) return NULL;
    t->icap = t->tcap = 1024;
    t->islot = empty_table(t->icap, sizeof(islot_t), FREE_ID);
    t->tslot = empty_table(t->tcap, sizeof(tslot_t), FREE_ID);
    if (!t->islot || !t->tslot) {
        labels_free(t);
        return NULL;
    }
    return t;
}

void labels_free(void *p)
{
    labels_t *t = p;
    if (!t) return;
    free(t->val);
    free(t->len);
    free(t->dense);
    free(t->islot);
    free(t->tslot);
    free(t->text);
    free(t);
}

int64_t labels_count(void *p) { return ((labels_t *)p)->n; }

int64_t labels_text_bytes(void *p, int64_t lo, int64_t hi)
{
    labels_t *t = p;
    int64_t total = 0;
    for (int64_t k = lo; k < hi; k++)
        if (t->len[k] > 0) total += t->len[k];
    return total;
}

/* ids lo .. hi - 1: values (integers; -1 for a text), text lengths (-1 for an
 * integer) and the texts one after the other in `out` (labels_text_bytes) */
void labels_export(void *p, int64_t lo, int64_t hi, int64_t *val, int64_t *len, uint8_t *out)
{
    labels_t *t = p;
    int64_t o = 0;
    for (int64_t k = lo; k < hi; k++) {
        int32_t n = t->len[k];
        len[k - lo] = n;
        if (n < 0) {
            val[k - lo] = t->val[k];
        } else {
            val[k - lo] = -1;
            memcpy(out + o, t->text + t->val[k], (size_t)n);
            o += n;
        }
    }
}

/* n integers as numpy's text of `width` characters (UCS-4, NUL-padded), as Python's
 * str writes them (`-` and the digits): the integer labels in text form, without a Python
 * str per label. `width` must hold the longest (at most 20 characters). */
void ints_to_text(int64_t n, const int64_t *v, int64_t width, uint32_t *out)
{
    for (int64_t k = 0; k < n; k++) {
        uint32_t *o = out + k * width;
        char digits[20];
        int nd = 0;
        uint64_t u = v[k] < 0 ? (uint64_t)0 - (uint64_t)v[k] : (uint64_t)v[k];
        do {
            digits[nd++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        int64_t c = 0;
        if (v[k] < 0) o[c++] = '-';
        while (nd) o[c++] = (uint32_t)digits[--nd];
        while (c < width) o[c++] = 0;
    }
}

static int new_id(labels_t *t)
{
    if (t->n >= INT32_MAX - 1) return -1;
    if (t->n < t->cap) return 0;
    int64_t cap = t->cap, c2 = t->cap;
    int64_t *val = grow(t->val, &cap, t->n + 1, sizeof(int64_t));
    if (!val) return -1;
    t->val = val;
    int32_t *len = grow(t->len, &c2, t->n + 1, sizeof(int32_t));
    if (!len) return -1;
    t->len = len;
    t->cap = cap;
    return 0;
}

/* insert (key, id) into an index known not to hold key */
static void slot_put(islot_t *slots, int64_t cap, uint64_t key, uint64_t h, int64_t id)
{
    uint64_t mask = (uint64_t)(cap - 1), at = h & mask;
    while (slots[at].id >= 0) at = (at + 1) & mask;
    slots[at].key = key;
    slots[at].id = id;
}

static int rehash(islot_t **slots, int64_t *cap)
{
    int64_t c = *cap * 2;
    islot_t *old = *slots, *fresh = empty_table(c, sizeof(islot_t), FREE_ID);
    if (!fresh) return -1;
    for (int64_t s = 0; s < *cap; s++)
        if (old[s].id >= 0)
            slot_put(fresh, c, old[s].key, mix64(old[s].key), old[s].id);
    free(old);
    *slots = fresh;
    *cap = c;
    return 0;
}

static int64_t add_int(labels_t *t, int64_t v)
{
    if (new_id(t)) return -1;
    int64_t k = t->n++;
    t->val[k] = v;
    t->len[k] = -1;
    return k;
}

/* the integers seen so far into the hash index (they are too spread out for a table) */
static int leave_dense(labels_t *t)
{
    for (int64_t k = 0; k < t->n; k++) {
        if (t->len[k] >= 0) continue;
        while ((t->icount + 1) * 4 > t->icap * 3)
            if (rehash(&t->islot, &t->icap)) return -1;
        slot_put(t->islot, t->icap, (uint64_t)t->val[k], mix64((uint64_t)t->val[k]), k);
        t->icount++;
    }
    free(t->dense);
    t->dense = NULL;
    t->dsize = -1; /* never again */
    return 0;
}

/* a table of up to 2^22 entries whatever the labels (calloc: pages never touched cost no memory) */
#define DENSE_MIN (1 << 22)

static int64_t int_id_slow(labels_t *t, int64_t v);

/* id of the integer label v (added if new); -1: out of memory. Inline: a label
 * seen before, in the table over the range, is one load. */
static inline int64_t int_id(labels_t *t, int64_t v)
{
    uint64_t off = (uint64_t)v - (uint64_t)t->dlo;
    if (LIKELY(t->dense != NULL) && off < (uint64_t)t->dsize) {
        int32_t id = t->dense[off];
        if (LIKELY(id)) return id - 1;
    }
    return int_id_slow(t, v);
}

static int64_t int_id_slow(labels_t *t, int64_t v)
{
    uint64_t off = (uint64_t)v - (uint64_t)t->dlo;
    if (t->dense != NULL && off < (uint64_t)t->dsize) { /* in range, new */
        int64_t k = add_int(t, v);
        if (k >= 0) t->dense[off] = (int32_t)(k + 1);
        return k;
    }
    if (t->dsize >= 0) { /* the table, grown to take v while the integers stay dense in it */
        int64_t lo = v, hi = v;
        if (t->dense) {
            int64_t top = t->dlo + (t->dsize - 1);
            if (t->dlo < lo) lo = t->dlo;
            if (top > hi) hi = top;
        }
        uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
        if (span <= (uint64_t)(4 * t->n + DENSE_MIN)) {
            int64_t extra = (int64_t)(span / 2) + 1024; /* room to grow, on the side v came */
            int64_t new_lo = lo;
            if (t->dense && v < t->dlo && lo > INT64_MIN + extra) new_lo = lo - extra;
            int64_t size = (int64_t)span + extra;
            int32_t *d = calloc((size_t)size, sizeof(int32_t));
            if (!d) return -1;
            if (t->dense)
                memcpy(d + (t->dlo - new_lo), t->dense, (size_t)t->dsize * sizeof(int32_t));
            free(t->dense);
            t->dense = d;
            t->dlo = new_lo;
            t->dsize = size;
            return int_id_slow(t, v);
        }
        if (leave_dense(t)) return -1;
    }
    uint64_t mask = (uint64_t)(t->icap - 1);
    uint64_t at = mix64((uint64_t)v) & mask;
    while (t->islot[at].id >= 0) {
        if (t->islot[at].key == (uint64_t)v) return t->islot[at].id;
        at = (at + 1) & mask;
    }
    int64_t k = add_int(t, v);
    if (k < 0) return -1;
    t->islot[at].key = (uint64_t)v;
    t->islot[at].id = k;
    if (++t->icount * 4 > t->icap * 3 && rehash(&t->islot, &t->icap)) return -1;
    return k;
}

static int rehash_texts(labels_t *t)
{
    int64_t c = t->tcap * 2;
    uint64_t mask = (uint64_t)(c - 1);
    tslot_t *fresh = empty_table(c, sizeof(tslot_t), FREE_ID);
    if (!fresh) return -1;
    for (int64_t k = 0; k < t->tcap; k++) {
        if (t->tslot[k].id < 0) continue;
        uint64_t at = t->tslot[k].hash & mask;
        while (fresh[at].id >= 0) at = (at + 1) & mask;
        fresh[at] = t->tslot[k];
    }
    free(t->tslot);
    t->tslot = fresh;
    t->tcap = c;
    return 0;
}

static int64_t text_id_hashed(labels_t *t, const uint8_t *p, int64_t n, uint64_t hv);

/* id of the text label p[0:n] (added if new); -1: out of memory */
static int64_t text_id(labels_t *t, const uint8_t *p, int64_t n)
{
    return text_id_hashed(t, p, n, hash_bytes(p, n));
}

/* text_id of a text whose hash_bytes is hv */
static int64_t text_id_hashed(labels_t *t, const uint8_t *p, int64_t n, uint64_t hv)
{
    uint64_t mask = (uint64_t)(t->tcap - 1);
    uint64_t at = hv & mask;
    while (t->tslot[at].id >= 0) {
        tslot_t *q = &t->tslot[at];
        if (q->hash == hv && q->len == n) {
            const uint8_t *seen = n <= INLINE_TEXT ? q->text : t->text + t->val[q->id];
            if (same_text(seen, p, n)) return q->id;
        }
        at = (at + 1) & mask;
    }
    if (n > INT32_MAX || new_id(t)) return -1;
    uint8_t *text = grow(t->text, &t->tbytes, t->tlen + n + 1, 1);
    if (!text) return -1;
    t->text = text;
    memcpy(t->text + t->tlen, p, (size_t)n);
    int64_t k = t->n++;
    t->val[k] = t->tlen;
    t->len[k] = (int32_t)n;
    t->tlen += n;
    tslot_t *q = &t->tslot[at];
    q->hash = hv;
    q->id = (int32_t)k;
    q->len = (int32_t)n;
    if (n <= INLINE_TEXT) memcpy(q->text, p, (size_t)n);
    if (++t->tcount * 4 > t->tcap * 3 && rehash_texts(t)) return -1;
    return k;
}

/* The field p[0:n] as Python prints an int (an optional minus, digits without a
 * leading zero but in "0", no "-0", at most 18 digits): 1 and its value in *v. */
static int canonical_int(const uint8_t *p, int64_t n, int64_t *v)
{
    int neg = 0;
    if (n && p[0] == '-') {
        neg = 1;
        p++;
        n--;
    }
    if (n < 1 || n > 18 || (p[0] == '0' && (n > 1 || neg))) return 0;
    int64_t x = 0;
    for (int64_t k = 0; k < n; k++) {
        if (p[k] < '0' || p[k] > '9') return 0;
        x = x * 10 + (p[k] - '0');
    }
    *v = neg ? -x : x;
    return 1;
}

/* id of the label p[0:n] with ASCII whitespace stripped; -2: empty; -1: out of memory */
static int64_t field_id(labels_t *t, const uint8_t *p, int64_t n)
{
    while (n && is_space(p[n - 1])) n--;
    while (n && is_space(*p)) {
        p++;
        n--;
    }
    if (!n) return -2;
    int64_t v;
    if (canonical_int(p, n, &v)) return int_id(t, v);
    return text_id(t, p, n);
}

/* ids of n texts (offsets[k] .. offsets[k + 1] of data; a null where nulls[k]);
 * out[k] = -2 for a null or empty label. Returns the count of those, -1 out of memory */
int64_t labels_encode_texts(void *p, const uint8_t *data, const int64_t *offsets,
                            const uint8_t *nulls, int64_t n, int64_t *out)
{
    labels_t *t = p;
    int64_t missing = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t id = (nulls && nulls[k]) ? -2
                                         : field_id(t, data + offsets[k], offsets[k + 1] - offsets[k]);
        if (id == -1) return -1;
        missing += id == -2;
        out[k] = id;
    }
    return missing;
}

/* ids of n integer labels; -1 out of memory */
int64_t labels_encode_ints(void *p, const int64_t *v, int64_t n, int64_t *out)
{
    labels_t *t = p;
    for (int64_t k = 0; k < n; k++) {
        int64_t id = int_id(t, v[k]);
        if (id < 0) return -1;
        out[k] = id;
    }
    return 0;
}

/* ------------------------------------------------------------------ CSV and TSV blocks */

/* A number as the reader's fast path takes it: an integer spelled as Python
 * prints it, at most 15 digits (exact as a double, and its text is its value's);
 * any other spelling goes to the text reader. Returns 0 where it is not one. */
static int plain_number(const uint8_t *p, int64_t n, double *out)
{
    int64_t v;
    if (n > 16 || !canonical_int(p, n, &v) || (p[0] != '-' && n > 15)) return 0;
    *out = (double)v;
    return 1;
}

/* The field at buf[i] as a canonical integer (see canonical_int) ended by the
 * delimiter, a line end or the block's end: 1, its value and end; else 0 (the
 * general scan takes it). The usual field of a large comparison log. */
static ALWAYS_INLINE int fast_int(const uint8_t *buf, int64_t i, int64_t len, int64_t sep,
                                  int64_t *v, int64_t *end)
{
    int64_t k = i, x = 0;
    int neg = 0;
    if (k < len && buf[k] == '-') {
        neg = 1;
        k++;
    }
    int64_t first = k;
#if SWAR
    if (k + 8 <= len) { /* up to 7 digits in one word (an item's number, mostly) */
        uint64_t d = load8(buf + k) - 0x3030303030303030ULL;
        /* the high bit of each byte that is not a digit, the first one exact */
        uint64_t other = (d | (d + 0x7676767676767676ULL)) & HIGHS;
        if (other) {
            int digits = LOWEST_BYTE(other);
            if (digits < 1 || (buf[first] == '0' && (digits > 1 || neg))) return 0;
            uint8_t after = buf[k + digits];
            if (after != sep && after != '\n' && after != '\r') return 0;
            /* the digits to the top of the word (zeros before them), then combined */
            uint64_t w = d << (8 * (8 - digits));
            w = w * 10 + (w >> 8);
            w = (((w & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
                 (((w >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >>
                32;
            *v = neg ? -(int64_t)w : (int64_t)w;
            *end = k + digits;
            return 1;
        }
    }
#endif
    while (k < len && (uint8_t)(buf[k] - '0') < 10 && k - first < 19) {
        x = x * 10 + (buf[k] - '0');
        k++;
    }
    int64_t digits = k - first;
    if (digits < 1 || digits > 18 || (buf[first] == '0' && (digits > 1 || neg))) return 0;
    if (k < len && buf[k] != sep && buf[k] != '\n' && buf[k] != '\r') return 0;
    *v = neg ? -x : x;
    *end = k;
    return 1;
}

/* The offset of the first delimiter, line end or quote at or after i (len if none) */
static inline int64_t field_end(const uint8_t *buf, int64_t i, int64_t len, int64_t sep)
{
#if SSE2
    /* sixteen bytes at a time (a label of up to 15 bytes: one step), the rest as below */
    const __m128i vs = _mm_set1_epi8((char)sep), vn = _mm_set1_epi8('\n'),
                  vr = _mm_set1_epi8('\r'), vq = _mm_set1_epi8('"');
    while (i + 16 <= len) {
        __m128i w = _mm_loadu_si128((const __m128i *)(buf + i));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(w, vs), _mm_cmpeq_epi8(w, vn)),
                                 _mm_or_si128(_mm_cmpeq_epi8(w, vr), _mm_cmpeq_epi8(w, vq)));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits) return i + __builtin_ctz(bits);
        i += 16;
    }
#endif
#if SWAR
    const uint64_t s = ONES * (uint64_t)(uint8_t)sep, nl = ONES * '\n', cr = ONES * '\r',
                   qt = ONES * '"';
    while (i + 8 <= len) {
        uint64_t w = load8(buf + i);
        uint64_t m = ZERO_BYTES(w ^ s) | ZERO_BYTES(w ^ nl) | ZERO_BYTES(w ^ cr) | ZERO_BYTES(w ^ qt);
        if (m) return i + LOWEST_BYTE(m);
        i += 8;
    }
#endif
    while (i < len && buf[i] != sep && buf[i] != '\n' && buf[i] != '\r' && buf[i] != '"') i++;
    return i;
}

/* the text index slot where a text of hash h is first looked for (for a fetch ahead) */
static inline const void *text_home(const labels_t *t, uint64_t h)
{
    return &t->tslot[h & (uint64_t)(t->tcap - 1)];
}

/* text_id_hashed, its usual case (a short text seen before) inline: the slots from the
 * one its hash points to, up to the text or an empty slot */
static ALWAYS_INLINE int64_t text_lookup(labels_t *t, const uint8_t *p, int64_t n, uint64_t hv)
{
    if (LIKELY(n <= INLINE_TEXT)) {
        const tslot_t *slots = t->tslot;
        uint64_t mask = (uint64_t)(t->tcap - 1), at = hv & mask;
        while (slots[at].id >= 0) {
            const tslot_t *q = &slots[at];
            if (q->hash == hv && q->len == n && same_text(q->text, p, n)) return q->id;
            at = (at + 1) & mask;
        }
    }
    return text_id_hashed(t, p, n, hv);
}

/* The labels of the rows taken, looked up AHEAD labels after they are read, in the order
 * read (so their ids are those of looking each up at once: the order of first
 * appearance): a label's entry in its table (the integers' table over their range, or
 * the text index slot its hash points to) is fetched when the label is read and found
 * in the caches when it is looked up, with AHEAD fetches in flight (a table over 10^5
 * labels and more misses the caches; a text is still in them when compared). */
#define AHEAD 16
typedef struct {
    labels_t *t;
    const uint8_t *p; /* a text's bytes; NULL: an integer */
    int64_t v;        /* the integer, or the text's length */
    uint64_t h;       /* the text's hash */
    int64_t at;       /* where its id goes */
} pending_t;

/* the oldest pending label's id into ids; 0, or -1 out of memory */
static ALWAYS_INLINE int resolve(pending_t *q, int64_t k, int32_t *ids)
{
    pending_t *e = &q[k & (AHEAD - 1)];
    int64_t id = e->p ? text_lookup(e->t, e->p, e->v, e->h) : int_id(e->t, e->v);
    if (id < 0) return -1;
    ids[e->at] = (int32_t)id;
    return 0;
}

/* The labels waiting for their lookup: ring[head .. tail) (indices mod AHEAD) */
typedef struct {
    pending_t ring[AHEAD];
    int64_t head, tail;
} pending_queue_t;

/* Field c of a line taken (span as parse_csv keeps it: [3c] = -1 and [3c + 2] its value
 * for an integer read at once, else its stripped offsets [3c], [3c + 1]) into the queue,
 * its table's entry fetched; the oldest label looked up where the queue is full.
 * 0, or -1 out of memory. */
static ALWAYS_INLINE int queue_label(pending_queue_t *q, labels_t *t, const uint8_t *buf,
                                     const int64_t *span, int64_t at, int32_t *ids)
{
    if (q->tail - q->head == AHEAD && resolve(q->ring, q->head++, ids)) return -1;
    pending_t *e = &q->ring[q->tail++ & (AHEAD - 1)];
    int64_t lo = span[0], v = 0;
    int integer = lo < 0;
    e->t = t;
    e->at = at;
    if (integer) v = span[2];
    else if ((uint8_t)(buf[lo] - '0') < 10 || buf[lo] == '-') /* else a text, no integer */
        integer = canonical_int(buf + lo, span[1] - lo, &v);
    if (integer) {
        uint64_t off = (uint64_t)v - (uint64_t)t->dlo;
        if (t->dense != NULL && off < (uint64_t)t->dsize) PREFETCH(t->dense + off);
        e->p = NULL;
        e->v = v;
    } else {
        int64_t n = span[1] - lo;
        uint64_t h = hash_bytes(buf + lo, n);
        PREFETCH(text_home(t, h));
        e->p = buf + lo;
        e->v = n;
        e->h = h;
    }
    return 0;
}

/* The usual line at buf[i], read without the general path's checks: ncols fields, none
 * quoted, ended by \n, \r\n or the block's end; a label field not empty, neither
 * starting nor ending with a space (an integer fast_int reads, or a text that
 * queue_label tells an integer or a text as the general path does); a number field an
 * integer fast_int reads, of at most 15 digits. Returns the offset after the line and
 * its fields in span (as parse_csv's general path gives them), or -1 where the line is
 * not one such: the general path takes it then, and reads the same from a line this
 * takes (a line with a field read is never blank: such a field is not empty). */
static ALWAYS_INLINE int64_t usual_line(const uint8_t *buf, int64_t i, int64_t len,
                                        int64_t ncols, const int64_t *kind, int64_t sep,
                                        int64_t *span)
{
    for (int64_t c = 0; c < ncols; c++) {
        if (i >= len) return -1;
        uint8_t b = buf[i];
        int64_t end, v;
        if (kind[c] && ((uint8_t)(b - '0') < 10 || b == '-') &&
            fast_int(buf, i, len, sep, &v, &end)) {
            if (kind[c] == 2 && (v > 999999999999999 || v < -999999999999999)) return -1;
            span[3 * c] = -1;
            span[3 * c + 2] = v;
        } else { /* a text (a label's, or a field not read), or a number the general path reads */
            if (kind[c] == 2) return -1;
            end = field_end(buf, i, len, sep);
            if (kind[c] && (b <= ' ' || end == i || buf[end - 1] <= ' ')) return -1;
            span[3 * c] = i;
            span[3 * c + 1] = end;
        }
        if (c + 1 < ncols) {
            if (end >= len || buf[end] != sep) return -1;
            i = end + 1;
            continue;
        }
        if (end == len) return len;
        if (buf[end] == '\n') return end + 1;
        if (buf[end] == '\r' && end + 1 < len && buf[end + 1] == '\n') return end + 2;
        return -1; /* a quote, a lone \r, or more fields */
    }
    return -1;
}

/* Lines of `ncols` fields separated by `sep`, each ended by \n or \r\n (the last
 * may lack it): field c goes, where kind[c] = 1, to its label table tables[slot[c]]
 * (its id at ids[slot[c] * cap + row]) and, where kind[c] = 2, as a number to
 * nums[slot[c] * cap + row]. Parsing stops at the first line it does not take
 * (stop[1]: 1 a blank line, 2 not simple: a quote, a lone \r, another number of
 * fields, an empty field, a number other than a plain integer; 3 out of
 * memory; 4 cap rows read), whose offset is stop[0] (len where every line was
 * taken). A line is checked whole before its labels are added, so the tables
 * hold the labels of the rows taken and of no other; they are numbered in the order
 * the fields are read (line by line, field by field). The usual line goes through
 * usual_line, any other through the general path. Returns the rows taken. */
int64_t parse_csv(const uint8_t *buf, int64_t len, int64_t ncols, const int64_t *kind,
                  const int64_t *slot, int64_t sep, void **tables, int32_t *ids, double *nums,
                  int64_t cap, int64_t *stop)
{
    int64_t row = 0, i = 0;
    pending_queue_t q;
    q.head = q.tail = 0;
    int usual = 0; /* whether a field is read (a line of none: the general path) */
    for (int64_t c = 0; c < ncols; c++) usual |= kind[c] != 0;
    /* per field of the line: its span (stripped), or its integer value (span[3c] = -1) */
    int64_t *span = malloc(sizeof(int64_t) * 3 * (size_t)(ncols > 0 ? ncols : 1));
    stop[1] = 0;
    if (!span) {
        stop[0] = 0;
        stop[1] = 3;
        return 0;
    }
    while (i < len) {
        if (row >= cap) {
            stop[1] = 4;
            break;
        }
        int64_t next = usual ? usual_line(buf, i, len, ncols, kind, sep, span) : -1;
        if (next >= 0) { /* taken: its numbers and labels */
            int oom = 0;
            for (int64_t c = 0; c < ncols; c++) {
                if (kind[c] == 2) nums[slot[c] * cap + row] = (double)span[3 * c + 2];
                if (kind[c] == 1)
                    oom |= queue_label(&q, tables[slot[c]], buf, span + 3 * c,
                                       slot[c] * cap + row, ids);
            }
            if (oom) {
                stop[1] = 3;
                break;
            }
            i = next;
            row++;
            continue;
        }
        int64_t line = i, col = 0, reason = 0;
        int blank = 1;
        for (;;) { /* the line's fields: integers, or their spans stripped */
            int64_t v, end;
            if (col < ncols && kind[col] && fast_int(buf, i, len, sep, &v, &end)) {
                span[3 * col] = -1;
                span[3 * col + 2] = v;
                i = end;
                blank = 0;
            } else {
                int64_t start = i;
                i = field_end(buf, i, len, sep);
                if (i < len && buf[i] == '"') {
                    reason = 2;
                    break;
                }
                int64_t lo = start, hi = i;
                while (hi > lo && is_space(buf[hi - 1])) hi--;
                while (lo < hi && is_space(buf[lo])) lo++;
                if (hi > lo) blank = 0;
                if (col < ncols) {
                    span[3 * col] = lo;
                    span[3 * col + 1] = hi;
                }
            }
            col++;
            if (i < len && buf[i] == sep) {
                i++;
                blank = 0; /* a delimiter: not a blank line (its fields are empty) */
                continue;
            }
            break; /* a line end, or the end of the block */
        }
        if (!reason && i < len && buf[i] == '\r') {
            if (i + 1 < len && buf[i + 1] == '\n') i++;
            else reason = 2; /* a lone \r ends a line for the text reader */
        }
        if (!reason && blank) reason = 1;
        if (!reason && col != ncols) reason = 2;
        for (int64_t c = 0; !reason && c < ncols; c++) { /* numbers, and no empty label */
            if (!kind[c] || span[3 * c] < 0) {
                if (kind[c] == 2) nums[slot[c] * cap + row] = (double)span[3 * c + 2];
                if (kind[c] == 2 && (span[3 * c + 2] > 999999999999999 ||
                                     span[3 * c + 2] < -999999999999999))
                    reason = 2; /* beyond 15 digits: not exact as a double */
                continue;
            }
            int64_t lo = span[3 * c], n = span[3 * c + 1] - lo;
            if (kind[c] == 1 && !n) reason = 2;
            if (kind[c] == 2 && !plain_number(buf + lo, n, &nums[slot[c] * cap + row])) reason = 2;
        }
        if (reason) {
            stop[1] = reason;
            i = line;
            break;
        }
        for (int64_t c = 0; c < ncols && !reason; c++) /* the line is taken: its labels */
            if (kind[c] == 1 &&
                queue_label(&q, tables[slot[c]], buf, span + 3 * c, slot[c] * cap + row, ids))
                reason = 3;
        if (reason) {
            stop[1] = reason;
            i = line;
            break;
        }
        if (i < len) i++; /* the \n */
        row++;
    }
    while (q.head < q.tail && stop[1] != 3) /* the labels still pending */
        if (resolve(q.ring, q.head++, ids)) stop[1] = 3;
    free(span);
    stop[0] = i;
    return row;
}

/* ------------------------------------------------------------------ pair sums */

/* Comparisons summed over unordered item pairs, by a radix sort of the rows (no
 * comparison sort: time linear in the rows). A row is kept as 64 bits while the
 * blocks arrive, lo << 32 | hi << 1 | won (provisional ids below 2^31, won: the
 * lower id won). At the end (rows_sum) one pass renumbers the ids in label order
 * and counts the rows by the leading bits of their pair, a second moves them into
 * those buckets (a few thousand, a cache line at a time: scatter_lines), and each bucket,
 * small enough for the caches, is sorted by the rest of its pair's bits and its
 * runs summed while it is there: each run of one pair gives its count and wins
 * (sums of whole numbers: exact in any order). */

/* The row of a against b (ids below 2^31, a != b), won_a 1 where a won (else 0):
 * lo << 32 | hi << 1 | won, won 1 where the lower id won. Without a branch (which id is
 * the lower is a coin toss: a branch on it would be mispredicted every other row). */
static ALWAYS_INLINE uint64_t row_key(uint64_t a, uint64_t b, uint64_t won_a)
{
    uint64_t first = (uint64_t)(a < b);
    uint64_t lo = first ? a : b, hi = first ? b : a;
    return lo << 32 | hi << 1 | (first ^ won_a ^ 1);
}

/* m comparisons as rows: i[k] against j[k] (ids below 2^31, i != j), outcome
 * y[k] for i[k] (0 or 1; NULL: all 1) */
void rows_pack(int64_t m, const int32_t *i, const int32_t *j, const double *y, uint64_t *out)
{
    if (y) {
        for (int64_t k = 0; k < m; k++)
            out[k] = row_key((uint64_t)i[k], (uint64_t)j[k], (uint64_t)(y[k] == 1.0));
    } else {
        for (int64_t k = 0; k < m; k++) out[k] = row_key((uint64_t)i[k], (uint64_t)j[k], 1);
    }
}

static int id_bits(int64_t n_items)
{
    int s = 1;
    while (((int64_t)1 << s) < n_items) s++;
    return s;
}

/* Sort the n keys of src (counts cs along, NULL for unit rows) by their bits
 * [lo_bit, lo_bit + bits) with a stable LSD radix sort through dst (cd).
 * Returns 1 where the sorted keys are in dst, 0 where in src. count: room for
 * 2^11 entries. */
static int bucket_sort(int64_t n, uint64_t *src, uint64_t *dst, double *cs, double *cd,
                       int lo_bit, int bits, int64_t *count)
{
    if (bits <= 0 || n < 2) return 0;
    if (n <= 24) { /* insertion sort (the few rows of a small bucket) */
        for (int64_t k = 1; k < n; k++) {
            uint64_t v = src[k], key = v >> lo_bit;
            double c = cs ? cs[k] : 0.0;
            int64_t t = k;
            while (t > 0 && (src[t - 1] >> lo_bit) > key) {
                src[t] = src[t - 1];
                if (cs) cs[t] = cs[t - 1];
                t--;
            }
            src[t] = v;
            if (cs) cs[t] = c;
        }
        return 0;
    }
    int passes = (bits + 10) / 11;
    int width = (bits + passes - 1) / passes;
    uint64_t mask = ((uint64_t)1 << width) - 1;
    int in_dst = 0;
    for (int p = 0; p < passes; p++) {
        int shift = lo_bit + p * width;
        uint64_t *from = in_dst ? dst : src, *to = in_dst ? src : dst;
        double *cfrom = in_dst ? cd : cs, *cto = in_dst ? cs : cd;
        memset(count, 0, sizeof(int64_t) * ((size_t)1 << width));
        for (int64_t k = 0; k < n; k++) count[(from[k] >> shift) & mask]++;
        int64_t total = 0, one = 0;
        for (uint64_t d = 0; d <= mask; d++) {
            int64_t c = count[d];
            one |= c == n;
            count[d] = total;
            total += c;
        }
        if (one) continue; /* every key has this digit: already in order */
        if (cfrom) {
            for (int64_t k = 0; k < n; k++) {
                int64_t o = count[(from[k] >> shift) & mask]++;
                to[o] = from[k];
                cto[o] = cfrom[k];
            }
        } else {
            for (int64_t k = 0; k < n; k++) to[count[(from[k] >> shift) & mask]++] = from[k];
        }
        in_dst ^= 1;
    }
    return in_dst;
}

/* Moves the m keys of x into their buckets of y (bucket key >> shift: keys
 * start[d] .. of y, next[d] its next place, advanced), in the order they come, as
 * the plain loop `y[next[x[k] >> shift]++] = x[k]` does, a cache line at a time:
 * each bucket's keys gather in a line-sized buffer (the nb buffers stay in the
 * caches), and a full line of y goes out in one write that bypasses the caches
 * (SSE2's streaming stores): the plain loop's writes, one key each into a few
 * thousand places, would each fetch their line of y first. The lines a bucket
 * shares with its neighbours are written key by key. Returns 1 (nothing moved)
 * where the buffers' memory is refused or without SSE2. */
#define LINE_KEYS 8
static int scatter_lines(int64_t m, const uint64_t *x, uint64_t *y, int shift, int64_t nb,
                         const int64_t *start, int64_t *next)
{
#if SSE2
    if ((uintptr_t)y % 16) return 1;
    uint64_t *buf = malloc(sizeof(uint64_t) * LINE_KEYS * (size_t)nb + 64);
    if (!buf) return 1;
    uint64_t *line = (uint64_t *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    for (int64_t k = 0; k < m; k++) {
        uint64_t v = x[k];
        int64_t d = (int64_t)(v >> shift);
        int64_t o = next[d]++;
        uint64_t *bd = line + LINE_KEYS * d;
        bd[o % LINE_KEYS] = v;
        if (o % LINE_KEYS == LINE_KEYS - 1) {
            int64_t first = o - (LINE_KEYS - 1); /* the line's first place */
            if (first >= start[d]) {
                __m128i *to = (__m128i *)(y + first);
                const __m128i *from = (const __m128i *)bd;
                _mm_stream_si128(to, _mm_load_si128(from));
                _mm_stream_si128(to + 1, _mm_load_si128(from + 1));
                _mm_stream_si128(to + 2, _mm_load_si128(from + 2));
                _mm_stream_si128(to + 3, _mm_load_si128(from + 3));
            } else {
                for (int64_t t = start[d]; t <= o; t++) y[t] = bd[t % LINE_KEYS];
            }
        }
    }
    for (int64_t d = 0; d < nb; d++) { /* each bucket's last, partial line */
        int64_t end = next[d], first = end - end % LINE_KEYS;
        if (first < start[d]) first = start[d];
        for (int64_t t = first; t < end; t++) y[t] = line[LINE_KEYS * d + t % LINE_KEYS];
    }
    _mm_sfence();
    free(buf);
    return 0;
#else
    (void)m, (void)x, (void)y, (void)shift, (void)nb, (void)start, (void)next;
    return 1;
#endif
}

/* The distinct pairs of the m rows of x (counts cx; NULL for unit rows) in label
 * order: rank[id] is the item's index below n_items (NULL: the ids are the
 * indices); ids with one index are one item. a[r] < b[r] (int32, room for m
 * each) are the pairs sorted by (a, b), their counts n[r] written as doubles over
 * x and their wins of a w[r] over y (room for m rows, as cy for m counts), or with
 * `whole` (counts that are whole numbers, their sums below 2^31) as int32 there:
 * x, y, cx, cy are scratch. Returns the number of pairs; -1 where rank gives a
 * row's two items one index, -2 an index not below n_items, -3 out of memory. */
int64_t rows_sum(int64_t m, uint64_t *x, uint64_t *y, double *cx, double *cy, const int32_t *rank,
                 int64_t n_items, int32_t *a, int32_t *b, int64_t whole)
{
    int s = id_bits(n_items);
    int sort_bits = 2 * s; /* the pair's bits: key >> 1 */
    int lead = 1;          /* the leading bits that choose a row's bucket */
    while (lead < 12 && ((int64_t)1 << (lead + 11)) <= m) lead++;
    if (lead > sort_bits) lead = sort_bits;
    int rest = sort_bits - lead; /* sorted within a bucket: bits 1 .. rest */
    int64_t nb = (int64_t)1 << lead;
    int64_t *start = calloc((size_t)nb + 1, sizeof(int64_t));
    int64_t *count = malloc(sizeof(int64_t) * ((size_t)1 << 11));
    if (!start || !count) {
        free(start);
        free(count);
        return -3;
    }
    int64_t status = 0;
    for (int64_t k = 0; k < m; k++) { /* renumbered keys, the buckets' sizes */
        uint64_t v = x[k];
        uint64_t lo = v >> 32, hi = (v >> 1) & 0x7fffffffULL, won = v & 1;
        if (rank) {
            lo = (uint64_t)(int64_t)rank[lo];
            hi = (uint64_t)(int64_t)rank[hi];
        }
        if (lo >= (uint64_t)n_items || hi >= (uint64_t)n_items) {
            status = -2;
            break;
        }
        if (lo == hi) {
            status = -1;
            break;
        }
        /* the lower index first, without a branch (the order is a coin toss) */
        uint64_t swap = (uint64_t)(lo > hi), first = swap ? hi : lo, second = swap ? lo : hi;
        uint64_t key = first << (s + 1) | second << 1 | (won ^ swap);
        x[k] = key;
        start[(key >> (1 + rest)) + 1]++;
    }
    if (status) {
        free(start);
        free(count);
        return status;
    }
    for (int64_t d = 0; d < nb; d++) start[d + 1] += start[d];
    { /* into the buckets (count: each bucket's next place, from start) */
        int64_t *next = malloc(sizeof(int64_t) * (size_t)nb);
        if (!next) {
            free(start);
            free(count);
            return -3;
        }
        memcpy(next, start, sizeof(int64_t) * (size_t)nb);
        if (cx) {
            for (int64_t k = 0; k < m; k++) {
                int64_t o = next[x[k] >> (1 + rest)]++;
                y[o] = x[k];
                cy[o] = cx[k];
            }
        } else if (scatter_lines(m, x, y, 1 + rest, nb, start, next)) {
            for (int64_t k = 0; k < m; k++) y[next[x[k] >> (1 + rest)]++] = x[k];
        }
        free(next);
    }
    uint64_t bmask = ((uint64_t)1 << s) - 1;
    int64_t r = 0;
    for (int64_t d = 0; d < nb; d++) {
        int64_t lo = start[d], n = start[d + 1] - lo;
        if (!n) continue;
        /* sorted in y[lo..] or, where bucket_sort says so, in x[lo..] (the other: scratch) */
        int in_x = bucket_sort(n, y + lo, x + lo, cy ? cy + lo : NULL, cx ? cx + lo : NULL, 1,
                               rest, count);
        const uint64_t *rows = in_x ? x + lo : y + lo;
        const double *c = cx ? (in_x ? cx + lo : cy + lo) : NULL;
        /* the runs: n over x and w over y at the pair's place r <= lo + k, each written
         * after the rows up to it are read (memcpy: doubles into the rows' buffers; int32
         * at byte 4 r, further behind the rows still to read) */
        int64_t k = 0;
        while (k < n) {
            uint64_t pair = rows[k] >> 1;
            double cn = 0.0, cw = 0.0;
            if (c) {
                do {
                    double ck = c[k];
                    cn += ck;
                    cw += ck * (double)(rows[k] & 1); /* no branch on the winner */
                    k++;
                } while (k < n && (rows[k] >> 1) == pair);
            } else { /* unit rows: counted as integers (the same whole numbers, exact) */
                int64_t kn = k, kw = 0;
                do {
                    kw += (int64_t)(rows[k] & 1);
                    k++;
                } while (k < n && (rows[k] >> 1) == pair);
                cn = (double)(k - kn);
                cw = (double)kw;
            }
            a[r] = (int32_t)(pair >> s);
            b[r] = (int32_t)(pair & bmask);
            if (whole) {
                int32_t wn = (int32_t)cn, ww = (int32_t)cw;
                memcpy((uint8_t *)x + 4 * r, &wn, 4);
                memcpy((uint8_t *)y + 4 * r, &ww, 4);
            } else {
                memcpy((uint8_t *)x + 8 * r, &cn, 8);
                memcpy((uint8_t *)y + 8 * r, &cw, 8);
            }
            r++;
        }
    }
    free(start);
    free(count);
    return r;
}

/* ------------------------------------------------------------------ pair counts */

/* Rows counted by their 64-bit key (rows_pack's: lo << 32 | hi << 1 | won; never 0,
 * as hi > lo >= 0) in an open-addressing hash table: where rows repeat few pairs
 * (a league, a log of many votes on few pairs), memory follows the distinct keys
 * and no row is kept or sorted; rows_sum then sums the distinct keys with their
 * counts (whole numbers: the same sums as of the rows themselves). */
typedef struct {
    uint64_t key; /* 0: empty */
    uint64_t count;
} pslot_t;

typedef struct {
    pslot_t *slot;
    int64_t cap, n;
} pairs_t;

void *pairs_new(void)
{
    pairs_t *t = calloc(1, sizeof(pairs_t));
    if (!t) return NULL;
    t->cap = 1 << 12;
    t->slot = empty_table(t->cap, sizeof(pslot_t), 0);
    if (!t->slot) {
        free(t);
        return NULL;
    }
    return t;
}

void pairs_free(void *p)
{
    pairs_t *t = p;
    if (!t) return;
    free(t->slot);
    free(t);
}

int64_t pairs_count(void *p) { return ((pairs_t *)p)->n; }

static int pairs_grow(pairs_t *t)
{
    int64_t c = t->cap * 2;
    uint64_t mask = (uint64_t)(c - 1);
    pslot_t *fresh = empty_table(c, sizeof(pslot_t), 0);
    if (!fresh) return -1;
    for (int64_t k = 0; k < t->cap; k++) {
        if (!t->slot[k].key) continue;
        uint64_t at = mix64(t->slot[k].key) & mask;
        while (fresh[at].key) at = (at + 1) & mask;
        fresh[at] = t->slot[k];
    }
    free(t->slot);
    t->slot = fresh;
    t->cap = c;
    return 0;
}

/* Count m rows (as rows_pack packs them). Returns the distinct keys counted so far,
 * or -1 out of memory (the rows counted before stay counted). */
int64_t pairs_add(void *p, int64_t m, const int32_t *i, const int32_t *j, const double *y)
{
    pairs_t *t = p;
    for (int64_t k = 0; k < m; k++) {
        uint64_t key = row_key((uint64_t)i[k], (uint64_t)j[k], y ? (uint64_t)(y[k] == 1.0) : 1);
        uint64_t mask = (uint64_t)(t->cap - 1), at = mix64(key) & mask;
        while (t->slot[at].key && t->slot[at].key != key) at = (at + 1) & mask;
        if (t->slot[at].key) {
            t->slot[at].count++;
            continue;
        }
        t->slot[at].key = key;
        t->slot[at].count = 1;
        if (++t->n * 2 > t->cap && pairs_grow(t)) return -1;
    }
    return t->n;
}

/* The distinct keys and their counts (as doubles), in the table's order; where
 * `expand`, each key written count times instead (the rows themselves, counts NULL) */
void pairs_export(void *p, int64_t expand, uint64_t *keys, double *counts)
{
    pairs_t *t = p;
    int64_t o = 0;
    for (int64_t k = 0; k < t->cap; k++) {
        if (!t->slot[k].key) continue;
        if (expand) {
            for (uint64_t c = 0; c < t->slot[k].count; c++) keys[o++] = t->slot[k].key;
        } else {
            keys[o] = t->slot[k].key;
            counts[o++] = (double)t->slot[k].count;
        }
    }
}
