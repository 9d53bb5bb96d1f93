// `pescope verify (--config FILE | --model PATH) --against FILE[:TENSOR] [--what QUANTITY]`:
// compares someone's RoPE numbers (an inference engine's inv_freq, cos / sin tables in any
// layout, attention factor, or a GGUF file's rope_freqs) with what Hugging Face's rotary
// embedding computes for that model (core/rope/enginecheck.h), says how closely they agree, and
// names the known mistake a difference matches.
// Exit 0: agrees (up to float32 rounding unless --strict); 4: differs; 2: bad input.
#include "commandline.h"

namespace pe::cli {

void addVerifyOptions(OptionSet &options, VerifyOptionSet set)
{
    const bool verify = set == VerifyOptionSet::Verify;
    options.addPlain({QStringLiteral("against"),
                      QStringLiteral("The numbers to check: a .npy file (complex64 / complex128 "
                                     "are (cos, sin) pairs), FILE.safetensors:TENSOR, or a .gguf "
                                     "file (its rope_freqs.weight, or the rope_factors_long / "
                                     "rope_factors_short set llama.cpp uses at --positions). Read "
                                     "at their own precision (F64, F32, F16, BF16); leading "
                                     "dimensions of 1 are dropped, a trailing 2 is complex (cos, "
                                     "sin) pairs."),
                      QStringLiteral("FILE[:TENSOR]")});
    options.addPlain({QStringLiteral("what"),
                      QStringLiteral("What the file holds: %1 (default: inv-freq for 1-D arrays "
                                     "and GGUF rope_freqs, attention-factor for one value, "
                                     "cos-sin for complex pairs, cos for a table).")
                          .arg(choiceList(ropeQuantityNames)),
                      QStringLiteral("NAME")});
    if (verify)
        options.addPlain({QStringLiteral("layout"),
                          QStringLiteral("How a table's columns hold the pairs: %1 (default auto: "
                                         "detected from the values; half is HF's cat(f, f), pairs "
                                         "gpt-oss's one column per pair, complex Llama 4's "
                                         "freqs_cis).")
                              .arg(choiceList(ropeLayoutNames)),
                          QStringLiteral("NAME")});
    if (verify)
        options.addPlain({QStringLiteral("positions"),
                          QStringLiteral("The sequence length HF's rules see (dynamic, "
                                         "longrope); default: the table's rows, none for "
                                         "inv-freq (the module as loaded)."),
                          QStringLiteral("N")});
    options.addPlain({QStringLiteral("tolerance"),
                      QStringLiteral("Largest difference that agrees exactly, against the "
                                     "reference rounded to the file's type: absolute for tables, "
                                     "relative for inv-freq and the attention factor (default "
                                     "%1).")
                          .arg(ropeDefaultTolerance),
                      QStringLiteral("T")});
    options.addPlain({QStringLiteral("unscaled"),
                      QStringLiteral("The tables are not multiplied by the attention factor "
                                     "(HF's forward multiplies them).")});
    options.addPlain(
        {QStringLiteral("strict"),
         QStringLiteral("Demand float64 exactness: a table that agrees only up to "
                        "float32 rounding of its angles or values differs (exit 4).")});
}

EngineCheckRequest engineCheckRequest(const QCommandLineParser &parser, const ModelLayerSpec &model,
                                      const QString &source, VerifyOptionSet set)
{
    const bool verify = set == VerifyOptionSet::Verify;
    const RopeScheme *rope = model.spec.get<RopeScheme>();
    if (!rope)
        throw UsageError{QStringLiteral("%1 has no rotation to verify").arg(model.description)};
    if (!parser.isSet(QStringLiteral("against")))
        throw UsageError{QStringLiteral("--against is required")};
    EngineCheckRequest request;
    request.headDim = model.spec.dims;
    request.config = *rope;
    request.reference = QStringLiteral("%1 (%2)").arg(model.description, source);
    request.against = parser.value(QStringLiteral("against"));
    if (parser.isSet(QStringLiteral("what"))) {
        const QString name = parser.value(QStringLiteral("what"));
        request.what = parseAs<RopeQuantity>(ropeQuantityNames, name);
        if (!request.what)
            throw UsageError{QStringLiteral("--what must be %1 (got \"%2\")")
                                 .arg(choiceList(ropeQuantityNames), name)};
    }
    if (verify && parser.isSet(QStringLiteral("layout"))) {
        const QString name = parser.value(QStringLiteral("layout"));
        const auto layout = parseAs<RopeLayout>(ropeLayoutNames, name);
        if (!layout)
            throw UsageError{QStringLiteral("--layout must be %1 (got \"%2\")")
                                 .arg(choiceList(ropeLayoutNames), name)};
        request.options.layout = *layout;
    }
    if (verify && parser.isSet(QStringLiteral("positions")))
        request.sequenceLength =
            integerOption(parser, QStringLiteral("positions"), 1, ropeMaxContext, 0);
    request.options.tolerance =
        numberOption(parser, QStringLiteral("tolerance"), ropeDefaultTolerance);
    if (!(request.options.tolerance >= 0))
        throw UsageError{QStringLiteral("--tolerance must be at least 0 (got %1)")
                             .arg(request.options.tolerance)};
    request.options.scaled = !parser.isSet(QStringLiteral("unscaled"));
    request.options.strict = parser.isSet(QStringLiteral("strict"));
    return request;
}

int runVerify(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compares RoPE numbers (inv_freq, cos / sin tables in HF's, gpt-oss's, GPT-J's or Llama "
        "4's layout, the attention factor, a GGUF file's rope_freqs) with Hugging Face's rotary "
        "embedding for a model's config, says how closely they agree, and names the known "
        "mistake a difference matches. Exit 0: agrees (a table within float32 rounding of the "
        "reference agrees unless --strict); 4: differs; 2: bad input."));
    parser.addHelpOption();
    OptionSet options;
    addModelOptions(options);
    addVerifyOptions(options);
    options.addTo(parser);
    parseCommand(parser, args);

    const std::optional<ModelConfig> config = modelConfigFromOptions(parser);
    if (!config)
        throw UsageError{QStringLiteral("--config or --model is required")};
    if (!parser.isSet(QStringLiteral("against")))
        throw UsageError{QStringLiteral("--against is required")};
    QString error;
    const int layer =
        int(integerOption(parser, QStringLiteral("layer"), 0, limits::maxLayers - 1, -1));
    const std::optional<ModelLayerSpec> model = modelLayerSpec(*config, layer, &error);
    if (!model)
        throw UsageError{error};
    const EngineCheckRequest request = engineCheckRequest(parser, *model, config->source);
    const std::optional<EngineCheck> check = runEngineCheck(request, &error);
    if (!check)
        throw UsageError{QStringLiteral("--against: ") + error};
    for (const QString &line : check->lines)
        printOut(line + QLatin1Char('\n'));
    return check->result.agrees ? Success : Differs;
}

} // namespace pe::cli
