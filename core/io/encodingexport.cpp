#include "io/encodingexport.h"

#include <future>
#include <vector>

namespace pe {

qint64 chunkRows(qint64 dims, qint64 chunkBytes)
{
    return std::max<qint64>(1, chunkBytes / (dims * qint64(sizeof(float))));
}

bool streamEncoding(Backend &backend, const EncodingSpec &spec, MatrixWriter &writer,
                    QString *error, const ProgressCallback &progress)
{
    if (!writer.open(error))
        return false;
    const qint64 rowsPerChunk = std::min(spec.positions, chunkRows(spec.dims));
    std::vector<float> buffers[2];
    for (auto &buffer : buffers)
        buffer.resize(std::size_t(rowsPerChunk * spec.dims));

    auto compute = [&](int which, qint64 firstRow) {
        const qint64 rows = std::min(rowsPerChunk, spec.positions - firstRow);
        QString message;
        const bool ok = backend.encode(spec, firstRow, rows, buffers[which].data(), &message);
        return ok ? QString() : message;
    };

    int current = 0;
    QString computeError = compute(current, 0);
    for (qint64 firstRow = 0; firstRow < spec.positions; firstRow += rowsPerChunk) {
        if (!computeError.isEmpty()) {
            writer.cancel();
            if (error)
                *error = computeError;
            return false;
        }
        const qint64 rows = std::min(rowsPerChunk, spec.positions - firstRow);
        const qint64 nextRow = firstRow + rowsPerChunk;
        std::future<QString> next;
        if (nextRow < spec.positions)
            next = std::async(std::launch::async, compute, 1 - current, nextRow);
        const bool written = writer.write(buffers[current].data(), rows * spec.dims, error);
        if (next.valid())
            computeError = next.get();
        if (!written)
            return false; // the writer has cancelled itself and set *error
        if (progress && !progress(firstRow + rows, spec.positions)) {
            writer.cancel();
            if (error)
                *error = QStringLiteral("cancelled");
            return false;
        }
        current = 1 - current;
    }
    return writer.commit(error);
}

} // namespace pe
