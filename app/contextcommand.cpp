// `pescope context --config F | --model M [--context N] [--dtype float32|bfloat16|float16]
// [--layer N] [--json]`: what a model's RoPE configuration means at the context it claims
// (core/rope/contextreport.h): a verdict, then per rotary pair the rule's treatment, turns,
// collisions and float32 error, Men et al.'s base bound and the RoFormer decay. Without --layer,
// one report per distinct set of RoPE parameters (Gemma 3's local and global layers).
// `--out report.pdf` also writes the one-page PDF report (ui/figures/contextreportpdf.h).
// Exit 0; 2 bad input (a model without RoPE says what it has instead); 1 a failed write.
#include "commandline.h"

#include "backends/backendfactory.h"
#include "figures/contextreportpdf.h"
#include "io/atomicfile.h"
#include "rope/contextreport.h"
#include "rope/ropefrequencies.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>

#include <algorithm>

namespace pe::cli {

namespace {

QString grouped(qint64 value)
{
    return QLocale(QLocale::English).toString(value);
}

// A model without rotary layers: what it has instead, and where its context ends (if anywhere).
[[noreturn]] void refuseWithoutRope(const ModelConfig &config)
{
    const AbsolutePositions &table = config.absolute;
    if (table.kind == AbsolutePositionKind::Learned)
        throw UsageError{QStringLiteral("%1 has no RoPE: a learned position table of %2 rows, a "
                                        "hard end at max_position_embeddings (position %2 and "
                                        "beyond have no row); nothing to scale")
                             .arg(config.source, grouped(table.positions))};
    if (table.kind == AbsolutePositionKind::PatchGrid)
        throw UsageError{
            QStringLiteral("%1 has no RoPE: a learned patch grid of %2 x %3 "
                           "positions, a hard end at that grid")
                .arg(config.source, grouped(table.gridHeight), grouped(table.gridWidth))};
    for (const LayerPosition &layer : config.layers) {
        if (layer.position == LayerPositionKind::Alibi)
            throw UsageError{QStringLiteral("%1 has no RoPE: ALiBi, a linear bias per head with "
                                            "no trained end and no frequencies to scale (see "
                                            "pescope export --view alibi)")
                                 .arg(config.source)};
        if (layer.position == LayerPositionKind::RelativeBias)
            throw UsageError{QStringLiteral("%1 has no RoPE: T5's relative buckets, where every "
                                            "distance beyond relative_attention_max_distance "
                                            "shares the last bucket (see --scheme t5)")
                                 .arg(config.source)};
    }
    throw UsageError{QStringLiteral("%1 has no RoPE parameters").arg(config.source)};
}

// The layers to report: --layer's, else the first layer of each distinct set of RoPE parameters
// (and attention window), or -1 for a config without a layer map.
std::vector<int> layersToReport(const ModelConfig &config, int layer)
{
    if (layer >= 0 || config.layers.empty())
        return {layer};
    std::vector<int> out;
    std::vector<std::pair<QJsonObject, qint64>> seen;
    for (const LayerPosition &l : config.layers) {
        if (l.position != LayerPositionKind::Rope)
            continue;
        const std::pair<QJsonObject, qint64> key{l.rope, l.window};
        if (std::find(seen.cbegin(), seen.cend(), key) != seen.cend())
            continue;
        seen.push_back(key);
        out.push_back(l.index);
    }
    return out;
}

// `context`: --context's value, 0 when not given (the config's max_position_embeddings).
ContextRequest requestFor(const ModelConfig &config, int layer, qint64 context, ContextDtype dtype)
{
    QString error;
    const std::optional<ModelLayerSpec> model = modelLayerSpec(config, layer, &error);
    if (!model)
        throw UsageError{error};
    const RopeScheme *rope = model->spec.get<RopeScheme>();
    if (!rope)
        throw UsageError{QStringLiteral("%1 does not rotate (NoPE): nothing to report; name a "
                                        "rotary layer with --layer")
                             .arg(model->description)};
    ContextRequest request;
    request.config = *rope;
    request.headDim = model->spec.dims;
    request.dtype = dtype;
    request.source = QStringLiteral("%1, %2").arg(config.source, model->description);
    if (model->layer >= 0) {
        const LayerPosition &l = config.layers[std::size_t(model->layer)];
        if (l.attention != AttentionKind::Full) {
            request.window = l.window;
            request.chunked = l.attention == AttentionKind::Chunked;
        }
    }
    const qint64 claimed = config.maxPositionEmbeddings;
    if (context == 0 && claimed < 1)
        throw UsageError{QStringLiteral("%1 does not say max_position_embeddings: give --context "
                                        "N")
                             .arg(config.source)};
    request.context = context > 0 ? context : std::min(claimed, ropeMaxContext);
    return request;
}

// --out: a .pdf in a folder that exists, checked before any work (exit 2 otherwise).
QString pdfOutFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("out")))
        return {};
    QString path = parser.value(QStringLiteral("out"));
    if (!path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        throw UsageError{QStringLiteral("--out must name a .pdf file, the one-page report (got "
                                        "\"%1\")")
                             .arg(path)};
    if (const QString problem = outputPathProblem(path); !problem.isEmpty())
        throw UsageError{QStringLiteral("--out: ") + problem};
    return path;
}

// The first report's PDF, of the layer it reports, written atomically; false with a message.
bool writePdf(const QString &path, const ModelConfig &config, int layer, const ContextReport &first)
{
    QString error;
    const std::optional<ModelLayerSpec> model = modelLayerSpec(config, layer, &error);
    const std::unique_ptr<Backend> backend =
        model ? makeBackend(BackendChoice::Cpu, &error) : nullptr;
    QByteArray pdf;
    if (backend)
        pdf = contextReportPdf(first, model->spec, *backend, &error);
    if (pdf.isEmpty() || !writeFileAtomically(path, pdf, &error)) {
        report(QStringLiteral("context"), QStringLiteral("--out %1: %2").arg(path, error));
        return false;
    }
    report(QStringLiteral("context"), QStringLiteral("report written to %1").arg(path));
    return true;
}

} // namespace

int runContext(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "What a model's RoPE configuration means at the context it claims: which rotary pairs "
        "its scaling rule keeps, blends or interpolates, which never turned in training (Liu et "
        "al. 2023's critical dimension), Men et al. 2024's base bound B(m) = sum cos(m theta), "
        "where bfloat16 / float16 / float32 angles break, and the RoFormer decay, scaled "
        "against unscaled. A verdict first, then the numbers."));
    parser.addHelpOption();
    OptionSet options;
    addModelOptions(options);
    options.addPlain({QStringLiteral("context"),
                      QStringLiteral("The claimed context, 1 to %1 (default: the config's "
                                     "max_position_embeddings).")
                          .arg(ropeMaxContext),
                      QStringLiteral("N")});
    options.addPlain({QStringLiteral("dtype"),
                      QStringLiteral("The dtype positions and angles are formed in: %1 (default "
                                     "float32, what transformers' rotary forward uses).")
                          .arg(choiceList(contextDtypeNames)),
                      QStringLiteral("NAME")});
    options.addPlain({QStringLiteral("json"), QStringLiteral("One JSON object on stdout.")});
    options.addPlain({QStringLiteral("out"),
                      QStringLiteral("Also write the one-page PDF report (the verdict, then the "
                                     "context-pairs, context-base-bound, context-precision and "
                                     "decay figures) to FILE.pdf; of the first layer reported."),
                      QStringLiteral("FILE.pdf")});
    options.addTo(parser);
    parseCommand(parser, args);
    refuseOptions(parser, {QStringLiteral("tensor"), QStringLiteral("table-offset")},
                  QStringLiteral("context (it reads the config's RoPE parameters)"));

    ContextDtype dtype = ContextDtype::Float32;
    if (parser.isSet(QStringLiteral("dtype"))) {
        const QString name = parser.value(QStringLiteral("dtype"));
        const auto parsed = parseAs<ContextDtype>(contextDtypeNames, name);
        if (!parsed)
            throw UsageError{QStringLiteral("--dtype must be %1 (got \"%2\")")
                                 .arg(choiceList(contextDtypeNames), name)};
        dtype = *parsed;
    }
    // The options' own values first, then the files they name.
    const qint64 context = integerOption(parser, QStringLiteral("context"), 1, ropeMaxContext, 0);
    const int layer =
        int(integerOption(parser, QStringLiteral("layer"), 0, limits::maxLayers - 1, -1));
    const QString pdfPath = pdfOutFromOptions(parser);
    const std::optional<ModelConfig> config = modelConfigFromOptions(parser);
    if (!config)
        throw UsageError{QStringLiteral("--config or --model is required")};
    if (!config->usesRope())
        refuseWithoutRope(*config);

    // Every request is checked before any report is computed: bad input is exit 2 up front.
    std::vector<ContextRequest> requests;
    const std::vector<int> layers = layersToReport(*config, layer);
    requests.reserve(layers.size());
    for (int l : layers)
        requests.push_back(requestFor(*config, l, context, dtype));
    std::vector<ContextReport> reports;
    for (const ContextRequest &request : requests) {
        QString error;
        std::optional<ContextReport> report = contextReport(request, &error);
        if (!report)
            throw UsageError{QStringLiteral("%1: %2").arg(request.source, error)};
        reports.push_back(std::move(*report));
    }

    // Layers that do not rotate (Llama 4's and SmolLM3's NoPE layers) have no report of their
    // own: say which they are, where the whole model is reported.
    QStringList nope;
    for (const LayerPosition &l : config->layers)
        if (l.position == LayerPositionKind::NoPE)
            nope << QString::number(l.index);
    if (layer < 0 && !nope.isEmpty())
        for (ContextReport &r : reports)
            r.notes << QStringLiteral("layers %1 do not rotate (NoPE): their attention sees no "
                                      "positions, so nothing here applies to them")
                           .arg(nope.join(QStringLiteral(", ")));

    QByteArray out;
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray layers;
        for (const ContextReport &report : reports)
            layers.append(contextReportJson(report));
        out = QJsonDocument(QJsonObject{{QStringLiteral("source"), config->source},
                                        {QStringLiteral("reports"), layers}})
                  .toJson(QJsonDocument::Indented);
    } else {
        for (std::size_t k = 0; k < reports.size(); ++k) {
            if (k > 0)
                out += '\n';
            for (const QString &line : contextReportText(reports[k]))
                out += line.toUtf8() + '\n';
        }
    }
    if (!pdfPath.isEmpty() && !writePdf(pdfPath, *config, layers.front(), reports.front()))
        return Failure;
    writeOut(out); // main() checks standard output and names the cause of a failed write
    return Success;
}

} // namespace pe::cli
