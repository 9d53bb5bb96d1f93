// ForwardWeights: one block's tensors, named by a ForwardPlan, checked for every layer before any
// work (present, every shard opens, the shape config.json implies, a readable type) and read in
// float32 one layer at a time. Internal to core/model (Eigen types).
#pragma once

#include "formats/modeltensors.h"
#include "model/forwardplan.h"
#include "model/layerzeroweights.h"

#include <QSet>
#include <QStringList>

namespace pe {

struct BlockWeights
{
    NormWeights attnNorm, mlpNorm, postAttnNorm, postMlpNorm;
    Projection query, key, value, output;
    std::vector<float> queryNorm, keyNorm;
    Projection fcIn, fcOut;    // Plain MLP
    Projection gate, up, down; // Gated MLP
};

class ForwardWeights
{
public:
    ForwardWeights(const ForwardPlan &plan, ModelTensors &tensors, QString prefix)
        : m_plan(plan), m_tensors(tensors), m_prefix(std::move(prefix))
    {}

    // Every tensor of every layer, the final norm and the output matrix: present, shaped as the
    // plan says, of a type pescope reads. Reads descriptors only.
    [[nodiscard]] bool check(QString *error);
    // Layer `index`'s tensors in float32; a tensor with values that are not finite adds a
    // sentence to *warnings.
    [[nodiscard]] bool load(qint64 index, BlockWeights *out, QStringList *warnings, QString *error);
    // The final norm's parameters.
    [[nodiscard]] bool loadFinalNorm(NormWeights *out, QString *error);
    // The output matrix's full name and rows (vocabulary).
    QString outputName() const { return m_outputName; }
    qint64 outputRows() const { return m_outputRows; }

private:
    struct Wanted
    {
        QString name; // full name
        std::vector<qint64> shape;
    };
    std::vector<Wanted> blockTensors(qint64 index) const;
    [[nodiscard]] bool checkTensor(const Wanted &wanted, QString *error);
    [[nodiscard]] bool read(const QString &name, std::vector<float> *out, QStringList *warnings,
                            QString *error);
    [[nodiscard]] bool readMatrix(const QString &name, qint64 rows, qint64 columns, RowMatrix *out,
                                  QStringList *warnings, QString *error);
    [[nodiscard]] bool readLinear(const QString &name, const LinearTensor &spec, qint64 rows,
                                  qint64 columns, Projection *out, QStringList *warnings,
                                  QString *error);
    [[nodiscard]] bool readNorm(const QString &name, NormKind kind, NormWeights *out,
                                QStringList *warnings, QString *error);
    [[nodiscard]] bool readAttention(qint64 index, BlockWeights *out, QStringList *warnings,
                                     QString *error);
    [[nodiscard]] bool readMlp(qint64 index, BlockWeights *out, QStringList *warnings,
                               QString *error);
    QString full(const QString &relative, qint64 index) const;

    const ForwardPlan &m_plan;
    ModelTensors &m_tensors;
    QString m_prefix;
    QSet<QString> m_names;
    QString m_outputName;
    qint64 m_outputRows = 0;
};

} // namespace pe
