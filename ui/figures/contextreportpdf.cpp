#include "figures/contextreportpdf.h"

#include "compute/figuredata.h"
#include "figures/figurepainter.h"
#include "state/figurestate.h"

#include "figures/qcpinclude.h"

#include <QBuffer>
#include <QFont>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>

#include <algorithm>

namespace pe {

namespace {

// The page is laid out this many logical pixels wide (the window's units, 96 per inch at the
// figures' base DPI) and scaled onto A4: wider than A4's 794 so that four figures fit with
// legible text.
constexpr double layoutWidth = 1240.0;
constexpr double margin = 36.0;
constexpr double textPixels = 15.0;

// The decay view's settings for the report: B is A without its scaling rule, over the claimed
// context (the decay view's own limit caps it).
SchemeSettings decaySettings(const ContextReport &report, const EncodingSpec &spec)
{
    SchemeSettings settings;
    settings.view = FigureView::Decay;
    RopeScheme unscaled = *spec.get<RopeScheme>();
    if (unscaled.ropeType != RopeType::Proportional) {
        unscaled.ropeType = RopeType::Default;
        unscaled.factor.reset();
    }
    settings.compare = unscaled;
    settings.decayDistance = std::clamp<qint64>(report.context - 1, 1, limits::maxDecayDistance);
    return settings;
}

// The source and the verdict as word-wrapped text from `top`; returns where the text ends.
double paintVerdict(QPainter *painter, const ContextReport &report, double top, double width)
{
    QFont font = painter->font();
    font.setPixelSize(int(textPixels));
    // No shaping, so no ligatures: the PDF's text reads "float32", not "ﬂoat32", to pdftotext
    // and to a reader's search (the verdict is Latin text, which needs none).
    font.setStyleStrategy(QFont::PreferNoShaping);
    QFont bold = font;
    bold.setBold(true);
    bold.setPixelSize(int(textPixels + 3));
    double y = top;
    const auto paragraph = [&](const QFont &f, const QString &text, double indent) {
        painter->setFont(f);
        const QRectF room(margin + indent, y, width - indent, 1e6);
        const QRectF used = painter->boundingRect(room, Qt::TextWordWrap, text);
        painter->drawText(room, Qt::TextWordWrap, text);
        y += used.height() + 3.0;
    };
    paragraph(bold, QStringLiteral("Long-context report: ") + report.source, 0);
    for (const QString &line : report.verdict)
        paragraph(font, line, 12);
    for (const QString &line : report.notes)
        paragraph(font, QStringLiteral("note: ") + line, 12);
    return y;
}

} // namespace

QByteArray contextReportPdf(const ContextReport &report, const EncodingSpec &spec, Backend &backend,
                            QString *error)
{
    if (!spec.get<RopeScheme>()) {
        *error = QStringLiteral("the context report's PDF needs a rotary spec");
        return {};
    }
    // The decay view's numbers, then the report's own for the context views.
    SchemeInputs inputs;
    inputs.spec = spec;
    inputs.spec.positions = std::clamp<qint64>(report.context, 1, limits::maxPositions);
    inputs.settings = decaySettings(report, spec);
    auto result = std::make_shared<SchemeResult>();
    if (computeSchemeData(inputs, {FigureView::Decay}, backend, {}, result.get(), error) !=
        JobStatus::Done)
        return {};
    result->context = std::make_shared<const ContextFigureNumbers>(contextFigureNumbers(report));
    FigureData data;
    data.schemes = result;
    ExplorerValues values = ExplorerValues::defaults();
    if (!values.setSpec(inputs.spec, error) || !values.setSchemeSettings(inputs.settings, error))
        return {};
    const FigureState state(values);

    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("pescope " PE_VERSION));
        writer.setTitle(QStringLiteral("pescope context: ") + report.source);
        writer.setResolution(int(std::lround(figureBaseDpi())));
        writer.setPageLayout(
            QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        const double scale = double(writer.width()) / layoutWidth;
        const double layoutHeight = double(writer.height()) / scale;
        QCPPainter painter;
        if (!painter.begin(&writer)) {
            *error = QStringLiteral("cannot start the PDF writer");
            return {};
        }
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setMode(QCPPainter::pmNonCosmetic);
        painter.scale(scale, scale);
        painter.fillRect(QRectF(0, 0, layoutWidth, layoutHeight), Qt::white);
        painter.setPen(Qt::black);
        const double textEnd =
            paintVerdict(&painter, report, margin, layoutWidth - 2 * margin) + 8.0;
        // Two columns, two rows of figures below the text.
        const QList<FigureView> views{FigureView::ContextPairs, FigureView::ContextBaseBound,
                                      FigureView::ContextPrecision, FigureView::Decay};
        const double cellWidth = (layoutWidth - 2 * margin) / 2.0;
        const double cellHeight = (layoutHeight - margin - textEnd) / 2.0;
        if (cellHeight < double(figurelimits::minLayoutHeight) / 2.0) {
            *error = QStringLiteral("the verdict leaves no room for the figures on one page");
            return {};
        }
        for (int k = 0; k < views.size(); ++k) {
            FigureOptions options;
            options.views = {views[k]};
            options.printTheme = true;
            options.dpi = figureBaseDpi();
            options.width = qint64(std::floor(cellWidth));
            options.height = qint64(std::floor(cellHeight));
            painter.save();
            const int row = k / 2;
            const int column = k % 2;
            painter.translate(margin + cellWidth * column, textEnd + cellHeight * row);
            const bool painted =
                paintFigure(&painter, FigureTarget::Vector, state, data, options, error);
            painter.restore();
            if (!painted)
                return {};
        }
        painter.end();
    }
    return buffer.data();
}

} // namespace pe
