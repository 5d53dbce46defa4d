/* The extension module dprank._native: an empty Python module (the stable ABI,
 * Python 3.11 on), so that the package build compiles and ships this library
 * like any extension; dprank._compiled loads its functions with ctypes. */
#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>

#include "native.h"

#ifndef DPRANK_SOURCE_DIGEST
#define DPRANK_SOURCE_DIGEST "unknown"
#endif

/* sha256 of the C sources the build compiled (setup.py): dprank._compiled
 * compares it with the sources beside a source checkout, so a stale build is
 * named instead of used */
const char *native_source_digest(void) { return DPRANK_SOURCE_DIGEST; }

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native",
    "dprank's compiled loops and reader (loaded with ctypes by dprank._compiled).", -1, NULL,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&native_module); }
