// `pescope inspect PATH|REPO_ID [--json]`: what pescope reads from a model - its architecture,
// the positional scheme of every layer (RoPE, NoPE, a learned table, ALiBi, T5), the RoPE
// parameters, what was assumed, and its tensors with names, shapes and types. Headers only:
// no tensor data is read.
#include "commandline.h"

#include "formats/ggufconfig.h"
#include "formats/hfcache.h"
#include "formats/modeltensors.h"
#include "model/modelcard.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace pe::cli {

namespace {

// One line per run of layers that position alike: "layers 0-4 (5): rope, sliding-window 4096".
struct LayerRun
{
    int first = 0;
    int last = 0;
    QString text;
};

std::vector<LayerRun> layerRuns(const ModelConfig &config)
{
    std::vector<LayerRun> runs;
    for (const LayerPosition &layer : config.layers) {
        const QString text = layerText(config, layer);
        if (!runs.empty() && runs.back().text == text)
            runs.back().last = layer.index;
        else
            runs.push_back({layer.index, layer.index, text});
    }
    return runs;
}

QJsonArray shapeJson(const std::vector<qint64> &shape)
{
    QJsonArray out;
    for (qint64 n : shape)
        out.append(n);
    return out;
}

// A GGUF file stores no pairing (llama.cpp picks it per architecture, after permuting the
// weights): only config.json's models get a pairing line.
bool statesPairing(const ModelConfig &c)
{
    return c.usesRope() && !c.source.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive);
}

// How the model pairs its rotary columns, for people: the tables pescope writes follow it.
QString pairingText(const ModelConfig &c)
{
    return c.interleavedPairs
               ? QStringLiteral("interleaved: columns 2i and 2i + 1 of each head form pair i "
                                "(Llama 4's apply_rotary_emb, DeepSeek's rope_interleave); "
                                "pescope's tables follow it")
               : QStringLiteral("half: columns i and i + d/2 of each rotated head form pair i "
                                "(rotate_half, HF's cat(f, f) tables)");
}

QJsonObject configJson(const ModelConfig &c)
{
    QJsonArray layers;
    for (const LayerPosition &l : c.layers) {
        QJsonObject layer{{QStringLiteral("index"), l.index},
                          {QStringLiteral("position"), layerPositionKindName(l.position)},
                          {QStringLiteral("attention"), attentionKindName(l.attention)},
                          {QStringLiteral("layer_type"), l.layerType}};
        if (l.window > 0)
            layer.insert(QStringLiteral("window"), l.window);
        if (l.position == LayerPositionKind::Rope) {
            layer.insert(QStringLiteral("rotary_dims"), l.rotaryDims);
            layer.insert(QStringLiteral("rope_parameters"), l.rope);
        }
        layers.append(layer);
    }
    QJsonObject absolute{{QStringLiteral("kind"), absolutePositionKindName(c.absolute.kind)}};
    if (c.absolute.kind != AbsolutePositionKind::None) {
        absolute.insert(QStringLiteral("positions"), c.absolute.positions);
        absolute.insert(QStringLiteral("table_rows"), c.absolute.tableRows);
        absolute.insert(QStringLiteral("offset"), c.absolute.offset);
        absolute.insert(QStringLiteral("tensor_names"),
                        QJsonArray::fromStringList(c.absolute.tensorNames));
    }
    return {{QStringLiteral("file"), c.source},
            {QStringLiteral("model_type"), c.modelType},
            {QStringLiteral("architectures"), QJsonArray::fromStringList(c.architectures)},
            {QStringLiteral("hidden_size"), c.hiddenSize},
            {QStringLiteral("num_attention_heads"), c.numAttentionHeads},
            {QStringLiteral("num_key_value_heads"), c.numKeyValueHeads},
            {QStringLiteral("head_dim"), c.headDim},
            {QStringLiteral("num_hidden_layers"), c.numHiddenLayers},
            {QStringLiteral("max_position_embeddings"), c.maxPositionEmbeddings},
            {QStringLiteral("absolute_positions"), absolute},
            {QStringLiteral("rope_parameters"), c.ropeParameters},
            {QStringLiteral("pairing"),
             statesPairing(c) ? QJsonValue(c.interleavedPairs ? QStringLiteral("interleaved")
                                                              : QStringLiteral("half"))
                              : QJsonValue()},
            {QStringLiteral("layers"), layers},
            {QStringLiteral("read"), QJsonArray::fromStringList(c.readFrom)},
            {QStringLiteral("assumed"), QJsonArray::fromStringList(c.assumed)}};
}

QJsonObject ggufJson(const GgufFile &gguf)
{
    QJsonObject out{{QStringLiteral("architecture"), gguf.architecture()}};
    const auto put = [&](const char *key, auto value) {
        if (value)
            out.insert(QString::fromUtf8(key), *value);
    };
    put("context_length", gguf.contextLength());
    put("embedding_length", gguf.embeddingLength());
    put("block_count", gguf.blockCount());
    put("head_count", gguf.headCount());
    put("head_count_kv", gguf.headCountKv());
    put("rope_dimension_count", gguf.ropeDimensionCount());
    put("rope_freq_base", gguf.ropeFreqBase());
    const GgufRopeScaling scaling = gguf.ropeScaling();
    if (!scaling.type.isEmpty())
        out.insert(QStringLiteral("rope_scaling_type"), scaling.type);
    put("rope_scaling_factor", scaling.factor);
    put("rope_scaling_original_context_length", scaling.originalContextLength);
    return out;
}

void printLine(const QString &line)
{
    printOut(line + QLatin1Char('\n'));
}

void printText(const QJsonObject &report, const std::optional<ModelConfig> &config)
{
    printLine(QStringLiteral("model:    %1 (%2)")
                  .arg(report.value(QStringLiteral("source")).toString(),
                       report.value(QStringLiteral("kind")).toString()));
    if (config) {
        const ModelConfig &c = *config;
        printLine(QStringLiteral("config:   %1").arg(c.source));
        printLine(QStringLiteral("type:     %1%2")
                      .arg(c.modelType.isEmpty() ? QStringLiteral("(no model_type)") : c.modelType,
                           c.architectures.isEmpty()
                               ? QString()
                               : QStringLiteral(" (%1)").arg(c.architectures.join(u", "))));
        printLine(QStringLiteral("sizes:    hidden %1, %2 heads (%3 key/value), head_dim %4, %5 "
                                 "layers, context %6")
                      .arg(c.hiddenSize)
                      .arg(c.numAttentionHeads)
                      .arg(c.numKeyValueHeads)
                      .arg(c.headDim)
                      .arg(c.numHiddenLayers)
                      .arg(c.maxPositionEmbeddings));
        if (c.absolute.kind != AbsolutePositionKind::None)
            printLine(QStringLiteral("absolute: %1, %2 positions, %3 table rows, offset %4 (%5)")
                          .arg(labelOf(absolutePositionKindNames, c.absolute.kind))
                          .arg(c.absolute.positions)
                          .arg(c.absolute.tableRows)
                          .arg(c.absolute.offset)
                          .arg(c.absolute.tensorNames.join(u", ")));
        printLine(QStringLiteral("layers:"));
        for (const LayerRun &run : layerRuns(c))
            printLine(run.first == run.last
                          ? QStringLiteral("  %1: %2").arg(run.first).arg(run.text)
                          : QStringLiteral("  %1-%2 (%3): %4")
                                .arg(run.first)
                                .arg(run.last)
                                .arg(run.last - run.first + 1)
                                .arg(run.text));
        if (!c.ropeParameters.isEmpty())
            printLine(QStringLiteral("rope_parameters: %1")
                          .arg(QString::fromUtf8(
                              QJsonDocument(c.ropeParameters).toJson(QJsonDocument::Compact))));
        if (statesPairing(c))
            printLine(QStringLiteral("pairing:  ") + pairingText(c));
        for (const QString &line : c.readFrom)
            printLine(QStringLiteral("read:     ") + line);
        for (const QString &line : c.assumed)
            printLine(QStringLiteral("assumed:  ") + line);
    }
    const QJsonObject gguf = report.value(QStringLiteral("gguf")).toObject();
    for (auto it = gguf.begin(); it != gguf.end(); ++it)
        printLine(QStringLiteral("gguf:     %1 = %2")
                      .arg(it.key(), it.value().isString()
                                         ? it.value().toString()
                                         : QString::number(it.value().toDouble(), 'g', 12)));
}

QJsonObject tensorJson(const TensorInfo &t)
{
    return {{QStringLiteral("name"), t.name},
            {QStringLiteral("shape"), shapeJson(t.shape)},
            {QStringLiteral("type"), t.typeName},
            {QStringLiteral("file"), t.file}};
}

// The tensor list is written one tensor at a time, never held whole: a header may list a
// million tensors (limits::maxTensorsPerFile), and a JSON document of them would cost ten times
// the header. `tensors` was checked by a first pass, so no shard fails half-way.
void printTensors(ModelTensors &tensors, qsizetype count, bool json)
{
    QString error;
    if (!json) {
        printLine(QStringLiteral("tensors (%1):").arg(count));
        (void)tensors.forEachTensor(
            [](const TensorInfo &t) {
                if (!standardOutputFailed()) // else main() reports the failure
                    printLine(
                        QStringLiteral("  %1  %2  %3").arg(t.name, t.shapeString(), t.typeName));
            },
            &error);
        return;
    }
    // Each element as QJsonDocument's indented format writes it at depth 2: its lines indented
    // by 8 spaces, elements separated by ",\n".
    bool first = true;
    (void)tensors.forEachTensor(
        [&](const TensorInfo &t) {
            if (standardOutputFailed())
                return; // nothing more is formatted (main() reports the failure)
            QByteArray element = QJsonDocument(tensorJson(t)).toJson(QJsonDocument::Indented);
            element.chop(1); // its final newline
            element.replace('\n', "\n        ");
            writeOut(first ? "\n        " : ",\n        ");
            writeOut(element);
            first = false;
        },
        &error);
}

} // namespace

QJsonObject inspectReport(const QString &source, std::optional<ModelConfig> *configOut,
                          ModelTensors *tensorsOut, qsizetype *tensorCount)
{
    QString error;
    const std::optional<ModelLocation> location = resolveModel(source, &error);
    if (!location)
        throw UsageError{error};
    // config.json, or a GGUF file's metadata.
    const std::optional<ModelConfig> config = readModelConfig(*location, &error);
    if (!config && !error.isEmpty())
        throw UsageError{error};
    QJsonObject report{{QStringLiteral("source"), source},
                       {QStringLiteral("kind"), nameOf(modelSourceKindNames, location->kind)}};
    if (!location->repoId.isEmpty()) {
        report.insert(QStringLiteral("repo_id"), location->repoId);
        report.insert(QStringLiteral("revision"), location->revision);
    }
    if (config)
        report.insert(QStringLiteral("config"), configJson(*config));
    ModelTensors ownTensors;
    ModelTensors &tensors = tensorsOut ? *tensorsOut : ownTensors;
    qsizetype count = -1; // none listed for a config alone
    if (location->kind != ModelSourceKind::ConfigOnly) {
        if (!tensors.open(*location, &error))
            throw UsageError{error};
        report.insert(QStringLiteral("weights"), tensors.path());
        // Every shard read (and counted) before anything is printed. With tensorsOut the list
        // is left empty, a placeholder the caller streams into.
        QJsonArray list;
        count = 0;
        if (!tensors.forEachTensor(
                [&](const TensorInfo &t) {
                    ++count;
                    if (!tensorsOut)
                        list.append(tensorJson(t));
                },
                &error))
            throw UsageError{error};
        report.insert(QStringLiteral("tensors"), list);
        if (const GgufFile *gguf = tensors.gguf())
            report.insert(QStringLiteral("gguf"), ggufJson(*gguf));
        if (config) {
            const QString table = findPositionTable(*config, tensors.tensorNames());
            if (!table.isEmpty())
                report.insert(QStringLiteral("position_table"), table);
        }
    }
    if (configOut)
        *configOut = config;
    if (tensorCount)
        *tensorCount = count;
    return report;
}

int runInspect(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Shows what pescope reads from a model: architecture, the positional scheme of each "
        "layer, RoPE parameters, what was assumed, and the tensors (names, shapes, types). "
        "Reads headers only; nothing is downloaded."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QStringLiteral("A model folder, config.json, a .safetensors, "
                                                ".gguf or .npy file, or a Hugging Face cache "
                                                "repo id (gpt2, org/name)."),
                                 QStringLiteral("PATH|REPO_ID"));
    parser.addOption({QStringLiteral("json"), QStringLiteral("One JSON object on stdout.")});
    parseCommand(parser, args, true);
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1)
        throw UsageError{positional.isEmpty()
                             ? QStringLiteral("name a model: a folder, a file or a repo id")
                             : QStringLiteral("unexpected argument \"%1\"").arg(positional.at(1))};

    std::optional<ModelConfig> config;
    ModelTensors tensors;
    qsizetype tensorCount = -1;
    const QJsonObject report =
        inspectReport(positional.constFirst(), &config, &tensors, &tensorCount);
    if (parser.isSet(QStringLiteral("json"))) {
        const QByteArray json = QJsonDocument(report).toJson(QJsonDocument::Indented);
        // The placeholder, as the indented format writes an empty array at the top level; no
        // value can contain it (strings escape their newlines).
        const QByteArray placeholder = "\n    \"tensors\": [\n    ]";
        const qsizetype at = tensorCount < 0 ? -1 : json.indexOf(placeholder);
        if (at < 0) {
            writeOut(json);
        } else {
            const qsizetype open = at + placeholder.size() - 6; // just past the '['
            writeOut(json.first(open));
            printTensors(tensors, tensorCount, true);
            writeOut(json.sliced(open));
        }
    } else {
        printText(report, config);
        if (tensorCount >= 0)
            printTensors(tensors, tensorCount, false);
        if (report.contains(QStringLiteral("position_table")))
            printLine(QStringLiteral("position table: %1")
                          .arg(report.value(QStringLiteral("position_table")).toString()));
    }
    return Success; // main() checks that the output was written
}

} // namespace pe::cli
