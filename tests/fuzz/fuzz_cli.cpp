// libFuzzer target: `pescope data`'s command line, which holds the options every command that
// computes an encoding shares (SPEC from the field tables of every scheme, MODEL's --config,
// --model and --layer, --backend, --out, --format) and --position-ids' own parser. The input is
// the arguments, separated by NUL bytes. Everything up to the computation runs, as in runData:
// the spec the options give, a model's layer, the ids, the output path and format. Beyond not
// crashing: a refusal is a UsageError with a message, and a spec the options give is valid.
#include "commandline.h"
#include "fuzzinput.h"

#include <cstddef>
#include <cstdint>

using pe::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pe::fuzz::ensureCoreApplication();
    using namespace pe::cli;

    QStringList args{QStringLiteral("pescope data")};
    for (const QByteArray &arg :
         QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)).split('\0'))
        args.append(QString::fromUtf8(arg));
    QCommandLineParser parser;
    pe::OptionSet options;
    addDataOptions(options);
    options.addTo(parser);
    try {
        parseOrThrow(parser, args);
        if (parser.isSet(QStringLiteral("help")))
            return 0; // the help text, then exit: nothing parsed
        const std::optional<pe::ModelLayerSpec> model = modelSpecFromOptions(parser);
        const pe::EncodingSpec spec = model ? model->spec : specFromOptions(parser);
        check(spec.validate().isEmpty());
        if (parser.isSet(QStringLiteral("position-ids")))
            check(!parsePositionIds(parser.value(QStringLiteral("position-ids"))).empty());
        (void)backendFromOptions(parser);
        const QString path = outputPath(parser, {QStringLiteral("npy"), QStringLiteral("csv")});
        (void)matrixFormatFromOptions(parser, path);
    } catch (const UsageError &error) {
        check(!error.message.isEmpty());
    }
    return 0;
}
