// CpuBackend: the reference backend, Eigen-vectorised and spread over all cores.
#pragma once

#include "backends/backend.h"

namespace pe {

class CpuBackend final : public Backend
{
public:
    // threadCount 0 means one per hardware thread.
    explicit CpuBackend(int threadCount = 0);

    QString id() const override { return QStringLiteral("cpu"); }
    QString description() const override;
    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error) override;
    // Vectorised closed form on all cores (cpusampler.h).
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error) override;

    int threadCount() const { return m_threadCount; }

private:
    int m_threadCount;
};

} // namespace pe
