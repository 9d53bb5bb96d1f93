// A paint device that draws nothing and records where every piece of text lands, for the suites
// that check a figure's text: what it clips at its edges (tst_export), what overlaps
// (tst_schemeviews).
#pragma once

#include "figures/figureoptions.h"

#include <QFontMetricsF>
#include <QList>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QRectF>
#include <QString>
#include <QTextItem>
#include <QTransform>

#include <cmath>
#include <utility>

namespace pe::test {

// A paint device that draws nothing and records where every piece of text lands (its font's
// bounding box at the painter's transform): what a figure would clip at its edges.
class TextRecorder : public QPaintEngine
{
public:
    TextRecorder() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice *device) override
    {
        m_device = device;
        return true;
    }
    bool end() override { return true; }
    void updateState(const QPaintEngineState &state) override
    {
        if (state.state() & QPaintEngine::DirtyTransform)
            m_transform = state.transform();
    }
    void drawPixmap(const QRectF &, const QPixmap &, const QRectF &) override {}
    void drawImage(const QRectF &, const QImage &, const QRectF &,
                   Qt::ImageConversionFlags) override
    {}
    void drawPath(const QPainterPath &) override {}
    void drawPolygon(const QPointF *, int, PolygonDrawMode) override {}
    void drawPolygon(const QPoint *, int, PolygonDrawMode) override {}
    void drawLines(const QLineF *, int) override {}
    void drawRects(const QRectF *, int) override {}
    void drawEllipse(const QRectF &) override {}
    void drawPoints(const QPointF *, int) override {}
    void drawTextItem(const QPointF &p, const QTextItem &item) override
    {
        if (item.text().trimmed().isEmpty())
            return;
        const QFontMetricsF metrics(item.font(), m_device);
        const QRectF box = metrics.tightBoundingRect(item.text()).translated(p);
        texts.append({item.text(), m_transform.mapRect(box)});
    }
    Type type() const override { return QPaintEngine::User; }

    QList<std::pair<QString, QRectF>> texts;

private:
    QPaintDevice *m_device = nullptr;
    QTransform m_transform;
};

class TextDevice : public QPaintDevice
{
public:
    TextDevice(int width, int height) : m_width(width), m_height(height) {}
    QPaintEngine *paintEngine() const override { return &m_engine; }
    TextRecorder &recorder() const { return m_engine; }

protected:
    int metric(PaintDeviceMetric metric) const override
    {
        switch (metric) {
        case PdmWidth:
            return m_width;
        case PdmHeight:
            return m_height;
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY:
            return int(std::lround(figureBaseDpi()));
        case PdmDepth:
            return 32;
        case PdmDevicePixelRatio:
            return 1;
        case PdmDevicePixelRatioScaled:
            return int(devicePixelRatioFScale());
        case PdmWidthMM:
            return int(m_width * 25.4 / figureBaseDpi());
        case PdmHeightMM:
            return int(m_height * 25.4 / figureBaseDpi());
        default:
            return QPaintDevice::metric(metric);
        }
    }

private:
    int m_width, m_height;
    mutable TextRecorder m_engine;
};

} // namespace pe::test
