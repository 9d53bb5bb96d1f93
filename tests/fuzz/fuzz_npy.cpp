// libFuzzer target: the .npy header (magic, version, the Python-literal dict) and reads.
#include "formats/npyfile.h"
#include "fuzzinput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pe::NpyFile file;
    QString error;
    if (!file.open(pe::fuzz::writeInput(data, size, ".npy"), &error))
        return 0;
    std::vector<float> rows;
    (void)file.readRows(0, 2, &rows, &error);
    return 0;
}
