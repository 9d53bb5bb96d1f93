// The one-page PDF of `pescope context --out report.pdf` (issue 49): the report's source and
// verdict lines as text at the top, then its figures on one A4 page in the print theme: the
// Schemes page's context views (context-pairs, context-base-bound, context-precision) drawn from
// that very report, and the decay view with configuration B set to A unscaled, out to the
// claimed context. Runs on the GUI thread (the builders draw into QCustomPlot widgets).
#pragma once

#include "backends/backend.h"
#include "encodingspec.h"
#include "rope/contextreport.h"

#include <QByteArray>
#include <QString>

namespace pe {

// `spec`: the rotary layer the report is of (its RoPE scheme and head dims). Empty with *error.
QByteArray contextReportPdf(const ContextReport &report, const EncodingSpec &spec, Backend &backend,
                            QString *error);

} // namespace pe
