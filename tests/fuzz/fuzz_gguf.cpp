// libFuzzer target: GGUF v2/v3 metadata (every value kind, arrays of strings and numbers),
// tensor infos and reads, and the metadata as a model config (llama.cpp keys, NoPE layers).
#include "formats/ggufconfig.h"
#include "formats/gguffile.h"
#include "fuzzinput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pe::GgufFile file;
    QString error;
    if (!file.open(pe::fuzz::writeInput(data, size, ".gguf"), &error))
        return 0;
    for (const QString &key : file.keys()) {
        if (const pe::GgufValue *value = file.value(key)) {
            (void)value->toInt();
            (void)value->toDouble();
            (void)value->toString();
        }
        (void)file.intArray(key, &error, 1024);
        (void)file.doubleArray(key, &error, 1024);
        (void)file.stringArray(key, &error, 1024);
    }
    pe::fuzz::readEveryTensor(file);
    (void)pe::ggufModelConfig(file, &error);
    return 0;
}
