/* The extension module dprank._native (the stable ABI, Python 3.11 on), so that the
 * package build compiles and ships this library like any extension;
 * dprank.base._compiled loads its plain C functions with ctypes. Its one Python
 * functions write text: format_floats, floats as repr() writes them (shortest.c), and
 * format_csv, the rows of the ranking's columns as CSV. */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>

#include <string.h>

#include "native.h"

#ifndef DPRANK_SOURCE_DIGEST
#define DPRANK_SOURCE_DIGEST "unknown"
#endif

/* sha256 of the C sources the build compiled (setup.py): dprank.base._compiled
 * compares it with the sources beside a source checkout, so a stale build is
 * named instead of used */
const char *native_source_digest(void) { return DPRANK_SOURCE_DIGEST; }

#ifndef DPRANK_SOURCE_STAMP
#define DPRANK_SOURCE_STAMP "unknown"
#endif

/* the sizes and modification times of those sources as the build saw them
 * (_native_build.source_stamp): where the files beside are unchanged since, the digest
 * is not computed again at each start */
const char *native_source_stamp(void) { return DPRANK_SOURCE_STAMP; }

/* format_floats(buffer) -> list of str: repr() of each float64 of a C-contiguous
 * buffer (format "d"), as Python spells it (shortest.c: the shortest string that
 * reads back to the same double), without a float object per value. */
static PyObject *format_floats(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (view.itemsize != (Py_ssize_t)sizeof(double) || !view.format || view.format[0] != 'd' ||
        view.format[1] != '\0') {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "format_floats takes a C-contiguous float64 buffer");
        return NULL;
    }
    const double *x = view.buf;
    Py_ssize_t n = view.len / (Py_ssize_t)sizeof(double);
    PyObject *out = PyList_New(n);
    char text[SHORTEST_REPR_MAX];
    for (Py_ssize_t k = 0; out && k < n; k++) {
        int len = shortest_repr(x[k], text);
        PyObject *item = PyUnicode_FromStringAndSize(text, len);
        if (!item || PyList_SetItem(out, k, item) < 0) Py_CLEAR(out);
    }
    PyBuffer_Release(&view);
    return out;
}

/* A growing byte buffer for format_csv. */
typedef struct {
    char *data;
    size_t len, cap;
} Text;

static int text_reserve(Text *t, size_t more)
{
    if (t->len + more <= t->cap) return 0;
    size_t cap = t->cap ? t->cap : 1 << 16;
    while (cap < t->len + more) cap *= 2;
    char *data = PyMem_Realloc(t->data, cap);
    if (!data) {
        PyErr_NoMemory();
        return -1;
    }
    t->data = data;
    t->cap = cap;
    return 0;
}

/* One column of format_csv: a list of str, or a buffer of float64 ("d"), 64-bit
 * integers ("l", "q"; unsigned "L", "Q") or booleans ("?"). */
typedef struct {
    PyObject *list;
    Py_buffer view;
    char kind; /* 's' text, 'f' float, 'i' signed, 'u' unsigned, 'b' bool */
} Column;

static int column_open(PyObject *obj, Column *c, Py_ssize_t *rows)
{
    Py_ssize_t n;
    c->list = NULL;
    if (PyList_Check(obj)) {
        c->list = obj;
        c->kind = 's';
        n = PyList_Size(obj);
    } else {
        if (PyObject_GetBuffer(obj, &c->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
        const char *f = c->view.format ? c->view.format : "B";
        c->kind = 0;
        if (f[0] != '\0' && f[1] == '\0') {
            if (f[0] == 'd' && c->view.itemsize == 8) c->kind = 'f';
            else if ((f[0] == 'l' || f[0] == 'q') && c->view.itemsize == 8) c->kind = 'i';
            else if ((f[0] == 'L' || f[0] == 'Q') && c->view.itemsize == 8) c->kind = 'u';
            else if (f[0] == '?' && c->view.itemsize == 1) c->kind = 'b';
        }
        if (!c->kind) {
            PyBuffer_Release(&c->view);
            PyErr_SetString(PyExc_TypeError, "format_csv: a column must be a list of str or a "
                                             "buffer of float64, 64-bit integers or booleans");
            return -1;
        }
        n = c->view.len / c->view.itemsize;
    }
    if (*rows >= 0 && n != *rows) {
        if (!c->list) PyBuffer_Release(&c->view);
        PyErr_SetString(PyExc_ValueError, "format_csv: the columns must have the same length");
        return -1;
    }
    *rows = n;
    return 0;
}

static int put_uint(Text *t, uint64_t v, int negative)
{
    char digits[24];
    int n = 0;
    do {
        digits[23 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (negative) digits[23 - n++] = '-';
    if (text_reserve(t, (size_t)n)) return -1;
    memcpy(t->data + t->len, digits + 24 - n, (size_t)n);
    t->len += (size_t)n;
    return 0;
}

static int put_cell(Text *t, const Column *c, Py_ssize_t k)
{
    switch (c->kind) {
    case 's': {
        PyObject *item = PyList_GetItem(c->list, k);
        if (!item) return -1;
        if (!PyUnicode_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "format_csv: a text column holds a non-str");
            return -1;
        }
        Py_ssize_t size;
        const char *utf8 = PyUnicode_AsUTF8AndSize(item, &size);
        if (!utf8 || text_reserve(t, (size_t)size)) return -1;
        memcpy(t->data + t->len, utf8, (size_t)size);
        t->len += (size_t)size;
        return 0;
    }
    case 'f':
        if (text_reserve(t, SHORTEST_REPR_MAX)) return -1;
        t->len += (size_t)shortest_repr(((const double *)c->view.buf)[k], t->data + t->len);
        return 0;
    case 'i': {
        int64_t v = ((const int64_t *)c->view.buf)[k];
        return put_uint(t, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
    }
    case 'u':
        return put_uint(t, ((const uint64_t *)c->view.buf)[k], 0);
    default: {
        int v = ((const unsigned char *)c->view.buf)[k] != 0;
        if (text_reserve(t, 5)) return -1;
        memcpy(t->data + t->len, v ? "True" : "False", v ? 4 : 5);
        t->len += v ? 4 : 5;
        return 0;
    }
    }
}

/* format_csv(columns) -> bytes: the rows of the columns (a sequence of lists of str or
 * numeric buffers, see Column), each field as str() writes it (floats as repr()), UTF-8,
 * fields joined by "," and each row ended by "\n", nothing quoted (the caller has checked
 * that no field needs quotes). */
static PyObject *format_csv(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *seq = PySequence_Tuple(arg);
    if (!seq) return NULL;
    Py_ssize_t ncols = PyTuple_Size(seq), rows = -1, opened = 0;
    Column *cols = PyMem_Calloc(ncols > 0 ? (size_t)ncols : 1, sizeof(Column));
    Text t = {NULL, 0, 0};
    PyObject *out = NULL;
    if (!cols) {
        PyErr_NoMemory();
        goto done;
    }
    for (; opened < ncols; opened++)
        if (column_open(PyTuple_GetItem(seq, opened), &cols[opened], &rows)) goto done;
    if (rows < 0) rows = 0;
    for (Py_ssize_t k = 0; k < rows; k++) {
        for (Py_ssize_t j = 0; j < ncols; j++) {
            if (put_cell(&t, &cols[j], k) || text_reserve(&t, 1)) goto done;
            t.data[t.len++] = j + 1 < ncols ? ',' : '\n';
        }
    }
    out = PyBytes_FromStringAndSize(t.data ? t.data : "", (Py_ssize_t)t.len);
done:
    for (Py_ssize_t j = 0; j < opened; j++)
        if (!cols[j].list) PyBuffer_Release(&cols[j].view);
    PyMem_Free(cols);
    PyMem_Free(t.data);
    Py_DECREF(seq);
    return out;
}

static PyMethodDef native_methods[] = {
    {"format_floats", format_floats, METH_O,
     "repr() of each float64 of a C-contiguous buffer, as a list of str."},
    {"format_csv", format_csv, METH_O,
     "The rows of columns (lists of str, buffers of float64, int64 or bool) as CSV bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native",
    "dprank's compiled loops and reader (loaded with ctypes by dprank.base._compiled) and its "
    "text writers (format_floats, format_csv).",
    -1, native_methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&native_module); }
