/* The extension module dprank._native (the stable ABI, Python 3.11 on), so that the
 * package build compiles and ships this library like any extension;
 * dprank.base._compiled loads its plain C functions with ctypes. Its one Python
 * function, format_floats, writes floats as repr() does (the ranking's scores). */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>

#include "native.h"

#ifndef DPRANK_SOURCE_DIGEST
#define DPRANK_SOURCE_DIGEST "unknown"
#endif

/* sha256 of the C sources the build compiled (setup.py): dprank.base._compiled
 * compares it with the sources beside a source checkout, so a stale build is
 * named instead of used */
const char *native_source_digest(void) { return DPRANK_SOURCE_DIGEST; }

/* format_floats(buffer) -> list of str: repr() of each float64 of a C-contiguous
 * buffer (format "d"), as Python spells it (PyOS_double_to_string with 'r' and
 * Py_DTSF_ADD_DOT_0 is what float.__repr__ calls: the shortest string that reads
 * back to the same double), without a float object per value. */
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
    for (Py_ssize_t k = 0; out && k < n; k++) {
        char *text = PyOS_double_to_string(x[k], 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        PyObject *item = text ? PyUnicode_FromString(text) : NULL;
        PyMem_Free(text);
        if (!item || PyList_SetItem(out, k, item) < 0) Py_CLEAR(out);
    }
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef native_methods[] = {
    {"format_floats", format_floats, METH_O,
     "repr() of each float64 of a C-contiguous buffer, as a list of str."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native",
    "dprank's compiled loops and reader (loaded with ctypes by dprank.base._compiled) and its "
    "float formatter (format_floats).",
    -1, native_methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&native_module); }
