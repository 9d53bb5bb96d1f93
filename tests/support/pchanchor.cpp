// An empty unit: the suites reuse the precompiled headers of the targets it belongs to
// (pe_test_pch_* in tests/CMakeLists.txt), which need a source to compile them with.
