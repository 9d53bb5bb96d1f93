// Build-time tool: renders pescope's SVG icon to the PNG sizes of the hicolor icon theme.
//   pe_rendericon OUT_DIR SMALL.svg LARGE.svg SMALL_MAX SIZE...
// writes OUT_DIR/<S>x<S>/apps/pescope.png for each SIZE, drawn from SMALL.svg (a drawing on the
// 16 px grid) up to SMALL_MAX pixels and from LARGE.svg above. The output depends only on the
// SVGs and Qt's rasteriser, so a build reproduces the same files.
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 6) {
        std::fprintf(stderr,
                     "usage: pe_rendericon OUT_DIR SMALL.svg LARGE.svg SMALL_MAX SIZE...\n");
        return 2;
    }
    QSvgRenderer small(args[2]);
    QSvgRenderer large(args[3]);
    if (!small.isValid() || !large.isValid()) {
        std::fprintf(stderr, "pe_rendericon: cannot read %s or %s\n", qPrintable(args[2]),
                     qPrintable(args[3]));
        return 1;
    }
    const int smallMax = args[4].toInt();
    for (qsizetype i = 5; i < args.size(); ++i) {
        const int size = args[i].toInt();
        if (size < 1 || size > 4096) {
            std::fprintf(stderr, "pe_rendericon: bad size %s\n", qPrintable(args[i]));
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        (size <= smallMax ? small : large).render(&painter, QRectF(0, 0, size, size));
        painter.end();
        const QString dir = QStringLiteral("%1/%2x%2/apps").arg(args[1]).arg(size);
        const QString path = dir + QStringLiteral("/pescope.png");
        if (!QDir().mkpath(dir) ||
            !image.convertToFormat(QImage::Format_ARGB32).save(path, "PNG")) {
            std::fprintf(stderr, "pe_rendericon: cannot write %s\n", qPrintable(path));
            return 1;
        }
    }
    return 0;
}
