/* The comparison reader's compiled parts (dprank.inputs, dprank._input_blocks):
 *
 *  - label tables: a provisional id for every distinct label, integers by value
 *    and text by its bytes (hash tables; ids numbered as labels first appear);
 *  - parse_csv: a block of simple CSV or TSV text straight to label ids and
 *    numbers (no text objects per row);
 *  - pair sums: comparisons summed over unordered item pairs in a hash table
 *    as the blocks arrive (memory follows the distinct pairs, time the rows),
 *    then put in (a, b) order by a counting sort over the first item.
 *
 * What Python keeps: the validation and its messages (the blocks' id and number
 * arrays are checked with array operations), the Unicode normalisation of the
 * distinct labels (dprank.inputs.normalize_label) and the final label order.
 * A field here is the text between delimiters with ASCII whitespace (Python's
 * str.isspace among ASCII: space, \t, \v, \f, \x1c-\x1f) stripped from both
 * ends; what Python strips beyond that (Unicode spaces) and NFC it applies to
 * the distinct labels, merging labels that become equal.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define PREFETCH(p) ((void)0)
#define LIKELY(x) (x)
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

static uint64_t hash_bytes(const uint8_t *p, int64_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = (h ^ mix64(v)) * 0x9e3779b97f4a7c15ULL;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = 0;
        memcpy(&v, p, (size_t)n);
        h = (h ^ mix64(v ^ ((uint64_t)n << 56))) * 0x9e3779b97f4a7c15ULL;
    }
    return mix64(h);
}

/* Python's ASCII whitespace, less the line ends (which never reach a field) */
static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f); }

/* ------------------------------------------------------------------ label tables */

typedef struct {
    int64_t n, cap;    /* ids in use, room */
    int64_t *val;      /* per id: integer value, or offset of the text */
    int32_t *len;      /* per id: -1 for an integer label, else the text's length */
    uint64_t *hash;    /* per id: hash of the text (0 for integers) */
    int32_t *islot;    /* integer index: id + 1 per slot, 0 empty */
    int64_t icap, icount;
    int32_t *tslot;    /* text index: id + 1 per slot, 0 empty */
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

void *labels_new(void)
{
    labels_t *t = calloc(1, sizeof(labels_t));
    if (!t) return NULL;
    t->icap = t->tcap = 1024;
    t->islot = calloc((size_t)t->icap, sizeof(int32_t));
    t->tslot = calloc((size_t)t->tcap, sizeof(int32_t));
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
    free(t->hash);
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

static int new_id(labels_t *t)
{
    if (t->n >= INT32_MAX - 1) return -1;
    int64_t cap = t->cap, c2 = t->cap, c3 = t->cap;
    int64_t *val = grow(t->val, &cap, t->n + 1, sizeof(int64_t));
    if (!val) return -1;
    t->val = val;
    int32_t *len = grow(t->len, &c2, t->n + 1, sizeof(int32_t));
    if (!len) return -1;
    t->len = len;
    uint64_t *hash = grow(t->hash, &c3, t->n + 1, sizeof(uint64_t));
    if (!hash) return -1;
    t->hash = hash;
    t->cap = cap;
    return 0;
}

static int rehash_ints(labels_t *t)
{
    int64_t cap = t->icap * 2;
    int32_t *slot = calloc((size_t)cap, sizeof(int32_t));
    if (!slot) return -1;
    for (int64_t s = 0; s < t->icap; s++) {
        int32_t id = t->islot[s];
        if (!id) continue;
        uint64_t h = mix64((uint64_t)t->val[id - 1]) & (uint64_t)(cap - 1);
        while (slot[h]) h = (h + 1) & (uint64_t)(cap - 1);
        slot[h] = id;
    }
    free(t->islot);
    t->islot = slot;
    t->icap = cap;
    return 0;
}

static int rehash_texts(labels_t *t)
{
    int64_t cap = t->tcap * 2;
    int32_t *slot = calloc((size_t)cap, sizeof(int32_t));
    if (!slot) return -1;
    for (int64_t s = 0; s < t->tcap; s++) {
        int32_t id = t->tslot[s];
        if (!id) continue;
        uint64_t h = t->hash[id - 1] & (uint64_t)(cap - 1);
        while (slot[h]) h = (h + 1) & (uint64_t)(cap - 1);
        slot[h] = id;
    }
    free(t->tslot);
    t->tslot = slot;
    t->tcap = cap;
    return 0;
}

/* id of the integer label v (added if new); -1: out of memory */
static int64_t int_id(labels_t *t, int64_t v)
{
    uint64_t mask = (uint64_t)(t->icap - 1);
    uint64_t h = mix64((uint64_t)v) & mask;
    int32_t id;
    while ((id = t->islot[h])) {
        if (t->val[id - 1] == v) return id - 1;
        h = (h + 1) & mask;
    }
    if (new_id(t)) return -1;
    int64_t k = t->n++;
    t->val[k] = v;
    t->len[k] = -1;
    t->hash[k] = 0;
    t->islot[h] = (int32_t)(k + 1);
    if (++t->icount * 4 > t->icap * 3 && rehash_ints(t)) return -1;
    return k;
}

/* id of the text label p[0:n] (added if new); -1: out of memory */
static int64_t text_id(labels_t *t, const uint8_t *p, int64_t n)
{
    uint64_t hv = hash_bytes(p, n);
    uint64_t mask = (uint64_t)(t->tcap - 1);
    uint64_t h = hv & mask;
    int32_t id;
    while ((id = t->tslot[h])) {
        int64_t k = id - 1;
        if (t->hash[k] == hv && t->len[k] == n && !memcmp(t->text + t->val[k], p, (size_t)n))
            return k;
        h = (h + 1) & mask;
    }
    if (n > INT32_MAX || new_id(t)) return -1;
    uint8_t *text = grow(t->text, &t->tbytes, t->tlen + n + 1, 1);
    if (!text) return -1;
    t->text = text;
    memcpy(t->text + t->tlen, p, (size_t)n);
    int64_t k = t->n++;
    t->val[k] = t->tlen;
    t->len[k] = (int32_t)n;
    t->hash[k] = hv;
    t->tlen += n;
    t->tslot[h] = (int32_t)(k + 1);
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

/* Lines of `ncols` fields separated by `sep`, each ended by \n or \r\n (the last
 * may lack it): field c goes, where kind[c] = 1, to its label table tables[slot[c]]
 * (its id at ids[slot[c] * cap + row]) and, where kind[c] = 2, as a number to
 * nums[slot[c] * cap + row]. Parsing stops at the first line it does not take
 * (stop[1]: 1 a blank line, 2 not simple: a quote, a lone \r, another number of
 * fields, an empty field, a number other than a plain integer; 3 out of
 * memory; 4 cap rows read), whose offset is stop[0] (len where every line was
 * taken). A line is checked whole before its labels are added, so the tables
 * hold the labels of the rows taken and of no other. Returns the rows taken. */
int64_t parse_csv(const uint8_t *buf, int64_t len, int64_t ncols, const int64_t *kind,
                  const int64_t *slot, int64_t sep, void **tables, int64_t *ids, double *nums,
                  int64_t cap, int64_t *stop)
{
    int64_t row = 0, i = 0;
    int64_t *span = malloc(sizeof(int64_t) * 2 * (size_t)(ncols > 0 ? ncols : 1));
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
        int64_t line = i, col = 0, reason = 0;
        int blank = 1;
        for (;;) { /* the line's fields: their spans, stripped */
            int64_t start = i;
            while (i < len && buf[i] != sep && buf[i] != '\n' && buf[i] != '\r' && buf[i] != '"') i++;
            if (i < len && buf[i] == '"') {
                reason = 2;
                break;
            }
            int64_t lo = start, hi = i;
            while (hi > lo && is_space(buf[hi - 1])) hi--;
            while (lo < hi && is_space(buf[lo])) lo++;
            if (hi > lo) blank = 0;
            if (col < ncols) {
                span[2 * col] = lo;
                span[2 * col + 1] = hi;
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
        for (int64_t c = 0; !reason && c < ncols; c++) {
            int64_t lo = span[2 * c], n = span[2 * c + 1] - lo;
            if (kind[c] == 1 && !n) reason = 2;
            if (kind[c] == 2 && !plain_number(buf + lo, n, &nums[slot[c] * cap + row])) reason = 2;
        }
        for (int64_t c = 0; !reason && c < ncols; c++) {
            if (kind[c] != 1) continue;
            int64_t lo = span[2 * c], n = span[2 * c + 1] - lo;
            int64_t v, id;
            labels_t *t = tables[slot[c]];
            id = canonical_int(buf + lo, n, &v) ? int_id(t, v) : text_id(t, buf + lo, n);
            if (id < 0) reason = 3;
            else ids[slot[c] * cap + row] = id;
        }
        if (reason) {
            stop[1] = reason;
            i = line;
            break;
        }
        if (i < len) i++; /* the \n */
        row++;
    }
    free(span);
    stop[0] = i;
    return row;
}

/* ------------------------------------------------------------------ pair sums */

/* One slot per distinct pair: key = lo << 32 | hi (lo < hi, provisional ids below
 * 2^31; 0 marks an empty slot: no pair has lo = hi = 0), and the counts: unit rows
 * (no count column) as two 32-bit integers (comparisons, wins of lo), weighted
 * ones as doubles (whole numbers, so every sum is exact in any order). The table
 * is split into shards by the hash's top bits, each grown on its own, so a
 * growth copies one shard, not the whole table. */

#define SHARD_BITS 6
#define SHARDS (1 << SHARD_BITS)
#define BATCH 16

typedef struct {
    uint64_t key;
    uint32_t n, w;
} uslot_t;

typedef struct {
    uint64_t key;
    double n, w;
} wslot_t;

typedef struct {
    void *slots;
    int64_t cap, count;
} shard_t;

typedef struct {
    int weighted;
    shard_t shard[SHARDS];
} pairs_t;

static size_t slot_size(const pairs_t *t) { return t->weighted ? sizeof(wslot_t) : sizeof(uslot_t); }

void pairs_free(void *p)
{
    pairs_t *t = p;
    if (!t) return;
    for (int s = 0; s < SHARDS; s++) free(t->shard[s].slots);
    free(t);
}

void *pairs_new(int64_t weighted)
{
    pairs_t *t = calloc(1, sizeof(pairs_t));
    if (!t) return NULL;
    t->weighted = (int)weighted;
    for (int s = 0; s < SHARDS; s++) {
        t->shard[s].cap = 256;
        t->shard[s].slots = calloc(256, slot_size(t));
        if (!t->shard[s].slots) {
            pairs_free(t);
            return NULL;
        }
    }
    return t;
}

int64_t pairs_count(void *p)
{
    pairs_t *t = p;
    int64_t total = 0;
    for (int s = 0; s < SHARDS; s++) total += t->shard[s].count;
    return total;
}

static int shard_grow(pairs_t *t, shard_t *sh)
{
    int64_t cap = sh->cap * 2;
    uint64_t mask = (uint64_t)(cap - 1);
    if (t->weighted) {
        wslot_t *old = sh->slots, *slots = calloc((size_t)cap, sizeof(wslot_t));
        if (!slots) return -1;
        for (int64_t k = 0; k < sh->cap; k++) {
            if (!old[k].key) continue;
            uint64_t h = mix64(old[k].key) & mask;
            while (slots[h].key) h = (h + 1) & mask;
            slots[h] = old[k];
        }
        free(old);
        sh->slots = slots;
    } else {
        uslot_t *old = sh->slots, *slots = calloc((size_t)cap, sizeof(uslot_t));
        if (!slots) return -1;
        for (int64_t k = 0; k < sh->cap; k++) {
            if (!old[k].key) continue;
            uint64_t h = mix64(old[k].key) & mask;
            while (slots[h].key) h = (h + 1) & mask;
            slots[h] = old[k];
        }
        free(old);
        sh->slots = slots;
    }
    sh->cap = cap;
    return 0;
}

/* Add m comparisons: i[k] against j[k] (provisional ids, i != j, below 2^31),
 * outcome y[k] for i[k] (0 or 1; NULL: all 1), count[k] (NULL: all 1; a table
 * made for counts only). Returns 0; -1 out of memory; -2 a pair's unit count
 * would pass 2^32 - 1 (give such rows as one row with a count). */
int64_t pairs_add(void *p, int64_t m, const int64_t *i, const int64_t *j, const double *y,
                  const double *count)
{
    pairs_t *t = p;
    uint64_t keys[BATCH], hashes[BATCH];
    int won[BATCH];
    for (int64_t s = 0; s < m; s += BATCH) {
        int64_t e = s + BATCH < m ? s + BATCH : m;
        for (int64_t k = s; k < e; k++) { /* hash the batch and prefetch its slots */
            uint64_t a = (uint64_t)i[k], b = (uint64_t)j[k];
            int first = a < b;
            uint64_t key = first ? (a << 32 | b) : (b << 32 | a);
            int yk = y ? (y[k] == 1.0) : 1;
            won[k - s] = first == yk;
            uint64_t h = mix64(key);
            keys[k - s] = key;
            hashes[k - s] = h;
            shard_t *sh = &t->shard[h >> (64 - SHARD_BITS)];
            PREFETCH((const char *)sh->slots + (h & (uint64_t)(sh->cap - 1)) * slot_size(t));
        }
        for (int64_t k = s; k < e; k++) {
            uint64_t key = keys[k - s], h = hashes[k - s];
            shard_t *sh = &t->shard[h >> (64 - SHARD_BITS)];
            uint64_t mask = (uint64_t)(sh->cap - 1);
            uint64_t at = h & mask;
            if (t->weighted) {
                wslot_t *slots = sh->slots;
                while (slots[at].key && slots[at].key != key) at = (at + 1) & mask;
                double c = count ? count[k] : 1.0;
                if (!slots[at].key) {
                    slots[at].key = key;
                    slots[at].n = 0.0;
                    slots[at].w = 0.0;
                    sh->count++;
                }
                slots[at].n += c;
                if (won[k - s]) slots[at].w += c;
            } else {
                uslot_t *slots = sh->slots;
                while (slots[at].key && slots[at].key != key) at = (at + 1) & mask;
                if (!slots[at].key) {
                    slots[at].key = key;
                    slots[at].n = 0;
                    slots[at].w = 0;
                    sh->count++;
                }
                if (slots[at].n == UINT32_MAX) return -2;
                slots[at].n++;
                slots[at].w += (uint32_t)won[k - s];
            }
            if (sh->count * 4 > sh->cap * 3 && shard_grow(t, sh)) return -1;
        }
    }
    return 0;
}

/* Renumber the pairs by rank (rank[id]: the item's final index; NULL: none) with
 * the first item the lower (the wins flipped where the order changes), and count
 * each first item's pairs into counts[a + 1] (n_items + 1 zeros). The shards are
 * compacted in place and shrunk to their pairs. Returns the pairs, -1 where rank
 * gives a pair's two items one index (the caller checked that it cannot), -2
 * where an index is not below n_items. */
int64_t pairs_compact(void *p, const int64_t *rank, int64_t n_items, int64_t *counts)
{
    pairs_t *t = p;
    int64_t total = 0;
    for (int s = 0; s < SHARDS; s++) {
        shard_t *sh = &t->shard[s];
        int64_t o = 0;
        for (int64_t k = 0; k < sh->cap; k++) {
            uint64_t key, a, b;
            if (t->weighted) {
                wslot_t *slots = sh->slots;
                if (!(key = slots[k].key)) continue;
                slots[o] = slots[k];
            } else {
                uslot_t *slots = sh->slots;
                if (!(key = slots[k].key)) continue;
                slots[o] = slots[k];
            }
            a = key >> 32;
            b = key & 0xffffffffULL;
            if (rank) {
                a = (uint64_t)rank[a];
                b = (uint64_t)rank[b];
            }
            if (a >= (uint64_t)n_items || b >= (uint64_t)n_items) return -2;
            if (rank) {
                if (a == b) return -1;
                if (a > b) {
                    uint64_t x = a;
                    a = b;
                    b = x;
                    if (t->weighted) {
                        wslot_t *q = (wslot_t *)sh->slots + o;
                        q->w = q->n - q->w;
                    } else {
                        uslot_t *q = (uslot_t *)sh->slots + o;
                        q->w = q->n - q->w;
                    }
                }
            }
            if (t->weighted) ((wslot_t *)sh->slots)[o].key = a << 32 | b;
            else ((uslot_t *)sh->slots)[o].key = a << 32 | b;
            counts[a + 1]++;
            o++;
        }
        void *q = realloc(sh->slots, (size_t)(o ? o : 1) * slot_size(t));
        if (q) sh->slots = q;
        sh->cap = sh->count = o;
        total += o;
    }
    return total;
}

/* The compacted pairs in rows of their first item: ptr (n_items + 1, the row
 * starts, from pairs_compact's counts summed), partners b, and the counts: for a
 * unit table packed[k] = n << 32 | w, for a weighted one n and w. The table's
 * memory is freed shard by shard; the table itself stays to be freed. Returns
 * 0, or -1 out of memory (nothing moved). */
int64_t pairs_scatter(void *p, const int64_t *ptr, int64_t n_items, int32_t *b, uint64_t *packed,
                      double *n, double *w)
{
    pairs_t *t = p;
    int64_t *at = malloc(sizeof(int64_t) * (size_t)(n_items > 0 ? n_items : 1));
    if (!at) return -1;
    memcpy(at, ptr, sizeof(int64_t) * (size_t)n_items);
    for (int s = 0; s < SHARDS; s++) {
        shard_t *sh = &t->shard[s];
        for (int64_t k = 0; k < sh->count; k++) {
            uint64_t key;
            int64_t o;
            if (t->weighted) {
                wslot_t *q = (wslot_t *)sh->slots + k;
                key = q->key;
                o = at[key >> 32]++;
                n[o] = q->n;
                w[o] = q->w;
            } else {
                uslot_t *q = (uslot_t *)sh->slots + k;
                key = q->key;
                o = at[key >> 32]++;
                packed[o] = (uint64_t)q->n << 32 | q->w;
            }
            b[o] = (int32_t)(key & 0xffffffffULL);
        }
        free(sh->slots);
        sh->slots = NULL;
        sh->cap = sh->count = 0;
    }
    free(at);
    return 0;
}

/* sort b[lo:hi] with its payloads (x: 8 bytes, y: 8 bytes or NULL) */
static void sort_row(int32_t *b, uint64_t *x, uint64_t *y, int64_t lo, int64_t hi)
{
    while (hi - lo > 24) {
        int64_t mid = lo + (hi - lo) / 2;
        /* median of three as the pivot */
        int32_t p0 = b[lo], p1 = b[mid], p2 = b[hi - 1];
        int32_t pivot = (p0 < p1) ? ((p1 < p2) ? p1 : (p0 < p2 ? p2 : p0))
                                  : ((p0 < p2) ? p0 : (p1 < p2 ? p2 : p1));
        int64_t l = lo, r = hi - 1;
        while (l <= r) {
            while (b[l] < pivot) l++;
            while (b[r] > pivot) r--;
            if (l <= r) {
                int32_t tb = b[l];
                b[l] = b[r];
                b[r] = tb;
                uint64_t tx = x[l];
                x[l] = x[r];
                x[r] = tx;
                if (y) {
                    uint64_t ty = y[l];
                    y[l] = y[r];
                    y[r] = ty;
                }
                l++;
                r--;
            }
        }
        /* recurse into the smaller part, loop on the larger */
        if (r + 1 - lo < hi - l) {
            sort_row(b, x, y, lo, r + 1);
            lo = l;
        } else {
            sort_row(b, x, y, l, hi);
            hi = r + 1;
        }
    }
    for (int64_t k = lo + 1; k < hi; k++) {
        int32_t vb = b[k];
        uint64_t vx = x[k], vy = y ? y[k] : 0;
        int64_t q = k - 1;
        while (q >= lo && b[q] > vb) {
            b[q + 1] = b[q];
            x[q + 1] = x[q];
            if (y) y[q + 1] = y[q];
            q--;
        }
        b[q + 1] = vb;
        x[q + 1] = vx;
        if (y) y[q + 1] = vy;
    }
}

/* Sort each row by partner and merge equal pairs (labels that normalisation
 * made one), compacting the arrays in place and updating ptr. For a unit table
 * x = packed counts, y = NULL; for a weighted one x = n and y = w (as bits).
 * Returns the pairs left, -2 where a merged unit count would pass 2^32 - 1. */
int64_t rows_sort_merge(int64_t n_items, int64_t *ptr, int32_t *b, uint64_t *x, uint64_t *y)
{
    int64_t o = 0, start = 0;
    for (int64_t a = 0; a < n_items; a++) {
        int64_t lo = ptr[a], hi = ptr[a + 1];
        int sorted = 1;
        for (int64_t k = lo + 1; k < hi; k++)
            if (b[k] <= b[k - 1]) {
                sorted = 0;
                break;
            }
        if (!sorted) sort_row(b, x, y, lo, hi);
        ptr[a] = start;
        for (int64_t k = lo; k < hi; k++) {
            if (o > start && b[o - 1] == b[k]) { /* the same pair: add the counts */
                if (y) {
                    double nx, ny, ox, oy;
                    memcpy(&nx, &x[k], 8);
                    memcpy(&ny, &y[k], 8);
                    memcpy(&ox, &x[o - 1], 8);
                    memcpy(&oy, &y[o - 1], 8);
                    ox += nx;
                    oy += ny;
                    memcpy(&x[o - 1], &ox, 8);
                    memcpy(&y[o - 1], &oy, 8);
                } else {
                    uint64_t cn = (x[o - 1] >> 32) + (x[k] >> 32);
                    uint64_t cw = (x[o - 1] & 0xffffffffULL) + (x[k] & 0xffffffffULL);
                    if (cn > UINT32_MAX) return -2;
                    x[o - 1] = cn << 32 | cw;
                }
                continue;
            }
            b[o] = b[k];
            x[o] = x[k];
            if (y) y[o] = y[k];
            o++;
        }
        start = o;
    }
    ptr[n_items] = o;
    return o;
}

/* packed[k] = n << 32 | w into n (in place, as doubles) and w */
void unpack_counts(int64_t m, uint64_t *packed, double *w)
{
    for (int64_t k = 0; k < m; k++) {
        uint64_t v = packed[k];
        double n = (double)(v >> 32);
        w[k] = (double)(v & 0xffffffffULL);
        memcpy(&packed[k], &n, 8);
    }
}
