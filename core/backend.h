// Backend: the interface every compute backend (CPU with Eigen, GPU with GL compute) implements.
// Backends are not thread-safe; use one instance per thread.
#pragma once

#include "encodingspec.h"

#include <QList>
#include <QString>

namespace pe {

class Backend
{
public:
    virtual ~Backend() = default;

    // Short id used on the command line and in the status bar: "cpu", "gpu".
    virtual QString id() const = 0;
    // One line for humans, e.g. "CPU (Eigen 3.4.0, 2 threads)".
    virtual QString description() const = 0;

    // Writes rows [firstRow, firstRow + rowCount) of the spec's matrix into `out`, row-major,
    // spec.dims floats per row. The spec must be valid. Returns false and sets *error on failure.
    [[nodiscard]] virtual bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount,
                                      float *out, QString *error) = 0;
};

} // namespace pe
