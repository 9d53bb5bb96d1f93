// Backend: the interface every compute backend (CPU with Eigen, GPU with GL compute) implements.
// Backends are not thread-safe; use one instance per thread.
#pragma once

#include "encodingspec.h"

#include <QList>
#include <QString>

namespace pe {

// A rectangle of a (virtual) encoding matrix in cell units: cell (p, j) is the unit square
// [p, p+1) x [j, j+1), so fractional edges are allowed. Positions run down, dims across.
struct MatrixWindow
{
    double firstPosition = 0.0;
    double firstDim = 0.0;
    double positionCount = 0.0; // > 0; firstPosition + positionCount <= spec.positions
    double dimCount = 0.0;      // > 0; firstDim + dimCount <= spec.dims

    static MatrixWindow whole(const EncodingSpec &spec)
    {
        return {0.0, 0.0, double(spec.positions), double(spec.dims)};
    }
    bool operator==(const MatrixWindow &) const = default;
};

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

    // Box-filtered view of `window` as height x width pixels, row-major (out[y * width + x];
    // pixel row y spans positions, pixel column x spans dims). Each pixel is the exact mean of
    // the matrix, taken as constant over each cell, over the pixel's footprint: whole cells
    // count fully, cells cut by the footprint's edge count by the fraction covered; a pixel
    // inside one cell shows that cell. Nothing is materialised, so any window of a matrix up to
    // limits::maxPositions x limits::maxDims works and wide views do not alias. Sinusoidal and
    // RoPE use a closed form; other schemes average up to a budget of rows per pixel row (see
    // samplingplan.h). Returns false and sets *error on bad arguments or failure.
    [[nodiscard]] virtual bool sample(const EncodingSpec &spec, const MatrixWindow &window,
                                      int width, int height, float *out, QString *error) = 0;

    // Non-empty after something the user should see happened (e.g. "the GPU failed, the CPU
    // took over: ..."); the CLI prints it on stderr, the window shows it.
    virtual QString notice() const { return {}; }
};

} // namespace pe
