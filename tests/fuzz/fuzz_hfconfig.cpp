// libFuzzer target: a config.json's text (as File > Paste config.json takes it), the model
// config derived from it, and its layer map (each RoPE layer's parameters derived and checked).
#include "formats/modelconfig.h"
#include "model/modelcard.h"

#include <QByteArrayView>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QString error;
    const std::optional<pe::ModelConfig> config =
        pe::parseHfConfigText(QByteArrayView(reinterpret_cast<const char *>(data), qsizetype(size)),
                              QStringLiteral("fuzz.json"), &error);
    if (!config)
        return 0;
    for (const pe::LayerMapRow &row : pe::layerMap(*config))
        (void)row;
    return 0;
}
