// For the GPU suites: whether this machine can make an OpenGL 4.3 core context at all, probed
// with plain Qt (not with the backend under test), so a broken backend fails instead of skipping.
#pragma once

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QTest>

namespace pe::test {

// Empty when a 4.3 core context can be made current here, else why not.
inline QString missingOpenGl43()
{
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(4, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    QOffscreenSurface surface;
    surface.setFormat(format);
    surface.create();
    QOpenGLContext context;
    context.setFormat(format);
    if (!context.create())
        return QStringLiteral("no OpenGL context can be created on Qt's \"%1\" platform (no "
                              "display? run under xvfb-run)")
            .arg(QGuiApplication::platformName());
    if (context.isOpenGLES() || context.format().version() < qMakePair(4, 3))
        return QStringLiteral("the driver offers OpenGL %1.%2, compute shaders need 4.3")
            .arg(context.format().majorVersion())
            .arg(context.format().minorVersion());
    if (!context.makeCurrent(&surface))
        return QStringLiteral("the OpenGL context cannot be made current");
    context.doneCurrent();
    return {};
}

inline const QString &cachedMissingOpenGl43()
{
    static const QString why = missingOpenGl43();
    return why;
}

} // namespace pe::test

// Skips the current test, with the reason, only when there is no OpenGL 4.3 at all; with
// PE_REQUIRE_GPU set (CI under Xvfb) that is a failure instead.
#define PE_REQUIRE_OPENGL43()                                                                      \
    do {                                                                                           \
        const QString &pe_why = pe::test::cachedMissingOpenGl43();                                 \
        if (!pe_why.isEmpty()) {                                                                   \
            if (qEnvironmentVariableIsSet("PE_REQUIRE_GPU"))                                       \
                QFAIL(qPrintable(QStringLiteral("PE_REQUIRE_GPU is set but ") + pe_why));          \
            QSKIP(qPrintable(pe_why));                                                             \
        }                                                                                          \
    } while (false)
