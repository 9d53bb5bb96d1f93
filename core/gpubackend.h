// GpuBackend: encode() and sample() as OpenGL 4.3 compute shaders (resources/shaders/*.comp) on
// a QOpenGLContext + QOffscreenSurface, giving the CPU backend's numbers (the shaders mirror
// core/phasekernels.h). Needs a QGuiApplication; Qt Gui and OpenGL only, no Widgets.
#pragma once

#include "backend.h"

#include <QByteArray>
#include <QHash>

#include <memory>

namespace pe {

class GpuBackend final : public Backend
{
public:
    struct Options
    {
        // Test hooks. shaderOverrides replaces a shader's source by name ("encode_phase",
        // "encode_learned", "sample_phase", "sample_learned") to inject a compile error; the
        // byte limits force small chunks so tests cover the chunking on small matrices.
        QHash<QString, QByteArray> shaderOverrides;
        qint64 maxBufferBytes = 0;       // 0: min(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, 64 MiB)
        int maxRowGroupsPerDispatch = 0; // 0: GL_MAX_COMPUTE_WORK_GROUP_COUNT[1]
    };

    // Creates the context (OpenGL 4.3 core or later) and compiles the encode kernel; nullptr
    // with *why set when that is impossible (no QGuiApplication, no display, old driver,
    // compile or link error with its log). Shaders other than encode_phase compile on first use.
    static std::unique_ptr<GpuBackend> create(QString *why, const Options &options);
    static std::unique_ptr<GpuBackend> create(QString *why) { return create(why, Options()); }
    ~GpuBackend() override;

    QString id() const override { return QStringLiteral("gpu"); }
    // "GPU (<renderer>, OpenGL <version>)".
    QString description() const override;
    QString renderer() const;

    // Callable from any thread (calls are serialised): the GL work runs on the backend's own
    // thread, where its context was created, as Qt requires. Destroy it before the
    // QGuiApplication.
    bool encode(const EncodingSpec &spec, qint64 firstRow, qint64 rowCount, float *out,
                QString *error) override;
    bool sample(const EncodingSpec &spec, const MatrixWindow &window, int width, int height,
                float *out, QString *error) override;

    // Whether a kernel exists for the spec's scheme (other schemes belong to the CPU).
    static bool supports(const EncodingSpec &spec);

    // Milliseconds the GPU spent in the last call's dispatches (GL_TIME_ELAPSED), or -1 when
    // the driver has no timer queries. Reading results back is not included.
    double lastKernelMilliseconds() const;

    // Test hook: destroys the context as a driver reset would; later calls fail as "lost".
    void loseContextForTesting();

private:
    GpuBackend();
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace pe
