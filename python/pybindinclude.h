// pybind11 (with its NumPy support) for files that also include Qt: Python's headers name a
// struct member `slots`, which Qt defines as a keyword macro.
#pragma once

#pragma push_macro("slots")
#undef slots
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#pragma pop_macro("slots")
