// FigureExporter: renders figures built by the window's FigureBuilder into PNG (exact pixel
// size, any DPI), SVG and PDF (lines, markers and text as vector elements; heatmaps embedded at
// full resolution, nearest neighbour), for File → Export figure and `pescope export` alike. It
// draws on the GUI thread from results computed beforehand (FigureData).
#pragma once

#include "compute/figuredata.h"
#include "figures/figureoptions.h"
#include "state/figurestate.h"

#include <QByteArray>
#include <QImage>
#include <QString>

namespace pe {

class FigureExporter
{
public:
    FigureExporter(const FigureState &state, const FigureData &data, const FigureOptions &options);

    // Exactly options.width x options.height pixels, the DPI recorded in the image.
    QImage renderImage(QString *error) const;
    QByteArray renderSvg(QString *error) const;
    QByteArray renderPdf(QString *error) const;
    // PNG bytes for PNG; the document for SVG and PDF. Empty with *error on failure.
    QByteArray render(FigureFormat format, QString *error) const;
    // The format follows the extension; written through AtomicFile, so a failure leaves no file.
    bool writeFile(const QString &path, QString *error) const;

private:
    QString check() const;
    // The SVG or PDF document as its device writes it: the checks, the device on a buffer and
    // the figure painted with a vectorising painter. Empty with *error on failure.
    QByteArray renderVector(FigureFormat format, QString *error) const;

    FigureState m_state; // a copy: builders outlive no state, and need none
    FigureData m_data;
    FigureOptions m_options;
};

} // namespace pe
