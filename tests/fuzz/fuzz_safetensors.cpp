// libFuzzer target: the safetensors header (JSON of names, dtypes, shapes, offsets) and tensor
// reads. tests/fuzz/run.sh builds and runs it under AddressSanitizer and UBSan.
#include "formats/safetensorsfile.h"
#include "fuzzinput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pe::SafetensorsFile file;
    QString error;
    if (file.open(pe::fuzz::writeInput(data, size, ".safetensors"), &error))
        pe::fuzz::readEveryTensor(file);
    return 0;
}
